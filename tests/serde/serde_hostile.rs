//! serde on hostile input: every cut and mutation is an error, never a panic; the fast paths
//! check exactly what `validate` checks; swallowed errors and panics inside containers; values
//! of the wrong kind are errors at their offset.

use std::collections::BTreeMap;

use gdvariant::{math::Vector3, ReadOptions};
use serde::Deserialize;

use crate::common;
use crate::serde::{data, Input};

#[test]
fn hostile_input_is_an_error_never_a_panic() {
    let bytes = data("benches/data/input_packet.bin");
    for cut in 0..bytes.len() {
        assert!(
            gdvariant::from_slice::<Input<'_>>(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut m = bytes.clone();
    for i in 0..bytes.len() {
        for x in [0x00, 0xFF, bytes[i] ^ 0x80] {
            m[i] = x;
            let _ = gdvariant::from_slice::<Input<'_>>(&m);
            let _ = gdvariant::from_slice::<serde::de::IgnoredAny>(&m);
            let _ = gdvariant::from_slice::<Vec<BTreeMap<String, f64>>>(&m);
        }
        m[i] = bytes[i];
    }
    // A count of 2^31 - 1 with no data: an error, with no reservation in proportion to it.
    let huge = [28, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 2, 0, 0, 0, 1, 0, 0, 0];
    let err = gdvariant::from_slice::<Vec<i64>>(&huge).unwrap_err();
    assert!(err.format_error().is_some(), "{err}");
    // Nesting: serde's own limit of 128 on top of the engine's 1024.
    let mut deep = Vec::new();
    for _ in 0..200 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    deep.extend_from_slice(&[0, 0, 0, 0]);
    let err = gdvariant::from_slice::<serde::de::IgnoredAny>(&deep);
    assert!(err.is_ok(), "ignored values are skipped whole: {err:?}");
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    enum Nested {
        Leaf(()),
        List(Vec<Nested>),
    }
    let err = gdvariant::from_slice::<Nested>(&deep).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");
    // ReadOptions reach the walker: Godot 3 ids.
    let g3 = [7, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64];
    let v: Vector3 = gdvariant::de::from_slice_with(&g3, &ReadOptions::godot3()).unwrap();
    assert_eq!(v, Vector3::new(1.0, 2.0, 3.0));
}

/// The deserializer's fast paths (scalars, strings, keys, math types, container heads, the
/// strings of a PackedStringArray) check exactly what `validate` checks: over every truncation
/// and single-byte mutation of engine-written packets, in both dialects with objects allowed or
/// not, skipping (`IgnoredAny`) fails exactly as `validate` fails, and typed targets succeed
/// only where `validate` does and report `validate`'s own format error (the fuzz target's
/// checks, `tests/common/serde_check.rs`). About 2 s in a debug build.
#[test]
fn fast_paths_check_exactly_what_validate_checks_on_mutated_engine_packets() {
    use gdvariant::Variant;
    // The engine's game state cut to its first three entities (its own encoding otherwise).
    let state: Variant = gdvariant::from_slice(&data("examples/game_state.bin")).unwrap();
    let Variant::Dictionary(mut d) = state else {
        panic!("the game state is a Dictionary")
    };
    let Some(Variant::Array(entities)) = d.get_mut(&Variant::from("entities")) else {
        panic!("entities is an Array")
    };
    let mut items = entities.take_items();
    items.truncate(3);
    *entities = gdvariant::Array::new(items);
    let small = gdvariant::encode(&Variant::Dictionary(d)).unwrap();
    assert!(small.len() < 800, "{}", small.len());
    for bytes in [small, data("benches/data/input_packet.bin")] {
        for cut in 0..bytes.len() {
            for opts in all_options() {
                common::serde_check::serde_agree(&bytes[..cut], &opts);
            }
        }
        let mut m = bytes.clone();
        for i in 0..bytes.len() {
            for x in [0x00, 0x01, 0x7F, 0x80, 0xEF, 0xFF, bytes[i].wrapping_add(1)] {
                m[i] = x;
                common::serde_check::serde_agree(&m, &ReadOptions::new());
            }
            m[i] = bytes[i];
        }
    }
}

/// A field type that swallows its own error cannot make the deserializer read on from the
/// middle of a value: what follows an error inside a container is an error too.
#[test]
fn swallowed_errors_do_not_let_the_walk_go_on_from_the_middle_of_a_value() {
    use common::serde_check::Lenient;
    // [1, "x", [2, 3], 4]
    let mut b = vec![28, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0];
    b.extend_from_slice(&[4, 0, 0, 0, 1, 0, 0, 0, b'x', 0, 0, 0]);
    b.extend_from_slice(&[
        28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
    ]);
    b.extend_from_slice(&[2, 0, 0, 0, 4, 0, 0, 0]);
    // A String where an int is expected is read whole: the next values read on.
    let v: Vec<Lenient<i64>> = gdvariant::from_slice(&b[..28])
        .map_err(drop)
        .unwrap_or_default();
    assert!(v.is_empty(), "a cut Array is an error");
    // The inner Array is left open by the int's error: the rest is an error, not a misread.
    let err = gdvariant::from_slice::<Vec<Lenient<i64>>>(&b).unwrap_err();
    assert_eq!(err.to_string(), "no value left to read at offset 36");
    assert!(gdvariant::validate(&b).is_ok());
    // A count of 2^31 - 1 read from the input does not drive the loop once the walk is over:
    // neither after the data runs out nor after a container is left open (each would be two
    // billion swallowed errors and a Vec in proportion to the count).
    let huge_ints = [28, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 2, 0, 0, 0, 7, 0, 0, 0];
    let err = gdvariant::from_slice::<Vec<Lenient<i64>>>(&huge_ints).unwrap_err();
    assert_eq!(err.to_string(), "no value left to read at offset 16");
    let huge_open = [28, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 28, 0, 0, 0, 1, 0, 0, 0];
    let err = gdvariant::from_slice::<Vec<Lenient<i64>>>(&huge_open).unwrap_err();
    assert_eq!(err.to_string(), "no value left to read at offset 16");
    let mut huge_map = vec![27, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F];
    huge_map.extend_from_slice(&[
        4, 0, 0, 0, 1, 0, 0, 0, b'k', 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0,
    ]);
    let res = gdvariant::from_slice::<BTreeMap<String, Lenient<i64>>>(&huge_map);
    assert!(res.is_err(), "{res:?}");
}

fn all_options() -> impl Iterator<Item = ReadOptions> {
    use gdvariant::Dialect;
    [Dialect::Godot4, Dialect::Godot3]
        .into_iter()
        .flat_map(|d| {
            [false, true]
                .into_iter()
                .map(move |o| ReadOptions::new().with_dialect(d).with_full_objects(o))
        })
}

/// A target whose `Deserialize` panics deep inside a struct: the panic unwinds through the
/// maps reading on their own cursors (each dropped on the way) and reaches the caller, in debug
/// builds too (where a map that caught the walker up while a nested one was open would panic
/// again while unwinding, and abort).
#[test]
fn a_panic_in_a_nested_value_unwinds_through_the_maps() {
    struct Boom;
    impl<'de> Deserialize<'de> for Boom {
        fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Boom, D::Error> {
            panic!("boom")
        }
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        w: Boom,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        a: i64,
        inner: Inner,
        b: i64,
    }
    let mut inner = gdvariant::Dictionary::new();
    inner.insert("w", 2);
    let mut d = gdvariant::Dictionary::new();
    d.insert("a", 1);
    d.insert("inner", inner);
    d.insert("b", 3);
    let bytes = gdvariant::encode(&d.into()).unwrap();
    let res = std::panic::catch_unwind(|| gdvariant::from_slice::<Outer>(&bytes).map(drop));
    let panic = res.unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom"));
}

/// serde reads values of the right kind only (issue reproducers in hex): a struct's keys are
/// String or StringName (a RID key is not a field's position, a PackedByteArray key not a
/// field's name), a number field reads numbers (not a RID), a math type reads its own type or an
/// Array (a Rect2i is not a Color with its integers' bits read as floats). Each is an error at
/// the value's offset.
#[test]
fn values_of_the_wrong_kind_are_errors_at_their_offset() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: i64,
        b: String,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct C {
        c: gdvariant::math::Color,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct I {
        a: i64,
    }
    // {RID(0): 5, RID(1): "x"}
    let rid_keys = common::unhex("1b000000020000001700000000000000000000000200000005000000170000000100000000000000040000000100000078000000");
    let e = gdvariant::from_slice::<S>(&rid_keys).unwrap_err();
    assert_eq!(e.offset(), Some(8), "{e}");
    assert!(e.to_string().contains("found RID"), "{e}");
    // {PackedByteArray("a"): 1}
    let bytes_key = common::unhex("1b000000010000001d00000001000000610000000200000001000000");
    let e = gdvariant::from_slice::<I>(&bytes_key).unwrap_err();
    assert_eq!(e.offset(), Some(8), "{e}");
    assert!(e.to_string().contains("found PackedByteArray"), "{e}");
    // {"a": RID(7)}
    let rid_value =
        common::unhex("1b00000001000000040000000100000061000000170000000700000000000000");
    let e = gdvariant::from_slice::<I>(&rid_value).unwrap_err();
    assert_eq!(e.offset(), Some(20), "{e}");
    assert!(e.to_string().contains("RID"), "{e}");
    // {"c": Rect2i(1065353216, 0, 0, 1065353216)}
    let rect_as_color = common::unhex(
        "1b00000001000000040000000100000063000000080000000000803f00000000000000000000803f",
    );
    let e = gdvariant::from_slice::<C>(&rect_as_color).unwrap_err();
    assert_eq!(e.offset(), Some(20), "{e}");
    assert!(
        e.to_string().contains("expected Color, found Rect2i"),
        "{e}"
    );
    // The right kinds still read: String keys, an Int, a Color, and a Color from an Array.
    let ok = gdvariant::to_vec(&std::collections::BTreeMap::from([("a", 5i64)])).unwrap();
    assert_eq!(gdvariant::from_slice::<I>(&ok).unwrap().a, 5);
    use gdvariant::{math::Color, Dictionary, Variant};
    let red = Color::new(1.0, 0.0, 0.0, 1.0);
    let as_color: Dictionary = [("c", Variant::Color(red))].into_iter().collect();
    let bytes = gdvariant::encode(&Variant::from(as_color)).unwrap();
    assert_eq!(gdvariant::from_slice::<C>(&bytes).unwrap().c, red);
    let comps = Variant::from(
        vec![1.0, 0.0, 0.0, 1.0]
            .into_iter()
            .map(Variant::Float)
            .collect::<Vec<_>>(),
    );
    let as_array: Dictionary = [("c", comps)].into_iter().collect();
    let bytes = gdvariant::encode(&Variant::from(as_array)).unwrap();
    assert_eq!(gdvariant::from_slice::<C>(&bytes).unwrap().c, red);
}
