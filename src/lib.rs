//! Godot Engine's binary Variant serialization — the bytes behind `var_to_bytes` /
//! `bytes_to_var`, `PacketPeer.put_var`, `StreamPeer.put_var` and `FileAccess.store_var` — read
//! and written outside the engine, in both the Godot 4 and the Godot 3 [`Dialect`].
//!
//! ```
//! use gdvariant::{Dictionary, Variant, VariantType};
//!
//! // var_to_bytes({"hp": 7}) in Godot 4
//! let dict: Dictionary = [("hp", 7)].into_iter().collect();
//! let bytes = gdvariant::encode(&Variant::from(dict))?;
//! let packet = gdvariant::parse(&bytes)?; // O(1): the header only; nothing is copied
//! assert_eq!(packet.ty(), VariantType::Dictionary);
//! assert_eq!(packet.path("hp")?.unwrap().as_i64()?, 7);
//! assert_eq!(gdvariant::validate(&bytes)?, bytes.len()); // every byte checked, no allocation
//! # Ok::<(), gdvariant::Error>(())
//! ```
//!
//! # Where things are
//!
//! - Reading: [`parse`] gives a lazy, zero-copy [`VariantRef`] (its containers are
//!   [`ArrayRef`], [`DictionaryRef`] and [`PackedArrayRef`]); [`validate`] checks a whole value in
//!   one pass; a [`Walker`] pulls one [`Event`] at a time. No input can overflow the stack:
//!   nesting deeper than the limit of [`ReadOptions`] is an error.
//! - The owned tree: [`Variant`] (with [`Array`], [`Dictionary`], [`Object`], …), from
//!   [`VariantRef::to_owned`], with the engine's conversion rules in [`convert`].
//! - Writing: [`encode()`] / [`encode_with`] write a [`Variant`] byte for byte as the engine does;
//!   [`Writer`] streams a value without building it.
//! - Streams: [`framing`] (the 4-byte length prefix of `put_var`), `packet::Packet` (feature
//!   `bytes`), `codec::VarCodec` (feature `tokio`).
//! - serde (feature `serde`): `from_slice` / `to_vec` onto your own types.
//! - Text: [`text`] (`var_to_str` / `str_to_var`, feature `std`) and the typed JSON in `json`
//!   (feature `std`).
//! - Godot's multiplayer packets are in the crate `gdvariant-multiplayer`; the command-line tool
//!   is the crate `gdvariant-cli`.
//!
//! # Features
//!
//! | feature | what it adds |
//! |---|---|
//! | `std` (default) | `std::error::Error`, `io` adapters, the `text` and `json` forms |
//! | `serde` | `from_slice`, `to_vec`, `Serialize` / `Deserialize` for [`Variant`] |
//! | `bytes` | `packet::Packet`: a value owning its bytes as `bytes::Bytes` |
//! | `tokio` | `codec::VarCodec`, tokio-util's codec for `put_var` streams (implies `bytes`) |
//! | `mint`, `glam` | `From` both ways between the math types and those crates' |
//!
//! Without `std` the crate is `no_std` (with `alloc`).
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(rust_2018_idioms, unreachable_pub)]

extern crate alloc;

pub mod array;
#[cfg(feature = "std")]
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
pub mod engine;
pub mod error;
pub mod framing;
mod head;
#[cfg(any(feature = "mint", feature = "glam"))]
mod interop;
#[cfg(feature = "std")]
pub mod json;
#[cfg(feature = "std")]
mod literal;
pub mod math;
#[cfg(feature = "std")]
mod num;
pub mod object;
#[cfg(feature = "std")]
mod out;
pub mod owned;
pub mod packed;
#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub mod packet;
pub mod path;
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
mod strings;
pub mod text;
pub mod types;
pub mod value;
pub mod walker;
pub mod writer;

pub use array::{ArrayIter, ArrayRef, ContainerType};
pub use detect::{Detection, Detector, Verdict};
pub use dict::{DictIter, DictionaryRef, Key};
pub use encode::{encode, encode_into, encode_with, EncodeOptions};
pub use engine::{EngineElement, EngineIter};
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
pub use strings::Text;
pub use types::{Dialect, ReadOptions, VariantType, ENGINE_MAX_DEPTH, FLAG_64, MAX_DEPTH_LIMIT};

/// The read options' name before 0.2.
#[deprecated(since = "0.2.0", note = "renamed to `ReadOptions`")]
pub type Options = ReadOptions;
pub use path::PathItem;
pub use value::VariantRef;
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

/// Reads the value at the start of `bytes`, a slice that begins `base` bytes into a larger input
/// (a packet, a stream), and returns it sized, with the number of bytes it occupies. Offsets of the
/// view, of everything read through it and of errors count from the start of that larger input.
/// Like [`parse_prefix_with`], a container is walked to find its end and strings are checked
/// when accessed; [`validate_prefix_at`] checks everything in the same pass.
///
/// ```
/// use gdvariant::ReadOptions;
/// // A 3-byte packet header, then var_to_bytes("hi"): the value sits at offset 3 of the packet.
/// let packet = [9, 9, 9, 4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0];
/// let (v, used) = gdvariant::parse_prefix_at(&packet[3..], 3, &ReadOptions::new())?;
/// assert_eq!((v.as_str()?, v.offset(), used), ("hi", 3, 12));
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn parse_prefix_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let mut r = Reader::new(bytes, base);
    let v = walker::read_value(&mut r, 0, opts)?;
    Ok((v, r.pos()))
}

/// Validates the value at the start of `bytes`, a slice that begins `base` bytes into a larger
/// input, and returns it sized, with the number of bytes it occupies: [`validate_with`] and
/// [`parse_prefix_at`] in one pass (offsets count from the start of the larger input).
///
/// ```
/// use gdvariant::{ErrorKind, ReadOptions};
/// let packet = [9, 4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0];
/// let err = gdvariant::validate_prefix_at(&packet[1..], 1, &ReadOptions::new()).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::InvalidUtf8, 9));
/// ```
pub fn validate_prefix_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let mut r = Reader::new(bytes, base);
    let h = head::head(&mut r, 0, opts, true)?;
    walker::skip_body(&mut r, &h, 0, opts, true)?;
    let len = r.pos();
    Ok((VariantRef::new(h.sized_to(len), 0, *opts), len))
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
