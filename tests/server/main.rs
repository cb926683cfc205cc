//! Servers (feature `tokio`), one test binary: `Packet`, `codec::VarCodec` and the framing
//! adapters (`server_codec`, also features `serde` and `__count-reads`), real Godot clients
//! against the example server (`server_live`, and `server_putvar`: an unmodified client's
//! `put_var` round trips without the delayed-ACK stall), a short bounded load run
//! (`server_load`), and the example server's limits against hostile clients (`server_limits`).

#[path = "../common/mod.rs"]
mod common;

/// `examples/server/`, run by `server_live`, `server_load` and `server_limits`.
#[allow(dead_code, unreachable_pub)]
#[path = "../../examples/server/main.rs"]
mod server;

#[cfg(all(feature = "serde", feature = "__count-reads"))]
mod server_codec;
mod server_depth;
mod server_limits;
mod server_live;
mod server_load;
mod server_putvar;

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The machine, for the tests that must not share it: a load run of `server_load` takes both
/// cores for seconds and measures its server, so it runs alone (`exclusive`), while the Godot
/// clients of `server_live`, bounded by deadlines, run together (`shared`) but not beside one.
static MACHINE: RwLock<()> = RwLock::new(());

/// The machine to this test alone, until the guard drops.
fn exclusive() -> RwLockWriteGuard<'static, ()> {
    // A failed test (a panic while holding the lock) does not fail the others.
    MACHINE.write().unwrap_or_else(|e| e.into_inner())
}

/// The machine shared with other `shared` tests, until the guard drops.
fn shared() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}
