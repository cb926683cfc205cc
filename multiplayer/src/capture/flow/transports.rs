//! The transports over the reassembled streams and datagrams: `put_var` streams (values, and
//! finding them again after a gap), WebSocket (handshake, messages, Godot's layers) and ENet
//! (commands, fragments, compression, Godot's layers).

use std::vec::Vec;

use gdvariant::{Dialect, ReadOptions};

use super::state::{Dir, Enet, Meta, Out, RecBody, Ws, WsKind};
use crate::capture::config::Config;
use crate::capture::error::{Error, Place};
use crate::capture::event::{Channel, Control, Transport};
use crate::enet::fragments::Progress;
use crate::enet::godot::{self as enet_godot, Packet3};
use crate::enet::protocol::{Command, CommandKind, Commands, Datagram};
use crate::enet::range_coder::RangeDecoder;
use crate::websocket::godot::{
    parse_godot3, Godot3Message, Godot3Sys, Godot4Message, Godot4Stream,
};
use crate::websocket::handshake::{self, Head as HttpHead};
use crate::websocket::{FrameConfig, Message, MessageConfig, MessageReader};

/// Bytes kept while looking for the next value of a `put_var` stream after a gap.
const MAX_RESYNC: usize = 1 << 20;

/// Whether `b` is one whole value in either dialect.
pub(super) fn is_value(b: &[u8]) -> bool {
    [Dialect::Godot4, Dialect::Godot3]
        .iter()
        .any(|d| gdvariant::validate_with(b, &ReadOptions::new().with_dialect(*d)) == Ok(b.len()))
}

/// Whether 4 bytes are a Variant header the engine writes.
pub(super) fn plausible_header(h: [u8; 4]) -> bool {
    h[0] < 39 && h[1] == 0 && h[3] == 0
}

/// Reads the whole values now in a `put_var` direction's buffer.
pub(super) fn put_var(meta: &mut Meta, dir: &mut Dir, d: usize, config: &Config, out: &mut Out) {
    if dir.resync && !resync(meta, dir) {
        return;
    }
    let mut pos = 0;
    let p = &dir.pending;
    loop {
        if dir.skip > 0 {
            let n = dir.skip.min((p.len() - pos) as u64);
            pos += n as usize;
            dir.skip -= n;
            if dir.skip > 0 {
                break;
            }
        }
        let Some(h) = p.get(pos..pos + 4) else {
            break;
        };
        let n = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize;
        if n > config.max_message {
            let e = Error::new(
                format!(
                    "a put_var length of {n} bytes, over the limit of {}: the value is skipped",
                    config.max_message
                ),
                Place::Stream,
                dir.at + pos as u64,
            );
            meta.error(d, out, e);
            pos += 4;
            dir.skip = n as u64;
            continue;
        }
        let Some(v) = p.get(pos + 4..pos + 4 + n) else {
            break;
        };
        meta.value(d, out, v);
        pos += 4 + n;
    }
    dir.consume(pos);
}

/// Direction `d`'s bytes would pass the bound on every flow's unfinished messages (`max`): the
/// message it is assembling is reported and its bytes freed. A `put_var` value's rest is
/// skipped (its length is known); elsewhere the rest of the direction is not read.
pub(super) fn drop_unfinished(meta: &mut Meta, dir: &mut Dir, d: usize, max: usize, out: &mut Out) {
    let held = dir.held() as u64;
    let why = format!("the open flows' unfinished messages would pass the limit of {max} bytes");
    let p = &dir.pending;
    let put_var = meta.transport == Some(Transport::PutVar);
    let what = if put_var && dir.resync {
        format!("{held} bytes kept looking for the next put_var value after a gap dropped: {why}")
    } else if put_var && p.len() >= 4 {
        let n = u64::from(u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
        // Not whole (whole values were read), and within `max_message` (longer ones are skipped
        // as they come).
        dir.skip = (4 + n).saturating_sub(held);
        format!("a put_var value of {n} bytes skipped: {why}")
    } else {
        let what = match meta.transport {
            None => "the stream, not recognised yet,",
            Some(Transport::WebSocket) if dir.ws.is_none() => "a WebSocket handshake head",
            Some(Transport::WebSocket) => "a WebSocket message",
            _ => "a put_var length",
        };
        dir.broken = true;
        format!("{held} bytes of {what} dropped: {why}; the rest of this direction is not read")
    };
    let at = match &dir.ws {
        Some(ws) => ws.reader.offset(),
        None => dir.at,
    };
    meta.error(d, out, Error::new(what, Place::Stream, at));
    dir.at += p.len() as u64;
    dir.pending = Vec::new();
    if dir.broken {
        dir.ws = None;
    }
}

/// After a gap: drops bytes up to the next place where a whole value starts; whether one was
/// found. Bytes from the first place where a value may start but is not whole yet are kept
/// (up to [`MAX_RESYNC`]) for the next call.
fn resync(meta: &mut Meta, dir: &mut Dir) -> bool {
    let p = &dir.pending;
    let mut pos = 0;
    let mut wait = None;
    let opts = ReadOptions::new().with_dialect(meta.dialect.unwrap_or(Dialect::Godot4));
    while pos + 8 <= p.len() {
        let n = u32::from_le_bytes([p[pos], p[pos + 1], p[pos + 2], p[pos + 3]]) as usize;
        let h = [p[pos + 4], p[pos + 5], p[pos + 6], p[pos + 7]];
        if (4..=MAX_RESYNC).contains(&n) && plausible_header(h) {
            match p.get(pos + 4..pos + 4 + n) {
                Some(v) => {
                    if gdvariant::validate_with(v, &opts) == Ok(n) {
                        dir.consume(pos);
                        dir.resync = false;
                        return true;
                    }
                }
                None => {
                    wait.get_or_insert(pos);
                }
            }
        }
        pos += 1;
    }
    dir.consume(wait.unwrap_or(pos));
    false
}

/// Reads a WebSocket direction: its handshake, then its messages.
#[allow(clippy::too_many_arguments)]
pub(super) fn websocket(
    meta: &mut Meta,
    dir: &mut Dir,
    d: usize,
    at: u64,
    bytes: &[u8],
    config: &Config,
    out: &mut Out,
) {
    let max = config.max_message as u64;
    let mut rest_owned = Vec::new();
    let input: &[u8] = if dir.ws.is_none() {
        dir.append(at, bytes);
        let (from_server, n, status) = match handshake::parse_head(&dir.pending) {
            Ok(Some((HttpHead::Request(_), n))) => (false, n, None),
            Ok(Some((HttpHead::Response(r), n))) => (true, n, Some(r.status())),
            Ok(None) if dir.pending.len() <= handshake::MAX_HEAD => return,
            Ok(None) => {
                let e = Error::new("WebSocket handshake head too long", Place::Stream, dir.at);
                dir.broken = true;
                meta.error(d, out, e);
                return;
            }
            Err(e) => {
                dir.broken = true;
                meta.error(d, out, Error::from_ws(&e));
                return;
            }
        };
        if !from_server {
            meta.client = d;
        }
        meta.control(d, out, Control::Handshake { status });
        let frame = if from_server {
            FrameConfig::server_to_client()
        } else {
            FrameConfig::client_to_server()
        };
        let mc = MessageConfig::new()
            .with_frame(frame.with_max_frame(max))
            .with_max_message(max);
        dir.ws = Some(Box::new(Ws {
            reader: MessageReader::with_offset(mc, dir.at + n as u64),
            from_server,
            godot4: if from_server {
                Godot4Stream::server_to_client()
            } else {
                Godot4Stream::client_to_server()
            },
        }));
        rest_owned = dir.pending.split_off(n);
        dir.pending = Vec::new();
        &rest_owned
    } else {
        bytes
    };
    let _ = &rest_owned;
    let ws = dir.ws.as_mut().expect("past the handshake");
    let Ws {
        reader,
        from_server,
        godot4,
    } = &mut **ws;
    let mut input = input;
    loop {
        match reader.read(&mut input) {
            Ok(Some(r)) => ws_message(meta, godot4, *from_server, d, r.message(), r.offset(), out),
            Ok(None) => break,
            Err(e) => {
                dir.broken = true;
                meta.error(d, out, Error::from_ws(&e));
                break;
            }
        }
    }
    if dir.broken {
        // Nothing more is read: the reader's buffers are freed.
        dir.ws = None;
    }
}

fn ws_message(
    meta: &mut Meta,
    godot4: &mut Godot4Stream,
    from_server: bool,
    d: usize,
    m: Message<'_>,
    offset: u64,
    out: &mut Out,
) {
    let data = match m {
        Message::Close(c) => {
            meta.control(d, out, Control::Close { code: c.code() });
            return;
        }
        Message::Ping(_) | Message::Pong(_) => return,
        Message::Text(t) => t.as_bytes(),
        Message::Binary(b) => b,
    };
    if meta.ws == WsKind::Undecided {
        meta.ws = if from_server
            && data.len() == 4
            && i32::from_le_bytes([data[0], data[1], data[2], data[3]]) >= 2
        {
            WsKind::Godot4
        } else if from_server && data.len() == 13 && data[0] == Godot3Sys::Id as u8 {
            WsKind::Godot3
        } else if is_value(data) {
            WsKind::Values
        } else {
            WsKind::Godot4
        };
        if meta.ws == WsKind::Godot3 {
            meta.dialect = Some(Dialect::Godot3);
        }
    }
    let server = 1 - meta.client;
    match meta.ws {
        WsKind::Values => meta.value(d, out, data),
        WsKind::Godot4 | WsKind::Undecided => match godot4.message(data) {
            Ok(Godot4Message::PeerId(id)) => {
                meta.peers[meta.client] = Some(id);
                meta.peers[server] = Some(1);
                meta.control(d, out, Control::PeerId(id));
            }
            Ok(Godot4Message::Packet(p)) => {
                let range = out.bytes(p);
                meta.emit(d, out, RecBody::Packet(range, Dialect::Godot4), None);
            }
            Err(e) => {
                let e = Error::new(e.kind().to_string(), Place::Stream, offset);
                meta.error(d, out, e);
            }
        },
        WsKind::Godot3 => match parse_godot3(data) {
            Ok(Godot3Message::Data { from, to, packet }) => {
                let range = out.bytes(packet);
                let head = meta.head(d, out);
                let body = RecBody::Packet(range, Dialect::Godot3);
                out.push(head, None, Some(from as i32), Some(to), body);
            }
            Ok(Godot3Message::Sys { sys, id, .. }) => {
                if sys == Godot3Sys::Id {
                    meta.peers[meta.client] = Some(id);
                    meta.peers[server] = Some(1);
                }
                meta.control(d, out, Control::Godot3Sys { sys, peer: id });
            }
            Err(e) => {
                let e = Error::new(e.kind().to_string(), Place::Stream, offset);
                meta.error(d, out, e);
            }
        },
    }
}

/// Reads one ENet datagram of direction `d` (after a `DISCONNECT`, `enet.disconnected` is set:
/// the caller drops the flow's ENet state and ends it).
pub(super) fn enet_datagram(
    meta: &mut Meta,
    enet: &mut Enet,
    decoder: &mut Option<Box<RangeDecoder>>,
    d: usize,
    p: &[u8],
    out: &mut Out,
) {
    let dg = match Datagram::parse(p) {
        Ok(dg) => dg,
        Err(e) => {
            meta.error(d, out, Error::from_gd(&e, Place::Datagram, 0));
            return;
        }
    };
    let h = dg.header();
    let body;
    let commands = if h.compressed {
        let dec = decoder.get_or_insert_with(Default::default);
        match dg.decompress_with(dec) {
            Ok(b) => {
                body = b;
                Commands::new(&body, h.size())
            }
            Err(e) => {
                meta.error(d, out, Error::from_gd(&e, Place::Datagram, 0));
                return;
            }
        }
    } else {
        dg.commands()
    };
    for c in commands {
        let c = match c {
            Ok(c) => c,
            Err(e) => {
                meta.error(d, out, Error::from_gd(&e, Place::Datagram, 0));
                return;
            }
        };
        let kind = c.kind();
        match c {
            Command::Connect(c) => {
                meta.client = d;
                let peer = enet_godot::connect_peer_id(c.data);
                meta.peers[d] = peer.map(|p| p as i32);
                meta.peers[1 - d] = Some(1);
                meta.dialect = Some(if c.channel_count == 3 {
                    Dialect::Godot3
                } else {
                    Dialect::Godot4
                });
                let ctl = Control::EnetConnect {
                    peer,
                    channels: c.channel_count,
                    mtu: c.mtu,
                };
                meta.control(d, out, ctl);
            }
            Command::VerifyConnect(c) => {
                let ctl = Control::EnetVerifyConnect {
                    channels: c.channel_count,
                    mtu: c.mtu,
                };
                meta.control(d, out, ctl);
            }
            Command::Disconnect { data, .. } => {
                meta.control(d, out, Control::EnetDisconnect { data });
                enet.disconnected = true;
            }
            Command::SendReliable { header, data } => {
                let key = (d as u8, header.channel_id);
                let seq = header.reliable_sequence_number;
                if let Some(last) = enet.reliable.get(&key) {
                    if (seq.wrapping_sub(*last) as i16) <= 0 {
                        continue;
                    }
                }
                enet.reliable.insert(key, seq);
                enet_packet(meta, d, header.channel_id, kind, data, out);
            }
            Command::SendUnreliable { header, data, .. }
            | Command::SendUnsequenced { header, data, .. } => {
                enet_packet(meta, d, header.channel_id, kind, data, out);
            }
            Command::SendFragment(f) | Command::SendUnreliableFragment(f) => {
                match enet.fragments.push(d as u8, &f) {
                    Ok(Progress::Complete(r)) => {
                        enet_packet(meta, d, f.header.channel_id, kind, &r.data, out)
                    }
                    Ok(_) => {}
                    Err(e) => meta.error(d, out, Error::from_gd(&e, Place::Datagram, 0)),
                }
            }
            _ => {}
        }
    }
}

/// One whole ENet packet of direction `d`, on `channel`, from a command of kind `kind`.
fn enet_packet(
    meta: &mut Meta,
    d: usize,
    channel: u8,
    kind: CommandKind,
    data: &[u8],
    out: &mut Out,
) {
    let Some(mode) = enet_godot::received_mode(kind) else {
        return;
    };
    if meta.dialect == Some(Dialect::Godot3) {
        let ch = Some(Channel {
            enet: channel,
            transfer: 0,
            mode,
        });
        match Packet3::parse(channel, data) {
            Ok(Packet3::Config(c)) => {
                meta.emit(d, out, RecBody::Control(Control::Config3(c)), ch);
            }
            Ok(Packet3::Data(h, p)) => {
                let range = out.bytes(p);
                let head = meta.head(d, out);
                let body = RecBody::Packet(range, Dialect::Godot3);
                out.push(head, ch, Some(h.source as i32), Some(h.target), body);
            }
            Err(e) => meta.emit(
                d,
                out,
                RecBody::Error(Error::from_gd(&e, Place::Message, 0)),
                ch,
            ),
        }
        return;
    }
    let ch = enet_godot::receive4(channel, kind).map(|r| Channel {
        enet: channel,
        transfer: r.transfer_channel,
        mode: r.mode,
    });
    let range = out.bytes(data);
    meta.emit(d, out, RecBody::Packet(range, Dialect::Godot4), ch);
}
