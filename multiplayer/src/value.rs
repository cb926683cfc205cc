//! The compressed Variant form of RPC arguments, spawn state and synchronizer values
//! (`MultiplayerAPI::encode_and_compress_variant` / `decode_and_decompress_variant`), read and
//! written.
//!
//! The first byte holds the type id in its six low bits and a mode in its two high bits. A bool
//! is that one byte (`0x01 | value << 7`); an int is `0x02 | width << 6` followed by the value in
//! 1, 2, 4 or 8 bytes (the fewest that hold it); every other value is exactly what
//! `var_to_bytes` writes (whose first byte is the type id, mode 0).

use alloc::vec::Vec;
use core::fmt;

use crate::cursor::{eof, Cursor};
use gdvariant::encode::{encode_into, EncodeOptions};
use gdvariant::error::{Error, ErrorKind, Expected, Result};
use gdvariant::owned::Variant;
use gdvariant::types::{Dialect, ReadOptions, VariantType};
use gdvariant::value::VariantRef;

/// The mask of the type id in a compressed value's first byte.
const TYPE_MASK: u8 = 0x3F;
/// Godot 4's `Variant::VARIANT_MAX`.
const VARIANT_MAX: u8 = 39;
const BOOL: u8 = 1;
const INT: u8 = 2;

/// One value read from the compressed form (or from a byte-only RPC, or a Godot 3 packet).
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// A bool, in one byte.
    Bool(bool),
    /// An int, in 1, 2, 4 or 8 bytes after its type byte.
    Int(i64),
    /// The bytes of a byte-only RPC's one `PackedByteArray` argument, sent raw.
    Bytes(&'a [u8]),
    /// Any other value, in the ordinary encoding (a lazy view).
    Variant(VariantRef<'a>),
}

/// A value of an RPC's arguments, a spawn's state or a synchronizer entry: a [`Value`] with its
/// exact bytes and offset. `Copy`, borrowed from the packet, never allocates.
#[derive(Clone, Copy)]
pub struct ValueRef<'a> {
    value: Value<'a>,
    raw: &'a [u8],
    offset: usize,
}

impl<'a> ValueRef<'a> {
    pub(crate) fn variant(v: VariantRef<'a>, raw: &'a [u8]) -> ValueRef<'a> {
        ValueRef {
            value: Value::Variant(v),
            raw,
            offset: v.offset(),
        }
    }

    pub(crate) fn bytes(raw: &'a [u8], offset: usize) -> ValueRef<'a> {
        ValueRef {
            value: Value::Bytes(raw),
            raw,
            offset,
        }
    }

    /// The value.
    pub fn value(&self) -> Value<'a> {
        self.value
    }

    /// The value's type (`PackedByteArray` for raw bytes).
    pub fn ty(&self) -> VariantType {
        match self.value {
            Value::Bool(_) => VariantType::Bool,
            Value::Int(_) => VariantType::Int,
            Value::Bytes(_) => VariantType::PackedByteArray,
            Value::Variant(v) => v.ty(),
        }
    }

    /// The absolute offset of the value's first byte.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The value's exact bytes, borrowed from the packet: forward them unchanged with
    /// [`Arg`] (a `ValueRef` is one).
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// For a compressed int, how many bytes hold it after its type byte (1, 2, 4 or 8).
    pub fn int_width(&self) -> Option<usize> {
        match self.value {
            Value::Int(_) => Some(self.raw.len() - 1),
            _ => None,
        }
    }

    /// The bool (a compressed bool, or an ordinary one in a Godot 3 packet).
    pub fn as_bool(&self) -> Result<bool> {
        match self.value {
            Value::Bool(b) => Ok(b),
            Value::Variant(v) => v.as_bool(),
            _ => Err(self.wrong(Expected::Type(VariantType::Bool))),
        }
    }

    /// The int (a compressed int, or an ordinary one in a Godot 3 packet).
    pub fn as_i64(&self) -> Result<i64> {
        match self.value {
            Value::Int(i) => Ok(i),
            Value::Variant(v) => v.as_i64(),
            _ => Err(self.wrong(Expected::Type(VariantType::Int))),
        }
    }

    /// The bytes of a `PackedByteArray`, sent raw or encoded, borrowed from the packet.
    pub fn as_bytes(&self) -> Result<&'a [u8]> {
        match self.value {
            Value::Bytes(b) => Ok(b),
            Value::Variant(v) => v.as_byte_array(),
            _ => Err(self.wrong(Expected::Type(VariantType::PackedByteArray))),
        }
    }

    /// The lazy view of a value in the ordinary encoding; `None` for a compressed bool or int
    /// and for raw bytes.
    pub fn as_variant(&self) -> Option<VariantRef<'a>> {
        match self.value {
            Value::Variant(v) => Some(v),
            _ => None,
        }
    }

    /// The value as an owned [`Variant`], checked whole (what the engine decodes).
    pub fn to_owned(&self) -> Result<Variant> {
        Ok(match self.value {
            Value::Bool(b) => Variant::Bool(b),
            Value::Int(i) => Variant::Int(i),
            Value::Bytes(b) => Variant::PackedByteArray(b.to_vec()),
            Value::Variant(v) => v.to_owned()?,
        })
    }

    /// Checks the whole value (a no-op for bools, ints and raw bytes, which are complete once
    /// read).
    pub fn validate(&self) -> Result<()> {
        match self.value {
            Value::Variant(v) => v.validate().map(drop),
            _ => Ok(()),
        }
    }

    fn wrong(&self, expected: Expected) -> Error {
        Error::new(
            ErrorKind::WrongType {
                expected,
                found: self.ty(),
            },
            self.offset,
        )
    }
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValueRef")
            .field("offset", &self.offset)
            .field("value", &self.value)
            .finish()
    }
}

/// The engine's text form of the value, as `var_to_str` prints it (an error writes nothing and
/// is a formatting error; check with [`ValueRef::validate`] first).
#[cfg(feature = "std")]
impl fmt::Display for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bytes(b) => {
                f.write_str("PackedByteArray(")?;
                for (i, x) in b.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
            Value::Variant(v) => match gdvariant::text::to_fmt(&v, f) {
                Ok(r) => r,
                Err(_) => Err(fmt::Error),
            },
        }
    }
}

/// Reads one ordinary value at `r`, sized; with `check`, checked whole in the same pass.
fn read_variant<'a>(r: &mut Cursor<'a>, opts: &ReadOptions, check: bool) -> Result<VariantRef<'a>> {
    let (v, len) = if check {
        gdvariant::validate_prefix_at(r.rest(), r.offset(), opts)?
    } else {
        gdvariant::parse_prefix_at(r.rest(), r.offset(), opts)?
    };
    r.advance(len);
    Ok(v)
}

/// Reads one compressed value at `r` (Godot 4).
pub(crate) fn read_compressed<'a>(r: &mut Cursor<'a>, opts: &ReadOptions) -> Result<ValueRef<'a>> {
    read_compressed_with(r, opts, false)
}

fn read_compressed_with<'a>(
    r: &mut Cursor<'a>,
    opts: &ReadOptions,
    check: bool,
) -> Result<ValueRef<'a>> {
    let start = r.rest();
    let offset = r.offset();
    let Some(&meta) = start.first() else {
        return Err(eof(offset, 1));
    };
    let ty = meta & TYPE_MASK;
    let value = match ty {
        BOOL => {
            r.skip(1)?;
            Value::Bool(meta & 0x80 != 0)
        }
        INT => {
            r.skip(1)?;
            let b = r.read_bytes(1 << (meta >> 6))?;
            Value::Int(match *b {
                [x] => i64::from(x as i8),
                [x, y] => i64::from(i16::from_le_bytes([x, y])),
                [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
                _ => {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(b);
                    i64::from_le_bytes(w)
                }
            })
        }
        _ if ty >= VARIANT_MAX => {
            return Err(Error::new(
                ErrorKind::UnknownType { id: u32::from(ty) },
                offset,
            ))
        }
        _ => {
            let v = read_variant(r, opts, check)?;
            return Ok(ValueRef::variant(v, r.since(start)));
        }
    };
    Ok(ValueRef {
        value,
        raw: r.since(start),
        offset,
    })
}

/// A lazy sequence of values: an RPC's arguments, a spawn's state, a synchronizer entry's values.
///
/// Each item is read when the iterator reaches it (a container is walked to find its end, its
/// contents checked on access or by [`ValueRef::validate`]); the first error ends the sequence.
/// [`rest`](Values::rest) gives what is left after the values.
#[derive(Clone, Debug)]
pub struct Values<'a> {
    r: Cursor<'a>,
    /// How many values remain when counted (an RPC's argc); `None`: to the end of the bytes.
    left: Option<usize>,
    kind: Kind,
    opts: ReadOptions,
    done: bool,
    /// Whether each value is checked whole as it is read (`validate`).
    check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Compressed,
    /// The bytes are one raw PackedByteArray (or nothing when empty).
    Bytes,
    /// Ordinary encoded values (Godot 3).
    Plain,
}

impl<'a> Values<'a> {
    /// Compressed values in `data` (first byte at absolute `base`): `count` of them, or up to
    /// the end.
    pub(crate) fn compressed(
        data: &'a [u8],
        base: usize,
        count: Option<usize>,
        opts: ReadOptions,
    ) -> Values<'a> {
        Values {
            r: Cursor::new(data, base),
            left: count,
            kind: Kind::Compressed,
            opts,
            done: false,
            check: false,
        }
    }

    /// A byte-only RPC's arguments: one PackedByteArray of all of `data`, none when it is empty.
    pub(crate) fn raw_bytes(data: &'a [u8], base: usize) -> Values<'a> {
        Values {
            r: Cursor::new(data, base),
            left: Some(usize::from(!data.is_empty())),
            kind: Kind::Bytes,
            opts: ReadOptions::new(),
            done: false,
            check: false,
        }
    }

    /// `count` ordinary values (Godot 3), or up to the end.
    pub(crate) fn plain(
        data: &'a [u8],
        base: usize,
        count: Option<usize>,
        opts: ReadOptions,
    ) -> Values<'a> {
        Values {
            r: Cursor::new(data, base),
            left: count,
            kind: Kind::Plain,
            opts,
            done: false,
            check: false,
        }
    }

    /// The same sequence, each value checked whole as it is read (everything
    /// [`ValueRef::validate`] checks, in the same single pass that finds its end): the first
    /// error is the one [`Packet::validate`](crate::Packet::validate) gives for these values, so
    /// a reader that shows each value as it goes needs no separate checking walk.
    pub fn checked(mut self) -> Values<'a> {
        self.check = true;
        self
    }

    /// The bytes not read (yet): after the last value once the iterator is done.
    pub fn rest(&self) -> &'a [u8] {
        self.r.rest()
    }

    /// The absolute offset of the next value (of [`rest`](Values::rest)).
    pub fn offset(&self) -> usize {
        self.r.offset()
    }

    /// How many values remain, when the sequence is counted (an RPC's arguments); `None` for a
    /// sequence that runs to the end of its bytes (spawn state, synchronizer values), whose
    /// count only the receiver's configuration knows.
    pub fn declared_len(&self) -> Option<usize> {
        if self.done {
            return Some(0);
        }
        self.left
    }

    fn next_value(&mut self) -> Result<ValueRef<'a>> {
        match self.kind {
            Kind::Compressed => read_compressed_with(&mut self.r, &self.opts, self.check),
            Kind::Bytes => {
                let offset = self.r.offset();
                let b = self.r.read_bytes(self.r.remaining())?;
                Ok(ValueRef::bytes(b, offset))
            }
            Kind::Plain => {
                let start = self.r.rest();
                let v = read_variant(&mut self.r, &self.opts, self.check)?;
                Ok(ValueRef::variant(v, self.r.since(start)))
            }
        }
    }
}

impl<'a> Iterator for Values<'a> {
    type Item = Result<ValueRef<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match &mut self.left {
            Some(0) => {
                self.done = true;
                return None;
            }
            Some(n) => *n -= 1,
            None if self.r.remaining() == 0 => {
                self.done = true;
                return None;
            }
            None => {}
        }
        let v = self.next_value();
        if v.is_err() {
            self.done = true;
        }
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.declared_len() {
            // A counted sequence may end early with an error: at most its count.
            Some(n) => (0, Some(n.min(self.r.remaining().max(1)))),
            None => (0, Some(self.r.remaining())),
        }
    }
}

impl core::iter::FusedIterator for Values<'_> {}

/// Something that can be written as one value of a packet: an owned [`Variant`], a
/// [`VariantRef`] or a received [`ValueRef`] (forwarded as its exact bytes where the form
/// allows).
pub trait Arg {
    /// Writes the value in the compressed form (Godot 4).
    fn write_compressed(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()>;

    /// Writes the value in the ordinary encoding, as `var_to_bytes` (Godot 3 packets).
    fn write_plain(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()>;

    /// The bytes of a `PackedByteArray` value, which an RPC whose only argument it is sends raw.
    fn packed_bytes(&self) -> Option<&[u8]>;
}

impl Arg for Variant {
    fn write_compressed(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        write_value(self, out, opts)
    }

    fn write_plain(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        encode_into(self, out, opts)
    }

    fn packed_bytes(&self) -> Option<&[u8]> {
        match self {
            Variant::PackedByteArray(b) => Some(b),
            Variant::Raw(r) if r.ty() == Some(VariantType::PackedByteArray) => {
                gdvariant::parse_with(r.as_bytes(), &ReadOptions::new().with_dialect(r.dialect()))
                    .and_then(|v| v.as_byte_array())
                    .ok()
            }
            _ => None,
        }
    }
}

impl Arg for VariantRef<'_> {
    fn write_compressed(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        match self.ty() {
            VariantType::Bool => {
                write_bool(self.as_bool()?, out);
                Ok(())
            }
            VariantType::Int => {
                write_int(self.as_i64()?, out);
                Ok(())
            }
            _ if self.dialect() == Dialect::Godot4 => {
                out.extend_from_slice(self.raw()?);
                Ok(())
            }
            _ => write_value(&self.to_owned()?, out, opts),
        }
    }

    fn write_plain(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        if self.dialect() == opts.dialect() {
            out.extend_from_slice(self.raw()?);
            Ok(())
        } else {
            encode_into(&self.to_owned()?, out, opts)
        }
    }

    fn packed_bytes(&self) -> Option<&[u8]> {
        self.as_byte_array().ok()
    }
}

impl Arg for ValueRef<'_> {
    fn write_compressed(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        match self.value {
            Value::Bytes(b) => write_value(&Variant::PackedByteArray(b.to_vec()), out, opts),
            Value::Variant(v) => v.write_compressed(out, opts),
            // Compressed bools and ints are forwarded exactly (the engine reads any width).
            _ => {
                out.extend_from_slice(self.raw);
                Ok(())
            }
        }
    }

    fn write_plain(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        match self.value {
            Value::Variant(v) => v.write_plain(out, opts),
            _ => encode_into(&self.to_owned()?, out, opts),
        }
    }

    fn packed_bytes(&self) -> Option<&[u8]> {
        self.as_bytes().ok()
    }
}

impl<T: Arg + ?Sized> Arg for &T {
    fn write_compressed(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        (**self).write_compressed(out, opts)
    }

    fn write_plain(&self, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
        (**self).write_plain(out, opts)
    }

    fn packed_bytes(&self) -> Option<&[u8]> {
        (**self).packed_bytes()
    }
}

fn write_bool(b: bool, out: &mut Vec<u8>) {
    out.push(BOOL | u8::from(b) << 7);
}

fn write_int(i: i64, out: &mut Vec<u8>) {
    if let Ok(x) = i8::try_from(i) {
        out.push(INT);
        out.push(x as u8);
    } else if let Ok(x) = i16::try_from(i) {
        out.push(INT | 1 << 6);
        out.extend_from_slice(&x.to_le_bytes());
    } else if let Ok(x) = i32::try_from(i) {
        out.push(INT | 2 << 6);
        out.extend_from_slice(&x.to_le_bytes());
    } else {
        out.push(INT | 3 << 6);
        out.extend_from_slice(&i.to_le_bytes());
    }
}

/// Writes `v` in the compressed form, as the engine's `encode_and_compress_variant` does: a bool
/// in one byte, an int in the fewest bytes that hold it, anything else as
/// [`encode_into`](gdvariant::encode_into) writes it (in the Godot 4 dialect whatever `opts` says;
/// `opts` chooses double precision and full objects).
///
/// A null object is written as Nil, inside containers as the engine writes it. As the value
/// itself the engine writes `18 00 00 00` (Nil's encoding with the type byte of an Object),
/// which its own receiver cannot decode (it reports an error and calls the method with null in
/// its place); Nil gives the receiver that same null without the error. See
/// `docs/multiplayer.md`.
///
/// ```
/// use gdvariant::{EncodeOptions, Variant};
/// use gdvariant_multiplayer::write_value;
/// let mut out = Vec::new();
/// for v in [Variant::Bool(true), Variant::Int(-2), Variant::Int(1000), Variant::Float(0.5)] {
///     write_value(&v, &mut out, &EncodeOptions::new())?;
/// }
/// assert_eq!(out, [0x81, 0x02, 0xFE, 0x42, 0xE8, 0x03, 3, 0, 0, 0, 0, 0, 0, 0x3F]);
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn write_value(v: &Variant, out: &mut Vec<u8>, opts: &EncodeOptions) -> Result<()> {
    match v {
        Variant::Bool(b) => write_bool(*b, out),
        Variant::Int(i) => write_int(*i, out),
        Variant::Raw(r) if matches!(r.ty(), Some(VariantType::Bool | VariantType::Int)) => {
            let read = ReadOptions::new().with_dialect(r.dialect());
            let x = gdvariant::parse_with(r.as_bytes(), &read)?;
            return x.write_compressed(out, opts);
        }
        _ => encode_into(v, out, &opts.with_dialect(Dialect::Godot4))?,
    }
    Ok(())
}
