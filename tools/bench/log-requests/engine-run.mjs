// One engine's measured runs for `pnpm bench log-requests`: for each repeat, a fresh copy of the scenario's
// table on moto, one child process (run-ours.mjs with the request switches on or all off, or the original's
// run_original.py) whose requests the counting proxy records, the records split by phase (classify.mjs),
// and delta-rs's digest of the table the run left. Counts come from the first repeat (a later repeat that
// counts differently is flagged), wall times are medians over the repeats; a failed run is recorded, not
// thrown, so the other engines and scenarios still report.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { venvBin } from "@deltalite/tools/python";
import { runJsonChild } from "../lib/child-json.mjs";
import { countByPhase } from "./classify.mjs";
import { freshTableOnS3 } from "./s3-table.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const BUCKET = "log-requests";
/** Every request switch of packages/delta-log/src/request-switches.ts, off. */
const SWITCHES_OFF = {
  DELTALITE_PROBE_REFRESH: "0",
  DELTALITE_OPTIMISTIC_COMMIT_VERSION: "0",
  DELTALITE_COMMIT_JSON_CACHE: "0",
  DELTALITE_SMALL_FILE_SINGLE_GET: "0",
  DELTALITE_ADOPT_COMMIT_SNAPSHOT: "0",
  DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES: "0",
};
/**
 * The command, arguments and environment of one engine's child run; with `cpuProf` (a directory) our children
 * write a CPU profile per thread under `<cpuProf>/<engine>/`.
 */
function childFor(engine, config, original, cpuProf) {
  const withoutSwitches = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("DELTALITE_")),
  );
  const json = JSON.stringify(config);
  if (engine === "original") {
    return { command: original.command, args: [join(here, "run_original.py"), json], env: original.env };
  }
  // NODE_NO_WARNINGS: the AWS SDK's Node-version notice would otherwise repeat in every child's stderr.
  const ours = { ...withoutSwitches, NODE_NO_WARNINGS: "1" };
  const env = engine === "ours-off" ? { ...ours, ...SWITCHES_OFF } : ours;
  const profile = cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${join(cpuProf, engine)}`] : [];
  return { command: process.execPath, args: [...profile, join(here, "run-ours.mjs"), json], env };
}

/**
 * Version, rows and content digest of the table a run left, read by delta-rs straight from moto. The reader
 * process is asked up to three times: on a loaded machine it has died of SIGABRT now and then (a read-only
 * check, so asking again is safe; a table that differs still differs).
 */
async function tableDigest(uri, storageOptions) {
  const args = [join(here, "table_digest.py"), JSON.stringify({ uri, storageOptions })];
  for (let attempt = 1; ; attempt++) {
    try {
      return await runJsonChild(venvBin("python"), args);
    } catch (error) {
      if (attempt >= 3) throw error;
      console.error(
        `[log-requests] the table digest failed (attempt ${attempt}), asking again: ${error.message.split("\n")[0].slice(-60)}`,
      );
    }
  }
}

function traceRequests(scenario, engine, { phases, unattributed }) {
  for (const { phase, requests } of [...phases, { phase: "between phases", ...unattributed }]) {
    if (requests.length === 0) continue;
    console.error(`[log-requests] ${scenario} / ${engine} / ${phase}:\n  ${requests.join("\n  ")}`);
  }
}

async function runOnce(scenario, engine, ctx) {
  const dir = join(ctx.opts.cache, scenario);
  const meta = JSON.parse(await readFile(join(dir, "meta.json"), "utf8"));
  await freshTableOnS3(ctx.moto, BUCKET, scenario, join(dir, "table"), {
    withProbeObject: ctx.opts.probeObject,
  });
  const config = {
    uri: `s3://${BUCKET}/${scenario}`,
    storageOptions: { ...ctx.moto.storageOptions, AWS_ENDPOINT_URL: ctx.proxy.endpoint },
    batches: Array.from({ length: ctx.opts.calls }, (_, k) => join(dir, `batch-${k + 1}.parquet`)),
    primaryKeys: ["id"],
    partitionKey: meta.partitionKey ?? undefined,
    proxy: ctx.proxy.endpoint,
  };
  const child = childFor(engine, config, ctx.original, ctx.opts.cpuProf);
  ctx.proxy.clearEvents();
  const result = await runJsonChild(child.command, child.args, { env: child.env });
  await ctx.proxy.idle();
  const counted = countByPhase(ctx.proxy.events());
  if (ctx.opts.trace) traceRequests(scenario, engine, counted);
  return { ...result, ...counted, final: await tableDigest(config.uri, ctx.moto.storageOptions) };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function sameCounts(a, b) {
  return JSON.stringify(a.phases.map((p) => p.counts)) === JSON.stringify(b.phases.map((p) => p.counts));
}

/** `ctx.opts.repeat` runs of one engine on one scenario, merged; `{ error }` when a run failed. */
export async function runEngine(scenario, engine, ctx) {
  const runs = [];
  try {
    for (let k = 0; k < ctx.opts.repeat; k++) runs.push(await runOnce(scenario, engine, ctx));
  } catch (error) {
    console.error(`[log-requests] ${scenario} / ${engine} failed: ${error.message}`);
    return { error: String(error.message).split("\n")[0] };
  }
  const [first] = runs;
  return {
    ...first,
    openMs: median(runs.map((run) => run.openMs)),
    calls: first.calls.map((call, index) => ({
      ...call,
      wallMs: median(runs.map((run) => run.calls[index].wallMs)),
      wallRunsMs: runs.map((run) => Math.round(run.calls[index].wallMs)),
    })),
    countsVaried: runs.some((run) => !sameCounts(run, first)),
    finalsVaried: runs.some((run) => JSON.stringify(run.final) !== JSON.stringify(first.final)),
  };
}
