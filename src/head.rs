//! The low-level reading under every walk and view: one value's head (its header, and every
//! part whose size the header and length words give), strings, container type info, and the
//! Godot 4 `script` property rule. Everything here reads through the [`Reader`] cursor and
//! returns errors with absolute offsets; nothing here allocates or recurses.

use crate::array::ContainerType;
use crate::error::{Error, ErrorKind, Result};
use crate::object::NodePathRef;
use crate::reader::{pad4, Reader};
use crate::text::{self, Text};
use crate::types::{Dialect, ReadOptions, VariantType, FLAG_64};

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
    /// Whether `data` is exactly the value (false while a body remains to be walked).
    pub(crate) sized: bool,
    /// Where the elements (or the object's properties, or the strings) start, within `data`.
    pub(crate) body_at: u32,
    /// The element / pair / property / string count of a container or PackedStringArray.
    pub(crate) count: u32,
}

impl<'a> Head<'a> {
    /// The body still to walk, if the size is not yet known.
    #[inline(always)]
    pub(crate) fn body(&self) -> Option<Body> {
        if self.sized {
            return None;
        }
        Body::of(self.ty)
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
            sized: true,
            ..self
        }
    }
}

impl Body {
    /// The body a value of type `ty` has after its head, if any.
    #[inline(always)]
    pub(crate) fn of(ty: VariantType) -> Option<Body> {
        Some(match ty {
            VariantType::Array => Body::Array,
            VariantType::Dictionary => Body::Dictionary,
            VariantType::Object => Body::Object,
            VariantType::PackedStringArray => Body::Strings,
            _ => return None,
        })
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

/// The one place of the Godot 4 rule on a full object's `script` property: it must be Nil or
/// a String holding a `res://` path (the engine loads it). `h` is the property value's head.
#[cold]
pub(crate) fn check_script(h: Head<'_>) -> Result<()> {
    match h.ty {
        VariantType::Nil => Ok(()),
        VariantType::String => {
            let mut r = Reader::new(h.data.get(4..).unwrap_or(&[]), h.offset + 4);
            let (raw, _) = r.read_string_raw()?;
            if text::engine_text(raw).0.starts_with(b"res://") {
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
    use VariantType as T;
    match ty {
        T::Int | T::Float => true,
        T::Vector2
        | T::Rect2
        | T::Vector3
        | T::Transform2D
        | T::Vector4
        | T::Plane
        | T::Quaternion
        | T::Aabb
        | T::Basis
        | T::Transform3D
        | T::Projection
        | T::PackedVector2Array
        | T::PackedVector3Array
        | T::PackedVector4Array => dialect == Dialect::Godot4,
        _ => false,
    }
}

/// Reads a §5 string at the cursor and returns its text checked by the dialect's rules.
#[inline]
pub(crate) fn read_text<'a>(r: &mut Reader<'a>, dialect: Dialect) -> Result<Text<'a>> {
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = text::engine_text(raw);
    text::check(t, dialect, at + skipped)?;
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
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = text::engine_text(raw);
    if check {
        text::check(t, dialect, at + skipped)?;
    }
    Ok(t)
}

/// Skips a §5 string whose text is not needed; with `check`, checks it by the dialect's rules.
/// An all-ASCII string is valid whatever its NUL bytes, so it needs no NUL scan.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn skip_string(r: &mut Reader<'_>, dialect: Dialect, check: bool) -> Result<()> {
    let (raw, at) = r.read_string_raw()?;
    if check && !raw.is_ascii() {
        let (t, skipped) = text::engine_text(raw);
        text::check(t, dialect, at + skipped)?;
    }
    Ok(())
}

/// The number of real components of a math type, or `None` for other types.
fn real_components(ty: VariantType) -> Option<usize> {
    use VariantType as T;
    Some(match ty {
        T::Vector2 => 2,
        T::Rect2 | T::Vector4 | T::Plane | T::Quaternion => 4,
        T::Vector3 => 3,
        T::Transform2D | T::Aabb => 6,
        T::Basis => 9,
        T::Transform3D => 12,
        T::Projection => 16,
        _ => return None,
    })
}

/// Reads the head of the value at the cursor: its header and every part whose size is known
/// from it and its length words (all of a scalar, string, math type, NodePath or fixed-size
/// packed array; the type info and count of a container). Leaves the cursor after the value, or
/// at the first element of a container / PackedStringArray, whose [`Body`] remains to be walked.
/// With `check`, strings read here are checked by the dialect's UTF-8 rules.
// Inlined into the walks in optimised builds: returning the view through memory cost ~30%
// of validate's time (store-forwarding stalls). Debug builds keep the smaller walk frame.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn head<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    opts: &ReadOptions,
    check: bool,
) -> Result<Head<'a>> {
    use VariantType as T;
    let start = r.pos();
    let offset = r.offset();
    if depth > opts.max_depth {
        return Err(Error::new(
            ErrorKind::DepthExceeded {
                limit: opts.max_depth,
            },
            offset,
        ));
    }
    let header = r.read_u32()?;
    let id = header & 0xFF;
    let dialect = opts.dialect;
    let Some(ty) = dialect.type_of(id) else {
        return Err(Error::new(ErrorKind::UnknownType { id }, offset));
    };
    let wide = header & FLAG_64 != 0;
    let mut count = 0u32;
    let mut has_body = false;
    match ty {
        T::Nil | T::Callable => {}
        T::Bool => r.skip(4)?,
        T::Int | T::Float => r.skip(if wide { 8 } else { 4 })?,
        T::String | T::StringName => skip_string(r, dialect, check)?,
        T::Vector2i => r.skip(8)?,
        T::Vector3i => r.skip(12)?,
        T::Rect2i | T::Vector4i | T::Color => r.skip(16)?,
        T::NodePath => {
            NodePathRef::skip(r, dialect, check)?;
        }
        T::Rid => {
            if dialect == Dialect::Godot4 {
                r.skip(8)?;
            }
        }
        T::Object => {
            if wide {
                r.skip(8)?;
            } else {
                if !opts.allow_objects {
                    return Err(Error::new(ErrorKind::ObjectsNotAllowed, offset));
                }
                let class = read_string(r, dialect, check)?;
                if !class.is_empty() {
                    // A negative property count reads as none, as in the engine.
                    count = r.read_i32()?.max(0) as u32;
                    has_body = true;
                }
            }
        }
        T::Signal => {
            skip_string(r, dialect, check)?;
            r.skip(8)?;
        }
        T::Array | T::Dictionary => {
            if dialect == Dialect::Godot4 {
                let kinds = if ty == T::Array { 1 } else { 2 };
                for k in 0..kinds {
                    let kind = (header >> (16 + 2 * k)) & 3;
                    if kind != 0 {
                        read_container_type(r, kind, opts, check)?;
                    }
                }
            }
            count = r.read_count()?;
            has_body = true;
        }
        T::PackedByteArray => {
            let n = r.read_len()?;
            r.skip(n)?;
            // The engine does not require the padding of the last value in a buffer.
            let pad = (pad4(n) - n).min(r.remaining());
            r.skip(pad)?;
        }
        T::PackedInt32Array | T::PackedFloat32Array => skip_elements(r, 4)?,
        T::PackedInt64Array | T::PackedFloat64Array => skip_elements(r, 8)?,
        T::PackedVector2Array => skip_elements(
            r,
            if wide && dialect == Dialect::Godot4 {
                16
            } else {
                8
            },
        )?,
        T::PackedVector3Array => skip_elements(
            r,
            if wide && dialect == Dialect::Godot4 {
                24
            } else {
                12
            },
        )?,
        T::PackedVector4Array => skip_elements(r, if wide { 32 } else { 16 })?,
        T::PackedColorArray => skip_elements(r, 16)?,
        T::PackedStringArray => {
            // A negative count reads as an empty array, as in the engine.
            count = r.read_i32()?.max(0) as u32;
            has_body = true;
        }
        _ => {
            // Real-valued math types.
            let n = real_components(ty).unwrap_or(0);
            let size = if wide && dialect == Dialect::Godot4 {
                8
            } else {
                4
            };
            r.skip(n * size)?;
        }
    }
    let body_at = r.pos() - start;
    let data = if has_body {
        r.data().get(start..).unwrap_or(&[])
    } else {
        r.since(start)
    };
    Ok(Head {
        data,
        offset,
        header,
        ty,
        sized: !has_body,
        body_at: body_at as u32,
        count,
    })
}

fn skip_elements(r: &mut Reader<'_>, size: usize) -> Result<()> {
    let n = r.read_len()?;
    r.read_elements(n, size).map(drop)
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
