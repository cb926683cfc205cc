//! Array views: element count, typed-array info, a lazy iterator and indexed access.

use core::iter::FusedIterator;

use crate::error::Result;
pub use crate::head::ContainerType;
use crate::head::{head, read_container_type};
use crate::reader::Reader;
pub use crate::seq::Nested;
use crate::seq::Seq;

use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;
use crate::walker::skip_values;

/// Reads the type info entries of a container value (`N` = 1 for Array, 2 for Dictionary).
pub(crate) fn container_types<'a, const N: usize>(
    v: &VariantRef<'a>,
) -> Result<[ContainerType<'a>; N]> {
    let mut out = [ContainerType::None; N];
    if v.dialect() == Dialect::Godot3 {
        return Ok(out);
    }
    let raw = v.raw_head();
    let mut r = Reader::new(raw, v.offset());
    r.skip(4)?;
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = read_container_type(&mut r, (v.header() >> (16 + 2 * k)) & 3, &v.options(), true)?;
    }
    Ok(out)
}

/// A lazy view of an Array.
///
/// # As encoded
///
/// Like every lazy view, it gives the elements *as encoded*: zero-copy, one after the other,
/// with the element type the bytes declare. For a typed Array (Godot 4.3+) the engine's
/// value can differ: `bytes_to_var` converts an element whose type is not the declared one
/// where the engine's conversion rule allows (`Array[int]` holding `true` reads `1`) and
/// leaves out the others, reads `Array[Nil]` as untyped, and without full objects types every
/// class- or script-typed array `EncodedObjectAsID` (see [`convert`](crate::convert)). Read
/// it as the engine does with [`engine_element_type`](ArrayRef::engine_element_type) and
/// [`engine_iter`](ArrayRef::engine_iter), or decode it with
/// [`VariantRef::to_owned`](crate::VariantRef::to_owned).
#[derive(Clone, Copy, Debug)]
pub struct ArrayRef<'a> {
    pub(crate) value: VariantRef<'a>,
}

impl<'a> ArrayRef<'a> {
    pub(crate) fn new(value: VariantRef<'a>) -> ArrayRef<'a> {
        ArrayRef { value }
    }

    /// The Array as a [`VariantRef`].
    pub fn as_variant(&self) -> VariantRef<'a> {
        self.value
    }

    /// The element count the Array declares (bit 31, the old "shared" flag, masked off). The
    /// elements are not checked until iterated.
    pub fn len(&self) -> usize {
        self.value.count()
    }

    /// Whether the Array declares no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type of a typed Array (`Array[int]`), or [`ContainerType::None`].
    pub fn element_type(&self) -> Result<ContainerType<'a>> {
        container_types::<1>(&self.value).map(|[t]| t)
    }

    /// An iterator over the elements, in order. It yields `Err` for the first malformed
    /// element and then ends.
    ///
    /// Elements are yielded as soon as their head is read: a container element is *unsized*
    /// (its elements are read when you iterate it), and the iterator walks past it when it
    /// moves on. If you iterated the element to its end yourself, hand its iterator to
    /// [`ArrayIter::resume_after`] and it is not read again: a recursive walk through the lazy
    /// views then reads every byte once, whatever the depth. (The [`Walker`](crate::Walker)
    /// does this for you.)
    pub fn iter(&self) -> ArrayIter<'a> {
        ArrayIter {
            seq: Seq::of(&self.value),
        }
    }

    /// The element at `index`, skipping (not decoding) the ones before it; `Ok(None)` past the
    /// end. The returned view is lazy: a container element is not walked.
    pub fn get(&self, index: usize) -> Result<Option<VariantRef<'a>>> {
        if index >= self.len() {
            return Ok(None);
        }
        let mut r = self.value.body_reader();
        let depth = self.value.depth() + 1;
        let opts = self.value.options();
        // index < len <= u32::MAX
        skip_values(&mut r, index as u32, depth, &opts)?;
        let h = head(&mut r, depth, &opts, false)?;
        Ok(Some(VariantRef::new(h, depth, opts)))
    }
}

impl<'a> IntoIterator for ArrayRef<'a> {
    type Item = Result<VariantRef<'a>>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

/// The elements of an Array; see [`ArrayRef::iter`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct ArrayIter<'a> {
    seq: Seq<'a>,
}

impl<'a> ArrayIter<'a> {
    /// The next element, `Ok(None)` at the end. After an error it returns `Ok(None)`.
    #[inline]
    pub fn try_next(&mut self) -> Result<Option<VariantRef<'a>>> {
        self.seq.next_with(Seq::value)
    }

    /// The absolute offset of the next element (if the last element yielded is a container
    /// not yet walked, this walks it on a copy of the cursor).
    pub fn offset(&self) -> Result<usize> {
        self.seq.offset()
    }

    /// Continues after the container element just yielded, which you iterated to its end with
    /// `inner` (its own [`ArrayIter`], [`DictIter`](crate::dict::DictIter) or
    /// [`Properties`](crate::object::Properties)): the element is not read again. Returns `Ok(false)`,
    /// changing nothing, if `inner` is not that element's iterator or did not reach its end.
    ///
    /// ```
    /// // var_to_bytes([[1, 2], 3]) in Godot 4
    /// let bytes = [28, 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
    ///              2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0];
    /// let outer = gdvariant::parse(&bytes)?.as_array()?;
    /// let mut it = outer.iter();
    /// let inner = it.try_next()?.unwrap().as_array()?;
    /// let mut inner_it = inner.iter();
    /// let mut sum = 0;
    /// while let Some(v) = inner_it.try_next()? {
    ///     sum += v.as_i64()?;
    /// }
    /// assert!(it.resume_after(&inner_it)?); // [1, 2] is not walked a second time
    /// sum += it.try_next()?.unwrap().as_i64()?;
    /// assert_eq!(sum, 6);
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn resume_after<I: Nested<'a>>(&mut self, inner: &I) -> Result<bool> {
        self.seq.resume_after(inner.seq())
    }
}

impl<'a> crate::seq::private::Sealed<'a> for ArrayIter<'a> {
    fn seq(&self) -> &Seq<'a> {
        &self.seq
    }
}

impl<'a> Nested<'a> for ArrayIter<'a> {}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Result<VariantRef<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // An error can end the iteration early, so only the upper bound is known.
        (0, Some(self.seq.remaining()))
    }
}

impl FusedIterator for ArrayIter<'_> {}

/// The Array view of a value.
impl<'a> VariantRef<'a> {
    /// An Array view.
    pub fn as_array(&self) -> Result<ArrayRef<'a>> {
        self.expect(VariantType::Array)?;
        Ok(ArrayRef::new(*self))
    }
}
