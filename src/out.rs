//! Output plumbing shared by the text and JSON printers: the reason a print stopped, and a
//! buffered `fmt::Write` over an `io::Write`.

use core::fmt;
use std::io;
use std::string::String;

use crate::error::Error;

/// Why printing stopped.
pub(crate) enum Stop {
    /// The bytes are malformed.
    Data(Error),
    /// The output refused a write.
    Write,
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Data(e)
    }
}

/// A printer's result.
pub(crate) type R<T = ()> = core::result::Result<T, Stop>;

/// Writes `s`.
#[inline]
pub(crate) fn put<W: fmt::Write + ?Sized>(w: &mut W, s: &str) -> R {
    w.write_str(s).map_err(|_| Stop::Write)
}

/// Writes `c`.
#[inline]
pub(crate) fn ch<W: fmt::Write + ?Sized>(w: &mut W, c: char) -> R {
    w.write_char(c).map_err(|_| Stop::Write)
}

/// Runs a printer into a `String`.
pub(crate) fn to_string(print: impl FnOnce(&mut String) -> R) -> crate::error::Result<String> {
    let mut s = String::new();
    match print(&mut s) {
        Ok(()) | Err(Stop::Write) => Ok(s),
        Err(Stop::Data(e)) => Err(e),
    }
}

/// Runs a printer into a `fmt::Write`: data errors first, then the writer's.
pub(crate) fn to_fmt(print: impl FnOnce() -> R) -> crate::error::Result<fmt::Result> {
    match print() {
        Ok(()) => Ok(Ok(())),
        Err(Stop::Write) => Ok(Err(fmt::Error)),
        Err(Stop::Data(e)) => Err(e),
    }
}

/// Runs a printer into an `io::Write` through a 64 KiB buffer. A data error is returned as an
/// [`io::ErrorKind::InvalidData`] error whose source is the [`Error`].
pub(crate) fn to_writer<W: io::Write>(
    out: W,
    print: impl FnOnce(&mut IoOut<W>) -> R,
) -> io::Result<()> {
    let mut o = IoOut {
        buf: String::with_capacity(BUF),
        out,
        err: None,
    };
    let res = print(&mut o);
    if let Err(Stop::Data(e)) = res {
        return Err(io::Error::new(io::ErrorKind::InvalidData, e));
    }
    o.drain();
    match o.err.take() {
        Some(e) => Err(e),
        None => o.out.flush(),
    }
}

const BUF: usize = 1 << 16;

/// Text that drains into an `io::Write` in 64 KiB chunks, keeping the first write error.
pub(crate) struct IoOut<W> {
    buf: String,
    out: W,
    err: Option<io::Error>,
}

impl<W: io::Write> IoOut<W> {
    fn drain(&mut self) {
        if self.err.is_none() && !self.buf.is_empty() {
            if let Err(e) = self.out.write_all(self.buf.as_bytes()) {
                self.err = Some(e);
            }
        }
        self.buf.clear();
    }
}

impl<W: io::Write> fmt::Write for IoOut<W> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.buf.len() + s.len() > BUF {
            // Never grow the buffer: write it out first (and a long piece directly).
            self.drain();
            if s.len() > BUF && self.err.is_none() {
                if let Err(e) = self.out.write_all(s.as_bytes()) {
                    self.err = Some(e);
                }
                return if self.err.is_some() {
                    Err(fmt::Error)
                } else {
                    Ok(())
                };
            }
        }
        if self.err.is_some() {
            return Err(fmt::Error);
        }
        self.buf.push_str(s);
        Ok(())
    }
}
