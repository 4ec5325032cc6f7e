//! Sharding: splitting a survey into K deterministic, balanced parts.
//!
//! Part `I` of `K` (1-based, as `--shard I/K` and nextest's `--partition` count them) holds the
//! games that [`assign`] gives it. The assignment depends only on the list of games, N and K, so
//! every shard of a Slurm job array computes the same split without talking to the others.
//!
//! Balance: the cost of a game is dominated by its splitting digits (a digit with bit 4 costs
//! O(n) per heap in the exact engine, O(N²) in all, against O(N) for a game without splits), and
//! the games that need them sit in regular positions of the expanded list: in `0.???` every game
//! whose last digit is 4–7 splits. Interleaving (game `j` to shard `j mod K`) would therefore
//! put all the expensive games on half of the shards when K = 8. Instead [`assign`] estimates a
//! cost for every game ([`estimated_cost`]) and deals them out longest first, each to the shard
//! with the smallest total so far (ties: the lowest shard) — the classic LPT rule, within 4/3 of
//! the best possible makespan for the estimates.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::rules::Rule;

/// Part `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based part number.
    pub index: usize,
    /// Number of parts.
    pub count: usize,
}

/// Most shards a survey may be split into.
pub const MAX_SHARDS: usize = 100_000;

/// Why a shard cannot be determined.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShardError {
    /// `--shard` is not `I/K` with `1 ≤ I ≤ K`.
    #[error(
        "invalid shard '{text}': write I/K with 1 <= I <= K <= {MAX_SHARDS} (e.g. --shard 3/8)"
    )]
    Syntax {
        /// What was given.
        text: String,
    },
    /// The Slurm array variables are incomplete or inconsistent.
    #[error("cannot shard from the Slurm environment: {0} (or pass --shard I/K)")]
    Slurm(String),
}

impl Shard {
    /// The whole survey as one part.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Is this the whole survey?
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// The shard of a Slurm array task, from `SLURM_ARRAY_TASK_ID` and either
    /// `SLURM_ARRAY_TASK_COUNT` or `SLURM_ARRAY_TASK_MIN`/`_MAX`; `None` outside an array job.
    ///
    /// The array must be contiguous with step 1 (`--array=0-7` or `--array=1-8`, with any `%`
    /// throttle): task `MIN + j` is shard `j + 1` of `MAX − MIN + 1`. `var` looks a variable up
    /// (`|k| std::env::var(k).ok()` in the binary).
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, ShardError> {
        let Some(id) = var("SLURM_ARRAY_TASK_ID") else {
            return Ok(None);
        };
        let num = |name: &str, text: String| {
            text.trim()
                .parse::<usize>()
                .map_err(|_| ShardError::Slurm(format!("{name}='{text}' is not a number")))
        };
        let id = num("SLURM_ARRAY_TASK_ID", id)?;
        let min = var("SLURM_ARRAY_TASK_MIN")
            .map(|t| num("SLURM_ARRAY_TASK_MIN", t))
            .transpose()?;
        let max = var("SLURM_ARRAY_TASK_MAX")
            .map(|t| num("SLURM_ARRAY_TASK_MAX", t))
            .transpose()?;
        let count = var("SLURM_ARRAY_TASK_COUNT")
            .map(|t| num("SLURM_ARRAY_TASK_COUNT", t))
            .transpose()?;
        let (min, count) = match (min, max, count) {
            (Some(min), Some(max), count) => {
                if max < min {
                    return Err(ShardError::Slurm(format!(
                        "SLURM_ARRAY_TASK_MAX={max} is below SLURM_ARRAY_TASK_MIN={min}"
                    )));
                }
                let span = max - min + 1;
                if let Some(c) = count {
                    if c != span {
                        return Err(ShardError::Slurm(format!(
                            "the array {min}-{max} has {c} tasks, not {span}: only contiguous arrays with step 1 can be sharded"
                        )));
                    }
                }
                (min, span)
            }
            // Without MIN the array is taken to start at 0 (sbatch --array=0-K-1).
            (min, None, Some(c)) | (min @ None, Some(_), Some(c)) => (min.unwrap_or(0), c),
            _ => {
                return Err(ShardError::Slurm(
                    "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MIN/_MAX".into(),
                ))
            }
        };
        if id < min || id - min >= count || count > MAX_SHARDS {
            return Err(ShardError::Slurm(format!(
                "task {id} is outside the array of {count} tasks starting at {min}"
            )));
        }
        Ok(Some(Shard {
            index: id - min + 1,
            count,
        }))
    }
}

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Syntax {
            text: text.to_string(),
        };
        let (i, k) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = k.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A rough cost of computing `count` heaps of `rule`, in units of about one option visited.
///
/// Per heap: one unit per "take" digit; `n/2` per two-heap digit (pairs `(a, r − a)`); `n²/12`
/// per three-heap digit. Repeating tails count as if every heap could use every tail digit. The
/// figure orders games and balances shards; it is not a time prediction.
pub fn estimated_cost(rule: &Rule, count: u64) -> u128 {
    let digits = rule.finite_digits().iter().chain(rule.tail_digits());
    let (mut takes, mut twos, mut threes) = (0u128, 0u128, 0u128);
    for d in digits {
        takes += u128::from(d.takes_all()) + u128::from(d.leaves_one());
        twos += u128::from(d.leaves_two());
        threes += u128::from(d.leaves_three());
    }
    if !rule.is_finite() {
        // A tail digit applies to every k from its place on: about count of them per heap.
        let tail = rule.tail_digits();
        let per = u128::from(count) / tail.len().max(1) as u128;
        for d in tail {
            takes += per * (u128::from(d.takes_all()) + u128::from(d.leaves_one()));
            twos += per * u128::from(d.leaves_two());
            threes += per * u128::from(d.leaves_three());
        }
    }
    let n = u128::from(count);
    n * (1 + takes) + twos * n * n / 4 + threes * n * n * n / 36
}

/// The shard (0-based) of every game, given the games' costs: longest first, each to the least
/// loaded shard (see the module text). Deterministic: equal costs keep the list order.
pub fn assign(costs: &[u128], shards: usize) -> Vec<usize> {
    assert!(shards >= 1, "at least one shard");
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    // A min-heap of (load, shard): the least loaded shard, ties to the lowest index.
    let mut loads: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    let mut out = vec![0; costs.len()];
    for j in order {
        let std::cmp::Reverse((load, s)) = loads.pop().expect("shards >= 1");
        out[j] = s;
        // Every game counts at least 1, so that zero-cost games are spread out as well.
        loads.push(std::cmp::Reverse((load + costs[j].max(1), s)));
    }
    out
}

/// The indices (into the survey's list of games) that `shard` computes, in list order.
pub fn indices_of(costs: &[u128], shard: Shard) -> Vec<usize> {
    assign(costs, shard.count)
        .into_iter()
        .enumerate()
        .filter(|&(_, s)| s + 1 == shard.index)
        .map(|(j, _)| j)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn parses_i_of_k() {
        assert_eq!("3/8".parse::<Shard>(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!(" 1/1 ".parse::<Shard>(), Ok(Shard::WHOLE));
        for bad in [
            "0/8",
            "9/8",
            "3",
            "3/",
            "/8",
            "a/b",
            "1/0",
            "-1/2",
            "1/1000000",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
    }

    #[test]
    fn slurm_arrays_from_zero_and_from_one() {
        assert_eq!(Shard::from_slurm(env(&[])), Ok(None));
        let zero = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
        ]);
        assert_eq!(
            Shard::from_slurm(zero),
            Ok(Some(Shard { index: 1, count: 4 }))
        );
        let one = env(&[
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
        ]);
        assert_eq!(
            Shard::from_slurm(one),
            Ok(Some(Shard { index: 8, count: 8 }))
        );
        let count_only = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(
            Shard::from_slurm(count_only),
            Ok(Some(Shard { index: 3, count: 3 }))
        );
    }

    #[test]
    fn slurm_arrays_that_cannot_be_sharded() {
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ]);
        let e = Shard::from_slurm(stepped).unwrap_err().to_string();
        assert!(e.contains("contiguous"), "{e}");
        let alone = env(&[("SLURM_ARRAY_TASK_ID", "2")]);
        assert!(Shard::from_slurm(alone).is_err());
        let junk = env(&[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert!(Shard::from_slurm(junk)
            .unwrap_err()
            .to_string()
            .contains("SLURM_ARRAY_TASK_ID='x'"));
        let outside = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert!(Shard::from_slurm(outside).is_err());
    }

    #[test]
    fn splitting_games_cost_more() {
        let c = |code: &str| estimated_cost(&Rule::parse(code).unwrap(), 1 << 20);
        assert!(c("0.77") > 100 * c("0.33"));
        assert!(c("0.777") > c("0.77"));
        assert!(c("0.8") > c("0.77"));
        assert!(c("0.[3]") > c("0.333"));
    }

    #[test]
    fn lpt_beats_interleaving_on_octal_codes() {
        let games = crate::survey::pattern::expand("0.???").unwrap();
        let costs: Vec<u128> = games
            .iter()
            .map(|g| estimated_cost(&g.rule, 1 << 16))
            .collect();
        let k = 8;
        let makespan = |shard_of: &dyn Fn(usize) -> usize| {
            let mut load = vec![0u128; k];
            for (j, &c) in costs.iter().enumerate() {
                load[shard_of(j)] += c;
            }
            (*load.iter().max().unwrap(), *load.iter().min().unwrap())
        };
        let lpt = assign(&costs, k);
        let (hi, lo) = makespan(&|j| lpt[j]);
        let (ihi, _) = makespan(&|j| j % k);
        assert!(hi * 100 <= lo * 102, "LPT spread {hi} vs {lo}");
        // Interleaving puts the games ending in 4-7 (one more split each) on half the shards.
        assert!(ihi > hi * 5 / 4, "interleaving {ihi} vs LPT {hi}");
    }

    proptest! {
        #[test]
        fn shards_partition_the_games(
            costs in prop::collection::vec(0u128..1000, 0..200),
            k in 1usize..20,
        ) {
            let mut seen = vec![0; costs.len()];
            for i in 1..=k {
                for j in indices_of(&costs, Shard { index: i, count: k }) {
                    seen[j] += 1;
                }
            }
            prop_assert!(seen.iter().all(|&s| s == 1));
            // Deterministic.
            prop_assert_eq!(assign(&costs, k), assign(&costs, k));
            // The first K games (longest first) go to K different shards: none is left empty.
            let a = assign(&costs, k);
            let mut n = vec![0usize; k];
            for s in a { n[s] += 1; }
            if costs.len() >= k {
                prop_assert!(n.iter().all(|&c| c >= 1));
            }
        }
    }
}
