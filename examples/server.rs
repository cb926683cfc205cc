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
//! `{"seq": n, "error": "<what> at offset N"}` and the connection goes on; after
//! `--max-malformed` of them in a row (default 16) the client is dropped.
//!
//! Hostile clients cannot take the process's memory or its sockets. A client is dropped, with
//! its reason logged on standard error, for:
//!
//! - a length prefix over `--max-frame` (default 8 MiB, the engine's default), or a WebSocket
//!   message announced larger;
//! - a frame (TCP) or message (WebSocket: all its fragments, and any ping between them) not
//!   complete `--frame-timeout` seconds after its first byte (default 10), or replies not read
//!   for that long;
//! - no byte received for `--idle-timeout` seconds (default 60);
//! - `--memory-budget` (default 256 MiB) exhausted: the bytes received for frames or messages
//!   not yet complete, summed over every connection, may not exceed it; the connection whose
//!   bytes would go over it is dropped, never the others. A connection's share is given back
//!   when its frame completes or the connection ends.
//!
//! At most `--max-connections` (default 1024) are served at once, TCP and WebSocket together;
//! one more is accepted and closed at once, and logged. On SIGINT / SIGTERM the server stops
//! accepting, flushes every reply, closes every connection (TCP FIN, WebSocket Close) and
//! prints its counters.
//!
//! Neither the codec nor tungstenite (which hands over whole messages only) says when a frame
//! starts, so both paths read through `Metered`, which follows the frame boundaries itself
//! (TCP length prefixes; the WebSocket handshake, then each frame's header and FIN bit) and
//! records, for the connection's loop, when the frame or message in progress started, how many
//! of its bytes have arrived (reserved from the budget as they arrive) and when the last byte
//! came; the loop checks the clocks four times a timeout. The budget counts the bytes a client
//! has sent of what is not complete, which is what a hostile client can make the server hold;
//! the buffers holding them grow by doubling, so they can be up to twice that. Besides the
//! budget, each connection holds its buffers (16 KiB to read; up to 64 KiB of replies, or one
//! larger reply) and the complete requests of its last read until they are answered. The
//! budget must be larger than `--max-frame`, or a largest frame cannot get through.
//!
//! The TCP stream and the WebSocket messages carry the same values: on TCP each is a frame
//! with a `u32` length prefix ([`VarCodec`]); a WebSocket binary message is exactly one value,
//! no prefix ([`Packet::from_message`]). Both paths read the request in the socket's buffer
//! (a [`Packet`] is a slice of it) and write the reply once, with the streaming
//! [`Writer`](gdvariant::Writer), into the outgoing buffer.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use gdvariant::codec::{write_with, CodecError, VarCodec};
use gdvariant::packet::Packet;
use gdvariant::{Dialect, EncodeOptions, Error, ReadOptions, VariantType, Writer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
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
    /// How long a frame (a WebSocket message: all its fragments) may take from its first byte,
    /// and a reply to be taken by the client.
    pub frame_timeout: Duration,
    /// How long a connection may send nothing at all.
    pub idle_timeout: Duration,
    /// Connections served at once, TCP and WebSocket together; more are closed at once.
    pub max_connections: usize,
    /// Bytes received for frames and messages not yet complete, over every connection.
    pub memory_budget: usize,
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
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            memory_budget: 256 << 20,
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
    /// Connections dropped by the server (bad framing, stall, idle, memory budget, too many
    /// malformed values).
    pub dropped: AtomicU64,
    /// Connections closed at once because `max_connections` were open.
    pub refused: AtomicU64,
    /// The reasons of the last drops, newest last (at most `RECENT_DROPS`).
    recent_drops: Mutex<VecDeque<String>>,
}

/// How many drop reasons `Stats` keeps.
const RECENT_DROPS: usize = 32;

impl Stats {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn record_drop(&self, reason: &str) {
        Stats::add(&self.dropped);
        let mut recent = lock(&self.recent_drops);
        if recent.len() == RECENT_DROPS {
            recent.pop_front();
        }
        recent.push_back(reason.to_owned());
    }

    /// The reasons of the last (up to 32) drops, oldest first, as logged.
    pub fn recent_drops(&self) -> Vec<String> {
        lock(&self.recent_drops).iter().cloned().collect()
    }

    /// One line with every counter.
    pub fn summary(&self) -> String {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "connections={} packets={} malformed={} closed_by_peer={} dropped={} refused={}",
            g(&self.connections),
            g(&self.packets),
            g(&self.malformed),
            g(&self.closed),
            g(&self.dropped),
            g(&self.refused)
        )
    }
}

/// A mutex's contents, also after a panic elsewhere (nothing here is left half-updated).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The memory budget, shared by every connection: bytes received for frames (TCP) and messages
/// (WebSocket) not yet complete. Each connection reserves from it as such bytes arrive and gives
/// them back when its frame or message completes, or when it ends.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    used: AtomicUsize,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Budget {
        Budget {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// The bytes reserved now, over every connection.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// The budget's size.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Takes `n` bytes, or nothing if that would go over the limit.
    fn try_reserve(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(n).filter(|&t| t <= self.limit)
            })
            .is_ok()
    }

    fn release(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::Relaxed);
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
    /// The memory budget, live.
    pub budget: Arc<Budget>,
    stop: watch::Sender<bool>,
    acceptors: JoinSet<()>,
}

/// What every connection shares: the configuration, the counters, the memory budget and the
/// number of connections open.
struct Shared {
    cfg: Config,
    stats: Arc<Stats>,
    budget: Arc<Budget>,
    open: AtomicUsize,
}

impl Server {
    /// Binds the listeners and starts accepting.
    pub async fn start(cfg: Config) -> io::Result<Server> {
        let stats = Arc::new(Stats::default());
        let budget = Arc::new(Budget::new(cfg.memory_budget));
        let (stop, stopped) = watch::channel(false);
        let mut acceptors = JoinSet::new();
        let tcp = TcpListener::bind(cfg.tcp).await?;
        let tcp_addr = tcp.local_addr()?;
        let ws = match cfg.ws {
            Some(addr) => Some(TcpListener::bind(addr).await?),
            None => None,
        };
        let ws_addr = ws.as_ref().map(|l| l.local_addr()).transpose()?;
        let shared = Arc::new(Shared {
            cfg,
            stats: stats.clone(),
            budget: budget.clone(),
            open: AtomicUsize::new(0),
        });
        acceptors.spawn(accept(tcp, Kind::Tcp, shared.clone(), stopped.clone()));
        if let Some(ws) = ws {
            acceptors.spawn(accept(ws, Kind::Ws, shared, stopped));
        }
        Ok(Server {
            tcp: tcp_addr,
            ws: ws_addr,
            stats,
            budget,
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

/// One of the `max_connections` places, given back when the connection's task ends.
struct Place(Arc<Shared>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Accepts connections until told to stop, then waits for its connections to finish.
async fn accept(
    listener: TcpListener,
    kind: Kind,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            res = listener.accept() => match res {
                Ok((stream, peer)) => {
                    // Both listeners count against one cap.
                    let max = shared.cfg.max_connections;
                    if shared.open.fetch_add(1, Ordering::Relaxed) >= max {
                        shared.open.fetch_sub(1, Ordering::Relaxed);
                        Stats::add(&shared.stats.refused);
                        eprintln!("[server] {kind:?} {peer}: refused: {max} connections open (--max-connections)");
                        drop(stream); // closed at once
                        continue;
                    }
                    let place = Place(shared.clone());
                    Stats::add(&shared.stats.connections);
                    let _ = stream.set_nodelay(true);
                    quickack(&stream);
                    let stop = stop.clone();
                    conns.spawn(async move {
                        let shared = &place.0;
                        let (cfg, stats) = (&shared.cfg, &*shared.stats);
                        let log = Log { peer, kind, verbose: cfg.verbose };
                        log.info("connected");
                        let meter = Meter::new(&shared.budget, kind);
                        let res = match kind {
                            Kind::Tcp => serve_tcp(stream, cfg, stats, meter, stop, &log).await,
                            Kind::Ws => serve_ws(stream, cfg, stats, meter, stop, &log).await,
                        };
                        match res {
                            Ok(End::Closed) => {
                                Stats::add(&stats.closed);
                                log.info("closed by the client");
                            }
                            Ok(End::Shutdown) => log.info("closed: server shutting down"),
                            Err(reason) => {
                                stats.record_drop(&reason);
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
        _ => v.as_packed::<gdvariant::math::Color>()?.len(),
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

/// What a connection's reads tell its loop: when the frame (TCP) or message (WebSocket) in
/// progress started, how many of its bytes have arrived, and when the last byte came.
///
/// Neither the codec nor tungstenite says when a frame starts (tungstenite hands over whole
/// messages only), so [`Metered`] follows the frame boundaries of the bytes it reads itself:
/// TCP length prefixes; on WebSocket the handshake request's blank line, then each frame's
/// header and FIN bit. A message is in progress from the first byte of its first frame to the
/// end of its last (pings between its fragments do not end it). The bytes of the frame or
/// message in progress are reserved from the shared [`Budget`] as they arrive and given back
/// when it completes, or when the connection ends (`Drop`).
#[derive(Clone)]
struct Meter(Arc<Mutex<MeterState>>);

struct MeterState {
    budget: Arc<Budget>,
    wire: Wire,
    /// The header being collected: a TCP length prefix or a WebSocket frame header.
    head: [u8; 14],
    head_len: usize,
    /// Payload bytes still to come in the current frame, once its header is complete.
    body_left: u64,
    /// WebSocket: the current frame is a data frame (not a control frame), the last of its
    /// message (FIN).
    data: bool,
    fin: bool,
    /// WebSocket: a data message has started and its last frame has not ended.
    in_message: bool,
    /// The handshake request: its last four bytes.
    tail: u32,
    /// The bytes of the frame or message in progress so far.
    held: usize,
    /// The bytes reserved from the budget (`held` after every read that the budget took).
    reserved: usize,
    /// When the frame or message in progress started.
    since: Option<Instant>,
    /// When the last byte came (the connection's start before the first).
    last_byte: Instant,
    /// Why the budget refused this connection's bytes.
    exhausted: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    /// `u32` little-endian length, then the value (`StreamPeerTCP.put_var`).
    Prefixed,
    /// The WebSocket upgrade request, up to its blank line; then `WebSocket`.
    Handshake,
    /// WebSocket frames.
    WebSocket,
}

impl Meter {
    fn new(budget: &Arc<Budget>, kind: Kind) -> Meter {
        Meter(Arc::new(Mutex::new(MeterState {
            budget: budget.clone(),
            wire: match kind {
                Kind::Tcp => Wire::Prefixed,
                Kind::Ws => Wire::Handshake,
            },
            head: [0; 14],
            head_len: 0,
            body_left: 0,
            data: false,
            fin: false,
            in_message: false,
            tail: 0,
            held: 0,
            reserved: 0,
            since: None,
            last_byte: Instant::now(),
            exhausted: None,
        })))
    }

    /// Why the budget refused this connection's bytes, if it did.
    fn exhausted(&self) -> Option<String> {
        lock(&self.0).exhausted.clone()
    }

    /// Why the connection must be dropped now, if it must: a frame or message in progress for
    /// longer than `frame_timeout`, or no byte for `idle_timeout`.
    fn overdue(&self, cfg: &Config) -> Option<String> {
        let m = lock(&self.0);
        let now = Instant::now();
        if let Some(age) = m.since.map(|t| now.duration_since(t)) {
            if age >= cfg.frame_timeout {
                let held = m.held;
                return Some(match m.wire {
                    Wire::Prefixed => format!(
                        "stalled mid-frame ({held} bytes of a frame buffered, no complete frame for {age:.1?})"
                    ),
                    Wire::Handshake => format!(
                        "stalled mid-handshake ({held} bytes of the request in {age:.1?})"
                    ),
                    Wire::WebSocket => format!(
                        "stalled mid-message ({held} bytes of a message received, not complete {age:.1?} after its first byte)"
                    ),
                });
            }
        }
        let quiet = now.duration_since(m.last_byte);
        (quiet >= cfg.idle_timeout).then(|| format!("idle: no byte received for {quiet:.1?}"))
    }
}

impl MeterState {
    /// Follows `bytes`, just read, through the frames; reserves or gives back budget.
    fn received(&mut self, bytes: &[u8], now: Instant) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.last_byte = now;
        let mut rest = bytes;
        while !rest.is_empty() {
            self.since.get_or_insert(now);
            let (used, complete) = self.step(rest);
            rest = &rest[used..];
            self.held += used;
            if complete {
                self.held = 0;
                self.since = None;
            }
        }
        if self.held > self.reserved {
            if !self.budget.try_reserve(self.held - self.reserved) {
                let what = match self.wire {
                    Wire::Prefixed => "frame",
                    Wire::Handshake => "handshake request",
                    Wire::WebSocket => "message",
                };
                let reason = format!(
                    "memory budget of {} bytes exhausted ({} bytes of an incomplete {what} on \
                     this connection, {} on all of them)",
                    self.budget.limit(),
                    self.held,
                    self.budget.used() + self.held - self.reserved,
                );
                self.exhausted = Some(reason.clone());
                return Err(io::Error::other(reason));
            }
        } else {
            self.budget.release(self.reserved - self.held);
        }
        self.reserved = self.held;
        Ok(())
    }

    /// Takes bytes from the start of `rest` (at least one): how many, and whether they end the
    /// frame or message in progress.
    fn step(&mut self, rest: &[u8]) -> (usize, bool) {
        match self.wire {
            Wire::Handshake => {
                for (i, &b) in rest.iter().enumerate() {
                    self.tail = self.tail << 8 | u32::from(b);
                    if self.tail == u32::from_be_bytes(*b"\r\n\r\n") {
                        self.wire = Wire::WebSocket;
                        return (i + 1, true);
                    }
                }
                (rest.len(), false)
            }
            Wire::Prefixed if self.head_len < 4 => {
                let n = self.collect_head(4, rest);
                if self.head_len < 4 {
                    return (n, false);
                }
                let [a, b, c, d, ..] = self.head;
                self.body_left = u64::from(u32::from_le_bytes([a, b, c, d]));
                (n, self.body_left == 0 && self.frame_end())
            }
            Wire::WebSocket if self.head_len < 2 || self.head_len < ws_head_len(&self.head) => {
                let want = if self.head_len < 2 {
                    2
                } else {
                    ws_head_len(&self.head)
                };
                let n = self.collect_head(want, rest);
                if self.head_len < 2 || self.head_len < ws_head_len(&self.head) {
                    return (n, false);
                }
                let h = &self.head;
                self.fin = h[0] & 0x80 != 0;
                self.data = h[0] & 0x08 == 0; // opcodes 0-7: continuation and data frames
                self.body_left = match h[1] & 0x7F {
                    126 => u64::from(u16::from_be_bytes([h[2], h[3]])),
                    127 => u64::from_be_bytes([h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9]]),
                    n => u64::from(n),
                };
                if self.data {
                    self.in_message = true;
                }
                (n, self.body_left == 0 && self.frame_end())
            }
            Wire::Prefixed | Wire::WebSocket => {
                let n = rest
                    .len()
                    .min(usize::try_from(self.body_left).unwrap_or(usize::MAX));
                self.body_left -= n as u64;
                (n, self.body_left == 0 && self.frame_end())
            }
        }
    }

    /// Copies header bytes from `rest` until the header has `want`; how many.
    fn collect_head(&mut self, want: usize, rest: &[u8]) -> usize {
        let n = (want - self.head_len).min(rest.len());
        self.head[self.head_len..self.head_len + n].copy_from_slice(&rest[..n]);
        self.head_len += n;
        n
    }

    /// A frame's last byte came: whether that completes the frame or message in progress.
    fn frame_end(&mut self) -> bool {
        self.head_len = 0;
        if self.wire == Wire::WebSocket && self.data && self.fin {
            self.in_message = false;
        }
        !self.in_message
    }
}

/// A WebSocket frame header's length, from its first two bytes.
fn ws_head_len(h: &[u8; 14]) -> usize {
    let ext = match h[1] & 0x7F {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    2 + ext + if h[1] & 0x80 != 0 { 4 } else { 0 }
}

impl Drop for MeterState {
    fn drop(&mut self) {
        self.budget.release(self.reserved);
    }
}

/// Asks Linux to acknowledge received bytes at once (TCP_QUICKACK). A Godot client's `put_var`
/// writes the length prefix and the body in two sends: with Nagle on (its default) the body waits
/// for the prefix's acknowledgement, which a delayed ACK holds back about 40 ms, every message.
/// Linux falls back to delayed ACKs after it sends, so this is set again after every read and
/// every flush. Elsewhere it does nothing.
fn quickack(_s: &TcpStream) {
    #[cfg(target_os = "linux")]
    let _ = socket2::SockRef::from(_s).set_tcp_quickack(true);
}

/// The socket under a reading side, for [`quickack`].
trait Socket {
    fn socket(&self) -> &TcpStream;
}

impl Socket for TcpStream {
    fn socket(&self) -> &TcpStream {
        self
    }
}

impl Socket for tokio::net::tcp::OwnedReadHalf {
    fn socket(&self) -> &TcpStream {
        self.as_ref()
    }
}

/// A connection's reading side, telling its [`Meter`] what it reads. A read that the memory
/// budget cannot take fails (and so does every later one): the connection is dropped. Each read
/// and flush re-arms the quick acknowledgements ([`quickack`]).
struct Metered<S> {
    inner: S,
    meter: Meter,
}

impl<S: AsyncRead + Socket + Unpin> AsyncRead for Metered<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(reason) = this.meter.exhausted() {
            return Poll::Ready(Err(io::Error::other(reason)));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        quickack(this.inner.socket());
        Poll::Ready(lock(&this.meter.0).received(&buf.filled()[before..], Instant::now()))
    }
}

impl<S: AsyncWrite + Socket + Unpin> AsyncWrite for Metered<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
        quickack(this.inner.socket());
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The loops' clock: often enough to drop a client within a quarter of either timeout after it
/// expires.
fn ticker(cfg: &Config) -> tokio::time::Interval {
    let period = (cfg.frame_timeout.min(cfg.idle_timeout) / 4).max(Duration::from_millis(1));
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick
}

async fn serve_tcp(
    stream: TcpStream,
    cfg: &Config,
    stats: &Stats,
    meter: Meter,
    mut stop: watch::Receiver<bool>,
    log: &Log,
) -> Result<End, String> {
    let (r, w) = stream.into_split();
    let r = Metered {
        inner: r,
        meter: meter.clone(),
    };
    let mut reader = FramedRead::with_capacity(r, codec(cfg), 16 * 1024);
    let mut writer = FramedWrite::new(w, codec(cfg));
    writer.set_backpressure_boundary(64 * 1024);
    let mut seq = 0u64;
    let mut malformed_in_a_row = 0;
    let mut dirty = false;
    let mut tick = ticker(cfg);
    let timeout = cfg.frame_timeout;
    let end = loop {
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            item = reader.next() => {
                let reply_res = match item {
                    None => break End::Closed,
                    Some(Err(CodecError::Io(e))) => {
                        return Err(meter.exhausted().unwrap_or_else(|| format!("read failed: {e}")))
                    }
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
                Ok(Ok(())) => {
                    dirty = false;
                    quickack(writer.get_ref().as_ref());
                }
                Ok(Err(e)) => return Err(format!("write failed: {e}")),
                Err(_) => return Err(format!("replies not read for {timeout:?}")),
            },
            // A frame stalled mid-way, or nothing received for too long.
            _ = tick.tick() => if let Some(reason) = meter.overdue(cfg) {
                return Err(reason);
            },
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
    meter: Meter,
    mut stop: watch::Receiver<bool>,
    log: &Log,
) -> Result<End, String> {
    // 16 KiB read at a time (tungstenite's default is 128 KiB, allocated for every connection).
    let ws_cfg = WebSocketConfig::default()
        .max_message_size(Some(cfg.max_frame))
        .max_frame_size(Some(cfg.max_frame))
        .read_buffer_size(16 * 1024);
    let stream = Metered {
        inner: stream,
        meter: meter.clone(),
    };
    let ws = tokio::time::timeout(
        cfg.frame_timeout,
        tokio_tungstenite::accept_async_with_config(stream, Some(ws_cfg)),
    )
    .await
    .map_err(|_| "no WebSocket handshake".to_string())?
    .map_err(|e| {
        meter
            .exhausted()
            .unwrap_or_else(|| format!("WebSocket handshake failed: {e}"))
    })?;
    let (mut tx, mut rx) = ws.split();
    let read = ReadOptions::new().with_dialect(cfg.dialect);
    let enc = EncodeOptions::new().with_dialect(cfg.dialect);
    let timeout = cfg.frame_timeout;
    let mut seq = 0u64;
    let mut malformed_in_a_row = 0;
    let mut dirty = false;
    let mut tick = ticker(cfg);
    let end = loop {
        tokio::select! {
            biased;
            _ = stop.changed() => break End::Shutdown,
            msg = rx.next() => {
                let payload = match msg {
                    None | Some(Ok(Message::Close(_))) => break End::Closed,
                    Some(Err(e)) => {
                        return Err(meter.exhausted().unwrap_or_else(|| format!("WebSocket error: {e}")))
                    }
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
            // A message stalled mid-way (however many fragments it came in), or nothing
            // received for too long.
            _ = tick.tick() => if let Some(reason) = meter.overdue(cfg) {
                return Err(reason);
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
[--frame-timeout SECS] [--idle-timeout SECS] [--max-connections N] [--memory-budget BYTES] \
[--max-malformed N] [--threads N] [--verbose]";

/// Seconds, more than 0.
fn seconds(name: &str, v: &str) -> Result<Duration, String> {
    let s: f64 = v.parse().map_err(|e| format!("{name}: {e}"))?;
    if !(s > 0.0 && s < 1e6) {
        return Err(format!("{name}: seconds, more than 0"));
    }
    Ok(Duration::from_secs_f64(s))
}

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
                cfg.frame_timeout = seconds("--frame-timeout", &val("--frame-timeout")?)?
            }
            "--idle-timeout" => {
                cfg.idle_timeout = seconds("--idle-timeout", &val("--idle-timeout")?)?
            }
            "--max-connections" => {
                cfg.max_connections = val("--max-connections")?
                    .parse()
                    .map_err(|e| format!("--max-connections: {e}"))?;
                if cfg.max_connections == 0 {
                    return Err("--max-connections: at least 1".into());
                }
            }
            "--memory-budget" => {
                cfg.memory_budget = val("--memory-budget")?
                    .parse()
                    .map_err(|e| format!("--memory-budget: {e}"))?
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
