//! The engine's text form and JSON, one test binary: the printers' stack and memory bounds and
//! API (`printers`), and what the text form cannot carry (`text_loss`); and the repository's own
//! Markdown text: links that resolve, a README that stays short (`docs`).

#[path = "../common/mod.rs"]
mod common;

/// Counts allocations per thread, for `printers`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;

mod docs;
#[cfg(feature = "std")]
mod printers;
#[cfg(feature = "std")]
mod text_loss;
