//! The deserialization error: a message, the field path and the byte offset, boxed.

// This file's #[cold] error constructors, as a group: in_serde +1.5 % instructions without them;
// with those of map.rs and deserializer.rs, +3 % instructions and +5 % time.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de;

use crate::types::{Dialect, VariantType};

/// The deserialization error: what went wrong, where in the data (the field path), and at
/// which byte offset.
///
/// Its `Display` is `path: message at offset N`, as
/// `entities[9999].pos: expected Vector3, found String at offset 1754192`; a value of the wrong
/// type is named by its Godot type.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    msg: String,
    /// The format error behind the message, if it is one.
    format: Option<crate::error::Error>,
    offset: Option<usize>,
    /// Path segments, innermost first.
    path: Vec<Segment>,
    /// For a type mismatch whose message does not name the Godot type found yet: what the
    /// target expected (the deserializer, which knows the type, rewrites the message).
    expected: Option<String>,
}

#[derive(Clone, PartialEq, Eq)]
enum Segment {
    Index(usize),
    Key(String),
}

impl Error {
    #[cold]
    pub(crate) fn new(msg: String) -> Error {
        Error {
            inner: Box::new(Inner {
                msg,
                format: None,
                offset: None,
                path: Vec::new(),
                expected: None,
            }),
        }
    }

    /// The byte offset in the input of the value the error is about, when known.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }

    /// The format error (malformed input, limits) behind this error, if it is one.
    pub fn format_error(&self) -> Option<crate::error::Error> {
        self.inner.format.clone()
    }

    /// The path of the field the error is about, as `entities[9999].pos` (empty at the top).
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.inner.path.iter().rev() {
            match seg {
                Segment::Index(i) => out.push_str(&alloc::format!("[{i}]")),
                Segment::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
            }
        }
        out
    }

    /// The message without the path and offset.
    pub fn message(&self) -> &str {
        &self.inner.msg
    }

    /// An error from reading the engine's value of the container at `offset` (its own
    /// bytes, not the input's): the offset is the container's.
    #[cold]
    pub(crate) fn in_engine_value(mut self, offset: usize) -> Error {
        self.inner.offset = Some(offset);
        self
    }

    #[cold]
    pub(crate) fn at(mut self, offset: usize) -> Error {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    /// Names the Godot type of the value a type mismatch is about (once, at the innermost
    /// value: an error that already has a path came from inside).
    #[cold]
    pub(crate) fn found(mut self, ty: VariantType, dialect: Dialect) -> Error {
        if self.inner.path.is_empty() {
            if let Some(expected) = self.inner.expected.take() {
                self.inner.msg =
                    alloc::format!("expected {expected}, found {}", ty.name_in(dialect));
            }
        }
        self
    }

    /// [`found`](Error::found) then [`at`](Error::at).
    #[cold]
    pub(crate) fn value_at(self, ty: VariantType, dialect: Dialect, offset: usize) -> Error {
        self.found(ty, dialect).at(offset)
    }

    #[cold]
    pub(crate) fn in_index(mut self, i: usize) -> Error {
        self.inner.expected = None;
        self.inner.path.push(Segment::Index(i));
        self
    }

    #[cold]
    pub(crate) fn in_key(mut self, k: &str) -> Error {
        self.inner.expected = None;
        self.inner.path.push(Segment::Key(k.to_owned()));
        self
    }
}

impl From<crate::error::Error> for Error {
    #[cold]
    fn from(e: crate::error::Error) -> Error {
        let mut err = Error::new(e.kind().to_string()).at(e.offset());
        err.inner.format = Some(e);
        err
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if !path.is_empty() {
            write!(f, "{path}: ")?;
        }
        f.write_str(&self.inner.msg)?;
        if let Some(off) = self.inner.offset {
            write!(f, " at offset {off}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::new(msg.to_string())
    }

    /// `expected X, found Y`; the deserializer then names `Y` by the Godot type of the value
    /// (`expected Vector3, found String`).
    #[cold]
    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Error {
        let expected = exp.to_string();
        let mut e = Error::new(alloc::format!("expected {expected}, found {unexp}"));
        e.inner.expected = Some(expected);
        e
    }
}

impl core::error::Error for Error {}

/// A specialized `Result` for deserialization.
pub type Result<T, E = Error> = core::result::Result<T, E>;
