//! [`Walker`]: the one pull-event walk of a whole value, under every full walk in the crate.
//!
//! A walker reads a value front to back once and reports what it meets as [`Event`]s: the
//! beginning of a container (with its count and type info), the name of an object's property,
//! every other value (sized, exactly its bytes), and the end of a container. It checks
//! everything [`validate`](crate::validate()) checks — bounds, strings, type ids, depth, the
//! object policy and the `script` property rule — because `validate` runs the same walk and
//! ignores its events. It never recurses on the native stack. A walker is small (256 bytes:
//! cheap to make and to move) and keeps the open containers of the first
//! [`INLINE_DEPTH`](Walker::INLINE_DEPTH) levels inline; deeper ones spill to the heap, about 4
//! bytes a level, reserved at once up to the engine's depth limit. The walks that produce no
//! events —
//! [`validate`](crate::validate()), [`Walker::next_value`], [`Walker::skip_container`],
//! [`Walker::finish`] and every sizing walk of the lazy views — keep their frames on the native
//! stack and never allocate within the engine's depth limit ([`ENGINE_MAX_DEPTH`]).
//!
//! [`validate`](crate::validate()), [`VariantRef::to_owned`], the text, JSON and tree
//! printers, `stats` and the serde deserializer all run on it, each in one linear pass:
//! nothing is read twice, whatever the nesting depth.
//!
//! ```
//! use gdvariant::{Event, ReadOptions, Walker};
//! // var_to_bytes({"hp": [1, 2]}) in Godot 4
//! let bytes = [
//!     27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, b'h', b'p', 0, 0, // {"hp":
//!     28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, // [1, 2]}
//! ];
//! let mut w = Walker::new(&bytes, &ReadOptions::new());
//! let mut ints = 0;
//! while let Some(event) = w.next_event()? {
//!     match event {
//!         Event::Begin(c) => println!("{:?} of {} at depth {}", c.ty(), c.count(), c.depth()),
//!         Event::Value(v) if v.as_i64().is_ok() => ints += v.as_i64()?,
//!         _ => {}
//!     }
//! }
//! assert_eq!(ints, 3);
//! assert_eq!(w.offset(), bytes.len());
//! # Ok::<(), gdvariant::Error>(())
//! ```

use alloc::vec::Vec;
use core::iter::FusedIterator;

use arrayvec::ArrayVec;

use crate::error::Result;
use crate::head::{
    check_script, head, head_at, is_fixed, is_script, out_of_line, read_string, skip_fixed,
    skip_plain, skip_strings, too_deep, Body, Head,
};
use crate::reader::{counted, Reader};
use crate::strings::{self, Text};
use crate::types::{Layout, ReadOptions, Shape, ENGINE_MAX_DEPTH};
use crate::value::VariantRef;

/// One step of a walk; see [`Walker::next_event`].
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A container begins: an Array, a Dictionary, or a full Object with a class name. The view
    /// is *unsized* (its body has not been read): its count ([`VariantRef::count`]), type info
    /// ([`ArrayRef::element_type`](crate::ArrayRef::element_type),
    /// [`DictionaryRef::key_value_types`](crate::DictionaryRef::key_value_types)) and class
    /// name ([`VariantRef::as_object`]) are O(1); its elements follow as events — for a
    /// Dictionary key, value, key, value…; for an Object a [`Property`](Event::Property) before
    /// each value — and then its [`End`](Event::End). (Its [`raw`](VariantRef::raw) bytes would
    /// walk it a second time: use [`Walker::next_value`] to read a container whole instead.)
    Begin(VariantRef<'a>),
    /// The name of the next property of a full object; the property's value follows.
    Property(Text<'a>),
    /// Any value that is not a container with elements: scalars, strings, math types,
    /// NodePaths, packed arrays (PackedStringArray included), object ids, null objects. The
    /// view is sized: [`raw`](VariantRef::raw) is exactly its bytes, O(1).
    Value(VariantRef<'a>),
    /// The innermost open container ends.
    End,
}

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
    #[inline(always)]
    pub(crate) fn bytes(&self) -> Option<&'a [u8]> {
        (self.left > 0).then_some(self.rest)
    }

    /// Takes a value of `n` bytes read whole from [`bytes`](Plain::bytes).
    #[inline(always)]
    pub(crate) fn take(&mut self, n: usize) {
        counted(n);
        self.rest = self.rest.get(n..).unwrap_or(&[]);
        self.left -= 1;
    }

    /// Takes a Dictionary's key and value, `n` bytes together, read whole from
    /// [`bytes`](Plain::bytes) at a key.
    #[inline(always)]
    pub(crate) fn take_pair(&mut self, n: usize) {
        counted(n);
        self.rest = self.rest.get(n..).unwrap_or(&[]);
        self.left = self.left.saturating_sub(2);
    }

    /// Takes a value that a cursor from [`reader`](Plain::reader) read (and counted): `rest` is
    /// what that cursor left.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn take_to(&mut self, rest: &'a [u8]) {
        self.rest = rest;
        self.left -= 1;
    }
}

/// Which kind of container a frame walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Array,
    Dictionary,
    Object,
}

/// An open container: how many values it still holds (a dictionary counts keys and values)
/// and of which kind it is.
#[derive(Clone, Copy, Debug)]
struct Frame {
    remaining: u32,
    kind: Kind,
}

impl Frame {
    const NONE: Frame = Frame {
        remaining: 0,
        kind: Kind::Array,
    };

    /// The frame of a container with `count` elements / pairs / properties.
    #[inline(always)]
    fn of(count: u32, body: Body) -> Frame {
        match body {
            // count <= 2^31 - 1 (bit 31 masked), so keys plus values fit in a u32.
            Body::Dictionary => Frame {
                remaining: count.saturating_mul(2),
                kind: Kind::Dictionary,
            },
            Body::Object => Frame {
                remaining: count,
                kind: Kind::Object,
            },
            Body::Array | Body::Strings => Frame {
                remaining: count,
                kind: Kind::Array,
            },
        }
    }
}

/// The frames of the event-free walks: on the native stack, `N` of them inline, the rest on
/// the heap (only past `N` levels, with a depth limit raised beyond the engine's).
struct Frames<const N: usize> {
    inline: ArrayVec<Frame, N>,
    spill: Vec<Frame>,
}

impl<const N: usize> Frames<N> {
    #[inline(always)]
    fn new() -> Self {
        Frames {
            inline: ArrayVec::new_const(),
            spill: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, f: Frame) {
        if self.spill.is_empty() && !self.inline.is_full() {
            self.inline.push(f);
        } else {
            self.push_spill(f);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_spill(&mut self, f: Frame) {
        self.spill.push(f);
    }

    /// The frame pushed last; `None` when empty.
    #[inline(always)]
    fn pop(&mut self) -> Option<Frame> {
        if self.spill.is_empty() {
            self.inline.pop()
        } else {
            self.spill.pop()
        }
    }
}

/// A walker's frames below the innermost: each frame's remaining count (a `u32`: at most
/// 2^32 - 2, a dictionary counting keys and values) and, in a bitset beside, whether it is an
/// object's. The first [`Walker::INLINE_DEPTH`] frames are inline; deeper ones spill to the
/// heap, which is reserved up to the depth limit (at most the engine's) at the first spill:
/// about 4 KiB for any input the engine reads.
#[derive(Clone, Debug)]
struct Stack {
    inline: ArrayVec<u32, { Walker::INLINE_DEPTH }>,
    /// Bit `i`: inline frame `i` is an object's.
    inline_objects: u32,
    spill: Vec<u32>,
    /// Bit `i % 32` of word `i / 32`: spilled frame `i` is an object's.
    spill_objects: Vec<u32>,
}

// One bit for each inline frame.
const _: () = assert!(Walker::INLINE_DEPTH == 32);

impl Stack {
    #[inline(always)]
    fn new() -> Stack {
        Stack {
            // (Not `new_const`: built from that constant, the inline frames were zeroed, 128
            // bytes of stores at every walker's construction.)
            inline: ArrayVec::new(),
            inline_objects: 0,
            spill: Vec::new(),
            spill_objects: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, f: Frame, max_depth: u32) {
        let object = f.kind == Kind::Object;
        if self.spill.is_empty() && !self.inline.is_full() {
            let bit = 1 << self.inline.len();
            if object {
                self.inline_objects |= bit;
            } else {
                self.inline_objects &= !bit;
            }
            self.inline.push(f.remaining);
        } else {
            self.push_spill(f.remaining, object, max_depth);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_spill(&mut self, remaining: u32, object: bool, max_depth: u32) {
        if self.spill.capacity() == 0 {
            let limit = max_depth.min(ENGINE_MAX_DEPTH) as usize + 1;
            let frames = limit.saturating_sub(Walker::INLINE_DEPTH).max(1);
            self.spill.reserve_exact(frames);
            self.spill_objects.reserve_exact(frames.div_ceil(32));
        }
        let i = self.spill.len();
        if i % 32 == 0 && self.spill_objects.len() == i / 32 {
            self.spill_objects.push(0);
        }
        if let Some(bits) = self.spill_objects.get_mut(i / 32) {
            let bit = 1 << (i % 32);
            if object {
                *bits |= bit;
            } else {
                *bits &= !bit;
            }
        }
        self.spill.push(remaining);
    }

    /// The frame pushed last (the walker pops only what it pushed).
    #[inline(always)]
    fn pop(&mut self) -> Frame {
        let (remaining, object) = match self.spill.pop() {
            Some(r) => {
                let i = self.spill.len();
                let bits = self.spill_objects.get(i / 32).copied().unwrap_or(0);
                (r, bits >> (i % 32) & 1 != 0)
            }
            None => {
                let r = self.inline.pop().unwrap_or(0);
                (r, self.inline_objects >> self.inline.len() & 1 != 0)
            }
        };
        // An object or an array: dictionaries walk as arrays (the walker tells them apart
        // only by objects' property names).
        let kind = if object { Kind::Object } else { Kind::Array };
        Frame { remaining, kind }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// The top value's head is still to read.
    Start,
    /// Inside the top value's containers.
    Running,
    /// The top value is complete, or an error ended the walk.
    Done,
}

/// The pull-event walker; see the [module docs](self).
///
/// After an error the walk is over: [`next_event`](Walker::next_event) returns `Ok(None)`.
#[derive(Clone, Debug)]
#[must_use = "a walker does nothing unless stepped"]
pub struct Walker<'a> {
    r: Reader<'a>,
    opts: ReadOptions,
    /// The depth of the walk's top value.
    base: u32,
    state: State,
    /// Whether the name of the innermost object's next property has been read.
    named: bool,
    /// Whether the next value is a Godot 4 `script` property.
    script: bool,
    /// How many containers are open.
    open: u32,
    /// The innermost open container (meaningful while `open > 0`).
    top: Frame,
    /// Whether the innermost open container is an Array or a Dictionary whose values are within
    /// the depth limit: its values take the fast path ([`plain`](Walker::plain)) without
    /// further checks.
    plain: bool,
    /// The absolute offset of the last property name's bytes.
    name_at: usize,
    /// The open containers below the innermost one.
    stack: Stack,
}

// Cheap to make and to move (serde's deserializer holds one by value): a few cache lines.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<Walker<'static>>() <= 256);

impl<'a> Walker<'a> {
    /// How many levels of open containers a walker keeps inline (besides the innermost); the
    /// first container opened deeper reserves about 4 bytes a level on the heap up to the
    /// engine's depth limit (the event-free walks never allocate within that limit).
    pub const INLINE_DEPTH: usize = 32;

    /// A walker over the one value at the start of `bytes` (bytes after it are not read; see
    /// [`offset`](Walker::offset) for where it ended). O(1): nothing is read until stepped.
    #[inline]
    pub fn new(bytes: &'a [u8], opts: &ReadOptions) -> Walker<'a> {
        Walker::at(Reader::new(bytes, 0), 0, *opts)
    }

    /// A walker over the value `v` (re-reading its head, so that everything in it is checked),
    /// with its depth and options. Offsets stay those of the whole input.
    #[inline]
    pub fn from_value(v: VariantRef<'a>) -> Walker<'a> {
        Walker::at(Reader::new(v.h.data, v.h.offset), v.depth(), v.options())
    }

    #[inline(always)]
    fn at(r: Reader<'a>, base: u32, opts: ReadOptions) -> Walker<'a> {
        Walker {
            r,
            opts,
            base,
            state: State::Start,
            named: false,
            script: false,
            open: 0,
            top: Frame::NONE,
            plain: false,
            name_at: 0,
            stack: Stack::new(),
        }
    }

    /// The next event, or `Ok(None)` once the top value is complete (or after an error).
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        self.next_event_inline()
    }

    /// [`next_event`](Walker::next_event), always inlined: the crate's own event loops
    /// (`to_owned`, serde) keep the event in registers instead of returning it through memory.
    #[inline(always)]
    pub(crate) fn next_event_inline(&mut self) -> Result<Option<Event<'a>>> {
        match self.step() {
            Ok(e) => Ok(e),
            Err(e) => {
                self.state = State::Done;
                Err(e)
            }
        }
    }

    /// Reads the next value whole, as a sized view: a container is walked (and checked)
    /// without events, and its view's [`raw`](VariantRef::raw) is then O(1). In a full object,
    /// call it after the [`Property`](Event::Property) event (a property name still due is
    /// read and dropped). `Ok(None)` at the end of the innermost container (its
    /// [`End`](Event::End) is still to come) or of the walk.
    pub fn next_value(&mut self) -> Result<Option<VariantRef<'a>>> {
        if self.state == State::Running && self.top.remaining == 0 {
            return Ok(None);
        }
        loop {
            match self.next_event()? {
                None | Some(Event::End) => return Ok(None),
                Some(Event::Property(_)) => continue,
                Some(Event::Value(v)) => return Ok(Some(v)),
                Some(Event::Begin(v)) => {
                    self.skip_container()?;
                    let len = self.r.offset() - v.offset();
                    return Ok(Some(v.sized_to(len)));
                }
            }
        }
    }

    /// Skips the rest of the innermost open container (checking it as it goes), its
    /// [`End`](Event::End) included: call it after a [`Begin`](Event::Begin) whose elements you
    /// do not want as events. Does nothing when no container is open.
    pub fn skip_container(&mut self) -> Result<()> {
        if self.state != State::Running {
            return Ok(());
        }
        self.skip_until(self.open - 1)
    }

    /// Walks to the end of the top value (without events); returns the offset just after it.
    pub fn finish(&mut self) -> Result<usize> {
        if self.state == State::Start {
            self.next_event()?;
        }
        if self.state == State::Running {
            self.skip_until(0)?;
        }
        Ok(self.r.offset())
    }

    /// The absolute offset of the next byte to read (after the whole value once the walk is
    /// complete).
    #[inline]
    pub fn offset(&self) -> usize {
        self.r.offset()
    }

    /// The depth of the next value: the top value's depth plus the open containers.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.base + self.open
    }

    /// The options the walk checks against.
    #[inline]
    pub fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// How many values (a dictionary counts keys and values; an object its properties) the
    /// innermost open container still holds; 0 when none is open.
    #[inline]
    pub fn remaining(&self) -> usize {
        if self.state == State::Running {
            self.top.remaining as usize
        } else {
            0
        }
    }

    /// The input bytes not read yet: every value takes at least 4 of them, so
    /// `bytes_left() / 4` bounds how many values can still come (a size hint that an input
    /// cannot inflate).
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn bytes_left(&self) -> usize {
        self.r.remaining()
    }

    /// The absolute offset of the last [`Property`](Event::Property) name's bytes.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn name_at(&self) -> usize {
        self.name_at
    }

    // ----- the fast path: the next plain value -----

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
    #[inline(always)]
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
    #[inline(always)]
    fn cursor_of(&self, left: u32) -> Plain<'a> {
        Plain {
            rest: self.r.rest(),
            left,
        }
    }

    /// The absolute offset of the next value on `p`, a cursor this walker handed out.
    #[inline(always)]
    pub(crate) fn offset_of(&self, p: &Plain<'a>) -> usize {
        self.r.end() - p.rest.len()
    }

    /// A reading cursor at the next value on `p`, a cursor this walker handed out (its bytes
    /// before that counted by whoever read them).
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn reader_of(&self, p: &Plain<'a>) -> Reader<'a> {
        // (The cursor's own slice, not the suffix of the walker's of its length: a fast path
        // that declines then reads nothing of the walker's.)
        self.r.with_rest(p.rest)
    }

    /// Closes the innermost container if all its values have been read: its
    /// [`End`](Event::End) without building the event (for the fast path's readers, whose
    /// containers end on the cursor); `false` otherwise.
    #[cfg(feature = "serde")]
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
    pub(crate) fn is_over(&self) -> bool {
        self.state == State::Done
    }

    /// Ends the walk (after an error a fast path met part-way through a value).
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn stop(&mut self) {
        self.state = State::Done;
    }

    // ----- the steps -----

    /// Walks on without events until only `target` containers are open (`target < open`):
    /// each open container is finished by the event-free walk ([`skip_rest`]), then popped.
    fn skip_until(&mut self, target: u32) -> Result<()> {
        let mut pending = Pending {
            named: self.named,
            script: self.script,
        };
        self.named = false;
        self.script = false;
        let res = loop {
            let depth = self.base + self.open;
            if let Err(e) = skip_rest::<true>(&mut self.r, self.top, pending, depth, &self.opts) {
                break Err(e);
            }
            pending = Pending::NONE;
            self.pop();
            if self.open == target {
                break Ok(());
            }
        };
        if res.is_err() {
            self.state = State::Done;
        }
        res
    }

    #[inline(always)]
    fn step(&mut self) -> Result<Option<Event<'a>>> {
        if self.state != State::Running {
            if self.state == State::Done {
                return Ok(None);
            }
            self.state = State::Done;
            let h = head(&mut self.r, self.base, &self.opts, true)?;
            return self.value(h, self.base).map(Some);
        }
        if self.top.remaining == 0 {
            self.pop();
            return Ok(Some(Event::End));
        }
        if self.top.kind == Kind::Object && !self.named {
            let (raw, at) = self.r.read_string_raw()?;
            let (t, skipped) = strings::engine_text(raw);
            strings::check(t, self.opts.dialect, at + skipped)?;
            self.script = is_script(t, self.opts.dialect);
            self.named = true;
            self.name_at = at;
            return Ok(Some(Event::Property(Text::new(t))));
        }
        self.top.remaining -= 1;
        self.named = false;
        let depth = self.base + self.open;
        let h = head(&mut self.r, depth, &self.opts, true)?;
        if self.script {
            self.script = false;
            check_script(h)?;
        }
        self.value(h, depth).map(Some)
    }

    /// The event for the value whose head `h` (at `depth`) was just read; opens a container.
    #[inline(always)]
    fn value(&mut self, h: Head<'a>, depth: u32) -> Result<Event<'a>> {
        match h.body() {
            None => Ok(Event::Value(VariantRef::new(h, depth, self.opts))),
            Some(Body::Strings) => {
                skip_strings(&mut self.r, h.count, self.opts.dialect, true)?;
                let len = self.r.offset() - h.offset;
                Ok(Event::Value(VariantRef::new(
                    h.sized_to(len),
                    depth,
                    self.opts,
                )))
            }
            Some(body) => {
                self.push(Frame::of(h.count, body));
                Ok(Event::Begin(VariantRef::new(h, depth, self.opts)))
            }
        }
    }

    #[inline(always)]
    fn push(&mut self, f: Frame) {
        if self.open > 0 {
            self.stack.push(self.top, self.opts.max_depth);
        }
        self.top = f;
        self.open += 1;
        self.state = State::Running;
        self.plain = self.plain_top();
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.open -= 1;
        if self.open > 0 {
            self.top = self.stack.pop();
            self.plain = self.plain_top();
        } else {
            self.state = State::Done;
        }
    }

    /// Whether the innermost open container is plain (see [`Walker::plain`]'s field).
    #[inline(always)]
    fn plain_top(&self) -> bool {
        self.top.kind != Kind::Object && self.base + self.open <= self.opts.max_depth
    }
}

impl<'a> Iterator for Walker<'a> {
    type Item = Result<Event<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}

impl FusedIterator for Walker<'_> {}

/// The state of an object's property at the start of a skip: its name already read, and
/// whether that name is `script`.
#[derive(Clone, Copy)]
struct Pending {
    named: bool,
    script: bool,
}

impl Pending {
    const NONE: Pending = Pending {
        named: false,
        script: false,
    };
}

/// The event-free walk under `validate` and every skip: walks the rest of the open container
/// `top`, whose values are at `depth`, and returns once it is complete. Nested containers are
/// kept in frames on the native stack (no allocation within the engine's depth limit). Each
/// pass of the outer loop reads the values of the innermost container until it ends or a
/// nested container opens; the depth of a container's values is checked once, before the
/// first (an object's after each property name, which comes first).
#[inline(never)]
fn skip_rest<const CHECK: bool>(
    r: &mut Reader<'_>,
    top: Frame,
    pending: Pending,
    depth: u32,
    opts: &ReadOptions,
) -> Result<()> {
    // The cursor in a local, so that it lives in registers.
    let mut local = *r;
    let res = skip_rest_in::<CHECK>(&mut local, top, pending, depth, opts);
    *r = local;
    res
}

#[inline(always)]
fn skip_rest_in<const CHECK: bool>(
    r: &mut Reader<'_>,
    mut top: Frame,
    mut pending: Pending,
    mut depth: u32,
    opts: &ReadOptions,
) -> Result<()> {
    let mut stack: Frames<{ ENGINE_MAX_DEPTH as usize }> = Frames::new();
    'outer: loop {
        if top.remaining > 0 {
            if top.kind != Kind::Object {
                if depth > opts.max_depth {
                    return Err(too_deep(r.offset(), opts));
                }
                let table = opts.dialect.layouts();
                loop {
                    // A run of plain values on the slice; the first other value (or any
                    // error) the exact way.
                    let (taken, left) = skip_plain_run::<CHECK>(r.rest(), top.remaining, table);
                    r.advance(taken);
                    top.remaining = left;
                    if left == 0 {
                        break;
                    }
                    top.remaining -= 1;
                    let h = head_at(r, opts, CHECK)?;
                    match h.body() {
                        None => {}
                        Some(Body::Strings) => skip_strings(r, h.count, opts.dialect, CHECK)?,
                        Some(body) => {
                            stack.push(top);
                            top = Frame::of(h.count, body);
                            depth += 1;
                            continue 'outer;
                        }
                    }
                    if top.remaining == 0 {
                        break;
                    }
                }
            } else {
                loop {
                    top.remaining -= 1;
                    if !pending.named {
                        pending.script = out_of_line(r, |r| read_name(r, opts, CHECK))?;
                    }
                    pending.named = false;
                    let h = head(r, depth, opts, CHECK)?;
                    if pending.script {
                        pending.script = false;
                        check_script(h)?;
                    }
                    match h.body() {
                        None => {}
                        Some(Body::Strings) => skip_strings(r, h.count, opts.dialect, CHECK)?,
                        Some(body) => {
                            stack.push(top);
                            top = Frame::of(h.count, body);
                            depth += 1;
                            continue 'outer;
                        }
                    }
                    if top.remaining == 0 {
                        break;
                    }
                }
            }
        }
        match stack.pop() {
            Some(f) => {
                top = f;
                depth -= 1;
            }
            None => return Ok(()),
        }
    }
}

/// Skips up to `n` plain values (see [`skip_plain`]) at the start of `rest`; returns the bytes
/// taken and how many of the `n` are left.
#[inline(always)]
fn skip_plain_run<const CHECK: bool>(
    rest: &[u8],
    mut n: u32,
    table: &[Layout; 512],
) -> (usize, u32) {
    let all = rest.len();
    let mut rest = rest;
    while n > 0 {
        match skip_plain::<CHECK>(rest, table) {
            Some(next) => {
                rest = next;
                n -= 1;
            }
            None => break,
        }
    }
    (all - rest.len(), n)
}

/// Reads a property name, checking its text with `check`; returns whether it names the Godot 4
/// `script` property.
#[inline(never)]
fn read_name(r: &mut Reader<'_>, opts: &ReadOptions, check: bool) -> Result<bool> {
    let t = read_string(r, opts.dialect, check)?;
    Ok(is_script(t, opts.dialect))
}

// ----- crate-internal walks -----

/// Walks the body of the value whose head `h` (at `depth`) was just read at `r`, leaving `r`
/// after the whole value. With `check`, everything `validate` checks is checked.
#[inline(always)]
pub(crate) fn skip_body<'a>(
    r: &mut Reader<'a>,
    h: &Head<'a>,
    depth: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<()> {
    match h.body() {
        None => Ok(()),
        Some(Body::Strings) => skip_strings(r, h.count, opts.dialect, check),
        Some(body) => {
            let top = Frame::of(h.count, body);
            // On a copy of the cursor: the caller's stays in registers.
            if check {
                out_of_line(r, |r| skip_container::<true>(r, top, depth + 1, opts))
            } else {
                out_of_line(r, |r| skip_container::<false>(r, top, depth + 1, opts))
            }
        }
    }
}

/// Walks the container `top` (its values at `depth`): an array or dictionary of plain values
/// (a flat packet) on the slice alone, anything else by [`skip_rest`] from the first value that
/// is not plain.
#[inline(never)]
fn skip_container<const CHECK: bool>(
    r: &mut Reader<'_>,
    mut top: Frame,
    depth: u32,
    opts: &ReadOptions,
) -> Result<()> {
    if top.kind != Kind::Object && depth <= opts.max_depth {
        let table = opts.dialect.layouts();
        let (taken, left) = skip_plain_run::<CHECK>(r.rest(), top.remaining, table);
        r.advance(taken);
        if left == 0 {
            return Ok(());
        }
        top.remaining = left;
    }
    skip_rest::<CHECK>(r, top, Pending::NONE, depth, opts)
}

/// Validates one value at the cursor, leaving the cursor after it.
#[inline]
pub(crate) fn validate_at(r: &mut Reader<'_>, depth: u32, opts: &ReadOptions) -> Result<()> {
    let h = head(r, depth, opts, true)?;
    skip_body(r, &h, depth, opts, true)
}

/// Reads one whole value at the cursor as a sized view (a body is walked, its strings not
/// checked: that happens on access).
#[inline]
pub(crate) fn read_value<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    opts: &ReadOptions,
) -> Result<VariantRef<'a>> {
    let h = head(r, depth, opts, false)?;
    if h.sized() {
        return Ok(VariantRef::new(h, depth, *opts));
    }
    skip_body(r, &h, depth, opts, false)?;
    let len = r.offset() - h.offset;
    Ok(VariantRef::new(h.sized_to(len), depth, *opts))
}

/// Skips one whole value at the cursor.
#[inline]
pub(crate) fn skip_value(r: &mut Reader<'_>, depth: u32, opts: &ReadOptions) -> Result<()> {
    if depth > opts.max_depth {
        return Err(too_deep(r.offset(), opts));
    }
    skip_one(r, depth, opts)
}

/// Skips one whole value at the cursor, at `depth` (which the caller checked), its strings
/// unchecked. Fixed-size values and strings are skipped inline; anything else out of line, on
/// a copy of the cursor.
#[inline(always)]
pub(crate) fn skip_one(r: &mut Reader<'_>, depth: u32, opts: &ReadOptions) -> Result<()> {
    if let Some(header) = r.peek_u32() {
        let l = opts.dialect.layout(header);
        match l.shape {
            Shape::Str => {
                r.skip(4)?;
                return r.read_string_padded().map(drop);
            }
            fixed if is_fixed(fixed) => {
                r.skip(4)?;
                return skip_fixed(r, fixed);
            }
            _ => {}
        }
    }
    out_of_line(r, |r| skip_other(r, depth, opts))
}

/// The other cases of [`skip_one`].
#[inline(never)]
fn skip_other(r: &mut Reader<'_>, depth: u32, opts: &ReadOptions) -> Result<()> {
    let h = head_at(r, opts, false)?;
    skip_body(r, &h, depth, opts, false)
}

/// Skips `n` whole values at the cursor, at `depth`, their strings unchecked: the event-free
/// walk over them as over the elements of an array.
pub(crate) fn skip_values(
    r: &mut Reader<'_>,
    n: u32,
    depth: u32,
    opts: &ReadOptions,
) -> Result<()> {
    let top = Frame {
        remaining: n,
        kind: Kind::Array,
    };
    skip_rest::<false>(r, top, Pending::NONE, depth, opts)
}

/// The whole-value reads of a view, which walk its body.
impl<'a> VariantRef<'a> {
    /// The value's exact encoded bytes, header included, borrowed from the input: forward a
    /// sub-tree unchanged with these. For a container whose end is not yet known this walks it
    /// (without allocating) and reports the first structural error.
    pub fn raw(&self) -> Result<&'a [u8]> {
        if self.h.sized() {
            return Ok(self.h.data);
        }
        let mut r = self.h.body_reader();
        skip_body(&mut r, &self.h, self.depth, &self.opts, false)?;
        Ok(self
            .h
            .data
            .get(..r.offset() - self.h.offset)
            .unwrap_or(self.h.data))
    }

    /// The number of bytes the value occupies (see [`raw`](VariantRef::raw)).
    pub fn byte_len(&self) -> Result<usize> {
        self.raw().map(<[u8]>::len)
    }

    /// Returns the value with its size determined (walking its body if needed), so that
    /// [`raw`](VariantRef::raw) is O(1) afterwards.
    pub fn sized(self) -> Result<VariantRef<'a>> {
        let len = self.raw()?.len();
        Ok(self.sized_to(len))
    }

    /// Validates the whole value (every bound, every string's UTF-8, depth, object policy) and
    /// returns its length in bytes; see [`validate`](crate::validate()).
    pub fn validate(&self) -> Result<usize> {
        let mut r = Reader::new(self.h.data, self.h.offset);
        validate_at(&mut r, self.depth, &self.opts)?;
        Ok(r.pos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walker::Event;

    #[test]
    fn frames_below_the_innermost_keep_their_count_and_kind() {
        // {[]: …} declaring 2^31 - 1 pairs, its first key an empty array (2^32 - 3 keys and
        // values left once it ends), inside as many arrays as the walker keeps inline and more.
        for outer in [0, Walker::INLINE_DEPTH - 1, Walker::INLINE_DEPTH + 5] {
            let mut bytes = [28, 0, 0, 0, 1, 0, 0, 0].repeat(outer);
            bytes.extend_from_slice(&[27, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]);
            bytes.extend_from_slice(&[28, 0, 0, 0, 0, 0, 0, 0]);
            let mut w = Walker::new(&bytes, &ReadOptions::new());
            for _ in 0..outer + 2 {
                assert!(matches!(w.next_event(), Ok(Some(Event::Begin(_)))));
            }
            assert_eq!(w.remaining(), 0);
            assert!(matches!(w.next_event(), Ok(Some(Event::End))));
            assert_eq!(w.remaining(), 0xFFFF_FFFD, "outer {outer}");
            assert_eq!(w.depth(), outer as u32 + 1);
        }
    }

    #[test]
    fn objects_below_the_innermost_stay_objects() {
        let opts = ReadOptions::new().with_full_objects(true);
        // Node{"a": [Node{"b": 1}], "c": 2} nested inside enough arrays to spill.
        for outer in [0, Walker::INLINE_DEPTH + 3] {
            let mut bytes = [28, 0, 0, 0, 1, 0, 0, 0].repeat(outer);
            let object = |props: u8| {
                let mut b = alloc::vec![24, 0, 0, 0, 4, 0, 0, 0, b'N', b'o', b'd', b'e'];
                b.extend_from_slice(&[props, 0, 0, 0]);
                b
            };
            let name = |c: u8| [1, 0, 0, 0, c, 0, 0, 0];
            bytes.extend_from_slice(&object(2));
            bytes.extend_from_slice(&name(b'a'));
            bytes.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
            bytes.extend_from_slice(&object(1));
            bytes.extend_from_slice(&name(b'b'));
            bytes.extend_from_slice(&[2, 0, 0, 0, 1, 0, 0, 0]);
            bytes.extend_from_slice(&name(b'c'));
            bytes.extend_from_slice(&[2, 0, 0, 0, 2, 0, 0, 0]);
            let mut w = Walker::new(&bytes, &opts);
            let mut names = alloc::vec::Vec::new();
            while let Some(e) = w.next_event().unwrap() {
                if let Event::Property(t) = e {
                    names.push(t.as_str().unwrap().as_bytes()[0]);
                }
            }
            assert_eq!(names, b"abc", "outer {outer}");
            assert_eq!(w.offset(), bytes.len());
        }
    }
}
