//! The server's sans-IO core (`ServerCore`, Godot 4 and Godot 3 flavors, with and without
//! authentication) driven by arbitrary bytes: peers from a small id set connect, disconnect and
//! send arbitrary packets on arbitrary channels with arbitrary relay targets, time moves, and the
//! application sends RPCs, rsets, raw bytes, spawns (custom ones too), synchronizer state (of
//! spawned nodes and by path) and kicks; clients' spawners (`Players/{id}/Spawner`, `Shots`)
//! take their SPAWN, DESPAWN and state. Never a panic; every action names a peer
//! the core knew; the joined peers are always a subset of the connected ones.
#![no_main]

use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::server::{
    Action, AuthStep, Flavor, RpcSpec, ServerConfig, ServerCore, ServerSchema, SpawnerAuthority,
    To, TransferMode,
};
use gdvariant_multiplayer::{Property, ReplicationMode};
use libfuzzer_sys::fuzz_target;

const PEERS: [i32; 5] = [2, 3, 77, 1_000_000, i32::MAX];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, mut rest)) = data.split_first() else {
        return;
    };
    let flavor = if mode & 1 == 0 {
        Flavor::Godot4
    } else {
        Flavor::Godot3
    };
    let schema = ServerSchema::new()
        .node(
            "Main",
            [RpcSpec::any_peer("echo"), RpcSpec::authority("echoed")],
        )
        .node(
            "Players/*",
            [
                RpcSpec::any_peer("a"),
                RpcSpec::any_peer("b"),
                RpcSpec::any_peer("hp").property(),
            ],
        )
        .synchronizer(
            "Players/*/Sync",
            [
                Property::new(".:position", ReplicationMode::Always, false),
                Property::new(".:hp", ReplicationMode::OnChange, false),
            ],
        )
        .client_spawner("Players/{id}/Spawner", SpawnerAuthority::PathPeer)
        .client_spawner("Shots", SpawnerAuthority::Peer(3))
        .spawned(
            "Players/*/Spawner",
            Some(0),
            0,
            [Property::new(".:position", ReplicationMode::Always, true)],
        );
    let cfg = ServerConfig {
        flavor,
        relay: mode & 2 == 0,
        max_packets_per_second: 64,
        max_strikes: 8,
        ..ServerConfig::default()
    };
    let mut core = ServerCore::new(schema, cfg);
    if mode & 4 != 0 {
        core = core.with_auth(|_p: i32, d: &[u8]| match d.first() {
            Some(0) => AuthStep::Complete,
            Some(1) => AuthStep::Send(d.to_vec()),
            Some(2) => AuthStep::Reject("no".into()),
            _ => AuthStep::Wait,
        });
    }
    let t0 = Instant::now();
    let mut now = t0;
    let mut connected = std::collections::BTreeSet::new();
    while let Some((&op, r)) = rest.split_first() {
        rest = r;
        let peer = PEERS[(op >> 4) as usize % PEERS.len()];
        match op & 0x0F {
            0 => {
                if core.peer_connected(peer, now).is_ok() {
                    connected.insert(peer);
                }
            }
            1 => {
                core.peer_disconnected(peer);
                connected.remove(&peer);
            }
            2..=9 => {
                // A packet: [len][channel/mode][target] then len bytes.
                let Some((&len, r)) = rest.split_first() else {
                    break;
                };
                let (head, r) = r.split_at(r.len().min(2));
                let n = (len as usize).min(r.len());
                let (bytes, r) = r.split_at(n);
                rest = r;
                let cm = head.first().copied().unwrap_or(0);
                let mode = [
                    TransferMode::Reliable,
                    TransferMode::Unreliable,
                    TransferMode::UnreliableOrdered,
                ][cm as usize % 3];
                let target = match head.get(1).copied().unwrap_or(1) {
                    t if t < 0x80 => 1,
                    t => PEERS[t as usize % PEERS.len()] * if t & 1 == 0 { 1 } else { -1 },
                };
                core.receive(peer, cm >> 4, mode, target, bytes, now);
            }
            10 => now += Duration::from_millis(u64::from(op) * 40),
            11 => core.tick(now),
            12 => {
                let _ = core.rpc(
                    To::Peer(peer),
                    "Main",
                    "echoed",
                    &[Variant::Int(i64::from(op))],
                );
                let _ = core.rpc(To::AllBut(peer), "Players/7", "a", &[Variant::from("x")]);
                let _ = core.rset(To::All, "Players/7", "hp", &Variant::Int(3));
            }
            13 => {
                let _ = core.send_bytes(To::All, &[op], 0, TransferMode::Reliable);
                if let Ok(s) = core.spawn(To::All, "Main/Spawner", 0, "N", 1, &[Variant::Int(1)]) {
                    let _ = core.sync(To::All, s.sync_ids[0], &[Variant::Int(2)]);
                    let _ = core.set_visible(s.net_id, peer, op & 1 == 0);
                    let _ = core.despawn(s.net_id);
                }
                let data = Variant::from("custom");
                let none: &[Variant] = &[];
                let _ = core.spawn_custom(To::AllBut(peer), "Main/Spawner", "C", &data, 0, none);
                let _ = core.sync_path(To::All, "Players/7/Sync", &[Variant::Int(4)]);
                let _ = core.delta_path(To::Peer(peer), "Main/Board/Sync", 1, &[Variant::Int(5)]);
            }
            14 => core.kick(peer, "fuzz"),
            _ => {
                let _ = core.complete_auth(peer);
                let _ = core.send_auth(peer, &[op]);
            }
        }
        for a in core.take_actions() {
            match a {
                Action::Send(o) => assert!(PEERS.contains(&o.to), "{o:?}"),
                Action::Kick { peer, .. } => {
                    connected.remove(&peer);
                }
                _ => {}
            }
        }
        for p in core.peers() {
            assert!(connected.contains(&p), "joined peer {p} never connected");
        }
    }
});
