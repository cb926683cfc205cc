//! What the core does with the packets peers send: authentication, the path cache, RPCs,
//! relaying, raw bytes; and the refusals, each with its reason.

use alloc::format;
use alloc::string::ToString;
use alloc::sync::Arc;
use alloc::vec::Vec;
use std::time::Instant;

use super::core::{AuthStep, ServerCore, State};
use super::schema::{relative, RpcMode};
use super::types::{Action, Event, Flavor, Outgoing, PeerId, RpcCall, TransferMode, SERVER_ID};
use crate::{godot3, NodeTarget, Packet, RpcMethods, SysKind, WireStr};

/// The most bytes of a path kept from a packet.
const MAX_PATH: usize = 4096;

impl ServerCore {
    /// A packet from `peer` on transfer `channel` in `mode`. `target` is the target the transport
    /// header named (Godot 3: the 8-byte ENet header's, the 9-byte WebSocket header's); Godot 4
    /// transports have none and pass 1. Never panics; whatever is wrong with the packet is
    /// reported as [`Event::Rejected`](super::Event::Rejected).
    pub fn receive(
        &mut self,
        peer: PeerId,
        channel: u8,
        mode: TransferMode,
        target: i32,
        bytes: &[u8],
        now: Instant,
    ) {
        if !self.peers.contains_key(&peer) || !self.count_packet(peer, now) {
            return;
        }
        match self.cfg.flavor {
            Flavor::Godot4 => self.receive4(peer, channel, mode, bytes),
            Flavor::Godot3 => self.receive3(peer, channel, mode, target, bytes),
        }
    }

    fn receive4(&mut self, peer: PeerId, channel: u8, mode: TransferMode, bytes: &[u8]) {
        let is_auth = bytes.len() >= 2 && bytes[0] & 7 == 7 && bytes[1] == 0;
        if let Some(State::Pending { local, remote, .. }) = self.peers.get(&peer).map(|p| &p.state)
        {
            let (local, remote) = (*local, *remote);
            if local && !is_auth {
                // The engine admits a peer it completed with at its first other packet.
                self.admit(peer);
            } else if !is_auth {
                return self.reject(
                    peer,
                    "packet before authentication (only [7][0] messages are taken)".to_string(),
                    false,
                );
            } else if bytes.len() == 2 {
                if let Some(p) = self.peers.get_mut(&peer) {
                    p.state = State::Pending {
                        local,
                        remote: true,
                        since: match p.state {
                            State::Pending { since, .. } => since,
                            State::Joined => Instant::now(),
                        },
                    };
                }
                if local && !remote {
                    self.admit(peer);
                }
                return;
            } else {
                let step = match self.auth.as_mut() {
                    Some(a) => a.data(peer, &bytes[2..]),
                    None => AuthStep::Wait,
                };
                return self.auth_step(peer, step);
            }
        }
        if is_auth {
            // A late confirmation from a joined peer: nothing to do.
            return;
        }
        if bytes.first().is_some_and(|b| b & 7 == 7) {
            return self.sys4(peer, channel, mode, bytes);
        }
        self.packet4(peer, peer, channel, mode, bytes);
    }

    fn sys4(&mut self, peer: PeerId, channel: u8, mode: TransferMode, bytes: &[u8]) {
        let sys = match crate::parse(bytes) {
            Ok(Packet::Sys(s)) => s,
            Ok(_) => return,
            Err(e) => return self.reject(peer, format!("malformed SYS packet: {e}"), false),
        };
        match sys.kind() {
            SysKind::Relay => {}
            k => {
                return self.reject(
                    peer,
                    format!("SYS {} from a client (only the server sends it)", k.name()),
                    false,
                )
            }
        }
        if !self.cfg.relay {
            return self.reject(peer, "relay while server_relay is off".to_string(), false);
        }
        let target = sys.peer().unwrap_or(0);
        let Some(inner) = sys.inner_bytes().filter(|b| !b.is_empty()) else {
            return self.reject(peer, "empty relay".to_string(), false);
        };
        if inner[0] & 7 == 7 {
            return self.reject(peer, "SYS packet inside a relay".to_string(), false);
        }
        let to: Vec<PeerId> = if target > 0 {
            if target == SERVER_ID || !self.has_peer(target) {
                return self.reject(peer, format!("relay to unknown peer {target}"), false);
            }
            alloc::vec![target]
        } else {
            self.peers()
                .filter(|&p| p != peer && (target == 0 || p != target.saturating_neg()))
                .collect()
        };
        if !to.is_empty() {
            let relayed: Arc<[u8]> = match crate::relay(peer, inner) {
                Ok(b) => b.into(),
                Err(e) => return self.reject(peer, format!("relay: {e}"), false),
            };
            for t in to {
                self.send(t, channel, mode, relayed.clone());
            }
        }
        if target == 0 || target < -1 {
            // The server runs it too, as the engine does (target -1 excludes the server).
            self.packet4(peer, peer, channel, mode, inner);
        }
    }

    /// A Godot 4 packet other than SYS, from `from` (the sender, or the relay's source).
    fn packet4(
        &mut self,
        peer: PeerId,
        from: PeerId,
        channel: u8,
        mode: TransferMode,
        bytes: &[u8],
    ) {
        let packet = match crate::parse(bytes) {
            Ok(p) => p,
            Err(e) => return self.reject(peer, format!("malformed packet: {e}"), false),
        };
        match packet {
            Packet::SimplifyPath(s) => {
                let Some(path) = path_str(s.path()) else {
                    return self.reject(peer, "SIMPLIFY_PATH with a bad path".to_string(), false);
                };
                let checksum = match self.schema.find(path) {
                    Some(node) => *node.checksum(),
                    // A synchronizer, a spawner have no RPCs.
                    None if self.schema.find_synchronizer(path).is_some()
                        || self.schema.is_client_spawner(path) =>
                    {
                        RpcMethods::new(core::iter::empty::<&str>()).checksum()
                    }
                    None => {
                        // The engine answers nothing for a node it does not have.
                        return self.reject(
                            peer,
                            format!("SIMPLIFY_PATH for unknown node {path:?}"),
                            false,
                        );
                    }
                };
                let valid = *s.checksum() == checksum;
                let id = s.id();
                let max = self.cfg.max_cached_paths;
                let Some(p) = self.peers.get_mut(&from) else {
                    return;
                };
                if p.paths.len() >= max && !p.paths.contains_key(&id) {
                    return self.reject(peer, format!("more than {max} cached paths"), true);
                }
                p.paths.insert(id, relative(path).into());
                self.send(
                    from,
                    0,
                    TransferMode::Reliable,
                    crate::confirm_path(valid, id).into(),
                );
                if !valid {
                    self.event(Event::Rejected {
                        peer,
                        reason: format!(
                            "RPC checksum mismatch for node {path:?} (confirmed as invalid)"
                        ),
                        kicked: false,
                    });
                }
            }
            Packet::ConfirmPath(c) => {
                let Some(id) = c.id() else { return };
                if let Some(p) = self.peers.get_mut(&from) {
                    if p.offered.contains(&id) {
                        p.confirmed.insert(id);
                        // As the engine, which confirms it all the same and prints an error.
                        if !c.valid() {
                            let i = (id as usize).checked_sub(1);
                            let path = i.and_then(|i| self.id_paths.get(i)).cloned();
                            self.event(Event::Rejected {
                                peer,
                                reason: format!(
                                    "RPC checksum mismatch for node {:?}: the peer's script \
                                     has other @rpc methods than the schema says (confirmed \
                                     as invalid)",
                                    path.as_deref().unwrap_or("?")
                                ),
                                kicked: false,
                            });
                        }
                        return self.static_confirmed(from, id);
                    }
                }
                self.reject(
                    peer,
                    format!("CONFIRM_PATH for id {id}, never offered"),
                    false,
                );
            }
            Packet::RemoteCall(call) => {
                let Some(path) = self.node_path(peer, from, call.node(), "RPC") else {
                    return;
                };
                let id = call.method();
                let resolved = self
                    .schema
                    .find(&path)
                    .map(|n| n.by_id(id).map(|s| (s.name().to_string(), s.mode())));
                let (name, rmode) = match resolved {
                    None => {
                        return self.reject(peer, format!("RPC on unknown node {path:?}"), false)
                    }
                    Some(None) => {
                        return self.reject(
                            peer,
                            format!("RPC method id {id} unknown on {path:?}"),
                            false,
                        )
                    }
                    Some(Some(x)) => x,
                };
                self.deliver(
                    peer, from, path, name, id, rmode, channel, mode, &packet, bytes,
                );
            }
            Packet::Sync(_) | Packet::Delta(_) => self.client_sync(peer, from, &packet),
            Packet::Spawn(s) => match packet.validate() {
                Ok(()) => self.client_spawn(peer, from, &s, bytes),
                Err(e) => self.reject(peer, format!("malformed SPAWN: {e}"), false),
            },
            Packet::Despawn(d) => self.client_despawn(peer, from, d.net_id()),
            Packet::Raw(r) => self.event(Event::Bytes {
                from,
                data: r.payload().to_vec(),
                channel,
                mode,
            }),
            other => self.reject(
                peer,
                format!(
                    "{} from a client is not handled by this server",
                    other.name()
                ),
                false,
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        peer: PeerId,
        from: PeerId,
        path: Arc<str>,
        method: alloc::string::String,
        id: u16,
        rmode: RpcMode,
        channel: u8,
        mode: TransferMode,
        packet: &dyn Validate,
        bytes: &[u8],
    ) {
        if rmode == RpcMode::Authority {
            return self.reject(
                peer,
                format!(
                    "RPC {path}.{method} is authority-only (the server's); refused from {from}"
                ),
                false,
            );
        }
        if let Err(e) = packet.check() {
            return self.reject(
                peer,
                format!("RPC {path}.{method}: bad argument: {e}"),
                false,
            );
        }
        self.event(Event::Rpc(RpcCall {
            from,
            path,
            method: method.into(),
            method_id: id,
            flavor: self.cfg.flavor,
            channel,
            mode,
            packet: bytes.to_vec(),
        }));
    }

    fn receive3(
        &mut self,
        peer: PeerId,
        channel: u8,
        mode: TransferMode,
        target: i32,
        bytes: &[u8],
    ) {
        if target != SERVER_ID {
            if !self.cfg.relay {
                return self.reject(
                    peer,
                    format!("relay to {target} while server_relay is off"),
                    false,
                );
            }
            let to: Vec<PeerId> = if target > 0 {
                if !self.has_peer(target) {
                    return self.reject(peer, format!("relay to unknown peer {target}"), false);
                }
                alloc::vec![target]
            } else {
                self.peers()
                    .filter(|&p| p != peer && (target == 0 || p != target.saturating_neg()))
                    .collect()
            };
            let shared: Arc<[u8]> = bytes.into();
            for t in to {
                self.actions.push_back(Action::Send(Outgoing {
                    to: t,
                    source: peer,
                    target,
                    channel,
                    mode,
                    bytes: shared.clone(),
                }));
            }
            if target > 0 || target == -SERVER_ID {
                return;
            }
        }
        let packet = match godot3::parse(bytes) {
            Ok(p) => p,
            Err(e) => return self.reject(peer, format!("malformed Godot 3 packet: {e}"), false),
        };
        match packet {
            godot3::Packet::SimplifyPath(s) => {
                let Some(path) = path_str(s.path()) else {
                    return self.reject(peer, "SIMPLIFY_PATH with a bad path".to_string(), false);
                };
                let max = self.cfg.max_cached_paths;
                let id = s.id();
                let Some(p) = self.peers.get_mut(&peer) else {
                    return;
                };
                if p.paths.len() >= max && !p.paths.contains_key(&id) {
                    return self.reject(peer, format!("more than {max} cached paths"), true);
                }
                p.paths.insert(id, relative(path).into());
                match godot3::confirm_path(path) {
                    Ok(b) => self.send(peer, 0, TransferMode::Reliable, b.into()),
                    Err(e) => self.reject(peer, format!("SIMPLIFY_PATH: {e}"), false),
                }
            }
            godot3::Packet::ConfirmPath(c) => {
                let id = path_str(c.path()).and_then(|p| self.path_ids.get(relative(p)).copied());
                match (id, self.peers.get_mut(&peer)) {
                    (Some(id), Some(p)) if p.offered.contains(&id) => {
                        p.confirmed.insert(id);
                    }
                    _ => self.reject(
                        peer,
                        "CONFIRM_PATH for a path never offered".to_string(),
                        false,
                    ),
                }
            }
            godot3::Packet::RemoteCall(call) => {
                let Some(path) = self.node_path(peer, peer, call.node(), "RPC") else {
                    return;
                };
                let Some(method) = call.method().as_str() else {
                    return self.reject(peer, "RPC with a bad method name".to_string(), false);
                };
                let resolved = self
                    .schema
                    .find(&path)
                    .map(|n| n.by_name(method).map(|(_, s)| s.mode()));
                let rmode = match resolved {
                    None => {
                        return self.reject(peer, format!("RPC on unknown node {path:?}"), false)
                    }
                    Some(None) => {
                        return self.reject(
                            peer,
                            format!("RPC method {method:?} unknown on {path:?}"),
                            false,
                        )
                    }
                    Some(Some(m)) => m,
                };
                let method = method.to_string();
                self.deliver(
                    peer, peer, path, method, 0, rmode, channel, mode, &packet, bytes,
                );
            }
            godot3::Packet::Raw(r) => self.event(Event::Bytes {
                from: peer,
                data: r.payload().to_vec(),
                channel,
                mode,
            }),
            godot3::Packet::RemoteSet(set) => {
                let Some(path) = self.node_path(peer, peer, set.node(), "rset") else {
                    return;
                };
                let Some(property) = set.property().as_str() else {
                    return self.reject(peer, "rset with a bad property name".to_string(), false);
                };
                let resolved = self
                    .schema
                    .find(&path)
                    .map(|n| n.by_property(property).map(|s| s.mode()));
                let rmode = match resolved {
                    None => {
                        return self.reject(peer, format!("rset on unknown node {path:?}"), false)
                    }
                    Some(None) => {
                        return self.reject(
                            peer,
                            format!("rset of property {property:?} unknown on {path:?}"),
                            false,
                        )
                    }
                    Some(Some(m)) => m,
                };
                if rmode == RpcMode::Authority {
                    return self.reject(
                        peer,
                        format!(
                            "rset {path}.{property} is the server's (puppet); refused from {peer}"
                        ),
                        false,
                    );
                }
                if let Err(e) = packet.validate() {
                    return self.reject(
                        peer,
                        format!("rset {path}.{property}: bad value: {e}"),
                        false,
                    );
                }
                self.event(Event::Rset(RpcCall {
                    from: peer,
                    path,
                    method: property.into(),
                    method_id: 0,
                    flavor: self.cfg.flavor,
                    channel,
                    mode,
                    packet: bytes.to_vec(),
                }));
            }
        }
    }
}

impl ServerCore {
    /// The node a call or an rset names, by `from`'s path cache id or inline; `None` (the packet
    /// refused) when it names none.
    fn node_path(
        &mut self,
        peer: PeerId,
        from: PeerId,
        node: NodeTarget<'_>,
        what: &str,
    ) -> Option<Arc<str>> {
        let path = match node {
            NodeTarget::Id(id) => self
                .peers
                .get(&from)
                .and_then(|p| p.paths.get(&id))
                .cloned()
                .ok_or_else(|| format!("{what} on unknown path id {id}")),
            NodeTarget::Path(p) => path_str(p)
                .map(|p| relative(p).into())
                .ok_or_else(|| format!("{what} with a bad inline path")),
        };
        match path {
            Ok(p) => Some(p),
            Err(why) => {
                self.reject(peer, why, false);
                None
            }
        }
    }
}

/// A packet whose values can be checked.
trait Validate {
    fn check(&self) -> gdvariant::Result<()>;
}

impl Validate for Packet<'_> {
    fn check(&self) -> gdvariant::Result<()> {
        self.validate()
    }
}

impl Validate for godot3::Packet<'_> {
    fn check(&self) -> gdvariant::Result<()> {
        self.validate()
    }
}

/// A path from a packet, if it is UTF-8, not empty and not too long.
fn path_str(s: WireStr<'_>) -> Option<&str> {
    s.as_str().filter(|p| !p.is_empty() && p.len() <= MAX_PATH)
}
