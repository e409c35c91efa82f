/**
 * The published shape of every publishable package, checked on the tarballs `pnpm pack` makes (the packages
 * must be built: tools/test.sh runs `tsc -b` before vitest):
 * - every workspace package `deltalite` depends on is publishable, depends on the others through its
 *   `dependencies` (or `optionalDependencies`: the native Parquet engine), and declares every bare import of
 *   its built code;
 * - `publint --strict` and `attw --profile esm-only` (the packages are ESM only, so attw's CommonJS and
 *   node10 resolution checks do not apply) pass on each tarball;
 * - apache-arrow is a required peer of every package whose built code imports it (one copy per app: the
 *   app's), with the workspace's newest as a devDependency;
 * - for the lowest and the highest apache-arrow of that peer range, a new npm project in a temp folder
 *   outside the workspace installs all the tarballs together with that apache-arrow (npm resolves our peer
 *   to it: one copy), then type-checks a file that imports `deltalite` and `@deltalite/delta-log`
 *   (nodenext, strict, the workspace's TypeScript), runs an ESM script that writes, upserts and scans a
 *   local table built with that app's own `tableFromArrays`, and runs the `deltalite` bin through npx.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The script of a root devDependency's bin (publint and attw export no ./package.json to resolve). */
const binOf = (pkg: string, bin: string): string => {
  const dir = join(repo, "node_modules", pkg);
  const bins = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).bin as Record<string, string>;
  return join(dir, bins[bin] ?? "");
};
const TSC = binOf("typescript", "tsc");
const PUBLINT = binOf("publint", "publint");
const ATTW = binOf("@arethetypeswrong/cli", "attw");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
interface Workspace {
  dir: string;
  manifest: Manifest;
}

const workspace: Workspace[] = readdirSync(join(repo, "packages"))
  .map((name) => join(repo, "packages", name))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest }));
const byName = new Map(workspace.map((w) => [w.manifest.name, w]));
const publishable = workspace.filter((w) => !w.manifest.private);

/** deltalite's apache-arrow peer range (`^19.0.0 || ^20.0.0 || …`), its lowest version and the newest we pin. */
const ARROW_PEER = byName.get("deltalite")?.manifest.peerDependencies?.["apache-arrow"] ?? "";
const ARROW_NEWEST = byName.get("deltalite")?.manifest.devDependencies?.["apache-arrow"] ?? "";
const numeric = (version: string) => version.split(".").map(Number);
const ARROW_LOWEST =
  ARROW_PEER.split("||")
    .map((part) => part.trim().replace(/^\^/, ""))
    .sort((a, b) => numeric(a).reduce((d, n, i) => d || n - (numeric(b)[i] ?? 0), 0))[0] ?? "";
/** The apache-arrow versions each consumer project installs: both ends of the peer range. */
const CONSUMER_ARROWS = [ARROW_LOWEST, ARROW_NEWEST];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to completion without blocking the event loop (so independent steps can overlap). */
function run(command: string, args: string[], options: SpawnOptions = {}): Promise<Run> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    child.on("error", fail);
    child.on("exit", (code) => done({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

const show = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/**
 * The environment of a user's shell: without what `pnpm test` set for its script (npm_config_* from pnpm's
 * settings, npm_package_*, INIT_CWD, …), keeping where npm's registry, cache and user config are.
 */
function userEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|userconfig)$/;
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => keep.test(key) || !/^(npm_|INIT_CWD$)/.test(key)),
  );
}

/** Bare module specifiers a built file imports (imports, re-exports, dynamic and type-level `import()`). */
function bareImports(source: string): string[] {
  const found = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^".][^"]*)"/g;
  for (const match of source.matchAll(pattern)) {
    const spec = match[1] ?? "";
    if (spec.startsWith("node:") || builtinModules.includes(spec)) continue;
    const parts = spec.split("/");
    found.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec));
  }
  return [...found];
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe("publishable packages", () => {
  const started = performance.now();
  let work: string;
  let tarballs: Map<string, string>;
  let packedFiles: Map<string, string[]>;
  /** The consumer projects' `npm install`s (one per apache-arrow), started as soon as the tarballs exist. */
  const installing = new Map<string, Promise<Run>>();

  beforeAll(async () => {
    for (const { dir, manifest } of publishable) {
      if (!existsSync(join(dir, "dist", "index.js"))) {
        throw new Error(`${manifest.name} is not built (${dir}/dist): run pnpm exec tsc -b first`);
      }
    }
    work = await mkdtemp(join(tmpdir(), "deltalite-consumer-"));
    const destination = join(work, "tarballs");
    await mkdir(destination);
    const filters = publishable.flatMap((w) => ["--filter", w.manifest.name]);
    const pack = await run("pnpm", ["-r", ...filters, "pack", "--pack-destination", destination, "--json"], {
      cwd: repo,
    });
    if (pack.code !== 0) throw new Error(`pnpm pack failed\n${show(pack)}`);
    const packed = JSON.parse(pack.stdout) as { name: string; filename: string; files: { path: string }[] }[];
    tarballs = new Map(packed.map((p) => [p.name, p.filename]));
    packedFiles = new Map(packed.map((p) => [p.name, p.files.map((f) => f.path)]));
    for (const arrow of CONSUMER_ARROWS) {
      const install = installConsumer(join(work, `consumer-arrow-${arrow}`), tarballs, arrow);
      install.catch(() => {}); // awaited (and reported) by the consumer's beforeAll
      installing.set(arrow, install);
    }
    console.log(
      `pnpm pack: ${packed.length} tarballs in ${(pack.ms / 1000).toFixed(1)} s\n` +
        packed
          .map((p) => `  ${p.filename.slice(destination.length + 1)} (${p.files.length} files)`)
          .join("\n"),
    );
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
    console.log(`publishable packages: ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  });

  it("every workspace package deltalite depends on is publishable and depends on the others at runtime", () => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const pkg = byName.get(name);
      expect(pkg, name).toBeDefined();
      expect(pkg?.manifest.private, `${name} is private`).toBeFalsy();
      const runtime = { ...pkg?.manifest.dependencies, ...pkg?.manifest.optionalDependencies };
      for (const [dep, range] of Object.entries(runtime)) {
        if (byName.has(dep)) {
          expect(range, `${name} → ${dep}`).toBe("workspace:*");
          visit(dep);
        }
      }
    };
    visit("deltalite");
    expect([...seen].sort()).toEqual(publishable.map((w) => w.manifest.name).sort());
    expect([...tarballs.keys()].sort()).toEqual([...seen].sort());
  });

  it("each tarball has versions for its workspace dependencies and declares every bare import of its code", async () => {
    for (const { dir, manifest } of publishable) {
      const files = packedFiles.get(manifest.name) ?? [];
      expect(files).toContain("dist/index.js");
      expect(files, "build info is not published").not.toContain("dist/.tsbuildinfo");
      const extracted = await run("tar", [
        "-xOzf",
        tarballs.get(manifest.name) ?? "",
        "package/package.json",
      ]);
      const packedManifest = JSON.parse(extracted.stdout) as Manifest;
      expect(JSON.stringify(packedManifest.dependencies ?? {}), manifest.name).not.toContain("workspace:");
      const declared = new Set([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const undeclared = new Set<string>();
      // Built code and declarations (a type-only import leaves no trace in the .js but a consumer's
      // compiler still resolves it), of sources that exist (a local dist can hold files of moved sources).
      const built = files.filter((f) => {
        const stem = /^dist\/(.+)\.(?:js|d\.ts)$/.exec(f)?.[1];
        return stem !== undefined && files.includes(`src/${stem}.ts`);
      });
      expect(built.length, manifest.name).toBeGreaterThan(0);
      for (const file of built) {
        for (const spec of bareImports(await readFile(join(dir, file), "utf8"))) {
          if (!declared.has(spec) && spec !== manifest.name) undeclared.add(`${spec} (${file})`);
        }
      }
      expect([...undeclared], `${manifest.name} imports packages its dependencies do not declare`).toEqual(
        [],
      );
    }
  });

  it("publint --strict passes on every tarball", async () => {
    const results = await mapLimit([...tarballs], 4, async ([name, tarball]) => ({
      name,
      r: await run(process.execPath, [PUBLINT, "run", tarball, "--strict"]),
    }));
    for (const { name, r } of results) {
      const verdict = r.stdout.trim().split("\n").pop();
      console.log(`publint ${name}: ${verdict}`);
      expect(r.code, `${name}\n${show(r)}`).toBe(0);
      expect(r.stdout, name).toContain("All good!");
    }
  }, 120_000);

  it("attw --profile esm-only passes on every tarball", async () => {
    const results = await mapLimit([...tarballs], 4, async ([name, tarball]) => ({
      name,
      r: await run(process.execPath, [
        ATTW,
        tarball,
        "--profile",
        "esm-only",
        "--no-definitely-typed",
        "--format",
        "json",
      ]),
    }));
    for (const { name, r } of results) {
      expect(r.code, `${name}\n${show(r)}`).toBe(0);
      const { analysis } = JSON.parse(r.stdout) as {
        analysis: {
          entrypoints: Record<string, unknown>;
          problems: { kind: string; resolutionKind?: string }[];
        };
      };
      // What the esm-only profile leaves out: node10 and require() from CommonJS, nothing else.
      const outside = analysis.problems.filter(
        (p) => p.resolutionKind !== "node10" && p.resolutionKind !== "node16-cjs",
      );
      const entrypoints = Object.keys(analysis.entrypoints).join(", ");
      console.log(
        `attw ${name}: entrypoints ${entrypoints}; ESM problems ${outside.length}; ` +
          `ignored (CJS/node10 only): ${[...new Set(analysis.problems.map((p) => p.kind))].join(", ") || "none"}`,
      );
      expect(outside, name).toEqual([]);
    }
  }, 180_000);

  it("apache-arrow is a required peer (range of the tested majors) of every package whose code imports it", async () => {
    expect(ARROW_PEER).toMatch(/^\^19\.0\.0 \|\| \^20\.0\.0 \|\| \^21\.0\.0/);
    expect(numeric(ARROW_NEWEST)[0], "the newest pinned is of the range's highest major").toBe(
      Math.max(...ARROW_PEER.split("||").map((p) => numeric(p.trim().replace(/^\^/, ""))[0] ?? 0)),
    );
    const peers: string[] = [];
    for (const { dir, manifest } of publishable) {
      const files = packedFiles.get(manifest.name) ?? [];
      const runtime = files.filter(
        (f) => f.endsWith(".js") && files.includes(f.replace(/^dist\/(.*)\.js$/, "src/$1.ts")),
      );
      let importsArrow = false;
      for (const file of runtime) {
        if (bareImports(await readFile(join(dir, file), "utf8")).includes("apache-arrow"))
          importsArrow = true;
      }
      const extracted = await run("tar", [
        "-xOzf",
        tarballs.get(manifest.name) ?? "",
        "package/package.json",
      ]);
      const packed = JSON.parse(extracted.stdout) as Manifest & { peerDependenciesMeta?: object };
      if (!importsArrow) {
        expect(packed.peerDependencies?.["apache-arrow"], manifest.name).toBeUndefined();
        continue;
      }
      peers.push(manifest.name);
      // Imported at run time (not only by types), so the peer is required: no peerDependenciesMeta.optional.
      expect(packed.peerDependencies?.["apache-arrow"], manifest.name).toBe(ARROW_PEER);
      expect(packed.peerDependenciesMeta ?? {}, manifest.name).not.toHaveProperty("apache-arrow");
      expect(
        packed.dependencies?.["apache-arrow"],
        `${manifest.name}: a dependency would nest a copy`,
      ).toBeUndefined();
      expect(packed.devDependencies?.["apache-arrow"], manifest.name).toBe(ARROW_NEWEST);
    }
    console.log(`apache-arrow peer ${ARROW_PEER} (dev ${ARROW_NEWEST}) of: ${peers.join(", ")}`);
    expect(peers).toContain("deltalite");
  });

  describe.each(CONSUMER_ARROWS)(
    "a new npm project with apache-arrow %s that installs the tarballs",
    (arrow) => {
      let project: string;
      let table: string;

      beforeAll(async () => {
        project = join(work, `consumer-arrow-${arrow}`);
        table = join(work, `table-arrow-${arrow}`);
        const install = await installing.get(arrow);
        if (install?.code !== 0)
          throw new Error(`npm install failed\n${install ? show(install) : "not started"}`);
        console.log(
          `npm install (${tarballs.size} tarballs + their dependencies, beside publint and attw): ` +
            `${(install.ms / 1000).toFixed(1)} s`,
        );
        const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
          packages: Record<string, { resolved?: string; version?: string }>;
        };
        const ours = Object.entries(lock.packages).filter(([path]) =>
          /node_modules\/(@deltalite\/|deltalite$)/.test(path),
        );
        console.log(ours.map(([path, p]) => `  ${path} ${p.version} ← ${p.resolved}`).join("\n"));
        // One copy of each, each from its tarball: nothing nested, nothing from the registry.
        expect(ours.map(([path]) => path).sort()).toEqual(
          [...tarballs.keys()].map((name) => `node_modules/${name}`).sort(),
        );
        for (const [path, p] of ours) expect(p.resolved ?? "", path).toMatch(/^file:/);
        // Our peer resolves to the app's apache-arrow: one copy, at the top, of the version the app asked for.
        const arrows = Object.entries(lock.packages).filter(([path]) =>
          /(^|\/)node_modules\/apache-arrow$/.test(path),
        );
        expect(arrows.map(([path, p]) => `${path}@${p.version}`)).toEqual([
          `node_modules/apache-arrow@${arrow}`,
        ]);
      }, 600_000);

      it("type-checks a nodenext, strict TypeScript file that imports deltalite and @deltalite/delta-log", async () => {
        const tsc = await run(process.execPath, [TSC, "-p", join(project, "tsconfig.json")], {
          cwd: project,
        });
        console.log(
          `tsc --noEmit (nodenext, strict, skipLibCheck off): exit ${tsc.code} in ${(tsc.ms / 1000).toFixed(1)} s`,
        );
        expect(tsc.code, show(tsc)).toBe(0);
      }, 120_000);

      it("runs an ESM script that writes a table, upserts into it and scans it", async () => {
        const script = await run(process.execPath, ["main.mjs", table], { cwd: project, env: userEnv() });
        console.log(`node main.mjs ${table} (apache-arrow ${arrow})\n${script.stdout.trim()}`);
        expect(script.code, show(script)).toBe(0);
        expect(JSON.parse(script.stdout.trim().split("\n").pop() ?? "")).toEqual({
          arrow,
          written: { version: 0, rows: 3 },
          upsert: { version: 1, rowsInserted: 1, rowsUpdated: 1 },
          scan: { rows: 4, ids: [1, 2, 3, 4], values: ["a", "b", "c2", "d"] },
          snapshot: { version: 1, files: 1 },
        });
      }, 120_000);

      it("runs the bin: npx deltalite info <table> --json", async () => {
        const info = await run("npx", ["--no-install", "deltalite", "info", table, "--json"], {
          cwd: project,
          env: userEnv(),
        });
        const json = JSON.parse(info.stdout) as {
          version: number;
          numFiles: number;
          partitionColumns: string[];
        };
        console.log(
          `npx deltalite info ${table} --json → exit ${info.code}: ` +
            JSON.stringify({
              version: json.version,
              numFiles: json.numFiles,
              partitionColumns: json.partitionColumns,
            }),
        );
        expect(info.code, show(info)).toBe(0);
        expect(json).toMatchObject({ version: 1, numFiles: 1, partitionColumns: [] });
      }, 60_000);
    },
  );
});

/**
 * Writes the consumer project (package.json, tsconfig, the .ts file, the script) with apache-arrow at
 * `arrow` (the app's own copy, which our peer dependency resolves to) and installs it with npm.
 */
async function installConsumer(project: string, tarballs: Map<string, string>, arrow: string): Promise<Run> {
  await mkdir(project);
  const rootManifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as Manifest;
  const dependencies: Record<string, string> = {
    "@types/node": rootManifest.devDependencies?.["@types/node"] ?? "",
    "apache-arrow": arrow,
  };
  // Every @deltalite/* tarball is a direct dependency, so each tarball's "@deltalite/x": "0.1.0" is
  // satisfied by the tarball installed beside it and npm never asks the registry for our names.
  for (const [name, tarball] of tarballs) dependencies[name] = `file:${tarball}`;
  const manifest = { name: "deltalite-consumer", private: true, type: "module", dependencies };
  await writeFile(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(project, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
  await writeFile(join(project, "check.ts"), CONSUMER_TS);
  await writeFile(join(project, "main.mjs"), CONSUMER_SCRIPT);
  return run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    env: userEnv(),
  });
}

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
  },
  files: ["check.ts"],
};

/** What a TypeScript user writes first; `@ts-expect-error` lines prove the types are real, not `any`. */
const CONSUMER_TS = `import { commitKey, type FileView, Snapshot } from "@deltalite/delta-log";
import { CountingStore } from "@deltalite/object-store/testing";
import { makeVector, Table, Utf8, vectorFromArray } from "apache-arrow";
import { DeltaLiteTable, isDeltaLiteError, openStore, type UpsertStats } from "deltalite";
// @ts-expect-error the test wrappers are no longer re-exported by deltalite
import { CountingStore as Gone } from "deltalite";

export async function roundTrip(uri: string): Promise<{ stats: UpsertStats; files: readonly FileView[] }> {
  const ids = makeVector(BigInt64Array.from([1n, 2n]));
  const data = new Table({ id: ids, v: vectorFromArray(["a", "b"], new Utf8()) });
  const { table } = await DeltaLiteTable.write(uri, data);
  const stats = await table.upsert(data, { primaryKeys: ["id"], commitMetadata: { source: "consumer" } });
  // @ts-expect-error rowsInserted is a number
  const wrong: string = stats.rowsInserted;
  const store = new CountingStore(openStore(uri));
  const snapshot = await Snapshot.open(store);
  const key: string = commitKey(snapshot.version);
  try {
    await DeltaLiteTable.open(\`\${uri}-missing\`);
  } catch (error) {
    if (isDeltaLiteError(error)) console.log(error.kind, key, wrong, Gone);
  }
  return { stats, files: table.files };
}
`;

const CONSUMER_SCRIPT = `import { readFileSync } from "node:fs";
import { Snapshot } from "@deltalite/delta-log";
import { tableFromArrays } from "apache-arrow";
import { DeltaLiteTable, openStore } from "deltalite";

const uri = process.argv[2];
const arrow = JSON.parse(readFileSync(new URL("./node_modules/apache-arrow/package.json", import.meta.url), "utf8")).version;
// The app's own apache-arrow builds the data (strings become dictionary-encoded columns).
const rows = (ids, values) => tableFromArrays({ id: BigInt64Array.from(ids), v: values });

const { table, result } = await DeltaLiteTable.write(uri, rows([1n, 2n, 3n], ["a", "b", "c"]));
const written = { version: result.version, rows: result.rowsWritten };
const stats = await table.upsert(rows([3n, 4n], ["c2", "d"]), { primaryKeys: ["id"] });
const seen = [];
for await (const batch of table.scan()) {
  for (let i = 0; i < batch.numRows; i++) seen.push([Number(batch.getChild("id").get(i)), batch.getChild("v").get(i)]);
}
seen.sort((a, b) => a[0] - b[0]);
const snapshot = await Snapshot.open(openStore(uri));
console.log(
  JSON.stringify({
    arrow,
    written,
    upsert: { version: stats.version, rowsInserted: stats.rowsInserted, rowsUpdated: stats.rowsUpdated },
    scan: { rows: seen.length, ids: seen.map((r) => r[0]), values: seen.map((r) => r[1]) },
    snapshot: { version: snapshot.version, files: snapshot.numFiles },
  }),
);
`;
