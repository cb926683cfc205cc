extends SceneTree
# A short Godot 4 replication session over ENet on loopback, for tests/godot/capture_enet.sh to
# record with tcpdump (`capture_enet.sh rep4`: tests/data/captures/godot4_replication.pcap).
#
# ONE headless process holds a server (/root/Server, peer 1) and a client (/root/Client), each its
# own SceneMultiplayer with its own ENetMultiplayerPeer over 127.0.0.1:PORT (PORT read from
# res://capture_port.txt). Both have /root/<root>/Game/Units and a MultiplayerSpawner
# Game/Spawner (spawn_path ../Units) for res://rep_unit.tscn: a Node2D "Unit" (script
# rep_unit.gd: `speed`) with a MultiplayerSynchronizer "Sync" (replication and delta interval
# 0.1 s) whose config is position (spawn, always: SYNC) and speed (spawn, on change: DELTA).
# The scripted session:
#   connect; the server adds a Unit at position Vector2(1.5, -2), speed 7 (SPAWN with both);
#   position = Vector2(10, 20), speed = 300; position = Vector2(-3, 4.5), speed = -5; the server
#   frees the Unit (DESPAWN); the client leaves, the server closes.
# Prints "ID C <id>", "SENT ..." and "GOT <what> <values>" lines for what the client's Unit got,
# and "CAPTURE-DONE" at the end.
#
# Usage: tests/godot/godot4 DIR capture_rep4.gd   (DIR/capture_port.txt holds the port)

const UNIT_GD := """extends Node2D
var speed := 0
func _ready():
	if multiplayer.get_unique_id() != 1:
		Engine.get_main_loop().got("spawned", [position, speed])
		$Sync.synchronized.connect(func(): Engine.get_main_loop().got("synchronized", [position]))
		$Sync.delta_synchronized.connect(func(): Engine.get_main_loop().got("delta_synchronized", [speed]))
"""

var port := 0
var roots := {}    # "S" / "C" -> root node
var peers := {}    # "S" / "C" -> ENetMultiplayerPeer
var steps := []
var step_i := 0
var next_at := 0
var started := false
var deadline := 0
var last_got := ""

func _initialize() -> void:
	Engine.max_fps = 60
	var f := FileAccess.open("res://capture_port.txt", FileAccess.READ)
	port = int(f.get_as_text().strip_edges())
	f = FileAccess.open("res://rep_unit.gd", FileAccess.WRITE)
	f.store_string(UNIT_GD)
	f.close()
	var u := Node2D.new()
	u.name = "Unit"
	u.set_script(load("res://rep_unit.gd"))
	var s := MultiplayerSynchronizer.new()
	s.name = "Sync"
	s.replication_interval = 0.1
	s.delta_interval = 0.1
	var c := SceneReplicationConfig.new()
	for p in [[".:position", SceneReplicationConfig.REPLICATION_MODE_ALWAYS], [".:speed", SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE]]:
		c.add_property(NodePath(p[0]))
		c.property_set_spawn(NodePath(p[0]), true)
		c.property_set_replication_mode(NodePath(p[0]), p[1])
	s.replication_config = c
	u.add_child(s)
	s.owner = u
	var ps := PackedScene.new()
	ps.pack(u)
	ResourceSaver.save(ps, "res://rep_unit.tscn")
	u.free()

func _make(key: String, root_name: String) -> void:
	var r := Node.new()
	r.name = root_name
	root.add_child(r)
	set_multiplayer(SceneMultiplayer.new(), r.get_path())
	var g := Node.new()
	g.name = "Game"
	r.add_child(g)
	var units := Node.new()
	units.name = "Units"
	g.add_child(units)
	var sp := MultiplayerSpawner.new()
	sp.name = "Spawner"
	sp.spawn_path = NodePath("../Units")
	sp.add_spawnable_scene("res://rep_unit.tscn")
	g.add_child(sp)
	roots[key] = r

func got(what: String, values: Array) -> void:
	last_got = "%s %s" % [what, var_to_str(values).replace("\n", " ")]
	print("GOT ", last_got)

func unit() -> Node2D:
	return roots["S"].get_node("Game/Units/Unit")

# A step that sets the server's Unit, then waits until the client's Unit has both values.
func _set_step(pos: Vector2, speed: int) -> Array:
	var set := [false]
	return [func():
		if not set[0]:
			unit().position = pos
			unit().speed = speed
			print("SENT position %s speed %d" % [pos, speed])
			set[0] = true
		var c: Node2D = roots["C"].get_node_or_null("Game/Units/Unit")
		return c != null and c.position == pos and c.speed == speed]

func _setup() -> void:
	_make("S", "Server")
	_make("C", "Client")
	var s := ENetMultiplayerPeer.new()
	if s.create_server(port) != OK:
		print("CAPTURE-FAIL create_server %d" % port)
		quit(1)
		return
	roots["S"].multiplayer.multiplayer_peer = s
	peers["S"] = s
	var c := ENetMultiplayerPeer.new()
	c.create_client("127.0.0.1", port)
	roots["C"].multiplayer.multiplayer_peer = c
	peers["C"] = c
	print("ID C %d" % c.get_unique_id())
	steps = [
		func(): return roots["S"].multiplayer.get_peers().size() == 1 and roots["C"].multiplayer.get_peers().size() == 1,
		func():
			var u: Node2D = load("res://rep_unit.tscn").instantiate()
			u.position = Vector2(1.5, -2)
			u.speed = 7
			roots["S"].get_node("Game/Units").add_child(u, true)
			print("SENT spawn")
			return true,
		func(): return roots["C"].get_node_or_null("Game/Units/Unit") != null,
		_set_step(Vector2(10, 20), 300)[0],
		_set_step(Vector2(-3, 4.5), -5)[0],
		func():
			unit().queue_free()
			print("SENT despawn")
			return true,
		func(): return roots["C"].get_node_or_null("Game/Units/Unit") == null,
		func():
			peers["C"].close()
			return true,
		func():
			peers["S"].close()
			return true,
	]

func _process(_delta: float) -> bool:
	if not started:
		started = true
		deadline = Time.get_ticks_msec() + 15000
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
	if steps[step_i].call():
		step_i += 1
		next_at = Time.get_ticks_msec() + 300
	return false
