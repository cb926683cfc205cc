//! serde for the math types: a private magic newtype name per type (the crate's serializer
//! writes the native Godot type, other formats see a plain sequence of components). The
//! deserializer's side, math types and packed arrays presented as sequences, is `de/elements.rs`.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use serde::{Deserialize, Deserializer, Serialize};

use crate::math::*;
#[cfg(test)]
use crate::types::VariantType;

/// A component of a math type as serde sees it.
trait Component: Copy + Serialize + for<'de> Deserialize<'de> + Default {}
impl Component for f64 {}
impl Component for f32 {}
impl Component for i32 {}

/// `N` components written as a tuple.
struct Components<'a, T, const N: usize>(&'a [T; N]);

impl<T: Component, const N: usize> Serialize for Components<'_, T, N> {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(N)?;
        for c in self.0 {
            t.serialize_element(c)?;
        }
        t.end()
    }
}

/// What a length mismatch expected: `a Vector3 of 3 components`.
struct Count<const N: usize>(&'static str);

impl<const N: usize> de::Expected for Count<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} of {N} components", self.0)
    }
}

/// A math type made of `N` components of type `T`.
trait FromComponents<T, const N: usize> {
    fn from_components(a: [T; N]) -> Self;
}

/// Reads the `N` components of `M` from a sequence (or a newtype around one), and makes the
/// `M` itself: the visitor's value is the math type, so that no conversion follows the
/// deserializer's call (a copy of the components through memory there cost more than the
/// read).
struct ComponentsVisitor<T, const N: usize, M>(&'static str, PhantomData<(T, M)>);

impl<'de, T: Component, const N: usize, M: FromComponents<T, N>> Visitor<'de>
    for ComponentsVisitor<T, N, M>
{
    type Value = M;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> core::result::Result<M, A::Error> {
        let mut out = [T::default(); N];
        let len = Count::<N>(self.0);
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &len))?;
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &len));
        }
        Ok(M::from_components(out))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> core::result::Result<M, D::Error> {
        d.deserialize_tuple(N, self)
    }
}

macro_rules! math_serde {
    ($($ty:ident: $t:ty, $n:literal, $code:literal;)*) => {
        $(
            impl Serialize for $ty {
                fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
                    let a: [$t; $n] = self.to_array();
                    s.serialize_newtype_struct(
                        concat!("\0", $code, "gdvariant::", stringify!($ty)),
                        &Components(&a),
                    )
                }
            }

            impl<'de> Deserialize<'de> for $ty {
                #[inline]
                fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
                    d.deserialize_newtype_struct(
                        concat!("\0", $code, "gdvariant::", stringify!($ty)),
                        ComponentsVisitor::<$t, $n, $ty>(stringify!($ty), PhantomData),
                    )
                }
            }

            impl FromComponents<$t, $n> for $ty {
                #[inline]
                fn from_components(a: [$t; $n]) -> $ty {
                    $ty::from_array(a)
                }
            }
        )*

        /// Every math type's magic name (its code is its Godot 4 type id plus one).
        #[cfg(test)]
        pub(crate) const NAMES: &[(&str, VariantType)] = &[
            $((concat!("\0", $code, "gdvariant::", stringify!($ty)), VariantType::$ty),)*
        ];
    };
}

math_serde! {
    Vector2: f64, 2, "\x06";
    Vector2i: i32, 2, "\x07";
    Rect2: f64, 4, "\x08";
    Rect2i: i32, 4, "\x09";
    Vector3: f64, 3, "\x0a";
    Vector3i: i32, 3, "\x0b";
    Transform2D: f64, 6, "\x0c";
    Vector4: f64, 4, "\x0d";
    Vector4i: i32, 4, "\x0e";
    Plane: f64, 4, "\x0f";
    Quaternion: f64, 4, "\x10";
    Aabb: f64, 6, "\x11";
    Basis: f64, 9, "\x12";
    Transform3D: f64, 12, "\x13";
    Projection: f64, 16, "\x14";
    Color: f32, 4, "\x15";
}
