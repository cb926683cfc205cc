//! Statistics of a value in one lazy pass: counts and bytes per type, maximum depth, and the
//! largest sub-trees (containers) with their paths. No owned tree is built; memory is bounded
//! by the nesting depth and the number of sub-trees kept.
//!
//! ```
//! # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/game_state.bin")).unwrap();
//! let v = gdvariant::parse(&bytes).unwrap();
//! let mut st = gdvariant::cli::stats::Stats::new(3);
//! st.add(&v, "").unwrap();
//! assert_eq!(st.total_bytes(), bytes.len() as u64);
//! assert_eq!(st.max_depth(), 3);
//! assert_eq!(st.largest()[0].path, "/");
//! ```

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::string::{String, ToString};
use std::vec::Vec;

use crate::error::Result;
use crate::types::{Dialect, VariantType as T, VariantType};
use crate::value::VariantRef;

/// Count and bytes of one type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypeStats {
    /// How many values of the type (dictionary keys included).
    pub count: u64,
    /// Their bytes, excluding the values nested in them (so the column adds up to the total).
    pub bytes: u64,
}

/// A large sub-tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubTree {
    /// Its path (`/entities/3`), as `gdvariant get` takes it.
    pub path: String,
    /// Its type.
    pub ty: VariantType,
    /// Its byte offset.
    pub offset: u64,
    /// Its encoded size in bytes.
    pub bytes: u64,
    /// Its element / entry / property count.
    pub len: u64,
}

/// Accumulated statistics; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct Stats {
    per_type: BTreeMap<VariantType, TypeStats>,
    total: u64,
    values: u64,
    max_depth: u32,
    keep: usize,
    largest: Vec<SubTree>,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Index(usize),
    Key(VariantRef<'a>),
    Prop(VariantRef<'a>, usize),
}

impl Stats {
    /// Empty statistics that keep the `keep` largest sub-trees.
    pub fn new(keep: usize) -> Stats {
        Stats {
            per_type: BTreeMap::new(),
            total: 0,
            values: 0,
            max_depth: 0,
            keep,
            largest: Vec::new(),
        }
    }

    /// Adds a whole value; `prefix` is prepended to its paths (`""` for a single value).
    ///
    /// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
    /// 1025 levels by default, 16385 at most), each needing up to
    /// [`STATS_STACK_PER_LEVEL`](super::STATS_STACK_PER_LEVEL) bytes (measured 0.8 KiB in
    /// release builds, 5.5 KiB in debug builds).
    pub fn add(&mut self, v: &VariantRef<'_>, prefix: &str) -> Result<()> {
        self.add_at(v, prefix, 0)
    }

    /// Adds a value read from a buffer that starts at absolute offset `base` (a frame of a
    /// stream), naming its root `prefix`.
    ///
    /// Stack: recurses once per nesting level of `v` (at most its read options' `max_depth + 1`:
    /// 1025 levels by default, 16385 at most), each needing up to
    /// [`STATS_STACK_PER_LEVEL`](super::STATS_STACK_PER_LEVEL) bytes (measured 0.8 KiB in
    /// release builds, 5.5 KiB in debug builds).
    pub fn add_at(&mut self, v: &VariantRef<'_>, prefix: &str, base: usize) -> Result<()> {
        let mut path = Vec::new();
        let size = v.byte_len()? as u64;
        self.total += size;
        self.walk(v, size, 0, &mut path, prefix, base as u64)?;
        Ok(())
    }

    /// Total bytes added.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Total number of values (dictionary keys included).
    pub fn value_count(&self) -> u64 {
        self.values
    }

    /// The deepest nesting seen (the top-level value is depth 0).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Counts and bytes per type.
    pub fn per_type(&self) -> &BTreeMap<VariantType, TypeStats> {
        &self.per_type
    }

    /// The largest sub-trees, largest first.
    pub fn largest(&self) -> &[SubTree] {
        &self.largest
    }

    fn walk<'a>(
        &mut self,
        v: &VariantRef<'a>,
        size: u64,
        depth: u32,
        path: &mut Vec<Seg<'a>>,
        prefix: &str,
        base: u64,
    ) -> Result<()> {
        self.values += 1;
        self.max_depth = self.max_depth.max(depth);
        let mut children = 0u64;
        let mut len = 0u64;
        match v.ty() {
            T::Array => {
                let a = v.as_array()?;
                for (i, e) in a.iter().enumerate() {
                    let e = e?;
                    let n = e.byte_len()? as u64;
                    children += n;
                    path.push(Seg::Index(i));
                    self.walk(&e, n, depth + 1, path, prefix, base)?;
                    path.pop();
                }
                len = a.len() as u64;
            }
            T::Dictionary => {
                let d = v.as_dictionary()?;
                for p in d.iter() {
                    let (k, val) = p?;
                    let (nk, nv) = (k.byte_len()? as u64, val.byte_len()? as u64);
                    children += nk + nv;
                    self.walk(&k, nk, depth + 1, path, prefix, base)?;
                    path.push(Seg::Key(k));
                    self.walk(&val, nv, depth + 1, path, prefix, base)?;
                    path.pop();
                }
                len = d.len() as u64;
            }
            T::Object => {
                if let crate::object::ObjectRef::Full(f) = v.as_object()? {
                    let mut props = f.properties();
                    let mut i = 0;
                    while let Some((_, pv)) = props.try_next()? {
                        let n = pv.byte_len()? as u64;
                        children += n;
                        path.push(Seg::Prop(*v, i));
                        self.walk(&pv, n, depth + 1, path, prefix, base)?;
                        path.pop();
                        i += 1;
                    }
                    len = f.property_count() as u64;
                }
            }
            _ => {}
        }
        let e = self.per_type.entry(v.ty()).or_default();
        e.count += 1;
        e.bytes += size - children.min(size);
        if v.ty().is_container() && self.keep > 0 {
            let full = self.largest.len() >= self.keep;
            if !full || self.largest.last().is_some_and(|l| l.bytes < size) {
                let p = render(path, prefix)?;
                let t = SubTree {
                    path: p,
                    ty: v.ty(),
                    offset: base + v.offset() as u64,
                    bytes: size,
                    len,
                };
                let at = self.largest.partition_point(|x| x.bytes >= size);
                self.largest.insert(at, t);
                self.largest.truncate(self.keep);
            }
        }
        Ok(())
    }

    /// Writes the report: totals, a table per type (largest first), the largest sub-trees.
    pub fn write_report(&self, dialect: Dialect, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "dialect: {dialect}")?;
        writeln!(
            out,
            "total: {} bytes, {} values, max depth {}",
            self.total, self.values, self.max_depth
        )?;
        writeln!(out)?;
        writeln!(
            out,
            "{:<20} {:>12} {:>14} {:>7}",
            "type", "count", "bytes", "share"
        )?;
        let mut rows: Vec<_> = self.per_type.iter().collect();
        rows.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(a.0.cmp(b.0)));
        for (t, s) in rows {
            let share = if self.total > 0 {
                100.0 * s.bytes as f64 / self.total as f64
            } else {
                0.0
            };
            writeln!(
                out,
                "{:<20} {:>12} {:>14} {:>6.1}%",
                t.name_in(dialect),
                s.count,
                s.bytes,
                share
            )?;
        }
        if !self.largest.is_empty() {
            writeln!(out)?;
            writeln!(out, "largest sub-trees:")?;
            for t in &self.largest {
                writeln!(
                    out,
                    "{:>14} B  @{:<12} {:<12} {:>10} items  {}",
                    t.bytes,
                    t.offset,
                    t.ty.name_in(dialect),
                    t.len,
                    t.path
                )?;
            }
        }
        Ok(())
    }
}

fn render(path: &[Seg<'_>], prefix: &str) -> Result<String> {
    let mut s = String::from(prefix);
    if path.is_empty() {
        if s.is_empty() {
            s.push('/');
        }
        return Ok(s);
    }
    for seg in path {
        s.push('/');
        match seg {
            Seg::Index(i) => s.push_str(&i.to_string()),
            Seg::Key(k) => match k.ty() {
                T::String | T::StringName => s.push_str(&k.as_text()?.to_string_lossy()),
                T::Int => s.push_str(&k.as_i64()?.to_string()),
                _ => {
                    s.push('[');
                    s.push_str(k.ty().name());
                    s.push(']');
                }
            },
            Seg::Prop(obj, i) => {
                if let crate::object::ObjectRef::Full(f) = obj.as_object()? {
                    let mut props = f.properties();
                    let mut n = 0;
                    while let Some((name, _)) = props.try_next()? {
                        if n == *i {
                            s.push_str(&name.to_string_lossy());
                            break;
                        }
                        n += 1;
                    }
                }
            }
        }
    }
    Ok(s)
}
