//! The ENet transport (feature `server-enet`): what Godot 4's `ENetMultiplayerPeer` and Godot 3's
//! `NetworkedMultiplayerENet` expect of a server, on `rusty_enet` (ENet 1.3.18, the version Godot
//! 4 bundles), with the crate's [`enet::godot`](crate::enet::godot) layer for channels, transfer
//! modes, Godot 3's header and config messages.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusty_enet as enet;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::runtime::{
    bind_error, dequeued, Events, Link, LinkCmd, PeerIds, Server, Sink, TransportEvent,
};
use super::types::{Flavor, Outgoing, PeerId, ServerError, TransferMode};
use crate::enet::godot::{
    self as g, Config3, Header3, PACKET_FLAG_RELIABLE, PACKET_FLAG_UNRELIABLE_FRAGMENT,
    PACKET_FLAG_UNSEQUENCED,
};
use crate::enet::range_coder::RangeDecoder;

/// The UDP socket buffers asked for.
const UDP_BUFFER: usize = 4 << 20;

/// The most peers one ENet host serves (ENet's own limit is 4095).
const MAX_PEERS: usize = 4095;

/// How often ENet's timers (resends, pings, timeouts) are serviced when nothing else wakes the
/// task.
const TICK: Duration = Duration::from_millis(5);

/// The same while no peer is connected: a client's first datagram wakes the task through the
/// socket, and only a handshake datagram lost on the way waits for a timer (ENet resends after
/// half a second or more). Each service scans all `MAX_PEERS` slots twice: an idle server took
/// 0.8 % of a core at `TICK`.
const IDLE_TICK: Duration = Duration::from_millis(100);

/// How long a dropped server's ENet task waits for its peers to acknowledge their disconnection.
const GOODBYE: Duration = Duration::from_secs(2);

/// A tokio UDP socket as ENet's socket: non-blocking reads and writes, readiness for the task.
struct Socket(Arc<UdpSocket>);

impl enet::Socket for Socket {
    type Address = SocketAddr;
    type Error = io::Error;

    fn send(&mut self, address: SocketAddr, buffer: &[u8]) -> io::Result<usize> {
        match self.0.try_send_to(buffer, address) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            Err(e) => Err(e),
        }
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; enet::MTU_MAX],
    ) -> io::Result<Option<(SocketAddr, enet::PacketReceived)>> {
        match self.0.try_recv_from(buffer) {
            Ok((n, addr)) => Ok(Some((addr, enet::PacketReceived::Complete(n)))),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            // ICMP port unreachable from a vanished peer and the like: not the socket's end.
            Err(_) => Ok(None),
        }
    }
}

/// What an ENet host of the server does with ENet's range coder (Godot 3:
/// `NetworkedMultiplayerENet.compression_mode = COMPRESS_RANGE_CODER`, the default from 3.4;
/// Godot 4: `ENetConnection.compress(COMPRESS_RANGE_CODER)`, not the default).
///
/// A compressed datagram carries a flag in ENet's header, and an ENet host that has the range
/// coder reads both compressed and plain datagrams: so [`Accept`](Self::Accept), the default,
/// serves Godot clients with their default settings, compressing or not. Godot's other
/// compressions (FastLZ, zlib, Zstandard: Godot's own, not ENet's) set the same flag and are not
/// read: a client that uses one of them cannot connect (its datagrams are dropped).
///
/// Decompressing costs the server CPU before it knows the sender (as in ENet's C): a datagram of
/// a few bytes can decode to ENet's whole 4 KiB buffer, about as much work as a 4 KiB datagram.
/// The server decodes with the crate's own decoder ([`RangeDecoder`]), which refuses the
/// datagrams that would make ENet's C write past its symbol table, divide by zero or spin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnetCompression {
    /// Reads datagrams compressed with the range coder and sends its own uncompressed, which
    /// every Godot client reads (checked live with Godot 4.6 and 3.2.3 clients, which do not
    /// compress, and Godot 3.6.2 clients, which do).
    #[default]
    Accept,
    /// Compresses its own datagrams with the range coder too (where that makes them smaller), as
    /// a Godot host with `COMPRESS_RANGE_CODER` does: less bandwidth, but a client without the
    /// range coder (Godot 4's and 3.2's defaults) cannot read them.
    RangeCoder,
    /// Neither: a compressed datagram is dropped, as stock ENet without a compressor drops it
    /// (so a Godot 3.4+ client with its default settings cannot connect).
    Off,
}

/// The host's compressor for [`EnetCompression::Accept`] and [`EnetCompression::RangeCoder`]:
/// the crate's own range decoder (the one the capture reader uses) for what arrives; for what
/// leaves, rusty_enet's range coder or nothing.
struct Compression {
    decoder: RangeDecoder,
    encoder: Option<enet::RangeCoder>,
}

impl enet::Compressor for Compression {
    fn compress(&mut self, in_buffers: &[&[u8]], in_limit: usize, out: &mut [u8]) -> usize {
        // 0: "not compressed", and ENet sends the datagram as it is.
        match &mut self.encoder {
            Some(coder) => coder.compress(in_buffers, in_limit, out),
            None => 0,
        }
    }

    fn decompress(&mut self, in_data: &[u8], out: &mut [u8]) -> usize {
        // 0: ENet drops the datagram, as it drops one its own decoder refuses.
        self.decoder.decompress_into(in_data, out).unwrap_or(0)
    }
}

impl Server {
    /// Listens for ENet clients at `addr` (Godot 4 `ENetMultiplayerPeer.create_client`, Godot 3
    /// `NetworkedMultiplayerENet.create_client`, as the core's flavor says), reading compressed
    /// datagrams and sending plain ones ([`EnetCompression::Accept`]); returns the bound address
    /// (port 0 picks a free port). Each client picks its id and sends it in ENet's `CONNECT`.
    /// Call it inside a tokio runtime: the ENet host runs on a task of its own.
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when `addr` cannot be bound (its text names the address and says why).
    pub async fn listen_enet(&mut self, addr: SocketAddr) -> Result<SocketAddr, ServerError> {
        self.listen_enet_with(addr, EnetCompression::default())
            .await
    }

    /// [`listen_enet`](Self::listen_enet) with the given use of ENet's range coder.
    ///
    /// # Errors
    ///
    /// As [`listen_enet`](Self::listen_enet).
    pub async fn listen_enet_with(
        &mut self,
        addr: SocketAddr,
        compression: EnetCompression,
    ) -> Result<SocketAddr, ServerError> {
        let sock = Arc::new(
            UdpSocket::bind(addr)
                .await
                .map_err(|e| bind_error(addr, e))?,
        );
        // Room for bursts from many peers (the kernel caps it at net.core.rmem_max / wmem_max):
        // with the default ~200 KiB a thousand peers overflow it and ENet resends for seconds.
        let s = socket2::SockRef::from(&*sock);
        let _ = s.set_recv_buffer_size(UDP_BUFFER);
        let _ = s.set_send_buffer_size(UDP_BUFFER);
        let local = sock.local_addr()?;
        let settings = enet::HostSettings {
            peer_limit: MAX_PEERS,
            channel_limit: enet::consts::PROTOCOL_MAXIMUM_CHANNEL_COUNT as usize,
            compressor: match compression {
                EnetCompression::Off => None,
                EnetCompression::Accept | EnetCompression::RangeCoder => {
                    Some(Box::new(Compression {
                        decoder: RangeDecoder::new(),
                        encoder: (compression == EnetCompression::RangeCoder)
                            .then(enet::RangeCoder::new),
                    }))
                }
            },
            ..Default::default()
        };
        let host = enet::Host::new(Socket(sock.clone()), settings)
            .map_err(|e| io::Error::other(format!("ENet host: {e:?}")))?;
        let flavor = self.core().config().flavor;
        let (events, ids) = (self.events(), self.ids.clone());
        // Not aborted with the server: once it is dropped, the task disconnects its peers and
        // ends (`goodbye`).
        tokio::spawn(run(host, sock, flavor, events, ids));
        Ok(local)
    }
}

/// The packet kind for `ENET_PACKET_FLAG_*` bits.
fn kind(flags: u32) -> enet::PacketKind {
    if flags & PACKET_FLAG_RELIABLE != 0 {
        enet::PacketKind::Reliable
    } else if flags & PACKET_FLAG_UNRELIABLE_FRAGMENT != 0 {
        enet::PacketKind::AlwaysUnreliable {
            sequenced: flags & PACKET_FLAG_UNSEQUENCED == 0,
        }
    } else {
        enet::PacketKind::Unreliable {
            sequenced: flags & PACKET_FLAG_UNSEQUENCED == 0,
        }
    }
}

fn mode(m: TransferMode) -> g::TransferMode {
    match m {
        TransferMode::Reliable => g::TransferMode::Reliable,
        TransferMode::UnreliableOrdered => g::TransferMode::UnreliableOrdered,
        TransferMode::Unreliable => g::TransferMode::Unreliable,
    }
}

/// A packet's bytes in ENet's hands, counted in its peer's send queue until ENet frees them
/// (sent, or for a reliable packet, acknowledged; or the peer dropped).
struct Queued {
    bytes: Arc<[u8]>,
    count: usize,
    queued: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for Queued {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        dequeued(&self.queued, self.count);
    }
}

/// The ENet task's commands, one queue for all its peers' links.
#[derive(Debug)]
struct Commands(mpsc::UnboundedSender<LinkCmd>);

impl Sink for Commands {
    fn push(&self, cmd: LinkCmd) -> bool {
        let _ = self.0.send(cmd);
        false
    }

    /// Nothing: the ENet task sends what it is handed as it wakes.
    fn write(&self) {}
}

struct Slots {
    by_slot: HashMap<usize, PeerId>,
    by_id: HashMap<PeerId, (enet::PeerID, Arc<AtomicUsize>)>,
}

async fn run(
    mut host: enet::Host<Socket>,
    sock: Arc<UdpSocket>,
    flavor: Flavor,
    events: Events,
    ids: PeerIds,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<LinkCmd>();
    let tx: Arc<dyn Sink> = Arc::new(Commands(tx));
    let mut slots = Slots {
        by_slot: HashMap::new(),
        by_id: HashMap::new(),
    };
    let mut out: Vec<TransportEvent> = Vec::new();
    // Each `service` call makes two passes over all of the host's peer slots (sends, then after
    // its receive, sends again): it runs when the socket woke the task or ENet's timers are due,
    // not after every command. At 1000 peers and 32 000 echoes/s spread over them (one datagram
    // a wake-up), calling it until it had nothing more, and again after every command, took the
    // whole core (benches/mp_server.sh, rust@g).
    let mut due = true;
    let mut serviced = Instant::now();
    let closed = events.closed();
    tokio::pin!(closed);
    loop {
        if due {
            // ENet's I/O and timers (resends, pings, timeouts), then every event it has queued
            // without another pass.
            serviced = Instant::now();
            let mut ev = host.service().ok().flatten();
            while let Some(e) = ev {
                on_event(e, flavor, &ids, &tx, &mut slots, &mut out);
                ev = host.check_events();
            }
        }
        for ev in out.drain(..) {
            if events.send(ev).await.is_err() {
                return goodbye(host, &sock, slots).await;
            }
        }
        tokio::select! {
            r = sock.readable() => {
                if r.is_err() { return; }
                due = true;
            }
            cmd = rx.recv() => {
                let Some(cmd) = cmd else { return };
                apply(&mut host, &mut slots, &ids, flavor, cmd, &mut out);
                while let Ok(cmd) = rx.try_recv() {
                    apply(&mut host, &mut slots, &ids, flavor, cmd, &mut out);
                }
                host.flush();
                due = serviced.elapsed() >= TICK;
            }
            () = tokio::time::sleep(if slots.by_slot.is_empty() { IDLE_TICK } else { TICK }) => {
                due = true;
            }
            () = &mut closed => return goodbye(host, &sock, slots).await,
        }
    }
}

/// The server was dropped: each peer is sent ENet's `DISCONNECT` and the host serviced until
/// every peer acknowledged it, or for [`GOODBYE`] at most.
async fn goodbye(mut host: enet::Host<Socket>, sock: &UdpSocket, mut slots: Slots) {
    for &(slot, _) in slots.by_id.values() {
        if let Some(p) = host.get_peer_mut(slot) {
            p.disconnect(0);
        }
    }
    host.flush();
    let until = Instant::now() + GOODBYE;
    while !slots.by_slot.is_empty() && Instant::now() < until {
        tokio::select! {
            r = sock.readable() => if r.is_err() { return },
            () = tokio::time::sleep(TICK) => {}
        }
        while let Ok(Some(ev)) = host.service() {
            if let enet::Event::Disconnect { peer, .. } = ev {
                slots.by_slot.remove(&peer.id().0);
            }
        }
    }
}

fn on_event(
    ev: enet::Event<'_, Socket>,
    flavor: Flavor,
    ids: &PeerIds,
    tx: &Arc<dyn Sink>,
    slots: &mut Slots,
    out: &mut Vec<TransportEvent>,
) {
    match ev {
        enet::Event::Connect { peer, data } => {
            let id = g::connect_peer_id(data).map_or(0, |d| d as PeerId);
            if id < 2 || !ids.claim(id) {
                // As the engine: a peer with a bad or taken id is reset.
                peer.reset();
                return;
            }
            let link = Link::new(tx.clone(), Arc::new(AtomicUsize::new(0)));
            slots.by_slot.insert(peer.id().0, id);
            slots.by_id.insert(id, (peer.id(), link.queued.clone()));
            out.push(TransportEvent::Connected { peer: id, link });
        }
        enet::Event::Disconnect { peer, .. } => {
            if let Some(id) = slots.by_slot.remove(&peer.id().0) {
                slots.by_id.remove(&id);
                ids.release(id);
                out.push(TransportEvent::Disconnected { peer: id });
            }
        }
        enet::Event::Receive {
            peer,
            channel_id,
            packet,
        } => {
            let Some(&id) = slots.by_slot.get(&peer.id().0) else {
                return;
            };
            let data = packet.data();
            match flavor {
                Flavor::Godot4 => {
                    // rusty_enet 0.4.1's `Packet::kind` reports every packet as reliable: the
                    // mode is read from the channel (Godot's system channels 0 and 1).
                    let (channel, mode) = match channel_id {
                        g::SYSCH_RELIABLE => (0, TransferMode::Reliable),
                        g::SYSCH_UNRELIABLE => (0, TransferMode::UnreliableOrdered),
                        c => (c - g::SYSCH_MAX + 1, TransferMode::Reliable),
                    };
                    out.push(TransportEvent::Packet {
                        peer: id,
                        channel,
                        mode,
                        target: 1,
                        bytes: data.to_vec(),
                    });
                }
                Flavor::Godot3 => {
                    let mode = match channel_id {
                        g::SYSCH3_RELIABLE => TransferMode::Reliable,
                        g::SYSCH3_UNRELIABLE => TransferMode::Unreliable,
                        // Config messages go only from the server.
                        _ => return,
                    };
                    match Header3::split(data) {
                        Ok((h, rest)) if h.source == id as u32 => {
                            out.push(TransportEvent::Packet {
                                peer: id,
                                channel: 0,
                                mode,
                                target: h.target,
                                bytes: rest.to_vec(),
                            })
                        }
                        // A forged source or a short packet: dropped, as the engine does.
                        _ => {}
                    }
                }
            }
        }
    }
}

fn apply(
    host: &mut enet::Host<Socket>,
    slots: &mut Slots,
    ids: &PeerIds,
    flavor: Flavor,
    cmd: LinkCmd,
    out: &mut Vec<TransportEvent>,
) {
    let (to, channel_id, bytes, count, kind) = match cmd {
        LinkCmd::Send(Outgoing {
            to,
            source,
            target,
            channel,
            mode: m,
            bytes,
        }) => {
            let count = bytes.len();
            match flavor {
                Flavor::Godot4 => {
                    let Some(s) = g::send4(mode(m), channel) else {
                        return;
                    };
                    (to, s.channel_id, bytes, count, kind(s.flags))
                }
                Flavor::Godot3 => {
                    let s = g::send3(mode(m), false);
                    let mut b = Vec::with_capacity(8 + bytes.len());
                    b.extend_from_slice(
                        &Header3 {
                            source: source as u32,
                            target,
                        }
                        .to_bytes(),
                    );
                    b.extend_from_slice(&bytes);
                    (to, s.channel_id, b.into(), count, kind(s.flags))
                }
            }
        }
        LinkCmd::Notify { to, peer, joined } => {
            let msg = if joined {
                Config3::AddPeer(peer as u32)
            } else {
                Config3::RemovePeer(peer as u32)
            };
            let b: Arc<[u8]> = msg.to_bytes().as_slice().into();
            let kind = enet::PacketKind::Reliable;
            (to, g::SYSCH3_CONFIG, b, 0, kind)
        }
        LinkCmd::Close { peer, now } => {
            let Some(&(slot, _)) = slots.by_id.get(&peer) else {
                return;
            };
            let Some(p) = host.get_peer_mut(slot) else {
                return;
            };
            if now {
                // It does not read: its queues go now (ENet reports no disconnection for it).
                p.disconnect_now(0);
                slots.by_slot.remove(&slot.0);
                slots.by_id.remove(&peer);
                ids.release(peer);
                out.push(TransportEvent::Disconnected { peer });
            } else {
                p.disconnect(0);
            }
            return;
        }
    };
    let Some((slot, queued)) = slots.by_id.get(&to) else {
        return;
    };
    let data = Box::new(Queued {
        bytes,
        count,
        queued: queued.clone(),
    });
    let packet = enet::Packet::new(data, kind);
    if let Some(p) = host.get_peer_mut(*slot) {
        let _ = p.send(channel_id, &packet);
    }
}
