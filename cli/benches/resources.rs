//! The resource table: peak memory and time per input byte of every entry point, library and
//! command-line tool, on the adversarial inputs of `tests/common/adversarial.rs` (deep nesting
//! times width, nesting far past the limit, keys that compare or hash badly, long escapes, huge
//! numbers, counts that claim more than the input holds, a frame claiming 8 MiB fed one byte at
//! a time). Run it with `bash benches/resources.sh` (which also updates the table in tests/README.md);
//! `cargo bench -p gdvariant-cli --bench resources -- [SIZE_KIB]` prints the tables.
//!
//! Library entry points run in this process under a counting allocator: "memory" is the peak
//! of live heap bytes during the call (the input itself not included) divided by the input's
//! size. The command-line tool runs as a child process on a file: "memory" is its peak resident
//! set (GNU `time -f %M`) minus that of the tool on a tiny file, divided by the input's size (the
//! memory-mapped input counts once it is touched, so a tool that reads its input is at least
//! about 1×). Times are wall-clock, the best of three runs (noisy on a shared machine: the
//! deterministic checks are `tests/read/scaling.rs`). Each entry point is measured at SIZE and at
//! twice SIZE; the table shows its worst input for memory and for time, and how that memory
//! grew when the input doubled.

use std::process::{Command, Stdio};
use std::time::Instant;

use gdvariant::framing::{frames, Decoded, FrameDecoder, FrameOptions, FrameWriter};
use gdvariant::{json, text, EncodeOptions, ReadOptions, Variant};

#[path = "../../tests/common/adversarial.rs"]
mod adversarial;
#[allow(dead_code)] // its other measures serve other tests
#[path = "../../tests/common/alloc.rs"]
mod alloc;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// One measurement: peak bytes per input byte, nanoseconds per input byte.
#[derive(Clone, Copy, Debug)]
struct M {
    mem: f64,
    ns: f64,
}

/// Runs `f` three times; the peak heap of the first run, the best time.
fn measure(len: usize, mut f: impl FnMut()) -> M {
    let mut best = f64::MAX;
    let mut peak = 0;
    for i in 0..3 {
        let t = Instant::now();
        if i == 0 {
            peak = alloc::measure(&mut f).1.peak;
        } else {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64);
    }
    M {
        mem: peak as f64 / len as f64,
        ns: best / len as f64,
    }
}

/// A row of the table: an entry point, its worst input for memory and for time, and the growth
/// of that memory when the input doubled.
struct Row {
    entry: String,
    mem: (f64, f64, String),
    ns: (f64, String),
}

fn row(entry: &str, results: &[(String, M, M)]) -> Row {
    let worst_mem = results
        .iter()
        .max_by(|a, b| a.1.mem.total_cmp(&b.1.mem))
        .expect("inputs");
    let worst_ns = results
        .iter()
        .max_by(|a, b| a.1.ns.total_cmp(&b.1.ns))
        .expect("inputs");
    // Memory per byte is the same at twice the size when it grows linearly: the growth factor
    // of the whole is 2 × the ratio of the per-byte figures.
    let growth = if worst_mem.1.mem > 0.0 {
        2.0 * worst_mem.2.mem / worst_mem.1.mem
    } else {
        0.0
    };
    Row {
        entry: entry.into(),
        mem: (worst_mem.1.mem, growth, worst_mem.0.clone()),
        ns: (worst_ns.1.ns, worst_ns.0.clone()),
    }
}

type Lib = (&'static str, fn(&[u8]));

fn library() -> Vec<Lib> {
    vec![
        ("`parse_prefix`", |b| {
            let _ = gdvariant::parse_prefix(b);
        }),
        ("`validate`", |b| {
            let _ = gdvariant::validate(b);
        }),
        ("`Walker` (iterate every value)", |b| {
            let mut w = gdvariant::Walker::new(b, &ReadOptions::new());
            while let Ok(Some(_)) = w.next_event() {}
        }),
        ("`to_owned`", |b| {
            let _ = gdvariant::parse(b).and_then(|v| v.to_owned());
        }),
        ("`encode` (of `to_owned`'s tree)", |b| {
            if let Ok(v) = gdvariant::parse(b).and_then(|v| v.to_owned()) {
                let _ = gdvariant::encode(&v);
            }
        }),
        ("serde `from_slice::<Variant>`", |b| {
            let _ = gdvariant::from_slice::<Variant>(b);
        }),
        ("serde `from_slice::<IgnoredAny>`", |b| {
            let _ = gdvariant::from_slice::<serde::de::IgnoredAny>(b);
        }),
        ("framing: `frames()`", |b| {
            let mut w = FrameWriter::new(FrameOptions::new(), EncodeOptions::new());
            let _ = w.raw(b);
            let stream = w.into_inner();
            for v in frames(&stream, &FrameOptions::new()).flatten() {
                let _ = v.validate();
            }
        }),
        ("framing: `FrameDecoder`, 1 byte at a time", |b| {
            let mut stream = (b.len() as u32).to_le_bytes().to_vec();
            stream.extend_from_slice(b);
            let mut dec = FrameDecoder::new(FrameOptions::new().with_max_frame(usize::MAX));
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
        ("`text::to_writer`", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = text::to_writer(&v, std::io::sink());
            }
        }),
        ("`json::to_writer`", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = json::to_writer(&v, std::io::sink());
            }
        }),
        ("`text::round_trip`", |b| {
            if let Ok(v) = gdvariant::parse(b) {
                let _ = text::round_trip(&v, &EncodeOptions::new().with_full_objects(true));
            }
        }),
    ]
}

type Txt = (&'static str, fn(&str));

fn readers() -> Vec<(bool, Txt)> {
    vec![
        (
            false,
            ("`text::from_str_with`", |s| {
                let _ = text::from_str_with(s, &ReadOptions::new());
            }),
        ),
        (
            false,
            ("`text::to_bytes`", |s| {
                let _ = text::to_bytes(s, &EncodeOptions::new());
            }),
        ),
        (
            true,
            ("`json::from_str_with`", |s| {
                let _ = json::from_str_with(s, &ReadOptions::new());
            }),
        ),
        (
            true,
            ("`json::to_bytes`", |s| {
                let _ = json::to_bytes(s, &EncodeOptions::new());
            }),
        ),
    ]
}

/// A frame prefix claiming `claim` bytes followed by `n` bytes, fed to the decoder one byte at
/// a time: its memory follows what arrived, not what was claimed.
fn slow_claim(n: usize) -> M {
    let mut stream = ((8u32 << 20) - 4).to_le_bytes().to_vec();
    stream.extend_from_slice(&[2, 0, 0, 0]);
    stream.resize(4 + n, 0);
    measure(n, || {
        let mut dec = FrameDecoder::new(FrameOptions::new());
        for byte in stream.chunks(1) {
            let mut input = byte;
            let _ = dec.decode(&mut input);
        }
    })
}

/// Peak RSS in bytes and seconds of `gdvariant args file`.
fn cli_run(exe: &str, args: &[&str], file: &str) -> Option<(f64, f64)> {
    let mut best = (f64::MAX, 0.0);
    for _ in 0..3 {
        let t = Instant::now();
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(exe)
            .args(args)
            .arg(file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .ok()?;
        let secs = t.elapsed().as_secs_f64();
        let err = String::from_utf8_lossy(&out.stderr);
        let kb: f64 = err.lines().last()?.trim().parse().ok()?;
        best.0 = best.0.min(secs);
        best.1 = f64::max(best.1, kb * 1024.0);
    }
    Some((best.1, best.0))
}

fn main() {
    let size_kib: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2048);
    let n = size_kib << 10;
    let exe = env!("CARGO_BIN_EXE_gdvariant");
    eprintln!("measuring at {size_kib} KiB and {} KiB", 2 * size_kib);
    let mut rows: Vec<Row> = Vec::new();

    // The library on binary input.
    let (small, big) = (adversarial::binary(n), adversarial::binary(2 * n));
    for (name, f) in library() {
        let results: Vec<(String, M, M)> = small
            .iter()
            .zip(&big)
            .map(|((input, a), (_, b))| {
                (
                    input.to_string(),
                    measure(a.len(), || f(a)),
                    measure(b.len(), || f(b)),
                )
            })
            .collect();
        rows.push(row(name, &results));
        eprintln!("{name}");
    }
    rows.push(row(
        "framing: a frame claiming 8 MiB fed 1 byte at a time",
        &[(
            "the claimed frame".into(),
            slow_claim(n.min(4 << 20)),
            slow_claim((2 * n).min(8 << 20)),
        )],
    ));
    // The readers.
    let (ts, tb) = (adversarial::text(n), adversarial::text(2 * n));
    let (js, jb) = (adversarial::json(n), adversarial::json(2 * n));
    for (is_json, (name, f)) in readers() {
        let (s, b) = if is_json { (&js, &jb) } else { (&ts, &tb) };
        let results: Vec<(String, M, M)> = s
            .iter()
            .zip(b)
            .map(|((input, a), (_, b))| {
                (
                    input.to_string(),
                    measure(a.len(), || f(a)),
                    measure(b.len(), || f(b)),
                )
            })
            .collect();
        rows.push(row(name, &results));
        eprintln!("{name}");
    }

    // The command-line tool.
    let dir = std::env::temp_dir().join(format!("gdvariant-resources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).expect("write input");
        p.to_string_lossy().into_owned()
    };
    let tiny = write("tiny.bin", &[2, 0, 0, 0, 1, 0, 0, 0]);
    let Some((base_rss, _)) = cli_run(exe, &["validate"], &tiny) else {
        eprintln!("GNU time (/usr/bin/time) is needed for the command-line rows");
        print_tables(&rows);
        return;
    };
    let cli = |args: &[&str], s: &[(&'static str, Vec<u8>)], b: &[(&'static str, Vec<u8>)]| {
        s.iter()
            .zip(b)
            .filter_map(|((input, a), (_, bb))| {
                let fa = write("a", a);
                let ra = cli_run(exe, args, &fa)?;
                let fb = write("b", bb);
                let rb = cli_run(exe, args, &fb)?;
                let m = |r: (f64, f64), len: usize| M {
                    mem: (r.0 - base_rss).max(0.0) / len as f64,
                    ns: r.1 * 1e9 / len as f64,
                };
                Some((input.to_string(), m(ra, a.len()), m(rb, bb.len())))
            })
            .collect::<Vec<_>>()
    };
    for args in [
        &["decode", "--format", "text"][..],
        &["decode", "--format", "json"],
        &["decode", "--format", "tree"],
        &["validate"],
        &["stats"],
        &["stats", "--max-depth", "16384"],
        &["get", "nope/1"],
    ] {
        let r = cli(args, &small, &big);
        rows.push(row(&format!("`gdvariant {}`", args.join(" ")), &r));
        eprintln!("{args:?}");
    }
    let bytes = |v: &[(&'static str, String)]| -> Vec<(&'static str, Vec<u8>)> {
        v.iter()
            .map(|(n, s)| (*n, s.clone().into_bytes()))
            .collect()
    };
    for (from, s, b) in [
        ("text", bytes(&ts), bytes(&tb)),
        ("json", bytes(&js), bytes(&jb)),
    ] {
        let args = ["encode", "--from", from];
        let r = cli(&args, &s, &b);
        rows.push(row(&format!("`gdvariant {}`", args.join(" ")), &r));
        eprintln!("{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    print_tables(&rows);
}

fn print_tables(rows: &[Row]) {
    println!("| entry point | peak memory / input byte | on | when the input doubles | time / input byte | on |");
    println!("|---|---:|---|---:|---:|---|");
    for r in rows {
        let (mem, on, growth) = if r.mem.0 < 0.005 {
            ("0".to_string(), "every input".to_string(), "–".to_string())
        } else {
            (
                format!("{:.2}", r.mem.0),
                r.mem.2.clone(),
                format!("×{:.2}", r.mem.1),
            )
        };
        println!(
            "| {} | {mem} | {on} | {growth} | {:.1} ns | {} |",
            r.entry, r.ns.0, r.ns.1
        );
    }
}
