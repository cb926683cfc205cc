//! Following a conversation: the path cache and spawned synchronizers ([`Session`]), and what a
//! tool knows of the project ([`Schema`]).

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::cache::RpcMethods;
use super::rpc::{NodeTarget, RemoteCall};
use super::sys::SysKind;
use crate::packet::Packet;

/// How a synchronizer replicates a property (`SceneReplicationConfig.ReplicationMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReplicationMode {
    /// Not synchronized after the spawn.
    Never,
    /// In every SYNC packet ("always").
    Always,
    /// In a DELTA packet when it changed ("on change").
    OnChange,
}

/// One property of a synchronizer's replication config, in the config's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The property path, as the config lists it (`".:position"`, `"Sprite:modulate"`).
    pub name: String,
    /// How it is synchronized.
    pub mode: ReplicationMode,
    /// Whether it is part of the spawn state.
    pub spawn: bool,
}

impl Property {
    /// A property.
    pub fn new(name: impl Into<String>, mode: ReplicationMode, spawn: bool) -> Property {
        Property {
            name: name.into(),
            mode,
            spawn,
        }
    }
}

/// The properties of a config whose values a SYNC entry carries ("always"), in order.
pub fn sync_properties(props: &[Property]) -> impl Iterator<Item = &Property> {
    props.iter().filter(|p| p.mode == ReplicationMode::Always)
}

/// The properties of a config whose values a DELTA entry with `mask` carries ("on change" ones
/// whose bit is set), in order.
pub fn delta_properties(props: &[Property], mask: u64) -> impl Iterator<Item = &Property> {
    props
        .iter()
        .filter(|p| p.mode == ReplicationMode::OnChange)
        .enumerate()
        .filter(move |(i, _)| *i < 64 && mask & (1 << i) != 0)
        .map(|(_, p)| p)
}

/// The properties of a config whose values a SPAWN's state carries, in order.
pub fn spawn_properties(props: &[Property]) -> impl Iterator<Item = &Property> {
    props.iter().filter(|p| p.spawn)
}

/// Which synchronizer a SYNC or DELTA entry is for, as far as the conversation tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKey<'s> {
    /// A synchronizer named by its path cache id: its path, relative to the multiplayer root.
    Path(&'s str),
    /// A synchronizer of a spawned node: the `index`-th net id of its SPAWN.
    Spawned {
        /// The spawner's path, when its cache id was seen.
        spawner: Option<&'s str>,
        /// The spawned scene's index (`None` for a custom spawn).
        scene: Option<u8>,
        /// The spawned node's name.
        node: &'s str,
        /// The synchronizer's position in the SPAWN's sync id list.
        index: usize,
    },
}

/// What a tool knows of the project, to name RPC methods and synchronized properties.
///
/// Implement it over your project's data, or use [`StaticSchema`].
pub trait Schema {
    /// The RPC methods of the node at `path` (relative to the multiplayer root).
    fn rpc_methods(&self, path: &str) -> Option<&RpcMethods>;

    /// The replication config of a synchronizer.
    fn synchronizer(&self, key: &SyncKey<'_>) -> Option<&[Property]>;
}

/// A [`Schema`] given as lists: nodes by path pattern, synchronizers by path pattern or by
/// spawner and scene. A pattern is a path whose `*` matches any run of characters other than
/// `/` (`"Players/*"` matches `"Players/1"`); the first matching entry wins.
///
/// ```
/// use gdvariant_multiplayer::{Property, ReplicationMode, RpcMethods, Schema, StaticSchema, SyncKey};
/// let schema = StaticSchema::new()
///     .with_node("Players/*", RpcMethods::new(["jump", "shoot"]))
///     .with_synchronizer("Players/*/Sync", vec![Property::new(".:position", ReplicationMode::Always, true)]);
/// assert_eq!(schema.rpc_methods("Players/7").unwrap().name(1), Some("shoot"));
/// assert!(schema.synchronizer(&SyncKey::Path("Players/7/Sync")).is_some());
/// assert!(schema.rpc_methods("Players/7/Sync").is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct StaticSchema {
    nodes: Vec<(String, RpcMethods)>,
    syncs: Vec<(SyncPattern, Vec<Property>)>,
}

#[derive(Clone, Debug)]
enum SyncPattern {
    Path(String),
    Spawned {
        spawner: String,
        scene: Option<u8>,
        index: usize,
    },
}

impl StaticSchema {
    /// An empty schema.
    pub fn new() -> StaticSchema {
        StaticSchema::default()
    }

    /// The RPC methods of the nodes whose path matches `pattern`.
    #[must_use]
    pub fn with_node(mut self, pattern: impl Into<String>, methods: RpcMethods) -> StaticSchema {
        self.nodes.push((pattern.into(), methods));
        self
    }

    /// The config of the synchronizers (named by path cache id) whose path matches `pattern`.
    #[must_use]
    pub fn with_synchronizer(
        mut self,
        pattern: impl Into<String>,
        props: Vec<Property>,
    ) -> StaticSchema {
        self.syncs.push((SyncPattern::Path(pattern.into()), props));
        self
    }

    /// The config of the `index`-th synchronizer of the nodes that spawners matching
    /// `spawner` spawn from scene `scene` (`None`: custom spawns).
    #[must_use]
    pub fn with_spawned_synchronizer(
        mut self,
        spawner: impl Into<String>,
        scene: Option<u8>,
        index: usize,
        props: Vec<Property>,
    ) -> StaticSchema {
        let spawner = spawner.into();
        self.syncs.push((
            SyncPattern::Spawned {
                spawner,
                scene,
                index,
            },
            props,
        ));
        self
    }
}

impl Schema for StaticSchema {
    fn rpc_methods(&self, path: &str) -> Option<&RpcMethods> {
        self.nodes
            .iter()
            .find(|(p, _)| glob(p.as_bytes(), path.as_bytes()))
            .map(|(_, m)| m)
    }

    fn synchronizer(&self, key: &SyncKey<'_>) -> Option<&[Property]> {
        self.syncs
            .iter()
            .find(|(pat, _)| match (pat, key) {
                (SyncPattern::Path(p), SyncKey::Path(path)) => glob(p.as_bytes(), path.as_bytes()),
                (
                    SyncPattern::Spawned {
                        spawner,
                        scene,
                        index,
                    },
                    SyncKey::Spawned {
                        spawner: Some(sp),
                        scene: sc,
                        index: i,
                        ..
                    },
                ) => scene == sc && index == i && glob(spawner.as_bytes(), sp.as_bytes()),
                _ => false,
            })
            .map(|(_, props)| props.as_slice())
    }
}

/// Whether `text` matches `pat`, whose `*` matches any run of bytes other than `/`. Linear-time
/// greedy matching with one backtrack point per star, restarted at each `/`. (Also the server's
/// schema's node patterns.)
pub(crate) fn glob(pat: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() && pat[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pat.len() && pat[p] == text[t] {
            if text[t] == b'/' {
                star = None;
            }
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star.filter(|&(_, st)| text[st] != b'/') {
            star = Some((sp, st + 1));
            p = sp + 1;
            t = st + 1;
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

#[derive(Clone, Debug)]
struct SpawnInfo {
    spawner: u32,
    scene: Option<u8>,
    name: String,
}

/// Follows a conversation to give cache ids and net ids their meaning: the paths each peer
/// offered in `SIMPLIFY_PATH` packets and the synchronizers of the nodes it spawned.
///
/// Cache ids and net ids are the sender's: [`observe`](Session::observe) every packet with the
/// id of the peer that sent it (relayed packets are followed inside, with their source). Memory
/// grows with the paths and spawns seen (each bounded by its packet), never with a count read
/// from a packet.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, simplify_path, RemoteCallBuilder, RpcMethods, Session, StaticSchema, Target};
/// let methods = RpcMethods::new(["hit", "heal"]);
/// let schema = StaticSchema::new().with_node("Arena/*", methods.clone());
/// let mut session = Session::new();
/// session.observe(1, &multiplayer::parse(&simplify_path(&methods.checksum(), 4, "Arena/Boss")?)?);
/// let call = RemoteCallBuilder::new(Target::Id(4), methods.id("hit").unwrap()).finish()?;
/// let multiplayer::Packet::RemoteCall(call) = multiplayer::parse(&call)? else { unreachable!() };
/// assert_eq!(session.node_path(1, &call).as_deref(), Some("Arena/Boss"));
/// assert_eq!(session.method_name(1, &call, &schema), Some("hit"));
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Session {
    /// (sender, cache id) -> path.
    paths: BTreeMap<(i32, u32), String>,
    /// (sender, node net id) -> spawn.
    spawns: BTreeMap<(i32, u32), SpawnInfo>,
    /// (sender, synchronizer net id) -> (node net id, index in the spawn's list).
    syncs: BTreeMap<(i32, u32), (u32, usize)>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// Learns from a packet that peer `from` sent.
    pub fn observe(&mut self, from: i32, packet: &Packet<'_>) {
        match packet {
            Packet::SimplifyPath(p) => {
                self.paths
                    .insert((from, p.id()), p.path().to_string_lossy().into_owned());
            }
            Packet::Spawn(s) => {
                let net = s.net_id();
                for (i, id) in s.sync_ids().enumerate() {
                    self.syncs.insert((from, id), (net, i));
                }
                self.spawns.insert(
                    (from, net),
                    SpawnInfo {
                        spawner: s.spawner(),
                        scene: s.scene(),
                        name: s.name().to_string_lossy().into_owned(),
                    },
                );
            }
            Packet::Despawn(d) => {
                let net = d.net_id();
                if self.spawns.remove(&(from, net)).is_some() {
                    self.syncs
                        .retain(|&(f, _), &mut (n, _)| f != from || n != net);
                }
            }
            Packet::Sys(s) if s.kind() == SysKind::Relay => {
                // Received by a client from the server, the peer field is the source; received by
                // the server, the sender is the source.
                let source = match s.peer() {
                    Some(p) if from == 1 => p,
                    _ => from,
                };
                if let Some(Ok(inner)) = s.inner() {
                    self.observe(source, &inner);
                }
            }
            _ => {}
        }
    }

    /// Forgets what peer `peer` sent (it disconnected).
    pub fn forget_peer(&mut self, peer: i32) {
        self.paths.retain(|&(f, _), _| f != peer);
        self.spawns.retain(|&(f, _), _| f != peer);
        self.syncs.retain(|&(f, _), _| f != peer);
    }

    /// The path peer `from` gave cache id `id`.
    pub fn path(&self, from: i32, id: u32) -> Option<&str> {
        self.paths.get(&(from, id)).map(String::as_str)
    }

    /// The path of an RPC's node: inline, or from the cache of its sender `from`.
    pub fn node_path<'c>(&self, from: i32, call: &RemoteCall<'c>) -> Option<Cow<'c, str>> {
        match call.node() {
            NodeTarget::Path(p) => Some(p.to_string_lossy()),
            NodeTarget::Id(id) => self.path(from, id).map(|p| Cow::Owned(String::from(p))),
        }
    }

    /// The name of an RPC's method, when its node's path is known and the schema knows the node.
    pub fn method_name<'s, S: Schema + ?Sized>(
        &self,
        from: i32,
        call: &RemoteCall<'_>,
        schema: &'s S,
    ) -> Option<&'s str> {
        let path = self.node_path(from, call)?;
        schema.rpc_methods(&path)?.name(call.method())
    }

    /// Which synchronizer the net id `net_id` in a SYNC or DELTA entry from `from` names.
    pub fn sync_key(&self, from: i32, net_id: u32) -> Option<SyncKey<'_>> {
        if net_id & 0x8000_0000 != 0 {
            return self.path(from, net_id & 0x7FFF_FFFF).map(SyncKey::Path);
        }
        let &(node, index) = self.syncs.get(&(from, net_id))?;
        let spawn = self.spawns.get(&(from, node))?;
        Some(SyncKey::Spawned {
            spawner: self.path(from, spawn.spawner),
            scene: spawn.scene,
            node: &spawn.name,
            index,
        })
    }

    /// The replication config of the synchronizer `net_id` names, from the schema.
    pub fn synchronizer<'s, S: Schema + ?Sized>(
        &self,
        from: i32,
        net_id: u32,
        schema: &'s S,
    ) -> Option<&'s [Property]> {
        schema.synchronizer(&self.sync_key(from, net_id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn glob_matches_within_segments() {
        assert!(glob(b"a/*/c", b"a/bbb/c"));
        assert!(glob(b"a/*", b"a/"));
        assert!(!glob(b"a/*", b"a/b/c"));
        assert!(glob(b"*", b"anything"));
        assert!(!glob(b"*", b"a/b"));
        assert!(glob(b"P*_*x", b"Player_12x"));
        assert!(!glob(b"P*x", b"Pyy/x"));
        assert!(glob(b"", b""));
        assert!(!glob(b"", b"a"));
        assert!(glob(b"**", b""));
    }
}
