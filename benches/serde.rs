//! serde's side of the side-by-side benchmark against the engine (`benches/vs_engine.sh` runs
//! it with `vs_engine` and prints the ratios): the engine-written packets of `benches/data/`
//! read into derived, borrowing structs, and the input packet written back with `to_vec`.
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

criterion_group!(benches, game_state, input_packet);
criterion_main!(benches);
