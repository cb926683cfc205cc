//! The serde fuzz target's checks, shared with the stable corpus replay
//! (`tests/fuzz/fuzz_corpus.rs`): for arbitrary bytes, `from_slice` never panics; skipping a value
//! (`IgnoredAny`) accepts exactly what `validate` accepts, failing with the same error (kind and
//! offset); a `Variant` read through serde is `to_owned`'s and writes back `encode`'s bytes;
//! derived and generic targets (which run the deserializer's fast paths) succeed only on input
//! `validate` accepts, and a format error they report is exactly `validate`'s.

use std::collections::BTreeMap;

use gdvariant::{EncodeOptions, ReadOptions, Variant};
use serde::de::IgnoredAny;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct Probe<'a> {
    id: Option<i64>,
    name: Option<&'a str>,
    pos: Option<gdvariant::math::Vector3>,
    #[serde(borrow)]
    tags: Option<Vec<&'a str>>,
    #[serde(default)]
    rest: BTreeMap<String, IgnoredAny>,
}

/// A value that swallows its own error (as some user types do).
#[derive(Debug)]
pub struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Lenient(T::deserialize(d).ok()))
    }
}

/// The benchmarks' entity, every field a fast path: ints, floats, borrowed strings, math types,
/// a PackedStringArray (or Array) of strings, a nested struct and an unknown field skipped.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct Entity<'a> {
    id: i64,
    name: &'a str,
    pos: gdvariant::math::Vector3,
    vel: Option<gdvariant::math::Vector3i>,
    hp: f32,
    color: Option<gdvariant::math::Color>,
    ok: Option<bool>,
    #[serde(borrow)]
    tags: Vec<&'a str>,
    inner: Option<Box<Entity<'a>>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub enum Msg<'a> {
    Ping,
    Move(gdvariant::math::Vector2),
    Say { text: &'a str },
    Data(#[serde(borrow)] gdvariant::serde_with::Packed<'a, f32>),
}

/// A typed target's result against `validate`'s: success only on valid input, and a format
/// error (but text only Godot 3 accepts, which Rust's `str` refuses) exactly `validate`'s.
fn typed_agrees<T: std::fmt::Debug>(
    what: &str,
    res: &Result<T, gdvariant::de::Error>,
    validated: &Result<usize, gdvariant::Error>,
    opts: &ReadOptions,
) {
    match res {
        Ok(v) => assert!(
            validated.is_ok(),
            "{what}: {v:?} from input validate rejects: {validated:?} ({opts:?})"
        ),
        Err(e) => {
            if let Some(f) = e.format_error() {
                if f.kind() != gdvariant::ErrorKind::NotRustUtf8 {
                    assert_eq!(
                        Err(f),
                        validated.clone().map(drop),
                        "{what}: format error {e} vs validate ({opts:?})"
                    );
                }
            }
        }
    }
}

pub fn serde_agree(data: &[u8], opts: &ReadOptions) {
    let validated = gdvariant::validate_with(data, opts);
    let valid = validated.is_ok();
    let skipped = gdvariant::de::from_slice_with::<IgnoredAny>(data, opts);
    match (&skipped, &validated) {
        (Ok(_), Ok(_)) => {}
        (Err(e), Err(v)) => assert_eq!(
            e.format_error(),
            Some(v.clone()),
            "IgnoredAny vs validate: {e} ({opts:?})"
        ),
        _ => panic!("IgnoredAny vs validate: {skipped:?} vs {validated:?} ({opts:?})"),
    }
    match gdvariant::de::from_slice_with::<Variant>(data, opts) {
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
            let via_serde = gdvariant::ser::to_vec_with(&v, &eopts);
            // `to_vec` writes straight into its output, `to_writer` through the streaming
            // writer's checks: the same bytes, or the same error.
            let mut w = gdvariant::Writer::new(eopts);
            let streamed = gdvariant::ser::to_writer(&mut w, &v).and_then(|()| Ok(w.finish()?));
            assert_eq!(via_serde, streamed, "serde to_vec vs to_writer ({opts:?})");
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
    typed_agrees(
        "Probe",
        &gdvariant::de::from_slice_with::<Probe<'_>>(data, opts),
        &validated,
        opts,
    );
    typed_agrees(
        "Vec<Msg>",
        &gdvariant::de::from_slice_with::<Vec<Msg<'_>>>(data, opts),
        &validated,
        opts,
    );
    typed_agrees(
        "BTreeMap<String, Vec<f64>>",
        &gdvariant::de::from_slice_with::<BTreeMap<String, Vec<f64>>>(data, opts),
        &validated,
        opts,
    );
    typed_agrees(
        "(i64, String, Option<bool>)",
        &gdvariant::de::from_slice_with::<(i64, String, Option<bool>)>(data, opts),
        &validated,
        opts,
    );
    typed_agrees(
        "Vec<Entity>",
        &gdvariant::de::from_slice_with::<Vec<Entity<'_>>>(data, opts),
        &validated,
        opts,
    );
    typed_agrees(
        "HashMap<&str, (Option<f32>, Vec<&str>)>",
        &gdvariant::de::from_slice_with::<std::collections::HashMap<&str, (Option<f32>, Vec<&str>)>>(
            data, opts,
        ),
        &validated,
        opts,
    );
    // Types that swallow errors (a `T::deserialize(d).ok()` field) may go on reading after
    // one: never a panic, whatever was left open.
    let _ = gdvariant::de::from_slice_with::<Vec<Lenient<i64>>>(data, opts);
    let _ = gdvariant::de::from_slice_with::<Vec<Lenient<Probe<'_>>>>(data, opts);
    let _ =
        gdvariant::de::from_slice_with::<BTreeMap<String, Lenient<Vec<Lenient<f32>>>>>(data, opts);
    typed_agrees(
        "VariantRef",
        &gdvariant::de::from_slice_with::<gdvariant::VariantRef<'_>>(data, opts),
        &validated,
        opts,
    );
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
