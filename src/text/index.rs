//! The text printer's first pass: one walk that checks the whole value and records, for every
//! dictionary of two or more entries, the offset of each key (which the second pass sorts in
//! the engine's order), finds the keys the engine takes for the same key (it keeps one entry
//! for them: the first key, the last value), and finds the values whose engine value is not
//! what their bytes say (printed from [`to_owned`](VariantRef::to_owned)).
//!
//! Repeated keys are found by their key hash, the owned tree's ([`crate::owned::key`]): a leaf
//! key is hashed as the engine reads it, a container key bottom up as the walk reads it (each
//! container's content once, whatever the depth of keys nested in keys), so only keys sharing
//! a hash (rare, unless a key repeats) are compared, on their owned values.

use core::hash::BuildHasher;
use std::vec::Vec;

use crate::convert;
use crate::error::Result;
use crate::head::head;
use crate::owned::index::KeyState;
use crate::owned::key::{
    container_key_hash, content_hash, content_hasher, same_key, write_container, KeyInfo, Pos,
};
use crate::owned::TypeInfo;
use crate::reader::Reader;
use crate::types::{Dialect, VariantType as T};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// A key offset, relative to the printed value's start: `u32` below 4 GiB of input.
pub(super) trait Off: Copy + Default {
    /// A slot of a dropped (repeated) key: sorts after every offset.
    const GONE: Self;
    /// The offset `x`.
    fn of(x: usize) -> Self;
    /// The offset as a `usize`.
    fn get(self) -> usize;
}

impl Off for u32 {
    const GONE: u32 = u32::MAX;
    #[inline]
    fn of(x: usize) -> u32 {
        // Only used when the whole input fits in a u32 (checked by `print`).
        x as u32
    }
    #[inline]
    fn get(self) -> usize {
        self as usize
    }
}

impl Off for usize {
    const GONE: usize = usize::MAX;
    #[inline]
    fn of(x: usize) -> usize {
        x
    }
    #[inline]
    fn get(self) -> usize {
        self
    }
}

/// The key offsets of every dictionary of two or more entries, and the containers printed
/// from their decoded value.
pub(super) struct Index<O> {
    /// (the dictionary's offset, where its keys start in `keys`), by offset.
    pub(super) dicts: Vec<(O, O)>,
    /// Each such dictionary's key offsets, in byte order until the printer sorts them. In a
    /// dictionary that repeats a key, the later ones are dropped ([`Off::GONE`], after the
    /// others) and the first one's offset has its low bit set (offsets are multiples of 4).
    pub(super) keys: Vec<O>,
    /// For each key whose low bit is set: (its offset, the offset of the last same key, whose
    /// value is the one printed), by offset.
    pub(super) repeats: Vec<(O, O)>,
    /// Whether the engine's value is not what the bytes say in a way printed from the decoded
    /// value: a typed container holding elements the engine converts or drops, a dictionary
    /// inside a key repeating a key (the engine hashes and compares it merged), or a
    /// dictionary repeating a key more ways than [`MAX_KEY_CLASSES`] of one hash (see
    /// [`drop_repeated_keys`]).
    pub(super) differs: bool,
}

/// The most keys of one hash that are not the same key, in a dictionary that repeats a key,
/// that [`drop_repeated_keys`] tells apart; beyond, the value is printed from `to_owned`.
pub(super) const MAX_KEY_CLASSES: usize = 64;

/// The most keys of a dictionary whose hashes [`drop_repeated_keys`] keeps (8 bytes each, in
/// its scratch: 128 KiB at most); a larger dictionary's offsets are sorted by hash in place.
const SCRATCH_KEYS: usize = 16_384;

/// Finds the keys of a dictionary (at `keys`, offsets relative to `v`, in byte order) that
/// are the same key for the engine, which keeps one entry for them (the first key, the last
/// value): drops the later ones ([`Off::GONE`], moved to the end), marks the first one (low
/// bit) and notes the last one in `repeats`. Returns whether it could: `false` when one hash
/// holds more than [`MAX_KEY_CLASSES`] different keys.
///
/// A key's hash is the owned tree's: a leaf key's read from its bytes
/// ([`VariantRef::leaf_key_info`]), a container key's from `containers` (by offset, from
/// [`index`]'s walk); a key that equals no key (a non-null object, ...) is left alone. The keys
/// are ordered by hash (32 bits of it), and only keys sharing one (rare, unless a key repeats)
/// are compared, with the engine's key identity on their owned values
/// ([`crate::owned::Dictionary`]'s). Up to [`SCRATCH_KEYS`] keys, each hash is taken once and
/// sorted with the key's place in `scratch` (8 bytes a key, reused); a larger dictionary's
/// offsets are sorted in place (a hash taken at each comparison), then back into byte order.
/// Memory: `scratch`, an entry in `repeats` per repeated key, and the owned keys of one hash
/// at a time.
pub(super) fn drop_repeated_keys<O: Off>(
    keys: &mut [O],
    containers: &[(O, KeyInfo)],
    v: &VariantRef<'_>,
    repeats: &mut Vec<(O, O)>,
    scratch: &mut Vec<u64>,
) -> Result<bool> {
    let state = KeyState::new();
    // 32 bits of the key's hash; `None` for a key that equals no key.
    let hash = |k: O| -> Result<Option<u64>> {
        let info = match containers.binary_search_by_key(&k.get(), |c| c.0.get()) {
            Ok(i) => Some(containers[i].1),
            Err(_) => key_at(v, k.get() & !1)?.leaf_key_info(&state)?,
        };
        Ok(info
            .filter(|i| i.matchable)
            .map(|i| (i.hash ^ (i.hash >> 32)) & 0xFFFF_FFFF))
    };
    let in_place = keys.len() > SCRATCH_KEYS;
    let len = if in_place {
        // The walk checked every key: a hash does not fail here.
        keys.sort_unstable_by_key(|k| (hash(*k).ok().flatten(), k.get()));
        keys.len()
    } else {
        scratch.clear();
        for (i, k) in keys.iter().enumerate() {
            if let Some(h) = hash(*k)? {
                // A dictionary holds fewer than 2^32 entries.
                scratch.push((h << 32) | i as u64);
            }
        }
        scratch.sort_unstable();
        scratch.len()
    };
    // The keys in hash order, as (hash, the key's slot in `keys`): from `scratch`, or `keys`
    // itself sorted by hash.
    let sorted = |keys: &[O], p: usize| -> Result<Option<(u64, usize)>> {
        if in_place {
            Ok(hash(keys[p])?.map(|h| (h, p)))
        } else {
            Ok(scratch.get(p).map(|s| (s >> 32, *s as u32 as usize)))
        }
    };
    let rule = v.dialect();
    let mut dropped = false;
    let mut classes: Vec<(crate::owned::Variant, usize, O)> = Vec::new();
    let mut i = 0;
    while i < len {
        let Some((h, _)) = sorted(keys, i)? else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < len && sorted(keys, j)?.is_some_and(|(g, _)| g == h) {
            j += 1;
        }
        if j - i > 1 {
            classes.clear();
            for p in i..j {
                let Some((_, at)) = sorted(keys, p)? else {
                    continue;
                };
                let k = key_at(v, keys[at].get())?.to_owned()?;
                let full = classes.len() == MAX_KEY_CLASSES;
                match classes.iter_mut().find(|c| same_key(&c.0, &k, rule)) {
                    Some(c) => {
                        c.2 = keys[at];
                        keys[at] = O::GONE;
                        dropped = true;
                    }
                    None if full => {
                        keys.sort_unstable_by_key(|k| k.get());
                        return Ok(false);
                    }
                    None => classes.push((k, at, keys[at])),
                }
            }
            for &(_, first, last) in &classes {
                if last.get() != keys[first].get() {
                    repeats.push((keys[first], last));
                    keys[first] = O::of(keys[first].get() | 1);
                }
            }
        }
        i = j;
    }
    if dropped || in_place {
        keys.sort_unstable_by_key(|k| k.get());
    }
    Ok(true)
}

/// The key at `rel` (relative to `v`), read shallowly.
fn key_at<'a>(v: &VariantRef<'a>, rel: usize) -> Result<VariantRef<'a>> {
    let opts = v.options();
    let mut r = Reader::new(v.h.data.get(rel..).unwrap_or(&[]), v.offset() + rel);
    let h = head(&mut r, 0, &opts, false)?;
    Ok(VariantRef::new(h, 0, opts))
}

/// A container in a key being hashed (see [`index`]).
struct Hashing<O> {
    /// The hasher of its content (an Array, a Godot 4 Dictionary); `None` for a container
    /// whose part was written whole as it began (an Object, a Godot 3 Dictionary).
    h: Option<<KeyState as BuildHasher>::Hasher>,
    ty: T,
    /// Whether what was hashed of it can equal anything.
    matchable: bool,
    /// Its offset (relative to the printed value) when it is itself a key, with its key hash
    /// when its part was written whole.
    key: Option<(O, Option<KeyInfo>)>,
}

/// Pass 1: walks (and so checks) the whole value once and records the key offsets, and with
/// `detect` the repeated keys and the containers to print from their engine value.
pub(super) fn index<O: Off>(v: &VariantRef<'_>, detect: bool) -> Result<Index<O>> {
    let base = v.offset();
    let end = base + v.h.data.len();
    let mut idx = Index {
        dicts: Vec::new(),
        keys: Vec::new(),
        repeats: Vec::new(),
        differs: false,
    };
    /// An open container: for a recorded dictionary, the next key slot and the end of its
    /// slots; `key` says whether its next element is a key; `checked` the engine type its
    /// elements (keys) are checked against, until one does not fit.
    struct Open<O> {
        dict: bool,
        key: bool,
        from: O,
        at: O,
        end: O,
        /// Where `checked` holds the type its elements are checked against (`u32::MAX`: none).
        checked: u32,
        /// Whether it is in a key (with `detect`): its [`Hashing`] is then on top of `hashing`.
        hashed: bool,
        /// For a dictionary: where its container keys start in `containers`.
        mark: u32,
    }
    // With `detect`, the containers in keys being hashed, innermost last, and the container
    // keys of the open dictionaries (offset relative to `v`, key hash), each hashed from its
    // content as its walk ends: keys nested in keys are hashed once each, bottom up. A
    // dictionary's own are the last ones when it ends.
    let state = KeyState::new();
    let mut hashing: Vec<Hashing<O>> = Vec::new();
    let mut containers: Vec<(O, KeyInfo)> = Vec::new();
    let mut scratch: Vec<u64> = Vec::new();
    // The types of the open typed containers still being checked (rare: kept out of `Open`).
    let mut checked: Vec<TypeInfo> = Vec::new();
    let mut open: Vec<Open<O>> = Vec::new();
    let mut w = Walker::from_value(*v);
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Begin(x) | Event::Value(x) => x,
            Event::Property(_) => continue,
            Event::End => {
                if let Some(o) = open.pop() {
                    if o.checked != u32::MAX {
                        checked.pop();
                    }
                    let (from, end) = (o.from.get(), o.end.get());
                    if detect && !idx.differs && o.dict && end - from >= 2 {
                        let repeats = idx.repeats.len();
                        if !drop_repeated_keys(
                            &mut idx.keys[from..end],
                            containers.get(o.mark as usize..).unwrap_or(&[]),
                            v,
                            &mut idx.repeats,
                            &mut scratch,
                        )? || (o.hashed && idx.repeats.len() > repeats)
                        {
                            idx.differs = true;
                        }
                    }
                    if o.dict {
                        containers.truncate(o.mark as usize);
                    }
                    if let Some(f) = o.hashed.then(|| hashing.pop()).flatten() {
                        let parent = open.last().is_some_and(|p| p.hashed);
                        end_hashing(f, &state, parent.then_some(&mut hashing), &mut containers);
                    }
                }
                continue;
            }
        };
        // Whether `x` is a key, and in a key.
        let mut is_key = false;
        let mut in_key = false;
        if let Some(o) = open.last_mut() {
            is_key = o.dict && o.key;
            if o.dict {
                if o.key && o.at.get() < o.end.get() {
                    if let Some(slot) = idx.keys.get_mut(o.at.get()) {
                        *slot = O::of(x.offset() - base);
                    }
                    o.at = O::of(o.at.get() + 1);
                }
                o.key = !o.key;
            }
            in_key = detect && (is_key || o.hashed);
            if let Some(t) = checked.get(o.checked as usize) {
                if !idx.differs
                    && (is_key || !o.dict)
                    && convert::fit_ref(t, &x)? != convert::Fit::Keep
                {
                    idx.differs = true;
                }
            }
        }
        let pos = if is_key { Pos::Key } else { Pos::Element };
        // The value's part in the content of the container in a key that holds it (an Array's
        // or a Godot 4 Dictionary's part is entered as it ends, by `end_hashing`).
        if let Some(Hashing {
            h: Some(h),
            matchable,
            ..
        }) = open
            .last()
            .is_some_and(|o| o.hashed)
            .then(|| hashing.last_mut())
            .flatten()
        {
            x.write_key_part(pos, h, matchable)?;
        }
        if let Event::Begin(c) = e {
            let dict = c.ty() == T::Dictionary;
            if in_key {
                let content = c.ty() == T::Array || (dict && c.dialect() == Dialect::Godot4);
                hashing.push(Hashing {
                    h: content.then(|| content_hasher(&state, c.count())),
                    ty: c.ty(),
                    matchable: true,
                    key: match is_key {
                        false => None,
                        true if content => Some((O::of(c.offset() - base), None)),
                        true => Some((O::of(c.offset() - base), c.leaf_key_info(&state)?)),
                    },
                });
            }
            let mut o = Open {
                dict,
                key: true,
                from: O::default(),
                at: O::default(),
                end: O::default(),
                checked: u32::MAX,
                hashed: in_key,
                // Below 2^32 container keys: each takes at least 8 bytes of input.
                mark: containers.len() as u32,
            };
            if detect && !idx.differs {
                if let Some(t) = convert::checked_type(&c)? {
                    o.checked = checked.len() as u32;
                    checked.push(t);
                }
            }
            if dict && c.count() >= 2 {
                // Each pair takes at least 8 bytes: a count beyond what the rest of the input
                // can hold is not believed (the walk fails before it matters).
                let slots = c.count().min(end.saturating_sub(w.offset()) / 8);
                let at = idx.keys.len();
                o.at = O::of(at);
                o.from = O::of(at);
                o.end = O::of(at + slots);
                idx.dicts.push((O::of(c.offset() - base), O::of(at)));
                idx.keys.resize(at + slots, O::default());
            }
            open.push(o);
        }
    }
    idx.repeats.sort_unstable_by_key(|r| r.0.get());
    Ok(idx)
}

/// Ends the hashing of a container in a key (`f`, just popped; `hashing` when what holds it
/// is in a key too): notes its key hash when it is a key, and enters its part in its parent's
/// content.
fn end_hashing<O: Off>(
    f: Hashing<O>,
    state: &KeyState,
    hashing: Option<&mut Vec<Hashing<O>>>,
    containers: &mut Vec<(O, KeyInfo)>,
) {
    let content = f.h.as_ref().map(content_hash);
    if let Some((at, info)) = f.key {
        let info = match (content, info) {
            (Some(c), _) => KeyInfo {
                hash: container_key_hash(state, f.ty, c),
                matchable: f.matchable,
            },
            // Its part was hashed whole: a key that is not a container (an Array, a Godot 4
            // Dictionary) has a leaf key hash.
            (None, info) => info.unwrap_or(KeyInfo {
                hash: 0,
                matchable: false,
            }),
        };
        containers.push((at, info));
    }
    if let Some(p) = hashing.and_then(|h| h.last_mut()) {
        if let (Some(ph), Some(c)) = (p.h.as_mut(), content) {
            write_container(ph, f.ty, c);
            p.matchable &= f.matchable;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode_with, EncodeOptions};
    use crate::math::{Color, Vector2, Vector3};
    use crate::owned::{key::key_info, Object, Variant};
    use crate::types::ReadOptions;

    #[test]
    fn repeated_keys_print_as_the_engine_keeps_them_lazily_or_through_to_owned() {
        use crate::owned::Variant as V;
        let arr = |v: Vec<V>| V::Array(crate::owned::Array::new(v));
        // Keys of one hash that are not the same key (`"a"` / `&"a"` are, `1` / `1.0` not),
        // then array keys, hashed by their content: more of them than MAX_KEY_CLASSES are
        // told apart lazily too; the same ones forced into one hash are not.
        for arrays in [3, MAX_KEY_CLASSES + 6] {
            let mut entries = vec![
                (V::from("a"), V::Int(1)),
                (V::Int(1), V::Int(2)),
                (V::Float(1.0), V::Int(3)),
                (V::StringName("a".into()), V::Int(4)),
                (V::Float(-0.0), V::Int(5)),
                (V::Float(0.0), V::Int(6)),
            ];
            for i in 0..arrays {
                entries.push((arr(vec![V::Int(i as i64)]), V::Int(10 + i as i64)));
            }
            entries.push((arr(vec![V::Int(0)]), V::from("last")));
            entries.push((V::from("a"), V::from("z")));
            let raw = crate::owned::Dictionary::from_entries(entries.clone());
            let bytes = crate::encode::encode(&V::Dictionary(raw)).unwrap();
            let v = crate::read::parse(&bytes).unwrap();
            let idx = index::<u32>(&v, true).unwrap();
            assert!(!idx.differs, "{arrays}");
            let mut keys = Vec::new();
            let mut containers = Vec::new();
            let mut it = v.as_dictionary().unwrap().iter();
            while let Some((k, _)) = it.try_next().unwrap() {
                let rel = (k.offset() - v.offset()) as u32;
                keys.push(rel);
                if k.ty() == T::Array {
                    // All of one hash.
                    let hash = 7;
                    containers.push((
                        rel,
                        KeyInfo {
                            hash,
                            matchable: true,
                        },
                    ));
                }
            }
            let mut repeats = Vec::new();
            let lazily =
                drop_repeated_keys(&mut keys, &containers, &v, &mut repeats, &mut Vec::new())
                    .unwrap();
            assert_eq!(lazily, arrays <= MAX_KEY_CLASSES, "{arrays}");
            // The engine's dictionary, printed from its canonical bytes.
            let merged: crate::owned::Dictionary = entries.into_iter().collect();
            let canonical = crate::encode::encode(&V::Dictionary(merged)).unwrap();
            let expected =
                crate::text::print::to_string(&crate::read::parse(&canonical).unwrap()).unwrap();
            let text = crate::text::print::to_string(&v).unwrap();
            assert_eq!(text, expected, "{arrays}");
            assert!(text.contains("\"a\": \"z\""), "{text}");
            assert!(text.contains("[0]: \"last\""), "{text}");
            // The engine prints a zero key without its sign.
            assert!(text.contains("\n0.0: 6"), "{text}");
        }
    }

    #[test]
    fn container_keys_that_are_the_same_key_print_once_lazily() {
        use crate::owned::{Array, Dictionary, Variant as V};
        let arr = |v: Vec<V>| V::Array(Array::new(v));
        let dict = |e: Vec<(V, V)>| V::Dictionary(Dictionary::from_entries(e));
        // Each pair: the same key to the engine, in other bytes (Godot 4).
        let entries = vec![
            (arr(vec![arr(vec![V::Float(-0.0), "a".into()])]), V::Int(1)),
            (
                dict(vec![(V::StringName("a".into()), arr(vec![1.into()]))]),
                V::Int(2),
            ),
            (arr(vec![dict(vec![("k".into(), 1.into())])]), V::Int(3)),
            (arr(vec![V::Float(f64::NAN)]), V::Int(4)),
            (arr(vec![arr(vec![V::Float(0.0), "a".into()])]), V::Int(5)),
            (dict(vec![("a".into(), arr(vec![1.into()]))]), V::Int(6)),
            (
                arr(vec![dict(vec![(V::StringName("k".into()), 1.into())])]),
                V::Int(7),
            ),
            (arr(vec![V::Float(f64::NAN)]), V::Int(8)),
            (arr(vec![arr(vec![1.into()])]), V::Int(9)),
        ];
        let lazy = crate::encode::encode(&V::Dictionary(Dictionary::from_entries(entries.clone())))
            .unwrap();
        let v = crate::read::parse(&lazy).unwrap();
        let idx = index::<u32>(&v, true).unwrap();
        assert!(!idx.differs);
        // Three repeated keys (the NaN arrays equal nothing).
        assert_eq!(idx.repeats.len(), 3);
        let merged: Dictionary = entries.into_iter().collect();
        assert_eq!(merged.len(), 6);
        let canonical = crate::encode::encode(&V::Dictionary(merged)).unwrap();
        let expected =
            crate::text::print::to_string(&crate::read::parse(&canonical).unwrap()).unwrap();
        assert_eq!(crate::text::print::to_string(&v).unwrap(), expected);
    }

    #[test]
    fn a_dictionary_in_a_key_repeating_a_key_prints_from_its_engine_value() {
        use crate::owned::{Dictionary, Variant as V};
        // {{"a": 1, "a": 2}: 1, {"a": 2}: 2}: the engine's first key is {"a": 2}, the same
        // key as the second.
        let inner = |e: Vec<(V, V)>| V::Dictionary(Dictionary::from_entries(e));
        let entries = vec![
            (
                inner(vec![("a".into(), 1.into()), ("a".into(), 2.into())]),
                V::Int(1),
            ),
            (inner(vec![("a".into(), 2.into())]), V::Int(2)),
        ];
        let bytes =
            crate::encode::encode(&V::Dictionary(Dictionary::from_entries(entries))).unwrap();
        let v = crate::read::parse(&bytes).unwrap();
        assert!(index::<u32>(&v, true).unwrap().differs);
        assert_eq!(
            crate::text::print::to_string(&v).unwrap(),
            "{\n{\n\"a\": 2\n}: 2\n}"
        );
    }

    /// Keys of every leaf kind, with the values that are the same key to one of them.
    fn leaves() -> Vec<Variant> {
        vec![
            Variant::Nil,
            Variant::Bool(true),
            Variant::Int(-7),
            Variant::Float(0.0),
            Variant::Float(-0.0),
            Variant::Float(f64::NAN),
            Variant::Float(0.1),
            Variant::from("a"),
            Variant::StringName("a".into()),
            Variant::Vector2(Vector2::new(1.0, -0.0)),
            Variant::Vector3(Vector3::new(0.1, f64::NAN, 3.0)),
            Variant::Color(Color::new(0.5, 0.25, 0.0, 1.0)),
            Variant::Rid(12),
            Variant::PackedByteArray(vec![1, 2, 3]),
            Variant::PackedFloat32Array(vec![0.5, -0.0, f32::NAN]),
            Variant::PackedFloat64Array(vec![0.1, -0.0]),
            Variant::PackedStringArray(vec!["x".into(), "y".into()]),
            Variant::PackedVector2Array(vec![Vector2::new(0.1, 2.0)]),
            Variant::Object(Box::new(Object::Id(0))),
            Variant::Object(Box::new(Object::Id(5))),
        ]
    }

    #[test]
    fn a_lazy_leaf_key_hashes_as_its_owned_value() {
        let state = KeyState::new();
        for dialect in [Dialect::Godot4, Dialect::Godot3] {
            for double in [false, true] {
                for k in leaves() {
                    let enc = EncodeOptions::new()
                        .with_dialect(dialect)
                        .with_double_precision(double);
                    let Ok(bytes) = encode_with(&k, &enc) else {
                        continue; // not in Godot 3
                    };
                    let read = ReadOptions::new()
                        .with_dialect(dialect)
                        .with_double_precision(double);
                    let lazy = crate::read::parse_with(&bytes, &read).unwrap();
                    let owned = key_info(&lazy.to_owned().unwrap(), dialect, &state);
                    let info = lazy.leaf_key_info(&state).unwrap().unwrap();
                    assert_eq!(info.matchable, owned.matchable, "{k:?} {dialect:?}");
                    if owned.matchable {
                        assert_eq!(info.hash, owned.hash, "{k:?} {dialect:?} {double}");
                    }
                }
            }
        }
    }
}
