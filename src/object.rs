//! NodePath, Object, Signal views, and the iterator over consecutive strings they share.

use core::iter::FusedIterator;

use crate::error::{Error, ErrorKind, Result};
use crate::head::{check_script, is_script, node_path_head, read_text};
use crate::reader::Reader;
use crate::seq::{Nested, Seq};
use crate::strings::Text;
use crate::types::{Dialect, ReadOptions, VariantType, FLAG_64};
use crate::value::VariantRef;

/// An iterator over consecutive length-prefixed strings (NodePath names, PackedStringArray
/// entries). As an [`Iterator`] it yields `&'a str`; [`try_next`](StrIter::try_next) yields the
/// dialect-checked [`Text`], which also covers Godot 3 text that is not UTF-8. It ends after the
/// first error.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct StrIter<'a> {
    seq: Seq<'a>,
}

impl<'a> StrIter<'a> {
    pub(crate) fn new(r: Reader<'a>, count: u32, dialect: Dialect) -> StrIter<'a> {
        StrIter {
            seq: Seq::strings(r, count, ReadOptions::new().with_dialect(dialect)),
        }
    }

    /// The next string's text, `Ok(None)` at the end.
    #[inline]
    pub fn try_next(&mut self) -> Result<Option<Text<'a>>> {
        self.seq.next_with(Seq::text)
    }

    /// The next string as `&str`; text that only Godot 3 accepts (not UTF-8) is an
    /// [`ErrorKind::NotRustUtf8`] error, which ends the iteration.
    fn next_str(&mut self) -> Result<Option<&'a str>> {
        self.seq.next_with(Seq::str_)
    }
}

impl<'a> Iterator for StrIter<'a> {
    type Item = Result<&'a str>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_str().transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.seq.remaining()))
    }
}

impl FusedIterator for StrIter<'_> {}

/// A NodePath: names, subnames and whether it is absolute.
///
/// Text form: names joined by `/`, a leading `/` if absolute, each subname prefixed by `:`
/// (`"a/b:c:d"` has 2 names and 2 subnames; `":prop"` has 0 names and 1 subname).
#[derive(Clone, Copy, Debug)]
pub struct NodePathRef<'a> {
    strings: Reader<'a>,
    names: u32,
    subnames: u32,
    flags: u32,
    dialect: Dialect,
}

impl<'a> NodePathRef<'a> {
    pub(crate) fn read(mut r: Reader<'a>, dialect: Dialect) -> Result<NodePathRef<'a>> {
        let (names, subnames, flags) = node_path_head(&mut r)?;
        Ok(NodePathRef {
            strings: r,
            names,
            subnames,
            flags,
            dialect,
        })
    }

    /// Whether the path is absolute (starts with `/`).
    pub fn is_absolute(&self) -> bool {
        self.flags & 1 != 0
    }

    /// The number of names.
    pub fn name_count(&self) -> usize {
        self.names as usize
    }

    /// The number of subnames (property path).
    pub fn subname_count(&self) -> usize {
        self.subnames as usize
    }

    /// The names (node path components).
    pub fn names(&self) -> StrIter<'a> {
        StrIter::new(self.strings, self.names, self.dialect)
    }

    /// The subnames (property path components).
    pub fn subnames(&self) -> Result<StrIter<'a>> {
        let mut r = self.strings;
        for _ in 0..self.names {
            r.read_string_raw()?;
        }
        Ok(StrIter::new(r, self.subnames, self.dialect))
    }

    /// Writes the path as encoded: `/` if absolute, the names joined by `/`, `:` before each
    /// subname (so every name and subname can be read back from it). For the lossless JSON
    /// form; [`write_text`](NodePathRef::write_text) is the engine's text.
    #[cfg(feature = "std")]
    pub(crate) fn write_encoded_text(
        &self,
        out: &mut impl core::fmt::Write,
    ) -> Result<core::fmt::Result> {
        let mut res = Ok(());
        if self.is_absolute() {
            res = res.and(out.write_char('/'));
        }
        let mut it = self.names();
        let mut first = true;
        while let Some(t) = it.try_next()? {
            if !first {
                res = res.and(out.write_char('/'));
            }
            first = false;
            res = res.and(write!(out, "{t}"));
        }
        let mut it = self.subnames()?;
        while let Some(t) = it.try_next()? {
            res = res.and(out.write_char(':')).and(write!(out, "{t}"));
        }
        Ok(res)
    }

    /// Writes the path's text form (`/root/a:prop`) into `out`, as the engine's
    /// `String(NodePath)` gives it for the path it decodes: names joined by `/` after a `/` if
    /// absolute; then, in Godot 4, `:` and the subnames joined by `:` unless that text is
    /// empty (one empty subname prints nothing), in Godot 3 `:` before each subname. A Godot 3
    /// path without names or subnames is the empty path, absolute or not (3.x builds it from
    /// empty lists and drops the flag).
    pub fn write_text(&self, out: &mut impl core::fmt::Write) -> Result<core::fmt::Result> {
        let mut res = Ok(());
        let g3 = self.dialect == Dialect::Godot3;
        if self.is_absolute() && !(g3 && self.names == 0 && self.subnames == 0) {
            res = res.and(out.write_char('/'));
        }
        let mut it = self.names();
        let mut first = true;
        while let Some(t) = it.try_next()? {
            if !first {
                res = res.and(out.write_char('/'));
            }
            first = false;
            res = res.and(write!(out, "{t}"));
        }
        let mut it = self.subnames()?;
        if g3 {
            while let Some(t) = it.try_next()? {
                res = res.and(out.write_char(':')).and(write!(out, "{t}"));
            }
        } else {
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if first {
                    // A lone empty subname joins to the empty text: no `:`.
                    if !(t.is_empty() && self.subnames == 1) {
                        res = res.and(out.write_char(':'));
                    }
                } else {
                    res = res.and(out.write_char(':'));
                }
                first = false;
                res = res.and(write!(out, "{t}"));
            }
        }
        Ok(res)
    }
}

/// An Object, as encoded: an instance id, or a full object.
#[derive(Clone, Copy, Debug)]
pub enum ObjectRef<'a> {
    /// The "as id" form (header bit 16): an instance id, 0 for null. Always allowed.
    Id(u64),
    /// A full object: class name and properties (only read when objects are allowed).
    Full(FullObjectRef<'a>),
}

impl<'a> ObjectRef<'a> {
    pub(crate) fn full(value: VariantRef<'a>) -> Result<ObjectRef<'a>> {
        let mut r = Reader::new(value.raw_head(), value.offset());
        r.skip(4)?;
        let class = read_text(&mut r, value.dialect())?;
        Ok(ObjectRef::Full(FullObjectRef { value, class }))
    }

    /// Whether this is a null object (id 0, or a full object with an empty class name).
    pub fn is_null(&self) -> bool {
        match self {
            ObjectRef::Id(id) => *id == 0,
            ObjectRef::Full(f) => f.class.is_empty(),
        }
    }
}

/// A full object: its class name and `(name, value)` properties.
#[derive(Clone, Copy, Debug)]
pub struct FullObjectRef<'a> {
    value: VariantRef<'a>,
    class: Text<'a>,
}

impl<'a> FullObjectRef<'a> {
    /// The class name; empty for a null object.
    pub fn class_name(&self) -> Text<'a> {
        self.class
    }

    /// The number of properties declared (a negative count reads as 0, as in the engine).
    pub fn property_count(&self) -> usize {
        self.value.count()
    }

    /// The value of the property named `name`: the last one of that name, as the engine sets
    /// the properties in order (a later one overwrites an earlier one). Names compare as the
    /// engine's text (a leading BOM stripped, cut at the first NUL). Walks every property;
    /// `Ok(None)` when there is none of that name.
    ///
    /// ```
    /// use gdvariant::{EncodeOptions, ObjectRef, ReadOptions, Writer};
    /// let mut w = Writer::new(EncodeOptions::new().with_full_objects(true));
    /// w.begin_object("Node2D", Some(2))?;
    /// w.property("name")?;
    /// w.string("player")?;
    /// w.property("z_index")?;
    /// w.int(3)?;
    /// w.end()?;
    /// let bytes = w.finish()?;
    /// let v = gdvariant::parse_with(&bytes, &ReadOptions::new().with_full_objects(true))?;
    /// let ObjectRef::Full(obj) = v.as_object()? else { unreachable!() };
    /// assert_eq!(obj.property("z_index")?.unwrap().as_i64()?, 3);
    /// assert!(obj.property("visible")?.is_none());
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn property(&self, name: &str) -> Result<Option<VariantRef<'a>>> {
        let mut found = None;
        let mut props = self.properties();
        while let Some((n, v)) = props.try_next()? {
            if n.as_bytes() == name.as_bytes() {
                found = Some(v);
            }
        }
        Ok(found)
    }

    /// The properties in encoded order. A container value is yielded unsized, as
    /// [`ArrayRef::iter`](crate::ArrayRef::iter) explains (see [`Properties::resume_after`]).
    pub fn properties(&self) -> Properties<'a> {
        Properties {
            seq: Seq::of(&self.value),
        }
    }
}

/// The properties of a full object; see [`FullObjectRef::properties`]. As an [`Iterator`] it
/// yields `(&str, VariantRef)`; [`try_next`](Properties::try_next) yields the name as [`Text`].
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Properties<'a> {
    seq: Seq<'a>,
}

impl<'a> Properties<'a> {
    /// The next property, `Ok(None)` at the end. In Godot 4, a `script` property must be Nil or
    /// a `res://` path, as the engine requires.
    #[inline]
    pub fn try_next(&mut self) -> Result<Option<(Text<'a>, VariantRef<'a>)>> {
        self.seq.next_with(Self::property)
    }

    fn property(s: &mut Seq<'a>) -> Result<(Text<'a>, VariantRef<'a>)> {
        let name = s.text()?;
        let value = s.value()?;
        if is_script(name.as_bytes(), s.options().dialect) {
            check_script(value.h)?;
        }
        Ok((name, value))
    }

    /// Continues after the container value just yielded, which you iterated to its end with
    /// `inner`: it is not read again. See [`ArrayIter::resume_after`](crate::array::ArrayIter::resume_after).
    pub fn resume_after<I: Nested<'a>>(&mut self, inner: &I) -> Result<bool> {
        self.seq.resume_after(inner.seq())
    }
}

impl<'a> crate::seq::private::Sealed<'a> for Properties<'a> {
    fn seq(&self) -> &Seq<'a> {
        &self.seq
    }
}

impl<'a> Nested<'a> for Properties<'a> {}

impl<'a> Iterator for Properties<'a> {
    type Item = Result<(&'a str, VariantRef<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.seq
            .next_with(|s| {
                let at = s.offset()?;
                let (name, v) = Self::property(s)?;
                match name.as_str() {
                    Some(n) => Ok((n, v)),
                    None => Err(Error::new(ErrorKind::NotRustUtf8, at)),
                }
            })
            .transpose()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.seq.remaining()))
    }
}

impl FusedIterator for Properties<'_> {}

/// A Signal (Godot 4): the signal's name and the id of the object that owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalRef<'a> {
    /// The signal's name.
    pub name: Text<'a>,
    /// The owning object's instance id.
    pub object_id: u64,
}

/// A Callable (Godot 4). The engine writes every Callable as a bare header with no payload, and
/// decodes it to an empty Callable: there is nothing more to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CallableRef;

/// The object-like views of a value.
impl<'a> VariantRef<'a> {
    /// A NodePath's names, subnames and absolute flag.
    pub fn as_node_path(&self) -> Result<NodePathRef<'a>> {
        self.expect(VariantType::NodePath)?;
        NodePathRef::read(self.payload(), self.opts.dialect)
    }

    /// An Object: an instance id, or (when objects are allowed) a full object's class name and
    /// properties.
    pub fn as_object(&self) -> Result<ObjectRef<'a>> {
        self.expect(VariantType::Object)?;
        if self.h.header & FLAG_64 != 0 {
            return Ok(ObjectRef::Id(self.payload().read_u64()?));
        }
        ObjectRef::full(*self)
    }

    /// A Callable (Godot 4): it carries no payload on the wire (the engine decodes it to an
    /// empty Callable), so this only checks the type.
    pub fn as_callable(&self) -> Result<CallableRef> {
        self.expect(VariantType::Callable).map(|()| CallableRef)
    }

    /// A Signal's name and object id (Godot 4).
    pub fn as_signal(&self) -> Result<SignalRef<'a>> {
        self.expect(VariantType::Signal)?;
        let mut p = self.payload();
        let name = read_text(&mut p, self.opts.dialect)?;
        Ok(SignalRef {
            name,
            object_id: p.read_u64()?,
        })
    }
}
