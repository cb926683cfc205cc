//! What the server knows of the game: the nodes it serves, by path pattern, with their `@rpc`
//! methods (name, who may call them, transfer mode and channel), the synchronizers outside
//! spawned nodes whose state clients send it, with their properties, and the spawners whose
//! multiplayer authority is a client, with the synchronizers of the nodes they spawn.

use alloc::string::String;
use alloc::vec::Vec;
use core::str::FromStr;

use crate::schema_file::{entries, Entry, Method, RsetProperty, SchemaError, Transfer};
use crate::session::glob;
use crate::{Property, RpcMethods};

use super::types::{PeerId, TransferMode};

/// Who is the multiplayer authority of the `MultiplayerSpawner`s a
/// [`client_spawner`](ServerSchema::client_spawner) pattern matches: the client that spawns
/// their nodes (`spawner.set_multiplayer_authority(id)` in the game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpawnerAuthority {
    /// The peer whose id the spawner's path names where the pattern has `{id}`: with
    /// `Main/P{id}/Spawner`, peer 42 owns `Main/P42/Spawner` (a game's node per player, named
    /// after its peer id, whose authority is that peer). A pattern without `{id}` matches
    /// nothing.
    PathPeer,
    /// This peer.
    Peer(PeerId),
}

/// Who may call an RPC method on the server's nodes (the server is the authority of every node
/// it serves, as in a Godot server whose nodes keep the default authority 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RpcMode {
    /// `@rpc("any_peer")` (Godot 3: `remote`, `remotesync`): any peer may call it.
    AnyPeer,
    /// `@rpc("authority")`, the default (Godot 3: `puppet`, `master` … as sent by the server):
    /// only the server calls it; a client's call is rejected, as the engine rejects it.
    Authority,
}

/// One `@rpc` method of a node: its name, [`RpcMode`], and how the server sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcSpec {
    name: String,
    mode: RpcMode,
    transfer: TransferMode,
    channel: u8,
    native: bool,
    property: bool,
}

impl RpcSpec {
    /// `@rpc("any_peer", "call_remote", "reliable", 0)`.
    pub fn any_peer(name: impl Into<String>) -> RpcSpec {
        RpcSpec {
            name: name.into(),
            mode: RpcMode::AnyPeer,
            transfer: TransferMode::Reliable,
            channel: 0,
            native: false,
            property: false,
        }
    }

    /// `@rpc("authority", "call_remote", "reliable", 0)`.
    pub fn authority(name: impl Into<String>) -> RpcSpec {
        RpcSpec {
            mode: RpcMode::Authority,
            ..RpcSpec::any_peer(name)
        }
    }

    /// The transfer mode the server sends the method with (`reliable` by default).
    #[must_use]
    pub fn transfer(mut self, mode: TransferMode) -> RpcSpec {
        self.transfer = mode;
        self
    }

    /// The transfer channel the server sends the method on (0 by default).
    #[must_use]
    pub fn channel(mut self, channel: u8) -> RpcSpec {
        self.channel = channel;
        self
    }

    /// A method configured on the node with `Node.rpc_config` rather than a script's `@rpc`:
    /// the engine numbers these apart, with bit 15 set (`0x8000`, `0x8001`, … in name order),
    /// and puts them first in the checksum.
    #[must_use]
    pub fn native(mut self) -> RpcSpec {
        self.native = true;
        self
    }

    /// Not a method but a Godot 3 property set with `rset` (`remote var`, `master var`:
    /// [`any_peer`](Self::any_peer); `puppet var`: [`authority`](Self::authority), set by the
    /// server only). Properties are apart from the methods (Godot 4 has no `rset`).
    #[must_use]
    pub fn property(mut self) -> RpcSpec {
        self.property = true;
        self
    }

    /// Whether it is a Godot 3 `rset` property.
    pub fn is_property(&self) -> bool {
        self.property
    }

    /// Whether it is configured with `Node.rpc_config`.
    pub fn is_native(&self) -> bool {
        self.native
    }

    /// The method's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Who may call it.
    pub fn mode(&self) -> RpcMode {
        self.mode
    }

    /// Its transfer mode.
    pub fn transfer_mode(&self) -> TransferMode {
        self.transfer
    }

    /// Its transfer channel.
    pub fn transfer_channel(&self) -> u8 {
        self.channel
    }
}

/// A served node (or the nodes whose paths match a pattern) and its RPC methods.
#[derive(Clone, Debug)]
pub struct NodeSpec {
    pattern: String,
    methods: RpcMethods,
    /// In the order of `methods`' ids.
    specs: Vec<RpcSpec>,
    checksum: [u8; 32],
}

impl NodeSpec {
    /// The path pattern, relative to the multiplayer root (`/root`).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The methods, numbered as the engine numbers them.
    pub fn methods(&self) -> &RpcMethods {
        &self.methods
    }

    /// The checksum of the method names that `SIMPLIFY_PATH` carries (MD5, hex).
    pub fn checksum(&self) -> &[u8; 32] {
        &self.checksum
    }

    /// The method with this id.
    pub fn by_id(&self, id: u16) -> Option<&RpcSpec> {
        let name = self.methods.name(id)?;
        self.specs.iter().find(|s| !s.property && s.name == name)
    }

    /// The method with this name and its id.
    pub fn by_name(&self, name: &str) -> Option<(u16, &RpcSpec)> {
        let id = self.methods.id(name)?;
        Some((
            id,
            self.specs.iter().find(|s| !s.property && s.name == name)?,
        ))
    }

    /// The Godot 3 `rset` property with this name ([`RpcSpec::property`]).
    pub fn by_property(&self, name: &str) -> Option<&RpcSpec> {
        self.specs.iter().find(|s| s.property && s.name == name)
    }
}

/// The nodes the server serves. A pattern is a node path relative to the multiplayer root
/// (`"Main"`, or written absolute: `"/root/Main"`), whose `*` matches any run of characters other
/// than `/` (`"Players/*"`); the first matching node wins.
///
/// Method ids are the positions of the method names in code-point order, as the engine numbers
/// the `@rpc` methods of a script, so the list may be given in any order.
///
/// ```
/// use gdvariant_multiplayer::server::{RpcSpec, ServerSchema};
/// let schema = ServerSchema::new()
///     .node("/root/Main", [RpcSpec::any_peer("echo"), RpcSpec::authority("echoed")]);
/// let main = schema.find("Main").unwrap();
/// assert_eq!(main.by_name("echoed").unwrap().0, 1);
/// assert_eq!(main.by_id(0).unwrap().name(), "echo");
/// ```
#[derive(Clone, Debug, Default)]
pub struct ServerSchema {
    nodes: Vec<NodeSpec>,
    synchronizers: Vec<(String, Vec<Property>)>,
    spawners: Vec<(String, SpawnerAuthority)>,
    /// (spawner pattern, scene, synchronizer index, properties)
    spawned: Vec<(String, Option<u8>, usize, Vec<Property>)>,
}

impl ServerSchema {
    /// A schema serving no node.
    pub fn new() -> ServerSchema {
        ServerSchema::default()
    }

    /// Serves the nodes matching `pattern`, with these RPC methods (the script's `@rpc` methods,
    /// and those configured with `Node.rpc_config`: [`RpcSpec::native`]).
    #[must_use]
    pub fn node(mut self, pattern: &str, methods: impl IntoIterator<Item = RpcSpec>) -> Self {
        let mut specs: Vec<RpcSpec> = methods.into_iter().collect();
        specs.sort_by(|a, b| (a.property, &a.name).cmp(&(b.property, &b.name)));
        specs.dedup_by(|a, b| a.property == b.property && a.name == b.name);
        let (native, script): (Vec<&RpcSpec>, Vec<&RpcSpec>) =
            specs.iter().filter(|s| !s.property).partition(|s| s.native);
        let methods = RpcMethods::new(script.iter().map(|s| s.name.as_str()))
            .with_node_methods(native.iter().map(|s| s.name.as_str()));
        let checksum = methods.checksum();
        self.nodes.push(NodeSpec {
            pattern: String::from(relative(pattern)),
            methods,
            specs,
            checksum,
        });
        self
    }

    /// The node whose pattern matches `path` (relative to the root, or absolute under `/root`).
    pub fn find(&self, path: &str) -> Option<&NodeSpec> {
        let path = relative(path);
        self.nodes
            .iter()
            .find(|n| glob(n.pattern.as_bytes(), path.as_bytes()))
    }

    /// The served nodes.
    pub fn nodes(&self) -> impl Iterator<Item = &NodeSpec> {
        self.nodes.iter()
    }

    /// Takes the state of the `MultiplayerSynchronizer`s matching `pattern` (their own paths,
    /// not their root nodes'; outside spawned nodes) from the clients that are their authority:
    /// the server confirms their paths and delivers their `SYNC` and `DELTA` entries as
    /// [`Event::Sync`](super::types::Event::Sync), the values named by `properties`, the
    /// synchronizer's replication config in order.
    #[must_use]
    pub fn synchronizer(
        mut self,
        pattern: &str,
        properties: impl IntoIterator<Item = Property>,
    ) -> Self {
        self.synchronizers.push((
            String::from(relative(pattern)),
            properties.into_iter().collect(),
        ));
        self
    }

    /// The properties of the synchronizer whose pattern matches `path`.
    pub fn find_synchronizer(&self, path: &str) -> Option<&[Property]> {
        let path = relative(path);
        self.synchronizers
            .iter()
            .find(|(p, _)| glob(p.as_bytes(), path.as_bytes()))
            .map(|(_, props)| &props[..])
    }

    /// Takes the nodes that clients spawn on the `MultiplayerSpawner`s matching `pattern` (the
    /// spawners' own paths), whose multiplayer authority is the client `authority` says: the
    /// server confirms their paths, and delivers the `SPAWN` and `DESPAWN` of that client (only)
    /// as [`Event::Spawn`](super::types::Event::Spawn) and
    /// [`Event::Despawn`](super::types::Event::Despawn), and the `SYNC` and `DELTA` entries of the spawned nodes' synchronizers as
    /// [`Event::Sync`](super::types::Event::Sync) (their properties from
    /// [`spawned`](Self::spawned)). In the pattern, `*` matches within a path segment and `{id}`
    /// a decimal peer id (`Main/P{id}/Spawner`); the first matching pattern wins.
    #[must_use]
    pub fn client_spawner(mut self, pattern: &str, authority: SpawnerAuthority) -> Self {
        self.spawners
            .push((String::from(relative(pattern)), authority));
        self
    }

    /// The properties of the `index`-th synchronizer (from 0, in the order of the `SPAWN`'s net
    /// ids) of the nodes that the spawners matching `spawner` spawn from `scene` (an index in
    /// the spawner's list; `None` for a custom spawn), in the order of its replication config:
    /// how the server names the values of a client's [`Event::Sync`](super::types::Event::Sync) for
    /// them. The pattern is a [`find`](Self::find) pattern (`*`, no `{id}`).
    #[must_use]
    pub fn spawned(
        mut self,
        spawner: &str,
        scene: Option<u8>,
        index: usize,
        properties: impl IntoIterator<Item = Property>,
    ) -> Self {
        self.spawned.push((
            String::from(relative(spawner)),
            scene,
            index,
            properties.into_iter().collect(),
        ));
        self
    }

    /// The client that is the authority of the spawner at `path`, if a
    /// [`client_spawner`](Self::client_spawner) pattern matches it.
    pub fn spawner_authority(&self, path: &str) -> Option<PeerId> {
        let path = relative(path);
        self.spawners.iter().find_map(|(p, a)| {
            let named = spawner_match(p, path)?;
            match a {
                SpawnerAuthority::PathPeer => named,
                SpawnerAuthority::Peer(id) => Some(*id),
            }
        })
    }

    /// Whether a [`client_spawner`](Self::client_spawner) pattern matches `path`.
    pub fn is_client_spawner(&self, path: &str) -> bool {
        let path = relative(path);
        self.spawners
            .iter()
            .any(|(p, _)| spawner_match(p, path).is_some())
    }

    /// The properties of a synchronizer of a node spawned on the spawner at `path`
    /// ([`spawned`](Self::spawned)).
    pub fn find_spawned(&self, path: &str, scene: Option<u8>, index: usize) -> Option<&[Property]> {
        let path = relative(path);
        self.spawned
            .iter()
            .find(|(p, s, i, _)| *s == scene && *i == index && glob(p.as_bytes(), path.as_bytes()))
            .map(|(.., props)| &props[..])
    }
}

/// Whether a spawner pattern matches `path`, segment by segment (`*` within a segment, `{id}` a
/// decimal peer id from 2): `Some` with the peer `{id}` named (`None` without `{id}`).
fn spawner_match(pattern: &str, path: &str) -> Option<Option<PeerId>> {
    let mut named = None;
    let (mut pat, mut segs) = (pattern.split('/'), path.split('/'));
    loop {
        match (pat.next(), segs.next()) {
            (None, None) => return Some(named),
            (Some(p), Some(s)) => match p.split_once("{id}") {
                Some((pre, post)) => {
                    let digits = s.strip_prefix(pre)?.strip_suffix(post)?;
                    if digits.is_empty()
                        || digits.len() > 10
                        || !digits.bytes().all(|b| b.is_ascii_digit())
                    {
                        return None;
                    }
                    let id = digits.parse::<PeerId>().ok().filter(|&id| id >= 2)?;
                    if named.is_some_and(|n| n != id) {
                        return None;
                    }
                    named = Some(id);
                }
                None if glob(p.as_bytes(), s.as_bytes()) => {}
                None => return None,
            },
            _ => return None,
        }
    }
}

impl ServerSchema {
    /// Reads the nodes to serve from a schema file (`docs/schema-file.md`), the file the CLI's
    /// `--schema` reads: each `rpc` line is a node pattern and its `@rpc` methods, each with its
    /// options after `@` (`echo@any_peer`, `hit@unreliable_ordered,2`; `@rpc`'s defaults:
    /// `authority`, `call_remote`, `reliable`, channel 0); those after `native` are configured
    /// with `Node.rpc_config` ([`RpcSpec::native`]). Each `rset` line gives Godot 3 properties
    /// ([`RpcSpec::property`]) by the keyword of their declaration (`color@remote`,
    /// `score@puppet`), to the node of the `rpc` line with the same pattern (or a node of their
    /// own). Each `sync` line is a [`synchronizer`](Self::synchronizer) whose state clients may
    /// send; each `spawner` line a [`client_spawner`](Self::client_spawner) (`spawner
    /// Main/P{id}/Spawner`: [`SpawnerAuthority::PathPeer`]; `spawner Main/Shots 7`:
    /// [`SpawnerAuthority::Peer`]); each `spawned` line names the properties of a synchronizer of
    /// the nodes spawned ([`spawned`](Self::spawned)).
    ///
    /// ```
    /// use gdvariant_multiplayer::server::{RpcMode, ServerSchema, TransferMode};
    /// let s = ServerSchema::parse("rpc /root/Main echo@any_peer echoed\nrset Main score@puppet\n")?;
    /// let main = s.find("Main").unwrap();
    /// assert_eq!(main.by_name("echo").unwrap().1.mode(), RpcMode::AnyPeer);
    /// assert_eq!(main.by_name("echoed").unwrap().1.transfer_mode(), TransferMode::Reliable);
    /// assert_eq!(main.by_property("score").unwrap().mode(), RpcMode::Authority);
    /// # Ok::<(), gdvariant_multiplayer::SchemaError>(())
    /// ```
    pub fn parse(text: &str) -> Result<ServerSchema, SchemaError> {
        let mut schema = ServerSchema::new();
        // The nodes in the order of their first line: (pattern, specs, has an `rpc` line).
        let mut nodes: Vec<(&str, Vec<RpcSpec>, bool)> = Vec::new();
        let transfer = |t: Transfer| match t {
            Transfer::Reliable => TransferMode::Reliable,
            Transfer::Unreliable => TransferMode::Unreliable,
            Transfer::UnreliableOrdered => TransferMode::UnreliableOrdered,
        };
        for e in entries(text)? {
            match e {
                Entry::Rpc {
                    pattern,
                    methods,
                    native,
                } => {
                    let spec = |m: &Method<'_>| {
                        let spec = if m.any_peer {
                            RpcSpec::any_peer(m.name)
                        } else {
                            RpcSpec::authority(m.name)
                        };
                        spec.channel(m.channel).transfer(transfer(m.transfer))
                    };
                    let specs = methods
                        .iter()
                        .map(spec)
                        .chain(native.iter().map(|m| spec(m).native()));
                    // Joins the node an `rset` line made; another `rpc` line is a node of its
                    // own (the first match wins, as before).
                    match nodes
                        .iter_mut()
                        .find(|(p, _, rpc)| *p == relative(pattern) && !rpc)
                    {
                        Some((_, s, rpc)) => {
                            s.extend(specs);
                            *rpc = true;
                        }
                        None => nodes.push((relative(pattern), specs.collect(), true)),
                    }
                }
                Entry::Rset {
                    pattern,
                    properties,
                } => {
                    let specs = properties.iter().map(|p: &RsetProperty<'_>| {
                        let spec = if p.any_peer {
                            RpcSpec::any_peer(p.name)
                        } else {
                            RpcSpec::authority(p.name)
                        };
                        spec.transfer(transfer(p.transfer)).property()
                    });
                    match nodes.iter_mut().find(|(p, ..)| *p == relative(pattern)) {
                        Some((_, s, _)) => s.extend(specs),
                        None => nodes.push((relative(pattern), specs.collect(), false)),
                    }
                }
                Entry::Sync { pattern, props } => schema = schema.synchronizer(pattern, props),
                Entry::Spawned {
                    spawner,
                    scene,
                    index,
                    props,
                } => schema = schema.spawned(spawner, scene, index, props),
                Entry::Spawner { pattern, peer } => {
                    let authority = peer.map_or(SpawnerAuthority::PathPeer, SpawnerAuthority::Peer);
                    schema = schema.client_spawner(pattern, authority);
                }
            }
        }
        for (pattern, specs, _) in nodes {
            schema = schema.node(pattern, specs);
        }
        Ok(schema)
    }
}

impl FromStr for ServerSchema {
    type Err = SchemaError;

    fn from_str(text: &str) -> Result<ServerSchema, SchemaError> {
        ServerSchema::parse(text)
    }
}

/// `path` relative to the multiplayer root `/root`.
pub(crate) fn relative(path: &str) -> &str {
    path.strip_prefix("/root/").unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let s = ServerSchema::new()
            .node(
                "Players/*",
                [RpcSpec::any_peer("b"), RpcSpec::any_peer("a")],
            )
            .node("/root/Main", []);
        assert_eq!(s.find("Players/7").unwrap().by_id(0).unwrap().name(), "a");
        assert!(s.find("Players/7/Gun").is_none());
        assert!(s.find("/root/Main").is_some());
        assert!(s.find("Main").is_some());
        assert!(s.find("Other").is_none());
    }

    #[test]
    fn rset_lines_join_the_rpc_line_of_their_node() {
        let s = ServerSchema::parse(
            "rset Players/* hp@puppet,unreliable\n\
             rpc Main echo@any_peer\n\
             rset /root/Main color@remote score@puppet\n\
             rpc Players/* jump@any_peer\n\
             rpc Main never_reached\n",
        )
        .unwrap();
        let main = s.find("Main").unwrap();
        assert_eq!(main.methods().name(0), Some("echo"));
        assert!(main.by_name("never_reached").is_none());
        assert_eq!(main.by_property("color").unwrap().mode(), RpcMode::AnyPeer);
        let score = main.by_property("score").unwrap();
        assert_eq!(
            (score.mode(), score.transfer_mode(), score.is_property()),
            (RpcMode::Authority, TransferMode::Reliable, true)
        );
        // Properties are not methods: the checksum and ids are the methods' alone.
        assert!(main.by_name("color").is_none());
        assert_eq!(
            main.checksum(),
            ServerSchema::new()
                .node("Main", [RpcSpec::any_peer("echo")])
                .find("Main")
                .unwrap()
                .checksum()
        );
        let players = s.find("Players/7").unwrap();
        assert_eq!(players.by_name("jump").unwrap().0, 0);
        let hp = players.by_property("hp").unwrap();
        assert_eq!(
            (hp.mode(), hp.transfer_mode()),
            (RpcMode::Authority, TransferMode::Unreliable)
        );
        assert_eq!(s.nodes().count(), 3);
        let e = ServerSchema::parse("rpc Main echo\nrset Main color@remote score\n").unwrap_err();
        assert_eq!(e.line(), 2);
    }
}
