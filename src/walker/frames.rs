//! The open containers of a walk: a [`Frame`] per container, kept inline on the native stack
//! ([`Frames`], the event-free walks) or in a [`Stack`] (the walker's, spilling to the heap
//! past [`INLINE_DEPTH`] levels).

use alloc::vec::Vec;

use arrayvec::ArrayVec;

use crate::head::Body;
use crate::types::ENGINE_MAX_DEPTH;

/// Which kind of container a frame walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    Array,
    Dictionary,
    Object,
}

/// An open container: how many values it still holds (a dictionary counts keys and values)
/// and of which kind it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) remaining: u32,
    pub(super) kind: Kind,
}

impl Frame {
    pub(super) const NONE: Frame = Frame {
        remaining: 0,
        kind: Kind::Array,
    };

    /// The frame of a container with `count` elements / pairs / properties.
    #[inline]
    pub(super) fn of(count: u32, body: Body) -> Frame {
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
pub(super) struct Frames<const N: usize> {
    pub(super) inline: ArrayVec<Frame, N>,
    pub(super) spill: Vec<Frame>,
}

impl<const N: usize> Frames<N> {
    #[inline]
    pub(super) fn new() -> Self {
        Frames {
            inline: ArrayVec::new_const(),
            spill: Vec::new(),
        }
    }

    // gs_validate +5 to 8 % time when it is outlined, as it is without the other files' kept
    // attributes (layout-pinned A/B)
    #[inline(always)]
    pub(super) fn push(&mut self, f: Frame) {
        if self.spill.is_empty() && !self.inline.is_full() {
            self.inline.push(f);
        } else {
            self.push_spill(f);
        }
    }

    #[inline(never)]
    fn push_spill(&mut self, f: Frame) {
        self.spill.push(f);
    }

    /// The frame pushed last; `None` when empty.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Frame> {
        if self.spill.is_empty() {
            self.inline.pop()
        } else {
            self.spill.pop()
        }
    }
}

/// A walker's frames below the innermost: each frame's remaining count (a `u32`: at most
/// 2^32 - 2, a dictionary counting keys and values) and, in a bitset beside, whether it is an
/// object's. The first [`INLINE_DEPTH`] frames are inline; deeper ones spill to the
/// heap, which is reserved up to the depth limit (at most the engine's) at the first spill:
/// about 4 KiB for any input the engine reads.
#[derive(Clone, Debug)]
pub(super) struct Stack {
    pub(super) inline: ArrayVec<u32, { INLINE_DEPTH }>,
    /// Bit `i`: inline frame `i` is an object's.
    inline_objects: u32,
    pub(super) spill: Vec<u32>,
    /// Bit `i % 32` of word `i / 32`: spilled frame `i` is an object's.
    spill_objects: Vec<u32>,
}

/// How many frames a [`Stack`] keeps inline ([`Walker::INLINE_DEPTH`](super::Walker::INLINE_DEPTH)).
pub(super) const INLINE_DEPTH: usize = 32;

// One bit for each inline frame.
const _: () = assert!(INLINE_DEPTH == 32);

impl Stack {
    #[inline]
    pub(super) fn new() -> Stack {
        Stack {
            // (Not `new_const`: built from that constant, the inline frames were zeroed, 128
            // bytes of stores at every walker's construction.)
            inline: ArrayVec::new(),
            inline_objects: 0,
            spill: Vec::new(),
            spill_objects: Vec::new(),
        }
    }

    // gs_validate +5 to 8 % time when it is outlined, as it is without the other files' kept
    // attributes (layout-pinned A/B)
    #[inline(always)]
    pub(super) fn push(&mut self, f: Frame, max_depth: u32) {
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

    #[inline(never)]
    fn push_spill(&mut self, remaining: u32, object: bool, max_depth: u32) {
        if self.spill.capacity() == 0 {
            let limit = max_depth.min(ENGINE_MAX_DEPTH) as usize + 1;
            let frames = limit.saturating_sub(INLINE_DEPTH).max(1);
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
    #[inline]
    pub(super) fn pop(&mut self) -> Frame {
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
