//! The `capture` module on synthesized captures: pcap and pcapng, every link type, IPv4 and
//! IPv6, TCP reassembly (segments out of order, retransmitted, overlapping, lost), snap-length
//! cuts, UDP values, and memory bounded by the open flows on a large capture; then on the
//! committed captures of real sessions.

use crate::common;

use gdvariant::{Dialect, Variant};
use gdvariant_multiplayer::capture::{
    Body, CaptureReader, Config, Control, Transport, LINKTYPE_ETHERNET, LINKTYPE_IPV4,
    LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, LINKTYPE_LOOP, LINKTYPE_NULL, LINKTYPE_RAW,
};

/// An IPv4 (or IPv6) packet with a TCP or UDP header, built by hand.
fn ip_packet(v6: bool, tcp: Option<(u32, u8)>, sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut l4 = Vec::new();
    l4.extend_from_slice(&sport.to_be_bytes());
    l4.extend_from_slice(&dport.to_be_bytes());
    match tcp {
        Some((seq, flags)) => {
            l4.extend_from_slice(&seq.to_be_bytes());
            l4.extend_from_slice(&0u32.to_be_bytes());
            l4.extend_from_slice(&[0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
        }
        None => {
            l4.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
            l4.extend_from_slice(&[0, 0]);
        }
    }
    l4.extend_from_slice(payload);
    let proto = if tcp.is_some() { 6 } else { 17 };
    let mut p = Vec::new();
    if v6 {
        p.extend_from_slice(&[0x60, 0, 0, 0]);
        p.extend_from_slice(&(l4.len() as u16).to_be_bytes());
        p.extend_from_slice(&[proto, 64]);
        p.extend_from_slice(&[0; 15]);
        p.push(1);
        p.extend_from_slice(&[0; 15]);
        p.push(1);
    } else {
        p.extend_from_slice(&[0x45, 0]);
        p.extend_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[0, 0, 0x40, 0, 64, proto, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    }
    p.extend_from_slice(&l4);
    p
}

/// The packet behind a link-layer header of `link`.
fn framed(link: u32, ip: Vec<u8>, v6: bool) -> Vec<u8> {
    let et: [u8; 2] = if v6 { [0x86, 0xdd] } else { [0x08, 0x00] };
    let mut f = Vec::new();
    match link {
        LINKTYPE_ETHERNET => {
            f.extend_from_slice(&[0; 12]);
            f.extend_from_slice(&et);
        }
        LINKTYPE_LINUX_SLL => {
            f.extend_from_slice(&[0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]);
            f.extend_from_slice(&et);
        }
        LINKTYPE_LINUX_SLL2 => {
            f.extend_from_slice(&et);
            f.extend_from_slice(&[0; 18]);
        }
        LINKTYPE_NULL => f.extend_from_slice(&(if v6 { 30u32 } else { 2 }).to_le_bytes()),
        LINKTYPE_LOOP => f.extend_from_slice(&(if v6 { 30u32 } else { 2 }).to_be_bytes()),
        _ => {}
    }
    f.extend_from_slice(&ip);
    f
}

/// A classic pcap (microseconds) of `(frame, original length)` records.
fn pcap(link: u32, frames: &[(Vec<u8>, usize)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    out.extend_from_slice(&[2, 0, 4, 0]);
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&262144u32.to_le_bytes());
    out.extend_from_slice(&link.to_le_bytes());
    for (i, (f, orig)) in frames.iter().enumerate() {
        out.extend_from_slice(&(1000 + i as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(&(*orig as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

/// A pcapng file: a section header, one interface, enhanced packet blocks.
fn pcapng(link: u32, frames: &[Vec<u8>]) -> Vec<u8> {
    fn block(out: &mut Vec<u8>, kind: u32, body: &[u8]) {
        let pad = (4 - body.len() % 4) % 4;
        let len = (12 + body.len() + pad) as u32;
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(&vec![0; pad]);
        out.extend_from_slice(&len.to_le_bytes());
    }
    let mut out = Vec::new();
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1a2b3c4du32.to_le_bytes());
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut out, 0x0a0d0d0a, &shb);
    let mut idb = Vec::new();
    idb.extend_from_slice(&(link as u16).to_le_bytes());
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&0u32.to_le_bytes());
    block(&mut out, 1, &idb);
    for (i, f) in frames.iter().enumerate() {
        let mut epb = Vec::new();
        let ts = (1_700_000_000u64 + i as u64) * 1_000_000 + 250;
        epb.extend_from_slice(&0u32.to_le_bytes());
        epb.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(ts as u32).to_le_bytes());
        epb.extend_from_slice(&(f.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(f.len() as u32).to_le_bytes());
        epb.extend_from_slice(f);
        block(&mut out, 6, &epb);
    }
    out
}

/// `put_var` framing of `values` (Godot 4 bytes).
fn put_vars(values: &[Variant]) -> Vec<u8> {
    let mut s = Vec::new();
    for v in values {
        let b = gdvariant::encode(v).unwrap();
        s.extend_from_slice(&(b.len() as u32).to_le_bytes());
        s.extend_from_slice(&b);
    }
    s
}

/// What a capture shows: values as engine text, controls and errors as their Debug form.
fn show(bytes: &[u8], config: Config) -> Vec<String> {
    let mut r = CaptureReader::with_config(bytes, config).unwrap();
    let mut out = Vec::new();
    while let Some(e) = r.next_event() {
        out.push(match e.body {
            Body::Value { bytes, dialect } => {
                let o = gdvariant::ReadOptions::new().with_dialect(dialect);
                let v = gdvariant::parse_with(bytes, &o).unwrap();
                gdvariant::text::to_string(&v).unwrap()
            }
            Body::Packet { bytes, .. } => format!("packet {bytes:?}"),
            Body::Control(c) => format!("{c:?}"),
            Body::Error(e) => format!("error: {e}"),
        });
    }
    out
}

fn values() -> Vec<Variant> {
    vec![
        Variant::Int(7),
        Variant::from("hello"),
        Variant::Array(gdvariant::Array::new(vec![
            Variant::Bool(true),
            Variant::Float(2.5),
        ])),
        Variant::Int(-1),
    ]
}

/// A TCP connection client → server on port 7000 carrying `stream`, as segments of `cuts`
/// (byte ranges of the stream) in the order given, with SYN and FIN.
fn tcp_frames(
    link: u32,
    v6: bool,
    stream: &[u8],
    segs: &[(usize, usize)],
) -> Vec<(Vec<u8>, usize)> {
    const ISN: u32 = 0xffff_fff0; // wraps around 2^32 within the stream
    let mut f = Vec::new();
    let mut push = |ip: Vec<u8>| {
        let fr = framed(link, ip, v6);
        let n = fr.len();
        f.push((fr, n));
    };
    push(ip_packet(v6, Some((ISN, 0x02)), 40000, 7000, &[]));
    for &(a, b) in segs {
        push(ip_packet(
            v6,
            Some((ISN.wrapping_add(1 + a as u32), 0x18)),
            40000,
            7000,
            &stream[a..b],
        ));
    }
    let end = ISN.wrapping_add(1 + stream.len() as u32);
    push(ip_packet(v6, Some((end, 0x11)), 40000, 7000, &[]));
    push(ip_packet(v6, Some((77, 0x11)), 7000, 40000, &[]));
    f
}

const EXPECTED: [&str; 4] = ["7", "\"hello\"", "[true, 2.5]", "-1"];

/// Gives a raw-IP frame of `tcp_frames` the client port `port` in place of 40000, at either end.
fn client_port(f: &mut [u8], port: u16) {
    for at in [20, 22] {
        if f[at..at + 2] == 40000u16.to_be_bytes() {
            f[at..at + 2].copy_from_slice(&port.to_be_bytes());
        }
    }
}

fn shown_values(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.starts_with("Recognized") && !l.starts_with("End"))
        .cloned()
        .collect()
}

#[test]
fn every_link_type_and_ip_version() {
    let stream = put_vars(&values());
    let n = stream.len();
    for link in [
        LINKTYPE_ETHERNET,
        LINKTYPE_LINUX_SLL,
        LINKTYPE_LINUX_SLL2,
        LINKTYPE_NULL,
        LINKTYPE_LOOP,
        LINKTYPE_RAW,
    ] {
        for v6 in [false, true] {
            let frames = tcp_frames(link, v6, &stream, &[(0, 5), (5, 30), (30, n)]);
            let lines = show(&pcap(link, &frames), Config::new());
            assert_eq!(lines[0], "Recognized(PutVar)", "link {link} v6 {v6}");
            assert_eq!(shown_values(&lines), EXPECTED, "link {link} v6 {v6}");
            assert_eq!(lines.last().unwrap(), "End { reset: false }");
        }
    }
    // LINKTYPE_IPV4 and pcapng.
    let frames = tcp_frames(LINKTYPE_IPV4, false, &stream, &[(0, n)]);
    assert_eq!(
        shown_values(&show(&pcap(LINKTYPE_IPV4, &frames), Config::new())),
        EXPECTED
    );
    let ng: Vec<Vec<u8>> = tcp_frames(LINKTYPE_ETHERNET, true, &stream, &[(0, 9), (9, n)])
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    let bytes = pcapng(LINKTYPE_ETHERNET, &ng);
    assert_eq!(shown_values(&show(&bytes, Config::new())), EXPECTED);
    // pcapng timestamps (microseconds by default).
    let mut r = CaptureReader::new(&bytes[..]).unwrap();
    let e = r.next_event().unwrap();
    assert_eq!((e.time.secs(), e.time.nanos()), (1_700_000_001, 250_000));
}

#[test]
fn reassembly_out_of_order_retransmitted_and_overlapping() {
    let stream = put_vars(&values());
    let n = stream.len();
    // Out of order, a retransmission of the first bytes, an overlap that also brings new bytes.
    let segs = [(10, 20), (0, 10), (0, 10), (15, 28), (28, n), (20, 25)];
    let frames = tcp_frames(LINKTYPE_ETHERNET, false, &stream, &segs);
    let lines = show(&pcap(LINKTYPE_ETHERNET, &frames), Config::new());
    assert_eq!(shown_values(&lines), EXPECTED);
}

#[test]
fn a_gap_is_reported_and_the_stream_read_again_from_the_next_value() {
    let vals = values();
    let stream = put_vars(&vals);
    let n = stream.len();
    let first = 4 + gdvariant::encode(&vals[0]).unwrap().len();
    // The second value's bytes never come: the end of the connection shows the hole.
    let frames = tcp_frames(
        LINKTYPE_ETHERNET,
        false,
        &stream,
        &[(0, first), (first + 6, n)],
    );
    let lines = show(&pcap(LINKTYPE_ETHERNET, &frames), Config::new());
    assert_eq!(
        shown_values(&lines),
        [
            "7".to_string(),
            format!("Gap {{ at: {first}, len: 6 }}"),
            "[true, 2.5]".into(),
            "-1".into()
        ]
    );
    // The last bytes lost: the FIN after them shows the hole.
    let cut_short = tcp_frames(LINKTYPE_ETHERNET, false, &stream, &[(0, first)]);
    let lines = show(&pcap(LINKTYPE_ETHERNET, &cut_short), Config::new());
    assert_eq!(
        shown_values(&lines),
        [
            "7".to_string(),
            format!("Gap {{ at: {first}, len: {} }}", n - first)
        ]
    );
    // With no room to hold early segments the gap is declared at once.
    let lines = show(
        &pcap(LINKTYPE_ETHERNET, &frames),
        Config::new().with_max_early(0, 0),
    );
    assert_eq!(
        shown_values(&lines)[1],
        format!("Gap {{ at: {first}, len: 6 }}")
    );
}

#[test]
fn a_snap_length_cut_is_a_gap() {
    let stream = put_vars(&values());
    let n = stream.len();
    let mut frames = tcp_frames(LINKTYPE_ETHERNET, false, &stream, &[(0, 10), (10, n)]);
    // Keep 5 payload bytes of the second segment: 14 + 20 + 20 header bytes.
    let (f, orig) = &mut frames[2];
    *orig = f.len();
    f.truncate(14 + 20 + 20 + 5);
    let lines = show(&pcap(LINKTYPE_ETHERNET, &frames), Config::new());
    let v = shown_values(&lines);
    assert_eq!(v[0], "7");
    assert!(v[1].starts_with("Gap { at: 15, len: "), "{v:?}");
}

#[test]
fn udp_values_and_godot3_dialect() {
    let three = gdvariant::encode_with(
        &Variant::Float(0.5),
        &gdvariant::EncodeOptions::new().with_dialect(Dialect::Godot3),
    )
    .unwrap();
    // A Godot 3 Basis is Godot 3 only: it fixes the flow's dialect.
    let mut basis = vec![12, 0, 0, 0];
    for x in [1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] {
        basis.extend_from_slice(&x.to_le_bytes());
    }
    let frames: Vec<(Vec<u8>, usize)> = [basis, three, vec![1, 2, 3]]
        .iter()
        .map(|p| {
            let f = framed(
                LINKTYPE_ETHERNET,
                ip_packet(false, None, 5000, 6000, p),
                false,
            );
            let n = f.len();
            (f, n)
        })
        .collect();
    let file = pcap(LINKTYPE_ETHERNET, &frames);
    let mut r = CaptureReader::new(&file[..]).unwrap();
    let mut seen = Vec::new();
    while let Some(e) = r.next_event() {
        assert_eq!(e.transport, Some(Transport::Udp));
        match e.body {
            Body::Value { dialect, .. } => seen.push(dialect),
            Body::Control(Control::Recognized(Transport::Udp)) => {}
            other => panic!("{other:?}"),
        }
    }
    // The third datagram is not a value: still given as one, for the reader to report.
    assert_eq!(seen, [Dialect::Godot3; 3]);
}

#[test]
fn hostile_headers_never_panic_nor_allocate_their_lengths() {
    // A record claiming 4 GiB, a pcapng block claiming 4 GiB, garbage after a header.
    let mut p = pcap(LINKTYPE_ETHERNET, &[]);
    p.extend_from_slice(&[
        0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    p.extend_from_slice(&[0; 64]);
    let (lines, usage) = common::alloc::measure(|| show(&p, Config::new()));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("error: "), "{lines:?}");
    assert!(usage.peak < 16 << 20, "{usage:?}");
    let mut ng = pcapng(LINKTYPE_ETHERNET, &[]);
    ng.extend_from_slice(&[6, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
    ng.extend_from_slice(&[0; 64]);
    let (lines, usage) = common::alloc::measure(|| show(&ng, Config::new()));
    assert!(lines.iter().all(|l| l.starts_with("error: ")), "{lines:?}");
    assert!(usage.peak < 16 << 20, "{usage:?}");
    assert!(CaptureReader::new(&b"GET / HTTP/1.1\r\n"[..]).is_err());
    // A put_var length over the limit is reported and skipped.
    let mut stream = 0x7fff_ffffu32.to_le_bytes().to_vec();
    stream.extend_from_slice(&[2, 0, 0, 0, 1, 2, 3, 4]);
    let frames = tcp_frames(LINKTYPE_ETHERNET, false, &stream, &[(0, stream.len())]);
    let lines = show(
        &pcap(LINKTYPE_ETHERNET, &frames),
        Config::new().decode_as(7000, Transport::PutVar),
    );
    assert!(
        lines.iter().any(|l| l.contains("over the limit")),
        "{lines:?}"
    );
}

#[test]
fn memory_follows_the_open_flows_not_the_file() {
    // 1600 connections one after the other, each 64 values: the file grows, the memory does not.
    let stream = put_vars(&(0..16).flat_map(|_| values()).collect::<Vec<_>>());
    let n = stream.len();
    let mut frames = Vec::new();
    for c in 0..1600u16 {
        for (mut f, orig) in tcp_frames(LINKTYPE_RAW, false, &stream, &[(0, n / 2), (n / 2, n)]) {
            // A client port of its own per connection.
            client_port(&mut f, 10000 + c);
            frames.push((f, orig));
        }
    }
    let bytes = pcap(LINKTYPE_RAW, &frames);
    assert!(bytes.len() > 1 << 20);
    let (count, usage) = common::alloc::measure(|| {
        let mut r = CaptureReader::new(&bytes[..]).unwrap();
        let mut values = 0;
        while let Some(e) = r.next_event() {
            if let Body::Value { .. } = e.body {
                values += 1;
            }
        }
        assert!(r.open_flows() <= 1, "{}", r.open_flows());
        values
    });
    assert_eq!(count, 1600 * 64);
    // The reader's buffer (256 KiB) and one flow's state, whatever the file's size.
    assert!(usage.peak < 2 << 20, "{usage:?}");
}

/// `flows` put_var connections on client ports of their own, read together: each sends a
/// small value and the first `held` bytes of a large value's framing (a PackedByteArray of `big`
/// bytes), then, once every flow did, the rest of it and a last value (its own number).
fn slow_put_var_flows(flows: u16, big: usize, held: usize) -> Vec<u8> {
    let mut per_flow = Vec::new();
    for c in 0..flows {
        let large = Variant::PackedByteArray(vec![c as u8; big]);
        let mut stream = put_vars(&[Variant::Int(7)]);
        let first = stream.len() + held;
        stream.extend_from_slice(&put_vars(&[large, Variant::Int(1000 + i64::from(c))]));
        let mut frames = tcp_frames(
            LINKTYPE_RAW,
            false,
            &stream,
            &[(0, first), (first, stream.len())],
        );
        for (f, _) in &mut frames {
            client_port(f, 10000 + c);
        }
        per_flow.push(frames);
    }
    // SYNs, first segments, second segments, FINs: every flow's in turn.
    let n = per_flow[0].len();
    let frames: Vec<_> = (0..n)
        .flat_map(|k| per_flow.iter().map(move |f| f[k].clone()))
        .collect();
    pcap(LINKTYPE_RAW, &frames)
}

#[test]
fn unfinished_messages_stay_within_the_bound_across_the_flows() {
    // 40 flows each holding 10 000 bytes of a 20 012-byte value, 100 000 bytes allowed: the
    // first 10 flows' values are held and read, the other 30 skipped, every later value read.
    // Without the bound the flows hold 400 000 bytes together (the `held_bytes` check fails).
    let (flows, big, held, limit) = (40u16, 20_000, 10_000, 100_000);
    let bytes = slow_put_var_flows(flows, big, held);
    let config = Config::new().with_max_pending(limit);
    let mut r = CaptureReader::with_config(&bytes[..], config).unwrap();
    let (mut errors, mut large, mut last) = (Vec::new(), Vec::new(), Vec::new());
    let mut peak = 0;
    loop {
        let held_now = r.held_bytes();
        assert!(held_now <= limit, "{held_now} bytes held");
        peak = peak.max(held_now);
        let Some(e) = r.next_event() else { break };
        match e.body {
            Body::Error(err) => errors.push((e.flow, e.record, err.to_string())),
            Body::Value { bytes, .. } => match gdvariant::parse(bytes).unwrap().to_owned().unwrap()
            {
                Variant::PackedByteArray(b) => large.push((e.flow, b.len())),
                Variant::Int(n) if n >= 1000 => last.push((e.flow, n)),
                Variant::Int(7) => {}
                v => panic!("{v:?}"),
            },
            _ => {}
        }
    }
    assert_eq!(peak, limit);
    assert_eq!(r.held_bytes(), 0);
    // The flows whose first segments came 11th to 40th: one error each, on that segment's line
    // (records 1-40 are the SYNs, 41-80 the first segments).
    let want: Vec<_> = (11..=40u64)
        .map(|f| {
            (
                f,
                40 + f,
                "a put_var value of 20008 bytes skipped: the open flows' unfinished messages \
                 would pass the limit of 100000 bytes at stream offset 12"
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(errors, want);
    assert_eq!(large, (1..=10u64).map(|f| (f, big)).collect::<Vec<_>>());
    let want_last: Vec<_> = (1..=u64::from(flows))
        .map(|f| (f, 999 + f as i64))
        .collect();
    assert_eq!(last, want_last);
}

#[test]
fn a_large_value_read_gives_its_room_back() {
    // 40 open flows, one after the other, each sending one 256 KiB value in 32 KiB segments:
    // once read, a value's room is freed. Without that each direction kept its largest value's
    // room (over 10 MiB in all here), which the bound on unfinished bytes does not see.
    let value = Variant::PackedByteArray(vec![5; 256 << 10]);
    let stream = put_vars(&[value]);
    let cuts: Vec<_> = (0..stream.len())
        .step_by(32 << 10)
        .map(|a| (a, (a + (32 << 10)).min(stream.len())))
        .collect();
    let mut per_flow = Vec::new();
    for c in 0..40u16 {
        let mut frames = tcp_frames(LINKTYPE_RAW, false, &stream, &cuts);
        for (f, _) in &mut frames {
            client_port(f, 10000 + c);
        }
        per_flow.push(frames);
    }
    // The SYNs, then each flow's segments in turn, then the FINs: every flow open throughout.
    let n = per_flow[0].len();
    let mut frames = Vec::new();
    frames.extend(per_flow.iter().map(|f| f[0].clone()));
    for f in &per_flow {
        frames.extend(f[1..n - 2].iter().cloned());
    }
    frames.extend(per_flow.iter().flat_map(|f| f[n - 2..].iter().cloned()));
    let bytes = pcap(LINKTYPE_RAW, &frames);
    let (count, usage) = common::alloc::measure(|| {
        let mut r = CaptureReader::new(&bytes[..]).unwrap();
        let mut values = 0;
        while let Some(e) = r.next_event() {
            match e.body {
                Body::Value { bytes, .. } => {
                    assert_eq!(bytes.len(), (256 << 10) + 8);
                    values += 1;
                }
                Body::Error(e) => panic!("{e}"),
                _ => {}
            }
        }
        values
    });
    assert_eq!(count, 40);
    // The reader's buffer (256 KiB), one value being read (its room at most doubled, and the
    // event's copy), 40 flows' 64 KiB kept.
    assert!(usage.peak < 4 << 20, "{usage:?}");
}

#[test]
fn a_websocket_message_over_the_bound_stops_its_direction() {
    use gdvariant_multiplayer::websocket::{write_frame, Opcode};
    let mut up = b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
        Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .to_vec();
    let v1 = gdvariant::encode(&Variant::from("first")).unwrap();
    let v2 = gdvariant::encode(&Variant::PackedByteArray(vec![1; 3000])).unwrap();
    // A message in two fragments: the first (1504 bytes) held, the second's first 592 bytes
    // (after its 8-byte header) pass the 2000 bytes allowed.
    write_frame(&mut up, true, Opcode::Binary, Some([1, 2, 3, 4]), &v1);
    write_frame(
        &mut up,
        false,
        Opcode::Binary,
        Some([9, 8, 7, 6]),
        &v2[..1504],
    );
    let first = up.len();
    write_frame(
        &mut up,
        true,
        Opcode::Continuation,
        Some([5, 5, 5, 5]),
        &v2[1504..],
    );
    let mut down =
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
        Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
            .to_vec();
    let v3 = gdvariant::encode(&Variant::Bool(true)).unwrap();
    write_frame(&mut down, true, Opcode::Binary, None, &v3);
    let segments = [&up[..first], &up[first..first + 600], &up[first + 600..]];
    let capture = tcp_both_ways_in(&segments, &down);
    let lines = show(&capture, Config::new().with_max_pending(2000));
    assert_eq!(
        lines,
        [
            "Recognized(WebSocket)".to_string(),
            "Handshake { status: None }".to_string(),
            "\"first\"".to_string(),
            format!(
                "error: 2096 bytes of a WebSocket message dropped: the open flows' unfinished \
                 messages would pass the limit of 2000 bytes; the rest of this direction is not \
                 read at stream offset {}",
                first + 600
            ),
            "Handshake { status: Some(101) }".to_string(),
            "true".to_string(),
            "End { reset: false }".to_string(),
        ]
    );
    // With the default bound the message is read.
    let lines = show(&capture, Config::new());
    assert!(lines[3].starts_with("PackedByteArray(1, 1"), "{}", lines[3]);
}

#[test]
fn the_committed_captures_read_without_errors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/captures");
    for (name, transport, min) in [
        ("godot4_ws.pcap", Transport::WebSocket, 20),
        ("godot3_ws.pcap", Transport::WebSocket, 20),
        ("godot4_putvar.pcap", Transport::PutVar, 14),
        ("godot4_enet.pcap", Transport::Enet, 15),
        ("godot3_enet.pcap", Transport::Enet, 15),
    ] {
        let file = std::fs::File::open(dir.join(name)).unwrap();
        let mut r = CaptureReader::new(std::io::BufReader::new(file)).unwrap();
        let mut messages = 0;
        while let Some(e) = r.next_event() {
            assert_eq!(e.transport, Some(transport), "{name}: {e:?}");
            match e.body {
                Body::Error(err) => panic!("{name}: {err}"),
                Body::Packet {
                    bytes,
                    dialect: Dialect::Godot4,
                } => {
                    gdvariant_multiplayer::validate(bytes).unwrap();
                    messages += 1;
                }
                Body::Packet {
                    bytes,
                    dialect: Dialect::Godot3,
                } => {
                    gdvariant_multiplayer::godot3::parse(bytes)
                        .unwrap()
                        .validate()
                        .unwrap();
                    messages += 1;
                }
                Body::Value { bytes, .. } => {
                    gdvariant::validate(bytes).unwrap();
                    messages += 1;
                }
                Body::Control(_) => {}
            }
        }
        assert!(messages >= min, "{name}: {messages}");
    }
}

/// A TCP connection whose client sends `up` and whose server sends `down`, one segment each
/// (after the SYNs), then FINs.
fn tcp_both_ways(up: &[u8], down: &[u8]) -> Vec<u8> {
    tcp_both_ways_in(&[up], down)
}

/// [`tcp_both_ways`] with the client's bytes in several segments.
fn tcp_both_ways_in(ups: &[&[u8]], down: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    let mut push = |ip: Vec<u8>| {
        let fr = framed(LINKTYPE_ETHERNET, ip, false);
        let n = fr.len();
        f.push((fr, n));
    };
    push(ip_packet(false, Some((100, 0x02)), 40000, 8080, &[]));
    push(ip_packet(false, Some((900, 0x12)), 8080, 40000, &[]));
    let mut seq = 101;
    for u in ups {
        push(ip_packet(false, Some((seq, 0x18)), 40000, 8080, u));
        seq += u.len() as u32;
    }
    push(ip_packet(false, Some((901, 0x18)), 8080, 40000, down));
    push(ip_packet(false, Some((seq, 0x11)), 40000, 8080, &[]));
    push(ip_packet(
        false,
        Some((901 + down.len() as u32, 0x11)),
        8080,
        40000,
        &[],
    ));
    pcap(LINKTYPE_ETHERNET, &f)
}

#[test]
fn websocket_carrying_values_fragmented_and_masked() {
    use gdvariant_multiplayer::websocket::{write_frame, Opcode};
    let mut up = b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
        Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .to_vec();
    let v1 = gdvariant::encode(&Variant::from("first")).unwrap();
    let v2 = gdvariant::encode(&Variant::Int(123456789012)).unwrap();
    // The first value in one masked frame, the second in two fragments with a ping between.
    write_frame(&mut up, true, Opcode::Binary, Some([1, 2, 3, 4]), &v1);
    write_frame(&mut up, false, Opcode::Binary, Some([9, 8, 7, 6]), &v2[..5]);
    write_frame(&mut up, true, Opcode::Ping, Some([0, 0, 0, 1]), b"?");
    write_frame(
        &mut up,
        true,
        Opcode::Continuation,
        Some([5, 5, 5, 5]),
        &v2[5..],
    );
    write_frame(
        &mut up,
        true,
        Opcode::Close,
        Some([1, 1, 1, 1]),
        &[0x03, 0xe8],
    );
    let mut down =
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
        Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
            .to_vec();
    let v3 = gdvariant::encode(&Variant::Bool(true)).unwrap();
    write_frame(&mut down, true, Opcode::Binary, None, &v3);
    write_frame(&mut down, true, Opcode::Close, None, &[0x03, 0xe8]);
    let lines = show(&tcp_both_ways(&up, &down), Config::new());
    assert_eq!(
        lines,
        [
            "Recognized(WebSocket)",
            "Handshake { status: None }",
            "\"first\"",
            "123456789012",
            "Close { code: Some(1000) }",
            "Handshake { status: Some(101) }",
            "true",
            "Close { code: Some(1000) }",
            "End { reset: false }",
        ]
    );
}

#[test]
fn godot3_put_var_stream() {
    // A Godot 3 Basis (Godot 3 only) then a float: the flow reads as Godot 3.
    let mut basis = vec![12, 0, 0, 0];
    for x in [1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] {
        basis.extend_from_slice(&x.to_le_bytes());
    }
    let three = gdvariant::encode_with(
        &Variant::Float(0.5),
        &gdvariant::EncodeOptions::new().with_dialect(Dialect::Godot3),
    )
    .unwrap();
    let mut up = Vec::new();
    for v in [&basis, &three] {
        up.extend_from_slice(&(v.len() as u32).to_le_bytes());
        up.extend_from_slice(v);
    }
    let lines = show(&tcp_both_ways(&up, &[]), Config::new());
    assert_eq!(
        lines,
        [
            "Recognized(PutVar)",
            "Basis( 1, 0, 0, 0, 1, 0, 0, 0, 1 )",
            "0.5",
            "End { reset: false }"
        ]
    );
}

#[test]
fn enet_fragments_claiming_large_packets_stay_within_the_bound() {
    // 64 UDP flows, each one ENet SEND_FRAGMENT (fragment 0 of 2) of a packet claiming 16 MiB:
    // what is held across the flows stays near the configured bound, each refusal reported.
    let mut frames = Vec::new();
    for c in 0..64u16 {
        let mut d = vec![0x00, 0x00]; // peer 0, no sent time
        d.extend_from_slice(&[0x88, 0, 0, 1, 0, 1, 0, 4]); // SEND_FRAGMENT, start 1, 4 bytes
        d.extend_from_slice(&2u32.to_be_bytes()); // fragmentCount
        d.extend_from_slice(&0u32.to_be_bytes()); // fragmentNumber
        d.extend_from_slice(&((16u32 << 20) - 1).to_be_bytes()); // totalLength
        d.extend_from_slice(&0u32.to_be_bytes()); // fragmentOffset
        d.extend_from_slice(b"abcd");
        let f = framed(
            LINKTYPE_ETHERNET,
            ip_packet(false, None, 20000 + c, 9000, &d),
            false,
        );
        let n = f.len();
        frames.push((f, n));
    }
    let bytes = pcap(LINKTYPE_ETHERNET, &frames);
    let (lines, usage) = common::alloc::measure(|| show(&bytes, Config::new()));
    assert_eq!(
        lines.iter().filter(|l| *l == "Recognized(Enet)").count(),
        64
    );
    let refused = lines.iter().filter(|l| l.starts_with("error: ")).count();
    assert!(refused >= 60, "{lines:?}");
    // The default bound is 16 MiB; one more packet may be allocated before it is seen past it.
    assert!(usage.peak < 40 << 20, "{usage:?}");
}

/// A link type the reader does not read is reported at its first record, not once a record (a
/// capture of 50 such records gave 50 identical error lines); records of the supported link
/// types around it are read as usual.
#[test]
fn an_unsupported_link_type_is_reported_once() {
    let frames: Vec<Vec<u8>> = (0..50).map(|i| vec![i as u8; 40]).collect();
    let with_len: Vec<(Vec<u8>, usize)> = frames.iter().map(|f| (f.clone(), f.len())).collect();
    for bytes in [pcap(147, &with_len), pcapng(147, &frames)] {
        let lines = show(&bytes, Config::new());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("error: record 1: link type 147 is not supported")
                && lines[0].contains("its later records are skipped"),
            "{lines:?}"
        );
    }
    // A supported link type still gives one error a record for what is wrong in each.
    let cut: Vec<(Vec<u8>, usize)> = (0..3).map(|_| (vec![0; 10], 10)).collect();
    let lines = show(&pcap(LINKTYPE_LINUX_SLL, &cut), Config::new());
    assert_eq!(lines.len(), 3, "{lines:?}");
}
