//! Packed arrays: a count, then the elements (plain ones in one copy on little-endian hosts).

use alloc::vec::Vec;

use zerocopy::IntoBytes;

use super::primitives::{too_long, ColorLe, Enc, MAX_LEN};
use crate::error::Result;
use crate::math::*;
use crate::types::{VariantType, FLAG_64};

impl Enc<'_> {
    pub(crate) fn bytes(&mut self, b: &[u8]) -> Result<()> {
        let n = self.len32(b.len())?;
        self.header(VariantType::PackedByteArray, 0)?;
        self.out.reserve(b.len() + 7);
        self.u32(n);
        self.out.extend_from_slice(b);
        self.pad(b.len());
        Ok(())
    }

    /// Header and count of a packed array of `n` elements of `size` bytes each.
    #[inline]
    fn packed_head(&mut self, ty: VariantType, flags: u32, n: usize, size: usize) -> Result<()> {
        let total = n.checked_mul(size).filter(|&t| t <= MAX_LEN);
        let Some(total) = total else {
            return Err(too_long(self.pos()));
        };
        self.header(ty, flags)?;
        self.out.reserve(total + 4);
        self.u32(n as u32);
        Ok(())
    }

    /// A packed array of fixed-size plain elements (ints, floats, Colors).
    pub(crate) fn packed_plain<T: IntoBytes + zerocopy::Immutable + LeBytes>(
        &mut self,
        ty: VariantType,
        a: &[T],
    ) -> Result<()> {
        self.packed_head(ty, 0, a.len(), core::mem::size_of::<T>())?;
        self.plain(a);
        Ok(())
    }

    /// Appends the elements' little-endian bytes: one copy on little-endian hosts.
    #[inline]
    fn plain<T: IntoBytes + zerocopy::Immutable + LeBytes>(&mut self, a: &[T]) {
        if cfg!(target_endian = "little") {
            self.out.extend_from_slice(a.as_bytes());
        } else {
            for x in a {
                x.put_le(self.out);
            }
        }
    }

    /// A packed Vector2/3/4 array: f64 components with the flag in double precision, else f32.
    fn packed_reals<T, const N: usize>(&mut self, ty: VariantType, a: &[T]) -> Result<()>
    where
        T: IntoBytes + zerocopy::Immutable + Copy + Into<[f64; N]>,
    {
        if self.opts.wide() {
            self.packed_head(ty, FLAG_64, a.len(), 8 * N)?;
            if cfg!(target_endian = "little") {
                self.out.extend_from_slice(a.as_bytes());
                return Ok(());
            }
            for &v in a {
                for x in v.into() {
                    self.f64(x);
                }
            }
        } else {
            self.packed_head(ty, 0, a.len(), 4 * N)?;
            for &v in a {
                let c: [f64; N] = v.into();
                let mut buf = [0u8; 32];
                for (chunk, x) in buf.chunks_exact_mut(4).zip(c) {
                    chunk.copy_from_slice(&crate::math::narrow(x).to_le_bytes());
                }
                self.out.extend_from_slice(&buf[..4 * N]);
            }
        }
        Ok(())
    }

    pub(crate) fn packed_vector2(&mut self, a: &[Vector2]) -> Result<()> {
        self.packed_reals::<_, 2>(VariantType::PackedVector2Array, a)
    }

    pub(crate) fn packed_vector3(&mut self, a: &[Vector3]) -> Result<()> {
        self.packed_reals::<_, 3>(VariantType::PackedVector3Array, a)
    }

    pub(crate) fn packed_vector4(&mut self, a: &[Vector4]) -> Result<()> {
        self.packed_reals::<_, 4>(VariantType::PackedVector4Array, a)
    }

    /// Single-precision vectors given as f32 arrays: one copy on little-endian hosts. In double
    /// precision they are widened.
    pub(crate) fn packed_vectors_f32<const N: usize>(
        &mut self,
        ty: VariantType,
        a: &[[f32; N]],
    ) -> Result<()>
    where
        [f32; N]: IntoBytes + zerocopy::Immutable,
    {
        if self.opts.wide() {
            self.packed_head(ty, FLAG_64, a.len(), 8 * N)?;
            for v in a {
                for &x in v {
                    self.f64(f64::from(x));
                }
            }
        } else {
            self.packed_head(ty, 0, a.len(), 4 * N)?;
            if cfg!(target_endian = "little") {
                self.out.extend_from_slice(a.as_bytes());
            } else {
                for v in a {
                    for &x in v {
                        self.f32(x);
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) fn packed_strings<S: AsRef<str>>(&mut self, a: &[S]) -> Result<()> {
        let start = self.out.len();
        let n = self.len32(a.len())?;
        self.header(VariantType::PackedStringArray, 0)?;
        self.u32(n);
        for s in a {
            let s = s.as_ref().as_bytes();
            // The entry's length counts the NUL the engine appends, which comes from the zero
            // padding (a multiple of 4 after length + 1).
            let len = (s.len() as u32).wrapping_add(1).to_le_bytes();
            if s.len() < MAX_LEN && self.checked_string::<4, 1>(&len, s) {
                continue;
            }
            if let Err(e) = self.packed_string_slow(s) {
                self.out.truncate(start);
                return Err(e);
            }
        }
        Ok(())
    }

    /// A PackedStringArray entry that [`checked_string`](Enc::checked_string) did not write:
    /// kept whole, or refused.
    fn packed_string_slow(&mut self, s: &[u8]) -> Result<()> {
        let kept;
        let s = if crate::strings::reads_back(s) {
            s
        } else {
            kept = crate::strings::kept_whole(s)
                .ok_or_else(|| crate::strings::unwritable(self.pos()))?;
            &kept[..]
        };
        if s.len() >= MAX_LEN {
            return Err(too_long(self.pos()));
        }
        self.prefixed(&(s.len() as u32 + 1).to_le_bytes(), s);
        if s.len() % 4 == 0 {
            self.out.extend_from_slice(&[0; 4]);
        }
        Ok(())
    }
}

/// Little-endian bytes of packed-array elements on big-endian hosts.
pub(crate) trait LeBytes {
    /// Appends the element's little-endian bytes.
    fn put_le(&self, out: &mut Vec<u8>);
}

macro_rules! le_bytes {
    ($($t:ty),*) => {$(
        impl LeBytes for $t {
            #[inline]
            fn put_le(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
le_bytes!(i32, i64, f32, f64);

impl LeBytes for Color {
    #[inline]
    fn put_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes_le().as_slice());
    }
}
