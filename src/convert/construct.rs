//! The engine's conversions (`Variant::construct` for the pairs that
//! [`can_convert`] allows), and the containers the engine builds with them when it decodes
//! typed ones.

use alloc::vec::Vec;

use super::colors::{color_from_string, color_hex};
use super::maths::{
    basis_to_quat, projection_to_t3d, quat_to_basis_in, real, t2d_to_t3d, t3d_to_projection,
    t3d_to_t2d,
};
use super::packed::{packed_elements, packed_from};
use super::parse::{node_path_from_str, node_path_text};
use super::typed::{builtin_of, can_convert, engine_type, engine_types, fit, Fit};
use crate::math::*;
use crate::num::{f64_to_i64, real_to_i32};
use crate::owned::{Array, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions, VariantType as T};

/// Converts `value` to the builtin type `to` as the engine's `Variant::construct(to, value)`
/// does for the pairs [`can_convert`] allows; `None` for the others. A value already of type
/// `to` is returned unchanged. `opts` gives the engine's precision (the math of conversions
/// is done in its `real_t`).
///
/// ```
/// use gdvariant::{convert::convert, ReadOptions, Variant, VariantType, math::Vector2};
/// let opts = ReadOptions::new();
/// assert_eq!(convert(&Variant::Float(-2.7), VariantType::Int, &opts), Some(Variant::Int(-2)));
/// assert_eq!(convert(&Variant::Float(f64::NAN), VariantType::Int, &opts), Some(Variant::Int(i64::MIN)));
/// assert_eq!(convert(&Variant::from(Vector2::new(1.9, -0.5)), VariantType::Vector2i, &opts),
///            Some(Variant::Vector2i(gdvariant::math::Vector2i::new(1, 0))));
/// assert_eq!(convert(&Variant::from("x"), VariantType::Int, &opts), None);
/// ```
pub fn convert(value: &Variant, to: T, opts: &ReadOptions) -> Option<Variant> {
    let from = value.ty();
    if from == to {
        return Some(value.clone());
    }
    if !can_convert(from, to) || to == T::Nil || to == T::Object {
        return None;
    }
    let double = opts.double_precision();
    let r = |x: f64| real(x, double);
    Some(match (to, value) {
        (T::Bool, Variant::Int(i)) => Variant::Bool(*i != 0),
        (T::Bool, Variant::Float(f)) => Variant::Bool(*f != 0.0),
        (T::Int, Variant::Bool(b)) => Variant::Int(i64::from(*b)),
        (T::Int, Variant::Float(f)) => Variant::Int(f64_to_i64(*f)),
        (T::Float, Variant::Bool(b)) => Variant::Float(if *b { 1.0 } else { 0.0 }),
        (T::Float, Variant::Int(i)) => Variant::Float(*i as f64),
        (T::String, Variant::StringName(s)) => Variant::String(s.clone()),
        (T::String, Variant::NodePath(np)) => Variant::String(node_path_text(np).into()),
        (T::Vector2, Variant::Vector2i(v)) => {
            Variant::Vector2(Vector2::new(r(v.x.into()), r(v.y.into())))
        }
        (T::Vector2i, Variant::Vector2(v)) => {
            Variant::Vector2i(Vector2i::new(real_to_i32(v.x), real_to_i32(v.y)))
        }
        (T::Rect2, Variant::Rect2i(v)) => {
            Variant::Rect2(Rect2::from_array(v.to_array().map(|c| r(c.into()))))
        }
        (T::Rect2i, Variant::Rect2(v)) => {
            Variant::Rect2i(Rect2i::from_array(v.to_array().map(real_to_i32)))
        }
        (T::Vector3, Variant::Vector3i(v)) => {
            Variant::Vector3(Vector3::from_array(v.to_array().map(|c| r(c.into()))))
        }
        (T::Vector3i, Variant::Vector3(v)) => {
            Variant::Vector3i(Vector3i::from_array(v.to_array().map(real_to_i32)))
        }
        (T::Vector4, Variant::Vector4i(v)) => {
            Variant::Vector4(Vector4::from_array(v.to_array().map(|c| r(c.into()))))
        }
        (T::Vector4i, Variant::Vector4(v)) => {
            Variant::Vector4i(Vector4i::from_array(v.to_array().map(real_to_i32)))
        }
        (T::Transform2D, Variant::Transform3D(t)) => {
            Variant::from(Transform2D::from_array(t3d_to_t2d(t.to_array())))
        }
        (T::Quaternion, Variant::Basis(b)) => {
            Variant::Quaternion(Quaternion::from_array(if double {
                basis_to_quat::<f64>(b.to_array())
            } else {
                basis_to_quat::<f32>(b.to_array())
            }))
        }
        (T::Basis, Variant::Quaternion(q)) => {
            Variant::from(Basis::from_array(quat_to_basis_in(q.to_array(), double)))
        }
        (T::Transform3D, Variant::Transform2D(t)) => {
            Variant::from(Transform3D::from_array(t2d_to_t3d(t.to_array())))
        }
        (T::Transform3D, Variant::Quaternion(q)) => {
            let mut a = [0.0; 12];
            a[..9].copy_from_slice(&quat_to_basis_in(q.to_array(), double));
            Variant::from(Transform3D::from_array(a))
        }
        (T::Transform3D, Variant::Basis(b)) => {
            let mut a = [0.0; 12];
            a[..9].copy_from_slice(&b.to_array());
            Variant::from(Transform3D::from_array(a))
        }
        (T::Transform3D, Variant::Projection(p)) => {
            Variant::from(Transform3D::from_array(projection_to_t3d(p.to_array())))
        }
        (T::Projection, Variant::Transform3D(t)) => {
            Variant::from(Projection::from_array(t3d_to_projection(t.to_array())))
        }
        (T::Color, Variant::String(s)) => Variant::Color(color_from_string(s)),
        (T::Color, Variant::Int(i)) => Variant::Color(color_hex(*i as u32)),
        (T::Rid, Variant::Object(_)) => Variant::Rid(0),
        (T::StringName, Variant::String(s)) => Variant::StringName(s.clone()),
        (T::NodePath, Variant::String(s)) => Variant::from(node_path_from_str(s)),
        (T::Array, v) => Variant::Array(Array::new(packed_elements(v))),
        (to, Variant::Array(a)) => packed_from(to, &a.items, double)?,
        _ => return None,
    })
}

// ----- containers as the engine builds them -----

/// An Array as the engine builds it from `items` and the declared (wire) element type:
/// untyped when the type is `Nil`, else each element kept, converted or dropped ([`fit`]).
pub(crate) fn engine_array(items: Vec<Variant>, declared: TypeInfo, opts: &ReadOptions) -> Array {
    let ty = engine_type(declared, opts.full_objects());
    let Some(want) = builtin_of(&ty) else {
        return Array::new(items);
    };
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        match fit(&ty, &v) {
            Fit::Keep => out.push(v),
            Fit::Convert => out.extend(convert(&v, want, opts)),
            Fit::Drop => {}
        }
    }
    Array::typed(ty, out)
}

/// A Dictionary as the engine builds it from `entries` and the declared (wire) key and value
/// types: typed when either is not `Nil`; each key kept, converted or dropped with its entry
/// ([`fit`]); values as they are; a repeated key (after conversion) replaces the value of
/// the first in place.
pub(crate) fn engine_dictionary(
    entries: Vec<(Variant, Variant)>,
    key_type: TypeInfo,
    value_type: TypeInfo,
    opts: &ReadOptions,
) -> crate::owned::Dictionary {
    let (kt, vt) = engine_types(key_type, value_type, opts.full_objects());
    let want = builtin_of(&kt);
    let mut d = crate::owned::Dictionary::new();
    for (k, v) in entries {
        let k = match want {
            None => k,
            Some(want) => match fit(&kt, &k) {
                Fit::Keep => k,
                Fit::Convert => match convert(&k, want, opts) {
                    Some(k) => k,
                    None => continue,
                },
                Fit::Drop => continue,
            },
        };
        d.insert(k, v);
    }
    d.set_types(kt, vt);
    d
}

/// A leaf with its real components as the engine's `real_t` holds them.
pub(crate) fn narrowed(v: Variant, opts: &ReadOptions) -> Variant {
    if opts.double_precision() || opts.dialect() == Dialect::Godot3 {
        return v;
    }
    let n = |x: f64| real(x, false);
    match v {
        Variant::Vector2(a) => Variant::Vector2(Vector2::from_array(a.to_array().map(n))),
        Variant::Vector3(a) => Variant::Vector3(Vector3::from_array(a.to_array().map(n))),
        Variant::Vector4(a) => Variant::Vector4(Vector4::from_array(a.to_array().map(n))),
        Variant::Rect2(a) => Variant::Rect2(Rect2::from_array(a.to_array().map(n))),
        Variant::Plane(a) => Variant::Plane(Plane::from_array(a.to_array().map(n))),
        Variant::Quaternion(a) => Variant::Quaternion(Quaternion::from_array(a.to_array().map(n))),
        Variant::Transform2D(a) => Variant::from(Transform2D::from_array(a.to_array().map(n))),
        Variant::Aabb(a) => Variant::from(Aabb::from_array(a.to_array().map(n))),
        Variant::Basis(a) => Variant::from(Basis::from_array(a.to_array().map(n))),
        Variant::Transform3D(a) => Variant::from(Transform3D::from_array(a.to_array().map(n))),
        Variant::Projection(a) => Variant::from(Projection::from_array(a.to_array().map(n))),
        Variant::PackedVector2Array(a) => Variant::PackedVector2Array(
            a.into_iter()
                .map(|x| Vector2::from_array(x.to_array().map(n)))
                .collect(),
        ),
        Variant::PackedVector3Array(a) => Variant::PackedVector3Array(
            a.into_iter()
                .map(|x| Vector3::from_array(x.to_array().map(n)))
                .collect(),
        ),
        Variant::PackedVector4Array(a) => Variant::PackedVector4Array(
            a.into_iter()
                .map(|x| Vector4::from_array(x.to_array().map(n)))
                .collect(),
        ),
        v => v,
    }
}
