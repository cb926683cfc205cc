//! The hash index of a large Dictionary's keys ([`Index`]), how keys are hashed ([`KeyState`])
//! and the hash a Dictionary keeps of itself as a key ([`ContentHash`]). What makes two keys the
//! same key, and their hashes, is [`super::key`]'s.

use alloc::vec::Vec;
use core::hash::BuildHasher;
use core::sync::atomic::{AtomicU64, Ordering};

/// Dictionaries of at most this many entries are searched by a scan (faster than hashing for
/// the few string keys of a typical packet's dictionaries); larger ones keep a hash index.
pub(crate) const SCAN_MAX: usize = 8;

/// What a [`Dictionary`](crate::Dictionary) with out-of-line parts remembers of its own key
/// hash (for the keys that hold it, see [`key_info`](super::key::key_info)): its hash and
/// whether it can equal anything under Godot 4's rule (Godot 3's never looks: a Dictionary
/// makes a key unmatchable there), or nothing yet. Kept in an atomic word so that the
/// Dictionary stays `Sync` and is filled through a shared reference; every change to the
/// Dictionary forgets it ([`ContentHash::forget`]). Keys are hashed with one random state per
/// process (see [`KeyState`]), so a kept hash serves every dictionary.
#[derive(Default)]
pub(crate) struct ContentHash(AtomicU64);

/// [`ContentHash`]'s word: unknown, else this bit set, the match bit, and the hash's upper bits.
pub(crate) const KNOWN: u64 = 2;
/// [`ContentHash`]'s match bit (see [`KNOWN`]).
pub(crate) const MATCHABLE: u64 = 1;

impl ContentHash {
    /// The hash and the match bit, when known.
    #[inline]
    pub(crate) fn get(&self) -> Option<(u64, bool)> {
        let w = self.0.load(Ordering::Relaxed);
        (w & KNOWN != 0).then_some((w & !(KNOWN | MATCHABLE), w & MATCHABLE != 0))
    }

    /// Keeps `hash` (but its two low bits) and the match bit.
    #[inline]
    pub(crate) fn set(&self, hash: u64, matchable: bool) {
        let w = (hash & !(KNOWN | MATCHABLE)) | KNOWN | u64::from(matchable);
        self.0.store(w, Ordering::Relaxed);
    }

    /// Forgets the hash (the Dictionary changed).
    #[inline]
    pub(crate) fn forget(&mut self) {
        *self.0.get_mut() = 0;
    }
}

impl Clone for ContentHash {
    fn clone(&self) -> ContentHash {
        ContentHash(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

impl core::fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("ContentHash").field(&self.get()).finish()
    }
}

// ----- the hasher -----

/// How keys are hashed: SipHash keyed randomly once per process with `std` (one state, so
/// that the hash a Dictionary keeps of itself, [`ContentHash`], serves every dictionary), a
/// fixed key without.
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub(crate) struct KeyState(std::hash::RandomState);

#[cfg(feature = "std")]
impl KeyState {
    #[inline]
    pub(crate) fn new() -> KeyState {
        static STATE: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
        KeyState(STATE.get_or_init(std::hash::RandomState::new).clone())
    }
}

#[cfg(feature = "std")]
impl BuildHasher for KeyState {
    type Hasher = std::hash::DefaultHasher;
    #[inline]
    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

/// How keys are hashed: randomly keyed SipHash with `std`, a fixed key without.
#[cfg(not(feature = "std"))]
#[derive(Clone, Debug)]
pub(crate) struct KeyState;

#[cfg(not(feature = "std"))]
impl KeyState {
    #[inline]
    pub(crate) fn new() -> KeyState {
        KeyState
    }
}

#[cfg(not(feature = "std"))]
impl BuildHasher for KeyState {
    #[allow(deprecated)]
    type Hasher = core::hash::SipHasher;
    #[inline]
    #[allow(deprecated)]
    fn build_hasher(&self) -> Self::Hasher {
        core::hash::SipHasher::new_with_keys(0x6764_7661_7269_616e, 0x7420_6b65_7973_2121)
    }
}

// ----- the index -----

/// A slot of the index: an entry's position (`EMPTY` when free) and 32 bits of its key's hash
/// (which also choose where its probe starts).
#[derive(Clone, Copy, Debug)]
struct Slot {
    at: u32,
    hash: u32,
}

const EMPTY: u32 = u32::MAX;
const FREE: Slot = Slot { at: EMPTY, hash: 0 };

/// The hash index of a large dictionary: open addressing with linear probing over entry
/// positions, at most half full. Only matchable keys are entered; among entries whose keys are
/// the same key (only [`Dictionary::from_entries`](crate::Dictionary::from_entries) keeps such
/// repeats) the first one is found.
#[derive(Clone, Debug)]
pub(crate) struct Index {
    pub(crate) state: KeyState,
    slots: Vec<Slot>,
    used: usize,
}

impl Index {
    /// An empty index with room for `n` keys.
    pub(crate) fn with_capacity(state: KeyState, n: usize) -> Index {
        let size = (n.max(8) * 2).next_power_of_two();
        Index {
            state,
            slots: alloc::vec![FREE; size],
            used: 0,
        }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The first entry position `p` whose key hash is `hash` and for which `is(p)` holds.
    #[inline]
    pub(crate) fn find(&self, hash: u64, mut is: impl FnMut(usize) -> bool) -> Option<usize> {
        let h = fold(hash);
        let mask = self.mask();
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s.at == EMPTY {
                return None;
            }
            if s.hash == h && is(s.at as usize) {
                return Some(s.at as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Enters the entry at position `at` (after every entry already entered) with key hash
    /// `hash`.
    pub(crate) fn insert(&mut self, hash: u64, at: usize) {
        if (self.used + 1) * 2 > self.slots.len() {
            let size = self.slots.len() * 2;
            self.rebuild(size, Some);
        }
        self.put(Slot {
            at: at as u32,
            hash: fold(hash),
        });
        self.used += 1;
    }

    #[inline]
    fn put(&mut self, s: Slot) {
        let mask = self.mask();
        let mut i = s.hash as usize & mask;
        while self.slots[i].at != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = s;
    }

    /// Forgets the entry at position `removed` and shifts the positions after it down by one
    /// (the dictionary removed it from its entries).
    pub(crate) fn remove_position(&mut self, removed: usize) {
        let removed = removed as u32;
        let size = self.slots.len();
        self.rebuild(size, |s| match s.at.cmp(&removed) {
            core::cmp::Ordering::Less => Some(s),
            core::cmp::Ordering::Equal => None,
            core::cmp::Ordering::Greater => Some(Slot {
                at: s.at - 1,
                hash: s.hash,
            }),
        });
    }

    /// Re-enters the slots (mapped by `map`, dropped when it gives `None`) into `size` slots,
    /// in entry order, so that among equal hashes the first entry stays first.
    fn rebuild(&mut self, size: usize, map: impl Fn(Slot) -> Option<Slot>) {
        let mut kept: Vec<Slot> = self
            .slots
            .iter()
            .filter(|s| s.at != EMPTY)
            .filter_map(|s| map(*s))
            .collect();
        kept.sort_unstable_by_key(|s| s.at);
        self.slots = alloc::vec![FREE; size];
        self.used = kept.len();
        for s in kept {
            self.put(s);
        }
    }
}

/// 32 bits of a 64-bit hash.
#[inline]
fn fold(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}
