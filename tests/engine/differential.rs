//! Differential test against the real engines: mutants of engine-written values, decoded by the
//! engine and by gdvariant, must give the same answer on four checks:
//!
//! 1. **verdict**: the engine accepts (`decode_var_size(b) > 0`; Godot 3: `bytes2var` does not
//!    abort) exactly when `validate` does;
//! 2. **consumed**: the engine's `decode_var_size` equals `validate`'s length (Godot 3 has no
//!    such API: it decodes `[first N bytes, sentinel]` as an Array and the sentinel must come
//!    out as the second element, N being our length);
//! 3. **text**: `var_to_str(bytes_to_var(b))` (`var2str`) equals our `text::to_string`;
//! 4. **bytes**: `var_to_bytes(bytes_to_var(b))` equals our `encode(to_owned(b))`: the value
//!    read is the same value (Godot 3 NodePath padding masked).
//!
//! Values holding objects are excepted from checks 3 and 4 where the engine's answer depends on
//! its live objects (a full object prints the live object's properties; a decoded object gets a
//! new instance id). Deliberate deviations are classified and counted, never silently skipped:
//! see `tests/godot/DEVIATIONS.md`.
//!
//! Mutants come from `tests/godot/mutants.rs` (deterministic, fixed seed); the two answers are
//! made in `differential_answers` and compared in `differential_compare`. Two tests per engine:
//!
//! - `godotN_sample`: no engine needed. `tests/data/godotN/differential.tsv` holds the engine's
//!   answers for the first mutants of the seeded stream (written by a live run with
//!   `GDVARIANT_DIFF_WRITE_SAMPLE=1`); they are compared with ours.
//! - `godotN_live`: runs the engine once on `GDVARIANT_DIFF_MUTANTS` mutants (default 100 000),
//!   and 20 000 Strings of random UTF-8-like sequences (`mutants::utf8_strings`: the engines'
//!   UTF-8 rules, which mutants of golden values seldom reach), when it is installed (required when `GDVARIANT_LIVE_GODOTN=1`, as `.ci/run` sets).
//!
//! A failure lists, per check, how many mutants disagree and the first of them: which golden
//! value and operations made it, its bytes, the engine's answer and ours.
//! `GDVARIANT_DIFF_REPORT=path` writes every disagreement (listed deviations aside), one TSV
//! line each: index, check, operation kind, what was done, mode, input hex, engine, ours;
//! `GDVARIANT_DIFF_KEEP=1` keeps the engine's scratch directory.

use crate::common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::differential_answers::{ours, read_opts, Answer, Ours};
use crate::differential_compare::{EngineFacts, Report, ALL_DEVIATIONS};
use crate::mutants::{self, Generator, Golden, Mutant};
use gdvariant::{Dialect, EncodeOptions, Variant};

const SEED: u64 = 0x6764_7661_7269_616E; // "gdvarian"
const LIVE_MUTANTS: usize = 100_000;
const SAMPLE_MUTANTS: usize = 3_000;
/// Strings of random UTF-8-like sequences added to every live run.
const UTF8_MUTANTS: usize = 20_000;

fn dialect_of(n: u32) -> Dialect {
    if n == 4 {
        Dialect::Godot4
    } else {
        Dialect::Godot3
    }
}

fn generator(n: u32) -> Generator {
    let (_, cases) = common::encode_cases(&format!("godot{n}"));
    let golden = cases
        .into_iter()
        .map(|c| Golden {
            name: c.name,
            objects: c.objects,
            bytes: c.bytes,
        })
        .collect();
    Generator::new(dialect_of(n), golden, SEED ^ u64::from(n))
}

/// FNV-1a, 64 bits: the sample's fingerprint of each mutant's bytes.
fn fnv(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `DictionaryRef::get` finds the value the engine keeps (`to_owned`'s, which the bytes check
/// holds to the engine's) for every key the engine keeps, in the dictionaries of 20 000 mutants
/// per dialect (no engine needed): repeated keys, typed dictionaries' converted keys, Godot 3
/// text.
#[test]
fn lookups_find_what_the_engine_keeps() {
    let mut checked = 0;
    for n in [4, 3] {
        let d = dialect_of(n);
        let mut g = generator(n);
        for _ in 0..20_000 {
            let m = g.next();
            let opts = read_opts(d, m.objects);
            let Ok(v) = gdvariant::parse_with(&m.bytes, &opts) else {
                continue;
            };
            if gdvariant::validate_with(&m.bytes, &opts).is_err() {
                continue;
            }
            let (Ok(dict), Ok(Variant::Dictionary(owned))) = (v.as_dictionary(), v.to_owned())
            else {
                continue;
            };
            let enc = EncodeOptions::new()
                .with_dialect(d)
                .with_full_objects(m.objects);
            for (k, x) in owned.entries() {
                // A non-null object is equal to no key (even itself, after re-encoding); a null
                // one is encoded as Nil, which is another key.
                if holds_object(k) {
                    continue;
                }
                // A key that is not the same key as itself (an array holding a NaN in Godot 4)
                // is not found by the engine either.
                let mut twice = gdvariant::Dictionary::new();
                twice.insert_with(d, k.clone(), Variant::Nil);
                twice.insert_with(d, k.clone(), Variant::Nil);
                if twice.len() == 2 {
                    continue;
                }
                let kb = gdvariant::encode_with(k, &enc).unwrap();
                let kref = gdvariant::parse_with(&kb, &opts).unwrap();
                let found = dict.get(kref).unwrap_or_else(|e| panic!("{}: {e}", m.what));
                let found = found.map(|f| f.to_owned().unwrap());
                assert_eq!(found.as_ref(), Some(x), "{}: key {k:?}", m.what);
                if let Variant::String(s) = k {
                    let by_str = dict.get(s.as_str()).unwrap().map(|f| f.to_owned().unwrap());
                    assert_eq!(by_str.as_ref(), Some(x), "{}: key {s:?}", m.what);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

fn holds_object(v: &Variant) -> bool {
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        match x {
            Variant::Object(_) | Variant::Signal(_) => return true,
            Variant::Array(a) => todo.extend(a.items.iter()),
            Variant::Dictionary(d) => {
                for (k, x) in d.entries() {
                    todo.push(k);
                    todo.push(x);
                }
            }
            _ => {}
        }
    }
    false
}

#[test]
fn deviations_are_listed() {
    let doc = std::fs::read_to_string(common::godot_dir().join("DEVIATIONS.md")).unwrap();
    let section = doc
        .split("## Differential test")
        .nth(1)
        .expect("a \"Differential test\" section in DEVIATIONS.md");
    let listed: BTreeSet<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let used: BTreeSet<&str> = ALL_DEVIATIONS.into_iter().collect();
    assert_eq!(
        listed, used,
        "DEVIATIONS.md's differential ids vs tests/engine/differential.rs"
    );
}

// ----- the offline sample -----

fn sample_path(n: u32) -> PathBuf {
    common::data_dir()
        .join(format!("godot{n}"))
        .join("differential.tsv")
}

/// Writes the engine's answers for the first mutants as the committed sample.
fn write_sample(
    n: u32,
    version: &str,
    mutants: &[Mutant],
    answers: &[Answer],
    facts: &EngineFacts,
    ours: &[Ours],
) {
    let count = SAMPLE_MUTANTS.min(mutants.len());
    // Only the instantiable classes the sample's mutants name.
    let named: BTreeSet<&String> = ours[..count]
        .iter()
        .flat_map(|o| o.classes.iter())
        .collect();
    let classes: Vec<&str> = named
        .into_iter()
        .filter(|c| facts.instantiable.contains(*c))
        .map(|c| c.as_str())
        .collect();
    let mut s = format!(
        "# engine\t{version}\n# seed\t{SEED:#x}\tmutants\t{count}\n# instantiable\t{}\n",
        classes.join(",")
    );
    for (i, (m, a)) in mutants.iter().zip(answers).take(count).enumerate() {
        let _ = writeln!(s, "{i}\t{:016x}\t{}", fnv(&m.bytes), a.fields());
    }
    std::fs::write(sample_path(n), s).expect("write sample");
}

fn check_sample(n: u32) {
    let d = dialect_of(n);
    let content = std::fs::read_to_string(sample_path(n)).expect("differential.tsv");
    let mut count = 0;
    let mut instantiable = BTreeSet::new();
    let mut answers = Vec::new();
    for line in content.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "# seed" => {
                assert_eq!(
                    f[1],
                    format!("{SEED:#x}"),
                    "sample written with another seed"
                );
                count = f[3].parse().unwrap();
            }
            "# instantiable" => {
                instantiable = f[1]
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect();
            }
            x if x.starts_with('#') => {}
            _ => answers.push((
                u64::from_str_radix(f[1], 16).unwrap(),
                Answer::parse(&f[2..]),
            )),
        }
    }
    assert_eq!(answers.len(), count);
    assert!(count >= 1000, "sample of {count} mutants");
    let facts = EngineFacts { instantiable };
    let mut gen = generator(n);
    let mut report = Report::default();
    for (idx, (hash, answer)) in answers.iter().enumerate() {
        let m = gen.next();
        assert_eq!(
            fnv(&m.bytes),
            *hash,
            "mutant #{idx} ({}) is not the one the sample was written for: the generator changed; \
             rewrite the sample with GDVARIANT_DIFF_WRITE_SAMPLE=1 cargo test --all-features --test engine differential::",
            m.what
        );
        let o = ours(d, &m);
        report.add(d, idx, &m, answer, &o, &facts);
    }
    report.assert_clean(&format!(
        "Godot {n} sample (tests/data/godot{n}/differential.tsv)"
    ));
}

#[test]
fn godot4_sample() {
    check_sample(4);
}

#[test]
fn godot3_sample() {
    check_sample(3);
}

// ----- the live run -----

/// Runs engine `n` over every mutant (one process; resumed after a crash, which is recorded).
fn run_engine(n: u32, mutants: &[Mutant], ours: &[Ours]) -> (Vec<Answer>, BTreeSet<String>) {
    let dir = common::scratch_dir(&format!("diff{n}"));
    let mut input = Vec::new();
    for (m, o) in mutants.iter().zip(ours) {
        let n_ours = o.verdict.as_ref().map_or(0, |n| *n as u32);
        input.extend_from_slice(&u32::from(m.objects).to_le_bytes());
        input.extend_from_slice(&n_ours.to_le_bytes());
        input.extend_from_slice(&(m.bytes.len() as u32).to_le_bytes());
        input.extend_from_slice(&m.bytes);
    }
    std::fs::write(dir.join("diff_inputs.bin"), input).unwrap();
    let script = format!("diff{n}.gd");
    std::fs::copy(common::godot_dir().join(&script), dir.join(&script)).unwrap();
    let outputs = dir.join("diff_outputs.tsv");
    let mut answers: Vec<Answer> = Vec::new();
    let mut careful_from = usize::MAX;
    loop {
        let start = answers.len();
        // After a crash, the next records are flushed one by one to pin the crashing one.
        let careful = if careful_from == start {
            start + 256
        } else {
            0
        };
        std::fs::write(dir.join("diff_start.txt"), format!("{start} {careful}")).unwrap();
        let log = std::fs::File::create(dir.join("engine.log")).unwrap();
        let status = Command::new("timeout")
            .arg("1800")
            .arg(common::godot_exe(n))
            .arg(&dir)
            .arg(&script)
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .status()
            .expect("run the engine");
        let log = std::fs::read_to_string(dir.join("engine.log")).unwrap_or_default();
        // Keep the complete lines only.
        let text = std::fs::read_to_string(&outputs).unwrap_or_default();
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        std::fs::write(&outputs, &text[..complete]).unwrap();
        answers.clear();
        for line in text[..complete].lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(
                f[0].parse::<usize>().unwrap(),
                answers.len(),
                "engine output out of order"
            );
            answers.push(Answer::parse(&f[1..]));
        }
        if log.contains("DIFF-DONE") {
            break;
        }
        assert!(
            answers.len() < mutants.len(),
            "Godot {n} stopped ({status}) without finishing:\n{}",
            &log[log.len().saturating_sub(3000)..]
        );
        if careful_from == start && answers.len() < start + 256 {
            // Pinned: the engine died on this record.
            eprintln!(
                "Godot {n} died ({status}) on mutant #{} ({}): recorded as a crash",
                answers.len(),
                mutants[answers.len()].what
            );
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&outputs)
                .unwrap();
            use std::io::Write;
            writeln!(f, "{}\tcrash\t-\t-\t-", answers.len()).unwrap();
            answers.push(Answer::Crashed);
            careful_from = usize::MAX;
        } else {
            careful_from = answers.len();
        }
    }
    let classes = std::fs::read_to_string(dir.join("classes.txt"))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect();
    if std::env::var("GDVARIANT_DIFF_KEEP").is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("scratch kept in {}", dir.display());
    }
    (answers, classes)
}

fn live(n: u32) {
    let Some(version) = common::engine_version(n, "the live differential test") else {
        return;
    };
    let d = dialect_of(n);
    let count: usize = std::env::var("GDVARIANT_DIFF_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(LIVE_MUTANTS);
    let t0 = std::time::Instant::now();
    let mut gen = generator(n);
    let mut mutants: Vec<Mutant> = (0..count).map(|_| gen.next()).collect();
    // After them (the recorded sample is the first mutants): Strings of random UTF-8-like
    // sequences, for the engines' UTF-8 rules.
    mutants.extend(mutants::utf8_strings(d, SEED ^ 0x7574_6638, UTF8_MUTANTS));
    let ours: Vec<Ours> = mutants.iter().map(|m| ours(d, m)).collect();
    let t1 = std::time::Instant::now();
    let (answers, instantiable) = run_engine(n, &mutants, &ours);
    let t2 = std::time::Instant::now();
    assert_eq!(answers.len(), mutants.len());
    let facts = EngineFacts { instantiable };
    if std::env::var("GDVARIANT_DIFF_WRITE_SAMPLE").is_ok_and(|v| v == "1") {
        write_sample(n, &version, &mutants, &answers, &facts, &ours);
    }
    let mut report = Report {
        all: std::env::var("GDVARIANT_DIFF_REPORT")
            .is_ok()
            .then(String::new),
        ..Report::default()
    };
    for (idx, ((m, a), o)) in mutants.iter().zip(&answers).zip(&ours).enumerate() {
        report.add(d, idx, m, a, o, &facts);
    }
    eprintln!(
        "Godot {n} differential: gdvariant {:.1} s, engine {:.1} s",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64()
    );
    report.assert_clean(&format!("Godot {n} live ({version}, seed {SEED:#x})"));
}

#[test]
fn godot4_live() {
    live(4);
}

#[test]
fn godot3_live() {
    live(3);
}
