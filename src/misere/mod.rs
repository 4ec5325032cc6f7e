//! Misère play of heap games, exactly: canonical forms, genera, outcomes and winning moves.
//!
//! In misère play the player who makes the last move loses. The misère value of a sum of heaps
//! is not a function of the heaps' values (nor of their genera), so everything here works on
//! misère canonical forms ([`forms`]): each heap's simplest form is computed from its options,
//! each option being the canonical sum of the canonical forms of its (up to three) heaps. From
//! a canonical form follow its misère outcome, its misère Grundy value `g⁻` and its genus
//! `g⁺^(λ0 λ1 …)` ([`genus`]), and the class of the heap: tame, restive, restless, half-tame or
//! wild ([`Class`]). Nothing here is valid only for tame games.
//!
//! Sources: Conway, *On Numbers and Games* (ONAG), ch. 12 "How to lose when you must";
//! Berlekamp, Conway and Guy, *Winning Ways*, ch. 13 "Survival in the lost world"; the
//! phyla of CGSuite (Siegel, with code by Dan Hoey) for the half-tame test.
//!
//! ```
//! use nimseq::misere::{MisereHeaps, Outcome};
//! use nimseq::rules::Rule;
//! let mut kayles = MisereHeaps::new(&Rule::parse("kayles").unwrap());
//! kayles.extend_to(6).unwrap();
//! // Kayles heap 5 has genus 4^146 (CGSuite).
//! assert_eq!(kayles.heap_genus(5, true).unwrap().lambdas, [1, 4, 6]);
//! // A lone pin: whoever knocks it down moves last and loses, so the player to move loses.
//! assert_eq!(kayles.outcome(&[1]).unwrap(), Outcome::P);
//! assert_eq!(kayles.outcome(&[1, 1]).unwrap(), Outcome::N);
//! ```

pub mod forms;
pub mod genus;
mod heaps;
pub mod quotient;
pub mod tame;

pub use forms::{FormId, Forms, ZERO};
pub use genus::Genus;
pub use heaps::{Class, HeapGenus, MisereHeaps, MisereMove, Outcome};

/// What can go wrong in an exact misère computation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MisereError {
    /// The canonical forms outgrew the limit set for the table.
    #[error("misère canonical forms too large: more than {limit} distinct forms needed")]
    TooLarge {
        /// The number of forms allowed.
        limit: usize,
    },
    /// A genus sequence settled into a period other than 2 (impossible by Conway's theorem;
    /// reported rather than hidden).
    #[error("genus sequence has period {period}, not 2 (contradicts ONAG ch. 12)")]
    GenusNotAlternating {
        /// The period found.
        period: usize,
    },
    /// A position names a heap larger than the table was asked to cover.
    #[error("heap {heap} is beyond the heaps computed (0 .. {count})")]
    HeapOutOfRange {
        /// The heap asked for.
        heap: usize,
        /// The number of heaps computed.
        count: usize,
    },
}
