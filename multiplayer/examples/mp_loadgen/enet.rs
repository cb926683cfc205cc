//! Godot 4 ENet clients: many peers on one ENet host (one UDP socket), as many hosts as asked,
//! each host one task on the generator's thread, woken by its socket or its schedule (in open
//! loop, the peers' next calls on the fine clock). A wake-up costs a few passes over the host's
//! peers (ENet's `service` and `flush`), so with many peers a host sends what fell due meanwhile.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusty_enet as enet;
use tokio::net::UdpSocket;

use crate::clock::Alarm;
use crate::proto::{Got, Pace, Phases, Proto, Report, Run};

/// The longest a host sleeps: ENet's own timers (resends, pings) need service.
const TICK: Duration = Duration::from_millis(5);

/// Sends a peer's calls due at `now` (reliable, on channel 0) from its host slot.
fn send_due(
    host: &mut enet::Host<Socket>,
    slot: enet::PeerID,
    pace: &mut Pace,
    p: &mut Proto,
    now: Instant,
) {
    while pace.due(now, p.sent.len()) {
        let b = p.call(now);
        let _ = host.peer_mut(slot).send(0, &enet::Packet::reliable(b));
    }
}

/// A tokio UDP socket as ENet's: non-blocking, readiness for the task.
struct Socket(Arc<UdpSocket>);

impl enet::Socket for Socket {
    type Address = SocketAddr;
    type Error = io::Error;

    fn send(&mut self, address: SocketAddr, buffer: &[u8]) -> io::Result<usize> {
        match self.0.try_send_to(buffer, address) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            r => r,
        }
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; enet::MTU_MAX],
    ) -> io::Result<Option<(SocketAddr, enet::PacketReceived)>> {
        match self.0.try_recv_from(buffer) {
            Ok((n, addr)) => Ok(Some((addr, enet::PacketReceived::Complete(n)))),
            Err(_) => Ok(None),
        }
    }
}

/// One host with `paces.len()` peers, the first numbered `first` (their Godot ids follow from
/// it); their reports in order. In open loop it waits on the run's clock until the end, then on
/// tokio's timer.
pub async fn host(
    addr: SocketAddr,
    first: usize,
    mut paces: Vec<Pace>,
    run: Run,
    connecting: usize,
) -> Vec<Report> {
    let Run {
        ready,
        mut phases,
        connect_by,
        clock,
    } = run;
    let n = paces.len();
    let std_sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let s = socket2::SockRef::from(&std_sock);
    let _ = s.set_recv_buffer_size(4 << 20);
    let _ = s.set_send_buffer_size(4 << 20);
    std_sock.set_nonblocking(true).unwrap();
    let sock = Arc::new(UdpSocket::from_std(std_sock).unwrap());
    let mut host = enet::Host::new(
        Socket(sock.clone()),
        enet::HostSettings {
            peer_limit: n,
            channel_limit: 255,
            ..Default::default()
        },
    )
    .unwrap();
    let mut protos: Vec<Proto> = (0..n).map(|_| Proto::new()).collect();
    // Host slot -> peer index, and back; at most `connecting` peers connecting at a time.
    let mut slot_of = Vec::with_capacity(n);
    let mut index_of = vec![usize::MAX; n];
    let mut pending = 0;
    let mut confirmed = vec![false; n];
    let mut alive = vec![true; n];
    let mut ph: Option<Phases> = None;
    let open = paces.first().is_some_and(Pace::is_open);
    // Open loop: the peers by their next call's instant (a peer with a full window is held out
    // until an echo makes room), so that a wake-up looks at the peers due, not at all of them.
    let mut due: BinaryHeap<Reverse<(Instant, usize)>> = BinaryHeap::new();
    let mut held = vec![false; n];
    let mut alarm = Alarm::new(clock);
    loop {
        let now = Instant::now();
        if ph.is_none() {
            if let Some(x) = *phases.borrow_and_update() {
                ph = Some(x);
                for p in &mut paces {
                    p.begin(&x);
                }
                // Not ready: out of the run, before the calls (no join completes during them).
                for (i, &s) in slot_of.iter().enumerate() {
                    if alive[i] && !confirmed[i] {
                        host.peer_mut(s).disconnect(0);
                        alive[i] = false;
                    }
                }
                for i in (0..slot_of.len()).filter(|&i| alive[i]) {
                    due.extend(paces[i].next_due(0).map(|d| Reverse((d, i))));
                }
            }
            while pending < connecting && slot_of.len() < n {
                // As a Godot 4 client: 255 channels, its id in the CONNECT's data.
                let i = slot_of.len();
                let id = 2 + (std::process::id() % 1000) * 10_000 + (first + i) as u32;
                let p = host.connect(addr, 255, id).unwrap();
                index_of[p.id().0] = i;
                slot_of.push(p.id());
                pending += 1;
            }
        }
        // What arrived (one service() reads the socket, at most 256 datagrams, and queues the
        // events; more are left readable for the next wake-up); an answer makes room for the
        // next call at once.
        let sending = ph.is_some_and(|x| now >= x.start && now < x.end);
        let mut next = host.service().ok().flatten();
        while let Some(ev) = next {
            match ev {
                enet::Event::Connect { peer, .. } => {
                    let i = index_of[peer.id().0];
                    let _ = peer.send(0, &enet::Packet::reliable(protos[i].hello()));
                }
                enet::Event::Disconnect { peer, .. } => {
                    let i = index_of[peer.id().0];
                    if alive[i] && !confirmed[i] {
                        pending -= 1;
                    }
                    alive[i] = false;
                }
                enet::Event::Receive { peer, packet, .. } => {
                    let i = index_of[peer.id().0];
                    let p = &mut protos[i];
                    match p.receive(packet.data(), now, ph.as_ref()) {
                        Got::Answer(a) => {
                            let _ = peer.send(0, &enet::Packet::reliable(a));
                        }
                        Got::Confirmed if ph.is_none() && !confirmed[i] => {
                            confirmed[i] = true;
                            pending -= 1;
                            p.report.ready = true;
                            ready.fetch_add(1, Ordering::Relaxed);
                        }
                        Got::Echo if sending && p.report.ready => {
                            while paces[i].due(now, p.sent.len()) {
                                let b = p.call(now);
                                let _ = peer.send(0, &enet::Packet::reliable(b));
                            }
                            if held[i] {
                                if let Some(d) = paces[i].next_due(p.sent.len()) {
                                    due.push(Reverse((d, i)));
                                    held[i] = false;
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            next = host.check_events();
        }
        let mut wake = now + TICK;
        match ph {
            None if now >= connect_by => break,
            None => {}
            Some(x) if now >= x.drain => break,
            Some(x) if now >= x.end => {
                let busy = (0..n).any(|i| alive[i] && confirmed[i] && !protos[i].sent.is_empty());
                if !busy {
                    break;
                }
            }
            Some(x) if now < x.start => wake = wake.min(x.start),
            Some(x) if open => {
                while let Some(&Reverse((d, i))) = due.peek() {
                    if d > now {
                        wake = wake.min(d);
                        break;
                    }
                    due.pop();
                    if !alive[i] {
                        continue;
                    }
                    let p = &mut protos[i];
                    send_due(&mut host, slot_of[i], &mut paces[i], p, now);
                    match paces[i].next_due(p.sent.len()) {
                        Some(d) => due.push(Reverse((d, i))),
                        None => held[i] = true,
                    }
                }
                wake = wake.min(x.end);
            }
            Some(x) => {
                // Closed loop: the first calls (and any room left).
                for i in 0..n {
                    if !(alive[i] && confirmed[i]) {
                        continue;
                    }
                    let p = &mut protos[i];
                    send_due(&mut host, slot_of[i], &mut paces[i], p, now);
                    if let Some(d) = paces[i].next_due(p.sent.len()) {
                        wake = wake.min(d);
                    }
                }
                wake = wake.min(x.end);
            }
        }
        host.flush();
        let fine = open && ph.is_some_and(|x| wake <= x.end);
        tokio::select! {
            _ = sock.readable() => {}
            () = tokio::time::sleep_until(wake.into()), if !fine => {}
            () = alarm.wait(wake), if fine => {}
            r = phases.changed(), if ph.is_none() => { if r.is_err() { break; } }
        }
    }
    for &s in &slot_of {
        host.peer_mut(s).disconnect(0);
    }
    host.flush();
    protos
        .into_iter()
        .zip(alive)
        .zip(paces)
        .map(|((p, a), pace)| {
            let mut report = p.finish(!a);
            report.late = pace.late;
            report
        })
        .collect()
}
