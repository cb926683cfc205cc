//! Hostile peers against the real transports (no engine needed): garbage datagrams and forged
//! ENet `CONNECT`s, garbage on the WebSocket port, oversized and forged WebSocket messages. The
//! server logs or drops each, and an honest client still gets its echoes.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::server::{Event, Flavor, Server, ServerConfig, ServerCore, To};
use gdvariant_multiplayer::{
    self as multiplayer, simplify_path, Packet, RemoteCallBuilder, RpcMethods, Target,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::server_live::schema;

/// How long what must happen may take: a deadline only (it comes within milliseconds), wide for
/// a loaded machine running a debug build. The short waits for what must not happen stay short.
const WAIT: Duration = Duration::from_secs(20);

/// An echo server on a background runtime; its ENet and WebSocket addresses.
fn server(flavor: Flavor) -> (SocketAddr, SocketAddr) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let cfg = ServerConfig {
                flavor,
                ..ServerConfig::default()
            };
            let mut s = Server::new(ServerCore::new(schema(flavor), cfg));
            let enet = s.listen_enet("127.0.0.1:0".parse().unwrap()).await.unwrap();
            let ws = s.listen_ws("127.0.0.1:0".parse().unwrap()).await.unwrap();
            tx.send((enet, ws)).unwrap();
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline {
                let ev = tokio::time::timeout(Duration::from_secs(1), s.next_event()).await;
                if let Ok(Event::Rpc(call)) = ev {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    let _ = s.rpc(To::Peer(call.from()), "Main", "echoed", &args);
                }
            }
        });
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

/// An honest Godot 4 ENet client: connects as `id`, caches Main, calls echo(42); whether
/// echoed(42) came back.
fn honest_enet(addr: SocketAddr, id: u32, wait: Duration) -> bool {
    use rusty_enet as enet;
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut host = enet::Host::new(
        sock,
        enet::HostSettings {
            peer_limit: 1,
            channel_limit: 255,
            ..Default::default()
        },
    )
    .unwrap();
    host.connect(addr, 255, id).unwrap();
    let checksum = RpcMethods::new(["echo", "echoed"]).checksum();
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        while let Ok(Some(ev)) = host.service() {
            match ev {
                enet::Event::Connect { peer, .. } => {
                    let hello = simplify_path(&checksum, 1, "Main").unwrap();
                    let call = RemoteCallBuilder::new(Target::Id(1), 0)
                        .arg(&Variant::Int(42))
                        .unwrap()
                        .finish()
                        .unwrap();
                    peer.send(0, &enet::Packet::reliable(hello)).unwrap();
                    peer.send(0, &enet::Packet::reliable(call)).unwrap();
                }
                enet::Event::Receive { packet, .. } => {
                    if let Ok(Packet::RemoteCall(c)) = multiplayer::parse(packet.data()) {
                        let v = c.args().next().unwrap().unwrap().as_i64().unwrap();
                        return v == 42;
                    }
                }
                enet::Event::Disconnect { .. } => return false,
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

#[test]
fn enet_garbage_and_forged_connects() {
    let (enet, _) = server(Flavor::Godot4);
    let junk = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..3000u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 200) as usize;
        let mut d: Vec<u8> = (0..len).map(|k| (x >> (k % 56)) as u8).collect();
        if i % 3 == 0 && d.len() > 4 {
            // Headers that look like ENet's: peer id 0x0FFF (unassigned), a command byte; every
            // other one flagged compressed, for the server's range decoder (on by default).
            d[0] = if i % 2 == 0 { 0xCF } else { 0x8F };
            d[1] = 0xFF;
            d[4] = (i % 13) as u8 | 0x80;
        }
        let _ = junk.send_to(&d, enet);
    }
    // Forged CONNECTs: ids 0 and 1 (the server's) are refused, a taken id too.
    let (short, long) = (Duration::from_millis(1500), WAIT);
    assert!(!honest_enet(enet, 0, short), "id 0 accepted");
    assert!(!honest_enet(enet, 1, short), "id 1 accepted");
    assert!(
        honest_enet(enet, 1234, long),
        "an honest client after the garbage"
    );
}

#[test]
fn websocket_garbage_and_forgeries() {
    let (_, ws) = server(Flavor::Godot4);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message;
        // Not HTTP at all.
        let mut t = tokio::net::TcpStream::connect(ws).await.unwrap();
        let _ = t.write_all(&[0xFF; 4096]).await;
        drop(t);
        // A WebSocket client sending text, an empty message, a truncated packet, a huge one.
        let tcp = tokio::net::TcpStream::connect(ws).await.unwrap();
        let (mut c, _) = tokio_tungstenite::client_async(format!("ws://{ws}/"), tcp)
            .await
            .unwrap();
        let id = c.next().await.unwrap().unwrap();
        assert_eq!(id.len(), 4);
        let _ = c.send(Message::Text("hello".into())).await;
        let _ = c.send(Message::Binary(Vec::new().into())).await;
        let _ = c.send(Message::Binary(vec![0x00, 0x80].into())).await;
        let _ = c.send(Message::Binary(vec![7u8; 9 << 20].into())).await;
        // Closed by the server (the 9 MiB message is over the limit).
        let end =
            tokio::time::timeout(WAIT, async { while let Some(Ok(_)) = c.next().await {} }).await;
        assert!(end.is_ok(), "the server did not close a 9 MiB message");
        // An honest client still works.
        let tcp = tokio::net::TcpStream::connect(ws).await.unwrap();
        let (mut c, _) = tokio_tungstenite::client_async(format!("ws://{ws}/"), tcp)
            .await
            .unwrap();
        c.next().await.unwrap().unwrap();
        let checksum = RpcMethods::new(["echo", "echoed"]).checksum();
        c.send(Message::Binary(
            simplify_path(&checksum, 1, "Main").unwrap().into(),
        ))
        .await
        .unwrap();
        let call = RemoteCallBuilder::new(Target::Id(1), 0)
            .arg(&Variant::from("still here"))
            .unwrap()
            .finish()
            .unwrap();
        c.send(Message::Binary(call.into())).await.unwrap();
        let got = tokio::time::timeout(WAIT, async {
            while let Some(Ok(Message::Binary(b))) = c.next().await {
                if let Ok(Packet::RemoteCall(r)) = multiplayer::parse(&b) {
                    return r.args().next().unwrap().unwrap().to_owned().unwrap();
                }
            }
            Variant::Nil
        })
        .await
        .unwrap();
        assert_eq!(got, Variant::from("still here"));
    });
}

#[test]
fn godot3_websocket_forged_sender_is_dropped() {
    let (_, ws) = server(Flavor::Godot3);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        use futures_util::{SinkExt, StreamExt};
        use gdvariant_multiplayer::websocket::godot;
        use tokio_tungstenite::tungstenite::Message;
        let tcp = tokio::net::TcpStream::connect(ws).await.unwrap();
        let (mut c, _) = tokio_tungstenite::client_async(format!("ws://{ws}/"), tcp)
            .await
            .unwrap();
        let Some(Ok(Message::Binary(first))) = c.next().await else {
            panic!()
        };
        let godot::Godot3Message::Sys { id, .. } = godot::parse_godot3(&first).unwrap() else {
            panic!()
        };
        // Claims to be someone else: the server drops the connection.
        let call =
            multiplayer::godot3::remote_call(Target::Path("Main"), "echo", &[Variant::Int(1)])
                .unwrap();
        let forged = godot::godot3_data(id as u32 ^ 1, 1, &call);
        c.send(Message::Binary(forged.into())).await.unwrap();
        let end = tokio::time::timeout(WAIT, async {
            while let Some(Ok(m)) = c.next().await {
                if let Message::Binary(b) = m {
                    // Only system messages may come (the server's "peer 1 added").
                    assert!(matches!(
                        godot::parse_godot3(&b),
                        Ok(godot::Godot3Message::Sys { .. })
                    ));
                }
            }
        })
        .await;
        assert!(end.is_ok(), "a forged sender was not dropped");
    });
}

/// A WebSocket connection that never finishes its upgrade request (silent, or a byte at a time
/// and never the blank line) is closed after the server's 10 s handshake limit.
#[test]
fn websocket_upgrade_that_never_ends_is_closed() {
    let (_, ws) = server(Flavor::Godot4);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let start = Instant::now();
        let mut silent = tokio::net::TcpStream::connect(ws).await.unwrap();
        let mut slow = tokio::net::TcpStream::connect(ws).await.unwrap();
        let drip = async {
            for b in b"GET / HTTP/1.1\r\nHost: x\r\n".iter().cycle().take(60) {
                if slow.write_all(&[*b]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            let mut end = [0u8; 16];
            matches!(slow.read(&mut end).await, Ok(0) | Err(_))
        };
        let mut end = [0u8; 16];
        let (silent_closed, slow_closed) = tokio::join!(
            tokio::time::timeout(Duration::from_secs(20), silent.read(&mut end)),
            tokio::time::timeout(Duration::from_secs(20), drip),
        );
        assert!(
            matches!(silent_closed, Ok(Ok(0)) | Ok(Err(_))),
            "{silent_closed:?}"
        );
        assert_eq!(slow_closed, Ok(true));
        let took = start.elapsed();
        assert!(
            took >= Duration::from_secs(9) && took < Duration::from_secs(19),
            "closed after {took:?}"
        );
    });
}
