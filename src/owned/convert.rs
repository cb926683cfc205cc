//! Reading an owned [`Variant`] as Rust values: an accessor for every type, `TryFrom`
//! conversions, conversions from Rust maps, and the text form of [`NodePath`].

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::gstring::GString;
use super::raw::RawValue;
use super::variant::{Array, Dictionary, NodePath, Object, Signal, Variant};
use crate::math::*;
use crate::packed::PackedElement;
use crate::types::VariantType;

macro_rules! copy_accessors {
    ($($(#[$m:meta])* $name:ident => $variant:ident: $t:ty;)*) => {
        impl Variant {
            $(
                $(#[$m])*
                #[inline]
                pub fn $name(&self) -> Option<$t> {
                    match self {
                        Variant::$variant(x) => Some(*x),
                        _ => None,
                    }
                }
            )*
        }
    };
}

copy_accessors! {
    /// The Vector2, if this is one.
    as_vector2 => Vector2: Vector2;
    /// The Vector2i, if this is one.
    as_vector2i => Vector2i: Vector2i;
    /// The Rect2, if this is one.
    as_rect2 => Rect2: Rect2;
    /// The Rect2i, if this is one.
    as_rect2i => Rect2i: Rect2i;
    /// The Vector3, if this is one.
    as_vector3 => Vector3: Vector3;
    /// The Vector3i, if this is one.
    as_vector3i => Vector3i: Vector3i;
    /// The Vector4, if this is one.
    as_vector4 => Vector4: Vector4;
    /// The Vector4i, if this is one.
    as_vector4i => Vector4i: Vector4i;
    /// The Plane, if this is one.
    as_plane => Plane: Plane;
    /// The Quaternion, if this is one.
    as_quaternion => Quaternion: Quaternion;
    /// The Color, if this is one.
    as_color => Color: Color;
    /// The RID's id, if this is a RID.
    as_rid => Rid: u64;
}

impl Variant {
    /// The Transform2D, if this is one.
    #[inline]
    pub fn as_transform2d(&self) -> Option<Transform2D> {
        match self {
            Variant::Transform2D(x) => Some(**x),
            _ => None,
        }
    }

    /// The AABB, if this is one.
    #[inline]
    pub fn as_aabb(&self) -> Option<Aabb> {
        match self {
            Variant::Aabb(x) => Some(**x),
            _ => None,
        }
    }

    /// The Basis, if this is one.
    #[inline]
    pub fn as_basis(&self) -> Option<Basis> {
        match self {
            Variant::Basis(x) => Some(**x),
            _ => None,
        }
    }

    /// The Transform3D, if this is one.
    #[inline]
    pub fn as_transform3d(&self) -> Option<Transform3D> {
        match self {
            Variant::Transform3D(x) => Some(**x),
            _ => None,
        }
    }

    /// The Projection, if this is one.
    #[inline]
    pub fn as_projection(&self) -> Option<Projection> {
        match self {
            Variant::Projection(x) => Some(**x),
            _ => None,
        }
    }

    /// The text of a String (not a StringName: see [`as_str`](Variant::as_str) for either).
    #[inline]
    pub fn as_string(&self) -> Option<&GString> {
        match self {
            Variant::String(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a StringName (not a String: see [`as_str`](Variant::as_str) for either).
    #[inline]
    pub fn as_string_name(&self) -> Option<&GString> {
        match self {
            Variant::StringName(s) => Some(s),
            _ => None,
        }
    }

    /// The NodePath, if this is one.
    #[inline]
    pub fn as_node_path(&self) -> Option<&NodePath> {
        match self {
            Variant::NodePath(x) => Some(x),
            _ => None,
        }
    }

    /// The Object, if this is one.
    #[inline]
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Variant::Object(x) => Some(x),
            _ => None,
        }
    }

    /// The Signal, if this is one.
    #[inline]
    pub fn as_signal(&self) -> Option<&Signal> {
        match self {
            Variant::Signal(x) => Some(x),
            _ => None,
        }
    }

    /// Whether the value is a Callable.
    #[inline]
    pub fn is_callable(&self) -> bool {
        matches!(self, Variant::Callable)
    }

    /// The raw value, if this is one.
    #[inline]
    pub fn as_raw(&self) -> Option<&RawValue> {
        match self {
            Variant::Raw(x) => Some(x),
            _ => None,
        }
    }
}

impl Variant {
    /// The Array, mutable, if this is one.
    #[inline]
    pub fn as_array_mut(&mut self) -> Option<&mut Array> {
        match self {
            Variant::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The Dictionary, mutable, if this is one.
    #[inline]
    pub fn as_dictionary_mut(&mut self) -> Option<&mut Dictionary> {
        match self {
            Variant::Dictionary(d) => Some(d),
            _ => None,
        }
    }
}

macro_rules! packed_accessors {
    ($($(#[$m:meta])* $name:ident, $mut_name:ident => $variant:ident: $t:ty;)*) => {
        impl Variant {
            $(
                $(#[$m])*
                #[inline]
                pub fn $name(&self) -> Option<&[$t]> {
                    match self {
                        Variant::$variant(x) => Some(x),
                        _ => None,
                    }
                }

                /// The same, as the mutable `Vec`.
                #[inline]
                pub fn $mut_name(&mut self) -> Option<&mut Vec<$t>> {
                    match self {
                        Variant::$variant(x) => Some(x),
                        _ => None,
                    }
                }
            )*
        }
    };
}

packed_accessors! {
    /// The bytes of a PackedByteArray.
    as_byte_array, as_byte_array_mut => PackedByteArray: u8;
    /// The elements of a PackedInt32Array.
    as_packed_i32, as_packed_i32_mut => PackedInt32Array: i32;
    /// The elements of a PackedInt64Array.
    as_packed_i64, as_packed_i64_mut => PackedInt64Array: i64;
    /// The elements of a PackedFloat32Array.
    as_packed_f32, as_packed_f32_mut => PackedFloat32Array: f32;
    /// The elements of a PackedFloat64Array.
    as_packed_f64, as_packed_f64_mut => PackedFloat64Array: f64;
    /// The strings of a PackedStringArray.
    as_string_array, as_string_array_mut => PackedStringArray: GString;
    /// The elements of a PackedVector2Array.
    as_packed_vector2, as_packed_vector2_mut => PackedVector2Array: Vector2;
    /// The elements of a PackedVector3Array.
    as_packed_vector3, as_packed_vector3_mut => PackedVector3Array: Vector3;
    /// The elements of a PackedVector4Array.
    as_packed_vector4, as_packed_vector4_mut => PackedVector4Array: Vector4;
    /// The elements of a PackedColorArray.
    as_packed_color, as_packed_color_mut => PackedColorArray: Color;
}

// ----- TryFrom -----

/// The error of a `TryFrom<Variant>` / `TryFrom<&Variant>` conversion: the value is of
/// another type.
///
/// ```
/// use gdvariant::{Variant, VariantType, math::Vector3};
/// let v = Variant::from(Vector3::new(1.0, 2.0, 3.0));
/// assert_eq!(Vector3::try_from(&v), Ok(Vector3::new(1.0, 2.0, 3.0)));
/// let e = i64::try_from(&v).unwrap_err();
/// assert_eq!((e.expected, e.found), (VariantType::Int, VariantType::Vector3));
/// assert_eq!(e.to_string(), "expected int, found Vector3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WrongType {
    /// The type the conversion reads.
    pub expected: VariantType,
    /// The value's type.
    pub found: VariantType,
}

impl fmt::Display for WrongType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected {}, found {}",
            self.expected.name(),
            self.found.name()
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for WrongType {}

macro_rules! try_from {
    ($($t:ty => $ty:ident, |$x:ident| $by_ref:expr, |$y:ident| $by_value:expr, [$($variant:ident),+];)*) => {$(
        impl TryFrom<&Variant> for $t {
            type Error = WrongType;
            /// The value, if the Variant is of this type.
            #[inline]
            fn try_from(v: &Variant) -> Result<$t, WrongType> {
                match v {
                    $(Variant::$variant($x))|+ => Ok($by_ref),
                    _ => Err(WrongType { expected: VariantType::$ty, found: v.ty() }),
                }
            }
        }

        impl TryFrom<Variant> for $t {
            type Error = WrongType;
            /// The value, if the Variant is of this type (moved out, not copied).
            #[inline]
            fn try_from(v: Variant) -> Result<$t, WrongType> {
                match v {
                    $(Variant::$variant($y))|+ => Ok($by_value),
                    v => Err(WrongType { expected: VariantType::$ty, found: v.ty() }),
                }
            }
        }
    )*};
}

try_from! {
    bool => Bool, |x| *x, |x| x, [Bool];
    i64 => Int, |x| *x, |x| x, [Int];
    f64 => Float, |x| *x, |x| x, [Float];
    String => String, |x| String::from(x.as_str()), |x| x.into_string(), [String, StringName];
    GString => String, |x| x.clone(), |x| x, [String, StringName];
    Vector2 => Vector2, |x| *x, |x| x, [Vector2];
    Vector2i => Vector2i, |x| *x, |x| x, [Vector2i];
    Rect2 => Rect2, |x| *x, |x| x, [Rect2];
    Rect2i => Rect2i, |x| *x, |x| x, [Rect2i];
    Vector3 => Vector3, |x| *x, |x| x, [Vector3];
    Vector3i => Vector3i, |x| *x, |x| x, [Vector3i];
    Transform2D => Transform2D, |x| **x, |x| *x, [Transform2D];
    Vector4 => Vector4, |x| *x, |x| x, [Vector4];
    Vector4i => Vector4i, |x| *x, |x| x, [Vector4i];
    Plane => Plane, |x| *x, |x| x, [Plane];
    Quaternion => Quaternion, |x| *x, |x| x, [Quaternion];
    Aabb => Aabb, |x| **x, |x| *x, [Aabb];
    Basis => Basis, |x| **x, |x| *x, [Basis];
    Transform3D => Transform3D, |x| **x, |x| *x, [Transform3D];
    Projection => Projection, |x| **x, |x| *x, [Projection];
    Color => Color, |x| *x, |x| x, [Color];
    NodePath => NodePath, |x| (**x).clone(), |x| *x, [NodePath];
    Object => Object, |x| (**x).clone(), |x| *x, [Object];
    Signal => Signal, |x| x.clone(), |x| x, [Signal];
    Array => Array, |x| x.clone(), |x| x, [Array];
    Dictionary => Dictionary, |x| x.clone(), |x| x, [Dictionary];
    Vec<u8> => PackedByteArray, |x| x.clone(), |x| x, [PackedByteArray];
    Vec<i32> => PackedInt32Array, |x| x.clone(), |x| x, [PackedInt32Array];
    Vec<i64> => PackedInt64Array, |x| x.clone(), |x| x, [PackedInt64Array];
    Vec<f32> => PackedFloat32Array, |x| x.clone(), |x| x, [PackedFloat32Array];
    Vec<f64> => PackedFloat64Array, |x| x.clone(), |x| x, [PackedFloat64Array];
    Vec<GString> => PackedStringArray, |x| x.clone(), |x| x, [PackedStringArray];
    Vec<Vector2> => PackedVector2Array, |x| x.clone(), |x| x, [PackedVector2Array];
    Vec<Vector3> => PackedVector3Array, |x| x.clone(), |x| x, [PackedVector3Array];
    Vec<Vector4> => PackedVector4Array, |x| x.clone(), |x| x, [PackedVector4Array];
    Vec<Color> => PackedColorArray, |x| x.clone(), |x| x, [PackedColorArray];
    RawValue => Nil, |x| x.clone(), |x| x, [Raw];
}

impl<'a> TryFrom<&'a Variant> for &'a str {
    type Error = WrongType;
    /// The text of a String or StringName.
    fn try_from(v: &'a Variant) -> Result<&'a str, WrongType> {
        v.as_str().ok_or(WrongType {
            expected: VariantType::String,
            found: v.ty(),
        })
    }
}

impl TryFrom<&Variant> for Vec<String> {
    type Error = WrongType;
    /// The strings of a PackedStringArray.
    fn try_from(v: &Variant) -> Result<Vec<String>, WrongType> {
        match v {
            Variant::PackedStringArray(a) => {
                Ok(a.iter().map(|s| String::from(s.as_str())).collect())
            }
            _ => Err(WrongType {
                expected: VariantType::PackedStringArray,
                found: v.ty(),
            }),
        }
    }
}

impl TryFrom<Variant> for Vec<String> {
    type Error = WrongType;
    /// The strings of a PackedStringArray.
    fn try_from(v: Variant) -> Result<Vec<String>, WrongType> {
        match v {
            Variant::PackedStringArray(a) => Ok(a.into_iter().map(GString::into_string).collect()),
            v => Err(WrongType {
                expected: VariantType::PackedStringArray,
                found: v.ty(),
            }),
        }
    }
}

// ----- From Rust collections -----

#[cfg(feature = "std")]
impl<K: Into<Variant>, V: Into<Variant>, S> From<std::collections::HashMap<K, V, S>>
    for Dictionary
{
    /// The map's entries, in the map's iteration order (which `HashMap` does not fix: use a
    /// `BTreeMap` or a `Vec` of pairs for a given order). Keys that become the same dictionary
    /// key (`"a"` and `&"a"`, `0.0` and `-0.0`) are merged as by
    /// [`insert`](Dictionary::insert).
    fn from(m: std::collections::HashMap<K, V, S>) -> Dictionary {
        m.into_iter().collect()
    }
}

#[cfg(feature = "std")]
impl<K: Into<Variant>, V: Into<Variant>, S> From<std::collections::HashMap<K, V, S>> for Variant {
    /// A Dictionary of the map's entries; see [`Dictionary`'s `From`](Dictionary#impl-From%3CHashMap%3CK,+V,+S%3E%3E-for-Dictionary).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use gdvariant::Variant;
    /// let v = Variant::from(HashMap::from([("hp", 10)]));
    /// assert_eq!(v.as_dictionary().unwrap().get_str("hp"), Some(&Variant::Int(10)));
    /// ```
    fn from(m: std::collections::HashMap<K, V, S>) -> Variant {
        Variant::Dictionary(m.into())
    }
}

impl<K: Into<Variant>, V: Into<Variant>> From<BTreeMap<K, V>> for Dictionary {
    /// The map's entries in key order.
    fn from(m: BTreeMap<K, V>) -> Dictionary {
        m.into_iter().collect()
    }
}

impl<K: Into<Variant>, V: Into<Variant>> From<BTreeMap<K, V>> for Variant {
    /// A Dictionary of the map's entries in key order.
    fn from(m: BTreeMap<K, V>) -> Variant {
        Variant::Dictionary(m.into())
    }
}

impl<K: Into<Variant>, V: Into<Variant>> From<Vec<(K, V)>> for Dictionary {
    /// The pairs in order, merged as by [`insert`](Dictionary::insert).
    fn from(pairs: Vec<(K, V)>) -> Dictionary {
        pairs.into_iter().collect()
    }
}

// ----- NodePath's text form -----

/// The error of [`NodePath::from_str`](core::str::FromStr::from_str): a subname is empty
/// (`"a::b"`), which the engine rejects with "Invalid NodePath" (and then makes an empty
/// NodePath, as [`NodePath::parse_lossy`] does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InvalidNodePath;

impl fmt::Display for InvalidNodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid NodePath: empty subname")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InvalidNodePath {}

impl NodePath {
    /// The NodePath of the text `path` as Godot 4's `NodePath(String)` makes it: a leading `/`
    /// makes it absolute; names are separated by `/` (empty names, as in `a//b` or `a/`, are
    /// skipped); the subnames follow the first `:`, separated by `:` (a trailing `:` is
    /// allowed); an empty subname in between (`a::b`) makes the engine print an error and
    /// return an empty NodePath, and so this returns [`NodePath::default()`]. Checked against
    /// the engine.
    ///
    /// ```
    /// use gdvariant::NodePath;
    /// let p = NodePath::parse_lossy("/root//a:prop:sub");
    /// assert_eq!((p.names.len(), p.subnames.len(), p.absolute), (2, 2, true));
    /// assert_eq!(p.to_string(), "/root/a:prop:sub");
    /// assert_eq!(NodePath::parse_lossy("a::b"), NodePath::default());
    /// ```
    pub fn parse_lossy(path: &str) -> NodePath {
        path.parse().unwrap_or_default()
    }
}

impl core::str::FromStr for NodePath {
    type Err = InvalidNodePath;

    /// Parses the engine's NodePath syntax; see [`NodePath::parse_lossy`]. An empty subname
    /// between two `:` is an error.
    ///
    /// ```
    /// use gdvariant::NodePath;
    /// let p: NodePath = "a/b:c".parse().unwrap();
    /// assert_eq!(p.names, ["a", "b"]);
    /// assert_eq!(p.subnames, ["c"]);
    /// assert!("a::b".parse::<NodePath>().is_err());
    /// ```
    fn from_str(path: &str) -> Result<NodePath, InvalidNodePath> {
        let absolute = path.starts_with('/');
        let (names_part, subnames) = match path.find(':') {
            Some(at) => {
                let rest = &path[at + 1..];
                let mut subnames = Vec::new();
                let parts: Vec<&str> = rest.split(':').collect();
                let last = parts.len() - 1;
                for (i, s) in parts.into_iter().enumerate() {
                    if s.is_empty() {
                        if i == last {
                            // "Allow end-of-path :".
                            continue;
                        }
                        return Err(InvalidNodePath);
                    }
                    subnames.push(String::from(s));
                }
                (&path[..at], subnames)
            }
            None => (path, Vec::new()),
        };
        let body = if absolute {
            &names_part[1..]
        } else {
            names_part
        };
        let names: Vec<String> = body
            .split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        if names.is_empty() && !absolute && subnames.is_empty() {
            return Ok(NodePath::default());
        }
        Ok(NodePath {
            names,
            subnames,
            absolute,
        })
    }
}

impl fmt::Display for NodePath {
    /// The engine's `String(NodePath)`: `/` if absolute, the names joined by `/`, then `:`
    /// and each subname.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.absolute {
            f.write_str("/")?;
        }
        for (i, n) in self.names.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(n)?;
        }
        for s in &self.subnames {
            f.write_str(":")?;
            f.write_str(s)?;
        }
        Ok(())
    }
}

impl From<PackedElement<'_>> for Variant {
    /// The Variant the engine gives for `array[i]`: an int, a float, a String, a vector or a
    /// Color.
    fn from(e: PackedElement<'_>) -> Self {
        use Variant as V;
        match e {
            PackedElement::Byte(x) => V::Int(x.into()),
            PackedElement::Int32(x) => V::Int(x.into()),
            PackedElement::Int64(x) => V::Int(x),
            PackedElement::Float32(x) => V::Float(x.into()),
            PackedElement::Float64(x) => V::Float(x),
            PackedElement::String(s) => V::String(s.into()),
            PackedElement::Vector2(v) => V::Vector2(v),
            PackedElement::Vector3(v) => V::Vector3(v),
            PackedElement::Vector4(v) => V::Vector4(v),
            PackedElement::Color(c) => V::Color(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// Each case as Godot 4.6's `NodePath(String)` and `String(NodePath)` gave it
    /// (`tests/godot/node_paths4.gd`): text, printed, names, subnames, absolute.
    #[test]
    fn node_paths_parse_and_print_as_the_engine() {
        type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [&'a str], bool);
        let cases: &[Case<'_>] = &[
            ("a//b", "a/b", &["a", "b"], &[], false),
            ("/", "/", &[], &[], true),
            ("a:b:", "a:b", &["a"], &["b"], false),
            ("a::b", "", &[], &[], false),
            (":x", ":x", &[], &["x"], false),
            ("//a", "/a", &["a"], &[], true),
            ("a/", "a", &["a"], &[], false),
            ("", "", &[], &[], false),
            (
                "/root/a:prop:sub",
                "/root/a:prop:sub",
                &["root", "a"],
                &["prop", "sub"],
                true,
            ),
            ("a/b/:c", "a/b:c", &["a", "b"], &["c"], false),
            ("::", "", &[], &[], false),
            (":", "", &[], &[], false),
            ("a:", "a", &["a"], &[], false),
            ("/:", "/", &[], &[], true),
            ("a:b::", "", &[], &[], false),
            (" a / b ", " a / b ", &[" a ", " b "], &[], false),
            ("a.b/c:d.e", "a.b/c:d.e", &["a.b", "c"], &["d.e"], false),
        ];
        for (text, printed, names, subnames, absolute) in cases {
            let p = NodePath::parse_lossy(text);
            assert_eq!(p.to_string(), *printed, "{text}");
            assert_eq!(p.names, *names, "{text}");
            assert_eq!(p.subnames, *subnames, "{text}");
            assert_eq!(p.absolute, *absolute, "{text}");
            assert_eq!(
                text.parse::<NodePath>().is_err(),
                text.contains("::"),
                "{text}"
            );
        }
    }

    #[test]
    fn accessors_and_conversions() {
        let v = Variant::from(vec![1.0f32, 2.0]);
        assert_eq!(v.as_packed_f32(), Some(&[1.0f32, 2.0][..]));
        assert_eq!(Vec::<f32>::try_from(v.clone()), Ok(vec![1.0, 2.0]));
        assert_eq!(
            i64::try_from(&v),
            Err(WrongType {
                expected: VariantType::Int,
                found: VariantType::PackedFloat32Array
            })
        );
        let b = Variant::from(Basis::IDENTITY);
        assert_eq!(b.as_basis(), Some(Basis::IDENTITY));
        assert_eq!(Basis::try_from(b), Ok(Basis::IDENTITY));
        let s = Variant::StringName("n".into());
        assert_eq!(<&str>::try_from(&s), Ok("n"));
        assert_eq!(String::try_from(s.clone()), Ok("n".to_string()));
        assert!(s.as_string().is_none() && s.as_string_name().is_some());
        let names = Variant::from(vec!["a", "b"]);
        assert_eq!(Vec::<String>::try_from(&names).unwrap(), ["a", "b"]);
        let mut d = Variant::from(BTreeMap::from([("x", 1), ("y", 2)]));
        d.as_dictionary_mut().unwrap().insert("z", 3);
        assert_eq!(d.as_dictionary().unwrap().len(), 3);
        assert_eq!(
            Dictionary::from(vec![("a", 1), ("a", 2)]).entries(),
            &[("a".into(), Variant::Int(2))]
        );
        assert!(Variant::Callable.is_callable());
        assert_eq!(Variant::Rid(7).as_rid(), Some(7));
    }
}
