/**
 * Where the native Parquet engine is and whether it runs here. The engine itself is `engine.cjs` at the
 * package's root: parquet-wasm's API, as parquet-stream's encoder worker uses it, served by parquet-rs
 * compiled as a Node-API addon. Workers `require` it by path, which is why it is CommonJS and not an export;
 * this entry only answers where it is and whether the addon loads on this platform.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** The engine module's path (what an encoder worker `require`s) and whether its addon loaded here. */
export interface ParquetNativeEngine {
  /** Absolute path of engine.cjs. */
  entry: string;
  /** True when the addon (parquet_native.node) loaded on this platform. */
  available: boolean;
  /** Why it did not load, when it did not. */
  failure?: string;
}

/** Finds the engine and loads its addon once (the addon is then shared by every thread of the process). */
export function parquetNativeEngine(): ParquetNativeEngine {
  const require = createRequire(import.meta.url);
  const entry = fileURLToPath(new URL("../engine.cjs", import.meta.url));
  const engine = require(entry) as { available: boolean; loadFailure?: string };
  if (engine.available) return { entry, available: true };
  return { entry, available: false, failure: engine.loadFailure ?? "the addon did not load" };
}
