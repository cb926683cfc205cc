//! The engine's text of a leaf (a value that is not a container with elements): numbers in
//! the engine's format, Strings and StringNames with the engine's escapes, math types in each
//! dialect's layout; and the names of container types.

use core::fmt;
use std::string::{String, ToString};

use crate::num::{self, NumText};
use crate::object::ObjectRef;
use crate::out::{ch, put, Stop, R};
use crate::owned::TypeInfo;
use crate::types::{Dialect, VariantType as T};
use crate::value::VariantRef;

/// The stack buffer of a math or packed value's text ([`leaf`]'s `reals!`, `ints!`): a vector's
/// text fits, a longer one is written in pieces of up to this size.
const NUMS: usize = 128;

/// Opens a math or packed value's components: `(`, in Godot 3 `( `. (A char, not a `&str` of
/// either length: no copy call for one byte.)
fn open<W: fmt::Write + ?Sized>(s: &mut W, g3: bool) -> R {
    if g3 {
        put(s, "( ")
    } else {
        ch(s, '(')
    }
}

/// Closes what [`open`] opened.
fn close<W: fmt::Write + ?Sized>(s: &mut W, g3: bool) -> R {
    if g3 {
        put(s, " )")
    } else {
        ch(s, ')')
    }
}

/// Prints a value that is not a container with elements.
pub(super) fn leaf<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, s: &mut W) -> R {
    let d = v.dialect();
    let g3 = d == Dialect::Godot3;
    let name = v.ty().name_in(d);
    // 64-bit components as a single-precision engine reads them: narrowed to its `real_t`.
    let narrow = !g3 && v.is_wide() && !v.options().double_precision();
    // Each arm reads what it prints before it writes: an error leaves nothing written.
    // A number's or a math value's text is gathered on the stack and written in one piece (a
    // packed array's in pieces of up to `NUMS` bytes): one check and one copy, not a write
    // per character.
    // The components in `name(…)`, each appended by `$push` (at most `$max` bytes).
    macro_rules! nums {
        ($arr:expr, $max:expr, $push:expr) => {{
            let mut t = NumText::<NUMS>::new();
            t.push_bytes(name.as_bytes());
            t.push_bytes(if g3 { b"( " } else { b"(" });
            for (i, x) in $arr.into_iter().enumerate() {
                if t.len() > NUMS - 2 - $max {
                    t.flush_to(s).map_err(|_| Stop::Write)?;
                }
                if i > 0 {
                    t.push_bytes(b", ");
                }
                $push(x, &mut t);
            }
            t.push_bytes(if g3 { b" )" } else { b")" });
            t.flush_to(s).map_err(|_| Stop::Write)?;
        }};
    }
    macro_rules! reals {
        ($arr:expr) => {
            nums!($arr, num::REAL_MAX, |x, t: &mut NumText<NUMS>| {
                let x = x as f64;
                let x = if narrow { f64::from(x as f32) } else { x };
                num::push_real(x, d, t);
            })
        };
    }
    macro_rules! ints {
        ($arr:expr) => {
            nums!($arr, 20, |x, t: &mut NumText<NUMS>| num::push_int(
                i64::from(x),
                t
            ))
        };
    }
    match v.ty() {
        T::Nil => put(s, "null")?,
        T::Bool => put(s, if v.as_bool()? { "true" } else { "false" })?,
        T::Int => num::int(v.as_i64()?).write_to(s).map_err(|_| Stop::Write)?,
        T::Float => num::float_text(v.as_f64()?, d)
            .write_to(s)
            .map_err(|_| Stop::Write)?,
        T::String => {
            let t = v.as_text()?;
            ch(s, '"')?;
            escape_multiline(&t.to_string_lossy(), s)?;
            ch(s, '"')?;
        }
        T::StringName => {
            let t = v.as_text()?;
            put(s, "&\"")?;
            c_escape(&t.to_string_lossy(), d, s)?;
            ch(s, '"')?;
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
            put(s, "NodePath(\"")?;
            c_escape(&path, d, s)?;
            put(s, "\")")?;
        }
        T::Rid => {
            if !g3 {
                match v.as_rid()? {
                    0 => put(s, "RID()")?,
                    // The engine prints the id as a signed 64-bit int.
                    id => {
                        put(s, "RID(")?;
                        put(s, &(id as i64).to_string())?;
                        ch(s, ')')?;
                    }
                }
            }
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(0) => put(s, "null")?,
            ObjectRef::Id(id) => {
                put(s, "Object(EncodedObjectAsID,\"object_id\":")?;
                // `object_id` is an int property: signed.
                put(s, &(id as i64).to_string())?;
                put(s, ",\"script\":null)\n")?;
            }
            // A full object with elements is a container; here its class is empty: null.
            ObjectRef::Full(_) => put(s, "null")?,
        },
        T::Callable => put(s, "Callable()")?,
        T::Signal => put(s, "Signal()")?,
        T::PackedByteArray => {
            let bytes = v.as_byte_array()?;
            put(s, name)?;
            open(s, g3)?;
            num::write_bytes(bytes, s).map_err(|_| Stop::Write)?;
            close(s, g3)?;
        }
        T::PackedInt32Array => ints!(v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => ints!(v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => reals!(v.as_packed::<f32>()?.iter()),
        T::PackedFloat64Array => reals!(v.as_packed::<f64>()?.iter()),
        T::PackedStringArray => {
            put(s, name)?;
            open(s, g3)?;
            let mut it = v.as_string_array()?.iter();
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if !first {
                    put(s, ", ")?;
                }
                first = false;
                ch(s, '"')?;
                c_escape(&t.to_string_lossy(), d, s)?;
                ch(s, '"')?;
            }
            close(s, g3)?;
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
        // Containers with elements are printed by the printer's frames; an empty Array or
        // Dictionary never reaches here either.
        T::Array | T::Dictionary => {}
    }
    Ok(())
}

/// The name of a container's element / key / value type as the engine prints it.
pub(super) fn type_name<W: fmt::Write + ?Sized>(t: &TypeInfo, s: &mut W) -> R {
    match t {
        TypeInfo::None => put(s, "Variant"),
        TypeInfo::Builtin(ty) => put(s, ty.name()),
        TypeInfo::ClassName(c) => put(s, c),
        TypeInfo::Script(p) => {
            put(s, "Resource(\"")?;
            put(s, p)?;
            put(s, "\")")
        }
    }
}

/// `String::c_escape_multiline`: only `\` and `"` are escaped (Strings).
fn escape_multiline<W: fmt::Write + ?Sized>(t: &str, s: &mut W) -> R {
    let mut rest = t;
    while let Some(i) = rest.find(['\\', '"']) {
        put(s, &rest[..i])?;
        put(
            s,
            if rest.as_bytes()[i] == b'\\' {
                "\\\\"
            } else {
                "\\\""
            },
        )?;
        rest = &rest[i + 1..];
    }
    put(s, rest)
}

/// `String::c_escape` (StringName, NodePath, PackedStringArray entries). Godot 3 also escapes
/// `?`.
fn c_escape<W: fmt::Write + ?Sized>(t: &str, d: Dialect, s: &mut W) -> R {
    for c in t.chars() {
        match c {
            '\\' => put(s, "\\\\")?,
            '\u{7}' => put(s, "\\a")?,
            '\u{8}' => put(s, "\\b")?,
            '\u{c}' => put(s, "\\f")?,
            '\n' => put(s, "\\n")?,
            '\r' => put(s, "\\r")?,
            '\t' => put(s, "\\t")?,
            '\u{b}' => put(s, "\\v")?,
            '\'' => put(s, "\\'")?,
            '"' => put(s, "\\\"")?,
            '?' if d == Dialect::Godot3 => put(s, "\\?")?,
            c => ch(s, c)?,
        }
    }
    Ok(())
}
