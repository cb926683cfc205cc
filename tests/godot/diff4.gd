# Godot 4 side of the differential test (tests/engine/differential.rs): the engine decodes every mutant and
# says what it read.
#
# Input res://diff_inputs.bin: records of three little-endian u32s (mode: 0 plain, 1 objects; our
# consumed size, unused here; the byte length) and the bytes.
# Output res://diff_outputs.tsv, one line per record, appended:
#   index<TAB>ok<TAB>consumed<TAB>hex(var_to_str(v))<TAB>hex(var_to_bytes(v)) | "=" if it equals the
#   consumed input bytes
#   index<TAB>err<TAB>-<TAB>-<TAB>-
# where consumed = b.decode_var_size(0, objects) (0 = rejected) and v = bytes_to_var(b)
# (bytes_to_var_with_objects / var_to_bytes_with_objects in objects mode).
# res://diff_start.txt holds "START CAREFUL": records before START are skipped (the driver resumes
# after an engine crash), and records before CAREFUL are flushed line by line so that a crash
# there is pinned to its record. res://classes.txt gets the classes ClassDB can instantiate.
# Prints DIFF-DONE at the end.
extends SceneTree

const THING_SRC = "extends RefCounted\nvar hp = 5\nvar label = \"thing\"\n"


# Frees the non-RefCounted objects a decode made (nested ones too, to a modest depth).
func free_objects(v, depth: int) -> void:
	if depth > 64:
		return
	if v is Object:
		if is_instance_valid(v) and not (v is RefCounted):
			v.free()
	elif v is Array:
		for e in v:
			free_objects(e, depth + 1)
	elif v is Dictionary:
		for k in v:
			free_objects(v[k], depth + 1)
			free_objects(k, depth + 1)


func _init():
	var sf := FileAccess.open("res://thing.gd", FileAccess.WRITE)
	sf.store_string(THING_SRC)
	sf.close()
	var cf := FileAccess.open("res://classes.txt", FileAccess.WRITE)
	for c in ClassDB.get_class_list():
		if ClassDB.can_instantiate(c):
			cf.store_line(c)
	cf.close()
	var start := 0
	var careful := 0
	if FileAccess.file_exists("res://diff_start.txt"):
		var parts := FileAccess.get_file_as_string("res://diff_start.txt").strip_edges().split(" ")
		start = parts[0].to_int()
		if parts.size() > 1:
			careful = parts[1].to_int()
	var f := FileAccess.open("res://diff_inputs.bin", FileAccess.READ)
	var out: FileAccess
	if FileAccess.file_exists("res://diff_outputs.tsv"):
		out = FileAccess.open("res://diff_outputs.tsv", FileAccess.READ_WRITE)
		out.seek_end()
	else:
		out = FileAccess.open("res://diff_outputs.tsv", FileAccess.WRITE)
	var total := f.get_length()
	var idx := 0
	while f.get_position() < total:
		var mode := f.get_32()
		f.get_32()
		var n := f.get_32()
		var b := f.get_buffer(n)
		if idx < start:
			idx += 1
			continue
		var objects := mode == 1
		var size := b.decode_var_size(0, objects)
		var line: String
		if size > 0:
			var v = bytes_to_var_with_objects(b) if objects else bytes_to_var(b)
			var text := var_to_str(v).to_utf8_buffer().hex_encode()
			var back := var_to_bytes_with_objects(v) if objects else var_to_bytes(v)
			var bh := "=" if back == b.slice(0, size) else back.hex_encode()
			line = "%d\tok\t%d\t%s\t%s\n" % [idx, size, text, bh]
			if objects:
				free_objects(v, 0)
		else:
			line = "%d\terr\t-\t-\t-\n" % idx
		out.store_string(line)
		if idx < careful:
			out.flush()
		idx += 1
	out.close()
	print("DIFF-DONE")
	quit()
