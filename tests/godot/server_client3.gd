# Godot 3 client of examples/server/ (run by tests/server/server_live.rs), the counterpart of server_client4.gd in
# Godot 3.2's API: StreamPeerTCP.put_var, PacketPeerStream and WebSocketClient (3.x has no standalone
# WebSocketPeer client: the client is WebSocketClient and its peer 1). Same files, same checks: the server's
# reply bytes must equal var2bytes() of the reply this script expects. Godot 3 writes uninitialised padding
# after NodePath strings, so a value holding a NodePath is compared decoded (echo == value, every other field
# byte for byte) instead. Prints "FAIL ..." lines, "LIMIT ..." probes and "CLIENT-DONE <checked> <failures>".
extends SceneTree

const TIMEOUT_MS = 60000
var failures = 0
var checked = 0
var deadline = 0

func fail(what):
	failures += 1
	if failures <= 50:
		print("FAIL ", what)

func expected_reply(seq, v):
	var count = 0
	var sum = 0.0
	match typeof(v):
		TYPE_ARRAY, TYPE_DICTIONARY, TYPE_STRING_ARRAY, TYPE_VECTOR2_ARRAY, TYPE_VECTOR3_ARRAY, TYPE_COLOR_ARRAY:
			count = v.size()
		TYPE_RAW_ARRAY, TYPE_INT_ARRAY, TYPE_REAL_ARRAY:
			count = v.size()
			for x in v:
				sum += x
	return {"seq": seq, "type": typeof(v), "size": var2bytes(v).size(), "echo": v, "count": count, "sum": sum}

func has_node_path(v):
	match typeof(v):
		TYPE_NODE_PATH:
			return true
		TYPE_ARRAY:
			for x in v:
				if has_node_path(x):
					return true
		TYPE_DICTIONARY:
			for k in v:
				if has_node_path(k) or has_node_path(v[k]):
					return true
	return false

func head(b):
	return b.subarray(0, min(b.size(), 96) - 1).hex_encode() if b.size() > 0 else ""

func check_bytes(where, got, seq, v):
	checked += 1
	var want_dict = expected_reply(seq, v)
	if has_node_path(v):
		var r = bytes2var(got)
		if typeof(r) != TYPE_DICTIONARY or not r.has("echo"):
			fail("%s seq %d: not a reply: %s" % [where, seq, str(r)])
			return
		var echo = r["echo"]
		r["echo"] = null
		want_dict["echo"] = null
		if var2bytes(r) != var2bytes(want_dict) or str(echo) != str(v):
			fail("%s seq %d: reply %s, want %s" % [where, seq, str(r), str(want_dict)])
		return
	var want = var2bytes(want_dict)
	if got != want:
		fail("%s seq %d: reply bytes differ (%d vs %d bytes): got %s want %s" % [where, seq, got.size(), want.size(), head(got), head(want)])

func check_value(where, got, seq, v):
	check_bytes(where, var2bytes(got), seq, v)

func timed_out(where):
	if OS.get_ticks_msec() > deadline:
		fail("%s: timed out" % where)
		return true
	return false

func part(a, from, n):
	var out = []
	for i in range(from, min(a.size(), from + n)):
		out.append(a[i])
	return out

# ---- StreamPeerTCP.put_var ----

func tcp_connect(port):
	var p = StreamPeerTCP.new()
	if p.connect_to_host("127.0.0.1", port) != OK:
		fail("tcp connect_to_host")
		return null
	while p.get_status() == StreamPeerTCP.STATUS_CONNECTING:
		if timed_out("tcp connect"):
			return null
		OS.delay_usec(1000)
	if p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		fail("tcp status %d" % p.get_status())
		return null
	p.set_no_delay(true)
	return p

func tcp_read_frame(p):
	while p.get_available_bytes() < 4:
		if timed_out("tcp read") or p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			return PoolByteArray()
		OS.delay_usec(100)
	var n = p.get_u32()
	var r = p.get_data(n)
	if r[0] != OK:
		fail("tcp get_data error %d" % r[0])
		return PoolByteArray()
	return r[1]

func run_tcp(port, values):
	var p = tcp_connect(port)
	if p == null:
		return
	var seq = 0
	var sent = 0
	var i = 0
	while i < values.size():
		var window = part(values, i, 64)
		for v in window:
			p.put_var(v)
			sent += 4 + var2bytes(v).size()
		for v in window:
			check_bytes("tcp", tcp_read_frame(p), seq, v)
			seq += 1
		i += window.size()
	for v in part(values, 0, 20):
		p.put_var(v)
		sent += 4 + var2bytes(v).size()
		check_value("tcp get_var", p.get_var(), seq, v)
		seq += 1
	p.put_data(PoolByteArray([4, 0, 0, 0, 255, 0, 0, 0]))
	var err = bytes2var(tcp_read_frame(p))
	checked += 1
	var want_err = {"seq": seq, "error": "unknown type id 255 at offset %d" % (sent + 4)}
	if var2bytes(err) != var2bytes(want_err):
		fail("tcp malformed reply: %s, want %s" % [str(err), str(want_err)])
	seq += 1
	p.put_var("after the error")
	check_bytes("tcp after error", tcp_read_frame(p), seq, "after the error")
	p.disconnect_from_host()

# ---- PacketPeerStream over StreamPeerTCP ----

func run_pps(port, small, big):
	var p = tcp_connect(port)
	if p == null:
		return
	var pps = PacketPeerStream.new()
	pps.set_stream_peer(p)
	var seq = 0
	for v in small:
		pps.put_var(v)
		while pps.get_available_packet_count() == 0:
			if timed_out("pps read"):
				return
			OS.delay_usec(100)
		check_value("pps", pps.get_var(), seq, v)
		seq += 1
	var refused = pps.put_var(big)
	print("LIMIT godot3 PacketPeerStream.put_var(4 MB) with output_buffer_max_size=%d: error %d" % [pps.output_buffer_max_size, refused])
	if refused == OK:
		fail("pps put_var of 4 MB with the default output buffer was accepted")
		return
	pps.output_buffer_max_size = 8 << 20
	pps.input_buffer_max_size = 8 << 20
	if pps.put_var(big) != OK:
		fail("pps put_var 4 MB with raised buffers")
		return
	while pps.get_available_packet_count() == 0:
		if timed_out("pps big read"):
			return
		OS.delay_usec(1000)
	check_value("pps big", pps.get_var(), seq, big)
	p.disconnect_from_host()

# ---- WebSocketClient (peer 1).put_var ----

func ws_open(port, kb):
	var c = WebSocketClient.new()
	c.set_buffers(kb, 1024, kb, 1024)
	if c.connect_to_url("ws://127.0.0.1:%d" % port) != OK:
		fail("ws connect_to_url")
		return null
	while c.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_CONNECTING:
		c.poll()
		if timed_out("ws connect"):
			return null
		OS.delay_usec(1000)
	if c.get_connection_status() != NetworkedMultiplayerPeer.CONNECTION_CONNECTED:
		fail("ws status %d" % c.get_connection_status())
		return null
	c.get_peer(1).set_write_mode(WebSocketPeer.WRITE_MODE_BINARY)
	return c

func ws_get(c, where, raw):
	var peer = c.get_peer(1)
	while peer.get_available_packet_count() == 0:
		c.poll()
		if timed_out(where) or c.get_connection_status() != NetworkedMultiplayerPeer.CONNECTION_CONNECTED:
			return null
		OS.delay_usec(100)
	return peer.get_packet() if raw else peer.get_var()

func run_ws(port, values, golden_count, big):
	var c = ws_open(port, 64)
	if c == null:
		return
	var seq = 0
	var i = 0
	while i < values.size():
		var window = part(values, i, 32)
		for v in window:
			if c.get_peer(1).put_var(v) != OK:
				fail("ws put_var")
				return
		for v in window:
			if seq >= golden_count:
				check_value("ws get_var", ws_get(c, "ws read", false), seq, v)
			else:
				var got = ws_get(c, "ws read", true)
				if got == null:
					return
				check_bytes("ws", got, seq, v)
			seq += 1
		i += window.size()
	c.disconnect_from_host()
	# Godot 3.2's limits differ from 4.x: put_var does not refuse a value larger than the out buffer.
	# What happens to a 4 MB value sent with the default 64 KiB buffers, and to the 4 MB reply with a raised
	# out buffer but the default 64 KiB in buffer:
	for kb in [[64, 64], [64, 8192]]:
		c = WebSocketClient.new()
		c.set_buffers(kb[0], 1024, kb[1], 1024)
		c.connect_to_url("ws://127.0.0.1:%d" % port)
		var t = OS.get_ticks_msec() + 3000
		while c.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_CONNECTING and OS.get_ticks_msec() < t:
			c.poll()
			OS.delay_usec(1000)
		c.get_peer(1).set_write_mode(WebSocketPeer.WRITE_MODE_BINARY)
		var res = c.get_peer(1).put_var(big)
		while c.get_peer(1).get_available_packet_count() == 0 and c.get_connection_status() == NetworkedMultiplayerPeer.CONNECTION_CONNECTED and OS.get_ticks_msec() < t:
			c.poll()
			OS.delay_usec(1000)
		print("LIMIT godot3 WebSocketClient set_buffers(in %d KiB, out %d KiB): put_var(4 MB) error %d, reply packets %d, connection status %d" % [kb[0], kb[1], res, c.get_peer(1).get_available_packet_count(), c.get_connection_status()])
		if c.get_peer(1).get_available_packet_count() != 0:
			fail("a 4 MB reply arrived through a 64 KiB in buffer")
		c.disconnect_from_host()
	c = ws_open(port, 8192)
	if c == null:
		return
	if c.get_peer(1).put_var(big) != OK:
		fail("ws put_var 4 MB with raised buffers")
		return
	var got = ws_get(c, "ws big read", true)
	if got != null:
		check_bytes("ws big", got, 0, big)
	c.disconnect_from_host()

func _init():
	deadline = OS.get_ticks_msec() + TIMEOUT_MS
	var f = File.new()
	f.open("res://client_config.txt", File.READ)
	var cfg = f.get_as_text().strip_edges().split("\t")
	f.close()
	var tcp_port = int(cfg[0])
	var ws_port = int(cfg[1])
	var values = []
	f.open("res://client_values.tsv", File.READ)
	for line in f.get_as_text().split("\n", false):
		var fields = line.split("\t")
		values.append(bytes2var(hex_decode(fields[1])))
	f.close()
	var big = PoolRealArray()
	big.resize(1000000)
	for i in range(big.size()):
		big[i] = (i % 4096) * 0.25 - 100.0
	var small = []
	for i in range(3000):
		small.append({"i": i, "name": "p%d" % i, "at": Vector2(i, -i)} if i % 3 == 0 else (i if i % 3 == 1 else "s%d" % i))
	var all_values = values.duplicate()
	all_values.append(big)
	all_values += small
	run_tcp(tcp_port, all_values)
	run_pps(tcp_port, part(values, 0, 50), big)
	var ws_values = values.duplicate()
	ws_values += part(small, 0, 500)
	run_ws(ws_port, ws_values, values.size(), big)
	print("CLIENT-DONE %d %d" % [checked, failures])
	quit()

# Godot 3.2 has no String.hex_decode: decode by hand.
func hex_decode(s):
	var out = PoolByteArray()
	out.resize(s.length() / 2)
	for i in range(out.size()):
		out[i] = ("0x" + s.substr(i * 2, 2)).hex_to_int()
	return out
