//! `gdvariant capture` run as a process over the committed captures of real Godot 4.6 and 3.2.3
//! sessions (tests/data/captures, recorded by tests/godot/capture_ws.sh and capture_enet.sh):
//! every transport shows, in order, the engine text of every value the scripts sent
//! (tests/godot/capture_ws4.gd, capture_ws3.gd, capture_enet4.gd, capture_enet3.gd); JSON lines,
//! filters, statistics, standard input, a cut capture, and the other commands' hints. The value
//! captures are checked in `capture_values`, the replication capture in `capture_replication`,
//! the live recordings in `capture_live`.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_gdvariant");

pub(crate) fn capture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/captures")
        .join(name)
        .display()
        .to_string()
}

pub(crate) fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run gdvariant")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Checks that `needles` appear in `out` in this order, each on a later line than the one
/// before (or later on the same line); returns the lines that held them.
pub fn in_order(out: &str, needles: &[&str]) -> Vec<String> {
    let mut at = 0;
    let mut lines = Vec::new();
    for n in needles {
        let Some(i) = out[at..].find(n) else {
            let from = &out[at..];
            panic!(
                "{n:?} not found (in order) after byte {at}; the rest:\n{}",
                &from[..from.len().min(4000)]
            );
        };
        let start = out[..at + i].rfind('\n').map_or(0, |p| p + 1);
        let end = out[at + i..].find('\n').map_or(out.len(), |p| at + i + p);
        lines.push(out[start..end].to_string());
        at += i + n.len();
    }
    lines
}

/// The 11 values after the name that capture_ws4.gd's `hello` sends, in engine text (one line).
const VALUES4: &str = "arg 1: 42 | arg 2: -7000000000 | arg 3: 3.25 | arg 4: \"héllo ☃\" | \
    arg 5: Vector2(1.5, -2) | arg 6: Vector3i(1, 2, 3) | arg 7: [1, \"x\", null] | \
    arg 8: { \"k\": 1, \"list\": [true] } | arg 9: PackedInt32Array(1, -2, 300000) | \
    arg 10: true | arg 11: null";

/// The same in Godot 3.2.3 (capture_ws3.gd: Vector3, PoolIntArray, var2str's spacing).
const VALUES3: &str = "arg 1: 42 | arg 2: -7000000000 | arg 3: 3.25 | arg 4: \"héllo ☃\" | \
    arg 5: Vector2( 1.5, -2 ) | arg 6: Vector3( 1, 2, 3 ) | arg 7: [ 1, \"x\", null ] | \
    arg 8: { \"k\": 1, \"list\": [ true ] } | arg 9: PoolIntArray( 1, -2, 300000 ) | \
    arg 10: true | arg 11: null";

/// The 70 000 bytes of `big`: byte i = 7i mod 251.
fn big_bytes(godot3: bool) -> String {
    let items: Vec<String> = (0..70000u32).map(|i| ((i * 7) % 251).to_string()).collect();
    if godot3 {
        format!("PoolByteArray( {} )", items.join(", "))
    } else {
        format!("PackedByteArray({})", items.join(", "))
    }
}

#[test]
fn godot4_websocket_session_in_order() {
    check_godot4_websocket_session_in_order(&capture("godot4_ws.pcap"));
}

pub(crate) fn check_godot4_websocket_session_in_order(file: &str) {
    let out = shown(file);
    let hello = |who: &str| {
        format!(
            "REMOTE_CALL path \"Game\" method 2 (node id 32 bits) | arg 0: \"{who}\" | {VALUES4}\n"
        )
    };
    let big = format!(
        "arg 0: {})\n",
        &big_bytes(false)[..big_bytes(false).len() - 1]
    );
    let a = flow_of(&out, "arg 0: \"A\" |");
    let b = flow_of(&out, "arg 0: \"B\" |");
    assert_ne!(a, b);
    // Each direction of each connection in its own order (across directions and connections
    // the order is the engines' timing).
    let id_a = peer_id(
        &in_order(
            &side(&out, a, false),
            &["WebSocket upgrade response 101", "PEER_ID "],
        )[1],
    );
    let id_b = peer_id(
        &in_order(
            &side(&out, b, false),
            &["WebSocket upgrade response 101", "PEER_ID "],
        )[1],
    );
    let a_up = side(&out, a, true);
    let lines = in_order(
        &a_up,
        &[
            "WebSocket upgrade request",
            "SIMPLIFY_PATH id 1 path \"Game\"",
            &hello("A"),
            &big,
            &format!("RELAY peer {id_b} | SIMPLIFY_PATH id 1 path \"Game\""),
            &format!("RELAY peer {id_b} | REMOTE_CALL path \"Game\" method 3 (node id 32 bits) | arg 0: \"from A\"\n"),
            "REMOTE_CALL node 1 path \"Game\" method 1 (byte-only)\n",
        ],
    );
    assert!(
        lines[2].contains(&format!("({id_a} → 1) websocket")),
        "{}",
        lines[2]
    );
    in_order(
        &side(&out, a, false),
        &[
            "CONFIRM_PATH id 1 valid true",
            &format!("REMOTE_CALL path \"Game\" method 4 (node id 32 bits) | arg 0: {id_a} | arg 1: \"welcome A\" | arg 2: Vector2i({}, 7)\n", id_a % 1000),
            "CLOSE 1000",
        ],
    );
    assert!(side(&out, a, false).contains(&format!("ADD_PEER peer {id_b}\n")));
    in_order(
        &side(&out, b, true),
        &[
            "WebSocket upgrade request",
            &hello("B"),
            "REMOTE_CALL node 1 path \"Game\" method 1 (byte-only)\n",
        ],
    );
    in_order(
        &side(&out, b, false),
        &[
            &format!("ADD_PEER peer {id_a}"),
            &format!("RELAY peer {id_a} | REMOTE_CALL path \"Game\" method 3 (node id 32 bits) | arg 0: \"from A\"\n"),
            &format!("arg 0: {id_b} | arg 1: \"welcome B\" | arg 2: Vector2i({}, 7)\n", id_b % 1000),
            "CLOSE 1000",
        ],
    );
    // Every call of both clients and the server, every message on one line, no error.
    assert_eq!(out.matches("REMOTE_CALL").count(), 9, "{out:.3000}");
    assert!(!out.contains("error"));
}

pub(crate) fn check_godot3_websocket_session_in_order(file: &str) {
    let out = shown(file);
    let a = flow_of(&out, "arg 0: \"A\" |");
    let b = flow_of(&out, "arg 0: \"B\" |");
    let id_a = peer_id(
        &in_order(
            &side(&out, a, false),
            &["WebSocket upgrade response 101", "SYS_ID "],
        )[1],
    );
    let id_b = peer_id(
        &in_order(
            &side(&out, b, false),
            &["WebSocket upgrade response 101", "SYS_ID "],
        )[1],
    );
    let big = format!("method \"big\" | arg 0: {}\n", big_bytes(true));
    in_order(
        &side(&out, a, true),
        &[
            "WebSocket upgrade request",
            &format!("({id_a} → 1) websocket SIMPLIFY_PATH id 1 path \"Game\""),
            &format!("REMOTE_CALL path \"Game\" method \"hello\" | arg 0: \"A\" | {VALUES3}\n"),
            &big,
            &format!("({id_a} → {id_b}) websocket REMOTE_CALL path \"Game\" method \"note\" | arg 0: \"from A\"\n"),
            "method \"bye\"",
        ],
    );
    in_order(
        &side(&out, a, false),
        &[
            "SYS_ADD 1\n",
            &format!("method \"welcome\" | arg 0: {id_a} | arg 1: \"welcome A\" | arg 2: Vector2( {}, 7 )\n", id_a % 1000),
            "CLOSE 1000",
        ],
    );
    assert!(side(&out, a, false).contains(&format!("SYS_ADD {id_b}\n")));
    in_order(
        &side(&out, b, true),
        &[
            &format!("REMOTE_CALL path \"Game\" method \"hello\" | arg 0: \"B\" | {VALUES3}\n"),
            "method \"bye\"",
        ],
    );
    in_order(
        &side(&out, b, false),
        &[
            &format!("SYS_ADD {id_a}\n"),
            &format!("({id_a} → {id_b}) websocket REMOTE_CALL path \"Game\" method \"note\" | arg 0: \"from A\"\n"),
            &format!("arg 0: {id_b} | arg 1: \"welcome B\" | arg 2: Vector2( {}, 7 )\n", id_b % 1000),
        ],
    );
    assert!(!out.contains("error"));
}

pub(crate) fn check_godot4_put_var_stream_both_directions(file: &str) {
    let out = shown(file);
    let values = [
        "42",
        "\"hello put_var\"",
        "Vector3(1, 2, 3)",
        "{ \"a\": [1, 2], \"b\": null }",
        "PackedFloat32Array(0.5, -1)",
        "&\"name\"",
        "Color(1, 0.5, 0.25, 1)",
    ];
    let sent: Vec<String> = values.iter().map(|v| format!("put_var {v}\n")).collect();
    let echoed: Vec<String> = values
        .iter()
        .map(|v| format!("put_var [\"echo\", {v}]\n"))
        .collect();
    in_order(
        &side(&out, 1, true),
        &sent.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    in_order(
        &side(&out, 1, false),
        &echoed.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    // JSON lines: typed JSON values, one object per line.
    let o = run(&["capture", "--format", "json", "--command", "value", file]);
    let json = stdout(&o);
    assert_eq!(json.lines().count(), 14, "{json}");
    assert!(json
        .lines()
        .all(|l| l.starts_with("{\"time\":") && l.ends_with('}')));
    assert!(json
        .lines()
        .next()
        .unwrap()
        .contains("\"transport\":\"put_var\",\"dialect\":4,\"value\":42}"));
}

pub(crate) fn check_godot4_enet_session_in_order(file: &str) {
    let out = shown(file);
    let bytes = |n: u32, f: fn(u32) -> u32| {
        let items: Vec<String> = (0..n).map(|i| f(i).to_string()).collect();
        format!("PackedByteArray({})\n", items.join(", "))
    };
    let a = flow_of(&out, "arg 0: 42 |");
    let b = flow_of(&out, "arg 0: \"seq\"");
    let c = flow_of(&out, "compressed ☃");
    let a_up = side(&out, a, true);
    let id_a = in_order(&a_up, &["CONNECT peer "])[0]
        .split("CONNECT peer ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    in_order(
        &a_up,
        &[
            &format!("({id_a} → 1) enet ch 0 RELIABLE REMOTE_CALL path \"Game\" method 2 (node id 32 bits) | arg 0: 42 | arg 1: \"héllo ☃\" | arg 2: Vector2(1.5, -2.25) | arg 3: [1, \"two\", 3.0] | arg 4: {{ \"k\": true }}\n"),
            "ch 1 UNRELIABLE REMOTE_CALL node 1 path \"Game\" method 4 | arg 0: 7 | arg 1: 2.5\n",
            "DISCONNECT",
        ],
    );
    in_order(
        &side(&out, a, false),
        &[
            "VERIFY_CONNECT channels 255 mtu 1392",
            "ch 0 RELIABLE ADD_PEER peer ",
            &format!("ch 0 RELIABLE REMOTE_CALL path \"Game\" method 0 (node id 32 bits, byte-only) | arg 0: {}", bytes(5000, |i| (7 * i + 3) & 255)),
            "DEL_PEER peer ",
        ],
    );
    in_order(
        &side(&out, b, true),
        &[
            "CONNECT peer ",
            &format!("ch 1 UNRELIABLE_ORDERED REMOTE_CALL path \"Game\" method 5 (node id 32 bits, byte-only) | arg 0: {}", bytes(3000, |i| (13 * i + 1) & 255)),
            "ch 3 UNRELIABLE_ORDERED transfer 2 REMOTE_CALL node 1 path \"Game\" method 3 | arg 0: \"seq\"\n",
            "DISCONNECT",
        ],
    );
    in_order(
        &side(&out, b, false),
        &["ch 4 RELIABLE transfer 3 REMOTE_CALL path \"Game\" method 1 (node id 32 bits) | arg 0: -1234567890123\n"],
    );
    in_order(
        &side(&out, c, true),
        &[
            "CONNECT peer ",
            "| arg 0: 7 | arg 1: \"compressed ☃ compressed ☃\" | arg 2: Vector2(0.5, 4) | arg 3: [true, null] | arg 4: { \"n\": -1 }\n",
            "DISCONNECT",
        ],
    );
    in_order(
        &side(&out, c, false),
        &[&format!("| arg 0: {}", bytes(2000, |i| i & 255))],
    );
    assert!(!out.contains("error"));
}

pub(crate) fn check_godot3_enet_session_in_order(file: &str) {
    check_godot3_enet_session(file, false);
}

/// The Godot 3 ENet session as Godot 3.2.3 (`v36` false) or Godot 3.6 records it. What differs,
/// by the engines' own traffic: the server's MTU (1400 in 3.2.3, ENet's later default 1392 in
/// 3.6), and the 3000-byte unreliable call, reliable `SEND_FRAGMENT`s in 3.2.3 (no
/// `UNRELIABLE_FRAGMENT` flag there) and sequenced `SEND_UNRELIABLE_FRAGMENT`s in 3.6.
pub(crate) fn check_godot3_enet_session(file: &str, v36: bool) {
    let out = shown(file);
    let verify = format!(
        "VERIFY_CONNECT channels 3 mtu {}",
        if v36 { 1392 } else { 1400 }
    );
    let unrel_big_mode = if v36 {
        "UNRELIABLE_ORDERED"
    } else {
        "RELIABLE"
    };
    let bytes = |n: u32, f: fn(u32) -> u32| {
        let items: Vec<String> = (0..n).map(|i| f(i).to_string()).collect();
        format!("PoolByteArray( {} )\n", items.join(", "))
    };
    let a = flow_of(&out, "arg 0: 42 |");
    let b = flow_of(&out, "method \"unrel_big\"");
    let c = flow_of(&out, "compressed ☃");
    in_order(
        &side(&out, a, true),
        &[
            "CONNECT peer ",
            "ch 1 RELIABLE REMOTE_CALL path \"Game\" method \"hello\" | arg 0: 42 | arg 1: \"héllo ☃\" | arg 2: Vector2( 1.5, -2.25 ) | arg 3: [ 1, \"two\", 3.0 ] | arg 4: { \"k\": true }\n",
            "ch 2 UNRELIABLE REMOTE_CALL node 1 path \"Game\" method \"unrel\" | arg 0: 7 | arg 1: 2.5\n",
            "DISCONNECT",
        ],
    );
    in_order(
        &side(&out, a, false),
        &[
            &verify,
            "ch 0 RELIABLE ADD_PEER ",
            &format!(
                "method \"big\" | arg 0: {}",
                bytes(5000, |i| (7 * i + 3) & 255)
            ),
            "ch 0 RELIABLE REMOVE_PEER ",
        ],
    );
    in_order(
        &side(&out, b, true),
        &[&format!(
            "ch 2 {unrel_big_mode} REMOTE_CALL path \"Game\" method \"unrel_big\" | arg 0: {}",
            bytes(3000, |i| (13 * i + 1) & 255)
        )],
    );
    in_order(
        &side(&out, c, true),
        &["method \"hello\" | arg 0: 7 | arg 1: \"compressed ☃ compressed ☃\" | arg 2: Vector2( 0.5, 4 ) | arg 3: [ true, null ] | arg 4: { \"n\": -1 }\n"],
    );
    in_order(
        &side(&out, c, false),
        &[&format!(
            "method \"big\" | arg 0: {}",
            bytes(2000, |i| i & 255)
        )],
    );
    assert!(!out.contains("error"));
}

/// The text output of `capture FILE`, which must succeed.
pub(crate) fn shown(file: &str) -> String {
    let o = run(&["capture", file]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

/// The fields of a line: time, `#N`, source, `→`, destination.
fn line_flow(line: &str) -> Option<(u64, &str)> {
    let mut w = line.split(' ');
    let _time = w.next()?;
    let flow = w.next()?.strip_prefix('#')?.parse().ok()?;
    Some((flow, w.next()?))
}

/// The flow of the first line holding `needle`.
pub(crate) fn flow_of(out: &str, needle: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not shown"));
    line_flow(line).unwrap().0
}

/// The lines of flow `flow` sent by its client (the sender of its first line) or by its server,
/// each ending with a newline.
pub(crate) fn side(out: &str, flow: u64, client: bool) -> String {
    let mut lines = out
        .lines()
        .filter_map(|l| line_flow(l).filter(|f| f.0 == flow).map(|f| (f.1, l)));
    let Some((first, l0)) = lines.next() else {
        panic!("no flow #{flow}")
    };
    let first = first.to_string();
    let mut s = String::new();
    for (src, l) in std::iter::once((first.as_str(), l0)).chain(lines) {
        if (src == first) == client {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
}

/// The id at the end of a `PEER_ID n` or `SYS_ID n` line.
fn peer_id(line: &str) -> i32 {
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn godot4_method_names_from_a_schema() {
    let dir = common::scratch_dir("capture-schema");
    let schema = dir.join("schema.txt");
    std::fs::write(&schema, "rpc Game big bye hello note welcome\n").unwrap();
    let o = run(&[
        "capture",
        "decode",
        "--schema",
        schema.to_str().unwrap(),
        "--command",
        "rpc",
        &capture("godot4_ws.pcap"),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    let out = stdout(&o);
    in_order(
        &out,
        &[
            "method 2 name \"hello\"",
            "method 0 name \"big\"",
            "method 4 name \"welcome\"",
            "method 1 name \"bye\"",
        ],
    );
    assert!(
        out.lines().all(|l| l.contains("REMOTE_CALL")),
        "{out:.2000}"
    );
}

#[test]
fn godot3_websocket_session_in_order() {
    check_godot3_websocket_session_in_order(&capture("godot3_ws.pcap"));
}

#[test]
fn godot4_put_var_stream_both_directions() {
    check_godot4_put_var_stream_both_directions(&capture("godot4_putvar.pcap"));
}

#[test]
fn godot4_enet_session_in_order() {
    check_godot4_enet_session_in_order(&capture("godot4_enet.pcap"));
}

#[test]
fn godot3_enet_session_in_order() {
    check_godot3_enet_session_in_order(&capture("godot3_enet.pcap"));
}

#[test]
fn filters_stats_and_standard_input() {
    let f = capture("godot4_ws.pcap");
    // --flow: one connection; --peer: what one id sent or got.
    let one = stdout(&run(&["capture", "--flow", "2", &f]));
    assert!(!one.is_empty() && one.lines().all(|l| l.contains(" #2 ")));
    let all = stdout(&run(&["capture", &f]));
    let id_line = all
        .lines()
        .find(|l| l.contains(" #2 ") && l.contains("PEER_ID"))
        .unwrap();
    let id = id_line.rsplit(' ').next().unwrap();
    let peer = stdout(&run(&["capture", "--peer", id, &f]));
    assert!(peer
        .lines()
        .all(|l| l.contains(&format!("{id} →")) || l.contains(&format!("→ {id})"))));
    assert!(peer.lines().count() >= 10);
    // --command sys: the SceneMultiplayer SYS packets only.
    let sys = stdout(&run(&["capture", "--command", "sys", &f]));
    assert!(sys
        .lines()
        .all(|l| l.contains("ADD_PEER") || l.contains("DEL_PEER") || l.contains("RELAY")));
    assert_eq!(sys.lines().count(), 8, "{sys}");
    // --stats: messages and bytes per flow and command.
    let stats = stdout(&run(&["capture", "--stats", &f]));
    in_order(
        &stats,
        &[
            "flow #1 ",
            "websocket",
            "REMOTE_CALL             4 messages",
            "flow #2 ",
            "all flows:",
            "REMOTE_CALL             7 messages",
            "errors: 0",
        ],
    );
    // Standard input reads the same.
    let mut child = Command::new(BIN)
        .args(["capture", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&f).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(stdout(&o), all);
}

#[test]
fn a_cut_capture_shows_what_it_has_and_the_error() {
    let bytes = std::fs::read(capture("godot4_putvar.pcap")).unwrap();
    let dir = common::scratch_dir("capture-cut");
    let path = dir.join("cut.pcap");
    // 3400: inside the record that starts at 3344.
    std::fs::write(&path, &bytes[..3400]).unwrap();
    let o = run(&["capture", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    in_order(
        &out,
        &[
            "put_var 42\n",
            "put_var \"hello put_var\"",
            "error: the capture ends inside a record (the file was cut) at file offset ",
        ],
    );
}

#[test]
fn other_commands_point_to_capture() {
    let f = capture("godot3_enet.pcap");
    for args in [
        vec!["decode", f.as_str()],
        vec!["validate", f.as_str()],
        vec!["stats", f.as_str()],
        vec!["multiplayer", "decode", f.as_str()],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("gdvariant capture"), "{args:?}: {err}");
    }
    // A file that is not a capture, and a bad --decode-as.
    let dir = common::scratch_dir("capture-text");
    let text = dir.join("text.txt");
    std::fs::write(&text, "not a capture\n").unwrap();
    let o = run(&["capture", text.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a pcap or pcapng file"));
    let o = run(&["capture", "--decode-as", "80=http", &f]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn decode_as_overrides_content_detection() {
    // The put_var capture read as UDP values: no TCP flow is a UDP flow, so nothing is forced
    // and detection still applies; read as WebSocket it fails at its first bytes.
    let f = capture("godot4_putvar.pcap");
    let all = stdout(&run(&["capture", &f]));
    let port = all
        .lines()
        .next()
        .unwrap()
        .split(" → ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let port = port.rsplit(':').next().unwrap();
    let o = run(&["capture", "--decode-as", &format!("{port}=websocket"), &f]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.lines().next().unwrap().contains("websocket new flow"),
        "{out}"
    );
    assert!(out.contains("error: "), "{out}");
    assert!(!out.contains("put_var 42"));
}

/// The game-like capture (cli/benches/capture_game4.gd): 6000 unreliable `state` calls in tick
/// order, every 10th tick an `input`, snapshots back on transfer channel 1, no error.
#[test]
fn godot4_game_traffic_every_call_in_order() {
    let out = shown(&capture("godot4_game.pcap"));
    let up = side(&out, 1, true);
    let states: Vec<&str> = up
        .lines()
        .filter(|l| l.contains("ch 1 UNRELIABLE REMOTE_CALL"))
        .collect();
    // 6000 sent; ENet's packet throttle dropped one at the sender in the recording (tick 4520).
    assert!((5990..=6000).contains(&states.len()), "{}", states.len());
    let ticks: Vec<u32> = states
        .iter()
        .map(|l| {
            l.split("| arg 0: ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(ticks.windows(2).all(|w| w[0] < w[1]), "ticks in order");
    assert_eq!((ticks[0], ticks[ticks.len() - 1]), (0, 5999));
    assert_eq!(up.matches("| arg 1: \"jump\"\n").count(), 600);
    let down = side(&out, 1, false);
    let snaps = down
        .matches("ch 2 UNRELIABLE_ORDERED transfer 1 REMOTE_CALL")
        .count();
    // 1200 sent by the script; ENet's packet throttle drops a few unreliable packets at the
    // sender (the recording has 1195: ticks 200, 360, 520, 680 and 4520 never went out).
    assert!((1190..=1200).contains(&snaps), "{snaps}");
    assert!(down.contains("| arg 0: 5995 | arg 1: [Vector3(599.5, 1.5, -299.75), Vector3(0.5, 0, -0.25)] | arg 2: { \"hp\": 5 }\n"));
    assert!(!out.contains("error"));
}

/// Lines are formatted by several threads and written in capture order: `--threads 1` (the
/// reading thread formats them too), the default (one thread per core) and other counts give
/// the same bytes and status, in every form, on every committed capture and on all of them at
/// once (lines with their file's name, across many batches).
#[test]
fn every_thread_count_gives_the_same_output() {
    let mut names: Vec<String> = std::fs::read_dir(capture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".pcap"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    let mut inputs: Vec<Vec<String>> = names.iter().map(|n| vec![capture(n)]).collect();
    inputs.push(names.iter().map(|n| capture(n)).collect());
    let forms: [&[&str]; 5] = [
        &[],
        &["--format", "json"],
        &["--stats"],
        &["--stats", "--format", "json"],
        &["--command", "rpc", "--peer", "1"],
    ];
    for files in &inputs {
        for form in forms {
            let args = |threads: Option<&str>| {
                let mut v = vec!["capture".to_string()];
                if let Some(t) = threads {
                    v.extend(["--threads".to_string(), t.to_string()]);
                }
                v.extend(form.iter().map(|s| s.to_string()));
                v.extend(files.iter().cloned());
                v
            };
            let one = Command::new(BIN).args(args(Some("1"))).output().unwrap();
            if !form.contains(&"--command") {
                assert!(!one.stdout.is_empty(), "{:?}", args(Some("1")));
            }
            for threads in [None, Some("2"), Some("3"), Some("8")] {
                let o = Command::new(BIN).args(args(threads)).output().unwrap();
                assert!(
                    o.stdout == one.stdout && o.status.code() == one.status.code(),
                    "{:?} differs from --threads 1",
                    args(threads)
                );
            }
        }
    }
}

/// A pcapng file (Wireshark's default format) is refused by the commands that read values, as a
/// pcap is: its first 16 bytes would otherwise read as a Godot 4 `Vector3i` followed by
/// "trailing bytes" (the section header block's type, length and byte-order magic), and
/// `decode` printed `Vector3i(28, 439041101, 1)` with exit status 0.
#[test]
fn other_commands_refuse_a_pcapng_file_in_either_byte_order() {
    let dir = crate::common::scratch_dir("capture-pcapng-refused");
    for little in [true, false] {
        let w32 = |b: &mut Vec<u8>, v: u32| {
            b.extend(if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            })
        };
        let w16 = |b: &mut Vec<u8>, v: u16| {
            b.extend(if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            })
        };
        let mut b = Vec::new();
        // Section header block: type, length, byte-order magic, version 1.0, section length -1.
        w32(&mut b, 0x0A0D_0D0A);
        w32(&mut b, 28);
        w32(&mut b, 0x1A2B_3C4D);
        w16(&mut b, 1);
        w16(&mut b, 0);
        b.extend([0xff; 8]);
        w32(&mut b, 28);
        // Interface description block: Ethernet, snap length 262 144.
        w32(&mut b, 1);
        w32(&mut b, 20);
        w16(&mut b, 1);
        w16(&mut b, 0);
        w32(&mut b, 262_144);
        w32(&mut b, 20);
        let file = dir.join(if little { "le.pcapng" } else { "be.pcapng" });
        std::fs::write(&file, &b).unwrap();
        let f = file.to_str().unwrap();
        for args in [
            vec!["decode", f],
            vec!["decode", "--format", "json", f],
            vec!["validate", f],
            vec!["stats", f],
            vec!["get", "0", f],
            vec!["multiplayer", "decode", f],
        ] {
            let o = run(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let (out, err) = (stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned());
            assert!(
                format!("{out}{err}").contains("packet capture (pcap or pcapng)"),
                "{args:?}: {out}{err}"
            );
            assert!(
                err.contains(&format!("gdvariant capture {f}")),
                "{args:?}: {err}"
            );
            assert!(!out.contains("Vector3i"), "{args:?}: {out}");
        }
        // And `capture` reads it: a section with one interface and no packets.
        let o = run(&["capture", f]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bytes the capture does not have are an error for the exit status, as the other problems in a
/// capture are: the WebSocket session cut to a snap length of 120 bytes (its handshake and every
/// message after it lost, each direction one `GAP`) exits 1 and counts them, where it exited 0
/// with "errors: 0".
#[test]
fn gaps_count_as_errors() {
    let f = capture("godot4_ws.pcap");
    let all = std::fs::read(&f).unwrap();
    // The same capture with every record cut to 120 bytes (snap length 120 in the header).
    let mut cut = all[..24].to_vec();
    cut[16..20].copy_from_slice(&120u32.to_le_bytes());
    let mut at = 24;
    while at + 16 <= all.len() {
        let caplen = u32::from_le_bytes(all[at + 8..at + 12].try_into().unwrap()) as usize;
        let keep = caplen.min(120);
        cut.extend_from_slice(&all[at..at + 8]);
        cut.extend_from_slice(&(keep as u32).to_le_bytes());
        cut.extend_from_slice(&all[at + 12..at + 16]);
        cut.extend_from_slice(&all[at + 16..at + 16 + keep]);
        at += 16 + caplen;
    }
    let dir = crate::common::scratch_dir("capture-gaps");
    let file = dir.join("ws120.pcap");
    std::fs::write(&file, &cut).unwrap();
    let f = file.to_str().unwrap();
    let o = run(&["capture", f]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.lines().filter(|l| l.contains(" GAP ")).count() >= 2,
        "{out}"
    );
    let stats = stdout(&run(&["capture", "--stats", f]));
    let errors: u64 = stats
        .lines()
        .find_map(|l| l.strip_prefix("errors: "))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        errors,
        out.lines().filter(|l| l.contains(" GAP ")).count() as u64,
        "{stats}"
    );
    // The whole capture has none.
    assert_eq!(
        run(&["capture", &capture("godot4_ws.pcap")]).status.code(),
        Some(0)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In JSON, a problem of the file itself (here a capture cut inside a record) belongs to no
/// flow: `flow`, `src` and `dst` are null, not flow 0 between `0.0.0.0:0` addresses.
#[test]
fn json_file_errors_belong_to_no_flow() {
    let all = std::fs::read(capture("godot4_putvar.pcap")).unwrap();
    let dir = crate::common::scratch_dir("capture-json-cut");
    let file = dir.join("cut.pcap");
    std::fs::write(&file, &all[..3000]).unwrap();
    let o = run(&["capture", "--format", "json", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    assert!(
        last.contains(r#""record":32,"flow":null,"src":null,"dst":null,"error":"the capture ends inside a record"#),
        "{last}"
    );
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains(r#""flow":1,"src":"127.0.0.1:"#),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
