//! Printing a lazy [`VariantRef`] in the JSON form, on the [`Walker`]: one pass to tell which
//! Dictionaries print as plain JSON objects (all keys Strings, none starting with `$`, none
//! repeated) and which may hold repeated keys, then one pass printing, both linear and without
//! native recursion.

use core::fmt;
use std::string::{String, ToString};
use std::vec::Vec;

use crate::array::ContainerType;
use crate::error::Result;
use crate::literal::node_path;
use crate::math::Color;
use crate::num;
use crate::object::ObjectRef;
use crate::out::{ch, put, R};
use crate::owned::index::KeyState;
use crate::owned::key;
use crate::owned::NodePath;
use crate::types::Dialect;
use crate::types::VariantType as T;
use crate::value::VariantRef;
use crate::walker::{Event, Walker};

/// What pass 1 learns about each Dictionary, in the order they begin.
struct Dicts {
    /// Whether it prints as a plain JSON object.
    plain: Vec<u64>,
    /// Whether it may hold repeated keys (equal as values): printed with `"$repeated": true`,
    /// so that reading the JSON back keeps every entry.
    repeated: Vec<u64>,
}

fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

fn set(bits: &mut Vec<u64>, i: usize, on: bool) {
    if bits.len() <= i / 64 {
        bits.resize(i / 64 + 1, 0);
    }
    if on {
        bits[i / 64] |= 1 << (i % 64);
    } else {
        bits[i / 64] &= !(1 << (i % 64));
    }
}

/// A hash of a key consistent with how the reader compares keys (the crate's one key identity,
/// `owned::key`: keys the reader merges hash alike, under either dialect's rule); `None` when
/// that cannot be had cheaply (a container key, or text that is not UTF-8): such a key counts
/// as maybe repeated.
fn key_hash(state: &KeyState, k: &VariantRef<'_>) -> Option<u64> {
    match k.ty() {
        // Most keys: hashed from the bytes, without a copy.
        T::String | T::StringName => Some(key::str_hash(k.as_text().ok()?.as_str()?, state)),
        t if t.is_container() => None,
        _ => Some(key::key_info(&k.to_owned().ok()?, Dialect::Godot4, state).hash),
    }
}

/// Pass 1: which Dictionaries print as plain JSON objects (untyped, all keys Strings, none
/// starting with `$`, none repeated) and which may hold repeated keys.
fn dicts(v: &VariantRef<'_>) -> Result<Dicts> {
    let mut d = Dicts {
        plain: Vec::new(),
        repeated: Vec::new(),
    };
    let state = KeyState::new();
    let mut n = 0usize;
    /// An open container: for a Dictionary, its number, whether its next element is a key,
    /// and the hashes of its keys so far.
    struct Open {
        dict: Option<usize>,
        key: bool,
        seen: std::collections::HashSet<u64>,
        single: bool,
    }
    let mut open: Vec<Open> = Vec::new();
    let mut w = Walker::from_value(*v);
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Begin(x) | Event::Value(x) => x,
            Event::Property(_) => continue,
            Event::End => {
                open.pop();
                continue;
            }
        };
        if let Some(Open {
            dict: Some(i),
            key,
            seen,
            single,
        }) = open.last_mut()
        {
            if *key {
                if x.ty() != T::String || x.as_text()?.as_bytes().first() == Some(&b'$') {
                    set(&mut d.plain, *i, false);
                }
                // One key cannot repeat: no set for single-entry Dictionaries.
                let new = *single || key_hash(&state, &x).is_some_and(|h| seen.insert(h));
                if !new {
                    set(&mut d.plain, *i, false);
                    set(&mut d.repeated, *i, true);
                }
            }
            *key = !*key;
        }
        if let Event::Begin(c) = e {
            let mut dict = None;
            if c.ty() == T::Dictionary {
                let (kt, vt) = c.as_dictionary()?.key_value_types()?;
                set(&mut d.plain, n, !(kt.is_typed() || vt.is_typed()));
                set(&mut d.repeated, n, false);
                dict = Some(n);
                n += 1;
            }
            open.push(Open {
                dict,
                key: true,
                seen: Default::default(),
                single: c.count() < 2,
            });
        }
    }
    Ok(d)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Plain,
    Tagged,
    Object,
}

/// An open container.
struct Open<'a> {
    kind: Kind,
    /// Its Begin view (for the type info printed at its end).
    begin: VariantRef<'a>,
    /// Whether it is a Dictionary that may hold repeated keys.
    repeated: bool,
    first: bool,
    /// Whether the next element of a Dictionary is a key.
    key: bool,
    /// What to print once the element being printed is complete.
    after: Option<char>,
}

/// Prints `v` in the JSON form.
pub(crate) fn print<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, s: &mut W) -> R {
    let dicts = dicts(v)?;
    let mut n_dicts = 0usize;
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut w = Walker::from_value(*v);
    while let Some(e) = w.next_event()? {
        let x = match e {
            Event::Property(name) => {
                if let Some(top) = stack.last_mut() {
                    if !top.first {
                        ch(s, ',')?;
                    }
                    top.first = false;
                    top.after = Some(']');
                }
                ch(s, '[')?;
                string(&name.to_string_lossy(), s)?;
                ch(s, ',')?;
                continue;
            }
            Event::End => {
                if let Some(o) = stack.pop() {
                    close(&o, s)?;
                }
                complete(&mut stack, s)?;
                continue;
            }
            Event::Begin(x) | Event::Value(x) => x,
        };
        // Where the element goes in its container.
        if let Some(top) = stack.last_mut() {
            match top.kind {
                Kind::Array => {
                    if !top.first {
                        ch(s, ',')?;
                    }
                    top.first = false;
                }
                Kind::Plain => {
                    if top.key {
                        top.key = false;
                        if !top.first {
                            ch(s, ',')?;
                        }
                        top.first = false;
                        // Pass 1 saw that every key is a String.
                        string(&x.as_text()?.to_string_lossy(), s)?;
                        ch(s, ':')?;
                        continue;
                    }
                    top.key = true;
                }
                Kind::Tagged => {
                    if top.key {
                        if !top.first {
                            ch(s, ',')?;
                        }
                        top.first = false;
                        ch(s, '[')?;
                        top.after = Some(',');
                    } else {
                        top.after = Some(']');
                    }
                    top.key = !top.key;
                }
                // The property's name opened its pair.
                Kind::Object => {}
            }
        }
        match e {
            Event::Begin(c) => {
                let mut repeated = false;
                let kind = match c.ty() {
                    T::Array => {
                        if c.as_array()?.element_type()?.is_typed() {
                            tag("Array", s)?;
                        }
                        ch(s, '[')?;
                        Kind::Array
                    }
                    T::Dictionary => {
                        let d = n_dicts;
                        n_dicts += 1;
                        repeated = bit(&dicts.repeated, d);
                        if bit(&dicts.plain, d) {
                            ch(s, '{')?;
                            Kind::Plain
                        } else {
                            tag("Dictionary", s)?;
                            ch(s, '[')?;
                            Kind::Tagged
                        }
                    }
                    _ => {
                        tag("Object", s)?;
                        put(s, "{\"class\":")?;
                        if let ObjectRef::Full(f) = c.as_object()? {
                            string(&f.class_name().to_string_lossy(), s)?;
                        }
                        put(s, ",\"properties\":[")?;
                        Kind::Object
                    }
                };
                stack.push(Open {
                    kind,
                    begin: c,
                    repeated,
                    first: true,
                    key: true,
                    after: None,
                });
            }
            _ => {
                leaf(&x, s)?;
                complete(&mut stack, s)?;
            }
        }
    }
    Ok(())
}

/// An element of the innermost container is complete.
fn complete<W: fmt::Write + ?Sized>(stack: &mut [Open<'_>], s: &mut W) -> R {
    if let Some(c) = stack.last_mut().and_then(|o| o.after.take()) {
        ch(s, c)?;
    }
    Ok(())
}

/// The end of a container.
fn close<W: fmt::Write + ?Sized>(o: &Open<'_>, s: &mut W) -> R {
    match o.kind {
        Kind::Array => {
            ch(s, ']')?;
            let ty = o.begin.as_array()?.element_type()?;
            if ty.is_typed() {
                put(s, ",\"$type\":")?;
                type_info(&ty, s)?;
                ch(s, '}')?;
            }
        }
        Kind::Plain => ch(s, '}')?,
        Kind::Tagged => {
            ch(s, ']')?;
            let (kt, vt) = o.begin.as_dictionary()?.key_value_types()?;
            if kt.is_typed() || vt.is_typed() {
                put(s, ",\"$key\":")?;
                type_info(&kt, s)?;
                put(s, ",\"$value\":")?;
                type_info(&vt, s)?;
            }
            if o.repeated {
                put(s, ",\"$repeated\":true")?;
            }
            ch(s, '}')?;
        }
        Kind::Object => put(s, "]}}")?,
    }
    Ok(())
}

fn strings<W: fmt::Write + ?Sized>(xs: &[String], s: &mut W) -> R {
    ch(s, '[')?;
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            ch(s, ',')?;
        }
        string(x, s)?;
    }
    ch(s, ']')
}

fn string<W: fmt::Write + ?Sized>(t: &str, s: &mut W) -> R {
    ch(s, '"')?;
    for c in t.chars() {
        match c {
            '"' => put(s, "\\\"")?,
            '\\' => put(s, "\\\\")?,
            '\n' => put(s, "\\n")?,
            '\r' => put(s, "\\r")?,
            '\t' => put(s, "\\t")?,
            c if (c as u32) < 0x20 => put(s, &format!("\\u{:04x}", c as u32))?,
            c => ch(s, c)?,
        }
    }
    ch(s, '"')?;
    Ok(())
}

/// `{"$Name":[x,y,...]}` with each number written by `num`.
fn num_list<T, W: fmt::Write + ?Sized>(
    name: &str,
    xs: impl Iterator<Item = T>,
    num: fn(T, &mut W) -> R,
    s: &mut W,
) -> R {
    tag(name, s)?;
    ch(s, '[')?;
    for (i, x) in xs.enumerate() {
        if i > 0 {
            ch(s, ',')?;
        }
        num(x, s)?;
    }
    put(s, "]}")?;
    Ok(())
}

fn f64_num<W: fmt::Write + ?Sized>(x: f64, s: &mut W) -> R {
    match num::json_f64(x) {
        Some(t) => put(s, &t)?,
        None => nonfinite(x.to_bits(), 64, s)?,
    }
    Ok(())
}

/// An `f32` component: the shortest decimal that reads back as the same `f32`.
fn f32_num<W: fmt::Write + ?Sized>(x: f32, s: &mut W) -> R {
    if !x.is_finite() {
        return nonfinite(u64::from(x.to_bits()), 32, s);
    }
    // The shortest f32 digits, laid out like json_f64 does.
    let t = format!("{x:e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let lit = format!("{m}e{e}");
    match lit.parse::<f64>().ok().and_then(num::json_f64) {
        // Re-layout via f64 of the short decimal: same digits, JSON-friendly notation.
        Some(j) if j.parse::<f32>().ok() == Some(x) => put(s, &j)?,
        _ => put(s, &lit)?,
    }
    Ok(())
}

/// A non-finite number whose bits are `bits` in a `width`-bit context: `"inf"`, `"-inf"`,
/// or a NaN with its exact bits (see `nan_text`).
fn nonfinite<W: fmt::Write + ?Sized>(bits: u64, width: u32, s: &mut W) -> R {
    let (nan, neg) = if width == 32 {
        let f = f32::from_bits(bits as u32);
        (f.is_nan(), f < 0.0)
    } else {
        let f = f64::from_bits(bits);
        (f.is_nan(), f < 0.0)
    };
    ch(s, '"')?;
    if nan {
        put(s, &super::lex::nan_text(bits, width))?;
    } else if neg {
        put(s, "-inf")?;
    } else {
        put(s, "inf")?;
    }
    ch(s, '"')
}

fn tag<W: fmt::Write + ?Sized>(name: &str, s: &mut W) -> R {
    put(s, "{\"$")?;
    put(s, name)?;
    put(s, "\":")?;
    Ok(())
}

fn type_info<W: fmt::Write + ?Sized>(t: &ContainerType<'_>, s: &mut W) -> R {
    match t {
        ContainerType::None => put(s, "\"Variant\"")?,
        ContainerType::Builtin(ty) => string(ty.name(), s)?,
        ContainerType::ClassName(c) => {
            put(s, "{\"class\":")?;
            string(&c.to_string_lossy(), s)?;
            ch(s, '}')?;
        }
        ContainerType::Script(p) => {
            put(s, "{\"script\":")?;
            string(&p.to_string_lossy(), s)?;
            ch(s, '}')?;
        }
    }
    Ok(())
}

fn leaf<W: fmt::Write + ?Sized>(v: &VariantRef<'_>, s: &mut W) -> R {
    let wide = v.is_wide();
    let name = v.ty().name();
    macro_rules! reals {
        ($arr:expr) => {{
            tag(name, s)?;
            ch(s, '[')?;
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    ch(s, ',')?;
                }
                if wide {
                    f64_num(x, s)?
                } else {
                    f32_num(crate::math::narrow(x), s)?
                }
            }
            ch(s, ']')?;
            if wide {
                put(s, ",\"$f64\":true")?;
            }
            ch(s, '}')?;
        }};
    }
    macro_rules! ints {
        ($arr:expr) => {{
            tag(name, s)?;
            ch(s, '[')?;
            for (i, x) in $arr.into_iter().enumerate() {
                if i > 0 {
                    ch(s, ',')?;
                }
                put(s, &x.to_string())?;
            }
            put(s, "]}")?;
        }};
    }
    macro_rules! vecs {
        ($it:expr, $f:ident) => {{
            tag(name, s)?;
            ch(s, '[')?;
            for (i, c) in $it.enumerate() {
                if i > 0 {
                    ch(s, ',')?;
                }
                ch(s, '[')?;
                for (j, x) in c.into_iter().enumerate() {
                    if j > 0 {
                        ch(s, ',')?;
                    }
                    $f(x, s)?;
                }
                ch(s, ']')?;
            }
            ch(s, ']')?;
            if wide {
                put(s, ",\"$f64\":true")?;
            }
            ch(s, '}')?;
        }};
    }
    match v.ty() {
        T::Nil => put(s, "null")?,
        T::Bool => put(s, if v.as_bool()? { "true" } else { "false" })?,
        T::Int => put(s, &v.as_i64()?.to_string())?,
        T::Float => {
            let x = v.as_f64()?;
            if x.is_finite() {
                f64_num(x, s)?
            } else {
                tag("float", s)?;
                nonfinite(x.to_bits(), 64, s)?;
                ch(s, '}')?;
            }
        }
        T::String => string(&v.as_text()?.to_string_lossy(), s)?,
        T::StringName => {
            tag(name, s)?;
            string(&v.as_text()?.to_string_lossy(), s)?;
            ch(s, '}')?;
        }
        T::Vector2 => reals!(v.as_vector2()?.to_array()),
        T::Vector2i => ints!(v.as_vector2i()?.to_array()),
        T::Rect2 => reals!(v.as_rect2()?.to_array()),
        T::Rect2i => ints!(v.as_rect2i()?.to_array()),
        T::Vector3 => reals!(v.as_vector3()?.to_array()),
        T::Vector3i => ints!(v.as_vector3i()?.to_array()),
        T::Transform2D => reals!(v.as_transform2d()?.to_array()),
        T::Vector4 => reals!(v.as_vector4()?.to_array()),
        T::Vector4i => ints!(v.as_vector4i()?.to_array()),
        T::Plane => reals!(v.as_plane()?.to_array()),
        T::Quaternion => reals!(v.as_quaternion()?.to_array()),
        T::Aabb => reals!(v.as_aabb()?.to_array()),
        T::Basis => reals!(v.as_basis()?.to_array()),
        T::Transform3D => reals!(v.as_transform3d()?.to_array()),
        T::Projection => reals!(v.as_projection()?.to_array()),
        T::Color => reals!(v.as_color()?.to_array().map(crate::math::widen)),
        T::NodePath => {
            let np = v.as_node_path()?;
            let mut path = String::new();
            let _ = np.write_encoded_text(&mut path)?;
            let mut names = Vec::new();
            let mut it = np.names();
            while let Some(t) = it.try_next()? {
                names.push(t.to_string_lossy().into_owned());
            }
            let mut subnames = Vec::new();
            let mut it = np.subnames()?;
            while let Some(t) = it.try_next()? {
                subnames.push(t.to_string_lossy().into_owned());
            }
            let parts = NodePath {
                names,
                subnames,
                absolute: np.is_absolute(),
            };
            tag(name, s)?;
            if node_path(&path) == parts {
                string(&path, s)?;
            } else {
                // Names holding '/' or ':', empty names and such: the text would read back as
                // another path.
                put(s, "{\"names\":")?;
                strings(&parts.names, s)?;
                put(s, ",\"subnames\":")?;
                strings(&parts.subnames, s)?;
                put(
                    s,
                    if parts.absolute {
                        ",\"absolute\":true}"
                    } else {
                        ",\"absolute\":false}"
                    },
                )?;
            }
            ch(s, '}')?;
        }
        T::Rid => {
            tag(name, s)?;
            put(s, &v.as_rid()?.to_string())?;
            ch(s, '}')?;
        }
        T::Object => match v.as_object()? {
            ObjectRef::Id(id) => {
                tag("ObjectId", s)?;
                put(s, &id.to_string())?;
                ch(s, '}')?;
            }
            // A full object with elements is a container; here its class is empty.
            ObjectRef::Full(f) => {
                tag("Object", s)?;
                put(s, "{\"class\":")?;
                string(&f.class_name().to_string_lossy(), s)?;
                put(s, ",\"properties\":[]}}")?;
            }
        },
        T::Callable => put(s, "{\"$Callable\":null}")?,
        T::Signal => {
            let sig = v.as_signal()?;
            tag(name, s)?;
            put(s, "{\"name\":")?;
            string(&sig.name.to_string_lossy(), s)?;
            put(s, ",\"object\":")?;
            put(s, &sig.object_id.to_string())?;
            put(s, "}}")?;
        }
        T::PackedByteArray => ints!(v.as_byte_array()?.iter()),
        T::PackedInt32Array => ints!(v.as_packed::<i32>()?.iter()),
        T::PackedInt64Array => ints!(v.as_packed::<i64>()?.iter()),
        T::PackedFloat32Array => num_list(name, v.as_packed::<f32>()?.iter(), f32_num, s)?,
        T::PackedFloat64Array => num_list(name, v.as_packed::<f64>()?.iter(), f64_num, s)?,
        T::PackedStringArray => {
            tag(name, s)?;
            ch(s, '[')?;
            let mut it = v.as_string_array()?.iter();
            let mut first = true;
            while let Some(t) = it.try_next()? {
                if !first {
                    ch(s, ',')?;
                }
                first = false;
                string(&t.to_string_lossy(), s)?;
            }
            put(s, "]}")?;
        }
        T::PackedVector2Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 2]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 2]>()?.iter(), f32_num)
            }
        }
        T::PackedVector3Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 3]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 3]>()?.iter(), f32_num)
            }
        }
        T::PackedVector4Array => {
            if wide {
                vecs!(v.as_packed::<[f64; 4]>()?.iter(), f64_num)
            } else {
                vecs!(v.as_packed::<[f32; 4]>()?.iter(), f32_num)
            }
        }
        T::PackedColorArray => vecs!(
            v.as_packed::<Color>()?.iter().map(|c| c.to_array()),
            f32_num
        ),
        // Containers with elements are printed by the walk's frames.
        T::Array | T::Dictionary => {}
    }
    Ok(())
}
