// The printed result of `pnpm bench log-requests`: a Markdown table of requests per phase (the open, then
// each upsert: call 1 is the first on a fresh handle, later calls are warm) for every scenario and engine,
// then the issue's goal checks per call, each PASS or FAIL exactly as measured:
//   LIST and total requests per upsert ≤ the original's; `_delta_log/` requests ≤ half of ours with every
//   switch off (today's requests); wall time with the injected latency ≤ the original's.
export const ENGINE_LABELS = {
  ours: "ours (switches on)",
  "ours-off": "ours (switches off)",
  original: "original 0.1.15",
};

function phaseLabel(phase) {
  if (phase === "open") return "open";
  return phase === "1" ? "call 1 (cold)" : `call ${phase} (warm)`;
}

function wallOf(run, phase) {
  return phase === "open" ? run.openMs : run.calls[Number(phase) - 1]?.wallMs;
}

function countsRow(scenario, engine, label, c, wall) {
  const cells = [c.GET, c.HEAD, c.LIST, c.PUT, c.OTHER, c.total, c.log, c.outside];
  return `| ${scenario} | ${ENGINE_LABELS[engine]} | ${label} | ${cells.join(" | ")} | ${wall === undefined ? "" : Math.round(wall)} |`;
}

/** The per-phase request table rows for one scenario. */
export function requestRows(scenario, runs) {
  const lines = [];
  for (const [engine, run] of Object.entries(runs)) {
    if (run.error) {
      lines.push(
        `| ${scenario} | ${ENGINE_LABELS[engine]} | FAILED: ${run.error.replaceAll("|", "/")} |||||||||`,
      );
      continue;
    }
    for (const { phase, counts } of run.phases) {
      lines.push(countsRow(scenario, engine, phaseLabel(phase), counts, wallOf(run, phase)));
    }
    if (run.unattributed.counts.total > 0) {
      lines.push(countsRow(scenario, engine, "between phases", run.unattributed.counts, undefined));
    }
  }
  return lines;
}

export const REQUEST_HEADER = [
  "| scenario | engine | phase | GET | HEAD | LIST | PUT | other | total | `_delta_log/` | outside | wall ms |",
  "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
];

function countsOf(run, phase) {
  return run.phases.find((entry) => entry.phase === phase)?.counts;
}

function check(ok, text) {
  return ok === undefined ? `n/a ${text}` : `${ok ? "PASS" : "FAIL"} ${text}`;
}

/** One goal row per upsert call of a scenario; each check says the two figures it compared. */
export function goalRows(scenario, runs) {
  const { ours, ...others } = runs;
  if (!ours) return [];
  if (ours.error) return [`| ${scenario} | all | FAIL: ours failed | FAIL | FAIL | FAIL |`];
  const original = others.original?.error ? undefined : others.original;
  const off = others["ours-off"]?.error ? undefined : others["ours-off"];
  const lines = [];
  for (let index = 0; index < ours.calls.length; index++) {
    const phase = String(index + 1);
    const o = countsOf(ours, phase);
    const orig = original && countsOf(original, phase);
    const today = off && countsOf(off, phase);
    const oursWall = ours.calls[index].wallMs;
    const origWall = original?.calls[index]?.wallMs;
    const cells = [
      check(orig && o.LIST <= orig.LIST, `${o.LIST} ≤ ${orig?.LIST ?? "?"}`),
      check(orig && o.total <= orig.total, `${o.total} ≤ ${orig?.total ?? "?"}`),
      check(today && o.log * 2 <= today.log, `${o.log} ≤ ${today ? today.log / 2 : "?"}`),
      check(
        origWall === undefined ? undefined : oursWall <= origWall,
        `${Math.round(oursWall)} ≤ ${origWall === undefined ? "?" : Math.round(origWall)}`,
      ),
    ];
    lines.push(`| ${scenario} | ${phaseLabel(phase)} | ${cells.join(" | ")} |`);
  }
  return lines;
}

export const GOAL_HEADER = [
  "| scenario | call | LIST ≤ original | total ≤ original | `_delta_log/` ≤ ½ switches-off | wall ≤ original (ms) |",
  "|---|---|---|---|---|---|",
];

/** PASS/FAIL tallies over every goal cell printed. */
export function tally(goalLines) {
  const text = goalLines.join("\n");
  return { pass: (text.match(/PASS/g) ?? []).length, fail: (text.match(/FAIL/g) ?? []).length };
}

/** One line per scenario: whether every engine left the same table (version, rows, digest of sorted id/v). */
export function sameTableRows(results) {
  return Object.entries(results).map(([scenario, runs]) => {
    const seen = Object.entries(runs).map(
      ([engine, run]) => `${engine} ${JSON.stringify(run.final ?? "failed")}`,
    );
    const distinct = new Set(Object.values(runs).map((run) => JSON.stringify(run.final ?? "failed")));
    const varied = Object.entries(runs)
      .filter(([, run]) => run.countsVaried || run.finalsVaried)
      .map(([engine, run]) => `${engine}: ${run.countsVaried ? "counts" : "tables"} differ between repeats`);
    const same = distinct.size === 1 && !distinct.has('"failed"');
    return `- ${scenario}: ${same ? "same table" : "DIFFERENT tables or a failed run"} (${seen.join("; ")})${varied.length ? `; ${varied.join("; ")}` : ""}`;
  });
}
