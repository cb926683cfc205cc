//! Number formatting as the engines print numbers in their text form.
//!
//! - Godot 4 (`rtos_fix` → `String::num_scientific`): the shortest decimal that reads back as
//!   the same value — as an `f32` when the value is exactly an `f32`, else as an `f64` — written
//!   in positional notation when the decimal exponent is in `-4..=14`, else as `1.5e+15` /
//!   `1e-05` (at least two exponent digits). Zero (also `-0.0`) prints as `0`, non-finite values
//!   as `nan`, `inf`, `inf_neg`.
//! - Godot 3 (`rtos_fix` → `%lg`): the value is first narrowed to `f32` (`real_t`), then printed
//!   with `printf("%g")`: 6 significant digits. Zero prints as `0`, non-finite as `nan`, `inf`,
//!   `-inf`.
//!
//! A standalone `float` value gets `.0` appended when its text has neither `.` nor `e` (and is
//! not a non-finite word), so `1.0` prints as `1.0` but a vector component as `1`.

use std::string::String;

#[cfg(feature = "text")]
use crate::types::Dialect;

#[cfg(feature = "text")]
/// The shortest round-trip digits of `x` (finite, non-zero, positive) and its decimal exponent:
/// `x = 0.d1d2d3… × 10^(exp+1)`, i.e. `d1.d2d3… × 10^exp`.
fn shortest(x: f64) -> (String, i32) {
    let s = if (x as f32) as f64 == x {
        format!("{:e}", x as f32)
    } else {
        format!("{x:e}")
    };
    split_exp(&s)
}

/// Splits Rust's `LowerExp` output (`1.2345e-7`) into its digits and exponent.
fn split_exp(s: &str) -> (String, i32) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (digits.to_string(), exp.parse().unwrap_or(0))
}

/// Lays out `digits` (d1 d2 …, value `d1.d2… × 10^exp`) in positional notation.
fn positional(digits: &str, exp: i32, out: &mut String) {
    let n = digits.len() as i32;
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else if exp + 1 >= n {
        out.push_str(digits);
        for _ in 0..(exp + 1 - n) {
            out.push('0');
        }
    } else {
        let (a, b) = digits.split_at((exp + 1) as usize);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
}

/// Lays out `digits` in scientific notation with a signed exponent of at least two digits.
fn scientific(digits: &str, exp: i32, out: &mut String) {
    let (a, b) = digits.split_at(1);
    out.push_str(a);
    if !b.is_empty() {
        out.push('.');
        out.push_str(b);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

#[cfg(feature = "text")]
/// Godot 4's `rtos_fix`: how a real number (a float, a vector component, a packed array
/// element) is printed by `var_to_str`.
pub(crate) fn real4(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "inf_neg" }.into();
    }
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    let (digits, exp) = shortest(x.abs());
    if (-4..15).contains(&exp) {
        positional(&digits, exp, &mut out);
    } else {
        scientific(&digits, exp, &mut out);
    }
    out
}

#[cfg(feature = "text")]
/// Godot 3's `rtos_fix`: the value narrowed to `f32`, then `printf("%g")`.
pub(crate) fn real3(x: f64) -> String {
    let x = x as f32 as f64;
    if x == 0.0 {
        return "0".into();
    }
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    // %g with precision 6: round to 6 significant digits, then choose the notation by the
    // exponent of the rounded value, and drop trailing zeros.
    let (digits, exp) = split_exp(&format!("{:.5e}", x.abs()));
    if (-4..6).contains(&exp) {
        positional(&digits, exp, &mut out);
    } else {
        scientific(&digits, exp, &mut out);
    }
    out
}

#[cfg(feature = "text")]
/// A real number as the dialect prints it (see [`real4`], [`real3`]).
pub(crate) fn real(x: f64, dialect: Dialect) -> String {
    match dialect {
        Dialect::Godot4 => real4(x),
        Dialect::Godot3 => real3(x),
    }
}

#[cfg(feature = "text")]
/// A standalone `float` value as the dialect prints it: like [`real`], with `.0` appended
/// when the text has neither `.` nor an exponent (`1.0`, `-inf.0` in Godot 3).
pub(crate) fn float(x: f64, dialect: Dialect) -> String {
    let mut s = real(x, dialect);
    let word = match dialect {
        Dialect::Godot4 => s == "inf" || s == "inf_neg" || s == "nan",
        Dialect::Godot3 => s == "inf" || s == "nan",
    };
    if !word && !s.contains('.') && !s.contains('e') {
        s.push_str(".0");
    }
    s
}

#[cfg(feature = "json")]
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
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    let (digits, exp) = split_exp(&format!("{:e}", x.abs()));
    if (-5..17).contains(&exp) {
        positional(&digits, exp, &mut out);
        if !out.contains('.') {
            out.push_str(".0");
        }
    } else {
        scientific(&digits, exp, &mut out);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "text")]
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
        ];
        for &(x, s) in cases {
            assert_eq!(real4(x), s, "{x:e}");
        }
        assert_eq!(float(10000000000.0, Dialect::Godot4), "10000000000.0");
        assert_eq!(float(1e-5, Dialect::Godot4), "1e-05");
    }

    #[cfg(feature = "text")]
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
            assert_eq!(real3(x), s, "{x:e}");
        }
        assert_eq!(float(123456.5, Dialect::Godot3), "123456.0");
        assert_eq!(float(1e10, Dialect::Godot3), "1e+10");
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_numbers() {
        assert_eq!(json_f64(1.0).unwrap(), "1.0");
        assert_eq!(json_f64(-0.0).unwrap(), "-0.0");
        assert_eq!(json_f64(0.1).unwrap(), "0.1");
        assert_eq!(json_f64(1e300).unwrap(), "1e+300");
        assert_eq!(json_f64(1e16).unwrap(), "10000000000000000.0");
        assert_eq!(json_f64(f64::NAN), None);
    }
}
