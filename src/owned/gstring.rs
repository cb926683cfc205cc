//! [`GString`]: the text of an owned String or StringName, short texts stored inline.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use core::borrow::Borrow;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

use arrayvec::ArrayString;

/// The longest text a [`GString`] keeps inline, in bytes.
pub const INLINE_CAPACITY: usize = 24;

/// The text of an owned [`Variant::String`](crate::Variant::String) or
/// [`Variant::StringName`](crate::Variant::StringName) (and of a PackedStringArray's
/// elements): texts of up to [`INLINE_CAPACITY`] bytes are stored inline, longer ones in a
/// [`String`].
///
/// Dictionary keys, property names and most strings of a game packet are short, so converting
/// a received packet ([`VariantRef::to_owned`](crate::VariantRef::to_owned)) allocates nothing
/// for them. It reads like a `&str` (it derefs to `str`, compares with `&str` and `String`,
/// prints with `Display`) and is built from either:
///
/// ```
/// use gdvariant::{GString, Variant};
/// let s = GString::from("hp");
/// assert_eq!(s, "hp");
/// assert_eq!(s.len(), 2);                       // any `str` method
/// assert!(s.is_inline());
/// let v = Variant::from(String::from("a long text that does not fit inline"));
/// assert_eq!(v.as_str(), Some("a long text that does not fit inline"));
/// let Variant::String(t) = &v else { unreachable!() };
/// assert!(t.starts_with("a long") && !t.is_inline());
/// let back: String = t.clone().into();
/// ```
///
/// Equality, ordering and hashing are those of the text (as for `str`), whatever the storage.
pub struct GString(Repr);

#[derive(Clone)]
enum Repr {
    Inline(ArrayString<INLINE_CAPACITY>),
    Heap(String),
}

impl GString {
    /// The empty text.
    #[inline]
    pub const fn new() -> GString {
        GString(Repr::Inline(ArrayString::new_const()))
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(s) => s.as_str(),
            Repr::Heap(s) => s.as_str(),
        }
    }

    /// Whether the text is stored inline (it is at most [`INLINE_CAPACITY`] bytes long and was
    /// not built from a `String`'s allocation).
    #[inline]
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline(_))
    }

    /// Makes this the text of `raw`, at most 8 ASCII bytes (checked by the caller: a byte's high
    /// bit would be dropped, and bytes past the eighth), inline, in place: for filling a text in
    /// its final position instead of building it elsewhere and moving it there. The bytes are
    /// pushed one at a time (for a few bytes, cheaper than a UTF-8 check and a copy call); the
    /// text cleared first, the mask and the bound let the compiler see that every push is one
    /// byte that fits, so the loop has no capacity check or branch per byte.
    #[inline]
    pub(crate) fn set_short_ascii(&mut self, raw: &[u8]) {
        let fill = |a: &mut ArrayString<INLINE_CAPACITY>| {
            a.clear();
            for &b in raw.iter().take(8) {
                let _ = a.try_push(char::from(b & 0x7F));
            }
        };
        match &mut self.0 {
            Repr::Inline(a) => fill(a),
            Repr::Heap(_) => {
                let mut a = ArrayString::new();
                fill(&mut a);
                self.0 = Repr::Inline(a);
            }
        }
    }

    /// Appends `s`.
    pub fn push_str(&mut self, s: &str) {
        match &mut self.0 {
            Repr::Inline(a) => {
                if a.try_push_str(s).is_err() {
                    let mut h = String::with_capacity(a.len() + s.len());
                    h.push_str(a.as_str());
                    h.push_str(s);
                    self.0 = Repr::Heap(h);
                }
            }
            Repr::Heap(h) => h.push_str(s),
        }
    }

    /// The text as a `String` (no copy when it is stored in one).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Inline(s) => String::from(s.as_str()),
            Repr::Heap(s) => s,
        }
    }
}

impl Clone for GString {
    /// An inline text is copied straight (its `Copy` storage), not through the derived
    /// enum clone.
    #[inline]
    fn clone(&self) -> GString {
        match &self.0 {
            Repr::Inline(a) => GString(Repr::Inline(*a)),
            Repr::Heap(s) => GString(Repr::Heap(s.clone())),
        }
    }

    /// Copies an inline text over an inline text in place (no temporary: `*out = x.clone()`
    /// goes through one, whose overlapping stores read back whole stall the CPU).
    #[inline]
    fn clone_from(&mut self, source: &GString) {
        match (&mut self.0, &source.0) {
            (Repr::Inline(d), Repr::Inline(s)) => *d = *s,
            _ => *self = source.clone(),
        }
    }
}

impl Default for GString {
    #[inline]
    fn default() -> GString {
        GString::new()
    }
}

impl Deref for GString {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for GString {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for GString {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl Borrow<str> for GString {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for GString {
    /// Copies `s` (inline when it fits).
    #[inline]
    fn from(s: &str) -> GString {
        match ArrayString::from(s) {
            Ok(a) => GString(Repr::Inline(a)),
            Err(_) => GString(Repr::Heap(String::from(s))),
        }
    }
}

impl From<&String> for GString {
    #[inline]
    fn from(s: &String) -> GString {
        GString::from(s.as_str())
    }
}

impl From<String> for GString {
    /// Keeps the `String`'s allocation when the text is too long to be inline; a short text is
    /// moved inline (and the `String` freed).
    #[inline]
    fn from(s: String) -> GString {
        match ArrayString::from(s.as_str()) {
            Ok(a) => GString(Repr::Inline(a)),
            Err(_) => GString(Repr::Heap(s)),
        }
    }
}

impl From<Box<str>> for GString {
    fn from(s: Box<str>) -> GString {
        GString::from(String::from(s))
    }
}

impl From<Cow<'_, str>> for GString {
    fn from(s: Cow<'_, str>) -> GString {
        match s {
            Cow::Borrowed(s) => GString::from(s),
            Cow::Owned(s) => GString::from(s),
        }
    }
}

impl From<char> for GString {
    fn from(c: char) -> GString {
        GString::from(c.encode_utf8(&mut [0; 4]) as &str)
    }
}

impl From<GString> for String {
    #[inline]
    fn from(s: GString) -> String {
        s.into_string()
    }
}

impl core::str::FromStr for GString {
    type Err = core::convert::Infallible;
    fn from_str(s: &str) -> Result<GString, Self::Err> {
        Ok(GString::from(s))
    }
}

impl FromIterator<char> for GString {
    fn from_iter<I: IntoIterator<Item = char>>(iter: I) -> GString {
        let mut s = GString::new();
        for c in iter {
            s.push_str(c.encode_utf8(&mut [0; 4]));
        }
        s
    }
}

impl<'a> FromIterator<&'a str> for GString {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> GString {
        let mut s = GString::new();
        for x in iter {
            s.push_str(x);
        }
        s
    }
}

impl fmt::Display for GString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for GString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for GString {
    #[inline]
    fn eq(&self, other: &GString) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for GString {}

impl PartialOrd for GString {
    fn partial_cmp(&self, other: &GString) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for GString {
    fn cmp(&self, other: &GString) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for GString {
    /// Hashes as the `str` (so that `Borrow<str>` lookups work).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

macro_rules! eq_text {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for GString {
            #[inline]
            fn eq(&self, other: &$t) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<GString> for $t {
            #[inline]
            fn eq(&self, other: &GString) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}
eq_text!(str, String);

impl PartialEq<&str> for GString {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<GString> for &str {
    #[inline]
    fn eq(&self, other: &GString) -> bool {
        *self == other.as_str()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for GString {
    /// Serializes as a `str`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_storage() {
        assert!(core::mem::size_of::<GString>() <= 32);
        let short = GString::from("x".repeat(INLINE_CAPACITY).as_str());
        assert!(short.is_inline());
        let long = GString::from("x".repeat(INLINE_CAPACITY + 1).as_str());
        assert!(!long.is_inline());
        assert_eq!(long.len(), INLINE_CAPACITY + 1);
        assert!(GString::from(String::from("ab")).is_inline());
    }

    #[test]
    fn set_short_ascii_replaces_any_text() {
        let mut s = GString::from("x".repeat(INLINE_CAPACITY + 10).as_str());
        assert!(!s.is_inline());
        s.set_short_ascii(b"hp");
        assert_eq!(s, "hp");
        assert!(s.is_inline());
        s.set_short_ascii(b"buttons");
        assert_eq!(s, "buttons");
        s.set_short_ascii(b"");
        assert_eq!(s, "");
    }

    #[test]
    fn push_and_compare() {
        let mut s = GString::from("abc");
        s.push_str(&"d".repeat(30));
        assert!(!s.is_inline());
        assert_eq!(s.len(), 33);
        assert!(s.starts_with("abcd"));
        let t: GString = "αβγ".chars().collect();
        assert_eq!(t, "αβγ");
        assert_eq!("αβγ", t);
        assert_eq!(String::from("αβγ"), t);
        let (a, b) = (GString::from("a"), GString::from("b"));
        assert!(a < b);
        assert_eq!(format!("{t} {t:?}"), "αβγ \"αβγ\"");
        assert_eq!(String::from(t), "αβγ");
    }
}
