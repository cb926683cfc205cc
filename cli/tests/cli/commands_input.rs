//! Bad and unusual input: errors with offsets and short excerpts, hints at the option that
//! reads the input, no panic on malformed input, depth limits and the worker's stack, numbers
//! out of range, repeated keys, JSON's precision, and printing's memory.

use crate::common;

use std::path::PathBuf;

use common::hex;

use crate::commands::{encode_with, no_panic, run, stderr, stdout, tmpdir, write_tmp};

#[test]
fn encode_rejects_bad_input_with_offsets() {
    let o = run(&["encode", "-"], b"[1, 2");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("at offset 5 of the text input"),
        "{}",
        stderr(&o)
    );
    let o = run(&["encode", "--from", "json", "-"], b"{\"a\": tru}");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("at offset 6 of the JSON input"),
        "{}",
        stderr(&o)
    );
    let o = run(&["encode", "--from", "json", "-"], b"{\"$Vector9\": [1]}");
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["encode", "--dialect", "3", "-"], b"Vector4(1, 2, 3, 4)");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("a Vector4 cannot be written in the Godot 3 dialect at offset 0"),
        "{}",
        stderr(&o)
    );
    let o = run(&["encode", "-"], &[0xFF, 0xFE]);
    assert_eq!(o.status.code(), Some(1));
    // text and JSON agree, double precision is honoured
    let o = run(
        &["encode", "--precision", "double", "-"],
        b"Vector2(0.1, 2)",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(hex(&o.stdout), "050001009a9999999999b93f0000000000000040");
    let j = run(&["decode", "--format", "json", "-"], &o.stdout);
    assert_eq!(stdout(&j), "{\"$Vector2\":[0.1,2.0],\"$f64\":true}\n");
    let back = run(&["encode", "--from", "json", "-"], &j.stdout);
    assert_eq!(
        hex(&back.stdout),
        "050001009a9999999999b93f0000000000000040"
    );
}

#[test]
fn malformed_inputs_never_panic() {
    let inputs = common::decode_inputs();
    assert!(inputs.len() > 500);
    let dir = tmpdir().join("corpus");
    std::fs::create_dir_all(&dir).unwrap();
    let paths: Vec<(String, PathBuf)> = inputs
        .iter()
        .map(|(name, bytes)| {
            let p = dir.join(format!("{name}.bin"));
            std::fs::write(&p, bytes).unwrap();
            (name.clone(), p)
        })
        .collect();
    let chunks: Vec<Vec<(String, PathBuf)>> = paths.chunks(64).map(<[_]>::to_vec).collect();
    std::thread::scope(|s| {
        for chunk in &chunks {
            s.spawn(move || {
                for (name, p) in chunk {
                    let p = p.to_str().unwrap();
                    for d in ["4", "3"] {
                        let mut runs: Vec<Vec<&str>> = vec![
                            vec!["validate", "--dialect", d, p],
                            vec!["validate", "--dialect", d, "--allow-objects", p],
                            vec!["stats", "--dialect", d, "--allow-objects", p],
                            vec!["get", "--dialect", d, "--allow-objects", "0/a", p],
                            vec!["decode", "--dialect", d, "--framed", p],
                        ];
                        for f in ["text", "json", "tree"] {
                            runs.push(vec![
                                "decode",
                                "--dialect",
                                d,
                                "--allow-objects",
                                "--format",
                                f,
                                p,
                            ]);
                        }
                        for args in runs {
                            let o = run(&args, b"");
                            no_panic(&o);
                            let code = o.status.code();
                            assert!(
                                matches!(code, Some(0 | 1)),
                                "{name} {args:?}: {code:?} {}",
                                stderr(&o)
                            );
                            if code == Some(1) && args[0] != "get" {
                                let all = format!("{}{}", stdout(&o), stderr(&o));
                                assert!(
                                    all.contains(": error: ") && all.contains(" at offset "),
                                    "{name} {args:?}: {all}"
                                );
                            }
                        }
                    }
                }
            });
        }
    });
}

#[test]
fn printing_a_big_dictionary_allocates_less_than_its_encoded_size() {
    // 100 000 Nil: Nil pairs (8 bytes each). Keeping every (key, value) view allocated ~12x the
    // encoded size; only the keys' offsets are kept now (4 bytes a pair) plus the output buffer.
    let n = 100_000u32;
    let mut bytes = vec![27, 0, 0, 0];
    bytes.extend_from_slice(&n.to_le_bytes());
    bytes.resize(8 + 8 * n as usize, 0);
    let v = gdvariant::parse(&bytes).unwrap();
    let mut out = std::io::sink();
    let used = common::alloc::allocated_by(|| {
        gdvariant::text::to_writer(&v, &mut out).unwrap();
    });
    assert!(
        used < bytes.len(),
        "allocated {used} bytes for {} encoded",
        bytes.len()
    );
}

#[test]
fn parsers_stop_at_the_encoders_depth_limit_with_the_position() {
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for from in ["text", "json"] {
        // 1025 levels: the innermost (empty) Array is at depth 1024, the encoder's limit.
        let o = encode_with(&["encode", "--from", from, "-"], &nest(1025));
        assert_eq!(o.status.code(), Some(0), "{from}: {}", stderr(&o));
        let o = encode_with(&["encode", "--from", from, "-"], &nest(1026));
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("nested deeper than 1024 levels at offset 1025"),
            "{from}: {}",
            stderr(&o)
        );
    }
    // Tagged JSON takes more JSON levels per Variant level: typed Arrays 1025 deep still read.
    let typed = format!(
        "{}[]{}",
        "{\"$Array\": [".repeat(1024),
        "], \"$type\": \"Array\"}".repeat(1024)
    );
    let o = encode_with(&["encode", "--from", "json", "-"], &typed);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Far too deep: an error, not a stack overflow.
    for from in ["text", "json"] {
        let o = encode_with(&["encode", "--from", from, "-"], &nest(100_000));
        assert_eq!(o.status.code(), Some(1), "{from}");
    }
}

#[test]
fn json_double_precision_is_decided_from_the_parsed_values() {
    for json in [
        "{\"$Vector2\":[0.1,0.2],\"$f64\" : true}",
        "[1, {\"$Vector2\": [0.1, 0.2],\n  \"$f64\":\ttrue}]",
    ] {
        let o = encode_with(&["encode", "--from", "json", "-"], json);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let d = run(&["decode", "--format", "json", "-"], &o.stdout);
        assert!(
            stdout(&d).contains("{\"$Vector2\":[0.1,0.2],\"$f64\":true}"),
            "{json}: {}",
            stdout(&d)
        );
    }
    // The text of a key or a string is not a flag.
    let o = encode_with(
        &["encode", "--from", "json", "-"],
        "{\"k\": \"\\\"$f64\\\":true\", \"v\": {\"$Vector2\": [0.5, 1.0]}}",
    );
    let d = run(&["decode", "--format", "json", "-"], &o.stdout);
    assert_eq!(
        stdout(&d),
        "{\"k\":\"\\\"$f64\\\":true\",\"v\":{\"$Vector2\":[0.5,1.0]}}\n"
    );
}

#[test]
fn duplicate_keys_keep_the_first_position_and_the_last_value() {
    for (from, input) in [
        ("text", "{\"a\": 1, \"b\": 3, \"a\": 2}"),
        ("json", "{\"a\": 1, \"b\": 3, \"a\": 2}"),
        (
            "json",
            "{\"$Dictionary\": [[\"a\", 1], [\"b\", 3], [\"a\", 2]]}",
        ),
    ] {
        let o = encode_with(&["encode", "--from", from, "-"], input);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let d = run(&["decode", "--format", "json", "-"], &o.stdout);
        assert_eq!(stdout(&d), "{\"a\":2,\"b\":3}\n", "{from}: {input}");
    }
    // Keys equal as values merge whatever their spelling.
    let o = encode_with(
        &["encode", "-"],
        "{Vector2i(1, 2): 1, Vector2i(1,2): 2, 1.0: 3, 1: 4}",
    );
    let d = run(&["decode", "-"], &o.stdout);
    assert_eq!(stdout(&d), "{\n1: 4,\n1.0: 3,\nVector2i(1, 2): 2\n}\n");
}

#[test]
fn out_of_range_integers_in_text_are_errors_with_the_position() {
    for (input, at, what) in [
        (
            "Vector2i(3000000000, 0)",
            9,
            "3000000000 is out of range for a 32-bit component",
        ),
        (
            "Rect2i(0, 0, 0, -2147483649)",
            16,
            "-2147483649 is out of range",
        ),
        (
            "PackedByteArray(1, 256)",
            19,
            "256 is out of range for a byte",
        ),
        ("PackedByteArray(-1)", 16, "-1 is out of range for a byte"),
        (
            "PackedInt32Array(2147483648)",
            17,
            "2147483648 is out of range",
        ),
    ] {
        let o = encode_with(&["encode", "-"], input);
        assert_eq!(o.status.code(), Some(1), "{input}");
        let e = stderr(&o);
        assert!(e.contains(what), "{input}: {e}");
        assert!(e.contains(&format!("at offset {at} ")), "{input}: {e}");
    }
    let o = encode_with(
        &["encode", "-"],
        "[Vector2i(2147483647, -2147483648), PackedByteArray(0, 255)]",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Dictionaries nested `levels` deep (the innermost empty), through their values or their keys.
fn nested_dicts(levels: usize, through_keys: bool) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 1..levels {
        b.extend_from_slice(&[27, 0, 0, 0, 1, 0, 0, 0]);
        if !through_keys {
            b.extend_from_slice(&[4, 0, 0, 0, 1, 0, 0, 0, b'k', 0, 0, 0]);
        }
    }
    b.extend_from_slice(&[27, 0, 0, 0, 0, 0, 0, 0]);
    for _ in 1..levels {
        if through_keys {
            b.extend_from_slice(&[0, 0, 0, 0]);
        }
    }
    b
}

#[test]
fn the_worker_stack_holds_the_deepest_accepted_values() {
    // The costliest shapes per level measured: Dictionaries through values (text, JSON) and
    // through keys (the outline prints each key's text).
    for keys in [false, true] {
        let bytes = nested_dicts(1025, keys);
        for format in ["text", "json", "tree"] {
            let o = run(&["decode", "--format", format, "-"], &bytes);
            no_panic(&o);
            assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        }
        let o = run(&["stats", "-"], &bytes);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        // one level more is refused, not overflowed
        let o = run(&["decode", "-"], &nested_dicts(1026, keys));
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    }
    // stats with the largest --max-depth
    let mut deep = Vec::new();
    for _ in 0..16384 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    deep.extend_from_slice(&[28, 0, 0, 0, 0, 0, 0, 0]);
    let o = run(&["stats", "--max-depth", "16384", "-"], &deep);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("16384"), "{}", stdout(&o));
}

#[test]
fn errors_hint_at_the_option_that_reads_the_input() {
    // Two framed ints, little-endian.
    let mut le = Vec::new();
    for i in [5u8, 6] {
        le.extend_from_slice(&[8, 0, 0, 0, 2, 0, 0, 0, i, 0, 0, 0]);
    }
    let p = write_tmp("hint_le.bin", &le);
    let p = p.to_str().unwrap();
    for cmd in ["decode", "validate", "stats"] {
        let o = run(&[cmd, p], b"");
        assert!(
            stderr(&o).contains(
                "hint: the input looks like a stream of length-prefixed values: try --framed"
            ),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let o = run(&["decode", "--framed", p], b"");
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "5\n6\n"));
    // Big-endian prefixes read as little-endian.
    let mut be = Vec::new();
    for i in [5u8, 6] {
        be.extend_from_slice(&[0, 0, 0, 8, 2, 0, 0, 0, i, 0, 0, 0]);
    }
    let p = write_tmp("hint_be.bin", &be);
    let p = p.to_str().unwrap();
    let o = run(&["decode", "--framed", p], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("hint: the length prefixes read as big-endian: try --framed=be"),
        "{}",
        stderr(&o)
    );
    let o = run(&["validate", p], b"");
    assert!(stderr(&o).contains("try --framed=be"), "{}", stderr(&o));
    // Godot 3 bytes read as Godot 4: Vector3 (id 7) is a truncated Rect2 in Godot 4.
    let v3 = write_tmp(
        "hint_g3.bin",
        &[7, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64],
    );
    let o = run(&["decode", v3.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("hint: the input is valid in the Godot 3 dialect: try --dialect 3"),
        "{}",
        stderr(&o)
    );
    // A full object without --allow-objects.
    let obj = [
        24u8, 0, 0, 0, 4, 0, 0, 0, b'N', b'o', b'd', b'e', 0, 0, 0, 0,
    ];
    let o = run(&["decode", "-"], &obj);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("-: error: full objects are not allowed")
            || stderr(&o).contains("-: error: "),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("hint: the input holds a full object: add --allow-objects to read it"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        stdout(&run(&["decode", "--allow-objects", "-"], &obj)),
        "Object(Node)\n\n"
    );
    // No hint when nothing else reads it.
    let o = run(&["decode", "-"], &[200, 0, 0, 0]);
    assert!(!stderr(&o).contains("hint:"), "{}", stderr(&o));
}

#[test]
fn error_messages_quote_short_excerpts() {
    let huge = "9".repeat(1_000_000);
    for (from, input) in [
        ("text", format!("Vector2({huge}.5.5, 1)")),
        ("text", format!("Frobnicate{huge}(1)")),
        ("json", format!("{{\"${huge}\": 1}}")),
    ] {
        let o = run(&["encode", "--from", from, "-"], input.as_bytes());
        assert_eq!(o.status.code(), Some(1), "{from}");
        let e = stderr(&o);
        assert!(
            e.len() < 300,
            "{from}: {} bytes: {}",
            e.len(),
            &e[..300.min(e.len())]
        );
        assert!(e.contains("… (1000"), "{from}: {e}");
    }
}
