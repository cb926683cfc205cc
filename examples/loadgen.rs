//! A bounded load generator for servers that speak the example server's protocol
//! (`examples/server/`, or `benches/servers/godot_server.gd`, the same work in GDScript).
//!
//! It replays engine-written packets over loopback on N connections and checks every reply
//! byte for byte against the reply it expects (so it also detects a lost, duplicated or
//! reordered packet: each connection's replies must come back with `seq` 0, 1, 2, … and echo
//! exactly the packet sent at that position). Two modes:
//!
//! - `--window W`: closed loop, at most W requests in flight per connection: the saturation
//!   throughput;
//! - `--rate R`: open loop, R requests per second in all, evenly spread: the latency at a
//!   fixed offered load (p50 / p99 / p99.9 / max, measured from the request's write to its
//!   reply's arrival).
//!
//! With `--server-pid PID` it reads the server's CPU time and resident memory from `/proc`
//! (Linux): the throughput per core is replies per second of the server's CPU time, and the
//! memory is sampled every second. With `--bad-clients` it also runs misbehaving clients
//! (garbage, an oversize prefix, malformed values, a stall mid-frame, a client that never reads
//! its replies) and reports whether the server dropped each one. Everything stops by itself
//! after `--seconds` (plus at most `--drain` seconds for outstanding replies).
//!
//! ```sh
//! cargo run --release --example loadgen --features tokio -- --addr 127.0.0.1:4242 \
//!     --connections 8 --window 32 --seconds 10 --warmup 2
//! ```

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gdvariant::{owned::RawValue, Dictionary, EncodeOptions, ReadOptions, Variant, VariantType};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One request and the reply expected for it (with `seq` 0; the seq word is patched).
#[derive(Clone, Debug)]
pub struct Case {
    /// The request frame: length prefix and value.
    pub frame: Vec<u8>,
    /// The expected reply's value bytes with `seq` = 0.
    pub reply: Vec<u8>,
}

/// Where the `seq` int's 4 value bytes sit in a reply: after the Dictionary head (8), the key
/// "seq" (12) and the int's header (4).
const SEQ_AT: usize = 24;

/// The expected reply to `value` (engine-written bytes), as the example server defines it.
pub fn case(value: &[u8]) -> gdvariant::Result<Case> {
    let opts = ReadOptions::new();
    let v = gdvariant::parse_with(value, &opts)?;
    let len = gdvariant::validate_with(value, &opts)?;
    let (count, sum) = count_and_sum(&v)?;
    let mut d = Dictionary::new();
    d.insert("seq", 0);
    d.insert("type", i64::from(v.header() & 0xFF));
    d.insert("size", len as i64);
    d.insert("echo", Variant::Raw(RawValue::from_ref(&v)?));
    d.insert("count", count as i64);
    d.insert("sum", Variant::Float(sum));
    let reply = gdvariant::encode_with(&Variant::Dictionary(d), &EncodeOptions::new())?;
    let mut frame = (value.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(value);
    Ok(Case { frame, reply })
}

/// The reply's computed fields, written independently of the server's code.
fn count_and_sum(v: &gdvariant::VariantRef<'_>) -> gdvariant::Result<(usize, f64)> {
    use VariantType as T;
    Ok(match v.ty() {
        T::Array | T::Dictionary | T::PackedStringArray => (v.count(), 0.0),
        T::PackedByteArray => {
            let b = v.as_byte_array()?;
            (b.len(), b.iter().fold(0.0, |s, &x| s + f64::from(x)))
        }
        T::PackedInt32Array => {
            let a = v.as_packed::<i32>()?;
            (a.len(), a.iter().fold(0.0, |s, x| s + f64::from(x)))
        }
        T::PackedInt64Array => {
            let a = v.as_packed::<i64>()?;
            (a.len(), a.iter().fold(0.0, |s, x| s + x as f64))
        }
        T::PackedFloat32Array => {
            let a = v.as_packed::<f32>()?;
            (a.len(), a.iter().fold(0.0, |s, x| s + f64::from(x)))
        }
        T::PackedFloat64Array => {
            let a = v.as_packed::<f64>()?;
            (a.len(), a.iter().fold(0.0, |s, x| s + x))
        }
        T::PackedVector2Array | T::PackedVector3Array | T::PackedVector4Array => {
            let per = match v.ty() {
                T::PackedVector2Array => 2,
                T::PackedVector3Array => 3,
                _ => 4,
            } * if v.is_wide() { 8 } else { 4 };
            ((v.byte_len()? - 8) / per, 0.0)
        }
        T::PackedColorArray => ((v.byte_len()? - 8) / 16, 0.0),
        _ => (0, 0.0),
    })
}

/// How the load is offered.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// At most this many requests in flight per connection.
    Window(usize),
    /// This many requests per second in all.
    Rate(f64),
}

/// A load run.
#[derive(Clone, Debug)]
pub struct Load {
    /// The server.
    pub addr: SocketAddr,
    /// Concurrent connections.
    pub connections: usize,
    /// The mode.
    pub mode: Mode,
    /// Measured time (after the warm-up).
    pub seconds: f64,
    /// Warm-up time, not measured.
    pub warmup: f64,
    /// Longest wait for outstanding replies at the end.
    pub drain: f64,
    /// The requests, sent round-robin (connection k starts at case k).
    pub cases: Arc<Vec<Case>>,
    /// The server process, for CPU time and memory (Linux `/proc`).
    pub server_pid: Option<u32>,
    /// Run the misbehaving clients too.
    pub bad_clients: bool,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Replies received and checked during the measured window.
    pub replies: u64,
    /// Requests sent in all, replies received in all.
    pub sent_total: u64,
    /// Replies received in all.
    pub received_total: u64,
    /// Measured seconds.
    pub seconds: f64,
    /// Server CPU seconds during the measured window, if known.
    pub server_cpu: Option<f64>,
    /// Latencies in µs during the measured window (sorted).
    pub latencies_us: Vec<u32>,
    /// Problems: mismatched, lost or reordered replies, I/O errors.
    pub errors: Vec<String>,
    /// Server RSS samples in KiB, one a second from the end of the warm-up.
    pub rss_kib: Vec<u64>,
    /// What happened to each misbehaving client.
    pub bad: Vec<(String, Result<Duration, String>)>,
}

impl Report {
    /// Replies per second.
    pub fn rate(&self) -> f64 {
        self.replies as f64 / self.seconds
    }

    /// Replies per second of server CPU time.
    pub fn per_core(&self) -> Option<f64> {
        self.server_cpu
            .filter(|&c| c > 0.0)
            .map(|c| self.replies as f64 / c)
    }

    /// The `q` quantile of the latency in µs.
    pub fn latency(&self, q: f64) -> Option<u32> {
        let n = self.latencies_us.len();
        (n > 0).then(|| self.latencies_us[((n - 1) as f64 * q).round() as usize])
    }

    /// One line for scripts: key=value pairs.
    pub fn line(&self) -> String {
        let f = |x: Option<u32>| x.map_or("-".into(), |v| v.to_string());
        format!(
            "RESULT replies={} seconds={:.2} rate={:.0} per_core={} server_cpu={} p50_us={} p99_us={} p999_us={} max_us={} sent={} received={} errors={} rss_first_kib={} rss_last_kib={} rss_max_kib={}",
            self.replies,
            self.seconds,
            self.rate(),
            self.per_core().map_or("-".into(), |v| format!("{v:.0}")),
            self.server_cpu.map_or("-".into(), |v| format!("{v:.2}")),
            f(self.latency(0.5)),
            f(self.latency(0.99)),
            f(self.latency(0.999)),
            f(self.latencies_us.last().copied()),
            self.sent_total,
            self.received_total,
            self.errors.len(),
            self.rss_kib.first().map_or("-".into(), |v| v.to_string()),
            self.rss_kib.last().map_or("-".into(), |v| v.to_string()),
            self.rss_kib.iter().max().map_or("-".into(), |v| v.to_string()),
        )
    }
}

/// `(utime + stime)` of a process in seconds, from `/proc/PID/stat`.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0) // USER_HZ is 100 on Linux
}

/// Resident memory of a process in KiB, from `/proc/PID/status`.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Per-connection results.
#[derive(Default)]
struct Conn {
    replies: u64,
    sent: u64,
    received: u64,
    latencies: Vec<u32>,
    errors: Vec<String>,
}

/// Reads one reply frame into `buf`.
async fn read_frame<R: tokio::io::AsyncRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    let len = r.read_u32_le().await? as usize;
    if len > 64 << 20 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("reply of {len} bytes"),
        ));
    }
    buf.resize(len, 0);
    r.read_exact(buf).await?;
    Ok(())
}

/// Checks reply `seq` of a connection whose first request was case `first`.
fn check(cases: &[Case], first: usize, seq: u64, got: &[u8], errors: &mut Vec<String>) -> bool {
    let c = &cases[(first + seq as usize) % cases.len()];
    let ok = got.len() == c.reply.len()
        && got[..SEQ_AT] == c.reply[..SEQ_AT]
        && got[SEQ_AT..SEQ_AT + 4] == (seq as u32).to_le_bytes()
        && got[SEQ_AT + 4..] == c.reply[SEQ_AT + 4..];
    if !ok && errors.len() < 5 {
        let got_seq = got
            .get(SEQ_AT..SEQ_AT + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()));
        errors.push(format!(
            "reply {seq}: {} bytes, seq {got_seq:?}, not the expected {} bytes (lost, reordered or wrong)",
            got.len(),
            c.reply.len()
        ));
    }
    ok
}

async fn connection(load: Arc<Load>, k: usize, measure_from: Instant, measure_to: Instant) -> Conn {
    let mut out = Conn::default();
    let stream = match TcpStream::connect(load.addr).await {
        Ok(s) => s,
        Err(e) => {
            out.errors.push(format!("connect: {e}"));
            return out;
        }
    };
    let _ = stream.set_nodelay(true);
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::with_capacity(64 * 1024, r);
    let cases = load.cases.clone();
    let first = k % cases.len();
    let times: Arc<Mutex<VecDeque<Instant>>> = Arc::default();
    let end = measure_to;
    let drain_end = end + Duration::from_secs_f64(load.drain);
    let sent = Arc::new(std::sync::atomic::AtomicU64::new(0));

    // The writer: closed loop (credits from the reader) or open loop (a schedule).
    let (credit_tx, mut credit_rx) = tokio::sync::mpsc::unbounded_channel::<usize>();
    let writer = {
        let (cases, times, sent) = (cases.clone(), times.clone(), sent.clone());
        let mode = load.mode;
        let conns = load.connections as f64;
        tokio::spawn(async move {
            let mut buf = Vec::with_capacity(64 * 1024);
            let mut next = 0usize;
            let start = Instant::now();
            let push = |n: usize, buf: &mut Vec<u8>, next: &mut usize| {
                let now = Instant::now();
                let mut t = times.lock().unwrap();
                for _ in 0..n {
                    buf.extend_from_slice(&cases[(first + *next) % cases.len()].frame);
                    t.push_back(now);
                    *next += 1;
                }
            };
            match mode {
                Mode::Window(window) => {
                    let mut credits = window;
                    loop {
                        if Instant::now() >= end {
                            break;
                        }
                        buf.clear();
                        push(credits, &mut buf, &mut next);
                        if w.write_all(&buf).await.is_err() {
                            break;
                        }
                        sent.store(next as u64, std::sync::atomic::Ordering::Relaxed);
                        credits = match credit_rx.recv().await {
                            Some(n) => n,
                            None => break,
                        };
                        while let Ok(n) = credit_rx.try_recv() {
                            credits += n;
                        }
                    }
                }
                Mode::Rate(rate) => {
                    let per_conn = rate / conns;
                    let mut tick = tokio::time::interval(Duration::from_micros(250));
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                    // Spread the connections' schedules over one period.
                    let offset = k as f64 / conns / per_conn;
                    loop {
                        tick.tick().await;
                        let now = Instant::now();
                        if now >= end {
                            break;
                        }
                        let due = ((now - start).as_secs_f64() - offset) * per_conn;
                        let due = if due < 0.0 { 0 } else { due as usize + 1 };
                        if due > next {
                            buf.clear();
                            push(due - next, &mut buf, &mut next);
                            if w.write_all(&buf).await.is_err() {
                                break;
                            }
                            sent.store(next as u64, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
            }
            let _ = w.shutdown().await;
            next as u64
        })
    };

    let mut buf = Vec::new();
    let mut seq = 0u64;
    loop {
        let now = Instant::now();
        let total_sent = sent.load(std::sync::atomic::Ordering::Relaxed);
        if now >= end && seq >= total_sent && writer.is_finished() {
            break;
        }
        if now >= drain_end {
            break;
        }
        let res = tokio::time::timeout(
            drain_end
                .saturating_duration_since(now)
                .max(Duration::from_millis(1)),
            read_frame(&mut r, &mut buf),
        )
        .await;
        match res {
            Err(_) => break,
            Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Ok(Err(e)) => {
                out.errors.push(format!("read: {e}"));
                break;
            }
            Ok(Ok(())) => {}
        }
        let at = Instant::now();
        let sent_at = times.lock().unwrap().pop_front();
        check(&cases, first, seq, &buf, &mut out.errors);
        seq += 1;
        if at >= measure_from && at < measure_to {
            out.replies += 1;
            if let Some(t) = sent_at {
                out.latencies
                    .push((at - t).as_micros().min(u128::from(u32::MAX)) as u32);
            }
        }
        let _ = credit_tx.send(1);
    }
    drop(credit_tx);
    out.sent = writer.await.unwrap_or(0);
    out.received = seq;
    if out.received != out.sent {
        out.errors.push(format!(
            "connection {k}: {} requests sent, {} replies received",
            out.sent, out.received
        ));
    }
    out
}

/// The frame the "no-reader" client sends again and again: a 1 MiB PackedByteArray behind its
/// length prefix.
pub fn no_reader_frame() -> io::Result<Vec<u8>> {
    let v = gdvariant::encode(&Variant::PackedByteArray(vec![1; 1 << 20]))
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut frame = (v.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&v);
    Ok(frame)
}

/// The misbehaving clients ("garbage", "oversize", "malformed", "stall", "no-reader"): each
/// returns how long the server took to drop it, or why it was not dropped within `limit`.
pub async fn bad_client(
    addr: SocketAddr,
    kind: &'static str,
    limit: Duration,
) -> Result<Duration, String> {
    let mut s = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut sink = vec![0u8; 64 * 1024];
    let result = async {
        match kind {
            "garbage" => {
                let mut x = 0x2545_F491_4F6C_DD1Du64;
                let garbage: Vec<u8> = (0..256)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                s.write_all(&garbage).await?;
            }
            "oversize" => s.write_all(&u32::MAX.to_le_bytes()).await?,
            "malformed" => {
                for _ in 0..40 {
                    s.write_all(&[4, 0, 0, 0, 0xFF, 0, 0, 0]).await?;
                }
            }
            "stall" => s.write_all(&[100, 0, 0, 0, 4, 0, 0, 0, 1]).await?,
            "no-reader" => {
                // 1 MB values, replies never read: the server's writes to us block. It drops us
                // with our requests unread, so the kernel resets the connection: our next write
                // fails. (Reading to see the end would take the replies it is waiting on.)
                let frame = no_reader_frame()?;
                // Whole frames only, however slowly the server reads: a write that is not done
                // within 100 ms (to look at the clock) goes on where it stopped (a `write` that
                // times out has written nothing), never starts a new frame in the middle of one.
                let mut at = 0;
                while start.elapsed() < limit {
                    match tokio::time::timeout(Duration::from_millis(100), s.write(&frame[at..]))
                        .await
                    {
                        Ok(Ok(n)) => at = (at + n) % frame.len(),
                        Err(_) => {}
                        Ok(Err(_)) => return Ok(true),
                    }
                }
                return Ok(false);
            }
            _ => unreachable!(),
        }
        // Read until the server closes the connection.
        loop {
            let left = limit.saturating_sub(start.elapsed());
            match tokio::time::timeout(left, s.read(&mut sink)).await {
                Err(_) => return Ok(false),
                Ok(Ok(0)) | Ok(Err(_)) => return Ok(true),
                Ok(Ok(_)) => {}
            }
        }
    }
    .await;
    let result: io::Result<bool> = result;
    match result {
        Ok(true) => Ok(start.elapsed()),
        Err(e)
            if e.kind() == io::ErrorKind::ConnectionReset
                || e.kind() == io::ErrorKind::BrokenPipe =>
        {
            Ok(start.elapsed())
        }
        Ok(false) => Err(format!("still connected after {limit:?}")),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs the load; bounded by `seconds + warmup + drain` (and the bad clients' own limit).
pub async fn run(load: Load) -> Report {
    let load = Arc::new(load);
    let start = Instant::now();
    let measure_from = start + Duration::from_secs_f64(load.warmup);
    let measure_to = measure_from + Duration::from_secs_f64(load.seconds);
    let mut tasks = Vec::new();
    for k in 0..load.connections {
        tasks.push(tokio::spawn(connection(
            load.clone(),
            k,
            measure_from,
            measure_to,
        )));
    }
    let bad = if load.bad_clients {
        let limit = Duration::from_secs_f64(load.warmup + load.seconds);
        ["garbage", "oversize", "malformed", "stall", "no-reader"]
            .into_iter()
            .map(|kind| (kind, tokio::spawn(bad_client(load.addr, kind, limit))))
            .collect()
    } else {
        Vec::new()
    };
    // CPU and memory of the server over the measured window.
    let pid = load.server_pid;
    let sampler = tokio::spawn(async move {
        tokio::time::sleep_until(measure_from.into()).await;
        let cpu0 = pid.and_then(cpu_seconds);
        let mut rss = Vec::new();
        while Instant::now() < measure_to {
            if let Some(r) = pid.and_then(rss_kib) {
                rss.push(r);
            }
            let next = (Instant::now() + Duration::from_secs(1)).min(measure_to);
            tokio::time::sleep_until(next.into()).await;
        }
        if let Some(r) = pid.and_then(rss_kib) {
            rss.push(r);
        }
        let cpu = match (cpu0, pid.and_then(cpu_seconds)) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        (cpu, rss)
    });
    let mut report = Report {
        seconds: load.seconds,
        ..Report::default()
    };
    for t in tasks {
        let c = t.await.unwrap_or_default();
        report.replies += c.replies;
        report.sent_total += c.sent;
        report.received_total += c.received;
        report.latencies_us.extend(c.latencies);
        report.errors.extend(c.errors);
    }
    let (cpu, rss) = sampler.await.unwrap_or_default();
    report.server_cpu = cpu;
    report.rss_kib = rss;
    for (kind, t) in bad {
        let r = t.await.unwrap_or_else(|e| Err(e.to_string()));
        report.bad.push((kind.to_string(), r));
    }
    report.latencies_us.sort_unstable();
    report
}

/// The default workload: the engine-written packets shipped in the repository, the 212-byte
/// client input packet every other request.
pub fn default_cases(root: &std::path::Path) -> Vec<Case> {
    let input = std::fs::read(root.join("benches/data/input_packet.bin")).expect("input packet");
    let golden =
        std::fs::read_to_string(root.join("tests/data/godot4/encode.tsv")).expect("golden");
    let mut cases = Vec::new();
    let input_case = case(&input).expect("input packet");
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 || f[1] != "-" || EXCLUDED.contains(&f[0]) {
            continue;
        }
        let bytes: Vec<u8> = (0..f[2].len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&f[2][i..i + 2], 16).unwrap())
            .collect();
        let Ok(v) = gdvariant::parse(&bytes).and_then(|v| v.to_owned()) else {
            continue;
        };
        if has_object(&v) || bytes.len() > 4096 {
            continue;
        }
        cases.push(input_case.clone());
        cases.push(case(&bytes).expect("golden value"));
    }
    cases
}

/// Golden values a Godot server cannot echo byte for byte (its decode of them re-encodes
/// differently; see `ENGINE_CANNOT_ROUND_TRIP` in tests/engine/live.rs).
const EXCLUDED: &[&str] = &["tdict_script_int_empty"];

fn has_object(v: &Variant) -> bool {
    match v {
        Variant::Object(_) | Variant::Signal(_) => true,
        Variant::Array(a) => a.items.iter().any(has_object),
        Variant::Dictionary(d) => d.iter().any(|(k, v)| has_object(k) || has_object(v)),
        _ => false,
    }
}

#[allow(dead_code)] // the tests include this file as a module
fn main() {
    let mut load = Load {
        addr: SocketAddr::from(([127, 0, 0, 1], 4242)),
        connections: 8,
        mode: Mode::Window(32),
        seconds: 10.0,
        warmup: 2.0,
        drain: 5.0,
        cases: Arc::new(Vec::new()),
        server_pid: None,
        bad_clients: false,
    };
    let mut args = std::env::args().skip(1);
    let usage = "usage: loadgen [--addr ADDR] [--connections N] [--window W | --rate R] [--seconds S] [--warmup S] [--server-pid PID] [--bad-clients]";
    while let Some(a) = args.next() {
        let mut val = || {
            args.next().unwrap_or_else(|| {
                eprintln!("{a} needs a value\n{usage}");
                std::process::exit(2)
            })
        };
        let bad = |e: &dyn std::fmt::Display| -> ! {
            eprintln!("{e}\n{usage}");
            std::process::exit(2)
        };
        match a.as_str() {
            "--addr" => load.addr = val().parse().unwrap_or_else(|e| bad(&e)),
            "--connections" => load.connections = val().parse().unwrap_or_else(|e| bad(&e)),
            "--window" => load.mode = Mode::Window(val().parse().unwrap_or_else(|e| bad(&e))),
            "--rate" => load.mode = Mode::Rate(val().parse().unwrap_or_else(|e| bad(&e))),
            "--seconds" => load.seconds = val().parse().unwrap_or_else(|e| bad(&e)),
            "--warmup" => load.warmup = val().parse().unwrap_or_else(|e| bad(&e)),
            "--server-pid" => load.server_pid = Some(val().parse().unwrap_or_else(|e| bad(&e))),
            "--bad-clients" => load.bad_clients = true,
            _ => bad(&"unknown argument"),
        }
    }
    if !(load.seconds > 0.0
        && load.seconds <= 600.0
        && load.connections > 0
        && load.connections <= 1024)
    {
        eprintln!("--seconds in (0, 600], --connections in [1, 1024]");
        std::process::exit(2);
    }
    load.cases = Arc::new(default_cases(std::path::Path::new(env!(
        "CARGO_MANIFEST_DIR"
    ))));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt.block_on(run(load));
    for e in &report.errors {
        eprintln!("error: {e}");
    }
    for (kind, r) in &report.bad {
        match r {
            Ok(t) => println!("BAD {kind} dropped after {:.2} s", t.as_secs_f64()),
            Err(e) => println!("BAD {kind} NOT dropped: {e}"),
        }
    }
    println!("{}", report.line());
    if !report.errors.is_empty() || report.bad.iter().any(|(_, r)| r.is_err()) {
        std::process::exit(1);
    }
}
