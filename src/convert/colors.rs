//! Colors as the engine makes them from an int (`Color::hex`) and from a String
//! (`Color(String)`: an HTML color, or one of the engine's named colors).

use alloc::string::String;
use alloc::vec::Vec;

use crate::math::Color;

/// `Color::hex`: `0xRRGGBBAA`.
pub(crate) fn color_hex(h: u32) -> Color {
    let c = |shift: u32| ((h >> shift) & 0xFF) as f32 / 255.0;
    Color::new(c(24), c(16), c(8), c(0))
}

/// `Color(String)`: an HTML color (`#` optional, 3, 4, 6 or 8 hex digits), else a named
/// color (case, spaces, `-`, `_`, `'` and `.` ignored), else `Color()` (opaque black).
pub(crate) fn color_from_string(s: &str) -> Color {
    if let Some(c) = color_html(s) {
        return c;
    }
    let key: String = s
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\'' | '.'))
        .flat_map(char::to_uppercase)
        .collect();
    match NAMED_COLORS.binary_search_by(|(n, _)| n.cmp(&key.as_str())) {
        Ok(i) => color_hex(NAMED_COLORS[i].1),
        Err(_) => Color::new(0.0, 0.0, 0.0, 1.0),
    }
}

/// `Color::html` on a valid HTML color, `None` otherwise.
fn color_html(s: &str) -> Option<Color> {
    let h = s.strip_prefix('#').unwrap_or(s);
    let digits: Vec<u32> = h.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?;
    let (short, alpha) = match digits.len() {
        3 => (true, false),
        4 => (true, true),
        6 => (false, false),
        8 => (false, true),
        _ => return None,
    };
    let ch = |i: usize| -> f32 {
        if short {
            digits[i] as f32 / 15.0
        } else {
            (digits[2 * i] * 16 + digits[2 * i + 1]) as f32 / 255.0
        }
    };
    Some(Color::new(
        ch(0),
        ch(1),
        ch(2),
        if alpha { ch(3) } else { 1.0 },
    ))
}

/// The engine's named colors (`Color.ALICE_BLUE`, ...), by name without `_`, as `0xRRGGBBAA`,
/// sorted by name.
static NAMED_COLORS: &[(&str, u32)] = &include!("colors.in");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_from_strings() {
        let c = color_from_string("abc");
        assert_eq!(c, Color::new(10.0 / 15.0, 11.0 / 15.0, 12.0 / 15.0, 1.0));
        assert_eq!(color_from_string("alice-Blue"), color_hex(0xF0F8FFFF));
        assert_eq!(color_from_string("gg0"), Color::new(0.0, 0.0, 0.0, 1.0));
        assert!(NAMED_COLORS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
