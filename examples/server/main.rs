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
//! with a `u32` length prefix ([`VarCodec`](gdvariant::codec::VarCodec)); a WebSocket binary message is exactly one value,
//! no prefix ([`Packet::from_message`](gdvariant::packet::Packet::from_message)). Both paths read the request in the socket's buffer
//! (a [`Packet`](gdvariant::packet::Packet) is a slice of it) and write the reply once, with the streaming
//! [`Writer`](gdvariant::Writer), into the outgoing buffer.

mod config;
mod connection;
mod meter;
mod reply;
mod stats;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

pub use config::Config;
use config::{parse_args, Kind};
use connection::{accept, Shared};
pub use meter::Budget;
pub use stats::Stats;

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
