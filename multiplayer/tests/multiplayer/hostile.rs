//! Hostile input for the multiplayer views: the committed fuzz corpus replayed with the fuzz
//! target's checks (`tests/common/multiplayer_check.rs`), every recorded packet truncated at every
//! length and mutated byte by byte, the cases where the engine's own bounds checks fail, and no
//! allocation at all while reading (under a counting allocator), whatever the counts and sizes
//! read from the input say.

use crate::{check, common, fixture};

use gdvariant::{Error, ErrorKind};
use gdvariant_multiplayer::{self as multiplayer, godot3, Packet, PacketOptions, Protocol};

#[test]
fn fuzz_corpus_replays() {
    let fuzz = common::repo_root().join("fuzz");
    let corpus = common::files_in(&fuzz.join("corpus").join("multiplayer_packets"));
    assert!(corpus.len() > 100, "only {} corpus files", corpus.len());
    let artifacts = common::files_in(&fuzz.join("artifacts").join("multiplayer_packets"));
    let mut valid = 0;
    for path in corpus.iter().chain(&artifacts) {
        let data = std::fs::read(path).unwrap();
        valid += usize::from(check::check(&data));
    }
    assert!(valid > 100, "only {valid} valid inputs");
    assert!(
        valid < corpus.len() + artifacts.len(),
        "everything was valid"
    );
}

fn recorded() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for name in ["godot4.tsv", "godot3.tsv"] {
        out.extend(fixture::load(name).pkts.into_iter().map(|p| p.bytes));
    }
    out
}

#[test]
fn every_truncation_and_byte_mutation_of_every_recorded_packet() {
    let mut inputs = 0;
    for bytes in recorded() {
        for n in 0..bytes.len() {
            check::check(&bytes[..n]);
            inputs += 1;
        }
        // Each byte set to values that hit the interesting cases (counts, sizes, widths, ids,
        // type bytes); long packets only at their first 64 bytes, which hold the fields.
        for i in 0..bytes.len().min(64) {
            for x in [0x00, 0x01, 0x07, 0x3F, 0x7F, 0x80, 0xC2, 0xFF] {
                let mut m = bytes.clone();
                m[i] = x;
                check::check(&m);
                inputs += 1;
            }
        }
    }
    assert!(inputs > 10_000, "{inputs}");
}

fn err4(bytes: &[u8]) -> Error {
    match multiplayer::parse(bytes) {
        Err(e) => e,
        Ok(p) => p.validate().expect_err("an invalid packet"),
    }
}

fn invalid(what: &'static str, offset: usize) -> (ErrorKind, usize) {
    (ErrorKind::InvalidPacket { what }, offset)
}

fn le(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

#[test]
fn counts_sizes_and_offsets_are_bounded_by_the_packet() {
    let e = |b: &[u8]| {
        let e = err4(b);
        assert!(e.offset() <= b.len());
        (e.kind(), e.offset())
    };
    // SPAWN: the engine checks `name_len + sync_len * 4` in 32-bit arithmetic, which a sync
    // count of 2^30 wraps to 0: it then reads 2^30 ids past the packet (Godot 4.6.3 hung for
    // over a minute on this packet). Here it is an error.
    let mut spawn = vec![0x04, 0];
    for x in [6, 1, 0x4000_0000, 1] {
        spawn.extend_from_slice(&le(x));
    }
    spawn.push(0);
    assert_eq!(
        e(&spawn),
        invalid("spawn sync ids and name longer than the packet", 10)
    );
    spawn[14..18].copy_from_slice(&le(u32::MAX));
    spawn[10..14].copy_from_slice(&le(0));
    assert_eq!(
        e(&spawn),
        invalid("spawn sync ids and name longer than the packet", 10)
    );
    spawn[14..18].copy_from_slice(&le(0));
    assert_eq!(e(&spawn), invalid("spawn name length 0", 14));
    // A custom spawn's argument size past the end.
    let mut custom = vec![0x04, 0xFF];
    for x in [6, 1, 0, 1] {
        custom.extend_from_slice(&le(x));
    }
    custom.push(0);
    custom.extend_from_slice(&le(0xFFFF_FFF0));
    assert_eq!(
        e(&custom),
        invalid("custom spawn argument past the end", 19)
    );
    // SYNC and DELTA entry sizes past the end.
    let mut sync = vec![0x06, 1, 0];
    sync.extend_from_slice(&le(2));
    sync.extend_from_slice(&le(u32::MAX));
    sync.push(0x81);
    assert_eq!(e(&sync), invalid("synchronizer entry size past the end", 7));
    let mut delta = vec![0x16];
    delta.extend_from_slice(&le(2));
    delta.extend_from_slice(&[0xFF; 8]);
    delta.extend_from_slice(&le(1 << 31));
    delta.push(0x81);
    assert_eq!(
        e(&delta),
        invalid("synchronizer entry size past the end", 13)
    );
    // More DELTA values than changed properties.
    let mut delta = vec![0x16];
    delta.extend_from_slice(&le(2));
    delta.extend_from_slice(&1u64.to_le_bytes());
    delta.extend_from_slice(&le(2));
    delta.extend_from_slice(&[0x81, 0x01]);
    assert_eq!(
        e(&delta),
        invalid("more DELTA values than bits in the mask", 18)
    );
    // RPC: inline path offsets past the end or inside the header; a node id width of 3.
    let mut rpc = vec![0x20];
    rpc.extend_from_slice(&le(0xFFFF_FFFF));
    rpc.extend_from_slice(&[0, 0]);
    assert_eq!(e(&rpc), invalid("inline node path offset past the end", 1));
    rpc[1..5].copy_from_slice(&le(0x8000_0002));
    assert_eq!(
        e(&rpc),
        invalid("inline node path offset inside the header", 1)
    );
    assert_eq!(
        e(&[0x30, 0, 0]),
        invalid("node id width 3 (not 8, 16 or 32 bits)", 0)
    );
    // 255 arguments declared, one byte of them.
    assert_eq!(
        e(&[0x00, 1, 0, 255, 0x81]),
        (ErrorKind::UnexpectedEof { needed: 1 }, 5)
    );
    // A compressed int wider than what is left; a type id past the last (39).
    assert_eq!(
        e(&[0x00, 1, 0, 1, 0xC2, 1, 2]),
        (ErrorKind::UnexpectedEof { needed: 6 }, 5)
    );
    assert_eq!(
        e(&[0x00, 1, 0, 1, 39]),
        (ErrorKind::UnknownType { id: 39 }, 4)
    );
    // Mode bits on an ordinary value make its header a type id the dialect lacks, as for the
    // engine (0x43: type 3 with mode 1).
    assert_eq!(
        e(&[0x00, 1, 0, 1, 0x43, 0, 0, 0, 0, 0, 0, 0]),
        (ErrorKind::UnknownType { id: 0x43 }, 4)
    );
    // An Array argument claiming 2^31 - 1 elements: nothing allocated for them.
    let mut arr = vec![0x00, 1, 0, 1, 28, 0, 0, 0];
    arr.extend_from_slice(&le(0x7FFF_FFFF));
    assert_eq!(e(&arr), (ErrorKind::UnexpectedEof { needed: 4 }, 12));
    // Nesting past the depth limit, iteratively (no stack overflow).
    let mut deep = vec![0x00, 1, 0, 1];
    for _ in 0..100_000 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    assert_eq!(
        e(&deep),
        (ErrorKind::DepthExceeded { limit: 1024 }, 4 + 1025 * 8)
    );
    // SYS: unknown sub-command, a relay of a SYS packet, a relay with nothing inside.
    assert_eq!(e(&[0x07, 9, 0, 0, 0, 0]), invalid("unknown SYS command", 1));
    assert_eq!(
        e(&[0x07, 3, 0, 0, 0, 0, 0x07, 0]),
        invalid("SYS packet inside a relay", 6)
    );
    assert_eq!(
        e(&[0x07, 3, 0, 0, 0, 0]),
        (ErrorKind::UnexpectedEof { needed: 1 }, 6)
    );
    // Godot 3: a name without its NUL, an unknown command, an argument count with nothing after.
    let g3 = |b: &[u8]| {
        let e = match godot3::parse(b) {
            Err(e) => e,
            Ok(p) => p.validate().expect_err("invalid"),
        };
        (e.kind(), e.offset())
    };
    assert_eq!(
        g3(b"\x00\x01\x00\x00\x00abc"),
        invalid("method or property name without its NUL", 5)
    );
    assert_eq!(g3(&[5, 0]), invalid("unknown Godot 3 command", 0));
    assert_eq!(
        g3(b"\x00\x01\x00\x00\x00a\0\x02"),
        (ErrorKind::UnexpectedEof { needed: 4 }, 8)
    );
}

#[test]
fn what_the_engine_accepts_is_accepted() {
    // Checked live (Godot 4.6.3, tests/godot/mp_inject4.gd): a compressed bool with bit 6 set
    // reads as its bit 7; bytes after an RPC's arguments are ignored; a SYNC packet of 11 bytes
    // has no entry (at most 8 bytes at the end are ignored).
    let Packet::RemoteCall(c) = multiplayer::parse(&[0x00, 5, 1, 1, 0x41]).unwrap() else {
        panic!()
    };
    assert!(!c.args().next().unwrap().unwrap().as_bool().unwrap());
    let trailing = [0x00, 5, 1, 1, 0x02, 9, 0xAA, 0xBB];
    assert_eq!(multiplayer::validate(&trailing), Ok(()));
    let Packet::RemoteCall(c) = multiplayer::parse(&trailing).unwrap() else {
        panic!()
    };
    let mut args = c.args();
    assert_eq!(args.next().unwrap().unwrap().as_i64(), Ok(9));
    assert!(args.next().is_none());
    assert_eq!(args.rest(), [0xAA, 0xBB]);
    let sync = [0x06, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let Packet::Sync(s) = multiplayer::parse(&sync).unwrap() else {
        panic!()
    };
    let mut entries = s.entries();
    assert!(entries.next().is_none());
    assert_eq!(entries.rest().len(), 8);
    // Shorter is not a SYNC packet for the engine.
    assert_eq!(
        err4(&sync[..10]).kind(),
        ErrorKind::UnexpectedEof { needed: 1 }
    );
}

/// Reads everything a packet holds, as a tool would, without converting to owned values.
/// Reads everything of a packet both ways and returns how many errors that gave (each error
/// allocates its box, and nothing else may allocate).
fn read_all(bytes: &[u8], opts: &PacketOptions) -> usize {
    fn errs<T, E>(r: Result<T, E>, n: &mut usize) -> Option<T> {
        *n += usize::from(r.is_err());
        r.ok()
    }
    let mut n = 0;
    if let Some(p) = errs(multiplayer::parse_with(bytes, opts), &mut n) {
        errs(p.validate(), &mut n);
        match p {
            Packet::RemoteCall(c) => {
                let _ = c.node();
                for a in c.args() {
                    if let Some(a) = errs(a, &mut n) {
                        errs(a.as_bool(), &mut n);
                        errs(a.as_i64(), &mut n);
                        errs(a.as_bytes(), &mut n);
                        errs(a.validate(), &mut n);
                    }
                }
            }
            Packet::Spawn(s) => {
                let _ = (s.name(), s.sync_ids().count());
                errs(s.custom_arg(), &mut n);
                s.state().for_each(|x| {
                    errs(x, &mut n);
                });
            }
            Packet::Sync(s) => s.entries().for_each(|e| {
                if let Some(e) = errs(e, &mut n) {
                    e.values().for_each(|x| {
                        errs(x, &mut n);
                    });
                }
            }),
            Packet::Delta(d) => d.entries().for_each(|e| {
                if let Some(e) = errs(e, &mut n) {
                    e.values().for_each(|x| {
                        errs(x, &mut n);
                    });
                }
            }),
            Packet::Sys(s) => match s.inner() {
                Some(Ok(inner)) => {
                    errs(inner.validate(), &mut n);
                }
                Some(Err(_)) => n += 1,
                None => {}
            },
            _ => {}
        }
    }
    if let Some(p) = errs(godot3::parse_with(bytes, opts), &mut n) {
        errs(p.validate(), &mut n);
        if let godot3::Packet::RemoteCall(c) = p {
            c.args().for_each(|x| {
                errs(x, &mut n);
            });
        }
    }
    n
}

#[test]
fn reading_never_allocates() {
    let mut hostile: Vec<Vec<u8>> = Vec::new();
    // Counts and sizes of 2^31 and more with nothing behind them.
    let mut spawn = vec![0x04, 0xFF];
    for x in [6, 1, 0x3FFF_FFFF, 1] {
        spawn.extend_from_slice(&le(x));
    }
    hostile.push(spawn);
    let mut arr = vec![0x00, 1, 0, 255, 28, 0, 0, 0];
    arr.extend_from_slice(&le(0x7FFF_FFFF));
    hostile.push(arr);
    let mut psa = vec![0x00, 1, 0, 1, 34, 0, 0, 0];
    psa.extend_from_slice(&le(0x7FFF_FFFF));
    hostile.push(psa);
    let mut sync = vec![0x06, 1, 0];
    sync.extend_from_slice(&le(2));
    sync.extend_from_slice(&le(0x7FFF_FFF0));
    sync.extend_from_slice(&[0; 8]);
    hostile.push(sync);
    let mut deep = vec![0x00, 1, 0, 1];
    for _ in 0..2000 {
        deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    hostile.push(deep);
    let inputs: Vec<Vec<u8>> = recorded().into_iter().chain(hostile).collect();
    for protocol in [Protocol::V4_3, Protocol::V4_0] {
        let opts = PacketOptions::new().with_protocol(protocol);
        let mut errors = 0;
        let (_, n) = common::alloc::count_allocs(|| {
            for b in &inputs {
                errors += read_all(b, &opts);
            }
        });
        assert!(errors > 0);
        assert_eq!(
            n, errors,
            "allocations while reading: one per error (its box), nothing else"
        );
    }
}

/// `validate` reads every byte of a packet's values once (the cursors count what they consume):
/// a deeply nested argument costs no more than a flat one of the same size.
#[cfg(feature = "__count-reads")]
#[test]
fn validate_reads_each_value_byte_once() {
    let mut inputs = recorded();
    for depth in [10, 1000] {
        let mut deep = vec![0x00, 1, 0, 1];
        for _ in 0..depth {
            deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
        }
        deep.extend_from_slice(&[0; 4]);
        let mut flat = vec![0x00, 1, 0, 1, 28, 0, 0, 0];
        flat.extend_from_slice(&(depth as u32).to_le_bytes());
        flat.extend(std::iter::repeat_n([2u8, 0, 0, 0, 1, 0, 0, 0], depth / 2).flatten());
        inputs.push(deep);
        inputs.push(flat);
    }
    for bytes in &inputs {
        gdvariant::read_count::take();
        let ok = multiplayer::validate(bytes).is_ok() || godot3::validate(bytes).is_ok();
        let read = gdvariant::read_count::take() as usize;
        assert!(ok, "{bytes:?}");
        assert!(read <= bytes.len(), "{read} bytes read of {}", bytes.len());
    }
}
