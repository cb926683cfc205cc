//! The encoder: byte-exact with the engine's `var_to_bytes` / `var_to_bytes_with_objects`.
//!
//! [`encode`] writes a [`Variant`] with the Godot 4 defaults, [`encode_with`] and
//! [`encode_into`] take [`EncodeOptions`]. The streaming [`Writer`](crate::Writer) shares the
//! code below, so both produce identical bytes.
//!
//! The files, each using only those listed before it: `options` ([`EncodeOptions`]),
//! `primitives` (the encoder's state, words, headers and the values of a few words), `strings`
//! (strings, NodePath, Signal), `packed` (packed arrays), `containers` (container heads, raw
//! values, the `script` rule), `tree` (a whole value, iteratively), and here the entry points.
//!
//! Canonical choices, as the engine makes them (see the crate's format notes): header bits 8–15
//! zero; an int in 32 bits when it fits, else 64 bits with the flag; a float as f32 when
//! `(f64)(f32)d == d` (so NaN is always f64); Color always f32; zero padding after strings,
//! byte arrays and NodePath strings; PackedStringArray entries with a NUL; dictionaries in
//! insertion order; a null object as a bare Nil header; a Godot 3 RID as a bare header.

use alloc::vec::Vec;

use crate::error::Result;
use crate::owned::Variant;

mod containers;
mod options;
mod packed;
mod primitives;
mod strings;
mod tree;

pub use options::EncodeOptions;
pub(crate) use primitives::{Enc, IdCache};

/// Encodes `v` as Godot 4's `var_to_bytes` does.
///
/// Errors (never panics) for what the format cannot hold: a string longer than 2^31 - 1 bytes,
/// a full object (see [`EncodeOptions::full_objects`]), nesting deeper than 1024, a
/// [`Variant::Raw`] of the other dialect.
///
/// ```
/// use gdvariant::Variant;
/// assert_eq!(gdvariant::encode(&Variant::Int(42)).unwrap(), [2, 0, 0, 0, 42, 0, 0, 0]);
/// assert_eq!(gdvariant::encode(&Variant::Float(0.1)).unwrap().len(), 12); // needs f64
/// ```
pub fn encode(v: &Variant) -> Result<Vec<u8>> {
    encode_with(v, &EncodeOptions::new())
}

/// Encodes `v` with the given options into a new buffer; see [`encode`].
///
/// ```
/// use gdvariant::{EncodeOptions, Variant, ErrorKind};
/// let v = Variant::Vector4(Default::default());
/// let err = gdvariant::encode_with(&v, &EncodeOptions::godot3()).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::UnsupportedInDialect { .. }));
/// ```
pub fn encode_with(v: &Variant, opts: &EncodeOptions) -> Result<Vec<u8>> {
    // Most packets fit: one allocation, no growth.
    let mut out = Vec::with_capacity(256);
    encode_into(v, &mut out, opts)?;
    Ok(out)
}

/// Appends the encoding of `v` to `out`. On error `out` is left as it was, and the error's
/// offset is relative to where the value would have started.
///
/// ```
/// use gdvariant::{EncodeOptions, Variant};
/// let mut buf = vec![0xAA];
/// gdvariant::encode_into(&Variant::Bool(true), &mut buf, &EncodeOptions::new()).unwrap();
/// assert_eq!(buf, [0xAA, 1, 0, 0, 0, 1, 0, 0, 0]);
/// ```
pub fn encode_into(v: &Variant, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
    let start = out.len();
    let mut ids = IdCache::new();
    let mut e = Enc {
        out,
        base: start,
        opts,
        ids: &mut ids,
        depth: 0,
    };
    let res = e.tree(v, 0);
    if res.is_err() {
        out.truncate(start);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::owned::Object;
    use crate::types::Dialect;

    /// What the writer emits reads back as the value written, or the writer refuses it: a NUL
    /// would end the string on read (refused); a leading BOM would be stripped (written with a
    /// second BOM before it). Issue reproducers: `"a\0b"` read back as `"a"`, an Object of class
    /// `"\u{feff}"` as a null object.
    #[test]
    fn strings_are_written_to_read_back_whole_or_refused() {
        let opts = [
            EncodeOptions::new(),
            EncodeOptions::new().with_dialect(Dialect::Godot3),
        ];
        let read = |o: &EncodeOptions| {
            crate::types::ReadOptions::new()
                .with_dialect(o.dialect())
                .with_full_objects(true)
        };
        let back = |v: &Variant, o: &EncodeOptions| {
            let bytes = encode_with(v, o).unwrap();
            crate::read::parse_with(&bytes, &read(o))
                .unwrap()
                .to_owned()
                .unwrap()
        };
        for o in &opts {
            for s in ["a\0b", "\0", "abcdefgh\0", "\u{feff}\0"] {
                for v in [
                    Variant::from(s),
                    Variant::from(vec![Variant::Int(1), Variant::from(s)]),
                    Variant::PackedStringArray(vec!["ok".into(), s.into()]),
                ] {
                    let e = encode_with(&v, o).unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::UnwritableString, "{v:?}");
                }
            }
            for s in [
                "\u{feff}x",
                "\u{feff}",
                "\u{feff}\u{feff}i",
                "x\u{feff}",
                "",
                "plain",
            ] {
                for v in [
                    Variant::from(s),
                    Variant::from(vec![Variant::Int(1), Variant::from(s)]),
                    Variant::PackedStringArray(vec!["ok".into(), s.into(), "tail".into()]),
                ] {
                    assert_eq!(back(&v, o), v, "{s:?}");
                }
            }
        }
        let g4 = EncodeOptions::new();
        assert_eq!(
            encode(&Variant::from("\u{feff}x")).unwrap(),
            [4, 0, 0, 0, 7, 0, 0, 0, 0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, b'x', 0]
        );
        assert_eq!(
            back(&Variant::StringName("\u{feff}n".into()), &g4),
            Variant::StringName("\u{feff}n".into())
        );
        // The issue's object: class "\u{feff}", one property, inside an array.
        let obj = Variant::Object(Box::new(Object::Full {
            class: "\u{feff}".into(),
            properties: vec![("a".into(), Variant::Int(1))],
        }));
        let full = EncodeOptions::new().with_full_objects(true);
        let v = Variant::from(vec![obj, Variant::Int(5)]);
        assert_eq!(back(&v, &full), v);
        let prop = Variant::Object(Box::new(Object::Full {
            class: "Node".into(),
            properties: vec![("a\0".into(), Variant::Int(1))],
        }));
        let e = encode_with(&prop, &full).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::UnwritableString, 16));
    }
}
