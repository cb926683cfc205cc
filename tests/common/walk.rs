// The full lazy walk: visits every value through the lazy API, calling every accessor that
// applies, and returns the first error. Shared by the tests and the fuzz target (which
// `include!`s this file), so that both compare the same thing against `validate`. It never
// allocates (packed arrays are iterated, not copied): tests/read/no_alloc.rs relies on that.

use gdvariant::{
    array::ArrayIter, array::ContainerType, dict::DictIter, object::Properties, Event, ObjectRef,
    ReadOptions, Result, VariantRef, VariantType, Walker,
};

/// The exhausted iterator of a container just walked, for its parent to resume after.
pub enum Walked<'a> {
    /// Not a container with elements.
    Leaf,
    /// An Array's elements.
    Array(ArrayIter<'a>),
    /// A Dictionary's pairs.
    Dict(DictIter<'a>),
    /// A full object's properties.
    Object(Properties<'a>),
}

/// Hands the exhausted iterator of a container child back to its parent iterator, so that the
/// child is not read a second time; a leaf needs nothing.
macro_rules! resume {
    ($parent:expr, $walked:expr) => {
        let ok = match &$walked {
            Walked::Leaf => true,
            Walked::Array(i) => $parent.resume_after(i)?,
            Walked::Dict(i) => $parent.resume_after(i)?,
            Walked::Object(i) => $parent.resume_after(i)?,
        };
        assert!(ok, "resume_after refused the child just walked");
    };
}

/// Walks `v` completely through the lazy API; returns the number of values visited.
///
/// Recursive (one native call per nesting level), so the containers are handled here and every
/// other type in [`walk_leaf`], which keeps this frame small. Each container child's iterator
/// is handed back to its parent with `resume_after`, so every byte is read once whatever the
/// depth.
pub fn lazy_walk(v: VariantRef<'_>) -> Result<usize> {
    walk(v).map(|(n, _)| n)
}

fn walk(v: VariantRef<'_>) -> Result<(usize, Walked<'_>)> {
    match v.ty() {
        VariantType::Object => match v.as_object()? {
            ObjectRef::Id(_) => Ok((1, Walked::Leaf)),
            // A null object (empty class name) has no properties to walk.
            ObjectRef::Full(f) if f.class_name().is_empty() => Ok((1, Walked::Leaf)),
            ObjectRef::Full(f) => walk_object(f),
        },
        VariantType::Dictionary => walk_dict(v),
        VariantType::Array => walk_array(v),
        _ => {
            walk_leaf(v)?;
            Ok((1, Walked::Leaf))
        }
    }
}

// One function per container kind, kept out of line so that a nesting level costs one small
// frame of each of `walk` and one of these in a debug build.

#[inline(never)]
fn walk_object(f: gdvariant::object::FullObjectRef<'_>) -> Result<(usize, Walked<'_>)> {
    let _ = (f.class_name(), f.property_count());
    let mut n = 1;
    let mut props = f.properties();
    while let Some((_, value)) = props.try_next()? {
        let (m, w) = walk(value)?;
        n += m;
        resume!(props, w);
    }
    Ok((n, Walked::Object(props)))
}

#[inline(never)]
fn walk_dict(v: VariantRef<'_>) -> Result<(usize, Walked<'_>)> {
    let d = v.as_dictionary()?;
    let (k, val) = d.key_value_types()?;
    let _ = (
        k.is_typed(),
        val.is_typed(),
        matches!(k, ContainerType::None),
        d.len(),
    );
    let mut n = 1;
    let mut it = d.iter();
    // Each key alone, handed back after its walk: keys holding keys are read once too.
    while let Some(key) = it.try_next_key()? {
        let (m, w) = walk(key)?;
        n += m;
        resume!(it, w);
        let value = it.try_next_value()?.expect("a key's value follows it");
        let (m, w) = walk(value)?;
        n += m;
        resume!(it, w);
    }
    Ok((n, Walked::Dict(it)))
}

#[inline(never)]
fn walk_array(v: VariantRef<'_>) -> Result<(usize, Walked<'_>)> {
    let a = v.as_array()?;
    let _ = (a.element_type()?, a.len());
    let mut n = 1;
    let mut it = a.iter();
    while let Some(e) = it.try_next()? {
        let (m, w) = walk(e)?;
        n += m;
        resume!(it, w);
    }
    Ok((n, Walked::Array(it)))
}

/// Walks the value at the start of `bytes` with the pull-event [`Walker`], calling every
/// accessor that applies on each event's view; returns the number of values visited and the
/// value's byte length. Iterative: any depth runs on a small stack.
pub fn walker_accept(bytes: &[u8], opts: &ReadOptions) -> Result<(usize, usize)> {
    let mut w = Walker::new(bytes, opts);
    let mut n = 0;
    while let Some(e) = w.next_event()? {
        match e {
            Event::Begin(v) => {
                n += 1;
                match v.ty() {
                    VariantType::Array => drop(v.as_array()?.element_type()?),
                    VariantType::Dictionary => drop(v.as_dictionary()?.key_value_types()?),
                    _ => drop(v.as_object()?.is_null()),
                }
                let _ = v.count();
            }
            Event::Property(t) => drop(t.as_bytes().len()),
            Event::Value(v) => {
                n += 1;
                match v.ty() {
                    VariantType::Object => drop(v.as_object()?),
                    _ => walk_leaf(v)?,
                }
            }
            Event::End => {}
        }
    }
    Ok((n, w.offset()))
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
        T::PackedColorArray => drop(v.as_packed::<gdvariant::math::Color>()?.iter().count()),
        T::Object | T::Dictionary | T::Array => unreachable!("containers are walked by walk"),
    }
    Ok(())
}

/// Parses and lazily walks the value at the start of `bytes`; returns its byte length.
pub fn lazy_accept(bytes: &[u8], opts: &gdvariant::ReadOptions) -> Result<usize> {
    let v = gdvariant::parse_with(bytes, opts)?;
    lazy_walk(v)?;
    v.byte_len()
}

/// The checks the fuzz target and its corpus replay share, for one input and options: the
/// full lazy walk and `validate_with` agree on accept or reject and on the length; the
/// pull-event walk (with every accessor on its views) gives exactly `validate_with`'s result,
/// error kind and offset included; a valid value is found by `parse_prefix`, sized by `raw`,
/// validated by `VariantRef::validate`, and converted by `to_owned` unless its text is Godot 3
/// text that Rust strings cannot hold. Returns the length when valid.
pub fn agree(name: &str, data: &[u8], opts: &ReadOptions) -> Option<usize> {
    let val = gdvariant::validate_with(data, opts);
    let lazy = lazy_accept(data, opts);
    let dialect = opts.dialect();
    match (&val, &lazy) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{name} {dialect} {opts:?}: lengths"),
        (Err(_), Err(_)) => {}
        _ => panic!("{name} {dialect} {opts:?}: validate {val:?}, lazy walk {lazy:?}"),
    }
    let walker = walker_accept(data, opts).map(|(_, len)| len);
    assert_eq!(walker, val, "{name} {dialect} {opts:?}: walker vs validate");
    // Lookups agree with the iterators, on malformed input too (errors included).
    if let Ok(top) = gdvariant::parse_with(data, opts) {
        check_lookups(name, top, if val.is_ok() { 64 } else { 0 });
    }
    let n = val.ok()?;
    let (v, used) = gdvariant::parse_prefix_with(data, opts).expect(name);
    assert_eq!(used, n, "{name}: parse_prefix");
    assert_eq!(v.raw().map(<[u8]>::len), Ok(n), "{name}: raw");
    assert_eq!(v.validate(), Ok(n), "{name}: VariantRef::validate");
    if let Err(e) = v.to_owned() {
        assert_eq!(
            e.kind(),
            gdvariant::ErrorKind::NotRustUtf8,
            "{name}: to_owned of a valid value: {e}"
        );
    }
    Some(n)
}

/// A lookup's outcome, comparable: the offset of the value found, or the error's kind and
/// offset.
type Found = core::result::Result<Option<usize>, (gdvariant::ErrorKind, usize)>;

fn found(r: Result<Option<VariantRef<'_>>>) -> Found {
    r.map(|v| v.map(|v| v.offset()))
        .map_err(|e| (e.kind(), e.offset()))
}

/// `DictionaryRef::get` / `get_first` with a string key and `ArrayRef::get` (which skip what
/// they pass on their own fast paths) give what the iterators give, for a few keys and indices
/// of `v` and (down to `levels` more levels) of its containers.
pub fn check_lookups(name: &str, v: VariantRef<'_>, levels: u32) {
    match v.ty() {
        VariantType::Dictionary => {
            let Ok(d) = v.as_dictionary() else { return };
            // The reference: the first (or last) pair whose key's engine text is `s`.
            // (`get` walks the whole dictionary: the last value's body too, which the
            // iterator leaves unread when nothing follows it.)
            let reference = |s: &str, last: bool| -> Found {
                let mut it = d.iter();
                let mut hit = None;
                let mut final_value = None;
                loop {
                    match it.try_next() {
                        Ok(Some((k, val))) => {
                            final_value = Some(val);
                            let text =
                                matches!(k.ty(), VariantType::String | VariantType::StringName)
                                    .then(|| k.as_text().ok())
                                    .flatten();
                            if text.is_some_and(|t| t.as_bytes() == s.as_bytes()) {
                                hit = Some(val.offset());
                                if !last {
                                    return Ok(hit);
                                }
                            }
                        }
                        Ok(None) => {
                            if let Some(Err(e)) = final_value.map(|v| v.raw()) {
                                return Err((e.kind(), e.offset()));
                            }
                            return Ok(hit);
                        }
                        Err(e) => return Err((e.kind(), e.offset())),
                    }
                }
            };
            // Keys compare as encoded (the reference's rule) in an untyped Godot 4 dictionary;
            // typed keys and Godot 3 text are compared as the engine reads them (checked
            // against to_owned in tests/engine/differential.rs).
            let as_encoded = v.dialect() == gdvariant::Dialect::Godot4
                && matches!(
                    d.key_value_types(),
                    Ok((gdvariant::array::ContainerType::None, _))
                );
            let mut keys = 0;
            let mut it = d.iter();
            while let Ok(Some((k, val))) = it.try_next() {
                if let Some(s) = k.as_text().ok().and_then(|t| t.as_str()) {
                    if keys < 8
                        && as_encoded
                        && matches!(k.ty(), VariantType::String | VariantType::StringName)
                    {
                        keys += 1;
                        assert_eq!(found(d.get(s)), reference(s, true), "{name}: get({s:?})");
                        assert_eq!(
                            found(d.get_first(s)),
                            reference(s, false),
                            "{name}: get_first({s:?})"
                        );
                        let longer = format!("{s}x");
                        assert_eq!(
                            found(d.get_first(longer.as_str())),
                            reference(&longer, false),
                            "{name}: get({longer:?})"
                        );
                        if let Some(shorter) = s.get(..s.len().saturating_sub(1)) {
                            assert_eq!(
                                found(d.get_first(shorter)),
                                reference(shorter, false),
                                "{name}: get({shorter:?})"
                            );
                        }
                    }
                }
                if levels > 0 {
                    check_lookups(name, val, levels - 1);
                }
            }
            // `get_many` gives what `get` gives for each key, in any dictionary (its one walk
            // for string keys, its fallback otherwise), the first error if any.
            let mut texts: Vec<String> = Vec::new();
            let mut it = d.iter();
            while let Ok(Some((k, _))) = it.try_next() {
                if texts.len() < 2 {
                    if let Some(s) = k.as_text().ok().and_then(|t| t.as_str()) {
                        texts.push(s.to_string());
                    }
                }
            }
            texts.push(texts.first().map_or("x".to_string(), |t| format!("{t}x")));
            texts.push(texts[0].clone());
            let keys: [&str; 4] = core::array::from_fn(|i| texts.get(i).map_or("", String::as_str));
            let each: core::result::Result<Vec<Option<usize>>, (gdvariant::ErrorKind, usize)> =
                keys.iter().map(|k| found(d.get(*k))).collect();
            let many = d
                .get_many(keys)
                .map(|f| f.iter().map(|v| v.map(|v| v.offset())).collect::<Vec<_>>())
                .map_err(|e| (e.kind(), e.offset()));
            assert_eq!(many, each, "{name}: get_many({keys:?})");
            // No keys: no `get` to make, nothing read.
            assert!(d.get_many::<&str, 0>([]).is_ok(), "{name}: get_many([])");
            // `validate_get_many`: `validate`'s error if the dictionary is not valid (the first
            // one, at its offset), else `get_many`'s answers; in one walk that must check
            // every pair as `validate` does.
            let valid = v.validate().map_err(|e| (e.kind(), e.offset()));
            let checked = d
                .validate_get_many(keys)
                .map(|f| f.iter().map(|v| v.map(|v| v.offset())).collect::<Vec<_>>())
                .map_err(|e| (e.kind(), e.offset()));
            let expected = valid.and_then(|_| many.clone());
            assert_eq!(checked, expected, "{name}: validate_get_many({keys:?})");
            assert_eq!(
                d.validate_get_many::<&str, 0>([])
                    .map(|_| ())
                    .map_err(|e| (e.kind(), e.offset())),
                valid.map(|_| ()),
                "{name}: validate_get_many([])"
            );
            if as_encoded {
                assert_eq!(
                    found(d.get_first("")),
                    reference("", false),
                    "{name}: get_first(\"\")"
                );
                assert_eq!(found(d.get("")), reference("", true), "{name}: get(\"\")");
            }
        }
        VariantType::Array => {
            let Ok(a) = v.as_array() else { return };
            // The reference: the element the iterator yields at `i` (past the declared length,
            // none, without reading).
            let reference = |i: usize| -> Found {
                if i >= a.len() {
                    return Ok(None);
                }
                let mut it = a.iter();
                let mut at = 0;
                loop {
                    match it.try_next() {
                        Ok(Some(e)) if at == i => return Ok(Some(e.offset())),
                        Ok(Some(_)) => at += 1,
                        Ok(None) => return Ok(None),
                        Err(e) => return Err((e.kind(), e.offset())),
                    }
                }
            };
            let n = a.len();
            for i in [0, 1, n / 2, n.saturating_sub(1), n, n + 1] {
                assert_eq!(found(a.get(i)), reference(i), "{name}: array get({i})");
            }
            if levels > 0 {
                let mut it = a.iter();
                let mut seen = 0;
                while let Ok(Some(e)) = it.try_next() {
                    if seen < 64 {
                        check_lookups(name, e, levels - 1);
                    }
                    seen += 1;
                }
            }
        }
        _ => {}
    }
}
