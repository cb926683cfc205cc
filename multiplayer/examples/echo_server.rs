//! A server that unmodified Godot clients join, serving one node, `/root/Main`, whose script has
//! two RPC methods:
//!
//! ```gdscript
//! @rpc("any_peer", "call_remote", "reliable")   # Godot 3: remote func echo(value)
//! func echo(value): pass
//! @rpc("authority", "call_remote", "reliable")  # Godot 3: remote func echoed(value)
//! func echoed(value): pass
//! ```
//!
//! On `echo(v)` from peer P it calls `echoed(v)` on P, the value's bytes unchanged. One line per
//! peer joining or leaving; runs until interrupted.
//!
//! ```sh
//! cargo run -p gdvariant-multiplayer --features server-ws,server-enet --example echo_server -- \
//!     [--enet ADDR:PORT] [--ws ADDR:PORT] [--godot3]
//! ```

use std::net::SocketAddr;

use gdvariant_multiplayer::server::{
    Event, Flavor, RpcSpec, Server, ServerConfig, ServerCore, ServerSchema, To,
};

fn usage(why: &str) -> ! {
    eprintln!(
        "echo_server: {why}\nusage: echo_server [--enet ADDR:PORT] [--ws ADDR:PORT] [--godot3]"
    );
    std::process::exit(2)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (mut enet, mut ws, mut godot3) = (None, None, false);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut addr = |what: &str| -> SocketAddr {
            let v = args
                .next()
                .unwrap_or_else(|| usage(&format!("{what} needs ADDR:PORT")));
            v.parse()
                .unwrap_or_else(|e| usage(&format!("{what} {v}: {e}")))
        };
        match a.as_str() {
            "--enet" => enet = Some(addr("--enet")),
            "--ws" => ws = Some(addr("--ws")),
            "--godot3" => godot3 = true,
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if enet.is_none() && ws.is_none() {
        usage("give --enet, --ws or both");
    }
    // Godot 3's `remote func` is callable by any peer, as Godot 4's "any_peer".
    let echoed = if godot3 {
        RpcSpec::any_peer("echoed")
    } else {
        RpcSpec::authority("echoed")
    };
    let schema = ServerSchema::new().node("/root/Main", [RpcSpec::any_peer("echo"), echoed]);
    let cfg = ServerConfig {
        flavor: if godot3 {
            Flavor::Godot3
        } else {
            Flavor::Godot4
        },
        ..ServerConfig::default()
    };
    let mut server = Server::new(ServerCore::new(schema, cfg));
    let generation = if godot3 { "Godot 3" } else { "Godot 4" };
    if let Some(a) = ws {
        match server.listen_ws(a).await {
            Ok(a) => println!("listening ws {a} ({generation})"),
            Err(e) => usage(&format!("--ws {a}: {e}")),
        }
    }
    if let Some(a) = enet {
        match server.listen_enet(a).await {
            Ok(a) => println!("listening enet {a} ({generation})"),
            Err(e) => usage(&format!("--enet {a}: {e}")),
        }
    }
    loop {
        match server.next_event().await {
            Event::PeerJoined(p) => println!("peer {p} joined"),
            Event::PeerLeft(p) => println!("peer {p} left"),
            Event::Rpc(call) if call.method() == "echo" => {
                let args: Result<Vec<_>, _> = call.args().collect();
                let sent = match args {
                    Ok(args) => server.rpc(To::Peer(call.from()), "Main", "echoed", &args),
                    Err(e) => Err(e.into()),
                };
                if let Err(e) = sent {
                    eprintln!("echo to {}: {e}", call.from());
                }
            }
            Event::Rejected {
                peer,
                reason,
                kicked,
            } => {
                eprintln!(
                    "peer {peer}: {reason}{}",
                    if kicked { " (kicked)" } else { "" }
                );
            }
            Event::AuthFailed { peer, reason } => eprintln!("peer {peer}: {reason}"),
            _ => {}
        }
    }
}
