//! A lossless, typed JSON form of Variants, written from a lazy [`VariantRef`] and read back into
//! a [`Variant`].
//!
//! The common types map onto plain JSON so that `jq` paths read naturally
//! (`.entities[3].name`); everything else is a one-key object tagged with `$` and the type's
//! Godot 4 name (in both dialects).
//!
//! | Variant | JSON |
//! |---|---|
//! | Nil, bool | `null`, `true`, `false` |
//! | int | an integer, exact to 64 bits (`-9223372036854775808`) |
//! | float | a number that always has a `.` or an exponent (`1.0`, `0.1`, `1e+300`): the shortest decimal that reads back as the same `f64`; the encoder writes 4 bytes iff that is exact, as the engine does. NaN and infinities: `{"$float": "nan"}`, `"inf"`, `"-inf"` |
//! | String | a string |
//! | Array (untyped) | an array |
//! | Array (typed) | `{"$Array": [...], "$type": T}` |
//! | Dictionary whose keys are all Strings, none starting with `$`, untyped | an object, keys in insertion order |
//! | any other Dictionary | `{"$Dictionary": [[key, value], ...]}`, plus `"$key": T, "$value": T` when typed |
//! | Vector2, Rect2, Vector3, Transform2D, Vector4, Plane, Quaternion, AABB, Basis, Transform3D, Projection, Color | `{"$Vector3": [x, y, z]}`: components in wire order (Basis row-major) |
//! | Vector2i, Rect2i, Vector3i, Vector4i | `{"$Vector2i": [1, -2]}` |
//! | StringName, NodePath | `{"$StringName": "name"}`, `{"$NodePath": "/root/a:prop"}` |
//! | RID | `{"$RID": 81604378624}` |
//! | Object | `{"$ObjectId": 123}` (instance id), `{"$Object": {"class": "Node", "properties": [["name", value], ...]}}` (full object; class `""` is null) |
//! | Callable, Signal | `{"$Callable": null}`, `{"$Signal": {"name": "pressed", "object": 123}}` |
//! | Packed arrays | `{"$PackedInt32Array": [1, 2]}`, `{"$PackedByteArray": [1, 2]}`, `{"$PackedStringArray": ["a"]}`, `{"$PackedVector3Array": [[1.0, 2.0, 3.0]]}`, `{"$PackedColorArray": [[r, g, b, a]]}` |
//!
//! `T` (a container's element, key or value type) is a builtin type name (`"int"`,
//! `"Vector2"`), `{"class": "Node"}` or `{"script": "res://thing.gd"}`; an untyped key or value
//! of a half-typed Dictionary is `"Variant"`.
//!
//! Components of math types and packed arrays stored as `f32` are written as the shortest decimal
//! that reads back as the same `f32` (`0.1`, not `0.10000000149011612`). Non-finite components
//! are the strings `"nan"`, `"inf"`, `"-inf"`. A value whose components were written as `f64`
//! (a double-precision engine build) carries `"$f64": true` next to its tag; encoding such JSON
//! uses double precision (as `--precision double` does).
//!
//! The text is lossless: `gdvariant encode --from json` gives back the original bytes for
//! everything the engines write (tested on every golden vector of both engines). Tools that
//! re-print numbers through `f64` lose that: jq 1.6 prints `100.0` as `100` (which then reads
//! as an int) and rounds ints beyond 2^53. Use jq to read and select; feed `encode` JSON that
//! kept its number literals (jq 1.7+ keeps unmodified literals).
//!
//! ```
//! let v = gdvariant::parse(&[2, 0, 0, 0, 42, 0, 0, 0]).unwrap();
//! assert_eq!(gdvariant::cli::json::to_json(&v).unwrap(), "42");
//! let back = gdvariant::cli::json::parse_json("{\"$Vector2i\": [1, -2]}").unwrap();
//! assert_eq!(back, gdvariant::Variant::Vector2i(gdvariant::Vector2i::new(1, -2)));
//! ```

use std::string::{String, ToString};
use std::vec::Vec;

use super::num;
use super::parse::Entries;
use super::sink::Sink;
use crate::array::ContainerType;
use crate::error::Result;
use crate::math::*;
use crate::object::ObjectRef;
use crate::owned::{Array, NodePath, Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, VariantType as T, ENGINE_MAX_DEPTH};
use crate::value::VariantRef;

/// The JSON form of `v` on one line.
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.0 KiB in release builds, 25 KiB in debug builds): about 1 MiB
/// for a 1025-deep value in release builds.
pub fn to_json(v: &VariantRef<'_>) -> Result<String> {
    let mut sink = Sink::memory();
    write(v, &mut sink)?;
    Ok(sink.buf)
}

/// Writes the JSON form of `v` (one line) to `out` in bounded memory. Data errors come first;
/// a write error is reported as `Ok(Err(_))`.
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.0 KiB in release builds, 25 KiB in debug builds): about 1 MiB
/// for a 1025-deep value in release builds.
pub fn write_json(v: &VariantRef<'_>, out: &mut dyn std::io::Write) -> Result<std::io::Result<()>> {
    let mut sink = Sink::writer(out);
    write(v, &mut sink)?;
    Ok(sink.finish())
}

fn string(t: &str, s: &mut Sink<'_>) {
    s.ch('"');
    for c in t.chars() {
        match c {
            '"' => s.push("\\\""),
            '\\' => s.push("\\\\"),
            '\n' => s.push("\\n"),
            '\r' => s.push("\\r"),
            '\t' => s.push("\\t"),
            c if (c as u32) < 0x20 => s.push(&format!("\\u{:04x}", c as u32)),
            c => s.ch(c),
        }
    }
    s.ch('"');
}

/// `{"$Name":[x,y,...]}` with each number written by `num`.
fn num_list<T>(
    name: &str,
    xs: impl Iterator<Item = T>,
    num: fn(T, &mut Sink<'_>),
    s: &mut Sink<'_>,
) {
    tag(name, s);
    s.ch('[');
    for (i, x) in xs.enumerate() {
        if i > 0 {
            s.ch(',');
        }
        num(x, s);
    }
    s.push("]}");
}

fn f64_num(x: f64, s: &mut Sink<'_>) {
    match num::json_f64(x) {
        Some(t) => s.push(&t),
        None => s.push(nonfinite(x)),
    }
}

/// An `f32` component: the shortest decimal that reads back as the same `f32`.
fn f32_num(x: f32, s: &mut Sink<'_>) {
    if !x.is_finite() {
        s.push(nonfinite(x as f64));
        return;
    }
    // The shortest f32 digits, laid out like json_f64 does.
    let t = format!("{x:e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let lit = format!("{m}e{e}");
    match lit.parse::<f64>().ok().and_then(num::json_f64) {
        // Re-layout via f64 of the short decimal: same digits, JSON-friendly notation.
        Some(j) if j.parse::<f32>().ok() == Some(x) => s.push(&j),
        _ => s.push(&lit),
    }
}

fn nonfinite(x: f64) -> &'static str {
    if x.is_nan() {
        "\"nan\""
    } else if x > 0.0 {
        "\"inf\""
    } else {
        "\"-inf\""
    }
}

fn tag(name: &str, s: &mut Sink<'_>) {
    s.push("{\"$");
    s.push(name);
    s.push("\":");
}

fn type_info(t: &ContainerType<'_>, s: &mut Sink<'_>) {
    match t {
        ContainerType::None => s.push("\"Variant\""),
        ContainerType::Builtin(ty) => string(ty.name(), s),
        ContainerType::ClassName(c) => {
            s.push("{\"class\":");
            string(&c.to_string_lossy(), s);
            s.ch('}');
        }
        ContainerType::Script(p) => {
            s.push("{\"script\":");
            string(&p.to_string_lossy(), s);
            s.ch('}');
        }
    }
}

pub(crate) fn write(v: &VariantRef<'_>, s: &mut Sink<'_>) -> Result<()> {
    let wide = v.is_wide();
    let name = v.ty().name();
    macro_rules! reals {
        ($arr:expr) => {{
            tag(name, s);
            s.ch('[');
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    s.ch(',');
                }
                if wide {
                    f64_num(x, s)
                } else {
                    f32_num(x as f32, s)
                }
            }
            s.ch(']');
            if wide {
                s.push(",\"$f64\":true");
            }
            s.ch('}');
        }};
    }
    macro_rules! ints {
        ($arr:expr) => {{
            tag(name, s);
            s.ch('[');
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    s.ch(',');
                }
                s.push(&x.to_string());
            }
            s.push("]}");
        }};
    }
    macro_rules! vecs {
        ($it:expr, $f:ident) => {{
            tag(name, s);
            s.ch('[');
            for (i, c) in $it.enumerate() {
                if i > 0 {
                    s.ch(',');
                }
                s.ch('[');
                for (j, x) in c.into_iter().enumerate() {
                    if j > 0 {
                        s.ch(',');
                    }
                    $f(x, s);
                }
                s.ch(']');
            }
            s.ch(']');
            if wide {
                s.push(",\"$f64\":true");
            }
            s.ch('}');
        }};
    }
    match v.ty() {
        T::Nil => s.push("null"),
        T::Bool => s.push(if v.as_bool()? { "true" } else { "false" }),
        T::Int => s.push(&v.as_i64()?.to_string()),
        T::Float => {
            let x = v.as_f64()?;
            if x.is_finite() {
                f64_num(x, s)
            } else {
                tag("float", s);
                s.push(nonfinite(x));
                s.ch('}');
            }
        }
        T::String => string(&v.as_text()?.to_string_lossy(), s),
        T::StringName => {
            tag(name, s);
            string(&v.as_text()?.to_string_lossy(), s);
            s.ch('}');
        }
        T::Vector2 => reals!(v.as_vector2()?.to_array()),
        T::Vector2i => ints!(v.as_vector2i()?.to_array()),
        T::Rect2 => reals!(v.as_rect2()?.to_array()),
        T::Rect2i => ints!(v.as_rect2i()?.to_array()),
        T::Vector3 => reals!(v.as_vector3()?.to_array()),
        T::Vector3i => ints!(v.as_vector3i()?.to_array()),
        T::Transform2D => reals!(v.as_transform2d()?.to_array()),
        T::Vector4 => reals!(v.as_vector4()?.to_array()),
        T::Vector4i => ints!(v.as_vector4i()?.to_array()),
        T::Plane => reals!(v.as_plane()?.to_array()),
        T::Quaternion => reals!(v.as_quaternion()?.to_array()),
        T::Aabb => reals!(v.as_aabb()?.to_array()),
        T::Basis => reals!(v.as_basis()?.to_array()),
        T::Transform3D => reals!(v.as_transform3d()?.to_array()),
        T::Projection => reals!(v.as_projection()?.to_array()),
        T::Color => reals!(v.as_color()?.to_array().map(f64::from)),
        T::NodePath => {
            let mut path = String::new();
            let _ = v.as_node_path()?.write_text(&mut path)?;
            tag(name, s);
            string(&path, s);
            s.ch('}');
        }
        T::Rid => {
            tag(name, s);
            s.push(&v.as_rid()?.to_string());
            s.ch('}');
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(id) => {
                tag("ObjectId", s);
                s.push(&id.to_string());
                s.ch('}');
            }
            ObjectRef::Full(f) => {
                tag("Object", s);
                s.push("{\"class\":");
                string(&f.class_name().to_string_lossy(), s);
                s.push(",\"properties\":[");
                let mut props = f.properties();
                let mut first = true;
                while let Some((n, pv)) = props.try_next()? {
                    if !first {
                        s.ch(',');
                    }
                    first = false;
                    s.ch('[');
                    string(&n.to_string_lossy(), s);
                    s.ch(',');
                    write(&pv, s)?;
                    s.ch(']');
                }
                s.push("]}}");
            }
        },
        T::Callable => s.push("{\"$Callable\":null}"),
        T::Signal => {
            let sig = v.as_signal()?;
            tag(name, s);
            s.push("{\"name\":");
            string(&sig.name.to_string_lossy(), s);
            s.push(",\"object\":");
            s.push(&sig.object_id.to_string());
            s.push("}}");
        }
        T::Array => {
            let a = v.as_array()?;
            let ty = a.element_type()?;
            if ty.is_typed() {
                tag("Array", s);
            }
            s.ch('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    s.ch(',');
                }
                write(&e?, s)?;
            }
            s.ch(']');
            if ty.is_typed() {
                s.push(",\"$type\":");
                type_info(&ty, s);
                s.ch('}');
            }
        }
        T::Dictionary => {
            let d = v.as_dictionary()?;
            let (kt, vt) = d.key_value_types()?;
            let typed = kt.is_typed() || vt.is_typed();
            let mut plain = !typed;
            if plain {
                for p in d.iter() {
                    let (k, _) = p?;
                    if k.ty() != T::String || k.as_text()?.as_bytes().first() == Some(&b'$') {
                        plain = false;
                        break;
                    }
                }
            }
            if plain {
                s.ch('{');
                for (i, p) in d.iter().enumerate() {
                    let (k, val) = p?;
                    if i > 0 {
                        s.ch(',');
                    }
                    string(&k.as_text()?.to_string_lossy(), s);
                    s.ch(':');
                    write(&val, s)?;
                }
                s.ch('}');
            } else {
                tag("Dictionary", s);
                s.ch('[');
                for (i, p) in d.iter().enumerate() {
                    let (k, val) = p?;
                    if i > 0 {
                        s.ch(',');
                    }
                    s.ch('[');
                    write(&k, s)?;
                    s.ch(',');
                    write(&val, s)?;
                    s.ch(']');
                }
                s.ch(']');
                if typed {
                    s.push(",\"$key\":");
                    type_info(&kt, s);
                    s.push(",\"$value\":");
                    type_info(&vt, s);
                }
                s.ch('}');
            }
        }
        T::PackedByteArray => ints!(v.as_byte_array()?.iter()),
        T::PackedInt32Array => ints!(v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => ints!(v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => num_list(name, v.as_packed::<f32>()?.iter(), f32_num, s),
        T::PackedFloat64Array => num_list(name, v.as_packed::<f64>()?.iter(), f64_num, s),
        T::PackedStringArray => {
            tag(name, s);
            s.ch('[');
            let mut it = v.as_string_array()?.iter();
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if !first {
                    s.ch(',');
                }
                first = false;
                string(&t.to_string_lossy(), s);
            }
            s.push("]}");
        }
        T::PackedVector2Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 2]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 2]>()?.iter(), f32_num)
            }
        }
        T::PackedVector3Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 3]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 3]>()?.iter(), f32_num)
            }
        }
        T::PackedVector4Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 4]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 4]>()?.iter(), f32_num)
            }
        }
        T::PackedColorArray => vecs!(
            v.as_packed::<Color>()?.iter().map(|c| c.to_array()),
            f32_num
        ),
    }
    Ok(())
}

// ----- reading -----

/// A JSON syntax or schema error, with the byte offset in the JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub message: String,
    /// The byte offset in the input.
    pub offset: usize,
}

impl core::fmt::Display for JsonError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} at offset {} of the JSON input",
            self.message, self.offset
        )
    }
}

impl std::error::Error for JsonError {}

#[derive(Debug)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<(usize, J)>),
    Obj(Vec<(String, usize, J)>),
}

/// The deepest Variant read: the encoder's limit ([`ENGINE_MAX_DEPTH`], the top-level value at
/// depth 0), so containers nested 1025 levels still read; a value deeper than that (which could
/// not be encoded anyway) is an error at its offset.
const MAX_NESTING: usize = ENGINE_MAX_DEPTH as usize;

/// The deepest JSON nesting read (the tagged forms take up to four JSON levels per Variant
/// level: `{"$Object": {"properties": [["name", value]]}}`), checked while reading the JSON so
/// that the reader's recursion stays bounded.
const MAX_JSON_NESTING: usize = 4 * (MAX_NESTING + 1);

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn err<T>(&self, m: impl Into<String>) -> core::result::Result<T, JsonError> {
        Err(JsonError {
            message: m.into(),
            offset: self.i,
        })
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> core::result::Result<J, JsonError> {
        if depth > MAX_JSON_NESTING {
            return self.err(format!("JSON nested deeper than {MAX_JSON_NESTING} levels"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end of JSON"),
            Some(b'{') => {
                self.i += 1;
                let mut v = Vec::new();
                if self.eat(b'}') {
                    return Ok(J::Obj(v));
                }
                loop {
                    self.ws();
                    let at = self.i;
                    let k = match self.value(depth + 1)? {
                        J::Str(k) => k,
                        _ => {
                            self.i = at;
                            return self.err("expected a string key");
                        }
                    };
                    if !self.eat(b':') {
                        return self.err("expected ':'");
                    }
                    self.ws();
                    let vat = self.i;
                    let val = self.value(depth + 1)?;
                    v.push((k, vat, val));
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b'}') {
                        return Ok(J::Obj(v));
                    }
                    return self.err("expected ',' or '}'");
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                if self.eat(b']') {
                    return Ok(J::Arr(v));
                }
                loop {
                    self.ws();
                    let at = self.i;
                    v.push((at, self.value(depth + 1)?));
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b']') {
                        return Ok(J::Arr(v));
                    }
                    return self.err("expected ',' or ']'");
                }
            }
            Some(b'"') => {
                self.i += 1;
                let mut out = String::new();
                loop {
                    let Some(&c) = self.s.get(self.i) else {
                        return self.err("unterminated string");
                    };
                    self.i += 1;
                    match c {
                        b'"' => return Ok(J::Str(out)),
                        b'\\' => {
                            let Some(&e) = self.s.get(self.i) else {
                                return self.err("unterminated string");
                            };
                            self.i += 1;
                            match e {
                                b'"' => out.push('"'),
                                b'\\' => out.push('\\'),
                                b'/' => out.push('/'),
                                b'b' => out.push('\u{8}'),
                                b'f' => out.push('\u{c}'),
                                b'n' => out.push('\n'),
                                b'r' => out.push('\r'),
                                b't' => out.push('\t'),
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
                                        Some(ch) => out.push(ch),
                                        None => return self.err("bad \\u escape"),
                                    }
                                }
                                _ => return self.err("bad escape"),
                            }
                        }
                        c if c < 0x20 => return self.err("control character in string"),
                        _ => {
                            // Copy a whole UTF-8 sequence (the input is a &str).
                            let start = self.i - 1;
                            let mut end = self.i;
                            while end < self.s.len() && (self.s[end] & 0xC0) == 0x80 {
                                end += 1;
                            }
                            out.push_str(
                                core::str::from_utf8(&self.s[start..end]).unwrap_or("\u{FFFD}"),
                            );
                            self.i = end;
                        }
                    }
                }
            }
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(J::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(J::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(J::Null)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
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
                if t.parse::<f64>().is_err() {
                    self.i = start;
                    return self.err("bad number");
                }
                Ok(J::Num(t.to_string()))
            }
            Some(_) => self.err("unexpected character"),
        }
    }

    fn hex4(&mut self) -> core::result::Result<u32, JsonError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
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
}

/// Reads one JSON value (see the [module docs](self) for the schema).
///
/// Stack: recurses once per JSON nesting level (at most 4100) and once per Variant level (the
/// input is refused past the encoder's limit, 1025 levels), needing up to
/// [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL) bytes per Variant level (measured at most
/// 2.0 KiB in release builds, 17 KiB in debug builds, for typed Arrays).
pub fn parse_json(input: &str) -> core::result::Result<Variant, JsonError> {
    let mut v = parse_json_values(input)?;
    if v.len() != 1 {
        return Err(JsonError {
            message: format!("expected one JSON value, found {}", v.len()),
            offset: 0,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of JSON values separated by whitespace (JSON Lines, or values one after the
/// other).
///
/// Stack: recurses once per JSON nesting level (at most 4100) and once per Variant level (the
/// input is refused past the encoder's limit, 1025 levels), needing up to
/// [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL) bytes per Variant level (measured at most
/// 2.0 KiB in release builds, 17 KiB in debug builds, for typed Arrays).
pub fn parse_json_values(input: &str) -> core::result::Result<Vec<Variant>, JsonError> {
    parse_json_values_precision(input).map(|(v, _)| v)
}

/// Like [`parse_json_values`], also telling whether any value read carries `"$f64": true`
/// (components written in double precision): then the values should be encoded in double
/// precision (components of the other values were read as `f32` and stay exact in `f64`).
///
/// Stack: recurses once per JSON nesting level (at most 4100) and once per Variant level (the
/// input is refused past the encoder's limit, 1025 levels), needing up to
/// [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL) bytes per Variant level (measured at most
/// 2.0 KiB in release builds, 17 KiB in debug builds, for typed Arrays).
pub fn parse_json_values_precision(
    input: &str,
) -> core::result::Result<(Vec<Variant>, bool), JsonError> {
    let mut p = P {
        s: input.as_bytes(),
        i: 0,
    };
    let mut out = Vec::new();
    let mut wide = false;
    loop {
        p.ws();
        if p.i >= p.s.len() {
            return Ok((out, wide));
        }
        let at = p.i;
        let j = p.value(0)?;
        out.push(to_variant(&j, at, 0, &mut wide)?);
    }
}

fn bad<T>(at: usize, m: impl Into<String>) -> core::result::Result<T, JsonError> {
    Err(JsonError {
        message: m.into(),
        offset: at,
    })
}

fn real(j: &J, at: usize, single: bool) -> core::result::Result<f64, JsonError> {
    match j {
        J::Num(t) => {
            if single {
                // Read the f32 straight from the decimal (no double rounding).
                t.parse::<f32>()
                    .map(f64::from)
                    .or_else(|_| bad(at, "bad number"))
            } else {
                t.parse::<f64>().or_else(|_| bad(at, "bad number"))
            }
        }
        J::Str(s) if s == "nan" => Ok(f64::NAN),
        J::Str(s) if s == "inf" => Ok(f64::INFINITY),
        J::Str(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
        _ => bad(at, "expected a number"),
    }
}

fn int(j: &J, at: usize) -> core::result::Result<i64, JsonError> {
    match j {
        J::Num(t) => t.parse::<i64>().or_else(|_| bad(at, "expected an integer")),
        _ => bad(at, "expected an integer"),
    }
}

fn reals<const N: usize>(
    j: &J,
    at: usize,
    single: bool,
) -> core::result::Result<[f64; N], JsonError> {
    let J::Arr(items) = j else {
        return bad(at, format!("expected an array of {N} numbers"));
    };
    if items.len() != N {
        return bad(at, format!("expected {N} components"));
    }
    let mut out = [0.0; N];
    for (o, (a, x)) in out.iter_mut().zip(items) {
        *o = real(x, *a, single)?;
    }
    Ok(out)
}

fn ints<const N: usize>(j: &J, at: usize) -> core::result::Result<[i32; N], JsonError> {
    let J::Arr(items) = j else {
        return bad(at, format!("expected an array of {N} integers"));
    };
    if items.len() != N {
        return bad(at, format!("expected {N} components"));
    }
    let mut out = [0; N];
    for (o, (a, x)) in out.iter_mut().zip(items) {
        *o = i32::try_from(int(x, *a)?).or_else(|_| bad(*a, "component out of range"))?;
    }
    Ok(out)
}

fn list(j: &J, at: usize) -> core::result::Result<&[(usize, J)], JsonError> {
    match j {
        J::Arr(items) => Ok(items),
        _ => bad(at, "expected an array"),
    }
}

fn text(j: &J, at: usize) -> core::result::Result<String, JsonError> {
    match j {
        J::Str(s) => Ok(s.clone()),
        _ => bad(at, "expected a string"),
    }
}

fn type_of(j: &J, at: usize) -> core::result::Result<TypeInfo, JsonError> {
    match j {
        J::Str(s) if s == "Variant" => Ok(TypeInfo::None),
        J::Str(s) => match Dialect::Godot4.types().find(|t| t.name() == s) {
            Some(t) => Ok(TypeInfo::Builtin(t)),
            None => bad(at, format!("unknown type name '{s}'")),
        },
        J::Obj(f) if f.len() == 1 && f[0].0 == "class" => {
            Ok(TypeInfo::ClassName(text(&f[0].2, f[0].1)?))
        }
        J::Obj(f) if f.len() == 1 && f[0].0 == "script" => {
            Ok(TypeInfo::Script(text(&f[0].2, f[0].1)?))
        }
        _ => bad(
            at,
            "expected a type: a name, {\"class\": ...} or {\"script\": ...}",
        ),
    }
}

/// `j` read at Variant depth `depth`; sets `wide` when a value carries `"$f64": true`.
fn to_variant(
    j: &J,
    at: usize,
    depth: usize,
    wide: &mut bool,
) -> core::result::Result<Variant, JsonError> {
    if depth > MAX_NESTING {
        return bad(at, format!("nested deeper than {MAX_NESTING} levels"));
    }
    Ok(match j {
        J::Null => Variant::Nil,
        J::Bool(b) => Variant::Bool(*b),
        J::Num(t) => {
            if t.contains(['.', 'e', 'E']) {
                Variant::Float(t.parse().or_else(|_| bad(at, "bad number"))?)
            } else {
                Variant::Int(
                    t.parse()
                        .or_else(|_| bad(at, "integer out of 64-bit range"))?,
                )
            }
        }
        J::Str(s) => Variant::String(s.clone()),
        J::Arr(items) => Variant::Array(Array::new(
            items
                .iter()
                .map(|(a, x)| to_variant(x, *a, depth + 1, wide))
                .collect::<core::result::Result<_, _>>()?,
        )),
        J::Obj(fields) => {
            let tagged = fields.first().is_some_and(|(k, _, _)| k.starts_with('$'));
            if !tagged {
                let mut d = Entries::default();
                for (k, a, x) in fields {
                    d.insert(
                        Variant::String(k.clone()),
                        to_variant(x, *a, depth + 1, wide)?,
                    );
                }
                return Ok(Variant::Dictionary(d.finish()));
            }
            tagged_variant(fields, at, depth, wide)?
        }
    })
}

fn tagged_variant(
    fields: &[(String, usize, J)],
    at: usize,
    depth: usize,
    wide: &mut bool,
) -> core::result::Result<Variant, JsonError> {
    let (tag, vat, body) = (&fields[0].0[1..], fields[0].1, &fields[0].2);
    let extra = |name: &str| fields[1..].iter().find(|(k, _, _)| k == name);
    for (k, a, _) in &fields[1..] {
        if !matches!(k.as_str(), "$f64" | "$type" | "$key" | "$value") {
            return bad(*a, format!("unexpected key '{k}' in a tagged value"));
        }
    }
    let single = !matches!(extra("$f64"), Some((_, _, J::Bool(true))));
    if !single {
        *wide = true;
    }
    let v = match tag {
        "float" => Variant::Float(real(body, vat, false)?),
        "Vector2" => Variant::Vector2(Vector2::from_array(reals(body, vat, single)?)),
        "Vector2i" => Variant::Vector2i(Vector2i::from_array(ints(body, vat)?)),
        "Rect2" => Variant::Rect2(Rect2::from_array(reals(body, vat, single)?)),
        "Rect2i" => Variant::Rect2i(Rect2i::from_array(ints(body, vat)?)),
        "Vector3" => Variant::Vector3(Vector3::from_array(reals(body, vat, single)?)),
        "Vector3i" => Variant::Vector3i(Vector3i::from_array(ints(body, vat)?)),
        "Transform2D" => Variant::from(Transform2D::from_array(reals(body, vat, single)?)),
        "Vector4" => Variant::Vector4(Vector4::from_array(reals(body, vat, single)?)),
        "Vector4i" => Variant::Vector4i(Vector4i::from_array(ints(body, vat)?)),
        "Plane" => Variant::Plane(Plane::from_array(reals(body, vat, single)?)),
        "Quaternion" => Variant::Quaternion(Quaternion::from_array(reals(body, vat, single)?)),
        "AABB" => Variant::from(Aabb::from_array(reals(body, vat, single)?)),
        "Basis" => Variant::from(Basis::from_array(reals(body, vat, single)?)),
        "Transform3D" => Variant::from(Transform3D::from_array(reals(body, vat, single)?)),
        "Projection" => Variant::from(Projection::from_array(reals(body, vat, single)?)),
        "Color" => {
            let c: [f64; 4] = reals(body, vat, true)?;
            Variant::Color(Color::from_array(c.map(|x| x as f32)))
        }
        "StringName" => Variant::StringName(text(body, vat)?),
        "NodePath" => Variant::from(node_path(&text(body, vat)?)),
        "RID" => match body {
            J::Num(t) => Variant::Rid(t.parse().or_else(|_| bad(vat, "bad RID"))?),
            _ => return bad(vat, "expected an RID id"),
        },
        "ObjectId" => match body {
            J::Num(t) => Variant::from(Object::Id(
                t.parse().or_else(|_| bad(vat, "bad object id"))?,
            )),
            _ => return bad(vat, "expected an object id"),
        },
        "Object" => {
            let J::Obj(f) = body else {
                return bad(vat, "expected {\"class\": ..., \"properties\": [...]}");
            };
            let mut class = String::new();
            let mut properties = Vec::new();
            for (k, a, x) in f {
                match k.as_str() {
                    "class" => class = text(x, *a)?,
                    "properties" => {
                        for (pa, p) in list(x, *a)? {
                            let pair = list(p, *pa)?;
                            if pair.len() != 2 {
                                return bad(*pa, "expected [name, value]");
                            }
                            properties.push((
                                text(&pair[0].1, pair[0].0)?,
                                to_variant(&pair[1].1, pair[1].0, depth + 1, wide)?,
                            ));
                        }
                    }
                    _ => return bad(*a, format!("unexpected key '{k}' in an Object")),
                }
            }
            Variant::from(Object::Full { class, properties })
        }
        "Callable" => Variant::Callable,
        "Signal" => {
            let J::Obj(f) = body else {
                return bad(vat, "expected {\"name\": ..., \"object\": ...}");
            };
            let mut sig = Signal::default();
            for (k, a, x) in f {
                match (k.as_str(), x) {
                    ("name", _) => sig.name = text(x, *a)?,
                    ("object", J::Num(t)) => {
                        sig.object_id = t.parse().or_else(|_| bad(*a, "bad object id"))?
                    }
                    _ => return bad(*a, format!("unexpected key '{k}' in a Signal")),
                }
            }
            Variant::Signal(sig)
        }
        "Array" => {
            let items = list(body, vat)?
                .iter()
                .map(|(a, x)| to_variant(x, *a, depth + 1, wide))
                .collect::<core::result::Result<_, _>>()?;
            let ty = match extra("$type") {
                Some((_, a, t)) => type_of(t, *a)?,
                None => TypeInfo::None,
            };
            Variant::Array(Array::typed(ty, items))
        }
        "Dictionary" => {
            let mut entries = Entries::default();
            for (pa, p) in list(body, vat)? {
                let pair = list(p, *pa)?;
                if pair.len() != 2 {
                    return bad(*pa, "expected [key, value]");
                }
                entries.insert(
                    to_variant(&pair[0].1, pair[0].0, depth + 1, wide)?,
                    to_variant(&pair[1].1, pair[1].0, depth + 1, wide)?,
                );
            }
            let mut d = entries.finish();
            if let Some((_, a, t)) = extra("$key") {
                d.set_key_type(type_of(t, *a)?);
            }
            if let Some((_, a, t)) = extra("$value") {
                d.set_value_type(type_of(t, *a)?);
            }
            Variant::Dictionary(d)
        }
        "PackedByteArray" => Variant::PackedByteArray(
            list(body, vat)?
                .iter()
                .map(|(a, x)| u8::try_from(int(x, *a)?).or_else(|_| bad(*a, "byte out of range")))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedInt32Array" => Variant::PackedInt32Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| i32::try_from(int(x, *a)?).or_else(|_| bad(*a, "out of range")))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedInt64Array" => Variant::PackedInt64Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| int(x, *a))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedFloat32Array" => Variant::PackedFloat32Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| real(x, *a, true).map(|x| x as f32))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedFloat64Array" => Variant::PackedFloat64Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| real(x, *a, false))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedStringArray" => Variant::PackedStringArray(
            list(body, vat)?
                .iter()
                .map(|(a, x)| text(x, *a))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedVector2Array" => Variant::PackedVector2Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| reals(x, *a, single).map(Vector2::from_array))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedVector3Array" => Variant::PackedVector3Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| reals(x, *a, single).map(Vector3::from_array))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedVector4Array" => Variant::PackedVector4Array(
            list(body, vat)?
                .iter()
                .map(|(a, x)| reals(x, *a, single).map(Vector4::from_array))
                .collect::<core::result::Result<_, _>>()?,
        ),
        "PackedColorArray" => Variant::PackedColorArray(
            list(body, vat)?
                .iter()
                .map(|(a, x)| {
                    reals::<4>(x, *a, true).map(|c| Color::from_array(c.map(|x| x as f32)))
                })
                .collect::<core::result::Result<_, _>>()?,
        ),
        other => return bad(at, format!("unknown tag '${other}'")),
    };
    Ok(v)
}

/// Whether any value in the JSON text carries `"$f64": true` (decided from the parsed values,
/// whatever the spacing; `false` when the text does not read).
pub fn wants_double(input: &str) -> bool {
    parse_json_values_precision(input).is_ok_and(|(_, wide)| wide)
}

/// Splits a NodePath's text form (`/root/a:prop:sub`) into names, subnames and the absolute
/// flag, as the engine's `NodePath(String)` does.
pub fn node_path(text: &str) -> NodePath {
    let absolute = text.starts_with('/');
    let body = if absolute { &text[1..] } else { text };
    let mut parts = body.split(':');
    let names_part = parts.next().unwrap_or("");
    let names = names_part
        .split('/')
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    let subnames = parts
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    NodePath {
        names,
        subnames,
        absolute,
    }
}
