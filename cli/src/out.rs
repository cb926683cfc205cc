//! The output of one multiplayer packet (`multiplayer decode`, `capture`): engine text or one
//! JSON object's fields, appended to a `String` without allocating per field or value.

use std::borrow::Cow;
use std::fmt::Write as _;

use gdvariant::{Error, VariantType};
use gdvariant_multiplayer::{Value, ValueRef};

/// The most lists open at once: a relay's inner SYNC or DELTA (entries, then values); a SYS
/// packet cannot be relayed, so nothing nests deeper.
const MAX_LISTS: usize = 4;

/// An open list's label (text).
#[derive(Clone, Copy)]
struct Label {
    /// What each value says it is (`arg`).
    name: &'static str,
    /// ` | arg ` for the one-line output; empty for a label without one.
    inline: &'static str,
    /// How many values it has shown.
    shown: usize,
}

/// The output of one packet: text (a head line, indented values) or one JSON object's fields.
pub(crate) struct Out<'s> {
    s: &'s mut String,
    json: bool,
    /// Text: the indentation of nested lines.
    depth: usize,
    /// JSON: bit `i` says that level `i` (0: the packet's object) has no field yet.
    first: u64,
    /// JSON: the open level (objects and lists inside the packet's).
    level: u32,
    /// Text: the open lists' labels and how many values each has shown (`lists` of them).
    labels: [Label; MAX_LISTS],
    lists: usize,
    /// Text on one line: fields and values separated by ` | `, values' own line breaks as
    /// spaces (`gdvariant capture`).
    inline: bool,
}

impl<'s> Out<'s> {
    pub(crate) fn new(s: &'s mut String, json: bool) -> Out<'s> {
        Out {
            s,
            json,
            depth: 1,
            first: 1,
            level: 0,
            labels: [Label {
                name: "",
                inline: "",
                shown: 0,
            }; MAX_LISTS],
            lists: 0,
            inline: false,
        }
    }

    /// The same output on one line (text).
    pub(crate) fn inline(mut self) -> Out<'s> {
        self.inline = true;
        self
    }

    /// Starts a nested line indented by `pad`.
    fn br(&mut self, pad: usize) {
        if self.inline {
            self.s.push_str(" | ");
        } else {
            self.s.push('\n');
            self.s.extend(std::iter::repeat(' ').take(pad));
        }
    }

    /// What a line break inside a value's text becomes.
    fn fold(&self, pad: usize) -> String {
        if self.inline {
            " ".to_string()
        } else {
            format!("\n{:pad$}", "")
        }
    }

    fn sep(&mut self) {
        let bit = 1u64 << self.level;
        if self.first & bit == 0 {
            self.s.push(',');
        }
        self.first &= !bit;
    }

    /// JSON: opens a level (an object or a list).
    fn push_level(&mut self) {
        self.level = (self.level + 1).min(63);
        self.first |= 1 << self.level;
    }

    fn pop_level(&mut self) {
        self.level = self.level.saturating_sub(1);
    }

    fn key(&mut self, k: &str) {
        self.sep();
        push_jstr(self.s, k);
        self.s.push(':');
    }

    pub(crate) fn cmd(&mut self, name: &str) {
        if self.json {
            self.key("command");
            push_jstr(self.s, name);
        } else {
            self.s.push_str(name);
        }
    }

    pub(crate) fn field_raw(&mut self, k: &str, text: &str, json: &str) {
        if self.json {
            self.key(k);
            self.s.push_str(json);
        } else {
            self.text_key(k);
            self.s.push_str(text);
        }
    }

    /// The field's key: JSON, or text's ` key ` with `_` as spaces.
    fn field_key(&mut self, k: &str) {
        if self.json {
            self.key(k);
        } else {
            self.text_key(k);
        }
    }

    /// ` key ` with `_` as spaces.
    fn text_key(&mut self, k: &str) {
        self.s.push(' ');
        // A byte loop: keys are a few letters, too short for `memchr`.
        if k.bytes().any(|b| b == b'_') {
            self.s
                .extend(k.chars().map(|c| if c == '_' { ' ' } else { c }));
        } else {
            self.s.push_str(k);
        }
        self.s.push(' ');
    }

    pub(crate) fn field_num(&mut self, k: &str, n: impl itoa::Integer) {
        self.field_key(k);
        self.s.push_str(itoa::Buffer::new().format(n));
    }

    pub(crate) fn field_bool(&mut self, k: &str, b: bool) {
        let t = if b { "true" } else { "false" };
        self.field_raw(k, t, t);
    }

    pub(crate) fn field_str(&mut self, k: &str, v: &str) {
        self.field_key(k);
        push_jstr(self.s, v);
    }

    pub(crate) fn field_bytes(&mut self, k: &str, b: &[u8]) {
        self.field_key(k);
        if self.json {
            push_bytes_json(self.s, b);
        } else {
            push_bytes_text(self.s, b);
        }
    }

    pub(crate) fn field_list(&mut self, k: &str, items: impl Iterator<Item = u32>) {
        let items: Vec<String> = items.map(|i| i.to_string()).collect();
        let t = format!("[{}]", items.join(", "));
        let j = format!("[{}]", items.join(","));
        self.field_raw(k, &t, &j);
    }

    pub(crate) fn flags(&mut self, flags: &[Option<Cow<'_, str>>]) {
        let mut flags = flags.iter().flatten();
        if self.json {
            self.key("flags");
            self.s.push('[');
            for (i, f) in flags.enumerate() {
                if i > 0 {
                    self.s.push(',');
                }
                push_jstr(self.s, f);
            }
            self.s.push(']');
        } else if let Some(f) = flags.next() {
            self.s.push_str(" (");
            self.s.push_str(f);
            for f in flags {
                self.s.push_str(", ");
                self.s.push_str(f);
            }
            self.s.push(')');
        }
    }

    pub(crate) fn list_open(&mut self, k: &'static str) {
        if self.json {
            self.key(k);
            self.s.push('[');
            self.push_level();
        } else {
            // Each value or entry says what it is on its own line.
            let (name, inline) = match k {
                "args" => ("arg", " | arg "),
                "entries" => ("entry", " | entry "),
                "values" => ("value", " | value "),
                "state" => ("state", " | state "),
                k => (k, ""),
            };
            if let Some(l) = self.labels.get_mut(self.lists) {
                *l = Label {
                    name,
                    inline,
                    shown: 0,
                };
            }
            self.lists += 1;
        }
    }

    pub(crate) fn list_close(&mut self) {
        if self.json {
            self.s.push(']');
            self.pop_level();
        } else {
            self.lists = self.lists.saturating_sub(1);
        }
    }

    /// The innermost open list's label and count.
    fn label(&mut self) -> Option<&mut Label> {
        let i = self.lists.checked_sub(1)?;
        self.labels.get_mut(i)
    }

    pub(crate) fn item_open(&mut self) {
        if self.json {
            self.sep();
            self.s.push('{');
            self.push_level();
        } else {
            let label = self.label().map_or("", |l| l.name);
            self.br(2 * self.depth);
            self.s.push_str(label);
            self.depth += 1;
        }
    }

    pub(crate) fn item_close(&mut self) {
        if self.json {
            self.s.push('}');
            self.pop_level();
        } else {
            self.depth -= 1;
        }
    }

    pub(crate) fn nested_open(&mut self, k: &str) {
        if self.json {
            self.key(k);
            self.s.push('{');
            self.push_level();
        } else {
            self.depth += 1;
            self.br(2 * (self.depth - 1));
        }
    }

    pub(crate) fn nested_close(&mut self) {
        if self.json {
            self.s.push('}');
            self.pop_level();
        } else {
            self.depth -= 1;
        }
    }

    pub(crate) fn value(&mut self, name: Option<&str>, v: &ValueRef<'_>) -> Result<(), Error> {
        if self.json {
            self.sep();
            let json = value_json(v)?;
            match name {
                Some(n) => {
                    self.s.push_str("{\"name\":");
                    push_jstr(self.s, n);
                    self.s.push_str(",\"value\":");
                    self.s.push_str(&json);
                    self.s.push('}');
                }
                None => self.s.push_str(&json),
            }
        } else if self.inline {
            // One line, written in place (`gdvariant capture` shows every value of a capture).
            let i = match self.label() {
                Some(l) => {
                    let (name, inline, i) = (l.name, l.inline, l.shown);
                    l.shown += 1;
                    if inline.is_empty() {
                        self.s.push_str(" | ");
                        self.s.push_str(name);
                        self.s.push(' ');
                    } else {
                        // ` | arg ` in one copy.
                        self.s.push_str(inline);
                    }
                    i
                }
                None => {
                    self.s.push_str(" |  ");
                    0
                }
            };
            match name {
                Some(n) => self.s.push_str(n),
                // A digit as a char: no copy call for one byte (most calls have a few arguments).
                None if i < 10 => self.s.push(char::from(b'0' + i as u8)),
                None => self.s.push_str(itoa::Buffer::new().format(i)),
            }
            // Chars, not a 2-byte copy call.
            self.s.push(':');
            self.s.push(' ');
            let start = self.s.len();
            // As `ValueRef`'s `Display`, without its formatting machinery.
            let mut lines = false;
            match v.value() {
                Value::Variant(x) => {
                    let _ = gdvariant::text::to_fmt(&x, &mut *self.s)?;
                    // Only these print line breaks (other texts escape them or have none).
                    lines = matches!(
                        x.ty(),
                        VariantType::String
                            | VariantType::Object
                            | VariantType::Array
                            | VariantType::Dictionary
                    );
                }
                Value::Int(i) => self.s.push_str(itoa::Buffer::new().format(i)),
                Value::Bool(b) => self.s.push_str(if b { "true" } else { "false" }),
                Value::Bytes(b) => push_bytes_text(self.s, b),
            }
            if lines && self.s[start..].contains('\n') {
                let tail = self.s.split_off(start);
                self.s.push_str(&tail.replace('\n', " "));
            }
        } else {
            let text = value_text(v)?;
            let pad = 2 * self.depth;
            let text = text.replace('\n', &self.fold(pad));
            let (label, i) = match self.label() {
                Some(l) => {
                    l.shown += 1;
                    (l.name, l.shown - 1)
                }
                None => ("", 0),
            };
            self.br(pad);
            match name {
                Some(n) => {
                    let _ = write!(self.s, "{label} {n}: {text}");
                }
                None => {
                    let _ = write!(self.s, "{label} {i}: {text}");
                }
            }
        }
        Ok(())
    }

    /// One value as a field of its own (a custom spawn's argument, a set's value).
    pub(crate) fn single(&mut self, k: &str, v: &ValueRef<'_>) -> Result<(), Error> {
        if self.json {
            self.key(k);
            let json = value_json(v)?;
            self.s.push_str(&json);
        } else {
            let text = value_text(v)?;
            let pad = 2 * self.depth;
            let text = text.replace('\n', &self.fold(pad));
            self.br(pad);
            let _ = write!(self.s, "{}: {text}", k.replace('_', " "));
        }
        Ok(())
    }

    /// Ends the packet's text with a newline (JSON objects are closed by the caller).
    pub(crate) fn end(&mut self) {
        if !self.json && self.depth == 1 {
            self.s.push('\n');
        }
    }
}

fn value_text(v: &ValueRef<'_>) -> Result<String, Error> {
    Ok(match v.value() {
        Value::Variant(x) => gdvariant::text::to_string(&x)?,
        _ => v.to_string(),
    })
}

fn value_json(v: &ValueRef<'_>) -> Result<String, Error> {
    Ok(match v.value() {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Bytes(b) => {
            let mut s = String::new();
            push_bytes_json(&mut s, b);
            s
        }
        Value::Variant(x) => gdvariant::json::to_string(&x)?,
    })
}

/// Appends `PackedByteArray(1, 2, 3)`.
fn push_bytes_text(s: &mut String, b: &[u8]) {
    s.push_str("PackedByteArray(");
    push_byte_list(s, b, ", ");
    s.push(')');
}

/// Appends `{"$PackedByteArray":[1,2,3]}`.
fn push_bytes_json(s: &mut String, b: &[u8]) {
    s.push_str("{\"$PackedByteArray\":[");
    push_byte_list(s, b, ",");
    s.push_str("]}");
}

fn push_byte_list(s: &mut String, b: &[u8], sep: &str) {
    s.reserve(b.len() * (sep.len() + 3));
    let mut n = itoa::Buffer::new();
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(n.format(*x));
    }
}

/// A JSON string literal.
pub(crate) fn jstr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_jstr(&mut out, s);
    out
}

/// Appends `s` as a JSON string literal.
pub(crate) fn push_jstr(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s;
    // Bytes, not chars: what is escaped is ASCII.
    while let Some(i) = rest
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < b' ')
    {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{:04x}", c);
            }
        }
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out.push('"');
}
