//! `gdvariant capture` over the value captures (godot4_values.pcap, godot3_values.pcap): the
//! scripts that record them, and every value sent and its echo, in order, over UDP and TCP.

use crate::capture::{capture, flow_of, in_order, run, shown, side, stdout};

/// The Godot 4 script of the value captures (godot4_values.pcap), which the live test runs:
/// `PacketPeerUDP.put_var` of six values to a bound `PacketPeerUDP` answering each with
/// `put_var(["echo", value])`, then the same over `StreamPeerTCP.put_var` to a `TCPServer`, in one
/// process on 127.0.0.1:PORT (UDP) and PORT + 1 (TCP).
pub(crate) const VALUES4_GD: &str = r#"extends SceneTree
# Godot 4: PacketPeerUDP.put_var of a few values to a bound PacketPeerUDP answering each with
# put_var(["echo", value]), and the same over StreamPeerTCP.put_var to a TCPServer, in one
# process on 127.0.0.1:PORT (UDP) and PORT + 1 (TCP); PORT in res://port.txt.
var port := 0
var udp_server := PacketPeerUDP.new()
var udp_client := PacketPeerUDP.new()
var tcp_server := TCPServer.new()
var tcp_client := StreamPeerTCP.new()
var conn: StreamPeerTCP
var values := [7, "udp ☃", Vector2(1.5, -2), [1, "x", null], {"k": true}, PackedInt32Array([1, -2])]
var sent_udp := false
var sent_tcp := false
var got := 0
var deadline := 0
var quit_at := 0

func _initialize() -> void:
	port = int(FileAccess.get_file_as_string("res://port.txt").strip_edges())
	udp_server.bind(port, "127.0.0.1")
	udp_client.set_dest_address("127.0.0.1", port)
	tcp_server.listen(port + 1, "127.0.0.1")
	tcp_client.connect_to_host("127.0.0.1", port + 1)
	deadline = Time.get_ticks_msec() + 10000

func _process(_delta: float) -> bool:
	if Time.get_ticks_msec() > deadline:
		print("FAIL timeout, got ", got)
		return true
	if quit_at != 0:
		if Time.get_ticks_msec() > quit_at:
			print("DONE")
			return true
		return false
	if not sent_udp:
		for v in values:
			udp_client.put_var(v)
		sent_udp = true
	while udp_server.get_available_packet_count() > 0:
		var v = udp_server.get_var()
		udp_server.set_dest_address(udp_server.get_packet_ip(), udp_server.get_packet_port())
		udp_server.put_var(["echo", v])
		got += 1
	while udp_client.get_available_packet_count() > 0:
		udp_client.get_var()
		got += 1
	tcp_client.poll()
	if conn == null and tcp_server.is_connection_available():
		conn = tcp_server.take_connection()
	if not sent_tcp and tcp_client.get_status() == StreamPeerTCP.STATUS_CONNECTED:
		for v in values:
			tcp_client.put_var(v)
		sent_tcp = true
	if conn != null:
		conn.poll()
		while conn.get_available_bytes() > 0:
			conn.put_var(["echo", conn.get_var()])
			got += 1
	while tcp_client.get_available_bytes() > 0:
		tcp_client.get_var()
		got += 1
	if got == 4 * values.size():
		tcp_client.disconnect_from_host()
		quit_at = Time.get_ticks_msec() + 300
	return false
"#;

/// The same in Godot 3.2.3 (godot3_values.pcap).
pub(crate) const VALUES3_GD: &str = r#"extends SceneTree
# Godot 3: the same as VALUES4_GD (PacketPeerUDP and StreamPeerTCP put_var, echoed).
var port = 0
var udp_server = PacketPeerUDP.new()
var udp_client = PacketPeerUDP.new()
var tcp_server = TCP_Server.new()
var tcp_client = StreamPeerTCP.new()
var conn = null
var values = [7, "udp ☃", Vector2(1.5, -2), [1, "x", null], {"k": true}, PoolIntArray([1, -2])]
var sent_udp = false
var sent_tcp = false
var got = 0
var deadline = 0
var quit_at = 0

func _initialize():
	var f = File.new()
	f.open("res://port.txt", File.READ)
	port = int(f.get_as_text().strip_edges())
	f.close()
	udp_server.listen(port, "127.0.0.1")
	udp_client.set_dest_address("127.0.0.1", port)
	tcp_server.listen(port + 1, "127.0.0.1")
	tcp_client.connect_to_host("127.0.0.1", port + 1)
	deadline = OS.get_ticks_msec() + 10000

func _idle(_delta):
	if OS.get_ticks_msec() > deadline:
		print("FAIL timeout, got ", got)
		quit()
		return false
	if quit_at != 0:
		if OS.get_ticks_msec() > quit_at:
			print("DONE")
			quit()
		return false
	if not sent_udp:
		for v in values:
			udp_client.put_var(v)
		sent_udp = true
	while udp_server.get_available_packet_count() > 0:
		var v = udp_server.get_var()
		udp_server.set_dest_address(udp_server.get_packet_ip(), udp_server.get_packet_port())
		udp_server.put_var(["echo", v])
		got += 1
	while udp_client.get_available_packet_count() > 0:
		udp_client.get_var()
		got += 1
	if conn == null and tcp_server.is_connection_available():
		conn = tcp_server.take_connection()
	if not sent_tcp and tcp_client.get_status() == StreamPeerTCP.STATUS_CONNECTED:
		for v in values:
			tcp_client.put_var(v)
		sent_tcp = true
	if conn != null:
		while conn.get_available_bytes() > 0:
			conn.put_var(["echo", conn.get_var()])
			got += 1
	while tcp_client.get_available_bytes() > 0:
		tcp_client.get_var()
		got += 1
	if got == 4 * values.size():
		tcp_client.disconnect_from_host()
		quit_at = OS.get_ticks_msec() + 300
	return false
"#;

/// The values the value scripts send, in each engine's text.
const SENT4: [&str; 6] = [
    "7",
    "\"udp ☃\"",
    "Vector2(1.5, -2)",
    "[1, \"x\", null]",
    "{ \"k\": true }",
    "PackedInt32Array(1, -2)",
];
const SENT3: [&str; 6] = [
    "7",
    "\"udp ☃\"",
    "Vector2( 1.5, -2 )",
    "[ 1, \"x\", null ]",
    "{ \"k\": true }",
    "PoolIntArray( 1, -2 )",
];

/// A value capture: both flows (UDP and TCP), each value sent and its echo, in order.
pub(crate) fn check_values(file: &str, godot3: bool) {
    let (sent, dialect) = if godot3 { (SENT3, "3") } else { (SENT4, "4") };
    let o = run(&["capture", "--dialect", dialect, file]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = stdout(&o);
    for transport in ["udp", "put_var"] {
        let flow = flow_of(&out, &format!(" {transport} new flow"));
        let (open, comma) = if godot3 { ("[ ", " ]") } else { ("[", "]") };
        let up: Vec<String> = sent.iter().map(|v| format!(" {transport} {v}\n")).collect();
        let down: Vec<String> = sent
            .iter()
            .map(|v| format!(" {transport} {open}\"echo\", {v}{comma}\n"))
            .collect();
        in_order(
            &side(&out, flow, true),
            &up.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        in_order(
            &side(&out, flow, false),
            &down.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
    // Without --dialect, the values of Godot 3 that read the same in both dialects come first
    // and are shown as Godot 4's text until one tells the flow's dialect; the rest as Godot 3's.
    if godot3 {
        let auto = shown(file);
        assert!(
            auto.contains(" udp [ \"echo\", PoolIntArray( 1, -2 ) ]\n"),
            "{auto}"
        );
    }
}

#[test]
fn godot4_values_udp_and_tcp() {
    check_values(&capture("godot4_values.pcap"), false);
}

#[test]
fn godot3_values_udp_and_tcp() {
    check_values(&capture("godot3_values.pcap"), true);
}
