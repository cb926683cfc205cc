//! The flows of a capture: one per TCP connection or UDP 5-tuple, each with its transport told
//! from its content, and the events they give.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::SocketAddr;
use std::ops::Range;
use std::vec::Vec;

use gdvariant::{Dialect, ReadOptions};

use super::config::Config;
use super::error::{Error, Place};
use super::event::{Body, Channel, Control, Event, FlowId, Timestamp, Transport};
use super::file::Record;
use super::link::{self, Parsed, Segment};
use super::tcp::{Budget, Chunk, Direction};
use crate::enet::fragments::{Limits, Progress, Reassembler};
use crate::enet::godot::{self as enet_godot, Packet3};
use crate::enet::protocol::{Command, CommandKind, Commands, Datagram};
use crate::enet::range_coder::RangeDecoder;
use crate::websocket::godot::{
    parse_godot3, Godot3Message, Godot3Sys, Godot4Message, Godot4Stream,
};
use crate::websocket::handshake::{self, Head as HttpHead, Sniff};
use crate::websocket::{FrameConfig, Message, MessageConfig, MessageReader};

/// Bytes a TCP direction may show before its transport is recognised.
const MAX_SNIFF: usize = handshake::MAX_HEAD;
/// UDP datagrams a flow may send before it is given up as not Godot's.
const MAX_UDP_TRIES: u32 = 8;
/// Bytes kept while looking for the next value of a `put_var` stream after a gap.
const MAX_RESYNC: usize = 1 << 20;

mod transports;
use transports::{enet_datagram, put_var, websocket};

#[derive(Clone, Debug)]
enum RecBody {
    Value(Range<usize>, Dialect),
    Packet(Range<usize>, Dialect),
    Control(Control),
    Error(Error),
}

#[derive(Clone, Debug)]
struct Rec {
    head: Head,
    channel: Option<Channel>,
    from_peer: Option<i32>,
    to_peer: Option<i32>,
    body: RecBody,
}

/// What every event of one packet in one direction shares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head {
    time: Timestamp,
    record: u64,
    flow: FlowId,
    src: SocketAddr,
    dst: SocketAddr,
    from_client: bool,
    transport: Option<Transport>,
}

/// The events of the packet being read: their bytes in one arena.
#[derive(Debug, Default)]
pub(crate) struct Out {
    arena: Vec<u8>,
    recs: Vec<Rec>,
    next: usize,
    time: Timestamp,
    record: u64,
}

const NOWHERE: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
    std::net::Ipv4Addr::UNSPECIFIED,
    0,
));

impl Out {
    pub(crate) fn pending(&self) -> bool {
        self.next < self.recs.len()
    }

    pub(crate) fn clear(&mut self) {
        self.arena.clear();
        self.recs.clear();
        self.next = 0;
    }

    pub(crate) fn take(&mut self) -> Option<Event<'_>> {
        let r = self.recs.get(self.next)?;
        self.next += 1;
        let body = match &r.body {
            RecBody::Value(range, d) => Body::Value {
                bytes: &self.arena[range.clone()],
                dialect: *d,
            },
            RecBody::Packet(range, d) => Body::Packet {
                bytes: &self.arena[range.clone()],
                dialect: *d,
            },
            RecBody::Control(c) => Body::Control(*c),
            RecBody::Error(e) => Body::Error(e.clone()),
        };
        Some(Event {
            time: r.head.time,
            record: r.head.record,
            flow: r.head.flow,
            src: r.head.src,
            dst: r.head.dst,
            from_client: r.head.from_client,
            transport: r.head.transport,
            channel: r.channel,
            from_peer: r.from_peer,
            to_peer: r.to_peer,
            body,
        })
    }

    /// An error of no flow.
    pub(crate) fn orphan(&mut self, e: Error) {
        let head = Head {
            time: self.time,
            record: self.record,
            flow: 0,
            src: NOWHERE,
            dst: NOWHERE,
            from_client: false,
            transport: None,
        };
        self.push(head, None, None, None, RecBody::Error(e));
    }

    fn push(
        &mut self,
        head: Head,
        channel: Option<Channel>,
        from_peer: Option<i32>,
        to_peer: Option<i32>,
        body: RecBody,
    ) {
        self.recs.push(Rec {
            head,
            channel,
            from_peer,
            to_peer,
            body,
        });
    }

    fn bytes(&mut self, b: &[u8]) -> Range<usize> {
        let start = self.arena.len();
        self.arena.extend_from_slice(b);
        start..self.arena.len()
    }
}

/// What kind of WebSocket traffic a flow carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WsKind {
    Undecided,
    Godot4,
    Godot3,
    Values,
}

/// What a flow knows, shared by its directions.
#[derive(Debug)]
struct Meta {
    id: FlowId,
    /// Index 0: the first sender's address, 1: the other's.
    addr: [SocketAddr; 2],
    client: usize,
    transport: Option<Transport>,
    gave_up: bool,
    tries: u32,
    dialect: Option<Dialect>,
    peers: [Option<i32>; 2],
    ws: WsKind,
}

impl Meta {
    fn head(&self, d: usize, out: &Out) -> Head {
        Head {
            time: out.time,
            record: out.record,
            flow: self.id,
            src: self.addr[d],
            dst: self.addr[1 - d],
            from_client: d == self.client,
            transport: self.transport,
        }
    }

    fn emit(&self, d: usize, out: &mut Out, body: RecBody, channel: Option<Channel>) {
        let head = self.head(d, out);
        out.push(head, channel, self.peers[d], self.peers[1 - d], body);
    }

    fn control(&self, d: usize, out: &mut Out, c: Control) {
        self.emit(d, out, RecBody::Control(c), None);
    }

    fn error(&self, d: usize, out: &mut Out, e: Error) {
        self.emit(d, out, RecBody::Error(e), None);
    }

    /// The dialect of a value: the flow's once a value told it, else the value's own.
    fn value_dialect(&mut self, v: &[u8]) -> Dialect {
        if let Some(d) = self.dialect {
            return d;
        }
        let det = Dialect::detect(v);
        match det.dialect() {
            Some(d) => {
                self.dialect = Some(d);
                d
            }
            None => Dialect::Godot4,
        }
    }

    fn value(&mut self, d: usize, out: &mut Out, v: &[u8]) {
        let dialect = self.value_dialect(v);
        let range = out.bytes(v);
        self.emit(d, out, RecBody::Value(range, dialect), None);
    }

    fn recognized(&mut self, d: usize, t: Transport, out: &mut Out) {
        self.transport = Some(t);
        self.control(d, out, Control::Recognized(t));
    }
}

/// A WebSocket direction past its handshake.
#[derive(Debug)]
struct Ws {
    reader: MessageReader,
    from_server: bool,
    godot4: Godot4Stream,
}

/// One direction's stream state above reassembly.
#[derive(Debug, Default)]
struct Dir {
    /// Bytes not used yet (before recognition, a value or head not whole yet).
    pending: Vec<u8>,
    /// The stream offset of `pending[0]`.
    at: u64,
    /// Bytes of an oversized value still to skip.
    skip: u64,
    /// After a gap: looking for the next value.
    resync: bool,
    /// Nothing more is read in this direction.
    broken: bool,
    ws: Option<Box<Ws>>,
}

impl Dir {
    fn append(&mut self, at: u64, bytes: &[u8]) {
        if self.pending.is_empty() {
            self.at = at;
        }
        self.pending.extend_from_slice(bytes);
    }

    fn consume(&mut self, n: usize) {
        self.pending.drain(..n);
        self.at += n as u64;
    }
}

/// ENet state of a flow.
#[derive(Debug)]
struct Enet {
    fragments: Reassembler<u8>,
    /// Per direction and channel: the last reliable sequence number delivered.
    reliable: NumMap<(u8, u8), u16>,
    /// A `DISCONNECT` was read.
    disconnected: bool,
}

#[derive(Debug)]
struct Flow {
    tcp: Option<[Direction; 2]>,
    ended: [bool; 2],
    meta: Meta,
    dirs: [Dir; 2],
    enet: Option<Box<Enet>>,
}

impl Flow {
    fn held(&self) -> usize {
        let tcp = self.tcp.as_ref().map_or(0, |t| t[0].held() + t[1].held());
        tcp + self.dirs[0].pending.len()
            + self.dirs[1].pending.len()
            + self
                .enet
                .as_ref()
                .map_or(0, |e| e.fragments.pending_bytes())
    }
}

type Key = (SocketAddr, SocketAddr, bool);

/// A hasher for keys that are small numbers the reader chose or bounded ones (flow numbers,
/// given in order; a direction and an ENet channel), not addresses the capture chose freely:
/// mixed by multiplication, where the default hasher's SipHash cost a few percent of a capture's
/// reading (two lookups a packet).
#[derive(Default)]
struct NumHasher(u64);

impl Hasher for NumHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
}

/// A map under [`NumHasher`].
type NumMap<K, V> = HashMap<K, V, BuildHasherDefault<NumHasher>>;

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

/// Whether `b` is one whole value in either dialect.
fn is_value(b: &[u8]) -> bool {
    [Dialect::Godot4, Dialect::Godot3]
        .iter()
        .any(|d| gdvariant::validate_with(b, &ReadOptions::new().with_dialect(*d)) == Ok(b.len()))
}

/// Whether 4 bytes are a Variant header the engine writes.
fn plausible_header(h: [u8; 4]) -> bool {
    h[0] < 39 && h[1] == 0 && h[3] == 0
}

impl Flows {
    pub(crate) fn new(config: Config) -> Flows {
        let budget = Budget {
            per_direction: config.max_early_per_direction,
            global: config.max_early,
            held: 0,
        };
        Flows {
            config,
            keys: HashMap::new(),
            last: None,
            flows: NumMap::default(),
            next_id: 1,
            budget,
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
                let Flow {
                    tcp, meta, dirs, ..
                } = flow;
                let tcp = tcp.as_mut().expect("a TCP flow");
                if t.rst {
                    flow.ended = [true; 2];
                } else {
                    tcp[d].segment(t, seg.payload, seg.cut, budget, &mut |c| {
                        stream(meta, dirs, d, c, config, out)
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
        let Flow {
            tcp, meta, dirs, ..
        } = &mut flow;
        if let Some(tcp) = tcp.as_mut() {
            for (d, t) in tcp.iter_mut().enumerate() {
                t.flush(budget, &mut |c| stream(meta, dirs, d, c, config, out));
                t.release(budget);
            }
        }
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
            if let Some(flow) = self.flows.get_mut(&id) {
                let Flow {
                    tcp, meta, dirs, ..
                } = flow;
                if let Some(tcp) = tcp.as_mut() {
                    for (d, t) in tcp.iter_mut().enumerate() {
                        t.flush(budget, &mut |c| stream(meta, dirs, d, c, config, out));
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
