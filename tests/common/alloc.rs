//! The counting allocator of the tests that measure allocation (reading allocates nothing,
//! hostile counts allocate nothing, serde's and the printers' memory bounds, the scaling
//! tests' allocated and peak bytes). A test binary that uses it declares it once, in its
//! `main.rs`:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: common::alloc::Counting = common::alloc::Counting;
//! ```
//!
//! Every count is the current thread's own (const-initialised thread-locals): the other tests
//! of the binary, running in parallel on their own threads, never disturb a measurement, and a
//! measurement sees what the code it runs allocates on its own thread (not on threads it
//! spawns). [`measure`] checks that the allocator is the binary's global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Wraps the system allocator and counts, per thread, the calls that ask for memory, the bytes
/// they ask for, and the live bytes and their peak since the current measurement started.
pub struct Counting;

struct Counters {
    /// `alloc`, `alloc_zeroed` and `realloc` calls since the thread started.
    allocations: Cell<usize>,
    /// The bytes those calls asked for (a `realloc`, its whole new size).
    bytes: Cell<u64>,
    /// The bytes allocated since the measurement started and not freed yet. Freeing memory
    /// allocated before (or on another thread) never takes it below zero.
    live: Cell<u64>,
    /// The most `live` has been since the measurement started.
    peak: Cell<u64>,
    /// Whether a measurement is running (they do not nest).
    measuring: Cell<bool>,
}

thread_local! {
    static COUNTERS: Counters = const {
        Counters {
            allocations: Cell::new(0),
            bytes: Cell::new(0),
            live: Cell::new(0),
            peak: Cell::new(0),
            measuring: Cell::new(false),
        }
    };
}

fn grow(size: usize) {
    // `try_with`: thread-locals may be gone while a thread shuts down.
    let _ = COUNTERS.try_with(|c| {
        c.allocations.set(c.allocations.get() + 1);
        c.bytes.set(c.bytes.get() + size as u64);
        c.live.set(c.live.get() + size as u64);
        c.peak.set(c.peak.get().max(c.live.get()));
    });
}

fn shrink(size: usize) {
    let _ = COUNTERS.try_with(|c| c.live.set(c.live.get().saturating_sub(size as u64)));
}

// SAFETY: every call is forwarded unchanged to `System`; the counting only touches a
// const-initialised thread-local of `Cell`s, which never allocates and has no destructor.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The new block counts before the old one goes: a moving realloc holds both.
        grow(new_size);
        shrink(layout.size());
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        System.dealloc(ptr, layout)
    }
}

/// What the current thread allocated while a closure ran (see [`measure`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Calls that asked for memory: `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: usize,
    /// The bytes they asked for (a `realloc`, its whole new size).
    pub bytes: u64,
    /// The most heap bytes live at once that the closure allocated (freeing memory allocated
    /// before it started does not count in its favour).
    pub peak: u64,
}

/// Runs `f` and returns its result and what this thread allocated meanwhile. The result is
/// dropped by the caller, after the measurement. Measurements do not nest.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    assert_installed();
    let (allocations, bytes) = COUNTERS.with(|c| {
        assert!(!c.measuring.replace(true), "nested allocation measurements");
        c.live.set(0);
        c.peak.set(0);
        (c.allocations.get(), c.bytes.get())
    });
    let r = f();
    let usage = COUNTERS.with(|c| {
        c.measuring.set(false);
        Usage {
            allocations: c.allocations.get() - allocations,
            bytes: c.bytes.get() - bytes,
            peak: c.peak.get(),
        }
    });
    (r, usage)
}

/// Runs `f`; its result and the number of allocations it made on this thread.
pub fn count_allocs<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let (r, usage) = measure(f);
    (r, usage.allocations)
}

/// The bytes `f` asked for on this thread.
pub fn allocated_by(f: impl FnOnce()) -> usize {
    measure(f).1.bytes as usize
}

/// Panics unless [`Counting`] is this binary's global allocator: without it every count would
/// be zero and every "allocates nothing" check would pass.
fn assert_installed() {
    let before = COUNTERS.with(|c| c.allocations.get());
    drop(std::hint::black_box(Box::new(0u8)));
    assert!(
        COUNTERS.with(|c| c.allocations.get()) > before,
        "this test binary's main.rs must declare common::alloc::Counting its #[global_allocator]"
    );
}
