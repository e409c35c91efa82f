#!/usr/bin/env node
/**
 * The API reference (`pnpm api-docs`): TypeDoc over every entry point of every publishable package — each
 * `exports` subpath of a package.json that is not private, read from its source — merged into one HTML site
 * (`docs/api/` by default, git-ignored). Each entry point is converted on its own with the package's
 * tsconfig (so `notExported` is checked per entry point), written as TypeDoc JSON to a temp folder, then the
 * JSON projects are merged (links between packages are checked there) and rendered. Options shared by both
 * steps live in the root typedoc.json ("packageOptions" for the per-entry step, the rest for the site).
 * Any TypeDoc warning fails the build (exit 1), and so does a broken link in the generated HTML.
 *
 * Usage: node tools/docs/build-api-docs.mjs [--out <folder>]
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Application, Converter, ReflectionKind, TSConfigReader, TypeDocReader } from "typedoc";
import { brokenHtmlLinks } from "./links.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Types a public signature refers to that their package does not export (yet), per package. Each one is a
 * gap in the reference (its page is missing) for the package's owner to close by exporting the type. Any
 * other such type fails the build; an entry that no longer matches is printed, to be removed.
 */
const NOT_EXPORTED_YET = {
  "@deltalite/data-files": [
    "ColumnPlan",
    "ResolvedCondition",
    "WriteCounts",
    "SchemaShape",
    "RecordBatchShape",
  ],
  "@deltalite/parquet-stream": ["Merged", "FetchRangesOptions"],
  deltalite: ["VARIABLES", "JsonValueReader"],
};

/** Lets `app` pass over the "referenced but not exported" warnings of `allowed` names; returns those seen. */
function tolerateNotExported(app, allowed) {
  const seen = new Set();
  const warn = app.logger.validationWarning.bind(app.logger);
  app.logger.validationWarning = (text, ...rest) => {
    const name = /^(\S+), defined in /.exec(text)?.[1];
    if (name !== undefined && allowed.includes(name)) seen.add(name);
    else warn(text, ...rest);
  };
  return seen;
}

/**
 * The publishable packages (package.json not private) and their entry points, one per `exports` subpath
 * (read from its `@deltalite/source` file): `{ name, dir, readme, entries: [{ name, source }] }`.
 */
export async function publishedPackages(root = ROOT) {
  const packages = [];
  for (const folder of (await readdir(path.join(root, "packages"))).sort()) {
    const dir = path.join(root, "packages", folder);
    const manifest = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8"));
    if (manifest.private) continue;
    const entries = [];
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === "./package.json") continue;
      const source = target?.["@deltalite/source"];
      if (typeof source !== "string")
        throw new Error(`${manifest.name} ${subpath}: no @deltalite/source entry`);
      entries.push({ name: `${manifest.name}${subpath.slice(1)}`, source: path.join(dir, source) });
    }
    packages.push({ name: manifest.name, dir, readme: path.join(dir, "README.md"), entries });
  }
  return packages;
}

/** Converts one package to TypeDoc JSON at `json`; an entry point's module is named by its import path. */
async function convertPackage(pkg, json, packageOptions, root) {
  const app = await Application.bootstrapWithPlugins(
    {
      ...packageOptions,
      name: pkg.name,
      entryPoints: pkg.entries.map((entry) => entry.source),
      entryPointStrategy: "resolve",
      tsconfig: path.join(pkg.dir, "tsconfig.json"),
      readme: pkg.readme,
      basePath: root,
    },
    [new TSConfigReader()],
  );
  // TypeDoc names an entry point's module by its path from basePath, without the extension and "/index".
  const moduleName = (source) =>
    path
      .relative(root, source)
      .replace(/\.ts$/, "")
      .replace(/\/index$/, "");
  const nameByFile = new Map(pkg.entries.map((entry) => [moduleName(entry.source), entry.name]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const child of context.project.children ?? []) {
      if (child.kindOf(ReflectionKind.Module)) child.name = nameByFile.get(child.name) ?? child.name;
    }
  });
  const allowed = NOT_EXPORTED_YET[pkg.name] ?? [];
  const seen = tolerateNotExported(app, allowed);
  const project = await app.convert();
  if (project) {
    app.validate(project);
    await app.generateJson(project, json);
  }
  const stale = allowed.filter((name) => !seen.has(name));
  if (stale.length > 0) console.error(`${pkg.name}: exported now, remove from NOT_EXPORTED_YET: ${stale}`);
  return { app, converted: project !== undefined };
}

/** Builds the site into `out`; returns `{ warnings, errors, brokenLinks }` (all zero when it succeeded). */
export async function buildApiDocs({ out, root = ROOT, log = console.error } = {}) {
  const config = JSON.parse(await readFile(path.join(root, "typedoc.json"), "utf8"));
  const jsonDir = await mkdtemp(path.join(tmpdir(), "deltalite-api-json-"));
  const totals = { warnings: 0, errors: 0, brokenLinks: [] };
  const count = (app) => {
    totals.warnings += app.logger.warningCount;
    totals.errors += app.logger.errorCount;
  };
  try {
    const jsonFiles = [];
    for (const [i, pkg] of (await publishedPackages(root)).entries()) {
      const json = path.join(jsonDir, `${String(i).padStart(2, "0")}.json`);
      const { app, converted } = await convertPackage(pkg, json, config.packageOptions, root);
      count(app);
      if (converted) jsonFiles.push(json);
      else totals.errors += app.logger.errorCount === 0 ? 1 : 0;
    }
    const site = await Application.bootstrapWithPlugins(
      {
        options: path.join(root, "typedoc.json"),
        entryPointStrategy: "merge",
        entryPoints: jsonFiles,
        ...(out ? { out } : {}),
      },
      [new TypeDocReader()],
    );
    const outDir = path.resolve(root, site.options.getValue("out"));
    const project = totals.errors === 0 ? await site.convert() : undefined;
    if (project) {
      site.validate(project);
      await site.generateDocs(project, outDir);
      totals.brokenLinks = await brokenHtmlLinks(outDir);
      for (const link of totals.brokenLinks)
        log(`broken link in ${link.file}: ${link.href} (${link.reason})`);
    } else {
      totals.errors += 1;
    }
    count(site);
    return { ...totals, outDir };
  } finally {
    await rm(jsonDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const result = await buildApiDocs({ out: values.out && path.resolve(values.out) });
  const failed = result.warnings + result.errors + result.brokenLinks.length > 0;
  console.error(
    `API reference ${failed ? "FAILED" : "built"} at ${path.relative(process.cwd(), result.outDir) || "."}: ` +
      `${result.errors} errors, ${result.warnings} warnings, ${result.brokenLinks.length} broken links`,
  );
  process.exitCode = failed ? 1 : 0;
}
