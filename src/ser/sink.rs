//! What the serializer's parts share, below them: the error, the nesting limit, and the
//! [`Sink`] the leaves are written to (the streaming writer or the direct serializer).

use alloc::string::{String, ToString};
use core::fmt;

use serde::ser::{self, Serialize};

use crate::encode::Enc;
use crate::writer::Writer;

/// The serialization error: a format error of the writer (a value the dialect cannot hold, a
/// string too long, …) or a value serde's data model has that Godot's has not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The writer refused a value.
    Format(crate::error::Error),
    /// A value Godot's format cannot hold, or a message from a `Serialize` impl.
    Message(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Format(e) => e.fmt(f),
            Error::Message(m) => f.write_str(m),
        }
    }
}

impl core::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::Message(msg.to_string())
    }
}

impl From<crate::error::Error> for Error {
    fn from(e: crate::error::Error) -> Error {
        Error::Format(e)
    }
}

/// A specialized `Result` for serialization.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// serde's nesting limit on writing (as on reading: serde's conventional 128), counted in the
/// writer's open containers: serialization recurses natively, so the limit bounds the stack it
/// uses. Deeper values are written by [`encode()`](crate::encode()) or [`Writer::value`],
/// which are iterative.
pub const RECURSION_LIMIT: usize = 128;

/// Errors when one more container would pass [`RECURSION_LIMIT`].
#[inline]
pub(crate) fn check_nesting(w: &Writer) -> Result<()> {
    if w.depth() >= RECURSION_LIMIT {
        return Err(nesting_error());
    }
    Ok(())
}

pub(crate) fn nesting_error() -> Error {
    Error::Message(alloc::format!(
        "serde's nesting limit of {RECURSION_LIMIT} exceeded: write deeper values with \
         gdvariant::encode or Writer::value"
    ))
}

/// Where the serializer's leaves go: the streaming [`Writer`] (every slot checked) or the
/// direct serializer's output.
pub(crate) trait Sink {
    /// An open container, as the sink keeps track of it.
    type Open;
    /// Writes one value with `f`, one of the encoder's primitives, at the sink's depth.
    fn put_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> crate::error::Result<()>) -> Result<()>;
    /// Writes one value with `f`, whose errors are serialization errors (a packed array's
    /// elements come from the value being serialized): on such an error the write is undone,
    /// as for any failed leaf, and that error is returned.
    fn put_serde(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()> {
        let mut inner = Ok(());
        let res = self.put_leaf(|e| {
            let at = e.pos();
            f(e).map_err(|err| {
                inner = Err(err);
                crate::error::Error::new(
                    crate::error::ErrorKind::WriterMisuse {
                        what: "writer misuse",
                    },
                    at,
                )
            })
        });
        inner?;
        res
    }
    /// The number of open containers.
    fn depth(&self) -> usize;
    /// Opens an untyped Array (`dict` false) or Dictionary of `declared` elements or pairs
    /// (patched on [`close`](Sink::close) when `None`).
    fn open(&mut self, dict: bool, declared: Option<usize>) -> Result<Self::Open>;
    /// Checks that one more value (a key or a value, in a Dictionary) fits the container `o`.
    fn slot(&mut self, o: &mut Self::Open) -> Result<()>;
    /// Closes the container `o`, the innermost open one: checks or patches its count.
    fn close(&mut self, o: Self::Open) -> Result<()>;
    /// Writes the value `f` writes through a [`Writer`] at the sink's depth (the writer's
    /// object API: full objects, typed containers, encoded values).
    fn with_writer(&mut self, f: impl FnOnce(&mut Writer) -> Result<()>) -> Result<()>;
}

/// Serializes a nested value (a full object's property, a typed container's element) into the
/// writer that holds its container, through the serializer over that writer.
pub(crate) trait Nested {
    /// Serializes `value` as the next value of the writer.
    fn serialize_nested<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()>;
}

/// The error for a value of the wrong shape: `what` came where `wants` was expected.
pub(crate) fn unexpected(what: &str, wants: &str) -> Error {
    Error::Message(alloc::format!("{what} where {wants} was expected"))
}

/// The serializer methods a receiver does not take: each is an error naming what came.
macro_rules! reject {
    ($wants:expr; $($method:ident($($arg:ty),*) $what:literal;)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<Self::Ok> {
            Err(unexpected($what, $wants))
        }
    )*};
}

/// The compound methods a receiver does not take.
macro_rules! reject_compounds {
    ($wants:expr) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err(unexpected("an option", $wants))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(unexpected("a tuple struct", $wants))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(unexpected("a map", $wants))
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err(unexpected("a struct", $wants))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok> {
            Err(unexpected("an enum", $wants))
        }
    };
}

/// The compound methods a receiver does not take, `serialize_map` apart.
macro_rules! reject_compounds_but_map {
    ($wants:expr) => {
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err(unexpected("an option", $wants))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(unexpected("a tuple struct", $wants))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err(unexpected("a struct", $wants))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(unexpected("an enum", $wants))
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
        ) -> Result<Self::Ok> {
            Err(unexpected("an enum", $wants))
        }
    };
}

pub(crate) use {reject, reject_compounds, reject_compounds_but_map};
