//! The addon's large allocations (at least `LARGE_BYTES`): each a mapping of its own, and the freed ones kept
//! for reuse up to `KEPT_MAX_BYTES` in all, the longest-kept given back first. glibc serves such blocks from
//! its arenas instead. An upsert decodes and encodes thousands of 1–4 MiB pages and column chunks on several
//! threads (~14,000 at 8M rows with a fixed 10k batch), which fragments the arenas of every thread that
//! touched them, and that free memory stays in the process. With the blocks here that call's peak RSS fell
//! from ~362 to ~320 MB at the same call time (merge-engine BENCHMARKS.md, session 27). A freed mapping goes
//! back to the system; the kept ones spare the next block of a like size the page faults of a fresh mapping
//! (keeping none cost nearly twice the CPU there). From 256 KiB up the peak fell further (~290 MB) but 1M-row
//! calls took ~6% more CPU. Unix only: elsewhere all stays with the system.

use std::alloc::Layout;
use std::sync::Mutex;

/// Allocations from this size up get a mapping of their own.
const LARGE_BYTES: usize = 1024 * 1024;
/// Freed mappings kept for reuse, in bytes over all of them.
const KEPT_MAX_BYTES: usize = 32 * 1024 * 1024;
/// How many freed mappings may be kept.
const KEPT_SLOTS: usize = 64;
/// The page before a block holds its mapping's length (a block starts on a page).
const HEADER: usize = 4096;
/// Mapping lengths are multiples of this.
const GRAIN: usize = 64 * 1024;

/// Whether a block of `layout` is served here. By its size alone: `realloc` moves a block across when its size
/// crosses `LARGE_BYTES`, so the size a block is freed with always names its allocator.
pub(crate) fn is_large(layout: &Layout) -> bool {
    cfg!(unix) && layout.size() >= LARGE_BYTES && layout.align() <= HEADER
}

/// One kept mapping; a zero `start` is an empty slot.
#[derive(Clone, Copy)]
struct Slot {
    start: usize,
    length: usize,
    /// When it was kept (the order in which kept mappings are given back).
    kept_at: u64,
}

const EMPTY: Slot = Slot { start: 0, length: 0, kept_at: 0 };

struct Kept {
    slots: [Slot; KEPT_SLOTS],
    bytes: usize,
    clock: u64,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept { slots: [EMPTY; KEPT_SLOTS], bytes: 0, clock: 0 });

fn kept() -> std::sync::MutexGuard<'static, Kept> {
    KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn mapping_length(size: usize) -> usize {
    (size + HEADER).div_ceil(GRAIN) * GRAIN
}

/// The smallest kept mapping of `length` to twice `length` bytes, taken out of the kept set.
fn take_kept(length: usize) -> Option<Slot> {
    let mut kept = kept();
    let fitting = (0..KEPT_SLOTS).filter(|&i| {
        let slot = kept.slots[i];
        slot.start != 0 && slot.length >= length && slot.length <= 2 * length
    });
    let best = fitting.min_by_key(|&i| kept.slots[i].length)?;
    let slot = kept.slots[best];
    kept.slots[best] = EMPTY;
    kept.bytes -= slot.length;
    Some(slot)
}

/// Keeps a freed mapping for reuse, giving the longest-kept ones back to the system to make room for it.
fn keep(start: usize, length: usize) {
    let mut given_back = [(0, 0); KEPT_SLOTS + 1];
    let mut count = 0;
    let stored = length <= KEPT_MAX_BYTES && {
        let mut kept = kept();
        loop {
            let free = kept.slots.iter().position(|s| s.start == 0);
            if let (Some(free), true) = (free, kept.bytes + length <= KEPT_MAX_BYTES) {
                kept.clock += 1;
                kept.slots[free] = Slot { start, length, kept_at: kept.clock };
                kept.bytes += length;
                break true;
            }
            let slots = &kept.slots;
            let Some(oldest) = (0..KEPT_SLOTS).filter(|&i| slots[i].start != 0).min_by_key(|&i| slots[i].kept_at)
            else {
                break false;
            };
            let slot = kept.slots[oldest];
            kept.slots[oldest] = EMPTY;
            kept.bytes -= slot.length;
            given_back[count] = (slot.start, slot.length);
            count += 1;
        }
    };
    if !stored {
        given_back[count] = (start, length);
        count += 1;
    }
    // Unmapped outside the lock: munmap waits for the other threads' TLBs.
    for &(start, length) in &given_back[..count] {
        unmap(start, length);
    }
}

/// Linux faults a new mapping's pages in at once: a 1M-row upsert took 3–5% less CPU than faulting them page by
/// page as they are touched, for ~10 MB more peak RSS (the pages of a block's spare capacity are in too).
#[cfg(target_os = "linux")]
const POPULATE: libc::c_int = libc::MAP_POPULATE;
#[cfg(all(unix, not(target_os = "linux")))]
const POPULATE: libc::c_int = 0;

#[cfg(unix)]
fn map(length: usize) -> Option<usize> {
    // SAFETY: an anonymous private mapping; no existing memory is touched.
    let start = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            length,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | POPULATE,
            -1,
            0,
        )
    };
    (start != libc::MAP_FAILED).then_some(start as usize)
}

#[cfg(unix)]
fn unmap(start: usize, length: usize) {
    // SAFETY: `start..start + length` is a whole mapping made by `map` that nothing uses any more.
    unsafe { libc::munmap(start as *mut libc::c_void, length) };
}

#[cfg(not(unix))]
fn map(_length: usize) -> Option<usize> {
    None
}

#[cfg(not(unix))]
fn unmap(_start: usize, _length: usize) {}

/// A block of `size` bytes (zeroed when `zeroed`), or null when the system refuses. Only for a `size` that
/// `is_large` accepts.
///
/// # Safety
/// As `GlobalAlloc::alloc`.
pub(crate) unsafe fn alloc(size: usize, zeroed: bool) -> *mut u8 {
    let wanted = mapping_length(size);
    let (start, length, fresh) = match take_kept(wanted) {
        Some(slot) => (slot.start, slot.length, false),
        None => match map(wanted) {
            Some(start) => (start, wanted, true),
            None => return std::ptr::null_mut(),
        },
    };
    *(start as *mut usize) = length;
    let block = (start + HEADER) as *mut u8;
    if zeroed && !fresh {
        std::ptr::write_bytes(block, 0, size);
    }
    block
}

/// Frees a block `alloc` returned.
///
/// # Safety
/// As `GlobalAlloc::dealloc`.
pub(crate) unsafe fn dealloc(block: *mut u8) {
    let start = block as usize - HEADER;
    keep(start, *(start as *const usize));
}

/// Whether the mapping of `block` has room for `size` bytes, so it can grow or shrink in place.
///
/// # Safety
/// `block` came from `alloc` and is not freed.
pub(crate) unsafe fn fits(block: *mut u8, size: usize) -> bool {
    let start = block as usize - HEADER;
    size + HEADER <= *(start as *const usize)
}

#[cfg(test)]
mod tests {
    //! The allocator as Rust code meets it (this crate's `#[global_allocator]` serves the test binary too):
    //! random allocations, reallocations across `LARGE_BYTES` both ways, and frees, each block filled with its
    //! own byte and checked before every change, so a block that two owners share or a lost copy shows.

    use super::*;
    use std::alloc::{alloc, alloc_zeroed, dealloc, realloc};

    /// xorshift64*: the test's random numbers without a crate.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn size(&mut self) -> usize {
            // Half below LARGE_BYTES, half up to 8 MiB, so reallocations cross it often.
            match self.next() % 4 {
                0 => 1 + (self.next() % 4096) as usize,
                1 => LARGE_BYTES / 2 + (self.next() % LARGE_BYTES as u64) as usize,
                _ => LARGE_BYTES + (self.next() % (8 << 20)) as usize,
            }
        }
    }

    struct Block {
        ptr: *mut u8,
        layout: Layout,
        fill: u8,
    }

    unsafe fn check(block: &Block) {
        let bytes = std::slice::from_raw_parts(block.ptr, block.layout.size());
        assert!(bytes.iter().all(|&b| b == block.fill), "a block of {} bytes lost its contents", bytes.len());
    }

    #[test]
    fn blocks_keep_their_bytes_through_alloc_realloc_and_free() {
        let mut random = Random(0x9E37_79B9_7F4A_7C15);
        let mut live: Vec<Block> = Vec::new();
        for step in 0..4000u32 {
            let fill = (step % 251) as u8 + 1;
            match random.next() % 3 {
                0 if live.len() < 24 => unsafe {
                    let align = [8, 64, 4096][(random.next() % 3) as usize];
                    let layout = Layout::from_size_align(random.size(), align).unwrap();
                    let zeroed = random.next() % 2 == 0;
                    let ptr = if zeroed { alloc_zeroed(layout) } else { alloc(layout) };
                    assert!(!ptr.is_null());
                    assert_eq!(ptr as usize % align, 0);
                    if zeroed {
                        let bytes = std::slice::from_raw_parts(ptr, layout.size());
                        assert!(bytes.iter().all(|&b| b == 0), "alloc_zeroed gave a dirty block");
                    }
                    std::ptr::write_bytes(ptr, fill, layout.size());
                    live.push(Block { ptr, layout, fill });
                },
                1 if !live.is_empty() => unsafe {
                    let at = (random.next() % live.len() as u64) as usize;
                    let block = &mut live[at];
                    check(block);
                    let size = random.size();
                    let ptr = realloc(block.ptr, block.layout, size);
                    assert!(!ptr.is_null());
                    let kept = block.layout.size().min(size);
                    let bytes = std::slice::from_raw_parts(ptr, kept);
                    assert!(bytes.iter().all(|&b| b == block.fill), "realloc lost the block's bytes");
                    std::ptr::write_bytes(ptr, fill, size);
                    *block = Block { ptr, layout: Layout::from_size_align(size, block.layout.align()).unwrap(), fill };
                },
                _ if !live.is_empty() => unsafe {
                    let block = live.swap_remove((random.next() % live.len() as u64) as usize);
                    check(&block);
                    dealloc(block.ptr, block.layout);
                },
                _ => {}
            }
            assert!(kept().bytes <= KEPT_MAX_BYTES);
        }
        for block in live {
            unsafe {
                check(&block);
                dealloc(block.ptr, block.layout);
            }
        }
    }

    #[test]
    fn a_reused_block_is_zeroed_when_asked() {
        unsafe {
            let layout = Layout::from_size_align(LARGE_BYTES * 3, 8).unwrap();
            let dirty = alloc(layout);
            std::ptr::write_bytes(dirty, 0xAB, layout.size());
            dealloc(dirty, layout);
            // The same size again comes from the kept mapping (or a fresh one): zeroed either way.
            let again = alloc_zeroed(layout);
            let bytes = std::slice::from_raw_parts(again, layout.size());
            assert!(bytes.iter().all(|&b| b == 0));
            dealloc(again, layout);
        }
    }
}
