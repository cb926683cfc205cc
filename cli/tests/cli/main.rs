//! The `gdvariant` binary run as a process, one test binary: every subcommand (`commands`), on
//! the engines' golden data (`commands_golden`) and on bad input (`commands_input`), packet
//! captures (`capture`, `capture_values`, `capture_replication`, `capture_live`), and `gdvariant multiplayer decode`
//! over the recorded sessions (`multiplayer`).

#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../../../tests/common/multiplayer.rs"]
mod fixture;

mod capture;
mod capture_live;
mod capture_replication;
mod capture_values;
mod commands;
mod commands_golden;
mod commands_input;
mod multiplayer;

/// Counts allocations per thread, for `commands`.
#[global_allocator]
static ALLOC: common::alloc::Counting = common::alloc::Counting;
