//! Godot's high-level multiplayer on the wire: the packets `SceneMultiplayer` (Godot 4) and
//! `MultiplayerAPI` (Godot 3, in [`godot3`]) exchange for `@rpc` calls, the node path cache,
//! `MultiplayerSpawner`, `MultiplayerSynchronizer`, authentication, relaying and raw bytes.
//!
//! Everything here is a zero-copy view: [`parse`] reads a
//! packet's fixed fields and bounds-checks its variable ones without allocating; arguments,
//! spawn state and synchronizer values are lazy sequences of [`ValueRef`]s read from the
//! *compressed* form the engine uses for them (a bool in one byte, an int in the fewest bytes
//! that hold it, anything else as `var_to_bytes` writes it). The builders ([`RemoteCallBuilder`],
//! [`SpawnBuilder`], [`SyncBuilder`], [`DeltaBuilder`] and the functions next to them) write
//! packets byte for byte as the engine does, with its own choices of id widths and flags.
//!
//! ```
//! use gdvariant_multiplayer::{self as multiplayer, Packet, RemoteCallBuilder, Target};
//! use gdvariant::Variant;
//!
//! // What Godot 4.6 sends for `rpc("hit", 7, "sword")` on a node whose path is cached as id 3,
//! // where `hit` is the second of the script's @rpc methods in alphabetical order.
//! let bytes = RemoteCallBuilder::new(Target::Id(3), 1)
//!     .arg(&Variant::Int(7))?
//!     .arg(&Variant::from("sword"))?
//!     .finish()?;
//! assert_eq!(bytes[..6], [0x00, 3, 1, 2, 0x02, 7]);
//!
//! let Packet::RemoteCall(call) = multiplayer::parse(&bytes)? else { unreachable!() };
//! assert_eq!((call.node_id(), call.method()), (Some(3), 1));
//! let args: Vec<Variant> = call.args().map(|a| a?.to_owned()).collect::<Result<_, _>>()?;
//! assert_eq!(args, [Variant::Int(7), Variant::from("sword")]);
//! # Ok::<(), gdvariant::Error>(())
//! ```
//!
//! # The packets
//!
//! The first byte holds the [`Command`] in its three low bits and per-command flags in its four
//! high bits; all integers are little-endian.
//!
//! | command | layout |
//! |---|---|
//! | `REMOTE_CALL` 0 | `[meta][node id: u8/u16/u32][method id: u8/u16][argc: u8, absent when byte-only][args][node path if sent inline]` |
//! | `SIMPLIFY_PATH` 1 | `[01][MD5 hex of the node's RPC method names, 32 bytes + NUL][u32 cache id][path + NUL]` |
//! | `CONFIRM_PATH` 2 | 4.3+: `[02][checksum ok][u32 cache id]`; 4.0–4.2: `[02][checksum ok][path + NUL]` |
//! | `RAW` 3 | `[03][bytes]` (`send_bytes`) |
//! | `SPAWN` 4 | `[04][scene index, 0xFF = custom][u32 spawner cache id][u32 net id][u32 sync count][u32 name length incl. NUL][sync net ids][name + NUL][custom: u32 size + compressed value][spawn state]` |
//! | `DESPAWN` 5 | `[05][u32 net id]` |
//! | `SYNC` 6 | `[06][u16 sync time]` then entries `[u32 net id][u32 size][values]` |
//! | `DELTA` 6, flag 0 | `[16]` then entries `[u32 net id][u64 changed-property mask][u32 size][values]` |
//! | `SYS` 7 | `[07][00][auth data]`, `[07][00]` (auth complete), `[07][01 add / 02 del peer][i32 peer]`, `[07][03][i32 peer][inner packet]` (relay) |
//!
//! The RPC meta byte is `0 | node id width << 4 | method id width << 6 | byte-only << 7` (node
//! id width 0/1/2 = 8/16/32 bits, method id width 0/1 = 8/16 bits). A node whose path the
//! receiver has not confirmed yet is sent as the 32-bit `0x80000000 | offset` with its path,
//! relative to the multiplayer root, appended at that offset. The method id is the index of the
//! method in the alphabetically sorted list of the script's `@rpc` methods (bit 15 set for
//! methods configured with `Node.rpc_config`): see [`RpcMethods`]. Calls with no argument, or
//! with exactly one `PackedByteArray`, set the byte-only flag and carry the bytes raw.
//!
//! Each view checks exactly what the engine's receiving code checks of the packet's structure
//! (the rest depends on the receiver's state: which node an id names, who has authority) and
//! says what is wrong at which offset. Counts, sizes and offsets read from a packet are bounded by
//! the packet before anything is read with them; nothing allocates in proportion to them.
//! [`validate`] checks every value too.
//!
//! # Tracking a session
//!
//! Cache ids and synchronizer net ids only mean something with the packets that defined them:
//! [`Session`] follows a conversation (path cache, spawns) so that later packets can be shown with
//! node paths, and a [`Schema`] (what a tool knows of the project: each node's `@rpc` methods and
//! each synchronizer's properties) gives method and property names.
//!
//! # Differences with the engine
//!
//! Where the engine's own checks would crash or misread a hostile packet, these views report an
//! error instead: see `docs/multiplayer.md` in the repository for each case, and for what the live
//! engine showed where it differs from a reading of its source.

#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(rust_2018_idioms, unreachable_pub)]

extern crate alloc;

mod cache;
mod cursor;
pub mod godot3;
mod replication;
mod rpc;
mod session;
mod sys;
mod value;

use alloc::vec::Vec;
use core::fmt;

use gdvariant::error::{Error, ErrorKind, Result};
use gdvariant::types::{Dialect, ReadOptions};

pub use cache::{
    confirm_path, confirm_path_v4_0, simplify_path, ConfirmPath, RpcMethods, SimplifyPath,
};
pub use replication::{
    despawn, Delta, DeltaBuilder, DeltaEntries, DeltaEntry, Despawn, Spawn, SpawnBuilder,
    SpawnScene, Sync, SyncBuilder, SyncEntries, SyncEntry,
};
pub use rpc::{NodeTarget, RemoteCall, RemoteCallBuilder, Target};
pub use session::{
    delta_properties, spawn_properties, sync_properties, Property, ReplicationMode, Schema,
    Session, StaticSchema, SyncKey,
};
pub use sys::{add_peer, auth, auth_complete, del_peer, raw, relay, Raw, Sys, SysKind};
pub use value::{write_value, Arg, Value, ValueRef, Values};

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
    read: ReadOptions,
    protocol: Protocol,
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

    /// The options values are read with (the dialect is Godot 4 here; [`godot3`] reads in the
    /// Godot 3 dialect).
    pub const fn read_options(&self) -> ReadOptions {
        self.read
    }

    pub(crate) fn values_g4(&self) -> ReadOptions {
        self.read.with_dialect(Dialect::Godot4)
    }
}

/// One SceneMultiplayer packet, by command: see the [module docs](self).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Packet<'a> {
    RemoteCall(RemoteCall<'a>),
    SimplifyPath(SimplifyPath<'a>),
    ConfirmPath(ConfirmPath<'a>),
    Raw(Raw<'a>),
    Spawn(Spawn<'a>),
    Despawn(Despawn<'a>),
    Sync(Sync<'a>),
    Delta(Delta<'a>),
    Sys(Sys<'a>),
}

/// Reads a Godot 4 packet with the engine's defaults, in O(1): its fixed fields are read and its
/// counts, sizes and offsets bounded by the packet; values are read as you iterate them (see
/// [`Packet::validate`] to check them all). See [`parse_with`].
pub fn parse(bytes: &[u8]) -> Result<Packet<'_>> {
    parse_with(bytes, &PacketOptions::new())
}

/// Reads a Godot 4 packet with the given options.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, Packet, PacketOptions, Protocol};
/// // A 4.2 peer confirms the path "Player".
/// let bytes = b"\x02\x01Player\0";
/// let opts = PacketOptions::new().with_protocol(Protocol::V4_0);
/// let Packet::ConfirmPath(c) = multiplayer::parse_with(bytes, &opts)? else { unreachable!() };
/// assert_eq!(c.path().unwrap().as_str(), Some("Player"));
/// // The same bytes are not a 4.3+ CONFIRM_PATH, which is exactly 6 bytes long.
/// assert!(multiplayer::parse(bytes).is_err());
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn parse_with<'a>(bytes: &'a [u8], opts: &PacketOptions) -> Result<Packet<'a>> {
    parse_at(bytes, 0, opts, true)
}

/// Reads a packet and checks every value in it (arguments, spawn state, synchronizer values, a
/// relayed packet's), as the receiving engine decodes them; see [`Packet::validate`].
pub fn validate(bytes: &[u8]) -> Result<()> {
    parse(bytes)?.validate()
}

/// Parses the packet `bytes`, whose first byte is at absolute offset `base`; `sys` says whether
/// SYS packets are allowed (not inside a relay).
pub(crate) fn parse_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &PacketOptions,
    sys: bool,
) -> Result<Packet<'a>> {
    let Some(&first) = bytes.first() else {
        return Err(crate::cursor::eof(base, 1));
    };
    let p = Span { data: bytes, base };
    Ok(match Command::from_byte(first) {
        Command::RemoteCall => Packet::RemoteCall(RemoteCall::parse(p, opts)?),
        Command::SimplifyPath => Packet::SimplifyPath(SimplifyPath::parse(p)?),
        Command::ConfirmPath => Packet::ConfirmPath(ConfirmPath::parse(p, opts.protocol)?),
        Command::Raw => Packet::Raw(Raw::parse(p)?),
        Command::Spawn => Packet::Spawn(Spawn::parse(p, opts)?),
        Command::Despawn => Packet::Despawn(Despawn::parse(p)?),
        Command::Sync if first & DELTA_FLAG != 0 => Packet::Delta(Delta::parse(p, opts)?),
        Command::Sync => Packet::Sync(Sync::parse(p, opts)?),
        Command::Sys if !sys => return Err(invalid("SYS packet inside a relay", base)),
        Command::Sys => Packet::Sys(Sys::parse(p, opts)?),
    })
}

/// The flag of a SYNC packet that makes it a DELTA.
pub(crate) const DELTA_FLAG: u8 = 1 << 4;

impl<'a> Packet<'a> {
    /// The packet's command.
    pub fn command(&self) -> Command {
        Command::from_byte(self.bytes()[0])
    }

    /// The four flag bits of the first byte (bits 4–7), shifted down.
    pub fn flags(&self) -> u8 {
        self.bytes()[0] >> 4
    }

    /// The whole packet, borrowed from the input.
    pub fn bytes(&self) -> &'a [u8] {
        self.span().data
    }

    /// The absolute offset of the packet's first byte (non-zero for a relayed packet).
    pub fn offset(&self) -> usize {
        self.span().base
    }

    /// The name of what the packet is: the command's, `"DELTA"` for a delta SYNC, and the SYS
    /// sub-command's for SYS (`"AUTH"`, `"AUTH_COMPLETE"`, `"ADD_PEER"`, `"DEL_PEER"`,
    /// `"RELAY"`).
    pub fn name(&self) -> &'static str {
        match self {
            Packet::Delta(_) => "DELTA",
            Packet::Sys(s) => s.kind().name(),
            p => p.command().name(),
        }
    }

    /// Checks every value in the packet (as the receiving engine decodes them: each value whole,
    /// strings' UTF-8, depth, objects), a relayed packet's too. The engine's leniencies are kept:
    /// bytes after an RPC's arguments are ignored, as the engine ignores them. A SYNC or DELTA
    /// entry's values are read to the end of the entry (DELTA: at most one per bit of the mask),
    /// as only the receiver's configuration says how many there are.
    pub fn validate(&self) -> Result<()> {
        match self {
            Packet::RemoteCall(c) => check_all(c.args()),
            Packet::Spawn(s) => {
                check_all(s.custom_arg_values())?;
                check_all(s.state())
            }
            Packet::Sync(s) => {
                for e in s.entries() {
                    check_all(e?.values())?;
                }
                Ok(())
            }
            Packet::Delta(d) => {
                for e in d.entries() {
                    let e = e?;
                    // The values fill the entry (the engine rejects an entry they do not fill);
                    // there is one per changed property, so at most one per bit of the mask.
                    let mut n = 0;
                    for v in e.values().checked() {
                        let v = v?;
                        n += 1;
                        if n > e.mask().count_ones() {
                            return Err(invalid(
                                "more DELTA values than bits in the mask",
                                v.offset(),
                            ));
                        }
                    }
                }
                Ok(())
            }
            Packet::Sys(s) => match s.inner() {
                Some(inner) => inner?.validate(),
                None => Ok(()),
            },
            Packet::SimplifyPath(_)
            | Packet::ConfirmPath(_)
            | Packet::Raw(_)
            | Packet::Despawn(_) => Ok(()),
        }
    }

    fn span(&self) -> Span<'a> {
        match self {
            Packet::RemoteCall(p) => p.p,
            Packet::SimplifyPath(p) => p.p,
            Packet::ConfirmPath(p) => p.p,
            Packet::Raw(p) => p.p,
            Packet::Spawn(p) => p.p,
            Packet::Despawn(p) => p.p,
            Packet::Sync(p) => p.p,
            Packet::Delta(p) => p.p,
            Packet::Sys(p) => p.p,
        }
    }
}

/// Checks every value of a sequence, reading each byte once.
fn check_all(values: Values<'_>) -> Result<()> {
    for v in values.checked() {
        v?;
    }
    Ok(())
}

// ----- shared plumbing -----

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
        .ok_or(Error::new(ErrorKind::TooLong, 0))
}

// The repository's README: its Rust examples run as this crate's doctests, the one crate that
// sees both the core and the multiplayer packets.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
