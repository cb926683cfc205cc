//! Length-prefixed streams: iteration, writing, the incremental decoder and the io adapters.

#[cfg(feature = "std")]
use gdvariant::framing::FrameReader;
use gdvariant::framing::{
    frames, write_frame, write_raw_frame, Decoded, Endian, FrameDecoder, FrameOptions, FrameWriter,
    DEFAULT_MAX_FRAME,
};
use gdvariant::{encode, math::Vector3, EncodeOptions, ErrorKind, ReadOptions, Variant};

fn sample_values() -> Vec<Variant> {
    vec![
        Variant::Int(1),
        Variant::from("hello"),
        Variant::from(vec![
            Variant::Float(0.1),
            Variant::Nil,
            Vector3::new(1.0, 2.0, 3.0).into(),
        ]),
        Variant::PackedByteArray(vec![1, 2, 3]),
        Variant::Nil,
    ]
}

fn stream(values: &[Variant], framing: &FrameOptions) -> Vec<u8> {
    let mut w = FrameWriter::new(*framing, EncodeOptions::new());
    for v in values {
        w.value(v).unwrap();
    }
    w.into_inner()
}

fn read_all(buf: &[u8], framing: &FrameOptions) -> Vec<Variant> {
    frames(buf, framing)
        .map(|f| f.unwrap().to_owned().unwrap())
        .collect()
}

#[test]
fn little_and_big_endian_prefixes() {
    let values = sample_values();
    for endian in [Endian::Little, Endian::Big] {
        let framing = FrameOptions::new().with_endian(endian);
        let buf = stream(&values, &framing);
        assert_eq!(read_all(&buf, &framing), values);
        let first = encode(&values[0]).unwrap();
        let prefix = match endian {
            Endian::Little => [8, 0, 0, 0],
            Endian::Big => [0, 0, 0, 8],
        };
        assert_eq!(&buf[..4], &prefix);
        assert_eq!(&buf[4..12], &first[..]);
    }
    // Reading a big-endian stream as little-endian sees a huge first frame.
    let buf = stream(&values, &FrameOptions::new().with_endian(Endian::Big));
    let err = frames(&buf, &FrameOptions::new())
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (
            ErrorKind::FrameTooLarge {
                len: 0x0800_0000,
                max: DEFAULT_MAX_FRAME as u64
            },
            0
        )
    );
}

#[test]
fn truncated_last_frame_and_prefix() {
    let framing = FrameOptions::new();
    let buf = stream(&sample_values(), &framing);
    // Cut inside the last frame's value.
    let cut = &buf[..buf.len() - 3];
    let items: Vec<_> = frames(cut, &framing).collect();
    assert_eq!(items.len(), 5);
    assert!(items[..4].iter().all(Result::is_ok));
    let err = items[4].clone().unwrap_err();
    let last_at = buf.len() - 8; // the last frame is a Nil: 4-byte prefix + 4-byte value
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::TruncatedFrame { needed: 3 }, last_at)
    );
    // Cut inside the prefix.
    let cut = &buf[..last_at + 2];
    let err = frames(cut, &framing).nth(4).unwrap().unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::TruncatedFrame { needed: 2 }, last_at)
    );
    // The iterator ends after the error.
    let mut it = frames(cut, &framing);
    assert_eq!(it.by_ref().filter(Result::is_err).count(), 1);
    assert!(it.next().is_none());
}

#[test]
fn oversize_frames() {
    let big = Variant::PackedByteArray(vec![0; 100]);
    let small = FrameOptions::new().with_max_frame(64);
    let mut out = vec![9];
    let err = write_frame(&mut out, &big, &EncodeOptions::new(), &small).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FrameTooLarge { len: 108, max: 64 });
    assert_eq!(out, [9]);
    let buf = stream(&[Variant::Int(3), big], &FrameOptions::new());
    let items: Vec<_> = frames(&buf, &small).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().as_i64().unwrap(), 3);
    let err = items[1].clone().unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::FrameTooLarge { len: 108, max: 64 }, 12)
    );
}

#[test]
fn zero_length_and_malformed_frames_report_absolute_offsets() {
    let mut buf = stream(&[Variant::Int(5)], &FrameOptions::new());
    buf.extend_from_slice(&[0, 0, 0, 0]);
    let items: Vec<_> = frames(&buf, &FrameOptions::new()).collect();
    let err = items[1].clone().unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::UnexpectedEof { needed: 4 }, 16)
    );
    // A bad string inside the second frame: the offset is in the whole buffer.
    let mut buf = stream(&[Variant::Int(5)], &FrameOptions::new());
    write_raw_frame(
        &mut buf,
        &[4, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0],
        &FrameOptions::new(),
    )
    .unwrap();
    let v = frames(&buf, &FrameOptions::new()).nth(1).unwrap().unwrap();
    let err = v.as_str().unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::InvalidUtf8, 24));
    // Unknown type id in the second frame.
    let mut buf = stream(&[Variant::Int(5)], &FrameOptions::new());
    write_raw_frame(&mut buf, &[99, 0, 0, 0], &FrameOptions::new()).unwrap();
    let err = frames(&buf, &FrameOptions::new())
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::UnknownType { id: 99 }, 16)
    );
}

#[test]
fn trailing_bytes_inside_a_frame() {
    let mut buf = Vec::new();
    write_raw_frame(
        &mut buf,
        &[2, 0, 0, 0, 7, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD],
        &FrameOptions::new(),
    )
    .unwrap();
    let err = frames(&buf, &FrameOptions::new())
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::TrailingBytesInFrame { extra: 4 }, 12)
    );
    // As the engine does, they can be ignored.
    let lenient = FrameOptions::new().with_allow_trailing(true);
    let v = frames(&buf, &lenient).next().unwrap().unwrap();
    assert_eq!(v.as_i64().unwrap(), 7);
}

#[test]
fn godot3_values_in_frames() {
    let framing = FrameOptions::new().with_read_options(ReadOptions::godot3());
    let mut buf = Vec::new();
    let v = Variant::from(vec![Variant::Rid(0), Vector3::new(1.0, 2.0, 3.0).into()]);
    write_frame(&mut buf, &v, &EncodeOptions::godot3(), &framing).unwrap();
    assert_eq!(read_all(&buf, &framing), vec![v]);
}

/// Feeds `buf` to a decoder in chunks of `chunk` bytes; returns the values and the needs seen.
fn feed(buf: &[u8], chunk: usize, framing: &FrameOptions) -> (Vec<Variant>, Vec<usize>) {
    let mut dec = FrameDecoder::new(*framing);
    let mut out = Vec::new();
    let mut needs = Vec::new();
    let mut max_buffered = 0;
    for piece in buf.chunks(chunk) {
        let mut input = piece;
        while !input.is_empty() {
            match dec.decode(&mut input).unwrap() {
                Decoded::NeedMore(n) => {
                    assert_eq!(n, dec.needed());
                    needs.push(n);
                }
                Decoded::Frame(v) => out.push(v.to_owned().unwrap()),
            }
            max_buffered = max_buffered.max(dec.buffered());
        }
    }
    assert!(dec.at_boundary());
    dec.finish().unwrap();
    assert!(max_buffered <= framing.max_frame() + 4);
    (out, needs)
}

#[test]
fn incremental_decoder_one_byte_at_a_time() {
    let values = sample_values();
    for endian in [Endian::Little, Endian::Big] {
        let framing = FrameOptions::new().with_endian(endian);
        let buf = stream(&values, &framing);
        let (got, needs) = feed(&buf, 1, &framing);
        assert_eq!(got, values);
        // The first frame: 3, 2, 1 prefix bytes to go, then 8, 7, ..., 2 value bytes (the
        // last byte completes the frame).
        assert_eq!(&needs[..10], &[3, 2, 1, 8, 7, 6, 5, 4, 3, 2]);
        for chunk in [2, 3, 5, 7, 64, buf.len()] {
            assert_eq!(feed(&buf, chunk, &framing).0, values, "chunk {chunk}");
        }
    }
}

#[test]
fn incremental_decoder_takes_only_the_current_frame() {
    let buf = stream(&[Variant::Int(1), Variant::Int(2)], &FrameOptions::new());
    let mut dec = FrameDecoder::new(FrameOptions::new());
    let mut input = &buf[..];
    match dec.decode(&mut input).unwrap() {
        Decoded::Frame(v) => assert_eq!(v.as_i64().unwrap(), 1),
        other => panic!("{other:?}"),
    }
    assert_eq!(input.len(), 12);
    assert_eq!(dec.frame_offset(), 0);
    match dec.decode(&mut input).unwrap() {
        Decoded::Frame(v) => {
            assert_eq!(v.as_i64().unwrap(), 2);
            assert_eq!(v.offset(), 16); // absolute in the stream
        }
        other => panic!("{other:?}"),
    }
    assert!(input.is_empty());
    assert!(matches!(
        dec.decode(&mut input).unwrap(),
        Decoded::NeedMore(4)
    ));
}

#[test]
fn incremental_decoder_errors() {
    // Oversize: sticky, reported before any of the frame is buffered.
    let framing = FrameOptions::new().with_max_frame(16);
    let mut dec = FrameDecoder::new(framing);
    let mut input: &[u8] = &[100, 0, 0, 0, 1, 2, 3];
    let err = dec.decode(&mut input).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FrameTooLarge { len: 100, max: 16 });
    assert_eq!(dec.buffered(), 4);
    assert_eq!(input, &[1, 2, 3]);
    assert_eq!(dec.decode(&mut input).unwrap_err(), err);
    // A malformed value is reported for its frame; the next frame decodes.
    let mut buf = Vec::new();
    write_raw_frame(&mut buf, &[99, 0, 0, 0], &FrameOptions::new()).unwrap();
    write_frame(
        &mut buf,
        &Variant::Int(4),
        &EncodeOptions::new(),
        &FrameOptions::new(),
    )
    .unwrap();
    let mut dec = FrameDecoder::new(FrameOptions::new());
    let mut input = &buf[..];
    let err = dec.decode(&mut input).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::UnknownType { id: 99 }, 4)
    );
    match dec.decode(&mut input).unwrap() {
        Decoded::Frame(v) => assert_eq!(v.as_i64().unwrap(), 4),
        other => panic!("{other:?}"),
    }
    // A stream that stops mid-frame.
    let mut dec = FrameDecoder::new(FrameOptions::new());
    let mut input = &buf[..6];
    assert!(matches!(
        dec.decode(&mut input).unwrap(),
        Decoded::NeedMore(2)
    ));
    let err = dec.finish().unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::TruncatedFrame { needed: 2 }, 0)
    );
}

/// The `std::io` adapters (feature `std`).
#[cfg(feature = "std")]
#[test]
fn io_adapters() {
    let values = sample_values();
    let framing = FrameOptions::new().with_endian(Endian::Big);
    let mut file = Vec::new();
    for v in &values {
        gdvariant::framing::write_frame_to(&mut file, v, &EncodeOptions::new(), &framing).unwrap();
    }
    assert_eq!(file, stream(&values, &framing));
    let mut r = FrameReader::new(&file[..], framing);
    let mut got = Vec::new();
    while let Some(v) = r.next_frame().unwrap() {
        got.push(v.to_owned().unwrap());
    }
    assert_eq!(got, values);
    // A truncated file: UnexpectedEof wrapping the crate's error.
    let mut r = FrameReader::new(&file[..file.len() - 1], framing);
    let err = loop {
        match r.next_frame() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    let inner = err
        .get_ref()
        .unwrap()
        .downcast_ref::<gdvariant::Error>()
        .unwrap();
    assert_eq!(inner.kind(), ErrorKind::TruncatedFrame { needed: 1 });
    // FrameWriter::flush_to
    let mut w = FrameWriter::new(framing, EncodeOptions::new());
    w.value(&values[1]).unwrap();
    let mut sink = Vec::new();
    w.flush_to(&mut sink).unwrap();
    assert!(w.bytes().is_empty());
    assert_eq!(sink, stream(&values[1..2], &framing));
}

#[test]
fn raw_frames_split_without_reading_values() {
    use gdvariant::framing::{raw_frames, Endian, FrameOptions, RawFrame};
    // Two big-endian frames: int 7, then 4 garbage bytes (not a valid value: raw frames don't care).
    let stream = [
        0, 0, 0, 8, 2, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0,
    ];
    let opts = FrameOptions::new().with_endian(Endian::Big);
    let mut it = raw_frames(&stream, &opts);
    assert_eq!(
        it.next(),
        Some(Ok(RawFrame {
            offset: 4,
            bytes: &stream[4..12]
        }))
    );
    assert_eq!(
        it.next(),
        Some(Ok(RawFrame {
            offset: 16,
            bytes: &stream[16..20]
        }))
    );
    let err = it.next().unwrap().unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (20, gdvariant::ErrorKind::TruncatedFrame { needed: 2 })
    );
    assert_eq!(it.next(), None);
    // The maximum frame size applies.
    let small = FrameOptions::new()
        .with_endian(Endian::Big)
        .with_max_frame(4);
    let err = raw_frames(&stream, &small).next().unwrap().unwrap_err();
    assert_eq!(
        err.kind(),
        gdvariant::ErrorKind::FrameTooLarge { len: 8, max: 4 }
    );
}
