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
//! Mutants come from `tests/godot/mutants.rs` (deterministic, fixed seed). Two tests per engine:
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
#[path = "../godot/mutants.rs"]
mod mutants;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use gdvariant::{
    Dialect, EncodeOptions, Event, ObjectRef, ReadOptions, Variant, VariantRef, VariantType, Walker,
};
use mutants::{Generator, Golden, Mutant};

const SEED: u64 = 0x6764_7661_7269_616E; // "gdvarian"
const LIVE_MUTANTS: usize = 100_000;
const SAMPLE_MUTANTS: usize = 3_000;
/// Strings of random UTF-8-like sequences added to every live run.
const UTF8_MUTANTS: usize = 20_000;
/// How many disagreements of each check a failure shows in full.
const SHOWN: usize = 12;

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

// ----- the engine's answer -----

/// What the engine said about one mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Rejected,
    /// The engine died on this input.
    Crashed,
    Accepted {
        /// Godot 4: `decode_var_size`. Godot 3: `Some(N)` if the value ended after our N bytes,
        /// `Some(usize::MAX)` if it did not, `None` if we gave no N (we rejected).
        consumed: Option<usize>,
        text: Vec<u8>,
        /// `None`: the re-encoding equals the consumed input bytes.
        bytes: Option<Vec<u8>>,
    },
}

impl Answer {
    /// Parses the fields after the index of a `diff_outputs.tsv` line.
    fn parse(f: &[&str]) -> Answer {
        match f[0] {
            "err" => Answer::Rejected,
            "crash" => Answer::Crashed,
            _ => Answer::Accepted {
                consumed: match f[1] {
                    "-" => None,
                    "?" => Some(usize::MAX),
                    x => Some(x.parse().expect("consumed")),
                },
                text: if f[2].starts_with('"') {
                    unescape(&f[2][1..])
                } else {
                    common::unhex(f[2])
                },
                bytes: (f[3] != "=").then(|| common::unhex(f[3])),
            },
        }
    }

    /// The fields of a sample line: like the engine's, but the text escaped (`"` then the
    /// text with `\\` and `\xNN` escapes), which is half the size of hex.
    fn fields(&self) -> String {
        match self {
            Answer::Rejected => "err\t-\t-\t-".into(),
            Answer::Crashed => "crash\t-\t-\t-".into(),
            Answer::Accepted {
                consumed,
                text,
                bytes,
            } => format!(
                "ok\t{}\t{}\t{}",
                match consumed {
                    None => "-".to_string(),
                    Some(usize::MAX) => "?".to_string(),
                    Some(n) => n.to_string(),
                },
                escape(text),
                bytes.as_ref().map_or("=".to_string(), |b| common::hex(b))
            ),
        }
    }
}

/// `"` and the bytes: printable ASCII as it is (but `\\`), others as `\xNN`.
fn escape(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7E => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s
}

/// The inverse of [`escape`] (after its leading `"`).
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'x') {
                out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).expect("\\xNN"));
                i += 4;
            } else {
                out.push(b'\\');
                i += 2;
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

// ----- our answer -----

/// What gdvariant says about one mutant.
#[derive(Debug)]
struct Ours {
    verdict: Result<usize, gdvariant::Error>,
    text: Option<Result<String, gdvariant::Error>>,
    bytes: Option<Result<Vec<u8>, gdvariant::Error>>,
    /// It holds an object that is not null (an instance id or a full object).
    object: bool,
    /// It holds a full object with a class (whose text is the live object's).
    full_object: bool,
    /// Class names of its full objects and `res://` script paths (object scripts and
    /// script-typed containers), as the engine reads them.
    classes: BTreeSet<String>,
    scripts: BTreeSet<String>,
    /// It holds Godot 3 text with a code point a Rust string cannot hold (an encoded
    /// surrogate or a value above U+10FFFF), which Godot 3 keeps in its UTF-32 strings.
    unrepresentable: bool,
    /// It holds a Godot 4 typed Dictionary read with full objects whose value type is a script
    /// under a key type that is not (see DEV_DICT_VALUE_SCRIPT).
    dict_value_script: bool,
    /// It holds a Godot 3 Dictionary with a key that is not the same key as itself (see
    /// DEV_UNENCODABLE_KEY).
    self_unequal_key: bool,
    /// Our side panicked (a bug by itself).
    panic: Option<String>,
}

fn read_opts(d: Dialect, objects: bool) -> ReadOptions {
    ReadOptions::new()
        .with_dialect(d)
        .with_full_objects(objects)
}

fn ours(d: Dialect, m: &Mutant) -> Ours {
    let run = || {
        let opts = read_opts(d, m.objects);
        let verdict = gdvariant::validate_with(&m.bytes, &opts);
        let mut o = Ours {
            verdict,
            text: None,
            bytes: None,
            object: false,
            full_object: false,
            classes: BTreeSet::new(),
            scripts: BTreeSet::new(),
            dict_value_script: false,
            self_unequal_key: false,
            unrepresentable: false,
            panic: None,
        };
        if o.verdict.is_ok() {
            let v = gdvariant::parse_with(&m.bytes, &opts).expect("parse after validate");
            o.text = Some(gdvariant::text::to_string(&v));
            let enc = EncodeOptions::new()
                .with_dialect(d)
                .with_full_objects(m.objects);
            let owned = v.to_owned();
            if let (Ok(x), Dialect::Godot3) = (&owned, d) {
                o.self_unequal_key = godot3_self_unequal_key(x);
            }
            o.bytes = Some(owned.and_then(|owned| gdvariant::encode_with(&owned, &enc)));
            survey(&v, &mut o);
        }
        o
    };
    match std::panic::catch_unwind(run) {
        Ok(o) => o,
        Err(e) => Ours {
            verdict: Ok(0),
            text: None,
            bytes: None,
            object: false,
            full_object: false,
            classes: BTreeSet::new(),
            scripts: BTreeSet::new(),
            dict_value_script: false,
            self_unequal_key: false,
            unrepresentable: false,
            panic: Some(
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            ),
        },
    }
}

/// Finds the objects, classes and script paths in a valid value.
fn survey(v: &VariantRef<'_>, o: &mut Ours) {
    let lossy = |t: gdvariant::text::Text<'_>| t.to_string_lossy().into_owned();
    let mut w = Walker::from_value(*v);
    let mut script_next = false;
    let g3 = v.dialect() == Dialect::Godot3;
    while let Ok(Some(e)) = w.next_event() {
        let x = match e {
            Event::Property(name) => {
                script_next = name.as_bytes() == b"script";
                o.unrepresentable |= g3 && godot3_unrepresentable(name.as_bytes());
                continue;
            }
            Event::End => continue,
            Event::Begin(x) | Event::Value(x) => x,
        };
        let is_script = std::mem::take(&mut script_next);
        if g3 {
            o.unrepresentable |= texts_of(&x).iter().any(|t| godot3_unrepresentable(t));
        }
        match x.ty() {
            VariantType::Object => match x.as_object() {
                Ok(ObjectRef::Id(id)) => o.object |= id != 0,
                Ok(ObjectRef::Full(f)) => {
                    let class = f.class_name();
                    if !class.is_empty() {
                        o.object = true;
                        o.full_object = true;
                        o.classes.insert(lossy(class));
                    }
                }
                Err(_) => {}
            },
            VariantType::String if is_script => {
                if let Ok(t) = x.as_text() {
                    o.scripts.insert(lossy(t));
                }
            }
            VariantType::Array => {
                if let Ok(gdvariant::array::ContainerType::Script(p)) =
                    x.as_array().and_then(|a| a.element_type())
                {
                    o.scripts.insert(lossy(p));
                }
            }
            VariantType::Dictionary => {
                if let Ok((k, t)) = x.as_dictionary().and_then(|d| d.key_value_types()) {
                    if x.options().full_objects()
                        && matches!(t, gdvariant::array::ContainerType::Script(_))
                        && !matches!(k, gdvariant::array::ContainerType::Script(_))
                    {
                        o.dict_value_script = true;
                    }
                    for c in [k, t] {
                        if let gdvariant::array::ContainerType::Script(p) = c {
                            o.scripts.insert(lossy(p));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether a Dictionary in `v` has a key that Godot 3's key identity does not find equal to
/// itself (a PoolRealArray holding a NaN, or a container holding one).
fn godot3_self_unequal_key(v: &Variant) -> bool {
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        match x {
            Variant::Array(a) => todo.extend(a.items.iter()),
            Variant::Dictionary(d) => {
                for (k, x) in d.entries() {
                    let mut once = gdvariant::Dictionary::new();
                    once.insert_with(Dialect::Godot3, k.clone(), Variant::Nil);
                    once.insert_with(Dialect::Godot3, k.clone(), Variant::Nil);
                    if once.len() == 2 {
                        return true;
                    }
                    todo.push(k);
                    todo.push(x);
                }
            }
            Variant::Object(o) => {
                if let gdvariant::Object::Full { properties, .. } = &**o {
                    todo.extend(properties.iter().map(|(_, x)| x));
                }
            }
            _ => {}
        }
    }
    false
}

/// The texts a value holds itself (a String, the names and subnames of a NodePath, the
/// entries of a PackedStringArray, an object's class name), as raw engine text.
fn texts_of<'a>(x: &VariantRef<'a>) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    match x.ty() {
        VariantType::String | VariantType::StringName => {
            out.extend(x.as_text().ok().map(|t| t.as_bytes()))
        }
        VariantType::NodePath => {
            if let Ok(np) = x.as_node_path() {
                let mut it = np.names();
                while let Ok(Some(t)) = it.try_next() {
                    out.push(t.as_bytes());
                }
                if let Ok(mut it) = np.subnames() {
                    while let Ok(Some(t)) = it.try_next() {
                        out.push(t.as_bytes());
                    }
                }
            }
        }
        VariantType::PackedStringArray => {
            if let Ok(a) = x.as_string_array() {
                let mut it = a.iter();
                while let Ok(Some(t)) = it.try_next() {
                    out.push(t.as_bytes());
                }
            }
        }
        VariantType::Object => {
            if let Ok(ObjectRef::Full(f)) = x.as_object() {
                out.push(f.class_name().as_bytes());
            }
        }
        _ => {}
    }
    out
}

/// Whether Godot 3 text (as `parse_utf8` accepts it) decodes to a code point outside Rust's
/// `char`: an encoded surrogate or a value above U+10FFFF.
fn godot3_unrepresentable(t: &[u8]) -> bool {
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        let (n, mut cp) = match c {
            0x00..=0x7F => (0, u32::from(c)),
            0xC0..=0xDF => (1, u32::from(c & 0x1F)),
            0xE0..=0xEF => (2, u32::from(c & 0x0F)),
            0xF0..=0xF7 => (3, u32::from(c & 0x07)),
            0xF8..=0xFB => (4, u32::from(c & 0x03)),
            _ => (5, u32::from(c & 0x01)),
        };
        for k in 1..=n {
            cp = (cp << 6) | u32::from(t.get(i + k).copied().unwrap_or(0) & 0x3F);
        }
        if char::from_u32(cp).is_none() {
            return true;
        }
        i += 1 + n;
    }
    false
}

// ----- comparison -----

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Check {
    Verdict,
    Consumed,
    Text,
    Bytes,
}

/// The engine facts a comparison needs besides the answer: which classes it can instantiate and
/// which scripts exist in its project.
struct EngineFacts {
    instantiable: BTreeSet<String>,
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
const ALL_DEVIATIONS: [&str; 8] = [
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
struct Report {
    mutants: usize,
    accepted: usize,
    compared: BTreeMap<Check, usize>,
    deviations: BTreeMap<(Check, &'static str), usize>,
    failures: BTreeMap<Check, usize>,
    /// Failures by the operation that made the mutant (its first word after the golden name).
    by_op: BTreeMap<(Check, String), usize>,
    shown: String,
    /// Every disagreement, one TSV line each, when `GDVARIANT_DIFF_REPORT` names a file.
    all: Option<String>,
}

impl Report {
    fn add(
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

    fn assert_clean(&self, name: &str) {
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
