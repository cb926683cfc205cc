//! Dictionary key identity as the engine's: when two keys are the same key, and how keys hash
//! (the hash index of large [`Dictionary`](crate::Dictionary)s is [`super::index`]'s).
//!
//! This is the one place that decides whether two keys are the same dictionary key; the owned
//! [`Dictionary`](crate::Dictionary), [`VariantRef::to_owned`](crate::VariantRef::to_owned)
//! (the engine's rule for repeated keys in the bytes) and the text and JSON readers all use it.
//!
//! # Godot 4 (`Dictionary`'s `StringLikeVariantComparator` over `Variant::hash_compare`)
//!
//! Checked against the live engine (Godot 4.6; `tests/godot/keys4.gd`):
//! - Keys of different types are different keys (`1` and `1.0`, `[1]` and `[1.0]`), except
//!   that a String and a StringName with the same text are the same key (`"a"` and `&"a"`),
//!   at the top level and for the keys of a nested dictionary, not inside arrays.
//! - A float key: `-0.0` and `0.0` are the same key, and so are two NaNs (whatever their bits).
//! - Vectors, Rect2, Transform2D, Plane, Quaternion, AABB, Basis, Transform3D, Projection and
//!   Color compare component-wise in the same way (NaN equals NaN, `-0.0` equals `0.0`), and so
//!   do the elements of PackedFloat32/64Array and the packed vector and color arrays.
//! - Arrays compare element by element (their element type does not matter), but a float
//!   element compares with plain `==`: an array holding a NaN float equals no array, not even
//!   one with the same bits. Dictionaries compare entry by entry in order (the engine's hash of
//!   a dictionary depends on the order): keys as keys, values as array elements.
//! - Objects: a null object equals a null object; every other object is a distinct instance
//!   (each decoded object is a new one), so an object key equals no other key.
//! - Everything else (bool, int, integer vectors, strings, NodePath, RID, Signal, Callable,
//!   the other packed arrays) compares by value.
//!
//! # Godot 3 (`VariantComparator` over `Variant::hash_compare`, Godot 3.2.3 checked live)
//!
//! As in Godot 4 with these differences: there is no String/StringName sameness; floats
//! compare with NaN equal to NaN at every level (inside arrays too); a dictionary key is a
//! distinct instance (dictionaries are compared by identity); a PoolRealArray
//! (PackedFloat32Array) equals another only when their elements have the same bits and none is
//! NaN (`-0.0` and `0.0` differ there).
//!
//! # Not modelled
//!
//! The engine stops comparing and hashing containers nested more than about 50 levels deep
//! inside a key (its `MAX_RECURSION`) and treats what is below as equal; here keys are
//! compared whole, at any depth, without recursion.
//!
//! # Hashing
//!
//! One hash serves both dialects: it is consistent with both relations (keys that either
//! calls the same hash alike: String and StringName hash their text alike, floats are
//! normalised, container type info is ignored). It covers the whole key, so hashing costs time
//! linear in the key's size, and equal hashes of different keys are rare. With `std` the hash
//! is keyed randomly per process, so that crafted keys cannot be made to collide. A nested
//! Dictionary enters a key's hash as its own hash, which large and typed dictionaries keep:
//! hashing every key of a tree whose keys hold keys (dictionaries as keys of dictionaries, to
//! any depth) stays linear in the tree's size.
//!
//! A key that equals no key, not even itself (a non-null object, a Godot 4 array holding a NaN
//! float, ...), is never entered in an index and never looked up: any number of them are
//! appended in linear time.

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hasher};

use super::index::{KNOWN, MATCHABLE};
use super::variant::{Dictionary, Object, Variant};
use crate::types::{Dialect, VariantType as T};

// ----- equality -----

/// Whether `a` and `b` are the same dictionary key under `dialect`'s rule (see the
/// [module docs](self)). Iterative: keys nested at any depth are compared without recursion.
pub(crate) fn same_key(a: &Variant, b: &Variant, dialect: Dialect) -> bool {
    // One unit of counted work per comparison (scaling tests; nothing without the feature).
    crate::reader::work(1);
    let g4 = dialect == Dialect::Godot4;
    // Pairs still to compare, with how: as a key (semantic floats, string-like) or as an
    // element (Godot 4: plain float `==`).
    let mut stack: Vec<(&Variant, &Variant, Pos)> = Vec::new();
    let mut cur = (a, b, Pos::Key);
    loop {
        if !shallow(cur.0, cur.1, cur.2, g4, &mut stack) {
            return false;
        }
        match stack.pop() {
            Some(next) => cur = next,
            None => return true,
        }
    }
}

/// Where a value sits in a key being compared or hashed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pos {
    /// A dictionary key (the top-level key or a nested dictionary's key).
    Key,
    /// An array element or a nested dictionary's value.
    Element,
}

/// `x == y`, or both NaN.
#[inline]
fn same_real(x: f64, y: f64) -> bool {
    x == y || (x.is_nan() && y.is_nan())
}

#[inline]
fn same_reals<const N: usize>(a: [f64; N], b: [f64; N]) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| same_real(*x, *y))
}

#[inline]
fn same_f32s(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| same_real(f64::from(*x), f64::from(*y)))
}

#[inline]
fn same_f64s(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_real(*x, *y))
}

#[inline]
fn is_null_object(o: &Object) -> bool {
    match o {
        Object::Id(id) => *id == 0,
        Object::Full { class, .. } => class.is_empty(),
    }
}

/// Compares one pair; pushes the children of containers onto `stack`.
fn shallow<'v>(
    a: &'v Variant,
    b: &'v Variant,
    pos: Pos,
    g4: bool,
    stack: &mut Vec<(&'v Variant, &'v Variant, Pos)>,
) -> bool {
    use Variant as V;
    // Godot 3 compares every float "semantically" (NaN equal to NaN); Godot 4 only outside
    // arrays and dictionary values.
    let semantic = !g4 || pos == Pos::Key;
    match (a, b) {
        (V::Nil, V::Nil) | (V::Callable, V::Callable) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Int(x), V::Int(y)) => x == y,
        (V::Float(x), V::Float(y)) => {
            if semantic {
                same_real(*x, *y)
            } else {
                x == y
            }
        }
        (V::String(x), V::String(y)) | (V::StringName(x), V::StringName(y)) => x == y,
        (V::String(x), V::StringName(y)) | (V::StringName(x), V::String(y)) => {
            g4 && pos == Pos::Key && x == y
        }
        (V::Vector2(x), V::Vector2(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Vector2i(x), V::Vector2i(y)) => x == y,
        (V::Rect2(x), V::Rect2(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Rect2i(x), V::Rect2i(y)) => x == y,
        (V::Vector3(x), V::Vector3(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Vector3i(x), V::Vector3i(y)) => x == y,
        (V::Transform2D(x), V::Transform2D(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Vector4(x), V::Vector4(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Vector4i(x), V::Vector4i(y)) => x == y,
        (V::Plane(x), V::Plane(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Quaternion(x), V::Quaternion(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Aabb(x), V::Aabb(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Basis(x), V::Basis(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Transform3D(x), V::Transform3D(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Projection(x), V::Projection(y)) => same_reals(x.to_array(), y.to_array()),
        (V::Color(x), V::Color(y)) => same_f32s(&x.to_array(), &y.to_array()),
        (V::NodePath(x), V::NodePath(y)) => x == y,
        (V::Rid(x), V::Rid(y)) => x == y,
        (V::Signal(x), V::Signal(y)) => x == y,
        (V::Object(x), V::Object(y)) => is_null_object(x) && is_null_object(y),
        (V::Array(x), V::Array(y)) => {
            if x.items.len() != y.items.len() {
                return false;
            }
            stack.extend(
                x.items
                    .iter()
                    .zip(&y.items)
                    .map(|(p, q)| (p, q, Pos::Element)),
            );
            true
        }
        (V::Dictionary(x), V::Dictionary(y)) => {
            // Godot 3 compares dictionaries by identity: every decoded one is distinct.
            if !g4 || x.len() != y.len() {
                return false;
            }
            for ((k1, v1), (k2, v2)) in x.entries().iter().zip(y.entries()) {
                stack.push((k1, k2, Pos::Key));
                stack.push((v1, v2, Pos::Element));
            }
            true
        }
        (V::PackedByteArray(x), V::PackedByteArray(y)) => x == y,
        (V::PackedInt32Array(x), V::PackedInt32Array(y)) => x == y,
        (V::PackedInt64Array(x), V::PackedInt64Array(y)) => x == y,
        (V::PackedFloat32Array(x), V::PackedFloat32Array(y)) => {
            if g4 {
                same_f32s(x, y)
            } else {
                // PoolRealArray: hashed by its bytes, compared with `==`.
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(p, q)| p.to_bits() == q.to_bits() && !p.is_nan())
            }
        }
        (V::PackedFloat64Array(x), V::PackedFloat64Array(y)) => same_f64s(x, y),
        (V::PackedStringArray(x), V::PackedStringArray(y)) => x == y,
        (V::PackedVector2Array(x), V::PackedVector2Array(y)) => {
            same_f64s(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedVector3Array(x), V::PackedVector3Array(y)) => {
            same_f64s(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedVector4Array(x), V::PackedVector4Array(y)) => {
            same_f64s(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedColorArray(x), V::PackedColorArray(y)) => {
            same_f32s(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::Raw(x), V::Raw(y)) => x == y,
        _ => false,
    }
}

// ----- hashing -----

/// A float as hashed: `-0.0` as `0.0`, every NaN alike.
#[inline]
fn norm(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else if x.is_nan() {
        0x7FF8_0000_0000_0000
    } else {
        x.to_bits()
    }
}

#[inline]
fn reals<const N: usize>(a: [f64; N], h: &mut impl Hasher) {
    for x in a {
        h.write_u64(norm(x));
    }
}

/// What hashing a key found: its hash, and whether it can equal any key at all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyInfo {
    pub(crate) hash: u64,
    /// False for a key that equals no key (not even itself) under the rule it was hashed for.
    pub(crate) matchable: bool,
}

/// Hashes `k` (consistently with [`same_key`] under both dialects) and finds whether it is
/// matchable under `dialect`'s rule. Iterative. A key found unmatchable is not hashed further
/// (its hash is never used).
///
/// The hash is that of the key's *part* (see [`write_part`] for a leaf, [`write_container`] for
/// an Array or a Godot 4 Dictionary): a container is hashed on a hasher of its own
/// ([`content_hasher`]) and enters its parent's hash as that one word, which a Dictionary with
/// out-of-line parts (an index or type info) keeps ([`ContentHash`]): a key holding such a
/// Dictionary costs one word, however large it is, once its hash is known. So inserting every
/// key of a tree (as the readers do, bottom up) hashes each byte at most twice, whatever the
/// depth (the "keys nested in keys" shape of `tests/read/scaling.rs`); and a lazy key hashed
/// bottom up as a walk reads it (the text printer's) gets the same hash.
pub(crate) fn key_info<S: BuildHasher>(k: &Variant, dialect: Dialect, s: &S) -> KeyInfo {
    use Variant as V;
    let g4 = dialect == Dialect::Godot4;
    let mut h = s.build_hasher();
    let mut matchable = true;
    let mut stack: Vec<Step<'_, S::Hasher>> = Vec::new();
    let mut cur = Step::Visit(k, Pos::Key);
    loop {
        // Counted work (scaling tests): a unit per step, and the leaves' bytes below.
        crate::reader::work(1);
        match cur {
            Step::Visit(V::Array(a), _) => {
                // Its elements on a fresh hasher, pushed in reverse so that they are hashed in
                // order, after which `End` folds it into this one.
                let outer = core::mem::replace(&mut h, content_hasher(s, a.items.len()));
                stack.push(Step::End(T::Array, None, outer));
                stack.extend(a.items.iter().rev().map(|x| Step::Visit(x, Pos::Element)));
            }
            Step::Visit(V::Dictionary(d), _) if g4 => {
                match d.extra.as_deref().and_then(|x| x.hash.get()) {
                    Some((hash, m)) => {
                        write_container(&mut h, T::Dictionary, hash);
                        matchable &= m;
                    }
                    None => {
                        let outer = core::mem::replace(&mut h, content_hasher(s, d.len()));
                        stack.push(Step::End(T::Dictionary, Some(d), outer));
                        for (k, x) in d.entries().iter().rev() {
                            stack.push(Step::Visit(x, Pos::Element));
                            stack.push(Step::Visit(k, Pos::Key));
                        }
                    }
                }
            }
            Step::Visit(v, pos) => write_part(v, pos, g4, &mut h, &mut matchable),
            Step::End(ty, d, outer) => {
                let hash = content_hash(&h);
                if let Some(x) = d.and_then(|d| d.extra.as_deref()) {
                    x.hash.set(hash, true);
                }
                h = outer;
                write_container(&mut h, ty, hash);
            }
        }
        if !matchable {
            // Every Dictionary still open holds what made the key unmatchable.
            for step in &stack {
                if let Step::End(_, Some(d), _) = step {
                    if let Some(x) = d.extra.as_deref() {
                        x.hash.set(0, false);
                    }
                }
            }
            break;
        }
        match stack.pop() {
            Some(next) => cur = next,
            None => break,
        }
    }
    KeyInfo {
        hash: h.finish(),
        matchable,
    }
}

/// A step of [`key_info`]'s walk: a value to hash where it sits, or the end of a container
/// (an Array or a Godot 4 Dictionary) hashed on its own hasher, with the hasher of what holds
/// it.
enum Step<'v, H> {
    Visit(&'v Variant, Pos),
    End(T, Option<&'v Dictionary>, H),
}

/// The hasher of a container's content (an Array's elements, a Godot 4 Dictionary's entries,
/// in order): its length first.
#[inline]
pub(crate) fn content_hasher<S: BuildHasher>(s: &S, len: usize) -> S::Hasher {
    let mut h = s.build_hasher();
    h.write_usize(len);
    h
}

/// The hash of a container's content ([`content_hasher`], then its children's parts): its
/// two low bits clear, as a [`ContentHash`] keeps it, so that a kept hash and a fresh one are
/// the same word.
#[inline]
pub(crate) fn content_hash<H: Hasher>(h: &H) -> u64 {
    h.finish() & !(KNOWN | MATCHABLE)
}

/// A container's part in the hash of what holds it (its parent's content, or the key it is):
/// its type, then the hash of its content ([`content_hash`]).
#[inline]
pub(crate) fn write_container<H: Hasher>(h: &mut H, ty: T, content: u64) {
    h.write_u8(ty as u8);
    h.write_u64(content);
}

/// The key hash of a container key whose content hashed to `content`: [`key_info`]'s hash of
/// it (the text printer's).
#[cfg(feature = "std")]
pub(crate) fn container_key_hash<S: BuildHasher>(s: &S, ty: T, content: u64) -> u64 {
    let mut h = s.build_hasher();
    write_container(&mut h, ty, content);
    h.finish()
}

/// The hash of a String or StringName key of text `s` (as [`key_info`] computes it).
pub(crate) fn str_hash<S: BuildHasher>(s: &str, state: &S) -> u64 {
    let mut h = state.build_hasher();
    write_text(&mut h, s);
    h.finish()
}

/// The part of a String or StringName of text `s`: both alike (see [`write_part`]).
#[inline]
fn write_text<H: Hasher>(h: &mut H, s: &str) {
    h.write_u8(STRING_CLASS);
    h.write(s.as_bytes());
    h.write_u8(0xFF);
}

/// The type byte String and StringName share in the hash.
const STRING_CLASS: u8 = 0xFE;

/// A leaf's part in the hash of what holds it (its parent's content, or the key it is): its
/// type and its value, by the engine's key identity (String and StringName alike, floats
/// normalised, see [`norm`]); clears `matchable` for a value that equals nothing where it sits
/// under the rule (`g4`: Godot 4's, else Godot 3's). The one description of how a value that
/// is not an Array or a Godot 4 Dictionary is hashed, for owned keys ([`key_info`]) and lazy
/// ones alike ([`VariantRef::write_key_part`](crate::VariantRef)).
pub(crate) fn write_part<H: Hasher>(
    v: &Variant,
    pos: Pos,
    g4: bool,
    h: &mut H,
    matchable: &mut bool,
) {
    use Variant as V;
    match v {
        V::String(s) | V::StringName(s) => return write_text(h, s),
        _ => h.write_u8(v.ty() as u8),
    }
    match v {
        V::Nil | V::Callable | V::String(_) | V::StringName(_) => {}
        V::Bool(b) => h.write_u8(u8::from(*b)),
        V::Int(i) => h.write_i64(*i),
        V::Float(x) => {
            if g4 && pos == Pos::Element && x.is_nan() {
                *matchable = false;
            }
            h.write_u64(norm(*x));
        }
        V::Vector2(x) => reals(x.to_array(), h),
        V::Vector2i(x) => x.to_array().iter().for_each(|c| h.write_i32(*c)),
        V::Rect2(x) => reals(x.to_array(), h),
        V::Rect2i(x) => x.to_array().iter().for_each(|c| h.write_i32(*c)),
        V::Vector3(x) => reals(x.to_array(), h),
        V::Vector3i(x) => x.to_array().iter().for_each(|c| h.write_i32(*c)),
        V::Transform2D(x) => reals(x.to_array(), h),
        V::Vector4(x) => reals(x.to_array(), h),
        V::Vector4i(x) => x.to_array().iter().for_each(|c| h.write_i32(*c)),
        V::Plane(x) => reals(x.to_array(), h),
        V::Quaternion(x) => reals(x.to_array(), h),
        V::Aabb(x) => reals(x.to_array(), h),
        V::Basis(x) => reals(x.to_array(), h),
        V::Transform3D(x) => reals(x.to_array(), h),
        V::Projection(x) => reals(x.to_array(), h),
        V::Color(c) => c
            .to_array()
            .iter()
            .for_each(|x| h.write_u64(norm(f64::from(*x)))),
        V::NodePath(np) => {
            h.write_usize(np.names.len());
            h.write_usize(np.subnames.len());
            h.write_u8(u8::from(np.absolute));
            for s in np.names.iter().chain(&np.subnames) {
                h.write(s.as_bytes());
                h.write_u8(0xFF);
            }
        }
        V::Rid(id) => h.write_u64(*id),
        V::Object(o) => {
            if !is_null_object(o) {
                *matchable = false;
            }
        }
        V::Signal(s) => {
            h.write(s.name.as_bytes());
            h.write_u8(0xFF);
            h.write_u64(s.object_id);
        }
        // Godot 3 compares dictionaries by identity.
        V::Dictionary(_) if !g4 => *matchable = false,
        // Containers: their content is hashed by the caller ([`content_hasher`]).
        V::Dictionary(_) | V::Array(_) => {}
        V::PackedByteArray(a) => {
            crate::reader::work(a.len());
            h.write_usize(a.len());
            h.write(a);
        }
        V::PackedInt32Array(a) => {
            h.write_usize(a.len());
            a.iter().for_each(|x| h.write_i32(*x));
        }
        V::PackedInt64Array(a) => {
            h.write_usize(a.len());
            a.iter().for_each(|x| h.write_i64(*x));
        }
        V::PackedFloat32Array(a) => {
            h.write_usize(a.len());
            if !g4 && a.iter().any(|x| x.is_nan()) {
                *matchable = false;
            }
            a.iter().for_each(|x| h.write_u64(norm(f64::from(*x))));
        }
        V::PackedFloat64Array(a) => {
            h.write_usize(a.len());
            a.iter().for_each(|x| h.write_u64(norm(*x)));
        }
        V::PackedStringArray(a) => {
            h.write_usize(a.len());
            for s in a {
                h.write(s.as_bytes());
                h.write_u8(0xFF);
            }
        }
        V::PackedVector2Array(a) => packed_reals(bytemuck::cast_slice(a), h),
        V::PackedVector3Array(a) => packed_reals(bytemuck::cast_slice(a), h),
        V::PackedVector4Array(a) => packed_reals(bytemuck::cast_slice(a), h),
        V::PackedColorArray(a) => {
            let f: &[f32] = bytemuck::cast_slice(a);
            h.write_usize(f.len());
            f.iter().for_each(|x| h.write_u64(norm(f64::from(*x))));
        }
        V::Raw(r) => {
            h.write_u8(r.dialect() as u8);
            h.write(r.as_bytes());
        }
    }
}

fn packed_reals(a: &[f64], h: &mut impl Hasher) {
    h.write_usize(a.len());
    a.iter().for_each(|x| h.write_u64(norm(*x)));
}

impl crate::value::VariantRef<'_> {
    /// Whether two encoded keys are the same key to the engine of `dialect`, compared as the
    /// engine reads them (for the key types the view does not compare in place).
    pub(crate) fn same_key_as(
        &self,
        other: &crate::value::VariantRef<'_>,
        dialect: crate::types::Dialect,
    ) -> crate::error::Result<bool> {
        Ok(same_key(&self.to_owned()?, &other.to_owned()?, dialect))
    }

    /// Writes this value's part in the hash of the key holding it (or that it is): what
    /// [`write_part`] writes for the value the engine reads ([`to_owned`](Self::to_owned)),
    /// where it sits (`pos`), under its dialect's rule. For an Array or a Godot 4 Dictionary it
    /// writes nothing and returns `true`: the caller hashes their content as [`key_info`] does
    /// ([`content_hasher`], [`content_hash`], [`write_container`]). Reads the value shallowly:
    /// a full Object's part is its type, null or not (its properties are not read).
    #[cfg(feature = "std")]
    pub(crate) fn write_key_part<H: Hasher>(
        &self,
        pos: Pos,
        h: &mut H,
        matchable: &mut bool,
    ) -> crate::error::Result<bool> {
        use crate::object::ObjectRef;
        let g4 = self.dialect() == Dialect::Godot4;
        // The engine's value, read without a walk for the common kinds.
        let value = match self.ty() {
            T::Array => return Ok(true),
            T::Dictionary if g4 => return Ok(true),
            T::String | T::StringName => {
                write_text(h, &self.as_text()?.to_string_lossy());
                return Ok(false);
            }
            T::Nil => Variant::Nil,
            T::Bool => Variant::Bool(self.as_bool()?),
            T::Int => Variant::Int(self.as_i64()?),
            T::Float => Variant::Float(self.as_f64()?),
            // A Godot 3 Dictionary (compared by identity: its entries do not matter).
            T::Dictionary => Variant::Dictionary(Dictionary::new()),
            T::Object => Variant::Object(alloc::boxed::Box::new(match self.as_object()? {
                ObjectRef::Id(id) => Object::Id(id),
                ObjectRef::Full(f) => Object::Full {
                    class: f.class_name().to_string_lossy().into_owned(),
                    properties: Vec::new(),
                },
            })),
            _ => self.to_owned()?,
        };
        write_part(&value, pos, g4, h, matchable);
        Ok(false)
    }

    /// [`key_info`] of this key (of its dialect's rule) when it is not an Array or a Godot 4
    /// Dictionary (`None` for those: their hash is that of their content, see
    /// [`container_key_hash`]).
    #[cfg(feature = "std")]
    pub(crate) fn leaf_key_info<S: BuildHasher>(
        &self,
        s: &S,
    ) -> crate::error::Result<Option<KeyInfo>> {
        let mut h = s.build_hasher();
        let mut matchable = true;
        if self.write_key_part(Pos::Key, &mut h, &mut matchable)? {
            return Ok(None);
        }
        Ok(Some(KeyInfo {
            hash: h.finish(),
            matchable,
        }))
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn a_dictionary_key_keeps_the_hash_it_was_entered_with() {
        // A Dictionary with an index keeps its content hash: hashing a key holding it again
        // gives the same hash (the kept word and a fresh one are the same).
        for seed in 0..64i64 {
            let mut inner = Dictionary::new();
            for i in 0..20 {
                inner.insert(Variant::Int(i * 1000 + seed), Variant::Int(i));
            }
            let key = Variant::Dictionary(inner);
            let mut outer = Dictionary::new();
            for i in 0..20 {
                outer.insert(Variant::Int(i), Variant::Int(i));
            }
            outer.insert(key.clone(), Variant::Int(7));
            for _ in 0..3 {
                assert_eq!(outer.get(&key), Some(&Variant::Int(7)), "{seed}");
            }
        }
    }
}
