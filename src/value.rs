//! [`VariantRef`]: a lazy, borrowed view of one encoded value.

use core::fmt;

use crate::error::{Error, ErrorKind, Expected, Result};
use crate::head::{read_text, Body, Head};
use crate::leaf;
use crate::math::*;
use crate::reader::Reader;
use crate::strings::Text;
use crate::types::{Dialect, ReadOptions, VariantType};

/// A borrowed, lazy view of one encoded Variant.
///
/// Obtained from [`parse`](crate::parse) or from the iterators and lookups of containers. It is
/// `Copy` and small, never allocates and never copies the input: accessors read the bytes in
/// place. Accessors that expect another type return an [`ErrorKind::WrongType`] error.
///
/// Scalars, strings, math types, NodePaths and packed arrays of fixed-size elements are bounds
/// checked when the view is made. Containers (Array, Dictionary, full Object) and
/// PackedStringArray are walked only when you iterate them, look something up, or ask for their
/// [`raw`](VariantRef::raw) bytes.
///
/// # As encoded, and as the engine reads it
///
/// The lazy views ([`VariantRef`], [`ArrayRef`](crate::ArrayRef),
/// [`DictionaryRef`](crate::DictionaryRef), [`NodePathRef`](crate::object::NodePathRef),
/// [`ObjectRef`](crate::ObjectRef), [`PackedArrayRef`](crate::PackedArrayRef)) give what the bytes say, zero-copy:
/// every element and pair in byte order, math components at the width they were written,
/// text as it is encoded. What the engine's `bytes_to_var` makes of the same bytes can differ,
/// in crafted or unusual input:
///
/// - a typed Array or Dictionary converts or drops elements (keys) that do not have its type:
///   [`ArrayRef::engine_iter`](crate::ArrayRef::engine_iter), [`convert`](crate::convert);
/// - a Dictionary keeps one entry per key (the first key's position, the last value):
///   [`DictionaryRef::get`](crate::DictionaryRef::get) finds that value;
/// - a standard (single-precision) engine narrows 64-bit math components to `f32`
///   ([`ReadOptions::with_double_precision`]);
/// - Godot 3 reads the overlong UTF-8 forms it accepts as the characters they encode
///   ([`Text::to_string_lossy`](crate::text::Text::to_string_lossy)), and builds a NodePath without
///   names or subnames as the empty path.
///
/// [`to_owned`](VariantRef::to_owned) and the text form ([`text`](crate::text)) give the
/// engine's value; the lazy accessors stay as encoded.
#[derive(Clone, Copy)]
pub struct VariantRef<'a> {
    pub(crate) h: Head<'a>,
    pub(crate) depth: u32,
    pub(crate) opts: ReadOptions,
}

impl<'a> VariantRef<'a> {
    /// The value's type.
    #[inline]
    pub fn ty(&self) -> VariantType {
        self.h.ty
    }

    /// The absolute byte offset of the value's header in the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.h.offset
    }

    /// The raw 32-bit header (type id in the low byte, flags above).
    #[inline]
    pub fn header(&self) -> u32 {
        self.h.header
    }

    /// Whether the header's 64-bit flag (bit 16) applies to this value: 64-bit int or float,
    /// f64 components of a real-valued math type or packed vector array (Godot 4 only). Always
    /// false for types that ignore the flag.
    #[inline]
    pub fn is_wide(&self) -> bool {
        leaf::wide(self.h.header, &self.opts.dialect.layout(self.h.header))
    }

    /// The nesting depth of this value (the top-level value is at depth 0).
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The options the value was read with.
    #[inline]
    pub fn options(&self) -> ReadOptions {
        self.opts
    }

    /// The options the value was read with, by reference.
    #[inline]
    pub(crate) fn options_ref(&self) -> &ReadOptions {
        &self.opts
    }

    /// The dialect the value was read with.
    #[inline]
    pub fn dialect(&self) -> Dialect {
        self.opts.dialect
    }

    /// Whether the value is Nil.
    #[inline]
    pub fn is_nil(&self) -> bool {
        self.h.ty == VariantType::Nil
    }

    /// The declared count of a container or PackedStringArray: elements of an Array, pairs of
    /// a Dictionary, properties of a full object, strings of a PackedStringArray. 0 for every
    /// other type (packed arrays of fixed-size elements: see
    /// [`PackedArrayRef::len`](crate::PackedArrayRef::len)). O(1): nothing is walked.
    #[inline]
    pub fn count(&self) -> usize {
        self.h.count as usize
    }

    // ----- internal plumbing -----

    /// A view of the head `h` read at `depth` with `opts`.
    #[inline]
    pub(crate) fn new(h: Head<'a>, depth: u32, opts: ReadOptions) -> VariantRef<'a> {
        VariantRef { h, depth, opts }
    }

    /// The same view, sized to its first `len` bytes (the caller walked the body).
    #[inline]
    pub(crate) fn sized_to(self, len: usize) -> VariantRef<'a> {
        VariantRef {
            h: self.h.sized_to(len),
            ..self
        }
    }

    /// The body still to walk, if the size is not yet known.
    #[inline]
    pub(crate) fn body(&self) -> Option<Body> {
        self.h.body()
    }

    /// A cursor at the first element / property / string of the body.
    #[inline]
    pub(crate) fn body_reader(&self) -> Reader<'a> {
        self.h.body_reader()
    }

    /// The header and type info of a container, up to its first element.
    #[inline]
    pub(crate) fn raw_head(&self) -> &'a [u8] {
        self.h.data.get(..self.h.body_at as usize).unwrap_or(&[])
    }

    /// A cursor over the payload (after the header).
    #[inline]
    pub(crate) fn payload(&self) -> Reader<'a> {
        Reader::new(self.h.data.get(4..).unwrap_or(&[]), self.h.offset + 4)
    }

    pub(crate) fn wrong(&self, expected: Expected) -> Error {
        Error::wrong_type(self.h.offset, expected, self.h.ty)
    }

    #[inline]
    pub(crate) fn expect(&self, ty: VariantType) -> Result<()> {
        if self.h.ty == ty {
            Ok(())
        } else {
            Err(self.wrong(Expected::Type(ty)))
        }
    }

    // ----- scalars -----

    /// The payload read by `read` (one of the [`leaf`] decoders), whose `n` bytes the head has
    /// bounds-checked; a view cut short is an error at its payload.
    #[inline]
    fn leaf<T>(&self, n: usize, read: impl FnOnce(&'a [u8]) -> Option<T>) -> Result<T> {
        let p = self.payload();
        match read(p.rest()) {
            Some(x) => Ok(x),
            None => Err(p.eof(n)),
        }
    }

    /// The value of a bool: any non-zero payload is true, as in the engine.
    pub fn as_bool(&self) -> Result<bool> {
        self.expect(VariantType::Bool)?;
        self.leaf(4, leaf::boolean)
    }

    /// The value of an int (32-bit payloads are sign-extended).
    pub fn as_i64(&self) -> Result<i64> {
        self.expect(VariantType::Int)?;
        let wide = self.is_wide();
        self.leaf(if wide { 8 } else { 4 }, |p| leaf::int(p, wide))
    }

    /// The value of a float (32-bit payloads are widened exactly).
    pub fn as_f64(&self) -> Result<f64> {
        self.expect(VariantType::Float)?;
        let wide = self.is_wide();
        self.leaf(if wide { 8 } else { 4 }, |p| leaf::float(p, wide))
    }

    /// The text of a String or StringName as `&str`, borrowed from the input: a leading BOM is
    /// stripped and the text ends at the first NUL, as in the engine. Errors if the text is not
    /// valid UTF-8: [`ErrorKind::NotRustUtf8`] for Godot 3 text that only Godot 3 accepts
    /// (overlong forms, encoded surrogates, 5- and 6-byte forms), which a `&str` cannot borrow
    /// because the characters the engine reads are not the bytes; get them with
    /// [`as_text`](VariantRef::as_text)`()?.`[`to_string_lossy`](crate::text::Text::to_string_lossy)`()`
    /// or [`to_owned`](VariantRef::to_owned).
    pub fn as_str(&self) -> Result<&'a str> {
        if !matches!(self.h.ty, VariantType::String | VariantType::StringName) {
            return Err(self.wrong(Expected::StringLike));
        }
        let raw = self.string_bytes()?;
        let (t, skipped) = crate::strings::engine_text(raw);
        // One UTF-8 pass; the dialect's own check only to name an error (the bytes start after
        // the header and the length).
        match crate::strings::utf8(t) {
            Some(s) => Ok(s),
            None => Err(self.str_error(t, self.h.offset + 8 + skipped)),
        }
    }

    /// The raw bytes of a String or StringName (before the engine's BOM strip and NUL cut).
    #[inline]
    fn string_bytes(&self) -> Result<&'a [u8]> {
        match self.h.data.get(4..).and_then(leaf::plain_string::<false>) {
            Some((raw, _)) => Ok(raw),
            // Not plain (a view cut short): read the exact way, for the error.
            None => self.payload().read_string_raw().map(|(raw, _)| raw),
        }
    }

    /// The engine text of a String or StringName (BOM stripped, cut at a NUL), unchecked: for
    /// callers whose walk has checked it.
    #[cfg(feature = "serde")]
    pub(crate) fn text_bytes(&self) -> Result<&'a [u8]> {
        Ok(crate::strings::engine_text(self.string_bytes()?).0)
    }

    /// Why the text `t` at `at` is not a `&str`: invalid by the dialect's rules, or valid for
    /// the engine (Godot 3 reads more than UTF-8) but not Rust UTF-8.
    fn str_error(&self, t: &[u8], at: usize) -> Error {
        match crate::strings::check(t, self.opts.dialect, at) {
            Err(e) => e,
            Ok(()) => Error::new(ErrorKind::NotRustUtf8, at),
        }
    }

    /// The text of a String or StringName, checked by the dialect's rules.
    pub fn as_text(&self) -> Result<Text<'a>> {
        if !matches!(self.h.ty, VariantType::String | VariantType::StringName) {
            return Err(self.wrong(Expected::StringLike));
        }
        read_text(&mut self.payload(), self.opts.dialect)
    }

    /// The text of a StringName (Godot 4), as `&str`. Errors for a String.
    pub fn as_string_name(&self) -> Result<&'a str> {
        self.expect(VariantType::StringName)?;
        self.as_str()
    }

    /// The id of a RID (Godot 4). A Godot 3 RID carries no payload and reads as 0.
    pub fn as_rid(&self) -> Result<u64> {
        self.expect(VariantType::Rid)?;
        match self.opts.dialect {
            Dialect::Godot4 => self.payload().read_u64(),
            Dialect::Godot3 => Ok(0),
        }
    }

    // ----- math types -----

    fn reals<const N: usize>(&self, ty: VariantType) -> Result<[f64; N]> {
        self.expect(ty)?;
        let wide = self.is_wide();
        // Components are read exactly, NaN payloads included (see `math::widen`).
        self.leaf(N * if wide { 8 } else { 4 }, |p| leaf::reals(p, wide))
    }

    fn ints<const N: usize>(&self, ty: VariantType) -> Result<[i32; N]> {
        self.expect(ty)?;
        self.leaf(4 * N, leaf::ints)
    }

    /// A Vector2.
    pub fn as_vector2(&self) -> Result<Vector2> {
        self.reals(VariantType::Vector2).map(Vector2::from_array)
    }
    /// A Vector2i (Godot 4).
    pub fn as_vector2i(&self) -> Result<Vector2i> {
        self.ints(VariantType::Vector2i).map(Vector2i::from_array)
    }
    /// A Rect2.
    pub fn as_rect2(&self) -> Result<Rect2> {
        self.reals(VariantType::Rect2).map(Rect2::from_array)
    }
    /// A Rect2i (Godot 4).
    pub fn as_rect2i(&self) -> Result<Rect2i> {
        self.ints(VariantType::Rect2i).map(Rect2i::from_array)
    }
    /// A Vector3.
    pub fn as_vector3(&self) -> Result<Vector3> {
        self.reals(VariantType::Vector3).map(Vector3::from_array)
    }
    /// A Vector3i (Godot 4).
    pub fn as_vector3i(&self) -> Result<Vector3i> {
        self.ints(VariantType::Vector3i).map(Vector3i::from_array)
    }
    /// A Transform2D.
    pub fn as_transform2d(&self) -> Result<Transform2D> {
        self.reals(VariantType::Transform2D)
            .map(Transform2D::from_array)
    }
    /// A Vector4 (Godot 4).
    pub fn as_vector4(&self) -> Result<Vector4> {
        self.reals(VariantType::Vector4).map(Vector4::from_array)
    }
    /// A Vector4i (Godot 4).
    pub fn as_vector4i(&self) -> Result<Vector4i> {
        self.ints(VariantType::Vector4i).map(Vector4i::from_array)
    }
    /// A Plane.
    pub fn as_plane(&self) -> Result<Plane> {
        self.reals(VariantType::Plane).map(Plane::from_array)
    }
    /// A Quaternion (`Quat` in Godot 3).
    pub fn as_quaternion(&self) -> Result<Quaternion> {
        self.reals(VariantType::Quaternion)
            .map(Quaternion::from_array)
    }
    /// An AABB.
    pub fn as_aabb(&self) -> Result<Aabb> {
        self.reals(VariantType::Aabb).map(Aabb::from_array)
    }
    /// A Basis (row-major, as on the wire).
    pub fn as_basis(&self) -> Result<Basis> {
        self.reals(VariantType::Basis).map(Basis::from_array)
    }
    /// A Transform3D (`Transform` in Godot 3).
    pub fn as_transform3d(&self) -> Result<Transform3D> {
        self.reals(VariantType::Transform3D)
            .map(Transform3D::from_array)
    }
    /// A Projection (Godot 4).
    pub fn as_projection(&self) -> Result<Projection> {
        self.reals(VariantType::Projection)
            .map(Projection::from_array)
    }
    /// A Color (always f32 components).
    pub fn as_color(&self) -> Result<Color> {
        self.expect(VariantType::Color)?;
        self.leaf(16, leaf::singles).map(Color::from_array)
    }
}

impl fmt::Debug for VariantRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantRef")
            .field("ty", &self.h.ty)
            .field("offset", &self.h.offset)
            .field("header", &format_args!("{:#010x}", self.h.header))
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}
