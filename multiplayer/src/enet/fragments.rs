//! Reassembly of fragmented ENet packets (`SEND_FRAGMENT`, `SEND_UNRELIABLE_FRAGMENT`) as an
//! observer sees them, with the checks `enet_protocol_handle_send_fragment` and
//! `enet_protocol_handle_send_unreliable_fragment` make and a bound on the memory held.
//!
//! ENet sends a packet longer than the peer's MTU allows (less the headers) as fragments: each
//! carries the packet's `totalLength`, `fragmentCount`, its own `fragmentNumber` and
//! `fragmentOffset`, and the sequence number of the first fragment (`startSequenceNumber`),
//! which names the packet. A reliable packet is keyed by (channel, start sequence number); an
//! unreliable one by (channel, reliable sequence number, start unreliable sequence number). The
//! receiver allocates the packet at the first fragment, marks fragment numbers off in a bitmap
//! (a retransmitted fragment changes nothing) and delivers the packet when every number has
//! come, wherever the offsets put the bytes.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::vec;
use alloc::vec::Vec;

use gdvariant::error::{Error, ErrorKind, Result};

use super::protocol::SendFragment;

/// `ENET_PROTOCOL_MAXIMUM_FRAGMENT_COUNT`.
pub const MAXIMUM_FRAGMENT_COUNT: u32 = 1024 * 1024;
/// `ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE` (32 MiB), the default of [`Limits`].
pub const DEFAULT_MAXIMUM_PACKET_SIZE: usize = 32 * 1024 * 1024;
/// How many completed packets are remembered, so that a fragment retransmitted after its packet
/// was delivered is recognised as a duplicate instead of starting a packet that never ends.
const REMEMBERED: usize = 1024;

/// The bounds a [`Reassembler`] enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The largest packet (`totalLength`) and fragment accepted: the receiving host's
    /// `maximumPacketSize` (ENet's default 32 MiB, which Godot keeps).
    pub max_packet_size: usize,
    /// The most bytes held at once across every packet not complete yet (each counts its
    /// `totalLength` and its bitmap).
    pub max_pending_bytes: usize,
}

impl Default for Limits {
    /// 32 MiB packets, 64 MiB pending in all.
    fn default() -> Self {
        Limits {
            max_packet_size: DEFAULT_MAXIMUM_PACKET_SIZE,
            max_pending_bytes: 2 * DEFAULT_MAXIMUM_PACKET_SIZE,
        }
    }
}

/// What names a fragmented packet: the peer (whatever the caller tells peers apart by: an
/// address pair, a direction, an ENet peer id) and the packet's ENet identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FragmentKey<K> {
    /// The peer.
    pub peer: K,
    /// The ENet channel.
    pub channel_id: u8,
    /// `SEND_FRAGMENT` (true) or `SEND_UNRELIABLE_FRAGMENT`.
    pub reliable: bool,
    /// The reliable sequence number an unreliable packet's fragments share (0 for a reliable
    /// packet, whose fragments each have their own).
    pub reliable_sequence_number: u16,
    /// `startSequenceNumber`.
    pub start_sequence_number: u16,
}

/// A packet put back together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reassembled<K> {
    /// Which packet it was.
    pub key: FragmentKey<K>,
    /// The packet (`totalLength` bytes).
    pub data: Vec<u8>,
}

/// What a fragment did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress<K> {
    /// The fragment was new; the packet is not complete yet.
    Pending {
        /// How many distinct fragments have come.
        received: u32,
        /// `fragmentCount`.
        count: u32,
    },
    /// The fragment had come before (or its packet was already delivered): nothing changed.
    Duplicate,
    /// The fragment completed its packet.
    Complete(Reassembled<K>),
}

#[derive(Debug)]
struct Pending {
    data: Vec<u8>,
    bitmap: Vec<u32>,
    fragment_count: u32,
    remaining: u32,
    cost: usize,
}

/// Puts fragmented packets back together, per peer, channel and start sequence number, holding
/// at most [`Limits::max_pending_bytes`].
///
/// ```
/// use gdvariant_multiplayer::enet::fragments::{Progress, Reassembler};
/// use gdvariant_multiplayer::enet::protocol::{CommandHeader, SendFragment};
///
/// let packet = b"hello, fragments";
/// let mut r = Reassembler::default();
/// let mut done = None;
/// // Two fragments of 8 bytes, the second first.
/// for n in [1u32, 0] {
///     let at = n as usize * 8;
///     let f = SendFragment {
///         header: CommandHeader { command: 0x88, channel_id: 0, reliable_sequence_number: 5 + n as u16 },
///         start_sequence_number: 5,
///         fragment_count: 2,
///         fragment_number: n,
///         total_length: packet.len() as u32,
///         fragment_offset: at as u32,
///         data: &packet[at..at + 8],
///         offset: 0,
///     };
///     if let Progress::Complete(p) = r.push("client", &f)? {
///         done = Some(p.data);
///     }
/// }
/// assert_eq!(done.as_deref(), Some(&packet[..]));
/// assert_eq!(r.pending_bytes(), 0);
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Debug)]
pub struct Reassembler<K> {
    limits: Limits,
    pending: BTreeMap<FragmentKey<K>, Pending>,
    held: usize,
    done: VecDeque<FragmentKey<K>>,
    done_set: BTreeSet<FragmentKey<K>>,
}

impl<K: Ord + Clone> Default for Reassembler<K> {
    fn default() -> Self {
        Reassembler::new(Limits::default())
    }
}

#[cold]
fn refuse(what: &'static str, offset: usize) -> Error {
    Error::new(ErrorKind::InvalidPacket { what }, offset)
}

impl<K: Ord + Clone> Reassembler<K> {
    /// A reassembler with these limits.
    pub fn new(limits: Limits) -> Reassembler<K> {
        Reassembler {
            limits,
            pending: BTreeMap::new(),
            held: 0,
            done: VecDeque::new(),
            done_set: BTreeSet::new(),
        }
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The bytes held for packets not complete yet.
    pub fn pending_bytes(&self) -> usize {
        self.held
    }

    /// How many packets are not complete yet.
    pub fn pending_packets(&self) -> usize {
        self.pending.len()
    }

    /// Drops everything held for `peer` (when it disconnects).
    pub fn forget_peer(&mut self, peer: &K) {
        let keys: Vec<FragmentKey<K>> = self
            .pending
            .keys()
            .filter(|k| k.peer == *peer)
            .cloned()
            .collect();
        for k in keys {
            if let Some(p) = self.pending.remove(&k) {
                self.held -= p.cost;
            }
        }
    }

    /// Drops every packet not complete yet.
    pub fn clear(&mut self) {
        self.pending.clear();
        self.held = 0;
    }

    /// Takes one fragment from `peer`. An error, with the offset of the fragment's command and
    /// nothing changed, for a fragment ENet refuses (a `SEND_FRAGMENT` without data, a
    /// `fragmentNumber` not below `fragmentCount`, more than 2^20 fragments, a `totalLength` over
    /// [`Limits::max_packet_size`] or, for a reliable packet, below `fragmentCount`, an offset or
    /// length past `totalLength`, a `totalLength` or `fragmentCount` that differs from the
    /// packet's first fragment's) and for a new packet that would take the bytes held past
    /// [`Limits::max_pending_bytes`].
    pub fn push(&mut self, peer: K, f: &SendFragment<'_>) -> Result<Progress<K>> {
        let reliable = f.is_reliable();
        let at = f.offset;
        let length = f.data.len();
        let max = self.limits.max_packet_size;
        if reliable && length == 0 {
            return Err(refuse("ENet fragment without data", at));
        }
        if length > max {
            return Err(refuse(
                "ENet fragment larger than the maximum packet size",
                at,
            ));
        }
        if f.fragment_count > MAXIMUM_FRAGMENT_COUNT {
            return Err(refuse("ENet fragmentCount over 2^20", at));
        }
        if f.fragment_number >= f.fragment_count {
            return Err(refuse("ENet fragmentNumber not below fragmentCount", at));
        }
        let total = f.total_length as usize;
        if total > max {
            return Err(refuse(
                "ENet totalLength larger than the maximum packet size",
                at,
            ));
        }
        if reliable && f.total_length < f.fragment_count {
            return Err(refuse("ENet totalLength below fragmentCount", at));
        }
        if f.fragment_offset >= f.total_length {
            return Err(refuse("ENet fragmentOffset not below totalLength", at));
        }
        let offset = f.fragment_offset as usize;
        if length > total - offset {
            return Err(refuse("ENet fragment past totalLength", at));
        }
        let key = FragmentKey {
            peer,
            channel_id: f.header.channel_id,
            reliable,
            reliable_sequence_number: if reliable {
                0
            } else {
                f.header.reliable_sequence_number
            },
            start_sequence_number: f.start_sequence_number,
        };
        let p = match self.pending.get_mut(&key) {
            Some(p) => {
                if p.data.len() != total || p.fragment_count != f.fragment_count {
                    return Err(refuse(
                        "ENet fragment's totalLength or fragmentCount differs from its packet's",
                        at,
                    ));
                }
                p
            }
            None => {
                if self.done_set.contains(&key) {
                    return Ok(Progress::Duplicate);
                }
                let words = (f.fragment_count as usize).div_ceil(32);
                let cost = total + 4 * words;
                if cost > self.limits.max_pending_bytes.saturating_sub(self.held) {
                    return Err(refuse(
                        "ENet fragments held would exceed the reassembly bound",
                        at,
                    ));
                }
                // Both sizes are bounded above, before anything is allocated.
                self.held += cost;
                self.pending.entry(key.clone()).or_insert(Pending {
                    data: vec![0; total],
                    bitmap: vec![0; words],
                    fragment_count: f.fragment_count,
                    remaining: f.fragment_count,
                    cost,
                })
            }
        };
        let (word, bit) = ((f.fragment_number / 32) as usize, f.fragment_number % 32);
        let Some(w) = p.bitmap.get_mut(word) else {
            return Err(refuse("ENet fragmentNumber not below fragmentCount", at));
        };
        if *w & (1 << bit) != 0 {
            return Ok(Progress::Duplicate);
        }
        *w |= 1 << bit;
        p.remaining -= 1;
        if let Some(dst) = p.data.get_mut(offset..offset + length) {
            dst.copy_from_slice(f.data);
        }
        if p.remaining > 0 {
            return Ok(Progress::Pending {
                received: p.fragment_count - p.remaining,
                count: p.fragment_count,
            });
        }
        let Some(p) = self.pending.remove(&key) else {
            return Ok(Progress::Duplicate);
        };
        self.held -= p.cost;
        if self.done.len() >= REMEMBERED {
            if let Some(old) = self.done.pop_front() {
                self.done_set.remove(&old);
            }
        }
        self.done.push_back(key.clone());
        self.done_set.insert(key.clone());
        Ok(Progress::Complete(Reassembled { key, data: p.data }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enet::protocol::CommandHeader;

    fn frag(
        reliable: bool,
        start: u16,
        count: u32,
        number: u32,
        total: u32,
        offset: u32,
        data: &[u8],
    ) -> SendFragment<'_> {
        SendFragment {
            header: CommandHeader {
                command: if reliable { 0x88 } else { 0x0c },
                channel_id: 1,
                reliable_sequence_number: if reliable { start + number as u16 } else { 3 },
            },
            start_sequence_number: start,
            fragment_count: count,
            fragment_number: number,
            total_length: total,
            fragment_offset: offset,
            data,
            offset: 7,
        }
    }

    #[test]
    fn reassembles_out_of_order_with_duplicates() {
        let packet: Vec<u8> = (0..2500u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut r = Reassembler::default();
        let parts: Vec<(u32, usize)> = vec![(2, 2000), (0, 0), (2, 2000), (1, 1000)];
        let mut out = Vec::new();
        for (n, at) in parts {
            let end = (at + 1000).min(packet.len());
            let f = frag(true, 10, 3, n, 2500, at as u32, &packet[at..end]);
            out.push(r.push(1u8, &f).unwrap());
        }
        assert_eq!(
            out[0],
            Progress::Pending {
                received: 1,
                count: 3
            }
        );
        assert_eq!(
            out[1],
            Progress::Pending {
                received: 2,
                count: 3
            }
        );
        assert_eq!(out[2], Progress::Duplicate);
        let Progress::Complete(p) = &out[3] else {
            panic!("{:?}", out[3])
        };
        assert_eq!(p.data, packet);
        assert_eq!((p.key.channel_id, p.key.start_sequence_number), (1, 10));
        assert_eq!((r.pending_bytes(), r.pending_packets()), (0, 0));
        // A retransmission after delivery is a duplicate, not a new packet.
        let f = frag(true, 10, 3, 0, 2500, 0, &packet[..1000]);
        assert_eq!(r.push(1u8, &f).unwrap(), Progress::Duplicate);
        assert_eq!(r.pending_packets(), 0);
    }

    #[test]
    fn refuses_what_enet_refuses() {
        let mut r: Reassembler<u8> = Reassembler::new(Limits {
            max_packet_size: 4000,
            max_pending_bytes: 5000,
        });
        let d = [0u8; 10];
        for (f, what) in [
            (frag(true, 0, 2, 0, 20, 0, &[]), "without data"),
            (frag(true, 0, 2, 2, 20, 0, &d), "fragmentNumber"),
            (
                frag(true, 0, MAXIMUM_FRAGMENT_COUNT + 1, 0, 20, 0, &d),
                "2^20",
            ),
            (frag(true, 0, 2, 0, 4001, 0, &d), "totalLength larger"),
            (frag(true, 0, 30, 0, 20, 0, &d), "below fragmentCount"),
            (frag(true, 0, 2, 0, 20, 20, &d), "fragmentOffset"),
            (frag(true, 0, 2, 0, 20, 15, &d), "past totalLength"),
        ] {
            let e = r.push(0, &f).unwrap_err();
            assert_eq!(e.offset(), 7);
            let ErrorKind::InvalidPacket { what: w } = e.kind() else {
                panic!()
            };
            assert!(w.contains(what), "{w} / {what}");
        }
        // Unreliable fragments may be empty and more numerous than bytes.
        assert_eq!(
            r.push(0, &frag(false, 0, 30, 0, 20, 0, &[])).unwrap(),
            Progress::Pending {
                received: 1,
                count: 30
            }
        );
        // A fragment disagreeing with its packet's first.
        let e = r.push(0, &frag(false, 0, 30, 1, 21, 0, &d)).unwrap_err();
        assert!(e.to_string().contains("differs"), "{e}");
        // The bound: 4000 + 4 held; 4000 more do not fit in 5000.
        r.push(1, &frag(true, 0, 4, 0, 4000, 0, &d)).unwrap();
        assert_eq!(r.pending_bytes(), 20 + 4 + 4000 + 4);
        let e = r.push(2, &frag(true, 0, 4, 0, 4000, 0, &d)).unwrap_err();
        assert!(e.to_string().contains("bound"), "{e}");
        r.forget_peer(&1);
        assert_eq!(r.pending_bytes(), 24);
        r.push(2, &frag(true, 0, 4, 0, 4000, 0, &d)).unwrap();
        r.clear();
        assert_eq!((r.pending_bytes(), r.pending_packets()), (0, 0));
    }
}
