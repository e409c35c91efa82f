// Owns how a benchmark's main ends: the `--json` report (the summary without the work tables' paths), the
// exit status (1 when a result table differs from the reference, the work tables then kept for inspection,
// else removed) and a failure printed with its stack and exit 1.
import { rm, writeFile } from "node:fs/promises";

/** Writes `{ knobs, summary }` to `file`, each size's `results` without their `tableDir`. */
export async function writeJsonReport(file, knobs, summary) {
  const stripped = summary.map((s) => ({ ...s, results: s.results.map(({ tableDir, ...r }) => r) }));
  await writeFile(file, `${JSON.stringify({ knobs, summary: stripped }, null, 2)}\n`);
}

/** Exit status 1 when a size's results are not identical (work tables kept), else the work tables go. */
export async function finishRun(summary, workDir) {
  if (summary.some((s) => !s.identical)) process.exitCode = 1;
  else await rm(workDir, { recursive: true, force: true });
}

/** Runs the async `main`; a failure prints its stack and exits 1. */
export function runMain(main) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  });
}
