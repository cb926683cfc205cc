# The example server's work (examples/server/) done by Godot 4 itself in GDScript, for the load comparison
# (benches/servers.sh). A single-threaded busy loop, as a GDScript server is written: TCPServer accepts,
# each StreamPeerTCP frame is read as StreamPeer.get_var reads it (the u32 length, the bytes, bytes_to_var:
# get_var would hide the length the reply reports), and answered with put_var of
# {"seq", "type", "size", "echo", "count", "sum"}. Frames over 8 MiB drop the client (what get_var would
# allocate otherwise). Environment: PORT (0 = any), SECONDS_LIMIT (the script quits after that long).
extends SceneTree

func _init():
	var server := TCPServer.new()
	var err := server.listen(int(OS.get_environment("PORT")), "127.0.0.1")
	if err != OK:
		print("cannot listen: %d" % err)
		quit(1)
		return
	print("listening tcp=127.0.0.1:%d pid=%d" % [server.get_local_port(), OS.get_process_id()])
	var end := Time.get_ticks_msec() + int(float(OS.get_environment("SECONDS_LIMIT")) * 1000.0)
	var peers := []
	var seqs := []
	var answered := 0
	while Time.get_ticks_msec() < end:
		while server.is_connection_available():
			var c := server.take_connection()
			c.set_no_delay(true)
			peers.append(c)
			seqs.append(0)
		var i := 0
		while i < peers.size():
			var p: StreamPeerTCP = peers[i]
			p.poll()
			if p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
				peers.remove_at(i)
				seqs.remove_at(i)
				continue
			while p.get_available_bytes() >= 4:
				var n := p.get_u32()
				if n > 8 << 20:
					print("dropped: frame of %d bytes" % n)
					p.disconnect_from_host()
					break
				var data: PackedByteArray = p.get_data(n)[1]
				var v = bytes_to_var(data)
				var count := 0
				var sum := 0.0
				match typeof(v):
					TYPE_ARRAY, TYPE_DICTIONARY, TYPE_PACKED_STRING_ARRAY, TYPE_PACKED_VECTOR2_ARRAY, TYPE_PACKED_VECTOR3_ARRAY, TYPE_PACKED_VECTOR4_ARRAY, TYPE_PACKED_COLOR_ARRAY:
						count = v.size()
					TYPE_PACKED_BYTE_ARRAY, TYPE_PACKED_INT32_ARRAY, TYPE_PACKED_INT64_ARRAY, TYPE_PACKED_FLOAT32_ARRAY, TYPE_PACKED_FLOAT64_ARRAY:
						count = v.size()
						for x in v:
							sum += x
				p.put_var({"seq": seqs[i], "type": typeof(v), "size": n, "echo": v, "count": count, "sum": sum})
				seqs[i] += 1
				answered += 1
			i += 1
	print("stopped: answered %d" % answered)
	quit()
