//! What the engine's text form cannot carry: [`round_trip`] tells whether the text of a value
//! reads back to its exact bytes and, if not, names the first reason.

use core::fmt;
use std::collections::HashSet;
use std::string::String;
use std::vec::Vec;

use super::order::{godot_sort, sorts_before};
use super::parse::to_bytes;
use super::print::to_string;
use crate::array::ContainerType;
use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::error::Result;
use crate::literal::node_path;
use crate::num;
use crate::object::ObjectRef;
use crate::owned::index::KeyState;
use crate::owned::key::key_info;
use crate::owned::{NodePath, TypeInfo};
use crate::types::{Dialect, VariantType as T};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// Why the engine text of a value does not give back its bytes (see [`round_trip`]).
///
/// The engine's own text form is lossy; these are all the ways, each found by
/// [`round_trip`] at the first value (in byte order) it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LossKind {
    /// The bytes are not the ones the encoder writes for the value they hold, so no form
    /// gives them back (JSON neither): an int in 64 bits that fits 32, a float stored as `f64`
    /// that is exact in `f32`, non-zero padding, unused header bits, a leading BOM or bytes
    /// after a NUL in a string, a null object written as an Object, class- or script-typed
    /// containers without objects (written back as `EncodedObjectAsID`), …
    NotCanonical,
    /// Components or elements are stored in the other precision than the one written back
    /// (`f64` with the 64-bit flag when writing single precision, or the reverse), or 64-bit
    /// math components that the engine reads narrowed to `f32` (a value read without
    /// [`ReadOptions::with_double_precision`](crate::ReadOptions::with_double_precision)): the
    /// text prints what the engine reads.
    Precision,
    /// A float whose printed decimal reads back as another value: `-0.0` (printed `0`), a NaN
    /// other than the canonical one (printed `nan`; Godot 3 prints a negative one `-nan`, which
    /// its own reader does not read back), Godot 3's 6 significant digits.
    Float,
    /// A Dictionary's keys in another order than the engine's sorted order: the text lists
    /// them sorted.
    KeysSorted,
    /// A typed container that the engine reads as another one (see [`convert`](crate::convert)):
    /// a type it changes (`Array[Nil]` is untyped; without full objects every object type is
    /// `EncodedObjectAsID`; Godot 4.6's script-key rule for Dictionaries), or an element (Array)
    /// or key (Dictionary) of another type, which it converts or drops. The text prints what the
    /// engine keeps; the JSON form keeps the bytes.
    Converted,
    /// Two keys of a Dictionary that are the same key to the engine (`-0.0` and `0.0`, two
    /// strings that differ only after a NUL, …; see [`Dictionary`](crate::Dictionary)): reading
    /// the text merges them.
    RepeatedKeys,
    /// A Signal with a name or an object: the engine prints every Signal as `Signal()`.
    Signal,
    /// A NodePath whose text (`/a/b:c`) reads back as another path (empty names, names holding
    /// `/` or `:`, subnames without names, …).
    NodePath,
    /// A typed container whose element, key or value type prints as something that reads back
    /// as another type or not at all: an empty class name (printed `Object` or
    /// `EncodedObjectAsID`, as the engine does), a class named like a builtin type or
    /// `Variant`, one holding `]`, `,`, `(`, a line break or surrounding spaces, a script path
    /// holding `"` or `\`, a script path that is not `res://` while objects are written.
    TypeName,
    /// A full object whose class name is not an identifier, or whose property name (or
    /// `script` path) holds `"` or `\`: printed as they are, as the engine does.
    ObjectText,
    /// A full object while objects are not written.
    Objects,
    /// A Godot 3 RID: printed as nothing, as the engine's `var2str` prints it.
    Godot3Rid,
    /// Godot 3 text that Rust's strings cannot hold (an encoded surrogate, a code point past
    /// U+10FFFF, which Godot 3 keeps): printed with replacement characters. (Godot 3's overlong
    /// forms read as the characters they encode: their bytes are not canonical.)
    NotUtf8,
    /// A value nested deeper than the depth limit of the options written with.
    Depth,
    /// None of the above (a gap in this list: please report it).
    Other,
}

impl LossKind {
    fn describe(self) -> &'static str {
        match self {
            LossKind::NotCanonical => "the bytes are not the encoder's canonical form",
            LossKind::Precision => "components in another precision than the one written",
            LossKind::Float => "a float that its text reads back as another value",
            LossKind::KeysSorted => "dictionary keys are printed sorted",
            LossKind::Converted => {
                "a typed container the engine reads as another (its type or elements converted)"
            }
            LossKind::RepeatedKeys => "repeated dictionary keys merge when read back",
            LossKind::Signal => "a Signal prints as Signal()",
            LossKind::NodePath => "a NodePath whose text reads back as another path",
            LossKind::TypeName => "a container type that does not read back",
            LossKind::ObjectText => "an object's class or property name that does not read back",
            LossKind::Objects => "a full object while objects are not written",
            LossKind::Godot3Rid => "a Godot 3 RID prints as nothing",
            LossKind::NotUtf8 => "Godot 3 text that Rust's strings cannot hold",
            LossKind::Depth => "nesting deeper than the depth limit",
            LossKind::Other => "an unlisted reason",
        }
    }
}

/// The result of [`round_trip`] when the text does not give back the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextLoss {
    kind: LossKind,
    offset: usize,
    unreadable: bool,
}

impl TextLoss {
    /// The first reason found.
    pub fn kind(&self) -> LossKind {
        self.kind
    }

    /// The absolute offset of the value it applies to.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the text does not read back at all (else it reads back to other bytes).
    pub fn unreadable(&self) -> bool {
        self.unreadable
    }
}

impl fmt::Display for TextLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (the value at offset {}); its text {}",
            self.kind.describe(),
            self.offset,
            if self.unreadable {
                "does not read back"
            } else {
                "reads back to other bytes"
            }
        )
    }
}

/// Whether the engine text of `v` ([`to_string`]) gives back `v`'s exact
/// bytes when read and written with `opts` ([`to_bytes`]): `Ok(None)` if it
/// does, else the first reason (in byte order) it does not. `gdvariant decode | gdvariant
/// encode` through text is `opts` = `EncodeOptions::new().with_full_objects(true)` in `v`'s
/// dialect.
///
/// The answer is exact: it is the round trip itself (the text is printed and read back). The
/// reason is found by a walk over `v` that checks each case of [`LossKind`].
///
/// ```
/// use gdvariant::{text, EncodeOptions};
/// let opts = EncodeOptions::new().with_full_objects(true);
/// // var_to_bytes([1, "a"]): the text gives back the bytes
/// let bytes = [28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0];
/// assert_eq!(text::round_trip(&gdvariant::parse(&bytes)?, &opts)?, None);
/// // var_to_bytes(-0.0): printed as 0.0
/// let neg_zero = [3, 0, 0, 0, 0, 0, 0, 0x80];
/// let loss = text::round_trip(&gdvariant::parse(&neg_zero)?, &opts)?.unwrap();
/// assert_eq!(loss.kind(), text::LossKind::Float);
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn round_trip(v: &VariantRef<'_>, opts: &EncodeOptions) -> Result<Option<TextLoss>> {
    let raw = v.raw()?;
    let text = to_string(v)?;
    let back = to_bytes(&text, opts);
    let unreadable = match &back {
        Ok(b) if b.as_slice() == raw => return Ok(None),
        Ok(_) => false,
        Err(_) => true,
    };
    let (kind, offset) = classify(v, opts, unreadable)?.unwrap_or((LossKind::Other, v.offset()));
    Ok(Some(TextLoss {
        kind,
        offset,
        unreadable,
    }))
}

/// An open container of the walk in [`classify`].
struct Open<'a> {
    /// For a Dictionary: whether the next element is a key, its keys so far (of a
    /// Dictionary of two or more entries) and their hashes.
    key: bool,
    keys: Vec<VariantRef<'a>>,
    hashes: HashSet<u64>,
    dict: bool,
    /// For an object: whether the next value is its `script` property.
    script: bool,
    /// For a typed container whose elements (Array) or keys (Dictionary) the engine checks:
    /// their type, as the engine keeps it; and, for a Dictionary, whether a key comes next.
    checked: Option<TypeInfo>,
    is_dict: bool,
    next_is_key: bool,
}

/// The first lossy feature of `v` (in byte order) and the offset of the value it is in; with
/// `unreadable`, only the features that make the text unreadable.
fn classify(
    v: &VariantRef<'_>,
    opts: &EncodeOptions,
    unreadable: bool,
) -> Result<Option<(LossKind, usize)>> {
    let d = v.dialect();
    let raw = v.raw()?;
    let state = KeyState::new();
    let mut open: Vec<Open<'_>> = Vec::new();
    let mut w = Walker::from_value(*v);
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Property(name) => {
                let bad = name.as_str().map_or(true, |n| n.contains(['"', '\\']));
                if bad {
                    return Ok(Some((LossKind::ObjectText, w.name_at())));
                }
                if !unreadable && !canonical_string(raw, v.offset(), w.name_at(), name.as_bytes()) {
                    return Ok(Some((LossKind::NotCanonical, w.name_at())));
                }
                if let Some(o) = open.last_mut() {
                    // Both dialects print a script path as `Resource("path")`, as it is.
                    o.script = name.as_bytes() == b"script";
                }
                continue;
            }
            Event::End => {
                if let Some(o) = open.pop() {
                    if let Some(k) = keys_lost(&o).filter(|_| !unreadable) {
                        return Ok(Some(k));
                    }
                }
                continue;
            }
            Event::Begin(x) | Event::Value(x) => x,
        };
        let at = x.offset();
        // The text of `v` starts at depth 0, wherever `v` sits in its input.
        let depth = x.depth().saturating_sub(v.depth());
        if depth > opts.max_depth() {
            return Ok(Some((LossKind::Depth, at)));
        }
        if let Some(o) = open.last_mut() {
            let is_key = o.is_dict && o.next_is_key;
            o.next_is_key ^= o.is_dict;
            if let Some(t) = &o.checked {
                // A packed array the engine converts to an Array is printed as one: its
                // elements are one level deeper in the text than in the bytes (a packed array
                // holds elements past its header and count).
                if (is_key || !o.is_dict)
                    && *t == TypeInfo::Builtin(T::Array)
                    && x.ty().is_packed_array()
                    && depth + 1 > opts.max_depth()
                    && x.byte_len()? > 8
                {
                    return Ok(Some((LossKind::Depth, at)));
                }
                if !unreadable
                    && (is_key || !o.is_dict)
                    && crate::convert::fit_ref(t, &x)? != crate::convert::Fit::Keep
                {
                    return Ok(Some((LossKind::Converted, at)));
                }
            }
            if core::mem::take(&mut o.script) && x.ty() == T::String {
                // Printed as Resource("path"), as it is.
                if x.as_text()?
                    .as_bytes()
                    .iter()
                    .any(|&c| c == b'"' || c == b'\\')
                {
                    return Ok(Some((LossKind::ObjectText, at)));
                }
            }
            if o.dict && !unreadable {
                if o.key {
                    if repeats(&state, &mut o.hashes, &x, d) {
                        return Ok(Some((LossKind::RepeatedKeys, at)));
                    }
                    o.keys.push(x);
                }
                o.key = !o.key;
            }
        }
        if let Some(k) = lost(&x, opts, matches!(e, Event::Begin(_)))? {
            // What the engine converts reads back (as the engine's value).
            if !(unreadable && k == LossKind::Converted) {
                return Ok(Some((k, at)));
            }
        }
        if let Event::Begin(c) = e {
            open.push(Open {
                key: true,
                keys: Vec::new(),
                hashes: HashSet::new(),
                dict: c.ty() == T::Dictionary && c.count() >= 2,
                script: false,
                checked: crate::convert::checked_type(&c)?,
                is_dict: c.ty() == T::Dictionary,
                next_is_key: true,
            });
        }
    }
    Ok(None)
}

/// Whether the string whose bytes start at absolute offset `at` (its length word before them)
/// in `raw` (starting at absolute offset `base`) is written as the encoder writes `text`: the
/// length of the text, the text, zero padding.
fn canonical_string(raw: &[u8], base: usize, at: usize, text: &[u8]) -> bool {
    let Some(rel) = at.checked_sub(base + 4) else {
        return false;
    };
    let Some(len) = raw.get(rel..rel + 4) else {
        return false;
    };
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let pad = (4 - len % 4) % 4;
    len == text.len()
        && raw.get(rel + 4..rel + 4 + len) == Some(text)
        && raw
            .get(rel + 4 + len..rel + 4 + len + pad)
            .is_some_and(|p| p.iter().all(|&b| b == 0))
}

/// Whether the key `k` may be the same key as an earlier one of its Dictionary (whose hashes
/// are `seen`) by the text reader's rule, the key identity of `dialect`'s engine (`owned::key`),
/// entering its hash. A key that equals no key (a non-null object, …) never repeats; a key that
/// cannot be had counts as repeated.
fn repeats(
    state: &KeyState,
    seen: &mut HashSet<u64>,
    k: &VariantRef<'_>,
    dialect: Dialect,
) -> bool {
    let Ok(v) = k.to_owned() else {
        return true;
    };
    let info = key_info(&v, dialect, state);
    info.matchable && !seen.insert(info.hash)
}

/// Whether the Godot 3 leaf `x` holds text that is not UTF-8 and that Rust's strings cannot
/// hold (read as U+FFFD; an overlong form reads as the character it encodes).
fn unholdable_text(x: &VariantRef<'_>) -> Result<bool> {
    fn bad(t: crate::strings::Text<'_>) -> bool {
        t.as_str().is_none() && t.to_string_lossy().contains('\u{FFFD}')
    }
    fn any(mut it: crate::object::StrIter<'_>) -> Result<bool> {
        while let Some(t) = it.try_next()? {
            if bad(t) {
                return Ok(true);
            }
        }
        Ok(false)
    }
    Ok(match x.ty() {
        T::String | T::StringName => bad(x.as_text()?),
        T::NodePath => {
            let p = x.as_node_path()?;
            any(p.names())? || any(p.subnames()?)?
        }
        T::PackedStringArray => any(x.as_string_array()?.iter())?,
        _ => false,
    })
}

/// Whether a Dictionary's keys come out of the engine's sort in another order.
fn keys_lost(o: &Open<'_>) -> Option<(LossKind, usize)> {
    if !o.dict || o.keys.len() < 2 {
        return None;
    }
    let scratch = core::cell::RefCell::new(Vec::new());
    let mut idx: Vec<usize> = (0..o.keys.len()).collect();
    godot_sort(&mut idx, |a, b| {
        crate::reader::work(1);
        sorts_before(&o.keys[*a], &o.keys[*b], &scratch)
    });
    let first = idx.iter().enumerate().find(|(i, k)| *i != **k)?;
    Some((
        LossKind::KeysSorted,
        o.keys[*first.1.min(&first.0)].offset(),
    ))
}

/// Whether a class name prints as something that reads back as the same class.
fn class_reads_back(c: &str) -> bool {
    !c.is_empty()
        && c != "Variant"
        && c.trim() == c
        && !c.contains([']', ',', '(', '\n'])
        && !Dialect::Godot4.types().any(|t| t.name() == c)
}

/// The loss in one value or container head, if any.
fn lost(x: &VariantRef<'_>, opts: &EncodeOptions, begin: bool) -> Result<Option<LossKind>> {
    let d = x.dialect();
    // The exact bytes of what the encoder writes for the value it holds.
    if begin {
        if let Some(k) = head_lost(x, opts)? {
            return Ok(Some(k));
        }
    } else {
        let owned = match x.to_owned() {
            Ok(v) => v,
            Err(_) => return Ok(Some(LossKind::NotUtf8)),
        };
        if d == Dialect::Godot3 && unholdable_text(x)? {
            return Ok(Some(LossKind::NotUtf8));
        }
        let wanted =
            crate::encode::encode_with(&owned, &opts.with_max_depth(crate::types::MAX_DEPTH_LIMIT));
        if wanted.as_deref().ok() != Some(x.raw()?) {
            let real = crate::head::flag_applies(x.ty(), d) && !matches!(x.ty(), T::Int | T::Float);
            // Written in the other precision, or narrowed by a single-precision engine.
            if real
                && (x.is_wide() != opts.wide() || x.is_wide() && !x.options().double_precision())
            {
                return Ok(Some(LossKind::Precision));
            }
            if matches!(&owned, crate::owned::Variant::Object(o) if !matches!(&**o, crate::owned::Object::Id(_)))
                && !opts.full_objects()
            {
                return Ok(Some(LossKind::Objects));
            }
            return Ok(Some(LossKind::NotCanonical));
        }
    }
    let single = !opts.wide();
    // The printed numbers, read back as the text reader reads them.
    let f64_ok = |x: f64| reads_back(&num::real(x, d), x, false);
    let comp_ok = |x: f64| reads_back(&num::real(x, d), x, single);
    let f32_ok = |x: f32| reads_back(&num::real(f64::from(x), d), f64::from(x), true);
    let all = |xs: &[f64], ok: &dyn Fn(f64) -> bool| xs.iter().all(|&c| ok(c));
    let ok = match x.ty() {
        T::Float => {
            let f = x.as_f64()?;
            reads_back(&num::float(f, d), f, false)
        }
        T::Vector2 => all(&x.as_vector2()?.to_array(), &comp_ok),
        T::Rect2 => all(&x.as_rect2()?.to_array(), &comp_ok),
        T::Vector3 => all(&x.as_vector3()?.to_array(), &comp_ok),
        T::Transform2D => all(&x.as_transform2d()?.to_array(), &comp_ok),
        T::Vector4 => all(&x.as_vector4()?.to_array(), &comp_ok),
        T::Plane => all(&x.as_plane()?.to_array(), &comp_ok),
        T::Quaternion => all(&x.as_quaternion()?.to_array(), &comp_ok),
        T::Aabb => all(&x.as_aabb()?.to_array(), &comp_ok),
        T::Basis => all(&x.as_basis()?.to_array(), &comp_ok),
        T::Transform3D => all(&x.as_transform3d()?.to_array(), &comp_ok),
        T::Projection => all(&x.as_projection()?.to_array(), &comp_ok),
        T::Color => x.as_color()?.to_array().iter().all(|&c| f32_ok(c)),
        T::PackedFloat32Array => x.as_packed::<f32>()?.iter().all(f32_ok),
        T::PackedFloat64Array => x.as_packed::<f64>()?.iter().all(f64_ok),
        T::PackedColorArray => x
            .as_packed::<crate::math::Color>()?
            .iter()
            .all(|c| c.to_array().iter().all(|&c| f32_ok(c))),
        T::PackedVector2Array | T::PackedVector3Array | T::PackedVector4Array => {
            let n = match x.ty() {
                T::PackedVector2Array => 2,
                T::PackedVector3Array => 3,
                _ => 4,
            };
            let mut ok = true;
            if x.is_wide() {
                for c in packed_wide(x, n) {
                    ok &= comp_ok(c);
                }
            } else {
                for c in packed_narrow(x, n) {
                    ok &= comp_ok(f64::from(c));
                }
            }
            ok
        }
        _ => true,
    };
    if !ok {
        return Ok(Some(LossKind::Float));
    }
    Ok(match x.ty() {
        T::Rid if d == Dialect::Godot3 => Some(LossKind::Godot3Rid),
        T::Signal => {
            let s = x.as_signal()?;
            (!s.name.is_empty() || s.object_id != 0).then_some(LossKind::Signal)
        }
        T::NodePath => {
            let np = x.as_node_path()?;
            let mut text = String::new();
            let _ = np.write_text(&mut text)?;
            let mut parts = NodePath {
                absolute: np.is_absolute(),
                ..NodePath::default()
            };
            let mut it = np.names();
            while let Some(t) = it.try_next()? {
                parts.names.push(t.to_string_lossy().into_owned());
            }
            let mut it = np.subnames()?;
            while let Some(t) = it.try_next()? {
                parts.subnames.push(t.to_string_lossy().into_owned());
            }
            (node_path(&text) != parts).then_some(LossKind::NodePath)
        }
        _ => None,
    })
}

/// The components of a single-precision packed vector array, flat.
fn packed_narrow(x: &VariantRef<'_>, n: usize) -> Vec<f32> {
    let mut out = Vec::new();
    match n {
        2 => {
            if let Ok(p) = x.as_packed::<[f32; 2]>() {
                out.extend(p.iter().flatten());
            }
        }
        3 => {
            if let Ok(p) = x.as_packed::<[f32; 3]>() {
                out.extend(p.iter().flatten());
            }
        }
        _ => {
            if let Ok(p) = x.as_packed::<[f32; 4]>() {
                out.extend(p.iter().flatten());
            }
        }
    }
    out
}

/// The components of a double-precision packed vector array, flat.
fn packed_wide(x: &VariantRef<'_>, n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    match n {
        2 => {
            if let Ok(p) = x.as_packed::<[f64; 2]>() {
                out.extend(p.iter().flatten());
            }
        }
        3 => {
            if let Ok(p) = x.as_packed::<[f64; 3]>() {
                out.extend(p.iter().flatten());
            }
        }
        _ => {
            if let Ok(p) = x.as_packed::<[f64; 4]>() {
                out.extend(p.iter().flatten());
            }
        }
    }
    out
}

/// Whether `text` (a printed real) reads back as exactly `x` (as an `f32` when `single`).
fn reads_back(text: &str, x: f64, single: bool) -> bool {
    let t = text.strip_suffix(".0").filter(|t| {
        // Godot 3 prints -inf.0 / inf.0 / nan.0 / -nan.0 for floats.
        matches!(*t, "inf" | "-inf" | "nan" | "-nan")
    });
    // The reader takes a NaN's sign as the engine does: every NaN word is the canonical NaN.
    let t = match t.unwrap_or(text) {
        "-nan" => "nan",
        t => t,
    };
    let back = match t {
        "inf" => Some(f64::INFINITY),
        "-inf" | "inf_neg" => Some(f64::NEG_INFINITY),
        "nan" if single => Some(f64::from(f32::NAN)),
        "nan" => Some(f64::NAN),
        t if single => t.parse::<f32>().ok().map(f64::from),
        t => t.parse::<f64>().ok(),
    };
    back.is_some_and(|b| b.to_bits() == x.to_bits())
}

/// The loss in a container's head (header, type info, count), if any.
fn head_lost(x: &VariantRef<'_>, opts: &EncodeOptions) -> Result<Option<LossKind>> {
    let mut head = Vec::new();
    let mut ids = IdCache::new();
    let mut e = Enc {
        out: &mut head,
        base: 0,
        opts,
        ids: &mut ids,
        depth: 0,
    };
    let owned = |t: &ContainerType<'_>| TypeInfo::from_ref(t, x.offset());
    let type_ok = |t: &ContainerType<'_>| match t {
        ContainerType::ClassName(c) => c.as_str().is_some_and(class_reads_back),
        ContainerType::Script(p) => {
            p.as_str().is_some_and(|p| !p.contains(['"', '\\']))
                && (!opts.full_objects() || p.as_bytes().starts_with(b"res://"))
        }
        _ => true,
    };
    let res = match x.ty() {
        T::Array => {
            let t = x.as_array()?.element_type()?;
            if !type_ok(&t) {
                return Ok(Some(LossKind::TypeName));
            }
            let Ok(t) = owned(&t) else {
                return Ok(Some(LossKind::NotUtf8));
            };
            if crate::convert::engine_type(t.clone(), x.options().full_objects()) != t {
                return Ok(Some(LossKind::Converted));
            }
            e.array_head(&t, x.count())
        }
        T::Dictionary => {
            let (k, v) = x.as_dictionary()?.key_value_types()?;
            if !type_ok(&k) || !type_ok(&v) {
                return Ok(Some(LossKind::TypeName));
            }
            let (Ok(k), Ok(v)) = (owned(&k), owned(&v)) else {
                return Ok(Some(LossKind::NotUtf8));
            };
            let objects = x.options().full_objects();
            if crate::convert::engine_types(k.clone(), v.clone(), objects) != (k.clone(), v.clone())
            {
                return Ok(Some(LossKind::Converted));
            }
            e.dict_head(&k, &v, x.count())
        }
        _ => {
            if !opts.full_objects() {
                return Ok(Some(LossKind::Objects));
            }
            let ObjectRef::Full(f) = x.as_object()? else {
                return Ok(None);
            };
            let class = f.class_name();
            let Some(c) = class.as_str() else {
                return Ok(Some(LossKind::NotUtf8));
            };
            let ident = c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && c != "EncodedObjectAsID";
            if !ident {
                return Ok(Some(LossKind::ObjectText));
            }
            e.object_head(c, x.count())
        }
    };
    if res.is_err() || head.as_slice() != x.raw_head() {
        return Ok(Some(LossKind::NotCanonical));
    }
    Ok(None)
}
