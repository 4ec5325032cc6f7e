//! The cost of a long run, said before it starts: both faces warn with the same estimate and
//! the same words (the binary on stderr, Python with `warnings.warn`). Hexadecimal codes and
//! tails that split cost O(n²) options a heap, O(N³) in all ([`estimated_options`]); a run
//! estimated at half a minute or more is worth a warning, since 2^16 heaps of `0.3F` take
//! hours.

use std::fmt;

use serde::Serialize;

use super::run::{estimated_options, is_costly};
use crate::rules::Rule;

/// Options the exact engine looks at a second on one core of this project's machine (a 2-core
/// AMD EPYC Zen 4): the rate the estimate converts to time with.
pub const OPTIONS_PER_SECOND: f64 = 5e8;

/// Runs estimated at fewer seconds than this get no warning.
pub const WARN_SECONDS: f64 = 30.0;

/// The estimated cost of computing heaps `0 .. count` of a costly rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostEstimate {
    /// The rule's code.
    pub game: String,
    /// Heaps to compute.
    pub count: u64,
    /// Options the exact engine would look at ([`estimated_options`]).
    pub options: f64,
    /// Seconds on one core at [`OPTIONS_PER_SECOND`].
    pub seconds: f64,
}

/// The estimate for heaps `0 .. count` of `rule` when it is worth a warning: `rule` costs
/// O(N³) ([`is_costly`]) and the run is estimated at [`WARN_SECONDS`] or more. `None` otherwise.
pub fn cost_warning(rule: &Rule, count: u64) -> Option<CostEstimate> {
    if !is_costly(rule) {
        return None;
    }
    let options = estimated_options(rule, count);
    let seconds = options / OPTIONS_PER_SECOND;
    (seconds >= WARN_SECONDS).then(|| CostEstimate {
        game: rule.code(),
        count,
        options,
        seconds,
    })
}

/// "0.3F: heap n costs about n^2 options (O(N^3) in all): about 7.8e12 options for N = 65536,
/// roughly 4 hours at 5e8 options a second".
impl fmt::Display for CostEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let time = match self.seconds {
            s if s < 5400.0 => format!("{:.0} minutes", s / 60.0),
            s if s < 2.0 * 86400.0 => format!("{:.0} hours", s / 3600.0),
            s => format!("{:.0} days", s / 86400.0),
        };
        write!(
            f,
            "{}: heap n costs about n^2 options (O(N^3) in all): about {:.1e} options for N = \
             {}, roughly {time} at {OPTIONS_PER_SECOND:.0e} options a second",
            self.game, self.options, self.count
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warned_only_when_costly_and_long() {
        let hex = Rule::parse("0.3F").unwrap();
        // 2^16 heaps of 0.3F: N^3/36 options, about 7.8e12: hours.
        let e = cost_warning(&hex, 1 << 16).expect("a long run");
        assert!((0.8..1.2).contains(&(e.options / (65536f64.powi(3) / 36.0))));
        assert_eq!(e.seconds, e.options / OPTIONS_PER_SECOND);
        let text = e.to_string();
        assert!(
            text.starts_with("0.3F: heap n costs") && text.contains("hours"),
            "{text}"
        );
        // A short run of the same code, and a long run of a linear code: no warning.
        assert_eq!(cost_warning(&hex, 1000), None);
        assert_eq!(cost_warning(&Rule::parse("0.6").unwrap(), 1 << 30), None);
    }
}
