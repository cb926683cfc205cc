# Dictionary key identity in Godot 4 (tests/engine/dictionary_keys.rs): for each case, two keys are
# assigned in turn to an empty Dictionary, and the size is printed ("name<TAB>size"): 1 when the
# engine takes them for the same key. Run: tests/godot/godot4 DIR keys4.gd
extends SceneTree

func pairs() -> Array:
	var z := 0.0
	var ta: Array[int] = [1]
	# A null Object (not Nil: GDScript's `null` literal is Nil) as bytes_to_var gives it, from an
	# object id 0 and from a full object with an empty class name.
	var null_id = bytes_to_var(PackedByteArray([24, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
	var null_full = bytes_to_var_with_objects(PackedByteArray([24, 0, 0, 0, 0, 0, 0, 0]))
	assert(typeof(null_id) == TYPE_OBJECT and typeof(null_full) == TYPE_OBJECT)
	return [
		["int_float", 1, 1.0],
		["str_sn", "a", &"a"],
		["nan", NAN, -NAN],
		["zero", z, -z],
		["vec2_nan", Vector2(NAN, 0), Vector2(NAN, 0)],
		["vec2_zero", Vector2(-z, 0), Vector2(z, 0)],
		["arr_nan", [NAN], [NAN]],
		["arr_zero", [-z], [z]],
		["arr_int_float", [1], [1.0]],
		["arr_str_sn", ["a"], [&"a"]],
		["arr_arr_nan", [[NAN]], [[NAN]]],
		["arr_vec2_nan", [Vector2(NAN, 0)], [Vector2(NAN, 0)]],
		["arr_dict_nan", [{"x": NAN}], [{"x": NAN}]],
		["arr_quat_nan", [Quaternion(NAN, 0, 0, 0)], [Quaternion(NAN, 0, 0, 0)]],
		["arr_pf_nan", [PackedFloat64Array([NAN])], [PackedFloat64Array([NAN])]],
		["dict_same", {"x": 1}, {"x": 1}],
		["dict_order", {"x": 1, "y": 2}, {"y": 2, "x": 1}],
		["dict_nan_value", {"x": NAN}, {"x": NAN}],
		["dict_key_nan", {NAN: 1}, {NAN: 1}],
		["dict_str_sn", {"a": 1}, {&"a": 1}],
		["dict_zero", {"x": z}, {"x": -z}],
		["p32_nan", PackedFloat32Array([NAN]), PackedFloat32Array([NAN])],
		["p32_zero", PackedFloat32Array([-z]), PackedFloat32Array([z])],
		["pv2_nan", PackedVector2Array([Vector2(NAN, 0)]), PackedVector2Array([Vector2(NAN, 0)])],
		["pcol_nan", PackedColorArray([Color(NAN, 0, 0)]), PackedColorArray([Color(NAN, 0, 0)])],
		["pstr", PackedStringArray(["a"]), PackedStringArray(["a"])],
		["basis_nan", Basis(Vector3(NAN, 0, 0), Vector3(), Vector3()), Basis(Vector3(NAN, 0, 0), Vector3(), Vector3())],
		["t2d_zero", Transform2D(Vector2(-z, 0), Vector2(0, 1), Vector2()), Transform2D(Vector2(z, 0), Vector2(0, 1), Vector2())],
		["color_nan", Color(NAN, 0, 0), Color(NAN, 0, 0)],
		["node_path", NodePath("a/b:c"), NodePath("a/b:c")],
		["null", null, null],
		["nil_null_object", null, null_id],
		["null_objects", null_id, null_full],
		["typed_untyped", ta, [1]],
		["rid", RID(), RID()],
	]

func _init() -> void:
	for p in pairs():
		var d := {}
		d[p[1]] = 1
		d[p[2]] = 2
		print("%s\t%d" % [p[0], d.size()])
	print("keys4: done")
	quit()
