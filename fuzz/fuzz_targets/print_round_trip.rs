//! Print → read back for every value the binary reader accepts, both dialects: JSON gives back `to_owned`'s value exactly; every text loss has a listed reason (see `tests/common/checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::print_round_trip(data);
});
