//! Paths through a value: `entities/9999/pos`, dictionary keys and array indices separated by
//! `/`, looked up without decoding anything else.

use crate::array::ArrayRef;
use crate::dict::DictionaryRef;
use crate::error::Result;
use crate::packed::PackedElement;
use crate::types::VariantType;
use crate::value::VariantRef;

impl<'a> VariantRef<'a> {
    /// Looks up a path of dictionary keys and array indices separated by `/`, such as
    /// `entities/9999/pos`, without decoding anything else. A segment is tried as a string key
    /// of a dictionary, then (if it is a number) as an int key; on an array it is an index.
    /// `Ok(None)` when some step does not exist.
    ///
    /// The elements of packed arrays are not encoded values, so a path ending in one (`tags/0`)
    /// is `Ok(None)` here: [`path_item`](VariantRef::path_item) finds those too.
    pub fn path(&self, path: &str) -> Result<Option<VariantRef<'a>>> {
        let mut cur = *self;
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            match cur.step(seg)? {
                Some(v) => cur = v,
                None => return Ok(None),
            }
        }
        Ok(Some(cur))
    }

    /// Looks up a path as [`path`](VariantRef::path) does, where the last segment may also
    /// index a packed array (`entities/7/tags/0`): the item found is a value or a packed
    /// array's element.
    ///
    /// ```
    /// use gdvariant::{packed::PackedElement, path::PathItem};
    /// // var_to_bytes({"tags": PackedStringArray(["npc"])}) in Godot 4
    /// let bytes = [27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, b't', b'a', b'g', b's',
    ///              34, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, b'n', b'p', b'c', 0];
    /// let v = gdvariant::parse(&bytes)?;
    /// assert!(matches!(v.path_item("tags/0")?, Some(PathItem::Element(PackedElement::String("npc")))));
    /// let tags = v.path_item("tags")?.and_then(PathItem::value).unwrap();
    /// assert_eq!(tags.as_string_array()?.len(), 1);
    /// assert!(v.path_item("tags/1")?.is_none());
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn path_item(&self, path: &str) -> Result<Option<PathItem<'a>>> {
        let mut cur = *self;
        let mut segs = path.split('/').filter(|s| !s.is_empty()).peekable();
        while let Some(seg) = segs.next() {
            if cur.ty().is_packed_array() {
                if segs.peek().is_some() {
                    return Ok(None);
                }
                return Ok(match seg.parse::<usize>() {
                    Ok(i) => cur.element(i)?.map(PathItem::Element),
                    Err(_) => None,
                });
            }
            match cur.step(seg)? {
                Some(v) => cur = v,
                None => return Ok(None),
            }
        }
        Ok(Some(PathItem::Value(cur)))
    }

    /// One step of a path: the child named by `seg`, if any.
    #[inline]
    fn step(&self, seg: &str) -> Result<Option<VariantRef<'a>>> {
        Ok(match self.ty() {
            VariantType::Dictionary => {
                let d = DictionaryRef::new(*self);
                match d.get(seg)? {
                    Some(v) => Some(v),
                    None => match seg.parse::<i64>() {
                        Ok(i) => d.get(i)?,
                        Err(_) => None,
                    },
                }
            }
            VariantType::Array => match seg.parse::<usize>() {
                Ok(i) => ArrayRef::new(*self).get(i)?,
                Err(_) => None,
            },
            _ => None,
        })
    }
}

/// What [`VariantRef::path_item`] finds: an encoded value, or an element of a packed array.
#[derive(Clone, Copy, Debug)]
pub enum PathItem<'a> {
    /// A value (scalar, container, packed array, …).
    Value(VariantRef<'a>),
    /// An element of a packed array.
    Element(PackedElement<'a>),
}

impl<'a> PathItem<'a> {
    /// The value, if the item is one.
    pub fn value(self) -> Option<VariantRef<'a>> {
        match self {
            PathItem::Value(v) => Some(v),
            PathItem::Element(_) => None,
        }
    }

    /// The packed array element, if the item is one.
    pub fn element(self) -> Option<PackedElement<'a>> {
        match self {
            PathItem::Element(e) => Some(e),
            PathItem::Value(_) => None,
        }
    }
}
