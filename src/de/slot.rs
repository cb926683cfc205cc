//! A map's key or value read on the map's own cursor ([`Slot`]): by the fast paths there,
//! anything else by the deserializer.

// This file's #[inline(always)]s and #[cold], as a group: in_serde +3.3 % time, +0.8 % instructions
// without them (layout-pinned A/B).

use serde::de::{self, Visitor};

use super::deserializer::{Deserializer, Source};
use super::elements::{math_at, strings_at};
use super::error::{Error, Result};
use super::scalar::{scalar_at, scalar_methods, BOOL, FLOAT, INT, NIL, SCALARS, STR};
use crate::head::skip_plain;
use crate::leaf::word;
use crate::reader::counted;
use crate::serde_impl::Magic;
use crate::types::VariantType;
use crate::walker::plain::Plain;

/// What a [`Slot`] leaves in [`Deserializer::after`] when the map can no longer read on its own
/// cursor (the walker read the value, and the walk did not go on as a plain walk).
pub(super) const NOT_FAST: usize = usize::MAX;

/// A map's key or value, on the map's own cursor: read by the fast paths there, anything else
/// by the deserializer, the walker moved to the value first. Passed by value, so that the map
/// itself (its cursor, counts and key) never reaches a call and stays in registers: the map
/// learns where the value ended from [`Deserializer::after`].
pub(super) struct Slot<'a, 'de, S> {
    pub(super) de: &'a mut Deserializer<'de, S>,
    /// The map's cursor, at the value (the keys and values due on it, this one included).
    pub(super) p: Plain<'de>,
}

/// The `deserialize_*` methods of [`Slot`] for a scalar: the fast path for the types in
/// `$mask` on the map's cursor, else the deserializer's method.
macro_rules! slot_scalar {
    ($($method:ident $mask:expr;)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            match self.scalar::<V, { $mask }>(visitor) {
                Ok(res) => res,
                // (Out of line for integers and bools: with the event path out of line the
                // fast path stays small enough to be inlined into a struct's loop — the
                // derived visitors of `u32`, `u8`, … check the range; `bool::deserialize` was
                // a call per bool otherwise.)
                Err(visitor) if falls_back_cold($mask) => {
                    self.cold_fallback(visitor, |de, v| de.$method(v))
                }
                Err(visitor) => self.fallback(|de| de.$method(visitor)),
            }
        }
    )*};
}

/// Whether the fast path of the mask `mask` falls back out of line: integers' and bools'.
const fn falls_back_cold(mask: u8) -> bool {
    mask == INT || mask == BOOL
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
        self.de.after = self.p.rest.len() - n;
        self.de.w.offset_of(&self.p)
    }

    /// `f` on the deserializer, the walker moved to the value first (it is behind the map's
    /// cursor, in the same container); then where the walk goes on, for the map.
    #[inline(always)]
    fn fallback<T>(self, f: impl FnOnce(&mut Deserializer<'de, S>) -> Result<T>) -> Result<T> {
        self.de.w.resume(self.p);
        let res = f(self.de);
        // (After an error the walk is over: nothing more on the map's own cursor.)
        self.de.after = match self.de.w.plain() {
            Some(p) if res.is_ok() => p.rest.len(),
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
        let b = self.p.rest;
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
        match word(self.p.rest) {
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
                let (b, at) = (self.p.rest, self.de.w.offset_of(&self.p));
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
        if let Some(rest) = skip_plain::<true>(self.p.rest, self.de.dialect().layouts()) {
            self.commit(self.p.rest.len() - rest.len());
            return visitor.visit_unit();
        }
        self.fallback(|de| de.deserialize_ignored_any(visitor))
    }

    scalar_methods!(slot_scalar);

    /// A PackedStringArray straight to the visitor; anything else as the deserializer reads it.
    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let de = &mut *self.de;
        match strings_at(de.w.reader_of(&self.p), &de.ids, de.dialect(), visitor) {
            Ok((Ok(v), r)) => {
                // (The cursor counted what it read.)
                de.after = r.rest().len();
                Ok(v)
            }
            Ok((Err(e), _)) => {
                // Part-way through the value: the walk cannot go on (from the value's start, where
                // the deserializer's own fast path leaves it too).
                de.w.resume(self.p);
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
