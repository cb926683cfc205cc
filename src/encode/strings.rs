//! Strings as the encoder writes them (length, bytes and zero padding, each string checked to
//! read back as written: no NUL, no leading BOM, the check folded into the copy of short ones),
//! and the values made of strings: NodePath and Signal.

use super::primitives::{too_long, Enc, MAX_LEN};
use crate::error::Result;
use crate::owned::NodePath;
use crate::types::VariantType;

impl Enc<'_> {
    /// A §5 string payload: length, bytes, zero padding.
    #[inline]
    pub(crate) fn string(&mut self, s: &str) -> Result<()> {
        if s.len() <= MAX_LEN
            && self.checked_string::<4, 0>(&(s.len() as u32).to_le_bytes(), s.as_bytes())
        {
            return Ok(());
        }
        self.string_slow(None, s)
    }

    /// A String or StringName value: header and length in one write, bytes, padding. Inlined
    /// into [`leaf`](Enc::leaf): dictionary keys are nearly all strings.
    // Inlined: input packet encode -11 % instructions (with get, string_value and, then,
    // prefixed, whose short-string path checked_string is).
    #[inline(always)]
    pub(crate) fn string_value(&mut self, ty: VariantType, s: &str) -> Result<()> {
        if let Some(id) = self.ids.get(self.opts.dialect, ty) {
            let head = u64::from(id) | (s.len() as u64) << 32;
            if s.len() <= MAX_LEN && self.checked_string::<8, 0>(&head.to_le_bytes(), s.as_bytes())
            {
                return Ok(());
            }
        }
        self.string_slow(Some(ty), s)
    }

    /// A string (with its value's header when `ty` is given) that the fast path of
    /// [`checked_string`](Enc::checked_string) did not write, with the errors in their order:
    /// a string the engine would read back changed is written so that it reads back whole (a
    /// leading BOM gets a second one before it, which the reader strips; a NUL is refused,
    /// [`ErrorKind::UnwritableString`](crate::ErrorKind::UnwritableString), as nothing written reads back past it); then the
    /// header's type, then the length.
    // Cold: game state encode -12 % instructions, input packet encode -13 %.
    #[cold]
    fn string_slow(&mut self, ty: Option<VariantType>, s: &str) -> Result<()> {
        if crate::strings::reads_back(s.as_bytes()) {
            let id = ty.map(|ty| self.id(ty)).transpose()?;
            let n = self.len32(s.len())?;
            if let Some(id) = id {
                self.u32(id);
            }
            self.prefixed(&n.to_le_bytes(), s.as_bytes());
            return Ok(());
        }
        let bytes = crate::strings::kept_whole(s.as_bytes())
            .ok_or_else(|| crate::strings::unwritable(self.pos()))?;
        if let Some(ty) = ty {
            self.header(ty, 0)?;
        }
        let n = self.len32(bytes.len())?;
        self.prefixed(&n.to_le_bytes(), &bytes);
        Ok(())
    }

    /// Appends `head`, then the string bytes `s`, `NUL` (0 or 1) zero bytes (a PackedStringArray
    /// entry ends with a NUL) and zero padding, if the engine reads `s` back as written (no NUL,
    /// no leading BOM: [`reads_back`](crate::strings::reads_back)); otherwise writes nothing and
    /// returns `false`. A short string (the common case: keys,
    /// names, tags) is tested in the loads that copy it, into a zeroed 32-byte block appended to
    /// the output and then cut to length (see [`copy_checked`]).
    // Inlined: input packet encode -11 % instructions (with get, string_value and, then,
    // prefixed, whose short-string path this is).
    #[inline(always)]
    pub(super) fn checked_string<const H: usize, const NUL: usize>(
        &mut self,
        head: &[u8; H],
        s: &[u8],
    ) -> bool {
        let n = s.len();
        if H + n + NUL > 32 {
            if !crate::strings::reads_back(s) {
                return false;
            }
            self.prefixed(head, s);
            if NUL == 1 && n % 4 == 0 {
                self.out.extend_from_slice(&[0; 4]);
            }
            return true;
        }
        let start = self.out.len();
        self.out.extend_from_slice(&[0u8; 32]);
        let mut ok = false;
        if let Some(block) = self.out.get_mut(start..) {
            block[..H].copy_from_slice(head);
            ok = copy_checked(&mut block[H..], s);
        }
        self.out.truncate(if ok {
            start + H + ((n + NUL + 3) & !3)
        } else {
            start
        });
        ok
    }

    /// Appends `head`, then `bytes` and their zero padding, unchecked: the path of long strings
    /// and of the rare ones that [`checked_string`](Enc::checked_string) does not write.
    pub(super) fn prefixed<const H: usize>(&mut self, head: &[u8; H], bytes: &[u8]) {
        let n = bytes.len();
        self.out.reserve(H + n + 3);
        self.out.extend_from_slice(head);
        self.out.extend_from_slice(bytes);
        self.pad(n);
    }
    pub(crate) fn node_path(&mut self, np: &NodePath) -> Result<()> {
        self.node_path_parts(&np.names, &np.subnames, np.absolute)
    }

    pub(crate) fn node_path_parts<S: AsRef<str>>(
        &mut self,
        names: &[S],
        subnames: &[S],
        absolute: bool,
    ) -> Result<()> {
        let start = self.out.len();
        self.header(VariantType::NodePath, 0)?;
        let n = self.len32(names.len())?;
        let s = self.len32(subnames.len())?;
        if names.len() + subnames.len() > MAX_LEN {
            return Err(too_long(self.pos()));
        }
        self.u32(n | 0x8000_0000);
        self.u32(s);
        self.u32(u32::from(absolute));
        for x in names.iter().chain(subnames) {
            if let Err(e) = self.string(x.as_ref()) {
                self.out.truncate(start);
                return Err(e);
            }
        }
        Ok(())
    }

    pub(crate) fn signal(&mut self, name: &str, object_id: u64) -> Result<()> {
        let start = self.out.len();
        self.header(VariantType::Signal, 0)?;
        if let Err(e) = self.string(name) {
            self.out.truncate(start);
            return Err(e);
        }
        self.u64(object_id);
        Ok(())
    }
}

/// Copies `src` (at most as long as `dst`, at most 32 bytes) to the front of `dst` in at most
/// four overlapping word moves, and tells from the same loads whether the engine reads it back
/// as written: no NUL ([`zero_flags`](crate::strings::zero_flags) of the words), no leading BOM
/// (its first three bytes). When it does not, what was copied is to be discarded. (The block is
/// not assembled on the stack first: reading back the small stores as one wide load stalls the
/// CPU.)
// Inlined: game state encode -5 % time (-6 % instructions), input packet encode -8 % (-5 %).
#[inline(always)]
fn copy_checked(dst: &mut [u8], src: &[u8]) -> bool {
    fn load<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
        // (Never short: a zero word would only send the string to the slow path.)
        let chunk = s.get(at..).and_then(<[u8]>::first_chunk::<N>);
        chunk.copied().unwrap_or([0; N])
    }
    fn store<const N: usize>(d: &mut [u8], at: usize, v: [u8; N]) {
        if let Some(c) = d.get_mut(at..).and_then(<[u8]>::first_chunk_mut::<N>) {
            *c = v;
        }
    }
    use crate::strings::zero_flags;
    let n = src.len();
    let (zeros, first) = if n >= 8 {
        let (a, b) = (load::<8>(src, 0), load::<8>(src, n - 8));
        let mut z = zero_flags(u64::from_le_bytes(a)) | zero_flags(u64::from_le_bytes(b));
        if n > 16 {
            let (c, d) = (load::<8>(src, 8), load::<8>(src, n - 16));
            z |= zero_flags(u64::from_le_bytes(c)) | zero_flags(u64::from_le_bytes(d));
            store(dst, 8, c);
            store(dst, n - 16, d);
        }
        store(dst, 0, a);
        store(dst, n - 8, b);
        (z, u32::from_le_bytes([a[0], a[1], a[2], 0]))
    } else if n >= 4 {
        let (a, b) = (load::<4>(src, 0), load::<4>(src, n - 4));
        store(dst, 0, a);
        store(dst, n - 4, b);
        let w = u64::from(u32::from_le_bytes(a)) | u64::from(u32::from_le_bytes(b)) << 32;
        (zero_flags(w), u32::from_le_bytes([a[0], a[1], a[2], 0]))
    } else if n > 0 {
        // The first, middle and last bytes: every byte of 1 to 3.
        let [a, m, b] = [0, n / 2, n - 1].map(|i| src.get(i).copied().unwrap_or(0));
        store(dst, 0, [a]);
        store(dst, n / 2, [m]);
        store(dst, n - 1, [b]);
        let w = u32::from_le_bytes([a, m, b, 0xFF]);
        (zero_flags(u64::from(w) | 0xFFFF_FFFF << 32), w & 0xFF_FFFF)
    } else {
        (0, 0)
    };
    // (With 1 or 2 bytes the three bytes cannot spell a BOM.)
    zeros == 0 && first != 0xBF_BBEF
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short-string copy tells exactly what `reads_back` tells, and copies every byte and
    /// nothing past them, at every length it takes, with a NUL or a BOM anywhere.
    #[test]
    fn copy_checked_copies_and_checks_every_short_length() {
        for n in 0..=32usize {
            let base: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            let mut cases = vec![base.clone()];
            for p in 0..n {
                let mut t = base.clone();
                t[p] = 0;
                cases.push(t);
                let mut t = base.clone();
                t[p] = 0x80;
                cases.push(t);
            }
            for at in [0, 1] {
                if n >= at + 3 {
                    let mut t = base.clone();
                    t[at..at + 3].copy_from_slice(crate::strings::BOM);
                    cases.push(t);
                }
            }
            if n >= 2 {
                let mut t = base.clone();
                t[..2].copy_from_slice(&crate::strings::BOM[..2]);
                cases.push(t);
            }
            for t in cases {
                let mut dst = [0u8; 32];
                let ok = copy_checked(&mut dst, &t);
                assert_eq!(ok, crate::strings::reads_back(&t), "{t:?}");
                if ok {
                    assert_eq!(&dst[..n], &t[..]);
                    assert!(dst[n..].iter().all(|&b| b == 0), "{t:?}");
                }
            }
        }
    }
}
