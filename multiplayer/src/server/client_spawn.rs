//! Nodes that clients spawn on the spawners whose multiplayer authority they are (Godot 4,
//! [`ServerSchema::client_spawner`](super::ServerSchema::client_spawner)), taken as a Godot
//! server's `SceneReplicationInterface` takes them: a `SPAWN` only from the spawner's authority
//! (`on_spawn_receive`), kept under that peer and not sent on (the client sends it to each peer
//! itself), a `DESPAWN` only of a node that peer spawned (`on_despawn_receive`), `SYNC` and
//! `DELTA` entries by the net ids of the spawn, the nodes forgotten when the peer leaves.

use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::core::ServerCore;
use super::types::{ClientNode, ClientSpawn, Event, PeerId};
use crate::Spawn;

/// The characters `String::validate_node_name` replaces: a `SPAWN` whose name has one is
/// refused.
const INVALID_NAME_CHARS: &[char] = &['.', ':', '@', '/', '"', '%'];

/// A synchronizer of a node a client spawned: the spawner's path, the node's scene, the node's
/// net id and the synchronizer's index among the spawn's net ids.
pub(crate) struct SpawnedSync {
    pub(crate) spawner: Arc<str>,
    pub(crate) scene: Option<u8>,
    pub(crate) node: u32,
    pub(crate) index: usize,
}

impl ServerCore {
    /// A `SPAWN` from `from` (`peer` sent it): taken if `from` is the spawner's authority, its
    /// name valid and free under the spawner, its net id new; the packet was validated.
    pub(crate) fn client_spawn(&mut self, peer: PeerId, from: PeerId, s: &Spawn<'_>, bytes: &[u8]) {
        if let Err(why) = self.take_spawn(from, s, bytes) {
            self.reject(peer, why, false);
        }
    }

    fn take_spawn(
        &mut self,
        from: PeerId,
        s: &Spawn<'_>,
        bytes: &[u8],
    ) -> Result<(), alloc::string::String> {
        let cache_id = s.spawner();
        let spawner = self
            .peers
            .get(&from)
            .and_then(|p| p.paths.get(&cache_id))
            .cloned()
            .ok_or_else(|| format!("SPAWN on unknown path id {cache_id}"))?;
        match self.schema.spawner_authority(&spawner) {
            Some(a) if a == from => {}
            Some(a) => {
                return Err(format!(
                    "SPAWN on {spawner:?} from {from}: its authority is peer {a}"
                ))
            }
            None => {
                return Err(format!(
                    "SPAWN on {spawner:?} from {from}: not a client's spawner (the server is its authority)"
                ))
            }
        }
        let name = s
            .name()
            .as_str()
            .filter(|n| !n.is_empty() && !n.contains(INVALID_NAME_CHARS))
            .ok_or_else(|| format!("SPAWN on {spawner:?}: invalid node name"))?;
        let max = self.cfg.max_client_nodes;
        let Some(p) = self.peers.get_mut(&from) else {
            return Ok(());
        };
        let net_id = s.net_id();
        let name: Arc<str> = name.into();
        let key = (spawner.clone(), name.clone());
        if p.spawned.names.contains(&key) {
            return Err(format!(
                "SPAWN on {spawner:?}: a node named {name:?} is already there"
            ));
        }
        if p.spawned.nodes.contains_key(&net_id) {
            return Err(format!(
                "SPAWN on {spawner:?}: net id {net_id} is already one of peer {from}'s nodes"
            ));
        }
        let count = s.sync_ids().len();
        if p.spawned.nodes.len() + p.spawned.syncs.len() + 1 + count > max {
            return Err(format!(
                "SPAWN on {spawner:?}: more than {max} nodes and synchronizers spawned by peer {from}"
            ));
        }
        let sync_ids: Vec<u32> = s.sync_ids().collect();
        for (i, &id) in sync_ids.iter().enumerate() {
            // As the engine's `recv_sync_ids`, a later spawn's net id replaces an earlier one.
            p.spawned.syncs.insert(id, (net_id, i));
        }
        p.spawned.names.insert(key);
        p.spawned.nodes.insert(
            net_id,
            ClientNode {
                spawner: spawner.clone(),
                name: name.clone(),
                scene: s.scene(),
                sync_ids,
            },
        );
        self.event(Event::Spawn(ClientSpawn {
            from,
            spawner,
            name,
            packet: bytes.to_vec(),
        }));
        Ok(())
    }

    /// A `DESPAWN` from `from` (`peer` sent it): taken only for a node `from` spawned.
    pub(crate) fn client_despawn(&mut self, peer: PeerId, from: PeerId, net_id: u32) {
        let node = self.peers.get_mut(&from).and_then(|p| {
            let node = p.spawned.nodes.remove(&net_id)?;
            p.spawned
                .names
                .remove(&(node.spawner.clone(), node.name.clone()));
            for id in &node.sync_ids {
                if p.spawned.syncs.get(id).is_some_and(|&(n, _)| n == net_id) {
                    p.spawned.syncs.remove(id);
                }
            }
            Some(node)
        });
        match node {
            Some(node) => self.event(Event::Despawn {
                from,
                spawner: node.spawner,
                net_id,
                name: node.name,
                peer_left: false,
            }),
            None => self.reject(
                peer,
                format!("DESPAWN of net id {net_id}: not a node peer {from} spawned"),
                false,
            ),
        }
    }

    /// The synchronizer of a node `from` spawned whose net id (from the spawn) is `net_id`.
    pub(crate) fn spawned_sync(&self, from: PeerId, net_id: u32) -> Option<SpawnedSync> {
        let p = self.peers.get(&from)?;
        let &(node, index) = p.spawned.syncs.get(&net_id)?;
        let n = p.spawned.nodes.get(&node)?;
        Some(SpawnedSync {
            spawner: n.spawner.clone(),
            scene: n.scene,
            node,
            index,
        })
    }

    /// The nodes `peer` spawned on its spawners that are still there, in net id order: (net
    /// id, spawner path, name).
    pub fn client_nodes(&self, peer: PeerId) -> impl Iterator<Item = (u32, &str, &str)> + '_ {
        self.peers.get(&peer).into_iter().flat_map(|p| {
            p.spawned
                .nodes
                .iter()
                .map(|(&id, n)| (id, &*n.spawner, &*n.name))
        })
    }
}
