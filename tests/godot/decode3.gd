# Godot 3 decode oracle. Run by tests/godot/regen.sh in the scratch dir (res://) after gen3.gd.
# Reads res://decode_inputs.tsv (name<TAB>hex), decodes every input twice:
#   plain   -> bytes2var(b, false)
#   objects -> bytes2var(b, true)
# and appends `name<TAB>mode<TAB>ok|err<TAB>-<TAB>hex(var2str(result))|-` to res://decode.tsv (3.x cannot
# report the consumed length, so that column is always "-"). On a decode error bytes2var aborts the calling
# GDScript function, so each call happens in its own function (try_decode) and the abort is detected by
# last_ok staying false. One line per (input, mode); the file is reopened per line so a crash loses nothing.
# Item k = input k/2, mode k%2. It starts at the item number in res://decode_start.txt (default 0), so the
# driver can record a crash and resume after it. Prints DECODE-DONE when finished.
extends SceneTree

var last_ok = false
var last_val = null

func try_decode(b, allow_objects):
	last_ok = false
	last_val = null
	var v = bytes2var(b, allow_objects)
	last_val = v
	last_ok = true

func hex_to_bytes(h):
	var b = PoolByteArray()
	var i = 0
	while i + 1 < h.length():
		b.append(("0x" + h.substr(i, 2)).hex_to_int())
		i += 2
	return b

func read_text(path):
	var f = File.new()
	if f.open(path, File.READ) != OK:
		return ""
	var t = f.get_as_text()
	f.close()
	return t

func _init():
	var start = 0
	var f = File.new()
	if f.file_exists("res://decode_start.txt"):
		start = int(read_text("res://decode_start.txt").strip_edges())
	var lines = read_text("res://decode_inputs.tsv").split("\n", false)
	if not f.file_exists("res://decode.tsv"):
		f.open("res://decode.tsv", File.WRITE)
		f.close()
	for k in range(start, lines.size() * 2):
		var parts = lines[k / 2].split("\t")
		var name = parts[0]
		var hex = parts[1] if parts.size() > 1 else ""
		var objects = (k % 2) == 1
		var b = hex_to_bytes(hex)
		try_decode(b, objects)
		var line
		if last_ok:
			line = "%s\t%s\tok\t-\t%s\n" % [name, "objects" if objects else "plain", var2str(last_val).to_utf8().hex_encode()]
		else:
			line = "%s\t%s\terr\t-\t-\n" % [name, "objects" if objects else "plain"]
		if typeof(last_val) == TYPE_OBJECT and is_instance_valid(last_val) and not (last_val is Reference):
			last_val.free()
		last_val = null
		f.open("res://decode.tsv", File.READ_WRITE)
		f.seek_end()
		f.store_string(line)
		f.close()
	print("DECODE-DONE")
	quit()
