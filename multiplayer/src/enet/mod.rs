//! ENet, the UDP transport under Godot's `ENetMultiplayerPeer` (Godot 4) and
//! `NetworkedMultiplayerENet` (Godot 3), read passively: what an observer of the datagrams (a
//! packet capture) needs to get the multiplayer packets out, and the Godot-specific layer a
//! server speaking to unmodified games shares with it.
//!
//! - [`protocol`]: a datagram's header and its commands (ENet 1.3, as bundled by Godot: 1.3.18
//!   in 4.x), every field as ENet names it, payloads borrowed.
//! - [`range_coder`]: ENet's range-coder decompression, for hosts that compress (Godot 3.4+ by
//!   default, Godot 4 when the game calls `ENetConnection.compress`).
//! - [`fragments`]: packets longer than the MTU put back together from their fragments, with
//!   ENet's checks and a memory bound.
//! - [`godot`]: the peer id in `CONNECT`, channels and transfer modes both ways, Godot 3's 8-byte
//!   header and config messages.
//!
//! Nothing here opens a socket or keeps ENet's connection state (acknowledgements, windows,
//! resends): a live peer needs a real ENet implementation, and can share [`godot`] with this.
//! Godot never turns on ENet's checksums; DTLS, when a game enables it, wraps whole datagrams
//! and is not covered.
//!
//! A datagram from a Godot 4 client: a reliable `@rpc` call on ENet channel 0, which is the
//! SceneMultiplayer packet as is (Godot 4 puts no header of its own before it).
//!
//! ```
//! use gdvariant_multiplayer::enet::{godot, protocol::{Command, Datagram}};
//! use gdvariant_multiplayer::{self as multiplayer, Packet};
//!
//! let bytes = [
//!     0x80, 0x00, 0x3a, 0x98, // to peer 0 (session 0), sent time 15000
//!     0x86, 0x00, 0x00, 0x02, 0x00, 0x06, // SEND_RELIABLE | ACKNOWLEDGE, channel 0, seq 2, 6 bytes
//!     0x00, 0x03, 0x01, 0x01, 0x02, 0x07, // REMOTE_CALL node 3 method 1, one int argument: 7
//! ];
//! let datagram = Datagram::parse(&bytes)?;
//! assert_eq!(datagram.header().sent_time, Some(15000));
//! for command in datagram.commands() {
//!     let command = command?;
//!     let Command::SendReliable { header, data } = command else { continue };
//!     let to = godot::receive4(header.channel_id, command.kind()).unwrap();
//!     assert_eq!((to.transfer_channel, to.mode), (0, godot::TransferMode::Reliable));
//!     let Packet::RemoteCall(call) = multiplayer::parse(data)? else { unreachable!() };
//!     assert_eq!((call.node_id(), call.method()), (Some(3), 1));
//!     assert_eq!(call.args().next().unwrap()?.as_i64()?, 7);
//! }
//! # Ok::<(), gdvariant::Error>(())
//! ```

mod command;
pub mod fragments;
pub mod godot;
pub mod protocol;
pub mod range_coder;
