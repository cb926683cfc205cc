# Godot 4 decode oracle. Run by tests/godot/regen.sh in the scratch dir (res://) after gen4.gd
# (which creates res://thing.gd, referenced by some inputs).
# Reads res://decode_inputs.tsv (name<TAB>hex), decodes every input twice:
#   plain   -> bytes_to_var(b)              + b.decode_var_size(0, false)
#   objects -> bytes_to_var_with_objects(b) + b.decode_var_size(0, true)
# and appends `name<TAB>mode<TAB>ok|err<TAB>consumed|-<TAB>hex(var_to_str(result))|-` to res://decode.tsv,
# one line per (input, mode), reopening the file per line so a crash loses nothing.
# Item k = input k/2, mode k%2. It starts at the item number in res://decode_start.txt (default 0), so the
# driver can record a crash and resume after it. Prints DECODE-DONE when finished.
extends SceneTree

func _init():
	var start := 0
	if FileAccess.file_exists("res://decode_start.txt"):
		start = FileAccess.get_file_as_string("res://decode_start.txt").strip_edges().to_int()
	var lines := FileAccess.get_file_as_string("res://decode_inputs.tsv").split("\n", false)
	if not FileAccess.file_exists("res://decode.tsv"):
		FileAccess.open("res://decode.tsv", FileAccess.WRITE).close()
	for k in range(start, lines.size() * 2):
		var parts := lines[k / 2].split("\t")
		var name := parts[0]
		var hex := parts[1] if parts.size() > 1 else ""
		var objects := (k % 2) == 1
		var b := hex.hex_decode()
		var size := b.decode_var_size(0, objects)
		var v = bytes_to_var_with_objects(b) if objects else bytes_to_var(b)
		var line: String
		if size > 0:
			line = "%s\t%s\tok\t%d\t%s\n" % [name, "objects" if objects else "plain", size, var_to_str(v).to_utf8_buffer().hex_encode()]
		else:
			line = "%s\t%s\terr\t-\t-\n" % [name, "objects" if objects else "plain"]
		if v is Object and is_instance_valid(v) and not (v is RefCounted):
			v.free()
		var f := FileAccess.open("res://decode.tsv", FileAccess.READ_WRITE)
		f.seek_end()
		f.store_string(line)
		f.close()
	print("DECODE-DONE")
	quit()
