//! The cursor over a packet's bytes: every read is bounds-checked and an error carries the
//! absolute offset of the field that could not be read; nothing here can panic.

use gdvariant::{Error, ErrorKind, Result};

/// The error for a field of `needed` bytes at absolute `offset` that the packet does not hold.
#[cold]
pub(crate) fn eof(offset: usize, needed: usize) -> Error {
    Error::new(ErrorKind::UnexpectedEof { needed }, offset)
}

/// A forward-only cursor over a byte slice whose first byte sits at absolute offset `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    /// The bytes not read yet.
    rest: &'a [u8],
    /// The absolute offset just past the last byte.
    end: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, which begins at absolute offset `base`.
    pub(crate) fn new(data: &'a [u8], base: usize) -> Cursor<'a> {
        Cursor {
            rest: data,
            end: base.saturating_add(data.len()),
        }
    }

    /// The absolute offset of the next byte.
    pub(crate) fn offset(&self) -> usize {
        self.end - self.rest.len()
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// How many bytes are left.
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The bytes read since the cursor's `rest` was `from` (an earlier [`rest`](Cursor::rest)).
    pub(crate) fn since(&self, from: &'a [u8]) -> &'a [u8] {
        let n = from.len().saturating_sub(self.rest.len());
        from.get(..n).unwrap_or(from)
    }

    /// Takes the next `n` bytes.
    pub(crate) fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.rest.split_at_checked(n) {
            Some((bytes, rest)) => {
                self.rest = rest;
                Ok(bytes)
            }
            None => Err(eof(self.offset(), n - self.rest.len())),
        }
    }

    /// Skips the next `n` bytes.
    pub(crate) fn skip(&mut self, n: usize) -> Result<()> {
        self.read_bytes(n).map(|_| ())
    }

    /// Moves the cursor past a value of `len` bytes that was read from [`rest`](Cursor::rest).
    pub(crate) fn advance(&mut self, len: usize) {
        self.rest = self.rest.get(len..).unwrap_or(&[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_absolute_offsets() {
        let mut c = Cursor::new(&[1, 2, 3], 10);
        let start = c.rest();
        assert_eq!(c.read_bytes(2).unwrap(), [1, 2]);
        assert_eq!(
            (c.offset(), c.remaining(), c.since(start)),
            (12, 1, &[1, 2][..])
        );
        let e = c.read_bytes(4).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnexpectedEof { needed: 3 }, 12)
        );
        assert_eq!(c.offset(), 12);
        c.advance(5);
        assert_eq!((c.offset(), c.remaining()), (13, 0));
    }
}
