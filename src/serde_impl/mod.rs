//! The serde glue shared by the deserializer ([`crate::de`]) and the serializer
//! ([`crate::ser`]): the one table of private magic newtype names, the math types' and
//! [`Variant`](crate::Variant)'s `Serialize`/`Deserialize`, and the options word of the borrowed hand-off of
//! [`VariantRef`](crate::VariantRef).
//!
//! A magic name starts with a NUL, so no Rust type's name can collide with it, then a code byte
//! that says what it stands for (read in O(1), without comparing names: the deserializer and
//! serializer look at it for every math type), then `gdvariant::` and a readable name. Wrapped
//! in one, a value tells the crate's own serializer which native Godot type to write (a
//! `Vector3`, a `StringName`, a PackedFloat32Array, …) and the crate's own deserializer which
//! native value it wants; every other serde format sees an ordinary newtype around plain data
//! (components, elements, a string, a number) and handles it as such.
//!
//! Codes: a math or packed type's Godot 4 type id plus one (1–39); a packed vector type of
//! f64 components (Godot 4's flag-64 form) `0x40` plus its id; the other magic names `0x70`
//! and up.

pub(crate) mod math;
pub(crate) mod variant;

use crate::types::{Dialect, ReadOptions, VariantType};

/// Magic name: a value already encoded, handed over whole (a [`VariantRef`](crate::VariantRef),
/// or a rare [`Variant`](crate::Variant) type without a plain serde form).
pub(crate) const RAW: &str = "\0\x70gdvariant::Raw";
/// Magic name: a StringName (other formats: a string).
pub(crate) const STRING_NAME: &str = "\0\x71gdvariant::StringName";
/// Magic name: a RID (other formats: a `u64`).
pub(crate) const RID: &str = "\0\x72gdvariant::RID";
/// Magic name: an object by instance id (other formats: a `u64`).
pub(crate) const OBJECT_ID: &str = "\0\x73gdvariant::ObjectId";
/// Magic name: a full object, as `(class, {property: value})` (other formats: that tuple).
pub(crate) const OBJECT: &str = "\0\x74gdvariant::Object";
/// Magic name: a typed container, as `(types, elements)`: `types` one `(kind, type id, name)`
/// triple per declared type (one for an Array, key and value for a Dictionary), `elements` a
/// sequence or a map.
pub(crate) const TYPED: &str = "\0\x75gdvariant::Typed";

/// The tail every magic name has after its NUL and code byte.
const TAG: &[u8] = b"gdvariant::";

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

/// What `name` stands for, if it is a magic name: O(1) (its first byte for every other name).
#[inline]
pub(crate) fn magic(name: &str) -> Option<Magic> {
    let b = name.as_bytes();
    if b.first() != Some(&0) {
        return None;
    }
    let (&code, tail) = b.get(1..)?.split_first()?;
    if !tail.starts_with(TAG) {
        return None;
    }
    Some(match code {
        0x70 => Magic::Raw,
        0x71 => Magic::StringName,
        0x72 => Magic::Rid,
        0x73 => Magic::ObjectId,
        0x74 => Magic::Object,
        0x75 => Magic::Typed,
        0x40..=0x6F => {
            let ty = Dialect::Godot4.type_of(u32::from(code - 0x40))?;
            if !matches!(
                ty,
                VariantType::PackedVector2Array
                    | VariantType::PackedVector3Array
                    | VariantType::PackedVector4Array
            ) {
                return None;
            }
            Magic::Packed(ty, true)
        }
        1..=0x3F => {
            let ty = Dialect::Godot4.type_of(u32::from(code - 1))?;
            match math_components(ty) {
                Some(n) => Magic::Math(ty, n),
                None if PACKED.iter().any(|p| p.0 == ty) => Magic::Packed(ty, false),
                None => return None,
            }
        }
        _ => return None,
    })
}

/// The number of components of a math type (`None` for other types).
#[inline]
pub(crate) fn math_components(ty: VariantType) -> Option<usize> {
    use VariantType as T;
    Some(match ty {
        T::Vector2 | T::Vector2i => 2,
        T::Vector3 | T::Vector3i => 3,
        T::Rect2 | T::Rect2i | T::Vector4 | T::Vector4i | T::Plane | T::Quaternion | T::Color => 4,
        T::Transform2D | T::Aabb => 6,
        T::Basis => 9,
        T::Transform3D => 12,
        T::Projection => 16,
        _ => return None,
    })
}

/// The packed types with their magic names (single, and double precision where it applies).
const PACKED: &[(VariantType, &str, &str)] = &[
    (
        VariantType::PackedByteArray,
        "\0\x1egdvariant::PackedByteArray",
        "",
    ),
    (
        VariantType::PackedInt32Array,
        "\0\x1fgdvariant::PackedInt32Array",
        "",
    ),
    (
        VariantType::PackedInt64Array,
        "\0\x20gdvariant::PackedInt64Array",
        "",
    ),
    (
        VariantType::PackedFloat32Array,
        "\0\x21gdvariant::PackedFloat32Array",
        "",
    ),
    (
        VariantType::PackedFloat64Array,
        "\0\x22gdvariant::PackedFloat64Array",
        "",
    ),
    (
        VariantType::PackedStringArray,
        "\0\x23gdvariant::PackedStringArray",
        "",
    ),
    (
        VariantType::PackedVector2Array,
        "\0\x24gdvariant::PackedVector2Array",
        "\0\x63gdvariant::PackedVector2Array64",
    ),
    (
        VariantType::PackedVector3Array,
        "\0\x25gdvariant::PackedVector3Array",
        "\0\x64gdvariant::PackedVector3Array64",
    ),
    (
        VariantType::PackedColorArray,
        "\0\x26gdvariant::PackedColorArray",
        "",
    ),
    (
        VariantType::PackedVector4Array,
        "\0\x27gdvariant::PackedVector4Array",
        "\0\x66gdvariant::PackedVector4Array64",
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

// ----- the hand-off's options, as one word -----

const GODOT3: u64 = 1;
const OBJECTS: u64 = 2;
/// Set when the bytes were encoded in double precision (a `Variant`'s rare types): the
/// serializer writes them unchanged only into a double-precision writer.
const DOUBLE: u64 = 4;
/// The read option [`ReadOptions::with_double_precision`]: how 64-bit math reads.
const READ_DOUBLE: u64 = 8;

pub(crate) fn options_word(opts: &ReadOptions, double: bool) -> u64 {
    let mut w = u64::from(opts.max_depth) << 32;
    if opts.dialect == Dialect::Godot3 {
        w |= GODOT3;
    }
    if opts.allow_objects {
        w |= OBJECTS;
    }
    if double {
        w |= DOUBLE;
    }
    if opts.double_precision() {
        w |= READ_DOUBLE;
    }
    w
}

/// The read options and the double-precision bit of an options word.
pub(crate) fn word_options(w: u64) -> (ReadOptions, bool) {
    let dialect = if w & GODOT3 != 0 {
        Dialect::Godot3
    } else {
        Dialect::Godot4
    };
    let opts = ReadOptions::new()
        .with_dialect(dialect)
        .with_full_objects(w & OBJECTS != 0)
        .with_double_precision(w & READ_DOUBLE != 0)
        .with_max_depth((w >> 32) as u32);
    (opts, w & DOUBLE != 0)
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
        for &(name, ty) in math::NAMES {
            assert_eq!(
                magic(name),
                Some(Magic::Math(ty, math_components(ty).unwrap())),
                "{name:?}"
            );
            assert!(name.ends_with(&alloc::format!("::{}", ty.name()).replace("AABB", "Aabb")));
        }
        assert_eq!(magic("Vector3"), None);
        assert_eq!(magic("\0\x5egdvariant::PackedInt32Array64"), None);
        assert_eq!(magic("\0\x0aother::Vector3"), None);
        assert_eq!(magic("\0"), None);
        assert_eq!(magic("\0other"), None);
        // Every code is the Godot 4 id plus one, or 0x40 plus it for the f64 forms.
        for &(ty, single, double) in PACKED {
            let id = Dialect::Godot4.id_of(ty).unwrap() as u8;
            assert_eq!(single.as_bytes()[1], id + 1);
            if !double.is_empty() {
                assert_eq!(double.as_bytes()[1], 0x40 + id);
            }
        }
    }
}
