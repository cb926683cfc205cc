//! WebSocket on real traffic: the packet captures of `tests/data/captures/` (Godot 4 and Godot 3
//! multiplayer sessions over WebSocket, and Godot 4 `put_var` over plain TCP, recorded with
//! tcpdump by `tests/godot/capture_ws.sh`) unframed passively, as an observer of each TCP
//! direction's bytes would: handshakes, frames, messages, Godot's layer, then every packet read
//! and checked against the values the scripts sent. Then hostile versions of the same streams:
//! every prefix (the streams fed a byte at a time) and single-byte mutations.
//!
//! Ids and ports change from one recording to the next: the tests take them from the capture
//! (the id message, the Godot 3 `SYS_ID`) and check that every other place agrees.

use std::collections::BTreeMap;

use gdvariant::{Dialect, Variant};
use gdvariant_multiplayer::websocket::godot::{
    self, Godot3Message, Godot3Sys, Godot4Message, Godot4Stream,
};
use gdvariant_multiplayer::websocket::{handshake, Message, MessageConfig, MessageReader, Opcode};
use gdvariant_multiplayer::{self as multiplayer, godot3, Packet, SysKind};

use crate::common;

// ---- a minimal classic pcap reader and TCP reassembly (loopback: Ethernet, IPv4) ----

/// One TCP connection's two byte streams, in capture order.
#[derive(Debug, Default)]
struct Connection {
    /// Client to server, server to client.
    up: Vec<u8>,
    down: Vec<u8>,
}

/// Reads a classic pcap file (microsecond or nanosecond, either byte order, link type
/// EN10MB) and returns its TCP connections in the order of their SYNs, each direction's
/// payloads concatenated by sequence number (retransmitted bytes dropped, a gap is an error).
fn tcp_connections(name: &str) -> Vec<Connection> {
    let path = common::repo_root().join("tests/data/captures").join(name);
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let magic = u32::from_le_bytes(file[..4].try_into().unwrap());
    let le = match magic {
        0xa1b2_c3d4 | 0xa1b2_3c4d => true,
        0xd4c3_b2a1 | 0x4d3c_b2a1 => false,
        m => panic!("{name}: not a classic pcap file (magic {m:#x})"),
    };
    let u32_at = |at: usize| {
        let b: [u8; 4] = file[at..at + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    assert_eq!(u32_at(20), 1, "{name}: link type must be EN10MB (1)");
    // (src port, dst port) -> next expected sequence number and bytes.
    let mut flows: BTreeMap<(u16, u16), (Option<u32>, Vec<u8>)> = BTreeMap::new();
    let mut order: Vec<(u16, u16)> = Vec::new(); // (client port, server port) by SYN
    let mut at = 24;
    while at + 16 <= file.len() {
        let incl = u32_at(at + 8) as usize;
        let frame = &file[at + 16..at + 16 + incl];
        at += 16 + incl;
        if frame.len() < 14 || frame[12..14] != [0x08, 0x00] {
            continue; // not IPv4
        }
        let ip = &frame[14..];
        let ihl = usize::from(ip[0] & 15) * 4;
        let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
        if ip[9] != 6 {
            continue;
        }
        let tcp = &ip[ihl..total];
        let sport = u16::from_be_bytes([tcp[0], tcp[1]]);
        let dport = u16::from_be_bytes([tcp[2], tcp[3]]);
        let seq = u32::from_be_bytes(tcp[4..8].try_into().unwrap());
        let data_off = usize::from(tcp[12] >> 4) * 4;
        let flags = tcp[13];
        let (syn, ack) = (flags & 2 != 0, flags & 16 != 0);
        let payload = &tcp[data_off..];
        let flow = flows.entry((sport, dport)).or_default();
        if syn {
            flow.0 = Some(seq.wrapping_add(1));
            flow.1.clear();
            if !ack {
                order.push((sport, dport));
            }
            continue;
        }
        if payload.is_empty() {
            continue;
        }
        let next = flow.0.expect("data before the SYN");
        let ahead = seq.wrapping_sub(next) as i32;
        assert!(
            ahead <= 0,
            "{name}: {} bytes missing before seq {seq}",
            ahead
        );
        let dup = (-ahead) as usize;
        if dup < payload.len() {
            flow.1.extend_from_slice(&payload[dup..]);
            flow.0 = Some(next.wrapping_add((payload.len() - dup) as u32));
        }
    }
    order
        .into_iter()
        .map(|(c, s)| Connection {
            up: flows.remove(&(c, s)).map(|f| f.1).unwrap_or_default(),
            down: flows.remove(&(s, c)).map(|f| f.1).unwrap_or_default(),
        })
        .collect()
}

// ---- unframing one direction ----

/// One message of a stream: its opcode, data (a close frame's code as 2 bytes and reason), stream
/// offset, frame count.
#[derive(Clone, Debug, PartialEq)]
struct Msg {
    opcode: Opcode,
    data: Vec<u8>,
    offset: u64,
    frames: u32,
}

/// The handshake head's length and every message after it; panics on any error.
fn unframe(stream: &[u8], from_client: bool) -> (usize, Vec<Msg>) {
    let head = if from_client {
        let (req, n) = handshake::parse_request(stream)
            .unwrap()
            .expect("whole request");
        assert_eq!(req.target(), "/");
        n
    } else {
        let (resp, n) = handshake::parse_response(stream)
            .unwrap()
            .expect("whole response");
        assert!(resp.is_upgrade());
        n
    };
    let config = if from_client {
        MessageConfig::client_to_server()
    } else {
        MessageConfig::server_to_client()
    };
    let mut r = MessageReader::with_offset(config, head as u64);
    let mut input = &stream[head..];
    let mut out = Vec::new();
    while let Some(m) = r.read(&mut input).unwrap() {
        out.push(msg(m.message(), m.offset(), m.frames()));
    }
    assert!(
        input.is_empty() && r.is_at_boundary(),
        "stream ends inside a frame"
    );
    (head, out)
}

fn msg(m: Message<'_>, offset: u64, frames: u32) -> Msg {
    let data = match m {
        Message::Text(s) => s.as_bytes().to_vec(),
        Message::Binary(b) | Message::Ping(b) | Message::Pong(b) => b.to_vec(),
        Message::Close(c) => {
            let mut v = c.code().map_or(vec![], |c| c.to_be_bytes().to_vec());
            v.extend_from_slice(c.reason().as_bytes());
            v
        }
    };
    Msg {
        opcode: m.opcode(),
        data,
        offset,
        frames,
    }
}

fn binary(msgs: &[Msg]) -> Vec<&[u8]> {
    msgs.iter()
        .filter(|m| m.opcode == Opcode::Binary)
        .map(|m| &m.data[..])
        .collect()
}

fn text4(s: &str) -> Variant {
    gdvariant::text::from_str(s, Dialect::Godot4).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

fn text3(s: &str) -> Variant {
    gdvariant::text::from_str(s, Dialect::Godot3).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

/// The 70 000 bytes both scripts send: `(i * 7) % 251`.
fn big_array() -> Vec<u8> {
    (0..70000).map(|i| (i * 7 % 251) as u8).collect()
}

/// The calls among Godot 4 packets (relayed ones too, with the relay's peer): (relay peer,
/// method id, arguments).
fn calls4(packets: &[&[u8]]) -> Vec<(Option<i32>, u16, Vec<Variant>)> {
    let mut out = Vec::new();
    for p in packets {
        let (peer, packet) = match multiplayer::parse(p).unwrap() {
            Packet::Sys(s) if s.kind() == SysKind::Relay => (s.peer(), s.inner().unwrap().unwrap()),
            packet => (None, packet),
        };
        if let Packet::RemoteCall(c) = packet {
            let args = c.args().map(|a| a.unwrap().to_owned().unwrap()).collect();
            out.push((peer, c.method(), args));
        }
    }
    out
}

/// The SYS packets among Godot 4 packets: (kind, peer).
fn sys4(packets: &[&[u8]]) -> Vec<(SysKind, i32)> {
    packets
        .iter()
        .filter_map(|p| match multiplayer::parse(p).unwrap() {
            Packet::Sys(s) => Some((s.kind(), s.peer().unwrap())),
            _ => None,
        })
        .collect()
}

/// The first byte of a frame's length field (7-bit form: the length; 126: 16-bit; 127: 64-bit).
fn length_form(stream: &[u8], m: &Msg) -> u8 {
    stream[m.offset as usize + 1] & 0x7f
}

#[test]
fn godot4_websocket_session() {
    let conns = tcp_connections("godot4_ws.pcap");
    assert_eq!(conns.len(), 2, "clients A and B");
    let mut ids = Vec::new();
    let mut ups = Vec::new();
    let mut downs = Vec::new();
    for c in &conns {
        assert_eq!(handshake::sniff(&c.up), handshake::Sniff::Request);
        assert_eq!(handshake::sniff(&c.down), handshake::Sniff::Response);
        let (req, _) = handshake::parse_request(&c.up).unwrap().unwrap();
        let (resp, _) = handshake::parse_response(&c.down).unwrap().unwrap();
        assert_eq!((req.version(), req.protocols()), (Some("13"), None));
        assert!(resp.accepts(&req), "Sec-WebSocket-Accept answers the key");
        let (_, up) = unframe(&c.up, true);
        let (head, down) = unframe(&c.down, false);
        // The server's first frame: `82 04` and the id.
        assert_eq!(c.down[head..head + 2], [0x82, 0x04]);
        let mut g = Godot4Stream::server_to_client();
        let Godot4Message::PeerId(id) = g.message(&down[0].data).unwrap() else {
            panic!("no id message first")
        };
        assert!(id >= 2);
        ids.push(id);
        // Every later message, both ways: one frame, binary, a valid SceneMultiplayer packet; the
        // session ends with a close 1000 each way (the server closes, the client answers).
        for (msgs, mut g) in [(&down[1..], g), (&up[..], Godot4Stream::client_to_server())] {
            let (last, data) = msgs.split_last().unwrap();
            assert_eq!(
                (last.opcode, &last.data[..]),
                (Opcode::Close, &[0x03, 0xe8][..])
            );
            for m in data {
                assert_eq!((m.opcode, m.frames), (Opcode::Binary, 1));
                let Godot4Message::Packet(p) = g.message(&m.data).unwrap() else {
                    panic!("a second id message")
                };
                multiplayer::validate(p).unwrap_or_else(|e| panic!("{e} in {}", common::hex(p)));
            }
        }
        ups.push(up);
        downs.push(down);
    }
    let (a, b) = (ids[0], ids[1]);
    assert_ne!(a, b);
    let (a_up, b_up) = (binary(&ups[0]), binary(&ups[1]));
    // After the id message.
    let (a_down, b_down) = (
        binary(&downs[0])[1..].to_vec(),
        binary(&downs[1])[1..].to_vec(),
    );

    // The ids agree everywhere: the server tells each client of the other (ADD_PEER), B of A's
    // leaving (DEL_PEER); A reaches B through RELAY to b, B gets it as RELAY from a.
    assert_eq!(sys4(&a_down), [(SysKind::AddPeer, b)]);
    assert_eq!(
        sys4(&b_down),
        [
            (SysKind::AddPeer, a),
            (SysKind::Relay, a),
            (SysKind::Relay, a),
            (SysKind::DelPeer, a)
        ]
    );
    assert_eq!(sys4(&a_up), [(SysKind::Relay, b), (SysKind::Relay, b)]);
    // B confirms A's path cache entry back through the relay (A has gone by then).
    assert_eq!(sys4(&b_up), [(SysKind::Relay, a)]);

    // The calls and their arguments: methods by index in sorted order (big 0, bye 1, hello 2,
    // note 3, welcome 4).
    let hello = |who: &str| {
        let mut v = vec![text4(&format!("{who:?}"))];
        for t in [
            "42",
            "-7000000000",
            "3.25",
            "\"héllo ☃\"",
            "Vector2(1.5, -2)",
            "Vector3i(1, 2, 3)",
            "[1, \"x\", null]",
            "{\"k\": 1, \"list\": [true]}",
            "PackedInt32Array(1, -2, 300000)",
            "true",
            "null",
        ] {
            v.push(text4(t));
        }
        v
    };
    let welcome = |id: i32, who: &str| {
        vec![
            Variant::Int(id.into()),
            text4(&format!("\"welcome {who}\"")),
            text4(&format!("Vector2i({}, 7)", id % 1000)),
        ]
    };
    let note = vec![text4("\"from A\"")];
    assert_eq!(
        calls4(&a_up),
        [
            (None, 2, hello("A")),
            (None, 0, vec![Variant::PackedByteArray(big_array())]),
            (Some(b), 3, note.clone()),
            (None, 1, vec![]),
        ]
    );
    assert_eq!(calls4(&b_up), [(None, 2, hello("B")), (None, 1, vec![])]);
    assert_eq!(calls4(&a_down), [(None, 4, welcome(a, "A"))]);
    assert_eq!(
        calls4(&b_down),
        [(Some(a), 3, note), (None, 4, welcome(b, "B"))]
    );

    // The 70 000 bytes arrived whole in one frame with a 64-bit length, the 12-argument call in
    // one with a 16-bit length; the relay's packet is byte for byte the one A sent.
    let big = ups[0].iter().find(|m| m.data.len() > 70000).unwrap();
    assert_eq!(
        (big.data.len(), big.frames, length_form(&conns[0].up, big)),
        (70011, 1, 127)
    );
    let hello_msg = &ups[0][1];
    assert_eq!(
        (hello_msg.data.len(), length_form(&conns[0].up, hello_msg)),
        (204, 126)
    );
    let relayed_from_a: Vec<&[u8]> = a_up.iter().filter(|p| p[0] == 7).map(|p| &p[6..]).collect();
    let relayed_to_b: Vec<&[u8]> = b_down
        .iter()
        .filter(|p| p[..2] == [7, 3])
        .map(|p| &p[6..])
        .collect();
    assert_eq!(relayed_from_a, relayed_to_b);
}

/// The calls among Godot 3 packets: (method, arguments).
fn calls3(packets: &[&[u8]]) -> Vec<(String, Vec<Variant>)> {
    packets
        .iter()
        .filter_map(|p| match godot3::parse(p).unwrap() {
            godot3::Packet::RemoteCall(c) => Some((
                c.method().as_str().unwrap().to_owned(),
                c.args().map(|a| a.unwrap().to_owned().unwrap()).collect(),
            )),
            _ => None,
        })
        .collect()
}

/// Every binary message of a Godot 3 stream, read.
fn godot3_messages(msgs: &[Msg]) -> Vec<Godot3Message<'_>> {
    binary(msgs)
        .into_iter()
        .map(|m| godot::parse_godot3(m).unwrap())
        .collect()
}

/// The system messages: (what, peer).
fn sys3(msgs: &[Godot3Message<'_>]) -> Vec<(Godot3Sys, i32)> {
    msgs.iter()
        .filter_map(|m| match *m {
            Godot3Message::Sys { sys, id, .. } => Some((sys, id)),
            _ => None,
        })
        .collect()
}

/// The data messages: (from, to, packet).
fn data3<'a>(msgs: &[Godot3Message<'a>]) -> Vec<(u32, i32, &'a [u8])> {
    msgs.iter()
        .filter_map(|m| m.packet().map(|p| (m.from(), m.to(), p)))
        .collect()
}

/// The packets of the data messages.
fn packets3<'a>(msgs: &[Godot3Message<'a>]) -> Vec<&'a [u8]> {
    msgs.iter().filter_map(|m| m.packet()).collect()
}

#[test]
fn godot3_websocket_session() {
    let conns = tcp_connections("godot3_ws.pcap");
    assert_eq!(conns.len(), 2, "clients A and B");
    let mut unframed = Vec::new();
    for c in &conns {
        let (req, _) = handshake::parse_request(&c.up).unwrap().unwrap();
        let (resp, _) = handshake::parse_response(&c.down).unwrap().unwrap();
        assert!(resp.accepts(&req));
        let (_, up) = unframe(&c.up, true);
        let (_, down) = unframe(&c.down, false);
        for msgs in [&up, &down] {
            let last = msgs.last().unwrap();
            assert_eq!(
                (last.opcode, &last.data[..]),
                (Opcode::Close, &[0x03, 0xe8][..])
            );
            assert!(msgs[..msgs.len() - 1]
                .iter()
                .all(|m| m.opcode == Opcode::Binary));
        }
        unframed.push((up, down));
    }
    let mut ids = Vec::new();
    let mut parsed = Vec::new();
    for (up, down) in &unframed {
        // System messages are 13 bytes.
        assert!(binary(down)
            .iter()
            .all(|m| m[0] == 0 || m.len() == godot::GODOT3_SYS_LEN));
        let (up, down) = (godot3_messages(up), godot3_messages(down));
        // First the client's id, then "peer 1 added", both from 1 to 0, 13 bytes.
        let Godot3Message::Sys {
            sys: Godot3Sys::Id,
            from: 1,
            to: 0,
            id,
        } = down[0]
        else {
            panic!("SYS_ID first: {:?}", down[0])
        };
        assert_eq!(
            down[1],
            Godot3Message::Sys {
                sys: Godot3Sys::AddPeer,
                from: 1,
                to: 0,
                id: 1
            }
        );
        assert!(id >= 2);
        // Every client message: data from its own id; every packet valid.
        for m in &up {
            m.check_from_client(id as u32).unwrap();
        }
        for m in up.iter().chain(&down) {
            if let Some(p) = m.packet() {
                godot3::validate(p).unwrap_or_else(|e| panic!("{e} in {}", common::hex(p)));
            }
        }
        ids.push(id);
        parsed.push((up, down));
    }
    let (a, b) = (ids[0], ids[1]);
    assert_ne!(a, b);
    let (a_up, a_down) = (&parsed[0].0, &parsed[0].1);
    let (b_up, b_down) = (&parsed[1].0, &parsed[1].1);
    assert_eq!(
        sys3(a_down),
        [
            (Godot3Sys::Id, a),
            (Godot3Sys::AddPeer, 1),
            (Godot3Sys::AddPeer, b)
        ]
    );
    assert_eq!(
        sys3(b_down),
        [
            (Godot3Sys::Id, b),
            (Godot3Sys::AddPeer, 1),
            (Godot3Sys::AddPeer, a),
            (Godot3Sys::DelPeer, a)
        ]
    );
    // Data: what a client gets is from 1 or the other client, to itself; a client's go to 1, or
    // to the other client (relayed unchanged: the same header and packet arrive).
    assert!(data3(a_down)
        .iter()
        .all(|&(f, t, _)| t == a && (f == 1 || f == b as u32)));
    let a_to_b: Vec<_> = data3(a_up)
        .into_iter()
        .filter(|&(_, t, _)| t == b)
        .collect();
    let from_a: Vec<_> = data3(b_down)
        .into_iter()
        .filter(|&(f, _, _)| f == a as u32)
        .collect();
    assert_eq!(a_to_b.len(), 2, "path and note");
    assert_eq!(a_to_b, from_a);
    assert!(data3(b_up)
        .iter()
        .all(|&(f, t, _)| f == b as u32 && (t == 1 || t == a)));

    let hello = |who: &str| {
        let mut v = vec![text3(&format!("{who:?}"))];
        for t in [
            "42",
            "-7000000000",
            "3.25",
            "\"héllo ☃\"",
            "Vector2( 1.5, -2 )",
            "Vector3( 1, 2, 3 )",
            "[ 1, \"x\", null ]",
            "{\"k\": 1, \"list\": [ true ]}",
            "PoolIntArray( 1, -2, 300000 )",
            "true",
            "null",
        ] {
            v.push(text3(t));
        }
        v
    };
    let welcome = |id: i32, who: &str| {
        vec![
            Variant::Int(id.into()),
            text3(&format!("\"welcome {who}\"")),
            text3(&format!("Vector2( {}, 7 )", id % 1000)),
        ]
    };
    let call = |m: &str, args: Vec<Variant>| (m.to_owned(), args);
    let note = vec![text3("\"from A\"")];
    assert_eq!(
        calls3(&packets3(a_up)),
        [
            call("hello", hello("A")),
            call("big", vec![Variant::PackedByteArray(big_array())]),
            call("note", note.clone()),
            call("bye", vec![]),
        ]
    );
    assert_eq!(
        calls3(&packets3(b_up)),
        [call("hello", hello("B")), call("bye", vec![])]
    );
    assert_eq!(
        calls3(&packets3(a_down)),
        [call("welcome", welcome(a, "A"))]
    );
    assert_eq!(
        calls3(&packets3(b_down)),
        [call("note", note), call("welcome", welcome(b, "B"))]
    );
    // The 70 000 bytes in one frame with a 64-bit length.
    let (_, up) = unframe(&conns[0].up, true);
    let big = up.iter().find(|m| m.data.len() > 70000).unwrap();
    assert_eq!(
        (big.data.len(), big.frames, length_form(&conns[0].up, big)),
        (70032, 1, 127)
    );
}

#[test]
fn godot4_put_var_session() {
    let conns = tcp_connections("godot4_putvar.pcap");
    assert_eq!(conns.len(), 1);
    let c = &conns[0];
    // Not WebSocket: content detection says so from the first bytes.
    assert_eq!(handshake::sniff(&c.up), handshake::Sniff::No);
    assert_eq!(handshake::sniff(&c.down), handshake::Sniff::No);
    let values = |stream: &[u8]| -> Vec<Variant> {
        let opts = gdvariant::framing::FrameOptions::new();
        let mut frames = gdvariant::framing::frames(stream, &opts);
        let mut out = Vec::new();
        while let Some(v) = frames.try_next().unwrap() {
            out.push(v.to_owned().unwrap());
        }
        out
    };
    let sent = [
        "42",
        "\"hello put_var\"",
        "Vector3(1, 2, 3)",
        "{\"a\": [1, 2], \"b\": null}",
        "PackedFloat32Array(0.5, -1)",
        "&\"name\"",
        "Color(1, 0.5, 0.25, 1)",
    ];
    let want: Vec<Variant> = sent.iter().map(|t| text4(t)).collect();
    assert_eq!(values(&c.up), want);
    let echoed: Vec<Variant> = sent
        .iter()
        .map(|t| text4(&format!("[\"echo\", {t}]")))
        .collect();
    assert_eq!(values(&c.down), echoed);
}

/// What a passive observer does with one direction's bytes, errors allowed: the handshake, the
/// messages, Godot's layer and the packets. Returns how many messages it read.
fn observe(stream: &[u8], from_client: bool, godot4: bool) -> usize {
    let head = match handshake::parse_head(stream) {
        Ok(Some((_, n))) => n,
        _ => return 0,
    };
    let config = if from_client {
        MessageConfig::client_to_server()
    } else {
        MessageConfig::server_to_client()
    };
    let mut r = MessageReader::with_offset(config, head as u64);
    let mut g = if from_client {
        Godot4Stream::client_to_server()
    } else {
        Godot4Stream::server_to_client()
    };
    let mut input = &stream[head..];
    let mut n = 0;
    while let Ok(Some(m)) = r.read(&mut input) {
        n += 1;
        let Some(data) = m.message().data() else {
            continue;
        };
        if godot4 {
            if let Ok(Godot4Message::Packet(p)) = g.message(data) {
                if let Ok(p) = multiplayer::parse(p) {
                    let _ = p.validate();
                }
            }
        } else if let Ok(m) = godot::parse_godot3(data) {
            if let Some(p) = m.packet() {
                let _ = godot3::validate(p);
            }
        }
    }
    n
}

fn captured_streams() -> Vec<(String, Vec<u8>, bool, bool)> {
    let mut out = Vec::new();
    for (name, godot4) in [("godot4_ws.pcap", true), ("godot3_ws.pcap", false)] {
        for (i, c) in tcp_connections(name).into_iter().enumerate() {
            out.push((format!("{name} #{i} up"), c.up, true, godot4));
            out.push((format!("{name} #{i} down"), c.down, false, godot4));
        }
    }
    out
}

#[test]
fn captured_streams_fed_a_byte_at_a_time() {
    // Every prefix: the head parsers wait, then the reader, fed one byte per call, returns the
    // same messages at the same offsets as when given everything at once.
    for (name, stream, from_client, _) in captured_streams() {
        let (head, want) = unframe(&stream, from_client);
        for n in 0..head {
            assert_eq!(
                handshake::parse_head(&stream[..n]).map(|h| h.is_some()),
                Ok(false),
                "{name}: {n}"
            );
            assert_eq!(
                handshake::sniff(&stream[..n]),
                handshake::Sniff::NeedMore,
                "{name}: {n}"
            );
        }
        let config = if from_client {
            MessageConfig::client_to_server()
        } else {
            MessageConfig::server_to_client()
        };
        let mut r = MessageReader::with_offset(config, head as u64);
        let mut got = Vec::new();
        for b in &stream[head..] {
            let mut input = std::slice::from_ref(b);
            while let Some(m) = r.read(&mut input).unwrap() {
                got.push(msg(m.message(), m.offset(), m.frames()));
            }
            assert!(input.is_empty());
        }
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn captured_streams_with_one_byte_changed() {
    // Single-byte mutations (three values at each position: every position of the heads and of
    // the first 2 KiB and the last 512 bytes, 300 more spread over the rest) read through every
    // layer: errors, no panic.
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rng = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut runs = 0;
    for (_, stream, from_client, godot4) in captured_streams() {
        let len = stream.len();
        let mut positions: Vec<usize> = (0..len.min(2048))
            .chain(len.saturating_sub(512)..len)
            .collect();
        positions.extend((0..300).map(|_| rng() as usize % len));
        let mut s = stream.clone();
        for &i in &positions {
            for v in [s[i] ^ 0x80, s[i] ^ 0x01, rng() as u8] {
                let old = s[i];
                s[i] = v;
                observe(&s, from_client, godot4);
                s[i] = old;
                runs += 1;
            }
        }
        assert!(observe(&s, from_client, godot4) > 2);
    }
    assert!(runs > 20000, "{runs} runs");
}

#[test]
fn lengths_read_from_the_stream_allocate_nothing_by_themselves() {
    // A frame announcing the largest payload allowed (8 MiB) with 1 000 bytes of it sent: the
    // reader holds what arrived, not what was announced.
    let mut stream = vec![0x82, 127];
    stream.extend_from_slice(&(8u64 << 20).to_be_bytes());
    stream.extend_from_slice(&[7u8; 1000]);
    let mut r = MessageReader::new(MessageConfig::server_to_client());
    let bytes = common::alloc::allocated_by(|| {
        let mut input = &stream[..];
        assert_eq!(r.read(&mut input).unwrap(), None);
        assert!(input.is_empty());
    });
    assert!(bytes < 4096, "{bytes} bytes allocated for 1 000 received");
    assert_eq!(r.frames().partial().map(|h| h.len()), Some(8 << 20));
    // Over the limit (and 2^62): refused on the header, nothing allocated.
    for len in [(8u64 << 20) + 1, 1 << 62] {
        let mut stream = vec![0x82, 127];
        stream.extend_from_slice(&len.to_be_bytes());
        let mut r = MessageReader::new(MessageConfig::server_to_client());
        let bytes = common::alloc::allocated_by(|| {
            assert!(r.read(&mut &stream[..]).is_err());
        });
        assert_eq!(bytes, 0);
    }
}
