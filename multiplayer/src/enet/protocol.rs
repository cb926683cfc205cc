//! ENet 1.3's datagrams read as an observer: the protocol header and the commands after it, with
//! the fields named as `enet/protocol.h` names them (in snake case) and payloads borrowed.
//!
//! All ENet fields are big-endian. A datagram is `[peerID u16][sentTime u16, when flagged]` and
//! then commands, each `[command u8][channelID u8][reliableSequenceNumber u16]` followed by its
//! fields (the sizes of `commandSizes` in `protocol.c`) and, for the `SEND_*` commands,
//! `dataLength` bytes of payload. The commands themselves ([`Command`] and its parts) are
//! re-exported here.

use gdvariant::error::{Error, Result};

pub use super::command::{
    Command, CommandHeader, CommandKind, Connect, SendFragment, COMMAND_FLAG_ACKNOWLEDGE,
    COMMAND_FLAG_UNSEQUENCED, COMMAND_MASK,
};
use super::range_coder::RangeDecoder;
use crate::cursor::eof;
use crate::wire::invalid;

/// `ENET_PROTOCOL_HEADER_FLAG_SENT_TIME`: a 16-bit sent time follows the peer id word.
pub const HEADER_FLAG_SENT_TIME: u16 = 1 << 15;
/// `ENET_PROTOCOL_HEADER_FLAG_COMPRESSED`: the commands are compressed (see
/// [`range_coder`](super::range_coder)).
pub const HEADER_FLAG_COMPRESSED: u16 = 1 << 14;
/// `ENET_PROTOCOL_HEADER_SESSION_MASK`: the session id's two bits in the peer id word.
pub const HEADER_SESSION_MASK: u16 = 3 << 12;
/// `ENET_PROTOCOL_HEADER_SESSION_SHIFT`.
pub const HEADER_SESSION_SHIFT: u16 = 12;
/// `ENET_PROTOCOL_MAXIMUM_PEER_ID`: the peer id of a datagram sent before the receiver assigned
/// one (a `CONNECT`).
pub const MAXIMUM_PEER_ID: u16 = 0xFFF;
/// `ENET_PROTOCOL_MAXIMUM_MTU`: ENet's receive buffer, and the bound of a decompressed datagram.
pub const MAXIMUM_MTU: usize = 4096;

/// A datagram's protocol header (`ENetProtocolHeader`), its flag and session bits split out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The receiver's peer id (low 12 bits of `peerID`): the index the receiving host gave the
    /// sender, or [`MAXIMUM_PEER_ID`] before it gave one.
    pub peer_id: u16,
    /// The session id (bits 12–13).
    pub session_id: u8,
    /// Whether the commands are range-coder compressed (bit 14).
    pub compressed: bool,
    /// `sentTime`, when bit 15 says it is there (the sender's time in ms, low 16 bits).
    pub sent_time: Option<u16>,
}

impl Header {
    /// The size of the header on the wire: 4 with a sent time, 2 without (the offset of the
    /// first command).
    pub const fn size(&self) -> usize {
        if self.sent_time.is_some() {
            4
        } else {
            2
        }
    }
}

/// One UDP datagram of ENet: the header and the (possibly compressed) commands, borrowed.
///
/// Checksums (`enet_host_set_checksum`) are not read: Godot never enables them.
#[derive(Clone, Copy, Debug)]
pub struct Datagram<'a> {
    header: Header,
    body: &'a [u8],
}

impl<'a> Datagram<'a> {
    /// Reads the header of a datagram (an error when it is shorter than its header, which ENet
    /// drops). The commands are read as you iterate [`commands`](Datagram::commands).
    pub fn parse(bytes: &'a [u8]) -> Result<Datagram<'a>> {
        let Some(word) = bytes.get(..2) else {
            return Err(eof(bytes.len(), 2 - bytes.len()));
        };
        let word = u16::from_be_bytes([word[0], word[1]]);
        let sent_time = if word & HEADER_FLAG_SENT_TIME != 0 {
            match bytes.get(2..4) {
                Some(t) => Some(u16::from_be_bytes([t[0], t[1]])),
                None => return Err(eof(bytes.len(), 4 - bytes.len())),
            }
        } else {
            None
        };
        let header = Header {
            peer_id: word & MAXIMUM_PEER_ID,
            session_id: ((word & HEADER_SESSION_MASK) >> HEADER_SESSION_SHIFT) as u8,
            compressed: word & HEADER_FLAG_COMPRESSED != 0,
            sent_time,
        };
        Ok(Datagram {
            header,
            body: &bytes[header.size()..],
        })
    }

    /// The header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The bytes after the header: the commands, compressed when the header says so.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// The commands. Offsets in errors count from the start of the datagram. A compressed
    /// datagram's commands are only readable once decompressed: its first item is an error (see
    /// [`decompress`](Datagram::decompress) and [`Commands::new`]).
    pub fn commands(&self) -> Commands<'a> {
        if self.header.compressed {
            return Commands {
                rest: &[],
                offset: self.header.size(),
                failed: false,
                compressed: true,
            };
        }
        Commands::new(self.body, self.header.size())
    }

    /// Decompresses a compressed datagram's commands as ENet does (the range coder, into a buffer
    /// of [`MAXIMUM_MTU`] bytes less the header); read them with `Commands::new(&bytes,
    /// datagram.header().size())`. An error when the datagram is not compressed or the data does
    /// not decompress, or decompresses to nothing (ENet drops such a datagram).
    pub fn decompress(&self) -> Result<alloc::vec::Vec<u8>> {
        self.decompress_with(&mut RangeDecoder::new())
    }

    /// [`decompress`](Datagram::decompress) with a decoder of the caller's, to read many
    /// datagrams without allocating a symbol table for each.
    pub fn decompress_with(&self, decoder: &mut RangeDecoder) -> Result<alloc::vec::Vec<u8>> {
        if !self.header.compressed {
            return Err(invalid("ENet datagram not compressed", 0));
        }
        let at = self.header.size();
        let out = decoder
            .decompress(self.body, MAXIMUM_MTU - at)
            .map_err(|e| Error::new(e.kind(), e.offset() + at))?;
        if out.is_empty() {
            return Err(invalid("ENet datagram decompresses to nothing", at));
        }
        Ok(out)
    }
}

/// The commands of a datagram, read one at a time: each item is a command or the error that
/// stopped the reading (a command cut short, a `dataLength` past the end, an unknown command
/// number), after which the iterator ends. ENet stops at the same points (keeping the commands
/// before them); it also stops at a command its receiving state refuses (a `SEND_*` on a
/// channel the peer does not have, anything but `CONNECT` from an unknown peer, …), which an
/// observer does not know.
#[derive(Clone, Debug)]
pub struct Commands<'a> {
    rest: &'a [u8],
    offset: usize,
    failed: bool,
    compressed: bool,
}

impl<'a> Commands<'a> {
    /// The commands in `bytes` (a datagram's body, e.g. decompressed), whose first byte is at
    /// offset `base` of the datagram.
    pub fn new(bytes: &'a [u8], base: usize) -> Commands<'a> {
        Commands {
            rest: bytes,
            offset: base,
            failed: false,
            compressed: false,
        }
    }

    /// The offset of the next command in the datagram.
    pub fn offset(&self) -> usize {
        self.offset
    }

    fn read(&mut self) -> Result<Command<'a>> {
        let at = self.offset;
        let b = self.rest;
        if b.len() < 4 {
            return Err(eof(at + b.len(), 4 - b.len()));
        }
        let Some(kind) = CommandKind::from_number(b[0]) else {
            return Err(invalid("unknown ENet command number", at));
        };
        let size = kind.size();
        if b.len() < size {
            return Err(eof(at + b.len(), size - b.len()));
        }
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let header = CommandHeader {
            command: b[0],
            channel_id: b[1],
            reliable_sequence_number: u16_at(2),
        };
        // The payload of a SEND_* command: dataLength at `len_at`, the bytes after the struct.
        let data = |len_at: usize| -> Result<&'a [u8]> {
            let n = usize::from(u16_at(len_at));
            match b.get(size..size + n) {
                Some(d) => Ok(d),
                None => Err(Error::new(
                    gdvariant::ErrorKind::InvalidPacket {
                        what: "ENet dataLength past the end of the datagram",
                    },
                    at + len_at,
                )),
            }
        };
        let connect = |data: u32| Connect {
            header,
            outgoing_peer_id: u16_at(4),
            incoming_session_id: b[6],
            outgoing_session_id: b[7],
            mtu: u32_at(8),
            window_size: u32_at(12),
            channel_count: u32_at(16),
            incoming_bandwidth: u32_at(20),
            outgoing_bandwidth: u32_at(24),
            packet_throttle_interval: u32_at(28),
            packet_throttle_acceleration: u32_at(32),
            packet_throttle_deceleration: u32_at(36),
            connect_id: u32_at(40),
            data,
        };
        let fragment = |d: &'a [u8]| SendFragment {
            header,
            start_sequence_number: u16_at(4),
            fragment_count: u32_at(8),
            fragment_number: u32_at(12),
            total_length: u32_at(16),
            fragment_offset: u32_at(20),
            data: d,
            offset: at,
        };
        let (cmd, len) = match kind {
            CommandKind::Acknowledge => (
                Command::Acknowledge {
                    header,
                    received_reliable_sequence_number: u16_at(4),
                    received_sent_time: u16_at(6),
                },
                size,
            ),
            CommandKind::Connect => (Command::Connect(connect(u32_at(44))), size),
            CommandKind::VerifyConnect => (Command::VerifyConnect(connect(0)), size),
            CommandKind::Disconnect => (
                Command::Disconnect {
                    header,
                    data: u32_at(4),
                },
                size,
            ),
            CommandKind::Ping => (Command::Ping { header }, size),
            CommandKind::SendReliable => {
                let d = data(4)?;
                (Command::SendReliable { header, data: d }, size + d.len())
            }
            CommandKind::SendUnreliable => {
                let d = data(6)?;
                let c = Command::SendUnreliable {
                    header,
                    unreliable_sequence_number: u16_at(4),
                    data: d,
                };
                (c, size + d.len())
            }
            CommandKind::SendUnsequenced => {
                let d = data(6)?;
                let c = Command::SendUnsequenced {
                    header,
                    unsequenced_group: u16_at(4),
                    data: d,
                };
                (c, size + d.len())
            }
            CommandKind::SendFragment => {
                let d = data(6)?;
                (Command::SendFragment(fragment(d)), size + d.len())
            }
            CommandKind::SendUnreliableFragment => {
                let d = data(6)?;
                (Command::SendUnreliableFragment(fragment(d)), size + d.len())
            }
            CommandKind::BandwidthLimit => (
                Command::BandwidthLimit {
                    header,
                    incoming_bandwidth: u32_at(4),
                    outgoing_bandwidth: u32_at(8),
                },
                size,
            ),
            CommandKind::ThrottleConfigure => (
                Command::ThrottleConfigure {
                    header,
                    packet_throttle_interval: u32_at(4),
                    packet_throttle_acceleration: u32_at(8),
                    packet_throttle_deceleration: u32_at(12),
                },
                size,
            ),
        };
        self.rest = &b[len..];
        self.offset = at + len;
        Ok(cmd)
    }
}

impl<'a> Iterator for Commands<'a> {
    type Item = Result<Command<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.compressed {
            self.compressed = false;
            self.failed = true;
            return Some(Err(invalid(
                "compressed ENet datagram: decompress it first",
                0,
            )));
        }
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let r = self.read();
        self.failed = r.is_err();
        Some(r)
    }
}

impl core::iter::FusedIterator for Commands<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use gdvariant::ErrorKind;

    /// A client's first datagram as Godot 4.6 sends it: CONNECT with peer id 345210716 in `data`.
    const CONNECT: [u8; 52] = [
        0x8f, 0xff, 0x12, 0x34, // no peer yet, sent time 0x1234
        0x82, 0xff, 0x00, 0x01, // CONNECT | ACKNOWLEDGE, channel 0xFF, reliable seq 1
        0x00, 0x00, 0xff, 0xff, // outgoing peer 0, sessions 0xFF / 0xFF (none yet)
        0x00, 0x00, 0x05, 0x70, // mtu 1392
        0x00, 0x01, 0x00, 0x00, // window 65536
        0x00, 0x00, 0x00, 0xff, // 255 channels
        0, 0, 0, 0, 0, 0, 0, 0, // bandwidths
        0x00, 0x00, 0x13, 0x88, // throttle interval 5000
        0x00, 0x00, 0x00, 0x02, // acceleration 2
        0x00, 0x00, 0x00, 0x02, // deceleration 2
        0xde, 0xad, 0xbe, 0xef, // connect id
        0x14, 0x93, 0x7f, 0x5c, // data: 345210716
    ];

    #[test]
    fn reads_a_connect() {
        let d = Datagram::parse(&CONNECT).unwrap();
        let h = d.header();
        assert_eq!(
            (h.peer_id, h.session_id, h.compressed, h.sent_time, h.size()),
            (MAXIMUM_PEER_ID, 0, false, Some(0x1234), 4)
        );
        let cmds: Vec<_> = d.commands().collect::<Result<_>>().unwrap();
        let [Command::Connect(c)] = cmds[..] else {
            panic!("{cmds:?}")
        };
        assert!(c.header.acknowledge() && !c.header.unsequenced());
        assert_eq!(
            (c.header.channel_id, c.header.reliable_sequence_number),
            (0xff, 1)
        );
        assert_eq!((c.mtu, c.window_size, c.channel_count), (1392, 65536, 255));
        assert_eq!((c.incoming_session_id, c.outgoing_session_id), (0xff, 0xff));
        assert_eq!((c.connect_id, c.data), (0xdeadbeef, 345210716));
    }

    #[test]
    fn reads_sends_and_acks_and_stops_at_errors() {
        let mut d = Vec::from([0x00, 0x01]); // peer 1, no sent time
        d.extend_from_slice(&[0x86, 0, 0, 7, 0, 3, b'a', b'b', b'c']); // SEND_RELIABLE "abc"
        d.extend_from_slice(&[0x01, 0, 0, 0, 0, 9, 0x12, 0x34]); // ACKNOWLEDGE 9
        d.extend_from_slice(&[0x49, 1, 0, 0, 0, 5, 0, 1, b'z']); // SEND_UNSEQUENCED "z"
        d.extend_from_slice(&[0x07, 1, 0, 0, 0, 2, 0, 9, b'x']); // SEND_UNRELIABLE, 9 > 1 byte
        let dg = Datagram::parse(&d).unwrap();
        let mut it = dg.commands();
        assert_eq!(
            it.next().unwrap().unwrap(),
            Command::SendReliable {
                header: CommandHeader {
                    command: 0x86,
                    channel_id: 0,
                    reliable_sequence_number: 7
                },
                data: b"abc"
            }
        );
        let Command::Acknowledge {
            received_reliable_sequence_number: 9,
            received_sent_time: 0x1234,
            ..
        } = it.next().unwrap().unwrap()
        else {
            panic!()
        };
        let u = it.next().unwrap().unwrap();
        assert_eq!(
            (u.kind(), u.data(), u.header().unsequenced()),
            (CommandKind::SendUnsequenced, Some(&b"z"[..]), true)
        );
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.offset(), 2 + 9 + 8 + 9 + 6, "{e}");
        assert!(it.next().is_none());
    }

    #[test]
    fn reads_every_command() {
        let mut d = Vec::from([0x00, 0x02]);
        let mut verify = Vec::from([0x83, 0xff, 0, 1, 0, 5, 1, 2]);
        verify.extend((0..9u32).flat_map(|i| (1000 + i).to_be_bytes()));
        d.extend_from_slice(&verify); // VERIFY_CONNECT
        d.extend_from_slice(&[0x84, 0xff, 0, 2, 0, 0, 0, 9]); // DISCONNECT data 9
        d.extend_from_slice(&[0x85, 0xff, 0, 3]); // PING
        d.extend_from_slice(&[0x8a, 0xff, 0, 4, 0, 0, 1, 0, 0, 0, 2, 0]); // BANDWIDTH_LIMIT
        d.extend_from_slice(&[0x8b, 0xff, 0, 5, 0, 0, 0x13, 0x88, 0, 0, 0, 2, 0, 0, 0, 3]);
        let frag = [
            0, 7, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 5, 0,
        ];
        d.extend_from_slice(&[0x88, 2, 0, 8]); // SEND_FRAGMENT: start 7, 3 fragments, #1
        d.extend_from_slice(&frag);
        d.extend_from_slice(b"xy");
        d.extend_from_slice(&[0x0c, 2, 0, 6]); // SEND_UNRELIABLE_FRAGMENT, same fields
        d.extend_from_slice(&frag);
        d.extend_from_slice(b"xy");
        let cmds: Vec<Command<'_>> = Datagram::parse(&d)
            .unwrap()
            .commands()
            .collect::<Result<_>>()
            .unwrap();
        let kinds: Vec<&str> = cmds.iter().map(|c| c.kind().name()).collect();
        assert_eq!(
            kinds,
            [
                "VERIFY_CONNECT",
                "DISCONNECT",
                "PING",
                "BANDWIDTH_LIMIT",
                "THROTTLE_CONFIGURE",
                "SEND_FRAGMENT",
                "SEND_UNRELIABLE_FRAGMENT"
            ]
        );
        let Command::VerifyConnect(v) = cmds[0] else {
            panic!()
        };
        assert_eq!(
            (
                v.outgoing_peer_id,
                v.incoming_session_id,
                v.outgoing_session_id
            ),
            (5, 1, 2)
        );
        assert_eq!(
            (v.mtu, v.window_size, v.connect_id, v.data),
            (1000, 1001, 1008, 0)
        );
        assert!(matches!(cmds[1], Command::Disconnect { data: 9, .. }));
        assert_eq!(cmds[2].header().reliable_sequence_number, 3);
        assert!(matches!(
            cmds[3],
            Command::BandwidthLimit {
                incoming_bandwidth: 256,
                outgoing_bandwidth: 512,
                ..
            }
        ));
        assert!(matches!(
            cmds[4],
            Command::ThrottleConfigure {
                packet_throttle_interval: 5000,
                packet_throttle_acceleration: 2,
                packet_throttle_deceleration: 3,
                ..
            }
        ));
        for (i, reliable) in [(5, true), (6, false)] {
            let (Command::SendFragment(f) | Command::SendUnreliableFragment(f)) = cmds[i] else {
                panic!()
            };
            assert_eq!(f.is_reliable(), reliable);
            assert_eq!(
                (f.start_sequence_number, f.fragment_count, f.fragment_number),
                (7, 3, 1)
            );
            assert_eq!(
                (f.total_length, f.fragment_offset, f.data),
                (4096, 1280, &b"xy"[..])
            );
            assert_eq!(cmds[i].data(), Some(&b"xy"[..]));
        }
        assert_eq!(
            CommandKind::from_number(0x8c),
            Some(CommandKind::SendUnreliableFragment)
        );
        assert_eq!(CommandKind::SendFragment.to_string(), "SEND_FRAGMENT");
    }

    #[test]
    fn errors_say_where() {
        // A header cut short.
        let e = Datagram::parse(&[0x80, 0x01, 0x00]).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnexpectedEof { needed: 1 }, 3)
        );
        // An unknown command number (0, then 13).
        for n in [0, 13] {
            let d = [0x00, 0x01, n, 0, 0, 0];
            let e = Datagram::parse(&d)
                .unwrap()
                .commands()
                .next()
                .unwrap()
                .unwrap_err();
            assert_eq!(e.offset(), 2, "{e}");
        }
        // A CONNECT cut short: 48 bytes needed, 10 there.
        let d = [0x0f, 0xff, 0x82, 0xff, 0, 1, 0, 0, 0, 0, 0, 0];
        let e = Datagram::parse(&d)
            .unwrap()
            .commands()
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnexpectedEof { needed: 38 }, 12)
        );
        // Trailing bytes too few for a command header.
        let d = [0x00, 0x01, 0x05, 0xff];
        let e = Datagram::parse(&d)
            .unwrap()
            .commands()
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnexpectedEof { needed: 2 }, 4)
        );
        // A compressed datagram must be decompressed first.
        let d = [0x40, 0x01, 0x12];
        let dg = Datagram::parse(&d).unwrap();
        assert!(dg.header().compressed);
        let mut it = dg.commands();
        assert!(it.next().unwrap().is_err());
        assert!(it.next().is_none());
    }
}
