//! The math types, as small `Copy` structs with components in the engine's order.
//!
//! Real-valued components are `f64`, which holds both wire widths exactly (f32 payloads are
//! widened on read; whether a value was written with f64 components is
//! [`VariantRef::is_wide`](crate::VariantRef::is_wide)). Integer vectors have `i32` components
//! and [`Color`] has `f32` components, as on the wire. Every struct is `#[repr(C)]` without padding
//! and implements [`bytemuck::Pod`], so slices of them cast to and from math-library types of the
//! same layout.
//!
//! # mint and glam
//!
//! With the `mint` or `glam` feature, every math type that has a counterpart converts to it and
//! back with `From` / `Into`. Layouts are converted, never reinterpreted: [`Basis`] is row-major,
//! as the engine stores and writes it, while glam's matrices are column-major (their columns are
//! the basis axes, as GDScript's `Basis(x, y, z)` takes them). Conversions to `f32` types narrow
//! each component as the engine's single precision does; conversions from them widen exactly.
//!
//! | gdvariant | mint (`f32` and `f64`) | glam |
//! |---|---|---|
//! | [`Vector2`], [`Vector3`], [`Vector4`] | `Vector2<T>`, `Vector3<T>`, `Vector4<T>` | `DVec2`/`Vec2`, `DVec3`/`Vec3`/`Vec3A`, `DVec4`/`Vec4` |
//! | [`Vector2i`], [`Vector3i`], [`Vector4i`] | `Vector2<i32>`, `Vector3<i32>`, `Vector4<i32>` | `IVec2`, `IVec3`, `IVec4` |
//! | [`Quaternion`] (x, y, z, w) | `Quaternion<T>` (`v` = x, y, z; `s` = w) | `DQuat`, `Quat` |
//! | [`Color`] (r, g, b, a) | `Vector4<f32>` | `Vec4` |
//! | [`Basis`] | `RowMatrix3<T>` (rows), `ColumnMatrix3<T>` (axes) | `DMat3`, `Mat3`, `Mat3A` |
//! | [`Transform2D`] | `ColumnMatrix2x3<T>` (x, y, origin), `RowMatrix2x3<T>` | `DAffine2`, `Affine2` |
//! | [`Transform3D`] | `ColumnMatrix3x4<T>` (axes, origin), `RowMatrix3x4<T>` | `DAffine3`, `Affine3A`, `Affine3` |
//! | [`Projection`] | `ColumnMatrix4<T>` (columns), `RowMatrix4<T>` | `DMat4`, `Mat4` |
//!
//! The mint types also implement `mint::IntoMint`, so APIs generic over mint take them as they are.
//!
//! ```
//! # #[cfg(feature = "glam")] {
//! use gdvariant::{math::Transform3D, math::Vector3};
//! // var_to_bytes(Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
//! //                          Vector3(10, 11, 12))) in Godot 4: the basis row by row on the wire.
//! let mut bytes = vec![18, 0, 0, 0];
//! for x in [1.0f32, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0, 10.0, 11.0, 12.0] {
//!     bytes.extend_from_slice(&x.to_le_bytes());
//! }
//! let t = gdvariant::parse(&bytes)?.as_transform3d()?;
//! let affine = glam::DAffine3::from(t);
//! assert_eq!(affine.matrix3.x_axis, glam::DVec3::new(1.0, 2.0, 3.0)); // the x axis
//! // What `t * Vector3(1, 1, 1)` gives in GDScript:
//! assert_eq!(affine.transform_point3(glam::DVec3::ONE), glam::DVec3::new(22.0, 26.0, 30.0));
//! assert_eq!(Transform3D::from(affine), t);
//! let single: glam::Affine3A = t.into(); // f32, as the engine computes
//! assert_eq!(Vector3::from(single.translation), Vector3::new(10.0, 11.0, 12.0));
//! # }
//! # Ok::<(), gdvariant::Error>(())
//! ```
//!
//! ```
//! # #[cfg(feature = "mint")] {
//! use gdvariant::{math::Basis, math::Vector3};
//! let b = Basis::from_axes(Vector3::new(1.0, 2.0, 3.0), Vector3::new(4.0, 5.0, 6.0), Vector3::new(7.0, 8.0, 9.0));
//! let rows: mint::RowMatrix3<f32> = b.into();
//! assert_eq!(rows.x, mint::Vector3 { x: 1.0, y: 4.0, z: 7.0 }); // the first row
//! let cols: mint::ColumnMatrix3<f64> = b.into();
//! assert_eq!(cols.x, mint::Vector3 { x: 1.0, y: 2.0, z: 3.0 }); // the x axis
//! assert_eq!(Basis::from(cols), b);
//! # }
//! ```

use bytemuck::{Pod, Zeroable};

/// An `f32` component widened to `f64` exactly, NaN payloads included: the engine keeps math
/// components as `f32` (its `real_t`), so a signaling NaN there stays one and is written back
/// unchanged, where `f64::from` would quiet it.
#[inline]
pub(crate) fn widen(x: f32) -> f64 {
    if x.is_nan() {
        let b = x.to_bits();
        f64::from_bits(
            (u64::from(b >> 31) << 63) | 0x7FF0_0000_0000_0000 | (u64::from(b & 0x7F_FFFF) << 29),
        )
    } else {
        f64::from(x)
    }
}

/// The inverse of [`widen`]: an `f64` component narrowed to `f32`, a NaN that [`widen`] made
/// back to its `f32` bits (other values rounded as `as f32` does).
#[inline]
pub(crate) fn narrow(x: f64) -> f32 {
    if x.is_nan() {
        let b = x.to_bits();
        let payload = ((b >> 29) & 0x7F_FFFF) as u32;
        if payload != 0 && b & ((1 << 29) - 1) == 0 {
            return f32::from_bits((((b >> 63) as u32) << 31) | 0x7F80_0000 | payload);
        }
    }
    x as f32
}
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

macro_rules! flat {
    ($(#[$m:meta])* $name:ident, $t:ty, $n:literal, [$($f:ident),+]) => {
        flat!($(#[$m])* $name, $t, $n, [$($f),+], Self { $($f: <$t>::default()),+ });
    };
    ($(#[$m:meta])* $name:ident, $t:ty, $n:literal, [$($f:ident),+], $default:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable, FromBytes, IntoBytes, Immutable, KnownLayout)]
        #[repr(C)]
        pub struct $name {
            $(
                #[allow(missing_docs)]
                pub $f: $t,
            )+
        }

        impl Default for $name {
            /// As the engine's default constructor.
            #[inline]
            fn default() -> Self {
                $default
            }
        }

        impl $name {
            /// Creates the value from its components.
            #[inline]
            pub const fn new($($f: $t),+) -> Self {
                Self { $($f),+ }
            }

            /// The components in wire order.
            #[inline]
            pub const fn to_array(self) -> [$t; $n] {
                [$(self.$f),+]
            }

            /// The value from components in wire order.
            #[inline]
            pub const fn from_array(a: [$t; $n]) -> Self {
                let [$($f),+] = a;
                Self { $($f),+ }
            }
        }

        impl From<[$t; $n]> for $name {
            fn from(a: [$t; $n]) -> Self {
                Self::from_array(a)
            }
        }

        impl From<$name> for [$t; $n] {
            fn from(v: $name) -> Self {
                v.to_array()
            }
        }
    };
}

flat!(
    /// A 2D vector (`Vector2`).
    Vector2, f64, 2, [x, y]
);
flat!(
    /// A 2D vector of integers (`Vector2i`, Godot 4).
    Vector2i, i32, 2, [x, y]
);
flat!(
    /// A 3D vector (`Vector3`).
    Vector3, f64, 3, [x, y, z]
);
flat!(
    /// A 3D vector of integers (`Vector3i`, Godot 4).
    Vector3i, i32, 3, [x, y, z]
);
flat!(
    /// A 4D vector (`Vector4`, Godot 4).
    Vector4, f64, 4, [x, y, z, w]
);
flat!(
    /// A 4D vector of integers (`Vector4i`, Godot 4).
    Vector4i, i32, 4, [x, y, z, w]
);
flat!(
    /// A rotation quaternion (`Quaternion`; `Quat` in Godot 3).
    ///
    /// [`Default`] is the identity `(0, 0, 0, 1)`, as `Quaternion()` in Godot.
    Quaternion, f64, 4, [x, y, z, w], Quaternion::IDENTITY
);
flat!(
    /// A color: always four `f32` on the wire, whatever the precision flag says.
    ///
    /// [`Default`] is opaque black `(0, 0, 0, 1)`, as `Color()` in Godot.
    Color, f32, 4, [r, g, b, a], Color::BLACK
);

impl Quaternion {
    /// The identity rotation `(0, 0, 0, 1)` (`Quaternion.IDENTITY`).
    pub const IDENTITY: Quaternion = Quaternion::new(0.0, 0.0, 0.0, 1.0);
}

impl Color {
    /// Opaque black `(0, 0, 0, 1)` (`Color.BLACK`).
    pub const BLACK: Color = Color::new(0.0, 0.0, 0.0, 1.0);
    /// Opaque white `(1, 1, 1, 1)` (`Color.WHITE`).
    pub const WHITE: Color = Color::new(1.0, 1.0, 1.0, 1.0);
    /// Transparent white `(1, 1, 1, 0)` (`Color.TRANSPARENT`).
    pub const TRANSPARENT: Color = Color::new(1.0, 1.0, 1.0, 0.0);
}

macro_rules! nested {
    ($name:ident, $n:literal, |$a:ident| $from:expr, |$s:ident| $to:expr) => {
        impl $name {
            /// The components in wire order.
            #[inline]
            pub fn to_array(self) -> [f64; $n] {
                let $s = self;
                $to
            }

            /// The value from components in wire order.
            #[inline]
            pub fn from_array($a: [f64; $n]) -> Self {
                $from
            }
        }

        impl From<[f64; $n]> for $name {
            fn from(a: [f64; $n]) -> Self {
                Self::from_array(a)
            }
        }

        impl From<$name> for [f64; $n] {
            fn from(v: $name) -> Self {
                v.to_array()
            }
        }
    };
}

/// A 2D rectangle (`Rect2`): position, then size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Rect2 {
    /// The top-left corner.
    pub position: Vector2,
    /// The width and height.
    pub size: Vector2,
}
nested!(
    Rect2,
    4,
    |a| Rect2 {
        position: Vector2::new(a[0], a[1]),
        size: Vector2::new(a[2], a[3])
    },
    |s| [s.position.x, s.position.y, s.size.x, s.size.y]
);

/// A 2D rectangle of integers (`Rect2i`, Godot 4): position, then size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Rect2i {
    /// The top-left corner.
    pub position: Vector2i,
    /// The width and height.
    pub size: Vector2i,
}

impl Rect2i {
    /// The components in wire order.
    pub const fn to_array(self) -> [i32; 4] {
        [self.position.x, self.position.y, self.size.x, self.size.y]
    }

    /// The value from components in wire order.
    pub const fn from_array(a: [i32; 4]) -> Self {
        Rect2i {
            position: Vector2i::new(a[0], a[1]),
            size: Vector2i::new(a[2], a[3]),
        }
    }
}

/// A 2D affine transform (`Transform2D`), column by column: the x axis, the y axis, the origin.
///
/// [`Default`] is the identity, as `Transform2D()` in Godot.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Transform2D {
    /// The first column (the basis x axis).
    pub x: Vector2,
    /// The second column (the basis y axis).
    pub y: Vector2,
    /// The translation.
    pub origin: Vector2,
}
nested!(
    Transform2D,
    6,
    |a| Transform2D {
        x: Vector2::new(a[0], a[1]),
        y: Vector2::new(a[2], a[3]),
        origin: Vector2::new(a[4], a[5])
    },
    |s| [s.x.x, s.x.y, s.y.x, s.y.y, s.origin.x, s.origin.y]
);

/// A plane (`Plane`): the normal, then the distance from the origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Plane {
    /// The plane's normal.
    pub normal: Vector3,
    /// The distance from the origin along the normal.
    pub d: f64,
}
nested!(
    Plane,
    4,
    |a| Plane {
        normal: Vector3::new(a[0], a[1], a[2]),
        d: a[3]
    },
    |s| [s.normal.x, s.normal.y, s.normal.z, s.d]
);

/// An axis-aligned bounding box (`AABB`): position, then size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Aabb {
    /// The minimum corner.
    pub position: Vector3,
    /// The extent.
    pub size: Vector3,
}
nested!(
    Aabb,
    6,
    |a| Aabb {
        position: Vector3::new(a[0], a[1], a[2]),
        size: Vector3::new(a[3], a[4], a[5])
    },
    |s| [
        s.position.x,
        s.position.y,
        s.position.z,
        s.size.x,
        s.size.y,
        s.size.z
    ]
);

/// A 3×3 matrix (`Basis`), stored as the engine stores it and writes it: **row-major**.
/// `rows[0]` is `(x.x, y.x, z.x)` in axis terms.
///
/// [`Default`] is the identity, as `Basis()` in Godot.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Basis {
    /// The three rows.
    pub rows: [Vector3; 3],
}
nested!(
    Basis,
    9,
    |a| Basis {
        rows: [
            Vector3::new(a[0], a[1], a[2]),
            Vector3::new(a[3], a[4], a[5]),
            Vector3::new(a[6], a[7], a[8])
        ]
    },
    |s| [
        s.rows[0].x,
        s.rows[0].y,
        s.rows[0].z,
        s.rows[1].x,
        s.rows[1].y,
        s.rows[1].z,
        s.rows[2].x,
        s.rows[2].y,
        s.rows[2].z
    ]
);

impl Basis {
    /// The basis from its three axis (column) vectors, as GDScript's `Basis(x, y, z)`.
    pub fn from_axes(x: Vector3, y: Vector3, z: Vector3) -> Basis {
        Basis {
            rows: [
                Vector3::new(x.x, y.x, z.x),
                Vector3::new(x.y, y.y, z.y),
                Vector3::new(x.z, y.z, z.z),
            ],
        }
    }

    /// The three axis (column) vectors x, y, z: the inverse of [`from_axes`](Basis::from_axes).
    pub fn axes(&self) -> [Vector3; 3] {
        let r = &self.rows;
        [
            Vector3::new(r[0].x, r[1].x, r[2].x),
            Vector3::new(r[0].y, r[1].y, r[2].y),
            Vector3::new(r[0].z, r[1].z, r[2].z),
        ]
    }

    /// Axis (column) `i` (0 = x, 1 = y, 2 = z), or `None` past 2.
    pub fn axis(&self, i: usize) -> Option<Vector3> {
        let r = &self.rows;
        Some(match i {
            0 => Vector3::new(r[0].x, r[1].x, r[2].x),
            1 => Vector3::new(r[0].y, r[1].y, r[2].y),
            2 => Vector3::new(r[0].z, r[1].z, r[2].z),
            _ => return None,
        })
    }
}

/// A 3D affine transform (`Transform3D`; `Transform` in Godot 3): the basis (row-major), then
/// the origin.
///
/// [`Default`] is the identity, as `Transform3D()` in Godot.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Transform3D {
    /// The linear part.
    pub basis: Basis,
    /// The translation.
    pub origin: Vector3,
}

impl Transform3D {
    /// The components in wire order.
    pub fn to_array(self) -> [f64; 12] {
        let b = self.basis.to_array();
        let o = self.origin;
        [
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], o.x, o.y, o.z,
        ]
    }

    /// The value from components in wire order.
    pub fn from_array(a: [f64; 12]) -> Self {
        let mut b = [0.0; 9];
        b.copy_from_slice(&a[..9]);
        Transform3D {
            basis: Basis::from_array(b),
            origin: Vector3::new(a[9], a[10], a[11]),
        }
    }
}

/// A 4×4 projection matrix (`Projection`, Godot 4), column by column.
///
/// [`Default`] is the identity, as `Projection()` in Godot.
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Projection {
    /// The four columns x, y, z, w.
    pub columns: [Vector4; 4],
}

impl Projection {
    /// The components in wire order.
    pub fn to_array(self) -> [f64; 16] {
        let mut out = [0.0; 16];
        for (chunk, col) in out.chunks_exact_mut(4).zip(self.columns) {
            chunk.copy_from_slice(&col.to_array());
        }
        out
    }

    /// The value from components in wire order.
    pub fn from_array(a: [f64; 16]) -> Self {
        let col = |i: usize| Vector4::new(a[i * 4], a[i * 4 + 1], a[i * 4 + 2], a[i * 4 + 3]);
        Projection {
            columns: [col(0), col(1), col(2), col(3)],
        }
    }
}

impl Transform2D {
    /// The identity transform (`Transform2D.IDENTITY`).
    pub const IDENTITY: Transform2D = Transform2D {
        x: Vector2::new(1.0, 0.0),
        y: Vector2::new(0.0, 1.0),
        origin: Vector2::new(0.0, 0.0),
    };
}

impl Basis {
    /// The identity basis (`Basis.IDENTITY`).
    pub const IDENTITY: Basis = Basis {
        rows: [
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
            Vector3::new(0.0, 0.0, 1.0),
        ],
    };
}

impl Transform3D {
    /// The identity transform (`Transform3D.IDENTITY`).
    pub const IDENTITY: Transform3D = Transform3D {
        basis: Basis::IDENTITY,
        origin: Vector3::new(0.0, 0.0, 0.0),
    };
}

impl Projection {
    /// The identity projection (`Projection.IDENTITY`).
    pub const IDENTITY: Projection = Projection {
        columns: [
            Vector4::new(1.0, 0.0, 0.0, 0.0),
            Vector4::new(0.0, 1.0, 0.0, 0.0),
            Vector4::new(0.0, 0.0, 1.0, 0.0),
            Vector4::new(0.0, 0.0, 0.0, 1.0),
        ],
    };
}

macro_rules! identity_default {
    ($($t:ident),*) => {$(
        impl Default for $t {
            /// The identity, as the engine's default constructor.
            fn default() -> $t {
                $t::IDENTITY
            }
        }
    )*};
}
identity_default!(Transform2D, Basis, Transform3D, Projection);

#[cfg(test)]
mod nan_tests {
    use super::*;

    #[test]
    fn components_keep_their_nan_payloads() {
        for bits in [
            0x7F80_0001u32,
            0xFF80_0004,
            0x7FC0_0000,
            0x7FBF_FFFF,
            0x3F80_0000,
        ] {
            let x = f32::from_bits(bits);
            assert_eq!(narrow(widen(x)).to_bits(), bits, "{bits:#x}");
        }
        assert_eq!(narrow(0.1).to_bits(), 0.1f32.to_bits());
        assert!(narrow(f64::NAN).is_nan());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_identity() {
        assert_eq!(
            Transform2D::default().to_array(),
            [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        );
        assert_eq!(
            Basis::default().to_array(),
            [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(Transform3D::default().basis, Basis::IDENTITY);
        assert_eq!(Transform3D::default().origin, Vector3::default());
        let p = Projection::default().to_array();
        assert!((0..16).all(|i| p[i] == if i % 5 == 0 { 1.0 } else { 0.0 }));
        // Godot 4.6.3 and 3.2.3: `Quaternion()` / `Quat()` is (0, 0, 0, 1), `Color()` is
        // (0, 0, 0, 1); the vectors are zero.
        assert_eq!(Quaternion::default().to_array(), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(Color::default().to_array(), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(Vector4::default().to_array(), [0.0; 4]);
        assert_eq!(Vector3i::default().to_array(), [0; 3]);
        assert_eq!(Color::WHITE.to_array(), [1.0; 4]);
        assert_eq!(Color::TRANSPARENT.to_array(), [1.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn basis_axes_are_columns() {
        let b = Basis::from_axes(
            Vector3::new(1.0, 2.0, 3.0),
            Vector3::new(4.0, 5.0, 6.0),
            Vector3::new(7.0, 8.0, 9.0),
        );
        assert_eq!(b.to_array(), [1.0, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0]);
        assert_eq!(b.axis(1), Some(Vector3::new(4.0, 5.0, 6.0)));
        assert_eq!(b.axis(3), None);
    }

    #[test]
    fn round_trips_through_arrays() {
        let t = Transform3D::from_array(core::array::from_fn(|i| i as f64));
        assert_eq!(t.origin, Vector3::new(9.0, 10.0, 11.0));
        assert_eq!(Transform3D::from_array(t.to_array()), t);
        let p = Projection::from_array(core::array::from_fn(|i| i as f64));
        assert_eq!(p.columns[3].w, 15.0);
        assert_eq!(Projection::from_array(p.to_array()), p);
        let color = Color::new(1.0, 0.5, 0.0, 1.0);
        let bytes: &[u8] = bytemuck::bytes_of(&color);
        assert_eq!(bytes.len(), 16);
    }
}
