//! serde's `from_slice` on arbitrary bytes, both dialects, full objects allowed or not: never a
//! panic; `IgnoredAny` accepts exactly what `validate` accepts; a `Variant` read through serde
//! is `to_owned`'s and writes `encode`'s bytes (see `tests/common/serde_check.rs`).
#![no_main]

use gdvariant::{Dialect, ReadOptions};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/serde_check.rs"]
mod serde_check;

fuzz_target!(|data: &[u8]| {
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        for objects in [false, true] {
            let opts = ReadOptions::new().with_dialect(dialect).with_full_objects(objects);
            serde_check::serde_agree(data, &opts);
        }
    }
});
