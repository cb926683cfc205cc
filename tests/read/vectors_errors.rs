//! Error vectors with their kinds, offsets and messages; accessors on the wrong type are errors.

use crate::common;

// Hex with spaces for readability.
use common::unhex_spaced as bytes;
use common::walk::lazy_accept;
use gdvariant::{ErrorKind, ReadOptions, VariantType};

use crate::vectors::{G3, G4, G4O};

struct Bad {
    name: &'static str,
    opts: ReadOptions,
    hex: &'static str,
    kind: ErrorKind,
    offset: usize,
}

fn bad(
    name: &'static str,
    opts: ReadOptions,
    hex: &'static str,
    kind: ErrorKind,
    offset: usize,
) -> Bad {
    Bad {
        name,
        opts,
        hex,
        kind,
        offset,
    }
}

fn eof(needed: usize) -> ErrorKind {
    ErrorKind::UnexpectedEof { needed }
}

fn bad_vectors() -> Vec<Bad> {
    use ErrorKind as K;
    vec![
        bad("empty", G4, "", eof(4), 0),
        bad("header_3_bytes", G4, "020000", eof(1), 0),
        bad("bool_no_payload", G4, "01000000", eof(4), 4),
        bad("int_short", G4, "02000000 0500", eof(2), 4),
        bad("int64_short", G4, "02000100 05000000", eof(4), 4),
        bad("float64_short", G4, "03000100 00000000 0000", eof(2), 4),
        bad("unknown_type_39", G4, "27000000", K::UnknownType { id: 39 }, 0),
        bad("unknown_type_255", G4, "ff000000", K::UnknownType { id: 255 }, 0),
        bad("g3_unknown_type_27", G3, "1b000000", K::UnknownType { id: 27 }, 0),
        bad("str_negative_len", G4, "04000000 ffffffff", K::NegativeLength { value: -1 }, 4),
        bad("str_len_past_end", G4, "04000000 08000000 61626364", eof(4), 8),
        bad("str_missing_pad", G4, "04000000 01000000 61", eof(3), 8),
        bad("str_no_len", G4, "04000000 0100", eof(2), 4),
        bad("str_invalid_utf8", G4, "04000000 01000000 ff000000", K::InvalidUtf8, 8),
        bad("str_invalid_after_bom", G4, "04000000 05000000 efbbbf61 ff000000", K::InvalidUtf8, 12),
        bad("str_g4_surrogate", G4, "04000000 03000000 eda08000", K::InvalidUtf8, 8),
        bad("str_g4_overlong", G4, "04000000 03000000 e080af00", K::InvalidUtf8, 8),
        bad("str_g3_c0_80", G3, "04000000 02000000 c0800000", K::InvalidUtf8, 8),
        bad("str_g3_bad_continuation", G3, "04000000 04000000 61e228a1", K::InvalidUtf8, 10),
        bad("string_name_invalid", G4, "15000000 01000000 80000000", K::InvalidUtf8, 8),
        bad("vector3_short", G4, "09000000 0000803f 00000040", eof(4), 4),
        bad("vector3_f64_short", G4, "09000100 0000803f 00000040 00004040", eof(12), 4),
        bad("projection_short", G4, "13000000", eof(64), 4),
        bad("color_short", G4, "14000000 0000803f", eof(12), 4),
        bad("nodepath_old_format", G4, "16000000 01000000 00000000 00000000", K::OldNodePathFormat, 4),
        bad("g3_nodepath_old_format", G3, "0f000000 00000000", K::OldNodePathFormat, 4),
        bad("nodepath_short_head", G4, "16000000 01000080 00000000", eof(4), 12),
        bad("nodepath_missing_name", G4, "16000000 01000080 00000000 00000000", eof(4), 16),
        bad("nodepath_property_flag_needs_subname", G4, "16000000 01000080 00000000 02000000 01000000 61000000", eof(4), 24),
        bad("nodepath_invalid_name", G4, "16000000 01000080 00000000 00000000 01000000 fe000000", K::InvalidUtf8, 20),
        bad("rid_short", G4, "17000000 01000000", eof(4), 4),
        bad("object_full_not_allowed", G4, "18000000 04000000 4e6f6465 00000000", K::ObjectsNotAllowed, 0),
        bad("object_null_full_not_allowed", G4, "18000000 00000000", K::ObjectsNotAllowed, 0),
        bad("g3_object_full_not_allowed", G3, "11000000 00000000", K::ObjectsNotAllowed, 0),
        bad(
            "object_script_not_res",
            G4O,
            "18000000 04000000 4e6f6465 01000000 06000000 73637269 70740000 04000000 0b000000 75736572 3a2f2f61 2e676400",
            K::InvalidObjectScript,
            28,
        ),
        bad(
            "object_script_int",
            G4O,
            "18000000 04000000 4e6f6465 01000000 06000000 73637269 70740000 02000000 01000000",
            K::InvalidObjectScript,
            28,
        ),
        bad("object_missing_count", G4O, "18000000 04000000 4e6f6465", eof(4), 12),
        bad("object_id_short", G4, "18000100 00000000", eof(4), 4),
        bad("signal_short", G4, "1a000000 01000000 61000000 01000000", eof(4), 12),
        bad("array_missing_count", G4, "1c000000", eof(4), 4),
        bad("array_missing_element", G4, "1c000000 01000000", eof(4), 8),
        bad(
            "array_third_int_cut",
            G4,
            "1c000000 03000000 02000000 01000000 02000000 02000000 02000000",
            eof(4),
            28,
        ),
        bad("array_typed_bad_builtin", G4, "1c000100 27000000 00000000", K::InvalidContainerType { id: 39 }, 4),
        bad("array_typed_script_not_res", G4O, "1c000300 03000000 61626300 00000000", K::InvalidObjectScript, 4),
        bad("array_typed_class_invalid_utf8", G4, "1c000200 01000000 ff000000 00000000", K::InvalidUtf8, 8),
        bad("array_element_invalid_utf8", G4, "1c000000 01000000 04000000 01000000 c3000000", K::InvalidUtf8, 16),
        bad("dict_missing_value", G4, "1b000000 01000000 00000000", eof(4), 12),
        bad("dict_typed_bad_value", G4, "1b000500 04000000 63000000 00000000", K::InvalidContainerType { id: 99 }, 8),
        bad("pba_negative", G4, "1d000000 ffffffff", K::NegativeLength { value: -1 }, 4),
        bad("pba_short", G4, "1d000000 05000000 01020304", eof(1), 8),
        bad("pi32_negative", G4, "1e000000 feffffff", K::NegativeLength { value: -2 }, 4),
        bad("pi32_short", G4, "1e000000 03000000 01000000 02000000", eof(4), 8),
        bad("pi32_overflow", G4, "1e000000 ffffff7f", K::LengthOverflow, 8),
        bad("pi64_overflow", G4, "1f000000 00000040", K::LengthOverflow, 8),
        bad("pv3_f64_short", G4, "24000100 01000000 0000803f 00000040 00004040", eof(12), 8),
        bad("pcolor_overflow", G4, "25000000 00000008", K::LengthOverflow, 8),
        bad("pv4_f64_overflow", G4, "26000100 00000004", K::LengthOverflow, 8),
        bad("pstr_entry_short", G4, "22000000 02000000 01000000 61000000", eof(4), 16),
        bad("pstr_entry_invalid", G4, "22000000 01000000 02000000 ff000000", K::InvalidUtf8, 12),
        bad("g3_pool_real_negative", G3, "16000000 00000080", K::NegativeLength { value: i32::MIN }, 4),
    ]
}

#[test]
fn error_vectors_report_kind_and_offset() {
    let bads = bad_vectors();
    assert!(bads.len() > 50);
    for t in &bads {
        let b = bytes(t.hex);
        let e = gdvariant::validate_with(&b, &t.opts).expect_err(t.name);
        assert_eq!(
            (e.kind(), e.offset()),
            (t.kind, t.offset),
            "{}: validate",
            t.name
        );
        // The lazy walk finds the same problem at the same place.
        let l = lazy_accept(&b, &t.opts).expect_err(t.name);
        assert_eq!(
            (l.kind(), l.offset()),
            (t.kind, t.offset),
            "{}: lazy",
            t.name
        );
        assert_eq!(e.to_string(), format!("{} at offset {}", t.kind, t.offset));
    }
}

#[test]
fn error_display_reads_well() {
    let b = bytes("1c000000 03000000 02000000 01000000 02000000 02000000 02000000");
    let e = gdvariant::validate(&b).unwrap_err();
    assert_eq!(e.to_string(), "unexpected end of input at offset 28");
    let e = gdvariant::validate(&bytes("04000000 ffffffff")).unwrap_err();
    assert_eq!(e.to_string(), "negative length -1 at offset 4");
    let e = gdvariant::validate(&bytes("27000000")).unwrap_err();
    assert_eq!(e.to_string(), "unknown type id 39 at offset 0");
    let e = gdvariant::validate(&bytes("16000000 01000000")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "NodePath in the old Godot 2 format at offset 4"
    );
}

#[test]
fn accessor_type_mismatch_is_an_error_not_a_panic() {
    let b = bytes("02000000 05000000");
    let v = gdvariant::parse(&b).unwrap();
    let e = v.as_str().unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::WrongType {
            found: VariantType::Int,
            ..
        }
    ));
    assert_eq!(e.offset(), 0);
    assert!(v.as_f64().is_err());
    assert!(v.as_array().is_err());
    assert!(v.as_packed::<f32>().is_err());
    assert!(v.as_vector3().is_err());
    assert!(v.as_string_name().is_err());
    // A Godot 4 value read as Godot 3 means something else (id 9 is Plane there).
    let b = bytes("09000000 0000803f0000004000004040");
    assert_eq!(
        gdvariant::validate_with(&b, &G3).unwrap_err().kind(),
        ErrorKind::UnexpectedEof { needed: 4 }
    );
}
