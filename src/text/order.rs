//! The engine's order of dictionary keys, which its text form prints sorted: Godot 4's
//! `StringLikeVariantOrder` over `Variant::operator<`, Godot 3.2's `Variant::operator<`
//! ([`sorts_before`]), and the engine's own sort ([`godot_sort`]), so that keys the order
//! cannot tell apart come out where the engine puts them. Keys are compared lazily, in place,
//! without recursion and in time linear in their size.

use core::cell::RefCell;
use core::cmp::Ordering;
use std::vec::Vec;

use crate::array::ArrayIter;
use crate::error::Result;
use crate::types::{Dialect, VariantType as T};
use crate::value::VariantRef;

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
    let d = |t: &[u8]| crate::strings::Text::new(t).to_string_lossy().into_owned();
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
}
