//! Text read as the engine reads it: `String::to_int`, `String::to_float` and
//! `NodePath(String)` (and, back, `String(NodePath)`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::owned::NodePath;

/// `String(NodePath)` in Godot 4: `/` if absolute, the names joined by `/`, then `:` and the
/// subnames joined by `:` unless that is empty.
pub(crate) fn node_path_text(np: &NodePath) -> String {
    let mut s = String::new();
    if np.absolute {
        s.push('/');
    }
    s.push_str(&np.names.join("/"));
    let sub = np.subnames.join(":");
    if !sub.is_empty() {
        s.push(':');
        s.push_str(&sub);
    }
    s
}

/// `NodePath(String)` in Godot 4: subnames after the first `:` (an empty one in the middle
/// makes the whole path empty), names between `/`s (empty ones skipped), absolute with a
/// leading `/`.
pub(crate) fn node_path_from_str(p: &str) -> NodePath {
    let empty = NodePath::default();
    if p.is_empty() {
        return empty;
    }
    let absolute = p.starts_with('/');
    let (path, sub) = match p.find(':') {
        Some(i) => (&p[..i], Some(&p[i + 1..])),
        None => (p, None),
    };
    let mut subnames = Vec::new();
    if let Some(sub) = sub {
        let parts: Vec<&str> = sub.split(':').collect();
        for (i, s) in parts.iter().enumerate() {
            if s.is_empty() {
                if i + 1 == parts.len() {
                    // A trailing `:` is allowed.
                    continue;
                }
                // "Invalid NodePath": the constructor gives up, leaving the empty path.
                return empty;
            }
            subnames.push((*s).to_string());
        }
    }
    let names: Vec<String> = path
        .get(usize::from(absolute)..)
        .unwrap_or("")
        .split('/')
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    if names.is_empty() && !absolute && subnames.is_empty() {
        return empty;
    }
    NodePath {
        names,
        subnames,
        absolute,
    }
}

/// `String::to_int` in Godot 4.6: the digits before the first `.`, anything else skipped; a
/// `-` before the first non-zero digit flips the sign; wrapping 64-bit accumulation, with the
/// engine's saturation from the 20th digit on.
pub(crate) fn string_to_int(s: &str) -> i64 {
    let to = s.find('.').unwrap_or(s.len());
    let mut integer: u64 = 0;
    let mut digits = 0u32;
    let mut positive = true;
    for c in s[..to].chars() {
        if let Some(d) = c.to_digit(10).filter(|_| c.is_ascii_digit()) {
            if digits > 18 {
                let max = i64::MAX as u64;
                let overflow = integer > max / 10
                    || (integer == max / 10 && ((positive && d > 7) || (!positive && d > 8)));
                if overflow {
                    return if positive { i64::MAX } else { i64::MIN };
                }
            }
            integer = integer.wrapping_mul(10).wrapping_add(u64::from(d));
            digits += 1;
        } else if integer == 0 && c == '-' {
            positive = !positive;
        }
    }
    if positive {
        integer as i64
    } else {
        integer.wrapping_neg() as i64
    }
}

/// `String::to_float`: leading white space, a sign, digits with an optional `.` and
/// exponent; what follows is ignored; `0.0` when there is no number (`inf` and `nan` are not
/// numbers there; `1e400` is infinite).
pub(crate) fn string_to_float(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']);
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - f;
    }
    if mantissa_digits == 0 {
        return 0.0;
    }
    let mut end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            end = j;
        }
    }
    // Rust's parser reads the same grammar (".5", "5.", "-1e3"), correctly rounded.
    let num = &t[..end];
    num.strip_prefix('+')
        .unwrap_or(num)
        .parse::<f64>()
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_to_number() {
        for (s, i) in [
            ("12", 12),
            ("-12", -12),
            ("1-2", 12),
            ("a1b2", 12),
            ("--5", 5),
            ("1.9", 1),
            ("  7", 7),
            ("9223372036854775808", i64::MIN),
            ("-9223372036854775809", i64::MAX),
            ("1e5", 15),
            ("0x10", 10),
            ("é5", 5),
        ] {
            assert_eq!(string_to_int(s), i, "{s}");
        }
        for (s, f) in [
            ("1.5", 1.5),
            (" 2.5", 2.5),
            ("1e3", 1000.0),
            ("abc", 0.0),
            ("1.5abc", 1.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("inf", 0.0),
            ("nan", 0.0),
            ("1e400", f64::INFINITY),
            ("0x10", 0.0),
            ("1,5", 1.0),
            ("+3", 3.0),
        ] {
            assert_eq!(string_to_float(s), f, "{s}");
        }
    }

    #[test]
    fn node_paths_from_strings() {
        let np = node_path_from_str("/a//b:c:");
        assert_eq!(
            (np.names.len(), np.subnames.len(), np.absolute),
            (2, 1, true)
        );
        assert_eq!(node_path_from_str("a::b"), NodePath::default());
        assert_eq!(node_path_text(&node_path_from_str("a/b:c:d")), "a/b:c:d");
    }
}
