"""What every measured Python contender child of the benchmarks does the same way: time the call with the RSS
just before it and the process's peak RSS after it (process_rss), and hand the result back as one JSON line
on stdout, then leave at once (os._exit) — delta-rs's threads can abort the interpreter's teardown, which
would turn a measured run into a failed one. Standard library only (imported from the oracle's venv and the
original deltalite's)."""

import json
import os
import sys
import time

from process_rss import current_rss_mb, peak_rss_mb


def measured_call(step, started_process):
    """Runs `step()` and returns its figures: callMs, setupMs (from `started_process`, a time.perf_counter()
    reading, to the call), peakRssMB, rssBeforeCallMB and `metrics` (what `step` returned)."""
    rss_before = current_rss_mb()
    started = time.perf_counter()
    metrics = step()
    call_ms = (time.perf_counter() - started) * 1000
    return {
        "callMs": call_ms,
        "setupMs": (started - started_process) * 1000,
        "peakRssMB": peak_rss_mb(),
        "rssBeforeCallMB": rss_before,
        "metrics": metrics,
    }


def answer(result):
    """Prints `result` as the JSON line (values JSON lacks as their str) and ends the process with status 0."""
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()
    os._exit(0)
