//! [`Packet`]: one received value that owns its bytes as a [`bytes::Bytes`] (feature `bytes`).
//!
//! A [`VariantRef`] borrows its buffer, so it cannot leave the function that read it: it cannot
//! be a tokio-util codec's item, be sent to another task or be kept in a queue. A `Packet` can:
//! it holds a reference-counted [`Bytes`] (cheap to clone, `Send + Sync`), validated once when
//! the packet is made, and hands out a `VariantRef` in O(1) with [`Packet::value`]. When the
//! `Bytes` is a slice of a socket's read buffer (as [`codec::VarCodec`](crate::codec::VarCodec)
//! and WebSocket crates produce them) the handler reads the value in the very memory the
//! socket wrote: no copy from the read to the handler.
//!
//! ```
//! use bytes::Bytes;
//! use gdvariant::packet::Packet;
//! use gdvariant::ReadOptions;
//!
//! // A WebSocketPeer.put_var message: one value, no length prefix.
//! let message = Bytes::from_static(&[4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0]);
//! let packet = Packet::from_message(message.clone(), &ReadOptions::new())?;
//! assert_eq!(packet.value().as_str()?, "hi");
//! assert_eq!(packet.raw().as_ptr(), message.as_ptr());     // the same memory
//!
//! let shared = packet.clone();                              // a reference count, no copy
//! std::thread::spawn(move || assert_eq!(shared.value().as_str().unwrap(), "hi"))
//!     .join()
//!     .unwrap();
//! # Ok::<(), gdvariant::Error>(())
//! ```

use alloc::vec::Vec;
use core::fmt;

use bytes::Bytes;

use crate::encode::{encode_into, EncodeOptions};
use crate::error::{Error, ErrorKind, Result};
use crate::framing::{read_options_for, FrameOptions};
use crate::head::{head, Head};
use crate::owned::Variant;
use crate::reader::Reader;
use crate::types::{ReadOptions, VariantType};
use crate::value::VariantRef;
use crate::walker::validate_at;
use crate::writer::Writer;

/// One whole, validated value owning its bytes; see the [module docs](self).
///
/// Equality compares the bytes, the read options and the stream offset.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Packet {
    /// Exactly the value's bytes.
    bytes: Bytes,
    /// The absolute stream offset of the value (error offsets and `VariantRef::offset` count
    /// from the stream's start, as in [`framing`](crate::framing)).
    offset: usize,
    opts: ReadOptions,
}

impl Packet {
    /// A packet of one whole message that carries a single value with no length prefix: a
    /// `WebSocketPeer.put_var`, `PacketPeerUDP.put_var` or ENet packet, a `var_to_bytes`
    /// result. The whole value is validated (every bound, string, depth limit and the object
    /// policy of `opts`); bytes after the value are an [`ErrorKind::TrailingBytesInFrame`]
    /// error (the engine's `get_var` ignores them: to do the same use
    /// [`from_frame`](Packet::from_frame) with
    /// [`FrameOptions::with_allow_trailing`]).
    pub fn from_message(message: Bytes, opts: &ReadOptions) -> Result<Packet> {
        Packet::checked(message, 0, opts, false)
    }

    /// A packet of one frame's value bytes (what follows the length prefix), the value
    /// starting at absolute stream offset `offset`. Checked as the [`framing`](crate::framing)
    /// readers check a frame: its size against [`FrameOptions::max_frame`], the whole value
    /// with [`FrameOptions::read_options`], and bytes after the value unless
    /// [`FrameOptions::allow_trailing`] (then they are dropped from the packet).
    pub fn from_frame(frame: Bytes, offset: usize, opts: &FrameOptions) -> Result<Packet> {
        if frame.len() > opts.max_frame() {
            return Err(Error::new(
                ErrorKind::FrameTooLarge {
                    len: frame.len() as u64,
                    max: opts.max_frame() as u64,
                },
                offset.saturating_sub(4),
            ));
        }
        Packet::checked(frame, offset, &opts.read_options(), opts.allow_trailing())
    }

    /// Validates `bytes` (a value at stream offset `offset`) and keeps exactly the value.
    pub(crate) fn checked(
        bytes: Bytes,
        offset: usize,
        opts: &ReadOptions,
        allow_trailing: bool,
    ) -> Result<Packet> {
        let mut r = Reader::new(&bytes, offset);
        validate_at(&mut r, 0, opts)?;
        let len = r.pos();
        let extra = bytes.len() - len;
        if extra != 0 && !allow_trailing {
            return Err(Error::new(
                ErrorKind::TrailingBytesInFrame { extra },
                r.offset(),
            ));
        }
        let bytes = if extra == 0 {
            bytes
        } else {
            bytes.slice(..len)
        };
        Ok(Packet {
            bytes,
            offset,
            opts: *opts,
        })
    }

    /// A packet holding `v` as [`encode_with`](crate::encode_with) writes it (to send one
    /// value to many peers: every clone shares the bytes). It is read back with the dialect and
    /// object policy of `opts`.
    pub fn encode(v: &Variant, opts: &EncodeOptions) -> Result<Packet> {
        let mut out = Vec::new();
        encode_into(v, &mut out, opts)?;
        Packet::checked(Bytes::from(out), 0, &read_options_for(opts), false)
    }

    /// A packet holding the value that `f` writes with a streaming [`Writer`] (exactly one
    /// top-level value, every container closed).
    ///
    /// ```
    /// use gdvariant::{packet::Packet, EncodeOptions};
    /// let p = Packet::build(&EncodeOptions::new(), |w| {
    ///     w.begin_array(Some(2))?;
    ///     w.int(1)?;
    ///     w.string("two")?;
    ///     w.end()
    /// })?;
    /// assert_eq!(p.value().as_array()?.len(), 2);
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn build(
        opts: &EncodeOptions,
        f: impl FnOnce(&mut Writer) -> Result<()>,
    ) -> Result<Packet> {
        let mut w = Writer::new(*opts);
        f(&mut w)?;
        let out = w.finish()?;
        Packet::checked(Bytes::from(out), 0, &read_options_for(opts), false)
    }

    /// The value, O(1): a view into the packet's bytes (its size already known, so
    /// [`VariantRef::raw`] is O(1) too). Offsets are absolute in the stream the packet came
    /// from.
    #[inline]
    pub fn value(&self) -> VariantRef<'_> {
        let mut r = Reader::new(&self.bytes, self.offset);
        match head(&mut r, 0, &self.opts, false) {
            Ok(h) => VariantRef::new(h.sized_to(self.bytes.len()), 0, self.opts),
            // Unreachable: the bytes were validated with these options when the packet was
            // made. A Nil view rather than a panic.
            Err(_) => VariantRef::new(nil_head(self.offset), 0, self.opts),
        }
    }

    /// The value's exact bytes.
    #[inline]
    pub fn raw(&self) -> &[u8] {
        &self.bytes
    }

    /// The value's bytes as the shared [`Bytes`] (clone it to send the value on unchanged).
    #[inline]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The value's bytes.
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }

    /// The number of bytes of the value (at least 4: a value is never empty).
    #[inline]
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// The value's type, O(1).
    #[inline]
    pub fn ty(&self) -> VariantType {
        self.value().ty()
    }

    /// The absolute offset of the value in the stream it came from (0 for a message).
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The options the value was validated with (and is read with).
    #[inline]
    pub fn options(&self) -> ReadOptions {
        self.opts
    }

    /// A sub-tree of this packet (a `VariantRef` read from [`value`](Packet::value)) as a
    /// packet of its own that shares the bytes: no copy, to hand a part of a packet to another
    /// task. `None` if `v` does not point into this packet.
    ///
    /// ```
    /// use gdvariant::{packet::Packet, EncodeOptions, Variant};
    /// let p = Packet::encode(&Variant::from(vec![Variant::Int(1), Variant::from("x")]),
    ///                        &EncodeOptions::new())?;
    /// let second = p.value().as_array()?.get(1)?.unwrap();
    /// let sub = p.sub_packet(&second).unwrap();
    /// assert_eq!((sub.value().as_str()?, sub.offset()), ("x", 16));
    /// # Ok::<(), gdvariant::Error>(())
    /// ```
    pub fn sub_packet(&self, v: &VariantRef<'_>) -> Option<Packet> {
        let raw = v.raw().ok()?;
        let start = v.offset().checked_sub(self.offset)?;
        let same = self.bytes.get(start..start.checked_add(raw.len())?)?;
        if same.as_ptr() != raw.as_ptr() {
            return None;
        }
        Some(Packet {
            bytes: self.bytes.slice(start..start + raw.len()),
            offset: v.offset(),
            opts: self.opts,
        })
    }

    /// Reads the packet into `T` with serde (feature `serde`), borrowing strings and byte
    /// arrays from the packet; see [`from_variant_ref`](crate::de::from_variant_ref).
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use gdvariant::{packet::Packet, EncodeOptions};
    /// #[derive(serde::Deserialize)]
    /// struct Hello<'a> { name: &'a str, level: u8 }
    /// let p = Packet::build(&EncodeOptions::new(), |w| {
    ///     w.begin_dictionary(None)?;
    ///     w.string("name")?;
    ///     w.string("ada")?;
    ///     w.string("level")?;
    ///     w.int(3)?;
    ///     w.end()
    /// }).unwrap();
    /// let hello: Hello<'_> = p.deserialize().unwrap();
    /// assert_eq!((hello.name, hello.level), ("ada", 3));
    /// # }
    /// ```
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    pub fn deserialize<'de, T: serde::Deserialize<'de>>(&'de self) -> crate::de::Result<T> {
        crate::de::from_variant_ref(self.value())
    }
}

/// A Nil head at `offset`.
fn nil_head(offset: usize) -> Head<'static> {
    Head::nil(offset)
}

impl fmt::Debug for Packet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Packet")
            .field("ty", &self.ty())
            .field("offset", &self.offset)
            .field("len", &self.bytes.len())
            .field("dialect", &self.opts.dialect())
            .finish()
    }
}

impl AsRef<[u8]> for Packet {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<Packet> for Bytes {
    fn from(p: Packet) -> Bytes {
        p.bytes
    }
}
