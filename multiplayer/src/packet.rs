//! A SceneMultiplayer packet read whole: [`Packet`], one variant per command, and the functions
//! that read one.

use gdvariant::error::Result;

use crate::cache::{ConfirmPath, SimplifyPath};
use crate::replication::{Delta, Despawn, Spawn, Sync};
use crate::rpc::RemoteCall;
use crate::sys::{Raw, Sys, SysKind, SYS_CMD_SIZE};
use crate::value::Values;
use crate::wire::{invalid, Command, PacketOptions, Span, DELTA_FLAG};

/// One SceneMultiplayer packet, by command: see the [crate docs](crate).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Packet<'a> {
    RemoteCall(RemoteCall<'a>),
    SimplifyPath(SimplifyPath<'a>),
    ConfirmPath(ConfirmPath<'a>),
    Raw(Raw<'a>),
    Spawn(Spawn<'a>),
    Despawn(Despawn<'a>),
    Sync(Sync<'a>),
    Delta(Delta<'a>),
    Sys(Sys<'a>),
}

/// Reads a Godot 4 packet with the engine's defaults, in O(1): its fixed fields are read and its
/// counts, sizes and offsets bounded by the packet; values are read as you iterate them (see
/// [`Packet::validate`] to check them all). See [`parse_with`].
pub fn parse(bytes: &[u8]) -> Result<Packet<'_>> {
    parse_with(bytes, &PacketOptions::new())
}

/// Reads a Godot 4 packet with the given options.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, Packet, PacketOptions, Protocol};
/// // A 4.2 peer confirms the path "Player".
/// let bytes = b"\x02\x01Player\0";
/// let opts = PacketOptions::new().with_protocol(Protocol::V4_0);
/// let Packet::ConfirmPath(c) = multiplayer::parse_with(bytes, &opts)? else { unreachable!() };
/// assert_eq!(c.path().unwrap().as_str(), Some("Player"));
/// // The same bytes are not a 4.3+ CONFIRM_PATH, which is exactly 6 bytes long.
/// assert!(multiplayer::parse(bytes).is_err());
/// # Ok::<(), gdvariant::Error>(())
/// ```
pub fn parse_with<'a>(bytes: &'a [u8], opts: &PacketOptions) -> Result<Packet<'a>> {
    parse_at(bytes, 0, opts, true)
}

/// Reads a packet and checks every value in it (arguments, spawn state, synchronizer values, a
/// relayed packet's), as the receiving engine decodes them; see [`Packet::validate`].
pub fn validate(bytes: &[u8]) -> Result<()> {
    parse(bytes)?.validate()
}

/// Parses the packet `bytes`, whose first byte is at absolute offset `base`; `sys` says whether
/// SYS packets are allowed (not inside a relay).
pub(crate) fn parse_at<'a>(
    bytes: &'a [u8],
    base: usize,
    opts: &PacketOptions,
    sys: bool,
) -> Result<Packet<'a>> {
    let Some(&first) = bytes.first() else {
        return Err(crate::cursor::eof(base, 1));
    };
    let p = Span { data: bytes, base };
    Ok(match Command::from_byte(first) {
        Command::RemoteCall => Packet::RemoteCall(RemoteCall::parse(p, opts)?),
        Command::SimplifyPath => Packet::SimplifyPath(SimplifyPath::parse(p)?),
        Command::ConfirmPath => Packet::ConfirmPath(ConfirmPath::parse(p, opts.protocol)?),
        Command::Raw => Packet::Raw(Raw::parse(p)?),
        Command::Spawn => Packet::Spawn(Spawn::parse(p, opts)?),
        Command::Despawn => Packet::Despawn(Despawn::parse(p)?),
        Command::Sync if first & DELTA_FLAG != 0 => Packet::Delta(Delta::parse(p, opts)?),
        Command::Sync => Packet::Sync(Sync::parse(p, opts)?),
        Command::Sys if !sys => return Err(invalid("SYS packet inside a relay", base)),
        Command::Sys => Packet::Sys(Sys::parse(p, opts)?),
    })
}

impl<'a> Packet<'a> {
    /// The packet's command.
    pub fn command(&self) -> Command {
        Command::from_byte(self.bytes()[0])
    }

    /// The four flag bits of the first byte (bits 4–7), shifted down.
    pub fn flags(&self) -> u8 {
        self.bytes()[0] >> 4
    }

    /// The whole packet, borrowed from the input.
    pub fn bytes(&self) -> &'a [u8] {
        self.span().data
    }

    /// The absolute offset of the packet's first byte (non-zero for a relayed packet).
    pub fn offset(&self) -> usize {
        self.span().base
    }

    /// The name of what the packet is: the command's, `"DELTA"` for a delta SYNC, and the SYS
    /// sub-command's for SYS (`"AUTH"`, `"AUTH_COMPLETE"`, `"ADD_PEER"`, `"DEL_PEER"`,
    /// `"RELAY"`).
    pub fn name(&self) -> &'static str {
        match self {
            Packet::Delta(_) => "DELTA",
            Packet::Sys(s) => s.kind().name(),
            p => p.command().name(),
        }
    }

    /// Checks every value in the packet (as the receiving engine decodes them: each value whole,
    /// strings' UTF-8, depth, objects), a relayed packet's too. The engine's leniencies are kept:
    /// bytes after an RPC's arguments are ignored, as the engine ignores them. A SYNC or DELTA
    /// entry's values are read to the end of the entry (DELTA: at most one per bit of the mask),
    /// as only the receiver's configuration says how many there are.
    pub fn validate(&self) -> Result<()> {
        match self {
            Packet::RemoteCall(c) => check_all(c.args()),
            Packet::Spawn(s) => {
                check_all(s.custom_arg_values())?;
                check_all(s.state())
            }
            Packet::Sync(s) => {
                for e in s.entries() {
                    check_all(e?.values())?;
                }
                Ok(())
            }
            Packet::Delta(d) => {
                for e in d.entries() {
                    let e = e?;
                    // The values fill the entry (the engine rejects an entry they do not fill);
                    // there is one per changed property, so at most one per bit of the mask.
                    let mut n = 0;
                    for v in e.values().checked() {
                        let v = v?;
                        n += 1;
                        if n > e.mask().count_ones() {
                            return Err(invalid(
                                "more DELTA values than bits in the mask",
                                v.offset(),
                            ));
                        }
                    }
                }
                Ok(())
            }
            Packet::Sys(s) => match s.inner() {
                Some(inner) => inner?.validate(),
                None => Ok(()),
            },
            Packet::SimplifyPath(_)
            | Packet::ConfirmPath(_)
            | Packet::Raw(_)
            | Packet::Despawn(_) => Ok(()),
        }
    }

    fn span(&self) -> Span<'a> {
        match self {
            Packet::RemoteCall(p) => p.p,
            Packet::SimplifyPath(p) => p.p,
            Packet::ConfirmPath(p) => p.p,
            Packet::Raw(p) => p.p,
            Packet::Spawn(p) => p.p,
            Packet::Despawn(p) => p.p,
            Packet::Sync(p) => p.p,
            Packet::Delta(p) => p.p,
            Packet::Sys(p) => p.p,
        }
    }
}

/// Checks every value of a sequence, reading each byte once.
fn check_all(values: Values<'_>) -> Result<()> {
    for v in values.checked() {
        v?;
    }
    Ok(())
}

/// The relayed packet of a SYS RELAY.
impl<'a> Sys<'a> {
    /// The relayed packet of RELAY (offsets stay those of the outer packet). A SYS packet inside
    /// a relay is an error, as for the engine.
    pub fn inner(&self) -> Option<Result<Packet<'a>>> {
        (self.kind == SysKind::Relay).then(|| {
            let s = self.p.slice(SYS_CMD_SIZE, self.p.data.len());
            parse_at(s.data, s.base, &self.opts, false)
        })
    }
}
