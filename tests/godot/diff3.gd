# Godot 3 side of the differential test (tests/engine/differential.rs): the engine decodes every mutant and
# says what it read.
#
# Input res://diff_inputs.bin: records of three little-endian u32s (mode: 0 plain, 1 objects; N, the
# size gdvariant says the value occupies, 0 if gdvariant rejects it; the byte length) and the bytes.
# Output res://diff_outputs.tsv, one line per record, appended:
#   index<TAB>ok<TAB>consumed<TAB>hex(var2str(v))<TAB>hex(var2bytes(v)) | "=" if it equals the input
#   index<TAB>err<TAB>-<TAB>-<TAB>-
# bytes2var aborts the calling function on a decode error, so each decode runs in its own function
# (try_decode) and an abort leaves last_ok false. Godot 3 has no API for the consumed size, so it is
# tested with N: the engine decodes [first N bytes, sentinel int] as a 2-element Array, and the
# sentinel comes out as the second element exactly when the value ended after N bytes. consumed is
# N when it did, "?" when it did not, "-" when N is 0.
# res://diff_start.txt holds "START CAREFUL": records before START are skipped (the driver resumes
# after an engine crash), and records before CAREFUL are written with the file reopened per line
# (3.2 has no flush) so that a crash there is pinned to its record. res://classes.txt gets the
# classes ClassDB can instance. Prints DIFF-DONE at the end.
extends SceneTree

const SENTINEL = 0x5A5A5A5A

var last_ok = false
var last_val = null


func try_decode(b, allow_objects):
	last_ok = false
	last_val = null
	var v = bytes2var(b, allow_objects)
	last_val = v
	last_ok = true


func free_objects(v, depth):
	if depth > 64:
		return
	if typeof(v) == TYPE_OBJECT:
		if is_instance_valid(v) and not (v is Reference):
			v.free()
	elif typeof(v) == TYPE_ARRAY:
		for e in v:
			free_objects(e, depth + 1)
	elif typeof(v) == TYPE_DICTIONARY:
		for k in v:
			free_objects(v[k], depth + 1)
			free_objects(k, depth + 1)


func read_text(path):
	var f = File.new()
	if f.open(path, File.READ) != OK:
		return ""
	var t = f.get_as_text()
	f.close()
	return t


func _init():
	var cf = File.new()
	cf.open("res://classes.txt", File.WRITE)
	for c in ClassDB.get_class_list():
		if ClassDB.can_instance(c):
			cf.store_line(c)
	cf.close()
	var start = 0
	var careful = 0
	var parts = read_text("res://diff_start.txt").strip_edges().split(" ")
	if parts.size() > 0 and parts[0] != "":
		start = int(parts[0])
	if parts.size() > 1:
		careful = int(parts[1])
	var f = File.new()
	f.open("res://diff_inputs.bin", File.READ)
	var out = File.new()
	if out.file_exists("res://diff_outputs.tsv"):
		out.open("res://diff_outputs.tsv", File.READ_WRITE)
		out.seek_end()
	else:
		out.open("res://diff_outputs.tsv", File.WRITE)
	var tail = PoolByteArray([2, 0, 0, 0, 0x5A, 0x5A, 0x5A, 0x5A])
	var total = f.get_len()
	var idx = 0
	while f.get_position() < total:
		var mode = f.get_32()
		var ours = f.get_32()
		var n = f.get_32()
		var b = f.get_buffer(n)
		if idx < start:
			idx += 1
			continue
		var objects = mode == 1
		try_decode(b, objects)
		var line
		if last_ok:
			var v = last_val
			var text = var2str(v).to_utf8().hex_encode()
			var back = var2bytes(v, objects)
			var bh = "=" if back == b else back.hex_encode()
			if objects:
				free_objects(v, 0)
			v = null
			last_val = null
			var consumed = "-"
			if ours > 0:
				var w = PoolByteArray([19, 0, 0, 0, 2, 0, 0, 0])
				w.append_array(b.subarray(0, ours - 1))
				w.append_array(tail)
				try_decode(w, objects)
				consumed = "?"
				if last_ok and typeof(last_val) == TYPE_ARRAY and last_val.size() == 2:
					var s = last_val[1]
					if typeof(s) == TYPE_INT and s == SENTINEL:
						consumed = str(ours)
				if objects:
					free_objects(last_val, 0)
				last_val = null
			line = "%d\tok\t%s\t%s\t%s\n" % [idx, consumed, text, bh]
		else:
			line = "%d\terr\t-\t-\t-\n" % idx
		out.store_string(line)
		if idx < careful:
			out.close()
			out.open("res://diff_outputs.tsv", File.READ_WRITE)
			out.seek_end()
		idx += 1
	out.close()
	print("DIFF-DONE")
	quit()
