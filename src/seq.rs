//! The one count-prefixed sequence under every lazy iterator: Array elements, Dictionary pairs,
//! object properties and consecutive strings.
//!
//! It counts down the declared number of items, stops for good after the first error, and
//! yields container children *unsized*: a child's body is walked only when the iterator moves
//! past it, and not at all when the caller walked it through the child's own iterator and
//! handed that back with [`Seq::resume_after`]. So a recursive walk through the lazy views
//! reads every byte once, whatever the depth.

use crate::error::Result;
use crate::error::{Error, ErrorKind};
use crate::head::{head, read_text, Head};
use crate::reader::Reader;
use crate::strings::Text;
use crate::types::ReadOptions;
use crate::value::VariantRef;
use crate::walker::skip_body;

/// A count-prefixed sequence of items at one depth; see the [module docs](self).
// `pub` only so that the sealed [`Nested`] trait can name it; the module is private.
#[allow(unreachable_pub)]
#[derive(Clone, Debug)]
pub struct Seq<'a> {
    r: Reader<'a>,
    remaining: u32,
    /// The depth of the items.
    depth: u32,
    opts: ReadOptions,
    /// A container child yielded unsized: its body is walked before the next item is read.
    pending: Option<Head<'a>>,
    /// The absolute offset of the first item (names the container for `resume_after`).
    start: usize,
    /// Whether an error ended the sequence.
    failed: bool,
}

impl<'a> Seq<'a> {
    /// The items of the container or PackedStringArray `v`.
    #[inline]
    pub(crate) fn of(v: &VariantRef<'a>) -> Seq<'a> {
        let r = v.body_reader();
        Seq {
            start: r.offset(),
            r,
            remaining: v.h.count,
            depth: v.depth() + 1,
            opts: v.options(),
            pending: None,
            failed: false,
        }
    }

    /// `count` items at `r` (no depth: strings only).
    #[inline]
    pub(crate) fn strings(r: Reader<'a>, count: u32, opts: ReadOptions) -> Seq<'a> {
        Seq {
            start: r.offset(),
            r,
            remaining: count,
            depth: 0,
            opts,
            pending: None,
            failed: false,
        }
    }

    /// How many items are left (an upper bound: an error ends the sequence early).
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.remaining as usize
    }

    /// The options the items are read with.
    #[inline]
    pub(crate) fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// The next item read by `read`, `Ok(None)` at the end; after an error, always `Ok(None)`.
    /// The error-stop logic of every lazy iterator.
    #[inline]
    pub(crate) fn next_with<T>(
        &mut self,
        read: impl FnOnce(&mut Seq<'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let res = match self.pending.take() {
            Some(p) => skip_body(&mut self.r, &p, self.depth, &self.opts, false),
            None => Ok(()),
        };
        match res.and_then(|()| read(self)) {
            Ok(t) => Ok(Some(t)),
            Err(e) => {
                self.remaining = 0;
                self.pending = None;
                self.failed = true;
                Err(e)
            }
        }
    }

    /// The rest of the item [`next_with`](Seq::next_with) began (a dictionary's value after
    /// its key, read alone): the same error stop; not counted again.
    #[inline]
    pub(crate) fn then_with<T>(
        &mut self,
        read: impl FnOnce(&mut Seq<'a>) -> Result<T>,
    ) -> Result<T> {
        let res = match self.pending.take() {
            Some(p) => skip_body(&mut self.r, &p, self.depth, &self.opts, false),
            None => Ok(()),
        };
        res.and_then(|()| read(self)).inspect_err(|_| {
            self.remaining = 0;
            self.pending = None;
            self.failed = true;
        })
    }

    /// Reads a value's head; a container's body is left for later (the view is unsized).
    #[inline]
    pub(crate) fn value(&mut self) -> Result<VariantRef<'a>> {
        let h = head(&mut self.r, self.depth, &self.opts, false)?;
        if !h.sized() {
            self.pending = Some(h);
        }
        Ok(VariantRef::new(h, self.depth, self.opts))
    }

    /// Reads a whole value as a sized view (a dictionary key, which its value follows).
    #[inline]
    pub(crate) fn sized_value(&mut self) -> Result<VariantRef<'a>> {
        let h = head(&mut self.r, self.depth, &self.opts, false)?;
        if h.sized() {
            return Ok(VariantRef::new(h, self.depth, self.opts));
        }
        skip_body(&mut self.r, &h, self.depth, &self.opts, false)?;
        let len = self.r.offset() - h.offset;
        Ok(VariantRef::new(h.sized_to(len), self.depth, self.opts))
    }

    /// Reads a string's text, checked by the dialect's rules.
    #[inline]
    pub(crate) fn text(&mut self) -> Result<Text<'a>> {
        read_text(&mut self.r, self.opts.dialect)
    }

    /// Reads a string as `&str` in one UTF-8 pass; the dialect's check runs only to name an
    /// error: invalid text, or text only Godot 3 accepts ([`ErrorKind::NotRustUtf8`] at the
    /// string's length field).
    #[inline]
    pub(crate) fn str_(&mut self) -> Result<&'a str> {
        let item = self.r.offset();
        let (raw, at) = self.r.read_string_raw()?;
        let (t, skipped) = crate::strings::engine_text(raw);
        match crate::strings::utf8(t) {
            Some(s) => Ok(s),
            None => Err(str_error(t, self.opts.dialect, at + skipped, item)),
        }
    }

    /// The absolute offset of the next item (walking a pending child on a copy of the cursor).
    pub(crate) fn offset(&self) -> Result<usize> {
        let mut r = self.r;
        if let Some(p) = &self.pending {
            skip_body(&mut r, p, self.depth, &self.opts, false)?;
        }
        Ok(r.offset())
    }

    /// Continues after the container child just yielded, which the caller has iterated to its
    /// end through `inner` (the child's own sequence): its body is not walked again. Returns
    /// `false`, changing nothing, if `inner` is not that child's sequence or did not reach its
    /// end (then the child is walked when the sequence moves on, as usual).
    pub(crate) fn resume_after(&mut self, inner: &Seq<'a>) -> Result<bool> {
        let Some(p) = &self.pending else {
            return Ok(false);
        };
        let body = p.offset + p.body_at as usize;
        if inner.start != body || inner.depth != self.depth + 1 || inner.failed {
            return Ok(false);
        }
        if inner.remaining > 0 {
            return Ok(false);
        }
        // The inner sequence's own last child may still be pending.
        let mut r = inner.r;
        if let Some(q) = &inner.pending {
            skip_body(&mut r, q, inner.depth, &inner.opts, false)?;
        }
        if !self.r.jump_to(r.offset()) {
            return Ok(false);
        }
        self.pending = None;
        Ok(true)
    }
}

pub(crate) mod private {
    /// Seals [`Nested`](super::Nested): only the crate's container iterators implement it.
    pub trait Sealed<'a> {
        /// The iterator's sequence.
        fn seq(&self) -> &super::Seq<'a>;
    }
}

/// A container iterator that a parent iterator can resume after (see
/// [`ArrayIter::resume_after`](crate::array::ArrayIter::resume_after)): [`ArrayIter`](crate::array::ArrayIter),
/// [`DictIter`](crate::dict::DictIter) and [`Properties`](crate::object::Properties). Sealed.
pub trait Nested<'a>: private::Sealed<'a> {}

/// Why a string is not a `&str`: invalid by the dialect's rules, or valid only for Godot 3.
fn str_error(t: &[u8], dialect: crate::types::Dialect, at: usize, item: usize) -> Error {
    match crate::strings::check(t, dialect, at) {
        Err(e) => e,
        Ok(()) => Error::new(ErrorKind::NotRustUtf8, item),
    }
}
