/**
 * The progress line of long verbs (write, upsert, scan, vacuum, compact, z-order) on stderr: what is being
 * done, rows, bytes (of a known total, when there is one), files, bins done of bins so far and the elapsed
 * time, redrawn in place at most every 100 ms and erased when the verb ends.
 * Drawn only when stderr is a terminal; elsewhere (pipes, files, CI logs) every call is a no-op.
 */
import { formatBytes } from "./units.js";

export interface ProgressCounts {
  rows?: number;
  bytes?: number;
  files?: number;
  /** Of `bytesTotal` when set: "12 MiB of 40 MiB". */
  bytesTotal?: number;
  /** Work units done of `binsTotal` (compaction's bins): "3/11 bins". */
  bins?: number;
  binsTotal?: number;
}

export interface Progress {
  /** Starts (or renames) the line: "writing", "scanning 9 files"... */
  start(label: string): void;
  /** Adds to the counters. */
  add(counts: ProgressCounts): void;
  /** Replaces the counters. */
  set(counts: ProgressCounts): void;
  /** Erases the line and stops redrawing. */
  done(): void;
}

const REDRAW_MS = 100;
const ERASE_LINE = "\r\x1b[2K";

const NO_PROGRESS: Progress = { start() {}, add() {}, set() {}, done() {} };

export function createProgress(write: (text: string) => void, isTTY: boolean): Progress {
  if (!isTTY) return NO_PROGRESS;
  let label = "";
  let counts: Required<ProgressCounts> = {
    rows: 0,
    bytes: 0,
    files: 0,
    bytesTotal: 0,
    bins: 0,
    binsTotal: 0,
  };
  let started = performance.now();
  let timer: ReturnType<typeof setInterval> | undefined;
  let lastDraw = 0;
  const draw = () => {
    lastDraw = performance.now();
    const parts = [label];
    const binned = counts.binsTotal > 0;
    if (binned) parts.push(`${counts.bins}/${counts.binsTotal} bins`);
    if (counts.rows > 0 || (counts.bytes === 0 && !binned))
      parts.push(`${counts.rows.toLocaleString("en-US")} rows`);
    const ofTotal = counts.bytesTotal > 0 ? ` of ${formatBytes(counts.bytesTotal)}` : "";
    parts.push(`${formatBytes(counts.bytes)}${ofTotal}`);
    if (counts.files > 0) parts.push(`${counts.files} files`);
    parts.push(`${((lastDraw - started) / 1000).toFixed(1)}s`);
    write(`${ERASE_LINE}${parts.join("  ")}`);
  };
  const drawSoon = () => {
    if (timer && performance.now() - lastDraw >= REDRAW_MS) draw();
  };
  return {
    start(text) {
      if (!timer) {
        started = performance.now();
        timer = setInterval(draw, REDRAW_MS);
        timer.unref();
      }
      label = text;
      draw();
    },
    add(more) {
      counts = {
        ...counts,
        rows: counts.rows + (more.rows ?? 0),
        bytes: counts.bytes + (more.bytes ?? 0),
        files: counts.files + (more.files ?? 0),
        bins: counts.bins + (more.bins ?? 0),
      };
      drawSoon();
    },
    set(next) {
      counts = { ...counts, ...next };
      drawSoon();
    },
    done() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      draw();
      write(ERASE_LINE);
    },
  };
}
