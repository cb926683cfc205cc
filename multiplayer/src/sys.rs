//! `SYS` (authentication, peer lists, relaying) and `RAW` packets (`SceneMultiplayer`).

use alloc::vec::Vec;

use crate::wire::{invalid, Command, PacketOptions, Span};
use gdvariant::error::Result;

const AUTH: u8 = 0;
const ADD_PEER: u8 = 1;
const DEL_PEER: u8 = 2;
const RELAY: u8 = 3;
/// `[07][sub][i32 peer]` (`SYS_CMD_SIZE`).
pub(crate) const SYS_CMD_SIZE: usize = 6;

/// What a [`Sys`] packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SysKind {
    /// `[07][00][data]`: authentication data (`send_auth`), passed to the receiver's
    /// `auth_callback`.
    Auth,
    /// `[07][00]`: the sender completed the authentication (`complete_auth`).
    AuthComplete,
    /// `[07][01][i32 peer]`: the server tells a client that `peer` joined (server relay).
    AddPeer,
    /// `[07][02][i32 peer]`: the server tells a client that `peer` left (server relay).
    DelPeer,
    /// `[07][03][i32 peer][packet]`: a packet relayed by the server. From a client to the server,
    /// `peer` is the target (0 all, `-n` all but `n`); from the server to a client, the source.
    Relay,
}

impl SysKind {
    /// The engine's name without its `SYS_COMMAND_` prefix (`AUTH_COMPLETE` for an empty AUTH).
    pub const fn name(self) -> &'static str {
        match self {
            SysKind::Auth => "AUTH",
            SysKind::AuthComplete => "AUTH_COMPLETE",
            SysKind::AddPeer => "ADD_PEER",
            SysKind::DelPeer => "DEL_PEER",
            SysKind::Relay => "RELAY",
        }
    }
}

/// A `SYS` packet.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, raw, relay, Packet, SysKind};
/// // A client broadcasts raw bytes through the server: the server relays them to the others.
/// let bytes = relay(0, &raw(b"hi")?)?;
/// assert_eq!(bytes, [0x07, 0x03, 0, 0, 0, 0, 0x03, b'h', b'i']);
/// let Packet::Sys(sys) = multiplayer::parse(&bytes)? else { unreachable!() };
/// assert_eq!((sys.kind(), sys.peer()), (SysKind::Relay, Some(0)));
/// let Some(Ok(Packet::Raw(inner))) = sys.inner() else { unreachable!() };
/// assert_eq!((inner.payload(), inner.offset()), (&b"hi"[..], 6));
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Sys<'a> {
    pub(crate) p: Span<'a>,
    pub(crate) kind: SysKind,
    pub(crate) opts: PacketOptions,
}

impl<'a> Sys<'a> {
    pub(crate) fn parse(p: Span<'a>, opts: &PacketOptions) -> Result<Sys<'a>> {
        p.need(2)?;
        let kind = match p.byte(1) {
            AUTH if p.data.len() == 2 => SysKind::AuthComplete,
            AUTH => SysKind::Auth,
            ADD_PEER => SysKind::AddPeer,
            DEL_PEER => SysKind::DelPeer,
            RELAY => SysKind::Relay,
            _ => return Err(invalid("unknown SYS command", p.base + 1)),
        };
        match kind {
            SysKind::Auth | SysKind::AuthComplete => {}
            SysKind::Relay => p.need(SYS_CMD_SIZE + 1)?,
            _ => p.need(SYS_CMD_SIZE)?,
        }
        Ok(Sys {
            p,
            kind,
            opts: *opts,
        })
    }

    /// What the packet is.
    pub fn kind(&self) -> SysKind {
        self.kind
    }

    /// The peer id of ADD_PEER, DEL_PEER and RELAY.
    pub fn peer(&self) -> Option<i32> {
        match self.kind {
            SysKind::AddPeer | SysKind::DelPeer | SysKind::Relay => Some(self.p.u32_at(2) as i32),
            _ => None,
        }
    }

    /// The authentication data of AUTH.
    pub fn auth_data(&self) -> Option<&'a [u8]> {
        (self.kind == SysKind::Auth).then(|| &self.p.data[2..])
    }

    /// The relayed packet's bytes.
    pub fn inner_bytes(&self) -> Option<&'a [u8]> {
        (self.kind == SysKind::Relay).then(|| &self.p.data[SYS_CMD_SIZE..])
    }
}

/// A `RAW` packet: bytes sent with `SceneMultiplayer.send_bytes`, which the receiver emits with
/// its `peer_packet` signal.
#[derive(Clone, Copy, Debug)]
pub struct Raw<'a> {
    pub(crate) p: Span<'a>,
}

impl<'a> Raw<'a> {
    pub(crate) fn parse(p: Span<'a>) -> Result<Raw<'a>> {
        p.need(2)?;
        Ok(Raw { p })
    }

    /// The bytes.
    pub fn payload(&self) -> &'a [u8] {
        &self.p.data[1..]
    }

    /// The absolute offset of the packet's first byte.
    pub fn offset(&self) -> usize {
        self.p.base
    }
}

/// Builds an AUTH packet carrying `data` (at least one byte: empty data is
/// [`auth_complete`]).
pub fn auth(data: &[u8]) -> Result<Vec<u8>> {
    if data.is_empty() {
        return Err(invalid("empty authentication data", 2));
    }
    let mut out = Vec::with_capacity(2 + data.len());
    out.extend_from_slice(&[Command::Sys as u8, AUTH]);
    out.extend_from_slice(data);
    Ok(out)
}

/// Builds the packet that completes an authentication: `[07][00]`.
pub fn auth_complete() -> Vec<u8> {
    alloc::vec![Command::Sys as u8, AUTH]
}

/// Builds an ADD_PEER packet.
pub fn add_peer(peer: i32) -> Vec<u8> {
    sys_peer(ADD_PEER, peer)
}

/// Builds a DEL_PEER packet.
pub fn del_peer(peer: i32) -> Vec<u8> {
    sys_peer(DEL_PEER, peer)
}

fn sys_peer(sub: u8, peer: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(SYS_CMD_SIZE);
    out.extend_from_slice(&[Command::Sys as u8, sub]);
    out.extend_from_slice(&peer.to_le_bytes());
    out
}

/// Builds a RELAY packet around `inner` (a packet that is not SYS): to the server, `peer` is the
/// target (0 all, `-n` all but `n`); from the server, the source.
pub fn relay(peer: i32, inner: &[u8]) -> Result<Vec<u8>> {
    match inner.first() {
        None => return Err(invalid("empty relayed packet", SYS_CMD_SIZE)),
        Some(&b) if Command::from_byte(b) == Command::Sys => {
            return Err(invalid("SYS packet inside a relay", SYS_CMD_SIZE))
        }
        _ => {}
    }
    let mut out = sys_peer(RELAY, peer);
    out.extend_from_slice(inner);
    Ok(out)
}

/// Builds a RAW packet (`send_bytes`): `[03][bytes]`, at least one byte.
pub fn raw(bytes: &[u8]) -> Result<Vec<u8>> {
    if bytes.is_empty() {
        return Err(invalid("empty raw packet", 1));
    }
    let mut out = Vec::with_capacity(1 + bytes.len());
    out.push(Command::Raw as u8);
    out.extend_from_slice(bytes);
    Ok(out)
}
