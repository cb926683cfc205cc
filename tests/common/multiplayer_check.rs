//! The checks of the `multiplayer_packets` fuzz target (fuzz/fuzz_targets/multiplayer_packets.rs),
//! shared with its stable replay (multiplayer/tests/multiplayer/hostile.rs): on any bytes, as a Godot 4
//! packet (both protocol versions, full objects allowed or not) and as a Godot 3 packet,
//!
//! - nothing panics, every accessor and iterator of every view runs to its end;
//! - every error's offset is within the input, every value's offset and raw bytes are the
//!   input's own bytes;
//! - `validate` succeeds exactly when every value the views yield reads whole;
//! - a valid packet rebuilt with the builders from what the views read (owned values) reads back
//!   to the same values, and rebuilding that gives the same bytes again (the builders are
//!   deterministic and take their own output).
//!
//! Returns whether the input was a valid packet in some reading.
#![allow(dead_code)]

use gdvariant::{Error, ReadOptions, Variant};
use gdvariant_multiplayer::{
    self as multiplayer, add_peer, auth, auth_complete, confirm_path, confirm_path_v4_0, del_peer,
    despawn, godot3, raw, relay, simplify_path, DeltaBuilder, NodeTarget, Packet, PacketOptions,
    Protocol, RemoteCallBuilder, Session, SpawnBuilder, SyncBuilder, SysKind, Target, ValueRef,
    Values,
};

pub fn check(data: &[u8]) -> bool {
    let mut valid = false;
    for protocol in [Protocol::V4_3, Protocol::V4_0] {
        for objects in [false, true] {
            let opts = PacketOptions::new()
                .with_protocol(protocol)
                .with_full_objects(objects);
            valid |= check4(data, &opts);
        }
    }
    for objects in [false, true] {
        valid |= check3(data, &PacketOptions::new().with_full_objects(objects));
    }
    valid
}

fn in_input(data: &[u8], e: &Error) {
    assert!(
        e.offset() <= data.len(),
        "error offset {} past {}: {e}",
        e.offset(),
        data.len()
    );
}

/// Checks a value's offset and bytes; returns whether it is valid and its owned form (`None`
/// also for a valid Godot 3 string that is not Rust UTF-8, which `to_owned` cannot hold).
fn value(data: &[u8], v: &ValueRef<'_>) -> (bool, Option<Variant>) {
    let raw = v.raw();
    assert_eq!(
        &data[v.offset()..v.offset() + raw.len()],
        raw,
        "raw bytes not the input's"
    );
    let valid = v.validate();
    if let Err(e) = &valid {
        in_input(data, e);
    }
    match v.to_owned() {
        Ok(o) => {
            assert!(valid.is_ok(), "to_owned succeeded, validate failed");
            (true, Some(o))
        }
        Err(e) => {
            in_input(data, &e);
            let g3_text = e.kind() == gdvariant::ErrorKind::NotRustUtf8;
            assert!(
                valid.is_err() || g3_text,
                "to_owned failed ({e}), validate succeeded"
            );
            (valid.is_ok(), None)
        }
    }
}

/// Walks a sequence; returns whether every value is valid, and the owned values when all read.
fn values_all(data: &[u8], vs: Values<'_>) -> (bool, Option<Vec<Variant>>) {
    let (mut valid, mut out) = (true, Some(Vec::new()));
    for v in vs {
        match v {
            Ok(v) => {
                let (ok, o) = value(data, &v);
                valid &= ok;
                match (o, &mut out) {
                    (Some(o), Some(list)) => list.push(o),
                    _ => out = None,
                }
            }
            Err(e) => {
                in_input(data, &e);
                return (false, None);
            }
        }
    }
    (valid, out)
}

/// The owned values of a Godot 4 sequence (where valid means readable).
fn values(data: &[u8], vs: Values<'_>) -> Option<Vec<Variant>> {
    values_all(data, vs).1
}

/// Every accessor of a Godot 4 packet; returns its owned reading when every value reads whole.
fn walk4(data: &[u8], p: &Packet<'_>) -> Option<Owned> {
    let _ = (
        p.command(),
        p.flags(),
        p.name(),
        p.offset(),
        p.bytes().len(),
    );
    Some(match p {
        Packet::RemoteCall(c) => {
            let node = match c.node() {
                NodeTarget::Id(id) => Node::Id(id, c.node_id_width()),
                NodeTarget::Path(s) => Node::Path(s.as_bytes().to_vec()),
            };
            let _ = (
                c.node_id(),
                c.method_id_width(),
                c.is_byte_only(),
                c.path_offset(),
            );
            let args = values(data, c.args());
            Owned::Call(node, c.method(), args?)
        }
        Packet::SimplifyPath(s) => {
            Owned::Simplify(s.checksum().to_vec(), s.id(), s.path().as_bytes().to_vec())
        }
        Packet::ConfirmPath(c) => {
            Owned::Confirm(c.valid(), c.id(), c.path().map(|p| p.as_bytes().to_vec()))
        }
        Packet::Raw(r) => Owned::Raw(r.payload().to_vec()),
        Packet::Spawn(s) => {
            let custom = match s.custom_arg() {
                Ok(Some(a)) => Some(Some(value(data, &a).1?)),
                Ok(None) => None,
                Err(e) => {
                    in_input(data, &e);
                    return None;
                }
            };
            let ids: Vec<u32> = s.sync_ids().collect();
            assert_eq!(ids.len(), s.sync_ids().len());
            let state = values(data, s.state());
            Owned::Spawn {
                scene: s.scene(),
                spawner: s.spawner(),
                net: s.net_id(),
                ids,
                name: s.name().as_bytes().to_vec(),
                custom: custom.flatten(),
                state: state?,
            }
        }
        Packet::Despawn(d) => Owned::Despawn(d.net_id()),
        Packet::Sync(s) => {
            let mut entries = Some(vec![]);
            let mut it = s.entries();
            for e in it.by_ref() {
                match e {
                    Ok(e) => {
                        let _ = (e.path_id(), e.size());
                        let vs = values(data, e.values());
                        match (vs, &mut entries) {
                            (Some(vs), Some(list)) => list.push((e.net_id(), 0, vs)),
                            _ => entries = None,
                        }
                    }
                    Err(e) => {
                        in_input(data, &e);
                        entries = None;
                    }
                }
            }
            // Up to 8 bytes after the last entry are ignored (after an error, the rest is the
            // entry's).
            assert!(entries.is_none() || it.rest().len() <= 8);
            Owned::Sync(s.time(), entries?)
        }
        Packet::Delta(d) => {
            let mut entries = Some(vec![]);
            for e in d.entries() {
                match e {
                    Ok(e) => {
                        let _ = (e.path_id(), e.size());
                        let vs = values(data, e.values());
                        match (vs, &mut entries) {
                            (Some(vs), Some(list)) => list.push((e.net_id(), e.mask(), vs)),
                            _ => entries = None,
                        }
                    }
                    Err(e) => {
                        in_input(data, &e);
                        entries = None;
                    }
                }
            }
            Owned::Delta(entries?)
        }
        Packet::Sys(s) => {
            let _ = (s.kind().name(), s.peer(), s.auth_data(), s.inner_bytes());
            match s.kind() {
                SysKind::Auth => Owned::Auth(s.auth_data().unwrap().to_vec()),
                SysKind::AuthComplete => Owned::AuthComplete,
                SysKind::AddPeer => Owned::AddPeer(s.peer().unwrap()),
                SysKind::DelPeer => Owned::DelPeer(s.peer().unwrap()),
                SysKind::Relay => match s.inner().unwrap() {
                    Ok(inner) => {
                        assert!(!matches!(inner, Packet::Sys(_)), "SYS inside a relay");
                        Owned::Relay(s.peer().unwrap(), Box::new(walk4(data, &inner)?))
                    }
                    Err(e) => {
                        in_input(data, &e);
                        return None;
                    }
                },
            }
        }
    })
}

/// What a Godot 4 packet says, owned: what the builders take.
#[derive(Debug, PartialEq)]
enum Owned {
    Call(Node, u16, Vec<Variant>),
    Simplify(Vec<u8>, u32, Vec<u8>),
    Confirm(bool, Option<u32>, Option<Vec<u8>>),
    Raw(Vec<u8>),
    Spawn {
        scene: Option<u8>,
        spawner: u32,
        net: u32,
        ids: Vec<u32>,
        name: Vec<u8>,
        custom: Option<Variant>,
        state: Vec<Variant>,
    },
    Despawn(u32),
    Sync(u16, Vec<(u32, u64, Vec<Variant>)>),
    Delta(Vec<(u32, u64, Vec<Variant>)>),
    Auth(Vec<u8>),
    AuthComplete,
    AddPeer(i32),
    DelPeer(i32),
    Relay(i32, Box<Owned>),
}

#[derive(Debug, PartialEq)]
enum Node {
    /// The id and its width in bytes.
    Id(u32, usize),
    Path(Vec<u8>),
}

/// Builds the packet back; `None` where the builders cannot say it (text that is not UTF-8 or
/// holds a NUL, what the engine never writes: empty entries, a checksum with a NUL, …).
fn build(o: &Owned) -> Option<Vec<u8>> {
    let s = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_string);
    Some(match o {
        Owned::Call(node, method, args) => {
            let path;
            let target = match node {
                Node::Id(id, 4) => Target::Id32(*id),
                Node::Id(id, _) => Target::Id(*id),
                Node::Path(p) => {
                    path = s(p)?;
                    Target::Path(&path)
                }
            };
            RemoteCallBuilder::new(target, *method)
                .args(args)
                .ok()?
                .finish()
                .ok()?
        }
        Owned::Simplify(sum, id, path) => {
            simplify_path(sum.as_slice().try_into().ok()?, *id, &s(path)?).ok()?
        }
        Owned::Confirm(valid, Some(id), _) => confirm_path(*valid, *id),
        Owned::Confirm(valid, None, Some(path)) => confirm_path_v4_0(*valid, &s(path)?).ok()?,
        Owned::Confirm(..) => return None,
        Owned::Raw(b) => raw(b).ok()?,
        Owned::Spawn {
            scene,
            spawner,
            net,
            ids,
            name,
            custom,
            state,
        } => {
            let name = s(name)?;
            let mut b = SpawnBuilder::new(*spawner, *net, &name).sync_ids(ids);
            b = match (scene, custom) {
                (Some(i), _) => b.scene(*i).ok()?,
                (None, Some(c)) => b.custom(c).ok()?,
                (None, None) => return None,
            };
            for v in state {
                b = b.state(v).ok()?;
            }
            b.finish().ok()?
        }
        Owned::Despawn(n) => despawn(*n),
        Owned::Sync(time, entries) => {
            let mut b = SyncBuilder::new(*time);
            for (net, _, vs) in entries {
                b = b.entry(*net, vs).ok()?;
            }
            b.finish().ok()?
        }
        Owned::Delta(entries) => {
            let mut b = DeltaBuilder::new();
            for (net, mask, vs) in entries {
                b = b.entry(*net, *mask, vs).ok()?;
            }
            b.finish().ok()?
        }
        Owned::Auth(d) => auth(d).ok()?,
        Owned::AuthComplete => auth_complete(),
        Owned::AddPeer(p) => add_peer(*p),
        Owned::DelPeer(p) => del_peer(*p),
        Owned::Relay(p, inner) => relay(*p, &build(inner)?).ok()?,
    })
}

/// Compares two readings, ignoring what the builders normalise as the engine does: node id
/// widths (the engine's choice for the id), entries without values (the engine writes none), and
/// a lone empty PackedByteArray argument (sent byte-only, it reads back as no argument: the
/// engine's quirk). Values compare by their encoding in a single-precision build (what the
/// builders write by default: f64 components read from a double-precision packet are rounded),
/// the first one as it reads back from that encoding: the engine writes a null object as Nil
/// (in `var_to_bytes` and inside a compressed value), so a dictionary whose keys were Nil and a
/// null object (two keys to the engine) is written with two Nil keys and reads back with one,
/// the last value kept (checked live, Godot 4.6.3: `bytes_to_var(var_to_bytes(d))`, and an RPC
/// argument received by a script).
fn same(a: &Owned, b: &Owned) -> bool {
    let enc = |v: &Variant| gdvariant::encode(v).ok();
    let reread = |v: &Variant| {
        let bytes = enc(v)?;
        let back = gdvariant::parse_with(&bytes, &ReadOptions::new())
            .ok()?
            .to_owned()
            .ok()?;
        enc(&back)
    };
    let vals = |x: &[Variant], y: &[Variant]| {
        x.len() == y.len() && x.iter().zip(y).all(|(v, w)| reread(v) == reread(w))
    };
    let ents = |x: &[(u32, u64, Vec<Variant>)], y: &[(u32, u64, Vec<Variant>)]| {
        let x: Vec<_> = x.iter().filter(|e| !e.2.is_empty()).collect();
        let y: Vec<_> = y.iter().filter(|e| !e.2.is_empty()).collect();
        x.len() == y.len()
            && x.iter()
                .zip(&y)
                .all(|(e, f)| e.0 == f.0 && e.1 == f.1 && vals(&e.2, &f.2))
    };
    fn args(v: &[Variant]) -> &[Variant] {
        match v {
            [Variant::PackedByteArray(b)] if b.is_empty() => &[],
            v => v,
        }
    }
    match (a, b) {
        (Owned::Call(x, m, v), Owned::Call(y, n, w)) => {
            let node = match (x, y) {
                (Node::Id(x, _), Node::Id(y, _)) => x == y,
                _ => x == y,
            };
            node && m == n && vals(args(v), args(w))
        }
        (Owned::Sync(t, x), Owned::Sync(u, y)) => t == u && ents(x, y),
        (Owned::Delta(x), Owned::Delta(y)) => ents(x, y),
        (Owned::Relay(p, x), Owned::Relay(q, y)) => p == q && same(x, y),
        (
            Owned::Spawn {
                scene,
                spawner,
                net,
                ids,
                name,
                custom,
                state,
            },
            Owned::Spawn {
                scene: scene2,
                spawner: spawner2,
                net: net2,
                ids: ids2,
                name: name2,
                custom: custom2,
                state: state2,
            },
        ) => {
            (scene, spawner, net, ids, name) == (scene2, spawner2, net2, ids2, name2)
                && custom.as_ref().map(reread) == custom2.as_ref().map(enc)
                && vals(state, state2)
        }
        _ => a == b,
    }
}

fn check4(data: &[u8], opts: &PacketOptions) -> bool {
    let packet = match multiplayer::parse_with(data, opts) {
        Ok(p) => p,
        Err(e) => {
            in_input(data, &e);
            return false;
        }
    };
    // The session follows anything without panicking.
    let mut session = Session::new();
    session.observe(1, &packet);
    session.observe(2, &packet);
    let owned = walk4(data, &packet);
    let valid = packet.validate();
    if let Err(e) = &valid {
        in_input(data, e);
    }
    // A DELTA entry whose values do not fill it reads whole but is invalid; everything else
    // that reads whole is valid, and the reverse.
    if valid.is_ok() {
        assert!(
            owned.is_some(),
            "validate accepted what the views could not read"
        );
    }
    let (Ok(()), Some(owned)) = (valid, owned) else {
        return false;
    };
    if let Some(built) = build(&owned) {
        let again = multiplayer::parse_with(&built, opts).expect("a built packet reads");
        again.validate().expect("a built packet validates");
        let owned2 = walk4(&built, &again).expect("a built packet reads whole");
        assert!(
            same(&owned, &owned2),
            "rebuilt packet reads differently:\n{owned:?}\n{owned2:?}"
        );
        // The builders take their own output: building what the rebuilt packet reads gives the
        // same bytes again, except when reading it merged dictionary keys (a null object
        // written as Nil next to a Nil key); then the next round is the fixed point.
        let built2 = build(&owned2).expect("a built packet builds again");
        if built2 != built {
            assert!(
                merges(&owned),
                "building is not idempotent:\n{built:?}\n{built2:?}"
            );
            let again2 = multiplayer::parse_with(&built2, opts).expect("a built packet reads");
            let owned3 = walk4(&built2, &again2).expect("a built packet reads whole");
            assert_eq!(
                build(&owned3).as_ref(),
                Some(&built2),
                "building is not idempotent after keys merged"
            );
        }
    }
    true
}

/// Whether some value of the reading reads back otherwise from its own encoding (dictionary
/// keys merge: see [`same`]).
fn merges(o: &Owned) -> bool {
    let enc = |v: &Variant| gdvariant::encode(v).ok();
    let changes = |v: &Variant| {
        let Some(bytes) = enc(v) else {
            return false;
        };
        let back = gdvariant::parse(&bytes).and_then(|r| r.to_owned());
        back.ok().and_then(|b| enc(&b)) != Some(bytes)
    };
    let any = |vs: &[Variant]| vs.iter().any(changes);
    match o {
        Owned::Call(_, _, args) => any(args),
        Owned::Spawn { custom, state, .. } => custom.as_ref().is_some_and(changes) || any(state),
        Owned::Sync(_, entries) | Owned::Delta(entries) => entries.iter().any(|e| any(&e.2)),
        Owned::Relay(_, inner) => merges(inner),
        _ => false,
    }
}

fn check3(data: &[u8], opts: &PacketOptions) -> bool {
    let packet = match godot3::parse_with(data, opts) {
        Ok(p) => p,
        Err(e) => {
            in_input(data, &e);
            return false;
        }
    };
    let _ = packet.command().name();
    let mut all = true;
    match packet {
        godot3::Packet::RemoteCall(c) => {
            let _ = (c.node(), c.method().to_string_lossy(), c.arg_count());
            all &= values_all(data, c.args()).0;
        }
        godot3::Packet::RemoteSet(s) => {
            let _ = (s.node(), s.property().to_string_lossy());
            match s.value() {
                Ok(v) => all &= value(data, &v).0,
                Err(e) => {
                    in_input(data, &e);
                    all = false;
                }
            }
        }
        godot3::Packet::SimplifyPath(s) => {
            let _ = (s.id(), s.path().to_string_lossy());
        }
        godot3::Packet::ConfirmPath(c) => {
            let _ = c.path().to_string_lossy();
        }
        godot3::Packet::Raw(r) => {
            let _ = r.payload();
        }
    }
    let valid = packet.validate();
    if let Err(e) = &valid {
        in_input(data, e);
    }
    assert_eq!(
        valid.is_ok(),
        all,
        "validate disagrees with reading every value"
    );
    valid.is_ok()
}
