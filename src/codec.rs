//! [`VarCodec`]: tokio-util's [`Decoder`] / [`Encoder`] for `StreamPeer.put_var` /
//! `PacketPeerStream` streams (feature `tokio`).
//!
//! Each frame is a `u32` length prefix (little-endian, as the engine writes it unless
//! `big_endian` is set) and one encoded value; see [`framing`](crate::framing). Put the codec on
//! a socket with `tokio_util::codec::Framed` (or `FramedRead` / `FramedWrite` on the halves):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::{SinkExt, StreamExt};
//! use gdvariant::codec::VarCodec;
//! use gdvariant::Variant;
//! use tokio_util::codec::Framed;
//!
//! // A client and a server joined by an in-memory pipe (a TcpStream in real life).
//! let (client, server) = tokio::io::duplex(64 * 1024);
//! let mut client = Framed::new(client, VarCodec::new());
//! let mut server = Framed::new(server, VarCodec::new());
//!
//! client.send(&Variant::from("ping")).await?;
//! client.send(&[0xFF_u8, 0, 0, 0][..]).await?;      // raw bytes: not a valid value
//! client.send(&Variant::Int(7)).await?;
//!
//! // Each item is Ok(packet) or the error of one malformed value; the stream goes on.
//! let first = server.next().await.unwrap()?.unwrap();
//! assert_eq!(first.value().as_str()?, "ping");
//! let bad = server.next().await.unwrap()?.unwrap_err();
//! assert_eq!(bad.to_string(), "unknown type id 255 at offset 20");
//! let third = server.next().await.unwrap()?.unwrap();
//! assert_eq!(third.value().as_i64()?, 7);
//!
//! // Answer with the streaming Writer, written straight into the outgoing buffer.
//! server.send(gdvariant::codec::write_with(|w| {
//!     w.begin_array(Some(2))?;
//!     w.raw(&first.value())?;                          // pass the received value through
//!     w.int(first.byte_len() as i64)?;
//!     w.end()
//! })).await?;
//! let reply = client.next().await.unwrap()?.unwrap();
//! assert_eq!(reply.value().to_owned()?,
//!            Variant::from(vec![Variant::from("ping"), Variant::Int(12)]));
//! # Ok(()) }
//! ```
//!
//! # Decoding
//!
//! [`Decoder::Item`] is `Result<`[`Packet`]`, `[`Error`]`>`: a frame whose value is malformed
//! (or does not fill its frame) is an `Err` *item*, with the absolute stream offset of the
//! problem, and decoding goes on with the next frame; tokio-util ends a `FramedRead` at the
//! first error of the decoder itself, so only what makes the stream unreadable is one: a
//! length prefix over the maximum frame size ([`CodecError::Frame`] of
//! [`ErrorKind::FrameTooLarge`], whose message says how to raise the limit), a stream that
//! ends inside a frame ([`ErrorKind::TruncatedFrame`]), and I/O errors ([`CodecError::Io`]).
//!
//! Every packet is a zero-copy slice of the read buffer: the handler reads the value where the
//! socket wrote it. The decoder never reserves buffer space for what a prefix claims: the
//! buffer grows with the bytes received (tokio-util doubles it as it fills), so a peer that
//! announces 8 MiB and sends 10 bytes costs 8 KiB, not 8 MiB. The maximum frame size is 8 MiB
//! by default ([`DEFAULT_MAX_FRAME`], the engine's own default `encode_buffer_max_size`).
//!
//! # Encoding
//!
//! The codec encodes `&Variant` / `Variant`, a received [`VariantRef`] or [`Packet`] (its
//! exact bytes, passed through), already-encoded value bytes (`&[u8]`, [`Bytes`]: not
//! checked), a value written with the streaming [`Writer`] ([`write_with`]) and, with the
//! `serde` feature, any `Serialize` ([`Serde`]). Values are encoded straight into the
//! outgoing buffer: the prefix is reserved and patched afterwards, so even a 4 MB reply is
//! written once. A value longer than the maximum frame size is refused
//! ([`ErrorKind::FrameTooLarge`]) and nothing is written.
//!
//! With several `Encoder` impls on one codec, the `Sink` methods that take no item need it
//! named: `SinkExt::<Bytes>::flush(&mut framed)` (any of the item types will do);
//! `send` and `feed` infer it from their argument.

use alloc::vec::Vec;
use core::fmt;
use std::io;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use crate::encode::EncodeOptions;
use crate::error::{Error, ErrorKind};
#[cfg(doc)]
use crate::framing::DEFAULT_MAX_FRAME;
use crate::framing::{write_frame, write_frame_with, Endian, FrameOptions};
use crate::owned::Variant;
use crate::packet::Packet;
use crate::types::{Dialect, ReadOptions};
use crate::value::VariantRef;
use crate::writer::Writer;

/// tokio-util codec for length-prefixed value streams; see the [module docs](self).
///
/// ```
/// use gdvariant::codec::VarCodec;
/// use gdvariant::framing::Endian;
/// use gdvariant::Dialect;
/// // A Godot 3 peer with `big_endian = true` that sends values up to 64 MiB.
/// let codec = VarCodec::new()
///     .with_dialect(Dialect::Godot3)
///     .with_endian(Endian::Big)
///     .with_max_frame(64 << 20);
/// assert_eq!(codec.framing().max_frame(), 64 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct VarCodec {
    framing: FrameOptions,
    enc: EncodeOptions,
    /// Absolute stream offset of the next frame's prefix.
    offset: usize,
}

impl Default for VarCodec {
    fn default() -> VarCodec {
        VarCodec::new()
    }
}

impl VarCodec {
    /// Godot 4 values with the engine's defaults, little-endian prefixes, frames of at most
    /// 8 MiB.
    pub fn new() -> VarCodec {
        VarCodec::with_options(FrameOptions::new(), EncodeOptions::new())
    }

    /// A codec that reads frames as `framing` says and writes values as `enc` says.
    pub fn with_options(framing: FrameOptions, enc: EncodeOptions) -> VarCodec {
        VarCodec {
            framing,
            enc,
            offset: 0,
        }
    }

    /// Sets the dialect of the values read and written.
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> VarCodec {
        self.framing = self
            .framing
            .with_read_options(self.framing.read_options().with_dialect(dialect));
        self.enc = self.enc.with_dialect(dialect);
        self
    }

    /// Sets the byte order of the length prefix (`StreamPeer.big_endian`).
    #[must_use]
    pub fn with_endian(mut self, endian: Endian) -> VarCodec {
        self.framing = self.framing.with_endian(endian);
        self
    }

    /// Sets the largest frame (value bytes, prefix not counted) read or written.
    #[must_use]
    pub fn with_max_frame(mut self, max: usize) -> VarCodec {
        self.framing = self.framing.with_max_frame(max);
        self
    }

    /// Sets how received values are read (dialect, depth limit, objects).
    #[must_use]
    pub fn with_read_options(mut self, read: ReadOptions) -> VarCodec {
        self.framing = self.framing.with_read_options(read);
        self
    }

    /// Sets how values are written.
    #[must_use]
    pub fn with_encode_options(mut self, enc: EncodeOptions) -> VarCodec {
        self.enc = enc;
        self
    }

    /// The framing options (byte order, maximum frame size, read options).
    pub fn framing(&self) -> &FrameOptions {
        &self.framing
    }

    /// The options values are written with.
    pub fn encode_options(&self) -> &EncodeOptions {
        &self.enc
    }

    /// The absolute offset in the received stream of the next frame's prefix.
    pub fn stream_offset(&self) -> usize {
        self.offset
    }

    /// Appends one frame whose value bytes are `value` (not checked) to `dst`.
    fn put_raw(&self, value: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        let len = self.frame_len(value.len())?;
        dst.reserve(4 + value.len());
        match self.framing.endian() {
            Endian::Little => dst.put_u32_le(len),
            Endian::Big => dst.put_u32(len),
        }
        dst.extend_from_slice(value);
        Ok(())
    }

    fn frame_len(&self, len: usize) -> Result<u32, CodecError> {
        match u32::try_from(len) {
            Ok(n) if len <= self.framing.max_frame() => Ok(n),
            _ => Err(CodecError::Frame(Error::new(
                ErrorKind::FrameTooLarge {
                    len: len as u64,
                    max: self.framing.max_frame() as u64,
                },
                0,
            ))),
        }
    }
}

/// Runs `f` on the buffer as a `Vec<u8>` without copying it (the conversions of `bytes` reuse
/// the allocation when the buffer is not shared), so that the encoder and the streaming
/// [`Writer`], which write into a `Vec`, write straight into the outgoing buffer.
fn in_place<R>(dst: &mut BytesMut, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    let mut buf = Vec::from(core::mem::take(dst));
    let r = f(&mut buf);
    *dst = BytesMut::from(Bytes::from(buf));
    r
}

impl Decoder for VarCodec {
    type Item = Result<Packet, Error>;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        let Some(prefix) = src.first_chunk::<4>() else {
            return Ok(None);
        };
        let claimed = match self.framing.endian() {
            Endian::Little => u32::from_le_bytes(*prefix),
            Endian::Big => u32::from_be_bytes(*prefix),
        };
        if claimed as u64 > self.framing.max_frame() as u64 {
            return Err(CodecError::Frame(Error::new(
                ErrorKind::FrameTooLarge {
                    len: u64::from(claimed),
                    max: self.framing.max_frame() as u64,
                },
                self.offset,
            )));
        }
        let len = claimed as usize;
        if src.len() - 4 < len {
            // Wait for the rest; nothing reserved for it (see the module docs).
            return Ok(None);
        }
        src.advance(4);
        let frame = src.split_to(len).freeze();
        let at = self.offset + 4;
        self.offset = at + len;
        Ok(Some(Packet::checked(
            frame,
            at,
            &self.framing.read_options(),
            self.framing.allow_trailing(),
        )))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        if let Some(item) = self.decode(src)? {
            return Ok(Some(item));
        }
        if src.is_empty() {
            return Ok(None);
        }
        let needed = match src.first_chunk::<4>() {
            None => 4 - src.len(),
            Some(prefix) => {
                let len = match self.framing.endian() {
                    Endian::Little => u32::from_le_bytes(*prefix),
                    Endian::Big => u32::from_be_bytes(*prefix),
                } as usize;
                len + 4 - src.len()
            }
        };
        Err(CodecError::Frame(Error::new(
            ErrorKind::TruncatedFrame { needed },
            self.offset,
        )))
    }
}

impl Encoder<&Variant> for VarCodec {
    type Error = CodecError;

    fn encode(&mut self, v: &Variant, dst: &mut BytesMut) -> Result<(), CodecError> {
        in_place(dst, |buf| write_frame(buf, v, &self.enc, &self.framing))
            .map_err(CodecError::Frame)
    }
}

impl Encoder<Variant> for VarCodec {
    type Error = CodecError;

    fn encode(&mut self, v: Variant, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&v, dst)
    }
}

impl Encoder<VariantRef<'_>> for VarCodec {
    type Error = CodecError;

    /// Writes the value's exact bytes (a received value or sub-tree passed through); it must
    /// have been read in the codec's dialect.
    fn encode(&mut self, v: VariantRef<'_>, dst: &mut BytesMut) -> Result<(), CodecError> {
        if v.dialect() != self.enc.dialect() {
            return Err(CodecError::Frame(Error::new(
                ErrorKind::WriterMisuse {
                    what: "raw value encoded in the other dialect",
                },
                0,
            )));
        }
        self.put_raw(v.raw().map_err(CodecError::Frame)?, dst)
    }
}

impl Encoder<&Packet> for VarCodec {
    type Error = CodecError;

    /// Writes the packet's exact bytes; it must have been read in the codec's dialect.
    fn encode(&mut self, p: &Packet, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(p.value(), dst)
    }
}

impl Encoder<Packet> for VarCodec {
    type Error = CodecError;

    /// Writes the packet's exact bytes; it must have been read in the codec's dialect.
    fn encode(&mut self, p: Packet, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&p, dst)
    }
}

impl Encoder<&[u8]> for VarCodec {
    type Error = CodecError;

    /// Writes one frame of already-encoded value bytes, unchecked (from
    /// [`encode`](crate::encode()), a [`Writer`], [`VariantRef::raw`]).
    fn encode(&mut self, value: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        self.put_raw(value, dst)
    }
}

impl Encoder<Bytes> for VarCodec {
    type Error = CodecError;

    /// Writes one frame of already-encoded value bytes, unchecked.
    fn encode(&mut self, value: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.put_raw(&value, dst)
    }
}

/// A value to write with the streaming [`Writer`] straight into the codec's outgoing buffer;
/// see [`write_with`].
pub struct WriteWith<F>(pub F);

impl<F> fmt::Debug for WriteWith<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WriteWith(..)")
    }
}

/// Sends one value written by `f` with a streaming [`Writer`]: the frame's prefix is reserved
/// in the outgoing buffer, `f` writes the value right after it, and the prefix is patched, so
/// the value is written once, in place (a 4 MB reply is never copied). `f` must write exactly
/// one top-level value and close every container; on an error nothing is sent. See the
/// [module docs](self) for an example.
pub fn write_with<F>(f: F) -> WriteWith<F>
where
    F: FnOnce(&mut Writer) -> Result<(), Error>,
{
    WriteWith(f)
}

impl<F> Encoder<WriteWith<F>> for VarCodec
where
    F: FnOnce(&mut Writer) -> Result<(), Error>,
{
    type Error = CodecError;

    fn encode(&mut self, item: WriteWith<F>, dst: &mut BytesMut) -> Result<(), CodecError> {
        in_place(dst, |buf| {
            write_frame_with(buf, &self.enc, &self.framing, item.0)
        })
        .map_err(CodecError::Frame)
    }
}

/// Any `T: Serialize` to send as a value (feature `serde`), written with
/// [`to_writer`](crate::ser::to_writer) straight into the codec's outgoing buffer.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::{SinkExt, StreamExt};
/// use gdvariant::codec::{Serde, VarCodec};
/// use tokio_util::codec::Framed;
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Hit<'a> { target: &'a str, damage: i32 }
///
/// let (a, b) = tokio::io::duplex(4096);
/// let (mut a, mut b) = (Framed::new(a, VarCodec::new()), Framed::new(b, VarCodec::new()));
/// a.send(Serde(Hit { target: "orc", damage: 12 })).await?;
/// let packet = b.next().await.unwrap()?.unwrap();
/// let hit: Hit<'_> = packet.deserialize()?;
/// assert_eq!((hit.target, hit.damage), ("orc", 12));
/// # Ok(()) }
/// ```
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Serde<T>(pub T);

#[cfg(feature = "serde")]
impl<T: serde::Serialize> Encoder<Serde<T>> for VarCodec {
    type Error = CodecError;

    fn encode(&mut self, item: Serde<T>, dst: &mut BytesMut) -> Result<(), CodecError> {
        let mut failed = None;
        let res = in_place(dst, |buf| {
            write_frame_with(buf, &self.enc, &self.framing, |w| {
                crate::ser::to_writer(w, &item.0).map_err(|e| {
                    let at = w.bytes().len();
                    failed = Some(e);
                    Error::new(
                        ErrorKind::WriterMisuse {
                            what: "writer misuse",
                        },
                        at,
                    )
                })
            })
        });
        match (res, failed) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(e)) => Err(CodecError::Serialize(e)),
            (Err(e), None) => Err(CodecError::Frame(e)),
        }
    }
}

/// An error that ends a framed stream (the decoder's and the encoder's `Error`).
///
/// A malformed value in a well-formed frame is not one of these: it is an `Err` item of the
/// stream (see the [module docs](self)).
#[derive(Debug)]
#[non_exhaustive]
pub enum CodecError {
    /// The underlying stream failed.
    Io(io::Error),
    /// The framing is broken (a length prefix over the maximum frame size, the stream ended
    /// inside a frame), or a value to send could not be framed or encoded.
    Frame(Error),
    /// A value to send with [`Serde`] could not be serialized (feature `serde`).
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    Serialize(crate::ser::Error),
}

impl CodecError {
    /// The format error, if this is one.
    pub fn format_error(&self) -> Option<&Error> {
        match self {
            CodecError::Frame(e) => Some(e),
            #[cfg(feature = "serde")]
            CodecError::Serialize(crate::ser::Error::Format(e)) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::Io(e) => write!(f, "I/O error: {e}"),
            CodecError::Frame(e) => {
                e.fmt(f)?;
                if let ErrorKind::FrameTooLarge { max, .. } = e.kind() {
                    write!(
                        f,
                        " (the codec's maximum frame size is {max} bytes; if the peer really \
                         sends or expects larger values, raise it with \
                         VarCodec::with_max_frame / FrameOptions::with_max_frame; the engine's \
                         own PacketPeer limit is encode_buffer_max_size, 8 MiB by default)"
                    )?;
                }
                Ok(())
            }
            #[cfg(feature = "serde")]
            CodecError::Serialize(e) => write!(f, "cannot serialize the value: {e}"),
        }
    }
}

impl std::error::Error for CodecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CodecError::Io(e) => Some(e),
            CodecError::Frame(e) => Some(e),
            #[cfg(feature = "serde")]
            CodecError::Serialize(e) => Some(e),
        }
    }
}

impl From<io::Error> for CodecError {
    fn from(e: io::Error) -> CodecError {
        CodecError::Io(e)
    }
}

impl From<CodecError> for io::Error {
    /// `Io` errors as they are; the others as `InvalidData` (`UnexpectedEof` for a truncated
    /// frame) wrapping the `CodecError`.
    fn from(e: CodecError) -> io::Error {
        match e {
            CodecError::Io(e) => e,
            other => {
                let kind = match other.format_error().map(Error::kind) {
                    Some(ErrorKind::TruncatedFrame { .. }) => io::ErrorKind::UnexpectedEof,
                    _ => io::ErrorKind::InvalidData,
                };
                io::Error::new(kind, other)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_keeps_the_allocation() {
        let mut dst = BytesMut::with_capacity(1 << 20);
        dst.extend_from_slice(b"pending");
        let before = dst.as_ptr();
        let mut codec = VarCodec::new();
        codec
            .encode(write_with(|w| w.packed_f32(&[1.5; 1000])), &mut dst)
            .unwrap();
        assert_eq!(dst.as_ptr(), before);
        assert_eq!(&dst[..7], b"pending");
        assert_eq!(dst.len(), 7 + 4 + 8 + 4000);
    }
}
