//! Dense mode: every option of every heap marked in one row, while no mask makes the rare
//! positions fewer than a quarter of the heaps.

use super::*;

impl Sparse {
    /// Dense mode for heaps `start..end`: every option of every heap marked in one row. Returns
    /// where it got to (`end`), or the overflow.
    pub(super) fn fill_dense<T: Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> Result<usize, Overflow> {
        // The last sparse block may have ended with a value at the width (the rows widen before
        // the next sparse block, which dense mode does not run).
        self.width = self.width.max(self.span());
        let mut row = vec![0u8; self.width];
        for n in start..end {
            let g = self.dense_value(&vals[..n], n, &mut row);
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            vals[n] = T::from_u32(g);
            self.hist.add(g);
            if g as usize >= self.width {
                self.width = value_span(g);
                row = vec![0u8; self.width];
            }
        }
        Ok(end)
    }

    /// G(n) from every option, the values of the smaller heaps in `vals`, marks in `row`.
    #[inline(always)]
    pub(super) fn dense_value<T: Cell>(&self, vals: &[T], n: usize, row: &mut [u8]) -> u32 {
        row.fill(0);
        let m = &self.moves;
        if m.take_all.binary_search(&n).is_ok() {
            row[0] = 1;
        }
        for &k in m.leave_one.iter().take_while(|&&k| k < n) {
            row[vals[n - k].get() as usize] = 1;
        }
        for s in m.leave_two.iter().take_while(|s| s.take + 2 <= n) {
            let r = n - s.take;
            mark_pairs(
                self.tier,
                row,
                vals,
                vals,
                r,
                1,
                last_pair(r, s.unequal) + 1,
            );
        }
        mark_three_heap_options(row, m, n, |q| vals[q].get());
        row.iter().position(|&x| x == 0).unwrap_or(row.len()) as u32
    }
}
