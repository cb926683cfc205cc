//! Dictionary views: pair count, typed-dictionary info, a lazy iterator and key lookup.

use alloc::string::String;
use core::iter::FusedIterator;

use crate::array::{container_types, ContainerType};
use crate::error::Result;
use crate::head::head;
use crate::reader::Reader;
use crate::seq::{Nested, Seq};
use crate::text::engine_text;
use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;
use crate::walker::{read_value, skip_body, skip_value};

/// A key that dictionary lookups compare against encoded keys without decoding anything else.
///
/// Implemented for `&str`, `String` and `&String` (matches String and StringName keys with that
/// text, as the engine reads it), integers (matches int keys of equal value), `bool`, and
/// [`VariantRef`] (matches the keys the engine takes for the same key: see
/// [`Dictionary`](crate::Dictionary) for the rule).
pub trait Key {
    /// Whether the encoded `key` equals this key.
    fn matches(&self, key: &VariantRef<'_>) -> Result<bool>;

    /// The text of a string key, for lookups that compare string keys in place without making
    /// views of the keys they pass; `None` (the default) for other keys.
    #[doc(hidden)]
    fn as_str_key(&self) -> Option<&str> {
        None
    }

    /// The key as an owned value, for lookups in a typed Dictionary, where the engine converts
    /// the key looked up to the key type; `None` (the default) compares with
    /// [`matches`](Key::matches) instead.
    #[doc(hidden)]
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        None
    }
}

impl Key for &str {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::String(self[..].into())))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        if !matches!(key.ty(), VariantType::String | VariantType::StringName) {
            return Ok(false);
        }
        // Compare the engine text (after BOM strip and NUL cut) byte for byte: equal bytes are
        // valid UTF-8 since `self` is, so no separate check is needed.
        let mut r = Reader::new(key.raw()?, key.offset());
        r.skip(4)?;
        let (raw, _) = r.read_string_raw()?;
        let t = engine_text(raw).0;
        Ok(t == self.as_bytes() || godot3_same_text(t, self.as_bytes(), key))
    }

    fn as_str_key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for String {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::String(self[..].into())))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Key::matches(&self.as_str(), key)
    }

    fn as_str_key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for &String {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::String(self[..].into())))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Key::matches(&self.as_str(), key)
    }

    fn as_str_key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for u32 {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::Int(i64::from(*self))))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        i64::from(*self).matches(key)
    }
}

impl Key for u64 {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        i64::try_from(*self)
            .ok()
            .map(|i| Ok(crate::owned::Variant::Int(i)))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        // Godot ints are i64: a u64 above i64::MAX equals no key.
        match i64::try_from(*self) {
            Ok(i) => i.matches(key),
            Err(_) => Ok(false),
        }
    }
}

impl Key for i64 {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::Int(*self)))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Ok(key.ty() == VariantType::Int && key.as_i64()? == *self)
    }
}

impl Key for i32 {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::Int(i64::from(*self))))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        i64::from(*self).matches(key)
    }
}

impl Key for bool {
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(Ok(crate::owned::Variant::Bool(*self)))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Ok(key.ty() == VariantType::Bool && key.as_bool()? == *self)
    }
}

/// Whether the text `t` of the string key `key`, not equal to `s` byte for byte, is `s` as
/// Godot 3 reads it (an overlong form is the character it encodes).
#[cold]
fn godot3_same_text(t: &[u8], s: &[u8], key: &VariantRef<'_>) -> bool {
    key.dialect() == Dialect::Godot3
        && core::str::from_utf8(t).is_err()
        && crate::text::decode_godot3(t).as_bytes() == s
}

impl Key for VariantRef<'_> {
    /// The engine's key identity, by the dialect of the key looked up: the same type and
    /// value, a String and a StringName of the same text (Godot 4), floats with NaN equal to
    /// NaN and `-0.0` to `0.0`; other types compare their values as the engine reads them
    /// ([`to_owned`](VariantRef::to_owned)), as [`Dictionary`](crate::Dictionary) does.
    fn to_variant(&self) -> Option<Result<crate::owned::Variant>> {
        Some(self.to_owned())
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        use VariantType as T;
        let dialect = self.dialect();
        let stringy = |t: T| matches!(t, T::String | T::StringName);
        let (a, b) = (self.ty(), key.ty());
        if a != b && !(dialect == Dialect::Godot4 && stringy(a) && stringy(b)) {
            return Ok(false);
        }
        match a {
            T::Nil => Ok(true),
            T::Int => Ok(key.as_i64()? == self.as_i64()?),
            T::Float => {
                let (x, y) = (key.as_f64()?, self.as_f64()?);
                Ok(x == y || (x.is_nan() && y.is_nan()))
            }
            T::Bool => Ok(key.as_bool()? == self.as_bool()?),
            T::String | T::StringName => {
                let (x, y) = (key.as_text()?, self.as_text()?);
                Ok(x.as_bytes() == y.as_bytes() || x.to_string_lossy() == y.to_string_lossy())
            }
            _ => Ok(crate::owned::key::same_key(
                &self.to_owned()?,
                &key.to_owned()?,
                dialect,
            )),
        }
    }
}

/// A lazy view of a Dictionary.
///
/// # As encoded
///
/// [`len`](DictionaryRef::len) and [`iter`](DictionaryRef::iter) give the pairs as encoded,
/// in byte order, repeated keys included. The engine keeps one entry per key (the position of
/// its first occurrence, the value of its last); [`get`](DictionaryRef::get) finds that
/// value. A typed Dictionary (Godot 4.4+) also converts or drops keys that do not have its key
/// type ([`convert`](crate::convert)); [`VariantRef::to_owned`] gives the dictionary the
/// engine makes.
#[derive(Clone, Copy, Debug)]
pub struct DictionaryRef<'a> {
    value: VariantRef<'a>,
}

impl<'a> DictionaryRef<'a> {
    pub(crate) fn new(value: VariantRef<'a>) -> DictionaryRef<'a> {
        DictionaryRef { value }
    }

    /// The Dictionary as a [`VariantRef`].
    pub fn as_variant(&self) -> VariantRef<'a> {
        self.value
    }

    /// The number of key/value pairs the Dictionary declares.
    pub fn len(&self) -> usize {
        self.value.count()
    }

    /// Whether the Dictionary declares no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key and value types of a typed Dictionary (`Dictionary[String, int]`).
    pub fn key_value_types(&self) -> Result<(ContainerType<'a>, ContainerType<'a>)> {
        container_types::<2>(&self.value).map(|[k, v]| (k, v))
    }

    /// An iterator over the `(key, value)` pairs in encoded (insertion) order; it yields `Err`
    /// for the first malformed key or value and then ends. Keys are yielded sized; a container
    /// value is yielded unsized, as [`ArrayRef::iter`](crate::ArrayRef::iter) explains (see
    /// [`DictIter::resume_after`]).
    pub fn iter(&self) -> DictIter<'a> {
        DictIter {
            seq: Seq::of(&self.value),
        }
    }

    /// The value the engine finds under `key`, `Ok(None)` if no key matches. Keys are
    /// compared in place; values of other pairs are skipped, not decoded; the returned value is
    /// lazy.
    ///
    /// Engines never write a key twice, but crafted input can: the engine then keeps the value
    /// of the last pair with that key, and so does `get`. It reads the whole dictionary to be
    /// sure there is no later pair; [`get_first`](DictionaryRef::get_first) stops at the first
    /// match. Keys are compared as the engine reads them: by its key identity ([`Key`]), Godot 3
    /// text decoded as Godot 3 decodes it, and in a typed Dictionary each key converted to the
    /// key type as the engine converts it (a key it cannot convert, which the engine drops, is
    /// never found).
    ///
    /// ```
    /// // {"a": 1, "a": 2}: a repeated key, as crafted input may have
    /// let bytes = [27, 0, 0, 0, 2, 0, 0, 0,
    ///              4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
    ///              4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0];
    /// let d = gdvariant::parse(&bytes)?.as_dictionary()?;
    /// assert_eq!(d.get("a")?.unwrap().as_i64()?, 2);        // what bytes_to_var gives
    /// assert_eq!(d.get_first("a")?.unwrap().as_i64()?, 1);  // the first as encoded
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn get<K: Key>(&self, key: K) -> Result<Option<VariantRef<'a>>> {
        self.find(&key, false)
    }

    /// The value of the first pair whose key matches `key`, as encoded: stops there, without
    /// reading the rest of the dictionary. Equals [`get`](DictionaryRef::get) unless the
    /// dictionary repeats the key (which engines never write).
    pub fn get_first<K: Key>(&self, key: K) -> Result<Option<VariantRef<'a>>> {
        self.find(&key, true)
    }

    /// The same as [`get`](DictionaryRef::get), which now finds the last matching pair.
    #[deprecated(
        since = "0.2.0",
        note = "`get` finds the value the engine keeps (the last pair's)"
    )]
    pub fn get_last<K: Key>(&self, key: K) -> Result<Option<VariantRef<'a>>> {
        self.find(&key, false)
    }

    fn find<K: Key>(&self, key: &K, first: bool) -> Result<Option<VariantRef<'a>>> {
        if self.value.dialect() == Dialect::Godot3 || self.value.header() & (0xF << 16) != 0 {
            return self.find_as_read(key, first);
        }
        let mut r: Reader<'a> = self.value.body_reader();
        let depth = self.value.depth() + 1;
        let opts = self.value.options();
        // A string key without NUL or leading BOM equals an encoded string key exactly when
        // their bytes are equal, or when the encoded text only differs by what the engine
        // strips: compared in place, without making views of the keys passed.
        let plain = key
            .as_str_key()
            .filter(|s| !s.as_bytes().contains(&0) && !s.starts_with('\u{FEFF}'))
            .filter(|_| depth <= opts.max_depth);
        let mut found = None;
        for _ in 0..self.value.h.count {
            let hit = match plain {
                Some(s) => match string_key(&mut r, &opts) {
                    Some(raw) => {
                        let raw = raw?;
                        raw == s.as_bytes()
                            || (raw.len() > s.len() && engine_text(raw).0 == s.as_bytes())
                    }
                    None => key.matches(&read_value(&mut r, depth, &opts)?)?,
                },
                None => key.matches(&read_value(&mut r, depth, &opts)?)?,
            };
            if hit {
                let h = head(&mut r, depth, &opts, false)?;
                let v = VariantRef::new(h, depth, opts);
                if first {
                    return Ok(Some(v));
                }
                found = Some(v);
                skip_body(&mut r, &h, depth, &opts, false)?;
            } else {
                skip_value(&mut r, depth, &opts)?;
            }
        }
        Ok(found)
    }
}

impl<'a> DictionaryRef<'a> {
    /// [`find`](DictionaryRef::find) comparing each key as the engine reads it: Godot 3 text
    /// decoded, and the keys of a typed Dictionary converted (or dropped) as the engine does.
    #[cold]
    fn find_as_read<K: Key>(&self, key: &K, first: bool) -> Result<Option<VariantRef<'a>>> {
        let checked = crate::convert::checked_type(&self.value)?;
        let opts = self.value.options();
        // In a typed Dictionary, the key looked up is converted to the key type too.
        let lookup = match (&checked, key.to_variant()) {
            (Some(t), Some(k)) => match as_key_type(k?, t, &opts) {
                Some(k) => Some(k),
                None => return Ok(None),
            },
            _ => None,
        };
        let mut found = None;
        let mut it = self.iter();
        while let Some((k, v)) = it.try_next()? {
            let hit = match (&checked, &lookup) {
                (None, _) => key.matches(&k)?,
                (Some(t), None) => match crate::convert::fit_ref(t, &k)? {
                    crate::convert::Fit::Keep => key.matches(&k)?,
                    _ => false,
                },
                (Some(t), Some(l)) => match as_key_type(k.to_owned()?, t, &opts) {
                    Some(k) => crate::owned::key::same_key(&k, l, Dialect::Godot4),
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
        Ok(found)
    }
}

/// `k` as a typed Dictionary of key type `t` holds it: kept, converted, or `None` (dropped).
fn as_key_type(
    k: crate::owned::Variant,
    t: &crate::owned::TypeInfo,
    opts: &crate::ReadOptions,
) -> Option<crate::owned::Variant> {
    use crate::convert::{convert, fit, Fit};
    match fit(t, &k) {
        Fit::Keep => Some(k),
        Fit::Convert => convert(&k, t.builtin()?, opts),
        Fit::Drop => None,
    }
}

/// If the value at `r` is a String or StringName, reads it and returns its raw bytes; `None`
/// (reading nothing) for any other value.
#[inline(always)]
fn string_key<'a>(r: &mut Reader<'a>, opts: &crate::ReadOptions) -> Option<Result<&'a [u8]>> {
    let header = r.peek_u32()?;
    let ty = opts.dialect.type_of(header & 0xFF)?;
    if !matches!(ty, VariantType::String | VariantType::StringName) {
        return None;
    }
    Some(
        r.skip(4)
            .and_then(|()| r.read_string_raw())
            .map(|(raw, _)| raw),
    )
}

impl<'a> IntoIterator for DictionaryRef<'a> {
    type Item = Result<(VariantRef<'a>, VariantRef<'a>)>;
    type IntoIter = DictIter<'a>;
    fn into_iter(self) -> DictIter<'a> {
        self.iter()
    }
}

/// The pairs of a Dictionary; see [`DictionaryRef::iter`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct DictIter<'a> {
    /// Counts pairs: one step reads a key and its value.
    seq: Seq<'a>,
}

impl<'a> DictIter<'a> {
    /// The next pair, `Ok(None)` at the end. After an error it returns `Ok(None)`.
    #[inline]
    pub fn try_next(&mut self) -> Result<Option<(VariantRef<'a>, VariantRef<'a>)>> {
        self.seq.next_with(|s| Ok((s.sized_value()?, s.value()?)))
    }

    /// Continues after the container value just yielded, which you iterated to its end with
    /// `inner`: it is not read again. See [`ArrayIter::resume_after`](crate::ArrayIter::resume_after).
    pub fn resume_after<I: Nested<'a>>(&mut self, inner: &I) -> Result<bool> {
        self.seq.resume_after(inner.seq())
    }
}

impl<'a> crate::seq::private::Sealed<'a> for DictIter<'a> {
    fn seq(&self) -> &Seq<'a> {
        &self.seq
    }
}

impl<'a> Nested<'a> for DictIter<'a> {}

impl<'a> Iterator for DictIter<'a> {
    type Item = Result<(VariantRef<'a>, VariantRef<'a>)>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.seq.remaining()))
    }
}

impl FusedIterator for DictIter<'_> {}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use crate::{parse, ReadOptions};

    #[test]
    fn keys_of_every_kind_find_their_value() {
        // {"pos": 1, 7: 2}
        let bytes = [
            27, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, b'p', b'o', b's', 0, 2, 0, 0, 0, 1, 0,
            0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0,
        ];
        let d = parse(&bytes).unwrap().as_dictionary().unwrap();
        let owned = "pos".to_string();
        assert_eq!(d.get(&owned).unwrap().unwrap().as_i64().unwrap(), 1);
        assert_eq!(d.get(owned).unwrap().unwrap().as_i64().unwrap(), 1);
        assert_eq!(d.get(7u32).unwrap().unwrap().as_i64().unwrap(), 2);
        assert_eq!(d.get(7u64).unwrap().unwrap().as_i64().unwrap(), 2);
        assert!(d.get(u64::MAX).unwrap().is_none());
        assert!(d.get("po").unwrap().is_none());
        let _ = ReadOptions::new();
    }
}
