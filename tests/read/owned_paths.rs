//! The fast paths of `to_owned` and of dropping owned values, against what they shortcut:
//! dictionary pairs read whole (key and value at once, in place) or left pending when the value
//! is not plain, repeated keys merged either way, errors at the offset `validate` gives, and
//! drops that let go of plain entries without a call while freeing whatever an entry owns.
//!
//! Also run under Miri by CI (`cargo +nightly miri test --test read owned_paths::`): a leak (an
//! entry that owns memory let go by the fast drop path) or any other memory error fails there.
//! About a second natively, under a minute under Miri.

use gdvariant::{math::Vector2, ErrorKind, Variant};

/// Little-endian words and values in Godot 4's encoding, for hand-made packets.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn word(&mut self, w: u32) -> &mut Self {
        self.0.extend_from_slice(&w.to_le_bytes());
        self
    }
    fn string(&mut self, b: &[u8]) -> &mut Self {
        self.word(4).raw_string(b)
    }
    /// A string without its header (an element of a PackedStringArray).
    fn raw_string(&mut self, b: &[u8]) -> &mut Self {
        self.word(b.len() as u32);
        self.0.extend_from_slice(b);
        self.0.resize(self.0.len() + (4 - b.len() % 4) % 4, 0);
        self
    }
    fn int(&mut self, i: i32) -> &mut Self {
        self.word(2).word(i as u32)
    }
    fn float(&mut self, x: f32) -> &mut Self {
        self.word(3).word(x.to_bits())
    }
    fn dict(&mut self, pairs: u32) -> &mut Self {
        self.word(27).word(pairs)
    }
    fn array(&mut self, n: u32) -> &mut Self {
        self.word(28).word(n)
    }
    fn vector2(&mut self, x: f32, y: f32) -> &mut Self {
        self.word(5).word(x.to_bits()).word(y.to_bits())
    }
    fn owned(&self) -> Variant {
        gdvariant::parse(&self.0).unwrap().to_owned().unwrap()
    }
}

/// The pairs of a dictionary, keys as text.
fn pairs(v: &Variant) -> Vec<(String, Variant)> {
    match v {
        Variant::Dictionary(d) => d
            .iter()
            .map(|(k, v)| (k.as_str().unwrap().to_owned(), v.clone()))
            .collect(),
        _ => panic!("not a dictionary: {v:?}"),
    }
}

const LONG: &str = "a text longer than twenty-four bytes, on the heap";

#[test]
fn pairs_whole_and_pending_merge_repeated_keys_as_the_engine() {
    // {"a": 1, "b": [1], "a": [2], "b": 3, "c": "x", "c": 2.5, LONG: LONG, "name": "ünï"}
    let mut b = Bytes::default();
    b.dict(8);
    b.string(b"a").int(1);
    b.string(b"b").array(1).int(1);
    b.string(b"a").array(1).int(2);
    b.string(b"b").int(3);
    b.string(b"c").string(b"x");
    b.string(b"c").float(2.5);
    b.string(LONG.as_bytes()).string(LONG.as_bytes());
    b.string(b"name").string("ünï".as_bytes());
    let v = b.owned();
    // The first key's position, the last value: as the engine's bytes_to_var merges them.
    assert_eq!(
        pairs(&v),
        [
            ("a".to_owned(), Variant::from(vec![Variant::Int(2)])),
            ("b".to_owned(), Variant::Int(3)),
            ("c".to_owned(), Variant::Float(2.5)),
            (LONG.to_owned(), Variant::from(LONG)),
            ("name".to_owned(), Variant::from("ünï")),
        ]
    );
    // The same through the lazy view, which reads the bytes as encoded.
    let d = gdvariant::parse(&b.0).unwrap().as_dictionary().unwrap();
    assert_eq!(d.get("b").unwrap().unwrap().as_i64().unwrap(), 3);
    assert_eq!(d.get("name").unwrap().unwrap().as_str().unwrap(), "ünï");
}

#[test]
fn a_plain_key_before_a_bad_value_fails_where_validate_does() {
    // {"ok": 1, "k": "\xFFx"}: the key is read by the pair path, the value's text is not UTF-8.
    let mut b = Bytes::default();
    b.dict(2).string(b"ok").int(1).string(b"k").string(b"\xFFx");
    let err = gdvariant::parse(&b.0).unwrap().to_owned().unwrap_err();
    let expected = gdvariant::validate(&b.0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(err.offset(), expected.offset());
    // A value cut short after a plain key: the event path reports it, as validate does.
    let mut cut = Bytes::default();
    cut.dict(1).string(b"pos").word(5).word(0);
    let err = gdvariant::parse(&cut.0).unwrap().to_owned().unwrap_err();
    let expected = gdvariant::validate(&cut.0).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (expected.kind(), expected.offset())
    );
}

#[test]
fn arrays_read_in_place_around_values_that_are_not_plain() {
    // [1, "a", [2], 3.5, "ü", Vector2(0.5, -1), LONG]
    let mut b = Bytes::default();
    b.array(7).int(1).string(b"a").array(1).int(2).float(3.5);
    b.string("ü".as_bytes())
        .vector2(0.5, -1.0)
        .string(LONG.as_bytes());
    assert_eq!(
        b.owned(),
        Variant::from(vec![
            Variant::Int(1),
            Variant::from("a"),
            Variant::from(vec![Variant::Int(2)]),
            Variant::Float(3.5),
            Variant::from("ü"),
            Variant::Vector2(Vector2::new(0.5, -1.0)),
            Variant::from(LONG),
        ])
    );
}

/// A dictionary whose entry number `owning` (if any) owns memory (a heap string, a nested
/// container, a packed array), the others plain; dropped after its pairs are checked.
fn dict_owning_at(n: u32, owning: Option<u32>, kind: u32) -> Variant {
    let mut b = Bytes::default();
    b.dict(n);
    for i in 0..n {
        b.string(format!("k{i}").as_bytes());
        if owning == Some(i) {
            match kind {
                0 => b.string(LONG.as_bytes()),
                1 => b
                    .array(2)
                    .string(LONG.as_bytes())
                    .dict(1)
                    .string(b"x")
                    .int(1),
                _ => b
                    .word(34)
                    .word(2)
                    .raw_string(b"t")
                    .raw_string(LONG.as_bytes()),
            };
        } else {
            b.int(i as i32);
        }
    }
    let v = b.owned();
    let p = pairs(&v);
    assert_eq!(p.len(), n as usize);
    for (i, (k, x)) in p.iter().enumerate() {
        assert_eq!(k, &format!("k{i}"));
        if owning != Some(i as u32) {
            assert_eq!(x, &Variant::Int(i as i64));
        }
    }
    v
}

#[test]
fn drops_free_what_any_entry_owns_wherever_it_is() {
    for n in [1, 3, 8, 9, 70] {
        for owning in [None, Some(0), Some(n / 2), Some(n - 1)] {
            for kind in 0..3 {
                let v = dict_owning_at(n, owning, kind);
                let copy = v.clone();
                assert_eq!(v, copy);
                drop(v);
                // A dictionary nested in an array and in a dictionary: dropped with its parent.
                let nested = Variant::from(vec![copy.clone(), Variant::Int(1)]);
                let mut outer = gdvariant::Dictionary::new();
                outer.insert("inner", copy);
                outer.insert(LONG, Variant::from(LONG));
                drop(nested);
                drop(outer);
            }
        }
    }
}
