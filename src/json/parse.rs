//! Reading the JSON form back into a [`Variant`], or straight into its encoded bytes.
//!
//! The reader is iterative (nesting costs heap, never native stack) and refuses whatever
//! [`validate_with`](crate::validate_with) would refuse in the bytes of the value read, with the
//! same options (see [`from_str_with`]).

use std::string::String;
use std::vec::Vec;

use super::lex::{fail, P, R};
use crate::builder::{Builder, Bytes, Open, Sink, Tree};
use crate::encode::EncodeOptions;
use crate::error::{ParseError, Syntax};
use crate::literal::{excerpt, node_path};
use crate::math::*;
use crate::owned::{NodePath, Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};

/// Reads one JSON value of the [schema](super) into a [`Variant`].
///
/// ```
/// use gdvariant::{json, Variant, math::Vector2i};
/// assert_eq!(json::from_str("{\"$Vector2i\": [1, -2]}")?, Variant::Vector2i(Vector2i::new(1, -2)));
/// assert_eq!(json::from_str("[1, 2.0]")?, Variant::from(vec![Variant::Int(1), Variant::Float(2.0)]));
/// # Ok::<(), gdvariant::json::ParseError>(())
/// ```
///
/// Full objects are read; the depth limit is the engine's (1024). It is [`from_str_with`] with
/// `ReadOptions::new().with_full_objects(true)`.
pub fn from_str(input: &str) -> core::result::Result<Variant, ParseError> {
    from_str_with(input, &ReadOptions::new().with_full_objects(true))
}

/// Reads one JSON value, refusing (with an error at the value) whatever
/// [`validate_with`](crate::validate_with) with the same options would refuse in its bytes: a
/// value deeper than [`ReadOptions::max_depth`], a type or a typed container the dialect does
/// not have, a full object unless [`ReadOptions::full_objects`], an Object without a class
/// that has properties, a Godot 4 `script` property that is not null or a `res://` path, and
/// (with objects) a script-typed container whose path is not `res://`.
///
/// ```
/// use gdvariant::{json, Dialect, ReadOptions};
/// let g3 = ReadOptions::new().with_dialect(Dialect::Godot3);
/// let e = json::from_str_with("[1, {\"$Vector4i\": [1, 2, 3, 4]}]", &g3).unwrap_err();
/// assert_eq!((e.offset, e.message.as_str()), (4, "a Vector4i cannot be written in the Godot 3 dialect"));
/// ```
pub fn from_str_with(input: &str, opts: &ReadOptions) -> core::result::Result<Variant, ParseError> {
    let (mut v, _) = values(input, *opts)?;
    if v.len() != 1 {
        return Err(ParseError {
            message: format!("expected exactly one JSON value, found {}", v.len()),
            offset: 0,
            syntax: Syntax::Json,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of JSON values separated by whitespace (JSON Lines, or values one after the
/// other), and tells whether any of them carries `"$f64": true` (components written in double
/// precision): then the values should be encoded in double precision (the components of the
/// others were read as `f32` and stay exact in `f64`). Full objects are read, as [`from_str`].
pub fn from_str_values(input: &str) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    from_str_values_with(input, &ReadOptions::new().with_full_objects(true))
}

/// [`from_str_values`] with the checks of [`from_str_with`].
pub fn from_str_values_with(
    input: &str,
    opts: &ReadOptions,
) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    values(input, *opts)
}

fn values(
    input: &str,
    opts: ReadOptions,
) -> core::result::Result<(Vec<Variant>, bool), ParseError> {
    let mut p = P::new(input);
    let mut b = Builder::new(Tree::default(), opts);
    let mut out = Vec::new();
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
        crate::reader::work(p.i - from);
        out.extend(b.sink.take());
    }
    Ok((out, p.wide))
}

/// Reads one JSON value and returns its encoding with `opts`, without building a tree: the
/// bytes [`encode_with`](crate::encode_with) writes for [`from_str_with`]'s value (read with the
/// options' dialect, depth limit and object policy). Values that carry `"$f64": true` make the
/// encoding double precision, as `gdvariant encode --from json` does (see
/// [`from_str_values`]). Memory: the output, plus a few words for each entry of each open
/// Dictionary.
///
/// ```
/// use gdvariant::{json, EncodeOptions};
/// let bytes = json::to_bytes("{\"a\": [1, 2.5]}", &EncodeOptions::new()).unwrap();
/// assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
/// ```
pub fn to_bytes(input: &str, opts: &EncodeOptions) -> core::result::Result<Vec<u8>, ParseError> {
    crate::builder::exactly_one("JSON value", Syntax::Json, |each| drive(input, opts, each))
}

/// Reads a sequence of JSON values and hands each one's encoding to `each`, in order, without
/// building trees (see [`to_bytes`]); all are written in double precision if any carries
/// `"$f64": true`. Returns how many.
pub fn to_bytes_each(
    input: &str,
    opts: &EncodeOptions,
    mut each: impl FnMut(&[u8]),
) -> core::result::Result<usize, ParseError> {
    drive(input, opts, |b| b.with_value(&mut each))
}

/// Reads the values of `input` into a [`Bytes`] builder, calling `done` after each one.
fn drive(
    input: &str,
    opts: &EncodeOptions,
    mut done: impl FnMut(&mut Bytes),
) -> core::result::Result<usize, ParseError> {
    let read = ReadOptions::new()
        .with_dialect(opts.dialect())
        .with_max_depth(opts.max_depth())
        .with_full_objects(opts.full_objects());
    let mut opts = *opts;
    // Only a `"$f64": true` makes a difference: look for it first (a quick scan, then a
    // reading pass without output if the text holds the word at all).
    if !opts.double_precision() && memchr::memmem::find(input.as_bytes(), b"$f64").is_some() {
        let mut p = P::new(input);
        let mut b = Builder::new(Ignore, read);
        while p.more() {
            let from = p.i;
            p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
            crate::reader::work(p.i - from);
        }
        opts = opts.with_double_precision(p.wide);
    }
    let mut p = P::new(input);
    let mut b = Builder::new(Bytes::new(opts), read);
    let mut n = 0;
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Json))?;
        crate::reader::work(p.i - from);
        done(&mut b.sink);
        n += 1;
    }
    Ok(n)
}

/// A sink that keeps nothing (the checks still run).
struct Ignore;

impl Sink for Ignore {
    fn leaf(&mut self, _: Variant, _: usize, _: usize) -> R {
        Ok(())
    }
    fn begin(&mut self, _: Open, _: usize, _: usize) -> R {
        Ok(())
    }
    fn property(&mut self, _: String, _: usize) -> R {
        Ok(())
    }
    fn set_types(&mut self, _: TypeInfo, _: TypeInfo, _: usize) -> R {
        Ok(())
    }
    fn keep_all(&mut self, _: usize) -> R {
        Ok(())
    }
    fn end(&mut self, _: usize) -> R {
        Ok(())
    }
}

// ----- the parser -----

/// What a tagged value's body was read into, waiting for the keys after it (`"$f64"`).
enum Pending {
    Ready(Variant),
    /// A real-valued math type: components read both ways, chosen by `"$f64"`.
    Reals {
        tag: Tag,
        wide: Vec<f64>,
        narrow: Vec<f32>,
    },
}

/// The real-valued tags whose components depend on `"$f64"`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Vector2,
    Rect2,
    Vector3,
    Transform2D,
    Vector4,
    Plane,
    Quaternion,
    Aabb,
    Basis,
    Transform3D,
    Projection,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
}

impl Tag {
    fn of(name: &str) -> Option<(Tag, usize)> {
        Some(match name {
            "Vector2" => (Tag::Vector2, 2),
            "Rect2" => (Tag::Rect2, 4),
            "Vector3" => (Tag::Vector3, 3),
            "Transform2D" => (Tag::Transform2D, 6),
            "Vector4" => (Tag::Vector4, 4),
            "Plane" => (Tag::Plane, 4),
            "Quaternion" => (Tag::Quaternion, 4),
            "AABB" => (Tag::Aabb, 6),
            "Basis" => (Tag::Basis, 9),
            "Transform3D" => (Tag::Transform3D, 12),
            "Projection" => (Tag::Projection, 16),
            "PackedVector2Array" => (Tag::PackedVector2Array, 2),
            "PackedVector3Array" => (Tag::PackedVector3Array, 3),
            "PackedVector4Array" => (Tag::PackedVector4Array, 4),
            _ => return None,
        })
    }

    fn packed(self) -> bool {
        matches!(
            self,
            Tag::PackedVector2Array | Tag::PackedVector3Array | Tag::PackedVector4Array
        )
    }
}

fn arr<const N: usize>(x: &[f64]) -> [f64; N] {
    let mut a = [0.0; N];
    a.copy_from_slice(&x[..N]);
    a
}

impl Pending {
    fn finish(self, single: bool) -> Variant {
        let (tag, wide, narrow) = match self {
            Pending::Ready(v) => return v,
            Pending::Reals { tag, wide, narrow } => (tag, wide, narrow),
        };
        let x: Vec<f64> = if single {
            narrow.into_iter().map(crate::math::widen).collect()
        } else {
            wide
        };
        fn chunks<const N: usize, V>(x: &[f64], make: fn([f64; N]) -> V) -> Vec<V> {
            x.chunks_exact(N).map(|c| make(arr(c))).collect()
        }
        match tag {
            Tag::Vector2 => Variant::Vector2(Vector2::from_array(arr(&x))),
            Tag::Rect2 => Variant::Rect2(Rect2::from_array(arr(&x))),
            Tag::Vector3 => Variant::Vector3(Vector3::from_array(arr(&x))),
            Tag::Transform2D => Variant::from(Transform2D::from_array(arr(&x))),
            Tag::Vector4 => Variant::Vector4(Vector4::from_array(arr(&x))),
            Tag::Plane => Variant::Plane(Plane::from_array(arr(&x))),
            Tag::Quaternion => Variant::Quaternion(Quaternion::from_array(arr(&x))),
            Tag::Aabb => Variant::from(Aabb::from_array(arr(&x))),
            Tag::Basis => Variant::from(Basis::from_array(arr(&x))),
            Tag::Transform3D => Variant::from(Transform3D::from_array(arr(&x))),
            Tag::Projection => Variant::from(Projection::from_array(arr(&x))),
            Tag::PackedVector2Array => Variant::PackedVector2Array(chunks(&x, Vector2::from_array)),
            Tag::PackedVector3Array => Variant::PackedVector3Array(chunks(&x, Vector3::from_array)),
            Tag::PackedVector4Array => Variant::PackedVector4Array(chunks(&x, Vector4::from_array)),
        }
    }
}

/// What the keys after a tagged value's body apply to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extras {
    Array,
    Dict,
    Object,
}

/// An open JSON container.
enum Frame {
    /// A plain array (a Variant Array).
    Arr { first: bool },
    /// A plain object (a Dictionary with String keys).
    Obj,
    /// The elements of `{"$Array": [...]}`.
    TArr { first: bool },
    /// The pairs of `{"$Dictionary": [...]}`.
    TDict { first: bool },
    /// One `[key, value]` pair; `key`: whether the element just read was the key.
    Pair { key: bool },
    /// The properties of `{"$Object": {"class": ..., "properties": [...]}}`.
    TObj { first: bool },
    /// One `["name", value]` property.
    Prop,
    /// The rest of an `$Object` body after its properties.
    ObjBody,
    /// The keys after a tagged container's body, then its end.
    Extras(Extras),
}

impl<'a> P<'a> {
    /// A container type: a builtin name, `"Variant"`, `{"class": ...}` or `{"script": ...}`.
    fn type_info(&mut self) -> R<TypeInfo> {
        self.ws();
        let at = self.i;
        if self.peek() == Some(b'"') {
            let s = self.string()?;
            if s == "Variant" {
                return Ok(TypeInfo::None);
            }
            return match Dialect::Godot4.types().find(|t| t.name() == s) {
                Some(t) => Ok(TypeInfo::Builtin(t)),
                None => fail(at, format!("unknown type name '{}'", excerpt(&s))),
            };
        }
        if self.eat(b'{') {
            self.ws();
            let kat = self.i;
            let k = self.string()?;
            self.expect(b':', "':'")?;
            let v = self.string()?;
            self.expect(b'}', "'}'")?;
            return match k.as_str() {
                "class" => Ok(TypeInfo::ClassName(v)),
                "script" => Ok(TypeInfo::Script(v)),
                _ => fail(kat, format!("unexpected key '{}' in a type", excerpt(&k))),
            };
        }
        fail(
            at,
            "expected a type: a name, {\"class\": ...} or {\"script\": ...}",
        )
    }

    /// The keys after a tagged value's body, up to its closing `}`: `"$f64"`, `"$type"`,
    /// `"$key"`, `"$value"`, `"$repeated"`. Returns `(types, f64, repeated)`.
    fn extras(&mut self) -> R<((TypeInfo, TypeInfo), bool, bool)> {
        let mut types = (TypeInfo::None, TypeInfo::None);
        let (mut wide, mut repeated) = (false, false);
        while self.eat(b',') {
            self.ws();
            let at = self.i;
            let k = self.string()?;
            self.expect(b':', "':'")?;
            match k.as_str() {
                "$f64" => wide = self.boolean()?,
                "$repeated" => repeated = self.boolean()?,
                "$type" | "$key" => types.0 = self.type_info()?,
                "$value" => types.1 = self.type_info()?,
                _ => {
                    return fail(
                        at,
                        format!("unexpected key '{}' in a tagged value", excerpt(&k)),
                    )
                }
            }
        }
        self.expect(b'}', "',' or '}'")?;
        if wide {
            self.wide = true;
        }
        Ok((types, wide, repeated))
    }

    /// Reads one whole JSON value into `b`.
    fn value<S: Sink>(&mut self, b: &mut Builder<S>) -> R {
        let mut frames: Vec<Frame> = Vec::new();
        'value: loop {
            if let Some(f) = self.start(b, &mut frames)? {
                frames.push(f);
            }
            loop {
                let Some(top) = frames.last_mut() else {
                    return Ok(());
                };
                match top {
                    Frame::Arr { first } | Frame::TArr { first } => {
                        if core::mem::take(first) {
                            if !self.eat(b']') {
                                continue 'value;
                            }
                        } else if self.eat(b',') {
                            continue 'value;
                        } else {
                            self.expect(b']', "',' or ']'")?;
                        }
                        if matches!(top, Frame::Arr { .. }) {
                            b.end(self.i)?;
                        }
                    }
                    Frame::Obj => {
                        if b.wants_key() {
                            // A value is complete: another key, or the end.
                            if self.eat(b',') {
                                self.ws();
                                let at = self.i;
                                let k = self.string()?;
                                self.expect(b':', "':'")?;
                                b.leaf(Variant::String(k.into()), at)?;
                                continue 'value;
                            }
                            self.expect(b'}', "',' or '}'")?;
                            b.end(self.i)?;
                        } else {
                            continue 'value;
                        }
                    }
                    Frame::TDict { first } => {
                        let go = if core::mem::take(first) {
                            !self.eat(b']')
                        } else if self.eat(b',') {
                            true
                        } else {
                            self.expect(b']', "',' or ']'")?;
                            false
                        };
                        if go {
                            self.expect(b'[', "'[' (a [key, value] pair)")?;
                            frames.push(Frame::Pair { key: true });
                            continue 'value;
                        }
                    }
                    Frame::Pair { key } => {
                        if core::mem::take(key) {
                            self.expect(b',', "',' (a [key, value] pair)")?;
                            continue 'value;
                        }
                        self.expect(b']', "']' (a [key, value] pair)")?;
                    }
                    Frame::TObj { first } => {
                        let go = if core::mem::take(first) {
                            !self.eat(b']')
                        } else if self.eat(b',') {
                            true
                        } else {
                            self.expect(b']', "',' or ']'")?;
                            false
                        };
                        if go {
                            self.expect(b'[', "'[' (a [name, value] pair)")?;
                            self.ws();
                            let at = self.i;
                            let name = self.string()?;
                            self.expect(b',', "','")?;
                            b.property(name, at)?;
                            frames.push(Frame::Prop);
                            continue 'value;
                        }
                    }
                    Frame::Prop => self.expect(b']', "']' (a [name, value] pair)")?,
                    Frame::ObjBody => self.expect(b'}', "'}'")?,
                    Frame::Extras(kind) => {
                        let kind = *kind;
                        let at = self.i;
                        let (types, _, repeated) = self.extras()?;
                        if kind != Extras::Object && types != (TypeInfo::None, TypeInfo::None) {
                            b.set_types(types.0, types.1, at)?;
                        }
                        if kind == Extras::Dict && repeated {
                            b.keep_all(at)?;
                        }
                        b.end(self.i)?;
                    }
                }
                frames.pop();
            }
        }
    }

    /// Reads the start of a value: a whole value that holds no other value, or the opening of a
    /// container (the frames to push are pushed, the innermost returned).
    fn start<S: Sink>(&mut self, b: &mut Builder<S>, frames: &mut Vec<Frame>) -> R<Option<Frame>> {
        self.ws();
        let at = self.i;
        let leaf = |b: &mut Builder<S>, v: Variant| b.leaf(v, at).map(|()| None);
        match self.s.get(self.i) {
            None => self.err("unexpected end of JSON"),
            Some(b'[') => {
                self.i += 1;
                b.begin(Open::Array(TypeInfo::None), at)?;
                Ok(Some(Frame::Arr { first: true }))
            }
            Some(b'{') => {
                self.i += 1;
                if self.eat(b'}') {
                    b.begin(plain_dict(), at)?;
                    b.end(self.i)?;
                    return Ok(None);
                }
                self.ws();
                let kat = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                if let Some(tag) = k.strip_prefix('$') {
                    return self.tagged(b, frames, tag, at, kat);
                }
                b.begin(plain_dict(), at)?;
                b.leaf(Variant::String(k.into()), kat)?;
                Ok(Some(Frame::Obj))
            }
            Some(b'"') => {
                let s = self.string()?;
                leaf(b, Variant::String(s.into()))
            }
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                leaf(b, Variant::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                leaf(b, Variant::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                leaf(b, Variant::Nil)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let t = self.number()?;
                let v = if t.contains(['.', 'e', 'E']) {
                    match t.parse() {
                        Ok(x) => Variant::Float(x),
                        Err(_) => return fail(at, "bad number"),
                    }
                } else {
                    match t.parse() {
                        Ok(x) => Variant::Int(x),
                        Err(_) => return fail(at, "integer out of 64-bit range"),
                    }
                };
                leaf(b, v)
            }
            Some(_) => self.err("unexpected character"),
        }
    }

    /// `{"$Tag": body, ...}` with `"$Tag":` read (`at`: the object, `kat`: the tag).
    fn tagged<S: Sink>(
        &mut self,
        b: &mut Builder<S>,
        frames: &mut Vec<Frame>,
        tag: &str,
        at: usize,
        kat: usize,
    ) -> R<Option<Frame>> {
        self.ws();
        let vat = self.i;
        match tag {
            "Array" => {
                self.expect(b'[', "an array")?;
                b.begin(Open::Array(TypeInfo::None), at)?;
                frames.push(Frame::Extras(Extras::Array));
                return Ok(Some(Frame::TArr { first: true }));
            }
            "Dictionary" => {
                self.expect(b'[', "an array of [key, value] pairs")?;
                b.begin(plain_dict(), at)?;
                frames.push(Frame::Extras(Extras::Dict));
                return Ok(Some(Frame::TDict { first: true }));
            }
            "Object" => return self.object(b, frames, at),
            _ => {}
        }
        let pending = match Tag::of(tag) {
            Some((t, n)) => {
                let pairs = if t.packed() {
                    let mut flat = Vec::new();
                    self.list(|p| {
                        p.ws();
                        let at = p.i;
                        let c = p.list(P::real)?;
                        if c.len() != n {
                            return fail(at, format!("expected {n} components"));
                        }
                        flat.extend_from_slice(&c);
                        Ok(())
                    })?;
                    flat
                } else {
                    let at = self.i;
                    let v = self.list(P::real)?;
                    if v.len() != n {
                        return fail(at, format!("expected {n} components"));
                    }
                    v
                };
                let (wide, narrow) = pairs.into_iter().unzip();
                Pending::Reals {
                    tag: t,
                    wide,
                    narrow,
                }
            }
            None => Pending::Ready(self.leaf_body(tag, kat, vat)?),
        };
        let (_, wide, _) = self.extras()?;
        b.leaf(pending.finish(!wide), at)?;
        Ok(None)
    }

    /// The body of a tagged value that is not a container nor a real-valued math type.
    fn leaf_body(&mut self, tag: &str, kat: usize, vat: usize) -> R<Variant> {
        Ok(match tag {
            "float" => Variant::Float(self.real64()?),
            "Vector2i" => {
                Variant::Vector2i(Vector2i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Rect2i" => Variant::Rect2i(Rect2i::from_array(self.fixed(|p| p.i32_of("component"))?)),
            "Vector3i" => {
                Variant::Vector3i(Vector3i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Vector4i" => {
                Variant::Vector4i(Vector4i::from_array(self.fixed(|p| p.i32_of("component"))?))
            }
            "Color" => Variant::Color(Color::from_array(self.fixed(P::real32)?)),
            "StringName" => Variant::StringName(self.string()?.into()),
            "NodePath" => {
                if self.peek() == Some(b'{') {
                    Variant::from(self.node_path_parts()?)
                } else {
                    Variant::from(node_path(&self.string()?))
                }
            }
            "RID" => Variant::Rid(self.uint("RID id")?),
            "ObjectId" => Variant::from(Object::Id(self.uint("object id")?)),
            "Callable" => {
                self.ws();
                if !self.s[self.i..].starts_with(b"null") {
                    return self.err("expected null");
                }
                self.i += 4;
                Variant::Callable
            }
            "Signal" => {
                self.expect(b'{', "{\"name\": ..., \"object\": ...}")?;
                let mut sig = Signal::default();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let at = self.i;
                        let k = self.string()?;
                        self.expect(b':', "':'")?;
                        match k.as_str() {
                            "name" => sig.name = self.string()?,
                            "object" => sig.object_id = self.uint("object id")?,
                            _ => {
                                return fail(
                                    at,
                                    format!("unexpected key '{}' in a Signal", excerpt(&k)),
                                )
                            }
                        }
                        if self.eat(b',') {
                            continue;
                        }
                        self.expect(b'}', "',' or '}'")?;
                        break;
                    }
                }
                Variant::Signal(sig)
            }
            "PackedByteArray" => Variant::PackedByteArray(self.list(|p| {
                p.ws();
                let at = p.i;
                let x = p.int()?;
                u8::try_from(x).or_else(|_| fail(at, "byte out of range"))
            })?),
            "PackedInt32Array" => Variant::PackedInt32Array(self.list(|p| p.i32_of("element"))?),
            "PackedInt64Array" => Variant::PackedInt64Array(self.list(P::int)?),
            "PackedFloat32Array" => Variant::PackedFloat32Array(self.list(P::real32)?),
            "PackedFloat64Array" => Variant::PackedFloat64Array(self.list(P::real64)?),
            "PackedStringArray" => {
                Variant::PackedStringArray(self.list(|p| p.string().map(Into::into))?)
            }
            "PackedColorArray" => {
                Variant::PackedColorArray(self.list(|p| p.fixed(P::real32).map(Color::from_array))?)
            }
            other => {
                let _ = vat;
                return fail(kat, format!("unknown tag '${}'", excerpt(other)));
            }
        })
    }

    /// `{"names": [...], "subnames": [...], "absolute": bool}`.
    fn node_path_parts(&mut self) -> R<NodePath> {
        self.expect(b'{', "'{'")?;
        let mut np = NodePath::default();
        if !self.eat(b'}') {
            loop {
                self.ws();
                let at = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                match k.as_str() {
                    "names" => np.names = self.list(P::string)?,
                    "subnames" => np.subnames = self.list(P::string)?,
                    "absolute" => np.absolute = self.boolean()?,
                    _ => {
                        return fail(
                            at,
                            format!("unexpected key '{}' in a NodePath", excerpt(&k)),
                        )
                    }
                }
                if self.eat(b',') {
                    continue;
                }
                self.expect(b'}', "',' or '}'")?;
                break;
            }
        }
        Ok(np)
    }

    /// `{"$Object": {"class": "Node", "properties": [["name", value], ...]}}`, `"$Object":`
    /// read. The class comes first; an empty class is the null object, without properties.
    fn object<S: Sink>(
        &mut self,
        b: &mut Builder<S>,
        frames: &mut Vec<Frame>,
        at: usize,
    ) -> R<Option<Frame>> {
        self.expect(b'{', "{\"class\": ..., \"properties\": [...]}")?;
        self.ws();
        let kat = self.i;
        let mut class = String::new();
        let mut has_props = false;
        if !self.eat(b'}') {
            let k = self.string()?;
            self.expect(b':', "':'")?;
            match k.as_str() {
                "class" => class = self.string()?,
                "properties" => {
                    return fail(kat, "expected \"class\" before \"properties\" in an Object")
                }
                _ => {
                    return fail(
                        kat,
                        format!("unexpected key '{}' in an Object", excerpt(&k)),
                    )
                }
            }
            if self.eat(b',') {
                self.ws();
                let pat = self.i;
                let k = self.string()?;
                self.expect(b':', "':'")?;
                if k != "properties" {
                    return fail(
                        pat,
                        format!("unexpected key '{}' in an Object", excerpt(&k)),
                    );
                }
                self.expect(b'[', "an array of [name, value] pairs")?;
                has_props = true;
            } else {
                self.expect(b'}', "',' or '}'")?;
            }
        }
        if class.is_empty() {
            // The null object: nothing else may follow.
            if has_props {
                if !self.eat(b']') {
                    return fail(kat, "a null Object (empty class) has no properties");
                }
                self.expect(b'}', "'}'")?;
            }
            let (_, _, _) = self.extras()?;
            b.leaf(
                Variant::from(Object::Full {
                    class,
                    properties: Vec::new(),
                }),
                at,
            )?;
            return Ok(None);
        }
        b.begin(Open::Object(class), at)?;
        frames.push(Frame::Extras(Extras::Object));
        if !has_props {
            return Ok(None);
        }
        frames.push(Frame::ObjBody);
        Ok(Some(Frame::TObj { first: true }))
    }
}

/// An untyped Dictionary (its types may come after its pairs) that merges repeated keys (unless
/// `"$repeated": true` follows) by Godot 4's key identity, whatever the dialect written: the
/// JSON form is the same for both dialects.
fn plain_dict() -> Open {
    Open::Dict {
        key: TypeInfo::None,
        value: TypeInfo::None,
        merge: Some(Dialect::Godot4),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lex::is_json_number;
    use super::*;

    #[test]
    fn numbers_follow_jsons_grammar_and_stay_finite() {
        for ok in [
            "0", "-0", "1", "10", "-12", "1.5", "0.25", "1e3", "1E+3", "2.5e-3", "-0.0e0",
        ] {
            assert!(is_json_number(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "1.e3", "--1", "1-2",
        ] {
            assert!(!is_json_number(bad.as_bytes()), "{bad}");
        }
        // Leading zeros and overflow to infinity are refused, with the offset of the number.
        for (input, msg) in [
            ("01", "bad number"),
            ("[1, 01]", "bad number"),
            ("1e400", "out of range"),
            ("-1e400", "out of range"),
        ] {
            let e = from_str(input).unwrap_err();
            assert!(e.to_string().contains(msg), "{input}: {e}");
        }
        // A NUL in a string is refused, by the tree and the bytes readers alike, at the string.
        for input in [
            r#""a\u0000b""#,
            r#"{"$Object":{"class":"Node","properties":[["a\u0000",1]]}}"#,
        ] {
            let e = from_str(input).unwrap_err();
            assert!(e.message.contains("NUL in a string"), "{e}");
            assert_eq!(
                to_bytes(
                    input,
                    &crate::encode::EncodeOptions::new().with_full_objects(true)
                )
                .unwrap_err()
                .message,
                e.message
            );
        }
        assert_eq!(from_str("1e300").unwrap(), Variant::Float(1e300));
        assert_eq!(
            from_str("[0, -0.5]").unwrap(),
            Variant::from(vec![Variant::Int(0), Variant::Float(-0.5)])
        );
        // A 32-bit context: a finite decimal beyond f32's range is refused, not read as inf.
        let e = from_str(r#"{"$PackedFloat32Array":[1e39]}"#).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }

    #[test]
    fn streaming_gives_the_tree_encoders_bytes() {
        let enc = EncodeOptions::new().with_full_objects(true);
        for json in [
            "{\"a\": 1, \"b\": [2], \"a\": {\"x\": 1, \"x\": 2}}",
            "{\"$Array\": [{\"$Array\": [1], \"$type\": {\"class\": \"Node\"}}], \"$type\": \"Array\"}",
            "{\"$Dictionary\": [[1, 2], [1, 3], [[1], 4]], \"$key\": \"Variant\", \"$value\": \"int\"}",
            "{\"$Dictionary\": [[1, 2], [1, 3]], \"$repeated\": true}",
            "{\"$Object\": {\"class\": \"Node\", \"properties\": [[\"a\", {\"$Array\": [], \"$type\": \"int\"}]]}}",
            "[{\"$Vector2\": [0.1, 0.2], \"$f64\": true}, {\"$PackedVector2Array\": [[0.5, \"-nan\"]]}]",
        ] {
            let tree = from_str(json).unwrap();
            let (_, wide) = from_str_values(json).unwrap();
            let want = crate::encode::encode_with(&tree, &enc.with_double_precision(wide)).unwrap();
            assert_eq!(to_bytes(json, &enc).unwrap(), want, "{json}");
        }
    }

    #[test]
    fn repeated_keys_are_kept_when_marked() {
        let v = from_str("{\"$Dictionary\": [[1, 2], [1, 3]], \"$repeated\": true}").unwrap();
        assert_eq!(v.as_dictionary().unwrap().entries.len(), 2);
        let v = from_str("{\"$Dictionary\": [[1, 2], [1, 3]]}").unwrap();
        assert_eq!(v.as_dictionary().unwrap().entries.len(), 1);
    }
}
