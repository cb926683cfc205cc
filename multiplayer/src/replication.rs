//! `MultiplayerSpawner` and `MultiplayerSynchronizer` traffic (`SceneReplicationInterface`):
//! `SPAWN`, `DESPAWN`, `SYNC` and `DELTA`.

use alloc::vec::Vec;

use super::value::{Arg, ValueRef, Values};
use crate::cursor::Cursor;
use crate::wire::{invalid, len_u32, put_cstr, Command, PacketOptions, Span, WireStr, DELTA_FLAG};
use gdvariant::encode::EncodeOptions;
use gdvariant::error::{Error, Result};
use gdvariant::types::Dialect;

/// `[04][scene][u32 spawner][u32 net id][u32 sync count][u32 name length]`.
const SPAWN_HEADER: usize = 18;
/// The scene index of a custom spawn (`MultiplayerSpawner::INVALID_ID`).
const CUSTOM_SCENE: u8 = 0xFF;
/// Bit 31 of a synchronizer's net id: the rest is a path cache id.
const PATH_ID: u32 = 0x8000_0000;
/// The engine ignores SYNC and DELTA packets shorter than this.
const SYNC_MIN: usize = 11;

/// A `SPAWN` packet: a `MultiplayerSpawner` (named by its path cache id) spawned a node.
///
/// ```
/// use gdvariant_multiplayer::{self as multiplayer, Packet, SpawnBuilder};
/// use gdvariant::{Variant, Vector2};
/// // Spawnable scene 0 named "Bullet" as net id 5, with one synchronizer (net id 6) whose spawn
/// // properties are a position and a speed.
/// let bytes = SpawnBuilder::new(2, 5, "Bullet")
///     .scene(0)?
///     .sync_ids(&[6])
///     .state(&Variant::Vector2(Vector2::new(1.0, 2.0)))?
///     .state(&Variant::Int(300))?
///     .finish()?;
/// let Packet::Spawn(s) = multiplayer::parse(&bytes)? else { unreachable!() };
/// assert_eq!((s.scene(), s.spawner(), s.net_id()), (Some(0), 2, 5));
/// assert_eq!(s.name().as_str(), Some("Bullet"));
/// assert_eq!(s.sync_ids().collect::<Vec<_>>(), [6]);
/// assert_eq!(s.state().nth(1).unwrap()?.as_i64()?, 300);
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Spawn<'a> {
    pub(crate) p: Span<'a>,
    sync_count: usize,
    name_at: usize,
    name_len: usize,
    /// The custom argument's bytes, for a custom spawn.
    custom: Option<(usize, usize)>,
    state_at: usize,
    opts: PacketOptions,
}

impl<'a> Spawn<'a> {
    pub(crate) fn parse(p: Span<'a>, opts: &PacketOptions) -> Result<Spawn<'a>> {
        p.need(SPAWN_HEADER)?;
        let sync_count = u64::from(p.u32_at(10));
        let name_len = u64::from(p.u32_at(14));
        let room = (p.data.len() - SPAWN_HEADER) as u64;
        if sync_count * 4 + name_len > room {
            return Err(invalid(
                "spawn sync ids and name longer than the packet",
                p.base + 10,
            ));
        }
        if name_len == 0 {
            return Err(invalid("spawn name length 0", p.base + 14));
        }
        // Both fit in the packet, so in usize.
        let (sync_count, name_len) = (sync_count as usize, name_len as usize);
        let name_at = SPAWN_HEADER + 4 * sync_count;
        let mut at = name_at + name_len;
        let mut custom = None;
        if p.byte(1) == CUSTOM_SCENE {
            p.need(at + 4)?;
            let size = p.u32_at(at) as usize;
            if size > p.data.len() - at - 4 {
                return Err(invalid("custom spawn argument past the end", p.base + at));
            }
            custom = Some((at + 4, size));
            at += 4 + size;
        }
        Ok(Spawn {
            p,
            sync_count,
            name_at,
            name_len,
            custom,
            state_at: at,
            opts: *opts,
        })
    }

    /// The index of the spawned scene in the spawner's list; `None` for a custom spawn
    /// (`spawn_function`, index `0xFF`).
    pub fn scene(&self) -> Option<u8> {
        Some(self.p.byte(1)).filter(|&s| s != CUSTOM_SCENE)
    }

    /// The spawner's path cache id.
    pub fn spawner(&self) -> u32 {
        self.p.u32_at(2)
    }

    /// The net id of the spawned node (DESPAWN names it by this).
    pub fn net_id(&self) -> u32 {
        self.p.u32_at(6)
    }

    /// The net ids of the spawned node's synchronizers (the ones the spawner's authority
    /// controls), which their SYNC and DELTA entries carry.
    pub fn sync_ids(&self) -> impl ExactSizeIterator<Item = u32> + Clone + 'a {
        let p = self.p;
        (0..self.sync_count).map(move |i| p.u32_at(SPAWN_HEADER + 4 * i))
    }

    /// The spawned node's name (its length field counts a NUL).
    pub fn name(&self) -> WireStr<'a> {
        WireStr::read(self.p.slice(self.name_at, self.name_at + self.name_len))
    }

    /// A custom spawn's argument (the `data` of `MultiplayerSpawner.spawn(data)`): one compressed
    /// value inside its size field's bytes (bytes after it are ignored, as by the engine).
    pub fn custom_arg(&self) -> Result<Option<ValueRef<'a>>> {
        let Some((at, size)) = self.custom else {
            return Ok(None);
        };
        let s = self.p.slice(at, at + size);
        let mut r = Cursor::new(s.data, s.base);
        super::value::read_compressed(&mut r, &self.opts.values_g4()).map(Some)
    }

    /// The custom argument as a sequence of one value (none for a scene spawn).
    pub(crate) fn custom_arg_values(&self) -> Values<'a> {
        let (at, size, count) = match self.custom {
            Some((at, size)) => (at, size, 1),
            None => (0, 0, 0),
        };
        let s = self.p.slice(at, at + size);
        Values::compressed(s.data, s.base, Some(count), self.opts.values_g4())
    }

    /// The spawn state: the compressed values of the spawn properties of each synchronizer, in
    /// the order of [`sync_ids`](Spawn::sync_ids), to the end of the packet (how many belong to
    /// each synchronizer only its configuration says: see [`Session`](super::Session)).
    pub fn state(&self) -> Values<'a> {
        let s = self.p.slice(self.state_at, self.p.data.len());
        Values::compressed(s.data, s.base, None, self.opts.values_g4())
    }
}

/// A `DESPAWN` packet: the node with [`net_id`](Despawn::net_id) was despawned.
#[derive(Clone, Copy, Debug)]
pub struct Despawn<'a> {
    pub(crate) p: Span<'a>,
}

impl<'a> Despawn<'a> {
    pub(crate) fn parse(p: Span<'a>) -> Result<Despawn<'a>> {
        p.need(5)?;
        Ok(Despawn { p })
    }

    /// The despawned node's net id, as its SPAWN gave it.
    pub fn net_id(&self) -> u32 {
        self.p.u32_at(1)
    }
}

/// A `SYNC` packet: the "always" properties of synchronizers, sent unreliably every sync
/// interval, stamped with a 16-bit time the receiver uses to drop stale state.
#[derive(Clone, Copy, Debug)]
pub struct Sync<'a> {
    pub(crate) p: Span<'a>,
    opts: PacketOptions,
}

impl<'a> Sync<'a> {
    pub(crate) fn parse(p: Span<'a>, opts: &PacketOptions) -> Result<Sync<'a>> {
        p.need(SYNC_MIN)?;
        Ok(Sync { p, opts: *opts })
    }

    /// The sync time (a counter per receiving peer, wrapping at 2^16).
    pub fn time(&self) -> u16 {
        self.p.u16_at(1)
    }

    /// The entries, read lazily.
    pub fn entries(&self) -> SyncEntries<'a> {
        SyncEntries {
            p: self.p,
            at: 3,
            opts: self.opts,
            done: false,
        }
    }
}

/// One synchronizer's state in a [`Sync`] packet.
#[derive(Clone, Copy, Debug)]
pub struct SyncEntry<'a> {
    net_id: u32,
    values: Span<'a>,
    opts: PacketOptions,
}

impl<'a> SyncEntry<'a> {
    /// The synchronizer's net id: from its node's SPAWN, or bit 31 and a path cache id.
    pub fn net_id(&self) -> u32 {
        self.net_id
    }

    /// The synchronizer's path cache id, when the net id is one (bit 31 set).
    pub fn path_id(&self) -> Option<u32> {
        (self.net_id & PATH_ID != 0).then_some(self.net_id & !PATH_ID)
    }

    /// The byte size of the values.
    pub fn size(&self) -> usize {
        self.values.data.len()
    }

    /// The values' bytes.
    #[cfg(feature = "server")]
    pub(crate) fn value_bytes(&self) -> &'a [u8] {
        self.values.data
    }

    /// The values of the synchronizer's "always" properties, in its configuration's order, to
    /// the end of the entry (the receiver reads as many as it has properties and ignores the
    /// rest).
    pub fn values(&self) -> Values<'a> {
        Values::compressed(
            self.values.data,
            self.values.base,
            None,
            self.opts.values_g4(),
        )
    }
}

/// The entries of a [`Sync`] packet: `[u32 net id][u32 size][values]` while more than 8 bytes
/// remain, as the engine reads them (up to 8 bytes at the end are ignored: see
/// [`rest`](SyncEntries::rest)).
#[derive(Clone, Debug)]
pub struct SyncEntries<'a> {
    p: Span<'a>,
    at: usize,
    opts: PacketOptions,
    done: bool,
}

impl<'a> SyncEntries<'a> {
    /// The bytes after the last entry (once the iterator is done), which the engine ignores.
    pub fn rest(&self) -> &'a [u8] {
        self.p.data.get(self.at..).unwrap_or(&[])
    }
}

impl<'a> Iterator for SyncEntries<'a> {
    type Item = Result<SyncEntry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.at + 8 >= self.p.data.len() {
            self.done = true;
            return None;
        }
        let net_id = self.p.u32_at(self.at);
        let values = match entry_values(self.p, self.at + 4) {
            Ok(v) => v,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.at = values.base - self.p.base + values.data.len();
        Some(Ok(SyncEntry {
            net_id,
            values,
            opts: self.opts,
        }))
    }
}

impl core::iter::FusedIterator for SyncEntries<'_> {}

/// The values of an entry whose u32 size is at relative `at`.
fn entry_values(p: Span<'_>, at: usize) -> Result<Span<'_>> {
    let size = p.u32_at(at) as usize;
    let from = at + 4;
    if size > p.data.len() - from {
        return Err(invalid("synchronizer entry size past the end", p.base + at));
    }
    Ok(p.slice(from, from + size))
}

/// A `DELTA` packet (a SYNC with flag 0, Godot 4.1+): the "on change" properties of
/// synchronizers that changed, sent reliably.
#[derive(Clone, Copy, Debug)]
pub struct Delta<'a> {
    pub(crate) p: Span<'a>,
    opts: PacketOptions,
}

impl<'a> Delta<'a> {
    pub(crate) fn parse(p: Span<'a>, opts: &PacketOptions) -> Result<Delta<'a>> {
        p.need(SYNC_MIN)?;
        Ok(Delta { p, opts: *opts })
    }

    /// The entries, read lazily.
    pub fn entries(&self) -> DeltaEntries<'a> {
        DeltaEntries {
            p: self.p,
            at: 1,
            opts: self.opts,
            done: false,
        }
    }
}

/// One synchronizer's changes in a [`Delta`] packet.
#[derive(Clone, Copy, Debug)]
pub struct DeltaEntry<'a> {
    net_id: u32,
    mask: u64,
    values: Span<'a>,
    opts: PacketOptions,
}

impl<'a> DeltaEntry<'a> {
    /// The synchronizer's net id (see [`SyncEntry::net_id`]).
    pub fn net_id(&self) -> u32 {
        self.net_id
    }

    /// The synchronizer's path cache id, when the net id is one (bit 31 set).
    pub fn path_id(&self) -> Option<u32> {
        (self.net_id & PATH_ID != 0).then_some(self.net_id & !PATH_ID)
    }

    /// Which "on change" properties changed: bit `i` for the `i`-th in the synchronizer's
    /// configuration.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// The byte size of the values.
    pub fn size(&self) -> usize {
        self.values.data.len()
    }

    /// The values' bytes.
    #[cfg(feature = "server")]
    pub(crate) fn value_bytes(&self) -> &'a [u8] {
        self.values.data
    }

    /// The values of the changed properties, in order; they fill the entry exactly (the engine
    /// rejects an entry they do not fill).
    pub fn values(&self) -> Values<'a> {
        Values::compressed(
            self.values.data,
            self.values.base,
            None,
            self.opts.values_g4(),
        )
    }
}

/// The entries of a [`Delta`] packet: `[u32 net id][u64 mask][u32 size][values]` while more than
/// 16 bytes remain, as the engine reads them.
#[derive(Clone, Debug)]
pub struct DeltaEntries<'a> {
    p: Span<'a>,
    at: usize,
    opts: PacketOptions,
    done: bool,
}

impl<'a> DeltaEntries<'a> {
    /// The bytes after the last entry (once the iterator is done), which the engine ignores.
    pub fn rest(&self) -> &'a [u8] {
        self.p.data.get(self.at..).unwrap_or(&[])
    }
}

impl<'a> Iterator for DeltaEntries<'a> {
    type Item = Result<DeltaEntry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.at + 16 >= self.p.data.len() {
            self.done = true;
            return None;
        }
        let net_id = self.p.u32_at(self.at);
        let mask = self.p.u64_at(self.at + 4);
        let values = match entry_values(self.p, self.at + 12) {
            Ok(v) => v,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.at = values.base - self.p.base + values.data.len();
        Some(Ok(DeltaEntry {
            net_id,
            mask,
            values,
            opts: self.opts,
        }))
    }
}

impl core::iter::FusedIterator for DeltaEntries<'_> {}

/// What a [`SpawnBuilder`] spawns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnScene {
    /// A scene of the spawner's list, by index (0–254).
    Index(u8),
    /// A custom spawn (`spawn_function`), whose argument follows.
    Custom,
}

/// Builds a `SPAWN` packet as the engine's `_make_spawn_packet` does.
#[derive(Clone, Debug)]
pub struct SpawnBuilder<'n> {
    spawner: u32,
    net_id: u32,
    name: &'n str,
    scene: SpawnScene,
    sync_ids: Vec<u32>,
    custom: Vec<u8>,
    state: Vec<u8>,
    opts: EncodeOptions,
}

impl<'n> SpawnBuilder<'n> {
    /// A spawn by the spawner with path cache id `spawner` of the node `name` as `net_id`; scene
    /// 0 until [`scene`](SpawnBuilder::scene) or [`custom`](SpawnBuilder::custom) says otherwise.
    pub fn new(spawner: u32, net_id: u32, name: &'n str) -> SpawnBuilder<'n> {
        SpawnBuilder {
            spawner,
            net_id,
            name,
            scene: SpawnScene::Index(0),
            sync_ids: Vec::new(),
            custom: Vec::new(),
            state: Vec::new(),
            opts: EncodeOptions::new(),
        }
    }

    /// Chooses how state values are encoded (double precision, full objects). The custom
    /// argument never carries full objects, as in the engine.
    #[must_use]
    pub fn with_options(mut self, opts: EncodeOptions) -> SpawnBuilder<'n> {
        self.opts = opts.with_dialect(Dialect::Godot4);
        self
    }

    /// Spawns scene `index` of the spawner's list (`0xFF` is reserved for custom spawns).
    pub fn scene(mut self, index: u8) -> Result<SpawnBuilder<'n>> {
        if index == CUSTOM_SCENE {
            return Err(invalid("scene index 0xFF is the custom spawn's", 1));
        }
        self.scene = SpawnScene::Index(index);
        Ok(self)
    }

    /// A custom spawn with argument `arg`.
    pub fn custom<A: Arg + ?Sized>(mut self, arg: &A) -> Result<SpawnBuilder<'n>> {
        self.custom.clear();
        arg.write_compressed(&mut self.custom, &self.opts.with_full_objects(false))?;
        self.scene = SpawnScene::Custom;
        Ok(self)
    }

    /// The net ids of the node's synchronizers.
    #[must_use]
    pub fn sync_ids(mut self, ids: &[u32]) -> SpawnBuilder<'n> {
        self.sync_ids = ids.to_vec();
        self
    }

    /// Appends a value of the spawn state.
    pub fn state<A: Arg + ?Sized>(mut self, v: &A) -> Result<SpawnBuilder<'n>> {
        v.write_compressed(&mut self.state, &self.opts)?;
        Ok(self)
    }

    /// The packet.
    pub fn finish(self) -> Result<Vec<u8>> {
        let name_len = len_u32(self.name.len() + 1)?;
        let mut out = Vec::with_capacity(
            SPAWN_HEADER
                + 4 * self.sync_ids.len()
                + self.name.len()
                + 5
                + self.custom.len()
                + self.state.len(),
        );
        out.push(Command::Spawn as u8);
        out.push(match self.scene {
            SpawnScene::Index(i) => i,
            SpawnScene::Custom => CUSTOM_SCENE,
        });
        out.extend_from_slice(&self.spawner.to_le_bytes());
        out.extend_from_slice(&self.net_id.to_le_bytes());
        out.extend_from_slice(&len_u32(self.sync_ids.len())?.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        for id in &self.sync_ids {
            out.extend_from_slice(&id.to_le_bytes());
        }
        put_cstr(&mut out, self.name.as_bytes())?;
        if self.scene == SpawnScene::Custom {
            out.extend_from_slice(&len_u32(self.custom.len())?.to_le_bytes());
            out.extend_from_slice(&self.custom);
        }
        out.extend_from_slice(&self.state);
        Ok(out)
    }
}

/// Builds a `DESPAWN` packet: `[05][u32 net id]`.
pub fn despawn(net_id: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(5);
    out.push(Command::Despawn as u8);
    out.extend_from_slice(&net_id.to_le_bytes());
    out
}

/// Builds a `SYNC` packet as the engine's `_send_sync` does (without its splitting at the
/// maximum packet size: one packet with every entry).
///
/// ```
/// use gdvariant_multiplayer::SyncBuilder;
/// use gdvariant::Variant;
/// let b = SyncBuilder::new(12).entry(0x8000_0003, &[Variant::Bool(true), Variant::Int(5)])?.finish()?;
/// assert_eq!(b, [0x06, 12, 0, 3, 0, 0, 0x80, 3, 0, 0, 0, 0x81, 0x02, 5]);
/// # Ok::<(), gdvariant::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SyncBuilder {
    out: Vec<u8>,
    opts: EncodeOptions,
}

impl SyncBuilder {
    /// A SYNC packet stamped with sync time `time`.
    pub fn new(time: u16) -> SyncBuilder {
        let mut out = Vec::with_capacity(64);
        out.push(Command::Sync as u8);
        out.extend_from_slice(&time.to_le_bytes());
        SyncBuilder {
            out,
            opts: EncodeOptions::new(),
        }
    }

    /// Chooses how values are encoded (double precision, full objects).
    #[must_use]
    pub fn with_options(mut self, opts: EncodeOptions) -> SyncBuilder {
        self.opts = opts.with_dialect(Dialect::Godot4);
        self
    }

    /// Appends the entry of synchronizer `net_id` (bit 31 and a path cache id for a synchronizer
    /// not spawned by a spawner) with the values of its "always" properties. An entry without
    /// values is not written, as in the engine.
    pub fn entry<A: Arg>(mut self, net_id: u32, values: &[A]) -> Result<SyncBuilder> {
        write_entry(&mut self.out, &net_id.to_le_bytes(), values, &self.opts)?;
        Ok(self)
    }

    /// The packet; an error without entries (the engine sends none, and ignores a packet under
    /// 11 bytes).
    pub fn finish(self) -> Result<Vec<u8>> {
        if self.out.len() < SYNC_MIN {
            return Err(invalid("SYNC packet without entries", self.out.len()));
        }
        Ok(self.out)
    }
}

/// Builds a `DELTA` packet as the engine's `_send_delta` does (one packet with every entry).
#[derive(Clone, Debug)]
pub struct DeltaBuilder {
    out: Vec<u8>,
    opts: EncodeOptions,
}

impl Default for DeltaBuilder {
    fn default() -> Self {
        DeltaBuilder::new()
    }
}

impl DeltaBuilder {
    /// An empty DELTA packet.
    pub fn new() -> DeltaBuilder {
        let mut out = Vec::with_capacity(64);
        out.push(Command::Sync as u8 | DELTA_FLAG);
        DeltaBuilder {
            out,
            opts: EncodeOptions::new(),
        }
    }

    /// Chooses how values are encoded (double precision, full objects).
    #[must_use]
    pub fn with_options(mut self, opts: EncodeOptions) -> DeltaBuilder {
        self.opts = opts.with_dialect(Dialect::Godot4);
        self
    }

    /// Appends the entry of synchronizer `net_id` with the values of the changed "on change"
    /// properties, whose indexes `mask` sets. An entry without values is not written; one whose
    /// `mask` sets a number of bits other than `values.len()` is an error (the receiver reads
    /// one value per bit).
    pub fn entry<A: Arg>(mut self, net_id: u32, mask: u64, values: &[A]) -> Result<DeltaBuilder> {
        if mask.count_ones() as usize != values.len() {
            return Err(invalid(
                "DELTA entry whose mask does not set one bit per value",
                self.out.len(),
            ));
        }
        let mut head = [0u8; 12];
        head[..4].copy_from_slice(&net_id.to_le_bytes());
        head[4..].copy_from_slice(&mask.to_le_bytes());
        write_entry(&mut self.out, &head, values, &self.opts)?;
        Ok(self)
    }

    /// The packet; an error without entries.
    pub fn finish(self) -> Result<Vec<u8>> {
        if self.out.len() < SYNC_MIN {
            return Err(invalid("DELTA packet without entries", self.out.len()));
        }
        Ok(self.out)
    }
}

fn write_entry<A: Arg>(
    out: &mut Vec<u8>,
    head: &[u8],
    values: &[A],
    opts: &EncodeOptions,
) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let start = out.len();
    out.extend_from_slice(head);
    out.extend_from_slice(&[0; 4]);
    let body = out.len();
    for v in values {
        if let Err(e) = v.write_compressed(out, opts) {
            out.truncate(start);
            return Err(e);
        }
    }
    let size = match len_u32(out.len() - body) {
        Ok(s) => s,
        Err(e) => {
            out.truncate(start);
            return Err(Error::shifted(e, body));
        }
    };
    out[body - 4..body].copy_from_slice(&size.to_le_bytes());
    Ok(())
}
