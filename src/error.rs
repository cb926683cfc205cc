//! Errors: what went wrong and at which byte offset.

use alloc::boxed::Box;
use core::fmt;

use crate::types::VariantType;

/// A specialized [`Result`](core::result::Result) for gdvariant.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An error while reading or writing Variant bytes.
///
/// Every error carries the absolute byte offset in the input at which the problem was found (for a
/// value obtained from a framed stream, the offset in the whole stream) and an [`ErrorKind`] saying
/// what it was. Its `Display` reads like `unexpected end of input at offset 28`.
///
/// The error is one pointer wide: its kind and offset are boxed, as serde_json's and wasmparser's
/// errors are, so that every `Result` on the read path stays small; an error is only ever built
/// on the way out.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Inner {
    kind: ErrorKind,
    offset: usize,
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
    /// A string to be written holds a NUL byte: the engine would read its bytes back cut there, so
    /// the writers refuse it rather than emit bytes that do not read back as the value written.
    /// (A string that starts with a byte order mark is written with a second one before it, which
    /// the reader strips: it reads back whole.)
    UnwritableString,
    /// A high-level multiplayer packet's structure is wrong (crate `gdvariant-multiplayer`).
    InvalidPacket {
        /// What is wrong.
        what: &'static str,
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
    // Cold (with eof and wrong_type): input packet encode +4 % time without (aligned builds).
    #[cold]
    pub fn new(kind: ErrorKind, offset: usize) -> Error {
        Error {
            inner: Box::new(Inner { kind, offset }),
        }
    }

    /// The absolute byte offset at which the problem was found.
    pub fn offset(&self) -> usize {
        self.inner.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The same error with its offset moved by `delta` (used when a value inside a larger stream
    /// was read from a sub-slice).
    #[must_use]
    pub fn shifted(mut self, delta: usize) -> Error {
        self.inner.offset = self.inner.offset.saturating_add(delta);
        self
    }

    pub(crate) fn eof(offset: usize, needed: usize) -> Error {
        Error::new(ErrorKind::UnexpectedEof { needed }, offset)
    }

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
            ErrorKind::InvalidPacket { what } => write!(f, "invalid packet: {what}"),
            ErrorKind::UnwritableString => {
                f.write_str("string holds a NUL byte: the engine would read it back cut there")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.kind(), self.offset())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("offset", &self.offset())
            .field("kind", &self.kind())
            .finish()
    }
}

impl core::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_word_and_keeps_what_it_was_given() {
        assert_eq!(core::mem::size_of::<Error>(), core::mem::size_of::<usize>());
        assert_eq!(
            core::mem::size_of::<Result<()>>(),
            core::mem::size_of::<usize>()
        );
        // Messages of other crates (the multiplayer packets') are kept as given.
        let kinds = [
            ErrorKind::InvalidPacket {
                what: "a message of another crate",
            },
            ErrorKind::WriterMisuse {
                what: "any message",
            },
            ErrorKind::WrongType {
                expected: Expected::PackedOf("u128"),
                found: VariantType::Int,
            },
            ErrorKind::UnexpectedEof { needed: usize::MAX },
            ErrorKind::FrameTooLarge {
                len: u64::MAX,
                max: 8 << 20,
            },
        ];
        for (i, k) in kinds.into_iter().enumerate() {
            for off in [0, i, usize::MAX] {
                let e = Error::new(k, off);
                assert_eq!((e.kind(), e.offset()), (k, off));
            }
        }
        let e = Error::new(ErrorKind::TooLong, 7).shifted(3);
        assert_eq!((e.kind(), e.offset()), (ErrorKind::TooLong, 10));
        assert_eq!(
            e.to_string(),
            "longer than the format allows (2^31 - 1) at offset 10"
        );
        assert_eq!(
            Error::new(ErrorKind::TooLong, usize::MAX)
                .shifted(1)
                .offset(),
            usize::MAX
        );
    }
}

/// An error of the text readers ([`text`](crate::text) and [`json`](crate::json)): what is
/// wrong in the input (its syntax, or a value the options refuse) and where, as a byte offset.
///
/// ```
/// let e = gdvariant::json::from_str("[1, ").unwrap_err();
/// assert_eq!(e.syntax, gdvariant::error::Syntax::Json);
/// assert_eq!(e.to_string(), format!("{} at offset {} of the JSON input", e.message, e.offset));
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: alloc::string::String,
    /// The byte offset in the input.
    pub offset: usize,
    /// Which form the input was read as.
    pub syntax: Syntax,
}

/// The text forms the crate reads.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Syntax {
    /// The engine's text form (`var_to_str` / `str_to_var`): [`text`](crate::text).
    Text,
    /// The typed JSON: [`json`](crate::json).
    Json,
}

#[cfg(feature = "std")]
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let form = match self.syntax {
            Syntax::Text => "text",
            Syntax::Json => "JSON",
        };
        write!(
            f,
            "{} at offset {} of the {form} input",
            self.message, self.offset
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ParseError {}
