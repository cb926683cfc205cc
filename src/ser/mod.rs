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
//!     aim: gdvariant::math::Vector3,
//!     name: &'a str,
//! }
//! let bytes = gdvariant::to_vec(&Input { seq: 7, aim: gdvariant::math::Vector3::new(0.5, 1.0, 0.0), name: "p1" })?;
//! let d = gdvariant::parse(&bytes)?.as_dictionary()?;
//! assert_eq!(d.get("seq")?.unwrap().as_i64()?, 7);
//! assert_eq!(d.get("aim")?.unwrap().as_vector3()?, gdvariant::math::Vector3::new(0.5, 1.0, 0.0));
//! # Ok::<(), gdvariant::ser::Error>(())
//! ```

use alloc::vec::Vec;

use serde::ser::{self, Serialize};

use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::math::*;
use crate::types::VariantType;
use crate::writer::Writer;

mod compound;
pub(crate) mod sink;
mod sinks;

use sink::{nesting_error, Nested, Sink};
pub use sink::{Error, Result, RECURSION_LIMIT};

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

#[cold]
fn too_big(what: &str) -> Error {
    Error::Message(alloc::format!("{what} does not fit Godot's 64-bit int"))
}

// ----- the direct serializer behind `to_vec` -----
//
// This file's #[inline(always)]s, as a group: input packet to_vec +8 % time without them
// (side by side, code layout pinned; benches/README.md).

/// The writer keeps its open containers itself (and checks every slot as it writes).
impl Sink for Writer {
    type Open = ();
    #[inline(always)]
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::error::Result<()>) -> Result<()> {
        Ok(self.serde_leaf(f)?)
    }
    #[inline(always)]
    fn depth(&self) -> usize {
        Writer::depth(self)
    }
    #[inline(always)]
    fn open(&mut self, dict: bool, declared: Option<usize>) -> Result<()> {
        if dict {
            Ok(self.begin_dictionary(declared)?)
        } else {
            Ok(self.begin_array(declared)?)
        }
    }
    #[inline(always)]
    fn slot(&mut self, _: &mut ()) -> Result<()> {
        Ok(())
    }
    #[inline(always)]
    fn close(&mut self, _: ()) -> Result<()> {
        Ok(self.end()?)
    }
    #[inline(always)]
    fn with_writer(&mut self, f: impl FnOnce(&mut Writer) -> Result<()>) -> Result<()> {
        f(self)
    }
}

/// A nested value of a full object or typed container, through the serializer over the writer.
impl Nested for Writer {
    fn serialize_nested<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        to_writer(self, value)
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
    Error::Format(crate::error::Error::new(
        crate::error::ErrorKind::WriterMisuse { what },
        at,
    ))
}

impl<'o> Direct<'o> {
    /// Writes one value with `f` at the current depth, checking the depth limit first (as
    /// [`Writer`] does for every value); on an error nothing is written.
    #[inline(always)]
    fn put(
        &mut self,
        f: impl FnOnce(&mut Enc<'_>) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
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
    fn open_head(&mut self, dict: bool, count: usize) -> Result<usize> {
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

/// A container being written by the direct serializer: where its count sits, the count it
/// declared (in values: a Dictionary counts keys and values), the values written.
pub(crate) struct DirectOpen {
    count_at: usize,
    declared: Option<u64>,
    written: u64,
    dict: bool,
}

impl Sink for Direct<'_> {
    type Open = DirectOpen;
    #[inline(always)]
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::error::Result<()>) -> Result<()> {
        Ok(self.put(f)?)
    }
    #[inline(always)]
    fn depth(&self) -> usize {
        self.depth
    }
    #[inline(always)]
    fn open(&mut self, dict: bool, declared: Option<usize>) -> Result<DirectOpen> {
        let count_at = self.open_head(dict, declared.unwrap_or(0))?;
        let per = if dict { 2 } else { 1 };
        Ok(DirectOpen {
            count_at,
            declared: declared.map(|n| n as u64 * per),
            written: 0,
            dict,
        })
    }
    /// The writer's slot check, on the state kept on the native stack.
    #[inline(always)]
    fn slot(&mut self, o: &mut DirectOpen) -> Result<()> {
        if let Some(d) = o.declared {
            if o.written >= d {
                return Err(misuse(
                    "more values than the container's declared count",
                    self.out.len(),
                ));
            }
        }
        o.written += 1;
        Ok(())
    }
    /// Closes the container as [`Writer::end`] does.
    #[inline(always)]
    fn close(&mut self, o: DirectOpen) -> Result<()> {
        let at = self.out.len();
        if o.dict && o.written % 2 != 0 {
            return Err(misuse("dictionary key without a value", at));
        }
        let items = if o.dict { o.written / 2 } else { o.written };
        crate::writer::close_count(
            &mut self.out[..],
            o.count_at,
            o.declared,
            o.written,
            items,
            at,
        )?;
        self.depth -= 1;
        Ok(())
    }
    #[inline(always)]
    fn with_writer(&mut self, f: impl FnOnce(&mut Writer) -> Result<()>) -> Result<()> {
        self.via_writer(f)
    }
}

/// The `serialize_*` methods of the integer types: those that always fit an `int` (the first
/// list), and those that fit when at most `i64::MAX` (the second list, each with what it is
/// called in the error).
macro_rules! int_methods {
    ($($fit:ident($ft:ty)),*; $($check:ident($ct:ty, $what:literal)),*) => {
        $(
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn $fit(self, v: $ft) -> Result<()> {
                self.sink().put_leaf(|e| e.int(v.into()))
            }
        )*
        $(
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn $check(self, v: $ct) -> Result<()> {
                let v = i64::try_from(v).map_err(|_| too_big($what))?;
                self.sink().put_leaf(|e| e.int(v))
            }
        )*
    };
}

/// The serde `Serializer` once for both serializers: `&mut $ser` writes every value through
/// its [`Sink`] (`$ser::sink`), and its containers are `$compound`s, which keep the sink's
/// state of an open container. Every method is inlined always in optimized builds: a derived
/// type's `serialize` becomes one straight-line body (about 10 % faster on the input packet,
/// though a few more instructions). Not in debug builds, whose unoptimized frames would then
/// grow with every level of nesting (a value nested to `RECURSION_LIMIT` overflowed a test
/// thread's stack).
macro_rules! serializer {
    ($ser:ident<$l:lifetime>, $sink:ty, $(#[$doc:meta])* $vis:vis struct $compound:ident) => {
        impl<$l> $ser<$l> {
            /// serde's nesting limit ([`RECURSION_LIMIT`]), checked before a container opens.
            #[inline(always)]
            fn ser_nesting(&mut self) -> Result<()> {
                if self.sink().depth() >= RECURSION_LIMIT {
                    return Err(nesting_error());
                }
                Ok(())
            }

            /// Writes a String value (a key, a field or variant name).
            #[inline(always)]
            fn ser_string(&mut self, s: &str) -> Result<()> {
                self.sink()
                    .put_leaf(|e| e.string_value(VariantType::String, s))
            }

            /// Opens an enum's one-pair Dictionary and writes its key, the variant's name; the
            /// slot of its value is taken too.
            #[inline(always)]
            fn ser_variant(&mut self, variant: &str) -> Result<<$sink as Sink>::Open> {
                self.ser_nesting()?;
                let mut o = self.sink().open(true, Some(1))?;
                self.sink().slot(&mut o)?;
                self.ser_string(variant)?;
                self.sink().slot(&mut o)?;
                Ok(o)
            }

            /// Opens a container of `declared` elements (or pairs when `dict`; patched on `end`
            /// when `None`), inside the enum's Dictionary `variant` if it has one.
            #[inline(always)]
            fn ser_compound<'a>(
                &'a mut self,
                dict: bool,
                declared: Option<usize>,
                variant: Option<<$sink as Sink>::Open>,
            ) -> Result<$compound<'a, $l>> {
                let open = self.sink().open(dict, declared)?;
                Ok($compound {
                    s: self,
                    open,
                    variant,
                })
            }
        }

        impl<'a, $l> ser::Serializer for &'a mut $ser<$l> {
            type Ok = ();
            type Error = Error;
            type SerializeSeq = $compound<'a, $l>;
            type SerializeTuple = $compound<'a, $l>;
            type SerializeTupleStruct = $compound<'a, $l>;
            type SerializeTupleVariant = $compound<'a, $l>;
            type SerializeMap = $compound<'a, $l>;
            type SerializeStruct = $compound<'a, $l>;
            type SerializeStructVariant = $compound<'a, $l>;

            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_bool(self, v: bool) -> Result<()> {
                // The header and a 32-bit 0 or 1 in one word.
                self.sink().put_leaf(|e| {
                    let id = e.id(VariantType::Bool)?;
                    e.u64(u64::from(id) | (u64::from(v) << 32));
                    Ok(())
                })
            }
            int_methods! {
                serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
                serialize_u8(u8), serialize_u16(u16), serialize_u32(u32);
                serialize_i128(i128, "an i128"), serialize_u64(u64, "a u64 above i64::MAX"),
                serialize_u128(u128, "a u128")
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_f32(self, v: f32) -> Result<()> {
                self.sink().put_leaf(|e| e.float(v.into()))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_f64(self, v: f64) -> Result<()> {
                self.sink().put_leaf(|e| e.float(v))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_char(self, v: char) -> Result<()> {
                self.ser_string(v.encode_utf8(&mut [0; 4]))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_str(self, v: &str) -> Result<()> {
                self.ser_string(v)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_bytes(self, v: &[u8]) -> Result<()> {
                self.sink().put_leaf(|e| e.bytes(v))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_none(self) -> Result<()> {
                self.sink().put_leaf(|e| e.header(VariantType::Nil, 0))
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
                self.ser_string(variant)
            }
            // Inlined, so that the magic name (a literal at the call) folds into its one case.
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_newtype_struct<T: Serialize + ?Sized>(
                self,
                name: &'static str,
                value: &T,
            ) -> Result<()> {
                use crate::serde_impl::{magic, Magic};
                match magic(name) {
                    None => value.serialize(self),
                    Some(Magic::Math(ty, _)) => write_math(self.sink(), ty, value),
                    Some(Magic::Packed(ty, _)) => sinks::packed(self.sink(), ty, value),
                    Some(Magic::Raw) => self.sink().with_writer(|w| sinks::raw(w, value)),
                    Some(Magic::Object) => self.sink().with_writer(|w| compound::object(w, value)),
                    Some(Magic::Typed) => self.sink().with_writer(|w| compound::typed(w, value)),
                    Some(kind) => sinks::leaf(self.sink(), kind, value),
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
                let o = self.ser_variant(variant)?;
                value.serialize(&mut *self)?;
                self.sink().close(o)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_seq(self, len: Option<usize>) -> Result<$compound<'a, $l>> {
                self.ser_nesting()?;
                self.ser_compound(false, len, None)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_tuple(self, len: usize) -> Result<$compound<'a, $l>> {
                self.serialize_seq(Some(len))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_tuple_struct(
                self,
                _name: &'static str,
                len: usize,
            ) -> Result<$compound<'a, $l>> {
                self.serialize_seq(Some(len))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_tuple_variant(
                self,
                _name: &'static str,
                _i: u32,
                variant: &'static str,
                len: usize,
            ) -> Result<$compound<'a, $l>> {
                let o = self.ser_variant(variant)?;
                self.ser_compound(false, Some(len), Some(o))
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_map(self, len: Option<usize>) -> Result<$compound<'a, $l>> {
                self.ser_nesting()?;
                self.ser_compound(true, len, None)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<$compound<'a, $l>> {
                // The count is patched on `end`: fields skipped with `skip_serializing_if` do
                // not count.
                self.ser_nesting()?;
                self.ser_compound(true, None, None)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_struct_variant(
                self,
                _name: &'static str,
                _i: u32,
                variant: &'static str,
                _len: usize,
            ) -> Result<$compound<'a, $l>> {
                let o = self.ser_variant(variant)?;
                self.ser_compound(true, None, Some(o))
            }
            fn is_human_readable(&self) -> bool {
                false
            }
        }

        $(#[$doc])*
        $vis struct $compound<'a, $l> {
            s: &'a mut $ser<$l>,
            open: <$sink as Sink>::Open,
            /// The enum's one-pair Dictionary around the container, if any.
            variant: Option<<$sink as Sink>::Open>,
        }

        impl<$l> $compound<'_, $l> {
            /// Writes an element, a key or a value.
            #[inline(always)]
            fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.s.sink().slot(&mut self.open)?;
                value.serialize(&mut *self.s)
            }

            /// Writes a struct's field: its name as a String key, then its value.
            #[inline(always)]
            fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.s.sink().slot(&mut self.open)?;
                self.s.ser_string(key)?;
                self.item(value)
            }

            /// Closes the container (and the enum's Dictionary around it).
            #[inline(always)]
            fn finish(self) -> Result<()> {
                self.s.sink().close(self.open)?;
                match self.variant {
                    Some(o) => self.s.sink().close(o),
                    None => Ok(()),
                }
            }
        }

        compound_traits!($compound<$l>: SerializeSeq::serialize_element, SerializeTuple::serialize_element,
            SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);

        impl<$l> ser::SerializeMap for $compound<'_, $l> {
            type Ok = ();
            type Error = Error;
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
                self.item(key)
            }
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.item(value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        }

        compound_traits!($compound<$l>, fields: SerializeStruct, SerializeStructVariant);
    };
}

/// serde's element and field traits for a compound of [`serializer!`]: each element through
/// `item`, each field through `field`.
macro_rules! compound_traits {
    ($compound:ident<$l:lifetime>: $($tr:ident :: $method:ident),*) => {$(
        impl<$l> ser::$tr for $compound<'_, $l> {
            type Ok = ();
            type Error = Error;
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.item(value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    )*};
    ($compound:ident<$l:lifetime>, fields: $($tr:ident),*) => {$(
        impl<$l> ser::$tr for $compound<'_, $l> {
            type Ok = ();
            type Error = Error;
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                self.field(key, value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    )*};
}

impl Serializer<'_> {
    /// Where the values go.
    #[inline(always)]
    fn sink(&mut self) -> &mut Writer {
        self.w
    }
}

serializer!(
    Serializer<'w>,
    Writer,
    /// A container being serialized into a [`Writer`] (serde's `SerializeSeq`, `SerializeMap`,
    /// `SerializeStruct`, …).
    pub struct Compound
);

impl Direct<'_> {
    /// Where the values go: the output itself.
    #[inline(always)]
    fn sink(&mut self) -> &mut Self {
        self
    }
}

serializer!(
    Direct<'o>,
    Direct<'o>,
    /// A container being written by the direct serializer (serde's `SerializeSeq`, …).
    struct DirectCompound
);

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
