//! The memory budget and what each connection's reads tell it: [`Metered`] follows the frame
//! boundaries of the bytes a connection reads, for its loop's clocks and the budget.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::config::{Config, Kind};
use super::stats::lock;

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
pub(crate) struct Meter(Arc<Mutex<MeterState>>);

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
    pub(crate) fn new(budget: &Arc<Budget>, kind: Kind) -> Meter {
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
    pub(crate) fn exhausted(&self) -> Option<String> {
        lock(&self.0).exhausted.clone()
    }

    /// Why the connection must be dropped now, if it must: a frame or message in progress for
    /// longer than `frame_timeout`, or no byte for `idle_timeout`.
    pub(crate) fn overdue(&self, cfg: &Config) -> Option<String> {
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
pub(crate) fn quickack(_s: &TcpStream) {
    #[cfg(target_os = "linux")]
    let _ = socket2::SockRef::from(_s).set_tcp_quickack(true);
}

/// The socket under a reading side, for [`quickack`].
pub(crate) trait Socket {
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
pub(crate) struct Metered<S> {
    pub(crate) inner: S,
    pub(crate) meter: Meter,
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
