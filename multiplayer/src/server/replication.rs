//! Spawning nodes on the clients' `MultiplayerSpawner`s and driving their
//! `MultiplayerSynchronizer`s from the server (Godot 4), with per-peer visibility.

use alloc::sync::Arc;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::core::ServerCore;
use super::types::{Node, PeerId, ServerError, To, TransferMode};
use crate::{despawn, Arg, DeltaBuilder, RpcMethods, SpawnBuilder, SyncBuilder};

/// A node the server spawned: its net id and its synchronizers' net ids (one counter for both,
/// from 1, as the engine numbers them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spawned {
    /// The node's net id (for [`ServerCore::despawn`], [`ServerCore::set_visible`]).
    pub net_id: u32,
    /// Its synchronizers' net ids, in the order of the node's synchronizers (for
    /// [`ServerCore::sync`] and [`ServerCore::delta`]).
    pub sync_ids: Vec<u32>,
}

impl ServerCore {
    /// Offers `path` to `peer` (`SIMPLIFY_PATH`, once) with the checksum of a node without RPCs;
    /// its cache id.
    fn offer_plain(&mut self, peer: PeerId, path: &str) -> Result<u32, ServerError> {
        let (id, path) = self.path_id(path);
        if let Some(p) = self.peers.get_mut(&peer) {
            if p.offered.insert(id) {
                let checksum = RpcMethods::new(core::iter::empty::<&str>()).checksum();
                let b = crate::simplify_path(&checksum, id, &path)?;
                self.send(peer, 0, TransferMode::Reliable, b.into());
            }
        }
        Ok(id)
    }

    fn spawn_to(&mut self, peer: PeerId, net_id: u32) -> Result<(), ServerError> {
        let Some(node) = self.nodes.get(&net_id) else {
            return Ok(());
        };
        let spawner = node.spawner.clone();
        let id = self.offer_plain(peer, &spawner)?;
        let Some(node) = self.nodes.get_mut(&net_id) else {
            return Ok(());
        };
        // The packet was built with cache id 0 for the spawner: the peer's id goes in.
        let mut packet = node.packet.clone();
        packet[2..6].copy_from_slice(&id.to_le_bytes());
        node.visible.insert(peer);
        self.send(peer, 0, TransferMode::Reliable, packet.into());
        Ok(())
    }

    /// Spawns a node on the clients' `MultiplayerSpawner` at `spawner` (a path relative to the
    /// root): scene `scene` of its spawnable scenes, named `name`, with `synchronizers`
    /// synchronizers and `state`, the values of their spawn properties in the order of their
    /// replication configs. Visible to `to` (the others can be added with
    /// [`set_visible`](Self::set_visible)).
    pub fn spawn<A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        scene: u8,
        name: &str,
        synchronizers: usize,
        state: &[A],
    ) -> Result<Spawned, ServerError> {
        let targets = self.targets(to)?;
        let net_id = self.next_net_id();
        let sync_ids: Vec<u32> = (0..synchronizers.min(1024))
            .map(|_| self.next_net_id())
            .collect();
        let mut b = SpawnBuilder::new(0, net_id, name)
            .scene(scene)?
            .sync_ids(&sync_ids);
        for v in state {
            b = b.state(v)?;
        }
        let node = Node {
            spawner: super::schema::relative(spawner).into(),
            packet: b.finish()?,
            sync_ids: sync_ids.clone(),
            visible: HashSet::new(),
        };
        self.nodes.insert(net_id, node);
        for t in targets {
            self.spawn_to(t, net_id)?;
        }
        Ok(Spawned { net_id, sync_ids })
    }

    /// Shows (spawns) or hides (despawns) a spawned node for one peer, as a synchronizer's
    /// visibility does.
    pub fn set_visible(
        &mut self,
        net_id: u32,
        peer: PeerId,
        visible: bool,
    ) -> Result<(), ServerError> {
        if !self.has_peer(peer) {
            return Err(ServerError::UnknownPeer(peer));
        }
        let Some(node) = self.nodes.get_mut(&net_id) else {
            return Err(ServerError::UnknownNode(alloc::format!("net id {net_id}")));
        };
        match (visible, node.visible.contains(&peer)) {
            (true, false) => self.spawn_to(peer, net_id)?,
            (false, true) => {
                node.visible.remove(&peer);
                self.send(peer, 0, TransferMode::Reliable, despawn(net_id).into());
            }
            _ => {}
        }
        Ok(())
    }

    /// The peers a node is visible to, among `to`.
    fn visible(&self, to: To, sync_id: u32) -> Result<Vec<PeerId>, ServerError> {
        let node = self
            .nodes
            .values()
            .find(|n| n.sync_ids.contains(&sync_id))
            .ok_or_else(|| {
                ServerError::UnknownNode(alloc::format!("synchronizer net id {sync_id}"))
            })?;
        Ok(self
            .targets(to)?
            .into_iter()
            .filter(|p| node.visible.contains(p))
            .collect())
    }

    /// Sends a synchronizer's "always" properties (`SYNC`, unreliable, as the engine sends it)
    /// to the peers among `to` that see its node.
    pub fn sync<A: Arg>(&mut self, to: To, sync_id: u32, values: &[A]) -> Result<(), ServerError> {
        let peers = self.visible(to, sync_id)?;
        self.sync_time = self.sync_time.wrapping_add(1);
        let b: Arc<[u8]> = SyncBuilder::new(self.sync_time)
            .entry(sync_id, values)?
            .finish()?
            .into();
        for p in peers {
            self.send(p, 0, TransferMode::Unreliable, b.clone());
        }
        Ok(())
    }

    /// Sends a synchronizer's changed "on change" properties (`DELTA`, reliable): bit i of
    /// `mask` for the i-th of them, `values` for the set bits in order.
    pub fn delta<A: Arg>(
        &mut self,
        to: To,
        sync_id: u32,
        mask: u64,
        values: &[A],
    ) -> Result<(), ServerError> {
        let peers = self.visible(to, sync_id)?;
        let b: Arc<[u8]> = DeltaBuilder::new()
            .entry(sync_id, mask, values)?
            .finish()?
            .into();
        for p in peers {
            self.send(p, 0, TransferMode::Reliable, b.clone());
        }
        Ok(())
    }

    /// Despawns a node from every peer that sees it, and forgets it.
    pub fn despawn(&mut self, net_id: u32) -> Result<(), ServerError> {
        let Some(node) = self.nodes.remove(&net_id) else {
            return Err(ServerError::UnknownNode(alloc::format!("net id {net_id}")));
        };
        let b: Arc<[u8]> = despawn(net_id).into();
        let mut peers: Vec<PeerId> = node
            .visible
            .into_iter()
            .filter(|&p| self.has_peer(p))
            .collect();
        peers.sort_unstable();
        for p in peers {
            self.send(p, 0, TransferMode::Reliable, b.clone());
        }
        Ok(())
    }

    /// A peer left: no node is visible to it any more.
    pub(crate) fn forget_visibility(&mut self, peer: PeerId) {
        for n in self.nodes.values_mut() {
            n.visible.remove(&peer);
        }
    }

    fn next_net_id(&mut self) -> u32 {
        self.net_ids = self.net_ids.wrapping_add(1).max(1);
        self.net_ids
    }
}
