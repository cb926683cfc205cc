//! The serde fuzz target's checks, shared with the stable corpus replay (`tests/fuzz_corpus.rs`):
//! for arbitrary bytes, `from_slice` never panics; skipping a value (`IgnoredAny`) accepts
//! exactly what `validate` accepts; a `Variant` read through serde is `to_owned`'s and writes
//! back `encode`'s bytes; derived and generic targets only ever fail with an error.

use std::collections::BTreeMap;

use gdvariant::{EncodeOptions, ReadOptions, Variant};
use serde::de::IgnoredAny;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct Probe<'a> {
    id: Option<i64>,
    name: Option<&'a str>,
    pos: Option<gdvariant::Vector3>,
    #[serde(borrow)]
    tags: Option<Vec<&'a str>>,
    #[serde(default)]
    rest: BTreeMap<String, IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub enum Msg<'a> {
    Ping,
    Move(gdvariant::Vector2),
    Say { text: &'a str },
    Data(#[serde(borrow)] gdvariant::serde_with::Packed<'a, f32>),
}

pub fn serde_agree(data: &[u8], opts: &ReadOptions) {
    let valid = gdvariant::validate_with(data, opts).is_ok();
    let skipped = gdvariant::from_slice_with::<IgnoredAny>(data, opts);
    assert_eq!(
        skipped.is_ok(),
        valid,
        "IgnoredAny vs validate: {skipped:?} ({opts:?})"
    );
    match gdvariant::from_slice_with::<Variant>(data, opts) {
        Ok(v) => {
            assert!(valid, "a Variant from input validate rejects ({opts:?})");
            let lazy = gdvariant::parse_with(data, opts)
                .unwrap()
                .to_owned()
                .unwrap();
            assert_eq!(v, lazy, "serde Variant vs to_owned ({opts:?})");
            let eopts = EncodeOptions::new()
                .with_dialect(opts.dialect())
                .with_full_objects(opts.full_objects());
            let via_serde = gdvariant::to_vec_with(&v, &eopts);
            let tree = gdvariant::encode_with(&v, &eopts);
            if let Err(e) = &via_serde {
                if nesting(data, opts) >= gdvariant::ser::RECURSION_LIMIT {
                    // serde's own limit on writing, which bounds its native recursion.
                    assert!(e.to_string().contains("nesting limit"), "{e}");
                    return;
                }
            }
            assert_eq!(
                via_serde.as_ref().ok(),
                tree.as_ref().ok(),
                "serde to_vec vs encode ({opts:?}): {:?} vs {:?}",
                via_serde.as_ref().err(),
                tree.as_ref().err()
            );
        }
        Err(e) => {
            // Only Godot 3 text that Rust's str refuses may pass validate and fail here.
            if valid {
                assert!(
                    e.format_error().map(|f| f.kind()) == Some(gdvariant::ErrorKind::NotRustUtf8),
                    "valid input failed as a Variant: {e} ({opts:?})"
                );
            }
        }
    }
    let _ = gdvariant::from_slice_with::<Probe<'_>>(data, opts);
    let _ = gdvariant::from_slice_with::<Vec<Msg<'_>>>(data, opts);
    let _ = gdvariant::from_slice_with::<BTreeMap<String, Vec<f64>>>(data, opts);
    let _ = gdvariant::from_slice_with::<(i64, String, Option<bool>)>(data, opts);
    let _ = gdvariant::from_slice_with::<gdvariant::VariantRef<'_>>(data, opts);
}

/// The deepest nesting of open containers in the (valid) value.
fn nesting(data: &[u8], opts: &ReadOptions) -> usize {
    let mut w = gdvariant::Walker::new(data, opts);
    let mut deepest = 0;
    while let Ok(Some(_)) = w.next_event() {
        deepest = deepest.max(w.depth() as usize);
    }
    deepest
}
