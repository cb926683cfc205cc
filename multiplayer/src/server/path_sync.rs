//! `MultiplayerSynchronizer`s outside spawned nodes (Godot 4), named by their paths: the
//! server's own, whose state it sends under bit 31 and its path cache id of the synchronizer
//! once the peer confirmed the path (as the engine's `_verify_synchronizer` does), to the peers
//! that see it (`public_visibility`, `set_visibility_for`), and the clients' (client
//! authority), whose `SYNC` and `DELTA` entries reach the application.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::core::ServerCore;
use super::replication::{encode_always, encode_changes, Encoded};
use super::types::{
    Event, PeerId, ServerError, StaticSync, SyncState, SyncUpdate, To, TransferMode,
};
use crate::{delta_properties, sync_properties, Arg, DeltaBuilder, Packet, SyncBuilder};

/// Bit 31 of a net id: the rest is a path cache id.
const PATH_BIT: u32 = 0x8000_0000;

impl ServerCore {
    /// The synchronizer at `path` is the server's from now on; its path relative to the root.
    fn static_sync(&mut self, path: &str) -> Arc<str> {
        let path = super::schema::relative(path);
        if let Some((k, _)) = self.statics.get_key_value(path) {
            return k.clone();
        }
        let order = self.statics.len();
        let path: Arc<str> = path.into();
        self.statics.insert(
            path.clone(),
            StaticSync {
                order,
                state: SyncState::default(),
                public: true,
                shown: HashSet::new(),
            },
        );
        path
    }

    /// Our cache id of `path` if `peer` confirmed it; if it was never offered, offers it
    /// (`SIMPLIFY_PATH`, the checksum of a node without RPCs, as a synchronizer is). The id is
    /// made at the first offer, as the engine makes it at the first peer it syncs with.
    fn static_ready(&mut self, peer: PeerId, path: &str) -> Result<Option<u32>, ServerError> {
        let id = self.offer_plain(peer, path)?;
        Ok(self
            .peers
            .get(&peer)
            .is_some_and(|p| p.confirmed.contains(&id))
            .then_some(id))
    }

    /// Sends the "always" properties (`SYNC`, unreliable) of the server's synchronizer at `path`
    /// (relative to the root; a `MultiplayerSynchronizer` of the clients' scenes, not under a
    /// spawned node, whose authority is the server) to the peers among `to`, under its net id:
    /// bit 31 and the server's cache id of the path.
    ///
    /// As in the engine, such a synchronizer is public unless made otherwise
    /// ([`set_path_public`](Self::set_path_public)): a peer that sees it first gets its path
    /// (`SIMPLIFY_PATH`), and its state once it confirmed the path: then the last `SYNC` and one
    /// `DELTA` with every "on change" value sent so far. Peers that join later get it too; peers
    /// among `to` that do not see it get nothing.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server, [`ServerError::UnknownPeer`] for a
    /// [`To::Peer`] that has not joined, [`ServerError::Encode`] for a value that cannot be
    /// encoded or no value (the engine sends no entry without values): nothing sent or kept.
    /// [`ServerError::Encode`] too when `path` has a NUL byte and a peer among `to` that sees it
    /// was never offered it: the synchronizer is the server's all the same, its state not kept,
    /// nothing sent.
    pub fn sync_path<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        values: &[A],
    ) -> Result<(), ServerError> {
        self.godot4("sync_path (Godot 4)")?;
        let targets = self.targets(to)?;
        let always = encode_always(values)?;
        let path = self.static_sync(path);
        let targets = self.seeing_path(targets, &path);
        self.sync_time = self.sync_time.wrapping_add(1);
        let time = self.sync_time;
        for p in targets {
            if let Some(id) = self.static_ready(p, &path)? {
                let b = SyncBuilder::new(time)
                    .entry(PATH_BIT | id, &[Encoded(&always)])?
                    .finish()?;
                self.send(p, 0, TransferMode::Unreliable, b.into());
            }
        }
        if let Some(s) = self.statics.get_mut(&path) {
            s.state.always = Some(always);
        }
        Ok(())
    }

    /// Sends the changed "on change" properties (`DELTA`, reliable) of the server's
    /// synchronizer at `path`: bit i of `mask` for the i-th of them, `values` for the set bits
    /// in order; as [`sync_path`](Self::sync_path) otherwise.
    ///
    /// # Errors
    ///
    /// As [`sync_path`](Self::sync_path); [`ServerError::Encode`] also, nothing sent or kept,
    /// when `mask` sets no bit or `values` is empty (a `DELTA` without entries), or `mask` does
    /// not set one bit per value.
    pub fn delta_path<A: Arg>(
        &mut self,
        to: To,
        path: &str,
        mask: u64,
        values: &[A],
    ) -> Result<(), ServerError> {
        self.godot4("delta_path (Godot 4)")?;
        let targets = self.targets(to)?;
        let encoded = encode_changes(mask, values)?;
        let views: Vec<Encoded<'_>> = encoded.iter().map(|(_, v)| Encoded(v)).collect();
        let path = self.static_sync(path);
        let targets = self.seeing_path(targets, &path);
        for p in targets {
            if let Some(id) = self.static_ready(p, &path)? {
                let b = DeltaBuilder::new()
                    .entry(PATH_BIT | id, mask, &views)?
                    .finish()?;
                self.send(p, 0, TransferMode::Reliable, b.into());
            }
        }
        if let Some(s) = self.statics.get_mut(&path) {
            s.state.on_change.extend(encoded);
        }
        Ok(())
    }

    /// The peers `to` names to which an RPC on the node at `path` goes, as the engine's
    /// `is_rpc_visible` has it: a node that is the root (the parent) of some of the server's
    /// synchronizers, to the peers that see one of them; any other node, to every peer.
    pub(crate) fn rpc_targets(&self, to: To, path: &str) -> Result<Vec<PeerId>, ServerError> {
        let mut targets = self.targets(to)?;
        if self.statics.is_empty() {
            return Ok(targets);
        }
        let roots: Vec<&StaticSync> = self
            .statics
            .iter()
            .filter(|(p, _)| p.rsplit_once('/').is_some_and(|(root, _)| root == path))
            .map(|(_, s)| s)
            .collect();
        if roots.is_empty() {
            return Ok(targets);
        }
        targets.retain(|&t| roots.iter().any(|s| s.visible_to(t)));
        match to {
            To::Peer(peer) if targets.is_empty() => Err(ServerError::NotVisible {
                peer,
                path: path.to_string(),
            }),
            _ => Ok(targets),
        }
    }

    /// The peers among `targets` that see the server's synchronizer at `path`.
    fn seeing_path(&self, mut targets: Vec<PeerId>, path: &str) -> Vec<PeerId> {
        if let Some(s) = self.statics.get(path) {
            targets.retain(|&p| s.visible_to(p));
        }
        targets
    }

    /// Makes the server's synchronizer at `path` visible to every peer or not
    /// (`MultiplayerSynchronizer.public_visibility`, true unless set otherwise); the peers shown
    /// it one by one ([`set_path_visible`](Self::set_path_visible)) keep seeing it. Can be set
    /// before its first [`sync_path`](Self::sync_path), before any peer joins.
    ///
    /// As the engine does at its next network frame: a peer that comes to see it gets its path
    /// (`SIMPLIFY_PATH`) if it never had it, and once the path is confirmed, its state as a
    /// joining peer gets it (the last `SYNC`, and a `DELTA` with every "on change" value sent so
    /// far, the engine's watch of that peer being reset); a peer that stops seeing it is sent
    /// nothing (no despawn: the node stays on the client as it was), and nothing more of it.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server: nothing changes.
    /// [`ServerError::Encode`] when `path` has a NUL byte and a joined peer never offered it
    /// comes to see the synchronizer: the setting is made all the same, nothing sent.
    pub fn set_path_public(&mut self, path: &str, public: bool) -> Result<(), ServerError> {
        self.godot4("set_path_public (Godot 4)")?;
        let path = self.static_sync(path);
        let peers: Vec<PeerId> = self.peers().collect();
        let before: Vec<bool> = peers.iter().map(|&p| self.sees(&path, p)).collect();
        if let Some(s) = self.statics.get_mut(&path) {
            s.public = public;
        }
        for (p, was) in peers.into_iter().zip(before) {
            if !was && self.sees(&path, p) {
                self.show_path(p, &path)?;
            }
        }
        Ok(())
    }

    /// Shows or hides the server's synchronizer at `path` to one peer
    /// (`MultiplayerSynchronizer.set_visibility_for(peer, visible)`): a peer sees it while it is
    /// public or shown to that peer, so hiding a public synchronizer from one peer takes
    /// [`set_path_public`](Self::set_path_public)`(path, false)` and showing it to the others.
    /// What the peer is sent is as [`set_path_public`](Self::set_path_public) says.
    ///
    /// # Errors
    ///
    /// [`ServerError::Unsupported`] on a Godot 3 server, [`ServerError::UnknownPeer`] when
    /// `peer` has not joined: nothing changes; [`ServerError::Encode`] when `path` has a NUL byte
    /// and the peer, never offered it, comes to see the synchronizer: the setting is made all the
    /// same, nothing sent.
    pub fn set_path_visible(
        &mut self,
        path: &str,
        peer: PeerId,
        visible: bool,
    ) -> Result<(), ServerError> {
        self.godot4("set_path_visible (Godot 4)")?;
        if !self.has_peer(peer) {
            return Err(ServerError::UnknownPeer(peer));
        }
        let path = self.static_sync(path);
        let was = self.sees(&path, peer);
        if let Some(s) = self.statics.get_mut(&path) {
            if visible {
                s.shown.insert(peer);
            } else {
                s.shown.remove(&peer);
            }
        }
        if !was && self.sees(&path, peer) {
            self.show_path(peer, &path)?;
        }
        Ok(())
    }

    /// Whether `peer` sees the server's synchronizer at `path` (a path relative to the root),
    /// as [`set_path_public`](Self::set_path_public) and
    /// [`set_path_visible`](Self::set_path_visible) made it: `true` for a path never driven
    /// (public, as the engine's synchronizers are by default).
    pub fn path_visible(&self, path: &str, peer: PeerId) -> bool {
        self.sees(super::schema::relative(path), peer)
    }

    fn sees(&self, path: &str, peer: PeerId) -> bool {
        self.statics.get(path).map_or(true, |s| s.visible_to(peer))
    }

    /// `peer` came to see the synchronizer at `path`: its path if it never had it, its state if
    /// it confirmed the path.
    fn show_path(&mut self, peer: PeerId, path: &Arc<str>) -> Result<(), ServerError> {
        if let Some(id) = self.static_ready(peer, path)? {
            self.catch_up_path(peer, id);
        }
        Ok(())
    }

    /// A peer left: it sees none of the server's synchronizers any more.
    pub(crate) fn forget_path_visibility(&mut self, peer: PeerId) {
        for s in self.statics.values_mut() {
            s.shown.remove(&peer);
        }
    }

    /// A peer joined: it gets the paths of the server's synchronizers that it sees, as the
    /// engine's `on_peer_change` makes them visible to it (their state follows the
    /// confirmations); a path that cannot be sent is an [`Event::NotSent`].
    pub(crate) fn offer_static_syncs(&mut self, peer: PeerId) {
        let mut paths: Vec<(usize, Arc<str>)> = self
            .statics
            .iter()
            .filter(|(_, s)| s.visible_to(peer))
            .map(|(p, s)| (s.order, p.clone()))
            .collect();
        paths.sort_unstable();
        for (_, path) in paths {
            if let Err(e) = self.static_ready(peer, &path) {
                self.event(Event::NotSent {
                    peer,
                    what: format!("synchronizer {path:?}"),
                    reason: e.to_string(),
                });
            }
        }
    }

    /// `peer` confirmed our path `id`: if it is one of the server's synchronizers and the peer
    /// sees it, the peer gets its last state (the engine sends it at its next network frame).
    pub(crate) fn static_confirmed(&mut self, peer: PeerId, id: u32) {
        self.catch_up_path(peer, id);
    }

    /// Sends `peer` the last state of the server's synchronizer whose path has our cache id
    /// `id`, if the peer sees it: the last `SYNC`, and one `DELTA` with every "on change" value.
    fn catch_up_path(&mut self, peer: PeerId, id: u32) {
        let Some(StaticSync { state, .. }) = self
            .id_paths
            .get((id as usize).wrapping_sub(1))
            .and_then(|p| self.statics.get(p))
            .filter(|s| s.visible_to(peer))
        else {
            return;
        };
        let net_id = PATH_BIT | id;
        let sync = state.always.as_ref().map(|always| {
            SyncBuilder::new(0)
                .entry(net_id, &[Encoded(always)])
                .and_then(SyncBuilder::finish)
        });
        let delta = (!state.on_change.is_empty()).then(|| {
            let mask = state.on_change.keys().fold(0u64, |m, &i| m | 1 << i);
            let values: Vec<Encoded<'_>> = state.on_change.values().map(|v| Encoded(v)).collect();
            DeltaBuilder::new()
                .entry(net_id, mask, &values)
                .and_then(DeltaBuilder::finish)
        });
        // Both were built from these values before.
        if let Some(Ok(mut packet)) = sync {
            self.sync_time = self.sync_time.wrapping_add(1);
            packet[1..3].copy_from_slice(&self.sync_time.to_le_bytes());
            self.send(peer, 0, TransferMode::Unreliable, packet.into());
        }
        if let Some(Ok(packet)) = delta {
            self.send(peer, 0, TransferMode::Reliable, packet.into());
        }
    }

    /// A `SYNC` or `DELTA` from a client (`from`; `peer` sent it): each entry for a synchronizer
    /// of the schema that the client cached with us is delivered as [`Event::Sync`].
    pub(crate) fn client_sync(&mut self, peer: PeerId, from: PeerId, packet: &Packet<'_>) {
        if let Err(e) = packet.validate() {
            return self.reject(peer, format!("malformed {}: {e}", packet.name()), false);
        }
        // (net id, time, mask, values)
        let entries: Vec<(u32, u16, Option<u64>, &[u8])> = match packet {
            Packet::Sync(s) => s
                .entries()
                .filter_map(Result::ok)
                .map(|e| (e.net_id(), s.time(), None, e.value_bytes()))
                .collect(),
            Packet::Delta(d) => d
                .entries()
                .filter_map(Result::ok)
                .map(|e| (e.net_id(), 0, Some(e.mask()), e.value_bytes()))
                .collect(),
            _ => return,
        };
        for (net_id, time, mask, values) in entries {
            if let Err(why) = self.client_entry(from, net_id, time, mask, values) {
                self.reject(peer, why, false);
            }
        }
    }

    fn client_entry(
        &mut self,
        from: PeerId,
        net_id: u32,
        time: u16,
        mask: Option<u64>,
        values: &[u8],
    ) -> Result<(), String> {
        let kind = if mask.is_some() { "DELTA" } else { "SYNC" };
        if net_id & PATH_BIT == 0 {
            return self.spawned_entry(from, net_id, time, mask, values);
        }
        let id = net_id & !PATH_BIT;
        let path = self
            .peers
            .get(&from)
            .and_then(|p| p.paths.get(&id))
            .cloned()
            .ok_or_else(|| format!("{kind} on unknown path id {id}"))?;
        if self.statics.contains_key(&path) {
            return Err(format!(
                "{kind} for {path:?} from {from}: the server is its authority"
            ));
        }
        let props = self
            .schema
            .find_synchronizer(&path)
            .ok_or_else(|| format!("{kind} for {path:?}, not a synchronizer of the schema"))?;
        let properties: Vec<String> = match mask {
            None => sync_properties(props).map(|p| p.name.to_string()).collect(),
            Some(m) => delta_properties(props, m)
                .map(|p| p.name.to_string())
                .collect(),
        };
        self.event(Event::Sync(SyncUpdate {
            from,
            path,
            spawned: None,
            net_id,
            time,
            mask,
            properties,
            values: values.to_vec(),
        }));
        Ok(())
    }

    /// An entry for a synchronizer of a node `from` spawned, by the net id of its spawn.
    fn spawned_entry(
        &mut self,
        from: PeerId,
        net_id: u32,
        time: u16,
        mask: Option<u64>,
        values: &[u8],
    ) -> Result<(), String> {
        let kind = if mask.is_some() { "DELTA" } else { "SYNC" };
        let s = self.spawned_sync(from, net_id).ok_or_else(|| {
            format!("{kind} for net id {net_id}: no synchronizer of a node peer {from} spawned")
        })?;
        let props = self
            .schema
            .find_spawned(&s.spawner, s.scene, s.index)
            .ok_or_else(|| {
                format!(
                    "{kind} for synchronizer {} of node {} on {:?}: no spawned line names its properties",
                    s.index, s.node, s.spawner
                )
            })?;
        let properties: Vec<String> = match mask {
            None => sync_properties(props).map(|p| p.name.to_string()).collect(),
            Some(m) => delta_properties(props, m)
                .map(|p| p.name.to_string())
                .collect(),
        };
        self.event(Event::Sync(SyncUpdate {
            from,
            path: s.spawner,
            spawned: Some((s.node, s.index)),
            net_id,
            time,
            mask,
            properties,
            values: values.to_vec(),
        }));
        Ok(())
    }
}
