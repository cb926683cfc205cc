//! [`Variant`]: an owned Variant tree, built by hand or from a [`VariantRef`].
//!
//! The owned types mirror the borrowed views: [`Array`] / [`ArrayRef`](crate::ArrayRef),
//! [`Dictionary`] / [`DictionaryRef`](crate::DictionaryRef), [`Object`] /
//! [`ObjectRef`], [`NodePath`] / [`NodePathRef`](crate::NodePathRef),
//! [`TypeInfo`] / [`ContainerType`]. Math types are shared with the
//! reader ([`crate::math`]).
//!
//! # Equality
//!
//! `Variant`'s [`PartialEq`] is structural and compares floats **by their bits**: a NaN equals
//! the same NaN, and `-0.0 != 0.0`. That makes it an equivalence relation (`Eq` holds), and makes
//! round-trip tests meaningful: `encode` then `to_owned` gives back an equal tree. Dictionaries
//! compare their entries in order. [`Variant::Raw`] values compare by dialect and bytes.
//!
//! # Deep trees
//!
//! Conversion from a [`VariantRef`], encoding, equality and dropping never recurse on the native
//! stack, so trees nested far deeper than the engine's limit of 1024 are safe to build, compare
//! and drop. `Clone` and `Debug` are the derived, recursive ones.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::array::{container_types, ContainerType};
use crate::error::{Error, ErrorKind, Result};
use crate::math::*;
use crate::object::ObjectRef;
use crate::reader::Reader;
use crate::text::{check as check_text, engine_text, Text};
use crate::types::{Dialect, VariantType, FLAG_64};
use crate::validate::check_script;
use crate::value::{head, VariantRef};

/// An owned Variant of either dialect.
///
/// Build it by hand (`Variant::from(42)`, `Variant::from("text")`, `vec![...].into()`), or from
/// a received value with [`VariantRef::to_owned`]; write it with [`encode`](crate::encode()).
///
/// ```
/// use gdvariant::{Variant, Vector3};
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
/// use gdvariant::{Basis, Variant, Vector3};
/// let b = Basis::from_axes(Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0), Vector3::new(0.0, 0.0, 1.0));
/// let v = Variant::from(b);
/// let Variant::Basis(boxed) = &v else { unreachable!() };
/// assert_eq!(**boxed, b);
/// ```
///
/// A typed [`Array`] or [`Dictionary`] keeps its type info out of line too (see
/// [`Array::element_type`]); untyped containers, by far the most common, allocate nothing for
/// it.
#[derive(Clone, Debug, Default)]
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
    String(String),
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
    StringName(String),
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
    PackedStringArray(Vec<String>),
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
#[derive(Clone, Debug)]
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

/// The element, key or value type of a typed container: the owned counterpart of
/// [`ContainerType`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum TypeInfo {
    /// Untyped.
    #[default]
    None,
    /// A builtin type (`Array[int]`).
    Builtin(VariantType),
    /// A native class name (`Array[Node]`).
    ClassName(String),
    /// A script by its `res://` path.
    Script(String),
}

/// An Array: the elements and an optional element type (Godot 4.3+ typed arrays).
///
/// The element type is kept out of line, so an untyped array is just its `Vec`; read it with
/// [`element_type`](Array::element_type), set it with [`typed`](Array::typed) or
/// [`set_element_type`](Array::set_element_type).
///
/// ```
/// use gdvariant::{Array, TypeInfo, Variant, VariantType};
/// let a = Array::typed(TypeInfo::Builtin(VariantType::Int), vec![Variant::Int(1)]);
/// assert_eq!(a.element_type(), &TypeInfo::Builtin(VariantType::Int));
/// assert_eq!(Array::new(vec![]).element_type(), &TypeInfo::None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Array {
    /// The elements.
    pub items: Vec<Variant>,
    /// The element type; `None` when untyped (never `Some(TypeInfo::None)`).
    element_type: Option<Box<TypeInfo>>,
}

/// A Dictionary: the entries in insertion order and optional key and value types (Godot 4.4+
/// typed dictionaries).
///
/// Keys may be of any type. [`insert`](Dictionary::insert) replaces the value of an equal key in
/// place (keeping its position), as the engine does; keys compare with `Variant`'s bitwise
/// equality. Lookups are linear scans.
///
/// The key and value types are kept out of line, so an untyped dictionary is just its `Vec`;
/// read them with [`key_type`](Dictionary::key_type) and [`value_type`](Dictionary::value_type),
/// set them with [`typed`](Dictionary::typed) or [`set_types`](Dictionary::set_types).
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    /// The entries in insertion order.
    pub entries: Vec<(Variant, Variant)>,
    /// The key and value types; `None` when both are untyped (never `Some((None, None))`).
    types: Option<Box<(TypeInfo, TypeInfo)>>,
}

/// The untyped [`TypeInfo`], for the accessors of untyped containers.
static UNTYPED: TypeInfo = TypeInfo::None;

/// `t` as stored by an [`Array`]: `None` when untyped.
#[inline]
fn boxed_type(t: TypeInfo) -> Option<Box<TypeInfo>> {
    match t {
        TypeInfo::None => None,
        t => Some(Box::new(t)),
    }
}

/// `k` and `v` as stored by a [`Dictionary`]: `None` when both are untyped.
#[inline]
fn boxed_types(k: TypeInfo, v: TypeInfo) -> Option<Box<(TypeInfo, TypeInfo)>> {
    match (k, v) {
        (TypeInfo::None, TypeInfo::None) => None,
        kv => Some(Box::new(kv)),
    }
}

/// The encoded bytes of one value in a given dialect, kept and written unchanged.
///
/// Obtained from a [`VariantRef`] with [`RawValue::from_ref`]. Its contents are trusted: the
/// encoder checks only the dialect.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawValue {
    bytes: Vec<u8>,
    dialect: Dialect,
}

impl RawValue {
    /// Copies the exact bytes of `v` (walking it if its size is not yet known) without decoding
    /// it.
    pub fn from_ref(v: &VariantRef<'_>) -> Result<RawValue> {
        Ok(RawValue {
            bytes: v.raw()?.to_vec(),
            dialect: v.dialect(),
        })
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The dialect the bytes are written in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The value's type, from its header (`None` if the header is missing or unknown).
    pub fn ty(&self) -> Option<VariantType> {
        let h = self.bytes.get(..4)?;
        self.dialect.type_of(u32::from(h[0]))
    }
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

impl Dictionary {
    /// An empty, untyped dictionary.
    pub fn new() -> Dictionary {
        Dictionary::default()
    }

    /// An untyped dictionary of `entries`, kept as given (duplicate keys are not merged: use
    /// [`FromIterator`] or [`insert`](Dictionary::insert) for that).
    pub fn from_entries(entries: Vec<(Variant, Variant)>) -> Dictionary {
        Dictionary {
            entries,
            types: None,
        }
    }

    /// A dictionary of `entries` (kept as given) with the key type `key_type` and the value
    /// type `value_type` ([`TypeInfo::None`] for either leaves it untyped).
    ///
    /// ```
    /// use gdvariant::{Dictionary, TypeInfo, VariantType};
    /// let mut d = Dictionary::typed(TypeInfo::Builtin(VariantType::String), TypeInfo::None, vec![]);
    /// d.insert("hp", 10);
    /// assert_eq!(d.key_type(), &TypeInfo::Builtin(VariantType::String));
    /// assert_eq!(d.value_type(), &TypeInfo::None);
    /// ```
    pub fn typed(
        key_type: TypeInfo,
        value_type: TypeInfo,
        entries: Vec<(Variant, Variant)>,
    ) -> Dictionary {
        Dictionary {
            entries,
            types: boxed_types(key_type, value_type),
        }
    }

    /// The key type; [`TypeInfo::None`] when untyped.
    #[inline]
    pub fn key_type(&self) -> &TypeInfo {
        self.types.as_deref().map_or(&UNTYPED, |(k, _)| k)
    }

    /// The value type; [`TypeInfo::None`] when untyped.
    #[inline]
    pub fn value_type(&self) -> &TypeInfo {
        self.types.as_deref().map_or(&UNTYPED, |(_, v)| v)
    }

    /// Sets the key and value types ([`TypeInfo::None`] for either leaves it untyped).
    pub fn set_types(&mut self, key_type: TypeInfo, value_type: TypeInfo) {
        self.types = boxed_types(key_type, value_type);
    }

    /// Sets the key type, keeping the value type.
    pub fn set_key_type(&mut self, key_type: TypeInfo) {
        let value_type = self.types.take().map_or(TypeInfo::None, |b| b.1);
        self.set_types(key_type, value_type);
    }

    /// Sets the value type, keeping the key type.
    pub fn set_value_type(&mut self, value_type: TypeInfo) {
        let key_type = self.types.take().map_or(TypeInfo::None, |b| b.0);
        self.set_types(key_type, value_type);
    }

    /// Whether the key or the value type is set.
    #[inline]
    pub fn is_typed(&self) -> bool {
        self.types.is_some()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of the entry whose key equals `key`.
    ///
    /// ```
    /// use gdvariant::{Dictionary, Variant};
    /// let mut d = Dictionary::new();
    /// d.insert("a", 1);
    /// assert_eq!(d.get(&"a".into()), Some(&Variant::Int(1)));
    /// assert_eq!(d.get_str("a"), Some(&Variant::Int(1)));
    /// ```
    pub fn get(&self, key: &Variant) -> Option<&Variant> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of the entry whose key is the String (or StringName) `key`.
    pub fn get_str(&self, key: &str) -> Option<&Variant> {
        self.entries
            .iter()
            .find(|(k, _)| matches!(k, Variant::String(s) | Variant::StringName(s) if s == key))
            .map(|(_, v)| v)
    }

    /// A mutable reference to the value of the entry whose key equals `key`.
    pub fn get_mut(&mut self, key: &Variant) -> Option<&mut Variant> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Inserts `value` under `key`. An entry with an equal key keeps its position and gets the
    /// new value (the old one is returned), as in the engine; otherwise the entry is appended.
    ///
    /// ```
    /// use gdvariant::{Dictionary, Variant};
    /// let mut d = Dictionary::new();
    /// d.insert("a", 1);
    /// d.insert("b", 2);
    /// assert_eq!(d.insert("a", 3), Some(Variant::Int(1)));
    /// assert_eq!(d.entries[0], ("a".into(), Variant::Int(3)));
    /// ```
    pub fn insert(
        &mut self,
        key: impl Into<Variant>,
        value: impl Into<Variant>,
    ) -> Option<Variant> {
        let key = key.into();
        let value = value.into();
        match self.get_mut(&key) {
            Some(slot) => Some(core::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes the entry whose key equals `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &Variant) -> Option<Variant> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }
}

impl<K: Into<Variant>, V: Into<Variant>> FromIterator<(K, V)> for Dictionary {
    /// Collects pairs with [`insert`](Dictionary::insert) semantics (later duplicates replace).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut d = Dictionary::new();
        for (k, v) in iter {
            d.insert(k, v);
        }
        d
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

/// Moves `c` onto `stack` if it has children.
#[inline]
fn take_if_parent(c: &mut Variant, stack: &mut Vec<Variant>) {
    if c.has_children() {
        stack.push(core::mem::take(c));
    }
}

/// Drops the values of `stack` without native recursion: each value popped gives up its
/// children that have children (onto the stack) before it is dropped, so no drop goes more than
/// two levels down.
///
/// The containers' `Drop` impls use this only when one of their children is deep (has a child
/// with children); shallow trees are dropped normally.
fn drop_stack(mut stack: Vec<Variant>) {
    while let Some(mut v) = stack.pop() {
        v.for_each_child(|c| take_if_parent(c, &mut stack));
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if self.items.iter().any(is_deep) {
            let mut stack = Vec::new();
            self.items
                .iter_mut()
                .for_each(|c| take_if_parent(c, &mut stack));
            drop_stack(stack);
        }
    }
}

impl Drop for Dictionary {
    fn drop(&mut self) {
        if self.entries.iter().any(|(k, v)| is_deep(k) || is_deep(v)) {
            let mut stack = Vec::new();
            for (k, v) in &mut self.entries {
                take_if_parent(k, &mut stack);
                take_if_parent(v, &mut stack);
            }
            drop_stack(stack);
        }
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if let Object::Full { properties, .. } = self {
            if properties.iter().any(|(_, v)| is_deep(v)) {
                let mut stack = Vec::new();
                properties
                    .iter_mut()
                    .for_each(|(_, v)| take_if_parent(v, &mut stack));
                drop_stack(stack);
            }
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
    /// Structural equality with floats compared by bits (see the [module docs](self)).
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

impl PartialEq for Dictionary {
    fn eq(&self, other: &Dictionary) -> bool {
        self.key_type() == other.key_type()
            && self.value_type() == other.value_type()
            && self.entries == other.entries
    }
}
impl Eq for Dictionary {}

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
    String => String via |v| v,
    &str => String via String::from,
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
    Vec<String> => PackedStringArray via |v| v,
    &[&str] => PackedStringArray via |v: &[&str]| v.iter().map(|s| String::from(*s)).collect(),
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

// ----- from borrowed views -----

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

#[inline]
fn text_string(t: &Text<'_>, offset: usize) -> Result<String> {
    match t.as_str() {
        Some(s) => Ok(String::from(s)),
        None => Err(Error::new(ErrorKind::NotRustUtf8, offset)),
    }
}

/// Reads a §5 string at `r` into a `String`; see [`owned_text`].
#[inline(always)]
fn read_owned_string(r: &mut Reader<'_>, dialect: Dialect) -> Result<String> {
    let (raw, at) = r.read_string_raw()?;
    owned_text(raw, at, dialect)
}

/// The engine's text of the string bytes `raw` (at absolute offset `at`) as a `String`, with
/// one UTF-8 pass: valid UTF-8 passes every dialect's rules. Otherwise the error is the one
/// [`VariantRef::as_str`] gives: [`ErrorKind::InvalidUtf8`] if the dialect rejects the text,
/// else [`ErrorKind::NotRustUtf8`] at `at`.
#[inline(always)]
fn owned_text(raw: &[u8], at: usize, dialect: Dialect) -> Result<String> {
    let (t, skipped) = engine_text(raw);
    match core::str::from_utf8(t) {
        Ok(s) => Ok(String::from(s)),
        Err(_) => Err(not_utf8(t, at, skipped, dialect)),
    }
}

#[cold]
fn not_utf8(t: &[u8], at: usize, skipped: usize, dialect: Dialect) -> Error {
    match check_text(t, dialect, at + skipped) {
        Err(e) => e,
        Ok(()) => Error::new(ErrorKind::NotRustUtf8, at),
    }
}

/// The text of the String or StringName `v` (whose head has been read) as a `String`.
#[inline(always)]
fn string_of(v: &VariantRef<'_>) -> Result<String> {
    // The head read the whole value: header, length, bytes, padding.
    let mut p = Reader::new(v.raw_head().get(4..).unwrap_or(&[]), v.offset() + 4);
    read_owned_string(&mut p, v.dialect())
}

/// A container being converted: its children so far and its type info.
///
/// A leaf child is pushed as soon as it is read (see [`convert`]); a container child gets a
/// `Nil` slot, filled when it is complete (see [`Building::current`]).
enum Building {
    Array {
        items: Vec<Variant>,
        ty: Option<Box<TypeInfo>>,
    },
    Dict {
        entries: Vec<(Variant, Variant)>,
        types: Option<Box<(TypeInfo, TypeInfo)>>,
        /// The last entry's key is a container being read (or just filled in); its value
        /// comes next.
        key_open: bool,
    },
    Object {
        class: String,
        props: Vec<(String, Variant)>,
    },
}

/// An open container: what is built so far, the entries (values, key/value pairs,
/// properties) still to start, its depth.
struct Open {
    b: Building,
    remaining: u32,
    depth: u32,
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
    /// The slot of the container child being read (the last one pushed).
    #[inline]
    fn current(&mut self) -> Option<&mut Variant> {
        match self {
            Building::Array { items, .. } => items.last_mut(),
            Building::Dict {
                entries, key_open, ..
            } => entries
                .last_mut()
                .map(|e| if *key_open { &mut e.0 } else { &mut e.1 }),
            Building::Object { props, .. } => props.last_mut().map(|p| &mut p.1),
        }
    }

    fn finish(self) -> Variant {
        match self {
            Building::Array { items, ty } => Variant::Array(Array {
                items,
                element_type: ty,
            }),
            Building::Dict { entries, types, .. } => {
                Variant::Dictionary(Dictionary { entries, types })
            }
            Building::Object { class, props, .. } => Variant::Object(Box::new(Object::Full {
                class,
                properties: props,
            })),
        }
    }
}

/// Opens the container `v` (whose head has been read and whose body starts at `r`), or returns
/// `None` if `v` is not a container with a body.
#[inline]
fn open(v: &VariantRef<'_>, r: &Reader<'_>, budget: &mut usize) -> Result<Option<Open>> {
    use VariantType as T;
    // By type, not `v.body()`: a sized view (from an iterator or a frame) has no body to walk,
    // but its elements still have to be read.
    match v.ty() {
        T::Array | T::Dictionary | T::Object => open_container(v, r, budget),
        _ => Ok(None),
    }
}

fn open_container(v: &VariantRef<'_>, r: &Reader<'_>, budget: &mut usize) -> Result<Option<Open>> {
    use VariantType as T;
    let at = v.offset();
    let count = v.count();
    let rem = r.remaining();
    let b = match v.ty() {
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
                items: Vec::with_capacity(capacity(count, rem, 4, budget)),
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
            Building::Dict {
                types,
                entries: Vec::with_capacity(capacity(count, rem, 8, budget)),
                key_open: false,
            }
        }
        T::Object => {
            let class = match v.as_object()? {
                ObjectRef::Full(f) if !f.class_name().is_empty() => f.class_name(),
                _ => return Ok(None),
            };
            Building::Object {
                class: text_string(&class, at + 8)?,
                props: Vec::with_capacity(capacity(count, rem, 8, budget)),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(Open {
        b,
        remaining: count,
        depth: v.depth(),
    }))
}

/// Reads `count` strings at `r` (the body of a PackedStringArray).
fn read_strings(
    r: &mut Reader<'_>,
    count: u32,
    dialect: Dialect,
    budget: &mut usize,
) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(capacity(count, r.remaining(), 4, budget));
    for _ in 0..count {
        out.push(read_owned_string(r, dialect)?);
    }
    Ok(out)
}

/// A child read by `to_owned`: a converted value, or a container to open.
enum Child {
    Value(Variant),
    Open(Open),
}

/// Converts `v` (whose head has been read) or opens it if it is a container with a body.
///
/// Inlined, with the common leaf types converted inline, so that the value goes straight into
/// its vector: returned through memory from a call, its copy into the vector reads back what the
/// callee has just written field by field and stalls on store forwarding.
#[inline(always)]
fn convert(v: &VariantRef<'_>, r: &mut Reader<'_>, budget: &mut usize) -> Result<Child> {
    if let Some(x) = quick_leaf(v)? {
        return Ok(Child::Value(x));
    }
    if let Some(o) = open(v, r, budget)? {
        return Ok(Child::Open(o));
    }
    let mut out = Variant::Nil;
    leaf(v, r, budget, &mut out)?;
    Ok(Child::Value(out))
}

/// The most common leaf types, read from the payload as the `VariantRef` accessors read them;
/// `None` for the others (see [`leaf`]).
#[inline(always)]
fn quick_leaf(v: &VariantRef<'_>) -> Result<Option<Variant>> {
    use VariantType as T;
    // The head read the whole value; the payload follows the header.
    let mut p = Reader::new(v.raw_head().get(4..).unwrap_or(&[]), v.offset() + 4);
    let flag = v.header() & FLAG_64 != 0;
    // Real-valued math types are f64 with the flag in Godot 4 only.
    let wide = flag && v.dialect() == Dialect::Godot4;
    Ok(Some(match v.ty() {
        T::Nil => Variant::Nil,
        T::Bool => Variant::Bool(p.read_u32()? != 0),
        T::Int if flag => Variant::Int(p.read_i64()?),
        T::Int => Variant::Int(i64::from(p.read_i32()?)),
        T::Float => Variant::Float(p.read_real(flag)?),
        T::String => Variant::String(read_owned_string(&mut p, v.dialect())?),
        T::StringName => Variant::StringName(read_owned_string(&mut p, v.dialect())?),
        T::Vector2 => match read_reals(&mut p, wide) {
            Some(a) => Variant::Vector2(Vector2::from_array(a)),
            None => return Ok(None),
        },
        T::Vector3 => match read_reals(&mut p, wide) {
            Some(a) => Variant::Vector3(Vector3::from_array(a)),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// Reads `N` reals (f64 when `wide`, else f32 widened) in one bounds check; `None` if they are
/// not all there (never, after the head: the caller then reads them one by one for the error).
#[inline(always)]
fn read_reals<const N: usize>(p: &mut Reader<'_>, wide: bool) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    if wide {
        let b = p.read_bytes(8 * N).ok()?;
        for (x, c) in out.iter_mut().zip(b.chunks_exact(8)) {
            *x = f64::from_le_bytes(c.try_into().unwrap_or_default());
        }
    } else {
        let b = p.read_bytes(4 * N).ok()?;
        for (x, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *x = f64::from(f32::from_le_bytes(c.try_into().unwrap_or_default()));
        }
    }
    Some(out)
}

/// Converts a value that is not a container with a body still to read (`v` is sized, or is a
/// PackedStringArray whose strings follow at `r`) into `out`.
fn leaf(
    v: &VariantRef<'_>,
    r: &mut Reader<'_>,
    budget: &mut usize,
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
            for s in np.names() {
                names.push(String::from(s?));
            }
            let mut subnames = Vec::with_capacity(np.subname_count().min(64));
            for s in np.subnames()? {
                subnames.push(String::from(s?));
            }
            *out = Variant::NodePath(Box::new(NodePath {
                names,
                subnames,
                absolute: np.is_absolute(),
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
                read_strings(r, v.count(), v.dialect(), budget)?
            } else {
                read_strings(&mut v.body_reader(), v.count(), v.dialect(), budget)?
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
            .map(|a| make(a.map(f64::from)))
            .collect()
    })
}

impl VariantRef<'_> {
    /// Decodes the whole value into an owned [`Variant`].
    ///
    /// Strings are the engine's text (a leading BOM stripped, cut at the first NUL); Godot 3 text
    /// that is not valid UTF-8 is an [`ErrorKind::NotRustUtf8`] error. Reals are widened to
    /// `f64` exactly. One forward pass over the bytes; nesting is kept on a heap stack bounded by
    /// the reader's depth limit, not on the native stack.
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
        let mut r = self.body_reader();
        // At most one value per 4 bytes: the total of all reservations (see `capacity`).
        let mut budget = r.remaining() / 4;
        let Some(first) = open(self, &r, &mut budget)? else {
            let mut out = Variant::Nil;
            leaf(self, &mut r, &mut budget, &mut out)?;
            return Ok(out);
        };
        let opts = self.options();
        let dialect = opts.get_dialect();
        let mut stack = alloc::vec![first];
        'outer: loop {
            let Some(top) = stack.last_mut() else {
                // Unreachable: the outermost container returns below.
                return Ok(Variant::Nil);
            };
            let depth = top.depth + 1;
            // Read children until one is a container to open, or the container is complete. An
            // open container gets a `Nil` slot, filled when it is complete.
            match &mut top.b {
                Building::Array { items, .. } => {
                    while top.remaining > 0 {
                        top.remaining -= 1;
                        let child = head(&mut r, depth, &opts, false)?;
                        match convert(&child, &mut r, &mut budget)? {
                            Child::Value(x) => items.push(x),
                            Child::Open(o) => {
                                items.push(Variant::Nil);
                                stack.push(o);
                                continue 'outer;
                            }
                        }
                    }
                }
                Building::Dict {
                    entries, key_open, ..
                } => loop {
                    // The key, or `None` if it is a container already in the last entry.
                    let key = if *key_open {
                        *key_open = false;
                        None
                    } else {
                        if top.remaining == 0 {
                            break;
                        }
                        top.remaining -= 1;
                        let child = head(&mut r, depth, &opts, false)?;
                        match convert(&child, &mut r, &mut budget)? {
                            Child::Value(k) => Some(k),
                            Child::Open(o) => {
                                entries.push((Variant::Nil, Variant::Nil));
                                *key_open = true;
                                stack.push(o);
                                continue 'outer;
                            }
                        }
                    };
                    let child = head(&mut r, depth, &opts, false)?;
                    match (convert(&child, &mut r, &mut budget)?, key) {
                        (Child::Value(v), Some(k)) => entries.push((k, v)),
                        (Child::Value(v), None) => {
                            if let Some(e) = entries.last_mut() {
                                e.1 = v;
                            }
                        }
                        (Child::Open(o), key) => {
                            if let Some(k) = key {
                                entries.push((k, Variant::Nil));
                            }
                            stack.push(o);
                            continue 'outer;
                        }
                    }
                },
                Building::Object { props, .. } => {
                    while top.remaining > 0 {
                        top.remaining -= 1;
                        let name = read_owned_string(&mut r, dialect)?;
                        let child = head(&mut r, depth, &opts, false)?;
                        if dialect == Dialect::Godot4 && name == "script" {
                            check_script(&child)?;
                        }
                        match convert(&child, &mut r, &mut budget)? {
                            Child::Value(x) => props.push((name, x)),
                            Child::Open(o) => {
                                props.push((name, Variant::Nil));
                                stack.push(o);
                                continue 'outer;
                            }
                        }
                    }
                }
            }
            // `top` is complete: it goes into its parent's slot.
            let Some(done) = stack.pop() else { break };
            let v = done.b.finish();
            match stack.last_mut() {
                Some(parent) => {
                    if let Some(slot) = parent.b.current() {
                        *slot = v;
                    }
                }
                None => return Ok(v),
            }
        }
        // Unreachable: the outermost container returns above.
        Ok(Variant::Nil)
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
