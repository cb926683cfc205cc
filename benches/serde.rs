//! serde's side of the side-by-side benchmark against the engine (`benches/vs_engine.sh` runs
//! it with `vs_engine` and prints the ratios): the engine-written packets of `benches/data/`
//! read into derived, borrowing structs, and the input packet written back with `to_vec`; and
//! `from_slice`'s parts on the input packet (`validate`, the derived code alone), for the
//! account of where its time goes in `benches/README.md`.
//!
//! `cargo bench --bench serde --features serde`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gdvariant::{math::Vector2, math::Vector3};
use serde::{Deserialize, Serialize};

fn packet(name: &str) -> Vec<u8> {
    let path = format!("{}/benches/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Entity<'a> {
    id: i64,
    name: &'a str,
    pos: Vector3,
    vel: Vector3,
    hp: f32,
    #[serde(borrow)]
    tags: Vec<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct State<'a> {
    tick: i64,
    #[serde(borrow)]
    entities: Vec<Entity<'a>>,
}

/// The client input packet, fields in the engine's key order.
#[derive(Serialize, Deserialize)]
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

/// Three of the input packet's eight fields, the others skipped (a server reading what it
/// needs): the same three keys as the lookup rows of `benches/vs_engine.rs`.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Three<'a> {
    jump: bool,
    name: &'a str,
    ts: f64,
}

fn game_state(c: &mut Criterion) {
    let bytes = packet("game_state.bin");
    let state: State<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(state.entities.len(), 10_000);
    let mut g = c.benchmark_group("serde_game_state");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.bench_function("from_slice", |b| {
        b.iter(|| gdvariant::from_slice::<State<'_>>(black_box(&bytes)).unwrap())
    });
    g.finish();
}

fn input_packet(c: &mut Criterion) {
    let bytes = packet("input_packet.bin");
    let input: Input<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(
        gdvariant::to_vec(&input).unwrap(),
        bytes,
        "the engine's bytes"
    );
    let mut g = c.benchmark_group("serde_input_packet");
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.bench_function("from_slice", |b| {
        b.iter(|| gdvariant::from_slice::<Input<'_>>(black_box(&bytes)).unwrap())
    });
    let three: Three<'_> = gdvariant::from_slice(&bytes).unwrap();
    assert_eq!(
        (three.jump, three.name, three.ts),
        (input.jump, input.name, input.ts)
    );
    g.bench_function("from_slice_three_fields", |b| {
        b.iter(|| gdvariant::from_slice::<Three<'_>>(black_box(&bytes)).unwrap())
    });
    g.bench_function("to_vec", |b| {
        b.iter(|| gdvariant::to_vec(black_box(&input)).unwrap())
    });
    g.finish();
}

/// The derived code's own share of `from_slice`: the same `Input` deserialized from its eight
/// values already decoded (a slice of `(name, value)`), through the least a `MapAccess` can
/// do. What `from_slice` costs beyond this and `validate` is this crate's reading.
mod derived_alone {
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

    /// A decoded value of the input packet.
    #[derive(Clone, Copy)]
    pub enum Value<'a> {
        Int(i64),
        Float(f64),
        Bool(bool),
        Str(&'a str),
        Reals2([f64; 2]),
        Reals3([f64; 3]),
    }

    /// The pairs, handed out one by one.
    pub struct Pairs<'a> {
        pub pairs: &'a [(&'static str, Value<'a>)],
        pub next: usize,
    }

    #[derive(Debug)]
    pub struct Error;

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error")
        }
    }

    impl std::error::Error for Error {}

    impl de::Error for Error {
        fn custom<T: std::fmt::Display>(_: T) -> Error {
            Error
        }
    }

    /// One decoded value, as a deserializer.
    pub struct One<'a>(pub Value<'a>);

    impl<'de> de::Deserializer<'de> for One<'de> {
        type Error = Error;

        #[inline]
        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            use de::value::SeqDeserializer as Seq;
            match self.0 {
                Value::Int(i) => v.visit_i64(i),
                Value::Float(f) => v.visit_f64(f),
                Value::Bool(b) => v.visit_bool(b),
                Value::Str(s) => v.visit_borrowed_str(s),
                Value::Reals2(a) => v.visit_seq(Seq::new(a.into_iter())),
                Value::Reals3(a) => v.visit_seq(Seq::new(a.into_iter())),
            }
        }

        #[inline]
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Result<V::Value, Error> {
            self.deserialize_any(v)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct seq tuple tuple_struct map struct enum
            identifier ignored_any
        }
    }

    impl<'de> MapAccess<'de> for Pairs<'de> {
        type Error = Error;

        #[inline]
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Error> {
            let Some((name, _)) = self.pairs.get(self.next) else {
                return Ok(None);
            };
            seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(name))
                .map(Some)
        }

        #[inline]
        fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
            let value = self.pairs.get(self.next).ok_or(Error)?.1;
            self.next += 1;
            seed.deserialize(One(value))
        }
    }

    impl<'de> de::Deserializer<'de> for &mut Pairs<'de> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            v.visit_map(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
            enum identifier ignored_any
        }
    }
}

/// The least a reader of the input packet's bytes can do through serde's calls: a
/// `MapAccess` written for this one packet that reads each key (a String, compared with the
/// field expected next) and decodes each value by its header into a [`derived_alone::Value`]
/// for the derived code, with bounds checks and nothing else: no depth or object rules, no
/// text rules beyond what `&str` needs, no error positions. `from_slice` does all of those;
/// this is the floor its reading is measured against.
mod least_reader {
    use super::derived_alone::{Error, One, Value};
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

    /// A Godot 4 Dictionary's entries, read from the bytes.
    pub struct Entries<'a> {
        rest: &'a [u8],
        left: u32,
        fields: &'static [&'static str],
        next: usize,
    }

    /// Whether the key `raw` is the field name `name`: short names compared a word at a time
    /// (two overlapping loads), without a `memcmp` call, as `from_slice` compares them.
    #[inline(always)]
    fn same(name: &[u8], raw: &[u8]) -> bool {
        let n = raw.len();
        if name.len() != n {
            return false;
        }
        let half = |b: &[u8]| {
            let (Some(a), Some(z)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) else {
                return 0;
            };
            u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*z)) << 32
        };
        match n {
            0 => true,
            1..=3 => raw[0] == name[0] && raw[n / 2] == name[n / 2] && raw[n - 1] == name[n - 1],
            4..=8 => half(raw) == half(name),
            _ => raw == name,
        }
    }

    /// The little-endian `u32` at `at` in `b`.
    #[inline(always)]
    fn word(b: &[u8], at: usize) -> Result<u32, Error> {
        let w = b.get(at..).and_then(<[u8]>::first_chunk).ok_or(Error)?;
        Ok(u32::from_le_bytes(*w))
    }

    /// `n` reals at the start of `b` (4 or 8 bytes each).
    #[inline(always)]
    fn reals<const N: usize>(b: &[u8], wide: bool) -> Result<([f64; N], usize), Error> {
        let mut out = [0.0; N];
        let size = if wide { 8 } else { 4 };
        let b = b.get(..N * size).ok_or(Error)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(size)) {
            *o = if wide {
                f64::from_le_bytes(c.try_into().map_err(|_| Error)?)
            } else {
                f64::from(f32::from_le_bytes(c.try_into().map_err(|_| Error)?))
            };
        }
        Ok((out, N * size))
    }

    impl<'a> Entries<'a> {
        /// The value at the cursor, and the cursor after it.
        #[inline(always)]
        fn value(&mut self) -> Result<Value<'a>, Error> {
            let b = self.rest;
            let header = word(b, 0)?;
            let (ty, wide) = (header & 0xFFFF, header & 1 << 16 != 0);
            let body = &b[4..];
            let (v, n) = match (ty, wide) {
                (1, _) => (Value::Bool(word(body, 0)? != 0), 4),
                (2, false) => (Value::Int(i64::from(word(body, 0)? as i32)), 4),
                (2, true) => {
                    let w = body.first_chunk().ok_or(Error)?;
                    (Value::Int(i64::from_le_bytes(*w)), 8)
                }
                (3, false) => (Value::Float(f64::from(f32::from_bits(word(body, 0)?))), 4),
                (3, true) => {
                    let w = body.first_chunk().ok_or(Error)?;
                    (Value::Float(f64::from_le_bytes(*w)), 8)
                }
                (4, _) => {
                    let len = word(body, 0)? as usize;
                    let text = body.get(4..4 + len).ok_or(Error)?;
                    let padded = (len + 3) & !3;
                    body.get(4 + padded..).ok_or(Error)?;
                    // (ASCII a word at a time, as `from_slice` checks it.)
                    let s = match ascii::AsciiStr::from_ascii(text) {
                        Ok(a) => a.as_str(),
                        Err(_) => core::str::from_utf8(text).map_err(|_| Error)?,
                    };
                    (Value::Str(s), 4 + padded)
                }
                (5, _) => {
                    let (r, n) = reals::<2>(body, wide)?;
                    (Value::Reals2(r), n)
                }
                (9, _) => {
                    let (r, n) = reals::<3>(body, wide)?;
                    (Value::Reals3(r), n)
                }
                _ => return Err(Error),
            };
            self.rest = &body[n..];
            Ok(v)
        }
    }

    impl<'de> MapAccess<'de> for Entries<'de> {
        type Error = Error;

        #[inline(always)]
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Error> {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            let b = self.rest;
            if word(b, 0)? != 4 {
                return Err(Error);
            }
            let len = word(b, 4)? as usize;
            let raw = b.get(8..8 + len).ok_or(Error)?;
            self.rest = b.get(8 + ((len + 3) & !3)..).ok_or(Error)?;
            // The field expected next, else any: its name is the key's text.
            let k = match self.fields.get(self.next) {
                Some(name) if same(name.as_bytes(), raw) => self.next,
                _ => self
                    .fields
                    .iter()
                    .position(|name| same(name.as_bytes(), raw))
                    .ok_or(Error)?,
            };
            self.next = k + 1;
            seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(
                self.fields[k],
            ))
            .map(Some)
        }

        #[inline(always)]
        fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
            let v = self.value()?;
            seed.deserialize(One(v))
        }
    }

    /// Reads a struct from the Dictionary at the start of `bytes`.
    pub struct Reader<'a>(pub &'a [u8]);

    impl<'de> de::Deserializer<'de> for Reader<'de> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Error)
        }

        #[inline(always)]
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Error> {
            if word(self.0, 0)? != 27 {
                return Err(Error);
            }
            let left = word(self.0, 4)? & 0x7FFF_FFFF;
            v.visit_map(Entries {
                rest: &self.0[8..],
                left,
                fields,
                next: 0,
            })
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
}

/// `from_slice`'s parts on the input packet: `validate` (the reading every path does), the
/// derived code alone (see [`derived_alone`]) and the least reader (see [`least_reader`]).
fn input_packet_parts(c: &mut Criterion) {
    use derived_alone::{Pairs, Value};
    let bytes = packet("input_packet.bin");
    let input: Input<'_> = gdvariant::from_slice(&bytes).unwrap();
    let pairs: [(&'static str, Value<'_>); 8] = [
        ("seq", Value::Int(input.seq)),
        ("tick", Value::Int(i64::from(input.tick))),
        ("move", Value::Reals2([input.movement.x, input.movement.y])),
        (
            "aim",
            Value::Reals3([input.aim.x, input.aim.y, input.aim.z]),
        ),
        ("buttons", Value::Int(i64::from(input.buttons))),
        ("jump", Value::Bool(input.jump)),
        ("name", Value::Str(input.name)),
        ("ts", Value::Float(input.ts)),
    ];
    let again: Input<'_> = serde::Deserialize::deserialize(&mut Pairs {
        pairs: &pairs,
        next: 0,
    })
    .unwrap();
    assert_eq!(gdvariant::to_vec(&again).unwrap(), bytes, "the same values");
    let mut g = c.benchmark_group("serde_input_packet_parts");
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.bench_function("validate", |b| {
        b.iter(|| gdvariant::validate(black_box(&bytes)).unwrap())
    });
    g.bench_function("derived_code_alone", |b| {
        b.iter(|| {
            let mut d = Pairs {
                pairs: black_box(&pairs),
                next: 0,
            };
            <Input<'_> as serde::Deserialize>::deserialize(&mut d).unwrap()
        })
    });
    let least: Input<'_> = serde::Deserialize::deserialize(least_reader::Reader(&bytes)).unwrap();
    assert_eq!(gdvariant::to_vec(&least).unwrap(), bytes, "the same values");
    g.bench_function("least_reader", |b| {
        b.iter(|| {
            <Input<'_> as serde::Deserialize>::deserialize(least_reader::Reader(black_box(&bytes)))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, game_state, input_packet, input_packet_parts);
criterion_main!(benches);
