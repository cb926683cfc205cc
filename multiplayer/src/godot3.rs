//! Godot 3's high-level multiplayer (`MultiplayerAPI`, 3.x): `remote` calls and `remote` property
//! sets by name, the node path cache, raw bytes.
//!
//! The first byte is the command (no flag bits); arguments and values are ordinary Godot 3
//! Variants (`var2bytes`), read as [`ValueRef`](super::ValueRef)s in the Godot 3 dialect.
//!
//! | command | layout |
//! |---|---|
//! | `REMOTE_CALL` 0 | `[00][u32 node cache id, or 0x80000000 \| path offset][method + NUL][argc: u8][args][node path + NUL, when inline]` |
//! | `REMOTE_SET` 1 | `[01][u32 node][property + NUL][value][node path + NUL, when inline]` |
//! | `SIMPLIFY_PATH` 2 | `[02][u32 cache id][path + NUL]` |
//! | `CONFIRM_PATH` 3 | `[03][path + NUL]` |
//! | `RAW` 4 | `[04][bytes]` |
//!
//! ```
//! use gdvariant_multiplayer::{godot3, Target};
//! use gdvariant::Variant;
//! // rpc("say", "hi") on a node cached as id 1 (Godot 3.2).
//! let bytes = godot3::remote_call(Target::Id(1), "say", &[Variant::from("hi")])?;
//! assert_eq!(bytes, b"\x00\x01\x00\x00\x00say\0\x01\x04\x00\x00\x00\x02\x00\x00\x00hi\0\0");
//! let godot3::Packet::RemoteCall(call) = godot3::parse(&bytes)? else { unreachable!() };
//! assert_eq!(call.method().as_str(), Some("say"));
//! assert_eq!(call.args().next().unwrap()?.as_variant().unwrap().as_str()?, "hi");
//! # Ok::<(), gdvariant::Error>(())
//! ```

use alloc::vec::Vec;
use core::fmt;

use super::rpc::{NodeTarget, Target};
use super::value::{Arg, Values};
use crate::wire::{invalid, len_u32, put_cstr, PacketOptions, Span, WireStr};
use gdvariant::encode::EncodeOptions;
use gdvariant::error::Result;
use gdvariant::types::Dialect;

const INLINE_PATH: u32 = 0x8000_0000;

/// A Godot 3 packet's command: its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Command {
    /// A `remote` call (`rpc`, `rpc_id`, `rpc_unreliable`, …).
    RemoteCall = 0,
    /// A `remote` property set (`rset`, …).
    RemoteSet = 1,
    /// A node path offered for the path cache.
    SimplifyPath = 2,
    /// A path cache entry confirmed.
    ConfirmPath = 3,
    /// Bytes sent with `send_bytes`.
    Raw = 4,
}

impl Command {
    /// The command whose byte is `b`, if any.
    pub const fn from_byte(b: u8) -> Option<Command> {
        Some(match b {
            0 => Command::RemoteCall,
            1 => Command::RemoteSet,
            2 => Command::SimplifyPath,
            3 => Command::ConfirmPath,
            4 => Command::Raw,
            _ => return None,
        })
    }

    /// The engine's name without its `NETWORK_COMMAND_` prefix.
    pub const fn name(self) -> &'static str {
        match self {
            Command::RemoteCall => "REMOTE_CALL",
            Command::RemoteSet => "REMOTE_SET",
            Command::SimplifyPath => "SIMPLIFY_PATH",
            Command::ConfirmPath => "CONFIRM_PATH",
            Command::Raw => "RAW",
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One Godot 3 `MultiplayerAPI` packet.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Packet<'a> {
    RemoteCall(RemoteCall<'a>),
    RemoteSet(RemoteSet<'a>),
    SimplifyPath(SimplifyPath<'a>),
    ConfirmPath(ConfirmPath<'a>),
    Raw(Raw<'a>),
}

/// Reads a Godot 3 packet with the engine's defaults (no full objects).
pub fn parse(bytes: &[u8]) -> Result<Packet<'_>> {
    parse_with(bytes, &PacketOptions::new())
}

/// Reads a Godot 3 packet; values are read in the Godot 3 dialect with the options' depth limit
/// and full-object setting (the protocol version does not apply).
pub fn parse_with<'a>(bytes: &'a [u8], opts: &PacketOptions) -> Result<Packet<'a>> {
    let Some(&first) = bytes.first() else {
        return Err(crate::cursor::eof(0, 1));
    };
    let p = Span {
        data: bytes,
        base: 0,
    };
    let read = opts.read_options().with_dialect(Dialect::Godot3);
    Ok(match Command::from_byte(first) {
        Some(Command::RemoteCall) => Packet::RemoteCall(RemoteCall(Remote::parse(p, read)?)),
        Some(Command::RemoteSet) => Packet::RemoteSet(RemoteSet(Remote::parse(p, read)?)),
        Some(Command::SimplifyPath) => {
            p.need(5)?;
            Packet::SimplifyPath(SimplifyPath { p })
        }
        Some(Command::ConfirmPath) => {
            p.need(2)?;
            Packet::ConfirmPath(ConfirmPath { p })
        }
        Some(Command::Raw) => {
            p.need(2)?;
            Packet::Raw(Raw { p })
        }
        None => return Err(invalid("unknown Godot 3 command", 0)),
    })
}

/// Reads a Godot 3 packet and checks every value in it.
pub fn validate(bytes: &[u8]) -> Result<()> {
    parse(bytes)?.validate()
}

impl<'a> Packet<'a> {
    /// The packet's command.
    pub fn command(&self) -> Command {
        match self {
            Packet::RemoteCall(_) => Command::RemoteCall,
            Packet::RemoteSet(_) => Command::RemoteSet,
            Packet::SimplifyPath(_) => Command::SimplifyPath,
            Packet::ConfirmPath(_) => Command::ConfirmPath,
            Packet::Raw(_) => Command::Raw,
        }
    }

    /// Checks every value (a call's arguments, a set's value) as the engine decodes them.
    pub fn validate(&self) -> Result<()> {
        let values = match self {
            Packet::RemoteCall(c) => c.args(),
            Packet::RemoteSet(s) => s.0.values(1),
            _ => return Ok(()),
        };
        // Each value checked whole in the pass that reads it.
        for v in values.checked() {
            v?;
        }
        Ok(())
    }
}

/// What REMOTE_CALL and REMOTE_SET share: node, name, and where the values start.
#[derive(Clone, Copy, Debug)]
struct Remote<'a> {
    p: Span<'a>,
    name_end: usize,
    read: gdvariant::ReadOptions,
}

impl<'a> Remote<'a> {
    fn parse(p: Span<'a>, read: gdvariant::ReadOptions) -> Result<Remote<'a>> {
        p.need(6)?;
        let node = p.u32_at(1);
        if node & INLINE_PATH != 0 && (node & !INLINE_PATH) as usize >= p.data.len() {
            return Err(invalid("inline node path offset past the end", 1));
        }
        let Some(n) = memchr::memchr(0, &p.data[5..]) else {
            return Err(invalid("method or property name without its NUL", 5));
        };
        let name_end = 5 + n;
        // The argument count (or the value) must follow.
        p.need(name_end + 2)?;
        Ok(Remote { p, name_end, read })
    }

    fn node(&self) -> NodeTarget<'a> {
        let node = self.p.u32_at(1);
        if node & INLINE_PATH != 0 {
            NodeTarget::Path(self.p.cstr((node & !INLINE_PATH) as usize))
        } else {
            NodeTarget::Id(node)
        }
    }

    fn name(&self) -> WireStr<'a> {
        WireStr::read(self.p.slice(5, self.name_end))
    }

    fn values_at(&self) -> usize {
        self.name_end + 1
    }

    /// `count` values from where they start.
    fn values(&self, count: usize) -> Values<'a> {
        let s = self.p.slice(self.values_at(), self.p.data.len());
        Values::plain(s.data, s.base, Some(count), self.read)
    }
}

/// A Godot 3 `REMOTE_CALL` packet: node, method name, arguments.
#[derive(Clone, Copy, Debug)]
pub struct RemoteCall<'a>(Remote<'a>);

impl<'a> RemoteCall<'a> {
    /// The node: cache id or inline path.
    pub fn node(&self) -> NodeTarget<'a> {
        self.0.node()
    }

    /// The method's name.
    pub fn method(&self) -> WireStr<'a> {
        self.0.name()
    }

    /// The declared argument count.
    pub fn arg_count(&self) -> usize {
        usize::from(self.0.p.byte(self.0.values_at()))
    }

    /// The arguments: Godot 3 Variants, read lazily. The engine decodes them with the rest of the
    /// packet as their bound, inline path included, and so do these.
    pub fn args(&self) -> Values<'a> {
        let s = self.0.p.slice(self.0.values_at() + 1, self.0.p.data.len());
        Values::plain(s.data, s.base, Some(self.arg_count()), self.0.read)
    }
}

/// A Godot 3 `REMOTE_SET` packet: node, property name, value.
#[derive(Clone, Copy, Debug)]
pub struct RemoteSet<'a>(Remote<'a>);

impl<'a> RemoteSet<'a> {
    /// The node: cache id or inline path.
    pub fn node(&self) -> NodeTarget<'a> {
        self.0.node()
    }

    /// The property's name.
    pub fn property(&self) -> WireStr<'a> {
        self.0.name()
    }

    /// The value, as a list of one (what the server hands on as an `rset`'s arguments).
    #[cfg(feature = "server")]
    pub(crate) fn values(&self) -> Values<'a> {
        self.0.values(1)
    }

    /// The value (a Godot 3 Variant).
    pub fn value(&self) -> Result<crate::value::ValueRef<'a>> {
        match self.0.values(1).next() {
            Some(v) => v,
            None => Err(crate::cursor::eof(self.0.p.base + self.0.values_at(), 4)),
        }
    }
}

/// A Godot 3 `SIMPLIFY_PATH` packet.
#[derive(Clone, Copy, Debug)]
pub struct SimplifyPath<'a> {
    p: Span<'a>,
}

impl<'a> SimplifyPath<'a> {
    /// The cache id the sender gives the path.
    pub fn id(&self) -> u32 {
        self.p.u32_at(1)
    }

    /// The node's path, relative to the root node.
    pub fn path(&self) -> WireStr<'a> {
        self.p.cstr(5)
    }
}

/// A Godot 3 `CONFIRM_PATH` packet.
#[derive(Clone, Copy, Debug)]
pub struct ConfirmPath<'a> {
    p: Span<'a>,
}

impl<'a> ConfirmPath<'a> {
    /// The confirmed path.
    pub fn path(&self) -> WireStr<'a> {
        self.p.cstr(1)
    }
}

/// A Godot 3 `RAW` packet.
#[derive(Clone, Copy, Debug)]
pub struct Raw<'a> {
    p: Span<'a>,
}

impl<'a> Raw<'a> {
    /// The bytes.
    pub fn payload(&self) -> &'a [u8] {
        &self.p.data[1..]
    }
}

/// The options values are written with: Godot 3, no full objects.
fn g3() -> EncodeOptions {
    EncodeOptions::godot3()
}

/// Writes the node field (and returns the path to append), as `_send_rpc` does. In Godot 3 the id
/// is always 32 bits ([`Target::Id`] and [`Target::Id32`] are the same).
fn head<'t>(
    out: &mut Vec<u8>,
    cmd: Command,
    target: Target<'t>,
    name: &str,
) -> Result<Option<&'t str>> {
    out.push(cmd as u8);
    let path = match target {
        Target::Id(id) | Target::Id32(id) => {
            if id & INLINE_PATH != 0 {
                return Err(invalid("node cache id with bit 31 set", 1));
            }
            out.extend_from_slice(&id.to_le_bytes());
            None
        }
        Target::Path(p) => {
            out.extend_from_slice(&[0; 4]);
            Some(p)
        }
    };
    put_cstr(out, name.as_bytes())?;
    Ok(path)
}

fn tail(out: &mut Vec<u8>, path: Option<&str>) -> Result<()> {
    if let Some(path) = path {
        let at = len_u32(out.len())?;
        out[1..5].copy_from_slice(&(INLINE_PATH | at).to_le_bytes());
        put_cstr(out, path.as_bytes())?;
    }
    Ok(())
}

/// Builds a Godot 3 `REMOTE_CALL` packet as `MultiplayerAPI::_send_rpc` does (at most 255
/// arguments).
pub fn remote_call<A: Arg>(target: Target<'_>, method: &str, args: &[A]) -> Result<Vec<u8>> {
    remote_call_with(target, method, args, &g3())
}

/// [`remote_call`] with encode options (full objects, for a receiver with
/// `allow_object_decoding`; the dialect is always Godot 3).
pub fn remote_call_with<A: Arg>(
    target: Target<'_>,
    method: &str,
    args: &[A],
    opts: &EncodeOptions,
) -> Result<Vec<u8>> {
    let opts = opts.with_dialect(Dialect::Godot3);
    let argc = u8::try_from(args.len()).map_err(|_| invalid("more than 255 RPC arguments", 0))?;
    let mut out = Vec::with_capacity(16 + method.len());
    let path = head(&mut out, Command::RemoteCall, target, method)?;
    out.push(argc);
    for a in args {
        a.write_plain(&mut out, &opts)?;
    }
    tail(&mut out, path)?;
    Ok(out)
}

/// Builds a Godot 3 `REMOTE_SET` packet as `MultiplayerAPI::_send_rpc` does.
pub fn remote_set<A: Arg + ?Sized>(
    target: Target<'_>,
    property: &str,
    value: &A,
) -> Result<Vec<u8>> {
    remote_set_with(target, property, value, &g3())
}

/// [`remote_set`] with encode options.
pub fn remote_set_with<A: Arg + ?Sized>(
    target: Target<'_>,
    property: &str,
    value: &A,
    opts: &EncodeOptions,
) -> Result<Vec<u8>> {
    let opts = opts.with_dialect(Dialect::Godot3);
    let mut out = Vec::with_capacity(16 + property.len());
    let path = head(&mut out, Command::RemoteSet, target, property)?;
    value.write_plain(&mut out, &opts)?;
    tail(&mut out, path)?;
    Ok(out)
}

/// Builds a Godot 3 `SIMPLIFY_PATH` packet.
pub fn simplify_path(id: u32, path: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(6 + path.len());
    out.push(Command::SimplifyPath as u8);
    out.extend_from_slice(&id.to_le_bytes());
    put_cstr(&mut out, path.as_bytes())?;
    Ok(out)
}

/// Builds a Godot 3 `CONFIRM_PATH` packet.
pub fn confirm_path(path: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(2 + path.len());
    out.push(Command::ConfirmPath as u8);
    put_cstr(&mut out, path.as_bytes())?;
    Ok(out)
}

/// Builds a Godot 3 `RAW` packet (at least one byte).
pub fn raw(bytes: &[u8]) -> Result<Vec<u8>> {
    if bytes.is_empty() {
        return Err(invalid("empty raw packet", 1));
    }
    let mut out = Vec::with_capacity(1 + bytes.len());
    out.push(Command::Raw as u8);
    out.extend_from_slice(bytes);
    Ok(out)
}
