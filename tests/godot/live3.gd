# Godot 3 live check (run by tests/engine/live.rs): the engine decodes what gdvariant wrote and encodes it again.
# Reads res://live_inputs.tsv (name<TAB>plain|objects<TAB>hex) and writes res://live_outputs.tsv:
#   name<TAB>ok<TAB>-<TAB>hex(var2bytes(bytes2var(input)))   or   name<TAB>err<TAB>-<TAB>-
# bytes2var aborts the calling function on a decode error, so each decode runs in its own function call.
# Prints LIVE-DONE at the end.
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

# The script that the golden data's scripted objects reference.
const THING_SRC = "extends Reference\nvar hp = 5\nvar label = \"thing\"\n"

func _init():
	var sf = File.new()
	sf.open("res://thing3.gd", File.WRITE)
	sf.store_string(THING_SRC)
	sf.close()
	var f = File.new()
	f.open("res://live_inputs.tsv", File.READ)
	var lines = f.get_as_text().split("\n", false)
	f.close()
	var out = File.new()
	out.open("res://live_outputs.tsv", File.WRITE)
	for line in lines:
		var parts = line.split("\t")
		var objects = parts[1] == "objects"
		try_decode(hex_to_bytes(parts[2]), objects)
		if last_ok:
			out.store_line("%s\tok\t-\t%s" % [parts[0], var2bytes(last_val, objects).hex_encode()])
		else:
			out.store_line("%s\terr\t-\t-" % parts[0])
		if typeof(last_val) == TYPE_OBJECT and is_instance_valid(last_val) and not (last_val is Reference):
			last_val.free()
		last_val = null
	out.close()
	print("LIVE-DONE")
	quit()
