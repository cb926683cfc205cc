//! A short, bounded load run (CI): the example server (as its own process: this test binary
//! started again in the role of `examples/server/`) under `examples/loadgen.rs` for 8 measured seconds at a fixed
//! offered load with five misbehaving clients, then the same packets against Godot 4's own
//! GDScript server (`benches/servers/godot_server.gd`) for 3 seconds. Every reply of every
//! connection is checked byte for byte (nothing lost, reordered or wrong), every misbehaving
//! client is dropped with its reason in the server's log, the server's memory stays flat, and
//! SIGTERM shuts it down cleanly. The full measurement is `benches/servers.sh` (release build,
//! 60 s); these figures are a debug build's and are only printed.
//!
//! The two load runs take turns (`one_load_run_at_a_time`), so that neither measures the other,
//! and run while no Godot client of `server_live` does; about 20 s in all. Without Godot 4 the
//! engine half is skipped loudly (a failure when `GDVARIANT_LIVE_GODOT4=1`).

#[allow(dead_code, unreachable_pub)]
#[path = "../../examples/loadgen.rs"]
mod loadgen;

use crate::{common, server};

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// The environment variable that makes `server_process` the example server.
const CHILD: &str = "GDVARIANT_TEST_SERVER_CHILD";

/// In the child started by the load test: the example server with a 2 s frame timeout, one
/// thread, until SIGTERM. Otherwise nothing.
#[test]
fn server_process() {
    if std::env::var(CHILD).as_deref() != Ok("1") {
        return;
    }
    let cfg = server::Config {
        tcp: "127.0.0.1:0".parse().unwrap(),
        frame_timeout: Duration::from_secs(2),
        ..server::Config::default()
    };
    let code = runtime().block_on(server::run_until_signalled(cfg));
    std::process::exit(code);
}

/// Reads the child's "listening tcp=ADDR ... pid=PID" line (after the test harness's own).
fn listening(child: &mut Child) -> (SocketAddr, u32) {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening tcp=") {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the server did not start"
        );
    }
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .unwrap_or_else(|| panic!("no {k} in {line:?}"))
            .to_string()
    };
    (
        field("tcp=").parse().unwrap(),
        field("pid=").parse().unwrap(),
    )
}

/// The two load runs take the machine's cores for seconds each: cargo runs the tests of a binary
/// in parallel, so they take turns, each measuring only its own server, and the Godot clients of
/// `server_live` wait for them (`crate::exclusive`).
fn one_load_run_at_a_time() -> RwLockWriteGuard<'static, ()> {
    crate::exclusive()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn example_server_under_load_with_misbehaving_clients() {
    let _turn = one_load_run_at_a_time();
    // This test binary again, running only `server_process` as the example server (its name
    // in the binary: this module's path without the crate's name).
    let test = format!(
        "{}::server_process",
        module_path!().split_once("::").unwrap().1
    );
    let mut server = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = server.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let (addr, pid) = listening(&mut server);
    assert_eq!(pid, server.id());

    let cases = Arc::new(loadgen::default_cases(&common::repo_root()));
    assert!(cases.len() > 300);
    let report = runtime().block_on(loadgen::run(loadgen::Load {
        addr,
        connections: 4,
        mode: loadgen::Mode::Rate(2000.0),
        seconds: 8.0,
        warmup: 1.0,
        drain: 5.0,
        cases: cases.clone(),
        server_pid: Some(pid),
        bad_clients: true,
    }));
    eprintln!(
        "example server (debug build), 4 connections at 2000/s: {}",
        report.line()
    );
    for (kind, r) in &report.bad {
        eprintln!("  misbehaving client {kind}: {r:?}");
    }

    // Clean shutdown on SIGTERM.
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let exit = loop {
        if let Some(s) = server.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = server.kill();
            panic!("the server did not stop within 10 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = log.join().unwrap();

    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.sent_total, report.received_total);
    assert!(report.replies > 8000, "{} replies", report.replies);
    for (kind, r) in &report.bad {
        assert!(r.is_ok(), "{kind} was not dropped: {r:?}");
    }
    // Each misbehaving client dropped once, for its own reason; no well-behaved one dropped.
    let drops: Vec<&str> = log.lines().filter(|l| l.contains(": dropped: ")).collect();
    eprintln!("{}", drops.join("\n"));
    assert_eq!(drops.len(), 5, "{log}");
    for reason in [
        "dropped: frame of 4294967295 bytes exceeds the maximum of 8388608 at offset 0",
        "malformed values in a row, the last: unknown type id 255 at offset",
        "dropped: stalled mid-frame (9 bytes of a frame buffered",
        "dropped: replies not read for 2s",
    ] {
        assert!(log.contains(reason), "no {reason:?} in the log:\n{log}");
    }
    // Memory: flat. The misbehaving clients' buffers come and go in the first seconds; after
    // that nothing may grow with the traffic (a leak of every packet would add megabytes in
    // the second half): the second half's peak within 1 MiB of the first half's.
    let rss = &report.rss_kib;
    assert!(rss.len() >= 8, "{rss:?}");
    let (first, second) = rss.split_at(rss.len() / 2);
    let (peak1, peak2) = (first.iter().max().unwrap(), second.iter().max().unwrap());
    assert!(peak2 <= &(peak1 + 1024), "RSS grew: {rss:?} KiB");
    assert!(exit.success(), "exit {exit:?}\n{log}");
    assert!(log.contains("[server] stopped: connections=9 "), "{log}");
}

#[test]
fn godot4_gdscript_server_gives_the_same_replies() {
    let _turn = one_load_run_at_a_time();
    if !common::engine_ready(4, "the GDScript server load check") {
        return;
    }
    let godot = common::godot_exe(4);
    let dir = common::scratch_dir("gdserver");
    std::fs::copy(
        common::repo_root().join("benches/servers/godot_server.gd"),
        dir.join("godot_server.gd"),
    )
    .unwrap();
    let mut godot_server = Command::new(&godot)
        .arg(&dir)
        .arg("godot_server.gd")
        .env("PORT", "0")
        .env("SECONDS_LIMIT", "8")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The engine prints its banner first.
    let mut out = BufReader::new(godot_server.stdout.take().unwrap());
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !line.starts_with("listening") {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the Godot server did not start"
        );
        assert!(Instant::now() < deadline);
    }
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .unwrap()
            .to_string()
    };
    let addr: SocketAddr = field("tcp=").parse().unwrap();
    let pid: u32 = field("pid=").parse().unwrap();
    let report = runtime().block_on(loadgen::run(loadgen::Load {
        addr,
        connections: 4,
        mode: loadgen::Mode::Window(16),
        seconds: 3.0,
        warmup: 0.5,
        drain: 3.0,
        cases: Arc::new(loadgen::default_cases(&common::repo_root())),
        server_pid: Some(pid),
        bad_clients: false,
    }));
    eprintln!(
        "Godot 4 GDScript server, 4 connections x 16 in flight: {}",
        report.line()
    );
    let started = Instant::now();
    while godot_server.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(15) {
            let _ = godot_server.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.sent_total, report.received_total);
    assert!(report.replies > 100, "{} replies", report.replies);
}

/// The "no-reader" client keeps its stream whole however slowly the server reads: a server that
/// reads in bursts with pauses longer than the client's 100 ms write timeout gets nothing but
/// whole frames, so a server can drop it only for not reading its replies. (It used to start a
/// new frame whenever a write timed out, in the middle of the one being written: on a loaded
/// machine the example server then read garbage and dropped it for that instead.) About 3 s.
#[test]
fn the_no_reader_client_sends_whole_frames_to_a_slow_reader() {
    let frame = loadgen::no_reader_frame().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut pending: Vec<u8> = Vec::new();
        let (mut frames, mut buf) = (0usize, vec![0u8; 256 * 1024]);
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(2500) {
            // Long enough for the client's write to time out (the socket buffers fill at once).
            std::thread::sleep(Duration::from_millis(250));
            // Then take what is there, up to 4 MiB (the client writes as fast as it can).
            let mut burst = 0;
            while burst < 4 << 20 {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        pending.extend_from_slice(&buf[..n]);
                        burst += n;
                    }
                }
                while pending.len() >= frame.len() {
                    assert!(
                        pending[..frame.len()] == frame[..],
                        "frame {frames} is not the client's frame"
                    );
                    pending.drain(..frame.len());
                    frames += 1;
                }
            }
        }
        // What is left is the start of a frame.
        assert!(
            frame.starts_with(&pending),
            "frame {frames} does not start right"
        );
        frames
        // Closed here with the client's bytes unread: the client's next write fails.
    });
    let result = runtime().block_on(loadgen::bad_client(
        addr,
        "no-reader",
        Duration::from_secs(20),
    ));
    let frames = reader.join().unwrap();
    assert!(frames >= 3, "only {frames} frames read");
    assert!(result.is_ok(), "{result:?}");
}
