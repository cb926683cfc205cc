//! What the text and JSON readers share: the NodePath text form and short excerpts of the input
//! for error messages.

use std::string::{String, ToString};

use crate::owned::NodePath;

/// Splits a NodePath's text form (`/root/a:prop:sub`) into names, subnames and the absolute
/// flag, as the engine's `NodePath(String)` does.
pub(crate) fn node_path(text: &str) -> NodePath {
    let absolute = text.starts_with('/');
    let body = if absolute { &text[1..] } else { text };
    let mut parts = body.split(':');
    let names_part = parts.next().unwrap_or("");
    let names = names_part
        .split('/')
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    let subnames = parts
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect();
    NodePath {
        names,
        subnames,
        absolute,
    }
}

/// A short excerpt of input text for an error message: at most 32 characters, then `…` and the
/// full length, so that an error never echoes a huge token whole.
pub(crate) fn excerpt(s: &str) -> String {
    const MAX: usize = 32;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes)", &s[..cut], s.len()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn excerpts_are_short() {
        assert_eq!(super::excerpt("abc"), "abc");
        let long = "9".repeat(1_000_000);
        assert_eq!(
            super::excerpt(&long),
            format!("{}… (1000000 bytes)", "9".repeat(32))
        );
        assert_eq!(
            super::excerpt(&"é".repeat(40)),
            format!("{}… (80 bytes)", "é".repeat(32))
        );
    }
}
