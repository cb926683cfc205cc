//! A batch of `gdvariant capture`'s lines: the messages the reading thread cut from the capture,
//! in capture order, with what their text needs from the capture's state (node paths looked up
//! as they were read), formatted by whichever thread takes the batch.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::ops::Range;

use gdvariant::{Dialect, ReadOptions};
use gdvariant_multiplayer::capture::{self, Channel, Control, FlowId, Timestamp, Transport};
use gdvariant_multiplayer::{
    godot3, NodeTarget, Packet, PacketOptions, RemoteCall, Session, StaticSchema,
};

use crate::mp::{self, Out};

/// A batch is sent on once it holds this many messages…
const MAX_ITEMS: usize = 1024;
/// …or this many bytes of messages and text.
const MAX_BYTES: usize = 256 << 10;

/// What every batch is formatted with.
pub(super) struct Ctx {
    pub(super) json: bool,
    /// `--stats`: lines are not written, their names are kept.
    pub(super) stats: bool,
    pub(super) allow_objects: bool,
    pub(super) opts: PacketOptions,
    pub(super) schema: StaticSchema,
}

/// An event's fields other than its body.
#[derive(Clone, Copy)]
pub(super) struct Meta {
    pub(super) time: Timestamp,
    pub(super) record: u64,
    pub(super) flow: FlowId,
    pub(super) src: SocketAddr,
    pub(super) dst: SocketAddr,
    pub(super) from_client: bool,
    pub(super) transport: Option<Transport>,
    pub(super) channel: Option<Channel>,
    pub(super) from_peer: Option<i32>,
    pub(super) to_peer: Option<i32>,
}

impl Meta {
    pub(super) fn of(ev: &capture::Event<'_>) -> Meta {
        Meta {
            time: ev.time,
            record: ev.record,
            flow: ev.flow,
            src: ev.src,
            dst: ev.dst,
            from_client: ev.from_client,
            transport: ev.transport,
            channel: ev.channel,
            from_peer: ev.from_peer,
            to_peer: ev.to_peer,
        }
    }

    /// The sender's peer id, or the side it is on (-1 the client, -2 the server).
    pub(super) fn from(&self) -> i32 {
        self.from_peer
            .unwrap_or(if self.from_client { -1 } else { -2 })
    }
}

/// What a line shows; ranges are in the batch's `bytes` (message bytes) and `text`.
pub(super) enum Body {
    /// A value's bytes.
    Value {
        bytes: Range<usize>,
        dialect: Dialect,
    },
    /// A Godot 4 packet whose text needs nothing from the session but the path of a call's
    /// node id (`path`, looked up as it was read).
    Packet4 {
        bytes: Range<usize>,
        path: Option<Range<usize>>,
    },
    /// A Godot 3 packet, and the path of its node id.
    Packet3 {
        bytes: Range<usize>,
        path: Option<Range<usize>>,
    },
    /// A body shown as it was read (packets whose text reads the session: spawns, syncs,
    /// relays), its name, and its bytes' length.
    Shown {
        text: Range<usize>,
        name: &'static str,
        len: usize,
    },
    /// A transport event.
    Control(Control),
    /// A problem in the capture.
    Error(capture::Error),
}

/// One message.
pub(super) struct Item {
    pub(super) meta: Meta,
    /// Whether its line is shown (a packet not shown is still checked: its errors count).
    pub(super) shown: bool,
    /// The text between the line's time and its body (text lines of a flow).
    pub(super) head: Range<usize>,
    pub(super) body: Body,
}

impl Item {
    /// The length of its message's bytes (for `--stats`).
    pub(super) fn len(&self) -> usize {
        match &self.body {
            Body::Value { bytes, .. }
            | Body::Packet4 { bytes, .. }
            | Body::Packet3 { bytes, .. } => bytes.len(),
            Body::Shown { len, .. } => *len,
            Body::Control(_) | Body::Error(_) => 0,
        }
    }
}

/// Messages in capture order and, once formatted, their lines.
#[derive(Default)]
pub(super) struct Batch {
    /// What each text line starts with (the file's name when there are several).
    pub(super) prefix: String,
    pub(super) items: Vec<Item>,
    pub(super) bytes: Vec<u8>,
    pub(super) text: String,
    /// The lines.
    pub(super) out: String,
    /// `--stats`: the name of each shown item.
    pub(super) names: Vec<Cow<'static, str>>,
    /// Values by type.
    pub(super) types: BTreeMap<&'static str, u64>,
    /// Errors met formatting.
    pub(super) errors: u64,
}

impl Batch {
    /// Whether it should be sent on.
    pub(super) fn full(&self) -> bool {
        self.items.len() >= MAX_ITEMS || self.bytes.len() + self.text.len() >= MAX_BYTES
    }

    /// Empties it for the next messages, keeping up to a full batch's memory.
    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
        self.bytes.shrink_to(2 * MAX_BYTES);
        self.text.clear();
        self.text.shrink_to(2 * MAX_BYTES);
        self.out.clear();
        self.out.shrink_to(8 * MAX_BYTES);
        self.names.clear();
        self.types.clear();
        self.errors = 0;
    }

    /// Adds `b` to its bytes.
    pub(super) fn push_bytes(&mut self, b: &[u8]) -> Range<usize> {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(b);
        at..self.bytes.len()
    }

    /// Adds `s` to its text.
    pub(super) fn push_text(&mut self, s: &str) -> Range<usize> {
        let at = self.text.len();
        self.text.push_str(s);
        at..self.text.len()
    }
}

/// Formats every item of `b` into `b.out` (and `b.names` for `--stats`).
pub(super) fn format(cx: &Ctx, b: &mut Batch) {
    let Batch {
        prefix,
        items,
        bytes,
        text,
        out,
        names,
        types,
        errors,
    } = b;
    let mut f = Formatter {
        cx,
        bytes,
        text,
        types,
        errors,
        empty: Session::default(),
        calls: Vec::new(),
    };
    let mut clock = Clock::default();
    for item in items.iter() {
        let line = out.len();
        if !item.shown || cx.stats {
            let name = f.render(item, out);
            out.truncate(line);
            if item.shown {
                names.push(name);
            }
        } else if cx.json {
            json_head(&item.meta, out);
            out.push(',');
            f.render(item, out);
            out.push_str("}\n");
        } else {
            clock.push(out, prefix, item.meta.time);
            out.push_str(&f.text[item.head.clone()]);
            out.push(' ');
            let body = out.len();
            f.render(item, out);
            let kept = out[body..].trim_end().len();
            out.truncate(body + kept);
            out.push('\n');
        }
    }
}

/// A line's time as [`Timestamp`]'s `Display` writes it (`HH:MM:SS.micros`, UTC), after the
/// line's prefix, without its formatting machinery: the prefix and `HH:MM:SS.` are kept for the
/// lines of the same second (most of a batch's), the micros pushed a digit at a time.
#[derive(Default)]
struct Clock {
    /// The second of `text`, if it has one.
    secs: Option<u64>,
    /// The prefix and `HH:MM:SS.` of that second.
    text: String,
}

impl Clock {
    fn push(&mut self, l: &mut String, prefix: &str, t: Timestamp) {
        if self.secs != Some(t.secs()) {
            let day = t.secs() % 86400;
            self.text.clear();
            self.text.push_str(prefix);
            for (n, sep) in [(day / 3600, ':'), (day / 60 % 60, ':'), (day % 60, '.')] {
                self.text.push(char::from(b'0' + (n / 10) as u8));
                self.text.push(char::from(b'0' + (n % 10) as u8));
                self.text.push(sep);
            }
            self.secs = Some(t.secs());
        }
        l.push_str(&self.text);
        let mut micros = t.nanos() / 1000;
        let mut digits = [0u8; 6];
        for d in digits.iter_mut().rev() {
            *d = b'0' + (micros % 10) as u8;
            micros /= 10;
        }
        for d in digits {
            l.push(char::from(d));
        }
    }
}

/// The JSON line's fields before its body's (`flow`, `src` and `dst` null for a problem of the
/// file that belongs to no flow).
fn json_head(m: &Meta, l: &mut String) {
    let _ = write!(
        l,
        "{{\"time\":\"{}.{:09}\",\"record\":{},",
        m.time.secs(),
        m.time.nanos(),
        m.record,
    );
    if m.flow == 0 {
        l.push_str("\"flow\":null,\"src\":null,\"dst\":null");
    } else {
        let _ = write!(
            l,
            "\"flow\":{},\"src\":\"{}\",\"dst\":\"{}\"",
            m.flow, m.src, m.dst
        );
    }
    if let Some(p) = m.from_peer {
        let _ = write!(l, ",\"from_peer\":{p}");
    }
    if let Some(p) = m.to_peer {
        let _ = write!(l, ",\"to_peer\":{p}");
    }
    if let Some(t) = m.transport {
        let _ = write!(l, ",\"transport\":\"{t}\"");
    }
    if let Some(c) = m.channel {
        let _ = write!(
            l,
            ",\"channel\":{},\"transfer_channel\":{},\"mode\":\"{}\"",
            c.enet,
            c.transfer,
            c.mode.name()
        );
    }
}

/// A problem, as a line's body.
pub(super) fn error(s: &mut String, json: bool, what: &str) {
    if json {
        let _ = write!(s, "\"error\":{}", mp::jstr(what));
    } else {
        let _ = write!(s, "error: {what}");
    }
}

/// The text of a transport event.
pub(super) fn control_text(c: &Control) -> String {
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

/// A batch's items' bodies, formatted.
struct Formatter<'b> {
    cx: &'b Ctx,
    bytes: &'b [u8],
    text: &'b str,
    types: &'b mut BTreeMap<&'static str, u64>,
    errors: &'b mut u64,
    /// The session of the packets whose text reads none.
    empty: Session,
    /// The heads of the calls met so far (text lines), the latest last.
    calls: Vec<CallHead>,
}

/// The most call heads a batch keeps: a game's few nodes and methods, both ways.
const MAX_CALLS: usize = 16;

/// The text of a call's head ([`mp::call_head4`]: its node, method and flags), kept for the
/// batch's later calls of the same node's method.
struct CallHead {
    /// Node id, method id, their widths, byte-only.
    key: (u32, u16, usize, usize, bool),
    /// The node's path, as looked up when the call was read.
    path: Option<String>,
    text: String,
}

impl Formatter<'_> {
    /// Appends the body of `item` to `s` (text, or JSON fields); returns its name for the
    /// statistics.
    fn render(&mut self, item: &Item, s: &mut String) -> Cow<'static, str> {
        let json = self.cx.json;
        let start = s.len();
        let text = self.text;
        let path = |p: &Option<Range<usize>>| p.clone().map(|r| &text[r]);
        match &item.body {
            Body::Value { bytes, dialect } => {
                let bytes = &self.bytes[bytes.clone()];
                match value(bytes, *dialect, self.cx, s) {
                    Ok(ty) => {
                        let name = ty.name();
                        *self.types.entry(name).or_default() += 1;
                        Cow::Borrowed(name)
                    }
                    Err(e) => {
                        *self.errors += 1;
                        s.truncate(start);
                        error(s, json, &format!("value: {e}"));
                        "error".into()
                    }
                }
            }
            Body::Packet4 { bytes, path: p } => {
                let bytes = &self.bytes[bytes.clone()];
                let cx = self.cx;
                let res = gdvariant_multiplayer::parse_with(bytes, &cx.opts).and_then(|p4| {
                    match &p4 {
                        Packet::RemoteCall(c) if !json => {
                            self.call_head(c, path(p), s);
                            mp::call_args4(c, &mut Out::new(s, false).inline())?
                        }
                        p4 => {
                            let mut o = Out::new(s, json);
                            if !json {
                                o = o.inline();
                            }
                            match p4 {
                                Packet::RemoteCall(c) => {
                                    mp::show_call4(c, path(p), &cx.schema, &mut o)?
                                }
                                p4 => mp::show4(
                                    p4,
                                    item.meta.from(),
                                    &self.empty,
                                    &cx.schema,
                                    &mut o,
                                )?,
                            }
                        }
                    }
                    Ok(p4.name())
                });
                self.packet_result(res, start, s)
            }
            Body::Packet3 { bytes, path: p } => {
                let bytes = &self.bytes[bytes.clone()];
                let res = show3(bytes, path(p), self.cx, s);
                self.packet_result(res, start, s)
            }
            Body::Shown { text, name, .. } => {
                s.push_str(&self.text[text.clone()]);
                Cow::Borrowed(*name)
            }
            Body::Control(c) => {
                let text = control_text(c);
                if json {
                    let _ = write!(s, "\"event\":{}", mp::jstr(&text));
                } else {
                    s.push_str(&text);
                }
                text.split(' ').next().unwrap_or("").to_string().into()
            }
            Body::Error(e) => {
                error(s, json, &e.to_string());
                "error".into()
            }
        }
    }

    /// Appends the head of call `c` (text), from the heads met before when it is one of them.
    fn call_head(&mut self, c: &RemoteCall<'_>, path: Option<&str>, s: &mut String) {
        let NodeTarget::Id(id) = c.node() else {
            mp::call_head4(c, path, &self.cx.schema, &mut Out::new(s, false).inline());
            return;
        };
        let key = (
            id,
            c.method(),
            c.node_id_width(),
            c.method_id_width(),
            c.is_byte_only(),
        );
        if let Some(h) = self
            .calls
            .iter()
            .find(|h| h.key == key && h.path.as_deref() == path)
        {
            s.push_str(&h.text);
            return;
        }
        let start = s.len();
        mp::call_head4(c, path, &self.cx.schema, &mut Out::new(s, false).inline());
        if self.calls.len() >= MAX_CALLS {
            self.calls.remove(0);
        }
        self.calls.push(CallHead {
            key,
            path: path.map(str::to_string),
            text: s[start..].to_string(),
        });
    }

    /// A packet's name, or its error in place of what was shown of it.
    fn packet_result(
        &mut self,
        res: Result<&'static str, gdvariant::Error>,
        start: usize,
        s: &mut String,
    ) -> Cow<'static, str> {
        match res {
            Ok(name) => Cow::Borrowed(name),
            Err(e) => {
                *self.errors += 1;
                s.truncate(start);
                error(s, self.cx.json, &format!("packet: {e}"));
                "error".into()
            }
        }
    }
}

/// Appends a value's text (or typed JSON) to `s`; returns its type.
fn value(
    bytes: &[u8],
    dialect: Dialect,
    cx: &Ctx,
    s: &mut String,
) -> Result<gdvariant::VariantType, gdvariant::Error> {
    let o = ReadOptions::new()
        .with_dialect(dialect)
        .with_full_objects(cx.allow_objects);
    if cx.json {
        let _ = write!(
            s,
            "\"dialect\":{},\"value\":",
            if dialect == Dialect::Godot3 { 3 } else { 4 }
        );
    }
    let v = gdvariant::parse_with(bytes, &o)?;
    let used = v.raw()?.len();
    if used != bytes.len() {
        return Err(gdvariant::Error::new(
            gdvariant::ErrorKind::TrailingBytesInFrame {
                extra: bytes.len() - used,
            },
            used,
        ));
    }
    if cx.json {
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
}

/// Appends a Godot 3 packet's text; `cached` is the path of its node id (looked up as it was
/// read).
fn show3(
    bytes: &[u8],
    cached: Option<&str>,
    cx: &Ctx,
    s: &mut String,
) -> Result<&'static str, gdvariant::Error> {
    let p = godot3::parse_with(bytes, &cx.opts)?;
    // A call's arguments are checked as they are shown (see `mp::show4`).
    if !matches!(p, godot3::Packet::RemoteCall(_)) {
        p.validate()?;
    }
    let mut o = Out::new(s, cx.json);
    if !cx.json {
        o = o.inline();
    }
    let name = p.command().name();
    o.cmd(name);
    let path = |n: NodeTarget<'_>| match n {
        NodeTarget::Id(_) => cached,
        NodeTarget::Path(_) => None,
    };
    match p {
        godot3::Packet::RemoteCall(c) => {
            mp::node(&mut o, c.node(), path(c.node()));
            o.field_str("method", &c.method().to_string_lossy());
            mp::values(&mut o, "args", c.args().checked(), &[])?;
        }
        godot3::Packet::RemoteSet(r) => {
            mp::node(&mut o, r.node(), path(r.node()));
            o.field_str("property", &r.property().to_string_lossy());
            o.single("value", &r.value()?)?;
        }
        godot3::Packet::SimplifyPath(sp) => {
            o.field_num("id", sp.id());
            o.field_str("path", &sp.path().to_string_lossy());
        }
        godot3::Packet::ConfirmPath(c) => o.field_str("path", &c.path().to_string_lossy()),
        godot3::Packet::Raw(r) => o.field_bytes("payload", r.payload()),
    }
    o.end();
    Ok(name)
}
