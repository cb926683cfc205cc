#![doc = include_str!("../README.md")]
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(rust_2018_idioms, unreachable_pub)]

extern crate alloc;

pub mod array;
#[cfg(any(feature = "text", feature = "json"))]
mod build;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod codec;
pub mod convert;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod de;
pub mod detect;
pub mod dict;
pub mod encode;
pub mod error;
pub mod framing;
mod head;
#[cfg(any(feature = "mint", feature = "glam"))]
mod interop;
#[cfg(feature = "json")]
pub mod json;
#[cfg(any(feature = "text", feature = "json"))]
mod literal;
pub mod math;
#[cfg(feature = "multiplayer")]
#[cfg_attr(docsrs, doc(cfg(feature = "multiplayer")))]
pub mod multiplayer;
#[cfg(any(feature = "text", feature = "json"))]
mod num;
pub mod object;
#[cfg(any(feature = "text", feature = "json"))]
mod out;
pub mod owned;
pub mod packed;
#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub mod packet;
mod reader;
mod seq;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod ser;
#[cfg(feature = "serde")]
mod serde_impl;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod serde_with;
mod stack;
pub mod text;
pub mod types;
pub mod value;
pub mod walker;
pub mod writer;

pub use array::{ArrayIter, ArrayRef, ContainerType, EngineElement, EngineIter};
pub use detect::{Detection, Detector, Verdict};
pub use dict::{DictIter, DictionaryRef, Key};
pub use encode::{encode, encode_into, encode_with, EncodeOptions};
pub use error::{Error, ErrorKind, Expected, Result};
pub use math::*;
pub use object::{
    CallableRef, FullObjectRef, NodePathRef, ObjectRef, Properties, SignalRef, StrIter,
};
pub use owned::{
    Array, Dictionary, GString, InvalidNodePath, NodePath, Object, RawValue, Signal, TypeInfo,
    Variant, WrongType, DEBUG_DEPTH, INLINE_CAPACITY,
};
pub use packed::{Element, PackedArrayRef, PackedElement, PackedIter, PackedStringArrayRef};
pub use seq::Nested;
pub use text::Text;
pub use types::{Dialect, ReadOptions, VariantType, ENGINE_MAX_DEPTH, FLAG_64, MAX_DEPTH_LIMIT};

/// The read options' name before 0.2.
#[deprecated(since = "0.2.0", note = "renamed to `ReadOptions`")]
pub type Options = ReadOptions;
pub use value::{PathItem, VariantRef};
pub use walker::{Event, Walker};
pub use writer::Writer;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub use {
    de::{from_slice, from_slice_with, from_variant_ref},
    ser::{to_vec, to_vec_with, to_writer},
};

use reader::Reader;
#[cfg(feature = "__count-reads")]
#[doc(hidden)]
pub use reader::{read_count, work_count};

/// Reads the Godot 4 value at the start of `bytes` with the engine's default limits.
///
/// This is O(1): it reads the header and bounds-checks the payload of every type whose size is
/// known from its header and length words. Containers stay lazy: their elements are read as you
/// iterate them. Bytes after the value are ignored, as `bytes_to_var` ignores them; use
/// [`parse_prefix`] to learn where the value ends, or [`validate`] to check everything.
///
/// ```
/// // var_to_bytes(42) in Godot 4
/// let v = gdvariant::parse(&[2, 0, 0, 0, 42, 0, 0, 0]).unwrap();
/// assert_eq!(v.as_i64().unwrap(), 42);
/// ```
pub fn parse(bytes: &[u8]) -> Result<VariantRef<'_>> {
    parse_with(bytes, &ReadOptions::new())
}

/// Reads the value at the start of `bytes` with the given options; see [`parse`].
pub fn parse_with<'a>(bytes: &'a [u8], opts: &ReadOptions) -> Result<VariantRef<'a>> {
    let h = head::head(&mut Reader::new(bytes, 0), 0, opts, false)?;
    Ok(VariantRef::new(h, 0, *opts))
}

/// Reads the Godot 4 value at the start of `bytes` (engine limits) and returns it with the
/// number of bytes it occupies, for buffers that carry more after it. A container is walked
/// (without allocating) to find its end; strings are not UTF-8 checked until accessed.
///
/// ```
/// let bytes = [2, 0, 0, 0, 7, 0, 0, 0, 0xAA, 0xBB];
/// let (v, used) = gdvariant::parse_prefix(&bytes).unwrap();
/// assert_eq!((v.as_i64().unwrap(), used), (7, 8));
/// ```
pub fn parse_prefix(bytes: &[u8]) -> Result<(VariantRef<'_>, usize)> {
    parse_prefix_with(bytes, &ReadOptions::new())
}

/// Reads the value at the start of `bytes` with the given options and returns it with the
/// number of bytes it occupies; see [`parse_prefix`].
///
/// ```
/// use gdvariant::{Dialect, ReadOptions};
/// // var2bytes(Vector2(1, 2)) in Godot 3, then one more byte
/// let bytes = [5, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0xFF];
/// let opts = ReadOptions::new().with_dialect(Dialect::Godot3);
/// let (v, used) = gdvariant::parse_prefix_with(&bytes, &opts).unwrap();
/// assert_eq!((v.as_vector2().unwrap(), used), (gdvariant::Vector2::new(1.0, 2.0), 12));
/// ```
pub fn parse_prefix_with<'a>(
    bytes: &'a [u8],
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let v = parse_with(bytes, opts)?.sized()?;
    let len = v.raw()?.len();
    Ok((v, len))
}

/// Validates the Godot 4 value at the start of `bytes` with the engine's default limits and
/// returns the number of bytes it occupies: every bound, every string's UTF-8, container type
/// ids, depth and the object policy. Walks iteratively: nesting of any depth gives a depth
/// error, never a stack overflow.
///
/// ```
/// use gdvariant::ErrorKind;
/// assert_eq!(gdvariant::validate(&[4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0]), Ok(12));
/// let err = gdvariant::validate(&[4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0]).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::InvalidUtf8, 8));
/// ```
pub fn validate(bytes: &[u8]) -> Result<usize> {
    validate_with(bytes, &ReadOptions::new())
}

/// Validates the value at the start of `bytes` with the given options; see [`validate`].
pub fn validate_with(bytes: &[u8], opts: &ReadOptions) -> Result<usize> {
    let mut r = Reader::new(bytes, 0);
    walker::validate_at(&mut r, 0, opts)?;
    Ok(r.pos())
}
