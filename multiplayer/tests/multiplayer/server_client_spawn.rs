//! The server's sans-IO core with client-owned spawners (`ServerSchema::client_spawner`): a
//! client's `SPAWN` and `DESPAWN` taken from the spawner's authority only, the synchronizers of
//! its nodes by the net ids of the spawn, its nodes forgotten when it leaves, and the hostile
//! cases, none of which touches another peer. The same against real engines: `server_scene.rs`.

use std::time::Instant;

use gdvariant::{math::Vector2, Variant};
use gdvariant_multiplayer::server::{
    Action, Event, RpcSpec, ServerConfig, ServerCore, ServerSchema, SpawnerAuthority, TransferMode,
};
use gdvariant_multiplayer::{
    confirm_path, despawn, simplify_path, DeltaBuilder, Property, ReplicationMode, RpcMethods,
    SpawnBuilder, SyncBuilder,
};

use crate::server_core::{events, rejected, sends};

const R: TransferMode = TransferMode::Reliable;

fn props() -> [Property; 2] {
    [
        Property::new(".:position", ReplicationMode::Always, true),
        Property::new(".:hp", ReplicationMode::OnChange, false),
    ]
}

fn schema() -> ServerSchema {
    ServerSchema::new()
        .node("Main", [RpcSpec::any_peer("echo")])
        .client_spawner("Main/P{id}/Spawner", SpawnerAuthority::PathPeer)
        .client_spawner("Main/Shots", SpawnerAuthority::Peer(3))
        .spawned("Main/P*/Spawner", Some(0), 0, props())
}

fn plain() -> [u8; 32] {
    RpcMethods::new(std::iter::empty::<&str>()).checksum()
}

fn pos(x: f64, y: f64) -> Variant {
    Variant::Vector2(Vector2::new(x, y))
}

fn spawn(cache_id: u32, net_id: u32, name: &str, sync_ids: &[u32]) -> Vec<u8> {
    SpawnBuilder::new(cache_id, net_id, name)
        .scene(0)
        .unwrap()
        .sync_ids(sync_ids)
        .state(&pos(1.0, 2.0))
        .unwrap()
        .finish()
        .unwrap()
}

fn sync(net_id: u32, v: &Variant) -> Vec<u8> {
    SyncBuilder::new(1)
        .entry(net_id, std::slice::from_ref(v))
        .unwrap()
        .finish()
        .unwrap()
}

fn delta(net_id: u32, mask: u64, v: &Variant) -> Vec<u8> {
    DeltaBuilder::new()
        .entry(net_id, mask, std::slice::from_ref(v))
        .unwrap()
        .finish()
        .unwrap()
}

/// A core with peers 2 and 3, peer 2 having cached its spawner `Main/P2/Spawner` as id 1.
fn joined() -> (ServerCore, Instant) {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.peer_connected(3, now).unwrap();
    core.take_actions();
    let offer = simplify_path(&plain(), 1, "Main/P2/Spawner").unwrap();
    core.receive(2, 0, R, 1, &offer, now);
    assert_eq!(sends(&core.take_actions()), [(2, confirm_path(true, 1))]);
    (core, now)
}

#[test]
fn the_schema_names_client_spawners() {
    let s = schema();
    assert_eq!(s.spawner_authority("/root/Main/P42/Spawner"), Some(42));
    assert_eq!(s.spawner_authority("Main/Shots"), Some(3));
    for no in [
        "Main/P/Spawner",
        "Main/P1/Spawner",
        "Main/Px2/Spawner",
        "Main/P99999999999/Spawner",
        "Main/P2/Spawner/X",
        "Main/Spawner",
    ] {
        assert_eq!(s.spawner_authority(no), None, "{no}");
    }
    let f = ServerSchema::parse(
        "spawner Main/P{id}/Spawner\nspawner Main/Shots 7\n\
         spawned Main/P*/Spawner 0 0 .:position=always+spawn .:hp=change\n",
    )
    .unwrap();
    assert_eq!(f.spawner_authority("Main/P9/Spawner"), Some(9));
    assert_eq!(f.spawner_authority("Main/Shots"), Some(7));
    assert_eq!(
        f.find_spawned("Main/P9/Spawner", Some(0), 0).unwrap().len(),
        2
    );
    for (bad, line) in [
        ("spawner Main/Shots\n", 1),
        ("rpc Main echo\nspawner Main/Shots 1\n", 2),
        ("spawner Main/Shots 5 6\n", 1),
        ("spawner\n", 1),
    ] {
        assert_eq!(ServerSchema::parse(bad).unwrap_err().line(), line, "{bad}");
    }
}

#[test]
fn a_clients_spawn_sync_and_despawn_reach_the_application() {
    let (mut core, now) = joined();
    core.receive(2, 0, R, 1, &spawn(1, 1, "Shot1", &[2]), now);
    let actions = core.take_actions();
    // Not sent on: the client spawns it on each peer itself.
    assert!(sends(&actions).is_empty(), "{actions:?}");
    let Event::Spawn(s) = events(actions).remove(0) else {
        panic!()
    };
    assert_eq!(
        (s.from(), s.spawner(), s.name(), s.net_id(), s.scene()),
        (2, "Main/P2/Spawner", "Shot1", 1, Some(0))
    );
    assert_eq!(s.sync_ids(), [2]);
    let state: Vec<Variant> = s.state().map(|v| v.unwrap().to_owned().unwrap()).collect();
    assert_eq!(state, [pos(1.0, 2.0)]);
    assert_eq!(s.custom_arg().count(), 0);
    assert_eq!(
        format!("{:?}", Event::Spawn(s.clone())),
        "Spawn(SPAWN Shot1 on Main/P2/Spawner scene 0 net id 1 syncs [2] state [Vector2(1, 2)] from 2)"
    );
    assert_eq!(
        core.client_nodes(2).collect::<Vec<_>>(),
        [(1, "Main/P2/Spawner", "Shot1")]
    );
    // Its synchronizer, by the net id of the spawn.
    core.receive(2, 0, R, 1, &sync(2, &pos(3.0, 4.0)), now);
    core.receive(2, 0, R, 1, &delta(2, 1, &Variant::Int(7)), now);
    let ev = events(core.take_actions());
    let dbg: Vec<String> = ev.iter().map(|e| format!("{e:?}")).collect();
    assert_eq!(
        dbg,
        [
            "Sync(SYNC Main/P2/Spawner node 1 sync 0 {.:position: Vector2(3, 4)} from 2)",
            "Sync(DELTA Main/P2/Spawner node 1 sync 0 {.:hp: 7} from 2)"
        ]
    );
    let Event::Sync(u) = &ev[0] else { panic!() };
    assert_eq!((u.net_id(), u.spawned(), u.time()), (2, Some((1, 0)), 1));
    // The despawn: the node and its synchronizer are forgotten.
    core.receive(2, 0, R, 1, &despawn(1), now);
    assert_eq!(
        events(core.take_actions()),
        [Event::Despawn {
            from: 2,
            spawner: "Main/P2/Spawner".into(),
            net_id: 1,
            name: "Shot1".into(),
            peer_left: false
        }]
    );
    core.receive(2, 0, R, 1, &sync(2, &pos(3.0, 4.0)), now);
    assert_eq!(
        rejected(&core.take_actions()),
        ["SYNC for net id 2: no synchronizer of a node peer 2 spawned"]
    );
    // The name is free again.
    core.receive(2, 0, R, 1, &spawn(1, 3, "Shot1", &[]), now);
    assert!(matches!(
        &events(core.take_actions())[..],
        [Event::Spawn(_)]
    ));
}

#[test]
fn a_leaving_client_s_nodes_are_reported_gone() {
    let (mut core, now) = joined();
    core.receive(2, 0, R, 1, &spawn(1, 5, "A", &[6]), now);
    core.receive(2, 0, R, 1, &spawn(1, 1, "B", &[]), now);
    core.take_actions();
    core.peer_disconnected(2);
    let ev = events(core.take_actions());
    let gone = |net_id: u32, name: &str| Event::Despawn {
        from: 2,
        spawner: "Main/P2/Spawner".into(),
        net_id,
        name: name.into(),
        peer_left: true,
    };
    assert_eq!(ev, [gone(1, "B"), gone(5, "A"), Event::PeerLeft(2)]);
    // Peer 3 is untouched.
    assert_eq!(core.peers().collect::<Vec<_>>(), [3]);
}

#[test]
fn hostile_spawns_and_despawns_are_refused() {
    let (mut core, now) = joined();
    let refused = |core: &mut ServerCore, from: i32, bytes: &[u8]| {
        core.receive(from, 0, R, 1, bytes, now);
        let actions = core.take_actions();
        assert!(
            !actions.iter().any(|a| matches!(
                a,
                Action::Event(Event::Spawn(_) | Event::Despawn { .. } | Event::Sync(_))
            )),
            "{actions:?}"
        );
        assert!(sends(&actions).is_empty(), "{actions:?}");
        rejected(&actions)
    };
    // An unknown spawner: a path id never cached; a path no spawner pattern matches.
    assert_eq!(
        refused(&mut core, 2, &spawn(9, 1, "X", &[])),
        ["SPAWN on unknown path id 9"]
    );
    let r = refused(
        &mut core,
        2,
        &simplify_path(&plain(), 2, "Main/Spawner").unwrap(),
    );
    assert_eq!(r, ["SIMPLIFY_PATH for unknown node \"Main/Spawner\""]);
    // Peer 3 on peer 2's spawner: the wrong authority.
    let offer = simplify_path(&plain(), 1, "Main/P2/Spawner").unwrap();
    core.receive(3, 0, R, 1, &offer, now);
    core.take_actions();
    assert_eq!(
        refused(&mut core, 3, &spawn(1, 1, "X", &[])),
        ["SPAWN on \"Main/P2/Spawner\" from 3: its authority is peer 2"]
    );
    // Bad names: empty is malformed; the characters the engine's validate_node_name replaces.
    for name in ["a.b", "a/b", "@X@2", "a:b", "a\"b", "a%b"] {
        let r = refused(&mut core, 2, &spawn(1, 1, name, &[]));
        assert_eq!(
            r,
            ["SPAWN on \"Main/P2/Spawner\": invalid node name"],
            "{name}"
        );
    }
    // A malformed spawn.
    let mut bad = spawn(1, 1, "X", &[]);
    bad.truncate(12);
    assert!(refused(&mut core, 2, &bad)[0].starts_with("malformed "));
    // A duplicate net id, a duplicate name.
    core.receive(2, 0, R, 1, &spawn(1, 1, "X", &[2]), now);
    core.take_actions();
    assert_eq!(
        refused(&mut core, 2, &spawn(1, 1, "Y", &[])),
        ["SPAWN on \"Main/P2/Spawner\": net id 1 is already one of peer 2's nodes"]
    );
    assert_eq!(
        refused(&mut core, 2, &spawn(1, 4, "X", &[])),
        ["SPAWN on \"Main/P2/Spawner\": a node named \"X\" is already there"]
    );
    // Peer 3 despawning peer 2's node, or sending state for its synchronizer.
    assert_eq!(
        refused(&mut core, 3, &despawn(1)),
        ["DESPAWN of net id 1: not a node peer 3 spawned"]
    );
    assert_eq!(
        refused(&mut core, 3, &sync(2, &pos(0.0, 0.0))),
        ["SYNC for net id 2: no synchronizer of a node peer 3 spawned"]
    );
    // Peer 2's node is still there, and its state still taken.
    assert_eq!(core.client_nodes(2).count(), 1);
    assert_eq!(core.client_nodes(3).count(), 0);
    core.receive(2, 0, R, 1, &sync(2, &pos(0.0, 0.0)), now);
    assert!(matches!(&events(core.take_actions())[..], [Event::Sync(_)]));
}

#[test]
fn a_spawn_flood_is_bounded_and_kicks_only_its_peer() {
    let cfg = ServerConfig {
        max_client_nodes: 10,
        max_strikes: 3,
        ..ServerConfig::default()
    };
    let mut core = ServerCore::new(schema(), cfg);
    let now = Instant::now();
    for p in [2, 3] {
        core.peer_connected(p, now).unwrap();
    }
    let offer = simplify_path(&plain(), 1, "Main/P2/Spawner").unwrap();
    core.receive(2, 0, R, 1, &offer, now);
    core.take_actions();
    // 5 nodes of one synchronizer each: 10.
    for i in 0..5 {
        core.receive(
            2,
            0,
            R,
            1,
            &spawn(1, 100 + i, &format!("N{i}"), &[200 + i]),
            now,
        );
    }
    assert_eq!(core.client_nodes(2).count(), 5);
    core.take_actions();
    core.receive(2, 0, R, 1, &spawn(1, 1, "More", &[]), now);
    assert_eq!(
        rejected(&core.take_actions()),
        ["SPAWN on \"Main/P2/Spawner\": more than 10 nodes and synchronizers spawned by peer 2"]
    );
    // A despawn makes room.
    core.receive(2, 0, R, 1, &despawn(100), now);
    core.receive(2, 0, R, 1, &spawn(1, 1, "More", &[2]), now);
    assert!(rejected(&core.take_actions()).is_empty());
    // Refused despawns pile up as strikes: the peer is kicked, its nodes reported gone.
    for _ in 0..4 {
        core.receive(2, 0, R, 1, &despawn(999), now);
    }
    let ev = events(core.take_actions());
    let gone = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Despawn {
                    peer_left: true,
                    ..
                }
            )
        })
        .count();
    assert_eq!(gone, 5);
    assert!(ev.contains(&Event::PeerLeft(2)));
    assert_eq!(core.peers().collect::<Vec<_>>(), [3]);
    // A huge announced sync count is refused as malformed without allocating for it.
    let mut huge = spawn(1, 7, "H", &[]);
    huge[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
    let offer = simplify_path(&plain(), 1, "Main/Shots").unwrap();
    core.receive(3, 0, R, 1, &offer, now);
    core.take_actions();
    core.receive(3, 0, R, 1, &huge, now);
    let r = rejected(&core.take_actions());
    assert!(r[0].starts_with("malformed "), "{r:?}");
    // Peer 3 owns Main/Shots (SpawnerAuthority::Peer).
    core.receive(3, 0, R, 1, &spawn(1, 7, "S", &[]), now);
    assert!(matches!(
        &events(core.take_actions())[..],
        [Event::Spawn(_)]
    ));
}
