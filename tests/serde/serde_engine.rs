//! serde reads the value the engine reads: every golden value of both engines, typed containers
//! converted, Godot 3 text decoded, 64-bit math narrowed, repeated keys as the engine keeps them;
//! checked against `to_owned` over the golden values and the decode corpus.

use std::collections::BTreeMap;

use gdvariant::{math::Vector3, ReadOptions};
use serde::Deserialize;

use crate::common;

#[test]
fn every_golden_value_of_both_engines_reads_as_a_variant_and_writes_the_engines_bytes() {
    use gdvariant::{encode_with, Dialect, EncodeOptions, Variant};
    for (engine, dialect) in [("godot4", Dialect::Godot4), ("godot3", Dialect::Godot3)] {
        let (_, cases) = common::encode_cases(engine);
        assert!(cases.len() > 100);
        for case in &cases {
            let ropts = ReadOptions::new()
                .with_dialect(dialect)
                .with_full_objects(case.objects);
            let wopts = EncodeOptions::new()
                .with_dialect(dialect)
                .with_full_objects(case.objects);
            let v: Variant = gdvariant::de::from_slice_with(&case.bytes, &ropts)
                .unwrap_or_else(|e| panic!("{engine} {}: {e}", case.name));
            let lazy = gdvariant::parse_with(&case.bytes, &ropts).unwrap();
            assert_eq!(v, lazy.to_owned().unwrap(), "{engine} {}", case.name);
            let bytes = gdvariant::ser::to_vec_with(&v, &wopts)
                .unwrap_or_else(|e| panic!("{engine} {}: {e}", case.name));
            assert_eq!(bytes, encode_with(&v, &wopts).unwrap(), "{}", case.name);
            // The engine's own bytes (Godot 3 left garbage in some NodePath padding), or its
            // rewriting of them.
            let expected = common::engine_rewrite(engine, &case.name, &case.bytes, &ropts);
            assert_eq!(bytes, expected, "{engine} {}", case.name);
        }
    }
}

/// serde reads the value the engine reads, as `to_owned` does: typed containers converted,
/// Godot 3 text decoded, 64-bit math narrowed unless double precision.
#[test]
fn serde_reads_what_the_engine_reads() {
    use gdvariant::{encode, owned::TypeInfo, Array, Dictionary, Variant, VariantType as T};
    // Array[int] holding what it does not declare: the engine converts true and 2.5, drops "x".
    let items = vec![
        Variant::Int(1),
        Variant::Bool(true),
        Variant::from("x"),
        Variant::Float(2.5),
    ];
    let typed = Variant::Array(Array::typed(TypeInfo::Builtin(T::Int), items));
    let bytes = encode(&typed).unwrap();
    let engine = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    let Variant::Array(a) = &engine else {
        panic!("{engine:?}")
    };
    let ints: Vec<i64> = a.items.iter().map(|x| x.as_i64().unwrap()).collect();
    assert_eq!(ints, [1, 1, 2]);
    assert_eq!(gdvariant::from_slice::<Vec<i64>>(&bytes).unwrap(), ints);
    assert_eq!(gdvariant::from_slice::<Variant>(&bytes).unwrap(), engine);
    assert_eq!(
        gdvariant::from_slice::<Vec<Variant>>(&bytes).unwrap(),
        a.items
    );
    // Inside a struct, next to plain values.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Holder {
        ids: Vec<i64>,
        name: String,
    }
    let mut d = Dictionary::new();
    d.insert("ids", typed.clone());
    d.insert("name", "n");
    let bytes = encode(&Variant::Dictionary(d)).unwrap();
    assert_eq!(
        gdvariant::from_slice::<Holder>(&bytes).unwrap(),
        Holder {
            ids: ints.clone(),
            name: "n".into()
        }
    );
    // Dictionary[int, String]: the key 1.0 reads as 1, and replaces the value of the key 1.
    let entries = vec![
        (Variant::Int(1), Variant::from("a")),
        (Variant::Float(1.0), Variant::from("b")),
        (Variant::Int(2), Variant::from("c")),
    ];
    let td = Dictionary::typed(
        TypeInfo::Builtin(T::Int),
        TypeInfo::Builtin(T::String),
        entries,
    );
    let bytes = encode(&Variant::Dictionary(td)).unwrap();
    let map: BTreeMap<i64, String> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(map, BTreeMap::from([(1, "b".into()), (2, "c".into())]));
    assert_eq!(
        gdvariant::from_slice::<Variant>(&bytes).unwrap(),
        gdvariant::parse(&bytes).unwrap().to_owned().unwrap()
    );
    // Array[float] holding an int: the engine converts it to 3.0.
    let floats = Variant::Array(Array::typed(
        TypeInfo::Builtin(T::Float),
        vec![Variant::Int(3), Variant::Float(0.5)],
    ));
    let bytes = encode(&floats).unwrap();
    let engine = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    let Variant::Array(a) = &engine else {
        panic!("{engine:?}")
    };
    assert_eq!(a.items, [Variant::Float(3.0), Variant::Float(0.5)]);
    assert_eq!(
        gdvariant::from_slice::<Vec<f64>>(&bytes).unwrap(),
        [3.0, 0.5]
    );
    assert_eq!(gdvariant::from_slice::<Variant>(&bytes).unwrap(), engine);
    // The engine's value presented through `deserialize_any` is an f64, not the int of the bytes.
    assert_eq!(
        gdvariant::from_slice::<Vec<Variant>>(&bytes).unwrap(),
        a.items
    );
    // Nested: an untyped Array holding the typed one, and a typed one inside a typed one.
    let outer = Variant::Array(Array::new(vec![floats.clone(), Variant::Int(9)]));
    let bytes = encode(&outer).unwrap();
    let engine = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(gdvariant::from_slice::<Variant>(&bytes).unwrap(), engine);
    let (inner, nine): (Vec<f64>, i64) = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!((inner.as_slice(), nine), ([3.0, 0.5].as_slice(), 9));
    let typed_outer = Variant::Array(Array::typed(
        TypeInfo::Builtin(T::Array),
        vec![floats.clone(), Variant::Nil],
    ));
    let bytes = encode(&typed_outer).unwrap();
    let engine = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    let Variant::Array(a) = &engine else {
        panic!("{engine:?}")
    };
    // The engine drops the Nil from an Array[Array] and converts inside the inner one.
    assert_eq!(a.items.len(), 1);
    assert_eq!(
        gdvariant::from_slice::<Vec<Vec<f64>>>(&bytes).unwrap(),
        [[3.0, 0.5]]
    );
    assert_eq!(gdvariant::from_slice::<Variant>(&bytes).unwrap(), engine);
    // An enum's `{name: value}` in a typed Dictionary: the engine's value, its key converted
    // (a NodePath key of a Dictionary[String, …] is the String of its path).
    #[derive(Deserialize, Debug, PartialEq)]
    enum Cmd {
        Move(i64),
        Stop,
    }
    let path = |p: &str| {
        Variant::from(gdvariant::NodePath {
            names: vec![p.into()],
            subnames: vec![],
            absolute: false,
        })
    };
    let wrapper = Variant::Dictionary(Dictionary::typed(
        TypeInfo::Builtin(T::String),
        TypeInfo::Builtin(T::Int),
        vec![(path("Move"), Variant::Int(2))],
    ));
    let bytes = encode(&wrapper).unwrap();
    let engine = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    let Variant::Dictionary(d) = &engine else {
        panic!("{engine:?}")
    };
    assert_eq!(d.get(&Variant::from("Move")), Some(&Variant::Int(2)));
    assert_eq!(gdvariant::from_slice::<Cmd>(&bytes).unwrap(), Cmd::Move(2));
    // As the bytes say when nothing converts; and a unit variant by its name, as usual.
    let plain = Variant::Dictionary(Dictionary::typed(
        TypeInfo::Builtin(T::String),
        TypeInfo::Builtin(T::Int),
        vec![(Variant::from("Move"), Variant::Int(7))],
    ));
    let bytes = encode(&plain).unwrap();
    assert_eq!(gdvariant::from_slice::<Cmd>(&bytes).unwrap(), Cmd::Move(7));
    assert_eq!(
        gdvariant::from_slice::<Cmd>(&encode(&Variant::from("Stop")).unwrap()).unwrap(),
        Cmd::Stop
    );
    // The engine drops a key it cannot convert: no entry, no variant then.
    let dropped = Variant::Dictionary(Dictionary::typed(
        TypeInfo::Builtin(T::String),
        TypeInfo::Builtin(T::Int),
        vec![(Variant::Int(5), Variant::Int(1))],
    ));
    let bytes = encode(&dropped).unwrap();
    assert_eq!(
        gdvariant::parse(&bytes).unwrap().to_owned().unwrap(),
        Variant::Dictionary(Dictionary::typed(
            TypeInfo::Builtin(T::String),
            TypeInfo::Builtin(T::Int),
            vec![]
        ))
    );
    let err = gdvariant::from_slice::<Cmd>(&bytes).unwrap_err();
    assert_eq!(err.offset(), Some(0), "{err}");
    assert!(err.message().contains("a Dictionary of one entry"), "{err}");
    // A typed container the engine reads as its bytes say is borrowed as usual.
    let names = Variant::Array(Array::typed(
        TypeInfo::Builtin(T::String),
        vec![Variant::from("a"), Variant::from("b")],
    ));
    let bytes = encode(&names).unwrap();
    assert_eq!(
        gdvariant::from_slice::<Vec<&str>>(&bytes).unwrap(),
        ["a", "b"]
    );
    // Godot 3: an overlong form is the character it encodes, in a String and a PoolStringArray.
    let g3 = ReadOptions::godot3();
    let overlong = [4, 0, 0, 0, 3, 0, 0, 0, 0xE0, 0x81, 0x81, 0];
    assert_eq!(
        gdvariant::de::from_slice_with::<String>(&overlong, &g3).unwrap(),
        "A"
    );
    assert_eq!(
        Variant::from(gdvariant::de::from_slice_with::<String>(&overlong, &g3).unwrap()),
        gdvariant::parse_with(&overlong, &g3)
            .unwrap()
            .to_owned()
            .unwrap()
    );
    let pool = [23, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0xE0, 0x81, 0x81, 0];
    assert_eq!(
        gdvariant::de::from_slice_with::<Vec<String>>(&pool, &g3).unwrap(),
        ["A"]
    );
    // 64-bit math: narrowed to f32 as a standard engine reads it, exact with double precision.
    let v = Variant::Vector3(Vector3::new(0.1, 0.2, 1e300));
    let wide = gdvariant::encode_with(
        &v,
        &gdvariant::EncodeOptions::new().with_double_precision(true),
    )
    .unwrap();
    let single: Vector3 = gdvariant::from_slice(&wide).unwrap();
    assert_eq!(
        single,
        Vector3::new(f64::from(0.1f32), f64::from(0.2f32), f64::INFINITY)
    );
    let double: Vector3 =
        gdvariant::de::from_slice_with(&wide, &ReadOptions::new().with_double_precision(true))
            .unwrap();
    assert_eq!(double, Vector3::new(0.1, 0.2, 1e300));
    for opts in [
        ReadOptions::new(),
        ReadOptions::new().with_double_precision(true),
    ] {
        let Variant::Vector3(owned) = gdvariant::parse_with(&wide, &opts)
            .unwrap()
            .to_owned()
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(
            gdvariant::de::from_slice_with::<Vector3>(&wide, &opts).unwrap(),
            owned
        );
    }
    let as_seq: Vec<f64> = gdvariant::from_slice(&wide).unwrap();
    assert_eq!(
        as_seq,
        [f64::from(0.1f32), f64::from(0.2f32), f64::INFINITY]
    );
}

/// Any value through `deserialize_any`, as a plain tree (floats by their bits).
#[derive(Debug, PartialEq)]
enum Tree {
    Unit,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    Seq(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tree, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Tree;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E>(self) -> Result<Tree, E> {
                Ok(Tree::Unit)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
                Ok(Tree::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
                Ok(Tree::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
                Ok(Tree::Uint(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
                Ok(Tree::Float(v.to_bits()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
                Ok(Tree::Str(v.into()))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Tree, E> {
                Ok(Tree::Bytes(v.into()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = a.next_element()? {
                    out.push(x);
                }
                Ok(Tree::Seq(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                // As a map target keeps them: a repeated key's value replaces the first's (the
                // engine's value of a Dictionary repeating a key).
                let mut out: Vec<(Tree, Tree)> = Vec::new();
                while let Some((k, v)) = a.next_entry()? {
                    match out.iter_mut().find(|(x, _)| *x == k) {
                        Some(e) => e.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Tree::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// serde reads the engine's value of every engine-written golden value (both engines), of
/// every golden value as the one element of every Godot 4 `Array[T]` (the engine's answers:
/// `tests/data/godot4/conversions.tsv`), and of every input of the decode corpus that
/// `validate` accepts: through `deserialize_any` the input reads exactly as the bytes of its
/// `to_owned` value (which `tests/engine/differential.rs` checks live against the engines), and a
/// `Variant` read through serde is `to_owned`'s. About 1 s in a debug build.
#[test]
fn serde_reads_what_to_owned_reads_over_the_golden_values() {
    use gdvariant::{Dialect, EncodeOptions, Variant};
    let mut inputs: Vec<(String, Vec<u8>, ReadOptions)> = Vec::new();
    let mut g4 = std::collections::HashMap::new();
    for (engine, dialect) in [("godot4", Dialect::Godot4), ("godot3", Dialect::Godot3)] {
        for c in common::encode_cases(engine).1 {
            let opts = ReadOptions::new()
                .with_dialect(dialect)
                .with_full_objects(c.objects);
            if dialect == Dialect::Godot4 && !c.objects {
                g4.insert(c.name.clone(), c.bytes.clone());
            }
            inputs.push((format!("{engine} {}", c.name), c.bytes, opts));
        }
    }
    let conversions =
        std::fs::read_to_string(common::data_dir().join("godot4").join("conversions.tsv")).unwrap();
    for line in conversions.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let t: u32 = f[1].parse().unwrap();
        let mut bytes = vec![28, 0, 1, 0];
        bytes.extend_from_slice(&t.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&g4[f[0]]);
        inputs.push((format!("{} in Array[{t}]", f[0]), bytes, ReadOptions::new()));
    }
    for (name, bytes) in common::decode_inputs() {
        for objects in [false, true] {
            let opts = ReadOptions::new().with_full_objects(objects);
            inputs.push((format!("decode {name}"), bytes.clone(), opts));
        }
    }
    let (mut checked, mut not_fixed) = (0, 0);
    for (name, bytes, opts) in &inputs {
        let Ok(owned) = gdvariant::parse_with(bytes, opts).and_then(|v| v.to_owned()) else {
            continue;
        };
        let eopts = EncodeOptions::new()
            .with_dialect(opts.dialect())
            .with_full_objects(opts.full_objects())
            .with_double_precision(opts.double_precision());
        let engine_bytes = gdvariant::encode_with(&owned, &eopts).unwrap();
        if gdvariant::parse_with(&engine_bytes, opts).and_then(|v| v.to_owned())
            != Ok(owned.clone())
        {
            // Re-encoding is not a fixed point (text beginning with U+FEFF: the engine strips
            // one byte-order mark when it reads text back): no bytes to compare with.
            not_fixed += 1;
            continue;
        }
        let ours = gdvariant::de::from_slice_with::<Tree>(bytes, opts);
        let engines = gdvariant::de::from_slice_with::<Tree>(&engine_bytes, opts);
        match (&ours, &engines) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}"),
            // A Signal has no form in serde's data model, whichever bytes hold it.
            (Err(a), Err(b)) => assert_eq!(a.message(), b.message(), "{name}"),
            _ => panic!("{name}: {ours:?} vs {engines:?}"),
        }
        assert_eq!(
            gdvariant::de::from_slice_with::<Variant>(bytes, opts).as_ref(),
            Ok(&owned),
            "{name}"
        );
        checked += 1;
    }
    eprintln!("{checked} values read as to_owned's, {not_fixed} not compared");
    assert!(checked > 9000 && not_fixed < 20, "{checked} {not_fixed}");
}

/// A dictionary that repeats a key: the engine keeps one entry (the last value). A map target and
/// `Variant` read that value; a derived struct, which cannot take a field twice, says so with the
/// field and the offset instead of silently reading the first value.
#[test]
fn a_repeated_key_reads_as_the_engine_keeps_it_or_is_an_error() {
    // {"id": 1, "id": 2} as Godot 4 writes a Dictionary (the engine itself never writes a key twice).
    let mut b = vec![27, 0, 0, 0, 2, 0, 0, 0];
    for v in [1u8, 2] {
        b.extend_from_slice(&[4, 0, 0, 0, 2, 0, 0, 0, b'i', b'd', 0, 0]);
        b.extend_from_slice(&[2, 0, 0, 0, v, 0, 0, 0]);
    }
    let engine = gdvariant::parse(&b).unwrap().to_owned().unwrap();
    assert_eq!(engine.as_dictionary().unwrap().len(), 1);

    let m: BTreeMap<String, i64> = gdvariant::from_slice(&b).unwrap();
    assert_eq!(m, BTreeMap::from([("id".to_string(), 2)]));
    let v: gdvariant::Variant = gdvariant::from_slice(&b).unwrap();
    assert_eq!(v, engine);

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Only {
        id: i64,
    }
    let e = gdvariant::from_slice::<Only>(&b).unwrap_err();
    assert!(e.to_string().contains("duplicate field `id`"), "{e}");
    assert!(e.offset().is_some(), "{e}");
}
