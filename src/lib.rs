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
mod builder;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod codec;
pub mod convert;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod de;
mod decode;
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
mod leaf;
#[cfg(feature = "std")]
mod literal;
pub mod math;
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
mod read;
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

// The crate root: the entry points and the types a first program names. Everything else is
// under its module (`math`, `object`, `packed`, `detect`, …).
pub use array::ArrayRef;
pub use dict::DictionaryRef;
pub use encode::{encode, encode_into, encode_with, EncodeOptions};
pub use error::{Error, ErrorKind, Result};
pub use object::ObjectRef;
pub use owned::{Array, Dictionary, GString, NodePath, Object, Variant};
pub use packed::PackedArrayRef;
pub use read::{
    parse, parse_prefix, parse_prefix_at, parse_prefix_with, parse_with, validate,
    validate_prefix_at, validate_with,
};
pub use types::{Dialect, ReadOptions, VariantType};
pub use value::VariantRef;
pub use walker::{Event, Walker};
pub use writer::Writer;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub use {de::from_slice, ser::to_vec};

/// The read options' name before 0.2.
#[deprecated(since = "0.2.0", note = "renamed to `ReadOptions`")]
pub type Options = ReadOptions;

// Names the root held before 0.2, now under their modules (see the CHANGELOG): kept here, out
// of the docs, for one release so that 0.1 programs build; removed in 0.3.
#[doc(hidden)]
pub use {
    array::{ArrayIter, ContainerType},
    detect::{Detection, Detector, Verdict},
    dict::{DictIter, Key},
    engine::{EngineElement, EngineIter},
    error::Expected,
    math::*,
    object::{CallableRef, FullObjectRef, NodePathRef, Properties, SignalRef, StrIter},
    owned::{InvalidNodePath, RawValue, Signal, TypeInfo, WrongType, DEBUG_DEPTH, INLINE_CAPACITY},
    packed::{Element, PackedElement, PackedIter, PackedStringArrayRef},
    path::PathItem,
    seq::Nested,
    strings::Text,
    types::{ENGINE_MAX_DEPTH, FLAG_64, MAX_DEPTH_LIMIT},
};
#[cfg(feature = "serde")]
#[doc(hidden)]
pub use {
    de::{from_slice_with, from_variant_ref},
    ser::{to_vec_with, to_writer},
};

#[cfg(feature = "__count-reads")]
#[doc(hidden)]
pub use reader::{read_count, work_count};
