//! `Clone` and `Debug` for owned trees of any depth: cloning is iterative (a heap stack, never
//! the native one), and `Debug` prints nested containers up to [`DEBUG_DEPTH`] levels and
//! elides what is deeper, so neither can overflow the stack however deep the tree.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::variant::{Array, Dictionary, Object, Variant};

// ----- Clone -----

/// The children of a source container still to clone.
enum Source<'v> {
    Items(core::slice::Iter<'v, Variant>),
    /// Entries; `true` once the current entry's key is cloned (its value is next).
    Entries(
        core::slice::Iter<'v, (Variant, Variant)>,
        Option<&'v Variant>,
    ),
    Props(core::slice::Iter<'v, (String, Variant)>),
}

impl<'v> Source<'v> {
    /// The source children of `v`, if it is a container that has any.
    fn of(v: &'v Variant) -> Option<Source<'v>> {
        match v {
            Variant::Array(a) if !a.items.is_empty() => Some(Source::Items(a.items.iter())),
            Variant::Dictionary(d) if !d.entries.is_empty() => {
                Some(Source::Entries(d.entries.iter(), None))
            }
            Variant::Object(o) => match &**o {
                Object::Full { properties, .. } if !properties.is_empty() => {
                    Some(Source::Props(properties.iter()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The next child, with the property name that comes before it.
    fn next(&mut self) -> Option<(Option<&'v String>, &'v Variant)> {
        match self {
            Source::Items(it) => it.next().map(|x| (None, x)),
            Source::Entries(it, pending) => match pending.take() {
                Some(v) => Some((None, v)),
                None => it.next().map(|(k, v)| {
                    *pending = Some(v);
                    (None, k)
                }),
            },
            Source::Props(it) => it.next().map(|(n, v)| (Some(n), v)),
        }
    }
}

/// `v` without its children: a leaf cloned, a container with its type info (and a
/// dictionary's index) and room for its children.
fn shell(v: &Variant) -> Variant {
    match v {
        Variant::Array(a) => Variant::Array(Array {
            items: Vec::with_capacity(a.items.len()),
            element_type: a.element_type.clone(),
        }),
        Variant::Dictionary(d) => Variant::Dictionary(Dictionary {
            entries: Vec::with_capacity(d.entries.len()),
            extra: d.extra.clone(),
        }),
        Variant::Object(o) => Variant::Object(Box::new(match &**o {
            Object::Id(id) => Object::Id(*id),
            Object::Full { class, properties } => Object::Full {
                class: class.clone(),
                properties: Vec::with_capacity(properties.len()),
            },
        })),
        leaf => leaf.clone_leaf(),
    }
}

/// Adds the cloned child `x` (after the property name `name`) to the container `parent`.
fn adopt(parent: &mut Variant, name: Option<&String>, x: Variant, key: &mut Option<Variant>) {
    match parent {
        Variant::Array(a) => a.items.push(x),
        Variant::Dictionary(d) => match key.take() {
            Some(k) => d.entries.push((k, x)),
            None => *key = Some(x),
        },
        Variant::Object(o) => {
            if let Object::Full { properties, .. } = &mut **o {
                properties.push((name.cloned().unwrap_or_default(), x));
            }
        }
        _ => {}
    }
}

/// A container being cloned: its source children, the clone so far, a dictionary key whose
/// value comes next, and the property name it goes under in its parent (an object's).
struct Frame<'v> {
    source: Source<'v>,
    clone: Variant,
    key: Option<Variant>,
    name: Option<&'v String>,
}

impl Clone for Variant {
    /// A deep copy, made without recursion (any depth is safe).
    fn clone(&self) -> Variant {
        let Some(source) = Source::of(self) else {
            return shell(self);
        };
        let mut top = Frame {
            source,
            clone: shell(self),
            key: None,
            name: None,
        };
        let mut stack: Vec<Frame<'_>> = Vec::new();
        loop {
            match top.source.next() {
                Some((name, child)) => match Source::of(child) {
                    Some(source) => {
                        let frame = Frame {
                            source,
                            clone: shell(child),
                            key: None,
                            name,
                        };
                        stack.push(core::mem::replace(&mut top, frame));
                    }
                    None => adopt(&mut top.clone, name, shell(child), &mut top.key),
                },
                None => match stack.pop() {
                    Some(parent) => {
                        let done = core::mem::replace(&mut top, parent);
                        adopt(&mut top.clone, done.name, done.clone, &mut top.key);
                    }
                    None => return top.clone,
                },
            }
        }
    }
}

// ----- Debug -----

/// How many levels of nested containers `Debug` prints; deeper ones print as `..`.
pub const DEBUG_DEPTH: u32 = 32;

/// A value printed at nesting level `.1`.
struct Shown<'a>(&'a Variant, u32);

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.1;
        match self.0 {
            Variant::Array(a) => f.debug_tuple("Array").field(&ShownArray(a, d)).finish(),
            Variant::Dictionary(x) => f
                .debug_tuple("Dictionary")
                .field(&ShownDictionary(x, d))
                .finish(),
            Variant::Object(o) => f.debug_tuple("Object").field(&ShownObject(o, d)).finish(),
            leaf => leaf.fmt_leaf(f),
        }
    }
}

/// Elided content past [`DEBUG_DEPTH`].
struct Elided;

impl fmt::Debug for Elided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

struct ShownItems<'a>(&'a [Variant], u32);

impl fmt::Debug for ShownItems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 >= DEBUG_DEPTH && !self.0.is_empty() {
            return f.debug_list().entry(&Elided).finish();
        }
        f.debug_list()
            .entries(self.0.iter().map(|x| Shown(x, self.1 + 1)))
            .finish()
    }
}

struct ShownArray<'a>(&'a Array, u32);

impl fmt::Debug for ShownArray<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Array");
        s.field("items", &ShownItems(&self.0.items, self.1));
        if self.0.is_typed() {
            s.field("element_type", self.0.element_type());
        }
        s.finish()
    }
}

struct ShownEntries<'a>(&'a [(Variant, Variant)], u32);

impl fmt::Debug for ShownEntries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 >= DEBUG_DEPTH && !self.0.is_empty() {
            return f.debug_list().entry(&Elided).finish();
        }
        let d = self.1 + 1;
        f.debug_list()
            .entries(self.0.iter().map(|(k, v)| (Shown(k, d), Shown(v, d))))
            .finish()
    }
}

struct ShownDictionary<'a>(&'a Dictionary, u32);

impl fmt::Debug for ShownDictionary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Dictionary");
        s.field("entries", &ShownEntries(&self.0.entries, self.1));
        if self.0.is_typed() {
            s.field("key_type", self.0.key_type());
            s.field("value_type", self.0.value_type());
        }
        s.finish()
    }
}

struct ShownProps<'a>(&'a [(String, Variant)], u32);

impl fmt::Debug for ShownProps<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 >= DEBUG_DEPTH && !self.0.is_empty() {
            return f.debug_list().entry(&Elided).finish();
        }
        let d = self.1 + 1;
        f.debug_list()
            .entries(self.0.iter().map(|(n, v)| (n, Shown(v, d))))
            .finish()
    }
}

struct ShownObject<'a>(&'a Object, u32);

impl fmt::Debug for ShownObject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Object::Id(id) => f.debug_tuple("Id").field(id).finish(),
            Object::Full { class, properties } => f
                .debug_struct("Full")
                .field("class", class)
                .field("properties", &ShownProps(properties, self.1))
                .finish(),
        }
    }
}

impl fmt::Debug for Variant {
    /// The value as `Variant::Int(1)` would be derived to print, with nested containers
    /// printed down to [`DEBUG_DEPTH`] levels (deeper content prints as `..`): bounded
    /// recursion, so any tree prints without overflowing the stack.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Shown(self, 0).fmt(f)
    }
}

impl fmt::Debug for Array {
    /// See [`Variant`'s `Debug`](Variant#impl-Debug-for-Variant).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ShownArray(self, 0).fmt(f)
    }
}

impl fmt::Debug for Dictionary {
    /// See [`Variant`'s `Debug`](Variant#impl-Debug-for-Variant).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ShownDictionary(self, 0).fmt(f)
    }
}

impl fmt::Debug for Object {
    /// See [`Variant`'s `Debug`](Variant#impl-Debug-for-Variant).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ShownObject(self, 0).fmt(f)
    }
}

macro_rules! leaves {
    ($($name:ident),* ; $($unit:ident),*) => {
        impl Variant {
            /// A clone of a value that is not a container (containers: see [`shell`]).
            fn clone_leaf(&self) -> Variant {
                match self {
                    $(Variant::$name(x) => Variant::$name(x.clone()),)*
                    $(Variant::$unit => Variant::$unit,)*
                    Variant::Array(_) | Variant::Dictionary(_) | Variant::Object(_) => shell(self),
                }
            }

            /// Prints a value that is not a container.
            fn fmt_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Variant::$name(x) => f.debug_tuple(stringify!($name)).field(x).finish(),)*
                    $(Variant::$unit => f.write_str(stringify!($unit)),)*
                    Variant::Array(_) | Variant::Dictionary(_) | Variant::Object(_) => {
                        fmt::Debug::fmt(&Shown(self, 0), f)
                    }
                }
            }
        }
    };
}

leaves!(
    Bool, Int, Float, String, Vector2, Vector2i, Rect2, Rect2i, Vector3, Vector3i, Transform2D,
    Vector4, Vector4i, Plane, Quaternion, Aabb, Basis, Transform3D, Projection, Color,
    StringName, NodePath, Rid, Signal, PackedByteArray, PackedInt32Array, PackedInt64Array,
    PackedFloat32Array, PackedFloat64Array, PackedStringArray, PackedVector2Array,
    PackedVector3Array, PackedColorArray, PackedVector4Array, Raw;
    Nil, Callable
);
