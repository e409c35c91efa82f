"""Memory and CPU figures of the current process for the Python contenders of `pnpm bench upsert` (the original
deltalite's runner beside it and tools/bench/merge-engine/upsert-delta-rs.py), so both report RSS the same way:
peak = getrusage ru_maxrss (KiB on Linux), current = resident pages from /proc/self/statm; CPU = getrusage
ru_utime + ru_stime (every thread of the process), in ms. Standard library
only: it is imported from two venvs (the oracle's and the original deltalite's)."""

import resource


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 1024 / 1024


def cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000
