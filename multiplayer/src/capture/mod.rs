//! Godot traffic read from packet captures (pcap and pcapng, as tcpdump, Wireshark and dumpcap
//! write them): every message of every Godot transport, in capture order.
//!
//! [`CaptureReader`] reads a capture from any [`std::io::Read`] as a stream (a bounded
//! buffer: memory follows the open flows' unprocessed bytes, never the file's size), takes the
//! link layer (Ethernet, Linux cooked SLL and SLL2, BSD / OpenBSD loopback, raw IP), IPv4 and
//! IPv6, UDP and TCP, and keeps one flow per connection (both directions of a TCP connection or
//! of a UDP 5-tuple). It reassembles each TCP direction (segments out of order held within a
//! bound, retransmissions and overlaps dropped, holes reported as [`Control::Gap`]) and tells
//! each flow's transport from its content, whatever its ports
//! ([`Config::decode_as`] overrides):
//!
//! - **`put_var` streams** over TCP ([`Transport::PutVar`]: `StreamPeer.put_var`,
//!   `PacketPeerStream`): a little-endian `u32` length and the value, both dialects;
//! - **WebSocket** ([`Transport::WebSocket`]): the HTTP upgrade, then RFC 6455 frames (masking,
//!   fragmentation, close) carrying Godot 4's `WebSocketMultiplayerPeer` packets (after the
//!   server's 4-byte peer id message), Godot 3's (behind the 9-byte header), or one value per
//!   message (`WebSocketPeer.put_var`);
//! - **ENet** over UDP ([`Transport::Enet`]): every command, fragments reassembled, the range
//!   coder's compression undone, the `CONNECT`'s `data` as the client's peer id, Godot 3's
//!   8-byte header and config channel;
//! - **`PacketPeerUDP`** datagrams of one value each ([`Transport::Udp`]).
//!
//! Each [`Event`] says when, in which flow and direction, between which peers (where known), on
//! which channel, and carries a value's bytes, a multiplayer packet's bytes (read them with
//! [`parse`](crate::parse) or [`godot3::parse`](crate::godot3::parse)), a transport event
//! (handshake, peer id, close, ENet connect…) or the error met at that point: reading goes on
//! after errors in the capture (records cut by the snap length, malformed frames or
//! datagrams).
//!
//! ```no_run
//! use gdvariant_multiplayer::capture::{Body, CaptureReader};
//! let file = std::fs::File::open("session.pcap")?;
//! let mut capture = CaptureReader::new(std::io::BufReader::new(file))?;
//! while let Some(event) = capture.next_event() {
//!     if let Body::Packet { bytes, .. } = event.body {
//!         println!("{} {} -> {}: {} bytes", event.time, event.src, event.dst, bytes.len());
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The packets name nodes by cache id and methods by number: a [`Session`](crate::Session) per
//! flow learns the paths from the flow's own `SIMPLIFY_PATH` packets, and a schema (the
//! [schema file](crate::StaticSchema::parse) of `gdvariant capture --schema`) gives the method
//! names. On `tests/data/captures/godot4_enet.pcap`, whose game has a node `/root/Game`:
//!
//! ```
//! use std::collections::HashMap;
//! use gdvariant::Dialect;
//! use gdvariant_multiplayer::capture::{Body, CaptureReader, FlowId};
//! use gdvariant_multiplayer::{Packet, Session, StaticSchema};
//!
//! let schema = StaticSchema::parse("rpc Game big chan3 hello ordered unrel unrel_big")?;
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/captures/godot4_enet.pcap");
//! let file = std::fs::File::open(path)?;
//! let mut capture = CaptureReader::new(std::io::BufReader::new(file))?;
//! let mut sessions: HashMap<FlowId, Session> = HashMap::new();
//! let mut calls = Vec::new();
//! while let Some(event) = capture.next_event() {
//!     let (Body::Packet { bytes, dialect: Dialect::Godot4 }, Some(from)) = (event.body, event.from_peer)
//!     else {
//!         continue; // values, transport events, errors, Godot 3 packets (`godot3::parse`)
//!     };
//!     let packet = gdvariant_multiplayer::parse(bytes)?; // an error says what, at which offset
//!     let session = sessions.entry(event.flow).or_default();
//!     session.observe(from, &packet);
//!     if let Packet::RemoteCall(call) = &packet {
//!         let path = session.node_path(from, call);
//!         let method = session.method_name(from, call, &schema);
//!         calls.push(format!("{from}: {}.{}", path.as_deref().unwrap_or("?"), method.unwrap_or("?")));
//!     }
//! }
//! assert_eq!(calls[..2], ["288134105: Game.hello", "1: Game.big"]);
//! assert_eq!(calls.len(), 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Behind the `capture` feature (which needs `std`).

mod error;
mod file;
mod flow;
mod link;
mod tcp;

use core::fmt;
use std::io::Read;
use std::net::SocketAddr;
use std::vec::Vec;

use gdvariant::Dialect;

use crate::enet::godot::{Config3, TransferMode};
use crate::websocket::godot::Godot3Sys;

pub use error::{Error, Place};
pub use file::is_capture;
pub use link::{
    LINKTYPE_ETHERNET, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2,
    LINKTYPE_LOOP, LINKTYPE_NULL, LINKTYPE_RAW,
};

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

/// How a capture is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    decode_as: Vec<(u16, Transport)>,
    max_early_per_direction: usize,
    max_early: usize,
    max_message: usize,
    max_flows: usize,
    dialect: Option<Dialect>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// The defaults: content detection, 1 MiB of early TCP segments per direction and 16 MiB in
    /// all, values and messages up to 16 MiB, 100 000 open flows.
    pub const fn new() -> Config {
        Config {
            decode_as: Vec::new(),
            max_early_per_direction: 1 << 20,
            max_early: 16 << 20,
            max_message: 16 << 20,
            max_flows: 100_000,
            dialect: None,
        }
    }

    /// Flows with `port` at either end carry `transport`, whatever their content.
    pub fn decode_as(mut self, port: u16, transport: Transport) -> Config {
        self.decode_as.push((port, transport));
        self
    }

    /// The most bytes of TCP segments that came early held per direction, and in all.
    pub fn with_max_early(mut self, per_direction: usize, total: usize) -> Config {
        self.max_early_per_direction = per_direction;
        self.max_early = total;
        self
    }

    /// The largest `put_var` value and WebSocket message read (larger ones are reported and
    /// skipped).
    pub fn with_max_message(mut self, max: usize) -> Config {
        self.max_message = max;
        self
    }

    /// The most flows followed at once (past it new flows are reported and not followed).
    pub fn with_max_flows(mut self, max: usize) -> Config {
        self.max_flows = max;
        self
    }

    /// The dialect of the values of `put_var`, `PacketPeerUDP` and WebSocket value flows. By
    /// default each flow's is told by its values: the first that reads in one dialect only (or
    /// is clearly more plausible in one) decides, and values before it, which read the same in
    /// both, are given as Godot 4.
    pub fn with_dialect(mut self, dialect: Option<Dialect>) -> Config {
        self.dialect = dialect;
        self
    }
}

/// Reads a capture's events, one at a time. See the [module docs](self).
pub struct CaptureReader<R: Read> {
    records: file::Records<R>,
    flows: flow::Flows,
    out: flow::Out,
    /// Records read.
    record: u64,
    finished: bool,
}

impl<R: Read> fmt::Debug for CaptureReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CaptureReader")
            .field("record", &self.record)
            .field("open_flows", &self.flows.open())
            .finish_non_exhaustive()
    }
}

impl<R: Read> CaptureReader<R> {
    /// A reader of the capture `reader` holds, with the default [`Config`]: an error if it
    /// does not start with a pcap or pcapng header.
    pub fn new(reader: R) -> Result<CaptureReader<R>, Error> {
        CaptureReader::with_config(reader, Config::new())
    }

    /// A reader with `config`.
    pub fn with_config(reader: R, config: Config) -> Result<CaptureReader<R>, Error> {
        Ok(CaptureReader {
            records: file::Records::new(reader)?,
            flows: flow::Flows::new(config),
            out: flow::Out::default(),
            record: 0,
            finished: false,
        })
    }

    /// The records (captured packets) read so far.
    pub fn records(&self) -> u64 {
        self.record
    }

    /// The flows followed now.
    pub fn open_flows(&self) -> usize {
        self.flows.open()
    }

    /// The bytes held now for TCP segments that came early and for messages not whole yet.
    pub fn held_bytes(&self) -> usize {
        self.flows.held()
    }

    /// The next event, `None` at the end of the capture (the events of one packet are borrowed
    /// from the reader until the next call).
    #[allow(clippy::should_implement_trait)]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
        loop {
            if self.out.pending() {
                return self.out.take();
            }
            if self.finished {
                return None;
            }
            self.out.clear();
            match self.records.next() {
                file::Next::Record(r) => {
                    self.record += 1;
                    self.flows.record(self.record, &r, &mut self.out);
                }
                file::Next::Other => {}
                file::Next::Bad(e) => self.out.orphan(e),
                file::Next::Fatal(e) => {
                    self.out.orphan(e);
                    self.flows.finish(&mut self.out);
                    self.finished = true;
                }
                file::Next::End => {
                    self.flows.finish(&mut self.out);
                    self.finished = true;
                }
            }
        }
    }
}
