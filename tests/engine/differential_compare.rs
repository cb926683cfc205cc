//! The differential test's comparison: the engine's answer against ours on the four checks,
//! the listed deviations, and the report of disagreements.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use gdvariant::Dialect;

use crate::common;
use crate::differential_answers::{read_opts, Answer, Ours};
use crate::mutants::Mutant;

/// How many disagreements of each check a failure shows in full.
const SHOWN: usize = 12;

// ----- comparison -----

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Check {
    Verdict,
    Consumed,
    Text,
    Bytes,
}

/// The engine facts a comparison needs besides the answer: which classes it can instantiate and
/// which scripts exist in its project.
pub(crate) struct EngineFacts {
    pub(crate) instantiable: BTreeSet<String>,
}

impl EngineFacts {
    fn script_exists(path: &str) -> bool {
        path == "res://thing.gd"
    }
}

/// Deliberate deviations and exceptions, by their id in the "Differential test" table of
/// `tests/godot/DEVIATIONS.md` (which says why each exists; `deviations_are_listed` checks that
/// every id used here is there).
const DEV_UNKNOWN_CLASS: &str = "unknown-class";
const DEV_MISSING_SCRIPT: &str = "missing-script";
const DEV_BYTE_PADDING: &str = "byte-array-padding";
const DEV_UNREPRESENTABLE: &str = "godot3-unrepresentable-text";
const DEV_DICT_VALUE_SCRIPT: &str = "dict-value-script";
/// Not a deviation of gdvariant: Godot 3's `var2bytes` fails (`ERR_BUG`) on a Dictionary whose
/// key cannot find itself, and what it returns then is not an encoding.
const DEV_UNENCODABLE_KEY: &str = "godot3-unencodable-key";
/// Not a deviation of gdvariant: the engine printed the id of an object it made while
/// converting (`str()` of an EncodedObjectAsID inside a PackedStringArray made from an Array).
const LIVE_OBJECT_ID: &str = "live-object-id";
/// The engine's re-encoding does not read back as the value (a String starting with a BOM): ours
/// does (a second BOM before it).
const DEV_LEADING_BOM: &str = "leading-bom";
pub(crate) const ALL_DEVIATIONS: [&str; 8] = [
    DEV_UNKNOWN_CLASS,
    DEV_MISSING_SCRIPT,
    DEV_BYTE_PADDING,
    DEV_UNREPRESENTABLE,
    DEV_DICT_VALUE_SCRIPT,
    DEV_UNENCODABLE_KEY,
    LIVE_OBJECT_ID,
    DEV_LEADING_BOM,
];

/// The text form of the value `bytes` read, if they read.
fn text_of(bytes: &[u8], d: Dialect, objects: bool) -> Option<String> {
    let v = gdvariant::parse_with(bytes, &read_opts(d, objects)).ok()?;
    gdvariant::text::to_string(&v).ok()
}

/// One disagreement.
#[derive(Debug)]
struct Finding {
    check: Check,
    /// `Some(reason)` when it is a listed deviation.
    deviation: Option<&'static str>,
    engine: String,
    ours: String,
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn show_text(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let s: String = s.chars().take(600).collect();
    format!("{s:?}")
}

fn show_bytes(b: &[u8]) -> String {
    let h = common::hex(b);
    if h.len() > 600 {
        format!("{}… ({} bytes)", &h[..600], b.len())
    } else {
        h
    }
}

/// Masks Godot 3 NodePath padding in `b` if it is a valid value; else returns it unchanged.
fn masked(b: &[u8], d: Dialect, objects: bool) -> Vec<u8> {
    let opts = read_opts(d, objects);
    if d == Dialect::Godot3 && gdvariant::validate_with(b, &opts).is_ok() {
        common::mask_node_path_padding(b, &opts)
    } else {
        b.to_vec()
    }
}

fn compare(
    d: Dialect,
    m: &Mutant,
    engine: &Answer,
    ours: &Ours,
    facts: &EngineFacts,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(p) = &ours.panic {
        out.push(Finding {
            check: Check::Verdict,
            deviation: None,
            engine: format!("{engine:?}"),
            ours: format!("PANIC: {p}"),
        });
        return out;
    }
    let (consumed, text, bytes) = match engine {
        Answer::Crashed => {
            out.push(Finding {
                check: Check::Verdict,
                deviation: None,
                engine: "the engine crashed".into(),
                ours: format!("{:?}", ours.verdict),
            });
            return out;
        }
        Answer::Rejected => {
            if let Ok(n) = &ours.verdict {
                let deviation = if ours.classes.iter().any(|c| !facts.instantiable.contains(c)) {
                    Some(DEV_UNKNOWN_CLASS)
                } else if m.objects
                    && d == Dialect::Godot4
                    && ours.scripts.iter().any(|s| !EngineFacts::script_exists(s))
                {
                    Some(DEV_MISSING_SCRIPT)
                } else {
                    None
                };
                out.push(Finding {
                    check: Check::Verdict,
                    deviation,
                    engine: "reject".into(),
                    ours: format!("accept ({n} bytes)"),
                });
            }
            return out;
        }
        Answer::Accepted {
            consumed,
            text,
            bytes,
        } => (consumed, text, bytes),
    };
    let n = match &ours.verdict {
        Err(e) => {
            out.push(Finding {
                check: Check::Verdict,
                deviation: None,
                engine: "accept".into(),
                ours: format!("reject: {e}"),
            });
            return out;
        }
        Ok(n) => *n,
    };
    // Consumed.
    if let Some(c) = *consumed {
        if c != n {
            // A value whose length is not a multiple of 4 ends with a PackedByteArray without
            // its padding (Godot 4 reports the padded length; Godot 3's sentinel is eaten by it).
            let padding = n == m.bytes.len()
                && n % 4 != 0
                && (c == usize::MAX || (c > n && c == n.next_multiple_of(4)));
            out.push(Finding {
                check: Check::Consumed,
                deviation: padding.then_some(DEV_BYTE_PADDING),
                engine: if c == usize::MAX {
                    "the value does not end after our length".into()
                } else {
                    c.to_string()
                },
                ours: n.to_string(),
            });
        }
    }
    // Text.
    if !ours.full_object {
        match ours.text.as_ref().expect("text of a valid value") {
            Ok(t) if t.as_bytes() == text.as_slice() => {}
            r => out.push(Finding {
                check: Check::Text,
                deviation: if ours.dict_value_script {
                    Some(DEV_DICT_VALUE_SCRIPT)
                } else if ours.unrepresentable {
                    Some(DEV_UNREPRESENTABLE)
                } else if ours.object && contains(text, b"<EncodedObjectAsID#") {
                    Some(LIVE_OBJECT_ID)
                } else {
                    None
                },
                engine: show_text(text),
                ours: match r {
                    Ok(t) => show_text(t.as_bytes()),
                    Err(e) => format!("error: {e}"),
                },
            }),
        }
    }
    // Re-encoding.
    if !ours.object {
        let theirs = match bytes {
            Some(b) => b.clone(),
            None => m.bytes[..n.min(m.bytes.len())].to_vec(),
        };
        match ours.bytes.as_ref().expect("bytes of a valid value") {
            Ok(b) if masked(b, d, m.objects) == masked(&theirs, d, m.objects) => {}
            r => out.push(Finding {
                check: Check::Bytes,
                deviation: if ours.dict_value_script {
                    Some(DEV_DICT_VALUE_SCRIPT)
                } else if ours.unrepresentable {
                    Some(DEV_UNREPRESENTABLE)
                } else if ours.self_unequal_key {
                    Some(DEV_UNENCODABLE_KEY)
                } else if matches!(r, Ok(b) if {
                    let value = ours.text.as_ref().and_then(|t| t.as_ref().ok()).cloned();
                    text_of(b, d, m.objects) == value && text_of(&theirs, d, m.objects) != value
                }) {
                    Some(DEV_LEADING_BOM)
                } else {
                    None
                },
                engine: show_bytes(&theirs),
                ours: match r {
                    Ok(b) => show_bytes(b),
                    Err(e) => format!("error: {e}"),
                },
            }),
        }
    }
    out
}

/// Tallies and the first disagreements of each check.
#[derive(Default)]
pub(crate) struct Report {
    pub(crate) mutants: usize,
    pub(crate) accepted: usize,
    pub(crate) compared: BTreeMap<Check, usize>,
    pub(crate) deviations: BTreeMap<(Check, &'static str), usize>,
    pub(crate) failures: BTreeMap<Check, usize>,
    /// Failures by the operation that made the mutant (its first word after the golden name).
    pub(crate) by_op: BTreeMap<(Check, String), usize>,
    pub(crate) shown: String,
    /// Every disagreement, one TSV line each, when `GDVARIANT_DIFF_REPORT` names a file.
    pub(crate) all: Option<String>,
}

impl Report {
    pub(crate) fn add(
        &mut self,
        d: Dialect,
        idx: usize,
        m: &Mutant,
        engine: &Answer,
        ours: &Ours,
        facts: &EngineFacts,
    ) {
        self.mutants += 1;
        if let Answer::Accepted { .. } = engine {
            self.accepted += 1;
        }
        *self.compared.entry(Check::Verdict).or_default() += 1;
        if matches!(
            engine,
            Answer::Accepted {
                consumed: Some(_),
                ..
            }
        ) && ours.verdict.is_ok()
        {
            *self.compared.entry(Check::Consumed).or_default() += 1;
        }
        if matches!(engine, Answer::Accepted { .. }) && ours.verdict.is_ok() {
            if !ours.full_object {
                *self.compared.entry(Check::Text).or_default() += 1;
            }
            if !ours.object {
                *self.compared.entry(Check::Bytes).or_default() += 1;
            }
        }
        for f in compare(d, m, engine, ours, facts) {
            if let Some(dev) = f.deviation {
                *self.deviations.entry((f.check, dev)).or_default() += 1;
                continue;
            }
            let count = self.failures.entry(f.check).or_default();
            *count += 1;
            *self.by_op.entry((f.check, m.kind.clone())).or_default() += 1;
            if let Some(all) = &mut self.all {
                let _ = writeln!(
                    all,
                    "{idx}\t{:?}\t{}\t{}\t{}\t{}\t{}\t{}",
                    f.check,
                    m.kind,
                    m.what,
                    if m.objects { "objects" } else { "plain" },
                    common::hex(&m.bytes),
                    f.engine,
                    f.ours
                );
            }
            if *count <= SHOWN {
                let _ = write!(
                    self.shown,
                    "\n[{:?}] mutant #{idx} ({}; {})\n  input  {}\n  engine {}\n  ours   {}\n",
                    f.check,
                    m.what,
                    if m.objects { "objects" } else { "plain" },
                    show_bytes(&m.bytes),
                    f.engine,
                    f.ours
                );
            }
        }
    }

    fn summary(&self, name: &str) -> String {
        let mut s = format!(
            "{name}: {} mutants, {} accepted by the engine\n",
            self.mutants, self.accepted
        );
        for (check, n) in &self.compared {
            let _ = writeln!(
                s,
                "  {check:?}: {n} compared, {} disagree",
                self.failures.get(check).copied().unwrap_or(0)
            );
        }
        for ((check, dev), n) in &self.deviations {
            let _ = writeln!(s, "  listed deviation ({check:?}): {n} × {dev}");
        }
        if !self.by_op.is_empty() {
            let _ = writeln!(s, "  disagreements by operation:");
            for ((check, op), n) in &self.by_op {
                let _ = writeln!(s, "    {check:?} {op}: {n}");
            }
        }
        s
    }

    pub(crate) fn assert_clean(&self, name: &str) {
        let summary = self.summary(name);
        if let (Some(all), Ok(path)) = (&self.all, std::env::var("GDVARIANT_DIFF_REPORT")) {
            std::fs::write(&path, all).expect("write the report");
            eprintln!("every disagreement written to {path}");
        }
        eprintln!("{summary}");
        assert!(
            self.failures.is_empty(),
            "{summary}\nfirst disagreements:{}",
            self.shown
        );
    }
}
