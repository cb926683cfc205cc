//! The event-free walks, on the native stack: `validate`, every skip and every sizing walk of
//! the lazy views ([`VariantRef::raw`], [`VariantRef::byte_len`], [`VariantRef::sized`],
//! [`VariantRef::validate`]).

// This file's #[inline(always)]s, as a group: gs_validate +19 % time without them (layout-pinned
// A/B).

use crate::error::Result;
use crate::head::{
    check_script, head, head_at, is_fixed, is_script, out_of_line, read_string, skip_fixed,
    skip_plain, skip_strings, too_deep, Body, Head,
};
use crate::reader::Reader;
use crate::types::{Layout, ReadOptions, Shape, ENGINE_MAX_DEPTH};
use crate::value::VariantRef;

use super::frames::{Frame, Frames, Kind};

/// The state of an object's property at the start of a skip: its name already read, and
/// whether that name is `script`.
#[derive(Clone, Copy)]
pub(super) struct Pending {
    pub(super) named: bool,
    pub(super) script: bool,
}

impl Pending {
    pub(super) const NONE: Pending = Pending {
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
pub(super) fn skip_rest<const CHECK: bool>(
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
pub(super) fn skip_container<const CHECK: bool>(
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
