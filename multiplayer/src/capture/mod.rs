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

mod config;
mod error;
mod event;
mod file;
mod flow;
mod link;
mod reader;
mod tcp;

pub use config::Config;
pub use error::{Error, Place};
pub use event::{Body, Channel, Control, Event, FlowId, Timestamp, Transport};
pub use file::is_capture;
pub use link::{
    LINKTYPE_ETHERNET, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2,
    LINKTYPE_LOOP, LINKTYPE_NULL, LINKTYPE_RAW,
};
pub use reader::CaptureReader;
