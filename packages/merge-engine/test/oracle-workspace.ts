/**
 * The set-up the delta-rs parity suites share: one oracle connection and one temp folder per suite (opened
 * before its tests, closed and removed after them), and `ipc(data)`, which writes Arrow data to a fresh IPC
 * file there for the oracle to read.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, Table, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll } from "vitest";

export interface OracleWorkspace {
  readonly oracle: Oracle;
  readonly dir: string;
  /** Writes `data` to a new Arrow IPC file in `dir`; returns its path. */
  ipc(data: Table | RecordBatch): Promise<string>;
}

/** Registers the suite's beforeAll / afterAll; the fields are set once beforeAll has run. */
export function oracleWorkspace(prefix: string): OracleWorkspace {
  let files = 0;
  const ws = {
    oracle: undefined as unknown as Oracle,
    dir: "",
    async ipc(data: Table | RecordBatch): Promise<string> {
      const path = join(ws.dir, `data-${files++}.arrow`);
      await writeFile(path, tableToIPC(data instanceof Table ? data : new Table(data), "file"));
      return path;
    },
  };
  beforeAll(async () => {
    ws.oracle = await connectOracle();
    ws.dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    ws.oracle?.close();
    if (ws.dir) await rm(ws.dir, { recursive: true, force: true });
  });
  return ws;
}
