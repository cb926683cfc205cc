//! ENet's range coder, decompression side: the adaptive order-2 PPM coder of `compress.c`
//! (`enet_range_coder_decompress`), which a host turns on with
//! `enet_host_compress_with_range_coder` (Godot 4: `ENetConnection.compress(COMPRESS_RANGE_CODER)`;
//! Godot 3: `NetworkedMultiplayerENet.compression_mode = COMPRESS_RANGE_CODER`, the default from
//! 3.4 by the engine's source; 3.2.3 defaults to none). Checked on datagrams both engines
//! compressed (`tests/data/captures/`), against ENet's C transpiled (`rusty_enet`), and against
//! ENet's own C, the system's ENet 1.3.17 whose `compress.c` Godot 3.x ships (`enet_c.rs` in the
//! crate's tests: the same output, the same refusals on hostile streams).
//!
//! This is a port in safe Rust that decodes exactly what ENet's C decodes, with the same output
//! bound (ENet decompresses into its 4096-byte datagram buffer, less the header) and the same
//! 4096-entry symbol table. Where ENet would write past its table, divide by zero or spin (states
//! its own compressor never produces), this returns an error instead, and every loop is bounded.

use alloc::vec;
use alloc::vec::Vec;

use gdvariant::error::Result;

use crate::wire::invalid;

const TOP: u32 = 1 << 24;
const BOTTOM: u32 = 1 << 16;
const CONTEXT_SYMBOL_DELTA: u16 = 3;
const CONTEXT_SYMBOL_MINIMUM: u16 = 1;
const CONTEXT_ESCAPE_MINIMUM: u16 = 1;
const SUBCONTEXT_ORDER: usize = 2;
const SUBCONTEXT_SYMBOL_DELTA: u16 = 2;
const SUBCONTEXT_ESCAPE_DELTA: u16 = 5;
/// `sizeof (rangeCoder -> symbols) / sizeof (ENetSymbol)`.
const SYMBOLS: usize = 4096;
/// Steps up a chain of contexts before the state is called corrupt (a chain is at most
/// `SUBCONTEXT_ORDER` + 1 long).
const MAX_CHAIN: usize = 64;
/// Renormalisation steps in one decode before the state is called corrupt (at most 4 happen).
const MAX_SHIFTS: usize = 64;

/// `ENetSymbol`: a node of a context's binary tree of symbols, and the context that symbol
/// defines. Links are offsets from the node (always forward); `parent` is an index.
#[derive(Clone, Copy, Debug, Default)]
struct Symbol {
    value: u8,
    count: u8,
    under: u16,
    left: u16,
    right: u16,
    symbols: u16,
    escapes: u16,
    total: u16,
    parent: u16,
}

/// Decompresses `input` as `enet_range_coder_decompress` does, producing at most `limit` bytes.
///
/// An error when `input` is empty (ENet returns 0), when the output would exceed `limit` (ENet
/// returns 0 and drops the datagram), or when the input drives the decoder into a state ENet's
/// own C would not survive. The output may be empty (ENet then drops the datagram as well).
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>> {
    RangeDecoder::new().decompress(input, limit)
}

/// A reusable range-coder decompressor: its symbol table (56 KiB) is allocated once.
#[derive(Clone, Debug)]
pub struct RangeDecoder {
    symbols: Vec<Symbol>,
    /// Scratch for rescaling: per node, the sum of `under` along its chain of right links.
    chain: Vec<u16>,
    /// Scratch for rescaling: the nodes of a tree.
    nodes: Vec<u16>,
}

impl Default for RangeDecoder {
    fn default() -> Self {
        RangeDecoder::new()
    }
}

/// Where the decoder reads: the input and the coder's registers.
struct Input<'i> {
    data: &'i [u8],
    pos: usize,
    low: u32,
    code: u32,
    range: u32,
}

impl Input<'_> {
    fn next_byte(&mut self) -> u32 {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                u32::from(b)
            }
            None => 0,
        }
    }

    /// `ENET_RANGE_CODER_SEED`.
    fn seed(&mut self) {
        for shift in [24, 16, 8, 0] {
            if self.pos < self.data.len() {
                self.code |= self.next_byte() << shift;
            }
        }
    }

    /// `ENET_RANGE_CODER_READ`: the code scaled to `total` (a 16-bit result, as ENet stores it).
    fn read(&mut self, total: u16) -> Result<u16> {
        self.range /= u32::from(total.max(1));
        if self.range == 0 {
            return Err(corrupt(self.pos));
        }
        Ok((self.code.wrapping_sub(self.low) / self.range) as u16)
    }

    /// `ENET_RANGE_CODER_DECODE`.
    fn decode(&mut self, under: u32, count: u32) -> Result<()> {
        self.low = self.low.wrapping_add(under.wrapping_mul(self.range));
        self.range = self.range.wrapping_mul(count);
        for _ in 0..MAX_SHIFTS {
            if (self.low ^ self.low.wrapping_add(self.range)) >= TOP {
                if self.range >= BOTTOM {
                    return Ok(());
                }
                self.range = self.low.wrapping_neg() & (BOTTOM - 1);
            }
            if self.range == 0 {
                return Err(corrupt(self.pos));
            }
            self.code <<= 8;
            if self.pos < self.data.len() {
                self.code |= self.next_byte();
            }
            self.range <<= 8;
            self.low <<= 8;
        }
        Err(corrupt(self.pos))
    }
}

/// The offset from `from` to a symbol created after it, as ENet stores links.
fn link_to(from: usize, to: usize) -> Result<u16> {
    match to.checked_sub(from) {
        Some(d) if d > 0 && d < SYMBOLS => Ok(d as u16),
        _ => Err(corrupt(0)),
    }
}

#[cold]
fn corrupt(at: usize) -> gdvariant::Error {
    invalid("corrupt range-coder data", at)
}

/// Where the next symbol's `parent` link goes: `predicted`, or a symbol's `parent` field.
#[derive(Clone, Copy)]
enum Link {
    Predicted,
    Symbol(usize),
}

/// What a context's tree gave for a code: the symbol, its value, `under` and `count`.
struct Found {
    symbol: usize,
    value: u8,
    under: u16,
    count: u16,
}

impl RangeDecoder {
    /// A decompressor.
    pub fn new() -> RangeDecoder {
        RangeDecoder {
            symbols: vec![Symbol::default(); SYMBOLS],
            chain: vec![0; SYMBOLS],
            // Its most (one per symbol), so that decoding allocates nothing.
            nodes: Vec::with_capacity(SYMBOLS),
        }
    }

    fn sym(&mut self, i: usize) -> Result<&mut Symbol> {
        self.symbols.get_mut(i).ok_or_else(|| corrupt(0))
    }

    /// `ENET_SYMBOL_CREATE`: a new symbol at `next`.
    fn create(&mut self, next: &mut usize, value: u8, count: u16) -> Result<usize> {
        let i = *next;
        *self.sym(i)? = Symbol {
            value,
            count: count as u8,
            under: count,
            ..Symbol::default()
        };
        *next += 1;
        Ok(i)
    }

    /// `ENET_CONTEXT_CREATE` of the root context; returns its index.
    fn create_root(&mut self, next: &mut usize) -> Result<usize> {
        let r = self.create(next, 0, 0)?;
        let s = self.sym(r)?;
        s.escapes = CONTEXT_ESCAPE_MINIMUM;
        s.total = CONTEXT_ESCAPE_MINIMUM + 256 * CONTEXT_SYMBOL_MINIMUM;
        s.symbols = 0;
        Ok(r)
    }

    /// `enet_symbol_rescale` of the tree whose first node is `start`: halves every count and
    /// recomputes every `under`; returns the tree's total. Iterative: children always sit after
    /// their parents in the table, so the nodes are done from the last to the first.
    fn rescale_tree(&mut self, start: usize) -> Result<u16> {
        self.nodes.clear();
        self.nodes.push(start as u16);
        let mut i = 0;
        while let Some(&n) = self.nodes.get(i) {
            i += 1;
            let n = usize::from(n);
            let s = *self.sym(n)?;
            for link in [s.left, s.right] {
                if link != 0 {
                    let child = n + usize::from(link);
                    if self.nodes.len() >= SYMBOLS || child >= SYMBOLS {
                        return Err(corrupt(0));
                    }
                    self.nodes.push(child as u16);
                }
            }
        }
        let mut nodes = core::mem::take(&mut self.nodes);
        nodes.sort_unstable_by(|a, b| b.cmp(a));
        for &n in &nodes {
            let n = usize::from(n);
            let s = *self.sym(n)?;
            let count = s.count - (s.count >> 1);
            let sum = |link: u16| match link {
                0 => Some(0),
                l => self.chain.get(n + usize::from(l)).copied(),
            };
            let (Some(left), Some(right)) = (sum(s.left), sum(s.right)) else {
                return Err(corrupt(0));
            };
            let under = u16::from(count).wrapping_add(left);
            let chain = under.wrapping_add(right);
            let s = self.sym(n)?;
            s.count = count;
            s.under = under;
            if let Some(c) = self.chain.get_mut(n) {
                *c = chain;
            }
        }
        self.nodes = nodes;
        self.chain.get(start).copied().ok_or_else(|| corrupt(0))
    }

    /// `ENET_CONTEXT_RESCALE`.
    fn rescale(&mut self, context: usize, minimum: u16) -> Result<()> {
        let c = *self.sym(context)?;
        let total = if c.symbols != 0 {
            self.rescale_tree(context + usize::from(c.symbols))?
        } else {
            0
        };
        let c = self.sym(context)?;
        c.escapes -= c.escapes >> 1;
        c.total = total
            .wrapping_add(c.escapes)
            .wrapping_add(256u16.wrapping_mul(minimum));
        Ok(())
    }

    /// `ENET_CONTEXT_ENCODE` with minimum 0 (the patching of the higher contexts): finds or
    /// adds `value` in `context`'s tree.
    fn encode(
        &mut self,
        context: usize,
        next: &mut usize,
        value: u8,
        update: u16,
    ) -> Result<Found> {
        let mut under = 0u16;
        let mut count = 0u16;
        let c = *self.sym(context)?;
        if c.symbols == 0 {
            let s = self.create(next, value, update)?;
            self.sym(context)?.symbols = link_to(context, s)?;
            return Ok(Found {
                symbol: s,
                value,
                under,
                count,
            });
        }
        let mut node = context + usize::from(c.symbols);
        for _ in 0..SYMBOLS {
            let n = *self.sym(node)?;
            if value < n.value {
                self.sym(node)?.under = n.under.wrapping_add(update);
                if n.left != 0 {
                    node += usize::from(n.left);
                    continue;
                }
                let s = self.create(next, value, update)?;
                self.sym(node)?.left = link_to(node, s)?;
                return Ok(Found {
                    symbol: s,
                    value,
                    under,
                    count,
                });
            } else if value > n.value {
                under = under.wrapping_add(n.under);
                if n.right != 0 {
                    node += usize::from(n.right);
                    continue;
                }
                let s = self.create(next, value, update)?;
                self.sym(node)?.right = link_to(node, s)?;
                return Ok(Found {
                    symbol: s,
                    value,
                    under,
                    count,
                });
            } else {
                count = count.wrapping_add(u16::from(n.count));
                under = under.wrapping_add(n.under.wrapping_sub(u16::from(n.count)));
                let m = self.sym(node)?;
                m.under = m.under.wrapping_add(update);
                m.count = m.count.wrapping_add(update as u8);
                return Ok(Found {
                    symbol: node,
                    value,
                    under,
                    count,
                });
            }
        }
        Err(corrupt(0))
    }

    /// `ENET_CONTEXT_DECODE`: finds the symbol whose range holds `code` in `context`'s tree.
    /// `root` says whether this is the root context, where a missing symbol is created
    /// (`ENET_CONTEXT_ROOT_DECODE`: update 3, minimum 1), or a higher one, where it is an error
    /// (`ENET_CONTEXT_TRY_DECODE`: update 2, minimum 0).
    fn decode_symbol(
        &mut self,
        context: usize,
        next: &mut usize,
        code: u16,
        root: bool,
        at: usize,
    ) -> Result<Found> {
        let (update, minimum) = if root {
            (CONTEXT_SYMBOL_DELTA, CONTEXT_SYMBOL_MINIMUM)
        } else {
            (SUBCONTEXT_SYMBOL_DELTA, 0)
        };
        let mut under = 0u16;
        let count = minimum;
        let c = *self.sym(context)?;
        if c.symbols == 0 {
            if !root {
                return Err(corrupt(at));
            }
            let value = (code / minimum) as u8;
            let under = code - code % minimum;
            let s = self.create(next, value, update)?;
            self.sym(context)?.symbols = link_to(context, s)?;
            return Ok(Found {
                symbol: s,
                value,
                under,
                count,
            });
        }
        let mut node = context + usize::from(c.symbols);
        for _ in 0..SYMBOLS {
            let n = *self.sym(node)?;
            let after = under
                .wrapping_add(n.under)
                .wrapping_add((u16::from(n.value) + 1).wrapping_mul(minimum));
            let before = u16::from(n.count) + minimum;
            if code >= after {
                under = under.wrapping_add(n.under);
                if n.right != 0 {
                    node += usize::from(n.right);
                    continue;
                }
                if !root {
                    return Err(corrupt(at));
                }
                let d = i32::from(code) - i32::from(after);
                let value = (i32::from(n.value) + 1 + d / i32::from(minimum)) as u8;
                let under = (i32::from(code) - d % i32::from(minimum)) as u16;
                let s = self.create(next, value, update)?;
                self.sym(node)?.right = link_to(node, s)?;
                return Ok(Found {
                    symbol: s,
                    value,
                    under,
                    count,
                });
            } else if i32::from(code) < i32::from(after) - i32::from(before) {
                self.sym(node)?.under = n.under.wrapping_add(update);
                if n.left != 0 {
                    node += usize::from(n.left);
                    continue;
                }
                if !root {
                    return Err(corrupt(at));
                }
                let d = i32::from(after) - i32::from(before) - i32::from(code) - 1;
                let value = (i32::from(n.value) - 1 - d / i32::from(minimum)) as u8;
                let under = (i32::from(code) - d % i32::from(minimum)) as u16;
                let s = self.create(next, value, update)?;
                self.sym(node)?.left = link_to(node, s)?;
                return Ok(Found {
                    symbol: s,
                    value,
                    under,
                    count,
                });
            } else {
                let m = self.sym(node)?;
                m.under = m.under.wrapping_add(update);
                m.count = m.count.wrapping_add(update as u8);
                return Ok(Found {
                    symbol: node,
                    value: n.value,
                    under: after.wrapping_sub(before),
                    count: count.wrapping_add(u16::from(n.count)),
                });
            }
        }
        Err(corrupt(at))
    }

    /// Sets the link `at` to `to`.
    fn link(&mut self, predicted: &mut u16, at: Link, to: usize) -> Result<()> {
        match at {
            Link::Predicted => *predicted = to as u16,
            Link::Symbol(s) => self.sym(s)?.parent = to as u16,
        }
        Ok(())
    }

    /// Decompresses `input`, producing at most `limit` bytes: see [`decompress`].
    pub fn decompress(&mut self, input: &[u8], limit: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.run(input, limit, |b| out.push(b))?;
        Ok(out)
    }

    /// Decompresses `input` into `out`, as ENet decompresses into its datagram buffer: at most
    /// `out.len()` bytes, else an error (then `out` holds what was decoded before it). Returns
    /// how many bytes were written; allocates nothing.
    pub fn decompress_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let limit = out.len();
        let mut slots = out.iter_mut();
        let mut n = 0;
        self.run(input, limit, |b| {
            // `run` emits at most `limit` bytes: there is always a slot.
            if let Some(slot) = slots.next() {
                *slot = b;
                n += 1;
            }
        })?;
        Ok(n)
    }

    /// The decoder: hands each decoded byte to `emit`, at most `limit` of them.
    fn run(&mut self, input: &[u8], limit: usize, mut emit: impl FnMut(u8)) -> Result<()> {
        if input.is_empty() {
            return Err(invalid("empty range-coder data", 0));
        }
        let mut written = 0usize;
        let mut next = 0usize;
        let root = self.create_root(&mut next)?;
        let mut predicted: u16 = 0;
        let mut order = 0usize;
        let mut inp = Input {
            data: input,
            pos: 0,
            low: 0,
            code: 0,
            range: !0,
        };
        inp.seed();
        loop {
            let mut parent = Link::Predicted;
            let mut subcontext = usize::from(predicted);
            let mut found = None;
            let mut steps = 0;
            while subcontext != root {
                steps += 1;
                if steps > MAX_CHAIN {
                    return Err(corrupt(inp.pos));
                }
                let sc = *self.sym(subcontext)?;
                let up = usize::from(sc.parent);
                if sc.escapes == 0 || sc.escapes >= sc.total {
                    subcontext = up;
                    continue;
                }
                let total = sc.total;
                let code = inp.read(total)?;
                if code < sc.escapes {
                    inp.decode(0, u32::from(sc.escapes))?;
                    subcontext = up;
                    continue;
                }
                let f =
                    self.decode_symbol(subcontext, &mut next, code - sc.escapes, false, inp.pos)?;
                inp.decode(
                    u32::from(sc.escapes) + u32::from(f.under),
                    u32::from(f.count),
                )?;
                let s = self.sym(subcontext)?;
                s.total = s.total.wrapping_add(SUBCONTEXT_SYMBOL_DELTA);
                if f.count > 0xFF - 2 * SUBCONTEXT_SYMBOL_DELTA || s.total > (BOTTOM - 0x100) as u16
                {
                    self.rescale(subcontext, 0)?;
                }
                found = Some(f);
                break;
            }
            let found = match found {
                Some(f) => f,
                None => {
                    let r = *self.sym(root)?;
                    let code = inp.read(r.total)?;
                    if code < r.escapes {
                        inp.decode(0, u32::from(r.escapes))?;
                        break;
                    }
                    let f = self.decode_symbol(root, &mut next, code - r.escapes, true, inp.pos)?;
                    inp.decode(
                        u32::from(r.escapes) + u32::from(f.under),
                        u32::from(f.count),
                    )?;
                    let s = self.sym(root)?;
                    s.total = s.total.wrapping_add(CONTEXT_SYMBOL_DELTA);
                    if f.count > 0xFF - 2 * CONTEXT_SYMBOL_DELTA + CONTEXT_SYMBOL_MINIMUM
                        || s.total > (BOTTOM - 0x100) as u16
                    {
                        self.rescale(root, CONTEXT_SYMBOL_MINIMUM)?;
                    }
                    subcontext = root;
                    f
                }
            };
            // patchContexts: the contexts above the one that held the symbol learn it.
            let value = found.value;
            let bottom = found.symbol;
            let mut patch = usize::from(predicted);
            let mut steps = 0;
            while patch != subcontext {
                steps += 1;
                if steps > MAX_CHAIN {
                    return Err(corrupt(inp.pos));
                }
                let f = self.encode(patch, &mut next, value, SUBCONTEXT_SYMBOL_DELTA)?;
                self.link(&mut predicted, parent, f.symbol)?;
                parent = Link::Symbol(f.symbol);
                let p = self.sym(patch)?;
                if f.count == 0 {
                    p.escapes = p.escapes.wrapping_add(SUBCONTEXT_ESCAPE_DELTA);
                    p.total = p.total.wrapping_add(SUBCONTEXT_ESCAPE_DELTA);
                }
                p.total = p.total.wrapping_add(SUBCONTEXT_SYMBOL_DELTA);
                let (total, up) = (p.total, usize::from(p.parent));
                if f.count > 0xFF - 2 * SUBCONTEXT_SYMBOL_DELTA || total > (BOTTOM - 0x100) as u16 {
                    self.rescale(patch, 0)?;
                }
                patch = up;
            }
            self.link(&mut predicted, parent, bottom)?;

            if written >= limit {
                return Err(invalid(
                    "range-coder data decompresses past the buffer",
                    inp.pos,
                ));
            }
            emit(value);
            written += 1;

            if order >= SUBCONTEXT_ORDER {
                predicted = self.sym(usize::from(predicted))?.parent;
            } else {
                order += 1;
            }
            // ENET_RANGE_CODER_FREE_SYMBOLS
            if next >= SYMBOLS - SUBCONTEXT_ORDER {
                next = 0;
                self.create_root(&mut next)?;
                predicted = 0;
                order = 0;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_and_bounds_are_errors() {
        assert!(decompress(&[], 4096).is_err());
        // Whatever the bytes, the output stays within the limit and nothing panics.
        for seed in 0u32..2000 {
            let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
            let input: Vec<u8> = (0..(seed % 40) + 1)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            let mut buf = [0u8; 64];
            let into = RangeDecoder::new().decompress_into(&input, &mut buf);
            match decompress(&input, 64) {
                Ok(out) => {
                    assert!(out.len() <= 64);
                    // Into a buffer: the same bytes, the same verdict.
                    assert_eq!(&buf[..into.unwrap()], &out[..]);
                }
                Err(_) => assert!(into.is_err()),
            }
        }
    }

    #[test]
    fn an_immediate_escape_is_empty() {
        // Code 0 at the root is below its one escape: the end of the data, nothing decoded.
        assert_eq!(decompress(&[0], 4096).unwrap(), Vec::<u8>::new());
    }
}
