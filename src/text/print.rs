//! Printing a lazy [`VariantRef`] in the engine's text form, in two linear passes and without
//! native recursion: [`to_string`], [`to_fmt`], [`to_writer`] and the `Display` of
//! [`VariantRef`] and [`Variant`].
//!
//! The engine prints dictionary keys sorted, so a dictionary's entries come out in another
//! order than their bytes. The first pass ([`super::index`], a [`Walker`]) checks the whole
//! value and records, for every dictionary of two or more entries, the offset of each key (4
//! bytes a key below 4 GiB of input). The second pass (here) prints: it reads values front to
//! back with its own stack of open containers (on the heap), and for a dictionary sorts the
//! recorded key offsets with the engine's sort ([`super::order`]) and visits each entry at its
//! key's offset; a value starts where its key ends, and a dictionary ends where its last entry
//! in byte order ends, so nothing is skipped or read twice. Only the key comparisons of the
//! sort read keys again. Leaves print by [`super::leaf`].
//!
//! A dictionary that repeats a key prints as the engine holds it: one entry per key, at the
//! first key's place, with the last value. The first pass finds the repeated keys (the
//! engine's key identity and key hash, [`crate::owned::key`]'s), drops the later ones from the
//! key offsets and notes where the last value of each repeated key is; the second pass prints
//! that value after the first key. Values whose typed containers hold elements the engine
//! converts or drops are printed from the value the engine decodes (`to_owned`).

use core::cell::RefCell;
use core::fmt;
use std::vec::Vec;

use super::index::{index, Index, Off};
use super::leaf::{leaf, type_name};
use super::order::{godot_sort, sorts_before};
use crate::array::ArrayIter;
use crate::convert;
use crate::error::{Error, ErrorKind, Result};
use crate::head::{head, read_text, skip_strings, ContainerType};
use crate::object::ObjectRef;
use crate::out::{ch, put, Stop, R};
use crate::owned::{TypeInfo, Variant};
use crate::reader::Reader;
use crate::types::{Dialect, ReadOptions, VariantType as T};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// The engine text of `v` (see the [module docs](super)): `var_to_str` in Godot 4, `var2str` in
/// Godot 3, by the dialect `v` was read with. Errors if `v` is malformed.
pub fn to_string(v: &VariantRef<'_>) -> Result<std::string::String> {
    crate::out::to_string(|s| print(v, s))
}

/// Writes the engine text of `v` to `out`. The whole value is checked before anything is
/// written: a malformed value is `Err` with nothing written; a failing writer is `Ok(Err(_))`.
pub fn to_fmt<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> Result<fmt::Result> {
    crate::out::to_fmt(|| print(v, out))
}

/// Writes the engine text of `v` to `out` through a 64 KiB buffer, then flushes it. A malformed
/// value is an [`std::io::ErrorKind::InvalidData`] error (nothing written) whose
/// [`get_ref`](std::io::Error::get_ref) is the [`Error`](crate::Error), with its offset.
pub fn to_writer<W: std::io::Write>(v: &VariantRef<'_>, out: W) -> std::io::Result<()> {
    crate::out::to_writer(out, |o| print(v, o))
}

/// The engine text (what [`to_string`] returns). A malformed value prints as
/// `<invalid: what at offset N>` (formatting does not fail: `format!` would panic).
impl fmt::Display for VariantRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match to_fmt(self, f) {
            Ok(r) => r,
            Err(e) => write!(f, "<invalid: {e}>"),
        }
    }
}

/// Godot 4's `var_to_str` text of the value (math components in double precision when they are
/// not exact `f32`s, as a double-precision build prints them). A value that cannot be encoded
/// prints as `<cannot print: what>`.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opts = crate::encode::EncodeOptions::new()
            .with_double_precision(true)
            .with_full_objects(true);
        let bytes = match crate::encode::encode_with(self, &opts) {
            Ok(b) => b,
            Err(e) => return write!(f, "<cannot print: {e}>"),
        };
        let read = ReadOptions::new()
            .with_full_objects(true)
            .with_double_precision(true);
        match crate::read::parse_with(&bytes, &read) {
            Ok(v) => fmt::Display::fmt(&v, f),
            Err(e) => write!(f, "<cannot print: {e}>"),
        }
    }
}

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
    if plain(v, out)? {
        return Ok(());
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

/// Prints `v` when it is an untyped Array whose elements have none, or an untyped Dictionary
/// of one such entry (a capture's list of vectors, a state's one field): nothing to sort,
/// nothing the engine reads otherwise. One walk checks it (as pass 1's would, which it is up
/// to its first error), a second one prints its elements: no index and no frames. Returns
/// whether it printed `v` (`false`, nothing written: another value, for the two passes).
fn plain<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> R<bool> {
    let untyped = |t: &[ContainerType<'_>]| t.iter().all(|t| matches!(t, ContainerType::None));
    let dict = match v.ty() {
        T::Array if crate::array::container_types::<1>(v).is_ok_and(|t| untyped(&t)) => false,
        T::Dictionary
            if v.count() == 1
                && crate::array::container_types::<2>(v).is_ok_and(|t| untyped(&t)) =>
        {
            true
        }
        _ => return Ok(false),
    };
    // An element with elements of its own (or an empty container, or an object: printed by
    // the frames) is left to the two passes.
    let plain = |x: &VariantRef<'_>| !matches!(x.ty(), T::Array | T::Dictionary | T::Object);
    let mut w = Walker::from_value(*v);
    w.next_event()?;
    // The elements of a short container, kept from this walk for the printing (no second).
    let mut few = [*v; FEW];
    let mut n = 0;
    while let Some(e) = w.next_event()? {
        match e {
            Event::Value(x) if plain(&x) => {
                if let Some(slot) = few.get_mut(n) {
                    *slot = x;
                }
                n += 1;
            }
            Event::End => {}
            _ => return Ok(false),
        }
    }
    let g3 = v.dialect() == Dialect::Godot3;
    if dict {
        put(out, "{\n")?;
    } else {
        put(out, if g3 { "[ " } else { "[" })?;
    }
    let sep = if dict { ": " } else { ", " };
    if let Some(few) = few.get(..n) {
        for (i, x) in few.iter().enumerate() {
            if i > 0 {
                put(out, sep)?;
            }
            leaf(x, out)?;
        }
    } else {
        let mut w = Walker::from_value(*v);
        w.next_event()?;
        let mut i = 0;
        while let Some(Event::Value(x)) = w.next_event()? {
            if i > 0 {
                put(out, sep)?;
            }
            leaf(&x, out)?;
            i += 1;
        }
    }
    if dict {
        put(out, "\n}")?;
    } else {
        put(out, if g3 { " ]" } else { "]" })?;
    }
    Ok(true)
}

/// The most elements [`plain`] keeps from its checking walk for the printing (a capture's
/// vectors and one-field states); a longer container is walked a second time.
const FEW: usize = 8;

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let text = super::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
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
        let text = super::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
        assert_eq!(text, "{\n[[null]]: 3,\n[[1]]: 1\n}");
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
        let text = super::to_string(&crate::read::parse(&bytes).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n7: null,\n\"b\": [],\n[1]: \"one\",\n[2, \"x\"]: [5]\n}"
        );
    }
}
