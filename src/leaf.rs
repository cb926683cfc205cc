//! The one decoder of leaves: a value's payload read from its bytes, for every reader of the
//! crate — the lazy views' accessors ([`VariantRef`](crate::VariantRef)), `to_owned`, the serde
//! deserializer and the walks' plain fast paths.
//!
//! Each rule of the format is here once: the 64-bit flag ([`wide`]: from the dialect's layout
//! table), the width of ints, floats and real components, a bool's non-zero payload, the §5
//! string's length, bytes and padding ([`plain_string`]), and the simple text that needs no
//! check beyond one UTF-8 pass ([`simple_text`]). The engine's full string rules (BOM, NUL,
//! each dialect's UTF-8) are `strings`'; [`plain`] is the fast form of "the next plain value"
//! that the walker's fast path ([`Walker::plain`](crate::walker::Walker::plain)) hands out.
//!
//! Everything here reads a slice and returns `None` when the bytes are not all there (or not
//! the simple case): callers that need an error read the value the exact way. Nothing here
//! allocates, loops over more than a value's own bytes, or panics.

// This file's #[inline(always)]s and #[cold], as a group: gs_validate +34 %, in_to_owned +28 %,
// gs_to_owned +15 % time without them (layout-pinned A/B).

use alloc::borrow::Cow;
use alloc::string::String;

use crate::error::Result;
use crate::reader::pad4;
use crate::strings::{ascii_padded, check, decode_godot3, engine_text, utf8};
use crate::types::{layout_index, Dialect, Layout, Shape, VariantType, FLAG_64};

/// The little-endian `u32` at the start of `b`.
#[inline(always)]
pub(crate) fn word(b: &[u8]) -> Option<u32> {
    b.first_chunk().map(|w| u32::from_le_bytes(*w))
}

/// Whether the 64-bit flag of `header`, whose layout is `l`, widens its payload: the flag is
/// set and changes the type's size in the dialect (ints and floats in both dialects, real
/// components and packed vectors in Godot 4 only).
#[inline(always)]
pub(crate) fn wide(header: u32, l: &Layout) -> bool {
    header & FLAG_64 != 0 && l.flag_applies()
}

/// A bool's payload: any non-zero word is true, as in the engine.
#[inline(always)]
pub(crate) fn boolean(p: &[u8]) -> Option<bool> {
    word(p).map(|w| w != 0)
}

/// An int's payload: 64-bit when `wide`, else 32-bit sign-extended.
#[inline(always)]
pub(crate) fn int(p: &[u8], wide: bool) -> Option<i64> {
    if wide {
        p.first_chunk().map(|b| i64::from_le_bytes(*b))
    } else {
        word(p).map(|w| i64::from(w as i32))
    }
}

/// A float's payload: f64 when `wide`, else f32 converted as the engine converts it to its
/// `double` (unlike a real component, see [`reals`]).
#[inline(always)]
pub(crate) fn float(p: &[u8], wide: bool) -> Option<f64> {
    if wide {
        p.first_chunk().map(|b| f64::from_le_bytes(*b))
    } else {
        word(p).map(|w| f64::from(f32::from_bits(w)))
    }
}

/// `N` components of `W` bytes each at the start of `p`, each read by `read`, in one bounds
/// check.
#[inline(always)]
fn components<T: Copy + Default, const N: usize, const W: usize>(
    p: &[u8],
    read: impl Fn([u8; W]) -> T,
) -> Option<[T; N]> {
    let b = p.get(..W * N)?;
    let mut out = [T::default(); N];
    for (x, c) in out.iter_mut().zip(b.chunks_exact(W)) {
        *x = read(c.try_into().ok()?);
    }
    Some(out)
}

/// `N` real components at the start of `p`: f64 when `wide`, else f32 widened exactly, NaN
/// payloads included (the engine keeps them as its `real_t`, see `math::widen`).
#[inline(always)]
pub(crate) fn reals<const N: usize>(p: &[u8], wide: bool) -> Option<[f64; N]> {
    if wide {
        components::<f64, N, 8>(p, f64::from_le_bytes)
    } else {
        components::<f64, N, 4>(p, |b| crate::math::widen(f32::from_le_bytes(b)))
    }
}

/// `N` `i32` components at the start of `p`.
#[inline(always)]
pub(crate) fn ints<const N: usize>(p: &[u8]) -> Option<[i32; N]> {
    components::<i32, N, 4>(p, i32::from_le_bytes)
}

/// `N` `f32` components at the start of `p` (a Color's, which are never 64-bit).
#[inline(always)]
pub(crate) fn singles<const N: usize>(p: &[u8]) -> Option<[f32; N]> {
    components::<f32, N, 4>(p, f32::from_le_bytes)
}

/// The §5 string at the start of `b` (its length word, bytes and padding): its raw bytes
/// (before the engine's BOM strip and NUL cut) and what follows, or `None` (short input, a
/// negative length, and when `ASCII`, bytes or padding that are not all ASCII). The padded size
/// of a short string is a constant of the branch its length predicts.
#[inline(always)]
pub(crate) fn plain_string<const ASCII: bool>(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (l, after) = b.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*l) as usize;
    let (padded, rest) = match len {
        0 => after.split_at_checked(0)?,
        1..=4 => after.split_at_checked(4)?,
        5..=8 => after.split_at_checked(8)?,
        9..=12 => after.split_at_checked(12)?,
        13..=16 => after.split_at_checked(16)?,
        _ if len <= i32::MAX as usize => after.split_at_checked(pad4(len))?,
        _ => return None,
    };
    if ASCII && !ascii_padded(padded) {
        return None;
    }
    Some((padded.get(..len)?, rest))
}

/// The engine text of the raw string bytes `raw` if it is simple: no BOM to strip, no NUL but
/// perhaps one ending it (as the engine writes PackedStringArray elements). Its UTF-8 is not
/// checked here (see [`simple_text`]).
#[cfg(feature = "serde")]
#[inline(always)]
pub(crate) fn plain_text(raw: &[u8]) -> Option<&[u8]> {
    let t = match raw.split_last() {
        Some((0, t)) => t,
        _ => raw,
    };
    (t.first() != Some(&0xEF) && !crate::strings::has_nul(t)).then_some(t)
}

/// The engine text of `raw` as `&str` if it is simple ([`plain_text`]) and valid UTF-8 (so
/// valid in both dialects): the text every reader takes without the dialect's exact check.
#[cfg(feature = "serde")]
#[inline(always)]
pub(crate) fn simple_text(raw: &[u8]) -> Option<&str> {
    utf8(plain_text(raw)?)
}

/// The engine's text of the raw string bytes `raw` at absolute offset `at`, the exact way: a
/// leading BOM stripped, cut at the first NUL, checked by the dialect's rules (the error
/// `validate` gives); borrowed when it is UTF-8, else (text only Godot 3 accepts) decoded as
/// Godot 3 reads it. The slow path of every reader whose [`simple_text`] declined.
#[inline]
pub(crate) fn engine_str(raw: &[u8], at: usize, dialect: Dialect) -> Result<Cow<'_, str>> {
    let (t, skipped) = engine_text(raw);
    match utf8(t) {
        Some(s) => Ok(Cow::Borrowed(s)),
        None => not_utf8(t, at + skipped, dialect).map(Cow::Owned),
    }
}

/// [`engine_str`]'s text `t` (at `at`) that is not UTF-8: checked by the dialect's rules,
/// decoded as Godot 3 reads it.
#[cold]
fn not_utf8(t: &[u8], at: usize, dialect: Dialect) -> Result<String> {
    check(t, dialect, at)?;
    Ok(decode_godot3(t))
}

/// A plain leaf value, read by [`plain`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Leaf<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A String's raw bytes (before the engine's BOM strip and NUL cut).
    String(&'a [u8]),
    /// A StringName's raw bytes (a String's in Godot 3, which has none).
    StringName(&'a [u8]),
    Vector2([f64; 2]),
    Vector3([f64; 3]),
}

#[cfg(feature = "serde")]
impl Leaf<'_> {
    /// Its type.
    #[inline(always)]
    pub(crate) fn ty(&self) -> VariantType {
        use VariantType as T;
        match self {
            Leaf::Nil => T::Nil,
            Leaf::Bool(_) => T::Bool,
            Leaf::Int(_) => T::Int,
            Leaf::Float(_) => T::Float,
            Leaf::String(_) => T::String,
            Leaf::StringName(_) => T::StringName,
            Leaf::Vector2(_) => T::Vector2,
            Leaf::Vector3(_) => T::Vector3,
        }
    }
}

/// Which types [`plain`] reads (a mask of these).
pub(crate) const NIL: u8 = 1;
pub(crate) const BOOL: u8 = 2;
pub(crate) const INT: u8 = 4;
pub(crate) const FLOAT: u8 = 8;
/// String and StringName.
pub(crate) const STR: u8 = 16;
/// Vector2 and Vector3.
pub(crate) const VECTOR: u8 = 32;

/// Where [`plain`] and [`scalar`] put the leaf they read. `leaf` is inlined into the branch
/// that read the leaf, with that leaf's kind known there: the reader builds its own value (a
/// `Variant`, a serde visit) without a second dispatch on the kind.
pub(crate) trait Sink<'a> {
    /// What the sink makes of a leaf.
    type Out;
    /// Takes the leaf just read.
    fn leaf(self, x: Leaf<'a>) -> Self::Out;
}

/// The fast form of "the next plain value": the leaf at the start of `b` (headers read by the
/// dialect's layout `table`) if its type is in `MASK`, all its bytes are there, a string's
/// bytes and padding are ASCII when `ASCII`, and (vectors) its reals are not 64-bit unless
/// `wide_reals`: what `sink` makes of it, and its size. `None` for anything else: the caller
/// reads that value the exact way, which reports any error.
#[inline(always)]
pub(crate) fn plain<'a, S: Sink<'a>, const MASK: u8, const ASCII: bool>(
    b: &'a [u8],
    table: &[Layout; 512],
    wide_reals: bool,
    sink: S,
) -> Option<(S::Out, usize)> {
    use VariantType as T;
    let (h, p) = b.split_first_chunk::<4>()?;
    let l = table[layout_index(u32::from_le_bytes(*h))];
    if MASK & STR != 0 && l.shape == Shape::Str {
        let (raw, rest) = plain_string::<ASCII>(p)?;
        let out = if l.ty == T::String {
            sink.leaf(Leaf::String(raw))
        } else {
            sink.leaf(Leaf::StringName(raw))
        };
        return Some((out, b.len() - rest.len()));
    }
    let (out, n) = match (l.ty, l.shape) {
        (T::Int, Shape::F4) if MASK & INT != 0 => (sink.leaf(Leaf::Int(int(p, false)?)), 4),
        (T::Int, Shape::F8) if MASK & INT != 0 => (sink.leaf(Leaf::Int(int(p, true)?)), 8),
        (T::Float, Shape::F4) if MASK & FLOAT != 0 => (sink.leaf(Leaf::Float(float(p, false)?)), 4),
        (T::Float, Shape::F8) if MASK & FLOAT != 0 => (sink.leaf(Leaf::Float(float(p, true)?)), 8),
        (T::Bool, Shape::F4) if MASK & BOOL != 0 => (sink.leaf(Leaf::Bool(boolean(p)?)), 4),
        // (Not `Shape::Unknown`, whose layout says Nil too.)
        (T::Nil, Shape::F0) if MASK & NIL != 0 => (sink.leaf(Leaf::Nil), 0),
        (T::Vector2, Shape::F8) if MASK & VECTOR != 0 => {
            (sink.leaf(Leaf::Vector2(reals(p, false)?)), 8)
        }
        (T::Vector2, Shape::F16) if MASK & VECTOR != 0 && wide_reals => {
            (sink.leaf(Leaf::Vector2(reals(p, true)?)), 16)
        }
        (T::Vector3, Shape::F12) if MASK & VECTOR != 0 => {
            (sink.leaf(Leaf::Vector3(reals(p, false)?)), 12)
        }
        (T::Vector3, Shape::F24) if MASK & VECTOR != 0 && wide_reals => {
            (sink.leaf(Leaf::Vector3(reals(p, true)?)), 24)
        }
        _ => return None,
    };
    Some((out, 4 + n))
}

/// [`plain`] for the scalars in `MASK` (Nil, bool, int, float, String, StringName), their
/// headers recognised by comparing them with the dialect's exact headers `ids` (and the 64-bit
/// flag of ints and floats), without the layout table: the form of the serde fast paths, which
/// ask for one or two types at a time. Strings are not checked for ASCII.
#[cfg(feature = "serde")]
#[inline(always)]
pub(crate) fn scalar<'a, S: Sink<'a>, const MASK: u8>(
    b: &'a [u8],
    ids: &Ids,
    sink: S,
) -> Option<(S::Out, usize)> {
    let (h, p) = b.split_first_chunk::<4>()?;
    let header = u32::from_le_bytes(*h);
    if MASK & INT != 0 {
        if header == ids.int {
            return Some((sink.leaf(Leaf::Int(int(p, false)?)), 8));
        }
        if header == ids.int | FLAG_64 {
            return Some((sink.leaf(Leaf::Int(int(p, true)?)), 12));
        }
    }
    if MASK & FLOAT != 0 {
        if header == ids.float {
            return Some((sink.leaf(Leaf::Float(float(p, false)?)), 8));
        }
        if header == ids.float | FLAG_64 {
            return Some((sink.leaf(Leaf::Float(float(p, true)?)), 12));
        }
    }
    if MASK & STR != 0 && (header == ids.string || header == ids.string_name) {
        let (raw, rest) = plain_string::<false>(p)?;
        let out = if header == ids.string {
            sink.leaf(Leaf::String(raw))
        } else {
            sink.leaf(Leaf::StringName(raw))
        };
        return Some((out, b.len() - rest.len()));
    }
    if MASK & BOOL != 0 && header == ids.bool_ {
        return Some((sink.leaf(Leaf::Bool(boolean(p)?)), 8));
    }
    if MASK & NIL != 0 && header == ids.nil {
        return Some((sink.leaf(Leaf::Nil), 4));
    }
    None
}

/// The exact headers of a dialect's commonest types (from `types.rs`' one table), for the
/// fast paths that recognise a header by comparing it (see [`scalar`]). Any other header —
/// other flags, container type info, other types — is left to the exact path, which reads it
/// as `head` does.
#[cfg(feature = "serde")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) struct Ids {
    pub(crate) nil: u32,
    pub(crate) bool_: u32,
    pub(crate) int: u32,
    pub(crate) float: u32,
    pub(crate) string: u32,
    /// The String id again in Godot 3, which has no StringName.
    pub(crate) string_name: u32,
    pub(crate) array: u32,
    pub(crate) dictionary: u32,
    pub(crate) strings: u32,
}

#[cfg(feature = "serde")]
impl Ids {
    const GODOT4: Ids = Ids::of(Dialect::Godot4);
    const GODOT3: Ids = Ids::of(Dialect::Godot3);

    /// The exact headers of `dialect`.
    #[inline(always)]
    pub(crate) fn new(dialect: Dialect) -> Ids {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaf itself.
    struct AsLeaf;
    impl<'a> Sink<'a> for AsLeaf {
        type Out = Leaf<'a>;
        fn leaf(self, x: Leaf<'a>) -> Leaf<'a> {
            x
        }
    }

    fn string(t: &[u8]) -> alloc::vec::Vec<u8> {
        let mut b = (t.len() as u32).to_le_bytes().to_vec();
        b.extend_from_slice(t);
        b.resize(4 + pad4(t.len()), 0);
        b
    }

    #[cfg(feature = "serde")]
    #[test]
    fn strings_are_simple_only_without_bom_nul_or_bad_utf8() {
        let s = |t: &[u8]| {
            let b = string(t);
            let (raw, rest) = plain_string::<false>(&b).unwrap();
            assert!(rest.is_empty());
            simple_text(raw).map(str::to_owned)
        };
        assert_eq!(s(b"tags").as_deref(), Some("tags"));
        assert_eq!(s("é".as_bytes()).as_deref(), Some("é"));
        assert_eq!(s(b"ab\0").as_deref(), Some("ab"));
        assert_eq!(s(b"a\0b"), None);
        assert_eq!(s(b"\xef\xbb\xbfa"), None);
        assert_eq!(s(b"caf\xe9"), None);
        // ASCII only when asked; short input and negative lengths never.
        assert!(plain_string::<true>(&string("é".as_bytes())).is_none());
        assert!(plain_string::<false>(&string(b"abcde")[..8]).is_none());
        assert!(plain_string::<false>(&[0xFF, 0xFF, 0xFF, 0xFF]).is_none());
    }

    #[test]
    fn plain_reads_leaves_by_the_dialect_table() {
        let g4 = Dialect::Godot4.layouts();
        let g3 = Dialect::Godot3.layouts();
        let mut b = (2u32 | FLAG_64).to_le_bytes().to_vec();
        b.extend_from_slice(&(-5i64).to_le_bytes());
        assert!(matches!(
            plain::<_, INT, false>(&b, g4, true, AsLeaf),
            Some((Leaf::Int(-5), 12))
        ));
        assert!(plain::<_, FLOAT, false>(&b, g4, true, AsLeaf).is_none());
        assert!(plain::<_, INT, false>(&b[..11], g4, true, AsLeaf).is_none());
        // A 64-bit Vector2 in Godot 4 (declined unless wide reals are read); f32 in Godot 3.
        let mut v = (5u32 | FLAG_64).to_le_bytes().to_vec();
        v.extend_from_slice(&1.5f64.to_le_bytes());
        v.extend_from_slice(&(-2.0f64).to_le_bytes());
        assert!(
            matches!(plain::<_, VECTOR, false>(&v, g4, true, AsLeaf), Some((Leaf::Vector2(a), 20)) if a == [1.5, -2.0])
        );
        assert!(plain::<_, VECTOR, false>(&v, g4, false, AsLeaf).is_none());
        assert!(matches!(
            plain::<_, VECTOR, false>(&v, g3, false, AsLeaf),
            Some((Leaf::Vector2(_), 12))
        ));
        // The same by exact headers (Godot 3's StringName is its String).
        #[cfg(feature = "serde")]
        {
            let ids = Ids::new(Dialect::Godot4);
            assert!(matches!(
                scalar::<_, INT>(&b, &ids, AsLeaf),
                Some((Leaf::Int(-5), 12))
            ));
            assert!(scalar::<_, FLOAT>(&b, &ids, AsLeaf).is_none());
            let mut s = 21u32.to_le_bytes().to_vec();
            s.extend_from_slice(&string(b"hp"));
            assert!(matches!(
                scalar::<_, STR>(&s, &ids, AsLeaf),
                Some((Leaf::StringName(b"hp"), 12))
            ));
            assert!(scalar::<_, STR>(&s, &Ids::new(Dialect::Godot3), AsLeaf).is_none());
        }
        // An unknown type id is not a Nil.
        assert!(plain::<_, NIL, false>(&[0xFF, 0, 0, 0], g4, false, AsLeaf).is_none());
        assert!(matches!(
            plain::<_, NIL, false>(&[0, 0, 0, 0], g4, false, AsLeaf),
            Some((Leaf::Nil, 4))
        ));
        // Any non-zero bool is true.
        assert!(matches!(
            plain::<_, BOOL, false>(&[1, 0, 0, 0, 0, 1, 0, 0], g4, false, AsLeaf),
            Some((Leaf::Bool(true), 8))
        ));
    }
}
