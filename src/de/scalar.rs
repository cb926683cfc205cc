//! The fast paths' reading of scalars and strings: a Nil, bool, int, float, String or
//! StringName read straight from the input bytes (the walker's cursor, or a map's), with exactly
//! the checks `validate` makes, and the text of a string as the deserializer hands it over.
//! Also the one list of the scalar `deserialize_*` methods ([`scalar_methods`]).

// This file's #[inline(always)]s and debug-only switches, as a group: in_serde +37 %, gs_serde +10
// % time without them (layout-pinned A/B).

use serde::de::{self, DeserializeSeed, Visitor};

use super::error::Result;
use crate::leaf::{self, simple_text, Leaf};
use crate::strings::{has_nul, zero_flags};
use crate::types::{Dialect, VariantType};

/// Which scalar types a fast path reads (the others it leaves to the event path): masks of
/// the one decoder of leaves.
pub(super) use crate::leaf::{BOOL, FLOAT, INT, NIL, STR};
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

pub(super) use crate::leaf::Ids;

/// Reads the scalar at the start of `b` if its type is in `MASK` and it is well-formed, by the
/// one decoder of leaves ([`leaf::scalar`], the dialect's exact headers `ids`), a string's text
/// simple ([`simple_text`]); returns it, its type and its size, or `None`.
#[inline(always)]
fn read_scalar<'de, const MASK: u8>(
    b: &'de [u8],
    ids: &Ids,
) -> Option<(Scalar<'de>, VariantType, usize)> {
    match leaf::scalar::<_, MASK>(b, ids, AsScalar)? {
        (Some((s, ty)), n) => Some((s, ty, n)),
        (None, _) => None,
    }
}

/// [`read_scalar`]'s sink: a scalar and its type, or `None` (a string whose text is not simple).
struct AsScalar;

impl<'de> leaf::Sink<'de> for AsScalar {
    type Out = Option<(Scalar<'de>, VariantType)>;

    #[inline(always)]
    fn leaf(self, x: Leaf<'de>) -> Self::Out {
        let s = match x {
            Leaf::Nil => Scalar::Nil,
            Leaf::Bool(b) => Scalar::Bool(b),
            Leaf::Int(i) => Scalar::Int(i),
            Leaf::Float(f) => Scalar::Float(f),
            Leaf::String(raw) | Leaf::StringName(raw) => Scalar::Str(simple_text(raw)?),
            // (Not in any mask of a scalar.)
            Leaf::Vector2(_) | Leaf::Vector3(_) => return None,
        };
        Some((s, x.ty()))
    }
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
