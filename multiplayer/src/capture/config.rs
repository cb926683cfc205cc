//! [`Config`]: how a capture is read (transports forced by port, the bounds on held bytes and
//! open flows, the values' dialect).

use std::vec::Vec;

use gdvariant::Dialect;

use super::event::Transport;

/// How a capture is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub(super) decode_as: Vec<(u16, Transport)>,
    pub(super) max_early_per_direction: usize,
    pub(super) max_early: usize,
    pub(super) max_message: usize,
    pub(super) max_pending: usize,
    pub(super) max_flows: usize,
    pub(super) dialect: Option<Dialect>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// The defaults: content detection, 1 MiB of early TCP segments per direction and 16 MiB in
    /// all, values and messages up to 16 MiB, 256 MiB of unfinished messages across the flows,
    /// 100 000 open flows.
    pub const fn new() -> Config {
        Config {
            decode_as: Vec::new(),
            max_early_per_direction: 1 << 20,
            max_early: 16 << 20,
            max_message: 16 << 20,
            max_pending: 256 << 20,
            max_flows: 100_000,
            dialect: None,
        }
    }

    /// Flows with `port` at either end carry `transport`, whatever their content.
    pub fn decode_as(mut self, port: u16, transport: Transport) -> Config {
        self.decode_as.push((port, transport));
        self
    }

    /// The most bytes of TCP segments that came early held per direction, and in all.
    pub fn with_max_early(mut self, per_direction: usize, total: usize) -> Config {
        self.max_early_per_direction = per_direction;
        self.max_early = total;
        self
    }

    /// The largest `put_var` value and WebSocket message read (larger ones are reported and
    /// skipped).
    pub fn with_max_message(mut self, max: usize) -> Config {
        self.max_message = max;
        self
    }

    /// The most bytes every flow's directions hold together for messages not whole yet (the
    /// part of a `put_var` value or WebSocket message read so far, bytes not recognised yet, a
    /// handshake's head). When a direction's bytes would pass it, the message it is assembling
    /// is reported and skipped (a `put_var` value: its length is known; elsewhere the rest of
    /// that direction is not read) and its bytes are freed; the flow and the others read on.
    pub fn with_max_pending(mut self, total: usize) -> Config {
        self.max_pending = total;
        self
    }

    /// The most flows followed at once (past it new flows are reported and not followed).
    pub fn with_max_flows(mut self, max: usize) -> Config {
        self.max_flows = max;
        self
    }

    /// The dialect of the values of `put_var`, `PacketPeerUDP` and WebSocket value flows. By
    /// default each flow's is told by its values: the first that reads in one dialect only (or
    /// is clearly more plausible in one) decides, and values before it, which read the same in
    /// both, are given as Godot 4.
    pub fn with_dialect(mut self, dialect: Option<Dialect>) -> Config {
        self.dialect = dialect;
        self
    }
}
