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

/// Reads a packet of link type `link`; `orig_len` is its length on the wire.
pub(crate) fn parse(link: u32, data: &[u8], orig_len: u32) -> Parsed<'_> {
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
