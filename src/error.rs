//! Errors: what went wrong and at which byte offset.

use core::fmt;
use core::num::NonZeroU64;

use crate::types::{Dialect, VariantType};

/// A specialized [`Result`](core::result::Result) for gdvariant.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An error while reading or writing Variant bytes.
///
/// Every error carries the absolute byte offset in the input at which the problem was found (for a
/// value obtained from a framed stream, the offset in the whole stream) and an [`ErrorKind`] saying
/// what it was. Its `Display` reads like `unexpected end of input at offset 28`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Error {
    // Two 64-bit words, so that `Result<T>` stays small on every read path and is written and
    // read whole (halves written apart and read back as one word stall the CPU): `head` holds
    // the offset in its low 48 bits (256 TiB; larger offsets saturate), the kind's tag plus one
    // in the next 8 (never zero: the niche keeps `Result<()>` at 16 bytes) and a byte of
    // payload in the top 8; `payload` holds up to 64 more bits. The encoding is canonical (one
    // bit pattern per kind and offset), so the derived traits hold.
    head: NonZeroU64,
    payload: u64,
}

const _: () = assert!(core::mem::size_of::<Error>() <= 16);

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
    /// A high-level multiplayer packet's structure is wrong (feature `multiplayer`).
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
    /// Creates an error of `kind` at `offset` (offsets beyond 2^48 - 1 saturate; a
    /// [`FrameTooLarge`](ErrorKind::FrameTooLarge) length or maximum beyond `u32::MAX` saturates
    /// to it, as a length prefix cannot hold more; a [`WriterMisuse`](ErrorKind::WriterMisuse)
    /// message or [`Expected::PackedOf`] name not of this crate reads back as a generic one).
    #[cold]
    #[inline(never)]
    pub fn new(kind: ErrorKind, offset: usize) -> Error {
        let (tag, aux, a, b) = encode_kind(kind);
        let off = (offset as u64).min(MAX_OFFSET);
        let head = off | u64::from(tag + 1) << 48 | u64::from(aux) << 56;
        Error {
            head: NonZeroU64::new(head).unwrap_or(NonZeroU64::MIN),
            payload: u64::from(a) | u64::from(b) << 32,
        }
    }

    /// The absolute byte offset at which the problem was found.
    #[inline]
    pub fn offset(&self) -> usize {
        usize::try_from(self.head.get() & MAX_OFFSET).unwrap_or(usize::MAX)
    }

    /// What went wrong.
    #[inline]
    pub fn kind(&self) -> ErrorKind {
        let head = self.head.get();
        let tag = ((head >> 48) as u8).wrapping_sub(1);
        decode_kind(
            tag,
            (head >> 56) as u8,
            self.payload as u32,
            (self.payload >> 32) as u32,
        )
    }

    /// The same error with its offset moved by `delta` (used when a value inside a larger stream
    /// was read from a sub-slice).
    #[must_use]
    pub fn shifted(self, delta: usize) -> Error {
        Error::new(self.kind(), self.offset().saturating_add(delta))
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
            ErrorKind::InvalidPacket { what } => write!(f, "invalid packet: {what}"),
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

// ----- the two-word encoding -----

const MAX_OFFSET: u64 = (1 << 48) - 1;

/// Every message of [`ErrorKind::WriterMisuse`] the crate writes; index 0 stands for any other.
const MISUSE: &[&str] = &[
    "writer misuse",
    "dictionary key without a value",
    "empty class name (write a null object with `object_id(0)`)",
    "end without an open container",
    "fewer values than the container's declared count",
    "finish with open containers",
    "more values than the container's declared count",
    "object property name without a value",
    "object property value without a name",
    "property name outside an object",
    "two property names in a row",
    "raw value encoded in the other dialect",
    "no value written for the frame",
    "more than one value written for the frame",
];

/// Every message of [`ErrorKind::InvalidPacket`] the crate writes; index 0 stands for any other.
const PACKET: &[&str] = &[
    "invalid packet",
    "node id width 3 (not 8, 16 or 32 bits)",
    "inline node path offset past the end",
    "inline node path offset inside the header",
    "argument count missing before the inline path",
    "more than 255 RPC arguments",
    "node cache id with bit 31 set",
    "SYS packet inside a relay",
    "more DELTA values than bits in the mask",
    "NUL inside a string",
    "CONFIRM_PATH longer than 6 bytes",
    "spawn sync ids and name longer than the packet",
    "spawn name length 0",
    "custom spawn argument past the end",
    "synchronizer entry size past the end",
    "scene index 0xFF is the custom spawn's",
    "SYNC packet without entries",
    "DELTA packet without entries",
    "unknown SYS command",
    "empty authentication data",
    "empty relayed packet",
    "empty raw packet",
    "unknown Godot 3 command",
    "method or property name without its NUL",
];

/// Every element name of [`Expected::PackedOf`] (the sealed packed element types'); index 0
/// stands for any other.
const PACKED: &[&str] = &[
    "element",
    "i32",
    "i64",
    "f32",
    "f64",
    "[f32; 2] (Vector2)",
    "[f64; 2] (Vector2, double)",
    "[f32; 3] (Vector3)",
    "[f64; 3] (Vector3, double)",
    "[f32; 4] (Vector4)",
    "[f64; 4] (Vector4, double)",
    "Color",
];

fn index_of(table: &[&str], s: &str) -> u32 {
    let i = table.iter().position(|t| *t == s).unwrap_or(0);
    debug_assert!(
        i != 0 || s == table[0],
        "message not in the error table: {s}"
    );
    i as u32
}

fn split(n: u64) -> (u32, u32) {
    (n as u32, (n >> 32) as u32)
}

fn join(a: u32, b: u32) -> usize {
    usize::try_from(u64::from(a) | u64::from(b) << 32).unwrap_or(usize::MAX)
}

fn ty_byte(t: VariantType) -> u8 {
    // The Godot 4 type ids follow the enum's order.
    Dialect::Godot4.id_of(t).unwrap_or(0) as u8
}

fn byte_ty(b: u8) -> VariantType {
    Dialect::Godot4
        .type_of(u32::from(b))
        .unwrap_or(VariantType::Nil)
}

fn encode_kind(kind: ErrorKind) -> (u8, u8, u32, u32) {
    use ErrorKind as K;
    match kind {
        K::UnexpectedEof { needed } => {
            let (a, b) = split(needed as u64);
            (0, 0, a, b)
        }
        K::UnknownType { id } => (1, 0, id, 0),
        K::InvalidContainerType { id } => (2, 0, id, 0),
        K::InvalidUtf8 => (3, 0, 0, 0),
        K::NotRustUtf8 => (4, 0, 0, 0),
        K::NegativeLength { value } => (5, 0, value as u32, 0),
        K::LengthOverflow => (6, 0, 0, 0),
        K::DepthExceeded { limit } => (7, 0, limit, 0),
        K::ObjectsNotAllowed => (8, 0, 0, 0),
        K::InvalidObjectScript => (9, 0, 0, 0),
        K::OldNodePathFormat => (10, 0, 0, 0),
        K::WrongType { expected, found } => {
            let e = match expected {
                Expected::Type(t) => 0x100 | u32::from(ty_byte(t)),
                Expected::StringLike => 0x200,
                Expected::PackedOf(name) => 0x300 | index_of(PACKED, name),
                Expected::AnyPacked => 0x400,
            };
            (11, ty_byte(found), e, 0)
        }
        K::UnsupportedInDialect { ty } => (12, ty_byte(ty), 0, 0),
        K::TooLong => (13, 0, 0, 0),
        K::WriterMisuse { what } => (14, 0, index_of(MISUSE, what), 0),
        K::FrameTooLarge { len, max } => (
            15,
            0,
            len.min(u64::from(u32::MAX)) as u32,
            max.min(u64::from(u32::MAX)) as u32,
        ),
        K::TruncatedFrame { needed } => {
            let (a, b) = split(needed as u64);
            (16, 0, a, b)
        }
        K::TrailingBytesInFrame { extra } => {
            let (a, b) = split(extra as u64);
            (17, 0, a, b)
        }
        K::InvalidPacket { what } => (18, 0, index_of(PACKET, what), 0),
    }
}

fn decode_kind(tag: u8, aux: u8, a: u32, b: u32) -> ErrorKind {
    use ErrorKind as K;
    match tag {
        0 => K::UnexpectedEof { needed: join(a, b) },
        1 => K::UnknownType { id: a },
        2 => K::InvalidContainerType { id: a },
        3 => K::InvalidUtf8,
        4 => K::NotRustUtf8,
        5 => K::NegativeLength { value: a as i32 },
        6 => K::LengthOverflow,
        7 => K::DepthExceeded { limit: a },
        8 => K::ObjectsNotAllowed,
        9 => K::InvalidObjectScript,
        10 => K::OldNodePathFormat,
        11 => K::WrongType {
            expected: match a >> 8 {
                1 => Expected::Type(byte_ty(a as u8)),
                2 => Expected::StringLike,
                3 => Expected::PackedOf(
                    PACKED
                        .get((a & 0xFF) as usize)
                        .copied()
                        .unwrap_or(PACKED[0]),
                ),
                _ => Expected::AnyPacked,
            },
            found: byte_ty(aux),
        },
        12 => K::UnsupportedInDialect { ty: byte_ty(aux) },
        13 => K::TooLong,
        14 => K::WriterMisuse {
            what: MISUSE.get(a as usize).copied().unwrap_or(MISUSE[0]),
        },
        15 => K::FrameTooLarge {
            len: u64::from(a),
            max: u64::from(b),
        },
        16 => K::TruncatedFrame { needed: join(a, b) },
        17 => K::TrailingBytesInFrame { extra: join(a, b) },
        _ => K::InvalidPacket {
            what: PACKET.get(a as usize).copied().unwrap_or(PACKET[0]),
        },
    }
}

impl core::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_two_words_and_round_trips_every_kind() {
        assert!(core::mem::size_of::<Error>() <= 16);
        assert!(core::mem::size_of::<Result<()>>() <= 16);
        let mut kinds = alloc::vec![
            ErrorKind::UnexpectedEof { needed: 7 },
            ErrorKind::UnexpectedEof { needed: usize::MAX },
            ErrorKind::UnknownType { id: 0xDEAD_BEEF },
            ErrorKind::InvalidContainerType { id: 39 },
            ErrorKind::InvalidUtf8,
            ErrorKind::NotRustUtf8,
            ErrorKind::NegativeLength { value: i32::MIN },
            ErrorKind::LengthOverflow,
            ErrorKind::DepthExceeded { limit: 1024 },
            ErrorKind::ObjectsNotAllowed,
            ErrorKind::InvalidObjectScript,
            ErrorKind::OldNodePathFormat,
            ErrorKind::WrongType {
                expected: Expected::StringLike,
                found: VariantType::PackedVector4Array,
            },
            ErrorKind::WrongType {
                expected: Expected::AnyPacked,
                found: VariantType::Nil,
            },
            ErrorKind::UnsupportedInDialect {
                ty: VariantType::Vector4,
            },
            ErrorKind::TooLong,
            ErrorKind::FrameTooLarge {
                len: u64::from(u32::MAX),
                max: 8 << 20,
            },
            ErrorKind::TruncatedFrame { needed: 3 },
            ErrorKind::TrailingBytesInFrame { extra: 1 << 40 },
        ];
        for t in Dialect::Godot4.types() {
            kinds.push(ErrorKind::WrongType {
                expected: Expected::Type(t),
                found: t,
            });
        }
        for name in PACKED {
            kinds.push(ErrorKind::WrongType {
                expected: Expected::PackedOf(name),
                found: VariantType::Int,
            });
        }
        for what in MISUSE {
            kinds.push(ErrorKind::WriterMisuse { what });
        }
        for what in PACKET {
            kinds.push(ErrorKind::InvalidPacket { what });
        }
        for (i, k) in kinds.into_iter().enumerate() {
            for off in [0, i, (1 << 40) + i, MAX_OFFSET as usize] {
                let e = Error::new(k, off);
                assert_eq!((e.kind(), e.offset()), (k, off));
            }
        }
        assert_eq!(
            Error::new(ErrorKind::TooLong, usize::MAX).offset(),
            MAX_OFFSET as usize
        );
    }
}
