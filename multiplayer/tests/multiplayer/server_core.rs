//! The server's sans-IO core: peers joining and leaving, authentication, the path cache both
//! ways, RPCs, relays, replication, and hostile peers (each refused with a reason, kicked when it
//! insists, never affecting the others, never a panic).

use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::server::{
    Action, AuthStep, Event, Flavor, Outgoing, RpcSpec, ServerConfig, ServerCore, ServerSchema, To,
    TransferMode,
};
use gdvariant_multiplayer::{
    self as multiplayer, add_peer, auth, auth_complete, confirm_path, del_peer, godot3, relay,
    simplify_path, NodeTarget, Packet, RemoteCallBuilder, Target,
};

const R: TransferMode = TransferMode::Reliable;

fn schema() -> ServerSchema {
    ServerSchema::new().node(
        "Main",
        [RpcSpec::any_peer("echo"), RpcSpec::authority("echoed")],
    )
}

fn checksum() -> [u8; 32] {
    *schema().find("Main").unwrap().checksum()
}

fn core(flavor: Flavor) -> ServerCore {
    ServerCore::new(
        schema(),
        ServerConfig {
            flavor,
            ..ServerConfig::default()
        },
    )
}

pub(crate) fn sends(actions: &[Action]) -> Vec<(i32, Vec<u8>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(Outgoing { to, bytes, .. }) => Some((*to, bytes.to_vec())),
            _ => None,
        })
        .collect()
}

pub(crate) fn events(actions: Vec<Action>) -> Vec<Event> {
    actions
        .into_iter()
        .filter_map(|a| match a {
            Action::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

pub(crate) fn rejected(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Event(Event::Rejected { reason, .. }) => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

fn echo_call(target: Target<'_>, v: i64) -> Vec<u8> {
    RemoteCallBuilder::new(target, 0)
        .arg(&Variant::Int(v))
        .unwrap()
        .finish()
        .unwrap()
}

#[test]
fn peers_are_told_of_each_other() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    c.peer_connected(3, now).unwrap();
    let a = c.take_actions();
    assert_eq!(sends(&a), [(2, add_peer(3)), (3, add_peer(2))]);
    assert!(c.peer_connected(3, now).is_err(), "an id taken");
    assert!(c.peer_connected(1, now).is_err(), "the server's id");
    c.peer_disconnected(2);
    let a = c.take_actions();
    assert_eq!(sends(&a), [(3, del_peer(2))]);
    assert_eq!(events(a), [Event::PeerLeft(2)]);
    // Relay off: nobody is told.
    c.set_relay(false);
    c.peer_connected(4, now).unwrap();
    assert!(sends(&c.take_actions()).is_empty());
}

#[test]
fn godot3_peers_are_told_by_the_transport() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot3);
    c.peer_connected(2, now).unwrap();
    c.peer_connected(3, now).unwrap();
    let a = c.take_actions();
    let notes: Vec<_> = a
        .iter()
        .filter_map(|a| match a {
            Action::Notify { to, peer, joined } => Some((*to, *peer, *joined)),
            _ => None,
        })
        .collect();
    assert_eq!(notes, [(2, 3, true), (3, 2, true)]);
}

#[test]
fn authentication_gates_everything_else() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4).with_auth(|_p: i32, d: &[u8]| {
        if d == b"secret" {
            AuthStep::Complete
        } else {
            AuthStep::Reject("wrong".into())
        }
    });
    c.peer_connected(2, now).unwrap();
    assert!(c.take_actions().is_empty(), "nothing until the peer speaks");
    // An RPC before authentication: refused, not delivered.
    c.receive(2, 0, R, 1, &echo_call(Target::Path("Main"), 1), now);
    let a = c.take_actions();
    assert!(rejected(&a)[0].contains("before authentication"), "{a:?}");
    // The secret: the server completes ([7][0]); the peer's own [7][0] admits it.
    c.receive(2, 0, R, 1, &auth(b"secret").unwrap(), now);
    assert_eq!(sends(&c.take_actions()), [(2, auth_complete())]);
    assert!(!c.has_peer(2));
    c.receive(2, 0, R, 1, &auth_complete(), now);
    assert_eq!(events(c.take_actions()), [Event::PeerJoined(2)]);
    // A wrong secret: kicked.
    c.peer_connected(3, now).unwrap();
    c.receive(3, 0, R, 1, &auth(b"guess").unwrap(), now);
    let a = c.take_actions();
    assert!(
        a.iter().any(|a| matches!(a, Action::Kick { peer: 3, .. })),
        "{a:?}"
    );
    assert_eq!(c.peers().collect::<Vec<_>>(), [2]);
    // Too slow: dropped at the timeout.
    c.peer_connected(4, now).unwrap();
    c.tick(now + Duration::from_secs(4));
    let a = c.take_actions();
    assert!(
        a.iter().any(|a| matches!(a, Action::Kick { peer: 4, .. })),
        "{a:?}"
    );
}

#[test]
fn the_path_cache_both_ways() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    // The client's cache: confirmed valid, then RPCs by id resolve.
    c.receive(
        2,
        0,
        R,
        1,
        &simplify_path(&checksum(), 5, "Main").unwrap(),
        now,
    );
    assert_eq!(sends(&c.take_actions()), [(2, confirm_path(true, 5))]);
    c.receive(2, 0, R, 1, &echo_call(Target::Id(5), 9), now);
    let Event::Rpc(call) = events(c.take_actions()).remove(0) else {
        panic!()
    };
    assert_eq!(
        (call.from(), call.path(), call.method()),
        (2, "Main", "echo")
    );
    assert_eq!(call.args().next().unwrap().unwrap().as_i64().unwrap(), 9);
    // A wrong checksum is confirmed invalid (as the engine does), and reported.
    c.receive(
        2,
        0,
        R,
        1,
        &simplify_path(&[b'0'; 32], 6, "Main").unwrap(),
        now,
    );
    let a = c.take_actions();
    assert_eq!(sends(&a), [(2, confirm_path(false, 6))]);
    assert!(rejected(&a)[0].contains("checksum"));
    // The server's cache: SIMPLIFY_PATH, the path inline until confirmed, then the id.
    c.rpc(To::Peer(2), "/root/Main", "echoed", &[Variant::Int(1)])
        .unwrap();
    let s = sends(&c.take_actions());
    assert_eq!(s[0], (2, simplify_path(&checksum(), 1, "Main").unwrap()));
    let Ok(Packet::RemoteCall(r)) = multiplayer::parse(&s[1].1) else {
        panic!()
    };
    assert!(matches!(r.node(), NodeTarget::Path(p) if p == "Main"));
    assert_eq!(r.method(), 1, "echoed is the second name");
    c.receive(2, 0, R, 1, &confirm_path(true, 1), now);
    c.rpc(To::Peer(2), "Main", "echoed", &[Variant::Int(1)])
        .unwrap();
    let s = sends(&c.take_actions());
    let by_id = RemoteCallBuilder::new(Target::Id(1), 1)
        .arg(&Variant::Int(1))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(s, [(2, by_id.clone())]);
    // Mixed: a confirmed peer gets the id in 32 bits, a new one the path.
    c.peer_connected(3, now).unwrap();
    c.take_actions();
    c.rpc(To::All, "Main", "echoed", &[Variant::Int(1)])
        .unwrap();
    let s = sends(&c.take_actions());
    let to2 = s.iter().find(|(p, b)| *p == 2 && b[0] & 7 == 0).unwrap();
    assert_eq!(to2.1[0] >> 4 & 3, 2, "32-bit node id");
    assert!(
        s.iter().any(|(p, b)| *p == 3 && b[0] == 1),
        "SIMPLIFY_PATH to the new peer"
    );
    // Peer 3 finds our checksum of Main wrong (its script's @rpc methods are not the schema's):
    // the path is confirmed all the same, as the engine does, and the mismatch reported.
    c.receive(3, 0, R, 1, &confirm_path(false, 1), now);
    let a = c.take_actions();
    let r = rejected(&a);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].contains("checksum mismatch for node \"Main\""),
        "{}",
        r[0]
    );
    c.rpc(To::Peer(3), "Main", "echoed", &[Variant::Int(1)])
        .unwrap();
    assert_eq!(sends(&c.take_actions()), [(3, by_id)]);
    // Unknown node or method: errors for the application.
    assert!(c.rpc(To::Peer(2), "Other", "x", &[Variant::Nil]).is_err());
    assert!(c.rpc(To::Peer(2), "Main", "nope", &[Variant::Nil]).is_err());
    assert!(c
        .rpc(To::Peer(9), "Main", "echoed", &[Variant::Nil])
        .is_err());
}

#[test]
fn refusals_do_not_touch_the_others() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    for p in [2, 3] {
        c.peer_connected(p, now).unwrap();
    }
    c.take_actions();
    let hostile: Vec<(&str, Vec<u8>)> = vec![
        ("unknown path id", echo_call(Target::Id(77), 1)),
        (
            "authority-only",
            RemoteCallBuilder::new(Target::Path("Main"), 1)
                .arg(&Variant::Int(1))
                .unwrap()
                .finish()
                .unwrap(),
        ),
        ("unknown node", echo_call(Target::Path("Elsewhere"), 1)),
        (
            "method id 9",
            RemoteCallBuilder::new(Target::Path("Main"), 9)
                .finish()
                .unwrap(),
        ),
        (
            "truncated",
            echo_call(Target::Path("Main"), 1)[..3].to_vec(),
        ),
        ("empty", vec![]),
        ("SYS ADD_PEER from a client", add_peer(3)),
        (
            "relay to the server",
            relay(1, &echo_call(Target::Path("Main"), 1)).unwrap(),
        ),
        (
            "relay to nobody",
            relay(999, &echo_call(Target::Path("Main"), 1)).unwrap(),
        ),
        (
            "SYS in a relay",
            [&[7u8, 3, 3, 0, 0, 0][..], &add_peer(2)].concat(),
        ),
        ("bad argument", {
            let mut b = echo_call(Target::Path("Main"), 1);
            b[4] = 0x3F;
            b
        }),
    ];
    for (what, bytes) in &hostile {
        c.receive(2, 0, R, 1, bytes, now);
        let a = c.take_actions();
        assert!(
            sends(&a).is_empty() && rejected(&a).len() == 1,
            "{what}: {a:?}"
        );
    }
    // Peer 3 still works, peer 2 is still there (11 strikes, under 16).
    assert_eq!(c.peers().collect::<Vec<_>>(), [2, 3]);
    c.receive(3, 0, R, 1, &echo_call(Target::Path("Main"), 5), now);
    assert!(matches!(events(c.take_actions())[..], [Event::Rpc(_)]));
    // Insisting gets it kicked, and 3 told.
    for _ in 0..6 {
        c.receive(2, 0, R, 1, &[0xFF], now);
    }
    let a = c.take_actions();
    assert!(a.iter().any(|a| matches!(a, Action::Kick { peer: 2, .. })));
    assert!(sends(&a).contains(&(3, del_peer(2))));
    assert_eq!(c.peers().collect::<Vec<_>>(), [3]);
}

#[test]
fn floods_are_kicked() {
    let now = Instant::now();
    let mut c = ServerCore::new(
        schema(),
        ServerConfig {
            max_packets_per_second: 100,
            ..ServerConfig::default()
        },
    );
    c.peer_connected(2, now).unwrap();
    c.peer_connected(3, now).unwrap();
    let raw = multiplayer::raw(b"x").unwrap();
    for _ in 0..100 {
        c.receive(2, 0, R, 1, &raw, now);
    }
    assert_eq!(c.peers().count(), 2);
    // A second later the budget is back.
    let later = now + Duration::from_secs(1);
    for _ in 0..101 {
        c.receive(2, 0, R, 1, &raw, later);
    }
    let a = c.take_actions();
    assert!(a
        .iter()
        .any(|a| matches!(a, Action::Kick { peer: 2, reason } if reason.contains("flood"))));
    assert_eq!(c.peers().collect::<Vec<_>>(), [3]);
}

#[test]
fn relays_as_the_engine() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    for p in [2, 3, 4] {
        c.peer_connected(p, now).unwrap();
    }
    c.take_actions();
    let inner = echo_call(Target::Path("Main"), 7);
    // To one peer: forwarded with the source, not run here.
    c.receive(2, 0, R, 1, &relay(3, &inner).unwrap(), now);
    let a = c.take_actions();
    assert_eq!(sends(&a), [(3, relay(2, &inner).unwrap())]);
    assert!(events(a).is_empty());
    // To everyone: the others, and the server runs it.
    c.receive(2, 0, R, 1, &relay(0, &inner).unwrap(), now);
    let a = c.take_actions();
    assert_eq!(
        sends(&a),
        [
            (3, relay(2, &inner).unwrap()),
            (4, relay(2, &inner).unwrap())
        ]
    );
    assert!(matches!(events(a)[..], [Event::Rpc(ref r)] if r.from() == 2));
    // All but 4; all but the server (-1).
    c.receive(2, 0, R, 1, &relay(-4, &inner).unwrap(), now);
    let a = c.take_actions();
    assert_eq!(sends(&a), [(3, relay(2, &inner).unwrap())]);
    assert_eq!(events(a).len(), 1);
    c.receive(2, 0, R, 1, &relay(-1, &inner).unwrap(), now);
    let a = c.take_actions();
    assert_eq!(sends(&a).len(), 2);
    assert!(events(a).is_empty());
}

#[test]
fn godot3_relays_by_header_and_calls_by_name() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot3);
    for p in [2, 3] {
        c.peer_connected(p, now).unwrap();
    }
    c.take_actions();
    let call = godot3::remote_call(Target::Path("Main"), "echo", &[Variant::Int(3)]).unwrap();
    c.receive(2, 0, R, 3, &call, now);
    let a = c.take_actions();
    assert!(
        matches!(&a[..], [Action::Send(o)] if o.to == 3 && o.source == 2 && o.target == 3 && o.bytes[..] == call[..])
    );
    c.receive(2, 0, R, 1, &call, now);
    let Event::Rpc(r) = events(c.take_actions()).remove(0) else {
        panic!()
    };
    assert_eq!((r.path(), r.method()), ("Main", "echo"));
    // Forged target, unknown method.
    c.receive(2, 0, R, 99, &call, now);
    assert_eq!(rejected(&c.take_actions()).len(), 1);
    let bad = godot3::remote_call(Target::Path("Main"), "nope", &[Variant::Int(3)]).unwrap();
    c.receive(2, 0, R, 1, &bad, now);
    assert_eq!(rejected(&c.take_actions()).len(), 1);
}

#[test]
fn godot3_rset_both_ways() {
    let now = Instant::now();
    let schema = ServerSchema::new().node(
        "Main",
        [
            RpcSpec::any_peer("echo"),
            RpcSpec::any_peer("color").property(),
            RpcSpec::authority("score").property(),
        ],
    );
    let cfg = ServerConfig {
        flavor: Flavor::Godot3,
        ..ServerConfig::default()
    };
    let mut c = ServerCore::new(schema, cfg);
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    // In: a `remote var`, by inline path, then by the peer's cache id.
    let set = godot3::remote_set(Target::Path("Main"), "color", &Variant::from("red")).unwrap();
    c.receive(2, 0, R, 1, &set, now);
    let Event::Rset(r) = events(c.take_actions()).remove(0) else {
        panic!()
    };
    assert_eq!((r.from(), r.path(), r.method()), (2, "Main", "color"));
    let v: Vec<Variant> = r.args().map(|v| v.unwrap().to_owned().unwrap()).collect();
    assert_eq!(v, [Variant::from("red")]);
    c.receive(2, 0, R, 1, &godot3::simplify_path(4, "Main").unwrap(), now);
    c.take_actions();
    let set = godot3::remote_set(Target::Id(4), "color", &Variant::Int(1)).unwrap();
    c.receive(2, 0, R, 1, &set, now);
    assert!(matches!(&events(c.take_actions())[..], [Event::Rset(r)] if r.method() == "color"));
    // A `puppet var` is the server's; an unknown property; a method is no property.
    for (name, why) in [
        (
            "score",
            "rset Main.score is the server's (puppet); refused from 2",
        ),
        ("nope", "rset of property \"nope\" unknown on \"Main\""),
        ("echo", "rset of property \"echo\" unknown on \"Main\""),
    ] {
        let set = godot3::remote_set(Target::Id(4), name, &Variant::Int(1)).unwrap();
        c.receive(2, 0, R, 1, &set, now);
        assert_eq!(rejected(&c.take_actions()), [why]);
    }
    // Out: SIMPLIFY_PATH, then the path inline until confirmed.
    c.rset(To::Peer(2), "/root/Main", "score", &Variant::Int(42))
        .unwrap();
    let want_set = godot3::remote_set(Target::Path("Main"), "score", &Variant::Int(42)).unwrap();
    assert_eq!(
        sends(&c.take_actions()),
        [
            (2, godot3::simplify_path(1, "Main").unwrap()),
            (2, want_set)
        ]
    );
    assert!(c
        .rset(To::Peer(2), "Main", "echo", &Variant::Int(1))
        .is_err());
    // Godot 4 has no rset.
    let mut c4 = core(Flavor::Godot4);
    c4.peer_connected(2, now).unwrap();
    assert!(c4.rset(To::All, "Main", "score", &Variant::Int(1)).is_err());
}

#[test]
fn spawns_follow_visibility() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    for p in [2, 3] {
        c.peer_connected(p, now).unwrap();
    }
    c.take_actions();
    let s = c
        .spawn(
            To::Peer(2),
            "Main/Spawner",
            0,
            "Thing",
            1,
            &[Variant::Int(42)],
        )
        .unwrap();
    assert_eq!((s.net_id, s.sync_ids.clone()), (1, vec![2]));
    let a = sends(&c.take_actions());
    assert_eq!(a.len(), 2, "SIMPLIFY_PATH of the spawner, SPAWN");
    let Ok(Packet::Spawn(sp)) = multiplayer::parse(&a[1].1) else {
        panic!()
    };
    assert_eq!(
        (sp.spawner(), sp.net_id(), sp.name().as_str()),
        (1, 1, Some("Thing"))
    );
    c.sync(To::All, 2, &[Variant::Int(1)]).unwrap();
    assert_eq!(
        sends(&c.take_actions())
            .iter()
            .map(|s| s.0)
            .collect::<Vec<_>>(),
        [2],
        "only who sees it"
    );
    c.set_visible(1, 3, true).unwrap();
    c.take_actions();
    c.delta(To::All, 2, 1, &[Variant::Int(5)]).unwrap();
    assert_eq!(sends(&c.take_actions()).len(), 2);
    c.set_visible(1, 2, false).unwrap();
    assert_eq!(sends(&c.take_actions()), [(2, multiplayer::despawn(1))]);
    c.despawn(1).unwrap();
    assert_eq!(sends(&c.take_actions()), [(3, multiplayer::despawn(1))]);
    assert!(c.despawn(1).is_err());
}

#[test]
fn late_joiners_get_public_nodes_with_their_state() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    let pos = |x: f64| Variant::Vector2(gdvariant::math::Vector2::new(x, 6.0));
    // Public (To::All), private (To::Peer), and public but hidden from peer 3.
    let public = c
        .spawn(
            To::All,
            "Main/Spawner",
            0,
            "Shared",
            1,
            &[pos(5.0), Variant::Int(42)],
        )
        .unwrap();
    let private = c
        .spawn(
            To::Peer(2),
            "Main/Spawner",
            0,
            "Mine",
            1,
            &[Variant::Int(1)],
        )
        .unwrap();
    let hidden = c
        .spawn(To::All, "Main/Spawner", 0, "Secret", 0, &[] as &[Variant])
        .unwrap();
    c.set_visible(hidden.net_id, 2, false).unwrap();
    c.sync(To::All, public.sync_ids[0], &[pos(7.0)]).unwrap();
    c.delta(To::All, public.sync_ids[0], 0b10, &[Variant::Int(41)])
        .unwrap();
    c.delta(To::All, public.sync_ids[0], 0b01, &[Variant::from("a")])
        .unwrap();
    c.delta(To::All, public.sync_ids[0], 0b01, &[Variant::from("b")])
        .unwrap();
    c.set_spawn_state(public.net_id, &[pos(7.0), Variant::Int(41)])
        .unwrap();
    c.take_actions();

    // Peer 3 joins: ADD_PEER both ways, then the public node spawned with the spawn state as
    // last set, then its synchronizer's last SYNC and every on-change value (the latest of
    // each), as the engine's next frame sends them; then the application hears of the peer.
    c.peer_connected(3, now).unwrap();
    let a = c.take_actions();
    assert!(matches!(
        a.last(),
        Some(Action::Event(Event::PeerJoined(3)))
    ));
    let s = sends(&a);
    let want_spawn = multiplayer::SpawnBuilder::new(1, public.net_id, "Shared")
        .sync_ids(&public.sync_ids)
        .state(&pos(7.0))
        .unwrap()
        .state(&Variant::Int(41))
        .unwrap()
        .finish()
        .unwrap();
    let want_sync = multiplayer::SyncBuilder::new(2)
        .entry(public.sync_ids[0], &[pos(7.0)])
        .unwrap()
        .finish()
        .unwrap();
    let want_delta = multiplayer::DeltaBuilder::new()
        .entry(
            public.sync_ids[0],
            0b11,
            &[Variant::from("b"), Variant::Int(41)],
        )
        .unwrap()
        .finish()
        .unwrap();
    let no_rpcs = multiplayer::RpcMethods::new(std::iter::empty::<&str>()).checksum();
    assert_eq!(
        s,
        [
            (2, add_peer(3)),
            (3, add_peer(2)),
            (3, simplify_path(&no_rpcs, 1, "Main/Spawner").unwrap()),
            (3, want_spawn),
            (3, want_sync),
            (3, want_delta),
            (
                3,
                multiplayer::SpawnBuilder::new(1, hidden.net_id, "Secret")
                    .finish()
                    .unwrap()
            ),
        ]
    );
    // The SYNC went unreliable, the rest reliable.
    let modes: Vec<TransferMode> = a
        .iter()
        .filter_map(|a| match a {
            Action::Send(o) => Some(o.mode),
            _ => None,
        })
        .collect();
    assert_eq!(modes[4], TransferMode::Unreliable);
    // Later syncs and the despawn reach the late peer too; the node hidden from peer 2 reaches
    // it when shown.
    c.sync(To::All, public.sync_ids[0], &[pos(8.0)]).unwrap();
    assert_eq!(
        sends(&c.take_actions())
            .iter()
            .map(|s| s.0)
            .collect::<Vec<_>>(),
        [2, 3]
    );
    c.set_visible(hidden.net_id, 2, true).unwrap();
    assert_eq!(
        sends(&c.take_actions()).len(),
        1,
        "SPAWN (the path is cached)"
    );
    c.despawn(public.net_id).unwrap();
    assert_eq!(
        sends(&c.take_actions()),
        [
            (2, multiplayer::despawn(public.net_id)),
            (3, multiplayer::despawn(public.net_id))
        ]
    );
    // Hidden from peer 3 (a despawn), public still: a new peer gets it, never the private one.
    c.set_visible(hidden.net_id, 3, false).unwrap();
    assert_eq!(
        sends(&c.take_actions()),
        [(3, multiplayer::despawn(hidden.net_id))]
    );
    c.peer_disconnected(3);
    c.peer_connected(4, now).unwrap();
    let s = sends(&c.take_actions());
    assert!(
        s.iter()
            .any(|(p, b)| *p == 4 && b[0] == 4 && b[6..10] == hidden.net_id.to_le_bytes()),
        "the public node reaches the new peer: {s:?}"
    );
    assert!(
        !s.iter()
            .any(|(p, b)| *p == 4 && b[0] == 4 && b[6..10] == private.net_id.to_le_bytes()),
        "the private node does not"
    );
}

#[test]
fn a_schema_file_drives_the_server() {
    let file = "# a game's nodes\n\
                rpc /root/Main echo@any_peer echoed\n\
                rpc Players/* jump@any_peer,unreliable hit@unreliable_ordered,2 # server only\n\
                sync Players/*/Sync .:position=always\n";
    let schema = ServerSchema::parse(file).unwrap();
    assert_eq!(
        ServerSchema::parse("rpc Main echo\nrpc Main echo@sometimes\n")
            .unwrap_err()
            .line(),
        2
    );
    // Methods configured with Node.rpc_config (after `native`): ids from 0x8000, first in the
    // checksum, as the engine numbers them.
    let n = ServerSchema::parse("rpc Main b a@any_peer native d c@any_peer,2").unwrap();
    let main = n.find("Main").unwrap();
    let ids: Vec<(u16, &str, bool)> = [0, 1, 0x8000, 0x8001]
        .iter()
        .map(|&i| {
            let m = main.by_id(i).unwrap();
            (i, m.name(), m.is_native())
        })
        .collect();
    assert_eq!(
        ids,
        [
            (0, "a", false),
            (1, "b", false),
            (0x8000, "c", true),
            (0x8001, "d", true)
        ]
    );
    assert_eq!(main.by_name("c").unwrap().1.transfer_channel(), 2);
    assert_eq!(
        main.checksum(),
        &multiplayer::RpcMethods::new(["a", "b"])
            .with_node_methods(["c", "d"])
            .checksum()
    );
    let now = Instant::now();
    let mut c = ServerCore::new(schema, ServerConfig::default());
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    // The client calls Players/7's hit (authority: refused) and jump (any_peer: delivered).
    let checksum = multiplayer::RpcMethods::new(["hit", "jump"]).checksum();
    c.receive(
        2,
        0,
        R,
        1,
        &simplify_path(&checksum, 5, "Players/7").unwrap(),
        now,
    );
    c.take_actions();
    let call = |m: u16| RemoteCallBuilder::new(Target::Id(5), m).finish().unwrap();
    c.receive(2, 0, R, 1, &call(0), now);
    assert_eq!(rejected(&c.take_actions()).len(), 1, "hit is authority");
    c.receive(2, 0, R, 1, &call(1), now);
    let ev = events(c.take_actions());
    assert!(
        matches!(&ev[..], [Event::Rpc(r)] if (r.path(), r.method()) == ("Players/7", "jump")),
        "{ev:?}"
    );
    // The server sends hit as the file says: unreliable ordered, on channel 2.
    c.rpc(To::Peer(2), "Players/7", "hit", &[] as &[Variant])
        .unwrap();
    let a = c.take_actions();
    let Some(Action::Send(o)) = a.last() else {
        panic!("{a:?}")
    };
    assert_eq!((o.channel, o.mode), (2, TransferMode::UnreliableOrdered));
}

/// Arbitrary bytes from arbitrary peers (a deterministic xorshift stream; the fuzz target
/// `mp_server` does the same without bound): never a panic, the honest peer unharmed.
#[test]
fn random_bytes_never_panic() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for flavor in [Flavor::Godot4, Flavor::Godot3] {
        let now = Instant::now();
        let mut c = core(flavor);
        c.peer_connected(2, now).unwrap();
        for round in 0..20_000u32 {
            let peer = 3 + (next() % 4) as i32;
            if !c.is_taken(peer) {
                let _ = c.peer_connected(peer, now);
            }
            let len = (next() % 24) as usize;
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if let Some(f) = b.first_mut() {
                *f &= 0x17; // mostly valid commands
            }
            let target = [1, 0, -1, 2, 3, 99, -5][(next() % 7) as usize];
            c.receive(
                peer,
                (next() % 3) as u8,
                R,
                target,
                &b,
                now + Duration::from_millis(u64::from(round)),
            );
            c.take_actions();
        }
        assert!(c.has_peer(2), "the quiet peer stays");
    }
}
