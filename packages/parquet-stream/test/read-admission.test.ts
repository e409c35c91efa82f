/**
 * The reader's admission contract, checked on a real multi-row-group file (pyarrow's type matrix, 8 row
 * groups, well over the 64 KiB footer hint) with every read-ahead and batch size: each byte a GET returns
 * was admitted before the GET (the totals are equal, so gaps of coalesced ranges are counted too); a decode
 * admission is never requested while the reader still holds one (no hold-and-wait on the decode budget);
 * every batch handed out is covered by the decode admission held for it (after the top-up rule); and
 * nothing stays admitted once the read ends or is cut short and the reader is closed.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { type GetOptions, LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openParquetReader, type ReadAdmission, recordBatchBytes } from "../src/index.js";

let oracle: Oracle;
let dir: string;
const file = "matrix.parquet";
let size: number;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "read-admission-"));
  await oracle.call("parquet_write_type_matrix", {
    path: path.join(dir, file),
    rows: 4000,
    row_group_size: 500,
  });
  size = (await fs.stat(path.join(dir, file))).size;
});
afterAll(async () => {
  oracle.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Grants at once and keeps the books; a GET checks that its bytes were admitted. */
class Ledger implements ReadAdmission {
  fetchHeld = 0;
  fetchAdmittedTotal = 0;
  arrivedTotal = 0;
  unreleasedArrived = 0;
  decodeHeld = 0;
  decodeRequestsWhileHolding = 0;
  overdrawnGets = 0;

  async admitFetch(bytes: number) {
    this.fetchHeld += bytes;
    this.fetchAdmittedTotal += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.fetchHeld -= bytes;
      this.unreleasedArrived -= bytes;
    };
  }

  async admitDecode(bytes: number) {
    if (this.decodeHeld > 0) this.decodeRequestsWhileHolding++;
    this.decodeHeld += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.decodeHeld -= bytes;
    };
  }

  arrived(bytes: number) {
    this.arrivedTotal += bytes;
    this.unreleasedArrived += bytes;
    if (this.unreleasedArrived > this.fetchHeld) this.overdrawnGets++;
  }
}

class LedgerStore extends LocalFileStore {
  constructor(
    root: string,
    private readonly ledger: Ledger,
  ) {
    super(root);
  }
  override async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const bytes = await super.get(key, options);
    this.ledger.arrived(bytes.byteLength);
    return bytes;
  }
}

describe("read admission", () => {
  it.each([
    [0, 500, 65536],
    [1, 128, 65536],
    [3, 77, 65536],
    [2, undefined, 65536],
    [1, 200, 64], // footer longer than the first GET: fetched whole in a second one
  ])("read-ahead %s, batches of %s rows, footer hint %s", async (readAhead, batchRows, footerHintBytes) => {
    const ledger = new Ledger();
    const store = new LedgerStore(dir, ledger);
    const reader = await openParquetReader(store, file, { size, footerHintBytes, admission: ledger });
    let rows = 0;
    let uncovered = 0;
    for await (const batch of reader.readRowGroups({ batchRows, readAhead })) {
      rows += batch.numRows;
      if (recordBatchBytes(batch) > ledger.decodeHeld) uncovered++;
    }
    reader.close();
    expect(rows).toBe(4000);
    expect(ledger.arrivedTotal).toBeGreaterThan(0);
    expect(ledger.fetchAdmittedTotal).toBe(ledger.arrivedTotal);
    expect(ledger.overdrawnGets).toBe(0);
    expect(ledger.decodeRequestsWhileHolding).toBe(0);
    expect(uncovered).toBe(0);
    expect(ledger.fetchHeld).toBe(0);
    expect(ledger.decodeHeld).toBe(0);
  });

  it("a read cut short gives everything back, read-ahead included, once its GETs settle", async () => {
    const ledger = new Ledger();
    const reader = await openParquetReader(new LedgerStore(dir, ledger), file, { size, admission: ledger });
    for await (const batch of reader.readRowGroups({ batchRows: 100, readAhead: 3 })) {
      expect(batch.numRows).toBe(100);
      break;
    }
    reader.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ledger.fetchHeld).toBe(0);
    expect(ledger.decodeHeld).toBe(0);
    expect(ledger.fetchAdmittedTotal).toBe(ledger.arrivedTotal);
  });

  it("a file within the footer hint keeps its single GET as the tail, admitted until close()", async () => {
    const ledger = new Ledger();
    const reader = await openParquetReader(new LedgerStore(dir, ledger), file, {
      size,
      footerHintBytes: size,
      admission: ledger,
    });
    expect(ledger.fetchHeld).toBe(size);
    let rows = 0;
    for await (const batch of reader.readRowGroups({ readAhead: 2 })) rows += batch.numRows;
    expect(rows).toBe(4000);
    expect(ledger.arrivedTotal).toBe(size); // one GET in all
    expect(ledger.fetchHeld).toBe(size);
    reader.close();
    expect(ledger.fetchHeld).toBe(0);
  });
});
