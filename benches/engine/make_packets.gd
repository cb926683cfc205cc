# Writes the packets of the side-by-side benchmark (benches/vs_engine.sh) with the engine's own
# var_to_bytes, into the directory given as the first user argument (after `--`), or res://.
#   game_state.bin   {"tick": 123456, "entities": [10 000 × {"id", "name", "pos", "vel", "hp", "tags"}]}
#                    the shape of benches/common/mod.rs's generator (about 1.8 MB)
#   input_packet.bin a client's per-frame input: 8 mixed fields (about 200 bytes)
extends SceneTree

func entity(i: int) -> Dictionary:
	var tags := PackedStringArray(["npc" if i % 5 == 0 else "player", "team_%d" % (i % 4)])
	if i % 10 == 3:
		tags.append("boss")
	return {
		"id": i,
		"name": "entity_%d" % i,
		"pos": Vector3(float(i % 1000) * 0.125 - 60.0, float(i % 37) * 0.5, float((i * 7) % 1000) * 0.125 - 60.0),
		"vel": Vector3(float(i % 11) * 0.0625 - 0.3125, 0.0, float(i % 13) * 0.0625 - 0.375),
		"hp": float(i % 401) * 0.25,
		"tags": tags,
	}

func write(path: String, v: Variant) -> int:
	var bytes := var_to_bytes(v)
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_buffer(bytes)
	f.close()
	return bytes.size()

func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var dir: String = args[0] if args.size() > 0 else "res://"
	var entities := []
	for i in 10000:
		entities.append(entity(i))
	var state := {"tick": 123456, "entities": entities}
	var n1 := write(dir.path_join("game_state.bin"), state)
	var input := {
		"seq": 123456,
		"tick": 987654,
		"move": Vector2(0.5, -1.0),
		"aim": Vector3(0.25, 0.5, 0.75),
		"buttons": 21,
		"jump": true,
		"name": "player_one_with_a_name",
		"ts": 1234.5678,
	}
	var n2 := write(dir.path_join("input_packet.bin"), input)
	print("make_packets: wrote game_state.bin (%d bytes), input_packet.bin (%d bytes)" % [n1, n2])
	quit()
