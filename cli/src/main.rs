//! The `gdvariant` command-line tool (the crate `gdvariant-cli`). Its code is private to the
//! binary: the libraries' `text` and `json` modules and the multiplayer packets are the public
//! pieces it prints and reads with.

mod app;
mod args;
mod capture;
mod host;
mod input;
mod mp;
mod out;
mod path;
mod pipeline;
#[cfg(all(test, feature = "__count-reads"))]
mod scaling;
mod sink;
mod stats;
mod tree;

#[cfg(all(test, feature = "__count-reads"))]
#[global_allocator]
static COUNTING: scaling::alloc::Counting = scaling::alloc::Counting;

use std::io::{self, IsTerminal, Read, Write};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The worker thread's stack. Nothing in the tool recurses per nesting level of its input (the
/// text and JSON readers, the printers, `tree` and `stats` keep their nesting on the heap), so a
/// main thread's usual size is plenty.
const RUN_STACK: usize = 8 << 20;

/// Input bytes: a memory map, or an owned buffer (standard input, empty files).
enum Input {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for Input {
    fn as_ref(&self) -> &[u8] {
        match self {
            Input::Map(m) => m,
            Input::Owned(v) => v,
        }
    }
}

/// The binary's file access: regular files memory-mapped, anything else (standard input, pipes,
/// devices) read into memory up to `max_stream` bytes.
struct Host {
    max_stream: u64,
}

impl Host {
    /// Reads a stream that is not a regular file, refusing one longer than `max_stream`.
    fn read_stream(&self, what: &str, r: impl Read) -> io::Result<Box<dyn AsRef<[u8]>>> {
        let mut v = Vec::new();
        r.take(self.max_stream.saturating_add(1))
            .read_to_end(&mut v)?;
        if v.len() as u64 > self.max_stream {
            return Err(io::Error::other(format!(
                "{what} is not a regular file and holds more than {} bytes, the most read from a \
                 stream (--max-stream BYTES raises the limit)",
                self.max_stream
            )));
        }
        Ok(Box::new(Input::Owned(v)))
    }
}

impl host::Host for Host {
    fn load(&mut self, path: &str) -> io::Result<Box<dyn AsRef<[u8]>>> {
        if path == "-" {
            return self.read_stream("standard input", io::stdin().lock());
        }
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() == 0 {
            // Pipes, devices and empty files cannot (or need not) be mapped.
            return self.read_stream(path, &file);
        }
        // SAFETY: the map is only ever read through `&[u8]`. If another process truncates or
        // rewrites the file while we read it, the bytes can change underneath us (or reading a
        // truncated page raises SIGBUS): the tool then prints wrong results or dies, but no
        // Rust invariant depends on the contents, because every byte is bounds-checked and
        // parsed as untrusted input. Do not modify a file while `gdvariant` inspects it.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Box::new(Input::Map(map)))
    }

    fn open(&mut self, path: &str) -> io::Result<Box<dyn Read>> {
        if path == "-" {
            return Ok(Box::new(io::stdin()));
        }
        Ok(Box::new(std::fs::File::open(path)?))
    }

    fn stdout_is_terminal(&self) -> bool {
        io::stdout().is_terminal()
    }

    fn progress(&mut self, what: &'static str, total: u64) -> Box<dyn host::Progress> {
        if total < PROGRESS_MIN || !io::stderr().is_terminal() {
            return Box::new(host::NoProgress);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] [{wide_bar}] {bytes}/{total_bytes} ({eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what);
        bar.tick();
        Box::new(Bar(bar))
    }
}

/// Inputs smaller than this get no progress bar: their work takes a fraction of a second.
const PROGRESS_MIN: u64 = 64 << 20;

/// A progress bar on standard error (a terminal), cleared when dropped.
struct Bar(ProgressBar);

impl host::Progress for Bar {
    fn set(&mut self, done: u64) {
        self.0.set_position(done);
    }

    fn active(&self) -> bool {
        true
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

fn main() {
    // Usage errors exit with 2, help and version with 0 (clap's codes).
    let cli = args::Cli::parse();
    let mut host = Host {
        max_stream: cli.max_stream,
    };
    let worker = std::thread::Builder::new()
        .stack_size(RUN_STACK)
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let mut err = io::stderr();
            let code = app::run(cli, &mut host, &mut out, &mut err);
            let _ = out.flush();
            code
        });
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            let _ = writeln!(io::stderr(), "gdvariant: internal error");
            1
        }
    };
    std::process::exit(code);
}
