//! [`Enc`], the encoder's state, and its primitives: fixed-size words, headers, lengths, the
//! depth check and the single values of a few words (numbers, math types, colors, RIDs,
//! objects by id).

use alloc::vec::Vec;

use super::options::EncodeOptions;
use crate::error::{Error, ErrorKind, Result};
use crate::math::*;
use crate::types::{Dialect, VariantType, FLAG_64};

/// Type ids of the dialect: [`Dialect::id_of`], a table lookup (kept as a type so that the
/// encoder and the `Writer` share one path to the ids).
#[derive(Clone, Debug)]
pub(crate) struct IdCache;

impl IdCache {
    pub(crate) const fn new() -> IdCache {
        IdCache
    }

    // Inlined: input packet encode -11 % instructions (with get, string_value and prefixed).
    #[inline(always)]
    pub(super) fn get(&mut self, dialect: Dialect, ty: VariantType) -> Option<u32> {
        dialect.id_of(ty)
    }
}

/// The encoding primitives, appending to `out`; offsets in errors are relative to `base`.
pub(crate) struct Enc<'o> {
    pub(crate) out: &'o mut Vec<u8>,
    pub(crate) base: usize,
    pub(crate) opts: &'o EncodeOptions,
    pub(crate) ids: &'o mut IdCache,
    /// The depth of the value being written (a raw value is checked against the depth limit
    /// from there).
    pub(crate) depth: usize,
}

pub(crate) fn too_long(at: usize) -> Error {
    Error::new(ErrorKind::TooLong, at)
}

/// The largest length or count the format holds.
pub(super) const MAX_LEN: usize = i32::MAX as usize;

impl Enc<'_> {
    /// The offset of the next byte, relative to the start of the encoding.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.out.len() - self.base
    }

    #[inline]
    pub(crate) fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    #[inline]
    pub(crate) fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    #[inline]
    pub(crate) fn f32(&mut self, v: f32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    #[inline]
    pub(crate) fn f64(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// Zero padding after `n` bytes, as fixed-size writes (no `memcpy` call).
    #[inline]
    pub(crate) fn pad(&mut self, n: usize) {
        match n % 4 {
            1 => self.out.extend_from_slice(&[0; 3]),
            2 => self.out.extend_from_slice(&[0; 2]),
            3 => self.out.push(0),
            _ => {}
        }
    }

    /// The wire id of `ty`, or an [`ErrorKind::UnsupportedInDialect`] error.
    #[inline]
    pub(crate) fn id(&mut self, ty: VariantType) -> Result<u32> {
        match self.ids.get(self.opts.dialect, ty) {
            Some(id) => Ok(id),
            None => Err(Error::new(
                ErrorKind::UnsupportedInDialect { ty },
                self.pos(),
            )),
        }
    }

    /// Writes the header of `ty` with `flags` (bits 16+).
    #[inline]
    pub(crate) fn header(&mut self, ty: VariantType, flags: u32) -> Result<()> {
        let id = self.id(ty)?;
        self.u32(id | flags);
        Ok(())
    }

    /// A length or count as the format's `i32`, or [`ErrorKind::TooLong`].
    #[inline]
    pub(crate) fn len32(&self, n: usize) -> Result<u32> {
        if n > MAX_LEN {
            return Err(too_long(self.pos()));
        }
        Ok(n as u32)
    }

    #[inline]
    fn reals(&mut self, a: &[f64]) {
        if self.opts.wide() {
            for &x in a {
                self.f64(x);
            }
        } else {
            for &x in a {
                self.f32(crate::math::narrow(x));
            }
        }
    }

    /// A real-valued math type: header (with the flag in double precision) and components.
    #[inline]
    pub(crate) fn math<const N: usize>(&mut self, ty: VariantType, a: [f64; N]) -> Result<()> {
        if self.opts.wide() {
            self.header(ty, FLAG_64)?;
            self.reals(&a);
            return Ok(());
        }
        let id = self.id(ty)?;
        if N <= 7 {
            // Header and f32 components in one block.
            let mut b = [0u8; 32];
            b[..4].copy_from_slice(&id.to_le_bytes());
            for (c, x) in b[4..].chunks_exact_mut(4).zip(a) {
                c.copy_from_slice(&crate::math::narrow(x).to_le_bytes());
            }
            self.block(&b, 4 + 4 * N);
        } else {
            self.u32(id);
            self.reals(&a);
        }
        Ok(())
    }

    /// Appends the first `len` bytes of `b` (`len <= 32`): written whole, then cut, so that
    /// the copy has a fixed size.
    // Inlined: input packet encode -5 % instructions (with block, int and copy_short).
    #[inline(always)]
    fn block(&mut self, b: &[u8; 32], len: usize) {
        let end = self.out.len() + len;
        self.out.extend_from_slice(b);
        self.out.truncate(end);
    }

    #[inline]
    pub(crate) fn ints<const N: usize>(&mut self, ty: VariantType, a: [i32; N]) -> Result<()> {
        let id = self.id(ty)?;
        let mut b = [0u8; 32];
        b[..4].copy_from_slice(&id.to_le_bytes());
        for (c, x) in b[4..].chunks_exact_mut(4).zip(a) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        self.block(&b, 4 + 4 * N);
        Ok(())
    }

    // Inlined: input packet encode -5 % instructions (with block, int and copy_short).
    #[inline(always)]
    pub(crate) fn int(&mut self, i: i64) -> Result<()> {
        let id = self.id(VariantType::Int)?;
        match i32::try_from(i) {
            Ok(small) => self.u64(u64::from(id) | u64::from(small as u32) << 32),
            Err(_) => {
                let mut b = [0u8; 12];
                b[..4].copy_from_slice(&(id | FLAG_64).to_le_bytes());
                b[4..].copy_from_slice(&i.to_le_bytes());
                self.out.extend_from_slice(&b);
            }
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn float(&mut self, d: f64) -> Result<()> {
        let id = self.id(VariantType::Float)?;
        let f = d as f32;
        if f64::from(f) == d {
            self.u64(u64::from(id) | u64::from(f.to_bits()) << 32);
        } else {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&(id | FLAG_64).to_le_bytes());
            b[4..].copy_from_slice(&d.to_le_bytes());
            self.out.extend_from_slice(&b);
        }
        Ok(())
    }

    pub(crate) fn color(&mut self, c: Color) -> Result<()> {
        let id = self.id(VariantType::Color)?;
        let mut b = [0u8; 32];
        b[..4].copy_from_slice(&id.to_le_bytes());
        b[4..20].copy_from_slice(&c.as_bytes_le());
        self.block(&b, 20);
        Ok(())
    }

    pub(crate) fn rid(&mut self, id: u64) -> Result<()> {
        self.header(VariantType::Rid, 0)?;
        if self.opts.dialect == Dialect::Godot4 {
            self.u64(id);
        }
        Ok(())
    }

    /// An object by instance id; 0 is written as Nil, as the engine writes a null object.
    pub(crate) fn object_id(&mut self, id: u64) -> Result<()> {
        if id == 0 {
            return self.header(VariantType::Nil, 0);
        }
        self.header(VariantType::Object, FLAG_64)?;
        self.u64(id);
        Ok(())
    }

    /// Checks the depth of a value about to be written.
    #[inline]
    pub(crate) fn check_depth(&self, depth: usize) -> Result<()> {
        if depth > self.opts.max_depth as usize {
            return Err(Error::new(
                ErrorKind::DepthExceeded {
                    limit: self.opts.max_depth,
                },
                self.pos(),
            ));
        }
        Ok(())
    }
}

pub(super) trait ColorLe {
    fn as_bytes_le(&self) -> [u8; 16];
}

impl ColorLe for Color {
    #[inline]
    fn as_bytes_le(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (chunk, x) in b.chunks_exact_mut(4).zip(self.to_array()) {
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        b
    }
}
