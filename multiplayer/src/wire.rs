//! The wire under every packet: the command byte, the protocol versions and reading options,
//! a packet's bytes with their absolute offset, and the NUL-terminated names of the packets.

use alloc::vec::Vec;
use core::fmt;

use gdvariant::error::{Error, ErrorKind, Result};
use gdvariant::types::{Dialect, ReadOptions};

/// What a packet is: the three low bits of its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Command {
    /// An `@rpc` call (`NETWORK_COMMAND_REMOTE_CALL`).
    RemoteCall = 0,
    /// A node path offered for the path cache (`NETWORK_COMMAND_SIMPLIFY_PATH`).
    SimplifyPath = 1,
    /// A path cache entry confirmed (`NETWORK_COMMAND_CONFIRM_PATH`).
    ConfirmPath = 2,
    /// Bytes sent with `send_bytes` (`NETWORK_COMMAND_RAW`).
    Raw = 3,
    /// A `MultiplayerSpawner` spawn (`NETWORK_COMMAND_SPAWN`).
    Spawn = 4,
    /// A `MultiplayerSpawner` despawn (`NETWORK_COMMAND_DESPAWN`).
    Despawn = 5,
    /// `MultiplayerSynchronizer` state: SYNC, or DELTA with flag 0 (`NETWORK_COMMAND_SYNC`).
    Sync = 6,
    /// Authentication, peer lists and relaying (`NETWORK_COMMAND_SYS`).
    Sys = 7,
}

impl Command {
    /// The command of a packet whose first byte is `b` (its three low bits).
    pub const fn from_byte(b: u8) -> Command {
        match b & 7 {
            0 => Command::RemoteCall,
            1 => Command::SimplifyPath,
            2 => Command::ConfirmPath,
            3 => Command::Raw,
            4 => Command::Spawn,
            5 => Command::Despawn,
            6 => Command::Sync,
            _ => Command::Sys,
        }
    }

    /// The engine's name without its `NETWORK_COMMAND_` prefix: `"REMOTE_CALL"`, `"SYNC"`, …
    pub const fn name(self) -> &'static str {
        match self {
            Command::RemoteCall => "REMOTE_CALL",
            Command::SimplifyPath => "SIMPLIFY_PATH",
            Command::ConfirmPath => "CONFIRM_PATH",
            Command::Raw => "RAW",
            Command::Spawn => "SPAWN",
            Command::Despawn => "DESPAWN",
            Command::Sync => "SYNC",
            Command::Sys => "SYS",
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which version of the Godot 4 protocol to read: they differ in `CONFIRM_PATH` only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// Godot 4.0 to 4.2: `CONFIRM_PATH` carries the node path. (4.0 peers never send DELTA,
    /// which came with 4.1.)
    V4_0,
    /// Godot 4.3 and later (the default): `CONFIRM_PATH` carries the cache id.
    #[default]
    V4_3,
}

/// How to read packets: the protocol version and the [`ReadOptions`] for the Variants inside.
///
/// The defaults are the engine's: Godot 4.3+, no full objects
/// (`SceneMultiplayer.allow_object_decoding = false`), depth limit 1024.
///
/// ```
/// use gdvariant_multiplayer::{PacketOptions, Protocol};
/// let opts = PacketOptions::new().with_protocol(Protocol::V4_0).with_full_objects(true);
/// assert_eq!(opts.protocol(), Protocol::V4_0);
/// assert!(opts.read_options().full_objects());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketOptions {
    pub(crate) read: ReadOptions,
    pub(crate) protocol: Protocol,
}

impl Default for PacketOptions {
    fn default() -> Self {
        PacketOptions::new()
    }
}

impl PacketOptions {
    /// The engine's defaults (see the type's docs).
    pub const fn new() -> PacketOptions {
        PacketOptions {
            read: ReadOptions::new(),
            protocol: Protocol::V4_3,
        }
    }

    /// Chooses the protocol version.
    #[must_use]
    pub const fn with_protocol(mut self, protocol: Protocol) -> PacketOptions {
        self.protocol = protocol;
        self
    }

    /// Allows full objects in values, as `SceneMultiplayer.allow_object_decoding = true` (Godot 3:
    /// `MultiplayerAPI.allow_object_decoding`) does.
    #[must_use]
    pub const fn with_full_objects(mut self, full: bool) -> PacketOptions {
        self.read = self.read.with_full_objects(full);
        self
    }

    /// Sets the depth limit of the values (default 1024, the engine's).
    #[must_use]
    pub const fn with_max_depth(mut self, depth: u32) -> PacketOptions {
        self.read = self.read.with_max_depth(depth);
        self
    }

    /// The protocol version.
    pub const fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The options values are read with (the dialect is Godot 4 here; [`godot3`](crate::godot3) reads in the
    /// Godot 3 dialect).
    pub const fn read_options(&self) -> ReadOptions {
        self.read
    }

    pub(crate) fn values_g4(&self) -> ReadOptions {
        self.read.with_dialect(Dialect::Godot4)
    }
}

/// The flag of a SYNC packet that makes it a DELTA.
pub(crate) const DELTA_FLAG: u8 = 1 << 4;

/// A packet's bytes and the absolute offset of its first byte.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) base: usize,
}

impl<'a> Span<'a> {
    /// The sub-span `from..to` (relative, clamped).
    pub(crate) fn slice(&self, from: usize, to: usize) -> Span<'a> {
        let to = to.min(self.data.len());
        let from = from.min(to);
        Span {
            data: &self.data[from..to],
            base: self.base + from,
        }
    }

    /// The byte at relative position `i` (0 when absent: callers check lengths first).
    pub(crate) fn byte(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    pub(crate) fn u16_at(&self, i: usize) -> u16 {
        let b = |k| self.byte(i + k);
        u16::from_le_bytes([b(0), b(1)])
    }

    pub(crate) fn u32_at(&self, i: usize) -> u32 {
        let b = |k| self.byte(i + k);
        u32::from_le_bytes([b(0), b(1), b(2), b(3)])
    }

    pub(crate) fn u64_at(&self, i: usize) -> u64 {
        u64::from(self.u32_at(i)) | u64::from(self.u32_at(i + 4)) << 32
    }

    /// Requires the packet to be at least `n` bytes long (an end-of-input error at its end).
    pub(crate) fn need(&self, n: usize) -> Result<()> {
        if self.data.len() < n {
            return Err(crate::cursor::eof(
                self.base + self.data.len(),
                n - self.data.len(),
            ));
        }
        Ok(())
    }

    /// The NUL-terminated string starting at relative position `at`, up to the end.
    pub(crate) fn cstr(&self, at: usize) -> WireStr<'a> {
        WireStr::read(self.slice(at, self.data.len()))
    }
}

/// An error about a packet's structure.
#[cold]
pub(crate) fn invalid(what: &'static str, offset: usize) -> Error {
    Error::new(ErrorKind::InvalidPacket { what }, offset)
}

/// A NUL-terminated string in a packet (node path, node name, method or property name, checksum),
/// borrowed from the input.
///
/// The engine reads these as lenient UTF-8 up to the first NUL or the end of their field
/// (a byte-order mark at the start skipped, invalid sequences replaced by U+FFFD):
/// [`as_str`](WireStr::as_str) is the text when it is valid UTF-8,
/// [`to_string_lossy`](WireStr::to_string_lossy) the text the engine sees.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WireStr<'a> {
    bytes: &'a [u8],
    offset: usize,
    terminated: bool,
}

impl<'a> WireStr<'a> {
    pub(crate) fn read(s: Span<'a>) -> WireStr<'a> {
        match memchr::memchr(0, s.data) {
            Some(n) => WireStr {
                bytes: &s.data[..n],
                offset: s.base,
                terminated: true,
            },
            None => WireStr {
                bytes: s.data,
                offset: s.base,
                terminated: false,
            },
        }
    }

    /// The bytes before the NUL (or the end of the field), exactly as sent.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The text without a leading byte-order mark, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.text_bytes()).ok()
    }

    /// The text as the engine reads it: without a leading byte-order mark, invalid UTF-8
    /// sequences replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> alloc::borrow::Cow<'a, str> {
        alloc::string::String::from_utf8_lossy(self.text_bytes())
    }

    /// The absolute offset of the string's first byte.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether a NUL ended the string (the engine always writes one; it reads to the end of the
    /// field without).
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }

    /// The length in bytes, without the NUL.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn text_bytes(&self) -> &'a [u8] {
        self.bytes
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(self.bytes)
    }
}

impl fmt::Debug for WireStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match core::str::from_utf8(self.bytes) {
            Ok(s) => fmt::Debug::fmt(s, f),
            Err(_) => write!(f, "WireStr({:?})", self.bytes),
        }
    }
}

impl fmt::Display for WireStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.text_bytes().utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{FFFD}")?;
            }
        }
        Ok(())
    }
}

impl PartialEq<str> for WireStr<'_> {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for WireStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

/// Writes `s` and a NUL, as the engine's `encode_cstring` does (an inner NUL would end the string
/// for the receiver: it is an error).
pub(crate) fn put_cstr(out: &mut Vec<u8>, s: &[u8]) -> Result<()> {
    if let Some(at) = memchr::memchr(0, s) {
        return Err(invalid("NUL inside a string", at));
    }
    out.extend_from_slice(s);
    out.push(0);
    Ok(())
}

/// `n` as a u32 length field, or an error.
pub(crate) fn len_u32(n: usize) -> Result<u32> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or_else(|| Error::new(ErrorKind::TooLong, 0))
}
