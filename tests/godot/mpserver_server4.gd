extends SceneTree
# A Godot 4 server running the same script as multiplayer/examples/echo_server.rs: /root/Main with
# echo(value) (@rpc("any_peer", "call_remote", "reliable")), answered by echoed(value)
# (@rpc("authority", "call_remote", "reliable")) to the caller. What the crate's server is compared
# with (packets, by mpserver_client4.gd with record=1) and measured against (benches/mp_server.sh).
#
# Usage: tests/godot/godot4 DIR mpserver_server4.gd
#   reads DIR/mpserver_server.cfg, lines key=value: transport=enet|ws  port=N  seconds=N (run time)
#   prints "SERVER-READY <port>", one "peer <id> joined|left" line per peer, and at the end
#   "SERVER-DONE echoes=<n>"; stops after `seconds` or when DIR/stop exists.

const MAIN_GD := """extends Node
var echoes := 0
@rpc("any_peer", "call_remote", "reliable")
func echo(value):
	echoes += 1
	echoed.rpc_id(multiplayer.get_remote_sender_id(), value)
@rpc("authority", "call_remote", "reliable")
func echoed(value):
	pass
"""

var cfg := {}
var main: Node
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
	if err != OK:
		print("SERVER-FAILED %d" % err)
		quit(1)
		return
	print("SERVER-READY %d" % port)

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
