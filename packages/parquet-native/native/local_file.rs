//! A local data file opened for parquet-rs, refused unless it is the length the caller knows it by: as a `File`
//! (`open_local_file`), for reading a few parts of it, or, to decode the whole of it, mapped read-only where that
//! is safe (`map_local_file`), so its pages are read where the page cache holds them instead of being copied
//! out by `read` (a `File`'s `ChunkReader` also dups the descriptor and fills an 8 KiB buffer for every page
//! header). Elsewhere, or where the mapping fails, the file is read as parquet-rs reads a `File`.
//!
//! Measured (merge-engine BENCHMARKS.md, session 37; a 2-vCPU VM, interleaved pairs): a uniform 1M upsert's
//! call −39 ms and CPU −60 ms, a fixed-batch 8M one's −0.5 s and −1.0 s. The cost is memory: a mapped file's
//! pages stay resident in this process until the file is done (+10 MB peak RSS at 8M, whose files are 23 MB).
//! Dropping each consumed page range as parquet-rs let go of it (`MADV_DONTNEED`) cost more than the copy
//! saved: every call flushes the other CPU's TLB (+94 ms at uniform 1M). A file read only in part (the
//! probe's key column) is read with `read`: mapping and unmapping it cost more than copying a chunk out.
//!
//! A mapping is made only where a Delta data file cannot change under it: Delta never rewrites a data file in
//! place, and a file deleted while mapped (a vacuum) stays readable. A file truncated under the mapping would
//! fault; that is why only local file systems are mapped, never a network one (whose server may drop a file).

use std::fs::File;
use std::io::Read;
use std::sync::atomic::{AtomicU32, Ordering};

use bytes::Bytes;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::file::reader::{ChunkReader, Length};

/// The local file at `path`, refused unless it is `size` bytes long: `size` is the length the caller knows the
/// file by (a Delta Add's), and a Delta data file is never rewritten in place, so another length means another
/// file.
pub(crate) fn open_local_file(path: &str, size: f64) -> Result<File> {
    let file = File::open(path).map_err(|e| Error::from_reason(format!("cannot open {path}: {e}")))?;
    let length = file.metadata().map_err(|e| Error::from_reason(format!("cannot stat {path}: {e}")))?.len();
    if length as f64 != size {
        return Err(Error::from_reason(format!("{path} is {length} bytes, expected {size}")));
    }
    Ok(file)
}

static FILES_MAPPED: AtomicU32 = AtomicU32::new(0);

/// How many local files this process mapped to decode them (tests: whether the mapping ran).
#[napi]
pub fn files_mapped() -> u32 {
    FILES_MAPPED.load(Ordering::Relaxed)
}

/// `open_local_file`, mapped where that is safe (see the module's comment), to be decoded whole.
pub(crate) fn map_local_file(path: &str, size: f64) -> Result<LocalFile> {
    Ok(mapped(open_local_file(path, size)?, size as u64))
}

/// `file`, of `length` bytes, mapped where that is safe.
fn mapped(file: File, length: u64) -> LocalFile {
    match Mapping::of(&file, length) {
        Some(mapping) => {
            FILES_MAPPED.fetch_add(1, Ordering::Relaxed);
            LocalFile::Mapped(Bytes::from_owner(mapping))
        }
        None => LocalFile::Plain(file),
    }
}

/// A local file, mapped or read (see the module's comment).
pub(crate) enum LocalFile {
    Mapped(Bytes),
    Plain(File),
}

impl Length for LocalFile {
    fn len(&self) -> u64 {
        match self {
            LocalFile::Mapped(bytes) => bytes.len() as u64,
            LocalFile::Plain(file) => file.len(),
        }
    }
}

impl ChunkReader for LocalFile {
    type T = Box<dyn Read + Send>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(match self {
            LocalFile::Mapped(bytes) => Box::new(bytes.get_read(start)?),
            LocalFile::Plain(file) => Box::new(file.get_read(start)?),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        match self {
            LocalFile::Mapped(bytes) => bytes.get_bytes(start, length),
            LocalFile::Plain(file) => file.get_bytes(start, length),
        }
    }
}

/// A whole file mapped read-only; unmapped when the last `Bytes` made from it is dropped.
struct Mapping {
    start: usize,
    length: usize,
}

impl Mapping {
    #[cfg(target_os = "linux")]
    fn of(file: &File, length: u64) -> Option<Mapping> {
        use std::os::fd::AsRawFd;
        let length = usize::try_from(length).ok().filter(|&n| n > 0)?;
        if !on_local_file_system(file) {
            return None;
        }
        // SAFETY: a new read-only private mapping of an open file; no existing memory is touched.
        let start = unsafe {
            libc::mmap(std::ptr::null_mut(), length, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0)
        };
        (start != libc::MAP_FAILED).then_some(Mapping { start: start as usize, length })
    }

    #[cfg(not(target_os = "linux"))]
    fn of(_file: &File, _length: u64) -> Option<Mapping> {
        None
    }
}

impl AsRef<[u8]> for Mapping {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `start..start + length` is mapped readable for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.start as *const u8, self.length) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the whole mapping made by `Mapping::of`; nothing reads it any more (it is dropped with the last
        // `Bytes` made from it). Only Linux makes one.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::munmap(self.start as *mut libc::c_void, self.length)
        };
    }
}

/// Whether `file` lies on a local file system, whose files cannot vanish from under a mapping.
#[cfg(target_os = "linux")]
fn on_local_file_system(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // The magic numbers of statfs(2): ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, F2FS.
    const LOCAL: [i64; 6] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x794C_7630, 0xF2F5_2010];
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: fstatfs fills `stat` for an open descriptor, or fails and leaves it unread.
    if unsafe { libc::fstatfs(file.as_raw_fd(), stat.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: fstatfs succeeded, so `stat` is initialised. (`f_type`'s width differs between targets.)
    #[allow(clippy::unnecessary_cast)]
    let kind = unsafe { stat.assume_init() }.f_type as i64;
    LOCAL.contains(&kind)
}

// SAFETY: a mapping is read-only memory that no one writes; it is unmapped only when no reference is left.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

#[cfg(test)]
mod tests {
    //! A file read through its mapping reads the same bytes as the file read with `read`, refuses the same
    //! ranges outside it, and stays readable once deleted. (The length check is `open_local_file`'s, whose
    //! napi error the test binary cannot link: the JavaScript tests ask it.)

    use std::io::{Read, Write};

    use parquet::file::reader::{ChunkReader, Length};

    use super::{mapped, LocalFile};

    fn scratch_file(name: &str, bytes: &[u8]) -> (String, LocalFile) {
        let path = std::env::temp_dir().join(format!("deltalite-local-file-{}-{name}", std::process::id()));
        std::fs::File::create(&path).unwrap().write_all(bytes).unwrap();
        let file = mapped(std::fs::File::open(&path).unwrap(), bytes.len() as u64);
        (path.to_string_lossy().into_owned(), file)
    }

    fn contents(file: &LocalFile, start: u64, length: usize) -> (Vec<u8>, Vec<u8>) {
        let bytes = file.get_bytes(start, length).unwrap().to_vec();
        let mut read = Vec::new();
        file.get_read(start).unwrap().take(length as u64).read_to_end(&mut read).unwrap();
        (bytes, read)
    }

    #[test]
    fn mapped_and_read_files_read_the_same_bytes() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
        let (path, mapped) = scratch_file("same", &bytes);
        #[cfg(target_os = "linux")]
        assert_eq!(
            matches!(mapped, LocalFile::Mapped(_)),
            super::on_local_file_system(&std::fs::File::open(&path).unwrap()),
        );
        let read = LocalFile::Plain(std::fs::File::open(&path).unwrap());
        for (start, length) in [(0u64, 10usize), (4095, 2), (4096, 4096), (12_345, 200_000), (299_990, 10), (300_000, 0)] {
            let want = bytes[start as usize..start as usize + length].to_vec();
            for file in [&mapped, &read] {
                assert_eq!(file.len(), bytes.len() as u64);
                assert_eq!(contents(file, start, length), (want.clone(), want.clone()), "{start} + {length}");
            }
        }
        for (start, length) in [(299_999u64, 2usize), (250_000, 60_000), (u64::MAX, 1)] {
            assert!(mapped.get_bytes(start, length).is_err(), "mapped {start} + {length}");
            assert!(read.get_bytes(start, length).is_err(), "read {start} + {length}");
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_mapped_file_stays_readable_once_deleted() {
        let bytes = vec![7u8; 100_000];
        let (path, mapped) = scratch_file("deleted", &bytes);
        let held = mapped.get_bytes(50_000, 50_000).unwrap();
        std::fs::remove_file(&path).unwrap();
        drop(mapped);
        assert_eq!(held.to_vec(), vec![7u8; 50_000]);
    }
}
