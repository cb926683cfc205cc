//! The multiplayer packets' tests, one binary: recorded sessions (`packets`), hostile input
//! (`hostile`) and the live engines (`live`).

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
mod hostile;
mod live;
mod packets;
#[cfg(feature = "websocket")]
mod websocket;

/// Counts allocations per thread, for `hostile`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;
