//! What the crate's `echo_server` sends compared with what a Godot 4 server running the same
//! script (`tests/godot/mpserver_server4.gd`) sends, recorded on the client's side: a Godot 4
//! client (`mpserver_client4.gd`, `record=1`) logs every SceneMultiplayer packet it receives
//! through a `MultiplayerPeerExtension` around its real ENet / WebSocket peer.
//!
//! The packets must be the same but for one thing that depends on timing: the first calls of
//! `echoed` name `/root/Main` by its path inline until the client confirms the path cache id,
//! then by the id, and where the switch falls depends on when the confirmation arrives. Calls are
//! compared by method id and argument bytes, with the node named "inline path" or "id".
//!
//! A late peer: a node spawned (public) and synchronized before the client joins, by a Godot 4
//! server and by the crate's; the client must get the same spawn (state included), the same
//! `DELTA` and the same `SYNC` (which the engine sends every frame, with its own sync times:
//! compared as the set of distinct packets, time aside). The engine sends `SYNC` and `DELTA` at
//! the end of the frame that admitted the peer, so an answer to the client's first packets
//! (`CONFIRM_PATH`) may come before them or after: answers are compared apart, in their order.

use crate::common;
use crate::server_live::{run_clients, start_example};

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use gdvariant_multiplayer::{self as multiplayer, NodeTarget, Packet};

/// How long a Godot server of these tests may run: a deadline only (each test stops its server
/// when done), longer than its clients' runs may take on a loaded machine (a test runs up to
/// three clients one after another against one server, each with its own 30 s timeout).
const GODOT_SERVER_SECONDS: u32 = 120;

/// A Godot 4 server on `transport`; returns the process and its port. The port is picked free
/// here and bound by the engine a moment later: another process may take it in between (a
/// parallel test's ephemeral socket), and then the engine says `SERVER-FAILED` and the server is
/// started again on another port.
pub(crate) fn start_godot_server(
    transport: &str,
    seconds: u32,
    extra: &str,
) -> (std::process::Child, u16, PathBuf) {
    let mut attempt = 1;
    loop {
        if let Some(started) = try_start_godot_server(transport, seconds, extra) {
            return started;
        }
        assert!(
            attempt < 5,
            "the Godot {transport} server failed to listen 5 times"
        );
        attempt += 1;
    }
}

/// One try of [`start_godot_server`]: `None` when the engine could not listen on the port.
fn try_start_godot_server(
    transport: &str,
    seconds: u32,
    extra: &str,
) -> Option<(std::process::Child, u16, PathBuf)> {
    let port = match transport {
        "enet" => std::net::UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port(),
        _ => std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port(),
    };
    let dir = common::scratch_dir(&format!("mpserver-godot-{transport}-{port}"));
    std::fs::copy(
        common::godot_dir().join("mpserver_server4.gd"),
        dir.join("mpserver_server4.gd"),
    )
    .unwrap();
    std::fs::write(
        dir.join("mpserver_server.cfg"),
        format!("transport={transport}\nport={port}\nseconds={seconds}\n{extra}"),
    )
    .unwrap();
    let mut child = Command::new(common::godot_exe(4))
        .arg(&dir)
        .arg("mpserver_server4.gd")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let l = lines.next().expect("Godot server output").unwrap();
        if l.starts_with("SERVER-FAILED") {
            eprintln!("the Godot {transport} server on port {port}: {l}: again on another port");
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        if l.starts_with("SERVER-READY") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    Some((child, port, dir))
}

/// The packets the client received from the server, normalised as the module's docs say.
fn received(dir: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("packets.tsv")).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 5 || f[0] != "in" || f[1] != "1" {
            continue;
        }
        let bytes = hex(f[4]);
        let shown = match multiplayer::parse(&bytes) {
            Ok(Packet::RemoteCall(c)) => {
                let node = match c.node() {
                    NodeTarget::Path(p) => format!("inline path {p}"),
                    NodeTarget::Id(_) => "id".to_string(),
                };
                let end = c.path_offset().unwrap_or(bytes.len());
                let args = &bytes[1 + c.node_id_width() + c.method_id_width()..end];
                format!(
                    "rpc method {} node {} args {}",
                    c.method(),
                    if node == "id" {
                        "id"
                    } else {
                        "inline path Main"
                    },
                    f4(args)
                )
            }
            // SYNC: the sync time (bytes 1-2) is the sender's frame count.
            Ok(Packet::Sync(_)) => format!("SYNC tttt{} mode {} ch {}", &f[4][6..], f[3], f[2]),
            _ => format!("{} mode {} ch {}", f[4], f[3], f[2]),
        };
        out.push(shown);
    }
    out
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn f4(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn record(transport: &str, port: u16) -> Vec<String> {
    record_with(transport, port, "")
}

fn record_with(transport: &str, port: u16, extra: &str) -> Vec<String> {
    let cfg = format!("transport={transport}\nport={port}\npeers=1\nrecord=1\n{extra}");
    let outs = run_clients(4, "mpserver_client4.gd", &[cfg]);
    let (out, dir) = &outs[0];
    assert!(out.contains("CLIENT-DONE 0"), "{out}");
    received(dir)
}

#[test]
fn echo_server_sends_what_a_godot_server_sends() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    let ex = start_example(false);
    for transport in ["ws", "enet"] {
        let (mut godot, port, _dir) = start_godot_server(transport, GODOT_SERVER_SECONDS, "");
        let from_godot = record(transport, port);
        let _ = godot.kill();
        let _ = godot.wait();
        let ours = record(
            transport,
            if transport == "ws" {
                ex.ws.unwrap()
            } else {
                ex.enet.unwrap()
            },
        );
        let strip = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| s.replace("node inline path Main", "node id"))
                .collect()
        };
        let inline = |v: &[String]| v.iter().filter(|s| s.contains("inline path")).count();
        eprintln!(
            "{transport}: Godot server {} packets ({} calls with the path inline), echo_server {} ({})",
            from_godot.len(),
            inline(&from_godot),
            ours.len(),
            inline(&ours)
        );
        assert_eq!(
            ours.first(),
            from_godot.first(),
            "{transport}: SIMPLIFY_PATH first"
        );
        assert_eq!(
            strip(&ours),
            strip(&from_godot),
            "{transport}: the packets differ"
        );
    }
}

/// The packets in order but for two kinds: the answers to the client's packets (`CONFIRM_PATH`),
/// in their order, and the state packets (`state`: sent every frame by the engine, at times
/// that vary), as a set. Calls named by inline path count as by id.
fn split_state(
    v: &[String],
    state: impl Fn(&String) -> bool,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut states, others): (Vec<String>, Vec<String>) = v
        .iter()
        .map(|s| s.replace("node inline path Main", "node id"))
        .partition(|s| state(s));
    states.sort();
    states.dedup();
    let (answers, others) = others.into_iter().partition(|s| s.starts_with("02"));
    (others, answers, states)
}

/// The crate's server with the node the Godot server's `shared=1` spawns: "Shared", spawned and
/// synchronized before any peer joined, its state as the Godot server's.
fn start_shared_rust_server() -> (u16, u16, tokio::sync::oneshot::Sender<()>) {
    use gdvariant::{math::Vector2, Variant};
    use gdvariant_multiplayer::server::{Event, Flavor, Server, ServerConfig, ServerCore, To};
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    crate::server_live::on_runtime(move || async move {
        let schema = crate::server_live::schema(Flavor::Godot4);
        let mut server = Server::new(ServerCore::new(schema, ServerConfig::default()));
        let ws = server
            .listen_ws("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let enet = server
            .listen_enet("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let pos = Variant::Vector2(Vector2::new(7.0, 8.0));
        let state = [pos.clone(), Variant::Int(41), Variant::from("renamed")];
        let s = server
            .spawn(To::All, "Main/Spawner", 0, "Shared", 1, &state)
            .unwrap();
        server.sync(To::All, s.sync_ids[0], &[pos]).unwrap();
        server
            .delta(To::All, s.sync_ids[0], 1, &[Variant::Int(41)])
            .unwrap();
        tx.send((ws.port(), enet.port())).unwrap();
        loop {
            let ev = tokio::select! {
                ev = server.next_event() => ev,
                _ = &mut stop_rx => break,
            };
            if let Event::Rpc(call) = ev {
                let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                server
                    .rpc(To::Peer(call.from()), "Main", "echoed", &args)
                    .unwrap();
            }
        }
    });
    let (ws, enet) = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    (ws, enet, stop_tx)
}

#[test]
fn a_late_peer_gets_what_a_godot_server_sends() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    let (ws, enet, stop) = start_shared_rust_server();
    let client = "shared=1\nshared_state=late\n";
    for transport in ["ws", "enet"] {
        let (mut godot, port, _dir) =
            start_godot_server(transport, GODOT_SERVER_SECONDS, "shared=1\n");
        let from_godot = record_with(transport, port, client);
        let _ = godot.kill();
        let _ = godot.wait();
        let ours = record_with(transport, if transport == "ws" { ws } else { enet }, client);
        // In order, SYNC and CONFIRM_PATH aside; the answers in order, the SYNCs as a set.
        let split = |v: &[String]| split_state(v, |s| s.starts_with("SYNC"));
        let (godot_order, godot_answers, godot_syncs) = split(&from_godot);
        let (our_order, our_answers, our_syncs) = split(&ours);
        eprintln!(
            "late peer {transport}: Godot server {} packets ({} SYNC), ours {} ({})",
            from_godot.len(),
            from_godot.len() - godot_order.len() - godot_answers.len(),
            ours.len(),
            ours.len() - our_order.len() - our_answers.len(),
        );
        assert!(
            godot_order[1].starts_with("04"),
            "{transport}: the Godot server's second packet is the SPAWN: {godot_order:?}"
        );
        assert_eq!(our_order, godot_order, "{transport}: the packets differ");
        assert_eq!(
            our_answers, godot_answers,
            "{transport}: the answers differ"
        );
        assert_eq!(our_syncs, godot_syncs, "{transport}: the SYNCs differ");
    }
    let _ = stop.send(());
}

/// The crate's server with what the Godot server's `scene=1` has: the state of the synchronizer
/// `Main/Board/Sync` (outside spawned nodes) and "Custom1" spawned by `Main/CustomSpawner`'s
/// `spawn_function`, both set before any peer joined. With `vis`, what its `vis=1` has: the
/// board alone, not public, shown to a peer and hidden from it by its `echo("board show")` and
/// `echo("board hide")` (after the answer, as the engine sends the state at its next frame),
/// the board's state changed after hiding it.
fn start_scene_rust_server(vis: bool) -> (u16, u16, tokio::sync::oneshot::Sender<()>) {
    use gdvariant::{math::Vector2, Dictionary, Variant};
    use gdvariant_multiplayer::server::{Event, Flavor, Server, ServerConfig, ServerCore, To};
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    crate::server_live::on_runtime(move || async move {
        let schema = crate::server_live::schema(Flavor::Godot4);
        let mut server = Server::new(ServerCore::new(schema, ServerConfig::default()));
        let ws = server
            .listen_ws("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let enet = server
            .listen_enet("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let board = "Main/Board/Sync";
        if vis {
            server.core_mut().set_path_public(board, false).unwrap();
        }
        let pos = Variant::Vector2(Vector2::new(3.0, 4.0));
        server
            .sync_path(To::All, "Main/Board/Sync", &[pos])
            .unwrap();
        server
            .delta_path(To::All, "Main/Board/Sync", 1, &[Variant::Int(9)])
            .unwrap();
        let mut data = Dictionary::new();
        data.insert(
            Variant::from("pos"),
            Variant::Vector2(Vector2::new(1.0, 2.0)),
        );
        data.insert(Variant::from("hp"), Variant::Int(77));
        let none: &[Variant] = &[];
        if !vis {
            server
                .spawn_custom(
                    To::All,
                    "Main/CustomSpawner",
                    "Custom1",
                    &Variant::Dictionary(data),
                    0,
                    none,
                )
                .unwrap();
        }
        tx.send((ws.port(), enet.port())).unwrap();
        loop {
            let ev = tokio::select! {
                ev = server.next_event() => ev,
                _ = &mut stop_rx => break,
            };
            if let Event::Rpc(call) = ev {
                let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                server
                    .rpc(To::Peer(call.from()), "Main", "echoed", &args)
                    .unwrap();
                let shown = match args.first().and_then(|a| a.to_owned().ok()) {
                    Some(Variant::String(s)) if s == "board show" => true,
                    Some(Variant::String(s)) if s == "board hide" => false,
                    _ => continue,
                };
                let core = server.core_mut();
                core.set_path_visible(board, call.from(), shown).unwrap();
                if !shown {
                    let pos = Variant::Vector2(Vector2::new(5.0, 6.0));
                    core.sync_path(To::All, board, &[pos]).unwrap();
                    core.delta_path(To::All, board, 1, &[Variant::Int(10)])
                        .unwrap();
                }
                server.flush();
            }
        }
    });
    let (ws, enet) = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    (ws, enet, stop_tx)
}

#[test]
fn scene_synchronizers_and_custom_spawns_as_a_godot_server_sends_them() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    let (ws, enet, stop) = start_scene_rust_server(false);
    let client = "scene_sync=1\ncustom=1\n";
    for transport in ["ws", "enet"] {
        let (mut godot, port, _dir) =
            start_godot_server(transport, GODOT_SERVER_SECONDS, "scene=1\n");
        let from_godot = record_with(transport, port, client);
        let _ = godot.kill();
        let _ = godot.wait();
        let ours = record_with(transport, if transport == "ws" { ws } else { enet }, client);
        // As for the late peer: the SYNCs (every frame from the engine) as a set, the answers
        // to the client's packets apart, the rest in order. The DELTA follows the client's
        // CONFIRM_PATH of the synchronizer, at a time that varies between the echoes: it goes
        // with the SYNCs.
        let split = |v: &[String]| split_state(v, |s| s.starts_with("SYNC") || s.starts_with("16"));
        let (godot_order, godot_answers, godot_syncs) = split(&from_godot);
        let (our_order, our_answers, our_syncs) = split(&ours);
        eprintln!(
            "scene {transport}: Godot server {} packets, ours {}; state packets {godot_syncs:?}",
            from_godot.len(),
            ours.len()
        );
        assert!(
            godot_syncs.iter().any(|s| s.contains("02000080")),
            "{transport}: the Godot server's SYNC names the synchronizer by path id 2: {godot_syncs:?}"
        );
        assert_eq!(our_order, godot_order, "{transport}: the packets differ");
        assert_eq!(
            our_answers, godot_answers,
            "{transport}: the answers differ"
        );
        assert_eq!(our_syncs, godot_syncs, "{transport}: the SYNCs differ");
    }
    let _ = stop.send(());
}

/// What a Godot 4.6 server does with client-authority synchronizers it has no node for (the
/// clients' `Main/P<id>`): it does not confirm their paths, so their SYNC and DELTA never reach
/// it, and the clients still get each other's state through its relay, as from the crate's
/// server (`server_scene.rs`).
#[test]
fn a_godot_server_relays_client_authority_state() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    for transport in ["ws", "enet"] {
        let (mut godot, port, _dir) = start_godot_server(transport, GODOT_SERVER_SECONDS, "");
        let cfg = format!("transport={transport}\nport={port}\npeers=2\nclient_sync=1\n");
        let outs = run_clients(4, "mpserver_client4.gd", &[cfg.clone(), cfg]);
        let _ = godot.kill();
        let _ = godot.wait();
        crate::server_live::check_clients(
            &format!("client sync, Godot server, {transport}"),
            &outs,
        );
    }
}

/// The packets of a visibility run (`vis=1`), normalised as [`split_state`] does, each state
/// packet (`SYNC`, `DELTA`) with its phase: how many of the server's answers to
/// `echo("board …")` came before it (0: hidden at first; 1: shown; 2: hidden; 3: shown again).
fn phased(v: &[String]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let board = f4(b"board ");
    let mut phase = 0;
    let v: Vec<String> = v
        .iter()
        .map(|s| {
            if s.starts_with("rpc") && s.contains(&board) {
                phase += 1;
            }
            if s.starts_with("SYNC") || s.starts_with("16") {
                format!("phase {phase}: {s}")
            } else {
                s.clone()
            }
        })
        .collect();
    split_state(&v, |s| s.starts_with("phase"))
}

/// A synchronizer outside spawned nodes behind its visibility (`public_visibility` false,
/// `set_visibility_for` on the client's request): the packets from the crate's server and from a
/// Godot 4 server must be the same, the state packets (SYNC every frame from the engine) as a
/// set by phase: nothing of the board while hidden (not even its path), its path then its state
/// once shown, nothing while hidden again though its state changed, and the new state (SYNC, and
/// a DELTA of every "on change" property) once shown again, without its path again.
#[test]
fn synchronizer_visibility_as_a_godot_server_has_it() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    let client = "vis=1\n";
    for transport in ["ws", "enet"] {
        let (mut godot, port, _dir) =
            start_godot_server(transport, GODOT_SERVER_SECONDS, "vis=1\n");
        let from_godot = record_with(transport, port, client);
        let _ = godot.kill();
        let _ = godot.wait();
        // A fresh server, as the Godot one: the board's state changes in a run.
        let (ws, enet, stop) = start_scene_rust_server(true);
        let ours = record_with(transport, if transport == "ws" { ws } else { enet }, client);
        let _ = stop.send(());
        let (godot_order, godot_answers, godot_states) = phased(&from_godot);
        let (our_order, our_answers, our_states) = phased(&ours);
        eprintln!(
            "visibility {transport}: Godot server {} packets, ours {}; state packets {godot_states:?}",
            from_godot.len(),
            ours.len()
        );
        let phases: Vec<&str> = godot_states.iter().map(|s| &s[..7]).collect();
        assert_eq!(
            phases,
            ["phase 1", "phase 1", "phase 3", "phase 3"],
            "{transport}: the Godot server's state packets: {godot_states:?}"
        );
        assert_eq!(our_order, godot_order, "{transport}: the packets differ");
        assert_eq!(
            our_answers, godot_answers,
            "{transport}: the answers differ"
        );
        assert_eq!(
            our_states, godot_states,
            "{transport}: the state packets differ"
        );
    }
}

/// Client-owned spawners (`cspawn=1`) with a Godot 4.6 server that has the clients' spawners
/// (each peer the authority of its own): the server instantiates each client's shot, applies
/// its state and frees it at the DESPAWN, and sends nothing of it on (the clients get each
/// other's through its relay). One recorded client then gets the same packets from the crate's
/// server as from the Godot server (the spawner's `CONFIRM_PATH` among them, and nothing more;
/// the echoes' node inline or by id as in `echo_server_sends_what_a_godot_server_sends`).
#[test]
fn client_spawns_as_a_godot_server_takes_them() {
    if !common::engine_ready(4, "the server compared with a Godot 4 server") {
        return;
    }
    for transport in ["ws", "enet"] {
        let (mut godot, port, dir) =
            start_godot_server(transport, GODOT_SERVER_SECONDS, "cspawn=1\n");
        let cfg = format!("transport={transport}\nport={port}\npeers=2\ncspawn=1\n");
        let outs = run_clients(4, "mpserver_client4.gd", &[cfg.clone(), cfg]);
        crate::server_live::check_clients(&format!("cspawn, Godot server, {transport}"), &outs);
        let ids: Vec<i32> = outs
            .iter()
            .map(|(out, _)| {
                let at = out.find("CLIENT-RESULT me=").unwrap() + 17;
                out[at..].split(' ').next().unwrap().parse().unwrap()
            })
            .collect();
        let taken = std::fs::read_to_string(dir.join("cspawn.txt")).unwrap();
        for id in ids {
            let x = id % 100;
            // Its position comes by SYNC, unreliable: over ENet the client's may all be dropped
            // (see server_scene.rs); hp by DELTA, reliable.
            let moved = [format!("{id} despawned Shot ({x}.0, 3.0) 61")];
            let either = [
                moved[0].clone(),
                format!("{id} despawned Shot ({x}.0, 2.0) 61"),
            ];
            let despawned: &[String] = if transport == "ws" { &moved } else { &either };
            let spawned = format!("{id} spawned Shot ({x}.0, 2.0) 100");
            assert!(
                taken.lines().any(|l| l == spawned),
                "{transport}: the Godot server: no {spawned:?} in {taken}"
            );
            assert!(
                taken.lines().any(|l| despawned.iter().any(|d| d == l)),
                "{transport}: the Godot server: none of {despawned:?} in {taken}"
            );
        }
        let from_godot = record_with(transport, port, "cspawn=1\n");
        let _ = godot.kill();
        let _ = godot.wait();
        let ours = crate::server_scene::start_logging_server();
        let port = if transport == "ws" {
            ours.ws
        } else {
            ours.enet
        };
        let from_ours = record_with(transport, port, "cspawn=1\n");
        let log = ours.stop();
        assert!(
            log.iter().any(|l| l.starts_with("Despawn")),
            "{transport}: {log:?}"
        );
        eprintln!(
            "cspawn {transport}: Godot server {} packets, ours {}",
            from_godot.len(),
            from_ours.len()
        );
        // Where the echoes switch from the path inline to its id depends on timing.
        let strip = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| s.replace("node inline path Main", "node id"))
                .collect()
        };
        assert_eq!(
            strip(&from_ours),
            strip(&from_godot),
            "{transport}: the packets differ"
        );
    }
}
