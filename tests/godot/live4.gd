# Godot 4 live check (run by tests/engine/live.rs): the engine decodes what gdvariant wrote and encodes it again.
# Reads res://live_inputs.tsv (name<TAB>plain|objects<TAB>hex) and writes res://live_outputs.tsv:
#   name<TAB>ok<TAB>consumed<TAB>hex(var_to_bytes(bytes_to_var(input)))   or   name<TAB>err<TAB>-<TAB>-
# (with objects: bytes_to_var_with_objects / var_to_bytes_with_objects). Prints LIVE-DONE at the end.
extends SceneTree

# The script that the golden data's scripted objects and script-typed containers reference.
const THING_SRC = "extends RefCounted\nvar hp = 5\nvar label = \"thing\"\n"

func _init():
	var sf := FileAccess.open("res://thing.gd", FileAccess.WRITE)
	sf.store_string(THING_SRC)
	sf.close()
	var lines := FileAccess.get_file_as_string("res://live_inputs.tsv").split("\n", false)
	var out := FileAccess.open("res://live_outputs.tsv", FileAccess.WRITE)
	for line in lines:
		var parts := line.split("\t")
		var objects := parts[1] == "objects"
		var b := parts[2].hex_decode()
		var size := b.decode_var_size(0, objects)
		if size <= 0:
			out.store_line("%s\terr\t-\t-" % parts[0])
			continue
		var v = bytes_to_var_with_objects(b) if objects else bytes_to_var(b)
		var back := var_to_bytes_with_objects(v) if objects else var_to_bytes(v)
		out.store_line("%s\tok\t%d\t%s" % [parts[0], size, back.hex_encode()])
		if v is Object and is_instance_valid(v) and not (v is RefCounted):
			v.free()
	out.close()
	print("LIVE-DONE")
	quit()
