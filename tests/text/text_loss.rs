//! What the engine's text form cannot carry, case by case: `text::round_trip` names each
//! reason (`LossKind`) on a value that has it, says whether the text reads back at all, and says
//! nothing for values whose text gives back their bytes. The `print_round_trip` fuzz target
//! checks on arbitrary input that every loss has one of these reasons.

use gdvariant::text::{round_trip, LossKind};
use gdvariant::*;

fn g4() -> EncodeOptions {
    EncodeOptions::new().with_full_objects(true)
}

/// The loss of the value encoded as `bytes` read with `read`, written back with `enc`.
fn loss(bytes: &[u8], read: &ReadOptions, enc: &EncodeOptions) -> Option<(LossKind, bool)> {
    let v = parse_with(bytes, read).unwrap();
    round_trip(&v, enc)
        .unwrap()
        .map(|l| (l.kind(), l.unreadable()))
}

/// The loss of `v` written (in single precision, or double with `wide`) and read back.
fn of_with(v: &Variant, wide: bool) -> Option<(LossKind, bool)> {
    let bytes = encode_with(v, &g4().with_double_precision(wide)).unwrap();
    loss(&bytes, &ReadOptions::new().with_full_objects(true), &g4())
}

fn of(v: &Variant) -> Option<(LossKind, bool)> {
    of_with(v, false)
}

fn dict(entries: Vec<(Variant, Variant)>) -> Variant {
    Variant::Dictionary(Dictionary::from_entries(entries))
}

#[test]
fn values_whose_text_gives_back_their_bytes() {
    for v in [
        Variant::from(vec![Variant::Int(1), "a\"\\\n".into(), Variant::Float(0.1)]),
        dict(vec![("a".into(), 1.into()), ("b".into(), Variant::Nil)]),
        Variant::from(Vector3::new(1.0, -2.5, 3.0)),
        Variant::from(NodePath {
            names: vec!["root".into(), "a".into()],
            subnames: vec!["x".into()],
            absolute: true,
        }),
        Variant::Array(Array::typed(TypeInfo::ClassName("Node".into()), vec![])),
        Variant::from(Object::Full {
            class: "Node".into(),
            properties: vec![
                ("script".into(), "res://a.gd".into()),
                ("x".into(), 1.into()),
            ],
        }),
        Variant::Float(f64::NAN),
        Variant::Float(f64::NEG_INFINITY),
        Variant::StringName("a'b?".into()),
    ] {
        assert_eq!(of(&v), None, "{v:?}");
    }
}

#[test]
fn every_reason_is_named() {
    use LossKind as L;
    let cases: Vec<(Variant, LossKind, bool)> = vec![
        (
            dict(vec![("b".into(), 1.into()), ("a".into(), 2.into())]),
            L::KeysSorted,
            false,
        ),
        (Variant::Float(-0.0), L::Float, false),
        (
            Variant::Float(f64::from_bits(0xFFF8_0000_0000_0000)),
            L::Float,
            false,
        ),
        (
            Variant::Signal(Signal {
                name: "pressed".into(),
                object_id: 7,
            }),
            L::Signal,
            false,
        ),
        (
            Variant::from(NodePath {
                names: vec!["".into(), "a".into()],
                subnames: vec![],
                absolute: false,
            }),
            L::NodePath,
            false,
        ),
        // A class named like a builtin type reads back as that type.
        (
            Variant::Array(Array::typed(TypeInfo::ClassName("int".into()), vec![])),
            L::TypeName,
            false,
        ),
        // A class name the reader cannot spell back.
        (
            Variant::Array(Array::typed(TypeInfo::ClassName("a]b".into()), vec![])),
            L::TypeName,
            true,
        ),
        // The empty class name prints as the engine prints it (`Object`).
        (
            Variant::Array(Array::typed(TypeInfo::ClassName(String::new()), vec![])),
            L::TypeName,
            false,
        ),
        (
            Variant::from(Object::Full {
                class: "My Node".into(),
                properties: vec![("x".into(), 1.into())],
            }),
            L::ObjectText,
            true,
        ),
        (
            Variant::from(Object::Full {
                class: "Node".into(),
                properties: vec![("a\"b".into(), 1.into())],
            }),
            L::ObjectText,
            true,
        ),
        // Keys equal as values: reading the text merges them.
        (
            dict(vec![("a".into(), 1.into()), ("a".into(), 2.into())]),
            L::RepeatedKeys,
            false,
        ),
        // ... and keys that the engine takes for the same key ("a" and &"a" in Godot 4).
        (
            dict(vec![
                ("a".into(), 1.into()),
                (Variant::StringName("a".into()), 2.into()),
            ]),
            L::RepeatedKeys,
            false,
        ),
        // A typed Array's element of another type: the engine converts it (the text prints 1).
        (
            Variant::Array(Array::typed(
                TypeInfo::Builtin(VariantType::Int),
                vec![Variant::Float(1.5)],
            )),
            L::Converted,
            false,
        ),
        // A typed Dictionary's key of another type: the engine converts it to a String.
        (
            Variant::Dictionary(Dictionary::typed(
                TypeInfo::Builtin(VariantType::String),
                TypeInfo::None,
                vec![(Variant::StringName("a".into()), 1.into())],
            )),
            L::Converted,
            false,
        ),
    ];
    for (v, kind, unreadable) in cases {
        assert_eq!(of(&v), Some((kind, unreadable)), "{v:?}");
    }
    // Components written in double precision, read back single.
    assert_eq!(
        of_with(&Variant::from(Vector2::new(0.1, 0.2)), true),
        Some((L::Precision, false))
    );
    // 64-bit components that a single-precision engine narrows (16777217 to the f32
    // 16777216), even when written back wide.
    let wide = encode_with(
        &Variant::from(Vector2::new(16_777_217.0, 0.5)),
        &g4().with_double_precision(true),
    )
    .unwrap();
    assert_eq!(
        loss(
            &wide,
            &ReadOptions::new(),
            &g4().with_double_precision(true)
        ),
        Some((L::Precision, false))
    );
    assert_eq!(
        loss(
            &wide,
            &ReadOptions::new().with_double_precision(true),
            &g4().with_double_precision(true)
        ),
        None
    );
    // A class-typed Array read without objects: the engine types it EncodedObjectAsID.
    let nodes = encode_with(
        &Variant::Array(Array::typed(TypeInfo::ClassName("Node".into()), vec![])),
        &g4(),
    )
    .unwrap();
    assert_eq!(
        loss(&nodes, &ReadOptions::new(), &EncodeOptions::new()),
        Some((L::Converted, false))
    );
    // Not the encoder's bytes: an int in 64 bits that fits 32.
    assert_eq!(
        loss(
            &[2, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0],
            &ReadOptions::new(),
            &g4()
        ),
        Some((L::NotCanonical, false))
    );
    // A full object while objects are not written.
    let obj = encode_with(
        &Variant::from(Object::Full {
            class: "Node".into(),
            properties: vec![],
        }),
        &g4(),
    )
    .unwrap();
    assert_eq!(
        loss(
            &obj,
            &ReadOptions::new().with_full_objects(true),
            &EncodeOptions::new()
        ),
        Some((L::Objects, true))
    );
    // A Godot 3 RID prints as nothing.
    let g3 = ReadOptions::godot3();
    let rid = encode_with(&Variant::Rid(0), &EncodeOptions::godot3()).unwrap();
    assert_eq!(
        loss(&rid, &g3, &EncodeOptions::godot3()),
        Some((L::Godot3Rid, true))
    );
    // Godot 3 text that is not UTF-8 (an encoded surrogate).
    assert_eq!(
        loss(
            &[4, 0, 0, 0, 3, 0, 0, 0, 0xED, 0xA0, 0x80, 0],
            &g3,
            &EncodeOptions::godot3()
        ),
        Some((L::NotUtf8, false))
    );
    // Deeper than the depth limit written with.
    let deep = encode_with(
        &Variant::from(vec![Variant::from(vec![Variant::Int(1)])]),
        &g4(),
    )
    .unwrap();
    assert_eq!(
        loss(&deep, &ReadOptions::new(), &g4().with_max_depth(1)),
        Some((L::Depth, true))
    );
    // An `Array[Array]` holding a packed array within the limit: the engine converts it to
    // an Array, printed as one, whose elements are one level deeper than the limit allows.
    let typed_value = Variant::Array(Array::typed(
        TypeInfo::Builtin(VariantType::Array),
        vec![Variant::PackedInt32Array(vec![1])],
    ));
    let typed = encode_with(&typed_value, &g4()).unwrap();
    let within = ReadOptions::new().with_max_depth(1);
    assert!(validate_with(&typed, &within).is_ok());
    assert_eq!(
        loss(&typed, &within, &g4().with_max_depth(1)),
        Some((L::Depth, true))
    );
    assert_eq!(
        loss(&typed, &within, &g4().with_max_depth(2)),
        Some((L::Converted, false))
    );
    // The same as a key of a Dictionary whose keys are typed Array.
    let keyed = encode_with(
        &Variant::Dictionary(Dictionary::typed(
            TypeInfo::Builtin(VariantType::Array),
            TypeInfo::Builtin(VariantType::Nil),
            vec![(Variant::PackedInt32Array(vec![1]), Variant::Int(1))],
        )),
        &g4(),
    )
    .unwrap();
    assert!(validate_with(&keyed, &within).is_ok());
    assert_eq!(
        loss(&keyed, &within, &g4().with_max_depth(1)),
        Some((L::Depth, true))
    );
    // Depth counts from the value printed, wherever it sits in its input: the typed Array as
    // the element of an untyped one prints as it does on its own.
    let outer = encode_with(&Variant::from(vec![typed_value.clone()]), &g4()).unwrap();
    let read = ReadOptions::new().with_max_depth(2);
    let element = parse_with(&outer, &read)
        .unwrap()
        .as_array()
        .unwrap()
        .get(0)
        .unwrap()
        .unwrap();
    let l = round_trip(&element, &g4().with_max_depth(2))
        .unwrap()
        .unwrap();
    assert_eq!((l.kind(), l.unreadable()), (L::Converted, false));
    let l = round_trip(&element, &g4().with_max_depth(1))
        .unwrap()
        .unwrap();
    assert_eq!((l.kind(), l.unreadable()), (L::Depth, true));
    // Empty, it has no elements to be too deep.
    let empty = encode_with(
        &Variant::Array(Array::typed(
            TypeInfo::Builtin(VariantType::Array),
            vec![Variant::PackedInt32Array(vec![])],
        )),
        &g4(),
    )
    .unwrap();
    assert_eq!(
        loss(&empty, &within, &g4().with_max_depth(1)),
        Some((L::Converted, false))
    );
}

#[test]
fn an_empty_class_name_prints_as_the_engine_prints_it() {
    // Array typed with class "": the engine prints Array[EncodedObjectAsID] (read without
    // objects) or Array[Object] (with): never Array[], which no reader reads.
    let bytes = [28, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    for (objects, want) in [
        (false, "Array[EncodedObjectAsID]([])"),
        (true, "Array[Object]([])"),
    ] {
        let v = parse_with(&bytes, &ReadOptions::new().with_full_objects(objects)).unwrap();
        let t = text::to_string(&v).unwrap();
        assert_eq!(t, want);
        assert!(text::from_str(&t, Dialect::Godot4).is_ok());
    }
}
