//! serde never allocates in proportion to a length or count read from the input: under a
//! byte-counting allocator, the peak memory of `from_slice` on hostile inputs (huge counts with
//! little data, truncations, mutations) stays within a small multiple of the input's size.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::common::alloc::measure;

/// The peak bytes `f` had allocated at once (its result dropped after the measurement; the
/// binary's counting allocator, per thread).
fn peak<R>(f: impl FnOnce() -> R) -> usize {
    let (r, usage) = measure(f);
    drop(r);
    usage.peak as usize
}

/// What a hostile input may cost: a small constant (error messages, paths) plus a small
/// multiple of its size.
fn budget(len: usize) -> usize {
    4096 + 16 * len
}

/// A value that swallows its own error (as some user types do).
#[derive(Debug)]
#[allow(dead_code)]
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Lenient(T::deserialize(d).ok()))
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Victim {
    ints: Vec<i64>,
    names: Vec<String>,
    blob: Vec<u8>,
    map: BTreeMap<String, Vec<f64>>,
}

#[test]
fn huge_counts_with_little_data_allocate_in_proportion_to_the_input() {
    let header = |ty: u32, count: u32| {
        let mut b = ty.to_le_bytes().to_vec();
        b.extend_from_slice(&count.to_le_bytes());
        b
    };
    let cases: Vec<Vec<u8>> = vec![
        // An Array claiming 2^31 - 1 elements, holding one.
        [header(28, 0x7FFF_FFFF), vec![2, 0, 0, 0, 1, 0, 0, 0]].concat(),
        // A Dictionary claiming 2^31 - 1 pairs.
        [
            header(27, 0x7FFF_FFFF),
            vec![4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0],
        ]
        .concat(),
        // Packed arrays claiming more than they hold.
        [header(29, 0x7FFF_FFF0), vec![1, 2, 3, 4]].concat(),
        [header(31, 0x7FFF_FFF0), vec![0; 16]].concat(),
        [header(34, 0x7FFF_FFF0), vec![2, 0, 0, 0, b'a', 0, 0, 0]].concat(),
    ];
    for bytes in &cases {
        let used = peak(|| {
            let _ = gdvariant::from_slice::<Victim>(bytes);
            let _ = gdvariant::from_slice::<Vec<i64>>(bytes);
            let _ = gdvariant::from_slice::<Vec<String>>(bytes);
            let _ = gdvariant::from_slice::<BTreeMap<String, i64>>(bytes);
            let _ = gdvariant::from_slice::<gdvariant::Variant>(bytes);
            let _ = gdvariant::from_slice::<gdvariant::serde_with::Packed<'_, f32>>(bytes);
            // Types that swallow their own errors: the count does not drive the loop after
            // the data ran out.
            let _ = gdvariant::from_slice::<Vec<Lenient<i64>>>(bytes);
            let _ = gdvariant::from_slice::<Vec<Lenient<&str>>>(bytes);
            let _ = gdvariant::from_slice::<BTreeMap<String, Lenient<Vec<i64>>>>(bytes);
        });
        assert!(
            used <= budget(bytes.len()),
            "{used} bytes for a {}-byte input",
            bytes.len()
        );
        // And each is an error.
        assert!(gdvariant::from_slice::<Vec<i64>>(bytes).is_err());
    }
}

#[test]
fn truncations_and_mutations_of_an_engine_packet_stay_within_budget() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/input_packet.bin"
    ))
    .unwrap();
    let mut worst = 0usize;
    for cut in 0..bytes.len() {
        let b = &bytes[..cut];
        let used = peak(|| {
            let _ = gdvariant::from_slice::<gdvariant::Variant>(b);
            let _ = gdvariant::from_slice::<BTreeMap<String, gdvariant::Variant>>(b);
        });
        assert!(used <= budget(bytes.len()), "cut {cut}: {used} bytes");
        worst = worst.max(used);
    }
    let mut m = bytes.clone();
    for i in 0..bytes.len() {
        for x in [0x00, 0x7F, 0xFF] {
            m[i] = x;
            let used = peak(|| {
                let _ = gdvariant::from_slice::<gdvariant::Variant>(&m);
                let _ = gdvariant::from_slice::<BTreeMap<String, gdvariant::Variant>>(&m);
                let _ = gdvariant::from_slice::<Victim>(&m);
            });
            assert!(
                used <= budget(bytes.len()),
                "byte {i} = {x:#x}: {used} bytes"
            );
            worst = worst.max(used);
        }
        m[i] = bytes[i];
    }
    // The check measures something: reading the packet allocates (strings, the Dictionary).
    assert!(worst > 0);
}

#[test]
fn borrowed_structs_over_the_game_state_allocate_only_their_vectors() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Entity<'a> {
        id: i64,
        name: &'a str,
        pos: gdvariant::math::Vector3,
        #[serde(borrow)]
        tags: Vec<&'a str>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct State<'a> {
        tick: i64,
        #[serde(borrow)]
        entities: Vec<Entity<'a>>,
    }
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/game_state.bin"
    ))
    .unwrap();
    let used = peak(|| gdvariant::from_slice::<State<'_>>(&bytes).unwrap());
    // 10 000 entities (a Vec of 72-byte structs) and their tag vectors: well under the input.
    assert!(used > 10_000 * 64, "{used}");
    assert!(used < bytes.len() * 2, "{used} bytes for {}", bytes.len());
}

#[test]
fn to_vec_allocates_only_its_output() {
    #[derive(serde::Serialize)]
    struct Input<'a> {
        seq: i64,
        aim: gdvariant::math::Vector3,
        name: &'a str,
        tags: Vec<&'a str>,
        nested: BTreeMap<&'a str, (f64, bool)>,
    }
    let input = Input {
        seq: 7,
        aim: gdvariant::math::Vector3::new(0.5, 1.0, 0.0),
        name: "p1",
        tags: vec!["a", "b"],
        nested: [("x", (0.1, true))].into_iter().collect(),
    };
    // One block: the 256 bytes `to_vec` reserves (this value needs fewer), nothing for the
    // open containers.
    let used = peak(|| gdvariant::to_vec(&input).unwrap());
    assert_eq!(used, 256);
    // Through the streaming writer the open containers take a stack on the heap besides.
    let used = peak(|| {
        let mut w = gdvariant::Writer::with_buffer(Vec::with_capacity(256), Default::default());
        gdvariant::ser::to_writer(&mut w, &input).unwrap();
        w.finish().unwrap()
    });
    assert!(used > 256, "{used}");
}
