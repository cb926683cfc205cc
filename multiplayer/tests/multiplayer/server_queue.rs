//! Bounded send queues (no engine needed): a peer that stops reading — over WebSocket its TCP
//! window fills, over ENet it acknowledges nothing — while the server keeps sending to it is
//! dropped once [`ServerConfig::max_send_queue`] bytes wait for it, with the reason; what waits
//! for a peer never passes the limit, and an honest client is served throughout.

use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc as smpsc;
use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::server::{Event, Flavor, Server, ServerConfig, ServerCore, To};
use gdvariant_multiplayer::{self as multiplayer, Packet, RemoteCallBuilder, Target};
use tungstenite::Message;

use crate::server_live::schema;

const LIMIT: usize = 256 << 10;

/// What the server saw: the kicks for a full queue (peer, reason), and the most bytes that ever
/// waited for one peer.
struct Report {
    kicks: Vec<(i32, String)>,
    max_queued: usize,
}

/// An echo server that also broadcasts 16 KiB (`echoed` of a long string) to everyone on each
/// `echo("tick")`; runs until `stop`.
fn server(stop: smpsc::Receiver<()>) -> (SocketAddr, SocketAddr, smpsc::Receiver<Report>) {
    let (addrs_tx, addrs_rx) = smpsc::channel();
    let (report_tx, report_rx) = smpsc::channel();
    crate::server_live::on_runtime(move || async move {
        let cfg = ServerConfig {
            max_send_queue: LIMIT,
            ..ServerConfig::default()
        };
        let mut s = Server::new(ServerCore::new(schema(Flavor::Godot4), cfg));
        let ws = s.listen_ws("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let enet = s.listen_enet("127.0.0.1:0".parse().unwrap()).await.unwrap();
        addrs_tx.send((ws, enet)).unwrap();
        let big = Variant::from("x".repeat(16 << 10));
        let mut report = Report {
            kicks: Vec::new(),
            max_queued: 0,
        };
        while stop.try_recv().is_err() {
            let Ok(ev) = tokio::time::timeout(Duration::from_millis(50), s.next_event()).await
            else {
                continue;
            };
            match ev {
                Event::Rpc(call) => {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    let tick = args[0].to_owned().unwrap() == Variant::from("tick");
                    let _ = s.rpc(To::Peer(call.from()), "Main", "echoed", &args);
                    if tick {
                        s.rpc(To::All, "Main", "echoed", &[&big]).unwrap();
                    }
                }
                Event::Rejected {
                    peer,
                    reason,
                    kicked: true,
                } if reason.contains("send queue") => report.kicks.push((peer, reason)),
                _ => {}
            }
            let peers: Vec<i32> = s.core().peers().collect();
            for p in peers {
                report.max_queued = report.max_queued.max(s.queued(p).unwrap_or(0));
            }
        }
        report_tx.send(report).unwrap();
    });
    let (ws, enet) = addrs_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    (ws, enet, report_rx)
}

fn call(v: &Variant) -> Vec<u8> {
    RemoteCallBuilder::new(Target::Path("Main"), 0)
        .arg(v)
        .unwrap()
        .finish()
        .unwrap()
}

/// A WebSocket client over a socket with a small receive buffer; its peer id.
fn ws_client(addr: SocketAddr) -> (tungstenite::WebSocket<TcpStream>, i32) {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    sock.connect(&addr.into()).unwrap();
    let stream: TcpStream = sock.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let (mut ws, _) = tungstenite::client(format!("ws://{addr}/"), stream).unwrap();
    let Message::Binary(id) = ws.read().unwrap() else {
        panic!("no peer id message")
    };
    (ws, i32::from_le_bytes(id[..4].try_into().unwrap()))
}

/// An honest client: `n` round trips of `echo("tick")`, reading everything; how many came back.
fn honest(addr: SocketAddr, n: usize) -> usize {
    let (mut ws, _) = ws_client(addr);
    let tick = Variant::from("tick");
    let mut got = 0;
    for _ in 0..n {
        ws.send(Message::Binary(call(&tick).into())).unwrap();
        loop {
            let Ok(Message::Binary(b)) = ws.read() else {
                return got;
            };
            if let Ok(Packet::RemoteCall(c)) = multiplayer::parse(&b) {
                if c.args().next().unwrap().unwrap().to_owned().unwrap() == tick {
                    got += 1;
                    break;
                }
            }
        }
    }
    got
}

/// A WebSocket peer that sends `echo` calls and never reads.
fn stuck_ws(addr: SocketAddr) -> i32 {
    let (mut ws, id) = ws_client(addr);
    std::thread::spawn(move || {
        for i in 0..2000 {
            if ws
                .send(Message::Binary(call(&Variant::Int(i)).into()))
                .is_err()
            {
                return;
            }
        }
        std::thread::sleep(Duration::from_secs(20));
    });
    id
}

/// An ENet peer (Godot 4 layout) that sends `echo` calls unreliably and never services its
/// host again after connecting: it acknowledges nothing.
fn stuck_enet(addr: SocketAddr, id: u32) {
    use rusty_enet as enet;
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let settings = enet::HostSettings {
        peer_limit: 1,
        channel_limit: 255,
        ..Default::default()
    };
    let mut host = enet::Host::new(sock, settings).unwrap();
    host.connect(addr, 255, id).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut connected = None;
    while connected.is_none() && Instant::now() < deadline {
        while let Ok(Some(ev)) = host.service() {
            if let enet::Event::Connect { peer, .. } = ev {
                connected = Some(peer.id());
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let slot = connected.expect("the stuck ENet peer connects");
    std::thread::spawn(move || {
        let kind = enet::PacketKind::AlwaysUnreliable { sequenced: false };
        for i in 0..200 {
            let p = enet::Packet::new(call(&Variant::Int(i)), kind);
            if let Some(peer) = host.get_peer_mut(slot) {
                let _ = peer.send(1, &p);
            }
            host.flush();
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_secs(20));
    });
}

#[test]
fn peers_that_do_not_read_are_dropped_and_the_others_served() {
    let (stop_tx, stop_rx) = smpsc::channel();
    let (ws, enet, report) = server(stop_rx);
    let stuck = stuck_ws(ws);
    stuck_enet(enet, 777);
    std::thread::sleep(Duration::from_millis(300));
    // 200 ticks broadcast 3.2 MB to each peer: over the 256 KiB limit for those that do not
    // read; the honest client reads everything and gets every answer.
    let t = Instant::now();
    assert_eq!(honest(ws, 200), 200, "the honest client was not served");
    let took = t.elapsed();
    stop_tx.send(()).unwrap();
    let r = report.recv_timeout(Duration::from_secs(10)).unwrap();
    let mut kicked: Vec<i32> = r.kicks.iter().map(|k| k.0).collect();
    kicked.sort_unstable();
    assert_eq!(kicked, [777, stuck], "{:?}", r.kicks);
    assert!(
        r.max_queued <= LIMIT,
        "{} bytes waited for one peer, over the {LIMIT} limit",
        r.max_queued
    );
    eprintln!(
        "send queues: 200 honest round trips in {took:?}; most bytes waiting for one peer {}; kicks {:?}",
        r.max_queued, r.kicks
    );
}
