//! serde: engine-written packets onto derived Rust types (borrowing from the input) and back
//! to the engine's exact bytes; errors with the field path and offset. The packets and the
//! types they read into are shared with the other serde modules.

use std::collections::BTreeMap;

use gdvariant::{math::Vector2, math::Vector3, ReadOptions};
use serde::{Deserialize, Serialize};

pub(crate) fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The client input packet, fields in the engine's key order.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Input<'a> {
    seq: i64,
    tick: u32,
    #[serde(rename = "move")]
    movement: Vector2,
    aim: Vector3,
    buttons: u8,
    jump: bool,
    name: &'a str,
    ts: f64,
}

#[test]
fn the_engines_input_packet_reads_into_a_struct_and_writes_back_its_bytes() {
    let bytes = data("benches/data/input_packet.bin");
    let input: Input<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(
        input,
        Input {
            seq: 123456,
            tick: 987654,
            movement: Vector2::new(0.5, -1.0),
            aim: Vector3::new(0.25, 0.5, 0.75),
            buttons: 21,
            jump: true,
            name: "player_one_with_a_name",
            ts: 1234.5678,
        }
    );
    // Borrowed from the input, not copied.
    let at = bytes.windows(6).position(|w| w == b"player").unwrap();
    assert_eq!(input.name.as_ptr(), bytes[at..].as_ptr());
    // Back to the engine's own bytes: keys in field order, minimal int width, f64 only where
    // f32 is not exact.
    assert_eq!(gdvariant::to_vec(&input).unwrap(), bytes);
}

#[derive(Debug, Deserialize)]
struct Entity<'a> {
    id: i64,
    name: &'a str,
    pos: Vector3,
    vel: [f32; 3],
    hp: f32,
    #[serde(borrow)]
    tags: Vec<&'a str>,
}

#[derive(Debug, Deserialize)]
struct State<'a> {
    tick: i64,
    #[serde(borrow)]
    entities: Vec<Entity<'a>>,
}

#[test]
fn the_engines_game_state_reads_into_borrowed_structs() {
    for file in ["examples/game_state.bin", "benches/data/game_state.bin"] {
        let bytes = data(file);
        let state: State<'_> = gdvariant::from_slice(&bytes).unwrap();
        assert_eq!(state.tick, 123456);
        let v = gdvariant::parse(&bytes).unwrap();
        let entities = v.path("entities").unwrap().unwrap().as_array().unwrap();
        assert_eq!(state.entities.len(), entities.len());
        // The lazy view, element by element (an iterator: `get(i)` would skip i entities).
        for (i, (e, lazy)) in state.entities.iter().zip(entities.iter()).enumerate() {
            let lazy = lazy.unwrap().as_dictionary().unwrap();
            assert_eq!(e.id, i as i64);
            let name = lazy.get("name").unwrap().unwrap().as_str().unwrap();
            assert_eq!(e.name, name);
            assert_eq!(e.name.as_ptr(), name.as_ptr(), "borrowed");
            assert_eq!(
                e.pos,
                lazy.get("pos").unwrap().unwrap().as_vector3().unwrap()
            );
            let vel = lazy.get("vel").unwrap().unwrap().as_vector3().unwrap();
            assert_eq!(e.vel, [vel.x as f32, vel.y as f32, vel.z as f32]);
            assert_eq!(
                f64::from(e.hp),
                lazy.get("hp").unwrap().unwrap().as_f64().unwrap()
            );
            let tags: Vec<&str> = lazy
                .get("tags")
                .unwrap()
                .unwrap()
                .as_string_array()
                .unwrap()
                .iter()
                .map(Result::unwrap)
                .collect();
            assert_eq!(e.tags, tags);
            assert_eq!(
                e.tags[0].as_ptr(),
                tags[0].as_ptr(),
                "borrowed from a PackedStringArray"
            );
        }
    }
}

#[test]
fn errors_name_the_field_path_and_the_offset() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct BadEntity {
        pos: String,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct BadState {
        entities: Vec<BadEntity>,
    }
    let bytes = data("examples/game_state.bin");
    let err = gdvariant::from_slice::<BadState>(&bytes).unwrap_err();
    let v = gdvariant::parse(&bytes).unwrap();
    let pos = v.path("entities/0/pos").unwrap().unwrap();
    assert_eq!(err.path(), "entities[0].pos");
    assert_eq!(err.offset(), Some(pos.offset()));
    assert_eq!(
        err.to_string(),
        format!(
            "entities[0].pos: expected a string, found Vector3 at offset {}",
            pos.offset()
        )
    );
    // A format error keeps its kind and offset.
    let err = gdvariant::from_slice::<State<'_>>(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(err.format_error().is_some(), "{err}");
    assert!(err.offset().unwrap() < bytes.len());
}

/// The issue's own example: the game state with the last entity's `pos` a String reads into
/// the derived structs as `entities[9999].pos: expected Vector3, found String at offset N`,
/// `N` the offset of that String.
#[test]
fn a_wrong_type_deep_in_the_game_state_names_its_path_the_godot_type_and_the_offset() {
    use gdvariant::Variant;
    let state: Variant = gdvariant::from_slice(&data("benches/data/game_state.bin")).unwrap();
    let Variant::Dictionary(mut d) = state else {
        panic!("the game state is a Dictionary")
    };
    let Some(Variant::Array(entities)) = d.get_mut(&Variant::from("entities")) else {
        panic!("entities is an Array")
    };
    let mut items = entities.take_items();
    let Some(Variant::Dictionary(last)) = items.last_mut() else {
        panic!("an entity is a Dictionary")
    };
    *last.get_mut(&Variant::from("pos")).unwrap() = Variant::from("north");
    *entities = gdvariant::Array::new(items);
    let bytes = gdvariant::encode(&Variant::Dictionary(d)).unwrap();

    let at = gdvariant::parse(&bytes)
        .unwrap()
        .path("entities/9999/pos")
        .unwrap()
        .unwrap()
        .offset();
    let err = gdvariant::from_slice::<State<'_>>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("entities[9999].pos: expected Vector3, found String at offset {at}")
    );
    assert_eq!(err.path(), "entities[9999].pos");
    assert_eq!(err.offset(), Some(at));
    assert_eq!(err.message(), "expected Vector3, found String");
    assert!(err.format_error().is_none());
    let err =
        gdvariant::from_slice::<Vector3>(&[4, 0, 0, 0, 1, 0, 0, 0, b'x', 0, 0, 0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected Vector3, found String at offset 0"
    );
    // Godot 3 types by their Godot 3 names: var2bytes(PoolStringArray()) read as an int.
    let err =
        gdvariant::de::from_slice_with::<i64>(&[23, 0, 0, 0, 0, 0, 0, 0], &ReadOptions::godot3())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected i64, found PoolStringArray at offset 0"
    );
    // Inside a packed array, the element's index and type.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Tags {
        tags: Vec<i64>,
    }
    let mut tags = vec![27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0];
    tags.extend_from_slice(b"tags");
    tags.extend_from_slice(&[34, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0]);
    let err = gdvariant::from_slice::<Tags>(&tags).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tags[0]: expected i64, found String at offset 28"
    );
}

#[test]
fn ints_read_as_floats_and_ranges_are_checked() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Hp {
        hp: f32,
        level: u8,
    }
    // {"hp": 100, "level": 3}: a GDScript sender writes 100 for a float.
    let mut d = gdvariant::Dictionary::new();
    d.insert("hp", 100);
    d.insert("level", 3);
    let bytes = gdvariant::encode(&d.into()).unwrap();
    assert_eq!(
        gdvariant::from_slice::<Hp>(&bytes).unwrap(),
        Hp {
            hp: 100.0,
            level: 3
        }
    );
    let mut d = gdvariant::Dictionary::new();
    d.insert("hp", 1.5);
    d.insert("level", 300);
    let bytes = gdvariant::encode(&d.into()).unwrap();
    let err = gdvariant::from_slice::<Hp>(&bytes).unwrap_err();
    assert_eq!(err.path(), "level");
    assert!(err.message().contains("300"), "{err}");
    // u64 above i64::MAX cannot be written.
    assert!(gdvariant::to_vec(&u64::MAX).is_err());
    assert_eq!(
        gdvariant::to_vec(&(i64::MAX as u64)).unwrap(),
        gdvariant::encode(&i64::MAX.into()).unwrap()
    );
}

#[test]
fn options_enums_maps_and_tuples_round_trip() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Cmd<'a> {
        Stop,
        Move(Vector2),
        Say { text: &'a str, loud: bool },
        Pair(i32, i32),
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Msg<'a> {
        target: Option<u32>,
        #[serde(borrow)]
        cmds: Vec<Cmd<'a>>,
        scores: BTreeMap<String, i64>,
        t: (i64, String, Option<bool>),
        raw: serde_bytes_like::Bytes,
    }
    let msg = Msg {
        target: None,
        cmds: vec![
            Cmd::Stop,
            Cmd::Move(Vector2::new(1.0, 2.0)),
            Cmd::Say {
                text: "hi",
                loud: true,
            },
            Cmd::Pair(-1, 70_000),
        ],
        scores: [("a".to_string(), 1), ("b".to_string(), i64::MIN)].into(),
        t: (7, "x".into(), Some(false)),
        raw: serde_bytes_like::Bytes(vec![1, 2, 3]),
    };
    let bytes = gdvariant::to_vec(&msg).unwrap();
    assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
    let back: Msg<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(back, msg);
    // The engine's shapes: Nil, {name: value}, a unit variant as its name, PackedByteArray.
    let v = gdvariant::parse(&bytes).unwrap();
    assert!(v.path("target").unwrap().unwrap().is_nil());
    assert_eq!(v.path("cmds/0").unwrap().unwrap().as_str().unwrap(), "Stop");
    let mv = v.path("cmds/1/Move").unwrap().unwrap();
    assert_eq!(mv.as_vector2().unwrap(), Vector2::new(1.0, 2.0));
    assert_eq!(
        v.path("raw").unwrap().unwrap().as_byte_array().unwrap(),
        &[1, 2, 3]
    );
}

/// A byte buffer that serializes as bytes (what the `serde_bytes` crate does), without the
/// dependency.
mod serde_bytes_like {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Debug, PartialEq)]
    pub struct Bytes(pub Vec<u8>);

    impl Serialize for Bytes {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.0)
        }
    }

    impl<'de> Deserialize<'de> for Bytes {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let b: &'de [u8] = Deserialize::deserialize(d)?;
            Ok(Bytes(b.to_vec()))
        }
    }
}

#[test]
fn a_variant_ref_field_borrows_a_raw_sub_tree_and_writes_it_through() {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        tick: i64,
        #[serde(borrow)]
        entities: gdvariant::VariantRef<'a>,
    }
    #[derive(Serialize)]
    struct Reply<'a> {
        echo: gdvariant::VariantRef<'a>,
        count: usize,
    }
    let bytes = data("examples/game_state.bin");
    let env: Envelope<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(env.tick, 123456);
    let lazy = gdvariant::parse(&bytes).unwrap();
    let entities = lazy.path("entities").unwrap().unwrap();
    // The same place in the same buffer, with its absolute offset.
    assert_eq!(env.entities.offset(), entities.offset());
    let raw = env.entities.raw().unwrap();
    assert_eq!(raw, entities.raw().unwrap());
    assert_eq!(raw.as_ptr(), bytes[entities.offset()..].as_ptr());
    let n = env.entities.as_array().unwrap().len();
    // Pass-through: the reply holds the sub-tree's bytes unchanged.
    let out = gdvariant::to_vec(&Reply {
        echo: env.entities,
        count: n,
    })
    .unwrap();
    let mut w = gdvariant::Writer::new(gdvariant::EncodeOptions::new());
    w.begin_dictionary(Some(2)).unwrap();
    w.string("echo").unwrap();
    w.raw(&entities).unwrap();
    w.string("count").unwrap();
    w.int(n as i64).unwrap();
    w.end().unwrap();
    assert_eq!(out, w.finish().unwrap());
    // A Godot 3 sub-tree cannot go into a Godot 4 output unchanged: it is re-encoded.
    let g3 = gdvariant::encode_with(
        &gdvariant::Variant::from(Vector3::new(1.0, 2.0, 3.0)),
        &gdvariant::EncodeOptions::godot3(),
    )
    .unwrap();
    let v3 = gdvariant::parse_with(&g3, &ReadOptions::godot3()).unwrap();
    let out = gdvariant::to_vec(&v3).unwrap();
    assert_eq!(
        gdvariant::parse(&out).unwrap().as_vector3().unwrap(),
        Vector3::new(1.0, 2.0, 3.0)
    );
}

#[test]
fn packed_arrays_round_trip_byte_for_byte_and_borrow() {
    use gdvariant::serde_with::Packed;
    use gdvariant::{math::Color, Variant, VariantType};
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Mesh<'a> {
        #[serde(borrow)]
        pos: Packed<'a, [f32; 3]>,
        #[serde(borrow)]
        ids: Packed<'a, i64>,
        #[serde(with = "gdvariant::serde_with::packed")]
        weights: Vec<f32>,
        #[serde(with = "gdvariant::serde_with::packed")]
        ints: Vec<i32>,
        #[serde(with = "gdvariant::serde_with::packed")]
        colors: Vec<Color>,
        #[serde(with = "gdvariant::serde_with::strings")]
        names: Vec<&'a str>,
        #[serde(with = "gdvariant::serde_with::bytes")]
        blob: Vec<u8>,
    }
    let mesh = Mesh {
        pos: Packed::from(vec![[1.0, 2.0, 3.0], [-4.5, 5.25, f32::MAX]]),
        ids: Packed::from(vec![1, -2, i64::MAX]),
        weights: vec![0.5, f32::from_bits(0x7F80_0001)],
        ints: vec![i32::MIN, 0, 7],
        colors: vec![Color::new(0.1, 0.2, 0.3, 1.0)],
        names: vec!["a", "", "héllo"],
        blob: vec![1, 2, 3],
    };
    // The same bytes as the tree encoder writes for the engine's types.
    let tree: gdvariant::Dictionary = [
        (
            Variant::from("pos"),
            Variant::PackedVector3Array(vec![
                Vector3::new(1.0, 2.0, 3.0),
                Vector3::new(-4.5, 5.25, f64::from(f32::MAX)),
            ]),
        ),
        (
            Variant::from("ids"),
            Variant::PackedInt64Array(vec![1, -2, i64::MAX]),
        ),
        (
            Variant::from("weights"),
            Variant::PackedFloat32Array(vec![0.5, f32::from_bits(0x7F80_0001)]),
        ),
        (
            Variant::from("ints"),
            Variant::PackedInt32Array(vec![i32::MIN, 0, 7]),
        ),
        (
            Variant::from("colors"),
            Variant::PackedColorArray(vec![Color::new(0.1, 0.2, 0.3, 1.0)]),
        ),
        (
            Variant::from("names"),
            Variant::PackedStringArray(vec!["a".into(), "".into(), "héllo".into()]),
        ),
        (
            Variant::from("blob"),
            Variant::PackedByteArray(vec![1, 2, 3]),
        ),
    ]
    .into_iter()
    .collect();
    let bytes = gdvariant::to_vec(&mesh).unwrap();
    assert_eq!(bytes, gdvariant::encode(&Variant::from(tree)).unwrap());
    let d = gdvariant::parse(&bytes).unwrap().as_dictionary().unwrap();
    assert_eq!(
        d.get("pos").unwrap().unwrap().ty(),
        VariantType::PackedVector3Array
    );
    let back: Mesh<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(back.weights[1].to_bits(), 0x7F80_0001, "NaN payload kept");
    assert_eq!(back.pos, mesh.pos);
    assert_eq!(back.ids, mesh.ids);
    assert_eq!(back.names, mesh.names);
    assert_eq!(back.blob, mesh.blob);
    assert_eq!(back.colors, mesh.colors);
    // Borrowed when aligned on a little-endian host (a Vec's buffer is).
    if cfg!(target_endian = "little") && bytes.as_ptr() as usize % 8 == 0 {
        assert!(back.pos.is_borrowed());
        assert!(back.ids.is_borrowed());
        let at = d.get("ids").unwrap().unwrap().offset() + 8;
        assert_eq!(back.ids.as_ptr() as *const u8, bytes[at..].as_ptr());
    }
    // Double precision: vectors follow the writer's precision.
    let wide = gdvariant::ser::to_vec_with(
        &mesh,
        &gdvariant::EncodeOptions::new().with_double_precision(true),
    )
    .unwrap();
    let d = gdvariant::parse(&wide).unwrap().as_dictionary().unwrap();
    assert!(d.get("pos").unwrap().unwrap().is_wide());
    let back: Mesh<'_> = gdvariant::from_slice(&wide).unwrap();
    assert_eq!(back.pos, mesh.pos, "read from the f64 form, converted");
    assert!(!back.pos.is_borrowed());
    // Any sequence of numbers reads too: an Array.
    let arr = gdvariant::encode(&Variant::from(gdvariant::Array::new(vec![
        Variant::Int(1),
        Variant::Float(2.5),
    ])))
    .unwrap();
    let p: Packed<'_, f64> = gdvariant::from_slice(&arr).unwrap();
    assert_eq!(&*p, &[1.0, 2.5]);
    // Wrong element count in a packed vector is an error on writing.
    #[derive(Serialize)]
    struct Bad {
        #[serde(with = "gdvariant::serde_with::packed")]
        v: Vec<f32>,
    }
    assert!(gdvariant::to_vec(&Bad { v: vec![1.0] }).is_ok());
}

#[test]
fn variant_serde_in_other_formats_is_plain_data() {
    use gdvariant::Variant;
    let bytes = data("benches/data/input_packet.bin");
    let v: Variant = gdvariant::from_slice(&bytes).unwrap();
    // Through serde's own value-less round trip: to a JSON-like tree by serde_json is not a
    // dependency here, so check the math types' plain fallback with a derived type instead.
    #[derive(Deserialize)]
    struct Plain {
        aim: (f64, f64, f64),
        name: String,
    }
    let p: Plain = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(p.aim, (0.25, 0.5, 0.75));
    assert_eq!(p.name, "player_one_with_a_name");
    // And the Variant writes back the engine's bytes.
    assert_eq!(gdvariant::to_vec(&v).unwrap(), bytes);
}

mod derived_round_trip {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    enum Shape {
        Empty,
        Circle(f64),
        Rect { w: i32, h: i32 },
        Poly(Vec<(i64, i64)>),
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Rec {
        id: u32,
        big: i64,
        small: i8,
        flag: bool,
        ratio: f32,
        precise: f64,
        name: String,
        note: Option<String>,
        pos: Vector3,
        at: Vector2,
        shapes: Vec<Shape>,
        scores: BTreeMap<String, i64>,
        pair: (u16, Option<bool>),
        #[serde(with = "gdvariant::serde_with::packed")]
        samples: Vec<f32>,
        #[serde(with = "gdvariant::serde_with::strings")]
        labels: Vec<String>,
        #[serde(with = "gdvariant::serde_with::packed")]
        ids: Vec<i64>,
        children: Vec<Vec<u8>>,
    }

    fn shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            Just(Shape::Empty),
            any::<f64>().prop_map(Shape::Circle),
            (any::<i32>(), any::<i32>()).prop_map(|(w, h)| Shape::Rect { w, h }),
            prop::collection::vec((any::<i64>(), any::<i64>()), 0..4).prop_map(Shape::Poly),
        ]
    }

    fn rec() -> impl Strategy<Value = Rec> {
        let a = (
            any::<u32>(),
            any::<i64>(),
            any::<i8>(),
            any::<bool>(),
            any::<f32>(),
            any::<f64>(),
            "[a-zé ]{0,12}",
            prop::option::of("[a-z]{0,6}"),
            prop::array::uniform3(-1e6f32..1e6f32),
            prop::array::uniform2(-1e3f32..1e3f32),
        );
        let b = (
            prop::collection::vec(shape(), 0..4),
            prop::collection::btree_map("[a-z]{1,5}", any::<i64>(), 0..4),
            (any::<u16>(), prop::option::of(any::<bool>())),
            prop::collection::vec(any::<f32>(), 0..6),
            prop::collection::vec("[a-z]{0,4}", 0..4),
            prop::collection::vec(any::<i64>(), 0..5),
            prop::collection::vec(prop::collection::vec(any::<u8>(), 0..3), 0..3),
        );
        (a, b).prop_map(|(a, b)| Rec {
            id: a.0,
            big: a.1,
            small: a.2,
            flag: a.3,
            ratio: a.4,
            precise: a.5,
            name: a.6,
            note: a.7,
            // f32-exact components: Vector3 holds f64 but is written in single precision.
            pos: Vector3::new(a.8[0].into(), a.8[1].into(), a.8[2].into()),
            at: Vector2::new(a.9[0].into(), a.9[1].into()),
            shapes: b.0,
            scores: b.1,
            pair: b.2,
            samples: b.3,
            labels: b.4,
            ids: b.5,
            children: b.6,
        })
    }

    /// Equality with floats compared by bits (NaN payloads included).
    fn same(a: &Rec, b: &Rec) -> bool {
        let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        let shapes_eq = a.shapes.len() == b.shapes.len()
            && a.shapes.iter().zip(&b.shapes).all(|(x, y)| match (x, y) {
                (Shape::Circle(p), Shape::Circle(q)) => p.to_bits() == q.to_bits(),
                _ => x == y,
            });
        a.id == b.id
            && a.big == b.big
            && a.small == b.small
            && a.flag == b.flag
            && a.ratio.to_bits() == b.ratio.to_bits()
            && a.precise.to_bits() == b.precise.to_bits()
            && a.name == b.name
            && a.note == b.note
            && a.pos == b.pos
            && a.at == b.at
            && shapes_eq
            && a.scores == b.scores
            && a.pair == b.pair
            && bits(&a.samples) == bits(&b.samples)
            && a.labels == b.labels
            && a.ids == b.ids
            && a.children == b.children
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// A derived type goes through `to_vec` and `from_slice` unchanged; the bytes are a
        /// valid Godot 4 value, and the same value written through the `Variant` tree
        /// (`from_slice::<Variant>` then `encode`) gives the same bytes.
        #[test]
        fn random_derived_values_round_trip(r in rec()) {
            let bytes = gdvariant::to_vec(&r).unwrap();
            prop_assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
            let back: Rec = gdvariant::from_slice(&bytes).unwrap();
            prop_assert!(same(&r, &back), "{:?}\n{:?}", r, back);
            let tree: gdvariant::Variant = gdvariant::from_slice(&bytes).unwrap();
            prop_assert_eq!(gdvariant::encode(&tree).unwrap(), bytes);
        }
    }
}

/// `from_variant_ref`: a value found with the lazy API (here the last entity of the game state)
/// reads into a derived struct as `from_slice` reads it within the whole packet, borrowing from
/// the input, and its errors carry their offsets in the whole input.
#[test]
fn a_value_found_with_the_lazy_api_reads_into_a_struct_with_whole_input_offsets() {
    let bytes = data("benches/data/game_state.bin");
    let v = gdvariant::parse(&bytes).unwrap();
    let found = v.path("entities/9999").unwrap().unwrap();
    let entity: Entity<'_> = gdvariant::de::from_variant_ref(found).unwrap();
    let state: State<'_> = gdvariant::from_slice(&bytes).unwrap();
    let whole = &state.entities[9999];
    assert_eq!(entity.id, 9999);
    assert_eq!(
        (entity.id, entity.name, entity.pos, entity.vel, entity.hp),
        (whole.id, whole.name, whole.pos, whole.vel, whole.hp)
    );
    assert_eq!(entity.tags, whole.tags);
    assert_eq!(entity.name.as_ptr(), whole.name.as_ptr(), "borrowed");
    assert_eq!(entity.tags[0].as_ptr(), whole.tags[0].as_ptr(), "borrowed");

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong {
        pos: String,
    }
    let err = gdvariant::de::from_variant_ref::<Wrong>(found).unwrap_err();
    let pos = v.path("entities/9999/pos").unwrap().unwrap().offset();
    assert!(pos > 1_000_000, "deep in the input");
    assert_eq!(err.path(), "pos");
    assert_eq!(err.offset(), Some(pos));
    assert_eq!(
        err.to_string(),
        format!("pos: expected a string, found Vector3 at offset {pos}")
    );
}
