//! `VariantRef::path`, `path_item` and `element`: paths into dictionaries, arrays and packed
//! arrays of every kind, in both dialects.

use gdvariant::{
    math::Color, math::Vector2, math::Vector3, math::Vector4, packed::PackedElement as E,
    path::PathItem, text, Dialect, EncodeOptions, ReadOptions, Variant,
};

fn bytes(text: &str, dialect: Dialect, double: bool) -> Vec<u8> {
    let v = text::from_str_values(text, dialect, double)
        .unwrap()
        .remove(0);
    let opts = EncodeOptions::new()
        .with_dialect(dialect)
        .with_double_precision(double);
    gdvariant::encode_with(&v, &opts).unwrap()
}

#[test]
fn path_items_reach_every_kind_of_packed_array() {
    let text = r#"{
"b": PackedByteArray(7, 255),
"i": PackedInt32Array(1, -2),
"l": PackedInt64Array(3, -9223372036854775808),
"f": PackedFloat32Array(0.5, 0.1),
"d": PackedFloat64Array(0.25, 0.1),
"s": PackedStringArray("a", "héllo"),
"v2": PackedVector2Array(1, 2, 3, 4),
"v3": PackedVector3Array(1, 2, 3, 4, 5, 6),
"v4": PackedVector4Array(1, 2, 3, 4, 5, 6, 7, 8),
"c": PackedColorArray(0.5, 0.25, 1, 1),
"nested": [{ "x": PackedInt32Array(5) }]
}"#;
    for double in [false, true] {
        let b = bytes(text, Dialect::Godot4, double);
        let v = gdvariant::parse(&b).unwrap();
        for (path, want) in [
            ("b/1", E::Byte(255)),
            ("i/1", E::Int32(-2)),
            ("l/1", E::Int64(i64::MIN)),
            ("f/1", E::Float32(0.1)),
            ("d/1", E::Float64(0.1)),
            ("s/1", E::String("héllo")),
            ("v2/1", E::Vector2(Vector2::new(3.0, 4.0))),
            ("v3/1", E::Vector3(Vector3::new(4.0, 5.0, 6.0))),
            ("v4/1", E::Vector4(Vector4::new(5.0, 6.0, 7.0, 8.0))),
            ("c/0", E::Color(Color::new(0.5, 0.25, 1.0, 1.0))),
            ("/nested/0/x/0/", E::Int32(5)),
        ] {
            let got = v.path_item(path).unwrap().and_then(PathItem::element);
            assert_eq!(got, Some(want), "{path} double={double}");
            // `path` finds values only.
            assert!(v.path(path).unwrap().is_none(), "{path}");
        }
        // Past the end, a non-index, a path through an element, a value.
        for path in ["b/2", "s/9", "i/x", "i/0/0", "nope/0"] {
            assert!(v.path_item(path).unwrap().is_none(), "{path}");
        }
        let i = v.path_item("i").unwrap().and_then(PathItem::value).unwrap();
        assert_eq!(i.as_packed::<i32>().unwrap().to_vec(), [1, -2]);
        assert_eq!(i.element(0).unwrap(), Some(E::Int32(1)));
        assert_eq!(v.element(0).unwrap(), None); // not a packed array
    }
}

#[test]
fn godot3_pool_arrays_and_element_variants() {
    let b = bytes(
        r#"[PoolRealArray(1.5), PoolStringArray("x"), PoolColorArray(1, 0, 0, 1)]"#,
        Dialect::Godot3,
        false,
    );
    let v = gdvariant::parse_with(&b, &ReadOptions::godot3()).unwrap();
    let e = v.path_item("0/0").unwrap().unwrap().element().unwrap();
    assert_eq!(e, E::Float32(1.5));
    assert_eq!(Variant::from(e), Variant::Float(1.5));
    let e = v.path_item("1/0").unwrap().unwrap().element().unwrap();
    assert_eq!(Variant::from(e), Variant::String("x".into()));
    let e = v.path_item("2/0").unwrap().unwrap().element().unwrap();
    assert_eq!(
        Variant::from(e),
        Variant::Color(Color::new(1.0, 0.0, 0.0, 1.0))
    );
    assert_eq!(Variant::from(E::Byte(9)), Variant::Int(9));
    assert_eq!(Variant::from(E::Int32(-9)), Variant::Int(-9));
}

#[test]
fn the_sample_capture_tags() {
    let b = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let v = gdvariant::parse(&b).unwrap();
    let tag = v.path_item("entities/7/tags/0").unwrap().unwrap();
    assert!(
        matches!(tag, PathItem::Element(E::String("npc"))),
        "{tag:?}"
    );
    let pos = v
        .path_item("entities/7/pos")
        .unwrap()
        .unwrap()
        .value()
        .unwrap();
    assert_eq!(
        pos.offset(),
        v.path("entities/7/pos").unwrap().unwrap().offset()
    );
}
