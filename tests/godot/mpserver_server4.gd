extends SceneTree
# A Godot 4 server running the same script as multiplayer/examples/echo_server.rs: /root/Main with
# echo(value) (@rpc("any_peer", "call_remote", "reliable")), answered by echoed(value)
# (@rpc("authority", "call_remote", "reliable")) to the caller. What the crate's server is compared
# with (packets, by mpserver_client4.gd with record=1) and measured against (benches/mp_server.sh).
#
# Usage: tests/godot/godot4 DIR mpserver_server4.gd
#   reads DIR/mpserver_server.cfg, lines key=value: transport=enet|ws  port=N  seconds=N (run time)
#     shared=1: before any peer joins, spawns "Shared" on /root/Main/Spawner (the scene of
#     mpserver_client4.gd's spawn test: position always, hp on change, label never, all spawn
#     properties) with position (7, 8), hp 41, label "renamed": what a late peer is sent
#     scene=1: the scenes of mpserver_client4.gd's scene_sync=1 and custom=1: /root/Main/Board
#     (hp 9, position (3, 4)) with its synchronizer /root/Main/Board/Sync (the server its
#     authority), and "Custom1" spawned with /root/Main/CustomSpawner's spawn_function from
#     {"pos": Vector2(1, 2), "hp": 77}
#     vis=1: /root/Main/Board and its synchronizer as with scene=1 (no custom spawner), the
#     synchronizer not public (public_visibility false): echo("board show") from a peer makes it
#     visible to that peer (set_visibility_for), echo("board hide") hides it from that peer and
#     then sets Board's position to (5, 6) and hp to 10 (each after the echoed answer)
#     cspawn=1: mpserver_client4.gd's client-owned spawners: for each peer that joins,
#     /root/Main/C<id> with a MultiplayerSpawner "Spawner" whose authority is that peer, the
#     shot scene spawnable; what the spawners spawn and despawn is written to DIR/cspawn.txt,
#     "<id> spawned|despawned <name> <position> <hp>" a line
#   prints "SERVER-READY <port>", one "peer <id> joined|left" line per peer, and at the end
#   "SERVER-DONE echoes=<n>"; stops after `seconds` or when DIR/stop exists.

const MAIN_GD := """extends Node
var echoes := 0
@rpc("any_peer", "call_remote", "reliable")
func echo(value):
	echoes += 1
	var from := multiplayer.get_remote_sender_id()
	echoed.rpc_id(from, value)
	if typeof(value) == TYPE_STRING and value.begins_with("board ") and has_node("Board/Sync"):
		get_node("Board/Sync").set_visibility_for(from, value == "board show")
		if value == "board hide":
			get_node("Board").position = Vector2(5, 6)
			get_node("Board").hp = 10
@rpc("authority", "call_remote", "reliable")
func echoed(value):
	pass
"""

const THING_GD := """extends Node2D
@export var hp := 100
@export var label := "thing"
"""

const SHOT_GD := """extends Node2D
@export var hp := 100
func _enter_tree():
	set_multiplayer_authority(get_parent().get_multiplayer_authority(), true)
"""

var cfg := {}
var main: Node
var cspawn_log := PackedStringArray()
var started := false
var deadline := 0

func _initialize() -> void:
	for line in FileAccess.get_file_as_string("res://mpserver_server.cfg").split("\n", false):
		var kv := line.split("=", true, 1)
		if kv.size() == 2:
			cfg[kv[0].strip_edges()] = kv[1].strip_edges()
	var f := FileAccess.open("res://mps_server_main.gd", FileAccess.WRITE)
	f.store_string(MAIN_GD)
	f.close()
	deadline = Time.get_ticks_msec() + int(cfg.get("seconds", "30")) * 1000

func setup() -> void:
	main = Node.new()
	main.name = "Main"
	main.set_script(load("res://mps_server_main.gd"))
	root.add_child(main)
	var mp := get_multiplayer() as SceneMultiplayer
	if cfg.get("shared", "0") == "1":
		spawn_shared()
	if cfg.get("cspawn", "0") == "1":
		setup_shot()
		mp.peer_connected.connect(add_holder)
	mp.peer_connected.connect(func(id): print("peer %d joined" % id))
	mp.peer_disconnected.connect(func(id): print("peer %d left" % id))
	var port := int(cfg["port"])
	var err: Error
	if cfg["transport"] == "enet":
		var e := ENetMultiplayerPeer.new()
		err = e.create_server(port, 4000)
		mp.multiplayer_peer = e
	else:
		var w := WebSocketMultiplayerPeer.new()
		err = w.create_server(port)
		mp.multiplayer_peer = w
	if cfg.get("scene", "0") == "1" or cfg.get("vis", "0") == "1":
		scene()
	if err != OK:
		print("SERVER-FAILED %d" % err)
		quit(1)
		return
	print("SERVER-READY %d" % port)

# The client's spawner and scene (mpserver_client4.gd's setup_spawner), and the node it spawns.
func spawn_shared() -> void:
	var f := FileAccess.open("res://mps_thing.gd", FileAccess.WRITE)
	f.store_string(THING_GD)
	f.close()
	var thing := Node2D.new()
	thing.name = "Thing"
	thing.set_script(load("res://mps_thing.gd"))
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	thing.add_child(s)
	s.owner = thing
	var c := SceneReplicationConfig.new()
	for p in [[".:position", true, SceneReplicationConfig.REPLICATION_MODE_ALWAYS], [".:hp", true, SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE], [".:label", true, SceneReplicationConfig.REPLICATION_MODE_NEVER]]:
		c.add_property(NodePath(p[0]))
		c.property_set_spawn(NodePath(p[0]), p[1])
		c.property_set_replication_mode(NodePath(p[0]), p[2])
	s.replication_config = c
	var ps := PackedScene.new()
	ps.pack(thing)
	ResourceSaver.save(ps, "res://mps_thing.tscn")
	thing.free()
	var spawned := Node.new()
	spawned.name = "Spawned"
	main.add_child(spawned)
	var sp := MultiplayerSpawner.new()
	sp.name = "Spawner"
	sp.spawn_path = NodePath("../Spawned")
	sp.add_spawnable_scene("res://mps_thing.tscn")
	main.add_child(sp)
	var n: Node2D = load("res://mps_thing.tscn").instantiate()
	n.name = "Shared"
	n.position = Vector2(7, 8)
	n.hp = 41
	n.label = "renamed"
	spawned.add_child(n, true)

# cspawn=1: the shot scene of mpserver_client4.gd's setup_shot.
func setup_shot() -> void:
	var f := FileAccess.open("res://mps_shot.gd", FileAccess.WRITE)
	f.store_string(SHOT_GD)
	f.close()
	var shot := Node2D.new()
	shot.name = "Shot"
	shot.set_script(load("res://mps_shot.gd"))
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	shot.add_child(s)
	s.owner = shot
	var c := SceneReplicationConfig.new()
	c.add_property(NodePath(".:position"))
	c.property_set_spawn(NodePath(".:position"), true)
	c.property_set_replication_mode(NodePath(".:position"), SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	c.add_property(NodePath(".:hp"))
	c.property_set_spawn(NodePath(".:hp"), false)
	c.property_set_replication_mode(NodePath(".:hp"), SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	s.replication_config = c
	var ps := PackedScene.new()
	ps.pack(shot)
	ResourceSaver.save(ps, "res://mps_shot.tscn")
	shot.free()

# cspawn=1: peer `id`'s holder and spawner (mpserver_client4.gd's add_holder).
func add_holder(id: int) -> void:
	var h := Node.new()
	h.name = "C%d" % id
	var sp := MultiplayerSpawner.new()
	sp.name = "Spawner"
	sp.spawn_path = NodePath("..")
	sp.add_spawnable_scene("res://mps_shot.tscn")
	h.add_child(sp)
	h.set_multiplayer_authority(id, true)
	main.add_child(h)
	sp.spawned.connect(func(n: Node): cspawn_event("%d spawned %s %s %d" % [id, n.name, str(n.position), n.hp]))
	sp.despawned.connect(func(n: Node): cspawn_event("%d despawned %s %s %d" % [id, n.name, str(n.position), n.hp]))

func cspawn_event(line: String) -> void:
	cspawn_log.append(line)
	var f := FileAccess.open("res://cspawn.txt", FileAccess.WRITE)
	f.store_string("\n".join(cspawn_log) + "\n")
	f.close()

# scene=1 (mpserver_client4.gd's synced_thing and setup_scene); vis=1: the board alone, not public.
func scene() -> void:
	var f := FileAccess.open("res://mps_thing.gd", FileAccess.WRITE)
	f.store_string(THING_GD)
	f.close()
	var board := Node2D.new()
	board.name = "Board"
	board.set_script(load("res://mps_thing.gd"))
	board.position = Vector2(3, 4)
	board.hp = 9
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	var c := SceneReplicationConfig.new()
	c.add_property(NodePath(".:position"))
	c.property_set_spawn(NodePath(".:position"), false)
	c.property_set_replication_mode(NodePath(".:position"), SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	c.add_property(NodePath(".:hp"))
	c.property_set_spawn(NodePath(".:hp"), false)
	c.property_set_replication_mode(NodePath(".:hp"), SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	s.replication_config = c
	if cfg.get("vis", "0") == "1":
		s.public_visibility = false
	board.add_child(s)
	main.add_child(board)
	if cfg.get("scene", "0") != "1":
		return
	var holder := Node.new()
	holder.name = "Customs"
	main.add_child(holder)
	var sp := MultiplayerSpawner.new()
	sp.name = "CustomSpawner"
	sp.spawn_path = NodePath("../Customs")
	sp.spawn_function = func(data):
		var n := Node2D.new()
		n.name = "Custom1"
		n.set_script(load("res://mps_thing.gd"))
		n.position = data["pos"]
		n.hp = data["hp"]
		return n
	main.add_child(sp)
	sp.spawn({"pos": Vector2(1, 2), "hp": 77})

func _process(_delta: float) -> bool:
	if not started:
		started = true
		setup()
		return false
	if Time.get_ticks_msec() > deadline or FileAccess.file_exists("res://stop"):
		print("SERVER-DONE echoes=%d" % main.echoes)
		quit()
		return true
	return false
