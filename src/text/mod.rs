//! Text: the engine's string text ([`Text`], always available) and, with the `text` feature,
//! the engine's text form of whole values — what Godot 4's `var_to_str` and Godot 3's
//! `var2str` print, and what `str_to_var` / `str2var` read.
//!
//! # Strings
//!
//! Strings are read as the engine reads them: BOM stripped, cut at the first NUL, then UTF-8
//! checked by the dialect's rules (strict for Godot 4, Godot 3's lenient decoder for Godot 3).
//!
//! # The text form (feature `text`)
//!
//! [`to_string`] prints a lazy [`VariantRef`] byte for byte as the engine does, for every value
//! that is not an Object, including its quirks: floats in the engine's number format, `-0.0`
//! as `0.0`, dictionary keys **sorted** the way the engine sorts them (with its own introsort,
//! so even keys the engine cannot order come out in the engine's order), one key per line,
//! typed containers as `Array[int]([1, 2])`, Godot 3's spaced `Vector2( 1, 2 )` layout, and so
//! on. The dialect is the one the value was read with. [`from_str`] reads such text back.
//!
//! # What the text cannot carry
//!
//! The engine's text form is lossy, and so is this one, exactly where the engine's is:
//! [`round_trip`] tells, for a given value, whether its text gives back its bytes and if not,
//! names the first reason ([`LossKind`]): Dictionary keys printed sorted, keys that are the
//! same key to the engine (merged when read), `-0.0` (printed `0`), NaNs other than the canonical one, Godot 3's
//! 6-digit floats, Signals (printed `Signal()`), NodePaths whose text reads back as another
//! path, container types and object names that the text cannot spell (an empty class name
//! prints as the engine prints it, `Object` or `EncodedObjectAsID`), Godot 3 RIDs (printed as
//! nothing), typed containers the engine reads as others (their types or elements converted:
//! the text prints the engine's value), components in another precision than the one written
//! (or narrowed by a single-precision engine), Godot 3 text that Rust's strings cannot hold,
//! and bytes that are not the encoder's canonical form. `gdvariant decode` warns when one
//! applies. The [JSON form](crate::json) carries everything but the last two.
//!
//! # Reading
//!
//! [`from_str_with`] refuses, with an error at the value, whatever
//! [`validate_with`](crate::validate_with) with the same options would refuse in the bytes
//! (depth, dialect, object policy, the `script` property rule); [`from_str`] reads full objects
//! with the engine's depth limit, as `str_to_var`. The reader is iterative (nesting costs a few
//! heap bytes a level, never native stack), merges repeated keys as `str_to_var` does, by the
//! key identity of the dialect's engine (see [`Dictionary`](crate::Dictionary)), through a hash
//! (reading `n` entries of any key type is O(n) expected), and [`to_bytes`] writes the encoding
//! without building a tree (memory: the output plus the keys and a small record per entry of
//! each open Dictionary). Error messages quote at most
//! 32 characters of the input.
//!
//! Objects print in the engine's layout (`Object(Class,"prop":value,...)` and a newline), but
//! the engine prints the *live* object's property list, which bytes cannot tell; an object sent
//! as an instance id prints as the `EncodedObjectAsID` the engine decodes it to.
//!
//! Printing walks the value twice, linearly, without native recursion (any depth is fine on any
//! stack) and writes nothing if the value is malformed. Memory: 4 bytes per key of every
//! dictionary with two or more entries (8 past 4 GiB of input), plus a stack entry per open
//! container. [`VariantRef`] and [`Variant`] implement `Display` in this form.
//!
//! ```
//! # #[cfg(feature = "text")]
//! # fn main() -> Result<(), gdvariant::Error> {
//! use gdvariant::{text, Dialect, Variant};
//! // var_to_bytes({"b": 1.5, "a": [1, 2]}) in Godot 4
//! let bytes = [27, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'b', 0, 0, 0,
//!              3, 0, 0, 0, 0, 0, 0xC0, 0x3F, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0,
//!              28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0];
//! let v = gdvariant::parse(&bytes)?;
//! assert_eq!(text::to_string(&v)?, "{\n\"a\": [1, 2],\n\"b\": 1.5\n}");
//! assert_eq!(v.to_string(), text::to_string(&v)?);          // Display
//! let back = text::from_str("{\n\"a\": [1, 2],\n\"b\": 1.5\n}", Dialect::Godot4).unwrap();
//! assert_eq!(back.to_string(), v.to_string());
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "text"))]
//! # fn main() {}
//! ```

use core::fmt;

use crate::error::{Error, ErrorKind, Result};
use crate::types::Dialect;

#[cfg(feature = "text")]
mod loss;
#[cfg(feature = "text")]
mod parse;
#[cfg(feature = "text")]
mod print;

#[cfg(feature = "text")]
pub use loss::{round_trip, LossKind, TextLoss};
#[cfg(feature = "text")]
pub use parse::{from_str, from_str_values, from_str_with, to_bytes, to_bytes_each, ParseError};

#[cfg(feature = "text")]
use crate::{owned::Variant, value::VariantRef};

/// The engine text of `v` (see the [module docs](self)): `var_to_str` in Godot 4, `var2str` in
/// Godot 3, by the dialect `v` was read with. Errors if `v` is malformed.
#[cfg(feature = "text")]
pub fn to_string(v: &VariantRef<'_>) -> Result<std::string::String> {
    crate::out::to_string(|s| print::print(v, s))
}

/// Writes the engine text of `v` to `out`. The whole value is checked before anything is
/// written: a malformed value is `Err` with nothing written; a failing writer is `Ok(Err(_))`.
#[cfg(feature = "text")]
pub fn to_fmt<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> Result<fmt::Result> {
    crate::out::to_fmt(|| print::print(v, out))
}

/// Writes the engine text of `v` to `out` through a 64 KiB buffer, then flushes it. A malformed
/// value is an [`std::io::ErrorKind::InvalidData`] error (nothing written) whose
/// [`get_ref`](std::io::Error::get_ref) is the [`Error`], with its offset.
#[cfg(feature = "text")]
pub fn to_writer<W: std::io::Write>(v: &VariantRef<'_>, out: W) -> std::io::Result<()> {
    crate::out::to_writer(out, |o| print::print(v, o))
}

/// The engine text (what [`to_string`] returns). A malformed value prints as
/// `<invalid: what at offset N>` (formatting does not fail: `format!` would panic).
#[cfg(feature = "text")]
impl fmt::Display for VariantRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match to_fmt(self, f) {
            Ok(r) => r,
            Err(e) => write!(f, "<invalid: {e}>"),
        }
    }
}

/// Godot 4's `var_to_str` text of the value (math components in double precision when they are
/// not exact `f32`s, as a double-precision build prints them). A value that cannot be encoded
/// prints as `<cannot print: what>`.
#[cfg(feature = "text")]
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opts = crate::EncodeOptions::new()
            .with_double_precision(true)
            .with_full_objects(true);
        let bytes = match crate::encode_with(self, &opts) {
            Ok(b) => b,
            Err(e) => return write!(f, "<cannot print: {e}>"),
        };
        let read = crate::ReadOptions::new()
            .with_full_objects(true)
            .with_double_precision(true);
        match crate::parse_with(&bytes, &read) {
            Ok(v) => fmt::Display::fmt(&v, f),
            Err(e) => write!(f, "<cannot print: {e}>"),
        }
    }
}

/// The UTF-8 byte order mark, which the engine strips from the front of a string.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Applies the engine's framing of string bytes: strips a leading UTF-8 BOM, then ends the text
/// at the first NUL byte. Returns the text bytes and how many bytes were dropped at the front.
#[inline]
pub(crate) fn engine_text(raw: &[u8]) -> (&[u8], usize) {
    let (body, skipped) = match raw.strip_prefix(BOM) {
        Some(rest) => (rest, BOM.len()),
        None => (raw, 0),
    };
    let nul = nul_at(body);
    match nul {
        Some(nul) => (&body[..nul], skipped),
        None => (body, skipped),
    }
}

/// Whether `b` (a string's bytes with their padding, a multiple of 4 long) is all ASCII, in
/// at most four word loads up to 32 bytes (overlapping, from both ends): the fast path of
/// string checks, as keys and names are short ASCII.
#[inline(always)]
pub(crate) fn ascii_padded(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let word = |c: Option<&[u8; 8]>| c.map_or(HIGH, |c| u64::from_le_bytes(*c));
    let half = |c: Option<&[u8; 4]>| c.map_or(HIGH, |c| u64::from(u32::from_le_bytes(*c)));
    let any = if n > 16 {
        if n > 32 {
            return b.is_ascii();
        }
        let mid = b.get(8..).and_then(<[u8]>::first_chunk::<8>);
        let mid2 = b.get(..n - 8).and_then(<[u8]>::last_chunk::<8>);
        word(b.first_chunk()) | word(mid) | word(mid2) | word(b.last_chunk())
    } else if n >= 8 {
        word(b.first_chunk()) | word(b.last_chunk())
    } else if n >= 4 {
        half(b.first_chunk()) | half(b.last_chunk())
    } else {
        // Never from the reader (padded lengths are multiples of 4).
        return b.is_ascii();
    };
    any & HIGH == 0
}

/// The word-at-a-time zero-byte test of the text readers: the high bit of `w`'s lowest zero byte
/// is set (and perhaps of bytes above it, which only matters to a caller wanting more than
/// whether there is one), so the result is nonzero exactly when `w` has a zero byte. Tests of
/// several words can be merged by or-ing their results.
#[inline(always)]
pub(crate) const fn zero_flags(w: u64) -> u64 {
    w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080
}

/// The position of the first NUL byte of `b`. Most strings are short keys and names without
/// one: up to 32 bytes, overlapping word tests (no call) tell that there is none.
#[inline(always)]
fn nul_at(b: &[u8]) -> Option<usize> {
    let zero = |w: u64| zero_flags(w) != 0;
    let word = |c: Option<&[u8; 8]>| c.map_or(0, |c| u64::from_le_bytes(*c));
    let n = b.len();
    let any = if n > 32 {
        return memchr::memchr(0, b);
    } else if n > 16 {
        let mid = b.get(8..).and_then(<[u8]>::first_chunk::<8>);
        let mid2 = b.get(..n - 8).and_then(<[u8]>::last_chunk::<8>);
        zero(word(b.first_chunk()))
            || zero(word(mid))
            || zero(word(mid2))
            || zero(word(b.last_chunk()))
    } else if n >= 8 {
        zero(word(b.first_chunk())) || zero(word(b.last_chunk()))
    } else {
        true
    };
    if any {
        b.iter().position(|&c| c == 0)
    } else {
        None
    }
}

/// `t` as a Rust string if it is UTF-8. ASCII text (nearly every name, key and tag) is
/// checked a word at a time (`<[u8]>::is_ascii`, through the `ascii` crate, which makes the
/// `&str` of it): `core::str::from_utf8` costs about five instructions a byte on short strings,
/// which dominated reading a short name. Other text gets `from_utf8`'s full check, after the
/// failed ASCII check (which also counts the ASCII bytes before the first other one).
#[inline(always)]
pub(crate) fn utf8(t: &[u8]) -> Option<&str> {
    match ascii::AsciiStr::from_ascii(t) {
        Ok(a) => Some(a.as_str()),
        Err(_) => core::str::from_utf8(t).ok(),
    }
}

/// Checks `text` (already BOM-stripped and NUL-cut) against the dialect's rules. `at` is the
/// absolute offset of `text[0]`; an error points at the first offending byte.
#[inline]
pub(crate) fn check(text: &[u8], dialect: Dialect, at: usize) -> Result<()> {
    if text.is_ascii() {
        return Ok(());
    }
    match core::str::from_utf8(text) {
        Ok(_) => Ok(()),
        Err(e) => match dialect {
            Dialect::Godot4 => Err(Error::new(ErrorKind::InvalidUtf8, at + e.valid_up_to())),
            Dialect::Godot3 => check_godot3(text, at),
        },
    }
}

/// Godot 3's `String::parse_utf8`: lead bytes 0xC0–0xFD start sequences of 2–6 bytes, every
/// continuation byte must be `10xxxxxx`; 2-byte overlong forms (lead 0xC0/0xC1) are rejected,
/// and so is a longer form whose lead and first continuation byte carry no bits while the top
/// `len - 3` bits of the second continuation byte's six are zero too (the engine's "invalid
/// utf8 overlong": `E0 80 80`–`E0 80 8F`, `F0 80 80 80`–`F0 80 87 BF`, every overlong form of
/// U+0000; checked live on Godot 3.2.3). Surrogates, the other overlong 3–6 byte forms (`E0 81
/// 81` is `A`) and code points above U+10FFFF pass.
#[cold]
fn check_godot3(text: &[u8], at: usize) -> Result<()> {
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let extra = if c & 0x80 == 0 {
            0
        } else if c & 0xE0 == 0xC0 {
            if c & 0x1E == 0 {
                return Err(Error::new(ErrorKind::InvalidUtf8, at + i));
            }
            1
        } else if c & 0xF0 == 0xE0 {
            2
        } else if c & 0xF8 == 0xF0 {
            3
        } else if c & 0xFC == 0xF8 {
            4
        } else if c & 0xFE == 0xFC {
            5
        } else {
            return Err(Error::new(ErrorKind::InvalidUtf8, at + i));
        };
        let Some(cont) = text.get(i + 1..i + 1 + extra) else {
            return Err(Error::new(ErrorKind::InvalidUtf8, at + i));
        };
        // In the engine's order: each continuation byte, and at the second one the overlong
        // rule (the bits so far all zero and the top len - 3 of its six too).
        let len = extra + 1;
        let mut bits = u32::from(c) & (0xFF >> (len + 1));
        for (j, &b) in cont.iter().enumerate() {
            if b & 0xC0 != 0x80 || (j == 1 && bits == 0 && u32::from(b & 0x3F) >> (7 - len) == 0) {
                return Err(Error::new(ErrorKind::InvalidUtf8, at + i + 1 + j));
            }
            bits = bits << 6 | u32::from(b & 0x3F);
        }
        i += 1 + extra;
    }
    Ok(())
}

/// Decodes text that Godot 3's `String::parse_utf8` accepts (checked by [`check`]) into the
/// characters the engine reads: valid UTF-8 as it is, overlong 3- to 6-byte forms as the
/// character they encode (`E0 81 81` is `A`). Code points a Rust `char` cannot hold — encoded
/// surrogates and values above U+10FFFF, which Godot 3 keeps in its UTF-32 strings — become
/// U+FFFD. Bytes the engine would reject (never passed here after a check) also become U+FFFD.
pub(crate) fn decode_godot3(text: &[u8]) -> alloc::string::String {
    let mut out = alloc::string::String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let (extra, lead_bits) = if c & 0x80 == 0 {
            (0, u32::from(c))
        } else if c & 0xE0 == 0xC0 {
            (1, u32::from(c & 0x1F))
        } else if c & 0xF0 == 0xE0 {
            (2, u32::from(c & 0x0F))
        } else if c & 0xF8 == 0xF0 {
            (3, u32::from(c & 0x07))
        } else if c & 0xFC == 0xF8 {
            (4, u32::from(c & 0x03))
        } else if c & 0xFE == 0xFC {
            (5, u32::from(c & 0x01))
        } else {
            out.push(char::REPLACEMENT_CHARACTER);
            i += 1;
            continue;
        };
        let cont = text.get(i + 1..i + 1 + extra);
        match cont {
            Some(cont) if cont.iter().all(|&b| b & 0xC0 == 0x80) => {
                let cp = cont
                    .iter()
                    .fold(lead_bits, |acc, &b| (acc << 6) | u32::from(b & 0x3F));
                out.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += 1 + extra;
            }
            _ => {
                out.push(char::REPLACEMENT_CHARACTER);
                i += 1;
            }
        }
    }
    out
}

/// A string's text as the engine reads it, checked by the dialect's rules.
///
/// In the Godot 4 dialect it is always valid UTF-8. In the Godot 3 dialect it may hold what
/// Godot 3 accepts but UTF-8 does not (overlong forms, encoded surrogates, 5- and 6-byte
/// forms): then [`as_str`](Text::as_str) is `None` (a `&str` cannot borrow bytes that are not
/// UTF-8), and [`to_string_lossy`](Text::to_string_lossy) gives the characters the engine reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Text<'a> {
    bytes: &'a [u8],
}

impl<'a> Text<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Text<'a> {
        Text { bytes }
    }

    /// The text's bytes (after BOM strip and NUL cut), borrowed from the input.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The text as `&str` when it is valid UTF-8 (always, in the Godot 4 dialect).
    pub fn as_str(&self) -> Option<&'a str> {
        utf8(self.bytes)
    }

    /// The text as the engine reads it: borrowed when it is UTF-8; otherwise (Godot 3 only)
    /// decoded as Godot 3 decodes it — an overlong form is the character it encodes — with the
    /// code points a Rust `char` cannot hold (encoded surrogates, values above U+10FFFF)
    /// replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> alloc::borrow::Cow<'a, str> {
        match utf8(self.bytes) {
            Some(s) => alloc::borrow::Cow::Borrowed(s),
            None => alloc::borrow::Cow::Owned(decode_godot3(self.bytes)),
        }
    }

    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl PartialEq<str> for Text<'_> {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for Text<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl AsRef<[u8]> for Text<'_> {
    fn as_ref(&self) -> &[u8] {
        self.bytes
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => fmt::Debug::fmt(s, f),
            None => write!(f, "Text({:?})", self.bytes),
        }
    }
}

/// The text as [`to_string_lossy`](Text::to_string_lossy) gives it.
impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_gives_from_utf8s_answers() {
        // ASCII: the word-at-a-time check, every length around the word sizes.
        let ascii = b"player_one_with_a_name_and_more";
        for n in 0..ascii.len() {
            assert_eq!(utf8(&ascii[..n]).map(str::as_bytes), Some(&ascii[..n]));
        }
        // Other UTF-8, ASCII before and after: `from_utf8`.
        for t in ["héros ⚔", "a é", "é a", "naïve text longer than a word"] {
            assert_eq!(utf8(t.as_bytes()), Some(t));
        }
        // Not UTF-8 (Latin-1, a lone continuation byte, a truncated sequence, a surrogate, an
        // overlong form): refused, as `from_utf8` refuses them.
        for bad in [
            &b"caf\xe9"[..],
            b"\x80",
            b"ok\xe2\x82",
            b"\xed\xa0\x80",
            b"\xe0\x80\x80",
        ] {
            assert!(core::str::from_utf8(bad).is_err());
            assert_eq!(utf8(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn bom_and_nul() {
        assert_eq!(engine_text(b"\xEF\xBB\xBFab\0cd"), (&b"ab"[..], 3));
        assert_eq!(engine_text(b"a\0\xFF"), (&b"a"[..], 0));
        assert_eq!(engine_text(b""), (&b""[..], 0));
        assert_eq!(engine_text(b"\xEF\xBB"), (&b"\xEF\xBB"[..], 0));
    }

    #[test]
    fn text_compares_with_str() {
        let t = Text::new(b"pos");
        assert!(t == "pos" && t != "po");
        assert_eq!(t.as_ref(), b"pos");
    }

    #[test]
    fn dialect_rules() {
        let surrogate = b"\xED\xA0\x80";
        assert_eq!(
            check(surrogate, Dialect::Godot4, 10).unwrap_err().offset(),
            10
        );
        assert!(check(surrogate, Dialect::Godot3, 0).is_ok());
        assert!(check(b"\xF8\x88\x80\x80\x80", Dialect::Godot3, 0).is_ok());
        assert!(check(b"\xC0\x80", Dialect::Godot3, 0).is_err());
        // Overlong forms: refused where the engine's rule refuses them (checked live).
        assert!(check(b"\xE0\x81\x81", Dialect::Godot3, 0).is_ok());
        assert_eq!(
            check(b"\xE0\x80\x80", Dialect::Godot3, 0)
                .unwrap_err()
                .offset(),
            2
        );
        assert_eq!(
            check(b"a\xE2\x82", Dialect::Godot3, 0)
                .unwrap_err()
                .offset(),
            1
        );
        assert_eq!(
            check(b"ab\xE2\x28\xA1", Dialect::Godot3, 5)
                .unwrap_err()
                .offset(),
            8
        );
        assert!(check(b"\xFE", Dialect::Godot3, 0).is_err());
        assert!(check("h\u{e9}llo \u{1F600}".as_bytes(), Dialect::Godot4, 0).is_ok());
    }
}
