//! A WebSocket peer's way out: the frames the server has for it, written by the server's own task
//! straight to the socket when nothing waits (plain TCP), else by the connection's task (TLS, or
//! a socket that would block).

use std::io;
use std::pin::Pin;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::runtime::{dequeued, LinkCmd, Sink};
use super::types::Flavor;
use crate::websocket::godot::{self, Godot3Sys};
use crate::websocket::{write_frame, Opcode};

/// Appends a server's (unmasked) binary frame.
pub(super) fn binary(out: &mut Vec<u8>, payload: &[u8]) {
    write_frame(out, true, Opcode::Binary, None, payload);
}

/// A client's stream, split between the connection's task (reads; writes that must wait) and the
/// server's task (writes that need not wait).
pub(super) trait Wire: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// The reading half.
    type Read: AsyncRead + Unpin + Send;
    /// The writing half, for the connection's task.
    type Write: AsyncWrite + Unpin + Send;
    /// Both halves, and the socket the server's task may write to directly (plain TCP only: a
    /// TLS record needs the stream's state).
    fn split(self) -> (Self::Read, Self::Write, Option<Arc<OwnedWriteHalf>>);
}

impl Wire for TcpStream {
    type Read = OwnedReadHalf;
    type Write = SharedWrite;

    fn split(self) -> (OwnedReadHalf, SharedWrite, Option<Arc<OwnedWriteHalf>>) {
        let (r, w) = self.into_split();
        let w = Arc::new(w);
        (r, SharedWrite(w.clone()), Some(w))
    }
}

#[cfg(feature = "server-wss")]
impl Wire for tokio_rustls::server::TlsStream<TcpStream> {
    type Read = tokio::io::ReadHalf<Self>;
    type Write = tokio::io::WriteHalf<Self>;

    fn split(self) -> (Self::Read, Self::Write, Option<Arc<OwnedWriteHalf>>) {
        let (r, w) = tokio::io::split(self);
        (r, w, None)
    }
}

/// The writing half of a TCP stream that the server's task writes to as well.
pub(super) struct SharedWrite(Arc<OwnedWriteHalf>);

impl AsyncWrite for SharedWrite {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.as_ref().as_ref().poll_write_ready(cx))?;
            match self.0.try_write(b) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        let s = socket2::SockRef::from(self.0.as_ref().as_ref());
        Poll::Ready(s.shutdown(std::net::Shutdown::Write))
    }
}

/// What waits to be written to a peer.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// Frames, whole (the first maybe partly written already).
    pub(super) buf: Vec<u8>,
    /// The server's payload bytes among them, as the peer's send queue counts them.
    pub(super) payload: usize,
    /// The connection's task writes (TLS, or a write that would block): it takes what comes next
    /// too, until it finds nothing left.
    pub(super) busy: bool,
    /// The server closes the connection: after what is queued (`Some(false)`) or at once.
    pub(super) close: Option<bool>,
    /// The connection is over: nothing more is taken.
    pub(super) gone: bool,
}

/// A WebSocket peer's outgoing frames ([`Sink`]): framed by the server's task as it sends, and
/// written by it directly when it can.
#[derive(Debug)]
pub(super) struct Outbox {
    flavor: Flavor,
    direct: Option<Arc<OwnedWriteHalf>>,
    pub(super) pending: Mutex<Pending>,
    /// Wakes the connection's task: a write to finish, or a close.
    pub(super) wake: Notify,
    /// Wakes the connection's task blocked writing to a peer that does not read, to drop it.
    pub(super) abort: Notify,
    pub(super) queued: Arc<AtomicUsize>,
}

impl Outbox {
    pub(super) fn new(flavor: Flavor, direct: Option<Arc<OwnedWriteHalf>>) -> Outbox {
        Outbox {
            flavor,
            direct,
            pending: Mutex::new(Pending::default()),
            wake: Notify::new(),
            abort: Notify::new(),
            queued: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Appends a frame of the connection's own (a pong) and writes it.
    pub(super) fn control(&self, opcode: Opcode, payload: &[u8]) {
        if let Ok(mut p) = self.pending.lock() {
            if p.gone {
                return;
            }
            write_frame(&mut p.buf, true, opcode, None, payload);
        }
        self.write();
    }

    /// Ends the connection's side: what is still pending (for a goodbye), nothing taken after.
    pub(super) fn finish(&self) -> Vec<u8> {
        self.pending.lock().map_or_else(
            |_| Vec::new(),
            |mut p| {
                p.gone = true;
                core::mem::take(&mut p.buf)
            },
        )
    }
}

impl Sink for Outbox {
    fn push(&self, cmd: LinkCmd) -> bool {
        let Ok(mut p) = self.pending.lock() else {
            return false;
        };
        if p.gone {
            return false;
        }
        let idle = p.buf.is_empty() && !p.busy;
        match cmd {
            LinkCmd::Send(o) => {
                p.payload += o.bytes.len();
                match self.flavor {
                    Flavor::Godot4 => binary(&mut p.buf, &o.bytes),
                    Flavor::Godot3 => binary(
                        &mut p.buf,
                        &godot::godot3_data(o.source as u32, o.target, &o.bytes),
                    ),
                }
            }
            LinkCmd::Notify { peer, joined, .. } => {
                let sys = if joined {
                    Godot3Sys::AddPeer
                } else {
                    Godot3Sys::DelPeer
                };
                binary(&mut p.buf, &godot::godot3_sys(sys, peer));
            }
            LinkCmd::Close { now, .. } => {
                p.close = Some(now);
                drop(p);
                if now {
                    self.abort.notify_one();
                }
                self.wake.notify_one();
                return false;
            }
        }
        idle
    }

    fn write(&self) {
        let Ok(mut p) = self.pending.lock() else {
            return;
        };
        // Closing: the connection's task writes what is left.
        if p.busy || p.gone || p.close.is_some() || p.buf.is_empty() {
            return;
        }
        if let Some(s) = &self.direct {
            let mut done = 0;
            while done < p.buf.len() {
                match s.try_write(&p.buf[done..]) {
                    Ok(n) if n > 0 => done += n,
                    // Would block (or failed: the connection's task finds out).
                    _ => break,
                }
            }
            if done == p.buf.len() {
                p.buf.clear();
                dequeued(&self.queued, core::mem::take(&mut p.payload));
                return;
            }
            p.buf.drain(..done);
        }
        p.busy = true;
        drop(p);
        self.wake.notify_one();
    }
}
