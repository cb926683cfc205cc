//! The walker's one fast path: [`Walker::plain`] hands out a [`Plain`] cursor over the next
//! plain values, [`Walker::resume`] / [`Walker::resume_open`] take it back, [`Walker::close`]
//! closes a container whose values are all read.

#[cfg(feature = "serde")]
use crate::head::Body;
use crate::reader::counted;
#[cfg(feature = "serde")]
use crate::reader::Reader;

#[cfg(feature = "serde")]
use super::frames::Frame;
use super::frames::Kind;
use super::{State, Walker};

/// The cursor of the walker's fast path ([`Walker::plain`]): the input from the next value on
/// and how many values are due on it. A reader takes values on it (each read whole, with the
/// one decoder of leaves) and hands it back to the walker ([`Walker::resume`]); the walker
/// tells its offsets ([`Walker::offset_of`]). (Two words and a count: a reader keeps it in
/// registers.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plain<'a> {
    /// The input from the next value on.
    pub(crate) rest: &'a [u8],
    /// How many values are due on the cursor.
    pub(crate) left: u32,
}

impl<'a> Plain<'a> {
    /// A cursor with nothing on it.
    #[cfg(feature = "serde")]
    pub(crate) const NONE: Plain<'static> = Plain { rest: &[], left: 0 };

    /// The input from the next value on, if a value is due.
    #[inline]
    pub(crate) fn bytes(&self) -> Option<&'a [u8]> {
        (self.left > 0).then_some(self.rest)
    }

    /// Takes a value of `n` bytes read whole from [`bytes`](Plain::bytes).
    #[inline]
    pub(crate) fn take(&mut self, n: usize) {
        counted(n);
        self.rest = self.rest.get(n..).unwrap_or(&[]);
        self.left -= 1;
    }

    /// Takes a Dictionary's key and value, `n` bytes together, read whole from
    /// [`bytes`](Plain::bytes) at a key.
    #[inline]
    pub(crate) fn take_pair(&mut self, n: usize) {
        counted(n);
        self.rest = self.rest.get(n..).unwrap_or(&[]);
        self.left = self.left.saturating_sub(2);
    }

    /// Takes a value that a cursor from [`Walker::reader_of`] read (and counted): `rest` is
    /// what that cursor left.
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn take_to(&mut self, rest: &'a [u8]) {
        self.rest = rest;
        self.left -= 1;
    }
}

impl<'a> Walker<'a> {
    /// The fast path for "the next plain value", for the crate's readers that take the
    /// commonest values (scalars, strings, math types, the heads of untyped containers)
    /// straight from the input with the one decoder of leaves instead of as events (`to_owned`
    /// and the serde deserializer): a [`Plain`] cursor at the next value when a value may be
    /// read that way, to be handed back with [`resume`](Walker::resume) (or
    /// [`resume_open`](Walker::resume_open)) before the walker is used again.
    ///
    /// A value may be read that way when it is due and within the depth limit, and no `script`
    /// rule is pending: the top value not begun yet, a full object's property value after its
    /// name (the cursor then holds that one value), or any value of an Array or Dictionary
    /// within the depth limit (the cursor holds all the values still due in it, a Dictionary
    /// counting keys and values). `None` otherwise (the cursor may also hold no value: an Array
    /// or Dictionary that is complete).
    ///
    /// A reader on the cursor reads only what it knows to be well-formed by the very checks
    /// `validate` makes (bounds, UTF-8 by the dialect's rules); on anything else it stops, and
    /// the events read that value and report any error exactly as `validate` does.
    #[inline]
    pub(crate) fn plain(&self) -> Option<Plain<'a>> {
        if self.state == State::Running && self.plain {
            return Some(self.cursor_of(self.top.remaining));
        }
        let depth = match self.state {
            State::Running
                if self.top.remaining > 0
                    && self.top.kind == Kind::Object
                    && self.named
                    && !self.script =>
            {
                self.base + self.open
            }
            State::Start => self.base,
            _ => return None,
        };
        (depth <= self.opts.max_depth).then(|| self.cursor_of(1))
    }

    /// A [`Plain`] cursor at the walker's, with `left` values due.
    #[inline]
    fn cursor_of(&self, left: u32) -> Plain<'a> {
        Plain {
            rest: self.r.rest(),
            left,
        }
    }

    /// The absolute offset of the next value on `p`, a cursor this walker handed out.
    #[inline]
    pub(crate) fn offset_of(&self, p: &Plain<'a>) -> usize {
        self.r.end() - p.rest.len()
    }

    /// A reading cursor at the next value on `p`, a cursor this walker handed out (its bytes
    /// before that counted by whoever read them).
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn reader_of(&self, p: &Plain<'a>) -> Reader<'a> {
        // (The cursor's own slice, not the suffix of the walker's of its length: a fast path
        // that declines then reads nothing of the walker's.)
        self.r.with_rest(p.rest)
    }

    /// Closes the innermost container if all its values have been read: its
    /// [`End`](super::Event::End) without building the event (for the fast path's readers, whose
    /// containers end on the cursor); `false` otherwise.
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn close(&mut self) -> bool {
        if self.state == State::Running && self.top.remaining == 0 {
            self.pop();
            true
        } else {
            false
        }
    }

    /// Takes back the cursor that [`plain`](Walker::plain) handed out (nothing else in
    /// between), with what was read on it: the walk goes on after the values it took (the
    /// reader on the cursor counted their bytes).
    #[inline]
    pub(crate) fn resume(&mut self, p: Plain<'a>) {
        // Only the length of the bytes left is taken: their pointer follows from the walker's
        // own, and loading the cursor's slice whole (16 bytes a fast path had just stored as two
        // halves) stalls the store forwarding.
        self.r = self.r.with_rest_len(p.rest.len());
        if self.state == State::Running && self.plain {
            self.top.remaining = p.left;
        } else if p.left == 0 {
            // The one value of the cursor was taken: the top value, or a property's.
            if self.state == State::Start {
                self.state = State::Done;
            } else {
                self.top.remaining -= 1;
                self.named = false;
            }
        }
    }

    /// [`resume`](Walker::resume) where the last value taken on the cursor is the head of an
    /// untyped Array or Dictionary (`body`) of `count` elements or pairs: the container is open.
    #[cfg(feature = "serde")]
    // in_serde +6 % time without it (layout-pinned A/B; it is outlined then)
    #[inline(always)]
    pub(crate) fn resume_open(&mut self, p: Plain<'a>, count: u32, body: Body) {
        self.resume(p);
        self.push(Frame::of(count, body));
    }

    /// A cursor at the next value, if a value is due: the top value not begun yet, or the next
    /// element, key or value of the innermost container (in a full object, the value after its
    /// property name). Neither the depth limit nor the `script` rule is checked: this is for
    /// peeking at the header.
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn value_due(&self) -> Option<Reader<'a>> {
        match self.state {
            State::Running
                if self.top.remaining > 0 && (self.top.kind != Kind::Object || self.named) =>
            {
                Some(self.r)
            }
            State::Start => Some(self.r),
            _ => None,
        }
    }

    /// A copy of the cursor, wherever the walk is (for re-reading bytes already walked, on an
    /// error path).
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn cursor(&self) -> Reader<'a> {
        self.r
    }

    /// Whether the walk is over: the top value complete, or an error (or
    /// [`stop`](Walker::stop)) ended it.
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn is_over(&self) -> bool {
        self.state == State::Done
    }

    /// Ends the walk (after an error a fast path met part-way through a value).
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn stop(&mut self) {
        self.state = State::Done;
    }
}
