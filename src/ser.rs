//! serde serialization: your own Rust types as the bytes the engine's `var_to_bytes` writes.
//!
//! [`to_vec`] writes any `T: Serialize` as one Godot 4 value, through the streaming
//! [`Writer`]: structs become Dictionaries with String keys in field order, sequences and tuples
//! Arrays, maps Dictionaries, `Option::None` and `()` Nil, enums are externally tagged
//! (`{"Name": value}`, a unit variant as its name), byte slices (`serde_bytes`) a
//! PackedByteArray, and the crate's math types their native Godot types. Ints are written in
//! their minimal width and floats as f32 when f32 holds them exactly, as the engine does, so a
//! struct whose fields follow the engine's key order serializes to the engine's very bytes. A
//! `u64` (or `u128`, `i128`) beyond `i64` is an error: Godot ints are `i64`.
//!
//! ```
//! use serde::Serialize;
//!
//! #[derive(Serialize)]
//! struct Input<'a> {
//!     seq: u32,
//!     aim: gdvariant::Vector3,
//!     name: &'a str,
//! }
//! let bytes = gdvariant::to_vec(&Input { seq: 7, aim: gdvariant::Vector3::new(0.5, 1.0, 0.0), name: "p1" })?;
//! let d = gdvariant::parse(&bytes)?.as_dictionary()?;
//! assert_eq!(d.get("seq")?.unwrap().as_i64()?, 7);
//! assert_eq!(d.get("aim")?.unwrap().as_vector3()?, gdvariant::Vector3::new(0.5, 1.0, 0.0));
//! # Ok::<(), gdvariant::ser::Error>(())
//! ```

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::ser::{self, Serialize};

use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::math::*;
use crate::types::VariantType;
use crate::writer::Writer;

/// The serialization error: a format error of the writer (a value the dialect cannot hold, a
/// string too long, …) or a value serde's data model has that Godot's has not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The writer refused a value.
    Format(crate::Error),
    /// A value Godot's format cannot hold, or a message from a `Serialize` impl.
    Message(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Format(e) => e.fmt(f),
            Error::Message(m) => f.write_str(m),
        }
    }
}

impl core::error::Error for Error {}

impl ser::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::Message(msg.to_string())
    }
}

impl From<crate::Error> for Error {
    #[cold]
    fn from(e: crate::Error) -> Error {
        Error::Format(e)
    }
}

/// A specialized `Result` for serialization.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Serializes `value` as one Godot 4 value (the engine's `var_to_bytes` output for it).
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(value, &EncodeOptions::new())
}

/// Serializes `value` with the given options (dialect, precision).
///
/// The output is the only allocation (reserved once, 256 bytes, and grown as needed); the bytes
/// and the errors are those of [`to_writer`] into a fresh [`Writer`].
pub fn to_vec_with<T: Serialize + ?Sized>(value: &T, opts: &EncodeOptions) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    value.serialize(&mut Direct {
        out: &mut out,
        opts: *opts,
        depth: 0,
    })?;
    Ok(out)
}

/// Serializes `value` into a streaming [`Writer`] (inside a container it has open, or as a
/// value of its own).
pub fn to_writer<T: Serialize + ?Sized>(w: &mut Writer, value: &T) -> Result<()> {
    value.serialize(&mut Serializer { w })
}

/// The serde `Serializer` over a [`Writer`].
pub struct Serializer<'w> {
    w: &'w mut Writer,
}

impl<'w> Serializer<'w> {
    /// A serializer writing into `w`.
    pub fn new(w: &'w mut Writer) -> Serializer<'w> {
        Serializer { w }
    }
}

/// serde's nesting limit on writing (as on reading: serde's conventional 128), counted in the
/// writer's open containers: serialization recurses natively, so the limit bounds the stack it
/// uses. Deeper values are written by [`encode()`](crate::encode()) or [`Writer::value`],
/// which are iterative.
pub const RECURSION_LIMIT: usize = 128;

/// Errors when one more container would pass [`RECURSION_LIMIT`].
#[inline]
pub(crate) fn check_nesting(w: &Writer) -> Result<()> {
    if w.depth() >= RECURSION_LIMIT {
        return Err(nesting_error());
    }
    Ok(())
}

#[cold]
fn nesting_error() -> Error {
    Error::Message(alloc::format!(
        "serde's nesting limit of {RECURSION_LIMIT} exceeded: write deeper values with \
         gdvariant::encode or Writer::value"
    ))
}

#[cold]
fn too_big(what: &str) -> Error {
    Error::Message(alloc::format!("{what} does not fit Godot's 64-bit int"))
}

impl<'a, 'w> ser::Serializer for &'a mut Serializer<'w> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'w>;
    type SerializeTuple = Compound<'a, 'w>;
    type SerializeTupleStruct = Compound<'a, 'w>;
    type SerializeTupleVariant = Compound<'a, 'w>;
    type SerializeMap = Compound<'a, 'w>;
    type SerializeStruct = Compound<'a, 'w>;
    type SerializeStructVariant = Compound<'a, 'w>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        // The header and a 32-bit 0 or 1 (`Enc::leaf`'s bool, without building a `Variant`).
        Ok(self.w.serde_leaf(|e| {
            e.header(VariantType::Bool, 0)?;
            e.u32(u32::from(v));
            Ok(())
        })?)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v))?)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("an i128"))?;
        Ok(self.w.serde_leaf(|e| e.int(v))?)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.int(v.into()))?)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("a u64 above i64::MAX"))?;
        Ok(self.w.serde_leaf(|e| e.int(v))?)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("a u128"))?;
        Ok(self.w.serde_leaf(|e| e.int(v))?)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.float(v.into()))?)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        Ok(self.w.serde_leaf(|e| e.float(v))?)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        Ok(self.w.string(v.encode_utf8(&mut [0; 4]))?)
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        Ok(self
            .w
            .serde_leaf(|e| e.string_value(VariantType::String, v))?)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        Ok(self.w.packed_bytes(v)?)
    }
    fn serialize_none(self) -> Result<()> {
        Ok(self.w.nil()?)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Ok(self.w.nil()?)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Ok(self.w.nil()?)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<()> {
        Ok(self.w.string(variant)?)
    }
    // Inlined, so that the magic name (a literal at the call) folds into its one case.
    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        use crate::serde_impl::{magic, sinks, Magic};
        match magic(name) {
            None => value.serialize(self),
            Some(Magic::Math(ty, _)) => write_math(self.w, ty, value),
            Some(Magic::Packed(ty, _)) => sinks::packed(self.w, ty, value),
            Some(Magic::Raw) => sinks::raw(self.w, value),
            Some(Magic::Object) => sinks::object(self.w, value),
            Some(Magic::Typed) => sinks::typed(self.w, value),
            Some(kind) => sinks::leaf(self.w, kind, value),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        check_nesting(self.w)?;
        self.w.begin_dictionary(Some(1))?;
        self.w.string(variant)?;
        value.serialize(&mut *self)?;
        Ok(self.w.end()?)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, 'w>> {
        check_nesting(self.w)?;
        self.w.begin_array(len)?;
        Ok(Compound {
            s: self,
            variant: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'w>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, 'w>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'w>> {
        check_nesting(self.w)?;
        self.w.begin_dictionary(Some(1))?;
        self.w.string(variant)?;
        self.w.begin_array(Some(len))?;
        Ok(Compound {
            s: self,
            variant: true,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, 'w>> {
        check_nesting(self.w)?;
        self.w.begin_dictionary(len)?;
        Ok(Compound {
            s: self,
            variant: false,
        })
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a, 'w>> {
        // The count is patched on `end`: fields skipped with `skip_serializing_if` do not count.
        check_nesting(self.w)?;
        self.w.begin_dictionary(None)?;
        Ok(Compound {
            s: self,
            variant: false,
        })
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'w>> {
        check_nesting(self.w)?;
        self.w.begin_dictionary(Some(1))?;
        self.w.string(variant)?;
        self.w.begin_dictionary(None)?;
        Ok(Compound {
            s: self,
            variant: true,
        })
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A container being serialized; `variant` when an enum's one-entry Dictionary wraps it.
pub struct Compound<'a, 'w> {
    s: &'a mut Serializer<'w>,
    variant: bool,
}

impl Compound<'_, '_> {
    fn end(self) -> Result<()> {
        self.s.w.end()?;
        if self.variant {
            self.s.w.end()?;
        }
        Ok(())
    }
}

macro_rules! seq_like {
    ($($tr:ident :: $method:ident),*) => {$(
        impl ser::$tr for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                value.serialize(&mut *self.s)
            }
            fn end(self) -> Result<()> {
                Compound::end(self)
            }
        }
    )*};
}
seq_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(&mut *self.s)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.s)
    }
    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.s
            .w
            .serde_leaf(|e| e.string_value(VariantType::String, key))?;
        value.serialize(&mut *self.s)
    }
    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.s
            .w
            .serde_leaf(|e| e.string_value(VariantType::String, key))?;
        value.serialize(&mut *self.s)
    }
    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

// ----- the direct serializer behind `to_vec` -----

/// Where the serializer's leaves go: the streaming [`Writer`] (every slot checked) or the
/// direct serializer's output.
pub(crate) trait Sink {
    /// Writes one value with `f`, one of the encoder's primitives, at the sink's depth.
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::Result<()>) -> Result<()>;
    /// Writes one value with `f`, whose errors are serialization errors (a packed array's
    /// elements come from the value being serialized).
    fn put_serde(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()>;
}

impl Sink for Writer {
    #[inline(always)]
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::Result<()>) -> Result<()> {
        Ok(self.serde_leaf(f)?)
    }
    #[inline(always)]
    fn put_serde(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()> {
        Writer::put_serde(self, f)
    }
}

/// The serializer of [`to_vec_with`]: it writes straight into the output with the encoder's
/// primitives. serde's own nesting keeps the containers balanced, so of the checks the
/// [`Writer`] makes for every value there remain the depth limits, the counts that
/// `serialize_seq` and `serialize_map` declare, and the count patched in on `end`; those it
/// makes exactly as the writer does (same errors, same offsets), with the open containers'
/// state in the [`DirectCompound`]s on the native stack instead of a heap stack. A full object,
/// a typed container and an already-encoded value are handed to a [`Writer`] resumed at the
/// same depth over the same output, whose object API applies its rules (script property,
/// object policy).
struct Direct<'o> {
    out: &'o mut Vec<u8>,
    opts: EncodeOptions,
    /// The number of open containers: the depth of the next value.
    depth: usize,
}

#[cold]
fn misuse(what: &'static str, at: usize) -> Error {
    Error::Format(crate::Error::new(
        crate::ErrorKind::WriterMisuse { what },
        at,
    ))
}

impl<'o> Direct<'o> {
    /// Writes one value with `f` at the current depth, checking the depth limit first (as
    /// [`Writer`] does for every value); on an error nothing is written.
    #[inline(always)]
    fn put(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::Result<()>) -> crate::Result<()> {
        let start = self.out.len();
        let mut ids = IdCache::new();
        let mut e = Enc {
            out: self.out,
            base: 0,
            opts: &self.opts,
            ids: &mut ids,
            depth: self.depth,
        };
        let res = e.check_depth(self.depth).and_then(|()| f(&mut e));
        if res.is_err() {
            self.out.truncate(start);
        }
        res
    }

    /// Writes the head of an untyped Array (`dict` false) or Dictionary of `count` elements or
    /// pairs (the bytes of [`Writer::begin_array`] and [`Writer::begin_dictionary`]) and enters
    /// it; returns where its count sits.
    #[inline(always)]
    fn open(&mut self, dict: bool, count: usize) -> Result<usize> {
        let ty = if dict {
            VariantType::Dictionary
        } else {
            VariantType::Array
        };
        let mut at = 0;
        self.put(|e| {
            let n = e.len32(count)?;
            let id = e.id(ty)?;
            e.u64(u64::from(id) | (u64::from(n) << 32));
            at = e.out.len() - 4;
            Ok(())
        })?;
        self.depth += 1;
        Ok(at)
    }

    /// Writes a String value (a key, a field or variant name).
    #[inline(always)]
    fn string(&mut self, s: &str) -> Result<()> {
        Ok(self.put(|e| e.string_value(VariantType::String, s))?)
    }

    /// Opens a container of `declared` elements (or pairs when `dict`; patched on `end` when
    /// `None`), as the [`Serializer`] over a [`Writer`] does; `variant` when an enum's one-pair
    /// Dictionary (already open) wraps it.
    #[inline(always)]
    fn compound(
        &mut self,
        dict: bool,
        declared: Option<usize>,
        variant: bool,
    ) -> Result<DirectCompound<'_, 'o>> {
        let count_at = self.open(dict, declared.unwrap_or(0))?;
        let per = if dict { 2 } else { 1 };
        Ok(DirectCompound {
            s: self,
            count_at,
            declared: declared.map(|n| n as u64 * per),
            written: 0,
            dict,
            variant,
        })
    }

    /// Opens an enum's one-pair Dictionary and writes its key, the variant's name.
    #[inline(always)]
    fn variant(&mut self, variant: &str) -> Result<()> {
        self.nesting()?;
        self.open(true, 1)?;
        self.string(variant)
    }

    /// serde's nesting limit ([`RECURSION_LIMIT`]), checked before a container opens.
    #[inline(always)]
    fn nesting(&self) -> Result<()> {
        if self.depth >= RECURSION_LIMIT {
            return Err(nesting_error());
        }
        Ok(())
    }

    /// Hands the value `f` writes to a [`Writer`] resumed over the output at the current
    /// depth (the writer's object API: full objects, typed containers, encoded values).
    fn via_writer(&mut self, f: impl FnOnce(&mut Writer) -> Result<()>) -> Result<()> {
        let buf = core::mem::take(self.out);
        let mut w = Writer::resume(buf, 0, self.opts, self.depth);
        let res = f(&mut w);
        *self.out = w.into_inner();
        res
    }
}

impl Sink for Direct<'_> {
    #[inline(always)]
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::Result<()>) -> Result<()> {
        Ok(self.put(f)?)
    }
    #[inline(always)]
    fn put_serde(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()> {
        let mut inner = Ok(());
        let res = self.put(|e| {
            let at = e.pos();
            f(e).map_err(|err| {
                inner = Err(err);
                crate::Error::new(
                    crate::ErrorKind::WriterMisuse {
                        what: "writer misuse",
                    },
                    at,
                )
            })
        });
        inner?;
        Ok(res?)
    }
}

// Every method inlined always in optimized builds: a derived type's `serialize` becomes one
// straight-line body (about 10 % faster on the input packet, though a few more instructions).
// Not in debug builds, whose unoptimized frames would then grow with every level of nesting
// (a value nested to `RECURSION_LIMIT` overflowed a test thread's stack).
impl<'a, 'o> ser::Serializer for &'a mut Direct<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = DirectCompound<'a, 'o>;
    type SerializeTuple = DirectCompound<'a, 'o>;
    type SerializeTupleStruct = DirectCompound<'a, 'o>;
    type SerializeTupleVariant = DirectCompound<'a, 'o>;
    type SerializeMap = DirectCompound<'a, 'o>;
    type SerializeStruct = DirectCompound<'a, 'o>;
    type SerializeStructVariant = DirectCompound<'a, 'o>;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_bool(self, v: bool) -> Result<()> {
        Ok(self.put(|e| {
            let id = e.id(VariantType::Bool)?;
            e.u64(u64::from(id) | (u64::from(v) << 32));
            Ok(())
        })?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_i8(self, v: i8) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_i16(self, v: i16) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_i32(self, v: i32) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_i64(self, v: i64) -> Result<()> {
        Ok(self.put(|e| e.int(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_i128(self, v: i128) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("an i128"))?;
        Ok(self.put(|e| e.int(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_u8(self, v: u8) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_u16(self, v: u16) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_u32(self, v: u32) -> Result<()> {
        Ok(self.put(|e| e.int(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_u64(self, v: u64) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("a u64 above i64::MAX"))?;
        Ok(self.put(|e| e.int(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| too_big("a u128"))?;
        Ok(self.put(|e| e.int(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_f32(self, v: f32) -> Result<()> {
        Ok(self.put(|e| e.float(v.into()))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_f64(self, v: f64) -> Result<()> {
        Ok(self.put(|e| e.float(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_char(self, v: char) -> Result<()> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.string(v)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        Ok(self.put(|e| e.bytes(v))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_none(self) -> Result<()> {
        Ok(self.put(|e| e.header(VariantType::Nil, 0))?)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_none()
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.string(variant)
    }
    // Inlined, so that the magic name (a literal at the call) folds into its one case.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        use crate::serde_impl::{magic, sinks, Magic};
        match magic(name) {
            None => value.serialize(self),
            Some(Magic::Math(ty, _)) => write_math(self, ty, value),
            Some(Magic::Packed(ty, _)) => sinks::packed(self, ty, value),
            Some(Magic::Raw) => self.via_writer(|w| sinks::raw(w, value)),
            Some(Magic::Object) => self.via_writer(|w| sinks::object(w, value)),
            Some(Magic::Typed) => self.via_writer(|w| sinks::typed(w, value)),
            Some(kind) => sinks::leaf(self, kind, value),
        }
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.variant(variant)?;
        value.serialize(&mut *self)?;
        self.depth -= 1;
        Ok(())
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_seq(self, len: Option<usize>) -> Result<DirectCompound<'a, 'o>> {
        self.nesting()?;
        self.compound(false, len, false)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_tuple(self, len: usize) -> Result<DirectCompound<'a, 'o>> {
        self.serialize_seq(Some(len))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<DirectCompound<'a, 'o>> {
        self.serialize_seq(Some(len))
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<DirectCompound<'a, 'o>> {
        self.variant(variant)?;
        self.compound(false, Some(len), true)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_map(self, len: Option<usize>) -> Result<DirectCompound<'a, 'o>> {
        self.nesting()?;
        self.compound(true, len, false)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<DirectCompound<'a, 'o>> {
        // The count is patched on `end`: fields skipped with `skip_serializing_if` do not count.
        self.nesting()?;
        self.compound(true, None, false)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<DirectCompound<'a, 'o>> {
        self.variant(variant)?;
        self.compound(true, None, true)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A container being written by the direct serializer: where its count sits, the count it
/// declared (in values: a Dictionary counts keys and values), the values written; `variant`
/// when an enum's one-pair Dictionary wraps it.
struct DirectCompound<'a, 'o> {
    s: &'a mut Direct<'o>,
    count_at: usize,
    declared: Option<u64>,
    written: u64,
    dict: bool,
    variant: bool,
}

impl DirectCompound<'_, '_> {
    /// Checks that one more value fits the declared count (the writer's slot check).
    #[inline(always)]
    fn slot(&mut self) -> Result<()> {
        if let Some(d) = self.declared {
            if self.written >= d {
                return Err(misuse(
                    "more values than the container's declared count",
                    self.s.out.len(),
                ));
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Closes the container as [`Writer::end`] does: checks or patches its count.
    #[inline(always)]
    fn end(self) -> Result<()> {
        let at = self.s.out.len();
        if self.dict && self.written % 2 != 0 {
            return Err(misuse("dictionary key without a value", at));
        }
        let items = if self.dict {
            self.written / 2
        } else {
            self.written
        };
        crate::writer::close_count(
            &mut self.s.out[..],
            self.count_at,
            self.declared,
            self.written,
            items,
            at,
        )?;
        self.s.depth -= 1 + usize::from(self.variant);
        Ok(())
    }
}

macro_rules! direct_seq_like {
    ($($tr:ident :: $method:ident),*) => {$(
        impl ser::$tr for DirectCompound<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.slot()?;
                value.serialize(&mut *self.s)
            }
            fn end(self) -> Result<()> {
                DirectCompound::end(self)
            }
        }
    )*};
}
direct_seq_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for DirectCompound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.slot()?;
        key.serialize(&mut *self.s)
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.slot()?;
        value.serialize(&mut *self.s)
    }
    fn end(self) -> Result<()> {
        DirectCompound::end(self)
    }
}

macro_rules! direct_struct_like {
    ($($tr:ident),*) => {$(
        impl ser::$tr for DirectCompound<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                // A struct's count is patched (never declared): no slot to check.
                self.written += 2;
                self.s.string(key)?;
                value.serialize(&mut *self.s)
            }
            fn end(self) -> Result<()> {
                DirectCompound::end(self)
            }
        }
    )*};
}
direct_struct_like!(SerializeStruct, SerializeStructVariant);

/// Writes the math type `ty` from the components `value` serializes (its tuple), through the
/// writer's own payload code; no allocation.
#[inline(always)]
fn write_math<S: Sink, T: Serialize + ?Sized>(w: &mut S, ty: VariantType, value: &T) -> Result<()> {
    use VariantType as Ty;
    match ty {
        Ty::Vector2 => reals::<2, S, T>(w, ty, value),
        Ty::Vector3 => reals::<3, S, T>(w, ty, value),
        Ty::Rect2 | Ty::Vector4 | Ty::Plane | Ty::Quaternion => reals::<4, S, T>(w, ty, value),
        Ty::Transform2D | Ty::Aabb => reals::<6, S, T>(w, ty, value),
        Ty::Basis => reals::<9, S, T>(w, ty, value),
        Ty::Transform3D => reals::<12, S, T>(w, ty, value),
        Ty::Projection => reals::<16, S, T>(w, ty, value),
        Ty::Vector2i => ints::<2, S, T>(w, ty, value),
        Ty::Vector3i => ints::<3, S, T>(w, ty, value),
        Ty::Rect2i | Ty::Vector4i => ints::<4, S, T>(w, ty, value),
        _ => {
            let c = collect::<4, T>(ty, value)?;
            w.put_leaf(|e| e.color(Color::from_array(c.single)))
        }
    }
}

/// Collects the `N` components of the math type `ty` from `value`.
#[inline(always)]
fn collect<const N: usize, T: Serialize + ?Sized>(
    ty: VariantType,
    value: &T,
) -> Result<Collect<N>> {
    let mut c = Collect {
        out: [0.0; N],
        single: [0.0; 4],
        n: 0,
    };
    value.serialize(&mut c)?;
    if c.n != N {
        return Err(wrong_components(ty, N));
    }
    Ok(c)
}

#[inline(always)]
fn reals<const N: usize, S: Sink, T: Serialize + ?Sized>(
    w: &mut S,
    ty: VariantType,
    value: &T,
) -> Result<()> {
    let c = collect::<N, T>(ty, value)?;
    w.put_leaf(|e| e.math(ty, c.out))
}

#[inline(always)]
fn ints<const N: usize, S: Sink, T: Serialize + ?Sized>(
    w: &mut S,
    ty: VariantType,
    value: &T,
) -> Result<()> {
    let c = collect::<N, T>(ty, value)?;
    w.put_leaf(|e| e.ints(ty, c.out.map(|x| x as i32)))
}

#[cold]
fn wrong_components(ty: VariantType, n: usize) -> Error {
    Error::Message(alloc::format!("{} needs {n} components", ty.name()))
}

/// Collects the numeric components of a math type's tuple.
struct Collect<const N: usize> {
    out: [f64; N],
    /// The first four components as f32, exactly as given when given as f32 (a Color's: `as`
    /// through f64 and back would quiet a signaling NaN).
    single: [f32; 4],
    n: usize,
}

impl<const N: usize> Collect<N> {
    #[inline(always)]
    fn push(&mut self, x: f64) -> Result<()> {
        self.push2(x, crate::math::narrow(x))
    }

    #[inline(always)]
    fn push2(&mut self, x: f64, single: f32) -> Result<()> {
        if let Some(s) = self.single.get_mut(self.n) {
            *s = single;
        }
        match self.out.get_mut(self.n) {
            Some(slot) => {
                *slot = x;
                self.n += 1;
                Ok(())
            }
            None => Err(Error::Message("too many components".into())),
        }
    }
}

#[cold]
fn not_a_component() -> Error {
    Error::Message("a math type's components are numbers".into())
}

impl<const N: usize> ser::Serializer for &mut Collect<N> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_f64(self, v: f64) -> Result<()> {
        self.push(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.push2(v.into(), v)
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.push(v.into())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_bool(self, _: bool) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_i8(self, _: i8) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_i16(self, _: i16) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_i64(self, _: i64) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_u8(self, _: u8) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_u16(self, _: u16) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_u32(self, _: u32) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_u64(self, _: u64) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_char(self, _: char) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_str(self, _: &str) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_none(self) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_unit(self) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(not_a_component())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(not_a_component())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(not_a_component())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(not_a_component())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(not_a_component())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(not_a_component())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(not_a_component())
    }
}

impl<const N: usize> ser::SerializeTuple for &mut Collect<N> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}
