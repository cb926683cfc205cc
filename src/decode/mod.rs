//! Decoding: [`VariantRef::to_owned`], one forward pass of the walker that builds the owned
//! value. Below it: `containers` (the containers being built and the owned forms of borrowed
//! container type info), `leaves` (every other value, read into its final place) and
//! `strings` (the engine's reading of text and the cache of recent short strings).

mod containers;
mod leaves;
mod strings;

use crate::error::{Error, Result};
use crate::owned::*;
use crate::types::{Dialect, ReadOptions};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

use containers::{open_container, Building};
use leaves::{leaf, plain_leaf_into};
use strings::StrCache;

/// The pair a Dictionary entry starts as before its key and value are read into it, a
/// constant so that it is copied from read-only data rather than assembled on the stack first
/// (whose byte stores, read back as wide words, stall the CPU).
const NIL_PAIR: (Variant, Variant) = (Variant::Nil, Variant::Nil);

impl VariantRef<'_> {
    /// Decodes the whole value into an owned [`Variant`]: the value the engine's `bytes_to_var`
    /// gives (checked against the live engines by `tests/engine/differential.rs`), where the lazy views
    /// ([`VariantRef`], [`ArrayRef`](crate::ArrayRef), [`DictionaryRef`](crate::DictionaryRef))
    /// show the bytes as encoded:
    ///
    /// - Strings are the engine's text (a leading BOM stripped, cut at the first NUL). Godot 3
    ///   text that is not UTF-8 but that Godot 3 reads (overlong forms, 5- and 6-byte forms) is
    ///   decoded as Godot 3 decodes it; code points a Rust `char` cannot hold (encoded
    ///   surrogates, values above U+10FFFF) become U+FFFD.
    /// - A repeated dictionary key replaces the value of the first in place, by the engine's
    ///   key identity (see [`Dictionary`]).
    /// - Typed containers hold what the engine keeps: elements (and dictionary keys) not of the
    ///   declared type are converted where the engine converts them and left out where it
    ///   cannot ([`convert`](crate::convert)); a container typed `Nil` is untyped; without full
    ///   objects every object type reads as `EncodedObjectAsID`.
    /// - Reals: `f32` components are widened to `f64` exactly (NaN payloads included); Godot 4's
    ///   64-bit math (vectors, matrices, packed vector arrays) is narrowed to `f32` as a
    ///   standard single-precision engine holds it, unless
    ///   [`ReadOptions::with_double_precision`](crate::ReadOptions::with_double_precision).
    ///
    /// One forward pass over the bytes; nesting is kept on a heap stack bounded by the reader's
    /// depth limit, not on the native stack.
    ///
    /// ```
    /// use gdvariant::Variant;
    /// // var_to_bytes([1, "a"]) in Godot 4
    /// let bytes = [28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0];
    /// let v = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    /// assert_eq!(v, Variant::from(vec![Variant::Int(1), "a".into()]));
    /// ```
    #[allow(clippy::wrong_self_convention)]
    pub fn to_owned(&self) -> Result<Variant> {
        let mut w = Walker::from_value(*self);
        let rule = self.dialect();
        // The input left after the value's start bounds every reservation (see `capacity`).
        let end = self.offset() + self.h.data.len();
        let mut budget = self.h.data.len() / 4;
        let mut cache = StrCache::new();
        let opts = self.options();
        // With single precision (the standard engine's `real_t`), 64-bit math is narrowed.
        let narrow = (rule == Dialect::Godot4 && !opts.double_precision()).then_some(&opts);
        // The innermost open container is kept in `top`, the others on `stack` (inline for
        // the first 32 levels: no allocation for the stack of nearly every packet).
        let mut top = match w.next_event_inline()? {
            Some(Event::Begin(v)) => {
                open_container(&v, end.saturating_sub(w.offset()), &mut budget)?
            }
            Some(Event::Value(v)) => return convert(&v, false, &mut budget, &mut cache, narrow),
            // Unreachable: a walk starts with its top value's event.
            _ => return Ok(Variant::Nil),
        };
        let mut stack: crate::stack::SmallStack<Building, 32> = crate::stack::SmallStack::new();
        loop {
            // The plain values (most keys and values of a packet) straight from the walker's
            // bytes, without an event, in a loop per kind of container whose values are within
            // the depth limit; anything else (and any error) takes the event path.
            let narrowing = narrow.is_some();
            if let Some(mut p) = w.plain() {
                match &mut top {
                    Building::Dict(d) => {
                        // A pending key's value first, then whole pairs, each read into its
                        // place at the end of the entries: a key whose value is not plain is
                        // left there pending (with a Nil value) for the event path.
                        if let (true, Some(rest)) = (d.pending, p.bytes()) {
                            let mut x = Variant::Nil;
                            let at = w.offset_of(&p);
                            let read = plain_leaf_into::<true>(
                                rest, at, rule, false, &mut cache, narrowing, &mut x,
                            )?;
                            if let Some(n) = read {
                                p.take(n);
                                d.value(x, rule);
                            }
                        }
                        while let (false, Some(rest)) = (d.pending, p.bytes()) {
                            let at = w.offset_of(&p);
                            d.entries.push(NIL_PAIR);
                            let Some((k, v)) = d.entries.last_mut() else {
                                break;
                            };
                            let Some(n) = plain_leaf_into::<true>(
                                rest, at, rule, true, &mut cache, narrowing, k,
                            )?
                            else {
                                // Nothing to drop: the pair is still Nil, Nil.
                                if let Some(pair) = d.entries.pop() {
                                    // in_to_owned +19 %, gs_to_owned +7 % time with drops in place of decode/'s four forgets (layout-pinned A/B)
                                    core::mem::forget(pair);
                                }
                                break;
                            };
                            let value = rest.get(n..).unwrap_or(&[]);
                            let at = at + n;
                            match plain_leaf_into::<true>(
                                value, at, rule, false, &mut cache, narrowing, v,
                            )? {
                                Some(m) => {
                                    p.take_pair(n + m);
                                    d.placed(rule);
                                }
                                None => {
                                    p.take(n);
                                    d.pending = true;
                                }
                            }
                        }
                    }
                    Building::Array { items, .. } => {
                        while let Some(rest) = p.bytes() {
                            let at = w.offset_of(&p);
                            items.push(Variant::Nil);
                            let Some(x) = items.last_mut() else {
                                break;
                            };
                            match plain_leaf_into::<true>(
                                rest, at, rule, false, &mut cache, narrowing, x,
                            )? {
                                Some(n) => p.take(n),
                                None => {
                                    // Nothing to drop: the element is still Nil.
                                    if let Some(x) = items.pop() {
                                        // in_to_owned +19 %, gs_to_owned +7 % time with drops in place of decode/'s four forgets (layout-pinned A/B)
                                        core::mem::forget(x);
                                    }
                                    break;
                                }
                            }
                        }
                    }
                    Building::Object { .. } => {}
                }
                w.resume(p);
            }
            let Some(event) = w.next_event_inline()? else {
                break;
            };
            let done = match event {
                Event::Value(v) => convert(&v, top.wants_key(), &mut budget, &mut cache, narrow)?,
                Event::Begin(v) => {
                    let remaining = end.saturating_sub(w.offset());
                    let b = open_container(&v, remaining, &mut budget)?;
                    stack.push(core::mem::replace(&mut top, b));
                    continue;
                }
                Event::Property(t) => {
                    let name = t.to_string_lossy().into_owned();
                    if let Building::Object { name: slot, .. } = &mut top {
                        *slot = Some(name);
                    }
                    continue;
                }
                Event::End => match stack.pop() {
                    Some(parent) => core::mem::replace(&mut top, parent).finish(&opts),
                    None => return Ok(top.finish(&opts)),
                },
            };
            top.push(done, rule);
        }
        // Unreachable: the walk ends with the top container's `End` above.
        Ok(top.finish(&opts))
    }
}

/// Converts the value of a [`Value`](Event::Value) event (`key`: at a dictionary key
/// position); 64-bit math narrowed to `f32` when `narrow` gives the options.
// gs_to_owned +3 % without (layout-pinned A/B, with get_into, plain_short, convert, value)
#[inline(always)]
fn convert<'a>(
    v: &VariantRef<'a>,
    key: bool,
    budget: &mut usize,
    cache: &mut StrCache<'a>,
    narrow: Option<&ReadOptions>,
) -> Result<Variant> {
    let mut out = Variant::Nil;
    // The head read the whole value: its bytes are checked.
    let (b, at) = (v.h.data, v.offset());
    if plain_leaf_into::<false>(b, at, v.dialect(), key, cache, narrow.is_some(), &mut out)?
        .is_some()
    {
        return Ok(out);
    }
    leaf(v, &mut v.body_reader(), budget, cache, &mut out)?;
    match narrow {
        Some(opts) if v.is_wide() => Ok(crate::convert::narrowed(out, opts)),
        _ => Ok(out),
    }
}

impl TryFrom<VariantRef<'_>> for Variant {
    type Error = Error;
    /// See [`VariantRef::to_owned`].
    fn try_from(v: VariantRef<'_>) -> Result<Variant> {
        v.to_owned()
    }
}

impl TryFrom<&VariantRef<'_>> for Variant {
    type Error = Error;
    /// See [`VariantRef::to_owned`].
    fn try_from(v: &VariantRef<'_>) -> Result<Variant> {
        v.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use crate::error::ErrorKind;
    use crate::math::Vector2;
    use crate::owned::Variant;
    use crate::types::ReadOptions;

    fn word(out: &mut Vec<u8>, w: u32) {
        out.extend_from_slice(&w.to_le_bytes());
    }

    /// A String value (type id 4 in both dialects) of the raw bytes `b`.
    fn string(out: &mut Vec<u8>, b: &[u8]) {
        word(out, 4);
        word(out, b.len() as u32);
        out.extend_from_slice(b);
        out.resize(out.len() + (4 - b.len() % 4) % 4, 0);
    }

    /// `{key: 1}` for each of `keys`, in order (Godot 4 ids).
    fn dict_of(keys: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        word(&mut out, 27);
        word(&mut out, keys.len() as u32);
        for k in keys {
            string(&mut out, k);
            word(&mut out, 2);
            word(&mut out, 1);
        }
        out
    }

    fn keys_of(v: &Variant) -> Vec<&str> {
        match v {
            Variant::Dictionary(d) => d.iter().map(|(k, _)| k.as_str().unwrap()).collect(),
            _ => panic!("not a dictionary: {v:?}"),
        }
    }

    /// The plain-value loop reads ASCII keys itself and leaves every other text to the exact
    /// path: the engine text (BOM stripped, cut at a NUL) either way, and equal texts merge.
    #[test]
    fn plain_and_exact_keys_read_as_the_engine_reads_them() {
        let bytes = dict_of(&[
            b"hp",
            b"a\0b",
            b"\xEF\xBB\xBFmp",
            "épée".as_bytes(),
            b"a",
            b"twenty_four_bytes_long_x",
            b"twenty_five_bytes_long_xy",
        ]);
        let v = crate::read::parse(&bytes).unwrap().to_owned().unwrap();
        // "a\0b" reads as "a", which the later "a" merges into.
        assert_eq!(
            keys_of(&v),
            [
                "hp",
                "a",
                "mp",
                "épée",
                "twenty_four_bytes_long_x",
                "twenty_five_bytes_long_xy"
            ]
        );
        // Text the dialect rejects is an error at its first bad byte, whichever path reads it.
        let bad = dict_of(&[b"ok", b"\xFFx"]);
        let err = crate::read::parse(&bad).unwrap().to_owned().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
        assert_eq!(
            err.offset(),
            crate::read::validate(&bad).unwrap_err().offset()
        );
    }

    /// Values past the depth limit are an error at the first of them, as `validate` reports it,
    /// though values within it are read without events.
    #[test]
    fn plain_values_past_the_depth_limit_fail_as_validate_does() {
        // [[1, 2]]
        let mut bytes = Vec::new();
        for w in [28, 1, 28, 2, 2, 1, 2, 2] {
            word(&mut bytes, w);
        }
        let opts = ReadOptions::new().with_max_depth(1);
        let err = crate::read::parse_with(&bytes, &opts)
            .unwrap()
            .to_owned()
            .unwrap_err();
        let expected = crate::read::validate_with(&bytes, &opts).unwrap_err();
        assert_eq!(err.kind(), expected.kind());
        assert_eq!(err.offset(), expected.offset());
        assert_eq!(err.offset(), 16);
        let ok = ReadOptions::new().with_max_depth(2);
        let v = crate::read::parse_with(&bytes, &ok)
            .unwrap()
            .to_owned()
            .unwrap();
        let inner = Variant::from(vec![Variant::Int(1), Variant::Int(2)]);
        assert_eq!(v, Variant::from(vec![inner]));
    }

    /// Godot 4's 64-bit Vector2 in an array: narrowed to `f32` as a single-precision engine
    /// holds it unless reading with double precision.
    #[test]
    fn wide_vectors_in_containers_narrow_unless_double_precision() {
        let x = 0.1f64;
        let mut bytes = Vec::new();
        word(&mut bytes, 28);
        word(&mut bytes, 1);
        word(&mut bytes, 5 | 1 << 16);
        bytes.extend_from_slice(&x.to_le_bytes());
        bytes.extend_from_slice(&(-x).to_le_bytes());
        let read = |opts: &ReadOptions| crate::read::parse_with(&bytes, opts).unwrap().to_owned();
        let single = f64::from(x as f32);
        assert_eq!(
            read(&ReadOptions::new()).unwrap(),
            Variant::from(vec![Variant::Vector2(Vector2::new(single, -single))])
        );
        assert_eq!(
            read(&ReadOptions::new().with_double_precision(true)).unwrap(),
            Variant::from(vec![Variant::Vector2(Vector2::new(x, -x))])
        );
    }
}
