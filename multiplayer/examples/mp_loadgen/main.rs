//! A bounded load generator for the `echo_server` contract (and a Godot 4 server running the same
//! script, `tests/godot/mpserver_server4.gd`): up to a few thousand Godot 4 clients in one
//! process, over WebSocket (a minimal client on the crate's framing) or ENet (rusty_enet, many
//! peers per host), each caching `/root/Main` and calling `echo(n)` with a sequence number; every
//! `echoed(n)` must come back in order (reliable channel: none lost, none reordered).
//!
//! ```sh
//! cargo run --release -p gdvariant-multiplayer --features server-ws,server-enet --example mp_loadgen -- \
//!     (--ws ADDR:PORT | --enet ADDR:PORT) [--peers N] [--seconds S] [--warmup S] [--window W]
//!     [--rate R] [--hosts H] [--connecting C] [--stall S] [--pid PID]
//! ```
//!
//! The peers connect (and cache the path) first; the calls start once all of them are ready, or
//! once `--stall` seconds (default 10) passed without one more peer ready (the late ones then
//! leave, before the calls), then `--warmup` seconds (default 1) not measured, then `--seconds`
//! measured (default 5); then the calls still in flight have 2 s to come back.
//!
//! The wait ends on a stall, not at a fixed time, because the Godot 4 ENet server admits peers
//! ever more slowly: each join makes the engine send an `ADD_PEER` to every peer (and every
//! peer's ADD_PEER to the new one), one datagram each (every `put_packet` flushes the host), and
//! it reads its socket once a frame, at most 256 datagrams, about 145 frames a second headless
//! (6.9 ms asleep a frame): the acknowledgements of those messages overflow its socket's receive
//! buffer and ENet resends them. With 8 connecting at a time it admitted 1000 peers in 59 s
//! (500 in 15 s, 900 in 40 s; 527 806 datagrams dropped by its socket on loopback, load
//! average 6); the fixed wait this replaced (5 s + 10 ms a peer, 15 s) started the calls with
//! 475-621 of them.
//!
//! `--window W`: each peer keeps W calls in flight (closed loop: the server's saturation).
//! `--rate R`: R calls per second in all, spread evenly over the peers and over time (open loop,
//! at most W in flight per peer): each peer's calls one interval apart, the peers' offsets spread
//! evenly over one interval, every call framed when its instant passed. The instants are kept by
//! the `clock` module, not tokio's timer: its 1 ms ticks sent the calls due within a millisecond
//! together, a burst that the last of them waited through, at the server and here (at 65 197/s
//! with 1000 WebSocket peers, on a quiet machine: p50 0.47 ms, p99 4.1 ms); the clock spins on
//! the generator's core instead while the calls go, to within a few µs of their instants. The
//! `RESULT` line then also has `late_p50_us` and `late_p99_us`: how late after its instant each
//! measured call was framed (the pacing's own error; the round trips count from the framing). `--hosts H` (ENet): the peers spread over H ENet hosts (UDP
//! sockets). `--connecting C` (default 8): at most C peers connecting (until ready) at a time:
//! the Godot WebSocket server accepts few connections at once (a burst beyond its accept queue
//! waits for SYN retries); its ENet server with 1000 peers got all of them ready in 59 s at 8,
//! 805 in 129 s at 1, and at 32 988 in 30 s but never the last 7 (58 more dropped during the
//! calls). `--pid`: the server's process, to report its CPU time over the measured seconds and
//! its memory per peer (from `/proc`). Prints one line `RESULT key=value ...`.

mod clock;
mod enet;
mod proto;
mod ws;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clock::Clock;
use proto::{Pace, Phases, Report, Run};
use tokio::sync::watch;

/// The longest the peers have to connect, progress or not (`--stall` ends the wait first when
/// they stop getting ready).
const CONNECT_MAX: Duration = Duration::from_secs(300);

#[derive(Clone, Debug)]
struct Opts {
    ws: Option<SocketAddr>,
    enet: Option<SocketAddr>,
    peers: usize,
    seconds: f64,
    warmup: f64,
    window: usize,
    rate: Option<f64>,
    hosts: usize,
    connecting: usize,
    stall: f64,
    pid: Option<u32>,
}

fn usage(why: &str) -> ! {
    eprintln!("mp_loadgen: {why}\nusage: mp_loadgen (--ws ADDR:PORT | --enet ADDR:PORT) [--peers N] [--seconds S] [--warmup S] [--window W] [--rate R] [--hosts H] [--connecting C] [--stall S] [--pid PID]");
    std::process::exit(2)
}

fn opts() -> Opts {
    let mut o = Opts {
        ws: None,
        enet: None,
        peers: 100,
        seconds: 5.0,
        warmup: 1.0,
        window: 1,
        rate: None,
        hosts: 1,
        connecting: 8,
        stall: 10.0,
        pid: None,
    };
    let mut a = std::env::args().skip(1);
    while let Some(k) = a.next() {
        let v = a
            .next()
            .unwrap_or_else(|| usage(&format!("{k} needs a value")));
        let bad = |e: &dyn std::fmt::Display| -> ! { usage(&format!("{k} {v}: {e}")) };
        match k.as_str() {
            "--ws" => o.ws = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            "--enet" => o.enet = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            "--peers" => o.peers = v.parse().unwrap_or_else(|e| bad(&e)),
            "--seconds" => o.seconds = v.parse().unwrap_or_else(|e| bad(&e)),
            "--warmup" => o.warmup = v.parse().unwrap_or_else(|e| bad(&e)),
            "--window" => o.window = v.parse().unwrap_or_else(|e| bad(&e)),
            "--rate" => o.rate = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            "--hosts" => o.hosts = v.parse().unwrap_or_else(|e| bad(&e)),
            "--connecting" => o.connecting = v.parse().unwrap_or_else(|e| bad(&e)),
            "--stall" => o.stall = v.parse().unwrap_or_else(|e| bad(&e)),
            "--pid" => o.pid = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            _ => usage(&format!("unknown argument {k}")),
        }
    }
    if o.ws.is_some() == o.enet.is_some() {
        usage("give one of --ws and --enet");
    }
    o.peers = o.peers.clamp(1, 4000);
    o.window = o.window.clamp(1, 1000);
    o.hosts = o.hosts.clamp(1, o.peers);
    o.connecting = o.connecting.clamp(1, o.peers);
    o.seconds = o.seconds.clamp(0.1, 120.0);
    o.warmup = o.warmup.clamp(0.0, 60.0);
    o.stall = o.stall.clamp(0.1, 120.0);
    if o.rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        usage("--rate must be above 0");
    }
    o
}

/// The `p` quantile of sorted `v` (0 if empty).
fn quantile(v: &[u32], p: f64) -> u32 {
    v.get(((v.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(0)
}

/// A process's CPU seconds (user + system) and resident memory in KiB, from `/proc`.
fn proc_stat(pid: &str) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ticks / 100.0, rss))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let o = opts();
    let server = o.pid.map(|p| p.to_string());
    let before = server.as_deref().and_then(proc_stat);
    let t0 = Instant::now();
    // The longest wait for the peers, however steady the progress.
    let connect_by = t0 + CONNECT_MAX;
    let ready = Arc::new(AtomicUsize::new(0));
    let (ph_tx, ph_rx) = watch::channel(None::<Phases>);
    let paces = (0..o.peers).map(|i| Pace::new(i, o.peers, o.rate, o.window));
    let mut tasks: Vec<tokio::task::JoinHandle<Vec<Report>>> = Vec::new();
    // Open loop: the calls' instants, run from the phases on (see `clock`).
    let clock = Arc::new(Clock::default());
    let run = Run {
        ready: ready.clone(),
        phases: ph_rx,
        connect_by,
        clock: clock.clone(),
    };
    if let Some(addr) = o.enet {
        let mut paces: Vec<Pace> = paces.collect();
        let per = o.peers.div_ceil(o.hosts);
        let mut first = 0;
        while !paces.is_empty() {
            let rest = paces.split_off(per.min(paces.len()));
            let mine = std::mem::replace(&mut paces, rest);
            let k = mine.len();
            let c = o.connecting.div_ceil(o.hosts);
            tasks.push(tokio::spawn(enet::host(addr, first, mine, run.clone(), c)));
            first += k;
        }
    } else if let Some(addr) = o.ws {
        let connecting = Arc::new(tokio::sync::Semaphore::new(o.connecting));
        for pace in paces {
            let (r, c) = (run.clone(), connecting.clone());
            tasks.push(tokio::spawn(async move {
                vec![ws::peer(addr, pace, r, c).await]
            }));
        }
    }
    // Every peer ready, or `stall` seconds without one more: the calls start.
    let stall = Duration::from_secs_f64(o.stall);
    let (mut seen, mut progress) = (0, t0);
    loop {
        let (n, now) = (ready.load(Ordering::Relaxed), Instant::now());
        if n > seen {
            (seen, progress) = (n, now);
        }
        if n >= o.peers || now >= connect_by || now >= progress + stall {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let connect_s = t0.elapsed().as_secs_f64();
    let start = Instant::now() + Duration::from_millis(20);
    let warm = start + Duration::from_secs_f64(o.warmup);
    let end = warm + Duration::from_secs_f64(o.seconds);
    let ph = Phases {
        start,
        warm,
        end,
        drain: end + Duration::from_secs(2),
    };
    let _ = ph_tx.send(Some(ph));
    if o.rate.is_some() {
        tokio::spawn(clock.run(end));
    }
    // The CPU times at the measurement's start and end, read by a thread of their own: the
    // runtime's thread may be too busy with the peers to wake on time.
    let sampler = std::thread::spawn(move || {
        let sample = || {
            let stat = server.as_deref().and_then(proc_stat);
            (stat, proc_stat("self"))
        };
        std::thread::sleep(warm.saturating_duration_since(Instant::now()));
        let at_warm = sample();
        std::thread::sleep(end.saturating_duration_since(Instant::now()));
        (at_warm, sample())
    });
    let mut reports = Vec::new();
    for t in tasks {
        reports.extend(t.await.unwrap_or_default());
    }
    let ((at_warm, gen_warm), (at_end, gen_end)) = sampler.join().unwrap_or_default();
    let ready_n = reports.iter().filter(|r| r.ready).count();
    let dropped = reports.iter().filter(|r| r.ready && r.dropped).count();
    let mut lat: Vec<u32> = reports.iter().flat_map(|r| r.lat.iter().copied()).collect();
    lat.sort_unstable();
    let lost: u64 = reports.iter().filter(|r| r.ready).map(|r| r.lost).sum();
    let reordered: u64 = reports.iter().map(|r| r.reordered).sum();
    let q = |p: f64| quantile(&lat, p);
    let mut late: Vec<u32> = reports
        .iter()
        .flat_map(|r| r.late.iter().copied())
        .collect();
    late.sort_unstable();
    let mut line = format!(
        "RESULT peers={} connected={ready_n} dropped={dropped} connect_s={connect_s:.1} echoes={} echoes_per_s={:.0} p50_us={} p99_us={} p999_us={} max_us={} lost={lost} reordered={reordered} lost_or_reordered={}",
        o.peers,
        lat.len(),
        lat.len() as f64 / o.seconds,
        q(0.5),
        q(0.99),
        q(0.999),
        lat.last().copied().unwrap_or(0),
        lost + reordered,
    );
    if o.rate.is_some() {
        let at = |p: f64| quantile(&late, p);
        line += &format!(" late_p50_us={} late_p99_us={}", at(0.5), at(0.99));
    }
    if let (Some((g0, _)), Some((g1, _))) = (gen_warm, gen_end) {
        line += &format!(" gen_cpu={:.2}", (g1 - g0) / o.seconds);
    }
    if let (Some((c0, _)), Some((c1, _))) = (at_warm, at_end) {
        let cpu = (c1 - c0).max(0.01);
        line += &format!(
            " server_cpu={:.2} echoes_per_cpu_s={:.0}",
            cpu / o.seconds,
            lat.len() as f64 / cpu
        );
    }
    if let (Some((_, m0)), Some((_, m1))) = (before, at_warm) {
        line += &format!(
            " server_rss_kib={m1} kib_per_peer={:.1}",
            (m1 as f64 - m0 as f64) / ready_n.max(1) as f64
        );
    }
    println!("{line}");
}
