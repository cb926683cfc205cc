extends SceneTree
# Records every packet three SceneMultiplayer instances exchange in ONE headless Godot 4 process:
# a server (peer 1, /root/Server) and two clients (peers 2 and 3, /root/ClientA, /root/ClientB),
# joined by LoopPeer, a GDScript MultiplayerPeerExtension that hands each packet to the target's
# inbox and logs it. A scripted scenario runs step by step, polling the three instances in a fixed
# order every frame: authentication, RPCs with arguments of every type (none, one
# PackedByteArray, ints of every width, bools, reliable / unreliable / ordered, channels, 8- and
# 16-bit node and method ids, 32-bit ids when some peers have not confirmed a path, inline paths),
# the path cache, server relay (client to client, broadcast, exclusion) with ADD_PEER / DEL_PEER,
# raw bytes, spawns from a scene and custom spawns with spawn state, synchronizers with "always"
# and "on change" properties (SYNC and DELTA), despawns.
#
# Usage: tests/godot/godot4 DIR mp_record4.gd   (writes DIR/mp4_packets.tsv; prints MP-DONE)
# Output lines (TAB-separated, hex lowercase):
#   # engine <version>
#   pkt  seq  step  from  to  channel  mode  hex(packet)            mode: 0 unreliable, 1 ordered, 2 reliable
#   got  seq  receiver  sender  what  hex(var_to_str(arg)),...    what the receiver's script got, and
#                                                                 during which packet (seq) it got it
#                                                                 (0: not during a packet)
# Peer 9 is a sink: the server believes it connected (to burn path cache ids up to 16 bits); nothing
# runs there and packets to it are not logged.

const OUT := "res://mp4_packets.tsv"
const SINK := 9

class Hub:
	extends RefCounted
	var inbox := {}        # peer id -> Array of [seq, from, channel, mode, bytes]
	var lines := PackedStringArray()
	var seq := 0
	var step := "setup"
	var current := {}      # peer id -> seq of the packet being processed

	func deliver(from: int, to: int, channel: int, mode: int, bytes: PackedByteArray) -> void:
		if to == SINK:
			return
		seq += 1
		lines.append("pkt\t%d\t%s\t%d\t%d\t%d\t%d\t%s" % [seq, step, from, to, channel, mode, bytes.hex_encode()])
		inbox[to].append([seq, from, channel, mode, bytes])

class LoopPeer:
	extends MultiplayerPeerExtension
	var id := 0
	var hub: Hub
	var peers := []        # who this peer can reach directly
	var target := 0
	var channel := 0
	var mode := MultiplayerPeer.TRANSFER_MODE_RELIABLE

	func _init(p_id: int, p_hub: Hub) -> void:
		id = p_id
		hub = p_hub
		hub.inbox[id] = []

	func _get_available_packet_count() -> int:
		return hub.inbox[id].size()

	func _get_max_packet_size() -> int:
		return 1 << 24

	func _get_packet_script() -> PackedByteArray:
		var p: Array = hub.inbox[id].pop_front()
		hub.current[id] = p[0]
		return p[4]

	func _get_packet_peer() -> int:
		return hub.inbox[id][0][1]

	func _get_packet_channel() -> int:
		return hub.inbox[id][0][2]

	func _get_packet_mode() -> MultiplayerPeer.TransferMode:
		return hub.inbox[id][0][3]

	func _put_packet_script(buffer: PackedByteArray) -> Error:
		for p in peers:
			if target == 0 or target == p or (target < 0 and p != -target):
				hub.deliver(id, p, channel, mode, buffer)
		return OK

	func _set_transfer_channel(c: int) -> void:
		channel = c

	func _get_transfer_channel() -> int:
		return channel

	func _set_transfer_mode(m: MultiplayerPeer.TransferMode) -> void:
		mode = m

	func _get_transfer_mode() -> MultiplayerPeer.TransferMode:
		return mode

	func _set_target_peer(p: int) -> void:
		target = p

	func _is_server() -> bool:
		return id == 1

	func _poll() -> void:
		pass

	func _close() -> void:
		pass

	func _disconnect_peer(p: int, _force: bool) -> void:
		peers.erase(p)

	func _get_unique_id() -> int:
		return id

	func _get_connection_status() -> MultiplayerPeer.ConnectionStatus:
		return MultiplayerPeer.CONNECTION_CONNECTED

	func _is_server_relay_supported() -> bool:
		return true

	func join(p: int) -> void:
		peers.append(p)
		peer_connected.emit(p)

	func leave(p: int) -> void:
		peers.erase(p)
		peer_disconnected.emit(p)

const GAME_GD := """extends Node
@rpc("any_peer") func no_args(): _got("no_args", [])
@rpc("any_peer") func one(v): _got("one", [v])
@rpc("any_peer") func two(a, b): _got("two", [a, b])
@rpc("any_peer") func ints(a, b, c, d, e, f, g, h): _got("ints", [a, b, c, d, e, f, g, h])
@rpc("any_peer") func bools(a, b): _got("bools", [a, b])
@rpc("any_peer") func bytes_opt(b = PackedByteArray([7])): _got("bytes_opt", [b])
@rpc("any_peer", "call_remote", "unreliable") func unrel(a): _got("unrel", [a])
@rpc("any_peer", "call_remote", "unreliable_ordered", 2) func ordered(a): _got("ordered", [a])
@rpc("any_peer", "call_remote", "reliable", 3) func chan3(a): _got("chan3", [a])
func native_m(a): _got("native_m", [a])
func _got(m, args): Engine.get_main_loop().got(self, m, args)
"""

const BULLET_GD := """extends Node2D
var speed := 0
var hp := 100
var tag := "new"
var flag := false
var big := 0
func _ready():
	Engine.get_main_loop().got(self, "ready", [position, speed, flag])
	$Sync.synchronized.connect(func(): Engine.get_main_loop().got(self, "synchronized", [position, tag]))
	$Sync.delta_synchronized.connect(func(): Engine.get_main_loop().got(self, "delta_synchronized", [speed, hp, big]))
"""

const PLAYER_GD := """extends Node
var score := 0
var label := "p"
func _ready():
	$Sync.synchronized.connect(func(): Engine.get_main_loop().got(self, "synchronized", [score]))
	$Sync.delta_synchronized.connect(func(): Engine.get_main_loop().got(self, "delta_synchronized", [label]))
"""

var hub := Hub.new()
var peers := {}    # id -> LoopPeer
var mps := {}      # id -> SceneMultiplayer
var roots := {}    # id -> root node
var steps := []
var step_i := 0
var wait := 0
var game_script: GDScript
var wide_script: GDScript
var bullet_script: GDScript
var player_script: GDScript

func _write(path: String, text: String) -> void:
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string(text)
	f.close()

func _wide_source() -> String:
	var s := "extends Node\n"
	for i in 300:
		s += "@rpc(\"any_peer\") func m%03d(a): Engine.get_main_loop().got(self, \"m%03d\", [a])\n" % [i, i]
	return s

func _initialize() -> void:
	_write("res://mp_game.gd", GAME_GD)
	_write("res://mp_wide.gd", _wide_source())
	_write("res://mp_bullet.gd", BULLET_GD)
	_write("res://mp_player.gd", PLAYER_GD)
	game_script = load("res://mp_game.gd")
	wide_script = load("res://mp_wide.gd")
	bullet_script = load("res://mp_bullet.gd")
	player_script = load("res://mp_player.gd")
	_make_bullet_scene()
	set_multiplayer_poll_enabled(false)

# The root enters the tree after _initialize: the nodes are made at the first frame.
func _setup() -> void:
	for id in [1, 2, 3]:
		var r := Node.new()
		r.name = {1: "Server", 2: "ClientA", 3: "ClientB"}[id]
		root.add_child(r)
		roots[id] = r
		var mp := SceneMultiplayer.new()
		mp.server_relay = true
		mp.auth_callback = _auth.bind(id)
		mps[id] = mp
		set_multiplayer(mp, r.get_path())
		var game := Node.new()
		game.name = "Game"
		game.set_script(game_script)
		r.add_child(game)
		game.rpc_config("native_m", {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER})
		var wide := Node.new()
		wide.name = "Wide"
		wide.set_script(wide_script)
		game.add_child(wide)
		var nodes := Node.new()
		nodes.name = "Nodes"
		game.add_child(nodes)
		for i in 260:
			var n := Node.new()
			n.name = "N%d" % i
			n.set_script(game_script)
			nodes.add_child(n)
		var spawned := Node.new()
		spawned.name = "Spawned"
		game.add_child(spawned)
		var sp := MultiplayerSpawner.new()
		sp.name = "Spawner"
		sp.spawn_path = NodePath("../Spawned")
		sp.add_spawnable_scene("res://mp_bullet.tscn")
		sp.spawn_function = _custom_spawn
		sp.spawned.connect(func(n: Node): got_raw(id, 0, "spawned", [n.name, n.position]))
		game.add_child(sp)
		mp.peer_packet.connect(func(sender: int, data: PackedByteArray): got_raw(id, sender, "peer_packet", [data]))
		var peer := LoopPeer.new(id, hub)
		peers[id] = peer
		mp.multiplayer_peer = peer
	hub.inbox[SINK] = []
	_script()

func _make_bullet_scene() -> void:
	var b := Node2D.new()
	b.name = "Bullet"
	b.set_script(bullet_script)
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	b.add_child(s)
	s.owner = b
	s.replication_config = _config([[".:position", true, 1], [".:speed", true, 2], [".:hp", false, 2], [".:tag", false, 1], [".:flag", true, 0], [".:big", false, 2]])
	var ps := PackedScene.new()
	ps.pack(b)
	ResourceSaver.save(ps, "res://mp_bullet.tscn")
	b.free()

# [path, spawn, mode (0 never, 1 always, 2 on change)] in order.
func _config(props: Array) -> SceneReplicationConfig:
	var c := SceneReplicationConfig.new()
	for p in props:
		var np := NodePath(p[0])
		c.add_property(np)
		c.property_set_spawn(np, p[1])
		c.property_set_replication_mode(np, p[2])
	return c

func _custom_spawn(data: Variant) -> Node:
	var n := Node2D.new()
	n.name = "Rock"
	n.position = Vector2(data["x"], 0)
	return n

func _auth(sender: int, data: PackedByteArray, me: int) -> void:
	got_raw(me, sender, "auth", [data])
	if me == 1:
		mps[1].complete_auth(sender)
	else:
		mps[me].send_auth(1, ("token-%d" % me).to_utf8_buffer())
		mps[me].complete_auth(1)

func got(node: Node, what: String, args: Array) -> void:
	var me: int = node.multiplayer.get_unique_id()
	got_raw(me, node.multiplayer.get_remote_sender_id(), what, args)

func got_raw(me: int, sender: int, what: String, args: Array) -> void:
	var texts := PackedStringArray()
	for a in args:
		texts.append(var_to_str(a).to_utf8_buffer().hex_encode())
	hub.lines.append("got\t%d\t%d\t%d\t%s\t%s" % [hub.current.get(me, 0), me, sender, what, ",".join(texts)])

func game(id: int) -> Node:
	return roots[id].get_node("Game")

func _values() -> Array:
	var neg_zero := "-0.0".to_float()
	var tdict: Dictionary[String, int] = {"k": 1}
	var tarr: Array[int] = [1, 2]
	return [null, true, false, 0, 1, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
		2147483647, -2147483648, 2147483648, -2147483649, 9223372036854775807, -9223372036854775808,
		0.5, 0.1, neg_zero, INF, -INF, NAN, 1e300, "", "héllo ☃",
		Vector2(1.5, -2), Vector2i(3, -4), Rect2(1, 2, 3, 4), Rect2i(1, 2, 3, 4),
		Vector3(1, 2, 3), Vector3i(1, 2, 3), Transform2D(0.5, Vector2(3, 4)),
		Vector4(1, 2, 3, 4), Vector4i(1, 2, 3, 4), Plane(1, 0, 0, 2), Quaternion(0, 0, 0, 1),
		AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)), Basis(), Transform3D(), Projection(),
		Color(0.25, 0.5, 0.75, 1), &"sname", ^"a/b:c", RID(), Callable(), Signal(),
		{"a": 1, 2: [3]}, tdict, [1, "x", null], tarr,
		PackedByteArray([1, 2, 3]), PackedInt32Array([1, -2]), PackedInt64Array([1, 1 << 40]),
		PackedFloat32Array([0.5]), PackedFloat64Array([0.1]), PackedStringArray(["a", ""]),
		PackedVector2Array([Vector2(1, 2)]), PackedVector3Array([Vector3(1, 2, 3)]),
		PackedColorArray([Color(1, 0, 0, 1)]), PackedVector4Array([Vector4(1, 2, 3, 4)])]

# ----- the scenario: [name, action, frames to wait after it] -----
func _script() -> void:
	steps = [
		["connect", _connect, 8],
		["rpc_first", func(): game(1).rpc_id(2, "no_args"), 4],
		["rpc_types", func():
			for v in _values():
				game(1).rpc_id(2, "one", v), 3],
		["rpc_object", func(): game(1).rpc_id(2, "one", game(1)), 3],
		["rpc_forms", func():
			var g := game(1)
			g.rpc_id(2, "no_args")
			g.rpc_id(2, "ints", 0, -128, 127, 128, -32768, 32767, 2147483647, -9223372036854775808)
			g.rpc_id(2, "bools", true, false)
			g.rpc_id(2, "bytes_opt", PackedByteArray([1, 2, 3]))
			g.rpc_id(2, "bytes_opt", PackedByteArray())
			g.rpc_id(2, "two", PackedByteArray([1, 2]), 5)
			g.rpc_id(2, "unrel", 1)
			g.rpc_id(2, "ordered", 2)
			g.rpc_id(2, "chan3", 3)
			g.rpc_id(2, "native_m", "n"), 3],
		["rpc_wide_method", func(): game(1).get_node("Wide").rpc_id(2, "m299", 299), 4],
		["rpc_wide_method_cached", func(): game(1).get_node("Wide").rpc_id(2, "m000", 0), 3],
		["rpc_client_to_server", func(): game(2).rpc_id(1, "two", "from A", Vector2(1, 1)), 4],
		["rpc_broadcast_mixed", func(): game(1).rpc("one", 42), 4],
		["rpc_broadcast_cached", func(): game(1).rpc("one", 43), 3],
		["relay_rpc", func(): game(2).rpc_id(3, "one", "A to B"), 8],
		["relay_rpc_cached", func(): game(2).rpc_id(3, "one", "again"), 6],
		["relay_broadcast", func(): game(2).rpc("bools", false, true), 6],
		["raw", func():
			mps[1].send_bytes(PackedByteArray([1, 2, 3]), 2)
			mps[1].send_bytes(PackedByteArray([4]), 2, MultiplayerPeer.TRANSFER_MODE_UNRELIABLE, 1), 3],
		["relay_raw_all", func(): mps[2].send_bytes(PackedByteArray([5, 6]), 0), 5],
		["relay_raw_except", func(): mps[2].send_bytes(PackedByteArray([7]), -3), 5],
		["sink_join", func():
			# Admitted without authentication: nothing runs at the sink to answer.
			mps[1].auth_callback = Callable()
			peers[1].join(SINK)
			mps[1].auth_callback = _auth.bind(1), 3],
		["burn_ids", func():
			for i in 260:
				game(1).get_node("Nodes/N%d" % i).rpc_id(SINK, "no_args"), 2],
		["sink_leave", func(): peers[1].leave(SINK), 3],
		["rpc_wide_node", func(): game(1).get_node("Nodes/N259").rpc_id(2, "one", 1), 4],
		["rpc_wide_node_cached", func(): game(1).get_node("Nodes/N259").rpc_id(2, "one", 2), 3],
		["spawn_scene", _spawn_bullet, 1],
		["sync_frame", func(): pass, 1],
		["sync_change", func():
			var b := game(1).get_node("Spawned/Bullet")
			b.position = Vector2(10, 20)
			b.tag = "moved"
			b.speed = 300
			b.big = 1 << 40, 1],
		["sync_change2", func():
			var b := game(1).get_node("Spawned/Bullet")
			b.hp = 99
			b.big = -5, 2],
		["despawn", func(): game(1).get_node("Spawned/Bullet").queue_free(), 3],
		["spawn_custom", func(): game(1).get_node("Spawner").spawn({"x": 7.5}), 3],
		["despawn_custom", func(): game(1).get_node("Spawned/Rock").queue_free(), 3],
		["player_sync", _add_players, 2],
		["player_change", func(): roots[1].get_node("Game/Player").label = "changed", 2],
		["player_remove", func():
			for id in [1, 2, 3]:
				roots[id].get_node("Game/Player").queue_free(), 3],
	]

func _connect() -> void:
	peers[1].join(2)
	peers[1].join(3)
	peers[2].join(1)
	peers[3].join(1)
	for id in [1, 2, 3]:
		var mp: SceneMultiplayer = mps[id]
		for p in mp.get_authenticating_peers():
			if id == 1:
				mp.send_auth(p, "hello".to_utf8_buffer())

func _spawn_bullet() -> void:
	var b: Node2D = load("res://mp_bullet.tscn").instantiate()
	b.position = Vector2(1.5, -2)
	b.speed = 7
	b.flag = true
	game(1).get_node("Spawned").add_child(b, true)

func _add_players() -> void:
	for id in [1, 2, 3]:
		var p := Node.new()
		p.name = "Player"
		p.set_script(player_script)
		var s := MultiplayerSynchronizer.new()
		s.name = "Sync"
		s.replication_config = _config([[".:score", false, 1], [".:label", false, 2]])
		p.add_child(s)
		roots[id].get_node("Game").add_child(p)
	roots[1].get_node("Game/Player").score = 70000

func _poll_all() -> void:
	for id in [1, 2, 3]:
		mps[id].poll()
		# What a script gets outside of packet handling (its own calls) has seq 0.
		hub.current.erase(id)

var started := false

func _process(_delta: float) -> bool:
	if not started:
		started = true
		_setup()
		return false
	_poll_all()
	if wait > 0:
		wait -= 1
		return false
	if step_i >= steps.size():
		_finish()
		return true
	var s: Array = steps[step_i]
	hub.step = s[0]
	s[1].call()
	wait = s[2]
	step_i += 1
	return false

func _finish() -> void:
	var out := PackedStringArray()
	out.append("# engine\t" + Engine.get_version_info()["string"])
	out.append_array(hub.lines)
	_write(OUT, "\n".join(out) + "\n")
	print("MP-DONE %d packets" % hub.seq)
