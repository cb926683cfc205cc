//! Every walk reads each input byte a bounded number of times, whatever the nesting depth: the
//! bytes the cursors consume (feature `__count-reads`) are counted for inputs of the same size
//! nested 10 and 1000 levels deep, and the deep one may cost at most 1.5× the shallow one.

use crate::common;

use common::walk::{lazy_walk, walker_accept};
use gdvariant::{read_count, ReadOptions, Walker};

/// About `size` bytes of Godot 4 data nested `depth` levels: at each level an Array holding
/// (but at the innermost level) the next level first, then `width` ints and a short string, so
/// that every iterator has to get past its container child.
fn nested(depth: usize, size: usize) -> Vec<u8> {
    // A level's own bytes: the array header and count (8), the leaves (8 each), the string (12).
    let width = (size / depth).saturating_sub(20) / 8;
    let mut out = Vec::new();
    let mut tails = Vec::new();
    for d in 0..depth {
        let last = d + 1 == depth;
        out.extend_from_slice(&28u32.to_le_bytes());
        out.extend_from_slice(&((width + 1 + usize::from(!last)) as u32).to_le_bytes());
        // The leaves of level d follow the whole of level d + 1.
        let mut tail = Vec::new();
        for i in 0..width {
            tail.extend_from_slice(&2u32.to_le_bytes());
            tail.extend_from_slice(&(i as u32).to_le_bytes());
        }
        tail.extend_from_slice(&4u32.to_le_bytes());
        tail.extend_from_slice(&3u32.to_le_bytes());
        tail.extend_from_slice(b"abc\0");
        tails.push(tail);
    }
    for tail in tails.iter().rev() {
        out.extend_from_slice(tail);
    }
    out
}

/// The bytes `f` makes the cursors consume on this thread.
fn bytes_read(f: impl FnOnce()) -> u64 {
    read_count::take();
    f();
    read_count::take()
}

/// Runs `f` on a thread with a big stack (the test's own lazy walk recurses once per level).
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    common::on_stack(256 << 20, f)
}

fn costs(depth: usize) -> (usize, Vec<(&'static str, u64)>) {
    on_big_stack(move || {
        let b = nested(depth, 400_000);
        let o = ReadOptions::new();
        assert_eq!(gdvariant::validate(&b), Ok(b.len()), "depth {depth}");
        let costs = vec![
            (
                "validate",
                bytes_read(|| assert_eq!(gdvariant::validate(&b), Ok(b.len()))),
            ),
            (
                "parse_prefix",
                bytes_read(|| assert_eq!(gdvariant::parse_prefix_with(&b, &o).unwrap().1, b.len())),
            ),
            (
                "walker",
                bytes_read(|| {
                    let mut w = Walker::new(&b, &o);
                    while w.next_event().unwrap().is_some() {}
                    assert_eq!(w.offset(), b.len());
                }),
            ),
            (
                "walker+reads",
                bytes_read(|| assert_eq!(walker_accept(&b, &o).unwrap().1, b.len())),
            ),
            (
                "lazy walk",
                bytes_read(|| assert!(lazy_walk(gdvariant::parse(&b).unwrap()).unwrap() > depth)),
            ),
            (
                "to_owned",
                bytes_read(|| drop(gdvariant::parse(&b).unwrap().to_owned().unwrap())),
            ),
            (
                "raw",
                bytes_read(|| {
                    assert_eq!(gdvariant::parse(&b).unwrap().raw().unwrap().len(), b.len())
                }),
            ),
        ];
        (b.len(), costs)
    })
}

#[test]
fn walks_read_each_byte_a_bounded_number_of_times_at_any_depth() {
    let (len10, shallow) = costs(10);
    let (len1000, deep) = costs(1000);
    // Same size within 2%.
    assert!(len10.abs_diff(len1000) * 50 < len10, "{len10} vs {len1000}");
    for ((name, s), (_, d)) in shallow.iter().zip(&deep) {
        let (s, d) = (*s as f64 / len10 as f64, *d as f64 / len1000 as f64);
        eprintln!("{name:>13}: {s:.2} bytes read per input byte at depth 10, {d:.2} at 1000");
        // Each walk reads a byte at most a few times (accessors re-read leaves)...
        assert!(s <= 3.0 && d <= 3.0, "{name}: {s} / {d}");
        // ... and depth does not multiply it.
        assert!(
            d <= 1.5 * s,
            "{name}: {d} per byte at depth 1000 vs {s} at depth 10"
        );
    }
    // The walker and validate read every byte exactly once.
    for (costs, len) in [(&shallow, len10), (&deep, len1000)] {
        for (name, n) in costs {
            if matches!(*name, "validate" | "walker" | "parse_prefix" | "raw") {
                assert_eq!(*n as usize, len, "{name}");
            }
        }
    }
}

/// Walks nested arrays through the lazy iterators *without* handing the children's iterators
/// back: each level's iterator then walks past its container child again.
fn lazy_walk_without_resume(v: gdvariant::VariantRef<'_>) -> usize {
    let mut n = 1;
    if let Ok(a) = v.as_array() {
        for e in a.iter() {
            n += lazy_walk_without_resume(e.unwrap());
        }
    }
    n
}

#[test]
fn the_count_sees_a_walk_that_reads_twice() {
    // Without resume_after, a recursive lazy walk re-reads every level once per level above
    // it: the count shows it, so the linear test above can fail.
    let cost = |depth| {
        on_big_stack(move || {
            let b = nested(depth, 400_000);
            let n = bytes_read(|| {
                assert!(lazy_walk_without_resume(gdvariant::parse(&b).unwrap()) > depth)
            });
            n as f64 / b.len() as f64
        })
    };
    let (shallow, deep) = (cost(10), cost(1000));
    assert!(shallow < 10.0, "{shallow}");
    assert!(deep > 100.0, "{deep}");
}

/// serde over nested Godot 4 typed containers: `depth` levels of `Array[Array]`, each holding
/// the next level first, then `width` `Array[int]`s of two elements (an `Array[int]` at the
/// innermost level holding a float 1.5, which the engine converts, if `convert`).
#[cfg(feature = "serde")]
fn nested_typed(depth: usize, width: usize, convert: bool) -> Vec<u8> {
    fn typed(out: &mut Vec<u8>, element: u32, count: usize) {
        out.extend_from_slice(&(28u32 | 1 << 16).to_le_bytes());
        out.extend_from_slice(&element.to_le_bytes());
        out.extend_from_slice(&(count as u32).to_le_bytes());
    }
    let mut out = Vec::new();
    for d in 0..depth {
        typed(&mut out, 28, width + usize::from(d + 1 < depth));
    }
    for d in (0..depth).rev() {
        for i in 0..width {
            typed(&mut out, 2, 2);
            out.extend_from_slice(&2u32.to_le_bytes());
            out.extend_from_slice(&(i as u32).to_le_bytes());
            if convert && d + 1 == depth && i == 0 {
                out.extend_from_slice(&3u32.to_le_bytes());
                out.extend_from_slice(&1.5f32.to_le_bytes());
            } else {
                out.extend_from_slice(&2u32.to_le_bytes());
                out.extend_from_slice(&7u32.to_le_bytes());
            }
        }
    }
    out
}

/// Any value read through `deserialize_any`: how many leaves it holds.
#[cfg(feature = "serde")]
struct Leaves(usize);

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Leaves {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Leaves, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Leaves;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("ints, floats and sequences of them")
            }
            fn visit_i64<E>(self, _: i64) -> Result<Leaves, E> {
                Ok(Leaves(1))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Leaves, E> {
                Ok(Leaves(1))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Leaves, A::Error> {
                let mut n = 0;
                while let Some(Leaves(k)) = a.next_element()? {
                    n += k;
                }
                Ok(Leaves(n))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_reads_nested_typed_containers_in_linear_work() {
    // Below serde's nesting limit (128): 40 and 80 levels, the same width (twice the bytes).
    let width = 16;
    for convert in [false, true] {
        let cost = |depth: usize| {
            let b = nested_typed(depth, width, convert);
            assert_eq!(gdvariant::validate(&b), Ok(b.len()));
            let n = bytes_read(|| {
                let Leaves(leaves) = gdvariant::from_slice(&b).unwrap();
                assert_eq!(leaves, depth * width * 2);
            });
            (b.len(), n)
        };
        let ((len1, n1), (len2, n2)) = (cost(40), cost(80));
        let (per1, per2) = (n1 as f64 / len1 as f64, n2 as f64 / len2 as f64);
        eprintln!(
            "typed, convert {convert}: {n1} bytes read for {len1} at depth 40, {n2} for {len2} at 80 ({per1:.2} / {per2:.2} per byte)"
        );
        // Twice the bytes, about twice the work: each level is not read once per level above.
        assert!(
            n2 as f64 <= 2.5 * n1 as f64,
            "convert {convert}: {n2} bytes read at depth 80 vs {n1} at depth 40"
        );
        assert!(per2 <= 8.0, "convert {convert}: {per2} reads per byte");
    }
}

/// serde reads each byte of the engine's packets exactly once into derived structs: the
/// struct's own cursor (keys and plain values), the packed strings it reads there, and the
/// walker it hands the rest to count every byte, and none twice.
#[cfg(feature = "serde")]
#[test]
fn serde_reads_each_byte_of_the_engines_packets_once() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Input<'a> {
        seq: i64,
        tick: u32,
        #[serde(rename = "move")]
        movement: gdvariant::math::Vector2,
        aim: gdvariant::math::Vector3,
        buttons: u8,
        jump: bool,
        name: &'a str,
        ts: f64,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Entity<'a> {
        id: i64,
        name: &'a str,
        pos: gdvariant::math::Vector3,
        hp: f32,
        #[serde(borrow)]
        tags: Vec<&'a str>,
        // `vel` is left out: skipped as an unknown key.
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct State<'a> {
        tick: i64,
        #[serde(borrow)]
        entities: Vec<Entity<'a>>,
    }
    let file =
        |name: &str| std::fs::read(format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let input = file("benches/data/input_packet.bin");
    let n = bytes_read(|| {
        gdvariant::from_slice::<Input<'_>>(&input).unwrap();
    });
    assert_eq!(n, input.len() as u64);
    let game = file("benches/data/game_state.bin");
    let n = bytes_read(|| {
        gdvariant::from_slice::<State<'_>>(&game).unwrap();
    });
    assert_eq!(n, game.len() as u64);
}
