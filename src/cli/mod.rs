//! The `gdvariant` command-line tool as a library (feature `cli`).
//!
//! Work in progress.
