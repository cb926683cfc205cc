//! Whole-value walks: [`validate`](crate::validate) and the skipping behind lazy iteration.
//!
//! The walk is iterative. Open containers are kept on a small fixed stack; a value nested more
//! than [`STACK`] levels below the walk's start continues in a nested call with a fresh stack, so
//! native recursion is bounded by `max_depth / STACK` (at most 256 calls), and nothing is
//! allocated whatever the input says.

use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::types::{Dialect, Options, VariantType};
use crate::value::{head, read_string, skip_string, Body, VariantRef};

/// Levels of open containers one walk keeps before continuing in a nested call.
const STACK: usize = 64;

/// An open container: the values still to read (a dictionary counts keys and values) and
/// whether each value is preceded by a property name (a full object).
#[derive(Clone, Copy)]
struct Frame {
    remaining: u32,
    object: bool,
}

impl Frame {
    const EMPTY: Frame = Frame {
        remaining: 0,
        object: false,
    };

    fn new(body: Body, count: u32) -> Frame {
        match body {
            // count <= 2^31 - 1, so keys plus values fit in a u32.
            Body::Dictionary => Frame {
                remaining: count.saturating_mul(2),
                object: false,
            },
            Body::Object => Frame {
                remaining: count,
                object: true,
            },
            Body::Array | Body::Strings => Frame {
                remaining: count,
                object: false,
            },
        }
    }
}

/// Walks the body of a container or PackedStringArray whose head (at `depth`) has just been
/// read, leaving the cursor after the whole value. With `check`, every string's text is checked
/// by the dialect's rules.
///
/// Containers whose values are all leaves (the common case: an entity dictionary) are walked
/// without setting up the stack of open containers; it is made when the first nested container
/// appears.
pub(crate) fn walk_body(
    r: &mut Reader<'_>,
    depth: u32,
    body: Body,
    count: u32,
    opts: &Options,
    check: bool,
) -> Result<()> {
    if body == Body::Strings {
        return skip_strings(r, count, opts, check);
    }
    walk_frame(r, depth, Frame::new(body, count), opts, check)
}

/// Walks the rest of the open container `top` at `depth`.
#[inline]
fn walk_frame(
    r: &mut Reader<'_>,
    depth: u32,
    mut top: Frame,
    opts: &Options,
    check: bool,
) -> Result<()> {
    while top.remaining > 0 {
        if let Some(nested) = step(r, &mut top, depth + 1, opts, check)? {
            return walk_stack(r, depth, top, nested, opts, check);
        }
    }
    Ok(())
}

/// Continues a walk with a stack: `first` is the container at `depth` being walked, `nested`
/// the container just opened inside it.
#[inline(never)]
fn walk_stack(
    r: &mut Reader<'_>,
    depth: u32,
    first: Frame,
    nested: Frame,
    opts: &Options,
    check: bool,
) -> Result<()> {
    let mut stack = [Frame::EMPTY; STACK];
    stack[0] = first;
    stack[1] = nested;
    let mut len = 2;
    while len > 0 {
        let top = &mut stack[len - 1];
        if top.remaining == 0 {
            len -= 1;
            continue;
        }
        let child_depth = depth + len as u32;
        if let Some(frame) = step(r, top, child_depth, opts, check)? {
            if len == STACK {
                // Bounded recursion: one nested call per STACK levels.
                walk_frame(r, child_depth, frame, opts, check)?;
            } else {
                stack[len] = frame;
                len += 1;
            }
        }
    }
    Ok(())
}

/// Reads the next value (and property name) of the open container `top`, whose values are at
/// `depth`. A leaf or PackedStringArray is read whole; a nested container's head is read and its
/// frame returned.
#[inline(always)]
fn step(
    r: &mut Reader<'_>,
    top: &mut Frame,
    depth: u32,
    opts: &Options,
    check: bool,
) -> Result<Option<Frame>> {
    top.remaining -= 1;
    let mut script = false;
    if top.object {
        let name = read_string(r, opts.dialect, check)?;
        script = opts.dialect == Dialect::Godot4 && name == b"script";
    }
    let v = head(r, depth, opts, check)?;
    if script {
        check_script(&v)?;
    }
    match v.body() {
        None => Ok(None),
        Some(Body::Strings) => skip_strings(r, v.count(), opts, check).map(|()| None),
        Some(b) => Ok(Some(Frame::new(b, v.count()))),
    }
}

fn skip_strings(r: &mut Reader<'_>, count: u32, opts: &Options, check: bool) -> Result<()> {
    for _ in 0..count {
        skip_string(r, opts.dialect, check)?;
    }
    Ok(())
}

/// Godot 4 accepts an object's `script` property only as Nil or a `res://` path String.
pub(crate) fn check_script(v: &VariantRef<'_>) -> Result<()> {
    match v.ty() {
        VariantType::Nil => Ok(()),
        VariantType::String => {
            let mut r = Reader::new(v.raw()?, v.offset());
            r.skip(4)?;
            let path = read_string(&mut r, v.dialect(), false)?;
            if path.starts_with(b"res://") {
                Ok(())
            } else {
                Err(Error::new(ErrorKind::InvalidObjectScript, v.offset()))
            }
        }
        _ => Err(Error::new(ErrorKind::InvalidObjectScript, v.offset())),
    }
}

/// Validates one value at the cursor: every bound, every string, depth and object policy.
pub(crate) fn validate_at(r: &mut Reader<'_>, opts: &Options) -> Result<()> {
    let v = head(r, 0, opts, true)?;
    if let Some(body) = v.body() {
        walk_body(r, 0, body, v.count(), opts, true)?;
    }
    Ok(())
}
