//! The `enet` module on real traffic and hostile input.
//!
//! `tests/data/captures/godot{4,3}_enet.pcap` are tcpdump recordings (loopback, link type
//! EN10MB) of `tests/godot/capture_enet{4,3}.gd`: an ENet server and two clients in one headless
//! Godot 4.6.3 / 3.2.3 process (connect, RPCs of several types, a 5000-byte PackedByteArray sent
//! reliably and a 3000-byte one unreliably, disconnect), then a server and a client that both
//! compress with ENet's range coder. Record them again with `tests/godot/capture_enet.sh`; the
//! peer ids are random in each recording, so the tests read them from the traffic (the `CONNECT`
//! `data`) and check that every other place that names a peer agrees.
//!
//! The range coder is also checked against `rusty_enet`'s (ENet's C, transpiled): what it
//! compresses decompresses to the input, and on mutated streams both agree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gdvariant_multiplayer::enet::fragments::{Limits, Progress, Reassembler};
use gdvariant_multiplayer::enet::godot::{self, Config3, Header3, Packet3, TransferMode};
use gdvariant_multiplayer::enet::protocol::{
    Command, CommandKind, Commands, Connect, Datagram, MAXIMUM_MTU, MAXIMUM_PEER_ID,
};
use gdvariant_multiplayer::enet::range_coder;
use gdvariant_multiplayer::{self as multiplayer, godot3, NodeTarget, Packet};
use rusty_enet::{Compressor, RangeCoder};

use crate::common;

/// One UDP datagram of a capture.
struct Udp {
    src: u16,
    dst: u16,
    payload: Vec<u8>,
}

/// Reads a classic pcap file of Ethernet frames (what `tcpdump -i lo -w` writes on Linux) and
/// returns its IPv4 UDP datagrams.
fn read_pcap(path: &Path) -> Vec<Udp> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    assert!(
        [0xa1b2c3d4, 0xa1b23c4d].contains(&u32_at(0)),
        "not a little-endian classic pcap"
    );
    assert_eq!(u32_at(20), 1, "link type EN10MB expected");
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= b.len() {
        let incl = u32_at(at + 8) as usize;
        let frame = &b[at + 16..at + 16 + incl];
        at += 16 + incl;
        // Ethernet II, IPv4, UDP.
        assert_eq!(frame[12..14], [0x08, 0x00], "IPv4 expected");
        let ip = &frame[14..];
        assert_eq!((ip[0] >> 4, ip[9]), (4, 17), "UDP over IPv4 expected");
        let udp = &ip[usize::from(ip[0] & 15) * 4..];
        let len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
        out.push(Udp {
            src: u16::from_be_bytes([udp[0], udp[1]]),
            dst: u16::from_be_bytes([udp[2], udp[3]]),
            payload: udp[8..len].to_vec(),
        });
    }
    assert_eq!(at, b.len(), "trailing bytes in {}", path.display());
    out
}

fn capture(name: &str) -> Vec<Udp> {
    read_pcap(&common::data_dir().join("captures").join(name))
}

/// A whole ENet packet as its receiver gets it: who sent it to whom, on which channel, in which
/// command (the fragments' for a reassembled one).
#[derive(Debug)]
struct Delivered {
    src: u16,
    dst: u16,
    channel: u8,
    kind: CommandKind,
    /// Whether the datagram(s) it came in were compressed.
    compressed: bool,
    data: Vec<u8>,
}

/// Everything read from a capture.
#[derive(Default)]
struct Session {
    /// CONNECTs by the client's port.
    connects: BTreeMap<u16, Connect>,
    /// VERIFY_CONNECTs by the client's port.
    verifies: BTreeMap<u16, Connect>,
    /// Ports that sent a DISCONNECT.
    disconnects: BTreeSet<u16>,
    packets: Vec<Delivered>,
    /// (source, destination) of each compressed datagram, and of each plain one.
    compressed: Vec<(u16, u16)>,
    plain: Vec<(u16, u16)>,
    datagrams: usize,
    fragments: BTreeMap<CommandKind, usize>,
}

/// Reads every datagram of a capture: headers, commands (decompressed when flagged), whole
/// packets and reassembled fragments. Every datagram must read without error.
fn session(udp: &[Udp]) -> Session {
    let mut s = Session::default();
    let mut frags: Reassembler<(u16, u16)> = Reassembler::default();
    // Reliable commands already seen (a retransmission is not a new packet).
    let mut seen = BTreeSet::new();
    let mut frag_compressed = BTreeSet::new();
    let mut dec = range_coder::RangeDecoder::new();
    for u in udp {
        s.datagrams += 1;
        let d = Datagram::parse(&u.payload).unwrap();
        let body;
        if d.header().compressed {
            s.compressed.push((u.src, u.dst));
        } else {
            s.plain.push((u.src, u.dst));
        }
        let commands = if d.header().compressed {
            body = d.decompress_with(&mut dec).unwrap();
            assert!(
                body.len() > u.payload.len() - d.header().size(),
                "compression gained nothing"
            );
            Commands::new(&body, d.header().size())
        } else {
            d.commands()
        };
        if d.header().peer_id == MAXIMUM_PEER_ID {
            assert_eq!(d.header().session_id, 0);
        }
        for c in commands {
            let c = c.unwrap_or_else(|e| panic!("{}->{}: {e}", u.src, u.dst));
            let h = c.header();
            if h.acknowledge()
                && !seen.insert((u.src, u.dst, h.channel_id, h.reliable_sequence_number))
            {
                continue;
            }
            let whole = |kind| Delivered {
                src: u.src,
                dst: u.dst,
                channel: h.channel_id,
                kind,
                compressed: d.header().compressed,
                data: c.data().unwrap().to_vec(),
            };
            match c {
                Command::Connect(k) => {
                    assert_eq!(
                        d.header().peer_id,
                        MAXIMUM_PEER_ID,
                        "CONNECT before a peer id"
                    );
                    assert!(s.connects.insert(u.src, k).is_none());
                }
                Command::VerifyConnect(k) => {
                    assert!(s.verifies.insert(u.dst, k).is_none());
                }
                Command::Disconnect { .. } => {
                    s.disconnects.insert(u.src);
                }
                Command::SendReliable { .. }
                | Command::SendUnreliable { .. }
                | Command::SendUnsequenced { .. } => s.packets.push(whole(c.kind())),
                Command::SendFragment(f) | Command::SendUnreliableFragment(f) => {
                    *s.fragments.entry(c.kind()).or_default() += 1;
                    if d.header().compressed {
                        frag_compressed.insert((u.src, f.start_sequence_number));
                    }
                    if let Progress::Complete(p) = frags.push((u.src, u.dst), &f).unwrap() {
                        s.packets.push(Delivered {
                            src: u.src,
                            dst: u.dst,
                            channel: p.key.channel_id,
                            kind: c.kind(),
                            compressed: frag_compressed.contains(&(u.src, f.start_sequence_number)),
                            data: p.data,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    assert_eq!(frags.pending_packets(), 0, "fragments never completed");
    if std::env::var_os("ENET_DUMP").is_some() {
        for p in &s.packets {
            let head = &p.data[..p.data.len().min(48)];
            println!(
                "{}->{} ch {} {} {}{} bytes: {}",
                p.src,
                p.dst,
                p.channel,
                p.kind,
                if p.compressed { "compressed " } else { "" },
                p.data.len(),
                common::hex(head)
            );
        }
    }
    s
}

/// Checks that the compressed datagrams are exactly some of those between `server` and `client`.
fn compression_only_between(s: &Session, server: u16, client: u16) {
    let pair = |&(x, y): &(u16, u16)| (x, y) == (server, client) || (x, y) == (client, server);
    assert!(s.compressed.len() >= 4, "{:?}", s.compressed);
    assert!(s.compressed.iter().all(pair), "{:?}", s.compressed);
    assert!(
        s.plain.iter().any(pair),
        "every datagram of the pair compressed"
    );
}

fn pattern(n: usize, mul: usize, add: usize) -> Vec<u8> {
    (0..n).map(|i| ((i * mul + add) & 255) as u8).collect()
}

/// The values of an RPC's arguments, as text (`Variant`'s `Display`, the engine's `var_to_str`).
fn texts<'a>(
    args: impl Iterator<Item = gdvariant::Result<multiplayer::ValueRef<'a>>>,
) -> Vec<String> {
    args.map(|a| a.unwrap().to_owned().unwrap().to_string())
        .collect()
}

/// The Godot 4 REMOTE_CALLs of a session: (packet, call) for each, every packet of the session
/// checked to be a valid SceneMultiplayer packet first.
fn calls4(s: &Session) -> Vec<(&Delivered, multiplayer::RemoteCall<'_>)> {
    let mut out = Vec::new();
    for p in &s.packets {
        let packet = multiplayer::parse(&p.data).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        packet.validate().unwrap();
        if let Packet::RemoteCall(c) = packet {
            out.push((p, c));
        }
    }
    out
}

/// The ports of a capture: the two servers (the one every CONNECT of the first session went to,
/// and the compressing one on the next port), and the clients A and B (the first server's, in the
/// order they first sent: the scripts create A's host first, and the engines poll it first) and C
/// (the second's).
fn roles(udp: &[Udp]) -> ([u16; 2], [u16; 3]) {
    let mut servers: Vec<u16> = Vec::new();
    for u in udp {
        if Datagram::parse(&u.payload).unwrap().header().peer_id == MAXIMUM_PEER_ID
            && !servers.contains(&u.dst)
        {
            servers.push(u.dst);
        }
    }
    let &[s1, s2] = &servers[..] else {
        panic!("servers {servers:?}")
    };
    assert_eq!(s2, s1 + 1);
    let clients = |server: u16| -> Vec<u16> {
        let mut v: Vec<u16> = Vec::new();
        for u in udp {
            if u.dst == server && !v.contains(&u.src) {
                v.push(u.src);
            }
        }
        v
    };
    let (c1, c2) = (clients(s1), clients(s2));
    let (&[a, b], &[c]) = (&c1[..], &c2[..]) else {
        panic!("{c1:?} {c2:?}")
    };
    ([s1, s2], [a, b, c])
}

#[test]
fn godot4_capture() {
    let udp = capture("godot4_enet.pcap");
    let s = session(&udp);
    let (servers, [a, b, c]) = roles(&udp);
    let id = |port: u16| godot::connect_peer_id(s.connects[&port].data).expect("a valid peer id");
    let (id_a, id_b, id_c) = (id(a), id(b), id(c));
    for port in [a, b, c] {
        let k = &s.connects[&port];
        // Godot 4 asks for 255 channels (0 = the maximum), ENet's default MTU.
        assert_eq!(
            (k.channel_count, k.mtu, k.data >> 31),
            (255, 1392, 0),
            "{port}"
        );
        assert_eq!(
            (k.window_size, k.incoming_session_id, k.outgoing_session_id),
            (65536, 0xff, 0xff)
        );
        let v = &s.verifies[&port];
        assert_eq!((v.channel_count, v.mtu, v.data), (255, 1392, 0));
        assert_eq!(
            (v.window_size, v.incoming_session_id, v.outgoing_session_id),
            (65536, 0, 0)
        );
        assert!(s.disconnects.contains(&port), "{port} never disconnected");
    }

    // The server tells each client of the other: SYS ADD_PEER with the id that client sent in
    // its CONNECT; DEL_PEER of B to A when B leaves.
    let sys: Vec<(u16, &'static str, i32)> = s
        .packets
        .iter()
        .filter_map(|p| match multiplayer::parse(&p.data) {
            Ok(Packet::Sys(x)) => Some((p.dst, x.kind().name(), x.peer().unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(
        sys,
        [
            (a, "ADD_PEER", id_b as i32),
            (b, "ADD_PEER", id_a as i32),
            (a, "DEL_PEER", id_b as i32)
        ]
    );

    // Every packet is a valid SceneMultiplayer packet; the calls, by method id (the @rpc methods
    // sorted: big 0, chan3 1, hello 2, ordered 3, unrel 4, unrel_big 5).
    let calls = calls4(&s);
    let find = |from: u16, method: u16| {
        let v: Vec<_> = calls
            .iter()
            .filter(|(p, c)| p.src == from && c.method() == method)
            .collect();
        assert_eq!(v.len(), 1, "calls of method {method} from {from}");
        *v[0]
    };
    let mode = |p: &Delivered| {
        let r = godot::receive4(p.channel, p.kind).unwrap();
        (r.transfer_channel, r.mode)
    };
    // A -> server hello(...), reliable, on channel 0 with its node path inline.
    let (p, call) = find(a, 2);
    assert_eq!(
        (p.kind, mode(p)),
        (CommandKind::SendReliable, (0, TransferMode::Reliable))
    );
    assert!(matches!(call.node(), NodeTarget::Path(path) if path == "Game"));
    assert_eq!(
        texts(call.args()),
        [
            "42",
            "\"héllo ☃\"",
            "Vector2(1.5, -2.25)",
            "[1, \"two\", 3.0]",
            "{\n\"k\": true\n}"
        ]
    );
    // Server -> A big(5000 bytes): reliable fragments, reassembled; a byte-only call.
    let (p, call) = find(servers[0], 0);
    assert_eq!(
        (p.dst, p.kind, mode(p)),
        (a, CommandKind::SendFragment, (0, TransferMode::Reliable))
    );
    assert!(call.is_byte_only());
    let arg = call.args().next().unwrap().unwrap();
    assert_eq!(arg.as_bytes().unwrap(), pattern(5000, 7, 3));
    // A -> server unrel(7, 2.5): SEND_UNSEQUENCED on channel 1.
    let (p, call) = find(a, 4);
    assert_eq!(
        (p.kind, mode(p)),
        (CommandKind::SendUnsequenced, (0, TransferMode::Unreliable))
    );
    assert_eq!(
        (p.channel, texts(call.args())),
        (1, vec!["7".to_string(), "2.5".to_string()])
    );
    // B -> server unrel_big(3000 bytes): unreliable fragments, which the engine reports as
    // unreliable ordered (no UNSEQUENCED flag on a reassembled packet).
    let (p, call) = find(b, 5);
    assert_eq!(
        (p.channel, p.kind, mode(p)),
        (
            1,
            CommandKind::SendUnreliableFragment,
            (0, TransferMode::UnreliableOrdered)
        )
    );
    assert_eq!(
        call.args().next().unwrap().unwrap().as_bytes().unwrap(),
        pattern(3000, 13, 1)
    );
    // B -> server ordered("seq") on transfer channel 2 = ENet channel 3, SEND_UNRELIABLE.
    let (p, call) = find(b, 3);
    assert_eq!(
        (p.channel, p.kind, mode(p)),
        (
            3,
            CommandKind::SendUnreliable,
            (2, TransferMode::UnreliableOrdered)
        )
    );
    assert_eq!(texts(call.args()), ["\"seq\""]);
    // Server -> B chan3(-1234567890123), reliable on transfer channel 3 = ENet channel 4.
    let (p, call) = find(servers[0], 1);
    assert_eq!(
        (p.dst, p.channel, p.kind, mode(p)),
        (b, 4, CommandKind::SendReliable, (3, TransferMode::Reliable))
    );
    assert_eq!(texts(call.args()), ["-1234567890123"]);
    // The reverse mapping gives back the channels and commands seen.
    for (p, _) in &calls {
        let (ch, m) = mode(p);
        let send = godot::send4(
            if p.kind == CommandKind::SendUnreliableFragment {
                TransferMode::Unreliable
            } else {
                m
            },
            ch,
        )
        .unwrap();
        assert_eq!(send.channel_id, p.channel);
        assert_eq!(
            godot::send_command(send.flags, p.data.len(), 1392 - 28),
            p.kind
        );
    }

    // The compressing pair (`ENetConnection.compress(COMPRESS_RANGE_CODER)` on both hosts): only
    // its datagrams are compressed, not all of them (ENet sends a datagram as is when compressing
    // does not make it smaller).
    compression_only_between(&s, servers[1], c);
    assert_eq!(
        s.fragments,
        BTreeMap::from([
            (CommandKind::SendFragment, 4 + 2),
            (CommandKind::SendUnreliableFragment, 3)
        ])
    );
    let (p, call) = find(c, 2);
    assert!(p.compressed);
    assert_eq!(
        texts(call.args()),
        [
            "7",
            "\"compressed ☃ compressed ☃\"",
            "Vector2(0.5, 4)",
            "[true, null]",
            "{\n\"n\": -1\n}"
        ]
    );
    let (p, call) = find(servers[1], 0);
    assert!(p.compressed && p.kind == CommandKind::SendFragment);
    assert_eq!(
        call.args().next().unwrap().unwrap().as_bytes().unwrap(),
        pattern(2000, 1, 0)
    );
    let _ = id_c;
}

#[test]
fn godot3_capture() {
    let udp = capture("godot3_enet.pcap");
    let s = session(&udp);
    let (servers, [a, b, c]) = roles(&udp);
    let id = |port: u16| godot::connect_peer_id(s.connects[&port].data).expect("a valid peer id");
    let (id_a, id_b) = (id(a), id(b));
    for port in [a, b, c] {
        let k = &s.connects[&port];
        // Godot 3.2.3's ENet (older than 4.x's 1.3.18) has a default MTU of 1400; three channels.
        assert_eq!(
            (k.channel_count, k.mtu, k.data >> 31),
            (3, 1400, 0),
            "{port}"
        );
        assert_eq!(
            (k.window_size, k.incoming_session_id, k.outgoing_session_id),
            (65536, 0xff, 0xff)
        );
        let v = &s.verifies[&port];
        assert_eq!((v.channel_count, v.mtu, v.data), (3, 1400, 0));
        assert_eq!(
            (v.window_size, v.incoming_session_id, v.outgoing_session_id),
            (65536, 0, 0)
        );
        assert!(s.disconnects.contains(&port), "{port} never disconnected");
    }
    // No unreliable fragments: Godot 3 sends its unreliable packets without UNRELIABLE_FRAGMENT.
    assert_eq!(
        s.fragments.keys().collect::<Vec<_>>(),
        [&CommandKind::SendFragment]
    );

    // Config messages on channel 0 (server to client), data packets behind the 8-byte header on
    // the others, whose source is the sender's id (its CONNECT data, or 1) and whose target is
    // the receiver's.
    let mut config = Vec::new();
    let mut calls = Vec::new();
    for p in &s.packets {
        let id_of = |port: u16| if servers.contains(&port) { 1 } else { id(port) };
        match Packet3::parse(p.channel, &p.data).unwrap() {
            Packet3::Config(m) => {
                assert!(servers.contains(&p.src));
                assert_eq!(Config3::parse(&m.to_bytes()).unwrap(), m);
                config.push((p.dst, m));
            }
            Packet3::Data(h, inner) => {
                assert_eq!(
                    h,
                    Header3 {
                        source: id_of(p.src),
                        target: id_of(p.dst) as i32
                    }
                );
                assert_eq!(h.to_bytes(), p.data[..8]);
                let packet = godot3::parse(inner).unwrap_or_else(|e| panic!("{p:?}: {e}"));
                packet.validate().unwrap();
                if let godot3::Packet::RemoteCall(call) = packet {
                    calls.push((p, call));
                }
            }
        }
    }
    assert_eq!(
        config,
        [
            (a, Config3::AddPeer(id_b)),
            (b, Config3::AddPeer(id_a)),
            (a, Config3::RemovePeer(id_b))
        ]
    );
    let find = |from: u16, method: &str| {
        let v: Vec<_> = calls
            .iter()
            .filter(|(p, c)| p.src == from && c.method() == method)
            .collect();
        assert_eq!(v.len(), 1, "calls of {method} from {from}");
        *v[0]
    };
    // The sends' channels and commands are what `send3` and `send_command` say (fragment length:
    // the 1400-byte MTU less 28).
    let check_send = |p: &Delivered, mode: TransferMode| {
        let send = godot::send3(mode, false);
        assert_eq!(send.channel_id, p.channel);
        assert_eq!(
            godot::send_command(send.flags, p.data.len(), 1400 - 28),
            p.kind
        );
    };
    let (p, call) = find(a, "hello");
    check_send(p, TransferMode::Reliable);
    assert_eq!(p.kind, CommandKind::SendReliable);
    assert!(matches!(call.node(), NodeTarget::Path(path) if path == "Game"));
    assert_eq!(
        texts(call.args()),
        [
            "42",
            "\"héllo ☃\"",
            "Vector2(1.5, -2.25)",
            "[1, \"two\", 3.0]",
            "{\n\"k\": true\n}"
        ]
    );
    let (p, call) = find(servers[0], "big");
    check_send(p, TransferMode::Reliable);
    assert_eq!((p.dst, p.kind), (a, CommandKind::SendFragment));
    let big = call.args().next().unwrap().unwrap();
    assert_eq!(big.as_bytes().unwrap(), pattern(5000, 7, 3));
    let (p, call) = find(a, "unrel");
    check_send(p, TransferMode::Unreliable);
    assert_eq!((p.channel, p.kind), (2, CommandKind::SendUnsequenced));
    assert_eq!(texts(call.args()), ["7", "2.5"]);
    // Over the MTU, an unreliable packet goes as reliable fragments (on the unreliable channel).
    let (p, call) = find(b, "unrel_big");
    check_send(p, TransferMode::Unreliable);
    assert_eq!((p.channel, p.kind), (2, CommandKind::SendFragment));
    let big = call.args().next().unwrap().unwrap();
    assert_eq!(big.as_bytes().unwrap(), pattern(3000, 13, 1));

    // The compressing pair (Godot 3's compression_mode = COMPRESS_RANGE_CODER, the default from
    // 3.4; 3.2.3's default is none, as the first session shows).
    compression_only_between(&s, servers[1], c);
    assert_eq!(
        s.fragments,
        BTreeMap::from([(CommandKind::SendFragment, 4 + 3 + 2)])
    );
    let (p, call) = find(c, "hello");
    assert!(p.compressed);
    assert_eq!(
        texts(call.args()),
        [
            "7",
            "\"compressed ☃ compressed ☃\"",
            "Vector2(0.5, 4)",
            "[true, null]",
            "{\n\"n\": -1\n}"
        ]
    );
    let (p, call) = find(servers[1], "big");
    assert!(p.compressed && p.kind == CommandKind::SendFragment);
    let big = call.args().next().unwrap().unwrap();
    assert_eq!(big.as_bytes().unwrap(), pattern(2000, 1, 0));
}

/// A deterministic xorshift64* stream.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn bytes(&mut self, n: usize, alphabet: u64) -> Vec<u8> {
        (0..n).map(|_| (self.next() % alphabet) as u8).collect()
    }
}

/// Compresses with ENet's own range coder (`rusty_enet`, transpiled from `compress.c`); `None`
/// when the output would not fit in 2 × the input + 64 bytes.
fn enet_compress(coder: &mut RangeCoder, input: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0; input.len() * 2 + 64];
    let n = coder.compress(&[input], input.len(), &mut out);
    (n > 0).then(|| out[..n].to_vec())
}

/// Inputs for the range coder: the captures' command streams (what ENet compresses), random
/// bytes over alphabets of 2 to 256 symbols, runs, text, and streams long enough to exhaust the
/// 4096-symbol table several times.
pub(crate) fn coder_inputs() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for name in ["godot4_enet.pcap", "godot3_enet.pcap"] {
        for u in capture(name) {
            let d = Datagram::parse(&u.payload).unwrap();
            let body = if d.header().compressed {
                d.decompress().unwrap()
            } else {
                d.body().to_vec()
            };
            if !body.is_empty() {
                inputs.push(body);
            }
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (i, n) in [1usize, 2, 3, 7, 64, 255, 1000, 1392, 4000, 4096, 20_000]
        .into_iter()
        .enumerate()
    {
        for alphabet in [2u64, 16, 256] {
            inputs.push(rng.bytes(n, alphabet));
        }
        inputs.push(vec![i as u8; n]);
    }
    inputs.push("héllo ☃ ".repeat(600).into_bytes());
    inputs.push(pattern(70_000, 1, 0));
    inputs
}

#[test]
fn range_coder_round_trips_enet_compress() {
    let mut coder = RangeCoder::new();
    let mut dec = range_coder::RangeDecoder::new();
    let mut checked = 0;
    for input in coder_inputs() {
        let Some(packed) = enet_compress(&mut coder, &input) else {
            continue;
        };
        assert_eq!(
            dec.decompress(&packed, input.len()).unwrap(),
            input,
            "{} bytes",
            input.len()
        );
        // One byte short of room: refused, as ENet refuses it.
        assert!(dec.decompress(&packed, input.len() - 1).is_err());
        // Into a buffer (the server's way): the same bytes; one byte short, refused.
        let mut buf = vec![0; input.len()];
        assert_eq!(dec.decompress_into(&packed, &mut buf).unwrap(), input.len());
        assert_eq!(buf, input);
        assert!(dec
            .decompress_into(&packed, &mut buf[..input.len() - 1])
            .is_err());
        // ENet's own decompression agrees.
        let mut out = vec![0; input.len()];
        assert_eq!(coder.decompress(&packed, &mut out), input.len());
        assert_eq!(out, input);
        checked += 1;
    }
    assert!(checked > 150, "{checked}");
}

#[test]
fn range_coder_agrees_with_enet_on_mutated_streams() {
    let mut coder = RangeCoder::new();
    let mut dec = range_coder::RangeDecoder::new();
    let mut rng = Rng(7);
    let (mut same_ok, mut both_failed) = (0, 0);
    let streams: Vec<Vec<u8>> = coder_inputs()
        .iter()
        .filter(|i| i.len() <= 1500)
        .filter_map(|i| enet_compress(&mut coder, i))
        .collect();
    // A sample (the unoptimised test build runs both decoders slowly): every 8th stream, a
    // bit flip or a random byte at every 3rd position, and truncations.
    for packed in streams.iter().step_by(8) {
        let mut mutants = Vec::new();
        for at in (0..packed.len()).step_by(3) {
            for v in [packed[at] ^ (1 << (rng.next() % 8)), rng.next() as u8] {
                let mut m = packed.clone();
                m[at] = v;
                mutants.push(m);
            }
            mutants.push(packed[..at].to_vec());
        }
        for m in mutants {
            let mine = dec.decompress(&m, MAXIMUM_MTU);
            let mut out = vec![0; MAXIMUM_MTU];
            let theirs = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                coder.decompress(&m, &mut out)
            }));
            match (mine, theirs) {
                // ENet returns 0 for nothing decoded, an overflow, or an empty input.
                (Ok(a), Ok(0)) => assert!(a.is_empty(), "{}", common::hex(&m)),
                (Ok(a), Ok(n)) => {
                    assert_eq!(a, out[..n]);
                    same_ok += 1;
                }
                (Err(_), Ok(0)) => both_failed += 1,
                (Err(e), Ok(n)) => panic!("ENet decoded {n} bytes, this: {e}: {}", common::hex(&m)),
                // Where ENet's C would fail outright (its transpiled Rust panics), this must
                // have refused too.
                (r, Err(_)) => assert!(r.is_err(), "{}", common::hex(&m)),
            }
        }
    }
    println!("{same_ok} mutants decoded alike, {both_failed} refused by both");
    assert!(
        same_ok > 300 && both_failed > 300,
        "{same_ok} {both_failed}"
    );
}

/// Everything a reader of captures does with a datagram, none of which may panic.
fn read_everything(bytes: &[u8], frags: &mut Reassembler<u8>, dec: &mut range_coder::RangeDecoder) {
    let Ok(d) = Datagram::parse(bytes) else {
        return;
    };
    let body;
    let commands = if d.header().compressed {
        match dec.decompress(d.body(), MAXIMUM_MTU - d.header().size()) {
            Ok(b) => {
                body = b;
                Commands::new(&body, d.header().size())
            }
            Err(_) => return,
        }
    } else {
        d.commands()
    };
    for c in commands {
        let Ok(c) = c else { break };
        let _ = (c.header().acknowledge(), c.kind().name());
        let whole = match c {
            Command::SendFragment(f) | Command::SendUnreliableFragment(f) => {
                match frags.push(0, &f) {
                    Ok(Progress::Complete(p)) => p.data,
                    _ => continue,
                }
            }
            _ => match c.data() {
                Some(d) => d.to_vec(),
                None => continue,
            },
        };
        let _ = godot::receive4(c.header().channel_id, c.kind());
        if let Ok(p) = multiplayer::parse(&whole) {
            let _ = p.validate();
        }
        if let Ok(Packet3::Data(_, inner)) = Packet3::parse(c.header().channel_id, &whole) {
            if let Ok(p) = godot3::parse(inner) {
                let _ = p.validate();
            }
        }
    }
}

#[test]
fn hostile_datagrams_never_panic() {
    let mut frags = Reassembler::new(Limits {
        max_packet_size: 1 << 20,
        max_pending_bytes: 1 << 22,
    });
    let mut dec = range_coder::RangeDecoder::new();
    let mut n = 0usize;
    for name in ["godot4_enet.pcap", "godot3_enet.pcap"] {
        for u in capture(name) {
            let p = &u.payload;
            // Decompressing is the slow part: the compressed datagrams' prefixes and mutations
            // are sampled.
            let compressed = Datagram::parse(p).unwrap().header().compressed;
            let stride = if compressed { 5 } else { 1 };
            for end in (0..p.len()).step_by(stride) {
                read_everything(&p[..end], &mut frags, &mut dec);
                n += 1;
            }
            for at in 0..p.len() {
                let values: &[u8] = match (compressed, at) {
                    (false, _) | (_, 0..=1) => &[1, 0x40, 0x80, 0xff],
                    _ if at % stride == 0 => &[0xff],
                    _ => &[],
                };
                for &x in values {
                    let mut m = p.clone();
                    m[at] ^= x;
                    read_everything(&m, &mut frags, &mut dec);
                    n += 1;
                }
                if at < 24 {
                    for v in [0u8, 0xff, 0x0c, 0x08, 0x02] {
                        let mut m = p.clone();
                        m[at] = v;
                        read_everything(&m, &mut frags, &mut dec);
                    }
                }
            }
            assert!(frags.pending_bytes() <= 1 << 22);
        }
    }
    // The bodies of the captures read as compressed data: garbage to the range coder.
    for name in ["godot4_enet.pcap", "godot3_enet.pcap"] {
        for u in capture(name) {
            if let Ok(out) = dec.decompress(&u.payload, MAXIMUM_MTU) {
                assert!(out.len() <= MAXIMUM_MTU);
            }
        }
    }
    assert!(n > 10_000, "{n}");
}

#[test]
fn reading_allocates_nothing_and_reassembly_stays_in_its_bound() {
    // Datagrams and commands are views: reading every plain datagram of both captures allocates
    // nothing.
    let udp: Vec<Udp> = ["godot4_enet.pcap", "godot3_enet.pcap"]
        .into_iter()
        .flat_map(capture)
        .collect();
    let ((commands, payload), allocs) = common::alloc::count_allocs(|| {
        let (mut n, mut bytes) = (0, 0);
        for u in &udp {
            let d = Datagram::parse(&u.payload).unwrap();
            if !d.header().compressed {
                for c in d.commands() {
                    n += 1;
                    bytes += c.unwrap().data().map_or(0, <[u8]>::len);
                }
            }
        }
        (n, bytes)
    });
    assert!(commands > 100 && payload > 10_000, "{commands} {payload}");
    assert_eq!(allocs, 0);

    // A fragment claiming a large packet is refused before anything is allocated for it, and
    // what is held never exceeds the bound.
    let limits = Limits {
        max_packet_size: 1 << 20,
        max_pending_bytes: 100_000,
    };
    let mut frags: Reassembler<u8> = Reassembler::new(limits);
    let mut d = vec![0x00, 0x01, 0x88, 0, 0, 1];
    d.extend_from_slice(&[0, 1, 0, 4]); // start 1, 4 bytes
    d.extend_from_slice(&16u32.to_be_bytes()); // fragmentCount
    d.extend_from_slice(&0u32.to_be_bytes()); // fragmentNumber
    d.extend_from_slice(&(1u32 << 20).to_be_bytes()); // totalLength: 1 MiB
    d.extend_from_slice(&0u32.to_be_bytes()); // fragmentOffset
    d.extend_from_slice(b"abcd");
    let Some(Ok(Command::SendFragment(f))) = Datagram::parse(&d).unwrap().commands().next() else {
        panic!()
    };
    let (r, usage) = common::alloc::measure(|| frags.push(1, &f));
    let e = r.unwrap_err();
    assert!(e.to_string().contains("bound"), "{e}");
    assert!(usage.bytes <= 64, "only the error is allocated: {usage:?}");
    // Within the bound: exactly the packet and its bitmap are allocated.
    let f = gdvariant_multiplayer::enet::protocol::SendFragment {
        total_length: 50_000,
        ..f
    };
    let (r, usage) = common::alloc::measure(|| frags.push(1, &f));
    assert_eq!(
        r.unwrap(),
        Progress::Pending {
            received: 1,
            count: 16
        }
    );
    assert!(usage.peak <= 50_000 + 1024, "{usage:?}");
    assert_eq!(frags.pending_bytes(), 50_000 + 4);
    let f = gdvariant_multiplayer::enet::protocol::SendFragment {
        start_sequence_number: 2,
        ..f
    };
    assert!(
        frags.push(1, &f).is_err(),
        "a second 50 000 bytes exceed the bound"
    );
}
