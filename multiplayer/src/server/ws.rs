//! The WebSocket transport (feature `server-ws`): what Godot 4's `WebSocketMultiplayerPeer` and
//! Godot 3's `WebSocketServer` expect of a server, on tokio TCP with the crate's
//! [`websocket`](crate::websocket) framing and its [`godot`](crate::websocket::godot) layer:
//! one task per connection reading, the server's task writing what it sends (plain TCP; TLS and
//! writes that would block go through the connection's task), everything pending in one write. Plain `ws://`, or `wss://` with the feature
//! `server-wss` (TLS on tokio-rustls, through the same code).

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::runtime::{bind_error, dequeued, Events, Link, PeerIds, Server, TransportEvent};
use super::types::{Flavor, ServerError, TransferMode, SERVER_ID};
use super::ws_out::{binary, Outbox, Wire};
use crate::websocket::godot::{self, Godot3Message, Godot3Sys};
use crate::websocket::{handshake, write_frame, Message, MessageConfig, MessageReader, Opcode};

/// The largest message taken from a client.
const MAX_MESSAGE: usize = 8 << 20;

/// How long the listener waits after a failed accept before the next.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

impl Server {
    /// Listens for WebSocket clients at `addr` (Godot 4 `WebSocketMultiplayerPeer.create_client`,
    /// Godot 3 `WebSocketClient` with `NetworkedMultiplayerPeer`, as the core's flavor says);
    /// returns the bound address (port 0 picks a free port). The server picks each client's id.
    /// Call it inside a tokio runtime: the listener runs on a task of its own.
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when `addr` cannot be bound (its text names the address and says why).
    pub async fn listen_ws(&mut self, addr: SocketAddr) -> Result<SocketAddr, ServerError> {
        self.listen_tcp(addr, connection::<TcpStream>).await
    }

    /// Listens for `wss://` clients at `addr` (feature `server-wss`), as
    /// [`listen_ws`](Self::listen_ws) over TLS 1.2 or 1.3: `cert_pem` is the certificate chain
    /// (PEM, the server's certificate first), `key_pem` its private key (PEM: PKCS #8, PKCS #1 or
    /// SEC1). A Godot 4 client connects with `create_client("wss://HOST:PORT")` (a certificate
    /// its trusted CAs sign) or `create_client("wss://HOST:PORT", TLSOptions.client(cert))`;
    /// `TLSOptions.client_unsafe()` skips the check (tests only).
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`]: `addr` cannot be bound, or (kind `InvalidInput`) the PEM holds no
    /// certificate, no key, or a key that does not match the certificate, the text saying which.
    #[cfg(feature = "server-wss")]
    pub async fn listen_wss(
        &mut self,
        addr: SocketAddr,
        cert_pem: &[u8],
        key_pem: &[u8],
    ) -> Result<SocketAddr, ServerError> {
        let acceptor = tls::acceptor(cert_pem, key_pem)?;
        self.listen_tcp(addr, move |stream, flavor, events, ids| {
            let handshake = tokio::time::timeout(HANDSHAKE, acceptor.accept(stream));
            async move {
                if let Ok(Ok(tls)) = handshake.await {
                    connection(tls, flavor, events, ids).await;
                }
            }
        })
        .await
    }

    /// Accepts TCP connections at `addr` (`TCP_NODELAY`: an answer leaves at once), each served
    /// by `serve` on a task of its own; the bound address.
    ///
    /// No `TCP_QUICKACK` ([`quickack`]) here: Godot's WebSocket clients (3 and 4) set
    /// `TCP_NODELAY` on their side, so no message of theirs waits for our ACK (the `put_var`
    /// stall is a `StreamPeerTCP` one), and a quick ACK costs a syscall and an ACK segment of its
    /// own for every message the server reads (the ACK otherwise rides on the answer).
    async fn listen_tcp<F, Fut>(
        &mut self,
        addr: SocketAddr,
        serve: F,
    ) -> Result<SocketAddr, ServerError>
    where
        F: Fn(TcpStream, Flavor, Events, PeerIds) -> Fut + Send + 'static,
        Fut: core::future::Future<Output = ()> + Send + 'static,
    {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| bind_error(addr, e))?;
        let local = listener.local_addr()?;
        let flavor = self.core().config().flavor;
        let (events, ids) = (self.events(), self.ids.clone());
        self.add_task(tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    // Out of file descriptors, say: wait rather than spin on the error.
                    tokio::time::sleep(ACCEPT_RETRY).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve(stream, flavor, events.clone(), ids.clone()));
            }
        }));
        Ok(local)
    }
}

#[cfg(feature = "server-wss")]
mod tls {
    use std::io;
    use std::sync::Arc;

    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    use tokio_rustls::rustls;

    use super::ServerError;

    fn invalid(what: &str, e: impl core::fmt::Display) -> ServerError {
        ServerError::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what}: {e}"),
        ))
    }

    /// A TLS acceptor (ring's algorithms, TLS 1.2 and 1.3) for this certificate chain and key.
    pub(super) fn acceptor(
        cert_pem: &[u8],
        key_pem: &[u8],
    ) -> Result<tokio_rustls::TlsAcceptor, ServerError> {
        let certs = CertificateDer::pem_slice_iter(cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid("TLS certificate chain (PEM)", e))?;
        if certs.is_empty() {
            return Err(invalid("TLS certificate chain (PEM)", "no certificate"));
        }
        let key =
            PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| invalid("TLS key (PEM)", e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid("TLS", e))?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| invalid("TLS certificate and key", e))?;
        Ok(tokio_rustls::TlsAcceptor::from(Arc::new(cfg)))
    }
}

/// Tunes an accepted TCP socket for small request/answer messages: `TCP_NODELAY` (our answers
/// leave at once) and `TCP_QUICKACK` (what arrived is acknowledged at once, on Linux; a no-op
/// elsewhere). Quick ACK is not sticky: the kernel goes back to delayed ACKs after it sends data
/// (and on its own after a while), so call [`quickack`] after each read and each write.
///
/// For a server of `StreamPeerTCP` clients (`put_var`): the WebSocket transport does not need it
/// (Godot's WebSocket clients set `TCP_NODELAY` themselves). Why: a Godot client that writes a message in two `send`s (`StreamPeerTCP.put_var` writes the
/// length, then the body) with Nagle's algorithm on (the default) holds the body until the length
/// is acknowledged, and a delayed ACK keeps it ~40 ms: one message per 40 ms.
pub fn tune_tcp(stream: &TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    quickack(stream)
}

/// Acknowledges what arrived on `stream` at once (`TCP_QUICKACK`, Linux; elsewhere nothing).
pub fn quickack(stream: &TcpStream) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        socket2::SockRef::from(stream).set_tcp_quickack(true)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = stream;
        Ok(())
    }
}

/// The server's bytes read at a time (and the most of a handshake head kept:
/// [`handshake::MAX_HEAD`]).
const READ_BUF: usize = 8 << 10;

/// The longest wait for a client's upgrade request (and, for `wss://`, its TLS handshake): a
/// connection that sends nothing, or a request a byte at a time, holds a task and a buffer.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The longest wait for a closing peer to take what was left for it and the close frame.
const GOODBYE: Duration = Duration::from_secs(5);

/// The upgrade request read from `s` (into `buf`, grown up to [`handshake::MAX_HEAD`]): its
/// `Sec-WebSocket-Accept` answer, the head's length and the bytes read in all.
async fn upgrade<S: AsyncRead + Unpin>(
    s: &mut S,
    buf: &mut Vec<u8>,
) -> Option<(String, usize, usize)> {
    let mut have = 0;
    loop {
        if have == buf.len() {
            if buf.len() >= handshake::MAX_HEAD {
                return None;
            }
            buf.resize((buf.len() * 2).min(handshake::MAX_HEAD), 0);
        }
        match s.read(&mut buf[have..]).await {
            Ok(n) if n > 0 => have += n,
            _ => return None,
        }
        match handshake::parse_request(&buf[..have]) {
            Ok(Some((req, head))) if req.version() == Some("13") => {
                return Some((handshake::accept_key(req.key()), head, have))
            }
            Ok(None) => {}
            _ => return None,
        }
    }
}

/// Writes `out` to `s` and flushes it (TLS holds what it has not yet sent until a flush).
async fn write_out<S: AsyncWrite + Unpin>(s: &mut S, out: &[u8]) -> io::Result<()> {
    s.write_all(out).await?;
    s.flush().await
}

/// One client's connection (plain TCP or TLS), from its upgrade request on. Its task reads the
/// client's frames into packets for the server; what the server sends goes through the peer's
/// [`Outbox`], written by the server's task when the socket takes it at once (plain TCP), else
/// by this task, everything pending in one write. What the server queued counts against the
/// peer's send queue until it is written; a peer that does not read blocks the write until the
/// server drops it (the outbox's `abort`).
async fn connection<S: Wire>(mut s: S, flavor: Flavor, events: Events, ids: PeerIds) {
    let mut buf = vec![0u8; READ_BUF];
    let Ok(Some((accept, head, mut filled))) =
        tokio::time::timeout(HANDSHAKE, upgrade(&mut s, &mut buf)).await
    else {
        return;
    };
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Accept: ",
    );
    out.extend_from_slice(accept.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    let id = ids.fresh();
    match flavor {
        Flavor::Godot4 => binary(&mut out, &godot::peer_id_message(id)),
        Flavor::Godot3 => {
            binary(&mut out, &godot::godot3_sys(Godot3Sys::Id, id));
            binary(&mut out, &godot::godot3_sys(Godot3Sys::AddPeer, SERVER_ID));
        }
    }
    if write_out(&mut s, &out).await.is_err() {
        ids.release(id);
        return;
    }
    let (mut r, mut w, direct) = s.split();
    let outbox = Arc::new(Outbox::new(flavor, direct));
    let link = Link::new(outbox.clone(), outbox.queued.clone());
    if events
        .send(TransportEvent::Connected { peer: id, link })
        .await
        .is_err()
    {
        outbox.finish();
        return;
    }
    let mut reader = MessageReader::with_offset(
        MessageConfig::client_to_server().with_max_message(MAX_MESSAGE as u64),
        head as u64,
    );
    let mut from = head;
    // What this task writes, taken from the outbox (its buffer and the outbox's take turns,
    // each emptied once written).
    out.clear();
    let mut writing = out;
    // Whether the peer still gets what is pending and a close frame: not once a write failed or
    // the server dropped it for not reading.
    let mut goodbye = true;
    'conn: loop {
        // The messages in what was read (a partial frame stays in the reader).
        let mut input = &buf[from..filled];
        loop {
            let bytes = match reader.read(&mut input) {
                Ok(Some(m)) => match m.message() {
                    Message::Binary(b) => b.to_vec(),
                    Message::Ping(p) => {
                        outbox.control(Opcode::Pong, p);
                        continue;
                    }
                    Message::Text(_) | Message::Pong(_) => continue,
                    Message::Close(_) => break 'conn,
                },
                Ok(None) => break,
                // Not WebSocket as RFC 6455 has it (unmasked, too long, …): closed.
                Err(_) => break 'conn,
            };
            let ev = match flavor {
                Flavor::Godot4 => TransportEvent::Packet {
                    peer: id,
                    channel: 0,
                    mode: TransferMode::Reliable,
                    target: SERVER_ID,
                    bytes,
                },
                Flavor::Godot3 => match godot::parse_godot3(&bytes) {
                    Ok(m @ Godot3Message::Data { to, packet, .. })
                        if m.check_from_client(id as u32).is_ok() =>
                    {
                        TransportEvent::Packet {
                            peer: id,
                            channel: 0,
                            mode: TransferMode::Reliable,
                            target: to,
                            bytes: packet.to_vec(),
                        }
                    }
                    // A forged sender, a system message from a client, garbage: dropped.
                    _ => break 'conn,
                },
            };
            if events.send(ev).await.is_err() {
                break 'conn;
            }
        }
        (from, filled) = (0, 0);
        tokio::select! {
            r = r.read(&mut buf) => match r {
                Ok(n) if n > 0 => filled = n,
                _ => break,
            },
            // A close, or frames for this task to write: everything pending, in one write,
            // until nothing is left.
            () = outbox.wake.notified() => loop {
                let payload = {
                    let Ok(mut p) = outbox.pending.lock() else { break 'conn };
                    if let Some(now) = p.close {
                        goodbye = !now;
                        break 'conn;
                    }
                    if !p.busy || p.buf.is_empty() {
                        p.busy = false;
                        break;
                    }
                    core::mem::swap(&mut p.buf, &mut writing);
                    core::mem::take(&mut p.payload)
                };
                let written = tokio::select! {
                    r = write_out(&mut w, &writing) => r.is_ok(),
                    () = outbox.abort.notified() => false,
                };
                if !written {
                    goodbye = false;
                    break 'conn;
                }
                writing.clear();
                dequeued(&outbox.queued, payload);
            },
        }
    }
    let mut rest = outbox.finish();
    if goodbye {
        write_frame(&mut rest, true, Opcode::Close, None, &[]);
        let bye = async {
            write_out(&mut w, &rest).await?;
            w.shutdown().await
        };
        tokio::select! {
            _ = tokio::time::timeout(GOODBYE, bye) => {}
            () = outbox.abort.notified() => {}
        }
    }
    ids.release(id);
    let _ = events.send(TransportEvent::Disconnected { peer: id }).await;
}
