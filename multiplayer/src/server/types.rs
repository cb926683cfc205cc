//! The values the server core takes and gives: peer ids, transfer modes, actions for the
//! transports, events for the application, errors.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use crate::{godot3, Packet, Values};

/// A Godot peer id: 1 is the server, clients are 2..=2³¹−1.
pub type PeerId = i32;

/// The server's own peer id.
pub const SERVER_ID: PeerId = 1;

/// Which engine generation the clients are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// Godot 4 `SceneMultiplayer` (4.3 and later).
    #[default]
    Godot4,
    /// Godot 3 `MultiplayerAPI` (3.2 and later; checked live with 3.2.3 and 3.6.2): no
    /// authentication, relay by the transport's header.
    Godot3,
}

/// `MultiplayerPeer.TransferMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TransferMode {
    /// `TRANSFER_MODE_UNRELIABLE`.
    Unreliable,
    /// `TRANSFER_MODE_UNRELIABLE_ORDERED`.
    UnreliableOrdered,
    /// `TRANSFER_MODE_RELIABLE`, the default.
    #[default]
    Reliable,
}

/// Whom a packet goes to, as `rpc_id`'s peer argument: one peer, everyone, or everyone but one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum To {
    /// One connected peer.
    Peer(PeerId),
    /// Every connected peer (`rpc_id(0, …)`).
    All,
    /// Every connected peer but this one (`rpc_id(-id, …)`).
    AllBut(PeerId),
}

/// One packet for a transport to deliver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The peer it goes to.
    pub to: PeerId,
    /// Who sent it: the server (1), or a client whose packet is relayed (Godot 3 headers).
    pub source: PeerId,
    /// The target its sender named (Godot 3 headers: the receiving peer, 0 or −id).
    pub target: i32,
    /// The transfer channel.
    pub channel: u8,
    /// The transfer mode.
    pub mode: TransferMode,
    /// The packet (shared between the peers of a broadcast).
    pub bytes: Arc<[u8]>,
}

/// What the core asks the transports and the application to do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Deliver a packet.
    Send(Outgoing),
    /// Godot 3 only: tell peer `to` that `peer` joined (`true`) or left: a transport-level message
    /// (ENet's config channel, WebSocket's system message).
    Notify {
        /// The peer told.
        to: PeerId,
        /// The peer that joined or left.
        peer: PeerId,
        /// Joined or left.
        joined: bool,
    },
    /// Disconnect a peer (the core has already forgotten it).
    Kick {
        /// The peer.
        peer: PeerId,
        /// Why, for the logs.
        reason: String,
    },
    /// Something for the application.
    Event(Event),
}

/// What happened, for the application.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A peer finished authenticating (or connected, without authentication): it may now call
    /// RPCs, and the other peers were told of it.
    PeerJoined(PeerId),
    /// A joined peer left or was kicked.
    PeerLeft(PeerId),
    /// A peer left or was dropped before it finished authenticating.
    AuthFailed {
        /// The peer.
        peer: PeerId,
        /// Why.
        reason: String,
    },
    /// An RPC for one of the served nodes.
    Rpc(RpcCall),
    /// Godot 3: a peer set a property of one of the served nodes (`rset`): the call's
    /// [`method`](RpcCall::method) is the property's name, its one argument the value.
    Rset(RpcCall),
    /// A client's `MultiplayerSynchronizer` sent its state (one `SYNC` or `DELTA` entry): a
    /// synchronizer of the schema ([`ServerSchema::synchronizer`](super::ServerSchema::synchronizer))
    /// whose multiplayer authority is that client.
    Sync(SyncUpdate),
    /// A client spawned a node on a spawner whose authority it is
    /// ([`ServerSchema::client_spawner`](super::ServerSchema::client_spawner)); its
    /// synchronizers' `SYNC` and `DELTA` entries follow as [`Event::Sync`].
    Spawn(ClientSpawn),
    /// A node a client spawned is gone: the client despawned it, or left (the engine frees the
    /// nodes a peer spawned when it leaves; this comes before its [`Event::PeerLeft`]).
    Despawn {
        /// The client that spawned it.
        from: PeerId,
        /// The spawner's path, relative to the multiplayer root.
        spawner: Arc<str>,
        /// The node's net id, as its [`Event::Spawn`] gave it.
        net_id: u32,
        /// The node's name.
        name: Arc<str>,
        /// Whether it is gone because the client left (no `DESPAWN` came).
        peer_left: bool,
    },
    /// `send_bytes` from a peer.
    Bytes {
        /// The sender.
        from: PeerId,
        /// The payload.
        data: Vec<u8>,
        /// The transfer channel it came on.
        channel: u8,
        /// Its transfer mode.
        mode: TransferMode,
    },
    /// A peer that joined was not sent something the server keeps for every peer that joins: a
    /// node spawned for it ([`ServerCore::spawn`](super::ServerCore::spawn)) or the path of one
    /// of the server's synchronizers ([`ServerCore::sync_path`](super::ServerCore::sync_path));
    /// the peer lacks that one, and was sent the others. Only a path that cannot be encoded (a
    /// NUL byte) does this. It comes before the peer's [`Event::PeerJoined`].
    NotSent {
        /// The peer that joined.
        peer: PeerId,
        /// What it was not sent: `node <net id> on spawner "<path>"`, or
        /// `synchronizer "<path>"`.
        what: String,
        /// Why (the [`ServerError`]'s text).
        reason: String,
    },
    /// A packet was ignored, or its peer dropped: why, for the logs.
    Rejected {
        /// The peer that sent it.
        peer: PeerId,
        /// What was wrong, and where.
        reason: String,
        /// Whether the peer was kicked for it.
        kicked: bool,
    },
}

/// An RPC a peer called on one of the served nodes, its node path and method name resolved; the
/// arguments are read lazily from the packet.
#[derive(Clone, PartialEq)]
pub struct RpcCall {
    pub(crate) from: PeerId,
    pub(crate) path: Arc<str>,
    pub(crate) method: Arc<str>,
    pub(crate) method_id: u16,
    pub(crate) flavor: Flavor,
    pub(crate) channel: u8,
    pub(crate) mode: TransferMode,
    pub(crate) packet: Vec<u8>,
}

impl RpcCall {
    /// The caller.
    pub fn from(&self) -> PeerId {
        self.from
    }

    /// The node's path relative to the multiplayer root (`"Main"` for `/root/Main`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The method's name (for an [`Event::Rset`], the property's).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The method's id (Godot 4; 0 for Godot 3, which sends names).
    pub fn method_id(&self) -> u16 {
        self.method_id
    }

    /// The transfer channel it came on.
    pub fn channel(&self) -> u8 {
        self.channel
    }

    /// Its transfer mode.
    pub fn mode(&self) -> TransferMode {
        self.mode
    }

    /// The whole packet (a Godot 4 `REMOTE_CALL`, or Godot 3's).
    pub fn packet(&self) -> &[u8] {
        &self.packet
    }

    /// The arguments, as lazy views: [`ValueRef::as_variant`](crate::ValueRef::as_variant) gives
    /// a [`VariantRef`](gdvariant::VariantRef), [`ValueRef::to_owned`](crate::ValueRef::to_owned)
    /// a [`Variant`](gdvariant::Variant); a view is forwarded as its bytes when given back to
    /// [`ServerCore::rpc`](super::ServerCore::rpc). The core checked every value on arrival.
    pub fn args(&self) -> Values<'_> {
        // The packet was parsed and validated on arrival: this parse cannot fail.
        let values = match self.flavor {
            Flavor::Godot4 => match crate::parse(&self.packet) {
                Ok(Packet::RemoteCall(c)) => Some(c.args()),
                _ => None,
            },
            Flavor::Godot3 => match godot3::parse(&self.packet) {
                Ok(godot3::Packet::RemoteCall(c)) => Some(c.args()),
                Ok(godot3::Packet::RemoteSet(s)) => Some(s.values()),
                _ => None,
            },
        };
        values.unwrap_or_else(no_values)
    }
}

#[cfg(feature = "server-serde")]
impl RpcCall {
    /// Argument `index` deserialized with serde (feature `server-serde`), as gdvariant's
    /// `from_slice` reads a value: a view's bytes directly, a compressed bool or int through its
    /// owned value.
    ///
    /// ```
    /// # use gdvariant_multiplayer::server::{Action, Event, RpcSpec, ServerConfig, ServerCore, ServerSchema, TransferMode};
    /// # use gdvariant_multiplayer::{RemoteCallBuilder, Target};
    /// # use gdvariant::Variant;
    /// # let mut core = ServerCore::new(ServerSchema::new().node("Main", [RpcSpec::any_peer("echo")]), ServerConfig::default());
    /// # let now = std::time::Instant::now();
    /// # core.peer_connected(2, now)?;
    /// # let call = RemoteCallBuilder::new(Target::Path("Main"), 0).arg(&Variant::from("hi"))?.arg(&Variant::Int(7))?.finish()?;
    /// # core.receive(2, 0, TransferMode::Reliable, 1, &call, now);
    /// # let rpc = core.take_actions().into_iter().find_map(|a| match a { Action::Event(Event::Rpc(r)) => Some(r), _ => None }).unwrap();
    /// let (text, n): (String, i64) = (rpc.arg(0)?, rpc.arg(1)?);
    /// assert_eq!((text.as_str(), n), ("hi", 7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn arg<T: serde::de::DeserializeOwned>(
        &self,
        index: usize,
    ) -> Result<T, gdvariant::de::Error> {
        use serde::de::Error as _;
        let Some(v) = self.args().nth(index) else {
            return Err(gdvariant::de::Error::custom(alloc::format!(
                "{}.{} has no argument {index}",
                self.path,
                self.method
            )));
        };
        let v = v?;
        match v.as_variant() {
            Some(r) => gdvariant::from_variant_ref(r),
            None => gdvariant::from_slice(&gdvariant::encode(&v.to_owned()?)?),
        }
    }
}

/// A node a client spawned on one of its spawners (`SPAWN`): the spawner, the node's net id and
/// name, the scene or custom argument, its synchronizers' net ids and their spawn state; the
/// values are read lazily from the packet (the core checked them on arrival).
#[derive(Clone, PartialEq)]
pub struct ClientSpawn {
    pub(crate) from: PeerId,
    pub(crate) spawner: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) packet: Vec<u8>,
}

impl ClientSpawn {
    fn view(&self) -> Option<crate::Spawn<'_>> {
        match crate::parse(&self.packet) {
            Ok(Packet::Spawn(s)) => Some(s),
            _ => None,
        }
    }

    /// The client that spawned it (the spawner's authority).
    pub fn from(&self) -> PeerId {
        self.from
    }

    /// The spawner's path, relative to the multiplayer root.
    pub fn spawner(&self) -> &str {
        &self.spawner
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's net id (the client's own numbering: each client's apart).
    pub fn net_id(&self) -> u32 {
        self.view().map_or(0, |s| s.net_id())
    }

    /// The index of the spawned scene in the spawner's list; `None` for a custom spawn.
    pub fn scene(&self) -> Option<u8> {
        self.view().and_then(|s| s.scene())
    }

    /// The net ids of the node's synchronizers whose authority the client is, which their
    /// `SYNC` and `DELTA` entries carry.
    pub fn sync_ids(&self) -> Vec<u32> {
        self.view()
            .map(|s| s.sync_ids().collect())
            .unwrap_or_default()
    }

    /// A custom spawn's argument (the `data` of `MultiplayerSpawner.spawn(data)`), as a
    /// sequence of one value; empty for a scene spawn.
    pub fn custom_arg(&self) -> Values<'_> {
        self.view()
            .map_or_else(no_values, |s| s.custom_arg_values())
    }

    /// The spawn state: the values of the spawn properties of the synchronizers, in the order
    /// of [`sync_ids`](Self::sync_ids) and of their replication configs.
    pub fn state(&self) -> Values<'_> {
        self.view().map_or_else(no_values, |s| s.state())
    }

    /// The whole `SPAWN` packet, as the client sent it.
    pub fn packet(&self) -> &[u8] {
        &self.packet
    }
}

impl fmt::Debug for ClientSpawn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SPAWN {} on {}", self.name, self.spawner)?;
        match self.scene() {
            Some(i) => write!(f, " scene {i}")?,
            None => {
                f.write_str(" custom(")?;
                for a in self.custom_arg() {
                    match a {
                        Ok(a) => write!(f, "{a}")?,
                        Err(e) => write!(f, "<{e}>")?,
                    }
                }
                f.write_str(")")?;
            }
        }
        write!(
            f,
            " net id {} syncs {:?} state [",
            self.net_id(),
            self.sync_ids()
        )?;
        for (i, v) in self.state().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match v {
                Ok(v) => write!(f, "{v}")?,
                Err(e) => write!(f, "<{e}>")?,
            }
        }
        write!(f, "] from {}", self.from)
    }
}

/// One entry of a `SYNC` or `DELTA` packet a client sent for a synchronizer it is the authority
/// of: outside spawned nodes (named by its path), or of a node it spawned
/// ([`spawned`](Self::spawned)); its properties named from the schema; the values are read
/// lazily (the core checked them on arrival).
#[derive(Clone, PartialEq)]
pub struct SyncUpdate {
    pub(crate) from: PeerId,
    pub(crate) path: Arc<str>,
    pub(crate) spawned: Option<(u32, usize)>,
    pub(crate) net_id: u32,
    pub(crate) time: u16,
    pub(crate) mask: Option<u64>,
    pub(crate) properties: Vec<String>,
    pub(crate) values: Vec<u8>,
}

impl SyncUpdate {
    /// The sender (the synchronizer's authority, as far as the client says).
    pub fn from(&self) -> PeerId {
        self.from
    }

    /// The synchronizer's path relative to the multiplayer root; for a synchronizer of a node
    /// the client spawned, the spawner's path (the node is the one
    /// [`spawned`](Self::spawned) names).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// For a synchronizer of a node the client spawned: the node's net id (its
    /// [`Event::Spawn`]'s) and the synchronizer's index among the spawn's net ids.
    pub fn spawned(&self) -> Option<(u32, usize)> {
        self.spawned
    }

    /// The entry's net id: bit 31 and the sender's path cache id of the synchronizer, or a net
    /// id of the client's spawn.
    pub fn net_id(&self) -> u32 {
        self.net_id
    }

    /// `SYNC`: the packet's sync time (the engine drops states older than the last one it
    /// applied); 0 for a `DELTA`.
    pub fn time(&self) -> u16 {
        self.time
    }

    /// `DELTA`: which "on change" properties changed (bit i for the i-th); `None` for a `SYNC`
    /// (every "always" property).
    pub fn mask(&self) -> Option<u64> {
        self.mask
    }

    /// The names of the properties whose values [`values`](Self::values) gives, in order (from
    /// the schema's replication config: the "always" ones for a `SYNC`, the changed "on
    /// change" ones for a `DELTA`).
    pub fn properties(&self) -> impl ExactSizeIterator<Item = &str> {
        self.properties.iter().map(String::as_str)
    }

    /// The values, as lazy views, in the order of [`properties`](Self::properties).
    pub fn values(&self) -> Values<'_> {
        Values::compressed(
            &self.values,
            0,
            None,
            crate::PacketOptions::default().values_g4(),
        )
    }
}

impl fmt::Debug for SyncUpdate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.mask.is_some() { "DELTA" } else { "SYNC" };
        write!(f, "{kind} {}", self.path)?;
        if let Some((node, i)) = self.spawned {
            write!(f, " node {node} sync {i}")?;
        }
        f.write_str(" {")?;
        for (i, (p, v)) in self.properties().zip(self.values()).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match v {
                Ok(v) => write!(f, "{p}: {v}")?,
                Err(e) => write!(f, "{p}: <{e}>")?,
            }
        }
        write!(f, "}} from {}", self.from)
    }
}

/// An empty argument list: a byte-only call with no bytes.
fn no_values<'a>() -> Values<'a> {
    static EMPTY: [u8; 3] = [0x80, 0, 0];
    let empty: &'a [u8] = &EMPTY;
    match crate::parse(empty) {
        Ok(Packet::RemoteCall(c)) => c.args(),
        _ => unreachable!("a constant, valid packet"),
    }
}

impl fmt::Debug for RpcCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}(", self.path, self.method)?;
        for (i, a) in self.args().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match a {
                Ok(a) => write!(f, "{a}")?,
                Err(e) => write!(f, "<{e}>")?,
            }
        }
        write!(f, ") from {}", self.from)
    }
}

/// Why the server could not do what the application asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// No connected peer has this id.
    UnknownPeer(PeerId),
    /// The peer id is taken, or not a client's (below 2).
    BadPeerId(PeerId),
    /// No node of the schema matches the path.
    UnknownNode(String),
    /// The node has no such RPC method.
    UnknownMethod {
        /// The node's path.
        path: String,
        /// The method asked for.
        method: String,
    },
    /// The node has no such property (Godot 3 `rset`).
    UnknownProperty {
        /// The node's path.
        path: String,
        /// The property asked for.
        property: String,
    },
    /// A value could not be encoded.
    Encode(gdvariant::Error),
    /// The peer is not waiting for authentication.
    NotAuthenticating(PeerId),
    /// Authentication data for a peer whose authentication either side has marked completed:
    /// no more can be sent (as the engine's `send_auth` refuses it).
    AuthCompleted(PeerId),
    /// A transport's I/O failed.
    Io(std::io::Error),
    /// The clients' engine has no such thing (`rset` is Godot 3's; spawning, synchronizers and
    /// their visibility are Godot 4's).
    Unsupported(&'static str),
    /// An RPC to one peer on a node it cannot see: the root of the server's synchronizers, none
    /// of which it sees (the engine's `is_rpc_visible`); nothing was sent.
    NotVisible {
        /// The peer.
        peer: PeerId,
        /// The node's path.
        path: String,
    },
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::UnknownPeer(p) => write!(f, "no connected peer {p}"),
            ServerError::BadPeerId(p) => write!(f, "peer id {p} is taken or below 2"),
            ServerError::UnknownNode(p) => write!(f, "no served node matches path {p:?}"),
            ServerError::UnknownMethod { path, method } => {
                write!(f, "node {path:?} has no RPC method {method:?}")
            }
            ServerError::UnknownProperty { path, property } => {
                write!(f, "node {path:?} has no property {property:?}")
            }
            ServerError::Encode(e) => write!(f, "cannot encode the packet: {e}"),
            ServerError::NotAuthenticating(p) => write!(f, "peer {p} is not authenticating"),
            ServerError::AuthCompleted(p) => write!(
                f,
                "peer {p}'s authentication was marked completed: no more authentication data can be sent"
            ),
            ServerError::Io(e) => write!(f, "transport I/O: {e}"),
            ServerError::Unsupported(what) => write!(f, "not in the clients' engine: {what}"),
            ServerError::NotVisible { peer, path } => {
                write!(
                    f,
                    "peer {peer} cannot see node {path:?}: none of its synchronizers"
                )
            }
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Encode(e) => Some(e),
            ServerError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<gdvariant::Error> for ServerError {
    fn from(e: gdvariant::Error) -> Self {
        ServerError::Encode(e)
    }
}

impl From<std::io::Error> for ServerError {
    fn from(e: std::io::Error) -> Self {
        ServerError::Io(e)
    }
}

/// A node the server spawned, as the server keeps it: its spawner's path, the spawn packet
/// (sent again to peers that become able to see it, its state as last set), its synchronizers'
/// net ids and last state, who may see it, and the peers that see it.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) spawner: Arc<str>,
    pub(crate) packet: Vec<u8>,
    /// Where the spawn state starts in `packet`.
    pub(crate) state_at: usize,
    pub(crate) sync_ids: Vec<u32>,
    /// Public (a synchronizer's `public_visibility`): every peer sees it, joining ones too, but
    /// those in `hidden`.
    pub(crate) public: bool,
    pub(crate) hidden: std::collections::HashSet<PeerId>,
    pub(crate) visible: std::collections::HashSet<PeerId>,
    /// Per synchronizer (by position in `sync_ids`): the state last sent, for the peers that
    /// come to see the node later.
    pub(crate) state: Vec<SyncState>,
}

/// A synchronizer outside spawned nodes that the server drives, named by its path (its net id:
/// bit 31 and the server's cache id of the path): its last state, for the peers that confirm
/// its path or come to see it later, its place in the order they were first driven, and who
/// sees it, as the engine's `MultiplayerSynchronizer` has it: every peer while `public`
/// (`public_visibility`), and the peers in `shown` (`set_visibility_for`).
#[derive(Debug)]
pub(crate) struct StaticSync {
    pub(crate) order: usize,
    pub(crate) state: SyncState,
    pub(crate) public: bool,
    pub(crate) shown: std::collections::HashSet<PeerId>,
}

impl StaticSync {
    /// Whether `peer` sees it (`MultiplayerSynchronizer.is_visible_to`, without filters).
    pub(crate) fn visible_to(&self, peer: PeerId) -> bool {
        self.public || self.shown.contains(&peer)
    }
}

/// A node a client spawned, as the server keeps it (per peer, by net id).
#[derive(Debug)]
pub(crate) struct ClientNode {
    pub(crate) spawner: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) scene: Option<u8>,
    pub(crate) sync_ids: Vec<u32>,
}

/// The nodes a client spawned: by net id, its synchronizers' net ids (→ node, index), and the
/// names taken under each spawner.
#[derive(Debug, Default)]
pub(crate) struct ClientNodes {
    pub(crate) nodes: alloc::collections::BTreeMap<u32, ClientNode>,
    pub(crate) syncs: std::collections::HashMap<u32, (u32, usize)>,
    pub(crate) names: std::collections::HashSet<(Arc<str>, Arc<str>)>,
}

/// What a synchronizer last sent, each value encoded (compressed, as in the packets): its
/// "always" properties (`SYNC`), and the latest value of each "on change" property ever sent
/// (`DELTA`), by index.
#[derive(Debug, Default)]
pub(crate) struct SyncState {
    pub(crate) always: Option<Vec<u8>>,
    pub(crate) on_change: alloc::collections::BTreeMap<u32, Vec<u8>>,
}
