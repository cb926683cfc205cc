# Dictionary key identity in Godot 3 (tests/engine/dictionary_keys.rs): for each case, two keys are
# assigned in turn to an empty Dictionary, and the size is printed ("name<TAB>size"): 1 when the
# engine takes them for the same key. Run: tests/godot/godot3 DIR keys3.gd
extends SceneTree

func pairs():
	var z = 0.0
	# A null Object (not Nil) as bytes2var gives it, from an object id 0 and from a full object
	# with an empty class name.
	var null_id = bytes2var(PoolByteArray([17, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), false)
	var null_full = bytes2var(PoolByteArray([17, 0, 0, 0, 0, 0, 0, 0]), true)
	return [
		["int_float", 1, 1.0],
		["nan", NAN, -NAN],
		["zero", z, -z],
		["vec2_nan", Vector2(NAN, 0), Vector2(NAN, 0)],
		["vec2_zero", Vector2(-z, 0), Vector2(z, 0)],
		["arr_nan", [NAN], [NAN]],
		["arr_zero", [-z], [z]],
		["arr_int_float", [1], [1.0]],
		["arr_arr_nan", [[NAN]], [[NAN]]],
		["dict_same", {"x": 1}, {"x": 1}],
		["p32_nan", PoolRealArray([NAN]), PoolRealArray([NAN])],
		["p32_zero", PoolRealArray([-z]), PoolRealArray([z])],
		["pv2_nan", PoolVector2Array([Vector2(NAN, 0)]), PoolVector2Array([Vector2(NAN, 0)])],
		["pv2_zero", PoolVector2Array([Vector2(-z, 0)]), PoolVector2Array([Vector2(z, 0)])],
		["pcol_nan", PoolColorArray([Color(NAN, 0, 0)]), PoolColorArray([Color(NAN, 0, 0)])],
		["pstr", PoolStringArray(["a"]), PoolStringArray(["a"])],
		["pint", PoolIntArray([1]), PoolIntArray([1])],
		["basis_nan", Basis(Vector3(NAN, 0, 0), Vector3(), Vector3()), Basis(Vector3(NAN, 0, 0), Vector3(), Vector3())],
		["t2d_zero", Transform2D(Vector2(-z, 0), Vector2(0, 1), Vector2()), Transform2D(Vector2(z, 0), Vector2(0, 1), Vector2())],
		["node_path", NodePath("a/b:c"), NodePath("a/b:c")],
		["null", null, null],
		["nil_null_object", null, null_id],
		["null_objects", null_id, null_full],
	]

func _init():
	for p in pairs():
		var d = {}
		d[p[1]] = 1
		d[p[2]] = 2
		print("%s\t%d" % [p[0], d.size()])
	print("keys3: done")
	quit()
