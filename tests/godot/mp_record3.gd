extends SceneTree
# Records the MultiplayerAPI packets a Godot 3 server and client exchange in ONE headless process.
#
# Godot 3.2.3 cannot take a custom network peer from a script (NetworkedMultiplayerPeer has no
# script-overridable methods; NetworkedMultiplayerCustom came with 3.5), so the route is real
# networking over loopback: a WebSocketServer (the server's network peer) and a WebSocketClient
# (the client's), the client connecting through a TCP proxy written here that logs both byte
# streams. The WebSocket frames are parsed back out of the streams; each binary frame is
# WebSocketMultiplayerPeer's 9-byte header [u8 type][i32 from][i32 to] and, for type 0, one
# MultiplayerAPI packet, which is logged.
#
# Usage: tests/godot/godot3 DIR mp_record3.gd   (writes DIR/mp3_packets.tsv; prints MP-DONE)
# Output lines (TAB-separated, hex lowercase):
#   # engine <version>
#   pkt  seq  step  from  to  -  -  hex(packet)      (no channel / transfer mode over WebSocket)
#   got  seq  receiver  sender  what  hex(var2str(arg)),...  (seq: the packet that made the call)
# The server gives the client a random peer id: it is written as 2 (the only thing that varies
# between runs, with the uninitialised padding bytes of NodePaths inside packets).
#
# Injection: when DIR/mp_inject3.tsv exists (lines name<TAB>hex(packet)), each of its packets is
# then sent to the server as if the client had sent it (the proxy writes it into the client's
# stream as one more WebSocket frame), logged as a pkt line of step "inject/<name>".

const OUT = "res://mp3_packets.tsv"
const CLIENT = 2

var lines = PoolStringArray()
var seq = 0
var step = "setup"
var steps = []
var step_i = 0
var wait = 0
var started = false
var frames = 0
var cid = 0         # the client's real peer id

var server_api
var client_api
var ws_server
var ws_client
var server_root
var client_root

var proxy
var up            # client -> proxy
var down          # proxy -> server
var streams = {}  # "c2s" / "s2c" -> {"buf": PoolByteArray, "http": bool, "frag": PoolByteArray}
var pending = {1: [], CLIENT: []} # receiver -> seqs of its call / set / raw packets, in order

const GAME_GD = """extends Node
remote var label = "x" setget set_label
remote func no_args():
	_got("no_args", [])
remote func one(v):
	_got("one", [v])
remote func two(a, b):
	_got("two", [a, b])
remote func ints(a, b, c, d):
	_got("ints", [a, b, c, d])
func set_label(v):
	label = v
	_got("set label", [v])
func _got(m, args):
	Engine.get_main_loop().got(self, m, args)
"""

func _write(path, text):
	var f = File.new()
	f.open(path, File.WRITE)
	f.store_string(text)
	f.close()

func _initialize():
	_write("res://mp3_game.gd", GAME_GD)

func _make_root(name):
	var r = Node.new()
	r.name = name
	root.add_child(r)
	var api = MultiplayerAPI.new()
	api.set_root_node(r)
	r.custom_multiplayer = api
	var script = load("res://mp3_game.gd")
	for n in ["Game", "Other"]:
		var g = Node.new()
		g.name = n
		g.set_script(script)
		g.custom_multiplayer = api
		r.add_child(g)
	return [r, api]

func _setup():
	var s = _make_root("Server")
	server_root = s[0]
	server_api = s[1]
	var c = _make_root("Client")
	client_root = c[0]
	client_api = c[1]
	server_api.connect("network_peer_packet", self, "_raw", [1])
	client_api.connect("network_peer_packet", self, "_raw", [CLIENT])
	var port = 0
	ws_server = WebSocketServer.new()
	proxy = TCP_Server.new()
	randomize()
	for i in 50:
		port = 20000 + randi() % 20000
		if ws_server.listen(port, PoolStringArray(), true) == OK:
			if proxy.listen(port + 1, "127.0.0.1") == OK:
				break
			ws_server.stop()
	server_api.network_peer = ws_server
	ws_client = WebSocketClient.new()
	down = StreamPeerTCP.new()
	down.connect_to_host("127.0.0.1", port)
	ws_client.connect_to_url("ws://127.0.0.1:%d" % (port + 1), PoolStringArray(), true)
	client_api.network_peer = ws_client
	for d in ["c2s", "s2c"]:
		streams[d] = {"buf": PoolByteArray(), "http": true, "frag": PoolByteArray()}
	_script()

func _raw(sender, data, me):
	got_raw(me, sender, "network_peer_packet", [data])

func got(node, what, args):
	var api = node.custom_multiplayer
	var me = 1 if api == server_api else CLIENT
	var sender = api.get_rpc_sender_id()
	got_raw(me, 1 if sender == 1 else CLIENT, what, args)

func got_raw(me, sender, what, args):
	var texts = PoolStringArray()
	for a in args:
		texts.append(var2str(a).to_utf8().hex_encode())
	# Packets are handled in order, one call (or set, or raw packet) each: this one is the
	# oldest of the receiver's not yet handled.
	var at = pending[me].pop_front() if pending[me].size() > 0 else 0
	lines.append("got\t%d\t%d\t%d\t%s\t%s" % [at, me, 1 if sender == 1 else CLIENT, what, texts.join(",")])

func game(me):
	return (server_root if me == 1 else client_root).get_node("Game")

func other(me):
	return (server_root if me == 1 else client_root).get_node("Other")

func _values():
	return [null, true, false, 0, 1, -1, 2147483647, -2147483648, 2147483648, -9223372036854775807 - 1,
		0.5, 0.1, 1e300, "", "héllo ☃", Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3),
		Transform2D(0.5, Vector2(3, 4)), Plane(1, 0, 0, 2), Quat(0, 0, 0, 1),
		AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)), Basis(), Transform(), Color(0.25, 0.5, 0.75, 1),
		NodePath("a/b:c"), {"a": 1, 2: [3]}, [1, "x", null],
		PoolByteArray([1, 2, 3]), PoolIntArray([1, -2]), PoolRealArray([0.5]),
		PoolStringArray(["a", ""]), PoolVector2Array([Vector2(1, 2)]),
		PoolVector3Array([Vector3(1, 2, 3)]), PoolColorArray([Color(1, 0, 0, 1)])]

# ----- the scenario: [name, action, frames to wait after it] -----
func _script():
	steps = [
		["rpc_first", "_rpc_first", 10],
		["rpc_types", "_rpc_types", 10],
		["rpc_forms", "_rpc_forms", 10],
		["rset_first", "_rset_first", 10],
		["rpc_client_to_server", "_rpc_client", 10],
		["raw", "_raw_bytes", 10],
	]
	var f = File.new()
	if f.file_exists("res://mp_inject3.tsv"):
		f.open("res://mp_inject3.tsv", File.READ)
		for line in f.get_as_text().split("\n", false):
			var parts = line.split("\t")
			steps.append(["inject/" + parts[0], "_inject", 4, _unhex(parts[1])])
		f.close()

func _unhex(h):
	var out = PoolByteArray()
	for i in range(0, h.length(), 2):
		out.append(("0x" + h.substr(i, 2)).hex_to_int())
	return out

var inject_bytes = PoolByteArray()

# One more client frame: WebSocketMultiplayerPeer's header [type 0][from: the client][to: 1], the
# packet, masked with a zero key.
func _inject():
	var p = PoolByteArray([0, cid & 0xFF, (cid >> 8) & 0xFF, (cid >> 16) & 0xFF, (cid >> 24) & 0xFF, 1, 0, 0, 0])
	p.append_array(inject_bytes)
	var n = p.size()
	var frame = PoolByteArray([0x82])
	if n < 126:
		frame.append(0x80 | n)
	elif n < 65536:
		frame.append_array(PoolByteArray([0x80 | 126, n >> 8, n & 0xFF]))
	else:
		frame.append(0x80 | 127)
		for i in 8:
			frame.append((n >> (8 * (7 - i))) & 0xFF)
	frame.append_array(PoolByteArray([0, 0, 0, 0]))
	frame.append_array(p)
	down.put_data(frame)
	seq += 1
	lines.append("pkt\t%d\t%s\t%d\t%d\t-\t-\t%s" % [seq, step, CLIENT, 1, inject_bytes.hex_encode()])
	if inject_bytes[0] in [0, 1, 4]:
		pending[1].append(seq)

func _rpc_first():
	game(1).rpc_id(cid, "no_args")

func _rpc_types():
	for v in _values():
		game(1).rpc_id(cid, "one", v)

func _rpc_forms():
	var g = game(1)
	g.rpc_id(cid, "no_args")
	g.rpc_id(cid, "ints", 0, -1, 2147483647, 2147483648)
	g.rpc_id(cid, "two", PoolByteArray([1, 2]), true)
	g.rpc_id(cid, "one", PoolByteArray())
	g.rpc_unreliable_id(cid, "one", 7)
	g.rset_id(cid, "label", "hi")
	g.rset_unreliable_id(cid, "label", 5)

func _rset_first():
	other(1).rset_id(cid, "label", Vector2(3, 4))

func _rpc_client():
	game(CLIENT).rpc_id(1, "two", "from client", 2.5)

func _raw_bytes():
	server_api.send_bytes(PoolByteArray([1, 2, 3]), cid)

# ----- the proxy and the frame parser -----
func _pump():
	if up == null and proxy.is_connection_available():
		up = proxy.take_connection()
	if up != null and up.get_status() == StreamPeerTCP.STATUS_CONNECTED and down.get_status() == StreamPeerTCP.STATUS_CONNECTED:
		_move(up, down, "c2s")
		_move(down, up, "s2c")

func _move(from, to, dir):
	var n = from.get_available_bytes()
	if n == 0:
		return
	var r = from.get_partial_data(n)
	var data = r[1]
	to.put_data(data)
	# Pool arrays are values in Godot 3: append to a copy and store it back.
	var s = streams[dir]
	var buf = s["buf"]
	buf.append_array(data)
	s["buf"] = buf
	_parse(dir)

func _parse(dir):
	var s = streams[dir]
	var b = s["buf"]
	if s["http"]:
		var end = -1
		for i in range(b.size() - 3):
			if b[i] == 13 and b[i + 1] == 10 and b[i + 2] == 13 and b[i + 3] == 10:
				end = i
				break
		if end < 0:
			return
		s["http"] = false
		b = b.subarray(end + 4, b.size() - 1) if end + 4 < b.size() else PoolByteArray()
	while b.size() >= 2:
		var fin = b[0] & 0x80
		var masked = b[1] & 0x80
		var len7 = b[1] & 0x7F
		var at = 2
		var n = len7
		if len7 == 126:
			if b.size() < 4:
				break
			n = (b[2] << 8) | b[3]
			at = 4
		elif len7 == 127:
			if b.size() < 10:
				break
			n = 0
			for i in 8:
				n = (n << 8) | b[2 + i]
			at = 10
		var key = PoolByteArray()
		if masked:
			if b.size() < at + 4:
				break
			key = b.subarray(at, at + 3)
			at += 4
		if b.size() < at + n:
			break
		var payload = b.subarray(at, at + n - 1) if n > 0 else PoolByteArray()
		if masked:
			for i in n:
				payload[i] = payload[i] ^ key[i % 4]
		b = b.subarray(at + n, b.size() - 1) if at + n < b.size() else PoolByteArray()
		var frag = s["frag"]
		frag.append_array(payload)
		s["frag"] = frag
		if fin:
			_frame(dir, frag)
			s["frag"] = PoolByteArray()
	s["buf"] = b

func _i32(p, at):
	var v = p[at] | (p[at + 1] << 8) | (p[at + 2] << 16) | (p[at + 3] << 24)
	return v - (1 << 32) if v >= (1 << 31) else v

func _frame(dir, p):
	if p.size() < 9:
		return
	var type = p[0]
	var from = _i32(p, 1)
	var to = _i32(p, 5)
	if type == 3 and dir == "s2c":
		cid = _i32(p, 9)   # SYS_ID: the client's id
		lines.append("# websocket SYS_ID: the client's peer id is random; written as %d" % CLIENT)
	if type != 0:
		return
	var pkt = p.subarray(9, p.size() - 1) if p.size() > 9 else PoolByteArray()
	seq += 1
	var f = 1 if from == 1 else CLIENT
	var t = to
	if to == cid:
		t = CLIENT
	lines.append("pkt\t%d\t%s\t%d\t%d\t-\t-\t%s" % [seq, step, f, t, pkt.hex_encode()])
	if pkt[0] in [0, 1, 4]:
		pending[CLIENT if dir == "s2c" else 1].append(seq)

func _connected():
	return cid != 0 and client_api.get_network_connected_peers().size() == 1 and server_api.get_network_connected_peers().size() == 1

func _idle(_delta):
	if not started:
		started = true
		_setup()
		return false
	_pump()
	server_api.poll()
	_pump()
	client_api.poll()
	_pump()
	frames += 1
	if frames > 5000:
		print("MP-TIMEOUT at step %s (up %s, down %d, client id %d, peers %s / %s)" % [step, up, down.get_status(), cid, server_api.get_network_connected_peers(), client_api.get_network_connected_peers()])
		quit()
		return true
	if wait > 0:
		wait -= 1
		return false
	if not _connected():
		return false
	if step_i >= steps.size():
		_finish()
		quit()
		return true
	var s = steps[step_i]
	step = s[0]
	if s.size() > 3:
		inject_bytes = s[3]
	call(s[1])
	wait = s[2]
	step_i += 1
	return false

func _finish():
	var out = PoolStringArray()
	out.append("# engine\t" + Engine.get_version_info()["string"])
	out.append_array(lines)
	_write(OUT, out.join("\n") + "\n")
	print("MP-DONE %d packets" % seq)
