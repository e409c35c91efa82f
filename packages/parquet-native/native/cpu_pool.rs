//! The addon's own threads for its CPU-bound tasks (decoding, hashing, encoding a writer stream): rayon's global
//! pool, one thread per core the process may use (`std::thread::available_parallelism`, which follows CPU
//! affinity and cgroup quotas; `RAYON_NUM_THREADS` overrides it), apart from libuv's pool (4 threads by
//! default, where Node also runs file-system calls). On a 2-core VM, four pool threads busy with our tasks
//! preempted the JavaScript thread and V8's compiler threads, and each held a glibc arena of its own
//! (merge-engine BENCHMARKS.md, session 26). A task's `compute` runs here; its `resolve` (or `reject`) and
//! `finally`, and the task's drop, run on the JavaScript thread, as an `AsyncTask`'s do. Here run a writer
//! stream's `run` and a local file's column layout and hashes; on libuv's pool stay the tasks that wait on the
//! disk (a file's fsync) and those that read a caller's buffers in place (the hashes of fetched chunks: an
//! `AsyncTask` keeps the buffers referenced until the JavaScript thread settles it, even when the caller's
//! worker thread ends first).

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::*;

/// Runs `task` on the addon's CPU threads and returns its promise: settled on the JavaScript thread with what
/// `resolve` (after `compute` succeeded) or `reject` (after it failed or panicked) gives.
pub fn spawn_cpu_task<T>(env: &Env, mut task: T) -> Result<Object<'_>>
where
    T: Task + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    rayon::spawn(move || {
        let output = catch_unwind(AssertUnwindSafe(|| task.compute()))
            .unwrap_or_else(|_| Err(Error::from_reason("the Parquet engine panicked in a task")));
        deferred.resolve(move |env| {
            let settled = match output {
                Ok(output) => task.resolve(env, output),
                Err(error) => task.reject(env, error),
            };
            task.finally(env)?;
            settled
        });
    });
    Ok(promise)
}
