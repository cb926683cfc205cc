//! What Godot puts on ENet: the peer id in `CONNECT`'s `data`, the channels and packet flags of
//! each transfer mode (Godot 4's `ENetMultiplayerPeer`, Godot 3's `NetworkedMultiplayerENet`),
//! Godot 3's 8-byte header before every packet and its config messages on channel 0.
//!
//! | | Godot 4 | Godot 3 |
//! |---|---|---|
//! | reliable | channel 0, `RELIABLE` | channel 1, `RELIABLE` |
//! | unreliable | channel 1, `UNSEQUENCED \| UNRELIABLE_FRAGMENT` | channel 2, `UNSEQUENCED` (0 with `always_ordered`) |
//! | unreliable ordered | channel 1, `UNRELIABLE_FRAGMENT` | channel 2, no flag |
//! | transfer channel n > 0 | ENet channel n + 1, same flags | — |
//! | before the packet | nothing | `[source u32 LE][target i32 LE]` |
//! | channel 0 | reliable packets | config: `[msg u32 LE][id u32 LE]`, server to client |
//!
//! A received packet's transfer mode is what its ENet flags say (Godot 4's `_store_packet`):
//! `RELIABLE` reliable, else `UNSEQUENCED` unreliable, else unreliable ordered. ENet gives a
//! packet those flags by the command that carried it (see [`received_mode`]): an unreliable
//! packet sent in fragments arrives without `UNSEQUENCED`, so Godot 4 reports it as unreliable
//! ordered.

use gdvariant::error::Result;

use super::protocol::CommandKind;
use crate::cursor::eof;
use crate::wire::invalid;

/// `ENET_PACKET_FLAG_RELIABLE`.
pub const PACKET_FLAG_RELIABLE: u32 = 1 << 0;
/// `ENET_PACKET_FLAG_UNSEQUENCED`.
pub const PACKET_FLAG_UNSEQUENCED: u32 = 1 << 1;
/// `ENET_PACKET_FLAG_NO_ALLOCATE`.
pub const PACKET_FLAG_NO_ALLOCATE: u32 = 1 << 2;
/// `ENET_PACKET_FLAG_UNRELIABLE_FRAGMENT`.
pub const PACKET_FLAG_UNRELIABLE_FRAGMENT: u32 = 1 << 3;

/// Godot 4's `SYSCH_RELIABLE`.
pub const SYSCH_RELIABLE: u8 = 0;
/// Godot 4's `SYSCH_UNRELIABLE`.
pub const SYSCH_UNRELIABLE: u8 = 1;
/// Godot 4's `SYSCH_MAX`: transfer channel n > 0 is ENet channel `SYSCH_MAX + n - 1`.
pub const SYSCH_MAX: u8 = 2;
/// Godot 3's `SYSCH_CONFIG`.
pub const SYSCH3_CONFIG: u8 = 0;
/// Godot 3's `SYSCH_RELIABLE`.
pub const SYSCH3_RELIABLE: u8 = 1;
/// Godot 3's `SYSCH_UNRELIABLE`.
pub const SYSCH3_UNRELIABLE: u8 = 2;
/// Godot 3's `SYSMSG_ADD_PEER`.
pub const SYSMSG_ADD_PEER: u32 = 0;
/// Godot 3's `SYSMSG_REMOVE_PEER`.
pub const SYSMSG_REMOVE_PEER: u32 = 1;

/// `MultiplayerPeer.TransferMode` (Godot 3: `NetworkedMultiplayerPeer.TransferMode`), with the
/// engine's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum TransferMode {
    /// `TRANSFER_MODE_UNRELIABLE`.
    Unreliable = 0,
    /// `TRANSFER_MODE_UNRELIABLE_ORDERED`.
    UnreliableOrdered = 1,
    /// `TRANSFER_MODE_RELIABLE`.
    Reliable = 2,
}

impl TransferMode {
    /// The engine's name without its `TRANSFER_MODE_` prefix.
    pub const fn name(self) -> &'static str {
        match self {
            TransferMode::Unreliable => "UNRELIABLE",
            TransferMode::UnreliableOrdered => "UNRELIABLE_ORDERED",
            TransferMode::Reliable => "RELIABLE",
        }
    }
}

/// The flags ENet gives a packet received in a command of this kind (the callers of
/// `enet_peer_queue_incoming_command`); `None` for the commands that carry no packet.
pub const fn received_flags(kind: CommandKind) -> Option<u32> {
    Some(match kind {
        CommandKind::SendReliable | CommandKind::SendFragment => PACKET_FLAG_RELIABLE,
        CommandKind::SendUnsequenced => PACKET_FLAG_UNSEQUENCED,
        CommandKind::SendUnreliable => 0,
        CommandKind::SendUnreliableFragment => PACKET_FLAG_UNRELIABLE_FRAGMENT,
        _ => return None,
    })
}

/// The transfer mode Godot 4 reports for a packet received in a command of this kind (from the
/// packet's flags, as `ENetMultiplayerPeer::_store_packet` does); `None` for the commands that
/// carry no packet.
pub const fn received_mode(kind: CommandKind) -> Option<TransferMode> {
    match received_flags(kind) {
        Some(f) if f & PACKET_FLAG_RELIABLE != 0 => Some(TransferMode::Reliable),
        Some(f) if f & PACKET_FLAG_UNSEQUENCED != 0 => Some(TransferMode::Unreliable),
        Some(_) => Some(TransferMode::UnreliableOrdered),
        None => None,
    }
}

/// Where a Godot 4 packet went: transfer channel and mode, as `get_packet_channel` and
/// `get_packet_mode` report them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Received {
    /// The transfer channel (0 for ENet channels 0 and 1, else the ENet channel less 1).
    pub transfer_channel: u8,
    /// The transfer mode.
    pub mode: TransferMode,
}

/// What Godot 4 reports for a packet that came on ENet channel `channel_id` in a command of kind
/// `kind` (`None` for the commands that carry no packet).
pub const fn receive4(channel_id: u8, kind: CommandKind) -> Option<Received> {
    let Some(mode) = received_mode(kind) else {
        return None;
    };
    let transfer_channel = if channel_id >= SYSCH_MAX {
        channel_id - SYSCH_MAX + 1
    } else {
        0
    };
    Some(Received {
        transfer_channel,
        mode,
    })
}

/// How a packet is sent: the ENet channel and the packet flags given to `enet_peer_send`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Send {
    /// The ENet channel.
    pub channel_id: u8,
    /// The `ENET_PACKET_FLAG_*` bits.
    pub flags: u32,
}

/// How Godot 4's `ENetMultiplayerPeer::put_packet` sends a packet of mode `mode` on transfer
/// channel `transfer_channel` (`None` when the channel is past ENet's 255: the engine asks for
/// `channel_count + 2` channels, at most 255).
pub const fn send4(mode: TransferMode, transfer_channel: u8) -> Option<Send> {
    let (channel_id, flags) = match mode {
        TransferMode::Unreliable => (
            SYSCH_UNRELIABLE,
            PACKET_FLAG_UNSEQUENCED | PACKET_FLAG_UNRELIABLE_FRAGMENT,
        ),
        TransferMode::UnreliableOrdered => (SYSCH_UNRELIABLE, PACKET_FLAG_UNRELIABLE_FRAGMENT),
        TransferMode::Reliable => (SYSCH_RELIABLE, PACKET_FLAG_RELIABLE),
    };
    let channel_id = if transfer_channel > 0 {
        if transfer_channel > 254 - (SYSCH_MAX - 1) {
            return None;
        }
        SYSCH_MAX + transfer_channel - 1
    } else {
        channel_id
    };
    Some(Send { channel_id, flags })
}

/// How Godot 3's `NetworkedMultiplayerENet::put_packet` sends a packet of mode `mode`
/// (`always_ordered` makes unreliable packets sequenced). Godot 3 has no transfer channels before
/// 3.5's `transfer_channel`, which this does not cover.
pub const fn send3(mode: TransferMode, always_ordered: bool) -> Send {
    match mode {
        TransferMode::Unreliable => Send {
            channel_id: SYSCH3_UNRELIABLE,
            flags: if always_ordered {
                0
            } else {
                PACKET_FLAG_UNSEQUENCED
            },
        },
        TransferMode::UnreliableOrdered => Send {
            channel_id: SYSCH3_UNRELIABLE,
            flags: 0,
        },
        TransferMode::Reliable => Send {
            channel_id: SYSCH3_RELIABLE,
            flags: PACKET_FLAG_RELIABLE,
        },
    }
}

/// The command `enet_peer_send` puts a packet of `len` bytes with `flags` in, when the peer's
/// fragment length (its MTU less the protocol and fragment headers, 1392 − 28 = 1364 at ENet's
/// default MTU) is `fragment_length`: the fragment commands above it, else `SEND_UNSEQUENCED`,
/// `SEND_RELIABLE` or `SEND_UNRELIABLE`. (ENet also goes reliable when a channel's 16-bit
/// unreliable sequence number runs out, which this does not know.)
pub const fn send_command(flags: u32, len: usize, fragment_length: usize) -> CommandKind {
    let reliable = flags & PACKET_FLAG_RELIABLE != 0;
    if len > fragment_length {
        if !reliable && flags & PACKET_FLAG_UNRELIABLE_FRAGMENT != 0 {
            CommandKind::SendUnreliableFragment
        } else {
            CommandKind::SendFragment
        }
    } else if !reliable && flags & PACKET_FLAG_UNSEQUENCED != 0 {
        CommandKind::SendUnsequenced
    } else if reliable {
        CommandKind::SendReliable
    } else {
        CommandKind::SendUnreliable
    }
}

/// The Godot peer id a client asks for in its `CONNECT`'s `data`, if the server would take it:
/// `ENetMultiplayerPeer` (and Godot 3's `NetworkedMultiplayerENet`) reset a peer whose `data`
/// is below 2 (or already in use, which depends on the server's state). Clients pick their id
/// with `generate_unique_id`, 31 random bits.
pub const fn connect_peer_id(data: u32) -> Option<u32> {
    if data < 2 {
        None
    } else {
        Some(data)
    }
}

/// Godot 3's header before every packet on channels 1 and up: who sent it and to whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header3 {
    /// The sender's peer id (the server checks it against the sending peer's).
    pub source: u32,
    /// The target: a peer id, 0 for everyone, −id for everyone but id.
    pub target: i32,
}

impl Header3 {
    /// Splits a Godot 3 data packet into its header and the `MultiplayerAPI` packet after it (an
    /// error below 8 bytes, which the engine drops as "Invalid packet size").
    pub fn split(packet: &[u8]) -> Result<(Header3, &[u8])> {
        let Some((h, rest)) = packet.split_first_chunk::<8>() else {
            return Err(eof(packet.len(), 8 - packet.len()));
        };
        let source = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let target = i32::from_le_bytes([h[4], h[5], h[6], h[7]]);
        Ok((Header3 { source, target }, rest))
    }

    /// The 8 bytes of the header.
    pub fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0; 8];
        b[..4].copy_from_slice(&self.source.to_le_bytes());
        b[4..].copy_from_slice(&self.target.to_le_bytes());
        b
    }
}

/// A Godot 3 config message: what the server tells a client on channel 0 of the other peers
/// (when `server_relay` is on, the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Config3 {
    /// `SYSMSG_ADD_PEER`: the peer joined.
    AddPeer(u32),
    /// `SYSMSG_REMOVE_PEER`: the peer left.
    RemovePeer(u32),
    /// Another message number, which the client ignores.
    Other {
        /// The message number.
        msg: u32,
        /// The id.
        id: u32,
    },
}

impl Config3 {
    /// Reads a config message: exactly 8 bytes, `[msg u32 LE][id u32 LE]` (the client drops any
    /// other size).
    pub fn parse(packet: &[u8]) -> Result<Config3> {
        let Ok(b) = <[u8; 8]>::try_from(packet) else {
            return Err(invalid("Godot 3 config message not 8 bytes", 0));
        };
        let msg = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let id = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        Ok(match msg {
            SYSMSG_ADD_PEER => Config3::AddPeer(id),
            SYSMSG_REMOVE_PEER => Config3::RemovePeer(id),
            msg => Config3::Other { msg, id },
        })
    }

    /// The 8 bytes of the message.
    pub fn to_bytes(&self) -> [u8; 8] {
        let (msg, id) = match *self {
            Config3::AddPeer(id) => (SYSMSG_ADD_PEER, id),
            Config3::RemovePeer(id) => (SYSMSG_REMOVE_PEER, id),
            Config3::Other { msg, id } => (msg, id),
        };
        let mut b = [0; 8];
        b[..4].copy_from_slice(&msg.to_le_bytes());
        b[4..].copy_from_slice(&id.to_le_bytes());
        b
    }
}

/// A Godot 3 packet by its channel: a config message (channel 0) or a data packet behind its
/// header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Packet3<'a> {
    /// A config message (channel 0).
    Config(Config3),
    /// A data packet: the header and the `MultiplayerAPI` packet.
    Data(Header3, &'a [u8]),
}

impl<'a> Packet3<'a> {
    /// Reads a whole ENet packet that came on `channel_id` from a Godot 3 peer.
    pub fn parse(channel_id: u8, packet: &'a [u8]) -> Result<Packet3<'a>> {
        if channel_id == SYSCH3_CONFIG {
            Config3::parse(packet).map(Packet3::Config)
        } else {
            Header3::split(packet).map(|(h, p)| Packet3::Data(h, p))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn godot4_channels_and_modes_both_ways() {
        use TransferMode::*;
        for ch in [0u8, 1, 2, 5, 253] {
            for mode in [Unreliable, UnreliableOrdered, Reliable] {
                let s = send4(mode, ch).unwrap();
                // Small packets come back as sent; fragmented unreliable ones as ordered.
                let small = send_command(s.flags, 100, 1364);
                let big = send_command(s.flags, 5000, 1364);
                let r = receive4(s.channel_id, small).unwrap();
                assert_eq!((r.transfer_channel, r.mode), (ch, mode), "{mode:?} {ch}");
                let r = receive4(s.channel_id, big).unwrap();
                let want = if mode == Unreliable {
                    UnreliableOrdered
                } else {
                    mode
                };
                assert_eq!((r.transfer_channel, r.mode), (ch, want));
            }
        }
        assert_eq!(send4(Reliable, 253).unwrap().channel_id, 254);
        assert_eq!(send4(Reliable, 254), None);
        assert_eq!(receive4(0, CommandKind::Ping), None);
        assert_eq!(
            send_command(send4(Unreliable, 0).unwrap().flags, 3011, 1364),
            CommandKind::SendUnreliableFragment
        );
    }

    #[test]
    fn godot3_layout() {
        let s = send3(TransferMode::Unreliable, false);
        assert_eq!((s.channel_id, s.flags), (2, PACKET_FLAG_UNSEQUENCED));
        // Unreliable over the MTU without UNRELIABLE_FRAGMENT: reliable fragments.
        assert_eq!(send_command(s.flags, 3000, 1364), CommandKind::SendFragment);
        assert_eq!(send3(TransferMode::Reliable, false).channel_id, 1);
        let (h, rest) = Header3::split(&[1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 9]).unwrap();
        assert_eq!(
            (h, rest),
            (
                Header3 {
                    source: 1,
                    target: -2
                },
                &[9u8][..]
            )
        );
        assert_eq!(h.to_bytes(), [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
        assert!(Header3::split(&[1, 0, 0]).is_err());
        let c = Config3::parse(&[0, 0, 0, 0, 0x5c, 0x7f, 0x93, 0x14]).unwrap();
        assert_eq!(c, Config3::AddPeer(345210716));
        assert_eq!(Config3::parse(&c.to_bytes()).unwrap(), c);
        assert!(Config3::parse(&[0; 9]).is_err());
        assert_eq!(
            Packet3::parse(0, &Config3::RemovePeer(7).to_bytes()).unwrap(),
            Packet3::Config(Config3::RemovePeer(7))
        );
        assert_eq!(connect_peer_id(1), None);
        assert_eq!(connect_peer_id(2), Some(2));
    }
}
