//! What the text and JSON readers build from the values they read: an owned [`Variant`] tree
//! ([`Tree`]) or the encoded bytes straight away ([`Bytes`], no tree), behind one set of checks
//! ([`Builder`]) that refuses everything [`validate_with`](crate::validate_with) would refuse
//! in the bytes: a value nested deeper than the depth limit, a type the dialect does not have,
//! a typed container in Godot 3, a full object when objects are not allowed, an Object without
//! a class name, a Godot 4 `script` property that is neither null nor a `res://` path, and a
//! script-typed container whose path is not `res://` when objects are allowed.
//!
//! The readers are iterative: they call the builder once per value, container start, property
//! name and container end, so nesting costs heap memory (a few bytes a level), never native
//! stack.
//!
//! Dictionaries read from text or from a plain JSON object *merge* repeated keys as the engine's
//! `str_to_var` does: the first key and its position, the last value. Which keys are the same
//! key is decided by the crate's one key identity (`owned::key`, through an owned
//! [`Dictionary`]) under the rule the reader gives ([`Open::Dict`]): the text's dialect, Godot 4
//! for JSON. Lookups are hashed (every key type, containers included), so reading `n` entries
//! costs O(n) expected whatever the key type.
//!
//! [`Bytes`] writes every value as soon as it is complete and never builds the tree: memory is
//! the output plus, for each open dictionary that merges keys, its keys (owned, in a
//! [`Dictionary`] that finds repeats) and a small record per entry (keys that are containers
//! are built as small trees first, to be compared). A repeated key does not
//! move bytes: the dictionary is recorded as a *reordering* of byte ranges, and the final output
//! is produced in one pass that follows these records (nested ones included), so the work stays
//! linear in the input whatever the nesting. The same mechanism inserts the type info of a JSON
//! typed container, which the JSON form gives after the elements.

use std::string::String;
use std::vec::Vec;

use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::error::{ParseError, Syntax};
use crate::owned::{Array, Dictionary, Object, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};

/// Why a reader stopped: what, and at which byte offset of the text.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) message: String,
    pub(crate) offset: usize,
}

pub(crate) type R<T = ()> = core::result::Result<T, Fail>;

impl Fail {
    /// The error of a reader of `syntax`.
    pub(crate) fn of(self, syntax: Syntax) -> ParseError {
        ParseError {
            message: self.message,
            offset: self.offset,
            syntax,
        }
    }
}

pub(crate) fn fail<T>(offset: usize, message: impl Into<String>) -> R<T> {
    Err(Fail {
        message: message.into(),
        offset,
    })
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

/// A container a reader opens.
pub(crate) enum Open {
    /// An Array with its element type.
    Array(TypeInfo),
    /// A Dictionary with its key and value types; `merge`: repeated keys (the same key by the
    /// key identity of this dialect's engine) replace the value in place (unless
    /// [`Sink::keep_all`] comes before its end); `None` keeps every entry as given.
    Dict {
        key: TypeInfo,
        value: TypeInfo,
        merge: Option<Dialect>,
    },
    /// A full object with its (non-empty) class name.
    Object(String),
}

/// What a builder receives, in reading order. `at` is the byte offset of the text the event
/// comes from (for errors). (`set_types` and `keep_all` are the JSON reader's.)
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) trait Sink {
    /// A value that holds no other value (never an Array, a Dictionary or a full object with
    /// a class: those come as `begin` … `end`).
    fn leaf(&mut self, v: Variant, depth: usize, at: usize) -> R;
    /// A container begins at `depth`.
    fn begin(&mut self, c: Open, depth: usize, at: usize) -> R;
    /// The name of the innermost object's next property.
    fn property(&mut self, name: String, at: usize) -> R;
    /// The innermost container's types, given after its elements (JSON): the element type of
    /// an Array (`value` unused) or the key and value types of a Dictionary.
    fn set_types(&mut self, key: TypeInfo, value: TypeInfo, at: usize) -> R;
    /// The innermost Dictionary keeps its entries as given, repeated keys included (JSON's
    /// `"$repeated": true`), instead of merging them.
    fn keep_all(&mut self, at: usize) -> R;
    /// The innermost container ends.
    fn end(&mut self, at: usize) -> R;
}

// ----- the checks -----

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Dict,
    Object,
}

/// The checks every reader makes, in front of a [`Sink`].
pub(crate) struct Builder<S> {
    pub(crate) sink: S,
    opts: ReadOptions,
    /// The open containers, with (for a Dictionary) whether a key comes next.
    open: Vec<(Kind, bool)>,
    /// Whether the next value is a Godot 4 object's `script` property.
    script: bool,
}

/// The message of a value nested too deep.
fn too_deep(limit: u32) -> String {
    format!("nested deeper than {limit} levels")
}

/// Whether a property named `name` is the Godot 4 `script` property. The writers write every
/// string so that it reads back as itself (a leading BOM is kept by a second one, a NUL is
/// refused), so the name is compared as it is.
fn is_script(name: &str, dialect: Dialect) -> bool {
    dialect == Dialect::Godot4 && name == "script"
}

/// Whether a script path, as written, is a `res://` path to `validate`.
fn is_res_path(path: &str) -> bool {
    path.starts_with("res://")
}

#[cfg_attr(not(feature = "std"), allow(dead_code))]
impl<S: Sink> Builder<S> {
    pub(crate) fn new(sink: S, opts: ReadOptions) -> Builder<S> {
        Builder {
            sink,
            opts,
            open: Vec::new(),
            script: false,
        }
    }

    /// The options the checks follow.
    pub(crate) fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// Whether the innermost open container is a Dictionary waiting for a key.
    pub(crate) fn wants_key(&self) -> bool {
        matches!(self.open.last(), Some((Kind::Dict, true)))
    }

    fn depth(&self, at: usize) -> R<usize> {
        let d = self.open.len();
        if d > self.opts.max_depth() as usize {
            return fail(at, too_deep(self.opts.max_depth()));
        }
        Ok(d)
    }

    /// A value is complete in its container: a Dictionary alternates keys and values.
    fn advance(&mut self) {
        if let Some((Kind::Dict, key)) = self.open.last_mut() {
            *key = !*key;
        }
    }

    fn check_type(&self, t: &TypeInfo, at: usize) -> R {
        if let TypeInfo::Script(p) = t {
            // With objects allowed the engine loads the script: validate wants a res:// path.
            if self.opts.full_objects() && !is_res_path(p) {
                return fail(
                    at,
                    "a container's script type must be a res:// path when objects are allowed",
                );
            }
        }
        Ok(())
    }

    fn check_typed(&self, what: &str, typed: bool, at: usize) -> R {
        if typed && self.opts.dialect() == Dialect::Godot3 {
            return fail(
                at,
                format!("a typed {what} cannot be written in the Godot 3 dialect"),
            );
        }
        Ok(())
    }

    pub(crate) fn leaf(&mut self, v: Variant, at: usize) -> R {
        let depth = self.depth(at)?;
        let d = self.opts.dialect();
        if d.id_of(v.ty()).is_none() {
            return fail(
                at,
                format!("a {} cannot be written in the {d} dialect", v.ty().name()),
            );
        }
        if let Variant::Object(o) = &v {
            if let Object::Full { class, properties } = &**o {
                if !properties.is_empty() {
                    // Readers send full objects with properties as containers.
                    return fail(at, "an Object with properties must be read as a container");
                }
                if !class.is_empty() {
                    self.begin(Open::Object(class.clone()), at)?;
                    return self.end(at);
                }
            }
        }
        if core::mem::take(&mut self.script) {
            let ok = match &v {
                Variant::Nil => true,
                // Both encode as Nil.
                Variant::Object(o) => matches!(&**o, Object::Id(0) | Object::Full { .. }),
                Variant::String(s) => is_res_path(s),
                _ => false,
            };
            if !ok {
                return fail(at, SCRIPT_RULE);
            }
        }
        self.sink.leaf(v, depth, at)?;
        self.advance();
        Ok(())
    }

    pub(crate) fn begin(&mut self, c: Open, at: usize) -> R {
        let depth = self.depth(at)?;
        if core::mem::take(&mut self.script) {
            return fail(at, SCRIPT_RULE);
        }
        let kind = match &c {
            Open::Array(t) => {
                self.check_typed("Array", *t != TypeInfo::None, at)?;
                self.check_type(t, at)?;
                Kind::Array
            }
            Open::Dict { key, value, .. } => {
                let typed = *key != TypeInfo::None || *value != TypeInfo::None;
                self.check_typed("Dictionary", typed, at)?;
                self.check_type(key, at)?;
                self.check_type(value, at)?;
                Kind::Dict
            }
            Open::Object(class) => {
                if !self.opts.full_objects() {
                    return fail(
                        at,
                        "a full object is not allowed (objects are not enabled: with_full_objects, --allow-objects)",
                    );
                }
                if class.is_empty() {
                    return fail(at, "an Object needs a class name");
                }
                Kind::Object
            }
        };
        self.sink.begin(c, depth, at)?;
        self.open.push((kind, true));
        Ok(())
    }

    pub(crate) fn property(&mut self, name: String, at: usize) -> R {
        self.script = is_script(&name, self.opts.dialect());
        self.sink.property(name, at)
    }

    pub(crate) fn set_types(&mut self, key: TypeInfo, value: TypeInfo, at: usize) -> R {
        let what = match self.open.last() {
            Some((Kind::Dict, _)) => "Dictionary",
            _ => "Array",
        };
        let typed = key != TypeInfo::None || value != TypeInfo::None;
        self.check_typed(what, typed, at)?;
        self.check_type(&key, at)?;
        self.check_type(&value, at)?;
        self.sink.set_types(key, value, at)
    }

    pub(crate) fn keep_all(&mut self, at: usize) -> R {
        self.sink.keep_all(at)
    }

    pub(crate) fn end(&mut self, at: usize) -> R {
        if let Some((Kind::Dict, false)) = self.open.last() {
            return fail(at, "a key without a value");
        }
        self.sink.end(at)?;
        self.open.pop();
        self.advance();
        Ok(())
    }
}

const SCRIPT_RULE: &str = "an Object's script property must be null or a res:// path";

// ----- the tree -----

enum Building {
    Array {
        items: Vec<Variant>,
        ty: TypeInfo,
    },
    Dict {
        entries: Vec<(Variant, Variant)>,
        types: (TypeInfo, TypeInfo),
        key: Option<Variant>,
        merge: Option<Dialect>,
    },
    Object {
        class: String,
        props: Vec<(String, Variant)>,
        name: String,
    },
}

/// Builds an owned [`Variant`].
#[derive(Default)]
pub(crate) struct Tree {
    stack: Vec<Building>,
    done: Option<Variant>,
}

impl Tree {
    /// The complete top-level value, taken.
    pub(crate) fn take(&mut self) -> Option<Variant> {
        self.done.take()
    }

    fn put(&mut self, v: Variant) {
        match self.stack.last_mut() {
            None => self.done = Some(v),
            Some(Building::Array { items, .. }) => items.push(v),
            Some(Building::Dict { entries, key, .. }) => match key.take() {
                None => *key = Some(v),
                Some(k) => entries.push((k, v)),
            },
            Some(Building::Object { props, name, .. }) => {
                props.push((core::mem::take(name), v));
            }
        }
    }
}

impl Sink for Tree {
    fn leaf(&mut self, v: Variant, _depth: usize, _at: usize) -> R {
        self.put(v);
        Ok(())
    }

    fn begin(&mut self, c: Open, _depth: usize, _at: usize) -> R {
        self.stack.push(match c {
            Open::Array(ty) => Building::Array {
                items: Vec::new(),
                ty,
            },
            Open::Dict { key, value, merge } => Building::Dict {
                entries: Vec::new(),
                types: (key, value),
                key: None,
                merge,
            },
            Open::Object(class) => Building::Object {
                class,
                props: Vec::new(),
                name: String::new(),
            },
        });
        Ok(())
    }

    fn property(&mut self, n: String, _at: usize) -> R {
        if let Some(Building::Object { name, .. }) = self.stack.last_mut() {
            *name = n;
        }
        Ok(())
    }

    fn set_types(&mut self, k: TypeInfo, v: TypeInfo, _at: usize) -> R {
        match self.stack.last_mut() {
            Some(Building::Array { ty, .. }) => *ty = k,
            Some(Building::Dict { types, .. }) => *types = (k, v),
            _ => {}
        }
        Ok(())
    }

    fn keep_all(&mut self, _at: usize) -> R {
        if let Some(Building::Dict { merge, .. }) = self.stack.last_mut() {
            *merge = None;
        }
        Ok(())
    }

    fn end(&mut self, _at: usize) -> R {
        let v = match self.stack.pop() {
            Some(Building::Array { items, ty }) => Variant::Array(Array::typed(ty, items)),
            Some(Building::Dict {
                entries,
                types,
                merge,
                ..
            }) => Variant::Dictionary(match merge {
                Some(rule) => {
                    let mut d = Dictionary::typed(types.0, types.1, Vec::new());
                    for (k, v) in entries {
                        d.insert_with(rule, k, v);
                    }
                    d
                }
                None => Dictionary::typed(types.0, types.1, entries),
            }),
            Some(Building::Object { class, props, .. }) => Variant::from(Object::Full {
                class,
                properties: props,
            }),
            None => return Ok(()),
        };
        self.put(v);
        Ok(())
    }
}

// ----- the bytes -----

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

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(events: impl FnOnce(&mut Builder<Bytes>) -> R) -> Vec<u8> {
        let opts = EncodeOptions::new().with_full_objects(true);
        let read = ReadOptions::new().with_full_objects(true);
        let mut b = Builder::new(Bytes::new(opts), read);
        events(&mut b).unwrap();
        assert!(b.sink.is_complete());
        b.sink.take_value()
    }

    fn tree_of(events: impl FnOnce(&mut Builder<Tree>) -> R) -> Variant {
        let read = ReadOptions::new().with_full_objects(true);
        let mut b = Builder::new(Tree::default(), read);
        events(&mut b).unwrap();
        b.sink.take().unwrap()
    }

    fn dict_events<S: Sink>(b: &mut Builder<S>) -> R {
        b.begin(
            Open::Dict {
                key: TypeInfo::None,
                value: TypeInfo::None,
                merge: Some(Dialect::Godot4),
            },
            0,
        )?;
        b.leaf("a".into(), 1)?;
        b.leaf(1.into(), 2)?;
        b.begin(Open::Array(TypeInfo::None), 3)?;
        b.leaf(1.into(), 4)?;
        b.end(5)?;
        b.begin(
            Open::Dict {
                key: TypeInfo::None,
                value: TypeInfo::None,
                merge: Some(Dialect::Godot4),
            },
            6,
        )?;
        b.leaf("x".into(), 7)?;
        b.leaf(1.into(), 8)?;
        b.leaf("x".into(), 9)?;
        b.leaf(2.into(), 10)?;
        b.end(11)?;
        b.leaf("a".into(), 12)?;
        b.begin(Open::Array(TypeInfo::None), 13)?;
        b.leaf(3.into(), 14)?;
        b.end(15)?;
        b.begin(Open::Array(TypeInfo::None), 16)?;
        b.leaf(1.into(), 17)?;
        b.end(18)?;
        b.leaf(9.into(), 19)?;
        b.end(20)
    }

    #[test]
    fn repeated_keys_merge_alike_in_trees_and_bytes() {
        let tree = tree_of(dict_events);
        let d = tree.as_dictionary().unwrap();
        assert_eq!(d.entries.len(), 2);
        assert_eq!(d.entries[0].1, Variant::from(vec![Variant::Int(3)]));
        assert_eq!(d.entries[1].1, Variant::Int(9));
        assert_eq!(d.entries[1].0, Variant::from(vec![Variant::Int(1)]));
        let bytes = bytes_of(dict_events);
        let enc = crate::encode::encode_with(&tree, &EncodeOptions::new().with_full_objects(true));
        assert_eq!(bytes, enc.unwrap());
    }

    #[test]
    fn type_info_given_late_is_inserted() {
        let events = |b: &mut Builder<Bytes>| -> R {
            b.begin(Open::Array(TypeInfo::None), 0)?;
            b.begin(Open::Array(TypeInfo::None), 1)?;
            b.leaf(1.into(), 2)?;
            b.set_types(TypeInfo::ClassName("Node".into()), TypeInfo::None, 3)?;
            b.end(4)?;
            b.leaf(2.into(), 5)?;
            b.set_types(
                TypeInfo::Builtin(crate::types::VariantType::Array),
                TypeInfo::None,
                6,
            )?;
            b.end(7)
        };
        let want = Variant::Array(Array::typed(
            TypeInfo::Builtin(crate::types::VariantType::Array),
            vec![
                Variant::Array(Array::typed(
                    TypeInfo::ClassName("Node".into()),
                    vec![1.into()],
                )),
                2.into(),
            ],
        ));
        let enc = crate::encode::encode_with(&want, &EncodeOptions::new().with_full_objects(true));
        assert_eq!(bytes_of(events), enc.unwrap());
    }

    #[test]
    fn the_checks_refuse_what_validate_refuses() {
        let opts = ReadOptions::new().with_max_depth(1);
        let mut b = Builder::new(Tree::default(), opts);
        b.begin(Open::Array(TypeInfo::None), 0).unwrap();
        b.begin(Open::Array(TypeInfo::None), 1).unwrap();
        let e = b.leaf(Variant::Nil, 2).unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "nested deeper than 1 levels")
        );

        let mut b = Builder::new(Tree::default(), ReadOptions::new());
        let e = b.begin(Open::Object("Node".into()), 0).unwrap_err();
        assert!(e.message.starts_with("a full object is not allowed"));

        let mut b = Builder::new(Tree::default(), ReadOptions::new().with_full_objects(true));
        b.begin(Open::Object("Node".into()), 0).unwrap();
        b.property("script".into(), 1).unwrap();
        let e = b.leaf("user://a.gd".into(), 2).unwrap_err();
        assert_eq!(e.message, SCRIPT_RULE);
    }
}
