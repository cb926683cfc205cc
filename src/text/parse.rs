//! Reading the engine's text form (what `var_to_str` prints and `str_to_var` reads) into an
//! owned [`Variant`], or straight into its encoded bytes.
//!
//! Accepts the literal syntax of both engines: `null`, `true`, `42`, `1.5`, `inf`, `inf_neg`,
//! `nan`, `"text"` (with the engine's escapes), `&"name"`, `^"node/path"`,
//! `NodePath("a:b")`, `Vector2(1, 2)` (also Godot 3's `Vector2( 1, 2 )`), every math and packed
//! type by its Godot 4 or Godot 3 name (`Quat`, `Transform`, `PoolIntArray`, …), `RID(5)`,
//! `Callable()`, `Signal()`, `[...]`, `{key: value, ...}`, `Array[int]([...])`,
//! `Dictionary[String, int]({...})`, and objects in the engine's layout
//! (`Object(Class,"prop":value,...)`; `Object(EncodedObjectAsID,"object_id":N,...)` reads as the
//! instance id N, and `Resource("res://x.gd")` as the script path).
//!
//! A signed `nan` (`-nan`, Godot 3's print of a negative NaN) reads as the canonical NaN. Godot
//! 3.2.3's own `str2var` does not read it back (checked live: `str2var("-nan")` is the int 0,
//! and a `PoolRealArray( -nan )` is not parsed at all), so that text is a listed loss
//! ([`LossKind::Float`](crate::text::LossKind::Float)) either way.
//!
//! Numbers are read exactly: ints as `i64`, floats as `f64`; components of math types and
//! elements of packed arrays that are stored as `f32` (single precision, Colors,
//! PackedFloat32Array) are read as `f32` straight from the decimal.
//!
//! The reader is iterative (any nesting costs heap, a few bytes a level, never native stack)
//! and refuses whatever [`validate_with`](crate::validate_with) would refuse in the bytes of
//! the value read, with the same options: see [`from_str_with`].
//!
//! ```
//! use gdvariant::{text, Dialect, Variant};
//! let v = text::from_str("{\n\"a\": [1, 2.5]\n}", Dialect::Godot4).unwrap();
//! let d = v.as_dictionary().unwrap();
//! assert_eq!(d.get_str("a").unwrap().as_array().unwrap().items[1], Variant::Float(2.5));
//! ```

use std::vec::Vec;

use crate::builder::{Builder, Bytes, Open, Sink, Tree};
use crate::encode::EncodeOptions;
use crate::error::{ParseError, Syntax};
use crate::literal::{excerpt, node_path};
use crate::math::*;
use crate::owned::{Object, Signal, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};

use super::lex::{fail, is_ident, Parser, R};

/// Reads one value of engine text (what `str_to_var` reads) in `dialect`. Whitespace around it
/// is allowed.
///
/// As the engine's `str_to_var`, this reads full objects; the depth limit is the engine's
/// (1024). It is [`from_str_with`] with `ReadOptions::new().with_dialect(dialect)
/// .with_full_objects(true)`.
pub fn from_str(input: &str, dialect: Dialect) -> core::result::Result<Variant, ParseError> {
    from_str_with(
        input,
        &ReadOptions::new()
            .with_dialect(dialect)
            .with_full_objects(true),
    )
}

/// Reads one value of engine text, refusing (with an error at the value) whatever
/// [`validate_with`](crate::validate_with) with the same options would refuse in its bytes: a
/// value deeper than [`ReadOptions::max_depth`], a type or a typed container the dialect does
/// not have, a full object unless [`ReadOptions::full_objects`], an Object without a class,
/// a Godot 4 `script` property that is not null or a `res://` path, and (with objects) a
/// script-typed container whose path is not `res://`.
///
/// Math components and packed vector elements are read as `f32` (single precision).
///
/// ```
/// use gdvariant::{text, ReadOptions};
/// let opts = ReadOptions::new().with_max_depth(1);
/// assert!(text::from_str_with("[[]]", &opts).is_ok());
/// let e = text::from_str_with("[[1]]", &opts).unwrap_err();
/// assert_eq!((e.offset, e.message.as_str()), (2, "nested deeper than 1 levels"));
/// let e = text::from_str_with("Object(Node)", &ReadOptions::new()).unwrap_err();
/// assert!(e.message.starts_with("a full object is not allowed"));
/// ```
pub fn from_str_with(input: &str, opts: &ReadOptions) -> core::result::Result<Variant, ParseError> {
    let mut v = values(input, *opts, false)?;
    if v.len() != 1 {
        return Err(ParseError {
            message: format!("expected exactly one value, found {}", v.len()),
            offset: 0,
            syntax: Syntax::Text,
        });
    }
    Ok(v.remove(0))
}

/// Reads a sequence of values separated by whitespace (as `gdvariant encode --framed` takes
/// them). With `double`, math components and packed vector elements are read as `f64` (for a
/// double-precision encoding); otherwise they are read as `f32` straight from the decimal, as
/// the engine's single-precision build stores them. Full objects are read, as [`from_str`].
pub fn from_str_values(
    input: &str,
    dialect: Dialect,
    double: bool,
) -> core::result::Result<Vec<Variant>, ParseError> {
    let opts = ReadOptions::new()
        .with_dialect(dialect)
        .with_full_objects(true);
    values(input, opts, double)
}

fn values(
    input: &str,
    opts: ReadOptions,
    double: bool,
) -> core::result::Result<Vec<Variant>, ParseError> {
    let mut p = Parser::new(input, double);
    let mut b = Builder::new(Tree::default(), opts);
    let mut out = Vec::new();
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Text))?;
        crate::reader::work(p.i - from);
        out.extend(b.sink.take());
    }
    Ok(out)
}

/// Reads one value of engine text and returns its encoding with `opts`, without building a
/// tree: the bytes [`encode_with`](crate::encode_with) writes for [`from_str_with`]'s value
/// (read with the options' dialect, depth limit and object policy; components read as `f64`
/// with double precision, else as `f32`). Memory: the output, plus a few words for each
/// entry of each open Dictionary.
///
/// ```
/// use gdvariant::{text, EncodeOptions};
/// let bytes = text::to_bytes("[1, \"a\"]", &EncodeOptions::new()).unwrap();
/// assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
/// ```
pub fn to_bytes(input: &str, opts: &EncodeOptions) -> core::result::Result<Vec<u8>, ParseError> {
    crate::builder::exactly_one("value", Syntax::Text, |each| drive(input, opts, each))
}

/// Reads a sequence of values separated by whitespace and hands each one's encoding with
/// `opts` to `each`, in order, without building trees (see [`to_bytes`]). Returns how many.
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
    let mut p = Parser::new(input, opts.wide());
    let mut b = Builder::new(Bytes::new(*opts), read);
    let mut n = 0;
    while p.more() {
        let from = p.i;
        p.value(&mut b).map_err(|f| f.of(Syntax::Text))?;
        crate::reader::work(p.i - from);
        done(&mut b.sink);
        n += 1;
    }
    Ok(n)
}

/// An open container of the text.
enum Frame {
    /// `[ … ]` followed by `close` `)`s.
    Array { close: u8, first: bool },
    /// `{ … }` followed by `close` `)`s; `key`: whether the element just read was a key.
    Dict { close: u8, first: bool, key: bool },
    /// `Object(Class, "name": value, …)`.
    Object,
}

/// What reading the start of a value gave.
enum Start {
    /// A complete value (given to the builder).
    Done,
    /// A container was opened.
    Open(Frame),
}

impl<'a> Parser<'a> {
    /// Reads one whole value into `b`.
    fn value<S: Sink>(&mut self, b: &mut Builder<S>) -> R {
        let mut frames: Vec<Frame> = Vec::new();
        'value: loop {
            if let Start::Open(f) = self.start(b)? {
                frames.push(f);
            }
            // Close what is complete; stop where a value is wanted.
            loop {
                let Some(top) = frames.last_mut() else {
                    return Ok(());
                };
                match top {
                    Frame::Array { close, first } => {
                        let close = *close;
                        if *first {
                            *first = false;
                            if !self.eat(b']') {
                                continue 'value;
                            }
                        } else if self.eat(b',') {
                            if !self.eat(b']') {
                                continue 'value;
                            }
                        } else if !self.eat(b']') {
                            return self.err("expected ',' or ']'");
                        }
                        self.close(b, close)?;
                    }
                    Frame::Dict { close, first, key } => {
                        let close = *close;
                        if *first {
                            *first = false;
                            if !self.eat(b'}') {
                                *key = true;
                                continue 'value;
                            }
                        } else if *key {
                            if !self.eat(b':') && !self.eat(b'=') {
                                return self.err("expected ':'");
                            }
                            *key = false;
                            continue 'value;
                        } else if self.eat(b',') {
                            if !self.eat(b'}') {
                                *key = true;
                                continue 'value;
                            }
                        } else if !self.eat(b'}') {
                            return self.err("expected ',' or '}'");
                        }
                        self.close(b, close)?;
                    }
                    Frame::Object => {
                        if self.eat(b',') {
                            self.ws();
                            let at = self.i;
                            let name = self.string()?;
                            self.expect(b':')?;
                            b.property(name, at)?;
                            continue 'value;
                        }
                        self.expect(b')')?;
                        b.end(self.i)?;
                    }
                }
                frames.pop();
            }
        }
    }

    /// Ends the innermost container (its `]` or `}` read), then reads `close` `)`s.
    fn close<S: Sink>(&mut self, b: &mut Builder<S>, close: u8) -> R {
        b.end(self.i)?;
        for _ in 0..close {
            self.expect(b')')?;
        }
        Ok(())
    }

    /// Reads the start of a value: a whole value that holds no other value, or the opening of a
    /// container.
    fn start<S: Sink>(&mut self, b: &mut Builder<S>) -> R<Start> {
        self.ws();
        let at = self.i;
        let Some(c) = self.peek() else {
            return self.err("unexpected end of text");
        };
        let single = self.single;
        let leaf = |b: &mut Builder<S>, v: Variant| b.leaf(v, at).map(|()| Start::Done);
        match c {
            b'"' => {
                let s = self.string()?;
                return leaf(b, Variant::String(s.into()));
            }
            b'&' => {
                self.i += 1;
                let s = self.string()?;
                return leaf(b, Variant::StringName(s.into()));
            }
            b'^' => {
                self.i += 1;
                let s = self.string()?;
                return leaf(b, Variant::from(node_path(&s)));
            }
            b'[' => {
                self.i += 1;
                return self.open(b, Open::Array(TypeInfo::None), 0, at);
            }
            b'{' => {
                self.i += 1;
                return self.open(
                    b,
                    dict(TypeInfo::None, TypeInfo::None, b.options().dialect()),
                    0,
                    at,
                );
            }
            b'-' | b'+' | b'0'..=b'9' | b'.' => {
                let t = self.number_token()?;
                let v = match t {
                    "inf" => Variant::Float(f64::INFINITY),
                    "-inf" => Variant::Float(f64::NEG_INFINITY),
                    "nan" => Variant::Float(f64::NAN),
                    t if t.contains(['.', 'e', 'E']) => match t.parse() {
                        Ok(x) => Variant::Float(x),
                        Err(_) => return fail(at, format!("bad number '{}'", excerpt(t))),
                    },
                    t => match t.parse() {
                        Ok(x) => Variant::Int(x),
                        Err(_) => return fail(at, format!("bad integer '{}'", excerpt(t))),
                    },
                };
                return leaf(b, v);
            }
            c if is_ident(c) => {}
            _ => return self.err(format!("unexpected character '{}'", c as char)),
        }
        let id = self.ident();
        let simple = match id {
            "null" | "nil" => Some(Variant::Nil),
            "true" => Some(Variant::Bool(true)),
            "false" => Some(Variant::Bool(false)),
            "inf" => Some(Variant::Float(f64::INFINITY)),
            "inf_neg" => Some(Variant::Float(f64::NEG_INFINITY)),
            "nan" => Some(Variant::Float(f64::NAN)),
            _ => None,
        };
        if let Some(v) = simple {
            return leaf(b, v);
        }
        // Typed containers: Array[T](...), Dictionary[K, V](...).
        if (id == "Array" || id == "Dictionary") && self.peek() == Some(b'[') {
            self.i += 1;
            let k = self.type_info()?;
            let v = if id == "Dictionary" {
                self.expect(b',')?;
                Some(self.type_info()?)
            } else {
                None
            };
            self.expect(b']')?;
            self.expect(b'(')?;
            return match v {
                None => {
                    self.expect(b'[')?;
                    self.open(b, Open::Array(k), 1, at)
                }
                Some(v) => {
                    self.expect(b'{')?;
                    self.open(b, dict(k, v, b.options().dialect()), 1, at)
                }
            };
        }
        if !self.eat(b'(') {
            self.i = at;
            return self.err(format!("unknown identifier '{}'", excerpt(id)));
        }
        let v = match id {
            "Vector2" => Variant::Vector2(Vector2::from_array(self.reals(single)?)),
            "Vector2i" => Variant::Vector2i(Vector2i::from_array(self.ints()?)),
            "Rect2" => Variant::Rect2(Rect2::from_array(self.reals(single)?)),
            "Rect2i" => Variant::Rect2i(Rect2i::from_array(self.ints()?)),
            "Vector3" => Variant::Vector3(Vector3::from_array(self.reals(single)?)),
            "Vector3i" => Variant::Vector3i(Vector3i::from_array(self.ints()?)),
            "Transform2D" => Variant::from(Transform2D::from_array(self.reals(single)?)),
            "Vector4" => Variant::Vector4(Vector4::from_array(self.reals(single)?)),
            "Vector4i" => Variant::Vector4i(Vector4i::from_array(self.ints()?)),
            "Plane" => Variant::Plane(Plane::from_array(self.reals(single)?)),
            "Quaternion" | "Quat" => {
                Variant::Quaternion(Quaternion::from_array(self.reals(single)?))
            }
            "AABB" => Variant::from(Aabb::from_array(self.reals(single)?)),
            "Basis" => Variant::from(Basis::from_array(self.reals(single)?)),
            "Transform3D" | "Transform" => {
                Variant::from(Transform3D::from_array(self.reals(single)?))
            }
            "Projection" => Variant::from(Projection::from_array(self.reals(single)?)),
            "Color" => {
                let c: [f64; 4] = self.reals(true)?;
                Variant::Color(Color::from_array(c.map(|x| x as f32)))
            }
            "NodePath" => {
                let s = self.string()?;
                self.expect(b')')?;
                Variant::from(node_path(&s))
            }
            "StringName" => {
                let s = self.string()?;
                self.expect(b')')?;
                Variant::StringName(s.into())
            }
            "RID" => Variant::Rid(self.rid()?),
            "Callable" => {
                self.expect(b')')?;
                Variant::Callable
            }
            "Signal" => {
                self.expect(b')')?;
                Variant::Signal(Signal::default())
            }
            "Resource" => {
                // A resource by path (an object's script): read as its path.
                let s = self.string()?;
                self.expect(b')')?;
                Variant::String(s.into())
            }
            "Object" => return self.object(b, at),
            "Array" => {
                self.expect(b'[')?;
                return self.open(b, Open::Array(TypeInfo::None), 1, at);
            }
            "Dictionary" => {
                self.expect(b'{')?;
                return self.open(
                    b,
                    dict(TypeInfo::None, TypeInfo::None, b.options().dialect()),
                    1,
                    at,
                );
            }
            "PackedByteArray" | "PoolByteArray" => {
                Variant::PackedByteArray(self.items(|p| p.int_in("a byte (0 to 255)"))?)
            }
            "PackedInt32Array" | "PoolIntArray" => {
                Variant::PackedInt32Array(self.items(|p| p.int_in("a 32-bit element"))?)
            }
            "PackedInt64Array" => Variant::PackedInt64Array(self.items(|p| p.int())?),
            "PackedFloat32Array" | "PoolRealArray" => {
                Variant::PackedFloat32Array(self.items(|p| p.real(true).map(|x| x as f32))?)
            }
            "PackedFloat64Array" => Variant::PackedFloat64Array(self.items(|p| p.real(false))?),
            "PackedStringArray" | "PoolStringArray" => {
                Variant::PackedStringArray(self.items(|p| p.string().map(Into::into))?)
            }
            "PackedVector2Array" | "PoolVector2Array" => {
                Variant::PackedVector2Array(self.chunks(single, Vector2::from_array)?)
            }
            "PackedVector3Array" | "PoolVector3Array" => {
                Variant::PackedVector3Array(self.chunks(single, Vector3::from_array)?)
            }
            "PackedVector4Array" => {
                Variant::PackedVector4Array(self.chunks(single, Vector4::from_array)?)
            }
            "PackedColorArray" | "PoolColorArray" => Variant::PackedColorArray(
                self.chunks(true, |c: [f64; 4]| Color::from_array(c.map(|x| x as f32)))?,
            ),
            _ => {
                self.i = at;
                return self.err(format!("unknown constructor '{}'", excerpt(id)));
            }
        };
        leaf(b, v)
    }

    fn open<S: Sink>(&mut self, b: &mut Builder<S>, c: Open, close: u8, at: usize) -> R<Start> {
        let f = match c {
            Open::Array(_) => Frame::Array { close, first: true },
            _ => Frame::Dict {
                close,
                first: true,
                key: false,
            },
        };
        b.begin(c, at)?;
        Ok(Start::Open(f))
    }

    /// `Object(Class,"prop":value,...)`, the `(` already read. `EncodedObjectAsID` (an object
    /// sent as its instance id) reads as the id, its properties being plain values.
    fn object<S: Sink>(&mut self, b: &mut Builder<S>, at: usize) -> R<Start> {
        let class = self.ident();
        if class != "EncodedObjectAsID" {
            b.begin(Open::Object(class.into()), at)?;
            return Ok(Start::Open(Frame::Object));
        }
        let mut id = 0;
        while self.eat(b',') {
            let name = self.string()?;
            self.expect(b':')?;
            if name == "object_id" {
                // The id as the engine prints it (signed), also read unsigned.
                self.ws();
                let at = self.i;
                let t = self.number_token()?;
                id = t
                    .parse::<i64>()
                    .map(|x| x as u64)
                    .or_else(|_| t.parse::<u64>())
                    .or_else(|_| fail(at, format!("bad object id '{}'", excerpt(t))))?;
                continue;
            }
            // The other properties of an EncodedObjectAsID are plain values, read and dropped.
            let mut scratch = Builder::new(Tree::default(), *b.options());
            self.ws();
            let vat = self.i;
            if let Start::Open(_) = self.start(&mut scratch)? {
                return fail(vat, "expected a plain value");
            }
        }
        self.expect(b')')?;
        b.leaf(Variant::from(Object::Id(id)), at)?;
        Ok(Start::Done)
    }
}

/// A Dictionary that merges repeated keys as `str_to_var` / `str2var` do: by the key identity
/// of `dialect`'s engine.
fn dict(key: TypeInfo, value: TypeInfo, dialect: Dialect) -> Open {
    Open::Dict {
        key,
        value,
        merge: Some(dialect),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::Array;

    #[test]
    fn the_dialect_decides_which_types_read() {
        for (text, at, msg) in [
            (
                "[1, &\"x\"]",
                4,
                "a StringName cannot be written in the Godot 3 dialect",
            ),
            ("Vector4(1, 2, 3, 4)", 0, "a Vector4 cannot"),
            ("{1: Callable()}", 4, "a Callable cannot"),
            ("Array[int]([1])", 0, "a typed Array cannot"),
            ("Dictionary[int, int]({})", 0, "a typed Dictionary cannot"),
            ("PackedInt64Array(1)", 0, "a PackedInt64Array cannot"),
        ] {
            let e = from_str(text, Dialect::Godot3).unwrap_err();
            assert!(e.message.starts_with(msg), "{text}: {e}");
            assert_eq!(e.offset, at, "{text}: {e}");
            assert!(from_str(text, Dialect::Godot4).is_ok(), "{text}");
        }
        // Godot 3's own syntax reads in both.
        for d in [Dialect::Godot3, Dialect::Godot4] {
            let v = from_str(
                "[ Vector2( 1, 2 ), PoolIntArray( 1 ), Quat( 0, 0, 0, 1 ) ]",
                d,
            );
            assert!(v.is_ok(), "{d}: {v:?}");
        }
    }

    #[test]
    fn duplicate_keys_are_replaced_in_place() {
        let v = from_str(
            "{\"a\": 1, 2: 0, \"a\": [3], 2: 5, \"c\": 4}",
            Dialect::Godot4,
        )
        .unwrap();
        let d = v.as_dictionary().unwrap();
        assert_eq!(
            d.entries,
            vec![
                (
                    Variant::from("a"),
                    Variant::Array(Array::new(vec![Variant::Int(3)]))
                ),
                (Variant::Int(2), Variant::Int(5)),
                (Variant::from("c"), Variant::Int(4)),
            ]
        );
    }

    #[test]
    fn streaming_gives_the_tree_encoders_bytes() {
        let enc = EncodeOptions::new().with_full_objects(true);
        for text in [
            "{\"a\": 1, 2: 0, \"a\": [3], 2: 5, \"c\": 4}",
            "{[1, {2: 3, 2: 4}]: 1, [1, {2: 4}]: 2, ^\"a/b\": {^\"x\": 1, ^\"x\": [{1: 2, 1: 3}]}}",
            "Array[int]([1, 2])",
            "Object(Node,\"a\":{1: 2, 1: [3]},\"script\":null)\n",
            "[Object(EncodedObjectAsID,\"object_id\":5,\"script\":null)\n, RID(-88)]",
        ] {
            let tree = from_str(text, Dialect::Godot4).unwrap();
            let want = crate::encode::encode_with(&tree, &enc).unwrap();
            assert_eq!(to_bytes(text, &enc).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn rids_read_signed_and_unsigned() {
        for t in ["RID(-88)", "RID(18446744073709551528)"] {
            assert_eq!(
                from_str(t, Dialect::Godot4).unwrap(),
                Variant::Rid(-88i64 as u64)
            );
        }
    }

    #[test]
    fn object_ids_read_signed_and_unsigned() {
        // Found by the print_round_trip fuzz target: an id above i64::MAX printed unsigned.
        for t in [
            "Object(EncodedObjectAsID,\"object_id\":9223372062929999480,\"script\":null)\n",
            "Object(EncodedObjectAsID,\"object_id\":-9223372010779552136,\"script\":null)\n",
        ] {
            assert_eq!(
                from_str(t, Dialect::Godot3).unwrap(),
                Variant::from(Object::Id(9223372062929999480))
            );
        }
    }

    #[test]
    fn nul_in_strings_and_type_names_is_refused_by_both_readers() {
        let enc = crate::encode::EncodeOptions::new().with_full_objects(true);
        for (input, at) in [
            ("\"a\\u0000b\"", 0),
            ("\"a\0b\"", 0),
            ("Array[N\0de]([])", 6),
        ] {
            let e = from_str(input, Dialect::Godot4).unwrap_err();
            assert!(e.message.contains("NUL in a"), "{input:?}: {e}");
            assert_eq!(e.offset, at, "{input:?}");
            assert_eq!(to_bytes(input, &enc).unwrap_err(), e, "{input:?}");
        }
    }

    #[test]
    fn class_names_read_as_printed() {
        let v = from_str("Array[a b]([])", Dialect::Godot4).unwrap();
        assert_eq!(
            v.as_array().unwrap().element_type(),
            &TypeInfo::ClassName("a b".into())
        );
    }

    #[test]
    fn deep_text_reads_without_native_recursion() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let opts = ReadOptions::new().with_max_depth(crate::types::MAX_DEPTH_LIMIT);
        let e = from_str_with(&deep, &opts).unwrap_err();
        assert_eq!(e.offset, crate::types::MAX_DEPTH_LIMIT as usize + 1);
        let ok = format!("{}{}", "[".repeat(16_000), "]".repeat(16_000));
        std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || {
                let v = from_str_with(&ok, &opts).unwrap();
                drop(v);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
