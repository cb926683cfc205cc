//! The `gdvariant` command-line tool, as a library (feature `cli`).
//!
//! The binary (`src/main.rs`) only memory-maps its input files and calls [`run`]. The pieces
//! are useful on their own:
//!
//! - [`text`]: the engine's own text form (`var_to_str` / `var2str`) of a lazy
//!   [`VariantRef`], byte for byte; [`parse`] reads that text back into a
//!   [`Variant`](crate::Variant) (what `str_to_var` reads).
//! - [`json`]: a lossless, typed JSON form (both directions); its schema is documented there.
//! - [`tree`]: an indented outline with paths, types, byte offsets and sizes.
//! - [`stats`]: counts and bytes per type, depth, largest sub-trees, in one pass without building
//!   an owned tree.
//! - [`num`]: the engines' number formatting.
//!
//! # Commands
//!
//! ```text
//! gdvariant decode   [--dialect 4|3|auto] [--format text|json|tree] [--allow-objects] [--framed[=le|be]] [FILE|-]
//! gdvariant encode   [--dialect 4|3] [--from text|json] [--precision single|double] [--framed[=le|be]] [INPUT|-]
//! gdvariant validate [--dialect 4|3|auto] [--allow-objects] [--max-depth N] [--framed[=le|be]] FILE...
//! gdvariant stats    [--dialect 4|3|auto] [--allow-objects] [--max-depth N] [--framed[=le|be]] FILE
//! gdvariant get      [--dialect 4|3|auto] [--allow-objects] [--format text|json|tree] PATH FILE
//! ```
//!
//! Exit status: 0 success, 1 invalid input (a bad file is reported as
//! `FILE: error: <what> at offset N`: on standard output by `validate`, whose report it is, on
//! standard error by the other commands), 2 usage error.

use std::io::{self, Write};
use std::string::{String, ToString};
use std::vec::Vec;

use crate::error::{Error, ErrorKind};
use crate::framing::{raw_frames, Endian, FrameOptions};
use crate::types::{Dialect, Options, ENGINE_MAX_DEPTH, MAX_DEPTH_LIMIT};
use crate::value::VariantRef;

pub mod json;
pub mod num;
pub mod parse;
mod sink;
pub mod stats;
pub mod text;
pub mod tree;

/// The usage text printed by `gdvariant --help` and after a usage error.
pub const USAGE: &str = "\
usage:
  gdvariant decode   [--dialect 4|3|auto] [--format text|json|tree] [--allow-objects] [--framed[=le|be]] [FILE|-]
  gdvariant encode   [--dialect 4|3] [--from text|json] [--precision single|double] [--framed[=le|be]] [INPUT|-]
  gdvariant validate [--dialect 4|3|auto] [--allow-objects] [--max-depth N] [--framed[=le|be]] FILE...
  gdvariant stats    [--dialect 4|3|auto] [--allow-objects] [--max-depth N] [--framed[=le|be]] FILE
  gdvariant get      [--dialect 4|3|auto] [--allow-objects] [--format text|json|tree] PATH FILE

  decode    print a value: the engine's text (var_to_str), typed JSON, or an outline
  encode    write the bytes of a value given as engine text or typed JSON
  validate  check files completely; one line per bad file, on standard output (the report:
            validate *.bin > bad.txt); other commands report errors on standard error
  stats     counts and bytes per type, maximum depth, largest sub-trees
  get       print the value at a path of keys and indices (entities/9/pos)

Files are memory-mapped; '-' is standard input. --framed reads/writes a stream of values, each
behind a u32 length prefix (little-endian unless =be), as StreamPeer.put_var / store_var do.
--max-depth N allows values nested N levels deep (default 1024, the engine's limit; at most
16384, larger values are taken as 16384).
Exit status: 0 success, 1 invalid input, 2 usage error.
";

/// The native stack one nesting level can cost the recursive printers ([`text`], [`json`],
/// [`tree`]) and readers ([`parse`], [`json`]): the most measured (on 1025-deep Arrays,
/// Dictionaries, Objects, typed containers and Array keys) was 2.0 KiB in release builds
/// (JSON reading typed Arrays; printing costs at most 1.3 KiB) and 26 KiB in debug builds;
/// this is that with a margin of 1.5.
pub const STACK_PER_LEVEL: usize = if cfg!(debug_assertions) {
    40 << 10
} else {
    3 << 10
};

/// The native stack one nesting level costs [`stats::Stats::add`]: measured 0.8 KiB in release
/// builds and 5.5 KiB in debug builds; this is that with a margin of 1.5.
pub const STATS_STACK_PER_LEVEL: usize = if cfg!(debug_assertions) {
    8 << 10
} else {
    5 << 8
};

/// The stack [`run`] needs: the printers and readers go at most 1025 levels deep (values are
/// read with the engine's depth limit, and text and JSON input is refused past it), `stats`
/// up to 16385 with `--max-depth 16384` (the largest accepted), plus 1 MiB for everything
/// else. About 21 MiB in release builds (129 MiB in debug builds); the binary runs [`run`] on
/// a thread of this size.
pub const RUN_STACK: usize = {
    let print = (ENGINE_MAX_DEPTH as usize + 1) * STACK_PER_LEVEL;
    let stats = (MAX_DEPTH_LIMIT as usize + 1) * STATS_STACK_PER_LEVEL;
    (1 << 20) + if print > stats { print } else { stats }
};

/// What the binary provides to [`run`]: file access and the terminal check.
pub trait Host {
    /// The bytes of a file (`-` is standard input), memory-mapped where possible.
    fn load(&mut self, path: &str) -> io::Result<Box<dyn AsRef<[u8]>>>;
    /// Whether standard output is a terminal (binary output is refused then).
    fn stdout_is_terminal(&self) -> bool;
}

/// Runs the tool with the arguments after the program name; returns the exit status.
///
/// Printing and reading recurse once per nesting level: run this on a thread with
/// [`RUN_STACK`] bytes of stack.
pub fn run(args: &[String], host: &mut dyn Host, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut cx = Cx { host, out, err };
    match cx.dispatch(args) {
        Ok(code) => code,
        Err(Fail::Usage(msg)) => {
            let _ = writeln!(cx.err, "gdvariant: {msg}\n\n{USAGE}");
            2
        }
        Err(Fail::Input(msg)) => {
            let _ = writeln!(cx.err, "{msg}");
            1
        }
        Err(Fail::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(Fail::Io(e)) => {
            let _ = writeln!(cx.err, "gdvariant: write error: {e}");
            1
        }
    }
}

enum Fail {
    Usage(String),
    Input(String),
    Io(io::Error),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Io(e)
    }
}

type Res<T> = core::result::Result<T, Fail>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DialectChoice {
    Four,
    Three,
    Auto,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Text,
    Json,
    Tree,
}

#[derive(Debug)]
struct Args {
    dialect: Option<DialectChoice>,
    format: Format,
    from: Format,
    double: bool,
    allow_objects: bool,
    max_depth: Option<u32>,
    framed: Option<bool>, // Some(big_endian)
    positional: Vec<String>,
}

fn usage<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail::Usage(msg.into()))
}

fn parse_args(cmd: &str, args: &[String]) -> Res<Args> {
    let mut a = Args {
        dialect: None,
        format: Format::Text,
        from: Format::Text,
        double: false,
        allow_objects: false,
        max_depth: None,
        framed: None,
        positional: Vec::new(),
    };
    let allowed: &[&str] = match cmd {
        "decode" => &["dialect", "format", "allow-objects", "framed"],
        "encode" => &["dialect", "from", "precision", "framed"],
        "validate" => &["dialect", "allow-objects", "max-depth", "framed"],
        "stats" => &["dialect", "allow-objects", "framed", "max-depth"],
        "get" => &["dialect", "allow-objects", "format"],
        _ => &[],
    };
    let mut i = 0;
    let mut only_positional = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if only_positional || arg == "-" || !arg.starts_with('-') {
            a.positional.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_positional = true;
            continue;
        }
        let Some(body) = arg.strip_prefix("--") else {
            return usage(format!("unknown option '{arg}'"));
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if !allowed.contains(&name) {
            return usage(format!("unknown option '--{name}' for '{cmd}'"));
        }
        let flag = matches!(name, "allow-objects" | "framed");
        let value = if flag {
            inline
        } else {
            match inline {
                Some(v) => Some(v),
                None => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => return usage(format!("option '--{name}' needs a value")),
                },
            }
        };
        let v = value.as_deref();
        match (name, v) {
            ("dialect", Some("4")) => a.dialect = Some(DialectChoice::Four),
            ("dialect", Some("3")) => a.dialect = Some(DialectChoice::Three),
            ("dialect", Some("auto")) if cmd != "encode" => a.dialect = Some(DialectChoice::Auto),
            ("format", Some("text")) => a.format = Format::Text,
            ("format", Some("json")) => a.format = Format::Json,
            ("format", Some("tree")) => a.format = Format::Tree,
            ("from", Some("text")) => a.from = Format::Text,
            ("from", Some("json")) => a.from = Format::Json,
            ("precision", Some("single")) => a.double = false,
            ("precision", Some("double")) => a.double = true,
            ("allow-objects", None) => a.allow_objects = true,
            ("framed", None | Some("le")) => a.framed = Some(false),
            ("framed", Some("be")) => a.framed = Some(true),
            ("max-depth", Some(n)) => match n.parse::<u32>() {
                Ok(n) => a.max_depth = Some(n),
                Err(_) => return usage(format!("bad value '{n}' for --max-depth")),
            },
            (n, Some(v)) => return usage(format!("bad value '{v}' for --{n}")),
            (n, None) => return usage(format!("option '--{n}' takes no value")),
        }
    }
    Ok(a)
}

struct Cx<'h> {
    host: &'h mut dyn Host,
    out: &'h mut dyn Write,
    err: &'h mut dyn Write,
}

/// `FILE: error: <what> at offset N`.
fn bad(file: &str, e: &Error) -> Fail {
    Fail::Input(describe(file, e))
}

fn describe(file: &str, e: &Error) -> String {
    match e.kind() {
        // Made by `whole` for a file or a frame with bytes after its value.
        ErrorKind::TrailingBytesInFrame { extra } => format!(
            "{file}: error: {extra} trailing bytes after the value at offset {}",
            e.offset()
        ),
        _ => format!("{file}: error: {e}"),
    }
}

impl Cx<'_> {
    fn dispatch(&mut self, args: &[String]) -> Res<i32> {
        let Some(cmd) = args.first() else {
            return usage("no command given");
        };
        let rest = &args[1..];
        match cmd.as_str() {
            "-h" | "--help" | "help" => {
                self.out.write_all(USAGE.as_bytes())?;
                Ok(0)
            }
            "-V" | "--version" => {
                writeln!(self.out, "gdvariant {}", env!("CARGO_PKG_VERSION"))?;
                Ok(0)
            }
            "decode" => self.decode(&parse_args(cmd, rest)?),
            "encode" => self.encode(&parse_args(cmd, rest)?),
            "validate" => self.validate(&parse_args(cmd, rest)?),
            "stats" => self.stats(&parse_args(cmd, rest)?),
            "get" => self.get(&parse_args(cmd, rest)?),
            other => usage(format!("unknown command '{other}'")),
        }
    }

    fn load(&mut self, path: &str) -> Res<Box<dyn AsRef<[u8]>>> {
        self.host
            .load(path)
            .map_err(|e| Fail::Input(format!("{path}: error: {e}")))
    }

    fn options(&self, a: &Args, dialect: Dialect) -> Options {
        let mut o = Options::new()
            .dialect(dialect)
            .allow_objects(a.allow_objects);
        if let Some(d) = a.max_depth {
            o = o.max_depth(d);
        }
        o
    }

    /// Picks the dialect: the one asked for, or with `auto` the one whose validation of
    /// `check` succeeds (Godot 4 when both do), saying so on stderr.
    fn pick(&mut self, a: &Args, file: &str, check: impl Fn(&Options) -> bool) -> Res<Dialect> {
        match a.dialect.unwrap_or(DialectChoice::Four) {
            DialectChoice::Four => Ok(Dialect::Godot4),
            DialectChoice::Three => Ok(Dialect::Godot3),
            DialectChoice::Auto => {
                let four = check(&self.options(a, Dialect::Godot4));
                let three = check(&self.options(a, Dialect::Godot3));
                let (d, msg) = match (four, three) {
                    (true, true) => (Dialect::Godot4, "valid in both dialects; using Godot 4"),
                    (true, false) => (Dialect::Godot4, "valid as Godot 4 (not as Godot 3)"),
                    (false, true) => (Dialect::Godot3, "valid as Godot 3 (not as Godot 4)"),
                    (false, false) => (
                        Dialect::Godot4,
                        "valid in neither dialect; reading as Godot 4",
                    ),
                };
                writeln!(self.err, "{file}: dialect auto: {msg}")?;
                Ok(d)
            }
        }
    }

    fn one_file(a: &Args, min: usize) -> Res<String> {
        match a.positional.len() {
            n if n == min => Ok("-".into()),
            n if n == min + 1 => Ok(a.positional[min].clone()),
            _ => usage("expected one input file"),
        }
    }

    fn decode(&mut self, a: &Args) -> Res<i32> {
        let file = Self::one_file(a, 0)?;
        let data = self.load(&file)?;
        let bytes = (*data).as_ref();
        let framed = a.framed;
        let dialect = self.pick(a, &file, |o| match framed {
            Some(be) => frames(bytes, be).all(|f| f.and_then(|(at, b)| whole(b, at, o)).is_ok()),
            None => crate::validate_with(bytes, o).is_ok(),
        })?;
        let opts = self.options(a, dialect);
        match a.framed {
            None => {
                let (v, used) = crate::parse_prefix(bytes, &opts).map_err(|e| bad(&file, &e))?;
                // Check everything before printing anything.
                v.validate().map_err(|e| bad(&file, &e))?;
                self.print(&v, a.format)
                    .map_err(|e| self.data_err(&file, e))?;
                if used < bytes.len() {
                    writeln!(
                        self.err,
                        "{file}: warning: {} bytes after the value (from offset {used}) ignored",
                        bytes.len() - used
                    )?;
                }
            }
            Some(be) => {
                for f in frames(bytes, be) {
                    let (at, b) = f.map_err(|e| bad(&file, &e))?;
                    whole(b, at, &opts).map_err(|e| bad(&file, &e))?;
                    let v = crate::parse_with(b, &opts).map_err(|e| bad(&file, &e.shifted(at)))?;
                    self.print(&v, a.format)
                        .map_err(|e| self.data_err(&file, e.map_data(|d| d.shifted(at))))?;
                }
            }
        }
        self.out.flush()?;
        Ok(0)
    }

    fn data_err(&self, file: &str, e: PrintError) -> Fail {
        match e {
            PrintError::Data(e) => bad(file, &e),
            PrintError::Io(e) => Fail::Io(e),
        }
    }

    fn print(&mut self, v: &VariantRef<'_>, format: Format) -> Result<(), PrintError> {
        let r = match format {
            Format::Text => text::write_text(v, self.out),
            Format::Json => json::write_json(v, self.out),
            Format::Tree => tree::write_tree(v, &tree::TreeOptions::default(), self.out),
        };
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(PrintError::Io(e)),
            Err(e) => return Err(PrintError::Data(e)),
        }
        if format != Format::Tree {
            self.out.write_all(b"\n").map_err(PrintError::Io)?;
        }
        Ok(())
    }

    fn encode(&mut self, a: &Args) -> Res<i32> {
        let file = Self::one_file(a, 0)?;
        if self.host.stdout_is_terminal() {
            return usage("refusing to write binary data to a terminal; redirect standard output");
        }
        let data = self.load(&file)?;
        let input = core::str::from_utf8((*data).as_ref())
            .map_err(|e| Fail::Input(format!("{file}: error: input is not UTF-8: {e}")))?;
        let dialect = match a.dialect {
            Some(DialectChoice::Three) => Dialect::Godot3,
            _ => Dialect::Godot4,
        };
        // JSON: double precision when any parsed value carries `"$f64": true`.
        let (values, double) = match a.from {
            Format::Json => json::parse_json_values_precision(input)
                .map(|(v, wide)| (v, a.double || wide))
                .map_err(|e| e.to_string()),
            _ => parse::parse_values_with(input, dialect, a.double)
                .map(|v| (v, a.double))
                .map_err(|e| e.to_string()),
        }
        .map_err(|e| Fail::Input(format!("{file}: error: {e}")))?;
        if a.framed.is_none() && values.len() != 1 {
            return Err(Fail::Input(format!(
                "{file}: error: expected exactly one value, found {} (use --framed for several)",
                values.len()
            )));
        }
        let opts = crate::EncodeOptions::new()
            .dialect(dialect)
            .double_precision(double)
            .full_objects(true);
        let mut buf = Vec::new();
        for v in &values {
            let bytes = crate::encode_with(v, &opts)
                .map_err(|e| Fail::Input(format!("{file}: error: cannot encode: {e}")))?;
            if let Some(be) = a.framed {
                let n = u32::try_from(bytes.len())
                    .map_err(|_| Fail::Input(format!("{file}: error: value too large")))?;
                buf.extend_from_slice(&if be { n.to_be_bytes() } else { n.to_le_bytes() });
            }
            buf.extend_from_slice(&bytes);
        }
        self.out.write_all(&buf)?;
        self.out.flush()?;
        Ok(0)
    }

    fn validate(&mut self, a: &Args) -> Res<i32> {
        if a.positional.is_empty() {
            return usage("validate needs at least one FILE");
        }
        let mut code = 0;
        for file in &a.positional {
            let data = match self.host.load(file) {
                Ok(d) => d,
                Err(e) => {
                    writeln!(self.out, "{file}: error: {e}")?;
                    code = 1;
                    continue;
                }
            };
            let bytes = (*data).as_ref();
            let check = |o: &Options| -> Result<(), Error> {
                match a.framed {
                    Some(be) => {
                        for f in frames(bytes, be) {
                            let (at, b) = f?;
                            whole(b, at, o)?;
                        }
                        Ok(())
                    }
                    None => whole(bytes, 0, o),
                }
            };
            let dialect = self.pick(a, file, |o| check(o).is_ok())?;
            if let Err(e) = check(&self.options(a, dialect)) {
                writeln!(self.out, "{}", describe(file, &e))?;
                code = 1;
            }
        }
        self.out.flush()?;
        Ok(code)
    }

    fn stats(&mut self, a: &Args) -> Res<i32> {
        if a.positional.len() != 1 {
            return usage("stats needs exactly one FILE");
        }
        let file = a.positional[0].clone();
        let data = self.load(&file)?;
        let bytes = (*data).as_ref();
        let framed = a.framed;
        let dialect = self.pick(a, &file, |o| match framed {
            Some(be) => frames(bytes, be).all(|f| f.and_then(|(at, b)| whole(b, at, o)).is_ok()),
            None => whole(bytes, 0, o).is_ok(),
        })?;
        let opts = self.options(a, dialect);
        let mut st = stats::Stats::new(10);
        match a.framed {
            None => {
                whole(bytes, 0, &opts).map_err(|e| bad(&file, &e))?;
                let v = crate::parse_with(bytes, &opts).map_err(|e| bad(&file, &e))?;
                st.add(&v, "").map_err(|e| bad(&file, &e))?;
            }
            Some(be) => {
                for (i, f) in frames(bytes, be).enumerate() {
                    let (at, b) = f.map_err(|e| bad(&file, &e))?;
                    whole(b, at, &opts).map_err(|e| bad(&file, &e))?;
                    let v = crate::parse_with(b, &opts).map_err(|e| bad(&file, &e.shifted(at)))?;
                    st.add_at(&v, &format!("#{i}"), at)
                        .map_err(|e| bad(&file, &e.shifted(at)))?;
                }
            }
        }
        st.write_report(dialect, self.out)?;
        self.out.flush()?;
        Ok(0)
    }

    fn get(&mut self, a: &Args) -> Res<i32> {
        if a.positional.len() != 2 {
            return usage("get needs PATH and FILE");
        }
        let (path, file) = (a.positional[0].clone(), a.positional[1].clone());
        let data = self.load(&file)?;
        let bytes = (*data).as_ref();
        // Auto: look the path up in each dialect; no whole-file validation.
        let dialect = self.pick(a, &file, |o| {
            crate::parse_with(bytes, o)
                .and_then(|v| v.path(&path))
                .is_ok_and(|v| v.is_some_and(|v| v.validate().is_ok()))
        })?;
        let opts = self.options(a, dialect);
        let root = crate::parse_with(bytes, &opts).map_err(|e| bad(&file, &e))?;
        let Some(v) = root.path(&path).map_err(|e| bad(&file, &e))? else {
            return Err(Fail::Input(format!(
                "{file}: error: path '{path}' not found"
            )));
        };
        v.validate().map_err(|e| bad(&file, &e))?;
        self.print(&v, a.format)
            .map_err(|e| self.data_err(&file, e))?;
        self.out.flush()?;
        Ok(0)
    }
}

enum PrintError {
    Data(Error),
    Io(io::Error),
}

impl PrintError {
    fn map_data(self, f: impl FnOnce(Error) -> Error) -> PrintError {
        match self {
            PrintError::Data(e) => PrintError::Data(f(e)),
            other => other,
        }
    }
}

/// Validates the value in `b` (at absolute offset `at`) and requires it to fill `b` exactly.
fn whole(b: &[u8], at: usize, o: &Options) -> Result<(), Error> {
    let used = crate::validate_with(b, o).map_err(|e| e.shifted(at))?;
    if used < b.len() {
        return Err(Error::new(
            ErrorKind::TrailingBytesInFrame {
                extra: b.len() - used,
            },
            at + used,
        ));
    }
    Ok(())
}

/// The frames of a length-prefixed stream: `(offset of the value, its bytes)`. A tool looks at
/// captures of any size, so no maximum frame size applies beyond what the prefix can say.
fn frames(bytes: &[u8], big_endian: bool) -> impl Iterator<Item = Result<(usize, &[u8]), Error>> {
    let endian = if big_endian {
        Endian::Big
    } else {
        Endian::Little
    };
    let opts = FrameOptions::new()
        .endian(endian)
        .max_frame(u32::MAX as usize);
    raw_frames(bytes, &opts).map(|f| f.map(|f| (f.offset, f.bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        tty: bool,
        input: Vec<u8>,
    }

    impl Host for Fake {
        fn load(&mut self, path: &str) -> io::Result<Box<dyn AsRef<[u8]>>> {
            if path == "-" {
                Ok(Box::new(self.input.clone()))
            } else {
                Err(io::Error::new(io::ErrorKind::NotFound, "no such file"))
            }
        }
        fn stdout_is_terminal(&self) -> bool {
            self.tty
        }
    }

    fn go(args: &[&str], tty: bool, input: &[u8]) -> (i32, Vec<u8>, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut host = Fake {
            tty,
            input: input.to_vec(),
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(&args, &mut host, &mut out, &mut err);
        (code, out, String::from_utf8_lossy(&err).into_owned())
    }

    #[test]
    fn encode_refuses_to_write_binary_to_a_terminal() {
        let (code, out, err) = go(&["encode", "-"], true, b"42");
        assert_eq!((code, out.len()), (2, 0));
        assert!(
            err.contains("refusing to write binary data to a terminal"),
            "{err}"
        );
        let (code, out, _) = go(&["encode", "-"], false, b"42");
        assert_eq!((code, out), (0, vec![2, 0, 0, 0, 42, 0, 0, 0]));
        // text output to a terminal is fine
        let (code, out, _) = go(&["decode", "-"], true, &[2, 0, 0, 0, 42, 0, 0, 0]);
        assert_eq!((code, out), (0, b"42\n".to_vec()));
    }

    #[test]
    fn missing_file_is_invalid_input() {
        let (code, _, err) = go(&["decode", "nope.bin"], false, b"");
        assert_eq!(code, 1);
        assert_eq!(err, "nope.bin: error: no such file\n");
    }
}
