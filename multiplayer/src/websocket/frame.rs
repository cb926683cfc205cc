//! Frames (RFC 6455 §5): an incremental [`FrameReader`] over one direction of a byte stream, the
//! frame header, close payloads, and [`write_frame`] for the other side.
//!
//! ```text
//! byte 0: FIN | RSV1 | RSV2 | RSV3 | opcode (4 bits)
//! byte 1: MASK | payload length (7 bits: 0-125, 126 = a u16 follows, 127 = a u64 follows)
//! [u16 or u64 length, big-endian] [4-byte masking key if MASK] [payload]
//! ```
//!
//! The reader checks what RFC 6455 requires of every frame: a known opcode, no reserved bit
//! unless allowed, the length in its shortest form and without the 64-bit form's top bit,
//! control frames (close, ping, pong) of at most 125 bytes and not fragmented, masking as the
//! direction requires when told which it is, and the length against a limit before a byte of
//! the payload is stored. Message-level rules (continuations, close codes' meaning) are
//! [`MessageReader`](super::MessageReader)'s.

use alloc::vec::Vec;

use super::error::{Error, ErrorKind, Result};

/// The longest payload of a control frame (close, ping, pong).
pub const MAX_CONTROL_PAYLOAD: usize = 125;

/// The default limit on a data frame's payload: 8 MiB. Godot's own defaults are far below it
/// (Godot 4's `inbound_buffer_size` is 65 535 bytes, Godot 3's `set_buffers` 64 KiB); a game
/// that raises them needs [`FrameConfig::with_max_frame`].
pub const DEFAULT_MAX_FRAME: u64 = 8 << 20;

/// The most room a reader keeps for its next frame or message once one is read (a larger
/// buffer is freed then: memory follows the bytes held, not the largest message ever read).
pub(super) const MAX_KEPT: usize = 64 << 10;

/// A frame's opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Opcode {
    /// The continuation of a fragmented message.
    Continuation = 0,
    /// A text message (or its first fragment): UTF-8.
    Text = 1,
    /// A binary message (or its first fragment): what Godot's multiplayer peers send.
    Binary = 2,
    /// Close: an optional status code and UTF-8 reason.
    Close = 8,
    /// Ping: answered by a pong with the same payload.
    Ping = 9,
    /// Pong.
    Pong = 10,
}

impl Opcode {
    /// The opcode whose value is `b` (0–15), `None` for the reserved ones.
    pub const fn from_u8(b: u8) -> Option<Opcode> {
        Some(match b {
            0 => Opcode::Continuation,
            1 => Opcode::Text,
            2 => Opcode::Binary,
            8 => Opcode::Close,
            9 => Opcode::Ping,
            10 => Opcode::Pong,
            _ => return None,
        })
    }

    /// Whether this is a control opcode (close, ping, pong).
    pub const fn is_control(self) -> bool {
        self as u8 >= 8
    }

    /// The opcode's name, `"BINARY"`, `"CLOSE"`, …
    pub const fn name(self) -> &'static str {
        match self {
            Opcode::Continuation => "CONTINUATION",
            Opcode::Text => "TEXT",
            Opcode::Binary => "BINARY",
            Opcode::Close => "CLOSE",
            Opcode::Ping => "PING",
            Opcode::Pong => "PONG",
        }
    }
}

/// Which frames must be masked: RFC 6455 has clients mask every frame and servers none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Masking {
    /// Either (the direction is not known).
    #[default]
    Any,
    /// Every frame masked: a client's stream.
    Required,
    /// No frame masked: a server's stream.
    Forbidden,
}

/// How a [`FrameReader`] reads: the limit on a data frame, masking, the reserved bits allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameConfig {
    max_frame: u64,
    masking: Masking,
    reserved_bits: u8,
}

impl Default for FrameConfig {
    fn default() -> Self {
        FrameConfig::new()
    }
}

impl FrameConfig {
    /// [`DEFAULT_MAX_FRAME`], either masking, no reserved bit (no extension).
    pub const fn new() -> FrameConfig {
        FrameConfig {
            max_frame: DEFAULT_MAX_FRAME,
            masking: Masking::Any,
            reserved_bits: 0,
        }
    }

    /// The defaults for a client's stream (to the server): every frame masked.
    pub const fn client_to_server() -> FrameConfig {
        FrameConfig::new().with_masking(Masking::Required)
    }

    /// The defaults for a server's stream (to a client): no frame masked.
    pub const fn server_to_client() -> FrameConfig {
        FrameConfig::new().with_masking(Masking::Forbidden)
    }

    /// Sets the longest data frame payload read.
    #[must_use]
    pub const fn with_max_frame(mut self, max: u64) -> FrameConfig {
        self.max_frame = max;
        self
    }

    /// Sets the masking rule.
    #[must_use]
    pub const fn with_masking(mut self, masking: Masking) -> FrameConfig {
        self.masking = masking;
        self
    }

    /// Allows reserved bits (RSV1 = 4, RSV2 = 2, RSV3 = 1), for a stream with an extension
    /// negotiated (Godot negotiates none; `permessage-deflate` uses RSV1).
    #[must_use]
    pub const fn with_reserved_bits(mut self, bits: u8) -> FrameConfig {
        self.reserved_bits = bits & 7;
        self
    }

    /// The longest data frame payload read.
    pub const fn max_frame(&self) -> u64 {
        self.max_frame
    }

    /// The masking rule.
    pub const fn masking(&self) -> Masking {
        self.masking
    }

    /// The reserved bits allowed.
    pub const fn reserved_bits(&self) -> u8 {
        self.reserved_bits
    }
}

/// A frame's header, and where the frame is in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameHeader {
    fin: bool,
    rsv: u8,
    opcode: Opcode,
    mask: Option<[u8; 4]>,
    len: u64,
    offset: u64,
    header_len: u8,
}

impl FrameHeader {
    /// FIN: the last frame of its message.
    pub const fn fin(&self) -> bool {
        self.fin
    }

    /// The reserved bits RSV1, RSV2, RSV3 as bits 2, 1, 0.
    pub const fn rsv(&self) -> u8 {
        self.rsv
    }

    /// The opcode.
    pub const fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// The masking key, if the frame is masked.
    pub const fn mask(&self) -> Option<[u8; 4]> {
        self.mask
    }

    /// The payload's length.
    pub const fn len(&self) -> u64 {
        self.len
    }

    /// Whether the payload is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stream offset of the frame's first byte.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The header's length: 2 to 14 bytes.
    pub const fn header_len(&self) -> usize {
        self.header_len as usize
    }

    /// The stream offset of the payload's first byte.
    pub const fn payload_offset(&self) -> u64 {
        self.offset + self.header_len as u64
    }
}

/// A close frame's payload: empty, or a status code and a UTF-8 reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Close<'a> {
    code: Option<u16>,
    reason: &'a str,
}

impl<'a> Close<'a> {
    /// Reads a close frame's payload, whose first byte is at stream offset `offset`: empty, or
    /// a code an endpoint may send (1000–1003, 1007–1014, 3000–4999) and a UTF-8 reason.
    pub fn parse(payload: &'a [u8], offset: u64) -> Result<Close<'a>> {
        match payload {
            [] => Ok(Close {
                code: None,
                reason: "",
            }),
            [_] => Err(Error::new(ErrorKind::CloseOneByte, offset)),
            [a, b, reason @ ..] => {
                let code = u16::from_be_bytes([*a, *b]);
                if !matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999) {
                    return Err(Error::new(ErrorKind::InvalidCloseCode(code), offset));
                }
                let reason = core::str::from_utf8(reason).map_err(|e| {
                    Error::new(
                        ErrorKind::CloseReasonNotUtf8,
                        offset + 2 + e.valid_up_to() as u64,
                    )
                })?;
                Ok(Close {
                    code: Some(code),
                    reason,
                })
            }
        }
    }

    /// The status code (1000 normal closure, 1001 going away, …), `None` for an empty payload.
    pub const fn code(&self) -> Option<u16> {
        self.code
    }

    /// The reason, empty if none.
    pub const fn reason(&self) -> &'a str {
        self.reason
    }
}

/// A close frame's payload for `code` and `reason` (`None`: empty; a reason without a code is
/// not possible).
pub fn close_payload(code: Option<u16>, reason: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(code) = code {
        out.extend_from_slice(&code.to_be_bytes());
        out.extend_from_slice(reason.as_bytes());
    }
    out
}

/// Appends a frame to `out`: the header with the length in its shortest form, then the payload,
/// masked with `mask` if given (clients mask, servers do not).
///
/// ```
/// use gdvariant_multiplayer::websocket::{write_frame, Opcode};
/// // What a Godot 4 server sends first: the client's id, 4 bytes.
/// let mut out = Vec::new();
/// write_frame(&mut out, true, Opcode::Binary, None, &1234567i32.to_le_bytes());
/// assert_eq!(out, [0x82, 0x04, 0x87, 0xd6, 0x12, 0x00]);
/// ```
pub fn write_frame(
    out: &mut Vec<u8>,
    fin: bool,
    opcode: Opcode,
    mask: Option<[u8; 4]>,
    payload: &[u8],
) {
    out.push(u8::from(fin) << 7 | opcode as u8);
    let m = if mask.is_some() { 0x80 } else { 0 };
    let len = payload.len() as u64;
    if len < 126 {
        out.push(m | len as u8);
    } else if len < 65536 {
        out.push(m | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(m | 127);
        out.extend_from_slice(&len.to_be_bytes());
    }
    if let Some(key) = mask {
        out.extend_from_slice(&key);
    }
    let at = out.len();
    out.extend_from_slice(payload);
    if let Some(key) = mask {
        apply_mask(&mut out[at..], key, 0);
    }
}

/// XORs `data` with the masking key, `data[0]` being the payload's byte number `pos`.
fn apply_mask(data: &mut [u8], key: [u8; 4], pos: usize) {
    for (i, b) in data.iter_mut().enumerate() {
        *b ^= key[(pos + i) & 3];
    }
}

/// Reads the frames of one direction of a WebSocket stream, as its bytes arrive (after the
/// handshake's head).
///
/// [`read`](Self::read) takes what it needs from the input slice and advances it; it returns
/// each frame's header when the whole frame has arrived, with its payload, unmasked, in
/// [`payload`](Self::payload) until the next call. A frame's bytes can arrive in any pieces.
/// The payload buffer grows with the bytes that actually arrive, after the frame's length was
/// checked against the limit. After an error the stream cannot be resynchronised: every later
/// call returns the same error.
///
/// ```
/// use gdvariant_multiplayer::websocket::{FrameConfig, FrameReader, Opcode};
/// // A client's masked binary frame, "hi", given a byte at a time.
/// let bytes = [0x82, 0x82, 1, 2, 3, 4, b'h' ^ 1, b'i' ^ 2];
/// let mut r = FrameReader::new(FrameConfig::client_to_server());
/// for (i, b) in bytes.iter().enumerate() {
///     let mut input = std::slice::from_ref(b);
///     let frame = r.read(&mut input)?;
///     assert!(input.is_empty());
///     if i + 1 < bytes.len() {
///         assert!(frame.is_none());
///     } else {
///         let h = frame.unwrap();
///         assert_eq!((h.opcode(), h.fin(), h.len(), h.mask()), (Opcode::Binary, true, 2, Some([1, 2, 3, 4])));
///     }
/// }
/// assert_eq!(r.payload(), b"hi");
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FrameReader {
    config: FrameConfig,
    /// Stream bytes consumed so far.
    offset: u64,
    /// The header being read.
    head: [u8; 14],
    head_len: u8,
    /// The frame whose payload is being read (or was returned, when `complete`).
    current: Option<FrameHeader>,
    remaining: u64,
    payload: Vec<u8>,
    /// `read` returned `current`: the next call starts a new frame.
    complete: bool,
    /// The message limit, set by the message reader: (bytes assembled, max).
    budget: Option<(u64, u64)>,
    failed: Option<Error>,
}

impl FrameReader {
    /// A reader at the start of a stream's frames.
    pub fn new(config: FrameConfig) -> FrameReader {
        FrameReader {
            config,
            offset: 0,
            head: [0; 14],
            head_len: 0,
            current: None,
            remaining: 0,
            payload: Vec::new(),
            complete: false,
            budget: None,
            failed: None,
        }
    }

    /// A reader whose stream offsets start at `offset` (the length of the handshake's head,
    /// for offsets counted from the TCP stream's first byte).
    pub fn with_offset(config: FrameConfig, offset: u64) -> FrameReader {
        FrameReader {
            offset,
            ..FrameReader::new(config)
        }
    }

    /// The configuration.
    pub fn config(&self) -> &FrameConfig {
        &self.config
    }

    /// The stream offset of the next byte the reader will take.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the reader is between frames (nothing of a next frame read yet).
    pub fn is_at_boundary(&self) -> bool {
        self.head_len == 0 && (self.current.is_none() || self.complete)
    }

    /// The header of the frame being read, once its header is whole and until the frame is.
    pub fn partial(&self) -> Option<FrameHeader> {
        self.current.filter(|_| !self.complete)
    }

    /// The error that stopped the reader, if one did.
    pub fn error(&self) -> Option<Error> {
        self.failed
    }

    /// The bytes held for the frame not whole yet: its header's and payload's read so far.
    pub fn buffered_bytes(&self) -> usize {
        let payload = if self.complete { 0 } else { self.payload.len() };
        usize::from(self.head_len) + payload
    }

    /// The unmasked payload of the frame [`read`](Self::read) returned last (empty before).
    pub fn payload(&self) -> &[u8] {
        if self.complete {
            &self.payload
        } else {
            &[]
        }
    }

    /// Reads from `input` (advancing it past what it takes) until a frame is whole: its header
    /// (payload in [`payload`](Self::payload)), or `Ok(None)` when `input` ran out first. Takes
    /// nothing past the frame it returns.
    pub fn read(&mut self, input: &mut &[u8]) -> Result<Option<FrameHeader>> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        match self.step(input) {
            Err(e) => {
                self.failed = Some(e);
                Err(e)
            }
            ok => ok,
        }
    }

    /// Limits the next data frame to `max - assembled` bytes (the message reader's limit), the
    /// excess reported as [`ErrorKind::MessageTooLarge`].
    pub(super) fn set_budget(&mut self, budget: Option<(u64, u64)>) {
        self.budget = budget;
    }

    fn step(&mut self, input: &mut &[u8]) -> Result<Option<FrameHeader>> {
        if self.complete {
            self.complete = false;
            self.current = None;
            self.payload.clear();
            if self.payload.capacity() > MAX_KEPT {
                self.payload = Vec::new();
            }
        }
        if self.current.is_none() {
            // The header: 2 bytes, then what they say follows.
            loop {
                let need = self.header_len_needed();
                let have = usize::from(self.head_len);
                if have == need {
                    break;
                }
                let Some((&b, rest)) = input.split_first() else {
                    return Ok(None);
                };
                self.head[have] = b;
                self.head_len += 1;
                self.offset += 1;
                *input = rest;
            }
            let h = self.parse_header()?;
            self.head_len = 0;
            self.current = Some(h);
            self.remaining = h.len;
        }
        let h = self.current.unwrap_or_else(|| unreachable!());
        let n = usize::try_from(self.remaining)
            .unwrap_or(usize::MAX)
            .min(input.len());
        let (take, rest) = input.split_at(n);
        let pos = self.payload.len();
        self.payload.extend_from_slice(take);
        if let Some(key) = h.mask {
            apply_mask(&mut self.payload[pos..], key, pos);
        }
        *input = rest;
        self.offset += n as u64;
        self.remaining -= n as u64;
        if self.remaining > 0 {
            return Ok(None);
        }
        self.complete = true;
        Ok(Some(h))
    }

    /// The header's whole length as far as its bytes read so far tell.
    fn header_len_needed(&self) -> usize {
        if self.head_len < 2 {
            return 2;
        }
        let b1 = self.head[1];
        let ext = match b1 & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        2 + ext + if b1 & 0x80 != 0 { 4 } else { 0 }
    }

    fn parse_header(&self) -> Result<FrameHeader> {
        let start = self.offset - u64::from(self.head_len);
        let err = |kind, at: u64| Err(Error::new(kind, start + at));
        let (b0, b1) = (self.head[0], self.head[1]);
        let fin = b0 & 0x80 != 0;
        let rsv = (b0 >> 4) & 7;
        let Some(opcode) = Opcode::from_u8(b0 & 15) else {
            return err(ErrorKind::ReservedOpcode(b0 & 15), 0);
        };
        if rsv & !self.config.reserved_bits != 0 {
            return err(ErrorKind::ReservedBits(rsv), 0);
        }
        let masked = b1 & 0x80 != 0;
        match (self.config.masking, masked) {
            (Masking::Required, false) => return err(ErrorKind::MaskRequired, 1),
            (Masking::Forbidden, true) => return err(ErrorKind::MaskForbidden, 1),
            _ => {}
        }
        let (len, ext) = match b1 & 0x7f {
            126 => {
                let len = u64::from(u16::from_be_bytes([self.head[2], self.head[3]]));
                if len < 126 {
                    return err(ErrorKind::NonMinimalLength { len }, 2);
                }
                (len, 2)
            }
            127 => {
                let mut b = [0; 8];
                b.copy_from_slice(&self.head[2..10]);
                let len = u64::from_be_bytes(b);
                if len >> 63 != 0 {
                    return err(ErrorKind::LengthHighBit, 2);
                }
                if len < 65536 {
                    return err(ErrorKind::NonMinimalLength { len }, 2);
                }
                (len, 8)
            }
            n => (u64::from(n), 0),
        };
        if opcode.is_control() {
            if len > MAX_CONTROL_PAYLOAD as u64 {
                return err(ErrorKind::ControlTooLong { len }, 1);
            }
            if !fin {
                return err(ErrorKind::ControlFragmented, 0);
            }
        } else {
            let max = self.config.max_frame;
            if len > max {
                return err(ErrorKind::FrameTooLarge { len, max }, 1);
            }
            if let Some((assembled, max)) = self.budget {
                let total = assembled.saturating_add(len);
                if total > max {
                    return err(ErrorKind::MessageTooLarge { len: total, max }, 1);
                }
            }
        }
        let mask = masked.then(|| {
            let k = &self.head[2 + ext..6 + ext];
            [k[0], k[1], k[2], k[3]]
        });
        Ok(FrameHeader {
            fin,
            rsv,
            opcode,
            mask,
            len,
            offset: start,
            header_len: self.head_len,
        })
    }
}
