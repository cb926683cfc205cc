//! The tool on the engines' golden data: `decode --format text` prints the engine's text,
//! `encode` of the engine's text gives the engine's bytes, JSON round trips, `--dialect auto`
//! names the engine, and the warning when text would not give back the bytes.

use crate::common;

use std::collections::BTreeSet;
use std::process::Output;

use common::{encode_cases, hex, EncodeCase};

use crate::commands::{dialect_arg, no_panic, run, stderr, stdout, tmpdir, write_tmp};

/// Godot 3 NodePath padding bytes are uninitialised engine memory: zero them (our encoder writes
/// zeros) so the engine's bytes can be compared with ours. Walks the value with the library.
/// The bytes with Godot 3's uninitialised NodePath padding zeroed.
fn mask_nodepath_padding(bytes: &[u8], dialect: gdvariant::Dialect) -> Vec<u8> {
    let opts = gdvariant::ReadOptions::new()
        .with_dialect(dialect)
        .with_full_objects(true);
    common::mask_node_path_padding(bytes, &opts)
}

fn contains_object(c: &EncodeCase) -> bool {
    // Objects (and containers typed with a class / script, whose text names the live class)
    // print the live object, which bytes cannot reproduce.
    c.text.contains("Object(") || c.text.contains("Resource(")
}

/// Cases whose engine text cannot be reproduced from the bytes, with the reason.
fn text_exclusions(engine: &str) -> Vec<(&'static str, &'static str)> {
    match engine {
        "godot4" => vec![
            // var_to_bytes writes class-typed containers as `EncodedObjectAsID`; the engine's
            // text names the live class (Node, Object, Resource), which the bytes do not hold.
            (
                "tarr_node_empty",
                "class name replaced by EncodedObjectAsID in the bytes",
            ),
            (
                "tarr_object_empty",
                "class name replaced by EncodedObjectAsID in the bytes",
            ),
            (
                "tarr_resource_empty",
                "class name replaced by EncodedObjectAsID in the bytes",
            ),
            (
                "tdict_str_node_empty",
                "class name replaced by EncodedObjectAsID in the bytes",
            ),
            (
                "tdict_node_int_empty",
                "class name replaced by EncodedObjectAsID in the bytes",
            ),
        ],
        "godot3" => vec![(
            "np_root",
            "Godot 3.2 builds a decoded NodePath from empty name and subname lists, which drops \
             the absolute flag: var2str of its own decoded bytes is NodePath(\"\") (checked live by \
             tests/engine/differential.rs), while this golden text is of the NodePath(\"/\") it built",
        )],
        _ => vec![],
    }
}

#[test]
fn decode_text_matches_engine_text_for_every_golden_vector() {
    for engine in ["godot4", "godot3"] {
        let (_, cases) = encode_cases(engine);
        let excluded: BTreeSet<&str> = text_exclusions(engine).iter().map(|e| e.0).collect();
        let mut checked = 0;
        let mut failures = Vec::new();
        for c in &cases {
            if contains_object(c) || excluded.contains(c.name.as_str()) {
                continue;
            }
            let p = write_tmp(&format!("{engine}_{}.bin", c.name), &c.bytes);
            let mut args = vec!["decode", "--dialect", dialect_arg(engine)];
            if c.objects {
                args.push("--allow-objects");
            }
            args.push(p.to_str().unwrap());
            let o = run(&args, b"");
            no_panic(&o);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{engine} {}: {}",
                c.name,
                stderr(&o)
            );
            let got = stdout(&o);
            let got = got.strip_suffix('\n').unwrap_or(&got);
            if got != c.text {
                failures.push(format!(
                    "{engine} {}:\n  want {:?}\n  got  {:?}",
                    c.name, c.text, got
                ));
            }
            checked += 1;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(checked > 100, "{engine}: only {checked} cases");
    }
}

const SORTED: &str =
    "the text lists keys sorted, the bytes in insertion order: the order is not in the text";

/// Godot 4 cases whose engine text does not read back to the engine's bytes (the engine's own
/// `str_to_var(var_to_str(v))` does not give `v` back either), with the reason.
fn text_roundtrip_exclusions_godot4() -> Vec<(&'static str, &'static str)> {
    vec![
        ("float_neg0", "-0.0 prints as 0.0"),
        (
            "float_2p53",
            "an f32-exact float prints with f32 digits (9.007199e+15), which read back as a different f64",
        ),
        (
            "float_f32_min_denormal",
            "an f32-exact float prints with f32 digits (1e-45), which read back as a different f64",
        ),
        (
            "float_f32_min_normal",
            "an f32-exact float prints with f32 digits, which read back as a different f64",
        ),
        (
            "float_f32_max",
            "an f32-exact float prints with f32 digits, which read back as a different f64",
        ),
        ("vec2_nan", "the -0.0 component prints as 0"),
        ("arr_floats", "the -0.0 element prints as 0.0"),
        ("pf32_extremes", "the -0.0 element prints as 0"),
        ("pf64_extremes", "the -0.0 element prints as 0"),
        ("pv2_extremes", "the -0.0 component prints as 0"),
        ("pv3_extremes", "the -0.0 component prints as 0"),
        ("pv4_extremes", "the -0.0 component prints as 0"),
        ("pcol_extremes", "the -0.0 component prints as 0"),
        ("dict_mixed_keys", SORTED),
        ("dict_insertion_order", SORTED),
        ("dict_values_all", SORTED),
        ("game_state", SORTED),
        ("signal_tree", "a Signal prints as Signal(): name and object id are lost"),
        // Objects sent as ids print as the EncodedObjectAsID the engine decodes; these typed
        // containers name a class the bytes do not hold.
        ("tarr_node_empty", "class name replaced by EncodedObjectAsID in the bytes"),
        ("tarr_object_empty", "class name replaced by EncodedObjectAsID in the bytes"),
        ("tarr_resource_empty", "class name replaced by EncodedObjectAsID in the bytes"),
        ("tdict_str_node_empty", "class name replaced by EncodedObjectAsID in the bytes"),
        ("tdict_node_int_empty", "class name replaced by EncodedObjectAsID in the bytes"),
    ]
}

/// Godot 3 text is lossy for floats (6 significant digits) and RIDs (printed empty): only
/// cases whose text is exact are expected to read back to the engine's bytes.
fn text_roundtrip_exclusions_godot3(cases: &[EncodeCase]) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for c in cases {
        let reason = if c.name.starts_with("rid_") {
            Some("a Godot 3 RID prints as the empty string")
        } else if [
            "dict_insertion_order",
            "dict_mixed_keys",
            "dict_values_all",
            "game_state",
        ]
        .contains(&c.name.as_str())
        {
            Some(SORTED)
        } else if ["vec2_nan", "arr_floats", "float_neg0"].contains(&c.name.as_str()) {
            Some("-0.0 prints as 0 (0.0)")
        } else if [
            "float_third",
            "float_pi",
            "float_16777217",
            "float_16777216",
            "float_f32_max",
            "float_f32_max_next",
            "float_f32_min_denormal",
            "float_f32_min_normal",
            "float_f64_max",
            "float_f64_min_denormal",
            "float_f64_min_normal",
            "float_f64_neg_min_denormal",
            "float_1e39",
            "float_1e39_literal",
            "float_2p53_p2",
            "vec2_inexact",
            "transform2d_rot",
            "pcol_extremes",
            "preal_extremes",
            "pv2_extremes",
            "pv3_extremes",
        ]
        .contains(&c.name.as_str())
        {
            Some("Godot 3 prints floats with 6 significant digits, narrowed to f32")
        } else {
            None
        };
        if let Some(r) = reason {
            out.push((c.name.clone(), r));
        }
    }
    out
}

fn encode_text(engine: &str, text: &str) -> Output {
    let p = write_tmp(&format!("{engine}_in.txt"), text.as_bytes());
    run(
        &[
            "encode",
            "--from",
            "text",
            "--dialect",
            dialect_arg(engine),
            p.to_str().unwrap(),
        ],
        b"",
    )
}

#[test]
fn encode_from_engine_text_gives_engine_bytes() {
    let mut failures = Vec::new();
    let mut still_excluded_but_ok = Vec::new();
    for engine in ["godot4", "godot3"] {
        let (_, cases) = encode_cases(engine);
        let dialect = if engine == "godot4" {
            gdvariant::Dialect::Godot4
        } else {
            gdvariant::Dialect::Godot3
        };
        let excluded: BTreeSet<String> = if engine == "godot4" {
            text_roundtrip_exclusions_godot4()
                .iter()
                .map(|e| e.0.to_string())
                .collect()
        } else {
            text_roundtrip_exclusions_godot3(&cases)
                .into_iter()
                .map(|e| e.0)
                .collect()
        };
        let mut checked = 0;
        for c in &cases {
            if contains_object(c) {
                continue;
            }
            let o = encode_text(engine, &c.text);
            no_panic(&o);
            let want = hex(&mask_nodepath_padding(&c.bytes, dialect));
            let ok = o.status.code() == Some(0) && hex(&o.stdout) == want;
            if excluded.contains(&c.name) {
                if ok {
                    still_excluded_but_ok.push(format!("{engine} {}", c.name));
                }
                continue;
            }
            checked += 1;
            if !ok {
                failures.push(format!(
                    "{engine} {} ({:?}): exit {:?} {}\n  want {want}\n  got  {}",
                    c.name,
                    c.text,
                    o.status.code(),
                    stderr(&o),
                    hex(&o.stdout)
                ));
            }
        }
        assert!(checked > 100, "{engine}: only {checked}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The exclusion lists are exact: nothing listed reads back correctly by accident.
    assert!(
        still_excluded_but_ok.is_empty(),
        "excluded but round-trips: {still_excluded_but_ok:?}"
    );
}

#[test]
fn json_round_trips_every_golden_vector() {
    for engine in ["godot4", "godot3"] {
        let (_, cases) = encode_cases(engine);
        let dialect = if engine == "godot4" {
            gdvariant::Dialect::Godot4
        } else {
            gdvariant::Dialect::Godot3
        };
        let mut failures = Vec::new();
        for c in &cases {
            let p = write_tmp(&format!("{engine}_{}.bin", c.name), &c.bytes);
            let d = dialect_arg(engine);
            let mut args = vec!["decode", "--format", "json", "--dialect", d];
            if c.objects {
                args.push("--allow-objects");
            }
            args.push(p.to_str().unwrap());
            let o = run(&args, b"");
            no_panic(&o);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{engine} {}: {}",
                c.name,
                stderr(&o)
            );
            let json = o.stdout;
            let e = run(&["encode", "--from", "json", "--dialect", d, "-"], &json);
            no_panic(&e);
            let want = hex(&mask_nodepath_padding(&c.bytes, dialect));
            if e.status.code() != Some(0) || hex(&e.stdout) != want {
                failures.push(format!(
                    "{engine} {}: {}\n  json {}\n  want {want}\n  got  {}",
                    c.name,
                    stderr(&e),
                    String::from_utf8_lossy(&json),
                    hex(&e.stdout)
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

#[test]
fn json_round_trips_every_decodable_corpus_input() {
    // Whatever decodes, its JSON encodes back to a value whose JSON is the same. Null objects
    // (`{"$ObjectId":0}`, class "") are written as Nil, as the engine writes them.
    let inputs = common::decode_inputs();
    for (name, bytes) in inputs
        .iter()
        // Skipped: a string whose text starts with U+FEFF once the engine stripped one BOM;
        // the encoder writes the text as is and the reader strips that BOM too, as the engine.
        // Also skipped: crafted duplicate keys, which reading JSON merges (first key's position,
        // last value) as the engine's str_to_var does.
        .filter(|(n, _)| {
            (n.starts_with("g4_") || n.starts_with("any_"))
                && !n.contains("bom")
                && !n.contains("duplicate_keys")
        })
    {
        let o = run(
            &["decode", "--allow-objects", "--format", "json", "-"],
            bytes,
        );
        if o.status.code() != Some(0) {
            continue;
        }
        let json = stdout(&o);
        if json.contains("{\"$ObjectId\":0}") || json.contains("{\"class\":\"\"") {
            continue;
        }
        let e = run(&["encode", "--from", "json", "-"], &o.stdout);
        assert_eq!(e.status.code(), Some(0), "{name}: {}", stderr(&e));
        let again = run(
            &["decode", "--allow-objects", "--format", "json", "-"],
            &e.stdout,
        );
        assert_eq!(stdout(&again), stdout(&o), "{name}");
    }
}

#[test]
fn decode_warns_when_text_would_not_give_back_the_bytes() {
    // [1, "a"]: the text reads back to the same bytes, no warning.
    let ok = [
        28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0,
    ];
    let o = run(&["decode", "-"], &ok);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    for (bytes, why) in [
        // -0.0 prints as 0.0
        (
            vec![3, 0, 0, 0, 0, 0, 0, 0x80],
            "a float that its text reads back as another value",
        ),
        // an int in 64 bits that fits 32: no form gives these bytes back
        (
            vec![2, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0],
            "the bytes are not the encoder's canonical form",
        ),
        // {"b": null, "a": null}: printed sorted
        (
            vec![
                27, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, b'b', 0, 0, 0, 0, 0, 0, 0, 4, 0,
                0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0,
            ],
            "dictionary keys are printed sorted",
        ),
    ] {
        let o = run(&["decode", "-"], &bytes);
        assert_eq!(o.status.code(), Some(0));
        let e = stderr(&o);
        assert!(
            e.contains(
                "warning: `gdvariant encode` of this text would not give back the same bytes"
            ) && e.contains(why),
            "{e}"
        );
        // JSON: no such warning.
        let o = run(&["decode", "--format", "json", "-"], &bytes);
        assert_eq!(stderr(&o), "");
    }
}

/// `--dialect auto` on every golden value of both engines: `decode`, `validate` and `stats`
/// give the same verdict line; it names the engine that wrote the value, or says the value
/// is the same in both or that it cannot tell; and `decode` prints what the named dialect
/// prints (Godot 4's reading when it cannot tell).
#[test]
fn dialect_auto_names_the_engine_of_every_golden_value() {
    let dir = tmpdir();
    let (mut recognised, mut undecided) = (0, 0);
    for (engine, truth, name) in [("godot4", "4", "Godot 4"), ("godot3", "3", "Godot 3")] {
        let (_, cases) = encode_cases(engine);
        for c in &cases {
            let p = dir.join(format!("auto_{engine}_{}.bin", c.name));
            std::fs::write(&p, &c.bytes).unwrap();
            let p = p.to_str().unwrap();
            let mut args = vec!["--dialect", "auto"];
            if c.objects {
                args.push("--allow-objects");
            }
            let line = |cmd: &str| {
                let mut a = vec![cmd];
                a.extend(&args);
                a.push(p);
                let o = run(&a, b"");
                no_panic(&o);
                assert_eq!(
                    o.status.code(),
                    Some(0),
                    "{engine} {} {cmd}: {}",
                    c.name,
                    stderr(&o)
                );
                (stderr(&o).lines().next().unwrap_or("").to_string(), o)
            };
            let (verdict, decoded) = line("decode");
            for cmd in ["validate", "stats"] {
                assert_eq!(line(cmd).0, verdict, "{engine} {} {cmd}", c.name);
            }
            let verdict = verdict
                .strip_prefix(&format!("{p}: dialect auto: "))
                .unwrap_or_else(|| panic!("{verdict}"))
                .to_string();
            let read_as = if verdict.starts_with(&format!("{name}: ")) {
                recognised += 1;
                truth
            } else {
                assert!(
                    verdict.starts_with("the same value in both dialects")
                        || verdict.starts_with("cannot tell: "),
                    "{engine} {}: {verdict}",
                    c.name
                );
                undecided += 1;
                "4"
            };
            let mut a = vec!["decode", "--dialect", read_as];
            if c.objects {
                a.push("--allow-objects");
            }
            a.push(p);
            let o = run(&a, b"");
            assert_eq!(
                stdout(&decoded),
                stdout(&o),
                "{engine} {}: {verdict}",
                c.name
            );
        }
    }
    assert_eq!((recognised, undecided), (289, 165));
}
