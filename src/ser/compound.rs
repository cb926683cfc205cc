//! The serializer's receivers for the magic newtypes that hold values (see [`super`]): a full
//! object handed over as `(class, {property: value})` and a typed container with its types,
//! each written through the [`Writer`]'s object and typed-container API, their values through
//! the serializer over that writer ([`Nested`]).

use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeTuple};

use super::sink::{
    check_nesting, reject, reject_compounds, reject_compounds_but_map, unexpected, Error, Nested,
    Result,
};
use crate::writer::Writer;

// ----- full objects -----

/// Writes a full object handed over as `(class, {property: value})`: the class name, then each
/// property's name and value, through the writer's object API (its object policy applies).
pub(crate) fn object<T: Serialize + ?Sized>(w: &mut Writer, value: &T) -> Result<()> {
    check_nesting(w)?;
    value.serialize(&mut Object {
        w,
        class: None,
        index: 0,
    })
}

struct Object<'w> {
    w: &'w mut Writer,
    class: Option<alloc::string::String>,
    index: u8,
}

const OBJECT_WANTS: &str = "an object as (class, {property: value})";

impl ser::Serializer for &mut Object<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_tuple(self, len: usize) -> Result<Self> {
        if len != 2 || self.index != 0 {
            return Err(unexpected("a tuple", OBJECT_WANTS));
        }
        Ok(self)
    }
    fn serialize_str(self, class: &str) -> Result<()> {
        if self.index != 0 || self.class.is_some() {
            return Err(unexpected("a string", OBJECT_WANTS));
        }
        self.class = Some(class.into());
        Ok(())
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        let Some(class) = self.class.take() else {
            return Err(unexpected("a map", "the class name first"));
        };
        self.w.begin_object(&class, len)?;
        Ok(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unexpected("a sequence", OBJECT_WANTS))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(unexpected("an option", OBJECT_WANTS))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(unexpected("an enum", OBJECT_WANTS))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(unexpected("a tuple struct", OBJECT_WANTS))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(unexpected("an enum", OBJECT_WANTS))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(unexpected("a struct", OBJECT_WANTS))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(unexpected("an enum", OBJECT_WANTS))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<()> {
        Err(unexpected("an enum", OBJECT_WANTS))
    }
    reject! { OBJECT_WANTS;
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_i64(i64) "an i64";
        serialize_u8(u8) "a u8";
        serialize_u16(u16) "a u16";
        serialize_u32(u32) "a u32";
        serialize_u64(u64) "a u64";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
}

impl SerializeTuple for &mut Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)?;
        self.index += 1;
        Ok(())
    }

    fn end(self) -> Result<()> {
        if self.index != 2 {
            return Err(unexpected("an incomplete tuple", OBJECT_WANTS));
        }
        Ok(())
    }
}

impl ser::SerializeMap for &mut Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(PropertyName { w: self.w })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.w.serialize_nested(value)
    }

    fn end(self) -> Result<()> {
        Ok(self.w.end()?)
    }
}

/// A property name (a string).
struct PropertyName<'w> {
    w: &'w mut Writer,
}

impl ser::Serializer for PropertyName<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, name: &str) -> Result<()> {
        Ok(self.w.property(name)?)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unexpected("a sequence", "a property name"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(unexpected("a tuple", "a property name"))
    }
    reject! { "a property name";
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_i64(i64) "an i64";
        serialize_u8(u8) "a u8";
        serialize_u16(u16) "a u16";
        serialize_u32(u32) "a u32";
        serialize_u64(u64) "a u64";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds!("a property name");
}

// ----- typed containers -----

/// Writes a typed container handed over as `(types, elements)` (see `serde_impl::TYPED`): the
/// declared types, then the elements through the writer's typed-container API.
pub(crate) fn typed<T: Serialize + ?Sized>(w: &mut Writer, value: &T) -> Result<()> {
    check_nesting(w)?;
    value.serialize(&mut Typed {
        w,
        types: arrayvec::ArrayVec::new(),
        stage: 0,
    })
}

struct Typed<'w> {
    w: &'w mut Writer,
    types: arrayvec::ArrayVec<crate::owned::TypeInfo, 2>,
    /// 0: before the outer tuple; 1: in it, before the types; 2: in the types; 3: after them;
    /// 4: in the elements.
    stage: u8,
}

const TYPED_WANTS: &str = "a typed container as (types, elements)";

impl Typed<'_> {
    fn ty(&self, i: usize) -> &crate::owned::TypeInfo {
        static NONE: crate::owned::TypeInfo = crate::owned::TypeInfo::None;
        self.types.get(i).unwrap_or(&NONE)
    }
}

impl ser::Serializer for &mut Typed<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        match self.stage {
            0 | 1 => {
                self.stage += 1;
                Ok(self)
            }
            _ => Err(unexpected("a tuple", TYPED_WANTS)),
        }
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        if self.stage != 3 {
            return Err(unexpected("a sequence", TYPED_WANTS));
        }
        self.stage = 4;
        let element = self.ty(0).clone();
        self.w.begin_typed_array(&element, len)?;
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        if self.stage != 3 {
            return Err(unexpected("a map", TYPED_WANTS));
        }
        self.stage = 4;
        let (k, v) = (self.ty(0).clone(), self.ty(1).clone());
        self.w.begin_typed_dictionary(&k, &v, len)?;
        Ok(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    reject! { TYPED_WANTS;
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_i64(i64) "an i64";
        serialize_u8(u8) "a u8";
        serialize_u16(u16) "a u16";
        serialize_u32(u32) "a u32";
        serialize_u64(u64) "a u64";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_str(&str) "a string";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds_but_map!(TYPED_WANTS);
}

impl SerializeTuple for &mut Typed<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if self.stage == 2 {
            // One declared type.
            let mut c = TypeCapture::default();
            value.serialize(&mut c)?;
            let info = c.info()?;
            self.types
                .try_push(info)
                .map_err(|_| unexpected("a third type", TYPED_WANTS))?;
            Ok(())
        } else {
            value.serialize(&mut **self)
        }
    }

    fn end(self) -> Result<()> {
        match self.stage {
            2 => {
                self.stage = 3;
                Ok(())
            }
            5 => Ok(()),
            _ => Err(unexpected("an incomplete tuple", TYPED_WANTS)),
        }
    }
}

impl SerializeSeq for &mut Typed<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.w.serialize_nested(value)
    }

    fn end(self) -> Result<()> {
        self.stage = 5;
        Ok(self.w.end()?)
    }
}

impl ser::SerializeMap for &mut Typed<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.w.serialize_nested(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.w.serialize_nested(value)
    }

    fn end(self) -> Result<()> {
        self.stage = 5;
        Ok(self.w.end()?)
    }
}

/// One declared type `(kind, Godot 4 type id, name)`.
#[derive(Default)]
struct TypeCapture {
    index: u8,
    kind: u64,
    id: u64,
    name: alloc::string::String,
}

impl TypeCapture {
    fn info(self) -> Result<crate::owned::TypeInfo> {
        use crate::owned::TypeInfo;
        Ok(match self.kind {
            0 => TypeInfo::None,
            1 => TypeInfo::Builtin(
                u32::try_from(self.id)
                    .ok()
                    .and_then(|id| crate::types::Dialect::Godot4.type_of(id))
                    .ok_or_else(|| Error::Message("an unknown container element type".into()))?,
            ),
            2 => TypeInfo::ClassName(self.name),
            3 => TypeInfo::Script(self.name),
            _ => return Err(Error::Message("an unknown container type kind".into())),
        })
    }

    fn number(&mut self, v: u64) -> Result<()> {
        match self.index {
            0 => self.kind = v,
            1 => self.id = v,
            _ => return Err(unexpected("a number", "a type name")),
        }
        self.index += 1;
        Ok(())
    }
}

impl ser::Serializer for &mut TypeCapture {
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
        if len != 3 || self.index != 0 {
            return Err(unexpected("a tuple", "a type (kind, id, name)"));
        }
        Ok(self)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.number(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.number(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.number(v)
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        if self.index != 2 {
            return Err(unexpected("a string", "a number"));
        }
        self.index += 1;
        self.name = v.into();
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(unexpected("a sequence", "a type (kind, id, name)"))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    reject! { "a type (kind, id, name)";
        serialize_bool(bool) "a bool";
        serialize_i8(i8) "an i8";
        serialize_i16(i16) "an i16";
        serialize_i32(i32) "an i32";
        serialize_i64(i64) "an i64";
        serialize_u16(u16) "a u16";
        serialize_f32(f32) "a float";
        serialize_f64(f64) "a float";
        serialize_char(char) "a char";
        serialize_bytes(&[u8]) "bytes";
        serialize_none() "None";
        serialize_unit() "()";
        serialize_unit_struct(&'static str) "a unit struct";
    }
    reject_compounds!("a type (kind, id, name)");
}

impl SerializeTuple for &mut TypeCapture {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<()> {
        if self.index != 3 {
            return Err(unexpected("an incomplete tuple", "a type (kind, id, name)"));
        }
        Ok(())
    }
}
