//! Reading never allocates: parse, validate, parse_prefix, raw, lookups and a full lazy walk of
//! a nested game-state packet (the engine's own sample and the generated 10 000-entity one) run
//! under a counting global allocator that must see zero allocations.

use crate::common;
#[path = "../../benches/common/mod.rs"]
mod gen;

// The binary's counting allocator (per thread: the other tests running meanwhile do not count).
use common::alloc::count_allocs;
use common::walk::{lazy_accept, lazy_walk};
use gdvariant::{ErrorKind, ReadOptions, VariantRef, VariantType};

#[test]
fn the_counter_counts() {
    let (v, n) = count_allocs(|| vec![1u8; 100]);
    assert_eq!(v.len(), 100);
    assert_eq!(n, 1);
    let (_, n) = count_allocs(|| "x".repeat(3));
    assert_eq!(n, 1);
}

fn engine_sample() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap()
}

fn f3(v: VariantRef<'_>) -> [f32; 3] {
    let p = v.as_vector3().unwrap();
    [p.x as f32, p.y as f32, p.z as f32]
}

/// Reads entity dictionary `e` back into the generator's struct.
fn read_entity(e: VariantRef<'_>) -> gen::Entity {
    let d = e.as_dictionary().unwrap();
    let get = |k: &str| d.get(k).unwrap().unwrap_or_else(|| panic!("no key {k}"));
    gen::Entity {
        id: get("id").as_i64().unwrap(),
        name: get("name").as_str().unwrap().to_string(),
        pos: f3(get("pos")),
        vel: f3(get("vel")),
        hp: get("hp").as_f64().unwrap() as f32,
        tags: get("tags")
            .as_string_array()
            .unwrap()
            .iter()
            .map(|s| s.unwrap().to_string())
            .collect(),
    }
}

/// The local byte builder of benches/common writes exactly what the engine wrote for the
/// engine's own game-state sample: it mimics canonical engine encoding.
#[test]
fn generator_matches_engine_encoding() {
    let bytes = engine_sample();
    let root = gdvariant::parse(&bytes).unwrap();
    assert_eq!(
        root.path("tick").unwrap().unwrap().as_i64().unwrap(),
        123_456
    );
    let entities = root.path("entities").unwrap().unwrap().as_array().unwrap();
    assert_eq!(entities.len(), 8);
    let mut b = gen::Builder::new();
    b.dict(2);
    b.string("tick").int(gen::TICK);
    b.string("entities").array(8);
    for e in entities.iter() {
        let e = e.unwrap();
        let ent = read_entity(e);
        let mut one = gen::Builder::new();
        gen::push_entity(&mut one, &ent);
        assert_eq!(one.bytes, e.raw().unwrap(), "entity {}", ent.id);
        gen::push_entity(&mut b, &ent);
    }
    assert_eq!(b.bytes, bytes);
}

#[test]
fn generated_packet_has_the_expected_shape() {
    let bytes = gen::game_state_packet();
    assert!(
        (1_650_000..1_850_000).contains(&bytes.len()),
        "{} bytes",
        bytes.len()
    );
    assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
    assert_eq!(lazy_accept(&bytes, &ReadOptions::new()), Ok(bytes.len()));
    let root = gdvariant::parse(&bytes).unwrap();
    let d = root.as_dictionary().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(d.get("tick").unwrap().unwrap().as_i64().unwrap(), gen::TICK);
    let entities = d.get("entities").unwrap().unwrap().as_array().unwrap();
    assert_eq!(entities.len(), gen::ENTITIES);
    let mut n = 0;
    for (i, e) in entities.iter().enumerate() {
        let e = e.unwrap();
        assert_eq!(e.ty(), VariantType::Dictionary);
        if i % 997 == 0 || i == gen::ENTITIES - 1 {
            assert_eq!(read_entity(e), gen::entity(i));
        }
        n += 1;
    }
    assert_eq!(n, gen::ENTITIES);
    // Every hp is exact in f32, so written in 4 bytes; spot-check one encoding.
    let hp = root.path("entities/9999/hp").unwrap().unwrap();
    assert_eq!(hp.raw().unwrap().len(), 8);
    assert!(!hp.is_wide());
    assert_eq!(
        f3(root.path("entities/9999/pos").unwrap().unwrap()),
        gen::entity(9999).pos
    );
    // The walk visits root + 2 keys + tick + array + 10 000 × (dict + 6 keys + 6 values).
    assert_eq!(lazy_walk(root).unwrap(), 1 + 2 * 2 + gen::ENTITIES * 13);
}

#[test]
fn packed_f32_generator() {
    let bytes = gen::packed_f32_array(4000);
    assert_eq!(bytes.len(), 4008);
    let a = gdvariant::parse(&bytes)
        .unwrap()
        .as_packed::<f32>()
        .unwrap();
    assert_eq!(a.len(), 1000);
    assert_eq!(a.get(999), Some(gen::packed_f32_element(999)));
    assert_eq!(gdvariant::validate(&bytes), Ok(4008));
}

/// Everything a reader does to a packet, returning a checksum so nothing is optimised away.
fn read_everything(bytes: &[u8], last: usize) -> f64 {
    let opts = ReadOptions::new();
    let mut sum = 0.0;
    let root = gdvariant::parse(bytes).unwrap();
    assert_eq!(gdvariant::validate(bytes).unwrap(), bytes.len());
    assert_eq!(root.validate().unwrap(), bytes.len());
    let (v, used) = gdvariant::parse_prefix_with(bytes, &opts).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(v.raw().unwrap().len(), bytes.len());
    assert_eq!(root.raw().unwrap().len(), bytes.len());
    assert_eq!(root.byte_len().unwrap(), bytes.len());
    let n = lazy_walk(root).unwrap();
    assert!(n > 10);
    assert_eq!(lazy_accept(bytes, &opts).unwrap(), bytes.len());

    // Lookups: by key, by path, by get chains, by index.
    let d = root.as_dictionary().unwrap();
    sum += d.get("tick").unwrap().unwrap().as_i64().unwrap() as f64;
    let entities = d.get("entities").unwrap().unwrap();
    assert!(d.get("missing").unwrap().is_none());
    let arr = entities.as_array().unwrap();
    let pos = root.path("entities/7/pos").unwrap().unwrap();
    sum += pos.as_vector3().unwrap().x;
    let mut buf = [0u8; 24];
    let path = {
        use std::io::Write;
        let mut w = &mut buf[..];
        write!(w, "entities/{last}/pos").unwrap();
        let used = 24 - w.len();
        std::str::from_utf8(&buf[..used]).unwrap()
    };
    let far = root.path(path).unwrap().unwrap();
    let chain = arr
        .get(last)
        .unwrap()
        .unwrap()
        .as_dictionary()
        .unwrap()
        .get("pos")
        .unwrap()
        .unwrap();
    assert_eq!(far.raw().unwrap(), chain.raw().unwrap());
    sum += chain.as_vector3().unwrap().z;
    assert!(arr.get(last + 1).unwrap().is_none());
    // Several fields in one walk.
    let entity = arr.get(last).unwrap().unwrap().as_dictionary().unwrap();
    let [pos, hp, missing] = entity.get_many(["pos", "hp", "missing"]).unwrap();
    assert_eq!(pos.unwrap().raw().unwrap(), chain.raw().unwrap());
    sum += hp.unwrap().as_f64().unwrap();
    assert!(missing.is_none());
    // The same, the entity checked as `validate` checks it, in the same walk.
    let [pos, hp, missing] = entity.validate_get_many(["pos", "hp", "missing"]).unwrap();
    assert_eq!(pos.unwrap().raw().unwrap(), chain.raw().unwrap());
    sum += hp.unwrap().as_f64().unwrap();
    assert!(missing.is_none());

    // Iterate every entity and every field through the typed accessors.
    for e in arr.iter() {
        let e = e.unwrap();
        for pair in e.as_dictionary().unwrap().iter() {
            let (k, v) = pair.unwrap();
            let key = k.as_str().unwrap();
            sum += key.len() as f64;
            match key {
                "id" => sum += v.as_i64().unwrap() as f64,
                "name" => sum += v.as_str().unwrap().len() as f64,
                "pos" | "vel" => sum += v.as_vector3().unwrap().y,
                "hp" => sum += v.as_f64().unwrap(),
                "tags" => {
                    let tags = v.as_string_array().unwrap();
                    for t in tags.iter() {
                        sum += t.unwrap().len() as f64;
                    }
                    sum += tags.get(0).unwrap().unwrap().len() as f64;
                }
                other => panic!("unexpected key {other}"),
            }
        }
    }

    // Errors allocate their box, one each, and nothing else.
    let cut = &bytes[..bytes.len() - 1];
    let e = gdvariant::validate(cut).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof { .. }));
    assert!(gdvariant::parse_prefix_with(cut, &opts).is_err());
    assert!(lazy_accept(cut, &opts).is_err());
    sum
}

/// The errors `read_everything` provokes at its end (each allocates its box, one word's worth of
/// kind and offset): reading itself allocates nothing.
const ERROR_BOXES: usize = 3;

#[test]
fn reading_the_engine_sample_allocates_nothing() {
    let bytes = engine_sample();
    let (sum, allocs) = count_allocs(|| read_everything(&bytes, 7));
    assert!(sum.is_finite());
    assert_eq!(
        allocs, ERROR_BOXES,
        "allocations while reading: the three errors' boxes"
    );
}

#[test]
fn reading_the_generated_packet_allocates_nothing() {
    let bytes = gen::game_state_packet();
    let (sum, allocs) = count_allocs(|| read_everything(&bytes, gen::ENTITIES - 1));
    assert!(sum.is_finite());
    assert_eq!(
        allocs, ERROR_BOXES,
        "allocations while reading: the three errors' boxes"
    );
}

#[test]
fn packed_views_allocate_nothing() {
    let bytes = gen::packed_f32_array(1 << 20);
    let (sum, allocs) = count_allocs(|| {
        let v = gdvariant::parse(&bytes).unwrap();
        let a = v.as_packed::<f32>().unwrap();
        let mut s: f32 = a.iter().sum();
        s += a.as_le_slice().iter().map(|x| x.get()).sum::<f32>();
        if let Some(sl) = a.as_slice() {
            s += sl.iter().sum::<f32>();
        }
        assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
        s
    });
    assert!(sum.is_finite());
    assert_eq!(allocs, 0);
}

/// `levels` nested single-element Arrays around an int (Godot 4): the innermost int is at
/// depth `levels`.
fn nested_arrays(levels: usize) -> Vec<u8> {
    let mut b = [28, 0, 0, 0, 1, 0, 0, 0].repeat(levels);
    b.extend_from_slice(&[2, 0, 0, 0, 7, 0, 0, 0]);
    b
}

#[test]
fn event_free_walks_allocate_nothing_up_to_the_engine_depth_limit() {
    // The innermost value at depth 1024, the deepest the engine reads.
    let bytes = nested_arrays(1024);
    let opts = ReadOptions::new();
    let (len, allocs) = count_allocs(|| {
        assert_eq!(gdvariant::validate(&bytes), Ok(bytes.len()));
        let v = gdvariant::parse(&bytes).unwrap();
        assert_eq!(v.raw().unwrap().len(), bytes.len());
        assert_eq!(gdvariant::parse_prefix(&bytes).unwrap().1, bytes.len());
        // Skips and sizing through the Walker run the same event-free walk.
        let mut w = gdvariant::Walker::new(&bytes, &opts);
        assert!(w.next_event().unwrap().is_some());
        let end = w.finish().unwrap();
        let mut w = gdvariant::Walker::new(&bytes, &opts);
        let whole = w.next_value().unwrap().unwrap();
        assert_eq!(whole.raw().unwrap().len(), end);
        end
    });
    assert_eq!(len, bytes.len());
    assert_eq!(allocs, 0, "allocations in event-free walks");
}

#[test]
fn the_walker_keeps_its_first_levels_inline() {
    let opts = ReadOptions::new();
    let walk = |bytes: &[u8]| {
        let mut w = gdvariant::Walker::new(bytes, &opts);
        let mut values = 0;
        while let Some(e) = w.next_event().unwrap() {
            values += matches!(e, gdvariant::Event::Value(_)) as usize;
        }
        (values, w.offset())
    };
    // Containers open at once up to the inline depth (and the innermost): no allocation.
    let shallow = nested_arrays(gdvariant::Walker::INLINE_DEPTH + 1);
    let (r, allocs) = count_allocs(|| walk(&shallow));
    assert_eq!(r, (1, shallow.len()));
    assert_eq!(allocs, 0, "allocations within the inline depth");
    // Deeper: one reservation (counts and kinds) for the levels up to the engine's limit,
    // whatever the depth.
    for levels in [gdvariant::Walker::INLINE_DEPTH + 2, 500, 1024] {
        let deep = nested_arrays(levels);
        let (r, allocs) = count_allocs(|| walk(&deep));
        assert_eq!(r, (1, deep.len()));
        assert_eq!(allocs, 2, "allocations at depth {levels}");
    }
    // Huge declared counts change nothing (a count is 4 bytes whatever its value): a
    // dictionary of 2^31 - 1 pairs whose first key is an array, cut short.
    let mut huge = vec![27, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F];
    huge.extend_from_slice(&nested_arrays(3));
    let (r, allocs) = count_allocs(|| {
        let mut w = gdvariant::Walker::new(&huge, &opts);
        let mut ends = 0;
        let err = loop {
            match w.next_event() {
                Ok(Some(gdvariant::Event::End)) => ends += 1,
                Ok(Some(_)) => {}
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        (ends, err.map(|e| (e.kind(), e.offset())))
    });
    assert_eq!(
        r,
        (
            3,
            Some((
                gdvariant::ErrorKind::UnexpectedEof { needed: 4 },
                huge.len()
            ))
        )
    );
    assert_eq!(allocs, 1, "allocations for a huge count: the error's box");
}
