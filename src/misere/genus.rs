//! The genus `g⁺^(λ0 λ1 λ2 …)` of an impartial game (Conway, ONAG ch. 12; Winning Ways ch. 13).
//!
//! `g⁺` is the normal-play Grundy value and `λk = g⁻(G + k·*2)`, the misère Grundy value of
//! the game plus `k` nim heaps of size 2. ONAG ch. 12 ("The misère Grundy value") computes the
//! whole sequence from the options' sequences: `λ0 = g⁻(G)` (1 if `G` has no option, else the
//! mex of the options' `λ0`), and for `k ≥ 1`, `λk` is the least number that is neither
//! `λ(k−1)` nor `λ(k−1) ⊕ 1` nor the `λk` of any option. (The options of `G + k·*2` are the
//! `G' + k·*2`, and `G + (k−1)·*2 + *m` for `m = 0, 1`, whose misère values are `λ(k−1)` and
//! `λ(k−1) ⊕ 1` because adding `*` nim-adds 1 to `g⁻`.)
//!
//! # Where the sequence is cut (the stopping rule)
//!
//! Conway shows that `λ(k+2) = λk` from some point on; the superscript is written up to the
//! point where its last two entries alternate forever, and never shorter than two entries
//! (`0^120`, `1^031`, `2^20`, `0^02`). We do not assume the theorem, we verify it: once `k`
//! exceeds the written length of every option's superscript, the options' entries repeat with
//! period 2, so `λk` is a function of (`k mod 2`, `λ(k−1)`) only. That state takes at most
//! `2·(options + 3)` values, so it repeats after a bounded number of steps; from the first
//! repetition the sequence is exactly periodic, and we check that the period is 2
//! ([`MisereError::GenusNotAlternating`] otherwise — which Conway's theorem says cannot
//! happen). The written superscript is then the shortest prefix after which every entry equals
//! the one two places before.

use super::MisereError;

/// A genus: the normal value and the misère superscript.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Genus {
    /// The normal-play Grundy value `g⁺`.
    pub g_plus: u32,
    /// `λ0, λ1, …`, written up to the point where the last two alternate forever (at least two).
    pub lambdas: Vec<u32>,
}

impl Genus {
    /// The misère Grundy value `g⁻ = λ0`.
    pub fn g_minus(&self) -> u32 {
        self.lambdas[0]
    }

    /// `λk` for any `k`, following the alternation of the last two written entries.
    pub fn lambda(&self, k: usize) -> u32 {
        lambda_at(&self.lambdas, k)
    }

    /// Is this one of the tame genera `0^120`, `1^031`, `n^(n, n⊕2)`?
    pub fn is_tame(&self) -> bool {
        is_tame_genus(self.g_plus, &self.lambdas)
    }
}

/// Entry `k` of a written superscript (length ≥ 2): past its end, the last two alternate.
#[inline]
pub fn lambda_at(written: &[u32], k: usize) -> u32 {
    let len = written.len();
    if k < len {
        written[k]
    } else {
        written[len - 2 + (k - (len - 2)) % 2]
    }
}

/// Is `g⁺^(written)` a tame genus: `0^120`, `1^031` or `n^(n, n⊕2)` (the genera of Nim
/// positions, ONAG ch. 12, "Tame games")?
pub fn is_tame_genus(g_plus: u32, written: &[u32]) -> bool {
    match written {
        [1, 2, 0] => g_plus == 0,
        [0, 3, 1] => g_plus == 1,
        [a, b] => *a == g_plus && *b == g_plus ^ 2,
        _ => false,
    }
}

/// The written superscript of a game from its options' written superscripts (`terminal`
/// when it has no option). See the module docs for the rule and the stopping rule.
pub fn lambdas_from_options<'a>(
    options: impl Iterator<Item = &'a [u32]> + Clone,
    terminal: bool,
) -> Result<Vec<u32>, MisereError> {
    let count = options.clone().count();
    // After this index every option's entries repeat with period 2.
    let settled = options.clone().map(|w| w.len()).max().unwrap_or(2);
    let mut lam: Vec<u32> = Vec::with_capacity(settled + 8);
    lam.push(if terminal {
        1
    } else {
        mex_with(options.clone().map(|w| w[0]), None)
    });
    // state index: (k mod 2, λ(k−1)) for k ≥ settled
    let mut first_at: std::collections::HashMap<(usize, u32), usize> = Default::default();
    let bound = settled + 2 * (count + 4) + 4;
    let mut k = 1;
    loop {
        let prev = lam[k - 1];
        if k >= settled {
            if let Some(&k1) = first_at.get(&(k % 2, prev)) {
                let period = k - k1;
                if period != 2 {
                    return Err(MisereError::GenusNotAlternating { period });
                }
                // λ is periodic with period 2 from index k1 − 1 on.
                let mut s = k1 - 1;
                while s > 0 && lam[s - 1] == lam[s + 1] {
                    s -= 1;
                }
                lam.truncate((s + 2).max(2));
                return Ok(lam);
            }
            first_at.insert((k % 2, prev), k);
        }
        if k > bound {
            // Cannot happen: the state space is finite and smaller than the bound.
            return Err(MisereError::GenusNotAlternating { period: 0 });
        }
        let v = mex_with(options.clone().map(|w| lambda_at(w, k)), Some(prev));
        lam.push(v);
        k += 1;
    }
}

/// The mex of `values` and, if given, of `x` and `x ⊕ 1`.
fn mex_with(values: impl Iterator<Item = u32>, x: Option<u32>) -> u32 {
    crate::mex::mex(values.chain(x.into_iter().flat_map(|x| [x, x ^ 1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(opts: &[&[u32]]) -> Vec<u32> {
        lambdas_from_options(opts.iter().copied(), opts.is_empty()).unwrap()
    }

    #[test]
    fn nim_heaps() {
        let zero = from(&[]);
        assert_eq!(zero, [1, 2, 0]);
        let one = from(&[&zero]);
        assert_eq!(one, [0, 3, 1]);
        let two = from(&[&zero, &one]);
        assert_eq!(two, [2, 0]);
        let three = from(&[&zero, &one, &two]);
        assert_eq!(three, [3, 1]);
        assert!(is_tame_genus(0, &zero));
        assert!(is_tame_genus(1, &one));
        assert!(is_tame_genus(2, &two));
        assert!(!is_tame_genus(2, &one));
    }

    #[test]
    fn lambda_alternates_after_written_end() {
        let w = [1, 2, 0];
        let seq: Vec<u32> = (0..7).map(|k| lambda_at(&w, k)).collect();
        assert_eq!(seq, [1, 2, 0, 2, 0, 2, 0]);
        let w = [1, 4, 6];
        assert_eq!(lambda_at(&w, 3), 4);
        assert_eq!(lambda_at(&w, 4), 6);
    }
}
