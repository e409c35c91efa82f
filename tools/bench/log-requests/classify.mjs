// The request accounting of `pnpm bench log-requests`: turns the counting proxy's recorded requests into
// per-phase counts. A request is a LIST when it is a GET with `list-type=2` in its query, else GET / HEAD /
// PUT (PUT and POST, the multipart calls included) / OTHER (DELETE…); it is under `_delta_log/` when its key
// is (for a LIST: when its `prefix` is), else it is counted "outside" (data files, the conditional-put probe).
// Requests are attributed to the phase whose start/end markers (markers.mjs) enclose them.
import { markerLabel } from "./markers.mjs";

export const KINDS = ["GET", "HEAD", "LIST", "PUT", "OTHER"];

/** One request's kind and whether it touches `_delta_log/`. */
export function classify({ method, path, query }) {
  const params = new URLSearchParams(query);
  const upper = method.toUpperCase();
  const isList = upper === "GET" && params.get("list-type") === "2";
  const kind = isList
    ? "LIST"
    : upper === "GET" || upper === "HEAD"
      ? upper
      : upper === "PUT" || upper === "POST"
        ? "PUT"
        : "OTHER";
  const subject = isList ? (params.get("prefix") ?? "") : path;
  return { kind, log: /(^|\/)_delta_log(\/|$)/.test(subject) };
}

function emptyCounts() {
  return { GET: 0, HEAD: 0, LIST: 0, PUT: 0, OTHER: 0, total: 0, log: 0, outside: 0 };
}

function add(counts, event) {
  const { kind, log } = classify(event);
  counts[kind]++;
  counts.total++;
  if (log) counts.log++;
  else counts.outside++;
}

/** When a request ran, in ms from its phase's start marker (`+start..end`; `--trace` shows the critical path). */
function timing(event, phaseStartedAt) {
  if (phaseStartedAt === undefined || event.startedAt === undefined) return "";
  const end = event.endedAt === undefined ? "?" : event.endedAt - phaseStartedAt;
  return ` +${event.startedAt - phaseStartedAt}..${end} ms`;
}

/**
 * Splits recorded requests at the markers: `{ phases: [{ phase, counts, requests }], unattributed }` in
 * marker order, where `requests` are the phase's "METHOD path?query +start..end ms" lines (times from the
 * phase's start marker) and a request outside every start/end pair is unattributed (it should not happen:
 * reported if it does).
 */
export function countByPhase(events) {
  const phases = [];
  const unattributed = { counts: emptyCounts(), requests: [] };
  let current;
  for (const event of events) {
    const label = markerLabel(event.path);
    if (label !== undefined) {
      const [edge, ...rest] = label.split("-");
      current =
        edge === "start"
          ? { phase: rest.join("-"), counts: emptyCounts(), requests: [], startedAt: event.startedAt }
          : undefined;
      if (current) phases.push(current);
      continue;
    }
    const into = current ?? unattributed;
    add(into.counts, event);
    const line = `${event.method} ${event.path}${event.query ? `?${event.query}` : ""}`;
    into.requests.push(line + timing(event, current?.startedAt));
  }
  return { phases, unattributed };
}
