//! [`EncodeOptions`]: how the encoder writes (dialect, precision, objects, depth limit).

use crate::types::{Dialect, ENGINE_MAX_DEPTH, MAX_DEPTH_LIMIT};

/// How to write: the dialect, the precision of real numbers, the object policy and the depth
/// limit.
///
/// The defaults are the engine's `var_to_bytes`: Godot 4, single precision, no full objects,
/// depth limit 1024.
///
/// ```
/// use gdvariant::{Dialect, EncodeOptions};
/// let opts = EncodeOptions::new().with_dialect(Dialect::Godot4).with_double_precision(true).with_full_objects(true);
/// assert!(opts.double_precision());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncodeOptions {
    pub(crate) dialect: Dialect,
    pub(crate) double: bool,
    pub(crate) full_objects: bool,
    pub(crate) max_depth: u32,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions::new()
    }
}

impl EncodeOptions {
    /// The engine's `var_to_bytes` defaults: Godot 4, single precision, no full objects.
    pub const fn new() -> EncodeOptions {
        EncodeOptions {
            dialect: Dialect::Godot4,
            double: false,
            full_objects: false,
            max_depth: ENGINE_MAX_DEPTH,
        }
    }

    /// The defaults with the Godot 3 dialect.
    pub const fn godot3() -> EncodeOptions {
        EncodeOptions::new().with_dialect(Dialect::Godot3)
    }

    /// Chooses the dialect.
    #[must_use]
    pub const fn with_dialect(mut self, dialect: Dialect) -> EncodeOptions {
        self.dialect = dialect;
        self
    }

    /// Writes real-valued math types (Vector2/3/4, Rect2, Transform2D, Plane, Quaternion, AABB,
    /// Basis, Transform3D, Projection) and PackedVector2/3/4Array with f64 components and the
    /// 64-bit flag, as a `precision=double` Godot 4 build does. Ignored in Godot 3, which has no
    /// double-precision form. Off by default (official builds are single precision: components
    /// are rounded to f32).
    #[must_use]
    pub const fn with_double_precision(mut self, double: bool) -> EncodeOptions {
        self.double = double;
        self
    }

    /// Writes [`Object::Full`](crate::Object::Full) values as full objects, as `var_to_bytes_with_objects` does, and
    /// class- or script-typed containers with their class name or script path. Without it a
    /// non-null full object is an [`ErrorKind::ObjectsNotAllowed`](crate::ErrorKind::ObjectsNotAllowed) error (the engine would write
    /// the instance id, which an owned tree does not have), and class- or script-typed
    /// containers are written as class `EncodedObjectAsID`, as `var_to_bytes` does.
    #[must_use]
    pub const fn with_full_objects(mut self, full: bool) -> EncodeOptions {
        self.full_objects = full;
        self
    }

    /// Sets the depth limit: a value at a depth greater than `depth` is an error (the top-level
    /// value is at depth 0). Clamped to [`MAX_DEPTH_LIMIT`]. Default 1024, the engine's.
    #[must_use]
    pub const fn with_max_depth(mut self, depth: u32) -> EncodeOptions {
        self.max_depth = if depth > MAX_DEPTH_LIMIT {
            MAX_DEPTH_LIMIT
        } else {
            depth
        };
        self
    }

    /// The dialect in force.
    pub const fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Whether real-valued math types are written with f64 components (Godot 4 only).
    pub const fn double_precision(&self) -> bool {
        self.double
    }

    /// Whether full objects are written.
    pub const fn full_objects(&self) -> bool {
        self.full_objects
    }

    /// The depth limit in force.
    pub const fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Whether f64 components are written (double precision in Godot 4).
    #[inline]
    pub(crate) fn wide(&self) -> bool {
        self.double && self.dialect == Dialect::Godot4
    }
}
