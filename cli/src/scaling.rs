//! The command-line tool's commands do linear work in their input: the test of
//! `tests/read/scaling.rs` for `decode` (text, JSON, tree), `encode` (from text and JSON),
//! `validate`, `stats` and `get`, run in-process on the same adversarial inputs. Work is counted
//! deterministically: bytes read by the cursors plus the library's work units (feature
//! `__count-reads`), bytes allocated and the peak of live heap bytes (the counting allocator
//! this test binary installs). Output goes to a sink, so the memory measured is the command's
//! own.

use std::io;

use clap::Parser;
use gdvariant::{read_count, work_count};

use crate::app;
use crate::args::Cli;
use crate::host::{self, Host};

#[path = "../../tests/common/adversarial.rs"]
mod adversarial;
/// The tests' counting allocator, installed by `main.rs` for this test.
#[allow(dead_code)] // its other measures serve other tests
#[path = "../../tests/common/alloc.rs"]
pub(crate) mod alloc;

/// Serves one input as standard input; output is not a terminal.
struct OneInput(Vec<u8>);

impl Host for OneInput {
    fn load(&mut self, _path: &str) -> io::Result<Box<dyn AsRef<[u8]>>> {
        Ok(Box::new(self.0.clone()))
    }
    fn stdout_is_terminal(&self) -> bool {
        false
    }
    fn progress(&mut self, _what: &'static str, _total: u64) -> Box<dyn host::Progress> {
        Box::new(host::NoProgress)
    }
}

#[derive(Clone, Copy, Debug)]
struct Cost {
    work: u64,
    allocated: u64,
    peak: u64,
}

/// Runs the command `args` on `input`; the input's own copy is not counted.
fn cost(args: &[&str], input: &[u8]) -> Cost {
    let cli = Cli::try_parse_from(std::iter::once("gdvariant").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut host = OneInput(input.to_vec());
    let (mut out, mut err) = (io::sink(), io::sink());
    read_count::take();
    work_count::take();
    let ((), usage) = alloc::measure(|| {
        let _ = app::run(cli, &mut host, &mut out, &mut err);
    });
    let copy = input.len() as u64;
    Cost {
        work: read_count::take() + work_count::take(),
        allocated: usage.bytes.saturating_sub(copy),
        peak: usage.peak.saturating_sub(copy),
    }
}

fn check(failures: &mut Vec<String>, name: &str, input: &str, a: Cost, b: Cost) {
    const FLOOR: u64 = 4096;
    for (what, x, y) in [
        ("work", a.work, b.work),
        ("allocated bytes", a.allocated, b.allocated),
        ("peak heap bytes", a.peak, b.peak),
    ] {
        if y as f64 > 2.5 * x.max(FLOOR) as f64 {
            failures.push(format!(
                "gdvariant {name} on {input}: {what} {x} -> {y} when the input doubled"
            ));
        }
    }
}

const N: usize = 48 << 10;

#[test]
fn commands_grow_linearly() {
    let commands: [&[&str]; 9] = [
        &["decode", "--format", "text", "-"],
        &["decode", "--format", "json", "-"],
        &["decode", "--format", "tree", "-"],
        &["validate", "-"],
        &["validate", "--max-depth", "16384", "-"],
        &["stats", "-"],
        &["stats", "--max-depth", "16384", "-"],
        &["get", "1", "-"],
        &["get", "nope/1", "-"],
    ];
    let mut failures = Vec::new();
    let (small, big) = (adversarial::binary(N), adversarial::binary(2 * N));
    for ((input, a), (_, b)) in small.iter().zip(&big) {
        for args in commands {
            let (ca, cb) = (cost(args, a), cost(args, b));
            check(&mut failures, &args.join(" "), input, ca, cb);
        }
    }
    for (from, small, big) in [
        ("text", adversarial::text(N), adversarial::text(2 * N)),
        ("json", adversarial::json(N), adversarial::json(2 * N)),
    ] {
        for ((input, a), (_, b)) in small.iter().zip(&big) {
            for framed in [false, true] {
                let mut args = vec!["encode", "--from", from];
                if framed {
                    args.push("--framed");
                }
                args.push("-");
                let (ca, cb) = (cost(&args, a.as_bytes()), cost(&args, b.as_bytes()));
                check(&mut failures, &args.join(" "), input, ca, cb);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tree_and_stats_memory_does_not_grow_with_depth_or_key_length() {
    // 1000 nested Dictionaries whose keys are 1000 bytes long (1 MB) against the same with
    // 1-byte keys: the outline's and the statistics' memory stays the same, and small.
    let chain = |levels: usize, key: &[u8]| {
        let mut b = Vec::new();
        for _ in 1..levels {
            b.extend_from_slice(&[27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0]);
            b.extend_from_slice(&(key.len() as u32).to_le_bytes());
            b.extend_from_slice(key);
            b.resize(b.len().next_multiple_of(4), 0);
        }
        b.extend_from_slice(&[27, 0, 0, 0, 0, 0, 0, 0]);
        b
    };
    let long = chain(1000, &[b'k'; 1000]);
    let short = chain(1000, b"k");
    assert!(long.len() > 1_000_000);
    for args in [
        &["decode", "--format", "tree", "-"][..],
        &["stats", "-"][..],
    ] {
        let (l, s) = (cost(args, &long), cost(args, &short));
        assert!(l.peak < 300_000, "{args:?}: peak {} bytes", l.peak);
        assert!(l.peak.abs_diff(s.peak) < 64_000, "{args:?}: {l:?} vs {s:?}");
    }
    // 16384 levels with --max-depth 16384: linear work, a small record a level.
    let mut deep = Vec::new();
    for _ in 0..16384 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    deep.extend_from_slice(&[28, 0, 0, 0, 0, 0, 0, 0]);
    let c = cost(&["stats", "--max-depth", "16384", "-"], &deep);
    assert!(c.work < 4 * deep.len() as u64, "{c:?}");
    assert!(c.peak < 256 * 16384, "{c:?}");
}
