//! `gdvariant multiplayer decode` (alias `mp`) run as a process over the recorded sessions: every
//! input form (length-prefixed, one packet per file, the recorders' logs), text and JSON lines,
//! names from a schema file, and bad input.

use crate::fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_gdvariant");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run gdvariant")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn log4() -> String {
    fixture::data_dir().join("godot4.tsv").display().to_string()
}

const SCHEMA: &str = "\
# the recorder's project (tests/godot/mp_record4.gd)
rpc Game bools bytes_opt chan3 ints no_args one ordered two unrel native native_m
rpc Game/Nodes/* one two ints bools bytes_opt no_args unrel ordered chan3
rpc Game/Wide m299 m000
sync Game/Player/Sync .:score=always .:label=change
spawned Game/Spawner 0 0 .:position=always+spawn .:speed=change+spawn .:hp=change .:tag=always .:flag=never+spawn .:big=change
";

#[test]
fn log_with_schema_names_methods_and_properties() {
    let schema = tmp("schema.txt");
    std::fs::write(&schema, SCHEMA).unwrap();
    let o = run(&[
        "mp",
        "decode",
        "--log",
        "--schema",
        schema.to_str().unwrap(),
        &log4(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    let fx = fixture::load("godot4.tsv");
    let heads = text.lines().filter(|l| l.starts_with('#')).count();
    assert_eq!(heads, fx.pkts.len());
    for want in [
        "#1 1->2 AUTH data PackedByteArray(104, 101, 108, 108, 111)\n",
        "#11 1->2 SIMPLIFY_PATH id 1 path \"Game\" checksum \"4d1e1ec916cd7d74aaaa1f06a1ade768\" checksum ok true\n",
        "#12 1->2 REMOTE_CALL path \"Game\" method 4 name \"no_args\" (node id 32 bits, byte-only)\n",
        "#14 1->2 REMOTE_CALL node 1 path \"Game\" method 5 name \"one\"\n  arg 0: null\n",
        "SPAWN spawner 263 spawner path \"Game/Spawner\" scene 0 net id 1 name \"Bullet\" sync ids [2]\n  state .:position: Vector2(1.5, -2)\n  state .:speed: 7\n  state .:flag: true\n",
        "DELTA\n  entry net id 2 synchronizer \"Bullet #0\" mask 0b101\n    value .:speed: 300\n    value .:big: 1099511627776\n",
        "SYNC time 11\n  entry net id 0x80000108 synchronizer \"Game/Player/Sync\"\n    value .:score: 70000\n",
        "RELAY peer 3\n  REMOTE_CALL path \"Game\" method 5 name \"one\" (node id 32 bits)\n    arg 0: \"A to B\"\n",
        // The schema lists 2 of Wide's 300 methods: the checksum says so, m299 (id 299) has no
        // name, m000 (id 0) is named.
        "SIMPLIFY_PATH id 2 path \"Game/Wide\" checksum \"b586ab66d66e6e1449d361fca794c613\" checksum ok false\n",
        "REMOTE_CALL path \"Game/Wide\" method 299 (node id 32 bits, method id 16 bits)\n  arg 0: 299\n",
        "REMOTE_CALL node 2 path \"Game/Wide\" method 0 name \"m000\"\n  arg 0: 0\n",
    ] {
        assert!(text.contains(want), "missing {want:?}");
    }
    // The alias and the full name are the same command.
    let o2 = run(&[
        "multiplayer",
        "decode",
        "--log",
        "--schema",
        schema.to_str().unwrap(),
        &log4(),
    ]);
    assert_eq!(o2.stdout, o.stdout);
}

#[test]
fn json_lines_are_json_with_typed_values() {
    let o = run(&["mp", "decode", "--log", "--format", "json", &log4()]);
    assert!(o.status.success());
    let text = stdout(&o);
    let fx = fixture::load("godot4.tsv");
    assert_eq!(text.lines().count(), fx.pkts.len());
    for line in text.lines() {
        // gdvariant's JSON reader takes any JSON (objects as Dictionaries).
        let v = gdvariant::json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let d = v.as_dictionary().unwrap();
        assert!(d.get_str("command").is_some() && d.get_str("index").is_some());
    }
    assert!(text.contains(
        "{\"index\":127,\"from\":1,\"to\":2,\"command\":\"SPAWN\",\"spawner\":263,\"spawner_path\":\"Game/Spawner\",\"scene\":0,\"net_id\":1,\"name\":\"Bullet\",\"sync_ids\":[2],\"state\":[{\"$Vector2\":[1.5,-2.0]},7,true]}"
    ));
}

/// The server's packets of the Godot 4 session, each behind a u32 length prefix.
fn prefixed(endian_be: bool) -> (Vec<u8>, usize) {
    let fx = fixture::load("godot4.tsv");
    let mut out = Vec::new();
    let mut n = 0;
    for p in fx.pkts.iter().filter(|p| p.from == 1 && p.to == 2) {
        let len = p.bytes.len() as u32;
        out.extend_from_slice(&if endian_be {
            len.to_be_bytes()
        } else {
            len.to_le_bytes()
        });
        out.extend_from_slice(&p.bytes);
        n += 1;
    }
    (out, n)
}

#[test]
fn prefixed_file_and_single_packets() {
    let (bytes, n) = prefixed(false);
    let file = tmp("server_to_a.bin");
    std::fs::write(&file, &bytes).unwrap();
    let o = run(&["mp", "decode", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), n);
    // Paths are learnt from the file's SIMPLIFY_PATH packets (the sender is peer 1).
    assert!(text.contains("REMOTE_CALL node 1 path \"Game\" method 5\n  arg 0: null\n"));
    let (be, _) = prefixed(true);
    let file_be = tmp("server_to_a_be.bin");
    std::fs::write(&file_be, &be).unwrap();
    let o = run(&["mp", "decode", "--endian", "be", file_be.to_str().unwrap()]);
    assert_eq!(stdout(&o), text);
    // One packet per file.
    let one = tmp("one.bin");
    std::fs::write(&one, fixture::unhex("0001050102ff")).unwrap();
    let o = run(&["mp", "decode", "--packet", one.to_str().unwrap()]);
    assert_eq!(stdout(&o), "#0 REMOTE_CALL node 1 method 5\n  arg 0: -1\n");
    // A Godot 3 packet.
    let g3 = tmp("g3.bin");
    std::fs::write(
        &g3,
        fixture::unhex("01010000006c6162656c000200000005000000"),
    )
    .unwrap();
    let o = run(&["mp", "decode", "--godot3", "--packet", g3.to_str().unwrap()]);
    assert_eq!(
        stdout(&o),
        "#0 REMOTE_SET node 1 property \"label\"\n  value: 5\n"
    );
    // A 4.0-4.2 CONFIRM_PATH.
    let c = tmp("confirm.bin");
    std::fs::write(&c, b"\x02\x01Game\0").unwrap();
    let o = run(&[
        "mp",
        "decode",
        "--protocol",
        "4.0",
        "--packet",
        c.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&o), "#0 CONFIRM_PATH path \"Game\" valid true\n");
}

#[test]
fn bad_input_is_reported_with_offsets_and_exit_1() {
    let mut bytes = Vec::new();
    for p in [
        &b"\x03\x01\x02"[..],
        &[0x30, 1, 2, 3, 4, 5, 6],
        &[0x00, 1, 5, 1, 0x2A],
    ] {
        bytes.extend_from_slice(&(p.len() as u32).to_le_bytes());
        bytes.extend_from_slice(p);
    }
    bytes.extend_from_slice(&[9, 0, 0, 0, 3]);
    let file = tmp("bad.bin");
    std::fs::write(&file, &bytes).unwrap();
    let f = file.to_str().unwrap();
    let o = run(&["mp", "decode", f]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.starts_with("#0 RAW payload PackedByteArray(1, 2)\n"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "#1 {f}: error: invalid packet: node id width 3 (not 8, 16 or 32 bits) at offset 11\n"
    )));
    // Type id 42 does not exist: the argument's offset in the file.
    assert!(
        text.contains(&format!("#2 {f}: error: unknown type id 42 at offset 26\n")),
        "{text}"
    );
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("truncated frame (8 more bytes needed) at offset 27"),
        "{err}"
    );
    // JSON says it too.
    let o = run(&["mp", "decode", "--format", "json", f]);
    assert!(stdout(&o).contains("{\"index\":1,\"error\":\"invalid packet: node id width 3 (not 8, 16 or 32 bits)\",\"offset\":11}"));
    // A bad schema line.
    let schema = tmp("bad_schema.txt");
    std::fs::write(&schema, "sync Game a=sometimes\n").unwrap();
    let o = run(&["mp", "decode", "--schema", schema.to_str().unwrap(), f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("line 1: 'a=sometimes': mode always, change or never"));
    // Missing file.
    let o = run(&[
        "mp",
        "decode",
        Path::new("/nonexistent/x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
}
