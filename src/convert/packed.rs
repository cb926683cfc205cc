//! Arrays and packed arrays, each from the other (`Array(Packed*Array)`,
//! `Packed*Array(Array)`), and the Variant's conversion operators that the second applies to
//! each element (`Variant::operator int64_t`, `double`, `Vector4`, `Color`, `String`).

use alloc::vec::Vec;

use super::colors::{color_from_string, color_hex};
use super::maths::real;
use super::parse::{string_to_float, string_to_int};
use super::stringify::stringify;
use crate::math::*;
use crate::num::{f64_to_i64, real_to_i32};
use crate::owned::Variant;
use crate::types::VariantType as T;

/// `Array(Packed*Array)`: the elements as Variants.
pub(super) fn packed_elements(v: &Variant) -> Vec<Variant> {
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
pub(super) fn packed_from(to: T, items: &[Variant], double: bool) -> Option<Variant> {
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
