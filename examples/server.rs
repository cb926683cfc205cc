//! An echo server for Godot clients, over TCP (`StreamPeerTCP.put_var`, `PacketPeerStream`)
//! and WebSocket (`WebSocketPeer.put_var`), with tokio.
//!
//! ```sh
//! cargo run --release --example server --features tokio -- --tcp 127.0.0.1:4242 --ws 127.0.0.1:4243
//! ```
//!
//! Every value a client sends is answered with one Dictionary, in this key order:
//!
//! | key | value |
//! |---|---|
//! | `"seq"` | the packet's index on this connection, from 0 |
//! | `"type"` | the value's type id (what `typeof()` returns in the client's engine) |
//! | `"size"` | the value's encoded size in bytes |
//! | `"echo"` | the value itself, passed through as its received bytes (never decoded) |
//! | `"count"` | elements of an Array, PackedArray or PackedStringArray, pairs of a Dictionary; else 0 |
//! | `"sum"` | the sum (as a float, in order) of a packed numeric array's elements; else 0.0 |
//!
//! A value that is malformed, or whose reply cannot be written (the echo nests the value one
//! level deeper, so a value at the depth limit cannot be echoed), is answered with
//! `{"seq": n, "error": "<what> at offset N"}` and the connection goes on; after `--max-malformed` of them in a row (default 16) the client is
//! dropped. A length prefix over `--max-frame` (default 8 MiB, the engine's default), a frame
//! not complete `--frame-timeout` seconds after its first byte (default 10), or replies not
//! read for that long also drop the client; every drop is logged with its reason on standard
//! error. On SIGINT / SIGTERM the server stops accepting, flushes every reply, closes every
//! connection (TCP FIN, WebSocket Close) and prints its counters.
//!
//! The TCP stream and the WebSocket messages carry the same values: on TCP each is a frame
//! with a `u32` length prefix ([`VarCodec`]); a WebSocket binary message is exactly one value,
//! no prefix ([`Packet::from_message`]). Both paths read the request in the socket's buffer
//! (a [`Packet`] is a slice of it) and write the reply once, with the streaming
//! [`Writer`](gdvariant::Writer), into the outgoing buffer.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use gdvariant::codec::{write_with, CodecError, VarCodec};
use gdvariant::packet::Packet;
use gdvariant::{Dialect, EncodeOptions, Error, ReadOptions, VariantType, Writer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::codec::{FramedRead, FramedWrite};

/// What the server listens on and how it treats its clients.
#[derive(Clone, Debug)]
pub struct Config {
    /// The TCP (`StreamPeerTCP`) address.
    pub tcp: SocketAddr,
    /// The WebSocket address, if any.
    pub ws: Option<SocketAddr>,
    /// The clients' dialect (a Godot 3 client needs `Dialect::Godot3`).
    pub dialect: Dialect,
    /// The largest value accepted or sent.
    pub max_frame: usize,
    /// How long a frame may take from its first byte, and a reply to be taken by the client.
    pub frame_timeout: Duration,
    /// Malformed values in a row after which a client is dropped.
    pub max_malformed: u32,
    /// Log every connection and disconnection (drops are always logged).
    pub verbose: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            tcp: SocketAddr::from(([127, 0, 0, 1], 4242)),
            ws: None,
            dialect: Dialect::Godot4,
            max_frame: gdvariant::framing::DEFAULT_MAX_FRAME,
            frame_timeout: Duration::from_secs(10),
            max_malformed: 16,
            verbose: false,
        }
    }
}

/// The server's counters.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections accepted.
    pub connections: AtomicU64,
    /// Values answered.
    pub packets: AtomicU64,
    /// Malformed values answered with an error.
    pub malformed: AtomicU64,
    /// Connections closed by their peer.
    pub closed: AtomicU64,
    /// Connections dropped by the server (bad framing, stall, too many malformed values).
    pub dropped: AtomicU64,
}

impl Stats {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// One line with every counter.
    pub fn summary(&self) -> String {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "connections={} packets={} malformed={} closed_by_peer={} dropped={}",
            g(&self.connections),
            g(&self.packets),
            g(&self.malformed),
            g(&self.closed),
            g(&self.dropped)
        )
    }
}

/// A running server.
pub struct Server {
    /// The bound TCP address.
    pub tcp: SocketAddr,
    /// The bound WebSocket address.
    pub ws: Option<SocketAddr>,
    /// The counters, live.
    pub stats: Arc<Stats>,
    stop: watch::Sender<bool>,
    acceptors: JoinSet<()>,
}

impl Server {
    /// Binds the listeners and starts accepting.
    pub async fn start(cfg: Config) -> io::Result<Server> {
        let stats = Arc::new(Stats::default());
        let (stop, stopped) = watch::channel(false);
        let mut acceptors = JoinSet::new();
        let tcp = TcpListener::bind(cfg.tcp).await?;
        let tcp_addr = tcp.local_addr()?;
        let cfg = Arc::new(cfg);
        acceptors.spawn(accept(
            tcp,
            Kind::Tcp,
            cfg.clone(),
            stats.clone(),
            stopped.clone(),
        ));
        let mut ws_addr = None;
        if let Some(addr) = cfg.ws {
            let ws = TcpListener::bind(addr).await?;
            ws_addr = Some(ws.local_addr()?);
            acceptors.spawn(accept(ws, Kind::Ws, cfg.clone(), stats.clone(), stopped));
        }
        Ok(Server {
            tcp: tcp_addr,
            ws: ws_addr,
            stats,
            stop,
            acceptors,
        })
    }

    /// Stops accepting, lets every connection flush its replies and close, and waits for them
    /// (at most `grace`; connections still open then are aborted and logged).
    pub async fn shutdown(mut self, grace: Duration) -> Arc<Stats> {
        let _ = self.stop.send(true);
        let deadline = tokio::time::sleep(grace);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                next = self.acceptors.join_next() => if next.is_none() { break },
                _ = &mut deadline => {
                    eprintln!("[server] shutdown: grace period over, aborting the rest");
                    self.acceptors.abort_all();
                    while self.acceptors.join_next().await.is_some() {}
                    break;
                }
            }
        }
        self.stats
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Tcp,
    Ws,
}

/// Accepts connections until told to stop, then waits for its connections to finish.
async fn accept(
    listener: TcpListener,
    kind: Kind,
    cfg: Arc<Config>,
    stats: Arc<Stats>,
    mut stop: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            res = listener.accept() => match res {
                Ok((stream, peer)) => {
                    Stats::add(&stats.connections);
                    let _ = stream.set_nodelay(true);
                    let (cfg, stats, stop) = (cfg.clone(), stats.clone(), stop.clone());
                    conns.spawn(async move {
                        let log = Log { peer, kind, verbose: cfg.verbose };
                        log.info("connected");
                        let res = match kind {
                            Kind::Tcp => serve_tcp(stream, &cfg, &stats, stop, &log).await,
                            Kind::Ws => serve_ws(stream, &cfg, &stats, stop, &log).await,
                        };
                        match res {
                            Ok(End::Closed) => {
                                Stats::add(&stats.closed);
                                log.info("closed by the client");
                            }
                            Ok(End::Shutdown) => log.info("closed: server shutting down"),
                            Err(reason) => {
                                Stats::add(&stats.dropped);
                                log.drop(&reason);
                            }
                        }
                    });
                }
                Err(e) => eprintln!("[server] accept failed: {e}"),
            },
        }
    }
    while conns.join_next().await.is_some() {}
}

struct Log {
    peer: SocketAddr,
    kind: Kind,
    verbose: bool,
}

impl Log {
    fn info(&self, what: &str) {
        if self.verbose {
            eprintln!("[server] {:?} {}: {what}", self.kind, self.peer);
        }
    }
    fn drop(&self, reason: &str) {
        eprintln!("[server] {:?} {}: dropped: {reason}", self.kind, self.peer);
    }
}

/// How a connection ended without being dropped.
enum End {
    Closed,
    Shutdown,
}

/// Writes the answer to `packet`, the `seq`-th value of its connection.
pub fn reply(w: &mut Writer, seq: u64, packet: &Packet) -> gdvariant::Result<()> {
    let v = packet.value();
    w.begin_dictionary(Some(6))?;
    w.string("seq")?;
    w.int(seq as i64)?;
    w.string("type")?;
    w.int(i64::from(v.header() & 0xFF))?;
    w.string("size")?;
    w.int(packet.byte_len() as i64)?;
    w.string("echo")?;
    w.raw(&v)?; // the received bytes, unchanged
    let (count, sum) = count_and_sum(&v)?;
    w.string("count")?;
    w.int(count as i64)?;
    w.string("sum")?;
    w.float(sum)?;
    w.end()
}

/// The computed fields: element count and the in-order sum of a packed numeric array.
fn count_and_sum(v: &gdvariant::VariantRef<'_>) -> gdvariant::Result<(usize, f64)> {
    use VariantType as T;
    fn add<I: Iterator<Item = f64>>(it: I) -> f64 {
        it.fold(0.0, |s, x| s + x)
    }
    Ok(match v.ty() {
        T::Array | T::Dictionary | T::PackedStringArray => (v.count(), 0.0),
        T::PackedByteArray => {
            let b = v.as_byte_array()?;
            (b.len(), add(b.iter().map(|&x| f64::from(x))))
        }
        T::PackedInt32Array => {
            let a = v.as_packed::<i32>()?;
            (a.len(), add(a.iter().map(f64::from)))
        }
        T::PackedInt64Array => {
            let a = v.as_packed::<i64>()?;
            (a.len(), add(a.iter().map(|x| x as f64)))
        }
        T::PackedFloat32Array => {
            let a = v.as_packed::<f32>()?;
            (a.len(), add(a.iter().map(f64::from)))
        }
        T::PackedFloat64Array => {
            let a = v.as_packed::<f64>()?;
            (a.len(), add(a.iter()))
        }
        T::PackedVector2Array
        | T::PackedVector3Array
        | T::PackedVector4Array
        | T::PackedColorArray => (packed_len(v)?, 0.0),
        _ => (0, 0.0),
    })
}

/// The element count of a packed vector or color array.
fn packed_len(v: &gdvariant::VariantRef<'_>) -> gdvariant::Result<usize> {
    use VariantType as T;
    let wide = v.is_wide();
    Ok(match (v.ty(), wide) {
        (T::PackedVector2Array, false) => v.as_packed::<[f32; 2]>()?.len(),
        (T::PackedVector2Array, true) => v.as_packed::<[f64; 2]>()?.len(),
        (T::PackedVector3Array, false) => v.as_packed::<[f32; 3]>()?.len(),
        (T::PackedVector3Array, true) => v.as_packed::<[f64; 3]>()?.len(),
        (T::PackedVector4Array, false) => v.as_packed::<[f32; 4]>()?.len(),
        (T::PackedVector4Array, true) => v.as_packed::<[f64; 4]>()?.len(),
        _ => v.as_packed::<gdvariant::Color>()?.len(),
    })
}

/// Writes the answer to a malformed value.
pub fn error_reply(w: &mut Writer, seq: u64, e: &Error) -> gdvariant::Result<()> {
    w.begin_dictionary(Some(2))?;
    w.string("seq")?;
    w.int(seq as i64)?;
    w.string("error")?;
    w.string(&e.to_string())?;
    w.end()
}

fn codec(cfg: &Config) -> VarCodec {
    VarCodec::new()
        .with_dialect(cfg.dialect)
        .with_max_frame(cfg.max_frame)
}

async fn serve_tcp(
    stream: TcpStream,
    cfg: &Config,
    stats: &Stats,
    mut stop: watch::Receiver<bool>,
    log: &Log,
) -> Result<End, String> {
    let (r, w) = stream.into_split();
    let mut reader = FramedRead::with_capacity(r, codec(cfg), 16 * 1024);
    let mut writer = FramedWrite::new(w, codec(cfg));
    writer.set_backpressure_boundary(64 * 1024);
    let mut seq = 0u64;
    let mut malformed_in_a_row = 0;
    let mut dirty = false;
    // When the frame being received started (a partial frame sits in the read buffer).
    let mut partial_since: Option<Instant> = None;
    let mut tick = tokio::time::interval(cfg.frame_timeout / 4);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let timeout = cfg.frame_timeout;
    let end = loop {
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            item = reader.next() => {
                partial_since = None;
                let reply_res = match item {
                    None => break End::Closed,
                    Some(Err(CodecError::Io(e))) => return Err(format!("read failed: {e}")),
                    Some(Err(e)) => return Err(e.to_string()),
                    Some(Ok(Ok(packet))) => {
                        malformed_in_a_row = 0;
                        Stats::add(&stats.packets);
                        // A reply that cannot be written (the echo nests the value one level
                        // deeper: a value at the depth limit) becomes an error reply.
                        match tokio::time::timeout(timeout, writer.feed(write_with(|w| reply(w, seq, &packet)))).await {
                            Ok(Err(CodecError::Frame(e))) => {
                                log.info(&format!("cannot reply: {e}"));
                                tokio::time::timeout(timeout, writer.feed(write_with(|w| error_reply(w, seq, &e)))).await
                            }
                            res => res,
                        }
                    }
                    Some(Ok(Err(e))) => {
                        Stats::add(&stats.malformed);
                        malformed_in_a_row += 1;
                        log.info(&format!("malformed value: {e}"));
                        if malformed_in_a_row > cfg.max_malformed {
                            return Err(format!("{malformed_in_a_row} malformed values in a row, the last: {e}"));
                        }
                        tokio::time::timeout(timeout, writer.feed(write_with(|w| error_reply(w, seq, &e)))).await
                    }
                };
                seq += 1;
                match reply_res {
                    Ok(Ok(())) => dirty = true,
                    Ok(Err(e)) => return Err(format!("write failed: {e}")),
                    Err(_) => return Err(format!("replies not read for {timeout:?}")),
                }
            }
            // Only when no complete frame is waiting: send what was answered so far.
            res = tokio::time::timeout(timeout, SinkExt::<Bytes>::flush(&mut writer)), if dirty => match res {
                Ok(Ok(())) => dirty = false,
                Ok(Err(e)) => return Err(format!("write failed: {e}")),
                Err(_) => return Err(format!("replies not read for {timeout:?}")),
            },
            _ = tick.tick() => {
                let buffered = reader.read_buffer().len();
                match (buffered, partial_since) {
                    (0, _) => partial_since = None,
                    (_, None) => partial_since = Some(Instant::now()),
                    (n, Some(t)) if t.elapsed() >= timeout => {
                        return Err(format!("stalled mid-frame ({n} bytes of a frame buffered, no complete frame for {:?})", t.elapsed()));
                    }
                    _ => {}
                }
            }
        }
    };
    // Flush what was answered, then close our side (the client sees the end of the stream).
    let _ = tokio::time::timeout(timeout, async {
        SinkExt::<Bytes>::flush(&mut writer).await?;
        writer.get_mut().shutdown().await
    })
    .await;
    Ok(end)
}

async fn serve_ws(
    stream: TcpStream,
    cfg: &Config,
    stats: &Stats,
    mut stop: watch::Receiver<bool>,
    log: &Log,
) -> Result<End, String> {
    let ws_cfg = WebSocketConfig::default()
        .max_message_size(Some(cfg.max_frame))
        .max_frame_size(Some(cfg.max_frame));
    let ws = tokio::time::timeout(
        cfg.frame_timeout,
        tokio_tungstenite::accept_async_with_config(stream, Some(ws_cfg)),
    )
    .await
    .map_err(|_| "no WebSocket handshake".to_string())?
    .map_err(|e| format!("WebSocket handshake failed: {e}"))?;
    let (mut tx, mut rx) = ws.split();
    let read = ReadOptions::new().with_dialect(cfg.dialect);
    let enc = EncodeOptions::new().with_dialect(cfg.dialect);
    let timeout = cfg.frame_timeout;
    let mut seq = 0u64;
    let mut malformed_in_a_row = 0;
    let mut dirty = false;
    let end = loop {
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            msg = rx.next() => {
                let payload = match msg {
                    None | Some(Ok(Message::Close(_))) => break End::Closed,
                    Some(Err(e)) => return Err(format!("WebSocket error: {e}")),
                    Some(Ok(Message::Binary(b))) => b,
                    Some(Ok(Message::Text(_))) => {
                        return Err("a text message (put_var sends binary messages)".into())
                    }
                    Some(Ok(_)) => continue, // ping / pong: tungstenite answers pings itself
                };
                let mut w = Writer::with_buffer(Vec::new(), enc);
                let res = match Packet::from_message(payload, &read) {
                    Ok(packet) => {
                        malformed_in_a_row = 0;
                        Stats::add(&stats.packets);
                        // A reply that cannot be written (the echo nests the value one level
                        // deeper: a value at the depth limit) becomes an error reply.
                        reply(&mut w, seq, &packet).or_else(|e| {
                            log.info(&format!("cannot reply: {e}"));
                            w = Writer::with_buffer(Vec::new(), enc);
                            error_reply(&mut w, seq, &e)
                        })
                    }
                    Err(e) => {
                        Stats::add(&stats.malformed);
                        malformed_in_a_row += 1;
                        log.info(&format!("malformed value: {e}"));
                        if malformed_in_a_row > cfg.max_malformed {
                            return Err(format!("{malformed_in_a_row} malformed values in a row, the last: {e}"));
                        }
                        error_reply(&mut w, seq, &e)
                    }
                };
                seq += 1;
                res.map_err(|e| format!("cannot write the reply: {e}"))?;
                let out = Bytes::from(w.into_inner());
                match tokio::time::timeout(timeout, tx.feed(Message::Binary(out))).await {
                    Ok(Ok(())) => dirty = true,
                    Ok(Err(e)) => return Err(format!("write failed: {e}")),
                    Err(_) => return Err(format!("replies not read for {timeout:?}")),
                }
            }
            res = tokio::time::timeout(timeout, tx.flush()), if dirty => match res {
                Ok(Ok(())) => dirty = false,
                Ok(Err(e)) => return Err(format!("write failed: {e}")),
                Err(_) => return Err(format!("replies not read for {timeout:?}")),
            },
        }
    };
    let _ = tokio::time::timeout(timeout, async {
        tx.flush().await?;
        tx.send(Message::Close(None)).await
    })
    .await;
    Ok(end)
}

/// Waits for SIGINT or SIGTERM.
async fn signalled() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

const USAGE: &str = "usage: server [--tcp ADDR] [--ws ADDR] [--dialect 4|3] [--max-frame BYTES] \
[--frame-timeout SECS] [--max-malformed N] [--threads N] [--verbose]";

fn parse_args() -> Result<(Config, usize), String> {
    let mut cfg = Config::default();
    let mut threads = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--tcp" => cfg.tcp = val("--tcp")?.parse().map_err(|e| format!("--tcp: {e}"))?,
            "--ws" => cfg.ws = Some(val("--ws")?.parse().map_err(|e| format!("--ws: {e}"))?),
            "--dialect" => {
                cfg.dialect = match val("--dialect")?.as_str() {
                    "4" => Dialect::Godot4,
                    "3" => Dialect::Godot3,
                    d => return Err(format!("--dialect: 3 or 4, not {d}")),
                }
            }
            "--max-frame" => {
                cfg.max_frame = val("--max-frame")?
                    .parse()
                    .map_err(|e| format!("--max-frame: {e}"))?
            }
            "--frame-timeout" => {
                let s: f64 = val("--frame-timeout")?
                    .parse()
                    .map_err(|e| format!("--frame-timeout: {e}"))?;
                if !(s > 0.0 && s < 1e6) {
                    return Err("--frame-timeout: seconds, more than 0".into());
                }
                cfg.frame_timeout = Duration::from_secs_f64(s);
            }
            "--max-malformed" => {
                cfg.max_malformed = val("--max-malformed")?
                    .parse()
                    .map_err(|e| format!("--max-malformed: {e}"))?
            }
            "--threads" => {
                threads = val("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--verbose" => cfg.verbose = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok((cfg, threads))
}

#[allow(dead_code)] // the tests include this file as a module and start the server themselves
fn main() {
    let (cfg, threads) = match parse_args() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut rt = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        if threads > 1 {
            b.worker_threads(threads);
        }
        b
    };
    let rt = rt.enable_all().build().expect("tokio runtime");
    std::process::exit(rt.block_on(run_until_signalled(cfg)));
}

/// Starts the server, prints `listening tcp=ADDR [ws=ADDR] pid=PID` on standard output, serves
/// until SIGINT or SIGTERM, shuts down cleanly and prints the counters; the exit status.
pub async fn run_until_signalled(cfg: Config) -> i32 {
    let server = match Server::start(cfg).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("[server] cannot listen: {e}");
            return 1;
        }
    };
    // One line on standard output that scripts and tests wait for.
    let pid = std::process::id();
    match server.ws {
        Some(ws) => println!("listening tcp={} ws={ws} pid={pid}", server.tcp),
        None => println!("listening tcp={} pid={pid}", server.tcp),
    }
    signalled().await;
    eprintln!("[server] shutting down");
    let stats = server.shutdown(Duration::from_secs(5)).await;
    eprintln!("[server] stopped: {}", stats.summary());
    0
}
