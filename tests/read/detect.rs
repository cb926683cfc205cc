//! Dialect detection on every value the real engines wrote: never the wrong engine.

use crate::common;

use gdvariant::{detect::Detector, detect::Verdict, Dialect, ErrorKind, ReadOptions};

/// Detects every golden value of `engine`, asserting that none is taken for the other engine;
/// returns how many were recognised, the same in both, and the names of the ambiguous ones.
fn detect_all(engine: &str, truth: Dialect) -> (usize, usize, Vec<String>) {
    let (_, cases) = common::encode_cases(engine);
    assert!(cases.len() > 100);
    let (mut recognised, mut same) = (0, 0);
    let mut ambiguous = Vec::new();
    for c in &cases {
        let opts = ReadOptions::new().with_full_objects(c.objects);
        let d = Dialect::detect_with(&c.bytes, &opts);
        match d.verdict() {
            Verdict::Only(x) | Verdict::MorePlausible(x) => {
                assert_eq!(x, truth, "{engine} {}: {d}", c.name);
                assert_eq!(d.read_as(), truth);
                recognised += 1;
            }
            Verdict::Same => {
                same += 1;
                assert_eq!(d.dialect(), None);
                for dialect in [Dialect::Godot4, Dialect::Godot3] {
                    let o = opts.with_dialect(dialect);
                    assert_eq!(gdvariant::validate_with(&c.bytes, &o), Ok(c.bytes.len()));
                }
            }
            Verdict::Ambiguous => {
                eprintln!("{engine} {}: {d}", c.name);
                assert_eq!((d.dialect(), d.read_as()), (None, Dialect::Godot4));
                assert!(d.to_string().starts_with("cannot tell: "), "{d}");
                ambiguous.push(c.name.clone());
            }
            v => panic!("{engine} {}: {v:?}: {d}", c.name),
        }
    }
    (recognised, same, ambiguous)
}

/// Godot 4: every value is recognised but those the same in both (Nil, bool, int, float,
/// String, Vector2) and those whose bytes are an equally plausible Godot 3 value.
#[test]
fn every_godot4_golden_value_is_godot4_or_undecided() {
    let (recognised, same, ambiguous) = detect_all("godot4", Dialect::Godot4);
    assert_eq!((recognised, same), (184, 77));
    assert_eq!(
        ambiguous,
        [
            "sname_empty",          // &"" or PoolIntArray()
            "transform2d_identity", // Transform2D or AABB: six floats
            "transform2d",
            "transform2d_rot",
            "plane", // Plane or Color: four floats
            "plane_raw",
        ]
    );
}

/// Godot 3: the same, the other way round. A PoolIntArray [1] is a StringName "\u{1}" in
/// Godot 4 and a full Reference object a Basis of subnormal floats: both recognised.
#[test]
fn every_godot3_golden_value_is_godot3_or_undecided() {
    let (recognised, same, ambiguous) = detect_all("godot3", Dialect::Godot3);
    assert_eq!((recognised, same), (105, 76));
    assert_eq!(
        ambiguous,
        [
            "aabb",
            "aabb_zero",
            "color",
            "color_hdr",
            "color_red",
            "pint_0"
        ]
    );
    let (_, cases) = common::encode_cases("godot3");
    for (name, why) in [
        (
            "pint_1",
            "Godot 3: both dialects read it, but as Godot 4 it holds text with a control \
             character or NUL in a StringName at offset 0",
        ),
        (
            "obj_reference_wobj",
            "Godot 3: both dialects read it, but as Godot 4 it holds a subnormal float in a \
             Basis at offset 0",
        ),
        (
            "basis_identity",
            "Godot 3: as Godot 4 the value ends at offset 20, 20 bytes before the end",
        ),
    ] {
        let c = cases.iter().find(|c| c.name == name).unwrap();
        let d = Dialect::detect(&c.bytes);
        assert_eq!(d.to_string(), why, "{name}");
    }
}

/// A stream is read frame by frame: one frame that only one dialect reads decides.
#[test]
fn a_stream_is_decided_by_all_its_frames() {
    let (_, g3) = common::encode_cases("godot3");
    let get = |n: &str| g3.iter().find(|c| c.name == n).unwrap().bytes.clone();
    let (color, int, basis) = (get("color"), get("int_1"), get("basis_identity"));
    let mut d = Detector::new(&ReadOptions::new());
    d.value(&color, 4).value(&int, 100);
    assert_eq!(d.detection().verdict(), Verdict::Ambiguous);
    d.value(&basis, 200);
    let det = d.detection();
    assert_eq!(det.verdict(), Verdict::Only(Dialect::Godot3));
    let e = det.error(Dialect::Godot4).unwrap();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::TrailingBytesInFrame { extra: 20 }, 220)
    );
    assert!(det.error(Dialect::Godot3).is_none());
    assert!(det.reads_in(Dialect::Godot4) && det.reads_in(Dialect::Godot3));
    // An int, then a type id Godot 3 does not have: Godot 4.
    let mut d = Detector::new(&ReadOptions::new());
    d.value(&int, 0).value(&[27, 0, 0, 0, 0, 0, 0, 0], 8);
    assert_eq!(d.detection().verdict(), Verdict::Only(Dialect::Godot4));
    let e = d.detection().error(Dialect::Godot3).unwrap();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::UnknownType { id: 27 }, 8)
    );
    // Neither.
    let d = Dialect::detect(&[200, 0, 0, 0]);
    assert_eq!(
        (d.verdict(), d.dialect(), d.read_as()),
        (Verdict::Neither, None, Dialect::Godot4)
    );
    assert!(!d.reads_in(Dialect::Godot4));
}

/// Every input of the hostile decode corpus: detection agrees with `validate` in each dialect.
#[test]
fn detection_agrees_with_validate_on_the_decode_corpus() {
    let mut checked = 0;
    for (name, bytes) in common::decode_inputs() {
        for objects in [false, true] {
            let opts = ReadOptions::new().with_full_objects(objects);
            let d = Dialect::detect_with(&bytes, &opts);
            for dialect in [Dialect::Godot4, Dialect::Godot3] {
                let v = gdvariant::validate_with(&bytes, &opts.with_dialect(dialect));
                assert_eq!(d.reads_in(dialect), v.is_ok(), "{name} {dialect}");
                match (v, d.error(dialect)) {
                    (Ok(n), None) => assert_eq!(n, bytes.len(), "{name}"),
                    (Ok(n), Some(e)) => assert_eq!(
                        (e.kind(), e.offset()),
                        (
                            ErrorKind::TrailingBytesInFrame {
                                extra: bytes.len() - n
                            },
                            n
                        ),
                        "{name}"
                    ),
                    (Err(a), Some(b)) => assert_eq!(a, b, "{name}"),
                    (Err(a), None) => panic!("{name} {dialect}: validate says {a}"),
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 300);
}
