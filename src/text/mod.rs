//! The engine's text form of whole values (feature `std`) — what Godot 4's `var_to_str` and
//! Godot 3's `var2str` print, and what `str_to_var` / `str2var` read — and [`Text`], a string
//! read by the engine's rules (BOM stripped, cut at the first NUL, checked by the dialect's).
//!
//! # The text form
//!
//! [`to_string`] prints a lazy [`VariantRef`](crate::VariantRef) byte for byte as the engine
//! does, for every value that is not an Object, including its quirks: floats in the engine's number format, `-0.0`
//! as `0.0`, dictionary keys **sorted** the way the engine sorts them (with its own introsort,
//! so even keys the engine cannot order come out in the engine's order), one key per line,
//! typed containers as `Array[int]([1, 2])`, Godot 3's spaced `Vector2( 1, 2 )` layout, and so
//! on. The dialect is the one the value was read with. [`from_str`] reads such text back.
//!
//! # What the text cannot carry
//!
//! The engine's text form is lossy, and so is this one, exactly where the engine's is:
//! [`round_trip`] tells, for a given value, whether its text gives back its bytes and if not,
//! names the first reason ([`LossKind`]): Dictionary keys printed sorted, keys that are the
//! same key to the engine (merged when read), `-0.0` (printed `0`), NaNs other than the canonical one, Godot 3's
//! 6-digit floats, Signals (printed `Signal()`), NodePaths whose text reads back as another
//! path, container types and object names that the text cannot spell (an empty class name
//! prints as the engine prints it, `Object` or `EncodedObjectAsID`), Godot 3 RIDs (printed as
//! nothing), typed containers the engine reads as others (their types or elements converted:
//! the text prints the engine's value), components in another precision than the one written
//! (or narrowed by a single-precision engine), Godot 3 text that Rust's strings cannot hold,
//! and bytes that are not the encoder's canonical form. `gdvariant decode` warns when one
//! applies. The [JSON form](crate::json) carries everything but the last two.
//!
//! # Reading
//!
//! [`from_str_with`] refuses, with an error at the value, whatever
//! [`validate_with`](crate::validate_with) with the same options would refuse in the bytes
//! (depth, dialect, object policy, the `script` property rule); [`from_str`] reads full objects
//! with the engine's depth limit, as `str_to_var`. The reader is iterative (nesting costs a few
//! heap bytes a level, never native stack), merges repeated keys as `str_to_var` does, by the
//! key identity of the dialect's engine (see [`Dictionary`](crate::Dictionary)), through a hash
//! (reading `n` entries of any key type is O(n) expected), and [`to_bytes`] writes the encoding
//! without building a tree (memory: the output plus the keys and a small record per entry of
//! each open Dictionary). Error messages quote at most
//! 32 characters of the input.
//!
//! Objects print in the engine's layout (`Object(Class,"prop":value,...)` and a newline), but
//! the engine prints the *live* object's property list, which bytes cannot tell; an object sent
//! as an instance id prints as the `EncodedObjectAsID` the engine decodes it to.
//!
//! Printing walks the value twice, linearly, without native recursion (any depth is fine on any
//! stack) and writes nothing if the value is malformed. Memory: 4 bytes per key of every
//! dictionary with two or more entries (8 past 4 GiB of input), plus a stack entry per open
//! container, and 8 bytes per key of one dictionary of at most 16 384 keys at a time (its key
//! hashes, while it is checked for repeated keys; a larger one is checked in place).
//! [`VariantRef`](crate::VariantRef) and [`Variant`](crate::Variant) implement `Display` in this
//! form.
//!
//! ```
//! # #[cfg(feature = "std")]
//! # fn main() -> Result<(), gdvariant::Error> {
//! use gdvariant::{text, Dialect, Variant};
//! // var_to_bytes({"b": 1.5, "a": [1, 2]}) in Godot 4
//! let bytes = [27, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'b', 0, 0, 0,
//!              3, 0, 0, 0, 0, 0, 0xC0, 0x3F, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0,
//!              28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0];
//! let v = gdvariant::parse(&bytes)?;
//! assert_eq!(text::to_string(&v)?, "{\n\"a\": [1, 2],\n\"b\": 1.5\n}");
//! assert_eq!(v.to_string(), text::to_string(&v)?);          // Display
//! let back = text::from_str("{\n\"a\": [1, 2],\n\"b\": 1.5\n}", Dialect::Godot4).unwrap();
//! assert_eq!(back.to_string(), v.to_string());
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "std"))]
//! # fn main() {}
//! ```

pub use crate::strings::Text;

#[cfg(feature = "std")]
mod index;
#[cfg(feature = "std")]
mod leaf;
#[cfg(feature = "std")]
mod lex;
#[cfg(feature = "std")]
mod loss;
#[cfg(feature = "std")]
mod order;
#[cfg(feature = "std")]
mod parse;
#[cfg(feature = "std")]
mod print;

#[cfg(feature = "std")]
pub use crate::error::ParseError;
#[cfg(feature = "std")]
pub use loss::{round_trip, LossKind, TextLoss};
#[cfg(feature = "std")]
pub use parse::{from_str, from_str_values, from_str_with, to_bytes, to_bytes_each};
#[cfg(feature = "std")]
pub use print::{to_fmt, to_string, to_writer};
