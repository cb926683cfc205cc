//! What went wrong reading a capture, and where.

use core::fmt;
use std::string::String;

/// Where an [`Error`]'s offset counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The capture file (the record or block that holds the problem).
    File,
    /// The record's packet bytes (from the link-layer header).
    Packet,
    /// One direction of a TCP connection, counted from its first byte after the SYN (or after
    /// the first segment seen).
    Stream,
    /// A UDP datagram's payload (an ENet datagram, a `PacketPeerUDP` value).
    Datagram,
    /// A message (a WebSocket message's data, a reassembled ENet packet, a `put_var` value).
    Message,
}

impl Place {
    /// What the offset is an offset of, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Place::File => "file",
            Place::Packet => "packet",
            Place::Stream => "stream",
            Place::Datagram => "datagram",
            Place::Message => "message",
        }
    }
}

/// A problem met in a capture: what it is (a sentence), where it is. Reading goes on after every
/// one of them but [`Place::File`] errors that stop the file (a header that is not pcap or pcapng,
/// a record too long to be real, a read error).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    what: String,
    place: Place,
    offset: u64,
}

impl Error {
    /// An error saying `what` at `offset` of `place`.
    pub fn new(what: impl Into<String>, place: Place, offset: u64) -> Error {
        Error {
            what: what.into(),
            place,
            offset,
        }
    }

    /// What is wrong.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// What the offset counts in.
    pub const fn place(&self) -> Place {
        self.place
    }

    /// Where.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// A gdvariant or multiplayer error at `base` + its offset of `place`.
    pub(crate) fn from_gd(e: &gdvariant::Error, place: Place, base: u64) -> Error {
        Error::new(e.kind().to_string(), place, base + e.offset() as u64)
    }

    /// A WebSocket error (its offset is a stream offset).
    pub(crate) fn from_ws(e: &crate::websocket::Error) -> Error {
        Error::new(e.kind().to_string(), Place::Stream, e.offset())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {} offset {}",
            self.what,
            self.place.name(),
            self.offset
        )
    }
}

impl std::error::Error for Error {}
