//! The server on the application's own runtime and stopped by it (no engine needed), as
//! `Server`'s docs show it: the server in a task of its own on a multi-thread runtime, its
//! `next_event` one branch of a `select!`, stopped by dropping it (with its peers kicked first, or
//! not); a WebSocket client gets a close frame and an ENet client a disconnect.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use gdvariant_multiplayer::server::{
    Event, RpcSpec, Server, ServerConfig, ServerCore, ServerSchema,
};
use rusty_enet as enet;
use tokio_tungstenite::tungstenite::Message;

/// An ENet client that connects as peer 4242 and services its host for `secs` seconds: when it
/// connected and when it was disconnected.
fn enet_client(addr: SocketAddr, secs: u64) -> (Option<Instant>, Option<Instant>) {
    let settings = enet::HostSettings {
        peer_limit: 1,
        channel_limit: 255,
        ..Default::default()
    };
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut host = enet::Host::new(sock, settings).unwrap();
    host.connect(addr, 255, 4242).unwrap();
    let start = Instant::now();
    let (mut connected, mut disconnected) = (None, None);
    while start.elapsed() < Duration::from_secs(secs) && disconnected.is_none() {
        while let Ok(Some(ev)) = host.service() {
            match ev {
                enet::Event::Connect { .. } => connected = Some(Instant::now()),
                enet::Event::Disconnect { .. } => disconnected = Some(Instant::now()),
                enet::Event::Receive { .. } => {}
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (connected, disconnected)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kicking_every_peer_then_dropping_the_server_tells_both_transports() {
    stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_server_tells_both_transports() {
    stop(false).await;
}

/// Two clients join (WebSocket, ENet); the server is stopped (its peers kicked first, or not)
/// and dropped; each client must hear of it: a close frame, an ENet disconnect.
async fn stop(kick: bool) {
    let schema = ServerSchema::new().node("/root/Main", [RpcSpec::any_peer("echo")]);
    let mut server = Server::new(ServerCore::new(schema, ServerConfig::default()));
    let ws = server
        .listen_ws("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let en = server
        .listen_enet("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let (joined_tx, mut joined_rx) = tokio::sync::mpsc::unbounded_channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                event = server.next_event() => {
                    if let Event::PeerJoined(p) = event {
                        joined_tx.send(p).unwrap();
                    }
                }
                _ = &mut stop_rx => break,
            }
        }
        let peers: Vec<_> = server.core().peers().collect();
        if kick {
            for &p in &peers {
                server.kick(p, "server stopping");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        drop(server);
        peers.len()
    });
    let enet = std::thread::spawn(move || enet_client(en, 10));
    let tcp = tokio::net::TcpStream::connect(ws).await.unwrap();
    let (mut client, _) = tokio_tungstenite::client_async(format!("ws://{ws}/"), tcp)
        .await
        .unwrap();
    let mut joined = Vec::new();
    while joined.len() < 2 {
        let p = tokio::time::timeout(Duration::from_secs(5), joined_rx.recv()).await;
        joined.push(p.expect("both clients join within 5 s").unwrap());
    }
    assert!(
        joined.contains(&4242),
        "the ENet client's own id: {joined:?}"
    );

    let stopped = Instant::now();
    stop_tx.send(()).unwrap();
    assert_eq!(task.await.unwrap(), 2);
    // The WebSocket client: its peer id message, the other peer's ADD_PEER, then the close.
    let mut last = None;
    while let Ok(m) = tokio::time::timeout(Duration::from_secs(2), client.next()).await {
        last = Some(m);
        if !matches!(last, Some(Some(Ok(Message::Binary(_))))) {
            break;
        }
    }
    assert!(
        matches!(last, Some(Some(Ok(Message::Close(_)))) | Some(None)),
        "{last:?}"
    );
    let (connected, disconnected) = tokio::task::spawn_blocking(move || enet.join().unwrap())
        .await
        .unwrap();
    let (connected, disconnected) = (connected.unwrap(), disconnected.expect("ENet disconnect"));
    assert!(disconnected > connected);
    // Told, not timed out (ENet's time-out takes 5 s at least).
    assert!(
        disconnected.duration_since(stopped) < Duration::from_secs(2),
        "the ENet client learnt of the stop {:?} after it",
        disconnected.duration_since(stopped)
    );
}
