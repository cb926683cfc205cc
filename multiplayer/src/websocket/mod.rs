//! Godot's multiplayer over WebSocket, read from (and written to) the byte streams: the HTTP/1.1
//! upgrade ([`handshake`]), RFC 6455 frames ([`FrameReader`], [`write_frame`]), whole messages
//! ([`MessageReader`]) and what Godot's `WebSocketMultiplayerPeer` puts in them ([`godot`]:
//! Godot 4's peer id message, Godot 3's 9-byte header and system messages).
//!
//! Everything works on one direction of a connection at a time, as its bytes arrive, so that a
//! passive observer (a capture's reassembled TCP streams) and a server can both use it: the
//! readers take input slices of any size, say how much they took, and never hold more than the
//! frame or message being assembled. Lengths read from the stream are checked against limits
//! (16 KiB heads, 8 MiB frames and messages by default) before anything is stored for them;
//! every error says what is wrong at which stream offset. Extensions (`permessage-deflate`) are
//! not supported: Godot negotiates none.
//!
//! Behind the `websocket` feature; needs only `alloc`.
//!
//! ```
//! use gdvariant_multiplayer::websocket::{self, godot, handshake, Message, MessageConfig, MessageReader, Opcode};
//! use gdvariant_multiplayer::{self as multiplayer, Packet};
//!
//! // A Godot 4 server's side of a connection: the 101 response, the client's id, then a
//! // SceneMultiplayer packet (a RAW one, as `send_bytes` writes it).
//! let mut stream = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
//!     Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n".to_vec();
//! websocket::write_frame(&mut stream, true, Opcode::Binary, None, &godot::peer_id_message(1234567));
//! websocket::write_frame(&mut stream, true, Opcode::Binary, None, &multiplayer::raw(b"hi")?);
//!
//! let (response, head) = handshake::parse_response(&stream)?.expect("a whole head");
//! assert!(response.is_upgrade());
//! let mut reader = MessageReader::with_offset(MessageConfig::server_to_client(), head as u64);
//! let mut godot4 = godot::Godot4Stream::server_to_client();
//! let mut input = &stream[head..];
//! let mut packets = Vec::new();
//! while let Some(received) = reader.read(&mut input)? {
//!     let Message::Binary(data) = received.message() else { continue };
//!     match godot4.message(data)? {
//!         godot::Godot4Message::PeerId(id) => assert_eq!(id, 1234567),
//!         godot::Godot4Message::Packet(p) => packets.push(p.to_vec()),
//!     }
//! }
//! assert_eq!(godot4.peer_id(), Some(1234567));
//! let Ok(Packet::Raw(raw)) = multiplayer::parse(&packets[0]) else { panic!() };
//! assert_eq!(raw.payload(), b"hi");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod frame;
pub mod godot;
pub mod handshake;
mod message;

pub use error::{Error, ErrorKind, Result};
pub use frame::{
    close_payload, write_frame, Close, FrameConfig, FrameHeader, FrameReader, Masking, Opcode,
    DEFAULT_MAX_FRAME, MAX_CONTROL_PAYLOAD,
};
pub use message::{Message, MessageConfig, MessageReader, Received, DEFAULT_MAX_MESSAGE};

#[cfg(test)]
mod tests;
