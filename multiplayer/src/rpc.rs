//! `REMOTE_CALL`: an `@rpc` call (`SceneRPCInterface`).

use alloc::vec::Vec;

use super::value::{Arg, Values};
use crate::wire::{invalid, len_u32, put_cstr, Command, PacketOptions, Span, WireStr};
use gdvariant::encode::EncodeOptions;
use gdvariant::error::Result;
use gdvariant::types::Dialect;

const NODE_ID_SHIFT: u8 = 4;
const METHOD_ID_SHIFT: u8 = 6;
const BYTE_ONLY: u8 = 1 << 7;
/// Bit 31 of a 32-bit node id: the rest is the offset of the node's path in the packet.
const INLINE_PATH: u32 = 0x8000_0000;

/// The bytes of a call's node id field, from its meta byte: 1, 2 or 4; `None` for the invalid
/// width 3.
fn node_width(meta: u8) -> Option<usize> {
    match (meta >> NODE_ID_SHIFT) & 3 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    }
}

/// The node an RPC is for, as a packet names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeTarget<'a> {
    /// The id the sender gave the node's path in a `SIMPLIFY_PATH` packet.
    Id(u32),
    /// The node's path relative to the multiplayer root, sent inline because the receiver had
    /// not confirmed the path yet.
    Path(WireStr<'a>),
}

/// A `REMOTE_CALL` packet: node, method id and arguments.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, NodeTarget, Packet, RemoteCallBuilder, Target};
/// use gdvariant::Variant;
/// // rpc("ping") on node "Lobby/Chat", before the peer confirmed its path: no arguments, so
/// // byte-only; the path travels at the end.
/// let bytes = RemoteCallBuilder::new(Target::Path("Lobby/Chat"), 0).finish()?;
/// assert_eq!(bytes[..6], [0xA0, 6, 0, 0, 0x80, 0]);
/// let Packet::RemoteCall(call) = multiplayer::parse(&bytes)? else { unreachable!() };
/// let NodeTarget::Path(path) = call.node() else { unreachable!() };
/// assert_eq!(path.as_str(), Some("Lobby/Chat"));
/// assert_eq!((call.method(), call.args().count()), (0, 0));
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RemoteCall<'a> {
    pub(crate) p: Span<'a>,
    node: u32,
    method: u16,
    /// Where the arguments (or the argument count) start.
    args_at: usize,
    /// Where the arguments end: the inline path's offset, or the packet's end.
    args_end: usize,
    opts: PacketOptions,
}

impl<'a> RemoteCall<'a> {
    pub(crate) fn parse(p: Span<'a>, opts: &PacketOptions) -> Result<RemoteCall<'a>> {
        let meta = p.byte(0);
        let Some(node_len) = node_width(meta) else {
            return Err(invalid("node id width 3 (not 8, 16 or 32 bits)", p.base));
        };
        let method_len = 1 + usize::from((meta >> METHOD_ID_SHIFT) & 1);
        let args_at = 1 + node_len + method_len;
        p.need(args_at)?;
        let node = match node_len {
            1 => u32::from(p.byte(1)),
            2 => u32::from(p.u16_at(1)),
            _ => p.u32_at(1),
        };
        let method = match method_len {
            1 => u16::from(p.byte(1 + node_len)),
            _ => p.u16_at(1 + node_len),
        };
        let mut args_end = p.data.len();
        if node_len == 4 && node & INLINE_PATH != 0 {
            let at = (node & !INLINE_PATH) as usize;
            if at >= p.data.len() {
                return Err(invalid("inline node path offset past the end", p.base + 1));
            }
            if at < args_at {
                return Err(invalid(
                    "inline node path offset inside the header",
                    p.base + 1,
                ));
            }
            args_end = at;
        }
        if meta & BYTE_ONLY == 0 && args_at >= args_end {
            return Err(if args_end == p.data.len() {
                crate::cursor::eof(p.base + args_at, 1)
            } else {
                invalid(
                    "argument count missing before the inline path",
                    p.base + args_at,
                )
            });
        }
        Ok(RemoteCall {
            p,
            node,
            method,
            args_at,
            args_end,
            opts: *opts,
        })
    }

    /// The cache id of the node a `REMOTE_CALL` packet's header names, read from the header
    /// alone: what [`node`](Self::node) gives as [`NodeTarget::Id`] once the packet is parsed
    /// (a capture reader looks up the node's path with it, without parsing the rest). `None`
    /// for another packet, a node sent by path, or a cut or malformed header; `Some` does not
    /// say that the rest of the packet parses.
    pub fn node_id_of(packet: &[u8]) -> Option<u32> {
        let (&meta, rest) = packet.split_first()?;
        if Command::from_byte(meta) != Command::RemoteCall {
            return None;
        }
        let n = node_width(meta)?;
        let mut b = [0u8; 4];
        b[..n].copy_from_slice(rest.get(..n)?);
        Some(u32::from_le_bytes(b)).filter(|id| n < 4 || id & INLINE_PATH == 0)
    }

    /// The node: a cache id or an inline path.
    pub fn node(&self) -> NodeTarget<'a> {
        match self.path_offset() {
            Some(at) => NodeTarget::Path(self.p.cstr(at)),
            None => NodeTarget::Id(self.node),
        }
    }

    /// The node's cache id, `None` when the path is inline.
    pub fn node_id(&self) -> Option<u32> {
        match self.path_offset() {
            Some(_) => None,
            None => Some(self.node),
        }
    }

    /// How many bytes hold the node id field (1, 2 or 4; always 4 with an inline path).
    pub fn node_id_width(&self) -> usize {
        // (A parsed call's width is never the invalid 3.)
        node_width(self.meta()).unwrap_or(4)
    }

    /// The method id: the index in the node's sorted `@rpc` method list (bit 15 set for
    /// `Node.rpc_config` methods); see [`RpcMethods`](super::RpcMethods).
    pub fn method(&self) -> u16 {
        self.method
    }

    /// How many bytes hold the method id (1 or 2).
    pub fn method_id_width(&self) -> usize {
        1 + usize::from((self.meta() >> METHOD_ID_SHIFT) & 1)
    }

    /// Whether the byte-only flag is set: no argument count; the arguments are none (nothing
    /// follows) or one `PackedByteArray` (its bytes follow, raw).
    pub fn is_byte_only(&self) -> bool {
        self.meta() & BYTE_ONLY != 0
    }

    /// The declared argument count: the count byte, or 0 / 1 for a byte-only call.
    pub fn arg_count(&self) -> usize {
        if self.is_byte_only() {
            usize::from(self.args_at < self.args_end)
        } else {
            usize::from(self.p.byte(self.args_at))
        }
    }

    /// The arguments, read lazily (a byte-only call's one argument is a
    /// [`Value::Bytes`](super::Value::Bytes)).
    pub fn args(&self) -> Values<'a> {
        let read = self.opts.values_g4();
        if self.is_byte_only() {
            let s = self.p.slice(self.args_at, self.args_end);
            Values::raw_bytes(s.data, s.base)
        } else {
            let s = self.p.slice(self.args_at + 1, self.args_end);
            Values::compressed(s.data, s.base, Some(self.arg_count()), read)
        }
    }

    /// The relative offset of the inline path, when the node is sent by path.
    pub fn path_offset(&self) -> Option<usize> {
        (self.args_end < self.p.data.len()).then_some(self.args_end)
    }

    fn meta(&self) -> u8 {
        self.p.byte(0)
    }
}

/// How a built RPC names its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// A confirmed cache id, in the fewest bytes that hold it (what the engine sends when every
    /// target peer has confirmed the path). At most `0x7FFFFFFF`.
    Id(u32),
    /// A confirmed cache id always in 32 bits: what the engine sends to a peer that confirmed
    /// the path while another target of the same call has not.
    Id32(u32),
    /// The node's path relative to the multiplayer root, inline: what the engine sends to a peer
    /// that has not confirmed the path yet.
    Path(&'a str),
}

/// Builds a `REMOTE_CALL` packet byte for byte as the engine's `SceneRPCInterface::_send_rpc`:
/// node id in 8, 16 or 32 bits, method id in 8 or 16, arguments compressed after their count,
/// or byte-only when there are none or exactly one `PackedByteArray`.
///
/// ```
/// use gdvariant_multiplayer::{RemoteCallBuilder, Target};
/// use gdvariant::Variant;
/// // One PackedByteArray argument: byte-only, the bytes raw.
/// let b = RemoteCallBuilder::new(Target::Id(300), 2)
///     .arg(&Variant::PackedByteArray(vec![9, 8, 7]))?
///     .finish()?;
/// assert_eq!(b, [0x90, 0x2C, 0x01, 2, 9, 8, 7]);
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RemoteCallBuilder<'t> {
    target: Target<'t>,
    method: u16,
    opts: EncodeOptions,
    args: Vec<u8>,
    argc: usize,
    /// The first argument's bytes when it is a PackedByteArray (sent raw if it stays alone).
    single_bytes: Option<Vec<u8>>,
}

impl<'t> RemoteCallBuilder<'t> {
    /// A call of method id `method` on `target`, with no arguments yet.
    pub fn new(target: Target<'t>, method: u16) -> RemoteCallBuilder<'t> {
        RemoteCallBuilder {
            target,
            method,
            opts: EncodeOptions::new(),
            args: Vec::new(),
            argc: 0,
            single_bytes: None,
        }
    }

    /// Chooses how values are encoded (double precision; full objects, for a receiver with
    /// `allow_object_decoding`). The dialect is always Godot 4.
    #[must_use]
    pub fn with_options(mut self, opts: EncodeOptions) -> RemoteCallBuilder<'t> {
        self.opts = opts.with_dialect(Dialect::Godot4);
        self
    }

    /// Appends an argument. At most 255 (the engine's limit).
    pub fn arg<A: Arg + ?Sized>(mut self, a: &A) -> Result<RemoteCallBuilder<'t>> {
        if self.argc == 255 {
            return Err(invalid("more than 255 RPC arguments", 0));
        }
        if self.argc == 0 {
            self.single_bytes = a.packed_bytes().map(<[u8]>::to_vec);
        }
        a.write_compressed(&mut self.args, &self.opts)?;
        self.argc += 1;
        Ok(self)
    }

    /// Appends every argument of `args`.
    pub fn args<A: Arg>(mut self, args: &[A]) -> Result<RemoteCallBuilder<'t>> {
        for a in args {
            self = self.arg(a)?;
        }
        Ok(self)
    }

    /// The packet.
    pub fn finish(self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(8 + self.args.len());
        out.push(0);
        let node_width: u8 = match self.target {
            Target::Id(id) if id <= 0xFF => {
                out.push(id as u8);
                0
            }
            Target::Id(id) if id <= 0xFFFF => {
                out.extend_from_slice(&(id as u16).to_le_bytes());
                1
            }
            Target::Id(id) | Target::Id32(id) => {
                if id & INLINE_PATH != 0 {
                    return Err(invalid("node cache id with bit 31 set", 1));
                }
                out.extend_from_slice(&id.to_le_bytes());
                2
            }
            Target::Path(_) => {
                out.extend_from_slice(&[0; 4]);
                2
            }
        };
        let method_width: u8 = if self.method <= 0xFF {
            out.push(self.method as u8);
            0
        } else {
            out.extend_from_slice(&self.method.to_le_bytes());
            1
        };
        let byte_only = match (self.argc, &self.single_bytes) {
            (0, _) => true,
            (1, Some(bytes)) => {
                out.extend_from_slice(bytes);
                true
            }
            _ => {
                out.push(self.argc as u8);
                out.extend_from_slice(&self.args);
                false
            }
        };
        if let Target::Path(path) = self.target {
            let at = len_u32(out.len())?;
            out[1..5].copy_from_slice(&(INLINE_PATH | at).to_le_bytes());
            put_cstr(&mut out, path.as_bytes())?;
        }
        out[0] = node_width << NODE_ID_SHIFT
            | method_width << METHOD_ID_SHIFT
            | if byte_only { BYTE_ONLY } else { 0 };
        Ok(out)
    }
}
