//! parquet-rs as a Node-API addon: the decode and encode half of deltalite's Parquet encoder worker, natively.
//! It owns nothing of the worker's flow (files, row-group boundaries, flow control: encoder-worker.ts in
//! parquet-stream); it offers the few operations that worker asks of parquet-wasm, on the same parquet-rs
//! release, so the two engines write the same Parquet. `engine.cjs` shapes these into parquet-wasm's API. It
//! also hashes the values of a column chunk a JavaScript reader fetched (`value_hashes.rs`), for the probe, and
//! judges the writer's dictionary policy on a decoded batch (`dictionary_policy.rs`), for the encoder worker.

mod alloc;
mod batch;
mod dictionary_policy;
mod direct_file;
mod read;
mod stream;
mod stream_input;
mod value_hashes;
mod write;
