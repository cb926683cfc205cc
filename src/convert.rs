//! The engine's conversion rule for typed containers (Godot 4).
//!
//! When Godot 4 decodes a typed Array (`Array[int]`) or the keys of a typed Dictionary
//! (`Dictionary[int, ...]`), every element goes through the container's type check
//! (`ContainerTypeValidate::validate`): an element of the declared type is kept; one that
//! `Variant::can_convert_strict` allows is converted with the declared type's constructor
//! (`Variant::construct`); any other is dropped. The bytes can say anything, so this decides
//! what the engine's value holds. This module is that rule, checked live against Godot 4.6
//! (`tests/engine/differential.rs`, `tests/godot/DEVIATIONS.md`):
//!
//! - [`fit`] says what happens to one element: [`Fit::Keep`], [`Fit::Convert`] or [`Fit::Drop`];
//! - [`convert`] performs a conversion (`int` from `bool` or `float`, `Vector2i` from `Vector2`,
//!   `Basis` from `Quaternion`, `PackedStringArray` from `Array`, `Color` from a `String`, ...);
//! - [`engine_type`] is the declared type as the engine keeps it: `Nil` means untyped, and
//!   without full objects a class or script type is `EncodedObjectAsID`.
//!
//! The table of conversions (`Variant::can_convert_strict`), to ← from:
//!
//! | declared | converted from |
//! |---|---|
//! | bool | int, float |
//! | int | bool, float |
//! | float | bool, int |
//! | String | StringName, NodePath |
//! | Vector2 / Vector2i, Rect2 / Rect2i, Vector3 / Vector3i, Vector4 / Vector4i | each other |
//! | Transform2D | Transform3D |
//! | Quaternion | Basis |
//! | Basis | Quaternion |
//! | Transform3D | Transform2D, Quaternion, Basis, Projection |
//! | Projection | Transform3D |
//! | Color | String, int |
//! | RID | Object |
//! | Object (any class) | Nil (kept as null) |
//! | StringName, NodePath | String |
//! | Array | every packed array |
//! | every packed array | Array |
//!
//! Values of a typed Dictionary are not checked by the engine (its `operator[]` hands out the
//! slot), only its keys.
//!
//! Numbers follow the engine's C++: a `float` to `int` conversion truncates, and a NaN or an
//! out-of-range value becomes the smallest integer (x86's `cvttsd2si`); math is done in the
//! engine's `real_t` (`f32`, or `f64` with [`ReadOptions::with_double_precision`]).
//!
//! Not modelled: a full object's class is checked against an `Array[Node]`-like class type by
//! the engine's class database, which a byte-level reader does not have: such elements are
//! kept (an object sent as an instance id is an `EncodedObjectAsID`, whose ancestry is known:
//! it fits `Object`, `RefCounted` and `EncodedObjectAsID` only).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::math::*;
use crate::object::ObjectRef;
use crate::owned::{Array, NodePath, Object, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions, VariantType as T};
use crate::value::VariantRef;

/// The class name of an object decoded from an instance id, and of every class- or
/// script-typed container read without full objects.
pub const ENCODED_OBJECT_AS_ID: &str = "EncodedObjectAsID";

/// What a typed container does with one element; see [`fit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fit {
    /// The element has the declared type (or is a null object where objects are declared):
    /// kept as it is.
    Keep,
    /// The element is converted to the declared type ([`convert`]).
    Convert,
    /// The element cannot be converted: the engine leaves it out.
    Drop,
}

/// The declared type of a typed container as the engine keeps it after decoding: `Nil`
/// means untyped ([`TypeInfo::None`]); without full objects (`objects` false) every object
/// type — builtin `Object`, a class or a script — is the class `EncodedObjectAsID`.
///
/// ```
/// use gdvariant::{convert::engine_type, TypeInfo, VariantType};
/// assert_eq!(engine_type(TypeInfo::Builtin(VariantType::Nil), false), TypeInfo::None);
/// assert_eq!(engine_type(TypeInfo::Script("res://a.gd".into()), false),
///            TypeInfo::ClassName("EncodedObjectAsID".into()));
/// assert_eq!(engine_type(TypeInfo::Builtin(VariantType::Int), false),
///            TypeInfo::Builtin(VariantType::Int));
/// ```
pub fn engine_type(declared: TypeInfo, objects: bool) -> TypeInfo {
    match declared {
        TypeInfo::Builtin(T::Nil) => TypeInfo::None,
        TypeInfo::Builtin(T::Object) | TypeInfo::ClassName(_) | TypeInfo::Script(_) if !objects => {
            TypeInfo::ClassName(ENCODED_OBJECT_AS_ID.to_string())
        }
        // An empty class name is no class: the engine holds (and writes back) plain `Object`.
        TypeInfo::ClassName(c) if c.is_empty() => TypeInfo::Builtin(T::Object),
        t => t,
    }
}

/// The key and value types of a typed Dictionary as the engine keeps them after decoding:
/// each as [`engine_type`] says; and, with full objects, as Godot 4.6's
/// `Dictionary::set_typed` takes them — it gives the value type the key's script: a script
/// key type makes an object value type that script (and any other value type fails, leaving
/// the dictionary untyped). (A script value type under another key type keeps only the
/// script's base class in the engine, which a byte-level reader cannot know: it stays the
/// script here; see `tests/godot/DEVIATIONS.md`.)
pub fn engine_types(key: TypeInfo, value: TypeInfo, objects: bool) -> (TypeInfo, TypeInfo) {
    let k = engine_type(key, objects);
    let v = engine_type(value, objects);
    if let TypeInfo::Script(p) = &k {
        return match v {
            TypeInfo::ClassName(_) | TypeInfo::Script(_) => {
                (k.clone(), TypeInfo::Script(p.clone()))
            }
            _ => (TypeInfo::None, TypeInfo::None),
        };
    }
    (k, v)
}

/// The builtin type an engine type info stands for (`Object` for class and script types).
fn builtin_of(t: &TypeInfo) -> Option<T> {
    t.builtin()
}

impl TypeInfo {
    /// The builtin type this element type stands for: `Object` for a class or a script,
    /// `None` when untyped.
    pub fn builtin(&self) -> Option<T> {
        match self {
            TypeInfo::None => None,
            TypeInfo::Builtin(t) => Some(*t),
            TypeInfo::ClassName(_) | TypeInfo::Script(_) => Some(T::Object),
        }
    }
}

/// Whether `Variant::can_convert_strict(from, to)` allows a conversion (Godot 4's table; see
/// the [module docs](self)). Equal types are always allowed.
pub fn can_convert(from: T, to: T) -> bool {
    if from == to || to == T::Nil {
        return true;
    }
    if from == T::Nil {
        return to == T::Object;
    }
    match to {
        T::Bool => matches!(from, T::Int | T::Float),
        T::Int => matches!(from, T::Bool | T::Float),
        T::Float => matches!(from, T::Bool | T::Int),
        T::String => matches!(from, T::NodePath | T::StringName),
        T::Vector2 => from == T::Vector2i,
        T::Vector2i => from == T::Vector2,
        T::Rect2 => from == T::Rect2i,
        T::Rect2i => from == T::Rect2,
        T::Transform2D => from == T::Transform3D,
        T::Vector3 => from == T::Vector3i,
        T::Vector3i => from == T::Vector3,
        T::Vector4 => from == T::Vector4i,
        T::Vector4i => from == T::Vector4,
        T::Quaternion => from == T::Basis,
        T::Basis => from == T::Quaternion,
        T::Transform3D => matches!(
            from,
            T::Transform2D | T::Quaternion | T::Basis | T::Projection
        ),
        T::Projection => from == T::Transform3D,
        T::Color => matches!(from, T::String | T::Int),
        T::Rid => from == T::Object,
        T::StringName | T::NodePath => from == T::String,
        T::Array => from.is_packed_array(),
        t if t.is_packed_array() => from == T::Array,
        _ => false,
    }
}

/// An object element as a typed container sees it.
pub(crate) enum ObjectKind<'s> {
    /// A null object (id 0, or a full object with an empty class name).
    Null,
    /// An object sent as an instance id: the engine makes an `EncodedObjectAsID` of it.
    Encoded,
    /// A full object: its class and its `script` property's path, if it has one.
    Full {
        class: &'s str,
        script: Option<&'s str>,
    },
}

/// What a container of engine type `declared` (see [`engine_type`]) does with an element of
/// type `ty` (`object` describes it when it is an Object).
pub(crate) fn fit_type(declared: &TypeInfo, ty: T, object: Option<ObjectKind<'_>>) -> Fit {
    let Some(want) = builtin_of(declared) else {
        return Fit::Keep;
    };
    if ty == want {
        if want != T::Object {
            return Fit::Keep;
        }
        return match object {
            None | Some(ObjectKind::Null) => Fit::Keep,
            Some(ObjectKind::Encoded) => match declared {
                TypeInfo::ClassName(c) => {
                    if matches!(c.as_str(), ENCODED_OBJECT_AS_ID | "RefCounted" | "Object") {
                        Fit::Keep
                    } else {
                        Fit::Drop
                    }
                }
                // An EncodedObjectAsID has no script.
                TypeInfo::Script(_) => Fit::Drop,
                _ => Fit::Keep,
            },
            Some(ObjectKind::Full { class, script }) => match declared {
                TypeInfo::Script(p) => {
                    if script == Some(p.as_str()) {
                        Fit::Keep
                    } else {
                        Fit::Drop
                    }
                }
                // Without the engine's class database the inheritance of `class` is unknown:
                // kept (see the module docs).
                TypeInfo::ClassName(c) => {
                    let _ = (c, class);
                    Fit::Keep
                }
                _ => Fit::Keep,
            },
        };
    }
    if ty == T::Nil && want == T::Object {
        return Fit::Keep;
    }
    if can_convert(ty, want) {
        Fit::Convert
    } else {
        Fit::Drop
    }
}

/// What a typed container whose engine type is `declared` (see [`engine_type`]) does with
/// the element `value`: keep it, convert it ([`convert`]) or drop it.
///
/// ```
/// use gdvariant::convert::{fit, Fit};
/// use gdvariant::{TypeInfo, Variant, VariantType};
/// let ints = TypeInfo::Builtin(VariantType::Int);
/// assert_eq!(fit(&ints, &Variant::Int(1)), Fit::Keep);
/// assert_eq!(fit(&ints, &Variant::Bool(true)), Fit::Convert);
/// assert_eq!(fit(&ints, &Variant::from("1")), Fit::Drop);
/// ```
pub fn fit(declared: &TypeInfo, value: &Variant) -> Fit {
    fit_type(declared, value.ty(), object_kind(value))
}

/// What a typed container of engine type `t` does with the encoded element `x` (see
/// [`fit`]); an object's class and script are read from its bytes.
pub(crate) fn fit_ref(t: &TypeInfo, x: &VariantRef<'_>) -> crate::error::Result<Fit> {
    let kind = if x.ty() == T::Object {
        Some(match x.as_object()? {
            ObjectRef::Id(0) => ObjectKind::Null,
            ObjectRef::Id(_) => ObjectKind::Encoded,
            ObjectRef::Full(f) if f.class_name().is_empty() => ObjectKind::Null,
            ObjectRef::Full(f) => {
                let class = f.class_name().as_bytes();
                let mut script = None;
                if matches!(t, TypeInfo::Script(_)) {
                    let mut props = f.properties();
                    while let Some((name, value)) = props.try_next()? {
                        if name.as_bytes() == b"script" && value.ty() == T::String {
                            script = Some(value.as_text()?.as_bytes());
                        }
                    }
                }
                return Ok(fit_type(
                    t,
                    T::Object,
                    Some(ObjectKind::Full {
                        class: core::str::from_utf8(class).unwrap_or(""),
                        script: script.and_then(|s| core::str::from_utf8(s).ok()),
                    }),
                ));
            }
        })
    } else {
        None
    };
    Ok(fit_type(t, x.ty(), kind))
}

/// The element (Array) or key (Dictionary) type of the container `c` as the engine keeps
/// it, when the engine checks its elements.
pub(crate) fn checked_type(c: &VariantRef<'_>) -> crate::error::Result<Option<TypeInfo>> {
    if c.dialect() != Dialect::Godot4 {
        return Ok(None);
    }
    let objects = c.options().full_objects();
    let t = match c.ty() {
        T::Array => {
            let t = c.as_array()?.element_type()?;
            if !t.is_typed() {
                return Ok(None);
            }
            engine_type(TypeInfo::from_ref(&t, c.offset())?, objects)
        }
        T::Dictionary => {
            let (k, v) = c.as_dictionary()?.key_value_types()?;
            if !k.is_typed() {
                return Ok(None);
            }
            let k = TypeInfo::from_ref(&k, c.offset())?;
            let v = TypeInfo::from_ref(&v, c.offset())?;
            engine_types(k, v, objects).0
        }
        _ => return Ok(None),
    };
    Ok(match t {
        TypeInfo::None => None,
        t => Some(t),
    })
}

/// Where the engine's value of `v` is what its bytes say, at every depth: `Some(end)` (the
/// offset just past `v`) when no typed Array in it holds an element, and no typed Dictionary a
/// key, that the engine converts or drops; `None` when one does.
///
/// One walk of `v` by its events (each byte read once, whatever the nesting); an element is
/// judged by its head ([`fit_ref`], O(1)), but a full object in a container typed with a script,
/// whose `script` property would take a second walk of the object to find, counts as
/// converted (`None`: the caller then reads the engine's value, which is always right). An
/// error is the walk's (the caller, whose own walk reaches it too, reports that one).
#[cfg(feature = "serde")]
pub(crate) fn same_until(v: VariantRef<'_>) -> crate::error::Result<Option<usize>> {
    use crate::walker::{Event, Walker};

    /// An open container: the type its elements (a Dictionary's keys) must fit, if checked.
    struct Frame {
        checked: Option<TypeInfo>,
        dictionary: bool,
        /// In a Dictionary: whether the next value is a key.
        key: bool,
    }
    let mut w = Walker::from_value(v);
    let mut open: Vec<Frame> = Vec::new();
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Begin(x) | Event::Value(x) => x,
            Event::Property(_) => continue,
            Event::End => {
                open.pop();
                continue;
            }
        };
        if let Some(f) = open.last_mut() {
            let judged = if f.dictionary {
                f.key = !f.key;
                !f.key
            } else {
                true
            };
            if let (true, Some(t)) = (judged, &f.checked) {
                if matches!(t, TypeInfo::Script(_))
                    && x.ty() == T::Object
                    && matches!(x.as_object()?, ObjectRef::Full(_))
                {
                    return Ok(None);
                }
                if fit_ref(t, &x)? != Fit::Keep {
                    return Ok(None);
                }
            }
        }
        if let Event::Begin(x) = e {
            open.push(Frame {
                checked: checked_type(&x)?,
                dictionary: x.ty() == T::Dictionary,
                key: true,
            });
        }
    }
    Ok(Some(w.offset()))
}

fn object_kind(v: &Variant) -> Option<ObjectKind<'_>> {
    let Variant::Object(o) = v else {
        return None;
    };
    Some(match &**o {
        Object::Id(0) => ObjectKind::Null,
        Object::Id(_) => ObjectKind::Encoded,
        Object::Full { class, .. } if class.is_empty() => ObjectKind::Null,
        Object::Full { class, properties } => ObjectKind::Full {
            class,
            script: properties.iter().find_map(|(name, v)| match v {
                Variant::String(s) if name == "script" => Some(s.as_str()),
                _ => None,
            }),
        },
    })
}

/// Converts `value` to the builtin type `to` as the engine's `Variant::construct(to, value)`
/// does for the pairs [`can_convert`] allows; `None` for the others. A value already of type
/// `to` is returned unchanged. `opts` gives the engine's precision (the math of conversions
/// is done in its `real_t`).
///
/// ```
/// use gdvariant::{convert::convert, ReadOptions, Variant, VariantType, Vector2};
/// let opts = ReadOptions::new();
/// assert_eq!(convert(&Variant::Float(-2.7), VariantType::Int, &opts), Some(Variant::Int(-2)));
/// assert_eq!(convert(&Variant::Float(f64::NAN), VariantType::Int, &opts), Some(Variant::Int(i64::MIN)));
/// assert_eq!(convert(&Variant::from(Vector2::new(1.9, -0.5)), VariantType::Vector2i, &opts),
///            Some(Variant::Vector2i(gdvariant::Vector2i::new(1, 0))));
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

// ----- numbers as the engine's C++ converts them -----

/// A real as the engine's `real_t` holds it: narrowed to `f32` unless the build is double.
#[inline]
pub(crate) fn real(x: f64, double: bool) -> f64 {
    if double {
        x
    } else {
        f64::from(x as f32)
    }
}

/// C++ `(int64_t)double` on x86-64 (`cvttsd2si`): truncation, the smallest `i64` for NaN and
/// out-of-range values.
pub(crate) fn f64_to_i64(x: f64) -> i64 {
    if x.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// C++ `(int32_t)` of a real on x86-64: truncation, the smallest `i32` for NaN and
/// out-of-range values.
pub(crate) fn real_to_i32(x: f64) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// `Color::hex`: `0xRRGGBBAA`.
pub(crate) fn color_hex(h: u32) -> Color {
    let c = |shift: u32| ((h >> shift) & 0xFF) as f32 / 255.0;
    Color::new(c(24), c(16), c(8), c(0))
}

// ----- strings -----

/// `String(NodePath)` in Godot 4: `/` if absolute, the names joined by `/`, then `:` and the
/// subnames joined by `:` unless that is empty.
pub(crate) fn node_path_text(np: &NodePath) -> String {
    let mut s = String::new();
    if np.absolute {
        s.push('/');
    }
    s.push_str(&np.names.join("/"));
    let sub = np.subnames.join(":");
    if !sub.is_empty() {
        s.push(':');
        s.push_str(&sub);
    }
    s
}

/// `NodePath(String)` in Godot 4: subnames after the first `:` (an empty one in the middle
/// makes the whole path empty), names between `/`s (empty ones skipped), absolute with a
/// leading `/`.
pub(crate) fn node_path_from_str(p: &str) -> NodePath {
    let empty = NodePath::default();
    if p.is_empty() {
        return empty;
    }
    let absolute = p.starts_with('/');
    let (path, sub) = match p.find(':') {
        Some(i) => (&p[..i], Some(&p[i + 1..])),
        None => (p, None),
    };
    let mut subnames = Vec::new();
    if let Some(sub) = sub {
        let parts: Vec<&str> = sub.split(':').collect();
        for (i, s) in parts.iter().enumerate() {
            if s.is_empty() {
                if i + 1 == parts.len() {
                    // A trailing `:` is allowed.
                    continue;
                }
                // "Invalid NodePath": the constructor gives up, leaving the empty path.
                return empty;
            }
            subnames.push((*s).to_string());
        }
    }
    let names: Vec<String> = path
        .get(usize::from(absolute)..)
        .unwrap_or("")
        .split('/')
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    if names.is_empty() && !absolute && subnames.is_empty() {
        return empty;
    }
    NodePath {
        names,
        subnames,
        absolute,
    }
}

/// `String::to_int` in Godot 4.6: the digits before the first `.`, anything else skipped; a
/// `-` before the first non-zero digit flips the sign; wrapping 64-bit accumulation, with the
/// engine's saturation from the 20th digit on.
pub(crate) fn string_to_int(s: &str) -> i64 {
    let to = s.find('.').unwrap_or(s.len());
    let mut integer: u64 = 0;
    let mut digits = 0u32;
    let mut positive = true;
    for c in s[..to].chars() {
        if let Some(d) = c.to_digit(10).filter(|_| c.is_ascii_digit()) {
            if digits > 18 {
                let max = i64::MAX as u64;
                let overflow = integer > max / 10
                    || (integer == max / 10 && ((positive && d > 7) || (!positive && d > 8)));
                if overflow {
                    return if positive { i64::MAX } else { i64::MIN };
                }
            }
            integer = integer.wrapping_mul(10).wrapping_add(u64::from(d));
            digits += 1;
        } else if integer == 0 && c == '-' {
            positive = !positive;
        }
    }
    if positive {
        integer as i64
    } else {
        integer.wrapping_neg() as i64
    }
}

/// `String::to_float`: leading white space, a sign, digits with an optional `.` and
/// exponent; what follows is ignored; `0.0` when there is no number (`inf` and `nan` are not
/// numbers there; `1e400` is infinite).
pub(crate) fn string_to_float(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']);
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - f;
    }
    if mantissa_digits == 0 {
        return 0.0;
    }
    let mut end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            end = j;
        }
    }
    // Rust's parser reads the same grammar (".5", "5.", "-1e3"), correctly rounded.
    let num = &t[..end];
    num.strip_prefix('+')
        .unwrap_or(num)
        .parse::<f64>()
        .unwrap_or(0.0)
}

/// `Color(String)`: an HTML color (`#` optional, 3, 4, 6 or 8 hex digits), else a named
/// color (case, spaces, `-`, `_`, `'` and `.` ignored), else `Color()` (opaque black).
pub(crate) fn color_from_string(s: &str) -> Color {
    if let Some(c) = color_html(s) {
        return c;
    }
    let key: String = s
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\'' | '.'))
        .flat_map(char::to_uppercase)
        .collect();
    match NAMED_COLORS.binary_search_by(|(n, _)| n.cmp(&key.as_str())) {
        Ok(i) => color_hex(NAMED_COLORS[i].1),
        Err(_) => Color::new(0.0, 0.0, 0.0, 1.0),
    }
}

/// `Color::html` on a valid HTML color, `None` otherwise.
fn color_html(s: &str) -> Option<Color> {
    let h = s.strip_prefix('#').unwrap_or(s);
    let digits: Vec<u32> = h.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?;
    let (short, alpha) = match digits.len() {
        3 => (true, false),
        4 => (true, true),
        6 => (false, false),
        8 => (false, true),
        _ => return None,
    };
    let ch = |i: usize| -> f32 {
        if short {
            digits[i] as f32 / 15.0
        } else {
            (digits[2 * i] * 16 + digits[2 * i + 1]) as f32 / 255.0
        }
    };
    Some(Color::new(
        ch(0),
        ch(1),
        ch(2),
        if alpha { ch(3) } else { 1.0 },
    ))
}

/// The engine's named colors (`Color.ALICE_BLUE`, ...), by name without `_`, as `0xRRGGBBAA`,
/// sorted by name.
static NAMED_COLORS: &[(&str, u32)] = &include!("convert_colors.in");

// ----- math, in the engine's real_t -----

/// The float operations the engine's math uses, in `f32` or `f64`.
trait Real:
    Copy
    + PartialOrd
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn finite(self) -> bool;
}

impl Real for f32 {
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn get(self) -> f64 {
        f64::from(self)
    }
    fn sqrt(self) -> f32 {
        libm_sqrt32(self)
    }
    fn abs(self) -> f32 {
        f32::from_bits(self.to_bits() & 0x7FFF_FFFF)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Real for f64 {
    fn of(x: f64) -> f64 {
        x
    }
    fn get(self) -> f64 {
        self
    }
    fn sqrt(self) -> f64 {
        libm_sqrt64(self)
    }
    fn abs(self) -> f64 {
        f64::from_bits(self.to_bits() & 0x7FFF_FFFF_FFFF_FFFF)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// A correctly rounded square root (as the hardware's `sqrtss`).
fn libm_sqrt32(x: f32) -> f32 {
    // Through f64: a square root rounded to 53 bits, then to 24, is correctly rounded.
    libm_sqrt64(f64::from(x)) as f32
}

/// A correctly rounded square root (as the hardware's `sqrtsd`).
fn libm_sqrt64(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.sqrt()
    }
    #[cfg(not(feature = "std"))]
    {
        sqrt_exact(x)
    }
}

/// A correctly rounded square root without `std`: the integer square root of the
/// significand, rounded to nearest even.
#[cfg(any(not(feature = "std"), test))]
fn sqrt_exact(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // x = m * 2^e with m an integer.
    let bits = x.to_bits();
    let exp_bits = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // sqrt(m * 4^k) has at least 56 bits: k = 60 - bits(m) / 2 rounded.
    let shift = 2 * (60 - (64 - m.leading_zeros() as i32) / 2);
    let n = u128::from(m) << shift;
    // Integer square root of n.
    let mut r: u128 = 0;
    let mut rem: u128 = n;
    let mut bit: u128 = 1u128 << ((127 - n.leading_zeros()) & !1);
    while bit != 0 {
        if rem >= r + bit {
            rem -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    let sticky = rem != 0;
    // r has 56..=61 bits; keep 53 with round to nearest even.
    let len = 128 - r.leading_zeros() as i32;
    let drop = len - 53;
    let mut q = (r >> drop) as u64;
    let half = 1u128 << (drop - 1);
    let low = r & ((1u128 << drop) - 1);
    if low > half || (low == half && (sticky || q & 1 == 1)) {
        q += 1;
    }
    let mut exp = e / 2 - shift / 2 + drop;
    if q == 1u64 << 53 {
        q >>= 1;
        exp += 1;
    }
    // value = q * 2^exp, q with 53 bits: normal (a root is never subnormal).
    let biased = (exp + 52 + 1023) as u64;
    f64::from_bits((biased << 52) | (q & ((1u64 << 52) - 1)))
}

const CMP_EPSILON: f64 = 0.00001;
const UNIT_EPSILON: f64 = 0.001;

/// `Math::is_equal_approx(a, b)`.
fn equal_approx<R: Real>(a: R, b: R) -> bool {
    if a == b {
        return true;
    }
    let mut tolerance = R::of(CMP_EPSILON) * a.abs();
    if tolerance < R::of(CMP_EPSILON) {
        tolerance = R::of(CMP_EPSILON);
    }
    (a - b).abs() < tolerance
}

/// `Math::is_equal_approx(a, b, tolerance)`.
fn equal_approx_tol<R: Real>(a: R, b: R, tolerance: R) -> bool {
    a == b || (a - b).abs() < tolerance
}

/// `Math::is_zero_approx(x)`.
fn zero_approx<R: Real>(x: R) -> bool {
    x.abs() < R::of(CMP_EPSILON)
}

/// `Basis::get_quaternion` with the engine's `MATH_CHECKS` (the shipped editor builds have
/// them): a basis that is not a finite rotation gives the identity quaternion.
fn basis_to_quat<R: Real>(a: [f64; 9]) -> [f64; 4] {
    let m: [[R; 3]; 3] = [
        [R::of(a[0]), R::of(a[1]), R::of(a[2])],
        [R::of(a[3]), R::of(a[4]), R::of(a[5])],
        [R::of(a[6]), R::of(a[7]), R::of(a[8])],
    ];
    let identity = [0.0, 0.0, 0.0, 1.0];
    if !m.iter().flatten().all(|x| x.finite()) {
        return identity;
    }
    // is_rotation: is_conformal && determinant ~ 1.
    let col = |i: usize| [m[0][i], m[1][i], m[2][i]];
    let dot = |u: [R; 3], v: [R; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let (x, y, z) = (col(0), col(1), col(2));
    let x_len_sq = dot(x, x);
    let conformal = equal_approx(x_len_sq, dot(y, y))
        && equal_approx(x_len_sq, dot(z, z))
        && zero_approx(dot(x, y))
        && zero_approx(dot(x, z))
        && zero_approx(dot(y, z));
    let det = m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
    if !(conformal && equal_approx_tol(det, R::of(1.0), R::of(UNIT_EPSILON))) {
        return identity;
    }
    let trace = m[0][0] + m[1][1] + m[2][2];
    let mut temp = [R::of(0.0); 4];
    let half = R::of(0.5);
    let one = R::of(1.0);
    if trace > R::of(0.0) {
        let mut s = (trace + one).sqrt();
        temp[3] = s * half;
        s = half / s;
        temp[0] = (m[2][1] - m[1][2]) * s;
        temp[1] = (m[0][2] - m[2][0]) * s;
        temp[2] = (m[1][0] - m[0][1]) * s;
    } else {
        let i = if m[0][0] < m[1][1] {
            if m[1][1] < m[2][2] {
                2
            } else {
                1
            }
        } else if m[0][0] < m[2][2] {
            2
        } else {
            0
        };
        let j = (i + 1) % 3;
        let k = (i + 2) % 3;
        let mut s = (m[i][i] - m[j][j] - m[k][k] + one).sqrt();
        temp[i] = s * half;
        s = half / s;
        temp[3] = (m[k][j] - m[j][k]) * s;
        temp[j] = (m[j][i] + m[i][j]) * s;
        temp[k] = (m[k][i] + m[i][k]) * s;
    }
    temp.map(Real::get)
}

/// `Basis(Quaternion)` (`Basis::set_quaternion`), rows in wire order.
fn quat_to_basis<R: Real>(q: [f64; 4]) -> [f64; 9] {
    let [x, y, z, w] = q.map(R::of);
    let d = x * x + y * y + z * z + w * w;
    let s = R::of(2.0) / d;
    let (xs, ys, zs) = (x * s, y * s, z * s);
    let (wx, wy, wz) = (w * xs, w * ys, w * zs);
    let (xx, xy, xz) = (x * xs, x * ys, x * zs);
    let (yy, yz, zz) = (y * ys, y * zs, z * zs);
    let one = R::of(1.0);
    [
        one - (yy + zz),
        xy - wz,
        xz + wy,
        xy + wz,
        one - (xx + zz),
        yz - wx,
        xz - wy,
        yz + wx,
        one - (xx + yy),
    ]
    .map(Real::get)
}

fn quat_to_basis_in(q: [f64; 4], double: bool) -> [f64; 9] {
    if double {
        quat_to_basis::<f64>(q)
    } else {
        quat_to_basis::<f32>(q)
    }
}

/// `Transform2D(Transform3D)`: the basis' upper 2×2 and the origin's x, y.
fn t3d_to_t2d(t: [f64; 12]) -> [f64; 6] {
    // rows r00 r01 r02 r10 r11 r12 r20 r21 r22, origin ox oy oz
    [t[0], t[3], t[1], t[4], t[9], t[10]]
}

/// `Transform3D(Transform2D)`: the 2D axes in the basis' upper 2×2, z unchanged.
fn t2d_to_t3d(t: [f64; 6]) -> [f64; 12] {
    // columns c0x c0y c1x c1y, origin ox oy
    [
        t[0], t[2], 0.0, t[1], t[3], 0.0, 0.0, 0.0, 1.0, t[4], t[5], 0.0,
    ]
}

/// `Projection::operator Transform3D`: the columns' x, y, z.
fn projection_to_t3d(p: [f64; 16]) -> [f64; 12] {
    [
        p[0], p[4], p[8], p[1], p[5], p[9], p[2], p[6], p[10], p[12], p[13], p[14],
    ]
}

/// `Projection(Transform3D)`: the basis columns and the origin as columns, w = 0, 0, 0, 1.
fn t3d_to_projection(t: [f64; 12]) -> [f64; 16] {
    [
        t[0], t[3], t[6], 0.0, t[1], t[4], t[7], 0.0, t[2], t[5], t[8], 0.0, t[9], t[10], t[11],
        1.0,
    ]
}

// ----- Array <-> packed arrays -----

/// `Array(Packed*Array)`: the elements as Variants.
fn packed_elements(v: &Variant) -> Vec<Variant> {
    match v {
        Variant::PackedByteArray(a) => a.iter().map(|x| Variant::Int((*x).into())).collect(),
        Variant::PackedInt32Array(a) => a.iter().map(|x| Variant::Int((*x).into())).collect(),
        Variant::PackedInt64Array(a) => a.iter().map(|x| Variant::Int(*x)).collect(),
        Variant::PackedFloat32Array(a) => a.iter().map(|x| Variant::Float(f64::from(*x))).collect(),
        Variant::PackedFloat64Array(a) => a.iter().map(|x| Variant::Float(*x)).collect(),
        Variant::PackedStringArray(a) => a.iter().map(|x| Variant::String(x.clone())).collect(),
        Variant::PackedVector2Array(a) => a.iter().map(|x| Variant::Vector2(*x)).collect(),
        Variant::PackedVector3Array(a) => a.iter().map(|x| Variant::Vector3(*x)).collect(),
        Variant::PackedColorArray(a) => a.iter().map(|x| Variant::Color(*x)).collect(),
        Variant::PackedVector4Array(a) => a.iter().map(|x| Variant::Vector4(*x)).collect(),
        _ => Vec::new(),
    }
}

/// `Packed*Array(Array)`: every element through the Variant's conversion operator.
fn packed_from(to: T, items: &[Variant], double: bool) -> Option<Variant> {
    Some(match to {
        T::PackedByteArray => Variant::PackedByteArray(
            items
                .iter()
                .map(|v| to_int_as(v, Width::U8) as u8)
                .collect(),
        ),
        T::PackedInt32Array => Variant::PackedInt32Array(
            items
                .iter()
                .map(|v| to_int_as(v, Width::I32) as i32)
                .collect(),
        ),
        T::PackedInt64Array => {
            Variant::PackedInt64Array(items.iter().map(|v| to_int_as(v, Width::I64)).collect())
        }
        T::PackedFloat32Array => {
            Variant::PackedFloat32Array(items.iter().map(|v| to_float(v) as f32).collect())
        }
        T::PackedFloat64Array => Variant::PackedFloat64Array(items.iter().map(to_float).collect()),
        T::PackedStringArray => {
            Variant::PackedStringArray(items.iter().map(|v| stringify(v, double).into()).collect())
        }
        T::PackedVector2Array => Variant::PackedVector2Array(
            items
                .iter()
                .map(|v| {
                    let [x, y, ..] = to_vector4(v, double);
                    Vector2::new(x, y)
                })
                .collect(),
        ),
        T::PackedVector3Array => Variant::PackedVector3Array(
            items
                .iter()
                .map(|v| {
                    let [x, y, z, _] = to_vector4(v, double);
                    Vector3::new(x, y, z)
                })
                .collect(),
        ),
        T::PackedVector4Array => Variant::PackedVector4Array(
            items
                .iter()
                .map(|v| Vector4::from_array(to_vector4(v, double)))
                .collect(),
        ),
        T::PackedColorArray => Variant::PackedColorArray(items.iter().map(to_color).collect()),
        _ => return None,
    })
}

/// The integer width of a `Variant::operator T` for integers.
#[derive(Clone, Copy)]
enum Width {
    U8,
    I32,
    I64,
}

/// `Variant::operator T` for an integer `T` (`_to_int<T>`): Nil 0, bool 0/1, int truncated,
/// float through C++'s conversion, String through `to_int`, anything else 0. Returned widened
/// to `i64`; the caller truncates to the width.
fn to_int_as(v: &Variant, w: Width) -> i64 {
    match v {
        Variant::Bool(b) => i64::from(*b),
        Variant::Int(i) => *i,
        Variant::Float(f) => match w {
            Width::I64 => f64_to_i64(*f),
            // `(int32_t)` / `(uint8_t)` of a double: a 32-bit `cvttsd2si`, then truncated.
            Width::I32 | Width::U8 => i64::from(real_to_i32(*f)),
        },
        Variant::String(s) => string_to_int(s),
        _ => 0,
    }
}

/// `Variant::operator double` (`_to_float`): Nil 0, bool 0/1, int, float, String through
/// `to_float`, anything else 0.
fn to_float(v: &Variant) -> f64 {
    match v {
        Variant::Bool(b) => f64::from(u8::from(*b)),
        Variant::Int(i) => *i as f64,
        Variant::Float(f) => *f,
        Variant::String(s) => string_to_float(s),
        _ => 0.0,
    }
}

/// `Variant::operator Vector4` (and, through its first components, `Vector2` and
/// `Vector3`): vectors of any size and their integer forms, zeros for the missing
/// components and for anything else.
fn to_vector4(v: &Variant, double: bool) -> [f64; 4] {
    let r = |x: i32| real(f64::from(x), double);
    match v {
        Variant::Vector2(a) => [a.x, a.y, 0.0, 0.0],
        Variant::Vector2i(a) => [r(a.x), r(a.y), 0.0, 0.0],
        Variant::Vector3(a) => [a.x, a.y, a.z, 0.0],
        Variant::Vector3i(a) => [r(a.x), r(a.y), r(a.z), 0.0],
        Variant::Vector4(a) => a.to_array(),
        Variant::Vector4i(a) => a.to_array().map(r),
        _ => [0.0; 4],
    }
}

/// `Variant::operator Color`: a Color, a String as `Color(String)`, an int as
/// `Color::hex(int32)`, anything else `Color()`.
fn to_color(v: &Variant) -> Color {
    match v {
        Variant::Color(c) => *c,
        Variant::String(s) => color_from_string(s),
        Variant::Int(i) => color_hex(*i as i32 as u32),
        _ => Color::new(0.0, 0.0, 0.0, 1.0),
    }
}

// ----- str(): Variant::stringify -----

/// `String::num(x, decimals)`: `printf("%.{decimals}lf")` with trailing zeros dropped (one
/// kept after the point); a negative count means `%lf` after the engine's own adjustment.
pub(crate) fn num(x: f64, decimals: i32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let mut d = decimals;
    if d < 0 {
        d = 14;
        let a = x.abs();
        if a > 10.0 {
            d -= floor_log10_f64(a);
        }
    }
    let d = d.min(32);
    let mut s = if d < 0 {
        format!("{x:.6}")
    } else {
        format!("{x:.*}", d as usize)
    };
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.push('0');
        }
    }
    s
}

fn floor_log10_f64(a: f64) -> i32 {
    #[cfg(feature = "std")]
    {
        a.log10().floor() as i32
    }
    #[cfg(not(feature = "std"))]
    {
        // Exact decimal exponent from the shortest representation.
        let s = format!("{a:e}");
        s.split('e')
            .nth(1)
            .and_then(|e| e.parse().ok())
            .unwrap_or(0)
    }
}

fn floor_log10_f32(a: f32) -> i32 {
    #[cfg(feature = "std")]
    {
        a.log10().floor() as i32
    }
    #[cfg(not(feature = "std"))]
    {
        floor_log10_f64(f64::from(a))
    }
}

/// `String::num_real(double, trailing)`: an integral value as an integer (`.0` with
/// `trailing`), else 14 decimals less the magnitude's digits.
pub(crate) fn num_real_f64(x: f64, trailing: bool) -> String {
    if x.is_nan() || x.is_infinite() {
        return num(x, 0);
    }
    let i = f64_to_i64(x);
    if x == i as f64 {
        return if trailing {
            format!("{i}.0")
        } else {
            format!("{i}")
        };
    }
    let mut decimals = 14;
    let a = x.abs();
    if a > 10.0 {
        decimals -= floor_log10_f64(a);
    }
    num(x, decimals)
}

/// `String::num_real(float, trailing)`: as [`num_real_f64`] with 6 decimals.
pub(crate) fn num_real_f32(x: f32, trailing: bool) -> String {
    if x.is_nan() || x.is_infinite() {
        return num(f64::from(x), 0);
    }
    let i = f64_to_i64(f64::from(x));
    if x == i as f32 {
        return if trailing {
            format!("{i}.0")
        } else {
            format!("{i}")
        };
    }
    let mut decimals = 6;
    let a = x.abs();
    if a > 10.0 {
        decimals -= floor_log10_f32(a);
    }
    num(f64::from(x), decimals)
}

/// A `real_t` component as `num_real` prints it in the engine's precision.
fn real_text(x: f64, trailing: bool, double: bool) -> String {
    if double {
        num_real_f64(x, trailing)
    } else {
        num_real_f32(x as f32, trailing)
    }
}

fn tuple(parts: &[String]) -> String {
    format!("({})", parts.join(", "))
}

fn vec_text(c: &[f64], double: bool) -> String {
    tuple(
        &c.iter()
            .map(|x| real_text(*x, true, double))
            .collect::<Vec<_>>(),
    )
}

fn ivec_text(c: &[i32]) -> String {
    tuple(&c.iter().map(ToString::to_string).collect::<Vec<_>>())
}

/// `String::c_escape` (Godot 4), then quoted.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The text of a value that is not an Array or Dictionary, as `Variant::stringify` makes it
/// (`clean`: as an element of a container, strings quoted).
fn leaf_text(v: &Variant, clean: bool, double: bool) -> String {
    let reals = |a: &[f64]| vec_text(a, double);
    match v {
        Variant::Nil | Variant::Raw(_) => "<null>".into(),
        Variant::Bool(b) => b.to_string(),
        Variant::Int(i) => i.to_string(),
        Variant::Float(f) => num_real_f64(*f, true),
        Variant::String(s) => {
            if clean {
                quoted(s)
            } else {
                s.to_string()
            }
        }
        Variant::StringName(s) => {
            if clean {
                format!("&{}", quoted(s))
            } else {
                s.to_string()
            }
        }
        Variant::NodePath(np) => {
            let t = node_path_text(np);
            if clean {
                format!("^{}", quoted(&t))
            } else {
                t
            }
        }
        Variant::Vector2(a) => reals(&a.to_array()),
        Variant::Vector3(a) => reals(&a.to_array()),
        Variant::Vector4(a) => reals(&a.to_array()),
        Variant::Vector2i(a) => ivec_text(&a.to_array()),
        Variant::Vector3i(a) => ivec_text(&a.to_array()),
        Variant::Vector4i(a) => ivec_text(&a.to_array()),
        Variant::Rect2(r) => format!(
            "[P: {}, S: {}]",
            reals(&r.position.to_array()),
            reals(&r.size.to_array())
        ),
        Variant::Rect2i(r) => {
            let a = r.to_array();
            format!("[P: {}, S: {}]", ivec_text(&a[..2]), ivec_text(&a[2..]))
        }
        Variant::Transform2D(t) => {
            let a = t.to_array();
            format!(
                "[X: {}, Y: {}, O: {}]",
                reals(&a[0..2]),
                reals(&a[2..4]),
                reals(&a[4..6])
            )
        }
        Variant::Plane(p) => format!(
            "[N: {}, D: {}]",
            reals(&p.normal.to_array()),
            real_text(p.d, false, double)
        ),
        Variant::Quaternion(q) => tuple(
            &q.to_array()
                .iter()
                .map(|x| real_text(*x, false, double))
                .collect::<Vec<_>>(),
        ),
        Variant::Aabb(b) => format!(
            "[P: {}, S: {}]",
            reals(&b.position.to_array()),
            reals(&b.size.to_array())
        ),
        Variant::Basis(b) => basis_text(&b.to_array(), None, double),
        Variant::Transform3D(t) => {
            let a = t.to_array();
            basis_text(&a[..9], Some(&a[9..]), double)
        }
        Variant::Projection(p) => {
            let a = p.to_array();
            format!(
                "[X: {}, Y: {}, Z: {}, W: {}]",
                reals(&a[0..4]),
                reals(&a[4..8]),
                reals(&a[8..12]),
                reals(&a[12..16])
            )
        }
        Variant::Color(c) => tuple(
            &c.to_array()
                .iter()
                .map(|x| num(f64::from(*x), 4))
                .collect::<Vec<_>>(),
        ),
        Variant::Rid(id) => format!("RID({})", *id as i64),
        Variant::Object(o) => match &**o {
            Object::Id(0) => "<Object#null>".into(),
            Object::Id(id) => format!("<{ENCODED_OBJECT_AS_ID}#{}>", *id as i64),
            Object::Full { class, .. } if class.is_empty() => "<Object#null>".into(),
            // The engine prints the live object (`Object::to_string`), whose instance id is
            // its own: only the class is known here.
            Object::Full { class, .. } => format!("<{class}#0>"),
        },
        Variant::Callable => "null::null".into(),
        Variant::Signal(s) => format!("null::[signal]{}", s.name),
        Variant::PackedByteArray(a) => list(a.iter().map(|x| x.to_string())),
        Variant::PackedInt32Array(a) => list(a.iter().map(|x| x.to_string())),
        Variant::PackedInt64Array(a) => list(a.iter().map(|x| x.to_string())),
        Variant::PackedFloat32Array(a) => list(a.iter().map(|x| num_real_f64(f64::from(*x), true))),
        Variant::PackedFloat64Array(a) => list(a.iter().map(|x| num_real_f64(*x, true))),
        Variant::PackedStringArray(a) => list(a.iter().map(|x| quoted(x))),
        Variant::PackedVector2Array(a) => list(a.iter().map(|x| reals(&x.to_array()))),
        Variant::PackedVector3Array(a) => list(a.iter().map(|x| reals(&x.to_array()))),
        Variant::PackedVector4Array(a) => list(a.iter().map(|x| reals(&x.to_array()))),
        Variant::PackedColorArray(a) => list(a.iter().map(|c| {
            tuple(
                &c.to_array()
                    .iter()
                    .map(|x| num(f64::from(*x), 4))
                    .collect::<Vec<_>>(),
            )
        })),
        // Containers are handled by `stringify`.
        Variant::Array(_) | Variant::Dictionary(_) => String::new(),
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    format!("[{}]", v.join(", "))
}

/// `Basis::operator String` (columns as X, Y, Z) and `Transform3D`'s (with O).
fn basis_text(rows: &[f64], origin: Option<&[f64]>, double: bool) -> String {
    let col = |i: usize| vec_text(&[rows[i], rows[3 + i], rows[6 + i]], double);
    match origin {
        None => format!("[X: {}, Y: {}, Z: {}]", col(0), col(1), col(2)),
        Some(o) => format!(
            "[X: {}, Y: {}, Z: {}, O: {}]",
            col(0),
            col(1),
            col(2),
            vec_text(o, double)
        ),
    }
}

/// `str(value)` in Godot 4 (`Variant::stringify`): what a `PackedStringArray` made from an
/// Array holds for each element. Containers print as `[a, b]` and `{ k: v }` (insertion
/// order), their strings quoted; nesting of any depth is walked without recursion. `double`:
/// the engine's `real_t` is `f64`.
fn stringify(v: &Variant, double: bool) -> String {
    enum Step<'v> {
        Value(&'v Variant, bool),
        Text(&'static str),
    }
    let mut out = String::new();
    let mut todo: Vec<Step<'_>> = alloc::vec![Step::Value(v, false)];
    while let Some(step) = todo.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Value(Variant::Array(a), _) => {
                todo.push(Step::Text("]"));
                for (i, x) in a.items.iter().enumerate().rev() {
                    todo.push(Step::Value(x, true));
                    if i > 0 {
                        todo.push(Step::Text(", "));
                    }
                }
                todo.push(Step::Text("["));
            }
            Step::Value(Variant::Dictionary(d), _) => {
                todo.push(Step::Text(" }"));
                for (i, (k, x)) in d.entries.iter().enumerate().rev() {
                    todo.push(Step::Value(x, true));
                    todo.push(Step::Text(": "));
                    todo.push(Step::Value(k, true));
                    if i > 0 {
                        todo.push(Step::Text(", "));
                    }
                }
                todo.push(Step::Text("{ "));
            }
            Step::Value(x, clean) => out.push_str(&leaf_text(x, clean, double)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_the_engine_prints_them() {
        assert_eq!(num_real_f64(-0.0, true), "0.0");
        assert_eq!(num_real_f64(-5e-324, true), "-0.0");
        assert_eq!(num_real_f64(1.0 / 3.0, true), "0.33333333333333");
        assert_eq!(
            num_real_f64(1e39, true),
            "999999999999999939709166371603178586112.0"
        );
        assert_eq!(num_real_f64(123.456, true), "123.456");
        assert_eq!(num_real_f32(0.1, true), "0.1");
        assert_eq!(num_real_f32(1234.5679, true), "1234.568");
        assert_eq!(num_real_f32(99.99999, true), "100.0");
        assert_eq!(num_real_f32(1.0, false), "1");
        assert_eq!(num_real_f32(-1e-30, true), "-0.0");
        assert_eq!(num(0.123456789, 4), "0.1235");
        assert_eq!(num(f64::NEG_INFINITY, 4), "-inf");
    }

    #[test]
    fn string_to_number() {
        for (s, i) in [
            ("12", 12),
            ("-12", -12),
            ("1-2", 12),
            ("a1b2", 12),
            ("--5", 5),
            ("1.9", 1),
            ("  7", 7),
            ("9223372036854775808", i64::MIN),
            ("-9223372036854775809", i64::MAX),
            ("1e5", 15),
            ("0x10", 10),
            ("é5", 5),
        ] {
            assert_eq!(string_to_int(s), i, "{s}");
        }
        for (s, f) in [
            ("1.5", 1.5),
            (" 2.5", 2.5),
            ("1e3", 1000.0),
            ("abc", 0.0),
            ("1.5abc", 1.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("inf", 0.0),
            ("nan", 0.0),
            ("1e400", f64::INFINITY),
            ("0x10", 0.0),
            ("1,5", 1.0),
            ("+3", 3.0),
        ] {
            assert_eq!(string_to_float(s), f, "{s}");
        }
    }

    #[test]
    fn square_roots_are_correctly_rounded() {
        for x in [
            2.0,
            0.5,
            1e-300,
            5e-324,
            1.7976931348623157e308,
            3.0,
            1e10,
            0.1,
            7.0,
        ] {
            assert_eq!(sqrt_exact(x).to_bits(), x.sqrt().to_bits(), "{x}");
        }
        let mut s = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..10_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s & 0x7FEF_FFFF_FFFF_FFFF);
            assert_eq!(sqrt_exact(x).to_bits(), x.sqrt().to_bits(), "{x:e}");
        }
    }

    #[test]
    fn colors_from_strings() {
        let c = color_from_string("abc");
        assert_eq!(c, Color::new(10.0 / 15.0, 11.0 / 15.0, 12.0 / 15.0, 1.0));
        assert_eq!(color_from_string("alice-Blue"), color_hex(0xF0F8FFFF));
        assert_eq!(color_from_string("gg0"), Color::new(0.0, 0.0, 0.0, 1.0));
        assert!(NAMED_COLORS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn node_paths_from_strings() {
        let np = node_path_from_str("/a//b:c:");
        assert_eq!(
            (np.names.len(), np.subnames.len(), np.absolute),
            (2, 1, true)
        );
        assert_eq!(node_path_from_str("a::b"), NodePath::default());
        assert_eq!(node_path_text(&node_path_from_str("a/b:c:d")), "a/b:c:d");
    }
}
