//! The differential test's two answers about one mutant: the engine's (as its script prints
//! it) and gdvariant's (verdict, length, text, re-encoded bytes, and what the value holds).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use gdvariant::{
    Dialect, EncodeOptions, Event, ObjectRef, ReadOptions, Variant, VariantRef, VariantType, Walker,
};

use crate::common;
use crate::mutants::Mutant;

// ----- the engine's answer -----

/// What the engine said about one mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
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
    pub(crate) fn parse(f: &[&str]) -> Answer {
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
    pub(crate) fn fields(&self) -> String {
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
pub(crate) struct Ours {
    pub(crate) verdict: Result<usize, gdvariant::Error>,
    pub(crate) text: Option<Result<String, gdvariant::Error>>,
    pub(crate) bytes: Option<Result<Vec<u8>, gdvariant::Error>>,
    /// It holds an object that is not null (an instance id or a full object).
    pub(crate) object: bool,
    /// It holds a full object with a class (whose text is the live object's).
    pub(crate) full_object: bool,
    /// Class names of its full objects and `res://` script paths (object scripts and
    /// script-typed containers), as the engine reads them.
    pub(crate) classes: BTreeSet<String>,
    pub(crate) scripts: BTreeSet<String>,
    /// It holds Godot 3 text with a code point a Rust string cannot hold (an encoded
    /// surrogate or a value above U+10FFFF), which Godot 3 keeps in its UTF-32 strings.
    pub(crate) unrepresentable: bool,
    /// It holds a Godot 4 typed Dictionary read with full objects whose value type is a script
    /// under a key type that is not (see DEV_DICT_VALUE_SCRIPT).
    pub(crate) dict_value_script: bool,
    /// It holds a Godot 3 Dictionary with a key that is not the same key as itself (see
    /// DEV_UNENCODABLE_KEY).
    pub(crate) self_unequal_key: bool,
    /// Our side panicked (a bug by itself).
    pub(crate) panic: Option<String>,
}

pub(crate) fn read_opts(d: Dialect, objects: bool) -> ReadOptions {
    ReadOptions::new()
        .with_dialect(d)
        .with_full_objects(objects)
}

pub(crate) fn ours(d: Dialect, m: &Mutant) -> Ours {
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
