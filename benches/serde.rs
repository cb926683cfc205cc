//! serde's side of the side-by-side benchmark against the engine (`benches/vs_engine.sh` runs
//! it with `vs_engine` and prints the ratios): the engine-written packets of `benches/data/`
//! read into derived, borrowing structs, and the input packet written back with `to_vec`; and
//! `from_slice`'s parts on the input packet (`validate`, the derived code alone), for the
//! README's account of where its time goes.
//!
//! `cargo bench --bench serde --features serde`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gdvariant::{Vector2, Vector3};
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

    struct One<'a>(Value<'a>);

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

/// `from_slice`'s parts on the input packet: `validate` (the reading every path does) and the
/// derived code alone (see [`derived_alone`]).
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
    g.finish();
}

criterion_group!(benches, game_state, input_packet, input_packet_parts);
criterion_main!(benches);
