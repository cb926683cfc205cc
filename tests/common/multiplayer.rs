//! The recorded multiplayer sessions (`tests/data/multiplayer/godot4.tsv`, `godot3.tsv`, written
//! by `tests/godot/mp_record4.gd` / `mp_record3.gd`) and helpers shared by the multiplayer tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// One packet as the recorder logged it.
#[derive(Clone, Debug)]
pub struct Pkt {
    pub seq: u32,
    pub step: String,
    pub from: i32,
    pub to: i32,
    /// Channel and transfer mode (0 unreliable, 1 ordered, 2 reliable); `None` for Godot 3.
    pub channel: Option<u8>,
    pub mode: Option<u8>,
    pub bytes: Vec<u8>,
}

/// What a receiver's script got (RPC arguments, spawn state, synchronized values, raw bytes,
/// authentication data), as the engine's `var_to_str` / `var2str` texts, and the packet that
/// made the call.
#[derive(Clone, Debug)]
pub struct Got {
    pub seq: u32,
    pub receiver: i32,
    pub sender: i32,
    pub what: String,
    pub args: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Fixture {
    pub engine: String,
    pub comments: Vec<String>,
    pub pkts: Vec<Pkt>,
    pub gots: Vec<Got>,
}

impl Fixture {
    pub fn pkt(&self, seq: u32) -> &Pkt {
        self.pkts.iter().find(|p| p.seq == seq).expect("packet seq")
    }

    /// The script calls packet `seq` made at its receiver.
    pub fn gots_of(&self, seq: u32, receiver: i32) -> Vec<&Got> {
        self.gots
            .iter()
            .filter(|g| g.seq == seq && g.receiver == receiver)
            .collect()
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn data_dir() -> PathBuf {
    crate::common::repo_root()
        .join("tests")
        .join("data")
        .join("multiplayer")
}

pub fn parse(text: &str) -> Fixture {
    let mut fx = Fixture::default();
    for line in text.lines() {
        if let Some(c) = line.strip_prefix('#') {
            let c = c.trim_start();
            if let Some(v) = c.strip_prefix("engine\t") {
                fx.engine = v.to_string();
            } else {
                fx.comments.push(c.to_string());
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "pkt" => fx.pkts.push(Pkt {
                seq: f[1].parse().unwrap(),
                step: f[2].to_string(),
                from: f[3].parse().unwrap(),
                to: f[4].parse().unwrap(),
                channel: f[5].parse().ok(),
                mode: f[6].parse().ok(),
                bytes: unhex(f[7]),
            }),
            "got" => fx.gots.push(Got {
                seq: f[1].parse().unwrap(),
                receiver: f[2].parse().unwrap(),
                sender: f[3].parse().unwrap(),
                what: f[4].to_string(),
                args: f
                    .get(5)
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        s.split(',')
                            .map(|h| String::from_utf8(unhex(h)).unwrap())
                            .collect()
                    })
                    .unwrap_or_default(),
            }),
            other => panic!("unknown fixture line kind {other}"),
        }
    }
    fx
}

pub fn load(name: &str) -> Fixture {
    let path = data_dir().join(name);
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The RPC methods of the scripts the Godot 4 recorder uses, by node path pattern.
pub const GAME_METHODS: &[&str] = &[
    "no_args",
    "one",
    "two",
    "ints",
    "bools",
    "bytes_opt",
    "unrel",
    "ordered",
    "chan3",
];

/// `mp_wide.gd`: m000 … m299.
pub fn wide_methods() -> Vec<String> {
    (0..300).map(|i| format!("m{i:03}")).collect()
}
