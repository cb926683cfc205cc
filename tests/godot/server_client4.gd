# Godot 4 client of examples/server/ (run by tests/server/server_live.rs).
# Reads res://client_config.txt (tcp_port<TAB>ws_port) and res://client_values.tsv (name<TAB>hex of an
# engine-written value), then over StreamPeerTCP.put_var, PacketPeerStream and WebSocketPeer.put_var sends every
# value, a 4 MB PackedFloat32Array and many small packets, and checks every reply exactly: the server's reply
# bytes (read raw on StreamPeerTCP) must equal var_to_bytes() of the reply this script expects, and the replies
# read with get_var must re-encode to the same bytes. Prints one line per failure ("FAIL ...") and a summary
# "CLIENT-DONE <checked> <failures>"; also probes the engine's own buffer limits ("LIMIT ..." lines).
extends SceneTree

const TIMEOUT_MS := 60000
var failures := 0
var checked := 0
var deadline := 0

func fail(what: String) -> void:
	failures += 1
	if failures <= 50:
		print("FAIL ", what)

func expected_reply(seq: int, v) -> Dictionary:
	var count := 0
	var sum := 0.0
	match typeof(v):
		TYPE_ARRAY, TYPE_DICTIONARY, TYPE_PACKED_STRING_ARRAY, TYPE_PACKED_VECTOR2_ARRAY, TYPE_PACKED_VECTOR3_ARRAY, TYPE_PACKED_VECTOR4_ARRAY, TYPE_PACKED_COLOR_ARRAY:
			count = v.size()
		TYPE_PACKED_BYTE_ARRAY, TYPE_PACKED_INT32_ARRAY, TYPE_PACKED_INT64_ARRAY, TYPE_PACKED_FLOAT32_ARRAY, TYPE_PACKED_FLOAT64_ARRAY:
			count = v.size()
			for x in v:
				sum += x
	return {"seq": seq, "type": typeof(v), "size": var_to_bytes(v).size(), "echo": v, "count": count, "sum": sum}

func check_bytes(where: String, got: PackedByteArray, seq: int, v) -> void:
	checked += 1
	var want := var_to_bytes(expected_reply(seq, v))
	if got != want:
		fail("%s seq %d: reply bytes differ (%d vs %d bytes): got %s want %s" % [where, seq, got.size(), want.size(), got.slice(0, 96).hex_encode(), want.slice(0, 96).hex_encode()])

func check_value(where: String, got, seq: int, v) -> void:
	check_bytes(where, var_to_bytes(got), seq, v)

func timed_out(where: String) -> bool:
	if Time.get_ticks_msec() > deadline:
		fail("%s: timed out" % where)
		return true
	return false

# ---- StreamPeerTCP.put_var ----

func tcp_connect(port: int) -> StreamPeerTCP:
	var p := StreamPeerTCP.new()
	if p.connect_to_host("127.0.0.1", port) != OK:
		fail("tcp connect_to_host")
		return null
	while p.get_status() == StreamPeerTCP.STATUS_CONNECTING:
		p.poll()
		if timed_out("tcp connect"):
			return null
		OS.delay_usec(1000)
	p.poll()
	if p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		fail("tcp status %d" % p.get_status())
		return null
	p.set_no_delay(true)
	return p

# Reads one raw reply frame (u32 length + bytes), as get_var would, without decoding.
func tcp_read_frame(p: StreamPeerTCP) -> PackedByteArray:
	while p.get_available_bytes() < 4:
		p.poll()
		if timed_out("tcp read") or p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			return PackedByteArray()
		OS.delay_usec(100)
	var n := p.get_u32()
	var r := p.get_data(n)
	if r[0] != OK:
		fail("tcp get_data error %d" % r[0])
		return PackedByteArray()
	return r[1]

func run_tcp(port: int, values: Array) -> void:
	var p := tcp_connect(port)
	if p == null:
		return
	# Pipelined in windows of 64 so neither side's socket buffer fills up.
	var seq := 0
	var sent := 0
	var i := 0
	while i < values.size():
		var window: Array = values.slice(i, i + 64)
		for v in window:
			p.put_var(v)  # StreamPeer.put_var returns nothing in Godot 4
			sent += 4 + var_to_bytes(v).size()
		for v in window:
			check_bytes("tcp", tcp_read_frame(p), seq, v)
			seq += 1
		i += window.size()
	# get_var (decoded) on a few, too
	for v in values.slice(0, 20):
		p.put_var(v)
		sent += 4 + var_to_bytes(v).size()
		check_value("tcp get_var", p.get_var(), seq, v)
		seq += 1
	# A malformed frame (unknown type id 255) is answered with an error naming its absolute stream offset
	# (the value starts after every frame sent so far and its own 4-byte prefix); the stream goes on.
	p.put_data(PackedByteArray([4, 0, 0, 0, 255, 0, 0, 0]))
	var err = bytes_to_var(tcp_read_frame(p))
	checked += 1
	var want_err := {"seq": seq, "error": "unknown type id 255 at offset %d" % (sent + 4)}
	if var_to_bytes(err) != var_to_bytes(want_err):
		fail("tcp malformed reply: %s, want %s" % [str(err), str(want_err)])
	seq += 1
	p.put_var("after the error")
	check_bytes("tcp after error", tcp_read_frame(p), seq, "after the error")
	p.disconnect_from_host()

# ---- PacketPeerStream over StreamPeerTCP ----

func run_pps(port: int, small: Array, big) -> void:
	var p := tcp_connect(port)
	if p == null:
		return
	var pps := PacketPeerStream.new()
	pps.stream_peer = p
	var seq := 0
	for v in small:
		pps.put_var(v)
		while pps.get_available_packet_count() == 0:
			p.poll()
			if timed_out("pps read"):
				return
			OS.delay_usec(100)
		check_value("pps", pps.get_var(), seq, v)
		seq += 1
	# The default 64 KiB buffers cannot carry the 4 MB value: put_var refuses it.
	var refused := pps.put_var(big)
	print("LIMIT godot4 PacketPeerStream.put_var(4 MB) with output_buffer_max_size=%d: error %d" % [pps.output_buffer_max_size, refused])
	if refused == OK:
		fail("pps put_var of 4 MB with the default output buffer was accepted")
		return
	# Raised (the reply is 4 MB + 70 bytes), it goes through.
	pps.output_buffer_max_size = 8 << 20
	pps.input_buffer_max_size = 8 << 20
	if pps.put_var(big) != OK:
		fail("pps put_var 4 MB with raised buffers")
		return
	while pps.get_available_packet_count() == 0:
		p.poll()
		if timed_out("pps big read"):
			return
		OS.delay_usec(1000)
	check_value("pps big", pps.get_var(), seq, big)
	seq += 1
	# Receiving: a reply larger than the default 64 KiB input buffer never becomes a packet.
	pps.input_buffer_max_size = 65532
	pps.put_var(big)
	var t := Time.get_ticks_msec() + 2000
	while pps.get_available_packet_count() == 0 and Time.get_ticks_msec() < t:
		p.poll()
		OS.delay_usec(1000)
	print("LIMIT godot4 PacketPeerStream receiving a 4 MB reply with input_buffer_max_size=%d: packets after 2 s: %d" % [pps.input_buffer_max_size, pps.get_available_packet_count()])
	if pps.get_available_packet_count() != 0:
		fail("a 4 MB packet arrived through the default 64 KiB input buffer")
	p.disconnect_from_host()

# ---- WebSocketPeer.put_var ----

func ws_open(port: int, buffer: int) -> WebSocketPeer:
	var ws := WebSocketPeer.new()
	ws.inbound_buffer_size = buffer
	ws.outbound_buffer_size = buffer
	if ws.connect_to_url("ws://127.0.0.1:%d" % port) != OK:
		fail("ws connect_to_url")
		return null
	while ws.get_ready_state() == WebSocketPeer.STATE_CONNECTING:
		ws.poll()
		if timed_out("ws connect"):
			return null
		OS.delay_usec(1000)
	if ws.get_ready_state() != WebSocketPeer.STATE_OPEN:
		fail("ws state %d" % ws.get_ready_state())
		return null
	return ws

# One reply message, raw (get_packet) to compare the server's bytes exactly, or decoded (get_var).
func ws_get(ws: WebSocketPeer, where: String, raw: bool):
	while ws.get_available_packet_count() == 0:
		ws.poll()
		if timed_out(where) or ws.get_ready_state() != WebSocketPeer.STATE_OPEN:
			return null
		OS.delay_usec(100)
	return ws.get_packet() if raw else ws.get_var()

func run_ws(port: int, values: Array, big) -> void:
	var ws := ws_open(port, 65535)
	if ws == null:
		return
	var seq := 0
	var i := 0
	while i < values.size():
		var window: Array = values.slice(i, i + 32)
		for v in window:
			if ws.put_var(v) != OK:
				fail("ws put_var")
				return
		for v in window:
			if typeof(v) == TYPE_DICTIONARY and not v.is_typed() and v.has("i"):
				check_value("ws get_var", ws_get(ws, "ws read", false), seq, v)
			else:
				var got = ws_get(ws, "ws read", true)
				if got == null:
					return
				check_bytes("ws", got, seq, v)
			seq += 1
		i += window.size()
	# The default 64 KiB outbound buffer cannot carry the 4 MB value.
	var refused := ws.put_var(big)
	print("LIMIT godot4 WebSocketPeer.put_var(4 MB) with outbound_buffer_size=%d: error %d" % [ws.outbound_buffer_size, refused])
	if refused == OK:
		fail("ws put_var of 4 MB with the default outbound buffer was accepted")
	ws.close()
	# Raised buffers (set before connecting): both ways work.
	ws = ws_open(port, 8 << 20)
	if ws == null:
		return
	if ws.put_var(big) != OK:
		fail("ws put_var 4 MB with raised buffers")
		return
	var got = ws_get(ws, "ws big read", true)
	if got != null:
		check_bytes("ws big", got, 0, big)
	ws.close()
	# Receiving: a reply larger than the default 64 KiB inbound buffer.
	ws = WebSocketPeer.new()
	ws.outbound_buffer_size = 8 << 20
	ws.connect_to_url("ws://127.0.0.1:%d" % port)
	var t := Time.get_ticks_msec() + 3000
	while ws.get_ready_state() == WebSocketPeer.STATE_CONNECTING and Time.get_ticks_msec() < t:
		ws.poll()
		OS.delay_usec(1000)
	ws.put_var(big)
	while ws.get_available_packet_count() == 0 and ws.get_ready_state() == WebSocketPeer.STATE_OPEN and Time.get_ticks_msec() < t:
		ws.poll()
		OS.delay_usec(1000)
	print("LIMIT godot4 WebSocketPeer receiving a 4 MB reply with inbound_buffer_size=%d: packets %d, state %d, close code %d" % [ws.inbound_buffer_size, ws.get_available_packet_count(), ws.get_ready_state(), ws.get_close_code()])
	if ws.get_available_packet_count() != 0:
		fail("a 4 MB message arrived through the default 64 KiB inbound buffer")
	ws.close()

func _init():
	deadline = Time.get_ticks_msec() + TIMEOUT_MS
	var cfg := FileAccess.get_file_as_string("res://client_config.txt").strip_edges().split("\t")
	var tcp_port := int(cfg[0])
	var ws_port := int(cfg[1])
	var values := []
	for line in FileAccess.get_file_as_string("res://client_values.tsv").split("\n", false):
		var f := line.split("\t")
		values.append(bytes_to_var(f[1].hex_decode()))
	var big := PackedFloat32Array()
	big.resize(1000000)
	for i in big.size():
		big[i] = (i % 4096) * 0.25 - 100.0
	var small := []
	for i in 3000:
		small.append({"i": i, "name": "p%d" % i, "at": Vector2(i, -i)} if i % 3 == 0 else (i if i % 3 == 1 else "s%d" % i))
	var all_values: Array = values.duplicate()
	all_values.append(big)
	all_values.append_array(small)
	run_tcp(tcp_port, all_values)
	run_pps(tcp_port, values.slice(0, 50), big)
	var ws_values: Array = values.duplicate()
	ws_values.append_array(small.slice(0, 500))
	run_ws(ws_port, ws_values, big)
	print("CLIENT-DONE %d %d" % [checked, failures])
	quit()
