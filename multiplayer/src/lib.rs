//! Godot's high-level multiplayer on the wire: the packets `SceneMultiplayer` (Godot 4) and
//! `MultiplayerAPI` (Godot 3, in [`godot3`]) exchange for `@rpc` calls, the node path cache,
//! `MultiplayerSpawner`, `MultiplayerSynchronizer`, authentication, relaying and raw bytes.
//!
//! Everything here is a zero-copy view: [`parse`] reads a
//! packet's fixed fields and bounds-checks its variable ones without allocating; arguments,
//! spawn state and synchronizer values are lazy sequences of [`ValueRef`]s read from the
//! *compressed* form the engine uses for them (a bool in one byte, an int in the fewest bytes
//! that hold it, anything else as `var_to_bytes` writes it). The builders ([`RemoteCallBuilder`],
//! [`SpawnBuilder`], [`SyncBuilder`], [`DeltaBuilder`] and the functions next to them) write
//! packets byte for byte as the engine does, with its own choices of id widths and flags.
//!
//! Beside the packets, each behind its feature:
//!
//! - [`server`] (`server-ws`, `server-enet`; `server-wss` for TLS, `server-serde` for RPC
//!   arguments read with serde): a tokio server that unmodified Godot 4 and Godot 3 games connect
//!   to over WebSocket or ENet, as they would to a Godot server: peers, authentication, the path
//!   cache, RPCs by node path and method name, relaying, spawns and synchronizers. Its guide is
//!   `docs/multiplayer-server.md` in the repository.
//! - [`capture`] (`capture`): pcap and pcapng files of Godot traffic read as a stream, every
//!   message of every transport in capture order (what `gdvariant capture` shows).
//! - [`enet`] and [`websocket`] (`enet`, `websocket`; no dependencies, no `std` needed): the two
//!   transports' unframing, one direction of bytes at a time, shared by the server and the
//!   capture reader.
//! - [`godot3`]: Godot 3's `MultiplayerAPI` packets.
//!
//! ```
//! use gdvariant_multiplayer::{self as multiplayer, Packet, RemoteCallBuilder, Target};
//! use gdvariant::Variant;
//!
//! // What Godot 4.6 sends for `rpc("hit", 7, "sword")` on a node whose path is cached as id 3,
//! // where `hit` is the second of the script's @rpc methods in alphabetical order.
//! let bytes = RemoteCallBuilder::new(Target::Id(3), 1)
//!     .arg(&Variant::Int(7))?
//!     .arg(&Variant::from("sword"))?
//!     .finish()?;
//! assert_eq!(bytes[..6], [0x00, 3, 1, 2, 0x02, 7]);
//!
//! let Packet::RemoteCall(call) = multiplayer::parse(&bytes)? else { unreachable!() };
//! assert_eq!((call.node_id(), call.method()), (Some(3), 1));
//! let args: Vec<Variant> = call.args().map(|a| a?.to_owned()).collect::<Result<_, _>>()?;
//! assert_eq!(args, [Variant::Int(7), Variant::from("sword")]);
//! # Ok::<(), gdvariant::Error>(())
//! ```
//!
//! # The packets
//!
//! The first byte holds the [`Command`] in its three low bits and per-command flags in its four
//! high bits; all integers are little-endian.
//!
//! | command | layout |
//! |---|---|
//! | `REMOTE_CALL` 0 | `[meta][node id: u8/u16/u32][method id: u8/u16][argc: u8, absent when byte-only][args][node path if sent inline]` |
//! | `SIMPLIFY_PATH` 1 | `[01][MD5 hex of the node's RPC method names, 32 bytes + NUL][u32 cache id][path + NUL]` |
//! | `CONFIRM_PATH` 2 | 4.3+: `[02][checksum ok][u32 cache id]`; 4.0–4.2: `[02][checksum ok][path + NUL]` |
//! | `RAW` 3 | `[03][bytes]` (`send_bytes`) |
//! | `SPAWN` 4 | `[04][scene index, 0xFF = custom][u32 spawner cache id][u32 net id][u32 sync count][u32 name length incl. NUL][sync net ids][name + NUL][custom: u32 size + compressed value][spawn state]` |
//! | `DESPAWN` 5 | `[05][u32 net id]` |
//! | `SYNC` 6 | `[06][u16 sync time]` then entries `[u32 net id][u32 size][values]` |
//! | `DELTA` 6, flag 0 | `[16]` then entries `[u32 net id][u64 changed-property mask][u32 size][values]` |
//! | `SYS` 7 | `[07][00][auth data]`, `[07][00]` (auth complete), `[07][01 add / 02 del peer][i32 peer]`, `[07][03][i32 peer][inner packet]` (relay) |
//!
//! The RPC meta byte is `0 | node id width << 4 | method id width << 6 | byte-only << 7` (node
//! id width 0/1/2 = 8/16/32 bits, method id width 0/1 = 8/16 bits). A node whose path the
//! receiver has not confirmed yet is sent as the 32-bit `0x80000000 | offset` with its path,
//! relative to the multiplayer root, appended at that offset. The method id is the index of the
//! method in the alphabetically sorted list of the script's `@rpc` methods (bit 15 set for
//! methods configured with `Node.rpc_config`): see [`RpcMethods`]. Calls with no argument, or
//! with exactly one `PackedByteArray`, set the byte-only flag and carry the bytes raw.
//!
//! Each view checks exactly what the engine's receiving code checks of the packet's structure
//! (the rest depends on the receiver's state: which node an id names, who has authority) and
//! says what is wrong at which offset. Counts, sizes and offsets read from a packet are bounded by
//! the packet before anything is read with them; nothing allocates in proportion to them.
//! [`validate`] checks every value too.
//!
//! # Tracking a session
//!
//! Cache ids and synchronizer net ids only mean something with the packets that defined them:
//! [`Session`] follows a conversation (path cache, spawns) so that later packets can be shown with
//! node paths, and a [`Schema`] (what a tool knows of the project: each node's `@rpc` methods and
//! each synchronizer's properties) gives method and property names.
//!
//! # Differences with the engine
//!
//! Where the engine's own checks would crash or misread a hostile packet, these views report an
//! error instead: see `docs/multiplayer.md` in the repository for each case, and for what the live
//! engine showed where it differs from a reading of its source.

#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(rust_2018_idioms, unreachable_pub)]

extern crate alloc;

mod cache;
#[cfg(feature = "capture")]
pub mod capture;
mod cursor;
#[cfg(feature = "enet")]
pub mod enet;
pub mod godot3;
mod packet;
mod replication;
mod rpc;
mod schema_file;
#[cfg(feature = "server")]
pub mod server;
mod session;
mod sys;
mod value;
#[cfg(feature = "websocket")]
pub mod websocket;
mod wire;

pub use cache::{
    confirm_path, confirm_path_v4_0, simplify_path, ConfirmPath, RpcMethods, SimplifyPath,
};
pub use packet::{parse, parse_with, validate, Packet};
pub use replication::{
    despawn, Delta, DeltaBuilder, DeltaEntries, DeltaEntry, Despawn, Spawn, SpawnBuilder,
    SpawnScene, Sync, SyncBuilder, SyncEntries, SyncEntry,
};
pub use rpc::{NodeTarget, RemoteCall, RemoteCallBuilder, Target};
pub use schema_file::SchemaError;
pub use session::{
    delta_properties, spawn_properties, sync_properties, Property, ReplicationMode, Schema,
    Session, StaticSchema, SyncKey,
};
pub use sys::{add_peer, auth, auth_complete, del_peer, raw, relay, Raw, Sys, SysKind};
pub use value::{write_value, Arg, Value, ValueRef, Values};
pub use wire::{Command, PacketOptions, Protocol, WireStr};

// The repository's README: its Rust examples run as this crate's doctests, the one crate that
// sees both the core and the multiplayer packets.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
