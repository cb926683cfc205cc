# Godot 4 golden-data generator. Run by tests/godot/regen.sh as:
#   godot --headless -s gen4.gd        (working directory = scratch dir = res://)
# Writes res://encode.tsv (name, flags, hex of bytes, hex of var_to_str text) and res://game_state.bin.
#
# Every case is its own function (GDScript pools constants per function and merges 0.0 with -0.0):
#   c_<name>()  -> encoded with var_to_bytes              (flags "-")
#   o_<name>()  -> encoded with var_to_bytes_with_objects (flags "objects"); names end in "_wobj"
# Cases are emitted in declaration order (the script's method list order).
extends SceneTree

var out: FileAccess
var names := {}
var thing_script: Script
var keep := []   # objects kept alive until the end

const THING_SRC := "extends RefCounted\nvar hp = 5\nvar label = \"thing\"\n"

func _init():
	# a script file for "scripted object" cases (script property must be a res:// path)
	var sf := FileAccess.open("res://thing.gd", FileAccess.WRITE)
	sf.store_string(THING_SRC)
	sf.close()
	thing_script = load("res://thing.gd")
	out = FileAccess.open("res://encode.tsv", FileAccess.WRITE)
	var gs := FileAccess.open("res://game_state.bin", FileAccess.WRITE)
	gs.store_buffer(var_to_bytes(game_state()))
	gs.close()
	var count := 0
	for m in get_method_list():
		var n: String = m["name"]
		if n.begins_with("c_"):
			emit(n.substr(2), call(n), false)
			count += 1
		elif n.begins_with("o_"):
			emit(n.substr(2), call(n), true)
			count += 1
	out.close()
	for o in keep:
		if o is Object and not (o is RefCounted) and is_instance_valid(o):
			o.free()
	keep.clear()
	print("gen4: wrote %d cases" % count)
	quit()

func emit(name: String, v, objects: bool) -> void:
	if names.has(name):
		push_error("duplicate case name " + name)
		quit(1)
	names[name] = true
	var b: PackedByteArray = var_to_bytes_with_objects(v) if objects else var_to_bytes(v)
	var s := var_to_str(v)
	out.store_string("%s\t%s\t%s\t%s\n" % [name, "objects" if objects else "-", b.hex_encode(), s.to_utf8_buffer().hex_encode()])

func game_state() -> Dictionary:
	var ents := []
	for i in range(8):
		ents.append({
			"id": i,
			"name": "entity_%d" % i,
			"pos": Vector3(i, i * 0.5, -i),
			"vel": Vector3(0.25, 0, -1.5),
			"hp": 100.0 - i * 0.25,
			"tags": PackedStringArray(["player" if i == 0 else "npc", "team_%d" % (i % 4)]),
		})
	return {"tick": 123456, "entities": ents}

func mk_thing(hp: int, label: String) -> RefCounted:
	var t: RefCounted = thing_script.new()
	t.hp = hp
	t.label = label
	keep.append(t)
	return t

func mk_node(n: String) -> Node:
	var nd := Node.new()
	nd.name = n
	keep.append(nd)
	return nd

# ---------------------------------------------------------------- nil, bool
func c_nil(): return null
func c_bool_true(): return true
func c_bool_false(): return false

# ---------------------------------------------------------------- int
func c_int_0(): return 0
func c_int_1(): return 1
func c_int_m1(): return -1
func c_int_255(): return 255
func c_int_65536(): return 65536
func c_int_i32_max_m1(): return 2147483646
func c_int_i32_max(): return 2147483647
func c_int_i32_max_p1(): return 2147483648
func c_int_i32_min_p1(): return -2147483647
func c_int_i32_min(): return -2147483648
func c_int_i32_min_m1(): return -2147483649
func c_int_u32_max(): return 4294967295
func c_int_2p32(): return 4294967296
func c_int_i64_max(): return 9223372036854775807
func c_int_i64_max_m1(): return 9223372036854775806
func c_int_i64_min(): return -9223372036854775807 - 1
func c_int_i64_min_p1(): return -9223372036854775807

# ---------------------------------------------------------------- float
func c_float_0(): return 0.0
func c_float_neg0(): return -0.0
func c_float_1(): return 1.0
func c_float_0_5(): return 0.5
func c_float_m2_5(): return -2.5
func c_float_0_1(): return 0.1
func c_float_third(): return 1.0 / 3.0
func c_float_nan(): return NAN
func c_float_inf(): return INF
func c_float_neg_inf(): return -INF
func c_float_f64_min_denormal(): return pow(2.0, -1074)
func c_float_f64_neg_min_denormal(): return -pow(2.0, -1074)
func c_float_f32_min_denormal(): return pow(2.0, -149)
func c_float_f32_min_normal(): return pow(2.0, -126)
func c_float_f64_min_normal(): return pow(2.0, -1022)
func c_float_1e39(): return pow(10.0, 39)
# GDScript 4.6 parses the literal 1e39 one ulp off (…4a1e instead of …4a1d): kept as a case of its own
func c_float_1e39_literal(): return 1e39
func c_float_1e10(): return 1e10
func c_float_16777216(): return 16777216.0
func c_float_16777217(): return 16777217.0
func c_float_f32_max(): return (2.0 - pow(2.0, -23)) * pow(2.0, 127)
func c_float_f32_max_next(): return (2.0 - pow(2.0, -23)) * pow(2.0, 127) + pow(2.0, 75)
func c_float_f64_max(): return 1.7976931348623157e308
func c_float_123_456(): return 123.456
func c_float_pi(): return PI
func c_float_m1e_minus5(): return -1e-5
# 2^53 + 2 (the literal 9007199254740993.0 is mis-rounded by the 4.6 parser)
func c_float_2p53_p2(): return pow(2.0, 53) + 2.0
func c_float_2p53(): return pow(2.0, 53)

# ---------------------------------------------------------------- String
func c_str_empty(): return ""
func c_str_len1(): return "a"
func c_str_len2(): return "ab"
func c_str_len3(): return "abc"
func c_str_len4(): return "abcd"
func c_str_len5(): return "abcde"
func c_str_e_acute(): return "é"
func c_str_euro(): return "€"
func c_str_emoji(): return "😀"
func c_str_mixed_utf8(): return "héllo wörld €😀"
func c_str_quotes(): return "say \"hi\" 'there'"
func c_str_backslash(): return "back\\slash\\"
func c_str_newline(): return "line1\nline2"
func c_str_tab(): return "a\tb"
func c_str_ctrl_01(): return "x\u0001y"
func c_str_cr(): return "a\r\nb"
func c_str_all_escapes(): return "\"\\\n\t\u0001é€😀"
func c_str_long(): return "The quick brown fox jumps over the lazy dog"

# ---------------------------------------------------------------- StringName
func c_sname_empty(): return &""
func c_sname_abc(): return &"abc"
func c_sname_utf8(): return &"nämé_😀"
func c_sname_len4(): return &"abcd"

# ---------------------------------------------------------------- vectors
func c_vec2_zero(): return Vector2()
func c_vec2(): return Vector2(1.5, -2.25)
func c_vec2_inexact(): return Vector2(0.1, 1.0 / 3.0)
func c_vec2_nonfinite(): return Vector2(INF, -INF)
func c_vec2_nan(): return Vector2(NAN, -0.0)
func c_vec2i_zero(): return Vector2i()
func c_vec2i(): return Vector2i(1, -2)
func c_vec2i_extremes(): return Vector2i(2147483647, -2147483648)
func c_vec3_zero(): return Vector3()
func c_vec3(): return Vector3(1.0, -2.5, 3.25)
func c_vec3_inexact(): return Vector3(0.1, 0.2, 0.3)
func c_vec3i(): return Vector3i(1, -2, 3)
func c_vec3i_extremes(): return Vector3i(2147483647, -2147483648, 0)
func c_vec4(): return Vector4(1.0, -2.0, 3.5, -4.75)
func c_vec4_zero(): return Vector4()
func c_vec4i(): return Vector4i(1, -2, 3, -4)
func c_vec4i_extremes(): return Vector4i(2147483647, -2147483648, -1, 0)

# ---------------------------------------------------------------- rects, transforms, etc.
func c_rect2(): return Rect2(1.0, 2.0, 3.5, 4.5)
func c_rect2_zero(): return Rect2()
func c_rect2i(): return Rect2i(1, -2, 30, 40)
func c_rect2i_extremes(): return Rect2i(-2147483648, 2147483647, 0, -1)
func c_transform2d_identity(): return Transform2D()
func c_transform2d(): return Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))
func c_transform2d_rot(): return Transform2D(0.5, Vector2(10, -20))
func c_plane(): return Plane(Vector3(0, 1, 0), 2.5)
func c_plane_raw(): return Plane(1, 2, 3, 4)
func c_quat_identity(): return Quaternion()
func c_quat(): return Quaternion(0.1, 0.2, 0.3, 0.9)
func c_aabb(): return AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))
func c_aabb_zero(): return AABB()
func c_basis_identity(): return Basis()
func c_basis_nonsym(): return Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))
func c_transform3d_identity(): return Transform3D()
func c_transform3d(): return Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12))
func c_projection_identity(): return Projection()
func c_projection(): return Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, 16))
func c_projection_perspective(): return Projection.create_perspective(60.0, 1.5, 0.1, 100.0)
func c_color(): return Color(0.1, 0.2, 0.3, 0.4)
func c_color_red(): return Color(1, 0, 0)
func c_color_hdr(): return Color(2.5, -1.0, 0.0, 1.0)

# ---------------------------------------------------------------- NodePath
func c_np_empty(): return NodePath("")
func c_np_abs(): return NodePath("/root/a")
func c_np_rel(): return NodePath("a/b")
func c_np_single(): return NodePath("a")
func c_np_subnames_only(): return NodePath(":prop:sub")
func c_np_names_subnames(): return NodePath("a/b:c:d")
func c_np_root(): return NodePath("/")
func c_np_parent(): return NodePath("..")
func c_np_parent_child(): return NodePath("../sibling")
func c_np_abs_subname(): return NodePath("/root/a/b:c")
func c_np_utf8(): return NodePath("ünï/cödé:prøp😀")
func c_np_len4_names(): return NodePath("abcd/efgh:ijkl")

# ---------------------------------------------------------------- RID
func c_rid_default(): return RID()
func c_rid_viewport(): return get_root().get_viewport_rid()

# ---------------------------------------------------------------- Object
func c_obj_as_id(): var o = Object.new(); keep.append(o); return o
func c_obj_refcounted_as_id(): var o = RefCounted.new(); keep.append(o); return o
func c_obj_null_typed(): var o: Object = null; return o
func c_obj_freed(): var o = Object.new(); o.free(); return o
func o_obj_object_wobj(): var o = Object.new(); keep.append(o); return o
func o_obj_refcounted_wobj(): var o = RefCounted.new(); keep.append(o); return o
func o_obj_resource_wobj():
	var r := Resource.new()
	r.resource_name = "res_name"
	keep.append(r)
	return r
func o_obj_scripted_wobj(): return mk_thing(42, "hello")
func o_obj_null_typed_wobj(): var o: Object = null; return o
func o_obj_freed_wobj(): var o = Object.new(); o.free(); return o
func o_obj_nested_in_array_wobj(): return [mk_thing(1, "a"), mk_thing(2, "b")]
func o_obj_in_dict_wobj(): return {"thing": mk_thing(7, "é")}
func o_int_1_wobj(): return 1
func o_str_wobj(): return "abc"
func o_dict_plain_wobj(): return {"a": [1, 2.5, "x"]}

# ---------------------------------------------------------------- Callable, Signal
func c_callable_empty(): return Callable()
func c_callable_method(): return Callable(self, "game_state")
func c_callable_lambda(): return func(): return 1
func c_signal_empty(): return Signal()
func c_signal_tree(): return Signal(self, "tree_changed")

# ---------------------------------------------------------------- Array
func c_arr_empty(): return []
func c_arr_one(): return [1]
func c_arr_mixed(): return [1, "two", 3.5, null, true, Vector2(1, 2)]
func c_arr_nested(): return [[1, 2], [3, [4, [5]]], []]
func c_arr_deep_empty(): return [[[[]]]]
func c_arr_floats(): return [0.1, -0.0, 1.0, NAN]
func c_arr_of_dicts(): return [{}, {"a": 1}]

# ---------------------------------------------------------------- Dictionary
func c_dict_empty(): return {}
func c_dict_one(): return {"a": 1}
func c_dict_nested(): return {"a": {"b": {"c": [1, 2, {"d": null}]}}}
func c_dict_mixed_keys():
	var d := {}
	d[1] = "int"
	d["1"] = "string"
	d[1.5] = "float"
	d[Vector2(1, 2)] = "vec2"
	d[null] = "nil"
	d[true] = false
	d[&"sn"] = "stringname"
	d[[1, 2]] = "array key"
	d[NodePath("a/b")] = "nodepath"
	return d
func c_dict_insertion_order(): return {"z": 1, "a": 2, "m": 3, 10: 4, 2: 5}
func c_dict_values_all(): return {"i": -5, "f": 0.1, "s": "é", "v": Vector3(1, 2, 3), "c": Color(1, 1, 1, 1), "p": PackedByteArray([1, 2, 3])}

# ---------------------------------------------------------------- typed Array
func c_tarr_int(): var a: Array[int] = [1, 2, 3]; return a
func c_tarr_int_empty(): var a: Array[int] = []; return a
func c_tarr_string(): var a: Array[String] = ["a", "bc", "é"]; return a
func c_tarr_float(): var a: Array[float] = [0.5, 0.1]; return a
func c_tarr_vec2(): var a: Array[Vector2] = [Vector2(1, 2)]; return a
func c_tarr_sname(): var a: Array[StringName] = [&"x"]; return a
func c_tarr_dict(): var a: Array[Dictionary] = [{"k": 1}]; return a
func c_tarr_array(): var a: Array[Array] = [[1], []]; return a
func c_tarr_node_empty(): var a: Array[Node] = []; return a
func c_tarr_node(): var a: Array[Node] = [mk_node("n1")]; return a
func c_tarr_object_empty(): var a: Array[Object] = []; return a
func c_tarr_resource_empty(): var a: Array[Resource] = []; return a
func c_tarr_script_empty(): return Array([], TYPE_OBJECT, &"RefCounted", thing_script)
func c_tarr_script(): return Array([mk_thing(3, "t")], TYPE_OBJECT, &"RefCounted", thing_script)
func o_tarr_int_wobj(): var a: Array[int] = [1, 2, 3]; return a
func o_tarr_string_wobj(): var a: Array[String] = ["a"]; return a
func o_tarr_node_empty_wobj(): var a: Array[Node] = []; return a
func o_tarr_node_wobj(): var a: Array[Node] = [mk_node("n2")]; return a
func o_tarr_resource_wobj(): var a: Array[Resource] = [Resource.new()]; return a
func o_tarr_script_empty_wobj(): return Array([], TYPE_OBJECT, &"RefCounted", thing_script)
func o_tarr_script_wobj(): return Array([mk_thing(4, "u")], TYPE_OBJECT, &"RefCounted", thing_script)

# ---------------------------------------------------------------- typed Dictionary
func c_tdict_str_int(): var d: Dictionary[String, int] = {"a": 1, "b": 2}; return d
func c_tdict_str_int_empty(): var d: Dictionary[String, int] = {}; return d
func c_tdict_int_variant(): var d: Dictionary[int, Variant] = {1: "x", 2: 2.5}; return d
func c_tdict_variant_str(): var d: Dictionary[Variant, String] = {1: "x", "k": "y"}; return d
func c_tdict_sname_vec3(): var d: Dictionary[StringName, Vector3] = {&"p": Vector3(1, 2, 3)}; return d
func c_tdict_str_node(): var d: Dictionary[String, Node] = {"n": mk_node("n3")}; return d
func c_tdict_str_node_empty(): var d: Dictionary[String, Node] = {}; return d
func c_tdict_node_int_empty(): var d: Dictionary[Node, int] = {}; return d
func c_tdict_str_script(): return Dictionary({"t": mk_thing(5, "v")}, TYPE_STRING, &"", null, TYPE_OBJECT, &"RefCounted", thing_script)
func c_tdict_script_int_empty(): return Dictionary({}, TYPE_OBJECT, &"RefCounted", thing_script, TYPE_INT, &"", null)
func o_tdict_str_int_wobj(): var d: Dictionary[String, int] = {"a": 1}; return d
func o_tdict_str_node_wobj(): var d: Dictionary[String, Node] = {"n": mk_node("n4")}; return d
func o_tdict_node_int_empty_wobj(): var d: Dictionary[Node, int] = {}; return d
func o_tdict_str_script_wobj(): return Dictionary({"t": mk_thing(6, "w")}, TYPE_STRING, &"", null, TYPE_OBJECT, &"RefCounted", thing_script)
func o_tdict_script_int_empty_wobj(): return Dictionary({}, TYPE_OBJECT, &"RefCounted", thing_script, TYPE_INT, &"", null)

# ---------------------------------------------------------------- packed arrays, 0..5 elements
func c_pba_0(): return PackedByteArray()
func c_pba_1(): return PackedByteArray([1])
func c_pba_2(): return PackedByteArray([1, 2])
func c_pba_3(): return PackedByteArray([1, 2, 3])
func c_pba_4(): return PackedByteArray([1, 2, 3, 4])
func c_pba_5(): return PackedByteArray([1, 2, 3, 4, 5])
func c_pba_extremes(): return PackedByteArray([0, 255, 128, 127, 1])
func c_pi32_0(): return PackedInt32Array()
func c_pi32_1(): return PackedInt32Array([1])
func c_pi32_2(): return PackedInt32Array([1, -2])
func c_pi32_3(): return PackedInt32Array([1, -2, 3])
func c_pi32_4(): return PackedInt32Array([1, -2, 3, -4])
func c_pi32_5(): return PackedInt32Array([1, -2, 3, -4, 5])
func c_pi32_extremes(): return PackedInt32Array([2147483647, -2147483648, 0, -1])
func c_pi64_0(): return PackedInt64Array()
func c_pi64_1(): return PackedInt64Array([1])
func c_pi64_2(): return PackedInt64Array([1, -2])
func c_pi64_3(): return PackedInt64Array([1, -2, 3])
func c_pi64_4(): return PackedInt64Array([1, -2, 3, -4])
func c_pi64_5(): return PackedInt64Array([1, -2, 3, -4, 5])
func c_pi64_extremes(): return PackedInt64Array([9223372036854775807, -9223372036854775807 - 1, 2147483648, -2147483649, 0])
func c_pf32_0(): return PackedFloat32Array()
func c_pf32_1(): return PackedFloat32Array([1.5])
func c_pf32_2(): return PackedFloat32Array([1.5, -2.0])
func c_pf32_3(): return PackedFloat32Array([1.5, -2.0, 0.1])
func c_pf32_4(): return PackedFloat32Array([1.5, -2.0, 0.1, 100.0])
func c_pf32_5(): return PackedFloat32Array([1.5, -2.0, 0.1, 100.0, 0.25])
func c_pf32_extremes(): return PackedFloat32Array([INF, -INF, NAN, -0.0, pow(2.0, -149), (2.0 - pow(2.0, -23)) * pow(2.0, 127)])
func c_pf64_0(): return PackedFloat64Array()
func c_pf64_1(): return PackedFloat64Array([0.1])
func c_pf64_2(): return PackedFloat64Array([0.1, -2.0])
func c_pf64_3(): return PackedFloat64Array([0.1, -2.0, 1.0 / 3.0])
func c_pf64_4(): return PackedFloat64Array([0.1, -2.0, 1.0 / 3.0, 1e300])
func c_pf64_5(): return PackedFloat64Array([0.1, -2.0, 1.0 / 3.0, 1e300, 0.5])
func c_pf64_extremes(): return PackedFloat64Array([INF, -INF, NAN, -0.0, pow(2.0, -1074), 1.7976931348623157e308])
func c_pstr_0(): return PackedStringArray()
func c_pstr_1(): return PackedStringArray(["a"])
func c_pstr_2(): return PackedStringArray(["a", "bc"])
func c_pstr_3(): return PackedStringArray(["a", "bc", "def"])
func c_pstr_4(): return PackedStringArray(["a", "bc", "def", "ghij"])
func c_pstr_5(): return PackedStringArray(["a", "bc", "def", "ghij", ""])
func c_pstr_empty_strings(): return PackedStringArray(["", "", ""])
func c_pstr_extremes(): return PackedStringArray(["é€😀", "line\nbreak", "tab\t\"q\"\\", "abc"])
func c_pv2_0(): return PackedVector2Array()
func c_pv2_1(): return PackedVector2Array([Vector2(1, 2)])
func c_pv2_2(): return PackedVector2Array([Vector2(1, 2), Vector2(-3, 4.5)])
func c_pv2_3(): return PackedVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0)])
func c_pv2_4(): return PackedVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0), Vector2(0.1, 0.2)])
func c_pv2_5(): return PackedVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0), Vector2(0.1, 0.2), Vector2(1e30, -1e-30)])
func c_pv2_extremes(): return PackedVector2Array([Vector2(INF, -INF), Vector2(NAN, -0.0), Vector2(pow(2.0, -149), (2.0 - pow(2.0, -23)) * pow(2.0, 127))])
func c_pv3_0(): return PackedVector3Array()
func c_pv3_1(): return PackedVector3Array([Vector3(1, 2, 3)])
func c_pv3_2(): return PackedVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6)])
func c_pv3_3(): return PackedVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3()])
func c_pv3_4(): return PackedVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3(), Vector3(0.1, 0.2, 0.3)])
func c_pv3_5(): return PackedVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3(), Vector3(0.1, 0.2, 0.3), Vector3(7, 8, 9)])
func c_pv3_extremes(): return PackedVector3Array([Vector3(INF, -INF, NAN), Vector3(-0.0, pow(2.0, -149), (2.0 - pow(2.0, -23)) * pow(2.0, 127))])
func c_pcol_0(): return PackedColorArray()
func c_pcol_1(): return PackedColorArray([Color(1, 0, 0)])
func c_pcol_2(): return PackedColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5)])
func c_pcol_3(): return PackedColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4)])
func c_pcol_4(): return PackedColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4), Color(0, 0, 0, 0)])
func c_pcol_5(): return PackedColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4), Color(0, 0, 0, 0), Color(1, 1, 1)])
func c_pcol_extremes(): return PackedColorArray([Color(INF, -INF, NAN, -0.0), Color(2.5, -1, pow(2.0, -149), (2.0 - pow(2.0, -23)) * pow(2.0, 127))])
func c_pv4_0(): return PackedVector4Array()
func c_pv4_1(): return PackedVector4Array([Vector4(1, 2, 3, 4)])
func c_pv4_2(): return PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-5, 6.5, -7, 8)])
func c_pv4_3(): return PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-5, 6.5, -7, 8), Vector4()])
func c_pv4_4(): return PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-5, 6.5, -7, 8), Vector4(), Vector4(0.1, 0.2, 0.3, 0.4)])
func c_pv4_5(): return PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-5, 6.5, -7, 8), Vector4(), Vector4(0.1, 0.2, 0.3, 0.4), Vector4(9, 10, 11, 12)])
func c_pv4_extremes(): return PackedVector4Array([Vector4(INF, -INF, NAN, -0.0), Vector4(pow(2.0, -149), (2.0 - pow(2.0, -23)) * pow(2.0, 127), -1, 1)])

# ---------------------------------------------------------------- containers holding packed arrays / game state
func c_arr_of_packed(): return [PackedByteArray([1]), PackedInt32Array([2]), PackedStringArray(["s"])]
func c_dict_of_packed(): return {"b": PackedByteArray([1, 2, 3, 4, 5]), "v": PackedVector3Array([Vector3(1, 2, 3)])}
func c_game_state(): return game_state()
