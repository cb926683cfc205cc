//! The multiplayer module against the live engines (skipped loudly when an engine is not installed,
//! a failure when `GDVARIANT_LIVE_GODOT4=1` / `GDVARIANT_LIVE_GODOT3=1` says it must be there, as
//! `.ci/run` sets):
//!
//! - the recorded sessions are recorded again and must equal the committed fixtures, but for what
//!   legitimately varies between runs: object instance ids (Godot 4; stable in practice, masked in
//!   case an engine build allocates differently) and the uninitialised padding bytes of NodePaths
//!   (Godot 3); the Godot 3 client's random peer id is written as 2 by the recorder;
//! - packets built here are injected into a running SceneMultiplayer (Godot 4) and a running
//!   MultiplayerAPI (Godot 3): the scripts get exactly the arguments, spawn state and synchronized
//!   values built, and what the engine answers (CONFIRM_PATH, AUTH) is what the builders write.
//!
//! About 10 s in all (four engine runs).

use crate::{common, fixture};

use std::path::PathBuf;
use std::process::Command;

use fixture::{hex, Fixture};
use gdvariant::{Dialect, Object, ReadOptions, Variant};
use gdvariant_multiplayer::{
    self as multiplayer, auth, auth_complete, confirm_path, despawn, godot3, raw, relay,
    simplify_path, DeltaBuilder, Packet, RemoteCallBuilder, RpcMethods, SpawnBuilder, SyncBuilder,
    Target,
};

/// Runs `script` with engine `n` in a fresh directory holding `files`; returns the directory
/// after checking that the script printed `done`.
fn run(n: u32, script: &str, files: &[(&str, String)], done: &str) -> PathBuf {
    let dir = common::fresh_scratch_dir(&format!("mp-{}", script.trim_end_matches(".gd")));
    std::fs::copy(common::godot_dir().join(script), dir.join(script)).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Command::new(common::godot_dir().join(format!("godot{n}")))
        .arg(&dir)
        .arg(script)
        .output()
        .expect("run engine");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(done),
        "Godot {n} {script} did not finish:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// Masks what legitimately varies: in Godot 4 packets, object instance ids (an Object argument
/// sent as an id: its 8 id bytes) and in scripts' texts the `"object_id":N` of an
/// EncodedObjectAsID.
fn normalise4(fx: &mut Fixture) {
    for p in &mut fx.pkts {
        let mut spots = Vec::new();
        if let Ok(Packet::RemoteCall(c)) = multiplayer::parse(&p.bytes) {
            for a in c.args().flatten() {
                if a.ty() == gdvariant::VariantType::Object && a.raw().len() == 12 {
                    spots.push(a.offset() + 4);
                }
            }
        }
        for at in spots {
            p.bytes[at..at + 8].fill(0);
        }
    }
    for g in &mut fx.gots {
        for a in &mut g.args {
            if let Some(i) = a.find("\"object_id\":") {
                let start = i + "\"object_id\":".len();
                let end = a[start..]
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(a.len(), |e| start + e);
                a.replace_range(start..end, "0");
            }
        }
    }
}

/// Masks the uninitialised padding of NodePaths in Godot 3 packets' values.
fn normalise3(fx: &mut Fixture) {
    let opts = ReadOptions::new().with_dialect(Dialect::Godot3);
    for p in &mut fx.pkts {
        let values: Vec<(usize, Vec<u8>)> = match godot3::parse(&p.bytes) {
            Ok(godot3::Packet::RemoteCall(c)) => c
                .args()
                .map(|a| {
                    let a = a.unwrap();
                    (a.offset(), common::mask_node_path_padding(a.raw(), &opts))
                })
                .collect(),
            Ok(godot3::Packet::RemoteSet(s)) => {
                let v = s.value().unwrap();
                vec![(v.offset(), common::mask_node_path_padding(v.raw(), &opts))]
            }
            _ => vec![],
        };
        for (at, masked) in values {
            p.bytes[at..at + masked.len()].copy_from_slice(&masked);
        }
    }
}

fn assert_same(name: &str, committed: &Fixture, again: &Fixture) {
    assert_eq!(committed.engine, again.engine, "{name}: engine version");
    for (a, b) in committed.pkts.iter().zip(&again.pkts) {
        assert_eq!(
            (
                a.seq,
                &a.step,
                a.from,
                a.to,
                a.channel,
                a.mode,
                hex(&a.bytes)
            ),
            (
                b.seq,
                &b.step,
                b.from,
                b.to,
                b.channel,
                b.mode,
                hex(&b.bytes)
            ),
            "{name}: packet differs"
        );
    }
    assert_eq!(
        committed.pkts.len(),
        again.pkts.len(),
        "{name}: packet count"
    );
    for (a, b) in committed.gots.iter().zip(&again.gots) {
        assert_eq!(
            (a.seq, a.receiver, a.sender, &a.what, &a.args),
            (b.seq, b.receiver, b.sender, &b.what, &b.args),
            "{name}: script call differs"
        );
    }
    assert_eq!(committed.gots.len(), again.gots.len(), "{name}: call count");
}

#[test]
fn godot4_session_recorded_again_matches_the_fixture() {
    if !common::engine_ready(4, "live multiplayer checks") {
        return;
    }
    let dir = run(4, "mp_record4.gd", &[], "MP-DONE");
    let mut again = fixture::parse(&read(&dir, "mp4_packets.tsv"));
    let mut committed = fixture::load("godot4.tsv");
    normalise4(&mut again);
    normalise4(&mut committed);
    assert_same("godot4.tsv", &committed, &again);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn godot3_session_recorded_again_matches_the_fixture() {
    if !common::engine_ready(3, "live multiplayer checks") {
        return;
    }
    let dir = run(3, "mp_record3.gd", &[], "MP-DONE");
    let mut again = fixture::parse(&read(&dir, "mp3_packets.tsv"));
    let mut committed = fixture::load("godot3.tsv");
    normalise3(&mut again);
    normalise3(&mut committed);
    assert_same("godot3.tsv", &committed, &again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Values of every type, as engine text (what `var_to_str` prints for them).
const VALUES4: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-128",
    "127",
    "128",
    "-32769",
    "2147483648",
    "-9223372036854775808",
    "0.5",
    "0.1",
    "1e+300",
    "inf_neg",
    "nan",
    "\"\"",
    "\"héllo ☃\"",
    "Vector2(1.5, -2)",
    "Vector2i(3, -4)",
    "Rect2(1, 2, 3, 4)",
    "Rect2i(1, 2, 3, 4)",
    "Vector3(1, 2, 3)",
    "Vector3i(1, 2, 3)",
    "Transform2D(1, 2, 3, 4, 5, 6)",
    "Vector4(1, 2, 3, 4)",
    "Vector4i(1, 2, 3, 4)",
    "Plane(1, 0, 0, 2)",
    "Quaternion(0, 0, 0, 1)",
    "AABB(1, 2, 3, 4, 5, 6)",
    "Basis(1, 0, 0, 0, 1, 0, 0, 0, 1)",
    "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 7, 8, 9)",
    "Projection(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)",
    "Color(0.25, 0.5, 0.75, 1)",
    "&\"sname\"",
    "NodePath(\"a/b:c\")",
    "RID()",
    "Callable()",
    "Signal()",
    "{\n\"a\": 1,\n\"b\": [2, \"c\"]\n}",
    "Dictionary[String, int]({\n\"k\": 1\n})",
    "[1, \"x\", null, [true]]",
    "Array[int]([1, 2])",
    "PackedInt32Array(1, -2)",
    "PackedInt64Array(1, 1099511627776)",
    "PackedFloat32Array(0.5)",
    "PackedFloat64Array(0.1)",
    "PackedStringArray(\"a\", \"\")",
    "PackedVector2Array(1, 2)",
    "PackedVector3Array(1, 2, 3)",
    "PackedColorArray(1, 0, 0, 1)",
    "PackedVector4Array(1, 2, 3, 4)",
];

fn v4(text: &str) -> Variant {
    gdvariant::text::from_str(text, Dialect::Godot4).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A packet by name.
type Named = (String, Vec<u8>);
/// What a script got while the engine handled a named packet: (packet name, sender, method or
/// signal, argument texts).
type Call = (String, i32, String, Vec<String>);

struct Injection {
    packets: Vec<Named>,
    expect: Vec<Call>,
    /// The packets the engine answers with.
    answers: Vec<Named>,
}

impl Injection {
    fn push(&mut self, name: &str, bytes: Vec<u8>) {
        self.packets.push((name.to_string(), bytes));
    }

    fn expect(&mut self, name: &str, sender: i32, what: &str, args: Vec<String>) {
        self.expect
            .push((name.to_string(), sender, what.to_string(), args));
    }
}

fn texts(vs: &[Variant]) -> Vec<String> {
    vs.iter().map(Variant::to_string).collect()
}

fn godot4_injection() -> Injection {
    let game = RpcMethods::new(fixture::GAME_METHODS).with_node_methods(["native_m"]);
    let wide = RpcMethods::new(fixture::wide_methods());
    let id = |name: &str| game.id(name).unwrap();
    let mut inj = Injection {
        packets: vec![],
        expect: vec![],
        answers: vec![],
    };
    inj.push("auth", auth(b"token").unwrap());
    inj.expect(
        "auth",
        2,
        "auth",
        vec!["PackedByteArray(116, 111, 107, 101, 110)".into()],
    );
    inj.answers.push(("auth".into(), auth_complete()));
    inj.push("auth_complete", auth_complete());
    inj.push(
        "simplify_game",
        simplify_path(&game.checksum(), 5, "Game").unwrap(),
    );
    inj.answers
        .push(("simplify_game".into(), confirm_path(true, 5)));
    inj.push(
        "simplify_wide",
        simplify_path(&wide.checksum(), 300, "Game/Wide").unwrap(),
    );
    inj.answers
        .push(("simplify_wide".into(), confirm_path(true, 300)));
    // A wrong checksum is reported as such in the answer.
    inj.push(
        "simplify_bad",
        simplify_path(&[b'0'; 32], 7, "Game").unwrap(),
    );
    inj.answers
        .push(("simplify_bad".into(), confirm_path(false, 7)));
    for (i, text) in VALUES4.iter().enumerate() {
        let v = v4(text);
        let name = format!("one_{i}");
        let b = RemoteCallBuilder::new(Target::Id(5), id("one"))
            .arg(&v)
            .unwrap()
            .finish()
            .unwrap();
        inj.push(&name, b);
        inj.expect(&name, 2, "one", vec![v.to_string()]);
    }
    let obj = Variant::Object(Box::new(Object::Id(77)));
    inj.push(
        "one_object",
        RemoteCallBuilder::new(Target::Id(5), id("one"))
            .arg(&obj)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("one_object", 2, "one", vec![obj.to_string()]);
    let ints: Vec<Variant> = [0i64, -128, 127, 128, -32768, 32767, 2147483647, i64::MIN]
        .map(Variant::Int)
        .to_vec();
    inj.push(
        "ints",
        RemoteCallBuilder::new(Target::Id(5), id("ints"))
            .args(&ints)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("ints", 2, "ints", texts(&ints));
    let bools = vec![Variant::Bool(true), Variant::Bool(false)];
    inj.push(
        "bools",
        RemoteCallBuilder::new(Target::Id(5), id("bools"))
            .args(&bools)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("bools", 2, "bools", texts(&bools));
    let pba = Variant::PackedByteArray(vec![1, 2, 3]);
    inj.push(
        "bytes_only",
        RemoteCallBuilder::new(Target::Id(5), id("bytes_opt"))
            .arg(&pba)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("bytes_only", 2, "bytes_opt", vec![pba.to_string()]);
    inj.push(
        "no_args",
        RemoteCallBuilder::new(Target::Id(5), id("no_args"))
            .finish()
            .unwrap(),
    );
    inj.expect("no_args", 2, "no_args", vec![]);
    let two = vec![Variant::PackedByteArray(vec![9]), Variant::from("s")];
    inj.push(
        "two_id32",
        RemoteCallBuilder::new(Target::Id32(5), id("two"))
            .args(&two)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("two_id32", 2, "two", texts(&two));
    inj.push(
        "two_path",
        RemoteCallBuilder::new(Target::Path("Game"), id("two"))
            .args(&two)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("two_path", 2, "two", texts(&two));
    inj.push(
        "native",
        RemoteCallBuilder::new(Target::Id(5), id("native_m"))
            .arg(&Variant::from("n"))
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("native", 2, "native_m", vec!["\"n\"".into()]);
    inj.push(
        "wide",
        RemoteCallBuilder::new(Target::Id(300), wide.id("m299").unwrap())
            .arg(&Variant::Int(299))
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("wide", 2, "m299", vec!["299".into()]);
    inj.push("raw", raw(&[1, 2]).unwrap());
    inj.expect(
        "raw",
        2,
        "peer_packet",
        vec!["PackedByteArray(1, 2)".into()],
    );
    // A client's broadcast through the server: the server runs it (and has no one to pass it to).
    let inner = RemoteCallBuilder::new(Target::Id(5), id("one"))
        .arg(&Variant::Int(-1))
        .unwrap()
        .finish()
        .unwrap();
    inj.push("relay", relay(0, &inner).unwrap());
    inj.expect("relay", 2, "one", vec!["-1".into()]);
    // Spawns and synchronizers (the spawner and the bullet's synchronizer have authority 2).
    inj.push(
        "simplify_spawner",
        simplify_path(&RpcMethods::default().checksum(), 6, "Game/Spawner").unwrap(),
    );
    inj.answers
        .push(("simplify_spawner".into(), confirm_path(true, 6)));
    let (pos, speed, flag) = (v4("Vector2(1.5, -2)"), Variant::Int(7), Variant::Bool(true));
    inj.push(
        "spawn",
        SpawnBuilder::new(6, 1, "Bullet")
            .scene(0)
            .unwrap()
            .sync_ids(&[2])
            .state(&pos)
            .unwrap()
            .state(&speed)
            .unwrap()
            .state(&flag)
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect(
        "spawn",
        2,
        "ready",
        texts(&[pos.clone(), speed.clone(), flag]),
    );
    inj.expect(
        "spawn",
        0,
        "spawned",
        vec!["&\"Bullet\"".into(), pos.to_string()],
    );
    let (pos2, tag) = (v4("Vector2(10, 20)"), Variant::from("moved"));
    inj.push(
        "sync",
        SyncBuilder::new(1)
            .entry(2, &[pos2.clone(), tag.clone()])
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect("sync", 2, "synchronized", texts(&[pos2, tag]));
    let (speed2, big) = (Variant::Int(300), Variant::Int(1 << 40));
    inj.push(
        "delta",
        DeltaBuilder::new()
            .entry(2, 0b101, &[speed2.clone(), big.clone()])
            .unwrap()
            .finish()
            .unwrap(),
    );
    // The signal shows every "on change" property: hp kept its value.
    inj.expect(
        "delta",
        2,
        "delta_synchronized",
        texts(&[speed2, Variant::Int(100), big]),
    );
    inj.push("despawn", despawn(1));
    inj.expect("despawn", 0, "despawned", vec!["&\"Bullet\"".into()]);
    let mut data = gdvariant::Dictionary::new();
    data.insert("x", 7.5);
    inj.push(
        "spawn_custom",
        SpawnBuilder::new(6, 3, "Rock")
            .custom(&Variant::Dictionary(data))
            .unwrap()
            .finish()
            .unwrap(),
    );
    inj.expect(
        "spawn_custom",
        0,
        "spawned",
        vec!["&\"Rock\"".into(), "Vector2(7.5, 0)".into()],
    );
    inj
}

/// Parses the harness output: ("out", name, to, hex) and ("got", name, sender, what, texts).
fn injection_results(text: &str) -> (Vec<Named>, Vec<Call>) {
    let (mut outs, mut gots) = (vec![], vec![]);
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "out" => outs.push((f[1].to_string(), fixture::unhex(f[3]))),
            "got" => gots.push((
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].to_string(),
                f.get(4)
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        s.split(',')
                            .map(|h| String::from_utf8(fixture::unhex(h)).unwrap())
                            .collect()
                    })
                    .unwrap_or_default(),
            )),
            _ => {}
        }
    }
    (outs, gots)
}

#[test]
fn godot4_runs_packets_built_here() {
    if !common::engine_ready(4, "live multiplayer checks") {
        return;
    }
    let inj = godot4_injection();
    let input: String = inj
        .packets
        .iter()
        .map(|(n, b)| format!("{n}\t{}\n", hex(b)))
        .collect();
    let dir = run(
        4,
        "mp_inject4.gd",
        &[("mp_inject.tsv", input)],
        "MP-INJECT-DONE",
    );
    let (outs, gots) = injection_results(&read(&dir, "mp_inject_out.tsv"));
    assert_eq!(gots, inj.expect, "what the scripts got");
    assert_eq!(outs, inj.answers, "what the engine answered");
    let _ = std::fs::remove_dir_all(&dir);
}

const VALUES3: &[&str] = &[
    "null",
    "true",
    "-1",
    "2147483648",
    "0.5",
    "\"héllo ☃\"",
    "Vector2( 1.5, -2 )",
    "Rect2( 1, 2, 3, 4 )",
    "Vector3( 1, 2, 3 )",
    "Transform2D( 1, 2, 3, 4, 5, 6 )",
    "Plane( 1, 0, 0, 2 )",
    "Quat( 0, 0, 0, 1 )",
    "AABB( 1, 2, 3, 4, 5, 6 )",
    "Basis( 1, 0, 0, 0, 1, 0, 0, 0, 1 )",
    "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 7, 8, 9 )",
    "Color( 0.25, 0.5, 0.75, 1 )",
    "NodePath(\"a/b:c\")",
    "{\n\"a\": 1,\n\"b\": [ 2, \"c\" ]\n}",
    "[ 1, \"x\", null ]",
    "PoolByteArray( 1, 2, 3 )",
    "PoolIntArray( 1, -2 )",
    "PoolRealArray( 0.5 )",
    "PoolStringArray( \"a\", \"\" )",
    "PoolVector2Array( 1, 2 )",
    "PoolVector3Array( 1, 2, 3 )",
    "PoolColorArray( 1, 0, 0, 1 )",
];

#[test]
fn godot3_runs_packets_built_here() {
    if !common::engine_ready(3, "live multiplayer checks") {
        return;
    }
    let mut packets: Vec<(String, Vec<u8>)> = vec![];
    let mut expect: Vec<(String, String, Vec<String>)> = vec![];
    packets.push((
        "simplify".into(),
        godot3::simplify_path(10, "Game").unwrap(),
    ));
    for (i, text) in VALUES3.iter().enumerate() {
        let v = gdvariant::text::from_str(text, Dialect::Godot3)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let name = format!("one_{i}");
        packets.push((
            name.clone(),
            godot3::remote_call(Target::Id(10), "one", &[v]).unwrap(),
        ));
        expect.push((name, "one".into(), vec![text.to_string()]));
    }
    let two = [Variant::Int(1), Variant::from("x")];
    packets.push((
        "two_path".into(),
        godot3::remote_call(Target::Path("Other"), "two", &two).unwrap(),
    ));
    expect.push((
        "two_path".into(),
        "two".into(),
        vec!["1".into(), "\"x\"".into()],
    ));
    packets.push((
        "set".into(),
        godot3::remote_set(Target::Id(10), "label", &Variant::from("y")).unwrap(),
    ));
    expect.push(("set".into(), "set label".into(), vec!["\"y\"".into()]));
    packets.push(("raw".into(), godot3::raw(&[4, 5]).unwrap()));
    expect.push((
        "raw".into(),
        "network_peer_packet".into(),
        vec!["PoolByteArray( 4, 5 )".into()],
    ));
    let input: String = packets
        .iter()
        .map(|(n, b)| format!("{n}\t{}\n", hex(b)))
        .collect();
    let dir = run(3, "mp_record3.gd", &[("mp_inject3.tsv", input)], "MP-DONE");
    let fx = fixture::parse(&read(&dir, "mp3_packets.tsv"));
    let injected: Vec<&fixture::Pkt> = fx
        .pkts
        .iter()
        .filter(|p| p.step.starts_with("inject/") && p.to == 1)
        .collect();
    assert_eq!(injected.len(), packets.len());
    let mut got = vec![];
    for p in &injected {
        for g in fx.gots_of(p.seq, 1) {
            assert_eq!(g.sender, 2);
            got.push((
                p.step["inject/".len()..].to_string(),
                g.what.clone(),
                g.args.clone(),
            ));
        }
    }
    assert_eq!(got, expect);
    // The server confirms the injected path as the builder writes it.
    let confirm = fx
        .pkts
        .iter()
        .find(|p| p.step == "inject/simplify" && p.from == 1)
        .expect("CONFIRM_PATH answer");
    assert_eq!(
        hex(&confirm.bytes),
        hex(&godot3::confirm_path("Game").unwrap())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
