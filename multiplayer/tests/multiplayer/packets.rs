//! The multiplayer module against sessions recorded live from Godot 4.6.3 and Godot 3.2.3
//! (`tests/data/multiplayer/`): every packet reads and validates, every value decodes to what the
//! receiving engine's script got (compared as `var_to_str` text), the builders write every packet
//! byte for byte, and a Session with a Schema names every RPC method and synchronized property as
//! the engine dispatched them.

use crate::{common, fixture};

use std::collections::BTreeMap;

use fixture::{Fixture, Got, Pkt};
use gdvariant::{ReadOptions, Variant};
use gdvariant_multiplayer::{
    self as multiplayer, add_peer, auth, auth_complete, confirm_path, del_peer, delta_properties,
    despawn, godot3, raw, relay, simplify_path, spawn_properties, sync_properties, DeltaBuilder,
    NodeTarget, Packet, Property, RemoteCall, RemoteCallBuilder, ReplicationMode, RpcMethods,
    Schema, Session, SpawnBuilder, StaticSchema, SyncBuilder, SyncKey, SysKind, Target, Value,
    ValueRef,
};

fn texts<'a>(values: impl Iterator<Item = gdvariant::Result<ValueRef<'a>>>) -> Vec<String> {
    values.map(|v| v.unwrap().to_string()).collect()
}

fn owned<'a>(values: impl Iterator<Item = gdvariant::Result<ValueRef<'a>>>) -> Vec<Variant> {
    values.map(|v| v.unwrap().to_owned().unwrap()).collect()
}

/// The packet a receiver processes for `p` and who it comes from: the packet itself, or a relayed
/// one (from the server, its source is the relay's peer field).
fn effective(p: &Pkt) -> Option<(Packet<'_>, i32)> {
    let packet = multiplayer::parse(&p.bytes).unwrap();
    match packet {
        Packet::Sys(s) if s.kind() == SysKind::Relay => {
            let peer = s.peer().unwrap();
            let inner = s.inner().unwrap().unwrap();
            if p.from == 1 {
                Some((inner, peer))
            } else if peer == 0 || (peer < 0 && peer != -1) {
                // The server is one of the targets.
                Some((inner, p.from))
            } else {
                None
            }
        }
        Packet::Sys(_) => None,
        other => Some((other, p.from)),
    }
}

/// Rebuilds a packet from what the views read, with the builders and owned values.
fn rebuild(p: &Packet<'_>) -> Vec<u8> {
    match p {
        Packet::RemoteCall(c) => {
            let path;
            let target = match c.node() {
                NodeTarget::Path(p) => {
                    path = p.as_str().unwrap().to_string();
                    Target::Path(&path)
                }
                NodeTarget::Id(id) if c.node_id_width() == 4 => Target::Id32(id),
                NodeTarget::Id(id) => Target::Id(id),
            };
            RemoteCallBuilder::new(target, c.method())
                .args(&owned(c.args()))
                .unwrap()
                .finish()
                .unwrap()
        }
        Packet::SimplifyPath(s) => simplify_path(
            s.checksum().try_into().unwrap(),
            s.id(),
            s.path().as_str().unwrap(),
        )
        .unwrap(),
        Packet::ConfirmPath(c) => confirm_path(c.valid(), c.id().unwrap()),
        Packet::Raw(r) => raw(r.payload()).unwrap(),
        Packet::Spawn(s) => {
            let name = s.name().as_str().unwrap().to_string();
            let ids: Vec<u32> = s.sync_ids().collect();
            let mut b = SpawnBuilder::new(s.spawner(), s.net_id(), &name).sync_ids(&ids);
            b = match s.scene() {
                Some(i) => b.scene(i).unwrap(),
                None => b
                    .custom(&s.custom_arg().unwrap().unwrap().to_owned().unwrap())
                    .unwrap(),
            };
            for v in owned(s.state()) {
                b = b.state(&v).unwrap();
            }
            b.finish().unwrap()
        }
        Packet::Despawn(d) => despawn(d.net_id()),
        Packet::Sync(s) => {
            let mut b = SyncBuilder::new(s.time());
            for e in s.entries() {
                let e = e.unwrap();
                b = b.entry(e.net_id(), &owned(e.values())).unwrap();
            }
            b.finish().unwrap()
        }
        Packet::Delta(d) => {
            let mut b = DeltaBuilder::new();
            for e in d.entries() {
                let e = e.unwrap();
                b = b.entry(e.net_id(), e.mask(), &owned(e.values())).unwrap();
            }
            b.finish().unwrap()
        }
        Packet::Sys(s) => match s.kind() {
            SysKind::Auth => auth(s.auth_data().unwrap()).unwrap(),
            SysKind::AuthComplete => auth_complete(),
            SysKind::AddPeer => add_peer(s.peer().unwrap()),
            SysKind::DelPeer => del_peer(s.peer().unwrap()),
            SysKind::Relay => {
                relay(s.peer().unwrap(), &rebuild(&s.inner().unwrap().unwrap())).unwrap()
            }
        },
    }
}

fn g4() -> Fixture {
    let fx = fixture::load("godot4.tsv");
    assert!(fx.engine.starts_with("4.6"), "engine {}", fx.engine);
    fx
}

#[test]
fn godot4_every_packet_reads_and_validates() {
    let fx = g4();
    assert!(fx.pkts.len() > 150);
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &fx.pkts {
        let packet = multiplayer::parse(&p.bytes).unwrap_or_else(|e| panic!("#{}: {e}", p.seq));
        packet
            .validate()
            .unwrap_or_else(|e| panic!("#{}: {e}", p.seq));
        assert_eq!(multiplayer::validate(&p.bytes), Ok(()));
        *names.entry(packet.name()).or_default() += 1;
    }
    // Every kind of packet occurs.
    for name in [
        "REMOTE_CALL",
        "SIMPLIFY_PATH",
        "CONFIRM_PATH",
        "RAW",
        "SPAWN",
        "DESPAWN",
        "SYNC",
        "DELTA",
        "AUTH",
        "AUTH_COMPLETE",
        "ADD_PEER",
        "DEL_PEER",
        "RELAY",
    ] {
        assert!(
            names.get(name).copied().unwrap_or(0) > 0,
            "no {name} in {names:?}"
        );
    }
}

#[test]
fn godot4_transfer_modes_are_the_engines() {
    // Path cache, spawn, despawn, delta, sys: reliable on channel 0; SYNC unreliable; RPCs and
    // RAW as asked (the recorder asks for unreliable, ordered and channel 2 / 3 on some).
    for p in &g4().pkts {
        let packet = multiplayer::parse(&p.bytes).unwrap();
        let (channel, mode) = (p.channel.unwrap(), p.mode.unwrap());
        match packet {
            Packet::Sync(_) => assert_eq!((channel, mode), (0, 0), "#{}", p.seq),
            Packet::RemoteCall(_) | Packet::Raw(_) => {}
            Packet::Sys(s) if s.kind() == SysKind::Relay => {}
            _ => assert_eq!((channel, mode), (0, 2), "#{}", p.seq),
        }
    }
}

#[test]
fn godot4_values_decode_to_what_the_engine_delivered() {
    let fx = g4();
    let mut checked = BTreeMap::<&str, usize>::new();
    for p in &fx.pkts {
        let Some((packet, sender)) = effective(p) else {
            continue;
        };
        let gots = fx.gots_of(p.seq, p.to);
        match packet {
            Packet::RemoteCall(c) => {
                let [got] = gots[..] else {
                    panic!("#{}: {} calls", p.seq, gots.len())
                };
                assert_eq!(got.sender, sender, "#{}", p.seq);
                let ours = texts(c.args());
                if got.what == "bytes_opt" && c.arg_count() == 0 {
                    // An empty PackedByteArray is sent byte-only with no bytes: the receiver
                    // calls the method with no argument, so it gets its default value.
                    assert_eq!(got.args, ["PackedByteArray(7)"]);
                    *checked.entry("empty PackedByteArray dropped").or_default() += 1;
                    continue;
                }
                assert_eq!(ours, got.args, "#{} {}", p.seq, got.what);
                *checked.entry("rpc").or_default() += 1;
            }
            Packet::Raw(r) => {
                let [got] = gots[..] else {
                    panic!("#{}", p.seq)
                };
                assert_eq!(got.what, "peer_packet");
                let v = Variant::PackedByteArray(r.payload().to_vec());
                assert_eq!(got.args, [v.to_string()]);
                *checked.entry("raw").or_default() += 1;
            }
            Packet::Spawn(s) => {
                for got in gots {
                    match got.what.as_str() {
                        // The bullet's spawn properties: position, speed, flag.
                        "ready" => {
                            assert_eq!(texts(s.state()), got.args, "#{}", p.seq);
                            *checked.entry("spawn state").or_default() += 1;
                        }
                        "spawned" => {
                            let name = s.name().as_str().unwrap();
                            assert_eq!(got.args[0], format!("&\"{name}\""));
                            if let Some(arg) = s.custom_arg().unwrap() {
                                // The custom spawn function puts the node at x = data["x"].
                                let x = arg.as_variant().unwrap().as_dictionary().unwrap();
                                let x = x.get("x").unwrap().unwrap().as_f64().unwrap();
                                assert_eq!(got.args[1], format!("Vector2({x}, 0)"));
                                *checked.entry("custom spawn").or_default() += 1;
                            }
                        }
                        other => panic!("#{}: {other}", p.seq),
                    }
                }
            }
            Packet::Sync(s) => {
                // The synchronized signal shows the "always" properties after the update.
                for (e, got) in s.entries().zip(&gots) {
                    assert_eq!(got.what, "synchronized");
                    assert_eq!(texts(e.unwrap().values()), got.args, "#{}", p.seq);
                    *checked.entry("sync").or_default() += 1;
                }
                assert_eq!(s.entries().count(), gots.len(), "#{}", p.seq);
            }
            Packet::Delta(d) => {
                // The delta_synchronized signal shows every "on change" property: the entry
                // carries the changed ones, by mask.
                for (e, got) in d.entries().zip(&gots) {
                    let e = e.unwrap();
                    assert_eq!(got.what, "delta_synchronized");
                    let changed: Vec<String> = got
                        .args
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| e.mask() & (1 << i) != 0)
                        .map(|(_, a)| a.clone())
                        .collect();
                    assert_eq!(texts(e.values()), changed, "#{}", p.seq);
                    *checked.entry("delta").or_default() += 1;
                }
            }
            _ => assert!(gots.is_empty(), "#{}", p.seq),
        }
    }
    // Authentication data reaches the auth callback.
    for g in fx.gots.iter().filter(|g| g.what == "auth") {
        let Packet::Sys(s) = multiplayer::parse(&fx.pkt(g.seq).bytes).unwrap() else {
            panic!()
        };
        let v = Variant::PackedByteArray(s.auth_data().unwrap().to_vec());
        assert_eq!(g.args, [v.to_string()]);
        *checked.entry("auth").or_default() += 1;
    }
    for (what, min) in [
        ("rpc", 80),
        ("raw", 3),
        ("spawn state", 2),
        ("custom spawn", 2),
        ("sync", 20),
        ("delta", 8),
        ("auth", 4),
        ("empty PackedByteArray dropped", 1),
    ] {
        assert!(
            checked.get(what).copied().unwrap_or(0) >= min,
            "{what}: {checked:?}"
        );
    }
}

#[test]
fn godot4_builders_write_every_packet_byte_for_byte() {
    let fx = g4();
    for p in &fx.pkts {
        let packet = multiplayer::parse(&p.bytes).unwrap();
        assert_eq!(
            fixture::hex(&rebuild(&packet)),
            fixture::hex(&p.bytes),
            "#{} {}",
            p.seq,
            packet.name()
        );
    }
}

/// What the recorder's project is, as a tool that knows it would describe it.
fn schema() -> StaticSchema {
    let game = RpcMethods::new(fixture::GAME_METHODS).with_node_methods(["native_m"]);
    let bullet = vec![
        Property::new(".:position", ReplicationMode::Always, true),
        Property::new(".:speed", ReplicationMode::OnChange, true),
        Property::new(".:hp", ReplicationMode::OnChange, false),
        Property::new(".:tag", ReplicationMode::Always, false),
        Property::new(".:flag", ReplicationMode::Never, true),
        Property::new(".:big", ReplicationMode::OnChange, false),
    ];
    let player = vec![
        Property::new(".:score", ReplicationMode::Always, false),
        Property::new(".:label", ReplicationMode::OnChange, false),
    ];
    StaticSchema::new()
        .with_node("Game", game)
        .with_node("Game/Wide", RpcMethods::new(fixture::wide_methods()))
        .with_node("Game/Nodes/*", RpcMethods::new(fixture::GAME_METHODS))
        .with_node("Game/Spawner", RpcMethods::default())
        .with_node("Game/Player/Sync", RpcMethods::default())
        .with_synchronizer("Game/Player/Sync", player)
        .with_spawned_synchronizer("Game/Spawner", Some(0), 0, bullet)
}

#[test]
fn godot4_session_names_methods_and_properties_as_the_engine_did() {
    let fx = g4();
    let schema = schema();
    // One session per receiving peer: each follows what was sent to it.
    let mut sessions: BTreeMap<i32, Session> = BTreeMap::new();
    let (mut methods, mut checksums, mut props) = (0, 0, 0);
    for p in &fx.pkts {
        let session = sessions.entry(p.to).or_default();
        let outer = multiplayer::parse(&p.bytes).unwrap();
        session.observe(p.from, &outer);
        let Some((packet, sender)) = effective(p) else {
            continue;
        };
        match packet {
            Packet::SimplifyPath(s) => {
                let path = s.path().as_str().unwrap().to_string();
                let m = schema.rpc_methods(&path).expect(&path);
                assert!(m.matches(&s), "#{} checksum of {path}", p.seq);
                checksums += 1;
            }
            Packet::RemoteCall(c) => {
                let name = session.method_name(sender, &c, &schema).expect("method");
                let got = fx.gots_of(p.seq, p.to);
                assert_eq!(name, got[0].what, "#{}", p.seq);
                methods += 1;
            }
            Packet::Sync(s) => {
                for e in s.entries() {
                    let e = e.unwrap();
                    let config = session.synchronizer(sender, e.net_id(), &schema).unwrap();
                    let names: Vec<&str> =
                        sync_properties(config).map(|p| p.name.as_str()).collect();
                    assert_eq!(names.len(), e.values().count(), "#{}", p.seq);
                    props += names.len();
                }
            }
            Packet::Delta(d) => {
                for e in d.entries() {
                    let e = e.unwrap();
                    let config = session.synchronizer(sender, e.net_id(), &schema).unwrap();
                    let n = delta_properties(config, e.mask()).count();
                    assert_eq!(n, e.values().count(), "#{}", p.seq);
                    props += n;
                }
            }
            Packet::Spawn(s) if s.scene() == Some(0) => {
                let key = session
                    .sync_key(sender, s.sync_ids().next().unwrap())
                    .unwrap();
                assert_eq!(
                    key,
                    SyncKey::Spawned {
                        spawner: Some("Game/Spawner"),
                        scene: Some(0),
                        node: "Bullet",
                        index: 0
                    }
                );
                let config = schema.synchronizer(&key).unwrap();
                assert_eq!(spawn_properties(config).count(), s.state().count());
            }
            _ => {}
        }
    }
    assert!(
        methods > 80 && checksums > 8 && props > 40,
        "{methods} {checksums} {props}"
    );
}

#[test]
fn godot4_rpc_forms_are_the_engines() {
    let fx = g4();
    let call = |step: &str, nth: usize| {
        let p = fx
            .pkts
            .iter()
            .filter(|p| p.step == step)
            .nth(nth)
            .unwrap_or_else(|| panic!("{step} {nth}"));
        p.bytes.clone()
    };
    let widths = |b: &[u8]| {
        let Packet::RemoteCall(c) = multiplayer::parse(b).unwrap() else {
            panic!("not an RPC")
        };
        (c.node_id_width(), c.method_id_width(), c.is_byte_only())
    };
    // First call: the path goes inline with a 32-bit offset, the arguments none: byte-only.
    assert_eq!(widths(&call("rpc_first", 1)), (4, 1, true));
    // A 16-bit node cache id (over 255 paths cached), a 16-bit script method id (300 methods),
    // a native method (Node.rpc_config: bit 15).
    assert_eq!(widths(&call("rpc_wide_node_cached", 0)), (2, 1, false));
    assert_eq!(widths(&call("rpc_wide_method", 1)), (4, 2, false));
    let native = call("rpc_forms", 9);
    let Packet::RemoteCall(c) = multiplayer::parse(&native).unwrap() else {
        panic!()
    };
    assert_eq!((c.method(), c.method_id_width()), (0x8000, 2));
    // A broadcast while one target has not confirmed the path: 32-bit id to the one that did.
    let mixed = call("rpc_broadcast_mixed", 1);
    assert_eq!(widths(&mixed), (4, 1, false));
    // Every int width.
    let ints = call("rpc_forms", 1);
    let Packet::RemoteCall(c) = multiplayer::parse(&ints).unwrap() else {
        panic!()
    };
    let w: Vec<usize> = c.args().map(|a| a.unwrap().int_width().unwrap()).collect();
    assert_eq!(w, [1, 1, 1, 2, 2, 2, 4, 8]);
    // One PackedByteArray: byte-only and raw.
    let b = call("rpc_forms", 3);
    let Packet::RemoteCall(c) = multiplayer::parse(&b).unwrap() else {
        panic!()
    };
    assert!(c.is_byte_only());
    assert!(matches!(
        c.args().next().unwrap().unwrap().value(),
        Value::Bytes(&[1, 2, 3])
    ));
}

#[test]
fn godot4_rpc_node_ids_from_the_header_are_the_parsed_calls() {
    let fx = g4();
    let mut ids = 0;
    for p in &fx.pkts {
        let parsed = match multiplayer::parse(&p.bytes).unwrap() {
            Packet::RemoteCall(c) => match c.node() {
                NodeTarget::Id(id) => Some(id),
                NodeTarget::Path(_) => None,
            },
            _ => None,
        };
        assert_eq!(RemoteCall::node_id_of(&p.bytes), parsed, "#{}", p.seq);
        ids += usize::from(parsed.is_some());
    }
    assert!(ids > 10, "{ids} calls by id");
    // A 16-bit id; the header cut short, or a node id width of 3: no id.
    let b = RemoteCallBuilder::new(Target::Id(300), 2).finish().unwrap();
    assert_eq!(RemoteCall::node_id_of(&b), Some(300));
    assert_eq!(RemoteCall::node_id_of(&b[..2]), None);
    let mut w3 = b.clone();
    w3[0] |= 3 << 4;
    assert_eq!(RemoteCall::node_id_of(&w3), None);
}

// ----- Godot 3 -----

fn g3() -> Fixture {
    let fx = fixture::load("godot3.tsv");
    assert!(fx.engine.starts_with("3.2.3"), "engine {}", fx.engine);
    fx
}

fn g3_read() -> ReadOptions {
    ReadOptions::new().with_dialect(gdvariant::Dialect::Godot3)
}

#[test]
fn godot3_every_packet_reads_and_values_are_what_the_engine_delivered() {
    let fx = g3();
    let mut seen = BTreeMap::<&str, usize>::new();
    for p in &fx.pkts {
        let packet = godot3::parse(&p.bytes).unwrap_or_else(|e| panic!("#{}: {e}", p.seq));
        packet.validate().unwrap();
        *seen.entry(packet.command().name()).or_default() += 1;
        let gots: Vec<&Got> = fx.gots_of(p.seq, p.to);
        match packet {
            godot3::Packet::RemoteCall(c) => {
                let [got] = gots[..] else {
                    panic!("#{}", p.seq)
                };
                assert_eq!(c.method().as_str().unwrap(), got.what);
                assert_eq!(texts(c.args()), got.args, "#{}", p.seq);
            }
            godot3::Packet::RemoteSet(s) => {
                let [got] = gots[..] else {
                    panic!("#{}", p.seq)
                };
                assert_eq!(format!("set {}", s.property()), got.what);
                assert_eq!([s.value().unwrap().to_string()], got.args[..]);
            }
            godot3::Packet::Raw(r) => {
                let [got] = gots[..] else {
                    panic!("#{}", p.seq)
                };
                // Godot 3 prints a PoolByteArray.
                let v = gdvariant::parse_with(
                    &gdvariant::encode_with(
                        &Variant::PackedByteArray(r.payload().to_vec()),
                        &gdvariant::EncodeOptions::godot3(),
                    )
                    .unwrap(),
                    &g3_read(),
                )
                .unwrap()
                .to_string();
                assert_eq!(got.args, [v]);
            }
            _ => assert!(gots.is_empty()),
        }
    }
    for c in [
        "REMOTE_CALL",
        "REMOTE_SET",
        "SIMPLIFY_PATH",
        "CONFIRM_PATH",
        "RAW",
    ] {
        assert!(seen.get(c).copied().unwrap_or(0) > 0, "no {c}: {seen:?}");
    }
}

/// Godot 3 leaves a NodePath's padding bytes uninitialised: they are masked before comparing.
fn mask3(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let Ok(packet) = godot3::parse(bytes) else {
        return out;
    };
    let values: Vec<ValueRef<'_>> = match packet {
        godot3::Packet::RemoteCall(c) => c.args().map(Result::unwrap).collect(),
        godot3::Packet::RemoteSet(s) => vec![s.value().unwrap()],
        _ => vec![],
    };
    for v in values {
        let at = v.offset();
        let masked = mask_node_paths(v.raw());
        out[at..at + masked.len()].copy_from_slice(&masked);
    }
    out
}

fn mask_node_paths(value: &[u8]) -> Vec<u8> {
    common::mask_node_path_padding(value, &g3_read())
}

#[test]
fn godot3_builders_write_every_packet_byte_for_byte() {
    let fx = g3();
    for p in &fx.pkts {
        let packet = godot3::parse(&p.bytes).unwrap();
        let target = |n: NodeTarget<'_>| match n {
            NodeTarget::Id(id) => (id, None),
            NodeTarget::Path(p) => (0, Some(p.as_str().unwrap().to_string())),
        };
        let built = match packet {
            godot3::Packet::RemoteCall(c) => {
                let (id, path) = target(c.node());
                let t = path.as_deref().map_or(Target::Id(id), Target::Path);
                godot3::remote_call(t, c.method().as_str().unwrap(), &owned(c.args())).unwrap()
            }
            godot3::Packet::RemoteSet(s) => {
                let (id, path) = target(s.node());
                let t = path.as_deref().map_or(Target::Id(id), Target::Path);
                let v = s.value().unwrap().to_owned().unwrap();
                godot3::remote_set(t, s.property().as_str().unwrap(), &v).unwrap()
            }
            godot3::Packet::SimplifyPath(s) => {
                godot3::simplify_path(s.id(), s.path().as_str().unwrap()).unwrap()
            }
            godot3::Packet::ConfirmPath(c) => {
                godot3::confirm_path(c.path().as_str().unwrap()).unwrap()
            }
            godot3::Packet::Raw(r) => godot3::raw(r.payload()).unwrap(),
        };
        assert_eq!(
            fixture::hex(&mask3(&built)),
            fixture::hex(&mask3(&p.bytes)),
            "#{}",
            p.seq
        );
    }
}

/// A null Object (what `bytes_to_var` makes of an object id 0) is not Nil: a Dictionary keeps a
/// Nil key and a null-object key apart. The engine writes a null object as Nil, so such a
/// dictionary goes out with two Nil keys and the receiver gets one, with the last value.
/// Recorded live (Godot 4.6.3, `SceneMultiplayer`, `rpc_id(2, "one", d)` with `d[null] = 1` and
/// `d[bytes_to_var(<object id 0>)] = 2`): the packet below, and the receiving script got
/// `{ null: 2 }`.
///
/// A null object as an argument itself: the engine writes `18 00 00 00` (the Nil encoding with
/// its first byte replaced by the type, OBJECT), which its own receiver cannot decode (without
/// object decoding "ERR_UNAUTHORIZED", with it the class name is missing; the engine then calls
/// the method with null). The builder writes Nil, which the receiver reads as that same null.
#[test]
fn null_objects_go_out_as_nil() {
    let null_obj = Variant::from(gdvariant::Object::Id(0));
    let d = gdvariant::Dictionary::from_entries(vec![
        (Variant::Nil, Variant::Int(1)),
        (null_obj.clone(), Variant::Int(2)),
    ]);
    assert_eq!(d.len(), 2, "Nil and a null object are two keys");
    let built = RemoteCallBuilder::new(Target::Id(1), 5)
        .arg(&Variant::Dictionary(d))
        .unwrap()
        .finish()
        .unwrap();
    let engine = "000105011b00000002000000000000000200000001000000000000000200000002000000";
    assert_eq!(common::hex(&built), engine);
    let Packet::RemoteCall(c) = multiplayer::parse(&built).unwrap() else {
        panic!("not an RPC")
    };
    let got = owned(c.args());
    let expected = gdvariant::Dictionary::from_entries(vec![(Variant::Nil, Variant::Int(2))]);
    assert_eq!(got, [Variant::Dictionary(expected)]);

    // As the argument itself: Nil, not the engine's unreadable `18 00 00 00`.
    let built = RemoteCallBuilder::new(Target::Id(1), 5)
        .arg(&null_obj)
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(common::hex(&built), "0001050100000000");
    let engine = [0x00, 0x01, 0x05, 0x01, 0x18, 0x00, 0x00, 0x00];
    for objects in [false, true] {
        let opts = multiplayer::PacketOptions::new().with_full_objects(objects);
        let read = multiplayer::parse_with(&engine, &opts).and_then(|p| p.validate());
        assert!(
            read.is_err(),
            "the engine rejects its own bytes (objects: {objects})"
        );
    }
}
