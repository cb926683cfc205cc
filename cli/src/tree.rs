//! An indented outline of a value: one line per node with its path, type, byte offset and size,
//! long containers summarised.
//!
//! ```text
//! / Dictionary @0 1432 B, 2 entries
//!   /tick int @20 8 B = 123456
//!   /entities Array @44 1388 B, 8 elements
//!     /entities/0 Dictionary @52 176 B, 6 entries
//!     ...
//!     … 4 more elements @400..@1200 (800 B)
//! ```
//!
//! Paths use the syntax of `gdvariant get`: dictionary keys and array indices joined by `/`.
//! Keys that are not Strings or ints are shown as `[text]`; segments and paths are shortened
//! (see [`path`](crate::path)). Two passes of the [`Walker`], without native recursion: the
//! first measures the containers that get a line (a line shows the size before the children),
//! the second prints. Memory: 8 bytes per container line, and one path segment per level.

use std::fmt::Write;

use gdvariant::{Event, ObjectRef, VariantRef, VariantType as T, Walker};

use crate::path::{push_short, render, Seg, SEG_CHARS};

/// How much of a value [`tree`] shows.
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
    /// Added to every offset shown (a frame's offset in its stream).
    pub base: usize,
    /// The root's path (`""` shows `/`; a frame of a stream: `#3`).
    pub root: String,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            head: 8,
            tail: 2,
            max_depth: None,
            preview: 60,
            base: 0,
            root: String::new(),
        }
    }
}

/// What stopped the outline.
pub enum Stop {
    Data(gdvariant::Error),
    Write,
}

impl From<gdvariant::Error> for Stop {
    fn from(e: gdvariant::Error) -> Stop {
        Stop::Data(e)
    }
}

impl From<std::fmt::Error> for Stop {
    fn from(_: std::fmt::Error) -> Stop {
        Stop::Write
    }
}

/// Writes the outline of `v` to `out`. Data errors come before any output.
pub fn tree<W: Write>(v: &VariantRef<'_>, opts: &TreeOptions, out: &mut W) -> Result<(), Stop> {
    let mut sizes = Vec::new();
    walk(v, opts, &mut sizes, None::<&mut String>)?;
    walk(v, opts, &mut sizes, Some(out))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Dict,
    Object,
}

/// An expanded container.
struct Frame {
    kind: Kind,
    n: usize,
    i: usize,
    /// A Dictionary's next element is a key.
    key: bool,
    /// Whether the current Dictionary entry is shown.
    shown: bool,
    /// The children left out so far (count, offset of the first).
    skipped: (usize, usize),
    /// Its slot in the sizes (the measuring pass fills it at the end).
    slot: usize,
    start: usize,
}

/// One pass: measuring (`out` is `None`: fills `sizes`) or printing (reads them).
fn walk<'a, W: Write>(
    v: &VariantRef<'a>,
    opts: &TreeOptions,
    sizes: &mut Vec<u64>,
    mut out: Option<&mut W>,
) -> Result<(), Stop> {
    let measuring = out.is_none();
    let mut next_size = 0usize;
    let mut frames: Vec<Frame> = Vec::new();
    // The path to the current node's parent (the root has none).
    let mut segs: Vec<Seg<'a>> = Vec::new();
    // The segment of the node about to come.
    let mut pending: Option<Seg<'a>> = None;
    let mut w = Walker::from_value(*v);
    let root_depth = v.depth();
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Property(name) => {
                pending = Some(Seg::Text(name));
                continue;
            }
            Event::End => {
                if let Some(f) = frames.pop() {
                    let end = w.offset();
                    if let Some(o) = out.as_deref_mut() {
                        flush(&f, end, frames.len() + 1, opts, o)?;
                    }
                    if measuring {
                        if let Some(s) = sizes.get_mut(f.slot) {
                            *s = (end - f.start) as u64;
                        }
                    }
                    if !frames.is_empty() {
                        segs.pop();
                    }
                }
                continue;
            }
            Event::Begin(x) | Event::Value(x) => x,
        };
        let depth = frames.len();
        let container = matches!(e, Event::Begin(_));
        // Decide whether the node is shown, and its segment.
        let seg = match frames.last_mut() {
            None => None,
            Some(f) => match f.kind {
                Kind::Array => {
                    let i = f.i;
                    f.i += 1;
                    if !shown(f.n, i, opts) {
                        skip(f, &x);
                        if container {
                            w.skip_container()?;
                        }
                        continue;
                    }
                    if let Some(o) = out.as_deref_mut() {
                        flush(f, x.offset(), depth, opts, o)?;
                    }
                    f.skipped = (0, 0);
                    Some(Seg::Index(i))
                }
                Kind::Dict if f.key => {
                    f.key = false;
                    f.shown = shown(f.n, f.i, opts);
                    if f.shown {
                        if let Some(o) = out.as_deref_mut() {
                            flush(f, x.offset(), depth, opts, o)?;
                        }
                        f.skipped = (0, 0);
                        pending = Some(if measuring {
                            Seg::Index(0)
                        } else {
                            Seg::key(&x, |k| {
                                let mut s = String::from("[");
                                push_short(&mut s, &short_text(k), SEG_CHARS);
                                s.push(']');
                                s
                            })?
                        });
                    } else {
                        skip(f, &x);
                    }
                    if container {
                        w.skip_container()?;
                    }
                    continue;
                }
                Kind::Dict => {
                    f.key = true;
                    f.i += 1;
                    if !f.shown {
                        if container {
                            w.skip_container()?;
                        }
                        continue;
                    }
                    pending.take()
                }
                Kind::Object => pending.take(),
            },
        };
        let expand = container && opts.max_depth.map_or(true, |m| (depth as u32) < m);
        // The size: known for a leaf; measured for an expanded container; walked now for one
        // that is not expanded (its line comes after).
        let size = if !container {
            x.raw()?.len() as u64
        } else if !expand {
            w.skip_container()?;
            (w.offset() - x.offset()) as u64
        } else if measuring {
            sizes.push(0);
            0
        } else {
            next_size += 1;
            sizes.get(next_size - 1).copied().unwrap_or(0)
        };
        if let Some(o) = out.as_deref_mut() {
            line(&x, depth, &segs, seg.as_ref(), size, opts, o)?;
        }
        if expand {
            let (kind, n) = match x.ty() {
                T::Array => (Kind::Array, x.count()),
                T::Dictionary => (Kind::Dict, x.count()),
                _ => (Kind::Object, x.count()),
            };
            if let Some(s) = seg {
                segs.push(s);
            }
            frames.push(Frame {
                kind,
                n,
                i: 0,
                key: true,
                shown: false,
                skipped: (0, 0),
                slot: sizes.len().saturating_sub(1),
                start: x.offset(),
            });
        }
    }
    let _ = root_depth;
    Ok(())
}

/// Counts a child left out.
fn skip(f: &mut Frame, x: &VariantRef<'_>) {
    if f.skipped.0 == 0 {
        f.skipped.1 = x.offset();
    }
    f.skipped.0 += 1;
}

/// Whether child `i` of `n` is shown (the first `head`, the last `tail`, or all when only one
/// would be left out). Saturating: any `usize` options are valid.
fn shown(n: usize, i: usize, opts: &TreeOptions) -> bool {
    n <= opts.head.saturating_add(opts.tail).saturating_add(1)
        || i < opts.head
        || i >= n.saturating_sub(opts.tail)
}

/// The summary line of the children left out before `to`.
fn flush<W: Write>(
    f: &Frame,
    to: usize,
    depth: usize,
    opts: &TreeOptions,
    out: &mut W,
) -> Result<(), Stop> {
    let (count, from) = f.skipped;
    if count == 0 || f.kind == Kind::Object {
        return Ok(());
    }
    indent(depth, out)?;
    let what = if f.kind == Kind::Array {
        "elements"
    } else {
        "entries"
    };
    writeln!(
        out,
        "… {count} more {what} @{}..@{} ({} B)",
        opts.base + from,
        opts.base + to,
        to - from
    )?;
    Ok(())
}

fn indent<W: Write>(depth: usize, out: &mut W) -> Result<(), Stop> {
    for _ in 0..depth {
        out.write_str("  ")?;
    }
    Ok(())
}

/// A value's engine text on one line, at most `SEG_CHARS` characters.
fn short_text(v: &VariantRef<'_>) -> String {
    let mut t = Limited {
        s: String::new(),
        left: SEG_CHARS * 4 + 4,
    };
    let _ = gdvariant::text::to_fmt(v, &mut t);
    let mut s = String::new();
    push_short(&mut s, &t.s.replace('\n', " "), SEG_CHARS);
    s
}

/// A `fmt::Write` that stops after a number of bytes.
struct Limited {
    s: String,
    left: usize,
}

impl Write for Limited {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if s.len() > self.left {
            let mut cut = self.left;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.s.push_str(&s[..cut]);
            self.left = 0;
            return Err(std::fmt::Error);
        }
        self.s.push_str(s);
        self.left -= s.len();
        Ok(())
    }
}

fn packed_len(v: &VariantRef<'_>) -> gdvariant::Result<Option<usize>> {
    use gdvariant::Color;
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

/// One node's line.
fn line<W: Write>(
    v: &VariantRef<'_>,
    depth: usize,
    segs: &[Seg<'_>],
    seg: Option<&Seg<'_>>,
    size: u64,
    opts: &TreeOptions,
    out: &mut W,
) -> Result<(), Stop> {
    indent(depth, out)?;
    let path = render(&opts.root, segs, seg);
    write!(
        out,
        "{path} {} @{} {size} B",
        v.ty().name_in(v.dialect()),
        opts.base + v.offset()
    )?;
    match v.ty() {
        T::Array => {
            write!(out, ", {} elements", v.count())?;
            if v.as_array()?.element_type()?.is_typed() {
                out.write_str(", typed")?;
            }
        }
        T::Dictionary => {
            write!(out, ", {} entries", v.count())?;
            let (kt, vt) = v.as_dictionary()?.key_value_types()?;
            if kt.is_typed() || vt.is_typed() {
                out.write_str(", typed")?;
            }
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(id) => write!(out, ", instance id {id}")?,
            ObjectRef::Full(f) => write!(
                out,
                ", class {}, {} properties",
                f.class_name(),
                f.property_count()
            )?,
        },
        T::Signal => {
            let s = v.as_signal()?;
            let mut name = String::new();
            push_short(&mut name, &s.name.to_string_lossy(), SEG_CHARS);
            write!(out, ", name \"{name}\", object id {}", s.object_id)?;
        }
        _ => {
            if let Some(n) = packed_len(v)? {
                write!(out, ", {n} elements")?;
            }
            if size <= opts.preview.saturating_mul(4).saturating_add(64) as u64 {
                let t = gdvariant::text::to_string(v)?;
                if t.chars().count() <= opts.preview && !t.contains('\n') {
                    write!(out, " = {t}")?;
                } else if opts.preview > 0 {
                    let mut s = String::new();
                    push_short(&mut s, &t.replace('\n', " "), opts.preview);
                    write!(out, " = {s}")?;
                }
            }
        }
    }
    out.write_char('\n')?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(v: &VariantRef<'_>, opts: &TreeOptions) -> String {
        let mut s = String::new();
        if tree(v, opts, &mut s).is_err() {
            panic!("tree failed");
        }
        s
    }

    #[test]
    fn any_options_are_valid() {
        // [1, "x"]
        let bytes = [
            28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'x', 0, 0, 0,
        ];
        let v = gdvariant::parse(&bytes).unwrap();
        for n in [usize::MAX, usize::MAX / 2, usize::MAX / 4 + 1] {
            let opts = TreeOptions {
                head: n,
                tail: n,
                max_depth: Some(u32::MAX),
                preview: n,
                ..TreeOptions::default()
            };
            let t = outline(&v, &opts);
            assert!(t.contains("/1 String") && t.contains(" = \"x\""), "{t}");
        }
        let opts = TreeOptions {
            max_depth: Some(0),
            ..TreeOptions::default()
        };
        assert_eq!(outline(&v, &opts), "/ Array @0 28 B, 2 elements\n");
    }
}
