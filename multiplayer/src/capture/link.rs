//! A captured packet's link layer, IP header and UDP or TCP header (etherparse), down to the
//! transport payload.

use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, LaxNetSlice, LaxSlicedPacket, TransportSlice};

use super::error::{Error, Place};

/// LINKTYPE_NULL: BSD loopback, a 4-byte address family in the capturing host's byte order.
pub const LINKTYPE_NULL: u32 = 0;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// LINKTYPE_RAW: an IPv4 or IPv6 header first.
pub const LINKTYPE_RAW: u32 = 101;
/// LINKTYPE_LOOP: OpenBSD loopback, the address family in network byte order.
pub const LINKTYPE_LOOP: u32 = 108;
/// LINKTYPE_LINUX_SLL: Linux "cooked" capture (`tcpdump -i any`).
pub const LINKTYPE_LINUX_SLL: u32 = 113;
/// LINKTYPE_IPV4.
pub const LINKTYPE_IPV4: u32 = 228;
/// LINKTYPE_IPV6.
pub const LINKTYPE_IPV6: u32 = 229;
/// LINKTYPE_LINUX_SLL2: Linux "cooked" capture v2.
pub const LINKTYPE_LINUX_SLL2: u32 = 276;

/// The TCP header fields reassembly needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tcp {
    pub seq: u32,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
}

/// A UDP datagram or TCP segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment<'a> {
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// `None` for UDP.
    pub tcp: Option<Tcp>,
    pub payload: &'a [u8],
    /// The payload's length on the wire when the snap length cut it.
    pub cut: Option<usize>,
}

/// What a packet is.
pub(crate) enum Parsed<'a> {
    Segment(Segment<'a>),
    /// Not UDP or TCP over IP (ARP, ICMP…), or an IP fragment: nothing a Godot transport sends.
    Skip,
    Bad(Error),
}

fn bad(what: impl Into<String>, offset: u64) -> Parsed<'static> {
    Parsed::Bad(Error::new(what, Place::Packet, offset))
}

/// Whether packets of link type `link` are read ([`parse`] says why not, for the others).
pub(crate) fn supported(link: u32) -> bool {
    matches!(
        link,
        LINKTYPE_NULL
            | LINKTYPE_ETHERNET
            | LINKTYPE_RAW
            | LINKTYPE_LOOP
            | LINKTYPE_LINUX_SLL
            | LINKTYPE_IPV4
            | LINKTYPE_IPV6
            | LINKTYPE_LINUX_SLL2
    )
}

/// Reads a packet of link type `link`; `orig_len` is its length on the wire.
pub(crate) fn parse(link: u32, data: &[u8], orig_len: u32) -> Parsed<'_> {
    // Most packets are UDP or TCP straight over IP: their headers are read here, anything else
    // (VLAN tags, IPv6 extension headers, IP options' odd lengths, fragments, cut packets) as
    // etherparse reads it.
    let ip = match (link, data.get(12..14)) {
        // The IP version its EtherType names.
        (LINKTYPE_ETHERNET, Some([0x08, 0x00])) => data.get(14..).map(|ip| (ip, Some(4))),
        (LINKTYPE_ETHERNET, Some([0x86, 0xdd])) => data.get(14..).map(|ip| (ip, Some(6))),
        (LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6, _) => Some((data, None)),
        _ => None,
    };
    let seg = ip.and_then(|(ip, version)| {
        let v = ip.first()? >> 4;
        (version.unwrap_or(v) == v).then(|| direct(ip, data.len(), orig_len))?
    });
    if let Some(seg) = seg {
        return Parsed::Segment(seg);
    }
    sliced(link, data, orig_len)
}

/// The UDP datagram or TCP segment in `ip` when its headers are the plain kind (IPv4 without
/// fragmentation, IPv6 without extension headers, the IP length within the bytes, a whole UDP
/// or TCP header): what etherparse's lax slicing gives for them. `None`: anything else.
fn direct(ip: &[u8], captured: usize, orig_len: u32) -> Option<Segment<'_>> {
    let (src, dst, proto, payload) = match ip.first()? >> 4 {
        4 => {
            let h = ip.get(..20)?;
            let ihl = usize::from(h[0] & 15) * 4;
            let total = usize::from(u16::from_be_bytes([h[2], h[3]]));
            // Fragments (more fragments, or an offset) and lengths to be guessed: etherparse.
            if ihl < 20 || total < ihl || total > ip.len() || h[6] & 0x3f != 0 || h[7] != 0 {
                return None;
            }
            let src = IpAddr::from([h[12], h[13], h[14], h[15]]);
            let dst = IpAddr::from([h[16], h[17], h[18], h[19]]);
            (src, dst, h[9], &ip[ihl..total])
        }
        6 => {
            let h = ip.get(..40)?;
            let len = usize::from(u16::from_be_bytes([h[4], h[5]]));
            if len == 0 || 40 + len > ip.len() {
                return None;
            }
            let src: [u8; 16] = h[8..24].try_into().ok()?;
            let dst: [u8; 16] = h[24..40].try_into().ok()?;
            (
                IpAddr::from(src),
                IpAddr::from(dst),
                h[6],
                &ip[40..40 + len],
            )
        }
        _ => return None,
    };
    let (sp, dp, tcp, body) = match proto {
        17 => {
            let h = payload.get(..8)?;
            let len = usize::from(u16::from_be_bytes([h[4], h[5]]));
            // etherparse's lax UDP: a length past the bytes or below the header's is ignored.
            let end = if payload.len() < len || len < 8 {
                payload.len()
            } else {
                len
            };
            let ports = (
                u16::from_be_bytes([h[0], h[1]]),
                u16::from_be_bytes([h[2], h[3]]),
            );
            (ports.0, ports.1, None, &payload[8..end])
        }
        6 => {
            let h = payload.get(..20)?;
            let off = usize::from(h[12] >> 4) * 4;
            if off < 20 || off > payload.len() {
                return None;
            }
            let tcp = Tcp {
                seq: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
                syn: h[13] & 0x02 != 0,
                fin: h[13] & 0x01 != 0,
                rst: h[13] & 0x04 != 0,
            };
            let ports = (
                u16::from_be_bytes([h[0], h[1]]),
                u16::from_be_bytes([h[2], h[3]]),
            );
            (ports.0, ports.1, Some(tcp), &payload[off..])
        }
        _ => return None,
    };
    // A snap length cut the packet: the payload's length on the wire.
    let cut = ((captured as u64) < u64::from(orig_len))
        .then(|| body.len() + (orig_len as usize - captured));
    Some(Segment {
        src: SocketAddr::new(src, sp),
        dst: SocketAddr::new(dst, dp),
        tcp,
        payload: body,
        cut,
    })
}

/// [`parse`] through etherparse's lax slicing (every link layer and header it knows).
fn sliced(link: u32, data: &[u8], orig_len: u32) -> Parsed<'_> {
    let sliced = match link {
        LINKTYPE_ETHERNET => match LaxSlicedPacket::from_ethernet(data) {
            Ok(p) => p,
            Err(_) => return bad("Ethernet header cut short", 0),
        },
        LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 => ip(data),
        LINKTYPE_NULL | LINKTYPE_LOOP => {
            let Some((h, rest)) = data.split_first_chunk::<4>() else {
                return bad("loopback header cut short", 0);
            };
            let family = if link == LINKTYPE_LOOP {
                u32::from_be_bytes(*h)
            } else if u32::from_le_bytes(*h) < 256 {
                u32::from_le_bytes(*h)
            } else {
                u32::from_be_bytes(*h)
            };
            match family {
                2 | 24 | 28 | 30 => ip(rest),
                _ => return Parsed::Skip,
            }
        }
        LINKTYPE_LINUX_SLL => {
            let Some((h, rest)) = data.split_first_chunk::<16>() else {
                return bad("Linux cooked header cut short", 0);
            };
            LaxSlicedPacket::from_ether_type(EtherType(u16::from_be_bytes([h[14], h[15]])), rest)
        }
        LINKTYPE_LINUX_SLL2 => {
            let Some((h, rest)) = data.split_first_chunk::<20>() else {
                return bad("Linux cooked v2 header cut short", 0);
            };
            LaxSlicedPacket::from_ether_type(EtherType(u16::from_be_bytes([h[0], h[1]])), rest)
        }
        other => {
            return bad(
                format!("link type {other} is not supported (Ethernet, Linux cooked SLL / SLL2, loopback, raw IP)"),
                0,
            )
        }
    };
    let (src, dst, payload) = match &sliced.net {
        Some(LaxNetSlice::Ipv4(v4)) => {
            let h = v4.header();
            if v4.is_payload_fragmented() {
                return Parsed::Skip;
            }
            (
                IpAddr::from(h.source()),
                IpAddr::from(h.destination()),
                v4.payload(),
            )
        }
        Some(LaxNetSlice::Ipv6(v6)) => {
            let h = v6.header();
            if v6.is_payload_fragmented() {
                return Parsed::Skip;
            }
            (
                IpAddr::from(h.source()),
                IpAddr::from(h.destination()),
                v6.payload(),
            )
        }
        _ => {
            if let Some((e, _)) = &sliced.stop_err {
                if sliced.net.is_none() && data.len() >= 14 && link == LINKTYPE_ETHERNET {
                    let et = u16::from_be_bytes([data[12], data[13]]);
                    if et == 0x0800 || et == 0x86dd {
                        return bad(format!("IP header: {e}"), 14);
                    }
                }
            }
            return Parsed::Skip;
        }
    };
    let (tcp, body) = match &sliced.transport {
        Some(TransportSlice::Tcp(t)) => (
            Some(Tcp {
                seq: t.sequence_number(),
                syn: t.syn(),
                fin: t.fin(),
                rst: t.rst(),
            }),
            t.payload(),
        ),
        Some(TransportSlice::Udp(u)) => (None, u.payload()),
        _ => {
            let n = payload.ip_number.0;
            if (n == 6 || n == 17) && payload.incomplete {
                return bad("TCP or UDP header cut by the snap length", 0);
            }
            return Parsed::Skip;
        }
    };
    let (sp, dp) = match &sliced.transport {
        Some(TransportSlice::Tcp(t)) => (t.source_port(), t.destination_port()),
        Some(TransportSlice::Udp(u)) => (u.source_port(), u.destination_port()),
        _ => (0, 0),
    };
    // A snap length cut the packet: the payload's length on the wire.
    let cut = if (data.len() as u64) < u64::from(orig_len) {
        Some(body.len() + (orig_len as usize - data.len()))
    } else if payload.incomplete {
        Some(body.len() + 1)
    } else {
        None
    };
    Parsed::Segment(Segment {
        src: SocketAddr::new(src, sp),
        dst: SocketAddr::new(dst, dp),
        tcp,
        payload: body,
        cut,
    })
}

fn ip(data: &[u8]) -> LaxSlicedPacket<'_> {
    match LaxSlicedPacket::from_ip(data) {
        Ok(p) => p,
        Err(_) => LaxSlicedPacket {
            link: None,
            vlan: None,
            net: None,
            transport: None,
            stop_err: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// An Ethernet frame: IPv4 or IPv6, then UDP or TCP, then `payload`.
    fn frame(v6: bool, tcp: bool, payload: &[u8]) -> Vec<u8> {
        let mut t = Vec::new();
        if tcp {
            t.extend_from_slice(&[0x1f, 0x90, 0xc3, 0x50, 1, 2, 3, 4, 0, 0, 0, 0, 0x50, 0x18]);
            t.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0]);
        } else {
            let len = (8 + payload.len()) as u16;
            t.extend_from_slice(&[0x1f, 0x90, 0xc3, 0x50]);
            t.extend_from_slice(&len.to_be_bytes());
            t.extend_from_slice(&[0, 0]);
        }
        t.extend_from_slice(payload);
        let mut f = std::vec![0u8; 12];
        let proto = if tcp { 6 } else { 17 };
        if v6 {
            f.extend_from_slice(&[0x86, 0xdd, 0x60, 0, 0, 0]);
            f.extend_from_slice(&(t.len() as u16).to_be_bytes());
            f.extend_from_slice(&[proto, 64]);
            f.extend((0..32).map(|i| i as u8));
        } else {
            f.extend_from_slice(&[0x08, 0x00, 0x45, 0]);
            f.extend_from_slice(&(20 + t.len() as u16).to_be_bytes());
            f.extend_from_slice(&[0, 1, 0x40, 0, 64, proto, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2]);
        }
        f.extend_from_slice(&t);
        f
    }

    fn same(a: &Segment<'_>, b: &Parsed<'_>) -> bool {
        match b {
            Parsed::Segment(b) => {
                (a.src, a.dst, a.tcp, a.payload, a.cut) == (b.src, b.dst, b.tcp, b.payload, b.cut)
            }
            _ => false,
        }
    }

    /// Whatever the headers read directly, etherparse reads the same from them: random header
    /// bytes, lengths, truncations and snap lengths of IPv4 / IPv6, UDP / TCP frames, as
    /// Ethernet and raw IP.
    #[test]
    fn direct_reads_as_etherparse() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut direct_read, mut total) = (0, 0);
        for i in 0..200_000u32 {
            let (v6, tcp) = (i & 1 != 0, i & 2 != 0);
            let mut f = frame(v6, tcp, &[7u8; 40][..(rnd() % 41) as usize]);
            let header = if v6 { 14 + 40 } else { 14 + 20 } + if tcp { 20 } else { 8 };
            for _ in 0..rnd() % 4 {
                let at = (rnd() % header as u64) as usize;
                f[at] = match rnd() % 3 {
                    0 => rnd() as u8,
                    1 => f[at] ^ (1 << (rnd() % 8)),
                    _ => [0, 0xff, 4, 5, 6, 17, 0x45, 0x60][(rnd() % 8) as usize],
                };
            }
            if rnd() % 4 == 0 {
                f.truncate((rnd() % (f.len() as u64 + 1)) as usize);
            }
            let orig = f.len() as u32
                + if rnd() % 4 == 0 {
                    (rnd() % 100) as u32
                } else {
                    0
                };
            for (link, data) in [
                (LINKTYPE_ETHERNET, &f[..]),
                (LINKTYPE_RAW, f.get(14..).unwrap_or(&[])),
            ] {
                total += 1;
                if let Parsed::Segment(s) = parse(link, data, orig) {
                    if !same(&s, &sliced(link, data, orig)) {
                        panic!("{data:02x?} (orig {orig}): read {s:?}");
                    }
                    direct_read += 1;
                } else {
                    assert!(!matches!(sliced(link, data, orig), Parsed::Segment(_)));
                }
            }
        }
        // Most frames keep plain headers: the direct read is what is compared.
        assert!(direct_read > total / 4, "{direct_read} of {total}");
    }
}
