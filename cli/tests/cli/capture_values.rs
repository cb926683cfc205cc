//! `gdvariant capture` over the value captures (godot4_values.pcap, godot3_values.pcap): the
//! scripts that record them, and every value sent and its echo, in order, over PacketPeerUDP,
//! StreamPeerTCP, WebSocketPeer and PacketPeerStream.

use crate::capture::{capture, flow_of, in_order, run, shown, side, stdout};

/// The Godot 4 script of the value captures (godot4_values.pcap), which the live test runs:
/// `PacketPeerUDP.put_var` of six values to a bound `PacketPeerUDP` answering each with
/// `put_var(["echo", value])`, then the same over `StreamPeerTCP.put_var` to a `TCPServer`, over
/// `WebSocketPeer.put_var` to a `WebSocketPeer` that accepted a `TCPServer`'s connection, and
/// over a `PacketPeerStream` on a `StreamPeerTCP` to one on the accepted connection, in one
/// process on 127.0.0.1:PORT (UDP), PORT + 1 (TCP), PORT + 2 (WebSocket), PORT + 3
/// (PacketPeerStream).
pub(crate) const VALUES4_GD: &str = r#"extends SceneTree
# Godot 4: PacketPeerUDP.put_var of a few values to a bound PacketPeerUDP answering each with
# put_var(["echo", value]), and the same over StreamPeerTCP.put_var to a TCPServer, over
# WebSocketPeer.put_var and over a PacketPeerStream, in one process on 127.0.0.1:PORT (UDP),
# PORT + 1 (TCP), PORT + 2 (WebSocket) and PORT + 3 (PacketPeerStream); PORT in res://port.txt.
var port := 0
var udp_server := PacketPeerUDP.new()
var udp_client := PacketPeerUDP.new()
var tcp_server := TCPServer.new()
var tcp_client := StreamPeerTCP.new()
var conn: StreamPeerTCP
var ws_tcp := TCPServer.new()
var ws_client := WebSocketPeer.new()
var ws_server: WebSocketPeer
var pps_tcp := TCPServer.new()
var pps_stream := StreamPeerTCP.new()
var pps_client := PacketPeerStream.new()
var pps_server: PacketPeerStream
var pps_conn: StreamPeerTCP
var sent_ws := false
var sent_pps := false
var closed_ws := false
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
	ws_tcp.listen(port + 2, "127.0.0.1")
	ws_client.connect_to_url("ws://127.0.0.1:%d" % (port + 2))
	pps_tcp.listen(port + 3, "127.0.0.1")
	pps_stream.connect_to_host("127.0.0.1", port + 3)
	pps_client.stream_peer = pps_stream
	deadline = Time.get_ticks_msec() + 10000

func _process(_delta: float) -> bool:
	if Time.get_ticks_msec() > deadline:
		print("FAIL timeout, got ", got)
		return true
	if quit_at != 0:
		# The WebSocket close handshake: both peers polled until the TCP connection is gone.
		ws_client.poll()
		if ws_server != null:
			ws_server.poll()
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
	# WebSocketPeer.put_var: the client's values, the server's echoes, both WebSocketPeers.
	if ws_server == null and ws_tcp.is_connection_available():
		ws_server = WebSocketPeer.new()
		ws_server.accept_stream(ws_tcp.take_connection())
	ws_client.poll()
	if not sent_ws and ws_client.get_ready_state() == WebSocketPeer.STATE_OPEN:
		for v in values:
			ws_client.put_var(v)
		sent_ws = true
	if ws_server != null:
		ws_server.poll()
		while ws_server.get_available_packet_count() > 0:
			ws_server.put_var(["echo", ws_server.get_var()])
			got += 1
	while ws_client.get_available_packet_count() > 0:
		ws_client.get_var()
		got += 1
	# PacketPeerStream.put_var over StreamPeerTCP, both ends.
	if pps_server == null and pps_tcp.is_connection_available():
		pps_conn = pps_tcp.take_connection()
		pps_server = PacketPeerStream.new()
		pps_server.stream_peer = pps_conn
	pps_stream.poll()
	if not sent_pps and pps_stream.get_status() == StreamPeerTCP.STATUS_CONNECTED:
		for v in values:
			pps_client.put_var(v)
		sent_pps = true
	if pps_server != null:
		pps_conn.poll()
		while pps_server.get_available_packet_count() > 0:
			pps_server.put_var(["echo", pps_server.get_var()])
			got += 1
	while pps_client.get_available_packet_count() > 0:
		pps_client.get_var()
		got += 1
	if got == 8 * values.size() and not closed_ws:
		tcp_client.disconnect_from_host()
		pps_stream.disconnect_from_host()
		ws_client.close(1000)
		closed_ws = true
		quit_at = Time.get_ticks_msec() + 300
	return false
"#;

/// The same in Godot 3.2.3 (godot3_values.pcap; `WebSocketServer` without the multiplayer API and
/// `WebSocketClient`, each through its `WebSocketPeer`, in binary write mode).
pub(crate) const VALUES3_GD: &str = r#"extends SceneTree
# Godot 3: the same as VALUES4_GD (PacketPeerUDP, StreamPeerTCP, WebSocketPeer and
# PacketPeerStream put_var, echoed); WebSocketServer (no multiplayer API) and WebSocketClient.
var port = 0
var udp_server = PacketPeerUDP.new()
var udp_client = PacketPeerUDP.new()
var tcp_server = TCP_Server.new()
var tcp_client = StreamPeerTCP.new()
var conn = null
var ws_server = WebSocketServer.new()
var ws_client = WebSocketClient.new()
var ws_id = 0
var pps_tcp = TCP_Server.new()
var pps_stream = StreamPeerTCP.new()
var pps_client = PacketPeerStream.new()
var pps_server = null
var sent_ws = false
var sent_pps = false
var closed = false
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
	ws_server.bind_ip = "127.0.0.1"
	ws_server.connect("client_connected", self, "_ws_connected")
	ws_server.listen(port + 2, PoolStringArray(), false)
	ws_client.connect_to_url("ws://127.0.0.1:%d" % (port + 2))
	pps_tcp.listen(port + 3, "127.0.0.1")
	pps_stream.connect_to_host("127.0.0.1", port + 3)
	pps_client.stream_peer = pps_stream
	deadline = OS.get_ticks_msec() + 10000

func _ws_connected(id, _protocol):
	ws_id = id
	ws_server.get_peer(id).set_write_mode(WebSocketPeer.WRITE_MODE_BINARY)

func _idle(_delta):
	if OS.get_ticks_msec() > deadline:
		print("FAIL timeout, got ", got)
		quit()
		return false
	if quit_at != 0:
		# The WebSocket close handshake: both ends polled until the TCP connection is gone.
		ws_client.poll()
		ws_server.poll()
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
	# WebSocketPeer.put_var: the client's values, the server's echoes.
	ws_server.poll()
	ws_client.poll()
	var wc = ws_client.get_peer(1)
	if not sent_ws and ws_id != 0 and ws_client.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_CONNECTED:
		wc.set_write_mode(WebSocketPeer.WRITE_MODE_BINARY)
		for v in values:
			wc.put_var(v)
		sent_ws = true
	if ws_id != 0:
		var ws = ws_server.get_peer(ws_id)
		while ws.get_available_packet_count() > 0:
			ws.put_var(["echo", ws.get_var()])
			got += 1
	if sent_ws:
		while wc.get_available_packet_count() > 0:
			wc.get_var()
			got += 1
	# PacketPeerStream.put_var over StreamPeerTCP, both ends.
	if pps_server == null and pps_tcp.is_connection_available():
		pps_server = PacketPeerStream.new()
		pps_server.stream_peer = pps_tcp.take_connection()
	if not sent_pps and pps_stream.get_status() == StreamPeerTCP.STATUS_CONNECTED:
		for v in values:
			pps_client.put_var(v)
		sent_pps = true
	if pps_server != null:
		while pps_server.get_available_packet_count() > 0:
			pps_server.put_var(["echo", pps_server.get_var()])
			got += 1
	while pps_client.get_available_packet_count() > 0:
		pps_client.get_var()
		got += 1
	if got == 8 * values.size() and not closed:
		tcp_client.disconnect_from_host()
		pps_stream.disconnect_from_host()
		ws_client.disconnect_from_host(1000)
		closed = true
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

/// The flows of `out` whose first line is `<transport> new flow`, by the server's port (the
/// destination of that first line), lowest first.
fn flows_by_port(out: &str, transport: &str) -> Vec<u64> {
    let mut flows: Vec<(u16, u64)> = out
        .lines()
        .filter(|l| l.ends_with(&format!(" {transport} new flow")))
        .map(|l| {
            let to = l.split(" → ").nth(1).unwrap().split(' ').next().unwrap();
            let port = to.rsplit(':').next().unwrap().parse().unwrap();
            (port, flow_of(l, " new flow"))
        })
        .collect();
    flows.sort_unstable();
    flows.into_iter().map(|f| f.1).collect()
}

/// A value capture: each of its four flows (PacketPeerUDP on PORT, StreamPeerTCP on PORT + 1,
/// WebSocketPeer on PORT + 2, PacketPeerStream on PORT + 3), each value sent and its echo, in
/// order.
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
    assert!(!out.contains("error"), "{out}");
    let udp = flows_by_port(&out, "udp");
    let put_var = flows_by_port(&out, "put_var");
    let websocket = flows_by_port(&out, "websocket");
    assert_eq!(
        (udp.len(), put_var.len(), websocket.len()),
        (1, 2, 1),
        "{out}"
    );
    // StreamPeerTCP.put_var and PacketPeerStream.put_var write the same bytes: both put_var.
    for (transport, flow) in [
        ("udp", udp[0]),
        ("put_var", put_var[0]),
        ("websocket", websocket[0]),
        ("put_var", put_var[1]),
    ] {
        let (open, comma) = if godot3 { ("[ ", " ]") } else { ("[", "]") };
        let mut up: Vec<String> = sent.iter().map(|v| format!(" {transport} {v}\n")).collect();
        let mut down: Vec<String> = sent
            .iter()
            .map(|v| format!(" {transport} {open}\"echo\", {v}{comma}\n"))
            .collect();
        if transport == "websocket" {
            up.insert(0, " websocket WebSocket upgrade request\n".to_string());
            up.push(" websocket CLOSE 1000\n".to_string());
            down.insert(0, " websocket WebSocket upgrade response 101\n".to_string());
            down.push(" websocket CLOSE 1000\n".to_string());
        }
        let client = side(&out, flow, true);
        let server = side(&out, flow, false);
        in_order(&client, &up.iter().map(String::as_str).collect::<Vec<_>>());
        in_order(
            &server,
            &down.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        // Every value line of the flow is one of these: 6 each way.
        let values = |s: &str| {
            s.lines()
                .filter(|l| {
                    !l.contains("new flow")
                        && !l.contains("WebSocket")
                        && !l.contains(" CLOSE ")
                        && !l.contains("connection closed")
                })
                .count()
        };
        assert_eq!(
            (values(&client), values(&server)),
            (6, 6),
            "flow #{flow}:\n{client}{server}"
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
fn godot4_values_udp_tcp_websocket_and_packet_peer_stream() {
    check_values(&capture("godot4_values.pcap"), false);
}

#[test]
fn godot3_values_udp_tcp_websocket_and_packet_peer_stream() {
    check_values(&capture("godot3_values.pcap"), true);
}
