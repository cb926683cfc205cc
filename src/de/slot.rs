//! A map's own cursor ([`Own`]), and a map's key or value read on one ([`Slot`]): by the fast
//! paths there, anything else by the deserializer.

// This file's #[inline(always)]s and #[cold], as a group: in_serde +3.3 % time, +0.8 % instructions
// without them (layout-pinned A/B).

use serde::de::{self, Visitor};

use super::deserializer::{Deserializer, Source};
use super::elements::{math_at, strings_at};
use super::error::{Error, Result};
use super::scalar::{scalar_at, scalar_methods, BOOL, FLOAT, INT, NIL, SCALARS, STR};
use crate::head::skip_plain;
use crate::leaf::word;
use crate::reader::suffix;
use crate::serde_impl::Magic;
use crate::types::VariantType;
use crate::walker::plain::Plain;
use crate::walker::Walker;

/// A map's own cursor (when `fast`; nothing due on it otherwise), the walker's fast path
/// ([`Walker::plain`](crate::walker::Walker::plain)): its next key or value on, ahead of the
/// walker, which catches up (`Map::sync`) before anything else reads, and once the visitor is
/// done ([`Deserializer::elements`]).
///
/// It lives in the caller's frame, not in the `Map` the visitor takes by value: the caller
/// reads it back after the visitor, and the map needs no `Drop`, whose out-of-line glue on the
/// unwinding path would take the map's address and keep the cursor in memory instead of
/// registers (with it: in_serde +7 %, gs_serde +4 % against main's, layout-pinned A/B, 3
/// rounds). A panic leaves the walker be.
pub(super) struct Own<'de> {
    pub(super) p: Plain<'de>,
    /// Whether the map reads on its own cursor: a plain Dictionary (not an object, its values
    /// within the depth limit), and no error since.
    pub(super) fast: bool,
}

impl<'de> Own<'de> {
    /// The walker caught up with the cursor.
    #[inline(always)]
    pub(super) fn sync(&self, w: &mut Walker<'de>) {
        if self.fast {
            w.resume(self.p);
        }
    }

    /// The cursor caught up with the walker `w`, which read on from it (`ok`: without an
    /// error; after an error the walk is over: nothing more on the cursor).
    #[inline]
    pub(super) fn caught_up(&mut self, w: &Walker<'de>, ok: bool) {
        match w.plain() {
            // (The walker's bytes left are a suffix of the cursor's, behind it: only their
            // length is taken, see `Walker::resume`.)
            Some(p) if ok => {
                self.p.rest = suffix(self.p.rest, p.rest.len());
                self.p.left = p.left;
            }
            _ => self.stop(),
        }
    }

    /// No more reading on the cursor (the walker's is the one).
    #[inline]
    pub(super) fn stop(&mut self) {
        self.fast = false;
        self.p.left = 0;
    }
}

/// A map's key or value, on a cursor at it: read by the fast paths there, anything else by the
/// deserializer, the walker moved to the value first. The cursor is the map's slot's own (see
/// `Map::slot`), so that the map itself (its cursor, counts and key) never reaches a call and
/// stays in registers; the map takes it back once the value is read.
pub(super) struct Slot<'a, 'de, S> {
    pub(super) de: &'a mut Deserializer<'de, S>,
    /// The cursor, at the value (the keys and values due on it, this one included).
    pub(super) own: &'a mut Own<'de>,
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
        let at = self.de.w.offset_of(&self.own.p);
        self.own.p.take(n);
        at
    }

    /// `f` on the deserializer, the walker moved to the value first (it is behind the map's
    /// cursor, in the same container); then where the walk goes on, for the map.
    #[inline(always)]
    fn fallback<T>(self, f: impl FnOnce(&mut Deserializer<'de, S>) -> Result<T>) -> Result<T> {
        self.de.w.resume(self.own.p);
        let res = f(self.de);
        self.own.caught_up(&self.de.w, res.is_ok());
        res
    }

    /// [`fallback`](Slot::fallback) with `visitor`, out of line: the value is not one a fast
    /// path reads, and the fast path's own code stays small enough to be inlined into the
    /// visitor's caller (a derived struct's loop).
    ///
    /// (The cursor is handed over and back by value: its address, reaching no call, stays out
    /// of memory.)
    #[inline]
    fn cold_fallback<V: Visitor<'de>>(
        self,
        visitor: V,
        f: impl FnOnce(&mut Deserializer<'de, S>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let p = self.own.p;
        let (res, own) = cold_fallback(self.de, p.rest, p.left, visitor, f);
        *self.own = own;
        res
    }

    /// The fast path of a scalar of a type in `MASK`: `Err(visitor)` back when it declines.
    #[inline(always)]
    fn scalar<V: Visitor<'de>, const MASK: u8>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let (ids, dialect) = (self.de.ids, self.de.dialect());
        let b = self.own.p.rest;
        scalar_at::<V, MASK>(b, &ids, dialect, visitor, |n| self.commit(n))
    }
}

/// [`Slot::cold_fallback`]'s call: the value read by the deserializer on the cursor at `rest`
/// (`left` values due); the cursor after it.
#[cold]
#[inline(never)]
fn cold_fallback<'de, S: Source, V: Visitor<'de>>(
    de: &mut Deserializer<'de, S>,
    rest: &'de [u8],
    left: u32,
    visitor: V,
    f: impl FnOnce(&mut Deserializer<'de, S>, V) -> Result<V::Value>,
) -> (Result<V::Value>, Own<'de>) {
    let mut own = Own {
        p: Plain { rest, left },
        fast: true,
    };
    let res = Slot { de, own: &mut own }.fallback(|de| f(de, visitor));
    (res, own)
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
        match word(self.own.p.rest) {
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
                let (b, at) = (self.own.p.rest, self.de.w.offset_of(&self.own.p));
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
        if let Some(rest) = skip_plain::<true>(self.own.p.rest, self.de.dialect().layouts()) {
            self.commit(self.own.p.rest.len() - rest.len());
            return visitor.visit_unit();
        }
        self.fallback(|de| de.deserialize_ignored_any(visitor))
    }

    scalar_methods!(slot_scalar);

    /// A PackedStringArray straight to the visitor; anything else as the deserializer reads it.
    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let de = &mut *self.de;
        match strings_at(de.w.reader_of(&self.own.p), &de.ids, de.dialect(), visitor) {
            Ok((Ok(v), r)) => {
                // (The cursor counted what it read.)
                self.own.p.take_to(r.rest());
                Ok(v)
            }
            Ok((Err(e), _)) => {
                // Part-way through the value: the walk cannot go on (from the value's start, where
                // the deserializer's own fast path leaves it too).
                de.w.resume(self.own.p);
                de.w.stop();
                self.own.stop();
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
