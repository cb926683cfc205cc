//! The JSON form's lexer: whitespace, punctuation, strings (with JSON's escapes) and numbers by
//! JSON's grammar, read as the typed JSON reader ([`super::parse`]) asks for them; and the text
//! of the non-finite numbers (`"nan"`, `"-inf"`, `"nan(0x…)"`) that the JSON printer writes.

use std::string::String;
use std::vec::Vec;

use crate::builder::Fail;
use crate::literal::excerpt;

/// A lexer result: [`Fail`] with the offset and message of what went wrong.
pub(super) type R<T = ()> = core::result::Result<T, Fail>;

/// A failure at `offset` with `message`.
pub(super) fn fail<T>(offset: usize, message: impl Into<String>) -> R<T> {
    crate::builder::fail(offset, message)
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

/// The lexer: the input and the position in it.
pub(super) struct P<'a> {
    /// The input.
    pub(super) s: &'a [u8],
    /// The position in it.
    pub(super) i: usize,
    /// Whether a value carried `"$f64": true`.
    pub(super) wide: bool,
}

impl<'a> P<'a> {
    pub(super) fn new(input: &'a str) -> P<'a> {
        P {
            s: input.as_bytes(),
            i: 0,
            wide: false,
        }
    }

    pub(super) fn more(&mut self) -> bool {
        self.ws();
        self.i < self.s.len()
    }

    pub(super) fn err<T>(&self, m: impl Into<String>) -> R<T> {
        fail(self.i, m)
    }

    pub(super) fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
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

    pub(super) fn expect(&mut self, c: u8, what: &str) -> R {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected {what}"))
        }
    }

    pub(super) fn hex4(&mut self) -> R<u32> {
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
    pub(super) fn string(&mut self) -> R<String> {
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
    pub(super) fn number(&mut self) -> R<&'a str> {
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

    pub(super) fn int(&mut self) -> R<i64> {
        self.ws();
        let at = self.i;
        let t = self.number()?;
        t.parse::<i64>()
            .or_else(|_| fail(at, "expected an integer (64-bit)"))
    }

    pub(super) fn uint(&mut self, what: &str) -> R<u64> {
        self.ws();
        let at = self.i;
        let t = self.number()?;
        t.parse::<u64>()
            .or_else(|_| fail(at, format!("bad {what}")))
    }

    /// A real: a number, or a non-finite word in a `width`-bit context; `(f64, f32)` read from
    /// the decimal each way (the f32 straight from the decimal, no double rounding).
    pub(super) fn real(&mut self) -> R<(f64, f32)> {
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

    pub(super) fn real64(&mut self) -> R<f64> {
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

    pub(super) fn real32(&mut self) -> R<f32> {
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
    pub(super) fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
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
    pub(super) fn fixed<T: Copy + Default, const N: usize>(
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

    pub(super) fn i32_of(&mut self, what: &str) -> R<i32> {
        self.ws();
        let at = self.i;
        let x = self.int()?;
        i32::try_from(x).or_else(|_| fail(at, format!("{what} out of range")))
    }

    /// A literal `true` or `false`.
    pub(super) fn boolean(&mut self) -> R<bool> {
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
}

/// Whether `t` is a number by JSON's grammar (RFC 8259 §6):
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` — no leading zeros, no bare `.`.
pub(super) fn is_json_number(t: &[u8]) -> bool {
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
    pub(super) fn nan_texts_carry_the_bits() {
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
}
