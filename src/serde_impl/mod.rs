//! The serde glue shared by the deserializer ([`crate::de`]) and the serializer
//! ([`crate::ser`]): the one table of private magic newtype names, the math types' and
//! [`Variant`](crate::Variant)'s `Serialize`/`Deserialize`, and the borrowed raw hand-off of
//! [`VariantRef`](crate::VariantRef).
//!
//! A magic name starts with a NUL, so no Rust type's name can collide with it. Wrapped in one,
//! a value tells the crate's own serializer which native Godot type to write (a `Vector3`, a
//! `StringName`, a PackedFloat32Array, …) and the crate's own deserializer which native value it
//! wants; every other serde format sees an ordinary newtype around plain data (components,
//! elements, a string, a number) and handles it as such.

pub(crate) mod math;
#[allow(dead_code)] // used by the deserializer's engine-value detour
pub(crate) mod owned;
pub(crate) mod sinks;
pub(crate) mod variant;

use crate::types::VariantType;

/// The prefix of every magic name.
pub(crate) const PREFIX: &str = "\0gdvariant::";

/// Magic name: a value already encoded, handed over whole (a [`VariantRef`](crate::VariantRef),
/// or a rare [`Variant`](crate::Variant) type without a plain serde form).
pub(crate) const RAW: &str = "\0gdvariant::Raw";
/// Magic name: a StringName (other formats: a string).
pub(crate) const STRING_NAME: &str = "\0gdvariant::StringName";
/// Magic name: a RID (other formats: a `u64`).
pub(crate) const RID: &str = "\0gdvariant::RID";
/// Magic name: an object by instance id (other formats: a `u64`).
pub(crate) const OBJECT_ID: &str = "\0gdvariant::ObjectId";
/// Magic name: a full object, as `(class, {property: value})` (other formats: that tuple).
pub(crate) const OBJECT: &str = "\0gdvariant::Object";
/// Magic name: a typed container, as `(types, elements)`: `types` one `(kind, type id, name)`
/// triple per declared type (one for an Array, key and value for a Dictionary), `elements` a
/// sequence or a map.
pub(crate) const TYPED: &str = "\0gdvariant::Typed";

/// What a magic name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Magic {
    /// A math type and its component count.
    Math(VariantType, usize),
    /// A packed array; `wide`: of f64 vector components (Godot 4's flag-64 form).
    Packed(VariantType, bool),
    Raw,
    StringName,
    Rid,
    ObjectId,
    Object,
    Typed,
}

/// What `name` stands for, if it is a magic name. O(1) for every other name (its first byte).
#[inline]
pub(crate) fn magic(name: &str) -> Option<Magic> {
    if !name.starts_with('\0') {
        return None;
    }
    magic_cold(name)
}

fn magic_cold(name: &str) -> Option<Magic> {
    use VariantType as T;
    let rest = name.strip_prefix(PREFIX)?;
    // One `match` on the rest: the compiler dispatches on the length first.
    let math = |ty: T, n: usize| Some(Magic::Math(ty, n));
    match rest {
        "Vector2" => math(T::Vector2, 2),
        "Vector2i" => math(T::Vector2i, 2),
        "Rect2" => math(T::Rect2, 4),
        "Rect2i" => math(T::Rect2i, 4),
        "Vector3" => math(T::Vector3, 3),
        "Vector3i" => math(T::Vector3i, 3),
        "Transform2D" => math(T::Transform2D, 6),
        "Vector4" => math(T::Vector4, 4),
        "Vector4i" => math(T::Vector4i, 4),
        "Plane" => math(T::Plane, 4),
        "Quaternion" => math(T::Quaternion, 4),
        "Aabb" => math(T::Aabb, 6),
        "Basis" => math(T::Basis, 9),
        "Transform3D" => math(T::Transform3D, 12),
        "Projection" => math(T::Projection, 16),
        "Color" => math(T::Color, 4),
        "Raw" => Some(Magic::Raw),
        "StringName" => Some(Magic::StringName),
        "RID" => Some(Magic::Rid),
        "ObjectId" => Some(Magic::ObjectId),
        "Object" => Some(Magic::Object),
        "Typed" => Some(Magic::Typed),
        _ => {
            let (rest, wide) = match rest.strip_suffix("64") {
                Some(r) if r.starts_with("PackedVector") => (r, true),
                _ => (rest, false),
            };
            let ty = PACKED.iter().find(|(t, _, _)| t.name() == rest)?.0;
            if wide && matches!(ty, T::PackedStringArray | T::PackedByteArray) {
                return None;
            }
            Some(Magic::Packed(ty, wide))
        }
    }
}

/// The packed types with their magic names (single, and double precision where it applies).
const PACKED: &[(VariantType, &str, &str)] = &[
    (
        VariantType::PackedByteArray,
        "\0gdvariant::PackedByteArray",
        "",
    ),
    (
        VariantType::PackedInt32Array,
        "\0gdvariant::PackedInt32Array",
        "",
    ),
    (
        VariantType::PackedInt64Array,
        "\0gdvariant::PackedInt64Array",
        "",
    ),
    (
        VariantType::PackedFloat32Array,
        "\0gdvariant::PackedFloat32Array",
        "",
    ),
    (
        VariantType::PackedFloat64Array,
        "\0gdvariant::PackedFloat64Array",
        "",
    ),
    (
        VariantType::PackedStringArray,
        "\0gdvariant::PackedStringArray",
        "",
    ),
    (
        VariantType::PackedVector2Array,
        "\0gdvariant::PackedVector2Array",
        "\0gdvariant::PackedVector2Array64",
    ),
    (
        VariantType::PackedVector3Array,
        "\0gdvariant::PackedVector3Array",
        "\0gdvariant::PackedVector3Array64",
    ),
    (
        VariantType::PackedColorArray,
        "\0gdvariant::PackedColorArray",
        "",
    ),
    (
        VariantType::PackedVector4Array,
        "\0gdvariant::PackedVector4Array",
        "\0gdvariant::PackedVector4Array64",
    ),
];

/// The magic name of the packed type `ty` (`wide`: of f64 vector components).
pub(crate) fn packed_name(ty: VariantType, wide: bool) -> &'static str {
    PACKED
        .iter()
        .find(|p| p.0 == ty)
        .map(|p| if wide && !p.2.is_empty() { p.2 } else { p.1 })
        .unwrap_or(RAW)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_magic_name_reads_back() {
        for &(ty, single, double) in PACKED {
            assert_eq!(magic(single), Some(Magic::Packed(ty, false)), "{single:?}");
            assert_eq!(packed_name(ty, false), single);
            if !double.is_empty() {
                assert_eq!(magic(double), Some(Magic::Packed(ty, true)), "{double:?}");
                assert_eq!(packed_name(ty, true), double);
            }
        }
        assert_eq!(magic(RAW), Some(Magic::Raw));
        assert_eq!(magic(STRING_NAME), Some(Magic::StringName));
        assert_eq!(magic(RID), Some(Magic::Rid));
        assert_eq!(magic(OBJECT_ID), Some(Magic::ObjectId));
        assert_eq!(magic(OBJECT), Some(Magic::Object));
        assert_eq!(magic(TYPED), Some(Magic::Typed));
        assert_eq!(
            magic("\0gdvariant::Vector3"),
            Some(Magic::Math(VariantType::Vector3, 3))
        );
        assert_eq!(magic("Vector3"), None);
        assert_eq!(magic("\0gdvariant::PackedInt32Array64"), None);
        assert_eq!(magic("\0other"), None);
    }
}
