//! Statistics of a value in one pass of the [`Walker`]: counts and bytes per type, maximum
//! depth, and the largest sub-trees (containers) with their paths. No owned tree is built and
//! nothing is read twice; memory is one small record per open container (a path segment
//! borrowed from the input) and the sub-trees kept, whose paths are shortened.
use std::collections::BTreeMap;
use std::io::{self, Write};

use gdvariant::{Dialect, Event, Result, VariantRef, VariantType, VariantType as T, Walker};

use crate::path::{render, Seg};

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

    /// Adds the value `v`, read from a buffer that starts at absolute offset `base` (a frame
    /// of a stream), naming its root `prefix` (`""` for a single value: `/`). `progress` is
    /// called now and then with the absolute offset reached.
    pub fn add_at(
        &mut self,
        v: &VariantRef<'_>,
        prefix: &str,
        base: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<()> {
        /// An open container.
        struct Open<'a> {
            ty: VariantType,
            start: usize,
            count: u64,
            children: u64,
            /// Whether it has a segment in `segs` (not the root, nor a Dictionary key, which
            /// has no path of its own).
            has_seg: bool,
            /// A Dictionary's next element is a key.
            key: bool,
            /// The next child's index, or its key / property name.
            next: usize,
            pending: Option<Seg<'a>>,
        }
        let mut open: Vec<Open<'_>> = Vec::new();
        // The segments of the open containers that have one.
        let mut segs: Vec<Seg<'_>> = Vec::new();
        let mut w = Walker::from_value(*v);
        let mut events = 0u32;
        while let Some(e) = w.next_event()? {
            events = events.wrapping_add(1);
            if events % (1 << 16) == 0 {
                progress(base + w.offset());
            }
            let x = match e {
                Event::Property(name) => {
                    if let Some(o) = open.last_mut() {
                        o.pending = Some(Seg::Text(name));
                    }
                    continue;
                }
                Event::End => {
                    if let Some(o) = open.pop() {
                        let size = (w.offset() - o.start) as u64;
                        let own = size - o.children.min(size);
                        self.count(o.ty, own);
                        if let Some(p) = open.last_mut() {
                            p.children += size;
                        }
                        self.offer(o.ty, size, o.count, base + o.start, || {
                            render(prefix, &segs, None)
                        });
                        if o.has_seg {
                            segs.pop();
                        }
                    }
                    continue;
                }
                Event::Begin(x) | Event::Value(x) => x,
            };
            self.values += 1;
            self.max_depth = self.max_depth.max(x.depth() - v.depth());
            // This element's segment.
            let seg = match open.last_mut() {
                None => None,
                Some(o) => match o.ty {
                    T::Array => {
                        o.next += 1;
                        Some(Seg::Index(o.next - 1))
                    }
                    T::Dictionary if o.key => {
                        o.key = false;
                        o.pending = Some(Seg::key(&x, |k| format!("[{}]", k.ty().name()))?);
                        None
                    }
                    T::Dictionary => {
                        o.key = true;
                        o.pending.take()
                    }
                    _ => o.pending.take(),
                },
            };
            match e {
                Event::Begin(c) => {
                    let has_seg = seg.is_some();
                    segs.extend(seg);
                    open.push(Open {
                        ty: c.ty(),
                        start: c.offset(),
                        count: c.count() as u64,
                        children: 0,
                        has_seg,
                        key: true,
                        next: 0,
                        pending: None,
                    })
                }
                _ => {
                    let size = x.raw()?.len() as u64;
                    self.count(x.ty(), size);
                    if let Some(p) = open.last_mut() {
                        p.children += size;
                    }
                    if x.ty().is_container() {
                        self.offer(x.ty(), size, 0, base + x.offset(), || {
                            render(prefix, &segs, seg.as_ref())
                        });
                    }
                }
            }
        }
        self.total += (w.offset() - v.offset()) as u64;
        Ok(())
    }

    fn count(&mut self, ty: VariantType, own: u64) {
        let e = self.per_type.entry(ty).or_default();
        e.count += 1;
        e.bytes += own;
    }

    /// Keeps a sub-tree if it is among the largest (its path is rendered only then).
    fn offer(
        &mut self,
        ty: VariantType,
        size: u64,
        len: u64,
        offset: usize,
        path: impl FnOnce() -> String,
    ) {
        if self.keep == 0 {
            return;
        }
        let full = self.largest.len() >= self.keep;
        if full && self.largest.last().is_some_and(|l| l.bytes >= size) {
            return;
        }
        let t = SubTree {
            path: path(),
            ty,
            offset: offset as u64,
            bytes: size,
            len,
        };
        let at = self.largest.partition_point(|x| x.bytes >= size);
        self.largest.insert(at, t);
        self.largest.truncate(self.keep);
    }

    /// Total bytes added.
    #[cfg(test)]
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Total number of values (dictionary keys included).
    #[cfg(test)]
    pub fn value_count(&self) -> u64 {
        self.values
    }

    /// The deepest nesting seen (the top-level value is depth 0).
    #[cfg(test)]
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Counts and bytes per type.
    #[cfg(test)]
    pub fn per_type(&self) -> &BTreeMap<VariantType, TypeStats> {
        &self.per_type
    }

    /// The largest sub-trees, largest first.
    #[cfg(test)]
    pub fn largest(&self) -> &[SubTree] {
        &self.largest
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

#[cfg(test)]
mod tests {
    use super::*;
    use gdvariant::{encode, Variant};

    #[test]
    fn counts_bytes_depth_and_largest_subtrees() {
        // {"a": [1, 2], "b": "xy"}
        let arr: gdvariant::Array = [Variant::Int(1), Variant::Int(2)].into_iter().collect();
        let dict: gdvariant::Dictionary = [
            (Variant::from("a"), Variant::from(arr)),
            (Variant::from("b"), Variant::from("xy")),
        ]
        .into_iter()
        .collect();
        let v = Variant::from(dict);
        let bytes = encode(&v).unwrap();
        let mut st = Stats::new(1);
        st.add_at(&gdvariant::parse(&bytes).unwrap(), "", 0, &mut |_| {})
            .unwrap();
        assert_eq!(st.total_bytes(), bytes.len() as u64);
        // The dictionary, two keys, the array, two ints, one string value.
        assert_eq!(st.value_count(), 7);
        assert_eq!(st.max_depth(), 2);
        let per = st.per_type();
        assert_eq!(per[&T::Int].count, 2);
        assert_eq!(per[&T::Int].bytes, 16);
        assert_eq!(per[&T::String].count, 3);
        // Array header 8 bytes (its elements counted under Int).
        assert_eq!(per[&T::Array].bytes, 8);
        let sum: u64 = per.values().map(|t| t.bytes).sum();
        assert_eq!(sum, bytes.len() as u64, "the bytes column adds up");
        // The largest sub-tree kept is the whole value.
        assert_eq!(st.largest().len(), 1);
        assert_eq!(st.largest()[0].path, "/");
        assert_eq!(st.largest()[0].bytes, bytes.len() as u64);
        assert_eq!(st.largest()[0].len, 2);
    }
}
