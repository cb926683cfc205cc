//! Decoding: [`VariantRef::to_owned`] and the owned forms of borrowed container type info.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::array::{container_types, ContainerType};
use crate::error::{Error, ErrorKind, Result};
use crate::object::ObjectRef;
use crate::reader::Reader;
use crate::text::{check as check_text, engine_text, Text};
use crate::types::{Dialect, VariantType, FLAG_64};
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

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
enum Building {
    Array {
        items: Vec<Variant>,
        ty: Option<Box<TypeInfo>>,
    },
    Dict {
        entries: Vec<(Variant, Variant)>,
        types: Option<Box<(TypeInfo, TypeInfo)>>,
        /// The key read, whose value comes next.
        key: Option<Variant>,
    },
    Object {
        class: String,
        props: Vec<(String, Variant)>,
        /// The name read, whose value comes next.
        name: Option<String>,
    },
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
    /// Adds a converted child: an element, a key or its value, a property value.
    #[inline(always)]
    fn push(&mut self, x: Variant) {
        match self {
            Building::Array { items, .. } => items.push(x),
            Building::Dict { entries, key, .. } => match key.take() {
                Some(k) => entries.push((k, x)),
                None => *key = Some(x),
            },
            Building::Object { props, name, .. } => {
                props.push((name.take().unwrap_or_default(), x));
            }
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

/// Opens the container whose [`Begin`](Event::Begin) event is `v`, with `remaining` bytes of
/// input after its head.
fn open_container(v: &VariantRef<'_>, remaining: usize, budget: &mut usize) -> Result<Building> {
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
            Building::Dict {
                types,
                entries: Vec::with_capacity(capacity(count, remaining, 8, budget)),
                key: None,
            }
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
                read_strings(r, v.h.count, v.dialect(), budget)?
            } else {
                read_strings(&mut v.body_reader(), v.h.count, v.dialect(), budget)?
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
        let mut w = Walker::from_value(*self);
        // The input left after the value's start bounds every reservation (see `capacity`).
        let end = self.offset() + self.h.data.len();
        let mut budget = self.h.data.len() / 4;
        // Inline for the first 32 levels: no allocation for the stack of nearly every packet.
        let mut stack: crate::stack::SmallStack<Building, 32> = crate::stack::SmallStack::new();
        while let Some(event) = w.next_event_inline()? {
            let done = match event {
                Event::Value(v) => convert(&v, &mut budget)?,
                Event::Begin(v) => {
                    let remaining = end.saturating_sub(w.offset());
                    stack.push(open_container(&v, remaining, &mut budget)?);
                    continue;
                }
                Event::Property(t) => {
                    let name = match t.as_str() {
                        Some(s) => String::from(s),
                        None => return Err(Error::new(ErrorKind::NotRustUtf8, w.name_at())),
                    };
                    if let Some(Building::Object { name: slot, .. }) = stack.last_mut() {
                        *slot = Some(name);
                    }
                    continue;
                }
                Event::End => match stack.pop() {
                    Some(b) => b.finish(),
                    None => continue,
                },
            };
            match stack.last_mut() {
                Some(parent) => parent.push(done),
                None => return Ok(done),
            }
        }
        // Unreachable: the walk ends with the top value's own event above.
        Ok(Variant::Nil)
    }
}

/// Converts the value of a [`Value`](Event::Value) event.
#[inline(always)]
fn convert(v: &VariantRef<'_>, budget: &mut usize) -> Result<Variant> {
    if let Some(x) = quick_leaf(v)? {
        return Ok(x);
    }
    let mut out = Variant::Nil;
    leaf(v, &mut v.body_reader(), budget, &mut out)?;
    Ok(out)
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
