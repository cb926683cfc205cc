extends SceneTree
# Injects packets built outside the engine into a Godot 4 SceneMultiplayer server (peer 1,
# /root/Server) as if peer 2 had sent them, one per frame, and logs what the server's scripts get
# and every packet the server sends back.
#
# Usage: tests/godot/godot4 DIR mp_inject4.gd
#   reads  DIR/mp_inject.tsv: lines  name<TAB>hex(packet)
#   writes DIR/mp_inject_out.tsv:    out<TAB>name<TAB>to<TAB>hex(packet)      a packet the server sent
#                                    got<TAB>name<TAB>sender<TAB>what<TAB>hex(var_to_str(arg)),...
#   (name: the injected packet being handled), and prints MP-INJECT-DONE.
# The project: Game (mp_game.gd's @rpc methods, and native_m by Node.rpc_config), Game/Wide (300
# @rpc methods m000..m299), Game/Spawner (authority 2, spawning res://mp_bullet.tscn, whose
# synchronizer has authority 2 too, or custom "Rock" nodes), as in mp_record4.gd.

class LoopPeer:
	extends MultiplayerPeerExtension
	var inbox := []
	var out := []
	var target := 0
	var channel := 0
	var mode := MultiplayerPeer.TRANSFER_MODE_RELIABLE

	func _get_available_packet_count() -> int:
		return inbox.size()

	func _get_max_packet_size() -> int:
		return 1 << 24

	func _get_packet_script() -> PackedByteArray:
		return inbox.pop_front()

	func _get_packet_peer() -> int:
		return 2

	func _get_packet_channel() -> int:
		return 0

	func _get_packet_mode() -> MultiplayerPeer.TransferMode:
		return MultiplayerPeer.TRANSFER_MODE_RELIABLE

	func _put_packet_script(buffer: PackedByteArray) -> Error:
		out.append([target, buffer])
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
		return true

	func _poll() -> void:
		pass

	func _close() -> void:
		pass

	func _disconnect_peer(_p: int, _force: bool) -> void:
		pass

	func _get_unique_id() -> int:
		return 1

	func _get_connection_status() -> MultiplayerPeer.ConnectionStatus:
		return MultiplayerPeer.CONNECTION_CONNECTED

	func _is_server_relay_supported() -> bool:
		return true

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
func _got(m, args): Engine.get_main_loop().got(m, args)
"""

const BULLET_GD := """extends Node2D
var speed := 0
var hp := 100
var tag := "new"
var flag := false
var big := 0
func _enter_tree():
	set_multiplayer_authority(2)
func _ready():
	Engine.get_main_loop().got("ready", [position, speed, flag])
	$Sync.synchronized.connect(func(): Engine.get_main_loop().got("synchronized", [position, tag]))
	$Sync.delta_synchronized.connect(func(): Engine.get_main_loop().got("delta_synchronized", [speed, hp, big]))
"""

var peer := LoopPeer.new()
var mp := SceneMultiplayer.new()
var inputs := []
var lines := PackedStringArray()
var current := "setup"
var started := false
var i := 0

func _write(path: String, text: String) -> void:
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string(text)
	f.close()

func _wide_source() -> String:
	var s := "extends Node\n"
	for k in 300:
		s += "@rpc(\"any_peer\") func m%03d(a): Engine.get_main_loop().got(\"m%03d\", [a])\n" % [k, k]
	return s

func _initialize() -> void:
	_write("res://mp_game.gd", GAME_GD)
	_write("res://mp_wide.gd", _wide_source())
	_write("res://mp_bullet_in.gd", BULLET_GD)
	var b := Node2D.new()
	b.name = "Bullet"
	b.set_script(load("res://mp_bullet_in.gd"))
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	b.add_child(s)
	s.owner = b
	var c := SceneReplicationConfig.new()
	for p in [[".:position", true, 1], [".:speed", true, 2], [".:hp", false, 2], [".:tag", false, 1], [".:flag", true, 0], [".:big", false, 2]]:
		var np := NodePath(p[0])
		c.add_property(np)
		c.property_set_spawn(np, p[1])
		c.property_set_replication_mode(np, p[2])
	s.replication_config = c
	var ps := PackedScene.new()
	ps.pack(b)
	ResourceSaver.save(ps, "res://mp_bullet_in.tscn")
	b.free()
	for line in FileAccess.get_file_as_string("res://mp_inject.tsv").split("\n", false):
		var f := line.split("\t")
		inputs.append([f[0], f[1].hex_decode()])
	set_multiplayer_poll_enabled(false)

func _setup() -> void:
	var r := Node.new()
	r.name = "Server"
	root.add_child(r)
	set_multiplayer(mp, r.get_path())
	mp.server_relay = true
	mp.auth_callback = func(sender: int, data: PackedByteArray):
		got_as(sender, "auth", [data])
		mp.complete_auth(sender)
	mp.peer_packet.connect(func(sender: int, data: PackedByteArray): got_as(sender, "peer_packet", [data]))
	var game := Node.new()
	game.name = "Game"
	game.set_script(load("res://mp_game.gd"))
	r.add_child(game)
	game.rpc_config("native_m", {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER})
	var wide := Node.new()
	wide.name = "Wide"
	wide.set_script(load("res://mp_wide.gd"))
	game.add_child(wide)
	var spawned := Node.new()
	spawned.name = "Spawned"
	game.add_child(spawned)
	var sp := MultiplayerSpawner.new()
	sp.name = "Spawner"
	sp.spawn_path = NodePath("../Spawned")
	sp.add_spawnable_scene("res://mp_bullet_in.tscn")
	sp.spawn_function = func(data: Variant) -> Node:
		var n := Node2D.new()
		n.name = "Rock"
		n.position = Vector2(data["x"], 0)
		return n
	sp.spawned.connect(func(n: Node): got_as(0, "spawned", [n.name, n.position]))
	sp.despawned.connect(func(n: Node): got_as(0, "despawned", [n.name]))
	game.add_child(sp)
	sp.set_multiplayer_authority(2)
	mp.multiplayer_peer = peer
	peer.peer_connected.emit(2)

func got(what: String, args: Array) -> void:
	got_as(mp.get_remote_sender_id(), what, args)

func got_as(sender: int, what: String, args: Array) -> void:
	var texts := PackedStringArray()
	for a in args:
		texts.append(var_to_str(a).to_utf8_buffer().hex_encode())
	lines.append("got\t%s\t%d\t%s\t%s" % [current, sender, what, ",".join(texts)])

func _flush_out() -> void:
	for o in peer.out:
		lines.append("out\t%s\t%d\t%s" % [current, o[0], o[1].hex_encode()])
	peer.out.clear()

func _process(_delta: float) -> bool:
	if not started:
		started = true
		_setup()
		_flush_out()
		return false
	if i >= inputs.size():
		mp.poll()
		_flush_out()
		_write("res://mp_inject_out.tsv", "\n".join(lines) + "\n")
		print("MP-INJECT-DONE %d" % inputs.size())
		return true
	current = inputs[i][0]
	peer.inbox.append(inputs[i][1])
	i += 1
	mp.poll()
	_flush_out()
	return false
