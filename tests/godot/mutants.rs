//! The deterministic mutant generator of the differential test (`tests/engine/differential.rs`).
//!
//! Every mutant starts from a golden value the engine itself wrote (`tests/data/godotN/encode.tsv`)
//! and applies one operation, sometimes followed by one or two byte-level ones:
//!
//! - byte level (any input): bit flips, byte and aligned word substitutions with interesting
//!   values, word insertions and deletions, truncations, trailing bytes;
//! - structural (on the value's own layout, found with the [`Walker`]): header type ids and flag
//!   bits, string / packed / container lengths and counts, typed-container type info (type id
//!   changes, typing an untyped container, untyping a typed one, class and script kinds), splices
//!   of another golden (sub-)value in place of a sub-value, a dictionary key copied over another
//!   key, a key replaced by another encoding of a possibly-equal key;
//! - synthetic wrappers: typed Arrays and Dictionaries of every declared type holding golden
//!   values of every type (the engine's conversion rule for typed containers), and dictionaries
//!   of keys that are equal or nearly equal in the engine's eyes (its duplicate-key rule).
//!
//! The same seed gives the same mutants on every machine: the generator uses its own
//! xorshift64* and no hashing with random state.

use gdvariant::{Dialect, Event, ReadOptions, VariantType, Walker};

/// A golden value: its name, whether it was written with full objects, its bytes.
#[derive(Clone, Debug)]
pub struct Golden {
    pub name: String,
    pub objects: bool,
    pub bytes: Vec<u8>,
}

/// One mutant: its bytes, the decode mode and what was done.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub objects: bool,
    pub bytes: Vec<u8>,
    /// The golden value it started from and the operations, e.g. `float_one: flip@5.3`.
    pub what: String,
    /// The kind of its main operation (`flip`, `splice`, `Array[T]`, ...), for tallies.
    pub kind: String,
}

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Where a value sits in its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Top,
    Element,
    Key,
    Value,
    Property,
}

/// One value inside a golden value.
#[derive(Clone, Debug)]
struct Span {
    off: usize,
    len: usize,
    ty: VariantType,
    /// Array, Dictionary or full Object with a body: where its count word is.
    count_off: Option<usize>,
    /// Its role in its parent, and the parent's span index.
    role: Role,
    parent: Option<usize>,
}

/// The spans of every value in `bytes` (a valid value), in byte order.
fn spans(bytes: &[u8], opts: &ReadOptions) -> Vec<Span> {
    struct Open {
        span: usize,
        is_dict: bool,
        is_object: bool,
        children: usize,
    }
    let mut out: Vec<Span> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut w = Walker::new(bytes, opts);
    while let Ok(Some(ev)) = w.next_event() {
        let (role, parent) = match open.last_mut() {
            None => (Role::Top, None),
            Some(o) => {
                let role = if o.is_object {
                    Role::Property
                } else if o.is_dict {
                    if o.children % 2 == 0 {
                        Role::Key
                    } else {
                        Role::Value
                    }
                } else {
                    Role::Element
                };
                (role, Some(o.span))
            }
        };
        match ev {
            Event::Begin(c) => {
                if let Some(o) = open.last_mut() {
                    o.children += 1;
                }
                out.push(Span {
                    off: c.offset(),
                    len: 0,
                    ty: c.ty(),
                    // The walker has read the head: the body (first child) starts here, right
                    // after the count word.
                    count_off: Some(w.offset() - 4),
                    role,
                    parent,
                });
                open.push(Open {
                    span: out.len() - 1,
                    is_dict: c.ty() == VariantType::Dictionary,
                    is_object: c.ty() == VariantType::Object,
                    children: 0,
                });
            }
            Event::Value(v) => {
                if let Some(o) = open.last_mut() {
                    o.children += 1;
                }
                let len = v.raw().map(|r| r.len()).unwrap_or(0);
                out.push(Span {
                    off: v.offset(),
                    len,
                    ty: v.ty(),
                    count_off: None,
                    role,
                    parent,
                });
            }
            Event::Property(_) => {}
            Event::End => {
                if let Some(o) = open.pop() {
                    out[o.span].len = w.offset() - out[o.span].off;
                }
            }
        }
    }
    out
}

fn word(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
}

fn set_word(b: &mut [u8], at: usize, x: u32) {
    if let Some(w) = b.get_mut(at..at + 4) {
        w.copy_from_slice(&x.to_le_bytes());
    }
}

fn splice(b: &[u8], at: usize, len: usize, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + with.len());
    out.extend_from_slice(&b[..at]);
    out.extend_from_slice(with);
    out.extend_from_slice(&b[(at + len).min(b.len())..]);
    out
}

/// An encoded string payload (length, bytes, zero padding).
fn string_payload(s: &[u8]) -> Vec<u8> {
    let mut out = (s.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(s);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}

/// `count` Strings (and, in Godot 4, StringNames) whose bytes are random UTF-8-like sequences
/// (every lead byte 0x80–0xFF, continuation bytes from the edges of the overlong and
/// surrogate ranges, sequences cut short or run long, ASCII, NUL and BOMs between them): the
/// engines' UTF-8 rules, which mutants of golden values seldom reach. Deterministic in `seed`.
pub fn utf8_strings(dialect: Dialect, seed: u64, count: usize) -> Vec<Mutant> {
    const CONT: [u8; 10] = [0x80, 0x81, 0x82, 0x87, 0x88, 0x8F, 0x90, 0x9F, 0xA0, 0xBF];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let mut text = Vec::new();
        for _ in 0..1 + rng.below(4) {
            match rng.below(10) {
                0 => text.push(b'a' + rng.below(26) as u8),
                1 => text.push(0),
                2 => text.extend_from_slice(&[0xEF, 0xBB, 0xBF]),
                _ => {
                    let lead = 0x80 + rng.below(0x80) as u8;
                    // The continuation bytes the lead asks for, sometimes one fewer or more.
                    let want = match lead {
                        0xC0..=0xDF => 1,
                        0xE0..=0xEF => 2,
                        0xF0..=0xF7 => 3,
                        0xF8..=0xFB => 4,
                        0xFC..=0xFD => 5,
                        _ => rng.below(3),
                    };
                    let n = match rng.below(8) {
                        0 => want.saturating_sub(1),
                        1 => want + 1,
                        _ => want,
                    };
                    text.push(lead);
                    for _ in 0..n {
                        let c = if rng.chance(80) {
                            *rng.pick(&CONT)
                        } else {
                            rng.below(256) as u8
                        };
                        text.push(c);
                    }
                }
            }
        }
        let name = dialect == Dialect::Godot4 && rng.chance(20);
        let id = if name { 21 } else { 4 };
        let mut bytes = (id as u32).to_le_bytes().to_vec();
        bytes.extend(string_payload(&text));
        out.push(Mutant {
            objects: false,
            what: format!(
                "utf8: {}",
                text.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
            kind: "utf8".to_string(),
            bytes,
        });
    }
    out
}

/// The generator: golden values of one dialect and their layouts.
pub struct Generator {
    dialect: Dialect,
    golden: Vec<Golden>,
    spans: Vec<Vec<Span>>,
    /// Every (golden index, span index) of a value that is not the whole of a huge value:
    /// material for splices and synthetic containers.
    pool: Vec<(usize, usize)>,
    /// Keys that are equal or nearly equal in some engine's eyes, encoded.
    tricky_keys: Vec<Vec<u8>>,
    rng: Rng,
}

impl Generator {
    pub fn new(dialect: Dialect, golden: Vec<Golden>, seed: u64) -> Generator {
        let spans: Vec<Vec<Span>> = golden
            .iter()
            .map(|g| {
                let opts = ReadOptions::new()
                    .with_dialect(dialect)
                    .with_full_objects(g.objects);
                spans(&g.bytes, &opts)
            })
            .collect();
        let mut pool = Vec::new();
        for (gi, ss) in spans.iter().enumerate() {
            for (si, s) in ss.iter().enumerate() {
                if s.len <= 256 && s.len > 0 {
                    pool.push((gi, si));
                }
            }
        }
        let tricky_keys = tricky_keys(dialect);
        Generator {
            dialect,
            golden,
            spans,
            pool,
            tricky_keys,
            rng: Rng::new(seed),
        }
    }

    fn g4(&self) -> bool {
        self.dialect == Dialect::Godot4
    }

    fn id(&self, ty: VariantType) -> u32 {
        self.dialect.id_of(ty).unwrap_or(0)
    }

    /// A random type id: mostly valid ones, sometimes the first invalid one.
    fn type_id(&mut self) -> u32 {
        let n = self.dialect.type_count();
        if self.rng.chance(3) {
            n + self.rng.below(2) as u32
        } else {
            self.rng.below(n as usize) as u32
        }
    }

    /// A random pool value's bytes (and whether its golden value has full objects).
    fn pool_value(&mut self) -> (Vec<u8>, bool) {
        let (gi, si) = *self.rng.pick(&self.pool);
        let s = &self.spans[gi][si];
        let g = &self.golden[gi];
        (g.bytes[s.off..s.off + s.len].to_vec(), g.objects)
    }

    /// The next mutant.
    pub fn next(&mut self) -> Mutant {
        let gi = self.rng.below(self.golden.len());
        let mut objects = self.golden[gi].objects;
        let mut bytes = self.golden[gi].bytes.clone();
        let mut what = format!("{}:", self.golden[gi].name);
        let roll = self.rng.below(100);
        let op = if roll < 30 {
            self.byte_op(&mut bytes)
        } else if roll < 72 {
            self.structural_op(gi, &mut bytes)
        } else {
            let (b, o, w) = self.synthetic();
            bytes = b;
            objects = o;
            what = String::new();
            w
        };
        let kind: String = match op.split_once(" x") {
            Some((typed, _)) if typed.ends_with(']') => typed.to_string(),
            _ => op
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or("")
                .to_string(),
        };
        what += &op;
        // Sometimes one or two more byte-level hits.
        let extra = match self.rng.below(10) {
            0 => 2,
            1 | 2 => 1,
            _ => 0,
        };
        for _ in 0..extra {
            what += " ";
            what += &self.byte_op(&mut bytes);
        }
        if self.rng.chance(2) {
            // Objects mode for a plain value or the other way round.
            objects = !objects;
            what += " mode";
        }
        Mutant {
            objects,
            bytes,
            what,
            kind,
        }
    }

    fn byte_op(&mut self, b: &mut Vec<u8>) -> String {
        if b.is_empty() {
            b.extend_from_slice(&[0, 0, 0, 0]);
            return "grow".into();
        }
        match self.rng.below(9) {
            0 | 1 => {
                let at = self.rng.below(b.len());
                let bit = self.rng.below(8);
                b[at] ^= 1 << bit;
                format!("flip@{at}.{bit}")
            }
            2 => {
                let at = self.rng.below(b.len());
                let x = self.rng.next() as u8;
                b[at] = x;
                format!("byte@{at}={x:02x}")
            }
            3 | 4 => {
                let at = self.rng.below(b.len().div_ceil(4)) * 4;
                let x = self.interesting_word(word(b, at).unwrap_or(0));
                if at + 4 > b.len() {
                    b.resize(at + 4, 0);
                }
                set_word(b, at, x);
                format!("word@{at}={x:08x}")
            }
            5 => {
                let at = self.rng.below(b.len() + 1);
                b.truncate(at);
                format!("trunc@{at}")
            }
            6 => {
                let at = self.rng.below(b.len() / 4 + 1) * 4;
                let x = self.interesting_word(0);
                *b = splice(b, at, 0, &x.to_le_bytes());
                format!("insert@{at}={x:08x}")
            }
            7 => {
                let at = self.rng.below(b.len().div_ceil(4)) * 4;
                *b = splice(b, at, 4, &[]);
                format!("delete@{at}")
            }
            _ => {
                let n = 1 + self.rng.below(8);
                for _ in 0..n {
                    b.push(self.rng.next() as u8);
                }
                format!("trail+{n}")
            }
        }
    }

    /// A word worth trying in place of `old`.
    fn interesting_word(&mut self, old: u32) -> u32 {
        match self.rng.below(12) {
            0 => 0,
            1 => 1,
            2 => u32::MAX,
            3 => 0x7FFF_FFFF,
            4 => 0x8000_0000,
            5 => old.wrapping_add(1),
            6 => old.wrapping_sub(1),
            7 => old ^ (1 << 16),
            8 => self.type_id() | ((self.rng.below(16) as u32) << 16),
            9 => old.wrapping_add(4),
            10 => old | 0x8000_0000,
            _ => self.rng.next() as u32,
        }
    }

    fn structural_op(&mut self, gi: usize, b: &mut Vec<u8>) -> String {
        let ss = self.spans[gi].clone();
        if ss.is_empty() {
            return self.byte_op(b);
        }
        let si = self.rng.below(ss.len());
        let s = ss[si].clone();
        match self.rng.below(16) {
            // The header's type id.
            0 | 1 => {
                let h = word(b, s.off).unwrap_or(0);
                let t = self.type_id();
                set_word(b, s.off, (h & !0xFF) | t);
                format!("type@{}={t}", s.off)
            }
            // Flag bits.
            2 => {
                let h = word(b, s.off).unwrap_or(0);
                let bit = *self.rng.pick(&[16, 16, 16, 17, 18, 19, 8, 12, 20, 31]);
                set_word(b, s.off, h ^ (1 << bit));
                format!("hbit@{}.{bit}", s.off)
            }
            // A length or count word right after the header.
            3 | 4 => {
                let at = s.count_off.unwrap_or(s.off + 4);
                let Some(old) = word(b, at) else {
                    return self.byte_op(b);
                };
                let delta: i64 = *self.rng.pick(&[-4, -2, -1, 1, 2, 4, 8, -8]);
                let x = match self.rng.below(5) {
                    0 => 0,
                    1 => 0x7FFF_FFFF,
                    2 => old | 0x8000_0000,
                    _ => (old as i64 + delta) as u32,
                };
                set_word(b, at, x);
                format!("len@{at}={x}")
            }
            // Splice another value in place of this one.
            5..=7 => {
                let (with, _) = self.pool_value();
                let n = with.len();
                *b = splice(b, s.off, s.len, &with);
                format!("splice@{}+{}<-{n}B", s.off, s.len)
            }
            // Container type info.
            8 | 9 => self.type_info_op(&ss, b),
            // A key over another key of the same dictionary.
            10 | 11 => self.dup_key_op(&ss, b),
            // A key or element replaced by a tricky key.
            12 | 13 => {
                let targets: Vec<&Span> = ss
                    .iter()
                    .filter(|s| matches!(s.role, Role::Key | Role::Element))
                    .collect();
                if targets.is_empty() {
                    return self.byte_op(b);
                }
                let t = (*self.rng.pick(&targets)).clone();
                let k = self.rng.pick(&self.tricky_keys).clone();
                *b = splice(b, t.off, t.len, &k);
                format!("tricky@{}", t.off)
            }
            // Drop a sub-value (count unchanged) or duplicate one (count unchanged).
            14 => {
                if s.role == Role::Top {
                    return self.byte_op(b);
                }
                *b = splice(b, s.off, s.len, &[]);
                format!("drop@{}+{}", s.off, s.len)
            }
            _ => {
                if s.role == Role::Top {
                    return self.byte_op(b);
                }
                let copy = b[s.off..s.off + s.len].to_vec();
                *b = splice(b, s.off, 0, &copy);
                format!("dup@{}+{}", s.off, s.len)
            }
        }
    }

    fn type_info_op(&mut self, ss: &[Span], b: &mut Vec<u8>) -> String {
        let containers: Vec<&Span> = ss
            .iter()
            .filter(|s| matches!(s.ty, VariantType::Array | VariantType::Dictionary))
            .collect();
        if containers.is_empty() || !self.g4() {
            return self.byte_op(b);
        }
        let c = (*self.rng.pick(&containers)).clone();
        let h = word(b, c.off).unwrap_or(0);
        let info_len = c.count_off.unwrap_or(c.off + 4) - (c.off + 4);
        let slots = if c.ty == VariantType::Array { 1 } else { 2 };
        match self.rng.below(4) {
            // New type info from scratch: each slot none / builtin / class / script.
            0 | 1 => {
                let mut hdr = h & !(0xF << 16);
                let mut info = Vec::new();
                let mut desc = String::new();
                for k in 0..slots {
                    let kind = *self.rng.pick(&[0u32, 1, 1, 1, 1, 2, 3]);
                    hdr |= kind << (16 + 2 * k);
                    match kind {
                        1 => {
                            let t = self.type_id();
                            info.extend_from_slice(&t.to_le_bytes());
                            desc += &format!("b{t}");
                        }
                        2 => {
                            let c = *self.rng.pick(&[
                                &b"EncodedObjectAsID"[..],
                                b"Node",
                                b"RefCounted",
                                b"Object",
                                b"Resource",
                            ]);
                            info.extend(string_payload(c));
                            desc += "c";
                        }
                        3 => {
                            let p = *self.rng.pick(&[&b"res://thing.gd"[..], b"res://none.gd"]);
                            info.extend(string_payload(p));
                            desc += "s";
                        }
                        _ => desc += "n",
                    }
                }
                *b = splice(b, c.off + 4, info_len, &info);
                set_word(b, c.off, hdr);
                format!("tinfo@{}={desc}", c.off)
            }
            // Only the builtin type id of a slot already builtin-typed.
            2 => {
                if (h >> 16) & 3 == 1 {
                    let t = self.type_id();
                    set_word(b, c.off + 4, t);
                    format!("tid@{}={t}", c.off)
                } else {
                    self.byte_op(b)
                }
            }
            // Untyped.
            _ => {
                *b = splice(b, c.off + 4, info_len, &[]);
                set_word(b, c.off, h & !(0xF << 16));
                format!("untype@{}", c.off)
            }
        }
    }

    fn dup_key_op(&mut self, ss: &[Span], b: &mut Vec<u8>) -> String {
        // Dictionaries with at least two keys: (key spans) per dictionary.
        let mut dicts: Vec<Vec<&Span>> = Vec::new();
        for (i, s) in ss.iter().enumerate() {
            if s.ty == VariantType::Dictionary {
                let keys: Vec<&Span> = ss
                    .iter()
                    .filter(|k| k.parent == Some(i) && k.role == Role::Key)
                    .collect();
                if keys.len() >= 2 {
                    dicts.push(keys);
                }
            }
        }
        if dicts.is_empty() {
            return self.byte_op(b);
        }
        let keys = self.rng.pick(&dicts).clone();
        let i = self.rng.below(keys.len());
        let mut j = self.rng.below(keys.len() - 1);
        if j >= i {
            j += 1;
        }
        let (from, to) = (keys[i].clone(), keys[j].clone());
        let k = b[from.off..from.off + from.len].to_vec();
        *b = splice(b, to.off, to.len, &k);
        format!("dupkey@{}<-{}", to.off, from.off)
    }

    /// A container built from pool values and tricky keys.
    fn synthetic(&mut self) -> (Vec<u8>, bool, String) {
        let g4 = self.g4();
        let mut objects = false;
        let n = self.rng.below(5);
        match self.rng.below(if g4 { 4 } else { 2 }) {
            // Untyped Dictionary of tricky keys and pool values: the duplicate-key rule.
            0 => {
                let mut out = Vec::new();
                out.extend_from_slice(&self.id(VariantType::Dictionary).to_le_bytes());
                let n = n.max(2);
                out.extend_from_slice(&(n as u32).to_le_bytes());
                for _ in 0..n {
                    let k = self.rng.pick(&self.tricky_keys).clone();
                    out.extend(k);
                    out.extend(self.small_value(&mut objects));
                }
                (out, objects, format!("dict{n}"))
            }
            // Untyped Array of tricky keys (how the text form prints them).
            1 => {
                let mut out = Vec::new();
                out.extend_from_slice(&self.id(VariantType::Array).to_le_bytes());
                out.extend_from_slice(&(n as u32).to_le_bytes());
                for _ in 0..n {
                    let k = self.rng.pick(&self.tricky_keys).clone();
                    out.extend(k);
                }
                (out, objects, format!("arr{n}"))
            }
            // Array[T] of pool values: the conversion rule.
            2 => {
                let t = self.rng.below(self.dialect.type_count() as usize) as u32;
                let mut out = Vec::new();
                out.extend_from_slice(&(self.id(VariantType::Array) | (1 << 16)).to_le_bytes());
                out.extend_from_slice(&t.to_le_bytes());
                out.extend_from_slice(&(n as u32).to_le_bytes());
                for _ in 0..n {
                    out.extend(self.small_value(&mut objects));
                }
                (
                    out,
                    objects,
                    format!("Array[{}] x{n}", type_name(self.dialect, t)),
                )
            }
            // Dictionary[K, V] of pool values and tricky keys.
            _ => {
                let count = self.dialect.type_count() as usize;
                // Key kind: none, builtin or class; value kind: none or builtin.
                let (kk, vk) = (self.rng.below(3) as u32, self.rng.below(2) as u32);
                let (kt, vt) = (self.rng.below(count) as u32, self.rng.below(count) as u32);
                let mut out = Vec::new();
                let hdr = self.id(VariantType::Dictionary) | (kk << 16) | (vk << 18);
                out.extend_from_slice(&hdr.to_le_bytes());
                match kk {
                    1 => out.extend_from_slice(&kt.to_le_bytes()),
                    2 => out.extend(string_payload(b"EncodedObjectAsID")),
                    _ => {}
                }
                if vk == 1 {
                    out.extend_from_slice(&vt.to_le_bytes());
                }
                out.extend_from_slice(&(n as u32).to_le_bytes());
                for _ in 0..n {
                    if self.rng.chance(50) {
                        let k = self.rng.pick(&self.tricky_keys).clone();
                        out.extend(k);
                    } else {
                        out.extend(self.small_value(&mut objects));
                    }
                    out.extend(self.small_value(&mut objects));
                }
                (
                    out,
                    objects,
                    format!(
                        "Dictionary[{}, {}] x{n}",
                        kind_name(self.dialect, kk, kt),
                        kind_name(self.dialect, vk, vt)
                    ),
                )
            }
        }
    }

    /// A pool value or a tricky key; sets `objects` if it came from a full-objects value.
    fn small_value(&mut self, objects: &mut bool) -> Vec<u8> {
        if self.rng.chance(30) {
            return self.rng.pick(&self.tricky_keys).clone();
        }
        let (v, o) = self.pool_value();
        *objects |= o;
        v
    }
}

fn type_name(d: Dialect, id: u32) -> String {
    d.type_of(id)
        .map_or(format!("#{id}"), |t| t.name().to_string())
}

fn kind_name(d: Dialect, kind: u32, id: u32) -> String {
    match kind {
        0 => "Variant".into(),
        1 => type_name(d, id),
        _ => "EncodedObjectAsID".into(),
    }
}

/// Keys that some engine might treat as equal: the same number as int, float, bool, String,
/// StringName; signed zeros and NaNs; strings that differ only by what the engine strips.
fn tricky_keys(dialect: Dialect) -> Vec<Vec<u8>> {
    let g4 = dialect == Dialect::Godot4;
    let w = |x: u32| x.to_le_bytes().to_vec();
    let cat = |parts: &[Vec<u8>]| parts.concat();
    let string = |id: u32, s: &[u8]| cat(&[w(id), string_payload(s)]);
    let mut keys = vec![
        w(0),                                                          // null
        cat(&[w(1), w(1)]),                                            // true
        cat(&[w(1), w(0)]),                                            // false
        cat(&[w(1), w(2)]),                                            // bool stored as 2
        cat(&[w(2), w(0)]),                                            // 0
        cat(&[w(2), w(1)]),                                            // 1
        cat(&[w(2 | 1 << 16), w(1), w(0)]),                            // 1 as 64-bit
        cat(&[w(2 | 1 << 16), w(0), w(1)]),                            // 2^32
        cat(&[w(3), 0f32.to_bits().to_le_bytes().to_vec()]),           // 0.0
        cat(&[w(3), (-0f32).to_bits().to_le_bytes().to_vec()]),        // -0.0
        cat(&[w(3), 1f32.to_bits().to_le_bytes().to_vec()]),           // 1.0
        cat(&[w(3 | 1 << 16), 1f64.to_bits().to_le_bytes().to_vec()]), // 1.0 as f64
        cat(&[w(3), w(0x7FC0_0000)]),                                  // NaN
        cat(&[w(3), w(0xFFC0_0001)]),                                  // another NaN
        cat(&[w(3 | 1 << 16), f64::NAN.to_bits().to_le_bytes().to_vec()]),
        cat(&[w(3), w(0x4A00_0001)]), // 2097152.25: a tie between two shortest decimals
        cat(&[w(3), 0.1f32.to_bits().to_le_bytes().to_vec()]),
        cat(&[w(3 | 1 << 16), 0.1f64.to_bits().to_le_bytes().to_vec()]),
        cat(&[w(3 | 1 << 16), 1e300f64.to_bits().to_le_bytes().to_vec()]),
        string(4, b"a"),
        string(4, b"b"),
        string(4, b""),
        string(4, b"a\0b"),
        string(4, b"\xEF\xBB\xBFa"),
        string(4, b"1"),
        string(4, b"\xE0\x81\x81"),     // overlong "A" (Godot 3 reads it)
        string(4, b"\xED\xA0\x80"),     // an encoded surrogate
        string(4, b"\xF4\x90\x80\x80"), // above U+10FFFF
        string(4, b"x\xC3\xA9"),
        // Vector2(0, -0) and Vector2(0, 0)
        cat(&[w(5), w(0), w(0x8000_0000)]),
        cat(&[w(5), w(0), w(0)]),
        cat(&[w(5), w(0x7FC0_0000), w(0)]),
    ];
    let id = |t: VariantType| dialect.id_of(t).unwrap();
    use VariantType as T;
    keys.push(cat(&[w(id(T::Array)), w(1), w(2), w(1)])); // [1]
    keys.push(cat(&[
        w(id(T::Array)),
        w(1),
        w(3),
        1f32.to_bits().to_le_bytes().to_vec(),
    ])); // [1.0]
    keys.push(cat(&[w(id(T::Array)), w(0)])); // []
    keys.push(cat(&[w(id(T::Dictionary)), w(0)])); // {}
    keys.push(cat(&[w(id(T::PackedInt32Array)), w(1), w(1)]));
    keys.push(cat(&[
        w(id(T::PackedFloat32Array)),
        w(1),
        1f32.to_bits().to_le_bytes().to_vec(),
    ]));
    keys.push(cat(&[
        w(id(T::Color)),
        w(0),
        w(0),
        w(0),
        1f32.to_bits().to_le_bytes().to_vec(),
    ]));
    keys.push(cat(&[
        w(id(T::NodePath)),
        w(0x8000_0001),
        w(0),
        w(0),
        string_payload(b"a"),
    ]));
    keys.push(cat(&[w(id(T::NodePath)), w(0x8000_0000), w(0), w(0)]));
    keys.push(cat(&[w(id(T::NodePath)), w(0x8000_0000), w(0), w(1)]));
    keys.push(cat(&[w(id(T::Vector3)), w(0), w(0x8000_0000), w(0)]));
    keys.push(cat(&[w(id(T::Rid))]));
    keys.push(cat(&[w(id(T::Object) | 1 << 16), w(0), w(0)])); // null object id
    if g4 {
        keys.push(string(21, b"a"));
        keys.push(string(21, b"b"));
        keys.push(string(21, b""));
        keys.push(string(21, b"1"));
        keys.push(cat(&[w(6), w(1), w(0)])); // Vector2i(1, 0)
        keys.push(cat(&[w(6), w(0), w(0)]));
        keys.push(cat(&[w(5 | 1 << 16), w(0), w(0), w(0), w(0x8000_0000)])); // Vector2(0, -0) f64
        keys.push(cat(&[
            w(5 | 1 << 16),
            0.1f64.to_bits().to_le_bytes().to_vec(),
            w(0),
            w(0),
        ]));
        keys.push(cat(&[w(23), w(1), w(0)])); // RID(1)
        keys.push(cat(&[w(23), w(u32::MAX), w(u32::MAX)])); // RID(-1)
        keys.push(cat(&[w(25)])); // Callable
        keys.push(cat(&[w(28 | 1 << 16), w(2), w(1), w(2), w(1)])); // Array[int]([1])
        keys.push(cat(&[w(28 | 1 << 16), w(3), w(1), w(2), w(1)])); // Array[float]([1])
        keys.push(cat(&[w(28 | 1 << 16), w(0), w(1), w(2), w(1)])); // Array[Nil]([1])
        keys.push(cat(&[w(id(T::PackedInt64Array)), w(1), w(1), w(0)]));
        keys.push(cat(&[
            w(id(T::PackedFloat64Array)),
            w(1),
            1f64.to_bits().to_le_bytes().to_vec(),
        ]));
        keys.push(cat(&[
            w(id(T::PackedStringArray)),
            w(1),
            string_payload(b"a\0"),
        ]));
        keys.push(cat(&[w(id(T::PackedByteArray)), w(1), w(1)]));
    } else {
        keys.push(cat(&[
            w(id(T::PackedStringArray)),
            w(1),
            string_payload(b"a\0"),
        ]));
        keys.push(cat(&[w(id(T::PackedByteArray)), w(1), w(1)]));
    }
    keys
}
