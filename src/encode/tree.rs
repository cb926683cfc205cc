//! Whole values: [`Enc::leaf`] writes one value that holds no other, [`Enc::tree`] a value and
//! everything in it, iteratively.

use super::primitives::Enc;
use crate::error::Result;
use crate::owned::{Array, Dictionary, Object, Variant};
use crate::types::VariantType;

/// A container being written by [`Enc::tree`]: the children still to write.
enum Frame<'v> {
    Items(core::slice::Iter<'v, Variant>),
    Entries(
        core::slice::Iter<'v, (Variant, Variant)>,
        Option<&'v Variant>,
    ),
    Props(core::slice::Iter<'v, (alloc::string::String, Variant)>),
}

impl Enc<'_> {
    /// Writes a value that holds no other values (everything but a non-empty container).
    /// Containers are written by [`tree`](Enc::tree).
    pub(crate) fn leaf(&mut self, v: &Variant) -> Result<()> {
        use VariantType as T;
        match v {
            Variant::Nil => self.header(T::Nil, 0),
            Variant::Bool(b) => {
                let id = self.id(T::Bool)?;
                self.u64(u64::from(id) | u64::from(*b) << 32);
                Ok(())
            }
            Variant::Int(i) => self.int(*i),
            Variant::Float(f) => self.float(*f),
            Variant::String(s) => self.string_value(T::String, s),
            Variant::StringName(s) => self.string_value(T::StringName, s),
            Variant::Vector2(x) => self.math(T::Vector2, x.to_array()),
            Variant::Vector2i(x) => self.ints(T::Vector2i, x.to_array()),
            Variant::Rect2(x) => self.math(T::Rect2, x.to_array()),
            Variant::Rect2i(x) => self.ints(T::Rect2i, x.to_array()),
            Variant::Vector3(x) => self.math(T::Vector3, x.to_array()),
            Variant::Vector3i(x) => self.ints(T::Vector3i, x.to_array()),
            Variant::Transform2D(x) => self.math(T::Transform2D, x.to_array()),
            Variant::Vector4(x) => self.math(T::Vector4, x.to_array()),
            Variant::Vector4i(x) => self.ints(T::Vector4i, x.to_array()),
            Variant::Plane(x) => self.math(T::Plane, x.to_array()),
            Variant::Quaternion(x) => self.math(T::Quaternion, x.to_array()),
            Variant::Aabb(x) => self.math(T::Aabb, x.to_array()),
            Variant::Basis(x) => self.math(T::Basis, x.to_array()),
            Variant::Transform3D(x) => self.math(T::Transform3D, x.to_array()),
            Variant::Projection(x) => self.math(T::Projection, x.to_array()),
            Variant::Color(c) => self.color(*c),
            Variant::NodePath(np) => self.node_path(np),
            Variant::Rid(id) => self.rid(*id),
            Variant::Object(o) => match &**o {
                Object::Id(id) => self.object_id(*id),
                Object::Full { class, properties } => {
                    if class.is_empty() {
                        // A null object: the engine writes Nil.
                        return self.header(T::Nil, 0);
                    }
                    self.object_head(class, properties.len()).map(drop)
                }
            },
            Variant::Callable => self.header(T::Callable, 0),
            Variant::Signal(s) => self.signal(&s.name, s.object_id),
            Variant::Dictionary(d) => self
                .dict_head(d.key_type(), d.value_type(), d.entries.len())
                .map(drop),
            Variant::Array(a) => self.array_head(a.element_type(), a.items.len()).map(drop),
            Variant::PackedByteArray(a) => self.bytes(a),
            Variant::PackedInt32Array(a) => self.packed_plain(VariantType::PackedInt32Array, a),
            Variant::PackedInt64Array(a) => self.packed_plain(VariantType::PackedInt64Array, a),
            Variant::PackedFloat32Array(a) => self.packed_plain(VariantType::PackedFloat32Array, a),
            Variant::PackedFloat64Array(a) => self.packed_plain(VariantType::PackedFloat64Array, a),
            Variant::PackedStringArray(a) => self.packed_strings(a),
            Variant::PackedVector2Array(a) => self.packed_vector2(a),
            Variant::PackedVector3Array(a) => self.packed_vector3(a),
            Variant::PackedVector4Array(a) => self.packed_vector4(a),
            Variant::PackedColorArray(a) => self.packed_plain(VariantType::PackedColorArray, a),
            Variant::Raw(r) => self.raw(r.as_bytes(), r.dialect()),
        }
    }

    /// Writes `v` and everything in it, `v` being at `depth`. Iterative: nesting uses a heap
    /// stack bounded by the depth limit, the innermost container's children iterator in a
    /// local. The depth is checked once per container, for all its children. On error the
    /// caller truncates `out`.
    pub(crate) fn tree(&mut self, v: &Variant, depth: usize) -> Result<()> {
        self.check_depth(depth)?;
        self.depth = depth;
        self.leaf(v)?;
        let Some(mut top) = frame_of(v) else {
            return Ok(());
        };
        self.check_depth(depth + 1)?;
        // Inline for the first 32 levels: no allocation for nearly every packet.
        let mut stack: crate::stack::SmallStack<Frame<'_>, 32> = crate::stack::SmallStack::new();
        loop {
            // The depth of the children of `top` (only a raw value needs it).
            let child_depth = depth + stack.len() + 1;
            let mut script = false;
            let child = match &mut top {
                Frame::Items(it) => it.next(),
                Frame::Entries(it, pending) => match pending.take() {
                    Some(v) => Some(v),
                    None => match it.next() {
                        Some((k, v)) => {
                            if frame_of(k).is_none() {
                                // A key without children (nearly always): written here.
                                match k {
                                    // String keys, by far the commonest, without a call.
                                    Variant::String(s) => {
                                        self.string_value(VariantType::String, s)?
                                    }
                                    Variant::Raw(_) => {
                                        self.depth = child_depth;
                                        self.leaf(k)?;
                                    }
                                    _ => self.leaf(k)?,
                                }
                                Some(v)
                            } else {
                                *pending = Some(v);
                                Some(k)
                            }
                        }
                        None => None,
                    },
                },
                Frame::Props(it) => match it.next() {
                    Some((name, v)) => {
                        self.string(name)?;
                        script = self.is_script(name);
                        Some(v)
                    }
                    None => None,
                },
            };
            let Some(child) = child else {
                match stack.pop() {
                    Some(parent) => {
                        top = parent;
                        continue;
                    }
                    None => return Ok(()),
                }
            };
            // The commonest leaves written here, without the call to `leaf` (whose prologue
            // saves every register): game-state encode -8 %, input-packet encode -10 %
            // (`examples/prof.rs`, alternated A/B).
            if !script {
                let written = match child {
                    Variant::Int(i) => self.int(*i).map(|()| true),
                    Variant::Float(f) => self.float(*f).map(|()| true),
                    Variant::String(s) => self.string_value(VariantType::String, s).map(|()| true),
                    Variant::Vector3(x) => {
                        self.math(VariantType::Vector3, x.to_array()).map(|()| true)
                    }
                    Variant::PackedStringArray(a) => self.packed_strings(a).map(|()| true),
                    _ => Ok(false),
                };
                if written? {
                    continue;
                }
            }
            if matches!(child, Variant::Raw(_)) {
                self.depth = child_depth;
            }
            if script {
                let start = self.out.len();
                self.leaf(child)?;
                self.check_script_at(start)?;
            } else {
                self.leaf(child)?;
            }
            if let Some(f) = frame_of(child) {
                // The child's children are one level below it.
                self.check_depth(depth + stack.len() + 2)?;
                stack.push(core::mem::replace(&mut top, f));
            }
        }
    }
}

/// The children of a non-empty container, to be written after its head.
#[inline]
fn frame_of(v: &Variant) -> Option<Frame<'_>> {
    match v {
        Variant::Array(Array { items, .. }) if !items.is_empty() => {
            Some(Frame::Items(items.iter()))
        }
        Variant::Dictionary(Dictionary { entries, .. }) if !entries.is_empty() => {
            Some(Frame::Entries(entries.iter(), None))
        }
        Variant::Object(o) => match &**o {
            Object::Full { class, properties } if !class.is_empty() && !properties.is_empty() => {
                Some(Frame::Props(properties.iter()))
            }
            _ => None,
        },
        _ => None,
    }
}
