//! Math types and packed arrays presented to serde visitors as sequences (of components, of
//! elements), for the deserializer: on the fast paths, straight from the input bytes (a math
//! type's components, a PackedStringArray's strings: [`math_at`], [`strings_at`]), and from a
//! value the walker has read ([`visit_elements`]).

// This file's #[inline(always)]s, as a group: gs_serde +8 % time without them (layout-pinned A/B).

use serde::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use super::error::{Error, Result};
use super::scalar::{str_seed, Ids};
use crate::head::skip_string;
use crate::leaf::{self, engine_str, simple_text};
use crate::math::*;
use crate::reader::Reader;
use crate::types::{Dialect, ReadOptions, VariantType};
use crate::value::VariantRef;

// ----- the fast paths: from the input bytes -----

/// The math type `ty` (of `n` components) at the start of `b` (at absolute offset `at`), if it
/// is there whole with that exact type: its components to `visitor`, and its size. Gives the
/// visitor back otherwise.
#[inline(always)]
pub(super) fn math_at<'de, V: Visitor<'de>>(
    b: &'de [u8],
    at: usize,
    ty: VariantType,
    n: usize,
    opts: &ReadOptions,
    visitor: V,
) -> core::result::Result<(Result<V::Value>, usize), V> {
    use VariantType as T;
    let dialect = opts.dialect;
    let Some((h, rest)) = b.split_first_chunk::<4>() else {
        return Err(visitor);
    };
    let header = u32::from_le_bytes(*h);
    let l = dialect.layout(header);
    // (An unknown id's layout says Nil, never a math type.)
    if l.ty != ty {
        return Err(visitor);
    }
    // 8-byte components where the 64-bit flag applies (reals, Godot 4), else 4.
    let wide = leaf::wide(header, &l);
    let size = if wide { 8 } else { 4 };
    let Some(bytes) = rest.get(..n * size) else {
        return Err(visitor);
    };
    let res = match ty {
        T::Vector2i | T::Vector3i | T::Rect2i | T::Vector4i => {
            components(bytes, at + 4, Int32, visitor)
        }
        T::Color => components(bytes, at + 4, Single, visitor),
        // One component type for the three forms of reals (the visitor's code once, not thrice).
        _ => components(
            bytes,
            at + 4,
            Real {
                size,
                narrow: wide && !opts.double_precision(),
            },
            visitor,
        ),
    };
    Ok((res.map_err(|e| e.value_at(ty, dialect, at)), 4 + n * size))
}

/// The PackedStringArray at `r`, if that is what is there: its strings handed to `visitor` as
/// a sequence (all of them checked as `validate` checks them, the ones the visitor leaves too),
/// and the cursor after it. Gives the visitor back otherwise. After an error, the walk cannot
/// go on.
#[inline(always)]
pub(super) fn strings_at<'de, V: Visitor<'de>>(
    mut r: Reader<'de>,
    ids: &Ids,
    dialect: Dialect,
    visitor: V,
) -> core::result::Result<(Result<V::Value>, Reader<'de>), V> {
    let at = r.offset();
    // (Header and count looked at first, so that a declined value is not counted as read.)
    if r.peek_u32() != Some(ids.strings) || r.remaining() < 8 {
        return Err(visitor);
    }
    let _ = r.read_u32();
    // A negative count reads as an empty array, as in the engine.
    let Ok(count) = r.read_i32() else {
        return Err(visitor);
    };
    let mut strings = Strings {
        r,
        left: count.max(0) as usize,
        index: 0,
        dialect,
    };
    let res = visitor
        .visit_seq(&mut strings)
        .and_then(|v| strings.finish().map(|()| v))
        .map_err(|e| e.value_at(VariantType::PackedStringArray, dialect, at));
    Ok((res, strings.r))
}

/// The components of a math type, read from its payload bytes, as a sequence.
struct Components<'de, C> {
    bytes: &'de [u8],
    /// The absolute offset of `bytes`.
    at: usize,
    index: usize,
    c: C,
}

/// How a component is stored.
trait Component {
    const TY: VariantType;
    type De<'de>: de::Deserializer<'de, Error = Error>;
    /// Its size in bytes.
    fn size(&self) -> usize;
    /// The component in `b` (`size` bytes).
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de>;
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    b.first_chunk::<N>().copied().unwrap_or([0; N])
}

/// A real component (Vector2, Transform3D, …) as `f64`: stored as f32 (`size` 4) or as f64 (8),
/// which a standard engine's `real_t` narrows to f32 (`narrow`) and a precision=double engine
/// keeps.
struct Real {
    size: usize,
    narrow: bool,
}
/// A Color's f32 component.
struct Single;
/// An integer vector's i32 component.
struct Int32;

impl Component for Real {
    const TY: VariantType = VariantType::Float;
    type De<'de> = de::value::F64Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        self.size
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        let wide = self.size == 8;
        // (`b` is a whole component.)
        let x = leaf::float(b, wide).unwrap_or(0.0);
        if wide {
            crate::convert::real(x, !self.narrow)
        } else {
            x
        }
        .into_deserializer()
    }
}
impl Component for Single {
    const TY: VariantType = VariantType::Float;
    type De<'de> = de::value::F32Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        4
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        f32::from_le_bytes(le(b)).into_deserializer()
    }
}
impl Component for Int32 {
    const TY: VariantType = VariantType::Int;
    type De<'de> = de::value::I32Deserializer<Error>;
    #[inline(always)]
    fn size(&self) -> usize {
        4
    }
    #[inline(always)]
    fn de<'de>(&self, b: &[u8]) -> Self::De<'de> {
        i32::from_le_bytes(le(b)).into_deserializer()
    }
}

impl<'de, C: Component> de::SeqAccess<'de> for Components<'de, C> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let size = self.c.size();
        let Some((c, rest)) = self.bytes.split_at_checked(size) else {
            return Ok(None);
        };
        self.bytes = rest;
        let i = self.index;
        self.index += 1;
        seed.deserialize(self.c.de(c))
            .map(Some)
            .map_err(|e: Error| {
                e.found(C::TY, Dialect::Godot4)
                    .at(self.at + i * size)
                    .in_index(i)
            })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() / self.c.size())
    }
}

#[inline(always)]
fn components<'de, C: Component, V: Visitor<'de>>(
    bytes: &'de [u8],
    at: usize,
    c: C,
    visitor: V,
) -> Result<V::Value> {
    visitor.visit_seq(Components {
        bytes,
        at,
        index: 0,
        c,
    })
}

/// The strings of a PackedStringArray, read from the cursor one by one as the visitor asks for
/// them, with `validate`'s checks.
struct Strings<'de> {
    r: Reader<'de>,
    left: usize,
    index: usize,
    dialect: Dialect,
}

impl<'de> Strings<'de> {
    #[inline(always)]
    fn next_str(&mut self) -> Result<alloc::borrow::Cow<'de, str>> {
        self.left -= 1;
        let (raw, at) = self.r.read_string_raw()?;
        match simple_text(raw) {
            Some(s) => Ok(s.into()),
            _ => Ok(engine_str(raw, at, self.dialect)?),
        }
    }

    /// Checks the strings the visitor did not read, as `validate` does.
    #[inline(always)]
    fn finish(&mut self) -> Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        self.finish_slow()
    }

    #[inline(never)]
    fn finish_slow(&mut self) -> Result<()> {
        for _ in 0..self.left {
            skip_string(&mut self.r, self.dialect, true)?;
        }
        self.left = 0;
        Ok(())
    }
}

impl<'de> de::SeqAccess<'de> for Strings<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let at = self.r.offset();
        let s = self.next_str()?;
        let i = self.index;
        self.index += 1;
        str_seed(s, seed).map(Some).map_err(|e: Error| {
            e.found(VariantType::String, self.dialect)
                .at(at)
                .in_index(i)
        })
    }

    fn size_hint(&self) -> Option<usize> {
        // Bounded by what the input can still hold (4 bytes a string at least).
        Some(self.left.min(self.r.remaining() / 4))
    }
}

// ----- from a value the walker has read -----

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
