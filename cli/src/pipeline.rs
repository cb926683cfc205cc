//! An ordered pipeline: the calling thread sends batches of work, worker threads do them, and
//! the calling thread gets them back done in the order it sent them, with a bounded number in
//! flight (`gdvariant capture` formats its lines on every core while it reads the capture).
//!
//! The calling thread does a batch itself when the workers already have [`BACKLOG`] each waiting
//! ("caller runs"): on a machine of `n` cores, the caller and `n - 1` workers keep every core busy
//! without more threads than cores, however the work divides between reading and formatting,
//! and nothing waits for a thread the scheduler left out.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Mutex, PoisonError};

/// Batches each worker may have waiting before the caller does the next itself. With one, a
/// worker that finished its batch and the waiting one while the caller did one of its own sat
/// idle (`gdvariant capture` of the 100 MB game capture on 2 cores: 0.28 s wall against 0.26 s
/// with two or three; with four the caller waited on the bound of batches in flight, 0.30 s).
const BACKLOG: usize = 2;

/// A batch on its way to a worker, and where the worker hands it back.
type Job<B> = (B, SyncSender<B>);

/// A batch sent: done (by the caller), or on its way back.
enum Slot<B> {
    Done(B),
    Waiting(Receiver<B>),
}

/// The workers' side of the lanes.
struct Workers<'w, B> {
    jobs: SyncSender<Job<B>>,
    /// Batches sent to the workers that none has started yet.
    waiting: &'w AtomicUsize,
    /// How many may wait before the caller does one itself.
    backlog: usize,
}

/// Where batches go (see [`run`]).
pub(crate) struct Lanes<'w, B> {
    /// `None`: no workers, batches are done as they are sent.
    workers: Option<Workers<'w, B>>,
    work: &'w (dyn Fn(&mut B) + Sync),
    /// The batches sent and not taken back yet, in order.
    pending: VecDeque<Slot<B>>,
    /// The most batches in flight.
    max: usize,
}

fn stopped() -> io::Error {
    io::Error::other("a formatting thread stopped")
}

impl<B> Lanes<'_, B> {
    /// Sends `batch` to be done: to the workers, or done here when they have enough waiting
    /// (see the [module docs](self)).
    pub(crate) fn send(&mut self, mut batch: B) -> io::Result<()> {
        match &self.workers {
            Some(w) if w.waiting.load(Ordering::Relaxed) < w.backlog => {
                let (done, back) = mpsc::sync_channel(1);
                w.waiting.fetch_add(1, Ordering::Relaxed);
                w.jobs.send((batch, done)).map_err(|_| stopped())?;
                self.pending.push_back(Slot::Waiting(back));
            }
            _ => {
                (self.work)(&mut batch);
                self.pending.push_back(Slot::Done(batch));
            }
        }
        Ok(())
    }

    /// The oldest batch sent, if it is done. It is waited for when `wait` is set or when the
    /// most batches are in flight: a caller that takes what this gives after each
    /// [`send`](Self::send) never has more in flight.
    pub(crate) fn done(&mut self, wait: bool) -> io::Result<Option<B>> {
        let wait = wait || self.pending.len() >= self.max;
        let Some(slot) = self.pending.pop_front() else {
            return Ok(None);
        };
        match slot {
            Slot::Done(b) => Ok(Some(b)),
            Slot::Waiting(back) if wait => back.recv().map(Some).map_err(|_| stopped()),
            Slot::Waiting(back) => match back.try_recv() {
                Ok(b) => Ok(Some(b)),
                Err(TryRecvError::Empty) => {
                    self.pending.push_front(Slot::Waiting(back));
                    Ok(None)
                }
                Err(TryRecvError::Disconnected) => Err(stopped()),
            },
        }
    }
}

/// Runs `body` with lanes to `workers` threads that do `work` on each batch sent, the calling
/// thread doing a batch itself when they are all busy (none: every batch is done in place), at
/// most `max` batches in flight. The workers end when `body` returns.
pub(crate) fn run<B: Send, R>(
    workers: usize,
    max: usize,
    work: &(dyn Fn(&mut B) + Sync),
    body: impl FnOnce(&mut Lanes<'_, B>) -> R,
) -> R {
    let max = max.max(1);
    if workers == 0 {
        return body(&mut Lanes {
            workers: None,
            work,
            pending: VecDeque::new(),
            max,
        });
    }
    let (jobs, queue) = mpsc::sync_channel::<Job<B>>(max);
    let queue = Mutex::new(queue);
    let waiting = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                // One worker waits on the queue at a time; the others wait for the lock.
                let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
                let Ok((mut batch, done)) = job else {
                    break;
                };
                waiting.fetch_sub(1, Ordering::Relaxed);
                work(&mut batch);
                // The caller may have stopped (a write error): the batch is dropped.
                let _ = done.send(batch);
            });
        }
        let mut lanes = Lanes {
            workers: Some(Workers {
                jobs,
                waiting: &waiting,
                backlog: BACKLOG * workers,
            }),
            work,
            pending: VecDeque::new(),
            max,
        };
        let r = body(&mut lanes);
        // Closes the queue: the workers end.
        drop(lanes);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Batches come back in the order they were sent, done, whatever the workers' speed.
    #[test]
    fn batches_come_back_in_order() {
        for workers in [0, 1, 2, 3, 8] {
            let work = |b: &mut (u64, u64)| {
                // Uneven work: later batches often finish first.
                let spin = (b.0 * 7919) % 5000;
                let mut x = b.0;
                for _ in 0..spin {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                std::hint::black_box(x);
                b.1 = b.0 * 2;
            };
            let got = run(workers, 4, &work, |lanes| {
                let mut got = Vec::new();
                for i in 0..500u64 {
                    lanes.send((i, 0)).unwrap();
                    assert!(lanes.pending.len() <= 4);
                    while let Some(b) = lanes.done(false).unwrap() {
                        got.push(b);
                    }
                }
                while let Some(b) = lanes.done(true).unwrap() {
                    got.push(b);
                }
                got
            });
            let want: Vec<(u64, u64)> = (0..500).map(|i| (i, 2 * i)).collect();
            assert_eq!(got, want, "{workers} workers");
        }
    }

    /// The caller does a batch itself when the workers have enough waiting, and only then.
    #[test]
    fn the_caller_runs_what_the_workers_cannot_take() {
        let me = std::thread::current().id();
        // Each batch notes the thread that did it; a worker is slow, the caller is not.
        let work = |b: &mut (u64, Option<std::thread::ThreadId>)| {
            let id = std::thread::current().id();
            if id != me {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            b.1 = Some(id);
        };
        let by = run(1, 8, &work, |lanes| {
            let mut by = Vec::new();
            for i in 0..40u64 {
                lanes.send((i, None)).unwrap();
                while let Some(b) = lanes.done(false).unwrap() {
                    by.push(b);
                }
            }
            while let Some(b) = lanes.done(true).unwrap() {
                by.push(b);
            }
            by
        });
        assert_eq!(
            by.iter().map(|b| b.0).collect::<Vec<_>>(),
            (0..40).collect::<Vec<_>>()
        );
        let mine = by.iter().filter(|b| b.1 == Some(me)).count();
        // The worker took the first batch (none was waiting), and others while the caller
        // worked; the caller took those sent while its backlog was full.
        assert_eq!(by[0].1.map(|id| id != me), Some(true));
        assert!(mine > 0 && mine < 40, "{mine} of 40 done by the caller");
    }
}
