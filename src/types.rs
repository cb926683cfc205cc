//! Dialects, type ids and header bits: the one place that maps wire type ids to types.

use core::fmt;

/// Which engine's wire format: the two share the header layout but not the type ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Godot 4.0 – 4.6: type ids 0..=38. The default.
    #[default]
    Godot4,
    /// Godot 3.0 – 3.6: type ids 0..=26.
    Godot3,
}

/// The header bit that selects 64-bit payloads (int, float, f64 math components), and on an
/// Object, "instance id only".
pub const FLAG_64: u32 = 1 << 16;

/// The recursion limit of the engine (`Variant::MAX_RECURSION_DEPTH`): a container at a depth
/// greater than this is an error. The top-level value is at depth 0.
pub const ENGINE_MAX_DEPTH: u32 = 1024;

/// The largest depth limit [`ReadOptions::max_depth`] accepts; larger requests are clamped to it.
pub const MAX_DEPTH_LIMIT: u32 = 16 * 1024;

/// The type of a Variant, with Godot 4's names. Godot 3 types map onto the same variants
/// (`Quat` is [`Quaternion`](VariantType::Quaternion), `Transform` is
/// [`Transform3D`](VariantType::Transform3D), `PoolRealArray` is
/// [`PackedFloat32Array`](VariantType::PackedFloat32Array), and so on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum VariantType {
    Nil,
    Bool,
    Int,
    Float,
    String,
    Vector2,
    Vector2i,
    Rect2,
    Rect2i,
    Vector3,
    Vector3i,
    Transform2D,
    Vector4,
    Vector4i,
    Plane,
    Quaternion,
    Aabb,
    Basis,
    Transform3D,
    Projection,
    Color,
    StringName,
    NodePath,
    Rid,
    Object,
    Callable,
    Signal,
    Dictionary,
    Array,
    PackedByteArray,
    PackedInt32Array,
    PackedInt64Array,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedColorArray,
    PackedVector4Array,
}

use VariantType as T;

/// Godot 4 type ids, indexed by id.
const GODOT4: [VariantType; 39] = [
    T::Nil,
    T::Bool,
    T::Int,
    T::Float,
    T::String,
    T::Vector2,
    T::Vector2i,
    T::Rect2,
    T::Rect2i,
    T::Vector3,
    T::Vector3i,
    T::Transform2D,
    T::Vector4,
    T::Vector4i,
    T::Plane,
    T::Quaternion,
    T::Aabb,
    T::Basis,
    T::Transform3D,
    T::Projection,
    T::Color,
    T::StringName,
    T::NodePath,
    T::Rid,
    T::Object,
    T::Callable,
    T::Signal,
    T::Dictionary,
    T::Array,
    T::PackedByteArray,
    T::PackedInt32Array,
    T::PackedInt64Array,
    T::PackedFloat32Array,
    T::PackedFloat64Array,
    T::PackedStringArray,
    T::PackedVector2Array,
    T::PackedVector3Array,
    T::PackedColorArray,
    T::PackedVector4Array,
];

/// Godot 3 type ids, indexed by id.
const GODOT3: [VariantType; 27] = [
    T::Nil,
    T::Bool,
    T::Int,
    T::Float,
    T::String,
    T::Vector2,
    T::Rect2,
    T::Vector3,
    T::Transform2D,
    T::Plane,
    T::Quaternion,
    T::Aabb,
    T::Basis,
    T::Transform3D,
    T::Color,
    T::NodePath,
    T::Rid,
    T::Object,
    T::Dictionary,
    T::Array,
    T::PackedByteArray,
    T::PackedInt32Array,
    T::PackedFloat32Array,
    T::PackedStringArray,
    T::PackedVector2Array,
    T::PackedVector3Array,
    T::PackedColorArray,
];

/// [`Dialect::id_of`]'s answer for a type the dialect lacks.
const NO_ID: u8 = 0xFF;

/// The inverse of an id table: wire ids indexed by `VariantType as usize`.
const fn ids_of<const N: usize>(table: &[VariantType; N]) -> [u8; 39] {
    let mut ids = [NO_ID; 39];
    let mut id = 0;
    while id < N {
        ids[table[id] as usize] = id as u8;
        id += 1;
    }
    ids
}

/// How the bytes after a value's header are laid out: what reading its head does. One
/// [`Layout`] per type id, 64-bit flag and dialect, in [`LAYOUTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A payload of a fixed number of bytes (Nil, bool, int, float, the math types, Color,
    /// RID, Callable): one variant per size, so that walks skip it by a constant in the branch
    /// the dispatch predicts, and the next read does not wait for a size loaded from memory.
    F0,
    F4,
    F8,
    F12,
    F16,
    F24,
    F32,
    F36,
    F48,
    F64,
    F72,
    F96,
    F128,
    /// A §5 string (String, StringName).
    Str,
    /// An Array: (Godot 4) type info selected by header bits 16–17, a count, the elements.
    Array,
    /// A Dictionary: (Godot 4) type info selected by header bits 16–19, a count, the pairs.
    Dictionary,
    /// An Object: an instance id (64-bit flag), or a class name and its properties.
    Object,
    /// A count and as many elements of [`Layout::size`] bytes.
    Packed,
    /// A PackedByteArray: a length, the bytes, padding (optional at the end of the input).
    Bytes,
    /// A PackedStringArray: a count and as many strings.
    Strings,
    /// A NodePath.
    NodePath,
    /// A Signal: a name and an object id.
    Signal,
    /// A type id the dialect does not have.
    Unknown,
}

impl Shape {
    /// The shape of a fixed payload of `n` bytes.
    const fn fixed(n: u8) -> Shape {
        match n {
            0 => Shape::F0,
            4 => Shape::F4,
            8 => Shape::F8,
            12 => Shape::F12,
            16 => Shape::F16,
            24 => Shape::F24,
            32 => Shape::F32,
            36 => Shape::F36,
            48 => Shape::F48,
            64 => Shape::F64,
            72 => Shape::F72,
            96 => Shape::F96,
            128 => Shape::F128,
            // Not a size of any type (checked at compile time by the tables below).
            _ => panic!("no fixed shape of this size"),
        }
    }
}

/// What the header of one type id (with or without the 64-bit flag) means in one dialect: its
/// type, the [`Shape`] of what follows, and the payload (or element) size without and with
/// the flag.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(4))]
pub(crate) struct Layout {
    pub(crate) ty: VariantType,
    pub(crate) shape: Shape,
    /// Bytes of a fixed payload or of one [`Packed`](Shape::Packed) element, indexed by the
    /// header's 64-bit flag: the two differ exactly when the flag applies.
    pub(crate) size: [u8; 2],
}

impl Layout {
    const UNKNOWN: Layout = Layout {
        ty: T::Nil,
        shape: Shape::Unknown,
        size: [0, 0],
    };

    /// The layout of `ty` in `dialect`, with the 64-bit flag set when `wide`.
    const fn of(ty: VariantType, dialect: Dialect, wide: bool) -> Layout {
        let g4 = matches!(dialect, Dialect::Godot4);
        // Real components: f32, or f64 under the 64-bit flag in Godot 4 only.
        const fn reals(n: u8, g4: bool) -> [u8; 2] {
            if g4 {
                [4 * n, 8 * n]
            } else {
                [4 * n, 4 * n]
            }
        }
        const F: Shape = Shape::F0; // any fixed shape: resolved from the size below
        let (shape, size) = match ty {
            T::Nil | T::Callable => (F, [0, 0]),
            T::Bool => (F, [4, 4]),
            T::Int | T::Float => (F, [4, 8]),
            T::String | T::StringName => (Shape::Str, [0, 0]),
            T::Vector2 => (F, reals(2, g4)),
            T::Vector2i => (F, [8, 8]),
            T::Rect2 | T::Vector4 | T::Plane | T::Quaternion => (F, reals(4, g4)),
            T::Rect2i | T::Vector4i | T::Color => (F, [16, 16]),
            T::Vector3 => (F, reals(3, g4)),
            T::Vector3i => (F, [12, 12]),
            T::Transform2D | T::Aabb => (F, reals(6, g4)),
            T::Basis => (F, reals(9, g4)),
            T::Transform3D => (F, reals(12, g4)),
            T::Projection => (F, reals(16, g4)),
            // A Godot 3 RID carries no payload.
            T::Rid => (F, if g4 { [8, 8] } else { [0, 0] }),
            T::NodePath => (Shape::NodePath, [0, 0]),
            T::Object => (Shape::Object, [0, 0]),
            T::Signal => (Shape::Signal, [0, 0]),
            T::Dictionary => (Shape::Dictionary, [0, 0]),
            T::Array => (Shape::Array, [0, 0]),
            T::PackedByteArray => (Shape::Bytes, [1, 1]),
            T::PackedInt32Array | T::PackedFloat32Array => (Shape::Packed, [4, 4]),
            T::PackedInt64Array | T::PackedFloat64Array => (Shape::Packed, [8, 8]),
            T::PackedStringArray => (Shape::Strings, [0, 0]),
            T::PackedVector2Array => (Shape::Packed, reals(2, g4)),
            T::PackedVector3Array => (Shape::Packed, reals(3, g4)),
            T::PackedColorArray => (Shape::Packed, [16, 16]),
            T::PackedVector4Array => (Shape::Packed, [16, 32]),
        };
        let shape = if matches!(shape, Shape::F0) {
            Shape::fixed(size[wide as usize])
        } else {
            shape
        };
        Layout { ty, shape, size }
    }

    /// The payload (or element) size for this `header`, by its 64-bit flag.
    #[inline]
    pub(crate) fn size(&self, header: u32) -> usize {
        // Without a load through memory: the two sizes as one word, shifted by 8 * flag.
        let both = u16::from_le_bytes(self.size);
        usize::from((both >> ((header >> 13) & 8)) as u8)
    }

    /// Whether the 64-bit flag changes the payload of this type.
    #[inline]
    pub(crate) fn flag_applies(&self) -> bool {
        self.size[0] != self.size[1]
    }
}

/// The layouts of one dialect's id table, indexed by a header's low byte plus 256 when its
/// 64-bit flag is set.
const fn layouts<const N: usize>(table: &[VariantType; N], dialect: Dialect) -> [Layout; 512] {
    let mut out = [Layout::UNKNOWN; 512];
    let mut id = 0;
    while id < N {
        out[id] = Layout::of(table[id], dialect, false);
        out[256 + id] = Layout::of(table[id], dialect, true);
        id += 1;
    }
    out
}

/// Where the layout of `header` is in a dialect's table: its low byte, plus 256 with the 64-bit
/// flag.
#[inline]
pub(crate) fn layout_index(header: u32) -> usize {
    ((header & 0xFF) | ((header >> 8) & 0x100)) as usize
}

/// The layouts of every header byte and 64-bit flag, per dialect (indexed by
/// `Dialect as usize`): one load per header, no bounds check.
static LAYOUTS: [[Layout; 512]; 2] = [
    layouts(&GODOT4, Dialect::Godot4),
    layouts(&GODOT3, Dialect::Godot3),
];

static GODOT4_IDS: [u8; 39] = ids_of(&GODOT4);
static GODOT3_IDS: [u8; 39] = ids_of(&GODOT3);

impl Dialect {
    #[inline]
    fn table(self) -> &'static [VariantType] {
        match self {
            Dialect::Godot4 => &GODOT4,
            Dialect::Godot3 => &GODOT3,
        }
    }

    /// The layout of the type whose id is the low byte of `header`, with its 64-bit flag
    /// (unknown ids included).
    #[inline]
    pub(crate) fn layout(self, header: u32) -> Layout {
        self.layouts()[layout_index(header)]
    }

    /// This dialect's layouts, indexed by [`layout_index`].
    #[inline]
    pub(crate) fn layouts(self) -> &'static [Layout; 512] {
        &LAYOUTS[self as usize]
    }

    /// The type a wire type id (the low byte of a header) stands for in this dialect.
    #[inline]
    pub fn type_of(self, id: u32) -> Option<VariantType> {
        self.table().get(id as usize).copied()
    }

    /// The wire type id of `ty` in this dialect, or `None` when the dialect has no such type.
    #[inline]
    pub fn id_of(self, ty: VariantType) -> Option<u32> {
        let ids = match self {
            Dialect::Godot4 => &GODOT4_IDS,
            Dialect::Godot3 => &GODOT3_IDS,
        };
        match ids[ty as usize] {
            NO_ID => None,
            id => Some(u32::from(id)),
        }
    }

    /// [`id_of`](Dialect::id_of) in a constant (it builds the inverse table each call: for
    /// compile-time use).
    #[cfg(feature = "serde")]
    pub(crate) const fn const_id_of(self, ty: VariantType) -> Option<u32> {
        let id = match self {
            Dialect::Godot4 => ids_of(&GODOT4)[ty as usize],
            Dialect::Godot3 => ids_of(&GODOT3)[ty as usize],
        };
        if id == NO_ID {
            None
        } else {
            Some(id as u32)
        }
    }

    /// The number of type ids of this dialect (39 for Godot 4, 27 for Godot 3).
    pub fn type_count(self) -> u32 {
        self.table().len() as u32
    }

    /// Every type of this dialect, in id order.
    pub fn types(self) -> impl ExactSizeIterator<Item = VariantType> + Clone {
        self.table().iter().copied()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Godot4 => "Godot 4",
            Dialect::Godot3 => "Godot 3",
        })
    }
}

impl VariantType {
    /// The type's Godot 4 name (`"PackedFloat32Array"`, `"AABB"`, …).
    pub fn name(self) -> &'static str {
        match self {
            T::Nil => "Nil",
            T::Bool => "bool",
            T::Int => "int",
            T::Float => "float",
            T::String => "String",
            T::Vector2 => "Vector2",
            T::Vector2i => "Vector2i",
            T::Rect2 => "Rect2",
            T::Rect2i => "Rect2i",
            T::Vector3 => "Vector3",
            T::Vector3i => "Vector3i",
            T::Transform2D => "Transform2D",
            T::Vector4 => "Vector4",
            T::Vector4i => "Vector4i",
            T::Plane => "Plane",
            T::Quaternion => "Quaternion",
            T::Aabb => "AABB",
            T::Basis => "Basis",
            T::Transform3D => "Transform3D",
            T::Projection => "Projection",
            T::Color => "Color",
            T::StringName => "StringName",
            T::NodePath => "NodePath",
            T::Rid => "RID",
            T::Object => "Object",
            T::Callable => "Callable",
            T::Signal => "Signal",
            T::Dictionary => "Dictionary",
            T::Array => "Array",
            T::PackedByteArray => "PackedByteArray",
            T::PackedInt32Array => "PackedInt32Array",
            T::PackedInt64Array => "PackedInt64Array",
            T::PackedFloat32Array => "PackedFloat32Array",
            T::PackedFloat64Array => "PackedFloat64Array",
            T::PackedStringArray => "PackedStringArray",
            T::PackedVector2Array => "PackedVector2Array",
            T::PackedVector3Array => "PackedVector3Array",
            T::PackedColorArray => "PackedColorArray",
            T::PackedVector4Array => "PackedVector4Array",
        }
    }

    /// The type's name in the given dialect (`Quat`, `Transform`, `PoolRealArray`, … in Godot 3).
    pub fn name_in(self, dialect: Dialect) -> &'static str {
        if dialect == Dialect::Godot4 {
            return self.name();
        }
        match self {
            T::Quaternion => "Quat",
            T::Transform3D => "Transform",
            T::PackedByteArray => "PoolByteArray",
            T::PackedInt32Array => "PoolIntArray",
            T::PackedFloat32Array => "PoolRealArray",
            T::PackedStringArray => "PoolStringArray",
            T::PackedVector2Array => "PoolVector2Array",
            T::PackedVector3Array => "PoolVector3Array",
            T::PackedColorArray => "PoolColorArray",
            T::Float => "real",
            other => other.name(),
        }
    }

    /// Whether values of this type hold other Variants (Array, Dictionary, Object).
    pub fn is_container(self) -> bool {
        matches!(self, T::Array | T::Dictionary | T::Object)
    }

    /// Whether this is a packed (pool) array type.
    pub fn is_packed_array(self) -> bool {
        matches!(
            self,
            T::PackedByteArray
                | T::PackedInt32Array
                | T::PackedInt64Array
                | T::PackedFloat32Array
                | T::PackedFloat64Array
                | T::PackedStringArray
                | T::PackedVector2Array
                | T::PackedVector3Array
                | T::PackedColorArray
                | T::PackedVector4Array
        )
    }
}

impl fmt::Display for VariantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read: the dialect, the depth limit, the object policy and the precision of the
/// engine whose reading the decoded values follow.
///
/// The defaults are the engine's: Godot 4, depth limit 1024, full objects refused, single
/// precision (as the engines that ship).
///
/// ```
/// use gdvariant::{Dialect, ReadOptions};
/// let opts = ReadOptions::new().with_dialect(Dialect::Godot3).with_max_depth(64).with_full_objects(true);
/// assert_eq!(opts.dialect(), Dialect::Godot3);
/// assert_eq!(opts.max_depth(), 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    pub(crate) dialect: Dialect,
    pub(crate) allow_objects: bool,
    pub(crate) max_depth: u32,
    pub(crate) double: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}

impl ReadOptions {
    /// The engine's defaults: Godot 4, depth limit 1024, no full objects.
    pub const fn new() -> ReadOptions {
        ReadOptions {
            dialect: Dialect::Godot4,
            allow_objects: false,
            max_depth: ENGINE_MAX_DEPTH,
            double: false,
        }
    }

    /// The defaults with the Godot 3 dialect.
    pub const fn godot3() -> ReadOptions {
        ReadOptions {
            dialect: Dialect::Godot3,
            allow_objects: false,
            max_depth: ENGINE_MAX_DEPTH,
            double: false,
        }
    }

    /// Chooses the dialect.
    #[must_use]
    pub const fn with_dialect(mut self, dialect: Dialect) -> ReadOptions {
        self.dialect = dialect;
        self
    }

    /// Sets the depth limit: a container at a depth greater than `depth` is an error (the
    /// top-level value is at depth 0). Values above [`MAX_DEPTH_LIMIT`] are clamped to it.
    #[must_use]
    pub const fn with_max_depth(mut self, depth: u32) -> ReadOptions {
        self.max_depth = if depth > MAX_DEPTH_LIMIT {
            MAX_DEPTH_LIMIT
        } else {
            depth
        };
        self
    }

    /// Allows full objects (class name and properties), as `bytes_to_var_with_objects` does.
    /// Object instance ids are always allowed.
    #[must_use]
    pub const fn with_full_objects(mut self, allow: bool) -> ReadOptions {
        self.allow_objects = allow;
        self
    }

    /// Reads values as a `precision=double` engine build does (`true`) or as a standard,
    /// single-precision build does (`false`, the default: the engines that ship).
    ///
    /// It matters for Godot 4 math values written with 64-bit components (flag 64: what a
    /// double-precision build writes): Vector2/3/4, Rect2, Transform2D, Plane, Quaternion, AABB,
    /// Basis, Transform3D, Projection and PackedVector2/3/4Array. A single-precision engine
    /// narrows their components to its `real_t`, `f32`; so do the decoded values
    /// ([`VariantRef::to_owned`](crate::VariantRef::to_owned)) and the text form. A
    /// double-precision build keeps the `f64`s. `float` values and PackedFloat64Array are
    /// always 64-bit; `f32` data reads the same either way. The lazy accessors
    /// ([`VariantRef::as_vector3`](crate::VariantRef::as_vector3) and the like) give the
    /// components as encoded, whatever this says.
    ///
    /// ```
    /// use gdvariant::ReadOptions;
    /// // Vector2(16777217, 0.5) with f64 components, as a double-precision build writes it
    /// let mut bytes = vec![5, 0, 1, 0];
    /// bytes.extend(16777217f64.to_le_bytes());
    /// bytes.extend(0.5f64.to_le_bytes());
    /// let v = gdvariant::parse(&bytes)?;
    /// assert_eq!(v.as_vector2()?.x, 16777217.0);         // as encoded
    /// # #[cfg(feature = "std")]
    /// assert_eq!(v.to_string(), "Vector2(16777216, 0.5)"); // what a standard engine reads
    /// let double = ReadOptions::new().with_double_precision(true);
    /// # #[cfg(feature = "std")]
    /// assert_eq!(gdvariant::parse_with(&bytes, &double)?.to_string(), "Vector2(16777217, 0.5)");
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    #[must_use]
    pub const fn with_double_precision(mut self, double: bool) -> ReadOptions {
        self.double = double;
        self
    }

    /// Whether values are read as a double-precision build reads them; see
    /// [`with_double_precision`](ReadOptions::with_double_precision).
    pub const fn double_precision(&self) -> bool {
        self.double
    }

    /// The dialect in force.
    pub const fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The depth limit in force.
    pub const fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Whether full objects are allowed.
    pub const fn full_objects(&self) -> bool {
        self.allow_objects
    }
}
