//! A stack that keeps its first `N` entries inline and spills to the heap only beyond them:
//! the explicit stacks of the iterative walks (`encode`, `to_owned`) cost no allocation for the
//! shallow values that make up nearly every packet, and any depth still works.

use alloc::vec::Vec;

use arrayvec::ArrayVec;

pub(crate) struct SmallStack<T, const N: usize> {
    inline: ArrayVec<T, N>,
    spill: Vec<T>,
}

impl<T, const N: usize> SmallStack<T, N> {
    #[inline]
    pub(crate) fn new() -> Self {
        SmallStack {
            inline: ArrayVec::new(),
            spill: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        if self.spill.is_empty() {
            if let Err(e) = self.inline.try_push(x) {
                self.spill.push(e.element());
            }
        } else {
            self.spill.push(x);
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        match self.spill.pop() {
            Some(x) => Some(x),
            None => self.inline.pop(),
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.inline.len() + self.spill.len()
    }
}

#[cfg(test)]
mod tests {
    use super::SmallStack;

    #[test]
    fn spills_past_the_inline_entries_and_pops_in_order() {
        let mut s: SmallStack<u32, 4> = SmallStack::new();
        for i in 0..10 {
            s.push(i);
            assert_eq!(s.len(), i as usize + 1);
        }
        for i in (0..10).rev() {
            assert_eq!(s.pop(), Some(i));
        }
        assert_eq!(s.pop(), None);
        // Inline again after a spill emptied.
        s.push(7);
        assert_eq!(s.len(), 1);
        assert_eq!(s.pop(), Some(7));
    }
}
