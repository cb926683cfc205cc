//! Golden round trips: every value the real engines wrote is parsed, converted to an owned
//! `Variant`, encoded again and compared with the engine's bytes; plus targeted encoder checks.

use crate::common;

use common::{encode_cases, hex};
use gdvariant::{
    encode, encode_with, math::Vector2, math::Vector3, owned::RawValue, owned::Signal,
    owned::TypeInfo, parse, parse_with, Array, Dialect, Dictionary, EncodeOptions, ErrorKind,
    NodePath, Object, ReadOptions, Variant, VariantType,
};

/// parse → to_owned → encode gives back the engine's bytes (NodePath padding masked), or the
/// engine's own re-encoding for `common::ENGINE_REWRITES`.
fn golden(engine: &str, dialect: Dialect) -> (usize, usize) {
    let (_, cases) = encode_cases(engine);
    assert!(cases.len() > 100, "too few cases in {engine}");
    let mut failures = Vec::new();
    let mut masked = 0;
    for case in &cases {
        let ropts = ReadOptions::new()
            .with_dialect(dialect)
            .with_full_objects(case.objects);
        let wopts = EncodeOptions::new()
            .with_dialect(dialect)
            .with_full_objects(case.objects);
        let v = parse_with(&case.bytes, &ropts).unwrap();
        masked += usize::from(common::mask_node_path_padding(&case.bytes, &ropts) != case.bytes);
        let expected = common::engine_rewrite(engine, &case.name, &case.bytes, &ropts);
        let owned = match v.to_owned() {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{}: to_owned: {e}", case.name));
                continue;
            }
        };
        // Variant::try_from is the same conversion.
        assert_eq!(Variant::try_from(v).unwrap(), owned, "{}", case.name);
        match encode_with(&owned, &wopts) {
            Ok(bytes) if bytes == expected => {}
            Ok(bytes) => failures.push(format!(
                "{}:\n  engine {}\n  ours   {}",
                case.name,
                hex(&expected),
                hex(&bytes)
            )),
            Err(e) => failures.push(format!("{}: encode: {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (cases.len(), masked)
}

#[test]
fn godot4_golden_bytes_reencode_exactly() {
    let (n, masked) = golden("godot4", Dialect::Godot4);
    assert!(n > 200);
    // Godot 4 happened to write zero NodePath padding.
    assert_eq!(masked, 0);
}

#[test]
fn godot3_golden_bytes_reencode_exactly() {
    let (n, masked) = golden("godot3", Dialect::Godot3);
    assert!(n > 150);
    // Godot 3 left garbage in some NodePath padding: masking was needed.
    assert!(masked > 0);
}

#[test]
fn game_state_example_reencodes_exactly() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let owned = parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(encode(&owned).unwrap(), bytes);
    let d = owned.as_dictionary().unwrap();
    assert_eq!(d.get_str("tick"), Some(&Variant::Int(123456)));
    // Sized views from iterators convert the same as lazy ones.
    let entities = d.get_str("entities").unwrap().as_array().unwrap();
    let view = parse(&bytes).unwrap().path("entities").unwrap().unwrap();
    let items: Vec<Variant> = view
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.unwrap().to_owned().unwrap())
        .collect();
    assert_eq!(items.len(), 8);
    assert_eq!(items, entities.items);
    assert_eq!(
        view.sized().unwrap().to_owned().unwrap(),
        Variant::Array(entities.clone())
    );
}

#[test]
fn canonical_scalars() {
    let e = |v: Variant| encode(&v).unwrap();
    assert_eq!(e(Variant::Nil), [0, 0, 0, 0]);
    assert_eq!(e(Variant::Int(-1)), [2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(
        e(Variant::Int(1 << 31)),
        [2, 0, 1, 0, 0, 0, 0, 0x80, 0, 0, 0, 0]
    );
    assert_eq!(e(Variant::Float(-0.0)), [3, 0, 0, 0, 0, 0, 0, 0x80]);
    assert_eq!(e(Variant::Float(f64::INFINITY)).len(), 8);
    assert_eq!(e(Variant::Float(1e39)).len(), 12);
    let nan = e(Variant::Float(f64::NAN));
    assert_eq!(nan.len(), 12);
    assert_eq!(&nan[..4], &[3, 0, 1, 0]);
    assert_eq!(
        e(Variant::String("abcde".into())),
        [4, 0, 0, 0, 5, 0, 0, 0, b'a', b'b', b'c', b'd', b'e', 0, 0, 0]
    );
    assert_eq!(
        e(Variant::PackedStringArray(vec![String::new().into()])),
        [34, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        e(Variant::PackedByteArray(vec![7])),
        [29, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0]
    );
    // Null objects are a bare Nil header.
    assert_eq!(e(Variant::from(Object::Id(0))), [0, 0, 0, 0]);
    let null_full = Variant::from(Object::Full {
        class: String::new(),
        properties: vec![],
    });
    assert_eq!(e(null_full), [0, 0, 0, 0]);
}

#[test]
fn godot3_specifics() {
    let g3 = EncodeOptions::godot3();
    assert_eq!(encode_with(&Variant::Rid(77), &g3).unwrap(), [16, 0, 0, 0]);
    for v in [
        Variant::Vector4(Default::default()),
        Variant::Vector2i(Default::default()),
        Variant::StringName("x".into()),
        Variant::Callable,
        Variant::Signal(Signal::default()),
        Variant::PackedInt64Array(vec![]),
        Variant::PackedVector4Array(vec![]),
        Variant::Projection(Default::default()),
    ] {
        let ty = v.ty();
        let err = encode_with(&v, &g3).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnsupportedInDialect { ty }, "{ty}");
        assert_eq!(err.offset(), 0);
    }
    // Nested: the error offset is where the value would start.
    let v = Variant::from(vec![Variant::Int(1), Variant::Vector4(Default::default())]);
    let err = encode_with(&v, &g3).unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (
            16,
            ErrorKind::UnsupportedInDialect {
                ty: VariantType::Vector4
            }
        )
    );
    // Typed containers do not exist in Godot 3.
    let typed = Variant::Array(Array::typed(TypeInfo::Builtin(VariantType::Int), vec![]));
    assert!(encode_with(&typed, &g3).is_err());
    // Double precision is ignored: Godot 3 has no f64 math.
    let v = Variant::Vector2(Vector2::new(0.1, 2.0));
    let bytes = encode_with(&v, &g3.with_double_precision(true)).unwrap();
    assert_eq!(bytes.len(), 12);
    assert_eq!(&bytes[..4], &[5, 0, 0, 0]);
}

#[test]
fn full_objects_need_the_option() {
    let obj = Variant::from(Object::Full {
        class: "Node".into(),
        properties: vec![("name".into(), Variant::from("n"))],
    });
    let wrapped = Variant::from(vec![Variant::Nil, obj.clone()]);
    let err = encode(&wrapped).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::ObjectsNotAllowed, 12)
    );
    let bytes = encode_with(&obj, &EncodeOptions::new().with_full_objects(true)).unwrap();
    let back = parse_with(&bytes, &ReadOptions::new().with_full_objects(true))
        .unwrap()
        .to_owned()
        .unwrap();
    assert_eq!(back, obj);
    // Instance ids need no option.
    let id = Variant::from(Object::Id(0x8000_0000_0000_0042));
    let bytes = encode(&id).unwrap();
    assert_eq!(&bytes[..4], &[24, 0, 1, 0]);
    assert_eq!(parse(&bytes).unwrap().to_owned().unwrap(), id);
}

#[test]
fn typed_containers_without_objects_use_encoded_object_as_id() {
    let a = Variant::Array(Array::typed(
        TypeInfo::Script("res://thing.gd".into()),
        vec![],
    ));
    let bytes = encode(&a).unwrap();
    let back = parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(
        back,
        Variant::Array(Array::typed(
            TypeInfo::ClassName("EncodedObjectAsID".into()),
            vec![]
        ))
    );
    let with = encode_with(&a, &EncodeOptions::new().with_full_objects(true)).unwrap();
    let back = parse_with(&with, &ReadOptions::new().with_full_objects(true))
        .unwrap()
        .to_owned()
        .unwrap();
    assert_eq!(back, a);
}

#[test]
fn double_precision_round_trips_every_real_type() {
    let r = |i: usize| 0.1 + i as f64 / 3.0; // not representable in f32
    let reals: Vec<Variant> = vec![
        Variant::Vector2(Vector2::from_array(core::array::from_fn(r))),
        Variant::Rect2(gdvariant::math::Rect2::from_array(core::array::from_fn(r))),
        Variant::Vector3(Vector3::from_array(core::array::from_fn(r))),
        Variant::from(gdvariant::math::Transform2D::from_array(
            core::array::from_fn(r),
        )),
        Variant::Vector4(gdvariant::math::Vector4::from_array(core::array::from_fn(
            r,
        ))),
        Variant::Plane(gdvariant::math::Plane::from_array(core::array::from_fn(r))),
        Variant::Quaternion(gdvariant::math::Quaternion::from_array(
            core::array::from_fn(r),
        )),
        Variant::from(gdvariant::math::Aabb::from_array(core::array::from_fn(r))),
        Variant::from(gdvariant::math::Basis::from_array(core::array::from_fn(r))),
        Variant::from(gdvariant::math::Transform3D::from_array(
            core::array::from_fn(r),
        )),
        Variant::from(gdvariant::math::Projection::from_array(
            core::array::from_fn(r),
        )),
        Variant::PackedVector2Array((0..5).map(|i| Vector2::new(r(i), -r(i))).collect()),
        Variant::PackedVector3Array((0..5).map(|i| Vector3::new(r(i), -r(i), 1e300)).collect()),
        Variant::PackedVector4Array(
            (0..5)
                .map(|i| gdvariant::math::Vector4::new(r(i), -r(i), f64::NAN, -0.0))
                .collect(),
        ),
    ];
    let double = EncodeOptions::new().with_double_precision(true);
    for v in &reals {
        let bytes = encode_with(v, &double).unwrap();
        let p = parse(&bytes).unwrap();
        assert!(p.is_wide(), "{:?}", v.ty());
        assert_eq!(
            u32::from_le_bytes(bytes[..4].try_into().unwrap()) & 0x10000,
            0x10000
        );
        // Read as a precision=double engine reads it.
        let wide = ReadOptions::new().with_double_precision(true);
        let pd = parse_with(&bytes, &wide).unwrap();
        assert_eq!(&pd.to_owned().unwrap(), v, "{:?}", v.ty());
        // A standard (single-precision) engine narrows the components to its f32 real_t.
        assert_eq!(
            encode(&p.to_owned().unwrap()).unwrap(),
            encode(v).unwrap(),
            "{:?}",
            v.ty()
        );
        assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
        // Single precision rounds the components to f32 and does not round-trip these.
        let single = encode(v).unwrap();
        assert!(single.len() < bytes.len());
        assert_ne!(&parse(&single).unwrap().to_owned().unwrap(), v);
    }
    // Color ignores the precision.
    let c = Variant::Color(gdvariant::math::Color::new(0.1, 0.2, 0.3, 1.0));
    assert_eq!(encode_with(&c, &double).unwrap(), encode(&c).unwrap());
}

#[test]
fn node_path_and_signal() {
    let np = Variant::from(NodePath {
        names: vec!["root".into(), "a".into()],
        subnames: vec!["prop".into()],
        absolute: true,
    });
    let bytes = encode(&np).unwrap();
    assert_eq!(
        hex(&bytes),
        "1600000002000080010000000100000004000000726f6f740100000061000000040000007072 6f70"
            .replace(' ', "")
    );
    assert_eq!(parse(&bytes).unwrap().to_owned().unwrap(), np);
    let s = Variant::Signal(Signal {
        name: "changed".into(),
        object_id: 99,
    });
    assert_eq!(parse(&encode(&s).unwrap()).unwrap().to_owned().unwrap(), s);
}

#[test]
fn encode_into_appends_and_restores_on_error() {
    let mut buf = vec![1, 2, 3];
    let bad = Variant::from(vec![Variant::Int(5), Variant::Vector4(Default::default())]);
    let err = gdvariant::encode_into(&bad, &mut buf, &EncodeOptions::godot3()).unwrap_err();
    assert_eq!(err.offset(), 16);
    assert_eq!(buf, [1, 2, 3]);
    gdvariant::encode_into(&Variant::Int(5), &mut buf, &EncodeOptions::new()).unwrap();
    assert_eq!(buf, [1, 2, 3, 2, 0, 0, 0, 5, 0, 0, 0]);
}

fn nested_arrays(depth: usize) -> Variant {
    let mut v = Variant::Array(Array::default());
    for _ in 0..depth {
        v = Variant::Array(Array::new(vec![v]));
    }
    v
}

#[test]
fn depth_limit_on_encode() {
    // 1025 nested arrays (depths 0..=1024) are what the engine accepts.
    let ok = nested_arrays(1024);
    let bytes = encode(&ok).unwrap();
    assert_eq!(bytes.len(), 1025 * 8);
    assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
    let back = parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(back, ok);
    let err = encode(&nested_arrays(1025)).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::DepthExceeded { limit: 1024 }, 1025 * 8)
    );
}

#[test]
fn very_deep_trees_error_compare_and_drop_without_overflow() {
    // Built, encoded, compared and dropped on a test thread's small stack.
    let deep = nested_arrays(100_000);
    let err = encode(&deep).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthExceeded { limit: 1024 });
    let same = nested_arrays(100_000);
    assert_eq!(deep, same);
    assert_ne!(deep, nested_arrays(99_999));
    drop(deep);
    drop(same);
    // Dictionaries and objects too.
    let mut d = Variant::Nil;
    for i in 0..100_000 {
        let mut dict = Dictionary::new();
        dict.insert(i, d);
        d = Variant::from(Object::Full {
            class: "C".into(),
            properties: vec![("p".into(), Variant::Dictionary(dict))],
        });
    }
    let err = encode_with(&d, &EncodeOptions::new().with_full_objects(true)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthExceeded { limit: 1024 });
    drop(d);
}

#[test]
fn raw_pass_through() {
    let inner = encode(&Variant::from(vec![Variant::from(1.5), "x".into()])).unwrap();
    let raw = RawValue::from_ref(&parse(&inner).unwrap()).unwrap();
    assert_eq!(raw.as_bytes(), &inner[..]);
    let outer = Variant::from(vec![Variant::Raw(raw.clone()), Variant::Int(2)]);
    let bytes = encode(&outer).unwrap();
    let expected = encode(&Variant::from(vec![
        Variant::from(vec![Variant::from(1.5), "x".into()]),
        Variant::Int(2),
    ]))
    .unwrap();
    assert_eq!(bytes, expected);
    // A raw value keeps its dialect.
    let err = encode_with(&outer, &EncodeOptions::godot3()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::WriterMisuse { .. }));
}

#[test]
fn dictionary_insert_replaces_in_place() {
    let mut d = Dictionary::new();
    d.insert("a", 1);
    d.insert(2, "b");
    d.insert(Variant::Float(f64::NAN), 3);
    assert_eq!(d.insert("a", 10), Some(Variant::Int(1)));
    assert_eq!(
        d.insert(Variant::Float(f64::NAN), 30),
        Some(Variant::Int(3))
    );
    assert_eq!(d.len(), 3);
    assert_eq!(d.entries()[0].1, Variant::Int(10));
    assert_eq!(d.get(&Variant::Int(2)), Some(&Variant::from("b")));
    assert_eq!(d.get(&Variant::Float(0.0)), None);
    assert_eq!(d.remove(&Variant::Int(2)), Some(Variant::from("b")));
    assert_eq!(d.len(), 2);
}

#[test]
fn equality_compares_floats_by_bits() {
    assert_eq!(Variant::Float(f64::NAN), Variant::Float(f64::NAN));
    assert_ne!(Variant::Float(0.0), Variant::Float(-0.0));
    assert_ne!(Variant::Int(1), Variant::Float(1.0));
    assert_ne!(Variant::String("a".into()), Variant::StringName("a".into()));
    let v = Variant::PackedVector3Array(vec![Vector3::new(f64::NAN, -0.0, 1.0)]);
    assert_eq!(v, v.clone());
    assert_ne!(
        v,
        Variant::PackedVector3Array(vec![Vector3::new(f64::NAN, 0.0, 1.0)])
    );
}

#[test]
fn conversions_from_rust_values() {
    assert_eq!(Variant::from(7u8), Variant::Int(7));
    assert_eq!(Variant::from(-7i32), Variant::Int(-7));
    assert_eq!(Variant::from(1.5f32), Variant::Float(1.5));
    assert_eq!(Variant::from(true), Variant::Bool(true));
    assert_eq!(Variant::from("s"), Variant::String("s".into()));
    assert_eq!(Variant::from(None::<i32>), Variant::Nil);
    assert_eq!(
        Variant::from(&[1.0f32, 2.0][..]),
        Variant::PackedFloat32Array(vec![1.0, 2.0])
    );
    assert_eq!(
        Variant::from(vec![1i64]),
        Variant::PackedInt64Array(vec![1])
    );
    assert_eq!(
        Variant::from(&["a", "b"][..]),
        Variant::PackedStringArray(vec!["a".into(), "b".into()])
    );
    assert_eq!(
        Variant::from(vec![1u8, 2]).ty(),
        VariantType::PackedByteArray
    );
    let d: Dictionary = [("a", 1), ("b", 2), ("a", 3)].into_iter().collect();
    assert_eq!(d.len(), 2);
    assert_eq!(d.get_str("a"), Some(&Variant::Int(3)));
}

#[test]
fn to_owned_uses_engine_text() {
    // BOM stripped and cut at the NUL, as the engine reads it.
    let bytes = [
        4, 0, 0, 0, 7, 0, 0, 0, 0xEF, 0xBB, 0xBF, b'h', b'i', 0, b'x', 0,
    ];
    assert_eq!(
        parse(&bytes).unwrap().to_owned().unwrap(),
        Variant::from("hi")
    );
    // Godot 3 reads an overlong form as the character it encodes (`as_str` cannot borrow it:
    // the bytes are not UTF-8).
    let bytes = [4, 0, 0, 0, 3, 0, 0, 0, 0xE0, 0x81, 0x81, 0];
    let v = parse_with(&bytes, &ReadOptions::godot3()).unwrap();
    assert_eq!(v.to_owned().unwrap(), Variant::from("A"));
    let err = v.as_str().unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::NotRustUtf8, 8));
    // An encoded surrogate, which Godot 3 keeps and a Rust `char` cannot hold, reads as U+FFFD.
    let bytes = [4, 0, 0, 0, 3, 0, 0, 0, 0xED, 0xA0, 0x80, 0];
    let v = parse_with(&bytes, &ReadOptions::godot3()).unwrap();
    assert_eq!(v.to_owned().unwrap(), Variant::from("\u{FFFD}"));
}

/// Godot 3's overlong rule, each case checked live on Godot 3.2.3 (`bytes2var` of a String
/// holding the bytes): a form whose lead and first continuation byte carry no bits is refused
/// when the top `len - 3` bits of the second continuation byte are zero too; other overlong
/// forms read as the character they encode.
#[test]
fn godot3_overlong_forms_as_the_engine_reads_them() {
    let string = |text: &[u8]| {
        let mut b = vec![4, 0, 0, 0];
        b.extend_from_slice(&(text.len() as u32).to_le_bytes());
        b.extend_from_slice(text);
        while b.len() % 4 != 0 {
            b.push(0);
        }
        b
    };
    let accepted: [(&[u8], &str); 3] = [
        (&[0xE0, 0x81, 0x81], "A"),
        (&[0xE0, 0x80, 0x90], "\u{10}"),
        (&[0xF0, 0x80, 0x88, 0x80], "\u{200}"),
    ];
    for (text, read) in accepted {
        let bytes = string(text);
        let v = parse_with(&bytes, &ReadOptions::godot3()).unwrap();
        assert_eq!(v.to_owned().unwrap(), Variant::from(read), "{text:02x?}");
    }
    // (bytes, offset of the byte the engine stops at)
    let refused: [(&[u8], usize); 9] = [
        (&[0xE0, 0x80, 0x80], 10),
        (&[0xE0, 0x80, 0x8F], 10),
        (&[0xF0, 0x80, 0x80, 0x80], 10),
        (&[0xF0, 0x80, 0x87, 0xBF], 10),
        (&[0xF8, 0x80, 0x81, 0x80, 0x80], 10),
        (&[0xF8, 0x80, 0x82, 0x80, 0x80], 10),
        (&[0xFC, 0x80, 0x80, 0x80, 0x80, 0x80], 10),
        (&[0xFC, 0x80, 0x81, 0x80, 0x80, 0x80], 10),
        (&[0x41, 0xE0, 0x80, 0x80, 0x42], 11),
    ];
    for (text, at) in refused {
        let err = gdvariant::validate_with(&string(text), &ReadOptions::godot3()).unwrap_err();
        assert_eq!(
            (err.kind(), err.offset()),
            (ErrorKind::InvalidUtf8, at),
            "{text:02x?}"
        );
        // Godot 4 refuses every overlong form, at its lead byte.
        assert!(gdvariant::validate(&string(text)).is_err());
    }
}

// ----- the streaming writer -----

use gdvariant::Writer;

#[test]
fn writer_matches_encode_and_patches_counts() {
    let mut d = Dictionary::new();
    d.insert("a", vec![Variant::Int(1), Variant::Nil]);
    d.insert(
        Variant::Int(7),
        Variant::PackedFloat32Array(vec![1.5, -2.0]),
    );
    let expected = encode(&Variant::Dictionary(d)).unwrap();
    for known in [true, false] {
        let n = |c: usize| known.then_some(c);
        let mut w = Writer::new(EncodeOptions::new());
        w.begin_dictionary(n(2)).unwrap();
        w.string("a").unwrap();
        w.begin_array(n(2)).unwrap();
        w.int(1).unwrap();
        w.nil().unwrap();
        assert_eq!(w.depth(), 2);
        w.end().unwrap();
        w.int(7).unwrap();
        w.packed_f32(&[1.5, -2.0]).unwrap();
        w.end().unwrap();
        assert_eq!(w.finish().unwrap(), expected, "known counts: {known}");
    }
}

fn misuse(e: &gdvariant::Error) -> &'static str {
    match e.kind() {
        ErrorKind::WriterMisuse { what } => what,
        other => panic!("not misuse: {other:?}"),
    }
}

#[test]
fn writer_misuse_is_an_error() {
    let mut w = Writer::new(EncodeOptions::new());
    assert_eq!(
        misuse(&w.end().unwrap_err()),
        "end without an open container"
    );
    // Too many values for the declared count; the writer is unchanged after the error.
    w.begin_array(Some(1)).unwrap();
    w.int(1).unwrap();
    let before = w.bytes().len();
    let err = w.int(2).unwrap_err();
    assert_eq!(
        misuse(&err),
        "more values than the container's declared count"
    );
    assert_eq!(err.offset(), before);
    assert_eq!(w.bytes().len(), before);
    w.end().unwrap();
    // Too few.
    let mut w = Writer::new(EncodeOptions::new());
    w.begin_array(Some(2)).unwrap();
    w.int(1).unwrap();
    assert_eq!(
        misuse(&w.end().unwrap_err()),
        "fewer values than the container's declared count"
    );
    // Finishing with an open container.
    assert_eq!(
        misuse(&w.clone().finish().unwrap_err()),
        "finish with open containers"
    );
    w.int(2).unwrap();
    w.end().unwrap();
    assert_eq!(
        w.finish().unwrap(),
        encode(&Variant::from(vec![Variant::Int(1), Variant::Int(2)])).unwrap()
    );
    // A dictionary key without its value.
    let mut w = Writer::new(EncodeOptions::new());
    w.begin_dictionary(None).unwrap();
    w.string("k").unwrap();
    assert_eq!(
        misuse(&w.end().unwrap_err()),
        "dictionary key without a value"
    );
    // Object properties need names, and objects need the option.
    let mut w = Writer::new(EncodeOptions::new());
    assert_eq!(
        w.begin_object("Node", None).unwrap_err().kind(),
        ErrorKind::ObjectsNotAllowed
    );
    assert_eq!(
        misuse(&w.property("x").unwrap_err()),
        "property name outside an object"
    );
    let mut w = Writer::new(EncodeOptions::new().with_full_objects(true));
    w.begin_object("Node", Some(1)).unwrap();
    assert_eq!(
        misuse(&w.int(1).unwrap_err()),
        "object property value without a name"
    );
    w.property("x").unwrap();
    assert_eq!(
        misuse(&w.property("y").unwrap_err()),
        "two property names in a row"
    );
    w.int(1).unwrap();
    w.end().unwrap();
    let obj = Variant::from(Object::Full {
        class: "Node".into(),
        properties: vec![("x".into(), Variant::Int(1))],
    });
    let full = EncodeOptions::new().with_full_objects(true);
    assert_eq!(w.finish().unwrap(), encode_with(&obj, &full).unwrap());
    // Types the dialect lacks.
    let mut w = Writer::new(EncodeOptions::godot3());
    assert_eq!(
        w.string_name("x").unwrap_err().kind(),
        ErrorKind::UnsupportedInDialect {
            ty: VariantType::StringName
        }
    );
    assert!(w.bytes().is_empty());
}

#[test]
fn writer_depth_limit() {
    let mut w = Writer::new(EncodeOptions::new().with_max_depth(3));
    for _ in 0..4 {
        w.begin_array(None).unwrap();
    }
    let err = w.begin_array(None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthExceeded { limit: 3 });
    assert_eq!(err.kind(), w.int(1).unwrap_err().kind());
    for _ in 0..4 {
        w.end().unwrap();
    }
    assert_eq!(w.finish().unwrap(), encode(&nested_arrays(3)).unwrap());
}

#[test]
fn writer_passes_received_sub_trees_through() {
    // A server forwards the "entities" of a received packet without decoding them.
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let packet = parse(&bytes).unwrap();
    let entities = packet.path("entities").unwrap().unwrap();
    let mut w = Writer::new(EncodeOptions::new());
    w.begin_dictionary(Some(1)).unwrap();
    w.string("forwarded").unwrap();
    w.raw(&entities).unwrap();
    w.end().unwrap();
    let out = w.finish().unwrap();
    let mut d = Dictionary::new();
    d.insert("forwarded", entities.to_owned().unwrap());
    assert_eq!(out, encode(&Variant::Dictionary(d)).unwrap());
    // Not across dialects.
    let mut w = Writer::new(EncodeOptions::godot3());
    assert!(matches!(
        w.raw(&entities).unwrap_err().kind(),
        ErrorKind::WriterMisuse { .. }
    ));
}

#[test]
fn writer_packed_f32_fast_paths_match_encode() {
    let v3: Vec<Vector3> = (0..5).map(|i| Vector3::new(i as f64, 0.5, -1.0)).collect();
    let f3: Vec<[f32; 3]> = v3.iter().map(|v| v.to_array().map(|x| x as f32)).collect();
    for double in [false, true] {
        let opts = EncodeOptions::new().with_double_precision(double);
        let mut w = Writer::new(opts);
        w.packed_vector3_f32(&f3).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            encode_with(&Variant::PackedVector3Array(v3.clone()), &opts).unwrap()
        );
    }
}
