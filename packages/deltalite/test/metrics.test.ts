// deltalite's OpenTelemetry metrics, read back through the real SDK (a MeterProvider with a MetricReader we
// collect from): instruments carry the seed's names; counters equal the UpsertStats the upserts returned,
// with the seed's static labels; a failed upsert counts as outcome=error with its kind; a provider
// registered after deltalite's first upsert still receives every later one; without a provider, or with a
// broken one, upserts are unaffected.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { type MeterProvider as ApiMeterProvider, type Attributes, metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  DataPointType,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  Field,
  Int64,
  type RecordBatch,
  Schema,
  Table,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import {
  DELTALITE_HISTORY_METRIC_NAMES,
  DELTALITE_METER_NAME,
  DELTALITE_METRIC_NAMES,
  DeltaLiteTable,
  type UpsertOptions,
  type UpsertStats,
} from "../src/index.js";

/** A pull reader: `collect()` returns the cumulative state of every instrument. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

interface Point {
  attributes: Attributes;
  value: number;
}

/** The collected deltalite metrics: name → data points (sums as numbers, histograms as their count). */
class Collected {
  readonly unitOf = new Map<string, string>();
  readonly points = new Map<string, Point[]>();
  readonly histograms = new Map<string, { attributes: Attributes; value: Histogram }[]>();
  scopeVersion: string | undefined;

  constructor(resourceMetrics: ResourceMetrics) {
    for (const scope of resourceMetrics.scopeMetrics) {
      if (scope.scope.name !== DELTALITE_METER_NAME) continue;
      this.scopeVersion = scope.scope.version;
      for (const metric of scope.metrics) {
        this.unitOf.set(metric.descriptor.name, metric.descriptor.unit);
        if (metric.dataPointType === DataPointType.SUM) {
          this.points.set(
            metric.descriptor.name,
            metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
          );
        } else if (metric.dataPointType === DataPointType.HISTOGRAM) {
          this.histograms.set(
            metric.descriptor.name,
            metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
          );
        }
      }
    }
  }

  /** The sum of the counter's single series with exactly these attributes (undefined: no such series). */
  sum(name: string, attributes: Attributes = {}): number | undefined {
    const matching = (this.points.get(name) ?? []).filter((p) => sameAttributes(p.attributes, attributes));
    expect(matching.length, `${name} ${JSON.stringify(attributes)}`).toBeLessThanOrEqual(1);
    return matching[0]?.value;
  }

  histogram(name: string, attributes: Attributes): Histogram | undefined {
    return (this.histograms.get(name) ?? []).find((p) => sameAttributes(p.attributes, attributes))?.value;
  }

  /** Every attribute set recorded on any deltalite instrument. */
  allAttributes(): Attributes[] {
    return [
      ...[...this.points.values()].flat().map((p) => p.attributes),
      ...[...this.histograms.values()].flat().map((p) => p.attributes),
    ];
  }
}

function sameAttributes(a: Attributes, b: Attributes): boolean {
  const keys = Object.keys(a).sort();
  return JSON.stringify(keys) === JSON.stringify(Object.keys(b).sort()) && keys.every((k) => a[k] === b[k]);
}

let installed: { provider: MeterProvider; reader: CollectingReader } | undefined;

function installProvider(): CollectingReader {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
  installed = { provider, reader };
  return reader;
}

async function collect(reader: CollectingReader): Promise<Collected> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return new Collected(resourceMetrics);
}

let tmp: string;
let tableCount = 0;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-metrics-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});
afterEach(async () => {
  metrics.disable();
  await installed?.provider.shutdown();
  installed = undefined;
});

const schema = new Schema([new Field("id", new Int64(), false), new Field("name", new Utf8(), false)]);

/** Rows in `schema` (name not nullable). */
function rows(ids: number[], tag: string): Table {
  return new Table(schema, {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => `${tag}-${i}`),
      new Utf8(),
    ),
  } as never);
}

/** A source with a nullable `name` holding a NULL for every id in `nullNames`. */
function source(ids: number[], nullNames: number[] = []): Table {
  return new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => (nullNames.includes(i) ? null : `new-${i}`)),
      new Utf8(),
    ),
  });
}

/**
 * A table of three files whose key ranges overlap (1..9, 2..10, 3..11), so stats cannot rule out a key
 * inside 1..11 and the probe has to read the candidates.
 */
async function threeFileTable(configuration: Record<string, string> = {}): Promise<DeltaLiteTable> {
  const uri = path.join(tmp, `t${tableCount++}`);
  const table = await DeltaLiteTable.create(uri, schema, { configuration });
  for (const ids of [
    [1, 5, 9],
    [2, 6, 10],
    [3, 7, 11],
  ])
    await table.write(rows(ids, "old"));
  return table;
}

/** The counters fed from UpsertStats, with the stats field each one sums. */
const STATS_COUNTERS: [string, keyof UpsertStats][] = [
  [DELTALITE_METRIC_NAMES.filesAdded, "filesAdded"],
  [DELTALITE_METRIC_NAMES.filesRemoved, "filesRemoved"],
  [DELTALITE_METRIC_NAMES.filesCarriedOver, "filesCarriedOver"],
  [DELTALITE_METRIC_NAMES.filesProbed, "filesProbed"],
  [DELTALITE_METRIC_NAMES.probeCacheHits, "filesProbeCached"],
  [DELTALITE_METRIC_NAMES.rowsUpdated, "rowsUpdated"],
  [DELTALITE_METRIC_NAMES.rowsInserted, "rowsInserted"],
  [DELTALITE_METRIC_NAMES.rowsCopied, "rowsCopied"],
  [DELTALITE_METRIC_NAMES.columnsRelaxed, "columnsRelaxed"],
];

function total(all: UpsertStats[], field: keyof UpsertStats): number {
  return all.reduce((sum, s) => sum + Number(s[field]), 0);
}

const ok = (prune_strategy: string) => ({ outcome: "ok", prune_strategy, error_kind: "none" });

describe("upsert metrics through @opentelemetry/api", () => {
  it("successful upserts add their UpsertStats to the counters, labelled by outcome and prune strategy", async () => {
    const reader = installProvider();
    const table = await threeFileTable();
    // 5 matches the first file, 4 and 20 are new; name 4 is NULL, so `name` is relaxed first.
    const first = await table.upsert(source([5, 4, 20], [4]), { primaryKeys: ["id"] });
    const second = await table.upsert(source([6, 30]), { primaryKeys: ["id"], pruneStrategy: "stats" });
    const both = [first, second];
    // The scenario exercises every counter it checks (a zero here would let a wrong source field pass).
    for (const field of ["filesAdded", "filesRemoved", "filesCarriedOver", "filesProbed"] as const)
      expect(first[field], field).toBeGreaterThan(0);
    for (const field of ["rowsUpdated", "rowsInserted", "rowsCopied", "columnsRelaxed"] as const)
      expect(total(both, field), field).toBeGreaterThan(0);
    expect(first.filesProbed).not.toBe(first.filesCarriedOver);
    expect(second.filesProbed).toBe(0);

    const got = await collect(reader);
    expect(got.scopeVersion).toBe(packageJson.version);
    for (const [name, field] of STATS_COUNTERS) expect(got.sum(name), name).toBe(total(both, field));
    expect(got.sum(DELTALITE_METRIC_NAMES.upserts, ok("probe"))).toBe(1);
    expect(got.sum(DELTALITE_METRIC_NAMES.upserts, ok("stats"))).toBe(1);
    expect(got.points.get(DELTALITE_METRIC_NAMES.upserts)).toHaveLength(2);
    expect(got.sum(DELTALITE_METRIC_NAMES.logMaintenanceFailures, { op: "checkpoint" })).toBeUndefined();

    for (const strategy of ["probe", "stats"]) {
      const duration = got.histogram(DELTALITE_METRIC_NAMES.upsertDuration, {
        outcome: "ok",
        prune_strategy: strategy,
      });
      expect(duration?.count, strategy).toBe(1);
      const upsert = strategy === "probe" ? first : second;
      // Wall-clock seconds around the call: at least the engine's own execution time.
      expect(duration!.sum!).toBeGreaterThanOrEqual(upsert.executionTimeMs / 1000);
      expect(duration!.sum!).toBeLessThan(60);
    }
    expect(got.unitOf.get(DELTALITE_METRIC_NAMES.upsertDuration)).toBe("s");
    expect(got.unitOf.get(DELTALITE_METRIC_NAMES.filesAdded)).toBe("{file}");
    expect(got.unitOf.get(DELTALITE_METRIC_NAMES.rowsCopied)).toBe("{row}");
    // Every instrument the brief names is there.
    const names = new Set([...got.points.keys(), ...got.histograms.keys()]);
    // Maintenance failures and checkpoint prefetches need a scenario of their own (below).
    const elsewhere: string[] = [
      DELTALITE_METRIC_NAMES.logMaintenanceFailures,
      DELTALITE_METRIC_NAMES.checkpointPrefetch,
    ];
    for (const name of Object.values(DELTALITE_METRIC_NAMES)) {
      if (!elsewhere.includes(name)) expect(names, name).toContain(name);
    }
  });

  it("instruments carry the seed's names (deltalite_files_{added,removed,carried_over,probed,probe_cached}_total, …)", () => {
    expect(Object.values(DELTALITE_METRIC_NAMES)).toEqual(
      expect.arrayContaining([
        "deltalite_upserts_total",
        "deltalite_upsert_duration_seconds",
        "deltalite_files_added_total",
        "deltalite_files_removed_total",
        "deltalite_files_carried_over_total",
        "deltalite_files_probed_total",
        "deltalite_files_probe_cached_total",
        "deltalite_rows_updated_total",
        "deltalite_rows_inserted_total",
        "deltalite_rows_copied_total",
      ]),
    );
    // The files the probe decided from the cache (UpsertStats.filesProbeCached), under the seed's name.
    expect(DELTALITE_METRIC_NAMES.probeCacheHits).toBe("deltalite_files_probe_cached_total");
    expect(Object.values(DELTALITE_METRIC_NAMES)).not.toContain("deltalite_probe_cache_hits_total");
  });

  it("pruneStrategy none is its own label", async () => {
    const reader = installProvider();
    const table = await threeFileTable();
    const stats = await table.upsert(source([7]), { primaryKeys: ["id"], pruneStrategy: "none" });
    const got = await collect(reader);
    expect(got.sum(DELTALITE_METRIC_NAMES.upserts, ok("none"))).toBe(1);
    expect(got.sum(DELTALITE_METRIC_NAMES.rowsUpdated)).toBe(stats.rowsUpdated);
    expect(stats.rowsUpdated).toBe(1);
  });

  it.each<{
    name: string;
    data: () => Table | AsyncIterable<RecordBatch>;
    options: UpsertOptions;
    kind: string;
  }>([
    {
      name: "duplicate keys in the source",
      data: () => source([4, 4]),
      options: { primaryKeys: ["id"] },
      kind: "generic",
    },
    {
      name: "a key column the table lacks",
      data: () => source([4]),
      options: { primaryKeys: ["missing"], pruneStrategy: "stats" },
      kind: "invalid_argument",
    },
    {
      name: "a source iterator that throws a plain Error",
      data: () => ({
        // biome-ignore lint/correctness/useYield: the source fails before its first batch.
        async *[Symbol.asyncIterator]() {
          throw new Error("source broke");
        },
      }),
      options: { primaryKeys: ["id"] },
      kind: "unknown",
    },
  ])("a failed upsert ($name) counts outcome=error, error_kind=$kind, and no stats", async (c) => {
    const reader = installProvider();
    const table = await threeFileTable();
    const error: unknown = await table.upsert(c.data(), c.options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    const thrownKind = (error as { kind?: unknown }).kind ?? "unknown";
    expect(thrownKind).toBe(c.kind);

    const got = await collect(reader);
    const prune_strategy = c.options.pruneStrategy ?? "probe";
    expect(
      got.sum(DELTALITE_METRIC_NAMES.upserts, { outcome: "error", prune_strategy, error_kind: c.kind }),
    ).toBe(1);
    expect(got.points.get(DELTALITE_METRIC_NAMES.upserts)).toHaveLength(1);
    expect(
      got.histogram(DELTALITE_METRIC_NAMES.upsertDuration, { outcome: "error", prune_strategy })?.count,
    ).toBe(1);
    for (const [name] of STATS_COUNTERS) expect(got.sum(name), name).toBeUndefined();
  });

  it("an unknown pruneStrategy is labelled invalid, not with the caller's string", async () => {
    const reader = installProvider();
    const table = await threeFileTable();
    const options = { primaryKeys: ["id"], pruneStrategy: "bogus" } as unknown as UpsertOptions;
    await expect(table.upsert(source([1]), options)).rejects.toMatchObject({ kind: "invalid_argument" });
    const got = await collect(reader);
    expect(
      got.sum(DELTALITE_METRIC_NAMES.upserts, {
        outcome: "error",
        prune_strategy: "invalid",
        error_kind: "invalid_argument",
      }),
    ).toBe(1);
  });

  it("a failed checkpoint after a durable commit counts deltalite_log_maintenance_failures_total{op=checkpoint}", async () => {
    const reader = installProvider();
    const table = await threeFileTable({ "delta.checkpointInterval": "1" });
    const stats = await table.upsert(source([5]), {
      primaryKeys: ["id"],
      hooks: {
        onCheckpointDue: async () => {
          throw new Error("checkpoint store unavailable");
        },
      },
    });
    expect(stats.maintenanceError).toBeInstanceOf(Error);
    const got = await collect(reader);
    expect(got.sum(DELTALITE_METRIC_NAMES.logMaintenanceFailures, { op: "checkpoint" })).toBe(1);
    expect(got.sum(DELTALITE_METRIC_NAMES.upserts, ok("probe"))).toBe(1);
  });

  it("no label carries the table location or another unbounded value", async () => {
    const reader = installProvider();
    const table = await threeFileTable();
    await table.upsert(source([5, 40]), { primaryKeys: ["id"] });
    await table.upsert(source([5, 5]), { primaryKeys: ["id"] }).catch(() => undefined);
    const got = await collect(reader);
    const allowed: Record<string, readonly string[]> = {
      outcome: [
        "ok",
        "error",
        ...["current", "new_commits", "replaced", "unknown", "listed", "no_anchor"],
        ...["fetched", "too_large", "budget_exhausted"],
      ],
      prune_strategy: ["probe", "stats", "none", "invalid"],
      op: ["checkpoint"],
    };
    const seen = got.allAttributes();
    expect(seen.length).toBeGreaterThan(0);
    for (const attributes of seen) {
      for (const [key, value] of Object.entries(attributes)) {
        expect(String(value)).not.toContain(tmp);
        if (key === "error_kind") expect(typeof value).toBe("string");
        else expect(allowed[key], key).toContain(value);
      }
    }
  });

  it("without a provider upserts work; a provider registered later receives every later upsert", async () => {
    const table = await threeFileTable();
    const before = await table.upsert(source([5, 41]), { primaryKeys: ["id"] });
    expect(before.rowsInserted).toBe(1);

    const reader = installProvider();
    const after = await table.upsert(source([6, 42, 43]), { primaryKeys: ["id"] });
    const got = await collect(reader);
    expect(got.sum(DELTALITE_METRIC_NAMES.upserts, ok("probe"))).toBe(1);
    for (const [name, field] of STATS_COUNTERS) expect(got.sum(name), name).toBe(total([after], field));

    // Once the provider is removed, its reader sees nothing more and upserts still succeed.
    metrics.disable();
    await table.upsert(source([7]), { primaryKeys: ["id"] });
    const later = await collect(reader);
    expect(later.sum(DELTALITE_METRIC_NAMES.upserts, ok("probe"))).toBe(1);
  });

  it("a provider that throws does not reach the caller", async () => {
    const throwing: ApiMeterProvider = {
      getMeter() {
        throw new Error("broken provider");
      },
    };
    expect(metrics.setGlobalMeterProvider(throwing)).toBe(true);
    const table = await threeFileTable();
    const stats = await table.upsert(source([5, 44]), { primaryKeys: ["id"] });
    expect(stats.rowsInserted).toBe(1);
    await expect(table.upsert(source([1, 1]), { primaryKeys: ["id"] })).rejects.toMatchObject({
      kind: "generic",
    });
  });
});

describe("log-request metrics", () => {
  it("count checkpoint prefetches of a load and the refresh and commit probes of a warm handle", async () => {
    const table = await threeFileTable({ "delta.checkpointInterval": "2" });
    const reader = installProvider();
    const reopened = await DeltaLiteTable.open(table.uri);
    await reopened.upsert(source([5, 50]), { primaryKeys: ["id"] });
    await reopened.upsert(source([6, 51]), { primaryKeys: ["id"] });
    const got = await collect(reader);
    // The three-file table has a checkpoint at version 1: the open reads it whole.
    expect(got.sum(DELTALITE_METRIC_NAMES.checkpointPrefetch, { outcome: "fetched" })).toBeGreaterThanOrEqual(
      1,
    );
    // The second upsert refreshes a handle nobody else wrote to: one probe that finds it current.
    expect(got.sum(DELTALITE_METRIC_NAMES.refreshProbe, { outcome: "current" })).toBeGreaterThanOrEqual(1);
    expect(got.sum(DELTALITE_METRIC_NAMES.commitProbe, { outcome: "current" })).toBe(2);
  });
});

describe("history upsert metrics", () => {
  const historySchema = new Schema([
    new Field("k", new Int64(), true),
    new Field("ord", new Int64(), true),
    new Field("vf", new TimestampMicrosecond("UTC"), true),
    new Field("vt", new TimestampMicrosecond("UTC"), true),
    new Field("part", new Utf8(), true),
  ]);
  const options = {
    keyColumns: ["k"],
    orderColumn: "ord",
    validFromColumn: "vf",
    validToColumn: "vt",
    partitionColumn: "part",
    currentPartition: "current",
  };
  const batch = (keys: number[], ord: number, day: string) =>
    new Table({
      k: vectorFromArray(
        keys.map((k) => BigInt(k)),
        new Int64(),
      ),
      ord: vectorFromArray(
        keys.map(() => BigInt(ord)),
        new Int64(),
      ),
      vf: vectorFromArray(
        keys.map(() => Date.parse(`${day}T00:00:00Z`)),
        new TimestampMicrosecond("UTC"),
      ),
    });

  it("count calls by outcome and the versions opened and closed, equal to the stats", async () => {
    const uri = path.join(tmp, `h${tableCount++}`);
    const table = await DeltaLiteTable.create(uri, historySchema, { partitionBy: ["part"] });
    const reader = installProvider();
    const first = await table.historyUpsert(batch([1, 2], 1, "2026-01-10"), options);
    const second = await table.historyUpsert(batch([1, 3], 2, "2026-02-10"), options);
    await expect(
      table.historyUpsert(batch([1], 3, "2026-03-10"), { ...options, orderColumn: "nope" }),
    ).rejects.toMatchObject({
      kind: expect.any(String),
    });
    const got = await collect(reader);
    const n = DELTALITE_HISTORY_METRIC_NAMES;
    expect(got.sum(n.historyUpserts, { outcome: "ok", error_kind: "none" })).toBe(2);
    expect(got.points.get(n.historyUpserts)?.filter((p) => p.attributes.outcome === "error")).toHaveLength(1);
    expect(first.versionsOpened + second.versionsOpened).toBe(4);
    expect(got.sum(n.historyVersionsOpened)).toBe(first.versionsOpened + second.versionsOpened);
    expect(second.versionsClosed).toBe(1);
    expect(got.sum(n.historyVersionsClosed)).toBe(first.versionsClosed + second.versionsClosed);
    expect(got.histogram(n.historyUpsertDuration, { outcome: "ok" })?.count).toBe(2);
  });
});
