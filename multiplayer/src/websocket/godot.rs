//! What Godot's `WebSocketMultiplayerPeer` puts in WebSocket messages, both engine generations,
//! read and written.
//!
//! **Godot 4**: the server picks the client's id when it accepts the TCP connection; its first
//! binary message to the client is exactly 4 bytes, the id as an `i32` little-endian (the client
//! refuses another size or an id below 2 and closes). Every later message, both ways, is one raw
//! SceneMultiplayer packet (read with [`parse`](crate::parse)); relaying between clients is
//! SceneMultiplayer's own SYS RELAY. The engine drops an empty message with an error.
//!
//! **Godot 3**: every message starts with a 9-byte header `[type u8][from u32 LE][to i32 LE]`.
//! Type 0 is data: one `MultiplayerAPI` packet (read with [`godot3::parse`](crate::godot3::parse))
//! from peer `from` to `to` (0: everyone, negative: everyone but `-to`); the server relays a
//! client's data message unchanged to its other targets. Types 1 (peer added), 2 (peer removed)
//! and 3 (your id) are system messages the server sends, `from` 1 and `to` 0, followed by the
//! peer id as an `i32` LE (13 bytes; the engine ignores bytes after the id). When a client
//! connects the server sends it its id (3), then "peer 1 added" (1), then one "added" for every
//! other client, and tells the other clients of the new one.

use alloc::vec::Vec;

use super::error::{Error, ErrorKind, Result};

/// The length of Godot 4's peer id message.
pub const PEER_ID_MESSAGE_LEN: usize = 4;

/// Godot 3's header length: type, from, to.
pub const GODOT3_HEADER_LEN: usize = 9;

/// Godot 3's system message length: the header and a peer id.
pub const GODOT3_SYS_LEN: usize = 13;

/// Reads Godot 4's peer id message (the server's first message to a client): exactly 4 bytes,
/// an `i32` LE of at least 2, as the engine's client checks.
///
/// ```
/// use gdvariant_multiplayer::websocket::godot;
/// assert_eq!(godot::peer_id(&godot::peer_id_message(963735500))?, 963735500);
/// assert!(godot::peer_id(&[1, 0, 0, 0]).is_err());
/// assert!(godot::peer_id(&[2, 0, 0, 0, 0]).is_err());
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
pub fn peer_id(message: &[u8]) -> Result<i32> {
    let Ok(b) = <[u8; 4]>::try_from(message) else {
        let len = message.len();
        return Err(Error::new(ErrorKind::PeerIdSize { len }, 0));
    };
    match i32::from_le_bytes(b) {
        id @ 2.. => Ok(id),
        id => Err(Error::new(ErrorKind::InvalidPeerId(id), 0)),
    }
}

/// Godot 4's peer id message for `id` (the server sends it in a binary frame).
pub const fn peer_id_message(id: i32) -> [u8; 4] {
    id.to_le_bytes()
}

/// A Godot 4 message, as [`Godot4Stream::message`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Godot4Message<'a> {
    /// The server's first message: the id it gave the client.
    PeerId(i32),
    /// A SceneMultiplayer packet.
    Packet(&'a [u8]),
}

/// One direction of a Godot 4 connection, message by message: from the server, the first
/// message is the client's id; everything else is a SceneMultiplayer packet.
///
/// ```
/// use gdvariant_multiplayer::websocket::godot::{Godot4Message, Godot4Stream};
/// let mut down = Godot4Stream::server_to_client();
/// assert_eq!(down.message(&[0xcc, 0xeb, 0x71, 0x39])?, Godot4Message::PeerId(963767244));
/// assert_eq!(down.peer_id(), Some(963767244));
/// // Later 4-byte messages are packets: here a DESPAWN of net id 0 would be 5 bytes.
/// assert_eq!(down.message(&[3, 1, 2, 3])?, Godot4Message::Packet(&[3, 1, 2, 3]));
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Godot4Stream {
    from_server: bool,
    id: Option<i32>,
}

impl Godot4Stream {
    /// The server's messages to a client.
    pub const fn server_to_client() -> Godot4Stream {
        Godot4Stream {
            from_server: true,
            id: None,
        }
    }

    /// A client's messages to the server.
    pub const fn client_to_server() -> Godot4Stream {
        Godot4Stream {
            from_server: false,
            id: None,
        }
    }

    /// Whether this is the server's direction.
    pub const fn is_from_server(&self) -> bool {
        self.from_server
    }

    /// The client's id, once the server's first message gave it.
    pub const fn peer_id(&self) -> Option<i32> {
        self.id
    }

    /// Reads the next message's data (of a text or binary message: the engine reads both).
    pub fn message<'a>(&mut self, data: &'a [u8]) -> Result<Godot4Message<'a>> {
        if self.from_server && self.id.is_none() {
            let id = peer_id(data)?;
            self.id = Some(id);
            return Ok(Godot4Message::PeerId(id));
        }
        if data.is_empty() {
            return Err(Error::new(ErrorKind::EmptyPacket, 0));
        }
        Ok(Godot4Message::Packet(data))
    }
}

/// A Godot 3 system message: what it says about which peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Godot3Sys {
    /// `SYS_ADD`: a peer connected (peer 1: the connection to the server is complete).
    AddPeer = 1,
    /// `SYS_DEL`: a peer disconnected.
    DelPeer = 2,
    /// `SYS_ID`: the id the server gave this client.
    Id = 3,
}

impl Godot3Sys {
    /// The engine's name: `"SYS_ADD"`, `"SYS_DEL"`, `"SYS_ID"`.
    pub const fn name(self) -> &'static str {
        match self {
            Godot3Sys::AddPeer => "SYS_ADD",
            Godot3Sys::DelPeer => "SYS_DEL",
            Godot3Sys::Id => "SYS_ID",
        }
    }
}

/// A Godot 3 message: its header and what follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Godot3Message<'a> {
    /// Type 0: a `MultiplayerAPI` packet.
    Data {
        /// The sender's id.
        from: u32,
        /// The target: a peer, 0 for everyone, `-id` for everyone but `id`.
        to: i32,
        /// The packet (empty if the message was only a header: the engine's `MultiplayerAPI`
        /// rejects it).
        packet: &'a [u8],
    },
    /// Types 1–3: a system message from the server.
    Sys {
        /// What it says.
        sys: Godot3Sys,
        /// The header's `from` (1 from the engine).
        from: u32,
        /// The header's `to` (0 from the engine).
        to: i32,
        /// The peer it is about.
        id: i32,
    },
}

impl<'a> Godot3Message<'a> {
    /// The header's `from`.
    pub const fn from(&self) -> u32 {
        match *self {
            Godot3Message::Data { from, .. } | Godot3Message::Sys { from, .. } => from,
        }
    }

    /// The header's `to`.
    pub const fn to(&self) -> i32 {
        match *self {
            Godot3Message::Data { to, .. } | Godot3Message::Sys { to, .. } => to,
        }
    }

    /// The packet of a data message.
    pub const fn packet(&self) -> Option<&'a [u8]> {
        match *self {
            Godot3Message::Data { packet, .. } => Some(packet),
            Godot3Message::Sys { .. } => None,
        }
    }

    /// Checks what the engine's server checks of a client's message: data, from the client's
    /// own id `sender`.
    pub fn check_from_client(&self, sender: u32) -> Result<()> {
        match *self {
            Godot3Message::Sys { .. } => Err(Error::new(ErrorKind::Godot3SysFromClient, 0)),
            Godot3Message::Data { from, .. } if from != sender => {
                Err(Error::new(ErrorKind::Godot3WrongSender { from, sender }, 1))
            }
            Godot3Message::Data { .. } => Ok(()),
        }
    }
}

/// Reads a Godot 3 message: the 9-byte header, then a packet (type 0) or a peer id (types 1–3,
/// bytes after the id ignored as the engine ignores them).
///
/// ```
/// use gdvariant_multiplayer::websocket::godot::{self, Godot3Message, Godot3Sys};
/// let msg = godot::parse_godot3(&[3, 1, 0, 0, 0, 0, 0, 0, 0, 0x2a, 0x5e, 0x1b, 0x45])?;
/// assert_eq!(msg, Godot3Message::Sys { sys: Godot3Sys::Id, from: 1, to: 0, id: 0x451b5e2a });
/// let data = godot::godot3_data(0x451b5e2a, 1, &[4, 0xff]);
/// assert_eq!(godot::parse_godot3(&data)?.packet(), Some(&[4, 0xff][..]));
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
pub fn parse_godot3(message: &[u8]) -> Result<Godot3Message<'_>> {
    let short = |need| {
        let len = message.len();
        Error::new(ErrorKind::Godot3TooShort { len, need }, len as u64)
    };
    if message.len() < GODOT3_HEADER_LEN {
        return Err(short(GODOT3_HEADER_LEN));
    }
    let word = |at: usize| {
        [
            message[at],
            message[at + 1],
            message[at + 2],
            message[at + 3],
        ]
    };
    let from = u32::from_le_bytes(word(1));
    let to = i32::from_le_bytes(word(5));
    let sys = match message[0] {
        0 => {
            return Ok(Godot3Message::Data {
                from,
                to,
                packet: &message[GODOT3_HEADER_LEN..],
            })
        }
        1 => Godot3Sys::AddPeer,
        2 => Godot3Sys::DelPeer,
        3 => Godot3Sys::Id,
        t => return Err(Error::new(ErrorKind::Godot3UnknownType(t), 0)),
    };
    if message.len() < GODOT3_SYS_LEN {
        return Err(short(GODOT3_SYS_LEN));
    }
    let id = i32::from_le_bytes(word(GODOT3_HEADER_LEN));
    Ok(Godot3Message::Sys { sys, from, to, id })
}

/// A Godot 3 data message: the header (type 0, `from`, `to`) and the packet.
pub fn godot3_data(from: u32, to: i32, packet: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(GODOT3_HEADER_LEN + packet.len());
    out.push(0);
    out.extend_from_slice(&from.to_le_bytes());
    out.extend_from_slice(&to.to_le_bytes());
    out.extend_from_slice(packet);
    out
}

/// A Godot 3 system message as the engine's server writes it: `from` 1, `to` 0, the peer id.
pub fn godot3_sys(sys: Godot3Sys, id: i32) -> [u8; GODOT3_SYS_LEN] {
    let mut out = [0; GODOT3_SYS_LEN];
    out[0] = sys as u8;
    out[1] = 1;
    out[9..].copy_from_slice(&id.to_le_bytes());
    out
}
