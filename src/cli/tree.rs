//! An indented outline of a value: one line per node with its path, type, byte offset and size,
//! long containers summarised. Reads lazily from a [`VariantRef`]; memory stays bounded by the
//! nesting depth, whatever the size of the value.
//!
//! ```text
//! / Dictionary @0 1432 B, 2 entries
//!   /tick int @20 8 B = 123456
//!   /entities Array @48 1384 B, 8 elements
//!     /entities/0 Dictionary @56 170 B, 6 entries
//!     ...
//!     … 4 more elements @400..@1200 (800 B)
//! ```
//!
//! Paths use the syntax of `gdvariant get` ([`VariantRef::path`]): dictionary keys and array
//! indices joined by `/`. Keys that are not Strings or ints are shown as `[text]`.

use std::string::{String, ToString};

use super::sink::Sink;
use super::text;
use crate::error::Result;
use crate::types::VariantType as T;
use crate::value::VariantRef;

/// How much of a value [`write_tree`] shows.
#[derive(Clone, Debug)]
pub struct TreeOptions {
    /// Children shown at the start of a long container.
    pub head: usize,
    /// Children shown at the end of a long container.
    pub tail: usize,
    /// Nodes deeper than this are not expanded (`None`: no limit).
    pub max_depth: Option<u32>,
    /// Leaf values are shown (as engine text) when their text is at most this long.
    pub preview: usize,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            head: 8,
            tail: 2,
            max_depth: None,
            preview: 60,
        }
    }
}

/// The outline of `v` as a string.
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.3 KiB in release builds, 26 KiB in debug builds, when a
/// Dictionary key is itself deeply nested: its text is printed): about 1.3 MiB
/// for a 1025-deep value in release builds.
pub fn to_tree(v: &VariantRef<'_>, opts: &TreeOptions) -> Result<String> {
    let mut s = Sink::memory();
    node(v, "/", 0, opts, &mut s)?;
    Ok(s.buf)
}

/// Writes the outline of `v` to `out`. Data errors come first; a write error is reported as
/// `Ok(Err(_))`.
///
/// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
/// 1025 levels by default), each needing up to [`STACK_PER_LEVEL`](super::STACK_PER_LEVEL)
/// bytes (measured at most 1.3 KiB in release builds, 26 KiB in debug builds, when a
/// Dictionary key is itself deeply nested: its text is printed): about 1.3 MiB
/// for a 1025-deep value in release builds.
pub fn write_tree(
    v: &VariantRef<'_>,
    opts: &TreeOptions,
    out: &mut dyn std::io::Write,
) -> Result<std::io::Result<()>> {
    let mut s = Sink::writer(out);
    node(v, "/", 0, opts, &mut s)?;
    Ok(s.finish())
}

fn join(parent: &str, seg: &str) -> String {
    if parent == "/" {
        format!("/{seg}")
    } else {
        format!("{parent}/{seg}")
    }
}

/// A dictionary key as a path segment.
fn key_segment(k: &VariantRef<'_>) -> Result<String> {
    Ok(match k.ty() {
        T::String | T::StringName => k.as_text()?.to_string_lossy().into_owned(),
        T::Int => k.as_i64()?.to_string(),
        _ => format!("[{}]", short_text(k, 40)?),
    })
}

fn short_text(v: &VariantRef<'_>, max: usize) -> Result<String> {
    let t = text::to_text(v)?;
    let t = t.replace('\n', " ");
    if t.chars().count() > max {
        let cut: String = t.chars().take(max).collect();
        Ok(format!("{cut}…"))
    } else {
        Ok(t)
    }
}

fn packed_len(v: &VariantRef<'_>) -> Result<Option<usize>> {
    use crate::math::Color;
    Ok(Some(match v.ty() {
        T::PackedByteArray => v.as_byte_array()?.len(),
        T::PackedInt32Array => v.as_packed::<i32>()?.len(),
        T::PackedInt64Array => v.as_packed::<i64>()?.len(),
        T::PackedFloat32Array => v.as_packed::<f32>()?.len(),
        T::PackedFloat64Array => v.as_packed::<f64>()?.len(),
        T::PackedStringArray => v.as_string_array()?.len(),
        T::PackedVector2Array if v.is_wide() => v.as_packed::<[f64; 2]>()?.len(),
        T::PackedVector2Array => v.as_packed::<[f32; 2]>()?.len(),
        T::PackedVector3Array if v.is_wide() => v.as_packed::<[f64; 3]>()?.len(),
        T::PackedVector3Array => v.as_packed::<[f32; 3]>()?.len(),
        T::PackedVector4Array if v.is_wide() => v.as_packed::<[f64; 4]>()?.len(),
        T::PackedVector4Array => v.as_packed::<[f32; 4]>()?.len(),
        T::PackedColorArray => v.as_packed::<Color>()?.len(),
        _ => return Ok(None),
    }))
}

fn node(
    v: &VariantRef<'_>,
    path: &str,
    depth: u32,
    opts: &TreeOptions,
    s: &mut Sink<'_>,
) -> Result<()> {
    let size = v.byte_len()?;
    for _ in 0..depth {
        s.push("  ");
    }
    s.push(path);
    s.ch(' ');
    s.push(v.ty().name_in(v.dialect()));
    s.push(&format!(" @{} {} B", v.offset(), size));
    let expand = opts.max_depth.map_or(true, |m| depth < m);
    match v.ty() {
        T::Array => {
            let a = v.as_array()?;
            s.push(&format!(", {} elements", a.len()));
            let ty = a.element_type()?;
            if ty.is_typed() {
                s.push(", typed");
            }
            s.ch('\n');
            if expand {
                let n = a.len();
                let mut skipped = (0usize, 0usize, 0usize); // count, first offset, bytes
                for (i, e) in a.iter().enumerate() {
                    let e = e?;
                    if shown(n, i, opts) {
                        flush_skipped(&mut skipped, depth + 1, "elements", s);
                        node(&e, &join(path, &i.to_string()), depth + 1, opts, s)?;
                    } else {
                        if skipped.0 == 0 {
                            skipped.1 = e.offset();
                        }
                        skipped.0 += 1;
                        skipped.2 += e.byte_len()?;
                    }
                }
                flush_skipped(&mut skipped, depth + 1, "elements", s);
            }
        }
        T::Dictionary => {
            let d = v.as_dictionary()?;
            s.push(&format!(", {} entries", d.len()));
            let (kt, vt) = d.key_value_types()?;
            if kt.is_typed() || vt.is_typed() {
                s.push(", typed");
            }
            s.ch('\n');
            if expand {
                let n = d.len();
                let mut skipped = (0usize, 0usize, 0usize);
                for (i, p) in d.iter().enumerate() {
                    let (k, val) = p?;
                    if shown(n, i, opts) {
                        flush_skipped(&mut skipped, depth + 1, "entries", s);
                        node(&val, &join(path, &key_segment(&k)?), depth + 1, opts, s)?;
                    } else {
                        if skipped.0 == 0 {
                            skipped.1 = k.offset();
                        }
                        skipped.0 += 1;
                        skipped.2 += k.byte_len()? + val.byte_len()?;
                    }
                }
                flush_skipped(&mut skipped, depth + 1, "entries", s);
            }
        }
        T::Object => match v.as_object()? {
            crate::object::ObjectRef::Id(id) => s.push(&format!(", instance id {id}\n")),
            crate::object::ObjectRef::Full(f) => {
                s.push(&format!(
                    ", class {}, {} properties\n",
                    f.class_name(),
                    f.property_count()
                ));
                if expand {
                    let mut props = f.properties();
                    while let Some((name, pv)) = props.try_next()? {
                        let p = join(path, &format!("{name}"));
                        node(&pv, &p, depth + 1, opts, s)?;
                    }
                }
            }
        },
        _ => {
            if let Some(n) = packed_len(v)? {
                s.push(&format!(", {n} elements"));
            }
            if size <= opts.preview.saturating_mul(4).saturating_add(64) {
                let t = text::to_text(v)?;
                if t.chars().count() <= opts.preview && !t.contains('\n') {
                    s.push(" = ");
                    s.push(&t);
                } else if opts.preview > 0 {
                    s.push(" = ");
                    s.push(&short_text(v, opts.preview)?);
                }
            }
            s.ch('\n');
        }
    }
    Ok(())
}

/// Whether child `i` of `n` is shown (the first `head`, the last `tail`, or all when only one
/// would be left out). Saturating: any `usize` options are valid.
fn shown(n: usize, i: usize, opts: &TreeOptions) -> bool {
    n <= opts.head.saturating_add(opts.tail).saturating_add(1)
        || i < opts.head
        || i >= n.saturating_sub(opts.tail)
}

fn flush_skipped(sk: &mut (usize, usize, usize), depth: u32, what: &str, s: &mut Sink<'_>) {
    if sk.0 == 0 {
        return;
    }
    for _ in 0..depth {
        s.push("  ");
    }
    s.push(&format!(
        "… {} more {what} @{}..@{} ({} B)\n",
        sk.0,
        sk.1,
        sk.1 + sk.2,
        sk.2
    ));
    *sk = (0, 0, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_options_are_valid() {
        let bytes = crate::encode(&crate::Variant::Array(crate::owned::Array::new(vec![
            crate::Variant::Int(1),
            crate::Variant::from("x"),
        ])))
        .unwrap();
        let v = crate::parse(&bytes).unwrap();
        for n in [usize::MAX, usize::MAX / 2, usize::MAX / 4 + 1] {
            let opts = TreeOptions {
                head: n,
                tail: n,
                max_depth: Some(u32::MAX),
                preview: n,
            };
            let t = to_tree(&v, &opts).unwrap();
            assert!(t.contains("/1 String") && t.contains(" = \"x\""), "{t}");
        }
    }
}
