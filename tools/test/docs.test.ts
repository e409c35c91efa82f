/**
 * The docs for users, checked as CI checks them:
 * - `pnpm api-docs` (tools/docs/build-api-docs.mjs) builds the API reference of every publishable package's
 *   entry points with no TypeDoc warning (invalid `{@link}`s, types referenced but not exported) and no
 *   broken link inside the generated HTML;
 * - every README.md / CLI.md in the repository has no broken relative link (file or `#heading`);
 * - the READMEs of the publishable packages say what a user needs (install with the apache-arrow peer,
 *   ESM-only and the moduleResolution it needs) and point to no document outside the repository;
 * - each check can fail: a broken link, a broken `{@link}` and an unexported type are caught.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without type declarations
import { buildApiDocs, publishedPackages } from "../docs/build-api-docs.mjs";
// @ts-expect-error: a plain ESM script without type declarations
import { brokenHtmlLinks, brokenMarkdownLinks, headingSlug, markdownDocs } from "../docs/links.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SCRIPT = join(repo, "tools/docs/build-api-docs.mjs");

interface BrokenLink {
  file: string;
  href: string;
  reason: string;
}
interface Package {
  name: string;
  dir: string;
  entries: { name: string; source: string }[];
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, output }));
  });
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "deltalite-docs-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("API reference", () => {
  it("builds every publishable entry point with no TypeDoc warning and no broken HTML link", async () => {
    const out = join(scratch, "api");
    const { code, output } = await run([SCRIPT, "--out", out]);
    expect(output).toMatch(/0 errors, 0 warnings, 0 broken links/);
    expect(code).toBe(0);

    const packages = (await publishedPackages(repo)) as Package[];
    const names = packages.flatMap((pkg) => pkg.entries.map((entry) => entry.name));
    expect(names).toEqual(expect.arrayContaining(["deltalite", "@deltalite/object-store/testing"]));
    // Every entry point is linked by name: from the modules index, or (a package with several entry points)
    // from its package's page.
    const pages = readdirSync(join(out, "modules")).map((f) => join(out, "modules", String(f)));
    const index = (
      await Promise.all([join(out, "modules.html"), ...pages].map((f) => readFile(f, "utf8")))
    ).join("");
    for (const name of names) expect(index, name).toContain(`>${name}<`);

    // The typed storage options are documented, each key with its own text.
    const storageOptions = readFileSync(
      join(out, "interfaces", "_deltalite_object-store._deltalite_object-store.StorageOptions.html"),
      "utf8",
    );
    expect(storageOptions).toContain("AWS_ENDPOINT_URL");
    expect(storageOptions).toContain("AWS_ALLOW_HTTP=true");
    // The link check read the site: it holds thousands of relative links.
    const htmlFiles = readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith(".html"));
    expect(htmlFiles.length).toBeGreaterThan(100);
  }, 120_000);

  it("fails on a broken {@link}, an unexported type and a README link to a missing file", async () => {
    const root = join(scratch, "broken-repo");
    const dir = join(root, "packages", "sample");
    await mkdir(join(dir, "src"), { recursive: true });
    const manifest = {
      name: "sample",
      version: "1.0.0",
      type: "module",
      exports: { ".": { "@deltalite/source": "./src/index.ts", default: "./dist/index.js" } },
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", strict: true, noEmit: true },
        include: ["src"],
      }),
    );
    await writeFile(join(dir, "README.md"), "# sample\n\nSee [the guide](GUIDE.md).\n");
    await writeFile(
      join(dir, "src", "index.ts"),
      [
        "/** Options of {@link run}. */",
        "interface Hidden { a: number }",
        "/** Runs; see {@link Nowhere}. */",
        "export function run(options: Hidden): number { return options.a; }",
        "",
      ].join("\n"),
    );
    const config = JSON.parse(readFileSync(join(repo, "typedoc.json"), "utf8"));
    await writeFile(join(root, "typedoc.json"), JSON.stringify({ ...config, readme: "none" }));

    const result = await buildApiDocs({ root, out: join(root, "site"), log: () => {} });
    // Hidden (not exported), Nowhere (a {@link} to nothing), GUIDE.md (not a file).
    expect(result.warnings + result.errors).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

describe("link checks", () => {
  it("finds no broken relative link in any README.md or CLI.md of the repository", async () => {
    const files = (await markdownDocs(repo)) as string[];
    expect(files).toContain(join(repo, "packages/deltalite/README.md"));
    expect(files.length).toBeGreaterThanOrEqual(9);
    const broken = (await brokenMarkdownLinks(files)) as BrokenLink[];
    expect(broken.map((b) => `${b.file}: ${b.href} (${b.reason})`)).toEqual([]);
  });

  it("catches a missing file, a missing heading and a missing HTML anchor, and skips code", async () => {
    const dir = join(scratch, "links");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "OTHER.md"), "# Other page\n\n## Install `it` now\n");
    const readme = [
      "# Title",
      "[ok](OTHER.md#install-it-now) [ok](#title) [web](https://example.com/x)",
      "[gone](MISSING.md) [no heading](OTHER.md#nope) [self](#nope-here)",
      "`[code](NOT-A-LINK.md)`",
      "```md",
      "[fenced](ALSO-NOT.md)",
      "```",
      "",
    ].join("\n");
    await writeFile(join(dir, "README.md"), readme);
    const broken = (await brokenMarkdownLinks([join(dir, "README.md")])) as BrokenLink[];
    expect(broken.map((b) => b.href).sort()).toEqual(["#nope-here", "MISSING.md", "OTHER.md#nope"]);

    const site = join(dir, "site");
    await mkdir(join(site, "classes"), { recursive: true });
    await writeFile(
      join(site, "index.html"),
      '<a href="classes/A.html#m">a</a> <a href="classes/B.html">b</a>',
    );
    await writeFile(join(site, "classes", "A.html"), '<h2 id="other">x</h2><img src="../missing.svg">');
    const htmlBroken = (await brokenHtmlLinks(site)) as BrokenLink[];
    expect(htmlBroken.map((b) => `${b.file} ${b.href}`).sort()).toEqual([
      "classes/A.html ../missing.svg",
      "index.html classes/A.html#m",
      "index.html classes/B.html",
    ]);
  });

  it("slugs headings as GitHub does", () => {
    expect(headingSlug("Upsert knobs and process limits")).toBe("upsert-knobs-and-process-limits");
    expect(headingSlug("Key equality (measured against delta-rs 1.6.6 MERGE, not assumed)")).toBe(
      "key-equality-measured-against-delta-rs-166-merge-not-assumed",
    );
    expect(headingSlug("`ObjectStore`: the interface")).toBe("objectstore-the-interface");
  });
});

describe("READMEs of the publishable packages", () => {
  const publishable = readdirSync(join(repo, "packages"))
    .map((name) => join(repo, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => !manifest.private);

  it("covers every publishable package", () => {
    expect(publishable.map((p) => p.manifest.name).sort()).toEqual(
      expect.arrayContaining(["deltalite", "@deltalite/errors", "@deltalite/object-store"]),
    );
  });

  for (const { dir, manifest } of publishable) {
    it(`${manifest.name}: install, ESM-only, guarantees, nothing outside the repository`, () => {
      const text = readFileSync(join(dir, "README.md"), "utf8");
      expect(text.startsWith(`# ${manifest.name}\n`)).toBe(true);
      const arrow = "apache-arrow" in { ...manifest.dependencies, ...manifest.peerDependencies };
      expect(text).toContain(`npm install ${manifest.name}${arrow ? " apache-arrow" : ""}\n`);
      expect(text).toMatch(/ESM-only/);
      expect(text).toMatch(/"node16"/);
      expect(text).toMatch(/"nodenext"/);
      expect(text).toMatch(/"bundler"/);
      expect(text).toMatch(/^## Guarantees$/m);
      expect(text).toMatch(/^```ts$/m);
      const internal = [
        ...(text.match(/\bSPEC\b|§/g) ?? []),
        ...(text.match(/\bthe seed\b|\bseeds\/|\bissues?\b|PostHog|\bthe original\b/gi) ?? []),
      ];
      expect(internal).toEqual([]);
    });
  }
});
