//! The multiplayer crate's tests, one binary: recorded sessions (`packets`), hostile input
//! (`hostile`), the live engines (`live`), the passive transports on real captures (`enet`,
//! `websocket`), the capture reader (`capture`) and the server (`server_*`).

#[path = "../../../tests/common/multiplayer_check.rs"]
mod check;
#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../../../tests/common/multiplayer.rs"]
mod fixture;

#[cfg(feature = "capture")]
mod capture;
#[cfg(feature = "enet")]
mod enet;
#[cfg(feature = "enet")]
mod enet_c;
mod hostile;
mod live;
mod packets;
#[cfg(feature = "server")]
mod server_api;
#[cfg(feature = "server")]
mod server_client_spawn;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_compare;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_compression;
#[cfg(feature = "server")]
mod server_core;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_hostile;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_live;
#[cfg(feature = "server")]
mod server_path_sync;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_putvar;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_queue;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_scene;
#[cfg(all(feature = "server-ws", feature = "server-enet"))]
mod server_stop;
#[cfg(all(feature = "server-wss", feature = "server-enet"))]
mod server_wss;
#[cfg(feature = "websocket")]
mod websocket;

/// Counts allocations per thread, for `hostile`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;
