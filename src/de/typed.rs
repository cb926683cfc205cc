//! Typed containers as the engine reads them: when the engine's value of a typed Array or
//! Dictionary is not what its bytes say, the deserializer reads that value instead ([`Source`]
//! for [`FromInput`]).

// This file's #[inline(always)]s and #[cold]s, as a group: gs_serde +5 % time without them (layout-
// pinned A/B).

use serde::de::{self, Visitor};

use super::deserializer::{Deserializer, FromEngine, FromInput, Source};
use super::error::Result;
use super::owned;
use crate::head::head;
use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;
use crate::walker::Walker;

impl Source for FromInput {
    #[inline(always)]
    fn typed<'de, V: Visitor<'de>>(
        de: &mut Deserializer<'de, Self>,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        match engine_value_due(de) {
            Ok(None) => Err(visitor),
            Ok(Some(v)) => Ok(v.read(de, |d| de::Deserializer::deserialize_any(d, visitor))),
            Err(e) => Ok(Err(e)),
        }
    }

    #[inline(always)]
    fn typed_enum<'de, V: Visitor<'de>>(
        de: &mut Deserializer<'de, Self>,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        match engine_value_due(de) {
            Ok(None) => Err(visitor),
            Ok(Some(v)) => Ok(v.read(de, |d| {
                de::Deserializer::deserialize_enum(d, name, variants, visitor)
            })),
            Err(e) => Ok(Err(e)),
        }
    }
}

/// The engine's value needs no other reading.
impl Source for FromEngine {}

/// [`engine_value`] if the next value is a typed container not looked at yet; `None` otherwise.
#[inline(always)]
fn engine_value_due(this: &mut Deserializer<'_, FromInput>) -> Result<Option<EngineValue>> {
    if !this.typed_container_due() || this.w.offset() < this.checked_until {
        return Ok(None);
    }
    engine_value(this)
}

/// The engine's value of the typed container due, encoded afresh, when the engine reads it
/// otherwise than its bytes say: when an element (a key) in it, at any depth, is not of its
/// container's type, the engine converts or drops it ([`crate::convert`]), and the visitor
/// reads the value the engine holds (`to_owned`, encoded afresh). `None` when the engine reads
/// the bytes as they are: they are read as usual, borrowed, and the typed containers up to its
/// end are not looked at again.
///
/// Linear: one walk of the container decides ([`crate::convert::same_until`]); its errors are
/// never reported from there but from this deserializer's own walk (`take_value`), which
/// reports exactly `validate`'s.
#[cold]
#[inline(never)]
fn engine_value(this: &mut Deserializer<'_, FromInput>) -> Result<Option<EngineValue>> {
    if let Some(mut r) = this.w.value_due() {
        let opts = *this.w.options();
        let depth = this.w.depth();
        let same = head(&mut r, depth, &opts, true)
            .and_then(|h| crate::convert::same_until(VariantRef::new(h, depth, opts)));
        if let Ok(Some(end)) = same {
            this.checked_until = end;
            return Ok(None);
        }
    }
    // On an error, the walk stops in `take_value` (even if a caller swallows the error, it
    // cannot go on past the value).
    let v = this.take_value()?;
    let offset = v.offset();
    let opts = v.options();
    let bytes = crate::encode::encode_with(
        &v.to_owned()?,
        &crate::encode::EncodeOptions::new()
            .with_dialect(opts.dialect)
            .with_full_objects(opts.full_objects())
            .with_double_precision(opts.double_precision())
            .with_max_depth(crate::types::MAX_DEPTH_LIMIT),
    )?;
    Ok(Some(EngineValue {
        bytes,
        offset,
        opts: opts.with_max_depth(crate::types::MAX_DEPTH_LIMIT),
    }))
}

/// A typed container as the engine holds it ([`engine_value`]).
struct EngineValue {
    bytes: alloc::vec::Vec<u8>,
    /// The container's offset in the input.
    offset: usize,
    opts: crate::types::ReadOptions,
}

impl EngineValue {
    /// Reads the value with `f`, through a deserializer over its bytes (with what is left of
    /// `this`'s depth limit) that presents its text as owned; errors are placed at the
    /// container in the input.
    #[cold]
    #[inline(never)]
    fn read<'de, T>(
        &self,
        this: &Deserializer<'de, FromInput>,
        f: impl for<'b, 'c> FnOnce(owned::Owned<'b, &'c mut Deserializer<'b, FromEngine>>) -> Result<T>,
    ) -> Result<T> {
        let mut de = Deserializer::<FromEngine>::with_source(Walker::new(&self.bytes, &self.opts));
        de.remaining_depth = this.remaining_depth;
        f(owned::Owned::new(&mut de)).map_err(|e| e.in_engine_value(self.offset))
    }
}

impl<S: Source> Deserializer<'_, S> {
    /// Whether the next value is a Godot 4 typed Array or Dictionary.
    #[inline(always)]
    fn typed_container_due(&self) -> bool {
        let Some(h) = self.peek_header() else {
            return false;
        };
        self.dialect() == Dialect::Godot4
            && match self.dialect().type_of(h & 0xFF) {
                Some(VariantType::Array) => h & (0x3 << 16) != 0,
                Some(VariantType::Dictionary) => h & (0xF << 16) != 0,
                _ => false,
            }
    }
}
