#!/usr/bin/env python3
"""Write tests/data/decode_inputs.tsv: `name<TAB>hex` of malformed and unusual encoded Variants.

Both engines decode every input (see decode4.gd / decode3.gd), whatever dialect it was written for.
Name prefixes: `any_` (ids 0-5, same in both dialects), `g4_` (Godot 4 type ids), `g3_` (Godot 3 ids).
Run: python3 tests/godot/make_decode_inputs.py [output-path]
"""
import os
import struct
import sys

cases = []


def add(name, data):
    assert all(n != name for n, _ in cases), name
    cases.append((name, bytes(data)))


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def i32(v):
    return struct.pack("<i", v)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def f32(v):
    return struct.pack("<f", v)


def f64(v):
    return struct.pack("<d", v)


def hdr(t, flags=0):
    return u32(t | flags)


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def sp(s):
    """String payload: u32 len, bytes, zero padding."""
    if isinstance(s, str):
        s = s.encode()
    return u32(len(s)) + pad4(s)


def truncations(prefix, full, cuts=None):
    """Every proper prefix of `full` that is longer than the header (or the given cut points)."""
    if cuts is None:
        cuts = range(4, len(full))
    for c in cuts:
        if c >= len(full):
            continue
        add("%s_trunc%d" % (prefix, c), full[:c])


FLAG64 = 1 << 16


def dialect(d):
    if d == 4:
        return dict(STRING=4, VECTOR2=5, STRINGNAME=21, NODEPATH=22, RID=23, OBJECT=24, CALLABLE=25, SIGNAL=26,
                    DICT=27, ARRAY=28, PBA=29, PI32=30, PI64=31, PF32=32, PF64=33, PSTR=34, PV2=35, PV3=36,
                    PCOL=37, PV4=38, COLOR=20, TRANSFORM2D=11, VECTOR3=9, VECTOR2I=6, BASIS=17)
    return dict(STRING=4, VECTOR2=5, NODEPATH=15, RID=16, OBJECT=17, DICT=18, ARRAY=19, PBA=20, PI32=21,
                PF32=22, PSTR=23, PV2=24, PV3=25, PCOL=26, COLOR=14, TRANSFORM2D=8, VECTOR3=7, BASIS=12)


# ------------------------------------------------------------------ dialect-independent (ids 0-5)
add("any_empty", b"")
for n in (1, 2, 3):
    add("any_header_only_%d_bytes" % n, u32(2)[:n])
add("any_nil", hdr(0))
add("any_nil_trailing_bytes", hdr(0) + b"\x01\x02\x03\x04")
add("any_nil_bit8", hdr(0, 1 << 8))
add("any_bool_true", hdr(1) + u32(1))
add("any_bool_2", hdr(1) + u32(2))
add("any_bool_ffffffff", hdr(1) + u32(0xFFFFFFFF))
add("any_bool_0x100", hdr(1) + u32(0x100))
truncations("any_bool", hdr(1) + u32(1))
add("any_int_1", hdr(2) + i32(1))
add("any_int_bit8", hdr(2, 1 << 8) + i32(1))
add("any_int_bit17", hdr(2, 1 << 17) + i32(1))
add("any_int_bits_24_31", hdr(2, 0xFF000000) + i32(-5))
add("any_int64_small_value", hdr(2, FLAG64) + u64(7))
add("any_int64_min", hdr(2, FLAG64) + u64(1 << 63))
truncations("any_int32", hdr(2) + i32(-2))
truncations("any_int64", hdr(2, FLAG64) + u64(0x0102030405060708))
add("any_float_f32_1", hdr(3) + f32(1.0))
add("any_float_f64_1", hdr(3, FLAG64) + f64(1.0))
add("any_float_f64_0_1", hdr(3, FLAG64) + f64(0.1))
add("any_float_f32_nan_payload", hdr(3) + u32(0x7FC00001))
add("any_float_f32_snan", hdr(3) + u32(0x7F800001))
add("any_float_f64_neg_nan", hdr(3, FLAG64) + u64(0xFFF8000000000000))
add("any_float_f32_neg0", hdr(3) + u32(0x80000000))
add("any_float_f32_denormal", hdr(3) + u32(1))
add("any_float_f64_denormal", hdr(3, FLAG64) + u64(1))
add("any_float_bit8", hdr(3, 1 << 8) + f32(2.0))
truncations("any_float_f32", hdr(3) + f32(1.5))
truncations("any_float_f64", hdr(3, FLAG64) + f64(0.1))
# String (id 4)
add("any_str_abc", hdr(4) + sp("abc"))
add("any_str_empty", hdr(4) + u32(0))
add("any_str_bit8", hdr(4, 1 << 8) + sp("abc"))
add("any_str_bit16", hdr(4, 1 << 16) + sp("abc"))
add("any_str_bits_all_high", hdr(4, 0xFFFFFF00) + sp("abc"))
truncations("any_str_abcde", hdr(4) + sp("abcde"))
add("any_str_missing_padding_1", hdr(4) + u32(1) + b"a")
add("any_str_missing_padding_3", hdr(4) + u32(5) + b"abcde")
add("any_str_padding_nonzero", hdr(4) + u32(1) + b"a\xff\xfe\xfd")
add("any_str_len_past_end", hdr(4) + u32(8) + b"abcd")
add("any_str_len_negative", hdr(4) + i32(-1) + b"abcd")
add("any_str_len_min_i32", hdr(4) + u32(0x80000000) + b"abcd")
add("any_str_len_huge", hdr(4) + u32(0x7FFFFFFF) + b"abcd")
add("any_str_len_fffffffc", hdr(4) + u32(0xFFFFFFFC) + b"abcd")
add("any_str_bom", hdr(4) + sp(b"\xef\xbb\xbfabc"))
add("any_str_bom_only", hdr(4) + sp(b"\xef\xbb\xbf"))
add("any_str_double_bom", hdr(4) + sp(b"\xef\xbb\xbf\xef\xbb\xbfa"))
add("any_str_bom_middle", hdr(4) + sp(b"a\xef\xbb\xbfb"))
add("any_str_embedded_nul", hdr(4) + sp(b"ab\0cd"))
add("any_str_leading_nul", hdr(4) + sp(b"\0abc"))
add("any_str_nul_then_invalid_utf8", hdr(4) + sp(b"ab\0\xff\xfe"))
add("any_str_invalid_ff", hdr(4) + sp(b"a\xffb"))
add("any_str_invalid_lone_continuation", hdr(4) + sp(b"\x80"))
add("any_str_invalid_truncated_2byte", hdr(4) + sp(b"a\xc3"))
add("any_str_invalid_truncated_4byte", hdr(4) + sp(b"\xf0\x9f\x98"))
add("any_str_overlong_nul", hdr(4) + sp(b"a\xc0\x80b"))
add("any_str_overlong_slash", hdr(4) + sp(b"\xe0\x80\xaf"))
add("any_str_surrogate_high", hdr(4) + sp(b"\xed\xa0\x80"))
add("any_str_surrogate_low", hdr(4) + sp(b"\xed\xbf\xbf"))
add("any_str_surrogate_pair", hdr(4) + sp(b"\xed\xa0\xbd\xed\xb8\x80"))
add("any_str_above_10ffff_4byte", hdr(4) + sp(b"\xf4\x90\x80\x80"))
add("any_str_5byte_form", hdr(4) + sp(b"\xf8\x88\x80\x80\x80"))
add("any_str_6byte_form", hdr(4) + sp(b"\xfc\x84\x80\x80\x80\x80"))
add("any_str_max_codepoint", hdr(4) + sp(b"\xf4\x8f\xbf\xbf"))
add("any_str_ctrl_chars", hdr(4) + sp(b"\x01\x02\t\n\r\x1f\x7f"))
add("any_str_utf8_mix", hdr(4) + sp("é€😀"))
# Vector2 (id 5)
add("any_vec2_f32", hdr(5) + f32(1.5) + f32(-2.0))
add("any_vec2_f64", hdr(5, FLAG64) + f64(0.1) + f64(-2.0))
truncations("any_vec2_f32", hdr(5) + f32(1.5) + f32(-2.0))
truncations("any_vec2_f64", hdr(5, FLAG64) + f64(0.1) + f64(-2.0), cuts=(4, 8, 12, 16, 19))


# ------------------------------------------------------------------ per dialect
def nested_arrays(T, levels):
    out = b""
    for _ in range(levels - 1):
        out += hdr(T["ARRAY"]) + u32(1)
    return out + hdr(T["ARRAY"]) + u32(0)


def int_at_depth(T, depth):
    # `depth` arrays around an int: the int is at depth `depth` (the top-level value is depth 0)
    return (hdr(T["ARRAY"]) + u32(1)) * depth + hdr(2) + i32(7)


def nested_dicts(T, levels):
    # {"k": {"k": ... {}}}
    out = b""
    for _ in range(levels - 1):
        out += hdr(T["DICT"]) + u32(1) + hdr(4) + sp("k")
    return out + hdr(T["DICT"]) + u32(0)


for d in (4, 3):
    T = dialect(d)
    p = "g%d_" % d
    # unknown type ids
    for t in ((39, 40, 63, 64, 255) if d == 4 else (27, 28, 38, 39, 255)):
        add(p + "type_%d" % t, hdr(t) + u32(0) * 4)
    if d == 4:
        add(p + "type_38_pv4_empty", hdr(38) + u32(0))
    # Vector3 / Transform2D / Basis / Color
    add(p + "vec3_f32", hdr(T["VECTOR3"]) + f32(1) + f32(2) + f32(3))
    add(p + "vec3_f64", hdr(T["VECTOR3"], FLAG64) + f64(1) + f64(2) + f64(0.1))
    truncations(p + "vec3", hdr(T["VECTOR3"]) + f32(1) + f32(2) + f32(3))
    add(p + "transform2d_f64", hdr(T["TRANSFORM2D"], FLAG64) + b"".join(f64(x) for x in (1, 2, 3, 4, 5, 6)))
    truncations(p + "transform2d", hdr(T["TRANSFORM2D"]) + b"".join(f32(x) for x in (1, 2, 3, 4, 5, 6)),
                cuts=(4, 8, 24, 27))
    add(p + "basis_f64", hdr(T["BASIS"], FLAG64) + b"".join(f64(x) for x in range(1, 10)))
    add(p + "color_f32", hdr(T["COLOR"]) + b"".join(f32(x) for x in (0.5, 0.25, 1, 1)))
    add(p + "color_flag64", hdr(T["COLOR"], FLAG64) + b"".join(f32(x) for x in (0.5, 0.25, 1, 1)))
    truncations(p + "color", hdr(T["COLOR"]) + b"".join(f32(x) for x in (0.5, 0.25, 1, 1)), cuts=(4, 8, 19))
    if d == 4:
        add(p + "vec2i_flag64", hdr(6, FLAG64) + i32(1) + i32(-2))
        add(p + "vec4_f64", hdr(12, FLAG64) + b"".join(f64(x) for x in (1, 2, 3, 0.1)))
        add(p + "projection_f64", hdr(19, FLAG64) + b"".join(f64(x) for x in range(16)))
        truncations(p + "projection", hdr(19) + b"".join(f32(x) for x in range(16)), cuts=(4, 64, 67))
        # StringName
        add(p + "stringname_abc", hdr(21) + sp("abc"))
        add(p + "stringname_invalid_utf8", hdr(21) + sp(b"\xff"))
        truncations(p + "stringname", hdr(21) + sp("abcde"), cuts=(4, 6, 8, 12, 15))
    # NodePath
    NP = T["NODEPATH"]
    np_full = hdr(NP) + u32(0x80000002) + u32(1) + u32(1) + sp("root") + sp("a") + sp("prop")
    add(p + "nodepath_abs", np_full)
    truncations(p + "nodepath", np_full, cuts=(4, 6, 8, 12, 16, 20, 24, 26, 28, 32, 36, 40, 44))
    add(p + "nodepath_old_format", hdr(NP) + u32(4) + b"root")
    add(p + "nodepath_old_format_empty", hdr(NP) + u32(0))
    add(p + "nodepath_property_flag", hdr(NP) + u32(0x80000001) + u32(1) + u32(2) + sp("a") + sp("b") + sp("c"))
    add(p + "nodepath_property_flag_missing", hdr(NP) + u32(0x80000001) + u32(1) + u32(2) + sp("a") + sp("b"))
    add(p + "nodepath_other_flags", hdr(NP) + u32(0x80000001) + u32(0) + u32(0xFFFFFFF0 | 1) + sp("a"))
    add(p + "nodepath_garbage_padding", hdr(NP) + u32(0x80000002) + u32(0) + u32(0)
        + u32(1) + b"a\x00\xa0\x40" + u32(1) + b"b,\x209")
    add(p + "nodepath_huge_name_count", hdr(NP) + u32(0xFFFFFFFF) + u32(0) + u32(0) + sp("a"))
    add(p + "nodepath_huge_subname_count", hdr(NP) + u32(0x80000000) + u32(0x7FFFFFFF) + u32(0) + sp("a"))
    add(p + "nodepath_negative_name_len", hdr(NP) + u32(0x80000001) + u32(0) + u32(0) + i32(-4) + b"abcd")
    add(p + "nodepath_invalid_utf8", hdr(NP) + u32(0x80000001) + u32(0) + u32(0) + sp(b"\xff"))
    add(p + "nodepath_empty_name", hdr(NP) + u32(0x80000001) + u32(0) + u32(0) + sp(""))
    add(p + "nodepath_name_with_slash", hdr(NP) + u32(0x80000001) + u32(0) + u32(0) + sp("a/b:c"))
    # RID
    if d == 4:
        add(p + "rid_value", hdr(23) + u64(0x1300000000))
        add(p + "rid_zero", hdr(23) + u64(0))
        truncations(p + "rid", hdr(23) + u64(5))
    else:
        add(p + "rid_header_only", hdr(16))
        add(p + "rid_with_payload", hdr(16) + u64(5))
    # Object
    OB = T["OBJECT"]
    add(p + "object_as_id", hdr(OB, FLAG64) + u64(0x123456789))
    add(p + "object_as_id_zero", hdr(OB, FLAG64) + u64(0))
    add(p + "object_as_id_high_bit", hdr(OB, FLAG64) + u64(0x8000000612345678))
    truncations(p + "object_as_id", hdr(OB, FLAG64) + u64(0x123456789))
    add(p + "object_full_null", hdr(OB) + u32(0))
    add(p + "object_full_null_trailing", hdr(OB) + u32(0) + u32(7))
    base = "RefCounted" if d == 4 else "Reference"
    obj_noprop = hdr(OB) + sp(base) + u32(0)
    add(p + "object_full_noprops", obj_noprop)
    obj_prop = hdr(OB) + sp("Resource") + u32(1) + sp("resource_name") + hdr(4) + sp("nm")
    add(p + "object_full_resource_name", obj_prop)
    truncations(p + "object_full_resource_name", obj_prop, cuts=(4, 8, 12, 16, 20, 24, 30, 36, 40, 44, 48))
    add(p + "object_full_script_nil", hdr(OB) + sp(base) + u32(1) + sp("script") + hdr(0))
    add(p + "object_full_script_user_path", hdr(OB) + sp(base) + u32(1) + sp("script") + hdr(4) + sp("user://x.gd"))
    add(p + "object_full_script_int", hdr(OB) + sp(base) + u32(1) + sp("script") + hdr(2) + i32(1))
    if d == 4:
        add(p + "object_full_script_res_thing", hdr(OB) + sp(base) + u32(3) + sp("script") + hdr(4)
            + sp("res://thing.gd") + sp("hp") + hdr(2) + i32(9) + sp("label") + hdr(4) + sp("zz"))
        add(p + "object_full_script_res_missing", hdr(OB) + sp(base) + u32(1) + sp("script") + hdr(4)
            + sp("res://does_not_exist.gd"))
    add(p + "object_full_unknown_class", hdr(OB) + sp("NoSuchClass") + u32(0))
    add(p + "object_full_unknown_property", hdr(OB) + sp(base) + u32(1) + sp("no_such_prop") + hdr(2) + i32(1))
    add(p + "object_full_wrong_property_type", hdr(OB) + sp("Resource") + u32(1) + sp("resource_name")
        + hdr(2) + i32(5))
    add(p + "object_full_negative_count", hdr(OB) + sp(base) + i32(-1))
    add(p + "object_full_huge_count", hdr(OB) + sp(base) + u32(0x7FFFFFFF))
    add(p + "object_full_invalid_class_utf8", hdr(OB) + sp(b"\xff\xfe") + u32(0))
    add(p + "object_full_in_array", hdr(T["ARRAY"]) + u32(2) + hdr(2) + i32(1) + obj_noprop)
    add(p + "object_as_id_in_array", hdr(T["ARRAY"]) + u32(1) + hdr(OB, FLAG64) + u64(77))
    if d == 4:
        # Callable, Signal
        add(p + "callable", hdr(25))
        add(p + "callable_trailing", hdr(25) + u32(1))
        sig = hdr(26) + sp("pressed") + u64(0x123)
        add(p + "signal", sig)
        truncations(p + "signal", sig, cuts=(4, 6, 8, 12, 14, 16, 20, 23))
        add(p + "signal_empty_name", hdr(26) + u32(0) + u64(0))
    # Dictionary / Array
    DI, AR = T["DICT"], T["ARRAY"]
    add(p + "dict_empty", hdr(DI) + u32(0))
    dict1 = hdr(DI) + u32(1) + hdr(4) + sp("a") + hdr(2) + i32(1)
    add(p + "dict_one", dict1)
    truncations(p + "dict_one", dict1, cuts=(4, 6, 8, 12, 14, 16, 20, 24, 26, 28))
    add(p + "dict_count_bit31", hdr(DI) + u32(0x80000001) + hdr(4) + sp("a") + hdr(2) + i32(1))
    add(p + "dict_count_bit31_zero", hdr(DI) + u32(0x80000000))
    add(p + "dict_count_huge", hdr(DI) + u32(0x7FFFFFFF) + hdr(0) + hdr(0))
    add(p + "dict_count_ffffffff", hdr(DI) + u32(0xFFFFFFFF))
    add(p + "dict_duplicate_keys", hdr(DI) + u32(2) + hdr(4) + sp("a") + hdr(2) + i32(1) + hdr(4) + sp("a")
        + hdr(2) + i32(2))
    add(p + "dict_nil_key", hdr(DI) + u32(1) + hdr(0) + hdr(2) + i32(1))
    add(p + "dict_array_key", hdr(DI) + u32(1) + hdr(AR) + u32(1) + hdr(2) + i32(1) + hdr(0))
    add(p + "dict_bad_key_type", hdr(DI) + u32(1) + hdr(255) + hdr(0))
    add(p + "dict_bit8", hdr(DI, 1 << 8) + u32(0))
    add(p + "array_empty", hdr(AR) + u32(0))
    arr = hdr(AR) + u32(2) + hdr(2) + i32(1) + hdr(4) + sp("xy")
    add(p + "array_two", arr)
    truncations(p + "array_two", arr, cuts=(4, 6, 8, 12, 14, 16, 20, 22, 24))
    add(p + "array_count_bit31", hdr(AR) + u32(0x80000001) + hdr(2) + i32(1))
    add(p + "array_count_bit31_zero", hdr(AR) + u32(0x80000000))
    add(p + "array_count_huge", hdr(AR) + u32(0x7FFFFFFF) + hdr(0))
    add(p + "array_count_ffffffff", hdr(AR) + u32(0xFFFFFFFF))
    add(p + "array_bad_element_type", hdr(AR) + u32(1) + hdr(255))
    add(p + "array_bit8", hdr(AR, 1 << 8) + u32(0))
    add(p + "array_trailing", hdr(AR) + u32(0) + u32(0xDEADBEEF))
    for lv in (1024, 1025, 1026):
        add(p + "array_nested_%d_levels" % lv, nested_arrays(T, lv))
    for lv in (1025, 1026):
        add(p + "dict_nested_%d_levels" % lv, nested_dicts(T, lv))
    # FORMAT.md says a *container* deeper than 1024 is an error; the engine rejects any value
    for depth in (1024, 1025):
        add(p + "int_at_depth_%d" % depth, int_at_depth(T, depth))
    if d == 4:
        # typed containers: Array kind in bits 16-17; Dictionary key kind bits 16-17, value kind bits 18-19
        add(p + "tarray_int", hdr(AR, 1 << 16) + u32(2) + u32(2) + hdr(2) + i32(1) + hdr(2) + i32(2))
        add(p + "tarray_int_empty", hdr(AR, 1 << 16) + u32(2) + u32(0))
        add(p + "tarray_bad_type_39", hdr(AR, 1 << 16) + u32(39) + u32(0))
        add(p + "tarray_bad_type_255", hdr(AR, 1 << 16) + u32(255) + u32(0))
        add(p + "tarray_type_nil", hdr(AR, 1 << 16) + u32(0) + u32(0))
        add(p + "tarray_type_object_builtin", hdr(AR, 1 << 16) + u32(24) + u32(0))
        add(p + "tarray_int_holding_string", hdr(AR, 1 << 16) + u32(2) + u32(1) + hdr(4) + sp("x"))
        add(p + "tarray_int_holding_float", hdr(AR, 1 << 16) + u32(2) + u32(1) + hdr(3) + f32(1.5))
        add(p + "tarray_missing_type", hdr(AR, 1 << 16))
        add(p + "tarray_kind_class_node", hdr(AR, 2 << 16) + sp("Node") + u32(0))
        add(p + "tarray_kind_class_encodedasid", hdr(AR, 2 << 16) + sp("EncodedObjectAsID") + u32(0))
        add(p + "tarray_kind_class_encodedasid_elem", hdr(AR, 2 << 16) + sp("EncodedObjectAsID") + u32(1)
            + hdr(OB, FLAG64) + u64(99))
        add(p + "tarray_kind_class_unknown", hdr(AR, 2 << 16) + sp("NoSuchClass") + u32(0))
        add(p + "tarray_kind_class_empty", hdr(AR, 2 << 16) + sp("") + u32(0))
        add(p + "tarray_kind_script_thing", hdr(AR, 3 << 16) + sp("res://thing.gd") + u32(0))
        add(p + "tarray_kind_script_missing", hdr(AR, 3 << 16) + sp("res://nope.gd") + u32(0))
        add(p + "tarray_kind_script_not_res", hdr(AR, 3 << 16) + sp("user://x.gd") + u32(0))
        add(p + "tarray_kind_script_empty", hdr(AR, 3 << 16) + sp("") + u32(0))
        add(p + "tarray_class_truncated", hdr(AR, 2 << 16) + u32(4) + b"No")
        add(p + "tdict_str_int", hdr(DI, (1 << 16) | (1 << 18)) + u32(4) + u32(2) + u32(1) + hdr(4) + sp("a")
            + hdr(2) + i32(1))
        add(p + "tdict_key_only", hdr(DI, 1 << 16) + u32(2) + u32(0))
        add(p + "tdict_value_only", hdr(DI, 1 << 18) + u32(4) + u32(0))
        add(p + "tdict_bad_key_type", hdr(DI, (1 << 16) | (1 << 18)) + u32(39) + u32(2) + u32(0))
        add(p + "tdict_bad_value_type", hdr(DI, (1 << 16) | (1 << 18)) + u32(4) + u32(200) + u32(0))
        add(p + "tdict_value_missing_type", hdr(DI, (1 << 16) | (1 << 18)) + u32(4))
        add(p + "tdict_wrong_key", hdr(DI, (1 << 16) | (1 << 18)) + u32(4) + u32(2) + u32(1) + hdr(2) + i32(1)
            + hdr(2) + i32(1))
        add(p + "tdict_class_value", hdr(DI, (1 << 16) | (2 << 18)) + u32(4) + sp("Node") + u32(0))
        add(p + "tdict_script_key", hdr(DI, 3 << 16) + sp("res://thing.gd") + u32(0))
    # Packed / Pool arrays
    PBA = T["PBA"]
    add(p + "pba_3", hdr(PBA) + u32(3) + b"\x01\x02\x03\x00")
    add(p + "pba_missing_padding", hdr(PBA) + u32(3) + b"\x01\x02\x03")
    add(p + "pba_missing_padding_1", hdr(PBA) + u32(1) + b"\x07")
    add(p + "pba_nonzero_padding", hdr(PBA) + u32(1) + b"\x07\xff\xff\xff")
    add(p + "pba_short", hdr(PBA) + u32(3) + b"\x01\x02")
    add(p + "pba_negative_count", hdr(PBA) + i32(-1) + b"\0" * 4)
    add(p + "pba_huge_count", hdr(PBA) + u32(0x7FFFFFFF) + b"\0" * 4)
    add(p + "pba_missing_count", hdr(PBA) + b"\x01\x00")
    add(p + "pba_in_array_missing_padding", hdr(AR) + u32(2) + hdr(PBA) + u32(1) + b"\x07" + hdr(2) + i32(1))
    add(p + "pba_in_array_then_int", hdr(AR) + u32(2) + hdr(PBA) + u32(1) + b"\x07\0\0\0" + hdr(2) + i32(1))
    PI32 = T["PI32"]
    add(p + "pi32_2", hdr(PI32) + u32(2) + i32(-1) + i32(2))
    truncations(p + "pi32_2", hdr(PI32) + u32(2) + i32(-1) + i32(2), cuts=(4, 6, 8, 12, 15))
    add(p + "pi32_negative_count", hdr(PI32) + i32(-1) + i32(0))
    add(p + "pi32_count_overflow_2p30", hdr(PI32) + u32(0x40000000) + i32(0))
    add(p + "pi32_count_huge", hdr(PI32) + u32(0x7FFFFFFF) + i32(0))
    PF32 = T["PF32"]
    add(p + "pf32_2", hdr(PF32) + u32(2) + f32(0.5) + f32(-1))
    add(p + "pf32_flag64", hdr(PF32, FLAG64) + u32(2) + f32(0.5) + f32(-1))
    add(p + "pf32_count_overflow", hdr(PF32) + u32(0x40000001) + f32(0))
    add(p + "pf32_short", hdr(PF32) + u32(2) + f32(0.5))
    if d == 4:
        add(p + "pi64_2", hdr(31) + u32(2) + u64(1 << 63) + u64(5))
        truncations(p + "pi64_2", hdr(31) + u32(2) + u64(1 << 63) + u64(5), cuts=(4, 8, 12, 16, 20, 24, 27))
        add(p + "pi64_count_overflow_2p29", hdr(31) + u32(0x20000000) + u64(0))
        add(p + "pi64_count_overflow_2p61", hdr(31) + u32(0x7FFFFFFF) + u64(0))
        add(p + "pi64_negative_count", hdr(31) + i32(-2) + u64(0))
        add(p + "pf64_2", hdr(33) + u32(2) + f64(0.1) + f64(-0.0))
        add(p + "pf64_short", hdr(33) + u32(2) + f64(0.1) + b"\0\0\0\0")
        add(p + "pf64_count_overflow", hdr(33) + u32(0x20000001) + f64(0))
        add(p + "pf64_negative_count", hdr(33) + i32(-1))
        add(p + "pv4_1_f32", hdr(38) + u32(1) + b"".join(f32(x) for x in (1, 2, 3, 4)))
        add(p + "pv4_1_f64", hdr(38, FLAG64) + u32(1) + b"".join(f64(x) for x in (1, 2, 3, 0.1)))
        add(p + "pv4_short", hdr(38) + u32(1) + b"".join(f32(x) for x in (1, 2, 3)))
        add(p + "pv4_count_overflow", hdr(38) + u32(0x10000001) + f32(0) * 4)
    PSTR = T["PSTR"]
    add(p + "pstr_2", hdr(PSTR) + u32(2) + sp(b"a\0") + sp(b"bc\0"))
    add(p + "pstr_no_nul", hdr(PSTR) + u32(2) + sp(b"a") + sp(b"bc"))
    add(p + "pstr_embedded_nul", hdr(PSTR) + u32(1) + sp(b"ab\0cd\0"))
    add(p + "pstr_empty_entry_len0", hdr(PSTR) + u32(1) + u32(0))
    add(p + "pstr_invalid_utf8", hdr(PSTR) + u32(1) + sp(b"\xff\0"))
    add(p + "pstr_negative_count", hdr(PSTR) + i32(-1))
    add(p + "pstr_huge_count", hdr(PSTR) + u32(0x7FFFFFFF) + sp(b"a\0"))
    add(p + "pstr_entry_len_negative", hdr(PSTR) + u32(1) + i32(-1) + b"abcd")
    add(p + "pstr_entry_missing_padding", hdr(PSTR) + u32(1) + u32(2) + b"a\0")
    truncations(p + "pstr_2", hdr(PSTR) + u32(2) + sp(b"a\0") + sp(b"bc\0"), cuts=(4, 6, 8, 12, 14, 16, 20, 22))
    PV2, PV3, PCOL = T["PV2"], T["PV3"], T["PCOL"]
    add(p + "pv2_1", hdr(PV2) + u32(1) + f32(1) + f32(2))
    add(p + "pv2_1_f64", hdr(PV2, FLAG64) + u32(1) + f64(0.1) + f64(2))
    add(p + "pv2_short", hdr(PV2) + u32(2) + f32(1) + f32(2) + f32(3))
    add(p + "pv2_count_overflow", hdr(PV2) + u32(0x20000001) + f32(0) * 2)
    add(p + "pv2_negative_count", hdr(PV2) + i32(-1))
    add(p + "pv3_1", hdr(PV3) + u32(1) + f32(1) + f32(2) + f32(3))
    add(p + "pv3_1_f64", hdr(PV3, FLAG64) + u32(1) + f64(0.1) + f64(2) + f64(3))
    add(p + "pv3_short", hdr(PV3) + u32(1) + f32(1) + f32(2))
    add(p + "pv3_count_overflow", hdr(PV3) + u32(0x15555556) + f32(0) * 3)
    add(p + "pcol_1", hdr(PCOL) + u32(1) + f32(1) + f32(0) + f32(0) + f32(1))
    add(p + "pcol_1_flag64", hdr(PCOL, FLAG64) + u32(1) + f32(1) + f32(0) + f32(0) + f32(1))
    add(p + "pcol_short", hdr(PCOL) + u32(1) + f32(1) + f32(0) + f32(0))
    add(p + "pcol_count_overflow", hdr(PCOL) + u32(0x10000001) + f32(0) * 4)

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "..", "data", "decode_inputs.tsv")
with open(out, "w") as f:
    for name, data in cases:
        f.write("%s\t%s\n" % (name, data.hex()))
print("wrote %d decode inputs to %s" % (len(cases), out), file=sys.stderr)
