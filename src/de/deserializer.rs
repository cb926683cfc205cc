//! The [`Deserializer`] itself: its state over the walker, where its bytes come from
//! ([`Source`]), and how it reads the next value: on the fast paths, straight from the walker's
//! cursor, or as the walker's events.

// This file's #[inline(always)]s and #[cold]s, as a group: gs_serde +6 % time without them (layout-
// pinned A/B); its #[cold] error constructors alone: in_serde +1.5 % instructions.

use alloc::string::String;

use serde::de::{self, Visitor};

use super::elements::{self, math_at, strings_at};
use super::error::{Error, Result};
use super::scalar::{scalar_at, Ids, INT};
use crate::head::{head, Body};
use crate::object::ObjectRef;
use crate::reader::Reader;
use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;
use crate::walker::plain::Plain;
use crate::walker::{Event, Walker};

/// serde's nesting limit, on top of the engine's depth limit (as serde_json's 128).
pub(super) const RECURSION_LIMIT: u32 = 128;

/// The serde `Deserializer` over a [`Walker`].
pub struct Deserializer<'de, S = FromInput> {
    pub(super) w: Walker<'de>,
    pub(super) remaining_depth: u32,
    pub(super) ids: Ids,
    /// The walker's cursor when this deserializer took it: every key it reads lies after it
    /// (an error path re-reads a key's text from here).
    pub(super) input: Reader<'de>,
    /// Where the bytes come from ([`FromInput`]; the engine's value of a typed container,
    /// encoded afresh, needs no check of its elements).
    pub(super) source: core::marker::PhantomData<S>,
    /// The end of the last typed container found to read as its bytes say, at every depth
    /// (the typed containers before it are not looked at again).
    pub(super) checked_until: usize,
}

/// The bytes of a [`Deserializer`] are the input (the default).
#[doc(hidden)]
pub enum FromInput {}

/// The bytes are the engine's value of a typed container, encoded afresh.
#[doc(hidden)]
pub enum FromEngine {}

mod source {
    use super::{Deserializer, Result, Visitor};

    /// Where a deserializer's bytes come from: the input, whose typed containers are read as
    /// the engine reads them, or a value the engine holds.
    pub trait Source: Sized {
        /// Reads the next value if it is a typed container that needs the engine's reading;
        /// gives the visitor back otherwise (always, by default).
        #[inline(always)]
        fn typed<'de, V: Visitor<'de>>(
            de: &mut Deserializer<'de, Self>,
            visitor: V,
        ) -> core::result::Result<Result<V::Value>, V> {
            let _ = de;
            Err(visitor)
        }

        /// [`typed`](Source::typed) for an enum's `{name: value}` in a typed Dictionary.
        #[inline(always)]
        fn typed_enum<'de, V: Visitor<'de>>(
            de: &mut Deserializer<'de, Self>,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> core::result::Result<Result<V::Value>, V> {
            let _ = (de, name, variants);
            Err(visitor)
        }
    }
}
pub(super) use source::Source;

impl<'de> Deserializer<'de> {
    /// A deserializer reading the walker's value.
    // Inlined: the walker (its inline frame stack) is built in place, not copied.
    #[inline(always)]
    pub fn new(w: Walker<'de>) -> Deserializer<'de> {
        Deserializer::with_source(w)
    }
}

impl<'de, S: Source> Deserializer<'de, S> {
    #[inline(always)]
    pub(super) fn with_source(w: Walker<'de>) -> Deserializer<'de, S> {
        let ids = Ids::new(w.options().dialect);
        let input = w.cursor();
        Deserializer {
            w,
            remaining_depth: RECURSION_LIMIT,
            ids,
            input,
            source: core::marker::PhantomData,
            checked_until: 0,
        }
    }

    #[inline(always)]
    pub(super) fn dialect(&self) -> Dialect {
        self.w.options().dialect
    }

    /// The next event (the event path).
    #[inline]
    pub(super) fn next(&mut self) -> Result<Event<'de>> {
        match self.w.next_event_inline()? {
            Some(e) => Ok(e),
            None => Err(no_value(self.w.offset())),
        }
    }

    /// The header word of the next value, if a value is due and its header is in the input.
    #[inline(always)]
    pub(super) fn peek_header(&self) -> Option<u32> {
        self.w.value_due()?.peek_u32()
    }

    /// The type of the next value, if a value is due and its header is in the input.
    #[inline(always)]
    pub(super) fn peek_type(&self) -> Option<VariantType> {
        self.dialect().type_of(self.peek_header()? & 0xFF)
    }

    /// The walker's fast-path cursor ([`Walker::plain`]) and the input from the next value on,
    /// if a value may be read there.
    #[inline(always)]
    pub(super) fn plain_value(&self) -> Option<(Plain<'de>, &'de [u8])> {
        let p = self.w.plain()?;
        Some((p, p.bytes()?))
    }

    /// The fast path of a scalar of a type in `MASK`: `Err(visitor)` back when it declines.
    #[inline(always)]
    pub(super) fn fast_scalar<V: Visitor<'de>, const MASK: u8>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some((mut p, b)) = self.plain_value() else {
            return Err(visitor);
        };
        let (ids, dialect) = (self.ids, self.dialect());
        scalar_at::<V, MASK>(b, &ids, dialect, visitor, |n| {
            let at = self.w.offset_of(&p);
            p.take(n);
            self.w.resume(p);
            at
        })
    }

    /// The fast path of an untyped container head (an Array if `array`, a Dictionary if
    /// `dict`): opens it and returns its type, count and offset.
    #[inline(always)]
    pub(super) fn fast_open(
        &mut self,
        array: bool,
        dict: bool,
    ) -> Option<(VariantType, usize, usize)> {
        let (mut p, b) = self.plain_value()?;
        let head = b.first_chunk::<8>()?;
        // Header and count in one load.
        let word = u64::from_le_bytes(*head);
        let header = word as u32;
        // Exact headers: Godot 4 type info (bits 16+) is read by the event path.
        let (ty, body) = if array && header == self.ids.array {
            (VariantType::Array, Body::Array)
        } else if dict && header == self.ids.dictionary {
            (VariantType::Dictionary, Body::Dictionary)
        } else {
            return None;
        };
        // Bit 31 of the count is the historical "shared" flag.
        let count = (word >> 32) as u32 & 0x7FFF_FFFF;
        let at = self.w.offset_of(&p);
        p.take(8);
        self.w.resume_open(p, count, body);
        Some((ty, count as usize, at))
    }

    /// The fast path of the math type `ty` (of `n` components): its components to `visitor`.
    #[inline(always)]
    pub(super) fn fast_math<V: Visitor<'de>>(
        &mut self,
        ty: VariantType,
        n: usize,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some((mut p, b)) = self.plain_value() else {
            return Err(visitor);
        };
        let (res, size) = math_at(b, self.w.offset_of(&p), ty, n, self.w.options(), visitor)?;
        p.take(size);
        self.w.resume(p);
        Ok(res)
    }

    /// The fast path of a PackedStringArray read as a sequence: its strings handed to the
    /// visitor straight from the cursor (checked as `validate` checks them, the ones the
    /// visitor leaves too).
    #[inline]
    pub(super) fn fast_strings<V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        let Some((mut p, _)) = self.plain_value() else {
            return Err(visitor);
        };
        let (res, r) = strings_at(self.w.reader_of(&p), &self.ids, self.dialect(), visitor)?;
        match res {
            Ok(v) => {
                p.take_to(r.rest());
                self.w.resume(p);
                Ok(Ok(v))
            }
            Err(e) => {
                // Part-way through the value: the walk cannot go on.
                self.w.stop();
                Ok(Err(e))
            }
        }
    }

    // ----- the event path -----

    /// An error if an error ended the walk: a container's next element is not read after it,
    /// even when a type that swallows errors asks for it (a count read from the input would
    /// otherwise drive the loop).
    #[inline(always)]
    pub(super) fn check_going(&self) -> Result<()> {
        if self.w.is_over() {
            return Err(no_value(self.w.offset()));
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn enter(&mut self) -> Result<()> {
        if self.remaining_depth == 0 {
            return Err(self.too_deep());
        }
        self.remaining_depth -= 1;
        Ok(())
    }

    #[cold]
    fn too_deep(&mut self) -> Error {
        // The container is open and left unread: the walk cannot go on.
        self.w.stop();
        Error::new(alloc::format!(
            "recursion limit of {RECURSION_LIMIT} exceeded"
        ))
        .at(self.w.offset())
    }

    #[inline(always)]
    pub(super) fn leave(&mut self) {
        self.remaining_depth += 1;
    }

    /// Presents a value that is not a container through `visitor`, as `deserialize_any` does.
    pub(super) fn value<V: Visitor<'de>>(
        &mut self,
        v: VariantRef<'de>,
        visitor: V,
    ) -> Result<V::Value> {
        use VariantType as T;
        let offset = v.offset();
        let res = match v.ty() {
            T::Nil | T::Callable => visitor.visit_unit(),
            T::Bool => visitor.visit_bool(v.as_bool()?),
            T::Int => visitor.visit_i64(v.as_i64()?),
            T::Float => visitor.visit_f64(v.as_f64()?),
            T::String | T::StringName => match v.as_str() {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(_) => godot3_text(&v, visitor),
            },
            T::NodePath => {
                let mut s = String::new();
                let _ = v.as_node_path()?.write_text(&mut s)?;
                visitor.visit_string(s)
            }
            T::Rid => visitor.visit_u64(v.as_rid()?),
            T::Object => match v.as_object()? {
                ObjectRef::Id(id) => visitor.visit_u64(id),
                ObjectRef::Full(_) => visitor.visit_unit(),
            },
            T::Signal => {
                return Err(Error::new(
                    "a Signal has no form in serde's data model: read it as gdvariant::Variant"
                        .into(),
                )
                .at(offset))
            }
            T::PackedByteArray => visitor.visit_borrowed_bytes(v.as_byte_array()?),
            T::Array | T::Dictionary => return Err(container_as_value(offset)),
            _ => elements::visit_elements(v, visitor),
        };
        res.map_err(|e| e.value_at(v.ty(), v.dialect(), offset))
    }

    /// The next value whole, as a sized view (a container is walked and checked without
    /// events).
    pub(super) fn take_value(&mut self) -> Result<VariantRef<'de>> {
        match self.w.next_value()? {
            Some(v) => Ok(v),
            None => Err(no_value(self.w.offset())),
        }
    }

    /// The text of the String or StringName key at `at` (an error path: re-read).
    #[cold]
    pub(super) fn key_text(&self, at: usize) -> Option<&'de str> {
        let input = self.input;
        let data = input.rest().get(at.checked_sub(input.offset())?..)?;
        let opts = *self.w.options();
        let h = head(&mut Reader::new(data, at), 0, &opts, false).ok()?;
        VariantRef::new(h, 0, opts).as_str().ok()
    }
}

impl<'de, S: Source> Deserializer<'de, S> {
    /// The event path of the `deserialize_*` methods of scalars.
    /// A number target (`MASK` holds `INT`) reads numbers only: a RID or an object id, which
    /// `deserialize_any` presents as a `u64`, is a type mismatch here.
    pub(super) fn scalar_slow<V: Visitor<'de>, const MASK: u8>(
        &mut self,
        visitor: V,
    ) -> Result<V::Value> {
        match self.next()? {
            Event::Value(v)
                if MASK & INT != 0 && matches!(v.ty(), VariantType::Rid | VariantType::Object) =>
            {
                Err(de::Error::invalid_type(
                    de::Unexpected::Other(v.ty().name()),
                    &visitor,
                ))
                .map_err(|e: Error| e.value_at(v.ty(), v.dialect(), v.offset()))
            }
            Event::Value(v) if !is_sequence_like(v.ty()) => self.value(v, visitor),
            Event::Value(v) | Event::Begin(v) => {
                if v.body().is_some() {
                    // A container left open: the walk cannot go on.
                    self.w.stop();
                }
                Err(de::Error::invalid_type(
                    de::Unexpected::Other(v.ty().name()),
                    &visitor,
                ))
                .map_err(|e: Error| e.value_at(v.ty(), v.dialect(), v.offset()))
            }
            Event::Property(_) | Event::End => Err(expected_value(self.w.offset())),
        }
    }

    /// `deserialize_ignored_any` of anything but a plain value: skipped whole (and checked),
    /// without events.
    #[inline(never)]
    pub(super) fn ignored_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.w.next_value()?;
        visitor.visit_unit()
    }
}

/// Types that `deserialize_any` presents as a sequence (math types, packed arrays other than
/// bytes) or a map.
pub(super) fn is_sequence_like(ty: VariantType) -> bool {
    use VariantType as T;
    !matches!(
        ty,
        T::Nil
            | T::Bool
            | T::Int
            | T::Float
            | T::String
            | T::StringName
            | T::NodePath
            | T::Rid
            | T::Object
            | T::Callable
            | T::Signal
            | T::PackedByteArray
    )
}

/// Text only Godot 3 accepts (not UTF-8): as Godot 3 reads it.
#[cold]
#[inline(never)]
fn godot3_text<'de, V: Visitor<'de>>(v: &VariantRef<'de>, visitor: V) -> Result<V::Value> {
    visitor.visit_string(v.as_text()?.to_string_lossy().into_owned())
}

#[cold]
pub(super) fn no_value(offset: usize) -> Error {
    Error::new("no value left to read".into()).at(offset)
}

#[cold]
pub(super) fn expected_value(offset: usize) -> Error {
    Error::new("expected a value".into()).at(offset)
}

#[cold]
pub(super) fn fewer_elements(len: usize, offset: usize) -> Error {
    let e: Error = de::Error::invalid_length(len, &"fewer elements");
    e.at(offset)
}

#[cold]
pub(super) fn container_as_value(offset: usize) -> Error {
    Error::new("container read as a value".into()).at(offset)
}

/// An error from the visitor of a hand-off: a `Variant`'s `to_owned` failing (text only Godot 3
/// accepts) reaches serde as a plain message; the structured error, with its exact offset, is
/// recovered here by converting again (on the error path only).
#[cold]
pub(super) fn handoff_error(e: Error, v: VariantRef<'_>, offset: usize) -> Error {
    if e.format_error().is_none() && e.offset().is_none() {
        if let Err(fe) = v.to_owned() {
            return fe.into();
        }
    }
    e.at(offset)
}
