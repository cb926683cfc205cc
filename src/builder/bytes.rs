//! [`Bytes`]: the [`Sink`] that writes the encoded bytes straight away, without a tree (repeated
//! keys and late type info recorded as reorderings of byte ranges), and [`exactly_one`].

use std::string::String;
use std::vec::Vec;

use super::sink::{fail, Kind, Open, Sink, R};
use super::tree::Tree;
use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::error::{ParseError, Syntax};
use crate::owned::{Dictionary, TypeInfo, Variant};
use crate::types::Dialect;

/// One entry of a Dictionary that merges keys, as byte ranges of the output being built.
#[derive(Clone, Copy)]
struct Entry {
    key: (usize, usize),
    value: (usize, usize),
}

/// A Dictionary that merges keys, being written.
struct Merge {
    /// Where its entries start in [`Bytes::entries`].
    from: usize,
    /// Whose key identity decides which keys are the same key.
    rule: Dialect,
    /// Its keys so far, in entry order (the values unused): finds a repeated key.
    keys: Dictionary,
    /// Whether a key repeated: the dictionary is then written reordered.
    repeated: bool,
    /// Whether repeated keys are kept as given ([`Sink::keep_all`]).
    keep: bool,
    /// The pairs read (repeated keys included).
    pairs: usize,
    /// The entry whose value is being read (an existing one for a repeated key).
    target: usize,
    /// Where the value being read starts.
    value_at: usize,
}

struct OpenB {
    kind: Kind,
    /// Where the header word sits in `buf`.
    header_at: usize,
    /// Where the count word sits in `buf`.
    count_at: usize,
    /// Elements, entries or properties written.
    count: usize,
    /// Whether a Dictionary's next value is a key.
    key_next: bool,
    merge: Option<Merge>,
    /// Where its elements start in `buf`.
    content: usize,
}

/// A change to the plain byte order of `buf` when the output is produced.
#[derive(Clone, Copy)]
enum Fixup {
    /// The dictionary content `buf[start..end]` is written as `pieces[from..to]`, in order.
    Reorder {
        start: usize,
        end: usize,
        from: usize,
        to: usize,
    },
    /// `inserts[from..to]` is written before `buf[at]`.
    Insert { at: usize, from: usize, to: usize },
}

impl Fixup {
    fn pos(&self) -> usize {
        match *self {
            Fixup::Reorder { start, .. } => start,
            Fixup::Insert { at, .. } => at,
        }
    }
}

/// Writes the encoding of the values read, without building a tree; see the
/// [module docs](self).
pub(crate) struct Bytes {
    opts: EncodeOptions,
    ids: IdCache,
    buf: Vec<u8>,
    open: Vec<OpenB>,
    entries: Vec<Entry>,
    fixups: Vec<Fixup>,
    pieces: Vec<(usize, usize)>,
    inserts: Vec<u8>,
    /// A Dictionary key that is a container, being built as a tree, and its depth.
    key: Option<(Tree, usize)>,
    /// Whether a top-level value is complete in `buf`.
    complete: bool,
}

impl Bytes {
    pub(crate) fn new(opts: EncodeOptions) -> Bytes {
        Bytes {
            opts,
            ids: IdCache::new(),
            buf: Vec::new(),
            open: Vec::new(),
            entries: Vec::new(),
            fixups: Vec::new(),
            pieces: Vec::new(),
            inserts: Vec::new(),
            key: None,
            complete: false,
        }
    }

    fn enc(&mut self) -> Enc<'_> {
        Enc {
            out: &mut self.buf,
            base: 0,
            opts: &self.opts,
            ids: &mut self.ids,
            depth: 0,
        }
    }

    /// Writes a whole value (a leaf, or a key built as a tree).
    fn write(&mut self, v: &Variant, depth: usize, at: usize) -> R {
        let start = self.buf.len();
        let res = self.enc().tree(v, depth);
        if let Err(e) = res {
            self.buf.truncate(start);
            return fail(at, format!("cannot encode: {}", e.kind()));
        }
        Ok(())
    }

    /// A value (written from `start` to the end of `buf`) is complete in its container.
    fn completed(&mut self, start: usize) {
        let Some(top) = self.open.last_mut() else {
            self.complete = true;
            return;
        };
        match top.kind {
            Kind::Array | Kind::Object => top.count += 1,
            Kind::Dict => {
                let is_key = top.key_next;
                top.key_next = !is_key;
                let end = self.buf.len();
                match &mut top.merge {
                    None => {
                        if !is_key {
                            top.count += 1;
                        }
                    }
                    Some(m) => {
                        if is_key {
                            // Handled by `key`.
                        } else {
                            let e = &mut self.entries[m.target];
                            e.value = (m.value_at, end);
                        }
                    }
                }
                let _ = start;
            }
        }
    }

    /// A key of a merging Dictionary: written, then matched against the keys so far.
    fn key(&mut self, k: Variant, depth: usize, at: usize) -> R {
        let start = self.buf.len();
        self.write(&k, depth, at)?;
        let end = self.buf.len();
        let Some(top) = self.open.last_mut() else {
            return Ok(());
        };
        top.key_next = false;
        let Some(m) = &mut top.merge else {
            return Ok(());
        };
        m.pairs += 1;
        let (pos, repeated) = m.keys.find_or_push(m.rule, k);
        if repeated {
            m.repeated = true;
        } else {
            self.entries.push(Entry {
                key: (start, end),
                value: (end, end),
            });
            top.count += 1;
        }
        m.target = m.from + pos;
        m.value_at = end;
        Ok(())
    }

    /// Whether the innermost container is a merging Dictionary waiting for a key.
    fn merging_key(&self) -> bool {
        self.open
            .last()
            .is_some_and(|o| o.kind == Kind::Dict && o.key_next && o.merge.is_some())
    }

    /// Hands the bytes of the complete top-level value to `f` (following the reorderings and
    /// insertions recorded; without any, the buffer itself) and resets for the next one.
    pub(crate) fn with_value<T>(&mut self, f: impl FnOnce(&[u8]) -> T) -> T {
        let r = if self.fixups.is_empty() {
            f(&self.buf)
        } else {
            let mut out = Vec::with_capacity(self.buf.len());
            self.emit_into(&mut out);
            f(&out)
        };
        self.reset();
        r
    }

    /// The bytes of the complete top-level value (no copy when nothing was reordered).
    pub(crate) fn take_value(&mut self) -> Vec<u8> {
        let out = if self.fixups.is_empty() {
            core::mem::take(&mut self.buf)
        } else {
            let mut out = Vec::with_capacity(self.buf.len());
            self.emit_into(&mut out);
            out
        };
        self.reset();
        out
    }

    fn emit_into(&mut self, out: &mut Vec<u8>) {
        self.fixups.sort_by_key(|f| f.pos());
        emit(
            &self.buf,
            &self.fixups,
            &self.pieces,
            &self.inserts,
            (0, self.buf.len()),
            out,
        );
    }

    fn reset(&mut self) {
        self.buf.clear();
        self.fixups.clear();
        self.pieces.clear();
        self.inserts.clear();
        self.complete = false;
    }
}

/// Writes `buf[range]` to `out`, following the fixups (sorted by position) found in it and,
/// through the reordered pieces, in them: each kept byte is copied once, in output order.
fn emit(
    buf: &[u8],
    fixups: &[Fixup],
    pieces: &[(usize, usize)],
    inserts: &[u8],
    range: (usize, usize),
    out: &mut Vec<u8>,
) {
    let first = |pos: usize| fixups.partition_point(|f| f.pos() < pos);
    // (cursor, end, next fixup to consider)
    let mut stack: Vec<(usize, usize, usize)> = vec![(range.0, range.1, first(range.0))];
    let start = out.len();
    while let Some((mut cur, end, mut i)) = stack.pop() {
        crate::reader::work(1);
        loop {
            match fixups.get(i) {
                Some(f) if f.pos() < end => match *f {
                    Fixup::Insert { at, from, to } => {
                        out.extend_from_slice(&buf[cur..at]);
                        out.extend_from_slice(&inserts[from..to]);
                        cur = at;
                        i += 1;
                    }
                    Fixup::Reorder {
                        start,
                        end: e,
                        from,
                        to,
                    } => {
                        out.extend_from_slice(&buf[cur..start]);
                        stack.push((e, end, first(e)));
                        // Its pieces hold only the fixups after it (the first piece starts
                        // where it does).
                        for &(a, b) in pieces[from..to].iter().rev() {
                            stack.push((a, b, first(a).max(i + 1)));
                        }
                        break;
                    }
                },
                _ => {
                    out.extend_from_slice(&buf[cur..end]);
                    break;
                }
            }
        }
    }
    crate::reader::work(out.len() - start);
}

impl Sink for Bytes {
    fn leaf(&mut self, v: Variant, depth: usize, at: usize) -> R {
        if let Some((tree, _)) = &mut self.key {
            tree.leaf(v, depth, at)?;
            return self.key_done(at);
        }
        if self.merging_key() {
            return self.key(v, depth, at);
        }
        let start = self.buf.len();
        self.write(&v, depth, at)?;
        self.completed(start);
        Ok(())
    }

    fn begin(&mut self, c: Open, depth: usize, at: usize) -> R {
        // (The depth was checked by the Builder.)
        if let Some((tree, _)) = &mut self.key {
            return tree.begin(c, depth, at);
        }
        if self.merging_key() {
            let mut tree = Tree::default();
            tree.begin(c, depth, at)?;
            self.key = Some((tree, depth));
            return Ok(());
        }
        let header_at = self.buf.len();
        let (kind, merge, res) = match &c {
            Open::Array(t) => (Kind::Array, None, self.enc().array_head(t, 0)),
            Open::Dict { key, value, merge } => {
                (Kind::Dict, *merge, self.enc().dict_head(key, value, 0))
            }
            Open::Object(class) => (Kind::Object, None, self.enc().object_head(class, 0)),
        };
        let count_at = match res {
            Ok(c) => c,
            Err(e) => return fail(at, format!("cannot encode: {}", e.kind())),
        };
        let content = self.buf.len();
        self.open.push(OpenB {
            kind,
            header_at,
            count_at,
            count: 0,
            key_next: true,
            merge: merge.map(|rule| Merge {
                from: self.entries.len(),
                rule,
                keys: Dictionary::new(),
                repeated: false,
                keep: false,
                pairs: 0,
                target: 0,
                value_at: content,
            }),
            content,
        });
        Ok(())
    }

    fn property(&mut self, name: String, at: usize) -> R {
        if let Some((tree, _)) = &mut self.key {
            return tree.property(name, at);
        }
        let res = self.enc().string(&name);
        res.or_else(|e| fail(at, format!("cannot encode: {}", e.kind())))
    }

    fn set_types(&mut self, key: TypeInfo, value: TypeInfo, at: usize) -> R {
        if let Some((tree, _)) = &mut self.key {
            return tree.set_types(key, value, at);
        }
        let Some(top) = self.open.last() else {
            return Ok(());
        };
        let (kind, header_at) = (top.kind, top.header_at);
        // The head as it should have been, written aside: header, type info, count.
        let mut head = Vec::new();
        let mut ids = IdCache::new();
        let mut e = Enc {
            out: &mut head,
            base: 0,
            opts: &self.opts,
            ids: &mut ids,
            depth: 0,
        };
        let res = if kind == Kind::Array {
            e.array_head(&key, 0)
        } else {
            e.dict_head(&key, &value, 0)
        };
        if let Err(e) = res {
            return fail(at, format!("cannot encode: {}", e.kind()));
        }
        self.buf[header_at..header_at + 4].copy_from_slice(&head[..4]);
        let info = &head[4..head.len() - 4];
        if !info.is_empty() {
            let from = self.inserts.len();
            self.inserts.extend_from_slice(info);
            self.fixups.push(Fixup::Insert {
                at: header_at + 4,
                from,
                to: self.inserts.len(),
            });
        }
        Ok(())
    }

    fn keep_all(&mut self, at: usize) -> R {
        if let Some((tree, _)) = &mut self.key {
            return tree.keep_all(at);
        }
        if let Some(OpenB { merge: Some(m), .. }) = self.open.last_mut() {
            m.keep = true;
        }
        Ok(())
    }

    fn end(&mut self, at: usize) -> R {
        if let Some((tree, _)) = &mut self.key {
            tree.end(at)?;
            return self.key_done(at);
        }
        let Some(o) = self.open.pop() else {
            return Ok(());
        };
        let n = match &o.merge {
            Some(m) if m.keep => m.pairs,
            _ => o.count,
        };
        if n > i32::MAX as usize {
            return fail(at, "too many elements for the format");
        }
        self.buf[o.count_at..o.count_at + 4].copy_from_slice(&(n as u32).to_le_bytes());
        if let Some(m) = o.merge {
            if m.repeated && !m.keep {
                let from = self.pieces.len();
                for e in &self.entries[m.from..] {
                    self.pieces.push(e.key);
                    self.pieces.push(e.value);
                }
                self.fixups.push(Fixup::Reorder {
                    start: o.content,
                    end: self.buf.len(),
                    from,
                    to: self.pieces.len(),
                });
            }
            self.entries.truncate(m.from);
        }
        self.completed(o.header_at);
        Ok(())
    }
}

impl Bytes {
    /// Hands a key built as a tree over once it is complete.
    fn key_done(&mut self, at: usize) -> R {
        let Some((tree, depth)) = &mut self.key else {
            return Ok(());
        };
        let depth = *depth;
        match tree.take() {
            None => Ok(()),
            Some(k) => {
                self.key = None;
                self.key(k, depth, at)
            }
        }
    }

    /// Whether a top-level value is complete.
    #[cfg(test)]
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }
}

/// The encoding of the one value a reader's `drive` hands over (the text and JSON readers'
/// `to_bytes`): the first value's bytes, and an error unless there was exactly one (`what`
/// names a value in it).
pub(crate) fn exactly_one(
    what: &str,
    syntax: Syntax,
    drive: impl FnOnce(&mut dyn FnMut(&mut Bytes)) -> core::result::Result<usize, ParseError>,
) -> core::result::Result<Vec<u8>, ParseError> {
    let mut out = Vec::new();
    let mut n = 0;
    drive(&mut |b: &mut Bytes| {
        n += 1;
        if n == 1 {
            out = b.take_value();
        } else {
            b.with_value(|_| ());
        }
    })?;
    if n != 1 {
        return Err(ParseError {
            message: format!("expected exactly one {what}, found {n}"),
            offset: 0,
            syntax,
        });
    }
    Ok(out)
}
