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
//! One difference from [`to_owned`](crate::VariantRef::to_owned): a math value's 32-bit real
//! component that is a signaling NaN reaches the visitor as a quiet NaN (`f64::from`), where
//! `to_owned` keeps its payload. Checking for it on the fast path cost 4–5 % of the game state's
//! serde instructions, for a value no engine computes.
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
//!     pos: gdvariant::math::Vector3,
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
//! assert_eq!(state.entities[3].pos, gdvariant::math::Vector3::new(3.0, 1.5, -3.0));
//! # Ok::<(), gdvariant::de::Error>(())
//! ```

// The files, from the bottom up (each imports only files named before it): `error` (the error
// type), `scalar` (scalars and strings read straight from the input), `elements` (math types
// and packed arrays as sequences), `owned` (a deserializer over bytes of its own), `deserializer`
// (the `Deserializer`'s state, and how it reads one value), `typed` (typed containers read as
// the engine reads them), `slot` (a map's own cursor, and a key or value read on one), `map` (the
// sequence, map and enum accesses); and this file: the entry points, and serde's
// `Deserializer` trait.

use serde::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use crate::head::skip_plain;
use crate::reader::Reader;
use crate::serde_impl::{options_word, Magic};
use crate::types::{ReadOptions, VariantType, FLAG_64};
use crate::value::VariantRef;
use crate::walker::plain::Plain;
use crate::walker::{Event, Walker};

mod deserializer;
mod elements;
pub(crate) mod error;
mod map;
mod owned;
mod scalar;
mod slot;
mod typed;

use deserializer::{expected_value, fewer_elements, handoff_error, Source, RECURSION_LIMIT};
pub use deserializer::{Deserializer, FromEngine, FromInput};
pub use error::{Error, Result};
use map::{Enum, KeyAt, Map, Seq};
use scalar::{scalar_methods, Ids, BOOL, FLOAT, INT, NIL, SCALARS, STR};
use slot::Own;

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
        ids,
        input: Reader::new(bytes, 0),
        source: core::marker::PhantomData::<FromInput>,
        checked_until: 0,
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
        ids,
        input: Reader::new(v.h.data, v.h.offset),
        source: core::marker::PhantomData::<FromInput>,
        checked_until: 0,
    };
    T::deserialize(&mut de)
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
        let res = match ty {
            VariantType::Array => visitor.visit_seq(Seq {
                de: self,
                len,
                index: 0,
            }),
            _ => {
                // A Dictionary whose values take the fast path reads them on a cursor of its
                // own (an object's, with property names and the `script` rule, never).
                let mut own = match self.w.plain() {
                    Some(p) if ty == VariantType::Dictionary => Own { p, fast: true },
                    _ => Own {
                        p: Plain::NONE,
                        fast: false,
                    },
                };
                let res = visitor.visit_map(Map::<S, FIELDS> {
                    de: self,
                    len,
                    index: 0,
                    key: KeyAt::None,
                    object: ty == VariantType::Object,
                    fields,
                    next_field: 0,
                    own: &mut own,
                });
                // The walker caught up with what the visitor read (after an error the walk is
                // over, below).
                if res.is_ok() {
                    own.sync(&mut self.w);
                }
                res
            }
        };
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
        if self.w.close() {
            return Ok(value);
        }
        // Everything the visitor left unread is an error, as a length mismatch.
        match self.next()? {
            Event::End => Ok(value),
            _ => Err(fewer_elements(len, offset)),
        }
    }

    /// Hands the next value over whole, borrowed, to the visitor of a
    /// [`VariantRef`] or [`Variant`](crate::Variant) (see
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

    /// The event path of `deserialize_any` and of the containers.
    fn any_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let visitor = match S::typed(self, visitor) {
            Ok(res) => return res,
            Err(visitor) => visitor,
        };
        let e = self.next()?;
        self.event(e, visitor)
    }
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
        match self.plain_value() {
            Some((mut p, b)) if b.len() >= 4 => {
                p.take(4);
                self.w.resume(p);
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
                let res = visitor.visit_enum(Enum { de: self });
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
        if let Some((mut p, b)) = self.plain_value() {
            if let Some(rest) = skip_plain::<true>(b, self.dialect().layouts()) {
                p.take(b.len() - rest.len());
                self.w.resume(p);
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
