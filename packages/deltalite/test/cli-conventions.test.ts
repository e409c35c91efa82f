// The CLI's conventions as a user meets them, through the built bin run from a temporary working directory:
// --version; every verb's --help lists every option it parses (with defaults and units) and scan's filter ops;
// our own messages for option mistakes ("did you mean", no node:util wording), also as the one JSON error
// document with --json (exit 2); byte options with units (one parser, property-tested); relative paths
// from the caller's directory — run directly, and through `pnpm -s deltalite` (INIT_CWD) — but not from an
// INIT_CWD merely inherited by a process that no package script of ours started.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { SCAN_FILTER_OPS } from "@deltalite/data-files";
import { repoRoot } from "@deltalite/tools/python";
import { Int64, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseByteSize } from "../src/cli/units.js";
import { verbs } from "../src/cli/verbs.js";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(packageDir, "dist/cli.js");
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "the CLI tests run the built bin: run `pnpm exec tsc -b` first").toBe(true);
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-conv-"));
  const table = new Table({
    id: vectorFromArray([1n, 2n], new Int64()),
    name: vectorFromArray(["a", "b"], new Utf8()),
  });
  await fs.writeFile(path.join(cwd, "in.arrow"), tableToIPC(table, "file"));
});
afterAll(async () => {
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

/** The bin in a child process, from `dir` (default: the temp dir), without npm/pnpm script variables. */
function run(args: string[], options: { dir?: string; env?: Record<string, string> } = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$|PNPM_)/.test(k)),
  ) as Record<string, string>;
  const out = spawnSync(process.execPath, [cli, ...args], {
    cwd: options.dir ?? cwd,
    encoding: "utf8",
    env: { ...env, ...options.env },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe("--version and --help", () => {
  it("--version prints the package version on stdout", () => {
    const version = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
    expect(run(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    expect(JSON.parse(run(["--version", "--json"]).stdout)).toEqual({ version });
  });

  it("deltalite --help lists every verb on stdout (exit 0); no arguments is a usage error (exit 2)", () => {
    const help = run(["--help"]);
    expect(help.code).toBe(0);
    for (const verb of verbs) expect(help.stdout).toMatch(new RegExp(`^  ${verb.name}\\s`, "m"));
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("usage: deltalite <verb>");
  });

  it.each(verbs.map((v) => [v.name, v]))(
    "%s --help lists each of its options, defaults and units",
    (_, verb) => {
      const help = run([verb.name, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stderr).toBe("");
      for (const [name, def] of Object.entries({
        ...verb.options,
        json: {},
        "storage-option": {},
        help: {},
      })) {
        expect(help.stdout, `--${name}`).toMatch(new RegExp(`--${name}\\b`));
        const fallback = (def as { default?: string }).default;
        if (fallback !== undefined) expect(help.stdout).toContain(`[default: ${fallback}]`);
      }
    },
  );

  it("scan --help names every filter op; byte options say their units; upsert --help states row identity", () => {
    const scan = run(["scan", "--help"]).stdout;
    for (const op of SCAN_FILTER_OPS) expect(scan).toMatch(new RegExp(`\\b${op}\\b`));
    const upsert = run(["upsert", "--help"]).stdout;
    expect(upsert).toMatch(/--max-fetch-bytes BYTES .*\[default: 128MiB\]/);
    expect(upsert).toContain("KiB MiB GiB");
    expect(upsert).toMatch(/identified by \(partition value, primary key\)/);
    expect(upsert).toMatch(/another\s+partition value .* inserts a second row/s);
    expect(run(["vacuum", "--help"]).stdout).toMatch(/--retention-hours HOURS/);
  });
});

describe("usage errors: our messages, exit 2, the JSON error document with --json", () => {
  it.each([
    [["infoo", "t"], /unknown verb "infoo" \(did you mean "info"\?\)/],
    [["info", "t", "--verison", "1"], /unknown option --verison \(did you mean "--version"\?\)/],
    [["scan", "t", "--colums", "a"], /unknown option --colums \(did you mean "--columns"\?\)/],
    [["scan", "t", "--limit"], /--limit needs a value \(--limit N\)/],
    [
      ["scan", "t", "--output", "--limit", "3"],
      /--output needs a value \(--output FILE\|-\), got the option --limit/,
    ],
    [["info", "t", "--json=yes"], /--json takes no value/],
    [["scan", "t", "--limit", "ten", "-o", "x.ndjson"], /--limit needs a non-negative integer \(got "ten"\)/],
    [
      ["write", "t", "--input", "in.arrow", "--mode", "apend"],
      /--mode must be one of .*did you mean "append"/,
    ],
  ])("%j → %s", (args, message) => {
    const r = run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/ERR_PARSE_ARGS|To specify a positional argument/);
    const j = run([...(args as string[]), "--json"]);
    expect(j.code).toBe(2);
    const lines = j.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      error: { kind: "invalid_argument", message: expect.stringMatching(message), retryable: false },
    });
  });
});

describe("byte sizes: one parser for every byte option", () => {
  it("integers and KiB/MiB/GiB/TiB (1024) and KB/MB/GB/TB (1000), any case", () => {
    expect(parseByteSize("1048576", "--x")).toBe(1048576);
    expect(parseByteSize("64MiB", "--x")).toBe(64 * 1024 ** 2);
    expect(parseByteSize("1.5GiB", "--x")).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize("500kb", "--x")).toBe(500_000);
    expect(parseByteSize("2 GB", "--x")).toBe(2e9);
    for (const bad of ["", "MiB", "-1", "64MB/s", "1.3B", "1e3", "12 parsecs"]) {
      expect(() => parseByteSize(bad, "--x"), bad).toThrow(
        expect.objectContaining({ kind: "invalid_argument" }),
      );
    }
  });

  it("property: n<unit> is n times the unit, for every unit and case", () => {
    const units: [string, number][] = [
      ["", 1],
      ["B", 1],
      ["KiB", 1024],
      ["MiB", 1024 ** 2],
      ["GiB", 1024 ** 3],
      ["KB", 1e3],
      ["MB", 1e6],
      ["GB", 1e9],
    ];
    fc.assert(
      fc.property(fc.nat(100_000), fc.constantFrom(...units), fc.boolean(), (n, [unit, size], lower) => {
        expect(parseByteSize(`${n}${lower ? unit.toLowerCase() : unit}`, "--x")).toBe(n * size);
      }),
      { seed: 16, numRuns: 300 },
    );
  });

  it("the CLI takes units on byte options and names the flag on a bad one", () => {
    const r = run([
      "upsert",
      "t",
      "--input",
      "in.arrow",
      "--primary-keys",
      "id",
      "--max-fetch-bytes",
      "lots",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-fetch-bytes needs a byte size such as 67108864, 64MiB or 1.5GiB/);
    const ok = run(["write", "sized", "--input", "in.arrow", "--target-file-size", "64MiB", "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe("relative paths start at the caller's directory", () => {
  it("run directly from a temp dir: --input and the table path resolve there", async () => {
    const r = run(["write", "rel-table", "--input", "in.arrow", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(cwd, "rel-table", "_delta_log", "00000000000000000000.json"))).toBe(true);
    const info = JSON.parse(run(["info", "./rel-table", "--json"]).stdout);
    expect(info).toMatchObject({ uri: path.join(cwd, "rel-table"), version: 0, numRows: 2 });
    const scan = run(["scan", "rel-table", "--output", "out/rows.ndjson"]);
    expect(scan.code).toBe(1); // no such directory out/ — under the caller's dir, not elsewhere
    expect(scan.stderr).toContain(path.join(cwd, "out"));
  });

  it("through `pnpm -s deltalite` (the root script): INIT_CWD is the caller's directory", () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$|PNPM_)/.test(k)),
    ) as Record<string, string>;
    const out = spawnSync(
      "pnpm",
      ["-C", repoRoot, "-s", "deltalite", "write", "via-pnpm", "--input", "in.arrow", "--json"],
      {
        cwd,
        encoding: "utf8",
        env,
      },
    );
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ committed: true, version: 0, rowsWritten: 2 });
    expect(existsSync(path.join(cwd, "via-pnpm", "_delta_log"))).toBe(true);
    expect(existsSync(path.join(repoRoot, "via-pnpm"))).toBe(false);
  });

  it("an inherited INIT_CWD (a script with arguments of its own, or none of ours) is not used", async () => {
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-elsewhere-"));
    try {
      const pkg = path.join(elsewhere, "package.json");
      await fs.writeFile(pkg, JSON.stringify({ scripts: { sync: "deltalite write t --input in.arrow" } }));
      const env = { INIT_CWD: elsewhere, npm_lifecycle_event: "sync", npm_package_json: pkg };
      const r = run(["info", "rel-table", "--json"], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).uri).toBe(path.join(cwd, "rel-table"));
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });
});
