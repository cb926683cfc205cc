//! The server's counters, shared by every connection.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The server's counters.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections accepted.
    pub connections: AtomicU64,
    /// Values answered.
    pub packets: AtomicU64,
    /// Malformed values answered with an error.
    pub malformed: AtomicU64,
    /// Connections closed by their peer.
    pub closed: AtomicU64,
    /// Connections dropped by the server (bad framing, stall, idle, memory budget, too many
    /// malformed values).
    pub dropped: AtomicU64,
    /// Connections closed at once because `max_connections` were open.
    pub refused: AtomicU64,
    /// The reasons of the last drops, newest last (at most `RECENT_DROPS`).
    recent_drops: Mutex<VecDeque<String>>,
}

/// How many drop reasons `Stats` keeps.
const RECENT_DROPS: usize = 32;

impl Stats {
    pub(crate) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_drop(&self, reason: &str) {
        Stats::add(&self.dropped);
        let mut recent = lock(&self.recent_drops);
        if recent.len() == RECENT_DROPS {
            recent.pop_front();
        }
        recent.push_back(reason.to_owned());
    }

    /// The reasons of the last (up to 32) drops, oldest first, as logged.
    pub fn recent_drops(&self) -> Vec<String> {
        lock(&self.recent_drops).iter().cloned().collect()
    }

    /// One line with every counter.
    pub fn summary(&self) -> String {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        format!(
            "connections={} packets={} malformed={} closed_by_peer={} dropped={} refused={}",
            g(&self.connections),
            g(&self.packets),
            g(&self.malformed),
            g(&self.closed),
            g(&self.dropped),
            g(&self.refused)
        )
    }
}

/// A mutex's contents, also after a panic elsewhere (nothing here is left half-updated).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
