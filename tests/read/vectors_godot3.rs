//! The table's Godot 3 vectors (see `vectors`).

use gdvariant::{array::ContainerType, math::Color, ErrorKind, ObjectRef, VariantRef, VariantType};

use crate::vectors::{node_path_text, seq, v, Vector, G3, G3O};

/// The Godot 3 vectors.
pub(crate) fn godot3() -> Vec<Vector> {
    vec![
        v!(G3, "g3_nil_bit16", "00000100", |v| assert!(v.is_nil())),
        v!(G3, "g3_bool", "01000000 01000000", |v| assert!(v.as_bool().unwrap())),
        v!(G3, "g3_int_64bit", "02000100 00000000 00000080", |v| {
            assert_eq!(v.as_i64().unwrap(), i64::MIN)
        }),
        v!(G3, "g3_int_bit8", "02010000 feffffff", |v| assert_eq!(v.as_i64().unwrap(), -2)),
        v!(G3, "g3_real_f32", "03000000 0000003f", |v| assert_eq!(v.as_f64().unwrap(), 0.5)),
        v!(G3, "g3_real_f64", "03000100 9a9999999999b93f", |v| {
            assert_eq!(v.as_f64().unwrap(), 0.1)
        }),
        v!(G3, "g3_string", "04000000 02000000 c3a90000", |v| {
            assert_eq!(v.as_str().unwrap(), "é")
        }),
        v!(G3, "g3_string_bit16", "04000100 01000000 61000000", |v| {
            assert_eq!(v.as_str().unwrap(), "a")
        }),
        v!(G3, "g3_string_surrogate", "04000000 03000000 eda08000", |v| {
            let e = v.as_str().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NotRustUtf8);
            assert_eq!(e.offset(), 8);
            let t = v.as_text().unwrap();
            assert_eq!(t.as_bytes(), [0xed, 0xa0, 0x80]);
            assert_eq!(t.as_str(), None);
            assert_eq!(t.to_string_lossy().chars().next(), Some('\u{FFFD}'));
        }),
        v!(G3, "g3_string_overlong_3byte", "04000000 03000000 e080af00", |v| {
            assert_eq!(v.as_text().unwrap().as_bytes(), [0xe0, 0x80, 0xaf]);
            assert_eq!(v.as_str().unwrap_err().kind(), ErrorKind::NotRustUtf8);
        }),
        v!(G3, "g3_string_5byte_form", "04000000 05000000 f8888080 80000000", |v| {
            assert_eq!(v.as_text().unwrap().len(), 5)
        }),
        v!(G3, "g3_vector2", "05000000 0000803f00000040", |v| {
            assert_eq!(v.as_vector2().unwrap(), gdvariant::math::Vector2::new(1.0, 2.0))
        }),
        v!(G3, "g3_vector2_flag_ignored", "05000100 0000803f00000040", |v| {
            assert_eq!(v.as_vector2().unwrap(), gdvariant::math::Vector2::new(1.0, 2.0));
            assert!(!v.is_wide());
        }),
        v!(G3, "g3_rect2", "06000000 0000803f000000400000404000008040", |v| {
            assert_eq!(v.as_rect2().unwrap().to_array().to_vec(), seq(4, 0.0))
        }),
        v!(G3, "g3_vector3", "07000000 0000803f0000004000004040", |v| {
            assert_eq!(v.as_vector3().unwrap().to_array().to_vec(), seq(3, 0.0))
        }),
        v!(
            G3,
            "g3_transform2d",
            "08000000 0000803f0000004000004040000080400000a0400000c040",
            |v| assert_eq!(v.as_transform2d().unwrap().origin, gdvariant::math::Vector2::new(5.0, 6.0))
        ),
        v!(G3, "g3_plane", "09000000 0000803f000000400000404000008040", |v| {
            assert_eq!(v.as_plane().unwrap().d, 4.0)
        }),
        v!(G3, "g3_quat", "0a000000 0000803f000000400000404000008040", |v| {
            assert_eq!(v.as_quaternion().unwrap().w, 4.0)
        }),
        v!(
            G3,
            "g3_aabb",
            "0b000000 0000803f0000004000004040000080400000a0400000c040",
            |v| assert_eq!(v.as_aabb().unwrap().size.z, 6.0)
        ),
        v!(
            G3,
            "g3_basis",
            "0c000000 0000803f0000004000004040000080400000a0400000c0400000e0400000004100001041",
            |v| assert_eq!(v.as_basis().unwrap().axis(0), Some(gdvariant::math::Vector3::new(1.0, 4.0, 7.0)))
        ),
        v!(
            G3,
            "g3_transform",
            "0d000000 0000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041",
            |v| {
                let t = v.as_transform3d().unwrap();
                assert_eq!(t.to_array().to_vec(), seq(12, 0.0));
            }
        ),
        v!(
            G3,
            "g3_transform_flag_ignored",
            "0d000100 0000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041",
            |v| assert_eq!(v.as_transform3d().unwrap().origin.z, 12.0)
        ),
        v!(G3, "g3_color", "0e000000 0000803f 0000003f 00000000 0000803f", |v| {
            assert_eq!(v.as_color().unwrap(), Color::new(1.0, 0.5, 0.0, 1.0))
        }),
        v!(
            G3,
            "g3_nodepath",
            "0f000000 02000080 01000000 01000000 04000000 726f6f74 01000000 61000000 01000000 70000000",
            |v| assert_eq!(node_path_text(v), "/root/a:p")
        ),
        v!(G3, "g3_rid_bare_header", "10000000", |v| {
            assert_eq!(v.ty(), VariantType::Rid);
            assert_eq!(v.as_rid().unwrap(), 0);
            assert_eq!(v.raw().unwrap().len(), 4);
        }),
        v!(G3, "g3_object_as_id", "11000100 05000000 00000000", |v| {
            assert!(matches!(v.as_object().unwrap(), ObjectRef::Id(5)))
        }),
        v!(
            G3O,
            "g3_object_full_nested_script",
            "11000000 04000000 4e6f6465 01000000 06000000 73637269 70740000 11000000 08000000 47445363 72697074 00000000",
            |v| {
                let ObjectRef::Full(f) = v.as_object().unwrap() else {
                    panic!("not full")
                };
                let (name, script) = f.properties().next().unwrap().unwrap();
                assert_eq!(name, "script");
                let ObjectRef::Full(s) = script.as_object().unwrap() else {
                    panic!("script not full")
                };
                assert_eq!(s.class_name().as_str(), Some("GDScript"));
                assert_eq!(script.depth(), 1);
            }
        ),
        v!(
            G3,
            "g3_dictionary",
            "12000000 01000000 04000000 01000000 6b000000 02000000 09000000",
            |v| assert_eq!(v.path("k").unwrap().unwrap().as_i64().unwrap(), 9)
        ),
        v!(G3, "g3_array", "13000000 01000000 00000000", |v| {
            assert!(v.as_array().unwrap().get(0).unwrap().unwrap().is_nil())
        }),
        v!(G3, "g3_array_bit16_not_typed", "13000100 01000000 02000000 03000000", |v| {
            let a = v.as_array().unwrap();
            assert_eq!(a.element_type().unwrap(), ContainerType::None);
            assert_eq!(a.get(0).unwrap().unwrap().as_i64().unwrap(), 3);
        }),
        v!(G3, "g3_pool_byte", "14000000 03000000 010203 00", |v| {
            assert_eq!(v.as_byte_array().unwrap(), [1, 2, 3])
        }),
        v!(G3, "g3_pool_int", "15000000 02000000 01000000 ffffffff", |v| {
            assert_eq!(v.as_packed::<i32>().unwrap().to_vec(), [1, -1])
        }),
        v!(G3, "g3_pool_real", "16000000 01000000 0000003f", |v| {
            assert_eq!(v.as_packed::<f32>().unwrap().to_vec(), [0.5])
        }),
        v!(G3, "g3_pool_string", "17000000 02000000 02000000 61000000 01000000 00000000", |v| {
            let xs: Vec<&str> = v.as_string_array().unwrap().iter().map(|s| s.unwrap()).collect();
            assert_eq!(xs, ["a", ""]);
        }),
        v!(G3, "g3_pool_vector2", "18000000 01000000 0000803f 00000040", |v| {
            assert_eq!(v.as_packed::<[f32; 2]>().unwrap().to_vec(), [[1.0, 2.0]])
        }),
        v!(G3, "g3_pool_vector2_flag_ignored", "18000100 01000000 0000803f 00000040", |v| {
            assert!(!v.is_wide());
            assert_eq!(v.as_packed::<[f32; 2]>().unwrap().to_vec(), [[1.0, 2.0]]);
        }),
        v!(
            G3,
            "g3_pool_vector3",
            "19000000 01000000 0000803f 00000040 00004040",
            |v| assert_eq!(v.as_packed::<[f32; 3]>().unwrap().to_vec(), [[1.0, 2.0, 3.0]])
        ),
        v!(
            G3,
            "g3_pool_color",
            "1a000000 01000000 0000803f 0000003f 00000000 0000803f",
            |v| {
                assert_eq!(
                    v.as_packed::<Color>().unwrap().to_vec(),
                    [Color::new(1.0, 0.5, 0.0, 1.0)]
                )
            }
        ),
    ]
}
