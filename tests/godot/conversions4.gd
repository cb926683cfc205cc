# Godot 4's typed-container rule, recorded: every plain golden value of res://encode.tsv as the one
# element of an Array[T] for every builtin type T (0 = Nil .. 38), decoded by the engine.
# Writes res://conversions.tsv: name<TAB>T<TAB>K | D | hex, where K: the engine kept the element as
# it is, D: it dropped it, hex: var_to_bytes of the element it converted it to.
# Run by tests/godot/regen.sh after gen4.gd; read by tests/engine/conversions.rs. Prints CONVERSIONS-DONE.
extends SceneTree


func _init():
	var lines := FileAccess.get_file_as_string("res://encode.tsv").split("\n", false)
	var out := FileAccess.open("res://conversions.tsv", FileAccess.WRITE)
	for line in lines:
		if line.begins_with("#"):
			continue
		var f := line.split("\t")
		if f[1] != "-":
			continue
		var vb := f[2].hex_decode()
		for t in range(39):
			var b := PackedByteArray()
			b.resize(12)
			b.encode_u32(0, 28 | (1 << 16))
			b.encode_u32(4, t)
			b.encode_u32(8, 1)
			b.append_array(vb)
			var a = bytes_to_var(b)
			var r: String
			if a.size() == 0:
				r = "D"
			else:
				var e := var_to_bytes(a[0])
				r = "K" if e == var_to_bytes(bytes_to_var(vb)) else e.hex_encode()
			out.store_line("%s\t%d\t%s" % [f[0], t, r])
	out.close()
	print("CONVERSIONS-DONE")
	quit()
