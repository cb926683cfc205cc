# Times the engine's own bytes_to_var and var_to_bytes on the packets of the side-by-side
# benchmark (benches/vs_engine.sh), in the directory given as the first user argument (after
# `--`). Each measurement is the best of several runs of a plain GDScript loop, long enough that
# the timer's resolution does not matter. Prints one line per measurement:
#   engine <TAB> packet <TAB> function <TAB> nanoseconds per call
extends SceneTree

const RUNS := 7

func read(path: String) -> PackedByteArray:
	var f := FileAccess.open(path, FileAccess.READ)
	var b := f.get_buffer(f.get_length())
	f.close()
	return b

func time_decode(bytes: PackedByteArray, iters: int) -> float:
	var best := INF
	for r in RUNS:
		var t0 := Time.get_ticks_usec()
		for i in iters:
			var v = bytes_to_var(bytes)
		best = minf(best, float(Time.get_ticks_usec() - t0) * 1000.0 / iters)
	return best

func time_encode(value: Variant, iters: int) -> float:
	var best := INF
	for r in RUNS:
		var t0 := Time.get_ticks_usec()
		for i in iters:
			var b := var_to_bytes(value)
		best = minf(best, float(Time.get_ticks_usec() - t0) * 1000.0 / iters)
	return best

func report(packet: String, function: String, ns: float) -> void:
	print("engine\t%s\t%s\t%.1f" % [packet, function, ns])

func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var dir: String = args[0] if args.size() > 0 else "res://"
	for packet in [["game_state", 20], ["input_packet", 200000]]:
		var bytes := read(dir.path_join(packet[0] + ".bin"))
		var value = bytes_to_var(bytes)
		assert(var_to_bytes(value) == bytes)
		report(packet[0], "bytes_to_var", time_decode(bytes, packet[1]))
		report(packet[0], "var_to_bytes", time_encode(value, packet[1]))
	print("time_engine: done (%s)" % Engine.get_version_info().string)
	quit()
