extends SceneTree
# A short ENet session of Godot 4's SceneMultiplayer over real UDP on loopback, for
# tests/godot/capture_enet.sh to record with tcpdump (tests/data/captures/godot4_enet.pcap).
#
# ONE headless process holds a server (/root/Server, peer 1) and two clients (/root/ClientA,
# /root/ClientB), each its own SceneMultiplayer with its own ENetMultiplayerPeer; the ENet hosts
# talk over 127.0.0.1:PORT (PORT read from res://capture_port.txt). The scripted session:
#   connect both clients; A -> server hello(42, "héllo ☃", Vector2(1.5, -2.25), [1, "two", 3.0],
#   {"k": true}) reliable; server -> A big(5000-byte PackedByteArray, byte i = (7 i + 3) & 255)
#   reliable (fragmented); A -> server unrel(7, 2.5) unreliable; B -> server unrel_big(3000 bytes,
#   byte i = (13 i + 1) & 255) unreliable (fragmented); B -> server ordered("seq") unreliable_ordered
#   on transfer channel 2; server -> B chan3(-1234567890123) reliable on transfer channel 3; B
#   leaves, then A, then the server closes. Then a second server on PORT + 1 and a client C, both
#   compressing with ENet's range coder (ENetConnection.compress): C -> server hello(7, "compressed ☃
#   compressed ☃", Vector2(0.5, 4), [true, null], {"n": -1}), server -> C big(2000 bytes, byte i =
#   i & 255); C leaves, the server closes.
# Prints "ID A <id>", "ID B <id>", "ID C <id>", "SENT ..." and "GOT <receiver> <sender> <method> <args>" lines and
# "CAPTURE-DONE" at the end.
#
# Usage: tests/godot/godot4 DIR capture_enet4.gd   (DIR/capture_port.txt holds the port)

const GAME_GD := """extends Node
@rpc("any_peer") func hello(i, s, v, a, d): Engine.get_main_loop().got(self, "hello", [i, s, v, a, d])
@rpc("any_peer") func big(b): Engine.get_main_loop().got(self, "big", [b.size(), b.slice(0, 8)])
@rpc("any_peer", "call_remote", "unreliable") func unrel(i, f): Engine.get_main_loop().got(self, "unrel", [i, f])
@rpc("any_peer", "call_remote", "unreliable") func unrel_big(b): Engine.get_main_loop().got(self, "unrel_big", [b.size(), b.slice(0, 8)])
@rpc("any_peer", "call_remote", "unreliable_ordered", 2) func ordered(s): Engine.get_main_loop().got(self, "ordered", [s])
@rpc("any_peer", "call_remote", "reliable", 3) func chan3(x): Engine.get_main_loop().got(self, "chan3", [x])
"""

var port := 0
var roots := {}    # "S" / "A" / "B" -> root node
var peers := {}    # "S" / "A" / "B" -> ENetMultiplayerPeer
var steps := []
var step_i := 0
var next_at := 0
var started := false
var deadline := 0

func _initialize() -> void:
	var f := FileAccess.open("res://capture_port.txt", FileAccess.READ)
	port = int(f.get_as_text().strip_edges())
	f = FileAccess.open("res://capture_game4.gd", FileAccess.WRITE)
	f.store_string(GAME_GD)
	f.close()

func pattern(n: int, mul: int, add: int) -> PackedByteArray:
	var b := PackedByteArray()
	b.resize(n)
	for i in n:
		b[i] = (i * mul + add) & 255
	return b

func _make(key: String, root_name: String) -> void:
	var r := Node.new()
	r.name = root_name
	root.add_child(r)
	var mp := SceneMultiplayer.new()
	set_multiplayer(mp, r.get_path())
	var g := Node.new()
	g.name = "Game"
	g.set_script(load("res://capture_game4.gd"))
	r.add_child(g)
	roots[key] = r

func game(key: String) -> Node:
	return roots[key].get_node("Game")

func got(node: Node, what: String, args: Array) -> void:
	print("GOT %d %d %s %s" % [node.multiplayer.get_unique_id(), node.multiplayer.get_remote_sender_id(), what, var_to_str(args).replace("\n", " ")])

func _setup() -> void:
	_make("S", "Server")
	_make("A", "ClientA")
	_make("B", "ClientB")
	var s := ENetMultiplayerPeer.new()
	if s.create_server(port) != OK:
		print("CAPTURE-FAIL create_server %d" % port)
		quit(1)
		return
	roots["S"].multiplayer.multiplayer_peer = s
	peers["S"] = s
	for k in ["A", "B"]:
		var c := ENetMultiplayerPeer.new()
		c.create_client("127.0.0.1", port)
		roots[k].multiplayer.multiplayer_peer = c
		peers[k] = c
		print("ID %s %d" % [k, c.get_unique_id()])
	steps = [
		["connected", func(): return roots["S"].multiplayer.get_peers().size() == 2 and roots["A"].multiplayer.get_peers().size() == 2 and roots["B"].multiplayer.get_peers().size() == 2],
		["hello", func():
			game("A").rpc_id(1, "hello", 42, "héllo ☃", Vector2(1.5, -2.25), [1, "two", 3.0], {"k": true})
			print("SENT A hello")
			return true],
		["big", func():
			game("S").rpc_id(peers["A"].get_unique_id(), "big", pattern(5000, 7, 3))
			print("SENT S big 5000")
			return true],
		["unrel", func():
			game("A").rpc_id(1, "unrel", 7, 2.5)
			print("SENT A unrel")
			return true],
		["unrel_big", func():
			game("B").rpc_id(1, "unrel_big", pattern(3000, 13, 1))
			print("SENT B unrel_big 3000")
			return true],
		["ordered", func():
			game("B").rpc_id(1, "ordered", "seq")
			game("S").rpc_id(peers["B"].get_unique_id(), "chan3", -1234567890123)
			print("SENT B ordered, S chan3")
			return true],
		["leave_b", func():
			peers["B"].close()
			print("SENT B close")
			return true],
		["leave_a", func():
			peers["A"].close()
			print("SENT A close")
			return true],
		["close", func():
			peers["S"].close()
			return true],
		# A second server on PORT + 1, it and its client compressing with ENet's range coder.
		["compressed_setup", func():
			_make("S2", "Server2")
			_make("C", "ClientC")
			var s2 := ENetMultiplayerPeer.new()
			s2.create_server(port + 1)
			s2.host.compress(ENetConnection.COMPRESS_RANGE_CODER)
			roots["S2"].multiplayer.multiplayer_peer = s2
			peers["S2"] = s2
			var c := ENetMultiplayerPeer.new()
			c.create_client("127.0.0.1", port + 1)
			c.host.compress(ENetConnection.COMPRESS_RANGE_CODER)
			roots["C"].multiplayer.multiplayer_peer = c
			peers["C"] = c
			print("ID C %d" % c.get_unique_id())
			return true],
		["compressed_connected", func(): return roots["S2"].multiplayer.get_peers().size() == 1 and roots["C"].multiplayer.get_peers().size() == 1],
		["compressed_rpcs", func():
			game("C").rpc_id(1, "hello", 7, "compressed ☃ compressed ☃", Vector2(0.5, 4), [true, null], {"n": -1})
			game("S2").rpc_id(peers["C"].get_unique_id(), "big", pattern(2000, 1, 0))
			print("SENT C hello, S2 big 2000")
			return true],
		["compressed_close", func():
			peers["C"].close()
			return true],
		["compressed_close_server", func():
			peers["S2"].close()
			return true],
	]

func _process(_delta: float) -> bool:
	if not started:
		started = true
		deadline = Time.get_ticks_msec() + 20000
		_setup()
		next_at = Time.get_ticks_msec() + 100
		return false
	if Time.get_ticks_msec() > deadline:
		print("CAPTURE-TIMEOUT at step %d" % step_i)
		return true
	if Time.get_ticks_msec() < next_at:
		return false
	if step_i >= steps.size():
		print("CAPTURE-DONE")
		return true
	if steps[step_i][1].call():
		step_i += 1
		next_at = Time.get_ticks_msec() + 300
	return false
