//! [`Walker`]: the one pull-event walk of a whole value, under every full walk in the crate.
//!
//! A walker reads a value front to back once and reports what it meets as [`Event`]s: the
//! beginning of a container (with its count and type info), the name of an object's property,
//! every other value (sized, exactly its bytes), and the end of a container. It checks
//! everything [`validate`](crate::validate()) checks — bounds, strings, type ids, depth, the
//! object policy and the `script` property rule — because `validate` *is* a walker that
//! ignores its events. It never recurses on the native stack and, within the engine's depth
//! limit, never allocates: the open containers are kept in an inline stack of
//! [`ENGINE_MAX_DEPTH`] frames (only a depth limit raised beyond the engine's spills the frames
//! below onto the heap, 8 bytes a level).
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
use crate::head::{check_script, head, skip_strings, Body, Head};
use crate::reader::Reader;
use crate::text::{self, Text};
use crate::types::{Dialect, ReadOptions, ENGINE_MAX_DEPTH};
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

    /// The frame of the container whose head `h` was just read (`None` for other values).
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

/// The frames below the innermost one: inline up to the engine's depth limit, on the heap
/// beyond it (only reachable with a depth limit raised past the engine's).
#[derive(Clone, Debug, Default)]
struct Stack {
    remaining: ArrayVec<u32, { ENGINE_MAX_DEPTH as usize }>,
    kinds: ArrayVec<Kind, { ENGINE_MAX_DEPTH as usize }>,
    spill: Vec<Frame>,
}

impl Stack {
    #[inline]
    fn push(&mut self, f: Frame) {
        if self.spill.is_empty() && !self.remaining.is_full() {
            self.remaining.push(f.remaining);
            self.kinds.push(f.kind);
        } else {
            self.spill.push(f);
        }
    }

    #[inline]
    fn pop(&mut self) -> Frame {
        if let Some(f) = self.spill.pop() {
            return f;
        }
        match (self.remaining.pop(), self.kinds.pop()) {
            (Some(remaining), Some(kind)) => Frame { remaining, kind },
            // Unreachable: pops match pushes (the walker counts its open containers).
            _ => Frame::NONE,
        }
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
    /// Whether strings and the script rule are checked (always, but for crate-internal sizing
    /// walks whose strings are checked when they are read).
    check: bool,
    /// The depth of the walk's top value.
    base: u32,
    state: State,
    /// How many containers are open.
    open: u32,
    /// The innermost open container (meaningful while `open > 0`).
    top: Frame,
    /// Whether the name of the innermost object's next property has been read.
    named: bool,
    /// Whether the next value is a Godot 4 `script` property.
    script: bool,
    /// The absolute offset of the last property name's bytes.
    name_at: usize,
    stack: Stack,
}

impl<'a> Walker<'a> {
    /// A walker over the one value at the start of `bytes` (bytes after it are not read; see
    /// [`offset`](Walker::offset) for where it ended).
    pub fn new(bytes: &'a [u8], opts: &ReadOptions) -> Walker<'a> {
        Walker::at(Reader::new(bytes, 0), 0, *opts, true)
    }

    /// A walker over the value `v` (re-reading its head, so that everything in it is checked),
    /// with its depth and options. Offsets stay those of the whole input.
    pub fn from_value(v: VariantRef<'a>) -> Walker<'a> {
        Walker::at(
            Reader::new(v.h.data, v.h.offset),
            v.depth(),
            v.options(),
            true,
        )
    }

    #[inline]
    fn at(r: Reader<'a>, base: u32, opts: ReadOptions, check: bool) -> Walker<'a> {
        Walker {
            r,
            opts,
            check,
            base,
            state: State::Start,
            open: 0,
            top: Frame::NONE,
            named: false,
            script: false,
            name_at: 0,
            stack: Stack::default(),
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

    // ----- the serde deserializer's fast paths -----
    //
    // The deserializer reads the commonest values (scalars, strings, math types, the heads of
    // untyped containers, PackedStringArrays) straight from a copy of the walker's cursor and
    // then commits that copy here, instead of building an event. A fast path reads only what it
    // knows to be well-formed by the very checks `head` makes (bounds, UTF-8 by the dialect's
    // rules); on anything else it declines, consuming nothing, and the event path reads the
    // value and reports any error exactly as `validate` does.

    /// A copy of the cursor at the next value, if a value is due: the top value not begun yet,
    /// or the next element, key or value of the innermost container (in a full object, the
    /// value after its property name). Neither the depth limit nor the `script` rule is
    /// checked: this is for peeking at the header.
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

    /// [`value_due`](Walker::value_due), when the value may be read by a fast path: within
    /// the depth limit, no `script` rule pending, everything checked (`check`).
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn leaf_slot(&self) -> Option<Reader<'a>> {
        // Serde walkers check everything (`Walker::new`, `Walker::from_value`).
        debug_assert!(self.check);
        let depth = if self.state == State::Running
            && self.top.remaining > 0
            && (self.top.kind != Kind::Object || (self.named && !self.script))
        {
            self.base + self.open
        } else if self.state == State::Start {
            self.base
        } else {
            return None;
        };
        (self.check && depth <= self.opts.max_depth).then_some(self.r)
    }

    /// The input from the next value on, when it may be read by a fast path (as
    /// [`leaf_slot`](Walker::leaf_slot)).
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn leaf_bytes(&self) -> Option<&'a [u8]> {
        self.leaf_slot()?.data().get(self.r.pos()..)
    }

    /// Commits a value of `n` bytes that a fast path read whole from the bytes that
    /// [`leaf_bytes`](Walker::leaf_bytes) returned (nothing else in between; `n` is at most
    /// their length).
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn leaf_consumed(&mut self, n: usize) {
        // Cannot fail: `n` bytes are there.
        let _ = self.r.skip(n);
        if self.state == State::Start {
            self.state = State::Done;
        } else {
            self.top.remaining -= 1;
            self.named = false;
        }
    }

    /// The input from the next value on, when the innermost open container is an Array or a
    /// Dictionary whose values the caller knows to be within the depth limit (it checked
    /// [`depth`](Walker::depth) when the container opened) and a value of it is still due.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn plain_bytes(&self) -> Option<&'a [u8]> {
        debug_assert!(self.check);
        if self.state == State::Running && self.top.remaining > 0 {
            debug_assert!(self.top.kind != Kind::Object);
            debug_assert!(self.base + self.open <= self.opts.max_depth);
            self.r.data().get(self.r.pos()..)
        } else {
            None
        }
    }

    /// Commits a value of `n` bytes that a fast path read whole from the bytes that
    /// [`plain_bytes`](Walker::plain_bytes) returned.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn plain_consumed(&mut self, n: usize) {
        // Cannot fail: `n` bytes are there.
        let _ = self.r.skip(n);
        self.top.remaining -= 1;
    }

    /// Commits the head of a container, `n` bytes read by a fast path from
    /// [`leaf_bytes`](Walker::leaf_bytes), of `count` elements (pairs for a Dictionary): the
    /// container is open.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn open_consumed(&mut self, n: usize, count: u32, body: Body) {
        self.leaf_consumed(n);
        self.push(Frame::of(count, body));
    }

    /// [`open_consumed`](Walker::open_consumed) for a head read from
    /// [`plain_bytes`](Walker::plain_bytes).
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn plain_open_consumed(&mut self, n: usize, count: u32, body: Body) {
        self.plain_consumed(n);
        self.push(Frame::of(count, body));
    }

    /// Commits a value that a fast path read whole from the cursor that
    /// [`leaf_slot`](Walker::leaf_slot) returned (nothing else in between): `r` is after it.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn leaf_done(&mut self, r: Reader<'a>) {
        self.r = r;
        if self.state == State::Start {
            self.state = State::Done;
        } else {
            self.top.remaining -= 1;
            self.named = false;
        }
    }

    /// Closes the innermost container if all its values have been read (its
    /// [`End`](Event::End) event, without building it); `false` otherwise.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn end_fast(&mut self) -> bool {
        if self.state == State::Running && self.top.remaining == 0 {
            self.pop();
            true
        } else {
            false
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

    /// Walks on without events until only `target` containers are open (`target < open`).
    ///
    /// The same walk as [`step`](Walker::step), with the cursor and the innermost frame in
    /// locals: what `validate` and every sizing walk run, one value per iteration.
    fn skip_until(&mut self, target: u32) -> Result<()> {
        // One copy of the loop per checking mode, so that the check is decided at compile time.
        if self.check {
            self.skip_until_with::<true>(target)
        } else {
            self.skip_until_with::<false>(target)
        }
    }

    #[inline(always)]
    fn skip_until_with<const CHECK: bool>(&mut self, target: u32) -> Result<()> {
        let mut r = self.r;
        let mut top = self.top;
        let mut open = self.open;
        let res = run::<CHECK>(
            &mut r,
            &mut top,
            &mut open,
            &mut self.stack,
            Pending {
                named: self.named,
                script: self.script,
            },
            self.base,
            &self.opts,
            target,
        );
        self.r = r;
        self.top = top;
        self.open = open;
        self.named = false;
        self.script = false;
        if res.is_err() || open == 0 {
            self.state = State::Done;
        }
        res
    }

    #[inline(always)]
    fn step(&mut self) -> Result<Option<Event<'a>>> {
        match self.state {
            State::Running => {}
            State::Start => {
                self.state = State::Done;
                let h = head(&mut self.r, self.base, &self.opts, self.check)?;
                return self.value(h, self.base).map(Some);
            }
            State::Done => return Ok(None),
        }
        if self.top.remaining == 0 {
            self.pop();
            return Ok(Some(Event::End));
        }
        if self.top.kind == Kind::Object && !self.named {
            let (raw, at) = self.r.read_string_raw()?;
            let (t, skipped) = text::engine_text(raw);
            if self.check {
                text::check(t, self.opts.dialect, at + skipped)?;
            }
            self.script = is_script(t, &self.opts);
            self.named = true;
            self.name_at = at;
            return Ok(Some(Event::Property(Text::new(t))));
        }
        self.top.remaining -= 1;
        self.named = false;
        let depth = self.base + self.open;
        let h = head(&mut self.r, depth, &self.opts, self.check)?;
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
                skip_strings(&mut self.r, h.count, self.opts.dialect, self.check)?;
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
            self.stack.push(self.top);
        }
        self.top = f;
        self.open += 1;
        self.state = State::Running;
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.open -= 1;
        if self.open > 0 {
            self.top = self.stack.pop();
        } else {
            self.state = State::Done;
        }
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

/// The loop of [`Walker::skip_until`], on locals: walks on until only `target` containers are
/// open. Each pass of the outer loop reads the values of the innermost container until it
/// ends or a nested container opens.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run<const CHECK: bool>(
    r: &mut Reader<'_>,
    top: &mut Frame,
    open: &mut u32,
    stack: &mut Stack,
    mut pending: Pending,
    base: u32,
    opts: &ReadOptions,
    target: u32,
) -> Result<()> {
    'outer: loop {
        let depth = base + *open;
        while top.remaining > 0 {
            top.remaining -= 1;
            if top.kind == Kind::Object {
                if !pending.named {
                    pending.script = read_name(r, opts, CHECK)?;
                }
                pending.named = false;
            }
            let h = head(r, depth, opts, CHECK)?;
            if pending.script {
                pending.script = false;
                check_script(h)?;
            }
            match h.body() {
                None => {}
                Some(Body::Strings) => skip_strings(r, h.count, opts.dialect, CHECK)?,
                Some(body) => {
                    stack.push(*top);
                    *top = Frame::of(h.count, body);
                    *open += 1;
                    continue 'outer;
                }
            }
        }
        *open -= 1;
        if *open > 0 {
            *top = stack.pop();
        }
        if *open == target {
            return Ok(());
        }
    }
}

/// Whether a property named `t` is the Godot 4 `script` property.
#[inline(always)]
fn is_script(t: &[u8], opts: &ReadOptions) -> bool {
    opts.dialect == Dialect::Godot4 && t == b"script"
}

/// Reads a property name, checking its text with `check`; returns whether it names the Godot 4
/// `script` property.
#[inline]
fn read_name(r: &mut Reader<'_>, opts: &ReadOptions, check: bool) -> Result<bool> {
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = text::engine_text(raw);
    if check {
        text::check(t, opts.dialect, at + skipped)?;
    }
    Ok(is_script(t, opts))
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
        Some(body) => walk_container(r, h, body, depth, opts, check),
    }
}

/// The container case of [`skip_body`], out of line: it is the only one that needs a walker
/// (and its frame stack) on the native stack.
#[inline(never)]
fn walk_container<'a>(
    r: &mut Reader<'a>,
    h: &Head<'a>,
    body: Body,
    depth: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<()> {
    let mut w = Walker::at(*r, depth, *opts, check);
    w.push(Frame::of(h.count, body));
    w.skip_until(0)?;
    *r = w.r;
    Ok(())
}

/// Validates one value at the cursor, leaving the cursor after it.
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
    if h.sized {
        return Ok(VariantRef::new(h, depth, *opts));
    }
    skip_body(r, &h, depth, opts, false)?;
    let len = r.offset() - h.offset;
    Ok(VariantRef::new(h.sized_to(len), depth, *opts))
}

/// Skips one whole value at the cursor.
#[inline]
pub(crate) fn skip_value(r: &mut Reader<'_>, depth: u32, opts: &ReadOptions) -> Result<()> {
    let h = head(r, depth, opts, false)?;
    skip_body(r, &h, depth, opts, false)
}
