//! A lossless, typed JSON form of Variants, written from a lazy [`VariantRef`] and read back into
//! a [`Variant`](crate::Variant).
//!
//! The common types map onto plain JSON so that `jq` paths read naturally
//! (`.entities[3].name`); everything else is a one-key object tagged with `$` and the type's
//! Godot 4 name (in both dialects).
//!
//! | Variant | JSON |
//! |---|---|
//! | Nil, bool | `null`, `true`, `false` |
//! | int | an integer, exact to 64 bits (`-9223372036854775808`) |
//! | float | a number that always has a `.` or an exponent (`1.0`, `0.1`, `1e+300`): the shortest decimal that reads back as the same `f64`; the encoder writes 4 bytes iff that is exact, as the engine does. NaN and infinities: `{"$float": "nan"}`, `"-nan"`, `"nan(0x7ff8000000000001)"`, `"inf"`, `"-inf"` (see below) |
//! | String | a string |
//! | Array (untyped) | an array |
//! | Array (typed) | `{"$Array": [...], "$type": T}` |
//! | Dictionary whose keys are all Strings, none starting with `$`, none repeated, untyped | an object, keys in insertion order |
//! | any other Dictionary | `{"$Dictionary": [[key, value], ...]}`, plus `"$key": T, "$value": T` when typed, plus `"$repeated": true` when two keys are equal as values |
//! | Vector2, Rect2, Vector3, Transform2D, Vector4, Plane, Quaternion, AABB, Basis, Transform3D, Projection, Color | `{"$Vector3": [x, y, z]}`: components in wire order (Basis row-major) |
//! | Vector2i, Rect2i, Vector3i, Vector4i | `{"$Vector2i": [1, -2]}` |
//! | StringName | `{"$StringName": "name"}` |
//! | NodePath | `{"$NodePath": "/root/a:prop"}`; a path whose text would read back as another path (empty names, names holding `/` or `:`, …) as its parts: `{"$NodePath": {"names": ["", "a"], "subnames": [], "absolute": false}}` |
//! | RID | `{"$RID": 81604378624}` |
//! | Object | `{"$ObjectId": 123}` (instance id), `{"$Object": {"class": "Node", "properties": [["name", value], ...]}}` (full object, `"class"` first; class `""` is the null object, without properties) |
//! | Callable, Signal | `{"$Callable": null}`, `{"$Signal": {"name": "pressed", "object": 123}}` |
//! | Packed arrays | `{"$PackedInt32Array": [1, 2]}`, `{"$PackedByteArray": [1, 2]}`, `{"$PackedStringArray": ["a"]}`, `{"$PackedVector3Array": [[1.0, 2.0, 3.0]]}`, `{"$PackedColorArray": [[r, g, b, a]]}` |
//!
//! `T` (a container's element, key or value type) is a builtin type name (`"int"`,
//! `"Vector2"`), `{"class": "Node"}` (any class name, the empty one included) or
//! `{"script": "res://thing.gd"}`; an untyped key or value of a half-typed Dictionary is
//! `"Variant"`.
//!
//! Components of math types and packed arrays stored as `f32` are written as the shortest decimal
//! that reads back as the same `f32` (`0.1`, not `0.10000000149011612`). Non-finite numbers,
//! standalone or components, are strings that keep every bit: `"inf"`, `"-inf"`, `"nan"` (the
//! positive quiet NaN without payload), `"-nan"` (its negative, x86's `0.0 / 0.0`), and any other
//! NaN as `"nan(0x…)"` with its exact bits in hex (16 digits for an `f64`, 8 for an `f32`
//! component). A value whose components were written as `f64` (a double-precision engine
//! build) carries `"$f64": true` next to its tag; encoding such JSON uses double precision (as
//! `--precision double` does).
//!
//! Dictionaries read from a plain object merge repeated keys as the engine's `str_to_var`
//! does (the first key and its position, the last value), by the engine's key identity
//! (Godot 4's rule, whatever the dialect: see [`Dictionary`](crate::Dictionary)), and so do
//! `$Dictionary` lists, unless they carry `"$repeated": true`: then every pair is kept as
//! given, as bytes can hold them (the printer marks the Dictionaries whose keys may repeat —
//! the same key to either engine, such as two strings that differ only after a NUL, which the
//! engine cuts, or `-0.0` and `0.0` — so that reading the JSON back gives the entries the bytes
//! hold; [`VariantRef::to_owned`] merges them as the engine's `bytes_to_var` does).
//!
//! # Lossless
//!
//! The JSON records what the bytes say, as the lazy views do, also where crafted bytes say more
//! than the engine reads: a repeated dictionary key, a typed Array's element of another type,
//! 64-bit math components. The engine's reading of such bytes (one entry per key, elements
//! converted or dropped, components narrowed: see [`VariantRef`]'s docs) is what
//! [`VariantRef::to_owned`] and the [text form](crate::text) give. So `encode` writes the same
//! bytes: `gdvariant decode --format json | gdvariant encode --from json` gives back the original
//! bytes whenever they are the encoder's canonical bytes for their value (every engine-written
//! value is; the `print_round_trip` fuzz target checks this for arbitrary input, both
//! dialects). Bytes that are not canonical (an int in 64 bits that fits 32, non-zero padding,
//! …) come back canonical. Tools that re-print numbers through `f64` lose that: jq 1.6 prints
//! `100.0` as `100` (which then reads as an int) and rounds ints beyond 2^53. Use jq to read
//! and select; feed `encode` JSON that kept its number literals (jq 1.7+ keeps unmodified
//! literals).
//!
//! # Reading
//!
//! [`from_str_with`] refuses, with an error at the value, whatever
//! [`validate_with`](crate::validate_with) with the same [`ReadOptions`](crate::ReadOptions) would
//! refuse in the bytes (depth, dialect, object policy, the `script` property rule); [`from_str`]
//! reads full objects with the engine's depth limit. The reader is iterative (nesting costs a
//! few heap bytes a level, never native stack) and finds repeated keys through a hash of the
//! key identity, so reading `n` entries of any key type is O(n) expected. [`to_bytes`] and [`to_bytes_each`] write the encoding straight from
//! the text without building a tree: memory is the output plus the keys and a small record per
//! entry of each open Dictionary (a type given after the elements, or a repeated key, is recorded as an
//! insertion or a reordering of byte ranges, applied in one final pass: the work stays linear).
//! Error messages quote at most 32 characters of the input.
//!
//! # Printing
//!
//! Printing walks the value twice (once to tell which Dictionaries print as plain objects and
//! which may repeat keys), linearly, without native recursion, and writes nothing if the value
//! is malformed. Memory: two bits per Dictionary, a stack entry per open container, and the
//! hashes of the keys of the open Dictionaries of two or more entries.
//!
//! # Why not serde_json
//!
//! The feature has no dependency. serde_json would need its `arbitrary_precision` feature (to
//! tell `1` from `1.0` and read an `f32` component straight from its decimal) and
//! `preserve_order` (keys in insertion order); Cargo unifies features, so both would change
//! serde_json for every crate of your build. Its reader recurses per level with a limit of
//! 128, far below the JSON nesting of a value at the engine's depth limit of 1024 (up to four
//! JSON levels per Variant level), and its `Value` tree drops recursively; the printer here is the crate's one iterative [`Walker`] writing
//! straight to the output, with no tree. To get a `serde_json::Value` of a [`Variant`](crate::Variant)
//! (the plain, lossy mapping of the serde table), use the `serde` feature:
//! `serde_json::to_value(&variant)`.
//!
//! [`Walker`]: crate::Walker
//!
//! ```
//! use gdvariant::{json, Variant, math::Vector2i};
//! let v = gdvariant::parse(&[2, 0, 0, 0, 42, 0, 0, 0])?;
//! assert_eq!(json::to_string(&v)?, "42");
//! let back = json::from_str("{\"$Vector2i\": [1, -2]}").unwrap();
//! assert_eq!(back, Variant::Vector2i(Vector2i::new(1, -2)));
//! # Ok::<(), gdvariant::Error>(())
//! ```

use core::fmt;

use crate::error::Result;
use crate::value::VariantRef;

mod lex;
mod parse;
mod print;

pub use crate::error::ParseError;
pub use parse::{
    from_str, from_str_values, from_str_values_with, from_str_with, to_bytes, to_bytes_each,
};

/// The JSON reader's error type's name before 0.2.
#[deprecated(
    since = "0.2.0",
    note = "renamed to `json::ParseError`, the same type as `text::ParseError`"
)]
pub type JsonError = ParseError;

/// The JSON form of `v` on one line. Errors if `v` is malformed.
pub fn to_string(v: &VariantRef<'_>) -> Result<std::string::String> {
    crate::out::to_string(|s| print::print(v, s))
}

/// Writes the JSON form of `v` (one line) to `out`. The whole value is checked before anything
/// is written: a malformed value is `Err` with nothing written; a failing writer is
/// `Ok(Err(_))`.
pub fn to_fmt<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, out: &mut W) -> Result<fmt::Result> {
    crate::out::to_fmt(|| print::print(v, out))
}

/// Writes the JSON form of `v` (one line) to `out` through a 64 KiB buffer, then flushes it. A
/// malformed value is an [`std::io::ErrorKind::InvalidData`] error (nothing written) whose
/// [`get_ref`](std::io::Error::get_ref) is the [`Error`](crate::Error), with its offset.
pub fn to_writer<W: std::io::Write>(v: &VariantRef<'_>, out: W) -> std::io::Result<()> {
    crate::out::to_writer(out, |o| print::print(v, o))
}
