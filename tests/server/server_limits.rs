//! The example server's limits (`examples/server/`, issue 27 points 5 and 6), each against a
//! server of its own, started in-process with short limits:
//!
//! - a WebSocket message must be complete within the frame timeout from the first byte of its
//!   first frame, as a TCP frame must: a large part then a trickle, or many slow fragments
//!   (pings between them do not restart the clock), get the client dropped;
//! - a connection that sends nothing is dropped after the idle timeout (TCP and WebSocket);
//! - connections over `max_connections` are closed at once, the others served;
//! - the bytes of incomplete frames and messages, over every connection, stay within the memory
//!   budget: the connections whose bytes would go over it are dropped, the others served, and
//!   every connection's share comes back when it ends;
//! - a well-behaved client's answers are unchanged (pipelined frames, fragmented messages).
//!
//! Each takes 1 to 3 s.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::server;

/// `var_to_bytes(PackedInt32Array([1, 2, 3]))` in Godot 4.
const VALUE: [u8; 20] = [30, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0];

/// Runs `f` on a current-thread runtime, with the machine shared (not beside a load run).
fn run<F: std::future::Future<Output = ()>>(f: F) {
    let _machine = crate::shared();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f);
}

/// A server on loopback ports, TCP and WebSocket, with a 1 s frame timeout.
async fn start(cfg: server::Config) -> server::Server {
    server::Server::start(server::Config {
        tcp: "127.0.0.1:0".parse().unwrap(),
        ws: Some("127.0.0.1:0".parse().unwrap()),
        ..cfg
    })
    .await
    .unwrap()
}

fn config() -> server::Config {
    server::Config {
        frame_timeout: Duration::from_secs(1),
        ..server::Config::default()
    }
}

/// Checks that `reply` is the server's answer to `value` (Godot 4 bytes), the `seq`-th of its
/// connection: `{"seq", "type", "size", "echo", "count", "sum"}` in this order.
fn check_reply(reply: &[u8], seq: i64, value: &[u8], count: i64, sum: f64) {
    let r = gdvariant::parse(reply).unwrap();
    let d = r.as_dictionary().unwrap();
    let keys: Vec<String> = d
        .iter()
        .map(|e| e.unwrap().0.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys, ["seq", "type", "size", "echo", "count", "sum"]);
    let get = |k: &str| d.get(k).unwrap().unwrap();
    let v = gdvariant::parse(value).unwrap();
    assert_eq!(get("seq").as_i64().unwrap(), seq);
    assert_eq!(get("type").as_i64().unwrap(), i64::from(v.header() & 0xFF));
    assert_eq!(get("size").as_i64().unwrap(), value.len() as i64);
    assert_eq!(get("echo").to_owned().unwrap(), v.to_owned().unwrap());
    assert_eq!(get("count").as_i64().unwrap(), count);
    assert_eq!(get("sum").as_f64().unwrap(), sum);
}

/// Sends `value` as one frame and reads one reply frame.
async fn tcp_roundtrip(s: &mut TcpStream, value: &[u8]) -> Vec<u8> {
    s.write_all(&(value.len() as u32).to_le_bytes())
        .await
        .unwrap();
    s.write_all(value).await.unwrap();
    read_frame(s).await
}

async fn read_frame(s: &mut TcpStream) -> Vec<u8> {
    tokio::time::timeout(Duration::from_secs(5), async {
        let mut len = [0u8; 4];
        s.read_exact(&mut len).await.unwrap();
        let mut reply = vec![0u8; u32::from_le_bytes(len) as usize];
        s.read_exact(&mut reply).await.unwrap();
        reply
    })
    .await
    .expect("a reply within 5 s")
}

/// Waits (at most `limit`) for the server to close `s`, reading and discarding what comes; how
/// long that took, or `None` if it stayed open.
async fn closed_within<R: AsyncReadExt + Unpin>(s: &mut R, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = vec![0u8; 64 * 1024];
    tokio::time::timeout(limit, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await
    .ok()
    .map(|()| start.elapsed())
}

/// A WebSocket connection, the handshake done by hand, so that the test writes raw frames.
async fn ws_raw(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut resp = Vec::new();
    while !resp.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        assert_eq!(s.read(&mut b).await.unwrap(), 1, "handshake refused");
        resp.push(b[0]);
    }
    assert!(resp.starts_with(b"HTTP/1.1 101"), "{resp:?}");
    s
}

/// A client frame's header: FIN, opcode, masked with a zero key (the payload goes as it is).
fn ws_head(fin: bool, opcode: u8, len: u64) -> Vec<u8> {
    let mut h = vec![if fin { 0x80 } else { 0 } | opcode];
    match len {
        0..=125 => h.push(0x80 | len as u8),
        126..=0xFFFF => {
            h.push(0x80 | 126);
            h.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            h.push(0x80 | 127);
            h.extend_from_slice(&len.to_be_bytes());
        }
    }
    h.extend_from_slice(&[0; 4]);
    h
}

/// A WebSocket client (tungstenite's).
async fn ws_client(
    addr: std::net::SocketAddr,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    let stream = TcpStream::connect(addr).await.unwrap();
    tokio_tungstenite::client_async(format!("ws://{addr}"), stream)
        .await
        .unwrap()
        .0
}

async fn ws_roundtrip(
    ws: &mut tokio_tungstenite::WebSocketStream<TcpStream>,
    value: &[u8],
) -> Vec<u8> {
    ws.send(Message::Binary(value.to_vec().into()))
        .await
        .unwrap();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a reply within 5 s")
            .expect("the connection goes on")
            .unwrap();
        if let Message::Binary(b) = msg {
            return b.to_vec();
        }
    }
}

/// Waits (at most 3 s) until `f` holds.
async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(3), "not so: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn assert_dropped_for(srv: &server::Server, n: usize, reason: &str) {
    let drops = srv.stats.recent_drops();
    let matching = drops.iter().filter(|d| d.contains(reason)).count();
    assert_eq!(matching, n, "{n} drops for {reason:?} expected: {drops:#?}");
}

#[test]
fn a_websocket_message_trickled_after_a_large_part_is_dropped_after_the_frame_timeout() {
    run(async {
        let srv = start(config()).await;
        let mut s = ws_raw(srv.ws.unwrap()).await;
        let started = Instant::now();
        // 2 MiB of a message announced as 4 MiB, then a byte every 100 ms.
        s.write_all(&ws_head(true, 2, 4 << 20)).await.unwrap();
        s.write_all(&vec![0u8; 2 << 20]).await.unwrap();
        let (mut r, mut w) = s.into_split();
        let trickle = tokio::spawn(async move {
            while w.write_all(&[0]).await.is_ok() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let closed = closed_within(&mut r, Duration::from_secs(4)).await;
        trickle.abort();
        let took = started.elapsed();
        assert!(
            closed.is_some(),
            "the trickling client is still connected after {took:?}"
        );
        assert!(took >= Duration::from_millis(900), "dropped after {took:?}");
        assert_dropped_for(&srv, 1, "stalled mid-message (");
        // Its share of the budget is back, and the server answers as before.
        eventually("the budget is free", || srv.budget.used() == 0).await;
        let mut ws = ws_client(srv.ws.unwrap()).await;
        check_reply(&ws_roundtrip(&mut ws, &VALUE).await, 0, &VALUE, 3, 6.0);
        srv.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn a_websocket_message_sent_as_slow_fragments_is_dropped_after_the_frame_timeout() {
    run(async {
        let srv = start(config()).await;
        let mut s = ws_raw(srv.ws.unwrap()).await;
        let started = Instant::now();
        // A binary message's first fragment, then a ping and a 1 KiB continuation every 150 ms:
        // each frame is complete and prompt, the message never is.
        s.write_all(&ws_head(false, 2, 1024)).await.unwrap();
        s.write_all(&[0u8; 1024]).await.unwrap();
        let (mut r, mut w) = s.into_split();
        let fragments = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(150)).await;
                let mut f = ws_head(true, 9, 0); // ping
                f.extend(ws_head(false, 0, 1024)); // continuation, not the last
                f.extend_from_slice(&[0u8; 1024]);
                if w.write_all(&f).await.is_err() {
                    break;
                }
            }
        });
        let closed = closed_within(&mut r, Duration::from_secs(4)).await;
        fragments.abort();
        let took = started.elapsed();
        assert!(
            closed.is_some(),
            "the slow fragments' client is still connected after {took:?}"
        );
        assert!(took >= Duration::from_millis(900), "dropped after {took:?}");
        assert_dropped_for(&srv, 1, "stalled mid-message (");
        eventually("the budget is free", || srv.budget.used() == 0).await;
        srv.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn a_connection_that_sends_nothing_is_dropped_after_the_idle_timeout() {
    run(async {
        let srv = start(server::Config {
            idle_timeout: Duration::from_secs(1),
            frame_timeout: Duration::from_secs(10),
            ..server::Config::default()
        })
        .await;
        let started = Instant::now();
        let mut tcp = TcpStream::connect(srv.tcp).await.unwrap();
        let mut ws = ws_raw(srv.ws.unwrap()).await;
        // A client that sends a value every 300 ms meanwhile is served all along.
        let addr = srv.tcp;
        let busy = tokio::spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            for seq in 0..7 {
                check_reply(&tcp_roundtrip(&mut s, &VALUE).await, seq, &VALUE, 3, 6.0);
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        });
        let tcp_closed = closed_within(&mut tcp, Duration::from_secs(4)).await;
        let ws_closed = closed_within(&mut ws, Duration::from_secs(4)).await;
        let took = started.elapsed();
        assert!(
            tcp_closed.is_some(),
            "the idle TCP client is still connected after {took:?}"
        );
        assert!(
            ws_closed.is_some(),
            "the idle WebSocket client is still connected after {took:?}"
        );
        assert!(
            tcp_closed.unwrap() >= Duration::from_millis(900),
            "{tcp_closed:?}"
        );
        busy.await.unwrap();
        assert_dropped_for(&srv, 2, "idle: no byte received for ");
        srv.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn connections_over_the_cap_are_closed_at_once_and_the_others_served() {
    run(async {
        let srv = start(server::Config {
            max_connections: 2,
            ..config()
        })
        .await;
        // Two places, TCP and WebSocket together.
        let mut a = TcpStream::connect(srv.tcp).await.unwrap();
        check_reply(&tcp_roundtrip(&mut a, &VALUE).await, 0, &VALUE, 3, 6.0);
        let mut b = ws_client(srv.ws.unwrap()).await;
        check_reply(&ws_roundtrip(&mut b, &VALUE).await, 0, &VALUE, 3, 6.0);
        // A third over TCP and a fourth over WebSocket are closed at once.
        let mut c = TcpStream::connect(srv.tcp).await.unwrap();
        let _ = c.write_all(&[4, 0, 0, 0]).await;
        let c_closed = closed_within(&mut c, Duration::from_millis(900)).await;
        assert!(c_closed.is_some(), "the third connection was not closed");
        let mut d = TcpStream::connect(srv.ws.unwrap()).await.unwrap();
        assert!(closed_within(&mut d, Duration::from_millis(900))
            .await
            .is_some());
        assert_eq!(
            srv.stats.refused.load(std::sync::atomic::Ordering::Relaxed),
            2
        );
        // The first two go on.
        check_reply(&tcp_roundtrip(&mut a, &VALUE).await, 1, &VALUE, 3, 6.0);
        check_reply(&ws_roundtrip(&mut b, &VALUE).await, 1, &VALUE, 3, 6.0);
        // A place given back is taken again (the connection's task gives it back as it counts
        // the close, with no await between: this runtime has one thread).
        drop(a);
        let closed = || srv.stats.closed.load(std::sync::atomic::Ordering::Relaxed) == 1;
        eventually("the first connection's end is seen", closed).await;
        let mut e = TcpStream::connect(srv.tcp).await.unwrap();
        check_reply(&tcp_roundtrip(&mut e, &VALUE).await, 0, &VALUE, 3, 6.0);
        assert_eq!(
            srv.stats.dropped.load(std::sync::atomic::Ordering::Relaxed),
            0
        );
        srv.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn the_memory_budget_drops_the_connections_that_would_exceed_it_and_serves_the_others() {
    run(async {
        const BUDGET: usize = 1 << 20;
        let srv = start(server::Config {
            memory_budget: BUDGET,
            frame_timeout: Duration::from_secs(5),
            ..server::Config::default()
        })
        .await;
        // `var_to_bytes(PackedByteArray)` of 500 KiB, one frame.
        let n = 500 * 1024;
        let mut big = vec![29, 0, 0, 0];
        big.extend_from_slice(&(n as u32).to_le_bytes());
        big.extend((0..n).map(|i| (i % 7) as u8));
        let sum = (0..n).map(|i| (i % 7) as f64).sum::<f64>();
        let mut frame = (big.len() as u32).to_le_bytes().to_vec();
        frame.extend_from_slice(&big);
        let part = 400 * 1024; // 400 KiB of each client's frame, then a pause

        // Two clients hold 400 KiB each of an incomplete frame: within the budget.
        let mut h1 = TcpStream::connect(srv.tcp).await.unwrap();
        h1.write_all(&frame[..part]).await.unwrap();
        eventually("h1's bytes counted", || srv.budget.used() == part).await;
        let mut h2 = TcpStream::connect(srv.tcp).await.unwrap();
        h2.write_all(&frame[..part]).await.unwrap();
        eventually("h2's bytes counted", || srv.budget.used() == 2 * part).await;

        // A third and a fourth over TCP, and a WebSocket client, would go over: each dropped.
        for i in 0..2 {
            let mut h = TcpStream::connect(srv.tcp).await.unwrap();
            let _ = h.write_all(&frame[..part]).await; // may fail: the server closes it
            let closed = closed_within(&mut h, Duration::from_secs(2)).await;
            assert!(
                closed.is_some(),
                "TCP client {} over the budget not dropped",
                i + 3
            );
        }
        let mut w = ws_raw(srv.ws.unwrap()).await;
        let _ = w.write_all(&ws_head(true, 2, 2 << 20)).await;
        let _ = w.write_all(&vec![0u8; part]).await;
        let closed = closed_within(&mut w, Duration::from_secs(2)).await;
        assert!(
            closed.is_some(),
            "the WebSocket client over the budget not dropped"
        );
        assert_dropped_for(
            &srv,
            3,
            &format!("memory budget of {BUDGET} bytes exhausted ("),
        );
        eventually("the dropped clients' bytes given back", || {
            srv.budget.used() == 2 * part
        })
        .await;

        // Well-behaved clients are answered meanwhile, over TCP and WebSocket.
        let mut ok = TcpStream::connect(srv.tcp).await.unwrap();
        check_reply(&tcp_roundtrip(&mut ok, &VALUE).await, 0, &VALUE, 3, 6.0);
        let mut ws = ws_client(srv.ws.unwrap()).await;
        check_reply(&ws_roundtrip(&mut ws, &VALUE).await, 0, &VALUE, 3, 6.0);

        // The two within the budget finish their frames and are answered.
        h1.write_all(&frame[part..]).await.unwrap();
        check_reply(&read_frame(&mut h1).await, 0, &big, n as i64, sum);
        h2.write_all(&frame[part..]).await.unwrap();
        check_reply(&read_frame(&mut h2).await, 0, &big, n as i64, sum);
        assert_eq!(srv.budget.used(), 0);
        assert_eq!(
            srv.stats.dropped.load(std::sync::atomic::Ordering::Relaxed),
            3
        );
        srv.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn a_well_behaved_client_gets_the_same_answers() {
    run(async {
        let srv = start(config()).await;
        // TCP: 50 frames in one write (many frames a read, frames across reads).
        let mut tcp = TcpStream::connect(srv.tcp).await.unwrap();
        let mut burst = Vec::new();
        for _ in 0..50 {
            burst.extend_from_slice(&(VALUE.len() as u32).to_le_bytes());
            burst.extend_from_slice(&VALUE);
        }
        tcp.write_all(&burst).await.unwrap();
        for seq in 0..50 {
            check_reply(&read_frame(&mut tcp).await, seq, &VALUE, 3, 6.0);
        }
        // WebSocket: a message in three fragments with a ping between two, sent at once, then
        // a quiet spell longer than the frame timeout (nothing is in progress), then another.
        let mut ws = ws_raw(srv.ws.unwrap()).await;
        let mut m = ws_head(false, 2, 8);
        m.extend_from_slice(&VALUE[..8]);
        m.extend(ws_head(true, 9, 0));
        m.extend(ws_head(false, 0, 8));
        m.extend_from_slice(&VALUE[8..16]);
        m.extend(ws_head(true, 0, 4));
        m.extend_from_slice(&VALUE[16..]);
        ws.write_all(&m).await.unwrap();
        let mut ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
            ws,
            tokio_tungstenite::tungstenite::protocol::Role::Client,
            None,
        )
        .await;
        let mut replies = Vec::new();
        while replies.is_empty() {
            match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
                Ok(Some(Ok(Message::Binary(b)))) => replies.push(b.to_vec()),
                Ok(Some(Ok(_))) => {} // the pong
                other => panic!("no reply: {other:?}"),
            }
        }
        check_reply(&replies[0], 0, &VALUE, 3, 6.0);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        check_reply(&ws_roundtrip(&mut ws, &VALUE).await, 1, &VALUE, 3, 6.0);
        check_reply(&tcp_roundtrip(&mut tcp, &VALUE).await, 50, &VALUE, 3, 6.0);
        assert_eq!(
            srv.stats.dropped.load(std::sync::atomic::Ordering::Relaxed),
            0
        );
        assert_eq!(srv.budget.used(), 0);
        srv.shutdown(Duration::from_secs(5)).await;
    });
}
