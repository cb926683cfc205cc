//! [`TypeInfo`]: the element, key or value type of a typed container, and how the containers
//! keep it (out of line, nothing for an untyped one).

use alloc::boxed::Box;
use alloc::string::String;

use crate::types::VariantType;

/// The element, key or value type of a typed container: the owned counterpart of
/// [`ContainerType`](crate::array::ContainerType).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum TypeInfo {
    /// Untyped.
    #[default]
    None,
    /// A builtin type (`Array[int]`).
    Builtin(VariantType),
    /// A native class name (`Array[Node]`).
    ClassName(String),
    /// A script by its `res://` path.
    Script(String),
}

/// The untyped [`TypeInfo`], for the accessors of untyped containers.
pub(crate) static UNTYPED: TypeInfo = TypeInfo::None;

/// `t` as stored by an [`Array`](crate::Array): `None` when untyped.
#[inline]
pub(crate) fn boxed_type(t: TypeInfo) -> Option<Box<TypeInfo>> {
    match t {
        TypeInfo::None => None,
        t => Some(Box::new(t)),
    }
}

/// `k` and `v` as stored by a [`Dictionary`](crate::Dictionary): `None` when both are untyped.
#[inline]
pub(crate) fn boxed_types(k: TypeInfo, v: TypeInfo) -> Option<Box<(TypeInfo, TypeInfo)>> {
    match (k, v) {
        (TypeInfo::None, TypeInfo::None) => None,
        kv => Some(Box::new(kv)),
    }
}
