//! serde (feature `serde`), one test binary: engine packets onto derived types and back, errors,
//! hostile input (`serde`), and memory bounded by the input (`serde_alloc`).

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread, for `serde_alloc`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;

#[cfg(feature = "serde")]
mod serde;
#[cfg(feature = "serde")]
mod serde_alloc;
