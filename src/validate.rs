//! Whole-value walks: [`validate`](crate::validate) and the skipping behind lazy iteration.
//!
//! The walk is iterative. Open containers are kept on a small fixed stack; a value nested more
//! than [`STACK`] levels below the walk's start continues in a nested call with a fresh stack, so
//! native recursion is bounded by `max_depth / STACK` (at most 256 calls), and nothing is
//! allocated whatever the input says.

use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::types::{Dialect, Options, VariantType};
use crate::value::{head, read_string, Body, VariantRef};

/// Levels of open containers one walk keeps before continuing in a nested call.
const STACK: usize = 64;

#[derive(Clone, Copy)]
struct Frame {
    /// Values still to read in this container (a dictionary counts keys and values).
    remaining: u64,
    /// Whether each value is preceded by a property name (a full object).
    object: bool,
}

/// Walks the body of a container or PackedStringArray whose head (at `depth`) has just been
/// read, leaving the cursor after the whole value. With `check`, every string's text is checked
/// by the dialect's rules.
pub(crate) fn walk_body(
    r: &mut Reader<'_>,
    depth: u32,
    body: Body,
    count: u32,
    opts: &Options,
    check: bool,
) -> Result<()> {
    if body == Body::Strings {
        for _ in 0..count {
            read_string(r, opts.dialect, check)?;
        }
        return Ok(());
    }
    let mut stack = [Frame {
        remaining: 0,
        object: false,
    }; STACK];
    stack[0] = frame(body, count);
    let mut len = 1;
    let script_rule = opts.dialect == Dialect::Godot4;
    while len > 0 {
        let top = &mut stack[len - 1];
        if top.remaining == 0 {
            len -= 1;
            continue;
        }
        top.remaining -= 1;
        let mut script = false;
        if top.object {
            let name = read_string(r, opts.dialect, check)?;
            script = script_rule && name == b"script";
        }
        let child_depth = depth + len as u32;
        let v = head(r, child_depth, opts, check)?;
        if script {
            check_script(&v)?;
        }
        match v.body() {
            None => {}
            Some(Body::Strings) => {
                for _ in 0..v.count() {
                    read_string(r, opts.dialect, check)?;
                }
            }
            Some(b) if len == STACK => walk_body(r, child_depth, b, v.count(), opts, check)?,
            Some(b) => {
                stack[len] = frame(b, v.count());
                len += 1;
            }
        }
    }
    Ok(())
}

fn frame(body: Body, count: u32) -> Frame {
    match body {
        Body::Dictionary => Frame {
            remaining: 2 * u64::from(count),
            object: false,
        },
        Body::Object => Frame {
            remaining: u64::from(count),
            object: true,
        },
        Body::Array | Body::Strings => Frame {
            remaining: u64::from(count),
            object: false,
        },
    }
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
