//! Dictionary key identity as the engine's, both dialects: the owned `Dictionary` (insert,
//! lookup) and `to_owned` of bytes that repeat a key (what `bytes_to_var` makes of them).
//!
//! Each pair case was checked against the live engines (`tests/godot/keys4.gd`,
//! `tests/godot/keys3.gd`: the engine assigns both keys to an empty Dictionary and prints the
//! size); `engines_agree_with_the_recorded_sizes` runs those scripts again when the engines are
//! installed (required when `GDVARIANT_LIVE_GODOTn=1`, as in CI).

use crate::common;

use std::collections::HashMap;
use std::process::Command;

use gdvariant::{
    math::Basis, math::Color, math::Quaternion, math::Transform2D, math::Vector2, math::Vector3,
    owned::TypeInfo, Array, Dialect, Dictionary, NodePath, Object, ReadOptions, Variant,
    VariantType, Writer,
};

fn arr(items: Vec<Variant>) -> Variant {
    Variant::Array(Array::new(items))
}

fn dict(pairs: Vec<(Variant, Variant)>) -> Variant {
    Variant::Dictionary(Dictionary::from_entries(pairs))
}

fn sn(s: &str) -> Variant {
    Variant::StringName(s.into())
}

const NAN: f64 = f64::NAN;

/// (name, key 1, key 2, the engine's dictionary size after assigning both).
fn godot4_pairs() -> Vec<(&'static str, Variant, Variant, usize)> {
    let v2 = |x, y| Variant::Vector2(Vector2::new(x, y));
    let basis_nan = || {
        Variant::from(Basis::from_axes(
            Vector3::new(NAN, 0.0, 0.0),
            Vector3::default(),
            Vector3::default(),
        ))
    };
    let t2d = |x: f64| {
        Variant::from(Transform2D {
            x: Vector2::new(x, 0.0),
            y: Vector2::new(0.0, 1.0),
            origin: Vector2::default(),
        })
    };
    vec![
        ("int_float", 1.into(), 1.0.into(), 2),
        ("str_sn", "a".into(), sn("a"), 1),
        ("nan", NAN.into(), (-NAN).into(), 1),
        ("zero", 0.0.into(), (-0.0).into(), 1),
        ("vec2_nan", v2(NAN, 0.0), v2(NAN, 0.0), 1),
        ("vec2_zero", v2(-0.0, 0.0), v2(0.0, 0.0), 1),
        ("arr_nan", arr(vec![NAN.into()]), arr(vec![NAN.into()]), 2),
        (
            "arr_zero",
            arr(vec![(-0.0).into()]),
            arr(vec![0.0.into()]),
            1,
        ),
        (
            "arr_int_float",
            arr(vec![1.into()]),
            arr(vec![1.0.into()]),
            2,
        ),
        ("arr_str_sn", arr(vec!["a".into()]), arr(vec![sn("a")]), 2),
        (
            "arr_arr_nan",
            arr(vec![arr(vec![NAN.into()])]),
            arr(vec![arr(vec![NAN.into()])]),
            2,
        ),
        (
            "arr_vec2_nan",
            arr(vec![v2(NAN, 0.0)]),
            arr(vec![v2(NAN, 0.0)]),
            1,
        ),
        (
            "arr_dict_nan",
            arr(vec![dict(vec![("x".into(), NAN.into())])]),
            arr(vec![dict(vec![("x".into(), NAN.into())])]),
            2,
        ),
        (
            "arr_quat_nan",
            arr(vec![Quaternion::new(NAN, 0.0, 0.0, 0.0).into()]),
            arr(vec![Quaternion::new(NAN, 0.0, 0.0, 0.0).into()]),
            1,
        ),
        (
            "arr_pf_nan",
            arr(vec![vec![NAN].into()]),
            arr(vec![vec![NAN].into()]),
            1,
        ),
        (
            "dict_same",
            dict(vec![("x".into(), 1.into())]),
            dict(vec![("x".into(), 1.into())]),
            1,
        ),
        (
            "dict_order",
            dict(vec![("x".into(), 1.into()), ("y".into(), 2.into())]),
            dict(vec![("y".into(), 2.into()), ("x".into(), 1.into())]),
            2,
        ),
        (
            "dict_nan_value",
            dict(vec![("x".into(), NAN.into())]),
            dict(vec![("x".into(), NAN.into())]),
            2,
        ),
        (
            "dict_key_nan",
            dict(vec![(NAN.into(), 1.into())]),
            dict(vec![(NAN.into(), 1.into())]),
            1,
        ),
        (
            "dict_str_sn",
            dict(vec![("a".into(), 1.into())]),
            dict(vec![(sn("a"), 1.into())]),
            1,
        ),
        (
            "dict_zero",
            dict(vec![("x".into(), 0.0.into())]),
            dict(vec![("x".into(), (-0.0).into())]),
            1,
        ),
        ("p32_nan", vec![f32::NAN].into(), vec![f32::NAN].into(), 1),
        ("p32_zero", vec![-0.0f32].into(), vec![0.0f32].into(), 1),
        (
            "pv2_nan",
            vec![Vector2::new(NAN, 0.0)].into(),
            vec![Vector2::new(NAN, 0.0)].into(),
            1,
        ),
        (
            "pcol_nan",
            vec![Color::new(f32::NAN, 0.0, 0.0, 1.0)].into(),
            vec![Color::new(f32::NAN, 0.0, 0.0, 1.0)].into(),
            1,
        ),
        ("pstr", vec!["a"].into(), vec!["a"].into(), 1),
        ("basis_nan", basis_nan(), basis_nan(), 1),
        ("t2d_zero", t2d(-0.0), t2d(0.0), 1),
        (
            "color_nan",
            Color::new(f32::NAN, 0.0, 0.0, 1.0).into(),
            Color::new(f32::NAN, 0.0, 0.0, 1.0).into(),
            1,
        ),
        (
            "node_path",
            NodePath::parse_lossy("a/b:c").into(),
            NodePath::parse_lossy("a/b:c").into(),
            1,
        ),
        ("null", Variant::Nil, Variant::Nil, 1),
        ("nil_null_object", Variant::Nil, null_id(), 2),
        ("null_objects", null_id(), null_full(), 1),
        (
            "typed_untyped",
            Variant::Array(Array::typed(
                TypeInfo::Builtin(VariantType::Int),
                vec![1.into()],
            )),
            arr(vec![1.into()]),
            1,
        ),
        ("rid", Variant::Rid(0), Variant::Rid(0), 1),
    ]
}

fn godot3_pairs() -> Vec<(&'static str, Variant, Variant, usize)> {
    let v2 = |x, y| Variant::Vector2(Vector2::new(x, y));
    let basis_nan = || {
        Variant::from(Basis::from_axes(
            Vector3::new(NAN, 0.0, 0.0),
            Vector3::default(),
            Vector3::default(),
        ))
    };
    let t2d = |x: f64| {
        Variant::from(Transform2D {
            x: Vector2::new(x, 0.0),
            y: Vector2::new(0.0, 1.0),
            origin: Vector2::default(),
        })
    };
    vec![
        ("int_float", 1.into(), 1.0.into(), 2),
        ("nan", NAN.into(), (-NAN).into(), 1),
        ("zero", 0.0.into(), (-0.0).into(), 1),
        ("vec2_nan", v2(NAN, 0.0), v2(NAN, 0.0), 1),
        ("vec2_zero", v2(-0.0, 0.0), v2(0.0, 0.0), 1),
        ("arr_nan", arr(vec![NAN.into()]), arr(vec![NAN.into()]), 1),
        (
            "arr_zero",
            arr(vec![(-0.0).into()]),
            arr(vec![0.0.into()]),
            1,
        ),
        (
            "arr_int_float",
            arr(vec![1.into()]),
            arr(vec![1.0.into()]),
            2,
        ),
        (
            "arr_arr_nan",
            arr(vec![arr(vec![NAN.into()])]),
            arr(vec![arr(vec![NAN.into()])]),
            1,
        ),
        (
            "dict_same",
            dict(vec![("x".into(), 1.into())]),
            dict(vec![("x".into(), 1.into())]),
            2,
        ),
        ("p32_nan", vec![f32::NAN].into(), vec![f32::NAN].into(), 2),
        ("p32_zero", vec![-0.0f32].into(), vec![0.0f32].into(), 2),
        (
            "pv2_nan",
            vec![Vector2::new(NAN, 0.0)].into(),
            vec![Vector2::new(NAN, 0.0)].into(),
            1,
        ),
        (
            "pv2_zero",
            vec![Vector2::new(-0.0, 0.0)].into(),
            vec![Vector2::new(0.0, 0.0)].into(),
            1,
        ),
        (
            "pcol_nan",
            vec![Color::new(f32::NAN, 0.0, 0.0, 1.0)].into(),
            vec![Color::new(f32::NAN, 0.0, 0.0, 1.0)].into(),
            1,
        ),
        ("pstr", vec!["a"].into(), vec!["a"].into(), 1),
        ("pint", vec![1i32].into(), vec![1i32].into(), 1),
        ("basis_nan", basis_nan(), basis_nan(), 1),
        ("t2d_zero", t2d(-0.0), t2d(0.0), 1),
        (
            "node_path",
            NodePath::parse_lossy("a/b:c").into(),
            NodePath::parse_lossy("a/b:c").into(),
            1,
        ),
        ("null", Variant::Nil, Variant::Nil, 1),
        ("nil_null_object", Variant::Nil, null_id(), 2),
        ("null_objects", null_id(), null_full(), 1),
    ]
}

/// The null object in its "as id" form (what `bytes_to_var` makes of an object id 0).
fn null_id() -> Variant {
    Variant::from(Object::Id(0))
}

/// The null object as a full object with an empty class name.
fn null_full() -> Variant {
    Variant::from(Object::Full {
        class: String::new(),
        properties: vec![],
    })
}

/// Writes a key; a null object as the bytes of an object id 0 (the engines decode it as a null
/// Object, a key apart from Nil, although `var_to_bytes` writes a null object as Nil).
fn write_key(w: &mut Writer, k: &Variant, dialect: Dialect) {
    if let Variant::Object(o) = k {
        if matches!(&**o, Object::Id(0))
            || matches!(&**o, Object::Full { class, .. } if class.is_empty())
        {
            let ty = match dialect {
                Dialect::Godot4 => 24,
                _ => 17,
            };
            let mut bytes = vec![ty, 0, 1, 0];
            bytes.extend_from_slice(&0u64.to_le_bytes());
            let opts = ReadOptions::default().with_dialect(dialect);
            w.raw(&gdvariant::parse_with(&bytes, &opts).unwrap())
                .unwrap();
            return;
        }
    }
    w.value(k).unwrap();
}

/// Our size for a pair case, by insert (in both orders, and once more through a dictionary
/// large enough to be indexed) and by `to_owned` of the bytes of a dictionary holding both keys.
fn our_size(dialect: Dialect, k1: &Variant, k2: &Variant) -> usize {
    let mut d = Dictionary::new();
    d.insert_with(dialect, k1.clone(), 1.into());
    d.insert_with(dialect, k2.clone(), 2.into());
    let size = d.len();

    // Behind 20 other keys the dictionary has its hash index: the same answer.
    let mut big = Dictionary::new();
    for i in 0..20 {
        big.insert_with(dialect, Variant::Int(1000 + i), Variant::Nil);
    }
    big.insert_with(dialect, k1.clone(), 1.into());
    big.insert_with(dialect, k2.clone(), 2.into());
    assert_eq!(big.len() - 20, size, "{k1:?} {k2:?} indexed");

    // Decoding bytes that hold both keys merges them the same way. Floats go through f32 in
    // Godot 3's bytes (no double-precision form), which keeps NaN and -0.0.
    let mut w = Writer::new(
        gdvariant::EncodeOptions::new()
            .with_dialect(dialect)
            .with_double_precision(true),
    );
    w.begin_dictionary(Some(2)).unwrap();
    write_key(&mut w, k1, dialect);
    w.int(1).unwrap();
    write_key(&mut w, k2, dialect);
    w.int(2).unwrap();
    w.end().unwrap();
    let bytes = w.finish().unwrap();
    let owned = gdvariant::parse_with(&bytes, &ReadOptions::default().with_dialect(dialect))
        .unwrap()
        .to_owned()
        .unwrap();
    let decoded = owned.as_dictionary().unwrap();
    assert_eq!(decoded.len(), size, "{k1:?} {k2:?} decoded");
    // The first key is kept, with the last value.
    assert_eq!(
        decoded.entries()[0].1,
        if size == 1 {
            Variant::Int(2)
        } else {
            Variant::Int(1)
        }
    );
    size
}

#[test]
fn pairs_are_the_same_key_exactly_when_the_engine_says_so() {
    for (dialect, cases) in [
        (Dialect::Godot4, godot4_pairs()),
        (Dialect::Godot3, godot3_pairs()),
    ] {
        for (name, k1, k2, expected) in cases {
            assert_eq!(our_size(dialect, &k1, &k2), expected, "{dialect}: {name}");
        }
    }
}

#[test]
fn repeated_keys_in_bytes_decode_as_bytes_to_var_does() {
    // {"a": 1, "b": 2, "a": 3} in the bytes: Godot 4.6 gives {"a": 3, "b": 2}.
    let mut w = Writer::default();
    w.begin_dictionary(Some(3)).unwrap();
    for (k, v) in [("a", 1), ("b", 2), ("a", 3)] {
        w.string(k).unwrap();
        w.int(v).unwrap();
    }
    w.end().unwrap();
    let bytes = w.finish().unwrap();
    let v = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(
        v.as_dictionary().unwrap().entries(),
        &[("a".into(), Variant::Int(3)), ("b".into(), Variant::Int(2))]
    );
    // "a" then &"a": one entry, the String key kept; &"a" then "a": the StringName kept.
    for (first, second) in [("a".into(), sn("a")), (sn("a"), "a".into())] {
        let d = Dictionary::from_entries(vec![(first.clone(), 1.into()), (second, 2.into())]);
        let bytes = gdvariant::encode(&Variant::Dictionary(d)).unwrap();
        let v = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
        assert_eq!(
            v.as_dictionary().unwrap().entries(),
            &[(first, Variant::Int(2))]
        );
    }
    // Two keys that are the same object id: each decodes to a new instance, two entries. Two
    // null objects (id 0) are the same key. Bytes as in `tests/godot/keys4.gd`'s record.
    for (id, n) in [(5u64, 2), (0, 1)] {
        let mut bytes = vec![27, 0, 0, 0, 2, 0, 0, 0];
        for i in 0..2u8 {
            bytes.extend_from_slice(&[24, 0, 1, 0]);
            bytes.extend_from_slice(&id.to_le_bytes());
            bytes.extend_from_slice(&[2, 0, 0, 0, i, 0, 0, 0]);
        }
        let v = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
        let d = v.as_dictionary().unwrap();
        assert_eq!(d.len(), n, "object id {id}");
        assert_eq!(d.entries()[0].0, Variant::from(Object::Id(id)));
    }
}

/// Nil and a null object are two keys, but `var_to_bytes` writes a null object as Nil: the
/// bytes hold two Nil keys and read back as one, with the last value. Checked live (Godot 4.6.3):
/// `d[null] = 1; d[bytes_to_var(<object id 0>)] = 2` has size 2, `var_to_bytes(d)` is the bytes
/// below, and `bytes_to_var` of them is `{ null: 2 }`.
#[test]
fn a_null_object_key_is_written_as_nil() {
    let d = Dictionary::from_entries(vec![(Variant::Nil, 1.into()), (null_id(), 2.into())]);
    let bytes = gdvariant::encode(&Variant::Dictionary(d)).unwrap();
    let engine = "1b00000002000000000000000200000001000000000000000200000002000000";
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, engine);
    let back = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(
        back.as_dictionary().unwrap().entries(),
        &[(Variant::Nil, Variant::Int(2))]
    );
}

/// 100 000 keys of each hostile kind: all the same key, all distinct, all hashing alike but
/// equal to none (arrays holding a NaN), all distinct strings with a long common prefix. Each
/// is one linear pass (a quadratic one would take minutes); about 1 s in all in a debug build.
#[test]
fn hostile_key_sets_stay_linear() {
    const N: usize = 100_000;
    type KeyOf = Box<dyn Fn(usize) -> Variant>;
    let cases: Vec<(&str, KeyOf, usize)> = vec![
        ("same", Box::new(|_| Variant::from("a")), 1),
        ("distinct ints", Box::new(|i| Variant::Int(i as i64)), N),
        ("NaN arrays", Box::new(|_| arr(vec![NAN.into()])), N),
        (
            "long prefix",
            Box::new(|i| Variant::from(format!("{}{i}", "k".repeat(64)))),
            N,
        ),
    ];
    for (name, key, expected) in cases {
        // Through insert.
        let mut d = Dictionary::new();
        for i in 0..N {
            d.insert(key(i), Variant::Int(i as i64));
        }
        assert_eq!(d.len(), expected, "{name}: insert");
        // Through to_owned of the bytes (the keys repeated as they come).
        let mut w = Writer::default();
        w.begin_dictionary(Some(N)).unwrap();
        for i in 0..N {
            w.value(&key(i)).unwrap();
            w.int(i as i64).unwrap();
        }
        w.end().unwrap();
        let bytes = w.finish().unwrap();
        let v = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
        let decoded = v.as_dictionary().unwrap();
        assert_eq!(decoded.len(), expected, "{name}: to_owned");
        if expected == 1 {
            assert_eq!(decoded.entries()[0].1, Variant::Int(N as i64 - 1));
        }
        // Lookups find what was inserted.
        if name != "NaN arrays" {
            assert_eq!(
                d.get(&key(N - 1)),
                Some(&Variant::Int(N as i64 - 1)),
                "{name}"
            );
        }
    }
}

#[test]
fn lookups_and_removal_keep_the_index_right() {
    let mut d: Dictionary = (0..100).map(|i| (format!("k{i}"), i)).collect();
    assert_eq!(d.get_str("k42"), Some(&Variant::Int(42)));
    assert_eq!(d.get(&sn("k42")), Some(&Variant::Int(42)));
    assert_eq!(d.remove(&"k10".into()), Some(Variant::Int(10)));
    assert_eq!(d.len(), 99);
    assert_eq!(d.get_str("k10"), None);
    assert_eq!(d.get_str("k11"), Some(&Variant::Int(11)));
    assert_eq!(d.entries()[10].0, Variant::from("k11"));
    d.retain(|_, v| v.as_i64().unwrap() % 2 == 0);
    assert_eq!(d.len(), 49);
    assert_eq!(d.get_str("k98"), Some(&Variant::Int(98)));
    assert_eq!(d.get_str("k97"), None);
    d.insert(Variant::StringName("k98".into()), 0);
    assert_eq!(d.len(), 49);
    assert_eq!(d.entries().last().unwrap().0, Variant::from("k98"));
    for v in d.values_mut() {
        *v = Variant::Nil;
    }
    assert!(d.values().all(Variant::is_nil));
    // Kept as given: repeated keys are found first-first.
    let e = Dictionary::from_entries(
        (0..20)
            .map(|i| (Variant::Int(i % 10), Variant::Int(i)))
            .collect(),
    );
    assert_eq!(e.len(), 20);
    assert_eq!(e.get(&Variant::Int(3)), Some(&Variant::Int(3)));
    #[cfg(feature = "std")]
    {
        let m: HashMap<&str, i32> = HashMap::from([("x", 1), ("y", 2)]);
        let from_map = Dictionary::from(m);
        assert_eq!(from_map.get_str("y"), Some(&Variant::Int(2)));
    }
}

/// Runs `keys{n}.gd` in engine `n`; `None` when the engine is not installed (and not required).
fn engine_sizes(n: u32) -> Option<HashMap<String, usize>> {
    if !common::engine_ready(
        n,
        "its live key identity check (the recorded sizes are still checked)",
    ) {
        return None;
    }
    let exe = common::godot_exe(n);
    let dir = common::scratch_dir(&format!("keys{n}"));
    std::fs::copy(
        common::godot_dir().join(format!("keys{n}.gd")),
        dir.join(format!("keys{n}.gd")),
    )
    .unwrap();
    let out = Command::new(&exe)
        .arg(&dir)
        .arg(format!("keys{n}.gd"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("keys{n}: done")),
        "Godot {n} failed: {text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    Some(
        text.lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(name, size)| (name.to_string(), size.trim().parse().unwrap()))
            .collect(),
    )
}

#[test]
fn engines_agree_with_the_recorded_sizes() {
    for (n, cases) in [(4, godot4_pairs()), (3, godot3_pairs())] {
        let Some(sizes) = engine_sizes(n) else {
            continue;
        };
        assert_eq!(sizes.len(), cases.len(), "Godot {n}: one line per case");
        for (name, _, _, expected) in cases {
            assert_eq!(sizes.get(name), Some(&expected), "Godot {n}: {name}");
        }
    }
}

/// The text reader merges repeated keys as the engine's `str_to_var` / `str2var` does, by the
/// same key identity as `to_owned` of bytes: the first key and its position, the last value.
/// Recorded live (Godot 4.6.3 and 3.2.3: the size of `str_to_var(text)`).
#[cfg(feature = "std")]
#[test]
fn the_text_reader_merges_keys_as_str_to_var() {
    use gdvariant::text;
    let g4: &[(&str, usize)] = &[
        (r#"{"a": 1, &"a": 2}"#, 1),
        ("{1: 1, 1.0: 2}", 2),
        ("{-0.0: 1, 0.0: 2}", 1),
        ("{nan: 1, nan: 2}", 1),
        ("{[nan]: 1, [nan]: 2}", 2),
        ("{[1]: 1, [1.0]: 2}", 2),
        ("{Vector2(-0.0, 0): 1, Vector2(0, 0): 2}", 1),
        (r#"{"k": 1, "j": 2, "k": 3}"#, 2),
        (r#"{{"x": 1}: 1, {"x": 1}: 2}"#, 1),
        ("{null: 1, null: 2}", 1),
    ];
    let g3: &[(&str, usize)] = &[
        (r#"{"a": 1, "a": 2}"#, 1),
        ("{1: 1, 1.0: 2}", 2),
        ("{-0.0: 1, 0.0: 2}", 1),
        ("{nan: 1, nan: 2}", 1),
        ("{[nan]: 1, [nan]: 2}", 1),
        (r#"{{"x": 1}: 1, {"x": 1}: 2}"#, 2),
        ("{PoolRealArray(-0.0): 1, PoolRealArray(0.0): 2}", 2),
    ];
    for (dialect, cases) in [(Dialect::Godot4, g4), (Dialect::Godot3, g3)] {
        for (input, size) in cases {
            let v = text::from_str(input, dialect).unwrap();
            let d = v.as_dictionary().unwrap();
            assert_eq!(d.len(), *size, "{dialect}: {input}");
            // Two keys in one: the first key kept, with the last value.
            if *size == 1 {
                assert_eq!(d.entries()[0].1, Variant::Int(2), "{dialect}: {input}");
            }
        }
    }
    // "a" then &"a": the String key is kept.
    let v = text::from_str(r#"{"a": 1, &"a": 2}"#, Dialect::Godot4).unwrap();
    assert_eq!(
        v.as_dictionary().unwrap().entries(),
        &[("a".into(), Variant::Int(2))]
    );
    let v = text::from_str(r#"{"k": 1, "j": 2, "k": 3}"#, Dialect::Godot4).unwrap();
    assert_eq!(
        v.as_dictionary().unwrap().entries(),
        &[("k".into(), Variant::Int(3)), ("j".into(), Variant::Int(2))]
    );
}

/// The JSON reader merges repeated keys by the same rule (Godot 4's), for plain objects and
/// for `$Dictionary` pairs.
#[cfg(feature = "std")]
#[test]
fn the_json_reader_merges_keys_as_bytes_to_var() {
    use gdvariant::json;
    let cases: &[(&str, usize)] = &[
        (r#"{"k": 1, "j": 2, "k": 3}"#, 2),
        (
            r#"{"$Dictionary": [["a", 1], [{"$StringName": "a"}, 2]]}"#,
            1,
        ),
        (r#"{"$Dictionary": [[1, 1], [1.0, 2]]}"#, 2),
        (r#"{"$Dictionary": [[-0.0, 1], [0.0, 2]]}"#, 1),
        (
            r#"{"$Dictionary": [[{"$float": "nan"}, 1], [{"$float": "nan"}, 2]]}"#,
            1,
        ),
        (
            r#"{"$Dictionary": [[[{"$float": "nan"}], 1], [[{"$float": "nan"}], 2]]}"#,
            2,
        ),
        (
            r#"{"$Dictionary": [[{"$Vector2": [-0.0, 0.0]}, 1], [{"$Vector2": [0.0, 0.0]}, 2]]}"#,
            1,
        ),
        (r#"{"$Dictionary": [[null, 1], [{"$ObjectId": 0}, 2]]}"#, 2),
        (
            r#"{"$Dictionary": [[{"$ObjectId": 0}, 1], [{"$Object": {"class": "", "properties": []}}, 2]]}"#,
            1,
        ),
    ];
    for (input, size) in cases {
        let v = json::from_str(input).unwrap();
        let d = v.as_dictionary().unwrap();
        assert_eq!(d.len(), *size, "{input}");
    }
    let v = json::from_str(r#"{"$Dictionary": [["a", 1], [{"$StringName": "a"}, 2]]}"#).unwrap();
    assert_eq!(
        v.as_dictionary().unwrap().entries(),
        &[("a".into(), Variant::Int(2))]
    );
}
