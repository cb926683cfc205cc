//! The engine text's lexer: whitespace, punctuation, identifiers, numbers (with the engine's
//! `inf`, `inf_neg` and `nan`), strings (with its escapes), comma-separated numbers and type
//! names, read as the value reader ([`super::parse`]) asks for them.

use std::string::String;
use std::vec::Vec;

use crate::builder::Fail;
use crate::literal::excerpt;
use crate::owned::TypeInfo;
use crate::types::{Dialect, VariantType};

/// A lexer result: [`Fail`] with the offset and message of what went wrong.
pub(super) type R<T = ()> = core::result::Result<T, Fail>;

/// A failure at `offset` with `message`.
pub(super) fn fail<T>(offset: usize, message: impl Into<String>) -> R<T> {
    crate::builder::fail(offset, message)
}

/// The reader's cursor over the text, and whether components are read as `f32`.
pub(super) struct Parser<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) single: bool,
}

pub(super) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl<'a> Parser<'a> {
    pub(super) fn new(input: &'a str, double: bool) -> Parser<'a> {
        Parser {
            s: input.as_bytes(),
            i: 0,
            single: !double,
        }
    }

    /// Whether a value follows (after whitespace).
    pub(super) fn more(&mut self) -> bool {
        self.ws();
        self.i < self.s.len()
    }

    pub(super) fn err<T>(&self, m: impl Into<String>) -> R<T> {
        fail(self.i, m)
    }

    pub(super) fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    pub(super) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, c: u8) -> R {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected '{}'", c as char))
        }
    }

    /// The text from `start` to the cursor (ASCII there).
    pub(super) fn slice(&self, start: usize) -> &'a str {
        core::str::from_utf8(&self.s[start..self.i]).unwrap_or("")
    }

    pub(super) fn ident(&mut self) -> &'a str {
        self.ws();
        let start = self.i;
        while self.i < self.s.len() && is_ident(self.s[self.i]) {
            self.i += 1;
        }
        self.slice(start)
    }

    /// A number token (with sign), as text; the words inf, inf_neg and nan (possibly signed,
    /// possibly with Godot 3's ".0") as `inf`, `-inf` and `nan`.
    pub(super) fn number_token(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        if matches!(self.s.get(self.i), Some(b'-' | b'+')) {
            self.i += 1;
        }
        if self.s.get(self.i).is_some_and(|c| c.is_ascii_alphabetic()) {
            let w = self.ident();
            if self.s[self.i..].starts_with(b".0") {
                self.i += 2;
            }
            let neg = self.s[start] == b'-';
            return match (w, neg) {
                ("inf", false) => Ok("inf"),
                ("inf", true) | ("inf_neg", false) => Ok("-inf"),
                ("nan", _) => Ok("nan"),
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
        let t = self.slice(start);
        if t.is_empty() || t == "-" || t == "+" {
            self.i = start;
            return self.err("expected a number");
        }
        Ok(t)
    }

    pub(super) fn real(&mut self, single: bool) -> R<f64> {
        self.ws();
        let at = self.i;
        let t = self.number_token()?;
        let r = match t {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" if single => Some(f64::from(f32::NAN)),
            "nan" => Some(f64::NAN),
            t if single => t.parse::<f32>().map(f64::from).ok(),
            t => t.parse::<f64>().ok(),
        };
        r.map_or_else(|| fail(at, format!("bad number '{}'", excerpt(t))), Ok)
    }

    pub(super) fn int(&mut self) -> R<i64> {
        self.ws();
        let at = self.i;
        let t = self.number_token()?;
        t.parse::<i64>().or_else(|_| {
            // The engine accepts float syntax for ints in constructors (e.g. `Vector2i(1.0, 2)`).
            match t.parse::<f64>() {
                Ok(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => Ok(x as i64),
                _ => fail(at, format!("bad integer '{}'", excerpt(t))),
            }
        })
    }

    /// Comma-separated items up to `)`; the opening `(` is already read.
    pub(super) fn items<T>(&mut self, mut f: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
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

    pub(super) fn reals<const N: usize>(&mut self, single: bool) -> R<[f64; N]> {
        let at = self.i;
        let v = self.items(|p| p.real(single))?;
        v.try_into().map_err(|v: Vec<f64>| Fail {
            message: format!("expected {N} components, found {}", v.len()),
            offset: at,
        })
    }

    /// An integer that must fit `X` (a 32-bit component or element, a byte): out of range is an
    /// error at the number, not a silent wrap.
    pub(super) fn int_in<X: TryFrom<i64>>(&mut self, what: &str) -> R<X> {
        self.ws();
        let at = self.i;
        let x = self.int()?;
        X::try_from(x).or_else(|_| fail(at, format!("{x} is out of range for {what}")))
    }

    pub(super) fn ints<const N: usize>(&mut self) -> R<[i32; N]> {
        let at = self.i;
        let v: Vec<i32> = self.items(|p| p.int_in("a 32-bit component"))?;
        v.try_into().map_err(|v: Vec<i32>| Fail {
            message: format!("expected {N} components, found {}", v.len()),
            offset: at,
        })
    }

    /// Packed vector elements: components read flat and grouped by `N`.
    pub(super) fn chunks<const N: usize, V>(
        &mut self,
        single: bool,
        make: fn([f64; N]) -> V,
    ) -> R<Vec<V>> {
        let at = self.i;
        let mut out = Vec::new();
        let mut cur = [0.0; N];
        let mut k = 0;
        if !self.eat(b')') {
            loop {
                cur[k] = self.real(single)?;
                k += 1;
                if k == N {
                    out.push(make(cur));
                    k = 0;
                }
                if self.eat(b',') {
                    continue;
                }
                self.expect(b')')?;
                break;
            }
        }
        if k != 0 {
            return fail(at, format!("expected a multiple of {N} components"));
        }
        Ok(out)
    }

    /// `RID(n)`: the id as the engine prints it (signed), also read unsigned.
    pub(super) fn rid(&mut self) -> R<u64> {
        if self.eat(b')') {
            return Ok(0);
        }
        self.ws();
        let at = self.i;
        let t = self.number_token()?;
        let id = t
            .parse::<i64>()
            .map(|x| x as u64)
            .or_else(|_| t.parse::<u64>())
            .or_else(|_| fail(at, format!("bad RID id '{}'", excerpt(t))))?;
        self.expect(b')')?;
        Ok(id)
    }

    pub(super) fn hex_at(&self, at: usize, n: usize) -> Option<u32> {
        self.s
            .get(at..at + n)
            .and_then(|h| core::str::from_utf8(h).ok())
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    }

    pub(super) fn string(&mut self) -> R<String> {
        self.ws();
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        let open = self.i;
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            // Copy the run of plain bytes up to the next quote or backslash at once.
            let run = self.s[self.i..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\')
                .unwrap_or(self.s.len() - self.i);
            out.extend_from_slice(&self.s[self.i..self.i + run]);
            self.i += run;
            let Some(&c) = self.s.get(self.i) else {
                return fail(open, "unterminated string");
            };
            self.i += 1;
            if c == b'"' {
                break;
            }
            let Some(&e) = self.s.get(self.i) else {
                return fail(open, "unterminated string");
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
                    let Some(mut cp) = self.hex_at(self.i, n) else {
                        return self.err("bad unicode escape");
                    };
                    self.i += n;
                    // A UTF-16 surrogate pair written as two \u escapes.
                    if (0xD800..0xDC00).contains(&cp)
                        && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                    {
                        if let Some(lo @ 0xDC00..=0xDFFF) = self.hex_at(self.i + 2, 4) {
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
        // The engine's strings end at their first NUL: such a string cannot be written as it
        // reads, so the reader refuses it (as the writers do).
        if out.contains(&0) {
            return fail(open, "NUL in a string (the engine's text would end there)");
        }
        // The input is a &str, runs end at ASCII bytes and escapes produce whole characters.
        Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into()))
    }

    /// A container's type: a builtin name, `Variant` (untyped), `Resource("path")` (a script),
    /// or a class name (anything else up to `]` or `,`, trimmed: the engine prints class names
    /// as they are).
    pub(super) fn type_info(&mut self) -> R<TypeInfo> {
        self.ws();
        let at = self.i;
        let name = self.ident();
        if name == "Resource" && self.peek() == Some(b'(') {
            self.i += 1;
            let path = self.string()?;
            self.expect(b')')?;
            return Ok(TypeInfo::Script(path));
        }
        self.i = at;
        let len = self.s[at..]
            .iter()
            .position(|&c| matches!(c, b']' | b',' | b'(' | b'\n'))
            .unwrap_or(self.s.len() - at);
        self.i = at + len;
        let name = core::str::from_utf8(&self.s[at..at + len])
            .unwrap_or("")
            .trim_end_matches(|c: char| c.is_ascii_whitespace());
        if name.is_empty() {
            self.i = at;
            return self.err("expected a type name");
        }
        if name.contains('\0') {
            return fail(at, "NUL in a type name (the engine's text would end there)");
        }
        if name == "Variant" {
            return Ok(TypeInfo::None);
        }
        Ok(match builtin(name) {
            Some(t) => TypeInfo::Builtin(t),
            None => TypeInfo::ClassName(name.into()),
        })
    }
}

/// A builtin type by its Godot 4 name.
fn builtin(name: &str) -> Option<VariantType> {
    Dialect::Godot4.types().find(|t| t.name() == name)
}
