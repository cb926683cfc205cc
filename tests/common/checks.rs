//! The checks of the fuzz targets in `fuzz/fuzz_targets/` (each target calls one function here),
//! shared with their stable corpus replay (`tests/fuzz/fuzz_corpus.rs`). Each takes arbitrary
//! bytes, must never panic for a reason other than a broken property, and returns whether the input
//! exercised the interesting path (a value was read), so that a replay can tell a corpus of rejects
//! from a useful one.
//!
//! - [`text_reader`] / [`json_reader`]: the readers never panic; what they accept encodes and
//!   validates with the same options (they refuse what `validate_with` would refuse); reading
//!   straight to bytes gives the tree encoder's bytes; errors quote short excerpts.
//! - [`print_round_trip`]: for every value the binary reader accepts (both dialects, objects or
//!   not), its JSON reads back to the value as the bytes hold it (a repeated key kept, as
//!   `"$repeated": true` says; typed elements and 64-bit components as written), whose bytes
//!   the engine reads as it reads the original ones (`to_owned` then `encode`, nothing
//!   narrowed); and its text reads back unless `text::round_trip` says it cannot, and then
//!   exactly as that says.
//! - [`owned_round_trip`]: `parse → to_owned → encode` validates, and reading and writing it
//!   again gives the same bytes (a fixed point; one round later when a Dictionary holds both
//!   Nil and a null object as keys, which are written as two Nil keys that read back as one).
//! - [`framing_chunks`]: the incremental `FrameDecoder` fed in arbitrary chunks reports the same
//!   frames and errors as `frames()` over the whole buffer.
//! - [`writer_ops`]: a sequence of streaming `Writer` operations gives `encode`'s bytes for the
//!   tree those operations (the ones the writer accepted) describe.
#![allow(dead_code)]

use gdvariant::framing::{frames, Decoded, Endian, FrameDecoder, FrameOptions};
use gdvariant::*;

/// The longest error message a reader may give (it quotes excerpts, never whole tokens).
const MAX_MESSAGE: usize = 200;

/// Reads bytes as a source of choices.
pub struct Src<'a> {
    data: &'a [u8],
}

impl<'a> Src<'a> {
    pub fn new(data: &'a [u8]) -> Src<'a> {
        Src { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn below(&mut self, n: u8) -> u8 {
        self.byte() % n
    }

    pub fn bool(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }

    /// A short text from a small alphabet (with `/`, `:`, `$`, NUL and non-ASCII).
    pub fn text(&mut self) -> String {
        const ALPHA: [&str; 12] = [
            "a", "b", "/", ":", "$", "\0", "é", "\"", "\\", " ", "s", "\u{feff}",
        ];
        let n = self.below(5);
        (0..n).map(|_| ALPHA[self.below(12) as usize]).collect()
    }

    /// A real component: any f64 bits when `wide`, else an f32 value.
    pub fn real(&mut self, wide: bool) -> f64 {
        match self.below(4) {
            0 => f64::from(self.below(5)) - 2.0,
            1 if wide => f64::from_bits(self.u64()),
            _ => f64::from(f32::from_bits(self.u32())),
        }
    }

    pub fn reals<const N: usize>(&mut self, wide: bool) -> [f64; N] {
        let mut a = [0.0; N];
        for x in &mut a {
            *x = self.real(wide);
        }
        a
    }

    pub fn ints<const N: usize>(&mut self) -> [i32; N] {
        let mut a = [0; N];
        for x in &mut a {
            *x = self.u32() as i32;
        }
        a
    }

    pub fn type_info(&mut self) -> TypeInfo {
        match self.below(6) {
            0..=2 => TypeInfo::None,
            3 => TypeInfo::Builtin(
                Dialect::Godot4
                    .type_of(u32::from(self.below(39)))
                    .unwrap_or(VariantType::Int),
            ),
            4 => TypeInfo::ClassName(
                ["Node", "", "EncodedObjectAsID"][self.below(3) as usize].into(),
            ),
            _ => TypeInfo::Script(["res://a.gd", "x"][self.below(2) as usize].into()),
        }
    }

    /// A value that holds no other value.
    pub fn leaf(&mut self, wide: bool) -> Variant {
        match self.below(28) {
            0 => Variant::Nil,
            1 => Variant::Bool(self.bool()),
            2 => Variant::Int(i64::from(self.u32() as i32)),
            3 => Variant::Int(self.u64() as i64),
            4 => Variant::Float(f64::from_bits(self.u64())),
            5 => Variant::Float(f64::from(f32::from_bits(self.u32()))),
            6 => Variant::String(self.text().into()),
            7 => Variant::Vector2(Vector2::from_array(self.reals(wide))),
            8 => Variant::Vector2i(Vector2i::from_array(self.ints())),
            9 => Variant::Rect2(Rect2::from_array(self.reals(wide))),
            10 => Variant::Vector3(Vector3::from_array(self.reals(wide))),
            11 => Variant::from(Transform2D::from_array(self.reals(wide))),
            12 => Variant::Vector4(Vector4::from_array(self.reals(wide))),
            13 => Variant::Quaternion(Quaternion::from_array(self.reals(wide))),
            14 => Variant::from(Basis::from_array(self.reals(wide))),
            15 => Variant::from(Projection::from_array(self.reals(wide))),
            16 => Variant::Color(Color::from_array(
                self.ints::<4>().map(|b| f32::from_bits(b as u32)),
            )),
            17 => Variant::StringName(self.text().into()),
            18 => Variant::from(NodePath {
                names: (0..self.below(3)).map(|_| self.text()).collect(),
                subnames: (0..self.below(3)).map(|_| self.text()).collect(),
                absolute: self.bool(),
            }),
            19 => Variant::Rid(self.u64()),
            20 => Variant::from(Object::Id(self.u64())),
            21 => Variant::Callable,
            22 => Variant::Signal(Signal {
                name: self.text(),
                object_id: self.u64(),
            }),
            23 => Variant::PackedByteArray((0..self.below(6)).map(|_| self.byte()).collect()),
            24 => {
                Variant::PackedInt64Array((0..self.below(4)).map(|_| self.u64() as i64).collect())
            }
            25 => Variant::PackedFloat32Array(
                (0..self.below(4))
                    .map(|_| f32::from_bits(self.u32()))
                    .collect(),
            ),
            26 => {
                Variant::PackedStringArray((0..self.below(4)).map(|_| self.text().into()).collect())
            }
            _ => Variant::PackedVector3Array(
                (0..self.below(3))
                    .map(|_| Vector3::from_array(self.reals(wide)))
                    .collect(),
            ),
        }
    }

    /// A tree of at most `depth` more levels.
    pub fn tree(&mut self, depth: u32, wide: bool) -> Variant {
        if depth == 0 || self.below(3) != 0 {
            return self.leaf(wide);
        }
        let n = self.below(4);
        match self.below(3) {
            0 => Variant::Array(Array::typed(
                self.type_info(),
                (0..n).map(|_| self.tree(depth - 1, wide)).collect(),
            )),
            1 => Variant::Dictionary(Dictionary::typed(
                self.type_info(),
                self.type_info(),
                (0..n)
                    .map(|_| (self.tree(depth - 1, wide), self.tree(depth - 1, wide)))
                    .collect(),
            )),
            _ => Variant::from(Object::Full {
                class: ["Node", "Resource"][self.below(2) as usize].into(),
                properties: (0..n)
                    .map(|_| {
                        let name = ["a", "script", "b"][self.below(3) as usize].to_string();
                        (name, self.tree(depth - 1, wide))
                    })
                    .collect(),
            }),
        }
    }
}

/// The (dialect, full objects, depth limit) combinations every check runs.
fn combos() -> [(Dialect, bool, u32); 5] {
    [
        (Dialect::Godot4, false, 1024),
        (Dialect::Godot4, true, 1024),
        (Dialect::Godot3, false, 1024),
        (Dialect::Godot3, true, 1024),
        (Dialect::Godot4, true, 2),
    ]
}

fn read_opts(d: Dialect, objects: bool, depth: u32) -> ReadOptions {
    ReadOptions::new()
        .with_dialect(d)
        .with_full_objects(objects)
        .with_max_depth(depth)
}

fn enc_opts(d: Dialect, objects: bool, depth: u32) -> EncodeOptions {
    EncodeOptions::new()
        .with_dialect(d)
        .with_full_objects(objects)
        .with_max_depth(depth)
}

fn short_error(what: &str, message: &str, offset: usize, len: usize) {
    assert!(
        offset <= len,
        "{what}: offset {offset} past the input ({len})"
    );
    assert!(
        message.len() <= MAX_MESSAGE,
        "{what}: a {}-byte message: {}…",
        message.len(),
        &message[..MAX_MESSAGE.min(message.len())]
    );
}

/// A read value's bytes must validate with the options it was read with.
fn valid(bytes: &[u8], read: &ReadOptions, what: &str) {
    assert_eq!(
        validate_with(bytes, read),
        Ok(bytes.len()),
        "{what}: the reader accepted what validate rejects ({read:?})"
    );
}

/// The text reader: see the [module docs](self).
pub fn text_reader(data: &[u8]) -> bool {
    let s = String::from_utf8_lossy(data);
    let mut read_any = false;
    for (d, objects, depth) in combos() {
        let read = read_opts(d, objects, depth);
        let enc = enc_opts(d, objects, depth);
        let tree = text::from_str_with(&s, &read);
        let bytes = text::to_bytes(&s, &enc);
        match (&tree, &bytes) {
            (Ok(v), Ok(b)) => {
                let want = encode_with(v, &enc).expect("a value the text reader read encodes");
                assert_eq!(
                    b, &want,
                    "text: to_bytes vs encode(from_str_with) ({read:?})"
                );
                valid(b, &read, "text");
                read_any = true;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "text: the tree and the bytes readers fail alike");
                short_error("text", &a.message, a.offset, s.len());
            }
            _ => panic!("text: tree {tree:?} vs bytes {bytes:?} ({read:?})"),
        }
    }
    // Double precision: components read as f64.
    if let Ok(mut v) = text::from_str_values(&s, Dialect::Godot4, true) {
        let enc = EncodeOptions::new()
            .with_full_objects(true)
            .with_double_precision(true);
        let mut got = Vec::new();
        text::to_bytes_each(&s, &enc, |b| got.push(b.to_vec()))
            .expect("to_bytes_each reads what from_str_values reads");
        assert_eq!(got.len(), v.len());
        for (b, v) in got.iter().zip(v.drain(..)) {
            assert_eq!(b, &encode_with(&v, &enc).expect("encodes"), "text, double");
        }
    }
    read_any
}

/// The JSON reader: see the [module docs](self).
pub fn json_reader(data: &[u8]) -> bool {
    let s = String::from_utf8_lossy(data);
    let mut read_any = false;
    for (d, objects, depth) in combos() {
        let read = read_opts(d, objects, depth);
        let enc = enc_opts(d, objects, depth);
        let tree = json::from_str_with(&s, &read);
        let bytes = json::to_bytes(&s, &enc);
        match (&tree, &bytes) {
            (Ok(v), Ok(b)) => {
                // `"$f64": true` anywhere makes the encoding double precision.
                let (_, wide) =
                    json::from_str_values_with(&s, &read).expect("from_str_values reads it too");
                let want = encode_with(v, &enc.with_double_precision(wide))
                    .expect("a value the JSON reader read encodes");
                assert_eq!(
                    b, &want,
                    "json: to_bytes vs encode(from_str_with) ({read:?})"
                );
                valid(b, &read, "json");
                read_any = true;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "json: the tree and the bytes readers fail alike");
                short_error("json", &a.message, a.offset, s.len());
            }
            _ => panic!("json: tree {tree:?} vs bytes {bytes:?} ({read:?})"),
        }
    }
    read_any
}

/// Print → read back: see the [module docs](self).
pub fn print_round_trip(data: &[u8]) -> bool {
    let mut read_any = false;
    for (d, objects, depth) in combos() {
        let read = read_opts(d, objects, depth);
        if validate_with(data, &read).is_err() {
            continue;
        }
        let v = parse_with(data, &read).expect("validated");
        let Ok(owned) = v.to_owned() else {
            // Godot 3 text that Rust's str cannot hold: nothing to compare with.
            continue;
        };
        read_any = true;
        // JSON: the value as the bytes hold it (a repeated key kept, a typed container's
        // elements and 64-bit components as written), so exactly its encoding: the engine
        // reads the JSON's bytes as it reads the original ones.
        let j = json::to_string(&v).expect("a valid value prints as JSON");
        let back = json::from_str_with(&j, &read)
            .unwrap_or_else(|e| panic!("JSON of a valid value reads back ({read:?}): {e}\n{j}"));
        let enc = enc_opts(d, objects, depth);
        // The printer marks wide values with this key (in a string it would be escaped).
        let wide = j.contains("\"$f64\":true");
        let tree_bytes = encode_with(&back, &enc.with_double_precision(wide))
            .unwrap_or_else(|e| panic!("the JSON's value encodes ({read:?}): {e}\n{j}"));
        let stream = json::to_bytes(&j, &enc);
        assert_eq!(
            stream.as_ref().ok(),
            Some(&tree_bytes),
            "JSON to_bytes ({read:?})\n{j}"
        );
        let (a, b) = (engine_bytes(data, &read), engine_bytes(&tree_bytes, &read));
        if any_text(&owned, |t| t.starts_with('\u{feff}')) {
            // A text starting with U+FEFF (what is left once the reader stripped one BOM) is
            // written as it is and loses it when read again, as in the engine: the JSON's
            // bytes hold the text the engine read, not the original's second BOM.
        } else if nil_and_null_object_keys(&owned) || any_value(&back, is_null_object) {
            // A null object is written as Nil, as the engine writes it, and the engine tells
            // them apart: a null-object key of the original is a key of its own but the same
            // key as Nil in the JSON's bytes, and a value the engine converts to text (an Array
            // key of a Dictionary typed PackedStringArray) prints `<Object#null>` for one and
            // `<null>` for the other. No bytes can carry a null object. What holds: the engine
            // reads the JSON's bytes as it reads the original with every null object written
            // as Nil.
            let nil = null_objects_as_nil(data, &read);
            assert_eq!(
                engine_bytes(&nil, &read),
                b,
                "the engine's reading of the JSON, null objects as Nil ({read:?})\n{j}"
            );
        } else {
            assert_eq!(a, b, "the engine's reading of the JSON ({read:?})\n{j}");
        }
        // Text: round_trip is the round trip itself; every loss has a listed reason, and a
        // text that does not read back has one of the reasons that stop the reader.
        let enc = enc_opts(d, true, depth);
        let loss = text::round_trip(&v, &enc).expect("a valid value is checked");
        if let Some(l) = loss {
            let t = text::to_string(&v).unwrap();
            assert_ne!(
                l.kind(),
                text::LossKind::Other,
                "an unlisted text loss ({read:?}, unreadable: {})\n{t}",
                l.unreadable()
            );
        }
    }
    read_any
}

/// `parse → to_owned → encode → parse`: see the [module docs](self).
pub fn owned_round_trip(data: &[u8]) -> bool {
    let mut read_any = false;
    for (d, objects, depth) in combos() {
        // Double precision, read and written, keeps every component exactly (a
        // single-precision engine narrows 64-bit components on reading and never writes them
        // back wide).
        let read = read_opts(d, objects, depth).with_double_precision(true);
        if validate_with(data, &read).is_err() {
            continue;
        }
        let Ok(owned) = parse_with(data, &read).and_then(|v| v.to_owned()) else {
            continue;
        };
        read_any = true;
        // A text starting with U+FEFF (what is left once the reader stripped one BOM) loses it
        // on each round, as in the engine: no fixed point then; and a class name that is only
        // such a BOM reads back as the null object, whose properties then do not read (the
        // encoder does not refuse it yet: see the report of issue 14).
        if any_text(&owned, |t| t.starts_with('\u{feff}')) {
            continue;
        }
        // The engine's value may be one level deeper than its bytes (a typed `Array[Array]`
        // converts a packed-array element into an Array): written and read again with the
        // depth limit one above.
        let enc = enc_opts(d, objects, depth)
            .with_double_precision(true)
            .with_max_depth(read.max_depth() + 1);
        let read = read.with_max_depth(read.max_depth() + 1);
        let bytes = encode_with(&owned, &enc)
            .unwrap_or_else(|e| panic!("to_owned of a valid value encodes ({read:?}): {e}"));
        valid(&bytes, &read, "encode(to_owned)");
        // Null objects come back as Nil (as the engine writes them): compare the bytes. A
        // Dictionary with both Nil and a null object as keys (two keys, as in the engine) is
        // written with two Nil keys, which read back as one: the fixed point comes one round
        // later.
        let again = parse_with(&bytes, &read).unwrap().to_owned().unwrap();
        let bytes2 = encode_with(&again, &enc).unwrap();
        if nil_and_null_object_keys(&owned) {
            let again2 = parse_with(&bytes2, &read).unwrap().to_owned().unwrap();
            assert_eq!(
                encode_with(&again2, &enc).unwrap(),
                bytes2,
                "encode(to_owned) is a fixed point from the second round ({read:?})"
            );
        } else {
            assert_eq!(
                bytes2, bytes,
                "encode(to_owned) is a fixed point ({read:?})"
            );
        }
    }
    read_any
}

/// The engine's reading of `bytes` (as a double-precision build reads them: nothing narrowed)
/// written back with the same options, but for the depth limit: the engine's value may be a
/// level deeper than its bytes (a typed `Array[Array]` converts a packed-array element into an
/// Array), so it is written with the encoder's largest limit.
pub fn engine_bytes(bytes: &[u8], read: &ReadOptions) -> Vec<u8> {
    let read = read.with_double_precision(true);
    let v = parse_with(bytes, &read)
        .and_then(|v| v.to_owned())
        .unwrap_or_else(|e| panic!("valid bytes are read ({read:?}): {e}"));
    let enc = EncodeOptions::new()
        .with_dialect(read.dialect())
        .with_full_objects(read.full_objects())
        .with_max_depth(MAX_DEPTH_LIMIT)
        .with_double_precision(true);
    encode_with(&v, &enc).unwrap_or_else(|e| panic!("the engine's value encodes ({read:?}): {e}"))
}

/// Whether a Dictionary in `v` has a null object in a key (at any depth): beside Nil, or
/// `[null]` beside `[Nil]`, they are two keys (as in the engine), written as two Nil keys that
/// read back as one.
pub fn nil_and_null_object_keys(v: &Variant) -> bool {
    // A null object anywhere in a key (`[null]` beside `[Nil]` too): written as Nil, it may
    // make two of the engine's keys one.
    any_value(v, |x| {
        matches!(x, Variant::Dictionary(d)
            if d.len() > 1 && d.keys().any(|k| any_value(k, is_null_object)))
    })
}

/// Whether `v` is a null object: id 0, or a full object of class `""`.
fn is_null_object(v: &Variant) -> bool {
    matches!(v, Variant::Object(o) if matches!(&**o, Object::Id(0))
        || matches!(&**o, Object::Full { class, .. } if class.is_empty()))
}

/// `bytes` (valid with `read`) with every null object written as the Nil header that the
/// encoder, as the engine, writes for it (containers count their elements, not their bytes, so
/// the rest stays as it is).
pub fn null_objects_as_nil(bytes: &[u8], read: &ReadOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    let mut w = Walker::new(bytes, read);
    while let Some(e) = w.next_event().expect("valid") {
        if let Event::Value(v) = e {
            if v.ty() == VariantType::Object && v.to_owned().is_ok_and(|o| is_null_object(&o)) {
                out.extend_from_slice(&bytes[from..v.offset()]);
                out.extend_from_slice(&[0; 4]);
                from = v.offset() + v.raw().expect("sized").len();
            }
        }
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// Whether any value in `v` (at any depth, keys included) satisfies `pred`.
pub fn any_value(v: &Variant, pred: impl Fn(&Variant) -> bool) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if pred(v) {
            return true;
        }
        match v {
            Variant::Object(o) => {
                if let Object::Full { properties, .. } = &**o {
                    stack.extend(properties.iter().map(|(_, v)| v));
                }
            }
            Variant::Array(a) => stack.extend(&a.items),
            Variant::Dictionary(d) => {
                for (k, x) in d.entries() {
                    stack.push(k);
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether any text in `v` (strings, names, keys, types) satisfies `pred`.
pub fn any_text(v: &Variant, pred: impl Fn(&str) -> bool) -> bool {
    let ty = |t: &TypeInfo| matches!(t, TypeInfo::ClassName(s) | TypeInfo::Script(s) if pred(s));
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        let hit = match v {
            Variant::String(s) | Variant::StringName(s) => pred(s),
            Variant::PackedStringArray(a) => a.iter().any(|s| pred(s)),
            Variant::NodePath(p) => p.names.iter().chain(&p.subnames).any(|s| pred(s)),
            Variant::Signal(s) => pred(&s.name),
            Variant::Object(o) => match &**o {
                Object::Full { class, properties } => {
                    stack.extend(properties.iter().map(|(_, v)| v));
                    pred(class) || properties.iter().any(|(n, _)| pred(n))
                }
                Object::Id(_) => false,
            },
            Variant::Array(a) => {
                stack.extend(&a.items);
                ty(a.element_type())
            }
            Variant::Dictionary(d) => {
                for (k, x) in d.entries() {
                    stack.push(k);
                    stack.push(x);
                }
                ty(d.key_type()) || ty(d.value_type())
            }
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// What a frame reading reported: a value (its offset and bytes) or an error (kind, offset).
#[derive(Debug, PartialEq)]
enum Got {
    Frame(usize, Vec<u8>),
    Error(ErrorKind, usize),
}

fn got(r: Result<VariantRef<'_>>) -> Got {
    match r {
        Ok(v) => Got::Frame(
            v.offset(),
            v.raw().expect("a frame's value is sized").to_vec(),
        ),
        Err(e) => Got::Error(e.kind(), e.offset()),
    }
}

/// The incremental decoder vs the whole buffer: see the [module docs](self).
pub fn framing_chunks(data: &[u8]) -> bool {
    let mut src = Src::new(data);
    let flags = src.byte();
    let max = match src.below(3) {
        0 => usize::from(src.byte()),
        1 => usize::from(src.byte()) * 64,
        _ => 8 << 20,
    };
    let seed = src.u32();
    let stream = src.rest();
    let read = ReadOptions::new()
        .with_dialect(if flags & 1 == 0 {
            Dialect::Godot4
        } else {
            Dialect::Godot3
        })
        .with_full_objects(flags & 2 != 0);
    let opts = FrameOptions::new()
        .with_endian(if flags & 4 == 0 {
            Endian::Little
        } else {
            Endian::Big
        })
        .with_max_frame(max)
        .with_read_options(read)
        .with_allow_trailing(flags & 8 != 0);
    let whole: Vec<Got> = frames(stream, &opts).map(got).collect();
    // Chunk sizes from a small PRNG: 0 to 16 bytes, or the rest.
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut dec = FrameDecoder::new(opts);
    let mut chunked: Vec<Got> = Vec::new();
    let mut rest = stream;
    let mut stuck = false;
    'feed: while !stuck {
        let r = next();
        let n = if r % 8 == 0 {
            rest.len()
        } else {
            (r % 17) as usize
        }
        .min(rest.len());
        let (mut input, after) = rest.split_at(n);
        rest = after;
        loop {
            match dec.decode(&mut input) {
                Ok(Decoded::NeedMore(k)) => {
                    assert!(input.is_empty() && k > 0, "NeedMore with input left");
                    break;
                }
                Ok(Decoded::Frame(v)) => chunked.push(got(Ok(v))),
                Err(e) => {
                    chunked.push(got(Err(e.clone())));
                    if e.kind() == (ErrorKind::FrameTooLarge { len: 0, max: 0 })
                        || matches!(e.kind(), ErrorKind::FrameTooLarge { .. })
                    {
                        stuck = true;
                        break 'feed;
                    }
                }
            }
        }
        if rest.is_empty() {
            break;
        }
    }
    if !stuck {
        if let Err(e) = dec.finish() {
            chunked.push(Got::Error(e.kind(), e.offset()));
        }
    }
    // The whole-buffer iterator stops at its first error; the decoder goes on after a bad
    // value (its frame is whole): compare up to the first error.
    let upto = |v: &[Got]| -> usize {
        v.iter()
            .position(|g| matches!(g, Got::Error(..)))
            .map_or(v.len(), |i| i + 1)
    };
    let n = upto(&whole);
    assert_eq!(
        &chunked[..upto(&chunked)],
        &whole[..n],
        "chunked vs whole ({opts:?})"
    );
    whole.iter().any(|g| matches!(g, Got::Frame(..)))
}

/// One container open in the model of [`writer_ops`].
enum Open {
    Array(TypeInfo, Vec<Variant>),
    Dict(TypeInfo, TypeInfo, Vec<Variant>),
    Object(String, Vec<(String, Variant)>, Option<String>),
}

/// Streaming writer operations vs `encode`: see the [module docs](self).
pub fn writer_ops(data: &[u8]) -> bool {
    let mut src = Src::new(data);
    let flags = src.byte();
    let dialect = if flags & 1 == 0 {
        Dialect::Godot4
    } else {
        Dialect::Godot3
    };
    let wide = flags & 4 != 0 && dialect == Dialect::Godot4;
    let opts = EncodeOptions::new()
        .with_dialect(dialect)
        .with_full_objects(flags & 2 != 0)
        .with_double_precision(flags & 4 != 0)
        .with_max_depth(if flags & 8 != 0 { 3 } else { 1024 });
    let mut w = Writer::new(opts);
    let mut model: Vec<Open> = Vec::new();
    let mut done: Vec<Variant> = Vec::new();
    let put = |model: &mut Vec<Open>, done: &mut Vec<Variant>, v: Variant| match model.last_mut() {
        None => done.push(v),
        Some(Open::Array(_, items)) | Some(Open::Dict(_, _, items)) => items.push(v),
        Some(Open::Object(_, props, name)) => props.push((name.take().unwrap_or_default(), v)),
    };
    let mut ops = 0;
    while !src.is_empty() && ops < 200 {
        ops += 1;
        let before = w.bytes().to_vec();
        let count = |src: &mut Src<'_>| {
            if src.bool() {
                None
            } else {
                Some(usize::from(src.below(4)))
            }
        };
        let res = match src.below(9) {
            0 => {
                let (t, n) = (src.type_info(), count(&mut src));
                w.begin_typed_array(&t, n)
                    .map(|()| model.push(Open::Array(t, Vec::new())))
            }
            1 => {
                let (k, v, n) = (src.type_info(), src.type_info(), count(&mut src));
                w.begin_typed_dictionary(&k, &v, n)
                    .map(|()| model.push(Open::Dict(k, v, Vec::new())))
            }
            2 => {
                let class = ["Node", "", "Resource"][src.below(3) as usize].to_string();
                let n = count(&mut src);
                w.begin_object(&class, n)
                    .map(|()| model.push(Open::Object(class, Vec::new(), None)))
            }
            3 => {
                let name = ["a", "script", ""][src.below(3) as usize].to_string();
                w.property(&name).map(|()| {
                    if let Some(Open::Object(_, _, n)) = model.last_mut() {
                        *n = Some(name);
                    }
                })
            }
            4 => w.end().map(|()| {
                let v = match model.pop() {
                    Some(Open::Array(t, items)) => Variant::Array(Array::typed(t, items)),
                    Some(Open::Dict(k, v, items)) => {
                        let mut it = items.into_iter();
                        let mut entries = Vec::new();
                        while let (Some(a), Some(b)) = (it.next(), it.next()) {
                            entries.push((a, b));
                        }
                        Variant::Dictionary(Dictionary::typed(k, v, entries))
                    }
                    Some(Open::Object(class, properties, _)) => {
                        Variant::from(Object::Full { class, properties })
                    }
                    None => Variant::Nil,
                };
                put(&mut model, &mut done, v);
            }),
            5 | 6 => {
                let v = src.leaf(wide);
                typed_leaf(&mut w, &v).map(|()| put(&mut model, &mut done, v))
            }
            7 => {
                let v = src.tree(3, wide);
                w.value(&v).map(|()| put(&mut model, &mut done, v))
            }
            _ => {
                let v = src.tree(3, wide);
                match encode_with(&v, &opts) {
                    Ok(b) => {
                        let read = ReadOptions::new()
                            .with_dialect(dialect)
                            .with_full_objects(opts.full_objects());
                        // (What the encoder writes but the reader refuses is another
                        // property: the encoder's checks.)
                        match parse_with(&b, &read).and_then(|r| Ok((r, RawValue::from_ref(&r)?))) {
                            Ok((r, raw)) => w
                                .raw(&r)
                                .map(|()| put(&mut model, &mut done, Variant::Raw(raw))),
                            Err(_) => Ok(()),
                        }
                    }
                    Err(_) => Ok(()),
                }
            }
        };
        if res.is_err() {
            assert_eq!(
                w.bytes(),
                &before[..],
                "a failed operation leaves the writer unchanged"
            );
        }
    }
    let open = !model.is_empty();
    match w.finish() {
        Ok(bytes) => {
            assert!(!open, "finish with open containers succeeded");
            let mut want = Vec::new();
            for v in &done {
                want.extend(encode_with(v, &opts).expect("what the writer wrote, encode writes"));
            }
            assert_eq!(bytes, want, "writer vs encode ({opts:?})");
            !done.is_empty()
        }
        Err(_) => {
            assert!(open, "finish failed with no open container");
            false
        }
    }
}

/// Writes a leaf through the writer's typed method.
fn typed_leaf(w: &mut Writer, v: &Variant) -> Result<()> {
    match v {
        Variant::Nil => w.nil(),
        Variant::Bool(b) => w.bool(*b),
        Variant::Int(i) => w.int(*i),
        Variant::Float(f) => w.float(*f),
        Variant::String(s) => w.string(s),
        Variant::StringName(s) => w.string_name(s),
        Variant::Vector2(x) => w.vector2(*x),
        Variant::Vector2i(x) => w.vector2i(*x),
        Variant::Rect2(x) => w.rect2(*x),
        Variant::Vector3(x) => w.vector3(*x),
        Variant::Transform2D(x) => w.transform2d(**x),
        Variant::Vector4(x) => w.vector4(*x),
        Variant::Quaternion(x) => w.quaternion(*x),
        Variant::Basis(x) => w.basis(**x),
        Variant::Projection(x) => w.projection(**x),
        Variant::Color(x) => w.color(*x),
        Variant::NodePath(np) => w.node_path(&np.names, &np.subnames, np.absolute),
        Variant::Rid(id) => w.rid(*id),
        Variant::Object(o) => match &**o {
            Object::Id(id) => w.object_id(*id),
            Object::Full { .. } => w.value(v),
        },
        Variant::Callable => w.callable(),
        Variant::Signal(s) => w.signal(&s.name, s.object_id),
        Variant::PackedByteArray(a) => w.packed_bytes(a),
        Variant::PackedInt64Array(a) => w.packed_i64(a),
        Variant::PackedFloat32Array(a) => w.packed_f32(a),
        Variant::PackedStringArray(a) => w.packed_strings(a),
        Variant::PackedVector3Array(a) => w.packed_vector3(a),
        other => w.value(other),
    }
}
