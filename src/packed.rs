//! Packed (pool) arrays viewed in place.
//!
//! [`PackedArrayRef::as_slice`] returns a slice pointing into the input when the host is
//! little-endian and the payload address is aligned for the element type; otherwise it returns
//! `None` and [`as_le_slice`](PackedArrayRef::as_le_slice), [`get`](PackedArrayRef::get) and
//! [`iter`](PackedArrayRef::iter) read the same values through zerocopy's unaligned
//! little-endian types, on any host.

use alloc::vec::Vec;
use core::fmt;
use core::iter::FusedIterator;
use core::marker::PhantomData;

use zerocopy::little_endian::{F32, F64, I32, I64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::error::{Expected, Result};
use crate::math::{Color, Vector2, Vector3, Vector4};
use crate::object::StrIter;
use crate::types::VariantType;
use crate::value::VariantRef;

mod sealed {
    pub trait Sealed {}
}

/// An element type of a packed array: `i32`, `i64`, `f32`, `f64`, `[f32; N]` / `[f64; N]` for
/// Vector2/3/4 in single or double precision, and [`Color`].
pub trait Element:
    sealed::Sealed + Copy + FromBytes + IntoBytes + Immutable + KnownLayout + 'static
{
    /// The element as stored on the wire: little-endian and of alignment 1.
    type Le: FromBytes + Immutable + KnownLayout + Unaligned + Copy + fmt::Debug;
    /// A name for error messages (`"f32"`, `"[f64; 3]"`, …).
    const NAME: &'static str;
    /// Whether a packed array of type `ty` (with the 64-bit flag `wide`) has this element type.
    fn matches(ty: VariantType, wide: bool) -> bool;
    /// Converts the wire form to the native value.
    fn from_le(le: &Self::Le) -> Self;
}

macro_rules! element {
    ($t:ty, $le:ty, $name:literal, |$ty:ident, $wide:ident| $m:expr, |$x:ident| $conv:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            type Le = $le;
            const NAME: &'static str = $name;
            #[inline]
            fn matches($ty: VariantType, $wide: bool) -> bool {
                $m
            }
            #[inline]
            fn from_le($x: &$le) -> $t {
                $conv
            }
        }
    };
}

use VariantType as T;
element!(i32, I32, "i32", |ty, _w| ty == T::PackedInt32Array, |x| x
    .get());
element!(i64, I64, "i64", |ty, _w| ty == T::PackedInt64Array, |x| x
    .get());
element!(f32, F32, "f32", |ty, _w| ty == T::PackedFloat32Array, |x| x
    .get());
element!(f64, F64, "f64", |ty, _w| ty == T::PackedFloat64Array, |x| x
    .get());
element!(
    [f32; 2],
    [F32; 2],
    "[f32; 2] (Vector2)",
    |ty, w| ty == T::PackedVector2Array && !w,
    |x| x.map(F32::get)
);
element!(
    [f64; 2],
    [F64; 2],
    "[f64; 2] (Vector2, double)",
    |ty, w| ty == T::PackedVector2Array && w,
    |x| x.map(F64::get)
);
element!(
    [f32; 3],
    [F32; 3],
    "[f32; 3] (Vector3)",
    |ty, w| ty == T::PackedVector3Array && !w,
    |x| x.map(F32::get)
);
element!(
    [f64; 3],
    [F64; 3],
    "[f64; 3] (Vector3, double)",
    |ty, w| ty == T::PackedVector3Array && w,
    |x| x.map(F64::get)
);
element!(
    [f32; 4],
    [F32; 4],
    "[f32; 4] (Vector4)",
    |ty, w| ty == T::PackedVector4Array && !w,
    |x| x.map(F32::get)
);
element!(
    [f64; 4],
    [F64; 4],
    "[f64; 4] (Vector4, double)",
    |ty, w| ty == T::PackedVector4Array && w,
    |x| x.map(F64::get)
);
element!(
    Color,
    [F32; 4],
    "Color",
    |ty, _w| ty == T::PackedColorArray,
    |x| Color::from_array(x.map(F32::get))
);

/// A packed array of fixed-size elements, borrowed from the input.
pub struct PackedArrayRef<'a, T: Element> {
    bytes: &'a [u8],
    offset: usize,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for PackedArrayRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for PackedArrayRef<'_, T> {}

impl<T: Element> fmt::Debug for PackedArrayRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedArrayRef")
            .field("element", &T::NAME)
            .field("len", &self.len())
            .field("offset", &self.offset)
            .finish()
    }
}

impl<'a, T: Element> PackedArrayRef<'a, T> {
    pub(crate) fn new(bytes: &'a [u8], offset: usize) -> Self {
        PackedArrayRef {
            bytes,
            offset,
            _t: PhantomData,
        }
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / core::mem::size_of::<T>()
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The payload bytes (little-endian elements), borrowed from the input.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The absolute offset of the first element in the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The elements as a native slice pointing into the input, when the host is little-endian
    /// and the payload is aligned for `T` (also for an empty array); `None` otherwise.
    #[inline]
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if cfg!(target_endian = "little") {
            <[T]>::ref_from_bytes(self.bytes).ok()
        } else {
            None
        }
    }

    /// The elements as little-endian wire values: works for every alignment and host.
    #[inline]
    pub fn as_le_slice(&self) -> &'a [T::Le] {
        // Cannot fail: `Le` has alignment 1 and the payload is a whole number of elements.
        <[T::Le]>::ref_from_bytes(self.bytes).unwrap_or(&[])
    }

    /// The element at `index`, or `None` past the end.
    #[inline]
    pub fn get(&self, index: usize) -> Option<T> {
        self.as_le_slice().get(index).map(T::from_le)
    }

    /// An exact-size, double-ended iterator over the elements.
    #[inline]
    pub fn iter(&self) -> PackedIter<'a, T> {
        PackedIter {
            inner: self.as_le_slice().iter(),
        }
    }

    /// The elements copied into a `Vec` (a plain copy of the slice when possible).
    pub fn to_vec(&self) -> Vec<T> {
        match self.as_slice() {
            Some(s) => s.to_vec(),
            None => self.iter().collect(),
        }
    }
}

impl<'a, T: Element> IntoIterator for PackedArrayRef<'a, T> {
    type Item = T;
    type IntoIter = PackedIter<'a, T>;
    fn into_iter(self) -> PackedIter<'a, T> {
        self.iter()
    }
}

/// The elements of a packed array; see [`PackedArrayRef::iter`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct PackedIter<'a, T: Element> {
    inner: core::slice::Iter<'a, T::Le>,
}

impl<T: Element> Iterator for PackedIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        self.inner.next().map(T::from_le)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        self.inner.nth(n).map(T::from_le)
    }
}

impl<T: Element> DoubleEndedIterator for PackedIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.inner.next_back().map(T::from_le)
    }
}

impl<T: Element> ExactSizeIterator for PackedIter<'_, T> {}
impl<T: Element> FusedIterator for PackedIter<'_, T> {}

/// A PackedStringArray (PoolStringArray): its entries are read, and their text checked, as you
/// iterate.
#[derive(Clone, Copy, Debug)]
pub struct PackedStringArrayRef<'a> {
    value: VariantRef<'a>,
}

impl<'a> PackedStringArrayRef<'a> {
    pub(crate) fn new(value: VariantRef<'a>) -> Self {
        PackedStringArrayRef { value }
    }

    /// The number of entries declared (a negative count reads as 0, as in the engine).
    pub fn len(&self) -> usize {
        self.value.count()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries. Each entry's trailing NUL (which the engine writes) is dropped, as the engine
    /// does.
    pub fn iter(&self) -> StrIter<'a> {
        StrIter::new(
            self.value.body_reader(),
            self.value.h.count,
            self.value.dialect(),
        )
    }

    /// The entry at `index` (skipping the ones before it), `Ok(None)` past the end.
    pub fn get(&self, index: usize) -> crate::error::Result<Option<&'a str>> {
        if index >= self.len() {
            return Ok(None);
        }
        let mut it = self.iter();
        for _ in 0..index {
            it.try_next()?;
        }
        it.next().transpose()
    }
}

impl<'a> IntoIterator for PackedStringArrayRef<'a> {
    type Item = crate::error::Result<&'a str>;
    type IntoIter = StrIter<'a>;
    fn into_iter(self) -> StrIter<'a> {
        self.iter()
    }
}

/// One element of a packed array, as [`VariantRef::element`] and
/// [`VariantRef::path_item`](crate::VariantRef::path_item) return it: packed elements are
/// not encoded values of their own (no header), so they are not [`VariantRef`]s. The variant
/// keeps the element's stored width; math vectors are widened to `f64` exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PackedElement<'a> {
    /// A PackedByteArray (PoolByteArray) element.
    Byte(u8),
    /// A PackedInt32Array (PoolIntArray) element.
    Int32(i32),
    /// A PackedInt64Array element.
    Int64(i64),
    /// A PackedFloat32Array (PoolRealArray) element.
    Float32(f32),
    /// A PackedFloat64Array element.
    Float64(f64),
    /// A PackedStringArray (PoolStringArray) entry, borrowed from the input.
    String(&'a str),
    /// A PackedVector2Array (PoolVector2Array) element.
    Vector2(Vector2),
    /// A PackedVector3Array (PoolVector3Array) element.
    Vector3(Vector3),
    /// A PackedVector4Array element.
    Vector4(Vector4),
    /// A PackedColorArray (PoolColorArray) element.
    Color(Color),
}

/// Element `i` of the packed array `v` (`None` past the end, or if `v` is not a packed array).
pub(crate) fn element<'a>(
    v: &VariantRef<'a>,
    i: usize,
) -> crate::error::Result<Option<PackedElement<'a>>> {
    use PackedElement as E;
    let wide = v.is_wide();
    Ok(match v.ty() {
        T::PackedByteArray => v.as_byte_array()?.get(i).map(|&b| E::Byte(b)),
        T::PackedInt32Array => v.as_packed::<i32>()?.get(i).map(E::Int32),
        T::PackedInt64Array => v.as_packed::<i64>()?.get(i).map(E::Int64),
        T::PackedFloat32Array => v.as_packed::<f32>()?.get(i).map(E::Float32),
        T::PackedFloat64Array => v.as_packed::<f64>()?.get(i).map(E::Float64),
        T::PackedStringArray => v.as_string_array()?.get(i)?.map(E::String),
        T::PackedVector2Array if wide => v
            .as_packed::<[f64; 2]>()?
            .get(i)
            .map(|c| E::Vector2(Vector2::from_array(c))),
        T::PackedVector2Array => v
            .as_packed::<[f32; 2]>()?
            .get(i)
            .map(|c| E::Vector2(Vector2::from_array(c.map(f64::from)))),
        T::PackedVector3Array if wide => v
            .as_packed::<[f64; 3]>()?
            .get(i)
            .map(|c| E::Vector3(Vector3::from_array(c))),
        T::PackedVector3Array => v
            .as_packed::<[f32; 3]>()?
            .get(i)
            .map(|c| E::Vector3(Vector3::from_array(c.map(f64::from)))),
        T::PackedVector4Array if wide => v
            .as_packed::<[f64; 4]>()?
            .get(i)
            .map(|c| E::Vector4(Vector4::from_array(c))),
        T::PackedVector4Array => v
            .as_packed::<[f32; 4]>()?
            .get(i)
            .map(|c| E::Vector4(Vector4::from_array(c.map(f64::from)))),
        T::PackedColorArray => v.as_packed::<Color>()?.get(i).map(E::Color),
        _ => None,
    })
}

/// The packed array views of a value.
impl<'a> VariantRef<'a> {
    /// The bytes of a PackedByteArray (PoolByteArray), borrowed from the input.
    pub fn as_byte_array(&self) -> Result<&'a [u8]> {
        self.expect(VariantType::PackedByteArray)?;
        let mut p = self.payload();
        let n = p.read_len()?;
        p.read_bytes(n)
    }

    /// A packed array of fixed-size elements, viewed in place: `as_packed::<f32>()` for a
    /// PackedFloat32Array, `as_packed::<[f32; 3]>()` for a single-precision PackedVector3Array,
    /// `as_packed::<[f64; 3]>()` for a double-precision one, `as_packed::<Color>()`, …
    pub fn as_packed<T: Element>(&self) -> Result<PackedArrayRef<'a, T>> {
        if !T::matches(self.h.ty, self.is_wide()) {
            return Err(self.wrong(Expected::PackedOf(T::NAME)));
        }
        let mut p = self.payload();
        let n = p.read_len()?;
        let at = p.offset();
        let bytes = p.read_elements(n, core::mem::size_of::<T>())?;
        Ok(PackedArrayRef::new(bytes, at))
    }

    /// A PackedStringArray (PoolStringArray) view.
    pub fn as_string_array(&self) -> Result<PackedStringArrayRef<'a>> {
        self.expect(VariantType::PackedStringArray)?;
        Ok(PackedStringArrayRef::new(*self))
    }

    /// Element `index` of a packed array of any kind (PackedStringArray included), as the
    /// engine's `array[index]` gives it; `Ok(None)` past the end or when the value is not a
    /// packed array. A PackedStringArray is read up to the entry; other kinds in O(1).
    ///
    /// ```
    /// use gdvariant::packed::PackedElement;
    /// // var_to_bytes(PackedInt32Array([7, -1])) in Godot 4
    /// let v = gdvariant::parse(&[30, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 255, 255, 255, 255])?;
    /// assert_eq!(v.element(1)?, Some(PackedElement::Int32(-1)));
    /// assert_eq!(v.element(2)?, None);
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn element(&self, index: usize) -> Result<Option<PackedElement<'a>>> {
        element(self, index)
    }
}
