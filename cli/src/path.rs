//! Paths shown by `tree` and `stats`: one segment per level, kept borrowed from the input (or
//! as a short string), and rendered truncated, so that neither deep nesting nor long keys make
//! a path (or the memory behind it) large.

use std::fmt::Write;

use gdvariant::{Text, VariantRef, VariantType};

/// The most characters of one segment shown.
pub const SEG_CHARS: usize = 40;
/// Paths with more segments show the first [`HEAD_SEGS`] and the last [`TAIL_SEGS`].
pub const MAX_SEGS: usize = 8;
const HEAD_SEGS: usize = 2;
const TAIL_SEGS: usize = 5;

/// One step of a path.
#[derive(Clone, Debug)]
pub enum Seg<'a> {
    /// An array index.
    Index(usize),
    /// A String or StringName key, or a property name.
    Text(Text<'a>),
    /// An int key.
    Int(i64),
    /// Any other key, as a short text (`[Vector2(1, 2)]`).
    Other(String),
}

impl<'a> Seg<'a> {
    /// The segment of dictionary key `k`; `other` renders keys that are neither text nor int.
    pub fn key(
        k: &VariantRef<'a>,
        other: impl FnOnce(&VariantRef<'a>) -> String,
    ) -> gdvariant::Result<Seg<'a>> {
        Ok(match k.ty() {
            VariantType::String | VariantType::StringName => Seg::Text(k.as_text()?),
            VariantType::Int => Seg::Int(k.as_i64()?),
            _ => Seg::Other(other(k)),
        })
    }

    fn write(&self, out: &mut String) {
        match self {
            Seg::Index(i) => {
                let _ = write!(out, "{i}");
            }
            Seg::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Seg::Text(t) => push_short(out, &t.to_string_lossy(), SEG_CHARS),
            Seg::Other(s) => out.push_str(s),
        }
    }
}

/// Appends at most `max` characters of `s`, then `…` if it was longer.
pub fn push_short(out: &mut String, s: &str, max: usize) {
    match s.char_indices().nth(max) {
        None => out.push_str(s),
        Some((cut, _)) => {
            out.push_str(&s[..cut]);
            out.push('…');
        }
    }
}

/// Renders `prefix` followed by the segments `segs` and `last`: `/a/b/c`, or
/// `/a/b/…/x/y/z/v/w` when there are more than [`MAX_SEGS`] (only those shown are read, so
/// this costs the same at any depth). An empty path with no prefix is `/`.
pub fn render(prefix: &str, segs: &[Seg<'_>], last: Option<&Seg<'_>>) -> String {
    let mut out = String::from(prefix);
    let n = segs.len() + usize::from(last.is_some());
    if n == 0 && out.is_empty() {
        out.push('/');
    }
    let seg = |i: usize| segs.get(i).or(last);
    let shown = if n > MAX_SEGS {
        (0..HEAD_SEGS).chain(n - TAIL_SEGS..n)
    } else {
        (0..n).chain(0..0)
    };
    for i in shown {
        if n > MAX_SEGS && i == n - TAIL_SEGS {
            out.push_str("/…");
        }
        if let Some(s) = seg(i) {
            out.push('/');
            s.write(&mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_paths_and_segments_are_truncated() {
        let segs: Vec<super::Seg<'_>> = (0..1000).map(super::Seg::Index).collect();
        assert_eq!(super::render("", &segs, None), "/0/1/…/995/996/997/998/999");
        assert_eq!(
            super::render("", &segs[..9], Some(&super::Seg::Int(-1))),
            "/0/1/…/5/6/7/8/-1"
        );
        assert_eq!(super::render("#3", &segs[..2], None), "#3/0/1");
        assert_eq!(super::render("", &segs[..8], None), "/0/1/2/3/4/5/6/7");
        assert_eq!(super::render("", &[], None), "/");
        let mut s = String::new();
        super::push_short(&mut s, &"k".repeat(1000), super::SEG_CHARS);
        assert_eq!(s, format!("{}…", "k".repeat(40)));
    }
}
