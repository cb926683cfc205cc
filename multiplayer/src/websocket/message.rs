//! Messages (RFC 6455 §5.4–5.5): a [`MessageReader`] assembles one direction's frames into whole
//! text and binary messages, with control frames (close, ping, pong) returned as they come, also
//! between the fragments of a message.
//!
//! Checked on top of the [frames](super::frame): a continuation frame continues a fragmented
//! message and nothing else; no text or binary frame starts while one is unfinished; a message is
//! at most [`MessageConfig::max_message`] bytes (checked on each fragment's header, before its
//! payload is stored); a text message is UTF-8; a close frame's payload is empty or a valid code
//! and a UTF-8 reason.
//!
//! After a close frame the sender may send nothing more (RFC 6455 §5.5.1): the reader returns
//! `Ok(None)` for empty input and [`ErrorKind::AfterClose`](super::ErrorKind::AfterClose) for any
//! further byte (a passive reader of a capture sees the TCP stream end there).

use alloc::vec::Vec;

use super::error::{Error, ErrorKind, Result};
use super::frame::{Close, FrameConfig, FrameHeader, FrameReader, Opcode, MAX_KEPT};

/// The default limit on a message: 8 MiB, as [`DEFAULT_MAX_FRAME`](super::DEFAULT_MAX_FRAME).
pub const DEFAULT_MAX_MESSAGE: u64 = 8 << 20;

/// How a [`MessageReader`] reads: its frames' configuration and the limit on a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageConfig {
    frame: FrameConfig,
    max_message: u64,
}

impl Default for MessageConfig {
    fn default() -> Self {
        MessageConfig::new()
    }
}

impl MessageConfig {
    /// [`FrameConfig::new`] and [`DEFAULT_MAX_MESSAGE`].
    pub const fn new() -> MessageConfig {
        MessageConfig {
            frame: FrameConfig::new(),
            max_message: DEFAULT_MAX_MESSAGE,
        }
    }

    /// The defaults for a client's stream (every frame masked).
    pub const fn client_to_server() -> MessageConfig {
        MessageConfig::new().with_frame(FrameConfig::client_to_server())
    }

    /// The defaults for a server's stream (no frame masked).
    pub const fn server_to_client() -> MessageConfig {
        MessageConfig::new().with_frame(FrameConfig::server_to_client())
    }

    /// Sets the frames' configuration.
    #[must_use]
    pub const fn with_frame(mut self, frame: FrameConfig) -> MessageConfig {
        self.frame = frame;
        self
    }

    /// Sets the longest message (all its fragments' payloads) read.
    #[must_use]
    pub const fn with_max_message(mut self, max: u64) -> MessageConfig {
        self.max_message = max;
        self
    }

    /// The frames' configuration.
    pub const fn frame(&self) -> FrameConfig {
        self.frame
    }

    /// The longest message read.
    pub const fn max_message(&self) -> u64 {
        self.max_message
    }
}

/// A whole message or a control frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message<'a> {
    /// A text message.
    Text(&'a str),
    /// A binary message: what Godot's multiplayer peers send.
    Binary(&'a [u8]),
    /// A ping and its payload.
    Ping(&'a [u8]),
    /// A pong and its payload.
    Pong(&'a [u8]),
    /// A close frame: the last thing its sender sends.
    Close(Close<'a>),
}

impl<'a> Message<'a> {
    /// The opcode of the message's first frame.
    pub const fn opcode(&self) -> Opcode {
        match self {
            Message::Text(_) => Opcode::Text,
            Message::Binary(_) => Opcode::Binary,
            Message::Ping(_) => Opcode::Ping,
            Message::Pong(_) => Opcode::Pong,
            Message::Close(_) => Opcode::Close,
        }
    }

    /// The data of a text or binary message (a text's UTF-8 bytes), `None` for control frames.
    pub fn data(&self) -> Option<&'a [u8]> {
        match *self {
            Message::Text(s) => Some(s.as_bytes()),
            Message::Binary(b) => Some(b),
            _ => None,
        }
    }
}

/// A message read, with where it was in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Received<'a> {
    message: Message<'a>,
    offset: u64,
    frames: u32,
}

impl<'a> Received<'a> {
    /// The message.
    pub const fn message(&self) -> Message<'a> {
        self.message
    }

    /// The stream offset of its first frame's first byte.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// How many frames it took (1 unless fragmented; control frames are always 1).
    pub const fn frames(&self) -> u32 {
        self.frames
    }
}

/// A fragmented message being assembled.
#[derive(Clone, Copy, Debug)]
struct Partial {
    text: bool,
    offset: u64,
    frames: u32,
}

/// Reads the messages of one direction of a WebSocket stream, as its bytes arrive.
///
/// [`read`](Self::read) takes bytes from the input slice (advancing it) until a message or
/// control frame is whole and returns it, borrowed from the reader until the next call. A
/// message of one frame is not copied again. After an error every later call returns it.
///
/// ```
/// use gdvariant_multiplayer::websocket::{write_frame, Message, MessageConfig, MessageReader, Opcode};
/// // A server's stream: "ab" in two fragments with a ping between them.
/// let mut s = Vec::new();
/// write_frame(&mut s, false, Opcode::Binary, None, b"a");
/// write_frame(&mut s, true, Opcode::Ping, None, b"?");
/// write_frame(&mut s, true, Opcode::Continuation, None, b"b");
/// let mut r = MessageReader::new(MessageConfig::server_to_client());
/// let mut input = &s[..];
/// assert_eq!(r.read(&mut input)?.unwrap().message(), Message::Ping(b"?"));
/// let m = r.read(&mut input)?.unwrap();
/// assert_eq!((m.message(), m.offset(), m.frames()), (Message::Binary(b"ab"), 0, 2));
/// assert_eq!(r.read(&mut input)?, None);
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MessageReader {
    frames: FrameReader,
    max_message: u64,
    partial: Option<Partial>,
    buf: Vec<u8>,
    /// The last message returned was assembled in `buf`: clear it on the next call.
    from_buf: bool,
    closed: bool,
    failed: Option<Error>,
}

impl MessageReader {
    /// A reader at the start of a stream's frames.
    pub fn new(config: MessageConfig) -> MessageReader {
        MessageReader::with_offset(config, 0)
    }

    /// A reader whose stream offsets start at `offset` (the handshake's head length, for offsets
    /// counted from the TCP stream's first byte).
    pub fn with_offset(config: MessageConfig, offset: u64) -> MessageReader {
        MessageReader {
            frames: FrameReader::with_offset(config.frame, offset),
            max_message: config.max_message,
            partial: None,
            buf: Vec::new(),
            from_buf: false,
            closed: false,
            failed: None,
        }
    }

    /// The frame reader underneath.
    pub fn frames(&self) -> &FrameReader {
        &self.frames
    }

    /// The stream offset of the next byte the reader will take.
    pub fn offset(&self) -> u64 {
        self.frames.offset()
    }

    /// Whether a close frame was read.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Whether the reader is between messages: no frame or fragmented message unfinished (a
    /// stream that ends elsewhere was cut).
    pub fn is_at_boundary(&self) -> bool {
        self.partial.is_none() && self.frames.is_at_boundary()
    }

    /// The error that stopped the reader, if one did.
    pub fn error(&self) -> Option<Error> {
        self.failed
    }

    /// The bytes held for what is not whole yet: the fragments of the message being assembled
    /// and the frame being read (the last message returned, until the next call, is not counted).
    pub fn buffered_bytes(&self) -> usize {
        let assembled = if self.from_buf { 0 } else { self.buf.len() };
        assembled + self.frames.buffered_bytes()
    }

    /// Reads from `input` (advancing it past what it takes) until a message or control frame is
    /// whole, or `Ok(None)` when `input` ran out first. Takes nothing past what it returns.
    pub fn read(&mut self, input: &mut &[u8]) -> Result<Option<Received<'_>>> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        if self.from_buf {
            self.from_buf = false;
            self.buf.clear();
            if self.buf.capacity() > MAX_KEPT {
                self.buf = Vec::new();
            }
        }
        loop {
            if self.closed {
                if input.is_empty() {
                    return Ok(None);
                }
                return Err(self.fail(Error::new(ErrorKind::AfterClose, self.offset())));
            }
            let assembled = self.partial.map_or(0, |_| self.buf.len() as u64);
            self.frames.set_budget(Some((assembled, self.max_message)));
            let h = match self.frames.read(input) {
                Ok(Some(h)) => h,
                Ok(None) => return Ok(None),
                Err(e) => return Err(self.fail(e)),
            };
            match h.opcode() {
                Opcode::Close => {
                    self.closed = true;
                    // Checked first, then read again (at most 125 bytes) to return the borrow.
                    if let Err(e) = Close::parse(self.frames.payload(), h.payload_offset()) {
                        return Err(self.fail(e));
                    }
                    let close = Close::parse(self.frames.payload(), h.payload_offset());
                    return Ok(close.ok().map(|c| one(Message::Close(c), &h)));
                }
                Opcode::Ping => return Ok(Some(one(Message::Ping(self.frames.payload()), &h))),
                Opcode::Pong => return Ok(Some(one(Message::Pong(self.frames.payload()), &h))),
                Opcode::Text | Opcode::Binary => {
                    if self.partial.is_some() {
                        let e = Error::new(ErrorKind::MessageInterrupted, h.offset());
                        return Err(self.fail(e));
                    }
                    let text = h.opcode() == Opcode::Text;
                    if h.fin() {
                        if let Err(e) = check(text, self.frames.payload(), h.offset()) {
                            return Err(self.fail(e));
                        }
                        return Ok(Some(one(data(text, self.frames.payload()), &h)));
                    }
                    self.partial = Some(Partial {
                        text,
                        offset: h.offset(),
                        frames: 1,
                    });
                    self.buf.extend_from_slice(self.frames.payload());
                }
                Opcode::Continuation => {
                    let Some(mut p) = self.partial else {
                        let e = Error::new(ErrorKind::UnexpectedContinuation, h.offset());
                        return Err(self.fail(e));
                    };
                    self.buf.extend_from_slice(self.frames.payload());
                    p.frames = p.frames.saturating_add(1);
                    if !h.fin() {
                        self.partial = Some(p);
                        continue;
                    }
                    self.partial = None;
                    self.from_buf = true;
                    if let Err(e) = check(p.text, &self.buf, p.offset) {
                        return Err(self.fail(e));
                    }
                    return Ok(Some(Received {
                        message: data(p.text, &self.buf),
                        offset: p.offset,
                        frames: p.frames,
                    }));
                }
            }
        }
    }

    fn fail(&mut self, e: Error) -> Error {
        self.failed = Some(e);
        e
    }
}

/// A message of one frame.
fn one<'a>(message: Message<'a>, h: &FrameHeader) -> Received<'a> {
    Received {
        message,
        offset: h.offset(),
        frames: 1,
    }
}

/// Checks a whole data message: text must be UTF-8.
fn check(text: bool, bytes: &[u8], offset: u64) -> Result<()> {
    match text && core::str::from_utf8(bytes).is_err() {
        true => Err(Error::new(ErrorKind::TextNotUtf8, offset)),
        false => Ok(()),
    }
}

/// A whole data message, checked.
fn data(text: bool, bytes: &[u8]) -> Message<'_> {
    if text {
        if let Ok(s) = core::str::from_utf8(bytes) {
            return Message::Text(s);
        }
    }
    Message::Binary(bytes)
}
