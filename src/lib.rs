//! nimseq: Sprague–Grundy values ("nim-sequences") of heap games, to very large heap sizes.
//!
//! The library is organized by concern:
//! - [`rules`]: game codes (octal, hexadecimal, `!`, repeating tails, subtraction sets, names);
//! - [`engine`]: engines that compute values, and the driver that grows their storage;
//! - [`analysis`]: statistics, rare-value structure, periodicity;
//! - [`misere`]: misère play: canonical forms, genera, outcomes, misère quotients;
//! - [`mex`]: the minimal excludant, one growable bit set for every engine and analysis;
//! - [`position`]: sums of heaps: nim-sum, outcome, winning moves (normal and misère play);
//! - [`graph`]: any finite impartial game as a directed graph, loopy or not;
//! - [`hackenbush`]: Blue–Red (and green) Hackenbush strings;
//! - [`partizan`]: short partizan games in canonical form (Hackenbush of every colour);
//! - [`report`]: b-files, text and JSON output;
//! - [`api`]: whole computations as the commands run them, for the Python package;
//! - [`survey`]: many games at once, in shards for clusters, with equivalent games grouped;
//! - [`table`]: memory-mapped result files, committed atomically and resumable;
//! - [`numbers`] and [`resources`]: what the command line needs from the outside world.
//!
//! ```
//! use nimseq::{engine, rules::Rule};
//! let kayles = Rule::parse("kayles").unwrap();
//! let values = engine::compute(&kayles, 12, engine::EngineKind::Exact).unwrap();
//! assert_eq!(values.to_u32s(), [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod api;
pub mod classes;
pub mod engine;
pub(crate) mod fxhash;
pub mod graph;
pub mod hackenbush;
pub mod mex;
pub mod misere;
pub mod numbers;
pub mod partizan;
pub mod position;
pub mod report;
pub mod resources;
pub mod rules;
pub mod survey;
pub mod table;
