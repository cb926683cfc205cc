//! The cursor: the one type that slices input bytes and knows absolute offsets.
//!
//! Every read is bounds-checked and returns an [`Error`] carrying the absolute offset of the
//! field that could not be read; nothing here can panic.

use zerocopy::little_endian::{F32, F64, I32, I64, U32, U64};
use zerocopy::FromBytes;

use crate::error::{Error, ErrorKind, Result};

/// A per-thread count of the input bytes every cursor has consumed (feature `__count-reads`,
/// for tests that check that walks read each byte once, whatever the nesting depth).
#[cfg(feature = "__count-reads")]
#[doc(hidden)]
pub mod read_count {
    use std::cell::Cell;

    std::thread_local! {
        static BYTES: Cell<u64> = const { Cell::new(0) };
    }

    #[inline]
    pub(crate) fn add(n: usize) {
        BYTES.with(|b| b.set(b.get() + n as u64));
    }

    /// The bytes consumed on this thread since the last call; resets the count.
    pub fn take() -> u64 {
        BYTES.with(|b| b.replace(0))
    }
}

/// A per-thread count of the work done outside the cursors (feature `__count-reads`): key
/// comparisons of dictionaries being read or sorted, bytes scanned by the text and JSON readers,
/// bytes copied when a reordered output is produced. With [`read_count`] it gives tests a
/// deterministic measure of the work an entry point does, to check that it grows linearly.
#[cfg(feature = "__count-reads")]
#[doc(hidden)]
pub mod work_count {
    use std::cell::Cell;

    std::thread_local! {
        static UNITS: Cell<u64> = const { Cell::new(0) };
    }

    #[inline]
    pub(crate) fn add(n: usize) {
        UNITS.with(|b| b.set(b.get() + n as u64));
    }

    /// The work units counted on this thread since the last call; resets the count.
    pub fn take() -> u64 {
        UNITS.with(|b| b.replace(0))
    }
}

/// Counts `n` units of work (see [`work_count`]); nothing without the feature.
#[inline(always)]
#[cfg_attr(not(any(feature = "text", feature = "json")), allow(dead_code))]
pub(crate) fn work(_n: usize) {
    #[cfg(feature = "__count-reads")]
    work_count::add(_n);
}

#[inline(always)]
fn counted(_n: usize) {
    #[cfg(feature = "__count-reads")]
    read_count::add(_n);
}

/// A forward-only cursor over a byte slice whose first byte sits at absolute offset `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `data`, which begins at absolute offset `base`.
    #[inline]
    pub(crate) fn new(data: &'a [u8], base: usize) -> Reader<'a> {
        Reader { data, pos: 0, base }
    }

    /// The absolute offset of the next byte.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The position relative to the start of this cursor's slice.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The whole slice this cursor walks.
    #[inline]
    pub(crate) fn data(&self) -> &'a [u8] {
        self.data
    }

    /// How many bytes are left.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The bytes from `start` (relative) up to the current position.
    #[inline]
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        self.data.get(start..self.pos).unwrap_or(&[])
    }

    #[cold]
    pub(crate) fn eof(&self, needed: usize) -> Error {
        Error::eof(self.offset(), needed.saturating_sub(self.remaining()))
    }

    #[cold]
    pub(crate) fn error_here(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.offset())
    }

    /// Takes the next `n` bytes.
    #[inline(always)]
    pub(crate) fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end))
        {
            Some(bytes) => {
                self.pos += n;
                counted(n);
                Ok(bytes)
            }
            None => Err(self.eof(n)),
        }
    }

    /// Moves to the absolute offset `to`, ahead of the cursor, whose bytes another cursor has
    /// already walked (not counted as read); `false`, not moving, if it is not ahead or past
    /// the end.
    pub(crate) fn jump_to(&mut self, to: usize) -> bool {
        match to.checked_sub(self.offset()) {
            Some(n) if n <= self.remaining() => {
                self.pos += n;
                true
            }
            _ => false,
        }
    }

    /// Skips `n` bytes.
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: usize) -> Result<()> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        self.pos += n;
        counted(n);
        Ok(())
    }

    /// Reads one little-endian value of a zerocopy type.
    #[inline(always)]
    fn read_le<T: FromBytes + zerocopy::Unaligned + zerocopy::Immutable + zerocopy::KnownLayout>(
        &mut self,
    ) -> Result<T> {
        let size = core::mem::size_of::<T>();
        let bytes = self.read_bytes(size)?;
        // Cannot fail: the slice has exactly `size` bytes and `T` has alignment 1.
        T::read_from_bytes(bytes).map_err(|_| Error::eof(self.offset(), size))
    }

    /// The next `u32` without moving, `None` if fewer than 4 bytes are left.
    #[inline(always)]
    pub(crate) fn peek_u32(&self) -> Option<u32> {
        let b = self.data.get(self.pos..)?.first_chunk::<4>()?;
        Some(u32::from_le_bytes(*b))
    }

    #[inline(always)]
    pub(crate) fn read_u32(&mut self) -> Result<u32> {
        self.read_le::<U32>().map(U32::get)
    }

    #[inline(always)]
    pub(crate) fn read_i32(&mut self) -> Result<i32> {
        self.read_le::<I32>().map(I32::get)
    }

    #[inline]
    pub(crate) fn read_u64(&mut self) -> Result<u64> {
        self.read_le::<U64>().map(U64::get)
    }

    #[inline]
    pub(crate) fn read_i64(&mut self) -> Result<i64> {
        self.read_le::<I64>().map(I64::get)
    }

    #[inline]
    pub(crate) fn read_f32(&mut self) -> Result<f32> {
        self.read_le::<F32>().map(F32::get)
    }

    #[inline]
    pub(crate) fn read_f64(&mut self) -> Result<f64> {
        self.read_le::<F64>().map(F64::get)
    }

    /// Reads a real number: f64 when `wide`, else f32 widened.
    #[inline]
    pub(crate) fn read_real(&mut self, wide: bool) -> Result<f64> {
        if wide {
            self.read_f64()
        } else {
            self.read_f32().map(f64::from)
        }
    }

    /// Reads an `i32` length or count; negative is an error reported at the field's offset.
    #[inline(always)]
    pub(crate) fn read_len(&mut self) -> Result<usize> {
        let at = self.offset();
        let v = self.read_i32()?;
        if v < 0 {
            return Err(Error::new(ErrorKind::NegativeLength { value: v }, at));
        }
        Ok(v as usize)
    }

    /// Reads a container count: a `u32` with bit 31 (the historical "shared" flag) masked off.
    #[inline(always)]
    pub(crate) fn read_count(&mut self) -> Result<u32> {
        self.read_u32().map(|c| c & 0x7FFF_FFFF)
    }

    /// Reads a length-prefixed string's raw bytes (§5): the `len` bytes, with the padding to a
    /// multiple of 4 required to be present and skipped. Returns the bytes and their absolute
    /// offset. The content is not inspected.
    #[inline(always)]
    pub(crate) fn read_string_raw(&mut self) -> Result<(&'a [u8], usize)> {
        let len = self.read_len()?;
        let at = self.offset();
        let padded = pad4(len);
        if padded > self.remaining() {
            return Err(self.eof(padded));
        }
        let bytes = &self.data[self.pos..self.pos + len];
        self.pos += padded;
        counted(padded);
        Ok((bytes, at))
    }

    /// Takes `count` elements of `size` bytes each, reporting overflow and shortfall.
    #[inline]
    pub(crate) fn read_elements(&mut self, count: usize, size: usize) -> Result<&'a [u8]> {
        let n = count.checked_mul(size).filter(|&n| n <= i32::MAX as usize);
        match n {
            Some(n) => self.read_bytes(n),
            None => Err(self.error_here(ErrorKind::LengthOverflow)),
        }
    }
}

/// `n` rounded up to a multiple of 4 (no overflow for `n` < 2^31, all a length field can hold).
#[inline]
pub(crate) const fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_offsets() {
        let data = [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 9];
        let mut r = Reader::new(&data, 100);
        assert_eq!(r.read_u32().unwrap(), 1);
        assert_eq!(r.offset(), 104);
        let e = r.read_len().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NegativeLength { value: -1 });
        assert_eq!(e.offset(), 104);
        let e = r.read_u64().unwrap_err();
        assert_eq!(e.offset(), 108);
        assert_eq!(e.kind(), ErrorKind::UnexpectedEof { needed: 7 });
        assert_eq!(r.read_bytes(1).unwrap(), &[9]);
        assert_eq!(r.remaining(), 0);
        assert!(r.read_bytes(usize::MAX).is_err());
    }

    #[test]
    fn string_padding_must_be_present() {
        let ok = [3, 0, 0, 0, b'a', b'b', b'c', 0];
        let mut r = Reader::new(&ok, 0);
        assert_eq!(r.read_string_raw().unwrap(), (&b"abc"[..], 4));
        assert_eq!(r.remaining(), 0);
        let short = [3, 0, 0, 0, b'a', b'b', b'c'];
        let e = Reader::new(&short, 0).read_string_raw().unwrap_err();
        assert_eq!(
            (e.offset(), e.kind()),
            (4, ErrorKind::UnexpectedEof { needed: 1 })
        );
    }

    #[test]
    fn element_overflow_is_an_error() {
        let data = [0u8; 8];
        let mut r = Reader::new(&data, 0);
        assert_eq!(
            r.read_elements(usize::MAX, 16).unwrap_err().kind(),
            ErrorKind::LengthOverflow
        );
        assert_eq!(
            r.read_elements(0x7FFF_FFFF, 4).unwrap_err().kind(),
            ErrorKind::LengthOverflow
        );
        assert!(r.read_elements(2, 4).is_ok());
    }
}
