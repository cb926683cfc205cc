//! What a capture reader gives: [`Event`]s (when, which flow, who to whom) and what they carry
//! ([`Body`]: a value, a multiplayer packet, a transport event, an error).

use core::fmt;
use std::net::SocketAddr;

use gdvariant::Dialect;

use super::error::Error;
use crate::enet::godot::{Config3, TransferMode};
use crate::websocket::godot::Godot3Sys;

/// When a packet was captured: seconds and nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    secs: u64,
    nanos: u32,
}

impl Timestamp {
    /// `secs` seconds and `nanos` nanoseconds (below 10⁹) since the epoch.
    pub const fn new(secs: u64, nanos: u32) -> Timestamp {
        Timestamp { secs, nanos }
    }

    /// Whole seconds since the epoch.
    pub const fn secs(&self) -> u64 {
        self.secs
    }

    /// Nanoseconds past the second.
    pub const fn nanos(&self) -> u32 {
        self.nanos
    }
}

impl fmt::Display for Timestamp {
    /// `HH:MM:SS.micros` (UTC), as tcpdump prints times.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let day = self.secs % 86400;
        write!(
            f,
            "{:02}:{:02}:{:02}.{:06}",
            day / 3600,
            day / 60 % 60,
            day % 60,
            self.nanos / 1000
        )
    }
}

/// A Godot transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Transport {
    /// Values behind `u32` lengths over TCP (`StreamPeer.put_var`, `PacketPeerStream`).
    PutVar,
    /// WebSocket over TCP.
    WebSocket,
    /// ENet over UDP.
    Enet,
    /// One value per UDP datagram (`PacketPeerUDP.put_var`).
    Udp,
}

impl Transport {
    /// Every transport.
    pub const ALL: [Transport; 4] = [
        Transport::PutVar,
        Transport::WebSocket,
        Transport::Enet,
        Transport::Udp,
    ];

    /// Its name: `put_var`, `websocket`, `enet`, `udp`.
    pub const fn name(self) -> &'static str {
        match self {
            Transport::PutVar => "put_var",
            Transport::WebSocket => "websocket",
            Transport::Enet => "enet",
            Transport::Udp => "udp",
        }
    }

    /// The transport of a name (`put_var` or `putvar`, `websocket` or `ws`, `enet`, `udp`).
    pub fn from_name(name: &str) -> Option<Transport> {
        Some(match name {
            "put_var" | "putvar" => Transport::PutVar,
            "websocket" | "ws" => Transport::WebSocket,
            "enet" => Transport::Enet,
            "udp" => Transport::Udp,
            _ => return None,
        })
    }

    /// Whether it runs over TCP.
    pub const fn is_tcp(self) -> bool {
        matches!(self, Transport::PutVar | Transport::WebSocket)
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A flow's number: flows are numbered from 1 in the order their first packet was captured.
pub type FlowId = u64;

/// The ENet channel a packet came on, and what Godot makes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel {
    /// The ENet channel id.
    pub enet: u8,
    /// Godot's transfer channel (Godot 4; 0 in Godot 3).
    pub transfer: u8,
    /// Godot's transfer mode, from the ENet command.
    pub mode: TransferMode,
}

/// A transport event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// The flow's transport was recognised (its first event).
    Recognized(Transport),
    /// The flow carries nothing recognised as a Godot transport; its bytes are not shown.
    Unrecognized,
    /// A WebSocket upgrade request (the client's) or response (with the status).
    Handshake {
        /// `None` for the request, the status for the response.
        status: Option<u16>,
    },
    /// Godot 4's WebSocket peer id message: the id the server gave the client.
    PeerId(i32),
    /// A Godot 3 WebSocket system message.
    Godot3Sys {
        /// What it says.
        sys: Godot3Sys,
        /// About which peer.
        peer: i32,
    },
    /// A WebSocket close frame.
    Close {
        /// Its status code.
        code: Option<u16>,
    },
    /// An ENet `CONNECT`: the client's peer id (its `data`), channels and MTU.
    EnetConnect {
        /// The peer id the client asks for (`None` below 2, which Godot refuses).
        peer: Option<u32>,
        /// `channelCount`: 255 from Godot 4, 3 from Godot 3.
        channels: u32,
        /// The MTU.
        mtu: u32,
    },
    /// An ENet `VERIFY_CONNECT` (the server's answer).
    EnetVerifyConnect {
        /// `channelCount`.
        channels: u32,
        /// The MTU.
        mtu: u32,
    },
    /// An ENet `DISCONNECT`.
    EnetDisconnect {
        /// Its data.
        data: u32,
    },
    /// A Godot 3 ENet config message (channel 0).
    Config3(Config3),
    /// Bytes of a TCP direction that the capture does not have: `len` bytes from stream offset
    /// `at`. A `put_var` stream is read again from the next value that fits; a WebSocket
    /// direction is not read further.
    Gap {
        /// Where.
        at: u64,
        /// How many bytes.
        len: u64,
    },
    /// The TCP connection ended (both FINs or a RST), or an ENet peer went.
    End {
        /// A RST.
        reset: bool,
    },
}

/// What an event carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    /// One value's bytes (`var_to_bytes` form), not checked yet, and the dialect the flow's
    /// values read in (a value that reads the same in both is given as Godot 4).
    Value {
        /// The bytes.
        bytes: &'a [u8],
        /// The dialect.
        dialect: Dialect,
    },
    /// One multiplayer packet's bytes, not checked yet: a SceneMultiplayer packet
    /// ([`parse`](crate::parse)) for Godot 4, a `MultiplayerAPI` packet
    /// ([`godot3::parse`](crate::godot3::parse)) for Godot 3.
    Packet {
        /// The bytes.
        bytes: &'a [u8],
        /// The engine generation.
        dialect: Dialect,
    },
    /// A transport event.
    Control(Control),
    /// A problem in the capture at this point.
    Error(Error),
}

/// One thing seen in a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// When the packet that completed it was captured.
    pub time: Timestamp,
    /// The record number of that packet (from 1, as Wireshark numbers frames); 0 for what the
    /// end of the capture flushed.
    pub record: u64,
    /// The flow (0 for errors that belong to no flow).
    pub flow: FlowId,
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// Whether the sender is the flow's client (the side that sent its first packet, or the
    /// side of the SYN, the WebSocket request, the ENet `CONNECT`).
    pub from_client: bool,
    /// The flow's transport, once recognised.
    pub transport: Option<Transport>,
    /// The ENet channel.
    pub channel: Option<Channel>,
    /// The sender's Godot peer id, where known.
    pub from_peer: Option<i32>,
    /// The receiver's Godot peer id (or the target of a relayed Godot 3 packet), where known.
    pub to_peer: Option<i32>,
    /// What it is.
    pub body: Body<'a>,
}
