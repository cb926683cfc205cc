//! Decoded leaves: every value that is not a container with a body still to read, read into
//! its final place.

use crate::error::Result;
use crate::leaf::{self, Leaf};
use crate::math::*;
use crate::object::ObjectRef;
use crate::owned::*;
use crate::reader::Reader;
use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;
use alloc::boxed::Box;
use alloc::vec::Vec;

use super::containers::capacity;
use super::strings::{owned_text_into, string_of, text_string, StrCache};

/// Reads `count` strings at `r` (the body of a PackedStringArray).
fn read_strings<'a>(
    r: &mut Reader<'a>,
    count: u32,
    dialect: Dialect,
    budget: &mut usize,
    cache: &mut StrCache<'a>,
) -> Result<Vec<GString>> {
    let mut out = Vec::with_capacity(capacity(count, r.remaining(), 4, budget));
    for _ in 0..count {
        let (raw, at) = r.read_string_raw()?;
        // Read into its final place (a text returned by value and pushed is a copy through a
        // temporary, read back wide: a store-forwarding stall per string).
        out.push(GString::new());
        if let Some(s) = out.last_mut() {
            cache.get_into(raw, at, dialect, s)?;
        }
    }
    Ok(out)
}

/// Sets `out`, which is Nil, without dropping it (no call, no check).
#[inline]
pub(super) fn put(out: &mut Variant, x: Variant) {
    // in_to_owned +19 %, gs_to_owned +7 % time with drops in place of decode/'s four forgets (layout-pinned A/B)
    core::mem::forget(core::mem::replace(out, x));
}

/// The plain value at the start of `b` (at absolute offset `at`), read by the one decoder of
/// leaves ([`leaf::plain`]) into `out` (a Nil, in its final position: a short text is filled in
/// place), and its size: Nil, bool, int, float, Vector2 and Vector3 (unless their 64-bit math is
/// to be narrowed: `narrow`), String and StringName (whose bytes and padding are ASCII when
/// `ASCII`: bytes the walker has not checked). `None` for anything else, short input included
/// (`out` is then still Nil): the exact path reads it. A String at a dictionary key position
/// (`key`) goes through the cache.
// in_to_owned +34 % without (layout-pinned A/B; outlined, with the sink below)
#[inline(always)]
pub(super) fn plain_leaf_into<'a, const ASCII: bool>(
    b: &'a [u8],
    at: usize,
    dialect: Dialect,
    key: bool,
    cache: &mut StrCache<'a>,
    narrow: bool,
    out: &mut Variant,
) -> Result<Option<usize>> {
    const ALL: u8 = leaf::NIL | leaf::BOOL | leaf::INT | leaf::FLOAT | leaf::STR | leaf::VECTOR;
    let sink = Put {
        out,
        cache,
        at,
        dialect,
        key,
    };
    match leaf::plain::<_, ALL, ASCII>(b, dialect.layouts(), !narrow, sink) {
        Some((res, n)) => res.map(|()| Some(n)),
        None => Ok(None),
    }
}

/// [`plain_leaf_into`]'s sink: the leaf into `out`, its text (after the header and the length
/// word, at `at + 8`) through the `cache` at a dictionary key position (`key`).
struct Put<'c, 'a> {
    out: &'c mut Variant,
    cache: &'c mut StrCache<'a>,
    at: usize,
    dialect: Dialect,
    key: bool,
}

impl<'a> leaf::Sink<'a> for Put<'_, 'a> {
    type Out = Result<()>;

    // in_to_owned +34 % without (layout-pinned A/B; outlined, with plain_leaf_into)
    #[inline(always)]
    fn leaf(self, x: Leaf<'a>) -> Result<()> {
        let (x, raw) = match x {
            Leaf::Nil => return Ok(()),
            Leaf::Bool(x) => (Variant::Bool(x), None),
            Leaf::Int(i) => (Variant::Int(i), None),
            Leaf::Float(f) => (Variant::Float(f), None),
            Leaf::Vector2(a) => (Variant::Vector2(Vector2::from_array(a)), None),
            Leaf::Vector3(a) => (Variant::Vector3(Vector3::from_array(a)), None),
            Leaf::String(raw) => (Variant::String(GString::new()), Some(raw)),
            Leaf::StringName(raw) => (Variant::StringName(GString::new()), Some(raw)),
        };
        put(self.out, x);
        if let (Some(raw), Variant::String(s) | Variant::StringName(s)) = (raw, self.out) {
            if self.key {
                self.cache.get_into(raw, self.at + 8, self.dialect, s)?;
            } else {
                owned_text_into(raw, self.at + 8, self.dialect, s)?;
            }
        }
        Ok(())
    }
}

/// Converts a value that is not a container with a body still to read (`v` is sized, or is a
/// PackedStringArray whose strings follow at `r`) into `out`.
pub(super) fn leaf<'a>(
    v: &VariantRef<'a>,
    r: &mut Reader<'a>,
    budget: &mut usize,
    cache: &mut StrCache<'a>,
    out: &mut Variant,
) -> Result<()> {
    use VariantType as T;
    let at = v.offset();
    match v.ty() {
        T::Nil => *out = Variant::Nil,
        T::Bool => *out = Variant::Bool(v.as_bool()?),
        T::Int => *out = Variant::Int(v.as_i64()?),
        T::Float => *out = Variant::Float(v.as_f64()?),
        T::String => *out = Variant::String(string_of(v)?),
        T::StringName => *out = Variant::StringName(string_of(v)?),
        T::Vector2 => *out = Variant::Vector2(v.as_vector2()?),
        T::Vector2i => *out = Variant::Vector2i(v.as_vector2i()?),
        T::Rect2 => *out = Variant::Rect2(v.as_rect2()?),
        T::Rect2i => *out = Variant::Rect2i(v.as_rect2i()?),
        T::Vector3 => *out = Variant::Vector3(v.as_vector3()?),
        T::Vector3i => *out = Variant::Vector3i(v.as_vector3i()?),
        T::Transform2D => *out = Variant::Transform2D(Box::new(v.as_transform2d()?)),
        T::Vector4 => *out = Variant::Vector4(v.as_vector4()?),
        T::Vector4i => *out = Variant::Vector4i(v.as_vector4i()?),
        T::Plane => *out = Variant::Plane(v.as_plane()?),
        T::Quaternion => *out = Variant::Quaternion(v.as_quaternion()?),
        T::Aabb => *out = Variant::Aabb(Box::new(v.as_aabb()?)),
        T::Basis => *out = Variant::Basis(Box::new(v.as_basis()?)),
        T::Transform3D => *out = Variant::Transform3D(Box::new(v.as_transform3d()?)),
        T::Projection => *out = Variant::Projection(Box::new(v.as_projection()?)),
        T::Color => *out = Variant::Color(v.as_color()?),
        T::NodePath => {
            let np = v.as_node_path()?;
            let mut names = Vec::with_capacity(np.name_count().min(64));
            let mut it = np.names();
            while let Some(s) = it.try_next()? {
                names.push(s.to_string_lossy().into_owned());
            }
            let mut subnames = Vec::with_capacity(np.subname_count().min(64));
            let mut it = np.subnames()?;
            while let Some(s) = it.try_next()? {
                subnames.push(s.to_string_lossy().into_owned());
            }
            // Godot 3 builds a path without names or subnames as the empty path, which is
            // never absolute.
            let absolute = np.is_absolute()
                && !(v.dialect() == Dialect::Godot3 && names.is_empty() && subnames.is_empty());
            *out = Variant::NodePath(Box::new(NodePath {
                names,
                subnames,
                absolute,
            }))
        }
        T::Rid => *out = Variant::Rid(v.as_rid()?),
        T::Callable => *out = Variant::Callable,
        T::Signal => {
            let s = v.as_signal()?;
            *out = Variant::Signal(Signal {
                name: text_string(&s.name, at + 8)?,
                object_id: s.object_id,
            })
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(id) => *out = Variant::Object(Box::new(Object::Id(id))),
            // Only a null full object (empty class) has no body.
            ObjectRef::Full(f) => {
                *out = Variant::Object(Box::new(Object::Full {
                    class: text_string(&f.class_name(), at + 8)?,
                    properties: Vec::new(),
                }))
            }
        },
        // Only reached for containers without a body (never: kept total for safety).
        T::Array => *out = Variant::Array(Array::default()),
        T::Dictionary => *out = Variant::Dictionary(Dictionary::default()),
        T::PackedByteArray => *out = Variant::PackedByteArray(v.as_byte_array()?.to_vec()),
        T::PackedInt32Array => *out = Variant::PackedInt32Array(v.as_packed::<i32>()?.to_vec()),
        T::PackedInt64Array => *out = Variant::PackedInt64Array(v.as_packed::<i64>()?.to_vec()),
        T::PackedFloat32Array => *out = Variant::PackedFloat32Array(v.as_packed::<f32>()?.to_vec()),
        T::PackedFloat64Array => *out = Variant::PackedFloat64Array(v.as_packed::<f64>()?.to_vec()),
        T::PackedStringArray => {
            let strings = if v.body().is_some() {
                read_strings(r, v.h.count, v.dialect(), budget, cache)?
            } else {
                read_strings(&mut v.body_reader(), v.h.count, v.dialect(), budget, cache)?
            };
            *out = Variant::PackedStringArray(strings);
        }
        T::PackedVector2Array => {
            *out = Variant::PackedVector2Array(vectors(v, Vector2::from_array)?)
        }
        T::PackedVector3Array => {
            *out = Variant::PackedVector3Array(vectors(v, Vector3::from_array)?)
        }
        T::PackedVector4Array => {
            *out = Variant::PackedVector4Array(vectors(v, Vector4::from_array)?)
        }
        T::PackedColorArray => *out = Variant::PackedColorArray(v.as_packed::<Color>()?.to_vec()),
    }
    Ok(())
}

/// The elements of a packed Vector2/3/4 array (`N` components), single or double precision, as
/// math structs.
pub(super) fn vectors<const N: usize, V>(
    v: &VariantRef<'_>,
    make: fn([f64; N]) -> V,
) -> Result<Vec<V>>
where
    [f32; N]: crate::packed::Element,
    [f64; N]: crate::packed::Element,
{
    Ok(if v.is_wide() {
        v.as_packed::<[f64; N]>()?.iter().map(make).collect()
    } else {
        v.as_packed::<[f32; N]>()?
            .iter()
            .map(|a| make(a.map(crate::math::widen)))
            .collect()
    })
}
