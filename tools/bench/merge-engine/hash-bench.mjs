// Key hashing micro-benchmark (not a test): keys/s of encodeKeys (canonical encoding + batch XXH64) for
// int64 keys, 16-character string keys and (int64, string) composite keys, beside the raw hash loops (the
// JavaScript ones and the WebAssembly ones the default hasher uses) and the native @node-rs/xxhash called
// once per key. Median of 5 runs over 1M keys, each after a warm-up.
//
//   pnpm exec tsc -b packages/merge-engine && node tools/bench/merge-engine/hash-bench.mjs [keys]

import {
  encodeKeys,
  KEY_HASH_SEED,
  SourceKeySet,
  seed64,
  xxh64Ranges,
  xxh64RangesWasm,
  xxh64Words8,
  xxh64Words8Wasm,
} from "@deltalite/merge-engine";
import { xxh64 as nativeXxh64 } from "@node-rs/xxhash";
import { Field, Int64, makeData, RecordBatch, Schema, Struct, Utf8 } from "apache-arrow";

const N = Number(process.argv[2] ?? 1_000_000);
const RUNS = 5;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function measure(name, fn) {
  fn(); // warm-up
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  const ms = median(times);
  console.log(
    `${name.padEnd(52)} ${(N / ms / 1000).toFixed(1).padStart(7)} M keys/s  (${ms.toFixed(1)} ms / ${N} keys)`,
  );
}

// int64 keys: random 63-bit values
const ids = new BigInt64Array(N);
for (let i = 0; i < N; i++) ids[i] = BigInt(Math.floor(Math.random() * 2 ** 53)) * 1024n + BigInt(i & 1023);
const idBatch = batchOf(
  "id",
  new Int64(),
  makeData({ type: new Int64(), length: N, nullCount: 0, data: ids }),
);

// string keys: 16 ASCII characters each
const enc = new TextEncoder();
const offsets = new Int32Array(N + 1);
const bytes = new Uint8Array(16 * N);
for (let i = 0; i < N; i++) {
  enc.encodeInto(`k${i.toString(36).padStart(15, "0")}`, bytes.subarray(16 * i));
  offsets[i + 1] = 16 * (i + 1);
}
const strBatch = batchOf(
  "key",
  new Utf8(),
  makeData({ type: new Utf8(), length: N, nullCount: 0, valueOffsets: offsets, data: bytes }),
);

// UUID-shaped string keys: 36 bytes each (the ≥ 32-byte path of XXH64: one full stripe)
const uuidOffsets = new Int32Array(N + 1);
const uuidBytes = new Uint8Array(36 * N);
for (let i = 0; i < N; i++) {
  const hex = (i * 2654435761).toString(16).padStart(32, "0").slice(-32);
  enc.encodeInto(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    uuidBytes.subarray(36 * i),
  );
  uuidOffsets[i + 1] = 36 * (i + 1);
}

function batchOf(name, type, data) {
  const schema = new Schema([new Field(name, type, true)]);
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: N, nullCount: 0, children: [data] }),
  );
}

// composite (int64, string) keys over the same two columns
const bothSchema = new Schema([new Field("id", new Int64(), true), new Field("key", new Utf8(), true)]);
const bothBatch = new RecordBatch(
  bothSchema,
  makeData({
    type: new Struct(bothSchema.fields),
    length: N,
    nullCount: 0,
    children: [idBatch.data.children[0], strBatch.data.children[0]],
  }),
);

const seed = seed64(KEY_HASH_SEED);
const out = new Uint32Array(2 * N);

/** JS vs wasm hash of the same keys, alternated run by run (A B A B …, 11 each): medians and their ratio. */
function interleaved(name, js, wasm) {
  js();
  wasm();
  const a = [];
  const b = [];
  for (let r = 0; r < 11; r++) {
    let t0 = performance.now();
    js();
    a.push(performance.now() - t0);
    t0 = performance.now();
    wasm();
    b.push(performance.now() - t0);
  }
  const [ja, wb] = [median(a), median(b)];
  console.log(
    `${name.padEnd(40)} js ${(N / ja / 1000).toFixed(1).padStart(6)} M keys/s  wasm ${(N / wb / 1000).toFixed(1).padStart(6)} M keys/s  wasm/js ${(ja / wb).toFixed(2)}x`,
  );
}

console.log(`node ${process.version}, ${N} keys; JS vs WebAssembly XXH64, interleaved, medians of 11`);
const idWords = new Uint32Array(ids.buffer);
interleaved(
  "8-byte int64 keys (words8)",
  () => xxh64Words8(idWords, N, seed, out),
  () => xxh64Words8Wasm(idWords, N, seed, out),
);
interleaved(
  "16-byte strings (ranges)",
  () => xxh64Ranges(bytes, offsets, N, seed, out),
  () => xxh64RangesWasm(bytes, offsets, N, seed, out),
);
interleaved(
  "36-byte UUID strings (ranges)",
  () => xxh64Ranges(uuidBytes, uuidOffsets, N, seed, out),
  () => xxh64RangesWasm(uuidBytes, uuidOffsets, N, seed, out),
);
console.log(`\nmedian of ${RUNS}`);
measure("xxh64Words8 (int64 words, raw loop)", () => xxh64Words8(new Uint32Array(ids.buffer), N, seed, out));
measure("xxh64Words8Wasm (int64 words, wasm, copies incl.)", () =>
  xxh64Words8Wasm(new Uint32Array(ids.buffer), N, seed, out),
);
measure("encodeKeys int64 (encode + hash)", () => encodeKeys(idBatch, ["id"]));
measure("xxh64Ranges (16-byte strings, raw loop)", () => xxh64Ranges(bytes, offsets, N, seed, out));
measure("encodeKeys utf8 (encode + hash)", () => encodeKeys(strBatch, ["key"]));
measure("xxh64Ranges (36-byte UUID strings, raw loop)", () =>
  xxh64Ranges(uuidBytes, uuidOffsets, N, seed, out),
);
measure("xxh64RangesWasm (36-byte UUID strings, wasm)", () =>
  xxh64RangesWasm(uuidBytes, uuidOffsets, N, seed, out),
);
measure("xxh64RangesWasm (16-byte strings, wasm)", () => xxh64RangesWasm(bytes, offsets, N, seed, out));
measure("native xxh64 per key (36-byte UUID strings)", () => {
  for (let i = 0; i < N; i++) nativeXxh64(uuidBytes.subarray(36 * i, 36 * i + 36), KEY_HASH_SEED);
});
measure("encodeKeys (int64, utf8) composite (encode + hash)", () => encodeKeys(bothBatch, ["id", "key"]));
const idKeys = encodeKeys(idBatch, ["id"]);
const strKeys = encodeKeys(strBatch, ["key"]);
measure("SourceKeySet.build int64", () => SourceKeySet.build({ keys: idKeys }));
measure("SourceKeySet.build utf8", () => SourceKeySet.build({ keys: strKeys }));
const idSet = SourceKeySet.build({ keys: idKeys });
const strSet = SourceKeySet.build({ keys: strKeys });
const hit = new Uint8Array(N);
measure("SourceKeySet.matchRows int64 (all hit)", () => idSet.matchRows(idKeys, hit));
measure("SourceKeySet.matchRows utf8 (all hit)", () => strSet.matchRows(strKeys, hit));
// The rewrite's shape: a 50k-key source set probed by 1M target rows, 1 in 20 of which hit.
const small = 50_000;
const smallIdKeys = encodeKeys(idBatch.slice(0, small), ["id"]);
const smallStrKeys = encodeKeys(strBatch.slice(0, small), ["key"]);
const idTarget = encodeKeys(
  batchOf(
    "id",
    new Int64(),
    makeData({
      type: new Int64(),
      length: N,
      nullCount: 0,
      data: ids.map((v, i) => (i % 20 === 0 ? ids[(i / 20) % small] : v + 1n)),
    }),
  ),
  ["id"],
);
const strTarget = encodeKeys(strBatch, ["key"]); // rows 0..49,999 hit: 5% of 1M
const smallIdSet = SourceKeySet.build({ keys: smallIdKeys });
const smallStrSet = SourceKeySet.build({ keys: smallStrKeys });
measure("matchRows int64, 50k-key set, 5% hits", () => smallIdSet.matchRows(idTarget, hit));
measure("matchRows utf8, 50k-key set, 5% hits", () => smallStrSet.matchRows(strTarget, hit));
const u8 = new Uint8Array(ids.buffer);
measure("@node-rs/xxhash xxh64, one call per int64 key", () => {
  for (let i = 0; i < N; i++) nativeXxh64(u8.subarray(8 * i, 8 * i + 8), KEY_HASH_SEED);
});
measure("@node-rs/xxhash xxh64, one call per string key", () => {
  for (let i = 0; i < N; i++) nativeXxh64(bytes.subarray(16 * i, 16 * i + 16), KEY_HASH_SEED);
});
