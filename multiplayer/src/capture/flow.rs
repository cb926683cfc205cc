//! The flows of a capture: one per TCP connection or UDP 5-tuple, each with its transport told
//! from its content, and the events they give.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::vec::Vec;

use super::config::Config;
use super::error::{Error, Place};
use super::event::{Control, FlowId, Transport};
use super::file::Record;
use super::link::{self, Parsed, Segment};
use super::tcp::{Budget, Chunk};
use crate::enet::fragments::{Limits, Reassembler};
use crate::enet::protocol::{Commands, Datagram};
use crate::enet::range_coder::RangeDecoder;
use crate::websocket::handshake::{self, Sniff};

/// Bytes a TCP direction may show before its transport is recognised.
const MAX_SNIFF: usize = handshake::MAX_HEAD;
/// UDP datagrams a flow may send before it is given up as not Godot's.
const MAX_UDP_TRIES: u32 = 8;
mod state;
mod transports;
pub(crate) use state::Out;
use state::{Dir, Enet, Flow, Meta, NumMap, Pending, WsKind};
use transports::{drop_unfinished, enet_datagram, is_value, plausible_header, put_var, websocket};

type Key = (SocketAddr, SocketAddr, bool);

/// Every flow followed.
pub(crate) struct Flows {
    config: Config,
    keys: HashMap<Key, FlowId>,
    /// The key and flow of the last packet (most packets follow one of their own flow's):
    /// spares hashing the addresses again.
    last: Option<(Key, FlowId)>,
    flows: NumMap<FlowId, Flow>,
    next_id: FlowId,
    budget: Budget,
    /// The bytes held for unfinished messages across the flows, within `config.max_pending`.
    pending: Pending,
    decoder: Option<Box<RangeDecoder>>,
    refused: bool,
    /// The unsupported link types already reported (their later records are skipped without a
    /// line each); at most `MAX_LINKS_TOLD` are remembered.
    links_told: Vec<u32>,
}

/// The most unsupported link types remembered as reported (a pcapng file may name many).
const MAX_LINKS_TOLD: usize = 16;

fn is_enet(p: &[u8], decoder: &mut Option<Box<RangeDecoder>>) -> bool {
    let Ok(dg) = Datagram::parse(p) else {
        return false;
    };
    let h = dg.header();
    let all_ok = |cmds: Commands<'_>| {
        let mut n = 0;
        for c in cmds {
            if c.is_err() {
                return false;
            }
            n += 1;
        }
        n > 0
    };
    if h.compressed {
        let dec = decoder.get_or_insert_with(Default::default);
        match dg.decompress_with(dec) {
            Ok(body) => all_ok(Commands::new(&body, h.size())),
            Err(_) => false,
        }
    } else {
        all_ok(dg.commands())
    }
}

impl Flows {
    pub(crate) fn new(config: Config) -> Flows {
        let budget = Budget {
            per_direction: config.max_early_per_direction,
            global: config.max_early,
            held: 0,
        };
        let pending = Pending {
            held: 0,
            max: config.max_pending,
        };
        Flows {
            config,
            keys: HashMap::new(),
            last: None,
            flows: NumMap::default(),
            next_id: 1,
            budget,
            pending,
            decoder: None,
            refused: false,
            links_told: Vec::new(),
        }
    }

    pub(crate) fn open(&self) -> usize {
        self.flows.len()
    }

    pub(crate) fn held(&self) -> usize {
        self.flows.values().map(Flow::held).sum()
    }

    /// Reads one captured packet.
    pub(crate) fn record(&mut self, n: u64, r: &Record<'_>, out: &mut Out) {
        out.time = r.time;
        out.record = n;
        // An unsupported link type is reported at its first record only.
        if !link::supported(r.link) {
            if self.links_told.contains(&r.link) {
                return;
            }
            if self.links_told.len() < MAX_LINKS_TOLD {
                self.links_told.push(r.link);
            }
        }
        let seg = match link::parse(r.link, r.data, r.orig_len) {
            Parsed::Segment(s) => s,
            Parsed::Skip => return,
            Parsed::Bad(e) => {
                let later = if link::supported(r.link) {
                    ""
                } else {
                    "; its later records are skipped"
                };
                out.orphan(Error::new(
                    format!("record {n}: {}{later}", e.what()),
                    Place::Packet,
                    e.offset(),
                ));
                return;
            }
        };
        let tcp = seg.tcp.is_some();
        let key = if seg.src <= seg.dst {
            (seg.src, seg.dst, tcp)
        } else {
            (seg.dst, seg.src, tcp)
        };
        let known = match self.last {
            Some((k, id)) if k == key => Some(id),
            _ => self.keys.get(&key).copied(),
        };
        let id = match known {
            Some(id) => id,
            None => {
                if let Some(t) = seg.tcp {
                    // A lone RST or FIN of a connection not followed: nothing to follow.
                    if (t.rst || t.fin) && seg.payload.is_empty() {
                        return;
                    }
                }
                if self.flows.len() >= self.config.max_flows {
                    if !self.refused {
                        self.refused = true;
                        out.orphan(Error::new(
                            format!(
                                "more than {} flows open at once: later flows are not followed",
                                self.config.max_flows
                            ),
                            Place::File,
                            r.offset,
                        ));
                    }
                    return;
                }
                let id = self.next_id;
                self.next_id += 1;
                self.keys.insert(key, id);
                let forced = self
                    .config
                    .decode_as
                    .iter()
                    .find(|(p, t)| {
                        t.is_tcp() == tcp && (*p == seg.src.port() || *p == seg.dst.port())
                    })
                    .map(|(_, t)| *t);
                let flow = Flow {
                    tcp: tcp.then(Default::default),
                    ended: [false; 2],
                    meta: Meta {
                        id,
                        addr: [seg.src, seg.dst],
                        client: 0,
                        transport: None,
                        gave_up: false,
                        tries: 0,
                        dialect: self.config.dialect,
                        peers: [None; 2],
                        ws: WsKind::Undecided,
                    },
                    dirs: Default::default(),
                    enet: None,
                };
                self.flows.insert(id, flow);
                if let Some(t) = forced {
                    let f = self.flows.get_mut(&id).expect("inserted");
                    f.meta.recognized(0, t, out);
                }
                id
            }
        };
        self.last = Some((key, id));
        let Some(flow) = self.flows.get_mut(&id) else {
            return;
        };
        let d = usize::from(seg.src != flow.meta.addr[0]);
        match seg.tcp {
            Some(t) => {
                let config = &self.config;
                let budget = &mut self.budget;
                let pending = &mut self.pending;
                let Flow {
                    tcp, meta, dirs, ..
                } = flow;
                let tcp = tcp.as_mut().expect("a TCP flow");
                if t.rst {
                    flow.ended = [true; 2];
                } else {
                    tcp[d].segment(t, seg.payload, seg.cut, budget, &mut |c| {
                        bounded(meta, dirs, d, c, config, pending, out)
                    });
                    if t.fin {
                        flow.ended[d] = true;
                    }
                }
                if flow.ended == [true; 2] {
                    self.close(id, t.rst, out);
                }
            }
            None => self.datagram(id, d, &seg, out),
        }
    }

    /// Ends a TCP flow: what is held goes on after gaps, then the flow is forgotten.
    fn close(&mut self, id: FlowId, reset: bool, out: &mut Out) {
        let Some(mut flow) = self.flows.remove(&id) else {
            return;
        };
        let key = {
            let [a, b] = flow.meta.addr;
            if a <= b {
                (a, b, true)
            } else {
                (b, a, true)
            }
        };
        self.keys.remove(&key);
        if self.last.is_some_and(|(k, _)| k == key) {
            self.last = None;
        }
        let config = &self.config;
        let budget = &mut self.budget;
        let pending = &mut self.pending;
        let Flow {
            tcp, meta, dirs, ..
        } = &mut flow;
        if let Some(tcp) = tcp.as_mut() {
            for (d, t) in tcp.iter_mut().enumerate() {
                t.flush(budget, &mut |c| {
                    bounded(meta, dirs, d, c, config, pending, out)
                });
                t.release(budget);
            }
        }
        pending.held -= dirs[0].held() + dirs[1].held();
        for (d, dir) in flow.dirs.iter().enumerate() {
            if flow.meta.transport.is_some()
                && !dir.broken
                && (!dir.pending.is_empty() || dir.skip > 0)
            {
                let e = Error::new(
                    format!(
                        "the connection ended inside a {} (the last {} bytes)",
                        match flow.meta.transport {
                            Some(Transport::WebSocket) if dir.ws.is_none() => "handshake",
                            Some(Transport::WebSocket) => "frame",
                            _ => "value",
                        },
                        dir.pending.len() as u64 + dir.skip
                    ),
                    Place::Stream,
                    dir.at,
                );
                flow.meta.error(d, out, e);
            }
        }
        if flow.meta.transport.is_some() {
            flow.meta.control(0, out, Control::End { reset });
        }
    }

    /// The capture ended: every TCP flow's held segments go on after gaps.
    pub(crate) fn finish(&mut self, out: &mut Out) {
        out.record = 0;
        let mut ids: Vec<FlowId> = self
            .flows
            .iter()
            .filter(|(_, f)| f.tcp.is_some())
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        for id in ids {
            let config = &self.config;
            let budget = &mut self.budget;
            let pending = &mut self.pending;
            if let Some(flow) = self.flows.get_mut(&id) {
                let Flow {
                    tcp, meta, dirs, ..
                } = flow;
                if let Some(tcp) = tcp.as_mut() {
                    for (d, t) in tcp.iter_mut().enumerate() {
                        t.flush(budget, &mut |c| {
                            bounded(meta, dirs, d, c, config, pending, out)
                        });
                        t.release(budget);
                    }
                }
            }
        }
    }

    fn datagram(&mut self, id: FlowId, d: usize, seg: &Segment<'_>, out: &mut Out) {
        let Some(flow) = self.flows.get_mut(&id) else {
            return;
        };
        let meta = &mut flow.meta;
        if let Some(wire) = seg.cut {
            if meta.transport.is_some() {
                let e = Error::new(
                    format!(
                        "datagram cut by the snap length: {} of {wire} bytes captured",
                        seg.payload.len()
                    ),
                    Place::Datagram,
                    seg.payload.len() as u64,
                );
                meta.error(d, out, e);
            }
            return;
        }
        let p = seg.payload;
        if meta.transport.is_none() {
            if meta.gave_up || p.is_empty() {
                return;
            }
            if is_enet(p, &mut self.decoder) {
                meta.recognized(d, Transport::Enet, out);
            } else if is_value(p) {
                meta.recognized(d, Transport::Udp, out);
            } else {
                meta.tries += 1;
                if meta.tries >= MAX_UDP_TRIES {
                    meta.gave_up = true;
                    meta.control(d, out, Control::Unrecognized);
                }
                return;
            }
        }
        match meta.transport {
            Some(Transport::Udp) => {
                if p.is_empty() {
                    return;
                }
                meta.value(d, out, p);
            }
            Some(Transport::Enet) => {
                let limits = Limits {
                    max_packet_size: self.config.max_message,
                    max_pending_bytes: self.config.max_early,
                };
                let enet = flow.enet.get_or_insert_with(|| {
                    Box::new(Enet {
                        fragments: Reassembler::new(limits),
                        reliable: NumMap::default(),
                        disconnected: false,
                    })
                });
                let before = enet.fragments.pending_bytes();
                enet_datagram(meta, enet, &mut self.decoder, d, p, out);
                // Fragments not put together yet count with the early TCP segments, in one bound
                // across every flow.
                let after = enet.fragments.pending_bytes();
                self.budget.held = self.budget.held + after - before;
                if self.budget.held > self.budget.global {
                    enet.fragments.clear();
                    self.budget.held -= after;
                    let e = Error::new(
                        format!(
                            "more than {} bytes held for unfinished TCP streams and ENet packets \
                             across the flows: this flow's unfinished fragments are dropped",
                            self.budget.global
                        ),
                        Place::Datagram,
                        0,
                    );
                    meta.error(d, out, e);
                }
                if enet.disconnected {
                    self.budget.held -= enet.fragments.pending_bytes();
                    // The peer went: its fragments and sequence numbers are of no more use
                    // (the flow itself stays, for the datagrams that acknowledge the end).
                    flow.enet = None;
                    meta.control(d, out, Control::End { reset: false });
                }
            }
            _ => {}
        }
    }
}

/// [`stream`] within the bound on every flow's unfinished messages: when the flow's directions
/// hold more than their share, the message direction `d` assembles is dropped (and the other
/// direction's, when recognising the transport gave it its bytes).
fn bounded(
    meta: &mut Meta,
    dirs: &mut [Dir; 2],
    d: usize,
    c: Chunk<'_>,
    config: &Config,
    pending: &mut Pending,
    out: &mut Out,
) {
    let before = dirs[0].held() + dirs[1].held();
    stream(meta, dirs, d, c, config, out);
    let others = pending.held - before;
    let mut after = dirs[0].held() + dirs[1].held();
    for dd in [d, 1 - d] {
        if others + after <= pending.max {
            break;
        }
        if dirs[dd].held() > 0 {
            drop_unfinished(meta, &mut dirs[dd], dd, pending.max, out);
            after = dirs[0].held() + dirs[1].held();
        }
    }
    pending.held = others + after;
}

/// Hands reassembled bytes of direction `d` to the flow's transport.
fn stream(
    meta: &mut Meta,
    dirs: &mut [Dir; 2],
    d: usize,
    c: Chunk<'_>,
    config: &Config,
    out: &mut Out,
) {
    match c {
        Chunk::Gap { at, len } => {
            if meta.transport.is_none() && meta.gave_up {
                return;
            }
            meta.control(d, out, Control::Gap { at, len });
            let dir = &mut dirs[d];
            dir.pending.clear();
            dir.skip = 0;
            dir.at = at + len;
            match meta.transport {
                Some(Transport::PutVar) | None => dir.resync = meta.transport.is_some(),
                Some(Transport::WebSocket) if !dir.broken => {
                    dir.broken = true;
                    dir.ws = None;
                    let e = Error::new(
                        "WebSocket frames cannot be followed past a gap: the rest of this \
                         direction is not read",
                        Place::Stream,
                        at + len,
                    );
                    meta.error(d, out, e);
                }
                _ => {}
            }
        }
        Chunk::Data(at, bytes) => {
            if dirs[d].broken {
                return;
            }
            match meta.transport {
                None => {
                    if meta.gave_up {
                        return;
                    }
                    dirs[d].append(at, bytes);
                    sniff(meta, dirs, d, config, out);
                }
                Some(Transport::PutVar) => {
                    dirs[d].append(at, bytes);
                    put_var(meta, &mut dirs[d], d, config, out);
                }
                Some(Transport::WebSocket) => {
                    websocket(meta, &mut dirs[d], d, at, bytes, config, out)
                }
                Some(_) => {}
            }
        }
    }
}

/// Tells a TCP flow's transport from the bytes direction `d` sent first.
fn sniff(meta: &mut Meta, dirs: &mut [Dir; 2], d: usize, config: &Config, out: &mut Out) {
    let p = &dirs[d].pending;
    let t = match handshake::sniff(p) {
        Sniff::Request | Sniff::Response => Some(Transport::WebSocket),
        Sniff::NeedMore if p.len() < MAX_SNIFF => return,
        _ if p.len() < 8 => return,
        _ => {
            let n = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
            let h = [p[4], p[5], p[6], p[7]];
            (n >= 4 && n <= config.max_message && plausible_header(h)).then_some(Transport::PutVar)
        }
    };
    let Some(t) = t else {
        meta.gave_up = true;
        meta.control(d, out, Control::Unrecognized);
        dirs[0].pending = Vec::new();
        dirs[1].pending = Vec::new();
        return;
    };
    meta.recognized(d, t, out);
    for dd in [d, 1 - d] {
        let pending = core::mem::take(&mut dirs[dd].pending);
        let at = dirs[dd].at;
        if !pending.is_empty() {
            stream(meta, dirs, dd, Chunk::Data(at, &pending), config, out);
        }
    }
}
