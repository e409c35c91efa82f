// `pnpm bench log-requests`: the request economy of an upsert against S3 (issue 13). It builds the upstream
// deltalite's request scenarios once with delta-rs (build_tables.py, cached under
// /tmp/deltalite-bench/log-requests), starts a moto S3 server and the fault proxy in front of it as a counting
// proxy that adds a fixed latency to every request, and for each scenario runs, each in its own child process
// on a fresh copy of the table and all through the proxy: ours with the request switches on (the defaults),
// ours with every switch off (today's requests) and the original deltalite 0.1.15. Each child opens one handle
// and runs several consecutive upserts on it; markers split the proxy's record into the open and each call.
// Prints GET / HEAD / LIST / PUT per phase and the goal checks (report.mjs).
//
//   pnpm exec tsc -b && pnpm bench log-requests [--scenarios median,insert-heavy,tail23,no-checkpoint,hourly]
//     [--calls 3] [--latency-ms 20] [--repeat 1] [--engines ours,ours-off,original] [--cache DIR] [--trace]
//     [--json out.json] [--probe-object] [--cpu-prof DIR]
// `--probe-object` uploads, with each pristine table, the hidden conditional-put probe object an earlier
// deltalite process leaves at the table root, so a first call measures the steady state of that probe (one
// PUT answered 412) instead of a table root no deltalite process ever wrote to (two PUTs). `--cpu-prof DIR`
// runs our children under `node --cpu-prof` (one profile per thread, workers included, in DIR/<engine>/).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFaultProxy } from "@deltalite/tools/fault-proxy";
import { venvBin } from "@deltalite/tools/python";
import { startS3Server } from "@deltalite/tools/s3-server";
import { prepareOriginal } from "../original/contender.mjs";
import { runEngine } from "./engine-run.mjs";
import { MARKER_PREFIX } from "./markers.mjs";
import { GOAL_HEADER, goalRows, REQUEST_HEADER, requestRows, sameTableRows, tally } from "./report.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const SCENARIOS = ["median", "insert-heavy", "tail23", "no-checkpoint", "hourly"];
const ENGINES = ["ours", "ours-off", "original"];

function options() {
  const { values } = parseArgs({
    options: {
      scenarios: { type: "string", default: SCENARIOS.join(",") },
      engines: { type: "string", default: ENGINES.join(",") },
      calls: { type: "string", default: "3" },
      "latency-ms": { type: "string", default: "20" },
      cache: { type: "string", default: "/tmp/deltalite-bench/log-requests" },
      json: { type: "string" },
      repeat: { type: "string", default: "1" },
      trace: { type: "boolean", default: false },
      "probe-object": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  const pick = (text, known, what) => {
    const names = text.split(",").filter(Boolean);
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length > 0)
      throw new Error(`unknown ${what} ${unknown.join(", ")} (known: ${known.join(", ")})`);
    return names;
  };
  const calls = Number(values.calls);
  const latencyMs = Number(values["latency-ms"]);
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error("--repeat must be a positive integer");
  if (!Number.isInteger(calls) || calls < 1) throw new Error(`--calls must be a positive integer`);
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`--latency-ms must be ≥ 0`);
  return {
    scenarios: pick(values.scenarios, SCENARIOS, "scenario"),
    engines: pick(values.engines, ENGINES, "engine"),
    calls,
    latencyMs,
    repeat,
    cache: resolve(values.cache),
    json: values.json,
    trace: values.trace,
    probeObject: values["probe-object"],
    cpuProf: values["cpu-prof"] ? resolve(values["cpu-prof"]) : undefined,
  };
}

function buildTables(opts) {
  const script = join(here, "build_tables.py");
  const args = [script, opts.cache, String(opts.calls), opts.scenarios.join(",")];
  const built = spawnSync(venvBin("python"), args, { stdio: "inherit" });
  if (built.status !== 0) throw new Error(`building the scenario tables failed (exit ${built.status})`);
}

async function main() {
  const opts = options();
  if (!existsSync(join(repo, "packages/deltalite/dist/index.js"))) {
    throw new Error("packages/deltalite/dist is missing: run `pnpm exec tsc -b` first");
  }
  const original = opts.engines.includes("original") ? prepareOriginal() : undefined;
  if (original?.skipped) console.error(`[log-requests] the original is not run: ${original.skipped}`);
  const engines = opts.engines.filter((engine) => engine !== "original" || !original?.skipped);
  buildTables(opts);
  const moto = await startS3Server();
  const proxy = await startFaultProxy({
    target: moto.endpoint,
    maxLifetimeMs: 6 * 60 * 60_000,
    rules:
      opts.latencyMs > 0
        ? [{ path: new RegExp(`^(?!${MARKER_PREFIX})`), fault: { type: "delay", ms: opts.latencyMs } }]
        : [],
  });
  const ctx = { opts, moto, proxy, original };
  const results = {};
  try {
    for (const scenario of opts.scenarios) {
      results[scenario] = {};
      for (const engine of engines) {
        console.error(`[log-requests] ${scenario}: ${engine}…`);
        results[scenario][engine] = await runEngine(scenario, engine, ctx);
      }
    }
  } finally {
    await proxy.stop();
    await moto.stop();
  }
  printReport(results, opts);
  if (opts.json) await writeFile(opts.json, `${JSON.stringify({ options: opts, results }, null, 2)}\n`);
}

function printReport(results, opts) {
  console.log(
    `\n## Requests per phase (moto S3 through the counting proxy, ${opts.latencyMs} ms added per request; ` +
      `${opts.calls} consecutive upserts on one handle; wall: median of ${opts.repeat} run(s)` +
      `${opts.probeObject ? "; the conditional-put probe object already at each table root" : ""})\n`,
  );
  console.log(
    [...REQUEST_HEADER, ...Object.entries(results).flatMap(([s, r]) => requestRows(s, r))].join("\n"),
  );
  const goals = Object.entries(results).flatMap(([s, r]) => goalRows(s, r));
  console.log("\n## Goal checks per upsert (ours with the switches on)\n");
  console.log([...GOAL_HEADER, ...goals].join("\n"));
  const { pass, fail } = tally(goals);
  console.log(`\n${pass} PASS, ${fail} FAIL\n\n## Same result\n\n${sameTableRows(results).join("\n")}`);
}

try {
  await main();
} catch (error) {
  console.error(`[log-requests] ${error.message}`);
  process.exit(1);
}
