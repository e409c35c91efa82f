/**
 * The "## Example" of every publishable package's README is a complete program: this test takes the first
 * `ts` block under that heading, type-checks it (strict, nodenext, against the built `.d.ts` of the
 * workspace packages — run `pnpm exec tsc -b` first), strips its types with TypeScript and runs it with
 * Node from a fresh temp folder (so relative table paths land there). It must exit 0 and print something.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Inside the deltalite package (whose node_modules links every workspace package and apache-arrow), in a
// git-ignored .tmp folder: the examples import the packages by name, as an application does.
const examplesDir = join(repo, "packages/deltalite/.tmp/readme-examples");

/** The first ```ts block under the README's "## Example" heading. */
export function exampleOf(readme: string): string | undefined {
  const section = /^## Example\s*$([\s\S]*?)(?=^## |$(?![\s\S]))/m.exec(readme)?.[1];
  return section === undefined ? undefined : /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
  });
}

const packages = readdirSync(join(repo, "packages"))
  .map((folder) => join(repo, "packages", folder))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private)
  .map(({ dir, manifest }) => ({
    name: manifest.name as string,
    file: `${String(manifest.name).replace(/^@deltalite\//, "")}.mts`,
    source: exampleOf(readFileSync(join(dir, "README.md"), "utf8")),
  }));

let workDir: string;
beforeAll(async () => {
  await rm(examplesDir, { recursive: true, force: true });
  await mkdir(examplesDir, { recursive: true });
  workDir = await mkdtemp(join(tmpdir(), "deltalite-readme-examples-"));
  for (const pkg of packages) {
    if (pkg.source === undefined) continue;
    await writeFile(join(examplesDir, pkg.file), pkg.source);
    const js = ts.transpileModule(pkg.source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    await writeFile(join(examplesDir, pkg.file.replace(/\.mts$/, ".mjs")), js);
  }
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023", "DOM"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
    include: ["*.mts"],
  };
  await writeFile(join(examplesDir, "tsconfig.json"), JSON.stringify(tsconfig));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
  await rm(examplesDir, { recursive: true, force: true });
});

describe("README examples", () => {
  it("every publishable package's README has an example", () => {
    expect(packages.filter((pkg) => pkg.source === undefined).map((pkg) => pkg.name)).toEqual([]);
  });

  it("type-check (strict, nodenext) against the built packages", async () => {
    const tsc = join(repo, "node_modules/typescript/bin/tsc");
    const { code, out } = await run(process.execPath, [tsc, "-p", examplesDir], examplesDir);
    expect(out).toBe("");
    expect(code).toBe(0);
  }, 60_000);

  for (const pkg of packages) {
    it(`${pkg.name}: the example runs`, async () => {
      const script = join(examplesDir, pkg.file.replace(/\.mts$/, ".mjs"));
      const cwd = join(workDir, pkg.file.replace(/\.mts$/, ""));
      await mkdir(cwd, { recursive: true });
      const { code, out } = await run(process.execPath, [script], cwd);
      expect(code, out).toBe(0);
      expect(out.trim().length).toBeGreaterThan(0);
    }, 60_000);
  }
});
