//! The instruction-count harness of `benches/README.md`: runs one `vs_engine` workload N times
//! in `run`, for callgrind to count (`--toggle-collect='*prof::run*'`, then divide by N).
//!
//! `cargo build --release --example prof --features serde`, then
//! `valgrind --tool=callgrind --toggle-collect='*prof::run*' target/release/examples/prof WORKLOAD N`
//! with WORKLOAD one of: gs_validate gs_to_owned gs_encode gs_serde in_validate_get_many
//! in_to_owned in_encode in_serde in_to_vec gs_text in_text keys_text (`keys_text`: the text of a
//! dictionary of 1 000 String keys, 100 Vector2 keys and 100 Array keys, built here).

use std::hint::black_box;

fn packet(name: &str) -> Vec<u8> {
    let path = format!("{}/benches/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[cfg(feature = "serde")]
mod types {
    use gdvariant::math::{Vector2, Vector3};
    use serde::{Deserialize, Serialize};

    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct Entity<'a> {
        id: i64,
        name: &'a str,
        pos: Vector3,
        vel: Vector3,
        hp: f32,
        #[serde(borrow)]
        tags: Vec<&'a str>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    pub struct State<'a> {
        tick: i64,
        #[serde(borrow)]
        entities: Vec<Entity<'a>>,
    }

    #[derive(Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct Input<'a> {
        seq: i64,
        tick: u32,
        #[serde(rename = "move")]
        movement: Vector2,
        aim: Vector3,
        buttons: u8,
        jump: bool,
        name: &'a str,
        ts: f64,
    }
}

#[inline(never)]
fn run(work: &str, n: usize, bytes: &[u8], owned: &gdvariant::Variant) {
    #[cfg(feature = "serde")]
    if work == "in_to_vec" {
        let input: types::Input<'_> = gdvariant::from_slice(bytes).unwrap();
        for _ in 0..n {
            black_box(gdvariant::to_vec(black_box(&input)).unwrap());
        }
        return;
    }
    for _ in 0..n {
        match work {
            "gs_validate" => {
                black_box(gdvariant::validate(black_box(bytes)).unwrap());
            }
            "gs_to_owned" | "in_to_owned" => {
                black_box(
                    gdvariant::parse(black_box(bytes))
                        .unwrap()
                        .to_owned()
                        .unwrap(),
                );
            }
            "gs_encode" | "in_encode" => {
                black_box(gdvariant::encode(black_box(owned)).unwrap());
            }
            "gs_text" | "in_text" | "keys_text" => {
                let v = gdvariant::parse(black_box(bytes)).unwrap();
                black_box(gdvariant::text::to_string(&v).unwrap());
            }
            "in_validate_get_many" => {
                let d = gdvariant::parse(black_box(bytes))
                    .unwrap()
                    .as_dictionary()
                    .unwrap();
                let [jump, name, ts] = d.validate_get_many(["jump", "name", "ts"]).unwrap();
                black_box((
                    jump.unwrap().as_bool().unwrap(),
                    name.unwrap().as_str().unwrap().len(),
                    ts.unwrap().as_f64().unwrap(),
                ));
            }
            #[cfg(feature = "serde")]
            "gs_serde" => {
                black_box(gdvariant::from_slice::<types::State<'_>>(black_box(bytes)).unwrap());
            }
            #[cfg(feature = "serde")]
            "in_serde" => {
                black_box(gdvariant::from_slice::<types::Input<'_>>(black_box(bytes)).unwrap());
            }
            other => panic!("unknown workload {other}"),
        }
    }
}

/// The bytes of a dictionary with many keys of three kinds, in no sorted order.
fn many_keys() -> Vec<u8> {
    use gdvariant::{math::Vector2, Array, Dictionary, Variant};
    let mut d = Dictionary::new();
    for i in 0..1000u32 {
        let k = i.wrapping_mul(2_654_435_761) % 1000;
        d.push_entry(format!("key_{k}"), i64::from(i));
    }
    for i in 0..100u32 {
        let k = f64::from(i * 37 % 100);
        d.push_entry(Vector2::new(k, -k), i64::from(i));
        let arr = Array::new(vec![Variant::Int(k as i64), Variant::from("x")]);
        d.push_entry(Variant::Array(arr), i64::from(i));
    }
    gdvariant::encode(&Variant::Dictionary(d)).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let work = args.get(1).map(String::as_str).unwrap_or("in_serde");
    let n: usize = args.get(2).map_or(1000, |s| s.parse().unwrap());
    let bytes = if work == "keys_text" {
        many_keys()
    } else {
        packet(if work.starts_with("gs_") {
            "game_state.bin"
        } else {
            "input_packet.bin"
        })
    };
    let owned = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
    run(work, n, &bytes, &owned);
}
