//! Decoded text: the engine's reading of string bytes, and the cache of recent short strings.

use crate::error::Result;
use crate::leaf::{self};
use crate::owned::*;
use crate::reader::Reader;
use crate::strings::Text;
use crate::types::Dialect;
use crate::value::VariantRef;
use alloc::boxed::Box;
use alloc::string::String;

/// The engine's reading of checked text: Godot 3 text that is not UTF-8 (overlong forms and
/// the like, which Godot 3 reads) is decoded as Godot 3 decodes it.
#[inline]
pub(super) fn text_string(t: &Text<'_>, _offset: usize) -> Result<String> {
    Ok(t.to_string_lossy().into_owned())
}

/// Reads a §5 string at `r` into a `String`; see [`owned_text`].
#[inline]
fn read_owned_string(r: &mut Reader<'_>, dialect: Dialect) -> Result<GString> {
    let (raw, at) = r.read_string_raw()?;
    owned_text(raw, at, dialect)
}

/// The engine's text of the string bytes `raw` (at absolute offset `at`) as a `String`, with
/// one UTF-8 pass: valid UTF-8 passes every dialect's rules. Otherwise the text is checked by
/// the dialect's rules ([`ErrorKind::InvalidUtf8`](crate::error::ErrorKind::InvalidUtf8) if the dialect rejects it), and text that
/// only Godot 3 accepts is decoded as Godot 3 reads it.
#[inline]
fn owned_text(raw: &[u8], at: usize, dialect: Dialect) -> Result<GString> {
    let mut s = GString::new();
    owned_text_into(raw, at, dialect, &mut s)?;
    Ok(s)
}

/// [`owned_text`] into `out`, a text in its final position (its text is replaced), where
/// short plain text is filled in place instead of being built elsewhere and moved.
// in_to_owned +34 % without (layout-pinned A/B; outlined with plain_leaf_into)
#[inline(always)]
pub(super) fn owned_text_into(
    raw: &[u8],
    at: usize,
    dialect: Dialect,
    out: &mut GString,
) -> Result<()> {
    // Short plain text (keys, names) is its own engine text: no BOM, no NUL to cut at; the
    // shortest is taken a byte at a time, without a UTF-8 check or a copy call.
    if plain_short(raw) {
        if raw.len() <= 8 {
            out.set_short_ascii(raw);
            return Ok(());
        }
        if let Some(s) = crate::strings::utf8(raw) {
            *out = GString::from(s);
            return Ok(());
        }
    }
    *out = exact_text(raw, at, dialect)?;
    Ok(())
}

/// [`owned_text`] the exact way ([`leaf::engine_str`]).
#[inline]
fn exact_text(raw: &[u8], at: usize, dialect: Dialect) -> Result<GString> {
    Ok(GString::from(leaf::engine_str(raw, at, dialect)?.as_ref()))
}

/// Whether `raw` is short (at most 24 bytes) and all ASCII without a NUL byte: then it has no
/// BOM, nothing to cut and is valid text in every dialect. Overlapping word loads from both
/// ends, no loop; `false` for anything else (which then takes the exact path).
// gs_to_owned +3 % without (layout-pinned A/B, with get_into, plain_short, convert, value)
#[inline(always)]
fn plain_short(raw: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let w8 = |c: Option<&[u8; 8]>| c.map_or(0, |c| u64::from_le_bytes(*c));
    let w4 = |c: Option<&[u8; 4]>| c.map_or(0, |c| u64::from(u32::from_le_bytes(*c)));
    // A word with a byte that is zero or not ASCII.
    let bad = |w: u64| (w.wrapping_sub(LOW) | w) & HIGH != 0;
    let n = raw.len();
    match n {
        0 => false,
        1..=3 => raw.iter().all(|&b| b.wrapping_sub(1) < 0x7F),
        4..=7 => !bad(w4(raw.first_chunk()) | LOW << 32) && !bad(w4(raw.last_chunk()) | LOW << 32),
        8..=16 => !bad(w8(raw.first_chunk())) && !bad(w8(raw.last_chunk())),
        17..=24 => {
            let mid = raw.get(8..).and_then(<[u8]>::first_chunk::<8>);
            !bad(w8(raw.first_chunk())) && !bad(w8(mid)) && !bad(w8(raw.last_chunk()))
        }
        _ => false,
    }
}

/// The text of the String or StringName `v` (whose head has been read) as a `String`.
#[inline]
pub(super) fn string_of(v: &VariantRef<'_>) -> Result<GString> {
    // The head read the whole value: header, length, bytes, padding.
    let mut p = Reader::new(v.raw_head().get(4..).unwrap_or(&[]), v.offset() + 4);
    read_owned_string(&mut p, v.dialect())
}

/// Recently converted short strings by their raw bytes: dictionary keys and packed-string
/// elements repeat throughout a large packet (the same few keys in every entity), and a hit
/// skips the text checks and the copy. Two-way set associative, by length and a few bytes.
/// Set up only once a packet has shown enough strings for it to pay off.
pub(super) struct StrCache<'a> {
    /// How many strings went by before the cache was set up.
    pub(super) seen: u32,
    slots: Option<Box<Slots<'a>>>,
}

const SETS: usize = 32;

/// The cache's slots: raw bytes and their string, two per set.
type Slots<'a> = [(&'a [u8], GString); 2 * SETS];
/// Short byte strings are equal: a plain loop (no `memcmp` call for a few bytes).
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl<'a> StrCache<'a> {
    pub(super) fn new() -> StrCache<'a> {
        StrCache {
            seen: 0,
            slots: None,
        }
    }

    #[inline]
    fn set(raw: &[u8]) -> usize {
        // The length, the first byte and the last four (packed-string elements end in NUL).
        let mut h = raw.len() as u32 ^ u32::from(raw.first().copied().unwrap_or(0)) << 8;
        for &b in raw.iter().rev().take(4) {
            h = h.rotate_left(7) ^ u32::from(b);
        }
        (h.wrapping_mul(0x9E37_79B1) >> 27) as usize
    }

    /// The string of the raw string bytes `raw` (at `at`), from the cache or converted, into
    /// `out`, a text in its final position (its text is replaced).
    // gs_to_owned +3 % without (layout-pinned A/B, with get_into, plain_short, convert, value)
    #[inline(always)]
    pub(super) fn get_into(
        &mut self,
        raw: &'a [u8],
        at: usize,
        dialect: Dialect,
        out: &mut GString,
    ) -> Result<()> {
        if raw.len() > crate::owned::INLINE_CAPACITY || raw.is_empty() {
            return owned_text_into(raw, at, dialect, out);
        }
        let Some(slots) = &mut self.slots else {
            self.seen += 1;
            if self.seen == 64 {
                self.slots = Some(Box::new(core::array::from_fn(|_| {
                    (&[][..], GString::new())
                })));
            }
            return owned_text_into(raw, at, dialect, out);
        };
        let i = 2 * Self::set(raw);
        if same_bytes(slots[i].0, raw) {
            out.clone_from(&slots[i].1);
            return Ok(());
        }
        if same_bytes(slots[i + 1].0, raw) {
            slots.swap(i, i + 1);
            out.clone_from(&slots[i].1);
            return Ok(());
        }
        owned_text_into(raw, at, dialect, out)?;
        slots.swap(i, i + 1);
        slots[i] = (raw, out.clone());
        Ok(())
    }
}
