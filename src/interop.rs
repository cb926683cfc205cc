//! `From` conversions, both ways, between the [math types](crate::math) and the `mint` and
//! `glam` crates' types (features `mint` and `glam`; see the math module's documentation for
//! the table and examples).
//!
//! Layouts are converted, never reinterpreted: [`Basis`] is row-major (as the engine stores
//! and writes it), glam's matrices are column-major, and mint has both. Conversions to `f32`
//! types narrow each component as the engine's single precision does (`as f32`); conversions
//! from them widen exactly.

#[cfg(any(feature = "mint", feature = "glam"))]
use crate::math::*;

#[cfg(feature = "mint")]
#[allow(clippy::unnecessary_cast)]
mod mint_impls {
    use super::*;
    use ::mint as m;

    /// Conversions for one scalar type of mint's generic types.
    macro_rules! mint_for {
        ($t:ty) => {
            // ----- vectors -----
            impl From<m::Vector2<$t>> for Vector2 {
                fn from(v: m::Vector2<$t>) -> Self {
                    Vector2::new(v.x.into(), v.y.into())
                }
            }
            impl From<Vector2> for m::Vector2<$t> {
                fn from(v: Vector2) -> Self {
                    m::Vector2 {
                        x: v.x as $t,
                        y: v.y as $t,
                    }
                }
            }
            impl From<m::Vector3<$t>> for Vector3 {
                fn from(v: m::Vector3<$t>) -> Self {
                    Vector3::new(v.x.into(), v.y.into(), v.z.into())
                }
            }
            impl From<Vector3> for m::Vector3<$t> {
                fn from(v: Vector3) -> Self {
                    m::Vector3 {
                        x: v.x as $t,
                        y: v.y as $t,
                        z: v.z as $t,
                    }
                }
            }
            impl From<m::Vector4<$t>> for Vector4 {
                fn from(v: m::Vector4<$t>) -> Self {
                    Vector4::new(v.x.into(), v.y.into(), v.z.into(), v.w.into())
                }
            }
            impl From<Vector4> for m::Vector4<$t> {
                fn from(v: Vector4) -> Self {
                    m::Vector4 {
                        x: v.x as $t,
                        y: v.y as $t,
                        z: v.z as $t,
                        w: v.w as $t,
                    }
                }
            }

            // ----- rotation -----
            impl From<m::Quaternion<$t>> for Quaternion {
                fn from(q: m::Quaternion<$t>) -> Self {
                    Quaternion::new(q.v.x.into(), q.v.y.into(), q.v.z.into(), q.s.into())
                }
            }
            impl From<Quaternion> for m::Quaternion<$t> {
                fn from(q: Quaternion) -> Self {
                    m::Quaternion {
                        v: Vector3::new(q.x, q.y, q.z).into(),
                        s: q.w as $t,
                    }
                }
            }

            // ----- Basis: row-major on both sides, or columns for ColumnMatrix3 -----
            impl From<m::RowMatrix3<$t>> for Basis {
                fn from(m: m::RowMatrix3<$t>) -> Self {
                    Basis {
                        rows: [m.x.into(), m.y.into(), m.z.into()],
                    }
                }
            }
            impl From<Basis> for m::RowMatrix3<$t> {
                fn from(b: Basis) -> Self {
                    let [x, y, z] = b.rows;
                    m::RowMatrix3 {
                        x: x.into(),
                        y: y.into(),
                        z: z.into(),
                    }
                }
            }
            impl From<m::ColumnMatrix3<$t>> for Basis {
                fn from(m: m::ColumnMatrix3<$t>) -> Self {
                    Basis::from_axes(m.x.into(), m.y.into(), m.z.into())
                }
            }
            impl From<Basis> for m::ColumnMatrix3<$t> {
                fn from(b: Basis) -> Self {
                    let [x, y, z] = b.axes();
                    m::ColumnMatrix3 {
                        x: x.into(),
                        y: y.into(),
                        z: z.into(),
                    }
                }
            }

            // ----- Transform2D: a 2×3 affine matrix (columns x, y, origin) -----
            impl From<m::ColumnMatrix2x3<$t>> for Transform2D {
                fn from(m: m::ColumnMatrix2x3<$t>) -> Self {
                    Transform2D {
                        x: m.x.into(),
                        y: m.y.into(),
                        origin: m.z.into(),
                    }
                }
            }
            impl From<Transform2D> for m::ColumnMatrix2x3<$t> {
                fn from(t: Transform2D) -> Self {
                    m::ColumnMatrix2x3 {
                        x: t.x.into(),
                        y: t.y.into(),
                        z: t.origin.into(),
                    }
                }
            }
            impl From<m::RowMatrix2x3<$t>> for Transform2D {
                fn from(m: m::RowMatrix2x3<$t>) -> Self {
                    let (r0, r1) = (Vector3::from(m.x), Vector3::from(m.y));
                    Transform2D {
                        x: Vector2::new(r0.x, r1.x),
                        y: Vector2::new(r0.y, r1.y),
                        origin: Vector2::new(r0.z, r1.z),
                    }
                }
            }
            impl From<Transform2D> for m::RowMatrix2x3<$t> {
                fn from(t: Transform2D) -> Self {
                    m::RowMatrix2x3 {
                        x: Vector3::new(t.x.x, t.y.x, t.origin.x).into(),
                        y: Vector3::new(t.x.y, t.y.y, t.origin.y).into(),
                    }
                }
            }

            // ----- Transform3D: a 3×4 affine matrix (columns x, y, z, origin) -----
            impl From<m::ColumnMatrix3x4<$t>> for Transform3D {
                fn from(m: m::ColumnMatrix3x4<$t>) -> Self {
                    Transform3D {
                        basis: Basis::from_axes(m.x.into(), m.y.into(), m.z.into()),
                        origin: m.w.into(),
                    }
                }
            }
            impl From<Transform3D> for m::ColumnMatrix3x4<$t> {
                fn from(t: Transform3D) -> Self {
                    let [x, y, z] = t.basis.axes();
                    m::ColumnMatrix3x4 {
                        x: x.into(),
                        y: y.into(),
                        z: z.into(),
                        w: t.origin.into(),
                    }
                }
            }
            impl From<m::RowMatrix3x4<$t>> for Transform3D {
                fn from(m: m::RowMatrix3x4<$t>) -> Self {
                    let row = |r: m::Vector4<$t>| Vector4::from(r);
                    let (r0, r1, r2) = (row(m.x), row(m.y), row(m.z));
                    Transform3D {
                        basis: Basis {
                            rows: [
                                Vector3::new(r0.x, r0.y, r0.z),
                                Vector3::new(r1.x, r1.y, r1.z),
                                Vector3::new(r2.x, r2.y, r2.z),
                            ],
                        },
                        origin: Vector3::new(r0.w, r1.w, r2.w),
                    }
                }
            }
            impl From<Transform3D> for m::RowMatrix3x4<$t> {
                fn from(t: Transform3D) -> Self {
                    let [r0, r1, r2] = t.basis.rows;
                    let o = t.origin;
                    m::RowMatrix3x4 {
                        x: Vector4::new(r0.x, r0.y, r0.z, o.x).into(),
                        y: Vector4::new(r1.x, r1.y, r1.z, o.y).into(),
                        z: Vector4::new(r2.x, r2.y, r2.z, o.z).into(),
                    }
                }
            }

            // ----- Projection: column by column, or row by row -----
            impl From<m::ColumnMatrix4<$t>> for Projection {
                fn from(m: m::ColumnMatrix4<$t>) -> Self {
                    Projection {
                        columns: [m.x.into(), m.y.into(), m.z.into(), m.w.into()],
                    }
                }
            }
            impl From<Projection> for m::ColumnMatrix4<$t> {
                fn from(p: Projection) -> Self {
                    let [x, y, z, w] = p.columns;
                    m::ColumnMatrix4 {
                        x: x.into(),
                        y: y.into(),
                        z: z.into(),
                        w: w.into(),
                    }
                }
            }
            impl From<m::RowMatrix4<$t>> for Projection {
                fn from(m: m::RowMatrix4<$t>) -> Self {
                    m::ColumnMatrix4::from(m).into()
                }
            }
            impl From<Projection> for m::RowMatrix4<$t> {
                fn from(p: Projection) -> Self {
                    m::ColumnMatrix4::<$t>::from(p).into()
                }
            }
        };
    }

    mint_for!(f32);
    mint_for!(f64);

    /// A Color is four `f32` (r, g, b, a), as mint's `Vector4<f32>`.
    impl From<m::Vector4<f32>> for Color {
        fn from(v: m::Vector4<f32>) -> Self {
            Color::new(v.x, v.y, v.z, v.w)
        }
    }
    impl From<Color> for m::Vector4<f32> {
        fn from(c: Color) -> Self {
            m::Vector4 {
                x: c.r,
                y: c.g,
                z: c.b,
                w: c.a,
            }
        }
    }

    impl From<m::Vector2<i32>> for Vector2i {
        fn from(v: m::Vector2<i32>) -> Self {
            Vector2i::new(v.x, v.y)
        }
    }
    impl From<Vector2i> for m::Vector2<i32> {
        fn from(v: Vector2i) -> Self {
            m::Vector2 { x: v.x, y: v.y }
        }
    }
    impl From<m::Vector3<i32>> for Vector3i {
        fn from(v: m::Vector3<i32>) -> Self {
            Vector3i::new(v.x, v.y, v.z)
        }
    }
    impl From<Vector3i> for m::Vector3<i32> {
        fn from(v: Vector3i) -> Self {
            m::Vector3 {
                x: v.x,
                y: v.y,
                z: v.z,
            }
        }
    }
    impl From<m::Vector4<i32>> for Vector4i {
        fn from(v: m::Vector4<i32>) -> Self {
            Vector4i::new(v.x, v.y, v.z, v.w)
        }
    }
    impl From<Vector4i> for m::Vector4<i32> {
        fn from(v: Vector4i) -> Self {
            m::Vector4 {
                x: v.x,
                y: v.y,
                z: v.z,
                w: v.w,
            }
        }
    }

    /// mint's own conversion traits, so that APIs taking `impl Into<mint::Vector3<f32>>` (or
    /// `mint::IntoMint` bounds) accept the math types directly.
    macro_rules! into_mint {
        ($($ty:ty => $m:ty;)*) => {$(
            impl m::IntoMint for $ty {
                type MintType = $m;
            }
        )*};
    }
    into_mint! {
        Vector2 => m::Vector2<f64>;
        Vector3 => m::Vector3<f64>;
        Vector4 => m::Vector4<f64>;
        Vector2i => m::Vector2<i32>;
        Vector3i => m::Vector3<i32>;
        Vector4i => m::Vector4<i32>;
        Quaternion => m::Quaternion<f64>;
        Color => m::Vector4<f32>;
        Basis => m::RowMatrix3<f64>;
        Transform2D => m::ColumnMatrix2x3<f64>;
        Transform3D => m::ColumnMatrix3x4<f64>;
        Projection => m::ColumnMatrix4<f64>;
    }
}

#[cfg(feature = "glam")]
#[allow(clippy::unnecessary_cast)]
mod glam_impls {
    use super::*;
    use ::glam as g;

    /// Both ways between a math type and a glam type, through a pair of closures.
    macro_rules! both {
        ($($ours:ty, $theirs:ty: |$a:ident| $to_theirs:expr, |$b:ident| $to_ours:expr;)*) => {$(
            impl From<$ours> for $theirs {
                fn from($a: $ours) -> Self {
                    $to_theirs
                }
            }
            impl From<$theirs> for $ours {
                fn from($b: $theirs) -> Self {
                    $to_ours
                }
            }
        )*};
    }

    both! {
        // Vectors: f64 types exactly, f32 types narrowed / widened.
        Vector2, g::DVec2: |v| g::DVec2::new(v.x, v.y), |v| Vector2::new(v.x, v.y);
        Vector2, g::Vec2: |v| g::Vec2::new(v.x as f32, v.y as f32),
            |v| Vector2::new(v.x.into(), v.y.into());
        Vector3, g::DVec3: |v| g::DVec3::new(v.x, v.y, v.z), |v| Vector3::new(v.x, v.y, v.z);
        Vector3, g::Vec3: |v| g::Vec3::new(v.x as f32, v.y as f32, v.z as f32),
            |v| Vector3::new(v.x.into(), v.y.into(), v.z.into());
        Vector3, g::Vec3A: |v| g::Vec3A::new(v.x as f32, v.y as f32, v.z as f32),
            |v| Vector3::new(v.x.into(), v.y.into(), v.z.into());
        Vector4, g::DVec4: |v| g::DVec4::new(v.x, v.y, v.z, v.w),
            |v| Vector4::new(v.x, v.y, v.z, v.w);
        Vector4, g::Vec4: |v| g::Vec4::new(v.x as f32, v.y as f32, v.z as f32, v.w as f32),
            |v| Vector4::new(v.x.into(), v.y.into(), v.z.into(), v.w.into());
        Vector2i, g::IVec2: |v| g::IVec2::new(v.x, v.y), |v| Vector2i::new(v.x, v.y);
        Vector3i, g::IVec3: |v| g::IVec3::new(v.x, v.y, v.z), |v| Vector3i::new(v.x, v.y, v.z);
        Vector4i, g::IVec4: |v| g::IVec4::new(v.x, v.y, v.z, v.w),
            |v| Vector4i::new(v.x, v.y, v.z, v.w);
        // Quaternions: (x, y, z, w) on both sides.
        Quaternion, g::DQuat: |q| g::DQuat::from_xyzw(q.x, q.y, q.z, q.w),
            |q| Quaternion::new(q.x, q.y, q.z, q.w);
        Quaternion, g::Quat:
            |q| g::Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32),
            |q| Quaternion::new(q.x.into(), q.y.into(), q.z.into(), q.w.into());
        // A Color is four f32, r g b a.
        Color, g::Vec4: |c| g::Vec4::new(c.r, c.g, c.b, c.a), |v| Color::new(v.x, v.y, v.z, v.w);
        // Basis (row-major) and glam's column-major matrices: the columns are the axes.
        Basis, g::DMat3: |b| {
                let [x, y, z] = b.axes();
                g::DMat3::from_cols(x.into(), y.into(), z.into())
            },
            |m| Basis::from_axes(m.x_axis.into(), m.y_axis.into(), m.z_axis.into());
        Basis, g::Mat3: |b| {
                let [x, y, z] = b.axes();
                g::Mat3::from_cols(x.into(), y.into(), z.into())
            },
            |m| Basis::from_axes(m.x_axis.into(), m.y_axis.into(), m.z_axis.into());
        Basis, g::Mat3A: |b| {
                let [x, y, z] = b.axes();
                g::Mat3A::from_cols(x.into(), y.into(), z.into())
            },
            |m| Basis::from_axes(m.x_axis.into(), m.y_axis.into(), m.z_axis.into());
        // Transform2D: the basis columns x and y, then the origin.
        Transform2D, g::DAffine2: |t| g::DAffine2 {
                matrix2: g::DMat2::from_cols(t.x.into(), t.y.into()),
                translation: t.origin.into(),
            },
            |a| Transform2D {
                x: a.matrix2.x_axis.into(),
                y: a.matrix2.y_axis.into(),
                origin: a.translation.into(),
            };
        Transform2D, g::Affine2: |t| g::Affine2 {
                matrix2: g::Mat2::from_cols(t.x.into(), t.y.into()),
                translation: t.origin.into(),
            },
            |a| Transform2D {
                x: a.matrix2.x_axis.into(),
                y: a.matrix2.y_axis.into(),
                origin: a.translation.into(),
            };
        // Transform3D: the basis, then the origin.
        Transform3D, g::DAffine3: |t| g::DAffine3 {
                matrix3: t.basis.into(),
                translation: t.origin.into(),
            },
            |a| Transform3D { basis: a.matrix3.into(), origin: a.translation.into() };
        Transform3D, g::Affine3A: |t| g::Affine3A {
                matrix3: t.basis.into(),
                translation: t.origin.into(),
            },
            |a| Transform3D { basis: a.matrix3.into(), origin: a.translation.into() };
        Transform3D, g::Affine3: |t| g::Affine3 {
                matrix3: t.basis.into(),
                translation: t.origin.into(),
            },
            |a| Transform3D { basis: a.matrix3.into(), origin: a.translation.into() };
        // Projection: column by column on both sides.
        Projection, g::DMat4: |p| {
                let [x, y, z, w] = p.columns;
                g::DMat4::from_cols(x.into(), y.into(), z.into(), w.into())
            },
            |m| Projection {
                columns: [m.x_axis.into(), m.y_axis.into(), m.z_axis.into(), m.w_axis.into()],
            };
        Projection, g::Mat4: |p| {
                let [x, y, z, w] = p.columns;
                g::Mat4::from_cols(x.into(), y.into(), z.into(), w.into())
            },
            |m| Projection {
                columns: [m.x_axis.into(), m.y_axis.into(), m.z_axis.into(), m.w_axis.into()],
            };
    }
}
