//! ENet's commands (`ENetProtocolCommand` and the structs of `enet/protocol.h`): their numbers,
//! sizes and fields, named as ENet names them (in snake case), payloads borrowed. Read from a
//! datagram by [`Commands`](super::protocol::Commands).

use core::fmt;

/// `ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE`: the receiver must acknowledge the command.
pub const COMMAND_FLAG_ACKNOWLEDGE: u8 = 1 << 7;
/// `ENET_PROTOCOL_COMMAND_FLAG_UNSEQUENCED`: set on `SEND_UNSEQUENCED`.
pub const COMMAND_FLAG_UNSEQUENCED: u8 = 1 << 6;
/// `ENET_PROTOCOL_COMMAND_MASK`: the command number's bits.
pub const COMMAND_MASK: u8 = 0x0F;

/// An ENet command number (`ENetProtocolCommand`, the low four bits of a command's first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CommandKind {
    /// `ENET_PROTOCOL_COMMAND_ACKNOWLEDGE`.
    Acknowledge = 1,
    /// `ENET_PROTOCOL_COMMAND_CONNECT`.
    Connect = 2,
    /// `ENET_PROTOCOL_COMMAND_VERIFY_CONNECT`.
    VerifyConnect = 3,
    /// `ENET_PROTOCOL_COMMAND_DISCONNECT`.
    Disconnect = 4,
    /// `ENET_PROTOCOL_COMMAND_PING`.
    Ping = 5,
    /// `ENET_PROTOCOL_COMMAND_SEND_RELIABLE`.
    SendReliable = 6,
    /// `ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE`.
    SendUnreliable = 7,
    /// `ENET_PROTOCOL_COMMAND_SEND_FRAGMENT` (a fragment of a reliable packet).
    SendFragment = 8,
    /// `ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED`.
    SendUnsequenced = 9,
    /// `ENET_PROTOCOL_COMMAND_BANDWIDTH_LIMIT`.
    BandwidthLimit = 10,
    /// `ENET_PROTOCOL_COMMAND_THROTTLE_CONFIGURE`.
    ThrottleConfigure = 11,
    /// `ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT`.
    SendUnreliableFragment = 12,
}

impl CommandKind {
    /// The command whose number is `n` (the low four bits of the command byte are taken), or
    /// `None` for 0 (`NONE`) and 13–15, which ENet stops at.
    pub const fn from_number(n: u8) -> Option<CommandKind> {
        Some(match n & COMMAND_MASK {
            1 => CommandKind::Acknowledge,
            2 => CommandKind::Connect,
            3 => CommandKind::VerifyConnect,
            4 => CommandKind::Disconnect,
            5 => CommandKind::Ping,
            6 => CommandKind::SendReliable,
            7 => CommandKind::SendUnreliable,
            8 => CommandKind::SendFragment,
            9 => CommandKind::SendUnsequenced,
            10 => CommandKind::BandwidthLimit,
            11 => CommandKind::ThrottleConfigure,
            12 => CommandKind::SendUnreliableFragment,
            _ => return None,
        })
    }

    /// The size of the command's fixed part, its 4-byte header included (`commandSizes`), without
    /// the payload of the `SEND_*` commands.
    pub const fn size(self) -> usize {
        match self {
            CommandKind::Acknowledge => 8,
            CommandKind::Connect => 48,
            CommandKind::VerifyConnect => 44,
            CommandKind::Disconnect => 8,
            CommandKind::Ping => 4,
            CommandKind::SendReliable => 6,
            CommandKind::SendUnreliable => 8,
            CommandKind::SendFragment | CommandKind::SendUnreliableFragment => 24,
            CommandKind::SendUnsequenced => 8,
            CommandKind::BandwidthLimit => 12,
            CommandKind::ThrottleConfigure => 16,
        }
    }

    /// The engine's name without its `ENET_PROTOCOL_COMMAND_` prefix: `"SEND_RELIABLE"`, …
    pub const fn name(self) -> &'static str {
        match self {
            CommandKind::Acknowledge => "ACKNOWLEDGE",
            CommandKind::Connect => "CONNECT",
            CommandKind::VerifyConnect => "VERIFY_CONNECT",
            CommandKind::Disconnect => "DISCONNECT",
            CommandKind::Ping => "PING",
            CommandKind::SendReliable => "SEND_RELIABLE",
            CommandKind::SendUnreliable => "SEND_UNRELIABLE",
            CommandKind::SendFragment => "SEND_FRAGMENT",
            CommandKind::SendUnsequenced => "SEND_UNSEQUENCED",
            CommandKind::BandwidthLimit => "BANDWIDTH_LIMIT",
            CommandKind::ThrottleConfigure => "THROTTLE_CONFIGURE",
            CommandKind::SendUnreliableFragment => "SEND_UNRELIABLE_FRAGMENT",
        }
    }
}

impl fmt::Display for CommandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A command's 4-byte header (`ENetProtocolCommandHeader`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommandHeader {
    /// The command byte as sent: the number in the low four bits, [`COMMAND_FLAG_ACKNOWLEDGE`]
    /// and [`COMMAND_FLAG_UNSEQUENCED`].
    pub command: u8,
    /// `channelID` (0xFF for the commands that are not on a channel).
    pub channel_id: u8,
    /// `reliableSequenceNumber`.
    pub reliable_sequence_number: u16,
}

impl CommandHeader {
    /// Whether the command asks to be acknowledged.
    pub const fn acknowledge(&self) -> bool {
        self.command & COMMAND_FLAG_ACKNOWLEDGE != 0
    }

    /// Whether the unsequenced flag is set.
    pub const fn unsequenced(&self) -> bool {
        self.command & COMMAND_FLAG_UNSEQUENCED != 0
    }
}

/// The fields `CONNECT` and `VERIFY_CONNECT` share (`ENetProtocolConnect`,
/// `ENetProtocolVerifyConnect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Connect {
    /// The command header.
    pub header: CommandHeader,
    /// `outgoingPeerID`: the sender's index for this peer (the id the receiver puts in its
    /// datagrams' headers).
    pub outgoing_peer_id: u16,
    /// `incomingSessionID`.
    pub incoming_session_id: u8,
    /// `outgoingSessionID`.
    pub outgoing_session_id: u8,
    /// `mtu`.
    pub mtu: u32,
    /// `windowSize`.
    pub window_size: u32,
    /// `channelCount`.
    pub channel_count: u32,
    /// `incomingBandwidth`.
    pub incoming_bandwidth: u32,
    /// `outgoingBandwidth`.
    pub outgoing_bandwidth: u32,
    /// `packetThrottleInterval`.
    pub packet_throttle_interval: u32,
    /// `packetThrottleAcceleration`.
    pub packet_throttle_acceleration: u32,
    /// `packetThrottleDeceleration`.
    pub packet_throttle_deceleration: u32,
    /// `connectID`.
    pub connect_id: u32,
    /// `data` (`CONNECT` only; 0 in a `VERIFY_CONNECT`): for Godot, the client's peer id.
    pub data: u32,
}

/// `SEND_FRAGMENT` and `SEND_UNRELIABLE_FRAGMENT` (`ENetProtocolSendFragment`), for
/// [`Reassembler`](super::fragments::Reassembler).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SendFragment<'a> {
    /// The command header (its command number says which of the two this is).
    pub header: CommandHeader,
    /// `startSequenceNumber`: the sequence number of the packet's first fragment.
    pub start_sequence_number: u16,
    /// `fragmentCount`.
    pub fragment_count: u32,
    /// `fragmentNumber`.
    pub fragment_number: u32,
    /// `totalLength`: the whole packet's length.
    pub total_length: u32,
    /// `fragmentOffset`: where this fragment's bytes go in the packet.
    pub fragment_offset: u32,
    /// The fragment's bytes (`dataLength` of them).
    pub data: &'a [u8],
    /// The offset of the command in the datagram, for errors.
    pub offset: usize,
}

impl SendFragment<'_> {
    /// Whether this is a `SEND_FRAGMENT` (a fragment of a reliable packet) rather than a
    /// `SEND_UNRELIABLE_FRAGMENT`.
    pub const fn is_reliable(&self) -> bool {
        self.header.command & COMMAND_MASK == CommandKind::SendFragment as u8
    }
}

/// One ENet command, by kind, with its fields as ENet names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command<'a> {
    /// Acknowledges a reliable command.
    Acknowledge {
        /// The command header.
        header: CommandHeader,
        /// `receivedReliableSequenceNumber`: the acknowledged command's sequence number.
        received_reliable_sequence_number: u16,
        /// `receivedSentTime`: the acknowledged datagram's sent time.
        received_sent_time: u16,
    },
    /// A connection request.
    Connect(Connect),
    /// The answer to a `CONNECT` (its `data` is 0).
    VerifyConnect(Connect),
    /// A disconnection.
    Disconnect {
        /// The command header.
        header: CommandHeader,
        /// `data`.
        data: u32,
    },
    /// A keep-alive.
    Ping {
        /// The command header.
        header: CommandHeader,
    },
    /// A reliable packet, whole.
    SendReliable {
        /// The command header.
        header: CommandHeader,
        /// The packet.
        data: &'a [u8],
    },
    /// An unreliable, sequenced packet, whole.
    SendUnreliable {
        /// The command header.
        header: CommandHeader,
        /// `unreliableSequenceNumber`.
        unreliable_sequence_number: u16,
        /// The packet.
        data: &'a [u8],
    },
    /// A fragment of a reliable packet.
    SendFragment(SendFragment<'a>),
    /// An unsequenced packet, whole.
    SendUnsequenced {
        /// The command header.
        header: CommandHeader,
        /// `unsequencedGroup`.
        unsequenced_group: u16,
        /// The packet.
        data: &'a [u8],
    },
    /// The sender's bandwidth limits.
    BandwidthLimit {
        /// The command header.
        header: CommandHeader,
        /// `incomingBandwidth`.
        incoming_bandwidth: u32,
        /// `outgoingBandwidth`.
        outgoing_bandwidth: u32,
    },
    /// The sender's throttle parameters.
    ThrottleConfigure {
        /// The command header.
        header: CommandHeader,
        /// `packetThrottleInterval`.
        packet_throttle_interval: u32,
        /// `packetThrottleAcceleration`.
        packet_throttle_acceleration: u32,
        /// `packetThrottleDeceleration`.
        packet_throttle_deceleration: u32,
    },
    /// A fragment of an unreliable packet.
    SendUnreliableFragment(SendFragment<'a>),
}

impl<'a> Command<'a> {
    /// The command's header.
    pub fn header(&self) -> CommandHeader {
        match self {
            Command::Acknowledge { header, .. }
            | Command::Disconnect { header, .. }
            | Command::Ping { header }
            | Command::SendReliable { header, .. }
            | Command::SendUnreliable { header, .. }
            | Command::SendUnsequenced { header, .. }
            | Command::BandwidthLimit { header, .. }
            | Command::ThrottleConfigure { header, .. } => *header,
            Command::Connect(c) | Command::VerifyConnect(c) => c.header,
            Command::SendFragment(f) | Command::SendUnreliableFragment(f) => f.header,
        }
    }

    /// The command's kind.
    pub fn kind(&self) -> CommandKind {
        match self {
            Command::Acknowledge { .. } => CommandKind::Acknowledge,
            Command::Connect(_) => CommandKind::Connect,
            Command::VerifyConnect(_) => CommandKind::VerifyConnect,
            Command::Disconnect { .. } => CommandKind::Disconnect,
            Command::Ping { .. } => CommandKind::Ping,
            Command::SendReliable { .. } => CommandKind::SendReliable,
            Command::SendUnreliable { .. } => CommandKind::SendUnreliable,
            Command::SendFragment(_) => CommandKind::SendFragment,
            Command::SendUnsequenced { .. } => CommandKind::SendUnsequenced,
            Command::BandwidthLimit { .. } => CommandKind::BandwidthLimit,
            Command::ThrottleConfigure { .. } => CommandKind::ThrottleConfigure,
            Command::SendUnreliableFragment(_) => CommandKind::SendUnreliableFragment,
        }
    }

    /// The payload of a `SEND_*` command (a whole packet, or a fragment's part of one).
    pub fn data(&self) -> Option<&'a [u8]> {
        match self {
            Command::SendReliable { data, .. }
            | Command::SendUnreliable { data, .. }
            | Command::SendUnsequenced { data, .. } => Some(data),
            Command::SendFragment(f) | Command::SendUnreliableFragment(f) => Some(f.data),
            _ => None,
        }
    }
}
