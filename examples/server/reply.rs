//! The answers: a value's reply Dictionary, and the reply to a malformed value.

use gdvariant::packet::Packet;
use gdvariant::{Error, VariantType, Writer};

/// Writes the answer to `packet`, the `seq`-th value of its connection.
pub fn reply(w: &mut Writer, seq: u64, packet: &Packet) -> gdvariant::Result<()> {
    let v = packet.value();
    w.begin_dictionary(Some(6))?;
    w.string("seq")?;
    w.int(seq as i64)?;
    w.string("type")?;
    w.int(i64::from(v.header() & 0xFF))?;
    w.string("size")?;
    w.int(packet.byte_len() as i64)?;
    w.string("echo")?;
    w.raw(&v)?; // the received bytes, unchanged
    let (count, sum) = count_and_sum(&v)?;
    w.string("count")?;
    w.int(count as i64)?;
    w.string("sum")?;
    w.float(sum)?;
    w.end()
}

/// The computed fields: element count and the in-order sum of a packed numeric array.
fn count_and_sum(v: &gdvariant::VariantRef<'_>) -> gdvariant::Result<(usize, f64)> {
    use VariantType as T;
    fn add<I: Iterator<Item = f64>>(it: I) -> f64 {
        it.fold(0.0, |s, x| s + x)
    }
    Ok(match v.ty() {
        T::Array | T::Dictionary | T::PackedStringArray => (v.count(), 0.0),
        T::PackedByteArray => {
            let b = v.as_byte_array()?;
            (b.len(), add(b.iter().map(|&x| f64::from(x))))
        }
        T::PackedInt32Array => {
            let a = v.as_packed::<i32>()?;
            (a.len(), add(a.iter().map(f64::from)))
        }
        T::PackedInt64Array => {
            let a = v.as_packed::<i64>()?;
            (a.len(), add(a.iter().map(|x| x as f64)))
        }
        T::PackedFloat32Array => {
            let a = v.as_packed::<f32>()?;
            (a.len(), add(a.iter().map(f64::from)))
        }
        T::PackedFloat64Array => {
            let a = v.as_packed::<f64>()?;
            (a.len(), add(a.iter()))
        }
        T::PackedVector2Array
        | T::PackedVector3Array
        | T::PackedVector4Array
        | T::PackedColorArray => (packed_len(v)?, 0.0),
        _ => (0, 0.0),
    })
}

/// The element count of a packed vector or color array.
fn packed_len(v: &gdvariant::VariantRef<'_>) -> gdvariant::Result<usize> {
    use VariantType as T;
    let wide = v.is_wide();
    Ok(match (v.ty(), wide) {
        (T::PackedVector2Array, false) => v.as_packed::<[f32; 2]>()?.len(),
        (T::PackedVector2Array, true) => v.as_packed::<[f64; 2]>()?.len(),
        (T::PackedVector3Array, false) => v.as_packed::<[f32; 3]>()?.len(),
        (T::PackedVector3Array, true) => v.as_packed::<[f64; 3]>()?.len(),
        (T::PackedVector4Array, false) => v.as_packed::<[f32; 4]>()?.len(),
        (T::PackedVector4Array, true) => v.as_packed::<[f64; 4]>()?.len(),
        _ => v.as_packed::<gdvariant::math::Color>()?.len(),
    })
}

/// Writes the answer to a malformed value.
pub fn error_reply(w: &mut Writer, seq: u64, e: &Error) -> gdvariant::Result<()> {
    w.begin_dictionary(Some(2))?;
    w.string("seq")?;
    w.int(seq as i64)?;
    w.string("error")?;
    w.string(&e.to_string())?;
    w.end()
}
