//! The `put_var` stall: an unmodified Godot 4 client (`StreamPeerTCP.put_var`, Nagle on) against
//! a minimal tokio `put_var` echo server, with and without the server-side socket settings
//! ([`tune_tcp`]: `TCP_NODELAY`, and `TCP_QUICKACK` after every read).
//!
//! `put_var` writes the length prefix and the body in two `send`s. With Nagle's algorithm on
//! (the client's default) the body waits for the ACK of the prefix, and a server that delays its
//! ACKs (Linux: ~40 ms) makes every message wait that long. Quick ACKs on the server end it.

use crate::common;
use crate::server_live::run_clients;

use std::time::Duration;

use gdvariant_multiplayer::server::{quickack, tune_tcp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves one connection: every `[u32 len][body]` frame echoed in one write.
async fn echo(mut s: tokio::net::TcpStream, tuned: bool) {
    if tuned {
        let _ = tune_tcp(&s);
    }
    let mut frame = Vec::new();
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).await.is_err() {
            return;
        }
        let n = u32::from_le_bytes(len) as usize;
        if n > 1 << 20 {
            return;
        }
        frame.clear();
        frame.extend_from_slice(&len);
        frame.resize(4 + n, 0);
        if s.read_exact(&mut frame[4..]).await.is_err() {
            return;
        }
        if s.write_all(&frame).await.is_err() {
            return;
        }
        if tuned {
            // After the write: sending data puts Linux back in delayed-ACK ("pingpong") mode.
            let _ = quickack(&s);
        }
    }
}

/// Runs `count` round trips from a Godot client; returns the milliseconds they took.
fn round_trips(tuned: bool, count: u32) -> f64 {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    rt.spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            tokio::spawn(echo(s, tuned));
        }
    });
    let cfg = format!("transport=putvar\nport={port}\ncount={count}\n");
    let out = run_clients(4, "mpserver_client4.gd", &[cfg]);
    rt.shutdown_timeout(Duration::from_secs(1));
    let (text, _) = &out[0];
    let line = text
        .lines()
        .find(|l| l.starts_with("PUTVAR "))
        .unwrap_or_else(|| panic!("no PUTVAR line:\n{text}"));
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(f[3], "0", "{text}");
    f[2].parse().unwrap()
}

#[test]
fn godot_put_var_round_trips_without_the_stall() {
    if !common::engine_ready(4, "the put_var stall") {
        return;
    }
    let n = std::env::var("PUTVAR_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    // Up to 3 tries: other work on the machine stretches the client's polling (two CI runs side
    // by side took the example server's twin of this test to 3 s), not in every try; the stall
    // would come back every time.
    let mut tuned = round_trips(true, n);
    for _ in 1..3 {
        if tuned < 1000.0 {
            break;
        }
        tuned = tuned.min(round_trips(true, n));
    }
    // Untuned, 50 are enough to see the stall (1000 would take ~45 s).
    let untuned = round_trips(false, 50);
    eprintln!(
        "put_var round trips, unmodified Godot 4 client: tuned server 1000 in {tuned:.1} ms; \
         untuned server 50 in {untuned:.1} ms ({:.1} ms each)",
        untuned / 50.0
    );
    assert!(tuned < 1000.0, "1000 round trips took {tuned} ms");
}
