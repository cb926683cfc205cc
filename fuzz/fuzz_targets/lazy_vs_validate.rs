//! `validate_with` and the full lazy walk (every accessor, every element) must agree on accept
//! or reject, and on the length when both accept, for arbitrary bytes in both dialects, with
//! full objects allowed or not. Nothing may panic.
#![no_main]

use gdvariant::{Dialect, Options};
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
mod walk {
    include!("../../tests/common/walk.rs");
}

fuzz_target!(|data: &[u8]| {
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        for objects in [false, true] {
            let opts = Options::new().dialect(dialect).allow_objects(objects);
            let val = gdvariant::validate_with(data, &opts);
            let lazy = walk::lazy_accept(data, &opts);
            match (&val, &lazy) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{dialect} objects={objects}: lengths"),
                (Err(_), Err(_)) => {}
                _ => panic!("{dialect} objects={objects}: validate {val:?}, lazy walk {lazy:?}"),
            }
            if let Ok(n) = val {
                // A valid value is also found by parse_prefix, with the same length.
                let (v, used) = gdvariant::parse_prefix(data, &opts).expect("parse_prefix");
                assert_eq!(used, n);
                assert_eq!(v.raw().map(<[u8]>::len), Ok(n));
                assert_eq!(v.validate(), Ok(n));
            }
        }
    }
});
