// `deltalite scan` (and `info`'s time travel) as a user runs it: the built bin from a temporary working
// directory, on a table whose int64 column holds values beyond 2^53, strings with commas, quotes, newlines,
// empty strings and nulls. Output read back by pyarrow (CSV, NDJSON via Python's exact-integer json, Arrow
// IPC file and stream, Parquet) equals delta-rs's reading of the same table: stdout by default, --limit,
// --timestamp (the version delta-rs loads for that instant), the format from --output's extension, refused
// when it contradicts --format; CSV's documented rules; NDJSON's one int64 rule (always an exact number).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { venvBin } from "@deltalite/tools/python";
import { Bool, Float64, Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;
const BIG = 9007199254740993n; // 2^53 + 1: a double cannot hold it

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Versions 0..2 of table `t`, each an append; log files dated 2026-01-01, -02, -03 (UTC midnight). */
const batches = [
  { id: [BIG, 1n, -BIG], name: ['a,b "c"', "", null], amount: [1.5, null, -0.25], flag: [true, false, null] },
  { id: [2n, 3n], name: ["line\nbreak", "plain"], amount: [2, 3], flag: [true, true] },
  { id: [4n], name: ["late"], amount: [4], flag: [false] },
];
const dayMs = (k: number) => Date.UTC(2026, 0, 1 + k);

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-scan-"));
  for (const [k, b] of batches.entries()) {
    const table = new Table({
      id: vectorFromArray(b.id, new Int64()),
      name: vectorFromArray(b.name, new Utf8()),
      amount: vectorFromArray(b.amount, new Float64()),
      flag: vectorFromArray(b.flag, new Bool()),
    });
    await fs.writeFile(path.join(cwd, `v${k}.arrow`), tableToIPC(table, "file"));
    const r = run(["write", "t", "--input", `v${k}.arrow`, "--mode", "append"]);
    expect(r.code, r.stderr).toBe(0);
    const log = path.join(cwd, "t", "_delta_log", `${String(k).padStart(20, "0")}.json`);
    await fs.utimes(log, dayMs(k) / 1000, dayMs(k) / 1000);
  }
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

/**
 * pyarrow reads `file` as `format` and compares it with delta-rs's rows of the table (at `version`), in
 * Python, exactly (ints as Python ints). CSV: unquoted empty = null, quoted empty = "" (our documented rule).
 */
const COMPARE = `
import json, os, sys
import pyarrow as pa, pyarrow.csv as csv, pyarrow.ipc as ipc, pyarrow.parquet as pq
from deltalake import DeltaTable
uri, version, fmt, file, limit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
dt = DeltaTable(uri) if version == "latest" else DeltaTable(uri, version=int(version))
expected = dt.to_pyarrow_table()
if fmt == "csv":
    got = csv.read_csv(file, convert_options=csv.ConvertOptions(column_types=expected.schema,
        strings_can_be_null=True, quoted_strings_can_be_null=False)).to_pylist()
elif fmt == "ndjson":
    got = [json.loads(line) for line in open(file, encoding="utf-8")]
elif fmt == "arrow":
    got = ipc.open_file(file).read_all().to_pylist()
elif fmt == "arrows":
    got = ipc.open_stream(open(file, "rb")).read_all().to_pylist()
else:
    got = pq.read_table(file).to_pylist()
want = sorted(expected.to_pylist(), key=lambda r: r["id"])
if limit >= 0:
    # --limit takes rows in scan order; each must be one of delta-rs's rows, and there are exactly limit.
    print(json.dumps({"ok": len(got) == limit and all(r in want for r in got), "n": len(got)}))
else:
    got = sorted(got, key=lambda r: r["id"])
    print(json.dumps({"ok": got == want, "n": len(got), "got": repr(got[:3]), "want": repr(want[:3])}))
# Leave without interpreter teardown (delta-rs's runtime can abort during it, after the answer is out).
sys.stdout.flush()
os._exit(0)
`;

function pyarrowAgrees(file: string, format: string, version: number | "latest" = "latest", limit = -1) {
  const out = spawnSync(
    venvBin("python"),
    ["-c", COMPARE, path.join(cwd, "t"), String(version), format, file, String(limit)],
    { encoding: "utf8" },
  );
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { ok: boolean; n: number };
}

describe("scan output", () => {
  it("stdout by default: NDJSON with int64 always an exact JSON number (one rule per column)", async () => {
    const r = run(["scan", "t"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"id":9007199254740993,');
    expect(r.stdout).toContain('"id":-9007199254740993,');
    expect(r.stdout).toContain('"id":1,');
    expect(r.stdout).not.toMatch(/"id":"/);
    expect(r.stderr).toMatch(/scanned 6 rows of version 2/);
    const file = path.join(cwd, "stdout.ndjson");
    await fs.writeFile(file, r.stdout);
    expect(pyarrowAgrees(file, "ndjson")).toMatchObject({ ok: true, n: 6 });
  });

  it.each([
    ["rows.csv", "csv"],
    ["rows.ndjson", "ndjson"],
    ["rows.jsonl", "ndjson"],
    ["rows.parquet", "parquet"],
    ["rows.arrow", "arrow"],
    ["rows.arrows", "arrows"],
  ])("--output %s: the format is %s, and pyarrow reads delta-rs's rows back", (file, format) => {
    const r = run(["scan", "t", "--output", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format, rows: 6, output: path.join(cwd, file) });
    expect(pyarrowAgrees(path.join(cwd, file), format)).toMatchObject({ ok: true, n: 6 });
  });

  it("an IPC file starts and ends with the ARROW1 magic; a stream does not", async () => {
    run(["scan", "t", "-o", "magic.arrow"]);
    run(["scan", "t", "-o", "magic.arrows"]);
    const file = await fs.readFile(path.join(cwd, "magic.arrow"));
    expect(file.subarray(0, 6).toString()).toBe("ARROW1");
    expect(file.subarray(file.length - 6).toString()).toBe("ARROW1");
    expect((await fs.readFile(path.join(cwd, "magic.arrows"))).subarray(0, 6).toString()).not.toBe("ARROW1");
  });

  it("--format contradicting the extension is refused (exit 2), writing nothing; agreeing is fine", async () => {
    const r = run(["scan", "t", "--format", "ndjson", "--output", "wrong.parquet", "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      kind: "invalid_argument",
      message: expect.stringContaining("--format ndjson contradicts --output"),
    });
    expect(existsSync(path.join(cwd, "wrong.parquet"))).toBe(false);
    expect(run(["scan", "t", "--format", "csv", "-o", "right.csv"]).code).toBe(0);
    expect(run(["scan", "t", "--format", "csv", "-o", "no-extension"]).code).toBe(0);
    expect(
      (await fs.readFile(path.join(cwd, "no-extension"), "utf8")).startsWith("id,name,amount,flag\r\n"),
    ).toBe(true);
  });

  it("CSV: header, CRLF, RFC 4180 quoting, null empty and unquoted, empty string quoted, exact int64", async () => {
    const r = run([
      "scan",
      "t",
      "--version",
      "0",
      "--format",
      "csv",
      "--filter",
      '[{"column":"id","op":"ne","value":-1}]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\r\n");
    expect(lines[0]).toBe("id,name,amount,flag");
    expect(lines.slice(1).sort()).toEqual(
      ["", "-9007199254740993,,-0.25,", '1,"",,false', '9007199254740993,"a,b ""c""",1.5,true'].sort(),
    );
    const all = run(["scan", "t", "-o", "all.csv"]);
    expect(all.code).toBe(0);
    expect(await fs.readFile(path.join(cwd, "all.csv"), "utf8")).toContain('"line\nbreak"');
  });
});

describe("--limit and --timestamp", () => {
  it("--limit N returns N of delta-rs's rows (0 returns none); --json reports rows", () => {
    for (const limit of [0, 1, 4]) {
      const file = `limit-${limit}.ndjson`;
      const r = run(["scan", "t", "--limit", String(limit), "-o", file, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).rows).toBe(limit);
      expect(pyarrowAgrees(path.join(cwd, file), "ndjson", "latest", limit)).toMatchObject({
        ok: true,
        n: limit,
      });
    }
  });

  it("--timestamp reads the version delta-rs loads for that instant (scan and info)", async () => {
    const uri = path.join(cwd, "t");
    for (const [iso, ms] of [
      ["2026-01-01T12:00:00Z", dayMs(0) + 12 * 3600_000],
      ["2026-01-02", dayMs(1)],
      ["2026-01-02T23:59:59.999Z", dayMs(2) - 1],
      ["2026-01-03T00:00:00+00:00", dayMs(2)],
      ["2030-01-01T00:00:00Z", Date.UTC(2030, 0, 1)],
    ] as const) {
      const theirs = await oracle.call<{ version: number }>("delta_version_at", { uri, timestamp_ms: ms });
      const info = run(["info", "t", "--timestamp", iso, "--json"]);
      expect(info.code, info.stderr).toBe(0);
      expect(JSON.parse(info.stdout).version, iso).toBe(theirs.version);
      const file = `at-${theirs.version}.ndjson`;
      const scan = run(["scan", "t", "--timestamp", iso, "-o", file, "--json"]);
      expect(JSON.parse(scan.stdout).version).toBe(theirs.version);
      expect(pyarrowAgrees(path.join(cwd, file), "ndjson", theirs.version)).toMatchObject({ ok: true });
    }
    const both = run(["scan", "t", "--timestamp", "2026-01-02", "--version", "1"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give --version or --timestamp, not both");
    expect(run(["info", "t", "--timestamp", "last tuesday"]).code).toBe(2);
  });
});
