//! Engine-produced golden data: every value the real engines wrote reads back.

use crate::common;

use common::walk::lazy_accept;
use gdvariant::{Dialect, ReadOptions};

fn opts_for(dialect: Dialect, objects: bool) -> ReadOptions {
    ReadOptions::new()
        .with_dialect(dialect)
        .with_full_objects(objects)
}

fn check_engine(engine: &str, dialect: Dialect) {
    let (version, cases) = common::encode_cases(engine);
    assert!(!version.is_empty());
    assert!(cases.len() > 100, "{engine}: only {} cases", cases.len());
    for c in &cases {
        let opts = opts_for(dialect, c.objects);
        let len = gdvariant::validate_with(&c.bytes, &opts)
            .unwrap_or_else(|e| panic!("{engine} {}: validate: {e}", c.name));
        assert_eq!(len, c.bytes.len(), "{engine} {}: consumed", c.name);
        let lazy = lazy_accept(&c.bytes, &opts)
            .unwrap_or_else(|e| panic!("{engine} {}: lazy: {e}", c.name));
        assert_eq!(lazy, c.bytes.len(), "{engine} {}: lazy length", c.name);
    }
}

#[test]
fn godot4_encode_cases_read_back() {
    check_engine("godot4", Dialect::Godot4);
}

#[test]
fn godot3_encode_cases_read_back() {
    check_engine("godot3", Dialect::Godot3);
}

/// Our `validate` agrees with the engine on accept or reject for every input of the decode
/// corpus, in both modes, except the deviations listed in `tests/godot/DEVIATIONS.md`.
fn check_decode(engine: &str, dialect: Dialect, prefix: &str) {
    let inputs: std::collections::HashMap<String, Vec<u8>> =
        common::decode_inputs().into_iter().collect();
    let results = common::decode_results(engine);
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for r in &results {
        if !(r.name.starts_with("any_") || r.name.starts_with(prefix)) {
            continue;
        }
        let bytes = &inputs[&r.name];
        let opts = opts_for(dialect, r.objects);
        let ours = gdvariant::validate_with(bytes, &opts);
        checked += 1;
        if ours.is_ok() != r.ok {
            eprintln!(
                "{engine} {}: engine accepts: {}, ours: {:?}",
                r.name, r.ok, ours
            );
            mismatches.push(format!(
                "{} {}",
                r.name,
                if r.objects { "objects" } else { "plain" }
            ));
        }
    }
    assert!(checked > 300);
    let allowed = deviations(engine);
    let unexpected: Vec<_> = mismatches
        .iter()
        .filter(|m| !allowed.contains(*m))
        .collect();
    let stale: Vec<_> = allowed.iter().filter(|a| !mismatches.contains(a)).collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{engine}: {} unexpected disagreements of {checked}:\n{}\nlisted in DEVIATIONS.md but agreeing now: {stale:?}",
        unexpected.len(),
        unexpected.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn godot4_decode_corpus_agrees() {
    check_decode("godot4", Dialect::Godot4, "g4_");
}

#[test]
fn godot3_decode_corpus_agrees() {
    check_decode("godot3", Dialect::Godot3, "g3_");
}

/// The `case mode` pairs that `tests/godot/DEVIATIONS.md` lists for an engine.
fn deviations(engine: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/godot/DEVIATIONS.md"
    ))
    .unwrap();
    let want = if engine == "godot4" {
        "Godot 4"
    } else {
        "Godot 3"
    };
    doc.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 4 && cells[2] == want)
                .then(|| format!("{} {}", cells[1].trim_matches('`'), cells[3]))
        })
        .collect()
}
