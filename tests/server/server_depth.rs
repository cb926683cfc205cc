//! The example server answers every value, also one it cannot echo: a value nested at the depth
//! limit (1024 levels, which `validate` accepts) would be nested one level deeper in the echo,
//! so its reply is an error reply, over TCP and WebSocket alike, and the connection goes on
//! (it used to be dropped without a word).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gdvariant::framing::{frames, FrameOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

use crate::server;

/// `[[…[0]…]]`: an Int at `depth` (the top-level value is at depth 0), as `var_to_bytes` writes it.
fn nested(depth: usize) -> Vec<u8> {
    let mut b = [28u8, 0, 0, 0, 1, 0, 0, 0].repeat(depth);
    b.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// The reply's `"error"` text, or `None` for an echo.
fn error_of(reply: &[u8]) -> Option<String> {
    let v = gdvariant::parse(reply).unwrap();
    let d = v.as_dictionary().unwrap();
    assert!(d.get("seq").unwrap().is_some());
    d.get("error")
        .unwrap()
        .map(|e| e.as_str().unwrap().to_owned())
}

#[test]
fn values_at_the_depth_limit_get_an_error_reply_and_the_connection_goes_on() {
    let _machine = crate::shared();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let srv = server::Server::start(server::Config {
            tcp: "127.0.0.1:0".parse().unwrap(),
            ws: Some("127.0.0.1:0".parse().unwrap()),
            ..server::Config::default()
        })
        .await
        .unwrap();
        let depths = [1022, 1023, 1024, 1025, 1];
        // What each depth gets: an echo, an echo, an error reply (the echo would be too deep),
        // an error reply (the value itself is too deep), and an echo after them.
        let want_error = [false, false, true, true, false];

        // TCP: length-prefixed values, replies in order.
        let mut tcp = tokio::net::TcpStream::connect(srv.tcp).await.unwrap();
        for d in depths {
            let v = nested(d);
            tcp.write_all(&(v.len() as u32).to_le_bytes())
                .await
                .unwrap();
            tcp.write_all(&v).await.unwrap();
        }
        let mut got = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let replies = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let n = tcp.read(&mut buf).await.unwrap();
                assert!(n > 0, "connection closed after {} bytes", got.len());
                got.extend_from_slice(&buf[..n]);
                let complete: Vec<Vec<u8>> = frames(&got, &FrameOptions::new())
                    .map_while(|f| f.ok().map(|v| v.raw().unwrap().to_vec()))
                    .collect();
                if complete.len() == depths.len() {
                    break complete;
                }
            }
        })
        .await
        .expect("every value answered over TCP");
        for ((reply, d), want) in replies.iter().zip(depths).zip(want_error) {
            let err = error_of(reply);
            assert_eq!(err.is_some(), want, "TCP depth {d}: {err:?}");
            if let Some(e) = err {
                assert!(e.contains("deeper than the depth limit of 1024"), "{e}");
            }
        }

        // WebSocket: one value a message.
        let addr = srv.ws.unwrap();
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}"), stream)
            .await
            .unwrap();
        for (d, want) in depths.into_iter().zip(want_error) {
            ws.send(Message::Binary(nested(d).into())).await.unwrap();
            let reply = tokio::time::timeout(Duration::from_secs(20), ws.next())
                .await
                .expect("an answer over WebSocket")
                .expect("the connection goes on")
                .unwrap();
            let err = error_of(&reply.into_data());
            assert_eq!(err.is_some(), want, "WebSocket depth {d}: {err:?}");
        }
        srv.shutdown(Duration::from_secs(5)).await;
    });
}
