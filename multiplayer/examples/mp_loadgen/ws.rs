//! A minimal Godot 4 WebSocket client on plain tokio TCP, with the crate's framing (the
//! `websocket` module): the upgrade, masked frames written in one batch per wake-up, the server's
//! frames read from one buffer.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use gdvariant_multiplayer::websocket::godot::{Godot4Message, Godot4Stream};
use gdvariant_multiplayer::websocket::{
    handshake, write_frame, Message, MessageConfig, MessageReader, Opcode,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

use crate::clock::Alarm;
use crate::proto::{Got, Pace, Phases, Proto, Report, Run};

/// The server's bytes read at a time.
const READ_BUF: usize = 16 << 10;

/// One direction each way: what is read from the server, what waits to be written to it.
struct Conn {
    reader: MessageReader,
    godot: Godot4Stream,
    /// Frames waiting to be written, in one `write` per wake-up.
    out: Vec<u8>,
    mask: u32,
}

impl Conn {
    /// Frames `payload` as a client does (masked; the mask changes per frame).
    fn frame(&mut self, payload: &[u8]) {
        self.mask ^= self.mask << 13;
        self.mask ^= self.mask >> 17;
        self.mask ^= self.mask << 5;
        write_frame(
            &mut self.out,
            true,
            Opcode::Binary,
            Some(self.mask.to_le_bytes()),
            payload,
        );
    }

    /// Reads the server's messages in `input`; false when it closed or sent garbage. Sets
    /// `confirmed` when the server confirmed our path.
    fn take(
        &mut self,
        mut input: &[u8],
        p: &mut Proto,
        ph: Option<&Phases>,
        confirmed: &mut bool,
    ) -> bool {
        let now = Instant::now();
        let mut answers: Vec<Vec<u8>> = Vec::new();
        loop {
            let m = match self.reader.read(&mut input) {
                Ok(Some(m)) => m.message(),
                Ok(None) => break,
                Err(_) => return false,
            };
            let data = match m {
                Message::Binary(d) => d,
                Message::Text(t) => t.as_bytes(),
                Message::Close(_) => return false,
                _ => continue,
            };
            match self.godot.message(data) {
                Ok(Godot4Message::PeerId(_)) => {}
                Ok(Godot4Message::Packet(b)) => match p.receive(b, now, ph) {
                    Got::Answer(a) => answers.push(a),
                    Got::Confirmed => *confirmed = true,
                    Got::Echo | Got::Other => {}
                },
                Err(_) => return false,
            }
        }
        for a in answers {
            self.frame(&a);
        }
        true
    }
}

/// One peer: connects, caches `/root/Main`, says it is ready, waits for the phases, calls
/// `echo(n)` as its pace says until the end, waits for what is in flight until the drain's end.
/// In open loop it waits for its calls' instants on the run's clock, for the rest on tokio's
/// timer.
pub async fn peer(
    addr: SocketAddr,
    mut pace: Pace,
    run: Run,
    connecting: Arc<Semaphore>,
) -> Report {
    let Run {
        ready,
        mut phases,
        connect_by,
        clock,
    } = run;
    let mut p = Proto::new();
    // A permit from the connection until the peer is ready: a few connections at a time, so
    // that no server's accept queue overflows (the Godot server's is short).
    let Ok(mut permit) = tokio::time::timeout_at(connect_by.into(), connecting.acquire_owned())
        .await
        .map(|p| p.ok())
    else {
        return p.finish(false);
    };
    // The calls started while this peer waited: it is out of the run.
    if phases.borrow().is_some() {
        return p.finish(false);
    }
    let opened = tokio::time::timeout_at(connect_by.into(), open(addr)).await;
    let Ok(Some((mut tcp, mut c, rest))) = opened else {
        return p.finish(false);
    };
    let mut confirmed = false;
    c.frame(&p.hello());
    if !c.take(&rest, &mut p, None, &mut confirmed) {
        return p.finish(true);
    }
    let mut buf = vec![0u8; READ_BUF];
    let mut ph: Option<Phases> = None;
    let mut dropped = false;
    let sleep = tokio::time::sleep_until(connect_by.into());
    tokio::pin!(sleep);
    let mut sleep_at = connect_by;
    let mut alarm = Alarm::new(clock);
    loop {
        let now = Instant::now();
        if ph.is_none() {
            if let Some(x) = *phases.borrow_and_update() {
                ph = Some(x);
                pace.begin(&x);
            }
        }
        let wake = match ph {
            None if confirmed => None,
            None if now >= connect_by => break,
            None => Some(connect_by),
            // Not ready when the calls started: out of the run.
            Some(_) if !p.report.ready => break,
            Some(x) if now >= x.drain || (now >= x.end && p.sent.is_empty()) => break,
            Some(x) if now < x.start => Some(x.start),
            Some(x) if now < x.end => {
                while pace.due(now, p.sent.len()) {
                    let b = p.call(now);
                    c.frame(&b);
                }
                Some(pace.next_due(p.sent.len()).map_or(x.end, |d| d.min(x.end)))
            }
            Some(x) => Some(x.drain),
        };
        if !c.out.is_empty() {
            if tcp.write_all(&c.out).await.is_err() {
                dropped = true;
                break;
            }
            c.out.clear();
        }
        // Open loop, until the end: the fine clock.
        let fine = pace.is_open() && matches!((wake, ph), (Some(w), Some(x)) if w <= x.end);
        if let Some(w) = wake.filter(|_| !fine) {
            if w != sleep_at {
                sleep.as_mut().reset(w.into());
                sleep_at = w;
            }
        }
        tokio::select! {
            r = tcp.read(&mut buf) => {
                let n = match r {
                    Ok(n) if n > 0 => n,
                    _ => {
                        dropped = true;
                        break;
                    }
                };
                if !c.take(&buf[..n], &mut p, ph.as_ref(), &mut confirmed) {
                    dropped = true;
                    break;
                }
                if confirmed && ph.is_none() && !p.report.ready {
                    p.report.ready = true;
                    ready.fetch_add(1, Ordering::Relaxed);
                    drop(permit.take());
                }
            }
            () = &mut sleep, if wake.is_some() && !fine => {}
            () = alarm.wait(wake.unwrap_or(connect_by)), if fine => {}
            r = phases.changed(), if ph.is_none() => {
                if r.is_err() {
                    break;
                }
            }
        }
    }
    c.out.clear();
    write_frame(&mut c.out, true, Opcode::Close, Some([1, 2, 3, 4]), &[]);
    let _ = tcp.write_all(&c.out).await;
    let mut report = p.finish(dropped);
    report.late = pace.late;
    report
}

/// Connects and upgrades; the bytes read past the server's head come back.
async fn open(addr: SocketAddr) -> Option<(TcpStream, Conn, Vec<u8>)> {
    let mut tcp = TcpStream::connect(addr).await.ok()?;
    tcp.set_nodelay(true).ok()?;
    let req = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(req.as_bytes()).await.ok()?;
    let mut buf = vec![0; 4096];
    let mut have = 0;
    loop {
        let n = tcp.read(&mut buf[have..]).await.ok()?;
        if n == 0 {
            return None;
        }
        have += n;
        if let Some((resp, head)) = handshake::parse_response(&buf[..have]).ok()? {
            if !resp.is_upgrade() {
                return None;
            }
            let c = Conn {
                reader: MessageReader::with_offset(MessageConfig::server_to_client(), head as u64),
                godot: Godot4Stream::server_to_client(),
                out: Vec::new(),
                mask: 0x9E37_79B9,
            };
            return Some((tcp, c, buf[head..have].to_vec()));
        }
        if have == buf.len() {
            return None;
        }
    }
}
