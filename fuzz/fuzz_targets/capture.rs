//! Arbitrary bytes as a packet capture (`gdvariant_multiplayer::capture`): as given when they
//! start with a pcap or pcapng magic number, else behind a classic pcap header of the link type
//! the first byte picks. Never a panic; every event is read (values and packets checked as the
//! CLI would); the bytes held for early TCP segments and unfinished messages stay within the
//! configured bounds, whatever the lengths the input claims.
#![no_main]

use gdvariant_multiplayer::capture::{
    is_capture, Body, CaptureReader, Config, LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL,
    LINKTYPE_LINUX_SLL2, LINKTYPE_LOOP, LINKTYPE_NULL, LINKTYPE_RAW,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let owned;
    let input: &[u8] = if is_capture(data) {
        data
    } else {
        let links = [
            LINKTYPE_ETHERNET,
            LINKTYPE_RAW,
            LINKTYPE_NULL,
            LINKTYPE_LOOP,
            LINKTYPE_LINUX_SLL,
            LINKTYPE_LINUX_SLL2,
        ];
        let link = links[usize::from(data.first().copied().unwrap_or(0)) % links.len()];
        let mut v = Vec::with_capacity(24 + data.len());
        v.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
        v.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        v.extend_from_slice(&65535u32.to_le_bytes());
        v.extend_from_slice(&link.to_le_bytes());
        v.extend_from_slice(data.get(1..).unwrap_or_default());
        owned = v;
        &owned
    };
    let config = Config::new()
        .with_max_early(64 << 10, 256 << 10)
        .with_max_message(1 << 20)
        .with_max_flows(64);
    let Ok(mut r) = CaptureReader::with_config(input, config) else {
        return;
    };
    while let Some(e) = r.next_event() {
        match e.body {
            Body::Value { bytes, dialect } => {
                let o = gdvariant::ReadOptions::new().with_dialect(dialect);
                if let Ok(v) = gdvariant::parse_with(bytes, &o) {
                    let _ = gdvariant::text::to_string(&v);
                }
            }
            Body::Packet { bytes, dialect } => match dialect {
                gdvariant::Dialect::Godot4 => {
                    let _ = gdvariant_multiplayer::validate(bytes);
                }
                gdvariant::Dialect::Godot3 => {
                    if let Ok(p) = gdvariant_multiplayer::godot3::parse(bytes) {
                        let _ = p.validate();
                    }
                }
            },
            Body::Control(_) => {}
            Body::Error(err) => {
                let _ = err.to_string();
            }
        }
    }
    assert!(r.open_flows() <= 64);
});
