//! Real Godot clients against the example server (`examples/server/`), over loopback.
//!
//! A headless Godot 4 (`tests/godot/server_client4.gd`) and a headless Godot 3
//! (`tests/godot/server_client3.gd`) connect with `StreamPeerTCP.put_var`, `PacketPeerStream` and
//! WebSocket (`WebSocketPeer` in 4.x, `WebSocketClient` in 3.2), send every engine-written
//! golden value of their dialect (those holding object instance ids aside: a decoded object is a
//! new instance), a 4 MB PackedFloat32Array and 3000 small packets, and check every reply
//! exactly: the reply's bytes must equal what the engine's own `var_to_bytes` writes for the
//! expected reply. They also send a malformed frame (answered with an error naming its
//! absolute offset, the stream going on) and probe the engine's own 64 KiB buffer limits.
//!
//! Bounded: each client has a 60 s deadline of its own and is killed after 120 s. The engines
//! come from `tests/godot/install.sh`; a missing engine is skipped loudly unless
//! `GDVARIANT_LIVE_GODOT{3,4}=1` (as `.ci/run` sets) says it must be there.

use crate::{common, server};

use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use gdvariant::{Dialect, ReadOptions};

/// Runs `cmd` with a hard time limit; its stdout.
fn run_bounded(mut cmd: Command, limit: Duration) -> String {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the engine");
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let err = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the Godot client did not finish within {limit:?}:\n{}",
                reader.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let stdout = reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    if !stdout.contains("CLIENT-DONE") {
        panic!("the Godot client did not finish:\n{stdout}\n{stderr}");
    }
    stdout
}

fn live(n: u32, dialect: Dialect) {
    if !common::engine_ready(n, "live server checks") {
        return;
    }
    // Not while a load run of `server_load` takes the machine (both engines' clients at once
    // are fine).
    let _machine = crate::shared();
    let engine = if n == 4 { "godot4" } else { "godot3" };
    let opts = ReadOptions::new().with_dialect(dialect);
    let (_, golden) = common::encode_cases(engine);
    let mut values = String::new();
    let mut count = 0;
    for g in golden.iter().filter(|g| !g.objects) {
        let v = gdvariant::parse_with(&g.bytes, &opts)
            .unwrap()
            .to_owned()
            .unwrap();
        if common::contains_object(&v) {
            continue;
        }
        values += &format!("{}\t{}\n", g.name, common::hex(&g.bytes));
        count += 1;
    }
    assert!(count > 150, "{count} golden values");

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let srv = rt
        .block_on(server::Server::start(server::Config {
            tcp: "127.0.0.1:0".parse().unwrap(),
            ws: Some("127.0.0.1:0".parse().unwrap()),
            dialect,
            ..server::Config::default()
        }))
        .unwrap();

    let dir = common::scratch_dir(&format!("server{n}"));
    std::fs::write(
        dir.join("client_config.txt"),
        format!("{}\t{}\n", srv.tcp.port(), srv.ws.unwrap().port()),
    )
    .unwrap();
    std::fs::write(dir.join("client_values.tsv"), values).unwrap();
    let script = format!("server_client{n}.gd");
    std::fs::copy(common::godot_dir().join(&script), dir.join(&script)).unwrap();
    let mut cmd = Command::new(common::godot_exe(n));
    cmd.arg(&dir).arg(&script);
    let started = Instant::now();
    let stdout = run_bounded(cmd, Duration::from_secs(120));
    let took = started.elapsed();
    let _ = std::fs::remove_dir_all(&dir);

    for line in stdout.lines().filter(|l| l.starts_with("LIMIT")) {
        eprintln!("{line}");
    }
    let fails: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    let done = stdout
        .lines()
        .find_map(|l| l.strip_prefix("CLIENT-DONE "))
        .unwrap();
    let (checked, failures): (usize, usize) = {
        let mut it = done.split(' ').map(|x| x.parse().unwrap());
        (it.next().unwrap(), it.next().unwrap())
    };
    assert!(
        fails.is_empty() && failures == 0,
        "{failures} failures:\n{}",
        fails.join("\n")
    );
    // TCP: every value, the big one, 3000 small, 20 through get_var, the malformed frame and
    // the value after it; PacketPeerStream: 50 and the big one; WebSocket: every value, 500
    // small and the big one.
    let expected = (count + 1 + 3000 + 20 + 2) + (50 + 1) + (count + 500 + 1);
    assert_eq!(checked, expected, "replies checked");
    let stats = rt.block_on(srv.shutdown(Duration::from_secs(5)));
    eprintln!(
        "Godot {n} clients: {checked} replies checked in {took:?} (server: {})",
        stats.summary()
    );
    assert_eq!(stats.malformed.load(Ordering::Relaxed), 1);
    assert!(stats.packets.load(Ordering::Relaxed) >= expected as u64 - 1);
}

#[test]
fn godot4_clients_against_the_example_server() {
    live(4, Dialect::Godot4);
}

#[test]
fn godot3_clients_against_the_example_server() {
    live(3, Dialect::Godot3);
}
