//! [`RawValue`]: the encoded bytes of one value, kept and written unchanged.

use alloc::vec::Vec;

use crate::error::Result;
use crate::types::{Dialect, VariantType};
use crate::value::VariantRef;

/// The encoded bytes of one value in a given dialect, kept and written unchanged.
///
/// Obtained from a [`VariantRef`] with [`RawValue::from_ref`]. Its contents are trusted: the
/// encoder checks only the dialect.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawValue {
    bytes: Vec<u8>,
    dialect: Dialect,
}

impl RawValue {
    /// Copies the exact bytes of `v` (walking it if its size is not yet known) without decoding
    /// it.
    pub fn from_ref(v: &VariantRef<'_>) -> Result<RawValue> {
        Ok(RawValue {
            bytes: v.raw()?.to_vec(),
            dialect: v.dialect(),
        })
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The dialect the bytes are written in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The value's type, from its header (`None` if the header is missing or unknown).
    pub fn ty(&self) -> Option<VariantType> {
        let h = self.bytes.get(..4)?;
        self.dialect.type_of(u32::from(h[0]))
    }
}
