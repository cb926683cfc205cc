//! Replays the committed fuzz corpora on stable, with each fuzz target's own checks: the
//! minimised corpus of every target in `fuzz/corpus/<target>/`, the inputs of its past
//! findings kept as regressions in `fuzz/regressions/<target>/`, and any local crash artifacts
//! in `fuzz/artifacts/<target>/`. `lazy_vs_validate` checks `common::walk::agree` (validate, the
//! full lazy walk and the pull-event walk agree); `serde_from_slice` checks
//! `common::serde_check`; the others check `common::checks` (the readers, print → read back,
//! `to_owned` → `encode`, the framing decoder in chunks, the streaming writer).

use crate::common;

use common::files_in;
use common::walk::agree;
use gdvariant::{Dialect, ReadOptions};

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
    common::on_stack(64 << 20, replay);
}

fn replay() {
    let fuzz = common::repo_root().join("fuzz");
    let corpus = files_in(&fuzz.join("corpus").join("lazy_vs_validate"));
    assert!(corpus.len() > 100, "only {} corpus files", corpus.len());
    let mut artifacts = files_in(&fuzz.join("artifacts").join("lazy_vs_validate"));
    artifacts.extend(files_in(&fuzz.join("regressions").join("lazy_vs_validate")));
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
    let fuzz = common::repo_root().join("fuzz");
    let corpus = files_in(&fuzz.join("corpus").join("serde_from_slice"));
    assert!(corpus.len() > 100, "only {} corpus files", corpus.len());
    let mut artifacts = files_in(&fuzz.join("artifacts").join("serde_from_slice"));
    artifacts.extend(files_in(&fuzz.join("regressions").join("serde_from_slice")));
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

/// Replays the corpus, regressions and artifacts of `target` through `check`; returns (inputs,
/// how many exercised the target's main path).
#[cfg(feature = "std")]
fn replay_target(target: &str, check: fn(&[u8]) -> bool) -> (usize, usize) {
    let fuzz = common::repo_root().join("fuzz");
    let corpus = files_in(&fuzz.join("corpus").join(target));
    assert!(
        corpus.len() > 50,
        "{target}: only {} corpus files",
        corpus.len()
    );
    let mut inputs = corpus;
    inputs.extend(files_in(&fuzz.join("regressions").join(target)));
    inputs.extend(files_in(&fuzz.join("artifacts").join(target)));
    let mut hit = 0;
    for path in &inputs {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = std::panic::catch_unwind(|| check(&data));
        match r {
            Ok(h) => hit += usize::from(h),
            Err(e) => std::panic::resume_unwind(Box::new(format!(
                "{target}: {}: {}",
                path.display(),
                e.downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| e.downcast_ref::<&str>().copied())
                    .unwrap_or("panic")
            ))),
        }
    }
    (inputs.len(), hit)
}

#[cfg(feature = "std")]
macro_rules! replay {
    ($($name:ident: $target:ident, at least $min:literal;)*) => {$(
        #[test]
        fn $name() {
            let (n, hit) = replay_target(stringify!($target), common::checks::$target);
            assert!(hit >= $min, "{}: only {hit} of {n} inputs exercised it", stringify!($target));
        }
    )*};
}

#[cfg(feature = "std")]
replay! {
    text_reader_corpus_replays: text_reader, at least 50;
    json_reader_corpus_replays: json_reader, at least 50;
    print_round_trip_corpus_replays: print_round_trip, at least 50;
    owned_round_trip_corpus_replays: owned_round_trip, at least 50;
    framing_chunks_corpus_replays: framing_chunks, at least 20;
    writer_ops_corpus_replays: writer_ops, at least 20;
}
