//! `wss://` (feature `server-wss`): an unmodified headless Godot 4 client connects with
//! `WebSocketMultiplayerPeer.create_client("wss://127.0.0.1:PORT", TLSOptions.client_unsafe())`
//! to a server whose self-signed certificate the test makes, and calls `echo` with values of
//! every type; and the server refuses a certificate or key that does not read.

use crate::common;
use crate::server_live::{check_clients, run_clients, schema};

use std::sync::mpsc as smpsc;
use std::time::Duration;

use gdvariant_multiplayer::server::{Event, Flavor, Server, ServerConfig, ServerCore, To};

/// An echo server on `wss://127.0.0.1:0` with a fresh self-signed certificate; its port, and
/// how to stop it (which returns how many peers joined).
fn wss_server() -> (
    u16,
    tokio::sync::oneshot::Sender<()>,
    smpsc::Receiver<usize>,
) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let (cert, key) = (ck.cert.pem(), ck.key_pair.serialize_pem());
    let (port_tx, port_rx) = smpsc::channel();
    let (joined_tx, joined_rx) = smpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    crate::server_live::on_runtime(move || async move {
        let core = ServerCore::new(schema(Flavor::Godot4), ServerConfig::default());
        let mut server = Server::new(core);
        let a = server
            .listen_wss(
                "127.0.0.1:0".parse().unwrap(),
                cert.as_bytes(),
                key.as_bytes(),
            )
            .await
            .unwrap();
        port_tx.send(a.port()).unwrap();
        let mut joined = 0;
        loop {
            let ev = tokio::select! {
                ev = server.next_event() => ev,
                _ = &mut stop_rx => break,
            };
            match ev {
                Event::PeerJoined(_) => joined += 1,
                Event::Rpc(call) if call.method() == "echo" => {
                    let args: Vec<_> = call.args().collect::<Result<_, _>>().unwrap();
                    server
                        .rpc(To::Peer(call.from()), "Main", "echoed", &args)
                        .unwrap();
                }
                _ => {}
            }
        }
        joined_tx.send(joined).unwrap();
    });
    let port = port_rx.recv_timeout(Duration::from_secs(10)).unwrap();
    (port, stop_tx, joined_rx)
}

#[test]
fn godot4_client_over_wss() {
    if !common::engine_ready(4, "the server over wss:// against Godot 4 clients") {
        return;
    }
    let (port, stop, joined) = wss_server();
    let cfg = format!("transport=wss\nport={port}\npeers=2\n");
    let outs = run_clients(4, "mpserver_client4.gd", &[cfg.clone(), cfg]);
    check_clients("wss", &outs);
    stop.send(()).unwrap();
    assert_eq!(joined.recv_timeout(Duration::from_secs(10)).unwrap(), 2);
}

#[test]
fn a_bad_certificate_or_key_is_refused() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let (cert, key) = (ck.cert.pem(), ck.key_pair.serialize_pem());
        let mut s = Server::new(ServerCore::new(
            schema(Flavor::Godot4),
            ServerConfig::default(),
        ));
        let addr = "127.0.0.1:0".parse().unwrap();
        let e = s.listen_wss(addr, b"", key.as_bytes()).await.unwrap_err();
        assert!(e.to_string().contains("no certificate"), "{e}");
        let e = s
            .listen_wss(addr, cert.as_bytes(), b"junk")
            .await
            .unwrap_err();
        assert!(e.to_string().contains("TLS key"), "{e}");
        // A key that is not the certificate's.
        let other = rcgen::KeyPair::generate().unwrap().serialize_pem();
        let e = s
            .listen_wss(addr, cert.as_bytes(), other.as_bytes())
            .await
            .unwrap_err();
        assert!(e.to_string().contains("certificate and key"), "{e}");
        assert!(s
            .listen_wss(addr, cert.as_bytes(), key.as_bytes())
            .await
            .is_ok());
    });
}
