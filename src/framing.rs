//! Length-prefixed streams of values: `StreamPeer.put_var`, `PacketPeerStream`,
//! `FileAccess.store_var`.
//!
//! Each frame is a `u32` byte length followed by one encoded value. The prefix is little-endian
//! unless the peer or file set `big_endian` (the value itself is always little-endian). Every
//! reader here caps the frame size ([`DEFAULT_MAX_FRAME`], 8 MiB, by default): the engine's
//! `get_var` allocates whatever a prefix claims, a known denial of service.
//!
//! - [`frames`]: iterate over the values of a buffer that holds whole frames (a capture, a file);
//!   [`raw_frames`] splits the frames without reading their values.
//! - [`FrameWriter`] / [`write_frame`]: append frames to a buffer; [`write_frame_with`] writes
//!   a frame with the streaming [`Writer`] straight into the buffer (prefix reserved and patched).
//! - [`FrameDecoder`]: an incremental decoder for sockets, fed bytes as they arrive.
//! - [`FrameReader`] and [`write_frame_to`] (feature `std`): `std::io` adapters.
//! - With tokio, `codec::VarCodec` (feature `tokio`) and `packet::Packet` (feature `bytes`).
//!
//! Error offsets are absolute in the whole stream.
//!
//! ```
//! use gdvariant::framing::{frames, FrameOptions, FrameWriter};
//! use gdvariant::{EncodeOptions, Variant};
//! let mut w = FrameWriter::new(FrameOptions::new(), EncodeOptions::new());
//! w.value(&Variant::Int(1))?;
//! w.value(&Variant::from("two"))?;
//! let stream = w.into_inner();
//! let values: Vec<Variant> = frames(&stream, &FrameOptions::new())
//!     .map(|f| f?.to_owned())
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(values, [Variant::Int(1), Variant::from("two")]);
//! # Ok::<(), gdvariant::Error>(())
//! ```

use alloc::vec::Vec;
use core::iter::FusedIterator;

use crate::encode::{encode_into, EncodeOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::owned::Variant;
use crate::reader::Reader;
use crate::types::ReadOptions;
use crate::value::VariantRef;
use crate::walker::read_value;
use crate::writer::Writer;

/// The engine's default maximum encoded size of a value sent with `put_var`: 8 MiB.
pub const DEFAULT_MAX_FRAME: usize = 8 << 20;

/// The byte order of the length prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Little-endian, the engine's default.
    #[default]
    Little,
    /// Big-endian (`StreamPeer.big_endian = true`, `FileAccess.big_endian = true`).
    Big,
}

impl Endian {
    #[inline]
    fn read(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    #[inline]
    fn write(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

/// How frames are laid out and read: prefix byte order, maximum frame size, how values are
/// read, and whether bytes after a value inside its frame are allowed.
///
/// ```
/// use gdvariant::framing::{Endian, FrameOptions};
/// let opts = FrameOptions::new().with_endian(Endian::Big).with_max_frame(65_532);
/// assert_eq!(opts.max_frame(), 65_532);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameOptions {
    endian: Endian,
    max_frame: usize,
    read: ReadOptions,
    allow_trailing: bool,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions::new()
    }
}

impl FrameOptions {
    /// Little-endian prefixes, frames of at most 8 MiB, Godot 4 values read with the engine's
    /// defaults, no bytes after a value inside its frame.
    pub const fn new() -> FrameOptions {
        FrameOptions {
            endian: Endian::Little,
            max_frame: DEFAULT_MAX_FRAME,
            read: ReadOptions::new(),
            allow_trailing: false,
        }
    }

    /// Sets the byte order of the length prefix.
    #[must_use]
    pub const fn with_endian(mut self, endian: Endian) -> FrameOptions {
        self.endian = endian;
        self
    }

    /// Sets the largest frame (value bytes, prefix not counted) that is accepted or written.
    #[must_use]
    pub const fn with_max_frame(mut self, max: usize) -> FrameOptions {
        self.max_frame = max;
        self
    }

    /// Sets how the values are read (dialect, depth limit, objects).
    #[must_use]
    pub const fn with_read_options(mut self, read: ReadOptions) -> FrameOptions {
        self.read = read;
        self
    }

    /// Accepts frames longer than their value (the engine ignores such bytes). Off by default:
    /// they are an [`ErrorKind::TrailingBytesInFrame`] error.
    #[must_use]
    pub const fn with_allow_trailing(mut self, allow: bool) -> FrameOptions {
        self.allow_trailing = allow;
        self
    }

    /// The prefix byte order.
    pub const fn endian(&self) -> Endian {
        self.endian
    }

    /// The maximum frame size.
    pub const fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// The options values are read with.
    pub const fn read_options(&self) -> ReadOptions {
        self.read
    }

    /// Whether bytes after a value inside its frame are accepted.
    pub const fn allow_trailing(&self) -> bool {
        self.allow_trailing
    }

    /// Checks a prefix's length against the maximum; `at` is the prefix's offset.
    #[inline]
    fn check_len(&self, len: u32, at: usize) -> Result<usize> {
        if len as u64 > self.max_frame as u64 {
            return Err(Error::new(
                ErrorKind::FrameTooLarge {
                    len: u64::from(len),
                    max: self.max_frame as u64,
                },
                at,
            ));
        }
        Ok(len as usize)
    }

    /// Reads the value of a complete frame whose value bytes start at absolute offset `at`.
    fn value<'a>(&self, frame: &'a [u8], at: usize) -> Result<VariantRef<'a>> {
        let mut r = Reader::new(frame, at);
        let v = read_value(&mut r, 0, &self.read)?;
        let extra = frame.len() - r.pos();
        if extra != 0 && !self.allow_trailing {
            return Err(Error::new(
                ErrorKind::TrailingBytesInFrame { extra },
                r.offset(),
            ));
        }
        Ok(v)
    }
}

/// Iterates over the values of `buf`, a sequence of whole frames; see [`Frames`].
pub fn frames<'a>(buf: &'a [u8], opts: &FrameOptions) -> Frames<'a> {
    Frames {
        raw: raw_frames(buf, opts),
    }
}

/// Iterates over the frames of `buf` without reading their values; see [`RawFrames`].
pub fn raw_frames<'a>(buf: &'a [u8], opts: &FrameOptions) -> RawFrames<'a> {
    RawFrames {
        buf,
        pos: 0,
        opts: *opts,
    }
}

/// One frame of a buffer: where its value starts and the value's bytes (the prefix's length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawFrame<'a> {
    /// The absolute offset of the value (just after the length prefix).
    pub offset: usize,
    /// The frame's bytes after the prefix, as many as the prefix says.
    pub bytes: &'a [u8],
}

/// The frames of a buffer, split by their length prefixes (byte order and maximum size from the
/// [`FrameOptions`]) but not read: for tools that read each value in several ways. It yields `Err`
/// for a truncated last frame or prefix ([`ErrorKind::TruncatedFrame`]) or a frame longer than
/// the maximum ([`ErrorKind::FrameTooLarge`]), and then ends.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct RawFrames<'a> {
    buf: &'a [u8],
    pos: usize,
    opts: FrameOptions,
}

impl<'a> RawFrames<'a> {
    /// The offset of the next frame's prefix.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The next frame, `Ok(None)` at the end of the buffer.
    pub fn try_next(&mut self) -> Result<Option<RawFrame<'a>>> {
        let rest = self.buf.get(self.pos..).unwrap_or(&[]);
        if rest.is_empty() {
            return Ok(None);
        }
        let at = self.pos;
        let res = (|| {
            let Some((prefix, body)) = rest.split_first_chunk::<4>() else {
                return Err(Error::new(
                    ErrorKind::TruncatedFrame {
                        needed: 4 - rest.len(),
                    },
                    at,
                ));
            };
            let len = self.opts.check_len(self.opts.endian.read(*prefix), at)?;
            match body.get(..len) {
                Some(bytes) => Ok(RawFrame {
                    offset: at + 4,
                    bytes,
                }),
                None => Err(Error::new(
                    ErrorKind::TruncatedFrame {
                        needed: len - body.len(),
                    },
                    at,
                )),
            }
        })();
        match res {
            Ok(f) => {
                self.pos = f.offset + f.bytes.len();
                Ok(Some(f))
            }
            Err(e) => {
                self.pos = self.buf.len();
                Err(e)
            }
        }
    }
}

impl<'a> Iterator for RawFrames<'a> {
    type Item = Result<RawFrame<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }
}

impl FusedIterator for RawFrames<'_> {}

/// The values of a buffer of frames, each a [`VariantRef`] (its size known, its strings checked
/// on access). The iterator yields `Err` for the first bad frame and then ends: a truncated last
/// frame or prefix ([`ErrorKind::TruncatedFrame`]), a frame longer than the maximum
/// ([`ErrorKind::FrameTooLarge`]), a value that is malformed or does not fill its frame.
#[must_use = "iterators are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    raw: RawFrames<'a>,
}

impl<'a> Frames<'a> {
    /// The offset of the next frame's prefix.
    pub fn offset(&self) -> usize {
        self.raw.offset()
    }

    /// The next value, `Ok(None)` at the end of the buffer.
    pub fn try_next(&mut self) -> Result<Option<VariantRef<'a>>> {
        let Some(f) = self.raw.try_next()? else {
            return Ok(None);
        };
        let v = self.raw.opts.value(f.bytes, f.offset);
        if v.is_err() {
            self.raw.pos = self.raw.buf.len();
        }
        v.map(Some)
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<VariantRef<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.try_next().transpose()
    }
}

impl FusedIterator for Frames<'_> {}

/// Appends one frame holding `v` to `out`. On error `out` is unchanged; a value longer than the
/// maximum frame size is an [`ErrorKind::FrameTooLarge`] error.
pub fn write_frame(
    out: &mut Vec<u8>,
    v: &Variant,
    enc: &EncodeOptions,
    framing: &FrameOptions,
) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let res = encode_into(v, out, enc)
        .map_err(|e| e.shifted(4))
        .and_then(|()| {
            let len = out.len() - start - 4;
            patch_len(out, start, len, framing)
        });
    if res.is_err() {
        out.truncate(start);
    }
    res
}

/// Appends one frame holding already-encoded value bytes (from [`encode`](crate::encode()), a
/// [`Writer`] or [`VariantRef::raw`]).
pub fn write_raw_frame(out: &mut Vec<u8>, value: &[u8], framing: &FrameOptions) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    if let Err(e) = patch_len(out, start, value.len(), framing) {
        out.truncate(start);
        return Err(e);
    }
    out.extend_from_slice(value);
    Ok(())
}

/// Appends one frame whose value `f` writes with a streaming [`Writer`], straight into `out`:
/// the length prefix is reserved first and patched when `f` returns, so a big value is written
/// once, in place. `f` must write exactly one value and close every container. On error (from
/// `f`, a container left open, no value or more than one, a value longer than the maximum
/// frame size) `out` is unchanged. Error offsets count from the frame's prefix.
///
/// ```
/// use gdvariant::framing::{frames, write_frame_with, FrameOptions};
/// use gdvariant::EncodeOptions;
/// let mut out = Vec::new();
/// write_frame_with(&mut out, &EncodeOptions::new(), &FrameOptions::new(), |w| {
///     w.begin_dictionary(None)?;
///     w.string("samples")?;
///     w.packed_f32(&[0.5; 1000])?;
///     w.end()
/// })?;
/// assert_eq!(&out[..4], &4032u32.to_le_bytes());
/// let v = frames(&out, &FrameOptions::new()).next().unwrap()?;
/// assert_eq!(v.path("samples")?.unwrap().as_packed::<f32>()?.len(), 1000);
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn write_frame_with(
    out: &mut Vec<u8>,
    enc: &EncodeOptions,
    framing: &FrameOptions,
    f: impl FnOnce(&mut Writer) -> Result<()>,
) -> Result<()> {
    let start = out.len();
    let mut buf = core::mem::take(out);
    buf.extend_from_slice(&[0; 4]);
    let mut w = Writer::with_buffer(buf, *enc);
    let res = f(&mut w).and_then(|()| {
        if w.depth() == 0 {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::WriterMisuse {
                    what: "finish with open containers",
                },
                w.bytes().len() - start - 4,
            ))
        }
    });
    let mut buf = w.into_inner();
    let res = res
        .and_then(|()| one_value(&buf[start + 4..], enc))
        .map_err(|e| e.shifted(4))
        .and_then(|()| {
            let len = buf.len() - start - 4;
            patch_len(&mut buf, start, len, framing)
        });
    if res.is_err() {
        buf.truncate(start);
    }
    *out = buf;
    res
}

/// Checks that `value` (what a [`Writer`] wrote) is exactly one value: a walk of its structure
/// (packed arrays are skipped in O(1), nothing is decoded).
fn one_value(value: &[u8], enc: &EncodeOptions) -> Result<()> {
    let misuse = |what, at| Err(Error::new(ErrorKind::WriterMisuse { what }, at));
    if value.is_empty() {
        return misuse("no value written for the frame", 0);
    }
    let mut r = Reader::new(value, 0);
    crate::walker::skip_value(&mut r, 0, &read_options_for(enc))?;
    if r.pos() != value.len() {
        return misuse("more than one value written for the frame", r.pos());
    }
    Ok(())
}

/// The options that read back what `enc` writes.
pub(crate) fn read_options_for(enc: &EncodeOptions) -> ReadOptions {
    ReadOptions::new()
        .with_dialect(enc.dialect())
        .with_full_objects(enc.full_objects())
        .with_max_depth(enc.max_depth())
}

fn patch_len(out: &mut [u8], start: usize, len: usize, framing: &FrameOptions) -> Result<()> {
    if len > framing.max_frame || len > u32::MAX as usize {
        return Err(Error::new(
            ErrorKind::FrameTooLarge {
                len: len as u64,
                max: framing.max_frame as u64,
            },
            0,
        ));
    }
    if let Some(slot) = out.get_mut(start..start + 4) {
        slot.copy_from_slice(&framing.endian.write(len as u32));
    }
    Ok(())
}

/// Builds a stream of frames in a buffer.
///
/// It buffers by design: frames accumulate in memory (one allocation, reused after
/// [`clear`](FrameWriter::clear)) and go out in one `write_all` with
/// [`flush_to`](FrameWriter::flush_to) (feature `std`), so a burst of small replies costs one
/// system call.
#[derive(Clone, Debug)]
pub struct FrameWriter {
    buf: Vec<u8>,
    framing: FrameOptions,
    enc: EncodeOptions,
}

impl Default for FrameWriter {
    /// A frame writer with the default [`FrameOptions`] and [`EncodeOptions`].
    fn default() -> FrameWriter {
        FrameWriter::new(FrameOptions::new(), EncodeOptions::new())
    }
}

impl FrameWriter {
    /// An empty stream.
    pub fn new(framing: FrameOptions, enc: EncodeOptions) -> FrameWriter {
        FrameWriter {
            buf: Vec::new(),
            framing,
            enc,
        }
    }

    /// Appends a frame holding `v`; see [`write_frame`].
    pub fn value(&mut self, v: &Variant) -> Result<()> {
        write_frame(&mut self.buf, v, &self.enc, &self.framing)
    }

    /// Appends a frame holding already-encoded value bytes; see [`write_raw_frame`].
    pub fn raw(&mut self, value: &[u8]) -> Result<()> {
        write_raw_frame(&mut self.buf, value, &self.framing)
    }

    /// Appends a frame whose value `f` writes with a streaming [`Writer`], in place (the prefix
    /// reserved and patched); see [`write_frame_with`].
    pub fn write_with(&mut self, f: impl FnOnce(&mut Writer) -> Result<()>) -> Result<()> {
        write_frame_with(&mut self.buf, &self.enc, &self.framing, f)
    }

    /// The stream so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The buffer the frames are appended to.
    pub fn get_ref(&self) -> &Vec<u8> {
        &self.buf
    }

    /// The buffer the frames are appended to, to send part of it or to append other bytes
    /// (whatever is appended becomes part of the stream).
    pub fn get_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Empties the buffer (keeping its allocation), e.g. after sending it.
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// The stream.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

/// What [`FrameDecoder::decode`] produced.
#[derive(Clone, Copy, Debug)]
pub enum Decoded<'a> {
    /// The current frame needs at least this many more bytes.
    NeedMore(usize),
    /// A complete frame's value, borrowed from the decoder until the next call.
    Frame(VariantRef<'a>),
}

/// An incremental frame decoder for sockets: feed it bytes as they arrive.
///
/// It takes from the input only what the current frame needs and buffers at most one frame
/// (never more than the maximum frame size plus the prefix; the buffer grows with the data
/// received, not with what a prefix claims). A prefix over the maximum is an error that
/// sticks (the stream cannot be resynchronised); a malformed value is reported for its frame and
/// decoding goes on with the next one.
///
/// ```
/// use gdvariant::framing::{Decoded, FrameDecoder, FrameOptions};
/// let stream = [8, 0, 0, 0, 2, 0, 0, 0, 42, 0, 0, 0];
/// let mut dec = FrameDecoder::new(FrameOptions::new());
/// let (first, second) = stream.split_at(5);
/// let mut input = first;
/// assert!(matches!(dec.decode(&mut input)?, Decoded::NeedMore(7)));
/// let mut input = second;
/// match dec.decode(&mut input)? {
///     Decoded::Frame(v) => assert_eq!(v.as_i64()?, 42),
///     Decoded::NeedMore(_) => unreachable!(),
/// }
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FrameDecoder {
    opts: FrameOptions,
    prefix: [u8; 4],
    prefix_len: usize,
    frame_len: Option<usize>,
    buf: Vec<u8>,
    /// Absolute offset of the current frame's prefix in the stream.
    frame_at: usize,
    /// The last call returned the current frame: move on at the next call.
    done: bool,
    failed: Option<Error>,
}

impl Default for FrameDecoder {
    /// A decoder with the default [`FrameOptions`].
    fn default() -> FrameDecoder {
        FrameDecoder::new(FrameOptions::new())
    }
}

impl FrameDecoder {
    /// A decoder at the start of a stream.
    pub fn new(opts: FrameOptions) -> FrameDecoder {
        FrameDecoder {
            opts,
            prefix: [0; 4],
            prefix_len: 0,
            frame_len: None,
            buf: Vec::new(),
            frame_at: 0,
            done: false,
            failed: None,
        }
    }

    /// How many more bytes the current frame needs (at least 1; 4 at a frame boundary).
    pub fn needed(&self) -> usize {
        if self.done {
            return 4;
        }
        match self.frame_len {
            None => 4 - self.prefix_len,
            Some(len) => len - self.buf.len(),
        }
    }

    /// The number of bytes buffered for the current frame (its prefix included).
    pub fn buffered(&self) -> usize {
        if self.done {
            return 0;
        }
        self.prefix_len + self.buf.len()
    }

    /// The absolute stream offset of the current frame's prefix.
    pub fn frame_offset(&self) -> usize {
        self.frame_at
    }

    /// Whether the stream ended cleanly if no more bytes come: no partial frame is buffered.
    pub fn at_boundary(&self) -> bool {
        self.buffered() == 0
    }

    /// An error for the end of the stream: [`ErrorKind::TruncatedFrame`] if a partial frame is
    /// buffered, `Ok(())` at a frame boundary.
    pub fn finish(&self) -> Result<()> {
        if self.at_boundary() {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::TruncatedFrame {
                    needed: self.needed(),
                },
                self.frame_at,
            ))
        }
    }

    /// Takes bytes from the front of `input` (advancing it past what was used, never past the
    /// current frame) and returns the completed frame's value or how many bytes are still
    /// needed.
    pub fn decode<'s>(&'s mut self, input: &mut &[u8]) -> Result<Decoded<'s>> {
        if self.fill(input)? {
            self.current().map(Decoded::Frame)
        } else {
            Ok(Decoded::NeedMore(self.needed()))
        }
    }

    /// The value of the frame just completed.
    fn current(&self) -> Result<VariantRef<'_>> {
        self.opts.value(&self.buf, self.frame_at + 4)
    }

    /// Moves past the frame returned by the last call, if any.
    #[inline]
    fn advance(&mut self) {
        if self.done {
            self.frame_at += 4 + self.buf.len();
            self.buf.clear();
            self.prefix_len = 0;
            self.frame_len = None;
            self.done = false;
        }
    }

    /// Checks the complete prefix; an oversize length sticks as the decoder's error.
    fn check_prefix(&mut self) -> Result<usize> {
        let res = self
            .opts
            .check_len(self.opts.endian.read(self.prefix), self.frame_at);
        if let Err(e) = &res {
            self.failed = Some(e.clone());
        }
        res
    }

    /// Takes what the current frame needs from `input`; true when the frame is complete.
    fn fill(&mut self, input: &mut &[u8]) -> Result<bool> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.advance();
        let len = match self.frame_len {
            Some(len) => len,
            None => {
                let take = (4 - self.prefix_len).min(input.len());
                let (head, rest) = input.split_at(take);
                self.prefix[self.prefix_len..self.prefix_len + take].copy_from_slice(head);
                self.prefix_len += take;
                *input = rest;
                if self.prefix_len < 4 {
                    return Ok(false);
                }
                let len = self.check_prefix()?;
                self.frame_len = Some(len);
                len
            }
        };
        let take = (len - self.buf.len()).min(input.len());
        let (head, rest) = input.split_at(take);
        if self.buf.capacity() - self.buf.len() < take {
            // Grow with the data received (doubling), never beyond the frame.
            let want = take.max(self.buf.len().min(len - self.buf.len()));
            self.buf.reserve_exact(want);
        }
        self.buf.extend_from_slice(head);
        *input = rest;
        if self.buf.len() < len {
            return Ok(false);
        }
        self.done = true;
        Ok(true)
    }
}

#[cfg(feature = "std")]
mod io {
    use super::*;
    use std::io::{self, Read, Write};

    fn io_error(e: Error) -> io::Error {
        let kind = match e.kind() {
            ErrorKind::TruncatedFrame { .. } => io::ErrorKind::UnexpectedEof,
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, e)
    }

    /// Reads frames from a [`Read`] (a `TcpStream`, a file written with `store_var`).
    ///
    /// Errors of the format are `io::Error`s of kind `InvalidData` (`UnexpectedEof` for a
    /// truncated last frame) wrapping the crate's [`Error`], which `io::Error::get_ref` /
    /// `into_inner` give back. A prefix over the maximum frame size is an error that sticks; a
    /// malformed value is reported for its frame and the next call reads the next frame.
    ///
    /// # Buffering
    ///
    /// The reader takes from `R` only what the current frame needs: one `read` for the 4-byte
    /// prefix, then the body straight into the frame buffer (`Read::take` + `read_to_end`: no
    /// intermediate copy, the buffer grows with the bytes received, never with what a prefix
    /// claims). So it can be handed back mid-stream with [`into_inner`](FrameReader::into_inner)
    /// and nothing is lost. It does not read ahead: on a socket each frame costs at least two
    /// system calls. For many small frames wrap the socket in a [`std::io::BufReader`]
    /// (`FrameReader::new(BufReader::new(stream), opts)`): then one system call reads many
    /// frames, and `into_inner` gives back the `BufReader` with the bytes it read ahead. A
    /// `WouldBlock` or other I/O error from a non-blocking reader keeps what was read; call
    /// again when the reader is ready.
    ///
    /// ```
    /// use gdvariant::framing::{FrameOptions, FrameReader};
    /// use std::io::BufReader;
    /// let file: &[u8] = &[8, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0];
    /// let mut r = FrameReader::new(BufReader::new(file), FrameOptions::new());
    /// assert_eq!(r.next_frame()?.unwrap().as_i64().unwrap(), 7);
    /// assert!(r.next_frame()?.is_none());
    /// assert!(r.get_ref().buffer().is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[derive(Debug)]
    pub struct FrameReader<R> {
        inner: R,
        dec: FrameDecoder,
    }

    impl<R: Read> FrameReader<R> {
        /// A reader of frames laid out as `opts` says.
        pub fn new(inner: R, opts: FrameOptions) -> FrameReader<R> {
            FrameReader {
                inner,
                dec: FrameDecoder::new(opts),
            }
        }

        /// The next frame's value, `Ok(None)` when the input ends at a frame boundary.
        pub fn next_frame(&mut self) -> io::Result<Option<VariantRef<'_>>> {
            loop {
                match self.dec.read_from(&mut self.inner)? {
                    Step::Frame => return self.dec.current().map(Some).map_err(io_error),
                    Step::More => {}
                    Step::Eof => {
                        return match self.dec.finish() {
                            Ok(()) => Ok(None),
                            Err(e) => Err(io_error(e)),
                        }
                    }
                }
            }
        }

        /// The decoder's state: how much of the current frame is buffered, the stream offset.
        pub fn decoder(&self) -> &FrameDecoder {
            &self.dec
        }
    }

    impl<R> FrameReader<R> {
        /// The underlying reader.
        pub fn get_ref(&self) -> &R {
            &self.inner
        }

        /// The underlying reader, mutably. Reading from it directly desynchronises the frames
        /// unless it is done at a frame boundary ([`FrameDecoder::at_boundary`]).
        pub fn get_mut(&mut self) -> &mut R {
            &mut self.inner
        }

        /// The underlying reader; nothing beyond the last frame returned was taken from it,
        /// except a partial frame still buffered ([`decoder`](FrameReader::decoder)).
        pub fn into_inner(self) -> R {
            self.inner
        }
    }

    enum Step {
        Frame,
        More,
        Eof,
    }

    impl FrameDecoder {
        /// Reads what the current frame needs from `r`: the prefix with one `read`, the body
        /// straight into the frame buffer.
        fn read_from<R: Read>(&mut self, r: &mut R) -> io::Result<Step> {
            if let Some(e) = &self.failed {
                return Err(io_error(e.clone()));
            }
            self.advance();
            let len = match self.frame_len {
                Some(len) => len,
                None => {
                    let n = match r.read(&mut self.prefix[self.prefix_len..]) {
                        Ok(0) => return Ok(Step::Eof),
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(Step::More),
                        Err(e) => return Err(e),
                    };
                    self.prefix_len += n;
                    if self.prefix_len < 4 {
                        return Ok(Step::More);
                    }
                    let len = self.check_prefix().map_err(io_error)?;
                    self.frame_len = Some(len);
                    len
                }
            };
            let want = len - self.buf.len();
            if want > 0 {
                let n = r.by_ref().take(want as u64).read_to_end(&mut self.buf)?;
                if n < want {
                    return Ok(Step::Eof);
                }
            }
            self.done = true;
            Ok(Step::Frame)
        }
    }

    /// Writes one frame holding `v` to `w` (prefix and value in one `write_all`).
    pub fn write_frame_to<W: Write>(
        w: &mut W,
        v: &Variant,
        enc: &EncodeOptions,
        framing: &FrameOptions,
    ) -> io::Result<()> {
        let mut buf = Vec::new();
        write_frame(&mut buf, v, enc, framing).map_err(io_error)?;
        w.write_all(&buf)
    }

    impl FrameWriter {
        /// Writes the frames built so far to `w` and empties the buffer.
        pub fn flush_to<W: Write>(&mut self, w: &mut W) -> io::Result<()> {
            w.write_all(&self.buf)?;
            self.buf.clear();
            Ok(())
        }
    }
}

#[cfg(feature = "std")]
pub use io::{write_frame_to, FrameReader};
