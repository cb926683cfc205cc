//! [`NumText`]: a number's text built on the stack.

#[cfg(feature = "std")]
use core::fmt;

/// A short ASCII text built on the stack (a number's digits or its text, a run of packed
/// elements), so that printing a number allocates nothing. Pushes past its `N` bytes are
/// dropped (its users stay far below: a real's text is at most 48 bytes).
pub(crate) struct NumText<const N: usize = 64> {
    pub(super) buf: [u8; N],
    pub(super) len: usize,
}

impl<const N: usize> NumText<N> {
    /// An empty text.
    pub(crate) const fn new() -> Self {
        NumText {
            buf: [0; N],
            len: 0,
        }
    }

    /// Its length in bytes.
    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    /// Appends one byte (ASCII).
    #[inline]
    pub(crate) fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    #[cfg(feature = "std")]
    /// Appends bytes (ASCII).
    #[inline]
    pub(crate) fn push_bytes(&mut self, b: &[u8]) {
        // All or nothing: a constant `b` is copied by a few moves, not a call.
        if let Some(slot) = self.buf.get_mut(self.len..self.len + b.len()) {
            slot.copy_from_slice(b);
            self.len += b.len();
        }
    }

    #[cfg(feature = "std")]
    /// Its bytes, to change them in place.
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }

    #[cfg(feature = "std")]
    /// The text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    #[cfg(feature = "std")]
    /// Writes the text to `w` a character at a time: for a number's few bytes, cheaper than
    /// checking them as UTF-8 and copying them ([`flush_to`](Self::flush_to), for longer texts).
    #[inline]
    pub(crate) fn write_to<W: fmt::Write + ?Sized>(&self, w: &mut W) -> fmt::Result {
        for &b in &self.buf[..self.len] {
            // ASCII (the `& 0x7f` says so: each character is one byte to write).
            w.write_char(char::from(b & 0x7f))?;
        }
        Ok(())
    }

    #[cfg(feature = "std")]
    /// Writes the text to `w` ([`as_str`](Self::as_str): one check and one copy for the whole
    /// of it) and empties it.
    pub(crate) fn flush_to<W: fmt::Write + ?Sized>(&mut self, w: &mut W) -> fmt::Result {
        let r = w.write_str(self.as_str());
        self.len = 0;
        r
    }

    #[cfg(feature = "std")]
    pub(super) fn contains(&self, b: u8) -> bool {
        self.buf[..self.len].contains(&b)
    }
}

#[cfg(feature = "std")]
impl<const N: usize> fmt::Write for NumText<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.len + s.len() > N {
            return Err(fmt::Error);
        }
        self.push_bytes(s.as_bytes());
        Ok(())
    }
}
