//! Reading the JSON form back into a [`Variant`], or straight into its encoded bytes.
//!
//! The reader is iterative (nesting costs heap, never native stack) and refuses whatever
//! [`validate_with`](crate::validate_with) would refuse in the bytes of the value read, with the
//! same options (see [`from_str_with`]).

use std::string::String;
use std::vec::Vec;

use crate::build::{Builder, Bytes, Fail, Open, Sink, Tree};
use crate::encode::EncodeOptions;
use crate::error::{ParseError, Syntax};
use crate::literal::{excerpt, node_path};
use crate::math::*;
use crate::owned::{NodePath, Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};

type R<T = ()> = core::result::Result<T, Fail>;

fn fail<T>(offset: usize, message: impl Into<String>) -> R<T> {
    crate::build::fail(offset, message)
}

/// Reads one JSON value of the [schema](super) into a [`Variant`].
///
/// ```
/// use gdvariant::{json, Variant, math::Vector2i};
/// assert_eq!(json::from_str("{\"$Vector2i\": [1, -2]}")?, Variant::Vector2i(Vector2i::new(1, -2)));
/// assert_eq!(json::from_str("[1, 2.0]")?, Variant::from(vec![Variant::Int(1), Variant::Float(2.0)]));
/// # Ok::<(), gdvariant::json::ParseError>(())
/// ```
///
/// Full objects are read; the depth limit is the engine's (1024). It is [`from_str_with`] with
/// `ReadOptions::new().with_full_objects(true)`.
pub fn from_str(input: &str) -> core::result::Result<Variant, ParseError> {
    from_str_with(input, &ReadOptions::new().with_full_objects(true))
}

/// Reads one JSON value, refusing (with an error at the value) whatever
/// [`validate_with`](crate::validate_with) with the same options would refuse in its bytes: a
/// value deeper than [`ReadOptions::max_depth`], a type or a typed container the dialect does
/// not have, a full object unless [`ReadOptions::full_objects`], an Object without a class
/// that has properties, a Godot 4 `script` property that is not null or a `res://` path, and
/// (with objects) a script-typed container whose path is not `res://`.
///
/// ```
/// use gdvariant::{json, Dialect, ReadOptions};
/// let g3 = ReadOptions::new().with_dialect(Dialect::Godot3);
/// let e = json::from_str_with("[1, {\"$Vector4i\": [1, 2, 3, 4]}]", &g3).unwrap_err();
/// assert_eq!((e.offset, e.message.as_str()), (4, "a Vector4i cannot be written in the Godot 3 dialect"));
/// ```
pub fn from_str_with(input: &str, opts: &ReadOptions) -> core::result::Result<Variant, ParseError> {
    let (mut v, _) = values(input, *opts)?;
    if v.len() != 1 {
        return Err(ParseError {
            message: format!("expected exactly one JSON value, found {}", v.len()),
            offset: 0,
            syntax: Syntax::Json,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of JSON values separated by whitespace (JSON Lines, or values one after the
/// other), and tells whether any of them carries `"$f64": true` (components written in double
/// precision): then the values should be encoded in double precision (the components of the
/// others were read as `f32` and stay exact in `f64`). Full objects are read, as [`from_str`].
pub fn from_str_values(input: &str) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    from_str_values_with(input, &ReadOptions::new().with_full_objects(true))
}

/// [`from_str_values`] with the checks of [`from_str_with`].
pub fn from_str_values_with(
    input: &str,
    opts: &ReadOptions,
) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    values(input, *opts)
}

fn values(
    input: &str,
    opts: ReadOptions,
) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    let mut p = P::new(input);
    let mut b = Builder::new(Tree::default(), opts);
    let mut out = Vec::new();
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
        crate::reader::work(p.i - from);
        out.extend(b.sink.take());
    }
    Ok((out, p.wide))
}

/// Reads one JSON value and returns its encoding with `opts`, without building a tree: the
/// bytes [`encode_with`](crate::encode_with) writes for [`from_str_with`]'s value (read with the
/// options' dialect, depth limit and object policy). Values that carry `"$f64": true` make the
/// encoding double precision, as `gdvariant encode --from json` does (see
/// [`from_str_values`]). Memory: the output, plus a few words for each entry of each open
/// Dictionary.
///
/// ```
/// use gdvariant::{json, EncodeOptions};
/// let bytes = json::to_bytes("{\"a\": [1, 2.5]}", &EncodeOptions::new()).unwrap();
/// assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
/// ```
pub fn to_bytes(input: &str, opts: &EncodeOptions) -> core::result::Result<Vec<u8>, ParseError> {
    crate::build::exactly_one("JSON value", Syntax::Json, |each| drive(input, opts, each))
}

/// Reads a sequence of JSON values and hands each one's encoding to `each`, in order, without
/// building trees (see [`to_bytes`]); all are written in double precision if any carries
/// `"$f64": true`. Returns how many.
pub fn to_bytes_each(
    input: &str,
    opts: &EncodeOptions,
    mut each: impl FnMut(&[u8]),
) -> core::result::Result<usize, ParseError> {
    drive(input, opts, |b| b.with_value(&mut each))
}

/// Reads the values of `input` into a [`Bytes`] builder, calling `done` after each one.
fn drive(
    input: &str,
    opts: &EncodeOptions,
    mut done: impl FnMut(&mut Bytes),
) -> core::result::Result<usize, ParseError> {
    let read = ReadOptions::new()
        .with_dialect(opts.dialect())
        .with_max_depth(opts.max_depth())
        .with_full_objects(opts.full_objects());
    let mut opts = *opts;
    // Only a `"$f64": true` makes a difference: look for it first (a quick scan, then a
    // reading pass without output if the text holds the word at all).
    if !opts.double_precision() && memchr::memmem::find(input.as_bytes(), b"$f64").is_some() {
        let mut p = P::new(input);
        let mut b = Builder::new(Ignore, read);
        while p.more() {
            let from = p.i;
            p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
            crate::reader::work(p.i - from);
        }
        opts = opts.with_double_precision(p.wide);
    }
    let mut p = P::new(input);
    let mut b = Builder::new(Bytes::new(opts), read);
    let mut n = 0;
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
        crate::reader::work(p.i - from);
        done(&mut b.sink);
        n += 1;
    }
    Ok(n)
}

/// A sink that keeps nothing (the checks still run).
struct Ignore;

impl Sink for Ignore {
    fn leaf(&mut self, _: Variant, _: usize, _: usize) -> R {
        Ok(())
    }
    fn begin(&mut self, _: Open, _: usize, _: usize) -> R {
        Ok(())
    }
    fn property(&mut self, _: String, _: usize) -> R {
        Ok(())
    }
    fn set_types(&mut self, _: TypeInfo, _: TypeInfo, _: usize) -> R {
        Ok(())
    }
    fn keep_all(&mut self, _: usize) -> R {
        Ok(())
    }
    fn end(&mut self, _: usize) -> R {
        Ok(())
    }
}

// ----- the non-finite numbers -----

/// The JSON text of a NaN whose bits are `bits` in a `width`-bit context (32 or 64): `"nan"`
/// (the positive quiet NaN with no payload), `"-nan"` (its negative), else `"nan(0x…)"` with
/// the exact bits in hex (8 or 16 digits).
pub(crate) fn nan_text(bits: u64, width: u32) -> String {
    let (quiet, sign) = if width == 32 {
        (0x7FC0_0000, 0x8000_0000)
    } else {
        (0x7FF8_0000_0000_0000, 0x8000_0000_0000_0000)
    };
    if bits == quiet {
        "nan".into()
    } else if bits == quiet | sign {
        "-nan".into()
    } else {
        format!("nan(0x{bits:0w$x})", w = (width / 4) as usize)
    }
}

/// The bits of a non-finite number's text in a `width`-bit context (see [`nan_text`]).
fn nonfinite(s: &str, width: u32) -> Option<u64> {
    let wide = width == 64;
    Some(match s {
        "inf" if wide => f64::INFINITY.to_bits(),
        "-inf" if wide => f64::NEG_INFINITY.to_bits(),
        "inf" => u64::from(f32::INFINITY.to_bits()),
        "-inf" => u64::from(f32::NEG_INFINITY.to_bits()),
        _ => {
            let (quiet, sign, digits) = if wide {
                (0x7FF8_0000_0000_0000u64, 0x8000_0000_0000_0000u64, 16)
            } else {
                (0x7FC0_0000, 0x8000_0000, 8)
            };
            match s {
                "nan" => quiet,
                "-nan" => quiet | sign,
                _ => {
                    let hex = s.strip_prefix("nan(0x")?.strip_suffix(')')?;
                    if hex.len() != digits || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                        return None;
                    }
                    let bits = u64::from_str_radix(hex, 16).ok()?;
                    let is_nan = if wide {
                        f64::from_bits(bits).is_nan()
                    } else {
                        f32::from_bits(bits as u32).is_nan()
                    };
                    if !is_nan {
                        return None;
                    }
                    bits
                }
            }
        }
    })
}

// ----- the parser -----

/// What a tagged value's body was read into, waiting for the keys after it (`"$f64"`).
enum Pending {
    Ready(Variant),
    /// A real-valued math type: components read both ways, chosen by `"$f64"`.
    Reals {
        tag: Tag,
        wide: Vec<f64>,
        narrow: Vec<f32>,
    },
}

/// The real-valued tags whose components depend on `"$f64"`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Vector2,
    Rect2,
    Vector3,
    Transform2D,
    Vector4,
    Plane,
    Quaternion,
    Aabb,
    Basis,
    Transform3D,
    Projection,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
}

impl Tag {
    fn of(name: &str) -> Option<(Tag, usize)> {
        Some(match name {
            "Vector2" => (Tag::Vector2, 2),
            "Rect2" => (Tag::Rect2, 4),
            "Vector3" => (Tag::Vector3, 3),
            "Transform2D" => (Tag::Transform2D, 6),
            "Vector4" => (Tag::Vector4, 4),
            "Plane" => (Tag::Plane, 4),
            "Quaternion" => (Tag::Quaternion, 4),
            "AABB" => (Tag::Aabb, 6),
            "Basis" => (Tag::Basis, 9),
            "Transform3D" => (Tag::Transform3D, 12),
            "Projection" => (Tag::Projection, 16),
            "PackedVector2Array" => (Tag::PackedVector2Array, 2),
            "PackedVector3Array" => (Tag::PackedVector3Array, 3),
            "PackedVector4Array" => (Tag::PackedVector4Array, 4),
            _ => return None,
        })
    }

    fn packed(self) -> bool {
        matches!(
            self,
            Tag::PackedVector2Array | Tag::PackedVector3Array | Tag::PackedVector4Array
        )
    }
}

fn arr<const N: usize>(x: &[f64]) -> [f64; N] {
    let mut a = [0.0; N];
    a.copy_from_slice(&x[..N]);
    a
}

impl Pending {
    fn finish(self, single: bool) -> Variant {
        let (tag, wide, narrow) = match self {
            Pending::Ready(v) => return v,
            Pending::Reals { tag, wide, narrow } => (tag, wide, narrow),
        };
        let x: Vec<f64> = if single {
            narrow.into_iter().map(crate::math::widen).collect()
        } else {
            wide
        };
        fn chunks<const N: usize, V>(x: &[f64], make: fn([f64; N]) -> V) -> Vec<V> {
            x.chunks_exact(N).map(|c| make(arr(c))).collect()
        }
        match tag {
            Tag::Vector2 => Variant::Vector2(Vector2::from_array(arr(&x))),
            Tag::Rect2 => Variant::Rect2(Rect2::from_array(arr(&x))),
            Tag::Vector3 => Variant::Vector3(Vector3::from_array(arr(&x))),
            Tag::Transform2D => Variant::from(Transform2D::from_array(arr(&x))),
            Tag::Vector4 => Variant::Vector4(Vector4::from_array(arr(&x))),
            Tag::Plane => Variant::Plane(Plane::from_array(arr(&x))),
            Tag::Quaternion => Variant::Quaternion(Quaternion::from_array(arr(&x))),
            Tag::Aabb => Variant::from(Aabb::from_array(arr(&x))),
            Tag::Basis => Variant::from(Basis::from_array(arr(&x))),
            Tag::Transform3D => Variant::from(Transform3D::from_array(arr(&x))),
            Tag::Projection => Variant::from(Projection::from_array(arr(&x))),
            Tag::PackedVector2Array => Variant::PackedVector2Array(chunks(&x, Vector2::from_array)),
            Tag::PackedVector3Array => Variant::PackedVector3Array(chunks(&x, Vector3::from_array)),
            Tag::PackedVector4Array => Variant::PackedVector4Array(chunks(&x, Vector4::from_array)),
        }
    }
}

/// What the keys after a tagged value's body apply to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extras {
    Array,
    Dict,
    Object,
}

/// An open JSON container.
enum Frame {
    /// A plain array (a Variant Array).
    Arr { first: bool },
    /// A plain object (a Dictionary with String keys).
    Obj,
    /// The elements of `{"$Array": [...]}`.
    TArr { first: bool },
    /// The pairs of `{"$Dictionary": [...]}`.
    TDict { first: bool },
    /// One `[key, value]` pair; `key`: whether the element just read was the key.
    Pair { key: bool },
    /// The properties of `{"$Object": {"class": ..., "properties": [...]}}`.
    TObj { first: bool },
    /// One `["name", value]` property.
    Prop,
    /// The rest of an `$Object` body after its properties.
    ObjBody,
    /// The keys after a tagged container's body, then its end.
    Extras(Extras),
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    /// Whether a value carried `"$f64": true`.
    wide: bool,
}

impl<'a> P<'a> {
    fn new(input: &'a str) -> P<'a> {
        P {
            s: input.as_bytes(),
            i: 0,
            wide: false,
        }
    }

    fn more(&mut self) -> bool {
        self.ws();
        self.i < self.s.len()
    }

    fn err<T>(&self, m: impl Into<String>) -> R<T> {
        fail(self.i, m)
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> R {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected {what}"))
        }
    }

    fn hex4(&mut self) -> R<u32> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| core::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match h {
            Some(v) => {
                self.i += 4;
                Ok(v)
            }
            None => self.err("bad \\u escape"),
        }
    }

    /// A JSON string (the cursor on its opening quote or whitespace before it).
    fn string(&mut self) -> R<String> {
        if self.peek() != Some(b'"') {
            return self.err("expected a string");
        }
        let open = self.i;
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let run = self.s[self.i..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(self.s.len() - self.i);
            out.extend_from_slice(&self.s[self.i..self.i + run]);
            self.i += run;
            let Some(&c) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            if c < 0x20 {
                return self.err("control character in string");
            }
            self.i += 1;
            if c == b'"' {
                break;
            }
            let Some(&e) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            self.i += 1;
            let ch = match e {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = self.hex4()?;
                    let cp = if (0xD800..0xDC00).contains(&hi)
                        && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                    {
                        self.i += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return self.err("bad surrogate pair");
                        }
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    } else {
                        hi
                    };
                    match char::from_u32(cp) {
                        Some(ch) => ch,
                        None => return self.err("bad \\u escape"),
                    }
                }
                _ => return self.err("bad escape"),
            };
            let mut b = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
        }
        // The engine's strings end at their first NUL: such a string cannot be written as it
        // reads, so the reader refuses it (as the writers do).
        if out.contains(&0) {
            return fail(open, "NUL in a string (the engine's text would end there)");
        }
        // The input is a &str, runs end at ASCII bytes and escapes produce whole characters.
        Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into()))
    }

    /// A number token, checked to be a number.
    fn number(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        match self.s.get(self.i) {
            Some(c) if *c == b'-' || c.is_ascii_digit() => {}
            _ => return self.err("expected a number"),
        }
        self.i += 1;
        while self.i < self.s.len()
            && matches!(
                self.s[self.i],
                b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'
            )
        {
            self.i += 1;
        }
        let t = core::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        if !is_json_number(t.as_bytes()) {
            self.i = start;
            return self.err(format!("bad number '{}'", excerpt(t)));
        }
        // A finite decimal too large for an f64 is not read as an infinity: the printer writes
        // infinities as `{"$float":"inf"}`, and strict JSON readers refuse such numbers.
        if t.parse::<f64>().map_or(true, f64::is_infinite) {
            self.i = start;
            return self.err(format!("number out of range '{}'", excerpt(t)));
        }
        Ok(t)
    }

    fn int(&mut self) -> R<i64> {
        self.ws();
        let at = self.i;
        let t = self.number()?;
        t.parse::<i64>()
            .or_else(|_| fail(at, "expected an integer (64-bit)"))
    }

    fn uint(&mut self, what: &str) -> R<u64> {
        self.ws();
        let at = self.i;
        let t = self.number()?;
        t.parse::<u64>()
            .or_else(|_| fail(at, format!("bad {what}")))
    }

    /// A real: a number, or a non-finite word in a `width`-bit context; `(f64, f32)` read from
    /// the decimal each way (the f32 straight from the decimal, no double rounding).
    fn real(&mut self) -> R<(f64, f32)> {
        self.ws();
        let at = self.i;
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            let w = nonfinite(&s, 64);
            let n = nonfinite(&s, 32);
            return match (w, n) {
                // "nan(0x…)" is of one width only: the other reading is its conversion.
                (Some(w), Some(n)) => Ok((f64::from_bits(w), f32::from_bits(n as u32))),
                (Some(w), None) => Ok((f64::from_bits(w), crate::math::narrow(f64::from_bits(w)))),
                (None, Some(n)) => {
                    let f = f32::from_bits(n as u32);
                    Ok((crate::math::widen(f), f))
                }
                (None, None) => fail(at, format!("bad number '{}'", excerpt(&s))),
            };
        }
        let t = self.number()?;
        let w = t.parse::<f64>().or_else(|_| fail(at, "bad number"))?;
        let n = t.parse::<f32>().or_else(|_| fail(at, "bad number"))?;
        Ok((w, n))
    }

    fn real64(&mut self) -> R<f64> {
        self.ws();
        let at = self.i;
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            return nonfinite(&s, 64)
                .map(f64::from_bits)
                .map_or_else(|| fail(at, format!("bad number '{}'", excerpt(&s))), Ok);
        }
        let t = self.number()?;
        t.parse::<f64>().or_else(|_| fail(at, "bad number"))
    }

    fn real32(&mut self) -> R<f32> {
        self.ws();
        let at = self.i;
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            return nonfinite(&s, 32)
                .map(|b| f32::from_bits(b as u32))
                .map_or_else(|| fail(at, format!("bad number '{}'", excerpt(&s))), Ok);
        }
        let t = self.number()?;
        match t.parse::<f32>() {
            Ok(f) if f.is_infinite() => fail(at, format!("number out of range '{}'", excerpt(t))),
            Ok(f) => Ok(f),
            Err(_) => fail(at, "bad number"),
        }
    }

    /// `[x, y, ...]`: each element read by `f`.
    fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        self.expect(b'[', "'['")?;
        let mut out = Vec::new();
        if self.eat(b']') {
            return Ok(out);
        }
        loop {
            out.push(f(self)?);
            if self.eat(b',') {
                continue;
            }
            self.expect(b']', "',' or ']'")?;
            return Ok(out);
        }
    }

    /// `[a, b, ...]` of exactly `N` elements.
    fn fixed<T: Copy + Default, const N: usize>(
        &mut self,
        f: impl FnMut(&mut Self) -> R<T>,
    ) -> R<[T; N]> {
        self.ws();
        let at = self.i;
        let v = self.list(f)?;
        if v.len() != N {
            return fail(at, format!("expected {N} components"));
        }
        let mut a = [T::default(); N];
        a.copy_from_slice(&v);
        Ok(a)
    }

    fn i32_of(&mut self, what: &str) -> R<i32> {
        self.ws();
        let at = self.i;
        let x = self.int()?;
        i32::try_from(x).or_else(|_| fail(at, format!("{what} out of range")))
    }

    /// A container type: a builtin name, `"Variant"`, `{"class": ...}` or `{"script": ...}`.
    fn type_info(&mut self) -> R<TypeInfo> {
        self.ws();
        let at = self.i;
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            if s == "Variant" {
                return Ok(TypeInfo::None);
            }
            return match Dialect::Godot4.types().find(|t| t.name() == s) {
                Some(t) => Ok(TypeInfo::Builtin(t)),
                None => fail(at, format!("unknown type name '{}'", excerpt(&s))),
            };
        }
        if self.eat(b'{') {
            self.ws();
            let kat = self.i;
            let k = self.string()?;
            self.expect(b':', "':'")?;
            let v = self.string()?;
            self.expect(b'}', "'}'")?;
            return match k.as_str() {
                "class" => Ok(TypeInfo::ClassName(v)),
                "script" => Ok(TypeInfo::Script(v)),
                _ => fail(kat, format!("unexpected key '{}' in a type", excerpt(&k))),
            };
        }
        fail(
            at,
            "expected a type: a name, {\"class\": ...} or {\"script\": ...}",
        )
    }

    /// A literal `true` or `false`.
    fn boolean(&mut self) -> R<bool> {
        self.ws();
        if self.s[self.i..].starts_with(b"true") {
            self.i += 4;
            Ok(true)
        } else if self.s[self.i..].starts_with(b"false") {
            self.i += 5;
            Ok(false)
        } else {
            self.err("expected true or false")
        }
    }

    /// The keys after a tagged value's body, up to its closing `}`: `"$f64"`, `"$type"`,
    /// `"$key"`, `"$value"`, `"$repeated"`. Returns `(types, f64, repeated)`.
    fn extras(&mut self) -> R<((TypeInfo, TypeInfo), bool, bool)> {
        let mut types = (TypeInfo::None, TypeInfo::None);
        let (mut wide, mut repeated) = (false, false);
        while self.eat(b',') {
            self.ws();
            let at = self.i;
            let k = self.string()?;
            self.expect(b':', "':'")?;
            match k.as_str() {
                "$f64" => wide = self.boolean()?,
                "$repeated" => repeated = self.boolean()?,
                "$type" | "$key" => types.0 = self.type_info()?,
                "$value" => types.1 = self.type_info()?,
                _ => {
                    return fail(
                        at,
                        format!("unexpected key '{}' in a tagged value", excerpt(&k)),
                    )
                }
            }
        }
        self.expect(b'}', "',' or '}'")?;
        if wide {
            self.wide = true;
        }
        Ok((types, wide, repeated))
    }

    /// Reads one whole JSON value into `b`.
    fn value<S: Sink>(&mut self, b: &mut Builder<S>) -> R {
        let mut frames: Vec<Frame> = Vec::new();
        'value: loop {
            if let Some(f) = self.start(b, &mut frames)? {
                frames.push(f);
            }
            loop {
                let Some(top) = frames.last_mut() else {
                    return Ok(());
                };
                match top {
                    Frame::Arr { first } | Frame::TArr { first } => {
                        if core::mem::take(first) {
                            if !self.eat(b']') {
                                continue 'value;
                            }
                        } else if self.eat(b',') {
                            continue 'value;
                        } else {
                            self.expect(b']', "',' or ']'")?;
                        }
                        if matches!(top, Frame::Arr { .. }) {
                            b.end(self.i)?;
                        }
                    }
                    Frame::Obj => {
                        if b.wants_key() {
                            // A value is complete: another key, or the end.
                            if self.eat(b',') {
                                self.ws();
                                let at = self.i;
                                let k = self.string()?;
                                self.expect(b':', "':'")?;
                                b.leaf(Variant::String(k.into()), at)?;
                                continue 'value;
                            }
                            self.expect(b'}', "',' or '}'")?;
                            b.end(self.i)?;
                        } else {
                            continue 'value;
                        }
                    }
                    Frame::TDict { first } => {
                        let go = if core::mem::take(first) {
                            !self.eat(b']')
                        } else if self.eat(b',') {
                            true
                        } else {
                            self.expect(b']', "',' or ']'")?;
                            false
                        };
                        if go {
                            self.expect(b'[', "'[' (a [key, value] pair)")?;
                            frames.push(Frame::Pair { key: true });
                            continue 'value;
                        }
                    }
                    Frame::Pair { key } => {
                        if core::mem::take(key) {
                            self.expect(b',', "',' (a [key, value] pair)")?;
                            continue 'value;
                        }
                        self.expect(b']', "']' (a [key, value] pair)")?;
                    }
                    Frame::TObj { first } => {
                        let go = if core::mem::take(first) {
                            !self.eat(b']')
                        } else if self.eat(b',') {
                            true
                        } else {
                            self.expect(b']', "',' or ']'")?;
                            false
                        };
                        if go {
                            self.expect(b'[', "'[' (a [name, value] pair)")?;
                            self.ws();
                            let at = self.i;
                            let name = self.string()?;
                            self.expect(b',', "','")?;
                            b.property(name, at)?;
                            frames.push(Frame::Prop);
                            continue 'value;
                        }
                    }
                    Frame::Prop => self.expect(b']', "']' (a [name, value] pair)")?,
                    Frame::ObjBody => self.expect(b'}', "'}'")?,
                    Frame::Extras(kind) => {
                        let kind = *kind;
                        let at = self.i;
                        let (types, _, repeated) = self.extras()?;
                        if kind != Extras::Object && types != (TypeInfo::None, TypeInfo::None) {
                            b.set_types(types.0, types.1, at)?;
                        }
                        if kind == Extras::Dict && repeated {
                            b.keep_all(at)?;
                        }
                        b.end(self.i)?;
                    }
                }
                frames.pop();
            }
        }
    }

    /// Reads the start of a value: a whole value that holds no other value, or the opening of a
    /// container (the frames to push are pushed, the innermost returned).
    fn start<S: Sink>(&mut self, b: &mut Builder<S>, frames: &mut Vec<Frame>) -> R<Option<Frame>> {
        self.ws();
        let at = self.i;
        let leaf = |b: &mut Builder<S>, v: Variant| b.leaf(v, at).map(|()| None);
        match self.s.get(self.i) {
            None => self.err("unexpected end of JSON"),
            Some(b'[') => {
                self.i += 1;
                b.begin(Open::Array(TypeInfo::None), at)?;
                Ok(Some(Frame::Arr { first: true }))
            }
            Some(b'{') => {
                self.i += 1;
                if self.eat(b'}') {
                    b.begin(plain_dict(), at)?;
                    b.end(self.i)?;
                    return Ok(None);
                }
                self.ws();
                let kat = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                if let Some(tag) = k.strip_prefix('$') {
                    return self.tagged(b, frames, tag, at, kat);
                }
                b.begin(plain_dict(), at)?;
                b.leaf(Variant::String(k.into()), kat)?;
                Ok(Some(Frame::Obj))
            }
            Some(b'"') => {
                let s = self.string()?;
                leaf(b, Variant::String(s.into()))
            }
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                leaf(b, Variant::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                leaf(b, Variant::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                leaf(b, Variant::Nil)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let t = self.number()?;
                let v = if t.contains(['.', 'e', 'E']) {
                    match t.parse() {
                        Ok(x) => Variant::Float(x),
                        Err(_) => return fail(at, "bad number"),
                    }
                } else {
                    match t.parse() {
                        Ok(x) => Variant::Int(x),
                        Err(_) => return fail(at, "integer out of 64-bit range"),
                    }
                };
                leaf(b, v)
            }
            Some(_) => self.err("unexpected character"),
        }
    }

    /// `{"$Tag": body, ...}` with `"$Tag":` read (`at`: the object, `kat`: the tag).
    fn tagged<S: Sink>(
        &mut self,
        b: &mut Builder<S>,
        frames: &mut Vec<Frame>,
        tag: &str,
        at: usize,
        kat: usize,
    ) -> R<Option<Frame>> {
        self.ws();
        let vat = self.i;
        match tag {
            "Array" => {
                self.expect(b'[', "an array")?;
                b.begin(Open::Array(TypeInfo::None), at)?;
                frames.push(Frame::Extras(Extras::Array));
                return Ok(Some(Frame::TArr { first: true }));
            }
            "Dictionary" => {
                self.expect(b'[', "an array of [key, value] pairs")?;
                b.begin(plain_dict(), at)?;
                frames.push(Frame::Extras(Extras::Dict));
                return Ok(Some(Frame::TDict { first: true }));
            }
            "Object" => return self.object(b, frames, at),
            _ => {}
        }
        let pending = match Tag::of(tag) {
            Some((t, n)) => {
                let pairs = if t.packed() {
                    let mut flat = Vec::new();
                    self.list(|p| {
                        p.ws();
                        let at = p.i;
                        let c = p.list(P::real)?;
                        if c.len() != n {
                            return fail(at, format!("expected {n} components"));
                        }
                        flat.extend_from_slice(&c);
                        Ok(())
                    })?;
                    flat
                } else {
                    let at = self.i;
                    let v = self.list(P::real)?;
                    if v.len() != n {
                        return fail(at, format!("expected {n} components"));
                    }
                    v
                };
                let (wide, narrow) = pairs.into_iter().unzip();
                Pending::Reals {
                    tag: t,
                    wide,
                    narrow,
                }
            }
            None => Pending::Ready(self.leaf_body(tag, kat, vat)?),
        };
        let (_, wide, _) = self.extras()?;
        b.leaf(pending.finish(!wide), at)?;
        Ok(None)
    }

    /// The body of a tagged value that is not a container nor a real-valued math type.
    fn leaf_body(&mut self, tag: &str, kat: usize, vat: usize) -> R<Variant> {
        Ok(match tag {
            "float" => Variant::Float(self.real64()?),
            "Vector2i" => {
                Variant::Vector2i(Vector2i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Rect2i" => Variant::Rect2i(Rect2i::from_array(self.fixed(|p| p.i32_of("component"))?)),
            "Vector3i" => {
                Variant::Vector3i(Vector3i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Vector4i" => {
                Variant::Vector4i(Vector4i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Color" => Variant::Color(Color::from_array(self.fixed(P::real32)?)),
            "StringName" => Variant::StringName(self.string()?.into()),
            "NodePath" => {
                if self.peek() == Some(b'{') {
                    Variant::from(self.node_path_parts()?)
                } else {
                    Variant::from(node_path(&self.string()?))
                }
            }
            "RID" => Variant::Rid(self.uint("RID id")?),
            "ObjectId" => Variant::from(Object::Id(self.uint("object id")?)),
            "Callable" => {
                self.ws();
                if !self.s[self.i..].starts_with(b"null") {
                    return self.err("expected null");
                }
                self.i += 4;
                Variant::Callable
            }
            "Signal" => {
                self.expect(b'{', "{\"name\": ..., \"object\": ...}")?;
                let mut sig = Signal::default();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let at = self.i;
                        let k = self.string()?;
                        self.expect(b':', "':'")?;
                        match k.as_str() {
                            "name" => sig.name = self.string()?,
                            "object" => sig.object_id = self.uint("object id")?,
                            _ => {
                                return fail(
                                    at,
                                    format!("unexpected key '{}' in a Signal", excerpt(&k)),
                                )
                            }
                        }
                        if self.eat(b',') {
                            continue;
                        }
                        self.expect(b'}', "',' or '}'")?;
                        break;
                    }
                }
                Variant::Signal(sig)
            }
            "PackedByteArray" => Variant::PackedByteArray(self.list(|p| {
                p.ws();
                let at = p.i;
                let x = p.int()?;
                u8::try_from(x).or_else(|_| fail(at, "byte out of range"))
            })?),
            "PackedInt32Array" => Variant::PackedInt32Array(self.list(|p| p.i32_of("element"))?),
            "PackedInt64Array" => Variant::PackedInt64Array(self.list(P::int)?),
            "PackedFloat32Array" => Variant::PackedFloat32Array(self.list(P::real32)?),
            "PackedFloat64Array" => Variant::PackedFloat64Array(self.list(P::real64)?),
            "PackedStringArray" => {
                Variant::PackedStringArray(self.list(|p| p.string().map(Into::into))?)
            }
            "PackedColorArray" => {
                Variant::PackedColorArray(self.list(|p| p.fixed(P::real32).map(Color::from_array))?)
            }
            other => {
                let _ = vat;
                return fail(kat, format!("unknown tag '${}'", excerpt(other)));
            }
        })
    }

    /// `{"names": [...], "subnames": [...], "absolute": bool}`.
    fn node_path_parts(&mut self) -> R<NodePath> {
        self.expect(b'{', "'{'")?;
        let mut np = NodePath::default();
        if !self.eat(b'}') {
            loop {
                self.ws();
                let at = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                match k.as_str() {
                    "names" => np.names = self.list(P::string)?,
                    "subnames" => np.subnames = self.list(P::string)?,
                    "absolute" => np.absolute = self.boolean()?,
                    _ => {
                        return fail(
                            at,
                            format!("unexpected key '{}' in a NodePath", excerpt(&k)),
                        )
                    }
                }
                if self.eat(b',') {
                    continue;
                }
                self.expect(b'}', "',' or '}'")?;
                break;
            }
        }
        Ok(np)
    }

    /// `{"$Object": {"class": "Node", "properties": [["name", value], ...]}}`, `"$Object":`
    /// read. The class comes first; an empty class is the null object, without properties.
    fn object<S: Sink>(
        &mut self,
        b: &mut Builder<S>,
        frames: &mut Vec<Frame>,
        at: usize,
    ) -> R<Option<Frame>> {
        self.expect(b'{', "{\"class\": ..., \"properties\": [...]}")?;
        self.ws();
        let kat = self.i;
        let mut class = String::new();
        let mut has_props = false;
        if !self.eat(b'}') {
            let k = self.string()?;
            self.expect(b':', "':'")?;
            match k.as_str() {
                "class" => class = self.string()?,
                "properties" => {
                    return fail(kat, "expected \"class\" before \"properties\" in an Object")
                }
                _ => {
                    return fail(
                        kat,
                        format!("unexpected key '{}' in an Object", excerpt(&k)),
                    )
                }
            }
            if self.eat(b',') {
                self.ws();
                let pat = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                if k != "properties" {
                    return fail(
                        pat,
                        format!("unexpected key '{}' in an Object", excerpt(&k)),
                    );
                }
                self.expect(b'[', "an array of [name, value] pairs")?;
                has_props = true;
            } else {
                self.expect(b'}', "',' or '}'")?;
            }
        }
        if class.is_empty() {
            // The null object: nothing else may follow.
            if has_props {
                if !self.eat(b']') {
                    return fail(kat, "a null Object (empty class) has no properties");
                }
                self.expect(b'}', "'}'")?;
            }
            let (_, _, _) = self.extras()?;
            b.leaf(
                Variant::from(Object::Full {
                    class,
                    properties: Vec::new(),
                }),
                at,
            )?;
            return Ok(None);
        }
        b.begin(Open::Object(class), at)?;
        frames.push(Frame::Extras(Extras::Object));
        if !has_props {
            return Ok(None);
        }
        frames.push(Frame::ObjBody);
        Ok(Some(Frame::TObj { first: true }))
    }
}

/// An untyped Dictionary (its types may come after its pairs) that merges repeated keys (unless
/// `"$repeated": true` follows) by Godot 4's key identity, whatever the dialect written: the
/// JSON form is the same for both dialects.
fn plain_dict() -> Open {
    Open::Dict {
        key: TypeInfo::None,
        value: TypeInfo::None,
        merge: Some(Dialect::Godot4),
    }
}

/// Whether `t` is a number by JSON's grammar (RFC 8259 §6):
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` — no leading zeros, no bare `.`.
fn is_json_number(t: &[u8]) -> bool {
    fn digits(t: &[u8], i: &mut usize) -> usize {
        let start = *i;
        while t.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    }
    let mut i = usize::from(t.first() == Some(&b'-'));
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(t, &mut i);
        }
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        if digits(t, &mut i) == 0 {
            return false;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(t, &mut i) == 0 {
            return false;
        }
    }
    i == t.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_jsons_grammar_and_stay_finite() {
        for ok in [
            "0", "-0", "1", "10", "-12", "1.5", "0.25", "1e3", "1E+3", "2.5e-3", "-0.0e0",
        ] {
            assert!(is_json_number(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "1.e3", "--1", "1-2",
        ] {
            assert!(!is_json_number(bad.as_bytes()), "{bad}");
        }
        // Leading zeros and overflow to infinity are refused, with the offset of the number.
        for (input, msg) in [
            ("01", "bad number"),
            ("[1, 01]", "bad number"),
            ("1e400", "out of range"),
            ("-1e400", "out of range"),
        ] {
            let e = from_str(input).unwrap_err();
            assert!(e.to_string().contains(msg), "{input}: {e}");
        }
        // A NUL in a string is refused, by the tree and the bytes readers alike, at the string.
        for input in [
            r#""a\u0000b""#,
            r#"{"$Object":{"class":"Node","properties":[["a\u0000",1]]}}"#,
        ] {
            let e = from_str(input).unwrap_err();
            assert!(e.message.contains("NUL in a string"), "{e}");
            assert_eq!(
                to_bytes(
                    input,
                    &crate::encode::EncodeOptions::new().with_full_objects(true)
                )
                .unwrap_err()
                .message,
                e.message
            );
        }
        assert_eq!(from_str("1e300").unwrap(), Variant::Float(1e300));
        assert_eq!(
            from_str("[0, -0.5]").unwrap(),
            Variant::from(vec![Variant::Int(0), Variant::Float(-0.5)])
        );
        // A 32-bit context: a finite decimal beyond f32's range is refused, not read as inf.
        let e = from_str(r#"{"$PackedFloat32Array":[1e39]}"#).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }

    #[test]
    fn nan_texts_carry_the_bits() {
        for (bits, w) in [
            (0x7FF8_0000_0000_0000u64, 64),
            (0xFFF8_0000_0000_0000, 64),
            (0x7FF0_0000_0000_0001, 64),
            (0xFFF8_0000_0000_0042, 64),
            (0x7FC0_0000, 32),
            (0xFFC0_0000, 32),
            (0x7F80_0001, 32),
        ] {
            let t = nan_text(bits, w);
            assert_eq!(nonfinite(&t, w), Some(bits), "{t}");
        }
        assert_eq!(nan_text(0xFFF8_0000_0000_0000, 64), "-nan");
        assert_eq!(nonfinite("nan(0x7ff0000000000000)", 64), None); // infinity, not a NaN
        assert_eq!(nonfinite("nan(0x7fc00000)", 64), None); // wrong width
    }

    #[test]
    fn streaming_gives_the_tree_encoders_bytes() {
        let enc = EncodeOptions::new().with_full_objects(true);
        for json in [
            "{\"a\": 1, \"b\": [2], \"a\": {\"x\": 1, \"x\": 2}}",
            "{\"$Array\": [{\"$Array\": [1], \"$type\": {\"class\": \"Node\"}}], \"$type\": \"Array\"}",
            "{\"$Dictionary\": [[1, 2], [1, 3], [[1], 4]], \"$key\": \"Variant\", \"$value\": \"int\"}",
            "{\"$Dictionary\": [[1, 2], [1, 3]], \"$repeated\": true}",
            "{\"$Object\": {\"class\": \"Node\", \"properties\": [[\"a\", {\"$Array\": [], \"$type\": \"int\"}]]}}",
            "[{\"$Vector2\": [0.1, 0.2], \"$f64\": true}, {\"$PackedVector2Array\": [[0.5, \"-nan\"]]}]",
        ] {
            let tree = from_str(json).unwrap();
            let (_, wide) = from_str_values(json).unwrap();
            let want = crate::encode::encode_with(&tree, &enc.with_double_precision(wide)).unwrap();
            assert_eq!(to_bytes(json, &enc).unwrap(), want, "{json}");
        }
    }

    #[test]
    fn repeated_keys_are_kept_when_marked() {
        let v = from_str("{\"$Dictionary\": [[1, 2], [1, 3]], \"$repeated\": true}").unwrap();
        assert_eq!(v.as_dictionary().unwrap().entries.len(), 2);
        let v = from_str("{\"$Dictionary\": [[1, 2], [1, 3]]}").unwrap();
        assert_eq!(v.as_dictionary().unwrap().entries.len(), 1);
    }
}
