//! The records of a pcap or pcapng file, read from a stream through a bounded buffer
//! (pcap-parser's streaming readers).

use std::io::{self, Read};
use std::vec::Vec;

use pcap_parser::pcapng::Block;
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{LegacyPcapReader, PcapBlockOwned, PcapError, PcapNGReader};

use super::error::{Error, Place};
use super::event::Timestamp;

/// The buffer a reader starts with.
const START_BUFFER: usize = 256 << 10;
/// The largest record read (a link layer's largest frame is 256 KiB, tcpdump's snap length):
/// past it the file is not a capture of network packets.
pub(crate) const MAX_RECORD: usize = 4 << 20;

/// One captured packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record<'a> {
    /// When it was captured.
    pub time: Timestamp,
    /// Its link type (LINKTYPE_* numbers).
    pub link: u32,
    /// The bytes captured.
    pub data: &'a [u8],
    /// Its length on the wire (more than `data` when the snap length cut it).
    pub orig_len: u32,
    /// The file offset of its record.
    pub offset: u64,
}

/// What reading the file gave.
pub(crate) enum Next<'a> {
    /// A packet.
    Record(Record<'a>),
    /// A block with no packet (headers, statistics, name resolution…).
    Other,
    /// A problem with a record; reading goes on with the next one.
    Bad(Error),
    /// A problem that ends the file.
    Fatal(Error),
    /// The end of the file.
    End,
}

/// The stream after its magic number was read: the magic, then the rest, in reads that fill the
/// buffer as far as the first read of the rest does (pcap-parser reads the header in one call).
struct Input<R> {
    magic: [u8; 4],
    given: usize,
    rest: R,
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (4 - self.given).min(buf.len());
        buf[..n].copy_from_slice(&self.magic[self.given..self.given + n]);
        self.given += n;
        if n == buf.len() {
            return Ok(n);
        }
        let mut total = n;
        // Fill the buffer: a short read is taken as the end of the stream by pcap-parser only
        // when it is 0, but a header split over reads fails to parse.
        while total < buf.len() {
            match self.rest.read(&mut buf[total..]) {
                Ok(0) => break,
                Ok(m) => total += m,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if total > 0 => {
                    let _ = e;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(total)
    }
}

enum Inner<R: Read> {
    Legacy(LegacyPcapReader<Input<R>>),
    Ng(PcapNGReader<Input<R>>),
}

/// A pcapng interface: its link type and timestamp units.
#[derive(Clone, Copy, Debug)]
struct Interface {
    link: u32,
    /// Timestamp units per second.
    resolution: u64,
    /// Seconds added to every timestamp.
    offset: i64,
}

/// The records of a capture file.
pub(crate) struct Records<R: Read> {
    inner: Inner<R>,
    /// Legacy pcap: the link type and whether timestamps are in nanoseconds.
    legacy: (u32, bool),
    /// Legacy pcap, once its header is read: whether its records' fields are big-endian.
    big_endian: Option<bool>,
    interfaces: Vec<Interface>,
    buffer: usize,
    done: bool,
    /// The file offset of the next block.
    offset: u64,
    /// The block taken by the last `next` (consumed on the next call).
    taken: usize,
}

fn describe<I>(e: &PcapError<I>) -> String {
    match e {
        PcapError::Eof => "end of file".into(),
        PcapError::BufferTooSmall => "record too long".into(),
        PcapError::UnexpectedEof | PcapError::Incomplete(_) => {
            "the capture ends inside a record (the file was cut)".into()
        }
        PcapError::ReadError => "read error".into(),
        PcapError::HeaderNotRecognized => "not a pcap or pcapng file".into(),
        PcapError::NomError(_, k) | PcapError::OwnedNomError(_, k) => {
            format!("malformed pcap record ({})", k.description())
        }
    }
}

/// Whether `magic` (a file's first bytes, at least 12 of them for pcapng) starts a pcap or
/// pcapng file: a pcap magic number (microsecond or nanosecond, either byte order), or a pcapng
/// section header block's type followed by its byte-order magic.
///
/// A pcapng file's first four bytes alone would read as a Godot 4 `Vector3i` header (type 10):
/// the byte-order magic 8 bytes later tells it apart.
///
/// ```
/// use gdvariant_multiplayer::capture::is_capture;
/// assert!(is_capture(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]));
/// assert!(is_capture(&[0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a]));
/// // var_to_bytes(Vector3i(1, 2, 3)): not a capture.
/// assert!(!is_capture(&[10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]));
/// ```
pub fn is_capture(magic: &[u8]) -> bool {
    match magic.first_chunk::<4>() {
        Some(&PCAPNG) => matches!(
            magic.get(8..12),
            Some([0x4d, 0x3c, 0x2b, 0x1a] | [0x1a, 0x2b, 0x3c, 0x4d])
        ),
        Some(first) => starts_capture(first),
        None => false,
    }
}

/// A pcapng section header block's type.
const PCAPNG: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// Whether a file's first four bytes are a pcap magic number or a pcapng section header
/// block's type (the reader then checks the rest).
fn starts_capture(first: &[u8; 4]) -> bool {
    matches!(
        first,
        [0xd4, 0xc3, 0xb2, 0xa1]
            | [0xa1, 0xb2, 0xc3, 0xd4]
            | [0x4d, 0x3c, 0xb2, 0xa1]
            | [0xa1, 0xb2, 0x3c, 0x4d]
            | &PCAPNG
    )
}

impl<R: Read> Records<R> {
    /// Reads the file's header.
    pub(crate) fn new(mut reader: R) -> Result<Records<R>, Error> {
        let mut magic = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match reader.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::new(format!("read error: {e}"), Place::File, 0)),
            }
        }
        if got < 4 || !starts_capture(&magic) {
            return Err(Error::new(
                "not a pcap or pcapng file (no pcap magic number or pcapng section header)",
                Place::File,
                0,
            ));
        }
        let input = Input {
            magic,
            given: 0,
            rest: reader,
        };
        let bad = |e: PcapError<&[u8]>| Error::new(describe(&e), Place::File, 0);
        let inner = if magic == PCAPNG {
            Inner::Ng(PcapNGReader::new(START_BUFFER, input).map_err(bad)?)
        } else {
            Inner::Legacy(LegacyPcapReader::new(START_BUFFER, input).map_err(bad)?)
        };
        Ok(Records {
            inner,
            legacy: (1, false),
            big_endian: None,
            interfaces: Vec::new(),
            buffer: START_BUFFER,
            done: false,
            offset: 0,
            taken: 0,
        })
    }

    fn it(&mut self) -> &mut dyn PcapReaderIterator {
        match &mut self.inner {
            Inner::Legacy(r) => r,
            Inner::Ng(r) => r,
        }
    }

    /// The next record (borrowed from the buffer until the next call).
    pub(crate) fn next(&mut self) -> Next<'_> {
        if self.done {
            return Next::End;
        }
        if self.taken > 0 {
            let n = self.taken;
            self.it().consume(n);
            self.offset += n as u64;
            self.taken = 0;
        }
        // A legacy record already whole in the buffer is read here, once (the loop parses it
        // to see that it is whole, then `block` again, to return it).
        if let Some(head) = self.whole_legacy_record() {
            return self.legacy_record(head);
        }
        // Refill until a whole block is in the buffer (or the file ends).
        loop {
            let status = match self.it().next() {
                Ok(_) => None,
                Err(PcapError::Eof) => Some(Next::End),
                Err(PcapError::Incomplete(_)) => {
                    if self.it().reader_exhausted() {
                        Some(self.fatal("the capture ends inside a record (the file was cut)"))
                    } else if let Err(e) = self.it().refill() {
                        let msg = describe(&e);
                        Some(self.fatal(&msg))
                    } else {
                        continue;
                    }
                }
                Err(PcapError::BufferTooSmall) => {
                    if self.buffer >= MAX_RECORD {
                        let msg = format!(
                            "a record longer than {} bytes: not a capture of network packets",
                            MAX_RECORD
                        );
                        Some(self.fatal(&msg))
                    } else {
                        self.buffer *= 2;
                        let size = self.buffer;
                        self.it().grow(size);
                        if let Err(e) = self.it().refill() {
                            let msg = describe(&e);
                            Some(self.fatal(&msg))
                        } else {
                            continue;
                        }
                    }
                }
                Err(PcapError::UnexpectedEof) => {
                    Some(self.fatal("the capture ends inside a record (the file was cut)"))
                }
                Err(e) => {
                    let msg = describe(&e);
                    Some(self.fatal(&msg))
                }
            };
            match status {
                Some(Next::End) => {
                    self.done = true;
                    return Next::End;
                }
                Some(other) => return other,
                None => break,
            }
        }
        self.block()
    }

    /// The header of the legacy pcap record at the buffer's start (after the file's header),
    /// if the whole record is in the buffer: its four fields (seconds, micro- or nanoseconds,
    /// captured and original length).
    fn whole_legacy_record(&self) -> Option<[u32; 4]> {
        let (Inner::Legacy(r), Some(big)) = (&self.inner, self.big_endian) else {
            return None;
        };
        let data = r.data();
        let head: &[u8; 16] = data.get(..16)?.try_into().ok()?;
        let field = |i: usize| {
            let b = [head[i], head[i + 1], head[i + 2], head[i + 3]];
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let head = [field(0), field(4), field(8), field(12)];
        (data.len() - 16 >= head[2] as usize).then_some(head)
    }

    /// The legacy record whose header [`whole_legacy_record`](Self::whole_legacy_record)
    /// read, as `block` gives it (pcap-parser's `parse_pcap_frame` reads the same 16 bytes),
    /// without pcap-parser's parse of it into a block.
    fn legacy_record(&mut self, [secs, frac, caplen, orig_len]: [u32; 4]) -> Next<'_> {
        let Inner::Legacy(r) = &self.inner else {
            return Next::Other;
        };
        let len = caplen as usize;
        self.taken = 16 + len;
        let nanos = if self.legacy.1 {
            frac
        } else {
            frac.saturating_mul(1000)
        };
        Next::Record(Record {
            time: Timestamp::new(u64::from(secs), nanos.min(999_999_999)),
            link: self.legacy.0,
            data: r.data().get(16..16 + len).unwrap_or_default(),
            orig_len,
            offset: self.offset,
        })
    }

    fn fatal(&mut self, what: &str) -> Next<'static> {
        self.done = true;
        Next::Fatal(Error::new(what, Place::File, self.offset))
    }

    /// Reads the block now whole at the buffer's start.
    fn block(&mut self) -> Next<'_> {
        let offset = self.offset;
        let (legacy, big_endian, interfaces) =
            (&mut self.legacy, &mut self.big_endian, &mut self.interfaces);
        let (size, block) = match &mut self.inner {
            Inner::Legacy(r) => r.next(),
            Inner::Ng(r) => r.next(),
        }
        .unwrap_or((0, PcapBlockOwned::LegacyHeader(Default::default())));
        self.taken = size;
        match block {
            PcapBlockOwned::LegacyHeader(h) => {
                *legacy = (h.network.0 as u32, h.is_nanosecond_precision());
                *big_endian = (!h.is_modified_format()).then(|| h.is_bigendian());
                Next::Other
            }
            PcapBlockOwned::Legacy(b) => {
                let nanos = if legacy.1 {
                    b.ts_usec
                } else {
                    b.ts_usec.saturating_mul(1000)
                };
                Next::Record(Record {
                    time: Timestamp::new(u64::from(b.ts_sec), nanos.min(999_999_999)),
                    link: legacy.0,
                    data: b.data,
                    orig_len: b.origlen,
                    offset,
                })
            }
            PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                interfaces.clear();
                Next::Other
            }
            PcapBlockOwned::NG(Block::InterfaceDescription(i)) => {
                let v = u32::from(i.if_tsresol & 0x7f);
                let resolution = if i.if_tsresol & 0x80 != 0 {
                    1u64.checked_shl(v)
                } else {
                    10u64.checked_pow(v)
                };
                if interfaces.len() < 1 << 16 {
                    interfaces.push(Interface {
                        link: i.linktype.0 as u32,
                        resolution: resolution.filter(|r| *r > 0).unwrap_or(1_000_000),
                        offset: i.if_tsoffset,
                    });
                }
                Next::Other
            }
            PcapBlockOwned::NG(Block::EnhancedPacket(p)) => {
                let Some(iface) = interfaces.get(p.if_id as usize).copied() else {
                    return Next::Bad(Error::new(
                        format!("packet of interface {}, which no block described", p.if_id),
                        Place::File,
                        offset,
                    ));
                };
                let ticks = (u64::from(p.ts_high) << 32) | u64::from(p.ts_low);
                let secs = ticks / iface.resolution;
                let frac = ticks % iface.resolution;
                let nanos =
                    (u128::from(frac) * 1_000_000_000 / u128::from(iface.resolution)) as u32;
                let secs = secs.saturating_add_signed(iface.offset);
                Next::Record(Record {
                    time: Timestamp::new(secs, nanos),
                    link: iface.link,
                    data: &p.data[..(p.caplen as usize).min(p.data.len())],
                    orig_len: p.origlen,
                    offset,
                })
            }
            PcapBlockOwned::NG(Block::SimplePacket(p)) => {
                let Some(iface) = interfaces.first().copied() else {
                    return Next::Bad(Error::new(
                        "simple packet block before any interface description",
                        Place::File,
                        offset,
                    ));
                };
                Next::Record(Record {
                    time: Timestamp::new(0, 0),
                    link: iface.link,
                    data: &p.data[..(p.origlen as usize).min(p.data.len())],
                    orig_len: p.origlen,
                    offset,
                })
            }
            PcapBlockOwned::NG(_) => Next::Other,
        }
    }
}
