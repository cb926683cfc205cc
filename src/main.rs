//! The `gdvariant` command-line tool; all the logic is in [`gdvariant::cli`].

use std::io::{self, IsTerminal, Read, Write};

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

struct Host;

impl gdvariant::cli::Host for Host {
    fn load(&mut self, path: &str) -> io::Result<Box<dyn AsRef<[u8]>>> {
        if path == "-" {
            let mut v = Vec::new();
            io::stdin().lock().read_to_end(&mut v)?;
            return Ok(Box::new(Input::Owned(v)));
        }
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() == 0 {
            // Pipes, devices and empty files cannot (or need not) be mapped.
            let mut v = Vec::new();
            (&file).read_to_end(&mut v)?;
            return Ok(Box::new(Input::Owned(v)));
        }
        // SAFETY: the map is only ever read through `&[u8]`. If another process truncates or
        // rewrites the file while we read it, the bytes can change underneath us (or reading a
        // truncated page raises SIGBUS): the tool then prints wrong results or dies, but no
        // Rust invariant depends on the contents, because every byte is bounds-checked and
        // parsed as untrusted input. Do not modify a file while `gdvariant` inspects it.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Box::new(Input::Map(map)))
    }

    fn stdout_is_terminal(&self) -> bool {
        io::stdout().is_terminal()
    }
}

fn main() {
    let args: Vec<String> = match std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect::<Result<_, _>>()
    {
        Ok(a) => a,
        Err(_) => {
            eprintln!(
                "gdvariant: arguments must be valid UTF-8\n\n{}",
                gdvariant::cli::USAGE
            );
            std::process::exit(2);
        }
    };
    // Printing and reading recurse once per nesting level, up to the depth limits: RUN_STACK is
    // the stack measured for the deepest input the tool accepts, with a margin.
    let worker = std::thread::Builder::new()
        .stack_size(gdvariant::cli::RUN_STACK)
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let mut err = io::stderr();
            let code = gdvariant::cli::run(&args, &mut Host, &mut out, &mut err);
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
