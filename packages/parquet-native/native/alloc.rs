//! The addon's global allocator: large blocks from `large_blocks.rs`, the rest from the system allocator, and the
//! heap accounting over both: the bytes held and their high-water mark, the native counterpart of
//! parquet-wasm's WebAssembly memory size (which only grows).

use napi_derive::napi;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::large_blocks::{self, is_large};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = HELD.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = if is_large(&layout) { large_blocks::alloc(layout.size(), false) } else { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr =
            if is_large(&layout) { large_blocks::alloc(layout.size(), true) } else { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(&layout) {
            large_blocks::dealloc(ptr);
        } else {
            System.dealloc(ptr, layout);
        }
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = resize(ptr, layout, new_size);
        if !moved.is_null() {
            HELD.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        moved
    }
}

/// `realloc` across the two allocators: a block moves to the one its new size belongs to (`is_large`). A large
/// block grows by a copy into a new one, as Vec's doubling then frees blocks of the sizes the next such Vec
/// asks for (growing the mapping in place with mremap measured worse: the kept set filled with grown blocks of
/// sizes asked for rarely, and 18–97% of large allocations, by the rule for giving kept ones back, found no
/// kept mapping instead of ~2–5%).
unsafe fn resize(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    let wanted = Layout::from_size_align_unchecked(new_size, layout.align());
    match (is_large(&layout), is_large(&wanted)) {
        (false, false) => System.realloc(ptr, layout, new_size),
        (true, true) if large_blocks::fits(ptr, new_size) => ptr,
        (was_large, now_large) => {
            let moved = if now_large { large_blocks::alloc(new_size, false) } else { System.alloc(wanted) };
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                if was_large {
                    large_blocks::dealloc(ptr);
                } else {
                    System.dealloc(ptr, layout);
                }
            }
            moved
        }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The most bytes the addon's heap has held at once in this process (every thread's streams together).
#[napi]
pub fn heap_high_water_bytes() -> f64 {
    PEAK.load(Ordering::Relaxed) as f64
}

/// The bytes the addon's heap holds now (tests: whether a released result's bytes are freed).
#[napi]
pub fn heap_held_bytes() -> f64 {
    HELD.load(Ordering::Relaxed) as f64
}
