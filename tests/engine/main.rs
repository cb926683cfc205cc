//! The real engines' answers, one test binary: every value they wrote reads back (`golden`) and
//! re-encodes to their bytes (`roundtrip`), what gdvariant writes they read back (`live`), the
//! differential test on mutants (`differential`, with `differential_answers`,
//! `differential_compare` and the generator `mutants`), Godot 4's typed-container conversions
//! (`conversions`), dictionary key identity (`dictionary_keys`), the encoder refusing what
//! would not read back (`write_only_what_reads_back`), and the `mint` / `glam` conversions on
//! engine-written values (`interop`).
//!
//! The live checks run the engines of `tests/godot/install.sh` when they are installed
//! (required when `GDVARIANT_LIVE_GODOT3=1` / `GDVARIANT_LIVE_GODOT4=1`).

#[path = "../common/mod.rs"]
mod common;

mod conversions;
mod dictionary_keys;
#[cfg(feature = "std")]
mod differential;
#[cfg(feature = "std")]
mod differential_answers;
#[cfg(feature = "std")]
mod differential_compare;
mod golden;
#[cfg(any(feature = "mint", feature = "glam"))]
mod interop;
mod live;
#[cfg(feature = "std")]
#[path = "../godot/mutants.rs"]
mod mutants;
mod roundtrip;
mod write_only_what_reads_back;
