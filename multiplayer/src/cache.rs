//! The node path cache (`SceneCacheInterface`): `SIMPLIFY_PATH` offers a path under an id,
//! `CONFIRM_PATH` confirms it; and the RPC method ids and checksum of a node
//! (`SceneRPCInterface::_get_node_config` / `get_rpc_md5`).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use md5::{Digest, Md5};

use crate::wire::{invalid, put_cstr, Command, Protocol, Span, WireStr};
use gdvariant::error::Result;

/// The length of a checksum: 32 lowercase hex digits.
const CHECKSUM_LEN: usize = 32;
/// `[01][checksum][NUL][u32 id]`: what precedes the path.
const SIMPLIFY_HEADER: usize = 1 + CHECKSUM_LEN + 1 + 4;

/// A `SIMPLIFY_PATH` packet: the sender will name the node at [`path`](SimplifyPath::path) by
/// [`id`](SimplifyPath::id) from now on; [`checksum`](SimplifyPath::checksum) is the MD5 of the
/// node's RPC method names, which the receiver compares with its own.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, simplify_path, Packet, RpcMethods};
/// let methods = RpcMethods::new(["move_to", "chat"]);
/// let bytes = simplify_path(&methods.checksum(), 7, "World/Player")?;
/// let Packet::SimplifyPath(p) = multiplayer::parse(&bytes)? else { unreachable!() };
/// assert_eq!((p.id(), p.path().as_str()), (7, Some("World/Player")));
/// assert!(methods.matches(&p));
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SimplifyPath<'a> {
    pub(crate) p: Span<'a>,
}

impl<'a> SimplifyPath<'a> {
    pub(crate) fn parse(p: Span<'a>) -> Result<SimplifyPath<'a>> {
        p.need(SIMPLIFY_HEADER)?;
        Ok(SimplifyPath { p })
    }

    /// The 32 bytes of the checksum (lowercase hex when the engine wrote them).
    pub fn checksum(&self) -> &'a [u8] {
        &self.p.data[1..1 + CHECKSUM_LEN]
    }

    /// The cache id the sender gives the path.
    pub fn id(&self) -> u32 {
        self.p.u32_at(1 + CHECKSUM_LEN + 1)
    }

    /// The node's path, relative to the multiplayer root.
    pub fn path(&self) -> WireStr<'a> {
        self.p.cstr(SIMPLIFY_HEADER)
    }
}

/// A `CONFIRM_PATH` packet: the receiver of a `SIMPLIFY_PATH` acknowledges it, saying whether the
/// checksums matched. Godot 4.3+ names the entry by id ([`Protocol::V4_3`], 6 bytes exactly),
/// 4.0–4.2 by path ([`Protocol::V4_0`]).
#[derive(Clone, Copy, Debug)]
pub struct ConfirmPath<'a> {
    pub(crate) p: Span<'a>,
    protocol: Protocol,
}

impl<'a> ConfirmPath<'a> {
    pub(crate) fn parse(p: Span<'a>, protocol: Protocol) -> Result<ConfirmPath<'a>> {
        match protocol {
            Protocol::V4_0 => p.need(3)?,
            _ => {
                p.need(6)?;
                if p.data.len() > 6 {
                    return Err(invalid("CONFIRM_PATH longer than 6 bytes", p.base + 6));
                }
            }
        }
        Ok(ConfirmPath { p, protocol })
    }

    /// Whether the receiver's checksum matched (its byte is non-zero).
    pub fn valid(&self) -> bool {
        self.p.byte(1) != 0
    }

    /// The protocol the packet was read with.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The confirmed cache id (4.3+).
    pub fn id(&self) -> Option<u32> {
        match self.protocol {
            Protocol::V4_0 => None,
            _ => Some(self.p.u32_at(2)),
        }
    }

    /// The confirmed path (4.0–4.2).
    pub fn path(&self) -> Option<WireStr<'a>> {
        match self.protocol {
            Protocol::V4_0 => Some(self.p.cstr(2)),
            _ => None,
        }
    }
}

/// Builds a `SIMPLIFY_PATH` packet as the engine does: the checksum (see
/// [`RpcMethods::checksum`]), its NUL, the id, the path and its NUL.
pub fn simplify_path(checksum: &[u8; 32], id: u32, path: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(SIMPLIFY_HEADER + path.len() + 1);
    out.push(Command::SimplifyPath as u8);
    put_cstr(&mut out, checksum)?;
    out.extend_from_slice(&id.to_le_bytes());
    put_cstr(&mut out, path.as_bytes())?;
    Ok(out)
}

/// Builds a Godot 4.3+ `CONFIRM_PATH` packet: `[02][valid][u32 id]`.
pub fn confirm_path(valid: bool, id: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(6);
    out.push(Command::ConfirmPath as u8);
    out.push(u8::from(valid));
    out.extend_from_slice(&id.to_le_bytes());
    out
}

/// Builds a Godot 4.0–4.2 `CONFIRM_PATH` packet: `[02][valid][path + NUL]`.
pub fn confirm_path_v4_0(valid: bool, path: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(3 + path.len());
    out.push(Command::ConfirmPath as u8);
    out.push(u8::from(valid));
    put_cstr(&mut out, path.as_bytes())?;
    Ok(out)
}

/// The RPC methods of a node, as the engine numbers them: the names of the script's `@rpc`
/// methods sorted by code point get ids 0, 1, 2, …; methods configured on the node with
/// `Node.rpc_config` are numbered apart, sorted too, with bit 15 set (`0x8000`, `0x8001`, …).
///
/// [`checksum`](RpcMethods::checksum) is what `SIMPLIFY_PATH` carries: the MD5 (lowercase hex) of
/// all names concatenated, the node's own first.
///
/// ```
/// use gdvariant_multiplayer::RpcMethods;
/// let m = RpcMethods::new(["take_damage", "Jump", "fire"]).with_node_methods(["sync_pos"]);
/// assert_eq!(m.id("Jump"), Some(0));          // 'J' sorts before lowercase letters
/// assert_eq!(m.id("take_damage"), Some(2));
/// assert_eq!(m.id("sync_pos"), Some(0x8000));
/// assert_eq!(m.name(1), Some("fire"));
/// assert_eq!(RpcMethods::new::<[&str; 0]>([]).checksum_str(), "d41d8cd98f00b204e9800998ecf8427e");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RpcMethods {
    script: Vec<String>,
    node: Vec<String>,
}

impl RpcMethods {
    /// The methods of a script's `@rpc` annotations, in any order (duplicates count once).
    pub fn new<I>(script_methods: I) -> RpcMethods
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        RpcMethods {
            script: sorted(script_methods),
            node: Vec::new(),
        }
    }

    /// Adds the methods configured with `Node.rpc_config` (native RPCs).
    #[must_use]
    pub fn with_node_methods<I>(mut self, node_methods: I) -> RpcMethods
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        self.node = sorted(node_methods);
        self
    }

    /// The method with id `id`.
    pub fn name(&self, id: u16) -> Option<&str> {
        let list = if id & 0x8000 != 0 {
            &self.node
        } else {
            &self.script
        };
        list.get(usize::from(id & 0x7FFF)).map(String::as_str)
    }

    /// The id of method `name` (the script's first, as the engine looks names up).
    pub fn id(&self, name: &str) -> Option<u16> {
        if let Ok(i) = self.script.binary_search_by(|m| m.as_str().cmp(name)) {
            return u16::try_from(i).ok();
        }
        let i = self.node.binary_search_by(|m| m.as_str().cmp(name)).ok()?;
        u16::try_from(i).ok().map(|i| i | 0x8000)
    }

    /// The names in the engine's order: the node's own (by id), then the script's (by id).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.node.iter().chain(&self.script).map(String::as_str)
    }

    /// The checksum `SIMPLIFY_PATH` carries: 32 lowercase hex digits.
    pub fn checksum(&self) -> [u8; 32] {
        let mut h = Md5::new();
        for name in self.names() {
            h.update(name.as_bytes());
        }
        let digest = h.finalize();
        let mut out = [0u8; 32];
        for (i, b) in digest.iter().enumerate() {
            out[2 * i] = HEX[usize::from(b >> 4)];
            out[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        out
    }

    /// The checksum as a string.
    pub fn checksum_str(&self) -> String {
        self.checksum().iter().map(|&b| char::from(b)).collect()
    }

    /// Whether a `SIMPLIFY_PATH` packet's checksum is this list's (the receiver's check).
    pub fn matches(&self, p: &SimplifyPath<'_>) -> bool {
        p.checksum() == self.checksum()
    }
}

impl fmt::Display for RpcMethods {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn sorted<I>(names: I) -> Vec<String>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let mut v: Vec<String> = names
        .into_iter()
        .map(|n| String::from(n.as_ref()))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}
