//! Reading, one test binary: the zero-copy views (`zero_copy`, also run under Miri by CI),
//! `to_owned`'s fast paths (`owned_paths`, also under Miri), paths into values (`paths`),
//! hand-written vectors (`vectors`, `vectors_*`), hostile input (`hostile`), no allocation while reading
//! (`no_alloc`), dialect detection (`detect`), length-prefixed streams (`framing`), and linear
//! work in the input (`linear`, `scaling`: feature `__count-reads`).
//!
//! `cargo test --test read <module>::` runs one module's tests.

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread, for `hostile`, `no_alloc` and `scaling`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;

mod detect;
mod framing;
mod hostile;
#[cfg(feature = "__count-reads")]
mod linear;
mod no_alloc;
mod owned_paths;
#[cfg(feature = "std")]
mod paths;
#[cfg(all(feature = "__count-reads", feature = "serde"))]
mod scaling;
mod vectors;
mod vectors_containers;
mod vectors_errors;
mod vectors_godot3;
mod vectors_mutations;
mod vectors_round_trip;
mod zero_copy;
