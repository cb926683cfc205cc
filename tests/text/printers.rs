//! The text and JSON printers: one linear walk without native recursion (any depth prints on a
//! small stack), memory that does not grow with depth × size, and their public API.

use crate::common;

// The binary's counting allocator: the bytes the current thread allocates.
use common::alloc::allocated_by;
use gdvariant::{json, text, Dialect, ReadOptions, Variant};

/// `levels` Dictionaries, each the value of the previous one's `key` (the innermost empty).
fn dict_chain(levels: usize, key: &str) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 1..levels {
        b.extend_from_slice(&[27, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0]);
        b.extend_from_slice(&(key.len() as u32).to_le_bytes());
        b.extend_from_slice(key.as_bytes());
        b.resize(b.len().next_multiple_of(4), 0);
    }
    b.extend_from_slice(&[27, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// `levels` Arrays, each the only element of the previous one, the innermost holding `inner`.
fn array_chain(levels: usize, inner: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..levels {
        b.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }
    b.extend_from_slice(inner);
    b
}

/// Runs `f` on a thread with a 128 KiB stack: a printer that recursed per nesting level
/// would overflow it on 1025 levels.
fn on_small_stack(f: impl FnOnce() + Send) {
    common::on_stack(128 << 10, f)
}

#[test]
fn the_deepest_values_print_on_a_small_stack() {
    let dicts = dict_chain(1025, "k");
    let arrays = array_chain(1024, &[2, 0, 0, 0, 7, 0, 0, 0]);
    on_small_stack(|| {
        let v = gdvariant::parse(&dicts).unwrap();
        let t = text::to_string(&v).unwrap();
        assert_eq!(
            t,
            format!("{}{{}}{}", "{\n\"k\": ".repeat(1024), "\n}".repeat(1024))
        );
        let j = json::to_string(&v).unwrap();
        assert_eq!(
            j,
            format!("{}{{}}{}", "{\"k\":".repeat(1024), "}".repeat(1024))
        );
        let v = gdvariant::parse(&arrays).unwrap();
        let t = text::to_string(&v).unwrap();
        assert_eq!(t, format!("{}7{}", "[".repeat(1024), "]".repeat(1024)));
        assert_eq!(json::to_string(&v).unwrap(), t);
    });
}

#[test]
fn deep_array_keys_sort_on_a_small_stack() {
    // Three 1000-deep Array keys that differ only innermost: comparing them walks all levels.
    let mut b = vec![27, 0, 0, 0, 3, 0, 0, 0];
    for (inner, value) in [(3u8, 1u8), (1, 2), (2, 3)] {
        b.extend_from_slice(&array_chain(1000, &[2, 0, 0, 0, inner, 0, 0, 0]));
        b.extend_from_slice(&[2, 0, 0, 0, value, 0, 0, 0]);
    }
    on_small_stack(|| {
        let v = gdvariant::parse(&b).unwrap();
        let t = text::to_string(&v).unwrap();
        let key = |i: u8| format!("{}{i}{}", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(
            t,
            format!("{{\n{}: 2,\n{}: 3,\n{}: 1\n}}", key(1), key(2), key(3))
        );
    });
}

#[test]
fn memory_does_not_grow_with_depth_times_size() {
    // 1000 nested Dictionaries with 1000-byte keys (1 MB): printing needs the output buffer
    // and a stack entry per open container, not a copy of each level, and the key length
    // does not matter.
    let used = |key: &str| {
        let bytes = dict_chain(1000, key);
        let v = gdvariant::parse(&bytes).unwrap();
        let mut out = std::io::sink();
        let t = allocated_by(|| text::to_writer(&v, &mut out).unwrap());
        let j = allocated_by(|| json::to_writer(&v, &mut out).unwrap());
        (bytes.len(), t, j)
    };
    let (size, long_text, long_json) = used(&"k".repeat(1000));
    let (_, short_text, short_json) = used("k");
    assert!(size > 1_000_000);
    for (name, long, short) in [
        ("text", long_text, short_text),
        ("json", long_json, short_json),
    ] {
        assert!(long < 400_000, "{name}: allocated {long} bytes for {size}");
        assert!(long.abs_diff(short) < 16_000, "{name}: {long} vs {short}");
    }
}

#[test]
fn printing_a_big_dictionary_keeps_four_bytes_a_key() {
    // 100 000 Nil: Nil pairs (8 bytes each).
    let n = 100_000u32;
    let mut bytes = vec![27, 0, 0, 0];
    bytes.extend_from_slice(&n.to_le_bytes());
    bytes.resize(8 + 8 * n as usize, 0);
    let v = gdvariant::parse(&bytes).unwrap();
    let mut out = std::io::sink();
    let used = allocated_by(|| text::to_writer(&v, &mut out).unwrap());
    assert!(used < 4 * n as usize + 100_000, "allocated {used}");
    // JSON keeps one bit per Dictionary.
    let used = allocated_by(|| json::to_writer(&v, &mut out).unwrap());
    assert!(used < 100_000, "allocated {used}");
}

#[test]
fn malformed_values_print_nothing() {
    // [1, "x"] cut inside the string.
    let bytes = [
        28, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0,
    ];
    let v = gdvariant::parse(&bytes).unwrap();
    let e = text::to_string(&v).unwrap_err();
    assert_eq!(
        (e.to_string().as_str(), e.offset()),
        ("unexpected end of input at offset 24", 24)
    );
    let mut out = Vec::new();
    let io = json::to_writer(&v, &mut out).unwrap_err();
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
    let inner = io
        .get_ref()
        .and_then(|e| e.downcast_ref::<gdvariant::Error>());
    assert_eq!(inner, Some(&e));
    assert!(out.is_empty());
    let mut s = String::from("before ");
    assert_eq!(text::to_fmt(&v, &mut s), Err(e));
    assert_eq!(s, "before ");
    assert_eq!(
        v.to_string(),
        "<invalid: unexpected end of input at offset 24>"
    );
}

#[test]
fn display_and_writers_agree() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let v = gdvariant::parse(&bytes).unwrap();
    let t = text::to_string(&v).unwrap();
    assert!(
        t.starts_with("{\n\"entities\": [{\n\"hp\": 100.0,\n\"id\": 0,"),
        "{t}"
    );
    assert_eq!(v.to_string(), t);
    let mut s = String::new();
    assert_eq!(text::to_fmt(&v, &mut s), Ok(Ok(())));
    assert_eq!(s, t);
    let mut w = Vec::new();
    text::to_writer(&v, &mut w).unwrap();
    assert_eq!(w, t.as_bytes());
    let j = json::to_string(&v).unwrap();
    let mut w = Vec::new();
    json::to_writer(&v, &mut w).unwrap();
    assert_eq!(w, j.as_bytes());
    // The owned tree prints the same text; text and JSON read back to it.
    let owned = v.to_owned().unwrap();
    assert_eq!(owned.to_string(), t);
    assert_eq!(json::from_str(&j).unwrap(), owned);
    let back = text::from_str(&t, Dialect::Godot4).unwrap();
    assert_eq!(back.to_string(), t);
    // A Godot 3 value prints in Godot 3's layout.
    let g3 = gdvariant::parse_with(
        &[7, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64],
        &ReadOptions::new().with_dialect(Dialect::Godot3),
    )
    .unwrap();
    assert_eq!(g3.to_string(), "Vector3( 1, 2, 3 )");
    assert_eq!(Variant::Float(0.1).to_string(), "0.1");
}

#[test]
fn a_failing_writer_stops_the_printer() {
    struct Full(usize);
    impl std::fmt::Write for Full {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            if self.0 < s.len() {
                return Err(std::fmt::Error);
            }
            self.0 -= s.len();
            Ok(())
        }
    }
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/game_state.bin"
    ))
    .unwrap();
    let v = gdvariant::parse(&bytes).unwrap();
    assert_eq!(text::to_fmt(&v, &mut Full(100)), Ok(Err(std::fmt::Error)));
    assert_eq!(json::to_fmt(&v, &mut Full(100)), Ok(Err(std::fmt::Error)));
}
