//! The one error type of the [`websocket`](super) module: what is wrong, and where.

use core::fmt;

/// What went wrong in a WebSocket stream or message, and where: see [`Error::offset`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
}

/// The kinds of [`Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The stream does not start as an HTTP/1.1 request (`GET `) or response (`HTTP/1.1 `) does.
    NotHttp,
    /// No end of the head (an empty line, `\r\n\r\n`) within the first `max` bytes.
    HeadTooLarge {
        /// The limit, [`MAX_HEAD`](super::handshake::MAX_HEAD).
        max: usize,
    },
    /// The head is not UTF-8 (the offset is that of the first bad byte).
    HeadNotUtf8,
    /// A malformed request line (`GET <target> HTTP/1.1`) or status line
    /// (`HTTP/1.1 <3 digits> <reason>`).
    BadStartLine,
    /// A malformed header line: no colon, an empty or invalid name, a folded line, a stray CR
    /// or LF.
    BadHeaderLine,
    /// A header the upgrade needs is missing or does not say what it must: its name and value.
    MissingHeader(&'static str),
    /// An opcode RFC 6455 reserves (3–7, 11–15).
    ReservedOpcode(u8),
    /// Reserved bits (RSV1–3, as bits 2, 1, 0) set that no extension allows.
    ReservedBits(u8),
    /// An unmasked frame where masking is required (client to server).
    MaskRequired,
    /// A masked frame where masking is forbidden (server to client).
    MaskForbidden,
    /// A payload length in a longer form than needed (16 bits for < 126, 64 bits for < 65 536).
    NonMinimalLength {
        /// The length read.
        len: u64,
    },
    /// A 64-bit payload length with its most significant bit set.
    LengthHighBit,
    /// A data frame longer than the reader's limit.
    FrameTooLarge {
        /// The frame's payload length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// A control frame (close, ping, pong) longer than 125 bytes.
    ControlTooLong {
        /// The frame's payload length.
        len: u64,
    },
    /// A control frame without its FIN bit: control frames cannot be fragmented.
    ControlFragmented,
    /// A close frame with a one-byte payload (it is empty, or a 2-byte code and a reason).
    CloseOneByte,
    /// A close code no endpoint may send (below 1000, 1004–1006, 1015, 1016–2999, 5000 and up).
    InvalidCloseCode(u16),
    /// A close reason that is not UTF-8.
    CloseReasonNotUtf8,
    /// A continuation frame with no fragmented message to continue.
    UnexpectedContinuation,
    /// A text or binary frame while a fragmented message waits for its continuation frames.
    MessageInterrupted,
    /// A message (its fragments so far plus the next frame) longer than the reader's limit.
    MessageTooLarge {
        /// The length the message would reach.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// A text message that is not UTF-8 (the offset is the message's first frame's).
    TextNotUtf8,
    /// Bytes after a close frame: the sender may send nothing after it.
    AfterClose,
    /// Godot 4: the server's first message to a client is not exactly 4 bytes long.
    PeerIdSize {
        /// The message's length.
        len: usize,
    },
    /// Godot 4: an assigned peer id below 2 (the client refuses it).
    InvalidPeerId(i32),
    /// An empty message where Godot expects a packet (the engine drops it with an error).
    EmptyPacket,
    /// Godot 3: a message shorter than its header (9 bytes; 13 for a system message).
    Godot3TooShort {
        /// The message's length.
        len: usize,
        /// The length it needs.
        need: usize,
    },
    /// Godot 3: a message type other than 0 (data), 1 (add peer), 2 (remove peer), 3 (your id).
    Godot3UnknownType(u8),
    /// Godot 3: a system message from a client (only the server sends them).
    Godot3SysFromClient,
    /// Godot 3: a client's message whose `from` is not the client's id.
    Godot3WrongSender {
        /// The `from` field.
        from: u32,
        /// The client's id.
        sender: u32,
    },
}

impl Error {
    /// An error of `kind` at `offset`.
    pub const fn new(kind: ErrorKind, offset: u64) -> Error {
        Error { kind, offset }
    }

    /// What is wrong.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where: for the stream readers ([`FrameReader`](super::FrameReader),
    /// [`MessageReader`](super::MessageReader)) the offset in the stream, counted from the first
    /// byte the reader was given; for the handshake, the offset in the given bytes; for the Godot
    /// layer, the offset in the message.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The same error, `delta` bytes further (for a caller that parsed a slice of a larger
    /// stream).
    #[must_use]
    pub const fn shifted(mut self, delta: u64) -> Error {
        self.offset = self.offset.saturating_add(delta);
        self
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::NotHttp => f.write_str("not an HTTP/1.1 request or response"),
            ErrorKind::HeadTooLarge { max } => {
                write!(f, "no end of the HTTP head in its first {max} bytes")
            }
            ErrorKind::HeadNotUtf8 => f.write_str("HTTP head is not UTF-8"),
            ErrorKind::BadStartLine => f.write_str("malformed HTTP request or status line"),
            ErrorKind::BadHeaderLine => f.write_str("malformed HTTP header line"),
            ErrorKind::MissingHeader(h) => write!(f, "WebSocket upgrade without `{h}`"),
            ErrorKind::ReservedOpcode(o) => write!(f, "reserved opcode {o:#x}"),
            ErrorKind::ReservedBits(b) => write!(f, "reserved bits {b:#05b} set (RSV1-3)"),
            ErrorKind::MaskRequired => f.write_str("unmasked frame from a client"),
            ErrorKind::MaskForbidden => f.write_str("masked frame from a server"),
            ErrorKind::NonMinimalLength { len } => {
                write!(f, "payload length {len} not in its shortest form")
            }
            ErrorKind::LengthHighBit => f.write_str("64-bit payload length with its top bit set"),
            ErrorKind::FrameTooLarge { len, max } => {
                write!(f, "frame of {len} bytes, over the limit of {max}")
            }
            ErrorKind::ControlTooLong { len } => {
                write!(f, "control frame of {len} bytes (at most 125)")
            }
            ErrorKind::ControlFragmented => f.write_str("fragmented control frame (FIN not set)"),
            ErrorKind::CloseOneByte => f.write_str("close frame with a 1-byte payload"),
            ErrorKind::InvalidCloseCode(c) => write!(f, "invalid close code {c}"),
            ErrorKind::CloseReasonNotUtf8 => f.write_str("close reason is not UTF-8"),
            ErrorKind::UnexpectedContinuation => {
                f.write_str("continuation frame without a message to continue")
            }
            ErrorKind::MessageInterrupted => {
                f.write_str("new data frame inside a fragmented message")
            }
            ErrorKind::MessageTooLarge { len, max } => {
                write!(f, "message of {len} bytes, over the limit of {max}")
            }
            ErrorKind::TextNotUtf8 => f.write_str("text message is not UTF-8"),
            ErrorKind::AfterClose => f.write_str("bytes after the close frame"),
            ErrorKind::PeerIdSize { len } => {
                write!(f, "Godot 4 peer id message of {len} bytes (must be 4)")
            }
            ErrorKind::InvalidPeerId(id) => write!(f, "Godot 4 peer id {id} (must be 2 or more)"),
            ErrorKind::EmptyPacket => f.write_str("empty message where a packet was expected"),
            ErrorKind::Godot3TooShort { len, need } => {
                write!(f, "Godot 3 message of {len} bytes (needs {need})")
            }
            ErrorKind::Godot3UnknownType(t) => write!(f, "Godot 3 message type {t} (0 to 3)"),
            ErrorKind::Godot3SysFromClient => f.write_str("Godot 3 system message from a client"),
            ErrorKind::Godot3WrongSender { from, sender } => {
                write!(f, "Godot 3 message from {from} sent by peer {sender}")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebSocket: {} at offset {}", self.kind, self.offset)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// The `websocket` module's result type.
pub type Result<T> = core::result::Result<T, Error>;
