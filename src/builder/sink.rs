//! What the readers hand over: the events of a [`Sink`] (values, container starts and ends,
//! property names) and the [`Fail`] that stops a reader.

use std::string::String;

use crate::error::{ParseError, Syntax};
use crate::owned::{TypeInfo, Variant};
use crate::types::Dialect;

/// Why a reader stopped: what, and at which byte offset of the text.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) message: String,
    pub(crate) offset: usize,
}

pub(crate) type R<T = ()> = core::result::Result<T, Fail>;

impl Fail {
    /// The error of a reader of `syntax`.
    pub(crate) fn of(self, syntax: Syntax) -> ParseError {
        ParseError {
            message: self.message,
            offset: self.offset,
            syntax,
        }
    }
}

pub(crate) fn fail<T>(offset: usize, message: impl Into<String>) -> R<T> {
    Err(Fail {
        message: message.into(),
        offset,
    })
}

/// A container a reader opens.
pub(crate) enum Open {
    /// An Array with its element type.
    Array(TypeInfo),
    /// A Dictionary with its key and value types; `merge`: repeated keys (the same key by the
    /// key identity of this dialect's engine) replace the value in place (unless
    /// [`Sink::keep_all`] comes before its end); `None` keeps every entry as given.
    Dict {
        key: TypeInfo,
        value: TypeInfo,
        merge: Option<Dialect>,
    },
    /// A full object with its (non-empty) class name.
    Object(String),
}

/// What a builder receives, in reading order. `at` is the byte offset of the text the event
/// comes from (for errors). (`set_types` and `keep_all` are the JSON reader's.)
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) trait Sink {
    /// A value that holds no other value (never an Array, a Dictionary or a full object with
    /// a class: those come as `begin` … `end`).
    fn leaf(&mut self, v: Variant, depth: usize, at: usize) -> R;
    /// A container begins at `depth`.
    fn begin(&mut self, c: Open, depth: usize, at: usize) -> R;
    /// The name of the innermost object's next property.
    fn property(&mut self, name: String, at: usize) -> R;
    /// The innermost container's types, given after its elements (JSON): the element type of
    /// an Array (`value` unused) or the key and value types of a Dictionary.
    fn set_types(&mut self, key: TypeInfo, value: TypeInfo, at: usize) -> R;
    /// The innermost Dictionary keeps its entries as given, repeated keys included (JSON's
    /// `"$repeated": true`), instead of merging them.
    fn keep_all(&mut self, at: usize) -> R;
    /// The innermost container ends.
    fn end(&mut self, at: usize) -> R;
}

/// The kind of an open container.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Array,
    Dict,
    Object,
}
