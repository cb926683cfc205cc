//! Containers being decoded: the children so far of an Array, a Dictionary (its repeated keys
//! merged as the engine merges them) or an Object, how much each may reserve, and the owned
//! forms of borrowed container type info.

use crate::array::{container_types, ContainerType};
use crate::error::Result;
use crate::object::ObjectRef;
use crate::owned::*;
use crate::strings::Text;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::strings::{same_bytes, text_string};
use crate::types::{Dialect, ReadOptions, VariantType};
use crate::value::VariantRef;

use crate::owned::index::{Index, KeyState, SCAN_MAX};
use crate::owned::key::{key_info, same_key};
use crate::owned::type_info::{boxed_type, boxed_types};

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

/// A container being converted: its children so far and its type info.
pub(super) enum Building {
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
pub(super) struct DictBuilder {
    /// The entries so far; while `pending`, the last one is a key read whose value comes next
    /// (with a Nil value until then).
    pub(super) entries: Vec<(Variant, Variant)>,
    pub(super) types: Option<Box<(TypeInfo, TypeInfo)>>,
    pub(super) pending: bool,
    /// A bit per fingerprint of the String and StringName keys so far (see [`fingerprint`]):
    /// a string key whose bit is clear repeats no key, and needs no scan.
    pub(super) strings: u64,
    /// The hash index, once there are more than [`SCAN_MAX`] entries.
    index: Option<Index>,
}

impl DictBuilder {
    /// Takes a key or a value.
    #[inline]
    pub(super) fn push(&mut self, x: Variant, rule: Dialect) {
        if self.pending {
            self.value(x, rule);
        } else {
            self.entries.push((x, Variant::Nil));
            self.pending = true;
        }
    }

    /// Sets the value of the pending key: the last entry's, or, if an earlier key is the same
    /// key, that entry's (and the last entry goes).
    // gs_to_owned +3 % without (layout-pinned A/B, with get_into, plain_short, convert, value)
    #[inline(always)]
    pub(super) fn value(&mut self, x: Variant, rule: Dialect) {
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
                // in_to_owned +19 %, gs_to_owned +7 % time with drops in place of decode/'s four forgets (layout-pinned A/B)
                core::mem::forget(core::mem::replace(slot, x));
                self.grown(rule);
            }
        }
    }

    /// Takes the pair just put at the end of the entries whole (no key was pending): if an
    /// earlier key is the same key, the value replaces that entry's, and the last entry goes.
    #[inline]
    pub(super) fn placed(&mut self, rule: Dialect) {
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
    #[inline]
    fn grown(&mut self, rule: Dialect) {
        if self.index.is_none() && self.entries.len() > SCAN_MAX {
            self.build_index(rule);
        }
    }

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

    pub(super) fn finish(mut self, opts: &ReadOptions) -> Dictionary {
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
// in_to_owned +34 % without (layout-pinned A/B; outlined with plain_leaf_into)
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

/// A 6-bit fingerprint of a key's text: equal texts have equal fingerprints. (A new key whose
/// bit is clear skips the scan of the keys before it: without it, in_to_owned +25 % and
/// gs_to_owned +12 % instructions, callgrind.)
#[inline]
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
#[inline]
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
pub(super) fn capacity(count: u32, remaining: usize, min_size: usize, budget: &mut usize) -> usize {
    let n = (count as usize).min(remaining / min_size).min(*budget);
    *budget -= n;
    n
}

impl Building {
    /// Adds a converted child: an element, a key or its value, a property value.
    #[inline]
    pub(super) fn push(&mut self, x: Variant, rule: Dialect) {
        match self {
            Building::Array { items, .. } => items.push(x),
            Building::Dict(d) => d.push(x, rule),
            Building::Object { props, name, .. } => {
                props.push((name.take().unwrap_or_default(), x));
            }
        }
    }

    /// Whether the next child is a dictionary key.
    #[inline]
    pub(super) fn wants_key(&self) -> bool {
        matches!(self, Building::Dict(d) if !d.pending)
    }

    pub(super) fn finish(self, opts: &ReadOptions) -> Variant {
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

/// Opens the container whose [`Begin`](crate::walker::Event::Begin) event is `v`, with `remaining` bytes of
/// input after its head.
pub(super) fn open_container(
    v: &VariantRef<'_>,
    remaining: usize,
    budget: &mut usize,
) -> Result<Building> {
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
