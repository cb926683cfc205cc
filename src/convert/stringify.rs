//! `str(value)` as Godot 4 prints it (`Variant::stringify`): the text a `PackedStringArray`
//! made from an Array holds for each element. Numbers as `String::num_real` and
//! `String::num` print them ([`crate::num`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::parse::node_path_text;
use super::typed::ENCODED_OBJECT_AS_ID;
use crate::num::{num, num_real_f32, num_real_f64};
use crate::owned::{Object, Variant};

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
pub(super) fn stringify(v: &Variant, double: bool) -> String {
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
