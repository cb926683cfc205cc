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

use crate::encode::EncodeOptions;
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
pub fn to_vec_with<T: Serialize + ?Sized>(value: &T, opts: &EncodeOptions) -> Result<Vec<u8>> {
    let mut w = Writer::with_buffer(Vec::with_capacity(256), *opts);
    to_writer(&mut w, value)?;
    Ok(w.finish()?)
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

/// Writes the math type `ty` from the components `value` serializes (its tuple), through the
/// writer's own payload code; no allocation.
#[inline(always)]
fn write_math<T: Serialize + ?Sized>(w: &mut Writer, ty: VariantType, value: &T) -> Result<()> {
    use VariantType as Ty;
    match ty {
        Ty::Vector2 => reals::<2, T>(w, ty, value),
        Ty::Vector3 => reals::<3, T>(w, ty, value),
        Ty::Rect2 | Ty::Vector4 | Ty::Plane | Ty::Quaternion => reals::<4, T>(w, ty, value),
        Ty::Transform2D | Ty::Aabb => reals::<6, T>(w, ty, value),
        Ty::Basis => reals::<9, T>(w, ty, value),
        Ty::Transform3D => reals::<12, T>(w, ty, value),
        Ty::Projection => reals::<16, T>(w, ty, value),
        Ty::Vector2i => ints::<2, T>(w, ty, value),
        Ty::Vector3i => ints::<3, T>(w, ty, value),
        Ty::Rect2i | Ty::Vector4i => ints::<4, T>(w, ty, value),
        _ => {
            let c = collect::<4, T>(ty, value)?;
            Ok(w.serde_leaf(|e| e.color(Color::from_array(c.single)))?)
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
fn reals<const N: usize, T: Serialize + ?Sized>(
    w: &mut Writer,
    ty: VariantType,
    value: &T,
) -> Result<()> {
    let c = collect::<N, T>(ty, value)?;
    Ok(w.serde_leaf(|e| e.math(ty, c.out))?)
}

#[inline(always)]
fn ints<const N: usize, T: Serialize + ?Sized>(
    w: &mut Writer,
    ty: VariantType,
    value: &T,
) -> Result<()> {
    let c = collect::<N, T>(ty, value)?;
    Ok(w.serde_leaf(|e| e.ints(ty, c.out.map(|x| x as i32)))?)
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
