//! Reading an input: the options chosen, the frames of a stream, checking with progress, and
//! the reports of a bad input with a hint at the options that read it.

use gdvariant::framing::{raw_frames, Endian, FrameOptions};
use gdvariant::{Dialect, Error, ErrorKind, ReadOptions, Walker};

use crate::args::{FrameEndian, Precision, ReadArgs};
use crate::host::{NoProgress, Progress};

/// How many walk events between two progress reports.
const PROGRESS_EVERY: u32 = 1 << 16;

/// `FILE: error: <what> at offset N`.
pub(crate) fn describe(file: &str, e: &Error) -> String {
    match e.kind() {
        // Made by `whole` for a file or a frame with bytes after its value.
        ErrorKind::TrailingBytesInFrame { extra } => format!(
            "{file}: error: {extra} trailing bytes after the value at offset {}",
            e.offset()
        ),
        _ => format!("{file}: error: {e}"),
    }
}

/// How the input is read: the arguments and the dialect chosen.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Read {
    pub(crate) args: ReadArgs,
    pub(crate) max_depth: Option<u32>,
    pub(crate) dialect: Dialect,
}

impl Read {
    pub(crate) fn options(&self) -> ReadOptions {
        let mut o = ReadOptions::new()
            .with_dialect(self.dialect)
            .with_full_objects(self.args.allow_objects)
            .with_double_precision(self.args.precision == Precision::Double);
        if let Some(d) = self.max_depth {
            o = o.with_max_depth(d);
        }
        o
    }
}

fn endian(f: FrameEndian) -> Endian {
    match f {
        FrameEndian::Le => Endian::Little,
        FrameEndian::Be => Endian::Big,
    }
}

/// The frames of a length-prefixed stream: `(offset of the value, its bytes)`. A tool looks at
/// captures of any size, so no maximum frame size applies beyond what the prefix can say.
pub(crate) fn frames(
    bytes: &[u8],
    e: FrameEndian,
) -> impl Iterator<Item = Result<(usize, &[u8]), Error>> {
    let opts = FrameOptions::new()
        .with_endian(endian(e))
        .with_max_frame(u32::MAX as usize);
    raw_frames(bytes, &opts).map(|f| f.map(|f| (f.offset, f.bytes)))
}

/// Validates the value at the start of `b` (at absolute offset `at`) and returns its length,
/// reporting progress (as `at` plus the bytes done) when it is shown.
pub(crate) fn checked(
    b: &[u8],
    at: usize,
    o: &ReadOptions,
    p: &mut dyn Progress,
) -> Result<usize, Error> {
    if !p.active() {
        return gdvariant::validate_with(b, o).map_err(|e| e.shifted(at));
    }
    let mut w = Walker::new(b, o);
    let mut events = 0u32;
    while w.next_event().map_err(|e| e.shifted(at))?.is_some() {
        events = events.wrapping_add(1);
        if events % PROGRESS_EVERY == 0 {
            p.set((at + w.offset()) as u64);
        }
    }
    p.set((at + w.offset()) as u64);
    Ok(w.offset())
}

/// Validates the value in `b` (at absolute offset `at`) and requires it to fill `b` exactly.
fn whole(b: &[u8], at: usize, o: &ReadOptions, p: &mut dyn Progress) -> Result<(), Error> {
    let used = checked(b, at, o, p)?;
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

/// Checks the whole input: one value filling it, or a stream of such frames.
pub(crate) fn check_all(
    bytes: &[u8],
    framed: Option<FrameEndian>,
    o: &ReadOptions,
    p: &mut dyn Progress,
) -> Result<(), Error> {
    match framed {
        Some(e) => {
            for f in frames(bytes, e) {
                let (at, b) = f?;
                whole(b, at, o, p)?;
            }
            Ok(())
        }
        None => whole(bytes, 0, o, p),
    }
}

/// The error and hint lines for an input that is a packet capture (pcap or pcapng), which
/// `decode`, `validate`, `stats` and `get` refuse before reading it as a value.
pub(crate) fn capture_refusal(file: &str, bytes: &[u8]) -> Option<String> {
    gdvariant_multiplayer::capture::is_capture(bytes).then(|| {
        format!(
            "{file}: error: this is a packet capture (pcap or pcapng), not a Variant\n\
             {file}: hint: read it with `gdvariant capture {file}`"
        )
    })
}

/// A hint for an input that failed to read with `framed` and `o`: another framing, dialect or
/// object policy with which it reads.
pub(crate) fn hint(
    bytes: &[u8],
    framed: Option<FrameEndian>,
    rd: &Read,
    e: &Error,
) -> Option<String> {
    let o = &rd.options();
    if e.kind() == ErrorKind::ObjectsNotAllowed && !rd.args.allow_objects {
        return Some("the input holds a full object: add --allow-objects to read it".into());
    }
    // A stream's frames need at least one value and a plausible first prefix.
    let framed_ok =
        |f: FrameEndian| bytes.len() >= 8 && check_all(bytes, Some(f), o, &mut NoProgress).is_ok();
    match framed {
        None if framed_ok(FrameEndian::Le) => {
            return Some(
                "the input looks like a stream of length-prefixed values: try --framed".into(),
            )
        }
        None if framed_ok(FrameEndian::Be) => return Some(
            "the input looks like a stream of big-endian length-prefixed values: try --framed=be"
                .into(),
        ),
        Some(FrameEndian::Le) if framed_ok(FrameEndian::Be) => {
            return Some("the length prefixes read as big-endian: try --framed=be".into())
        }
        Some(FrameEndian::Be) if framed_ok(FrameEndian::Le) => {
            return Some(
                "the length prefixes read as little-endian: try --framed (or --framed=le)".into(),
            )
        }
        _ => {}
    }
    let other = match rd.dialect {
        Dialect::Godot4 => Dialect::Godot3,
        Dialect::Godot3 => Dialect::Godot4,
    };
    let (arg, name) = match other {
        Dialect::Godot3 => ("3", "Godot 3"),
        Dialect::Godot4 => ("4", "Godot 4"),
    };
    for f in [framed, None, Some(FrameEndian::Le), Some(FrameEndian::Be)] {
        if f.is_some() && bytes.len() < 8 {
            continue;
        }
        let o = Read {
            dialect: other,
            ..*rd
        }
        .options();
        if check_all(bytes, f, &o, &mut NoProgress).is_ok() {
            let framing = match (framed, f) {
                (a, b) if a == b => String::new(),
                (_, None) => " without --framed".into(),
                (_, Some(FrameEndian::Le)) => " with --framed".into(),
                (_, Some(FrameEndian::Be)) => " with --framed=be".into(),
            };
            return Some(format!(
                "the input is valid in the {name} dialect{framing}: try --dialect {arg}"
            ));
        }
    }
    None
}
