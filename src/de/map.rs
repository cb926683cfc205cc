//! The accesses through which a visitor reads a container: an Array's elements ([`Seq`]), a
//! Dictionary's entries or a full object's properties ([`Map`], on a cursor of its own for a
//! plain Dictionary), and an externally tagged enum ([`Enum`]).

// This file's #[inline(always)]s and #[cold]s, as a group: in_serde +27 %, gs_serde +12 % time
// without them (layout-pinned A/B); its #[cold] error constructors alone: in_serde +1.4 %
// instructions.

use core::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use super::deserializer::{Deserializer, Source};
use super::error::{Error, Result};
use super::scalar::{is_field, str_seed};
use super::slot::{Own, Slot};
use crate::reader::{counted, pad4};
use crate::walker::plain::Plain;
use crate::walker::Event;

/// The elements of an Array.
pub(super) struct Seq<'a, 'de, S> {
    pub(super) de: &'a mut Deserializer<'de, S>,
    pub(super) len: usize,
    pub(super) index: usize,
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
pub(super) struct Map<'a, 'de, S, const FIELDS: bool> {
    pub(super) de: &'a mut Deserializer<'de, S>,
    pub(super) len: usize,
    pub(super) index: usize,
    /// The current entry's key, for error paths (its text is read only on an error).
    pub(super) key: KeyAt<'de>,
    pub(super) object: bool,
    /// A struct's field names (empty for a map).
    pub(super) fields: &'static [&'static str],
    /// Where to start looking for the next key among `fields`: after the last one found (keys
    /// usually come in field order).
    pub(super) next_field: usize,
    /// The map's own cursor, in the frame of the caller, which hands it back to the walker once
    /// the visitor is done (see [`Own`]).
    pub(super) own: &'a mut Own<'de>,
}

impl<'de, S, const FIELDS: bool> Map<'_, 'de, S, FIELDS> {
    /// The walker caught up with the map's own cursor.
    #[inline(always)]
    fn sync(&mut self) {
        self.own.sync(&mut self.de.w);
    }

    /// `f` on the deserializer, the walker caught up first.
    #[inline(always)]
    fn through<T>(&mut self, f: impl FnOnce(&mut Deserializer<'de, S>) -> Result<T>) -> Result<T> {
        self.sync();
        let res = f(self.de);
        if self.own.fast {
            self.own.caught_up(&self.de.w, res.is_ok());
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
        // The slot reads on a cursor of its own, at the value, built in registers (from `b`:
        // copying the map's whole would load its slice, just stored as two halves, in one piece
        // and stall the store forwarding), and copied back: only a slot read out of line (by a
        // `Deserialize` impl not inlined here) has it in memory, not the map's for its loop.
        let mut own = Own {
            p: Plain {
                rest: b,
                left: self.own.p.left,
            },
            fast: true,
        };
        let res = seed.deserialize(Slot {
            de: &mut *self.de,
            own: &mut own,
        });
        *self.own = own;
        res
    }

    /// The input from the next key or value on, for the fast paths.
    #[inline(always)]
    fn bytes(&self) -> Option<&'de [u8]> {
        // (Nothing is left on the cursor when not `fast`.)
        self.own.p.bytes()
    }

    /// Commits a key or value read from [`bytes`](Map::bytes): `rest` is after it.
    #[inline(always)]
    fn took(&mut self, rest: &'de [u8]) {
        counted(self.own.p.rest.len() - rest.len());
        self.own.p.take_to(rest);
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
pub(super) enum KeyAt<'de> {
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
        let fields = self.fields;
        let j = self.next_field;
        // The field after the last one found, as a String key: its header, length and text
        // compared with that name's, without reading the key as any string first (its size is
        // the name's: where the next key starts does not wait for the length read here).
        if let Some(&name) = fields.get(j) {
            if let Some(after) = key_named(b, self.de.ids.string, name) {
                self.next_field = j + 1;
                self.took(after);
                return Some(name);
            }
        }
        let (h, rest) = b.split_first_chunk::<4>()?;
        let header = u32::from_le_bytes(*h);
        if header != self.de.ids.string && header != self.de.ids.string_name {
            return None;
        }
        let (raw, after) = crate::leaf::plain_string::<false>(rest)?;
        // Else every field in turn.
        let (k, name) = find_field(fields, raw)?;
        // (Past the last field: the next key is looked for from the first.)
        self.next_field = k + 1;
        self.took(after);
        Some(name)
    }
}

/// What follows the key at the start of `b` if it is the String (of header `string`) whose
/// text is `name` as the engine reads it ([`is_field`]); `None` otherwise.
// #[inline(always)]: in_serde +24 %, gs_serde +11 % instructions when it is left to the compiler.
#[inline(always)]
fn key_named<'de>(b: &'de [u8], string: u32, name: &str) -> Option<&'de [u8]> {
    let n = name.len();
    // (A length the engine reads: below 2^31.)
    let len = u32::try_from(n).ok().filter(|&l| l <= i32::MAX as u32)?;
    // Header and length in one load.
    let (head, rest) = b.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*head) != u64::from(string) | u64::from(len) << 32 {
        return None;
    }
    let (padded, after) = rest.split_at_checked(pad4(n))?;
    is_field(name.as_bytes(), padded.get(..n)?).then_some(after)
}

/// The field of `fields` named `raw`, searched from the first: a key out of field order, a
/// StringName key, or one that names no field.
// #[cold]: the map's loop then keeps its cursor in registers, not the stack: in_serde -4 % time.
#[cold]
fn find_field(fields: &'static [&'static str], raw: &[u8]) -> Option<(usize, &'static str)> {
    fields
        .iter()
        .enumerate()
        .find(|(_, name)| is_field(name.as_bytes(), raw))
        .map(|(k, &name)| (k, name))
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
                        let at = self.de.w.offset_of(&self.own.p) - (8 + pad4(name.len()));
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
        let at = if self.own.fast {
            self.de.w.offset_of(&self.own.p)
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
        let bytes = if self.own.fast {
            self.own.p.rest.len()
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

/// An externally tagged enum: `{name: value}`.
pub(super) struct Enum<'a, 'de, S> {
    pub(super) de: &'a mut Deserializer<'de, S>,
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
