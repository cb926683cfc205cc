//! The engine's maths in its `real_t` (`f32`, or `f64` in a precision=double build): a real
//! narrowed as `real_t` holds it, correctly rounded square roots (also without `std`), and the
//! conversions between Quaternion, Basis, Transform2D, Transform3D and Projection.

/// A real as the engine's `real_t` holds it: narrowed to `f32` unless the build is double.
#[inline]
pub(crate) fn real(x: f64, double: bool) -> f64 {
    if double {
        x
    } else {
        f64::from(x as f32)
    }
}

/// The float operations the engine's math uses, in `f32` or `f64`.
pub(super) trait Real:
    Copy
    + PartialOrd
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn finite(self) -> bool;
}

impl Real for f32 {
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn get(self) -> f64 {
        f64::from(self)
    }
    fn sqrt(self) -> f32 {
        libm_sqrt32(self)
    }
    fn abs(self) -> f32 {
        f32::from_bits(self.to_bits() & 0x7FFF_FFFF)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Real for f64 {
    fn of(x: f64) -> f64 {
        x
    }
    fn get(self) -> f64 {
        self
    }
    fn sqrt(self) -> f64 {
        libm_sqrt64(self)
    }
    fn abs(self) -> f64 {
        f64::from_bits(self.to_bits() & 0x7FFF_FFFF_FFFF_FFFF)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// A correctly rounded square root (as the hardware's `sqrtss`).
fn libm_sqrt32(x: f32) -> f32 {
    // Through f64: a square root rounded to 53 bits, then to 24, is correctly rounded.
    libm_sqrt64(f64::from(x)) as f32
}

/// A correctly rounded square root (as the hardware's `sqrtsd`).
fn libm_sqrt64(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.sqrt()
    }
    #[cfg(not(feature = "std"))]
    {
        sqrt_exact(x)
    }
}

/// A correctly rounded square root without `std`: the integer square root of the
/// significand, rounded to nearest even.
#[cfg(any(not(feature = "std"), test))]
fn sqrt_exact(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // x = m * 2^e with m an integer.
    let bits = x.to_bits();
    let exp_bits = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // sqrt(m * 4^k) has at least 56 bits: k = 60 - bits(m) / 2 rounded.
    let shift = 2 * (60 - (64 - m.leading_zeros() as i32) / 2);
    let n = u128::from(m) << shift;
    // Integer square root of n.
    let mut r: u128 = 0;
    let mut rem: u128 = n;
    let mut bit: u128 = 1u128 << ((127 - n.leading_zeros()) & !1);
    while bit != 0 {
        if rem >= r + bit {
            rem -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    let sticky = rem != 0;
    // r has 56..=61 bits; keep 53 with round to nearest even.
    let len = 128 - r.leading_zeros() as i32;
    let drop = len - 53;
    let mut q = (r >> drop) as u64;
    let half = 1u128 << (drop - 1);
    let low = r & ((1u128 << drop) - 1);
    if low > half || (low == half && (sticky || q & 1 == 1)) {
        q += 1;
    }
    let mut exp = e / 2 - shift / 2 + drop;
    if q == 1u64 << 53 {
        q >>= 1;
        exp += 1;
    }
    // value = q * 2^exp, q with 53 bits: normal (a root is never subnormal).
    let biased = (exp + 52 + 1023) as u64;
    f64::from_bits((biased << 52) | (q & ((1u64 << 52) - 1)))
}

const CMP_EPSILON: f64 = 0.00001;
const UNIT_EPSILON: f64 = 0.001;

/// `Math::is_equal_approx(a, b)`.
fn equal_approx<R: Real>(a: R, b: R) -> bool {
    if a == b {
        return true;
    }
    let mut tolerance = R::of(CMP_EPSILON) * a.abs();
    if tolerance < R::of(CMP_EPSILON) {
        tolerance = R::of(CMP_EPSILON);
    }
    (a - b).abs() < tolerance
}

/// `Math::is_equal_approx(a, b, tolerance)`.
fn equal_approx_tol<R: Real>(a: R, b: R, tolerance: R) -> bool {
    a == b || (a - b).abs() < tolerance
}

/// `Math::is_zero_approx(x)`.
fn zero_approx<R: Real>(x: R) -> bool {
    x.abs() < R::of(CMP_EPSILON)
}

/// `Basis::get_quaternion` with the engine's `MATH_CHECKS` (the shipped editor builds have
/// them): a basis that is not a finite rotation gives the identity quaternion.
pub(super) fn basis_to_quat<R: Real>(a: [f64; 9]) -> [f64; 4] {
    let m: [[R; 3]; 3] = [
        [R::of(a[0]), R::of(a[1]), R::of(a[2])],
        [R::of(a[3]), R::of(a[4]), R::of(a[5])],
        [R::of(a[6]), R::of(a[7]), R::of(a[8])],
    ];
    let identity = [0.0, 0.0, 0.0, 1.0];
    if !m.iter().flatten().all(|x| x.finite()) {
        return identity;
    }
    // is_rotation: is_conformal && determinant ~ 1.
    let col = |i: usize| [m[0][i], m[1][i], m[2][i]];
    let dot = |u: [R; 3], v: [R; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let (x, y, z) = (col(0), col(1), col(2));
    let x_len_sq = dot(x, x);
    let conformal = equal_approx(x_len_sq, dot(y, y))
        && equal_approx(x_len_sq, dot(z, z))
        && zero_approx(dot(x, y))
        && zero_approx(dot(x, z))
        && zero_approx(dot(y, z));
    let det = m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2])
        - m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2])
        + m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
    if !(conformal && equal_approx_tol(det, R::of(1.0), R::of(UNIT_EPSILON))) {
        return identity;
    }
    let trace = m[0][0] + m[1][1] + m[2][2];
    let mut temp = [R::of(0.0); 4];
    let half = R::of(0.5);
    let one = R::of(1.0);
    if trace > R::of(0.0) {
        let mut s = (trace + one).sqrt();
        temp[3] = s * half;
        s = half / s;
        temp[0] = (m[2][1] - m[1][2]) * s;
        temp[1] = (m[0][2] - m[2][0]) * s;
        temp[2] = (m[1][0] - m[0][1]) * s;
    } else {
        let i = if m[0][0] < m[1][1] {
            if m[1][1] < m[2][2] {
                2
            } else {
                1
            }
        } else if m[0][0] < m[2][2] {
            2
        } else {
            0
        };
        let j = (i + 1) % 3;
        let k = (i + 2) % 3;
        let mut s = (m[i][i] - m[j][j] - m[k][k] + one).sqrt();
        temp[i] = s * half;
        s = half / s;
        temp[3] = (m[k][j] - m[j][k]) * s;
        temp[j] = (m[j][i] + m[i][j]) * s;
        temp[k] = (m[k][i] + m[i][k]) * s;
    }
    temp.map(Real::get)
}

/// `Basis(Quaternion)` (`Basis::set_quaternion`), rows in wire order.
fn quat_to_basis<R: Real>(q: [f64; 4]) -> [f64; 9] {
    let [x, y, z, w] = q.map(R::of);
    let d = x * x + y * y + z * z + w * w;
    let s = R::of(2.0) / d;
    let (xs, ys, zs) = (x * s, y * s, z * s);
    let (wx, wy, wz) = (w * xs, w * ys, w * zs);
    let (xx, xy, xz) = (x * xs, x * ys, x * zs);
    let (yy, yz, zz) = (y * ys, y * zs, z * zs);
    let one = R::of(1.0);
    [
        one - (yy + zz),
        xy - wz,
        xz + wy,
        xy + wz,
        one - (xx + zz),
        yz - wx,
        xz - wy,
        yz + wx,
        one - (xx + yy),
    ]
    .map(Real::get)
}

pub(super) fn quat_to_basis_in(q: [f64; 4], double: bool) -> [f64; 9] {
    if double {
        quat_to_basis::<f64>(q)
    } else {
        quat_to_basis::<f32>(q)
    }
}

/// `Transform2D(Transform3D)`: the basis' upper 2×2 and the origin's x, y.
pub(super) fn t3d_to_t2d(t: [f64; 12]) -> [f64; 6] {
    // rows r00 r01 r02 r10 r11 r12 r20 r21 r22, origin ox oy oz
    [t[0], t[3], t[1], t[4], t[9], t[10]]
}

/// `Transform3D(Transform2D)`: the 2D axes in the basis' upper 2×2, z unchanged.
pub(super) fn t2d_to_t3d(t: [f64; 6]) -> [f64; 12] {
    // columns c0x c0y c1x c1y, origin ox oy
    [
        t[0], t[2], 0.0, t[1], t[3], 0.0, 0.0, 0.0, 1.0, t[4], t[5], 0.0,
    ]
}

/// `Projection::operator Transform3D`: the columns' x, y, z.
pub(super) fn projection_to_t3d(p: [f64; 16]) -> [f64; 12] {
    [
        p[0], p[4], p[8], p[1], p[5], p[9], p[2], p[6], p[10], p[12], p[13], p[14],
    ]
}

/// `Projection(Transform3D)`: the basis columns and the origin as columns, w = 0, 0, 0, 1.
pub(super) fn t3d_to_projection(t: [f64; 12]) -> [f64; 16] {
    [
        t[0], t[3], t[6], 0.0, t[1], t[4], t[7], 0.0, t[2], t[5], t[8], 0.0, t[9], t[10], t[11],
        1.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_roots_are_correctly_rounded() {
        for x in [
            2.0,
            0.5,
            1e-300,
            5e-324,
            1.7976931348623157e308,
            3.0,
            1e10,
            0.1,
            7.0,
        ] {
            assert_eq!(sqrt_exact(x).to_bits(), x.sqrt().to_bits(), "{x}");
        }
        let mut s = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..10_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s & 0x7FEF_FFFF_FFFF_FFFF);
            assert_eq!(sqrt_exact(x).to_bits(), x.sqrt().to_bits(), "{x:e}");
        }
    }
}
