//! Reading the JSON form back into a [`Variant`].

use std::string::String;
use std::vec::Vec;

use crate::literal::{excerpt, node_path, Entries};
use crate::math::*;
use crate::owned::{Array, Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, ENGINE_MAX_DEPTH};

/// A JSON syntax or schema error, with the byte offset in the JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// The byte offset in the input.
    pub offset: usize,
}

impl core::fmt::Display for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} at offset {} of the JSON input",
            self.message, self.offset
        )
    }
}

impl std::error::Error for ParseError {}

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
    fn err<T>(&self, m: impl Into<String>) -> core::result::Result<T, ParseError> {
        Err(ParseError {
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

    fn value(&mut self, depth: usize) -> core::result::Result<J, ParseError> {
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

    fn hex4(&mut self) -> core::result::Result<u32, ParseError> {
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

/// Reads one JSON value of the [schema](super) into a [`Variant`].
///
/// ```
/// use gdvariant::{json, Variant, Vector2i};
/// assert_eq!(json::from_str("{\"$Vector2i\": [1, -2]}")?, Variant::Vector2i(Vector2i::new(1, -2)));
/// assert_eq!(json::from_str("[1, 2.0]")?, Variant::from(vec![Variant::Int(1), Variant::Float(2.0)]));
/// # Ok::<(), gdvariant::json::ParseError>(())
/// ```
///
/// Stack: the reader recurses once per JSON nesting level (refused past 4100) and once per
/// Variant level (refused past the encoder's limit, 1025 levels): measured at most 2.0 KiB a
/// Variant level in release builds (17 KiB in debug builds), for typed Arrays.
pub fn from_str(input: &str) -> core::result::Result<Variant, ParseError> {
    let (mut v, _) = from_str_values(input)?;
    if v.len() != 1 {
        return Err(ParseError {
            message: format!("expected one JSON value, found {}", v.len()),
            offset: 0,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of JSON values separated by whitespace (JSON Lines, or values one after the
/// other), and tells whether any of them carries `"$f64": true` (components written in double
/// precision): then the values should be encoded in double precision (the components of the
/// others were read as `f32` and stay exact in `f64`). Stack: as [`from_str`].
pub fn from_str_values(input: &str) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
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

fn bad<T>(at: usize, m: impl Into<String>) -> core::result::Result<T, ParseError> {
    Err(ParseError {
        message: m.into(),
        offset: at,
    })
}

fn real(j: &J, at: usize, single: bool) -> core::result::Result<f64, ParseError> {
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

fn int(j: &J, at: usize) -> core::result::Result<i64, ParseError> {
    match j {
        J::Num(t) => t.parse::<i64>().or_else(|_| bad(at, "expected an integer")),
        _ => bad(at, "expected an integer"),
    }
}

fn reals<const N: usize>(
    j: &J,
    at: usize,
    single: bool,
) -> core::result::Result<[f64; N], ParseError> {
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

fn ints<const N: usize>(j: &J, at: usize) -> core::result::Result<[i32; N], ParseError> {
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

fn list(j: &J, at: usize) -> core::result::Result<&[(usize, J)], ParseError> {
    match j {
        J::Arr(items) => Ok(items),
        _ => bad(at, "expected an array"),
    }
}

fn text(j: &J, at: usize) -> core::result::Result<String, ParseError> {
    match j {
        J::Str(s) => Ok(s.clone()),
        _ => bad(at, "expected a string"),
    }
}

fn type_of(j: &J, at: usize) -> core::result::Result<TypeInfo, ParseError> {
    match j {
        J::Str(s) if s == "Variant" => Ok(TypeInfo::None),
        J::Str(s) => match Dialect::Godot4.types().find(|t| t.name() == s) {
            Some(t) => Ok(TypeInfo::Builtin(t)),
            None => bad(at, format!("unknown type name '{}'", excerpt(s))),
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
) -> core::result::Result<Variant, ParseError> {
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
        J::Str(s) => Variant::String(s.as_str().into()),
        J::Arr(items) => Variant::Array(Array::new(
            items
                .iter()
                .map(|(a, x)| to_variant(x, *a, depth + 1, wide))
                .collect::<core::result::Result<_, _>>()?,
        )),
        J::Obj(fields) => {
            let tagged = fields.first().is_some_and(|(k, _, _)| k.starts_with('$'));
            if !tagged {
                let mut d = Entries::new(Dialect::Godot4);
                for (k, a, x) in fields {
                    d.insert(
                        Variant::String(k.as_str().into()),
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
) -> core::result::Result<Variant, ParseError> {
    let (tag, vat, body) = (&fields[0].0[1..], fields[0].1, &fields[0].2);
    let extra = |name: &str| fields[1..].iter().find(|(k, _, _)| k == name);
    for (k, a, _) in &fields[1..] {
        if !matches!(k.as_str(), "$f64" | "$type" | "$key" | "$value") {
            return bad(
                *a,
                format!("unexpected key '{}' in a tagged value", excerpt(k)),
            );
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
        "StringName" => Variant::StringName(text(body, vat)?.into()),
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
                    _ => return bad(*a, format!("unexpected key '{}' in an Object", excerpt(k))),
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
                    _ => return bad(*a, format!("unexpected key '{}' in a Signal", excerpt(k))),
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
            let mut entries = Entries::new(Dialect::Godot4);
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
                .map(|(a, x)| text(x, *a).map(Into::into))
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
        other => return bad(at, format!("unknown tag '${}'", excerpt(other))),
    };
    Ok(v)
}
