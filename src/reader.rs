//! The cursor: the one type that slices input bytes and knows absolute offsets.
//!
//! Every read is bounds-checked and returns an [`Error`] carrying the absolute offset of the
//! field that could not be read; nothing here can panic.

// This file's #[inline(always)]s and #[cold], as a group: gs_validate +17 %, in_to_owned +6 % time
// without them (layout-pinned A/B); its cold eof_at alone: gs_to_owned +2.6 % instructions.

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
pub(crate) fn work(_n: usize) {
    #[cfg(feature = "__count-reads")]
    work_count::add(_n);
}

/// Counts `_n` bytes as read (feature `__count-reads`; nothing otherwise).
#[inline(always)]
pub(crate) fn counted(_n: usize) {
    #[cfg(feature = "__count-reads")]
    read_count::add(_n);
}

/// A forward-only cursor over a byte slice whose first byte sits at absolute offset `base`.
///
/// It keeps the bytes not read yet as a slice (`rest`), so that every read is one length
/// comparison; offsets are computed from the absolute offset of the slice's end, only when
/// asked for (errors, views).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'a> {
    /// The bytes not read yet.
    rest: &'a [u8],
    /// The absolute offset just past the last byte.
    end: usize,
    /// The absolute offset of the first byte.
    base: usize,
}

/// The last `len` bytes of `b` (`len <= b.len()`): a suffix rebuilt from its length alone, for
/// the fast-path cursors that pass each other only that (a slice just stored as two halves and
/// loaded whole stalls the store forwarding).
#[inline(always)]
pub(crate) fn suffix(b: &[u8], len: usize) -> &[u8] {
    debug_assert!(len <= b.len());
    b.get(b.len().wrapping_sub(len)..).unwrap_or(&[])
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `data`, which begins at absolute offset `base`.
    #[inline]
    pub(crate) fn new(data: &'a [u8], base: usize) -> Reader<'a> {
        Reader {
            rest: data,
            // Saturating: `offset` (end - unread) never underflows, whatever `base`.
            end: base.saturating_add(data.len()),
            base,
        }
    }

    /// The absolute offset of the next byte.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.end - self.rest.len()
    }

    /// The absolute offset just past the last byte.
    #[inline(always)]
    pub(crate) fn end(&self) -> usize {
        self.end
    }

    /// A copy of the cursor with `rest`, a suffix of its bytes left, left.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn with_rest(&self, rest: &'a [u8]) -> Reader<'a> {
        Reader { rest, ..*self }
    }

    /// A copy of the cursor with only its last `len` bytes left (the suffix of that length).
    #[inline(always)]
    pub(crate) fn with_rest_len(&self, len: usize) -> Reader<'a> {
        Reader {
            rest: suffix(self.rest, len),
            ..*self
        }
    }

    /// The position relative to the start of this cursor's slice.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.offset() - self.base
    }

    /// The bytes not read yet.
    #[inline(always)]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// How many bytes are left.
    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The bytes read since the cursor's `rest` was `from` (an earlier [`rest`](Reader::rest)
    /// of this cursor).
    #[inline(always)]
    pub(crate) fn since(&self, from: &'a [u8]) -> &'a [u8] {
        let n = from.len() - self.rest.len();
        from.get(..n).unwrap_or(from)
    }

    /// The error for `needed` bytes at the cursor, fewer being left. (The offset is passed by
    /// value: a cursor whose address never escapes stays in registers.)
    #[inline(always)]
    pub(crate) fn eof(&self, needed: usize) -> Error {
        eof_at(self.offset(), needed, self.remaining())
    }

    #[inline(always)]
    pub(crate) fn error_here(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.offset())
    }

    /// Takes the next `n` bytes.
    #[inline(always)]
    pub(crate) fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.rest.split_at_checked(n) {
            Some((bytes, rest)) => {
                self.rest = rest;
                counted(n);
                Ok(bytes)
            }
            None => Err(self.eof(n)),
        }
    }

    /// Moves past the next `n` bytes, which the caller read from [`rest`](Reader::rest)
    /// (`n` is at most what is left).
    #[inline(always)]
    pub(crate) fn advance(&mut self, n: usize) {
        self.rest = self.rest.get(n..).unwrap_or(&[]);
        counted(n);
    }

    /// Moves to the absolute offset `to`, ahead of the cursor, whose bytes another cursor has
    /// already walked (not counted as read); `false`, not moving, if it is not ahead or past
    /// the end.
    pub(crate) fn jump_to(&mut self, to: usize) -> bool {
        match to
            .checked_sub(self.offset())
            .and_then(|n| self.rest.get(n..))
        {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// Skips `n` bytes.
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: usize) -> Result<()> {
        match self.rest.get(n..) {
            Some(rest) => {
                self.rest = rest;
                counted(n);
                Ok(())
            }
            None => Err(self.eof(n)),
        }
    }

    /// Takes the next `N` bytes as an array.
    #[inline(always)]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((bytes, rest)) => {
                self.rest = rest;
                counted(N);
                Ok(*bytes)
            }
            None => Err(self.eof(N)),
        }
    }

    /// The next `u32` without moving, `None` if fewer than 4 bytes are left.
    #[inline(always)]
    pub(crate) fn peek_u32(&self) -> Option<u32> {
        let b = self.rest.first_chunk::<4>()?;
        Some(u32::from_le_bytes(*b))
    }

    #[inline(always)]
    pub(crate) fn read_u32(&mut self) -> Result<u32> {
        self.read_array().map(u32::from_le_bytes)
    }

    #[inline(always)]
    pub(crate) fn read_i32(&mut self) -> Result<i32> {
        self.read_array().map(i32::from_le_bytes)
    }

    #[inline]
    pub(crate) fn read_u64(&mut self) -> Result<u64> {
        self.read_array().map(u64::from_le_bytes)
    }

    /// Reads an `i32` length or count; negative is an error reported at the field's offset.
    #[inline(always)]
    pub(crate) fn read_len(&mut self) -> Result<usize> {
        let v = self.read_i32()?;
        if v < 0 {
            return Err(self.negative(v));
        }
        Ok(v as usize)
    }

    /// The error for the negative length `v` just read.
    #[inline(always)]
    fn negative(&self, v: i32) -> Error {
        Error::new(ErrorKind::NegativeLength { value: v }, self.offset() - 4)
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
        let (bytes, _) = self.read_string_padded()?;
        Ok((bytes, self.offset() - pad4(bytes.len())))
    }

    /// Reads a length-prefixed string (§5) and returns its `len` bytes and the same bytes with
    /// their padding to a multiple of 4 (required to be present, and skipped).
    #[inline(always)]
    pub(crate) fn read_string_padded(&mut self) -> Result<(&'a [u8], &'a [u8])> {
        let len = self.read_len()?;
        // Short strings (keys, names) take the padded size as a constant of the branch their
        // length predicts, so that the next read does not wait for the length loaded from
        // memory (the lengths of a packet's keys repeat from packet to packet).
        match len {
            0 => self.take_padded::<0>(len),
            1..=4 => self.take_padded::<4>(len),
            5..=8 => self.take_padded::<8>(len),
            9..=12 => self.take_padded::<12>(len),
            13..=16 => self.take_padded::<16>(len),
            _ => self.take_padded_n(len, pad4(len)),
        }
    }

    #[inline(always)]
    fn take_padded<const P: usize>(&mut self, len: usize) -> Result<(&'a [u8], &'a [u8])> {
        self.take_padded_n(len, P)
    }

    #[inline(always)]
    fn take_padded_n(&mut self, len: usize, padded: usize) -> Result<(&'a [u8], &'a [u8])> {
        match self.rest.split_at_checked(padded) {
            Some((bytes, rest)) => {
                self.rest = rest;
                counted(padded);
                Ok((bytes.get(..len).unwrap_or(bytes), bytes))
            }
            None => Err(self.eof(padded)),
        }
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

#[cold]
#[inline(never)]
fn eof_at(at: usize, needed: usize, left: usize) -> Error {
    Error::eof(at, needed.saturating_sub(left))
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
