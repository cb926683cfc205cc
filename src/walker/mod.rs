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
//! stack and never allocate within the engine's depth limit ([`ENGINE_MAX_DEPTH`](crate::types::ENGINE_MAX_DEPTH)).
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

mod frames;
pub(crate) mod plain;
mod skip;

use core::iter::FusedIterator;

use crate::error::Result;
use crate::head::{check_script, head, is_script, skip_strings, Body, Head};
use crate::reader::Reader;
use crate::strings::{self, Text};
use crate::types::ReadOptions;
use crate::value::VariantRef;

use frames::{Frame, Kind, Stack};
pub(crate) use skip::{read_value, skip_body, skip_one, skip_value, skip_values, validate_at};
use skip::{skip_rest, Pending};

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
    pub const INLINE_DEPTH: usize = frames::INLINE_DEPTH;

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

    #[inline]
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
    // Kept, these four: in_to_owned +16 %, gs_to_owned +12 %, gs_serde +8 % time without them
    // (layout-pinned A/B)
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

    // Kept, these four: in_to_owned +16 %, gs_to_owned +12 %, gs_serde +8 % time without them
    // (layout-pinned A/B)
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
    // Kept, these four: in_to_owned +16 %, gs_to_owned +12 %, gs_serde +8 % time without them
    // (layout-pinned A/B)
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

    // Kept, these four: in_to_owned +16 %, gs_to_owned +12 %, gs_serde +8 % time without them
    // (layout-pinned A/B)
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

    #[inline]
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
    #[inline]
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
