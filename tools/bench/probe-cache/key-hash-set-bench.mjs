// KeyHashSet micro-benchmark (not a test): building a file's entry from 1M random 64-bit hashes (sort +
// dedupe) and answering a 50k-key source's "may contain any" against it (the worst case: no hit, so every
// probe hash is searched). Median of 5 after a warm-up.
//
//   pnpm exec tsc -b packages/probe-cache && node tools/bench/probe-cache/key-hash-set-bench.mjs
import { KeyHashSet } from "@deltalite/probe-cache";

const N = 1_000_000;
const PROBES = 50_000;
const random = (n) => {
  const w = new Uint32Array(2 * n);
  for (let i = 0; i < w.length; i++) w[i] = (Math.random() * 2 ** 32) >>> 0;
  return w;
};
function median(fn) {
  fn();
  const times = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2];
}
const hashes = random(N);
const probes = random(PROBES);
const set = KeyHashSet.fromWords(hashes);
const build = median(() => KeyHashSet.fromWords(hashes));
const lookup = median(() => set.intersects(probes));
console.log(`node ${process.version}`);
console.log(
  `KeyHashSet.fromWords, ${N} hashes: ${build.toFixed(1)} ms (${(N / build / 1000).toFixed(1)} M hashes/s)`,
);
console.log(
  `intersects, ${PROBES} probes vs ${N}: ${lookup.toFixed(1)} ms (${(PROBES / lookup / 1000).toFixed(1)} M probes/s)`,
);
