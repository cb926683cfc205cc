//! Spawning nodes on the clients' `MultiplayerSpawner`s and driving their
//! `MultiplayerSynchronizer`s from the server (Godot 4), with per-peer visibility.

use alloc::sync::Arc;
use alloc::vec::Vec;
use std::collections::HashSet;

use gdvariant::encode::EncodeOptions;

use super::core::ServerCore;
use super::types::{Event, Node, PeerId, ServerError, SyncState, To, TransferMode};
use crate::{despawn, Arg, DeltaBuilder, RpcMethods, SpawnBuilder, SyncBuilder};

/// The most synchronizers a node the server spawns may have. The engine has no limit; this one,
/// far above what a scene has, keeps a wrong count from using up the net ids.
const MAX_SYNCHRONIZERS: usize = 1024;

/// Values already encoded (compressed, as the Godot 4 packets carry them), written as they are:
/// what the server keeps of a node's state to send to peers that see it later.
pub(crate) struct Encoded<'a>(pub(crate) &'a [u8]);

impl Arg for Encoded<'_> {
    fn write_compressed(&self, out: &mut Vec<u8>, _: &EncodeOptions) -> gdvariant::Result<()> {
        out.extend_from_slice(self.0);
        Ok(())
    }

    // Only Godot 4's builders (compressed values) are given these.
    fn write_plain(&self, out: &mut Vec<u8>, _: &EncodeOptions) -> gdvariant::Result<()> {
        out.extend_from_slice(self.0);
        Ok(())
    }

    fn packed_bytes(&self) -> Option<&[u8]> {
        None
    }
}

/// `values` encoded one after the other, as the replication packets carry them.
pub(crate) fn encode_all<A: Arg>(values: &[A]) -> Result<Vec<u8>, ServerError> {
    let mut out = Vec::new();
    for v in values {
        v.write_compressed(&mut out, &EncodeOptions::new())?;
    }
    Ok(out)
}

/// The values of a synchronizer's "always" properties, encoded; an error without values (the
/// engine writes no `SYNC` entry for a synchronizer without "always" properties).
pub(crate) fn encode_always<A: Arg>(values: &[A]) -> Result<Vec<u8>, ServerError> {
    if values.is_empty() {
        return Err(ServerError::Encode(crate::wire::invalid(
            "SYNC without values",
            0,
        )));
    }
    encode_all(values)
}

/// Each value encoded on its own, with the index of the "on change" property it is for: the
/// set bits of `mask` in order. An error without values (a `DELTA` without entries).
pub(crate) fn encode_changes<A: Arg>(
    mask: u64,
    values: &[A],
) -> Result<Vec<(u32, Vec<u8>)>, ServerError> {
    if values.is_empty() {
        return Err(ServerError::Encode(crate::wire::invalid(
            "DELTA without values",
            0,
        )));
    }
    if mask.count_ones() as usize != values.len() {
        return Err(ServerError::Encode(crate::wire::invalid(
            "DELTA whose mask does not set one bit per value",
            0,
        )));
    }
    (0..64u32)
        .filter(|b| mask & 1 << b != 0)
        .zip(values)
        .map(|(b, v)| Ok((b, encode_all(core::slice::from_ref(v))?)))
        .collect()
}

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
    pub(crate) fn offer_plain(&mut self, peer: PeerId, path: &str) -> Result<u32, ServerError> {
        let (id, path) = self.path_id(path);
        if let Some(p) = self.peers.get_mut(&peer) {
            // Offered once its SIMPLIFY_PATH is built: a path that cannot be sent is never
            // counted as offered.
            if !p.offered.contains(&id) {
                let checksum = RpcMethods::new(core::iter::empty::<&str>()).checksum();
                let b = crate::simplify_path(&checksum, id, &path)?;
                p.offered.insert(id);
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
        self.catch_up(peer, net_id)
    }

    /// Sends a peer that just got a node spawned the state its synchronizers last sent, as the
    /// engine's next network frame does for a peer new to a synchronizer: `SYNC` with the
    /// "always" properties, `DELTA` with every "on change" property sent so far.
    fn catch_up(&mut self, peer: PeerId, net_id: u32) -> Result<(), ServerError> {
        let Some(node) = self.nodes.get(&net_id) else {
            return Ok(());
        };
        let (mut sync, mut delta) = (None, None);
        for (&id, st) in node.sync_ids.iter().zip(&node.state) {
            if let Some(always) = &st.always {
                let b = sync.take().unwrap_or_else(|| SyncBuilder::new(0));
                sync = Some(b.entry(id, &[Encoded(always)])?);
            }
            if !st.on_change.is_empty() {
                let mask = st.on_change.keys().fold(0u64, |m, &i| m | 1 << i);
                let values: Vec<Encoded<'_>> = st.on_change.values().map(|v| Encoded(v)).collect();
                let b = delta.take().unwrap_or_else(DeltaBuilder::new);
                delta = Some(b.entry(id, mask, &values)?);
            }
        }
        if let Some(b) = sync {
            let mut packet = b.finish()?;
            self.sync_time = self.sync_time.wrapping_add(1);
            packet[1..3].copy_from_slice(&self.sync_time.to_le_bytes());
            self.send(peer, 0, TransferMode::Unreliable, packet.into());
        }
        if let Some(b) = delta {
            self.send(peer, 0, TransferMode::Reliable, b.finish()?.into());
        }
        Ok(())
    }

    /// A peer joined: it gets the public nodes spawned so far, in spawn order, as the engine's
    /// `on_peer_change` spawns them for a late peer.
    pub(crate) fn spawn_for_new_peer(&mut self, peer: PeerId) {
        let mut ids: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.public && !n.hidden.contains(&peer))
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        for id in ids {
            if let Err(e) = self.spawn_to(peer, id) {
                let spawner = self.nodes.get(&id).map_or("", |n| &n.spawner);
                let what = alloc::format!("node {id} on spawner {spawner:?}");
                self.event(Event::NotSent {
                    peer,
                    what,
                    reason: e.to_string(),
                });
            }
        }
    }

    /// Spawns a node on the clients' `MultiplayerSpawner` at `spawner` (a path relative to the
    /// root): scene `scene` of its spawnable scenes, named `name`, with `synchronizers`
    /// synchronizers and `state`, the values of their spawn properties in the order of their
    /// replication configs.
    ///
    /// Who sees it: with [`To::All`] it is public, as a synchronizer's `public_visibility`:
    /// every peer, peers that join later included, gets it spawned (with the state as last set
    /// by [`set_spawn_state`](Self::set_spawn_state), then its synchronizers' last
    /// [`sync`](Self::sync) and every [`delta`](Self::delta) value); [`To::AllBut`] is public
    /// but for that peer; [`To::Peer`] is for that peer only. [`set_visible`](Self::set_visible)
    /// changes it for one peer.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server; [`ServerError::UnknownPeer`] for a
    /// [`To::Peer`] that has not joined; [`ServerError::Encode`] when a value of `state` cannot
    /// be encoded, `scene` is 255 (the custom spawn's), `name` or `spawner` has a NUL byte, or
    /// `synchronizers` is over 1024 (the engine has no limit; a scene has far fewer). No node
    /// made, no net id used, nothing sent, for all of these.
    pub fn spawn<A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        scene: u8,
        name: &str,
        synchronizers: usize,
        state: &[A],
    ) -> Result<Spawned, ServerError> {
        self.godot4("spawn (Godot 4)")?;
        self.spawn_with(to, spawner, name, synchronizers, state, |b| b.scene(scene))
    }

    /// Spawns a node on the clients' `MultiplayerSpawner` at `spawner` with its
    /// `spawn_function` (a custom spawn: the `SPAWN` carries `data`, the argument the engine's
    /// `MultiplayerSpawner.spawn(data)` takes, instead of a scene index; the client's
    /// `spawn_function` makes the node from it, and names it `name`). The rest is as
    /// [`spawn`](Self::spawn): its `synchronizers` synchronizers, their spawn `state`, who sees
    /// it.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Self::spawn), `data` in the place of `scene`: [`ServerError::Encode`] when
    /// `data` cannot be encoded (no node made, no net id used, nothing sent).
    pub fn spawn_custom<D: Arg + ?Sized, A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        name: &str,
        data: &D,
        synchronizers: usize,
        state: &[A],
    ) -> Result<Spawned, ServerError> {
        self.godot4("spawn_custom (Godot 4)")?;
        self.spawn_with(to, spawner, name, synchronizers, state, |b| b.custom(data))
    }

    fn spawn_with<A: Arg>(
        &mut self,
        to: To,
        spawner: &str,
        name: &str,
        synchronizers: usize,
        state: &[A],
        how: impl FnOnce(SpawnBuilder<'_>) -> gdvariant::Result<SpawnBuilder<'_>>,
    ) -> Result<Spawned, ServerError> {
        let targets = self.targets(to)?;
        if synchronizers > MAX_SYNCHRONIZERS {
            return Err(ServerError::Encode(crate::wire::invalid(
                "SPAWN with more than 1024 synchronizers",
                0,
            )));
        }
        let spawner: Arc<str> = super::schema::relative(spawner).into();
        // Its SIMPLIFY_PATH (see `offer_plain`) can be built: the only thing sending the spawn
        // to a peer could fail at.
        let checksum = RpcMethods::new(core::iter::empty::<&str>()).checksum();
        crate::simplify_path(&checksum, 0, &spawner)?;
        // The net ids are taken once the packet is built.
        let mut ids = core::iter::successors(Some(next_id(self.net_ids)), |&id| Some(next_id(id)));
        let net_id = ids.next().unwrap_or(1);
        let sync_ids: Vec<u32> = ids.take(synchronizers).collect();
        let state = encode_all(state)?;
        let packet = how(SpawnBuilder::new(0, net_id, name))?
            .sync_ids(&sync_ids)
            .state(&Encoded(&state))?
            .finish()?;
        self.net_ids = sync_ids.last().copied().unwrap_or(net_id);
        let (public, hidden) = match to {
            To::All => (true, HashSet::new()),
            To::AllBut(x) => (true, HashSet::from([x])),
            To::Peer(_) => (false, HashSet::new()),
        };
        let node = Node {
            spawner,
            state_at: packet.len() - state.len(),
            packet,
            state: sync_ids.iter().map(|_| SyncState::default()).collect(),
            sync_ids: sync_ids.clone(),
            public,
            hidden,
            visible: HashSet::new(),
        };
        self.nodes.insert(net_id, node);
        for t in targets {
            self.spawn_to(t, net_id)?;
        }
        Ok(Spawned { net_id, sync_ids })
    }

    /// Sets the spawn state a node is spawned with from now on (for peers that join or come to
    /// see it later), as the engine reads its spawn properties' current values at each spawn:
    /// the values of the spawn properties in the order of the replication configs.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server; [`ServerError::Encode`] when a value of
    /// `state` cannot be encoded; [`ServerError::UnknownNode`] (naming the net id) when no node
    /// the server spawned has this net id. Nothing changes for these.
    pub fn set_spawn_state<A: Arg>(&mut self, net_id: u32, state: &[A]) -> Result<(), ServerError> {
        self.godot4("set_spawn_state (Godot 4)")?;
        let state = encode_all(state)?;
        let Some(node) = self.nodes.get_mut(&net_id) else {
            return Err(ServerError::UnknownNode(alloc::format!("net id {net_id}")));
        };
        node.packet.truncate(node.state_at);
        node.packet.extend_from_slice(&state);
        Ok(())
    }

    /// Shows (spawns) or hides (despawns) a spawned node for one peer, as a synchronizer's
    /// visibility does.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server, [`ServerError::UnknownPeer`] when
    /// `peer` has not joined, [`ServerError::UnknownNode`] (naming the net id) when no node the
    /// server spawned has this net id: nothing changes, nothing sent.
    pub fn set_visible(
        &mut self,
        net_id: u32,
        peer: PeerId,
        visible: bool,
    ) -> Result<(), ServerError> {
        self.godot4("set_visible (Godot 4)")?;
        if !self.has_peer(peer) {
            return Err(ServerError::UnknownPeer(peer));
        }
        let Some(node) = self.nodes.get_mut(&net_id) else {
            return Err(ServerError::UnknownNode(alloc::format!("net id {net_id}")));
        };
        if visible {
            node.hidden.remove(&peer);
        } else if node.public {
            node.hidden.insert(peer);
        }
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

    /// The node a synchronizer belongs to, and the synchronizer's position among its own.
    fn sync_node(&self, sync_id: u32) -> Result<(u32, usize), ServerError> {
        self.nodes
            .iter()
            .find_map(|(&id, n)| Some((id, n.sync_ids.iter().position(|&s| s == sync_id)?)))
            .ok_or_else(|| {
                ServerError::UnknownNode(alloc::format!("synchronizer net id {sync_id}"))
            })
    }

    /// The peers among `to` that see node `net_id`.
    fn seeing(&self, to: To, net_id: u32) -> Result<Vec<PeerId>, ServerError> {
        let targets = self.targets(to)?;
        Ok(match self.nodes.get(&net_id) {
            Some(node) => targets
                .into_iter()
                .filter(|p| node.visible.contains(p))
                .collect(),
            None => Vec::new(),
        })
    }

    /// Sends a synchronizer's "always" properties (`SYNC`, unreliable, as the engine sends it)
    /// to the peers among `to` that see its node; kept for the peers that see it later.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server, [`ServerError::UnknownNode`] when
    /// `sync_id` is no synchronizer of a node the server spawned, [`ServerError::UnknownPeer`]
    /// for a [`To::Peer`] that has not joined, [`ServerError::Encode`] when a value cannot be
    /// encoded or `values` is empty (the engine sends no entry without values). Nothing sent or
    /// kept for these.
    pub fn sync<A: Arg>(&mut self, to: To, sync_id: u32, values: &[A]) -> Result<(), ServerError> {
        self.godot4("sync (Godot 4)")?;
        let (net_id, i) = self.sync_node(sync_id)?;
        let peers = self.seeing(to, net_id)?;
        let always = encode_always(values)?;
        self.sync_time = self.sync_time.wrapping_add(1);
        let b: Arc<[u8]> = SyncBuilder::new(self.sync_time)
            .entry(sync_id, &[Encoded(&always)])?
            .finish()?
            .into();
        if let Some(st) = self.nodes.get_mut(&net_id).and_then(|n| n.state.get_mut(i)) {
            st.always = Some(always);
        }
        for p in peers {
            self.send(p, 0, TransferMode::Unreliable, b.clone());
        }
        Ok(())
    }

    /// Sends a synchronizer's changed "on change" properties (`DELTA`, reliable): bit i of
    /// `mask` for the i-th of them, `values` for the set bits in order (kept for the peers that
    /// see the node later: each property's latest value).
    ///
    /// # Errors
    ///
    /// As [`sync`](Self::sync); [`ServerError::Encode`] also when `mask` sets no bit or `values`
    /// is empty (a `DELTA` without entries), or `mask` does not set one bit per value. Nothing
    /// sent or kept for these.
    pub fn delta<A: Arg>(
        &mut self,
        to: To,
        sync_id: u32,
        mask: u64,
        values: &[A],
    ) -> Result<(), ServerError> {
        self.godot4("delta (Godot 4)")?;
        let (net_id, i) = self.sync_node(sync_id)?;
        let peers = self.seeing(to, net_id)?;
        let encoded = encode_changes(mask, values)?;
        let views: Vec<Encoded<'_>> = encoded.iter().map(|(_, v)| Encoded(v)).collect();
        let b: Arc<[u8]> = DeltaBuilder::new()
            .entry(sync_id, mask, &views)?
            .finish()?
            .into();
        if let Some(st) = self.nodes.get_mut(&net_id).and_then(|n| n.state.get_mut(i)) {
            st.on_change.extend(encoded);
        }
        for p in peers {
            self.send(p, 0, TransferMode::Reliable, b.clone());
        }
        Ok(())
    }

    /// Despawns a node from every peer that sees it, and forgets it.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server; [`ServerError::UnknownNode`] (naming
    /// the net id) when no node the server spawned has this net id, or it was despawned.
    /// Nothing sent for either.
    pub fn despawn(&mut self, net_id: u32) -> Result<(), ServerError> {
        self.godot4("despawn (Godot 4)")?;
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
            n.hidden.remove(&peer);
        }
    }
}

/// The net id after `id` (from 1; 0 is no net id).
fn next_id(id: u32) -> u32 {
    id.wrapping_add(1).max(1)
}
