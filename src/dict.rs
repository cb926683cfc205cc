//! Dictionary views: pair count, typed-dictionary info, a lazy iterator and key lookup.

use alloc::string::String;
use core::iter::FusedIterator;

use crate::array::{container_types, ContainerType};
use crate::error::Result;
use crate::head::{head, head_at, skip_plain, too_deep};
use crate::leaf::plain_string;
use crate::reader::Reader;
use crate::seq::{Nested, Seq};
use crate::strings::{engine_text, BOM};
use crate::types::{layout_index, Dialect, Layout, Shape, VariantType};
use crate::value::VariantRef;
use crate::walker::{read_value, skip_body, skip_one, skip_value, validate_at};

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

    /// The key as a value, for lookups in a typed Dictionary, where the engine converts the key
    /// looked up to the key type; `None` (the default) compares with [`matches`](Key::matches)
    /// instead.
    #[doc(hidden)]
    fn lookup(&self) -> Option<Lookup<'_>> {
        None
    }
}

/// A key looked up, as a value (see [`Key::lookup`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Lookup<'a> {
    /// A String key.
    Str(&'a str),
    /// An int key.
    Int(i64),
    /// A bool key.
    Bool(bool),
    /// An encoded key.
    Value(VariantRef<'a>),
}

impl Key for &str {
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Str(self))
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
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Str(self))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Key::matches(&self.as_str(), key)
    }

    fn as_str_key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for &String {
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Str(self))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Key::matches(&self.as_str(), key)
    }

    fn as_str_key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for u32 {
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Int(i64::from(*self)))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        i64::from(*self).matches(key)
    }
}

impl Key for u64 {
    fn lookup(&self) -> Option<Lookup<'_>> {
        i64::try_from(*self).ok().map(Lookup::Int)
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
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Int(*self))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Ok(key.ty() == VariantType::Int && key.as_i64()? == *self)
    }
}

impl Key for i32 {
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Int(i64::from(*self)))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        i64::from(*self).matches(key)
    }
}

impl Key for bool {
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Bool(*self))
    }

    fn matches(&self, key: &VariantRef<'_>) -> Result<bool> {
        Ok(key.ty() == VariantType::Bool && key.as_bool()? == *self)
    }
}

/// Whether the text `t` of the string key `key`, not equal to `s` byte for byte, is `s` as
/// Godot 3 reads it (an overlong form is the character it encodes).
fn godot3_same_text(t: &[u8], s: &[u8], key: &VariantRef<'_>) -> bool {
    key.dialect() == Dialect::Godot3
        && core::str::from_utf8(t).is_err()
        && crate::strings::decode_godot3(t).as_bytes() == s
}

impl Key for VariantRef<'_> {
    /// The engine's key identity, by the dialect of the key looked up: the same type and
    /// value, a String and a StringName of the same text (Godot 4), floats with NaN equal to
    /// NaN and `-0.0` to `0.0`; other types compare their values as the engine reads them
    /// ([`to_owned`](VariantRef::to_owned)), as [`Dictionary`](crate::Dictionary) does.
    fn lookup(&self) -> Option<Lookup<'_>> {
        Some(Lookup::Value(*self))
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
            _ => self.same_key_as(key, dialect),
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
    pub(crate) value: VariantRef<'a>,
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
            value_due: false,
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

    /// The values of several keys in one walk over the Dictionary: the same as
    /// `keys.map(|k| self.get(k))`, with the first error if any, at the cost of about one
    /// [`get`](DictionaryRef::get) (which reads the whole dictionary anyway, to find the value
    /// the engine keeps). This is the lookup for reading a few fields of a packet.
    ///
    /// String keys are compared in place, in one walk (up to 64 keys); other keys, Godot 3
    /// dictionaries and Dictionaries with a declared key type are looked up one
    /// [`get`](DictionaryRef::get) after the other, with the same answers.
    ///
    /// ```
    /// // var_to_bytes({"seq": 7, "jump": true, "name": "ann"})
    /// let bytes = [27, 0, 0, 0, 3, 0, 0, 0,
    ///              4, 0, 0, 0, 3, 0, 0, 0, b's', b'e', b'q', 0, 2, 0, 0, 0, 7, 0, 0, 0,
    ///              4, 0, 0, 0, 4, 0, 0, 0, b'j', b'u', b'm', b'p', 1, 0, 0, 0, 1, 0, 0, 0,
    ///              4, 0, 0, 0, 4, 0, 0, 0, b'n', b'a', b'm', b'e',
    ///              4, 0, 0, 0, 3, 0, 0, 0, b'a', b'n', b'n', 0];
    /// gdvariant::validate(&bytes)?;
    /// let d = gdvariant::parse(&bytes)?.as_dictionary()?;
    /// let [jump, name, hp] = d.get_many(["jump", "name", "hp"])?;
    /// assert!(jump.unwrap().as_bool()?);
    /// assert_eq!(name.unwrap().as_str()?, "ann");
    /// assert!(hp.is_none());
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn get_many<K: Key, const N: usize>(
        &self,
        keys: [K; N],
    ) -> Result<[Option<VariantRef<'a>>; N]> {
        self.many::<K, N, false>(keys)
    }

    /// [`validate`](VariantRef::validate) of the whole Dictionary and
    /// [`get_many`](DictionaryRef::get_many): `validate`'s error if the Dictionary is not
    /// valid, else the values of `keys`. This is the one-pass way to check a packet and read a
    /// few of its fields (the top value's Dictionary validated is the packet validated, as
    /// [`validate`](crate::validate()) does).
    ///
    /// String keys in a Godot 4 Dictionary without a declared key type (up to 64 keys, none
    /// with a NUL or a leading BOM) are found in the walk that checks it; otherwise, as
    /// `get_many` falls back to one `get` per key, the Dictionary is validated first and the
    /// keys are then looked up one after the other, with the same answers.
    ///
    /// ```
    /// // var_to_bytes({"seq": 7, "jump": true, "name": "ann"})
    /// let bytes = [27, 0, 0, 0, 3, 0, 0, 0,
    ///              4, 0, 0, 0, 3, 0, 0, 0, b's', b'e', b'q', 0, 2, 0, 0, 0, 7, 0, 0, 0,
    ///              4, 0, 0, 0, 4, 0, 0, 0, b'j', b'u', b'm', b'p', 1, 0, 0, 0, 1, 0, 0, 0,
    ///              4, 0, 0, 0, 4, 0, 0, 0, b'n', b'a', b'm', b'e',
    ///              4, 0, 0, 0, 3, 0, 0, 0, b'a', b'n', b'n', 0];
    /// let d = gdvariant::parse(&bytes)?.as_dictionary()?;
    /// let [seq, name] = d.validate_get_many(["seq", "name"])?;
    /// assert_eq!(seq.unwrap().as_i64()?, 7);
    /// assert_eq!(name.unwrap().as_str()?, "ann");
    ///
    /// // The same packet with the name's text cut short: not valid, whatever is looked up.
    /// let cut = &bytes[..bytes.len() - 4];
    /// let d = gdvariant::parse(cut)?.as_dictionary()?;
    /// assert_eq!(d.validate_get_many(["seq"]).unwrap_err(), gdvariant::validate(cut).unwrap_err());
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn validate_get_many<K: Key, const N: usize>(
        &self,
        keys: [K; N],
    ) -> Result<[Option<VariantRef<'a>>; N]> {
        self.many::<K, N, true>(keys)
    }

    /// [`get_many`](DictionaryRef::get_many), and with `CHECK` every pair checked as
    /// `validate` checks it.
    #[inline]
    fn many<K: Key, const N: usize, const CHECK: bool>(
        &self,
        keys: [K; N],
    ) -> Result<[Option<VariantRef<'a>>; N]> {
        let mut found = [None; N];
        let plain = N > 0
            && N <= 64
            && self.value.dialect() == Dialect::Godot4
            && self.value.header() & (0x3 << 16) == 0;
        if plain {
            if CHECK && self.value.header() >> 16 != 0 {
                // The value type's info in the head (a class name's text): checked first, as
                // `validate` checks it.
                let v = &self.value;
                head(
                    &mut Reader::new(v.h.data, v.h.offset),
                    v.depth(),
                    v.options_ref(),
                    true,
                )?;
            }
            let mut probes = [Probe::new(&[]); N];
            let all = probes.iter_mut().zip(&keys).all(|(p, k)| {
                let Some(s) = k.as_str_key() else {
                    return false;
                };
                let t = s.as_bytes();
                *p = Probe::new(t);
                t.iter().all(|&b| b != 0) && !t.starts_with(BOM)
            });
            if all {
                self.scan_str_keys::<CHECK>(&ManyKeys(probes), |mut bits, v| {
                    while bits != 0 {
                        found[bits.trailing_zeros() as usize] = Some(v);
                        bits &= bits - 1;
                    }
                    false
                })?;
                return Ok(found);
            }
        }
        if CHECK {
            self.value.validate()?;
        } else if N == 0 {
            // No `get` to make: nothing is read.
            return Ok(found);
        }
        for (f, k) in found.iter_mut().zip(&keys) {
            *f = self.find(k, false)?;
        }
        Ok(found)
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
        // Keys compare as the engine reads them in Godot 3 (its text decoding) and when the key
        // type is declared (conversions); a declared value type changes no key.
        if self.value.dialect() == Dialect::Godot3 || self.value.header() & (0x3 << 16) != 0 {
            return self.find_as_read(key, first);
        }
        // A string key without NUL or leading BOM equals an encoded string key exactly when
        // their bytes are equal, or when the encoded text only differs by what the engine
        // strips: compared in place, without making views of the keys passed.
        if let Some(s) = key.as_str_key() {
            let s = s.as_bytes();
            if s.iter().all(|&b| b != 0) && !s.starts_with(BOM) {
                return self.find_str(s, first);
            }
        }
        let mut r: Reader<'a> = self.value.body_reader();
        let depth = self.value.depth() + 1;
        let opts = self.value.options();
        let mut found = None;
        for _ in 0..self.value.h.count {
            if key.matches(&read_value(&mut r, depth, &opts)?)? {
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

    /// [`find`](DictionaryRef::find) for the string key `s` (no NUL, no leading BOM): each
    /// String or StringName key is compared in place, its first bytes first ([`Probe`]); any
    /// other key is skipped as a value is ([`scan_str_keys`](DictionaryRef::scan_str_keys)).
    fn find_str(&self, s: &[u8], first: bool) -> Result<Option<VariantRef<'a>>> {
        let mut found = None;
        self.scan_str_keys::<false>(&OneKey(Probe::new(s)), |_, v| {
            found = Some(v);
            first
        })?;
        Ok(found)
    }

    /// The pairs in one walk: `hit` gets the bytes of each String or StringName key (as
    /// encoded, before the engine's BOM strip and NUL cut) and says which of the keys looked up
    /// it is (a bit each, 0 for none); `on` gets those bits and the pair's value, and stops the
    /// walk by returning `true` (never with `CHECK`). The plain pairs (a string key, a fixed or
    /// string value) are walked on the slice; from the first other pair on, the exact way
    /// ([`scan_str_keys_from`](DictionaryRef::scan_str_keys_from)). Every pair is checked as
    /// `get` checks it, up to where `on` stops the walk; with `CHECK`, as `validate` checks it.
    #[inline]
    fn scan_str_keys<const CHECK: bool>(
        &self,
        hit: &impl KeyBits,
        mut on: impl FnMut(u64, VariantRef<'a>) -> bool,
    ) -> Result<()> {
        let v = &self.value;
        let count = v.h.count;
        let depth = v.depth() + 1;
        let opts = v.options_ref();
        if count == 0 || depth > opts.max_depth {
            return self.scan_str_keys_from::<CHECK>(v.body_reader(), count, hit, &mut on);
        }
        let mut r = v.body_reader();
        let mut left = count;
        loop {
            let (taken, rest, bits) =
                scan_plain::<CHECK>(r.rest(), left, hit, opts.dialect.layouts());
            r.advance(taken);
            left = rest;
            if bits == 0 {
                break;
            }
            let h = head_at(&mut r, opts, CHECK)?;
            if on(bits, VariantRef::new(h, depth, *opts)) {
                return Ok(());
            }
            // The engine keeps a repeated key's last value: look on past this one.
            skip_body(&mut r, &h, depth, opts, CHECK)?;
        }
        if left == 0 {
            return Ok(());
        }
        self.scan_str_keys_from::<CHECK>(r, left, hit, &mut on)
    }

    /// The exact walk of [`scan_str_keys`](DictionaryRef::scan_str_keys) over the `left` pairs
    /// at `r`.
    fn scan_str_keys_from<const CHECK: bool>(
        &self,
        mut r: Reader<'a>,
        left: u32,
        hit: &dyn KeyBits,
        on: &mut dyn FnMut(u64, VariantRef<'a>) -> bool,
    ) -> Result<()> {
        let depth = self.value.depth() + 1;
        let opts = self.value.options_ref();
        if left > 0 && depth > opts.max_depth {
            return Err(too_deep(r.offset(), opts));
        }
        for _ in 0..left {
            let bits = match r.peek_u32() {
                Some(header) if opts.dialect.layout(header).shape == Shape::Str => {
                    // With `CHECK`, the key checked as `validate` checks it first; its bytes
                    // are then there to read.
                    let mut k = r;
                    if CHECK {
                        head_at(&mut r, opts, true)?;
                    }
                    k.skip(4)?;
                    let (raw, padded) = k.read_string_padded()?;
                    if !CHECK {
                        r = k;
                    }
                    hit.bits(raw, text_word(padded))
                }
                _ => {
                    skip_pair_part::<CHECK>(&mut r, depth, opts)?;
                    0
                }
            };
            if bits != 0 {
                let h = head(&mut r, depth, opts, CHECK)?;
                if on(bits, VariantRef::new(h, depth, *opts)) {
                    return Ok(());
                }
                skip_body(&mut r, &h, depth, opts, CHECK)?;
            } else {
                skip_pair_part::<CHECK>(&mut r, depth, opts)?;
            }
        }
        Ok(())
    }
}

/// Skips a key or value at `depth` (which the caller checked); with `CHECK`, checked as
/// `validate` checks it.
#[inline]
fn skip_pair_part<const CHECK: bool>(
    r: &mut Reader<'_>,
    depth: u32,
    opts: &crate::types::ReadOptions,
) -> Result<()> {
    if CHECK {
        validate_at(r, depth, opts)
    } else {
        skip_one(r, depth, opts)
    }
}

/// Which of the keys looked up the bytes of a String or StringName key (as encoded) are: a
/// bit each, 0 for none. `word` is the four bytes from where the key's text starts (its first
/// bytes and padding; anything after an empty text), a cheap first test. (A trait, not a
/// closure, so that it is inlined into the walks.)
trait KeyBits {
    fn bits(&self, raw: &[u8], word: u32) -> u64;
}

/// The first four bytes of a string's padded text (which holds four at least unless the
/// text is empty), little-endian; 0 if there are none.
#[inline]
fn text_word(padded: &[u8]) -> u32 {
    padded
        .first_chunk::<4>()
        .map_or(0, |c| u32::from_le_bytes(*c))
}

/// A key looked up (no NUL, no leading BOM) and its first test: the encoded text of a key it
/// matches begins with the same first bytes (up to four), unless that text begins with a BOM
/// (which the engine strips, and which the tests below let through to the full compare).
#[derive(Clone, Copy)]
struct Probe<'k> {
    text: &'k [u8],
    /// The first `min(4, len)` bytes of `text`, little-endian.
    prefix: u32,
    /// Ones over those bytes.
    mask: u32,
}

impl<'k> Probe<'k> {
    #[inline]
    fn new(text: &'k [u8]) -> Probe<'k> {
        let n = text.len().min(4);
        let prefix = match text.first_chunk::<4>() {
            Some(w) => u32::from_le_bytes(*w),
            None => text.iter().rev().fold(0, |w, &b| w << 8 | u32::from(b)),
        };
        Probe {
            text,
            prefix,
            mask: u32::MAX.checked_shr(32 - 8 * n as u32).unwrap_or(0),
        }
    }

    /// Whether the engine text of the key bytes `raw` (`word`: its first padded bytes) is
    /// this key. Unless `raw` begins with a BOM byte, its text is `raw` cut at the first NUL;
    /// equal to the key, it begins with the key's bytes (the key holds no NUL), so a different
    /// first word rules it out before the compare.
    #[inline]
    fn matches(&self, raw: &[u8], word: u32) -> bool {
        (word & self.mask == self.prefix || bom_first(word)) && key_eq(raw, self.text)
    }
}

/// Whether `raw` may carry a BOM, which the engine strips (its first byte starts one): then
/// the first-word test of [`Probe`] does not apply.
#[inline]
fn bom_first(word: u32) -> bool {
    word as u8 == BOM[0]
}

/// One key's text (no NUL, no leading BOM).
struct OneKey<'k>(Probe<'k>);

impl KeyBits for OneKey<'_> {
    // Inlined: input packet validate_get_many -20 % instructions.
    #[inline(always)]
    fn bits(&self, raw: &[u8], word: u32) -> u64 {
        u64::from(self.0.matches(raw, word))
    }
}

/// Up to 64 keys' texts (no NUL, no leading BOM).
struct ManyKeys<'k, const N: usize>([Probe<'k>; N]);

impl<const N: usize> KeyBits for ManyKeys<'_, N> {
    // Inlined: input packet validate_get_many -20 % instructions.
    #[inline(always)]
    fn bits(&self, raw: &[u8], word: u32) -> u64 {
        let mut bits = 0;
        for (i, p) in self.0.iter().enumerate() {
            bits |= u64::from(p.matches(raw, word)) << i;
        }
        bits
    }
}

/// Walks the plain pairs at the start of `rest` (`left` of them at most): a String or
/// StringName key, given to `hit`, and a fixed-size or string value. Stops at the first pair
/// that is not plain (or is cut short), or at a key `hit` gives bits for: returns the bytes
/// taken (whole pairs, and the matching key), the pairs left (the matching one not counted),
/// and the key's bits (0 if none matched). With `CHECK`, a string's text must be plain ASCII
/// (`validate`'s fast path; other text is left to the exact walk). Depths and errors are the
/// caller's: nothing here fails.
#[inline]
fn scan_plain<const CHECK: bool>(
    rest: &[u8],
    mut left: u32,
    hit: &impl KeyBits,
    table: &[Layout; 512],
) -> (usize, u32, u64) {
    let all = rest.len();
    let mut rest = rest;
    while left > 0 {
        let Some((h, after)) = rest.split_first_chunk::<4>() else {
            break;
        };
        // A String key (id 4 in both dialects, no flags) without the table.
        let header = u32::from_le_bytes(*h);
        if header != 4 && table[layout_index(header)].shape != Shape::Str {
            break;
        }
        // The text's first bytes, for the first test (anything past an empty text).
        let word = after.get(4..).map_or(0, text_word);
        let Some((raw, after)) = plain_string::<CHECK>(after) else {
            break;
        };
        let bits = hit.bits(raw, word);
        if bits != 0 {
            return (all - after.len(), left - 1, bits);
        }
        let Some(after) = skip_plain::<CHECK>(after, table) else {
            break;
        };
        rest = after;
        left -= 1;
    }
    (all - rest.len(), left, 0)
}

/// Whether the engine text of the string bytes `raw` is `s` (no NUL, no leading BOM): equal
/// bytes; or `s` and a NUL (the engine cuts the text there); or either after a BOM.
#[inline]
fn key_eq(raw: &[u8], s: &[u8]) -> bool {
    let n = s.len();
    match raw.len().cmp(&n) {
        core::cmp::Ordering::Equal => raw == s,
        core::cmp::Ordering::Less => false,
        // Longer: only text cut at a NUL right after `s`, or after a BOM, can be `s`.
        core::cmp::Ordering::Greater => {
            if raw.first() == BOM.first() {
                key_eq_engine(raw, s)
            } else {
                raw.get(n) == Some(&0) && raw.get(..n).is_some_and(|p| p == s)
            }
        }
    }
}

fn key_eq_engine(raw: &[u8], s: &[u8]) -> bool {
    engine_text(raw).0 == s
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
    /// A key was read alone ([`try_next_key`](DictIter::try_next_key)); its value is next.
    value_due: bool,
}

impl<'a> DictIter<'a> {
    /// The next pair, `Ok(None)` at the end. After an error it returns `Ok(None)`.
    ///
    /// A container key is read to its end to find its value: walking such a key again (its
    /// own pairs, keys holding keys to any depth) reads its bytes again. To read every byte
    /// once, take the key alone with [`try_next_key`](DictIter::try_next_key).
    #[inline]
    pub fn try_next(&mut self) -> Result<Option<(VariantRef<'a>, VariantRef<'a>)>> {
        self.finish_pair()?;
        self.seq.next_with(|s| Ok((s.sized_value()?, s.value()?)))
    }

    /// The next key alone, `Ok(None)` at the end; then its value comes from
    /// [`try_next_value`](DictIter::try_next_value). A container key can be walked with its
    /// own iterator and handed back with [`resume_after`](DictIter::resume_after) before the
    /// value is taken, so that its bytes are read once (else the value's read skips it, as
    /// [`try_next`](DictIter::try_next) does). Asking for the next key first skips the value.
    ///
    /// ```
    /// # fn main() -> gdvariant::Result<()> {
    /// // { [1, 2]: "a" }
    /// let bytes = [
    ///     27, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
    ///     2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0,
    /// ];
    /// let mut it = gdvariant::parse(&bytes)?.as_dictionary()?.iter();
    /// let key = it.try_next_key()?.unwrap();
    /// let mut elements = key.as_array()?.iter();
    /// let mut sum = 0;
    /// while let Some(e) = elements.try_next()? {
    ///     sum += e.as_i64()?;
    /// }
    /// assert!(it.resume_after(&elements)?); // the key is not read again
    /// assert_eq!(it.try_next_value()?.unwrap().as_str()?, "a");
    /// assert_eq!(sum, 3);
    /// assert!(it.try_next_key()?.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub fn try_next_key(&mut self) -> Result<Option<VariantRef<'a>>> {
        self.finish_pair()?;
        let key = self.seq.next_with(Seq::value)?;
        self.value_due = key.is_some();
        Ok(key)
    }

    /// The value of the key [`try_next_key`](DictIter::try_next_key) returned; `Ok(None)`
    /// when no key awaits its value.
    pub fn try_next_value(&mut self) -> Result<Option<VariantRef<'a>>> {
        if !core::mem::take(&mut self.value_due) {
            return Ok(None);
        }
        self.seq.then_with(Seq::value).map(Some)
    }

    /// Skips the value of a key read alone and not followed by its value.
    #[inline]
    fn finish_pair(&mut self) -> Result<()> {
        if self.value_due {
            self.try_next_value()?;
        }
        Ok(())
    }

    /// Continues after the container value (or key, from
    /// [`try_next_key`](DictIter::try_next_key)) just yielded, which you iterated to its end
    /// with `inner`: it is not read again. See
    /// [`ArrayIter::resume_after`](crate::array::ArrayIter::resume_after).
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

/// The Dictionary view of a value.
impl<'a> VariantRef<'a> {
    /// A Dictionary view.
    pub fn as_dictionary(&self) -> Result<DictionaryRef<'a>> {
        self.expect(VariantType::Dictionary)?;
        Ok(DictionaryRef::new(*self))
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use crate::read::parse;
    use crate::types::ReadOptions;

    #[test]
    fn a_key_after_a_bom_is_found_by_every_lookup() {
        // {"\u{FEFF}key": 7}: the engine strips the BOM, so the key is "key". Its first bytes
        // are not the key's: the first-word test must let it through to the full compare.
        let bytes = [
            27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 0xEF, 0xBB, 0xBF, b'k', b'e', b'y', 0,
            0, 2, 0, 0, 0, 7, 0, 0, 0,
        ];
        let d = parse(&bytes).unwrap().as_dictionary().unwrap();
        let seven = |v: Option<crate::value::VariantRef<'_>>| v.unwrap().as_i64().unwrap();
        assert_eq!(seven(d.get("key").unwrap()), 7);
        assert_eq!(seven(d.get_first("key").unwrap()), 7);
        let [key, x] = d.get_many(["key", "x"]).unwrap();
        assert_eq!((seven(key), x.is_none()), (7, true));
        let [x, key] = d.validate_get_many(["x", "key"]).unwrap();
        assert_eq!((seven(key), x.is_none()), (7, true));
    }

    #[test]
    fn validate_get_many_reports_what_validate_reports() {
        // Dictionary[Variant, <class "\xC3(">] {"a": 1}: the value type's class name is not
        // UTF-8. `get_many` reads no head text; `validate`, and so `validate_get_many`, do.
        let bytes = [
            27, 0, 8, 0, 2, 0, 0, 0, 0xC3, b'(', 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0,
            0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
        ];
        let d = parse(&bytes).unwrap().as_dictionary().unwrap();
        assert!(d.get_many(["a"]).unwrap()[0].is_some());
        let e = crate::read::validate(&bytes).unwrap_err();
        assert_eq!(e.offset(), 8);
        assert_eq!(d.validate_get_many(["a"]).unwrap_err(), e);
        assert_eq!(d.validate_get_many::<&str, 0>([]).unwrap_err(), e);
        // A key's text that is not UTF-8 (after the first pair): the same error as `validate`.
        let bytes = [
            27, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
            4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0,
        ];
        let d = parse(&bytes).unwrap().as_dictionary().unwrap();
        assert_eq!(d.get_many(["a"]).unwrap()[0].unwrap().as_i64().unwrap(), 1);
        let e = crate::read::validate(&bytes).unwrap_err();
        assert_eq!(e.offset(), 36);
        assert_eq!(d.validate_get_many(["a"]).unwrap_err(), e);
    }

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

    /// A Godot 4 string value (id 4, or 21 for a StringName) of raw bytes `b`.
    fn string(id: u8, b: &[u8]) -> alloc::vec::Vec<u8> {
        let mut v = alloc::vec![id, 0, 0, 0];
        v.extend_from_slice(&(b.len() as u32).to_le_bytes());
        v.extend_from_slice(b);
        v.resize(v.len().next_multiple_of(4), 0);
        v
    }

    #[test]
    fn string_keys_compare_as_the_engine_reads_them() {
        // Keys the engine reads as "key" (a BOM stripped, text cut at a NUL, a StringName),
        // keys it does not ("keys", "ke", "xey", "\u{FEFF}\u{FEFF}key"), a non-string key,
        // a container value: each paired with its index as an int value.
        let keys: [&[u8]; 9] = [
            b"ke",
            b"keys",
            b"xey",
            b"\xEF\xBB\xBF\xEF\xBB\xBFkey",
            b"key\0zz",
            b"\xEF\xBB\xBFkey",
            b"key",
            b"\xEF\xBB\xBFk\0",
            b"key",
        ];
        let mut bytes = alloc::vec![27, 0, 0, 0, 11, 0, 0, 0];
        // 7: [] (a container value, skipped the exact way)
        bytes.extend_from_slice(&[2, 0, 0, 0, 7, 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0]);
        for (i, k) in keys.iter().enumerate() {
            let id = if i == 6 { 21 } else { 4 };
            bytes.extend_from_slice(&string(id, k));
            bytes.extend_from_slice(&[2, 0, 0, 0, i as u8, 0, 0, 0]);
        }
        // A value that is not plain after a key that does not match.
        bytes.extend_from_slice(&string(4, b"arr"));
        bytes.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]);
        let d = parse(&bytes).unwrap().as_dictionary().unwrap();
        let at = |k: &str| d.get_first(k).unwrap().map(|v| v.as_i64().unwrap());
        // `get` finds the value the engine keeps: the last pair's.
        let last = |k: &str| d.get(k).unwrap().map(|v| v.as_i64().unwrap());
        assert_eq!(at("key"), Some(4));
        assert_eq!(last("key"), Some(8));
        assert_eq!(at("ke"), Some(0));
        assert_eq!(at("keys"), Some(1));
        assert_eq!(at("\u{FEFF}key"), Some(3));
        assert_eq!(at("k"), Some(7));
        assert_eq!(at("ey"), None);
        assert_eq!(at("y"), None);
        assert_eq!(at(""), None);
        assert_eq!(
            d.get(7).unwrap().unwrap().ty(),
            crate::types::VariantType::Array
        );
        assert_eq!(
            d.get("arr").unwrap().unwrap().ty(),
            crate::types::VariantType::Array
        );
        // Cut short inside the last value: found before, an error after.
        let cut = &bytes[..bytes.len() - 2];
        let d = parse(cut).unwrap().as_dictionary().unwrap();
        assert_eq!(d.get_first("key").unwrap().unwrap().as_i64().unwrap(), 4);
        // The last "key" is before the cut, but `get` must read on to know it is the last.
        assert!(d.get("key").is_err());
        let e = d.get("nope").unwrap_err();
        // The int's payload starts 2 bytes before the cut: 2 of its 4 bytes are missing.
        assert_eq!(
            e.kind(),
            crate::error::ErrorKind::UnexpectedEof { needed: 2 }
        );
        assert_eq!(e.offset(), cut.len() - 2);
    }
}
