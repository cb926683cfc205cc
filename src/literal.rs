//! What the text and JSON readers share: building a Dictionary whose repeated keys replace
//! the value in place, and the NodePath text form.

use std::string::{String, ToString};
use std::vec::Vec;

use crate::owned::{Dictionary, NodePath, Variant};

/// A Dictionary being read: a repeated key replaces the value in place (the first key's
/// position, the last value), as [`Dictionary::insert`] and the engine's `str_to_var` do, but
/// found through a hash of the key instead of a scan, so reading `n` entries costs O(n).
#[derive(Default)]
pub(crate) struct Entries {
    d: Dictionary,
    /// Key hash → the last entry with that hash; `chain[i]` is the previous one (or MAX).
    heads: std::collections::HashMap<u64, usize>,
    chain: Vec<usize>,
    /// Randomly keyed, so crafted keys cannot all collide.
    state: std::collections::hash_map::RandomState,
}

/// Hashes a key consistently with Variant's `==`: equal keys hash alike (floats by their bits;
/// containers and rarer types only by their kind and size, which equal values share).
struct KeyHash<'a>(&'a Variant);

impl core::hash::Hash for KeyHash<'_> {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        fn bits<const N: usize>(x: [f64; N], h: &mut impl core::hash::Hasher) {
            for c in x {
                h.write_u64(c.to_bits());
            }
        }
        let v = self.0;
        core::hash::Hash::hash(&core::mem::discriminant(v), h);
        match v {
            Variant::Bool(b) => b.hash(h),
            Variant::Int(i) => i.hash(h),
            Variant::Float(x) => h.write_u64(x.to_bits()),
            Variant::String(t) | Variant::StringName(t) => t.hash(h),
            Variant::Vector2(x) => bits(x.to_array(), h),
            Variant::Vector3(x) => bits(x.to_array(), h),
            Variant::Vector4(x) => bits(x.to_array(), h),
            Variant::Vector2i(x) => x.to_array().hash(h),
            Variant::Vector3i(x) => x.to_array().hash(h),
            Variant::Vector4i(x) => x.to_array().hash(h),
            Variant::Rid(x) => x.hash(h),
            Variant::Array(a) => {
                a.items.len().hash(h);
                for x in a.items.iter().take(4) {
                    KeyHash(x).hash(h);
                }
            }
            _ => {}
        }
    }
}

impl Entries {
    pub(crate) fn insert(&mut self, key: Variant, value: Variant) {
        use core::hash::BuildHasher;
        let h = self.state.hash_one(KeyHash(&key));
        let mut at = self.heads.get(&h).copied().unwrap_or(usize::MAX);
        while at != usize::MAX {
            let e = &mut self.d.entries[at];
            // Variant's `==` (floats by their bits), as `Dictionary::insert` compares.
            if e.0 == key {
                e.1 = value;
                return;
            }
            at = self.chain[at];
        }
        let i = self.d.entries.len();
        self.chain
            .push(self.heads.insert(h, i).unwrap_or(usize::MAX));
        self.d.entries.push((key, value));
    }

    pub(crate) fn finish(self) -> Dictionary {
        self.d
    }
}

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
