//! Packed arrays through serde: the [`Packed`] wrapper and `#[serde(with = …)]` helpers.
//!
//! serde writes a `Vec<f32>` as a sequence, which the crate's serializer writes as an Array of
//! Floats, as it must for a plain sequence. The engine's own packets hold Packed*Arrays
//! instead; these adapters write and read them as such, byte for byte:
//!
//! - [`Packed<'a, T>`](Packed) for `T` an [`Element`] (`i32`, `i64`, `f32`, `f64`,
//!   `[f32; N]` / `[f64; N]` vectors, [`Color`](crate::math::Color)): reading borrows the input
//!   when the elements are aligned on a little-endian host, and copies otherwise;
//! - [`packed`] for a `Vec<T>` field of such elements;
//! - [`strings`] for a `Vec<String>` / `Vec<&str>` field as a PackedStringArray;
//! - [`bytes`] for a `Vec<u8>` field as a PackedByteArray (serde writes `Vec<u8>` as a
//!   sequence of ints otherwise; `&[u8]` fields already read and write as bytes).
//!
//! Other serde formats see plain sequences (and bytes).
//!
//! ```
//! use gdvariant::serde_with::Packed;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Mesh<'a> {
//!     #[serde(borrow)]
//!     vertices: Packed<'a, [f32; 3]>,
//!     #[serde(with = "gdvariant::serde_with::packed")]
//!     weights: Vec<f32>,
//!     #[serde(with = "gdvariant::serde_with::strings")]
//!     bones: Vec<String>,
//! }
//!
//! let mesh = Mesh {
//!     vertices: Packed::from(vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]),
//!     weights: vec![0.5, 1.0],
//!     bones: vec!["hip".into(), "knee".into()],
//! };
//! let bytes = gdvariant::to_vec(&mesh)?;
//! let v = gdvariant::parse(&bytes)?;
//! let d = v.as_dictionary()?;
//! assert_eq!(d.get("vertices")?.unwrap().ty(), gdvariant::VariantType::PackedVector3Array);
//! assert_eq!(d.get("weights")?.unwrap().ty(), gdvariant::VariantType::PackedFloat32Array);
//! assert_eq!(d.get("bones")?.unwrap().ty(), gdvariant::VariantType::PackedStringArray);
//!
//! let back: Mesh<'_> = gdvariant::from_slice(&bytes)?;
//! assert_eq!(back.vertices[1], [3.0, 4.0, 5.0]);
//! assert_eq!(back.weights, [0.5, 1.0]);
//! assert_eq!(back.bones, ["hip", "knee"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use zerocopy::FromBytes;

use crate::packed::Element;
use crate::serde_impl::packed_name;
use crate::types::VariantType;

/// The packed type an element type is written as, and whether it is the f64 vector form.
fn packed_type<T: Element>() -> (VariantType, bool) {
    use VariantType as V;
    const TYPES: [V; 8] = [
        V::PackedInt32Array,
        V::PackedInt64Array,
        V::PackedFloat32Array,
        V::PackedFloat64Array,
        V::PackedVector2Array,
        V::PackedVector3Array,
        V::PackedColorArray,
        V::PackedVector4Array,
    ];
    for ty in TYPES {
        if T::matches(ty, false) {
            return (ty, false);
        }
        if T::matches(ty, true) {
            return (ty, true);
        }
    }
    // Every sealed element type matches one of them.
    (V::PackedByteArray, false)
}

/// A packed array's elements, borrowed from the input when possible: the serde form of a
/// Packed*Array. See [the module](self).
///
/// It dereferences to `[T]`. Reading accepts the packed type of `T` (borrowed when aligned
/// on a little-endian host), and any other sequence of numbers (an Array, another packed
/// type), converted element by element. Writing gives the packed type of `T`, vectors in the
/// writer's precision.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Packed<'a, T: Element>(pub Cow<'a, [T]>);

impl<T: Element> Packed<'_, T> {
    /// Whether the elements point into the input (no copy was made).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Cow::Borrowed(_))
    }

    /// The elements, owned.
    pub fn into_vec(self) -> Vec<T> {
        self.0.into_owned()
    }
}

impl<T: Element> Deref for Packed<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: Element> From<Vec<T>> for Packed<'static, T> {
    fn from(v: Vec<T>) -> Self {
        Packed(Cow::Owned(v))
    }
}

impl<'a, T: Element> From<&'a [T]> for Packed<'a, T> {
    fn from(v: &'a [T]) -> Self {
        Packed(Cow::Borrowed(v))
    }
}

/// The elements as a sequence (for every format; the crate's serializer reads it in the
/// magic newtype as the packed type's elements).
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

fn serialize_elements<S: Serializer, T: Element + Serialize>(
    items: &[T],
    s: S,
) -> Result<S::Ok, S::Error> {
    let (ty, wide) = packed_type::<T>();
    s.serialize_newtype_struct(packed_name(ty, wide), &Elements(items))
}

impl<T: Element + Serialize> Serialize for Packed<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_elements(&self.0, s)
    }
}

/// Reads the elements: borrowed bytes of the packed type, or any sequence.
struct PackedVisitor<T>(PhantomData<T>);

impl<'de, T: Element + Deserialize<'de>> Visitor<'de> for PackedVisitor<T> {
    type Value = Cow<'de, [T]>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a packed array of {}", T::NAME)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, b: &'de [u8]) -> Result<Self::Value, E> {
        if cfg!(target_endian = "little") {
            if let Ok(s) = <[T]>::ref_from_bytes(b) {
                return Ok(Cow::Borrowed(s));
            }
        }
        self.visit_bytes(b)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Self::Value, E> {
        let le = <[T::Le]>::ref_from_bytes(b)
            .map_err(|_| E::invalid_length(b.len(), &"whole elements"))?;
        Ok(Cow::Owned(le.iter().map(T::from_le).collect()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The deserializer's size hint is bounded by its input (serde's cautious hint for
        // other formats).
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(x) = seq.next_element::<T>()? {
            out.push(x);
        }
        Ok(Cow::Owned(out))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

fn deserialize_elements<'de, D: Deserializer<'de>, T: Element + Deserialize<'de>>(
    d: D,
) -> Result<Cow<'de, [T]>, D::Error> {
    let (ty, wide) = packed_type::<T>();
    d.deserialize_newtype_struct(packed_name(ty, wide), PackedVisitor(PhantomData))
}

impl<'de: 'a, 'a, T: Element + Deserialize<'de>> Deserialize<'de> for Packed<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_elements(d).map(Packed)
    }
}

/// `#[serde(with = "gdvariant::serde_with::packed")]` on a `Vec<T>` of [`Element`]s: written
/// as the packed type of `T`; read from it (or any sequence of numbers).
pub mod packed {
    use super::*;

    /// Writes `items` as the packed type of `T`.
    pub fn serialize<S: Serializer, T: Element + Serialize>(
        items: &[T],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        serialize_elements(items, s)
    }

    /// Reads a `Vec<T>` from the packed type of `T` or any sequence.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Element + Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        deserialize_elements(d).map(Cow::into_owned)
    }
}

/// `#[serde(with = "gdvariant::serde_with::strings")]` on a `Vec<String>` or `Vec<&str>`:
/// written as a PackedStringArray; read from one or from an Array of Strings (borrowed
/// when the target is `&str`).
pub mod strings {
    use super::*;

    /// Writes `items` as a PackedStringArray.
    pub fn serialize<S: Serializer, X: AsRef<str>>(items: &[X], s: S) -> Result<S::Ok, S::Error> {
        struct Strs<'a, X>(&'a [X]);
        impl<X: AsRef<str>> Serialize for Strs<'_, X> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for x in self.0 {
                    seq.serialize_element(x.as_ref())?;
                }
                seq.end()
            }
        }
        s.serialize_newtype_struct(
            packed_name(VariantType::PackedStringArray, false),
            &Strs(items),
        )
    }

    /// Reads the strings of a PackedStringArray or an Array of Strings.
    pub fn deserialize<'de, D: Deserializer<'de>, X: Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<X>, D::Error> {
        Vec::deserialize(d)
    }
}

/// `#[serde(with = "gdvariant::serde_with::bytes")]` on a `Vec<u8>`: written as a
/// PackedByteArray (serde bytes); read from one (from other formats: bytes or a sequence).
pub mod bytes {
    use super::*;

    /// Writes `b` as a PackedByteArray.
    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(b)
    }

    /// Reads a PackedByteArray (from other formats: bytes or a sequence of bytes).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Vec<u8>, E> {
                Ok(b.to_vec())
            }
            fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(b)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(out)
            }
        }
        d.deserialize_bytes(V)
    }
}
