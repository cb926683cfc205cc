//! `gdvariant capture [decode] FILE...`: the Godot traffic of packet captures (pcap, pcapng), one
//! line per message, both directions of every flow in capture order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;

use clap::{Args, ValueEnum};
use gdvariant::{Dialect, ReadOptions, VariantType};
use gdvariant_multiplayer::capture::{
    Body, CaptureReader, Config, Control, Event, FlowId, Transport,
};
use gdvariant_multiplayer::{godot3, PacketOptions, Protocol, Session, StaticSchema};

use crate::host::{Fail, Host};
use crate::mp::{self, Out};

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

/// Output is written in blocks of about this many bytes.
const BLOCK: usize = 1 << 20;

/// A hasher for the shower's keys: flow numbers (which the capture reader gives in order, not
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

struct Shower<'a> {
    a: &'a CaptureArgs,
    opts: PacketOptions,
    schema: StaticSchema,
    /// Per flow and direction (whether the client sends).
    sides: FlowMap<(FlowId, bool), Side>,
    /// Godot 3: (flow, receiving side, sender, cache id) -> path.
    paths3: FlowMap<(FlowId, bool, i32, u32), String>,
    stats: BTreeMap<FlowId, FlowStats>,
    types: BTreeMap<&'static str, u64>,
    errors: u64,
    /// The output not written yet: whole lines, written out in blocks of [`BLOCK`].
    buf: String,
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

/// `prefix` and `HH:MM:SS.micros` (UTC), as [`Timestamp`]'s `Display` writes it, without its
/// formatting machinery.
fn push_time(l: &mut String, prefix: &str, t: gdvariant_multiplayer::capture::Timestamp) {
    l.push_str(prefix);
    let day = t.secs() % 86400;
    let mut text = *b"00:00:00.000000";
    for (at, n) in [(0, day / 3600), (3, day / 60 % 60), (6, day % 60)] {
        text[at] += (n / 10) as u8;
        text[at + 1] += (n % 10) as u8;
    }
    let mut micros = t.nanos() / 1000;
    for d in text[9..].iter_mut().rev() {
        *d += (micros % 10) as u8;
        micros /= 10;
    }
    l.push_str(std::str::from_utf8(&text).unwrap_or_default());
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
    let files = a.files.clone();
    let mut s = Shower {
        a: &a,
        opts,
        schema,
        sides: FlowMap::default(),
        paths3: FlowMap::default(),
        stats: BTreeMap::new(),
        types: BTreeMap::new(),
        errors: 0,
        buf: String::with_capacity(BLOCK + (BLOCK >> 2)),
    };
    let mut bad = 0;
    for file in &files {
        let reader = match host.open(file) {
            Ok(r) => r,
            Err(e) => {
                writeln!(err, "{file}: error: {e}")?;
                bad += 1;
                continue;
            }
        };
        let mut capture = match CaptureReader::with_config(reader, config.clone()) {
            Ok(c) => c,
            Err(e) => {
                writeln!(err, "{file}: error: {e}")?;
                bad += 1;
                continue;
            }
        };
        s.sides.clear();
        s.paths3.clear();
        let prefix = if files.len() > 1 {
            format!("{file}: ")
        } else {
            String::new()
        };
        while let Some(ev) = capture.next_event() {
            s.event(&ev, &prefix);
            if s.buf.len() >= BLOCK {
                out.write_all(s.buf.as_bytes())?;
                s.buf.clear();
            }
        }
    }
    out.write_all(s.buf.as_bytes())?;
    if a.stats {
        s.summary(out)?;
    }
    Ok(i32::from(bad > 0 || s.errors > 0))
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

fn control_text(c: &Control) -> String {
    match c {
        Control::Recognized(_) => "new flow".into(),
        Control::Unrecognized => "not a Godot transport: its bytes are not shown".into(),
        Control::Handshake { status: None } => "WebSocket upgrade request".into(),
        Control::Handshake { status: Some(s) } => format!("WebSocket upgrade response {s}"),
        Control::PeerId(id) => format!("PEER_ID {id}"),
        Control::Godot3Sys { sys, peer } => format!("{} {peer}", sys.name()),
        Control::Close { code: Some(c) } => format!("CLOSE {c}"),
        Control::Close { code: None } => "CLOSE".into(),
        Control::EnetConnect {
            peer,
            channels,
            mtu,
        } => format!(
            "CONNECT peer {} channels {channels} mtu {mtu}",
            peer.map_or_else(|| "none".to_string(), |p| p.to_string())
        ),
        Control::EnetVerifyConnect { channels, mtu } => {
            format!("VERIFY_CONNECT channels {channels} mtu {mtu}")
        }
        Control::EnetDisconnect { data } => format!("DISCONNECT data {data}"),
        Control::Config3(c) => match c {
            gdvariant_multiplayer::enet::godot::Config3::AddPeer(id) => format!("ADD_PEER {id}"),
            gdvariant_multiplayer::enet::godot::Config3::RemovePeer(id) => {
                format!("REMOVE_PEER {id}")
            }
            gdvariant_multiplayer::enet::godot::Config3::Other { msg, id } => {
                format!("config message {msg} id {id}")
            }
        },
        Control::Gap { at, len } => {
            format!("GAP {len} bytes missing from stream offset {at}")
        }
        Control::End { reset: true } => "connection reset".into(),
        Control::End { reset: false } => "connection closed".into(),
    }
}

impl Shower<'_> {
    /// Appends the line of `ev` to the output (or counts it).
    fn event(&mut self, ev: &Event<'_>, prefix: &str) {
        let json = self.a.format == CaptureFormat::Json;
        let kind = match &ev.body {
            Body::Value { .. } => Some(Kind::Value),
            Body::Packet { bytes, dialect } => match dialect {
                Dialect::Godot4 => kind4(bytes),
                Dialect::Godot3 => kind3(bytes),
            },
            Body::Control(_) => Some(Kind::Transport),
            Body::Error(_) => Some(Kind::Error),
        };
        if matches!(ev.body, Body::Error(_)) {
            self.errors += 1;
        }
        let shown = (self.a.flow.is_empty() || self.a.flow.contains(&ev.flow))
            && (self.a.peer.is_empty()
                || self
                    .a
                    .peer
                    .iter()
                    .any(|p| ev.from_peer == Some(*p) || ev.to_peer == Some(*p)))
            && (self.a.command.is_empty() || kind.is_some_and(|k| self.a.command.contains(&k)));
        // Every packet is read, shown or not: it keeps the session's path cache up to date.
        if !shown && !matches!(ev.body, Body::Packet { .. }) {
            return;
        }
        // The line is written in place; what is not shown is cut off again.
        let mut buf = std::mem::take(&mut self.buf);
        let line = buf.len();
        if !shown || self.a.stats {
            let name = self.render(ev, json, &mut buf);
            buf.truncate(line);
            if shown {
                self.count(ev, &name);
            }
        } else if json {
            self.json_head(ev, &mut buf);
            buf.push(',');
            self.render(ev, json, &mut buf);
            buf.push_str("}\n");
        } else {
            push_time(&mut buf, prefix, ev.time);
            if ev.flow != 0 {
                self.push_head(ev, &mut buf);
            }
            buf.push(' ');
            let body = buf.len();
            self.render(ev, json, &mut buf);
            let kept = buf[body..].trim_end().len();
            buf.truncate(body + kept);
            buf.push('\n');
        }
        self.buf = buf;
    }

    /// The JSON line's fields before its body's.
    fn json_head(&self, ev: &Event<'_>, l: &mut String) {
        let _ = write!(
            l,
            "{{\"time\":\"{}.{:09}\",\"record\":{},\"flow\":{},\"src\":\"{}\",\"dst\":\"{}\"",
            ev.time.secs(),
            ev.time.nanos(),
            ev.record,
            ev.flow,
            ev.src,
            ev.dst
        );
        if let Some(p) = ev.from_peer {
            let _ = write!(l, ",\"from_peer\":{p}");
        }
        if let Some(p) = ev.to_peer {
            let _ = write!(l, ",\"to_peer\":{p}");
        }
        if let Some(t) = ev.transport {
            let _ = write!(l, ",\"transport\":\"{t}\"");
        }
        if let Some(c) = ev.channel {
            let _ = write!(
                l,
                ",\"channel\":{},\"transfer_channel\":{},\"mode\":\"{}\"",
                c.enet,
                c.transfer,
                c.mode.name()
            );
        }
    }

    /// Appends the text between the line's time and its body (kept per flow and direction).
    fn push_head(&mut self, ev: &Event<'_>, l: &mut String) {
        let key = Head {
            from_peer: ev.from_peer,
            to_peer: ev.to_peer,
            transport: ev.transport,
            channel: ev.channel,
        };
        let cached = &mut self
            .sides
            .entry((ev.flow, ev.from_client))
            .or_default()
            .heads;
        match cached.iter().find(|(k, _)| *k == key) {
            Some((_, text)) => l.push_str(text),
            None => {
                let text = head_text(ev);
                l.push_str(&text);
                if cached.len() >= 16 {
                    cached.remove(0);
                }
                cached.push((key, text));
            }
        }
    }

    /// Appends the body of `ev` to `s` (text, or JSON fields); returns its name for the
    /// statistics.
    fn render(&mut self, ev: &Event<'_>, json: bool, s: &mut String) -> Cow<'static, str> {
        let start = s.len();
        match &ev.body {
            Body::Value { bytes, dialect } => {
                let o = ReadOptions::new()
                    .with_dialect(*dialect)
                    .with_full_objects(self.a.allow_objects);
                if json {
                    let _ = write!(
                        s,
                        "\"dialect\":{},\"value\":",
                        if *dialect == Dialect::Godot3 { 3 } else { 4 }
                    );
                }
                let r = gdvariant::parse_with(bytes, &o).and_then(|v| {
                    let used = v.raw()?.len();
                    if used != bytes.len() {
                        return Err(gdvariant::Error::new(
                            gdvariant::ErrorKind::TrailingBytesInFrame {
                                extra: bytes.len() - used,
                            },
                            used,
                        ));
                    }
                    if json {
                        s.push_str(&gdvariant::json::to_string(&v)?);
                    } else {
                        let at = s.len();
                        let _ = gdvariant::text::to_fmt(&v, &mut *s)?;
                        if s[at..].contains('\n') {
                            let tail = s.split_off(at);
                            s.push_str(&tail.replace('\n', " "));
                        }
                    }
                    Ok(v.ty())
                });
                match r {
                    Ok(ty) => {
                        *self.types.entry(type_name(ty)).or_default() += 1;
                        Cow::Borrowed(type_name(ty))
                    }
                    Err(e) => {
                        self.errors += 1;
                        s.truncate(start);
                        self.error(s, json, &format!("value: {e}"));
                        "error".into()
                    }
                }
            }
            Body::Packet { bytes, dialect } => {
                let from = ev.from_peer.unwrap_or(if ev.from_client { -1 } else { -2 });
                let res = match dialect {
                    Dialect::Godot4 => {
                        let side = self.sides.entry((ev.flow, ev.from_client)).or_default();
                        let session = &mut side.session;
                        match gdvariant_multiplayer::parse_with(bytes, &self.opts) {
                            Ok(p) => {
                                session.observe(from, &p);
                                let name = p.name();
                                let mut o = Out::new(s, json);
                                if !json {
                                    o = o.inline();
                                }
                                mp::show4(&p, from, session, &self.schema, &mut o)
                                    .map(|()| Cow::Borrowed(name))
                            }
                            Err(e) => Err(e),
                        }
                    }
                    Dialect::Godot3 => self
                        .show3(ev.flow, !ev.from_client, bytes, from, json, s)
                        .map(Cow::Borrowed),
                };
                match res {
                    Ok(name) => name,
                    Err(e) => {
                        self.errors += 1;
                        s.truncate(start);
                        self.error(s, json, &format!("packet: {e}"));
                        "error".into()
                    }
                }
            }
            Body::Control(c) => {
                if let Control::End { .. } = c {
                    self.sides.remove(&(ev.flow, false));
                    self.sides.remove(&(ev.flow, true));
                }
                let text = control_text(c);
                if json {
                    let _ = write!(s, "\"event\":{}", mp::jstr(&text));
                } else {
                    s.push_str(&text);
                }
                text.split(' ').next().unwrap_or("").to_string().into()
            }
            Body::Error(e) => {
                self.error(s, json, &e.to_string());
                "error".into()
            }
        }
    }

    fn error(&self, s: &mut String, json: bool, what: &str) {
        if json {
            let _ = write!(s, "\"error\":{}", mp::jstr(what));
        } else {
            let _ = write!(s, "error: {what}");
        }
    }

    fn show3(
        &mut self,
        flow: FlowId,
        side: bool,
        bytes: &[u8],
        from: i32,
        json: bool,
        s: &mut String,
    ) -> Result<&'static str, gdvariant::Error> {
        let p = godot3::parse_with(bytes, &self.opts)?;
        // A call's arguments are checked as they are shown (see `mp::show4`).
        if !matches!(p, godot3::Packet::RemoteCall(_)) {
            p.validate()?;
        }
        let mut o = Out::new(s, json);
        if !json {
            o = o.inline();
        }
        let name = p.command().name();
        o.cmd(name);
        let path = |n: gdvariant_multiplayer::NodeTarget<'_>| match n {
            gdvariant_multiplayer::NodeTarget::Id(id) => {
                self.paths3.get(&(flow, side, from, id)).cloned()
            }
            gdvariant_multiplayer::NodeTarget::Path(_) => None,
        };
        match p {
            godot3::Packet::RemoteCall(c) => {
                mp::node(&mut o, c.node(), path(c.node()).as_deref());
                o.field_str("method", &c.method().to_string_lossy());
                mp::values(&mut o, "args", c.args().checked(), &[])?;
            }
            godot3::Packet::RemoteSet(r) => {
                mp::node(&mut o, r.node(), path(r.node()).as_deref());
                o.field_str("property", &r.property().to_string_lossy());
                o.single("value", &r.value()?)?;
            }
            godot3::Packet::SimplifyPath(sp) => {
                o.field_num("id", sp.id());
                let p = sp.path().to_string_lossy().into_owned();
                o.field_str("path", &p);
                self.paths3.insert((flow, side, from, sp.id()), p);
            }
            godot3::Packet::ConfirmPath(c) => o.field_str("path", &c.path().to_string_lossy()),
            godot3::Packet::Raw(r) => o.field_bytes("payload", r.payload()),
        }
        o.end();
        Ok(name)
    }

    fn count(&mut self, ev: &Event<'_>, name: &str) {
        let len = match &ev.body {
            Body::Value { bytes, .. } | Body::Packet { bytes, .. } => bytes.len() as u64,
            _ => 0,
        };
        let f = self.stats.entry(ev.flow).or_default();
        if f.label.is_empty() {
            let (c, s) = if ev.from_client {
                (ev.src, ev.dst)
            } else {
                (ev.dst, ev.src)
            };
            f.label = format!("{c} ↔ {s}");
        }
        f.transport = f.transport.or(ev.transport);
        let (ci, si) = if ev.from_client { (0, 1) } else { (1, 0) };
        f.peers[ci] = f.peers[ci].or(ev.from_peer);
        f.peers[si] = f.peers[si].or(ev.to_peer.filter(|p| *p > 0));
        if matches!(ev.body, Body::Control(_)) {
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

fn type_name(t: VariantType) -> &'static str {
    t.name()
}
