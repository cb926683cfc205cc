//! Reader benchmarks: validate throughput, lazy lookups whose cost is proportional to what they
//! skip, constant-time zero-copy views of big packed arrays, and the full lazy walk.
//!
//! `cargo bench --bench read -- --warm-up-time 1 --measurement-time 3`

mod common;
#[allow(dead_code)]
#[path = "../tests/common/walk.rs"]
mod walk;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gdvariant::ReadOptions;

fn validate(c: &mut Criterion) {
    let packet = common::game_state_packet();
    let sample = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .expect("examples/game_state.bin");
    let mut g = c.benchmark_group("validate");
    g.throughput(Throughput::Bytes(packet.len() as u64));
    g.bench_function("game_state_10k", |b| {
        b.iter(|| gdvariant::validate(black_box(&packet)).unwrap())
    });
    // parse_prefix walks the same structure without checking string text.
    g.bench_function("parse_prefix_game_state_10k", |b| {
        b.iter(|| {
            gdvariant::parse_prefix_with(black_box(&packet), &ReadOptions::new())
                .unwrap()
                .1
        })
    });
    g.throughput(Throughput::Bytes(sample.len() as u64));
    g.bench_function("engine_sample", |b| {
        b.iter(|| gdvariant::validate(black_box(&sample)).unwrap())
    });
    g.finish();
}

fn lookup(c: &mut Criterion) {
    let packet = common::game_state_packet();
    let mut g = c.benchmark_group("lookup");
    for index in [0usize, 5000, 9999] {
        let path = format!("entities/{index}/pos");
        g.bench_with_input(BenchmarkId::new("path", index), &path, |b, path| {
            b.iter(|| {
                let root = gdvariant::parse(black_box(&packet)).unwrap();
                root.path(path).unwrap().unwrap().as_vector3().unwrap()
            })
        });
    }
    g.bench_function("get_chain/9999", |b| {
        b.iter(|| {
            let root = gdvariant::parse(black_box(&packet)).unwrap();
            root.as_dictionary()
                .unwrap()
                .get("entities")
                .unwrap()
                .unwrap()
                .as_array()
                .unwrap()
                .get(black_box(9999))
                .unwrap()
                .unwrap()
                .as_dictionary()
                .unwrap()
                .get("pos")
                .unwrap()
                .unwrap()
                .as_vector3()
                .unwrap()
        })
    });
    g.finish();
}

fn packed(c: &mut Criterion) {
    // Held in u32 storage so that the payload is 4-aligned whatever the allocator does.
    let value = common::packed_f32_array(16 << 20);
    let mut storage = vec![0u32; value.len() / 4];
    bytemuck::cast_slice_mut::<u32, u8>(&mut storage).copy_from_slice(&value);
    drop(value);
    let bytes: &[u8] = bytemuck::cast_slice(&storage);
    let mut g = c.benchmark_group("packed_f32_16MiB");
    g.bench_function("parse_as_slice", |b| {
        b.iter(|| {
            let v = gdvariant::parse(black_box(bytes)).unwrap();
            let a = v.as_packed::<f32>().unwrap();
            let s = a.as_slice().expect("aligned little-endian buffer");
            (s.len(), s.as_ptr())
        })
    });
    g.bench_function("parse_get_last", |b| {
        b.iter(|| {
            let v = gdvariant::parse(black_box(bytes)).unwrap();
            let a = v.as_packed::<f32>().unwrap();
            a.get(a.len() - 1).unwrap()
        })
    });
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("validate", |b| {
        b.iter(|| gdvariant::validate(black_box(bytes)).unwrap())
    });
    g.bench_function("sum_iter", |b| {
        b.iter(|| {
            let v = gdvariant::parse(black_box(bytes)).unwrap();
            v.as_packed::<f32>().unwrap().iter().sum::<f32>()
        })
    });
    g.finish();
}

fn lazy_walk(c: &mut Criterion) {
    let packet = common::game_state_packet();
    let mut g = c.benchmark_group("lazy_walk");
    g.throughput(Throughput::Bytes(packet.len() as u64));
    g.bench_function("game_state_10k", |b| {
        b.iter(|| walk::lazy_accept(black_box(&packet), &ReadOptions::new()).unwrap())
    });
    g.finish();
}

criterion_group!(benches, validate, lookup, packed, lazy_walk);
criterion_main!(benches);
