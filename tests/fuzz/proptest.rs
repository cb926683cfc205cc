//! Property tests over random `Variant` trees of every type, for both dialects, single and
//! double precision, with and without full objects:
//!
//! - `encode` → `validate` accepts exactly the encoded length → `parse` → `to_owned` gives back
//!   the original (floats compared by bits);
//! - the streaming `Writer` produces the same bytes as `encode`;
//! - framing a list of values (LE and BE prefixes) and reading the frames back (whole buffer and
//!   byte-at-a-time decoder) gives the same values;
//! - with the `serde` feature: `to_vec` of the tree is `encode`'s bytes and `from_slice` reads
//!   the tree back.

use gdvariant::framing::{frames, Decoded, Endian, FrameDecoder, FrameOptions, FrameWriter};
use gdvariant::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(Clone, Copy, Debug)]
struct Cfg {
    dialect: Dialect,
    double: bool,
    objects: bool,
}

impl Cfg {
    fn enc(&self) -> EncodeOptions {
        EncodeOptions::new()
            .with_dialect(self.dialect)
            .with_double_precision(self.double)
            .with_full_objects(self.objects)
    }

    fn read(&self) -> ReadOptions {
        ReadOptions::new()
            .with_dialect(self.dialect)
            .with_double_precision(self.double)
            .with_full_objects(self.objects)
    }

    fn g4(&self) -> bool {
        self.dialect == Dialect::Godot4
    }

    /// Whether real math components survive the round trip as any f64 (else they must be
    /// f32-representable).
    fn wide(&self) -> bool {
        self.double && self.g4()
    }
}

/// Text as the engine reads it back unchanged: no NUL, no BOM.
fn text() -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(any::<char>(), 0..10).prop_map(|cs| {
        cs.into_iter()
            .filter(|&c| c != '\0' && c != '\u{FEFF}')
            .collect()
    })
}

/// A real component: any f64 bits in double precision, else an f32 value (NaN only as the
/// canonical quiet NaN, whose bits survive the f64 → f32 narrowing).
fn real(wide: bool) -> BoxedStrategy<f64> {
    if wide {
        any::<u64>().prop_map(f64::from_bits).boxed()
    } else {
        any::<u32>()
            .prop_map(|b| {
                let f = f32::from_bits(b);
                f64::from(if f.is_nan() { f32::NAN } else { f })
            })
            .boxed()
    }
}

fn reals<const N: usize>(wide: bool) -> impl Strategy<Value = [f64; N]> + Clone {
    prop::collection::vec(real(wide), N).prop_map(|v| {
        let mut a = [0.0; N];
        a.copy_from_slice(&v);
        a
    })
}

fn any_f64() -> impl Strategy<Value = f64> + Clone {
    any::<u64>().prop_map(f64::from_bits)
}

fn any_f32() -> impl Strategy<Value = f32> + Clone {
    any::<u32>().prop_map(f32::from_bits)
}

fn color() -> impl Strategy<Value = Color> + Clone {
    [any_f32(), any_f32(), any_f32(), any_f32()].prop_map(Color::from_array)
}

fn type_info(cfg: Cfg) -> BoxedStrategy<TypeInfo> {
    if !cfg.g4() {
        return Just(TypeInfo::None).boxed();
    }
    let builtin = (0..39u32).prop_map(|id| TypeInfo::Builtin(Dialect::Godot4.type_of(id).unwrap()));
    if cfg.objects {
        prop_oneof![
            3 => Just(TypeInfo::None),
            1 => builtin,
            1 => "[A-Z][a-z]{0,6}".prop_map(TypeInfo::ClassName),
            1 => "[a-z]{1,6}".prop_map(|s| TypeInfo::Script(format!("res://{s}.gd"))),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => Just(TypeInfo::None),
            1 => builtin,
            1 => Just(TypeInfo::ClassName("EncodedObjectAsID".into())),
        ]
        .boxed()
    }
}

fn leaf(cfg: Cfg) -> BoxedStrategy<Variant> {
    let w = cfg.wide();
    let mut s: Vec<BoxedStrategy<Variant>> = vec![
        Just(Variant::Nil).boxed(),
        any::<bool>().prop_map(Variant::Bool).boxed(),
        prop_oneof![any::<i64>(), any::<i32>().prop_map(i64::from)]
            .prop_map(Variant::Int)
            .boxed(),
        any_f64().prop_map(Variant::Float).boxed(),
        prop_oneof![any::<f32>().prop_map(f64::from), any_f64()]
            .prop_map(Variant::Float)
            .boxed(),
        text().prop_map(|s| Variant::String(s.into())).boxed(),
        reals::<2>(w)
            .prop_map(|a| Variant::Vector2(Vector2::from_array(a)))
            .boxed(),
        reals::<4>(w)
            .prop_map(|a| Variant::Rect2(Rect2::from_array(a)))
            .boxed(),
        reals::<3>(w)
            .prop_map(|a| Variant::Vector3(Vector3::from_array(a)))
            .boxed(),
        reals::<6>(w)
            .prop_map(|a| Variant::from(Transform2D::from_array(a)))
            .boxed(),
        reals::<4>(w)
            .prop_map(|a| Variant::Plane(Plane::from_array(a)))
            .boxed(),
        reals::<4>(w)
            .prop_map(|a| Variant::Quaternion(Quaternion::from_array(a)))
            .boxed(),
        reals::<6>(w)
            .prop_map(|a| Variant::from(Aabb::from_array(a)))
            .boxed(),
        reals::<9>(w)
            .prop_map(|a| Variant::from(Basis::from_array(a)))
            .boxed(),
        reals::<12>(w)
            .prop_map(|a| Variant::from(Transform3D::from_array(a)))
            .boxed(),
        color().prop_map(Variant::Color).boxed(),
        (
            prop::collection::vec(text(), 0..4),
            prop::collection::vec(text(), 0..3),
            any::<bool>(),
        )
            .prop_map(move |(names, subnames, absolute)| {
                // Godot 3 reads a path without names or subnames as the empty path.
                let empty = names.is_empty() && subnames.is_empty();
                Variant::from(NodePath {
                    absolute: absolute && (cfg.g4() || !empty),
                    names,
                    subnames,
                })
            })
            .boxed(),
        (1..u64::MAX)
            .prop_map(|id| Variant::from(Object::Id(id)))
            .boxed(),
        prop::collection::vec(any::<u8>(), 0..9)
            .prop_map(Variant::PackedByteArray)
            .boxed(),
        prop::collection::vec(any::<i32>(), 0..6)
            .prop_map(Variant::PackedInt32Array)
            .boxed(),
        prop::collection::vec(any_f32(), 0..6)
            .prop_map(Variant::PackedFloat32Array)
            .boxed(),
        prop::collection::vec(text(), 0..4)
            .prop_map(Variant::from)
            .boxed(),
        prop::collection::vec(reals::<2>(w).prop_map(Vector2::from_array), 0..4)
            .prop_map(Variant::PackedVector2Array)
            .boxed(),
        prop::collection::vec(reals::<3>(w).prop_map(Vector3::from_array), 0..4)
            .prop_map(Variant::PackedVector3Array)
            .boxed(),
        prop::collection::vec(color(), 0..4)
            .prop_map(Variant::PackedColorArray)
            .boxed(),
    ];
    if cfg.g4() {
        s.extend([
            any::<[i32; 2]>()
                .prop_map(|a| Variant::Vector2i(Vector2i::from_array(a)))
                .boxed(),
            any::<[i32; 4]>()
                .prop_map(|a| Variant::Rect2i(Rect2i::from_array(a)))
                .boxed(),
            any::<[i32; 3]>()
                .prop_map(|a| Variant::Vector3i(Vector3i::from_array(a)))
                .boxed(),
            any::<[i32; 4]>()
                .prop_map(|a| Variant::Vector4i(Vector4i::from_array(a)))
                .boxed(),
            reals::<4>(w)
                .prop_map(|a| Variant::Vector4(Vector4::from_array(a)))
                .boxed(),
            reals::<16>(w)
                .prop_map(|a| Variant::from(Projection::from_array(a)))
                .boxed(),
            text().prop_map(|s| Variant::StringName(s.into())).boxed(),
            any::<u64>().prop_map(Variant::Rid).boxed(),
            Just(Variant::Callable).boxed(),
            (text(), any::<u64>())
                .prop_map(|(name, object_id)| Variant::Signal(Signal { name, object_id }))
                .boxed(),
            prop::collection::vec(any::<i64>(), 0..5)
                .prop_map(Variant::PackedInt64Array)
                .boxed(),
            prop::collection::vec(any_f64(), 0..5)
                .prop_map(Variant::PackedFloat64Array)
                .boxed(),
            prop::collection::vec(reals::<4>(w).prop_map(Vector4::from_array), 0..4)
                .prop_map(Variant::PackedVector4Array)
                .boxed(),
        ]);
    } else {
        // Godot 3 RIDs carry no id.
        s.push(Just(Variant::Rid(0)).boxed());
    }
    prop::strategy::Union::new(s).boxed()
}

fn variant(cfg: Cfg) -> BoxedStrategy<Variant> {
    leaf(cfg)
        .prop_recursive(4, 48, 5, move |inner| {
            let mut s: Vec<BoxedStrategy<Variant>> = vec![
                (type_info(cfg), prop::collection::vec(inner.clone(), 0..5))
                    .prop_map(move |(t, mut items)| {
                        // What the engine holds: the declared type as it keeps it, and only
                        // elements of that type (others it converts or drops on reading).
                        let t = convert::engine_type(t, cfg.objects);
                        if t != TypeInfo::None {
                            items.retain(|x| convert::fit(&t, x) == convert::Fit::Keep);
                        }
                        Variant::Array(Array::typed(t, items))
                    })
                    .boxed(),
                (
                    type_info(cfg),
                    type_info(cfg),
                    prop::collection::vec((inner.clone(), inner.clone()), 0..4),
                )
                    .prop_map(move |(kt, vt, entries)| {
                        // Repeated keys merged by the dialect's rule, as decoding merges them;
                        // the types as the engine keeps them, and only keys of the key type.
                        let (kt, vt) = convert::engine_types(kt, vt, cfg.objects);
                        let mut d = Dictionary::typed(kt.clone(), vt, vec![]);
                        for (k, v) in entries {
                            if kt == TypeInfo::None || convert::fit(&kt, &k) == convert::Fit::Keep {
                                d.insert_with(cfg.dialect, k, v);
                            }
                        }
                        Variant::Dictionary(d)
                    })
                    .boxed(),
            ];
            if cfg.objects {
                let name = "[a-z_]{1,7}".prop_filter("script is checked", |n| n != "script");
                s.push(
                    (
                        "[A-Z][A-Za-z]{0,8}",
                        prop::collection::vec((name, inner), 0..4),
                    )
                        .prop_map(|(class, properties)| {
                            Variant::from(Object::Full { class, properties })
                        })
                        .boxed(),
                );
            }
            prop::strategy::Union::new(s)
        })
        .boxed()
}

/// Streams `v` through the writer's typed methods (not `Writer::value`), giving container
/// counts up front or leaving them to be patched.
fn stream(w: &mut Writer, v: &Variant, patch: bool, wide: bool) -> Result<()> {
    let count = |n: usize| if patch { None } else { Some(n) };
    match v {
        Variant::Nil => w.nil(),
        Variant::Bool(b) => w.bool(*b),
        Variant::Int(i) => w.int(*i),
        Variant::Float(f) => w.float(*f),
        Variant::String(s) => w.string(s),
        Variant::StringName(s) => w.string_name(s),
        Variant::Vector2(x) => w.vector2(*x),
        Variant::Vector2i(x) => w.vector2i(*x),
        Variant::Rect2(x) => w.rect2(*x),
        Variant::Rect2i(x) => w.rect2i(*x),
        Variant::Vector3(x) => w.vector3(*x),
        Variant::Vector3i(x) => w.vector3i(*x),
        Variant::Transform2D(x) => w.transform2d(**x),
        Variant::Vector4(x) => w.vector4(*x),
        Variant::Vector4i(x) => w.vector4i(*x),
        Variant::Plane(x) => w.plane(*x),
        Variant::Quaternion(x) => w.quaternion(*x),
        Variant::Aabb(x) => w.aabb(**x),
        Variant::Basis(x) => w.basis(**x),
        Variant::Transform3D(x) => w.transform3d(**x),
        Variant::Projection(x) => w.projection(**x),
        Variant::Color(x) => w.color(*x),
        Variant::NodePath(np) => w.node_path(&np.names, &np.subnames, np.absolute),
        Variant::Rid(id) => w.rid(*id),
        Variant::Object(o) => match &**o {
            Object::Id(id) => w.object_id(*id),
            Object::Full { class, properties } => {
                w.begin_object(class, count(properties.len()))?;
                for (name, value) in properties {
                    w.property(name)?;
                    stream(w, value, patch, wide)?;
                }
                w.end()
            }
        },
        Variant::Callable => w.callable(),
        Variant::Signal(s) => w.signal(&s.name, s.object_id),
        Variant::Dictionary(d) => {
            w.begin_typed_dictionary(d.key_type(), d.value_type(), count(d.len()))?;
            for (k, val) in d.entries() {
                stream(w, k, patch, wide)?;
                stream(w, val, patch, wide)?;
            }
            w.end()
        }
        Variant::Array(a) => {
            w.begin_typed_array(a.element_type(), count(a.items.len()))?;
            for item in &a.items {
                stream(w, item, patch, wide)?;
            }
            w.end()
        }
        Variant::PackedByteArray(a) => w.packed_bytes(a),
        Variant::PackedInt32Array(a) => w.packed_i32(a),
        Variant::PackedInt64Array(a) => w.packed_i64(a),
        Variant::PackedFloat32Array(a) => w.packed_f32(a),
        Variant::PackedFloat64Array(a) => w.packed_f64(a),
        Variant::PackedStringArray(a) => w.packed_strings(a),
        // Single precision: the f32 fast path gives the same bytes (components are exact f32).
        Variant::PackedVector2Array(a) if !wide && patch => {
            let f: Vec<[f32; 2]> = a.iter().map(|v| v.to_array().map(|x| x as f32)).collect();
            w.packed_vector2_f32(&f)
        }
        Variant::PackedVector3Array(a) if !wide && patch => {
            let f: Vec<[f32; 3]> = a.iter().map(|v| v.to_array().map(|x| x as f32)).collect();
            w.packed_vector3_f32(&f)
        }
        Variant::PackedVector4Array(a) if !wide && patch => {
            let f: Vec<[f32; 4]> = a.iter().map(|v| v.to_array().map(|x| x as f32)).collect();
            w.packed_vector4_f32(&f)
        }
        Variant::PackedVector2Array(a) => w.packed_vector2(a),
        Variant::PackedVector3Array(a) => w.packed_vector3(a),
        Variant::PackedVector4Array(a) => w.packed_vector4(a),
        Variant::PackedColorArray(a) => w.packed_colors(a),
        Variant::Raw(_) => w.value(v),
    }
}

fn check_one(cfg: Cfg, v: &Variant) -> std::result::Result<(), TestCaseError> {
    let bytes = encode_with(v, &cfg.enc()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes.len() % 4, 0);
    prop_assert_eq!(validate_with(&bytes, &cfg.read()), Ok(bytes.len()));
    let back = parse_with(&bytes, &cfg.read()).unwrap().to_owned().unwrap();
    prop_assert_eq!(&back, v);
    // Re-encoding what was read is a fixed point.
    prop_assert_eq!(&encode_with(&back, &cfg.enc()).unwrap(), &bytes);
    for patch in [false, true] {
        let mut w = Writer::new(cfg.enc());
        stream(&mut w, v, patch, cfg.wide()).unwrap();
        prop_assert_eq!(&w.finish().unwrap(), &bytes, "writer, patch = {}", patch);
    }
    let mut w = Writer::new(cfg.enc());
    w.value(v).unwrap();
    prop_assert_eq!(&w.finish().unwrap(), &bytes);
    // serde: the Variant written through the serde serializer (streaming) is the tree
    // encoder's bytes, and read back through the deserializer it is the original.
    #[cfg(feature = "serde")]
    {
        let via_serde = gdvariant::ser::to_vec_with(v, &cfg.enc())
            .map_err(|e| TestCaseError::fail(format!("to_vec: {e}")))?;
        prop_assert_eq!(&via_serde, &bytes, "serde to_vec");
        // The streaming serializer (`to_writer`) writes the same bytes as `to_vec`'s direct one.
        let mut w = Writer::new(cfg.enc());
        gdvariant::ser::to_writer(&mut w, v)
            .map_err(|e| TestCaseError::fail(format!("to_writer: {e}")))?;
        prop_assert_eq!(&w.finish().unwrap(), &bytes, "serde to_writer");
        let back: Variant = gdvariant::de::from_slice_with(&bytes, &cfg.read())
            .map_err(|e| TestCaseError::fail(format!("from_slice: {e}")))?;
        prop_assert_eq!(&back, v, "serde from_slice");
    }
    Ok(())
}

fn check_frames(cfg: Cfg, values: &[Variant]) -> std::result::Result<(), TestCaseError> {
    for endian in [Endian::Little, Endian::Big] {
        let framing = FrameOptions::new()
            .with_endian(endian)
            .with_read_options(cfg.read());
        let mut fw = FrameWriter::new(framing, cfg.enc());
        for v in values {
            fw.value(v).unwrap();
        }
        let buf = fw.into_inner();
        let got: Vec<Variant> = frames(&buf, &framing)
            .map(|f| f.unwrap().to_owned().unwrap())
            .collect();
        prop_assert_eq!(&got, values);
        // The same stream, one byte at a time.
        let mut dec = FrameDecoder::new(framing);
        let mut got = Vec::new();
        for b in &buf {
            let mut input = std::slice::from_ref(b);
            if let Decoded::Frame(v) = dec.decode(&mut input).unwrap() {
                got.push(v.to_owned().unwrap());
            }
            prop_assert!(input.is_empty());
        }
        prop_assert!(dec.at_boundary());
        prop_assert_eq!(&got, values);
    }
    Ok(())
}

const CONFIGS: [Cfg; 6] = [
    Cfg {
        dialect: Dialect::Godot4,
        double: false,
        objects: false,
    },
    Cfg {
        dialect: Dialect::Godot4,
        double: false,
        objects: true,
    },
    Cfg {
        dialect: Dialect::Godot4,
        double: true,
        objects: false,
    },
    Cfg {
        dialect: Dialect::Godot4,
        double: true,
        objects: true,
    },
    Cfg {
        dialect: Dialect::Godot3,
        double: false,
        objects: false,
    },
    Cfg {
        dialect: Dialect::Godot3,
        double: false,
        objects: true,
    },
];

#[test]
fn encode_validate_parse_round_trip_and_writer_agree() {
    for cfg in CONFIGS {
        let mut runner = TestRunner::new(Config {
            cases: 256,
            ..Config::default()
        });
        runner
            .run(&variant(cfg), |v| check_one(cfg, &v))
            .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    }
}

#[test]
fn framed_lists_read_back() {
    for cfg in CONFIGS {
        let mut runner = TestRunner::new(Config {
            cases: 64,
            ..Config::default()
        });
        runner
            .run(&prop::collection::vec(variant(cfg), 0..5), |vs| {
                check_frames(cfg, &vs)
            })
            .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    }
}
