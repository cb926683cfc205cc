//! The serializer's receivers for the magic newtypes (see [`super`]): a packed array's
//! elements written straight into the encoder, a StringName / RID / object id leaf, and an
//! encoded value handed over whole (full objects and typed containers: [`super::compound`]).

use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeTuple};

use super::sink::{reject, reject_compounds, unexpected, Error, Result, Sink};
use crate::encode::Enc;
use crate::serde_impl::Magic;
use crate::types::VariantType;
use crate::writer::Writer;

// ----- packed arrays -----

/// Writes the packed array of type `ty` whose elements `value` serializes (a sequence of
/// numbers, of 2–4-number tuples or math types for vectors and colors, or of strings), straight
/// into the writer: one pass, no intermediate buffer. Vector components are written in the
/// writer's precision, as [`Writer::packed_vector3`] does.
pub(crate) fn packed<S: Sink, T: Serialize + ?Sized>(
    w: &mut S,
    ty: VariantType,
    value: &T,
) -> Result<()> {
    w.put_serde(|e| {
        let wide = e.opts.wide() && components(ty) > 1 && ty != VariantType::PackedColorArray;
        value.serialize(&mut Packed {
            e,
            ty,
            wide,
            declared: 0,
            written: 0,
            comps: 0,
            level: 0,
        })
    })
}

/// Components per element of a packed type (1 for scalars and strings).
fn components(ty: VariantType) -> usize {
    use VariantType as T;
    match ty {
        T::PackedVector2Array => 2,
        T::PackedVector3Array => 3,
        T::PackedVector4Array | T::PackedColorArray => 4,
        _ => 1,
    }
}

struct Packed<'s, 'e> {
    e: &'s mut Enc<'e>,
    ty: VariantType,
    wide: bool,
    declared: usize,
    written: usize,
    /// Components written of the current vector element.
    comps: usize,
    /// 0 before the array, 1 in it, 2 in a vector element.
    level: u8,
}

const PACKED_WANTS: &str = "a packed array's elements";

impl Packed<'_, '_> {
    fn begin(&mut self, len: Option<usize>) -> Result<()> {
        let Some(n) = len else {
            return Err(Error::Message(
                "a packed array needs its length up front".into(),
            ));
        };
        self.level = 1;
        self.declared = n;
        let n32 = self.e.len32(n)?;
        let flags = if self.wide { crate::types::FLAG_64 } else { 0 };
        self.e.header(self.ty, flags)?;
        // At most the input's own size is reserved: the caller's slice already exists.
        self.e.u32(n32);
        Ok(())
    }

    /// One number: an element of a scalar array, or a component of a vector element.
    fn number(&mut self, int: Option<i128>, float: f64, single: Option<f32>) -> Result<()> {
        // An f32 is written as it came (`as` through f64 would quiet a signaling NaN).
        let narrow = single.unwrap_or_else(|| crate::math::narrow(float));
        use VariantType as T;
        if self.level == 0 {
            return Err(unexpected("a number", "a packed array"));
        }
        let n = components(self.ty);
        if n > 1 {
            if self.level != 2 {
                return Err(unexpected("a number", "a vector's components"));
            }
            if self.comps >= n {
                return Err(Error::Message(alloc::format!(
                    "a {} element has {n} components",
                    self.ty.name()
                )));
            }
            self.comps += 1;
            if self.wide {
                self.e.f64(float);
            } else {
                self.e.f32(narrow);
            }
            return Ok(());
        }
        self.element()?;
        match self.ty {
            T::PackedInt32Array => {
                let i = int
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| Error::Message("a PackedInt32Array element is an i32".into()))?;
                self.e.u32(i as u32);
            }
            T::PackedInt64Array => {
                let i = int
                    .and_then(|i| i64::try_from(i).ok())
                    .ok_or_else(|| Error::Message("a PackedInt64Array element is an i64".into()))?;
                self.e.u64(i as u64);
            }
            T::PackedFloat32Array => self.e.f32(narrow),
            T::PackedFloat64Array => self.e.f64(float),
            _ => return Err(unexpected("a number", "a string")),
        }
        Ok(())
    }

    /// Counts one element against the declared length.
    fn element(&mut self) -> Result<()> {
        if self.written == self.declared {
            return Err(Error::Message(
                "more packed array elements than its length".into(),
            ));
        }
        self.written += 1;
        Ok(())
    }

    /// A vector element begins (a tuple, a sequence or a math type's components).
    fn vector(&mut self) -> Result<()> {
        if components(self.ty) == 1 {
            return Err(unexpected("a tuple", PACKED_WANTS));
        }
        self.element()?;
        self.level = 2;
        Ok(())
    }

    fn end_vector(&mut self) -> Result<()> {
        let n = components(self.ty);
        if self.comps != n {
            return Err(Error::Message(alloc::format!(
                "a {} element has {n} components, not {}",
                self.ty.name(),
                self.comps
            )));
        }
        self.comps = 0;
        self.level = 1;
        Ok(())
    }
}

macro_rules! packed_numbers {
    ($($method:ident($t:ty) => $int:expr, $single:expr;)*) => {$(
        fn $method(self, v: $t) -> Result<()> {
            #[allow(clippy::cast_lossless, clippy::unnecessary_cast)]
            let (int, float, single) = ($int(v), v as f64, $single(v));
            self.number(int, float, single)
        }
    )*};
}

impl ser::Serializer for &mut Packed<'_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    packed_numbers! {
        serialize_i8(i8) => |v| Some(i128::from(v)), |_| None;
        serialize_i16(i16) => |v| Some(i128::from(v)), |_| None;
        serialize_i32(i32) => |v| Some(i128::from(v)), |_| None;
        serialize_i64(i64) => |v| Some(i128::from(v)), |_| None;
        serialize_u8(u8) => |v| Some(i128::from(v)), |_| None;
        serialize_u16(u16) => |v| Some(i128::from(v)), |_| None;
        serialize_u32(u32) => |v| Some(i128::from(v)), |_| None;
        serialize_u64(u64) => |v| Some(i128::from(v)), |_| None;
        serialize_f32(f32) => |_| None, Some;
        serialize_f64(f64) => |_| None, |_| None;
    }

    fn serialize_str(self, s: &str) -> Result<()> {
        if self.ty != VariantType::PackedStringArray || self.level != 1 {
            return Err(unexpected("a string", PACKED_WANTS));
        }
        self.element()?;
        // The entry's length counts the NUL the engine appends.
        let len = self.e.len32(s.len() + 1)?;
        self.e.u32(len);
        self.e.out.extend_from_slice(s.as_bytes());
        self.e.out.push(0);
        self.e.pad(s.len() + 1);
        Ok(())
    }

    fn serialize_char(self, c: char) -> Result<()> {
        self.serialize_str(c.encode_utf8(&mut [0; 4]))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        // A math type (Vector3, Color) around its components, or any plain newtype.
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        match self.level {
            0 => self.begin(len)?,
            1 => self.vector()?,
            _ => return Err(unexpected("a nested sequence", PACKED_WANTS)),
        }
        Ok(self)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self> {
        self.serialize_seq(Some(len))
    }

    reject! { PACKED_WANTS;
        serialize_bool(bool) "a bool";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds!(PACKED_WANTS);
}

impl SerializeSeq for &mut Packed<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<()> {
        if self.level == 2 {
            return self.end_vector();
        }
        self.level = 3;
        if self.written != self.declared {
            return Err(Error::Message(alloc::format!(
                "a packed array of {} elements got {}",
                self.declared,
                self.written
            )));
        }
        Ok(())
    }
}

impl SerializeTuple for &mut Packed<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<()> {
        SerializeSeq::end(self)
    }
}

// ----- leaves -----

/// Writes a StringName, RID or object id from its plain serde form.
pub(crate) fn leaf<S: Sink, T: Serialize + ?Sized>(
    w: &mut S,
    kind: Magic,
    value: &T,
) -> Result<()> {
    value.serialize(Leaf { w, kind })
}

struct Leaf<'w, S> {
    w: &'w mut S,
    kind: Magic,
}

const LEAF_WANTS: &str = "a StringName's text or a RID's or object's id";

impl<S: Sink> Leaf<'_, S> {
    fn id(self, id: u64) -> Result<()> {
        match self.kind {
            Magic::Rid => self.w.put_leaf(|e| e.rid(id)),
            Magic::ObjectId => self.w.put_leaf(|e| e.object_id(id)),
            _ => Err(unexpected("a number", "a StringName's text")),
        }
    }
}

impl<S: Sink> ser::Serializer for Leaf<'_, S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, s: &str) -> Result<()> {
        match self.kind {
            Magic::StringName => self
                .w
                .put_leaf(|e| e.string_value(VariantType::StringName, s)),
            _ => Err(unexpected("a string", "an id")),
        }
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.id(v)
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.id(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.id(v as u64)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unexpected("a sequence", LEAF_WANTS))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(unexpected("a tuple", LEAF_WANTS))
    }
    reject! { LEAF_WANTS;
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_u8(u8) "a u8";
        serialize_u16(u16) "a u16";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds!(LEAF_WANTS);
}

// ----- raw values -----

/// Writes an encoded value handed over as `(options, depth, offset, bytes)` (see
/// `serde_impl::variant`): unchanged when it is of the writer's dialect and precision and
/// within its object policy, else decoded and written again in the writer's own form. Either
/// way it is checked first: nothing that `validate` rejects is written.
pub(crate) fn raw<T: Serialize + ?Sized>(w: &mut Writer, value: &T) -> Result<()> {
    value.serialize(&mut Raw {
        w,
        word: 0,
        index: 0,
    })
}

struct Raw<'w> {
    w: &'w mut Writer,
    word: u64,
    index: u8,
}

const RAW_WANTS: &str = "an encoded value (options, depth, offset, bytes)";

impl Raw<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        use crate::serde_impl::word_options;
        let (ropts, double) = word_options(self.word);
        let len = crate::read::validate_with(bytes, &ropts)?;
        if len != bytes.len() {
            return Err(Error::Message(alloc::format!(
                "an encoded value of {} bytes holds {len}",
                bytes.len()
            )));
        }
        let wopts = *self.w.options();
        let same_form = ropts.dialect == wopts.dialect
            && (!double || wopts.double)
            && (wopts.full_objects
                || crate::read::validate_with(bytes, &ropts.with_full_objects(false)).is_ok());
        let v = crate::read::parse_with(bytes, &ropts)?;
        if same_form {
            Ok(self.w.raw(&v)?)
        } else {
            Ok(self.w.value(&v.to_owned()?)?)
        }
    }
}

impl ser::Serializer for &mut Raw<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_tuple(self, len: usize) -> Result<Self> {
        if len != 4 || self.index != 0 {
            return Err(unexpected("a tuple", RAW_WANTS));
        }
        Ok(self)
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        // The options word; the depth and offset that follow do not matter for writing.
        if self.index == 0 {
            self.word = v;
        }
        self.index += 1;
        if self.index > 3 {
            return Err(unexpected("a number", "the bytes"));
        }
        Ok(())
    }
    fn serialize_bytes(self, b: &[u8]) -> Result<()> {
        if self.index != 3 {
            return Err(unexpected("bytes", "a number"));
        }
        self.index += 1;
        self.write(b)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unexpected("a sequence", RAW_WANTS))
    }
    reject! { RAW_WANTS;
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_i64(i64) "an i64";
        serialize_u8(u8) "a u8";
        serialize_u16(u16) "a u16";
        serialize_u32(u32) "a u32";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_str(&str) "a string";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds!(RAW_WANTS);
}

impl SerializeTuple for &mut Raw<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<()> {
        if self.index != 4 {
            return Err(unexpected("an incomplete tuple", RAW_WANTS));
        }
        Ok(())
    }
}
