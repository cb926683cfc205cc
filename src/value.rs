//! [`VariantRef`]: a lazy, borrowed view of one encoded value.

use core::fmt;

use crate::array::{ArrayRef, ContainerType};
use crate::dict::DictionaryRef;
use crate::error::{Error, ErrorKind, Expected, Result};
use crate::math::*;
use crate::object::{CallableRef, NodePathRef, ObjectRef, SignalRef};
use crate::packed::{Element, PackedArrayRef, PackedStringArrayRef};
use crate::reader::{pad4, Reader};
use crate::text::{self, Text};
use crate::types::{Dialect, Options, VariantType, FLAG_64};
use crate::validate;

/// What still has to be walked after a value's head: the body of a container or of a
/// PackedStringArray, whose size is not known from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Body {
    /// `count` array elements.
    Array,
    /// `count` key/value pairs.
    Dictionary,
    /// `count` (name, value) properties.
    Object,
    /// `count` strings.
    Strings,
}

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
#[derive(Clone, Copy)]
pub struct VariantRef<'a> {
    /// From the header on: exactly the value when `sized`, else to the end of the input.
    data: &'a [u8],
    offset: usize,
    header: u32,
    ty: VariantType,
    sized: bool,
    /// Where the elements (or the object's properties, or the strings) start, within `data`.
    body_at: u32,
    /// The element / pair / property / string count of a container or PackedStringArray.
    count: u32,
    depth: u32,
    opts: Options,
}

impl<'a> VariantRef<'a> {
    /// The value's type.
    #[inline]
    pub fn ty(&self) -> VariantType {
        self.ty
    }

    /// The absolute byte offset of the value's header in the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The raw 32-bit header (type id in the low byte, flags above).
    #[inline]
    pub fn header(&self) -> u32 {
        self.header
    }

    /// Whether the header's 64-bit flag (bit 16) applies to this value: 64-bit int or float,
    /// f64 components of a real-valued math type or packed vector array (Godot 4 only). Always
    /// false for types that ignore the flag.
    #[inline]
    pub fn is_wide(&self) -> bool {
        self.header & FLAG_64 != 0 && flag_applies(self.ty, self.opts.dialect)
    }

    /// The nesting depth of this value (the top-level value is at depth 0).
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The options the value was read with.
    #[inline]
    pub fn options(&self) -> Options {
        self.opts
    }

    /// The dialect the value was read with.
    #[inline]
    pub fn dialect(&self) -> Dialect {
        self.opts.dialect
    }

    /// Whether the value is Nil.
    #[inline]
    pub fn is_nil(&self) -> bool {
        self.ty == VariantType::Nil
    }

    /// The value's exact encoded bytes, header included, borrowed from the input: forward a
    /// sub-tree unchanged with these. For a container whose end is not yet known this walks it
    /// (without allocating) and reports the first structural error.
    pub fn raw(&self) -> Result<&'a [u8]> {
        if self.sized {
            return Ok(self.data);
        }
        let mut r = Reader::new(self.data, self.offset);
        r.skip(self.body_at as usize)?;
        if let Some(body) = self.body() {
            validate::walk_body(&mut r, self.depth, body, self.count, &self.opts, false)?;
        }
        Ok(r.since(0))
    }

    /// The number of bytes the value occupies (see [`raw`](VariantRef::raw)).
    pub fn byte_len(&self) -> Result<usize> {
        self.raw().map(<[u8]>::len)
    }

    /// Returns the value with its size determined (walking its body if needed), so that
    /// [`raw`](VariantRef::raw) is O(1) afterwards.
    pub fn sized(self) -> Result<VariantRef<'a>> {
        let data = self.raw()?;
        Ok(VariantRef {
            data,
            sized: true,
            ..self
        })
    }

    /// Validates the whole value (every bound, every string's UTF-8, depth, object policy) and
    /// returns its length in bytes; see [`validate`](crate::validate()).
    pub fn validate(&self) -> Result<usize> {
        let mut r = Reader::new(self.data, self.offset);
        let v = head(&mut r, self.depth, &self.opts, true)?;
        if let Some(body) = v.body() {
            validate::walk_body(&mut r, v.depth, body, v.count, &v.opts, true)?;
        }
        Ok(r.pos())
    }

    // ----- internal plumbing -----

    /// The body still to walk, if the size is not yet known.
    #[inline]
    pub(crate) fn body(&self) -> Option<Body> {
        if self.sized {
            return None;
        }
        Some(match self.ty {
            VariantType::Array => Body::Array,
            VariantType::Dictionary => Body::Dictionary,
            VariantType::Object => Body::Object,
            VariantType::PackedStringArray => Body::Strings,
            _ => return None,
        })
    }

    #[inline]
    pub(crate) fn count(&self) -> u32 {
        self.count
    }

    /// A cursor at the first element / property / string of the body.
    #[inline]
    pub(crate) fn body_reader(&self) -> Reader<'a> {
        let at = self.body_at as usize;
        Reader::new(self.data.get(at..).unwrap_or(&[]), self.offset + at)
    }

    /// The header and type info of a container, up to its first element.
    #[inline]
    pub(crate) fn raw_head(&self) -> &'a [u8] {
        self.data.get(..self.body_at as usize).unwrap_or(&[])
    }

    /// A cursor over the payload (after the header).
    #[inline]
    fn payload(&self) -> Reader<'a> {
        Reader::new(self.data.get(4..).unwrap_or(&[]), self.offset + 4)
    }

    #[cold]
    fn wrong(&self, expected: Expected) -> Error {
        Error::wrong_type(self.offset, expected, self.ty)
    }

    #[inline]
    fn expect(&self, ty: VariantType) -> Result<()> {
        if self.ty == ty {
            Ok(())
        } else {
            Err(self.wrong(Expected::Type(ty)))
        }
    }

    // ----- scalars -----

    /// The value of a bool: any non-zero payload is true, as in the engine.
    pub fn as_bool(&self) -> Result<bool> {
        self.expect(VariantType::Bool)?;
        Ok(self.payload().read_u32()? != 0)
    }

    /// The value of an int (32-bit payloads are sign-extended).
    pub fn as_i64(&self) -> Result<i64> {
        self.expect(VariantType::Int)?;
        let mut p = self.payload();
        if self.header & FLAG_64 != 0 {
            p.read_i64()
        } else {
            p.read_i32().map(i64::from)
        }
    }

    /// The value of a float (32-bit payloads are widened exactly).
    pub fn as_f64(&self) -> Result<f64> {
        self.expect(VariantType::Float)?;
        self.payload().read_real(self.header & FLAG_64 != 0)
    }

    /// The text of a String or StringName as `&str`, borrowed from the input: a leading BOM is
    /// stripped and the text ends at the first NUL, as in the engine. Errors if the text is not
    /// valid UTF-8 ([`ErrorKind::NotRustUtf8`] for Godot 3 text that only Godot 3 accepts; see
    /// [`as_text`](VariantRef::as_text)).
    pub fn as_str(&self) -> Result<&'a str> {
        let t = self.as_text()?;
        t.as_str().ok_or_else(|| {
            // Point at the text: after the header, the length and a stripped BOM.
            let bom = self.data.get(8..11) == Some(b"\xEF\xBB\xBF".as_slice());
            Error::new(
                ErrorKind::NotRustUtf8,
                self.offset + 8 + if bom { 3 } else { 0 },
            )
        })
    }

    /// The text of a String or StringName, checked by the dialect's rules.
    pub fn as_text(&self) -> Result<Text<'a>> {
        if !matches!(self.ty, VariantType::String | VariantType::StringName) {
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
        let mut p = self.payload();
        let mut out = [0.0; N];
        for v in &mut out {
            *v = p.read_real(wide)?;
        }
        Ok(out)
    }

    fn ints<const N: usize>(&self, ty: VariantType) -> Result<[i32; N]> {
        self.expect(ty)?;
        let mut p = self.payload();
        let mut out = [0; N];
        for v in &mut out {
            *v = p.read_i32()?;
        }
        Ok(out)
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
        let mut p = self.payload();
        Ok(Color::new(
            p.read_f32()?,
            p.read_f32()?,
            p.read_f32()?,
            p.read_f32()?,
        ))
    }

    // ----- composite views -----

    /// A NodePath's names, subnames and absolute flag.
    pub fn as_node_path(&self) -> Result<NodePathRef<'a>> {
        self.expect(VariantType::NodePath)?;
        NodePathRef::read(self.payload(), self.opts.dialect)
    }

    /// An Object: an instance id, or (when objects are allowed) a full object's class name and
    /// properties.
    pub fn as_object(&self) -> Result<ObjectRef<'a>> {
        self.expect(VariantType::Object)?;
        if self.header & FLAG_64 != 0 {
            return Ok(ObjectRef::Id(self.payload().read_u64()?));
        }
        ObjectRef::full(*self)
    }

    /// A Callable (Godot 4): it carries no payload on the wire (the engine decodes it to an
    /// empty Callable), so this only checks the type.
    pub fn as_callable(&self) -> Result<CallableRef> {
        self.expect(VariantType::Callable).map(|()| CallableRef)
    }

    /// A Signal's name and object id (Godot 4).
    pub fn as_signal(&self) -> Result<SignalRef<'a>> {
        self.expect(VariantType::Signal)?;
        let mut p = self.payload();
        let name = read_text(&mut p, self.opts.dialect)?;
        Ok(SignalRef {
            name,
            object_id: p.read_u64()?,
        })
    }

    /// An Array view.
    pub fn as_array(&self) -> Result<ArrayRef<'a>> {
        self.expect(VariantType::Array)?;
        Ok(ArrayRef::new(*self))
    }

    /// A Dictionary view.
    pub fn as_dictionary(&self) -> Result<DictionaryRef<'a>> {
        self.expect(VariantType::Dictionary)?;
        Ok(DictionaryRef::new(*self))
    }

    /// The bytes of a PackedByteArray (PoolByteArray), borrowed from the input.
    pub fn as_byte_array(&self) -> Result<&'a [u8]> {
        self.expect(VariantType::PackedByteArray)?;
        let mut p = self.payload();
        let n = p.read_len()?;
        p.read_bytes(n)
    }

    /// A packed array of fixed-size elements, viewed in place: `as_packed::<f32>()` for a
    /// PackedFloat32Array, `as_packed::<[f32; 3]>()` for a single-precision PackedVector3Array,
    /// `as_packed::<[f64; 3]>()` for a double-precision one, `as_packed::<Color>()`, …
    pub fn as_packed<T: Element>(&self) -> Result<PackedArrayRef<'a, T>> {
        if !T::matches(self.ty, self.is_wide()) {
            return Err(self.wrong(Expected::PackedOf(T::NAME)));
        }
        let mut p = self.payload();
        let n = p.read_len()?;
        let at = p.offset();
        let bytes = p.read_elements(n, core::mem::size_of::<T>())?;
        Ok(PackedArrayRef::new(bytes, at))
    }

    /// A PackedStringArray (PoolStringArray) view.
    pub fn as_string_array(&self) -> Result<PackedStringArrayRef<'a>> {
        self.expect(VariantType::PackedStringArray)?;
        Ok(PackedStringArrayRef::new(*self))
    }

    /// Looks up a path of dictionary keys and array indices separated by `/`, such as
    /// `entities/9999/pos`, without decoding anything else. A segment is tried as a string key
    /// of a dictionary, then (if it is a number) as an int key; on an array or packed array
    /// it is an index. `Ok(None)` when some step does not exist.
    pub fn path(&self, path: &str) -> Result<Option<VariantRef<'a>>> {
        let mut cur = *self;
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            let next = match cur.ty {
                VariantType::Dictionary => {
                    let d = DictionaryRef::new(cur);
                    match d.get(seg)? {
                        Some(v) => Some(v),
                        None => match seg.parse::<i64>() {
                            Ok(i) => d.get(i)?,
                            Err(_) => None,
                        },
                    }
                }
                VariantType::Array => match seg.parse::<usize>() {
                    Ok(i) => ArrayRef::new(cur).get(i)?,
                    Err(_) => None,
                },
                _ => None,
            };
            match next {
                Some(v) => cur = v,
                None => return Ok(None),
            }
        }
        Ok(Some(cur))
    }
}

impl fmt::Debug for VariantRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantRef")
            .field("ty", &self.ty)
            .field("offset", &self.offset)
            .field("header", &format_args!("{:#010x}", self.header))
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

/// Whether the 64-bit flag changes the payload of `ty` in `dialect`.
pub(crate) fn flag_applies(ty: VariantType, dialect: Dialect) -> bool {
    use VariantType as T;
    match ty {
        T::Int | T::Float => true,
        T::Vector2
        | T::Rect2
        | T::Vector3
        | T::Transform2D
        | T::Vector4
        | T::Plane
        | T::Quaternion
        | T::Aabb
        | T::Basis
        | T::Transform3D
        | T::Projection
        | T::PackedVector2Array
        | T::PackedVector3Array
        | T::PackedVector4Array => dialect == Dialect::Godot4,
        _ => false,
    }
}

/// Reads a §5 string at the cursor and returns its text checked by the dialect's rules.
#[inline]
pub(crate) fn read_text<'a>(r: &mut Reader<'a>, dialect: Dialect) -> Result<Text<'a>> {
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = text::engine_text(raw);
    text::check(t, dialect, at + skipped)?;
    Ok(Text::new(t))
}

/// Reads a §5 string, checking its text only when `check` is set; returns the engine text.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn read_string<'a>(
    r: &mut Reader<'a>,
    dialect: Dialect,
    check: bool,
) -> Result<&'a [u8]> {
    let (raw, at) = r.read_string_raw()?;
    let (t, skipped) = text::engine_text(raw);
    if check {
        text::check(t, dialect, at + skipped)?;
    }
    Ok(t)
}

/// Skips a §5 string whose text is not needed; with `check`, checks it by the dialect's rules.
/// An all-ASCII string is valid whatever its NUL bytes, so it needs no NUL scan.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn skip_string(r: &mut Reader<'_>, dialect: Dialect, check: bool) -> Result<()> {
    let (raw, at) = r.read_string_raw()?;
    if check && !raw.is_ascii() {
        let (t, skipped) = text::engine_text(raw);
        text::check(t, dialect, at + skipped)?;
    }
    Ok(())
}

/// The number of real components of a math type, or `None` for other types.
fn real_components(ty: VariantType) -> Option<usize> {
    use VariantType as T;
    Some(match ty {
        T::Vector2 => 2,
        T::Rect2 | T::Vector4 | T::Plane | T::Quaternion => 4,
        T::Vector3 => 3,
        T::Transform2D | T::Aabb => 6,
        T::Basis => 9,
        T::Transform3D => 12,
        T::Projection => 16,
        _ => return None,
    })
}

/// Reads the head of the value at the cursor: its header and every part whose size is known
/// from it and its length words (all of a scalar, string, math type, NodePath or fixed-size
/// packed array; the type info and count of a container). Leaves the cursor after the value, or
/// at the first element of a container / PackedStringArray, whose [`Body`] remains to be walked.
/// With `check`, strings read here are checked by the dialect's UTF-8 rules.
// Inlined into the walks in optimised builds: returning the view through memory cost ~30%
// of validate's time (store-forwarding stalls). Debug builds keep the smaller walk frame.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn head<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    opts: &Options,
    check: bool,
) -> Result<VariantRef<'a>> {
    use VariantType as T;
    let start = r.pos();
    let offset = r.offset();
    if depth > opts.max_depth {
        return Err(Error::new(
            ErrorKind::DepthExceeded {
                limit: opts.max_depth,
            },
            offset,
        ));
    }
    let header = r.read_u32()?;
    let id = header & 0xFF;
    let dialect = opts.dialect;
    let Some(ty) = dialect.type_of(id) else {
        return Err(Error::new(ErrorKind::UnknownType { id }, offset));
    };
    let wide = header & FLAG_64 != 0;
    let mut count = 0u32;
    let mut has_body = false;
    match ty {
        T::Nil | T::Callable => {}
        T::Bool => r.skip(4)?,
        T::Int | T::Float => r.skip(if wide { 8 } else { 4 })?,
        T::String | T::StringName => skip_string(r, dialect, check)?,
        T::Vector2i => r.skip(8)?,
        T::Vector3i => r.skip(12)?,
        T::Rect2i | T::Vector4i | T::Color => r.skip(16)?,
        T::NodePath => {
            NodePathRef::skip(r, dialect, check)?;
        }
        T::Rid => {
            if dialect == Dialect::Godot4 {
                r.skip(8)?;
            }
        }
        T::Object => {
            if wide {
                r.skip(8)?;
            } else {
                if !opts.allow_objects {
                    return Err(Error::new(ErrorKind::ObjectsNotAllowed, offset));
                }
                let class = read_string(r, dialect, check)?;
                if !class.is_empty() {
                    // A negative property count reads as none, as in the engine.
                    count = r.read_i32()?.max(0) as u32;
                    has_body = true;
                }
            }
        }
        T::Signal => {
            skip_string(r, dialect, check)?;
            r.skip(8)?;
        }
        T::Array | T::Dictionary => {
            if dialect == Dialect::Godot4 {
                let kinds = if ty == T::Array { 1 } else { 2 };
                for k in 0..kinds {
                    let kind = (header >> (16 + 2 * k)) & 3;
                    if kind != 0 {
                        read_container_type(r, kind, opts, check)?;
                    }
                }
            }
            count = r.read_count()?;
            has_body = true;
        }
        T::PackedByteArray => {
            let n = r.read_len()?;
            r.skip(n)?;
            // The engine does not require the padding of the last value in a buffer.
            let pad = (pad4(n) - n).min(r.remaining());
            r.skip(pad)?;
        }
        T::PackedInt32Array | T::PackedFloat32Array => skip_elements(r, 4)?,
        T::PackedInt64Array | T::PackedFloat64Array => skip_elements(r, 8)?,
        T::PackedVector2Array => skip_elements(
            r,
            if wide && dialect == Dialect::Godot4 {
                16
            } else {
                8
            },
        )?,
        T::PackedVector3Array => skip_elements(
            r,
            if wide && dialect == Dialect::Godot4 {
                24
            } else {
                12
            },
        )?,
        T::PackedVector4Array => skip_elements(r, if wide { 32 } else { 16 })?,
        T::PackedColorArray => skip_elements(r, 16)?,
        T::PackedStringArray => {
            // A negative count reads as an empty array, as in the engine.
            count = r.read_i32()?.max(0) as u32;
            has_body = true;
        }
        _ => {
            // Real-valued math types.
            let n = real_components(ty).unwrap_or(0);
            let size = if wide && dialect == Dialect::Godot4 {
                8
            } else {
                4
            };
            r.skip(n * size)?;
        }
    }
    let body_at = r.pos() - start;
    let data = if has_body {
        r.data().get(start..).unwrap_or(&[])
    } else {
        r.since(start)
    };
    Ok(VariantRef {
        data,
        offset,
        header,
        ty,
        sized: !has_body,
        body_at: body_at as u32,
        count,
        depth,
        opts: *opts,
    })
}

fn skip_elements(r: &mut Reader<'_>, size: usize) -> Result<()> {
    let n = r.read_len()?;
    r.read_elements(n, size).map(drop)
}

/// Reads one container type-info entry of the given kind (bits of the header), checking the
/// text of a class name or script path only with `check`.
pub(crate) fn read_container_type<'a>(
    r: &mut Reader<'a>,
    kind: u32,
    opts: &Options,
    check: bool,
) -> Result<ContainerType<'a>> {
    match kind {
        0 => Ok(ContainerType::None),
        1 => {
            let at = r.offset();
            let id = r.read_u32()?;
            match Dialect::Godot4.type_of(id) {
                Some(t) => Ok(ContainerType::Builtin(t)),
                None => Err(Error::new(ErrorKind::InvalidContainerType { id }, at)),
            }
        }
        2 => Ok(ContainerType::ClassName(Text::new(read_string(
            r,
            opts.dialect,
            check,
        )?))),
        _ => {
            let at = r.offset();
            let path = read_string(r, opts.dialect, check)?;
            // With objects allowed the engine loads the script: it must be a res:// path.
            if opts.allow_objects && !path.starts_with(b"res://") {
                return Err(Error::new(ErrorKind::InvalidObjectScript, at));
            }
            Ok(ContainerType::Script(Text::new(path)))
        }
    }
}

/// Reads one whole value at the cursor, walking its body if it has one, so that the returned
/// view knows its exact size. Strings inside are not checked (that happens on access).
#[inline]
pub(crate) fn read_value<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    opts: &Options,
) -> Result<VariantRef<'a>> {
    let start = r.pos();
    let mut v = head(r, depth, opts, false)?;
    if let Some(body) = v.body() {
        validate::walk_body(r, depth, body, v.count, opts, false)?;
        v.data = r.since(start);
        v.sized = true;
    }
    Ok(v)
}

/// Skips one whole value at the cursor.
#[inline]
pub(crate) fn skip_value(r: &mut Reader<'_>, depth: u32, opts: &Options) -> Result<()> {
    let v = head(r, depth, opts, false)?;
    if let Some(body) = v.body() {
        validate::walk_body(r, depth, body, v.count, opts, false)?;
    }
    Ok(())
}
