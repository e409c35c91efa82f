// `deltalite scan` as a user runs it (the built code in a child process; `pnpm exec tsc -b` builds it) on a
// delta-rs table: NDJSON lines equal delta-rs's rows in the §7 encoding; the Parquet and Arrow IPC outputs,
// read back by pyarrow, equal delta-rs's rows and types; plus the §3a contract (--json result, usage errors
// exit 2, operational errors exit 1 with {"error": {kind, message}}).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScanRows, sortedRows } from "./scan-helpers.js";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist");
let oracle: Oracle;
let tmp: string;
let uri: string;
/** The command that runs the CLI: the `deltalite` bin once `scan` is among its verbs, else a runner of the same frame. */
let command: string[];

beforeAll(async () => {
  expect(existsSync(path.join(dist, "cli/verbs-scan.js")), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-cli-"));
  uri = path.join(tmp, "events");
  await oracle.call("scan_make_table", { uri });
  const help = spawnSync(process.execPath, [path.join(dist, "cli.js"), "--help"], { encoding: "utf8" });
  if (/^\s+scan\s/m.test(help.stdout)) {
    command = [path.join(dist, "cli.js")];
  } else {
    // Until `scanVerb` is listed in src/cli/verbs.ts, run it through the same CLI frame and I/O as the bin.
    const runner = path.join(tmp, "scan-runner.mjs");
    await fs.writeFile(
      runner,
      [
        `import { runCli } from ${JSON.stringify(path.join(dist, "cli/framework.js"))};`,
        `import { scanVerb } from ${JSON.stringify(path.join(dist, "cli/verbs-scan.js"))};`,
        "process.exitCode = await runCli(process.argv.slice(2), [scanVerb], {",
        "  stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), isTTY: process.stderr.isTTY === true,",
        "});",
      ].join("\n"),
    );
    command = [runner];
    console.log(
      "scan-cli: the bin does not list `scan` yet; running scanVerb through runCli in a child process",
    );
  }
});
afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [...command, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const filter = [
  { column: "region", op: "in", value: ["eu", "ap"] },
  { column: "id", op: "ge", value: 1040 },
  { column: "name", op: "ne", value: "n02001" },
];
const columns = ["name", "id", "day", "note", "region", "amount"];

describe("deltalite scan", () => {
  it("ndjson on stdout: one line per row, equal to delta-rs's rows (filter + projection)", async () => {
    const r = run([
      "scan",
      uri,
      "--columns",
      columns.join(","),
      "--filter",
      JSON.stringify(filter),
      "--output",
      "-",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.pop()).toBe("");
    const expected = await oracle.call<ScanRows>("scan_delta", { uri, filter, columns });
    expect(lines.length).toBe(expected.rows.length);
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.map((l) => Object.keys(JSON.parse(l)))).toEqual(lines.map(() => columns));
    expect(sortedRows(lines.map((l) => JSON.parse(l)))).toEqual(sortedRows(expected.rows));
    expect(r.stderr).toMatch(/scanned \d+ rows/);
  });

  // (`arrow` is the IPC file format since the output conventions; cli-scan.test.ts reads it back. `arrows` is the stream.)
  it.each(["parquet", "arrows"])("%s file: pyarrow reads back delta-rs's rows and types", async (format) => {
    const output = path.join(tmp, `out.${format}`);
    const r = run(["scan", uri, "--version", "2", "--format", format, "--output", output, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const expected = await oracle.call<ScanRows>("scan_delta", { uri, version: 2 });
    expect(result).toMatchObject({
      version: 2,
      format,
      rows: expected.rows.length,
      filesTotal: 9,
      filesRead: 9,
    });
    const back = await oracle.call<ScanRows>("scan_read_file", {
      path: output,
      format: format === "arrows" ? "arrow" : format,
    });
    expect(back.fields).toEqual(expected.fields);
    expect(sortedRows(back.rows)).toEqual(sortedRows(expected.rows));
    expect((await fs.readdir(tmp)).filter((f) => f.includes("partial"))).toEqual([]);
  });

  it("--json reports pruning; a scan matching nothing writes an empty ndjson file", async () => {
    const output = path.join(tmp, "none.ndjson");
    const r = run([
      "scan",
      uri,
      "--filter",
      '[{"column":"id","op":"gt","value":99999}]',
      "--output",
      output,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      rows: 0,
      filesTotal: 12,
      filesSkippedByStats: 12,
      filesRead: 0,
    });
    expect(await fs.readFile(output, "utf8")).toBe("");
  });

  it("a scan matching nothing exports a valid Parquet file: the table's schema, no rows", async () => {
    const output = path.join(tmp, "none.parquet");
    const r = run([
      "scan",
      uri,
      "--filter",
      '[{"column":"id","op":"gt","value":99999}]',
      "--format",
      "parquet",
      "--output",
      output,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 0, format: "parquet", filesRead: 0 });
    const back = await oracle.call<ScanRows>("scan_read_file", { path: output, format: "parquet" });
    const expected = await oracle.call<ScanRows>("scan_delta", { uri });
    expect(back.rows).toEqual([]);
    expect(back.fields).toEqual(expected.fields);
    expect((await fs.readdir(tmp)).filter((f) => f.includes("partial"))).toEqual([]);
  });

  it.each([
    [["--format", "xml", "--output", "x"], "unknown format"],
    [["--format", "parquet", "--output", "x.csv"], "--format contradicting the extension"],
    [["--filter", "{not json", "--output", "-"], "filter that is not JSON"],
    [["--version", "-1", "--output", "-"], "negative version"],
  ])("usage error (exit 2): %j (%s)", (args) => {
    const r = run(["scan", uri, ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });

  it.each([[["--output", "-"]], [[]]])(
    "--json with the rows on stdout %j: exit 2, one JSON error document",
    (args) => {
      const r = run(["scan", uri, ...args, "--json"]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).error.kind).toBe("invalid_argument");
    },
  );

  // An unknown column or a value that does not fit is the library's invalid_argument: exit 2, like a usage error.
  it.each([
    [["--columns", "nope"], /does not have \(did you mean "note"\?\)/],
    [["--filter", '[{"column":"id","op":"eq","value":"x"}]'], /does not fit a column of type long/],
  ])("invalid_argument from the scan (exit 2): %j", (args, message) => {
    const r = run(["scan", uri, ...args, "--output", path.join(tmp, "err.ndjson"), "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      kind: "invalid_argument",
      message: expect.stringMatching(message),
    });
    expect(existsSync(path.join(tmp, "err.ndjson"))).toBe(false);
  });
});
