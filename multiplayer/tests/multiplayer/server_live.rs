//! The server against unmodified headless Godot clients (skipped loudly when an engine is not
//! installed, a failure when `GDVARIANT_LIVE_GODOT4=1` / `GDVARIANT_LIVE_GODOT3=1` requires it):
//! the `echo_server` example and an in-process test server (with authentication, and with a
//! spawner and a synchronizer for Godot 4), over WebSocket and ENet. Each run starts two clients
//! at once: they authenticate, call `echo` with values of every type and check the `echoed`
//! bytes, see each other join, call each other through the relay, and see each other leave;
//! Godot 4 clients of the test server get a node spawned on their `MultiplayerSpawner`, its
//! `MultiplayerSynchronizer` driven (SYNC and DELTA), and the node despawned.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc as smpsc;
use std::time::{Duration, Instant};

use gdvariant::{math::Vector2, Variant};
use gdvariant_multiplayer::server::{
    AuthStep, EnetCompression, Event, Flavor, RpcMode, Server, ServerConfig, ServerCore,
    ServerSchema, To, TransferMode,
};

/// A fresh scratch directory holding `script` and `mpserver.cfg`.
pub(crate) fn client_dir(n: u32, script: &str, cfg: &str, tag: &str) -> PathBuf {
    let dir = common::fresh_scratch_dir(&format!("mpserver-{tag}"));
    std::fs::copy(common::godot_dir().join(script), dir.join(script)).unwrap();
    std::fs::write(dir.join("mpserver.cfg"), cfg).unwrap();
    let _ = n;
    dir
}

/// Runs `cfgs.len()` clients at once; returns each one's stdout (and its directory).
pub(crate) fn run_clients(n: u32, script: &str, cfgs: &[String]) -> Vec<(String, PathBuf)> {
    let children: Vec<(Child, PathBuf)> = cfgs
        .iter()
        .enumerate()
        .map(|(i, cfg)| {
            let dir = client_dir(n, script, cfg, &format!("c{i}"));
            let child = Command::new(common::godot_exe(n))
                .arg(&dir)
                .arg(script)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run engine");
            (child, dir)
        })
        .collect();
    children
        .into_iter()
        .map(|(child, dir)| {
            let out = child.wait_with_output().unwrap();
            let text = format!(
                "{}\n--- stderr ---\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            (text, dir)
        })
        .collect()
}

/// Checks the clients' reports: every client done without failure, and saw the others.
pub(crate) fn check_clients(what: &str, outs: &[(String, PathBuf)]) {
    for (out, _) in outs {
        assert!(
            out.contains("CLIENT-DONE 0"),
            "{what}: a client failed:\n{out}"
        );
    }
    let left: usize = outs
        .iter()
        .filter_map(|(o, _)| o.split("left=").nth(1))
        .filter_map(|s| s.split_whitespace().next()?.parse::<usize>().ok())
        .sum();
    assert!(
        left + 1 >= outs.len(),
        "{what}: too few leaves seen: {outs:?}"
    );
    eprintln!(
        "{what}: {}",
        outs.iter()
            .filter_map(|(o, _)| o.lines().find(|l| l.starts_with("CLIENT-RESULT")))
            .collect::<Vec<_>>()
            .join(" | ")
    );
}

/// The `echo_server` example, built by `cargo test` next to the test binary.
pub(crate) struct Example {
    child: Child,
    pub(crate) ws: Option<u16>,
    pub(crate) enet: Option<u16>,
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn example_exe(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(name)
}

pub(crate) fn start_example(godot3: bool) -> Example {
    let mut cmd = Command::new(example_exe("echo_server"));
    cmd.args(["--ws", "127.0.0.1:0", "--enet", "127.0.0.1:0"]);
    if godot3 {
        cmd.arg("--godot3");
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect(
            "the echo_server example (cargo test builds it with --features server-ws,server-enet)",
        );
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut ws, mut enet) = (None, None);
    while ws.is_none() || enet.is_none() {
        let line = lines.next().expect("echo_server output").unwrap();
        let port = || line.split(':').nth(1)?.split(' ').next()?.parse().ok();
        if line.starts_with("listening ws") {
            ws = port();
        } else if line.starts_with("listening enet") {
            enet = port();
        }
    }
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            eprintln!("[echo_server] {l}");
        }
    });
    Example { child, ws, enet }
}

/// Runs `f`'s future on a current-thread tokio runtime on a thread of its own.
pub(crate) fn on_runtime<F, Fut>(f: F) -> std::thread::JoinHandle<Fut::Output>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future,
    Fut::Output: Send + 'static,
{
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f())
    })
}

/// The test server: echo, with authentication (Godot 4), and for Godot 4 a spawned node.
pub(crate) struct TestServer {
    pub(crate) ws: u16,
    pub(crate) enet: u16,
    pub(crate) stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub(crate) thread: Option<std::thread::JoinHandle<Vec<String>>>,
}

impl TestServer {
    /// Stops the server; returns its log.
    pub(crate) fn stop(mut self) -> Vec<String> {
        let _ = self.stop.take().unwrap().send(());
        self.thread.take().unwrap().join().unwrap()
    }
}

/// The served node, read from the schema file `tests/godot/mpserver4.schema` or
/// `mpserver3.schema` (Godot 3's `remote func`s callable by any peer, its `remote var color` and
/// `puppet var score` on `rset` lines).
pub(crate) fn schema(flavor: Flavor) -> ServerSchema {
    let file = match flavor {
        Flavor::Godot4 => "mpserver4.schema",
        Flavor::Godot3 => "mpserver3.schema",
    };
    let text = std::fs::read_to_string(common::godot_dir().join(file))
        .unwrap_or_else(|e| panic!("tests/godot/{file}: {e}"));
    let schema = ServerSchema::parse(&text).unwrap();
    if flavor == Flavor::Godot3 {
        let main = schema.find("Main").unwrap();
        assert_eq!(main.by_property("color").unwrap().mode(), RpcMode::AnyPeer);
        assert_eq!(
            main.by_property("score").unwrap().mode(),
            RpcMode::Authority
        );
    }
    schema
}

pub(crate) fn start_test_server(flavor: Flavor, auth: bool, spawn: bool) -> TestServer {
    start_test_server_with(flavor, auth, spawn, EnetCompression::default())
}

/// [`start_test_server`] with the given use of ENet's range coder.
pub(crate) fn start_test_server_with(
    flavor: Flavor,
    auth: bool,
    spawn: bool,
    compression: EnetCompression,
) -> TestServer {
    let (ports_tx, ports_rx) = smpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = on_runtime(move || async move {
        let cfg = ServerConfig {
            flavor,
            ..ServerConfig::default()
        };
        let mut core = ServerCore::new(schema(flavor), cfg);
        if auth {
            core = core.with_auth(Challenge);
        }
        let mut server = Server::new(core);
        let ws = server
            .listen_ws("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let enet = server
            .listen_enet_with("127.0.0.1:0".parse().unwrap(), compression)
            .await
            .unwrap();
        ports_tx.send((ws.port(), enet.port())).unwrap();
        let mut log = Vec::new();
        // Per peer: its node and synchronizer net ids, and whether it was synced yet.
        let mut spawned: std::collections::HashMap<i32, (u32, u32, bool)> = Default::default();
        loop {
            let ev = tokio::select! {
                ev = server.next_event() => ev,
                _ = &mut stop_rx => break,
            };
            match &ev {
                // Main/Native's methods are configured with Node.rpc_config.
                Event::Rpc(call) if call.method() == "ping" => {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    server
                        .rpc(To::Peer(call.from()), "Main/Native", "pong", &args)
                        .unwrap();
                }
                Event::Rpc(call) if call.method() == "echo" => {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    server
                        .rpc(To::Peer(call.from()), "Main", "echoed", &args)
                        .unwrap();
                    if let Some((net, sync, synced)) = spawned.get_mut(&call.from()) {
                        let p = To::Peer(call.from());
                        if !*synced {
                            // After the client's first echo the spawn has surely arrived:
                            // position by SYNC (always), hp by DELTA (on change).
                            *synced = true;
                            let pos = Variant::Vector2(Vector2::new(7.0, 8.0));
                            server.sync(p, *sync, &[pos]).unwrap();
                            server.delta(p, *sync, 1, &[Variant::Int(41)]).unwrap();
                        }
                        let done = args.first().and_then(|a| a.to_owned().ok());
                        if done == Some(Variant::from("synced")) {
                            server.despawn(*net).unwrap();
                        }
                    }
                }
                // Godot 3: the client's rset of its `remote var color`, answered with an rset
                // of its `puppet var score`.
                Event::Rset(set) if set.method() == "color" => {
                    let value = set.args().next().unwrap().unwrap().to_owned().unwrap();
                    assert_eq!(value, Variant::from("red"));
                    server
                        .rset(To::Peer(set.from()), "Main", "score", &Variant::Int(42))
                        .unwrap();
                }
                Event::PeerJoined(p) => {
                    // The server's own RPC, unasked, before the echoes.
                    server
                        .rpc(To::Peer(*p), "Main", "echoed", &[Variant::from("welcome")])
                        .unwrap();
                    if spawn {
                        let state = [
                            Variant::Vector2(Vector2::new(5.0, 6.0)),
                            Variant::Int(42),
                            Variant::from("served"),
                        ];
                        let s = server
                            .spawn(To::Peer(*p), "Main/Spawner", 0, "Thing1", 1, &state)
                            .unwrap();
                        spawned.insert(*p, (s.net_id, s.sync_ids[0], false));
                    }
                }
                _ => {}
            }
            log.push(format!("{ev:?}"));
        }
        log
    });
    let (ws, enet) = ports_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    TestServer {
        ws,
        enet,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}

/// The server's side of the clients' authentication: "challenge", then "secret" completes.
struct Challenge;

impl gdvariant_multiplayer::server::Authenticator for Challenge {
    fn start(&mut self, _peer: i32) -> AuthStep {
        AuthStep::Send(b"challenge".to_vec())
    }

    fn data(&mut self, _peer: i32, data: &[u8]) -> AuthStep {
        if data == b"secret" {
            AuthStep::Complete
        } else {
            AuthStep::Reject(format!("wrong secret {data:?}"))
        }
    }
}

fn cfg4(
    transport: &str,
    port: u16,
    peers: usize,
    auth: bool,
    spawn: bool,
    welcome: bool,
) -> String {
    // The test server (spawn) also serves Main/Native's rpc_config methods.
    format!(
        "transport={transport}\nport={port}\npeers={peers}\nauth={}\nspawn={}\nwelcome={}\nnative={}\n",
        u8::from(auth),
        u8::from(spawn),
        u8::from(welcome),
        u8::from(spawn)
    )
}

fn two_clients4(what: &str, transport: &str, port: u16, auth: bool, spawn: bool, welcome: bool) {
    let cfg = cfg4(transport, port, 2, auth, spawn, welcome);
    let outs = run_clients(4, "mpserver_client4.gd", &[cfg.clone(), cfg]);
    check_clients(what, &outs);
}

#[test]
fn godot4_clients_of_the_echo_example() {
    if !common::engine_ready(4, "the server against Godot 4 clients") {
        return;
    }
    let t = Instant::now();
    let ex = start_example(false);
    two_clients4("echo_server ws", "ws", ex.ws.unwrap(), false, false, false);
    two_clients4(
        "echo_server enet",
        "enet",
        ex.enet.unwrap(),
        false,
        false,
        false,
    );
    eprintln!("godot4 echo example: {:?}", t.elapsed());
}

#[test]
fn godot4_clients_of_a_test_server_with_auth() {
    if !common::engine_ready(4, "the server against Godot 4 clients") {
        return;
    }
    let server = start_test_server(Flavor::Godot4, true, true);
    let (ws, enet) = (server.ws, server.enet);
    two_clients4("test server ws", "ws", ws, true, true, true);
    two_clients4("test server enet", "enet", enet, true, true, true);
    let log = server.stop();
    assert!(log.iter().any(|l| l.starts_with("PeerJoined")), "{log:?}");
    assert!(log.iter().any(|l| l.starts_with("PeerLeft")), "{log:?}");
    let _ = TransferMode::Reliable;
}

/// A server whose node "Shared" is public: spawned when the first peer joins, synchronized at
/// once (SYNC position, DELTA hp), its spawn state's label changed afterwards; despawned once
/// two peers said `echo("synced")`.
fn start_shared_server() -> TestServer {
    let (ports_tx, ports_rx) = smpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = on_runtime(move || async move {
        let core = ServerCore::new(schema(Flavor::Godot4), ServerConfig::default());
        let mut server = Server::new(core);
        let ws = server
            .listen_ws("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let enet = server
            .listen_enet("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        ports_tx.send((ws.port(), enet.port())).unwrap();
        let (mut log, mut shared, mut synced) = (Vec::new(), None, Vec::new());
        loop {
            let ev = tokio::select! {
                ev = server.next_event() => ev,
                _ = &mut stop_rx => break,
            };
            match &ev {
                Event::PeerJoined(_) if shared.is_none() => {
                    let pos = |x, y| Variant::Vector2(Vector2::new(x, y));
                    let state = [pos(5.0, 6.0), Variant::Int(42), Variant::from("served")];
                    let s = server
                        .spawn(To::All, "Main/Spawner", 0, "Shared", 1, &state)
                        .unwrap();
                    server
                        .sync(To::All, s.sync_ids[0], &[pos(7.0, 8.0)])
                        .unwrap();
                    server
                        .delta(To::All, s.sync_ids[0], 1, &[Variant::Int(41)])
                        .unwrap();
                    let later = [pos(5.0, 6.0), Variant::Int(42), Variant::from("renamed")];
                    server.core_mut().set_spawn_state(s.net_id, &later).unwrap();
                    shared = Some(s.net_id);
                }
                Event::Rpc(call) if call.method() == "echo" => {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    let first = args.first().and_then(|a| a.to_owned().ok());
                    if first == Some(Variant::from("synced")) {
                        synced.push(call.from());
                        if synced.len() == 2 {
                            server.despawn(shared.unwrap()).unwrap();
                        }
                    } else {
                        server
                            .rpc(To::Peer(call.from()), "Main", "echoed", &args)
                            .unwrap();
                    }
                }
                _ => {}
            }
            log.push(format!("{ev:?}"));
        }
        log
    });
    let (ws, enet) = ports_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    TestServer {
        ws,
        enet,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}

#[test]
fn godot4_late_joiner_gets_the_spawned_nodes_and_their_state() {
    if !common::engine_ready(4, "the server against Godot 4 clients") {
        return;
    }
    for transport in ["ws", "enet"] {
        let server = start_shared_server();
        let port = if transport == "ws" {
            server.ws
        } else {
            server.enet
        };
        // The first client is there when the node is spawned and synchronized; the second
        // connects 3 s later, and must get it spawned with the spawn state as last set, then
        // the synchronizer's state.
        let cfg = |delay: u32| {
            format!("transport={transport}\nport={port}\npeers=2\nshared=1\ndelay_ms={delay}\n")
        };
        let outs = run_clients(4, "mpserver_client4.gd", &[cfg(0), cfg(3000)]);
        check_clients(&format!("late joiner {transport}"), &outs);
        // The first to join got the node with its first spawn state, the other (the late one,
        // usually the delayed client) with the state as changed since.
        let mut labels: Vec<&str> = outs
            .iter()
            .filter_map(|(o, _)| {
                let spawned = o.split("\"spawned\": [\"Shared\"").nth(1)?;
                Some(if spawned.contains("\"served\"]") {
                    "served"
                } else {
                    "renamed"
                })
            })
            .collect();
        labels.sort_unstable();
        assert_eq!(labels, ["renamed", "served"], "{outs:?}");
        let log = server.stop();
        assert_eq!(
            log.iter().filter(|l| l.starts_with("PeerJoined")).count(),
            2,
            "{log:?}"
        );
    }
}

/// Two Godot 3 clients (`engine` 3: Godot 3.2.3; 36: Godot 3.6, whose ENet compresses with the
/// range coder by default).
fn two_clients3(engine: u32, what: &str, transport: &str, port: u16, welcome: bool) {
    // The test server (welcome) answers rset too.
    let cfg = format!(
        "transport={transport}\nport={port}\npeers=2\nwelcome={}\nrset={}\n",
        u8::from(welcome),
        u8::from(welcome)
    );
    let outs = run_clients(engine, "mpserver_client3.gd", &[cfg.clone(), cfg]);
    check_clients(what, &outs);
    if transport == "enet" {
        // The engines' defaults: no compression in 3.2.3, ENet's range coder in 3.6.
        let mode = format!("compression_mode={}", u8::from(engine == 36));
        for (out, _) in &outs {
            assert!(out.contains(&mode), "{what}: not {mode}:\n{out}");
        }
    }
}

#[test]
fn godot3_clients_of_the_echo_example() {
    if !common::engine_ready(3, "the server against Godot 3 clients") {
        return;
    }
    let ex = start_example(true);
    two_clients3(3, "echo_server --godot3 ws", "ws", ex.ws.unwrap(), false);
    two_clients3(
        3,
        "echo_server --godot3 enet",
        "enet",
        ex.enet.unwrap(),
        false,
    );
}

#[test]
fn godot3_clients_of_a_test_server() {
    if !common::engine_ready(3, "the server against Godot 3 clients") {
        return;
    }
    let server = start_test_server(Flavor::Godot3, false, false);
    let (ws, enet) = (server.ws, server.enet);
    two_clients3(3, "test server godot3 ws", "ws", ws, true);
    two_clients3(3, "test server godot3 enet", "enet", enet, true);
    let log = server.stop();
    assert!(log.iter().any(|l| l.starts_with("PeerLeft")), "{log:?}");
}

/// Godot 3.6 clients, with ENet's range coder on as Godot 3.4+ has it by default: the example
/// (which reads their compressed datagrams and answers uncompressed, so 3.2 clients connect to
/// it too), and a test server that compresses its own datagrams as well.
#[test]
fn godot36_clients_with_the_range_coder() {
    if !common::engine_ready(
        36,
        "the server against Godot 3.6 clients (ENet range coder)",
    ) {
        return;
    }
    let ex = start_example(true);
    two_clients3(
        36,
        "echo_server --godot3 enet, Godot 3.6",
        "enet",
        ex.enet.unwrap(),
        false,
    );
    two_clients3(
        36,
        "echo_server --godot3 ws, Godot 3.6",
        "ws",
        ex.ws.unwrap(),
        false,
    );
    drop(ex);
    let server = start_test_server_with(Flavor::Godot3, false, false, EnetCompression::RangeCoder);
    let enet = server.enet;
    two_clients3(36, "compressing test server, Godot 3.6", "enet", enet, true);
    let log = server.stop();
    assert!(log.iter().any(|l| l.starts_with("PeerLeft")), "{log:?}");
}
