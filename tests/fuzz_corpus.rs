//! Replays the committed fuzz corpus (and any crash artifacts kept as regressions) on stable,
//! with the fuzz target's checks (`common::walk::agree`): `validate_with`, the full lazy walk and
//! the pull-event walk agree, in both dialects with full objects allowed or not.

mod common;

use std::path::{Path, PathBuf};

use common::walk::agree;
use gdvariant::{Dialect, ReadOptions};

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

/// The same checks as fuzz/fuzz_targets/lazy_vs_validate.rs; returns how many (input,
/// options) pairs were valid.
fn check(name: &str, data: &[u8]) -> usize {
    let mut valid = 0;
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        for objects in [false, true] {
            let opts = ReadOptions::new()
                .with_dialect(dialect)
                .with_full_objects(objects);
            valid += usize::from(agree(name, data, &opts).is_some());
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

/// The serde fuzz target's corpus (fuzz/fuzz_targets/serde_from_slice.rs), with its checks.
#[cfg(feature = "serde")]
#[test]
fn serde_fuzz_corpus_replays() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let corpus = files_in(&fuzz.join("corpus").join("serde_from_slice"));
    assert!(corpus.len() > 100, "only {} corpus files", corpus.len());
    let artifacts = files_in(&fuzz.join("artifacts").join("serde_from_slice"));
    let mut valid = 0;
    for path in corpus.iter().chain(&artifacts) {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for dialect in [Dialect::Godot4, Dialect::Godot3] {
            for objects in [false, true] {
                let opts = ReadOptions::new()
                    .with_dialect(dialect)
                    .with_full_objects(objects);
                common::serde_check::serde_agree(&data, &opts);
                valid += usize::from(gdvariant::validate_with(&data, &opts).is_ok());
            }
        }
    }
    assert!(valid > 100, "only {valid} valid (input, options) pairs");
}
