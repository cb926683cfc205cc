//! A flow's state as its transports read it: the records it makes ([`Out`]), its meta data
//! ([`Meta`]), each direction's bytes ([`Dir`]), and its transport's reader state ([`Ws`],
//! [`Enet`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::SocketAddr;
use std::ops::Range;
use std::vec::Vec;

use gdvariant::Dialect;

use crate::capture::error::Error;
use crate::capture::event::{Body, Channel, Control, Event, FlowId, Timestamp, Transport};
use crate::capture::tcp::Direction;
use crate::enet::fragments::Reassembler;
use crate::websocket::godot::Godot4Stream;
use crate::websocket::MessageReader;

#[derive(Clone, Debug)]
pub(super) enum RecBody {
    Value(Range<usize>, Dialect),
    Packet(Range<usize>, Dialect),
    Control(Control),
    Error(Error),
}

#[derive(Clone, Debug)]
pub(super) struct Rec {
    pub(super) head: Head,
    pub(super) channel: Option<Channel>,
    pub(super) from_peer: Option<i32>,
    pub(super) to_peer: Option<i32>,
    pub(super) body: RecBody,
}

/// What every event of one packet in one direction shares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Head {
    pub(super) time: Timestamp,
    pub(super) record: u64,
    pub(super) flow: FlowId,
    pub(super) src: SocketAddr,
    pub(super) dst: SocketAddr,
    pub(super) from_client: bool,
    pub(super) transport: Option<Transport>,
}

/// The events of the packet being read: their bytes in one arena.
#[derive(Debug, Default)]
pub(crate) struct Out {
    pub(super) arena: Vec<u8>,
    pub(super) recs: Vec<Rec>,
    pub(super) next: usize,
    pub(super) time: Timestamp,
    pub(super) record: u64,
}

pub(super) const NOWHERE: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
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

    pub(super) fn push(
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

    pub(super) fn bytes(&mut self, b: &[u8]) -> Range<usize> {
        let start = self.arena.len();
        self.arena.extend_from_slice(b);
        start..self.arena.len()
    }
}

/// What kind of WebSocket traffic a flow carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WsKind {
    Undecided,
    Godot4,
    Godot3,
    Values,
}

/// What a flow knows, shared by its directions.
#[derive(Debug)]
pub(super) struct Meta {
    pub(super) id: FlowId,
    /// Index 0: the first sender's address, 1: the other's.
    pub(super) addr: [SocketAddr; 2],
    pub(super) client: usize,
    pub(super) transport: Option<Transport>,
    pub(super) gave_up: bool,
    pub(super) tries: u32,
    pub(super) dialect: Option<Dialect>,
    pub(super) peers: [Option<i32>; 2],
    pub(super) ws: WsKind,
}

impl Meta {
    pub(super) fn head(&self, d: usize, out: &Out) -> Head {
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

    pub(super) fn emit(&self, d: usize, out: &mut Out, body: RecBody, channel: Option<Channel>) {
        let head = self.head(d, out);
        out.push(head, channel, self.peers[d], self.peers[1 - d], body);
    }

    pub(super) fn control(&self, d: usize, out: &mut Out, c: Control) {
        self.emit(d, out, RecBody::Control(c), None);
    }

    pub(super) fn error(&self, d: usize, out: &mut Out, e: Error) {
        self.emit(d, out, RecBody::Error(e), None);
    }

    /// The dialect of a value: the flow's once a value told it, else the value's own.
    pub(super) fn value_dialect(&mut self, v: &[u8]) -> Dialect {
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

    pub(super) fn value(&mut self, d: usize, out: &mut Out, v: &[u8]) {
        let dialect = self.value_dialect(v);
        let range = out.bytes(v);
        self.emit(d, out, RecBody::Value(range, dialect), None);
    }

    pub(super) fn recognized(&mut self, d: usize, t: Transport, out: &mut Out) {
        self.transport = Some(t);
        self.control(d, out, Control::Recognized(t));
    }
}

/// A WebSocket direction past its handshake.
#[derive(Debug)]
pub(super) struct Ws {
    pub(super) reader: MessageReader,
    pub(super) from_server: bool,
    pub(super) godot4: Godot4Stream,
}

/// The most room a direction's `pending` keeps once what it held was read.
const MAX_KEPT: usize = 64 << 10;

/// One direction's stream state above reassembly.
#[derive(Debug, Default)]
pub(super) struct Dir {
    /// Bytes not used yet (before recognition, a value or head not whole yet).
    pub(super) pending: Vec<u8>,
    /// The stream offset of `pending[0]`.
    pub(super) at: u64,
    /// Bytes of an oversized value still to skip.
    pub(super) skip: u64,
    /// After a gap: looking for the next value.
    pub(super) resync: bool,
    /// Nothing more is read in this direction.
    pub(super) broken: bool,
    pub(super) ws: Option<Box<Ws>>,
}

impl Dir {
    /// The bytes held for what is not whole yet: `pending` and the WebSocket reader's buffers.
    pub(super) fn held(&self) -> usize {
        self.pending.len() + self.ws.as_ref().map_or(0, |w| w.reader.buffered_bytes())
    }

    pub(super) fn append(&mut self, at: u64, bytes: &[u8]) {
        if self.pending.is_empty() {
            self.at = at;
        }
        self.pending.extend_from_slice(bytes);
    }

    pub(super) fn consume(&mut self, n: usize) {
        self.pending.drain(..n);
        self.at += n as u64;
        // A large value's room is given back once it is read: memory follows the bytes held,
        // not the largest value the direction ever sent.
        let (len, room) = (self.pending.len(), self.pending.capacity());
        if room > MAX_KEPT && room > 2 * len {
            self.pending.shrink_to(len.max(MAX_KEPT));
        }
    }
}

/// The bytes every flow's directions hold for messages not whole yet ([`Dir::held`]), and
/// the most they may.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub(super) held: usize,
    pub(super) max: usize,
}

/// ENet state of a flow.
#[derive(Debug)]
pub(super) struct Enet {
    pub(super) fragments: Reassembler<u8>,
    /// Per direction and channel: the last reliable sequence number delivered.
    pub(super) reliable: NumMap<(u8, u8), u16>,
    /// A `DISCONNECT` was read.
    pub(super) disconnected: bool,
}

#[derive(Debug)]
pub(super) struct Flow {
    pub(super) tcp: Option<[Direction; 2]>,
    pub(super) ended: [bool; 2],
    pub(super) meta: Meta,
    pub(super) dirs: [Dir; 2],
    pub(super) enet: Option<Box<Enet>>,
}

impl Flow {
    pub(super) fn held(&self) -> usize {
        let tcp = self.tcp.as_ref().map_or(0, |t| t[0].held() + t[1].held());
        tcp + self.dirs[0].held()
            + self.dirs[1].held()
            + self
                .enet
                .as_ref()
                .map_or(0, |e| e.fragments.pending_bytes())
    }
}

/// A hasher for keys that are small numbers the reader chose or bounded ones (flow numbers,
/// given in order; a direction and an ENet channel), not addresses the capture chose freely:
/// mixed by multiplication, where the default hasher's SipHash cost a few percent of a capture's
/// reading (two lookups a packet).
#[derive(Default)]
pub(super) struct NumHasher(u64);

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
pub(super) type NumMap<K, V> = HashMap<K, V, BuildHasherDefault<NumHasher>>;
