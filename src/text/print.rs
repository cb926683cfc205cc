//! Printing a lazy [`VariantRef`] in the engine's text form, in two linear passes and without
//! native recursion.
//!
//! The engine prints dictionary keys sorted, so a dictionary's entries come out in another
//! order than their bytes. The first pass (a [`Walker`]) checks the whole value and records,
//! for every dictionary of two or more entries, the offset of each key (4 bytes a key below
//! 4 GiB of input). The second pass prints: it reads values front to back with its own stack
//! of open containers (on the heap), and for a dictionary sorts the recorded key offsets with
//! the engine's sort and visits each entry at its key's offset; a value starts where its key
//! ends, and a dictionary ends where its last entry in byte order ends, so nothing is skipped
//! or read twice. Only the key comparisons of the sort read keys again.
//!
//! A dictionary that repeats a key prints as the engine holds it: one entry per key, at the
//! first key's place, with the last value. The first pass finds the repeated keys (the
//! engine's key identity, [`crate::owned::Dictionary`]'s), drops the later ones from the key
//! offsets and notes where the last value of each repeated key is; the second pass prints that
//! value after the first key. Values whose typed containers hold elements the engine converts
//! or drops are printed from the value the engine decodes (`to_owned`).

use core::cell::RefCell;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{BuildHasher, Hasher};
use std::string::{String, ToString};
use std::vec::Vec;

use crate::array::ArrayIter;
use crate::convert;
use crate::error::{Error, ErrorKind, Result};
use crate::head::{head, read_text, skip_strings};
use crate::num;
use crate::object::ObjectRef;
use crate::out::{ch, put, Stop, R};
use crate::owned::key::KeyState;
use crate::owned::TypeInfo;
use crate::reader::Reader;
use crate::types::{Dialect, ReadOptions, VariantType as T};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// Prints `v` to `out`; see the [module docs](self).
pub(crate) fn print<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> R {
    print_as(v, out, true)
}

/// Prints `v`; `detect` finds the containers whose engine value differs from their bytes
/// (printed from their decoded value); off for a value that is already the engine's.
fn print_as<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W, detect: bool) -> R {
    // A value without elements (most of a capture's) is checked as pass 1's walk checks it,
    // then printed: no index, no frames.
    let h = head(
        &mut Reader::new(v.h.data, v.h.offset),
        v.depth(),
        &v.options(),
        true,
    )?;
    if h.body().is_none() {
        return leaf(v, out);
    }
    if u32::try_from(v.h.data.len()).is_ok() {
        let idx = index::<u32>(v, detect)?;
        if idx.differs {
            return print_engine_value(v, out);
        }
        Printer::new(v, idx, out).run(v)
    } else {
        let idx = index::<usize>(v, detect)?;
        if idx.differs {
            return print_engine_value(v, out);
        }
        Printer::new(v, idx, out).run(v)
    }
}

/// Replaces the null objects of `v` by their instance-id form: the engine holds a null object
/// as an Object (printed `null`, but ordered as an Object among dictionary keys), which the
/// canonical encoding would write as a bare Nil.
fn keep_null_objects(v: &mut crate::owned::Variant, dialect: Dialect) {
    use crate::owned::{Object, RawValue, Variant};
    let Some(id) = dialect.id_of(T::Object) else {
        return;
    };
    let mut raw = (id | crate::types::FLAG_64).to_le_bytes().to_vec();
    raw.extend_from_slice(&[0; 8]);
    let Ok(null) = crate::read::parse_with(&raw, &ReadOptions::new().with_dialect(dialect))
        .and_then(|r| RawValue::from_ref(&r))
    else {
        return;
    };
    let mut stack: Vec<&mut Variant> = alloc::vec![v];
    while let Some(x) = stack.pop() {
        let is_null = match &*x {
            Variant::Object(o) => match &**o {
                Object::Id(id) => *id == 0,
                Object::Full { class, .. } => class.is_empty(),
            },
            _ => false,
        };
        if is_null {
            *x = Variant::Raw(null.clone());
            continue;
        }
        match x {
            Variant::Object(o) => {
                if let Object::Full { properties, .. } = &mut **o {
                    stack.extend(properties.iter_mut().map(|(_, p)| p));
                }
            }
            Variant::Array(a) => stack.extend(a.items.iter_mut()),
            Variant::Dictionary(d) => {
                d.changed();
                for (k, val) in d.entries.iter_mut() {
                    stack.push(k);
                    stack.push(val);
                }
            }
            _ => {}
        }
    }
}

/// Prints `v` from the value the engine decodes (typed elements converted or dropped,
/// repeated keys merged; see [`convert`]), for a value whose bytes say something else.
fn print_engine_value<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> R {
    let opts = v.options();
    let mut value = v.to_owned()?;
    keep_null_objects(&mut value, opts.dialect);
    let enc = crate::encode::EncodeOptions::new()
        .with_dialect(opts.dialect)
        .with_full_objects(opts.full_objects())
        .with_double_precision(opts.double_precision());
    let bytes = crate::encode::encode_with(&value, &enc)?;
    let read = opts.with_max_depth(crate::types::MAX_DEPTH_LIMIT);
    let e = crate::read::parse_with(&bytes, &read)?;
    print_as(&e, out, false)
}

// ----- pass 1: the key offsets -----

/// A key offset, relative to the printed value's start: `u32` below 4 GiB of input.
trait Off: Copy + Default {
    /// A slot of a dropped (repeated) key: sorts after every offset.
    const GONE: Self;
    fn of(x: usize) -> Self;
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
struct Index<O> {
    /// (the dictionary's offset, where its keys start in `keys`), by offset.
    dicts: Vec<(O, O)>,
    /// Each such dictionary's key offsets, in byte order until the printer sorts them. In a
    /// dictionary that repeats a key, the later ones are dropped ([`Off::GONE`], after the
    /// others) and the first one's offset has its low bit set (offsets are multiples of 4).
    keys: Vec<O>,
    /// For each key whose low bit is set: (its offset, the offset of the last same key, whose
    /// value is the one printed), by offset.
    repeats: Vec<(O, O)>,
    /// Whether the engine's value is not what the bytes say in a way printed from the decoded
    /// value: a typed container holding elements the engine converts or drops, or a
    /// dictionary repeating a key more ways than [`MAX_KEY_CLASSES`] of one hash (see
    /// [`drop_repeated_keys`]).
    differs: bool,
}

/// The most keys of one [`key_hash`] that are not the same key, in a dictionary that repeats a
/// key, that [`drop_repeated_keys`] tells apart; beyond, the value is printed from `to_owned`.
const MAX_KEY_CLASSES: usize = 64;

/// Finds the keys of a dictionary (at `keys`, offsets relative to `v`, in byte order) that
/// are the same key for the engine, which keeps one entry for them (the first key, the last
/// value): drops the later ones ([`Off::GONE`], moved to the end), marks the first one (low
/// bit) and notes the last one in `repeats`. Returns whether it could: `false` when one hash
/// holds more than [`MAX_KEY_CLASSES`] different keys.
///
/// Sorts the offsets by a hash that the same keys share ([`key_hash`] for a leaf; for a
/// container key, the hash of its content in `containers`, by offset, from [`index`]'s pass);
/// only keys sharing a hash (rare, unless a key repeats) are compared, with the engine's key
/// identity on their owned values ([`crate::owned::Dictionary`]'s). Then back into byte order.
/// Memory: the offsets, an entry in `repeats` per repeated key, and the owned keys of one hash
/// at a time.
fn drop_repeated_keys<O: Off>(
    keys: &mut [O],
    containers: &[(O, u64)],
    v: &VariantRef<'_>,
    repeats: &mut Vec<(O, O)>,
) -> Result<bool> {
    let hash = |k: &O| match containers.binary_search_by_key(&k.get(), |c| c.0.get()) {
        Ok(i) => containers[i].1,
        Err(_) => leaf_key_hash(v, k.get()),
    };
    keys.sort_unstable_by_key(|k| (hash(k), k.get()));
    let mut classes: Vec<(crate::owned::Variant, usize, O)> = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let h = hash(&keys[i]);
        let mut j = i + 1;
        while j < keys.len() && hash(&keys[j]) == h {
            j += 1;
        }
        if j - i > 1 {
            classes.clear();
            for at in i..j {
                let k = owned_key(v, keys[at].get())?;
                let rule = v.dialect();
                let full = classes.len() == MAX_KEY_CLASSES;
                match classes
                    .iter_mut()
                    .find(|c| crate::owned::key::same_key(&c.0, &k, rule))
                {
                    Some(c) => {
                        c.2 = keys[at];
                        keys[at] = O::GONE;
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
    keys.sort_unstable_by_key(|k| k.get());
    Ok(true)
}

/// The engine's value of the key at `rel` (relative to `v`).
fn owned_key(v: &VariantRef<'_>, rel: usize) -> Result<crate::owned::Variant> {
    let opts = v.options();
    let mut r = Reader::new(v.h.data.get(rel..).unwrap_or(&[]), v.offset() + rel);
    let h = head(&mut r, 0, &opts, false)?;
    VariantRef::new(h, 0, opts).to_owned()
}

/// [`key_hash`] of the key at `rel` (relative to `v`).
fn leaf_key_hash(v: &VariantRef<'_>, rel: usize) -> u64 {
    let opts = v.options();
    let mut r = Reader::new(v.h.data.get(rel..).unwrap_or(&[]), v.offset() + rel);
    match head(&mut r, 0, &opts, false) {
        Ok(h) => key_hash(&VariantRef::new(h, 0, opts)),
        Err(_) => 0,
    }
}

/// A hash of the leaf key `k` that every key the engine takes for the same key shares, in
/// either dialect: String and StringName hash their (engine) text, floats and real components
/// are normalised (one NaN, `-0.0` as `0.0`, narrowed to the engine's `real_t`); a non-null
/// object, which equals no other key, and a Godot 3 Dictionary (compared by identity) by their
/// offset. Arrays and Godot 4 Dictionaries hash by type here: [`index`] hashes their content.
fn key_hash(k: &VariantRef<'_>) -> u64 {
    let rel = k.offset();
    let opts = k.options();
    let mut hs = KeyHasher::default();
    let single = !opts.double_precision();
    let g3 = k.dialect() == Dialect::Godot3;
    let ty = k.ty();
    let class = if ty == T::StringName { T::String } else { ty };
    let mut hs2 = KeyHasher::default();
    hs2.add(class as u64);
    let body = (|| -> Result<u64> {
        Ok(match ty {
            T::Nil | T::Callable | T::Array => 0,
            T::Dictionary if g3 => rel as u64,
            T::Dictionary => 0,
            T::Bool => u64::from(k.as_bool()?),
            T::Int => k.as_i64()? as u64,
            T::Rid => k.as_rid()?,
            T::Float => {
                // A float is a double in the engine, whatever its precision.
                add_real(&mut hs, false, k.as_f64()?);
                hs.finish()
            }
            T::String | T::StringName => text_hash(&k.as_text()?),
            T::Object => match k.as_object()? {
                ObjectRef::Id(0) => 0,
                ObjectRef::Full(f) if f.class_name().is_empty() => 0,
                _ => (rel as u64) | (1 << 63),
            },
            T::NodePath => {
                let np = k.as_node_path()?;
                let mut s = String::new();
                let _ = np.write_text(&mut s)?;
                text_hash(&crate::text::Text::new(s.as_bytes()))
            }
            T::Vector2i | T::Vector3i | T::Vector4i | T::Rect2i => {
                let raw = k.raw()?;
                text_hash(&crate::text::Text::new(raw.get(4..).unwrap_or(&[])))
            }
            T::Color => {
                for c in k.as_color()?.to_array() {
                    add_real(&mut hs, single, f64::from(c));
                }
                hs.finish()
            }
            T::Signal => {
                let sig = k.as_signal()?;
                text_hash(&sig.name) ^ sig.object_id
            }
            t if t.is_packed_array() => match t {
                T::PackedFloat32Array => {
                    for x in k.as_packed::<f32>()?.iter() {
                        add_real(&mut hs, single, f64::from(x));
                    }
                    hs.finish()
                }
                T::PackedFloat64Array => {
                    for x in k.as_packed::<f64>()?.iter() {
                        add_real(&mut hs, single, x);
                    }
                    hs.finish()
                }
                // Real-valued packed vectors and colors: by length only.
                T::PackedVector2Array
                | T::PackedVector3Array
                | T::PackedVector4Array
                | T::PackedColorArray => k.count() as u64,
                T::PackedStringArray => {
                    let mut it = k.as_string_array()?.iter();
                    let mut acc = 0u64;
                    while let Some(t) = it.try_next()? {
                        acc = acc.rotate_left(7) ^ text_hash(&t);
                    }
                    acc
                }
                _ => {
                    let raw = k.raw()?;
                    text_hash(&crate::text::Text::new(raw.get(4..).unwrap_or(&[])))
                }
            },
            // Real-valued math types.
            _ => {
                let raw = k.raw()?;
                let wide = k.is_wide();
                let mut p = Reader::new(raw.get(4..).unwrap_or(&[]), 0);
                while p.remaining() >= if wide { 8 } else { 4 } {
                    add_real(&mut hs, single, p.read_real(wide)?);
                }
                hs.finish()
            }
        })
    })();
    hs2.add(body.unwrap_or(0));
    hs2.finish()
}

/// Adds a real component, as the engine's `real_t` holds it, normalised (one NaN, no `-0.0`).
fn add_real(hs: &mut KeyHasher, single: bool, x: f64) {
    let x = if single { f64::from(x as f32) } else { x };
    hs.add(if x.is_nan() { 1 } else { (x + 0.0).to_bits() });
}

/// The hash of a text as the engine reads it (Godot 3's lenient decoding included).
fn text_hash(t: &crate::text::Text<'_>) -> u64 {
    let mut h = KeyHasher::default();
    for b in t.to_string_lossy().bytes() {
        h.add(u64::from(b));
    }
    h.add(0xFF);
    h.finish()
}

/// A small multiplicative hash (FxHash's mixing).
#[derive(Default)]
struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Pass 1: walks (and so checks) the whole value once and records the key offsets, and with
/// `detect` the containers to print from their engine value.
fn index<O: Off>(v: &VariantRef<'_>, detect: bool) -> Result<Index<O>> {
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
        /// Whether it is in a key (with `detect`): its hash is then on top of `hashing`.
        hashed: bool,
        /// For a dictionary: where its container keys start in `containers`.
        mark: u32,
    }
    /// A container in a key being hashed: the hash of its content so far, its offset
    /// (relative to `v`) when it is itself a key, and the hash it has whatever its content (a
    /// non-null object, a Godot 3 Dictionary).
    struct Hashing<O> {
        h: <KeyState as BuildHasher>::Hasher,
        key: Option<O>,
        fixed: Option<u64>,
    }
    let mut hashing: Vec<Hashing<O>> = Vec::new();
    // With `detect`, the container keys of the open dictionaries (offset relative to `v`,
    // hash), each hashed from its content (its children's hashes in order, on the process's
    // random key state) as its walk ends: keys nested in keys are hashed once each, bottom
    // up, and only the same keys (or a random collision) are compared in
    // `drop_repeated_keys`. A dictionary's own are the last ones when it ends.
    let state = KeyState::new();
    let mut containers: Vec<(O, u64)> = Vec::new();
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
                    if detect
                        && !idx.differs
                        && o.dict
                        && end - from >= 2
                        && !drop_repeated_keys(
                            &mut idx.keys[from..end],
                            containers.get(o.mark as usize..).unwrap_or(&[]),
                            v,
                            &mut idx.repeats,
                        )?
                    {
                        idx.differs = true;
                    }
                    if o.dict {
                        containers.truncate(o.mark as usize);
                    }
                    if let Some(Hashing { h, key, fixed }) =
                        o.hashed.then(|| hashing.pop()).flatten()
                    {
                        let hash = fixed.unwrap_or_else(|| h.finish());
                        if let Some(at) = key {
                            containers.push((at, hash));
                        }
                        if open.last().is_some_and(|p| p.hashed) {
                            if let Some(p) = hashing.last_mut() {
                                p.h.write_u64(hash);
                            }
                        }
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
            if let (Event::Value(leaf), true) = (e, o.hashed) {
                if let Some(p) = hashing.last_mut() {
                    p.h.write_u64(key_hash(&leaf));
                }
            }
            if let Some(t) = checked.get(o.checked as usize) {
                if !idx.differs
                    && (is_key || !o.dict)
                    && convert::fit_ref(t, &x)? != convert::Fit::Keep
                {
                    idx.differs = true;
                }
            }
        }
        if let Event::Begin(c) = e {
            let dict = c.ty() == T::Dictionary;
            if in_key {
                let mut h = state.build_hasher();
                h.write_u8(c.ty() as u8);
                h.write_usize(c.count());
                let fixed = matches!(c.ty(), T::Object) || (dict && c.dialect() == Dialect::Godot3);
                hashing.push(Hashing {
                    h,
                    key: is_key.then(|| O::of(c.offset() - base)),
                    fixed: fixed.then(|| key_hash(&c)),
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

// ----- pass 2: printing -----

/// What a dictionary being printed waits for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The next entry (or the end).
    Next,
    /// Its key to be printed.
    Key,
    /// Its value to start.
    KeyDone,
    /// Its value to be printed.
    Value,
}

/// A container being printed.
enum Frame<'a> {
    Array {
        r: Reader<'a>,
        left: u32,
        first: bool,
        depth: u32,
        typed: bool,
    },
    Object {
        r: Reader<'a>,
        left: u32,
        depth: u32,
    },
    Dict {
        /// Where its sorted key offsets start in the index (`None`: one entry, at `body`).
        from: Option<usize>,
        body: Reader<'a>,
        n: usize,
        i: usize,
        stage: Stage,
        /// The current entry's value.
        vr: Reader<'a>,
        /// The furthest end of an entry so far: the dictionary's end once all are printed.
        end: Reader<'a>,
        depth: u32,
        typed: bool,
    },
}

struct Printer<'a, 'w, O, W: ?Sized> {
    /// The input from the printed value's start to the end.
    data: &'a [u8],
    base: usize,
    opts: ReadOptions,
    idx: Index<O>,
    out: &'w mut W,
    scratch: RefCell<Vec<(ArrayIter<'a>, ArrayIter<'a>)>>,
}

impl<'a, 'w, O: Off, W: fmt::Write + ?Sized> Printer<'a, 'w, O, W> {
    fn new(v: &VariantRef<'a>, idx: Index<O>, out: &'w mut W) -> Self {
        Printer {
            data: v.h.data,
            base: v.offset(),
            opts: v.options(),
            idx,
            out,
            scratch: RefCell::new(Vec::new()),
        }
    }

    /// A cursor at absolute offset `at`.
    fn at(&self, at: usize) -> Reader<'a> {
        let rel = at.saturating_sub(self.base);
        Reader::new(self.data.get(rel..).unwrap_or(&[]), self.base + rel)
    }

    fn run(mut self, v: &VariantRef<'a>) -> R {
        let mut frames: Vec<Frame<'a>> = Vec::new();
        let mut done = self.value(self.at(v.offset()), v.depth(), &mut frames)?;
        while let Some(top) = frames.last_mut() {
            // The value just printed (if any) ended at `done`.
            if let Some(end) = done.take() {
                match top {
                    Frame::Array { r, .. } | Frame::Object { r, .. } => *r = end,
                    Frame::Dict {
                        stage,
                        vr,
                        end: e,
                        i,
                        ..
                    } => match *stage {
                        Stage::Key => {
                            *vr = end;
                            *stage = Stage::KeyDone;
                        }
                        Stage::Value => {
                            if end.offset() > e.offset() {
                                *e = end;
                            }
                            *i += 1;
                            *stage = Stage::Next;
                        }
                        Stage::Next | Stage::KeyDone => {}
                    },
                }
            }
            let (start, depth) = match top {
                Frame::Array {
                    r,
                    left,
                    first,
                    depth,
                    typed,
                } => {
                    if *left == 0 {
                        let (end, typed) = (*r, *typed);
                        frames.pop();
                        put(self.out, if self.g3() { " ]" } else { "]" })?;
                        if typed {
                            ch(self.out, ')')?;
                        }
                        done = Some(end);
                        continue;
                    }
                    *left -= 1;
                    if !*first {
                        put(self.out, ", ")?;
                    }
                    *first = false;
                    (*r, *depth + 1)
                }
                Frame::Object { r, left, depth } => {
                    if *left == 0 {
                        let end = *r;
                        frames.pop();
                        put(self.out, ")\n")?;
                        done = Some(end);
                        continue;
                    }
                    *left -= 1;
                    let name = read_text(r, self.opts.dialect)?;
                    put(self.out, ",\"")?;
                    put(self.out, &name.to_string_lossy())?;
                    put(self.out, "\":")?;
                    if name.as_bytes() == b"script" {
                        // A script path prints as the resource it names.
                        let mut after = *r;
                        let h = head(&mut after, *depth + 1, &self.opts, false)?;
                        if h.ty == T::String {
                            let path = VariantRef::new(h, *depth + 1, self.opts).as_text()?;
                            put(
                                self.out,
                                if self.g3() {
                                    "Resource( \""
                                } else {
                                    "Resource(\""
                                },
                            )?;
                            put(self.out, &path.to_string_lossy())?;
                            put(self.out, "\")")?;
                            done = Some(after);
                            continue;
                        }
                    }
                    (*r, *depth + 1)
                }
                Frame::Dict {
                    from,
                    body,
                    n,
                    i,
                    stage,
                    vr,
                    end,
                    depth,
                    typed,
                } => match *stage {
                    Stage::Next => {
                        if *i >= *n {
                            let (end, typed) = (*end, *typed);
                            frames.pop();
                            put(self.out, "\n}")?;
                            if typed {
                                ch(self.out, ')')?;
                            }
                            done = Some(end);
                            continue;
                        }
                        if *i > 0 {
                            put(self.out, ",\n")?;
                        }
                        *stage = Stage::Key;
                        let key = match *from {
                            None => *body,
                            Some(f) => {
                                let k = self.idx.keys.get(f + *i).map_or(0, |k| k.get());
                                self.at(self.base + (k & !1))
                            }
                        };
                        (key, *depth + 1)
                    }
                    Stage::KeyDone => {
                        put(self.out, ": ")?;
                        *stage = Stage::Value;
                        if let Some(at) = from.and_then(|f| self.last_same_key(f + *i)) {
                            // A repeated key: the value after the last same key.
                            *vr = self.after(at, *depth + 1)?;
                        }
                        (*vr, *depth + 1)
                    }
                    // Waiting for a child that is neither done nor open: cannot happen.
                    Stage::Key | Stage::Value => return Err(Stop::Write),
                },
            };
            done = self.value(start, depth, &mut frames)?;
        }
        Ok(())
    }

    fn g3(&self) -> bool {
        self.opts.dialect == Dialect::Godot3
    }

    /// Starts printing the value at `r`: a leaf is printed whole and its end returned; a
    /// container's opening is printed and its frame pushed.
    fn value(
        &mut self,
        mut r: Reader<'a>,
        depth: u32,
        frames: &mut Vec<Frame<'a>>,
    ) -> R<Option<Reader<'a>>> {
        let h = head(&mut r, depth, &self.opts, false)?;
        let v = VariantRef::new(h, depth, self.opts);
        match h.ty {
            T::Array => {
                let ty = self.engine_types::<1>(&v)?[0].clone();
                if ty != TypeInfo::None {
                    put(self.out, "Array[")?;
                    type_name(&ty, self.out)?;
                    put(self.out, "](")?;
                }
                put(self.out, if self.g3() { "[ " } else { "[" })?;
                frames.push(Frame::Array {
                    r,
                    left: h.count,
                    first: true,
                    depth,
                    typed: ty != TypeInfo::None,
                });
                Ok(None)
            }
            T::Dictionary => {
                let [kt, vt] = self.engine_types::<2>(&v)?;
                let typed = kt != TypeInfo::None || vt != TypeInfo::None;
                if typed {
                    put(self.out, "Dictionary[")?;
                    type_name(&kt, self.out)?;
                    put(self.out, ", ")?;
                    type_name(&vt, self.out)?;
                    put(self.out, "](")?;
                }
                if h.count == 0 {
                    put(self.out, if self.g3() { "{\n\n}" } else { "{}" })?;
                    if typed {
                        ch(self.out, ')')?;
                    }
                    return Ok(Some(r));
                }
                put(self.out, "{\n")?;
                let (from, n) = if h.count >= 2 {
                    let (from, n) = self.sorted_keys(h.offset, h.count as usize, depth + 1)?;
                    (Some(from), n)
                } else {
                    (None, 1)
                };
                frames.push(Frame::Dict {
                    from,
                    body: r,
                    n,
                    i: 0,
                    stage: Stage::Next,
                    vr: r,
                    end: r,
                    depth,
                    typed,
                });
                Ok(None)
            }
            T::Object if h.body().is_some() => {
                put(self.out, "Object(")?;
                if let ObjectRef::Full(f) = v.as_object()? {
                    put(self.out, &f.class_name().to_string_lossy())?;
                }
                frames.push(Frame::Object {
                    r,
                    left: h.count,
                    depth,
                });
                Ok(None)
            }
            T::PackedStringArray => {
                leaf(&v, self.out)?;
                skip_strings(&mut r, h.count, self.opts.dialect, false)?;
                Ok(Some(r))
            }
            _ => {
                leaf(&v, self.out)?;
                Ok(Some(r))
            }
        }
    }

    /// The element type (`N` = 1) or key and value types (`N` = 2) of a container as the
    /// engine keeps them ([`convert::engine_type`], [`convert::engine_types`]).
    fn engine_types<const N: usize>(&self, v: &VariantRef<'a>) -> R<[TypeInfo; N]> {
        let types = crate::array::container_types::<N>(v)?;
        let mut out: [TypeInfo; N] = core::array::from_fn(|_| TypeInfo::None);
        if v.dialect() != Dialect::Godot4 {
            return Ok(out);
        }
        let objects = self.opts.full_objects();
        for (slot, t) in out.iter_mut().zip(types.iter()) {
            *slot = convert::engine_type(TypeInfo::from_ref(t, v.offset())?, objects);
        }
        if let [k, v] = &mut out[..] {
            let (ek, ev) = convert::engine_types(k.clone(), v.clone(), objects);
            *k = ek;
            *v = ev;
        }
        Ok(out)
    }

    /// The absolute offset of the last same key as key slot `slot`'s, when its key repeats.
    fn last_same_key(&self, slot: usize) -> Option<usize> {
        let k = self.idx.keys.get(slot)?.get();
        if k & 1 == 0 {
            return None;
        }
        let r = &self.idx.repeats;
        let at = r.binary_search_by_key(&(k & !1), |r| r.0.get()).ok()?;
        Some(self.base + r[at].1.get())
    }

    /// Where the value at absolute offset `at` (at `depth`) ends.
    fn after(&self, at: usize, depth: u32) -> R<Reader<'a>> {
        let mut r = self.at(at);
        let h = head(&mut r, depth, &self.opts, false)?;
        let mut w = Walker::from_value(VariantRef::new(h, depth, self.opts));
        while w.next_event()?.is_some() {}
        Ok(self.at(w.offset()))
    }

    /// Sorts the keys of the dictionary at `offset` (of `n` entries) in the engine's order;
    /// returns where they start in the index and how many there are (repeated keys dropped).
    fn sorted_keys(&mut self, offset: usize, n: usize, depth: u32) -> R<(usize, usize)> {
        let rel = offset - self.base;
        let Ok(i) = self.idx.dicts.binary_search_by_key(&rel, |d| d.0.get()) else {
            // Pass 1 recorded every dictionary of two or more entries.
            return Err(Stop::Data(Error::new(
                ErrorKind::UnexpectedEof { needed: 0 },
                offset,
            )));
        };
        let from = self.idx.dicts[i].1.get();
        let mut keys = core::mem::take(&mut self.idx.keys);
        let mut kept = n;
        if let Some(slice) = keys.get_mut(from..from + n) {
            kept = slice.partition_point(|k| k.get() != O::GONE.get());
            let slice = &mut slice[..kept];
            let key = |k: &O| -> Option<VariantRef<'a>> {
                let mut r = self.at(self.base + (k.get() & !1));
                head(&mut r, depth, &self.opts, false)
                    .ok()
                    .map(|h| VariantRef::new(h, depth, self.opts))
            };
            godot_sort(slice, |a, b| {
                match (crate::reader::work(1), key(a), key(b)) {
                    ((), Some(a), Some(b)) => sorts_before(&a, &b, &self.scratch),
                    _ => false,
                }
            });
        }
        self.idx.keys = keys;
        Ok((from, kept))
    }
}

/// Prints a value that is not a container with elements.
fn leaf<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, s: &mut W) -> R {
    let d = v.dialect();
    let g3 = d == Dialect::Godot3;
    let (open, close) = if g3 { ("( ", " )") } else { ("(", ")") };
    let name = v.ty().name_in(d);
    // 64-bit components as a single-precision engine reads them: narrowed to its `real_t`.
    let narrow = !g3 && v.is_wide() && !v.options().double_precision();
    // Each arm reads what it prints before it writes: an error leaves nothing written.
    macro_rules! reals {
        ($arr:expr) => {{
            let items = $arr.into_iter();
            put(s, name)?;
            put(s, open)?;
            for (i, x) in items.enumerate() {
                if i > 0 {
                    put(s, ", ")?;
                }
                let x = x as f64;
                let x = if narrow { f64::from(x as f32) } else { x };
                put(s, num::real_text(x, d).as_str())?;
            }
            put(s, close)?;
        }};
    }
    macro_rules! ints {
        ($arr:expr) => {{
            let items = $arr.into_iter();
            put(s, name)?;
            put(s, open)?;
            for (i, x) in items.enumerate() {
                if i > 0 {
                    put(s, ", ")?;
                }
                put(s, num::int(i64::from(x)).as_str())?;
            }
            put(s, close)?;
        }};
    }
    match v.ty() {
        T::Nil => put(s, "null")?,
        T::Bool => put(s, if v.as_bool()? { "true" } else { "false" })?,
        T::Int => put(s, num::int(v.as_i64()?).as_str())?,
        T::Float => put(s, num::float_text(v.as_f64()?, d).as_str())?,
        T::String => {
            let t = v.as_text()?;
            ch(s, '"')?;
            escape_multiline(&t.to_string_lossy(), s)?;
            ch(s, '"')?;
        }
        T::StringName => {
            let t = v.as_text()?;
            put(s, "&\"")?;
            c_escape(&t.to_string_lossy(), d, s)?;
            ch(s, '"')?;
        }
        T::Vector2 => reals!(v.as_vector2()?.to_array()),
        T::Vector2i => ints!(v.as_vector2i()?.to_array()),
        T::Rect2 => reals!(v.as_rect2()?.to_array()),
        T::Rect2i => ints!(v.as_rect2i()?.to_array()),
        T::Vector3 => reals!(v.as_vector3()?.to_array()),
        T::Vector3i => ints!(v.as_vector3i()?.to_array()),
        T::Transform2D => reals!(v.as_transform2d()?.to_array()),
        T::Vector4 => reals!(v.as_vector4()?.to_array()),
        T::Vector4i => ints!(v.as_vector4i()?.to_array()),
        T::Plane => reals!(v.as_plane()?.to_array()),
        T::Quaternion => reals!(v.as_quaternion()?.to_array()),
        T::Aabb => reals!(v.as_aabb()?.to_array()),
        T::Basis => reals!(v.as_basis()?.to_array()),
        T::Transform3D => reals!(v.as_transform3d()?.to_array()),
        T::Projection => reals!(v.as_projection()?.to_array()),
        T::Color => reals!(v.as_color()?.to_array()),
        T::NodePath => {
            let mut path = String::new();
            let _ = v.as_node_path()?.write_text(&mut path)?;
            put(s, "NodePath(\"")?;
            c_escape(&path, d, s)?;
            put(s, "\")")?;
        }
        T::Rid => {
            if !g3 {
                match v.as_rid()? {
                    0 => put(s, "RID()")?,
                    // The engine prints the id as a signed 64-bit int.
                    id => {
                        put(s, "RID(")?;
                        put(s, &(id as i64).to_string())?;
                        ch(s, ')')?;
                    }
                }
            }
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(0) => put(s, "null")?,
            ObjectRef::Id(id) => {
                put(s, "Object(EncodedObjectAsID,\"object_id\":")?;
                // `object_id` is an int property: signed.
                put(s, &(id as i64).to_string())?;
                put(s, ",\"script\":null)\n")?;
            }
            // A full object with elements is a container; here its class is empty: null.
            ObjectRef::Full(_) => put(s, "null")?,
        },
        T::Callable => put(s, "Callable()")?,
        T::Signal => put(s, "Signal()")?,
        T::PackedByteArray => {
            let bytes = v.as_byte_array()?;
            put(s, name)?;
            put(s, open)?;
            num::write_bytes(bytes, s).map_err(|_| Stop::Write)?;
            put(s, close)?;
        }
        T::PackedInt32Array => ints!(v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => ints!(v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => reals!(v.as_packed::<f32>()?.iter()),
        T::PackedFloat64Array => reals!(v.as_packed::<f64>()?.iter()),
        T::PackedStringArray => {
            put(s, name)?;
            put(s, open)?;
            let mut it = v.as_string_array()?.iter();
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if !first {
                    put(s, ", ")?;
                }
                first = false;
                ch(s, '"')?;
                c_escape(&t.to_string_lossy(), d, s)?;
                ch(s, '"')?;
            }
            put(s, close)?;
        }
        T::PackedVector2Array => {
            if v.is_wide() {
                reals!(v.as_packed::<[f64; 2]>()?.iter().flatten())
            } else {
                reals!(v.as_packed::<[f32; 2]>()?.iter().flatten())
            }
        }
        T::PackedVector3Array => {
            if v.is_wide() {
                reals!(v.as_packed::<[f64; 3]>()?.iter().flatten())
            } else {
                reals!(v.as_packed::<[f32; 3]>()?.iter().flatten())
            }
        }
        T::PackedVector4Array => {
            if v.is_wide() {
                reals!(v.as_packed::<[f64; 4]>()?.iter().flatten())
            } else {
                reals!(v.as_packed::<[f32; 4]>()?.iter().flatten())
            }
        }
        T::PackedColorArray => reals!(v
            .as_packed::<crate::math::Color>()?
            .iter()
            .flat_map(|c| c.to_array())),
        // Containers with elements are printed by the printer's frames; an empty Array or
        // Dictionary never reaches here either.
        T::Array | T::Dictionary => {}
    }
    Ok(())
}

/// The name of a container's element / key / value type as the engine prints it.
fn type_name<W: fmt::Write + ?Sized>(t: &TypeInfo, s: &mut W) -> R {
    match t {
        TypeInfo::None => put(s, "Variant"),
        TypeInfo::Builtin(ty) => put(s, ty.name()),
        TypeInfo::ClassName(c) => put(s, c),
        TypeInfo::Script(p) => {
            put(s, "Resource(\"")?;
            put(s, p)?;
            put(s, "\")")
        }
    }
}

/// `String::c_escape_multiline`: only `\` and `"` are escaped (Strings).
fn escape_multiline<W: fmt::Write + ?Sized>(t: &str, s: &mut W) -> R {
    let mut rest = t;
    while let Some(i) = rest.find(['\\', '"']) {
        put(s, &rest[..i])?;
        put(
            s,
            if rest.as_bytes()[i] == b'\\' {
                "\\\\"
            } else {
                "\\\""
            },
        )?;
        rest = &rest[i + 1..];
    }
    put(s, rest)
}

/// `String::c_escape` (StringName, NodePath, PackedStringArray entries). Godot 3 also escapes
/// `?`.
fn c_escape<W: fmt::Write + ?Sized>(t: &str, d: Dialect, s: &mut W) -> R {
    for c in t.chars() {
        match c {
            '\\' => put(s, "\\\\")?,
            '\u{7}' => put(s, "\\a")?,
            '\u{8}' => put(s, "\\b")?,
            '\u{c}' => put(s, "\\f")?,
            '\n' => put(s, "\\n")?,
            '\r' => put(s, "\\r")?,
            '\t' => put(s, "\\t")?,
            '\u{b}' => put(s, "\\v")?,
            '\'' => put(s, "\\'")?,
            '"' => put(s, "\\\"")?,
            '?' if d == Dialect::Godot3 => put(s, "\\?")?,
            c => ch(s, c)?,
        }
    }
    Ok(())
}

// ----- the key order -----

/// Whether the key `a` is printed before the key `b` (of one Dictionary): the engine's key
/// order of their dialect (Godot 3: [`less3`]; Godot 4: [`order_with`]).
pub(crate) fn sorts_before<'a>(
    a: &VariantRef<'a>,
    b: &VariantRef<'a>,
    stack: &RefCell<Vec<(ArrayIter<'a>, ArrayIter<'a>)>>,
) -> bool {
    if a.dialect() == Dialect::Godot3 {
        less3(a, b, stack)
    } else {
        order_with(a, b, stack) == Ordering::Less
    }
}

/// Godot 3.2's `Variant::operator<` (which its `var2str` sorts dictionary keys with): type id
/// first; then `<` for bool, int, float, String (by character), Vector2 and Vector3 (by
/// component); its quirky Array rule (`a < b` unless `b` is shorter, as soon as an element of
/// `a` is *not* less than `b`'s); for pool arrays, a shorter one first and any difference
/// between two of the same length counting as less both ways; `false` for everything else.
/// Arrays nested in keys are compared without recursion.
fn less3<'a>(
    a: &VariantRef<'a>,
    b: &VariantRef<'a>,
    stack: &RefCell<Vec<(ArrayIter<'a>, ArrayIter<'a>)>>,
) -> bool {
    fn leaf(a: &VariantRef<'_>, b: &VariantRef<'_>) -> bool {
        let d = a.dialect();
        let (ia, ib) = (d.id_of(a.ty()), d.id_of(b.ty()));
        if ia != ib {
            return ia < ib;
        }
        fn vec_less(x: &[f64], y: &[f64]) -> bool {
            for (p, q) in x.iter().zip(y) {
                let (p, q) = (*p as f32, *q as f32);
                if p != q {
                    return p < q;
                }
            }
            false
        }
        let r = (|| -> Result<bool> {
            Ok(match a.ty() {
                T::Bool => !a.as_bool()? && b.as_bool()?,
                T::Int => a.as_i64()? < b.as_i64()?,
                T::Float => a.as_f64()? < b.as_f64()?,
                T::String => text_order(a, b) == Ordering::Less,
                T::Vector2 => vec_less(&a.as_vector2()?.to_array(), &b.as_vector2()?.to_array()),
                T::Vector3 => vec_less(&a.as_vector3()?.to_array(), &b.as_vector3()?.to_array()),
                T::PackedByteArray
                | T::PackedInt32Array
                | T::PackedFloat32Array
                | T::PackedStringArray
                | T::PackedVector2Array
                | T::PackedVector3Array
                | T::PackedColorArray => {
                    let (la, lb) = (a.count(), b.count());
                    if la != lb {
                        la < lb
                    } else {
                        pool_differs(a, b)?
                    }
                }
                _ => false,
            })
        })();
        r.unwrap_or(false)
    }
    /// Whether two pool arrays of the same length differ in an element (NaN differs from
    /// itself, as `!=` says).
    fn pool_differs(a: &VariantRef<'_>, b: &VariantRef<'_>) -> Result<bool> {
        Ok(match a.ty() {
            T::PackedFloat32Array => a
                .as_packed::<f32>()?
                .iter()
                .zip(b.as_packed::<f32>()?.iter())
                .any(|(x, y)| x != y),
            T::PackedVector2Array | T::PackedVector3Array | T::PackedColorArray => {
                let (ra, rb) = (a.raw()?, b.raw()?);
                let (pa, pb) = (ra.get(8..).unwrap_or(&[]), rb.get(8..).unwrap_or(&[]));
                pa.chunks_exact(4).zip(pb.chunks_exact(4)).any(|(x, y)| {
                    f32::from_le_bytes(x.try_into().unwrap_or_default())
                        != f32::from_le_bytes(y.try_into().unwrap_or_default())
                })
            }
            T::PackedStringArray => {
                let (mut i, mut j) = (a.as_string_array()?.iter(), b.as_string_array()?.iter());
                let mut differ = false;
                while let (Some(x), Some(y)) = (i.try_next()?, j.try_next()?) {
                    differ |= x.to_string_lossy() != y.to_string_lossy();
                }
                differ
            }
            _ => {
                let (ra, rb) = (a.raw()?, b.raw()?);
                ra.get(8..) != rb.get(8..)
            }
        })
    }
    let arrays = |x: &VariantRef<'_>, y: &VariantRef<'_>| x.ty() == T::Array && y.ty() == T::Array;
    if !arrays(a, b) {
        return leaf(a, b);
    }
    let mut fresh = Vec::new();
    let mut borrowed = stack.try_borrow_mut();
    let stack = match borrowed.as_mut() {
        Ok(s) => &mut **s,
        Err(_) => &mut fresh,
    };
    stack.clear();
    // Each frame compares two arrays and returns `less` to its parent: `true` as soon as an
    // element pair is not less, `false` at the end; a shorter right-hand array is `false`.
    let res = (|| -> Result<bool> {
        let open = |x: &VariantRef<'a>,
                    y: &VariantRef<'a>|
         -> Result<Option<(ArrayIter<'a>, ArrayIter<'a>)>> {
            let (xa, ya) = (x.as_array()?, y.as_array()?);
            Ok((ya.len() >= xa.len()).then(|| (xa.iter(), ya.iter())))
        };
        let Some(top) = open(a, b)? else {
            return Ok(false);
        };
        stack.push(top);
        // The value the innermost finished frame returned, for its parent.
        let mut ret: Option<bool> = None;
        loop {
            let Some((i, j)) = stack.last_mut() else {
                return Ok(ret.unwrap_or(false));
            };
            if let Some(less) = ret.take() {
                if !less {
                    // This frame returns true.
                    let done = stack.pop();
                    if let (Some((ci, cj)), Some((pi, pj))) = (done, stack.last_mut()) {
                        let _ = (pi.resume_after(&ci), pj.resume_after(&cj));
                    }
                    ret = Some(true);
                    continue;
                }
            }
            match i.try_next()? {
                None => {
                    let done = stack.pop();
                    if let (Some((ci, cj)), Some((pi, pj))) = (done, stack.last_mut()) {
                        let _ = (pi.resume_after(&ci), pj.resume_after(&cj));
                    }
                    ret = Some(false);
                }
                Some(p) => {
                    let Some(q) = j.try_next()? else {
                        return Ok(false);
                    };
                    if arrays(&p, &q) {
                        match open(&p, &q)? {
                            Some(f) => stack.push(f),
                            None => ret = Some(false),
                        }
                    } else {
                        ret = Some(leaf(&p, &q));
                    }
                }
            }
        }
    })();
    stack.clear();
    res.unwrap_or(false)
}

/// The engine's key order for printing dictionaries: Godot 4's `StringLikeVariantOrder`
/// (String and StringName compare as text) over `Variant::operator<` (type id first, then the
/// type's `<` operator where it has one; values of types without one are unordered).
/// The key order as one three-way comparison: `Less` iff `a < b` in the engine's order,
/// `Greater` iff `b < a`, and `Equal` when neither holds (equal, or unordered: NaNs, types
/// without `<`, malformed values). Godot 4 Arrays compare element-wise, iteratively: `stack`
/// holds the pairs of open Arrays, each element pair is compared once, and an Array walked
/// to its end is not read again by its parent ([`ArrayIter::resume_after`]), so comparing two
/// keys costs time linear in their size, whatever their depth.
fn order_with<'a>(
    a: &VariantRef<'a>,
    b: &VariantRef<'a>,
    stack: &RefCell<Vec<(ArrayIter<'a>, ArrayIter<'a>)>>,
) -> Ordering {
    let arrays = |x: &VariantRef<'_>, y: &VariantRef<'_>| {
        x.ty() == T::Array && y.ty() == T::Array && x.dialect() == Dialect::Godot4
    };
    if !arrays(a, b) {
        return order(a, b);
    }
    let mut fresh = Vec::new();
    let mut borrowed = stack.try_borrow_mut();
    let stack = match borrowed.as_mut() {
        Ok(s) => &mut **s,
        Err(_) => &mut fresh,
    };
    stack.clear();
    let res = (|| -> Result<Ordering> {
        stack.push((a.as_array()?.iter(), b.as_array()?.iter()));
        while let Some((i, j)) = stack.last_mut() {
            match (i.try_next()?, j.try_next()?) {
                (Some(p), Some(q)) => {
                    if arrays(&p, &q) {
                        stack.push((p.as_array()?.iter(), q.as_array()?.iter()));
                        continue;
                    }
                    match order(&p, &q) {
                        Ordering::Equal => {}
                        o => return Ok(o),
                    }
                }
                (None, Some(_)) => return Ok(Ordering::Less),
                (Some(_), None) => return Ok(Ordering::Greater),
                (None, None) => {
                    if let Some((ci, cj)) = stack.pop() {
                        if let Some((pi, pj)) = stack.last_mut() {
                            pi.resume_after(&ci)?;
                            pj.resume_after(&cj)?;
                        }
                    }
                }
            }
        }
        Ok(Ordering::Equal)
    })();
    stack.clear();
    // A malformed element leaves the pair unordered.
    res.unwrap_or(Ordering::Equal)
}

/// The order of two values that are not both Godot 4 Arrays (those: [`order_with`]).
fn order(a: &VariantRef<'_>, b: &VariantRef<'_>) -> Ordering {
    let d = a.dialect();
    let string_like = |v: &VariantRef<'_>| matches!(v.ty(), T::String | T::StringName);
    if d == Dialect::Godot4 && string_like(a) && string_like(b) {
        return text_order(a, b);
    }
    let (ia, ib) = (d.id_of(a.ty()), d.id_of(b.ty()));
    if ia != ib {
        return ia.cmp(&ib);
    }
    /// The first differing component decides; an unordered pair there (NaN) orders neither way.
    fn lex<X: PartialOrd>(x: &[X], y: &[X]) -> Ordering {
        for (p, q) in x.iter().zip(y) {
            if p != q {
                return p.partial_cmp(q).unwrap_or(Ordering::Equal);
            }
        }
        Ordering::Equal
    }
    fn both<X, Y>(x: Result<X>, y: Result<X>, f: impl Fn(X, X) -> Y) -> Option<Y> {
        match (x, y) {
            (Ok(x), Ok(y)) => Some(f(x, y)),
            _ => None,
        }
    }
    // Vectors compare component by component.
    macro_rules! lex_of {
        ($as:ident) => {
            both(a.$as(), b.$as(), |x, y| lex(&x.to_array(), &y.to_array()))
        };
    }
    let o = match a.ty() {
        T::Bool => both(a.as_bool(), b.as_bool(), |x, y| x.cmp(&y)),
        T::Int => both(a.as_i64(), b.as_i64(), |x, y| x.cmp(&y)),
        T::Float => both(a.as_f64(), b.as_f64(), |x, y| {
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }),
        T::String | T::StringName => Some(text_order(a, b)),
        T::Vector2 => lex_of!(as_vector2),
        T::Vector3 => lex_of!(as_vector3),
        T::Vector4 => lex_of!(as_vector4),
        T::Vector2i => lex_of!(as_vector2i),
        T::Vector3i => lex_of!(as_vector3i),
        T::Vector4i => lex_of!(as_vector4i),
        T::Color if d == Dialect::Godot4 => both(a.as_color(), b.as_color(), |x, y| {
            lex(&x.to_array().map(f64::from), &y.to_array().map(f64::from))
        }),
        T::Rid if d == Dialect::Godot4 => both(a.as_rid(), b.as_rid(), |x, y| x.cmp(&y)),
        _ => None,
    };
    o.unwrap_or(Ordering::Equal)
}

fn text_bytes<'a>(v: &VariantRef<'a>) -> &'a [u8] {
    v.as_text().map(|t| t.as_bytes()).unwrap_or(&[])
}

/// The engine's order of two texts: by code point, which is the order of their UTF-8 bytes;
/// Godot 3 text that is not UTF-8 (overlong forms) is compared as the characters it decodes
/// to.
fn text_order(a: &VariantRef<'_>, b: &VariantRef<'_>) -> Ordering {
    let (x, y) = (text_bytes(a), text_bytes(b));
    if core::str::from_utf8(x).is_ok() && core::str::from_utf8(y).is_ok() {
        return x.cmp(y);
    }
    let d = |t: &[u8]| crate::text::Text::new(t).to_string_lossy().into_owned();
    d(x).cmp(&d(y))
}

/// The engine's `SortArray::sort` (introsort, then a final insertion sort), ported so that
/// elements the comparator cannot order end up where the engine puts them. Unlike the engine,
/// every index is bounds-checked, so an inconsistent comparator cannot run off the slice.
pub(crate) fn godot_sort<X: Copy>(v: &mut [X], less: impl Fn(&X, &X) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let s = Sorter { less: &less };
    let mut k = 0;
    let mut m = n;
    while m != 1 {
        m >>= 1;
        k += 1;
    }
    s.introsort(v, 0, n, k * 2);
    s.final_insertion_sort(v, 0, n);
}

const THRESHOLD: usize = 16;

struct Sorter<'c, X> {
    less: &'c dyn Fn(&X, &X) -> bool,
}

impl<X: Copy> Sorter<'_, X> {
    fn lt(&self, a: &X, b: &X) -> bool {
        (self.less)(a, b)
    }

    fn median_of_3(&self, p: &[X], a: usize, b: usize, c: usize) -> usize {
        let (x, y, z) = (&p[a], &p[b], &p[c]);
        if self.lt(x, y) {
            if self.lt(y, z) {
                b
            } else if self.lt(x, z) {
                c
            } else {
                a
            }
        } else if self.lt(x, z) {
            a
        } else if self.lt(y, z) {
            c
        } else {
            b
        }
    }

    fn introsort(&self, p: &mut [X], first: usize, mut last: usize, mut depth: usize) {
        while last - first > THRESHOLD {
            if depth == 0 {
                self.partial_sort(p, first, last, last);
                return;
            }
            depth -= 1;
            let pivot = self.median_of_3(p, first, first + (last - first) / 2, last - 1);
            let cut = self.partitioner(p, first, last, pivot);
            self.introsort(p, cut, last, depth);
            last = cut;
        }
    }

    fn partitioner(&self, p: &mut [X], mut first: usize, mut last: usize, pivot: usize) -> usize {
        let (lo, hi) = (first, last);
        let mut pv = pivot;
        loop {
            // As in the engine: the `!=` tests use the original pivot index, the comparisons
            // the pivot element's current location.
            while first != pivot && first + 1 < hi && self.lt(&p[first], &p[pv]) {
                first += 1;
            }
            last -= 1;
            while last != pivot && last > lo && self.lt(&p[pv], &p[last]) {
                last -= 1;
            }
            if first >= last {
                return first;
            }
            if pv == first {
                pv = last;
            } else if pv == last {
                pv = first;
            }
            p.swap(first, last);
            first += 1;
        }
    }

    fn partial_sort(&self, p: &mut [X], first: usize, last: usize, middle: usize) {
        self.make_heap(p, first, middle);
        for i in middle..last {
            if self.lt(&p[i], &p[first]) {
                let val = p[i];
                self.pop_heap_to(p, first, middle, i, val);
            }
        }
        self.sort_heap(p, first, middle);
    }

    fn make_heap(&self, p: &mut [X], first: usize, last: usize) {
        if last - first < 2 {
            return;
        }
        let len = last - first;
        let mut parent = (len - 2) / 2;
        loop {
            let val = p[first + parent];
            self.adjust_heap(p, first, parent, len, val);
            if parent == 0 {
                return;
            }
            parent -= 1;
        }
    }

    fn sort_heap(&self, p: &mut [X], first: usize, mut last: usize) {
        while last - first > 1 {
            let val = p[last - 1];
            self.pop_heap_to(p, first, last - 1, last - 1, val);
            last -= 1;
        }
    }

    fn pop_heap_to(&self, p: &mut [X], first: usize, last: usize, result: usize, val: X) {
        p[result] = p[first];
        self.adjust_heap(p, first, 0, last - first, val);
    }

    fn adjust_heap(&self, p: &mut [X], first: usize, mut hole: usize, len: usize, val: X) {
        let top = hole;
        let mut second = 2 * hole + 2;
        while second < len {
            if self.lt(&p[first + second], &p[first + second - 1]) {
                second -= 1;
            }
            p[first + hole] = p[first + second];
            hole = second;
            second = 2 * (second + 1);
        }
        if second == len {
            p[first + hole] = p[first + second - 1];
            hole = second - 1;
        }
        // push_heap
        while hole > top {
            let parent = (hole - 1) / 2;
            if !self.lt(&p[first + parent], &val) {
                break;
            }
            p[first + hole] = p[first + parent];
            hole = parent;
        }
        p[first + hole] = val;
    }

    fn insertion_sort(&self, p: &mut [X], first: usize, last: usize) {
        if first == last {
            return;
        }
        for i in first + 1..last {
            let val = p[i];
            if self.lt(&val, &p[first]) {
                let mut j = i;
                while j > first {
                    p[j] = p[j - 1];
                    j -= 1;
                }
                p[first] = val;
            } else {
                self.unguarded_linear_insert(p, i, val);
            }
        }
    }

    fn unguarded_linear_insert(&self, p: &mut [X], mut last: usize, val: X) {
        // The engine does not check the lower bound (the comparator guarantees a stop); we do.
        while last > 0 && self.lt(&val, &p[last - 1]) {
            p[last] = p[last - 1];
            last -= 1;
        }
        p[last] = val;
    }

    fn final_insertion_sort(&self, p: &mut [X], first: usize, last: usize) {
        if last - first > THRESHOLD {
            self.insertion_sort(p, first, first + THRESHOLD);
            for i in first + THRESHOLD..last {
                let val = p[i];
                self.unguarded_linear_insert(p, i, val);
            }
        } else {
            self.insertion_sort(p, first, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_matches_std_for_total_orders() {
        let mut x: Vec<u32> = (0..300).map(|i| (i * 7919) % 1009).collect();
        let mut y = x.clone();
        godot_sort(&mut x, |a, b| a < b);
        y.sort();
        assert_eq!(x, y);
        let mut z: Vec<u32> = vec![5, 1, 4];
        godot_sort(&mut z, |_, _| true);
        assert_eq!(z.len(), 3);
    }

    fn nested(depth: usize, inner: crate::owned::Variant) -> crate::owned::Variant {
        use crate::owned::Array;
        let mut v = crate::owned::Variant::Array(Array::new(vec![inner]));
        for _ in 1..depth {
            v = crate::owned::Variant::Array(Array::new(vec![v]));
        }
        v
    }

    #[test]
    fn comparing_deeply_nested_array_keys_takes_linear_time() {
        // Testing `less` both ways per element pair cost 2^40 comparisons here.
        let mut d = crate::owned::Dictionary::new();
        d.entries.push((
            nested(40, crate::owned::Variant::Int(1)),
            crate::owned::Variant::Int(1),
        ));
        d.entries.push((
            nested(40, crate::owned::Variant::Nil),
            crate::owned::Variant::Int(2),
        ));
        d.entries.push((
            nested(40, crate::owned::Variant::Bool(false)),
            crate::owned::Variant::Int(3),
        ));
        let bytes = crate::encode::encode(&crate::owned::Variant::Dictionary(d)).unwrap();
        let text = crate::text::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
        let key = |x: &str| format!("{}{x}{}", "[".repeat(40), "]".repeat(40));
        assert_eq!(
            text,
            format!(
                "{{\n{}: 2,\n{}: 3,\n{}: 1\n}}",
                key("null"),
                key("false"),
                key("1")
            )
        );
    }

    #[test]
    fn a_repeated_key_prints_once_with_its_last_value() {
        // {[[null]]: 2, [[1]]: 1, [[null]]: 3}: the engine keeps one [[null]] (first place,
        // last value).
        let mut d = crate::owned::Dictionary::new();
        d.entries.push((
            nested(2, crate::owned::Variant::Nil),
            crate::owned::Variant::Int(2),
        ));
        d.entries.push((
            nested(2, crate::owned::Variant::Int(1)),
            crate::owned::Variant::Int(1),
        ));
        d.entries.push((
            nested(2, crate::owned::Variant::Nil),
            crate::owned::Variant::Int(3),
        ));
        let bytes = crate::encode::encode(&crate::owned::Variant::Dictionary(d)).unwrap();
        let text = crate::text::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
        assert_eq!(text, "{\n[[null]]: 3,\n[[1]]: 1\n}");
    }

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
                    containers.push((rel, 7));
                }
            }
            let mut repeats = Vec::new();
            let lazily = drop_repeated_keys(&mut keys, &containers, &v, &mut repeats).unwrap();
            assert_eq!(lazily, arrays <= MAX_KEY_CLASSES, "{arrays}");
            // The engine's dictionary, printed from its canonical bytes.
            let merged: crate::owned::Dictionary = entries.into_iter().collect();
            let canonical = crate::encode::encode(&V::Dictionary(merged)).unwrap();
            let expected =
                crate::text::to_string(&crate::read::parse(&canonical).unwrap()).unwrap();
            let text = crate::text::to_string(&v).unwrap();
            assert_eq!(text, expected, "{arrays}");
            assert!(text.contains("\"a\": \"z\""), "{text}");
            assert!(text.contains("[0]: \"last\""), "{text}");
            // The engine prints a zero key without its sign.
            assert!(text.contains("\n0.0: 6"), "{text}");
        }
    }

    #[test]
    fn dictionary_values_after_container_keys_are_found_again() {
        let mut d = crate::owned::Dictionary::new();
        let arr = |v: Vec<crate::owned::Variant>| {
            crate::owned::Variant::Array(crate::owned::Array::new(v))
        };
        d.entries
            .push((arr(vec![2.into(), "x".into()]), arr(vec![5.into()])));
        d.entries.push(("b".into(), arr(vec![])));
        d.entries.push((arr(vec![1.into()]), "one".into()));
        d.entries.push((7.into(), crate::owned::Variant::Nil));
        let bytes = crate::encode::encode(&crate::owned::Variant::Dictionary(d)).unwrap();
        let text = crate::text::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n7: null,\n\"b\": [],\n[1]: \"one\",\n[2, \"x\"]: [5]\n}"
        );
    }
}
