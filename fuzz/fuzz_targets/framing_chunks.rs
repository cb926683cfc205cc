//! The incremental FrameDecoder fed in arbitrary chunks reports what `frames()` reports over the whole buffer (see `tests/common/checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::framing_chunks(data);
});
