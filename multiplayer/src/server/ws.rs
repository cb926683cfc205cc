//! The WebSocket transport (feature `server-ws`): what Godot 4's `WebSocketMultiplayerPeer` and
//! Godot 3's `WebSocketServer` expect of a server, on tokio-tungstenite, with the crate's
//! [`websocket::godot`](crate::websocket::godot) layer. Plain `ws://`, or `wss://` with the
//! feature `server-wss` (TLS on tokio-rustls).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use super::runtime::{dequeued, Events, Link, LinkCmd, PeerIds, Server, TransportEvent};
use super::types::{Flavor, ServerError, TransferMode, SERVER_ID};
use crate::websocket::godot::{self, Godot3Message, Godot3Sys};

/// The largest message taken from a client.
const MAX_MESSAGE: usize = 8 << 20;

impl Server {
    /// Listens for WebSocket clients at `addr` (Godot 4 `WebSocketMultiplayerPeer.create_client`,
    /// Godot 3 `WebSocketClient` with `NetworkedMultiplayerPeer`, as the core's flavor says);
    /// returns the bound address. The server picks each client's id.
    pub async fn listen_ws(&mut self, addr: SocketAddr) -> Result<SocketAddr, ServerError> {
        self.listen_tcp(addr, connection::<QuickAck>).await
    }

    /// Listens for `wss://` clients at `addr` (feature `server-wss`), as
    /// [`listen_ws`](Self::listen_ws) over TLS 1.2 or 1.3: `cert_pem` is the certificate chain
    /// (PEM, the server's certificate first), `key_pem` its private key (PEM: PKCS #8, PKCS #1 or
    /// SEC1). A Godot 4 client connects with `create_client("wss://HOST:PORT")` (a certificate
    /// its trusted CAs sign) or `create_client("wss://HOST:PORT", TLSOptions.client(cert))`;
    /// `TLSOptions.client_unsafe()` skips the check (tests only).
    #[cfg(feature = "server-wss")]
    pub async fn listen_wss(
        &mut self,
        addr: SocketAddr,
        cert_pem: &[u8],
        key_pem: &[u8],
    ) -> Result<SocketAddr, ServerError> {
        let acceptor = tls::acceptor(cert_pem, key_pem)?;
        self.listen_tcp(addr, move |stream, flavor, events, ids| {
            let handshake =
                tokio::time::timeout(std::time::Duration::from_secs(10), acceptor.accept(stream));
            async move {
                if let Ok(Ok(tls)) = handshake.await {
                    connection(tls, flavor, events, ids).await;
                }
            }
        })
        .await
    }

    /// Accepts TCP connections at `addr`, tuned ([`tune_tcp`]), each served by `serve` on a task
    /// of its own; the bound address.
    async fn listen_tcp<F, Fut>(
        &mut self,
        addr: SocketAddr,
        serve: F,
    ) -> Result<SocketAddr, ServerError>
    where
        F: Fn(QuickAck, Flavor, Events, PeerIds) -> Fut + Send + 'static,
        Fut: core::future::Future<Output = ()> + Send + 'static,
    {
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let flavor = self.core().config().flavor;
        let (events, ids) = (self.events(), self.ids.clone());
        self.add_task(tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = tune_tcp(&stream);
                tokio::spawn(serve(QuickAck(stream), flavor, events.clone(), ids.clone()));
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
/// (and on its own after a while), so call [`quickack`] after each read and each write, as this
/// server's WebSocket transport does.
///
/// Why: a Godot client that writes a message in two `send`s (`StreamPeerTCP.put_var` writes the
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

/// A TCP stream that asks for a quick ACK after every read.
struct QuickAck(TcpStream);

impl AsyncRead for QuickAck {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.0).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let _ = quickack(&self.0);
        }
        r
    }
}

impl AsyncWrite for QuickAck {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        b: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.0).poll_write(cx, b);
        // Sending puts Linux back in delayed-ACK mode: out of it again.
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            let _ = quickack(&self.0);
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.0).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            let _ = quickack(&self.0);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }
}

fn binary(b: Vec<u8>) -> Message {
    Message::Binary(b.into())
}

async fn connection<S>(stream: S, flavor: Flavor, events: Events, ids: PeerIds)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // Small buffers: a connection costs a few KiB, not tungstenite's default 2 × 128 KiB.
    let cfg = WebSocketConfig::default()
        .read_buffer_size(8 << 10)
        .write_buffer_size(16 << 10)
        .max_write_buffer_size(MAX_MESSAGE * 2)
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    let Ok(ws) = tokio_tungstenite::accept_async_with_config(stream, Some(cfg)).await else {
        return;
    };
    let (mut sink, mut source) = ws.split();
    let id = ids.fresh();
    let hello = match flavor {
        Flavor::Godot4 => sink.send(binary(godot::peer_id_message(id).to_vec())).await,
        Flavor::Godot3 => {
            let _ = sink
                .feed(binary(godot::godot3_sys(Godot3Sys::Id, id).to_vec()))
                .await;
            sink.send(binary(
                godot::godot3_sys(Godot3Sys::AddPeer, SERVER_ID).to_vec(),
            ))
            .await
        }
    };
    if hello.is_err() {
        ids.release(id);
        return;
    }
    let (tx, mut rx) = mpsc::unbounded_channel();
    let link = Link::new(tx);
    let (queued, abort) = (link.queued.clone(), link.abort.clone());
    if events
        .send(TransportEvent::Connected { peer: id, link })
        .await
        .is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            msg = source.next() => {
                let bytes = match msg {
                    Some(Ok(Message::Binary(b))) => b,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let ev = match flavor {
                    Flavor::Godot4 => Some(TransportEvent::Packet {
                        peer: id,
                        channel: 0,
                        mode: TransferMode::Reliable,
                        target: SERVER_ID,
                        bytes: bytes.to_vec(),
                    }),
                    Flavor::Godot3 => match godot::parse_godot3(&bytes) {
                        Ok(m @ Godot3Message::Data { to, packet, .. }) if m.check_from_client(id as u32).is_ok() => {
                            Some(TransportEvent::Packet {
                                peer: id,
                                channel: 0,
                                mode: TransferMode::Reliable,
                                target: to,
                                bytes: packet.to_vec(),
                            })
                        }
                        // A forged sender, a system message from a client, garbage: dropped.
                        _ => break,
                    },
                };
                if let Some(ev) = ev {
                    if events.send(ev).await.is_err() {
                        break;
                    }
                }
            }
            cmd = rx.recv() => {
                let Some(first) = cmd else { break };
                // Feed everything queued, then flush once; a peer that does not read blocks
                // this until the server drops it (`abort`).
                let write = async {
                    let mut cmd = Some(first);
                    while let Some(c) = cmd.take() {
                        let (msg, n) = match c {
                            LinkCmd::Send(o) => {
                                let msg = match flavor {
                                    Flavor::Godot4 => binary(o.bytes.to_vec()),
                                    Flavor::Godot3 => binary(godot::godot3_data(o.source as u32, o.target, &o.bytes)),
                                };
                                (msg, o.bytes.len())
                            }
                            LinkCmd::Notify { peer, joined, .. } => {
                                let sys = if joined { Godot3Sys::AddPeer } else { Godot3Sys::DelPeer };
                                (binary(godot::godot3_sys(sys, peer).to_vec()), 0)
                            }
                            LinkCmd::Close { .. } => return false,
                        };
                        let fed = sink.feed(msg).await;
                        dequeued(&queued, n);
                        if fed.is_err() {
                            return false;
                        }
                        cmd = rx.try_recv().ok();
                    }
                    sink.flush().await.is_ok()
                };
                let open = tokio::select! {
                    open = write => open,
                    () = abort.notified() => break,
                };
                if !open {
                    let _ = sink.send(Message::Close(None)).await;
                    break;
                }
            }
        }
    }
    ids.release(id);
    let _ = events.send(TransportEvent::Disconnected { peer: id }).await;
}
