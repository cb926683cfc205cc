//! Replays the committed fuzz corpus (and any crash artifacts kept as regressions) on stable:
//! `validate_with` and the full lazy walk agree on accept or reject, and on the length, in both
//! dialects with full objects allowed or not; a valid value is found by `parse_prefix` too.

mod common;

use std::path::{Path, PathBuf};

use common::walk::lazy_accept;
use gdvariant::{Dialect, Options};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The same check as fuzz/fuzz_targets/lazy_vs_validate.rs; returns how many inputs were valid.
fn check(name: &str, data: &[u8]) -> usize {
    let mut valid = 0;
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        for objects in [false, true] {
            let opts = Options::new().dialect(dialect).allow_objects(objects);
            let val = gdvariant::validate_with(data, &opts);
            let lazy = lazy_accept(data, &opts);
            match (&val, &lazy) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{name} {dialect} objects={objects}: lengths"),
                (Err(_), Err(_)) => {}
                _ => panic!("{name} {dialect} objects={objects}: validate {val:?}, lazy {lazy:?}"),
            }
            if let Ok(n) = val {
                let (v, used) = gdvariant::parse_prefix(data, &opts).expect(name);
                assert_eq!(used, n, "{name}: parse_prefix");
                assert_eq!(v.raw().map(<[u8]>::len), Ok(n), "{name}: raw");
                assert_eq!(v.validate(), Ok(n), "{name}: VariantRef::validate");
                valid += 1;
            }
        }
    }
    valid
}

#[test]
fn fuzz_corpus_replays() {
    // The test's lazy walk recurses once per nesting level (about 3 KiB each in a debug build)
    // and the corpus holds 1025-level inputs: run it on a big enough stack.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(replay)
        .unwrap()
        .join()
        .unwrap();
}

fn replay() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = files_in(&fuzz.join("corpus").join("lazy_vs_validate"));
    assert!(corpus.len() > 100, "only {} corpus files", corpus.len());
    let artifacts = files_in(&fuzz.join("artifacts").join("lazy_vs_validate"));
    let mut valid = 0;
    for path in corpus.iter().chain(&artifacts) {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        valid += check(&path.display().to_string(), &data);
    }
    // The corpus holds both valid values and rejected inputs.
    assert!(valid > 100, "only {valid} valid (input, options) pairs");
    assert!(valid < 4 * corpus.len(), "everything was valid");
}
