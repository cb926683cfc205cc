//! Deterministic test and benchmark inputs, built with a tiny local byte builder (independent
//! of the crate's encoder) that mimics the engine's canonical Godot 4 encoding: minimal int
//! width, f32 floats when exact, zero-padded strings, PackedStringArray entries with a NUL.
#![allow(dead_code)]

/// The number of entities in [`game_state_packet`].
pub const ENTITIES: usize = 10_000;

/// The `tick` of [`game_state_packet`].
pub const TICK: i64 = 123_456;

/// Godot 4 type ids used here.
pub mod id {
    pub const INT: u32 = 2;
    pub const FLOAT: u32 = 3;
    pub const STRING: u32 = 4;
    pub const VECTOR3: u32 = 9;
    pub const DICTIONARY: u32 = 27;
    pub const ARRAY: u32 = 28;
    pub const PACKED_FLOAT32_ARRAY: u32 = 32;
    pub const PACKED_STRING_ARRAY: u32 = 34;
}

/// A little-endian byte builder for Godot 4 values.
#[derive(Default)]
pub struct Builder {
    pub bytes: Vec<u8>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// An int with the engine's minimal width.
    pub fn int(&mut self, v: i64) -> &mut Self {
        match i32::try_from(v) {
            Ok(small) => self.u32(id::INT).u32(small as u32),
            Err(_) => {
                self.u32(id::INT | 1 << 16);
                self.bytes.extend_from_slice(&v.to_le_bytes());
                self
            }
        }
    }

    /// A float: 4 bytes when `f32` holds it exactly, else 8 bytes with the 64-bit flag.
    pub fn float(&mut self, v: f64) -> &mut Self {
        if f64::from(v as f32) == v {
            self.u32(id::FLOAT).f32(v as f32)
        } else {
            self.u32(id::FLOAT | 1 << 16);
            self.bytes.extend_from_slice(&v.to_le_bytes());
            self
        }
    }

    /// The payload of a string: length, bytes, zero padding.
    pub fn str_payload(&mut self, s: &[u8]) -> &mut Self {
        self.u32(s.len() as u32);
        self.bytes.extend_from_slice(s);
        self.pad()
    }

    fn pad(&mut self) -> &mut Self {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
        self
    }

    pub fn string(&mut self, s: &str) -> &mut Self {
        self.u32(id::STRING).str_payload(s.as_bytes())
    }

    pub fn vector3(&mut self, v: [f32; 3]) -> &mut Self {
        self.u32(id::VECTOR3);
        for c in v {
            self.f32(c);
        }
        self
    }

    /// A PackedStringArray as the engine writes it: each entry with a trailing NUL.
    pub fn packed_strings(&mut self, items: &[&str]) -> &mut Self {
        self.u32(id::PACKED_STRING_ARRAY).u32(items.len() as u32);
        for s in items {
            self.u32(s.len() as u32 + 1);
            self.bytes.extend_from_slice(s.as_bytes());
            self.bytes.push(0);
            self.pad();
        }
        self
    }

    /// A Dictionary head; `count` key/value pairs must follow.
    pub fn dict(&mut self, count: u32) -> &mut Self {
        self.u32(id::DICTIONARY).u32(count)
    }

    /// An untyped Array head; `count` elements must follow.
    pub fn array(&mut self, count: u32) -> &mut Self {
        self.u32(id::ARRAY).u32(count)
    }
}

/// One entity of the generated packet, as the generator built it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub id: i64,
    pub name: String,
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub hp: f32,
    pub tags: Vec<String>,
}

/// A fixed mixing function (SplitMix64's finalizer over a fixed LCG step) so that entity `i`
/// can be recomputed without generating the ones before it.
fn mix(i: u64, field: u64) -> u64 {
    let mut z = i
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407 ^ field.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A value in [-lim, lim] with a step of 1/`div`: exact in f32.
fn coord(i: u64, field: u64, lim: u64, div: f32) -> f32 {
    (mix(i, field) % (2 * lim + 1)) as f32 / div - (lim as f32 / div)
}

/// Entity `i` of [`game_state_packet`].
pub fn entity(i: usize) -> Entity {
    let k = i as u64;
    let mut tags = vec![
        if i % 5 == 0 { "npc" } else { "player" }.to_string(),
        format!("team_{}", i % 4),
    ];
    if mix(k, 9) % 10 == 0 {
        tags.push("boss".to_string());
    }
    Entity {
        id: i as i64,
        name: format!("entity_{i}"),
        pos: [
            coord(k, 1, 8000, 8.0),
            coord(k, 2, 8000, 8.0),
            coord(k, 3, 8000, 8.0),
        ],
        vel: [
            coord(k, 4, 160, 16.0),
            coord(k, 5, 160, 16.0),
            coord(k, 6, 160, 16.0),
        ],
        hp: (mix(k, 7) % 401) as f32 * 0.25,
        tags,
    }
}

/// Appends one entity dictionary in the key order of the engine's `game_state` sample.
pub fn push_entity(b: &mut Builder, e: &Entity) {
    b.dict(6);
    b.string("id").int(e.id);
    b.string("name").string(&e.name);
    b.string("pos").vector3(e.pos);
    b.string("vel").vector3(e.vel);
    b.string("hp").float(f64::from(e.hp));
    let tags: Vec<&str> = e.tags.iter().map(String::as_str).collect();
    b.string("tags").packed_strings(&tags);
}

/// The packet a Godot server broadcasts, with `n` entities:
/// `{"tick": 123456, "entities": [n × {"id", "name", "pos", "vel", "hp", "tags"}]}`.
pub fn game_state_packet_with(n: usize) -> Vec<u8> {
    let mut b = Builder::new();
    b.dict(2);
    b.string("tick").int(TICK);
    b.string("entities").array(n as u32);
    for i in 0..n {
        push_entity(&mut b, &entity(i));
    }
    b.bytes
}

/// The game-state packet with [`ENTITIES`] entities (about 1.75 MB), Godot 4 encoding.
pub fn game_state_packet() -> Vec<u8> {
    game_state_packet_with(ENTITIES)
}

/// The value of element `i` of [`packed_f32_array`].
pub fn packed_f32_element(i: usize) -> f32 {
    (i % 4096) as f32 * 0.5 - 1000.0
}

/// A PackedFloat32Array value whose payload is `n_bytes` (rounded down to whole elements).
pub fn packed_f32_array(n_bytes: usize) -> Vec<u8> {
    let n = n_bytes / 4;
    let mut b = Builder::new();
    b.bytes.reserve(8 + 4 * n);
    b.u32(id::PACKED_FLOAT32_ARRAY).u32(n as u32);
    for i in 0..n {
        b.f32(packed_f32_element(i));
    }
    b.bytes
}
