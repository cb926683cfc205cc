//! serde (feature `serde`), one test binary: engine packets onto derived types and back, errors
//! (`serde`), what the engine reads (`serde_engine`), a struct's fields on the fast paths
//! (`serde_fields`), hostile input (`serde_hostile`), the writers (`serde_write`), and memory
//! bounded by the input (`serde_alloc`).

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread, for `serde_alloc`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;

#[cfg(feature = "serde")]
mod serde;
#[cfg(feature = "serde")]
mod serde_alloc;
#[cfg(feature = "serde")]
mod serde_engine;
#[cfg(feature = "serde")]
mod serde_fields;
#[cfg(feature = "serde")]
mod serde_hostile;
#[cfg(feature = "serde")]
mod serde_write;
