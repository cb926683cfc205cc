//! Zero-copy views point into the input: packed arrays as native slices when the host is
//! little-endian and the payload is aligned, byte arrays and strings always. Misaligned payloads
//! (and big-endian hosts) fall back to the little-endian element views with the same values.

use std::ops::Range;

use gdvariant::{math::Color, VariantRef};

/// Little-endian words as bytes, whatever the host.
fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// 8-aligned storage holding `prefix` zero bytes and then `value`.
struct Aligned {
    storage: Vec<u64>,
    len: usize,
}

impl Aligned {
    fn new(prefix: usize, value: &[u8]) -> Aligned {
        let len = prefix + value.len();
        let mut storage = vec![0u64; len.div_ceil(8) + 1];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut storage[..]);
        bytes[prefix..len].copy_from_slice(value);
        Aligned { storage, len }
    }

    fn bytes(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.storage[..]);
        &all[..self.len]
    }

    fn range(&self) -> Range<usize> {
        let b = self.bytes();
        let start = b.as_ptr() as usize;
        start..start + b.len()
    }
}

fn addr<T>(p: *const T) -> usize {
    p as usize
}

/// Whether the host is little-endian (asked at run time, so that the assertions below are
/// checks, not constants).
fn little() -> bool {
    u16::from_ne_bytes([1, 0]) == 1
}

fn pf32_value(xs: &[f32]) -> Vec<u8> {
    let mut w = vec![32, xs.len() as u32];
    w.extend(xs.iter().map(|x| x.to_bits()));
    le_bytes(&w)
}

fn pi32_value(xs: &[i32]) -> Vec<u8> {
    let mut w = vec![30, xs.len() as u32];
    w.extend(xs.iter().map(|&x| x as u32));
    le_bytes(&w)
}

const F32S: [f32; 5] = [1.0, -0.5, 0.1, f32::MAX, f32::MIN_POSITIVE];
const I32S: [i32; 4] = [0, -1, i32::MAX, i32::MIN];

fn parse(bytes: &[u8]) -> VariantRef<'_> {
    let v = gdvariant::parse(bytes).unwrap();
    assert_eq!(gdvariant::validate(bytes), Ok(bytes.len()));
    v
}

#[test]
fn aligned_f32_array_is_a_slice_into_the_buffer() {
    let buf = Aligned::new(0, &pf32_value(&F32S));
    let bytes = buf.bytes();
    assert_eq!(addr(bytes.as_ptr()) % 4, 0);
    let a = parse(bytes).as_packed::<f32>().unwrap();
    assert_eq!(a.len(), 5);
    assert_eq!(a.offset(), 8);
    match a.as_slice() {
        Some(s) => {
            assert!(little());
            assert_eq!(addr(s.as_ptr()), addr(bytes.as_ptr()) + 8);
            assert!(buf.range().contains(&addr(s.as_ptr())));
            assert_eq!(s, F32S);
        }
        None => assert!(
            !little(),
            "aligned payload on a little-endian host must be a slice"
        ),
    }
    // The wire view and the bytes point into the buffer on every host.
    assert_eq!(addr(a.as_le_slice().as_ptr()), addr(bytes.as_ptr()) + 8);
    assert_eq!(addr(a.as_bytes().as_ptr()), addr(bytes.as_ptr()) + 8);
    assert_eq!(a.to_vec(), F32S);
    assert_eq!(a.iter().collect::<Vec<_>>(), F32S);
}

#[test]
fn aligned_i32_array_is_a_slice_into_the_buffer() {
    let buf = Aligned::new(0, &pi32_value(&I32S));
    let bytes = buf.bytes();
    let a = parse(bytes).as_packed::<i32>().unwrap();
    match a.as_slice() {
        Some(s) => {
            assert!(little());
            assert_eq!(addr(s.as_ptr()), addr(bytes.as_ptr()) + 8);
            assert_eq!(s, I32S);
        }
        None => assert!(!little()),
    }
    assert_eq!(a.to_vec(), I32S);
    assert_eq!(a.get(3), Some(i32::MIN));
    assert_eq!(a.iter().next_back(), Some(i32::MIN));
}

#[test]
fn misaligned_arrays_read_the_same_values() {
    for shift in 1..4 {
        let buf = Aligned::new(shift, &pf32_value(&F32S));
        let bytes = &buf.bytes()[shift..];
        assert_eq!(addr(bytes.as_ptr()) % 4, shift);
        let a = parse(bytes).as_packed::<f32>().unwrap();
        assert_eq!(a.as_slice(), None, "shift {shift}");
        assert_eq!(a.len(), F32S.len());
        assert_eq!(a.to_vec(), F32S);
        assert_eq!(a.iter().collect::<Vec<_>>(), F32S);
        let le: Vec<f32> = a.as_le_slice().iter().map(|x| x.get()).collect();
        assert_eq!(le, F32S);
        for (i, x) in F32S.iter().enumerate() {
            assert_eq!(a.get(i), Some(*x));
        }
        assert_eq!(a.get(F32S.len()), None);
        // Still borrowed from the buffer.
        assert_eq!(addr(a.as_le_slice().as_ptr()), addr(bytes.as_ptr()) + 8);

        let buf = Aligned::new(shift, &pi32_value(&I32S));
        let a = parse(&buf.bytes()[shift..]).as_packed::<i32>().unwrap();
        assert_eq!(a.as_slice(), None);
        assert_eq!(a.to_vec(), I32S);
        assert_eq!(a.iter().sum::<i32>(), I32S.iter().sum::<i32>());
    }
}

#[test]
fn empty_arrays() {
    let buf = Aligned::new(0, &pf32_value(&[]));
    let a = parse(buf.bytes()).as_packed::<f32>().unwrap();
    assert!(a.is_empty());
    assert_eq!(a.as_slice(), if little() { Some(&[][..]) } else { None });
    assert_eq!(a.to_vec(), Vec::<f32>::new());
    assert_eq!(a.iter().count(), 0);
    assert_eq!(a.get(0), None);

    let buf = Aligned::new(1, &pi32_value(&[]));
    let a = parse(&buf.bytes()[1..]).as_packed::<i32>().unwrap();
    assert!(a.is_empty());
    assert_eq!(a.as_slice(), None);
    assert!(a.as_le_slice().is_empty());
    assert_eq!(a.to_vec(), Vec::<i32>::new());
}

/// `[nil, PackedFloat64Array]`: the array's payload sits at 20, which is 4 mod 8.
fn nil_then_pf64(xs: &[f64]) -> Vec<u8> {
    let mut w = vec![28, 2, 0, 33, xs.len() as u32];
    for x in xs {
        let b = x.to_bits();
        w.push(b as u32);
        w.push((b >> 32) as u32);
    }
    le_bytes(&w)
}

#[test]
fn f64_arrays_at_4_mod_8_are_not_slices_but_read_right() {
    let xs = [0.1, -2.5, f64::MAX, f64::MIN_POSITIVE];
    let buf = Aligned::new(0, &nil_then_pf64(&xs));
    let bytes = buf.bytes();
    let root = parse(bytes);
    let v = root.as_array().unwrap().get(1).unwrap().unwrap();
    let a = v.as_packed::<f64>().unwrap();
    assert_eq!(a.offset(), 20);
    assert_eq!((addr(bytes.as_ptr()) + a.offset()) % 8, 4);
    assert_eq!(a.as_slice(), None);
    assert_eq!(a.to_vec(), xs);
    assert_eq!(a.get(2), Some(f64::MAX));
    assert_eq!(addr(a.as_le_slice().as_ptr()), addr(bytes.as_ptr()) + 20);

    // The same array at the start of the buffer is 8-aligned: a slice on little-endian hosts.
    let alone = &bytes[12..];
    let buf2 = Aligned::new(0, alone);
    let a = parse(buf2.bytes()).as_packed::<f64>().unwrap();
    assert_eq!((addr(buf2.bytes().as_ptr()) + 8) % 8, 0);
    match a.as_slice() {
        Some(s) => {
            assert!(little());
            assert_eq!(s, xs);
            assert_eq!(addr(s.as_ptr()), addr(buf2.bytes().as_ptr()) + 8);
        }
        None => assert!(!little()),
    }
    assert_eq!(a.to_vec(), xs);
}

#[test]
fn vector_and_color_arrays() {
    // PackedVector3Array (single precision) and PackedColorArray: 4-aligned element arrays.
    let mut w = vec![36, 2];
    w.extend([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].map(f32::to_bits));
    let buf = Aligned::new(0, &le_bytes(&w));
    let a = parse(buf.bytes()).as_packed::<[f32; 3]>().unwrap();
    let want = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    assert_eq!(a.as_slice().is_some(), little());
    if let Some(s) = a.as_slice() {
        assert_eq!(addr(s.as_ptr()), addr(buf.bytes().as_ptr()) + 8);
        assert_eq!(s, want);
    }
    assert_eq!(a.to_vec(), want);

    let mut w = vec![37, 1];
    w.extend([1.0f32, 0.5, 0.25, 1.0].map(f32::to_bits));
    let buf = Aligned::new(2, &le_bytes(&w));
    let a = parse(&buf.bytes()[2..]).as_packed::<Color>().unwrap();
    assert_eq!(a.as_slice(), None);
    assert_eq!(a.get(0), Some(Color::new(1.0, 0.5, 0.25, 1.0)));
}

#[test]
fn byte_arrays_point_into_the_buffer_at_any_alignment() {
    for shift in 0..4 {
        let value = le_bytes(&[29, 5, 0x0403_0201, 0x05]);
        let buf = Aligned::new(shift, &value);
        let bytes = &buf.bytes()[shift..];
        let b = parse(bytes).as_byte_array().unwrap();
        assert_eq!(b, [1, 2, 3, 4, 5]);
        assert_eq!(addr(b.as_ptr()), addr(bytes.as_ptr()) + 8);
    }
}

#[test]
fn strings_point_into_the_buffer() {
    // {"key": "valué", "bom": "\u{feff}x"}
    let mut b = Vec::new();
    let s = |b: &mut Vec<u8>, text: &[u8]| {
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&(text.len() as u32).to_le_bytes());
        b.extend_from_slice(text);
        while b.len() % 4 != 0 {
            b.push(0);
        }
    };
    b.extend_from_slice(&le_bytes(&[27, 2]));
    s(&mut b, b"key");
    s(&mut b, "valué".as_bytes());
    s(&mut b, b"bom");
    s(&mut b, b"\xEF\xBB\xBFx");
    for shift in [0, 1] {
        let buf = Aligned::new(shift, &b);
        let bytes = &buf.bytes()[shift..];
        let base = addr(bytes.as_ptr());
        let root = parse(bytes);
        let d = root.as_dictionary().unwrap();
        let (k, v) = d.iter().next().unwrap().unwrap();
        let key = k.as_str().unwrap();
        assert_eq!(key, "key");
        assert_eq!(addr(key.as_ptr()), base + 16);
        let val = v.as_str().unwrap();
        assert_eq!(val, "valué");
        assert_eq!(addr(val.as_ptr()), base + 28);
        assert_eq!(addr(v.raw().unwrap().as_ptr()), base + 20);
        // The BOM is skipped in place.
        let bom = d.get("bom").unwrap().unwrap().as_str().unwrap();
        assert_eq!(bom, "x");
        assert_eq!(addr(bom.as_ptr()), base + 56 + 3);
        assert_eq!(addr(root.raw().unwrap().as_ptr()), base);
    }
}
