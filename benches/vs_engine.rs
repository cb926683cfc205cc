//! The gdvariant side of the side-by-side benchmark against the engine (`benches/vs_engine.sh`
//! runs both and prints the ratios). The packets are the engine's own `var_to_bytes` output,
//! committed in `benches/data/` (re-made by `benches/engine/make_packets.gd`):
//!
//! - `game_state.bin`: `{"tick", "entities": [10 000 × {"id", "name", "pos", "vel", "hp", "tags"}]}`,
//!   about 1.8 MB;
//! - `input_packet.bin`: a client's per-frame input, 8 mixed fields, 212 bytes.
//!
//! `cargo bench --bench vs_engine`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn packet(name: &str) -> Vec<u8> {
    let path = format!("{}/benches/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn game_state(c: &mut Criterion) {
    let bytes = packet("game_state.bin");
    let owned = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(
        gdvariant::encode(&owned).unwrap(),
        bytes,
        "the engine's bytes"
    );
    let mut g = c.benchmark_group("vs_engine_game_state");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.bench_function("validate", |b| {
        b.iter(|| gdvariant::validate(black_box(&bytes)).unwrap())
    });
    g.bench_function("to_owned", |b| {
        b.iter(|| {
            gdvariant::parse(black_box(&bytes))
                .unwrap()
                .to_owned()
                .unwrap()
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| gdvariant::encode(black_box(&owned)).unwrap())
    });
    g.finish();
}

/// The input packet's `jump`, `name` and `ts`, found by a lookup, read as a server reads them.
#[inline(always)]
fn read_three([jump, name, ts]: [Option<gdvariant::VariantRef<'_>>; 3]) -> (bool, usize, f64) {
    let jump = jump.unwrap().as_bool().unwrap();
    let name = name.unwrap().as_str().unwrap();
    let ts = ts.unwrap().as_f64().unwrap();
    (jump, name.len(), ts)
}

fn input_packet(c: &mut Criterion) {
    let bytes = packet("input_packet.bin");
    let owned = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    assert_eq!(
        gdvariant::encode(&owned).unwrap(),
        bytes,
        "the engine's bytes"
    );
    let mut g = c.benchmark_group("vs_engine_input_packet");
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    // What a server does with each packet: check it, then read the fields it needs (the last
    // three of the eight).
    g.bench_function("validate_get3", |b| {
        b.iter(|| {
            let bytes = black_box(&bytes);
            gdvariant::validate(bytes).unwrap();
            let d = gdvariant::parse(bytes).unwrap().as_dictionary().unwrap();
            let jump = d.get("jump").unwrap().unwrap().as_bool().unwrap();
            let name = d.get("name").unwrap().unwrap().as_str().unwrap();
            let ts = d.get("ts").unwrap().unwrap().as_f64().unwrap();
            (jump, name.len(), ts)
        })
    });
    // The same three fields found in one walk over the dictionary.
    g.bench_function("validate_get_many", |b| {
        b.iter(|| {
            let bytes = black_box(&bytes);
            gdvariant::validate(bytes).unwrap();
            let d = gdvariant::parse(bytes).unwrap().as_dictionary().unwrap();
            read_three(d.get_many(["jump", "name", "ts"]).unwrap())
        })
    });
    // The same check and the same three fields in one walk: `validate_get_many` checks the
    // packet's Dictionary as `validate` does while it finds the keys.
    g.bench_function("validate_get_many_one_pass", |b| {
        b.iter(|| {
            let bytes = black_box(&bytes);
            let d = gdvariant::parse(bytes).unwrap().as_dictionary().unwrap();
            read_three(d.validate_get_many(["jump", "name", "ts"]).unwrap())
        })
    });
    g.bench_function("to_owned", |b| {
        b.iter(|| {
            gdvariant::parse(black_box(&bytes))
                .unwrap()
                .to_owned()
                .unwrap()
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| gdvariant::encode(black_box(&owned)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, game_state, input_packet);
criterion_main!(benches);
