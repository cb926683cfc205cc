//! [`Dictionary`]: the owned Dictionary, its entries in insertion order, with the engine's key
//! identity and O(1) expected insert and lookup.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::index::{ContentHash, Index, KeyState, SCAN_MAX};
use super::key::{key_info, same_key, str_hash};
use super::type_info::{TypeInfo, UNTYPED};
use super::variant::{Dictionary, Extra, Variant};
use crate::types::Dialect;

impl Extra {
    fn is_empty(&self) -> bool {
        self.index.is_none() && self.types == (TypeInfo::None, TypeInfo::None)
    }
}

impl Dictionary {
    /// An empty, untyped dictionary.
    pub fn new() -> Dictionary {
        Dictionary::default()
    }

    /// An empty, untyped dictionary with room for `n` entries.
    pub fn with_capacity(n: usize) -> Dictionary {
        Dictionary {
            entries: Vec::with_capacity(n),
            extra: None,
        }
    }

    /// An untyped dictionary of `entries`, kept exactly as given: repeated keys are **not**
    /// merged (lookups and inserts then find the first of them). This is how to build the
    /// dictionary of a packet that repeats a key, as a hostile or hand-made packet may (the
    /// engine's `bytes_to_var` merges them). Use [`FromIterator`] (`collect`) or
    /// [`insert`](Dictionary::insert) to merge.
    pub fn from_entries(entries: Vec<(Variant, Variant)>) -> Dictionary {
        let mut d = Dictionary {
            entries,
            extra: None,
        };
        d.reindex(Dialect::Godot4);
        d
    }

    /// A dictionary of `entries` (kept exactly as given, as in
    /// [`from_entries`](Dictionary::from_entries)) with the key type `key_type` and the value
    /// type `value_type` ([`TypeInfo::None`] for either leaves it untyped).
    ///
    /// ```
    /// use gdvariant::{Dictionary, owned::TypeInfo, VariantType};
    /// let mut d = Dictionary::typed(TypeInfo::Builtin(VariantType::String), TypeInfo::None, vec![]);
    /// d.insert("hp", 10);
    /// assert_eq!(d.key_type(), &TypeInfo::Builtin(VariantType::String));
    /// assert_eq!(d.value_type(), &TypeInfo::None);
    /// ```
    pub fn typed(
        key_type: TypeInfo,
        value_type: TypeInfo,
        entries: Vec<(Variant, Variant)>,
    ) -> Dictionary {
        let mut d = Dictionary::from_entries(entries);
        d.set_types(key_type, value_type);
        d
    }

    /// The key type; [`TypeInfo::None`] when untyped.
    #[inline]
    pub fn key_type(&self) -> &TypeInfo {
        self.extra.as_deref().map_or(&UNTYPED, |x| &x.types.0)
    }

    /// The value type; [`TypeInfo::None`] when untyped.
    #[inline]
    pub fn value_type(&self) -> &TypeInfo {
        self.extra.as_deref().map_or(&UNTYPED, |x| &x.types.1)
    }

    /// Sets the key and value types ([`TypeInfo::None`] for either leaves it untyped).
    pub fn set_types(&mut self, key_type: TypeInfo, value_type: TypeInfo) {
        let typed = key_type != TypeInfo::None || value_type != TypeInfo::None;
        match &mut self.extra {
            Some(x) => x.types = (key_type, value_type),
            None if typed => {
                self.extra = Some(Box::new(Extra {
                    types: (key_type, value_type),
                    index: None,
                    hash: ContentHash::default(),
                }))
            }
            None => {}
        }
        if self.extra.as_deref().is_some_and(Extra::is_empty) {
            self.extra = None;
        }
    }

    /// Sets the key type, keeping the value type.
    pub fn set_key_type(&mut self, key_type: TypeInfo) {
        let value_type = self.value_type().clone();
        self.set_types(key_type, value_type);
    }

    /// Sets the value type, keeping the key type.
    pub fn set_value_type(&mut self, value_type: TypeInfo) {
        let key_type = self.key_type().clone();
        self.set_types(key_type, value_type);
    }

    /// Whether the key or the value type is set.
    #[inline]
    pub fn is_typed(&self) -> bool {
        self.extra
            .as_deref()
            .is_some_and(|x| x.types != (TypeInfo::None, TypeInfo::None))
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in insertion order.
    #[inline]
    pub fn entries(&self) -> &[(Variant, Variant)] {
        &self.entries
    }

    /// The entries in insertion order, the values mutable (a key cannot change in place: it
    /// would break the index; remove and insert instead).
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Variant, &mut Variant)> + '_ {
        self.changed();
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> core::slice::Iter<'_, (Variant, Variant)> {
        self.entries.iter()
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Variant> + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in insertion order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Variant> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in insertion order, mutable.
    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut Variant> + '_ {
        self.changed();
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The entries, taken out (the type info is dropped).
    pub fn into_entries(mut self) -> Vec<(Variant, Variant)> {
        core::mem::take(&mut self.entries)
    }

    /// Removes every entry, keeping the type info.
    pub fn clear(&mut self) {
        self.changed();
        self.entries.clear();
        if let Some(x) = &mut self.extra {
            x.index = None;
        }
        if self.extra.as_deref().is_some_and(Extra::is_empty) {
            self.extra = None;
        }
    }

    /// Appends an entry **without** looking for the same key (the dictionary then repeats the
    /// key, as in [`from_entries`](Dictionary::from_entries)). Lookups find the first of
    /// repeated keys.
    pub fn push_entry(&mut self, key: impl Into<Variant>, value: impl Into<Variant>) {
        self.changed();
        let key = key.into();
        let at = self.entries.len();
        if let Some(index) = self.index_mut() {
            let info = key_info(&key, Dialect::Godot4, &index.state);
            if info.matchable {
                index.insert(info.hash, at);
            }
        }
        self.entries.push((key, value.into()));
        if self.index().is_none() && self.entries.len() > SCAN_MAX {
            self.reindex(Dialect::Godot4);
        }
    }

    /// Forgets the hash the dictionary keeps of itself (before any change to an entry).
    #[inline]
    pub(crate) fn changed(&mut self) {
        if let Some(x) = self.extra.as_deref_mut() {
            x.hash.forget();
        }
    }

    #[inline]
    fn index(&self) -> Option<&Index> {
        self.extra.as_deref().and_then(|x| x.index.as_ref())
    }

    #[inline]
    fn index_mut(&mut self) -> Option<&mut Index> {
        self.extra.as_deref_mut().and_then(|x| x.index.as_mut())
    }

    /// Builds the index (or drops it) for the current entries: entries beyond the first of a
    /// repeated key are entered too, after it.
    fn reindex(&mut self, rule: Dialect) {
        if self.entries.len() <= SCAN_MAX {
            if let Some(x) = &mut self.extra {
                x.index = None;
            }
            if self.extra.as_deref().is_some_and(Extra::is_empty) {
                self.extra = None;
            }
            return;
        }
        let mut index = Index::with_capacity(KeyState::new(), self.entries.len());
        for (at, (k, _)) in self.entries.iter().enumerate() {
            let info = key_info(k, rule, &index.state);
            if info.matchable {
                index.insert(info.hash, at);
            }
        }
        match &mut self.extra {
            Some(x) => x.index = Some(index),
            None => {
                self.extra = Some(Box::new(Extra {
                    types: (TypeInfo::None, TypeInfo::None),
                    index: Some(index),
                    hash: ContentHash::default(),
                }))
            }
        }
    }

    /// The position of the entry whose key is the same key as `key` under `rule`.
    fn position(&self, key: &Variant, rule: Dialect) -> Option<usize> {
        match self.index() {
            Some(index) => {
                let info = key_info(key, rule, &index.state);
                if !info.matchable {
                    return None;
                }
                index.find(info.hash, |at| same_key(&self.entries[at].0, key, rule))
            }
            None => self
                .entries
                .iter()
                .position(|(k, _)| same_key(k, key, rule)),
        }
    }

    /// The value of the entry whose key is the same key as `key` (see the
    /// [type docs](Dictionary) for which keys are the same).
    ///
    /// ```
    /// use gdvariant::{Dictionary, Variant};
    /// let mut d = Dictionary::new();
    /// d.insert("a", 1);
    /// assert_eq!(d.get(&"a".into()), Some(&Variant::Int(1)));
    /// assert_eq!(d.get(&Variant::StringName("a".into())), Some(&Variant::Int(1)));
    /// assert_eq!(d.get_str("a"), Some(&Variant::Int(1)));
    /// ```
    pub fn get(&self, key: &Variant) -> Option<&Variant> {
        let at = self.position(key, Dialect::Godot4)?;
        Some(&self.entries[at].1)
    }

    /// Whether a key is the same key as `key`.
    pub fn contains_key(&self, key: &Variant) -> bool {
        self.position(key, Dialect::Godot4).is_some()
    }

    /// The value of the entry whose key is the String or StringName `key`.
    pub fn get_str(&self, key: &str) -> Option<&Variant> {
        let is = |k: &Variant| matches!(k, Variant::String(s) | Variant::StringName(s) if s == key);
        let at = match self.index() {
            Some(index) => index.find(str_hash(key, &index.state), |at| is(&self.entries[at].0))?,
            None => self.entries.iter().position(|(k, _)| is(k))?,
        };
        Some(&self.entries[at].1)
    }

    /// A mutable reference to the value of the entry whose key is the same key as `key`.
    pub fn get_mut(&mut self, key: &Variant) -> Option<&mut Variant> {
        let at = self.position(key, Dialect::Godot4)?;
        self.changed();
        Some(&mut self.entries[at].1)
    }

    /// Inserts `value` under `key`. If a key is the same key (see the [type docs](Dictionary)),
    /// its entry keeps its key and position and gets the new value (the old one is returned),
    /// as in the engine; otherwise the entry is appended. O(1) expected time.
    ///
    /// ```
    /// use gdvariant::{Dictionary, Variant};
    /// let mut d = Dictionary::new();
    /// d.insert("a", 1);
    /// d.insert("b", 2);
    /// assert_eq!(d.insert("a", 3), Some(Variant::Int(1)));
    /// assert_eq!(d.entries()[0], ("a".into(), Variant::Int(3)));
    /// ```
    pub fn insert(
        &mut self,
        key: impl Into<Variant>,
        value: impl Into<Variant>,
    ) -> Option<Variant> {
        self.insert_with(Dialect::Godot4, key.into(), value.into())
    }

    /// [`insert`](Dictionary::insert) with the key identity of `dialect`'s engine.
    ///
    /// Godot 3's rule differs from Godot 4's in a few corners, as Godot 3.2's `bytes2var` and
    /// `Dictionary` do: a String and a StringName are never the same key; a NaN float equals a
    /// NaN float at every level (inside arrays too); a dictionary key is a distinct instance
    /// (two dictionary keys are never the same key); a PackedFloat32Array (PoolRealArray)
    /// equals another only when their elements have the same bits and none is NaN. Lookups
    /// ([`get`](Dictionary::get)) always use Godot 4's rule.
    ///
    /// ```
    /// use gdvariant::{Dialect, Dictionary, Variant};
    /// let mut d = Dictionary::new();
    /// d.insert_with(Dialect::Godot3, vec![Variant::Float(f64::NAN)].into(), 1.into());
    /// d.insert_with(Dialect::Godot3, vec![Variant::Float(f64::NAN)].into(), 2.into());
    /// assert_eq!(d.len(), 1); // Godot 3: [NAN] and [NAN] are the same key
    /// d.insert(vec![Variant::Float(f64::NAN)], 3);
    /// assert_eq!(d.len(), 2); // Godot 4: an array holding a NaN equals no array
    /// ```
    pub fn insert_with(
        &mut self,
        dialect: Dialect,
        key: Variant,
        value: Variant,
    ) -> Option<Variant> {
        let (at, found) = self.find_or_push(dialect, key);
        let old = core::mem::replace(&mut self.entries[at].1, value);
        found.then_some(old)
    }

    /// The position of the entry whose key is the same key as `key` under `dialect`'s rule
    /// and `true`; or, when there is none, `key` appended (with a Nil value) and its position
    /// and `false`. O(1) expected time. (The readers that write bytes without a tree keep the
    /// keys of a Dictionary being written in one, to find repeated keys by this one identity.)
    pub(crate) fn find_or_push(&mut self, dialect: Dialect, key: Variant) -> (usize, bool) {
        // The caller sets the value found or pushed.
        self.changed();
        match self.index() {
            Some(index) => {
                let info = key_info(&key, dialect, &index.state);
                let at = self.entries.len();
                if info.matchable {
                    let entries = &self.entries;
                    if let Some(found) =
                        index.find(info.hash, |at| same_key(&entries[at].0, &key, dialect))
                    {
                        return (found, true);
                    }
                    if let Some(index) = self.index_mut() {
                        index.insert(info.hash, at);
                    }
                }
                self.entries.push((key, Variant::Nil));
                (at, false)
            }
            None => {
                if let Some(found) = self
                    .entries
                    .iter()
                    .position(|(k, _)| same_key(k, &key, dialect))
                {
                    return (found, true);
                }
                self.entries.push((key, Variant::Nil));
                if self.entries.len() > SCAN_MAX {
                    self.reindex(dialect);
                }
                (self.entries.len() - 1, false)
            }
        }
    }

    /// Removes the entry whose key is the same key as `key`, keeping the order of the others;
    /// returns its value. O(n), as removing from the middle of a `Vec`.
    pub fn remove(&mut self, key: &Variant) -> Option<Variant> {
        let at = self.position(key, Dialect::Godot4)?;
        self.changed();
        let (_, v) = self.entries.remove(at);
        if self.entries.len() <= SCAN_MAX {
            self.reindex(Dialect::Godot4);
        } else if let Some(index) = self.index_mut() {
            index.remove_position(at);
        }
        Some(v)
    }

    /// Keeps the entries for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&Variant, &mut Variant) -> bool) {
        self.changed();
        let before = self.entries.len();
        self.entries.retain_mut(|(k, v)| keep(k, v));
        if self.entries.len() != before {
            self.reindex(Dialect::Godot4);
        }
    }

    /// The dictionary built by `to_owned`: `entries` already merged by `rule`, and `index`
    /// when it has more than [`SCAN_MAX`] of them.
    #[inline]
    pub(crate) fn from_parts(
        entries: Vec<(Variant, Variant)>,
        types: Option<Box<(TypeInfo, TypeInfo)>>,
        index: Option<Index>,
    ) -> Dictionary {
        let extra = match (types, index) {
            (None, None) => None,
            (t, index) => Some(Box::new(Extra {
                types: t.map_or((TypeInfo::None, TypeInfo::None), |b| *b),
                index,
                hash: ContentHash::default(),
            })),
        };
        Dictionary { entries, extra }
    }
}

impl<K: Into<Variant>, V: Into<Variant>> FromIterator<(K, V)> for Dictionary {
    /// Collects pairs with [`insert`](Dictionary::insert) semantics (a later pair with the
    /// same key replaces the value in place).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut d = Dictionary::with_capacity(iter.size_hint().0.min(1 << 16));
        d.extend(iter);
        d
    }
}

impl<K: Into<Variant>, V: Into<Variant>> Extend<(K, V)> for Dictionary {
    /// Inserts each pair with [`insert`](Dictionary::insert) semantics.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Dictionary {
    type Item = (Variant, Variant);
    type IntoIter = alloc::vec::IntoIter<(Variant, Variant)>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_entries().into_iter()
    }
}

impl<'d> IntoIterator for &'d Dictionary {
    type Item = &'d (Variant, Variant);
    type IntoIter = core::slice::Iter<'d, (Variant, Variant)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl PartialEq for Dictionary {
    /// The same type info and the same entries in the same order, compared with `Variant`'s
    /// `==` (floats by their bits).
    fn eq(&self, other: &Dictionary) -> bool {
        self.key_type() == other.key_type()
            && self.value_type() == other.value_type()
            && self.entries == other.entries
    }
}
impl Eq for Dictionary {}
