//! A new local file written around the page cache (Linux `O_DIRECT`), for the files the encoder writes in
//! place and syncs before the commit names them: bytes gather in an aligned staging buffer and go to disk in
//! whole aligned chunks; the unaligned tail is written through the cache once the file is complete. Only with
//! `DELTALITE_DIRECT_IO=1`, and where the filesystem and the platform allow it; otherwise the file is written
//! through the cache. The file is synced to disk before any commit names it either way.
//!
//! Why it is not the default (any more): session 21 made it the default on a VM where every page-cache page a
//! write filled for the first time cost a trip to the host (recent 4M: 40% of the encoders' CPU in the
//! kernel's copy into the cache). Its figures were taken on table copies whose own writeback was still
//! running during the call (the bench did not sync them then), which held back writes through the cache
//! most. Measured again with synced copies (session 29, interleaved pairs, call ms medians, direct against
//! through the cache): fixed 1M 1,927 / 1,562; recent 4M 1,510 / 1,389; fixed 4M 5,322 / 4,347; uniform 4M
//! 5,173 / 4,411; recent 1M level (session 28). Writing around the cache made the encoder wait for the disk
//! (perf sched: 280 ms of one encoder thread blocked on a full staging queue at fixed 1M) while the cache
//! lets the kernel write back alongside; the cache's page fills cost ~3% more CPU.

use std::alloc::{alloc, dealloc, Layout};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use napi_derive::napi;

/// Bytes staged before one direct write: a multiple of any logical block size (512 B or 4 KiB).
const CHUNK: usize = 1024 * 1024;
/// The staging buffer's alignment: a page, which satisfies every block device's direct-I/O rule.
const ALIGN: usize = 4096;

/// One aligned staging buffer of CHUNK bytes.
struct Stage {
    ptr: *mut u8,
}

// The buffer is plain memory owned by one Stage at a time.
unsafe impl Send for Stage {}

impl Stage {
    fn layout() -> Layout {
        Layout::from_size_align(CHUNK, ALIGN).expect("a valid staging layout")
    }

    fn new() -> Stage {
        let ptr = unsafe { alloc(Self::layout()) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(Self::layout());
        }
        Stage { ptr }
    }

    /// A stage holding no buffer (what a finished file keeps).
    fn empty() -> Stage {
        Stage { ptr: std::ptr::null_mut() }
    }

    fn bytes(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, CHUNK) }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            unsafe { dealloc(self.ptr, Self::layout()) };
        }
    }
}

/// Staging buffers of finished files, kept for the next file: their pages stay mapped (a fresh buffer for
/// every file would fault its 1 MiB in each time, at this machine's price for fresh pages). As many as the
/// most files written at once held (STAGES_PER_FILE each).
static SPARE_STAGES: Mutex<Vec<Stage>> = Mutex::new(Vec::new());

fn take_stage() -> Stage {
    SPARE_STAGES.lock().ok().and_then(|mut spare| spare.pop()).unwrap_or_else(Stage::new)
}

fn give_back(stage: Stage) {
    if stage.ptr.is_null() {
        return;
    }
    if let Ok(mut spare) = SPARE_STAGES.lock() {
        spare.push(stage);
    }
}

/// Files this process has opened for direct writes.
static DIRECT_FILES_OPENED: AtomicU32 = AtomicU32::new(0);

/// How many files written in place this process wrote around the page cache (tests: whether direct I/O ran).
#[napi]
pub fn direct_files_opened() -> u32 {
    DIRECT_FILES_OPENED.load(Ordering::Relaxed)
}

/// Stages one file holds at most: one being filled, one queued and one being written.
const STAGES_PER_FILE: usize = 3;

/// A file opened for direct writes: the stage being filled, and the thread that writes full stages to disk
/// while the encoder goes on (a direct write waits for the device; the encoder waits only when the device
/// falls STAGES_PER_FILE - 1 chunks behind).
pub struct DirectFile {
    filling: Stage,
    staged: usize,
    stages: usize,
    to_disk: Option<SyncSender<Stage>>,
    written: Receiver<Stage>,
    writer: Option<JoinHandle<std::io::Result<File>>>,
}

impl DirectFile {
    /// A direct writer of the file at `path`, or None where direct I/O is not available there.
    pub fn open(path: &str) -> Option<DirectFile> {
        if std::env::var_os("DELTALITE_DIRECT_IO").as_deref() != Some(std::ffi::OsStr::new("1")) {
            return None;
        }
        let mut file = open_direct(path)?;
        let (to_disk, full) = sync_channel::<Stage>(1);
        let (give_written, written) = sync_channel::<Stage>(STAGES_PER_FILE);
        let writer = std::thread::Builder::new()
            .name("deltalite-direct-write".into())
            .spawn(move || {
                let mut at = 0u64;
                for mut stage in full {
                    write_chunk(&mut file, stage.bytes(), at)?;
                    at += CHUNK as u64;
                    let _ = give_written.send(stage);
                }
                Ok(file)
            })
            .ok()?;
        DIRECT_FILES_OPENED.fetch_add(1, Ordering::Relaxed);
        Some(DirectFile {
            filling: take_stage(),
            staged: 0,
            stages: 1,
            to_disk: Some(to_disk),
            written,
            writer: Some(writer),
        })
    }

    /// Sends the full stage to the writer thread and takes an empty one.
    fn send_full(&mut self) -> std::io::Result<()> {
        let next = match self.written.try_recv() {
            Ok(stage) => stage,
            Err(_) if self.stages < STAGES_PER_FILE => {
                self.stages += 1;
                take_stage()
            }
            Err(_) => match self.written.recv() {
                Ok(stage) => stage,
                Err(_) => return Err(self.writer_failure()),
            },
        };
        let full = std::mem::replace(&mut self.filling, next);
        self.staged = 0;
        let sent = self.to_disk.as_ref().map(|to_disk| to_disk.send(full));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(self.writer_failure()),
        }
    }

    /// The writer thread's error, once it has stopped.
    fn writer_failure(&mut self) -> std::io::Error {
        self.to_disk = None;
        match self.writer.take().map(|writer| writer.join()) {
            Some(Ok(Err(error))) => error,
            _ => std::io::Error::other("the direct writer thread stopped"),
        }
    }

    /// Waits for the full stages to reach the disk, writes the staged bytes through the cache and hands the
    /// complete file back as an ordinary one.
    pub fn finish(mut self) -> std::io::Result<File> {
        self.to_disk = None;
        let joined = self.writer.take().map(|writer| writer.join());
        let mut file = match joined {
            Some(Ok(result)) => result?,
            _ => return Err(std::io::Error::other("the direct writer thread stopped")),
        };
        while let Ok(stage) = self.written.try_recv() {
            give_back(stage);
        }
        clear_direct(&file)?;
        let staged = self.staged;
        let result = file.write_all(&self.filling.bytes()[..staged]);
        give_back(std::mem::replace(&mut self.filling, Stage::empty()));
        result.map(|()| file)
    }
}

impl Write for DirectFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let at = self.staged;
            let take = (CHUNK - at).min(rest.len());
            self.filling.bytes()[at..at + take].copy_from_slice(&rest[..take]);
            self.staged += take;
            rest = &rest[take..];
            if self.staged == CHUNK {
                self.send_full()?;
            }
        }
        Ok(bytes.len())
    }

    /// Nothing: a partial chunk cannot be written directly; `finish` writes it.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes one full chunk at offset `at` (where the file's position is). A filesystem that opened the file
/// for direct I/O but refuses a direct write (EINVAL: an alignment it does not take) gets this chunk and the
/// rest of the file through the cache instead.
fn write_chunk(file: &mut File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    match file.write_all(bytes) {
        Err(error) if is_refused_direct_write(&error) => {
            clear_direct(file)?;
            file.seek(SeekFrom::Start(at))?;
            file.write_all(bytes)
        }
        written => written,
    }
}

#[cfg(target_os = "linux")]
fn is_refused_direct_write(error: &std::io::Error) -> bool {
    error.raw_os_error() == Some(libc::EINVAL)
}

#[cfg(not(target_os = "linux"))]
fn is_refused_direct_write(_error: &std::io::Error) -> bool {
    false
}

#[cfg(target_os = "linux")]
fn open_direct(path: &str) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Opened, never created (as the cached path opens it); EINVAL: no direct I/O on this filesystem.
    std::fs::OpenOptions::new().read(true).write(true).truncate(true).custom_flags(libc::O_DIRECT).open(path).ok()
}

#[cfg(not(target_os = "linux"))]
fn open_direct(_path: &str) -> Option<File> {
    None
}

#[cfg(target_os = "linux")]
fn clear_direct(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn clear_direct(_file: &File) -> std::io::Result<()> {
    Ok(())
}
