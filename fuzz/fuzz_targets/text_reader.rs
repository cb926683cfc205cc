//! The text reader on arbitrary text: never a panic; what it reads encodes, validates with the same options, and reads straight to the same bytes (see `tests/common/checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::text_reader(data);
});
