//! A text buffer that drains into an `io::Write` as it grows, so that printing a large value
//! runs in bounded memory.

use std::io::{self, Write};
use std::string::String;

/// Collects text; with a writer attached, writes it out in 64 KiB chunks.
pub(crate) struct Sink<'w> {
    pub(crate) buf: String,
    out: Option<&'w mut dyn Write>,
    err: Option<io::Error>,
}

impl<'w> Sink<'w> {
    /// A sink that drains into `out`.
    pub(crate) fn writer(out: &'w mut dyn Write) -> Sink<'w> {
        Sink {
            buf: String::with_capacity(1 << 16),
            out: Some(out),
            err: None,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, s: &str) {
        self.buf.push_str(s);
        if self.buf.len() >= 1 << 16 {
            self.drain();
        }
    }

    fn drain(&mut self) {
        if let Some(out) = self.out.as_mut() {
            if self.err.is_none() {
                if let Err(e) = out.write_all(self.buf.as_bytes()) {
                    self.err = Some(e);
                }
            }
            self.buf.clear();
        }
    }

    /// Writes out what is buffered and reports the first write error.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.drain();
        match self.err.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl core::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.push(s);
        Ok(())
    }
}
