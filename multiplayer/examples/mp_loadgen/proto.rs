//! The echo protocol of one client, transport aside: the call with a sequence number, the
//! answers checked against what is in flight, the pace of the calls and the run's phases.

use std::collections::VecDeque;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::{
    self as multiplayer, confirm_path, simplify_path, Packet, RemoteCallBuilder, RpcMethods, Target,
};
use tokio::sync::watch;

use crate::clock::Clock;

/// What every peer (or ENet host) shares with the run.
#[derive(Clone)]
pub struct Run {
    /// How many peers are ready for the calls.
    pub ready: Arc<AtomicUsize>,
    /// The phases, once every peer connected (or the wait for them ended).
    pub phases: watch::Receiver<Option<Phases>>,
    /// The latest the peers may get ready by.
    pub connect_by: Instant,
    /// Open loop: the calls' instants (see `clock`), running from the phases until the end.
    pub clock: Arc<Clock>,
}

/// The run's phases, set once every peer connected (or the wait for them ended): the calls start
/// at `start`; those sent from `warm` to `end` are measured; after `end` no call is sent and what
/// is in flight has until `drain` to come back (what does not is lost).
#[derive(Clone, Copy, Debug)]
pub struct Phases {
    pub start: Instant,
    pub warm: Instant,
    pub end: Instant,
    pub drain: Instant,
}

/// What a peer reports.
#[derive(Default, Debug)]
pub struct Report {
    /// Round trips of the measured calls, in µs.
    pub lat: Vec<u32>,
    /// Open loop: how late each call due in the measured span was framed after its due time,
    /// in µs (the pacing's own error, not part of the round trips).
    pub late: Vec<u32>,
    /// Calls never answered (by the drain's end, or before the connection ended).
    pub lost: u64,
    /// Answers out of order (or to no call in flight).
    pub reordered: u64,
    /// Connected, authenticated and `/root/Main` cached before the calls started.
    pub ready: bool,
    /// The connection ended before the run did.
    pub dropped: bool,
}

/// What a packet from the server was.
pub enum Got {
    /// Send this back (the server's `SIMPLIFY_PATH`, confirmed).
    Answer(Vec<u8>),
    /// The server confirmed our `/root/Main`: ready for calls.
    Confirmed,
    /// An `echoed(n)`.
    Echo,
    /// Anything else (`ADD_PEER` and the like).
    Other,
}

pub struct Proto {
    checksum: [u8; 32],
    /// The calls in flight: sequence number, when sent.
    pub sent: VecDeque<(i64, Instant)>,
    next: i64,
    pub report: Report,
}

impl Proto {
    pub fn new() -> Proto {
        Proto {
            checksum: RpcMethods::new(["echo", "echoed"]).checksum(),
            sent: VecDeque::new(),
            next: 0,
            report: Report::default(),
        }
    }

    /// The first packet: `/root/Main` cached as id 1.
    pub fn hello(&self) -> Vec<u8> {
        simplify_path(&self.checksum, 1, "Main").unwrap()
    }

    /// The next call, `echo(n)`, sent at `now`.
    pub fn call(&mut self, now: Instant) -> Vec<u8> {
        let n = self.next;
        self.next += 1;
        self.sent.push_back((n, now));
        RemoteCallBuilder::new(Target::Id(1), 0)
            .arg(&Variant::Int(n))
            .unwrap()
            .finish()
            .unwrap()
    }

    /// A packet from the server, at `now`.
    pub fn receive(&mut self, b: &[u8], now: Instant, ph: Option<&Phases>) -> Got {
        match multiplayer::parse(b) {
            Ok(Packet::SimplifyPath(s)) => Got::Answer(confirm_path(true, s.id())),
            Ok(Packet::ConfirmPath(c)) if c.valid() => Got::Confirmed,
            Ok(Packet::RemoteCall(c)) => {
                let got = c
                    .args()
                    .next()
                    .and_then(|a| a.ok())
                    .and_then(|a| a.as_i64().ok());
                match (self.sent.front(), got) {
                    (Some(&(n, at)), Some(g)) if n == g => {
                        self.sent.pop_front();
                        if ph.is_some_and(|p| at >= p.warm && at < p.end) {
                            let us = now.saturating_duration_since(at).as_micros();
                            self.report.lat.push(us.min(u32::MAX as u128) as u32);
                        }
                    }
                    (_, g) => {
                        self.report.reordered += 1;
                        if let Some(i) = self.sent.iter().position(|&(n, _)| Some(n) == g) {
                            self.sent.remove(i);
                        }
                    }
                }
                Got::Echo
            }
            _ => Got::Other,
        }
    }

    /// The peer is done: what is still in flight is lost.
    pub fn finish(mut self, dropped: bool) -> Report {
        self.report.lost += self.sent.len() as u64;
        self.report.dropped = dropped;
        self.report
    }
}

/// Paces one peer's calls: closed loop (as many as the window allows) or open loop (one every
/// `interval` from the peer's offset after the start, at most the window in flight; a call held
/// back by a full window goes as soon as there is room).
pub struct Pace {
    interval: Option<Duration>,
    offset: Duration,
    next: Option<Instant>,
    window: usize,
    /// The measured span, `warm..end`: the lateness of the calls due in it is recorded.
    measured: Option<(Instant, Instant)>,
    /// How late the measured open-loop calls went, in µs (see [`Report::late`]).
    pub late: Vec<u32>,
}

impl Pace {
    /// The `i`-th of `n` peers: `rate` calls a second in all (open loop) or none (closed).
    pub fn new(i: usize, n: usize, rate: Option<f64>, window: usize) -> Pace {
        let interval = rate.map(|r| Duration::from_secs_f64(n as f64 / r));
        Pace {
            interval,
            // The peers' first calls spread evenly over one interval.
            offset: interval.map_or(Duration::ZERO, |iv| iv.mul_f64(i as f64 / n as f64)),
            next: None,
            window,
            measured: None,
            late: Vec::new(),
        }
    }

    /// Open loop (a rate), not closed.
    pub fn is_open(&self) -> bool {
        self.interval.is_some()
    }

    /// Starts the schedule at the phases' start.
    pub fn begin(&mut self, ph: &Phases) {
        if self.interval.is_some() {
            self.next = Some(ph.start + self.offset);
            self.measured = Some((ph.warm, ph.end));
        }
    }

    /// Whether a call is due at `now` (and counts it as sent).
    pub fn due(&mut self, now: Instant, in_flight: usize) -> bool {
        if in_flight >= self.window {
            return false;
        }
        match (self.interval, self.next.as_mut()) {
            (None, _) => true,
            (Some(iv), Some(next)) if now >= *next => {
                if self.measured.is_some_and(|(a, b)| *next >= a && *next < b) {
                    let us = now.saturating_duration_since(*next).as_micros();
                    self.late.push(us.min(u32::MAX as u128) as u32);
                }
                *next += iv;
                true
            }
            _ => false,
        }
    }

    /// When the next open-loop call is due, with `in_flight` calls in flight: none in closed
    /// loop, nor while the window is full (the next call then waits for an echo).
    pub fn next_due(&self, in_flight: usize) -> Option<Instant> {
        self.next.filter(|_| in_flight < self.window)
    }
}
