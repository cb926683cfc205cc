//! The `mint` and `glam` conversions, on values the engine itself wrote: non-symmetric
//! matrices (so that a transposition cannot pass), checked by what the engine means by them —
//! GDScript's `Basis(x, y, z)` takes the axes (columns), `Transform3D * p` is
//! `basis * p + origin` — and by round trips both ways.

use crate::common;

use gdvariant::{
    math::Basis, math::Projection, math::Transform2D, math::Transform3D, math::Vector3,
};

/// The engine's own bytes of a golden case.
fn golden(name: &str) -> Vec<u8> {
    let (_, cases) = common::encode_cases("godot4");
    let case = cases
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no golden case {name}"));
    case.bytes
}

/// `Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))` in GDScript (axes x, y, z).
fn basis() -> Basis {
    gdvariant::parse(&golden("basis_nonsym"))
        .unwrap()
        .as_basis()
        .unwrap()
}

/// `Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12))`.
fn transform3d() -> Transform3D {
    gdvariant::parse(&golden("transform3d"))
        .unwrap()
        .as_transform3d()
        .unwrap()
}

/// `Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))`.
fn transform2d() -> Transform2D {
    gdvariant::parse(&golden("transform2d"))
        .unwrap()
        .as_transform2d()
        .unwrap()
}

/// `Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, 16))`.
fn projection() -> Projection {
    gdvariant::parse(&golden("projection"))
        .unwrap()
        .as_projection()
        .unwrap()
}

#[test]
fn the_golden_values_are_what_gdscript_built() {
    let b = basis();
    assert_eq!(b.axes()[0], Vector3::new(1.0, 2.0, 3.0));
    // Row-major on the wire: the first row holds every axis's x.
    assert_eq!(b.rows[0], Vector3::new(1.0, 4.0, 7.0));
    assert_eq!(transform3d().origin, Vector3::new(10.0, 11.0, 12.0));
}

#[cfg(feature = "glam")]
mod with_glam {
    use super::*;
    use ::glam::{
        Affine2, Affine3, Affine3A, DAffine2, DAffine3, DMat3, DMat4, DQuat, DVec2, DVec3, DVec4,
        IVec2, IVec3, IVec4, Mat3, Mat3A, Mat4, Quat, Vec2, Vec3, Vec3A, Vec4,
    };

    #[test]
    fn basis_columns_are_the_axes() {
        let b = basis();
        let m = DMat3::from(b);
        assert_eq!(m.x_axis, DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(m.y_axis, DVec3::new(4.0, 5.0, 6.0));
        assert_eq!(m.z_axis, DVec3::new(7.0, 8.0, 9.0));
        assert_eq!(m.row(0), DVec3::new(1.0, 4.0, 7.0));
        // `basis * Vector3(1, 1, 1)` in the engine: each row dotted with it.
        assert_eq!(m * DVec3::ONE, DVec3::new(12.0, 15.0, 18.0));
        assert_eq!(Basis::from(m), b);
        let f = Mat3::from(b);
        assert_eq!(f.x_axis, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(f * Vec3::ONE, Vec3::new(12.0, 15.0, 18.0));
        assert_eq!(Basis::from(f), b);
        let a = Mat3A::from(b);
        assert_eq!(a.z_axis, Vec3A::new(7.0, 8.0, 9.0));
        assert_eq!(Basis::from(a), b);
    }

    #[test]
    fn transforms_are_affine_maps_with_the_engines_meaning() {
        // Transform3D * Vector3(1, 1, 1) = basis * (1, 1, 1) + origin = (22, 26, 30).
        let t = transform3d();
        let d = DAffine3::from(t);
        assert_eq!(d.transform_point3(DVec3::ONE), DVec3::new(22.0, 26.0, 30.0));
        assert_eq!(d.translation, DVec3::new(10.0, 11.0, 12.0));
        assert_eq!(Transform3D::from(d), t);
        let a = Affine3A::from(t);
        assert_eq!(a.transform_point3(Vec3::ONE), Vec3::new(22.0, 26.0, 30.0));
        assert_eq!(Transform3D::from(a), t);
        let a = Affine3::from(t);
        assert_eq!(a.transform_point3(Vec3::ONE), Vec3::new(22.0, 26.0, 30.0));
        assert_eq!(Transform3D::from(a), t);
        // Transform2D * Vector2(1, 1) = x + y + origin = (9, 12).
        let t = transform2d();
        let d = DAffine2::from(t);
        assert_eq!(d.transform_point2(DVec2::ONE), DVec2::new(9.0, 12.0));
        assert_eq!(d.matrix2.x_axis, DVec2::new(1.0, 2.0));
        assert_eq!(Transform2D::from(d), t);
        let a = Affine2::from(t);
        assert_eq!(a.transform_point2(Vec2::ONE), Vec2::new(9.0, 12.0));
        assert_eq!(Transform2D::from(a), t);
    }

    #[test]
    fn projection_columns_are_glams_columns() {
        let p = projection();
        let m = DMat4::from(p);
        assert_eq!(m.x_axis, DVec4::new(1.0, 2.0, 3.0, 4.0));
        assert_eq!(m.w_axis, DVec4::new(13.0, 14.0, 15.0, 16.0));
        assert_eq!(m.row(0), DVec4::new(1.0, 5.0, 9.0, 13.0));
        // `Projection * Vector4(0, 1, 0, 0)` in the engine is its y column.
        assert_eq!(m * DVec4::Y, DVec4::new(5.0, 6.0, 7.0, 8.0));
        assert_eq!(Projection::from(m), p);
        let f = Mat4::from(p);
        assert_eq!(f * Vec4::Y, Vec4::new(5.0, 6.0, 7.0, 8.0));
        assert_eq!(Projection::from(f), p);
    }

    #[test]
    fn vectors_quaternions_and_colors_round_trip() {
        use gdvariant::{
            math::Color, math::Quaternion, math::Vector2, math::Vector2i, math::Vector3i,
            math::Vector4, math::Vector4i,
        };
        let v = Vector3::new(1.5, -2.0, 0.25);
        assert_eq!(DVec3::from(v), DVec3::new(1.5, -2.0, 0.25));
        assert_eq!(Vec3::from(v), Vec3::new(1.5, -2.0, 0.25));
        assert_eq!(Vector3::from(Vec3A::from(v)), v);
        assert_eq!(Vector3::from(DVec3::from(v)), v);
        // f32 types narrow as the engine's single precision does.
        assert_eq!(Vec2::from(Vector2::new(0.1, 3.0)), Vec2::new(0.1, 3.0));
        assert_eq!(Vector2::from(Vec2::new(0.1, 3.0)).x, f64::from(0.1f32));
        let v4 = Vector4::new(1.0, 2.0, 3.0, 4.5);
        assert_eq!(Vector4::from(Vec4::from(v4)), v4);
        assert_eq!(Vector4::from(DVec4::from(v4)), v4);
        assert_eq!(
            Vector2::from(DVec2::from(Vector2::new(7.0, 8.0))),
            Vector2::new(7.0, 8.0)
        );
        assert_eq!(IVec2::from(Vector2i::new(1, -2)), IVec2::new(1, -2));
        assert_eq!(
            Vector3i::from(IVec3::new(1, -2, 3)),
            Vector3i::new(1, -2, 3)
        );
        assert_eq!(
            Vector4i::from(IVec4::new(1, 2, 3, 4)),
            Vector4i::new(1, 2, 3, 4)
        );
        // (x, y, z, w) on both sides.
        let q = Quaternion::new(0.5, -0.5, 0.5, 0.5);
        assert_eq!(DQuat::from(q), DQuat::from_xyzw(0.5, -0.5, 0.5, 0.5));
        assert_eq!(Quaternion::from(Quat::from(q)), q);
        assert_eq!(Quaternion::from(DQuat::from(q)), q);
        let c = Color::new(0.1, 0.2, 0.3, 0.4);
        assert_eq!(Vec4::from(c), Vec4::new(0.1, 0.2, 0.3, 0.4));
        assert_eq!(Color::from(Vec4::from(c)), c);
    }
}

#[cfg(feature = "mint")]
mod with_mint {
    use super::*;
    use gdvariant::{
        math::Color, math::Quaternion, math::Vector2, math::Vector2i, math::Vector3i,
        math::Vector4, math::Vector4i,
    };
    use mint::{
        ColumnMatrix2x3, ColumnMatrix3, ColumnMatrix3x4, ColumnMatrix4, RowMatrix2x3, RowMatrix3,
        RowMatrix3x4, RowMatrix4,
    };

    fn v3(x: f64, y: f64, z: f64) -> mint::Vector3<f64> {
        mint::Vector3 { x, y, z }
    }

    #[test]
    fn basis_is_row_major_like_mints_row_matrix() {
        let b = basis();
        let rows = RowMatrix3::<f64>::from(b);
        assert_eq!(rows.x, v3(1.0, 4.0, 7.0));
        assert_eq!(rows.z, v3(3.0, 6.0, 9.0));
        assert_eq!(Basis::from(rows), b);
        let cols = ColumnMatrix3::<f64>::from(b);
        assert_eq!(cols.x, v3(1.0, 2.0, 3.0));
        assert_eq!(cols.z, v3(7.0, 8.0, 9.0));
        assert_eq!(Basis::from(cols), b);
        // mint's own transposition agrees.
        assert_eq!(ColumnMatrix3::from(rows), cols);
        let single = RowMatrix3::<f32>::from(b);
        assert_eq!(single.y.x, 2.0f32);
        assert_eq!(Basis::from(single), b);
    }

    #[test]
    fn transforms_and_projection_both_layouts() {
        let t = transform3d();
        let cols = ColumnMatrix3x4::<f64>::from(t);
        assert_eq!(cols.x, v3(1.0, 2.0, 3.0));
        assert_eq!(cols.w, v3(10.0, 11.0, 12.0));
        assert_eq!(Transform3D::from(cols), t);
        let rows = RowMatrix3x4::<f64>::from(t);
        assert_eq!(
            rows.x,
            mint::Vector4 {
                x: 1.0,
                y: 4.0,
                z: 7.0,
                w: 10.0
            }
        );
        assert_eq!(Transform3D::from(rows), t);
        assert_eq!(RowMatrix3x4::from(cols), rows);

        let t = transform2d();
        let cols = ColumnMatrix2x3::<f32>::from(t);
        assert_eq!(cols.y, mint::Vector2 { x: 3.0, y: 4.0 });
        assert_eq!(cols.z, mint::Vector2 { x: 5.0, y: 6.0 });
        assert_eq!(Transform2D::from(cols), t);
        let rows = RowMatrix2x3::<f64>::from(t);
        assert_eq!(rows.x, v3(1.0, 3.0, 5.0));
        assert_eq!(Transform2D::from(rows), t);

        let p = projection();
        let cols = ColumnMatrix4::<f64>::from(p);
        assert_eq!(
            cols.y,
            mint::Vector4 {
                x: 5.0,
                y: 6.0,
                z: 7.0,
                w: 8.0
            }
        );
        assert_eq!(Projection::from(cols), p);
        let rows = RowMatrix4::<f64>::from(p);
        assert_eq!(
            rows.x,
            mint::Vector4 {
                x: 1.0,
                y: 5.0,
                z: 9.0,
                w: 13.0
            }
        );
        assert_eq!(Projection::from(rows), p);
    }

    #[test]
    fn vectors_quaternions_and_colors_round_trip() {
        let v = Vector3::new(1.5, -2.0, 0.25);
        assert_eq!(mint::Vector3::<f64>::from(v), v3(1.5, -2.0, 0.25));
        assert_eq!(Vector3::from(mint::Vector3::<f32>::from(v)), v);
        assert_eq!(
            Vector2::from(mint::Vector2::<f64>::from(Vector2::new(1.0, 2.0))),
            Vector2::new(1.0, 2.0)
        );
        let v4 = Vector4::new(1.0, 2.0, 3.0, 4.0);
        assert_eq!(Vector4::from(mint::Vector4::<f32>::from(v4)), v4);
        assert_eq!(
            mint::Vector2::from(Vector2i::new(3, -4)),
            mint::Vector2 { x: 3, y: -4 }
        );
        assert_eq!(
            Vector3i::from(mint::Vector3 { x: 1, y: 2, z: 3 }),
            Vector3i::new(1, 2, 3)
        );
        assert_eq!(
            Vector4i::from(mint::Vector4::from(Vector4i::new(1, 2, 3, 4))),
            Vector4i::new(1, 2, 3, 4)
        );
        // mint's quaternion is (vector part, scalar part); ours is (x, y, z, w).
        let q = Quaternion::new(0.1, 0.2, 0.3, 0.9);
        let m = mint::Quaternion::<f64>::from(q);
        assert_eq!((m.v, m.s), (v3(0.1, 0.2, 0.3), 0.9));
        assert_eq!(Quaternion::from(m), q);
        let c = Color::new(0.25, 0.5, 0.75, 1.0);
        let m = mint::Vector4::<f32>::from(c);
        assert_eq!((m.x, m.w), (0.25, 1.0));
        assert_eq!(Color::from(m), c);
        // mint::IntoMint: APIs generic over mint accept the math types.
        fn takes<T: mint::IntoMint<MintType = mint::Vector3<f64>>>(t: T) -> mint::Vector3<f64> {
            t.into()
        }
        assert_eq!(takes(Vector3::new(1.0, 2.0, 3.0)), v3(1.0, 2.0, 3.0));
    }
}
