//! Reading the engine's text form (what `var_to_str` prints and `str_to_var` reads) into an
//! owned [`Variant`].
//!
//! Accepts the literal syntax of both engines: `null`, `true`, `42`, `1.5`, `inf`, `inf_neg`,
//! `nan`, `"text"` (with the engine's escapes), `&"name"`, `^"node/path"`,
//! `NodePath("a:b")`, `Vector2(1, 2)` (also Godot 3's `Vector2( 1, 2 )`), every math and packed
//! type by its Godot 4 or Godot 3 name (`Quat`, `Transform`, `PoolIntArray`, …), `RID(5)`,
//! `Callable()`, `Signal()`, `[...]`, `{key: value, ...}`, `Array[int]([...])`,
//! `Dictionary[String, int]({...})`, and objects in the engine's layout
//! (`Object(Class,"prop":value,...)`; `Object(EncodedObjectAsID,"object_id":N,...)` reads as the
//! instance id N, and `Resource("res://x.gd")` as the script path).
//!
//! Numbers are read exactly: ints as `i64`, floats as `f64`; components of math types and
//! elements of packed arrays that are stored as `f32` (single precision, Colors,
//! PackedFloat32Array) are read as `f32` straight from the decimal.
//!
//! ```
//! use gdvariant::{text, Dialect, Variant};
//! let v = text::from_str("{\n\"a\": [1, 2.5]\n}", Dialect::Godot4).unwrap();
//! let d = v.as_dictionary().unwrap();
//! assert_eq!(d.get_str("a").unwrap().as_array().unwrap().items[1], Variant::Float(2.5));
//! ```

use std::string::String;
use std::vec::Vec;

use crate::literal::{excerpt, node_path, Entries};
use crate::math::*;
use crate::owned::{Array, Dictionary, Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, VariantType, ENGINE_MAX_DEPTH};

/// A syntax error in engine text, with its byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// The byte offset in the text.
    pub offset: usize,
}

impl core::fmt::Display for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} at offset {} of the text input",
            self.message, self.offset
        )
    }
}

impl std::error::Error for ParseError {}

type R<T> = core::result::Result<T, ParseError>;

/// The deepest value read: the encoder's limit ([`ENGINE_MAX_DEPTH`], the top-level value at
/// depth 0), so Arrays nested 1025 levels (`[[…[]…]]`) still read, and anything deeper, which
/// could not be encoded anyway, is a syntax error at the value past the limit. The parser
/// recurses once per level.
const MAX_NESTING: usize = ENGINE_MAX_DEPTH as usize;

/// Reads one value of engine text (what `str_to_var` reads) in `dialect`: a type the
/// dialect does not have is an error at the value. Whitespace around it is allowed.
///
/// Stack: the reader recurses once per nesting level of the input, which is refused past the
/// encoder's limit (1025 levels); measured at most 1.3 KiB a level in release builds (15 KiB in
/// debug builds): about 1.4 MiB for the deepest input, so run it on the main thread or on a
/// thread with a few MiB of stack.
pub fn from_str(input: &str, dialect: Dialect) -> R<Variant> {
    let mut v = from_str_values(input, dialect, false)?;
    if v.len() != 1 {
        return Err(ParseError {
            message: format!("expected one value, found {}", v.len()),
            offset: 0,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of values separated by whitespace (as `gdvariant encode --framed` takes
/// them). With `double`, math components and packed vector elements are read as `f64` (for a
/// double-precision encoding); otherwise they are read as `f32` straight from the decimal, as
/// the engine's single-precision build stores them. Stack: as [`from_str`].
pub fn from_str_values(input: &str, dialect: Dialect, double: bool) -> R<Vec<Variant>> {
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
        single: !double,
        dialect,
    };
    let mut out = Vec::new();
    loop {
        p.ws();
        if p.i >= p.s.len() {
            return Ok(out);
        }
        out.push(p.value(0)?);
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    single: bool,
    dialect: Dialect,
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Parser<'_> {
    fn err<T>(&self, m: impl Into<String>) -> R<T> {
        Err(ParseError {
            message: m.into(),
            offset: self.i,
        })
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
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

    fn expect(&mut self, c: u8) -> R<()> {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected '{}'", c as char))
        }
    }

    fn ident(&mut self) -> String {
        self.ws();
        let start = self.i;
        while self.i < self.s.len() && is_ident(self.s[self.i]) {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    /// A number token (with sign), as text.
    fn number_token(&mut self) -> R<String> {
        self.ws();
        let start = self.i;
        if matches!(self.s.get(self.i), Some(b'-' | b'+')) {
            self.i += 1;
        }
        // Words: inf, inf_neg, nan (possibly signed, possibly with Godot 3's ".0").
        if self.s.get(self.i).is_some_and(|c| c.is_ascii_alphabetic()) {
            let w = self.ident();
            if self.s[self.i..].starts_with(b".0") {
                self.i += 2;
            }
            let neg = self.s[start] == b'-';
            return match (w.as_str(), neg) {
                ("inf", false) => Ok("inf".into()),
                ("inf", true) | ("inf_neg", false) => Ok("-inf".into()),
                ("nan", _) => Ok("nan".into()),
                _ => {
                    self.i = start;
                    self.err("expected a number")
                }
            };
        }
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_digit()
                || matches!(self.s[self.i], b'.' | b'e' | b'E')
                || (self.i > start
                    && matches!(self.s[self.i], b'-' | b'+')
                    && matches!(self.s[self.i - 1], b'e' | b'E')))
        {
            self.i += 1;
        }
        let t = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        if t.is_empty() || t == "-" || t == "+" {
            self.i = start;
            return self.err("expected a number");
        }
        Ok(t)
    }

    fn real(&mut self, single: bool) -> R<f64> {
        let at = self.i;
        let t = self.number_token()?;
        let r = if single {
            t.parse::<f32>().map(f64::from).ok()
        } else {
            t.parse::<f64>().ok()
        };
        r.ok_or(ParseError {
            message: format!("bad number '{}'", excerpt(&t)),
            offset: at,
        })
    }

    fn int(&mut self) -> R<i64> {
        let at = self.i;
        let t = self.number_token()?;
        t.parse::<i64>().or_else(|_| {
            // The engine accepts float syntax for ints in constructors (e.g. `Vector2i(1.0, 2)`).
            match t.parse::<f64>() {
                Ok(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => Ok(x as i64),
                _ => Err(ParseError {
                    message: format!("bad integer '{}'", excerpt(&t)),
                    offset: at,
                }),
            }
        })
    }

    /// Comma-separated items up to `)`; the opening `(` is already read.
    fn items<T>(&mut self, mut f: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = Vec::new();
        if self.eat(b')') {
            return Ok(out);
        }
        loop {
            out.push(f(self)?);
            if self.eat(b',') {
                continue;
            }
            self.expect(b')')?;
            return Ok(out);
        }
    }

    fn reals<const N: usize>(&mut self, single: bool) -> R<[f64; N]> {
        let at = self.i;
        let v = self.items(|p| p.real(single))?;
        v.try_into().map_err(|v: Vec<f64>| ParseError {
            message: format!("expected {N} components, found {}", v.len()),
            offset: at,
        })
    }

    /// An integer that must fit `X` (a 32-bit component or element, a byte): out of range is an
    /// error at the number, not a silent wrap.
    fn int_in<X: TryFrom<i64>>(&mut self, what: &str) -> R<X> {
        self.ws();
        let at = self.i;
        let x = self.int()?;
        X::try_from(x).map_err(|_| ParseError {
            message: format!("{x} is out of range for {what}"),
            offset: at,
        })
    }

    fn ints<const N: usize>(&mut self) -> R<[i32; N]> {
        let at = self.i;
        let v: Vec<i32> = self.items(|p| p.int_in("a 32-bit component"))?;
        v.try_into().map_err(|v: Vec<i32>| ParseError {
            message: format!("expected {N} components, found {}", v.len()),
            offset: at,
        })
    }

    fn chunks<const N: usize>(&mut self, single: bool) -> R<Vec<[f64; N]>> {
        let at = self.i;
        let flat = self.items(|p| p.real(single))?;
        if flat.len() % N != 0 {
            return Err(ParseError {
                message: format!("expected a multiple of {N} components"),
                offset: at,
            });
        }
        Ok(flat
            .chunks_exact(N)
            .map(|c| {
                let mut a = [0.0; N];
                a.copy_from_slice(c);
                a
            })
            .collect())
    }

    fn string(&mut self) -> R<String> {
        self.ws();
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return self.err("unterminated string");
                    };
                    self.i += 1;
                    let ch = match e {
                        b'b' => '\u{8}',
                        b't' => '\t',
                        b'n' => '\n',
                        b'f' => '\u{c}',
                        b'r' => '\r',
                        b'a' => '\u{7}',
                        b'v' => '\u{b}',
                        b'u' | b'U' => {
                            let n = if e == b'u' { 4 } else { 6 };
                            let h = self
                                .s
                                .get(self.i..self.i + n)
                                .and_then(|h| core::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok());
                            let Some(mut cp) = h else {
                                return self.err("bad unicode escape");
                            };
                            self.i += n;
                            // A UTF-16 surrogate pair written as two \u escapes.
                            if (0xD800..0xDC00).contains(&cp)
                                && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                let lo = self
                                    .s
                                    .get(self.i + 2..self.i + 6)
                                    .and_then(|h| core::str::from_utf8(h).ok())
                                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                                if let Some(lo @ 0xDC00..=0xDFFF) = lo {
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    self.i += 6;
                                }
                            }
                            match char::from_u32(cp) {
                                Some(ch) => ch,
                                None => return self.err("bad unicode escape"),
                            }
                        }
                        // \" \\ \' \? and any other escaped character stand for themselves.
                        other => {
                            out.push(other);
                            continue;
                        }
                    };
                    let mut b = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                }
                c => out.push(c),
            }
        }
        // The input is a &str and escapes produce whole characters.
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn type_info(&mut self) -> R<TypeInfo> {
        let at = self.i;
        let name = self.ident();
        if name == "Resource" {
            self.expect(b'(')?;
            let path = self.string()?;
            self.expect(b')')?;
            return Ok(TypeInfo::Script(path));
        }
        if name.is_empty() {
            self.i = at;
            return self.err("expected a type name");
        }
        if name == "Variant" {
            return Ok(TypeInfo::None);
        }
        Ok(match builtin(&name) {
            Some(t) => TypeInfo::Builtin(t),
            None => TypeInfo::ClassName(name),
        })
    }

    fn array_body(&mut self, depth: usize) -> R<Vec<Variant>> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        if self.eat(b']') {
            return Ok(items);
        }
        loop {
            items.push(self.value(depth + 1)?);
            if self.eat(b',') {
                if self.eat(b']') {
                    return Ok(items);
                }
                continue;
            }
            self.expect(b']')?;
            return Ok(items);
        }
    }

    fn dict_body(&mut self, depth: usize) -> R<Dictionary> {
        self.expect(b'{')?;
        let mut d = Entries::new(self.dialect);
        if self.eat(b'}') {
            return Ok(d.finish());
        }
        loop {
            let k = self.value(depth + 1)?;
            if !self.eat(b':') && !self.eat(b'=') {
                return self.err("expected ':'");
            }
            let v = self.value(depth + 1)?;
            d.insert(k, v);
            if self.eat(b',') {
                if self.eat(b'}') {
                    return Ok(d.finish());
                }
                continue;
            }
            self.expect(b'}')?;
            return Ok(d.finish());
        }
    }

    /// One value, checked against the dialect: a type the dialect does not have (Godot 4's
    /// `Vector4`, `&"name"`, `Callable()`, typed containers, … read as Godot 3) is an error at
    /// the value, instead of a value the encoder cannot write.
    fn value(&mut self, depth: usize) -> R<Variant> {
        self.ws();
        let at = self.i;
        let v = self.value_inner(depth)?;
        let typed = match &v {
            Variant::Array(a) => a.is_typed(),
            Variant::Dictionary(d) => d.is_typed(),
            _ => false,
        };
        if self.dialect.id_of(v.ty()).is_none() || (typed && self.dialect == Dialect::Godot3) {
            let what = if typed {
                format!("a typed {}", v.ty().name())
            } else {
                format!("a {}", v.ty().name())
            };
            return Err(ParseError {
                message: format!("{what} cannot be written in the {} dialect", self.dialect),
                offset: at,
            });
        }
        Ok(v)
    }

    fn value_inner(&mut self, depth: usize) -> R<Variant> {
        if depth > MAX_NESTING {
            return self.err(format!("nested deeper than {MAX_NESTING} levels"));
        }
        let Some(c) = self.peek() else {
            return self.err("unexpected end of text");
        };
        let single = self.single;
        match c {
            b'"' => return self.string().map(|s| Variant::String(s.into())),
            b'&' => {
                self.i += 1;
                return self.string().map(|s| Variant::StringName(s.into()));
            }
            b'^' => {
                self.i += 1;
                return self.string().map(|s| Variant::from(node_path(&s)));
            }
            b'[' => {
                return self
                    .array_body(depth)
                    .map(|v| Variant::Array(Array::new(v)))
            }
            b'{' => return self.dict_body(depth).map(Variant::Dictionary),
            b'-' | b'+' | b'0'..=b'9' | b'.' => {
                let at = self.i;
                let t = self.number_token()?;
                return match t.as_str() {
                    "inf" => Ok(Variant::Float(f64::INFINITY)),
                    "-inf" => Ok(Variant::Float(f64::NEG_INFINITY)),
                    "nan" => Ok(Variant::Float(f64::NAN)),
                    t if t.contains(['.', 'e', 'E']) => {
                        t.parse().map(Variant::Float).map_err(|_| ParseError {
                            message: format!("bad number '{}'", excerpt(t)),
                            offset: at,
                        })
                    }
                    t => t.parse().map(Variant::Int).map_err(|_| ParseError {
                        message: format!("bad integer '{}'", excerpt(t)),
                        offset: at,
                    }),
                };
            }
            c if is_ident(c) => {}
            _ => return self.err(format!("unexpected character '{}'", c as char)),
        }
        let at = self.i;
        let id = self.ident();
        let simple = match id.as_str() {
            "null" | "nil" => Some(Variant::Nil),
            "true" => Some(Variant::Bool(true)),
            "false" => Some(Variant::Bool(false)),
            "inf" => Some(Variant::Float(f64::INFINITY)),
            "inf_neg" => Some(Variant::Float(f64::NEG_INFINITY)),
            "nan" => Some(Variant::Float(f64::NAN)),
            _ => None,
        };
        if let Some(v) = simple {
            return Ok(v);
        }
        // Typed containers: Array[T](...), Dictionary[K, V](...).
        if (id == "Array" || id == "Dictionary") && self.peek() == Some(b'[') {
            self.i += 1;
            let k = self.type_info()?;
            let v = if id == "Dictionary" {
                self.expect(b',')?;
                Some(self.type_info()?)
            } else {
                None
            };
            self.expect(b']')?;
            self.expect(b'(')?;
            let out = match v {
                None => Variant::Array(Array::typed(k, self.array_body(depth)?)),
                Some(v) => {
                    let mut d = self.dict_body(depth)?;
                    d.set_types(k, v);
                    Variant::Dictionary(d)
                }
            };
            self.expect(b')')?;
            return Ok(out);
        }
        if !self.eat(b'(') {
            self.i = at;
            return self.err(format!("unknown identifier '{}'", excerpt(&id)));
        }
        let v = match id.as_str() {
            "Vector2" => Variant::Vector2(Vector2::from_array(self.reals(single)?)),
            "Vector2i" => Variant::Vector2i(Vector2i::from_array(self.ints()?)),
            "Rect2" => Variant::Rect2(Rect2::from_array(self.reals(single)?)),
            "Rect2i" => Variant::Rect2i(Rect2i::from_array(self.ints()?)),
            "Vector3" => Variant::Vector3(Vector3::from_array(self.reals(single)?)),
            "Vector3i" => Variant::Vector3i(Vector3i::from_array(self.ints()?)),
            "Transform2D" => Variant::from(Transform2D::from_array(self.reals(single)?)),
            "Vector4" => Variant::Vector4(Vector4::from_array(self.reals(single)?)),
            "Vector4i" => Variant::Vector4i(Vector4i::from_array(self.ints()?)),
            "Plane" => Variant::Plane(Plane::from_array(self.reals(single)?)),
            "Quaternion" | "Quat" => {
                Variant::Quaternion(Quaternion::from_array(self.reals(single)?))
            }
            "AABB" => Variant::from(Aabb::from_array(self.reals(single)?)),
            "Basis" => Variant::from(Basis::from_array(self.reals(single)?)),
            "Transform3D" | "Transform" => {
                Variant::from(Transform3D::from_array(self.reals(single)?))
            }
            "Projection" => Variant::from(Projection::from_array(self.reals(single)?)),
            "Color" => {
                let c: [f64; 4] = self.reals(true)?;
                Variant::Color(Color::from_array(c.map(|x| x as f32)))
            }
            "NodePath" => {
                let s = self.string()?;
                self.expect(b')')?;
                Variant::from(node_path(&s))
            }
            "StringName" => {
                let s = self.string()?;
                self.expect(b')')?;
                Variant::StringName(s.into())
            }
            "RID" => {
                let v = self.items(|p| p.int())?;
                Variant::Rid(v.first().copied().unwrap_or(0) as u64)
            }
            "Callable" => {
                self.expect(b')')?;
                Variant::Callable
            }
            "Signal" => {
                self.expect(b')')?;
                Variant::Signal(Signal::default())
            }
            "Resource" => {
                // A resource by path (an object's script): read as its path.
                let s = self.string()?;
                self.expect(b')')?;
                Variant::String(s.into())
            }
            "Object" => self.object(depth)?,
            "Array" => {
                let v = self.array_body(depth)?;
                self.expect(b')')?;
                Variant::Array(Array::new(v))
            }
            "Dictionary" => {
                let d = self.dict_body(depth)?;
                self.expect(b')')?;
                Variant::Dictionary(d)
            }
            "PackedByteArray" | "PoolByteArray" => {
                Variant::PackedByteArray(self.items(|p| p.int_in("a byte (0 to 255)"))?)
            }
            "PackedInt32Array" | "PoolIntArray" => {
                Variant::PackedInt32Array(self.items(|p| p.int_in("a 32-bit element"))?)
            }
            "PackedInt64Array" => Variant::PackedInt64Array(self.items(|p| p.int())?),
            "PackedFloat32Array" | "PoolRealArray" => Variant::PackedFloat32Array(
                self.items(|p| p.real(true))?
                    .into_iter()
                    .map(|x| x as f32)
                    .collect(),
            ),
            "PackedFloat64Array" => Variant::PackedFloat64Array(self.items(|p| p.real(false))?),
            "PackedStringArray" | "PoolStringArray" => {
                Variant::PackedStringArray(self.items(|p| p.string().map(Into::into))?)
            }
            "PackedVector2Array" | "PoolVector2Array" => Variant::PackedVector2Array(
                self.chunks::<2>(single)?
                    .into_iter()
                    .map(Vector2::from_array)
                    .collect(),
            ),
            "PackedVector3Array" | "PoolVector3Array" => Variant::PackedVector3Array(
                self.chunks::<3>(single)?
                    .into_iter()
                    .map(Vector3::from_array)
                    .collect(),
            ),
            "PackedVector4Array" => Variant::PackedVector4Array(
                self.chunks::<4>(single)?
                    .into_iter()
                    .map(Vector4::from_array)
                    .collect(),
            ),
            "PackedColorArray" | "PoolColorArray" => Variant::PackedColorArray(
                self.chunks::<4>(true)?
                    .into_iter()
                    .map(|c| Color::from_array(c.map(|x| x as f32)))
                    .collect(),
            ),
            _ => {
                self.i = at;
                return self.err(format!("unknown constructor '{}'", excerpt(&id)));
            }
        };
        Ok(v)
    }

    /// `Object(Class,"prop":value,...)`, the `(` already read.
    fn object(&mut self, depth: usize) -> R<Variant> {
        let class = self.ident();
        let mut properties = Vec::new();
        while self.eat(b',') {
            let name = self.string()?;
            self.expect(b':')?;
            let v = self.value(depth + 1)?;
            properties.push((name, v));
        }
        self.expect(b')')?;
        if class == "EncodedObjectAsID" {
            let id = properties
                .iter()
                .find(|(n, _)| n == "object_id")
                .and_then(|(_, v)| v.as_i64())
                .unwrap_or(0);
            return Ok(Variant::from(Object::Id(id as u64)));
        }
        Ok(Variant::from(Object::Full { class, properties }))
    }
}

/// A builtin type by its Godot 4 name.
fn builtin(name: &str) -> Option<VariantType> {
    Dialect::Godot4.types().find(|t| t.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_decides_which_types_read() {
        for (text, at, msg) in [
            (
                "[1, &\"x\"]",
                4,
                "a StringName cannot be written in the Godot 3 dialect",
            ),
            ("Vector4(1, 2, 3, 4)", 0, "a Vector4 cannot"),
            ("{1: Callable()}", 4, "a Callable cannot"),
            ("Array[int]([1])", 0, "a typed Array cannot"),
            ("Dictionary[int, int]({})", 0, "a typed Dictionary cannot"),
            ("PackedInt64Array(1)", 0, "a PackedInt64Array cannot"),
        ] {
            let e = from_str(text, Dialect::Godot3).unwrap_err();
            assert!(e.message.starts_with(msg), "{text}: {e}");
            assert_eq!(e.offset, at, "{text}: {e}");
            assert!(from_str(text, Dialect::Godot4).is_ok(), "{text}");
        }
        // Godot 3's own syntax reads in both.
        for d in [Dialect::Godot3, Dialect::Godot4] {
            let v = from_str(
                "[ Vector2( 1, 2 ), PoolIntArray( 1 ), Quat( 0, 0, 0, 1 ) ]",
                d,
            );
            assert!(v.is_ok(), "{d}: {v:?}");
        }
    }

    #[test]
    fn duplicate_keys_are_replaced_in_place() {
        let v = from_str(
            "{\"a\": 1, 2: 0, \"a\": [3], 2: 5, \"c\": 4}",
            Dialect::Godot4,
        )
        .unwrap();
        let d = v.as_dictionary().unwrap();
        assert_eq!(
            d.entries,
            vec![
                (
                    Variant::from("a"),
                    Variant::Array(Array::new(vec![Variant::Int(3)]))
                ),
                (Variant::Int(2), Variant::Int(5)),
                (Variant::from("c"), Variant::Int(4)),
            ]
        );
    }
}
