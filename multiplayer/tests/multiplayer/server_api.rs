//! The server's sans-IO core refusing what the application asks of it that cannot be done: a
//! refused call changes nothing and sends nothing, and what a joining peer could not be sent is
//! said ([`Event::NotSent`]).

use std::time::Instant;

use gdvariant::Variant;
use gdvariant_multiplayer::server::{
    Action, AuthStep, Authenticator, Event, Flavor, PeerId, RpcSpec, ServerConfig, ServerCore,
    ServerError, ServerSchema, To,
};
use gdvariant_multiplayer::{self as multiplayer, simplify_path, Packet, RpcMethods};

use crate::server_core::{events, sends};

const NONE: &[Variant] = &[];

fn core(flavor: Flavor) -> ServerCore {
    let schema = ServerSchema::new().node(
        "Main",
        [
            RpcSpec::any_peer("echo"),
            RpcSpec::any_peer("color").property(),
        ],
    );
    ServerCore::new(
        schema,
        ServerConfig {
            flavor,
            ..ServerConfig::default()
        },
    )
}

/// A server of `flavor` with peer 2 joined, its actions taken.
fn joined(flavor: Flavor) -> ServerCore {
    let mut c = core(flavor);
    c.peer_connected(2, Instant::now()).unwrap();
    c.take_actions();
    c
}

/// The checksum of a node without RPCs, as the paths of spawners and synchronizers carry it.
fn plain() -> [u8; 32] {
    RpcMethods::new(std::iter::empty::<&str>()).checksum()
}

fn encode_err<T: std::fmt::Debug>(r: Result<T, ServerError>) -> String {
    match r {
        Err(ServerError::Encode(e)) => e.to_string(),
        other => panic!("not an Encode error: {other:?}"),
    }
}

#[test]
fn a_join_says_what_it_could_not_send() {
    let now = Instant::now();
    let mut c = core(Flavor::Godot4);
    // Two synchronizers of the server's, before any peer: one whose path cannot be sent.
    c.set_path_public("World/Bad\0Sync", true).unwrap();
    c.sync_path(To::All, "World/Sync", &[Variant::Int(1)])
        .unwrap();
    assert!(c.take_actions().is_empty(), "no peer yet");
    for peer in [2, 3] {
        c.peer_connected(peer, now).unwrap();
        let a = c.take_actions();
        // The good path is offered all the same …
        assert!(
            sends(&a).contains(&(peer, simplify_path(&plain(), 2, "World/Sync").unwrap())),
            "{a:?}"
        );
        // … and the application is told of the other, before the peer's join.
        let e = events(a);
        let [Event::NotSent {
            peer: p,
            what,
            reason,
        }, Event::PeerJoined(j)] = &e[..]
        else {
            panic!("{e:?}")
        };
        assert_eq!((*p, *j), (peer, peer));
        assert_eq!(what, "synchronizer \"World/Bad\\0Sync\"");
        assert!(reason.starts_with("cannot encode the packet"), "{reason}");
    }
}

#[test]
fn a_failed_spawn_leaves_no_trace() {
    let mut c = joined(Flavor::Godot4);
    let bad: [(&str, u8, &str); 3] = [
        ("Main/Spawn\0er", 0, "Thing"), // a spawner path that cannot be sent
        ("Main/Spawner", 255, "Thing"), // the custom spawn's scene index
        ("Main/Spawner", 0, "Th\0ing"), // a name that cannot be sent
    ];
    for (spawner, scene, name) in bad {
        let e = encode_err(c.spawn(To::All, spawner, scene, name, 2, &[Variant::Int(1)]));
        assert!(!e.is_empty());
        assert!(c.take_actions().is_empty(), "nothing sent for {spawner:?}");
        if scene == 0 {
            let e = encode_err(c.spawn_custom(To::All, spawner, name, &Variant::Int(0), 2, NONE));
            assert!(!e.is_empty());
            assert!(c.take_actions().is_empty());
        }
    }
    // No net id was used, no node kept: the next spawn is net id 1, and a late peer gets it alone.
    let s = c
        .spawn(To::All, "Main/Spawner", 0, "Thing", 2, NONE)
        .unwrap();
    assert_eq!((s.net_id, s.sync_ids), (1, vec![2, 3]));
    c.take_actions();
    c.peer_connected(3, Instant::now()).unwrap();
    let a = c.take_actions();
    let spawns: Vec<u32> = sends(&a)
        .iter()
        .filter_map(|(_, b)| match multiplayer::parse(b) {
            Ok(Packet::Spawn(s)) => Some(s.net_id()),
            _ => None,
        })
        .collect();
    assert_eq!(spawns, [1]);
    assert_eq!(events(a), [Event::PeerJoined(3)], "nothing failed");
}

#[test]
fn spawn_refuses_more_than_1024_synchronizers() {
    let mut c = joined(Flavor::Godot4);
    let e = encode_err(c.spawn(To::All, "Main/Spawner", 0, "Big", 1025, NONE));
    assert!(e.contains("more than 1024 synchronizers"), "{e}");
    assert!(c.take_actions().is_empty());
    let s = c
        .spawn(To::All, "Main/Spawner", 0, "Big", 1024, NONE)
        .unwrap();
    assert_eq!((s.net_id, s.sync_ids.len()), (1, 1024));
    assert_eq!(s.sync_ids.last(), Some(&1025));
    let a = sends(&c.take_actions());
    let Ok(Packet::Spawn(sp)) = multiplayer::parse(&a[1].1) else {
        panic!("{a:?}")
    };
    assert_eq!(sp.sync_ids().len(), 1024);
}

#[test]
fn sync_refuses_no_values_as_delta_does() {
    let mut c = joined(Flavor::Godot4);
    let s = c
        .spawn(To::All, "Main/Spawner", 0, "Thing", 1, NONE)
        .unwrap();
    c.take_actions();
    let id = s.sync_ids[0];
    let e = encode_err(c.sync(To::All, id, NONE));
    assert!(e.contains("SYNC without values"), "{e}");
    let e = encode_err(c.delta(To::All, id, 0, NONE));
    assert!(e.contains("DELTA without values"), "{e}");
    assert!(c.take_actions().is_empty(), "nothing sent");
    // Nothing kept either: a peer shown the node later gets no SYNC with it.
    c.peer_connected(3, Instant::now()).unwrap();
    let a = sends(&c.take_actions());
    let to_3: Vec<Packet<'_>> = a
        .iter()
        .filter(|(to, _)| *to == 3)
        .map(|(_, b)| multiplayer::parse(b).unwrap())
        .collect();
    assert_eq!(to_3.len(), 3, "ADD_PEER, SIMPLIFY_PATH, SPAWN: {to_3:?}");
    assert!(matches!(to_3[2], Packet::Spawn(_)), "{to_3:?}");
    // The server's synchronizers outside spawned nodes: the same.
    let e = encode_err(c.sync_path(To::All, "World/Sync", NONE));
    assert!(e.contains("SYNC without values"), "{e}");
    let e = encode_err(c.delta_path(To::All, "World/Sync", 0, NONE));
    assert!(e.contains("DELTA without values"), "{e}");
    assert!(c.take_actions().is_empty());
}

/// Sends empty data at the first step.
struct Empty;

impl Authenticator for Empty {
    fn start(&mut self, _peer: PeerId) -> AuthStep {
        AuthStep::Send(Vec::new())
    }

    fn data(&mut self, _peer: PeerId, _data: &[u8]) -> AuthStep {
        AuthStep::Wait
    }
}

#[test]
fn empty_auth_data_is_refused_and_said() {
    let now = Instant::now();
    // As the engine's `send_auth`: empty data refused, nothing sent, the peer still waiting.
    let mut c = core(Flavor::Godot4).with_auth(|_p: PeerId, _d: &[u8]| AuthStep::Wait);
    c.peer_connected(2, now).unwrap();
    c.take_actions();
    let e = encode_err(c.send_auth(2, &[]));
    assert!(e.contains("empty authentication data"), "{e}");
    assert!(c.take_actions().is_empty());
    assert!(c.is_taken(2) && !c.has_peer(2), "still authenticating");
    // An authenticator whose step is empty data: the peer is kicked, and the event says why.
    let mut c = core(Flavor::Godot4).with_auth(Empty);
    c.peer_connected(2, now).unwrap();
    let a = c.take_actions();
    assert!(sends(&a).is_empty(), "{a:?}");
    let [Action::Kick {
        peer: 2,
        reason: kick,
    }, Action::Event(Event::AuthFailed { peer: 2, reason })] = &a[..]
    else {
        panic!("{a:?}")
    };
    assert!(
        kick.starts_with("the authenticator's step failed: "),
        "{kick}"
    );
    assert!(kick.contains("empty authentication data"), "{kick}");
    assert_eq!(*reason, format!("kicked: {kick}"));
    assert!(!c.is_taken(2));
}

#[test]
fn rset_of_a_missing_property_says_property() {
    let mut c = joined(Flavor::Godot3);
    for name in ["nope", "echo"] {
        match c.rset(To::All, "Main", name, &Variant::Int(1)) {
            Err(ServerError::UnknownProperty { path, property }) => {
                assert_eq!((path.as_str(), property.as_str()), ("Main", name));
            }
            other => panic!("{other:?}"),
        }
    }
    let e = ServerError::UnknownProperty {
        path: "Main".into(),
        property: "nope".into(),
    };
    assert_eq!(e.to_string(), "node \"Main\" has no property \"nope\"");
    c.rset(To::All, "Main", "color", &Variant::Int(1)).unwrap();
    assert!(c.take_actions().len() == 2, "SIMPLIFY_PATH, the rset");
}

#[test]
fn godot3_refuses_godot4_replication_before_sending() {
    let mut c = joined(Flavor::Godot3);
    let v = [Variant::Int(1)];
    let calls: [(&str, Result<(), ServerError>); 11] = [
        ("spawn", c.spawn(To::All, "S", 0, "N", 1, &v).map(drop)),
        (
            "spawn_custom",
            c.spawn_custom(To::All, "S", "N", &v[0], 1, &v).map(drop),
        ),
        ("set_spawn_state", c.set_spawn_state(1, &v)),
        ("set_visible", c.set_visible(1, 2, true)),
        ("sync", c.sync(To::All, 2, &v)),
        ("delta", c.delta(To::All, 2, 1, &v)),
        ("despawn", c.despawn(1)),
        ("sync_path", c.sync_path(To::All, "W/Sync", &v)),
        ("delta_path", c.delta_path(To::All, "W/Sync", 1, &v)),
        ("set_path_public", c.set_path_public("W/Sync", false)),
        ("set_path_visible", c.set_path_visible("W/Sync", 2, true)),
    ];
    for (name, r) in calls {
        match r {
            Err(ServerError::Unsupported(what)) => {
                assert_eq!(what, format!("{name} (Godot 4)"));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    assert!(c.take_actions().is_empty(), "nothing sent");
    assert!(c.path_visible("W/Sync", 2), "no synchronizer made");
}

/// As the engine's `send_auth`: once either side has marked the authentication completed, no
/// more authentication data is sent (`ServerError::AuthCompleted`), and nothing changes.
#[test]
fn no_auth_data_after_either_side_completed() {
    let now = Instant::now();
    let r = gdvariant_multiplayer::server::TransferMode::Reliable;
    // The server completed first.
    let mut c = core(Flavor::Godot4).with_auth(|_p: PeerId, _d: &[u8]| AuthStep::Wait);
    c.peer_connected(2, now).unwrap();
    c.send_auth(2, b"challenge").unwrap();
    assert_eq!(
        sends(&c.take_actions()),
        [(2, multiplayer::auth(b"challenge").unwrap())]
    );
    c.complete_auth(2).unwrap();
    assert_eq!(
        sends(&c.take_actions()),
        [(2, multiplayer::auth_complete())]
    );
    assert!(matches!(
        c.send_auth(2, b"more"),
        Err(ServerError::AuthCompleted(2))
    ));
    assert!(c.take_actions().is_empty());
    // The peer completed first ([7][0] from it): the server may still complete, not send.
    let mut c = core(Flavor::Godot4).with_auth(|_p: PeerId, _d: &[u8]| AuthStep::Wait);
    c.peer_connected(3, now).unwrap();
    c.receive(3, 0, r, 1, &multiplayer::auth_complete(), now);
    c.take_actions();
    let e = c.send_auth(3, b"more").unwrap_err();
    assert!(matches!(e, ServerError::AuthCompleted(3)), "{e:?}");
    assert!(e.to_string().contains("no more authentication data"), "{e}");
    assert!(c.take_actions().is_empty());
    c.complete_auth(3).unwrap();
    let a = c.take_actions();
    assert_eq!(sends(&a), [(3, multiplayer::auth_complete())]);
    assert!(events(a).contains(&Event::PeerJoined(3)));
}
