//! TCP reassembly for one direction of a connection: segments put in order by sequence number,
//! retransmitted and overlapping bytes dropped, segments that come early held (within a per-flow
//! and a global byte bound), holes that never fill reported as gaps.

use std::collections::BTreeMap;
use std::vec::Vec;

use super::link::Tcp;

/// What reassembly hands on, in stream order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Chunk<'a> {
    /// Bytes at this stream offset.
    Data(u64, &'a [u8]),
    /// Bytes that never came (lost before the capture saw them, or cut by the snap length):
    /// `len` bytes from stream offset `at`.
    Gap { at: u64, len: u64 },
}

/// The bounds on the bytes held for segments that came early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Per direction.
    pub per_direction: usize,
    /// The most held across every flow.
    pub global: usize,
    /// Held now across every flow.
    pub held: usize,
}

/// One direction's reassembly.
#[derive(Debug, Default)]
pub(crate) struct Direction {
    /// The next sequence number expected, once one was seen.
    next: Option<u32>,
    /// The stream offset of `next`.
    offset: u64,
    /// Segments that came early, by stream offset.
    early: BTreeMap<u64, Vec<u8>>,
    held: usize,
}

impl Direction {
    /// Bytes held for segments that came early.
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// Takes a segment: `tcp` its header (a SYN's sequence number is one before the first byte;
    /// a FIN past the bytes seen shows a gap), `data` its payload, `cut` its payload's length on
    /// the wire when the snap length cut it. Hands what is now in order to `out`.
    pub(crate) fn segment(
        &mut self,
        tcp: Tcp,
        data: &[u8],
        cut: Option<usize>,
        budget: &mut Budget,
        out: &mut dyn FnMut(Chunk<'_>),
    ) {
        let Tcp { seq, syn, fin, .. } = tcp;
        let seq = if syn { seq.wrapping_add(1) } else { seq };
        if self.next.is_none() || (syn && self.offset == 0 && self.early.is_empty()) {
            self.next = Some(seq);
        }
        let next = self.next.unwrap_or(seq);
        let wire = cut.unwrap_or(data.len()).max(data.len());
        if wire == 0 {
            // A FIN (or a bare ACK) past the bytes seen: what is between never came.
            let diff = seq.wrapping_sub(next) as i32;
            if fin && diff > 0 {
                let at = self.offset + diff as u64;
                self.flush(budget, out);
                self.skip_to(at, budget, out);
            }
            return;
        }
        let diff = seq.wrapping_sub(next) as i32;
        if diff <= 0 {
            // In order, or a retransmission / overlap of bytes already handed on.
            let skip = diff.unsigned_abs() as usize;
            if skip >= wire {
                return;
            }
            self.deliver(&data[skip.min(data.len())..], wire - skip, budget, out);
            self.drain(budget, out);
            return;
        }
        let at = self.offset + diff as u64;
        let fits = self.held + data.len() <= budget.per_direction
            && budget.held + data.len() <= budget.global;
        if cut.is_none() && fits {
            if let Some(prev) = self.early.get(&at) {
                if prev.len() >= data.len() {
                    return;
                }
            }
            if let Some(prev) = self.early.insert(at, data.to_vec()) {
                self.held -= prev.len();
                budget.held -= prev.len();
            }
            self.held += data.len();
            budget.held += data.len();
            return;
        }
        // No room to wait for the hole to fill (or the segment is cut): the hole is a gap.
        self.skip_to(at, budget, out);
        self.deliver(data, wire, budget, out);
        self.drain(budget, out);
    }

    /// Hands on `data` at the current offset; `wire` is its length on the wire (the rest is a
    /// gap).
    fn deliver(
        &mut self,
        data: &[u8],
        wire: usize,
        _budget: &mut Budget,
        out: &mut dyn FnMut(Chunk<'_>),
    ) {
        if !data.is_empty() {
            out(Chunk::Data(self.offset, data));
        }
        if wire > data.len() {
            out(Chunk::Gap {
                at: self.offset + data.len() as u64,
                len: (wire - data.len()) as u64,
            });
        }
        self.advance(wire as u64);
    }

    fn advance(&mut self, n: u64) {
        self.offset += n;
        self.next = self.next.map(|s| s.wrapping_add(n as u32));
    }

    /// Reports the bytes up to stream offset `at` as a gap.
    fn skip_to(&mut self, at: u64, _budget: &mut Budget, out: &mut dyn FnMut(Chunk<'_>)) {
        if at > self.offset {
            out(Chunk::Gap {
                at: self.offset,
                len: at - self.offset,
            });
            self.advance(at - self.offset);
        }
    }

    /// Hands on the held segments that are now in order.
    fn drain(&mut self, budget: &mut Budget, out: &mut dyn FnMut(Chunk<'_>)) {
        while let Some(entry) = self.early.first_entry() {
            let at = *entry.key();
            if at > self.offset {
                break;
            }
            let seg = entry.remove();
            self.held -= seg.len();
            budget.held -= seg.len();
            let skip = (self.offset - at) as usize;
            if skip < seg.len() {
                self.deliver(&seg[skip..], seg.len() - skip, budget, out);
            }
        }
    }

    /// The connection ended (or the capture did): what is held goes on after gaps.
    pub(crate) fn flush(&mut self, budget: &mut Budget, out: &mut dyn FnMut(Chunk<'_>)) {
        while let Some((&at, _)) = self.early.first_key_value() {
            self.skip_to(at, budget, out);
            self.drain(budget, out);
        }
    }

    /// Drops what is held (the flow is forgotten).
    pub(crate) fn release(&mut self, budget: &mut Budget) {
        budget.held -= self.held;
        self.held = 0;
        self.early.clear();
    }
}
