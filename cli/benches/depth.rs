//! Printing and walking cost as a function of nesting depth: inputs of the same size (about
//! 800 KB) nested 10 and 1000 levels deep. Every pass is linear, so depth 1000 should cost
//! about what depth 10 does (goal: at most 1.5×).
//!
//! `cargo bench -p gdvariant-cli --bench depth -- --warm-up-time 1 --measurement-time 3`

#[allow(dead_code, unused_imports)] // the binary's module, its unit tests not run here
#[path = "../src/path.rs"]
mod path;
#[allow(dead_code, unused_imports)] // the binary's module, its unit tests not run here
#[path = "../src/stats.rs"]
mod stats;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gdvariant::{Array, Dictionary, Event, ReadOptions, Variant, Walker};

/// About `total` bytes: `depth` nested Dictionaries `{"items": [ints...], "next": {...}}`.
fn nested(depth: usize, total: usize) -> Vec<u8> {
    let per = total / depth / 8;
    let mut v = Variant::Nil;
    for level in 0..depth {
        let mut d = Dictionary::new();
        let items: Vec<Variant> = (0..per).map(|i| Variant::Int((i + level) as i64)).collect();
        d.insert("items", Variant::Array(Array::new(items)));
        d.insert("next", v);
        v = Variant::Dictionary(d);
    }
    gdvariant::encode(&v).expect("encode")
}

fn depth(c: &mut Criterion) {
    let mut g = c.benchmark_group("depth");
    for d in [10usize, 1000] {
        let bytes = nested(d, 800_000);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        let v = gdvariant::parse(&bytes).expect("parse");
        g.bench_with_input(BenchmarkId::new("json", d), &v, |b, v| {
            b.iter(|| gdvariant::json::to_writer(black_box(v), std::io::sink()).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("text", d), &v, |b, v| {
            b.iter(|| gdvariant::text::to_writer(black_box(v), std::io::sink()).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("stats", d), &v, |b, v| {
            b.iter(|| {
                let mut st = stats::Stats::new(10);
                st.add_at(black_box(v), "", 0, &mut |_| {}).unwrap();
                st
            })
        });
        g.bench_with_input(BenchmarkId::new("walk", d), &bytes, |b, bytes| {
            b.iter(|| {
                let mut w = Walker::new(black_box(bytes), &ReadOptions::new());
                let mut n = 0usize;
                while let Some(e) = w.next_event().unwrap() {
                    n += matches!(e, Event::Value(_)) as usize;
                }
                n
            })
        });
        g.bench_with_input(BenchmarkId::new("to_owned", d), &v, |b, v| {
            b.iter(|| black_box(v).to_owned().unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, depth);
criterion_main!(benches);
