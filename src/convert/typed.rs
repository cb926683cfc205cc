//! Typed containers: what the engine does with each element of a typed Array (each key of a
//! typed Dictionary) — keeps it, converts it or drops it ([`Fit`]) — by the table of
//! `Variant::can_convert_strict`, and the declared types as the engine keeps them.

use alloc::string::ToString;

use crate::object::ObjectRef;
use crate::owned::{Object, TypeInfo, Variant};
use crate::types::{Dialect, VariantType as T};
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
    /// The element is converted to the declared type ([`convert`](super::convert())).
    Convert,
    /// The element cannot be converted: the engine leaves it out.
    Drop,
}

/// The declared type of a typed container as the engine keeps it after decoding: `Nil`
/// means untyped ([`TypeInfo::None`]); without full objects (`objects` false) every object
/// type — builtin `Object`, a class or a script — is the class `EncodedObjectAsID`.
///
/// ```
/// use gdvariant::{convert::engine_type, owned::TypeInfo, VariantType};
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
pub(super) fn builtin_of(t: &TypeInfo) -> Option<T> {
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
/// the [module docs](super)). Equal types are always allowed.
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
/// the element `value`: keep it, convert it ([`convert`](super::convert())) or drop it.
///
/// ```
/// use gdvariant::convert::{fit, Fit};
/// use gdvariant::{owned::TypeInfo, Variant, VariantType};
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
    use alloc::vec::Vec;

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
