//! parse → to_owned → encode → parse is a fixed point that validates, both dialects, objects or not (see `tests/common/checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::owned_round_trip(data);
});
