//! The engine's own text form of a value: what Godot 4's `var_to_str` and Godot 3's `var2str`
//! print, produced straight from a lazy [`VariantRef`] (nothing is decoded into an owned tree).
//!
//! Byte for byte the engine's output for every value that is not an Object, including its
//! quirks: floats in the engine's number format ([`num`]), `-0.0` as `0.0`,
//! dictionary keys **sorted** the way the engine sorts them (with its own introsort, so even
//! keys the engine cannot order come out in the engine's order), one key per line, typed
//! containers as `Array[int]([1, 2])`, Godot 3's spaced `Vector2( 1, 2 )` layout, and so on.
//!
//! Objects print in the engine's layout (`Object(Class,"prop":value,...)` and a newline), but
//! the engine prints the *live* object's property list, which bytes cannot tell; an object sent
//! as an instance id prints as the `EncodedObjectAsID` the engine decodes it to.
//!
//! ```
//! let bytes = [27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 3, 0, 0, 0, 0, 0, 0xC0, 0x3F];
//! let v = gdvariant::parse(&bytes).unwrap();
//! assert_eq!(gdvariant::cli::text::to_text(&v).unwrap(), "{\n\"a\": 1.5\n}");
//! ```

use core::cmp::Ordering;
use std::string::String;
use std::vec::Vec;

use super::num;
use super::sink::Sink;
use crate::array::ContainerType;
use crate::error::Result;
use crate::head::head;
use crate::object::ObjectRef;
use crate::reader::Reader;
use crate::types::{Dialect, Options, VariantType as T};
use crate::value::VariantRef;
use crate::walker::skip_value;

/// The engine text of `v` (see the [module docs](self)).
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.3 KiB in release builds, 26 KiB in debug builds): about 1.3 MiB
/// for a 1025-deep value in release builds.
pub fn to_text(v: &VariantRef<'_>) -> Result<String> {
    let mut sink = Sink::memory();
    write(v, &mut sink)?;
    Ok(sink.buf)
}

/// Writes the engine text of `v` to `out`, streaming through a 64 KiB buffer. Data errors come
/// first; a write error is reported as `Ok(Err(_))`.
///
/// Memory: besides the buffer, each Dictionary being printed keeps one offset per pair to
/// sort its keys (4 bytes, 8 when the input exceeds 4 GiB), released when it is done; a pair
/// takes at least 8 encoded bytes, so this stays below half the input's size (below its size
/// past 4 GiB). Nothing else grows with the input.
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.3 KiB in release builds, 26 KiB in debug builds): about 1.3 MiB
/// for a 1025-deep value in release builds.
pub fn write_text(v: &VariantRef<'_>, out: &mut dyn std::io::Write) -> Result<std::io::Result<()>> {
    let mut sink = Sink::writer(out);
    write(v, &mut sink)?;
    Ok(sink.finish())
}

pub(crate) fn write(v: &VariantRef<'_>, s: &mut Sink<'_>) -> Result<()> {
    let d = v.dialect();
    let g3 = d == Dialect::Godot3;
    let (open, close) = if g3 { ("( ", " )") } else { ("(", ")") };
    let name = v.ty().name_in(d);
    macro_rules! reals {
        ($arr:expr) => {{
            s.push(name);
            s.push(open);
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                s.push(&num::real(x as f64, d));
            }
            s.push(close);
        }};
    }
    macro_rules! ints {
        ($arr:expr) => {{
            s.push(name);
            s.push(open);
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                s.push(&x.to_string());
            }
            s.push(close);
        }};
    }
    match v.ty() {
        T::Nil => s.push("null"),
        T::Bool => s.push(if v.as_bool()? { "true" } else { "false" }),
        T::Int => s.push(&v.as_i64()?.to_string()),
        T::Float => s.push(&num::float(v.as_f64()?, d)),
        T::String => {
            s.ch('"');
            escape_multiline(&v.as_text()?.to_string_lossy(), s);
            s.ch('"');
        }
        T::StringName => {
            s.push("&\"");
            c_escape(&v.as_text()?.to_string_lossy(), d, s);
            s.ch('"');
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
            s.push("NodePath(\"");
            c_escape(&path, d, s);
            s.push("\")");
        }
        T::Rid => {
            if !g3 {
                match v.as_rid()? {
                    0 => s.push("RID()"),
                    id => {
                        s.push("RID(");
                        s.push(&id.to_string());
                        s.ch(')');
                    }
                }
            }
        }
        T::Object => write_object(v, s)?,
        T::Callable => s.push("Callable()"),
        T::Signal => s.push("Signal()"),
        T::Dictionary => write_dictionary(v, s)?,
        T::Array => {
            let a = v.as_array()?;
            let ty = a.element_type()?;
            if ty.is_typed() {
                s.push("Array[");
                type_name(&ty, s);
                s.push("](");
            }
            s.push(if g3 { "[ " } else { "[" });
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    s.push(", ");
                }
                write(&e?, s)?;
            }
            s.push(if g3 { " ]" } else { "]" });
            if ty.is_typed() {
                s.ch(')');
            }
        }
        T::PackedByteArray => ints!(v.as_byte_array()?.iter()),
        T::PackedInt32Array => ints!(v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => ints!(v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => reals!(v.as_packed::<f32>()?.iter()),
        T::PackedFloat64Array => reals!(v.as_packed::<f64>()?.iter()),
        T::PackedStringArray => {
            s.push(name);
            s.push(open);
            let mut it = v.as_string_array()?.iter();
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if !first {
                    s.push(", ");
                }
                first = false;
                s.ch('"');
                c_escape(&t.to_string_lossy(), d, s);
                s.ch('"');
            }
            s.push(close);
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
    }
    Ok(())
}

fn write_object(v: &VariantRef<'_>, s: &mut Sink<'_>) -> Result<()> {
    match v.as_object()? {
        ObjectRef::Id(0) => s.push("null"),
        ObjectRef::Id(id) => {
            s.push("Object(EncodedObjectAsID,\"object_id\":");
            s.push(&id.to_string());
            s.push(",\"script\":null)\n");
        }
        ObjectRef::Full(f) => {
            if f.class_name().is_empty() {
                s.push("null");
                return Ok(());
            }
            s.push("Object(");
            s.push(&f.class_name().to_string_lossy());
            let mut props = f.properties();
            while let Some((name, value)) = props.try_next()? {
                s.push(",\"");
                s.push(&name.to_string_lossy());
                s.push("\":");
                if name.as_bytes() == b"script" && value.ty() == T::String {
                    let path = value.as_text()?.to_string_lossy();
                    s.push(if v.dialect() == Dialect::Godot3 {
                        "Resource( \""
                    } else {
                        "Resource(\""
                    });
                    s.push(&path);
                    s.push("\")");
                } else {
                    write(&value, s)?;
                }
            }
            s.push(")\n");
        }
    }
    Ok(())
}

fn write_dictionary(v: &VariantRef<'_>, s: &mut Sink<'_>) -> Result<()> {
    let d = v.as_dictionary()?;
    let dialect = v.dialect();
    let (kt, vt) = d.key_value_types()?;
    let typed = kt.is_typed() || vt.is_typed();
    if typed {
        s.push("Dictionary[");
        type_name(&kt, s);
        s.push(", ");
        type_name(&vt, s);
        s.push("](");
    }
    if d.is_empty() {
        s.push(if dialect == Dialect::Godot3 {
            "{\n\n}"
        } else {
            "{}"
        });
    } else {
        // Only each key's offset (from the start of the body) is kept: a key is re-read from
        // it in O(1) (its head; a container's elements are read lazily) for each comparison,
        // and its value is found again by skipping the key when printing. That is 4 bytes per
        // pair (8 past 4 GiB of body), never more than the encoded size.
        let keys = Keys {
            body: v.body_reader(),
            depth: v.depth() + 1,
            opts: v.options(),
        };
        let mut r = keys.body;
        let (depth, opts) = (keys.depth, keys.opts);
        if u32::try_from(r.remaining()).is_ok() {
            let mut offsets: Vec<u32> = Vec::with_capacity(d.len().min(r.remaining() / 8));
            for _ in 0..d.len() {
                offsets.push(r.pos() as u32);
                skip_value(&mut r, depth, &opts)?;
                skip_value(&mut r, depth, &opts)?;
            }
            keys.print(&mut offsets, |&k| k as usize, s)?;
        } else {
            let mut offsets: Vec<usize> = Vec::with_capacity(d.len().min(r.remaining() / 8));
            for _ in 0..d.len() {
                offsets.push(r.pos());
                skip_value(&mut r, depth, &opts)?;
                skip_value(&mut r, depth, &opts)?;
            }
            keys.print(&mut offsets, |&k| k, s)?;
        }
    }
    if typed {
        s.ch(')');
    }
    Ok(())
}

/// A dictionary's pairs, re-read from their offsets within its body.
struct Keys<'a> {
    body: Reader<'a>,
    depth: u32,
    opts: Options,
}

impl<'a> Keys<'a> {
    /// A cursor at the key at `rel` bytes into the body.
    fn at(&self, rel: usize) -> Result<Reader<'a>> {
        let mut r = self.body;
        r.skip(rel)?;
        Ok(r)
    }

    /// The key at `rel`: its head only, O(1) (a container's elements are read lazily).
    fn key(&self, rel: usize) -> Result<VariantRef<'a>> {
        head(&mut self.at(rel)?, self.depth, &self.opts, false)
            .map(|h| VariantRef::new(h, self.depth, self.opts))
    }

    /// Sorts the keys (given by their offsets) in the engine's order and prints the pairs.
    fn print<X: Copy>(
        &self,
        offsets: &mut [X],
        rel: impl Fn(&X) -> usize,
        s: &mut Sink<'_>,
    ) -> Result<()> {
        // Every pair was read once already, so re-reading a key does not fail.
        godot_sort(offsets, |a, b| match (self.key(rel(a)), self.key(rel(b))) {
            (Ok(a), Ok(b)) => less(&a, &b),
            _ => false,
        });
        s.push("{\n");
        for (i, x) in offsets.iter().enumerate() {
            if i > 0 {
                s.push(",\n");
            }
            let mut r = self.at(rel(x))?;
            let mut k = r;
            write(
                &VariantRef::new(
                    head(&mut k, self.depth, &self.opts, false)?,
                    self.depth,
                    self.opts,
                ),
                s,
            )?;
            s.push(": ");
            skip_value(&mut r, self.depth, &self.opts)?;
            write(
                &VariantRef::new(
                    head(&mut r, self.depth, &self.opts, false)?,
                    self.depth,
                    self.opts,
                ),
                s,
            )?;
        }
        s.push("\n}");
        Ok(())
    }
}

/// The name of a container's element / key / value type as the engine prints it.
fn type_name(t: &ContainerType<'_>, s: &mut Sink<'_>) {
    match t {
        ContainerType::None => s.push("Variant"),
        ContainerType::Builtin(ty) => s.push(ty.name()),
        ContainerType::ClassName(c) => s.push(&c.to_string_lossy()),
        ContainerType::Script(p) => {
            s.push("Resource(\"");
            s.push(&p.to_string_lossy());
            s.push("\")");
        }
    }
}

/// `String::c_escape_multiline`: only `\` and `"` are escaped (Strings).
fn escape_multiline(t: &str, s: &mut Sink<'_>) {
    for c in t.chars() {
        match c {
            '\\' => s.push("\\\\"),
            '"' => s.push("\\\""),
            c => s.ch(c),
        }
    }
}

/// `String::c_escape` (StringName, NodePath, PackedStringArray entries). Godot 3 also escapes
/// `?`.
fn c_escape(t: &str, d: Dialect, s: &mut Sink<'_>) {
    for c in t.chars() {
        match c {
            '\\' => s.push("\\\\"),
            '\u{7}' => s.push("\\a"),
            '\u{8}' => s.push("\\b"),
            '\u{c}' => s.push("\\f"),
            '\n' => s.push("\\n"),
            '\r' => s.push("\\r"),
            '\t' => s.push("\\t"),
            '\u{b}' => s.push("\\v"),
            '\'' => s.push("\\'"),
            '"' => s.push("\\\""),
            '?' if d == Dialect::Godot3 => s.push("\\?"),
            c => s.ch(c),
        }
    }
}

/// The engine's key order for printing dictionaries: Godot 4's `StringLikeVariantOrder`
/// (String and StringName compare as text) over `Variant::operator<` (type id first, then the
/// type's `<` operator where it has one; values of types without one are unordered).
pub(crate) fn less(a: &VariantRef<'_>, b: &VariantRef<'_>) -> bool {
    order(a, b) == Ordering::Less
}

/// [`less`] as one three-way comparison: `Less` iff `less(a, b)`, `Greater` iff `less(b, a)`,
/// and `Equal` when neither holds (equal, or unordered: NaNs, types without `<`, malformed
/// values). Computed once per element pair, so comparing two Arrays costs time linear in their
/// size (testing `less` both ways per element would cost 2^depth on nested Arrays). Recurses
/// once per Array nesting level of the keys (bounded by the read depth limit).
pub(crate) fn order(a: &VariantRef<'_>, b: &VariantRef<'_>) -> Ordering {
    let d = a.dialect();
    let string_like = |v: &VariantRef<'_>| matches!(v.ty(), T::String | T::StringName);
    if d == Dialect::Godot4 && string_like(a) && string_like(b) {
        return text_bytes(a).cmp(text_bytes(b));
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
        T::String | T::StringName => Some(text_bytes(a).cmp(text_bytes(b))),
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
        T::Array if d == Dialect::Godot4 => array_order(a, b).ok(),
        _ => None,
    };
    o.unwrap_or(Ordering::Equal)
}

fn text_bytes<'a>(v: &VariantRef<'a>) -> &'a [u8] {
    v.as_text().map(|t| t.as_bytes()).unwrap_or(&[])
}

/// Godot 4's `Array::operator<`: element-wise (the first pair ordered either way decides),
/// then the shorter first. A malformed element leaves the pair unordered.
fn array_order(a: &VariantRef<'_>, b: &VariantRef<'_>) -> Result<Ordering> {
    let (x, y) = (a.as_array()?, b.as_array()?);
    let (mut i, mut j) = (x.iter(), y.iter());
    loop {
        match (i.try_next()?, j.try_next()?) {
            (Some(p), Some(q)) => match order(&p, &q) {
                Ordering::Equal => {}
                o => return Ok(o),
            },
            (None, Some(_)) => return Ok(Ordering::Less),
            (Some(_), None) => return Ok(Ordering::Greater),
            (None, None) => return Ok(Ordering::Equal),
        }
    }
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

    fn nested(depth: usize, inner: crate::Variant) -> crate::Variant {
        use crate::owned::Array;
        let mut v = crate::Variant::Array(Array::new(vec![inner]));
        for _ in 1..depth {
            v = crate::Variant::Array(Array::new(vec![v]));
        }
        v
    }

    #[test]
    fn comparing_deeply_nested_array_keys_takes_linear_time() {
        // Testing `less` both ways per element pair cost 2^40 comparisons here.
        let mut d = crate::owned::Dictionary::new();
        d.entries
            .push((nested(40, crate::Variant::Int(1)), crate::Variant::Int(1)));
        d.entries
            .push((nested(40, crate::Variant::Nil), crate::Variant::Int(2)));
        d.entries
            .push((nested(40, crate::Variant::Nil), crate::Variant::Int(3)));
        let bytes = crate::encode(&crate::Variant::Dictionary(d)).unwrap();
        let text = to_text(&crate::parse(&bytes).unwrap()).unwrap();
        let key = |x: &str| format!("{}{x}{}", "[".repeat(40), "]".repeat(40));
        assert_eq!(
            text,
            format!(
                "{{\n{}: 2,\n{}: 3,\n{}: 1\n}}",
                key("null"),
                key("null"),
                key("1")
            )
        );
    }

    #[test]
    fn dictionary_values_after_container_keys_are_found_again() {
        let mut d = crate::owned::Dictionary::new();
        let arr = |v: Vec<crate::Variant>| crate::Variant::Array(crate::owned::Array::new(v));
        d.entries
            .push((arr(vec![2.into(), "x".into()]), arr(vec![5.into()])));
        d.entries.push(("b".into(), arr(vec![])));
        d.entries.push((arr(vec![1.into()]), "one".into()));
        d.entries.push((7.into(), crate::Variant::Nil));
        let bytes = crate::encode(&crate::Variant::Dictionary(d)).unwrap();
        let text = to_text(&crate::parse(&bytes).unwrap()).unwrap();
        assert_eq!(
            text,
            "{\n7: null,\n\"b\": [],\n[1]: \"one\",\n[2, \"x\"]: [5]\n}"
        );
    }
}
