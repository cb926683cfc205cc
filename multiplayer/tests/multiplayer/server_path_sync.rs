//! The server's sans-IO core with synchronizers outside spawned nodes (the server's, sent under
//! bit 31 and the path cache id once the peer confirmed the path; the clients', delivered as
//! `Event::Sync`), and custom spawns. The same packets against real engines: `server_scene.rs`
//! and `server_compare.rs`.

use std::time::Instant;

use gdvariant::{math::Vector2, Variant};
use gdvariant_multiplayer::server::{
    Action, Event, Outgoing, RpcSpec, ServerConfig, ServerCore, ServerSchema, To, TransferMode,
};
use gdvariant_multiplayer::{
    self as multiplayer, add_peer, confirm_path, simplify_path, DeltaBuilder, Packet, Property,
    ReplicationMode, RpcMethods, SyncBuilder,
};

const R: TransferMode = TransferMode::Reliable;

fn schema() -> ServerSchema {
    let props = || {
        [
            Property::new(".:position", ReplicationMode::Always, false),
            Property::new(".:hp", ReplicationMode::OnChange, false),
        ]
    };
    ServerSchema::new()
        .node("Main", [RpcSpec::any_peer("echo")])
        .synchronizer("Main/P*/Sync", props())
        .synchronizer("Main/Board/Sync", props())
}

/// The checksum of a node without RPCs, as a synchronizer's `SIMPLIFY_PATH` carries.
fn plain() -> [u8; 32] {
    RpcMethods::new(std::iter::empty::<&str>()).checksum()
}

fn sends(actions: &[Action]) -> Vec<(i32, TransferMode, Vec<u8>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(Outgoing {
                to, mode, bytes, ..
            }) => Some((*to, *mode, bytes.to_vec())),
            _ => None,
        })
        .collect()
}

fn rejected(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Event(Event::Rejected { reason, .. }) => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

fn pos(x: f64, y: f64) -> Variant {
    Variant::Vector2(Vector2::new(x, y))
}

/// A SYNC packet with its sync time zeroed (the server counts its own).
fn untimed(mut b: Vec<u8>) -> Vec<u8> {
    if b.first() == Some(&0x06) {
        b[1..3].fill(0);
    }
    b
}

fn sync(net_id: u32, v: &Variant) -> Vec<u8> {
    SyncBuilder::new(0)
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

#[test]
fn the_servers_synchronizers_go_by_path_once_confirmed() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.take_actions();
    // Nothing but the path until the peer confirms it: the engine skips an unconfirmed
    // path-based synchronizer.
    core.sync_path(To::All, "/root/Main/Board/Sync", &[pos(3.0, 4.0)])
        .unwrap();
    core.delta_path(To::All, "Main/Board/Sync", 1, &[Variant::Int(9)])
        .unwrap();
    let offer = simplify_path(&plain(), 1, "Main/Board/Sync").unwrap();
    assert_eq!(sends(&core.take_actions()), [(2, R, offer.clone())]);
    // Confirmed: the last SYNC and every DELTA value so far, under 0x80000000 | 1.
    core.receive(2, 0, R, 1, &confirm_path(true, 1), now);
    let got: Vec<_> = sends(&core.take_actions())
        .into_iter()
        .map(|(to, m, b)| (to, m, untimed(b)))
        .collect();
    assert_eq!(
        got,
        [
            (
                2,
                TransferMode::Unreliable,
                sync(0x8000_0001, &pos(3.0, 4.0))
            ),
            (2, R, delta(0x8000_0001, 1, &Variant::Int(9))),
        ]
    );
    // From now on at once.
    core.sync_path(To::All, "Main/Board/Sync", &[pos(5.0, 6.0)])
        .unwrap();
    let got = sends(&core.take_actions());
    assert_eq!(got.len(), 1);
    assert_eq!(untimed(got[0].2.clone()), sync(0x8000_0001, &pos(5.0, 6.0)));
    // A peer that joins later gets the path after ADD_PEER, then the latest state.
    core.peer_connected(3, now).unwrap();
    assert_eq!(
        sends(&core.take_actions()),
        [(2, R, add_peer(3)), (3, R, add_peer(2)), (3, R, offer)]
    );
    core.receive(3, 0, R, 1, &confirm_path(true, 1), now);
    let got: Vec<_> = sends(&core.take_actions())
        .into_iter()
        .map(|(to, _, b)| (to, untimed(b)))
        .collect();
    assert_eq!(
        got,
        [
            (3, sync(0x8000_0001, &pos(5.0, 6.0))),
            (3, delta(0x8000_0001, 1, &Variant::Int(9))),
        ]
    );
}

#[test]
fn custom_spawns_carry_their_data() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.take_actions();
    let data = Variant::from("blue");
    let s = core
        .spawn_custom(
            To::All,
            "Main/Spawner",
            "Custom1",
            &data,
            1,
            &[Variant::Int(5)],
        )
        .unwrap();
    assert_eq!((s.net_id, s.sync_ids.as_slice()), (1, &[2][..]));
    let got = sends(&core.take_actions());
    assert_eq!(
        got[0].2,
        simplify_path(&plain(), 1, "Main/Spawner").unwrap()
    );
    let Ok(Packet::Spawn(spawn)) = multiplayer::parse(&got[1].2) else {
        panic!("{got:?}")
    };
    assert_eq!(spawn.scene(), None);
    assert_eq!((spawn.spawner(), spawn.net_id()), (1, 1));
    assert_eq!(spawn.name().as_str(), Some("Custom1"));
    assert_eq!(spawn.sync_ids().collect::<Vec<_>>(), [2]);
    let arg = spawn.custom_arg().unwrap().unwrap().to_owned().unwrap();
    assert_eq!(arg, data);
    let state: Vec<Variant> = spawn
        .state()
        .map(|v| v.unwrap().to_owned().unwrap())
        .collect();
    assert_eq!(state, [Variant::Int(5)]);
    // A late peer gets it too, custom data and all.
    core.peer_connected(3, now).unwrap();
    let late = sends(&core.take_actions());
    assert_eq!(late.last().unwrap().2, got[1].2);
}

#[test]
fn client_synchronizers_reach_the_application() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.take_actions();
    // The client's own synchronizer: its path confirmed as valid (no RPCs, as the engine's).
    let offer = simplify_path(&plain(), 5, "Main/P2/Sync").unwrap();
    core.receive(2, 0, R, 1, &offer, now);
    assert_eq!(sends(&core.take_actions()), [(2, R, confirm_path(true, 5))]);
    core.receive(2, 0, R, 1, &sync(0x8000_0005, &pos(2.0, 1.0)), now);
    core.receive(2, 0, R, 1, &delta(0x8000_0005, 1, &Variant::Int(50)), now);
    let updates: Vec<_> = core
        .take_actions()
        .into_iter()
        .filter_map(|a| match a {
            Action::Event(Event::Sync(u)) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(updates.len(), 2);
    let (s, d) = (&updates[0], &updates[1]);
    assert_eq!(
        (s.from(), s.path(), s.net_id(), s.mask()),
        (2, "Main/P2/Sync", 0x8000_0005, None)
    );
    assert_eq!(s.properties().collect::<Vec<_>>(), [".:position"]);
    let v: Vec<Variant> = s.values().map(|v| v.unwrap().to_owned().unwrap()).collect();
    assert_eq!(v, [pos(2.0, 1.0)]);
    assert_eq!((d.path(), d.mask()), ("Main/P2/Sync", Some(1)));
    assert_eq!(d.properties().collect::<Vec<_>>(), [".:hp"]);
    let v: Vec<Variant> = d.values().map(|v| v.unwrap().to_owned().unwrap()).collect();
    assert_eq!(v, [Variant::Int(50)]);
    assert_eq!(
        format!("{:?}", Event::Sync(d.clone())),
        "Sync(DELTA Main/P2/Sync {.:hp: 50} from 2)"
    );
}

#[test]
fn client_synchronizers_are_checked() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.sync_path(To::All, "Main/Board/Sync", &[pos(3.0, 4.0)])
        .unwrap();
    core.take_actions();
    let mut refused = |bytes: &[u8]| {
        core.receive(2, 0, R, 1, bytes, now);
        let actions = core.take_actions();
        assert!(
            !actions
                .iter()
                .any(|a| matches!(a, Action::Event(Event::Sync(_)))),
            "{actions:?}"
        );
        rejected(&actions)
    };
    // A synchronizer the schema does not list: its path is not confirmed.
    let r = refused(&simplify_path(&plain(), 1, "Main/Other/Sync").unwrap());
    assert_eq!(r, ["SIMPLIFY_PATH for unknown node \"Main/Other/Sync\""]);
    // A path id never cached, a net id of a spawned synchronizer the server never gave.
    let r = refused(&sync(0x8000_0009, &pos(0.0, 0.0)));
    assert_eq!(r, ["SYNC on unknown path id 9"]);
    let r = refused(&delta(7, 1, &Variant::Int(1)));
    assert_eq!(
        r,
        ["DELTA for net id 7: no synchronizer of a node peer 2 spawned"]
    );
    // The server's own synchronizer: its state from a client is refused, as the engine refuses
    // state from a peer that is not the synchronizer's authority.
    let r = refused(&simplify_path(&plain(), 3, "Main/Board/Sync").unwrap());
    assert!(r.is_empty(), "{r:?}");
    let r = refused(&sync(0x8000_0003, &pos(0.0, 0.0)));
    assert_eq!(
        r,
        ["SYNC for \"Main/Board/Sync\" from 2: the server is its authority"]
    );
    // A malformed entry.
    let mut bad = delta(0x8000_0003, 1, &Variant::Int(1));
    bad.truncate(bad.len() - 1);
    let r = refused(&bad);
    assert_eq!(r.len(), 1);
    assert!(r[0].starts_with("malformed "), "{r:?}");
}

/// Per-peer visibility of the server's synchronizers, as the engine's `public_visibility` and
/// `set_visibility_for` do for one outside spawned nodes: a peer that does not see it gets
/// nothing of it (not even its path); one that comes to see it gets the path, then, once
/// confirmed, the last SYNC and a DELTA of every "on change" value; hidden again, nothing is
/// sent (no despawn), and shown again it gets the state at once, its path already confirmed.
#[test]
fn the_servers_synchronizers_follow_their_visibility() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    let board = "Main/Board/Sync";
    let u = TransferMode::Unreliable;
    let timed = |core: &mut ServerCore| -> Vec<(i32, TransferMode, Vec<u8>)> {
        sends(&core.take_actions())
            .into_iter()
            .map(|(to, m, b)| (to, m, untimed(b)))
            .collect()
    };
    // Not public, before any peer: peers joining get nothing of it.
    core.set_path_public(board, false).unwrap();
    core.sync_path(To::All, board, &[pos(3.0, 4.0)]).unwrap();
    core.delta_path(To::All, board, 1, &[Variant::Int(9)])
        .unwrap();
    for p in [2, 3] {
        core.peer_connected(p, now).unwrap();
    }
    core.take_actions();
    core.sync_path(To::All, board, &[pos(3.0, 4.0)]).unwrap();
    assert_eq!(timed(&mut core), []);
    assert!(!core.path_visible(board, 2));
    assert!(
        core.path_visible("Main/Other/Sync", 2),
        "never driven: public"
    );
    // Shown to 2: its path; once confirmed, the state.
    core.set_path_visible(board, 2, true).unwrap();
    let offer = simplify_path(&plain(), 1, board).unwrap();
    assert_eq!(timed(&mut core), [(2, R, offer.clone())]);
    core.receive(2, 0, R, 1, &confirm_path(true, 1), now);
    let id = 0x8000_0001;
    assert_eq!(
        timed(&mut core),
        [
            (2, u, sync(id, &pos(3.0, 4.0))),
            (2, R, delta(id, 1, &Variant::Int(9)))
        ]
    );
    core.sync_path(To::All, board, &[pos(5.0, 6.0)]).unwrap();
    assert_eq!(timed(&mut core), [(2, u, sync(id, &pos(5.0, 6.0)))]);
    // Hidden from 2: nothing sent, then nothing more of it.
    core.set_path_visible(board, 2, false).unwrap();
    assert_eq!(timed(&mut core), []);
    core.sync_path(To::All, board, &[pos(7.0, 8.0)]).unwrap();
    core.delta_path(To::Peer(2), board, 1, &[Variant::Int(10)])
        .unwrap();
    assert_eq!(timed(&mut core), []);
    // Shown again: the state at once (the path is confirmed), the DELTA with every value.
    core.set_path_visible(board, 2, true).unwrap();
    assert_eq!(
        timed(&mut core),
        [
            (2, u, sync(id, &pos(7.0, 8.0))),
            (2, R, delta(id, 1, &Variant::Int(10)))
        ]
    );
    // Showing it again changes nothing.
    core.set_path_visible(board, 2, true).unwrap();
    assert_eq!(timed(&mut core), []);
    // Public: 3 gets the path now; 2 sees it still when made private again, being shown it.
    core.set_path_public(board, true).unwrap();
    assert_eq!(timed(&mut core), [(3, R, offer.clone())]);
    core.set_path_public(board, false).unwrap();
    core.receive(3, 0, R, 1, &confirm_path(true, 1), now);
    assert_eq!(
        timed(&mut core),
        [],
        "3 confirmed once it could no longer see it"
    );
    core.sync_path(To::All, board, &[pos(1.0, 1.0)]).unwrap();
    assert_eq!(timed(&mut core), [(2, u, sync(id, &pos(1.0, 1.0)))]);
    // A peer that left sees nothing; an unknown peer is an error.
    core.peer_disconnected(2);
    core.take_actions();
    assert!(!core.path_visible(board, 2));
    assert!(core.set_path_visible(board, 2, true).is_err());
    // A later peer gets the path of a public synchronizer only.
    core.peer_connected(4, now).unwrap();
    assert!(sends(&core.take_actions())
        .iter()
        .all(|(_, _, b)| Some(b) != Some(&offer)));
}

/// RPC visibility, as the engine's `is_rpc_visible`: an RPC on the root node (the parent) of the
/// server's synchronizer goes only to the peers that see it; to one peer that does not, it is
/// refused and nothing is sent (not even the path); other nodes are not restricted.
#[test]
fn rpcs_on_a_hidden_synchronizers_root_follow_its_visibility() {
    use gdvariant_multiplayer::server::ServerError;
    let schema = schema().node("Main/Board", [RpcSpec::authority("mark")]);
    let mut core = ServerCore::new(schema, ServerConfig::default());
    let now = Instant::now();
    for p in [2, 3] {
        core.peer_connected(p, now).unwrap();
    }
    core.take_actions();
    let board = "Main/Board/Sync";
    // Public (the default): every peer.
    core.sync_path(To::All, board, &[pos(1.0, 1.0)]).unwrap();
    core.take_actions();
    core.rpc(To::All, "Main/Board", "mark", &[Variant::Int(1)])
        .unwrap();
    let to: Vec<i32> = sends(&core.take_actions()).iter().map(|s| s.0).collect();
    assert_eq!(
        to,
        [2, 3, 2, 3],
        "SIMPLIFY_PATH to each, then the call to each"
    );
    // Not public, shown to 3 only.
    core.set_path_public(board, false).unwrap();
    core.set_path_visible(board, 3, true).unwrap();
    core.take_actions();
    core.rpc(To::All, "Main/Board", "mark", &[Variant::Int(2)])
        .unwrap();
    let got = sends(&core.take_actions());
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 3);
    let call = multiplayer::RemoteCallBuilder::new(multiplayer::Target::Path("Main/Board"), 0)
        .arg(&Variant::Int(2))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(got[0].2, call);
    let e = core
        .rpc(To::Peer(2), "Main/Board", "mark", &[Variant::Int(3)])
        .unwrap_err();
    assert!(
        matches!(&e, ServerError::NotVisible { peer: 2, path } if path == "Main/Board"),
        "{e}"
    );
    assert!(core.take_actions().is_empty());
    // Other nodes are not restricted.
    core.rpc(To::Peer(2), "Main", "echo", &[Variant::Int(4)])
        .unwrap();
    assert_eq!(sends(&core.take_actions()).len(), 2);
    // A peer that joins sees a hidden synchronizer's root no more than 2 does.
    core.peer_connected(4, now).unwrap();
    core.take_actions();
    core.rpc(To::AllBut(3), "Main/Board", "mark", &[Variant::Int(5)])
        .unwrap();
    assert!(sends(&core.take_actions()).is_empty());
}

#[test]
fn a_path_that_cannot_be_sent_is_never_offered_and_masks_match_values() {
    let mut core = ServerCore::new(schema(), ServerConfig::default());
    let now = Instant::now();
    core.peer_connected(2, now).unwrap();
    core.take_actions();
    // A NUL in the path: its SIMPLIFY_PATH cannot be written, every time (the path was counted
    // as offered at the first failure, and the second call returned Ok without sending it).
    for _ in 0..2 {
        assert!(core
            .sync_path(To::All, "Main/Bo\0ard/Sync", &[pos(3.0, 4.0)])
            .is_err());
        assert_eq!(sends(&core.take_actions()), []);
    }
    // A DELTA's mask sets one bit per value: else an error, nothing sent or kept.
    for (mask, n) in [(0b11, 1), (0b1, 2)] {
        let values = vec![Variant::Int(9); n];
        let e = core
            .delta_path(To::All, "Main/Board/Sync", mask, &values)
            .unwrap_err();
        assert!(e.to_string().contains("one bit per value"), "{e}");
        assert!(DeltaBuilder::new().entry(1, mask, &values).is_err());
    }
    assert_eq!(sends(&core.take_actions()), []);
    // The path offered, confirmed: no DELTA value was kept from the refused calls.
    core.sync_path(To::All, "Main/Board/Sync", &[pos(3.0, 4.0)])
        .unwrap();
    // Cache id 2: the refused path took id 1 (never offered).
    let offer = simplify_path(&plain(), 2, "Main/Board/Sync").unwrap();
    assert_eq!(sends(&core.take_actions()), [(2, R, offer)]);
    core.receive(2, 0, R, 1, &confirm_path(true, 2), now);
    let got = sends(&core.take_actions());
    assert_eq!(got.len(), 1, "the SYNC only: {got:?}");
    assert_eq!(got[0].1, TransferMode::Unreliable);
}
