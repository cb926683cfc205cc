//! serde's writers: `to_vec` and `to_writer` (through the streaming `Writer`) give the same
//! bytes and errors; writing stops at serde's nesting limit.

use gdvariant::math::Vector3;
use serde::Serialize;

#[test]
fn writing_is_bounded_by_serdes_nesting_limit() {
    use gdvariant::{Array, Variant};
    let nested = |depth: usize| {
        let mut v = Variant::Int(1);
        for _ in 0..depth {
            v = Variant::Array(Array::new(vec![v]));
        }
        v
    };
    // 128 open containers at most: the deepest value inside sits in the 128th.
    let ok = nested(gdvariant::ser::RECURSION_LIMIT);
    assert_eq!(
        gdvariant::to_vec(&ok).unwrap(),
        gdvariant::encode(&ok).unwrap()
    );
    let deep = nested(gdvariant::ser::RECURSION_LIMIT + 1);
    let err = gdvariant::to_vec(&deep).unwrap_err();
    assert!(err.to_string().contains("nesting limit of 128"), "{err}");
    // The iterative encoder has no such limit below the engine's.
    assert!(gdvariant::encode(&nested(1000)).is_ok());
}

/// `to_vec` writes straight into its output; `to_writer` goes through the streaming
/// [`gdvariant::Writer`], which checks every slot. Both give the same bytes and the same
/// errors (kind, message and offset), for values that are fine and values that are not.
#[test]
fn to_vec_and_to_writer_agree_on_bytes_and_errors() {
    use gdvariant::{
        owned::TypeInfo, Array, Dictionary, EncodeOptions, Object, Variant, VariantType as T,
        Writer,
    };
    use serde::ser::{SerializeMap, SerializeSeq, Serializer};

    fn both<V: Serialize + ?Sized>(
        v: &V,
        opts: EncodeOptions,
    ) -> Result<Vec<u8>, gdvariant::ser::Error> {
        let direct = gdvariant::ser::to_vec_with(v, &opts);
        let mut w = Writer::new(opts);
        let streamed = gdvariant::ser::to_writer(&mut w, v).and_then(|()| Ok(w.finish()?));
        assert_eq!(direct, streamed);
        direct
    }

    /// A sequence that declares `declared` elements and writes `written`.
    struct Liar {
        declared: usize,
        written: usize,
    }
    impl Serialize for Liar {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(self.declared))?;
            for i in 0..self.written {
                seq.serialize_element(&i)?;
            }
            seq.end()
        }
    }
    /// A map with a key and no value.
    struct KeyOnly;
    impl Serialize for KeyOnly {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_key("k")?;
            m.end()
        }
    }
    #[derive(Serialize)]
    enum E {
        Unit,
        New(i32),
        Tuple(i64, String),
        Struct { a: f64, b: Vec<u8> },
    }
    #[derive(Serialize)]
    struct Outer<T> {
        tag: &'static str,
        inner: Vec<T>,
    }
    fn wrap<T>(v: T) -> Outer<T> {
        Outer {
            tag: "t",
            inner: vec![v],
        }
    }
    let g4 = EncodeOptions::new();

    // Fine values: enums of every shape, nested, and values the writer's object API takes.
    let enums = vec![
        E::Unit,
        E::New(-3),
        E::Tuple(1 << 40, "x".into()),
        E::Struct {
            a: 0.1,
            b: vec![1, 2, 3],
        },
    ];
    let bytes = both(&wrap(enums), g4).unwrap();
    assert_eq!(
        gdvariant::parse(&bytes)
            .unwrap()
            .to_owned()
            .unwrap()
            .as_dictionary()
            .unwrap()
            .len(),
        2
    );
    let mut d = Dictionary::new();
    d.insert("id", Variant::StringName("n".into()));
    d.insert("rid", Variant::Rid(7));
    d.insert(
        "typed",
        Variant::Array(Array::typed(
            TypeInfo::Builtin(T::Int),
            vec![Variant::Int(1)],
        )),
    );
    d.insert(
        "packed",
        Variant::PackedVector3Array(vec![Vector3::new(1.0, 2.0, 3.0)]),
    );
    let object = Variant::Object(Box::new(Object::Full {
        class: "Node".into(),
        properties: vec![("name".into(), Variant::Int(1))],
    }));
    d.insert("object", object.clone());
    let tree = Variant::Dictionary(d);
    let full = g4.with_full_objects(true);
    assert_eq!(
        both(&wrap(tree.clone()), full).unwrap(),
        gdvariant::encode_with(
            &Variant::Dictionary({
                let mut o = Dictionary::new();
                o.insert("tag", "t");
                o.insert("inner", Variant::Array(Array::new(vec![tree.clone()])));
                o
            }),
            &full
        )
        .unwrap()
    );
    // A value read from bytes, handed over raw at depth 2.
    let raw_bytes = gdvariant::encode(&Variant::Array(Array::new(vec![Variant::Int(5)]))).unwrap();
    let raw = gdvariant::parse(&raw_bytes).unwrap();
    both(&wrap(raw), g4).unwrap();

    // Errors.
    let errs = [
        both(&wrap(object), g4).unwrap_err(),
        both(&wrap(tree), g4.with_max_depth(2)).unwrap_err(),
        both(&wrap(vec![vec![1]]), g4.with_max_depth(2)).unwrap_err(),
        both(&wrap(raw), g4.with_max_depth(2)).unwrap_err(),
        both(
            &wrap(Liar {
                declared: 2,
                written: 3,
            }),
            g4,
        )
        .unwrap_err(),
        both(
            &wrap(Liar {
                declared: 2,
                written: 1,
            }),
            g4,
        )
        .unwrap_err(),
        both(&wrap(KeyOnly), g4).unwrap_err(),
        both(&wrap(u64::MAX), g4).unwrap_err(),
        both(
            &wrap(Variant::Vector4(Default::default())),
            EncodeOptions::godot3(),
        )
        .unwrap_err(),
    ];
    for (e, want) in errs.iter().zip([
        "object",
        "depth",
        "depth",
        "depth",
        "more values than the container's declared count",
        "fewer values than the container's declared count",
        "dictionary key without a value",
        "does not fit Godot's 64-bit int",
        "Vector4",
    ]) {
        assert!(e.to_string().contains(want), "{e} (wanted {want:?})");
    }
    // The offsets: where the refused value starts (or the container ends).
    let offsets: Vec<Option<usize>> = errs
        .iter()
        .map(|e| match e {
            gdvariant::ser::Error::Format(f) => Some(f.offset()),
            gdvariant::ser::Error::Message(_) => None,
        })
        .collect();
    // {"tag": "t", "inner": [ is 56 bytes, the liar's head and two ints 24 more.
    assert_eq!(offsets[4], Some(80), "{:?}", errs[4]);
    assert!(offsets[..4].iter().all(Option::is_some), "{offsets:?}");
}
