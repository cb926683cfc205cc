//! The table's Godot 4 Dictionary, Array and packed array vectors (see `vectors`).

use gdvariant::{array::ContainerType, math::Color, VariantRef, VariantType};

use crate::vectors::{v, Vector, G4, G4O};

/// The Dictionary, Array and packed array vectors (Godot 4).
pub(crate) fn containers() -> Vec<Vector> {
    vec![
        // ----- Dictionary -----
        v!(G4, "dict_empty", "1b000000 00000000", |v| {
            assert!(v.as_dictionary().unwrap().is_empty())
        }),
        v!(
            G4,
            "dict_a_1_b_str",
            "1b000000 02000000 04000000 01000000 61000000 02000000 01000000 04000000 01000000 62000000 04000000 02000000 68690000",
            |v| {
                let d = v.as_dictionary().unwrap();
                assert_eq!(d.len(), 2);
                assert_eq!(d.get("a").unwrap().unwrap().as_i64().unwrap(), 1);
                assert_eq!(d.get("b").unwrap().unwrap().as_str().unwrap(), "hi");
                assert!(d.get("c").unwrap().is_none());
                assert_eq!(v.path("b").unwrap().unwrap().as_str().unwrap(), "hi");
                let (kt, vt) = d.key_value_types().unwrap();
                assert_eq!((kt, vt), (ContainerType::None, ContainerType::None));
            }
        ),
        v!(
            G4,
            "dict_int_key",
            "1b000000 01000000 02000000 07000000 04000000 01000000 78000000",
            |v| {
                let d = v.as_dictionary().unwrap();
                assert_eq!(d.get(7i64).unwrap().unwrap().as_str().unwrap(), "x");
                assert_eq!(v.path("7").unwrap().unwrap().as_str().unwrap(), "x");
            }
        ),
        v!(
            G4,
            "dict_count_bit31_ignored",
            "1b000000 01000080 04000000 01000000 61000000 00000000",
            |v| {
                let d = v.as_dictionary().unwrap();
                assert_eq!(d.len(), 1);
                assert!(d.get("a").unwrap().unwrap().is_nil());
            }
        ),
        v!(
            G4,
            "dict_duplicate_keys",
            "1b000000 02000000 04000000 01000000 61000000 02000000 01000000 04000000 01000000 61000000 02000000 02000000",
            |v| {
                let d = v.as_dictionary().unwrap();
                // The engine keeps the last value; get_first stops at the first pair.
                assert_eq!(d.get("a").unwrap().unwrap().as_i64().unwrap(), 2);
                assert_eq!(d.get_first("a").unwrap().unwrap().as_i64().unwrap(), 1);
            }
        ),
        v!(
            G4,
            "dict_typed_string_int",
            "1b000500 04000000 02000000 01000000 04000000 01000000 61000000 02000000 05000000",
            |v| {
                let d = v.as_dictionary().unwrap();
                let (k, val) = d.key_value_types().unwrap();
                assert_eq!(k, ContainerType::Builtin(VariantType::String));
                assert_eq!(val, ContainerType::Builtin(VariantType::Int));
                assert_eq!(d.get("a").unwrap().unwrap().as_i64().unwrap(), 5);
            }
        ),
        v!(
            G4,
            "dict_typed_string_class",
            "1b000900 04000000 11000000 456e636f 6465644f 626a6563 74417349 44000000 00000000",
            |v| {
                let (k, val) = v.as_dictionary().unwrap().key_value_types().unwrap();
                assert_eq!(k, ContainerType::Builtin(VariantType::String));
                match val {
                    ContainerType::ClassName(t) => assert_eq!(t.as_str(), Some("EncodedObjectAsID")),
                    other => panic!("{other:?}"),
                }
                assert_eq!(val.kind(), 2);
            }
        ),
        v!(
            G4O,
            "dict_typed_script_key",
            "1b000300 0a000000 7265733a 2f2f6b2e 67640000 00000000",
            |v| {
                let (k, val) = v.as_dictionary().unwrap().key_value_types().unwrap();
                match k {
                    ContainerType::Script(t) => assert_eq!(t.as_str(), Some("res://k.gd")),
                    other => panic!("{other:?}"),
                }
                assert!(!val.is_typed());
            }
        ),
        // ----- Array -----
        v!(G4, "array_empty", "1c000000 00000000", |v| {
            let a = v.as_array().unwrap();
            assert!(a.is_empty());
            assert!(a.get(0).unwrap().is_none());
        }),
        v!(
            G4,
            "array_int_str",
            "1c000000 02000000 02000000 05000000 04000000 01000000 61000000",
            |v| {
                let a = v.as_array().unwrap();
                assert_eq!(a.len(), 2);
                assert_eq!(a.get(0).unwrap().unwrap().as_i64().unwrap(), 5);
                assert_eq!(a.get(1).unwrap().unwrap().as_str().unwrap(), "a");
                let tys: Vec<VariantType> = a.iter().map(|e| e.unwrap().ty()).collect();
                assert_eq!(tys, [VariantType::Int, VariantType::String]);
                assert_eq!(a.element_type().unwrap(), ContainerType::None);
            }
        ),
        v!(
            G4,
            "array_nested",
            "1c000000 02000000 1c000000 00000000 1c000000 01000000 02000000 03000000",
            |v| {
                assert_eq!(v.path("1/0").unwrap().unwrap().as_i64().unwrap(), 3);
                let inner = v.as_array().unwrap().get(1).unwrap().unwrap();
                assert_eq!(inner.depth(), 1);
                assert_eq!(inner.raw().unwrap().len(), 16);
            }
        ),
        v!(
            G4,
            "array_typed_int",
            "1c000100 02000000 02000000 02000000 05000000 02000000 06000000",
            |v| {
                let a = v.as_array().unwrap();
                assert_eq!(a.element_type().unwrap(), ContainerType::Builtin(VariantType::Int));
                let xs: Vec<i64> = a.iter().map(|e| e.unwrap().as_i64().unwrap()).collect();
                assert_eq!(xs, [5, 6]);
            }
        ),
        v!(G4, "array_typed_class", "1c000200 04000000 4e6f6465 00000000", |v| {
            match v.as_array().unwrap().element_type().unwrap() {
                ContainerType::ClassName(t) => assert_eq!(t.as_str(), Some("Node")),
                other => panic!("{other:?}"),
            }
        }),
        v!(
            G4O,
            "array_typed_script",
            "1c000300 0a000000 7265733a 2f2f612e 67640000 00000000",
            |v| match v.as_array().unwrap().element_type().unwrap() {
                ContainerType::Script(t) => assert_eq!(t.as_str(), Some("res://a.gd")),
                other => panic!("{other:?}"),
            }
        ),
        v!(
            G4,
            "array_typed_script_no_objects_any_path",
            "1c000300 03000000 61626300 00000000",
            |v| assert_eq!(v.as_array().unwrap().element_type().unwrap().kind(), 3)
        ),
        v!(G4, "array_count_bit31_ignored", "1c000000 00000080", |v| {
            assert_eq!(v.as_array().unwrap().len(), 0)
        }),
        // ----- Packed arrays -----
        v!(G4, "pba_0", "1d000000 00000000", |v| {
            assert_eq!(v.as_byte_array().unwrap(), b"")
        }),
        v!(G4, "pba_1", "1d000000 01000000 ab000000", |v| {
            assert_eq!(v.as_byte_array().unwrap(), [0xab])
        }),
        v!(G4, "pba_4", "1d000000 04000000 01020304", |v| {
            assert_eq!(v.as_byte_array().unwrap(), [1, 2, 3, 4])
        }),
        v!(G4, "pba_5", "1d000000 05000000 01020304 05000000", |v| {
            assert_eq!(v.as_byte_array().unwrap(), [1, 2, 3, 4, 5])
        }),
        v!(G4, "pba_missing_pad_at_end", "1d000000 01000000 ab", |v| {
            // The engine does not require the padding of a byte array that ends the buffer.
            assert_eq!(v.as_byte_array().unwrap(), [0xab]);
            assert_eq!(v.byte_len().unwrap(), 9);
        }),
        v!(G4, "pi32", "1e000000 03000000 01000000 ffffffff ffffff7f", |v| {
            let a = v.as_packed::<i32>().unwrap();
            assert_eq!(a.to_vec(), [1, -1, i32::MAX]);
            assert_eq!(a.get(2), Some(i32::MAX));
            assert_eq!(a.get(3), None);
        }),
        v!(G4, "pi32_empty", "1e000000 00000000", |v| {
            assert!(v.as_packed::<i32>().unwrap().is_empty())
        }),
        v!(
            G4,
            "pi64",
            "1f000000 02000000 ffffffff ffffff7f 00000000 00000080",
            |v| assert_eq!(v.as_packed::<i64>().unwrap().to_vec(), [i64::MAX, i64::MIN])
        ),
        v!(G4, "pf32", "20000000 02000000 0000803f cdcccc3d", |v| {
            assert_eq!(v.as_packed::<f32>().unwrap().to_vec(), [1.0, 0.1f32])
        }),
        v!(
            G4,
            "pf64",
            "21000000 02000000 9a999999 9999b93f 00000000 0000f87f",
            |v| {
                let a = v.as_packed::<f64>().unwrap().to_vec();
                assert_eq!(a[0], 0.1);
                assert!(a[1].is_nan());
            }
        ),
        v!(
            G4,
            "pstr",
            "22000000 03000000 02000000 61000000 01000000 00000000 02000000 62630000",
            |v| {
                let a = v.as_string_array().unwrap();
                assert_eq!(a.len(), 3);
                // "a" with its NUL, the empty string as the engine writes it, "bc" without NUL.
                let xs: Vec<&str> = a.iter().map(|s| s.unwrap()).collect();
                assert_eq!(xs, ["a", "", "bc"]);
                assert_eq!(a.get(2).unwrap(), Some("bc"));
                assert_eq!(a.get(3).unwrap(), None);
            }
        ),
        v!(G4, "pstr_negative_count_is_empty", "22000000 ffffffff", |v| {
            assert!(v.as_string_array().unwrap().is_empty())
        }),
        v!(G4, "pv2", "23000000 01000000 0000803f 00000040", |v| {
            assert_eq!(v.as_packed::<[f32; 2]>().unwrap().to_vec(), [[1.0, 2.0]]);
            assert!(v.as_packed::<[f64; 2]>().is_err());
        }),
        v!(
            G4,
            "pv2_f64",
            "23000100 01000000 9a9999999999f13f cdcccccccccc0040",
            |v| {
                assert_eq!(v.as_packed::<[f64; 2]>().unwrap().to_vec(), [[1.1, 2.1]]);
                assert!(v.as_packed::<[f32; 2]>().is_err());
            }
        ),
        v!(
            G4,
            "pv3",
            "24000000 02000000 0000803f 00000040 00004040 00008040 0000a040 0000c040",
            |v| {
                assert_eq!(
                    v.as_packed::<[f32; 3]>().unwrap().to_vec(),
                    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
                )
            }
        ),
        v!(
            G4,
            "pv3_f64",
            "24000100 01000000 9a9999999999f13f cdcccccccccc0040 cdcccccccccc0840",
            |v| assert_eq!(v.as_packed::<[f64; 3]>().unwrap().to_vec(), [[1.1, 2.1, 3.1]])
        ),
        v!(
            G4,
            "pcolor",
            "25000000 01000000 0000803f 0000003f 00000000 0000803f",
            |v| {
                assert_eq!(
                    v.as_packed::<Color>().unwrap().to_vec(),
                    [Color::new(1.0, 0.5, 0.0, 1.0)]
                )
            }
        ),
        v!(
            G4,
            "pcolor_flag_ignored",
            "25000100 01000000 0000803f 0000003f 00000000 0000803f",
            |v| {
                assert_eq!(
                    v.as_packed::<Color>().unwrap().get(0),
                    Some(Color::new(1.0, 0.5, 0.0, 1.0))
                )
            }
        ),
        v!(
            G4,
            "pv4",
            "26000000 01000000 0000803f 00000040 00004040 00008040",
            |v| assert_eq!(v.as_packed::<[f32; 4]>().unwrap().to_vec(), [[1.0, 2.0, 3.0, 4.0]])
        ),
        v!(
            G4,
            "pv4_f64",
            "26000100 01000000 9a9999999999f13f cdcccccccccc0040 cdcccccccccc0840 6666666666661040",
            |v| {
                assert_eq!(
                    v.as_packed::<[f64; 4]>().unwrap().to_vec(),
                    [[1.1, 2.1, 3.1, 4.1]]
                )
            }
        ),
    ]
}
