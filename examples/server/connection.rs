//! Accepting connections and serving each one: the TCP (`put_var` frames) and WebSocket loops,
//! their timeouts and the connection cap.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use gdvariant::codec::{write_with, CodecError, VarCodec};
use gdvariant::packet::Packet;
use gdvariant::{EncodeOptions, ReadOptions, Writer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::codec::{FramedRead, FramedWrite};

use super::config::{Config, Kind};
use super::meter::{quickack, Budget, Meter, Metered};
use super::reply::{error_reply, reply};
use super::stats::Stats;

/// What every connection shares: the configuration, the counters, the memory budget and the
/// number of connections open.
pub(crate) struct Shared {
    pub(crate) cfg: Config,
    pub(crate) stats: Arc<Stats>,
    pub(crate) budget: Arc<Budget>,
    pub(crate) open: AtomicUsize,
}

/// One of the `max_connections` places, given back when the connection's task ends.
struct Place(Arc<Shared>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Accepts connections until told to stop, then waits for its connections to finish.
pub(crate) async fn accept(
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

fn codec(cfg: &Config) -> VarCodec {
    VarCodec::new()
        .with_dialect(cfg.dialect)
        .with_max_frame(cfg.max_frame)
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
