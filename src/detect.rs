//! Telling which dialect bytes are in: [`Dialect::detect`] for one value, [`Detector`] for a
//! file or a stream of values.
//!
//! Godot 3 and Godot 4 share the header layout and the first six type ids (Nil, bool, int,
//! float, String, Vector2), so the same bytes often read in both dialects. The detector reads
//! the input in both, front to back, and decides in this order:
//!
//! 1. **Fit.** A reading that takes every byte (every frame's value filling its frame) beats
//!    one that leaves bytes over, which beats one that fails. A Godot 3 Basis read as Godot 4
//!    is a `Vector4` with 20 bytes left over: Godot 3.
//! 2. **The same value.** When both readings only meet the shared types, they are the same
//!    value: there is nothing to tell ([`Verdict::Same`]).
//! 3. **Plausibility.** Each reading's values of types that mean something else in the other
//!    dialect are checked for what the engine never writes there: subnormal or NaN float
//!    components (a small int or a length read as a float), string bytes with control
//!    characters, NULs or non-zero padding (lengths and numbers read as text), header bits the
//!    type does not use. When exactly one reading has any, the other dialect wins
//!    ([`Verdict::MorePlausible`]); when both or neither do, the detector says it cannot tell
//!    ([`Verdict::Ambiguous`]) rather than guess.
//!
//! On the values the real engines write (the golden files of both), this never names the wrong
//! engine: every one is recognised, or is the same value in both, or is reported as ambiguous
//! (a Godot 3 Color is as plausible a Godot 4 Plane; a Godot 4 Transform2D as a Godot 3 AABB).
//!
//! Each reading is one linear [`Walker`] pass; nothing is allocated.
//!
//! ```
//! use gdvariant::{Dialect, detect::Verdict};
//! // var2bytes(Basis()) in Godot 3: as Godot 4 it is a Vector4 with 20 bytes left over.
//! let mut basis = vec![12, 0, 0, 0];
//! for x in [1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] {
//!     basis.extend_from_slice(&x.to_le_bytes());
//! }
//! let d = Dialect::detect(&basis);
//! assert_eq!(d.dialect(), Some(Dialect::Godot3));
//! assert_eq!(d.verdict(), Verdict::Only(Dialect::Godot3));
//! assert_eq!(d.to_string(), "Godot 3: as Godot 4 the value ends at offset 20, 20 bytes before the end");
//!
//! // An int means the same in both.
//! let d = Dialect::detect(&[2, 0, 0, 0, 7, 0, 0, 0]);
//! assert_eq!((d.verdict(), d.dialect(), d.read_as()), (Verdict::Same, None, Dialect::Godot4));
//! ```

use core::fmt;

use crate::error::{Error, ErrorKind};
use crate::head::flag_applies;
use crate::types::{Dialect, ReadOptions, VariantType, FLAG_64};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// How well a reading fits the input, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    Fails,
    LeavesBytes,
    Whole,
}

/// Something the engine never writes, met in a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Oddity {
    what: Odd,
    /// The type of the value it was found in.
    ty: VariantType,
    /// The absolute offset of the value.
    offset: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Odd {
    Subnormal,
    NaN,
    ControlCharacter,
    NonZeroPadding,
    UnusedHeaderBits,
}

impl fmt::Display for Odd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Odd::Subnormal => "a subnormal float",
            Odd::NaN => "a NaN",
            Odd::ControlCharacter => "text with a control character or NUL",
            Odd::NonZeroPadding => "text with non-zero padding",
            Odd::UnusedHeaderBits => "header bits the type does not use",
        })
    }
}

/// One dialect's reading of everything added so far.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reading {
    fit: Fit,
    /// Why the reading does not fit (the first failure, or the first value leaving bytes).
    error: Option<Error>,
    /// How many values held an oddity.
    odd: u64,
    first_odd: Option<Oddity>,
    /// The first value whose type means something else in the other dialect.
    first_specific: Option<(VariantType, usize)>,
}

impl Reading {
    const NEW: Reading = Reading {
        fit: Fit::Whole,
        error: None,
        odd: 0,
        first_odd: None,
        first_specific: None,
    };

    fn odd(&mut self, what: Odd, v: &VariantRef<'_>, at: usize) {
        self.odd += 1;
        if self.first_odd.is_none() {
            self.first_odd = Some(Oddity {
                what,
                ty: v.ty(),
                offset: v.offset() + at,
            });
        }
    }

    /// Records a failure: the first one of the worst kind is kept.
    fn fail(&mut self, fit: Fit, e: Error) {
        if fit < self.fit {
            self.fit = fit;
            self.error = Some(e);
        } else if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

/// Reads values in both dialects and tells which one they are in; see the
/// [module docs](crate::detect).
///
/// Add every value of the input with [`value`](Detector::value) — the one value of a file, or
/// each frame's value of a stream — then ask for the [`Detection`]. The depth limit and the
/// object policy of the options given apply to both readings (their dialect is ignored).
///
/// ```
/// use gdvariant::{detect::Detector, Dialect, ReadOptions};
/// // Two frames of a Godot 3 stream: a Vector3 (a truncated Rect2 in Godot 4), then an int.
/// let v3 = [7u8, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64];
/// let int = [2u8, 0, 0, 0, 9, 0, 0, 0];
/// let mut d = Detector::new(&ReadOptions::new());
/// d.value(&v3, 4).value(&int, 24);
/// assert_eq!(d.detection().dialect(), Some(Dialect::Godot3));
/// ```
#[derive(Clone, Debug)]
pub struct Detector {
    opts: ReadOptions,
    four: Reading,
    three: Reading,
}

impl Detector {
    /// A detector reading with the depth limit and object policy of `opts`.
    pub fn new(opts: &ReadOptions) -> Detector {
        Detector {
            opts: *opts,
            four: Reading::NEW,
            three: Reading::NEW,
        }
    }

    /// Reads one value that should fill `bytes` exactly (a file, or one frame's value) in both
    /// dialects. `at` is the absolute offset of `bytes[0]` in the input, for the offsets
    /// reported.
    pub fn value(&mut self, bytes: &[u8], at: usize) -> &mut Detector {
        self.value_with_progress(bytes, at, &mut |_| {})
    }

    /// [`value`](Detector::value), calling `progress` now and then with how many bytes of
    /// the two readings are done (from 0 to `2 * bytes.len()`), for a progress bar over a
    /// large input.
    pub fn value_with_progress(
        &mut self,
        bytes: &[u8],
        at: usize,
        progress: &mut dyn FnMut(usize),
    ) -> &mut Detector {
        let four = self.opts.with_dialect(Dialect::Godot4);
        let three = self.opts.with_dialect(Dialect::Godot3);
        read(&mut self.four, bytes, at, &four, 0, progress);
        read(&mut self.three, bytes, at, &three, bytes.len(), progress);
        self
    }

    /// What the values read so far tell.
    pub fn detection(&self) -> Detection {
        Detection {
            four: self.four.clone(),
            three: self.three.clone(),
        }
    }
}

/// How many events between two progress reports.
const PROGRESS_EVERY: u32 = 1 << 16;

/// One dialect's walk of one value, into `reading`.
fn read(
    reading: &mut Reading,
    bytes: &[u8],
    at: usize,
    opts: &ReadOptions,
    done_before: usize,
    progress: &mut dyn FnMut(usize),
) {
    let other = match opts.dialect() {
        Dialect::Godot4 => Dialect::Godot3,
        Dialect::Godot3 => Dialect::Godot4,
    };
    let mut w = Walker::new(bytes, opts);
    let mut events = 0u32;
    loop {
        events = events.wrapping_add(1);
        if events % PROGRESS_EVERY == 0 {
            progress(done_before + w.offset());
        }
        let event = match w.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                reading.fail(Fit::Fails, e.shifted(at));
                progress(done_before + bytes.len());
                return;
            }
        };
        match event {
            Event::Begin(v) | Event::Value(v) => {
                if !specific(&v, other) {
                    continue;
                }
                if reading.first_specific.is_none() {
                    reading.first_specific = Some((v.ty(), v.offset() + at));
                }
                if let Some(what) = oddity(&v, matches!(event, Event::Begin(_))) {
                    reading.odd(what, &v, at);
                }
            }
            Event::Property(name) => {
                if name.as_bytes().iter().any(|&b| is_control(b)) {
                    // The name belongs to the innermost object, which is always specific.
                    reading.odd += 1;
                    if reading.first_odd.is_none() {
                        reading.first_odd = Some(Oddity {
                            what: Odd::ControlCharacter,
                            ty: VariantType::Object,
                            offset: w.offset() + at,
                        });
                    }
                }
            }
            Event::End => {}
        }
    }
    let used = w.offset();
    if used < bytes.len() {
        reading.fail(
            Fit::LeavesBytes,
            Error::new(
                ErrorKind::TrailingBytesInFrame {
                    extra: bytes.len() - used,
                },
                at + used,
            ),
        );
    }
    progress(done_before + bytes.len());
}

/// Whether `v` means something else in the `other` dialect: another type under the same id,
/// or the 64-bit flag read differently.
fn specific(v: &VariantRef<'_>, other: Dialect) -> bool {
    let id = v.header() & 0xFF;
    let ty = v.ty();
    if other.type_of(id) != Some(ty) {
        return true;
    }
    v.header() & FLAG_64 != 0 && flag_applies(ty, v.dialect()) != flag_applies(ty, other)
}

/// The header bits above the type id that the engine may set for `ty` in `dialect`.
fn used_bits(ty: VariantType, dialect: Dialect) -> u32 {
    use VariantType as T;
    match ty {
        T::Array if dialect == Dialect::Godot4 => 0b11 << 16,
        T::Dictionary if dialect == Dialect::Godot4 => 0b1111 << 16,
        T::Object => FLAG_64,
        _ if flag_applies(ty, dialect) => FLAG_64,
        _ => 0,
    }
}

fn is_control(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7F
}

/// A string at the start of `b` (length word, bytes, padding): whether it is odd, and the
/// bytes after it.
fn odd_string(b: &[u8]) -> (Option<Odd>, &[u8]) {
    let Some((len, rest)) = b.split_first_chunk::<4>() else {
        return (None, &[]);
    };
    let len = (u32::from_le_bytes(*len) & 0x7FFF_FFFF) as usize;
    let padded = len.saturating_add(3) & !3;
    let (text, pad, rest) = match (rest.get(..len), rest.get(len..padded)) {
        (Some(t), Some(p)) => (t, p, &rest[padded..]),
        _ => return (None, &[]),
    };
    let odd = if text.iter().any(|&c| is_control(c)) {
        Some(Odd::ControlCharacter)
    } else if pad.iter().any(|&c| c != 0) {
        Some(Odd::NonZeroPadding)
    } else {
        None
    };
    (odd, rest)
}

/// The first of `count` strings starting at `b` that is odd.
fn odd_strings(mut b: &[u8], count: u64) -> Option<Odd> {
    for _ in 0..count {
        if b.len() < 4 {
            break;
        }
        let (odd, rest) = odd_string(b);
        if odd.is_some() {
            return odd;
        }
        b = rest;
    }
    None
}

/// The first odd float among the little-endian `f32`s (or `f64`s when `wide`) of `b`.
fn odd_floats(b: &[u8], wide: bool) -> Option<Odd> {
    let class = |x: f64, subnormal: bool| {
        if x.is_nan() {
            Some(Odd::NaN)
        } else if subnormal {
            Some(Odd::Subnormal)
        } else {
            None
        }
    };
    if wide {
        b.chunks_exact(8).find_map(|c| {
            let x = f64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            class(x, x.is_subnormal())
        })
    } else {
        b.chunks_exact(4).find_map(|c| {
            let x = f32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
            class(f64::from(x), x.is_subnormal())
        })
    }
}

/// What the engine would never have written in `v` (a value of a dialect-specific type).
fn oddity(v: &VariantRef<'_>, begin: bool) -> Option<Odd> {
    use VariantType as T;
    if v.header() & !0xFF & !used_bits(v.ty(), v.dialect()) != 0 {
        return Some(Odd::UnusedHeaderBits);
    }
    if begin {
        // A container: only a full object's class name is there to check.
        if v.ty() == T::Object {
            return odd_string(v.raw_head().get(4..)?).0;
        }
        return None;
    }
    let raw = v.raw().ok()?;
    let payload = raw.get(4..)?;
    let wide = v.is_wide();
    match v.ty() {
        T::Vector2
        | T::Rect2
        | T::Vector3
        | T::Transform2D
        | T::Vector4
        | T::Plane
        | T::Quaternion
        | T::Aabb
        | T::Basis
        | T::Transform3D
        | T::Projection
        | T::Color => odd_floats(payload, wide),
        T::PackedFloat32Array
        | T::PackedVector2Array
        | T::PackedVector3Array
        | T::PackedVector4Array
        | T::PackedColorArray => odd_floats(payload.get(4..)?, wide),
        T::PackedFloat64Array => odd_floats(payload.get(4..)?, true),
        T::StringName | T::String => odd_string(payload).0,
        T::PackedStringArray => {
            let (n, rest) = payload.split_first_chunk::<4>()?;
            odd_strings(rest, u64::from(u32::from_le_bytes(*n) & 0x7FFF_FFFF))
        }
        T::NodePath => {
            // As the engine reads it: `names + subnames` strings, one more with the old
            // "property" flag, in u32 arithmetic.
            let word = |i: usize| -> Option<u32> {
                Some(u32::from_le_bytes(payload.get(i..i + 4)?.try_into().ok()?))
            };
            let (names, subnames, flags) = (word(0)? & 0x7FFF_FFFF, word(4)?, word(8)?);
            let total = names
                .wrapping_add(subnames)
                .wrapping_add(u32::from(flags & 2 != 0));
            odd_strings(payload.get(12..)?, u64::from(total))
        }
        T::Signal => odd_string(payload).0,
        _ => None,
    }
}

/// What [`Dialect::detect`] or a [`Detector`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Only this dialect reads the input whole (the other fails, or leaves bytes over; see
    /// [`Detection::error`]).
    Only(Dialect),
    /// Both dialects read the input equally well, but the other dialect's reading holds
    /// something the engine never writes (see the [module docs](crate::detect)).
    MorePlausible(Dialect),
    /// Both dialects read the input as the same value: only types they share.
    Same,
    /// Both dialects read the input as different values, neither implausible: the detector
    /// cannot tell.
    Ambiguous,
    /// Neither dialect reads the input.
    Neither,
}

/// The outcome of a detection: the [`Verdict`], the dialect to read with, and why.
///
/// Its `Display` is one sentence naming the dialect and the reason, as `gdvariant --dialect
/// auto` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    four: Reading,
    three: Reading,
}

impl Detection {
    fn reading(&self, d: Dialect) -> &Reading {
        match d {
            Dialect::Godot4 => &self.four,
            Dialect::Godot3 => &self.three,
        }
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        let (f, t) = (&self.four, &self.three);
        if f.fit != t.fit {
            return Verdict::Only(if f.fit > t.fit {
                Dialect::Godot4
            } else {
                Dialect::Godot3
            });
        }
        if f.fit == Fit::Fails {
            return Verdict::Neither;
        }
        if f.first_specific.is_none() && t.first_specific.is_none() {
            return Verdict::Same;
        }
        match (f.odd, t.odd) {
            (0, n) if n > 0 => Verdict::MorePlausible(Dialect::Godot4),
            (n, 0) if n > 0 => Verdict::MorePlausible(Dialect::Godot3),
            _ => Verdict::Ambiguous,
        }
    }

    /// The dialect the input is in, when the detector can tell: `None` when both dialects read
    /// it as the same value, when it cannot tell, and when neither reads it.
    pub fn dialect(&self) -> Option<Dialect> {
        match self.verdict() {
            Verdict::Only(d) | Verdict::MorePlausible(d) => Some(d),
            _ => None,
        }
    }

    /// The dialect to read with: [`dialect`](Detection::dialect), else Godot 4 (the default).
    pub fn read_as(&self) -> Dialect {
        self.dialect().unwrap_or(Dialect::Godot4)
    }

    /// Why the input does not read whole in `dialect`: the first error, or (kind
    /// [`TrailingBytesInFrame`](ErrorKind::TrailingBytesInFrame)) where a value ended before
    /// the bytes given for it did. `None` when every value fills its bytes.
    pub fn error(&self, dialect: Dialect) -> Option<Error> {
        self.reading(dialect).error.clone()
    }

    /// Whether every value reads in `dialect` (possibly leaving bytes over).
    pub fn reads_in(&self, dialect: Dialect) -> bool {
        self.reading(dialect).fit > Fit::Fails
    }
}

/// `N bytes before the end` / `fails: <error>`, for the reason of a verdict.
fn why_not(f: &mut fmt::Formatter<'_>, d: Dialect, r: &Reading) -> fmt::Result {
    match &r.error {
        Some(e) => match e.kind() {
            ErrorKind::TrailingBytesInFrame { extra } => write!(
                f,
                "as {d} the value ends at offset {}, {extra} bytes before the end",
                e.offset()
            ),
            _ => write!(f, "as {d}: {e}"),
        },
        None => write!(f, "{d} reads it"),
    }
}

fn article(ty: VariantType, d: Dialect) -> &'static str {
    match ty.name_in(d).as_bytes().first() {
        Some(b'A' | b'E' | b'I' | b'O' | b'a' | b'e' | b'i' | b'o' | b'u') => "an",
        _ => "a",
    }
}

impl fmt::Display for Detection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.verdict() {
            Verdict::Only(d) => {
                let other = other(d);
                write!(f, "{d}: ")?;
                why_not(f, other, self.reading(other))
            }
            Verdict::MorePlausible(d) => {
                let other = other(d);
                write!(f, "{d}: both dialects read it, but ")?;
                match self.reading(other).first_odd {
                    Some(o) => write!(
                        f,
                        "as {other} it holds {} in {} {} at offset {}",
                        o.what,
                        article(o.ty, other),
                        o.ty.name_in(other),
                        o.offset
                    ),
                    None => write!(f, "the {other} reading is implausible"),
                }
            }
            Verdict::Same => f.write_str("the same value in both dialects; reading as Godot 4"),
            Verdict::Ambiguous => {
                f.write_str("cannot tell: both dialects read it")?;
                if let (Some((t4, at4)), Some((t3, at3))) =
                    (self.four.first_specific, self.three.first_specific)
                {
                    if at4 == at3 {
                        write!(
                            f,
                            " ({} {} in Godot 4, {} {} in Godot 3, at offset {at4})",
                            article(t4, Dialect::Godot4),
                            t4.name_in(Dialect::Godot4),
                            article(t3, Dialect::Godot3),
                            t3.name_in(Dialect::Godot3),
                        )?;
                    }
                }
                f.write_str("; reading as Godot 4")
            }
            Verdict::Neither => {
                f.write_str("valid in neither dialect; reading as Godot 4")?;
                if let Some(e) = &self.three.error {
                    write!(f, " (as Godot 3: {e})")?;
                }
                Ok(())
            }
        }
    }
}

fn other(d: Dialect) -> Dialect {
    match d {
        Dialect::Godot4 => Dialect::Godot3,
        Dialect::Godot3 => Dialect::Godot4,
    }
}

impl Dialect {
    /// Which dialect the value filling `bytes` is in, read with the engine's default limits
    /// and full objects allowed; see the [`detect`](crate::detect) module.
    pub fn detect(bytes: &[u8]) -> Detection {
        Dialect::detect_with(bytes, &ReadOptions::new().with_full_objects(true))
    }

    /// [`detect`](Dialect::detect) with the depth limit and object policy of `opts` (its
    /// dialect is ignored).
    pub fn detect_with(bytes: &[u8], opts: &ReadOptions) -> Detection {
        Detector::new(opts).value(bytes, 0).detection()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(xs: &[f32]) -> alloc::vec::Vec<u8> {
        xs.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn odd_floats_are_subnormals_and_nans() {
        assert_eq!(
            odd_floats(&f32s(&[1.0, -0.0, 1e30, f32::INFINITY]), false),
            None
        );
        assert_eq!(
            odd_floats(&f32s(&[1.0, f32::from_bits(9)]), false),
            Some(Odd::Subnormal)
        );
        assert_eq!(
            odd_floats(&f32s(&[f32::from_bits(u32::MAX)]), false),
            Some(Odd::NaN)
        );
        let wide: alloc::vec::Vec<u8> = [1.0f64, f64::from_bits(1)]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(odd_floats(&wide, true), Some(Odd::Subnormal));
        // Read as f32s, the low word of the f64 1 (bits 1) is subnormal too.
        assert_eq!(odd_floats(&wide[..8], false), None);
    }

    #[test]
    fn odd_strings_have_control_characters_nuls_or_padding() {
        assert_eq!(odd_string(b"\x03\0\0\0ab\t\0").0, None);
        assert_eq!(odd_string(b"\x02\0\0\0ab\0\0").0, None);
        assert_eq!(
            odd_string(b"\x02\0\0\0a\0\0\0").0,
            Some(Odd::ControlCharacter)
        );
        assert_eq!(
            odd_string(b"\x01\0\0\0\x1b\0\0\0").0,
            Some(Odd::ControlCharacter)
        );
        assert_eq!(odd_string(b"\x01\0\0\0ax\0\0").0, Some(Odd::NonZeroPadding));
        // The second of two strings.
        assert_eq!(
            odd_strings(b"\x01\0\0\0a\0\0\0\x01\0\0\0\x7f\0\0\0", 2),
            Some(Odd::ControlCharacter)
        );
        // A count larger than the bytes stops at their end.
        assert_eq!(odd_strings(b"\x01\0\0\0a\0\0\0", u64::from(u32::MAX)), None);
    }

    #[test]
    fn header_bits_a_type_does_not_use_are_odd() {
        // A Godot 4 StringName "" with bit 20 set: valid, but never written by the engine.
        let b = [0x15, 0, 0x10, 0, 0, 0, 0, 0];
        let v = crate::read::parse(&b).unwrap();
        assert_eq!(oddity(&v, false), Some(Odd::UnusedHeaderBits));
        let plain = [0x15, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(oddity(&crate::read::parse(&plain).unwrap(), false), None);
        // A typed Godot 4 Array uses bits 16-17.
        assert_eq!(used_bits(VariantType::Array, Dialect::Godot4), 0b11 << 16);
        assert_eq!(used_bits(VariantType::Array, Dialect::Godot3), 0);
        assert_eq!(used_bits(VariantType::Vector3, Dialect::Godot3), 0);
        assert_eq!(used_bits(VariantType::Vector3, Dialect::Godot4), FLAG_64);
    }
}
