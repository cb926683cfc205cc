//! serde deserialization: Godot values onto your own Rust types, borrowing from the input.
//!
//! [`from_slice`] reads the Godot 4 value at the start of a buffer into any
//! `T: Deserialize<'de>`. Strings and StringNames become `&'de str` (or `String`), a
//! PackedByteArray `&'de [u8]`, a PackedStringArray or an Array of Strings `Vec<&'de str>`;
//! structs read Dictionaries with String (or StringName) keys, sequences read Arrays (and
//! packed arrays and math types, as sequences of their elements), maps read Dictionaries with
//! any keys, `Option` reads Nil as `None`, enums are externally tagged (`{"Name": value}`, a
//! unit variant as its name). Integers are accepted where floats are expected, as GDScript
//! senders write `100` for a float field; an int out of the target's range is an error.
//!
//! The deserializer runs on the crate's one pull-event [`Walker`]: every bound, string, type
//! id, the depth limit, the object policy and the `script` rule are checked as it goes, in one
//! pass, without allocating for the values it reads. The commonest values (scalars, strings,
//! math types, the heads of untyped containers, the strings of a PackedStringArray) are read
//! straight from the input, with exactly the checks `validate` makes, without building an
//! [`Event`]: a struct's or map's Dictionary reads its keys and such values on a cursor of its
//! own, kept in the visitor's frame (in registers: each key and value is handed over by value,
//! and the map learns where it ended from the deserializer), and moves the walker to a value
//! before anything else reads it; everything else goes through the walker's events.
//!
//! Errors say where, with the field path and the byte offset, and name the Godot type found:
//! `entities[9999].pos: expected Vector3, found String at offset 1754192`. serde's own nesting
//! limit (128, as serde_json) applies on top of the engine's 1024.
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Entity<'a> {
//!     id: i64,
//!     name: &'a str,
//!     pos: gdvariant::Vector3,
//! }
//! #[derive(Deserialize)]
//! struct State<'a> {
//!     tick: i64,
//!     #[serde(borrow)]
//!     entities: Vec<Entity<'a>>,
//! }
//!
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/game_state.bin")).unwrap();
//! let state: State<'_> = gdvariant::from_slice(&bytes)?;
//! assert_eq!(state.tick, 123456);
//! assert_eq!(state.entities[3].name, "entity_3");          // points into `bytes`
//! assert_eq!(state.entities[3].pos, gdvariant::Vector3::new(3.0, 1.5, -3.0));
//! # Ok::<(), gdvariant::de::Error>(())
//! ```

use alloc::string::String;
use core::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use crate::head::{head, skip_plain, skip_string, Body};
use crate::object::ObjectRef;
use crate::reader::{counted, pad4, suffix, Reader};
use crate::serde_impl::{options_word, Magic};
use crate::strings::{has_nul, utf8, zero_flags};
use crate::types::{Dialect, ReadOptions, VariantType, FLAG_64};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

mod elements;
pub(crate) mod error;
mod owned;

pub use error::{Error, Result};

/// serde's nesting limit, on top of the engine's depth limit (as serde_json's 128).
const RECURSION_LIMIT: u32 = 128;

/// Reads a `T` from the Godot 4 value at the start of `bytes`, with the engine's limits (depth
/// 1024, no full objects). Bytes after the value are ignored, as `bytes_to_var` ignores them.
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(bytes, &ReadOptions::new())
}

/// Reads a `T` from the value at the start of `bytes`, with the given options (dialect, depth
/// limit, object policy).
pub fn from_slice_with<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    opts: &ReadOptions,
) -> Result<T> {
    // Built in place (a struct literal around the walker's constructor, nothing evaluated
    // after it), not moved: the walker holds its frame stack inline.
    let ids = Ids::new(opts.dialect);
    let mut de = Deserializer {
        w: Walker::new(bytes, opts),
        remaining_depth: RECURSION_LIMIT,
        plain: false,
        ids,
        input: Reader::new(bytes, 0),
        source: core::marker::PhantomData::<FromInput>,
        checked_until: 0,
        after: 0,
    };
    T::deserialize(&mut de)
}

/// Reads a `T` from a value already found with the lazy API (a dictionary entry, an array
/// element, …), with its options. Offsets in errors are those of the whole input.
pub fn from_variant_ref<'de, T: de::Deserialize<'de>>(v: VariantRef<'de>) -> Result<T> {
    // Built in place, as in `from_slice_with`.
    let ids = Ids::new(v.dialect());
    let mut de = Deserializer {
        w: Walker::from_value(v),
        remaining_depth: RECURSION_LIMIT,
        plain: false,
        ids,
        input: Reader::new(v.h.data, v.h.offset),
        source: core::marker::PhantomData::<FromInput>,
        checked_until: 0,
        after: 0,
    };
    T::deserialize(&mut de)
}

/// The serde `Deserializer` over a [`Walker`].
pub struct Deserializer<'de, S = FromInput> {
    w: Walker<'de>,
    remaining_depth: u32,
    /// Whether the innermost open container is an Array or a Dictionary whose values are within
    /// the depth limit: its values are read by the fast paths without the walker's slot checks
    /// (see `Walker::plain_bytes`).
    plain: bool,
    ids: Ids,
    /// The walker's cursor when this deserializer took it: every key it reads lies after it
    /// (an error path re-reads a key's text from here).
    input: Reader<'de>,
    /// Where the bytes come from ([`FromInput`]; the engine's value of a typed container,
    /// encoded afresh, needs no check of its elements).
    source: core::marker::PhantomData<S>,
    /// The end of the last typed container found to read as its bytes say, at every depth
    /// (the typed containers before it are not looked at again).
    checked_until: usize,
    /// Where a map's [`Slot`] left the walk: the length of the input after the key or value it
    /// read ([`NOT_FAST`] when the walker read it and the map's own cursor is done).
    after: usize,
}

/// The bytes of a [`Deserializer`] are the input (the default).
#[doc(hidden)]
pub enum FromInput {}

/// The bytes are the engine's value of a typed container, encoded afresh.
#[doc(hidden)]
pub enum FromEngine {}

mod source {
    use super::{Deserializer, Result, Visitor};

    /// Where a deserializer's bytes come from: the input, whose typed containers are read as
    /// the engine reads them, or a value the engine holds.
    pub trait Source: Sized {
        /// Reads the next value if it is a typed container that needs the engine's reading;
        /// gives the visitor back otherwise (always, by default).
        #[inline(always)]
        fn typed<'de, V: Visitor<'de>>(
            de: &mut Deserializer<'de, Self>,
            visitor: V,
        ) -> core::result::Result<Result<V::Value>, V> {
            let _ = de;
            Err(visitor)
        }

        /// [`typed`](Source::typed) for an enum's `{name: value}` in a typed Dictionary.
        #[inline(always)]
        fn typed_enum<'de, V: Visitor<'de>>(
            de: &mut Deserializer<'de, Self>,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> core::result::Result<Result<V::Value>, V> {
            let _ = (de, name, variants);
            Err(visitor)
        }
    }
}
use source::Source;

impl Source for FromInput {
    #[inline(always)]
    fn typed<'de, V: Visitor<'de>>(
        de: &mut Deserializer<'de, Self>,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        match engine_value_due(de) {
            Ok(None) => Err(visitor),
            Ok(Some(v)) => Ok(v.read(de, |d| de::Deserializer::deserialize_any(d, visitor))),
            Err(e) => Ok(Err(e)),
        }
    }

    #[inline(always)]
    fn typed_enum<'de, V: Visitor<'de>>(
        de: &mut Deserializer<'de, Self>,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        match engine_value_due(de) {
            Ok(None) => Err(visitor),
            Ok(Some(v)) => Ok(v.read(de, |d| {
                de::Deserializer::deserialize_enum(d, name, variants, visitor)
            })),
            Err(e) => Ok(Err(e)),
        }
    }
}

/// The engine's value needs no other reading.
impl Source for FromEngine {}

// ----- the fast paths: values read straight from the input (the walker's cursor, or a map's) -----

/// Which scalar types a fast path reads (the others it leaves to the event path).
const NIL: u8 = 1;
const BOOL: u8 = 2;
const INT: u8 = 4;
const FLOAT: u8 = 8;
const STR: u8 = 16;
const SCALARS: u8 = NIL | BOOL | INT | FLOAT | STR;

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
struct Ids {
    nil: u32,
    bool_: u32,
    int: u32,
    float: u32,
    string: u32,
    /// The String id again in Godot 3, which has no StringName.
    string_name: u32,
    array: u32,
    dictionary: u32,
    strings: u32,
}

impl Ids {
    const GODOT4: Ids = Ids::of(Dialect::Godot4);
    const GODOT3: Ids = Ids::of(Dialect::Godot3);

    #[inline(always)]
    fn new(dialect: Dialect) -> Ids {
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
fn scalar_at<'de, V: Visitor<'de>, const MASK: u8>(
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
fn word(b: &[u8]) -> Option<u32> {
    b.first_chunk().map(|w| u32::from_le_bytes(*w))
}

/// The §5 string at the start of `b` (length, bytes, padding: all present, as `head` requires)
/// if its engine text is simple: valid UTF-8 (so valid in both dialects), no BOM to strip, no
/// NUL but perhaps one ending it (as the engine writes PackedStringArray elements). Returns the
/// text and the string's size.
#[inline(always)]
fn str_at(b: &[u8]) -> Option<(&str, usize)> {
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
fn plain_text(raw: &[u8]) -> Option<&[u8]> {
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
fn is_field(name: &[u8], raw: &[u8]) -> bool {
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

/// A string's text when [`read_str`] declined: the engine text, checked by the dialect's rules
/// (the error `validate` gives); borrowed when it is UTF-8, else (text only Godot 3 accepts)
/// decoded as Godot 3 reads it.
#[cold]
fn slow_str(raw: &[u8], at: usize, dialect: Dialect) -> Result<alloc::borrow::Cow<'_, str>> {
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
fn str_seed<'de, T: DeserializeSeed<'de>>(
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

/// The math type `ty` (of `n` components) at the start of `b` (at absolute offset `at`), if it
/// is there whole with that exact type: its components to `visitor`, and its size. Gives the
/// visitor back otherwise.
#[inline(always)]
fn math_at<'de, V: Visitor<'de>>(
    b: &'de [u8],
    at: usize,
    ty: VariantType,
    n: usize,
    opts: &ReadOptions,
    visitor: V,
) -> core::result::Result<(Result<V::Value>, usize), V> {
    use VariantType as T;
    let dialect = opts.dialect;
    let Some((h, rest)) = b.split_first_chunk::<4>() else {
        return Err(visitor);
    };
    let header = u32::from_le_bytes(*h);
    if dialect.type_of(header & 0xFF) != Some(ty) {
        return Err(visitor);
    }
    let wide = header & FLAG_64 != 0 && dialect == Dialect::Godot4;
    let real = !matches!(
        ty,
        T::Vector2i | T::Vector3i | T::Rect2i | T::Vector4i | T::Color
    );
    let size = if real && wide { 8 } else { 4 };
    let Some(bytes) = rest.get(..n * size) else {
        return Err(visitor);
    };
    let res = match ty {
        T::Vector2i | T::Vector3i | T::Rect2i | T::Vector4i => {
            components(bytes, at + 4, Int32, visitor)
        }
        T::Color => components(bytes, at + 4, Single, visitor),
        // One component type for the three forms of reals (the visitor's code once, not thrice).
        _ => components(
            bytes,
            at + 4,
            Real {
                size,
                narrow: wide && !opts.double_precision(),
            },
            visitor,
        ),
    };
    Ok((res.map_err(|e| e.value_at(ty, dialect, at)), 4 + n * size))
}

/// The PackedStringArray at `r`, if that is what is there: its strings handed to `visitor` as
/// a sequence (all of them checked as `validate` checks them, the ones the visitor leaves too),
/// and the cursor after it. Gives the visitor back otherwise. After an error, the walk cannot
/// go on.
#[inline(always)]
fn strings_at<'de, V: Visitor<'de>>(
    mut r: Reader<'de>,
    ids: &Ids,
    dialect: Dialect,
    visitor: V,
) -> core::result::Result<(Result<V::Value>, Reader<'de>), V> {
    let at = r.offset();
    // (Header and count looked at first, so that a declined value is not counted as read.)
    if r.peek_u32() != Some(ids.strings) || r.remaining() < 8 {
        return Err(visitor);
    }
    let _ = r.read_u32();
    // A negative count reads as an empty array, as in the engine.
    let Ok(count) = r.read_i32() else {
        return Err(visitor);
    };
    let mut strings = Strings {
        r,
        left: count.max(0) as usize,
        index: 0,
        dialect,
    };
    let res = visitor
        .visit_seq(&mut strings)
        .and_then(|v| strings.finish().map(|()| v))
        .map_err(|e| e.value_at(VariantType::PackedStringArray, dialect, at));
    Ok((res, strings.r))
}

/// The components of a math type, read from its payload bytes, as a sequence.
struct Components<'de, C> {
    bytes: &'de [u8],
    /// The absolute offset of `bytes`.
    at: usize,
    index: usize,
    c: C,
}

/// How a component is stored.
trait Component {
    const TY: VariantType;
    type De<'de>: de::Deserializer<'de, Error = Error>;
    /// Its size in bytes.
    fn size(&self) -> usize;
    /// The component in `b` (`size` bytes).
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de>;
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    b.first_chunk::<N>().copied().unwrap_or([0; N])
}

/// A real component (Vector2, Transform3D, …) as `f64`: stored as f32 (`size` 4) or as f64 (8),
/// which a standard engine's `real_t` narrows to f32 (`narrow`) and a precision=double engine
/// keeps.
struct Real {
    size: usize,
    narrow: bool,
}
/// A Color's f32 component.
struct Single;
/// An integer vector's i32 component.
struct Int32;

impl Component for Real {
    const TY: VariantType = VariantType::Float;
    type De<'de> = de::value::F64Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        self.size
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        match b.first_chunk::<8>() {
            Some(w) if self.size == 8 => crate::convert::real(f64::from_le_bytes(*w), !self.narrow),
            _ => f64::from(f32::from_le_bytes(le(b))),
        }
        .into_deserializer()
    }
}
impl Component for Single {
    const TY: VariantType = VariantType::Float;
    type De<'de> = de::value::F32Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        4
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        f32::from_le_bytes(le(b)).into_deserializer()
    }
}
impl Component for Int32 {
    const TY: VariantType = VariantType::Int;
    type De<'de> = de::value::I32Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        4
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        i32::from_le_bytes(le(b)).into_deserializer()
    }
}

impl<'de, C: Component> de::SeqAccess<'de> for Components<'de, C> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let size = self.c.size();
        let Some((c, rest)) = self.bytes.split_at_checked(size) else {
            return Ok(None);
        };
        self.bytes = rest;
        let i = self.index;
        self.index += 1;
        seed.deserialize(self.c.de(c))
            .map(Some)
            .map_err(|e: Error| {
                e.found(C::TY, Dialect::Godot4)
                    .at(self.at + i * size)
                    .in_index(i)
            })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() / self.c.size())
    }
}

#[inline(always)]
fn components<'de, C: Component, V: Visitor<'de>>(
    bytes: &'de [u8],
    at: usize,
    c: C,
    visitor: V,
) -> Result<V::Value> {
    visitor.visit_seq(Components {
        bytes,
        at,
        index: 0,
        c,
    })
}

/// The strings of a PackedStringArray, read from the cursor one by one as the visitor asks for
/// them, with `validate`'s checks.
struct Strings<'de> {
    r: Reader<'de>,
    left: usize,
    index: usize,
    dialect: Dialect,
}

impl<'de> Strings<'de> {
    #[inline(always)]
    fn next_str(&mut self) -> Result<alloc::borrow::Cow<'de, str>> {
        self.left -= 1;
        let (raw, at) = self.r.read_string_raw()?;
        match plain_text(raw).and_then(utf8) {
            Some(s) => Ok(s.into()),
            _ => slow_str(raw, at, self.dialect),
        }
    }

    /// Checks the strings the visitor did not read, as `validate` does.
    #[inline(always)]
    fn finish(&mut self) -> Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        self.finish_slow()
    }

    #[inline(never)]
    fn finish_slow(&mut self) -> Result<()> {
        for _ in 0..self.left {
            skip_string(&mut self.r, self.dialect, true)?;
        }
        self.left = 0;
        Ok(())
    }
}

impl<'de> de::SeqAccess<'de> for Strings<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let at = self.r.offset();
        let s = self.next_str()?;
        let i = self.index;
        self.index += 1;
        str_seed(s, seed).map(Some).map_err(|e: Error| {
            e.found(VariantType::String, self.dialect)
                .at(at)
                .in_index(i)
        })
    }

    fn size_hint(&self) -> Option<usize> {
        // Bounded by what the input can still hold (4 bytes a string at least).
        Some(self.left.min(self.r.remaining() / 4))
    }
}

impl<'de> Deserializer<'de> {
    /// A deserializer reading the walker's value.
    // Inlined: the walker (its inline frame stack) is built in place, not copied.
    #[inline(always)]
    pub fn new(w: Walker<'de>) -> Deserializer<'de> {
        Deserializer::with_source(w)
    }
}

impl<'de, S: Source> Deserializer<'de, S> {
    #[inline(always)]
    fn with_source(w: Walker<'de>) -> Deserializer<'de, S> {
        let ids = Ids::new(w.options().dialect);
        let input = w.cursor();
        Deserializer {
            w,
            remaining_depth: RECURSION_LIMIT,
            plain: false,
            ids,
            input,
            source: core::marker::PhantomData,
            checked_until: 0,
            after: 0,
        }
    }

    #[inline(always)]
    fn dialect(&self) -> Dialect {
        self.w.options().dialect
    }

    /// The input from the next value on, if a fast path may read it.
    #[inline(always)]
    fn leaf_bytes(&self) -> Option<&'de [u8]> {
        if self.plain {
            self.w.plain_bytes()
        } else {
            self.w.leaf_bytes()
        }
    }

    /// Commits a value of `n` bytes read from [`leaf_bytes`](Deserializer::leaf_bytes).
    #[inline(always)]
    fn leaf_consumed(&mut self, n: usize) {
        if self.plain {
            self.w.plain_consumed(n)
        } else {
            self.w.leaf_consumed(n)
        }
    }

    /// The next event (the event path).
    #[inline]
    fn next(&mut self) -> Result<Event<'de>> {
        match self.w.next_event_inline()? {
            Some(e) => Ok(e),
            None => Err(no_value(self.w.offset())),
        }
    }

    /// The header word of the next value, if a value is due and its header is in the input.
    #[inline(always)]
    fn peek_header(&self) -> Option<u32> {
        self.w.value_due()?.peek_u32()
    }

    /// The type of the next value, if a value is due and its header is in the input.
    #[inline(always)]
    fn peek_type(&self) -> Option<VariantType> {
        self.dialect().type_of(self.peek_header()? & 0xFF)
    }

    /// The fast path of a scalar of a type in `MASK`: `Err(visitor)` back when it declines.
    #[inline(always)]
    fn fast_scalar<V: Visitor<'de>, const MASK: u8>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some(b) = self.leaf_bytes() else {
            return Err(visitor);
        };
        let (ids, dialect) = (self.ids, self.dialect());
        scalar_at::<V, MASK>(b, &ids, dialect, visitor, |n| {
            self.leaf_consumed(n);
            // The value's offset: `n` bytes before the cursor.
            self.w.offset() - n
        })
    }

    /// The fast path of an untyped container head (an Array if `array`, a Dictionary if
    /// `dict`): opens it and returns its type, count and offset.
    #[inline(always)]
    fn fast_open(&mut self, array: bool, dict: bool) -> Option<(VariantType, usize, usize)> {
        let b = self.leaf_bytes()?;
        let head = b.first_chunk::<8>()?;
        // Header and count in one load.
        let word = u64::from_le_bytes(*head);
        let header = word as u32;
        // Exact headers: Godot 4 type info (bits 16+) is read by the event path.
        let (ty, body) = if array && header == self.ids.array {
            (VariantType::Array, Body::Array)
        } else if dict && header == self.ids.dictionary {
            (VariantType::Dictionary, Body::Dictionary)
        } else {
            return None;
        };
        // Bit 31 of the count is the historical "shared" flag.
        let count = (word >> 32) as u32 & 0x7FFF_FFFF;
        let at = self.w.offset();
        if self.plain {
            self.w.plain_open_consumed(8, count, body);
        } else {
            self.w.open_consumed(8, count, body);
        }
        Some((ty, count as usize, at))
    }

    /// The fast path of the math type `ty` (of `n` components): its components to `visitor`.
    #[inline(always)]
    fn fast_math<V: Visitor<'de>>(
        &mut self,
        ty: VariantType,
        n: usize,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some(b) = self.leaf_bytes() else {
            return Err(visitor);
        };
        let at = self.w.offset();
        let (res, size) = math_at(b, at, ty, n, self.w.options(), visitor)?;
        self.leaf_consumed(size);
        Ok(res)
    }

    /// The fast path of a PackedStringArray read as a sequence: its strings handed to the
    /// visitor straight from the cursor (checked as `validate` checks them, the ones the
    /// visitor leaves too).
    #[inline]
    fn fast_strings<V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some(r) = self.w.leaf_slot() else {
            return Err(visitor);
        };
        let (res, r) = strings_at(r, &self.ids, self.dialect(), visitor)?;
        match res {
            Ok(v) => {
                self.w.leaf_done(r);
                Ok(Ok(v))
            }
            Err(e) => {
                // Part-way through the value: the walk cannot go on.
                self.w.stop();
                Ok(Err(e))
            }
        }
    }

    // ----- the event path -----

    /// An error if an error ended the walk: a container's next element is not read after it,
    /// even when a type that swallows errors asks for it (a count read from the input would
    /// otherwise drive the loop).
    #[inline(always)]
    fn check_going(&self) -> Result<()> {
        if self.w.is_over() {
            return Err(no_value(self.w.offset()));
        }
        Ok(())
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<()> {
        if self.remaining_depth == 0 {
            return Err(self.too_deep());
        }
        self.remaining_depth -= 1;
        Ok(())
    }

    #[cold]
    fn too_deep(&mut self) -> Error {
        // The container is open and left unread: the walk cannot go on.
        self.w.stop();
        Error::new(alloc::format!(
            "recursion limit of {RECURSION_LIMIT} exceeded"
        ))
        .at(self.w.offset())
    }

    #[inline(always)]
    fn leave(&mut self) {
        self.remaining_depth += 1;
    }

    /// A Dictionary (a struct's if `FIELDS`, of those `fields`): its fast path, else the event
    /// path (`deserialize_map`, `deserialize_struct`).
    #[inline]
    fn dictionary<const FIELDS: bool, V: Visitor<'de>>(
        &mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if let Some((ty, len, at)) = self.fast_open(false, true) {
            return self.elements::<FIELDS, V>(ty, len, at, fields, visitor);
        }
        self.any_slow(visitor)
    }

    /// Presents an event through `visitor`, as `deserialize_any` does.
    #[inline]
    fn event<V: Visitor<'de>>(&mut self, e: Event<'de>, visitor: V) -> Result<V::Value> {
        match e {
            Event::Value(v) => self.value(v, visitor),
            Event::Begin(v) => {
                self.elements::<false, V>(v.ty(), v.count(), v.offset(), &[], visitor)
            }
            Event::Property(_) | Event::End => Err(expected_value(self.w.offset())),
        }
    }

    /// Reads the elements of the container (of type `ty`, `len` elements or entries, at
    /// `offset`) that just opened with `visitor`, then checks that it read them all.
    ///
    /// `FIELDS`: whether the container is read as a struct (then `fields` are its field names).
    #[inline]
    fn elements<const FIELDS: bool, V: Visitor<'de>>(
        &mut self,
        ty: VariantType,
        len: usize,
        offset: usize,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.enter()?;
        // The values of an Array or Dictionary within the depth limit take the fast paths'
        // plain slots; an object's (property names, the `script` rule) never.
        let outer = self.plain;
        self.plain = ty != VariantType::Object && self.w.depth() <= self.w.options().max_depth;
        let res = match ty {
            VariantType::Array => visitor.visit_seq(Seq {
                de: self,
                len,
                index: 0,
            }),
            _ => {
                let (rest, left, fast) = match self.w.plain_state() {
                    Some((rest, left)) if self.plain => (rest, left, true),
                    _ => (&[][..], 0, false),
                };
                visitor.visit_map(Map::<S, FIELDS> {
                    de: self,
                    len,
                    index: 0,
                    key: KeyAt::None,
                    object: ty == VariantType::Object,
                    fields,
                    next_field: 0,
                    rest,
                    left,
                    fast,
                })
            }
        };
        self.plain = outer;
        self.leave();
        let value = match res {
            Ok(v) => v,
            Err(e) => {
                // Part-way through the container: the walk cannot go on (even if a caller
                // swallowed the error).
                self.w.stop();
                return Err(e.value_at(ty, self.dialect(), offset));
            }
        };
        if self.w.end_fast() {
            return Ok(value);
        }
        // Everything the visitor left unread is an error, as a length mismatch.
        match self.next()? {
            Event::End => Ok(value),
            _ => Err(fewer_elements(len, offset)),
        }
    }

    /// Presents a value that is not a container through `visitor`, as `deserialize_any` does.
    fn value<V: Visitor<'de>>(&mut self, v: VariantRef<'de>, visitor: V) -> Result<V::Value> {
        use VariantType as T;
        let offset = v.offset();
        let res = match v.ty() {
            T::Nil | T::Callable => visitor.visit_unit(),
            T::Bool => visitor.visit_bool(v.as_bool()?),
            T::Int => visitor.visit_i64(v.as_i64()?),
            T::Float => visitor.visit_f64(v.as_f64()?),
            T::String | T::StringName => match v.as_str() {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(_) => godot3_text(&v, visitor),
            },
            T::NodePath => {
                let mut s = String::new();
                let _ = v.as_node_path()?.write_text(&mut s)?;
                visitor.visit_string(s)
            }
            T::Rid => visitor.visit_u64(v.as_rid()?),
            T::Object => match v.as_object()? {
                ObjectRef::Id(id) => visitor.visit_u64(id),
                ObjectRef::Full(_) => visitor.visit_unit(),
            },
            T::Signal => {
                return Err(Error::new(
                    "a Signal has no form in serde's data model: read it as gdvariant::Variant"
                        .into(),
                )
                .at(offset))
            }
            T::PackedByteArray => visitor.visit_borrowed_bytes(v.as_byte_array()?),
            T::Array | T::Dictionary => return Err(container_as_value(offset)),
            _ => elements::visit_elements(v, visitor),
        };
        res.map_err(|e| e.value_at(v.ty(), v.dialect(), offset))
    }

    /// The next value whole, as a sized view (a container is walked and checked without
    /// events).
    fn take_value(&mut self) -> Result<VariantRef<'de>> {
        match self.w.next_value()? {
            Some(v) => Ok(v),
            None => Err(no_value(self.w.offset())),
        }
    }

    /// Hands the next value over whole, borrowed, to the visitor of a
    /// [`VariantRef`](crate::VariantRef) or [`Variant`](crate::Variant) (see
    /// `serde_impl::variant`): as a sequence of its bytes, its offset, its options and depth.
    fn raw<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let v = self.take_value()?;
        let offset = v.offset();
        visitor
            .visit_seq(Handoff::new(v))
            .map_err(|e| handoff_error(e, v, offset))
    }

    /// A packed array for [`Packed`](crate::serde_with::Packed): its element bytes, borrowed,
    /// when the value is of the packed type (and width) asked for; anything else through
    /// `deserialize_any` (a sequence of elements, converted one by one).
    fn packed<V: Visitor<'de>>(
        &mut self,
        ty: VariantType,
        wide: bool,
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek_header() {
            Some(h)
                if self.dialect().type_of(h & 0xFF) == Some(ty) && (h & FLAG_64 != 0) == wide =>
            {
                let v = self.take_value()?;
                let offset = v.offset();
                // Header and count, then the elements (4-byte multiples: no padding).
                let elements = v.raw()?.get(8..).unwrap_or(&[]);
                visitor
                    .visit_borrowed_bytes(elements)
                    .map_err(|e: Error| e.value_at(ty, v.dialect(), offset))
            }
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// The text of the String or StringName key at `at` (an error path: re-read).
    #[cold]
    fn key_text(&self, at: usize) -> Option<&'de str> {
        let input = self.input;
        let data = input.rest().get(at.checked_sub(input.offset())?..)?;
        let opts = *self.w.options();
        let h = head(&mut Reader::new(data, at), 0, &opts, false).ok()?;
        VariantRef::new(h, 0, opts).as_str().ok()
    }
}

/// [`engine_value`] if the next value is a typed container not looked at yet; `None` otherwise.
#[inline(always)]
fn engine_value_due(this: &mut Deserializer<'_, FromInput>) -> Result<Option<EngineValue>> {
    if !this.typed_container_due() || this.w.offset() < this.checked_until {
        return Ok(None);
    }
    engine_value(this)
}

/// The engine's value of the typed container due, encoded afresh, when the engine reads it
/// otherwise than its bytes say: when an element (a key) in it, at any depth, is not of its
/// container's type, the engine converts or drops it ([`crate::convert`]), and the visitor
/// reads the value the engine holds (`to_owned`, encoded afresh). `None` when the engine reads
/// the bytes as they are: they are read as usual, borrowed, and the typed containers up to its
/// end are not looked at again.
///
/// Linear: one walk of the container decides ([`crate::convert::same_until`]); its errors are
/// never reported from there but from this deserializer's own walk (`take_value`), which
/// reports exactly `validate`'s.
#[cold]
#[inline(never)]
fn engine_value(this: &mut Deserializer<'_, FromInput>) -> Result<Option<EngineValue>> {
    if let Some(mut r) = this.w.value_due() {
        let opts = *this.w.options();
        let depth = this.w.depth();
        let same = head(&mut r, depth, &opts, true)
            .and_then(|h| crate::convert::same_until(VariantRef::new(h, depth, opts)));
        if let Ok(Some(end)) = same {
            this.checked_until = end;
            return Ok(None);
        }
    }
    // On an error, the walk stops in `take_value` (even if a caller swallows the error, it
    // cannot go on past the value).
    let v = this.take_value()?;
    let offset = v.offset();
    let opts = v.options();
    let bytes = crate::encode::encode_with(
        &v.to_owned()?,
        &crate::encode::EncodeOptions::new()
            .with_dialect(opts.dialect)
            .with_full_objects(opts.full_objects())
            .with_double_precision(opts.double_precision())
            .with_max_depth(crate::types::MAX_DEPTH_LIMIT),
    )?;
    Ok(Some(EngineValue {
        bytes,
        offset,
        opts: opts.with_max_depth(crate::types::MAX_DEPTH_LIMIT),
    }))
}

/// A typed container as the engine holds it ([`engine_value`]).
struct EngineValue {
    bytes: alloc::vec::Vec<u8>,
    /// The container's offset in the input.
    offset: usize,
    opts: crate::types::ReadOptions,
}

impl EngineValue {
    /// Reads the value with `f`, through a deserializer over its bytes (with what is left of
    /// `this`'s depth limit) that presents its text as owned; errors are placed at the
    /// container in the input.
    #[cold]
    #[inline(never)]
    fn read<'de, T>(
        &self,
        this: &Deserializer<'de, FromInput>,
        f: impl for<'b, 'c> FnOnce(owned::Owned<'b, &'c mut Deserializer<'b, FromEngine>>) -> Result<T>,
    ) -> Result<T> {
        let mut de = Deserializer::<FromEngine>::with_source(Walker::new(&self.bytes, &self.opts));
        de.remaining_depth = this.remaining_depth;
        f(owned::Owned::new(&mut de)).map_err(|e| e.in_engine_value(self.offset))
    }
}

/// Text only Godot 3 accepts (not UTF-8): as Godot 3 reads it.
#[cold]
#[inline(never)]
fn godot3_text<'de, V: Visitor<'de>>(v: &VariantRef<'de>, visitor: V) -> Result<V::Value> {
    visitor.visit_string(v.as_text()?.to_string_lossy().into_owned())
}

#[cold]
fn no_value(offset: usize) -> Error {
    Error::new("no value left to read".into()).at(offset)
}

#[cold]
fn expected_value(offset: usize) -> Error {
    Error::new("expected a value".into()).at(offset)
}

#[cold]
fn fewer_elements(len: usize, offset: usize) -> Error {
    let e: Error = de::Error::invalid_length(len, &"fewer elements");
    e.at(offset)
}

#[cold]
fn container_as_value(offset: usize) -> Error {
    Error::new("container read as a value".into()).at(offset)
}

/// An error from the visitor of a hand-off: a `Variant`'s `to_owned` failing (text only Godot 3
/// accepts) reaches serde as a plain message; the structured error, with its exact offset, is
/// recovered here by converting again (on the error path only).
#[cold]
fn handoff_error(e: Error, v: VariantRef<'_>, offset: usize) -> Error {
    if e.format_error().is_none() && e.offset().is_none() {
        if let Err(fe) = v.to_owned() {
            return fe.into();
        }
    }
    e.at(offset)
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

/// The `deserialize_*` methods for a scalar: the fast path for the types in `$mask`, then the
/// event path. A container, a math type or a packed array (other than a PackedByteArray) where
/// a scalar is expected is a type mismatch named by the engine's type (`expected a string,
/// found Vector3`), not the sequence that `deserialize_any` would present.
macro_rules! scalar {
    ($($method:ident $mask:expr;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.fast_scalar::<V, { $mask }>(visitor) {
                Ok(res) => res,
                Err(visitor) => self.scalar_slow::<V, { $mask }>(visitor),
            }
        }
    )*};
}

impl<'de, S: Source> Deserializer<'de, S> {
    /// The event path of the `deserialize_*` methods of scalars.
    /// A number target (`MASK` holds `INT`) reads numbers only: a RID or an object id, which
    /// `deserialize_any` presents as a `u64`, is a type mismatch here.
    fn scalar_slow<V: Visitor<'de>, const MASK: u8>(&mut self, visitor: V) -> Result<V::Value> {
        match self.next()? {
            Event::Value(v)
                if MASK & INT != 0 && matches!(v.ty(), VariantType::Rid | VariantType::Object) =>
            {
                Err(de::Error::invalid_type(
                    de::Unexpected::Other(v.ty().name()),
                    &visitor,
                ))
                .map_err(|e: Error| e.value_at(v.ty(), v.dialect(), v.offset()))
            }
            Event::Value(v) if !is_sequence_like(v.ty()) => self.value(v, visitor),
            Event::Value(v) | Event::Begin(v) => {
                if v.body().is_some() {
                    // A container left open: the walk cannot go on.
                    self.w.stop();
                }
                Err(de::Error::invalid_type(
                    de::Unexpected::Other(v.ty().name()),
                    &visitor,
                ))
                .map_err(|e: Error| e.value_at(v.ty(), v.dialect(), v.offset()))
            }
            Event::Property(_) | Event::End => Err(expected_value(self.w.offset())),
        }
    }

    /// `deserialize_ignored_any` of anything but a plain value: skipped whole (and checked),
    /// without events.
    #[inline(never)]
    fn ignored_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.w.next_value()?;
        visitor.visit_unit()
    }

    /// The event path of `deserialize_any` and of the containers.
    fn any_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let visitor = match S::typed(self, visitor) {
            Ok(res) => return res,
            Err(visitor) => visitor,
        };
        let e = self.next()?;
        self.event(e, visitor)
    }

    /// Whether the next value is a Godot 4 typed Array or Dictionary.
    #[inline(always)]
    fn typed_container_due(&self) -> bool {
        let Some(h) = self.peek_header() else {
            return false;
        };
        self.dialect() == Dialect::Godot4
            && match self.dialect().type_of(h & 0xFF) {
                Some(VariantType::Array) => h & (0x3 << 16) != 0,
                Some(VariantType::Dictionary) => h & (0xF << 16) != 0,
                _ => false,
            }
    }
}

/// Types that `deserialize_any` presents as a sequence (math types, packed arrays other than
/// bytes) or a map.
fn is_sequence_like(ty: VariantType) -> bool {
    use VariantType as T;
    !matches!(
        ty,
        T::Nil
            | T::Bool
            | T::Int
            | T::Float
            | T::String
            | T::StringName
            | T::NodePath
            | T::Rid
            | T::Object
            | T::Callable
            | T::Signal
            | T::PackedByteArray
    )
}

impl<'de, S: Source> de::Deserializer<'de> for &mut Deserializer<'de, S> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let visitor = match self.fast_scalar::<V, SCALARS>(visitor) {
            Ok(res) => return res,
            Err(visitor) => visitor,
        };
        if let Some((ty, len, at)) = self.fast_open(true, true) {
            return self.elements::<false, V>(ty, len, at, &[], visitor);
        }
        self.any_slow(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek_type() != Some(VariantType::Nil) {
            return visitor.visit_some(self);
        }
        // Nil is its header alone.
        match self.w.leaf_slot() {
            Some(r) if r.remaining() >= 4 => {
                let mut r = r;
                let _ = r.skip(4);
                self.w.leaf_done(r);
            }
            _ => drop(self.next()?),
        }
        visitor.visit_none()
    }

    // Inlined, so that the magic name (a literal at the call) folds into its one case.
    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match crate::serde_impl::magic(name) {
            Some(Magic::Raw) => self.raw(visitor),
            Some(Magic::Packed(ty, wide)) => self.packed(ty, wide, visitor),
            // A math type read as itself: its components straight to the visitor's
            // `visit_seq` (anything else goes through `visit_newtype_struct`, which converts).
            // Anything but the type itself or an Array (the documented form: its elements as
            // the components) is a type mismatch, not components read as another type's.
            Some(Magic::Math(ty, n)) => match self.fast_math(ty, n, visitor) {
                Ok(res) => res,
                Err(visitor) => match self.peek_type() {
                    Some(t) if t == ty => self.any_slow(visitor),
                    Some(t) if t != VariantType::Array => {
                        let dialect = self.dialect();
                        Err(Error::new(alloc::format!(
                            "expected {}, found {}",
                            ty.name_in(dialect),
                            t.name_in(dialect)
                        ))
                        .at(self.w.offset()))
                    }
                    _ => visitor.visit_newtype_struct(self),
                },
            },
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // `{name: value}` in a typed Dictionary: the engine's value (its value converted).
        let visitor = match S::typed_enum(self, _name, _variants, visitor) {
            Ok(res) => return res,
            Err(visitor) => visitor,
        };
        match self.next()? {
            // A unit variant, by its name.
            Event::Value(v) if matches!(v.ty(), VariantType::String | VariantType::StringName) => {
                let offset = v.offset();
                let name = v.as_text()?.to_string_lossy();
                visitor
                    .visit_enum(name.as_ref().into_deserializer())
                    .map_err(|e: Error| e.at(offset))
            }
            // `{name: value}`.
            Event::Begin(v) if v.ty() == VariantType::Dictionary && v.count() == 1 => {
                let offset = v.offset();
                self.enter()?;
                let outer = core::mem::replace(&mut self.plain, false);
                let res = visitor.visit_enum(Enum { de: self });
                self.plain = outer;
                self.leave();
                let value = match res {
                    Ok(v) => v,
                    Err(e) => {
                        self.w.stop();
                        return Err(e.at(offset));
                    }
                };
                match self.next()? {
                    Event::End => Ok(value),
                    _ => Err(Error::new("an enum holds one variant".into()).at(offset)),
                }
            }
            Event::Value(v) | Event::Begin(v) => {
                if v.body().is_some() {
                    self.w.stop();
                }
                Err(Error::new(alloc::format!(
                    "expected an enum (a variant name, or a Dictionary of one entry), found {}",
                    v.ty().name_in(v.dialect())
                ))
                .at(v.offset()))
            }
            _ => Err(expected_value(self.w.offset())),
        }
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A value of a fixed size or a string of plain text: skipped as `validate` skips it.
        if let Some(b) = self.leaf_bytes() {
            if let Some(rest) = skip_plain::<true>(b, self.dialect().layouts()) {
                self.leaf_consumed(b.len() - rest.len());
                return visitor.visit_unit();
            }
        }
        self.ignored_slow(visitor)
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((ty, len, at)) = self.fast_open(true, false) {
            return self.elements::<false, V>(ty, len, at, &[], visitor);
        }
        match self.fast_strings(visitor) {
            Ok(res) => res,
            Err(visitor) => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.dictionary::<false, V>(&[], visitor)
    }

    /// A Dictionary whose String keys equal to field names are handed to the visitor as those
    /// names (already Rust strings: no UTF-8 pass over the key); other keys as any string.
    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.dictionary::<true, V>(fields, visitor)
    }

    scalar_methods!(scalar);

    /// A field or variant name: a String or StringName key, borrowed. Other values as
    /// `deserialize_any`.
    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let visitor = match self.fast_scalar::<V, STR>(visitor) {
            Ok(res) => return res,
            Err(visitor) => visitor,
        };
        match self.next()? {
            // The engine text as bytes (the walk has checked it by the dialect's rules; Godot 3
            // text that is not Rust UTF-8 still names a field or is skipped as unknown).
            Event::Value(v) if matches!(v.ty(), VariantType::String | VariantType::StringName) => {
                let offset = v.offset();
                visitor
                    .visit_borrowed_bytes(v.text_bytes()?)
                    .map_err(|e: Error| e.value_at(v.ty(), v.dialect(), offset))
            }
            // A field or variant is named by a String or StringName: any other key (an int, a
            // RID, a PackedByteArray, …) is a type mismatch, not a field's position or bytes.
            Event::Value(v) | Event::Begin(v) => {
                if v.body().is_some() {
                    // A container left open: the walk cannot go on.
                    self.w.stop();
                }
                Err(Error::new(alloc::format!(
                    "expected a String or StringName naming a field, found {}",
                    v.ty().name_in(v.dialect())
                ))
                .at(v.offset()))
            }
            Event::Property(_) | Event::End => Err(expected_value(self.w.offset())),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }
}

/// The elements of an Array.
struct Seq<'a, 'de, S> {
    de: &'a mut Deserializer<'de, S>,
    len: usize,
    index: usize,
}

impl<'de, S: Source> de::SeqAccess<'de> for Seq<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
        self.de.check_going()?;
        let i = self.index;
        self.index += 1;
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e| e.in_index(i))
    }

    fn size_hint(&self) -> Option<usize> {
        // Bounded by what the input can still hold (4 bytes a value at least), so that
        // `Vec::with_capacity` stays in proportion to the input, not to a count read from it.
        Some((self.len - self.index).min(self.de.w.bytes_left() / 4))
    }
}

/// The entries of a Dictionary, or the properties of a full object.
/// `FIELDS`: whether the map is read as a struct (see [`Deserializer::elements`]).
struct Map<'a, 'de, S, const FIELDS: bool> {
    de: &'a mut Deserializer<'de, S>,
    len: usize,
    index: usize,
    /// The current entry's key, for error paths (its text is read only on an error).
    key: KeyAt<'de>,
    object: bool,
    /// A struct's field names (empty for a map).
    fields: &'static [&'static str],
    /// Where to start looking for the next key among `fields`: after the last one found (keys
    /// usually come in field order).
    next_field: usize,
    /// The map's own cursor (when `fast`): the input from its next key or value on, ahead of
    /// the walker's, which catches up (`sync`) before anything else reads.
    rest: &'de [u8],
    /// The keys and values still due, on that cursor (0 when not `fast`).
    left: u32,
    /// Whether the map reads on its own cursor: a plain Dictionary (not an object, its values
    /// within the depth limit), and no error since.
    fast: bool,
}

impl<'de, S, const FIELDS: bool> Map<'_, 'de, S, FIELDS> {
    /// The walker caught up with the map's own cursor.
    #[inline(always)]
    fn sync(&mut self) {
        if self.fast {
            self.de.w.set_plain_state(self.rest, self.left);
        }
    }

    /// `f` on the deserializer, the walker caught up first.
    #[inline(always)]
    fn through<T>(&mut self, f: impl FnOnce(&mut Deserializer<'de, S>) -> Result<T>) -> Result<T> {
        self.sync();
        // Not `fast` while the deserializer reads: a panic unwinding through `f` drops this map
        // with the walker elsewhere, and the map must then leave it be.
        let fast = self.fast;
        self.stop_fast();
        let res = f(self.de);
        // The map's cursor caught up with the walker's (after an error the walk is over:
        // nothing more on the map's own cursor).
        if fast && res.is_ok() {
            // (The walker's bytes left are a suffix of the map's cursor, behind it: only their
            // length is taken, see `Walker::set_plain_state`.)
            if let Some((len, left)) = self.de.w.plain_state_len() {
                self.fast = true;
                self.rest = suffix(self.rest, len);
                self.left = left;
            }
        }
        res
    }

    /// `e` in the current entry (see [`path_of`]).
    #[inline(always)]
    fn in_entry(&self, e: Error) -> Error
    where
        S: Source,
    {
        let key = match self.key {
            KeyAt::Field => self
                .fields
                .get(self.next_field.wrapping_sub(1))
                .map_or(KeyAt::None, |&name| KeyAt::Name(name)),
            key => key,
        };
        path_of(self.de, key, e, self.index.saturating_sub(1))
    }

    /// Reads the next key or value with `seed`: on the map's own cursor through a [`Slot`]
    /// when `fast`, else through the deserializer.
    #[inline(always)]
    fn slot<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value>
    where
        S: Source,
    {
        let Some(b) = self.bytes() else {
            return self.through(|de| seed.deserialize(de));
        };
        // Not `fast` while the slot reads: a panic unwinding through it drops this map with the
        // walker elsewhere, and the map must then leave it be. (Nothing read: `after` says so.)
        self.fast = false;
        self.de.after = b.len();
        let res = seed.deserialize(Slot {
            de: &mut *self.de,
            b,
            left: self.left,
        });
        match self.de.after {
            NOT_FAST => self.left = 0,
            after => {
                self.fast = true;
                if after != b.len() {
                    self.rest = suffix(b, after);
                    self.left -= 1;
                }
            }
        }
        res
    }

    /// No more reading on the map's own cursor (the walker's is the one).
    #[inline(always)]
    fn stop_fast(&mut self) {
        self.fast = false;
        self.left = 0;
    }

    /// The input from the next key or value on, for the fast paths.
    #[inline(always)]
    fn bytes(&self) -> Option<&'de [u8]> {
        // (Nothing is left on the cursor when not `fast`.)
        (self.left > 0).then_some(self.rest)
    }

    /// Commits a key or value read from [`bytes`](Map::bytes): `rest` is after it.
    #[inline(always)]
    fn took(&mut self, rest: &'de [u8]) {
        counted(self.rest.len() - rest.len());
        self.rest = rest;
        self.left -= 1;
    }
}

impl<S, const FIELDS: bool> Drop for Map<'_, '_, S, FIELDS> {
    #[inline(always)]
    fn drop(&mut self) {
        self.sync();
    }
}

/// A struct's key that [`Map::field`] matched, as the field's name (as serde's
/// `BorrowedStrDeserializer` presents it).
///
/// A type of this module, with an error type of its own, rather than serde's deserializer:
/// the visitor's `visit_str` for that error type then has this one caller, in the code the
/// compiler builds for the struct's `visit_map` (its `#[inline]` chain up to here stays in that
/// code), and the compiler inlines the derived code's field match into the map's loop. (Through
/// serde's deserializer, whose `deserialize_any` is not `#[inline]`, it is a call per key.)
struct FieldName<S>(&'static str, core::marker::PhantomData<S>);

impl<S> FieldName<S> {
    #[inline(always)]
    fn new(name: &'static str) -> Self {
        FieldName(name, core::marker::PhantomData)
    }
}

impl<'de, S> de::Deserializer<'de> for FieldName<S> {
    type Error = FieldError<S>;

    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError<S>> {
        visitor.visit_borrowed_str(self.0)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError<S>> {
        visitor.visit_enum(de::value::BorrowedStrDeserializer::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// The error type of [`FieldName`]: this crate's [`Error`], made the same way.
struct FieldError<S>(Error, core::marker::PhantomData<S>);

impl<S> FieldError<S> {
    #[cold]
    fn of(e: Error) -> Self {
        FieldError(e, core::marker::PhantomData)
    }
}

impl<S> fmt::Debug for FieldError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl<S> fmt::Display for FieldError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<S> core::error::Error for FieldError<S> {}

impl<S> de::Error for FieldError<S> {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::of(<Error as de::Error>::custom(msg))
    }

    #[cold]
    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Self::of(<Error as de::Error>::invalid_type(unexp, exp))
    }

    #[cold]
    fn invalid_value(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Self::of(<Error as de::Error>::invalid_value(unexp, exp))
    }

    #[cold]
    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        Self::of(<Error as de::Error>::invalid_length(len, exp))
    }

    #[cold]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self::of(<Error as de::Error>::unknown_variant(variant, expected))
    }

    #[cold]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::of(<Error as de::Error>::unknown_field(field, expected))
    }

    #[cold]
    fn missing_field(field: &'static str) -> Self {
        Self::of(<Error as de::Error>::missing_field(field))
    }

    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        Self::of(<Error as de::Error>::duplicate_field(field))
    }
}

/// Where the current entry's key is, for an error's path.
#[derive(Clone, Copy)]
enum KeyAt<'de> {
    None,
    /// The struct's field the key matched: the one before `next_field` (its name, kept as a
    /// count the map holds anyway rather than as a string).
    Field,
    /// A full object's property name.
    Name(&'de str),
    /// The absolute offset of a Dictionary key.
    At(usize),
}

impl<'de, S: Source, const FIELDS: bool> Map<'_, 'de, S, FIELDS> {
    /// The fast path of a struct's key: a String or StringName equal to one of the field names
    /// (whose bytes then need no UTF-8 check), consumed; `None` otherwise, nothing consumed.
    /// The field after the last one found is tried first: keys usually come in field order.
    /// (Only for a map read as a struct: `next_key_seed` calls it when `FIELDS`.)
    #[inline(always)]
    fn field(&mut self) -> Option<&'static str> {
        let b = self.bytes()?;
        let (h, rest) = b.split_first_chunk::<4>()?;
        let header = u32::from_le_bytes(*h);
        if header != self.de.ids.string && header != self.de.ids.string_name {
            return None;
        }
        let (raw, after) = crate::head::plain_string::<false>(rest)?;
        // The field after the last one found, straight; else every field in turn.
        let fields = self.fields;
        let j = self.next_field;
        let (k, name) = match fields.get(j) {
            Some(&name) if is_field(name.as_bytes(), raw) => (j, name),
            _ => fields
                .iter()
                .enumerate()
                .find(|(_, name)| is_field(name.as_bytes(), raw))
                .map(|(k, &name)| (k, name))?,
        };
        // (Past the last field: the next key is looked for from the first.)
        self.next_field = k + 1;
        self.took(after);
        Some(name)
    }
}

/// A full object's property name, as the engine reads it (and its text, when borrowed, for an
/// error's path).
#[cold]
#[inline(never)]
fn property_name<'de, S: Source, K: DeserializeSeed<'de>>(
    de: &mut Deserializer<'de, S>,
    seed: K,
) -> Result<(Option<&'de str>, K::Value)> {
    let offset = de.w.offset();
    let name = match de.next()? {
        Event::Property(t) => t.to_string_lossy(),
        _ => return Err(Error::new("expected a property name".into()).at(offset)),
    };
    let key = match name {
        alloc::borrow::Cow::Borrowed(name) => Some(name),
        _ => None,
    };
    str_seed(name, seed).map(|v| (key, v))
}

impl<'de, S: Source, const FIELDS: bool> de::MapAccess<'de> for Map<'_, 'de, S, FIELDS> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
        self.index += 1;
        // (Never an object's property name, nor after an error ended the walk: only a map that
        // is `fast` has anything on its own cursor.)
        // (A constant test: a map not read as a struct then holds no code for field names at
        // all, and the derived field match's `visit_str` for `FieldError` keeps its one
        // caller, which the compiler then inlines; see `FieldName`.)
        if FIELDS {
            if let Some(name) = self.field() {
                // The key's text is the field's name.
                self.key = KeyAt::Field;
                return match seed.deserialize(FieldName::<S>::new(name)) {
                    Ok(k) => Ok(Some(k)),
                    Err(e) => {
                        // At the key, which ends at the map's cursor and whose text is the name.
                        let at = self.de.w.offset_of(self.rest) - (8 + pad4(name.len()));
                        Err(self.in_entry(e.0.at(at)))
                    }
                };
            }
        }
        self.de.check_going()?;
        if self.object {
            let (key, v) = property_name(self.de, seed)?;
            self.key = key.map_or(KeyAt::None, KeyAt::Name);
            return Ok(Some(v));
        }
        let at = if self.fast {
            self.de.w.offset_of(self.rest)
        } else {
            self.de.w.offset()
        };
        self.key = KeyAt::At(at);
        // (A key is read as a value is: its fast paths on the map's cursor, else through the
        // deserializer.)
        match self.slot(seed) {
            Ok(k) => Ok(Some(k)),
            Err(e) => Err(self.in_entry(e)),
        }
    }

    // serde's own `next_key` and `next_value`, inlined: the map's cursor then stays in the
    // visitor's frame, not behind a pointer passed to a call per value.
    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        self.next_key_seed(core::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        self.next_value_seed(core::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.slot(seed) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.in_entry(e)),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        // Entries take 8 bytes at least (a key and a value).
        let bytes = if self.fast {
            self.rest.len()
        } else {
            self.de.w.bytes_left()
        };
        Some((self.len - self.index).min(bytes / 8))
    }
}

/// `e` in the entry `index` of a map, whose key is at `key`: in its key's text when there is one
/// (a field name, a full object's property, or a Dictionary key of text), else in its index.
/// (A function of the deserializer, not of the map: the map's own address reaches no call.)
#[cold]
fn path_of<'de, S: Source>(
    de: &Deserializer<'de, S>,
    key: KeyAt<'de>,
    e: Error,
    index: usize,
) -> Error {
    let text = match key {
        KeyAt::Name(n) => Some(n),
        KeyAt::At(at) => de.key_text(at),
        KeyAt::None | KeyAt::Field => None,
    };
    match text {
        Some(k) => e.in_key(k),
        None => e.in_index(index),
    }
}

/// What a [`Slot`] leaves in [`Deserializer::after`] when the map can no longer read on its own
/// cursor (the walker read the value, and the walk did not go on as a plain walk).
const NOT_FAST: usize = usize::MAX;

/// A map's key or value, on the map's own cursor: read by the fast paths there, anything else
/// by the deserializer, the walker moved to the value first. Passed by value, so that the map
/// itself (its cursor, counts and key) never reaches a call and stays in registers: the map
/// learns where the value ended from [`Deserializer::after`].
struct Slot<'a, 'de, S> {
    de: &'a mut Deserializer<'de, S>,
    /// The input from the value on (the map's cursor).
    b: &'de [u8],
    /// The keys and values due on the map's cursor, this one included.
    left: u32,
}

/// The `deserialize_*` methods of [`Slot`] for a scalar: the fast path for the types in
/// `$mask` on the map's cursor, else the deserializer's method.
macro_rules! slot_scalar {
    ($($method:ident $mask:expr;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            match self.scalar::<V, { $mask }>(visitor) {
                Ok(res) => res,
                // (Out of line for integers: the derived visitors of `u32`, `u8`, … check the
                // range, and with the event path out of line the fast path stays small enough
                // to be inlined into a struct's loop.)
                Err(visitor) if integers_only($mask) => {
                    self.cold_fallback(visitor, |de, v| de.$method(v))
                }
                Err(visitor) => self.fallback(|de| de.$method(visitor)),
            }
        }
    )*};
}

/// Whether the fast-path mask `mask` is that of the integer types.
const fn integers_only(mask: u8) -> bool {
    mask == INT
}

/// The `deserialize_*` methods of [`Slot`] that the deserializer reads.
macro_rules! slot_through {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
            self.fallback(|de| de.$method($($arg,)* visitor))
        }
    )*};
}

impl<'de, S: Source> Slot<'_, 'de, S> {
    /// Commits a value of `n` bytes read by a fast path (for the map to take up); returns its
    /// offset.
    #[inline(always)]
    fn commit(&mut self, n: usize) -> usize {
        counted(n);
        self.de.after = self.b.len() - n;
        self.de.w.offset_of(self.b)
    }

    /// `f` on the deserializer, the walker moved to the value first (it is behind the map's
    /// cursor, in the same container); then where the walk goes on, for the map.
    #[inline(always)]
    fn fallback<T>(self, f: impl FnOnce(&mut Deserializer<'de, S>) -> Result<T>) -> Result<T> {
        self.de.w.set_plain_state(self.b, self.left);
        let res = f(self.de);
        // (After an error the walk is over: nothing more on the map's own cursor.)
        self.de.after = match self.de.w.plain_state_len() {
            Some((len, _)) if res.is_ok() => len,
            _ => NOT_FAST,
        };
        res
    }

    /// [`fallback`](Slot::fallback) with `visitor`, out of line: the value is not one a fast
    /// path reads, and the fast path's own code stays small enough to be inlined into the
    /// visitor's caller (a derived struct's loop).
    #[cold]
    #[inline(never)]
    fn cold_fallback<V: Visitor<'de>>(
        self,
        visitor: V,
        f: impl FnOnce(&mut Deserializer<'de, S>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        self.fallback(|de| f(de, visitor))
    }

    /// The fast path of a scalar of a type in `MASK`: `Err(visitor)` back when it declines.
    #[inline(always)]
    fn scalar<V: Visitor<'de>, const MASK: u8>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let (ids, dialect) = (self.de.ids, self.de.dialect());
        let b = self.b;
        scalar_at::<V, MASK>(b, &ids, dialect, visitor, |n| self.commit(n))
    }
}

impl<'de, S: Source> de::Deserializer<'de> for Slot<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match self.scalar::<V, SCALARS>(visitor) {
            Ok(res) => res,
            Err(visitor) => self.fallback(|de| de.deserialize_any(visitor)),
        }
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        // Nil is its header alone, whatever its flag bits (as the deserializer reads it).
        let dialect = self.de.dialect();
        match word(self.b) {
            Some(h) if dialect.type_of(h & 0xFF) == Some(VariantType::Nil) => {
                self.commit(4);
                visitor.visit_none()
            }
            Some(_) => visitor.visit_some(self),
            None => self.fallback(|de| de.deserialize_option(visitor)),
        }
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        let visitor = match crate::serde_impl::magic(name) {
            // A math type read as itself: its components straight to the visitor's `visit_seq`.
            Some(Magic::Math(ty, n)) => {
                let (b, at) = (self.b, self.de.w.offset_of(self.b));
                return match math_at(b, at, ty, n, self.de.w.options(), visitor) {
                    Ok((res, size)) => {
                        self.commit(size);
                        res
                    }
                    // (Out of line, as for integers.)
                    Err(visitor) => {
                        self.cold_fallback(visitor, |de, v| de.deserialize_newtype_struct(name, v))
                    }
                };
            }
            Some(Magic::Raw | Magic::Packed(..)) => visitor,
            _ => return visitor.visit_newtype_struct(self),
        };
        self.fallback(|de| de.deserialize_newtype_struct(name, visitor))
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if let Some(rest) = skip_plain::<true>(self.b, self.de.dialect().layouts()) {
            self.commit(self.b.len() - rest.len());
            return visitor.visit_unit();
        }
        self.fallback(|de| de.deserialize_ignored_any(visitor))
    }

    scalar_methods!(slot_scalar);

    /// A PackedStringArray straight to the visitor; anything else as the deserializer reads it.
    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let de = &mut *self.de;
        match strings_at(de.w.cursor_at(self.b), &de.ids, de.dialect(), visitor) {
            Ok((Ok(v), r)) => {
                // (The cursor counted what it read.)
                de.after = r.rest().len();
                Ok(v)
            }
            Ok((Err(e), _)) => {
                // Part-way through the value: the walk cannot go on (from the value's start, where
                // the deserializer's own fast path leaves it too).
                de.w.set_plain_state(self.b, self.left);
                de.w.stop();
                de.after = NOT_FAST;
                Err(e)
            }
            Err(visitor) => self.fallback(|de| de.deserialize_seq(visitor)),
        }
    }

    slot_through! {
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    // A key's (or a value's) identifier: a String or StringName of simple text straight to the
    // visitor, as the deserializer's own fast path reads it.
    slot_scalar! {
        deserialize_identifier STR;
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_unit(self, visitor)
    }
}

/// An externally tagged enum: `{name: value}`.
struct Enum<'a, 'de, S> {
    de: &'a mut Deserializer<'de, S>,
}

impl<'de, S: Source> de::EnumAccess<'de> for Enum<'_, 'de, S> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(&mut *self.de)?;
        Ok((v, self))
    }
}

impl<'de, S: Source> de::VariantAccess<'de> for Enum<'_, 'de, S> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_map(&mut *self.de, visitor)
    }
}

// ----- the hand-off of a `VariantRef` to `Deserialize` impls of this crate -----

/// The sequence `(options, depth, offset, bytes)` of one value, handed to a visitor.
pub(crate) struct Handoff<'de> {
    v: VariantRef<'de>,
    index: u8,
}

impl<'de> Handoff<'de> {
    pub(crate) fn new(v: VariantRef<'de>) -> Handoff<'de> {
        Handoff { v, index: 0 }
    }
}

impl<'de> SeqAccess<'de> for Handoff<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        use serde::de::value::{BorrowedBytesDeserializer, U64Deserializer};
        let i = self.index;
        self.index = self.index.saturating_add(1);
        let word = match i {
            0 => options_word(&self.v.options(), false),
            1 => u64::from(self.v.depth()),
            2 => self.v.offset() as u64,
            3 => {
                let bytes = self.v.h.data;
                return seed
                    .deserialize(BorrowedBytesDeserializer::new(bytes))
                    .map(Some);
            }
            _ => return Ok(None),
        };
        seed.deserialize(U64Deserializer::new(word)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(4usize.saturating_sub(self.index.into()))
    }
}

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
