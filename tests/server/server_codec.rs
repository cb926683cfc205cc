//! `Packet`, `codec::VarCodec` and the blocking framing adapters: decoding in every chunking,
//! malformed values as items that do not end the stream, fatal oversize prefixes, memory that
//! grows with the bytes received, zero copies from the read buffer to the handler, every
//! encoder (byte for byte what `write_frame` writes), in-place streaming writes, and the
//! `FrameReader` / `FrameWriter` accessors and buffering.

use std::io::{self, BufReader, Read};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use gdvariant::codec::{write_with, CodecError, Serde, VarCodec};
use gdvariant::framing::{
    write_frame, write_raw_frame, Endian, FrameOptions, FrameReader, FrameWriter, DEFAULT_MAX_FRAME,
};
use gdvariant::packet::Packet;
use gdvariant::{
    math::Vector3, Dialect, Dictionary, EncodeOptions, ErrorKind, ReadOptions, Variant, VariantType,
};
use tokio::io::AsyncRead;
use tokio_util::codec::{Decoder, Encoder, FramedRead};

fn values() -> Vec<Variant> {
    let mut d = Dictionary::new();
    d.insert("pos", Vector3::new(1.0, -2.0, 0.5));
    d.insert("name", "Ada");
    vec![
        Variant::Nil,
        Variant::Int(-5),
        Variant::from("héllo"),
        Variant::Dictionary(d),
        Variant::PackedFloat32Array(vec![0.25; 100]),
        Variant::from(vec![Variant::Bool(true), Variant::Float(0.1)]),
    ]
}

fn stream_of(values: &[Variant], opts: &FrameOptions) -> Vec<u8> {
    let mut w = FrameWriter::new(*opts, EncodeOptions::new());
    for v in values {
        w.value(v).unwrap();
    }
    w.into_inner()
}

/// Feeds `stream` to a codec `chunk` bytes at a time; the items and the fatal error, if any.
fn decode_chunked(
    stream: &[u8],
    chunk: usize,
    codec: &mut VarCodec,
) -> (Vec<Result<Packet, gdvariant::Error>>, Option<CodecError>) {
    let mut src = BytesMut::new();
    let mut items = Vec::new();
    for piece in stream.chunks(chunk) {
        src.extend_from_slice(piece);
        loop {
            match codec.decode(&mut src) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => break,
                Err(e) => return (items, Some(e)),
            }
        }
    }
    match codec.decode_eof(&mut src) {
        Ok(Some(item)) => items.push(item),
        Ok(None) => {}
        Err(e) => return (items, Some(e)),
    }
    (items, None)
}

#[test]
fn decodes_every_chunking_both_byte_orders() {
    let values = values();
    for endian in [Endian::Little, Endian::Big] {
        let opts = FrameOptions::new().with_endian(endian);
        let stream = stream_of(&values, &opts);
        for chunk in [1, 2, 3, 5, 7, 64, stream.len()] {
            let mut codec = VarCodec::new().with_endian(endian);
            let (items, fatal) = decode_chunked(&stream, chunk, &mut codec);
            assert!(fatal.is_none(), "{fatal:?}");
            let got: Vec<Variant> = items
                .into_iter()
                .map(|p| p.unwrap().value().to_owned().unwrap())
                .collect();
            assert_eq!(got, values, "{endian:?} chunk {chunk}");
            assert_eq!(codec.stream_offset(), stream.len());
        }
    }
}

#[test]
fn malformed_values_are_items_with_absolute_offsets_and_the_stream_goes_on() {
    let opts = FrameOptions::new();
    let mut stream = Vec::new();
    write_frame(&mut stream, &Variant::Int(1), &EncodeOptions::new(), &opts).unwrap();
    // frame 2 at 12: an unknown type id
    write_raw_frame(&mut stream, &[0xFF, 0, 0, 0], &opts).unwrap();
    // frame 3 at 20: a String whose UTF-8 is invalid
    write_raw_frame(&mut stream, &[4, 0, 0, 0, 1, 0, 0, 0, 0xC3, 0, 0, 0], &opts).unwrap();
    // frame 4 at 36: bytes after the value inside the frame
    write_raw_frame(&mut stream, &[2, 0, 0, 0, 9, 0, 0, 0, 1, 2, 3, 4], &opts).unwrap();
    write_frame(
        &mut stream,
        &Variant::from("last"),
        &EncodeOptions::new(),
        &opts,
    )
    .unwrap();
    for chunk in [1, 4, 9, stream.len()] {
        let (items, fatal) = decode_chunked(&stream, chunk, &mut VarCodec::new());
        assert!(fatal.is_none());
        assert_eq!(items.len(), 5);
        assert_eq!(items[0].as_ref().unwrap().value().as_i64().unwrap(), 1);
        let e = items[1].as_ref().unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnknownType { id: 255 }, 16)
        );
        let e = items[2].as_ref().unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, 32));
        let e = items[3].as_ref().unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::TrailingBytesInFrame { extra: 4 }, 48)
        );
        let last = items[4].as_ref().unwrap();
        assert_eq!(last.value().as_str().unwrap(), "last");
        assert_eq!(last.offset(), 56);
    }
}

#[tokio::test]
async fn framed_read_yields_error_items_and_ends_on_an_oversize_prefix() {
    let opts = FrameOptions::new();
    let mut stream = Vec::new();
    write_raw_frame(&mut stream, &[0xFF, 0, 0, 0], &opts).unwrap();
    write_frame(&mut stream, &Variant::Int(2), &EncodeOptions::new(), &opts).unwrap();
    stream.extend_from_slice(&(DEFAULT_MAX_FRAME as u32 + 1).to_le_bytes());
    stream.extend_from_slice(&[0; 64]);
    let mut framed = FramedRead::new(&stream[..], VarCodec::new());
    assert!(framed.next().await.unwrap().unwrap().is_err());
    let second = framed.next().await.unwrap().unwrap().unwrap();
    assert_eq!(second.value().as_i64().unwrap(), 2);
    let fatal = framed.next().await.unwrap().unwrap_err();
    let e = fatal.format_error().unwrap();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            ErrorKind::FrameTooLarge {
                len: DEFAULT_MAX_FRAME as u64 + 1,
                max: DEFAULT_MAX_FRAME as u64
            },
            20
        )
    );
    let msg = fatal.to_string();
    assert!(
        msg.starts_with("frame of 8388609 bytes exceeds the maximum of 8388608 at offset 20"),
        "{msg}"
    );
    assert!(msg.contains("VarCodec::with_max_frame"), "{msg}");
    assert!(
        framed.next().await.is_none(),
        "the stream ends after a fatal error"
    );
    // As an io::Error (for `?` in io functions): InvalidData wrapping the codec error.
    let io: io::Error = fatal.into();
    assert_eq!(io.kind(), io::ErrorKind::InvalidData);

    // A raised limit reads the same prefix as the start of a frame.
    let mut big = VarCodec::new().with_max_frame(DEFAULT_MAX_FRAME + 1);
    let mut src = BytesMut::from(&stream[20..]);
    assert!(big.decode(&mut src).unwrap().is_none());
}

#[tokio::test]
async fn a_stream_that_ends_inside_a_frame_is_a_truncated_frame_error() {
    let mut stream = Vec::new();
    write_frame(
        &mut stream,
        &Variant::Int(1),
        &EncodeOptions::new(),
        &FrameOptions::new(),
    )
    .unwrap();
    stream.extend_from_slice(&[12, 0, 0, 0, 4, 0]);
    let mut framed = FramedRead::new(&stream[..], VarCodec::new());
    assert!(framed.next().await.unwrap().unwrap().is_ok());
    let e = framed.next().await.unwrap().unwrap_err();
    let fe = e.format_error().unwrap();
    assert_eq!(
        (fe.kind(), fe.offset()),
        (ErrorKind::TruncatedFrame { needed: 10 }, 12)
    );
    assert_eq!(io::Error::from(e).kind(), io::ErrorKind::UnexpectedEof);
    // Two bytes of a prefix, then the end.
    let mut framed = FramedRead::new(&[1u8, 0][..], VarCodec::new());
    let e = framed.next().await.unwrap().unwrap_err();
    assert_eq!(
        e.format_error().unwrap().kind(),
        ErrorKind::TruncatedFrame { needed: 2 }
    );
}

/// An `AsyncRead` that yields its bytes once and then stays pending (a peer that stalls).
struct Stalling(Option<Vec<u8>>);

impl AsyncRead for Stalling {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.0.take() {
            Some(b) => {
                buf.put_slice(&b);
                Poll::Ready(Ok(()))
            }
            None => Poll::Pending,
        }
    }
}

#[tokio::test]
async fn nothing_is_reserved_for_what_a_prefix_claims() {
    // The maximum frame announced, 10 bytes sent, then the peer stalls.
    let mut bytes = (DEFAULT_MAX_FRAME as u32).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 10]);
    let mut framed = FramedRead::new(Stalling(Some(bytes)), VarCodec::new());
    let pending = tokio::time::timeout(std::time::Duration::from_millis(50), framed.next()).await;
    assert!(pending.is_err(), "still waiting for the frame");
    assert_eq!(framed.read_buffer().len(), 14);
    assert!(
        framed.read_buffer().capacity() <= 64 * 1024,
        "capacity {} for 14 bytes received",
        framed.read_buffer().capacity()
    );
    // The decoder itself never grows the buffer.
    let mut src = BytesMut::with_capacity(16);
    src.extend_from_slice(&(DEFAULT_MAX_FRAME as u32).to_le_bytes());
    src.extend_from_slice(&[0; 10]);
    let cap = src.capacity();
    assert!(VarCodec::new().decode(&mut src).unwrap().is_none());
    assert_eq!(src.capacity(), cap);
}

#[test]
fn packets_point_into_the_read_buffer_and_packed_arrays_stay_aligned() {
    // A 4 MB PackedFloat32Array and small values around it.
    let floats: Vec<f32> = (0..1_000_000).map(|i| i as f32 * 0.5).collect();
    let values = vec![
        Variant::Int(3),
        Variant::PackedFloat32Array(floats.clone()),
        Variant::from("after"),
    ];
    let stream = stream_of(&values, &FrameOptions::new());
    let mut src = BytesMut::with_capacity(stream.len());
    src.extend_from_slice(&stream);
    let range = src.as_ptr_range();
    let mut codec = VarCodec::new();
    let mut packets = Vec::new();
    while let Some(item) = codec.decode(&mut src).unwrap() {
        packets.push(item.unwrap());
    }
    assert_eq!(packets.len(), 3);
    for p in &packets {
        assert!(range.contains(&p.raw().as_ptr()), "a copy was made");
    }
    let big = packets[1].value().as_packed::<f32>().unwrap();
    assert_eq!(big.len(), 1_000_000);
    if cfg!(target_endian = "little") {
        let slice = big.as_slice().expect("aligned in the read buffer");
        assert_eq!(slice, &floats[..]);
        assert!(range.contains(&(slice.as_ptr() as *const u8)));
    }
}

#[test]
fn packet_value_is_o1_and_packets_are_send_sync() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Packet>();
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let p = Packet::from_message(Bytes::from(bytes.clone()), &ReadOptions::new()).unwrap();
    gdvariant::read_count::take();
    let v = p.value();
    assert_eq!(v.ty(), VariantType::Dictionary);
    assert_eq!(v.raw().unwrap().len(), bytes.len());
    assert!(
        gdvariant::read_count::take() <= 8,
        "value() and raw() read only the header"
    );
    assert_eq!(p.ty(), VariantType::Dictionary);
    assert_eq!(p.byte_len(), bytes.len());
    assert_eq!(p.offset(), 0);
    assert_eq!(p.clone(), p);
    assert_eq!(p.raw().as_ptr(), p.bytes().as_ptr());
    let tick = p.value().path("tick").unwrap().unwrap();
    let sub = p.sub_packet(&tick).unwrap();
    assert_eq!(sub.value().as_i64().unwrap(), 123456);
    assert_eq!(sub.offset(), tick.offset());
    // A view of another buffer is not a sub-tree of this packet.
    let other = gdvariant::parse(&bytes).unwrap();
    assert!(p.sub_packet(&other).is_none());
    assert!(format!("{p:?}").starts_with("Packet { ty: Dictionary, offset: 0, len: "));
}

#[test]
fn packet_constructors_check_everything() {
    let opts = ReadOptions::new();
    // Trailing bytes: refused by from_message, dropped by a frame that allows them.
    let with_tail = Bytes::from_static(&[2, 0, 0, 0, 5, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD]);
    let e = Packet::from_message(with_tail.clone(), &opts).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (ErrorKind::TrailingBytesInFrame { extra: 4 }, 8)
    );
    let lenient = FrameOptions::new().with_allow_trailing(true);
    let p = Packet::from_frame(with_tail, 100, &lenient).unwrap();
    assert_eq!((p.byte_len(), p.offset()), (8, 100));
    assert_eq!(p.value().offset(), 100);
    // Malformed deep inside: the whole value is validated up front, offsets absolute.
    let bad = Bytes::from_static(&[
        28, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0,
    ]);
    let e = Packet::from_frame(bad, 4, &FrameOptions::new()).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, 20));
    // Over the maximum frame size.
    let small = FrameOptions::new().with_max_frame(4);
    let e =
        Packet::from_frame(Bytes::from_static(&[2, 0, 0, 0, 1, 0, 0, 0]), 4, &small).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::FrameTooLarge { len: 8, max: 4 });
    // Godot 3 dialect: type 7 is a Vector3 there.
    let g3 = ReadOptions::new().with_dialect(Dialect::Godot3);
    let mut v3 = vec![7, 0, 0, 0];
    for f in [1.0f32, 2.0, 3.0] {
        v3.extend_from_slice(&f.to_le_bytes());
    }
    let p = Packet::from_message(Bytes::from(v3), &g3).unwrap();
    assert_eq!(p.value().as_vector3().unwrap(), Vector3::new(1.0, 2.0, 3.0));
    // Packet::encode reads back in the encoder's dialect.
    let p = Packet::encode(
        &Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
        &EncodeOptions::godot3(),
    )
    .unwrap();
    assert_eq!(p.options().dialect(), Dialect::Godot3);
    assert_eq!(p.raw()[0], 7);
}

#[test]
fn every_encoder_writes_what_write_frame_writes() {
    let opts = FrameOptions::new();
    let enc = EncodeOptions::new();
    for v in values() {
        let mut expected = Vec::new();
        write_frame(&mut expected, &v, &enc, &opts).unwrap();
        let bytes = gdvariant::encode(&v).unwrap();
        let packet = Packet::from_message(Bytes::from(bytes.clone()), &ReadOptions::new()).unwrap();
        let mut codec = VarCodec::new();
        let mut outs: Vec<(&str, BytesMut)> = Vec::new();
        let mut run = |name, f: &mut dyn FnMut(&mut VarCodec, &mut BytesMut)| {
            let mut dst = BytesMut::new();
            f(&mut codec, &mut dst);
            outs.push((name, dst));
        };
        run("&Variant", &mut |c, d| c.encode(&v, d).unwrap());
        run("Variant", &mut |c, d| c.encode(v.clone(), d).unwrap());
        run("VariantRef", &mut |c, d| {
            c.encode(gdvariant::parse(&bytes).unwrap(), d).unwrap()
        });
        run("&Packet", &mut |c, d| c.encode(&packet, d).unwrap());
        run("Packet", &mut |c, d| c.encode(packet.clone(), d).unwrap());
        run("&[u8]", &mut |c, d| c.encode(&bytes[..], d).unwrap());
        run("Bytes", &mut |c, d| {
            c.encode(Bytes::from(bytes.clone()), d).unwrap()
        });
        run("write_with", &mut |c, d| {
            c.encode(write_with(|w| w.value(&v)), d).unwrap()
        });
        run("Serde", &mut |c, d| c.encode(Serde(&v), d).unwrap());
        for (name, out) in outs {
            assert_eq!(&out[..], &expected[..], "{name} for {v:?}");
        }
    }
    // Big-endian prefixes.
    let be = FrameOptions::new().with_endian(Endian::Big);
    let mut expected = Vec::new();
    write_frame(&mut expected, &Variant::Int(9), &enc, &be).unwrap();
    let mut dst = BytesMut::new();
    VarCodec::new()
        .with_endian(Endian::Big)
        .encode(&Variant::Int(9), &mut dst)
        .unwrap();
    assert_eq!(&dst[..], &expected[..]);
    assert_eq!(&dst[..4], &[0, 0, 0, 8]);
}

#[test]
fn encoder_errors_write_nothing() {
    let mut codec = VarCodec::new().with_max_frame(16);
    let mut dst = BytesMut::new();
    dst.extend_from_slice(b"queued");
    let big = Variant::PackedByteArray(vec![0; 100]);
    let e = codec.encode(&big, &mut dst).unwrap_err();
    assert_eq!(
        e.format_error().unwrap().kind(),
        ErrorKind::FrameTooLarge { len: 108, max: 16 }
    );
    assert!(e.to_string().contains("with_max_frame"));
    assert!(codec.encode(&[0u8; 20][..], &mut dst).is_err());
    // A container left open by the streaming writer.
    let e = codec
        .encode(write_with(|w| w.begin_array(None)), &mut dst)
        .unwrap_err();
    assert!(matches!(
        e.format_error().unwrap().kind(),
        ErrorKind::WriterMisuse { .. }
    ));
    // A Godot 3 value into a Godot 4 stream.
    let g3 = gdvariant::parse_with(&[1, 0, 0, 0, 1, 0, 0, 0], &ReadOptions::godot3()).unwrap();
    assert!(codec.encode(g3, &mut dst).is_err());
    // A Serialize that fails.
    struct Fails;
    impl serde::Serialize for Fails {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no way"))
        }
    }
    let e = codec.encode(Serde(Fails), &mut dst).unwrap_err();
    assert_eq!(e.to_string(), "cannot serialize the value: no way");
    assert_eq!(&dst[..], b"queued");
}

#[test]
fn a_big_reply_is_written_once_in_the_outgoing_buffer() {
    let floats: Vec<f32> = (0..1_000_000).map(|i| i as f32).collect();
    let mut dst = BytesMut::with_capacity(4 << 20 | 64);
    dst.extend_from_slice(&[1, 2, 3]);
    let mut seen = std::ptr::null();
    VarCodec::new()
        .encode(
            write_with(|w| {
                w.begin_dictionary(None)?;
                w.string("samples")?;
                w.packed_f32(&floats)?;
                seen = w.bytes().as_ptr();
                w.end()
            }),
            &mut dst,
        )
        .unwrap();
    assert_eq!(
        seen,
        dst.as_ptr(),
        "the writer wrote into the outgoing buffer"
    );
    assert_eq!(&dst[..3], &[1, 2, 3]);
    let len = u32::from_le_bytes(dst[3..7].try_into().unwrap()) as usize;
    assert_eq!(len, dst.len() - 7);
    let v = gdvariant::parse(&dst[7..]).unwrap();
    assert_eq!(
        v.path("samples")
            .unwrap()
            .unwrap()
            .as_packed::<f32>()
            .unwrap()
            .len(),
        1_000_000
    );
}

#[tokio::test]
async fn framed_round_trip_over_a_pipe_in_the_godot3_dialect() {
    let (a, b) = tokio::io::duplex(1024);
    let codec = VarCodec::new().with_dialect(Dialect::Godot3);
    let mut a = tokio_util::codec::Framed::new(a, codec.clone());
    let mut b = tokio_util::codec::Framed::new(b, codec);
    let sent = vec![
        Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
        Variant::PackedFloat32Array((0..10_000).map(|i| i as f32).collect()),
        Variant::from("end"),
    ];
    let writer = async {
        for v in &sent {
            a.send(v).await.unwrap();
        }
        a
    };
    let reader = async {
        let mut got = Vec::new();
        for _ in 0..sent.len() {
            let p = b.next().await.unwrap().unwrap().unwrap();
            assert_eq!(p.options().dialect(), Dialect::Godot3);
            got.push(p.value().to_owned().unwrap());
        }
        got
    };
    let (_a, got) = tokio::join!(writer, reader);
    assert_eq!(got, sent);
    // The Godot 3 bytes: Vector3 is type 7.
    let mut dst = BytesMut::new();
    VarCodec::new()
        .with_dialect(Dialect::Godot3)
        .encode(&sent[0], &mut dst)
        .unwrap();
    assert_eq!(&dst[..8], &[16, 0, 0, 0, 7, 0, 0, 0]);
}

#[test]
fn garbage_streams_never_panic() {
    // Deterministic pseudo-random garbage with plausible prefixes, in many chunkings.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..300 {
        let mut stream = Vec::new();
        for _ in 0..(next() % 8) {
            let len = (next() % 40) as u32;
            stream.extend_from_slice(&len.to_le_bytes());
            for _ in 0..len {
                stream.push(if next() % 3 == 0 {
                    next() as u8
                } else {
                    (next() % 40) as u8
                });
            }
        }
        if round % 5 == 0 {
            stream.extend_from_slice(&(next() as u32).to_le_bytes());
        }
        let chunk = 1 + (next() % 13) as usize;
        let (items, _) = decode_chunked(&stream, chunk, &mut VarCodec::new());
        let (whole, _) = decode_chunked(&stream, stream.len().max(1), &mut VarCodec::new());
        assert_eq!(items.len(), whole.len());
        for (a, b) in items.iter().zip(&whole) {
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(a.raw(), b.raw()),
                (Err(a), Err(b)) => assert_eq!(a, b),
                _ => panic!("chunking changed a verdict"),
            }
        }
    }
}

/// A reader that counts `read` calls and can refuse once with `WouldBlock`.
struct Counting<'a> {
    data: &'a [u8],
    reads: usize,
    block_at: Option<usize>,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.block_at == Some(self.reads) {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn frame_reader_accessors_and_buffering() {
    let values: Vec<Variant> = (0..1000).map(Variant::Int).collect();
    let stream = stream_of(&values, &FrameOptions::new());

    // Unbuffered: the reader takes only what each frame needs (two reads per small frame).
    let mut r = FrameReader::new(
        Counting {
            data: &stream,
            reads: 0,
            block_at: None,
        },
        FrameOptions::new(),
    );
    for i in 0..500 {
        assert_eq!(r.next_frame().unwrap().unwrap().as_i64().unwrap(), i);
    }
    assert!(r.decoder().at_boundary());
    let unbuffered_reads = r.get_ref().reads;
    assert!(
        (1000..=1500).contains(&unbuffered_reads),
        "{unbuffered_reads}"
    );
    // Handed back mid-stream: nothing beyond frame 500 was taken.
    let rest = r.get_mut().data;
    assert_eq!(rest.len(), stream.len() / 2);
    let inner = r.into_inner();
    assert_eq!(inner.data.len(), stream.len() / 2);

    // Buffered: one read for many frames.
    let counting = Counting {
        data: &stream,
        reads: 0,
        block_at: None,
    };
    let mut r = FrameReader::new(
        BufReader::with_capacity(8192, counting),
        FrameOptions::new(),
    );
    let mut n = 0;
    while let Some(v) = r.next_frame().unwrap() {
        assert_eq!(v.as_i64().unwrap(), n);
        n += 1;
    }
    assert_eq!(n, 1000);
    let reads = r.get_ref().get_ref().reads;
    assert!(reads <= 4, "{reads} reads for {} bytes", stream.len());

    // WouldBlock in the middle of a frame: the call fails, the next one goes on.
    let big = stream_of(
        &[Variant::PackedByteArray(vec![7; 100_000])],
        &FrameOptions::new(),
    );
    let mut r = FrameReader::new(
        Counting {
            data: &big,
            reads: 0,
            block_at: Some(3),
        },
        FrameOptions::new(),
    );
    let e = r.next_frame().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
    assert!(r.decoder().buffered() > 4);
    let v = r.next_frame().unwrap().unwrap();
    assert_eq!(v.as_byte_array().unwrap().len(), 100_000);
    assert!(r.next_frame().unwrap().is_none());
}

#[test]
fn frame_writer_accessors_and_streaming_frames() {
    let mut w = FrameWriter::default();
    w.value(&Variant::Int(1)).unwrap();
    w.write_with(|w| {
        w.begin_array(Some(1))?;
        w.string("x")?;
        w.end()
    })
    .unwrap();
    // A failed streaming frame leaves the stream as it was.
    let before = w.get_ref().clone();
    let e = w.write_with(|w| w.begin_array(Some(2))).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WriterMisuse { .. }));
    assert_eq!(w.get_ref(), &before);
    let e = w
        .write_with(|w| {
            w.int(1)?;
            w.string("two values")
        })
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            ErrorKind::WriterMisuse {
                what: "more than one value written for the frame"
            },
            12
        )
    );
    let e = w.write_with(|_| Ok(())).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::WriterMisuse {
            what: "no value written for the frame"
        }
    );
    assert_eq!(w.get_ref(), &before);
    let values: Vec<Variant> = gdvariant::framing::frames(w.bytes(), &FrameOptions::new())
        .map(|v| v.unwrap().to_owned().unwrap())
        .collect();
    assert_eq!(
        values,
        [Variant::Int(1), Variant::from(vec![Variant::from("x")])]
    );
    w.get_mut().truncate(12);
    assert_eq!(w.bytes().len(), 12);
}
