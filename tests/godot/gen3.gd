# Godot 3 golden-data generator. Run by tests/godot/regen.sh as:
#   godot3-server -s gen3.gd        (working directory = scratch dir = res://)
# Writes res://encode.tsv (name, flags, hex of bytes, hex of var2str text).
#
# Every case is its own function (GDScript pools constants per function and merges 0.0 with -0.0):
#   c_<name>()  -> encoded with var2bytes(v)        (flags "-")
#   o_<name>()  -> encoded with var2bytes(v, true)  (flags "objects"); names end in "_wobj"
# Cases are emitted sorted by function name (Godot 3's method list order is arbitrary).
extends SceneTree

var out = File.new()
var names = {}
var thing_script
var keep = []

const THING_SRC = "extends Reference\nvar hp = 5\nvar label = \"thing\"\n"

func _init():
	var sf = File.new()
	sf.open("res://thing3.gd", File.WRITE)
	sf.store_string(THING_SRC)
	sf.close()
	thing_script = load("res://thing3.gd")
	out.open("res://encode.tsv", File.WRITE)
	var count = 0
	var fnames = []
	for m in get_method_list():
		var n = m["name"]
		if n.begins_with("c_") or n.begins_with("o_"):
			fnames.append(n)
	fnames.sort()   # 3.x's method list order is not stable
	for n in fnames:
		if n.begins_with("c_"):
			emit(n.substr(2, n.length() - 2), call(n), false)
			count += 1
		elif n.begins_with("o_"):
			emit(n.substr(2, n.length() - 2), call(n), true)
			count += 1
	out.close()
	for o in keep:
		if o is Object and not (o is Reference) and is_instance_valid(o):
			o.free()
	keep.clear()
	print("gen3: wrote %d cases" % count)
	quit()

func emit(name, v, objects):
	if names.has(name):
		push_error("duplicate case name " + name)
		quit()
	names[name] = true
	var b = var2bytes(v, objects)
	var s = var2str(v)
	out.store_string("%s\t%s\t%s\t%s\n" % [name, "objects" if objects else "-", b.hex_encode(), s.to_utf8().hex_encode()])

func game_state():
	var ents = []
	for i in range(8):
		ents.append({
			"id": i,
			"name": "entity_%d" % i,
			"pos": Vector3(i, i * 0.5, -i),
			"vel": Vector3(0.25, 0, -1.5),
			"hp": 100.0 - i * 0.25,
			"tags": PoolStringArray(["player" if i == 0 else "npc", "team_%d" % (i % 4)]),
		})
	return {"tick": 123456, "entities": ents}

func mk_thing(hp, label):
	var t = thing_script.new()
	t.hp = hp
	t.label = label
	keep.append(t)
	return t

func mk_node(n):
	var nd = Node.new()
	nd.name = n
	keep.append(nd)
	return nd

func f32_max():
	return (2.0 - pow(2.0, -23)) * pow(2.0, 127)

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
func c_float_1e39_literal(): return 1e39
func c_float_1e10(): return 1e10
func c_float_16777216(): return 16777216.0
func c_float_16777217(): return 16777217.0
func c_float_f32_max(): return f32_max()
func c_float_f32_max_next(): return f32_max() + pow(2.0, 75)
func c_float_f64_max(): return 1.7976931348623157e308
func c_float_123_456(): return 123.456
func c_float_pi(): return PI
func c_float_m1e_minus5(): return -1e-5
func c_float_2p53_p2(): return pow(2.0, 53) + 2.0

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
func c_str_ctrl_01(): return "x" + char(1) + "y"
func c_str_cr(): return "a\r\nb"
func c_str_all_escapes(): return "\"\\\n\t" + char(1) + "é€😀"
func c_str_long(): return "The quick brown fox jumps over the lazy dog"

# ---------------------------------------------------------------- vectors and math
func c_vec2_zero(): return Vector2()
func c_vec2(): return Vector2(1.5, -2.25)
func c_vec2_inexact(): return Vector2(0.1, 1.0 / 3.0)
func c_vec2_nonfinite(): return Vector2(INF, -INF)
func c_vec2_nan(): return Vector2(NAN, -0.0)
func c_vec3_zero(): return Vector3()
func c_vec3(): return Vector3(1.0, -2.5, 3.25)
func c_vec3_inexact(): return Vector3(0.1, 0.2, 0.3)
func c_rect2(): return Rect2(1.0, 2.0, 3.5, 4.5)
func c_rect2_zero(): return Rect2()
func c_transform2d_identity(): return Transform2D()
func c_transform2d(): return Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))
func c_transform2d_rot(): return Transform2D(0.5, Vector2(10, -20))
func c_plane(): return Plane(Vector3(0, 1, 0), 2.5)
func c_plane_raw(): return Plane(1, 2, 3, 4)
func c_quat_identity(): return Quat()
func c_quat(): return Quat(0.1, 0.2, 0.3, 0.9)
func c_aabb(): return AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))
func c_aabb_zero(): return AABB()
func c_basis_identity(): return Basis()
func c_basis_nonsym(): return Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))
func c_transform_identity(): return Transform()
func c_transform(): return Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12))
func c_color(): return Color(0.1, 0.2, 0.3, 0.4)
func c_color_red(): return Color(1, 0, 0)
func c_color_hdr(): return Color(2.5, -1.0, 0.0, 1.0)

# ---------------------------------------------------------------- NodePath (padding bytes are garbage)
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
func c_obj_as_id():
	var o = ClassDB.instance("Object")
	keep.append(o)
	return o
func c_obj_reference_as_id():
	var o = Reference.new()
	keep.append(o)
	return o
func c_obj_null_typed():
	var o: Object = null
	return o
func c_obj_freed():
	var o = ClassDB.instance("Object")
	o.free()
	return o
func o_obj_object_wobj():
	var o = ClassDB.instance("Object")
	keep.append(o)
	return o
func o_obj_reference_wobj():
	var o = Reference.new()
	keep.append(o)
	return o
func o_obj_resource_wobj():
	var r = Resource.new()
	r.resource_name = "res_name"
	keep.append(r)
	return r
func o_obj_scripted_wobj(): return mk_thing(42, "hello")
func o_obj_null_typed_wobj():
	var o: Object = null
	return o
func o_obj_freed_wobj():
	var o = ClassDB.instance("Object")
	o.free()
	return o
func o_obj_nested_in_array_wobj(): return [mk_thing(1, "a"), mk_thing(2, "b")]
func o_obj_in_dict_wobj(): return {"thing": mk_thing(7, "é")}
func o_int_1_wobj(): return 1
func o_str_wobj(): return "abc"
func o_dict_plain_wobj(): return {"a": [1, 2.5, "x"]}

# ---------------------------------------------------------------- Array
func c_arr_empty(): return []
func c_arr_one(): return [1]
func c_arr_mixed(): return [1, "two", 3.5, null, true, Vector2(1, 2)]
func c_arr_nested(): return [[1, 2], [3, [4, [5]]], []]
func c_arr_deep_empty(): return [[[[]]]]
func c_arr_floats(): return [0.1, -0.0, 1.0, NAN]
func c_arr_of_dicts(): return [{}, {"a": 1}]
func c_arr_with_node(): return [mk_node("n1")]

# ---------------------------------------------------------------- Dictionary
func c_dict_empty(): return {}
func c_dict_one(): return {"a": 1}
func c_dict_nested(): return {"a": {"b": {"c": [1, 2, {"d": null}]}}}
func c_dict_mixed_keys():
	var d = {}
	d[1] = "int"
	d["1"] = "string"
	d[1.5] = "float"
	d[Vector2(1, 2)] = "vec2"
	d[null] = "nil"
	d[true] = false
	d[[1, 2]] = "array key"
	d[NodePath("a/b")] = "nodepath"
	return d
func c_dict_insertion_order(): return {"z": 1, "a": 2, "m": 3, 10: 4, 2: 5}
func c_dict_values_all(): return {"i": -5, "f": 0.1, "s": "é", "v": Vector3(1, 2, 3), "c": Color(1, 1, 1, 1), "p": PoolByteArray([1, 2, 3])}

# ---------------------------------------------------------------- pool arrays, 0..5 elements
func c_pba_0(): return PoolByteArray()
func c_pba_1(): return PoolByteArray([1])
func c_pba_2(): return PoolByteArray([1, 2])
func c_pba_3(): return PoolByteArray([1, 2, 3])
func c_pba_4(): return PoolByteArray([1, 2, 3, 4])
func c_pba_5(): return PoolByteArray([1, 2, 3, 4, 5])
func c_pba_extremes(): return PoolByteArray([0, 255, 128, 127, 1])
func c_pint_0(): return PoolIntArray()
func c_pint_1(): return PoolIntArray([1])
func c_pint_2(): return PoolIntArray([1, -2])
func c_pint_3(): return PoolIntArray([1, -2, 3])
func c_pint_4(): return PoolIntArray([1, -2, 3, -4])
func c_pint_5(): return PoolIntArray([1, -2, 3, -4, 5])
func c_pint_extremes(): return PoolIntArray([2147483647, -2147483648, 0, -1])
func c_preal_0(): return PoolRealArray()
func c_preal_1(): return PoolRealArray([1.5])
func c_preal_2(): return PoolRealArray([1.5, -2.0])
func c_preal_3(): return PoolRealArray([1.5, -2.0, 0.1])
func c_preal_4(): return PoolRealArray([1.5, -2.0, 0.1, 100.0])
func c_preal_5(): return PoolRealArray([1.5, -2.0, 0.1, 100.0, 0.25])
func c_preal_extremes(): return PoolRealArray([INF, -INF, NAN, -0.0, pow(2.0, -149), f32_max()])
func c_pstr_0(): return PoolStringArray()
func c_pstr_1(): return PoolStringArray(["a"])
func c_pstr_2(): return PoolStringArray(["a", "bc"])
func c_pstr_3(): return PoolStringArray(["a", "bc", "def"])
func c_pstr_4(): return PoolStringArray(["a", "bc", "def", "ghij"])
func c_pstr_5(): return PoolStringArray(["a", "bc", "def", "ghij", ""])
func c_pstr_empty_strings(): return PoolStringArray(["", "", ""])
func c_pstr_extremes(): return PoolStringArray(["é€😀", "line\nbreak", "tab\t\"q\"\\", "abc"])
func c_pv2_0(): return PoolVector2Array()
func c_pv2_1(): return PoolVector2Array([Vector2(1, 2)])
func c_pv2_2(): return PoolVector2Array([Vector2(1, 2), Vector2(-3, 4.5)])
func c_pv2_3(): return PoolVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0)])
func c_pv2_4(): return PoolVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0), Vector2(0.1, 0.2)])
func c_pv2_5(): return PoolVector2Array([Vector2(1, 2), Vector2(-3, 4.5), Vector2(0, 0), Vector2(0.1, 0.2), Vector2(1e30, -1e-30)])
func c_pv2_extremes(): return PoolVector2Array([Vector2(INF, -INF), Vector2(NAN, -0.0), Vector2(pow(2.0, -149), f32_max())])
func c_pv3_0(): return PoolVector3Array()
func c_pv3_1(): return PoolVector3Array([Vector3(1, 2, 3)])
func c_pv3_2(): return PoolVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6)])
func c_pv3_3(): return PoolVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3()])
func c_pv3_4(): return PoolVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3(), Vector3(0.1, 0.2, 0.3)])
func c_pv3_5(): return PoolVector3Array([Vector3(1, 2, 3), Vector3(-4, 5.5, -6), Vector3(), Vector3(0.1, 0.2, 0.3), Vector3(7, 8, 9)])
func c_pv3_extremes(): return PoolVector3Array([Vector3(INF, -INF, NAN), Vector3(-0.0, pow(2.0, -149), f32_max())])
func c_pcol_0(): return PoolColorArray()
func c_pcol_1(): return PoolColorArray([Color(1, 0, 0)])
func c_pcol_2(): return PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5)])
func c_pcol_3(): return PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4)])
func c_pcol_4(): return PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4), Color(0, 0, 0, 0)])
func c_pcol_5(): return PoolColorArray([Color(1, 0, 0), Color(0, 1, 0, 0.5), Color(0.1, 0.2, 0.3, 0.4), Color(0, 0, 0, 0), Color(1, 1, 1)])
func c_pcol_extremes(): return PoolColorArray([Color(INF, -INF, NAN, -0.0), Color(2.5, -1, pow(2.0, -149), f32_max())])

# ---------------------------------------------------------------- containers holding pool arrays / game state
func c_arr_of_pool(): return [PoolByteArray([1]), PoolIntArray([2]), PoolStringArray(["s"])]
func c_dict_of_pool(): return {"b": PoolByteArray([1, 2, 3, 4, 5]), "v": PoolVector3Array([Vector3(1, 2, 3)])}
func c_game_state(): return game_state()
