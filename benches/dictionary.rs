//! Building an owned `Dictionary` is linear in its number of entries: `collect` (insert with
//! the engine's key identity) and `to_owned` of the bytes, for 50 000, 100 000 and 200 000
//! string keys. With a linear cost the time per element (criterion's "thrpt") stays flat
//! across the three sizes.
//!
//! `cargo bench --bench dictionary`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gdvariant::{Dictionary, Variant};

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("dictionary_build");
    g.measurement_time(Duration::from_secs(3)).sample_size(10);
    for n in [50_000usize, 100_000, 200_000] {
        let keys: Vec<String> = (0..n).map(|i| format!("key_{i}")).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("collect", n), &keys, |b, keys| {
            b.iter(|| {
                let d: Dictionary = keys.iter().map(|k| (k.as_str(), 1)).collect();
                black_box(d)
            })
        });
        let d: Dictionary = keys.iter().map(|k| (k.as_str(), 1)).collect();
        let bytes = gdvariant::encode(&Variant::Dictionary(d)).unwrap();
        g.bench_with_input(BenchmarkId::new("to_owned", n), &bytes, |b, bytes| {
            b.iter(|| {
                gdvariant::parse(black_box(bytes))
                    .unwrap()
                    .to_owned()
                    .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);
