//! What the crate's `echo_server` sends compared with what a Godot 4 server running the same
//! script (`tests/godot/mpserver_server4.gd`) sends, recorded on the client's side: a Godot 4
//! client (`mpserver_client4.gd`, `record=1`) logs every SceneMultiplayer packet it receives
//! through a `MultiplayerPeerExtension` around its real ENet / WebSocket peer.
//!
//! The packets must be the same but for one thing that depends on timing: the first calls of
//! `echoed` name `/root/Main` by its path inline until the client confirms the path cache id,
//! then by the id, and where the switch falls depends on when the confirmation arrives. Calls are
//! compared by method id and argument bytes, with the node named "inline path" or "id".

use crate::common;
use crate::server_live::{run_clients, start_example};

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use gdvariant_multiplayer::{self as multiplayer, NodeTarget, Packet};

/// A Godot 4 server on `transport`; returns the process and its port.
pub(crate) fn start_godot_server(
    transport: &str,
    seconds: u32,
) -> (std::process::Child, u16, PathBuf) {
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
    let dir = std::env::temp_dir().join(format!(
        "gdvariant-mpserver-godot-{transport}-{}-{port}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        common::godot_dir().join("mpserver_server4.gd"),
        dir.join("mpserver_server4.gd"),
    )
    .unwrap();
    std::fs::write(
        dir.join("mpserver_server.cfg"),
        format!("transport={transport}\nport={port}\nseconds={seconds}\n"),
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
        assert!(!l.starts_with("SERVER-FAILED"), "{l}");
        if l.starts_with("SERVER-READY") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    (child, port, dir)
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
    let cfg = format!("transport={transport}\nport={port}\npeers=1\nrecord=1\n");
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
        let (mut godot, port, _dir) = start_godot_server(transport, 30);
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
