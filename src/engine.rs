//! Typed containers as the engine reads them: the element type it keeps, and the elements it
//! keeps, converted to that type as `bytes_to_var` converts them (see [`convert`]);
//! a typed Dictionary's lookups by the key converted to its key type. The lazy views give the
//! elements as encoded; these read them as the engine does.

use core::iter::FusedIterator;

use crate::array::{ArrayIter, ArrayRef};
use crate::convert::{self, Fit};
use crate::dict::{DictionaryRef, Key, Lookup};
use crate::error::Result;
use crate::owned::key::same_key;
use crate::owned::{TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};
use crate::value::VariantRef;

impl<'a> ArrayRef<'a> {
    /// The element type as the engine keeps it when it decodes this array: `Nil` is
    /// untyped, and without full objects every object type is the class `EncodedObjectAsID`
    /// ([`convert::engine_type`]). Godot 3 arrays are untyped.
    pub fn engine_element_type(&self) -> Result<TypeInfo> {
        let t = self.element_type()?;
        if !t.is_typed() {
            return Ok(TypeInfo::None);
        }
        let t = TypeInfo::from_ref(&t, self.value.offset())?;
        Ok(crate::convert::engine_type(
            t,
            self.value.options().full_objects(),
        ))
    }

    /// The elements as the engine reads them (see the [type docs](ArrayRef)): those of the
    /// engine's element type as encoded (borrowed, lazy), the others converted to it
    /// ([`convert`]) or left out. For an untyped array, every element as
    /// encoded.
    ///
    /// ```
    /// use gdvariant::{engine::EngineElement, Variant};
    /// // Array[int]([1, true, "x"]) as crafted bytes: type info 2 (int), 3 elements
    /// let bytes = [28, 0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0,
    ///              2, 0, 0, 0, 1, 0, 0, 0,                     // 1
    ///              1, 0, 0, 0, 1, 0, 0, 0,                     // true
    ///              4, 0, 0, 0, 1, 0, 0, 0, b'x', 0, 0, 0];     // "x"
    /// let a = gdvariant::parse(&bytes)?.as_array()?;
    /// assert_eq!(a.len(), 3);                                  // as encoded
    /// let engine: Vec<Variant> = a
    ///     .engine_iter()
    ///     .map(|e| e.and_then(EngineElement::into_variant))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(engine, [Variant::Int(1), Variant::Int(1)]);   // true converted, "x" dropped
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn engine_iter(&self) -> EngineIter<'a> {
        let declared = self.engine_element_type();
        EngineIter {
            inner: self.iter(),
            declared: declared.as_ref().ok().cloned().unwrap_or_default(),
            error: declared.err(),
            opts: self.value.options(),
        }
    }
}

/// An element of an Array as the engine reads it; see [`ArrayRef::engine_iter`].
#[derive(Clone, Debug)]
pub enum EngineElement<'a> {
    /// The element as encoded: it has the array's engine element type (or the array is
    /// untyped).
    AsEncoded(VariantRef<'a>),
    /// The element converted to the array's element type, as the engine converts it.
    Converted(Variant),
}

impl EngineElement<'_> {
    /// The element decoded: an [`AsEncoded`](EngineElement::AsEncoded) one through
    /// [`VariantRef::to_owned`].
    pub fn into_variant(self) -> Result<Variant> {
        match self {
            EngineElement::AsEncoded(v) => v.to_owned(),
            EngineElement::Converted(v) => Ok(v),
        }
    }
}

/// The elements of an Array as the engine reads them; see [`ArrayRef::engine_iter`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct EngineIter<'a> {
    inner: ArrayIter<'a>,
    declared: TypeInfo,
    error: Option<crate::error::Error>,
    opts: crate::types::ReadOptions,
}

impl<'a> EngineIter<'a> {
    /// The next element the engine keeps, `Ok(None)` at the end. After an error it returns
    /// `Ok(None)`.
    pub fn try_next(&mut self) -> Result<Option<EngineElement<'a>>> {
        if let Some(e) = self.error.take() {
            self.declared = TypeInfo::None;
            while self.inner.try_next().ok().flatten().is_some() {}
            return Err(e);
        }
        let Some(want) = self.declared.builtin() else {
            return Ok(self.inner.try_next()?.map(EngineElement::AsEncoded));
        };
        while let Some(v) = self.inner.try_next()? {
            match crate::convert::fit_ref(&self.declared, &v)? {
                Fit::Keep => return Ok(Some(EngineElement::AsEncoded(v))),
                Fit::Convert => {
                    let owned = v.to_owned()?;
                    if let Some(c) = crate::convert::convert(&owned, want, &self.opts) {
                        return Ok(Some(EngineElement::Converted(c)));
                    }
                }
                Fit::Drop => {}
            }
        }
        Ok(None)
    }
}

impl<'a> Iterator for EngineIter<'a> {
    type Item = Result<EngineElement<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }
}

impl FusedIterator for EngineIter<'_> {}

impl<'a> DictionaryRef<'a> {
    /// [`find`](DictionaryRef::find) comparing each key as the engine reads it: Godot 3 text
    /// decoded, and the keys of a typed Dictionary converted (or dropped) as the engine does.
    pub(crate) fn find_as_read<K: Key>(
        &self,
        key: &K,
        first: bool,
    ) -> Result<Option<VariantRef<'a>>> {
        let checked = convert::checked_type(&self.value)?;
        let opts = self.value.options();
        // In a typed Dictionary, the key looked up is converted to the key type too.
        let lookup = match (&checked, key.lookup()) {
            (Some(t), Some(k)) => match as_key_type(lookup_value(k)?, t, &opts) {
                Some(k) => Some(k),
                None => return Ok(None),
            },
            _ => None,
        };
        let mut found = None;
        let mut last = None;
        let mut it = self.iter();
        while let Some((k, v)) = it.try_next()? {
            last = Some(v);
            let hit = match (&checked, &lookup) {
                (None, _) => key.matches(&k)?,
                (Some(t), None) => match convert::fit_ref(t, &k)? {
                    Fit::Keep => key.matches(&k)?,
                    _ => false,
                },
                (Some(t), Some(l)) => match as_key_type(k.to_owned()?, t, &opts) {
                    Some(k) => same_key(&k, l, Dialect::Godot4),
                    None => false,
                },
            };
            if hit {
                if first {
                    return Ok(Some(v));
                }
                found = Some(v);
            }
        }
        // The iterator leaves the last value unread: whether it is the last match is only known
        // from a dictionary read whole, as the other lookups read it.
        if let Some(v) = last {
            v.raw()?;
        }
        Ok(found)
    }
}

/// `k` as a typed Dictionary of key type `t` holds it: kept, converted, or `None` (dropped).
fn as_key_type(k: Variant, t: &TypeInfo, opts: &ReadOptions) -> Option<Variant> {
    use crate::convert::{convert, fit};
    match fit(t, &k) {
        Fit::Keep => Some(k),
        Fit::Convert => convert(&k, t.builtin()?, opts),
        Fit::Drop => None,
    }
}

/// The value of a key looked up.
fn lookup_value(k: Lookup<'_>) -> Result<Variant> {
    Ok(match k {
        Lookup::Str(s) => Variant::String(s.into()),
        Lookup::Int(i) => Variant::Int(i),
        Lookup::Bool(b) => Variant::Bool(b),
        Lookup::Value(v) => v.to_owned()?,
    })
}
