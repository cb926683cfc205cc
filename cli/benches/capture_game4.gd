extends SceneTree
# Game-like Godot 4 traffic for cli/benches/capture.sh to record with tcpdump (the small-message
# capture tests/data/captures/godot4_game.pcap): ONE headless process holds a server
# (/root/Server, peer 1) and a client (/root/Client), each its own SceneMultiplayer with its own
# ENetMultiplayerPeer over 127.0.0.1:PORT (PORT read from res://capture_port.txt). Every frame for
# FRAMES frames the client sends state(tick, position: Vector3, yaw: float) unreliable and, every
# 10th frame, input(tick, "jump") reliable; the server answers every 5th state with
# snapshot(tick, [position, velocity], {"hp": 100 - tick % 100}) unreliable_ordered on transfer
# channel 1. Prints "CAPTURE-DONE" at the end.
#
# Usage: tests/godot/godot4 DIR capture_game4.gd   (DIR/capture_port.txt holds the port)

const GAME_GD := """extends Node
@rpc("any_peer", "call_remote", "unreliable") func state(t, p, yaw):
	if t % 5 == 0:
		snapshot.rpc_id(multiplayer.get_remote_sender_id(), t, [p, Vector3(0.5, 0, -0.25)], {"hp": 100 - t % 100})
@rpc("any_peer", "call_remote", "reliable") func input(t, action): pass
@rpc("any_peer", "call_remote", "unreliable_ordered", 1) func snapshot(t, pv, d): pass
"""

const FRAMES := 6000

var port := 0
var roots := {}
var peers := {}
var frame := 0
var deadline := 0
var started := false

func _initialize() -> void:
	var f := FileAccess.open("res://capture_port.txt", FileAccess.READ)
	port = int(f.get_as_text().strip_edges())
	f = FileAccess.open("res://capture_bench_game4.gd", FileAccess.WRITE)
	f.store_string(GAME_GD)
	f.close()
	deadline = Time.get_ticks_msec() + 60000

func _setup() -> void:
	for k in ["Server", "Client"]:
		var r := Node.new()
		r.name = k
		root.add_child(r)
		set_multiplayer(SceneMultiplayer.new(), r.get_path())
		var g := Node.new()
		g.name = "Game"
		g.set_script(load("res://capture_bench_game4.gd"))
		r.add_child(g)
		roots[k] = r
	var s := ENetMultiplayerPeer.new()
	s.create_server(port)
	roots["Server"].multiplayer.multiplayer_peer = s
	var c := ENetMultiplayerPeer.new()
	c.create_client("127.0.0.1", port)
	roots["Client"].multiplayer.multiplayer_peer = c
	peers = {"Server": s, "Client": c}

func _process(_delta: float) -> bool:
	if Time.get_ticks_msec() > deadline:
		print("CAPTURE-TIMEOUT at frame %d" % frame)
		return true
	if not started:
		started = true
		_setup()
		return false
	var mp: MultiplayerAPI = roots["Client"].multiplayer
	if frame < FRAMES and mp.get_peers().size() != 1:
		return false
	var g: Node = roots["Client"].get_node("Game")
	if frame < FRAMES:
		var t := frame
		g.state.rpc_id(1, t, Vector3(t * 0.1, 1.5, -t * 0.05), float(t % 360))
		if t % 10 == 0:
			g.input.rpc_id(1, t, "jump")
		OS.delay_usec(500)
	elif frame == FRAMES + 50:
		peers["Client"].close()
	elif frame == FRAMES + 100:
		peers["Server"].close()
		print("CAPTURE-DONE")
		return true
	frame += 1
	return false
