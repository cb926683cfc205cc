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
//! The deserializer runs on the crate's one pull-event [`Walker`]: every
//! bound, string, type id, the depth limit and the object policy are checked as it goes, in one
//! pass, without allocating for the values it reads. Errors say where, with the field path and
//! the byte offset: `entities[2].pos: invalid type: string "x", expected Vector3 at offset 412`.
//! serde's own nesting limit (128, as serde_json) applies on top of the engine's 1024.
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Entity<'a> {
//!     id: i64,
//!     name: &'a str,
//!     pos: gdvariant::Vector3,
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
//! assert_eq!(state.entities[3].pos, gdvariant::Vector3::new(3.0, 1.5, -3.0));
//! # Ok::<(), gdvariant::de::Error>(())
//! ```

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::object::ObjectRef;
use crate::serde_impl::Magic;
use crate::types::{ReadOptions, VariantType};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// The deserialization error: what went wrong, where in the data (the field path), and at
/// which byte offset.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    msg: String,
    /// The format error behind the message, if it is one.
    format: Option<crate::Error>,
    offset: Option<usize>,
    /// Path segments, innermost first.
    path: Vec<Segment>,
}

#[derive(Clone, PartialEq, Eq)]
enum Segment {
    Index(usize),
    Key(String),
}

impl Error {
    fn new(msg: String) -> Error {
        Error {
            inner: Box::new(Inner {
                msg,
                format: None,
                offset: None,
                path: Vec::new(),
            }),
        }
    }

    /// The byte offset in the input of the value the error is about, when known.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }

    /// The format error (malformed input, limits) behind this error, if it is one.
    pub fn format_error(&self) -> Option<crate::Error> {
        self.inner.format
    }

    /// The path of the field the error is about, as `entities[9999].pos` (empty at the top).
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.inner.path.iter().rev() {
            match seg {
                Segment::Index(i) => out.push_str(&alloc::format!("[{i}]")),
                Segment::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
            }
        }
        out
    }

    /// The message without the path and offset.
    pub fn message(&self) -> &str {
        &self.inner.msg
    }

    #[cold]
    fn at(mut self, offset: usize) -> Error {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    #[cold]
    fn in_index(mut self, i: usize) -> Error {
        self.inner.path.push(Segment::Index(i));
        self
    }

    #[cold]
    fn in_key(mut self, k: &str) -> Error {
        self.inner.path.push(Segment::Key(k.to_owned()));
        self
    }
}

impl From<crate::Error> for Error {
    #[cold]
    fn from(e: crate::Error) -> Error {
        let mut err = Error::new(e.kind().to_string()).at(e.offset());
        err.inner.format = Some(e);
        err
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if !path.is_empty() {
            write!(f, "{path}: ")?;
        }
        f.write_str(&self.inner.msg)?;
        if let Some(off) = self.inner.offset {
            write!(f, " at offset {off}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::new(msg.to_string())
    }
}

impl core::error::Error for Error {}

/// A specialized `Result` for deserialization.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// serde's nesting limit, on top of the engine's depth limit (as serde_json's 128).
const RECURSION_LIMIT: u32 = 128;

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
    T::deserialize(&mut Deserializer::new(Walker::new(bytes, opts)))
}

/// Reads a `T` from a value already found with the lazy API (a dictionary entry, an array
/// element, …), with its options. Offsets in errors are those of the whole input.
pub fn from_variant_ref<'de, T: de::Deserialize<'de>>(v: VariantRef<'de>) -> Result<T> {
    T::deserialize(&mut Deserializer::new(Walker::from_value(v)))
}

/// The serde `Deserializer` over a [`Walker`].
pub struct Deserializer<'de> {
    w: Walker<'de>,
    /// An event read ahead (to tell `None` from `Some`).
    peeked: Option<Event<'de>>,
    remaining_depth: u32,
}

impl<'de> Deserializer<'de> {
    /// A deserializer reading the walker's value.
    pub fn new(w: Walker<'de>) -> Deserializer<'de> {
        Deserializer {
            w,
            peeked: None,
            remaining_depth: RECURSION_LIMIT,
        }
    }

    #[inline]
    fn next(&mut self) -> Result<Event<'de>> {
        if let Some(e) = self.peeked.take() {
            return Ok(e);
        }
        match self.w.next_event_inline()? {
            Some(e) => Ok(e),
            None => Err(Error::new("no value left to read".into()).at(self.w.offset())),
        }
    }

    #[inline]
    fn peek(&mut self) -> Result<&Event<'de>> {
        if self.peeked.is_none() {
            let e = self.next()?;
            self.peeked = Some(e);
        }
        match &self.peeked {
            Some(e) => Ok(e),
            None => Err(Error::new("no value left to read".into())),
        }
    }

    /// The next value, which must be a value (not a container).
    fn enter(&mut self) -> Result<()> {
        if self.remaining_depth == 0 {
            return Err(Error::new(alloc::format!(
                "recursion limit of {RECURSION_LIMIT} exceeded"
            ))
            .at(self.w.offset()));
        }
        self.remaining_depth -= 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.remaining_depth += 1;
    }

    /// Reads the elements of the container that just began (at `offset`) with `visitor`,
    /// checking that it read them all.
    fn container<V: Visitor<'de>>(
        &mut self,
        begin: VariantRef<'de>,
        visitor: V,
    ) -> Result<V::Value> {
        self.enter()?;
        let offset = begin.offset();
        let len = begin.count();
        let res = match begin.ty() {
            VariantType::Array => visitor.visit_seq(Seq {
                de: self,
                len,
                index: 0,
            }),
            _ => visitor.visit_map(Map {
                de: self,
                len,
                index: 0,
                key: KeyAt::None,
                object: begin.ty() == VariantType::Object,
            }),
        };
        self.leave();
        let value = res.map_err(|e| e.at(offset))?;
        // Everything the visitor left unread is an error, as a length mismatch.
        match self.next()? {
            Event::End => Ok(value),
            _ => Err(de::Error::invalid_length(len, &"fewer elements"))
                .map_err(|e: Error| e.at(offset)),
        }
    }

    /// Presents a value that is not a container through `visitor`, as `deserialize_any` does.
    fn value<V: Visitor<'de>>(&mut self, v: VariantRef<'de>, visitor: V) -> Result<V::Value> {
        use VariantType as T;
        let offset = v.offset();
        let res = match v.ty() {
            T::Nil | T::Callable => visitor.visit_unit(),
            T::Bool => visitor.visit_bool(v.as_bool()?),
            T::Int => visitor.visit_i64(v.as_i64()?),
            T::Float => visitor.visit_f64(v.as_f64()?),
            T::String | T::StringName => match v.as_str() {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(e) => return Err(e.into()),
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
            T::Array | T::Dictionary => unreachable_container(offset)?,
            _ => crate::serde_impl::math::visit_elements(v, visitor),
        };
        res.map_err(|e| e.at(offset))
    }
}

impl<'de> Deserializer<'de> {
    /// The next value whole, as a sized view (a container is walked and checked without
    /// events).
    fn take_value(&mut self) -> Result<VariantRef<'de>> {
        match self.peeked.take() {
            Some(Event::Value(v)) => Ok(v),
            Some(Event::Begin(v)) => {
                self.w.skip_container()?;
                let len = self.w.offset() - v.offset();
                Ok(v.sized_to(len))
            }
            Some(_) => Err(Error::new("expected a value".into()).at(self.w.offset())),
            None => match self.w.next_value()? {
                Some(v) => Ok(v),
                None => Err(Error::new("no value left to read".into()).at(self.w.offset())),
            },
        }
    }

    /// Hands the next value over whole, borrowed, to the visitor of a
    /// [`VariantRef`](crate::VariantRef) or [`Variant`](crate::Variant) (see
    /// `serde_impl::variant`): as a sequence of its bytes, its offset, its options and depth.
    fn raw<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let v = self.take_value()?;
        let offset = v.offset();
        visitor
            .visit_seq(crate::serde_impl::variant::Handoff::new(v))
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
        match self.peek()? {
            Event::Value(v) if v.ty() == ty && v.is_wide() == wide => {
                let v = self.take_value()?;
                let offset = v.offset();
                // Header and count, then the elements (4-byte multiples: no padding).
                let elements = v.raw()?.get(8..).unwrap_or(&[]);
                visitor
                    .visit_borrowed_bytes(elements)
                    .map_err(|e: Error| e.at(offset))
            }
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }
}

/// An error from the visitor of a hand-off: a `Variant`'s `to_owned` failing (text only Godot 3
/// accepts) reaches serde as a plain message; the structured error, with its exact offset, is
/// recovered here by converting again (on the error path only).
#[cold]
fn handoff_error(e: Error, v: VariantRef<'_>, offset: usize) -> Error {
    if e.format_error().is_none() && e.offset().is_none() {
        if let Err(fe) = v.to_owned() {
            return fe.into();
        }
    }
    e.at(offset)
}

#[cold]
fn unreachable_container<T>(offset: usize) -> Result<T> {
    Err(Error::new("container read as a value".into()).at(offset))
}

/// The `deserialize_*` methods for a scalar: a container, a math type or a packed array
/// (other than a PackedByteArray) where a scalar is expected is an invalid type named as the
/// engine's type (`invalid type: Vector3, expected a string`), not as the sequence that
/// `deserialize_any` would present.
macro_rules! scalar {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.next()? {
                Event::Value(v) if !is_sequence_like(v.ty()) => self.value(v, visitor),
                Event::Value(v) | Event::Begin(v) => Err(de::Error::invalid_type(
                    de::Unexpected::Other(v.ty().name()),
                    &visitor,
                ))
                .map_err(|e: Error| e.at(v.offset())),
                Event::Property(_) | Event::End => {
                    Err(Error::new("expected a value".into()).at(self.w.offset()))
                }
            }
        }
    )*};
}
/// Types that `deserialize_any` presents as a sequence (math types, packed arrays other than
/// bytes) or a map.
fn is_sequence_like(ty: VariantType) -> bool {
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

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.next()? {
            Event::Value(v) => self.value(v, visitor),
            Event::Begin(v) => self.container(v, visitor),
            Event::Property(_) | Event::End => {
                Err(Error::new("expected a value".into()).at(self.w.offset()))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek()? {
            Event::Value(v) if v.is_nil() => {
                self.peeked = None;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

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
            Some(Magic::Math(ty, _)) => match self.peek()? {
                Event::Value(v) if v.ty() == ty => {
                    let v = *v;
                    self.peeked = None;
                    self.value(v, visitor)
                }
                _ => visitor.visit_newtype_struct(self),
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
        match self.next()? {
            // A unit variant, by its name.
            Event::Value(v) if matches!(v.ty(), VariantType::String | VariantType::StringName) => {
                let offset = v.offset();
                let name = v.as_str()?;
                visitor
                    .visit_enum(name.into_deserializer())
                    .map_err(|e: Error| e.at(offset))
            }
            // `{name: value}`.
            Event::Begin(v) if v.ty() == VariantType::Dictionary && v.count() == 1 => {
                let offset = v.offset();
                self.enter()?;
                let res = visitor.visit_enum(Enum { de: self });
                self.leave();
                let value = res.map_err(|e| e.at(offset))?;
                match self.next()? {
                    Event::End => Ok(value),
                    _ => Err(Error::new("an enum holds one variant".into()).at(offset)),
                }
            }
            Event::Value(v) | Event::Begin(v) => Err(Error::new(alloc::format!(
                "expected an enum (a variant name, or a Dictionary of one entry), found {}",
                v.ty().name()
            ))
            .at(v.offset())),
            _ => Err(Error::new("expected a value".into()).at(self.w.offset())),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Skipped whole (and checked), without events.
        match self.peeked.take() {
            Some(Event::Begin(_)) => self.w.skip_container()?,
            Some(_) => {}
            None => drop(self.w.next_value()?),
        }
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        seq tuple tuple_struct map struct
    }

    scalar! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
    }

    /// A field or variant name: a String or StringName key handed over as its bytes (the walk
    /// has checked its text already, and serde's derived identifier visitors match bytes as
    /// they match strings: one UTF-8 pass saved per field). Other values as
    /// `deserialize_any`.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.next()? {
            Event::Value(v) if matches!(v.ty(), VariantType::String | VariantType::StringName) => {
                let offset = v.offset();
                visitor
                    .visit_borrowed_bytes(v.text_bytes()?)
                    .map_err(|e: Error| e.at(offset))
            }
            Event::Value(v) => self.value(v, visitor),
            Event::Begin(v) => self.container(v, visitor),
            Event::Property(_) | Event::End => {
                Err(Error::new("expected a value".into()).at(self.w.offset()))
            }
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

/// The elements of an Array.
struct Seq<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    len: usize,
    index: usize,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
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
struct Map<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    len: usize,
    index: usize,
    /// The last key, for error paths (its text is read only on an error).
    key: KeyAt<'de>,
    object: bool,
}

/// Where the current entry's key is, for an error's path.
#[derive(Clone, Copy)]
enum KeyAt<'de> {
    None,
    Name(&'de str),
    Value(VariantRef<'de>),
}

impl KeyAt<'_> {
    #[cold]
    fn path(self, e: Error, index: usize) -> Error {
        let text = match self {
            KeyAt::Name(n) => Some(n),
            KeyAt::Value(v) if matches!(v.ty(), VariantType::String | VariantType::StringName) => {
                v.as_str().ok()
            }
            _ => None,
        };
        match text {
            Some(k) => e.in_key(k),
            None => e.in_index(index),
        }
    }
}

impl<'de> de::MapAccess<'de> for Map<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.index == self.len {
            return Ok(None);
        }
        self.index += 1;
        if self.object {
            // A property name.
            let offset = self.de.w.offset();
            let name = match self.de.next()? {
                Event::Property(t) => t
                    .as_str()
                    .ok_or_else(|| crate::Error::new(crate::ErrorKind::NotRustUtf8, offset))?,
                _ => return Err(Error::new("expected a property name".into()).at(offset)),
            };
            self.key = KeyAt::Name(name);
            return seed
                .deserialize(de::value::BorrowedStrDeserializer::new(name))
                .map(Some);
        }
        self.key = match self.de.peek()? {
            Event::Value(v) => KeyAt::Value(*v),
            _ => KeyAt::None,
        };
        let i = self.index - 1;
        let key = self.key;
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(|e| key.path(e, i))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let i = self.index - 1;
        let key = core::mem::replace(&mut self.key, KeyAt::None);
        seed.deserialize(&mut *self.de).map_err(|e| key.path(e, i))
    }

    fn size_hint(&self) -> Option<usize> {
        // Entries take 8 bytes at least (a key and a value).
        Some((self.len - self.index).min(self.de.w.bytes_left() / 8))
    }
}

/// An externally tagged enum: `{name: value}`.
struct Enum<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for Enum<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(&mut *self.de)?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Enum<'_, 'de> {
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
