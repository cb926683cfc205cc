//! The frame and message readers against a reference implementation (`tungstenite`) and hostile
//! input.

use std::io::Cursor;
use std::vec::Vec;

use tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tungstenite::protocol::frame::Frame as TFrame;
use tungstenite::protocol::{CloseFrame, Role, WebSocket};

use super::*;

/// A deterministic xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

fn tframe(data: &[u8], opcode: OpCode, fin: bool, mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut f = TFrame::message(data.to_vec(), opcode, fin);
    f.header_mut().mask = mask;
    let mut out = Vec::new();
    f.format(&mut out).unwrap();
    out
}

/// Every message the reader returns from `stream`, fed in pieces of the given sizes (cycled),
/// as (opcode, data, offset, frames), and the error it stopped at if any.
type Read = (Vec<(Opcode, Vec<u8>, u64, u32)>, Option<Error>);

fn read_all(config: MessageConfig, stream: &[u8], pieces: &[usize]) -> Read {
    let mut r = MessageReader::new(config);
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    while at < stream.len() {
        let n = pieces[k % pieces.len()].max(1).min(stream.len() - at);
        k += 1;
        let mut input = &stream[at..at + n];
        loop {
            let before = input.len();
            match r.read(&mut input) {
                Ok(Some(m)) => {
                    let msg = m.message();
                    let data = match msg {
                        Message::Text(s) => s.as_bytes().to_vec(),
                        Message::Binary(b) | Message::Ping(b) | Message::Pong(b) => b.to_vec(),
                        Message::Close(c) => {
                            let mut v = c.code().map_or(vec![], |c| c.to_be_bytes().to_vec());
                            v.extend_from_slice(c.reason().as_bytes());
                            v
                        }
                    };
                    out.push((msg.opcode(), data, m.offset(), m.frames()));
                }
                Ok(None) => {
                    assert!(input.is_empty(), "Ok(None) with input left");
                    break;
                }
                Err(e) => return (out, Some(e)),
            }
            assert!(input.len() <= before);
        }
        at += n;
        assert_eq!(r.offset(), at as u64, "offset after {at} bytes");
    }
    (out, None)
}

#[test]
fn tungstenite_frames_every_length_form_masked_and_not() {
    let key = [0x37, 0xfa, 0x21, 0x3d];
    for n in [0, 1, 2, 3, 4, 5, 125, 126, 127, 65535, 65536, 70000] {
        let data = bytes(n);
        for (opcode, ours) in [
            (OpCode::Data(Data::Binary), Opcode::Binary),
            (OpCode::Data(Data::Text), Opcode::Text),
        ] {
            let data = if ours == Opcode::Text {
                vec![b'x'; n]
            } else {
                data.clone()
            };
            for mask in [None, Some(key)] {
                let stream = tframe(&data, opcode, true, mask);
                // Our writer writes the same bytes.
                let mut ours_bytes = Vec::new();
                write_frame(&mut ours_bytes, true, ours, mask, &data);
                assert_eq!(ours_bytes, stream, "write_frame, length {n}");
                let header_len = stream.len() - n;
                for pieces in [&[usize::MAX][..], &[1], &[3, 1, 7], &[header_len, 1000]] {
                    let mut r = FrameReader::new(FrameConfig::new());
                    let mut got = None;
                    let mut at = 0;
                    let mut k = 0;
                    while at < stream.len() {
                        let m = pieces[k % pieces.len()].min(stream.len() - at);
                        k += 1;
                        let mut input = &stream[at..at + m];
                        if let Some(h) = r.read(&mut input).unwrap() {
                            assert!(got.is_none());
                            got = Some(h);
                            assert_eq!(r.payload(), &data[..]);
                        }
                        assert!(input.is_empty());
                        at += m;
                    }
                    let h = got.expect("a frame");
                    assert_eq!(
                        (h.opcode(), h.fin(), h.rsv(), h.mask(), h.len()),
                        (ours, true, 0, mask, n as u64)
                    );
                    assert_eq!((h.offset(), h.header_len()), (0, header_len));
                    assert!(r.is_at_boundary());
                }
            }
        }
    }
}

#[test]
fn tungstenite_client_messages_through_the_message_reader() {
    // tungstenite as a client: random masks, every message kind.
    let mut ws = WebSocket::from_raw_socket(Cursor::new(Vec::new()), Role::Client, None);
    let sent: Vec<(Opcode, Vec<u8>)> = vec![
        (Opcode::Binary, bytes(70000)),
        (Opcode::Text, "héllo ☃".as_bytes().to_vec()),
        (Opcode::Ping, b"ping?".to_vec()),
        (Opcode::Binary, vec![]),
        (Opcode::Pong, vec![]),
        (Opcode::Binary, bytes(300)),
    ];
    for (op, data) in &sent {
        let m = match op {
            Opcode::Binary => tungstenite::Message::Binary(data.clone().into()),
            Opcode::Text => tungstenite::Message::Text(std::str::from_utf8(data).unwrap().into()),
            Opcode::Ping => tungstenite::Message::Ping(data.clone().into()),
            _ => tungstenite::Message::Pong(data.clone().into()),
        };
        ws.send(m).unwrap();
    }
    ws.close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    }))
    .unwrap();
    ws.flush().unwrap();
    let stream = ws.get_ref().get_ref().clone();
    for pieces in [&[usize::MAX][..], &[1], &[2, 5, 1000, 13]] {
        let (got, err) = read_all(MessageConfig::client_to_server(), &stream, pieces);
        assert_eq!(err, None);
        let mut want: Vec<(Opcode, Vec<u8>)> = sent.clone();
        want.push((Opcode::Close, b"\x03\xe8bye".to_vec()));
        let got: Vec<(Opcode, Vec<u8>)> = got.into_iter().map(|(o, d, _, _)| (o, d)).collect();
        assert_eq!(got, want);
    }
    // The same stream is refused where masking is forbidden, at its first frame.
    let (got, err) = read_all(MessageConfig::server_to_client(), &stream, &[usize::MAX]);
    assert!(got.is_empty());
    assert_eq!(err, Some(Error::new(ErrorKind::MaskForbidden, 1)));
}

#[test]
fn our_frames_read_by_tungstenite() {
    // A client's stream written here (masked, fragmented, a ping between fragments), read by
    // tungstenite as a server.
    let key = Some([1, 2, 3, 4]);
    let mut s = Vec::new();
    write_frame(&mut s, false, Opcode::Binary, key, &bytes(1000));
    write_frame(&mut s, true, Opcode::Ping, key, b"p");
    write_frame(&mut s, false, Opcode::Continuation, key, &bytes(70000));
    write_frame(&mut s, true, Opcode::Continuation, key, b"end");
    write_frame(
        &mut s,
        true,
        Opcode::Close,
        key,
        &close_payload(Some(1001), "away"),
    );
    let mut ws = WebSocket::from_raw_socket(Cursor::new(s.clone()), Role::Server, None);
    assert_eq!(
        ws.read().unwrap(),
        tungstenite::Message::Ping(b"p"[..].into())
    );
    let mut whole = bytes(1000);
    whole.extend(bytes(70000));
    whole.extend(b"end");
    assert_eq!(
        ws.read().unwrap(),
        tungstenite::Message::Binary(whole.clone().into())
    );
    let tungstenite::Message::Close(Some(c)) = ws.read().unwrap() else {
        panic!("no close")
    };
    assert_eq!((c.code, c.reason.as_str()), (CloseCode::Away, "away"));
    // And by ours: the same messages, with their offsets and frame counts.
    let (got, err) = read_all(MessageConfig::client_to_server(), &s, &[usize::MAX]);
    assert_eq!(err, None);
    assert_eq!(got[0], (Opcode::Ping, b"p".to_vec(), 1008, 1));
    assert_eq!(got[1], (Opcode::Binary, whole, 0, 3));
    assert_eq!(got[2].0, Opcode::Close);
}

#[test]
fn tungstenite_fragments_with_control_frames_between() {
    let mut s = Vec::new();
    s.extend(tframe(b"h\xc3", OpCode::Data(Data::Text), false, None));
    TFrame::pong(Vec::new()).format(&mut s).unwrap();
    s.extend(tframe(
        b"\xa9llo",
        OpCode::Data(Data::Continue),
        false,
        None,
    ));
    s.extend(tframe(b"", OpCode::Data(Data::Continue), true, None));
    s.extend(tframe(&bytes(200), OpCode::Data(Data::Binary), true, None));
    for pieces in [&[usize::MAX][..], &[1], &[4, 9]] {
        let (got, err) = read_all(MessageConfig::server_to_client(), &s, pieces);
        assert_eq!(err, None);
        assert_eq!(
            got,
            [
                (Opcode::Pong, vec![], 4, 1),
                (Opcode::Text, "héllo".as_bytes().to_vec(), 0, 3),
                (Opcode::Binary, bytes(200), 14, 1),
            ]
        );
    }
}

fn first_error(config: MessageConfig, stream: &[u8]) -> Error {
    read_all(config, stream, &[usize::MAX]).1.expect("an error")
}

#[test]
fn frame_errors_say_what_and_where() {
    let any = MessageConfig::new();
    let prefix = tframe(b"ok", OpCode::Data(Data::Binary), true, None); // 4 bytes
    let at4 = |b: &[u8]| {
        let mut s = prefix.clone();
        s.extend_from_slice(b);
        let err = first_error(any, &s);
        (err.kind(), err.offset())
    };
    assert_eq!(at4(&[0x83, 0]), (ErrorKind::ReservedOpcode(3), 4));
    assert_eq!(at4(&[0x8b, 0]), (ErrorKind::ReservedOpcode(11), 4));
    assert_eq!(at4(&[0xc2, 0]), (ErrorKind::ReservedBits(4), 4));
    assert_eq!(
        at4(&[0x82, 126, 0, 125]),
        (ErrorKind::NonMinimalLength { len: 125 }, 6)
    );
    assert_eq!(
        at4(&[0x82, 127, 0, 0, 0, 0, 0, 0, 0xff, 0xff]),
        (ErrorKind::NonMinimalLength { len: 65535 }, 6)
    );
    assert_eq!(
        at4(&[0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0]),
        (ErrorKind::LengthHighBit, 6)
    );
    assert_eq!(
        at4(&[0x89, 126, 0, 126]),
        (ErrorKind::ControlTooLong { len: 126 }, 5)
    );
    assert_eq!(at4(&[0x09, 0]), (ErrorKind::ControlFragmented, 4));
    assert_eq!(at4(&[0x00, 0]), (ErrorKind::UnexpectedContinuation, 4));
    assert_eq!(at4(&[0x02, 0, 0x02, 0]), (ErrorKind::MessageInterrupted, 6));
    assert_eq!(at4(&[0x88, 1, 3]), (ErrorKind::CloseOneByte, 6));
    assert_eq!(
        at4(&[0x88, 2, 3, 0xed]),
        (ErrorKind::InvalidCloseCode(1005), 6)
    );
    assert_eq!(
        at4(&[0x88, 3, 3, 0xe8, 0xff]),
        (ErrorKind::CloseReasonNotUtf8, 8)
    );
    assert_eq!(at4(&[0x88, 0, 0x82, 0]), (ErrorKind::AfterClose, 6));
    assert_eq!(at4(&[0x81, 1, 0xff]), (ErrorKind::TextNotUtf8, 4));
    let server = MessageConfig::server_to_client();
    assert_eq!(
        first_error(server, &[0x82, 0x80, 1, 2, 3, 4]).kind(),
        ErrorKind::MaskForbidden
    );
    let client = MessageConfig::client_to_server();
    assert_eq!(
        first_error(client, &[0x82, 0]).kind(),
        ErrorKind::MaskRequired
    );
    // Reserved bits allowed when an extension says so.
    let rsv = any.with_frame(FrameConfig::new().with_reserved_bits(4));
    assert_eq!(read_all(rsv, &[0xc2, 1, 7], &[1]).1, None);
}

#[test]
fn limits_are_checked_before_anything_is_stored() {
    // A header announcing 2^40 bytes: refused on the header alone.
    let config = MessageConfig::new();
    let mut r = MessageReader::new(config);
    let mut input = &[0x82, 127, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3][..];
    let e = r.read(&mut input).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::FrameTooLarge {
            len: 1 << 40,
            max: DEFAULT_MAX_FRAME
        }
    );
    assert_eq!(e.offset(), 1);
    assert_eq!(input, [1, 2, 3], "nothing past the header taken");
    // The error sticks.
    assert_eq!(r.read(&mut &[0x82, 0][..]).unwrap_err(), e);
    // A message over the limit across fragments: refused at the fragment that crosses it.
    let config = MessageConfig::new().with_max_message(100);
    let mut s = Vec::new();
    write_frame(&mut s, false, Opcode::Binary, None, &[0; 60]);
    write_frame(&mut s, false, Opcode::Continuation, None, &[0; 40]);
    write_frame(&mut s, true, Opcode::Continuation, None, &[0; 1]);
    let e = first_error(config, &s);
    assert_eq!(e.kind(), ErrorKind::MessageTooLarge { len: 101, max: 100 });
    assert_eq!(e.offset(), 62 + 42 + 1);
    // The same three frames make a 101-byte message when allowed.
    let (got, err) = read_all(config.with_max_message(101), &s, &[7]);
    assert_eq!((got[0].1.len(), got[0].3, err), (101, 3, None));
    // Frame limit.
    let config = MessageConfig::new().with_frame(FrameConfig::new().with_max_frame(59));
    assert_eq!(
        first_error(config, &s).kind(),
        ErrorKind::FrameTooLarge { len: 60, max: 59 }
    );
}

#[test]
fn hostile_streams_never_panic_and_chunking_does_not_matter() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Seeds: a valid stream of every kind of frame, mutated.
    let key = Some([9, 8, 7, 6]);
    let mut seed = Vec::new();
    write_frame(&mut seed, false, Opcode::Text, key, b"ab");
    write_frame(&mut seed, true, Opcode::Ping, key, b"");
    write_frame(&mut seed, true, Opcode::Continuation, key, b"c");
    write_frame(&mut seed, true, Opcode::Binary, key, &bytes(300));
    write_frame(&mut seed, true, Opcode::Binary, key, &bytes(66000));
    write_frame(
        &mut seed,
        true,
        Opcode::Close,
        key,
        &close_payload(Some(1000), ""),
    );
    let config = MessageConfig::new().with_max_message(1 << 17);
    let whole = read_all(config, &seed, &[usize::MAX]);
    assert_eq!(whole.1, None);
    assert_eq!(whole.0.len(), 5);
    for round in 0..3000 {
        let mut s = seed.clone();
        if round % 3 == 0 {
            s.truncate(rng.below(s.len() + 1));
        }
        for _ in 0..=rng.below(4) {
            let i = rng.below(s.len().max(1));
            if let Some(b) = s.get_mut(i) {
                *b = rng.next() as u8;
            }
        }
        if round % 5 == 0 {
            s = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        }
        let a = read_all(config, &s, &[usize::MAX]);
        let pieces = [1 + rng.below(20), 1 + rng.below(3000), 1];
        let b = read_all(config, &s, &pieces);
        assert_eq!(a, b, "round {round}: chunking changed the result");
    }
}
