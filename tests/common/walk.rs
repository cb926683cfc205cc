// The full lazy walk: visits every value through the lazy API, calling every accessor that
// applies, and returns the first error. Shared by the tests and the fuzz target (which
// `include!`s this file), so that both compare the same thing against `validate`. It never
// allocates (packed arrays are iterated, not copied): tests/no_alloc.rs relies on that.

use gdvariant::{ContainerType, ObjectRef, Result, VariantRef, VariantType};

/// Walks `v` completely through the lazy API; returns the number of values visited.
///
/// Recursive (one native call per nesting level), so the containers are handled here and every
/// other type in [`walk_leaf`], which keeps this frame small: 1025 nested levels fit easily.
pub fn lazy_walk(v: VariantRef<'_>) -> Result<usize> {
    use VariantType as T;
    let mut n = 1;
    match v.ty() {
        T::Object => match v.as_object()? {
            ObjectRef::Id(_) => {}
            ObjectRef::Full(f) => {
                let mut props = f.properties();
                while let Some((_, value)) = props.try_next()? {
                    n += lazy_walk(value)?;
                }
            }
        },
        T::Dictionary => {
            let d = v.as_dictionary()?;
            let (k, val) = d.key_value_types()?;
            let _ = (
                k.is_typed(),
                val.is_typed(),
                matches!(k, ContainerType::None),
            );
            let mut it = d.iter();
            while let Some((key, value)) = it.try_next()? {
                n += lazy_walk(key)? + lazy_walk(value)?;
            }
        }
        T::Array => {
            let a = v.as_array()?;
            a.element_type()?;
            let mut it = a.iter();
            while let Some(e) = it.try_next()? {
                n += lazy_walk(e)?;
            }
        }
        _ => walk_leaf(v)?,
    }
    Ok(n)
}

/// Reads every non-container value through its accessors.
#[inline(never)]
fn walk_leaf(v: VariantRef<'_>) -> Result<()> {
    use VariantType as T;
    match v.ty() {
        T::Nil => {}
        T::Callable => drop(v.as_callable()?),
        T::Bool => {
            v.as_bool()?;
        }
        T::Int => {
            v.as_i64()?;
        }
        T::Float => {
            v.as_f64()?;
        }
        T::String | T::StringName => {
            v.as_text()?;
        }
        T::Vector2 => drop(v.as_vector2()?),
        T::Vector2i => drop(v.as_vector2i()?),
        T::Rect2 => drop(v.as_rect2()?),
        T::Rect2i => drop(v.as_rect2i()?),
        T::Vector3 => drop(v.as_vector3()?),
        T::Vector3i => drop(v.as_vector3i()?),
        T::Transform2D => drop(v.as_transform2d()?),
        T::Vector4 => drop(v.as_vector4()?),
        T::Vector4i => drop(v.as_vector4i()?),
        T::Plane => drop(v.as_plane()?),
        T::Quaternion => drop(v.as_quaternion()?),
        T::Aabb => drop(v.as_aabb()?),
        T::Basis => drop(v.as_basis()?),
        T::Transform3D => drop(v.as_transform3d()?),
        T::Projection => drop(v.as_projection()?),
        T::Color => drop(v.as_color()?),
        T::NodePath => {
            let p = v.as_node_path()?;
            let mut names = p.names();
            while names.try_next()?.is_some() {}
            let mut subs = p.subnames()?;
            while subs.try_next()?.is_some() {}
        }
        T::Rid => drop(v.as_rid()?),
        T::Signal => drop(v.as_signal()?),
        T::PackedByteArray => drop(v.as_byte_array()?),
        T::PackedInt32Array => drop(v.as_packed::<i32>()?.iter().count()),
        T::PackedInt64Array => drop(v.as_packed::<i64>()?.iter().count()),
        T::PackedFloat32Array => drop(v.as_packed::<f32>()?.iter().count()),
        T::PackedFloat64Array => drop(v.as_packed::<f64>()?.iter().count()),
        T::PackedStringArray => {
            let mut it = v.as_string_array()?.iter();
            while it.try_next()?.is_some() {}
        }
        T::PackedVector2Array if v.is_wide() => drop(v.as_packed::<[f64; 2]>()?.iter().count()),
        T::PackedVector2Array => drop(v.as_packed::<[f32; 2]>()?.iter().count()),
        T::PackedVector3Array if v.is_wide() => drop(v.as_packed::<[f64; 3]>()?.iter().count()),
        T::PackedVector3Array => drop(v.as_packed::<[f32; 3]>()?.iter().count()),
        T::PackedVector4Array if v.is_wide() => drop(v.as_packed::<[f64; 4]>()?.iter().count()),
        T::PackedVector4Array => drop(v.as_packed::<[f32; 4]>()?.iter().count()),
        T::PackedColorArray => drop(v.as_packed::<gdvariant::Color>()?.iter().count()),
        T::Object | T::Dictionary | T::Array => unreachable!("containers are walked by lazy_walk"),
    }
    Ok(())
}

/// Parses and lazily walks the value at the start of `bytes`; returns its byte length.
pub fn lazy_accept(bytes: &[u8], opts: &gdvariant::Options) -> Result<usize> {
    let v = gdvariant::parse_with(bytes, opts)?;
    lazy_walk(v)?;
    v.byte_len()
}
