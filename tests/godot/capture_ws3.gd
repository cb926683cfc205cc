extends SceneTree
# Godot 3.2 traffic for the pcap fixtures (run by tests/godot/capture_ws.sh, one engine process per role):
#
#   WS_ROLE=server WS_PORT=N               a WebSocketServer (the MultiplayerAPI's network peer, peer 1)
#   WS_ROLE=client WS_PORT=N WS_NAME=A|B   a WebSocketClient
#
# The session (the counterpart of capture_ws4.gd; both sides have /root/Game): client A connects; when the
# server has said it is connected (SYS_ID then SYS_ADD 1) it calls hello("A", values...) and
# big(70 000 bytes) on the server; client B connects and calls hello("B", values...); A, told of B by the
# server (SYS_ADD), calls note("from A") on B through the server's relay; the server answers each hello with
# welcome(id, "welcome <name>", Vector2(id % 1000, 7)); a client that has all it waits for calls bye() on
# the server, which then closes that client's connection (code 1000) and quits when both are gone. Every
# process prints what it got as "GOT ..." lines and its id as "ID <n>".
# The buffers are raised to 1 MiB (set_buffers): the default 64 KiB refuses the 70 000-byte call.

const GAME_GD = """extends Node

remote func hello(who, n, big_n, f, s, v, v3, arr, dict, ints, flag, nothing):
	Engine.get_main_loop().got("hello", multiplayer.get_rpc_sender_id(), [who, n, big_n, f, s, v, v3, arr, dict, ints, flag, nothing])

remote func big(data):
	Engine.get_main_loop().got("big", multiplayer.get_rpc_sender_id(), [data.size(), data[0], data[69999]])

remote func note(text):
	Engine.get_main_loop().got("note", multiplayer.get_rpc_sender_id(), [text])

remote func welcome(id, text, v):
	Engine.get_main_loop().got("welcome", multiplayer.get_rpc_sender_id(), [id, text, v])

remote func bye():
	Engine.get_main_loop().got("bye", multiplayer.get_rpc_sender_id(), [])
"""

const TIMEOUT_MS = 20000

var role = ""
var port = 0
var who = ""
var game
var peer
var deadline = 0
var got_welcome = false
var got_note = false
var sent_note = false
var sent_bye = false
var gone = 0
var quit_at = 0

func _initialize():
	role = OS.get_environment("WS_ROLE")
	port = int(OS.get_environment("WS_PORT"))
	who = OS.get_environment("WS_NAME")
	deadline = OS.get_ticks_msec() + TIMEOUT_MS
	var f = File.new()
	f.open("res://ws3_game.gd", File.WRITE)
	f.store_string(GAME_GD)
	f.close()
	game = Node.new()
	game.name = "Game"
	game.set_script(load("res://ws3_game.gd"))
	root.add_child(game)
	if role == "server":
		peer = WebSocketServer.new()
		peer.set_buffers(1024, 1024, 1024, 1024)
		if peer.listen(port, PoolStringArray(), true) != OK:
			print("FAIL listen")
			quit()
			return
		connect("network_peer_connected", self, "_peer_added")
		connect("network_peer_disconnected", self, "_server_lost")
	else:
		peer = WebSocketClient.new()
		peer.set_buffers(1024, 1024, 1024, 1024)
		if peer.connect_to_url("ws://127.0.0.1:%d" % port, PoolStringArray(), true) != OK:
			print("FAIL connect_to_url")
			quit()
			return
		connect("connected_to_server", self, "_connected")
		connect("network_peer_connected", self, "_peer_added")
	network_peer = peer

func _values(name):
	return [name, 42, -7000000000, 3.25, "héllo ☃", Vector2(1.5, -2), Vector3(1, 2, 3), [1, "x", null],
		{"k": 1, "list": [true]}, PoolIntArray([1, -2, 300000]), true, null]

func _connected():
	print("ID ", get_network_unique_id())
	game.callv("rpc_id", [1, "hello"] + _values(who))
	if who == "A":
		var data = PoolByteArray()
		data.resize(70000)
		for i in data.size():
			data[i] = (i * 7) % 251
		game.rpc_id(1, "big", data)

func _peer_added(id):
	print("PEER ", id)
	if role == "client" and who == "A" and id != 1 and not sent_note:
		sent_note = true
		game.rpc_id(id, "note", "from A")

func _client_closed():
	print("CLOSED")
	quit_at = OS.get_ticks_msec() + 200

func _server_lost(id):
	print("LOST ", id)
	gone += 1
	if gone == 2:
		quit_at = OS.get_ticks_msec() + 300

func got(what, from, args):
	var texts = PoolStringArray()
	for a in args:
		texts.append(var2str(a))
	print("GOT %s from %d: %s" % [what, from, texts.join(", ")])
	match what:
		"hello":
			game.rpc_id(from, "welcome", from, "welcome " + str(args[0]), Vector2(from % 1000, 7))
		"bye":
			peer.disconnect_peer(from, 1000, "")
		"welcome":
			got_welcome = true
		"note":
			got_note = true

func _idle(_delta):
	var now = OS.get_ticks_msec()
	if quit_at != 0 and now > quit_at:
		print("DONE ", role, " ", who)
		quit()
		return false
	if now > deadline:
		print("FAIL timeout ", role, " ", who)
		quit()
		return false
	# 3.2's WebSocketClient does not emit server_disconnected when the server closes: watch its status.
	if sent_bye and quit_at == 0 and peer.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_DISCONNECTED:
		_client_closed()
	if role == "client" and not sent_bye and got_welcome and (sent_note if who == "A" else got_note):
		sent_bye = true
		game.rpc_id(1, "bye")
	return false
