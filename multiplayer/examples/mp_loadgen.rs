//! A bounded load generator for the `echo_server` contract (and a Godot 4 server running the same
//! script, `tests/godot/mpserver_server4.gd`): up to a few thousand Godot 4 clients in one
//! process, over WebSocket or ENet, each caching `/root/Main` and calling `echo(n)` with a
//! sequence number; every `echoed(n)` must come back in order (reliable channel: none lost,
//! none reordered).
//!
//! ```sh
//! cargo run --release -p gdvariant-multiplayer --features server-ws,server-enet --example mp_loadgen -- \
//!     (--ws ADDR:PORT | --enet ADDR:PORT) [--peers N] [--seconds S] [--window W] [--rate R] [--pid PID]
//! ```
//!
//! `--window W`: each peer keeps W calls in flight (closed loop: the server's saturation).
//! `--rate R`: R calls per second in all, spread over the peers (open loop, at most W in flight
//! per peer). `--pid`: the server's process, to report its CPU time and memory per peer (from
//! `/proc`). Prints one line `RESULT key=value ...`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, SinkExt, StreamExt};
use gdvariant::Variant;
use gdvariant_multiplayer::{
    self as multiplayer, confirm_path, simplify_path, Packet, RemoteCallBuilder, RpcMethods, Target,
};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

#[derive(Clone, Debug)]
struct Opts {
    ws: Option<SocketAddr>,
    enet: Option<SocketAddr>,
    peers: usize,
    seconds: f64,
    window: usize,
    rate: Option<f64>,
    pid: Option<u32>,
}

/// What a peer reports: latencies in µs, errors.
#[derive(Default, Debug)]
struct Report {
    lat: Vec<u32>,
    lost_or_reordered: u64,
    connected: bool,
}

fn usage(why: &str) -> ! {
    eprintln!("mp_loadgen: {why}\nusage: mp_loadgen (--ws ADDR:PORT | --enet ADDR:PORT) [--peers N] [--seconds S] [--window W] [--rate R] [--pid PID]");
    std::process::exit(2)
}

fn opts() -> Opts {
    let mut o = Opts {
        ws: None,
        enet: None,
        peers: 100,
        seconds: 5.0,
        window: 1,
        rate: None,
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
            "--window" => o.window = v.parse().unwrap_or_else(|e| bad(&e)),
            "--rate" => o.rate = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            "--pid" => o.pid = Some(v.parse().unwrap_or_else(|e| bad(&e))),
            _ => usage(&format!("unknown argument {k}")),
        }
    }
    if o.ws.is_some() == o.enet.is_some() {
        usage("give one of --ws and --enet");
    }
    o.peers = o.peers.clamp(1, 4000);
    o.window = o.window.clamp(1, 1000);
    o.seconds = o.seconds.clamp(0.1, 120.0);
    o
}

/// The echo protocol of one client, transport aside.
struct Proto {
    checksum: [u8; 32],
    sent: std::collections::VecDeque<(i64, Instant)>,
    next: i64,
    report: Report,
}

impl Proto {
    fn new() -> Proto {
        Proto {
            checksum: RpcMethods::new(["echo", "echoed"]).checksum(),
            sent: Default::default(),
            next: 0,
            report: Report::default(),
        }
    }

    /// The first packets: `/root/Main` cached as id 1.
    fn hello(&self) -> Vec<u8> {
        simplify_path(&self.checksum, 1, "Main").unwrap()
    }

    fn call(&mut self) -> Vec<u8> {
        let n = self.next;
        self.next += 1;
        self.sent.push_back((n, Instant::now()));
        RemoteCallBuilder::new(Target::Id(1), 0)
            .arg(&Variant::Int(n))
            .unwrap()
            .finish()
            .unwrap()
    }

    /// A packet from the server; an answer to send, if any.
    fn receive(&mut self, b: &[u8], measuring: bool) -> Option<Vec<u8>> {
        match multiplayer::parse(b) {
            Ok(Packet::SimplifyPath(s)) => Some(confirm_path(true, s.id())),
            Ok(Packet::RemoteCall(c)) => {
                let got = c
                    .args()
                    .next()
                    .and_then(|a| a.ok())
                    .and_then(|a| a.as_i64().ok());
                match (self.sent.pop_front(), got) {
                    (Some((n, at)), Some(g)) if n == g => {
                        if measuring {
                            self.report
                                .lat
                                .push(at.elapsed().as_micros().min(u32::MAX as u128) as u32);
                        }
                    }
                    _ => self.report.lost_or_reordered += 1,
                }
                None
            }
            _ => None,
        }
    }
}

/// Paces one peer: whether it may send now.
struct Pace {
    interval: Option<Duration>,
    next: Instant,
    window: usize,
}

impl Pace {
    fn ready(&mut self, in_flight: usize) -> bool {
        if in_flight >= self.window {
            return false;
        }
        match self.interval {
            None => true,
            Some(i) if Instant::now() >= self.next => {
                self.next += i;
                true
            }
            Some(_) => false,
        }
    }

    fn wait(&self) -> Duration {
        self.interval.map_or(Duration::from_millis(50), |_| {
            self.next.saturating_duration_since(Instant::now())
        })
    }
}

async fn ws_peer(
    addr: SocketAddr,
    mut pace: Pace,
    start: Instant,
    warm: Instant,
    end: Instant,
) -> Report {
    let mut p = Proto::new();
    let Ok(tcp) = tokio::net::TcpStream::connect(addr).await else {
        return p.report;
    };
    let _ = tcp.set_nodelay(true);
    let Ok((ws, _)) = tokio_tungstenite::client_async(format!("ws://{addr}/"), tcp).await else {
        return p.report;
    };
    let (mut tx, mut rx) = ws.split();
    // The server's first message: our id.
    match rx.next().await {
        Some(Ok(Message::Binary(b))) if b.len() == 4 => {}
        _ => return p.report,
    }
    p.report.connected = true;
    let _ = tx.send(Message::Binary(p.hello().into())).await;
    let _ = start;
    while Instant::now() < end {
        while pace.ready(p.sent.len()) && Instant::now() < end {
            if tx.feed(Message::Binary(p.call().into())).await.is_err() {
                return p.report;
            }
        }
        if tx.flush().await.is_err() {
            return p.report;
        }
        // Closed loop: wait for an answer; open loop: until the next send is due.
        let first = if pace.interval.is_none() && !p.sent.is_empty() {
            tokio::time::timeout(Duration::from_secs(1), rx.next())
                .await
                .ok()
        } else {
            tokio::time::timeout(pace.wait().max(Duration::from_micros(100)), rx.next())
                .await
                .ok()
        };
        let mut next = first;
        // Everything that already arrived, in one go.
        while let Some(msg) = next.take() {
            match msg {
                Some(Ok(Message::Binary(b))) => {
                    if let Some(a) = p.receive(&b, Instant::now() >= warm) {
                        let _ = tx.feed(Message::Binary(a.into())).await;
                    }
                }
                Some(Ok(_)) => {}
                _ => return p.report,
            }
            next = rx.next().now_or_never();
        }
    }
    let _ = tx.send(Message::Close(None)).await;
    p.report
}

/// ENet peers, all on one host (one thread): rusty_enet's host is not async.
fn enet_peers(
    addr: SocketAddr,
    n: usize,
    window: usize,
    rate: Option<f64>,
    warm: Instant,
    end: Instant,
    out: mpsc::UnboundedSender<Report>,
) {
    use rusty_enet as enet;
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let s = socket2::SockRef::from(&sock);
    let _ = s.set_recv_buffer_size(4 << 20);
    let _ = s.set_send_buffer_size(4 << 20);
    let mut host = enet::Host::new(
        sock,
        enet::HostSettings {
            peer_limit: n,
            channel_limit: 255,
            ..Default::default()
        },
    )
    .unwrap();
    let mut protos: Vec<Proto> = (0..n).map(|_| Proto::new()).collect();
    let mut paces: Vec<Pace> = (0..n)
        .map(|i| Pace {
            interval: rate.map(|r| Duration::from_secs_f64(n as f64 / r)),
            next: Instant::now() + Duration::from_micros((i as u64 * 997) % 10_000),
            window,
        })
        .collect();
    let mut ids = Vec::new();
    for i in 0..n {
        let id = 2 + (std::process::id() as u32 % 1000) * 10_000 + i as u32;
        let p = host.connect(addr, 255, id).unwrap();
        ids.push(p.id());
    }
    let mut connected = vec![false; n];
    while Instant::now() < end {
        while let Ok(Some(ev)) = host.service() {
            match ev {
                enet::Event::Connect { peer, .. } => {
                    let i = peer.id().0;
                    connected[i] = true;
                    protos[i].report.connected = true;
                    let _ = peer.send(0, &enet::Packet::reliable(protos[i].hello()));
                }
                enet::Event::Receive { peer, packet, .. } => {
                    let i = peer.id().0;
                    if let Some(a) = protos[i].receive(packet.data(), Instant::now() >= warm) {
                        let _ = peer.send(0, &enet::Packet::reliable(a));
                    }
                }
                enet::Event::Disconnect { peer, .. } => connected[peer.id().0] = false,
            }
        }
        for i in 0..n {
            if !connected[i] {
                continue;
            }
            while paces[i].ready(protos[i].sent.len()) {
                let b = protos[i].call();
                let _ = host.peer_mut(ids[i]).send(0, &enet::Packet::reliable(b));
            }
        }
        host.flush();
        std::thread::sleep(Duration::from_micros(100));
    }
    for (i, p) in protos.into_iter().enumerate() {
        host.peer_mut(ids[i]).disconnect(0);
        let _ = out.send(p.report);
    }
    host.flush();
}

fn proc_stat(pid: u32) -> Option<(f64, u64)> {
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
    let before = o.pid.and_then(proc_stat);
    let start = Instant::now();
    // Connections are made during the first second (or more, for many peers); then a warm-up
    // second; then the measured time.
    let ramp = Duration::from_secs_f64(1.0 + o.peers as f64 / 500.0);
    let warm = start + ramp + Duration::from_secs(1);
    let end = warm + Duration::from_secs_f64(o.seconds);
    let (tx, mut rx) = mpsc::unbounded_channel();
    if let Some(addr) = o.enet {
        let (n, w, r) = (o.peers, o.window, o.rate);
        let tx = tx.clone();
        std::thread::spawn(move || enet_peers(addr, n, w, r, warm, end, tx));
    } else if let Some(addr) = o.ws {
        for i in 0..o.peers {
            let pace = Pace {
                interval: o.rate.map(|r| Duration::from_secs_f64(o.peers as f64 / r)),
                next: start + ramp + Duration::from_micros((i as u64 * 997) % 10_000),
                window: o.window,
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let r = ws_peer(addr, pace, start, warm, end).await;
                let _ = tx.send(r);
            });
            if i % 50 == 49 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    drop(tx);
    // Memory with every peer connected, before the load.
    tokio::time::sleep(ramp).await;
    let loaded = o.pid.and_then(proc_stat);
    let warm_stat = {
        tokio::time::sleep(warm.saturating_duration_since(Instant::now())).await;
        o.pid.and_then(proc_stat)
    };
    let mut reports = Vec::new();
    while let Some(r) = rx.recv().await {
        reports.push(r);
    }
    let after = o.pid.and_then(proc_stat);
    let connected = reports.iter().filter(|r| r.connected).count();
    let mut lat: Vec<u32> = reports.iter().flat_map(|r| r.lat.iter().copied()).collect();
    lat.sort_unstable();
    let bad: u64 = reports.iter().map(|r| r.lost_or_reordered).sum();
    let q = |p: f64| {
        lat.get(((lat.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0)
    };
    let rate = lat.len() as f64 / o.seconds;
    let mut line = format!(
        "RESULT peers={} connected={connected} echoes={} echoes_per_s={rate:.0} p50_us={} p99_us={} max_us={} lost_or_reordered={bad}",
        o.peers,
        lat.len(),
        q(0.5),
        q(0.99),
        lat.last().copied().unwrap_or(0)
    );
    if let (Some((c0, _)), Some((c1, _))) = (warm_stat, after) {
        let cpu = (c1 - c0).max(0.01);
        line += &format!(
            " server_cpu_s={cpu:.2} echoes_per_cpu_s={:.0}",
            lat.len() as f64 / cpu
        );
    }
    if let (Some((_, m0)), Some((_, m1))) = (before, loaded) {
        line += &format!(
            " server_rss_kib={m1} kib_per_peer={:.1}",
            (m1 as f64 - m0 as f64) / connected.max(1) as f64
        );
    }
    println!("{line}");
}
