//! Every library entry point does linear work in its input, on adversarial inputs: doubling an
//! input may at most multiply the work by 2.5. Work is counted deterministically (never timed):
//! the bytes the cursors read and the work units counted elsewhere (key comparisons, bytes the
//! text and JSON readers scan, bytes copied; feature `__count-reads`), the bytes allocated, and
//! the peak of live heap bytes (a counting allocator). The inputs are `common::adversarial`'s
//! (deep nesting times width, keys that compare or hash badly, long escapes, huge numbers,
//! counts that claim more than the input holds); the CLI's commands have the same test in the
//! binary (`cli/src/scaling.rs`).

use crate::common;

use common::adversarial;
use common::alloc::measure;
use gdvariant::framing::{frames, Decoded, FrameDecoder, FrameOptions, FrameWriter};
use gdvariant::{json, read_count, text, work_count, EncodeOptions, ReadOptions, Variant};

/// What one run of an entry point cost.
#[derive(Clone, Copy, Debug)]
struct Cost {
    /// Bytes read by the cursors plus other work units.
    work: u64,
    /// Bytes allocated in all.
    allocated: u64,
    /// The most heap bytes live at once (beyond what was live before).
    peak: u64,
}

/// The cost of `f` on this thread (allocations: the binary's counting allocator).
fn cost(f: impl FnOnce()) -> Cost {
    read_count::take();
    work_count::take();
    let ((), usage) = measure(f);
    Cost {
        work: read_count::take() + work_count::take(),
        allocated: usage.bytes,
        peak: usage.peak,
    }
}

/// Fails if doubling the input more than multiplied (×2.5) a measure of `name` on `input`
/// (measures below 4 KiB are taken as 4 KiB: constant costs are not growth).
fn check(failures: &mut Vec<String>, name: &str, input: &str, small: Cost, big: Cost) {
    const FLOOR: u64 = 4096;
    for (what, a, b) in [
        ("work", small.work, big.work),
        ("allocated bytes", small.allocated, big.allocated),
        ("peak heap bytes", small.peak, big.peak),
    ] {
        if b as f64 > 2.5 * a.max(FLOOR) as f64 {
            failures.push(format!(
                "{name} on {input}: {what} {a} -> {b} ({:.2}x) when the input doubled",
                b as f64 / a.max(1) as f64
            ));
        }
    }
}

/// Runs `f` on a thread with a big stack (the test's lazy walk recurses once per level).
fn on_big_stack(f: impl FnOnce() + Send) {
    common::on_stack(256 << 20, f)
}

/// The size of the smaller input of each pair.
const N: usize = 48 << 10;

type Entry = (&'static str, fn(&[u8]));

/// The library's entry points on binary input. Results are ignored: rejecting an input is
/// fine, the cost of doing it is what is measured.
fn binary_entries() -> Vec<Entry> {
    vec![
        ("parse_prefix", |b| {
            let _ = gdvariant::parse_prefix(b);
        }),
        ("validate", |b| {
            let _ = gdvariant::validate(b);
        }),
        ("Walker", |b| {
            let mut w = gdvariant::Walker::new(b, &ReadOptions::new());
            while let Ok(Some(_)) = w.next_event() {}
        }),
        ("lazy walk", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = common::walk::lazy_walk(v);
            }
        }),
        ("to_owned", |b| {
            let _ = gdvariant::parse(b).and_then(|v| v.to_owned());
        }),
        ("to_owned + encode", |b| {
            if let Ok(v) = gdvariant::parse(b).and_then(|v| v.to_owned()) {
                let _ = gdvariant::encode(&v);
            }
        }),
        ("serde from_slice::<Variant>", |b| {
            let _ = gdvariant::from_slice::<Variant>(b);
        }),
        ("serde from_slice::<IgnoredAny>", |b| {
            let _ = gdvariant::from_slice::<serde::de::IgnoredAny>(b);
        }),
        ("framing: frames()", |b| {
            let mut w = FrameWriter::new(FrameOptions::new(), EncodeOptions::new());
            let _ = w.raw(b);
            let stream = w.into_inner();
            for v in frames(&stream, &FrameOptions::new()).flatten() {
                let _ = v.validate();
            }
        }),
        ("framing: FrameDecoder fed 1 byte at a time", |b| {
            let mut stream = (b.len() as u32).to_le_bytes().to_vec();
            stream.extend_from_slice(b);
            let mut dec = FrameDecoder::new(FrameOptions::new());
            for byte in stream.chunks(1) {
                let mut input = byte;
                while !input.is_empty() {
                    match dec.decode(&mut input) {
                        Ok(Decoded::Frame(v)) => {
                            let _ = v.validate();
                        }
                        Ok(Decoded::NeedMore(_)) => {}
                        Err(_) => break,
                    }
                }
            }
        }),
        ("text::to_writer", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = text::to_writer(&v, std::io::sink());
            }
        }),
        ("json::to_writer", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = json::to_writer(&v, std::io::sink());
            }
        }),
        ("text::round_trip", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = text::round_trip(&v, &EncodeOptions::new().with_full_objects(true));
            }
        }),
    ]
}

type TextEntry = (&'static str, fn(&str));

fn text_entries() -> Vec<TextEntry> {
    vec![
        ("text::from_str_with", |s| {
            let _ = text::from_str_with(s, &ReadOptions::new());
        }),
        ("text::to_bytes", |s| {
            let _ = text::to_bytes(s, &EncodeOptions::new());
        }),
    ]
}

fn json_entries() -> Vec<TextEntry> {
    vec![
        ("json::from_str_with", |s| {
            let _ = json::from_str_with(s, &ReadOptions::new());
        }),
        ("json::to_bytes", |s| {
            let _ = json::to_bytes(s, &EncodeOptions::new());
        }),
    ]
}

#[test]
fn binary_entry_points_grow_linearly() {
    on_big_stack(|| {
        let small = adversarial::binary(N);
        let big = adversarial::binary(2 * N);
        let mut failures = Vec::new();
        for ((input, a), (_, b)) in small.iter().zip(&big) {
            for (name, f) in binary_entries() {
                let (ca, cb) = (cost(|| f(a)), cost(|| f(b)));
                eprintln!("{name} on {input}: {ca:?} -> {cb:?}");
                check(&mut failures, name, input, ca, cb);
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

#[test]
fn text_and_json_readers_grow_linearly() {
    on_big_stack(|| {
        let mut failures = Vec::new();
        for (inputs, entries) in [
            (
                (adversarial::text(N), adversarial::text(2 * N)),
                text_entries(),
            ),
            (
                (adversarial::json(N), adversarial::json(2 * N)),
                json_entries(),
            ),
        ] {
            for ((input, a), (_, b)) in inputs.0.iter().zip(&inputs.1) {
                for (name, f) in &entries {
                    let (ca, cb) = (cost(|| f(a)), cost(|| f(b)));
                    eprintln!("{name} on {input}: {ca:?} -> {cb:?}");
                    check(&mut failures, name, input, ca, cb);
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

#[test]
fn the_check_sees_quadratic_work() {
    // Validating an n-byte value n/64 times reads n^2/64 bytes: doubling n quadruples it.
    let quadratic = |n: usize| {
        let mut b = vec![29, 0, 0, 0];
        b.extend_from_slice(&(n as u32).to_le_bytes());
        b.resize(8 + n, 0);
        cost(|| {
            for _ in 0..n / 64 {
                assert_eq!(gdvariant::validate(&b), Ok(b.len()));
            }
        })
    };
    let mut failures = Vec::new();
    check(
        &mut failures,
        "quadratic",
        "test",
        quadratic(N),
        quadratic(2 * N),
    );
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].contains("work"), "{failures:?}");
}
