//! The commands: running each one, printing values, and looking paths up.

use std::io::{self, Write};

use gdvariant::{
    Detector, Dialect, EncodeOptions, Error, ErrorKind, PathItem, ReadOptions, Variant, VariantRef,
    Verdict,
};

use crate::args::{
    Cli, Cmd, DepthArgs, Format, FrameEndian, InputFormat, Precision, ReadArgs, ReadDialect,
    WriteDialect,
};
use crate::host::{Fail, Host};
use crate::input::{capture_refusal, check_all, checked, describe, frames, hint, Read};
use crate::sink::Sink;
use crate::stats;
use crate::tree::{self, TreeOptions};

type Res<T> = Result<T, Fail>;

/// Runs a parsed command; returns the exit status.
pub fn run(cli: Cli, host: &mut dyn Host, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut cx = Cx { host, out, err };
    let res = match cli.cmd {
        Cmd::Decode {
            read,
            format,
            framed,
            file,
        } => cx.decode(read, format, framed, file.as_deref().unwrap_or("-")),
        Cmd::Encode {
            dialect,
            from,
            precision,
            framed,
            input,
        } => cx.encode(
            dialect,
            from,
            precision,
            framed,
            input.as_deref().unwrap_or("-"),
        ),
        Cmd::Validate {
            read,
            depth,
            framed,
            files,
        } => cx.validate(read, depth, framed, &files),
        Cmd::Stats {
            read,
            depth,
            framed,
            file,
        } => cx.stats(read, depth, framed, &file),
        Cmd::Get {
            read,
            format,
            framed,
            path,
            file,
        } => cx.get(read, format, framed, &path, &file),
        Cmd::Multiplayer(c) => crate::mp::run(c, cx.host, cx.out, cx.err),
        Cmd::Capture(a) => crate::capture::run(a, cx.host, cx.out, cx.err),
        Cmd::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "gdvariant", cx.out);
            Ok(0)
        }
    };
    match res.and_then(|code| cx.out.flush().map(|()| code).map_err(Fail::Io)) {
        Ok(code) => code,
        Err(Fail::Usage(msg)) => {
            let _ = writeln!(
                cx.err,
                "error: {msg}\n\nFor more information, try '--help'."
            );
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

struct Cx<'h> {
    host: &'h mut dyn Host,
    out: &'h mut dyn Write,
    err: &'h mut dyn Write,
}

impl Cx<'_> {
    fn load(&mut self, path: &str) -> Res<Box<dyn AsRef<[u8]>>> {
        self.host
            .load(path)
            .map_err(|e| Fail::Input(format!("{path}: error: {e}")))
    }

    /// The report of a bad input, with a hint when one applies (hints for validate go to
    /// standard error, its report lines to standard output).
    fn bad(
        &mut self,
        file: &str,
        bytes: &[u8],
        framed: Option<FrameEndian>,
        rd: &Read,
        e: &Error,
    ) -> Fail {
        let mut msg = describe(file, e);
        if let Some(h) = hint(bytes, framed, rd, e) {
            msg.push_str(&format!("\n{file}: hint: {h}"));
        }
        Fail::Input(msg)
    }

    /// Picks the dialect: the one asked for, or with `auto` the one [`Detector`] tells from
    /// the whole input (each frame's value with `--framed`), saying which and why on stderr.
    /// `decode`, `validate`, `stats` and `get` all decide this way. A packet capture is refused
    /// here, before it is read as a value (a pcapng file's first bytes read as a `Vector3i`).
    fn pick(
        &mut self,
        args: ReadArgs,
        max_depth: Option<u32>,
        file: &str,
        bytes: &[u8],
        framed: Option<FrameEndian>,
    ) -> Res<Read> {
        if let Some(msg) = capture_refusal(file, bytes) {
            return Err(Fail::Input(msg));
        }
        let rd = |dialect| Read {
            args,
            max_depth,
            dialect,
        };
        match args.dialect {
            ReadDialect::Four => Ok(rd(Dialect::Godot4)),
            ReadDialect::Three => Ok(rd(Dialect::Godot3)),
            ReadDialect::Auto => {
                let mut det = Detector::new(&rd(Dialect::Godot4).options());
                {
                    let total = 2 * bytes.len() as u64;
                    let mut p = self.host.progress("detecting the dialect", total);
                    match framed {
                        None => {
                            det.value_with_progress(bytes, 0, &mut |d| p.set(d as u64));
                        }
                        Some(e) => {
                            // A framing error reads the same in both dialects: the check
                            // after this reports it.
                            for (at, b) in frames(bytes, e).map_while(Result::ok) {
                                det.value_with_progress(b, at, &mut |d| p.set((2 * at + d) as u64));
                            }
                        }
                    }
                }
                let d = det.detection();
                writeln!(self.err, "{file}: dialect auto: {d}")?;
                if d.verdict() == Verdict::Ambiguous {
                    writeln!(
                        self.err,
                        "{file}: hint: --dialect 3 reads it as Godot 3, --dialect 4 as Godot 4"
                    )?;
                }
                Ok(rd(d.read_as()))
            }
        }
    }

    fn decode(
        &mut self,
        read: ReadArgs,
        format: Format,
        framed: Option<FrameEndian>,
        file: &str,
    ) -> Res<i32> {
        let data = self.load(file)?;
        let bytes = (*data).as_ref();
        let rd = self.pick(read, None, file, bytes, framed)?;
        let opts = rd.options();
        match framed {
            None => {
                // Check everything before printing anything.
                let mut p = self.host.progress("checking", bytes.len() as u64);
                let used = match checked(bytes, 0, &opts, &mut *p) {
                    Ok(n) => n,
                    Err(e) => return Err(self.bad(file, bytes, framed, &rd, &e)),
                };
                drop(p);
                let v = gdvariant::parse_with(bytes, &opts)
                    .map_err(|e| Fail::Input(describe(file, &e)))?;
                self.print(&v, format, &TreeOptions::default())
                    .map_err(|e| self.print_err(file, e))?;
                if format == Format::Text {
                    self.text_round_trip(file, &v, rd.dialect)?;
                }
                if used < bytes.len() {
                    writeln!(
                        self.err,
                        "{file}: warning: {} bytes after the value (from offset {used}) ignored",
                        bytes.len() - used
                    )?;
                    let e = Error::new(
                        ErrorKind::TrailingBytesInFrame {
                            extra: bytes.len() - used,
                        },
                        used,
                    );
                    if let Some(h) = hint(bytes, framed, &rd, &e) {
                        writeln!(self.err, "{file}: hint: {h}")?;
                    }
                }
            }
            Some(_) => {
                let mut p = self.host.progress("checking", bytes.len() as u64);
                if let Err(e) = check_all(bytes, framed, &opts, &mut *p) {
                    return Err(self.bad(file, bytes, framed, &rd, &e));
                }
                drop(p);
                let mut p = self.host.progress("printing", bytes.len() as u64);
                let mut warned = false;
                for (i, f) in frames(bytes, framed.unwrap_or(FrameEndian::Le)).enumerate() {
                    let (at, b) = f.map_err(|e| Fail::Input(describe(file, &e)))?;
                    p.set(at as u64);
                    let v = gdvariant::parse_with(b, &opts)
                        .map_err(|e| Fail::Input(describe(file, &e.shifted(at))))?;
                    let tree = TreeOptions {
                        base: at,
                        root: format!("#{i}"),
                        ..TreeOptions::default()
                    };
                    self.print(&v, format, &tree)
                        .map_err(|e| self.print_err(file, e.shifted(at)))?;
                    if format == Format::Text && !warned {
                        warned = self.text_round_trip(file, &v, rd.dialect)?;
                    }
                }
            }
        }
        Ok(0)
    }

    /// Warns when `gdvariant encode` would not give back `v`'s bytes from the text just printed
    /// (the engine's text form is lossy), saying why. Returns whether it warned. Inputs over
    /// 64 MiB are not checked (the check prints the text again into memory and reads it back).
    fn text_round_trip(&mut self, file: &str, v: &VariantRef<'_>, d: Dialect) -> Res<bool> {
        const MAX_CHECKED: usize = 64 << 20;
        let size = v.byte_len().unwrap_or(0);
        if size > MAX_CHECKED {
            writeln!(
                self.err,
                "{file}: note: the value is too large ({size} bytes) to check whether its text gives back its bytes; --format json does for every canonical value"
            )?;
            return Ok(true);
        }
        let opts = EncodeOptions::new().with_dialect(d).with_full_objects(true);
        match gdvariant::text::round_trip(v, &opts) {
            Ok(Some(loss)) => {
                let json = match loss.kind() {
                    gdvariant::text::LossKind::NotCanonical => {
                        "no form does (they are not the encoder's bytes for the value)"
                    }
                    gdvariant::text::LossKind::NotUtf8 => {
                        "no form does (Rust's strings cannot hold that text)"
                    }
                    _ => "--format json does",
                };
                writeln!(
                    self.err,
                    "{file}: warning: `gdvariant encode` of this text would not give back the same bytes: {loss}; {json}"
                )?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn print_err(&self, file: &str, e: PrintError) -> Fail {
        match e {
            PrintError::Data(e) => Fail::Input(describe(file, &e)),
            PrintError::Io(e) => Fail::Io(e),
        }
    }

    fn print(
        &mut self,
        v: &VariantRef<'_>,
        format: Format,
        tree: &TreeOptions,
    ) -> Result<(), PrintError> {
        match format {
            Format::Text | Format::Json => {
                let r = if format == Format::Text {
                    gdvariant::text::to_writer(v, &mut *self.out)
                } else {
                    gdvariant::json::to_writer(v, &mut *self.out)
                };
                r.map_err(PrintError::from_io)?;
                self.out.write_all(b"\n").map_err(PrintError::Io)
            }
            Format::Tree => {
                let mut sink = Sink::writer(self.out);
                match tree::tree(v, tree, &mut sink) {
                    Ok(()) => sink.finish().map_err(PrintError::Io),
                    Err(tree::Stop::Data(e)) => Err(PrintError::Data(e)),
                    Err(tree::Stop::Write) => Err(PrintError::Io(
                        sink.finish()
                            .err()
                            .unwrap_or_else(|| io::Error::other("write failed")),
                    )),
                }
            }
        }
    }

    fn encode(
        &mut self,
        dialect: WriteDialect,
        from: InputFormat,
        precision: Precision,
        framed: Option<FrameEndian>,
        file: &str,
    ) -> Res<i32> {
        if self.host.stdout_is_terminal() {
            return Err(Fail::Usage(
                "refusing to write binary data to a terminal; redirect standard output".into(),
            ));
        }
        let data = self.load(file)?;
        let input = std::str::from_utf8((*data).as_ref())
            .map_err(|e| Fail::Input(format!("{file}: error: input is not UTF-8: {e}")))?;
        let dialect = match dialect {
            WriteDialect::Three => Dialect::Godot3,
            WriteDialect::Four => Dialect::Godot4,
        };
        let double = precision == Precision::Double;
        let opts = EncodeOptions::new()
            .with_dialect(dialect)
            .with_double_precision(double)
            .with_full_objects(true);
        // Straight from the text to the bytes, no tree (JSON: double precision when any value
        // carries `"$f64": true`).
        if framed.is_none() {
            // Exactly one value: the bytes as the reader made them (no copy).
            let one = match from {
                InputFormat::Json => gdvariant::json::to_bytes(input, &opts)
                    .map_err(|e| (e.message.starts_with("expected exactly one"), e.to_string())),
                InputFormat::Text => gdvariant::text::to_bytes(input, &opts)
                    .map_err(|e| (e.message.starts_with("expected exactly one"), e.to_string())),
            };
            let bytes = one.map_err(|(several, e)| {
                let hint = if several {
                    format!("\n{file}: hint: use --framed to write several values")
                } else {
                    String::new()
                };
                Fail::Input(format!("{file}: error: {e}{hint}"))
            })?;
            self.out.write_all(&bytes)?;
            return Ok(0);
        }
        // A stream: each value written out, framed, as soon as it is complete.
        let mut written = Ok(());
        let out = &mut *self.out;
        let mut each = |bytes: &[u8]| {
            if written.is_err() {
                return;
            }
            if let Some(e) = framed {
                let Ok(n) = u32::try_from(bytes.len()) else {
                    written = Err(None);
                    return;
                };
                let prefix = match e {
                    FrameEndian::Be => n.to_be_bytes(),
                    FrameEndian::Le => n.to_le_bytes(),
                };
                if let Err(e) = out.write_all(&prefix) {
                    written = Err(Some(e));
                    return;
                }
            }
            if let Err(e) = out.write_all(bytes) {
                written = Err(Some(e));
            }
        };
        let res =
            match from {
                InputFormat::Json => gdvariant::json::to_bytes_each(input, &opts, &mut each)
                    .map_err(|e| e.to_string()),
                InputFormat::Text => gdvariant::text::to_bytes_each(input, &opts, &mut each)
                    .map_err(|e| e.to_string()),
            };
        res.map_err(|e| Fail::Input(format!("{file}: error: {e}")))?;
        match written {
            Ok(()) => {}
            Err(None) => return Err(Fail::Input(format!("{file}: error: value too large"))),
            Err(Some(e)) => return Err(Fail::Io(e)),
        }
        Ok(0)
    }

    fn validate(
        &mut self,
        read: ReadArgs,
        depth: DepthArgs,
        framed: Option<FrameEndian>,
        files: &[String],
    ) -> Res<i32> {
        let mut code = 0;
        for file in files {
            let data = match self.host.load(file) {
                Ok(d) => d,
                Err(e) => {
                    writeln!(self.out, "{file}: error: {e}")?;
                    code = 1;
                    continue;
                }
            };
            let bytes = (*data).as_ref();
            if let Some(msg) = capture_refusal(file, bytes) {
                let (line, hint) = msg.split_once('\n').unwrap_or((&msg, ""));
                writeln!(self.out, "{line}")?;
                writeln!(self.err, "{hint}")?;
                code = 1;
                continue;
            }
            let rd = self.pick(read, depth.max_depth, file, bytes, framed)?;
            let opts = rd.options();
            let mut p = self.host.progress("validating", bytes.len() as u64);
            let res = check_all(bytes, framed, &opts, &mut *p);
            drop(p);
            if let Err(e) = res {
                writeln!(self.out, "{}", describe(file, &e))?;
                if let Some(h) = hint(bytes, framed, &rd, &e) {
                    writeln!(self.err, "{file}: hint: {h}")?;
                }
                code = 1;
            }
        }
        Ok(code)
    }

    fn stats(
        &mut self,
        read: ReadArgs,
        depth: DepthArgs,
        framed: Option<FrameEndian>,
        file: &str,
    ) -> Res<i32> {
        let data = self.load(file)?;
        let bytes = (*data).as_ref();
        let rd = self.pick(read, depth.max_depth, file, bytes, framed)?;
        let opts = rd.options();
        let mut p = self.host.progress("checking", bytes.len() as u64);
        if let Err(e) = check_all(bytes, framed, &opts, &mut *p) {
            return Err(self.bad(file, bytes, framed, &rd, &e));
        }
        drop(p);
        let mut st = stats::Stats::new(10);
        let mut p = self.host.progress("counting", bytes.len() as u64);
        match framed {
            None => {
                let v = gdvariant::parse_with(bytes, &opts)
                    .map_err(|e| Fail::Input(describe(file, &e)))?;
                st.add_at(&v, "", 0, &mut |d| p.set(d as u64))
                    .map_err(|e| Fail::Input(describe(file, &e)))?;
            }
            Some(fe) => {
                for (i, f) in frames(bytes, fe).enumerate() {
                    let (at, b) = f.map_err(|e| Fail::Input(describe(file, &e)))?;
                    let v = gdvariant::parse_with(b, &opts)
                        .map_err(|e| Fail::Input(describe(file, &e.shifted(at))))?;
                    st.add_at(&v, &format!("#{i}"), at, &mut |d| p.set(d as u64))
                        .map_err(|e| Fail::Input(describe(file, &e.shifted(at))))?;
                }
            }
        }
        drop(p);
        st.write_report(rd.dialect, self.out)?;
        Ok(0)
    }

    fn get(
        &mut self,
        read: ReadArgs,
        format: Format,
        framed: Option<FrameEndian>,
        path: &str,
        file: &str,
    ) -> Res<i32> {
        let data = self.load(file)?;
        let bytes = (*data).as_ref();
        let rd = self.pick(read, None, file, bytes, framed)?;
        let opts = rd.options();
        let found = match lookup(bytes, framed, path, &opts) {
            Ok(f) => f,
            Err(e) => return Err(self.bad(file, bytes, framed, &rd, &e)),
        };
        let Some((found, at)) = found else {
            let mut msg = format!("{file}: error: path '{}' not found", short(path));
            if framed.is_none()
                && gdvariant::validate_with(bytes, &opts).is_ok_and(|n| n < bytes.len())
            {
                let e = Error::new(ErrorKind::TrailingBytesInFrame { extra: 0 }, 0);
                if let Some(h) = hint(bytes, framed, &rd, &e) {
                    msg.push_str(&format!("\n{file}: hint: {h}"));
                }
            }
            return Err(Fail::Input(msg));
        };
        let tree = TreeOptions {
            base: at,
            ..TreeOptions::default()
        };
        match found {
            Found::Value(v) => {
                if let Err(e) = v.validate() {
                    return Err(Fail::Input(describe(file, &e.shifted(at))));
                }
                self.print(&v, format, &tree)
                    .map_err(|e| self.print_err(file, e.shifted(at)))?;
            }
            Found::Element(x) => {
                // A packed array's element: printed as the Variant it is.
                let enc = EncodeOptions::new()
                    .with_dialect(rd.dialect)
                    .with_double_precision(true);
                let b = gdvariant::encode_with(&x, &enc)
                    .map_err(|e| Fail::Input(format!("{file}: error: {e}")))?;
                let v = gdvariant::parse_with(&b, &opts)
                    .map_err(|e| Fail::Input(format!("{file}: error: {e}")))?;
                self.print(&v, format, &TreeOptions::default())
                    .map_err(|e| self.print_err(file, e))?;
            }
        }
        Ok(0)
    }
}

/// At most 64 characters of a user-given string, for messages.
fn short(s: &str) -> String {
    let mut out = String::new();
    crate::path::push_short(&mut out, s, 64);
    out
}

/// What a path leads to.
enum Found<'a> {
    Value(VariantRef<'a>),
    /// An element of a packed array.
    Element(Variant),
}

/// Looks `path` up (after the frame number, with `framed`); the result with the offset its
/// value's offsets are relative to.
fn lookup<'a>(
    bytes: &'a [u8],
    framed: Option<FrameEndian>,
    path: &str,
    o: &ReadOptions,
) -> Result<Option<(Found<'a>, usize)>, Error> {
    let (root, path, at) = match framed {
        None => (gdvariant::parse_with(bytes, o)?, path, 0),
        Some(fe) => {
            let p = path.trim_start_matches('/');
            let (first, rest) = p.split_once('/').unwrap_or((p, ""));
            let Ok(n) = first.trim_start_matches('#').parse::<usize>() else {
                return Ok(None);
            };
            let Some(f) = frames(bytes, fe).nth(n) else {
                return Ok(None);
            };
            let (at, b) = f?;
            let v = gdvariant::parse_with(b, o).map_err(|e| e.shifted(at))?;
            (v, rest, at)
        }
    };
    Ok(match root.path_item(path).map_err(|e| e.shifted(at))? {
        Some(PathItem::Value(v)) => Some((Found::Value(v), at)),
        Some(PathItem::Element(x)) => Some((Found::Element(x.into()), at)),
        None => None,
    })
}

/// A printing failure.
pub enum PrintError {
    Data(Error),
    Io(io::Error),
}

impl PrintError {
    fn from_io(e: io::Error) -> PrintError {
        match e.get_ref().and_then(|x| x.downcast_ref::<Error>()) {
            Some(d) if e.kind() == io::ErrorKind::InvalidData => PrintError::Data(d.clone()),
            _ => PrintError::Io(e),
        }
    }

    fn shifted(self, at: usize) -> PrintError {
        match self {
            PrintError::Data(e) => PrintError::Data(e.shifted(at)),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{NoProgress, Progress};
    use clap::Parser;

    struct Fake {
        tty: bool,
        input: Vec<u8>,
        /// Whether standard error is a terminal (progress is shown).
        progress: bool,
        log: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
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
        fn progress(&mut self, what: &'static str, total: u64) -> Box<dyn Progress> {
            if !self.progress {
                return Box::new(NoProgress);
            }
            let log = self.log.clone();
            log.borrow_mut().push(format!("{what} 0/{total}"));
            Box::new(Recorder { what, total, log })
        }
    }

    /// Records progress reports (what, done/total) as a terminal's bar would show them.
    struct Recorder {
        what: &'static str,
        total: u64,
        log: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    }

    impl Progress for Recorder {
        fn set(&mut self, done: u64) {
            assert!(done <= self.total, "{}: {done} > {}", self.what, self.total);
            self.log
                .borrow_mut()
                .push(format!("{} {done}/{}", self.what, self.total));
        }
        fn active(&self) -> bool {
            true
        }
    }

    fn go(args: &[&str], tty: bool, input: &[u8]) -> (i32, Vec<u8>, String) {
        let cli = Cli::try_parse_from(std::iter::once("gdvariant").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut host = Fake {
            tty,
            input: input.to_vec(),
            progress: false,
            log: Default::default(),
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(cli, &mut host, &mut out, &mut err);
        (code, out, String::from_utf8_lossy(&err).into_owned())
    }

    /// Runs with standard error "a terminal": returns the exit code and the progress reports.
    fn go_progress(args: &[&str], input: &[u8]) -> (i32, Vec<String>) {
        let cli = Cli::try_parse_from(std::iter::once("gdvariant").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut host = Fake {
            tty: false,
            input: input.to_vec(),
            progress: true,
            log: Default::default(),
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(cli, &mut host, &mut out, &mut err);
        let log = host.log.borrow().clone();
        (code, log)
    }

    /// An Array of `n` ints (Godot 4).
    fn ints(n: u32) -> Vec<u8> {
        let mut b = vec![28, 0, 0, 0];
        b.extend_from_slice(&n.to_le_bytes());
        for i in 0..n {
            b.extend_from_slice(&[2, 0, 0, 0]);
            b.extend_from_slice(&i.to_le_bytes());
        }
        b
    }

    /// The reports of one pass: they start at 0, never go back and end at the total.
    fn pass(log: &[String], what: &str) -> Vec<(u64, u64)> {
        let r: Vec<(u64, u64)> = log
            .iter()
            .filter_map(|l| l.strip_prefix(what)?.strip_prefix(' '))
            .map(|l| {
                let (d, t) = l.split_once('/').unwrap();
                (d.parse().unwrap(), t.parse().unwrap())
            })
            .collect();
        assert!(r.len() >= 2, "{what}: {log:?}");
        assert_eq!(r[0].0, 0);
        assert!(r.windows(2).all(|w| w[0].0 <= w[1].0), "{what}: {r:?}");
        assert_eq!(r.last().unwrap().0, r[0].1, "{what}: {r:?}");
        r
    }

    #[test]
    fn long_passes_report_progress() {
        let big = ints(300_000);
        let len = big.len() as u64;
        let (code, log) = go_progress(&["validate", "-"], &big);
        assert_eq!(code, 0);
        // One report per 65 536 events, then the end.
        let r = pass(&log, "validating");
        assert!(r.len() >= 6, "{r:?}");
        assert_eq!(r[0].1, len);
        let (code, log) = go_progress(&["stats", "--dialect", "auto", "-"], &big);
        assert_eq!(code, 0);
        assert_eq!(pass(&log, "detecting the dialect")[0].1, 2 * len);
        // Godot 4: four reports and the end; Godot 3 fails at once (type id 28).
        assert_eq!(pass(&log, "detecting the dialect").len(), 7);
        pass(&log, "checking");
        assert!(log.iter().any(|l| l.starts_with("counting ")), "{log:?}");
        let (code, log) = go_progress(&["decode", "-"], &big);
        assert_eq!(code, 0);
        pass(&log, "checking");
        // A stream: the printing pass reports each frame's offset.
        let mut framed = Vec::new();
        for _ in 0..3 {
            framed.extend_from_slice(&(big.len() as u32).to_le_bytes());
            framed.extend_from_slice(&big);
        }
        let (code, log) = go_progress(&["decode", "--framed", "--format", "json", "-"], &framed);
        assert_eq!(code, 0);
        pass(&log, "checking");
        let printing: Vec<&String> = log.iter().filter(|l| l.starts_with("printing")).collect();
        let total = framed.len();
        assert_eq!(
            printing,
            [
                &format!("printing 0/{total}"),
                &format!("printing 4/{total}"),
                &format!("printing {}/{total}", 8 + len),
                &format!("printing {}/{total}", 12 + 2 * len),
            ]
        );
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
