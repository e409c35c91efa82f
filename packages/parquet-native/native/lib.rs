//! parquet-rs as a Node-API addon: the decode and encode half of deltalite's Parquet encoder worker, natively:
//! the few operations that worker asks of parquet-wasm, on the same parquet-rs release, so the two engines
//! write the same Parquet (the worker owns their flow: encoder-worker.ts in parquet-stream). `engine.cjs`
//! shapes these into parquet-wasm's API. Where a store has local targets no worker runs: a writer stream is
//! encoded on the addon's own CPU threads (`cpu_pool.rs`) into files written in place (`stream.rs`,
//! `stream_input.rs`), by the worker's file and row-group rules; a local file it decodes whole is read through a
//! read-only mapping where that is safe (`local_file.rs`). It
//! also hashes the values of a column chunk a JavaScript reader fetched (`value_hashes.rs`), for the probe, and
//! judges the writer's dictionary policy on a decoded batch (`dictionary_policy.rs`), for the encoder worker.

mod alloc;
mod large_blocks;
mod local_file;
mod batch;
mod cpu_pool;
mod dictionary_policy;
mod direct_file;
mod read;
mod stream;
mod stream_input;
mod sync_behind;
mod source_probe;
mod take;
mod value_hashes;
mod write;
