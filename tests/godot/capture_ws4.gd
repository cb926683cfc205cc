extends SceneTree
# Godot 4 traffic for the pcap fixtures (run by tests/godot/capture_ws.sh, one engine process per role):
#
#   WS_ROLE=server  WS_PORT=N   a WebSocketMultiplayerPeer server (peer 1) for two clients
#   WS_ROLE=client  WS_PORT=N WS_NAME=A|B   a WebSocketMultiplayerPeer client
#   WS_ROLE=tcp_server WS_PORT=N   a TCPServer answering every StreamPeerTCP.get_var with put_var(["echo", v])
#   WS_ROLE=tcp_client WS_PORT=N   a StreamPeerTCP client doing put_var of a few values
#
# The WebSocket session (every call reliable, the defaults; both clients under /root/Game):
#   client A connects; on connected_to_server it calls hello("A", values...) and big(70 000 bytes) on the
#   server; client B connects and calls hello("B", values...); A, told of B by the server (SYS ADD_PEER),
#   calls note("from A") on B through the server's relay; the server answers each hello with
#   welcome(id, "welcome <name>", Vector2i(id % 1000, 7)); a client that has all it waits for calls bye()
#   on the server, which then closes that client's connection (close code 1000) and quits when both are
#   gone. Every process prints what it got as "GOT ..." lines and its id as "ID <n>".
# The buffers are raised to 1 MiB: the default 65 535-byte inbound buffer refuses the 70 000-byte call.

const GAME_GD := """extends Node

@rpc("any_peer", "reliable")
func hello(who, n, big_n, f, s, v, v3i, arr, dict, ints, flag, nothing):
	Engine.get_main_loop().got("hello", multiplayer.get_remote_sender_id(), [who, n, big_n, f, s, v, v3i, arr, dict, ints, flag, nothing])

@rpc("any_peer", "reliable")
func big(data):
	Engine.get_main_loop().got("big", multiplayer.get_remote_sender_id(), [data.size(), data[0], data[69999]])

@rpc("any_peer", "reliable")
func note(text):
	Engine.get_main_loop().got("note", multiplayer.get_remote_sender_id(), [text])

@rpc("authority", "reliable")
func welcome(id, text, v):
	Engine.get_main_loop().got("welcome", multiplayer.get_remote_sender_id(), [id, text, v])

@rpc("any_peer", "reliable")
func bye():
	Engine.get_main_loop().got("bye", multiplayer.get_remote_sender_id(), [])
"""

const TIMEOUT_MS := 20000
const BUFFER := 1 << 20

var role := ""
var port := 0
var who := ""
var game: Node
var peer: WebSocketMultiplayerPeer
var deadline := 0
var got_welcome := false
var got_note := false
var sent_note := false
var sent_bye := false
var gone := 0
var quit_at := 0

func _initialize() -> void:
	role = OS.get_environment("WS_ROLE")
	port = int(OS.get_environment("WS_PORT"))
	who = OS.get_environment("WS_NAME")
	deadline = Time.get_ticks_msec() + TIMEOUT_MS
	if role == "tcp_server" or role == "tcp_client":
		return
	var f := FileAccess.open("res://ws4_game.gd", FileAccess.WRITE)
	f.store_string(GAME_GD)
	f.close()
	game = Node.new()
	game.name = "Game"
	game.set_script(load("res://ws4_game.gd"))
	root.add_child(game)
	peer = WebSocketMultiplayerPeer.new()
	peer.inbound_buffer_size = BUFFER
	peer.outbound_buffer_size = BUFFER
	var mp := get_multiplayer()
	if role == "server":
		if peer.create_server(port, "127.0.0.1") != OK:
			print("FAIL create_server")
			quit(1)
			return
		mp.peer_connected.connect(func(id): print("PEER ", id))
		mp.peer_disconnected.connect(_server_lost)
	else:
		if peer.create_client("ws://127.0.0.1:%d" % port) != OK:
			print("FAIL create_client")
			quit(1)
			return
		mp.connected_to_server.connect(_connected)
		mp.peer_connected.connect(_peer_added)
		mp.server_disconnected.connect(_client_closed)
	mp.multiplayer_peer = peer

func _values(name: String) -> Array:
	var ints := PackedInt32Array([1, -2, 300000])
	return [name, 42, -7000000000, 3.25, "héllo ☃", Vector2(1.5, -2), Vector3i(1, 2, 3), [1, "x", null],
		{"k": 1, "list": [true]}, ints, true, null]

func _connected() -> void:
	print("ID ", get_multiplayer().get_unique_id())
	game.callv("rpc_id", [1, "hello"] + _values(who))
	if who == "A":
		var data := PackedByteArray()
		data.resize(70000)
		for i in data.size():
			data[i] = (i * 7) % 251
		game.rpc_id(1, "big", data)

func _peer_added(id: int) -> void:
	print("PEER ", id)
	if who == "A" and id != 1 and not sent_note:
		sent_note = true
		game.rpc_id(id, "note", "from A")

func _client_closed() -> void:
	print("CLOSED")
	quit_at = Time.get_ticks_msec() + 200

func _server_lost(id: int) -> void:
	print("LOST ", id)
	gone += 1
	if gone == 2:
		quit_at = Time.get_ticks_msec() + 300

func got(what: String, from: int, args: Array) -> void:
	var texts := PackedStringArray()
	for a in args:
		texts.append(var_to_str(a))
	print("GOT %s from %d: %s" % [what, from, ", ".join(texts)])
	match what:
		"hello":
			game.rpc_id(from, "welcome", from, "welcome " + str(args[0]), Vector2i(from % 1000, 7))
		"bye":
			peer.disconnect_peer(from)
		"welcome":
			got_welcome = true
		"note":
			got_note = true

func _process(_delta: float) -> bool:
	if role == "tcp_server":
		return _tcp_server()
	if role == "tcp_client":
		return _tcp_client()
	var now := Time.get_ticks_msec()
	if quit_at != 0 and now > quit_at:
		print("DONE ", role, " ", who)
		return true
	if now > deadline:
		print("FAIL timeout ", role, " ", who)
		quit(1)
		return false
	if role == "client" and not sent_bye and got_welcome and (sent_note if who == "A" else got_note):
		sent_bye = true
		game.rpc_id(1, "bye")
	return false

# ---- put_var over plain TCP ----

var tcp_server: TCPServer
var conn: StreamPeerTCP
var answered := 0

func _put_var_values() -> Array:
	return [42, "hello put_var", Vector3(1, 2, 3), {"a": [1, 2], "b": null}, PackedFloat32Array([0.5, -1.0]),
		StringName("name"), Color(1, 0.5, 0.25, 1)]

func _tcp_server() -> bool:
	if tcp_server == null:
		tcp_server = TCPServer.new()
		if tcp_server.listen(port, "127.0.0.1") != OK:
			print("FAIL listen")
			quit(1)
		return false
	if Time.get_ticks_msec() > deadline:
		print("FAIL timeout tcp_server")
		quit(1)
		return false
	if conn == null:
		if tcp_server.is_connection_available():
			conn = tcp_server.take_connection()
		return false
	conn.poll()
	if conn.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		print("DONE tcp_server ", answered)
		return true
	while conn.get_available_bytes() > 0:
		var v = conn.get_var()
		print("GOT ", var_to_str(v))
		conn.put_var(["echo", v])
		answered += 1
	return false

func _tcp_client() -> bool:
	var p := StreamPeerTCP.new()
	if p.connect_to_host("127.0.0.1", port) != OK:
		print("FAIL connect")
		quit(1)
		return false
	while p.get_status() == StreamPeerTCP.STATUS_CONNECTING:
		p.poll()
		OS.delay_usec(1000)
	p.set_no_delay(true)
	for v in _put_var_values():
		p.put_var(v)
		while p.get_available_bytes() == 0 and Time.get_ticks_msec() < deadline:
			p.poll()
			OS.delay_usec(1000)
		print("GOT ", var_to_str(p.get_var()))
	p.disconnect_from_host()
	print("DONE tcp_client")
	return true
