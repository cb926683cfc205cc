//! `gdvariant multiplayer` (alias `mp`): Godot's high-level multiplayer packets, decoded.

use std::borrow::Cow;
use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use gdvariant::framing::{raw_frames, Endian, FrameOptions};
use gdvariant::Error;
use gdvariant_multiplayer::{
    self, delta_properties, godot3, spawn_properties, sync_properties, NodeTarget, Packet,
    PacketOptions, Property, Protocol, RemoteCall, Schema, Session, StaticSchema, SysKind,
    ValueRef,
};

use crate::host::{Fail, Host};
pub(crate) use crate::out::{jstr, Out};

const AFTER_HELP: &str = "\
Exit status: 0 success, 1 invalid input (every packet is still shown), 2 usage error.";

#[derive(Subcommand, Debug)]
pub enum MpCmd {
    /// Show each packet's command, node, method and arguments (engine text or JSON lines).
    ///
    /// Input: a file of packets each behind a u32 length prefix (the default), one packet per
    /// file (--packet), or the TSV log the recorders in tests/godot write (--log: pkt lines
    /// with sender and receiver). Node paths come from the SIMPLIFY_PATH packets seen before
    /// (per sender; --from names the sender of a prefixed or single-packet file), method and
    /// property names from a --schema file:
    ///
    ///   rpc  PATH-PATTERN METHOD[@OPTION,...]... [native METHOD...]   the node's @rpc methods
    ///   sync PATH-PATTERN PROP=MODE...                    a synchronizer named by path
    ///   spawned SPAWNER-PATTERN SCENE INDEX PROP=MODE...  the INDEX-th synchronizer of a spawned scene
    ///
    /// MODE is always, change or never, with +spawn for spawn properties (.:position=always+spawn);
    /// SCENE an index or 'custom'; a '*' in a pattern matches within one path segment; a method's
    /// @rpc options (echo@any_peer,reliable,0) matter only to the server. The format:
    /// docs/schema-file.md.
    #[command(after_help = AFTER_HELP, verbatim_doc_comment)]
    Decode(DecodeArgs),
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Output form: engine text, or one JSON object per packet.
    #[arg(long, value_enum, default_value_t = MpFormat::Text)]
    format: MpFormat,
    /// Each file is one packet.
    #[arg(long, conflicts_with = "log")]
    packet: bool,
    /// The file is a recorder's TSV log (tests/godot/mp_record4.gd, mp_record3.gd).
    #[arg(long)]
    log: bool,
    /// Byte order of the length prefixes.
    #[arg(long, value_enum, default_value_t = PrefixEndian::Le)]
    endian: PrefixEndian,
    /// Godot 3 packets (MultiplayerAPI), whose values are Godot 3 Variants.
    #[arg(long)]
    godot3: bool,
    /// Godot 4 protocol version: 4.3 (and later) or 4.0 (4.0 to 4.2, CONFIRM_PATH by path).
    #[arg(long, value_enum, default_value_t = MpProtocol::V43)]
    protocol: MpProtocol,
    /// Accept full objects in values (SceneMultiplayer.allow_object_decoding).
    #[arg(long)]
    allow_objects: bool,
    /// The peer id that sent the packets of a prefixed or single-packet file.
    #[arg(
        long,
        default_value_t = 1,
        value_name = "PEER",
        allow_negative_numbers = true
    )]
    from: i32,
    /// What the project is: node RPC methods and synchronizer properties (see above).
    #[arg(long, value_name = "FILE")]
    schema: Option<String>,
    /// Input files ('-': standard input).
    #[arg(required = true)]
    files: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MpFormat {
    /// Engine text (var_to_str) for values.
    Text,
    /// JSON lines; values in gdvariant's typed JSON.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixEndian {
    Le,
    Be,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MpProtocol {
    #[value(name = "4.3")]
    V43,
    #[value(name = "4.0")]
    V40,
}

/// Runs a `multiplayer` subcommand; returns the exit status.
pub fn run(
    cmd: MpCmd,
    host: &mut dyn Host,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Fail> {
    let MpCmd::Decode(a) = cmd;
    let schema = match &a.schema {
        Some(path) => {
            let bytes = host
                .load(path)
                .map_err(|e| Fail::Input(format!("{path}: {e}")))?;
            let text = std::str::from_utf8((*bytes).as_ref())
                .map_err(|_| Fail::Input(format!("{path}: not UTF-8")))?;
            parse_schema(text).map_err(|e| Fail::Input(format!("{path}: {e}")))?
        }
        None => StaticSchema::new(),
    };
    let opts = PacketOptions::new()
        .with_full_objects(a.allow_objects)
        .with_protocol(match a.protocol {
            MpProtocol::V43 => Protocol::V4_3,
            MpProtocol::V40 => Protocol::V4_0,
        });
    let mut d = Decoder {
        a: &a,
        opts,
        schema,
        sessions: Default::default(),
        paths3: Default::default(),
        out,
        bad: 0,
    };
    for file in &a.files {
        let bytes = match host.load(file) {
            Ok(b) => b,
            Err(e) => {
                writeln!(err, "{file}: {e}")?;
                d.bad += 1;
                continue;
            }
        };
        let data = (*bytes).as_ref();
        if gdvariant_multiplayer::capture::is_capture(data) {
            writeln!(
                err,
                "{file}: error: this is a packet capture (pcap or pcapng), not packets\n\
                 {file}: hint: read it with `gdvariant capture {file}`"
            )?;
            d.bad += 1;
            continue;
        }
        if a.log {
            let Ok(text) = std::str::from_utf8(data) else {
                writeln!(err, "{file}: error: the log is not UTF-8")?;
                d.bad += 1;
                continue;
            };
            d.log(file, text, err)?;
        } else if a.packet {
            d.packet(file, 0, data, a.from, None, 0)?;
        } else {
            let fo = FrameOptions::new().with_endian(match a.endian {
                PrefixEndian::Le => Endian::Little,
                PrefixEndian::Be => Endian::Big,
            });
            for (i, f) in raw_frames(data, &fo).enumerate() {
                match f {
                    Ok(f) => d.packet(file, i, f.bytes, a.from, None, f.offset)?,
                    Err(e) => {
                        writeln!(err, "{file}: error: {e}")?;
                        d.bad += 1;
                    }
                }
            }
        }
    }
    Ok(i32::from(d.bad > 0))
}

struct Decoder<'a, 'o> {
    a: &'a DecodeArgs,
    opts: PacketOptions,
    schema: StaticSchema,
    /// One session per receiving peer (what it was told).
    sessions: std::collections::BTreeMap<i32, Session>,
    /// Godot 3: (receiver, sender, cache id) -> path.
    paths3: std::collections::BTreeMap<(i32, i32, u32), String>,
    out: &'o mut dyn Write,
    bad: usize,
}

impl Decoder<'_, '_> {
    fn log(&mut self, file: &str, text: &str, err: &mut dyn Write) -> Result<(), Fail> {
        for (n, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            if f[0] != "pkt" {
                continue;
            }
            let parsed = (|| {
                let seq: usize = f.get(1)?.parse().ok()?;
                let from: i32 = f.get(3)?.parse().ok()?;
                let to: i32 = f.get(4)?.parse().ok()?;
                Some((seq, from, to, unhex(f.get(7)?)?))
            })();
            let Some((seq, from, to, bytes)) = parsed else {
                writeln!(
                    err,
                    "{file}:{}: error: not a pkt line of a recorder log",
                    n + 1
                )?;
                self.bad += 1;
                continue;
            };
            self.packet(file, seq, &bytes, from, Some(to), 0)?;
        }
        Ok(())
    }

    /// Shows one packet; `base` is where it starts in the file (for error offsets).
    fn packet(
        &mut self,
        file: &str,
        index: usize,
        bytes: &[u8],
        from: i32,
        to: Option<i32>,
        base: usize,
    ) -> Result<(), Fail> {
        let mut s = String::new();
        let json = self.a.format == MpFormat::Json;
        let res = if self.a.godot3 {
            self.show3(bytes, from, to.unwrap_or(0), &mut Out::new(&mut s, json))
        } else {
            let session = self.sessions.entry(to.unwrap_or(0)).or_default();
            let r = match gdvariant_multiplayer::parse_with(bytes, &self.opts) {
                Ok(p) => {
                    session.observe(from, &p);
                    show4(&p, from, session, &self.schema, &mut Out::new(&mut s, json))
                }
                Err(e) => Err(e),
            };
            r
        };
        let route = match to {
            Some(to) => format!(" {from}->{to}"),
            None => String::new(),
        };
        match (json, res) {
            (false, Ok(())) => write!(self.out, "#{index}{route} {s}")?,
            (true, Ok(())) => {
                let route = match to {
                    Some(to) => format!(",\"from\":{from},\"to\":{to}"),
                    None => String::new(),
                };
                writeln!(self.out, "{{\"index\":{index}{route},{s}}}")?
            }
            (_, Err(e)) => {
                self.bad += 1;
                let e = e.shifted(base);
                if json {
                    writeln!(
                        self.out,
                        "{{\"index\":{index},\"error\":{},\"offset\":{}}}",
                        jstr(&e.kind().to_string()),
                        e.offset()
                    )?
                } else {
                    writeln!(self.out, "#{index}{route} {file}: error: {e}")?
                }
            }
        }
        Ok(())
    }

    fn show3(&mut self, bytes: &[u8], from: i32, to: i32, o: &mut Out<'_>) -> Result<(), Error> {
        let p = godot3::parse_with(bytes, &self.opts)?;
        // A call's arguments are checked as they are shown (see `mp::show4`).
        if !matches!(p, godot3::Packet::RemoteCall(_)) {
            p.validate()?;
        }
        o.cmd(p.command().name());
        let path = |n: NodeTarget<'_>| match n {
            NodeTarget::Id(id) => self.paths3.get(&(to, from, id)).cloned(),
            NodeTarget::Path(_) => None,
        };
        match p {
            godot3::Packet::RemoteCall(c) => {
                node(o, c.node(), path(c.node()).as_deref());
                o.field_str("method", &c.method().to_string_lossy());
                values(o, "args", c.args().checked(), &[])?;
            }
            godot3::Packet::RemoteSet(s) => {
                node(o, s.node(), path(s.node()).as_deref());
                o.field_str("property", &s.property().to_string_lossy());
                o.single("value", &s.value()?)?;
            }
            godot3::Packet::SimplifyPath(s) => {
                o.field_num("id", s.id());
                let path = s.path().to_string_lossy().into_owned();
                o.field_str("path", &path);
                self.paths3.insert((to, from, s.id()), path);
            }
            godot3::Packet::ConfirmPath(c) => o.field_str("path", &c.path().to_string_lossy()),
            godot3::Packet::Raw(r) => o.field_bytes("payload", r.payload()),
        }
        o.end();
        Ok(())
    }
}

pub(crate) fn show4(
    p: &Packet<'_>,
    from: i32,
    session: &Session,
    schema: &StaticSchema,
    o: &mut Out<'_>,
) -> Result<(), Error> {
    if let Packet::RemoteCall(c) = p {
        // As `Session::node_path`, borrowing the session's path.
        let path = match c.node() {
            NodeTarget::Path(_) => None,
            NodeTarget::Id(id) => session.path(from, id),
        };
        return show_call4(c, path, schema, o);
    }
    p.validate()?;
    o.cmd(p.name());
    match p {
        Packet::RemoteCall(_) => {}
        Packet::SimplifyPath(s) => {
            o.field_num("id", s.id());
            o.field_str("path", &s.path().to_string_lossy());
            o.field_str("checksum", &String::from_utf8_lossy(s.checksum()));
            if let Some(m) = schema.rpc_methods(&s.path().to_string_lossy()) {
                o.field_bool("checksum_ok", m.matches(s));
            }
        }
        Packet::ConfirmPath(c) => {
            match (c.id(), c.path()) {
                (Some(id), _) => o.field_num("id", id),
                (_, Some(path)) => o.field_str("path", &path.to_string_lossy()),
                _ => {}
            }
            o.field_bool("valid", c.valid());
        }
        Packet::Raw(r) => o.field_bytes("payload", r.payload()),
        Packet::Spawn(s) => {
            o.field_num("spawner", s.spawner());
            if let Some(path) = session.path(from, s.spawner()) {
                o.field_str("spawner_path", path);
            }
            match s.scene() {
                Some(i) => o.field_num("scene", i),
                None => o.field_str("scene", "custom"),
            }
            o.field_num("net_id", s.net_id());
            o.field_str("name", &s.name().to_string_lossy());
            o.field_list("sync_ids", s.sync_ids());
            if let Some(arg) = s.custom_arg()? {
                o.single("custom_arg", &arg)?;
            }
            // Name the state when the schema knows the synchronizers.
            let mut names = Vec::new();
            for id in s.sync_ids() {
                match session.synchronizer(from, id, schema) {
                    Some(props) => names.extend(spawn_properties(props).map(|p| p.name.as_str())),
                    None => break,
                }
            }
            values(o, "state", s.state(), &names)?;
        }
        Packet::Despawn(d) => o.field_num("net_id", d.net_id()),
        Packet::Sync(s) => {
            o.field_num("time", s.time());
            o.list_open("entries");
            for e in s.entries() {
                let e = e?;
                o.item_open();
                entry_head(o, from, e.net_id(), session);
                let props = session.synchronizer(from, e.net_id(), schema);
                let names = names_of(props.map(|p| sync_properties(p).collect()));
                values(o, "values", e.values(), &names)?;
                o.item_close();
            }
            o.list_close();
        }
        Packet::Delta(d) => {
            o.list_open("entries");
            for e in d.entries() {
                let e = e?;
                o.item_open();
                entry_head(o, from, e.net_id(), session);
                o.field_raw("mask", &format!("{:#b}", e.mask()), &e.mask().to_string());
                let props = session.synchronizer(from, e.net_id(), schema);
                let names = names_of(props.map(|p| delta_properties(p, e.mask()).collect()));
                values(o, "values", e.values(), &names)?;
                o.item_close();
            }
            o.list_close();
        }
        Packet::Sys(s) => match s.kind() {
            SysKind::Auth => o.field_bytes("data", s.auth_data().unwrap_or_default()),
            SysKind::AuthComplete => {}
            SysKind::AddPeer | SysKind::DelPeer => o.field_num("peer", s.peer().unwrap_or(0)),
            SysKind::Relay => {
                let peer = s.peer().unwrap_or(0);
                o.field_num("peer", peer);
                // From the server the peer field is the source; to it, the target.
                let source = if from == 1 { peer } else { from };
                if let Some(inner) = s.inner() {
                    o.nested_open("inner");
                    show4(&inner?, source, session, schema, o)?;
                    o.nested_close();
                }
            }
        },
    }
    o.end();
    Ok(())
}

/// Shows a Godot 4 `REMOTE_CALL`; `cached` is the path of its node id in the sender's cache
/// (`gdvariant capture` looks it up as it reads, in capture order).
pub(crate) fn show_call4(
    c: &RemoteCall<'_>,
    cached: Option<&str>,
    schema: &StaticSchema,
    o: &mut Out<'_>,
) -> Result<(), Error> {
    call_head4(c, cached, schema, o);
    call_args4(c, o)
}

/// A call's command, node, method and flags: what [`show_call4`] writes before the arguments
/// (the same for every call of a node's method).
pub(crate) fn call_head4(
    c: &RemoteCall<'_>,
    cached: Option<&str>,
    schema: &StaticSchema,
    o: &mut Out<'_>,
) {
    o.cmd("REMOTE_CALL");
    let path = match c.node() {
        NodeTarget::Path(p) => Some(p.to_string_lossy()),
        NodeTarget::Id(_) => cached.map(Cow::Borrowed),
    };
    node(o, c.node(), path.as_deref());
    o.field_num("method", c.method());
    let name = path
        .as_deref()
        .and_then(|p| schema.rpc_methods(p))
        .and_then(|m| m.name(c.method()));
    if let Some(name) = name {
        o.field_str("name", name);
    }
    let width = match c.node_id_width() {
        1 => None,
        2 => Some(Cow::Borrowed("node id 16 bits")),
        4 => Some(Cow::Borrowed("node id 32 bits")),
        w => Some(Cow::Owned(format!("node id {} bits", 8 * w))),
    };
    let flags = [
        width,
        (c.method_id_width() == 2).then_some(Cow::Borrowed("method id 16 bits")),
        c.is_byte_only().then_some(Cow::Borrowed("byte-only")),
    ];
    o.flags(&flags);
}

/// A call's arguments, after its [`call_head4`]. They are checked as they are shown
/// (`checked`: the same error at the same place as `validate`'s, and the caller drops what was
/// shown of a packet that fails), which spares most packets a second walk of their values;
/// other packets are checked first.
pub(crate) fn call_args4(c: &RemoteCall<'_>, o: &mut Out<'_>) -> Result<(), Error> {
    values(o, "args", c.args().checked(), &[])?;
    o.end();
    Ok(())
}

fn names_of(props: Option<Vec<&Property>>) -> Vec<&str> {
    props
        .unwrap_or_default()
        .into_iter()
        .map(|p| p.name.as_str())
        .collect()
}

fn entry_head(o: &mut Out<'_>, from: i32, net_id: u32, session: &Session) {
    // A net id with bit 31 is a path cache id.
    if net_id & 0x8000_0000 != 0 {
        o.field_raw("net_id", &format!("{net_id:#010x}"), &net_id.to_string());
    } else {
        o.field_num("net_id", net_id);
    }
    match session.sync_key(from, net_id) {
        Some(gdvariant_multiplayer::SyncKey::Path(p)) => o.field_str("synchronizer", p),
        Some(gdvariant_multiplayer::SyncKey::Spawned { node, index, .. }) => {
            o.field_str("synchronizer", &format!("{node} #{index}"))
        }
        None => {}
    }
}

pub(crate) fn node(o: &mut Out<'_>, n: NodeTarget<'_>, path: Option<&str>) {
    match n {
        NodeTarget::Id(id) => {
            o.field_num("node", id);
            if let Some(p) = path {
                o.field_str("path", p);
            }
        }
        NodeTarget::Path(p) => o.field_str("path", &p.to_string_lossy()),
    }
}

pub(crate) fn values<'a>(
    o: &mut Out<'_>,
    label: &'static str,
    vs: impl Iterator<Item = gdvariant::Result<ValueRef<'a>>>,
    names: &[&str],
) -> Result<(), Error> {
    o.list_open(label);
    for (i, v) in vs.enumerate() {
        o.value(names.get(i).copied(), &v?)?;
    }
    o.list_close();
    Ok(())
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Reads a schema file (see the `decode` help).
/// Reads a schema file (the multiplayer crate's reader, `docs/schema-file.md`).
pub(crate) fn parse_schema(text: &str) -> Result<StaticSchema, String> {
    StaticSchema::parse(text).map_err(|e| e.to_string())
}
