//! Decoding: [`VariantRef::to_owned`] and the owned forms of borrowed container type info.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// The pair a Dictionary entry starts as before its key and value are read into it, a
/// constant so that it is copied from read-only data rather than assembled on the stack first
/// (whose byte stores, read back as wide words, stall the CPU).
const NIL_PAIR: (Variant, Variant) = (Variant::Nil, Variant::Nil);

use crate::array::{container_types, ContainerType};
use crate::error::{Error, Result};
use crate::leaf::{self, Leaf};
use crate::math::*;
use crate::object::ObjectRef;
use crate::owned::*;
use crate::reader::Reader;
use crate::strings::Text;
use crate::types::{Dialect, ReadOptions, VariantType};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

use crate::owned::dictionary::SCAN_MAX;
use crate::owned::key::{key_info, same_key, Index, KeyState};

impl TypeInfo {
    /// The owned form of a container type; Godot 3 text that is not UTF-8 is an error at
    /// `offset`.
    pub fn from_ref(t: &ContainerType<'_>, offset: usize) -> Result<TypeInfo> {
        Ok(match t {
            ContainerType::None => TypeInfo::None,
            ContainerType::Builtin(ty) => TypeInfo::Builtin(*ty),
            ContainerType::ClassName(s) => TypeInfo::ClassName(text_string(s, offset)?),
            ContainerType::Script(s) => TypeInfo::Script(text_string(s, offset)?),
        })
    }

    /// The kind as written in a container header: 0 none, 1 builtin, 2 class name, 3 script.
    pub fn kind(&self) -> u32 {
        match self {
            TypeInfo::None => 0,
            TypeInfo::Builtin(_) => 1,
            TypeInfo::ClassName(_) => 2,
            TypeInfo::Script(_) => 3,
        }
    }
}

/// The engine's reading of checked text: Godot 3 text that is not UTF-8 (overlong forms and
/// the like, which Godot 3 reads) is decoded as Godot 3 decodes it.
#[inline]
fn text_string(t: &Text<'_>, _offset: usize) -> Result<String> {
    Ok(t.to_string_lossy().into_owned())
}

/// Reads a §5 string at `r` into a `String`; see [`owned_text`].
#[inline(always)]
fn read_owned_string(r: &mut Reader<'_>, dialect: Dialect) -> Result<GString> {
    let (raw, at) = r.read_string_raw()?;
    owned_text(raw, at, dialect)
}

/// The engine's text of the string bytes `raw` (at absolute offset `at`) as a `String`, with
/// one UTF-8 pass: valid UTF-8 passes every dialect's rules. Otherwise the text is checked by
/// the dialect's rules ([`ErrorKind::InvalidUtf8`] if the dialect rejects it), and text that
/// only Godot 3 accepts is decoded as Godot 3 reads it.
#[inline(always)]
fn owned_text(raw: &[u8], at: usize, dialect: Dialect) -> Result<GString> {
    let mut s = GString::new();
    owned_text_into(raw, at, dialect, &mut s)?;
    Ok(s)
}

/// [`owned_text`] into `out`, a text in its final position (its text is replaced), where
/// short plain text is filled in place instead of being built elsewhere and moved.
#[inline(always)]
fn owned_text_into(raw: &[u8], at: usize, dialect: Dialect, out: &mut GString) -> Result<()> {
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
#[inline(always)]
fn string_of(v: &VariantRef<'_>) -> Result<GString> {
    // The head read the whole value: header, length, bytes, padding.
    let mut p = Reader::new(v.raw_head().get(4..).unwrap_or(&[]), v.offset() + 4);
    read_owned_string(&mut p, v.dialect())
}

/// A container being converted: its children so far and its type info.
enum Building {
    Array {
        items: Vec<Variant>,
        ty: Option<Box<TypeInfo>>,
    },
    Dict(DictBuilder),
    Object {
        class: String,
        props: Vec<(String, Variant)>,
        /// The name read, whose value comes next.
        name: Option<String>,
    },
}

/// A Dictionary being converted: repeated keys are merged as the engine's `bytes_to_var`
/// merges them (the first key and position, the last value), by the dialect's key rule.
struct DictBuilder {
    /// The entries so far; while `pending`, the last one is a key read whose value comes next
    /// (with a Nil value until then).
    entries: Vec<(Variant, Variant)>,
    types: Option<Box<(TypeInfo, TypeInfo)>>,
    pending: bool,
    /// A bit per fingerprint of the String and StringName keys so far (see [`fingerprint`]):
    /// a string key whose bit is clear repeats no key, and needs no scan.
    strings: u64,
    /// The hash index, once there are more than [`SCAN_MAX`] entries.
    index: Option<Index>,
}

impl DictBuilder {
    /// Takes a key or a value.
    #[inline(always)]
    fn push(&mut self, x: Variant, rule: Dialect) {
        if self.pending {
            self.value(x, rule);
        } else {
            self.entries.push((x, Variant::Nil));
            self.pending = true;
        }
    }

    /// Sets the value of the pending key: the last entry's, or, if an earlier key is the same
    /// key, that entry's (and the last entry goes).
    #[inline(always)]
    fn value(&mut self, x: Variant, rule: Dialect) {
        self.pending = false;
        let Some(((key, slot), earlier)) = self.entries.split_last_mut() else {
            return;
        };
        match find_earlier(&mut self.index, &mut self.strings, earlier, key, rule) {
            Some(at) => {
                earlier[at].1 = x;
                self.entries.pop();
            }
            None => {
                // The slot holds the Nil put there with the key: nothing to drop (no call).
                core::mem::forget(core::mem::replace(slot, x));
                self.grown(rule);
            }
        }
    }

    /// Takes the pair just put at the end of the entries whole (no key was pending): if an
    /// earlier key is the same key, the value replaces that entry's, and the last entry goes.
    #[inline(always)]
    fn placed(&mut self, rule: Dialect) {
        let Some(((key, value), earlier)) = self.entries.split_last_mut() else {
            return;
        };
        match find_earlier(&mut self.index, &mut self.strings, earlier, key, rule) {
            Some(at) => {
                earlier[at].1 = core::mem::take(value);
                self.entries.pop();
            }
            None => self.grown(rule),
        }
    }

    /// After an entry was added: the index is built once there are more than [`SCAN_MAX`].
    #[inline(always)]
    fn grown(&mut self, rule: Dialect) {
        if self.index.is_none() && self.entries.len() > SCAN_MAX {
            self.build_index(rule);
        }
    }

    #[cold]
    fn build_index(&mut self, rule: Dialect) {
        let mut index = Index::with_capacity(KeyState::new(), self.entries.capacity());
        for (at, (k, _)) in self.entries.iter().enumerate() {
            let info = key_info(k, rule, &index.state);
            if info.matchable {
                index.insert(info.hash, at);
            }
        }
        self.index = Some(index);
    }

    fn finish(mut self, opts: &ReadOptions) -> Dictionary {
        if self.pending {
            // Unreachable: a dictionary ends after a value.
            self.entries.pop();
        }
        match self.types {
            // A typed dictionary as the engine builds it (keys converted, or dropped).
            Some(t) => {
                let (k, v) = *t;
                crate::convert::engine_dictionary(self.entries, k, v, opts)
            }
            None => Dictionary::from_parts(self.entries, None, self.index),
        }
    }
}

/// The position among `earlier` (a dictionary's entries so far) of the same key as `key`, by the
/// dialect's key rule: by the hash `index` once there is one (`key`, if new, is then indexed
/// at `earlier.len()`), else by a scan, which a String or StringName key whose fingerprint bit
/// is clear in `strings` skips (and sets the bit).
#[inline(always)]
fn find_earlier(
    index: &mut Option<Index>,
    strings: &mut u64,
    earlier: &[(Variant, Variant)],
    key: &Variant,
    rule: Dialect,
) -> Option<usize> {
    match index {
        Some(index) => {
            let info = key_info(key, rule, &index.state);
            if !info.matchable {
                None
            } else {
                let at = index.find(info.hash, |at| same_key(&earlier[at].0, key, rule));
                if at.is_none() {
                    index.insert(info.hash, earlier.len());
                }
                at
            }
        }
        None => match key {
            Variant::String(t) | Variant::StringName(t) => {
                let bit = 1u64 << fingerprint(t.as_bytes());
                let seen = *strings & bit != 0;
                *strings |= bit;
                if seen {
                    scan(earlier, key, rule)
                } else {
                    None
                }
            }
            _ => scan(earlier, key, rule),
        },
    }
}

/// A 6-bit fingerprint of a key's text: equal texts have equal fingerprints.
#[inline(always)]
fn fingerprint(t: &[u8]) -> u32 {
    match (t.first(), t.last()) {
        (Some(&f), Some(&l)) => {
            (u32::from(f) ^ u32::from(l).rotate_left(3) ^ (t.len() as u32).wrapping_mul(11)) & 63
        }
        _ => 0,
    }
}

/// The position of the same key as `key` among the (few) `entries`, by a scan; string keys,
/// by far the most common, are compared by length first.
#[inline(always)]
fn scan(entries: &[(Variant, Variant)], key: &Variant, rule: Dialect) -> Option<usize> {
    match key {
        Variant::String(t) | Variant::StringName(t) => {
            let string = matches!(key, Variant::String(_));
            entries.iter().position(|(k, _)| match k {
                Variant::String(s) | Variant::StringName(s) if s.len() == t.len() => {
                    (rule == Dialect::Godot4 || matches!(k, Variant::String(_)) == string)
                        && same_bytes(s.as_bytes(), t.as_bytes())
                }
                _ => false,
            })
        }
        _ => entries.iter().position(|(k, _)| same_key(k, key, rule)),
    }
}

/// Initial capacity for `count` children of at least `min_size` encoded bytes each, with
/// `remaining` bytes of input left, taken from `budget`.
///
/// `budget` starts as the most values the whole input can hold (one per 4 bytes), so a real
/// value, whose counts add up to at most its number of values, gets exact capacities and no
/// regrowth, while hostile counts, even in many nested containers, reserve in total no more
/// than the input could hold (about ten times its length in `Variant`s).
#[inline]
fn capacity(count: u32, remaining: usize, min_size: usize, budget: &mut usize) -> usize {
    let n = (count as usize).min(remaining / min_size).min(*budget);
    *budget -= n;
    n
}

impl Building {
    /// Adds a converted child: an element, a key or its value, a property value.
    #[inline(always)]
    fn push(&mut self, x: Variant, rule: Dialect) {
        match self {
            Building::Array { items, .. } => items.push(x),
            Building::Dict(d) => d.push(x, rule),
            Building::Object { props, name, .. } => {
                props.push((name.take().unwrap_or_default(), x));
            }
        }
    }

    /// Whether the next child is a dictionary key.
    #[inline(always)]
    fn wants_key(&self) -> bool {
        matches!(self, Building::Dict(d) if !d.pending)
    }

    fn finish(self, opts: &ReadOptions) -> Variant {
        match self {
            Building::Array { items, ty: None } => Variant::Array(Array {
                items,
                element_type: None,
            }),
            // A typed array as the engine builds it (elements converted, or dropped).
            Building::Array { items, ty: Some(t) } => {
                Variant::Array(crate::convert::engine_array(items, *t, opts))
            }
            Building::Dict(d) => Variant::Dictionary(d.finish(opts)),
            Building::Object { class, props, .. } => Variant::Object(Box::new(Object::Full {
                class,
                properties: props,
            })),
        }
    }
}

/// Opens the container whose [`Begin`](Event::Begin) event is `v`, with `remaining` bytes of
/// input after its head.
fn open_container(v: &VariantRef<'_>, remaining: usize, budget: &mut usize) -> Result<Building> {
    use VariantType as T;
    let at = v.offset();
    let count = v.h.count;
    Ok(match v.ty() {
        // Untyped containers (no kind bits in the header) have no type info to read.
        T::Array => {
            let ty = if v.header() & (0x3 << 16) == 0 {
                None
            } else {
                let [t] = container_types::<1>(v)?;
                boxed_type(TypeInfo::from_ref(&t, at + 4)?)
            };
            Building::Array {
                ty,
                items: Vec::with_capacity(capacity(count, remaining, 4, budget)),
            }
        }
        T::Dictionary => {
            let types = if v.header() & (0xF << 16) == 0 {
                None
            } else {
                let [k, t] = container_types::<2>(v)?;
                boxed_types(
                    TypeInfo::from_ref(&k, at + 4)?,
                    TypeInfo::from_ref(&t, at + 4)?,
                )
            };
            Building::Dict(DictBuilder {
                types,
                entries: Vec::with_capacity(capacity(count, remaining, 8, budget)),
                pending: false,
                strings: 0,
                index: None,
            })
        }
        _ => {
            let class = match v.as_object()? {
                ObjectRef::Full(f) => f.class_name(),
                // Unreachable: only full objects with a class begin a container.
                ObjectRef::Id(_) => Text::new(b""),
            };
            Building::Object {
                class: text_string(&class, at + 8)?,
                props: Vec::with_capacity(capacity(count, remaining, 8, budget)),
                name: None,
            }
        }
    })
}

/// Recently converted short strings by their raw bytes: dictionary keys and packed-string
/// elements repeat throughout a large packet (the same few keys in every entity), and a hit
/// skips the text checks and the copy. Two-way set associative, by length and a few bytes.
/// Set up only once a packet has shown enough strings for it to pay off.
struct StrCache<'a> {
    /// How many strings went by before the cache was set up.
    seen: u32,
    slots: Option<Box<Slots<'a>>>,
}

const SETS: usize = 32;

/// The cache's slots: raw bytes and their string, two per set.
type Slots<'a> = [(&'a [u8], GString); 2 * SETS];
/// Short byte strings are equal: a plain loop (no `memcmp` call for a few bytes).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl<'a> StrCache<'a> {
    fn new() -> StrCache<'a> {
        StrCache {
            seen: 0,
            slots: None,
        }
    }

    #[inline(always)]
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
    #[inline(always)]
    fn get_into(
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

/// Reads `count` strings at `r` (the body of a PackedStringArray).
fn read_strings<'a>(
    r: &mut Reader<'a>,
    count: u32,
    dialect: Dialect,
    budget: &mut usize,
    cache: &mut StrCache<'a>,
) -> Result<Vec<GString>> {
    let mut out = Vec::with_capacity(capacity(count, r.remaining(), 4, budget));
    for _ in 0..count {
        let (raw, at) = r.read_string_raw()?;
        // Read into its final place (a text returned by value and pushed is a copy through a
        // temporary, read back wide: a store-forwarding stall per string).
        out.push(GString::new());
        if let Some(s) = out.last_mut() {
            cache.get_into(raw, at, dialect, s)?;
        }
    }
    Ok(out)
}

/// Sets `out`, which is Nil, without dropping it (no call, no check).
#[inline(always)]
fn put(out: &mut Variant, x: Variant) {
    core::mem::forget(core::mem::replace(out, x));
}

/// The plain value at the start of `b` (at absolute offset `at`), read by the one decoder of
/// leaves ([`leaf::plain`]) into `out` (a Nil, in its final position: a short text is filled in
/// place), and its size: Nil, bool, int, float, Vector2 and Vector3 (unless their 64-bit math is
/// to be narrowed: `narrow`), String and StringName (whose bytes and padding are ASCII when
/// `ASCII`: bytes the walker has not checked). `None` for anything else, short input included
/// (`out` is then still Nil): the exact path reads it. A String at a dictionary key position
/// (`key`) goes through the cache.
#[inline(always)]
fn plain_leaf_into<'a, const ASCII: bool>(
    b: &'a [u8],
    at: usize,
    dialect: Dialect,
    key: bool,
    cache: &mut StrCache<'a>,
    narrow: bool,
    out: &mut Variant,
) -> Result<Option<usize>> {
    const ALL: u8 = leaf::NIL | leaf::BOOL | leaf::INT | leaf::FLOAT | leaf::STR | leaf::VECTOR;
    let sink = Put {
        out,
        cache,
        at,
        dialect,
        key,
    };
    match leaf::plain::<_, ALL, ASCII>(b, dialect.layouts(), !narrow, sink) {
        Some((res, n)) => res.map(|()| Some(n)),
        None => Ok(None),
    }
}

/// [`plain_leaf_into`]'s sink: the leaf into `out`, its text (after the header and the length
/// word, at `at + 8`) through the `cache` at a dictionary key position (`key`).
struct Put<'c, 'a> {
    out: &'c mut Variant,
    cache: &'c mut StrCache<'a>,
    at: usize,
    dialect: Dialect,
    key: bool,
}

impl<'a> leaf::Sink<'a> for Put<'_, 'a> {
    type Out = Result<()>;

    #[inline(always)]
    fn leaf(self, x: Leaf<'a>) -> Result<()> {
        let (x, raw) = match x {
            Leaf::Nil => return Ok(()),
            Leaf::Bool(x) => (Variant::Bool(x), None),
            Leaf::Int(i) => (Variant::Int(i), None),
            Leaf::Float(f) => (Variant::Float(f), None),
            Leaf::Vector2(a) => (Variant::Vector2(Vector2::from_array(a)), None),
            Leaf::Vector3(a) => (Variant::Vector3(Vector3::from_array(a)), None),
            Leaf::String(raw) => (Variant::String(GString::new()), Some(raw)),
            Leaf::StringName(raw) => (Variant::StringName(GString::new()), Some(raw)),
        };
        put(self.out, x);
        if let (Some(raw), Variant::String(s) | Variant::StringName(s)) = (raw, self.out) {
            if self.key {
                self.cache.get_into(raw, self.at + 8, self.dialect, s)?;
            } else {
                owned_text_into(raw, self.at + 8, self.dialect, s)?;
            }
        }
        Ok(())
    }
}

/// Converts a value that is not a container with a body still to read (`v` is sized, or is a
/// PackedStringArray whose strings follow at `r`) into `out`.
fn leaf<'a>(
    v: &VariantRef<'a>,
    r: &mut Reader<'a>,
    budget: &mut usize,
    cache: &mut StrCache<'a>,
    out: &mut Variant,
) -> Result<()> {
    use VariantType as T;
    let at = v.offset();
    match v.ty() {
        T::Nil => *out = Variant::Nil,
        T::Bool => *out = Variant::Bool(v.as_bool()?),
        T::Int => *out = Variant::Int(v.as_i64()?),
        T::Float => *out = Variant::Float(v.as_f64()?),
        T::String => *out = Variant::String(string_of(v)?),
        T::StringName => *out = Variant::StringName(string_of(v)?),
        T::Vector2 => *out = Variant::Vector2(v.as_vector2()?),
        T::Vector2i => *out = Variant::Vector2i(v.as_vector2i()?),
        T::Rect2 => *out = Variant::Rect2(v.as_rect2()?),
        T::Rect2i => *out = Variant::Rect2i(v.as_rect2i()?),
        T::Vector3 => *out = Variant::Vector3(v.as_vector3()?),
        T::Vector3i => *out = Variant::Vector3i(v.as_vector3i()?),
        T::Transform2D => *out = Variant::Transform2D(Box::new(v.as_transform2d()?)),
        T::Vector4 => *out = Variant::Vector4(v.as_vector4()?),
        T::Vector4i => *out = Variant::Vector4i(v.as_vector4i()?),
        T::Plane => *out = Variant::Plane(v.as_plane()?),
        T::Quaternion => *out = Variant::Quaternion(v.as_quaternion()?),
        T::Aabb => *out = Variant::Aabb(Box::new(v.as_aabb()?)),
        T::Basis => *out = Variant::Basis(Box::new(v.as_basis()?)),
        T::Transform3D => *out = Variant::Transform3D(Box::new(v.as_transform3d()?)),
        T::Projection => *out = Variant::Projection(Box::new(v.as_projection()?)),
        T::Color => *out = Variant::Color(v.as_color()?),
        T::NodePath => {
            let np = v.as_node_path()?;
            let mut names = Vec::with_capacity(np.name_count().min(64));
            let mut it = np.names();
            while let Some(s) = it.try_next()? {
                names.push(s.to_string_lossy().into_owned());
            }
            let mut subnames = Vec::with_capacity(np.subname_count().min(64));
            let mut it = np.subnames()?;
            while let Some(s) = it.try_next()? {
                subnames.push(s.to_string_lossy().into_owned());
            }
            // Godot 3 builds a path without names or subnames as the empty path, which is
            // never absolute.
            let absolute = np.is_absolute()
                && !(v.dialect() == Dialect::Godot3 && names.is_empty() && subnames.is_empty());
            *out = Variant::NodePath(Box::new(NodePath {
                names,
                subnames,
                absolute,
            }))
        }
        T::Rid => *out = Variant::Rid(v.as_rid()?),
        T::Callable => *out = Variant::Callable,
        T::Signal => {
            let s = v.as_signal()?;
            *out = Variant::Signal(Signal {
                name: text_string(&s.name, at + 8)?,
                object_id: s.object_id,
            })
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(id) => *out = Variant::Object(Box::new(Object::Id(id))),
            // Only a null full object (empty class) has no body.
            ObjectRef::Full(f) => {
                *out = Variant::Object(Box::new(Object::Full {
                    class: text_string(&f.class_name(), at + 8)?,
                    properties: Vec::new(),
                }))
            }
        },
        // Only reached for containers without a body (never: kept total for safety).
        T::Array => *out = Variant::Array(Array::default()),
        T::Dictionary => *out = Variant::Dictionary(Dictionary::default()),
        T::PackedByteArray => *out = Variant::PackedByteArray(v.as_byte_array()?.to_vec()),
        T::PackedInt32Array => *out = Variant::PackedInt32Array(v.as_packed::<i32>()?.to_vec()),
        T::PackedInt64Array => *out = Variant::PackedInt64Array(v.as_packed::<i64>()?.to_vec()),
        T::PackedFloat32Array => *out = Variant::PackedFloat32Array(v.as_packed::<f32>()?.to_vec()),
        T::PackedFloat64Array => *out = Variant::PackedFloat64Array(v.as_packed::<f64>()?.to_vec()),
        T::PackedStringArray => {
            let strings = if v.body().is_some() {
                read_strings(r, v.h.count, v.dialect(), budget, cache)?
            } else {
                read_strings(&mut v.body_reader(), v.h.count, v.dialect(), budget, cache)?
            };
            *out = Variant::PackedStringArray(strings);
        }
        T::PackedVector2Array => {
            *out = Variant::PackedVector2Array(vectors(v, Vector2::from_array)?)
        }
        T::PackedVector3Array => {
            *out = Variant::PackedVector3Array(vectors(v, Vector3::from_array)?)
        }
        T::PackedVector4Array => {
            *out = Variant::PackedVector4Array(vectors(v, Vector4::from_array)?)
        }
        T::PackedColorArray => *out = Variant::PackedColorArray(v.as_packed::<Color>()?.to_vec()),
    }
    Ok(())
}

/// The elements of a packed Vector2/3/4 array (`N` components), single or double precision, as
/// math structs.
fn vectors<const N: usize, V>(v: &VariantRef<'_>, make: fn([f64; N]) -> V) -> Result<Vec<V>>
where
    [f32; N]: crate::packed::Element,
    [f64; N]: crate::packed::Element,
{
    Ok(if v.is_wide() {
        v.as_packed::<[f64; N]>()?.iter().map(make).collect()
    } else {
        v.as_packed::<[f32; N]>()?
            .iter()
            .map(|a| make(a.map(crate::math::widen)))
            .collect()
    })
}

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
