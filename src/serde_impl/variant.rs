//! serde for [`Variant`] (self-describing) and [`VariantRef`] (a borrowed raw sub-tree, as
//! serde_json's `&RawValue`), and the hand-off that carries a value whole between the crate's
//! deserializer and these impls.
//!
//! **The hand-off.** Both impls ask for the magic newtype [`RAW`]. The crate's deserializer
//! answers with a sequence `(options, depth, offset, bytes)`: the value's options (dialect,
//! object policy, depth limit) and nesting depth, its absolute offset in the input and its
//! exact bytes, borrowed. From it a `VariantRef` is rebuilt in O(1) and a `Variant` by
//! [`VariantRef::to_owned`], so a `Variant` read through serde is exactly the one
//! `parse(..)?.to_owned()` gives. Every other format answers the newtype with the plain value,
//! which a `Variant` reads with `deserialize_any` (a `VariantRef` needs borrowed bytes).
//!
//! **Writing.** A `Variant` writes every type through serde's data model where one fits (Nil as
//! unit, ints, floats, strings, untyped Arrays and Dictionaries, math types and packed arrays
//! through their magic names, StringName / RID / object id, full objects and typed containers
//! through theirs); the crate's serializer turns each back into the very bytes `encode` writes.
//! The types without a serde form (NodePath, Callable, Signal, the null object, raw values)
//! travel encoded, as the same `(options, depth, offset, bytes)` tuple under [`RAW`]: the crate's
//! serializer writes them as they are (or re-encodes them for another dialect or precision);
//! other formats see the tuple.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{
    options_word, packed_name, word_options, OBJECT, OBJECT_ID, RAW, RID, STRING_NAME, TYPED,
};
use crate::encode::{encode_with, EncodeOptions};
use crate::head::head;
use crate::owned::{Array, Dictionary, Object, TypeInfo, Variant};
use crate::reader::Reader;
use crate::types::{Dialect, ReadOptions, VariantType};
use crate::value::VariantRef;

/// Rebuilds the value of a hand-off (or of the tuple another format kept): O(1), the head
/// checked, the body read lazily as any `VariantRef`'s.
fn from_handoff<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<VariantRef<'de>, A::Error> {
    let missing = || de::Error::invalid_length(0, &"(options, depth, offset, bytes)");
    let word: u64 = seq.next_element()?.ok_or_else(missing)?;
    let depth: u64 = seq.next_element()?.ok_or_else(missing)?;
    let offset: u64 = seq.next_element()?.ok_or_else(missing)?;
    let bytes: &'de [u8] = seq.next_element()?.ok_or_else(missing)?;
    let (opts, _) = word_options(word);
    let depth = u32::try_from(depth).map_err(|_| de::Error::custom("depth out of range"))?;
    let offset = usize::try_from(offset).map_err(|_| de::Error::custom("offset out of range"))?;
    let mut r = Reader::new(bytes, offset);
    let h = head(&mut r, depth, &opts, true).map_err(de::Error::custom)?;
    Ok(VariantRef::new(h, depth, opts).sized_to(bytes.len()))
}

// ----- VariantRef -----

impl<'de: 'a, 'a> Deserialize<'de> for VariantRef<'a> {
    /// A borrowed raw sub-tree: from the crate's deserializer, the value at that place, in
    /// O(1) after the walk checked it; from another format, the bytes of a Godot 4 value.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(RAW, RefVisitor)
    }
}

struct RefVisitor;

impl<'de> Visitor<'de> for RefVisitor {
    type Value = VariantRef<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Godot value (borrowed from gdvariant's deserializer, or Godot 4 bytes)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        from_handoff(seq)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, b: &'de [u8]) -> Result<Self::Value, E> {
        crate::read::parse_prefix_with(b, &ReadOptions::new())
            .map(|(v, _)| v)
            .map_err(E::custom)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_bytes(self)
    }
}

impl Serialize for VariantRef<'_> {
    /// The exact bytes (pass-through): the crate's serializer writes them unchanged (they must
    /// be of its dialect); other formats see the tuple `(options, depth, offset, bytes)`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes = self.raw().map_err(ser::Error::custom)?;
        s.serialize_newtype_struct(
            RAW,
            &RawTuple {
                word: options_word(&self.options(), false),
                bytes,
            },
        )
    }
}

/// The encoded form of a value, as a tuple.
struct RawTuple<'a> {
    word: u64,
    bytes: &'a [u8],
}

impl Serialize for RawTuple<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(4)?;
        t.serialize_element(&self.word)?;
        t.serialize_element(&0u64)?;
        t.serialize_element(&0u64)?;
        t.serialize_element(&Bytes(self.bytes))?;
        t.end()
    }
}

/// Bytes serialized as bytes (not as a sequence of `u8`).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

// ----- Variant: Serialize -----

/// The elements of a packed array as a sequence.
struct Elements<'a, T>(&'a [T]);

impl<T: Serialize> Serialize for Elements<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for x in self.0 {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

fn packed<S: Serializer, T: Serialize>(
    s: S,
    ty: VariantType,
    items: &[T],
) -> Result<S::Ok, S::Error> {
    s.serialize_newtype_struct(packed_name(ty, false), &Elements(items))
}

impl Serialize for Variant {
    /// Every type through serde's data model where one fits, so that the crate's serializer
    /// writes exactly what [`encode()`](crate::encode()) writes and other formats see plain
    /// data: Nil as unit, ints, floats, strings, untyped Arrays as sequences and Dictionaries
    /// as maps, math types as their components, packed arrays as sequences (PackedByteArray as
    /// bytes), StringName as a string, RID and object ids as `u64`, full objects as
    /// `(class, {property: value})`, typed containers as `(types, elements)` (each declared
    /// type a `(kind, type id, name)` triple). NodePath, Callable, Signal, the null object and
    /// raw values have no serde form: they travel as their Godot 4 encoding, a tuple
    /// `(options, depth, offset, bytes)` that the crate's serializer writes back natively.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use Variant as V;
        use VariantType as T;
        match self {
            V::Nil => s.serialize_unit(),
            V::Bool(b) => s.serialize_bool(*b),
            V::Int(i) => s.serialize_i64(*i),
            V::Float(f) => s.serialize_f64(*f),
            V::String(x) => s.serialize_str(x),
            V::StringName(x) => s.serialize_newtype_struct(STRING_NAME, x.as_str()),
            V::Rid(id) => s.serialize_newtype_struct(RID, id),
            V::Object(o) if matches!(**o, Object::Id(_)) => match **o {
                Object::Id(id) => s.serialize_newtype_struct(OBJECT_ID, &id),
                _ => encoded(self, s),
            },
            V::Object(o) => match &**o {
                Object::Full { class, properties } if !class.is_empty() => {
                    s.serialize_newtype_struct(OBJECT, &ObjectForm { class, properties })
                }
                // The null object: encoded (below).
                _ => encoded(self, s),
            },
            V::Vector2(x) => x.serialize(s),
            V::Vector2i(x) => x.serialize(s),
            V::Rect2(x) => x.serialize(s),
            V::Rect2i(x) => x.serialize(s),
            V::Vector3(x) => x.serialize(s),
            V::Vector3i(x) => x.serialize(s),
            V::Transform2D(x) => x.serialize(s),
            V::Vector4(x) => x.serialize(s),
            V::Vector4i(x) => x.serialize(s),
            V::Plane(x) => x.serialize(s),
            V::Quaternion(x) => x.serialize(s),
            V::Aabb(x) => x.serialize(s),
            V::Basis(x) => x.serialize(s),
            V::Transform3D(x) => x.serialize(s),
            V::Projection(x) => x.serialize(s),
            V::Color(x) => x.serialize(s),
            V::Array(a) if *a.element_type() == TypeInfo::None => {
                let mut seq = s.serialize_seq(Some(a.items.len()))?;
                for x in &a.items {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            V::Dictionary(d)
                if *d.key_type() == TypeInfo::None && *d.value_type() == TypeInfo::None =>
            {
                let mut map = s.serialize_map(Some(d.entries.len()))?;
                for (k, v) in &d.entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            V::Array(a) => s.serialize_newtype_struct(
                TYPED,
                &((TypeForm(a.element_type()),), Elements(a.items.as_slice())),
            ),
            V::Dictionary(d) => s.serialize_newtype_struct(
                TYPED,
                &(
                    (TypeForm(d.key_type()), TypeForm(d.value_type())),
                    Entries(d.entries.as_slice()),
                ),
            ),
            V::PackedByteArray(b) => s.serialize_bytes(b),
            V::PackedInt32Array(a) => packed(s, T::PackedInt32Array, a),
            V::PackedInt64Array(a) => packed(s, T::PackedInt64Array, a),
            V::PackedFloat32Array(a) => packed(s, T::PackedFloat32Array, a),
            V::PackedFloat64Array(a) => packed(s, T::PackedFloat64Array, a),
            V::PackedStringArray(a) => packed(s, T::PackedStringArray, a),
            V::PackedVector2Array(a) => packed(s, T::PackedVector2Array, a),
            V::PackedVector3Array(a) => packed(s, T::PackedVector3Array, a),
            V::PackedColorArray(a) => packed(s, T::PackedColorArray, a),
            V::PackedVector4Array(a) => packed(s, T::PackedVector4Array, a),
            V::Raw(r) => {
                let opts = ReadOptions::new()
                    .with_dialect(r.dialect())
                    .with_full_objects(true);
                s.serialize_newtype_struct(
                    RAW,
                    &RawTuple {
                        word: options_word(&opts, false),
                        bytes: r.as_bytes(),
                    },
                )
            }
            // NodePath, Callable, Signal, the null object: encoded.
            other => encoded(other, s),
        }
    }
}

/// A value without a serde form, encoded (Godot 4, double precision, full objects): the rare
/// case that allocates.
fn encoded<S: Serializer>(v: &Variant, s: S) -> Result<S::Ok, S::Error> {
    let eopts = EncodeOptions::new()
        .with_double_precision(true)
        .with_full_objects(true)
        .with_max_depth(crate::types::MAX_DEPTH_LIMIT);
    let bytes = encode_with(v, &eopts).map_err(ser::Error::custom)?;
    let opts = ReadOptions::new()
        .with_double_precision(true)
        .with_full_objects(true)
        .with_max_depth(crate::types::MAX_DEPTH_LIMIT);
    s.serialize_newtype_struct(
        RAW,
        &RawTuple {
            word: options_word(&opts, true),
            bytes: &bytes,
        },
    )
}

/// A container's declared type as `(kind, Godot 4 type id, name)`: kind 0 untyped, 1 builtin
/// (the id), 2 a native class (the name), 3 a script (its path).
pub(crate) struct TypeForm<'a>(pub(crate) &'a TypeInfo);

impl Serialize for TypeForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (kind, id, name): (u8, u32, &str) = match self.0 {
            TypeInfo::None => (0, 0, ""),
            TypeInfo::Builtin(t) => (1, Dialect::Godot4.id_of(*t).unwrap_or(0), ""),
            TypeInfo::ClassName(c) => (2, 0, c),
            TypeInfo::Script(p) => (3, 0, p),
        };
        (kind, id, name).serialize(s)
    }
}

/// A Dictionary's entries as a map.
struct Entries<'a>(&'a [(Variant, Variant)]);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A full object as `(class, {property: value})`.
struct ObjectForm<'a> {
    class: &'a str,
    properties: &'a [(String, Variant)],
}

impl Serialize for ObjectForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Props<'a>(&'a [(String, Variant)]);
        impl Serialize for Props<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    map.serialize_entry(k.as_str(), v)?;
                }
                map.end()
            }
        }
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(self.class)?;
        t.serialize_element(&Props(self.properties))?;
        t.end()
    }
}

// ----- Variant: Deserialize -----

impl<'de> Deserialize<'de> for Variant {
    /// From the crate's deserializer: exactly `to_owned` of the value there (every type, both
    /// dialects). From another format: `deserialize_any` (unit → Nil, bool, ints, floats,
    /// strings, bytes → PackedByteArray, sequences → Array, maps → Dictionary).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(RAW, VariantVisitor)
    }
}

/// The visitor of the magic newtype: the hand-off, or (other formats) the plain value.
struct VariantVisitor;

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Godot value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Variant, A::Error> {
        // As `from_handoff`, but the bytes may also be lent for the visit only (a value the
        // deserializer encoded afresh, see `serde_impl::owned`): the Variant is made then.
        let missing = || de::Error::invalid_length(0, &"(options, depth, offset, bytes)");
        let word: u64 = seq.next_element()?.ok_or_else(missing)?;
        let depth: u64 = seq.next_element()?.ok_or_else(missing)?;
        let offset: u64 = seq.next_element()?.ok_or_else(missing)?;
        let (opts, _) = word_options(word);
        let depth = u32::try_from(depth).map_err(|_| de::Error::custom("depth out of range"))?;
        let offset =
            usize::try_from(offset).map_err(|_| de::Error::custom("offset out of range"))?;
        seq.next_element_seed(OwnedBytes {
            opts,
            depth,
            offset,
        })?
        .ok_or_else(missing)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

/// The bytes of a hand-off, borrowed or transient, made into the `Variant` they hold.
struct OwnedBytes {
    opts: ReadOptions,
    depth: u32,
    offset: usize,
}

impl<'de> DeserializeSeed<'de> for OwnedBytes {
    type Value = Variant;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        d.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for OwnedBytes {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a Godot value")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Variant, E> {
        let mut r = Reader::new(bytes, self.offset);
        let h = head(&mut r, self.depth, &self.opts, true).map_err(de::Error::custom)?;
        VariantRef::new(h, self.depth, self.opts)
            .sized_to(bytes.len())
            .to_owned()
            .map_err(de::Error::custom)
    }
}

/// A `Variant` from any self-describing format.
struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }
    fn visit_none<E: de::Error>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        Variant::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        Variant::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Variant, E> {
        Ok(Variant::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Variant, E> {
        Ok(Variant::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Variant, E> {
        i64::try_from(v)
            .map(Variant::Int)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &"an int up to i64::MAX"))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Variant, E> {
        i64::try_from(v)
            .map(Variant::Int)
            .map_err(|_| E::custom("an int outside Godot's 64-bit range"))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Variant, E> {
        i64::try_from(v)
            .map(Variant::Int)
            .map_err(|_| E::custom("an int outside Godot's 64-bit range"))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Variant, E> {
        Ok(Variant::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Variant, E> {
        Ok(Variant::String(v.into()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Variant, E> {
        Ok(Variant::String(v.into()))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Variant, E> {
        Ok(Variant::PackedByteArray(v.into()))
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Variant, E> {
        Ok(Variant::PackedByteArray(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Variant, A::Error> {
        // serde's cautious size hint bounds the reservation.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element::<Variant>()? {
            items.push(x);
        }
        Ok(Variant::Array(Array::new(items)))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Variant, A::Error> {
        let mut d = Dictionary::new();
        while let Some((k, v)) = map.next_entry::<Variant, Variant>()? {
            d.insert(k, v);
        }
        Ok(Variant::Dictionary(d))
    }
}
