//! The low-level reading under every walk and view: one value's head (its header, and every
//! part whose size the header and length words give), strings, container type info, and the
//! Godot 4 `script` property rule. Everything here reads through the [`Reader`] cursor and
//! returns errors with absolute offsets; nothing here allocates or recurses.

// This file's #[inline(always)]s, #[cold]s and debug-only switches, as a group: gs_validate +61 %
// time without them (layout-pinned A/B); its #[cold]s alone: gs_to_owned +2 % instructions.

use crate::error::{Error, ErrorKind, Result};
use crate::leaf::plain_string;
use crate::reader::{pad4, Reader};
use crate::strings::{self, Text};
use crate::types::{layout_index, Dialect, Layout, ReadOptions, Shape, VariantType, FLAG_64};

/// What still has to be walked after a value's head: the body of a container or of a
/// PackedStringArray, whose size is not known from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// `count` array elements.
    Array,
    /// `count` key/value pairs.
    Dictionary,
    /// `count` (name, value) properties.
    Object,
    /// `count` strings.
    Strings,
}

/// What [`head`] read of one value: the small record a [`VariantRef`](crate::VariantRef) is
/// made of, before it knows its depth and options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head<'a> {
    /// From the header on: exactly the value when `sized`, else to the end of the input.
    pub(crate) data: &'a [u8],
    /// The absolute offset of the header.
    pub(crate) offset: usize,
    /// The raw header word.
    pub(crate) header: u32,
    /// The type the header names in the dialect.
    pub(crate) ty: VariantType,
    /// The body still to walk after the head (`None`: `data` is exactly the value).
    body: Option<Body>,
    /// Where the elements (or the object's properties, or the strings) start, within `data`.
    pub(crate) body_at: u32,
    /// The element / pair / property / string count of a container or PackedStringArray.
    pub(crate) count: u32,
}

#[cfg(feature = "bytes")]
impl Head<'static> {
    /// The head of a Nil value whose header is at absolute `offset` (a view of a value that is
    /// not read from an input).
    pub(crate) const fn nil(offset: usize) -> Head<'static> {
        Head {
            data: &[0; 4],
            offset,
            header: 0,
            ty: VariantType::Nil,
            body: None,
            body_at: 4,
            count: 0,
        }
    }
}

impl<'a> Head<'a> {
    /// The body still to walk, if the size is not yet known.
    #[inline(always)]
    pub(crate) fn body(&self) -> Option<Body> {
        self.body
    }

    /// Whether `data` is exactly the value (false while a body remains to be walked).
    #[inline(always)]
    pub(crate) fn sized(&self) -> bool {
        self.body.is_none()
    }

    /// A cursor at the first element / property / string of the body.
    #[inline]
    pub(crate) fn body_reader(&self) -> Reader<'a> {
        let at = self.body_at as usize;
        Reader::new(self.data.get(at..).unwrap_or(&[]), self.offset + at)
    }

    /// The same head, sized to its first `len` bytes (the caller walked the body).
    #[inline]
    pub(crate) fn sized_to(self, len: usize) -> Head<'a> {
        Head {
            data: self.data.get(..len).unwrap_or(self.data),
            body: None,
            ..self
        }
    }
}

/// Skips `count` strings (the body of a PackedStringArray), checking them with `check`.
#[inline]
pub(crate) fn skip_strings(
    r: &mut Reader<'_>,
    count: u32,
    dialect: Dialect,
    check: bool,
) -> Result<()> {
    for _ in 0..count {
        skip_string(r, dialect, check)?;
    }
    Ok(())
}

/// Whether a property named `name` (engine text) is the Godot 4 `script` property, whose value
/// [`check_script`] checks.
#[inline(always)]
pub(crate) fn is_script(name: &[u8], dialect: Dialect) -> bool {
    dialect == Dialect::Godot4 && name == b"script"
}

/// The one place of the Godot 4 rule on a full object's `script` property: it must be Nil or
/// a String holding a `res://` path (the engine loads it). `h` is the property value's head.
#[cold]
pub(crate) fn check_script(h: Head<'_>) -> Result<()> {
    match h.ty {
        VariantType::Nil => Ok(()),
        VariantType::String => {
            let mut r = Reader::new(h.data.get(4..).unwrap_or(&[]), h.offset + 4);
            let (raw, _) = r.read_string_raw()?;
            if strings::engine_text(raw).0.starts_with(b"res://") {
                Ok(())
            } else {
                Err(Error::new(ErrorKind::InvalidObjectScript, h.offset))
            }
        }
        _ => Err(Error::new(ErrorKind::InvalidObjectScript, h.offset)),
    }
}

/// Whether the 64-bit flag changes the payload of `ty` in `dialect`.
pub(crate) fn flag_applies(ty: VariantType, dialect: Dialect) -> bool {
    dialect
        .id_of(ty)
        .is_some_and(|id| dialect.layout(id).flag_applies())
}

/// Reads a §5 string at the cursor and returns its text checked by the dialect's rules.
#[inline]
pub(crate) fn read_text<'a>(r: &mut Reader<'a>, dialect: Dialect) -> Result<Text<'a>> {
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = strings::engine_text(raw);
    strings::check(t, dialect, at + skipped)?;
    Ok(Text::new(t))
}

/// Reads a §5 string, checking its text only when `check` is set; returns the engine text.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn read_string<'a>(
    r: &mut Reader<'a>,
    dialect: Dialect,
    check: bool,
) -> Result<&'a [u8]> {
    let (raw, padded) = r.read_string_padded()?;
    if check && !strings::ascii_padded(padded) {
        return check_slow(raw, r.offset() - padded.len(), dialect);
    }
    Ok(strings::engine_text(raw).0)
}

/// Skips a §5 string whose text is not needed; with `check`, checks it by the dialect's rules.
/// An all-ASCII string is valid whatever its NUL bytes, so it needs no NUL scan: the fast path
/// tests the bytes with their padding a word at a time (padding that is not ASCII only sends
/// the string to the exact check).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn skip_string(r: &mut Reader<'_>, dialect: Dialect, check: bool) -> Result<()> {
    let (raw, padded) = r.read_string_padded()?;
    if check && !strings::ascii_padded(padded) {
        check_slow(raw, r.offset() - padded.len(), dialect)?;
    }
    Ok(())
}

/// The exact check of string bytes `raw` at absolute offset `at` that are not all ASCII:
/// returns their engine text.
#[inline(never)]
fn check_slow(raw: &[u8], at: usize, dialect: Dialect) -> Result<&[u8]> {
    let (t, skipped) = strings::engine_text(raw);
    strings::check(t, dialect, at + skipped)?;
    Ok(t)
}

/// Reads the head of the value at the cursor: its header and every part whose size is known
/// from it and its length words (all of a scalar, string, math type, NodePath or fixed-size
/// packed array; the type info and count of a container). Leaves the cursor after the value, or
/// at the first element of a container / PackedStringArray, whose [`Body`] remains to be walked.
/// With `check`, strings read here are checked by the dialect's UTF-8 rules. A value at a depth
/// greater than the limit is an error at its header.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn head<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<Head<'a>> {
    if depth > opts.max_depth {
        return Err(too_deep(r.offset(), opts));
    }
    head_at(r, opts, check)
}

/// The depth error for a value at absolute offset `at`.
#[cold]
#[inline(never)]
pub(crate) fn too_deep(at: usize, opts: &ReadOptions) -> Error {
    Error::new(
        ErrorKind::DepthExceeded {
            limit: opts.max_depth,
        },
        at,
    )
}

/// [`head`] without the depth check: for walks that check the depth of a container's values
/// once, before the first.
// Inlined into the walks in optimised builds: returning the view through memory cost ~30%
// of validate's time (store-forwarding stalls). Debug builds keep the smaller walk frame.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn head_at<'a>(r: &mut Reader<'a>, opts: &ReadOptions, check: bool) -> Result<Head<'a>> {
    let at = r.rest();
    let header = r.read_u32()?;
    let dialect = opts.dialect;
    // One table load tells the type and what follows its header.
    let l = dialect.layout(header);
    let mut count = 0u32;
    let mut body = None;
    match l.shape {
        Shape::Str => skip_string(r, dialect, check)?,
        Shape::Array | Shape::Dictionary => {
            // Godot 4 typed containers: a type-info entry per non-zero 2-bit kind.
            let kinds = if l.shape == Shape::Array { 0x3 } else { 0xF };
            if header >> 16 & kinds != 0 && dialect == Dialect::Godot4 {
                out_of_line(r, |r| skip_container_types(r, header, l.shape, opts, check))?;
            }
            count = r.read_count()?;
            body = Some(if l.shape == Shape::Array {
                Body::Array
            } else {
                Body::Dictionary
            });
        }
        Shape::Packed => {
            let n = r.read_len()?;
            r.read_elements(n, l.size(header))?;
        }
        Shape::Strings => {
            // A negative count reads as an empty array, as in the engine.
            count = r.read_i32()?.max(0) as u32;
            body = Some(Body::Strings);
        }
        Shape::Object => {
            if let Some(n) = out_of_line(r, |r| object_head(r, header, opts, check))? {
                count = n;
                body = Some(Body::Object);
            }
        }
        Shape::Bytes => {
            let n = r.read_len()?;
            r.skip(n)?;
            // The engine does not require the padding of the last value in a buffer.
            let pad = (pad4(n) - n).min(r.remaining());
            r.skip(pad)?;
        }
        Shape::NodePath => out_of_line(r, |r| skip_node_path(r, dialect, check))?,
        Shape::Signal => {
            skip_string(r, dialect, check)?;
            r.skip(8)?;
        }
        Shape::Unknown => return Err(unknown_type(r.offset() - 4, header)),
        fixed => skip_fixed(r, fixed)?,
    }
    let data = if body.is_some() { at } else { r.since(at) };
    Ok(Head {
        data,
        offset: r.offset() - (at.len() - r.remaining()),
        header,
        ty: l.ty,
        body,
        body_at: (at.len() - r.remaining()) as u32,
        count,
    })
}

/// Skips the payload of a fixed-size shape: by a constant in each branch, so that the next read
/// does not wait for the size. Other shapes skip nothing.
#[inline(always)]
pub(crate) fn skip_fixed(r: &mut Reader<'_>, shape: Shape) -> Result<()> {
    match shape {
        Shape::F4 => r.skip(4),
        Shape::F8 => r.skip(8),
        Shape::F12 => r.skip(12),
        Shape::F16 => r.skip(16),
        Shape::F24 => r.skip(24),
        Shape::F32 => r.skip(32),
        Shape::F36 => r.skip(36),
        Shape::F48 => r.skip(48),
        Shape::F64 => r.skip(64),
        Shape::F72 => r.skip(72),
        Shape::F96 => r.skip(96),
        Shape::F128 => r.skip(128),
        _ => Ok(()),
    }
}

/// The plain cases of skipping one value, on a slice: a fixed payload, or a string whose text
/// is plain ASCII when `CHECK`. `None` for anything else, input too short included: the caller
/// then reads that value the exact way, which reports any error. (Reading nothing through a
/// cursor, it counts nothing: the caller moves its cursor past what it took.)
#[inline(always)]
pub(crate) fn skip_plain<'a, const CHECK: bool>(
    rest: &'a [u8],
    table: &[Layout; 512],
) -> Option<&'a [u8]> {
    let (h, after) = rest.split_first_chunk::<4>()?;
    let header = u32::from_le_bytes(*h);
    // Strings (dictionary keys, mostly: id 4 in both dialects, no flags) without the table.
    if header == 4 {
        return plain_string::<CHECK>(after).map(|(_, rest)| rest);
    }
    match table[layout_index(header)].shape {
        Shape::Str => plain_string::<CHECK>(after).map(|(_, rest)| rest),
        Shape::F0 => Some(after),
        Shape::F4 => after.get(4..),
        Shape::F8 => after.get(8..),
        Shape::F12 => after.get(12..),
        Shape::F16 => after.get(16..),
        Shape::F24 => after.get(24..),
        Shape::F32 => after.get(32..),
        Shape::F36 => after.get(36..),
        Shape::F48 => after.get(48..),
        Shape::F64 => after.get(64..),
        Shape::F72 => after.get(72..),
        Shape::F96 => after.get(96..),
        Shape::F128 => after.get(128..),
        _ => None,
    }
}

/// Whether `shape` is a fixed-size payload.
#[inline(always)]
pub(crate) fn is_fixed(shape: Shape) -> bool {
    (shape as u8) <= (Shape::F128 as u8)
}

/// Runs `f`, a function that is not inlined, on a copy of the cursor: the cursor's own address
/// does not escape, so that the walks keep it in registers.
#[inline(always)]
pub(crate) fn out_of_line<'a, T>(
    r: &mut Reader<'a>,
    f: impl FnOnce(&mut Reader<'a>) -> Result<T>,
) -> Result<T> {
    let mut copy = *r;
    let res = f(&mut copy);
    *r = copy;
    res
}

/// The error for the unknown type id of `header`, at absolute offset `at`.
#[cold]
#[inline(never)]
fn unknown_type(at: usize, header: u32) -> Error {
    Error::new(ErrorKind::UnknownType { id: header & 0xFF }, at)
}

/// The rest of an Object's head after its `header`: nothing for an instance id, else (objects
/// allowed) the class name and, unless it is empty (a null object), the property count.
#[inline(never)]
fn object_head(
    r: &mut Reader<'_>,
    header: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<Option<u32>> {
    if header & FLAG_64 != 0 {
        r.skip(8)?;
        return Ok(None);
    }
    if !opts.allow_objects {
        return Err(Error::new(ErrorKind::ObjectsNotAllowed, r.offset() - 4));
    }
    let class = read_string(r, opts.dialect, check)?;
    if class.is_empty() {
        return Ok(None);
    }
    // A negative property count reads as none, as in the engine.
    Ok(Some(r.read_i32()?.max(0) as u32))
}

/// Skips the type info of a Godot 4 typed Array or Dictionary.
#[inline(never)]
fn skip_container_types(
    r: &mut Reader<'_>,
    header: u32,
    shape: Shape,
    opts: &ReadOptions,
    check: bool,
) -> Result<()> {
    let kinds = if shape == Shape::Array { 1 } else { 2 };
    for k in 0..kinds {
        let kind = (header >> (16 + 2 * k)) & 3;
        if kind != 0 {
            read_container_type(r, kind, opts, check)?;
        }
    }
    Ok(())
}

/// The element (or key, or value) type of a typed container (Godot 4.3+ Arrays, 4.4+
/// Dictionaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContainerType<'a> {
    /// Untyped.
    None,
    /// A builtin type, as in `Array[int]`.
    Builtin(VariantType),
    /// A native class, as in `Array[Node]`. Written by `var_to_bytes` as `EncodedObjectAsID` for
    /// every class- or script-typed container.
    ClassName(Text<'a>),
    /// A script, by its `res://` path (written by `var_to_bytes_with_objects`).
    Script(Text<'a>),
}

impl ContainerType<'_> {
    /// The kind as written in the header bits: 0 none, 1 builtin, 2 class name, 3 script.
    pub fn kind(&self) -> u32 {
        match self {
            ContainerType::None => 0,
            ContainerType::Builtin(_) => 1,
            ContainerType::ClassName(_) => 2,
            ContainerType::Script(_) => 3,
        }
    }

    /// Whether the container is typed.
    pub fn is_typed(&self) -> bool {
        !matches!(self, ContainerType::None)
    }
}

/// Reads one container type-info entry of the given kind (bits of the header), checking the
/// text of a class name or script path only with `check`.
pub(crate) fn read_container_type<'a>(
    r: &mut Reader<'a>,
    kind: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<ContainerType<'a>> {
    match kind {
        0 => Ok(ContainerType::None),
        1 => {
            let at = r.offset();
            let id = r.read_u32()?;
            match Dialect::Godot4.type_of(id) {
                Some(t) => Ok(ContainerType::Builtin(t)),
                None => Err(Error::new(ErrorKind::InvalidContainerType { id }, at)),
            }
        }
        2 => Ok(ContainerType::ClassName(Text::new(read_string(
            r,
            opts.dialect,
            check,
        )?))),
        _ => {
            let at = r.offset();
            let path = read_string(r, opts.dialect, check)?;
            // With objects allowed the engine loads the script: it must be a res:// path.
            if opts.allow_objects && !path.starts_with(b"res://") {
                return Err(Error::new(ErrorKind::InvalidObjectScript, at));
            }
            Ok(ContainerType::Script(Text::new(path)))
        }
    }
}

/// Reads the 12-byte NodePath head at `r` (after the Variant header): the name and subname
/// counts and the flags.
pub(crate) fn node_path_head(r: &mut Reader<'_>) -> Result<(u32, u32, u32)> {
    let at = r.offset();
    let w = r.read_u32()?;
    if w & 0x8000_0000 == 0 {
        return Err(Error::new(ErrorKind::OldNodePathFormat, at));
    }
    let names = w & 0x7FFF_FFFF;
    let mut subnames = r.read_u32()?;
    let flags = r.read_u32()?;
    if flags & 2 != 0 {
        // The obsolete "property" flag: one more subname follows.
        subnames = subnames.wrapping_add(1);
    }
    // The engine reads `names + subnames` strings (u32 arithmetic), the first `names` of
    // them as names.
    let total = names.wrapping_add(subnames);
    let names = names.min(total);
    Ok((names, total - names, flags))
}

/// Skips a NodePath payload, checking its strings' text when `check` is set.
pub(crate) fn skip_node_path(r: &mut Reader<'_>, dialect: Dialect, check: bool) -> Result<()> {
    let (names, subnames, _) = node_path_head(r)?;
    for _ in 0..u64::from(names) + u64::from(subnames) {
        skip_string(r, dialect, check)?;
    }
    Ok(())
}
