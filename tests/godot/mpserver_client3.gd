extends SceneTree
# A Godot 3 client of the crate's multiplayer server (multiplayer/examples/echo_server.rs --godot3,
# and the Godot 3 test server of multiplayer/tests/multiplayer/server_live.rs), over ENet
# (NetworkedMultiplayerENet) or WebSocket (WebSocketClient with the multiplayer API), with the
# engine's own MultiplayerAPI: the counterpart of mpserver_client4.gd in Godot 3.2's API.
#
# Usage: tests/godot/godot3 DIR mpserver_client3.gd
#   reads DIR/mpserver.cfg, lines key=value: transport=enet|ws  port=N  peers=N  welcome=0|1
#     rset=0|1 (rset_id(1, "color", "red") on /root/Main's `remote var color`, and expect the
#       server to answer with an rset of its `puppet var score` to 42)
#   /root/Main has `remote func echo(value)` and `remote func echoed(value)`. The client calls
#   echo(v) on the server for values of every type and checks that echoed(v) brings back the same
#   value (the same bytes, but for NodePaths, whose padding Godot 3 leaves uninitialised); waits
#   for the other clients, calls echo on each through the server's relay and checks it got theirs;
#   the lowest id leaves first. Prints "FAIL ...", "CLIENT-RESULT ..." and "CLIENT-DONE <failures>".

const MAIN_GD = """extends Node
var got = []
var relayed = []
remote func echo(value):
	relayed.append([get_tree().get_rpc_sender_id(), value])
remote func echoed(value):
	got.append(value)
remote var color = "none"
puppet var score = 0
"""

const TIMEOUT_MS = 30000

var cfg = {}
var main
var state = "setup"
var deadline = 0
var failures = 0
var values = []
var me = 0
var others = {}
var joined = []
var left = []

func fail(what):
	failures += 1
	if failures <= 40:
		print("FAIL ", what)

func every_type():
	return [
		null, true, false, 0, 1, -1, 127, -128, 40000, -40000, 1 << 40, -(1 << 40), 9223372036854775807,
		1.5, -0.0, 3.141592653589793, 1e300, "", "hello", "ünïcödé ✓", NodePath("a/b:c"),
		Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3), Transform2D(0.5, Vector2(3, 4)),
		Plane(0, 1, 0, 5), Quat(0, 0, 0, 1), AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)),
		Basis(Vector3(0, 1, 0), 0.5), Transform(Basis(), Vector3(1, 2, 3)), Color(0.25, 0.5, 0.75, 1.0),
		{"a": 1, "nested": [1, "x", null], 3: Vector2(1, 1)}, [1, "two", 3.0, [4]],
		PoolByteArray([1, 2, 3, 255]), PoolIntArray([1, -2, 3]), PoolRealArray([1.5, -2.25]),
		PoolStringArray(["a", "bé"]), PoolVector2Array([Vector2(1, 2)]), PoolVector3Array([Vector3(1, 2, 3)]),
		PoolColorArray([Color(1, 0, 0)]), "x".repeat(3000),
	]

func has_node_path(v):
	match typeof(v):
		TYPE_NODE_PATH:
			return true
		TYPE_ARRAY:
			for x in v:
				if has_node_path(x):
					return true
		TYPE_DICTIONARY:
			for k in v:
				if has_node_path(k) or has_node_path(v[k]):
					return true
	return false

func same(a, b):
	if has_node_path(b):
		return typeof(a) == typeof(b) and str(a) == str(b)
	return var2bytes(a) == var2bytes(b)

func _initialize():
	var f = File.new()
	f.open("res://mpserver.cfg", File.READ)
	for line in f.get_as_text().split("\n", false):
		var kv = line.split("=", true, 1)
		if kv.size() == 2:
			cfg[kv[0].strip_edges()] = kv[1].strip_edges()
	f.close()
	f.open("res://mps_main3.gd", File.WRITE)
	f.store_string(MAIN_GD)
	f.close()
	values = every_type()
	deadline = OS.get_ticks_msec() + TIMEOUT_MS

func setup():
	main = Node.new()
	main.name = "Main"
	main.set_script(load("res://mps_main3.gd"))
	root.add_child(main)
	connect("network_peer_connected", self, "_joined")
	connect("network_peer_disconnected", self, "_left")
	var port = int(cfg["port"])
	if cfg["transport"] == "enet":
		var e = NetworkedMultiplayerENet.new()
		var err = e.create_client("127.0.0.1", port)
		if err != OK:
			fail("create_client %d" % err)
		# The engine's default (0 none, 1 ENet's range coder): the server's tests check it.
		print("CLIENT-ENET compression_mode=%d" % e.compression_mode)
		network_peer = e
	else:
		var w = WebSocketClient.new()
		var err = w.connect_to_url("ws://127.0.0.1:%d" % port, PoolStringArray(), true)
		if err != OK:
			fail("connect_to_url %d" % err)
		network_peer = w

func _joined(id):
	if id != 1:
		others[id] = true
		joined.append(id)

func _left(id):
	if id != 1:
		others.erase(id)
		left.append(id)

func lowest():
	for o in others:
		if o < me:
			return false
	return true

func finish():
	var n = int(cfg.get("peers", "1"))
	print("CLIENT-RESULT me=%d echoes=%d/%d relays=%d joined=%d left=%d score=%d" % [me, main.got.size(), values.size(), main.relayed.size(), joined.size(), left.size(), main.score])
	if cfg.get("rset", "0") == "1" and main.score != 42:
		fail("rset score: %d, want 42" % main.score)
	if n > 1 and joined.size() < n - 1:
		fail("saw %d peers join, want %d" % [joined.size(), n - 1])
	print("CLIENT-DONE %d" % failures)
	if network_peer is NetworkedMultiplayerENet:
		network_peer.close_connection()
	else:
		network_peer.disconnect_from_host()
	quit()

func _idle(_delta):
	if state == "setup":
		setup()
		state = "connecting"
		return false
	if OS.get_ticks_msec() > deadline:
		fail("timed out in state %s" % state)
		finish()
		return true
	match state:
		"connecting":
			var st = network_peer.get_connection_status()
			if st == NetworkedMultiplayerPeer.CONNECTION_CONNECTED and 1 in Array(get_network_connected_peers()):
				me = get_network_unique_id()
				for v in values:
					main.rpc_id(1, "echo", v)
				if cfg.get("rset", "0") == "1":
					main.rset_id(1, "color", "red")
				state = "echo"
			elif st == NetworkedMultiplayerPeer.CONNECTION_DISCONNECTED:
				fail("could not connect")
				finish()
				return true
		"echo":
			var skip = 1 if cfg.get("welcome", "0") == "1" else 0
			if main.got.size() >= values.size() + skip:
				if skip == 1 and str(main.got[0]) != "welcome":
					fail("the server's first RPC: %s, want echoed(\"welcome\")" % str(main.got[0]))
				for i in values.size():
					if not same(main.got[i + skip], values[i]):
						fail("echo %d: sent %s got %s" % [i, var2str(values[i]).left(80), var2str(main.got[i + skip]).left(80)])
				state = "peers"
		"peers":
			if others.size() + 1 >= int(cfg.get("peers", "1")):
				for o in others:
					main.rpc_id(o, "echo", "relay %d->%d" % [me, o])
				state = "relays"
		"relays":
			var from = {}
			for r in main.relayed:
				from[r[0]] = true
				if str(r[1]) != "relay %d->%d" % [r[0], me]:
					fail("relayed %s from %d" % [str(r[1]), r[0]])
			var rset_done = cfg.get("rset", "0") != "1" or main.score == 42
			if from.size() >= int(cfg.get("peers", "1")) - 1 and rset_done:
				state = "leaving"
		"leaving":
			if lowest():
				finish()
				return true
	return false
