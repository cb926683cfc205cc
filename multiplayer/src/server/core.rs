//! [`ServerCore`]: the server's state machine, without I/O. Transports feed it what happens to
//! peers and the packets they send; it answers with [`Action`]s.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use gdvariant::Error;

use super::schema::{relative, ServerSchema};
use super::types::{
    Action, ClientNodes, Event, Flavor, Outgoing, PeerId, ServerError, To, TransferMode, SERVER_ID,
};
use crate::{godot3, Arg, RemoteCallBuilder, Target};

/// What an [`Authenticator`] answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthStep {
    /// Nothing yet: wait for the peer's next message.
    Wait,
    /// Send this to the peer (`send_auth`), then wait. Not empty: the empty message is the one
    /// that completes (as the engine's `send_auth`, [`ServerCore::send_auth`] refuses it); empty
    /// data kicks the peer, its [`Event::AuthFailed`] saying so.
    Send(Vec<u8>),
    /// Send this to the peer, then complete (`complete_auth`); not empty, as for
    /// [`Send`](Self::Send).
    SendAndComplete(Vec<u8>),
    /// The peer is authenticated on the server's side (`complete_auth`): it joins once it
    /// completes on its side too.
    Complete,
    /// Drop the peer, for this reason.
    Reject(String),
}

/// The game's authentication, the server's side of `SceneMultiplayer.auth_callback`: the peer and
/// the server exchange `[7][0][payload]` messages until each sends an empty `[7][0]`. Until both
/// did, nothing else from the peer reaches the application (Godot 4 only).
pub trait Authenticator: Send {
    /// A peer connected (`peer_authenticating`): what to send it first.
    fn start(&mut self, peer: PeerId) -> AuthStep {
        let _ = peer;
        AuthStep::Wait
    }

    /// The peer sent authentication data.
    fn data(&mut self, peer: PeerId, data: &[u8]) -> AuthStep;
}

impl<F: FnMut(PeerId, &[u8]) -> AuthStep + Send> Authenticator for F {
    fn data(&mut self, peer: PeerId, data: &[u8]) -> AuthStep {
        self(peer, data)
    }
}

/// The server's settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The clients' engine generation ([`Flavor::Godot4`] by default). One server serves one
    /// generation: for both, run two servers on different ports.
    pub flavor: Flavor,
    /// `server_relay`: tell peers of each other and forward their packets to each other (on by
    /// default, as in the engine).
    pub relay: bool,
    /// How long a peer may take to authenticate (`auth_timeout`, 3 s by default).
    pub auth_timeout: Duration,
    /// The most packets a peer may send in one second before it is kicked at once (a flood;
    /// 20 000 by default).
    pub max_packets_per_second: u32,
    /// The most malformed or refused packets a peer may send (each an [`Event::Rejected`]);
    /// the next one kicks it. 16 by default.
    pub max_strikes: u32,
    /// The most node paths a peer may cache with the server (`SIMPLIFY_PATH`); one more kicks
    /// it. 1024 by default.
    pub max_cached_paths: usize,
    /// The most bytes that may wait to be sent to one peer ([`Server`](super::Server): not yet
    /// written to its socket, or, over ENet, not yet acknowledged); a peer that would pass it
    /// does not read what it is sent, and is dropped. 16 MiB by default; it must hold the
    /// largest packet sent.
    pub max_send_queue: usize,
    /// The most nodes and synchronizers that one client may have spawned at once on its
    /// spawners ([`ServerSchema::client_spawner`]); a `SPAWN` past it is refused. 4096 by
    /// default (the engine has no limit).
    pub max_client_nodes: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            flavor: Flavor::Godot4,
            relay: true,
            auth_timeout: Duration::from_secs(3),
            max_packets_per_second: 20_000,
            max_strikes: 16,
            max_cached_paths: 1024,
            max_send_queue: 16 << 20,
            max_client_nodes: 4096,
        }
    }
}

#[derive(Debug)]
pub(crate) enum State {
    Pending {
        local: bool,
        remote: bool,
        since: Instant,
    },
    Joined,
}

#[derive(Debug)]
pub(crate) struct Peer {
    pub(crate) state: State,
    /// The peer's cache ids → paths (relative to the root).
    pub(crate) paths: HashMap<u32, Arc<str>>,
    /// Our cache ids offered to the peer (`SIMPLIFY_PATH` sent) …
    pub(crate) offered: HashSet<u32>,
    /// … and confirmed by it.
    pub(crate) confirmed: HashSet<u32>,
    window: Instant,
    packets: u32,
    pub(crate) strikes: u32,
    /// The nodes it spawned on its spawners.
    pub(crate) spawned: ClientNodes,
}

/// The server's state machine, without I/O: peers joining, authenticating and leaving, the node
/// path cache both ways, RPCs resolved to node path and method name, relaying between clients,
/// and the packets the application sends. Deterministic, and what the fuzz target drives.
///
/// Feed it [`peer_connected`](Self::peer_connected), [`receive`](Self::receive),
/// [`peer_disconnected`](Self::peer_disconnected) and [`tick`](Self::tick); take its
/// [`Action`]s with [`take_actions`](Self::take_actions) after each.
///
/// ```
/// use gdvariant_multiplayer::server::{Action, Event, RpcSpec, ServerConfig, ServerCore, ServerSchema, TransferMode, To};
/// use gdvariant_multiplayer::{simplify_path, RemoteCallBuilder, Target};
/// use gdvariant::Variant;
/// use std::time::Instant;
///
/// let schema = ServerSchema::new().node("Main", [RpcSpec::any_peer("echo"), RpcSpec::authority("echoed")]);
/// let checksum = *schema.find("Main").unwrap().checksum();
/// let mut core = ServerCore::new(schema, ServerConfig::default());
/// let now = Instant::now();
/// core.peer_connected(42, now)?;
/// assert_eq!(core.take_actions(), [Action::Event(Event::PeerJoined(42))]);
///
/// // The client caches /root/Main as its id 1, then calls echo("hi").
/// core.receive(42, 0, TransferMode::Reliable, 1, &simplify_path(&checksum, 1, "Main")?, now);
/// let Action::Send(confirm) = &core.take_actions()[0] else { panic!() };
/// assert_eq!(&confirm.bytes[..], [2, 1, 1, 0, 0, 0]); // CONFIRM_PATH, checksum ok, id 1
/// let call = RemoteCallBuilder::new(Target::Id(1), 0).arg(&Variant::from("hi"))?.finish()?;
/// core.receive(42, 0, TransferMode::Reliable, 1, &call, now);
/// let Action::Event(Event::Rpc(rpc)) = core.take_actions().remove(0) else { panic!() };
/// assert_eq!((rpc.path(), rpc.method()), ("Main", "echo"));
///
/// // Answer: echoed(v) to the caller, the argument's bytes forwarded as they came.
/// let v = rpc.args().next().unwrap()?;
/// core.rpc(To::Peer(42), "Main", "echoed", &[v])?;
/// assert_eq!(core.take_actions().len(), 2); // SIMPLIFY_PATH, then the call with the path inline
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ServerCore {
    pub(crate) cfg: ServerConfig,
    pub(crate) schema: ServerSchema,
    pub(crate) auth: Option<Box<dyn Authenticator>>,
    pub(crate) peers: BTreeMap<PeerId, Peer>,
    /// Our cache ids: path → id (from 1).
    pub(crate) path_ids: HashMap<Arc<str>, u32>,
    pub(crate) id_paths: Vec<Arc<str>>,
    pub(crate) actions: VecDeque<Action>,
    /// Spawned nodes by net id.
    pub(crate) nodes: HashMap<u32, super::types::Node>,
    /// The server's synchronizers outside spawned nodes, by path.
    pub(crate) statics: HashMap<Arc<str>, super::types::StaticSync>,
    pub(crate) net_ids: u32,
    pub(crate) sync_time: u16,
}

impl core::fmt::Debug for ServerCore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ServerCore")
            .field("cfg", &self.cfg)
            .field("peers", &self.peers.len())
            .field("auth", &self.auth.is_some())
            .finish()
    }
}

impl ServerCore {
    /// A server serving `schema`, with no authentication.
    pub fn new(schema: ServerSchema, cfg: ServerConfig) -> ServerCore {
        ServerCore {
            cfg,
            schema,
            auth: None,
            peers: BTreeMap::new(),
            path_ids: HashMap::new(),
            id_paths: Vec::new(),
            actions: VecDeque::new(),
            nodes: HashMap::new(),
            statics: HashMap::new(),
            net_ids: 0,
            sync_time: 0,
        }
    }

    /// Requires authentication (Godot 4): peers join once `auth` and they both completed.
    #[must_use]
    pub fn with_auth(mut self, auth: impl Authenticator + 'static) -> ServerCore {
        self.auth = Some(Box::new(auth));
        self
    }

    /// The settings.
    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    /// The schema.
    pub fn schema(&self) -> &ServerSchema {
        &self.schema
    }

    /// Turns relaying (and telling peers of each other) on or off, as `server_relay`.
    pub fn set_relay(&mut self, on: bool) {
        self.cfg.relay = on;
    }

    /// The peers that joined (authenticated), in id order.
    pub fn peers(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.peers
            .iter()
            .filter(|(_, p)| matches!(p.state, State::Joined))
            .map(|(&id, _)| id)
    }

    /// Whether `peer` joined.
    pub fn has_peer(&self, peer: PeerId) -> bool {
        self.peers
            .get(&peer)
            .is_some_and(|p| matches!(p.state, State::Joined))
    }

    /// Whether any transport peer has this id (joined or authenticating).
    pub fn is_taken(&self, peer: PeerId) -> bool {
        peer < 2 || self.peers.contains_key(&peer)
    }

    /// Takes the actions produced so far, oldest first.
    pub fn take_actions(&mut self) -> Vec<Action> {
        self.actions.drain(..).collect()
    }

    /// The next action, oldest first.
    pub fn next_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    pub(crate) fn event(&mut self, e: Event) {
        self.actions.push_back(Action::Event(e));
    }

    pub(crate) fn send(&mut self, to: PeerId, channel: u8, mode: TransferMode, bytes: Arc<[u8]>) {
        self.actions.push_back(Action::Send(Outgoing {
            to,
            source: SERVER_ID,
            target: to,
            channel,
            mode,
            bytes,
        }));
    }

    /// A transport peer connected with this id. Godot 4 with an [`Authenticator`]: the peer
    /// authenticates first; otherwise it joins at once. An id below 2 or already taken is refused
    /// (the transport must drop the connection, as the engine does).
    ///
    /// # Errors
    ///
    /// [`ServerError::BadPeerId`] when `peer` is below 2 or a transport peer (joined or
    /// authenticating) has it; nothing changes. An [`Authenticator`] whose first step fails
    /// (empty data to send) has the peer kicked (its [`Event::AuthFailed`] says why), and this
    /// is `Ok`.
    pub fn peer_connected(&mut self, peer: PeerId, now: Instant) -> Result<(), ServerError> {
        if self.is_taken(peer) {
            return Err(ServerError::BadPeerId(peer));
        }
        let auth = self.cfg.flavor == Flavor::Godot4 && self.auth.is_some();
        self.peers.insert(
            peer,
            Peer {
                state: State::Pending {
                    local: false,
                    remote: false,
                    since: now,
                },
                paths: HashMap::new(),
                offered: HashSet::new(),
                confirmed: HashSet::new(),
                window: now,
                packets: 0,
                strikes: 0,
                spawned: ClientNodes::default(),
            },
        );
        if auth {
            let step = match self.auth.as_mut() {
                Some(a) => a.start(peer),
                None => AuthStep::Wait,
            };
            self.auth_step(peer, step);
        } else {
            self.admit(peer);
        }
        Ok(())
    }

    /// A transport peer disconnected (or was dropped): the others are told.
    pub fn peer_disconnected(&mut self, peer: PeerId) {
        self.forget_peer(peer, "disconnected while authenticating");
    }

    /// Forgets a peer that left; `pending` is the reason its [`Event::AuthFailed`] gives if it
    /// had not joined.
    fn forget_peer(&mut self, peer: PeerId, pending: &str) {
        let Some(p) = self.peers.remove(&peer) else {
            return;
        };
        self.forget_visibility(peer);
        self.forget_path_visibility(peer);
        match p.state {
            State::Pending { .. } => self.event(Event::AuthFailed {
                peer,
                reason: pending.to_string(),
            }),
            State::Joined => {
                if self.cfg.relay {
                    let others: Vec<PeerId> = self.peers().collect();
                    match self.cfg.flavor {
                        Flavor::Godot4 => {
                            let del: Arc<[u8]> = crate::del_peer(peer).into();
                            for o in others {
                                self.send(o, 0, TransferMode::Reliable, del.clone());
                            }
                        }
                        Flavor::Godot3 => {
                            for o in others {
                                self.actions.push_back(Action::Notify {
                                    to: o,
                                    peer,
                                    joined: false,
                                });
                            }
                        }
                    }
                }
                // The engine frees the nodes the peer spawned.
                for (net_id, node) in p.spawned.nodes {
                    self.event(Event::Despawn {
                        from: peer,
                        spawner: node.spawner,
                        net_id,
                        name: node.name,
                        peer_left: true,
                    });
                }
                self.event(Event::PeerLeft(peer));
            }
        }
    }

    /// Drops a peer: the transport disconnects it, the others are told it left (a peer still
    /// authenticating: [`Event::AuthFailed`], its reason `kicked: ` and `reason`).
    pub fn kick(&mut self, peer: PeerId, reason: &str) {
        if !self.peers.contains_key(&peer) {
            return;
        }
        self.actions.push_back(Action::Kick {
            peer,
            reason: reason.to_string(),
        });
        self.forget_peer(peer, &alloc::format!("kicked: {reason}"));
    }

    /// Sends authentication data to a peer that is authenticating (`send_auth`).
    ///
    /// # Errors
    ///
    /// [`ServerError::NotAuthenticating`] when no transport peer has this id or it joined
    /// already; [`ServerError::AuthCompleted`] when the server ([`complete_auth`](Self::complete_auth))
    /// or the peer has marked the authentication completed, as the engine refuses it;
    /// [`ServerError::Encode`] when `data` is empty (the empty message is the one that
    /// completes). Nothing sent for any of these.
    pub fn send_auth(&mut self, peer: PeerId, data: &[u8]) -> Result<(), ServerError> {
        match self.peers.get(&peer).map(|p| &p.state) {
            Some(State::Pending { local, remote, .. }) if *local || *remote => {
                return Err(ServerError::AuthCompleted(peer));
            }
            Some(State::Pending { .. }) => {}
            _ => return Err(ServerError::NotAuthenticating(peer)),
        }
        let bytes = crate::auth(data)?;
        self.send(peer, 0, TransferMode::Reliable, bytes.into());
        Ok(())
    }

    /// Completes authentication on the server's side (`complete_auth`).
    ///
    /// # Errors
    ///
    /// [`ServerError::NotAuthenticating`] when no transport peer has this id or it joined
    /// already; nothing sent. Completing twice is `Ok`, the second time a no-op.
    pub fn complete_auth(&mut self, peer: PeerId) -> Result<(), ServerError> {
        let Some(Peer {
            state: State::Pending { local, remote, .. },
            ..
        }) = self.peers.get_mut(&peer)
        else {
            return Err(ServerError::NotAuthenticating(peer));
        };
        if *local {
            return Ok(());
        }
        *local = true;
        let remote = *remote;
        self.send(
            peer,
            0,
            TransferMode::Reliable,
            crate::auth_complete().into(),
        );
        if remote {
            self.admit(peer);
        }
        Ok(())
    }

    pub(crate) fn auth_step(&mut self, peer: PeerId, step: AuthStep) {
        let r = match step {
            AuthStep::Wait => Ok(()),
            AuthStep::Send(d) => self.send_auth(peer, &d),
            AuthStep::SendAndComplete(d) => self
                .send_auth(peer, &d)
                .and_then(|()| self.complete_auth(peer)),
            AuthStep::Complete => self.complete_auth(peer),
            AuthStep::Reject(why) => {
                self.kick(peer, &why);
                self.event(Event::Rejected {
                    peer,
                    reason: alloc::format!("authentication refused: {why}"),
                    kicked: true,
                });
                Ok(())
            }
        };
        if let Err(e) = r {
            self.kick(
                peer,
                &alloc::format!("the authenticator's step failed: {e}"),
            );
        }
    }

    /// The peer joins: the others are told (relay on), the application too.
    pub(crate) fn admit(&mut self, peer: PeerId) {
        let others: Vec<PeerId> = self.peers().collect();
        if let Some(p) = self.peers.get_mut(&peer) {
            p.state = State::Joined;
        }
        if self.cfg.relay {
            // The same `ADD_PEER` for every other peer: one buffer, shared.
            let joined: Arc<[u8]> = crate::add_peer(peer).into();
            for o in others {
                match self.cfg.flavor {
                    Flavor::Godot4 => {
                        self.send(o, 0, TransferMode::Reliable, joined.clone());
                        self.send(peer, 0, TransferMode::Reliable, crate::add_peer(o).into());
                    }
                    Flavor::Godot3 => {
                        self.actions.push_back(Action::Notify {
                            to: o,
                            peer,
                            joined: true,
                        });
                        self.actions.push_back(Action::Notify {
                            to: peer,
                            peer: o,
                            joined: true,
                        });
                    }
                }
            }
        }
        if self.cfg.flavor == Flavor::Godot4 {
            self.spawn_for_new_peer(peer);
            self.offer_static_syncs(peer);
        }
        self.event(Event::PeerJoined(peer));
    }

    /// Drops the peers whose authentication took longer than the timeout. Call it now and then
    /// (the runtime does every 100 ms).
    pub fn tick(&mut self, now: Instant) {
        let timeout = self.cfg.auth_timeout;
        let late: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| {
                matches!(p.state, State::Pending { since, .. } if now.saturating_duration_since(since) >= timeout)
            })
            .map(|(&id, _)| id)
            .collect();
        for peer in late {
            self.actions.push_back(Action::Kick {
                peer,
                reason: "authentication timed out".to_string(),
            });
            self.peers.remove(&peer);
            self.event(Event::AuthFailed {
                peer,
                reason: "authentication timed out".to_string(),
            });
        }
    }

    /// Counts a packet against the peer's flood budget; false (and the peer kicked) when over.
    pub(crate) fn count_packet(&mut self, peer: PeerId, now: Instant) -> bool {
        let limit = self.cfg.max_packets_per_second;
        let Some(p) = self.peers.get_mut(&peer) else {
            return false;
        };
        if now.saturating_duration_since(p.window) >= Duration::from_secs(1) {
            p.window = now;
            p.packets = 0;
        }
        p.packets += 1;
        if p.packets > limit {
            self.reject(
                peer,
                alloc::format!("flood: over {limit} packets in a second"),
                true,
            );
            return false;
        }
        true
    }

    /// Logs a refused packet; after too many (or when `kick`), drops the peer.
    pub(crate) fn reject(&mut self, peer: PeerId, reason: String, kick: bool) {
        let max = self.cfg.max_strikes;
        let strikes = self.peers.get_mut(&peer).map(|p| {
            p.strikes += 1;
            p.strikes
        });
        let kicked = kick || strikes.is_some_and(|s| s > max);
        if kicked {
            self.kick(peer, &reason);
        }
        self.event(Event::Rejected {
            peer,
            reason,
            kicked,
        });
    }

    /// [`ServerError::Unsupported`] on a Godot 3 server: `what` is Godot 4's.
    pub(crate) fn godot4(&self, what: &'static str) -> Result<(), ServerError> {
        match self.cfg.flavor {
            Flavor::Godot4 => Ok(()),
            Flavor::Godot3 => Err(ServerError::Unsupported(what)),
        }
    }

    /// The peers `to` names, joined ones only.
    pub(crate) fn targets(&self, to: To) -> Result<Vec<PeerId>, ServerError> {
        match to {
            To::Peer(p) if self.has_peer(p) => Ok(alloc::vec![p]),
            To::Peer(p) => Err(ServerError::UnknownPeer(p)),
            To::All => Ok(self.peers().collect()),
            To::AllBut(x) => Ok(self.peers().filter(|&p| p != x).collect()),
        }
    }

    /// Our cache id for a path, made on first use.
    pub(crate) fn path_id(&mut self, path: &str) -> (u32, Arc<str>) {
        if let Some((k, &id)) = self.path_ids.get_key_value(path) {
            return (id, k.clone());
        }
        let p: Arc<str> = path.into();
        self.id_paths.push(p.clone());
        let id = self.id_paths.len() as u32;
        self.path_ids.insert(p.clone(), id);
        (id, p)
    }

    /// Calls `method` on the clients' node at `path` (`rpc_id`), with the method's transfer mode
    /// and channel from the schema. The path is cached with each peer as the engine does:
    /// `SIMPLIFY_PATH` first, the path inline until the peer confirms it, then the cache id.
    ///
    /// As the engine's `is_rpc_visible`: a node that is the root (the parent, the default
    /// `root_path`) of synchronizers the server drives ([`sync_path`](Self::sync_path),
    /// [`set_path_public`](Self::set_path_public)) is called only on the peers that see one of
    /// them; [`To::Peer`] a peer that sees none is [`ServerError::NotVisible`], nothing sent.
    ///
    /// `path` is relative to `/root` (`"Main"`, or `"/root/Main"`); `args` are [`Variant`]s,
    /// [`VariantRef`]s or received [`ValueRef`](crate::ValueRef)s (forwarded as their bytes),
    /// all of one type: no argument is `&[] as &[Variant]`. [`To::All`] and [`To::AllBut`] are
    /// the peers that joined (none: nothing sent, `Ok`).
    ///
    /// # Errors
    ///
    /// [`ServerError::UnknownNode`] when no node of the schema matches `path`,
    /// [`ServerError::UnknownMethod`] when it has no such method, [`ServerError::UnknownPeer`]
    /// for a [`To::Peer`] that has not joined (nothing sent for these), [`ServerError::Encode`]
    /// for an argument that cannot be encoded (the call is not sent; the path's
    /// `SIMPLIFY_PATH` may have been).
    ///
    /// [`Variant`]: gdvariant::Variant
    /// [`VariantRef`]: gdvariant::VariantRef
    pub fn rpc<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        method: &str,
        args: &[A],
    ) -> Result<(), ServerError> {
        let path = relative(path);
        let node = self
            .schema
            .find(path)
            .ok_or_else(|| ServerError::UnknownNode(path.to_string()))?;
        let Some((method_id, spec)) = node.by_name(method) else {
            return Err(ServerError::UnknownMethod {
                path: path.to_string(),
                method: method.to_string(),
            });
        };
        let (channel, mode, checksum) = (
            spec.transfer_channel(),
            spec.transfer_mode(),
            *node.checksum(),
        );
        let flavor = self.cfg.flavor;
        self.remote(to, path, &checksum, channel, mode, |target| {
            Ok(match flavor {
                Flavor::Godot4 => RemoteCallBuilder::new(target, method_id)
                    .args(args)?
                    .finish()?,
                Flavor::Godot3 => godot3::remote_call(target, method, args)?,
            })
        })
    }

    /// Sets `property` of the clients' node at `path` (Godot 3 `rset_id`; a property of the
    /// schema, [`RpcSpec::property`](super::RpcSpec::property)), with its transfer mode; the
    /// path cached as for [`rpc`](Self::rpc).
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 4 server; [`ServerError::UnknownNode`],
    /// [`ServerError::UnknownProperty`] when the node has no such property of the schema,
    /// [`ServerError::UnknownPeer`] and
    /// [`ServerError::NotVisible`] as for [`rpc`](Self::rpc) (nothing sent for these);
    /// [`ServerError::Encode`] for a `value` that cannot be encoded or a `path` with a NUL byte
    /// (the call is not sent; the path's `SIMPLIFY_PATH` may have been).
    pub fn rset<A: Arg + ?Sized>(
        &mut self,
        to: To,
        path: &str,
        property: &str,
        value: &A,
    ) -> Result<(), ServerError> {
        if self.cfg.flavor != Flavor::Godot3 {
            return Err(ServerError::Unsupported("rset (Godot 3)"));
        }
        let path = relative(path);
        let node = self
            .schema
            .find(path)
            .ok_or_else(|| ServerError::UnknownNode(path.to_string()))?;
        let Some(spec) = node.by_property(property) else {
            return Err(ServerError::UnknownProperty {
                path: path.to_string(),
                property: property.to_string(),
            });
        };
        let (channel, mode, checksum) = (
            spec.transfer_channel(),
            spec.transfer_mode(),
            *node.checksum(),
        );
        self.remote(to, path, &checksum, channel, mode, |target| {
            godot3::remote_set(target, property, value)
        })
    }

    /// Sends what `build` makes for the node at `path` to `to`: the path offered to the peers
    /// that do not have it (`SIMPLIFY_PATH`), named inline until they confirm it, then by id.
    fn remote(
        &mut self,
        to: To,
        path: &str,
        checksum: &[u8; 32],
        channel: u8,
        mode: TransferMode,
        build: impl Fn(Target<'_>) -> Result<Vec<u8>, Error>,
    ) -> Result<(), ServerError> {
        let targets = self.rpc_targets(to, path)?;
        if targets.is_empty() {
            return Ok(());
        }
        let (id, path) = self.path_id(path);
        let flavor = self.cfg.flavor;
        let mut all_confirmed = true;
        for &t in &targets {
            let Some(p) = self.peers.get_mut(&t) else {
                continue;
            };
            all_confirmed &= p.confirmed.contains(&id);
            // Offered once its SIMPLIFY_PATH is built (see `offer_plain`).
            if !p.offered.contains(&id) {
                let simplify = match flavor {
                    Flavor::Godot4 => crate::simplify_path(checksum, id, &path)?,
                    Flavor::Godot3 => godot3::simplify_path(id, &path)?,
                };
                p.offered.insert(id);
                self.send(t, 0, TransferMode::Reliable, simplify.into());
            }
        }
        let build = |target: Target<'_>| -> Result<Arc<[u8]>, Error> { Ok(build(target)?.into()) };
        if all_confirmed {
            let bytes = build(Target::Id(id))?;
            for t in targets {
                self.send(t, channel, mode, bytes.clone());
            }
        } else {
            let (mut by_id, mut by_path) = (None, None);
            for t in targets {
                let confirmed = self
                    .peers
                    .get(&t)
                    .is_some_and(|p| p.confirmed.contains(&id));
                let bytes = if confirmed {
                    by_id
                        .get_or_insert_with(|| build(Target::Id32(id)))
                        .clone()?
                } else {
                    by_path
                        .get_or_insert_with(|| build(Target::Path(&path)))
                        .clone()?
                };
                self.send(t, channel, mode, bytes);
            }
        }
        Ok(())
    }

    /// Sends raw bytes (`send_bytes`) to `to`.
    ///
    /// # Errors
    ///
    /// [`ServerError::UnknownPeer`] for a [`To::Peer`] that has not joined;
    /// [`ServerError::Encode`] when `data` is empty. Nothing sent for either.
    pub fn send_bytes(
        &mut self,
        to: To,
        data: &[u8],
        channel: u8,
        mode: TransferMode,
    ) -> Result<(), ServerError> {
        let targets = self.targets(to)?;
        let bytes: Arc<[u8]> = match self.cfg.flavor {
            Flavor::Godot4 => crate::raw(data)?,
            Flavor::Godot3 => godot3::raw(data)?,
        }
        .into();
        for t in targets {
            self.send(t, channel, mode, bytes.clone());
        }
        Ok(())
    }

    /// Sends a packet built elsewhere (a spawn, a synchronizer's state …) as it is.
    ///
    /// # Errors
    ///
    /// [`ServerError::UnknownPeer`] for a [`To::Peer`] that has not joined; nothing sent.
    pub fn send_packet(
        &mut self,
        to: To,
        packet: &[u8],
        channel: u8,
        mode: TransferMode,
    ) -> Result<(), ServerError> {
        let targets = self.targets(to)?;
        let bytes: Arc<[u8]> = packet.into();
        for t in targets {
            self.send(t, channel, mode, bytes.clone());
        }
        Ok(())
    }
}
