//! The memory a quotient computation holds, estimated before each large allocation, so that a
//! heap that needs more than the solver's limit ([`super::QuotientSolver::with_memory_limit`])
//! stops with [`super::QuotientError::Memory`] and the quotient of the heaps before, instead of
//! being killed by the system.
//!
//! The large allocations are the multiplication tables (`|Q|²` ids of 2 bytes up to
//! `|Q| = 2^16`, 4 beyond: 512 MiB at `|Q| = 2^14`, 2 GiB at 2^15), the unreduced candidates with their least words and reduction keys, and
//! the states of a verification (`|Q|/8` bytes each). Each estimate is an upper bound of what
//! the construction allocates, growth of vectors included; the small lists (options of
//! heaps and of least words) are left out and covered by [`SLACK`].

use super::closure::{self, Closure};

/// The largest heap limit any face accepts (`quotient --max-heap`, `survey --misere
/// --max-heap`, Python's `max_heap`): Φ and the option lists grow with the heaps, and no
/// quotient known needs a millionth heap to be certified.
pub const MAX_HEAP: u64 = 1_000_000;

/// The heap limit of `nimseq quotient` and Python's `quotient()` when none is given.
pub const DEFAULT_MAX_HEAP: u64 = 1000;

/// The states a verification may hold when no limit is given (each a bitset over the
/// quotient): `quotient` and Python's `quotient()`; the memory limit usually binds first.
pub const DEFAULT_STATES: usize = 20_000_000;
use super::monoid::Monoid;

/// The fewest states a verification must be able to hold for a candidate to be worth
/// building: a candidate with less room than this stops the heap for memory.
pub const MIN_STATES: usize = 1024;

/// Bytes left out of the estimates (option lists, words of the reduced quotient, the report),
/// taken off the limit once.
pub const SLACK: usize = 64 << 20;

/// Bytes of a monoid: its table (the buffer it holds, which may be a larger candidate's
/// reused), P and least words.
pub fn monoid_bytes(m: &Monoid) -> usize {
    table_bytes(m.order).max(m.table.bytes())
        + m.words.iter().map(|w| 24 + 8 * w.len()).sum::<usize>()
}

/// Bytes of a table of `order²` ids (2 bytes each up to 2^16 elements, 4 beyond).
pub fn table_bytes(order: usize) -> usize {
    order
        .saturating_mul(order)
        .saturating_mul(super::monoid::Ids::id_bytes(order))
}

/// Bytes of a closure as it stands.
pub fn closure_bytes(c: &Closure) -> usize {
    c.bytes()
}

/// The least room a verification of a candidate of `order` elements needs: its fixed part
/// and [`MIN_STATES`] states.
pub fn closure_floor(order: usize) -> usize {
    closure::fixed_bytes(order) + MIN_STATES * closure::bytes_per_state(order)
}

/// Bytes of the reduction of `size` elements with `gens` generators
/// ([`super::monoid::reduce`]): successors, keys, classes and the map of keys (at most one
/// entry an element), and one byte of P each.
pub fn reduce_bytes(size: usize, gens: usize) -> usize {
    size.saturating_mul(4 * gens + 4 * (gens + 1) + 8 + 40 + 1)
}

/// Bytes of an unreduced candidate of `size` elements over at most `gens` distinct heap
/// elements, whose least words have at most `word_len` heaps: multiplication by each heap
/// element, least words, the least-word order and its ranks, P, and the reduction.
pub fn candidate_bytes(size: usize, gens: usize, word_len: usize) -> usize {
    let per = 4 * gens + 24 + 8 * word_len + 8 + 8 + 1;
    size.saturating_mul(per)
        .saturating_add(reduce_bytes(size, gens))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate of a closure's fixed part covers what `Closure::new` holds.
    #[test]
    fn a_new_closure_is_within_its_estimate() {
        let m = Monoid::trivial();
        let c = Closure::new(&m, 10);
        assert!(c.bytes() <= closure::fixed_bytes(1) + 1024 * 4 + closure::bytes_per_state(1));
        assert_eq!(table_bytes(1 << 14), 1 << 29);
        assert_eq!(table_bytes(1 << 16), 1 << 33);
        assert_eq!(
            table_bytes((1 << 16) + 1),
            ((1 << 16) + 1) * ((1 << 16) + 1) * 4
        );
    }
}
