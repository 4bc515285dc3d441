//! A counting global allocator: the system allocator, plus a count of the heap bytes live at any moment.
// `GlobalAlloc` is an unsafe trait whose methods are unsafe to call; this
// wrapper only forwards each call unchanged to `System` and counts sizes.
// The workspace forbids `unsafe`, and this crate denies it outside this
// module (`cargo xtask audit` holds that).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live on the heap.
///
/// Install it in a benchmark binary and read [`CountingAlloc::live_bytes`]
/// before and after building a structure: the difference is what the
/// structure holds (requested sizes, without the allocator's own overhead).
///
/// ```no_run
/// #[global_allocator]
/// static ALLOC: bench_tree::CountingAlloc = bench_tree::CountingAlloc::new();
///
/// let before = ALLOC.live_bytes();
/// let kept = vec![0u8; 4096];
/// assert!(ALLOC.live_bytes() - before >= 4096);
/// # drop(kept);
/// ```
#[derive(Debug, Default)]
pub struct CountingAlloc {
    live: AtomicUsize,
}

impl CountingAlloc {
    /// A counter at zero, for a `static`.
    pub const fn new() -> Self {
        CountingAlloc {
            live: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated and not yet freed, counted since the program started
    /// (when installed as the global allocator).
    pub fn live_bytes(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds `GlobalAlloc`'s contract; the counting touches no memory it hands
// out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`,
        // with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and `new_size` obeys `realloc`'s
        // contract, as the caller guarantees.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            self.live.fetch_add(new_size, Ordering::Relaxed);
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        new
    }
}
