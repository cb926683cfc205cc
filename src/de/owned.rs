//! [`Owned`]: a deserializer over bytes that do not live as long as the input, for the values
//! the engine reads differently from their bytes.
//!
//! When the engine's value of a container is not what its bytes say (a typed Array holding
//! elements the engine converts or drops, a Dictionary repeating a key), the crate's
//! deserializer reads that container from the value the engine decodes, encoded afresh
//! ([`crate::convert`]). Those bytes are the deserializer's own, not the input's, so they
//! cannot be lent for the input's lifetime `'de`: `Owned` wraps a deserializer over them and
//! presents it as a `Deserializer<'de>` whose every borrowed string or byte slice is handed to
//! the visitor as a transient one (`visit_str` for `visit_borrowed_str`, …). Targets that
//! borrow from the input (`&'de str`) then report serde's usual "expected a borrowed string";
//! every owned target reads the engine's value.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// A deserializer over bytes of a shorter lifetime `'b`, presented for any `'de`; see the
/// [module docs](self).
pub(crate) struct Owned<'b, D>(pub(crate) D, PhantomData<&'b ()>);

impl<'b, D: Deserializer<'b>> Owned<'b, D> {
    /// Wraps `d`.
    pub(crate) fn new(d: D) -> Owned<'b, D> {
        Owned(d, PhantomData)
    }
}

/// A visitor for `'de` presented as a visitor for the wrapped deserializer's lifetime `'b`.
struct V<'de, W>(W, PhantomData<&'de ()>);

/// A seed for `'de` presented as a seed for `'b`.
struct S<'de, T>(T, PhantomData<&'de ()>);

/// Access to a sequence, map or enum of lifetime `'b`, presented for `'de`.
struct A<'b, X>(X, PhantomData<&'b ()>);

impl<'de, 'b, D: Deserializer<'b>> Deserializer<'de> for Owned<'b, D> {
    type Error = D::Error;

    fn deserialize_any<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_any(V(w, PhantomData))
    }
    fn deserialize_bool<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_bool(V(w, PhantomData))
    }
    fn deserialize_i8<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_i8(V(w, PhantomData))
    }
    fn deserialize_i16<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_i16(V(w, PhantomData))
    }
    fn deserialize_i32<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_i32(V(w, PhantomData))
    }
    fn deserialize_i64<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_i64(V(w, PhantomData))
    }
    fn deserialize_i128<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_i128(V(w, PhantomData))
    }
    fn deserialize_u8<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_u8(V(w, PhantomData))
    }
    fn deserialize_u16<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_u16(V(w, PhantomData))
    }
    fn deserialize_u32<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_u32(V(w, PhantomData))
    }
    fn deserialize_u64<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_u64(V(w, PhantomData))
    }
    fn deserialize_u128<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_u128(V(w, PhantomData))
    }
    fn deserialize_f32<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_f32(V(w, PhantomData))
    }
    fn deserialize_f64<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_f64(V(w, PhantomData))
    }
    fn deserialize_char<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_char(V(w, PhantomData))
    }
    fn deserialize_str<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_str(V(w, PhantomData))
    }
    fn deserialize_string<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_string(V(w, PhantomData))
    }
    fn deserialize_bytes<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_bytes(V(w, PhantomData))
    }
    fn deserialize_byte_buf<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_byte_buf(V(w, PhantomData))
    }
    fn deserialize_option<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_option(V(w, PhantomData))
    }
    fn deserialize_unit<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_unit(V(w, PhantomData))
    }
    fn deserialize_unit_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_unit_struct(name, V(w, PhantomData))
    }
    fn deserialize_newtype_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, V(w, PhantomData))
    }
    fn deserialize_seq<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_seq(V(w, PhantomData))
    }
    fn deserialize_tuple<W: Visitor<'de>>(self, len: usize, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_tuple(len, V(w, PhantomData))
    }
    fn deserialize_tuple_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, V(w, PhantomData))
    }
    fn deserialize_map<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_map(V(w, PhantomData))
    }
    fn deserialize_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_struct(name, fields, V(w, PhantomData))
    }
    fn deserialize_enum<W: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_enum(name, variants, V(w, PhantomData))
    }
    fn deserialize_identifier<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_identifier(V(w, PhantomData))
    }
    fn deserialize_ignored_any<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_ignored_any(V(w, PhantomData))
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<'de, 'b, W: Visitor<'de>> Visitor<'b> for V<'de, W> {
    type Value = W::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<W::Value, E> {
        self.0.visit_bool(v)
    }
    fn visit_i8<E: de::Error>(self, v: i8) -> Result<W::Value, E> {
        self.0.visit_i8(v)
    }
    fn visit_i16<E: de::Error>(self, v: i16) -> Result<W::Value, E> {
        self.0.visit_i16(v)
    }
    fn visit_i32<E: de::Error>(self, v: i32) -> Result<W::Value, E> {
        self.0.visit_i32(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<W::Value, E> {
        self.0.visit_i64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<W::Value, E> {
        self.0.visit_i128(v)
    }
    fn visit_u8<E: de::Error>(self, v: u8) -> Result<W::Value, E> {
        self.0.visit_u8(v)
    }
    fn visit_u16<E: de::Error>(self, v: u16) -> Result<W::Value, E> {
        self.0.visit_u16(v)
    }
    fn visit_u32<E: de::Error>(self, v: u32) -> Result<W::Value, E> {
        self.0.visit_u32(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<W::Value, E> {
        self.0.visit_u64(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<W::Value, E> {
        self.0.visit_u128(v)
    }
    fn visit_f32<E: de::Error>(self, v: f32) -> Result<W::Value, E> {
        self.0.visit_f32(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<W::Value, E> {
        self.0.visit_f64(v)
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<W::Value, E> {
        self.0.visit_char(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<W::Value, E> {
        self.0.visit_str(v)
    }
    // The bytes live for 'b only: handed over as transient.
    fn visit_borrowed_str<E: de::Error>(self, v: &'b str) -> Result<W::Value, E> {
        self.0.visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: alloc::string::String) -> Result<W::Value, E> {
        self.0.visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<W::Value, E> {
        self.0.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'b [u8]) -> Result<W::Value, E> {
        self.0.visit_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: alloc::vec::Vec<u8>) -> Result<W::Value, E> {
        self.0.visit_byte_buf(v)
    }
    fn visit_none<E: de::Error>(self) -> Result<W::Value, E> {
        self.0.visit_none()
    }
    fn visit_some<D2: Deserializer<'b>>(self, d: D2) -> Result<W::Value, D2::Error> {
        self.0.visit_some(Owned::new(d))
    }
    fn visit_unit<E: de::Error>(self) -> Result<W::Value, E> {
        self.0.visit_unit()
    }
    fn visit_newtype_struct<D2: Deserializer<'b>>(self, d: D2) -> Result<W::Value, D2::Error> {
        self.0.visit_newtype_struct(Owned::new(d))
    }
    fn visit_seq<X: SeqAccess<'b>>(self, seq: X) -> Result<W::Value, X::Error> {
        self.0.visit_seq(A(seq, PhantomData))
    }
    fn visit_map<X: MapAccess<'b>>(self, map: X) -> Result<W::Value, X::Error> {
        self.0.visit_map(A(map, PhantomData))
    }
    fn visit_enum<X: EnumAccess<'b>>(self, data: X) -> Result<W::Value, X::Error> {
        self.0.visit_enum(A(data, PhantomData))
    }
}

impl<'de, 'b, T: DeserializeSeed<'de>> DeserializeSeed<'b> for S<'de, T> {
    type Value = T::Value;

    fn deserialize<D2: Deserializer<'b>>(self, d: D2) -> Result<T::Value, D2::Error> {
        self.0.deserialize(Owned::new(d))
    }
}

impl<'de, 'b, X: SeqAccess<'b>> SeqAccess<'de> for A<'b, X> {
    type Error = X::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, X::Error> {
        self.0.next_element_seed(S(seed, PhantomData))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, 'b, X: MapAccess<'b>> MapAccess<'de> for A<'b, X> {
    type Error = X::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, X::Error> {
        self.0.next_key_seed(S(seed, PhantomData))
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, X::Error> {
        self.0.next_value_seed(S(seed, PhantomData))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, 'b, X: EnumAccess<'b>> EnumAccess<'de> for A<'b, X> {
    type Error = X::Error;
    type Variant = A<'b, X::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, A<'b, X::Variant>), X::Error> {
        self.0
            .variant_seed(S(seed, PhantomData))
            .map(|(value, variant)| (value, A(variant, PhantomData)))
    }
}

impl<'de, 'b, X: de::VariantAccess<'b>> de::VariantAccess<'de> for A<'b, X> {
    type Error = X::Error;

    fn unit_variant(self) -> Result<(), X::Error> {
        self.0.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, X::Error> {
        self.0.newtype_variant_seed(S(seed, PhantomData))
    }
    fn tuple_variant<W: Visitor<'de>>(self, len: usize, w: W) -> Result<W::Value, X::Error> {
        self.0.tuple_variant(len, V(w, PhantomData))
    }
    fn struct_variant<W: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, X::Error> {
        self.0.struct_variant(fields, V(w, PhantomData))
    }
}
