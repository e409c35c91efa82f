//! Syncing a file written in place while it is still being written: each time the writer flushes a row group,
//! one background thread of the process makes the file's bytes so far durable (`fdatasync`), so the sync at
//! the file's end (`write::sync_file`, before any commit may name the file) finds almost nothing left.
//!
//! Why: this VM's virtual disk makes a sync wait for everything written since its last one, even what the
//! kernel has already written back. `sync_file_range` at each row group (what the writer did before) left a
//! 40 MB file's final `fsync` at 40–53 ms on a quiet machine; synced behind every 4 MB instead, it took 0 ms
//! and the writing 79–81 ms against 72–74. In an upsert, two partitions' streams finishing their files
//! together waited 150–200 ms in those syncs with both of the addon's CPU threads idle (uniform 1M,
//! `submit_bio_wait`). Interleaved pairs of upserts, call ms medians, before → after (merge-engine
//! BENCHMARKS.md, session 31): fixed 10k batch on 4M rows 5,574 → 4,595 (4 pairs); uniform 4M 5,241 → 4,852
//! (3); recent 4M 1,462 → 1,350 (3); uniform 1M 1,722 → 1,647 (6); recent 1M 542 → 508 (6).
//!
//! The background sync uses a descriptor of its own, opened on the file before anything is written: on Linux
//! a write-back error is reported once to every open file description, so the writer's final `fsync` still
//! reports an error the background sync saw. The background sync's own result is only a hint and is dropped.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, OnceLock};

use napi_derive::napi;

/// Background syncs run in this process.
static SYNCS_BEHIND: AtomicU32 = AtomicU32::new(0);

/// How many times a file written in place was synced behind its writer in this process (tests: whether it ran).
#[napi]
pub fn syncs_behind() -> u32 {
    SYNCS_BEHIND.load(Ordering::Relaxed)
}

/// One file synced behind its writer.
struct Behind {
    file: File,
    /// A sync is queued and has not started: a later request needs no other.
    queued: AtomicBool,
}

/// The background thread's queue (None when the thread could not be started).
fn queue() -> Option<&'static Sender<Arc<Behind>>> {
    static QUEUE: OnceLock<Option<Sender<Arc<Behind>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (send, receive) = channel::<Arc<Behind>>();
            std::thread::Builder::new()
                .name("deltalite-sync-behind".into())
                .spawn(move || {
                    for behind in receive {
                        behind.queued.store(false, Ordering::Release);
                        let _ = behind.file.sync_data(); // a hint: the writer's final fsync reports any error
                        SYNCS_BEHIND.fetch_add(1, Ordering::Relaxed);
                    }
                })
                .ok()?;
            Some(send)
        })
        .as_ref()
}

/// The handle a writer keeps to have its file synced behind it.
pub(crate) struct SyncBehind {
    behind: Arc<Behind>,
}

impl SyncBehind {
    /// A background syncer of the file at `path` (just opened for writing, nothing written yet), or None where
    /// the file cannot be opened again or the thread is not there (then the final sync does it all), and off
    /// Linux: measured on Linux alone, and elsewhere a sync may flush the whole device each time (macOS).
    pub(crate) fn open(path: &str) -> Option<SyncBehind> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        queue()?;
        let file = File::open(path).ok()?;
        Some(SyncBehind { behind: Arc::new(Behind { file, queued: AtomicBool::new(false) }) })
    }

    /// Asks for the file's bytes written so far to be synced, unless a sync asked for earlier has not started.
    pub(crate) fn request(&self) {
        if self.behind.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        let sent = queue().map(|send| send.send(self.behind.clone()).is_ok());
        if sent != Some(true) {
            self.behind.queued.store(false, Ordering::Release);
        }
    }
}
