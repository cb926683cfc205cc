//! The engine's conversion rule for typed containers (Godot 4).
//!
//! When Godot 4 decodes a typed Array (`Array[int]`) or the keys of a typed Dictionary
//! (`Dictionary[int, ...]`), every element goes through the container's type check
//! (`ContainerTypeValidate::validate`): an element of the declared type is kept; one that
//! `Variant::can_convert_strict` allows is converted with the declared type's constructor
//! (`Variant::construct`); any other is dropped. The bytes can say anything, so this decides
//! what the engine's value holds. This module is that rule, checked live against Godot 4.6
//! (`tests/engine/differential.rs`, `tests/godot/DEVIATIONS.md`):
//!
//! - [`fit`] says what happens to one element: [`Fit::Keep`], [`Fit::Convert`] or [`Fit::Drop`];
//! - [`convert`] performs a conversion (`int` from `bool` or `float`, `Vector2i` from `Vector2`,
//!   `Basis` from `Quaternion`, `PackedStringArray` from `Array`, `Color` from a `String`, ...);
//! - [`engine_type`] is the declared type as the engine keeps it: `Nil` means untyped, and
//!   without full objects a class or script type is `EncodedObjectAsID`.
//!
//! The table of conversions (`Variant::can_convert_strict`), to ← from:
//!
//! | declared | converted from |
//! |---|---|
//! | bool | int, float |
//! | int | bool, float |
//! | float | bool, int |
//! | String | StringName, NodePath |
//! | Vector2 / Vector2i, Rect2 / Rect2i, Vector3 / Vector3i, Vector4 / Vector4i | each other |
//! | Transform2D | Transform3D |
//! | Quaternion | Basis |
//! | Basis | Quaternion |
//! | Transform3D | Transform2D, Quaternion, Basis, Projection |
//! | Projection | Transform3D |
//! | Color | String, int |
//! | RID | Object |
//! | Object (any class) | Nil (kept as null) |
//! | StringName, NodePath | String |
//! | Array | every packed array |
//! | every packed array | Array |
//!
//! Values of a typed Dictionary are not checked by the engine (its `operator[]` hands out the
//! slot), only its keys.
//!
//! Numbers follow the engine's C++: a `float` to `int` conversion truncates, and a NaN or an
//! out-of-range value becomes the smallest integer (x86's `cvttsd2si`); math is done in the
//! engine's `real_t` (`f32`, or `f64` with [`ReadOptions::with_double_precision`](crate::ReadOptions::with_double_precision)).
//!
//! Not modelled: a full object's class is checked against an `Array[Node]`-like class type by
//! the engine's class database, which a byte-level reader does not have: such elements are
//! kept (an object sent as an instance id is an `EncodedObjectAsID`, whose ancestry is known:
//! it fits `Object`, `RefCounted` and `EncodedObjectAsID` only).

// The files, from the bottom up (each imports only files named before it): `typed` (what a
// typed container does with an element), `maths` (the engine's maths in its `real_t`), `parse` (text to numbers
// and node paths), `colors`, `stringify` (`str()`), `packed` (Arrays and packed arrays, each
// from the other), `construct` (the conversions, and the containers built with them). Numbers
// printed as the engine prints them, and C++'s casts of reals to integers, are `crate::num`'s.

mod colors;
mod construct;
mod maths;
mod packed;
mod parse;
mod stringify;
mod typed;

pub use construct::convert;
pub use typed::{can_convert, engine_type, engine_types, fit, Fit, ENCODED_OBJECT_AS_ID};

pub(crate) use construct::{engine_array, engine_dictionary, narrowed};
#[cfg(feature = "serde")]
pub(crate) use maths::real;
#[cfg(feature = "serde")]
pub(crate) use typed::same_until;
pub(crate) use typed::{checked_type, fit_ref};
