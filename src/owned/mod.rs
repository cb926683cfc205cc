//! [`Variant`]: an owned Variant tree, built by hand or from a
//! [`VariantRef`](crate::VariantRef).
//!
//! The owned types mirror the borrowed views: [`Array`] / [`ArrayRef`](crate::ArrayRef),
//! [`Dictionary`] / [`DictionaryRef`](crate::DictionaryRef), [`Object`] /
//! [`ObjectRef`](crate::ObjectRef), [`NodePath`] / [`NodePathRef`](crate::object::NodePathRef),
//! [`TypeInfo`] / [`ContainerType`](crate::array::ContainerType). Math types are shared with the
//! reader ([`crate::math`]).
//!
//! # Equality
//!
//! `Variant`'s [`PartialEq`] is structural and compares floats **by their bits**: a NaN equals
//! the same NaN, and `-0.0 != 0.0`. That makes it an equivalence relation (`Eq` holds), and makes
//! round-trip tests meaningful: `encode` then `to_owned` gives back an equal tree. Dictionaries
//! compare their entries in order. [`Variant::Raw`] values compare by dialect and bytes.
//!
//! # Deep trees
//!
//! Conversion from a [`VariantRef`](crate::VariantRef), encoding, equality and dropping never
//! recurse on the native stack, so trees nested far deeper than the engine's limit of 1024 are
//! safe to build, compare and drop; cloning is iterative too, and `Debug` prints nested
//! containers down to [`DEBUG_DEPTH`] levels (deeper content is elided), so no trait on an owned
//! tree can overflow the stack.

mod convert;
mod deep;
mod dictionary;
mod gstring;
pub(crate) mod index;
pub(crate) mod key;
mod raw;
pub(crate) mod type_info;
mod variant;

pub use convert::{InvalidNodePath, WrongType};
pub use deep::DEBUG_DEPTH;
pub use gstring::{GString, INLINE_CAPACITY};
pub use raw::RawValue;
pub use type_info::TypeInfo;
pub use variant::{Array, Dictionary, NodePath, Object, Signal, Variant};
