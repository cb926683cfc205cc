//! ENet's range coder on the server (no engine needed; Godot 3.6 clients check it live in
//! `server_live`): a client host that compresses (as Godot 3.4+ does by default) calls `echo`
//! with a compressible value against a server in each [`EnetCompression`] mode, and counts the
//! server's datagrams that arrive compressed.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self as smpsc, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gdvariant::Variant;
use gdvariant_multiplayer::server::{
    EnetCompression, Event, Flavor, Server, ServerConfig, ServerCore, To,
};
use gdvariant_multiplayer::{RemoteCallBuilder, Target};
use rusty_enet as enet;

use crate::server_live::{on_runtime, schema};

/// An echo server (Godot 4 layout) on ENet with `compression`; runs until `stop`.
fn server(compression: EnetCompression, stop: smpsc::Receiver<()>) -> SocketAddr {
    let (addr_tx, addr_rx) = smpsc::channel();
    on_runtime(move || async move {
        let core = ServerCore::new(schema(Flavor::Godot4), ServerConfig::default());
        let mut s = Server::new(core);
        let addr = s
            .listen_enet_with("127.0.0.1:0".parse().unwrap(), compression)
            .await
            .unwrap();
        addr_tx.send(addr).unwrap();
        while matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
            let Ok(ev) = tokio::time::timeout(Duration::from_millis(50), s.next_event()).await
            else {
                continue;
            };
            if let Event::Rpc(call) = ev {
                let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                s.rpc(To::Peer(call.from()), "Main", "echoed", &args)
                    .unwrap();
            }
        }
    });
    addr_rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

/// ENet's range coder, counting the datagrams it compressed (smaller: sent compressed) and
/// decompressed.
struct Counting {
    coder: enet::RangeCoder,
    compressed: Arc<AtomicUsize>,
    decompressed: Arc<AtomicUsize>,
}

impl enet::Compressor for Counting {
    fn compress(&mut self, in_buffers: &[&[u8]], in_limit: usize, out: &mut [u8]) -> usize {
        let n = self.coder.compress(in_buffers, in_limit, out);
        if n > 0 && n < in_limit {
            self.compressed.fetch_add(1, Ordering::Relaxed);
        }
        n
    }

    fn decompress(&mut self, in_data: &[u8], out: &mut [u8]) -> usize {
        self.decompressed.fetch_add(1, Ordering::Relaxed);
        self.coder.decompress(in_data, out)
    }
}

/// What one client saw.
#[derive(Debug)]
struct Seen {
    connected: bool,
    echoed: bool,
    /// The client's datagrams that went compressed.
    sent_compressed: usize,
    /// The server's datagrams that arrived compressed.
    got_compressed: usize,
}

/// A compressing client: connects, calls `echo(value)` reliably and waits up to `wait` for
/// `echoed` with the value's bytes.
fn echo_once(addr: SocketAddr, value: &Variant, wait: Duration) -> Seen {
    let compressed = Arc::new(AtomicUsize::new(0));
    let decompressed = Arc::new(AtomicUsize::new(0));
    let settings = enet::HostSettings {
        peer_limit: 1,
        channel_limit: 255,
        compressor: Some(Box::new(Counting {
            coder: enet::RangeCoder::new(),
            compressed: compressed.clone(),
            decompressed: decompressed.clone(),
        })),
        ..Default::default()
    };
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut host = enet::Host::new(sock, settings).unwrap();
    host.connect(addr, 255, 4242).unwrap();
    let call = RemoteCallBuilder::new(Target::Path("Main"), 0)
        .arg(value)
        .unwrap()
        .finish()
        .unwrap();
    let want = gdvariant::encode(value).unwrap();
    let deadline = Instant::now() + wait;
    let (mut echoed, mut connected) = (false, false);
    while !echoed && Instant::now() < deadline {
        let mut just_connected = None;
        while let Ok(Some(ev)) = host.service() {
            match ev {
                enet::Event::Connect { peer, .. } => just_connected = Some(peer.id()),
                enet::Event::Receive { packet, .. } => {
                    echoed |= packet.data().windows(want.len()).any(|w| w == want);
                }
                enet::Event::Disconnect { .. } => {}
            }
        }
        if let Some(id) = just_connected {
            connected = true;
            let p = enet::Packet::new(call.clone(), enet::PacketKind::Reliable);
            host.get_peer_mut(id).unwrap().send(0, &p).unwrap();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    Seen {
        connected,
        echoed,
        sent_compressed: compressed.load(Ordering::Relaxed),
        got_compressed: decompressed.load(Ordering::Relaxed),
    }
}

#[test]
fn the_range_coder_in_each_mode() {
    let value = Variant::from("compressible ".repeat(80));
    let run = |mode| {
        let (stop_tx, stop_rx) = smpsc::channel();
        let addr = server(mode, stop_rx);
        let wait = if mode == EnetCompression::Off { 1 } else { 10 };
        let r = echo_once(addr, &value, Duration::from_secs(wait));
        stop_tx.send(()).unwrap();
        r
    };
    // Accept (the default): reads the compressed call, answers uncompressed.
    let s = run(EnetCompression::Accept);
    assert!(
        s.echoed && s.sent_compressed > 0 && s.got_compressed == 0,
        "{s:?}"
    );
    // RangeCoder: answers compressed too.
    let s = run(EnetCompression::RangeCoder);
    assert!(
        s.echoed && s.sent_compressed > 0 && s.got_compressed > 0,
        "{s:?}"
    );
    // Off: the client's compressed datagrams, its CONNECT among them, are dropped, as stock ENet
    // without a compressor drops them: it never connects (as a Godot 3.4+ client would not).
    let s = run(EnetCompression::Off);
    assert!(!s.connected && s.sent_compressed > 0 && !s.echoed, "{s:?}");
}
