//! Math types and packed arrays presented to serde visitors as sequences (of components, of
//! elements), for the deserializer.

use serde::de::{self, SeqAccess, Visitor};

use super::error::{Error, Result};
use crate::math::*;
use crate::types::VariantType;
use crate::value::VariantRef;

/// A sequence of plain values (numbers, borrowed strings) handed to a visitor.
struct Items<I>(I, usize);

impl<'de, I, X> SeqAccess<'de> for Items<I>
where
    I: Iterator<Item = Result<X>>,
    X: de::IntoDeserializer<'de, Error>,
{
    type Error = Error;

    fn next_element_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>> {
        match self.0.next() {
            Some(x) => seed.deserialize(x?.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.1)
    }
}

/// A string element read as the engine reads it: borrowed, or (Godot 3 text that is not
/// UTF-8) decoded.
struct Text<'de>(alloc::borrow::Cow<'de, str>);

impl<'de> de::IntoDeserializer<'de, Error> for Text<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Text<'de> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            alloc::borrow::Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            alloc::borrow::Cow::Owned(s) => visitor.visit_string(s),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A vector element of a packed vector or color array, as a sequence of its components.
struct Vector<const N: usize>([f64; N]);

impl<'de, const N: usize> de::IntoDeserializer<'de, Error> for Vector<N> {
    type Deserializer = de::value::SeqDeserializer<core::array::IntoIter<f64, N>, Error>;
    fn into_deserializer(self) -> Self::Deserializer {
        de::value::SeqDeserializer::new(self.0.into_iter())
    }
}

fn seq<'de, V, I, X>(visitor: V, items: I) -> Result<V::Value>
where
    V: Visitor<'de>,
    I: ExactSizeIterator<Item = X>,
    X: de::IntoDeserializer<'de, Error>,
{
    let n = items.len();
    visitor.visit_seq(Items(items.map(Ok), n))
}

fn vectors<'de, V: Visitor<'de>, const N: usize>(
    v: &VariantRef<'de>,
    visitor: V,
    real: impl Fn(f64) -> f64,
) -> Result<V::Value>
where
    [f32; N]: crate::packed::Element,
    [f64; N]: crate::packed::Element,
{
    if v.is_wide() {
        seq(
            visitor,
            v.as_packed::<[f64; N]>()?
                .iter()
                .map(|a| Vector(a.map(&real))),
        )
    } else {
        seq(
            visitor,
            v.as_packed::<[f32; N]>()?
                .iter()
                .map(|a| Vector(a.map(f64::from))),
        )
    }
}

/// Presents a math type (its components) or a packed array (its elements) to `visitor` as a
/// sequence; other types are an invalid-type error.
pub(crate) fn visit_elements<'de, V: Visitor<'de>>(
    v: VariantRef<'de>,
    visitor: V,
) -> Result<V::Value> {
    use VariantType as T;
    // 64-bit math as the engine's real_t holds it: narrowed unless double precision.
    let double = !v.is_wide() || v.options().double_precision();
    let n = move |x: f64| crate::convert::real(x, double);
    match v.ty() {
        T::Vector2 => seq(visitor, v.as_vector2()?.to_array().map(n).into_iter()),
        T::Vector2i => seq(visitor, v.as_vector2i()?.to_array().into_iter()),
        T::Rect2 => seq(visitor, v.as_rect2()?.to_array().map(n).into_iter()),
        T::Rect2i => seq(visitor, v.as_rect2i()?.to_array().into_iter()),
        T::Vector3 => seq(visitor, v.as_vector3()?.to_array().map(n).into_iter()),
        T::Vector3i => seq(visitor, v.as_vector3i()?.to_array().into_iter()),
        T::Transform2D => seq(visitor, v.as_transform2d()?.to_array().map(n).into_iter()),
        T::Vector4 => seq(visitor, v.as_vector4()?.to_array().map(n).into_iter()),
        T::Vector4i => seq(visitor, v.as_vector4i()?.to_array().into_iter()),
        T::Plane => seq(visitor, v.as_plane()?.to_array().map(n).into_iter()),
        T::Quaternion => seq(visitor, v.as_quaternion()?.to_array().map(n).into_iter()),
        T::Aabb => seq(visitor, v.as_aabb()?.to_array().map(n).into_iter()),
        T::Basis => seq(visitor, v.as_basis()?.to_array().map(n).into_iter()),
        T::Transform3D => seq(visitor, v.as_transform3d()?.to_array().map(n).into_iter()),
        T::Projection => seq(visitor, v.as_projection()?.to_array().map(n).into_iter()),
        T::Color => seq(visitor, v.as_color()?.to_array().into_iter()),
        T::PackedInt32Array => seq(visitor, v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => seq(visitor, v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => seq(visitor, v.as_packed::<f32>()?.iter()),
        T::PackedFloat64Array => seq(visitor, v.as_packed::<f64>()?.iter()),
        T::PackedStringArray => {
            let a = v.as_string_array()?;
            let count = a.len();
            let mut it = a.iter();
            let texts = core::iter::from_fn(move || {
                it.try_next()
                    .transpose()
                    .map(|t| t.map(|t| Text(t.to_string_lossy())).map_err(Error::from))
            });
            visitor.visit_seq(Items(texts, count))
        }
        T::PackedVector2Array => vectors::<V, 2>(&v, visitor, n),
        T::PackedVector3Array => vectors::<V, 3>(&v, visitor, n),
        T::PackedVector4Array => vectors::<V, 4>(&v, visitor, n),
        T::PackedColorArray => seq(
            visitor,
            v.as_packed::<Color>()?
                .iter()
                .map(|c| Vector(c.to_array().map(f64::from))),
        ),
        _ => Err(de::Error::invalid_type(
            de::Unexpected::Other(v.ty().name()),
            &visitor,
        )),
    }
}
