//! Godot 4's typed-container rule against the engine's own answers: every golden value as the
//! one element of an `Array[T]` for every builtin type `T`, as the engine decoded it
//! (`tests/data/godot4/conversions.tsv`, written by `tests/godot/conversions4.gd`): kept,
//! dropped, or converted to exactly the value the engine made. Checked through the lazy
//! reading (`ArrayRef::engine_iter`) and through `to_owned`.

use crate::common;

use gdvariant::{engine::EngineElement, EncodeOptions, Variant, VariantType};

/// The engine's answer for one (value, type) pair.
enum Answer {
    Kept,
    Dropped,
    Converted(Vec<u8>),
}

fn answers() -> Vec<(String, u32, Answer)> {
    let text = std::fs::read_to_string(common::data_dir().join("godot4").join("conversions.tsv"))
        .expect("conversions.tsv");
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let a = match f[2] {
                "K" => Answer::Kept,
                "D" => Answer::Dropped,
                hex => Answer::Converted(common::unhex(hex)),
            };
            (f[0].to_string(), f[1].parse().unwrap(), a)
        })
        .collect()
}

fn holds_object(v: &Variant) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Variant::Object(o) if !matches!(**o, gdvariant::Object::Id(0)) => return true,
            Variant::Array(a) => stack.extend(a.items.iter()),
            Variant::Dictionary(d) => {
                for (k, x) in d.entries().iter() {
                    stack.push(k);
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    false
}

#[test]
fn every_golden_value_in_every_typed_array_reads_as_the_engine_reads_it() {
    let (_, cases) = common::encode_cases("godot4");
    let golden: std::collections::HashMap<String, Vec<u8>> = cases
        .into_iter()
        .filter(|c| !c.objects)
        .map(|c| (c.name, c.bytes))
        .collect();
    let (mut kept, mut dropped, mut converted, mut skipped) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (name, t, answer) in answers() {
        let element = &golden[&name];
        let original = gdvariant::parse(element).unwrap().to_owned().unwrap();
        if holds_object(&original) {
            // A decoded object is a new instance with a new id.
            skipped += 1;
            continue;
        }
        let mut bytes = vec![28, 0, 1, 0];
        bytes.extend_from_slice(&t.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(element);
        let array = gdvariant::parse(&bytes).unwrap().as_array().unwrap();
        let lazy: Vec<Variant> = array
            .engine_iter()
            .map(|e| e.and_then(EngineElement::into_variant))
            .collect::<Result<_, _>>()
            .unwrap();
        let owned = gdvariant::parse(&bytes).unwrap().to_owned().unwrap();
        let owned = owned.as_array().unwrap().items.clone();
        let ty = gdvariant::Dialect::Godot4
            .type_of(t)
            .map_or("?", VariantType::name);
        let encode = |v: &Variant| gdvariant::encode_with(v, &EncodeOptions::new()).unwrap();
        for (how, got) in [("engine_iter", &lazy), ("to_owned", &owned)] {
            let ok = match &answer {
                Answer::Dropped => got.is_empty(),
                Answer::Kept => got.len() == 1 && encode(&got[0]) == encode(&original),
                Answer::Converted(want) => got.len() == 1 && &encode(&got[0]) == want,
            };
            if !ok {
                failures.push(format!(
                    "{name} in Array[{ty}] ({how}): engine {}, ours {:?}",
                    match &answer {
                        Answer::Kept => "kept it".to_string(),
                        Answer::Dropped => "dropped it".to_string(),
                        Answer::Converted(b) => format!("converted it to {}", common::hex(b)),
                    },
                    got.iter()
                        .map(|v| common::hex(&encode(v)))
                        .collect::<Vec<_>>()
                ));
            }
        }
        match answer {
            Answer::Kept => kept += 1,
            Answer::Dropped => dropped += 1,
            Answer::Converted(_) => converted += 1,
        }
    }
    eprintln!("{kept} kept, {dropped} dropped, {converted} converted, {skipped} holding objects not compared");
    assert!(converted > 400 && dropped > 7000, "{converted} {dropped}");
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        kept + dropped + converted,
        failures.join("\n")
    );
}
