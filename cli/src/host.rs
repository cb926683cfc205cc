//! What the binary gives the commands (file access, the terminal check, progress) and how a
//! command fails: the layer under every command's module.

use std::io;

/// What the binary provides: file access and the terminal check.
pub trait Host {
    /// The bytes of a file (`-` is standard input), memory-mapped where possible.
    fn load(&mut self, path: &str) -> io::Result<Box<dyn AsRef<[u8]>>>;
    /// A file (`-` is standard input) read as a stream, for inputs of any size
    /// (`gdvariant capture`). By default the bytes of [`load`](Self::load).
    fn open(&mut self, path: &str) -> io::Result<Box<dyn io::Read>> {
        let bytes = self.load(path)?;
        Ok(Box::new(io::Cursor::new((*bytes).as_ref().to_vec())))
    }
    /// Whether standard output is a terminal (binary output is refused then).
    fn stdout_is_terminal(&self) -> bool;
    /// A progress indicator for `what` over `total` bytes: a bar on standard error when it is
    /// a terminal and the work is large, else one that shows nothing (never on pipes).
    fn progress(&mut self, what: &'static str, total: u64) -> Box<dyn Progress>;
}

/// Progress of a pass over the input.
pub trait Progress {
    /// `done` bytes of the total are processed.
    fn set(&mut self, done: u64);
    /// Whether anything is shown (else callers need not report).
    fn active(&self) -> bool {
        false
    }
}

/// Progress that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn set(&mut self, _: u64) {}
}

/// Why a command failed.
pub enum Fail {
    /// A usage error (exit 2).
    Usage(String),
    /// Invalid input (exit 1): the report, already formatted.
    Input(String),
    /// Writing the output failed.
    Io(io::Error),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Io(e)
    }
}
