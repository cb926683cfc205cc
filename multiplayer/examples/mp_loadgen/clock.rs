//! A fine clock for the open-loop calls. tokio's timer wheel has a resolution of 1 ms: every
//! task whose sleep ends within the same millisecond wakes on the same tick, so at 65 000 calls a
//! second the calls went in bursts of about 65 (framed 1.1 ms after their due time at the median,
//! up to 2 ms), each waiting behind the ones before it at the server and in the generator.
//!
//! The clock keeps the instants its tasks wait for in a heap, and a task of its own wakes those
//! whose instant passed, then yields: the runtime polls its I/O driver and runs the woken tasks
//! between two turns, so a call goes within a few µs of its due time. It spins on the
//! generator's core for as long as the calls go (sleeping on tokio's timer only while the next
//! instant is more than [`COARSE`] away: the idle rows' 10 calls a second), so the generator's
//! CPU share (`gen_cpu`) is then about 100 %: that core is the generator's. It wants the core to
//! itself: any other work there takes it for whole time slices, and under `SCHED_FIFO` the
//! kernel's real-time throttling stops the spinning thread for 50 ms a second. (A thread
//! sleeping until the next instant and then ringing the runtime, tried instead, woke once for
//! every few calls: 80-200 µs late, and about as much CPU, in context switches.)

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::future::{poll_fn, Future};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

/// From how far ahead of the next instant the clock spins rather than sleep on tokio's timer
/// (which wakes up to 1 ms late). An instant queued meanwhile ahead of the next (a peer whose
/// window was full) can be late by up to as much, with calls that far apart anyway.
const COARSE: Duration = Duration::from_millis(2);

/// A waiting task: when, and how to wake it.
struct Entry {
    at: Instant,
    waker: Waker,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Entry) -> bool {
        self.at == o.at
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Entry) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Entry {
    fn cmp(&self, o: &Entry) -> Ordering {
        self.at.cmp(&o.at)
    }
}

/// The instants waited for, the earliest first.
#[derive(Default)]
pub struct Clock {
    waiting: Mutex<BinaryHeap<Reverse<Entry>>>,
}

impl Clock {
    /// Wakes every task whose instant passed, once per turn of the runtime, until `until` (then
    /// wakes the rest). Spawn it on the peers' runtime for as long as they wait on the clock;
    /// alarms must wait for no instant after `until`.
    pub async fn run(self: Arc<Clock>, until: Instant) {
        loop {
            let now = Instant::now();
            let done = now >= until;
            let next = {
                let mut q = self.waiting.lock().unwrap();
                while q.peek().is_some_and(|Reverse(e)| e.at <= now || done) {
                    if let Some(Reverse(e)) = q.pop() {
                        e.waker.wake();
                    }
                }
                q.peek().map(|Reverse(e)| e.at)
            };
            if done {
                return;
            }
            match next {
                // Few calls a second (the idle rows): tokio's timer until near the next.
                Some(at) if at > now + COARSE => {
                    tokio::time::sleep_until((at - COARSE).into()).await
                }
                _ => tokio::task::yield_now().await,
            }
        }
    }
}

/// One task's alarm on a [`Clock`]. Waiting again for the instant already waited for does not
/// queue it twice; waiting for another leaves the first queued, to wake the task once in vain.
pub struct Alarm {
    clock: Arc<Clock>,
    /// The instant queued on the clock, if any.
    queued: Option<Instant>,
}

impl Alarm {
    /// An alarm on `clock`.
    pub fn new(clock: Arc<Clock>) -> Alarm {
        Alarm {
            clock,
            queued: None,
        }
    }

    /// Completes once `at` passed (at once if it did), to within a turn of the runtime.
    pub fn wait(&mut self, at: Instant) -> impl Future<Output = ()> + '_ {
        poll_fn(move |cx| {
            if Instant::now() >= at {
                self.queued = None;
                return Poll::Ready(());
            }
            if self.queued != Some(at) {
                let waker = cx.waker().clone();
                self.clock
                    .waiting
                    .lock()
                    .unwrap()
                    .push(Reverse(Entry { at, waker }));
                self.queued = Some(at);
            }
            Poll::Pending
        })
    }
}
