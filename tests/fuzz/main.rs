//! Generated inputs, one test binary: the committed fuzz corpora replayed with each fuzz
//! target's checks (`fuzz_corpus`), and property tests over random trees (`proptest`).

#[path = "../common/mod.rs"]
mod common;

mod fuzz_corpus;
mod proptest;
