//! Streaming Writer operation sequences give `encode`'s bytes for the tree the accepted operations describe (see `tests/common/checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::writer_ops(data);
});
