//! `validate_with`, the full lazy walk (every accessor, every element) and the pull-event
//! `Walker` must agree (see `tests/common/walk.rs`'s `agree`) for arbitrary bytes in both
//! dialects, with full objects allowed or not. Nothing may panic.
#![no_main]

use gdvariant::{Dialect, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
mod walk {
    include!("../../tests/common/walk.rs");
}

fuzz_target!(|data: &[u8]| {
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        for objects in [false, true] {
            let opts = ReadOptions::new().with_dialect(dialect).with_full_objects(objects);
            walk::agree("input", data, &opts);
        }
    }
});
