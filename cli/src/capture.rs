//! `gdvariant capture [decode] FILE...`: the Godot traffic of packet captures (pcap, pcapng), one
//! line per message, both directions of every flow in capture order.

mod batch;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;

use clap::{Args, ValueEnum};
use gdvariant::Dialect;
use gdvariant_multiplayer::capture::{
    Body, CaptureReader, Config, Control, Event, FlowId, Transport,
};
use gdvariant_multiplayer::{
    godot3, NodeTarget, Packet, PacketOptions, Protocol, RemoteCall, Session, StaticSchema, SysKind,
};

use crate::host::{Fail, Host};
use crate::mp::{self, Out};
use crate::pipeline::{self, Lanes};
use batch::{Batch, Ctx, Item, Meta};

pub(crate) const AFTER_HELP: &str = "\
Exit status: 0 success, 1 an error in a capture (every message is still shown), 2 usage error.";

/// The `capture` command's arguments.
#[derive(Args, Debug)]
pub struct CaptureArgs {
    /// Output form: one line per message, or JSON lines (values in typed JSON).
    #[arg(long, value_enum, default_value_t = CaptureFormat::Text)]
    format: CaptureFormat,
    /// Read flows with this port at either end as KIND (put_var, websocket, enet, udp) instead
    /// of telling their transport from their content. Repeatable.
    #[arg(long = "decode-as", value_name = "PORT=KIND", value_parser = parse_decode_as)]
    decode_as: Vec<(u16, Transport)>,
    /// Show only these flows (their numbers, as the lines show them: #N). Repeatable.
    #[arg(long, value_name = "N")]
    flow: Vec<FlowId>,
    /// Show only messages from or to this Godot peer id. Repeatable.
    #[arg(long, value_name = "ID", allow_negative_numbers = true)]
    peer: Vec<i32>,
    /// Show only these kinds of message. Repeatable.
    #[arg(long, value_enum, value_name = "KIND")]
    command: Vec<Kind>,
    /// Print a summary instead of the messages: messages, bytes and types per flow and command.
    #[arg(long)]
    stats: bool,
    /// What the project is: node RPC methods and synchronizer properties (the format of
    /// `multiplayer decode --schema`).
    #[arg(long, value_name = "FILE")]
    schema: Option<String>,
    /// Godot 4 protocol version of the multiplayer packets: 4.3 (and later) or 4.0 (4.0 to 4.2).
    #[arg(long, value_enum, default_value_t = CaptureProtocol::V43)]
    protocol: CaptureProtocol,
    /// Accept full objects in values.
    #[arg(long)]
    allow_objects: bool,
    /// Dialect of the values of put_var, PacketPeerUDP and WebSocket value flows. auto: each
    /// flow's values tell (values that read the same in both dialects, before one that does not,
    /// are shown as Godot 4's text).
    #[arg(long, value_enum, default_value_t = ValueDialect::Auto)]
    dialect: ValueDialect,
    /// Threads that format the lines, counting the one that reads the capture (which formats a
    /// batch of lines itself when the others have enough waiting; 1: it does all). The output is
    /// the same with any number. Default: the number of cores, at most 8.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: Option<u16>,
    /// Capture files, pcap or pcapng ('-': standard input). `capture decode FILE` is the same
    /// as `capture FILE`.
    #[arg(required = true)]
    files: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// One line per message.
    Text,
    /// JSON lines.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDialect {
    #[value(name = "4")]
    Four,
    #[value(name = "3")]
    Three,
    Auto,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureProtocol {
    #[value(name = "4.3")]
    V43,
    #[value(name = "4.0")]
    V40,
}

/// What a line is, for `--command`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// REMOTE_CALL (and Godot 3's REMOTE_SET).
    Rpc,
    /// SIMPLIFY_PATH and CONFIRM_PATH.
    Path,
    /// RAW (send_bytes).
    Raw,
    /// SPAWN.
    Spawn,
    /// DESPAWN.
    Despawn,
    /// SYNC and DELTA.
    Sync,
    /// SYS (auth, peers, relay).
    Sys,
    /// Values (put_var streams, PacketPeerUDP, WebSocketPeer.put_var).
    Value,
    /// Transport events (handshakes, peer ids, ENet connects, closes, gaps).
    Transport,
    /// Errors.
    Error,
}

fn parse_decode_as(s: &str) -> Result<(u16, Transport), String> {
    let (port, kind) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}': PORT=KIND (put_var, websocket, enet, udp)"))?;
    let port = port
        .parse()
        .map_err(|_| format!("'{port}' is not a port number"))?;
    let t = Transport::from_name(kind)
        .ok_or_else(|| format!("'{kind}': put_var, websocket, enet or udp"))?;
    Ok((port, t))
}

/// Per flow and per command: what `--stats` counts.
#[derive(Default)]
struct Count {
    messages: u64,
    bytes: u64,
}

#[derive(Default)]
struct FlowStats {
    label: String,
    transport: Option<Transport>,
    peers: [Option<i32>; 2],
    total: Count,
    commands: BTreeMap<String, Count>,
}

/// The most threads by default.
const MAX_THREADS: usize = 8;

/// The most batches in flight (sent and not written yet) per formatting thread: what bounds the
/// memory the threads add (a batch holds about 256 KiB of messages and their lines).
const IN_FLIGHT: usize = 2;

/// A hasher for the reader's keys: flow numbers (which the capture reader gives in order, not
/// the capture's bytes), peer ids and cache ids, mixed by multiplication.
#[derive(Default)]
struct FlowHasher(u64);

impl Hasher for FlowHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_i32(&mut self, n: i32) {
        self.write_u64(u64::from(n as u32));
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
}

type FlowMap<K, V> = HashMap<K, V, BuildHasherDefault<FlowHasher>>;

/// What the shower keeps per flow and direction.
#[derive(Default)]
struct Side {
    /// The receiver's session (what the sender told it).
    session: Session,
    /// The text between a line's time and its body, and what it was made of: a few per
    /// direction (its channels, the peer ids once known).
    heads: Vec<(Head, String)>,
}

/// The reading thread's state: what the capture said so far, in capture order, and the
/// statistics.
struct Reader<'a> {
    a: &'a CaptureArgs,
    cx: &'a Ctx,
    /// Per flow and direction (whether the client sends).
    sides: FlowMap<(FlowId, bool), Side>,
    /// Godot 3: (flow, receiving side, sender, cache id) -> path.
    paths3: FlowMap<(FlowId, bool, i32, u32), String>,
    stats: BTreeMap<FlowId, FlowStats>,
    types: BTreeMap<&'static str, u64>,
    errors: u64,
}

/// What the text between a line's time and its body shows.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Head {
    from_peer: Option<i32>,
    to_peer: Option<i32>,
    transport: Option<Transport>,
    channel: Option<gdvariant_multiplayer::capture::Channel>,
}

/// ` #N src → dst (from → to) transport ch N MODE transfer N`.
fn head_text(ev: &Event<'_>) -> String {
    let mut l = format!(" #{} {} → {}", ev.flow, ev.src, ev.dst);
    if ev.from_peer.is_some() || ev.to_peer.is_some() {
        let _ = write!(l, " ({} → {})", peer(ev.from_peer), peer(ev.to_peer));
    }
    if let Some(t) = ev.transport {
        let _ = write!(l, " {t}");
    }
    if let Some(c) = ev.channel {
        let _ = write!(l, " ch {} {}", c.enet, c.mode.name());
        if c.transfer != 0 {
            let _ = write!(l, " transfer {}", c.transfer);
        }
    }
    l
}

/// Runs `gdvariant capture`; returns the exit status.
pub fn run(
    mut a: CaptureArgs,
    host: &mut dyn Host,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Fail> {
    if a.files.len() > 1 && a.files[0] == "decode" && !std::path::Path::new("decode").exists() {
        a.files.remove(0);
    }
    let schema = match &a.schema {
        Some(path) => {
            let bytes = host
                .load(path)
                .map_err(|e| Fail::Input(format!("{path}: {e}")))?;
            let text = std::str::from_utf8((*bytes).as_ref())
                .map_err(|_| Fail::Input(format!("{path}: not UTF-8")))?;
            mp::parse_schema(text).map_err(|e| Fail::Input(format!("{path}: {e}")))?
        }
        None => StaticSchema::new(),
    };
    let opts = PacketOptions::new()
        .with_full_objects(a.allow_objects)
        .with_protocol(match a.protocol {
            CaptureProtocol::V43 => Protocol::V4_3,
            CaptureProtocol::V40 => Protocol::V4_0,
        });
    let mut config = Config::new().with_dialect(match a.dialect {
        ValueDialect::Four => Some(Dialect::Godot4),
        ValueDialect::Three => Some(Dialect::Godot3),
        ValueDialect::Auto => None,
    });
    for (port, t) in &a.decode_as {
        config = config.decode_as(*port, *t);
    }
    let cx = Ctx {
        json: a.format == CaptureFormat::Json,
        stats: a.stats,
        allow_objects: a.allow_objects,
        opts,
        schema,
    };
    // One thread a core: the reading thread formats too when the others are busy (see
    // `pipeline`).
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS)),
        usize::from,
    );
    let mut r = Reader {
        a: &a,
        cx: &cx,
        sides: FlowMap::default(),
        paths3: FlowMap::default(),
        stats: BTreeMap::new(),
        types: BTreeMap::new(),
        errors: 0,
    };
    let work = |b: &mut Batch| batch::format(&cx, b);
    let bad = pipeline::run(threads - 1, IN_FLIGHT * threads + 1, &work, |lanes| {
        r.read(&config, host, lanes, out, err)
    })?;
    if a.stats {
        r.summary(out)?;
    }
    Ok(i32::from(bad || r.errors > 0))
}

fn peer(p: Option<i32>) -> String {
    p.map_or_else(|| "?".to_string(), |p| p.to_string())
}

/// A Godot 4 packet's kind, for `--command`.
fn kind4(bytes: &[u8]) -> Option<Kind> {
    Some(match bytes.first()? & 7 {
        0 => Kind::Rpc,
        1 | 2 => Kind::Path,
        3 => Kind::Raw,
        4 => Kind::Spawn,
        5 => Kind::Despawn,
        6 => Kind::Sync,
        _ => Kind::Sys,
    })
}

/// A Godot 3 packet's kind.
fn kind3(bytes: &[u8]) -> Option<Kind> {
    Some(match bytes.first()? & 7 {
        0 | 1 => Kind::Rpc,
        2 | 3 => Kind::Path,
        _ => Kind::Raw,
    })
}

impl Reader<'_> {
    /// Reads every file, sends its messages on in batches and writes their lines as they come
    /// back, in order; returns whether a file could not be read.
    fn read(
        &mut self,
        config: &Config,
        host: &mut dyn Host,
        lanes: &mut Lanes<'_, Batch>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<bool, Fail> {
        let files = &self.a.files;
        let mut bad = false;
        let mut free = Vec::new();
        let mut batch = Batch::default();
        for file in files {
            let reader = match host.open(file) {
                Ok(r) => r,
                Err(e) => {
                    writeln!(err, "{file}: error: {e}")?;
                    bad = true;
                    continue;
                }
            };
            let mut capture = match CaptureReader::with_config(reader, config.clone()) {
                Ok(c) => c,
                Err(e) => {
                    writeln!(err, "{file}: error: {e}")?;
                    bad = true;
                    continue;
                }
            };
            self.sides.clear();
            self.paths3.clear();
            batch.prefix.clear();
            if files.len() > 1 {
                let _ = write!(batch.prefix, "{file}: ");
            }
            while let Some(ev) = capture.next_event() {
                self.event(&ev, &mut batch);
                if batch.full() {
                    self.send(&mut batch, &mut free, lanes, out)?;
                }
            }
            // A batch holds one file's lines (their prefix).
            if !batch.items.is_empty() {
                self.send(&mut batch, &mut free, lanes, out)?;
            }
        }
        while let Some(b) = lanes.done(true)? {
            self.take(b, out)?;
        }
        Ok(bad)
    }

    /// Sends `batch` on (a new one in its place) and writes what came back.
    fn send(
        &mut self,
        batch: &mut Batch,
        free: &mut Vec<Batch>,
        lanes: &mut Lanes<'_, Batch>,
        out: &mut dyn Write,
    ) -> Result<(), Fail> {
        let mut next = free.pop().unwrap_or_default();
        next.prefix.clone_from(&batch.prefix);
        lanes.send(std::mem::replace(batch, next))?;
        while let Some(b) = lanes.done(false)? {
            free.push(self.take(b, out)?);
        }
        Ok(())
    }

    /// Writes a formatted batch's lines and counts them; returns it emptied.
    fn take(&mut self, mut b: Batch, out: &mut dyn Write) -> Result<Batch, Fail> {
        out.write_all(b.out.as_bytes())?;
        self.errors += b.errors;
        for (k, n) in &b.types {
            *self.types.entry(k).or_default() += n;
        }
        if self.a.stats {
            for (item, name) in b.items.iter().filter(|i| i.shown).zip(&b.names) {
                self.count(item, name);
            }
        }
        b.clear();
        Ok(b)
    }

    /// Adds the message of `ev` to `b` (if it is shown, or if it is a packet: every packet is
    /// read, shown or not, for the session's path cache and the errors), with what its line
    /// needs from the capture's state.
    fn event(&mut self, ev: &Event<'_>, b: &mut Batch) {
        let a = self.a;
        let kind = match &ev.body {
            Body::Value { .. } => Some(Kind::Value),
            Body::Packet { bytes, dialect } => match dialect {
                Dialect::Godot4 => kind4(bytes),
                Dialect::Godot3 => kind3(bytes),
            },
            Body::Control(_) => Some(Kind::Transport),
            Body::Error(_) => Some(Kind::Error),
        };
        // Bytes the capture does not have (lost, or cut by the snap length) count as an error:
        // the exit status says that something was not shown.
        if matches!(ev.body, Body::Error(_) | Body::Control(Control::Gap { .. })) {
            self.errors += 1;
        }
        let shown = (a.flow.is_empty() || a.flow.contains(&ev.flow))
            && (a.peer.is_empty()
                || a.peer
                    .iter()
                    .any(|p| ev.from_peer == Some(*p) || ev.to_peer == Some(*p)))
            && (a.command.is_empty() || kind.is_some_and(|k| a.command.contains(&k)));
        if !shown && !matches!(ev.body, Body::Packet { .. }) {
            return;
        }
        let meta = Meta::of(ev);
        let text_head = shown && !self.cx.stats && !self.cx.json && ev.flow != 0;
        let g4 = matches!(
            ev.body,
            Body::Packet {
                dialect: Dialect::Godot4,
                ..
            }
        );
        // The flow direction's state, looked up once for the head and a Godot 4 packet.
        let mut side =
            (text_head || g4).then(|| self.sides.entry((ev.flow, ev.from_client)).or_default());
        let head = match side.as_deref_mut() {
            Some(side) if text_head => push_head(&mut side.heads, ev, &mut b.text),
            _ => 0..0,
        };
        let body = match &ev.body {
            Body::Value { bytes, dialect } => batch::Body::Value {
                bytes: b.push_bytes(bytes),
                dialect: *dialect,
            },
            Body::Packet {
                bytes,
                dialect: Dialect::Godot4,
            } => {
                let side = match side {
                    Some(side) => side,
                    None => self.sides.entry((ev.flow, ev.from_client)).or_default(),
                };
                packet4(
                    self.cx,
                    &mut side.session,
                    &mut self.errors,
                    &meta,
                    bytes,
                    b,
                )
            }
            Body::Packet {
                bytes,
                dialect: Dialect::Godot3,
            } => {
                let path = self.path3(ev, &meta, bytes).map(|p| b.push_text(p));
                batch::Body::Packet3 {
                    bytes: b.push_bytes(bytes),
                    path,
                }
            }
            Body::Control(c) => {
                if let Control::End { .. } = c {
                    self.sides.remove(&(ev.flow, false));
                    self.sides.remove(&(ev.flow, true));
                }
                batch::Body::Control(*c)
            }
            Body::Error(e) => batch::Body::Error(e.clone()),
        };
        if !shown {
            if let batch::Body::Shown { text, .. } = &body {
                b.text.truncate(text.start);
                return;
            }
        }
        b.items.push(Item {
            meta,
            shown,
            head,
            body,
        });
    }
    /// Godot 3: the path of a packet's node id (the cache as it is now, in capture order); keeps
    /// the paths a valid `SIMPLIFY_PATH` gives.
    fn path3(&mut self, ev: &Event<'_>, meta: &Meta, bytes: &[u8]) -> Option<&str> {
        let p = godot3::parse_with(bytes, &self.cx.opts).ok()?;
        let key = |id| (ev.flow, !ev.from_client, meta.from(), id);
        let node = match &p {
            godot3::Packet::RemoteCall(c) => c.node(),
            godot3::Packet::RemoteSet(r) => r.node(),
            godot3::Packet::SimplifyPath(sp) => {
                if p.validate().is_ok() {
                    let path = sp.path().to_string_lossy().into_owned();
                    self.paths3.insert(key(sp.id()), path);
                }
                return None;
            }
            _ => return None,
        };
        match node {
            NodeTarget::Id(id) => self.paths3.get(&key(id)).map(String::as_str),
            NodeTarget::Path(_) => None,
        }
    }

    /// Counts a shown message for `--stats`.
    fn count(&mut self, item: &Item, name: &str) {
        let m = &item.meta;
        let len = item.len() as u64;
        let f = self.stats.entry(m.flow).or_default();
        if f.label.is_empty() {
            let (c, s) = if m.from_client {
                (m.src, m.dst)
            } else {
                (m.dst, m.src)
            };
            f.label = format!("{c} ↔ {s}");
        }
        f.transport = f.transport.or(m.transport);
        let (ci, si) = if m.from_client { (0, 1) } else { (1, 0) };
        f.peers[ci] = f.peers[ci].or(m.from_peer);
        f.peers[si] = f.peers[si].or(m.to_peer.filter(|p| *p > 0));
        if matches!(item.body, batch::Body::Control(_)) {
            return;
        }
        f.total.messages += 1;
        f.total.bytes += len;
        let c = f.commands.entry(name.to_string()).or_default();
        c.messages += 1;
        c.bytes += len;
    }

    fn summary(&self, out: &mut dyn Write) -> Result<(), Fail> {
        let json = self.a.format == CaptureFormat::Json;
        let mut all: BTreeMap<&str, Count> = BTreeMap::new();
        for (id, f) in &self.stats {
            for (k, c) in &f.commands {
                let a = all.entry(k).or_default();
                a.messages += c.messages;
                a.bytes += c.bytes;
            }
            let t = f.transport.map_or("unknown", |t| t.name());
            if json {
                let cmds: Vec<String> = f
                    .commands
                    .iter()
                    .map(|(k, c)| {
                        format!(
                            "{}:{{\"messages\":{},\"bytes\":{}}}",
                            mp::jstr(k),
                            c.messages,
                            c.bytes
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "{{\"flow\":{id},\"endpoints\":{},\"transport\":\"{t}\",\"client_peer\":{},\"server_peer\":{},\"messages\":{},\"bytes\":{},\"commands\":{{{}}}}}",
                    mp::jstr(&f.label),
                    f.peers[0].map_or("null".into(), |p| p.to_string()),
                    f.peers[1].map_or("null".into(), |p| p.to_string()),
                    f.total.messages,
                    f.total.bytes,
                    cmds.join(",")
                )?;
            } else {
                writeln!(
                    out,
                    "flow #{id} {} {t} (peers {} ↔ {}): {} messages, {} bytes",
                    f.label,
                    peer(f.peers[0]),
                    peer(f.peers[1]),
                    f.total.messages,
                    f.total.bytes
                )?;
                for (k, c) in &f.commands {
                    writeln!(
                        out,
                        "  {k:<16} {:>8} messages {:>12} bytes",
                        c.messages, c.bytes
                    )?;
                }
            }
        }
        if json {
            let types: Vec<String> = self
                .types
                .iter()
                .map(|(k, n)| format!("\"{k}\":{n}"))
                .collect();
            writeln!(
                out,
                "{{\"value_types\":{{{}}},\"errors\":{}}}",
                types.join(","),
                self.errors
            )?;
        } else {
            writeln!(out, "all flows:")?;
            for (k, c) in &all {
                writeln!(
                    out,
                    "  {k:<16} {:>8} messages {:>12} bytes",
                    c.messages, c.bytes
                )?;
            }
            if !self.types.is_empty() {
                writeln!(out, "value types (put_var and UDP values):")?;
                for (k, n) in &self.types {
                    writeln!(out, "  {k:<16} {n:>8}")?;
                }
            }
            writeln!(out, "errors: {}", self.errors)?;
        }
        Ok(())
    }
}

/// A Godot 4 packet: read here, for the session (in capture order); its text is formatted here
/// when it reads the session (spawns, syncs, relays), else later with its call's path.
fn packet4(
    cx: &Ctx,
    session: &mut Session,
    errors: &mut u64,
    meta: &Meta,
    bytes: &[u8],
    b: &mut Batch,
) -> batch::Body {
    let from = meta.from();
    // A call (most packets) reads nothing into the session: only its node's path is looked up,
    // with the id from its header (parsed whole when formatted).
    if kind4(bytes) == Some(Kind::Rpc) {
        let path = RemoteCall::node_id_of(bytes).and_then(|id| session.path(from, id));
        let path = path.map(|p| b.push_text(p));
        return batch::Body::Packet4 {
            bytes: b.push_bytes(bytes),
            path,
        };
    }
    let p = match gdvariant_multiplayer::parse_with(bytes, &cx.opts) {
        Ok(p) => p,
        // Formatted later, the same error.
        Err(_) => {
            return batch::Body::Packet4 {
                bytes: b.push_bytes(bytes),
                path: None,
            }
        }
    };
    session.observe(from, &p);
    match &p {
        Packet::Spawn(_) | Packet::Sync(_) | Packet::Delta(_) => {
            shown4(cx, session, errors, &p, from, bytes.len(), b)
        }
        Packet::Sys(s) if s.kind() == SysKind::Relay => {
            shown4(cx, session, errors, &p, from, bytes.len(), b)
        }
        _ => batch::Body::Packet4 {
            bytes: b.push_bytes(bytes),
            path: None,
        },
    }
}

/// Appends the text between the line's time and its body (kept per flow and direction) to
/// `text`; returns where.
fn push_head(
    cached: &mut Vec<(Head, String)>,
    ev: &Event<'_>,
    text: &mut String,
) -> std::ops::Range<usize> {
    let at = text.len();
    let key = Head {
        from_peer: ev.from_peer,
        to_peer: ev.to_peer,
        transport: ev.transport,
        channel: ev.channel,
    };
    match cached.iter().find(|(k, _)| *k == key) {
        Some((_, head)) => text.push_str(head),
        None => {
            let head = head_text(ev);
            text.push_str(&head);
            if cached.len() >= 16 {
                cached.remove(0);
            }
            cached.push((key, head));
        }
    }
    at..text.len()
}

/// A Godot 4 packet whose text reads the session (spawns, syncs, relays), formatted as it is
/// read: its text in `b`, or its error (counted in `errors`).
fn shown4(
    cx: &Ctx,
    session: &Session,
    errors: &mut u64,
    p: &Packet<'_>,
    from: i32,
    len: usize,
    b: &mut Batch,
) -> batch::Body {
    let start = b.text.len();
    let mut o = Out::new(&mut b.text, cx.json);
    if !cx.json {
        o = o.inline();
    }
    let name = match mp::show4(p, from, session, &cx.schema, &mut o) {
        Ok(()) => p.name(),
        Err(e) => {
            *errors += 1;
            b.text.truncate(start);
            batch::error(&mut b.text, cx.json, &format!("packet: {e}"));
            "error"
        }
    };
    batch::Body::Shown {
        text: start..b.text.len(),
        name,
        len,
    }
}
