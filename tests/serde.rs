//! serde: engine-written packets onto derived Rust types (borrowing from the input) and back
//! to the engine's exact bytes; errors with the field path and offset; hostile input.
#![cfg(feature = "serde")]

use std::collections::BTreeMap;

use gdvariant::{Options, Vector2, Vector3};
use serde::{Deserialize, Serialize};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The client input packet, fields in the engine's key order.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Input<'a> {
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
            "entities[0].pos: invalid type: Vector3, expected a string at offset {}",
            pos.offset()
        )
    );
    // A format error keeps its kind and offset.
    let err = gdvariant::from_slice::<State<'_>>(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(err.format_error().is_some(), "{err}");
    assert!(err.offset().unwrap() < bytes.len());
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
fn hostile_input_is_an_error_never_a_panic() {
    let bytes = data("benches/data/input_packet.bin");
    for cut in 0..bytes.len() {
        assert!(
            gdvariant::from_slice::<Input<'_>>(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut m = bytes.clone();
    for i in 0..bytes.len() {
        for x in [0x00, 0xFF, bytes[i] ^ 0x80] {
            m[i] = x;
            let _ = gdvariant::from_slice::<Input<'_>>(&m);
            let _ = gdvariant::from_slice::<serde::de::IgnoredAny>(&m);
            let _ = gdvariant::from_slice::<Vec<BTreeMap<String, f64>>>(&m);
        }
        m[i] = bytes[i];
    }
    // A count of 2^31 - 1 with no data: an error, with no reservation in proportion to it.
    let huge = [28, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 2, 0, 0, 0, 1, 0, 0, 0];
    let err = gdvariant::from_slice::<Vec<i64>>(&huge).unwrap_err();
    assert!(err.format_error().is_some(), "{err}");
    // Nesting: serde's own limit of 128 on top of the engine's 1024.
    let mut deep = Vec::new();
    for _ in 0..200 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    deep.extend_from_slice(&[0, 0, 0, 0]);
    let err = gdvariant::from_slice::<serde::de::IgnoredAny>(&deep);
    assert!(err.is_ok(), "ignored values are skipped whole: {err:?}");
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    enum Nested {
        Leaf(()),
        List(Vec<Nested>),
    }
    let err = gdvariant::from_slice::<Nested>(&deep).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");
    // Options reach the walker: Godot 3 ids.
    let g3 = [7, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64];
    let v: Vector3 = gdvariant::from_slice_with(&g3, &Options::godot3()).unwrap();
    assert_eq!(v, Vector3::new(1.0, 2.0, 3.0));
}
