//! [`Writer`]: a streaming encoder that writes values one by one without building a tree.
//!
//! It produces exactly the bytes [`encode`](crate::encode()) produces for the equivalent
//! [`Variant`] (both share one implementation of every payload). Containers are opened, filled
//! and closed; their element count is given up front and checked, or patched in when the
//! container closes.
//!
//! ```
//! use gdvariant::{EncodeOptions, Variant, math::Vector3, Writer};
//! let mut w = Writer::new(EncodeOptions::new());
//! w.begin_dictionary(None)?;          // count patched on `end`
//! w.string("tick")?;
//! w.int(7)?;
//! w.string("pos")?;
//! w.vector3(Vector3::new(1.0, 2.0, 3.0))?;
//! w.string("samples")?;
//! w.packed_f32(&[0.5, 1.0])?;         // one copy on little-endian hosts
//! w.end()?;
//! let bytes = w.finish()?;
//!
//! let mut d = gdvariant::Dictionary::new();
//! d.insert("tick", 7);
//! d.insert("pos", Vector3::new(1.0, 2.0, 3.0));
//! d.insert("samples", vec![0.5f32, 1.0]);
//! assert_eq!(bytes, gdvariant::encode(&Variant::Dictionary(d))?);
//! # Ok::<(), gdvariant::Error>(())
//! ```

use alloc::vec::Vec;

use crate::encode::{Enc, EncodeOptions, IdCache};
use crate::error::{Error, ErrorKind, Result};
use crate::math::*;
use crate::owned::{NodePath, RawValue, TypeInfo, Variant};
use crate::types::VariantType;
use crate::value::VariantRef;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Array,
    Dictionary,
    Object,
}

#[derive(Clone, Copy, Debug)]
struct Open {
    kind: Kind,
    /// Where the count word sits in the buffer.
    count_at: usize,
    /// The declared number of values (a dictionary counts keys and values), or `None` to patch.
    declared: Option<u64>,
    /// Values written so far (keys and values for a dictionary).
    written: u64,
    /// For an object: whether the next property's name has been written.
    named: bool,
    /// For an object: whether that name is the Godot 4 `script` property.
    script: bool,
}

/// A streaming encoder; see the [module docs](self).
///
/// Every method checks its use: writing more values than a container declared, closing a
/// container that is not open or that holds fewer values than declared, a dictionary key without
/// a value, an object property value without a name, and [`finish`](Writer::finish) with open
/// containers are [`ErrorKind::WriterMisuse`] errors. A value the dialect cannot hold is an
/// error as in [`encode`](crate::encode()). After an error the writer is unchanged (the failed
/// value is not written) and can go on.
///
/// Several top-level values may be written one after the other; they are simply concatenated.
#[derive(Clone, Debug)]
pub struct Writer {
    buf: Vec<u8>,
    /// Where the writer's output starts in `buf` (error offsets are relative to it).
    base: usize,
    opts: EncodeOptions,
    ids: IdCache,
    stack: Vec<Open>,
}

fn misuse(what: &'static str, at: usize) -> Error {
    Error::new(ErrorKind::WriterMisuse { what }, at)
}

impl Default for Writer {
    /// A writer with the engine's `var_to_bytes` defaults (Godot 4, single precision).
    fn default() -> Writer {
        Writer::new(EncodeOptions::new())
    }
}

/// Closes a container whose `written` values (keys and values both counted) hold `items`
/// elements: checks them against the `declared` count, or patches the count word at
/// `count_at` in `buf` when none was declared. `at` is the offset for an error. Shared by the
/// writer and serde's direct serializer.
pub(crate) fn close_count(
    buf: &mut [u8],
    count_at: usize,
    declared: Option<u64>,
    written: u64,
    items: u64,
    at: usize,
) -> Result<()> {
    match declared {
        Some(d) if d != written => Err(misuse(
            "fewer values than the container's declared count",
            at,
        )),
        Some(_) => Ok(()),
        None => {
            if items > i32::MAX as u64 {
                return Err(Error::new(ErrorKind::TooLong, at));
            }
            if let Some(slot) = buf.get_mut(count_at..count_at + 4) {
                slot.copy_from_slice(&(items as u32).to_le_bytes());
            }
            Ok(())
        }
    }
}

impl Writer {
    /// A writer with an empty buffer.
    pub fn new(opts: EncodeOptions) -> Writer {
        Writer::with_buffer(Vec::new(), opts)
    }

    /// A writer that appends to `buf` (get it back with [`finish`](Writer::finish) or
    /// [`into_inner`](Writer::into_inner)).
    pub fn with_buffer(buf: Vec<u8>, opts: EncodeOptions) -> Writer {
        Writer {
            base: buf.len(),
            buf,
            opts,
            ids: IdCache::new(),
            stack: Vec::new(),
        }
    }

    /// A writer that appends to `buf`, with error offsets relative to `base`, as if `depth`
    /// containers (patched Arrays) were open: the serde serializer of `to_vec` hands it the
    /// values it writes through the writer's object API, at the depth it has reached.
    #[cfg(feature = "serde")]
    pub(crate) fn resume(buf: Vec<u8>, base: usize, opts: EncodeOptions, depth: usize) -> Writer {
        let open = Open {
            kind: Kind::Array,
            count_at: 0,
            declared: None,
            written: 0,
            named: false,
            script: false,
        };
        Writer {
            base,
            buf,
            opts,
            ids: IdCache::new(),
            stack: alloc::vec![open; depth],
        }
    }

    /// The options in force.
    pub fn options(&self) -> &EncodeOptions {
        &self.opts
    }

    /// The bytes written so far (including what the buffer held before).
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The number of open containers (the depth of the next value).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Returns the buffer; errors if a container is still open.
    pub fn finish(self) -> Result<Vec<u8>> {
        if !self.stack.is_empty() {
            return Err(misuse(
                "finish with open containers",
                self.buf.len() - self.base,
            ));
        }
        Ok(self.buf)
    }

    /// Returns the buffer as it is, open containers or not.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// Checks that a value may be written now, at depth `stack.len()`.
    #[inline]
    fn check_slot(&self) -> Result<()> {
        let Some(top) = self.stack.last() else {
            return Ok(());
        };
        let at = self.buf.len() - self.base;
        if let Some(d) = top.declared {
            if top.written >= d {
                return Err(misuse(
                    "more values than the container's declared count",
                    at,
                ));
            }
        }
        if top.kind == Kind::Object && !top.named {
            return Err(misuse("object property value without a name", at));
        }
        Ok(())
    }

    #[inline]
    fn commit_slot(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            top.written += 1;
            top.named = false;
            top.script = false;
        }
    }

    /// Writes one value with `f`, checking the slot first and undoing a partial write.
    #[inline]
    fn put(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()> {
        self.check_slot()?;
        let start = self.buf.len();
        let depth = self.stack.len();
        let script = self.stack.last().is_some_and(|t| t.script);
        let mut e = Enc {
            out: &mut self.buf,
            base: self.base,
            opts: &self.opts,
            ids: &mut self.ids,
            depth,
        };
        let res = e
            .check_depth(depth)
            .and_then(|()| f(&mut e))
            .and_then(|()| {
                if script {
                    e.check_script_at(start)
                } else {
                    Ok(())
                }
            });
        match res {
            Ok(()) => {
                self.commit_slot();
                Ok(())
            }
            Err(err) => {
                self.buf.truncate(start);
                Err(err)
            }
        }
    }

    /// Writes one leaf value with `f`, one of the encoder's primitives, for the serde
    /// serializer: [`put`](Writer::put), inlined into the serializer's methods.
    #[cfg(feature = "serde")]
    #[inline]
    pub(crate) fn serde_leaf(&mut self, f: impl FnOnce(&mut Enc<'_>) -> Result<()>) -> Result<()> {
        self.put(f)
    }

    /// Opens a container whose head `f` writes (returning where its count sits).
    fn open(
        &mut self,
        kind: Kind,
        count: Option<usize>,
        per: u64,
        f: impl FnOnce(&mut Enc<'_>, usize) -> Result<usize>,
    ) -> Result<()> {
        let mut count_at = 0;
        self.put(|e| {
            count_at = f(e, count.unwrap_or(0))?;
            Ok(())
        })?;
        self.stack.push(Open {
            kind,
            count_at,
            declared: count.map(|c| c as u64 * per),
            written: 0,
            named: false,
            script: false,
        });
        Ok(())
    }

    /// Opens an untyped Array of `count` elements, or of as many as are written before
    /// [`end`](Writer::end) when `None`.
    pub fn begin_array(&mut self, count: Option<usize>) -> Result<()> {
        self.begin_typed_array(&TypeInfo::None, count)
    }

    /// Opens a typed Array (Godot 4.3+); see [`begin_array`](Writer::begin_array).
    pub fn begin_typed_array(&mut self, element: &TypeInfo, count: Option<usize>) -> Result<()> {
        self.open(Kind::Array, count, 1, |e, n| e.array_head(element, n))
    }

    /// Opens an untyped Dictionary of `count` pairs (or patched on [`end`](Writer::end) when
    /// `None`); write each key, then its value.
    pub fn begin_dictionary(&mut self, count: Option<usize>) -> Result<()> {
        self.begin_typed_dictionary(&TypeInfo::None, &TypeInfo::None, count)
    }

    /// Opens a typed Dictionary (Godot 4.4+); see [`begin_dictionary`](Writer::begin_dictionary).
    pub fn begin_typed_dictionary(
        &mut self,
        key: &TypeInfo,
        value: &TypeInfo,
        count: Option<usize>,
    ) -> Result<()> {
        self.open(Kind::Dictionary, count, 2, |e, n| {
            e.dict_head(key, value, n)
        })
    }

    /// Opens a full object of class `class` (not empty) with `count` properties (or patched);
    /// write each property with [`property`](Writer::property) then its value. Needs
    /// [`EncodeOptions::full_objects`].
    pub fn begin_object(&mut self, class: &str, count: Option<usize>) -> Result<()> {
        if class.is_empty() {
            return Err(misuse(
                "empty class name (write a null object with `object_id(0)`)",
                self.buf.len() - self.base,
            ));
        }
        self.open(Kind::Object, count, 1, |e, n| e.object_head(class, n))
    }

    /// Writes the name of the next property of the innermost open object.
    pub fn property(&mut self, name: &str) -> Result<()> {
        let at = self.buf.len() - self.base;
        match self.stack.last() {
            Some(top) if top.kind == Kind::Object => {
                if top.named {
                    return Err(misuse("two property names in a row", at));
                }
                if top.declared.is_some_and(|d| top.written >= d) {
                    return Err(misuse(
                        "more values than the container's declared count",
                        at,
                    ));
                }
            }
            _ => return Err(misuse("property name outside an object", at)),
        }
        let start = self.buf.len();
        let mut e = Enc {
            out: &mut self.buf,
            base: self.base,
            opts: &self.opts,
            ids: &mut self.ids,
            depth: self.stack.len(),
        };
        if let Err(err) = e.string(name) {
            self.buf.truncate(start);
            return Err(err);
        }
        let script = e.is_script(name);
        if let Some(top) = self.stack.last_mut() {
            top.named = true;
            top.script = script;
        }
        Ok(())
    }

    /// Closes the innermost open container, checking (or patching in) its count.
    pub fn end(&mut self) -> Result<()> {
        let at = self.buf.len() - self.base;
        let Some(top) = self.stack.last().copied() else {
            return Err(misuse("end without an open container", at));
        };
        if top.kind == Kind::Dictionary && top.written % 2 != 0 {
            return Err(misuse("dictionary key without a value", at));
        }
        if top.kind == Kind::Object && top.named {
            return Err(misuse("object property name without a value", at));
        }
        let items = match top.kind {
            Kind::Dictionary => top.written / 2,
            _ => top.written,
        };
        close_count(
            &mut self.buf,
            top.count_at,
            top.declared,
            top.written,
            items,
            at,
        )?;
        self.stack.pop();
        Ok(())
    }

    // ----- values -----

    /// Writes an owned value (and everything in it).
    pub fn value(&mut self, v: &Variant) -> Result<()> {
        let depth = self.stack.len();
        self.put(|e| e.tree(v, depth))
    }

    /// Writes the exact bytes of a received value (a whole sub-tree) without decoding it. It
    /// must have been read in the writer's dialect.
    pub fn raw(&mut self, v: &VariantRef<'_>) -> Result<()> {
        let bytes = v.raw()?;
        let dialect = v.dialect();
        self.put(|e| e.raw(bytes, dialect))
    }

    /// Writes a [`RawValue`] unchanged (it must be of the writer's dialect).
    pub fn raw_value(&mut self, v: &RawValue) -> Result<()> {
        self.put(|e| e.raw(v.as_bytes(), v.dialect()))
    }

    /// Writes Nil.
    pub fn nil(&mut self) -> Result<()> {
        self.put(|e| e.header(VariantType::Nil, 0))
    }

    /// Writes a bool.
    pub fn bool(&mut self, b: bool) -> Result<()> {
        self.put(|e| e.leaf(&Variant::Bool(b)))
    }

    /// Writes an int (32 bits when it fits).
    pub fn int(&mut self, i: i64) -> Result<()> {
        self.put(|e| e.int(i))
    }

    /// Writes a float (f32 when exact).
    pub fn float(&mut self, f: f64) -> Result<()> {
        self.put(|e| e.float(f))
    }

    /// Writes a String.
    pub fn string(&mut self, s: &str) -> Result<()> {
        self.put(|e| e.string_value(VariantType::String, s))
    }

    /// Writes a StringName (Godot 4).
    pub fn string_name(&mut self, s: &str) -> Result<()> {
        self.put(|e| e.string_value(VariantType::StringName, s))
    }

    /// Writes a NodePath from its parts.
    pub fn node_path<S: AsRef<str>>(
        &mut self,
        names: &[S],
        subnames: &[S],
        absolute: bool,
    ) -> Result<()> {
        self.put(|e| e.node_path_parts(names, subnames, absolute))
    }

    /// Writes a [`NodePath`].
    pub fn node_path_value(&mut self, np: &NodePath) -> Result<()> {
        self.put(|e| e.node_path(np))
    }

    /// Writes a RID (a bare header in Godot 3).
    pub fn rid(&mut self, id: u64) -> Result<()> {
        self.put(|e| e.rid(id))
    }

    /// Writes an object instance id (0, the null object, is written as Nil).
    pub fn object_id(&mut self, id: u64) -> Result<()> {
        self.put(|e| e.object_id(id))
    }

    /// Writes an (empty) Callable (Godot 4).
    pub fn callable(&mut self) -> Result<()> {
        self.put(|e| e.header(VariantType::Callable, 0))
    }

    /// Writes a Signal (Godot 4).
    pub fn signal(&mut self, name: &str, object_id: u64) -> Result<()> {
        self.put(|e| e.signal(name, object_id))
    }

    /// Writes a PackedByteArray (PoolByteArray).
    pub fn packed_bytes(&mut self, a: &[u8]) -> Result<()> {
        self.put(|e| e.bytes(a))
    }

    /// Writes a PackedInt32Array (PoolIntArray): one copy on little-endian hosts.
    pub fn packed_i32(&mut self, a: &[i32]) -> Result<()> {
        self.put(|e| e.packed_plain(VariantType::PackedInt32Array, a))
    }

    /// Writes a PackedInt64Array (Godot 4).
    pub fn packed_i64(&mut self, a: &[i64]) -> Result<()> {
        self.put(|e| e.packed_plain(VariantType::PackedInt64Array, a))
    }

    /// Writes a PackedFloat32Array (PoolRealArray): one copy on little-endian hosts.
    pub fn packed_f32(&mut self, a: &[f32]) -> Result<()> {
        self.put(|e| e.packed_plain(VariantType::PackedFloat32Array, a))
    }

    /// Writes a PackedFloat64Array (Godot 4).
    pub fn packed_f64(&mut self, a: &[f64]) -> Result<()> {
        self.put(|e| e.packed_plain(VariantType::PackedFloat64Array, a))
    }

    /// Writes a PackedStringArray (PoolStringArray).
    pub fn packed_strings<S: AsRef<str>>(&mut self, a: &[S]) -> Result<()> {
        self.put(|e| e.packed_strings(a))
    }

    /// Writes a PackedVector2Array (f32 or f64 components by the precision option).
    pub fn packed_vector2(&mut self, a: &[Vector2]) -> Result<()> {
        self.put(|e| e.packed_vector2(a))
    }

    /// Writes a PackedVector3Array (f32 or f64 components by the precision option).
    pub fn packed_vector3(&mut self, a: &[Vector3]) -> Result<()> {
        self.put(|e| e.packed_vector3(a))
    }

    /// Writes a PackedVector4Array (Godot 4).
    pub fn packed_vector4(&mut self, a: &[Vector4]) -> Result<()> {
        self.put(|e| e.packed_vector4(a))
    }

    /// Writes a PackedVector2Array from single-precision components: one copy on
    /// little-endian hosts in single precision (widened in double precision).
    pub fn packed_vector2_f32(&mut self, a: &[[f32; 2]]) -> Result<()> {
        self.put(|e| e.packed_vectors_f32(VariantType::PackedVector2Array, a))
    }

    /// Writes a PackedVector3Array from single-precision components; see
    /// [`packed_vector2_f32`](Writer::packed_vector2_f32).
    pub fn packed_vector3_f32(&mut self, a: &[[f32; 3]]) -> Result<()> {
        self.put(|e| e.packed_vectors_f32(VariantType::PackedVector3Array, a))
    }

    /// Writes a PackedVector4Array from single-precision components; see
    /// [`packed_vector2_f32`](Writer::packed_vector2_f32).
    pub fn packed_vector4_f32(&mut self, a: &[[f32; 4]]) -> Result<()> {
        self.put(|e| e.packed_vectors_f32(VariantType::PackedVector4Array, a))
    }

    /// Writes a PackedColorArray (PoolColorArray): one copy on little-endian hosts.
    pub fn packed_colors(&mut self, a: &[Color]) -> Result<()> {
        self.put(|e| e.packed_plain(VariantType::PackedColorArray, a))
    }
}

macro_rules! leaf_methods {
    ($($(#[$m:meta])* $name:ident($t:ty) => $write:ident($ty:ident);)*) => {
        impl Writer {
            $(
                $(#[$m])*
                pub fn $name(&mut self, v: $t) -> Result<()> {
                    self.put(|e| e.$write(VariantType::$ty, v.to_array()))
                }
            )*
        }
    };
}

leaf_methods! {
    /// Writes a Vector2.
    vector2(Vector2) => math(Vector2);
    /// Writes a Vector2i (Godot 4).
    vector2i(Vector2i) => ints(Vector2i);
    /// Writes a Rect2.
    rect2(Rect2) => math(Rect2);
    /// Writes a Rect2i (Godot 4).
    rect2i(Rect2i) => ints(Rect2i);
    /// Writes a Vector3.
    vector3(Vector3) => math(Vector3);
    /// Writes a Vector3i (Godot 4).
    vector3i(Vector3i) => ints(Vector3i);
    /// Writes a Transform2D.
    transform2d(Transform2D) => math(Transform2D);
    /// Writes a Vector4 (Godot 4).
    vector4(Vector4) => math(Vector4);
    /// Writes a Vector4i (Godot 4).
    vector4i(Vector4i) => ints(Vector4i);
    /// Writes a Plane.
    plane(Plane) => math(Plane);
    /// Writes a Quaternion (Quat in Godot 3).
    quaternion(Quaternion) => math(Quaternion);
    /// Writes an AABB.
    aabb(Aabb) => math(Aabb);
    /// Writes a Basis.
    basis(Basis) => math(Basis);
    /// Writes a Transform3D (Transform in Godot 3).
    transform3d(Transform3D) => math(Transform3D);
    /// Writes a Projection (Godot 4).
    projection(Projection) => math(Projection);
}

impl Writer {
    /// Writes a Color.
    pub fn color(&mut self, c: Color) -> Result<()> {
        self.put(|e| e.color(c))
    }
}
