//! Numbers as the engine's C++ converts and prints them.
//!
//! Conversions: a real to an integer as C++'s casts do it on x86-64 ([`f64_to_i64`],
//! [`real_to_i32`]).
//!
//! The text form (`var_to_str`, feature `std`):
//!
//! - Godot 4 (`rtos_fix` → `String::num_scientific`): Grisu2's shortest decimal that reads back
//!   as the same value — as an `f32` when the value is exactly an `f32`, else as an `f64` — written
//!   in positional notation when the decimal exponent is in `-4..=14`, else as `1.5e+15` /
//!   `1e-05` (at least two exponent digits). Zero (also `-0.0`) prints as `0`, non-finite values
//!   as `nan`, `inf`, `inf_neg`.
//! - Godot 3 (`rtos_fix` → `%lg`): the value is first narrowed to `f32` (`real_t`), then printed
//!   with `printf("%g")`: 6 significant digits. Zero prints as `0`, non-finite as `nan` (`-nan`
//!   with the sign bit set, as glibc prints it), `inf`, `-inf`.
//!
//! A standalone `float` value gets `.0` appended when its text has neither `.` nor `e` (and is
//! not a non-finite word), so `1.0` prints as `1.0` but a vector component as `1`.
//!
//! `str()` (`Variant::stringify`, in [`crate::convert`]): `String::num` ([`num`]) and
//! `String::num_real` ([`num_real_f64`], [`num_real_f32`]), `printf("%.*lf")` with the trailing
//! zeros dropped.

use alloc::format;
use alloc::string::String;
#[cfg(feature = "std")]
use core::fmt;

#[cfg(feature = "std")]
use crate::types::Dialect;

#[cfg(feature = "std")]
/// The engine's digits of `x` (finite, non-zero, positive) and its decimal exponent:
/// `x = d1.d2d3… × 10^exp`. Godot 4 prints with Grisu2 (`thirdparty/grisu2`, from simdjson's
/// `to_chars`), on the `f32` when the value is exactly an `f32`, else on the `f64`. Grisu2's
/// digits are not always the closest of the shortest: on a tie it keeps the digits it generated
/// (`2097152.25f32` prints `2097152.2`, where a closest-digit printer may say `2097152.3`).
fn shortest(x: f64) -> (NumText, i32) {
    let (digits, exp) = if (x as f32) as f64 == x {
        grisu::digits(grisu::boundaries_f32(x as f32))
    } else {
        grisu::digits(grisu::boundaries_f64(x))
    };
    let len = digits.len() as i32;
    (digits, exp + len - 1)
}

#[cfg(feature = "std")]
/// Powers of ten exact in `f64`: the short decimals [`short_decimal`] tries.
const TENS: [f64; 5] = [1.0, 10.0, 100.0, 1e3, 1e4];

#[cfg(feature = "std")]
/// An `f32` (positive) that reads back from a decimal of at most 4 places and fewer than 2^24
/// units (a tick, a health, `7.1`, `-3.55`: game traffic is full of them) as `m × 10^-k`, with
/// the fewest places `k` whose value rounds to `x`; [`fixed`] lays it out. That this is the
/// text Grisu2 gives is checked for every `f32` this path takes (`short_decimals_are_grisu2s`,
/// run with `--ignored`), and for a sample in every run. It spares such values Grisu2's digit
/// generation and layout (about 400 instructions of each value's 500 on game traffic).
fn short_decimal(x: f32) -> Option<(u32, usize)> {
    let v = f64::from(x);
    for (k, ten) in TENS.iter().enumerate() {
        // Exact: `v` has 24 significant bits, `ten` at most 14.
        let y = v * ten;
        if y >= 16_777_215.5 {
            return None;
        }
        // `y` rounded half away from zero, without a call to libm's `round`: the integer part
        // and the fraction are exact.
        let whole = y as u32;
        let frac = y - f64::from(whole);
        let m = whole + u32::from(frac >= 0.5);
        if m >= 1 && (f64::from(m) / ten) as f32 == x {
            // Both decimals of a tie read back as `x`: Grisu2 keeps the digit it generated
            // (`2097152.25f32` prints `2097152.2`), left to it.
            if frac == 0.5 {
                return None;
            }
            return Some((m, k));
        }
    }
    None
}

#[cfg(feature = "std")]
/// Appends `n`'s decimal digits, at least `width` (at most 10), written in place.
fn push_digits<const N: usize>(n: u32, width: usize, out: &mut NumText<N>) {
    const POWERS: [u32; 10] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
        1_000_000_000,
    ];
    let len = 1 + POWERS[1..].iter().take_while(|p| n >= **p).count();
    let start = out.len;
    let end = start + len.max(width.min(10));
    if let Some(slot) = out.buf.get_mut(start..end) {
        let mut n = n;
        for d in slot.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.len = end;
    }
}

#[cfg(feature = "std")]
/// Lays out `m × 10^-k` ([`short_decimal`]) as [`positional`] does its digits: `70`, `7.1`,
/// `0.0001`.
fn fixed<const N: usize>(m: u32, k: usize, out: &mut NumText<N>) {
    // Divisions by constants: a division by a variable takes some 25 cycles.
    let (whole, mut frac) = match k {
        0 => (m, 0),
        1 => (m / 10, m % 10),
        2 => (m / 100, m % 100),
        3 => (m / 1_000, m % 1_000),
        _ => (m / 10_000, m % 10_000),
    };
    push_digits(whole, 1, out);
    if frac != 0 {
        let mut places = k;
        while frac % 10 == 0 {
            frac /= 10;
            places -= 1;
        }
        out.push(b'.');
        push_digits(frac, places, out);
    }
}

#[cfg(feature = "std")]
mod grisu;
mod text;

pub(crate) use text::NumText;

#[cfg(feature = "std")]
/// The decimal text of an integer.
pub(crate) fn int(x: i64) -> NumText<24> {
    let mut out = NumText::new();
    push_int(x, &mut out);
    out
}

#[cfg(feature = "std")]
/// Appends the decimal text of an integer (at most 20 bytes).
pub(crate) fn push_int<const N: usize>(x: i64, out: &mut NumText<N>) {
    if x < 0 {
        out.push(b'-');
    }
    let n = x.unsigned_abs();
    if let Ok(n) = u32::try_from(n) {
        return push_digits(n, 1, out);
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_bytes(&digits[at..]);
}

#[cfg(feature = "std")]
/// The decimal digits of every byte value: up to three digits, then their count.
const BYTE_DIGITS: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut i = 0;
    while i < 256 {
        let (h, d, o) = ((i / 100) as u8, (i / 10 % 10) as u8, (i % 10) as u8);
        t[i] = if i >= 100 {
            [b'0' + h, b'0' + d, b'0' + o, 3]
        } else if i >= 10 {
            [b'0' + d, b'0' + o, 0, 2]
        } else {
            [b'0' + o, 0, 0, 1]
        };
        i += 1;
    }
    t
};

#[cfg(feature = "std")]
/// Writes `bytes` as decimal numbers separated by `, ` (a PackedByteArray's elements), from a
/// table of the 256 byte values' digits, in runs of up to 1 KiB.
pub(crate) fn write_bytes<W: fmt::Write + ?Sized>(bytes: &[u8], out: &mut W) -> fmt::Result {
    const RUN: usize = 1024;
    let mut run = [0u8; RUN];
    let mut at = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Room for `, ` and a table entry's 4 bytes.
        if at > RUN - 6 {
            out.write_str(core::str::from_utf8(&run[..at]).unwrap_or(""))?;
            at = 0;
        }
        // `, ` and the entry's 4 bytes copied whole (fixed-size copies, not a call for 1 to 3
        // bytes), the text advanced by the digits only: what follows them is written over.
        let d = &BYTE_DIGITS[usize::from(b)];
        if let Some(slot) = run.get_mut(at..at + 6) {
            let sep = if i > 0 { 2 } else { 0 };
            slot[..2].copy_from_slice(b", ");
            slot[sep..sep + 4].copy_from_slice(d);
            at += sep + usize::from(d[3]);
        }
    }
    out.write_str(core::str::from_utf8(&run[..at]).unwrap_or(""))
}

/// Splits Rust's `LowerExp` output (`1.2345e-7`) into its digits and exponent.
fn split_exp(s: &str) -> (NumText, i32) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits = NumText::<64>::new();
    for b in mant.bytes().filter(u8::is_ascii_digit) {
        digits.push(b);
    }
    while digits.len() > 0 && digits.buf[digits.len() - 1] == b'0' {
        digits.len -= 1;
    }
    if digits.len() == 0 {
        digits.push(b'0');
    }
    (digits, exp.parse().unwrap_or(0))
}

/// Writes `x` with `LowerExp` (`{:e}`, or `{:.5e}` with `six`) into a stack buffer and splits
/// it ([`split_exp`]).
#[cfg(feature = "std")]
fn exp_digits(x: f64, six: bool) -> (NumText, i32) {
    use core::fmt::Write as _;
    let mut t = NumText::<64>::new();
    let _ = if six {
        write!(t, "{x:.5e}")
    } else {
        write!(t, "{x:e}")
    };
    split_exp(t.as_str())
}

#[cfg(feature = "std")]
/// Lays out `digits` (d1 d2 …, value `d1.d2… × 10^exp`) in positional notation.
fn positional<const N: usize>(digits: &[u8], exp: i32, out: &mut NumText<N>) {
    let n = digits.len() as i32;
    if exp < 0 {
        out.push_bytes(b"0.");
        for _ in 0..(-exp - 1) {
            out.push(b'0');
        }
        out.push_bytes(digits);
    } else if exp + 1 >= n {
        out.push_bytes(digits);
        for _ in 0..(exp + 1 - n) {
            out.push(b'0');
        }
    } else {
        let (a, b) = digits.split_at((exp + 1) as usize);
        out.push_bytes(a);
        out.push(b'.');
        out.push_bytes(b);
    }
}

#[cfg(feature = "std")]
/// Lays out `digits` in scientific notation with a signed exponent of at least two digits.
fn scientific<const N: usize>(digits: &[u8], exp: i32, out: &mut NumText<N>) {
    let (a, b) = digits.split_at(1);
    out.push_bytes(a);
    if !b.is_empty() {
        out.push(b'.');
        out.push_bytes(b);
    }
    out.push(b'e');
    out.push(if exp < 0 { b'-' } else { b'+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push(b'0');
    }
    push_int(i64::from(e), out);
}

#[cfg(feature = "std")]
/// Godot 4's `rtos_fix`: how a real number (a float, a vector component, a packed array
/// element) is printed by `var_to_str`; appended to `out`.
fn real4<const N: usize>(x: f64, out: &mut NumText<N>) {
    if x == 0.0 {
        return out.push(b'0');
    }
    if x.is_nan() {
        return out.push_bytes(b"nan");
    }
    if x.is_infinite() {
        return out.push_bytes(if x > 0.0 { b"inf" } else { b"inf_neg" });
    }
    if x < 0.0 {
        out.push(b'-');
    }
    let a = x.abs();
    if (a as f32) as f64 == a {
        if let Some((m, k)) = short_decimal(a as f32) {
            return fixed(m, k, out);
        }
    }
    grisu_text(a, out);
}

#[cfg(feature = "std")]
/// Appends Grisu2's text of `x` (finite, positive) in Godot 4's layout.
fn grisu_text<const N: usize>(x: f64, out: &mut NumText<N>) {
    let (digits, exp) = shortest(x);
    let digits = &digits.buf[..digits.len];
    if (-4..15).contains(&exp) {
        positional(digits, exp, out);
    } else {
        scientific(digits, exp, out);
    }
}

#[cfg(feature = "std")]
/// Godot 3's `rtos_fix`: the value narrowed to `f32`, then `printf("%g")`; appended to `out`.
fn real3<const N: usize>(x: f64, out: &mut NumText<N>) {
    let x = x as f32 as f64;
    if x == 0.0 {
        return out.push(b'0');
    }
    if x.is_nan() {
        // glibc's printf writes the sign of a NaN.
        return out.push_bytes(if x.is_sign_negative() {
            b"-nan"
        } else {
            b"nan"
        });
    }
    if x.is_infinite() {
        return out.push_bytes(if x > 0.0 { b"inf" } else { b"-inf" });
    }
    if x < 0.0 {
        out.push(b'-');
    }
    // %g with precision 6: round to 6 significant digits, then choose the notation by the
    // exponent of the rounded value, and drop trailing zeros.
    let (digits, exp) = exp_digits(x.abs(), true);
    let digits = &digits.buf[..digits.len];
    if (-4..6).contains(&exp) {
        positional(digits, exp, out);
    } else {
        scientific(digits, exp, out);
    }
}

#[cfg(feature = "std")]
/// Room for what [`push_real`] appends: a real's text is at most 48 bytes.
pub(crate) const REAL_MAX: usize = 48;

#[cfg(feature = "std")]
/// Appends a real number as the dialect prints it (see [`real4`], [`real3`]).
pub(crate) fn push_real<const N: usize>(x: f64, dialect: Dialect, out: &mut NumText<N>) {
    match dialect {
        Dialect::Godot4 => real4(x, out),
        Dialect::Godot3 => real3(x, out),
    }
}

#[cfg(feature = "std")]
/// A real number as the dialect prints it (see [`push_real`]), on the stack.
pub(crate) fn real_text(x: f64, dialect: Dialect) -> NumText {
    let mut t = NumText::new();
    push_real(x, dialect, &mut t);
    t
}

#[cfg(feature = "std")]
/// A real number as the dialect prints it (see [`real_text`]).
pub(crate) fn real(x: f64, dialect: Dialect) -> String {
    real_text(x, dialect).as_str().into()
}

#[cfg(feature = "std")]
/// Appends a standalone `float` value as the dialect prints it: like [`push_real`], with `.0`
/// appended when the text has neither `.` nor an exponent (`1.0`, `-inf.0` in Godot 3).
pub(crate) fn push_float<const N: usize>(x: f64, dialect: Dialect, out: &mut NumText<N>) {
    let start = out.len;
    push_real(x, dialect, out);
    let t = &out.buf[start..out.len];
    let word = match dialect {
        Dialect::Godot4 => matches!(t, b"inf" | b"inf_neg" | b"nan"),
        Dialect::Godot3 => matches!(t, b"inf" | b"nan"),
    };
    // One pass over a few bytes.
    if !word && !t.iter().any(|&b| b == b'.' || b == b'e') {
        out.push_bytes(b".0");
    }
}

#[cfg(feature = "std")]
/// A standalone `float` value as the dialect prints it (see [`push_float`]), on the stack.
pub(crate) fn float_text(x: f64, dialect: Dialect) -> NumText {
    let mut t = NumText::new();
    push_float(x, dialect, &mut t);
    t
}

#[cfg(feature = "std")]
/// A standalone `float` value as the dialect prints it (see [`float_text`]).
pub(crate) fn float(x: f64, dialect: Dialect) -> String {
    float_text(x, dialect).as_str().into()
}

#[cfg(feature = "std")]
/// The shortest decimal that reads back as exactly `x` as an `f64`, always with a `.` or an
/// exponent so that it reads as a float (`1.0`, `0.1`, `1e+300`); `None` for non-finite values.
/// Used by the JSON form.
pub(crate) fn json_f64(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some(if x.is_sign_negative() { "-0.0" } else { "0.0" }.into());
    }
    let mut out = NumText::<64>::new();
    if x < 0.0 {
        out.push(b'-');
    }
    let (digits, exp) = exp_digits(x.abs(), false);
    let digits = &digits.buf[..digits.len];
    if (-5..17).contains(&exp) {
        positional(digits, exp, &mut out);
        if !out.contains(b'.') {
            out.push_bytes(b".0");
        }
    } else {
        scientific(digits, exp, &mut out);
    }
    Some(out.as_str().into())
}

// ----- integers from reals, as C++ casts them -----

/// C++ `(int64_t)double` on x86-64 (`cvttsd2si`): truncation, the smallest `i64` for NaN and
/// out-of-range values.
pub(crate) fn f64_to_i64(x: f64) -> i64 {
    if x.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// C++ `(int32_t)` of a real on x86-64: truncation, the smallest `i32` for NaN and
/// out-of-range values.
pub(crate) fn real_to_i32(x: f64) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

// ----- `String::num` and `String::num_real`, for `str()` -----

/// `String::num(x, decimals)`: `printf("%.{decimals}lf")` with trailing zeros dropped (one
/// kept after the point); a negative count means `%lf` after the engine's own adjustment.
pub(crate) fn num(x: f64, decimals: i32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let mut d = decimals;
    if d < 0 {
        d = 14;
        let a = x.abs();
        if a > 10.0 {
            d -= floor_log10_f64(a);
        }
    }
    let d = d.min(32);
    let mut s = if d < 0 {
        format!("{x:.6}")
    } else {
        format!("{x:.*}", d as usize)
    };
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.push('0');
        }
    }
    s
}

fn floor_log10_f64(a: f64) -> i32 {
    #[cfg(feature = "std")]
    {
        a.log10().floor() as i32
    }
    #[cfg(not(feature = "std"))]
    {
        // Exact decimal exponent from the shortest representation.
        split_exp(&format!("{a:e}")).1
    }
}

fn floor_log10_f32(a: f32) -> i32 {
    #[cfg(feature = "std")]
    {
        a.log10().floor() as i32
    }
    #[cfg(not(feature = "std"))]
    {
        floor_log10_f64(f64::from(a))
    }
}

/// `String::num_real(double, trailing)`: an integral value as an integer (`.0` with
/// `trailing`), else 14 decimals less the magnitude's digits.
pub(crate) fn num_real_f64(x: f64, trailing: bool) -> String {
    if x.is_nan() || x.is_infinite() {
        return num(x, 0);
    }
    let i = f64_to_i64(x);
    if x == i as f64 {
        return if trailing {
            format!("{i}.0")
        } else {
            format!("{i}")
        };
    }
    let mut decimals = 14;
    let a = x.abs();
    if a > 10.0 {
        decimals -= floor_log10_f64(a);
    }
    num(x, decimals)
}

/// `String::num_real(float, trailing)`: as [`num_real_f64`] with 6 decimals.
pub(crate) fn num_real_f32(x: f32, trailing: bool) -> String {
    if x.is_nan() || x.is_infinite() {
        return num(f64::from(x), 0);
    }
    let i = f64_to_i64(f64::from(x));
    if x == i as f32 {
        return if trailing {
            format!("{i}.0")
        } else {
            format!("{i}")
        };
    }
    let mut decimals = 6;
    let a = x.abs();
    if a > 10.0 {
        decimals -= floor_log10_f32(a);
    }
    num(f64::from(x), decimals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "std")]
    #[test]
    fn godot4_layout() {
        // Values checked against Godot 4.6.3's var_to_str.
        let cases: &[(f64, &str)] = &[
            (1e-5, "1e-05"),
            (1e-4, "0.0001"),
            (1.5e-12, "1.5e-12"),
            (123456789012345.0, "123456789012345"),
            (1099511627776.0, "1099511600000"),
            (9007199254740992.0, "9.007199e+15"),
            (9007199254740994.0, "9.007199254740994e+15"),
            (1e39, "1e+39"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (-2.5, "-2.5"),
            (1.0000000000000001e23, "1.0000000000000001e+23"),
            // Grisu2 keeps its digit on a tie between two shortest forms.
            (2097152.25, "2097152.2"),
            (f64::from(f32::MAX), "3.4028235e+38"),
            (f64::from(f32::from_bits(1)), "1e-45"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
        ];
        for &(x, s) in cases {
            assert_eq!(real_text(x, Dialect::Godot4).as_str(), s, "{x:e}");
        }
        assert_eq!(float(10000000000.0, Dialect::Godot4), "10000000000.0");
        assert_eq!(float(1e-5, Dialect::Godot4), "1e-05");
    }

    /// Godot 4's text of `x` by Grisu2 alone, and by [`short_decimal`] if it takes `x`.
    #[cfg(feature = "std")]
    fn both_texts(x: f32) -> (String, Option<String>) {
        let mut g = NumText::<64>::new();
        grisu_text(f64::from(x), &mut g);
        let fast = short_decimal(x).map(|(m, k)| {
            let mut t = NumText::<64>::new();
            fixed(m, k, &mut t);
            t.as_str().to_string()
        });
        (g.as_str().to_string(), fast)
    }

    /// Checks [`short_decimal`] against Grisu2 on the positive `f32`s with bit patterns
    /// `from..to` stepping by `step`; returns how many it took.
    #[cfg(feature = "std")]
    fn check_short_decimals(from: u32, to: u32, step: usize) -> u64 {
        let mut taken = 0;
        for bits in (from..to).step_by(step) {
            let x = f32::from_bits(bits);
            if let (g, Some(fast)) = both_texts(x) {
                taken += 1;
                assert_eq!(fast, g, "{x:e} ({bits:#x})");
            }
        }
        taken
    }

    /// The `f32`s [`short_decimal`] can take lie in [0.5e-4, 2^24].
    #[cfg(feature = "std")]
    const SHORT_RANGE: (u32, u32) = (0x3851_0000, 0x4b80_0000);

    #[cfg(feature = "std")]
    #[test]
    fn short_decimals_as_grisu2_gives_them() {
        for (x, text) in [
            (1.5f32, "1.5"),
            (0.5, "0.5"),
            (7.1, "7.1"),
            (3.55, "3.55"),
            (599.5, "599.5"),
            (71.0, "71"),
            (70.0, "70"),
            (0.0001, "0.0001"),
            (0.0705, "0.0705"),
            (16777215.0, "16777215"),
            (1234.5677, "1234.5677"),
            (0.3, "0.3"),
        ] {
            assert_eq!(
                both_texts(x),
                (text.to_string(), Some(text.to_string())),
                "{x}"
            );
            assert_eq!(
                real_text(-f64::from(x), Dialect::Godot4).as_str(),
                format!("-{text}")
            );
        }
        // Not short: Grisu2.
        // 2097152.25: a tie.
        let tie = f32::from_bits(0x4a00_0001);
        for x in [tie, 1.234_567_8, 1e-5, 16_777_216.0, 0.123_456_7] {
            assert!(short_decimal(x).is_none(), "{x}");
        }
        // Every decimal of 1 to 4 digits and 0 to 4 places, and a sample of every f32 taken.
        for ten in TENS {
            for m in 1..10_000u32 {
                let x = (f64::from(m) / ten) as f32;
                let (g, fast) = both_texts(x);
                assert_eq!(fast, Some(g), "{x}");
            }
        }
        let (from, to) = SHORT_RANGE;
        assert!(check_short_decimals(from, to, 997) > 10_000);
        assert!(short_decimal(f32::from_bits(from - 1)).is_none());
    }

    /// Every `f32` that [`short_decimal`] takes (about 330 million tried): its text is
    /// Grisu2's. Slow in a debug build: `cargo test --release -p gdvariant --lib short_decimals
    /// -- --ignored`.
    #[cfg(feature = "std")]
    #[test]
    #[ignore]
    fn short_decimals_are_grisu2s() {
        let (from, to) = SHORT_RANGE;
        let threads = 4u32;
        let chunk = (to - from) / threads + 1;
        let taken: u64 = std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads)
                .map(|i| {
                    let a = from + i * chunk;
                    let b = (a + chunk).min(to);
                    s.spawn(move || check_short_decimals(a, b, 1))
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert!(taken > 50_000_000, "{taken}");
    }

    #[cfg(feature = "std")]
    #[test]
    fn godot3_layout() {
        // Values checked against Godot 3.2.3's var2str.
        let cases: &[(f64, &str)] = &[
            (0.000123456789, "0.000123457"),
            (123456.5, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (999999.5, "1e+06"),
            (100000.0, "100000"),
            (1e-300, "0"),
            (1e39, "inf"),
            (1.4e-45, "1.4013e-45"),
            (9007199254740994.0, "9.0072e+15"),
        ];
        for &(x, s) in cases {
            assert_eq!(real_text(x, Dialect::Godot3).as_str(), s, "{x:e}");
        }
        assert_eq!(float(123456.5, Dialect::Godot3), "123456.0");
        assert_eq!(real_text(-f64::NAN, Dialect::Godot3).as_str(), "-nan");
        assert_eq!(float(-f64::NAN, Dialect::Godot3), "-nan.0");
        assert_eq!(float(f64::NAN, Dialect::Godot3), "nan");
        assert_eq!(float(1e10, Dialect::Godot3), "1e+10");
    }

    #[cfg(feature = "std")]
    #[test]
    fn json_numbers() {
        assert_eq!(json_f64(1.0).unwrap(), "1.0");
        assert_eq!(json_f64(-0.0).unwrap(), "-0.0");
        assert_eq!(json_f64(0.1).unwrap(), "0.1");
        assert_eq!(json_f64(1e300).unwrap(), "1e+300");
        assert_eq!(json_f64(1e16).unwrap(), "10000000000000000.0");
        assert_eq!(json_f64(f64::NAN), None);
    }

    #[test]
    fn numbers_as_the_engine_prints_them() {
        assert_eq!(num_real_f64(-0.0, true), "0.0");
        assert_eq!(num_real_f64(-5e-324, true), "-0.0");
        assert_eq!(num_real_f64(1.0 / 3.0, true), "0.33333333333333");
        assert_eq!(
            num_real_f64(1e39, true),
            "999999999999999939709166371603178586112.0"
        );
        assert_eq!(num_real_f64(123.456, true), "123.456");
        assert_eq!(num_real_f32(0.1, true), "0.1");
        assert_eq!(num_real_f32(1234.5679, true), "1234.568");
        assert_eq!(num_real_f32(99.99999, true), "100.0");
        assert_eq!(num_real_f32(1.0, false), "1");
        assert_eq!(num_real_f32(-1e-30, true), "-0.0");
        assert_eq!(num(0.123456789, 4), "0.1235");
        assert_eq!(num(f64::NEG_INFINITY, 4), "-inf");
    }
}
