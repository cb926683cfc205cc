//! [`Variant`] and the owned containers it holds ([`Array`], [`Dictionary`], [`Object`],
//! [`NodePath`], [`Signal`]): their definitions, accessors, iterative drop, equality and the
//! `From` conversions of Rust values. The [module docs](super) say how they behave.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::gstring::GString;
use super::index::{ContentHash, Index};
use super::raw::RawValue;
use super::type_info::{boxed_type, TypeInfo, UNTYPED};
use crate::math::*;
use crate::types::VariantType;

/// An owned Variant of either dialect.
///
/// Build it by hand (`Variant::from(42)`, `Variant::from("text")`, `vec![...].into()`), or from
/// a received value with [`VariantRef::to_owned`](crate::VariantRef::to_owned); write it with
/// [`encode`](crate::encode()).
///
/// ```
/// use gdvariant::{Variant, math::Vector3};
/// let v = Variant::from(vec![Variant::from(1), "two".into(), Vector3::new(1.0, 2.0, 3.0).into()]);
/// assert_eq!(v.as_array().unwrap().items[1].as_str(), Some("two"));
/// let bytes = gdvariant::encode(&v).unwrap();
/// assert_eq!(gdvariant::parse(&bytes).unwrap().to_owned().unwrap(), v);
/// ```
///
/// # Size
///
/// A `Variant` is 40 bytes, so that big trees (an array of thousands of dictionaries) stay
/// compact and cheap to build. The large, rarely used payloads are boxed: [`Transform2D`],
/// [`Aabb`], [`Basis`], [`Transform3D`], [`Projection`], [`NodePath`] and [`Object`]. The
/// `From` conversions box them for you, and matching gives a `Box` that derefs to the value:
///
/// ```
/// use gdvariant::{math::Basis, Variant, math::Vector3};
/// let b = Basis::from_axes(Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0), Vector3::new(0.0, 0.0, 1.0));
/// let v = Variant::from(b);
/// let Variant::Basis(boxed) = &v else { unreachable!() };
/// assert_eq!(**boxed, b);
/// ```
///
/// A typed [`Array`] or [`Dictionary`] keeps its type info out of line too (see
/// [`Array::element_type`]); untyped containers, by far the most common, allocate nothing for
/// it.
#[derive(Default)]
#[allow(missing_docs)]
pub enum Variant {
    /// `null`.
    #[default]
    Nil,
    Bool(bool),
    /// A 64-bit integer (written in 32 bits when it fits, as the engine does).
    Int(i64),
    /// A float (written as f32 when that is exact, as the engine does).
    Float(f64),
    /// A String: its text (short texts are stored inline, see [`GString`]).
    String(GString),
    Vector2(Vector2),
    Vector2i(Vector2i),
    Rect2(Rect2),
    Rect2i(Rect2i),
    Vector3(Vector3),
    Vector3i(Vector3i),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Transform2D(Box<Transform2D>),
    Vector4(Vector4),
    Vector4i(Vector4i),
    Plane(Plane),
    Quaternion(Quaternion),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Aabb(Box<Aabb>),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Basis(Box<Basis>),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Transform3D(Box<Transform3D>),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Projection(Box<Projection>),
    Color(Color),
    /// A StringName (Godot 4), by its text.
    StringName(GString),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    NodePath(Box<NodePath>),
    /// A RID by its id. Godot 3 RIDs carry no id on the wire (they read as 0).
    Rid(u64),
    /// Boxed to keep `Variant` small; `Variant::from` boxes it.
    Object(Box<Object>),
    /// A Callable: always empty on the wire.
    Callable,
    Signal(Signal),
    Dictionary(Dictionary),
    Array(Array),
    PackedByteArray(Vec<u8>),
    PackedInt32Array(Vec<i32>),
    PackedInt64Array(Vec<i64>),
    PackedFloat32Array(Vec<f32>),
    PackedFloat64Array(Vec<f64>),
    PackedStringArray(Vec<GString>),
    PackedVector2Array(Vec<Vector2>),
    PackedVector3Array(Vec<Vector3>),
    PackedColorArray(Vec<Color>),
    PackedVector4Array(Vec<Vector4>),
    /// An already-encoded value (a sub-tree of a received packet), written unchanged.
    Raw(RawValue),
}

/// A NodePath: names, subnames (the property path) and whether it is absolute.
///
/// `"/root/a:prop"` is `names = ["root", "a"]`, `subnames = ["prop"]`, `absolute = true`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodePath {
    /// The node names.
    pub names: Vec<String>,
    /// The subnames (property path).
    pub subnames: Vec<String>,
    /// Whether the path starts with `/`.
    pub absolute: bool,
}

/// An Object: an instance id, or a full object (class name and properties).
#[derive(Clone)]
pub enum Object {
    /// The "as id" form: an instance id; 0 is the null object.
    Id(u64),
    /// A full object, as `var_to_bytes_with_objects` writes it. An empty class name is the null
    /// object.
    Full {
        /// The class name.
        class: String,
        /// The properties in order.
        properties: Vec<(String, Variant)>,
    },
}

/// A Signal (Godot 4): a name and the instance id of the object that owns it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Signal {
    /// The signal's name.
    pub name: String,
    /// The owning object's instance id.
    pub object_id: u64,
}

/// A Dictionary: the entries in insertion order and optional key and value types (Godot 4.4+
/// typed dictionaries).
///
/// Keys may be of any type, and two keys are the same key exactly when they are in the
/// engine's Dictionary (see the rules below). [`insert`](Dictionary::insert) replaces the value
/// of the same key in place (keeping the first key and its position), as the engine does;
/// otherwise the entry is appended. Insert and lookup take O(1) expected time: dictionaries of
/// more than a few entries keep a hash index of their keys.
///
/// ```
/// use gdvariant::{Dictionary, Variant};
/// let mut d = Dictionary::new();
/// d.insert("hp", 10);
/// d.insert(1, "int key");
/// d.insert(1.0, "float key");                          // 1 and 1.0 are different keys
/// d.insert(Variant::StringName("hp".into()), 12);      // "hp" and &"hp" are the same key
/// assert_eq!(d.len(), 3);
/// assert_eq!(d.get_str("hp"), Some(&Variant::Int(12)));
/// assert_eq!(d.entries()[0].0, Variant::from("hp"));  // the first key is kept
/// d.insert(f64::NAN, 1);
/// d.insert(-f64::NAN, 2);                              // every NaN is the same key
/// assert_eq!(d.get(&f64::NAN.into()), Some(&Variant::Int(2)));
/// ```
///
/// # Which keys are the same key
///
/// Godot 4's rule, checked against the engine: keys of different types are different keys
/// (`1`, `1.0` and `"1"` are three keys) except a String and a StringName of the same text;
/// floats, vectors, colors, transforms and the elements of packed float, vector and color
/// arrays compare with `-0.0` equal to `0.0` and NaN equal to NaN; arrays compare element by
/// element, but a float element with plain `==` (an array holding a NaN equals no array);
/// dictionaries compare entry by entry in order; a non-null object is a distinct instance
/// (equal to no key, not even an equal-looking object). Container element types do not
/// matter. [`VariantRef::to_owned`](crate::VariantRef::to_owned) merges the repeated keys of
/// the bytes as the engine's `bytes_to_var` does, by the rule of the bytes' dialect (Godot 3's
/// differs in a few corners: see [`insert_with`](Dictionary::insert_with)).
///
/// This is not `Variant`'s `==`, which compares floats by their bits (so `-0.0 != 0.0`):
/// [`PartialEq`] on dictionaries compares their entries in order with `Variant`'s `==`.
///
/// # Type info
///
/// The key and value types are kept out of line, so an untyped dictionary is just its `Vec`;
/// read them with [`key_type`](Dictionary::key_type) and [`value_type`](Dictionary::value_type),
/// set them with [`typed`](Dictionary::typed) or [`set_types`](Dictionary::set_types).
#[derive(Clone, Default)]
pub struct Dictionary {
    /// The entries in insertion order.
    pub(crate) entries: Vec<(Variant, Variant)>,
    /// The type info and the index; `None` for an untyped dictionary of at most
    /// [`SCAN_MAX`](super::index::SCAN_MAX) entries.
    pub(crate) extra: Option<Box<Extra>>,
}

/// The out-of-line parts of a [`Dictionary`].
#[derive(Clone, Debug)]
pub(crate) struct Extra {
    /// The key and value types.
    pub(crate) types: (TypeInfo, TypeInfo),
    /// The hash index of the keys, for more than [`SCAN_MAX`](super::index::SCAN_MAX) entries.
    pub(crate) index: Option<Index>,
    /// The dictionary's own hash as a key, once a key holding it was hashed.
    pub(crate) hash: ContentHash,
}

/// An Array: the elements and an optional element type (Godot 4.3+ typed arrays).
///
/// The element type is kept out of line, so an untyped array is just its `Vec`; read it with
/// [`element_type`](Array::element_type), set it with [`typed`](Array::typed) or
/// [`set_element_type`](Array::set_element_type).
///
/// ```
/// use gdvariant::{Array, owned::TypeInfo, Variant, VariantType};
/// let a = Array::typed(TypeInfo::Builtin(VariantType::Int), vec![Variant::Int(1)]);
/// assert_eq!(a.element_type(), &TypeInfo::Builtin(VariantType::Int));
/// assert_eq!(Array::new(vec![]).element_type(), &TypeInfo::None);
/// ```
#[derive(Clone, Default)]
pub struct Array {
    /// The elements.
    pub items: Vec<Variant>,
    /// The element type; `None` when untyped (never `Some(TypeInfo::None)`).
    pub(crate) element_type: Option<Box<TypeInfo>>,
}

impl Array {
    /// An untyped array of `items`.
    pub fn new(items: Vec<Variant>) -> Array {
        Array {
            items,
            element_type: None,
        }
    }

    /// An array of `items` with the element type `element_type` ([`TypeInfo::None`] makes an
    /// untyped array).
    pub fn typed(element_type: TypeInfo, items: Vec<Variant>) -> Array {
        Array {
            items,
            element_type: boxed_type(element_type),
        }
    }

    /// The element type; [`TypeInfo::None`] when untyped.
    #[inline]
    pub fn element_type(&self) -> &TypeInfo {
        self.element_type.as_deref().unwrap_or(&UNTYPED)
    }

    /// Sets the element type ([`TypeInfo::None`] makes the array untyped).
    pub fn set_element_type(&mut self, element_type: TypeInfo) {
        self.element_type = boxed_type(element_type);
    }

    /// Whether the array has an element type.
    #[inline]
    pub fn is_typed(&self) -> bool {
        self.element_type.is_some()
    }

    /// Takes the elements out, leaving the array empty.
    pub fn take_items(&mut self) -> Vec<Variant> {
        core::mem::take(&mut self.items)
    }
}

impl FromIterator<Variant> for Array {
    fn from_iter<I: IntoIterator<Item = Variant>>(iter: I) -> Self {
        Array::new(iter.into_iter().collect())
    }
}

impl Variant {
    /// The value's type. For [`Variant::Raw`], the type its header names (Nil if unreadable).
    pub fn ty(&self) -> VariantType {
        use VariantType as T;
        match self {
            Variant::Nil => T::Nil,
            Variant::Bool(_) => T::Bool,
            Variant::Int(_) => T::Int,
            Variant::Float(_) => T::Float,
            Variant::String(_) => T::String,
            Variant::Vector2(_) => T::Vector2,
            Variant::Vector2i(_) => T::Vector2i,
            Variant::Rect2(_) => T::Rect2,
            Variant::Rect2i(_) => T::Rect2i,
            Variant::Vector3(_) => T::Vector3,
            Variant::Vector3i(_) => T::Vector3i,
            Variant::Transform2D(_) => T::Transform2D,
            Variant::Vector4(_) => T::Vector4,
            Variant::Vector4i(_) => T::Vector4i,
            Variant::Plane(_) => T::Plane,
            Variant::Quaternion(_) => T::Quaternion,
            Variant::Aabb(_) => T::Aabb,
            Variant::Basis(_) => T::Basis,
            Variant::Transform3D(_) => T::Transform3D,
            Variant::Projection(_) => T::Projection,
            Variant::Color(_) => T::Color,
            Variant::StringName(_) => T::StringName,
            Variant::NodePath(_) => T::NodePath,
            Variant::Rid(_) => T::Rid,
            Variant::Object(_) => T::Object,
            Variant::Callable => T::Callable,
            Variant::Signal(_) => T::Signal,
            Variant::Dictionary(_) => T::Dictionary,
            Variant::Array(_) => T::Array,
            Variant::PackedByteArray(_) => T::PackedByteArray,
            Variant::PackedInt32Array(_) => T::PackedInt32Array,
            Variant::PackedInt64Array(_) => T::PackedInt64Array,
            Variant::PackedFloat32Array(_) => T::PackedFloat32Array,
            Variant::PackedFloat64Array(_) => T::PackedFloat64Array,
            Variant::PackedStringArray(_) => T::PackedStringArray,
            Variant::PackedVector2Array(_) => T::PackedVector2Array,
            Variant::PackedVector3Array(_) => T::PackedVector3Array,
            Variant::PackedColorArray(_) => T::PackedColorArray,
            Variant::PackedVector4Array(_) => T::PackedVector4Array,
            Variant::Raw(r) => r.ty().unwrap_or(T::Nil),
        }
    }

    /// Whether the value is Nil.
    pub fn is_nil(&self) -> bool {
        matches!(self, Variant::Nil)
    }

    /// The int, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Variant::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The float, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Variant::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Variant::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The text of a String or StringName.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Variant::String(s) | Variant::StringName(s) => Some(s),
            _ => None,
        }
    }

    /// The Array, if this is one.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Variant::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The Dictionary, if this is one.
    pub fn as_dictionary(&self) -> Option<&Dictionary> {
        match self {
            Variant::Dictionary(d) => Some(d),
            _ => None,
        }
    }

    /// Whether the value holds other Variants (a non-empty Array, Dictionary or full Object).
    #[inline]
    fn has_children(&self) -> bool {
        match self {
            Variant::Array(a) => !a.items.is_empty(),
            Variant::Dictionary(d) => !d.entries.is_empty(),
            Variant::Object(o) => {
                matches!(&**o, Object::Full { properties, .. } if !properties.is_empty())
            }
            _ => false,
        }
    }

    /// Calls `f` on each child value (dictionary keys and values, object property values).
    #[inline]
    fn for_each_child(&mut self, mut f: impl FnMut(&mut Variant)) {
        match self {
            Variant::Array(a) => a.items.iter_mut().for_each(f),
            Variant::Dictionary(d) => {
                for (k, v) in &mut d.entries {
                    f(k);
                    f(v);
                }
            }
            Variant::Object(o) => {
                if let Object::Full { properties, .. } = &mut **o {
                    properties.iter_mut().for_each(|(_, v)| f(v))
                }
            }
            _ => {}
        }
    }
}

// ----- dropping deep trees without recursion -----

/// Whether `v` has a child that has children: dropping it normally would recurse more than two
/// levels.
#[inline]
fn is_deep(v: &Variant) -> bool {
    match v {
        Variant::Array(a) => a.items.iter().any(Variant::has_children),
        Variant::Dictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| k.has_children() || v.has_children()),
        Variant::Object(o) => match &**o {
            Object::Full { properties, .. } => properties.iter().any(|(_, v)| v.has_children()),
            Object::Id(_) => false,
        },
        _ => false,
    }
}

/// Moves `c` onto `stack` if it is deep (dropping it in place could recurse more than two
/// levels); a shallow `c` stays, to be dropped with its parent.
#[inline]
fn take_if_deep(c: &mut Variant, stack: &mut Vec<Variant>) {
    if is_deep(c) {
        stack.push(core::mem::take(c));
    }
}

/// Drops `items` last first. The allocator sees the most recent allocations freed first: with
/// glibc's malloc, freeing a large tree first-first hands the whole heap back to the system at
/// the end (to be faulted in again by the next tree: about 1 500 page faults per drop of the
/// benchmark's game state), last-first does not.
/// Small vectors (most dictionaries and arrays of a packet) are dropped in place, as usual.
#[inline]
fn drop_last_first<T>(items: &mut Vec<T>) {
    if items.len() > 64 {
        while let Some(x) = items.pop() {
            drop(x);
        }
    }
}

/// Drops the values of `stack` without native recursion: each value popped gives up its deep
/// children (onto the stack), then drops the others, which are shallow: no drop goes more than
/// two levels down.
///
/// The containers' `Drop` impls use this only for their deep children; shallow trees are
/// dropped normally.
fn drop_stack(mut stack: Vec<Variant>) {
    while let Some(mut v) = stack.pop() {
        v.for_each_child(|c| take_if_deep(c, &mut stack));
        // The children left are shallow: drop them here, sparing `v`'s own pass over them.
        match &mut v {
            Variant::Array(a) => drop_last_first(&mut a.items),
            Variant::Dictionary(d) => drop_last_first(&mut d.entries),
            Variant::Object(o) => {
                if let Object::Full { properties, .. } = &mut **o {
                    drop_last_first(properties);
                }
            }
            _ => {}
        }
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        let mut stack = Vec::new();
        // As a Dictionary's pairs: last first, elements that own nothing without calls.
        while let Some(mut c) = self.items.pop() {
            if owns_nothing(&c) {
                continue;
            }
            take_if_deep(&mut c, &mut stack);
        }
        if !stack.is_empty() {
            drop_stack(stack);
        }
    }
}

impl Drop for Dictionary {
    fn drop(&mut self) {
        // Most dictionaries of a packet own nothing but their entries' allocation (inline
        // string keys, numbers, short string values): a pass by reference from the end finds
        // the last pair that owns something, and the pairs after it are let go without a drop
        // call or a move each (all of them, usually).
        let owning = self
            .entries
            .iter()
            .rposition(|(k, v)| !(owns_nothing(k) && owns_nothing(v)));
        let keep = owning.map_or(0, |at| at + 1);
        while self.entries.len() > keep {
            if let Some(pair) = self.entries.pop() {
                // Forgotten, not dropped: input packet to_owned -12 % instructions.
                core::mem::forget(pair);
            }
        }
        if keep == 0 {
            return;
        }
        let mut stack = Vec::new();
        // Last first (see `drop_last_first`), by reference: what a key or value owns is taken
        // out (onto the stack if it is deep, else dropped here), leaving a Nil; the pairs that
        // own nothing are not moved. Then every pair owns nothing and goes without a call.
        for (k, v) in self.entries.iter_mut().rev() {
            for x in [v, k] {
                if !owns_nothing(x) {
                    let x = core::mem::take(x);
                    if is_deep(&x) {
                        stack.push(x);
                    }
                }
            }
        }
        while let Some(pair) = self.entries.pop() {
            // Forgotten, not dropped: see above (input packet to_owned -12 % instructions).
            core::mem::forget(pair);
        }
        if !stack.is_empty() {
            drop_stack(stack);
        }
    }
}

/// Whether `v` owns no allocation (dropping it does nothing): a scalar, a math value, an
/// inline string.
#[inline]
fn owns_nothing(v: &Variant) -> bool {
    match v {
        Variant::String(s) | Variant::StringName(s) => s.is_inline(),
        Variant::Nil
        | Variant::Bool(_)
        | Variant::Int(_)
        | Variant::Float(_)
        | Variant::Vector2(_)
        | Variant::Vector2i(_)
        | Variant::Rect2(_)
        | Variant::Rect2i(_)
        | Variant::Vector3(_)
        | Variant::Vector3i(_)
        | Variant::Vector4(_)
        | Variant::Vector4i(_)
        | Variant::Plane(_)
        | Variant::Quaternion(_)
        | Variant::Color(_)
        | Variant::Rid(_)
        | Variant::Callable => true,
        _ => false,
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if let Object::Full { properties, .. } = self {
            let mut stack = Vec::new();
            properties
                .iter_mut()
                .for_each(|(_, v)| take_if_deep(v, &mut stack));
            if !stack.is_empty() {
                drop_stack(stack);
            }
            drop_last_first(properties);
        }
    }
}

// ----- equality: floats by bits, iterative -----

#[inline]
fn bits_eq<const N: usize>(a: [f64; N], b: [f64; N]) -> bool {
    a.iter()
        .zip(b.iter())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

#[inline]
fn f32s_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[inline]
fn f64s_eq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn colors_eq(a: &[Color], b: &[Color]) -> bool {
    f32s_eq(bytemuck::cast_slice(a), bytemuck::cast_slice(b))
}

/// Compares two values shallowly (floats by bits); for containers compares the type info and
/// lengths and pushes the children pairs onto `stack`.
fn shallow_eq<'a>(
    a: &'a Variant,
    b: &'a Variant,
    stack: &mut Vec<(&'a Variant, &'a Variant)>,
) -> bool {
    use Variant as V;
    match (a, b) {
        (V::Nil, V::Nil) | (V::Callable, V::Callable) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Int(x), V::Int(y)) => x == y,
        (V::Float(x), V::Float(y)) => x.to_bits() == y.to_bits(),
        (V::String(x), V::String(y)) | (V::StringName(x), V::StringName(y)) => x == y,
        (V::Vector2(x), V::Vector2(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Vector2i(x), V::Vector2i(y)) => x == y,
        (V::Rect2(x), V::Rect2(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Rect2i(x), V::Rect2i(y)) => x == y,
        (V::Vector3(x), V::Vector3(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Vector3i(x), V::Vector3i(y)) => x == y,
        (V::Transform2D(x), V::Transform2D(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Vector4(x), V::Vector4(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Vector4i(x), V::Vector4i(y)) => x == y,
        (V::Plane(x), V::Plane(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Quaternion(x), V::Quaternion(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Aabb(x), V::Aabb(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Basis(x), V::Basis(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Transform3D(x), V::Transform3D(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Projection(x), V::Projection(y)) => bits_eq(x.to_array(), y.to_array()),
        (V::Color(x), V::Color(y)) => f32s_eq(&x.to_array(), &y.to_array()),
        (V::NodePath(x), V::NodePath(y)) => x == y,
        (V::Rid(x), V::Rid(y)) => x == y,
        (V::Signal(x), V::Signal(y)) => x == y,
        (V::Object(x), V::Object(y)) => match (&**x, &**y) {
            (Object::Id(x), Object::Id(y)) => x == y,
            (
                Object::Full {
                    class: c1,
                    properties: p1,
                },
                Object::Full {
                    class: c2,
                    properties: p2,
                },
            ) => {
                if c1 != c2 || p1.len() != p2.len() {
                    return false;
                }
                for ((n1, v1), (n2, v2)) in p1.iter().zip(p2) {
                    if n1 != n2 {
                        return false;
                    }
                    stack.push((v1, v2));
                }
                true
            }
            _ => false,
        },
        (V::Array(x), V::Array(y)) => {
            if x.element_type() != y.element_type() || x.items.len() != y.items.len() {
                return false;
            }
            stack.extend(x.items.iter().zip(&y.items));
            true
        }
        (V::Dictionary(x), V::Dictionary(y)) => {
            if x.key_type() != y.key_type()
                || x.value_type() != y.value_type()
                || x.entries.len() != y.entries.len()
            {
                return false;
            }
            for ((k1, v1), (k2, v2)) in x.entries.iter().zip(&y.entries) {
                stack.push((k1, k2));
                stack.push((v1, v2));
            }
            true
        }
        (V::PackedByteArray(x), V::PackedByteArray(y)) => x == y,
        (V::PackedInt32Array(x), V::PackedInt32Array(y)) => x == y,
        (V::PackedInt64Array(x), V::PackedInt64Array(y)) => x == y,
        (V::PackedFloat32Array(x), V::PackedFloat32Array(y)) => f32s_eq(x, y),
        (V::PackedFloat64Array(x), V::PackedFloat64Array(y)) => f64s_eq(x, y),
        (V::PackedStringArray(x), V::PackedStringArray(y)) => x == y,
        (V::PackedVector2Array(x), V::PackedVector2Array(y)) => {
            f64s_eq(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedVector3Array(x), V::PackedVector3Array(y)) => {
            f64s_eq(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedVector4Array(x), V::PackedVector4Array(y)) => {
            f64s_eq(bytemuck::cast_slice(x), bytemuck::cast_slice(y))
        }
        (V::PackedColorArray(x), V::PackedColorArray(y)) => colors_eq(x, y),
        (V::Raw(x), V::Raw(y)) => x == y,
        _ => false,
    }
}

impl PartialEq for Variant {
    /// Structural equality with floats compared by bits (see the [module docs](super)).
    fn eq(&self, other: &Variant) -> bool {
        let mut stack = Vec::new();
        if !shallow_eq(self, other, &mut stack) {
            return false;
        }
        while let Some((a, b)) = stack.pop() {
            if !shallow_eq(a, b, &mut stack) {
                return false;
            }
        }
        true
    }
}

impl Eq for Variant {}

impl PartialEq for Array {
    fn eq(&self, other: &Array) -> bool {
        self.element_type() == other.element_type()
            && self.items.len() == other.items.len()
            && self.items.iter().zip(&other.items).all(|(a, b)| a == b)
    }
}
impl Eq for Array {}

impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        match (self, other) {
            (Object::Id(a), Object::Id(b)) => a == b,
            (
                Object::Full {
                    class: c1,
                    properties: p1,
                },
                Object::Full {
                    class: c2,
                    properties: p2,
                },
            ) => c1 == c2 && p1 == p2,
            _ => false,
        }
    }
}
impl Eq for Object {}

// ----- conversions from Rust values -----

macro_rules! from_into {
    ($($t:ty => $variant:ident via $conv:expr),* $(,)?) => {$(
        impl From<$t> for Variant {
            #[inline]
            fn from(v: $t) -> Variant {
                #[allow(clippy::redundant_closure_call)]
                Variant::$variant(($conv)(v))
            }
        }
    )*};
}

from_into!(
    bool => Bool via |v| v,
    i64 => Int via |v| v,
    i32 => Int via i64::from,
    i16 => Int via i64::from,
    i8 => Int via i64::from,
    u32 => Int via i64::from,
    u16 => Int via i64::from,
    u8 => Int via i64::from,
    f64 => Float via |v| v,
    f32 => Float via f64::from,
    GString => String via |v| v,
    String => String via GString::from,
    &String => String via GString::from,
    &str => String via GString::from,
    Vector2 => Vector2 via |v| v,
    Vector2i => Vector2i via |v| v,
    Rect2 => Rect2 via |v| v,
    Rect2i => Rect2i via |v| v,
    Vector3 => Vector3 via |v| v,
    Vector3i => Vector3i via |v| v,
    Transform2D => Transform2D via Box::new,
    Box<Transform2D> => Transform2D via |v| v,
    Vector4 => Vector4 via |v| v,
    Vector4i => Vector4i via |v| v,
    Plane => Plane via |v| v,
    Quaternion => Quaternion via |v| v,
    Aabb => Aabb via Box::new,
    Box<Aabb> => Aabb via |v| v,
    Basis => Basis via Box::new,
    Box<Basis> => Basis via |v| v,
    Transform3D => Transform3D via Box::new,
    Box<Transform3D> => Transform3D via |v| v,
    Projection => Projection via Box::new,
    Box<Projection> => Projection via |v| v,
    Color => Color via |v| v,
    NodePath => NodePath via Box::new,
    Box<NodePath> => NodePath via |v| v,
    Object => Object via Box::new,
    Box<Object> => Object via |v| v,
    Signal => Signal via |v| v,
    Dictionary => Dictionary via |v| v,
    Array => Array via |v| v,
    RawValue => Raw via |v| v,
    Vec<Variant> => Array via Array::new,
    Vec<u8> => PackedByteArray via |v| v,
    &[u8] => PackedByteArray via <[u8]>::to_vec,
    Vec<i32> => PackedInt32Array via |v| v,
    &[i32] => PackedInt32Array via <[i32]>::to_vec,
    Vec<i64> => PackedInt64Array via |v| v,
    &[i64] => PackedInt64Array via <[i64]>::to_vec,
    Vec<f32> => PackedFloat32Array via |v| v,
    &[f32] => PackedFloat32Array via <[f32]>::to_vec,
    Vec<f64> => PackedFloat64Array via |v| v,
    &[f64] => PackedFloat64Array via <[f64]>::to_vec,
    Vec<GString> => PackedStringArray via |v| v,
    Vec<String> => PackedStringArray via |v: Vec<String>| v.into_iter().map(GString::from).collect(),
    Vec<&str> => PackedStringArray via |v: Vec<&str>| v.into_iter().map(GString::from).collect(),
    &[&str] => PackedStringArray via |v: &[&str]| v.iter().map(|s| GString::from(*s)).collect(),
    &[String] => PackedStringArray via |v: &[String]| v.iter().map(GString::from).collect(),
    Vec<Vector2> => PackedVector2Array via |v| v,
    &[Vector2] => PackedVector2Array via <[Vector2]>::to_vec,
    Vec<Vector3> => PackedVector3Array via |v| v,
    &[Vector3] => PackedVector3Array via <[Vector3]>::to_vec,
    Vec<Color> => PackedColorArray via |v| v,
    &[Color] => PackedColorArray via <[Color]>::to_vec,
    Vec<Vector4> => PackedVector4Array via |v| v,
    &[Vector4] => PackedVector4Array via <[Vector4]>::to_vec,
);

impl<T: Into<Variant>> From<Option<T>> for Variant {
    /// `None` is Nil.
    fn from(v: Option<T>) -> Variant {
        v.map_or(Variant::Nil, Into::into)
    }
}

impl From<()> for Variant {
    /// `()` is Nil.
    fn from(_: ()) -> Variant {
        Variant::Nil
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Big trees are mostly `Variant`s: every array element and every dictionary key and value
    /// is one, so their size sets the memory (and time) `to_owned` spends on a packet. The large,
    /// rare payloads are boxed and container type info is out of line to keep this small.
    #[test]
    fn variant_is_at_most_40_bytes() {
        assert!(core::mem::size_of::<Variant>() <= 40);
        assert!(core::mem::size_of::<Array>() <= 32);
        assert!(core::mem::size_of::<Dictionary>() <= 32);
    }

    #[test]
    fn type_info_is_normalized() {
        let mut a = Array::typed(TypeInfo::None, Vec::new());
        assert!(!a.is_typed());
        a.set_element_type(TypeInfo::Builtin(VariantType::Int));
        assert_eq!(a.element_type(), &TypeInfo::Builtin(VariantType::Int));
        assert_ne!(a, Array::default());
        a.set_element_type(TypeInfo::None);
        assert_eq!(a, Array::default());

        let mut d = Dictionary::new();
        d.set_value_type(TypeInfo::ClassName("Node".into()));
        assert_eq!(d.key_type(), &TypeInfo::None);
        d.set_key_type(TypeInfo::Builtin(VariantType::String));
        assert_eq!(d.value_type(), &TypeInfo::ClassName("Node".into()));
        d.set_value_type(TypeInfo::None);
        assert!(d.is_typed());
        d.set_key_type(TypeInfo::None);
        assert!(!d.is_typed());
        assert_eq!(d, Dictionary::new());
    }
}
