//! The fast paths' reading of scalars and strings: a Nil, bool, int, float, String or
//! StringName read straight from the input bytes (the walker's cursor, or a map's), with exactly
//! the checks `validate` makes, and the text of a string as the deserializer hands it over.
//! Also the one list of the scalar `deserialize_*` methods ([`scalar_methods`]).

use serde::de::{self, DeserializeSeed, Visitor};

use super::error::Result;
use crate::reader::pad4;
use crate::strings::{has_nul, utf8, zero_flags};
use crate::types::{Dialect, VariantType, FLAG_64};

/// Which scalar types a fast path reads (the others it leaves to the event path).
pub(super) const NIL: u8 = 1;
pub(super) const BOOL: u8 = 2;
pub(super) const INT: u8 = 4;
pub(super) const FLOAT: u8 = 8;
pub(super) const STR: u8 = 16;
pub(super) const SCALARS: u8 = NIL | BOOL | INT | FLOAT | STR;

/// A scalar read by a fast path.
#[derive(Clone, Copy)]
enum Scalar<'de> {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'de str),
}

/// The exact headers the fast paths read, in the walk's dialect (from `types.rs`' one table).
/// Any other header — flags, container type info, other types — is left to the event path,
/// which reads it as `head` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ids {
    pub(super) nil: u32,
    pub(super) bool_: u32,
    pub(super) int: u32,
    pub(super) float: u32,
    pub(super) string: u32,
    /// The String id again in Godot 3, which has no StringName.
    pub(super) string_name: u32,
    pub(super) array: u32,
    pub(super) dictionary: u32,
    pub(super) strings: u32,
}

impl Ids {
    const GODOT4: Ids = Ids::of(Dialect::Godot4);
    const GODOT3: Ids = Ids::of(Dialect::Godot3);

    #[inline(always)]
    pub(super) fn new(dialect: Dialect) -> Ids {
        match dialect {
            Dialect::Godot4 => Ids::GODOT4,
            Dialect::Godot3 => Ids::GODOT3,
        }
    }

    const fn of(dialect: Dialect) -> Ids {
        use VariantType as T;
        const fn id(dialect: Dialect, ty: VariantType) -> u32 {
            match dialect.const_id_of(ty) {
                Some(id) => id,
                // Only StringName is missing (Godot 3): it reads as String there.
                None => match dialect.const_id_of(T::String) {
                    Some(id) => id,
                    None => 0,
                },
            }
        }
        Ids {
            nil: id(dialect, T::Nil),
            bool_: id(dialect, T::Bool),
            int: id(dialect, T::Int),
            float: id(dialect, T::Float),
            string: id(dialect, T::String),
            string_name: id(dialect, T::StringName),
            array: id(dialect, T::Array),
            dictionary: id(dialect, T::Dictionary),
            strings: id(dialect, T::PackedStringArray),
        }
    }
}

/// Reads the scalar at the start of `b` if its type is in `MASK` and it is well-formed
/// (`head`'s checks: bounds, and a string's text valid and simple, see [`str_at`]); returns it,
/// its type and its size, or `None`.
#[inline(always)]
fn read_scalar<'de, const MASK: u8>(
    b: &'de [u8],
    ids: &Ids,
) -> Option<(Scalar<'de>, VariantType, usize)> {
    use VariantType as T;
    let (h, rest) = b.split_first_chunk::<4>()?;
    let header = u32::from_le_bytes(*h);
    if MASK & INT != 0 {
        if header == ids.int {
            return Some((Scalar::Int(i64::from(word(rest)? as i32)), T::Int, 8));
        }
        if header == ids.int | FLAG_64 {
            let i = i64::from_le_bytes(*rest.first_chunk()?);
            return Some((Scalar::Int(i), T::Int, 12));
        }
    }
    if MASK & FLOAT != 0 {
        if header == ids.float {
            let f = f64::from(f32::from_bits(word(rest)?));
            return Some((Scalar::Float(f), T::Float, 8));
        }
        if header == ids.float | FLAG_64 {
            let f = f64::from_le_bytes(*rest.first_chunk()?);
            return Some((Scalar::Float(f), T::Float, 12));
        }
    }
    if MASK & STR != 0 && (header == ids.string || header == ids.string_name) {
        let ty = if header == ids.string {
            T::String
        } else {
            T::StringName
        };
        let (s, n) = str_at(rest)?;
        return Some((Scalar::Str(s), ty, 4 + n));
    }
    if MASK & BOOL != 0 && header == ids.bool_ {
        return Some((Scalar::Bool(word(rest)? != 0), T::Bool, 8));
    }
    if MASK & NIL != 0 && header == ids.nil {
        return Some((Scalar::Nil, T::Nil, 4));
    }
    None
}

/// The fast path of a scalar of a type in `MASK` at the start of `b` (see [`read_scalar`]):
/// `commit` takes its size and returns its offset, then `visitor` gets it; `Err(visitor)` back
/// when there is none (nothing committed).
///
/// (Out of line in debug builds, where its locals would otherwise each take a slot in the
/// frames that recurse through it, a nesting level's worth of stack at a time.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(super) fn scalar_at<'de, V: Visitor<'de>, const MASK: u8>(
    b: &'de [u8],
    ids: &Ids,
    dialect: Dialect,
    visitor: V,
    commit: impl FnOnce(usize) -> usize,
) -> core::result::Result<Result<V::Value>, V> {
    if MASK == 0 {
        return Err(visitor);
    }
    match read_scalar::<MASK>(b, ids) {
        Some((s, ty, n)) => {
            let at = commit(n);
            Ok(visit_scalar(s, visitor).map_err(|e| e.value_at(ty, dialect, at)))
        }
        None => Err(visitor),
    }
}

/// The little-endian `u32` at the start of `b`.
#[inline(always)]
pub(super) fn word(b: &[u8]) -> Option<u32> {
    b.first_chunk().map(|w| u32::from_le_bytes(*w))
}

/// The §5 string at the start of `b` (length, bytes, padding: all present, as `head` requires)
/// if its engine text is simple: valid UTF-8 (so valid in both dialects), no BOM to strip, no
/// NUL but perhaps one ending it (as the engine writes PackedStringArray elements). Returns the
/// text and the string's size.
#[inline(always)]
pub(super) fn str_at(b: &[u8]) -> Option<(&str, usize)> {
    let (raw, n) = raw_str_at(b)?;
    Some((utf8(plain_text(raw)?)?, n))
}

/// The raw bytes of the §5 string at the start of `b` and its size with padding, if all of it
/// is there and its length is not negative.
#[inline(always)]
fn raw_str_at(b: &[u8]) -> Option<(&[u8], usize)> {
    let (l, rest) = b.split_first_chunk::<4>()?;
    let len = usize::try_from(i32::from_le_bytes(*l)).ok()?;
    let padded = pad4(len);
    if padded > rest.len() {
        return None;
    }
    Some((rest.get(..len)?, 4 + padded))
}

/// The engine text of `raw` if it is simple (see [`str_at`]; its UTF-8 is not checked here).
#[inline(always)]
pub(super) fn plain_text(raw: &[u8]) -> Option<&[u8]> {
    let t = match raw.split_last() {
        Some((0, t)) => t,
        _ => raw,
    };
    (t.first() != Some(&0xEF) && !has_nul(t)).then_some(t)
}

/// Whether the raw key `raw` is the field name `name` as the engine reads it: the same bytes,
/// no NUL (the engine's text would end there) and no BOM to strip. Short keys (the common
/// case) are compared a word or two at a time, covering every byte with two overlapping
/// loads, without a `memcmp` call.
#[inline(always)]
pub(super) fn is_field(name: &[u8], raw: &[u8]) -> bool {
    let zero_in = |x: u64| zero_flags(x) != 0;
    /// The two overlapping `N`-byte words that cover `b` (`N <= b.len() <= 2 * N`).
    #[inline(always)]
    fn ends<const N: usize>(b: &[u8]) -> Option<(&[u8; N], &[u8; N])> {
        Some((b.first_chunk()?, b.last_chunk()?))
    }
    let n = raw.len();
    if name.len() != n || raw.first() == Some(&0xEF) {
        return false;
    }
    match n {
        0 => true,
        1..=3 => {
            let (a, b, c) = (raw[0], raw[n / 2], raw[n - 1]);
            a == name[0] && b == name[n / 2] && c == name[n - 1] && a != 0 && b != 0 && c != 0
        }
        4..=8 => match (ends::<4>(raw), ends::<4>(name)) {
            (Some((r0, r1)), Some((n0, n1))) => {
                let r =
                    u64::from(u32::from_le_bytes(*r0)) | u64::from(u32::from_le_bytes(*r1)) << 32;
                let m =
                    u64::from(u32::from_le_bytes(*n0)) | u64::from(u32::from_le_bytes(*n1)) << 32;
                r == m && !zero_in(r)
            }
            _ => false,
        },
        9..=16 => match (ends::<8>(raw), ends::<8>(name)) {
            (Some((r0, r1)), Some((n0, n1))) => {
                let (r0, r1) = (u64::from_le_bytes(*r0), u64::from_le_bytes(*r1));
                r0 == u64::from_le_bytes(*n0)
                    && r1 == u64::from_le_bytes(*n1)
                    && !zero_in(r0)
                    && !zero_in(r1)
            }
            _ => false,
        },
        _ => name == raw && !has_nul(raw),
    }
}

/// A string's text when [`str_at`] declined: the engine text, checked by the dialect's rules
/// (the error `validate` gives); borrowed when it is UTF-8, else (text only Godot 3 accepts)
/// decoded as Godot 3 reads it.
#[cold]
pub(super) fn slow_str(
    raw: &[u8],
    at: usize,
    dialect: Dialect,
) -> Result<alloc::borrow::Cow<'_, str>> {
    let (t, skipped) = crate::strings::engine_text(raw);
    match core::str::from_utf8(t) {
        Ok(s) => Ok(s.into()),
        Err(_) => {
            crate::strings::check(t, dialect, at + skipped)?;
            Ok(crate::strings::decode_godot3(t).into())
        }
    }
}

/// Hands a text to `seed`: borrowed from the input, or a string of its own (Godot 3 text read
/// as the engine reads it).
#[inline]
pub(super) fn str_seed<'de, T: DeserializeSeed<'de>>(
    s: alloc::borrow::Cow<'de, str>,
    seed: T,
) -> Result<T::Value> {
    match s {
        alloc::borrow::Cow::Borrowed(s) => {
            seed.deserialize(de::value::BorrowedStrDeserializer::new(s))
        }
        alloc::borrow::Cow::Owned(s) => seed.deserialize(de::value::StringDeserializer::new(s)),
    }
}

#[inline(always)]
fn visit_scalar<'de, V: Visitor<'de>>(s: Scalar<'de>, visitor: V) -> Result<V::Value> {
    match s {
        Scalar::Nil => visitor.visit_unit(),
        Scalar::Bool(b) => visitor.visit_bool(b),
        Scalar::Int(i) => visitor.visit_i64(i),
        Scalar::Float(f) => visitor.visit_f64(f),
        Scalar::Str(s) => visitor.visit_borrowed_str(s),
    }
}

/// The scalar `deserialize_*` methods and the types their fast paths read (none: bytes, which
/// the event path reads), written by `$m`: one list for the deserializer (`scalar!`) and for a
/// map's values (`slot_scalar!`).
macro_rules! scalar_methods {
    ($m:ident) => {
        $m! {
            deserialize_bool BOOL;
            deserialize_i8 INT;
            deserialize_i16 INT;
            deserialize_i32 INT;
            deserialize_i64 INT;
            deserialize_i128 INT;
            deserialize_u8 INT;
            deserialize_u16 INT;
            deserialize_u32 INT;
            deserialize_u64 INT;
            deserialize_u128 INT;
            deserialize_f32 INT | FLOAT;
            deserialize_f64 INT | FLOAT;
            deserialize_char STR;
            deserialize_str STR;
            deserialize_string STR;
            deserialize_unit NIL;
            deserialize_bytes 0;
            deserialize_byte_buf 0;
        }
    };
}
pub(super) use scalar_methods;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_take_the_fast_path_only_when_simple() {
        // (`utf8` itself: `text`'s tests.)
        // Strings through the fast path: ASCII and not, and text it leaves to the slow path.
        let s = |t: &[u8]| {
            let mut b = (t.len() as u32).to_le_bytes().to_vec();
            b.extend_from_slice(t);
            b.resize(4 + pad4(t.len()), 0);
            str_at(&b).map(|(s, n)| (s.to_owned(), n))
        };
        assert_eq!(s(b"tags"), Some(("tags".into(), 8)));
        assert_eq!(s("é".as_bytes()), Some(("é".into(), 8)));
        assert_eq!(s(b"a\0b"), None);
        assert_eq!(s(b"\xef\xbb\xbfa"), None);
        assert_eq!(s(b"caf\xe9"), None);
    }

    #[test]
    fn has_nul_finds_a_nul_at_every_position_of_every_length() {
        // Every length through each branch (up to 3, halves, two and four words, the word
        // loop, memchr), a NUL at each position, among bytes that bend the word test (0x01
        // borrows, 0x80 and 0xFF set the high bits).
        for fill in [b'a', 0x01, 0x80, 0xFF] {
            for n in 0..=80 {
                let mut t = vec![fill; n];
                assert!(!has_nul(&t), "no NUL: {n} bytes of {fill:#x}");
                for p in 0..n {
                    t[p] = 0;
                    assert!(has_nul(&t), "NUL at {p} of {n} ({fill:#x})");
                    t[p] = fill;
                }
            }
        }
    }
}
