//! The live engines recorded again with tcpdump, then the same checks as on the committed
//! captures (`capture`, `capture_values`).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::capture::{
    check_godot3_enet_session, check_godot3_enet_session_in_order,
    check_godot3_websocket_session_in_order, check_godot4_enet_session_in_order,
    check_godot4_put_var_stream_both_directions, check_godot4_websocket_session_in_order,
};
use crate::capture_replication::check_godot4_replication_in_order;
use crate::capture_values::{check_values, VALUES3_GD, VALUES4_GD};

/// The live engines recorded again with tcpdump (tests/godot/capture_ws.sh; capture_enet.sh, with
/// `rep4` the Godot 4 replication session; the value scripts), run on a scratch copy of
/// tests/godot so that the committed captures stay as they are, then the same checks on the new
/// captures: every value the scripts sent, in order, with the new recording's own peer ids and
/// ports. Skipped loudly when an engine or tcpdump (and root, to capture on the loopback
/// interface) is missing; a failure when `GDVARIANT_LIVE_GODOT4=1` or `GDVARIANT_LIVE_GODOT3=1`
/// says the engine must be there. The sessions are recorded one at a time (the replication one
/// in about 4.5 s, a value session in about 2 s): 55 s to 82 s in all on 2 cores under a load
/// average of 5 to 9.
#[test]
fn live_recordings_show_every_value_in_order() {
    let four = crate::common::engine_ready(4, "capture: recording Godot 4 sessions");
    let three = crate::common::engine_ready(3, "capture: recording Godot 3 sessions");
    let three6 = crate::common::engine_ready(36, "capture: recording a Godot 3.6 ENet session");
    if !four && !three && !three6 {
        return;
    }
    let required = [
        "GDVARIANT_LIVE_GODOT4",
        "GDVARIANT_LIVE_GODOT3",
        "GDVARIANT_LIVE_GODOT36",
    ]
    .iter()
    .any(|v| std::env::var(v).is_ok_and(|v| v == "1"));
    let tcpdump = Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !tcpdump || !root {
        assert!(
            !required,
            "the live capture test needs tcpdump (apt-get install tcpdump) and root (tcpdump {tcpdump}, root {root})"
        );
        eprintln!("\n!!!!!! tcpdump or root missing: capture: live recordings SKIPPED !!!!!!\n");
        return;
    }
    // A scratch copy of tests/godot: the scripts write to ../data/captures beside themselves.
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let scratch = crate::common::scratch_dir("capture-live");
    let godot = scratch.join("tests/godot");
    std::fs::create_dir_all(&godot).unwrap();
    std::fs::create_dir_all(scratch.join("tests/data/captures")).unwrap();
    for name in [
        "capture_ws.sh",
        "capture_enet.sh",
        "capture_ws4.gd",
        "capture_ws3.gd",
        "capture_enet4.gd",
        "capture_enet3.gd",
        "capture_rep4.gd",
        "godot4",
        "godot3",
        "godot36",
    ] {
        std::fs::copy(repo.join("tests/godot").join(name), godot.join(name)).unwrap();
    }
    // One session at a time (under load, tcpdump on a busy machine may miss the end of a
    // session recorded alongside others); a session whose recording fails (its random port may
    // be taken: the scripts pick one and bind it later) or whose new capture fails its check is
    // recorded again before the failure counts.
    let record = |script: &str, arg: &str| -> Result<(), String> {
        let o = Command::new("bash")
            .arg(godot.join(script))
            .arg(arg)
            .output()
            .expect("run bash");
        if o.status.success() {
            return Ok(());
        }
        Err(format!(
            "{script} {arg} failed:\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    };
    let new = |name: &str| {
        scratch
            .join("tests/data/captures")
            .join(name)
            .display()
            .to_string()
    };
    type Check = fn(&str);
    let sessions: [(bool, &str, &str, &str, Check); 9] = [
        (
            four,
            "capture_ws.sh",
            "ws4",
            "godot4_ws.pcap",
            check_godot4_websocket_session_in_order,
        ),
        (
            four,
            "capture_ws.sh",
            "putvar",
            "godot4_putvar.pcap",
            check_godot4_put_var_stream_both_directions,
        ),
        (
            four,
            "capture_enet.sh",
            "4",
            "godot4_enet.pcap",
            check_godot4_enet_session_in_order,
        ),
        (
            four,
            "capture_enet.sh",
            "rep4",
            "godot4_replication.pcap",
            check_godot4_replication_in_order,
        ),
        (four, "", "4", "godot4_values.pcap", |f| {
            check_values(f, false)
        }),
        (
            three,
            "capture_ws.sh",
            "ws3",
            "godot3_ws.pcap",
            check_godot3_websocket_session_in_order,
        ),
        (
            three,
            "capture_enet.sh",
            "3",
            "godot3_enet.pcap",
            check_godot3_enet_session_in_order,
        ),
        (three, "", "3", "godot3_values.pcap", |f| {
            check_values(f, true)
        }),
        // Godot 3.6's ENet compresses by default: the same session, the first pair's datagrams
        // (no compression asked for) compressed too.
        (three6, "capture_enet.sh", "36", "godot36_enet.pcap", |f| {
            let (compressed, all) = compressed_enet_datagrams(f);
            assert!(
                compressed * 4 > all,
                "{compressed} of {all} compressed (first pair)"
            );
            check_godot3_enet_session(f, true);
        }),
    ];
    for (ready, script, arg, name, check) in sessions {
        if !ready {
            continue;
        }
        for attempt in 0..3 {
            let recorded = if script.is_empty() {
                record_values(arg.parse().unwrap(), &scratch, attempt)
            } else {
                record(script, arg)
            };
            let file = new(name);
            let failure = match recorded {
                Ok(()) if std::panic::catch_unwind(|| check(&file)).is_ok() => break,
                Ok(()) => "its new capture failed its check".to_string(),
                Err(e) => e,
            };
            assert!(
                attempt < 2,
                "{name}: recorded three times, failed three times; the last: {failure}"
            );
            eprintln!("capture live: {name}: {failure}: recording it again");
        }
    }
    if let Ok(keep) = std::env::var("GDVARIANT_KEEP_CAPTURES") {
        for e in std::fs::read_dir(scratch.join("tests/data/captures")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), PathBuf::from(&keep).join(e.file_name())).unwrap();
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Records the value script of Godot `n` with tcpdump into
/// `scratch/tests/data/captures/godot{n}_values.pcap` (on a port of its own for each `attempt`);
/// the engine's output when it did not finish.
fn record_values(n: u32, scratch: &std::path::Path, attempt: u16) -> Result<(), String> {
    let dir = scratch.join(format!("values{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    // tcpdump drops its privileges to write the file.
    Command::new("chmod").arg("755").arg(&dir).status().unwrap();
    let script = if n == 4 { VALUES4_GD } else { VALUES3_GD };
    std::fs::write(dir.join("values.gd"), script).unwrap();
    let port = 30000 + (std::process::id() % 10000) as u16 + 2 * n as u16 * 1000 + 4 * attempt;
    std::fs::write(dir.join("port.txt"), port.to_string()).unwrap();
    let log = dir.join("tcpdump.log");
    let mut tcpdump = Command::new("tcpdump")
        // --immediate-mode: without it the kernel hands packets over in blocks, and the last one
        // of a short session can still be in the ring when tcpdump is stopped.
        // and a 16 MiB buffer: on a busy machine the default one drops packets.
        .args(["-i", "lo", "--immediate-mode", "-B", "16384", "-U", "-w"])
        .arg(dir.join("cap.pcap"))
        .arg(format!(
            "udp port {port} or tcp portrange {}-{}",
            port + 1,
            port + 3
        ))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("run tcpdump");
    for _ in 0..50 {
        if std::fs::read_to_string(&log).is_ok_and(|l| l.contains("listening")) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let o = Command::new(crate::common::godot_exe(n))
        .arg(&dir)
        .arg("values.gd")
        .output()
        .expect("run the engine");
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Stop the tcpdump started here, by its id, as tcpdump is told to (SIGINT: the file is whole).
    Command::new("kill")
        .arg("-INT")
        .arg(tcpdump.id().to_string())
        .status()
        .unwrap();
    tcpdump.wait().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    if !stdout.contains("DONE") {
        return Err(format!(
            "Godot {n} values.gd:\n{stdout}\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    std::fs::copy(
        dir.join("cap.pcap"),
        scratch.join(format!("tests/data/captures/godot{n}_values.pcap")),
    )
    .unwrap();
    Ok(())
}

/// Of the first server's datagrams in `file` (a tcpdump pcap of IPv4 UDP on Ethernet, as
/// `capture_enet.sh` writes; the first server's port is where the first datagram goes, a
/// client's `CONNECT`), how many have ENet's "compressed" header flag, and how many there are.
fn compressed_enet_datagrams(file: &str) -> (usize, usize) {
    let d = std::fs::read(file).unwrap();
    assert_eq!(&d[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "a little-endian pcap");
    let (mut at, mut server, mut compressed, mut all) = (24, None, 0, 0);
    while at + 16 <= d.len() {
        let len = u32::from_le_bytes(d[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &d[at + 16..at + 16 + len];
        at += 16 + len;
        let ip = &frame[14..];
        let udp = &ip[usize::from(ip[0] & 15) * 4..];
        let (from, to) = (
            u16::from_be_bytes([udp[0], udp[1]]),
            u16::from_be_bytes([udp[2], udp[3]]),
        );
        let port = *server.get_or_insert(to);
        if from != port && to != port {
            continue;
        }
        let peer_id = u16::from_be_bytes([udp[8], udp[9]]);
        all += 1;
        compressed += usize::from(peer_id & (1 << 14) != 0);
    }
    (compressed, all)
}
