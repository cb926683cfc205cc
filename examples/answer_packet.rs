//! Answer a packet: a client sends `var_to_bytes` packets over UDP on the loopback interface,
//! the server reads each in place and answers with the streaming `Writer`, forwarding part of
//! the request unchanged.
//!
//! ```sh
//! cargo run --example answer_packet
//! ```

use std::net::UdpSocket;
use std::time::Duration;

use gdvariant::{math::Vector3, Dictionary, EncodeOptions, Variant, Writer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = UdpSocket::bind("127.0.0.1:0")?;
    let client = UdpSocket::bind("127.0.0.1:0")?;
    for s in [&server, &client] {
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
    }
    client.connect(server.local_addr()?)?;

    // The client (what a Godot game's PacketPeerUDP.put_var sends).
    for seq in 0..3i64 {
        let mut request = Dictionary::new();
        request.insert("cmd", "move");
        request.insert("seq", seq);
        request.insert("to", Vector3::new(seq as f64, 0.0, -2.5));
        client.send(&gdvariant::encode(&Variant::Dictionary(request))?)?;
    }

    // The server: one buffer, no tree, no allocation to read a packet.
    let mut buf = [0u8; 1500];
    let mut out = Vec::new(); // one reply buffer, reused
    for _ in 0..3 {
        let (n, from) = server.recv_from(&mut buf)?;
        let packet = &buf[..n];
        gdvariant::validate(packet)?; // untrusted: check it all once
        let req = gdvariant::parse(packet)?.as_dictionary()?;
        let seq = req
            .get("seq")?
            .map(|v| v.as_i64())
            .transpose()?
            .unwrap_or(-1);
        let to = req.get("to")?.ok_or("no target")?;

        out.clear();
        let mut w = Writer::with_buffer(out, EncodeOptions::new());
        w.begin_dictionary(None)?;
        w.string("ok")?;
        w.bool(to.as_vector3()?.z < 0.0)?;
        w.string("seq")?;
        w.int(seq)?;
        w.string("echo")?;
        w.raw(&to)?; // the request's bytes, forwarded unchanged
        w.end()?;
        out = w.finish()?;
        server.send_to(&out, from)?;
    }

    // The client reads the answers.
    for seq in 0..3 {
        let n = client.recv(&mut buf)?;
        let reply = gdvariant::parse(&buf[..n])?;
        let echo = reply.path("echo")?.ok_or("no echo")?.as_vector3()?;
        println!(
            "reply {}: ok = {}, echo = {echo:?} ({n} bytes)",
            reply.path("seq")?.ok_or("no seq")?.as_i64()?,
            reply.path("ok")?.ok_or("no ok")?.as_bool()?,
        );
        assert_eq!(reply.path("seq")?.unwrap().as_i64()?, seq);
        assert_eq!(echo, Vector3::new(seq as f64, 0.0, -2.5));
    }
    Ok(())
}
