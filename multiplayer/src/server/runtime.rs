//! [`Server`]: the [`ServerCore`] driven by tokio, with the transports that feed it.

// Without both transports, some of the plumbing between them and the server goes unused.
#![cfg_attr(
    not(all(feature = "server-ws", feature = "server-enet")),
    allow(dead_code)
)]

use alloc::collections::VecDeque;
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::core::ServerCore;
use super::replication::Spawned;
use super::types::{Action, Event, Outgoing, PeerId, ServerError, To, TransferMode};
use crate::Arg;

/// What a transport is asked to do for one of its peers (not every transport reads every field).
#[derive(Debug)]
#[cfg_attr(
    not(all(feature = "server-ws", feature = "server-enet")),
    allow(dead_code)
)]
pub(crate) enum LinkCmd {
    Send(Outgoing),
    /// Godot 3: tell `to` that `peer` joined or left.
    Notify {
        to: PeerId,
        peer: PeerId,
        joined: bool,
    },
    /// Disconnect the peer: after what is queued for it, or at once (`now`: it does not read).
    Close {
        peer: PeerId,
        now: bool,
    },
}

/// A peer's way out through its transport. The server pushes what it has for the peer; once no
/// event waits for the application (it has taken the batch the sends answer), it has the sinks it
/// pushed to [`write`](Self::write), so that a batch leaves in one write per peer.
pub(crate) trait Sink: Send + Sync + core::fmt::Debug {
    /// Takes a command for the peer; true when the sink was idle, and wants a `write` after it.
    fn push(&self, cmd: LinkCmd) -> bool;
    /// Writes what was pushed, or has the transport write it.
    fn write(&self);
}

/// The way to a peer's transport, and what waits in it for the peer.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    pub(crate) sink: Arc<dyn Sink>,
    /// Bytes handed to the transport for this peer that it has not written yet (WebSocket) or
    /// that ENet still holds (not yet sent, or reliable and not yet acknowledged).
    pub(crate) queued: Arc<AtomicUsize>,
}

impl Link {
    /// A link through `sink`, whose queue counts in `queued`.
    pub(crate) fn new(sink: Arc<dyn Sink>, queued: Arc<AtomicUsize>) -> Link {
        Link { sink, queued }
    }

    fn close(&self, peer: PeerId, now: bool) {
        self.sink.push(LinkCmd::Close { peer, now });
    }
}

/// The error of binding `addr`, naming it (the system's text alone does not).
pub(crate) fn bind_error(addr: std::net::SocketAddr, e: std::io::Error) -> ServerError {
    ServerError::Io(std::io::Error::new(
        e.kind(),
        format!("cannot listen on {addr}: {e}"),
    ))
}

/// Counts `n` bytes as written (or released) from a link's queue.
pub(crate) fn dequeued(queued: &AtomicUsize, n: usize) {
    queued.fetch_sub(n, Ordering::Relaxed);
}

/// What transports report.
#[derive(Debug)]
pub(crate) enum TransportEvent {
    Connected {
        peer: PeerId,
        link: Link,
    },
    Disconnected {
        peer: PeerId,
    },
    Packet {
        peer: PeerId,
        channel: u8,
        mode: TransferMode,
        target: i32,
        bytes: Vec<u8>,
    },
}

/// The events' way from the transports to the server (bounded: a transport waits when the
/// server is behind, rather than buffering without limit).
pub(crate) type Events = mpsc::Sender<TransportEvent>;

/// How often the core's timers run (authentication time-outs), and the longest wait for an event.
const TICK: Duration = Duration::from_millis(100);

/// The most transport events handled between two flushes.
const BATCH: usize = 256;

/// The peer ids in use, shared by the transports: unique across transports.
#[derive(Clone, Debug, Default)]
pub(crate) struct PeerIds(Arc<Mutex<HashSet<PeerId>>>);

impl PeerIds {
    /// Takes `id` (a client's choice, ENet): false when below 2 or taken.
    pub(crate) fn claim(&self, id: PeerId) -> bool {
        id >= 2 && self.0.lock().is_ok_and(|mut s| s.insert(id))
    }

    /// A fresh random id (the server's choice, WebSocket): 31 bits, never 0 or 1.
    pub(crate) fn fresh(&self) -> PeerId {
        loop {
            let mut h = RandomState::new().build_hasher();
            h.write_u64(0x9E37_79B9_7F4A_7C15);
            let id = (h.finish() & 0x7FFF_FFFF) as PeerId;
            if self.claim(id) {
                return id;
            }
        }
    }

    pub(crate) fn release(&self, id: PeerId) {
        if let Ok(mut s) = self.0.lock() {
            s.remove(&id);
        }
    }
}

/// The server: a [`ServerCore`] fed by its transports. Drive it with
/// [`next_event`](Self::next_event), which sends what the core decides and returns what is for
/// the application; call the sending methods between events. What they queue is written once no
/// event waits for the application (at once, or after it took the last event of the batch it
/// answers: one write per peer for the batch); [`flush`](Self::flush) writes at once.
///
/// # On your own tokio runtime
///
/// The `listen_*` methods spawn the transports' tasks with `tokio::spawn`, so they must be
/// called inside a runtime with I/O and time enabled (`#[tokio::main]`, or
/// `Builder::enable_all`); current-thread and multi-thread runtimes both work, and `Server` is
/// `Send`, so it may live in a task of its own. Only [`next_event`](Self::next_event) takes what
/// the transports received to the core (peers joining, their packets: up to 65 536 wait in a
/// queue, then the transports stop reading and ENet peers time out), so keep one task looping
/// on it. `next_event` is cancel-safe (an event not yet
/// returned stays queued), so it may be one branch of a `tokio::select!` whose other branches
/// take the application's own inputs (a channel, a timer) and call the sending methods:
///
/// ```no_run
/// # #[cfg(feature = "server-ws")]
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use gdvariant::Variant;
/// use gdvariant_multiplayer::server::{Event, RpcSpec, Server, ServerConfig, ServerCore, ServerSchema, To};
/// let schema = ServerSchema::new().node("/root/Main", [RpcSpec::authority("announce")]);
/// let mut server = Server::new(ServerCore::new(schema, ServerConfig::default()));
/// server.listen_ws("0.0.0.0:9080".parse()?).await?;
/// let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(16); // the rest of the program's
/// # drop(tx);
/// let (stop_tx, mut stop) = tokio::sync::oneshot::channel::<()>();
/// # drop(stop_tx);
/// tokio::spawn(async move {
///     loop {
///         tokio::select! {
///             event = server.next_event() => println!("{event:?}"),
///             Some(text) = rx.recv() => {
///                 server.rpc(To::All, "Main", "announce", &[Variant::from(text.as_str())]).ok();
///             }
///             _ = &mut stop => break,
///         }
///     }
///     // Stopping: each peer kicked with a reason for the log (dropping the server alone
///     // would tell the clients too), then the server dropped at the end of the task.
///     let peers: Vec<_> = server.core().peers().collect();
///     for p in peers {
///         server.kick(p, "server stopping");
///     }
/// });
/// # Ok(()) }
/// ```
///
/// # Stopping
///
/// Dropping the server stops its listeners at once and ends every connection, the clients told
/// as a Godot server tells them when it closes: each WebSocket client gets what was still queued
/// for it and a close frame, each ENet client ENet's `DISCONNECT` (its task waits up to 2 s for
/// the acknowledgements, then ends). The transports' tasks do this on the runtime after the
/// drop, so keep the runtime running a moment (the crate's test `server_stop.rs` checks both
/// transports, with and without kicking the peers first). Shutting the runtime down ends
/// everything without telling anyone.
///
/// The core's methods without a wrapper here ([`ServerCore::set_spawn_state`],
/// [`ServerCore::set_path_public`], [`ServerCore::set_path_visible`],
/// [`ServerCore::set_relay`]) are called through [`core_mut`](Self::core_mut), then
/// [`flush`](Self::flush).
pub struct Server {
    core: ServerCore,
    events_tx: Events,
    events_rx: mpsc::Receiver<TransportEvent>,
    links: HashMap<PeerId, Link>,
    pub(crate) ids: PeerIds,
    ready: VecDeque<Event>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    last_tick: Instant,
    /// Peers dropped for a full send queue, whose transports must not wait for them.
    overflowed: Vec<PeerId>,
    /// The sinks pushed to since they last wrote.
    dirty: Vec<Arc<dyn Sink>>,
}

impl core::fmt::Debug for Server {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("core", &self.core)
            .field("links", &self.links.len())
            .finish()
    }
}

impl Drop for Server {
    /// Stops the listeners and has every connection closed with its client told, the peers the
    /// application has not heard of yet too (the ENet tasks end once their peers are gone).
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.events_rx.close();
        while let Ok(ev) = self.events_rx.try_recv() {
            if let TransportEvent::Connected { peer, link } = ev {
                link.close(peer, false);
            }
        }
        for (&peer, link) in &self.links {
            link.close(peer, false);
        }
    }
}

impl Server {
    /// A server around `core`, with no transport yet (needs a tokio runtime from the first
    /// `listen_*` on).
    pub fn new(core: ServerCore) -> Server {
        let (events_tx, events_rx) = mpsc::channel(64 * 1024);
        Server {
            core,
            events_tx,
            events_rx,
            links: HashMap::new(),
            ids: PeerIds::default(),
            ready: VecDeque::new(),
            tasks: Vec::new(),
            last_tick: Instant::now(),
            overflowed: Vec::new(),
            dirty: Vec::new(),
        }
    }

    pub(crate) fn events(&self) -> Events {
        self.events_tx.clone()
    }

    pub(crate) fn add_task(&mut self, t: tokio::task::JoinHandle<()>) {
        self.tasks.push(t);
    }

    /// The core, to read its state or call what has no wrapper here.
    pub fn core(&self) -> &ServerCore {
        &self.core
    }

    /// The core, mutably; [`flush`](Self::flush) afterwards sends what it decided.
    pub fn core_mut(&mut self) -> &mut ServerCore {
        &mut self.core
    }

    /// The next event for the application; meanwhile, serves the peers.
    pub async fn next_event(&mut self) -> Event {
        loop {
            if let Some(e) = self.ready.pop_front() {
                return e;
            }
            // The application took every event: what it sent in answer leaves now.
            self.write_out();
            // One wait, then everything already queued (up to a batch) before the next flush:
            // no timer armed per packet.
            let first = tokio::time::timeout(TICK, self.events_rx.recv())
                .await
                .ok()
                .flatten();
            let now = Instant::now();
            if let Some(ev) = first {
                self.handle(ev, now);
                for _ in 1..BATCH {
                    match self.events_rx.try_recv() {
                        Ok(ev) => self.handle(ev, now),
                        Err(_) => break,
                    }
                }
            }
            if now.saturating_duration_since(self.last_tick) >= TICK {
                self.last_tick = now;
                self.core.tick(now);
            }
            self.dispatch();
        }
    }

    /// Takes one transport event to the core (a new peer's link kept, or closed if refused).
    fn handle(&mut self, ev: TransportEvent, now: Instant) {
        match ev {
            TransportEvent::Connected { peer, link } => {
                if self.core.peer_connected(peer, now).is_ok() {
                    self.links.insert(peer, link);
                } else {
                    link.close(peer, false);
                }
            }
            TransportEvent::Disconnected { peer } => {
                self.links.remove(&peer);
                self.core.peer_disconnected(peer);
            }
            TransportEvent::Packet {
                peer,
                channel,
                mode,
                target,
                bytes,
            } => self.core.receive(peer, channel, mode, target, &bytes, now),
        }
    }

    /// The bytes waiting in the transport for `peer` (not yet written to its socket; for ENet,
    /// also sent reliably and not yet acknowledged); `None` for an unknown peer.
    pub fn queued(&self, peer: PeerId) -> Option<usize> {
        self.links
            .get(&peer)
            .map(|l| l.queued.load(Ordering::Relaxed))
    }

    /// Hands what the core decided to the transports and has them write it (the methods here do
    /// it themselves, writing once no event waits for the application: a batch of answers leaves
    /// in one write per peer when the application takes the batch's last event). A peer whose
    /// queue would pass
    /// [`ServerConfig::max_send_queue`](super::core::ServerConfig::max_send_queue) bytes is
    /// dropped instead (`Event::Rejected`, kicked): it does not read what it is sent.
    pub fn flush(&mut self) {
        self.dispatch();
        self.write_out();
    }

    /// Hands what the core decided to the transports; writes it when no event waits for the
    /// application (else [`next_event`](Self::next_event) does, once it has none to return).
    fn dispatch(&mut self) {
        let limit = self.core.config().max_send_queue;
        while let Some(a) = self.core.next_action() {
            match a {
                Action::Send(o) => {
                    let Some(l) = self.links.get(&o.to) else {
                        continue;
                    };
                    let n = o.bytes.len();
                    let queued = l.queued.fetch_add(n, Ordering::Relaxed) + n;
                    if queued <= limit {
                        if l.sink.push(LinkCmd::Send(o)) {
                            self.dirty.push(l.sink.clone());
                        }
                        continue;
                    }
                    dequeued(&l.queued, n);
                    self.overflowed.push(o.to);
                    let why = alloc::format!(
                        "send queue full: {queued} bytes waiting, over {limit} (the peer does not read)"
                    );
                    self.core.reject(o.to, why, true);
                }
                Action::Notify { to, peer, joined } => {
                    if let Some(l) = self.links.get(&to) {
                        if l.sink.push(LinkCmd::Notify { to, peer, joined }) {
                            self.dirty.push(l.sink.clone());
                        }
                    }
                }
                Action::Kick { peer, .. } => {
                    let now = self.overflowed.contains(&peer);
                    self.overflowed.retain(|&p| p != peer);
                    if let Some(l) = self.links.remove(&peer) {
                        l.close(peer, now);
                    }
                }
                Action::Event(e) => self.ready.push_back(e),
            }
        }
        if self.ready.is_empty() {
            self.write_out();
        }
    }

    /// Has every sink pushed to write.
    fn write_out(&mut self) {
        for s in self.dirty.drain(..) {
            s.write();
        }
    }

    /// Calls `method` of the node at `path` on `to` ([`ServerCore::rpc`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::rpc`].
    pub fn rpc<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        method: &str,
        args: &[A],
    ) -> Result<(), ServerError> {
        let r = self.core.rpc(to, path, method, args);
        self.dispatch();
        r
    }

    /// Sets a property on the clients' node (Godot 3 `rset_id`, [`ServerCore::rset`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::rset`].
    pub fn rset<A: Arg + ?Sized>(
        &mut self,
        to: To,
        path: &str,
        property: &str,
        value: &A,
    ) -> Result<(), ServerError> {
        let r = self.core.rset(to, path, property, value);
        self.dispatch();
        r
    }

    /// Sends raw bytes ([`ServerCore::send_bytes`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::send_bytes`].
    pub fn send_bytes(
        &mut self,
        to: To,
        data: &[u8],
        channel: u8,
        mode: TransferMode,
    ) -> Result<(), ServerError> {
        let r = self.core.send_bytes(to, data, channel, mode);
        self.dispatch();
        r
    }

    /// Sends a packet built elsewhere, as it is ([`ServerCore::send_packet`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::send_packet`].
    pub fn send_packet(
        &mut self,
        to: To,
        packet: &[u8],
        channel: u8,
        mode: TransferMode,
    ) -> Result<(), ServerError> {
        let r = self.core.send_packet(to, packet, channel, mode);
        self.dispatch();
        r
    }

    /// Spawns a node on the clients ([`ServerCore::spawn`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::spawn`].
    pub fn spawn<A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        scene: u8,
        name: &str,
        synchronizers: usize,
        state: &[A],
    ) -> Result<Spawned, ServerError> {
        let r = self
            .core
            .spawn(to, spawner, scene, name, synchronizers, state);
        self.dispatch();
        r
    }

    /// Sends a synchronizer's "always" properties ([`ServerCore::sync`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::sync`].
    pub fn sync<A: Arg>(&mut self, to: To, sync_id: u32, values: &[A]) -> Result<(), ServerError> {
        let r = self.core.sync(to, sync_id, values);
        self.dispatch();
        r
    }

    /// Sends a synchronizer's changed "on change" properties ([`ServerCore::delta`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::delta`].
    pub fn delta<A: Arg>(
        &mut self,
        to: To,
        sync_id: u32,
        mask: u64,
        values: &[A],
    ) -> Result<(), ServerError> {
        let r = self.core.delta(to, sync_id, mask, values);
        self.dispatch();
        r
    }

    /// Shows or hides a spawned node for one peer ([`ServerCore::set_visible`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::set_visible`].
    pub fn set_visible(
        &mut self,
        net_id: u32,
        peer: PeerId,
        visible: bool,
    ) -> Result<(), ServerError> {
        let r = self.core.set_visible(net_id, peer, visible);
        self.dispatch();
        r
    }

    /// Spawns a node with the spawner's `spawn_function` ([`ServerCore::spawn_custom`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::spawn_custom`].
    pub fn spawn_custom<D: Arg + ?Sized, A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        name: &str,
        data: &D,
        synchronizers: usize,
        state: &[A],
    ) -> Result<Spawned, ServerError> {
        let r = self
            .core
            .spawn_custom(to, spawner, name, data, synchronizers, state);
        self.dispatch();
        r
    }

    /// Sends the state of a synchronizer outside spawned nodes ([`ServerCore::sync_path`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::sync_path`].
    pub fn sync_path<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        values: &[A],
    ) -> Result<(), ServerError> {
        let r = self.core.sync_path(to, path, values);
        self.dispatch();
        r
    }

    /// Sends the changes of a synchronizer outside spawned nodes ([`ServerCore::delta_path`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::delta_path`].
    pub fn delta_path<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        mask: u64,
        values: &[A],
    ) -> Result<(), ServerError> {
        let r = self.core.delta_path(to, path, mask, values);
        self.dispatch();
        r
    }

    /// Despawns a node ([`ServerCore::despawn`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::despawn`].
    pub fn despawn(&mut self, net_id: u32) -> Result<(), ServerError> {
        let r = self.core.despawn(net_id);
        self.dispatch();
        r
    }

    /// Disconnects a peer.
    pub fn kick(&mut self, peer: PeerId, reason: &str) {
        self.core.kick(peer, reason);
        self.dispatch();
    }

    /// Sends authentication data ([`ServerCore::send_auth`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::send_auth`].
    pub fn send_auth(&mut self, peer: PeerId, data: &[u8]) -> Result<(), ServerError> {
        let r = self.core.send_auth(peer, data);
        self.dispatch();
        r
    }

    /// Completes authentication on the server's side ([`ServerCore::complete_auth`]).
    ///
    /// # Errors
    ///
    /// As [`ServerCore::complete_auth`].
    pub fn complete_auth(&mut self, peer: PeerId) -> Result<(), ServerError> {
        let r = self.core.complete_auth(peer);
        self.dispatch();
        r
    }
}
