/**
 * Builds the addon: `cargo build --release` of this crate, its library copied to parquet_native.node. Without
 * cargo, or when the build fails, it says so and exits 0: parquet-stream then runs parquet-wasm, the same
 * parquet-rs in WebAssembly. `DELTALITE_NATIVE_BUILD=0` skips the build (the WebAssembly engine only).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const addon = join(here, "parquet_native.node");
const say = (line) => process.stderr.write(`[parquet-native] ${line}\n`);

function build() {
  if (process.env.DELTALITE_NATIVE_BUILD === "0") return "skipped (DELTALITE_NATIVE_BUILD=0)";
  const cargo = spawnSync("cargo", ["--version"], { encoding: "utf8" });
  if (cargo.status !== 0) return "cargo not found";
  const built = spawnSync("cargo", ["build", "--release", "--locked", "--quiet"], {
    cwd: here,
    stdio: "inherit",
  });
  if (built.status !== 0) return `cargo build failed (exit ${built.status})`;
  const library = { darwin: "libdeltalite_parquet_native.dylib", win32: "deltalite_parquet_native.dll" };
  const from = join(here, "target", "release", library[process.platform] ?? "libdeltalite_parquet_native.so");
  if (!existsSync(from)) return `cargo built no ${from}`;
  copyFileSync(from, addon);
  return undefined;
}

const failure = build();
if (failure === undefined) say("built parquet_native.node");
else {
  rmSync(addon, { force: true });
  say(`not built: ${failure}; the encoder uses parquet-wasm`);
}
