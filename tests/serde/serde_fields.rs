//! A struct's fields read on the map's own cursor (the deserializer's fast paths): fields around
//! the values the fast paths leave to the walk, other keys read as the engine reads their text,
//! a value its `Deserialize` leaves unread, a hand-written struct's keys, narrow integer and math
//! fields.

use gdvariant::math::Vector3;
use serde::{Deserialize, Serialize};

/// A struct's fields read on the map's own cursor between values it hands to the deserializer
/// (an unknown key over a container, a nested struct, bytes, a typed Array) and back: every
/// field's value, and an error after them all pointing at its own value; an `Option` field over
/// a Nil whose header has flag bits.
#[test]
fn a_struct_reads_its_fields_around_the_values_its_fast_paths_leave() {
    use gdvariant::{Dictionary, Variant};
    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        x: f64,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Mixed<'a> {
        a: i64,
        b: &'a str,
        inner: Inner,
        opt: Option<i64>,
        opt2: Option<i64>,
        #[serde(borrow)]
        tags: Vec<&'a str>,
        pos: Vector3,
        #[serde(borrow)]
        bytes: &'a [u8],
        ints: Vec<i64>,
        typed: Vec<i64>,
        last: bool,
    }
    let build = |last: Variant| {
        let mut inner = Dictionary::new();
        inner.insert("x", 2.5);
        inner.insert(
            "skipped",
            Variant::Array([Variant::from(1), "two".into()].into_iter().collect()),
        );
        let mut d = Dictionary::new();
        d.insert("b", "text");
        d.insert(
            "unknown",
            Variant::Array(
                [Variant::from(1), Variant::Dictionary(Dictionary::new())]
                    .into_iter()
                    .collect(),
            ),
        );
        d.insert("inner", inner);
        d.insert("opt", ());
        d.insert("opt2", 5);
        d.insert(
            "tags",
            Variant::PackedStringArray(vec!["p".into(), "q".into()]),
        );
        d.insert("pos", Vector3::new(1.0, -2.0, 0.5));
        d.insert("bytes", Variant::PackedByteArray(vec![7, 8, 9]));
        d.insert("ints", Variant::PackedInt64Array(vec![3, -4]));
        d.insert(
            "typed",
            Variant::Array(gdvariant::Array::typed(
                gdvariant::owned::TypeInfo::Builtin(gdvariant::VariantType::Int),
                vec![Variant::from(6), Variant::from(-7)],
            )),
        );
        d.insert("a", 42);
        d.insert("last", last);
        gdvariant::encode(&d.into()).unwrap()
    };
    let bytes = build(true.into());
    assert_eq!(
        gdvariant::from_slice::<Mixed<'_>>(&bytes).unwrap(),
        Mixed {
            a: 42,
            b: "text",
            inner: Inner { x: 2.5 },
            opt: None,
            opt2: Some(5),
            tags: vec!["p", "q"],
            pos: Vector3::new(1.0, -2.0, 0.5),
            bytes: &[7, 8, 9],
            ints: vec![3, -4],
            typed: vec![6, -7],
            last: true,
        }
    );
    let bytes = build("yes".into());
    let err = gdvariant::from_slice::<Mixed<'_>>(&bytes).unwrap_err();
    let at = gdvariant::parse(&bytes)
        .unwrap()
        .as_dictionary()
        .unwrap()
        .get("last")
        .unwrap()
        .unwrap()
        .offset();
    assert_eq!(
        (err.path().as_str(), err.offset()),
        ("last", Some(at)),
        "{err}"
    );

    // A Nil with flag bits in its header is still Nil (as `validate` and the engine read it):
    // `None` in an `Option` field, as at the top level.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Opt {
        o: Option<i64>,
        n: i64,
    }
    let mut d = Dictionary::new();
    d.insert("o", ());
    d.insert("n", 1);
    let mut bytes = gdvariant::encode(&d.into()).unwrap();
    // The Dictionary's head (8), the key "o" (12), then the Nil's header.
    assert_eq!(bytes[20..24], [0, 0, 0, 0]);
    bytes[22] = 1;
    assert!(gdvariant::validate(&bytes).is_ok());
    assert_eq!(
        gdvariant::from_slice::<Opt>(&bytes).unwrap(),
        Opt { o: None, n: 1 }
    );
    assert_eq!(
        gdvariant::from_slice::<Option<i64>>(&bytes[20..24]).unwrap(),
        None
    );
}

/// A Godot 4 Dictionary of `(key, value)` entries already encoded.
fn dictionary_bytes(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = [27u32, entries.len() as u32]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    for (k, v) in entries {
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
    out
}

/// A String (type 4) or StringName (type 21) of these exact bytes.
fn text_bytes(ty: u32, t: &[u8]) -> Vec<u8> {
    let mut out = [ty, t.len() as u32]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    out.extend_from_slice(t);
    out.resize(8 + t.len().div_ceil(4) * 4, 0);
    out
}

/// A 32-bit int.
fn int_bytes(i: i32) -> Vec<u8> {
    [2u32.to_le_bytes(), i.to_le_bytes()].concat()
}

#[test]
fn a_structs_other_keys_read_as_the_engine_reads_their_text() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Known {
        ab: i64,
        cd: i64,
        #[serde(alias = "other_name")]
        e: i64,
        last: i64,
    }
    let s = |t: &str| text_bytes(4, t.as_bytes());
    let entries = [
        // Unknown: plain ASCII, other UTF-8, a StringName.
        (s("zz"), int_bytes(1)),
        (s("größe"), int_bytes(2)),
        (text_bytes(21, b"q"), int_bytes(3)),
        // The engine strips a BOM and ends the text at a NUL: these name fields.
        (s("\u{feff}ab"), int_bytes(4)),
        (s("cd\0zz"), int_bytes(5)),
        // An alias (not among the names the deserializer is given).
        (s("other_name"), int_bytes(6)),
        (s("last"), int_bytes(7)),
    ];
    let bytes = dictionary_bytes(&entries);
    assert_eq!(
        gdvariant::from_slice::<Known>(&bytes).unwrap(),
        Known {
            ab: 4,
            cd: 5,
            e: 6,
            last: 7
        }
    );

    // Refused unknown fields are named, with their path and offset, whatever their text.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        ab: i64,
    }
    for (key, text) in [
        (s("zz"), "zz"),
        (s("größe"), "größe"),
        (text_bytes(21, b"q"), "q"),
        (s("\u{feff}zz"), "zz"),
        (s("zz\0ab"), "zz"),
    ] {
        let bytes = dictionary_bytes(&[(s("ab"), int_bytes(1)), (key, int_bytes(2))]);
        let e = gdvariant::from_slice::<Strict>(&bytes).unwrap_err();
        // After the header (8 bytes), "ab" (12) and its int (8).
        assert_eq!(e.offset(), Some(28), "{e}");
        assert_eq!(
            e.to_string(),
            format!("{text}: unknown field `{text}`, expected `ab` at offset 28")
        );
    }
    // Text that is not UTF-8 is the engine's error, at its byte.
    let bytes = dictionary_bytes(&[
        (s("ab"), int_bytes(1)),
        (text_bytes(4, b"z\xFFz"), int_bytes(2)),
    ]);
    let e = gdvariant::from_slice::<Strict>(&bytes).unwrap_err();
    assert!(e.format_error().is_some(), "{e}");
    let e = gdvariant::from_slice::<Known>(&bytes).unwrap_err();
    assert!(e.format_error().is_some(), "{e}");
}

/// A `Deserialize` that reads nothing from its deserializer leaves its value unread (a breach
/// of serde's contract): the map goes on from that value, read as the next key, as serde_json
/// goes on from it; the struct is an error at that value, never a panic or a debug assertion on
/// the map's own cursor.
#[test]
fn a_value_its_deserialize_leaves_unread_is_an_error() {
    struct Nothing;
    impl<'de> Deserialize<'de> for Nothing {
        fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Nothing, D::Error> {
            Ok(Nothing)
        }
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: i64,
        n: Nothing,
        z: i64,
    }
    let bytes = dictionary_bytes(&[
        (text_bytes(4, b"a"), int_bytes(1)),
        (text_bytes(4, b"n"), int_bytes(2)),
        (text_bytes(4, b"z"), int_bytes(3)),
    ]);
    let e = gdvariant::from_slice::<S>(&bytes).map(drop).unwrap_err();
    // The header (8 bytes), "a" (12) and its int (8), "n" (12): the int 2 at 40.
    assert_eq!(e.offset(), Some(40));
    assert_eq!(
        e.to_string(),
        "[2]: expected a String or StringName naming a field, found int at offset 40"
    );
}

/// A hand-written struct's keys, matched to its field names by the fast path, reach its own
/// visitors as serde's `BorrowedStrDeserializer` hands them: borrowed (`&'de str` keys), and its
/// field visitor's errors come back as this crate's errors, with the entry's path and offset.
#[test]
fn a_hand_written_structs_keys_reach_its_visitors_borrowed_and_its_errors_keep_their_path() {
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
    use std::fmt;

    /// The keys as `&'de str` (only a borrowed string will do), and their int values.
    struct Borrowing<'de>(Vec<(&'de str, i64)>);
    impl<'de> Deserialize<'de> for Borrowing<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Borrowing<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a struct")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::new();
                    while let Some(k) = map.next_key::<&'de str>()? {
                        out.push((k, map.next_value()?));
                    }
                    Ok(Borrowing(out))
                }
            }
            d.deserialize_struct("Borrowing", &["ok", "fine"], V)
        }
    }

    /// A field visitor that refuses one of the struct's own field names.
    struct Picky;
    impl<'de> Deserialize<'de> for Picky {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Key;
            impl<'de> DeserializeSeed<'de> for Key {
                type Value = ();
                fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                    struct K;
                    impl Visitor<'_> for K {
                        type Value = ();
                        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                            f.write_str("a key other than `bad`")
                        }
                        fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
                            match v {
                                "bad" => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                                _ => Ok(()),
                            }
                        }
                    }
                    d.deserialize_identifier(K)
                }
            }
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Picky;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a struct")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Picky, A::Error> {
                    while map.next_key_seed(Key)?.is_some() {
                        map.next_value::<i64>()?;
                    }
                    Ok(Picky)
                }
            }
            d.deserialize_struct("Picky", &["ok", "bad"], V)
        }
    }

    let s = |t: &str| text_bytes(4, t.as_bytes());
    let bytes = dictionary_bytes(&[
        (s("ok"), int_bytes(1)),
        (s("other"), int_bytes(2)),
        (text_bytes(21, b"fine"), int_bytes(3)),
    ]);
    let b = gdvariant::from_slice::<Borrowing<'_>>(&bytes).unwrap();
    assert_eq!(b.0, [("ok", 1), ("other", 2), ("fine", 3)]);

    assert!(gdvariant::from_slice::<Picky>(&bytes).is_ok());
    let bytes = dictionary_bytes(&[(s("ok"), int_bytes(1)), (s("bad"), int_bytes(2))]);
    let e = gdvariant::from_slice::<Picky>(&bytes)
        .map(drop)
        .unwrap_err();
    // The header (8 bytes), "ok" (12) and its int (8): the key "bad" at 28.
    assert_eq!(
        e.to_string(),
        "bad: invalid value: string \"bad\", expected a key other than `bad` at offset 28"
    );
}

/// A struct's integer fields narrower than `i64` and its math fields: read on the map's cursor;
/// a value out of the field's range is an error at the value's offset with the field's path; a
/// value the fast path leaves (an Int whose header carries flag bits the engine ignores, a
/// Float, an Array for a Vector3) goes to the deserializer, which reads it as the engine does
/// or names the type it found.
#[test]
fn narrow_integer_and_math_fields_read_fast_and_leave_the_rest_to_the_walk() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Narrow {
        a: u8,
        b: u32,
        c: i16,
        d: u64,
    }
    let value = Narrow {
        a: 200,
        b: 4_000_000_000,
        c: -300,
        d: 7,
    };
    let bytes = gdvariant::to_vec(&value).unwrap();
    assert_eq!(gdvariant::from_slice::<Narrow>(&bytes).unwrap(), value);
    let v = gdvariant::parse(&bytes).unwrap();
    let at = |key: &str| v.path(key).unwrap().unwrap().offset();

    // Out of range: the derived visitor's error, at the value.
    let mut wide = bytes.clone();
    let a = at("a");
    wide[a + 4..a + 8].copy_from_slice(&300i32.to_le_bytes());
    let err = gdvariant::from_slice::<Narrow>(&wide).unwrap_err();
    assert_eq!(err.path(), "a");
    assert_eq!(err.offset(), Some(a));
    assert!(err.to_string().contains("300"), "{err}");

    // An Int header with a flag bit the engine ignores (bit 20): the engine reads 4e9 there, and
    // so does the walk behind the fast path.
    let mut flagged = bytes.clone();
    let b = at("b");
    assert_eq!(flagged[b], 2, "an Int");
    flagged[b + 2] |= 0x10;
    let engine = gdvariant::parse(&flagged).unwrap();
    assert_eq!(
        engine.path("b").unwrap().unwrap().as_i64().unwrap(),
        4_000_000_000
    );
    assert_eq!(gdvariant::from_slice::<Narrow>(&flagged).unwrap(), value);

    // A Float where an integer is expected: the type found, at the value.
    #[derive(Serialize)]
    struct Floaty {
        a: u8,
        b: f64,
        c: i16,
        d: u64,
    }
    let bytes = gdvariant::to_vec(&Floaty {
        a: 1,
        b: 2.5,
        c: 3,
        d: 4,
    })
    .unwrap();
    let v = gdvariant::parse(&bytes).unwrap();
    let b = v.path("b").unwrap().unwrap().offset();
    let err = gdvariant::from_slice::<Narrow>(&bytes).unwrap_err();
    assert_eq!(err.path(), "b");
    assert_eq!(err.offset(), Some(b));
    assert!(err.to_string().contains("expected u32"), "{err}");

    // A math field: the fast path reads the Vector3; an Array of three numbers it leaves to the
    // deserializer, which reads it as the math type's components.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Placed {
        id: u8,
        pos: Vector3,
    }
    let placed = |pos: gdvariant::Variant| {
        let mut d = gdvariant::Dictionary::new();
        d.insert("id", 7);
        d.insert("pos", pos);
        gdvariant::encode(&gdvariant::Variant::Dictionary(d)).unwrap()
    };
    let want = Placed {
        id: 7,
        pos: Vector3::new(1.0, 2.0, 3.0),
    };
    let native = placed(gdvariant::Variant::Vector3(want.pos));
    assert_eq!(gdvariant::from_slice::<Placed>(&native).unwrap(), want);
    let array = placed(gdvariant::Variant::Array(
        [1.0, 2.0, 3.0]
            .map(gdvariant::Variant::from)
            .into_iter()
            .collect(),
    ));
    assert_eq!(gdvariant::from_slice::<Placed>(&array).unwrap(), want);
}

/// A visitor that reads exactly as many entries as its map's size hint counts, never asking for
/// one more key, leaves the walk in step after the map (the array goes on with its next
/// element); one that stops after the first entry and returns is an error (the entry it left).
#[test]
fn a_map_read_to_its_count_without_asking_for_the_end_leaves_the_walk_in_step() {
    use serde::de::{MapAccess, Visitor};
    use std::fmt;

    /// The entries of a map, read up to its size hint (`ALL`) or just the first.
    struct Counted<const ALL: bool>(Vec<(String, i64)>);
    impl<'de, const ALL: bool> Deserialize<'de> for Counted<ALL> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V<const ALL: bool>;
            impl<'de, const ALL: bool> Visitor<'de> for V<ALL> {
                type Value = Counted<ALL>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let n = if ALL { map.size_hint().unwrap() } else { 1 };
                    let mut out = Vec::new();
                    for _ in 0..n {
                        out.push(map.next_entry()?.unwrap());
                    }
                    Ok(Counted(out))
                }
            }
            d.deserialize_map(V::<ALL>)
        }
    }

    let s = |t: &str| text_bytes(4, t.as_bytes());
    let d = dictionary_bytes(&[(s("a"), int_bytes(1)), (s("b"), int_bytes(2))]);
    // The Array [d, 7].
    let bytes = [&[28, 0, 0, 0, 2, 0, 0, 0][..], &d, &int_bytes(7)].concat();
    let (m, i) = gdvariant::from_slice::<(Counted<true>, i64)>(&bytes).unwrap();
    assert_eq!(m.0, [("a".to_owned(), 1), ("b".to_owned(), 2)]);
    assert_eq!(i, 7);
    let e = gdvariant::from_slice::<(Counted<false>, i64)>(&bytes)
        .map(drop)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "[0]: invalid length 2, expected fewer elements at offset 8"
    );
}
