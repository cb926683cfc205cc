//! The command line: the subcommands and their arguments (clap).

use clap::{Args, Parser, Subcommand, ValueEnum};

const AFTER_HELP: &str = "\
Exit status: 0 success, 1 invalid input, 2 usage error.
Files are memory-mapped; '-' (or no FILE) is standard input.";

/// Read, check and write Godot Engine's binary Variant serialization (var_to_bytes,
/// put_var, store_var), Godot 4 and Godot 3 dialects.
#[derive(Parser, Debug)]
#[command(name = "gdvariant", version, after_help = AFTER_HELP, arg_required_else_help = true)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
    /// The most bytes read from an input that is not a regular file (standard input, a pipe, a
    /// character device such as /dev/zero): past it the command stops with an error rather than
    /// read on. Regular files are memory-mapped and have no such limit; `capture` reads every
    /// input as a stream, in bounded memory, and has none either. Suffixes K, M and G (powers
    /// of 1024).
    #[arg(long, global = true, value_name = "BYTES", default_value = "256M", value_parser = parse_size)]
    pub max_stream: u64,
}

/// A byte count with an optional K, M or G suffix (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let (digits, shift) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a byte count (digits, then K, M or G)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Print a value: the engine's text (var_to_str), typed JSON, or an outline.
    ///
    /// The text form is exactly what the engine's var_to_str / var2str prints, so it lists
    /// dictionary keys sorted, not in their byte order: `decode | encode` does not give back the
    /// same bytes for dictionaries (nor for -0.0, Signals or Godot 3's 6-digit floats). For
    /// lossless round trips use --format json.
    #[command(after_help = AFTER_HELP)]
    Decode {
        #[command(flatten)]
        read: ReadArgs,
        /// Output form.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// A stream of values, each behind a u32 length prefix (little-endian unless =be), as
        /// StreamPeer.put_var / FileAccess.store_var write them.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "le", value_name = "ENDIAN")]
        framed: Option<FrameEndian>,
        /// Input file ('-' or none: standard input).
        file: Option<String>,
    },
    /// Write the bytes of a value given as engine text (str_to_var syntax) or typed JSON.
    ///
    /// Text from `decode` reads back to the same value, but not always to the same bytes: the
    /// engine's text lists dictionary keys sorted. JSON from `decode --format json` gives back
    /// the exact bytes.
    #[command(after_help = AFTER_HELP)]
    Encode {
        /// Dialect of the bytes written.
        #[arg(long, value_enum, default_value_t = WriteDialect::Four)]
        dialect: WriteDialect,
        /// Input form.
        #[arg(long, value_enum, default_value_t = InputFormat::Text)]
        from: InputFormat,
        /// Math components as f32 (single) or f64 (double, as a precision=double build).
        #[arg(long, value_enum, default_value_t = Precision::Single)]
        precision: Precision,
        /// Write a stream: every value of the input, each behind a u32 length prefix.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "le", value_name = "ENDIAN")]
        framed: Option<FrameEndian>,
        /// Input file ('-' or none: standard input).
        input: Option<String>,
    },
    /// Check files completely: one line per bad file, on standard output.
    ///
    /// Each bad file gets one line `FILE: error: <what> at offset N` on standard output (the
    /// report: validate *.bin > bad.txt); hints go to standard error. Bytes after the value are
    /// an error.
    #[command(after_help = AFTER_HELP)]
    Validate {
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        depth: DepthArgs,
        /// Each file is a stream of length-prefixed values.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "le", value_name = "ENDIAN")]
        framed: Option<FrameEndian>,
        /// Files to check.
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Counts and bytes per type, maximum depth, largest sub-trees.
    #[command(after_help = AFTER_HELP)]
    Stats {
        #[command(flatten)]
        read: ReadArgs,
        #[command(flatten)]
        depth: DepthArgs,
        /// The file is a stream of length-prefixed values (paths start with #N, the frame).
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "le", value_name = "ENDIAN")]
        framed: Option<FrameEndian>,
        /// Input file.
        file: String,
    },
    /// Print the value at a path of keys and indices (entities/9/pos, tags/0).
    ///
    /// A segment is a dictionary key (a String, else an int), an array index, or an index into
    /// a packed array. With --framed the first segment is the frame number (3/entities/0).
    /// Nothing but the values on the way is read (with --dialect auto, the whole input is read
    /// once in each dialect first, to choose).
    #[command(after_help = AFTER_HELP)]
    Get {
        #[command(flatten)]
        read: ReadArgs,
        /// Output form.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The file is a stream of length-prefixed values; the path starts with a frame number.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "le", value_name = "ENDIAN")]
        framed: Option<FrameEndian>,
        /// Path of keys and indices separated by '/'.
        path: String,
        /// Input file.
        file: String,
    },
    /// Godot's high-level multiplayer packets (SceneMultiplayer; Godot 3's MultiplayerAPI).
    #[command(subcommand, visible_alias = "mp")]
    Multiplayer(crate::mp::MpCmd),
    /// Godot traffic in packet captures (pcap, pcapng): every message of every flow, one line
    /// each, in capture order (`capture [decode] FILE...`).
    ///
    /// Each flow's transport is told from its content: put_var streams and WebSocket over TCP,
    /// ENet and PacketPeerUDP over UDP. A line shows the time, the flow (#N src → dst, peer ids
    /// where known), the transport and ENet channel, then the value in engine text or the
    /// multiplayer packet as `multiplayer decode` shows it, with node paths from the capture's
    /// path cache and method names from --schema.
    #[command(after_help = crate::capture::AFTER_HELP)]
    Capture(crate::capture::CaptureArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// For example: gdvariant completions bash > /etc/bash_completion.d/gdvariant
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// How values are read.
#[derive(Args, Debug, Clone, Copy)]
pub struct ReadArgs {
    /// Dialect of the bytes. auto reads the whole input in both and says on stderr which it
    /// takes and why: the one that reads it whole, else the more plausible reading (sane
    /// floats, clean text), else Godot 4, saying it cannot tell.
    #[arg(long, value_enum, default_value_t = ReadDialect::Four)]
    pub(crate) dialect: ReadDialect,
    /// Accept full objects (class name and properties), as bytes_to_var_with_objects does.
    #[arg(long)]
    pub(crate) allow_objects: bool,
    /// Read 64-bit math components (what a precision=double build writes) as the engines that
    /// ship do, narrowed to f32 (single), or as a precision=double build does (double).
    #[arg(long, value_enum, default_value_t = Precision::Single)]
    pub(crate) precision: Precision,
}

/// The depth limit.
#[derive(Args, Debug, Clone, Copy)]
pub struct DepthArgs {
    /// Allow values nested N levels deep (default 1024, the engine's limit; at most 16384,
    /// larger values are taken as 16384).
    #[arg(long, value_name = "N")]
    pub(crate) max_depth: Option<u32>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadDialect {
    #[value(name = "4")]
    Four,
    #[value(name = "3")]
    Three,
    Auto,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteDialect {
    #[value(name = "4")]
    Four,
    #[value(name = "3")]
    Three,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The engine's text (var_to_str): keys sorted.
    Text,
    /// Lossless typed JSON.
    Json,
    /// An outline with paths, offsets and sizes.
    Tree,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// The engine's text (str_to_var syntax).
    Text,
    /// The typed JSON of `decode --format json`.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    Single,
    Double,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameEndian {
    /// Little-endian length prefixes (the engine's default).
    Le,
    /// Big-endian (FileAccess.big_endian = true).
    Be,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        <Cli as clap::CommandFactory>::command().debug_assert();
    }
}
