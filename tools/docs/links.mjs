/**
 * The link checks of the docs: relative links in the repository's Markdown (every README.md and CLI.md
 * outside node_modules, dist and generated folders) and every `href` / `src` inside the generated HTML of
 * the API reference. A link is broken when its file does not exist or, with a `#fragment`, when the target
 * has no such anchor (GitHub's heading slugs for Markdown, `id` / `name` attributes for HTML). External
 * links (`https:`, `mailto:`, …) are not fetched: the checks run offline.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".turbo", ".venv", ".tmp", "docs", "coverage"]);
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Markdown files checked: every README.md and CLI.md under `root`, skipping build and dependency folders. */
export async function markdownDocs(root) {
  const found = [];
  const walk = async (dir) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith("."))
          await walk(path.join(dir, entry.name));
      } else if (entry.name === "README.md" || entry.name === "CLI.md") {
        found.push(path.join(dir, entry.name));
      }
    }
  };
  await walk(root);
  return found.sort();
}

/** The GitHub anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading) {
  const text = heading
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** Markdown without fenced code blocks, whose `#` lines are not headings. */
function withoutFences(markdown) {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** Markdown without fenced code blocks and inline code, where link syntax is not a link. */
function proseOf(markdown) {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, "");
}

/** The link targets of a Markdown text: `[text](target)`, `[label]: target` and `href="target"`. */
export function markdownLinks(markdown) {
  const prose = proseOf(markdown);
  const targets = [];
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  for (const m of prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]);
  for (const m of prose.matchAll(/\b(?:href|src)="([^"]+)"/g)) targets.push(m[1]);
  return targets;
}

async function isFile(file) {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function markdownAnchors(file) {
  const text = withoutFences(await readFile(file, "utf8"));
  const anchors = new Set();
  const seen = new Map();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = headingSlug(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of text.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** Broken relative links of the Markdown files: `{ file, href, reason }` for each. */
export async function brokenMarkdownLinks(files) {
  const broken = [];
  for (const file of files) {
    for (const href of markdownLinks(await readFile(file, "utf8"))) {
      if (EXTERNAL.test(href)) continue;
      const [target, fragment] = splitHref(href);
      const resolved = target === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      let reason;
      if (!(await exists(resolved))) reason = "no such file or folder";
      else if (fragment && resolved.endsWith(".md") && !(await markdownAnchors(resolved)).has(fragment)) {
        reason = `no heading #${fragment}`;
      }
      if (reason) broken.push({ file, href, reason });
    }
  }
  return broken;
}

async function exists(file) {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function splitHref(href) {
  const hash = href.indexOf("#");
  const withoutQuery = (hash < 0 ? href : href.slice(0, hash)).replace(/\?.*$/, "");
  return [withoutQuery, hash < 0 ? "" : decodeURIComponent(href.slice(hash + 1))];
}

async function htmlFiles(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".html")) found.push(path.join(entry.parentPath, entry.name));
  }
  return found.sort();
}

/** Broken links inside a generated HTML site: every relative `href` / `src`, fragments included. */
export async function brokenHtmlLinks(siteDir) {
  const anchorsByFile = new Map();
  const anchorsOf = async (file) => {
    if (!anchorsByFile.has(file)) {
      const html = await readFile(file, "utf8");
      anchorsByFile.set(file, new Set([...html.matchAll(/\b(?:id|name)="([^"]+)"/g)].map((m) => m[1])));
    }
    return anchorsByFile.get(file);
  };
  const broken = [];
  for (const file of await htmlFiles(siteDir)) {
    const html = await readFile(file, "utf8");
    for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
      const href = m[1].replaceAll("&amp;", "&");
      if (EXTERNAL.test(href) || href === "" || href === "#") continue;
      const [target, fragment] = splitHref(href);
      const resolved = target === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      let reason;
      if (!(await isFile(resolved))) reason = "no such file";
      else if (fragment && resolved.endsWith(".html") && !(await anchorsOf(resolved)).has(fragment)) {
        reason = `no anchor #${fragment}`;
      }
      if (reason) broken.push({ file: path.relative(siteDir, file), href, reason });
    }
  }
  return broken;
}
