//! The entry points of reading: a value at the start of a buffer (or inside a larger input),
//! lazily viewed or validated whole.

use crate::error::Result;
use crate::reader::Reader;
use crate::types::ReadOptions;
use crate::value::VariantRef;
use crate::{head, walker};

/// Reads the Godot 4 value at the start of `bytes` with the engine's default limits.
///
/// This is O(1): it reads the header and bounds-checks the payload of every type whose size is
/// known from its header and length words. Containers stay lazy: their elements are read as you
/// iterate them. Bytes after the value are ignored, as `bytes_to_var` ignores them; use
/// [`parse_prefix`] to learn where the value ends, or [`validate`] to check everything.
///
/// ```
/// // var_to_bytes(42) in Godot 4
/// let v = gdvariant::parse(&[2, 0, 0, 0, 42, 0, 0, 0]).unwrap();
/// assert_eq!(v.as_i64().unwrap(), 42);
/// ```
pub fn parse(bytes: &[u8]) -> Result<VariantRef<'_>> {
    parse_with(bytes, &ReadOptions::new())
}

/// Reads the value at the start of `bytes` with the given options; see [`parse`].
pub fn parse_with<'a>(bytes: &'a [u8], opts: &ReadOptions) -> Result<VariantRef<'a>> {
    let h = head::head(&mut Reader::new(bytes, 0), 0, opts, false)?;
    Ok(VariantRef::new(h, 0, *opts))
}

/// Reads the Godot 4 value at the start of `bytes` (engine limits) and returns it with the
/// number of bytes it occupies, for buffers that carry more after it. A container is walked
/// (without allocating) to find its end; strings are not UTF-8 checked until accessed.
///
/// ```
/// let bytes = [2, 0, 0, 0, 7, 0, 0, 0, 0xAA, 0xBB];
/// let (v, used) = gdvariant::parse_prefix(&bytes).unwrap();
/// assert_eq!((v.as_i64().unwrap(), used), (7, 8));
/// ```
pub fn parse_prefix(bytes: &[u8]) -> Result<(VariantRef<'_>, usize)> {
    parse_prefix_with(bytes, &ReadOptions::new())
}

/// Reads the value at the start of `bytes` with the given options and returns it with the
/// number of bytes it occupies; see [`parse_prefix`].
///
/// ```
/// use gdvariant::{Dialect, ReadOptions};
/// // var2bytes(Vector2(1, 2)) in Godot 3, then one more byte
/// let bytes = [5, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0xFF];
/// let opts = ReadOptions::new().with_dialect(Dialect::Godot3);
/// let (v, used) = gdvariant::parse_prefix_with(&bytes, &opts).unwrap();
/// assert_eq!((v.as_vector2().unwrap(), used), (gdvariant::math::Vector2::new(1.0, 2.0), 12));
/// ```
pub fn parse_prefix_with<'a>(
    bytes: &'a [u8],
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let v = parse_with(bytes, opts)?.sized()?;
    let len = v.raw()?.len();
    Ok((v, len))
}

/// Reads the value at the start of `bytes`, a slice that begins `base` bytes into a larger input
/// (a packet, a stream), and returns it sized, with the number of bytes it occupies. Offsets of the
/// view, of everything read through it and of errors count from the start of that larger input.
/// Like [`parse_prefix_with`], a container is walked to find its end and strings are checked
/// when accessed; [`validate_prefix_at`] checks everything in the same pass.
///
/// ```
/// use gdvariant::ReadOptions;
/// // A 3-byte packet header, then var_to_bytes("hi"): the value sits at offset 3 of the packet.
/// let packet = [9, 9, 9, 4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0];
/// let (v, used) = gdvariant::parse_prefix_at(&packet[3..], 3, &ReadOptions::new())?;
/// assert_eq!((v.as_str()?, v.offset(), used), ("hi", 3, 12));
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn parse_prefix_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let mut r = Reader::new(bytes, base);
    let v = walker::read_value(&mut r, 0, opts)?;
    Ok((v, r.pos()))
}

/// Validates the value at the start of `bytes`, a slice that begins `base` bytes into a larger
/// input, and returns it sized, with the number of bytes it occupies: [`validate_with`] and
/// [`parse_prefix_at`] in one pass (offsets count from the start of the larger input).
///
/// ```
/// use gdvariant::{ErrorKind, ReadOptions};
/// let packet = [9, 4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0];
/// let err = gdvariant::validate_prefix_at(&packet[1..], 1, &ReadOptions::new()).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::InvalidUtf8, 9));
/// ```
pub fn validate_prefix_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &ReadOptions,
) -> Result<(VariantRef<'a>, usize)> {
    let mut r = Reader::new(bytes, base);
    let h = head::head(&mut r, 0, opts, true)?;
    walker::skip_body(&mut r, &h, 0, opts, true)?;
    let len = r.pos();
    Ok((VariantRef::new(h.sized_to(len), 0, *opts), len))
}

/// Validates the Godot 4 value at the start of `bytes` with the engine's default limits and
/// returns the number of bytes it occupies: every bound, every string's UTF-8, container type
/// ids, depth and the object policy. Walks iteratively: nesting of any depth gives a depth
/// error, never a stack overflow.
///
/// ```
/// use gdvariant::ErrorKind;
/// assert_eq!(gdvariant::validate(&[4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0]), Ok(12));
/// let err = gdvariant::validate(&[4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0]).unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::InvalidUtf8, 8));
/// ```
pub fn validate(bytes: &[u8]) -> Result<usize> {
    validate_with(bytes, &ReadOptions::new())
}

/// Validates the value at the start of `bytes` with the given options; see [`validate`].
pub fn validate_with(bytes: &[u8], opts: &ReadOptions) -> Result<usize> {
    let mut r = Reader::new(bytes, 0);
    walker::validate_at(&mut r, 0, opts)?;
    Ok(r.pos())
}
