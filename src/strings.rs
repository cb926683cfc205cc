//! The engine's string rules, the layer every reader of strings uses: a leading UTF-8 BOM is
//! stripped, the text ends at the first NUL, then it is checked by the dialect's rules (strict
//! UTF-8 for Godot 4, Godot 3's lenient decoder for Godot 3). [`Text`] is a string so read.

use core::fmt;

use crate::error::{Error, ErrorKind, Result};
use crate::types::Dialect;

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
#[inline]
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
#[inline]
pub(crate) const fn zero_flags(w: u64) -> u64 {
    w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080
}

/// Whether the engine reads `s`, written as a string's bytes, back as `s`: not when it holds a
/// NUL (the text would end there) or starts with a UTF-8 BOM (it would be stripped). The writers
/// write other strings through [`kept_whole`].
#[inline]
pub(crate) fn reads_back(s: &[u8]) -> bool {
    !s.starts_with(BOM) && !has_nul(s)
}

/// Whether `t` holds a NUL byte: up to four overlapping words tested at once for short texts
/// (keys, names, tags; a `memchr` call costs more than the scan), a word at a time up to 64
/// bytes, `memchr` for longer ones. (A wrong `true` would only send a string to the slow path.)
// Inlined: input packet encode and serde from_slice -4 % instructions.
#[inline(always)]
pub(crate) fn has_nul(t: &[u8]) -> bool {
    // Word at a time: input packet encode -9 % instructions, serde from_slice -7 %.
    let zero_in = |x: u64| zero_flags(x) != 0;
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        b.first_chunk::<N>().copied().unwrap_or([0; N])
    }
    let word = |at: usize| u64::from_le_bytes(le(t.get(at..).unwrap_or(&[])));
    let half = |at: usize| u64::from(u32::from_le_bytes(le(t.get(at..).unwrap_or(&[]))));
    let n = t.len();
    if n >= 8 {
        if n <= 32 {
            // Two or four overlapping words, their zero tests merged into one branch.
            let mut z = zero_flags(word(0)) | zero_flags(word(n - 8));
            if n > 16 {
                z |= zero_flags(word(8)) | zero_flags(word(n - 16));
            }
            z != 0
        } else if n <= 64 {
            // Eight bytes at a time, the last word overlapping the one before.
            let mut i = 0;
            while i + 8 < n {
                if zero_in(word(i)) {
                    return true;
                }
                i += 8;
            }
            zero_in(word(n - 8))
        } else {
            memchr::memchr(0, t).is_some()
        }
    } else if n >= 4 {
        // Two overlapping halves.
        zero_in(half(0) | half(n - 4) << 32)
    } else {
        // (Not `contains`: a `memchr` call for at most three bytes.)
        t.iter().fold(false, |nul, &b| nul | (b == 0))
    }
}

/// The bytes to write for a string that does not [`read back`](reads_back) as written: with a
/// BOM before its leading BOM (the reader strips one, as the engine's does, and keeps the rest),
/// or `None` when it holds a NUL, which no bytes can carry (the engine's text ends there).
pub(crate) fn kept_whole(s: &[u8]) -> Option<alloc::vec::Vec<u8>> {
    if s.contains(&0) {
        return None;
    }
    let mut out = alloc::vec::Vec::with_capacity(BOM.len() + s.len());
    out.extend_from_slice(BOM);
    out.extend_from_slice(s);
    Some(out)
}

/// The writers' refusal of a string holding a NUL (see [`kept_whole`]).
pub(crate) fn unwritable(offset: usize) -> Error {
    Error::new(ErrorKind::UnwritableString, offset)
}

/// The position of the first NUL byte of `b`. Most strings are short keys and names without
/// one: up to 32 bytes, overlapping word tests (no call) tell that there is none.
#[inline]
fn nul_at(b: &[u8]) -> Option<usize> {
    memchr::memchr(0, b)
}

/// `t` as a Rust string if it is UTF-8. ASCII text (nearly every name, key and tag) is
/// checked a word at a time (`<[u8]>::is_ascii`, through the `ascii` crate, which makes the
/// `&str` of it): `core::str::from_utf8` costs about five instructions a byte on short strings,
/// which dominated reading a short name. Other text gets `from_utf8`'s full check, after the
/// failed ASCII check (which also counts the ASCII bytes before the first other one).
#[inline]
pub(crate) fn utf8(t: &[u8]) -> Option<&str> {
    // ASCII a word at a time: game state serde from_slice -7 % instructions.
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
