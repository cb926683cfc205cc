extends SceneTree
# A short ENet session of Godot 3's MultiplayerAPI over real UDP on loopback, for
# tests/godot/capture_enet.sh to record with tcpdump (tests/data/captures/godot3_enet.pcap).
#
# ONE headless process holds a server (/root/Server, peer 1) and two clients (/root/ClientA,
# /root/ClientB), each its own MultiplayerAPI (custom_multiplayer, polled here) with its own
# NetworkedMultiplayerENet; the ENet hosts talk over 127.0.0.1:PORT (PORT read from
# res://capture_port.txt). The scripted session:
#   connect both clients (the server tells each of the other: config ADD_PEER); A -> server
#   hello(42, "héllo ☃", Vector2(1.5, -2.25), [1, "two", 3.0], {"k": true}) reliable; server -> A
#   big(5000-byte PoolByteArray, byte i = (7 i + 3) & 255) reliable (fragmented); A -> server
#   unrel(7, 2.5) unreliable; B -> server unrel_big(3000 bytes, byte i = (13 i + 1) & 255)
#   unreliable (over the MTU: ENet sends it as reliable fragments); B leaves (config REMOVE_PEER
#   to A), then A, then the server closes. Then a second server on PORT + 1 and a client C, both
#   compressing with ENet's range coder (compression_mode): C -> server hello(7, "compressed ☃
#   compressed ☃", Vector2(0.5, 4), [true, null], {"n": -1}), server -> C big(2000 bytes, byte i =
#   i & 255); C leaves, the server closes.
# Prints "ID A <id>", "ID B <id>", "ID C <id>", "SENT ..." and "GOT <receiver> <sender> <method> <args>" lines and
# "CAPTURE-DONE" at the end.
#
# Usage: tests/godot/godot3 DIR capture_enet3.gd   (DIR/capture_port.txt holds the port)

const GAME_GD = """extends Node
remote func hello(i, s, v, a, d):
	Engine.get_main_loop().got(self, "hello", [i, s, v, a, d])
remote func big(b):
	Engine.get_main_loop().got(self, "big", [b.size(), b.subarray(0, 7)])
remote func unrel(i, f):
	Engine.get_main_loop().got(self, "unrel", [i, f])
remote func unrel_big(b):
	Engine.get_main_loop().got(self, "unrel_big", [b.size(), b.subarray(0, 7)])
"""

var port = 0
var roots = {}    # "S" / "A" / "B" -> root node
var apis = {}     # "S" / "A" / "B" -> MultiplayerAPI
var peers = {}    # "S" / "A" / "B" -> NetworkedMultiplayerENet
var steps = []
var step_i = 0
var next_at = 0
var started = false
var deadline = 0

func _initialize():
	var f = File.new()
	f.open("res://capture_port.txt", File.READ)
	port = int(f.get_as_text().strip_edges())
	f.close()
	f.open("res://capture_game3.gd", File.WRITE)
	f.store_string(GAME_GD)
	f.close()

func pattern(n, mul, add):
	var b = PoolByteArray()
	b.resize(n)
	for i in range(n):
		b[i] = (i * mul + add) & 255
	return b

func _make(key, root_name):
	var r = Node.new()
	r.name = root_name
	root.add_child(r)
	var api = MultiplayerAPI.new()
	api.set_root_node(r)
	r.custom_multiplayer = api
	var g = Node.new()
	g.name = "Game"
	g.set_script(load("res://capture_game3.gd"))
	g.custom_multiplayer = api
	r.add_child(g)
	roots[key] = r
	apis[key] = api

func game(key):
	return roots[key].get_node("Game")

func got(node, what, args):
	var api = node.custom_multiplayer
	print("GOT %d %d %s %s" % [api.get_network_unique_id(), api.get_rpc_sender_id(), what, var2str(args).replace("\n", " ")])

func _setup():
	_make("S", "Server")
	_make("A", "ClientA")
	_make("B", "ClientB")
	var s = NetworkedMultiplayerENet.new()
	if s.create_server(port, 32) != OK:
		print("CAPTURE-FAIL create_server %d" % port)
		return false
	apis["S"].network_peer = s
	peers["S"] = s
	for k in ["A", "B"]:
		var c = NetworkedMultiplayerENet.new()
		c.create_client("127.0.0.1", port)
		apis[k].network_peer = c
		peers[k] = c
		print("ID %s %d" % [k, c.get_unique_id()])
	steps = ["connected", "hello", "big", "unrel", "unrel_big", "leave_b", "leave_a", "close",
		"compressed_setup", "compressed_connected", "compressed_rpcs", "compressed_close", "compressed_close_server"]
	return true

func connected():
	return apis["S"].get_network_connected_peers().size() == 2 and apis["A"].get_network_connected_peers().size() == 2 and apis["B"].get_network_connected_peers().size() == 2

func hello():
	game("A").rpc_id(1, "hello", 42, "héllo ☃", Vector2(1.5, -2.25), [1, "two", 3.0], {"k": true})
	print("SENT A hello")
	return true

func big():
	game("S").rpc_id(peers["A"].get_unique_id(), "big", pattern(5000, 7, 3))
	print("SENT S big 5000")
	return true

func unrel():
	game("A").rpc_unreliable_id(1, "unrel", 7, 2.5)
	print("SENT A unrel")
	return true

func unrel_big():
	game("B").rpc_unreliable_id(1, "unrel_big", pattern(3000, 13, 1))
	print("SENT B unrel_big 3000")
	return true

func leave_b():
	peers["B"].close_connection()
	print("SENT B close")
	return true

func leave_a():
	peers["A"].close_connection()
	print("SENT A close")
	return true

func close():
	peers["S"].close_connection()
	return true

# A second server on PORT + 1, it and its client compressing with ENet's range coder.
func compressed_setup():
	_make("S2", "Server2")
	_make("C", "ClientC")
	var s2 = NetworkedMultiplayerENet.new()
	s2.compression_mode = NetworkedMultiplayerENet.COMPRESS_RANGE_CODER
	s2.create_server(port + 1, 32)
	apis["S2"].network_peer = s2
	peers["S2"] = s2
	var c = NetworkedMultiplayerENet.new()
	c.compression_mode = NetworkedMultiplayerENet.COMPRESS_RANGE_CODER
	c.create_client("127.0.0.1", port + 1)
	apis["C"].network_peer = c
	peers["C"] = c
	print("ID C %d" % c.get_unique_id())
	return true

func compressed_connected():
	return apis["S2"].get_network_connected_peers().size() == 1 and apis["C"].get_network_connected_peers().size() == 1

func compressed_rpcs():
	game("C").rpc_id(1, "hello", 7, "compressed ☃ compressed ☃", Vector2(0.5, 4), [true, null], {"n": -1})
	game("S2").rpc_id(peers["C"].get_unique_id(), "big", pattern(2000, 1, 0))
	print("SENT C hello, S2 big 2000")
	return true

func compressed_close():
	peers["C"].close_connection()
	return true

func compressed_close_server():
	peers["S2"].close_connection()
	return true

func _idle(_delta):
	if not started:
		started = true
		deadline = OS.get_ticks_msec() + 20000
		if not _setup():
			quit()
			return true
		next_at = OS.get_ticks_msec() + 100
		return false
	for k in apis:
		if apis[k].has_network_peer() and peers[k].get_connection_status() != NetworkedMultiplayerPeer.CONNECTION_DISCONNECTED:
			apis[k].poll()
	if OS.get_ticks_msec() > deadline:
		print("CAPTURE-TIMEOUT at step %d" % step_i)
		quit()
		return true
	if OS.get_ticks_msec() < next_at:
		return false
	if step_i >= steps.size():
		print("CAPTURE-DONE")
		quit()
		return true
	if call(steps[step_i]):
		step_i += 1
		next_at = OS.get_ticks_msec() + 300
	return false
