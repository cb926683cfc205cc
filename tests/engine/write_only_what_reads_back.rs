//! Owned trees of any depth are safe with every trait (`Clone`, `Debug`, `==`, drop, encode),
//! and the encoder and the `Writer` refuse, with an error, what `validate` would reject with
//! the same options: the depth limit (raw values included), the object policy (raw values
//! included), the Godot 4 rule on a full object's `script` property.

use gdvariant::{
    owned::RawValue, Array, Dialect, Dictionary, EncodeOptions, ErrorKind, Object, ReadOptions,
    Variant, Writer,
};

/// A tree `depth` levels deep: arrays, dictionaries and full objects in turn.
fn deep(depth: usize) -> Variant {
    let mut v = Variant::Int(7);
    for i in 0..depth {
        v = match i % 3 {
            0 => Variant::Array(Array::new(vec![v, Variant::Nil])),
            1 => Variant::Dictionary(Dictionary::from_entries(vec![("k".into(), v)])),
            _ => Variant::from(Object::Full {
                class: "Node".into(),
                properties: vec![("p".into(), v)],
            }),
        };
    }
    v
}

/// Runs `f` on a thread with a 256 KiB stack.
fn small_stack(f: impl FnOnce() + Send) {
    crate::common::on_stack(256 * 1024, f)
}

/// Clone, Debug, ==, != and drop of a 100 000-level tree, on a small stack (about 0.3 s in a
/// debug build).
#[test]
fn every_trait_of_a_100_000_level_tree_is_stack_safe() {
    small_stack(|| {
        let v = deep(100_000);
        let c = v.clone();
        assert!(c == v);
        let mut other = deep(100_000);
        // Differs only at the very bottom.
        let mut cur = &mut other;
        loop {
            cur = match cur {
                Variant::Array(a) => &mut a.items[0],
                Variant::Dictionary(d) => d.values_mut().next().unwrap(),
                Variant::Object(o) => match &mut **o {
                    Object::Full { properties, .. } => &mut properties[0].1,
                    Object::Id(_) => unreachable!(),
                },
                leaf => {
                    *leaf = Variant::Int(8);
                    break;
                }
            };
        }
        assert!(c != other);
        let text = format!("{v:?}");
        assert!(text.starts_with("Array(Array { items: [Object(Full { class: \"Node\", properties: [(\"p\", Dictionary("), "{}", &text[..100]);
        assert!(text.contains(".."), "elided past DEBUG_DEPTH");
        assert!(text.len() < 10_000);
        let pretty = format!("{c:#?}");
        assert!(pretty.lines().count() < 1_000);
        drop(v);
        drop(c);
        drop(other);
    });
}

#[test]
fn shallow_debug_is_complete() {
    let v = Variant::from(vec![Variant::Int(1), "a".into()]);
    assert_eq!(
        format!("{v:?}"),
        "Array(Array { items: [Int(1), String(\"a\")] })"
    );
    assert_eq!(format!("{:?}", Variant::Nil), "Nil");
}

fn objects() -> EncodeOptions {
    EncodeOptions::new().with_full_objects(true)
}

fn with_script(script: Variant) -> Variant {
    Variant::from(Object::Full {
        class: "Node".into(),
        properties: vec![("name".into(), "n".into()), ("script".into(), script)],
    })
}

#[test]
fn the_script_property_rule_is_enforced_on_write() {
    for (script, ok) in [
        (Variant::Nil, true),
        ("res://player.gd".into(), true),
        // A script whose text starts with a BOM is written with a second BOM, so that it reads
        // back as that text, which is not a `res://` path: refused.
        ("\u{feff}res://bom.gd".into(), false),
        ("user://player.gd".into(), false),
        (Variant::Int(1), false),
        (Variant::StringName("res://a.gd".into()), false),
        (Variant::from(vec![Variant::Nil]), false),
    ] {
        let v = with_script(script.clone());
        let res = gdvariant::encode_with(&v, &objects());
        assert_eq!(res.is_ok(), ok, "{script:?}");
        match res {
            Ok(bytes) => {
                // What is written reads back.
                gdvariant::validate_with(&bytes, &ReadOptions::new().with_full_objects(true))
                    .unwrap();
            }
            Err(e) => assert_eq!(e.kind(), ErrorKind::InvalidObjectScript, "{script:?}"),
        }
        // The same through the streaming writer; after the error it goes on.
        let mut w = Writer::new(objects());
        w.begin_object("Node", None).unwrap();
        w.property("script").unwrap();
        assert_eq!(w.value(&script).is_ok(), ok, "{script:?}");
        if !ok {
            w.nil().unwrap();
        }
        w.end().unwrap();
        let bytes = w.finish().unwrap();
        gdvariant::validate_with(&bytes, &ReadOptions::new().with_full_objects(true)).unwrap();
    }
    // Godot 3 has no such rule.
    let g3 = objects().with_dialect(Dialect::Godot3);
    assert!(gdvariant::encode_with(&with_script(Variant::Int(1)), &g3).is_ok());
    // A name the reader would take for `script` (its text cut at a NUL) cannot be written at all.
    let v = Variant::from(Object::Full {
        class: "Node".into(),
        properties: vec![("script\0x".into(), Variant::Int(1))],
    });
    assert_eq!(
        gdvariant::encode_with(&v, &objects()).unwrap_err().kind(),
        ErrorKind::UnwritableString
    );
}

/// A raw value 100 levels deep, as received.
fn raw_deep(levels: usize) -> RawValue {
    let mut v = Variant::Nil;
    for _ in 0..levels {
        v = Variant::from(vec![v]);
    }
    let bytes = gdvariant::encode(&v).unwrap();
    RawValue::from_ref(&gdvariant::parse(&bytes).unwrap()).unwrap()
}

#[test]
fn raw_values_respect_the_depth_limit() {
    // 1000 open arrays and a raw 100-deep value: deeper than 1024.
    let raw = raw_deep(100);
    let mut w = Writer::default();
    for _ in 0..1000 {
        w.begin_array(None).unwrap();
    }
    let e = w.raw_value(&raw).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DepthExceeded { limit: 1024 }),
        "{e}"
    );
    // Shallower, it fits.
    let mut w = Writer::default();
    for _ in 0..900 {
        w.begin_array(None).unwrap();
    }
    w.raw_value(&raw).unwrap();
    for _ in 0..900 {
        w.end().unwrap();
    }
    let bytes = w.finish().unwrap();
    gdvariant::validate(&bytes).unwrap();
    // The same in an owned tree.
    let mut v = Variant::Raw(raw);
    for _ in 0..1000 {
        v = Variant::from(vec![v]);
    }
    let e = gdvariant::encode(&v).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DepthExceeded { .. }), "{e}");
    // And with a lower limit set.
    let e = gdvariant::encode_with(
        &Variant::from(vec![Variant::Raw(raw_deep(10))]),
        &EncodeOptions::new().with_max_depth(5),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DepthExceeded { limit: 5 }),
        "{e}"
    );
}

#[test]
fn raw_values_respect_the_object_policy() {
    let obj = with_script(Variant::Nil);
    let bytes = gdvariant::encode_with(&obj, &objects()).unwrap();
    let read = ReadOptions::new().with_full_objects(true);
    let raw = RawValue::from_ref(&gdvariant::parse_with(&bytes, &read).unwrap()).unwrap();
    let e = gdvariant::encode(&Variant::Raw(raw.clone())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ObjectsNotAllowed);
    let mut w = Writer::default();
    assert_eq!(
        w.raw(&gdvariant::parse_with(&bytes, &read).unwrap())
            .unwrap_err()
            .kind(),
        ErrorKind::ObjectsNotAllowed
    );
    assert!(w.finish().unwrap().is_empty());
    // Allowed with full objects.
    assert_eq!(
        gdvariant::encode_with(&Variant::Raw(raw), &objects()).unwrap(),
        bytes
    );
}
