//! The addon's own threads for its CPU-bound tasks (decoding, hashing, encoding a writer stream), one per core
//! the process may use (`std::thread::available_parallelism`, which follows CPU affinity and cgroup quotas),
//! apart from libuv's pool (4 threads by default, where Node also runs file-system calls). On a 2-core VM,
//! four pool threads busy with our tasks preempted the JavaScript thread and V8's compiler threads, and each
//! held a glibc arena of its own (merge-engine BENCHMARKS.md, session 26). A task's `compute` runs here; its
//! `resolve` (or `reject`) and `finally`, and the task's drop, run on the JavaScript thread, as an `AsyncTask`'s
//! do. Here run a writer stream's `run` and a local file's column layout and hashes; on libuv's pool stay the
//! tasks that wait on the disk (a file's fsync) and those that read a caller's buffers in place (the hashes of
//! fetched chunks: an `AsyncTask` keeps the buffers referenced until the JavaScript thread settles it, even
//! when the caller's worker thread ends first).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};

use napi::bindgen_prelude::*;

type Job = Box<dyn FnOnce() + Send>;

/// The queue the threads take jobs from, first in first out; the threads start with the first task.
static QUEUE: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();

fn queue() -> &'static Mutex<Sender<Job>> {
    QUEUE.get_or_init(|| {
        let (sender, receiver) = channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        for index in 0..threads {
            let receiver = receiver.clone();
            std::thread::Builder::new()
                .name(format!("deltalite-cpu-{index}"))
                .spawn(move || run_jobs(&receiver))
                .expect("the addon could not start its CPU threads");
        }
        Mutex::new(sender)
    })
}

/// Runs jobs until the queue is gone (never, in a process: the threads end with it).
fn run_jobs(receiver: &Mutex<Receiver<Job>>) {
    loop {
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Runs `task` on the addon's CPU threads and returns its promise: settled on the JavaScript thread with what
/// `resolve` (after `compute` succeeded) or `reject` (after it failed or panicked) gives.
pub fn spawn_cpu_task<T>(env: &Env, mut task: T) -> Result<Object<'_>>
where
    T: Task + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    let job: Job = Box::new(move || {
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
    queue()
        .lock()
        .map_err(|_| Error::from_reason("the addon's CPU threads are gone"))?
        .send(job)
        .map_err(|_| Error::from_reason("the addon's CPU threads are gone"))?;
    Ok(promise)
}
