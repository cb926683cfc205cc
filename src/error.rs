//! Errors: what went wrong and at which byte offset.

use core::fmt;

use crate::types::VariantType;

/// A specialized [`Result`](core::result::Result) for gdvariant.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An error while reading or writing Variant bytes.
///
/// Every error carries the absolute byte offset in the input at which the problem was found (for a
/// value obtained from a framed stream, the offset in the whole stream) and an [`ErrorKind`] saying
/// what it was. Its `Display` reads like `unexpected end of input at offset 28`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    offset: usize,
    kind: ErrorKind,
}

/// What went wrong. Non-exhaustive: new kinds may be added in minor releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended before the value did; `needed` more bytes were required at that point.
    UnexpectedEof {
        /// How many bytes were missing at the offset of the error.
        needed: usize,
    },
    /// The header names a type id that the dialect does not have (39+ in Godot 4, 27+ in Godot 3).
    UnknownType {
        /// The type id (header & 0xFF).
        id: u32,
    },
    /// A typed container names an element type id that does not exist.
    InvalidContainerType {
        /// The type id found in the container's type info.
        id: u32,
    },
    /// A string is not valid UTF-8 (Godot 4), or not what Godot 3's lenient decoder accepts.
    InvalidUtf8,
    /// A string holds text that Godot 3 accepts (surrogates, 5- and 6-byte forms) but that is not
    /// valid UTF-8, so it cannot be returned as `&str`; use [`VariantRef::as_text`](crate::VariantRef::as_text).
    NotRustUtf8,
    /// A length or element count is negative.
    NegativeLength {
        /// The length as read (an `i32`).
        value: i32,
    },
    /// A length multiplied by the element size overflows.
    LengthOverflow,
    /// A value is nested deeper than the configured limit (the engine's rule: any value, not only
    /// a container, at a depth greater than the limit; the top-level value is at depth 0).
    DepthExceeded {
        /// The limit in force.
        limit: u32,
    },
    /// A full object (not an instance id) appears and objects are not allowed.
    ObjectsNotAllowed,
    /// A full object's `script` property is neither Nil nor a `res://` path (Godot 4).
    InvalidObjectScript,
    /// A NodePath uses the Godot 2 format (bit 31 of its first word clear), which engines reject.
    OldNodePathFormat,
    /// An accessor asked for one type and the value is another.
    WrongType {
        /// What the accessor reads.
        expected: Expected,
        /// What the value is.
        found: VariantType,
    },
    /// A value cannot be written in the chosen dialect (for example a `Vector4` in Godot 3).
    UnsupportedInDialect {
        /// The type that cannot be written.
        ty: VariantType,
    },
    /// A string, byte array or element count is longer than the format can hold (2^31 - 1).
    TooLong,
    /// A writer was used out of order (closing a container that is not open, a wrong element count, …).
    WriterMisuse {
        /// What was wrong.
        what: &'static str,
    },
    /// A framed stream holds a frame longer than the configured maximum.
    FrameTooLarge {
        /// The length the frame's prefix claims.
        len: u64,
        /// The maximum in force.
        max: u64,
    },
    /// A framed stream ends in the middle of a frame (or of its length prefix).
    TruncatedFrame {
        /// How many bytes the frame still needed.
        needed: usize,
    },
    /// A frame's value is shorter than the frame (bytes after the value inside the frame).
    TrailingBytesInFrame {
        /// How many bytes follow the value inside the frame.
        extra: usize,
    },
}

/// What an accessor expected: one type or a family of types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Expected {
    /// One particular type.
    Type(VariantType),
    /// A String or a StringName.
    StringLike,
    /// A packed array with this element type (and this precision).
    PackedOf(&'static str),
    /// A packed or pool array of any kind.
    AnyPacked,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Type(t) => write!(f, "{}", t.name()),
            Expected::StringLike => f.write_str("String or StringName"),
            Expected::PackedOf(e) => write!(f, "packed array of {e}"),
            Expected::AnyPacked => f.write_str("packed array"),
        }
    }
}

impl Error {
    /// Creates an error of `kind` at `offset`.
    #[cold]
    #[inline(never)]
    pub fn new(kind: ErrorKind, offset: usize) -> Error {
        Error { offset, kind }
    }

    /// The absolute byte offset at which the problem was found.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What went wrong.
    #[inline]
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The same error with its offset moved by `delta` (used when a value inside a larger stream
    /// was read from a sub-slice).
    #[must_use]
    pub fn shifted(self, delta: usize) -> Error {
        Error {
            offset: self.offset.saturating_add(delta),
            kind: self.kind,
        }
    }

    #[cold]
    pub(crate) fn eof(offset: usize, needed: usize) -> Error {
        Error::new(ErrorKind::UnexpectedEof { needed }, offset)
    }

    #[cold]
    pub(crate) fn wrong_type(offset: usize, expected: Expected, found: VariantType) -> Error {
        Error::new(ErrorKind::WrongType { expected, found }, offset)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::UnexpectedEof { .. } => f.write_str("unexpected end of input"),
            ErrorKind::UnknownType { id } => write!(f, "unknown type id {id}"),
            ErrorKind::InvalidContainerType { id } => {
                write!(f, "invalid element type id {id} in typed container")
            }
            ErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8 in string"),
            ErrorKind::NotRustUtf8 => f.write_str(
                "string is valid for Godot 3 but not UTF-8 (surrogate or 5/6-byte form)",
            ),
            ErrorKind::NegativeLength { value } => write!(f, "negative length {value}"),
            ErrorKind::LengthOverflow => f.write_str("length overflows"),
            ErrorKind::DepthExceeded { limit } => {
                write!(f, "value nested deeper than the depth limit of {limit}")
            }
            ErrorKind::ObjectsNotAllowed => f.write_str("full objects are not allowed"),
            ErrorKind::InvalidObjectScript => {
                f.write_str("object script property is not a res:// path")
            }
            ErrorKind::OldNodePathFormat => f.write_str("NodePath in the old Godot 2 format"),
            ErrorKind::WrongType { expected, found } => {
                write!(f, "wrong type: expected {expected}, found {}", found.name())
            }
            ErrorKind::UnsupportedInDialect { ty } => {
                write!(f, "{} cannot be written in this dialect", ty.name())
            }
            ErrorKind::TooLong => f.write_str("longer than the format allows (2^31 - 1)"),
            ErrorKind::WriterMisuse { what } => write!(f, "writer misuse: {what}"),
            ErrorKind::FrameTooLarge { len, max } => {
                write!(f, "frame of {len} bytes exceeds the maximum of {max}")
            }
            ErrorKind::TruncatedFrame { needed } => {
                write!(f, "truncated frame ({needed} more bytes needed)")
            }
            ErrorKind::TrailingBytesInFrame { extra } => {
                write!(f, "{extra} bytes after the value inside its frame")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.kind, self.offset)
    }
}

impl core::error::Error for Error {}
