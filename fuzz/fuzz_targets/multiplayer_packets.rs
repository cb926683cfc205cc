//! Arbitrary bytes as Godot 4 SceneMultiplayer packets (both protocol versions, full objects
//! allowed or not) and as Godot 3 MultiplayerAPI packets: never a panic, every accessor and
//! iterator runs, offsets stay in the input, `validate` agrees with reading every value, and a
//! valid packet rebuilt with the builders reads back the same (see
//! `tests/common/multiplayer_check.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/multiplayer_check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::check(data);
});
