//! The `gdvariant` binary, run as a process: every subcommand, its options, exit codes and
//! usage; the helpers that run it, shared with `commands_golden` and `commands_input`.

use crate::common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_gdvariant");

pub(crate) fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gdvariant");
    // A command may stop reading early (a bound, an error) and close its input: the rest of the
    // input is then refused with a broken pipe, which is not the test's failure.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("wait")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

/// Standard output with every run of whitespace made one space (help text is wrapped).
pub(crate) fn flat_stdout(o: &Output) -> String {
    stdout(o).split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn no_panic(o: &Output) {
    let e = stderr(o);
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE"),
        "panic: {e}"
    );
}

pub(crate) fn tmpdir() -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn write_tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let p = tmpdir().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub(crate) fn example() -> String {
    common::repo_root()
        .join("examples/game_state.bin")
        .to_string_lossy()
        .into_owned()
}

pub(crate) fn dialect_arg(engine: &str) -> &'static str {
    if engine == "godot4" {
        "4"
    } else {
        "3"
    }
}

pub(crate) fn encode_with(args: &[&str], input: &str) -> Output {
    let o = run(args, input.as_bytes());
    no_panic(&o);
    o
}

#[test]
fn readme_first_command_prints_the_outline() {
    let o = run(&["decode", "--format", "tree", &example()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "/ Dictionary @0 1432 B, 2 entries");
    assert_eq!(lines[1], "  /tick int @20 8 B = 123456");
    assert_eq!(lines[2], "  /entities Array @44 1388 B, 8 elements");
    assert!(out.contains("      /entities/3/pos Vector3 @640 16 B = Vector3(3, 1.5, -3)\n"));
    assert!(out.contains(
        "      /entities/7/tags PackedStringArray @1404 28 B, 2 elements = PackedStringArray(\"npc\", \"team_3\")\n"
    ));
    // 8 elements: with the default 8 + 2 shown, nothing is summarised.
    assert!(!out.contains('…'));
}

#[test]
fn tree_summarises_long_containers() {
    // [0, 1, ..., 99] as Godot 4 bytes.
    let mut b = vec![28, 0, 0, 0, 100, 0, 0, 0];
    for i in 0..100u32 {
        b.extend_from_slice(&[2, 0, 0, 0]);
        b.extend_from_slice(&i.to_le_bytes());
    }
    let p = write_tmp("long_array.bin", &b);
    let o = run(&["decode", "--format", "tree", p.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1 + 8 + 1 + 2, "{out}");
    assert!(out.contains("  /7 int @64 8 B = 7\n"), "{out}");
    assert!(
        out.contains("  … 90 more elements @72..@792 (720 B)\n"),
        "{out}"
    );
    assert!(out.ends_with("  /99 int @800 8 B = 99\n"), "{out}");
}

#[test]
fn decode_json_is_valid_typed_json() {
    let o = run(&["decode", "--format", "json", &example()], b"");
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("{\"tick\":123456,\"entities\":[{\"id\":0,\"name\":\"entity_0\",\"pos\":{\"$Vector3\":[0.0,0.0,0.0]},\"vel\":{\"$Vector3\":[0.25,0.0,-1.5]},\"hp\":100.0,\"tags\":{\"$PackedStringArray\":[\"player\",\"team_0\"]}}"), "{out}");
    assert!(out.ends_with("}\n") && out.lines().count() == 1);
    // jq (when installed) reads it.
    if let Ok(mut jq) = Command::new("jq")
        .args(["-r", ".entities[3].name"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        jq.stdin.take().unwrap().write_all(out.as_bytes()).unwrap();
        let r = jq.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&r.stdout), "entity_3\n");
    }
}

#[test]
fn get_prints_the_value_at_a_path() {
    let o = run(&["get", "entities/3/pos", &example()], b"");
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(0), "Vector3(3, 1.5, -3)\n")
    );
    let o = run(
        &["get", "--format", "json", "entities/7/tags", &example()],
        b"",
    );
    assert_eq!(
        stdout(&o),
        "{\"$PackedStringArray\":[\"npc\",\"team_3\"]}\n"
    );
    let o = run(&["get", "tick", &example()], b"");
    assert_eq!(stdout(&o), "123456\n");
    let o = run(&["get", "", &example()], b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("{\n\"entities\": [{\n"));
    let o = run(&["get", "entities/8/pos", &example()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("path 'entities/8/pos' not found"),
        "{}",
        stderr(&o)
    );
    let o = run(&["get", "entities"], b"");
    assert_eq!(o.status.code(), Some(2), "PATH and FILE are needed");
}

#[test]
fn stats_counts_types_and_largest_subtrees() {
    let o = run(&["stats", &example()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("dialect: Godot 4\n"), "{out}");
    assert!(
        out.contains("total: 1432 bytes, 109 values, max depth 3\n"),
        "{out}"
    );
    assert!(
        out.contains("\nString                         58            732   51.1%\n"),
        "{out}"
    );
    assert!(
        out.contains("\nVector3                        16            256   17.9%\n"),
        "{out}"
    );
    assert!(
        out.contains("\nDictionary                      9             72    5.0%\n"),
        "{out}"
    );
    assert!(
        out.contains("          1388 B  @44           Array                 8 items  /entities\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "           176 B  @52           Dictionary            6 items  /entities/0\n"
        ),
        "{out}"
    );
    // the bytes column adds up to the file size
    let sum: u64 = out
        .lines()
        .skip_while(|l| !l.starts_with("type"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1432);
}

#[test]
fn validate_exit_codes_and_offsets() {
    let ok = run(&["validate", &example()], b"");
    assert_eq!((ok.status.code(), stdout(&ok).as_str()), (Some(0), ""));
    let bytes = std::fs::read(example()).unwrap();
    let trunc = write_tmp("trunc.bin", &bytes[..100]);
    let mut bad_utf8 = bytes.clone();
    bad_utf8[101] = 0xFF; // inside "entity_0" (its bytes start at 100)
    let bad_utf8 = write_tmp("bad_utf8.bin", &bad_utf8);
    let empty = write_tmp("empty.bin", b"");
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(&[0, 0, 0, 0]);
    let trailing = write_tmp("trailing.bin", &trailing);
    let (t, u, e, tr) = (
        trunc.to_str().unwrap(),
        bad_utf8.to_str().unwrap(),
        empty.to_str().unwrap(),
        trailing.to_str().unwrap(),
    );
    let o = run(&["validate", &example(), t, u, e, tr], b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!(
            "{t}: error: unexpected end of input at offset 100\n\
             {u}: error: invalid UTF-8 in string at offset 101\n\
             {e}: error: unexpected end of input at offset 0\n\
             {tr}: error: 4 trailing bytes after the value at offset 1432\n"
        )
    );
    // decode reports the same way (on stderr) and prints nothing
    let o = run(&["decode", t], b"");
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(1), ""));
    assert_eq!(
        stderr(&o),
        format!("{t}: error: unexpected end of input at offset 100\n")
    );
    // a missing file is invalid input too
    let o = run(&["validate", "/nonexistent/x.bin"], b"");
    assert_eq!(o.status.code(), Some(1));
    // --max-depth
    let nested = [
        28u8, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0,
    ];
    let n = write_tmp("nested.bin", &nested);
    let n = n.to_str().unwrap();
    assert_eq!(
        run(&["validate", "--max-depth", "2", n], b"").status.code(),
        Some(0)
    );
    let o = run(&["validate", "--max-depth", "1", n], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("at offset 16"), "{}", stdout(&o));
    // objects
    let obj = write_tmp("obj.bin", &[24, 0, 0, 0, 0, 0, 0, 0]);
    let obj = obj.to_str().unwrap();
    assert_eq!(run(&["validate", obj], b"").status.code(), Some(1));
    assert_eq!(
        run(&["validate", "--allow-objects", obj], b"")
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn usage_errors_exit_2() {
    let cases: &[&[&str]] = &[
        &[],
        &["frobnicate"],
        &["decode", "--format", "xml"],
        &["decode", "--format"],
        &["decode", "--dialect", "5"],
        &["decode", "--bogus"],
        &["decode", "a", "b"],
        &["encode", "--dialect", "auto"],
        &["encode", "--precision", "half"],
        &["validate"],
        &["validate", "--max-depth", "deep", "x"],
        &["validate", "--format", "json", "x"],
        &["stats"],
        &["stats", "a", "b"],
        &["get", "path"],
        &["get", "--framed", "be", "p", "f"],
        &["decode", "--allow-objects=yes"],
        &["decode", "--framed=middle"],
        &["completions"],
        &["completions", "tcsh"],
    ];
    for args in cases {
        let o = run(args, b"");
        no_panic(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.starts_with("error: ") || e.contains("Usage: gdvariant [OPTIONS] <COMMAND>"),
            "{args:?}: {e}"
        );
    }
    // Help is not an error.
    for args in [&["--help"][..], &["help"], &["-h"]] {
        let o = run(args, b"");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let out = stdout(&o);
        assert!(
            out.contains("Usage: gdvariant [OPTIONS] <COMMAND>"),
            "{args:?}: {out}"
        );
        for cmd in [
            "decode",
            "encode",
            "validate",
            "stats",
            "get",
            "completions",
        ] {
            assert!(out.contains(&format!("\n  {cmd} ")), "{cmd}: {out}");
        }
        assert!(out.contains("Exit status: 0 success, 1 invalid input, 2 usage error."));
    }
    let o = run(&["--version"], b"");
    assert_eq!(
        (o.status.code(), stdout(&o)),
        (
            Some(0),
            format!("gdvariant {}\n", env!("CARGO_PKG_VERSION"))
        )
    );
}

#[test]
fn every_subcommand_has_help() {
    for cmd in [
        "decode",
        "encode",
        "validate",
        "stats",
        "get",
        "completions",
    ] {
        for args in [vec![cmd, "--help"], vec!["help", cmd]] {
            let o = run(&args, b"");
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            let out = stdout(&o);
            assert!(
                out.contains(&format!("Usage: gdvariant {cmd} ")),
                "{args:?}: {out}"
            );
            assert_eq!(stderr(&o), "");
        }
    }
    // The text form's limits are stated where it is chosen.
    let o = run(&["decode", "--help"], b"");
    let out = flat_stdout(&o);
    assert!(out.contains("lists dictionary keys sorted"), "{out}");
    assert!(
        out.contains("For lossless round trips use --format json."),
        "{out}"
    );
    assert!(out.contains("- json: Lossless typed JSON"), "{out}");
    let o = run(&["encode", "--help"], b"");
    assert!(flat_stdout(&o).contains("JSON from `decode --format json` gives back the exact bytes"));
    let o = run(&["get", "--help"], b"");
    assert!(flat_stdout(&o).contains("With --framed the first segment is the frame number"));
}

#[test]
fn typos_get_suggestions() {
    for (args, tip) in [
        (
            &["decod", "x"][..],
            "similar subcommands exist: 'encode', 'decode'",
        ),
        (
            &["decode", "--formt", "json"],
            "a similar argument exists: '--format'",
        ),
        (
            &["decode", "--format", "jsn"],
            "[possible values: text, json, tree]",
        ),
        (
            &["stats", "--max-dept", "3", "x"],
            "a similar argument exists: '--max-depth'",
        ),
    ] {
        let o = run(args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(tip), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn shell_completions() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef gdvariant"),
        ("fish", "complete -c gdvariant"),
    ] {
        let o = run(&["completions", shell], b"");
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains(marker), "{shell}: {out}");
        for word in ["decode", "validate", "allow-objects", "max-depth"] {
            assert!(out.contains(word), "{shell}: {word}");
        }
    }
}

#[test]
fn stdin_and_dialect_auto() {
    let bytes = std::fs::read(example()).unwrap();
    let o = run(&["decode", "--format", "json", "-"], &bytes);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("{\"tick\":123456,"));
    // an int reads the same in both dialects
    let o = run(&["decode", "--dialect", "auto"], &[2, 0, 0, 0, 7, 0, 0, 0]);
    assert_eq!(stdout(&o), "7\n");
    assert_eq!(
        stderr(&o),
        "-: dialect auto: the same value in both dialects; reading as Godot 4\n"
    );
    // Godot 3 Vector3 (id 7) is a truncated Rect2 in Godot 4
    let v3 = [7u8, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64];
    let o = run(&["decode", "--dialect", "auto"], &v3);
    assert_eq!(stdout(&o), "Vector3( 1, 2, 3 )\n");
    assert_eq!(
        stderr(&o),
        "-: dialect auto: Godot 3: as Godot 4: unexpected end of input at offset 4\n"
    );
    // Four floats: a Godot 4 Plane or a Godot 3 Color, equally plausible.
    let mut four = vec![14u8, 0, 0, 0];
    for x in [0.1f32, 0.2, 0.3, 0.4] {
        four.extend_from_slice(&x.to_le_bytes());
    }
    let o = run(&["decode", "--dialect", "auto"], &four);
    assert_eq!(stdout(&o), "Plane(0.1, 0.2, 0.3, 0.4)\n");
    assert_eq!(
        stderr(&o),
        "-: dialect auto: cannot tell: both dialects read it (a Plane in Godot 4, a Color in \
         Godot 3, at offset 0); reading as Godot 4\n\
         -: hint: --dialect 3 reads it as Godot 3, --dialect 4 as Godot 4\n"
    );
    let o = run(&["decode", "--dialect", "auto"], &[200, 0, 0, 0]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("valid in neither dialect"));
    assert!(
        stderr(&o).contains("-: error: unknown type id 200 at offset 0"),
        "{}",
        stderr(&o)
    );
    let p = write_tmp("v3.bin", &v3);
    let o = run(&["validate", "--dialect", "auto", p.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn framed_streams_both_endiannesses() {
    let text = "1\n\"two\"\n{\n\"three\": Vector2(3, 3)\n}\n";
    for (flag, be) in [
        ("--framed", false),
        ("--framed=le", false),
        ("--framed=be", true),
    ] {
        let o = run(&["encode", flag, "-"], text.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let b = o.stdout;
        let len0 = if be {
            u32::from_be_bytes(b[0..4].try_into().unwrap())
        } else {
            u32::from_le_bytes(b[0..4].try_into().unwrap())
        };
        assert_eq!(len0, 8);
        assert_eq!(&b[4..12], &[2, 0, 0, 0, 1, 0, 0, 0]);
        let o = run(&["decode", flag, "-"], &b);
        assert_eq!(stdout(&o), text, "{}", stderr(&o));
        let o = run(&["decode", flag, "--format", "json", "-"], &b);
        assert_eq!(
            stdout(&o),
            "1\n\"two\"\n{\"three\":{\"$Vector2\":[3.0,3.0]}}\n"
        );
        let p = write_tmp("framed.bin", &b);
        let p = p.to_str().unwrap();
        assert_eq!(run(&["validate", flag, p], b"").status.code(), Some(0));
        let o = run(&["stats", flag, p], b"");
        assert!(
            stdout(&o).contains("total: 56 bytes, 5 values, max depth 1\n"),
            "{}",
            stdout(&o)
        );
        // truncated stream
        let t = write_tmp("framed_trunc.bin", &b[..b.len() - 3]);
        let o = run(&["validate", flag, t.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(1));
        assert!(stdout(&o).contains("at offset 28"), "{}", stdout(&o));
    }
    // several values without --framed is an error
    let o = run(&["encode", "-"], text.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("expected exactly one value, found 3"));
}

#[test]
fn usage_says_where_validate_reports_and_lists_stats_max_depth() {
    let o = run(&["--help"], b"");
    let u = flat_stdout(&o);
    assert!(
        u.contains("one line per bad file, on standard output"),
        "{u}"
    );
    let o = run(&["validate", "--help"], b"");
    let u = flat_stdout(&o);
    assert!(u.contains("(the report: validate *.bin > bad.txt)"), "{u}");
    let o = run(&["stats", "--help"], b"");
    let u = flat_stdout(&o);
    assert!(u.contains("--max-depth <N>"), "{u}");
    assert!(u.contains("at most 16384"), "{u}");
    // and it does report there
    let bad = write_tmp("usage-bad.bin", &[2, 0, 0]);
    let o = run(&["validate", bad.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error:"), "{}", stdout(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn get_indexes_packed_arrays_and_framed_streams() {
    let o = run(&["get", "entities/7/tags/1", &example()], b"");
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(0), "\"team_3\"\n")
    );
    let o = run(
        &["get", "--format", "json", "entities/7/tags/0", &example()],
        b"",
    );
    assert_eq!(stdout(&o), "\"npc\"\n");
    let o = run(&["get", "entities/7/tags/2", &example()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("path 'entities/7/tags/2' not found"));
    // Packed numbers and vectors.
    let o = encode_with(
        &["encode", "-"],
        "{\"f\": PackedFloat32Array(0.5, -2), \"v\": PackedVector3Array(1, 2, 3, 4, 5, 6), \"b\": PackedByteArray(7, 255)}",
    );
    for (path, want) in [
        ("f/1", "-2.0\n"),
        ("v/1", "Vector3(4, 5, 6)\n"),
        ("b/1", "255\n"),
    ] {
        let g = run(&["get", path, "-"], &o.stdout);
        assert_eq!(stdout(&g), want, "{path}: {}", stderr(&g));
    }
    // Frame N, then a path.
    let text = "1\n\"two\"\n{\n\"three\": [Vector2(3, 3), PackedInt32Array(4, 5)]\n}\n";
    for (flag, want_tree) in [("--framed", "#2"), ("--framed=be", "#2")] {
        let o = run(&["encode", flag, "-"], text.as_bytes());
        let b = o.stdout;
        for (path, want) in [
            ("0", "1\n"),
            ("1", "\"two\"\n"),
            ("2/three/0", "Vector2(3, 3)\n"),
            ("#2/three/1/1", "5\n"),
        ] {
            let g = run(&["get", flag, path, "-"], &b);
            assert_eq!(stdout(&g), want, "{flag} {path}: {}", stderr(&g));
        }
        let g = run(&["get", flag, "3", "-"], &b);
        assert_eq!(g.status.code(), Some(1));
        // The outline of a stream: absolute offsets, paths from the frame.
        let t = run(&["decode", flag, "--format", "tree", "-"], &b);
        let out = stdout(&t);
        assert!(out.contains("#0 int @4 8 B = 1\n"), "{out}");
        assert!(out.contains("#1 String @16 12 B = \"two\"\n"), "{out}");
        assert!(
            out.contains(&format!("{want_tree} Dictionary @32 ")),
            "{out}"
        );
        assert!(out.contains("  #2/three Array @"), "{out}");
        // get --format tree keeps the absolute offsets too.
        let g = run(&["get", flag, "--format", "tree", "2/three/0", "-"], &b);
        assert!(stdout(&g).starts_with("/ Vector2 @"), "{}", stdout(&g));
        let s = run(&["stats", flag, "-"], &b);
        assert!(stdout(&s).contains("#2/three"), "{}", stdout(&s));
    }
}

#[test]
fn tree_shows_a_signals_name() {
    // Godot 4: Signal "pressed" of object 77, in an Array.
    let mut b = vec![28, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 7, 0, 0, 0];
    b.extend_from_slice(b"pressed\0");
    b.extend_from_slice(&77u64.to_le_bytes());
    let o = run(&["decode", "--format", "tree", "-"], &b);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "/ Array @0 32 B, 1 elements\n  /0 Signal @8 24 B, name \"pressed\", object id 77\n"
    );
}

#[test]
fn tree_and_stats_shorten_deep_paths_and_long_keys() {
    // 1000 Dictionaries, each the value of a 1000-byte key: the old outline printed (and kept)
    // every full path, 500 MB for this 1 MB input.
    let key = "k".repeat(1000);
    let mut b = Vec::new();
    for _ in 0..1000 {
        b.extend_from_slice(&[27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0]);
        b.extend_from_slice(&1000u32.to_le_bytes());
        b.extend_from_slice(key.as_bytes());
    }
    b.extend_from_slice(&[27, 0, 0, 0, 0, 0, 0, 0]);
    let o = run(&["decode", "--format", "tree", "-"], &b);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1001);
    let k40 = format!("{}…", "k".repeat(40));
    let last = out.lines().last().unwrap();
    assert_eq!(
        last.trim_start(),
        format!(
            "/{k40}/{k40}/…/{k40}/{k40}/{k40}/{k40}/{k40} Dictionary @{} 8 B, 0 entries",
            b.len() - 8
        )
    );
    // Output grows with the indentation only: about 2 KB a line at the deepest.
    assert!(out.len() < 2_600_000, "{}", out.len());
    let o = run(&["stats", "-"], &b);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("max depth 1000"), "{out}");
    assert!(out.contains(&format!("  /{k40}\n")), "{out}");
    assert!(out.lines().all(|l| l.len() < 600), "{out}");
}

#[test]
fn precision_chooses_how_64_bit_math_reads() {
    // Vector2(16777217, 0.5) with f64 components, as a precision=double build writes it: a
    // standard engine narrows 16777217 to the f32 16777216.
    let mut bytes = vec![5, 0, 1, 0];
    bytes.extend(16_777_217f64.to_le_bytes());
    bytes.extend(0.5f64.to_le_bytes());
    for (args, want) in [
        (&["decode", "-"][..], "Vector2(16777216, 0.5)\n"),
        (
            &["decode", "--precision", "single", "-"][..],
            "Vector2(16777216, 0.5)\n",
        ),
        (
            &["decode", "--precision", "double", "-"][..],
            "Vector2(16777217, 0.5)\n",
        ),
    ] {
        let o = run(args, &bytes);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), want, "{args:?}");
    }
}

/// Nothing but the report reaches a pipe: no progress bar, even for a large input (a bar
/// shows only on a terminal, for inputs of 64 MiB and more).
#[test]
fn pipes_get_no_progress_bar() {
    // A 64 MiB PackedByteArray (Godot 4).
    let n = 64 << 20;
    let mut b = vec![29, 0, 0, 0];
    b.extend_from_slice(&(n as u32).to_le_bytes());
    b.resize(8 + n, 7);
    let p = write_tmp("big_progress.bin", &b);
    let p = p.to_str().unwrap();
    for args in [
        &["validate", "--dialect", "auto", p][..],
        &["stats", p],
        &["decode", "--format", "tree", p],
    ] {
        let o = run(args, b"");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        let want = if args[1] == "--dialect" {
            format!("{p}: dialect auto: Godot 4: as Godot 3: unknown type id 29 at offset 0\n")
        } else {
            String::new()
        };
        assert_eq!(e, want, "{args:?}");
    }
    // On a terminal (a pseudo-terminal made by script(1), where available) the bar is drawn.
    let script = Command::new("script").arg("--version").output();
    if script.is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        eprintln!("script(1) not found: the terminal half of this test is skipped");
        return;
    }
    let o = Command::new("script")
        .args(["-qec", &format!("{BIN} validate {p}"), "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("validating"), "{shown:?}");
    assert!(shown.contains("64.00 MiB"), "{shown:?}");
}

/// Inputs that are not regular files are read up to `--max-stream` bytes (256 MiB unless set),
/// then refused with a message: `/dev/zero` used to be read until memory ran out.
#[test]
fn streams_are_read_with_a_bound() {
    for cmd in ["validate", "decode", "stats"] {
        let out = run(&[cmd, "--max-stream", "1M", "/dev/zero"], b"");
        // `validate` reports each file on standard output, the others on standard error.
        let err = String::from_utf8_lossy(&out.stderr) + String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert!(
            err.contains("not a regular file and holds more than 1048576 bytes")
                && err.contains("--max-stream"),
            "{cmd}: {err}"
        );
    }
    // Standard input: the same bound; at or under it the value is read as before.
    let int7 = [2, 0, 0, 0, 7, 0, 0, 0];
    let mut long = int7.to_vec();
    long.resize(2048, 0);
    let out = run(&["decode", "--max-stream", "1K", "-"], &long);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("standard input is not a regular file"),
        "{err}"
    );
    let out = run(&["decode", "--max-stream", "8", "-"], &int7);
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(0), &b"7\n"[..])
    );
    // Sizes: digits with an optional K, M or G; anything else is a usage error.
    let out = run(&["decode", "--max-stream", "12X", "-"], &int7);
    assert_eq!(out.status.code(), Some(2));
}
