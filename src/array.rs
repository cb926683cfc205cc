//! Array views: element count, typed-array info, a lazy iterator and indexed access.

use core::iter::FusedIterator;

use crate::error::Result;
use crate::reader::Reader;
use crate::text::Text;
use crate::types::{Dialect, Options, VariantType};
use crate::value::{read_container_type, read_value, skip_value, VariantRef};

/// The element (or key, or value) type of a typed container (Godot 4.3+ Arrays, 4.4+
/// Dictionaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContainerType<'a> {
    /// Untyped.
    None,
    /// A builtin type, as in `Array[int]`.
    Builtin(VariantType),
    /// A native class, as in `Array[Node]`. Written by `var_to_bytes` as `EncodedObjectAsID` for
    /// every class- or script-typed container.
    ClassName(Text<'a>),
    /// A script, by its `res://` path (written by `var_to_bytes_with_objects`).
    Script(Text<'a>),
}

impl ContainerType<'_> {
    /// The kind as written in the header bits: 0 none, 1 builtin, 2 class name, 3 script.
    pub fn kind(&self) -> u32 {
        match self {
            ContainerType::None => 0,
            ContainerType::Builtin(_) => 1,
            ContainerType::ClassName(_) => 2,
            ContainerType::Script(_) => 3,
        }
    }

    /// Whether the container is typed.
    pub fn is_typed(&self) -> bool {
        !matches!(self, ContainerType::None)
    }
}

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
#[derive(Clone, Copy, Debug)]
pub struct ArrayRef<'a> {
    value: VariantRef<'a>,
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
        self.value.count() as usize
    }

    /// Whether the Array declares no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type of a typed Array (`Array[int]`), or [`ContainerType::None`].
    pub fn element_type(&self) -> Result<ContainerType<'a>> {
        container_types::<1>(&self.value).map(|[t]| t)
    }

    /// An iterator over the elements. Each element is walked once to find the next; the
    /// iterator yields `Err` for the first malformed element and then ends.
    pub fn iter(&self) -> ArrayIter<'a> {
        ArrayIter {
            r: self.value.body_reader(),
            remaining: self.value.count(),
            depth: self.value.depth() + 1,
            opts: self.value.options(),
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
        for _ in 0..index {
            skip_value(&mut r, depth, &opts)?;
        }
        crate::value::head(&mut r, depth, &opts, false).map(Some)
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
    r: Reader<'a>,
    remaining: u32,
    depth: u32,
    opts: Options,
}

impl<'a> ArrayIter<'a> {
    /// The next element, `Ok(None)` at the end. After an error it returns `Ok(None)`.
    pub fn try_next(&mut self) -> Result<Option<VariantRef<'a>>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        match read_value(&mut self.r, self.depth, &self.opts) {
            Ok(v) => Ok(Some(v)),
            Err(e) => {
                self.remaining = 0;
                Err(e)
            }
        }
    }

    /// The absolute offset of the next element.
    pub fn offset(&self) -> usize {
        self.r.offset()
    }
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Result<VariantRef<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // An error can end the iteration early, so only the upper bound is known.
        (0, Some(self.remaining as usize))
    }
}

impl FusedIterator for ArrayIter<'_> {}
