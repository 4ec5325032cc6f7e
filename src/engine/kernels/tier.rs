//! The instruction-set tiers the engine's hot paths are compiled for, as one table: each tier's
//! name, the architecture it is for, the exact processor features it needs, and what it runs
//! (a tier of another architecture is refused as such: "avx2 is an x86-64 tier"). Detection, forcing a tier by
//! name (`NIMSEQ_ISA`, read at the program's edge by [`crate::engine::Tuning`]), listing, and the
//! `#[target_feature]` attribute of every function compiled per tier ([`tier_code!`]) all read
//! this one table, so that a tier's features are written once.
//!
//! A [`Tier`] can only be had from detection ([`Tier::best`], [`Tier::available`],
//! [`Tier::named`]): holding one proves that the processor has its features, which is what makes
//! its kernels safe to call. Every choice that depends on the tier (which scan, which lanes,
//! which set of targets) is a method here with an exhaustive `match` on [`TierKind`]: a new tier
//! is a compile error at each choice until it has been thought through. Kernels are gated on
//! what they use, not on the tier (primesieve's way): the AVX-512 tier without VBMI runs the
//! kernels that need only AVX-512 F/BW, and AVX2's where a kernel needs more.
//!
//! Every tier but [`TierKind::Portable`] is for one architecture: x86-64 has the AVX2 and
//! AVX-512 tiers, aarch64 the `neon` tier (`neon.rs`: the scans with `tbl` lookups, step 1 and
//! the scan's head in 16-bit lanes; NEON is part of every aarch64 processor, so the tier is
//! always there, but it is still a value had from detection, so that its kernels are reached
//! only through it). `NIMSEQ_ISA=portable` forces
//! the plain loops on either. The portable loops are written to be vectorised by the compiler
//! at 128 bits (SSE2, NEON).

use std::fmt;

/// Declares the tiers: [`TierKind`], their table ([`TIERS`]) and [`tier_code!`], which compiles
/// functions with a tier's features. `$d` is a `$` token, passed in so that the inner macro can
/// have repetitions of its own.
macro_rules! tiers {
    ($d:tt $( $(#[$doc:meta])* $kind:ident $name:literal $arch:literal [$features:literal] ;)*) => {
        /// The tiers, least first (the order of [`TIERS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum TierKind {
            /// The build's baseline (SSE2 on x86-64, NEON on aarch64): plain Rust loops.
            Portable,
            $( $(#[$doc])* $kind, )*
        }

        /// Every tier: its kind, name, the architecture it is for (`None`: every one) and the
        /// processor features it needs (comma-separated, as `#[target_feature]` and
        /// `is_x86_feature_detected!` name them).
        pub const TIERS: &[TierInfo] = &[
            TierInfo { kind: TierKind::Portable, name: "portable", arch: None, features: "" },
            $( TierInfo {
                kind: TierKind::$kind,
                name: $name,
                arch: Some($arch),
                features: $features,
            }, )*
        ];

        /// Compiles the items that follow the tier's name with the tier's features enabled
        /// (`#[target_feature]`); they are `unsafe fn`s, to be called only by a holder of a
        /// [`Tier`] of that kind.
        macro_rules! tier_code {
            $( ($kind, $d($d item:item)*) => {
                $d( #[cfg(target_arch = $arch)] #[target_feature(enable = $features)] $d item )*
            }; )*
        }
        pub(crate) use tier_code;
    };
}

tiers! { $
    /// aarch64 with NEON (every aarch64 processor: Graviton, Grace, Ampere, Apple): the scans
    /// 32 pairs a step with `tbl` lookups in the 256-bit set of the targets' keys, step 1 and
    /// the scan's head in 16-bit lanes (8 heaps a register). Its speed is not yet measured on
    /// ARM hardware (`results/arm.md`: instruction counts under emulation only).
    Neon "neon" "aarch64" ["neon"];
    /// x86-64 with AVX2 (Haswell, Zen 1–3): 32 pairs a step, step 1 in 8 lanes of 32 bits.
    Avx2 "avx2" "x86_64" ["avx2,bmi1,bmi2,popcnt,lzcnt"];
    /// x86-64 with the first AVX-512 extensions (Skylake-SP, Cascade Lake: F, BW, VL, DQ, CD),
    /// no VBMI: step 1 in 32 lanes of 16 bits, the scan's head in 16 lanes of 32 bits, the
    /// AVX2 scans (in runs).
    Avx512Bw "avx512bw" "x86_64" ["avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512cd"];
    /// x86-64 with the AVX-512 extensions of Ice Lake and Zen 4 (also VBMI, VBMI2, BITALG):
    /// scans of 64 pairs with byte permutations and compress.
    Avx512Vbmi "avx512vbmi" "x86_64" ["avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx512vbmi,avx512vbmi2,avx512bitalg"];
}

/// One line of the table of tiers.
#[derive(Debug, Clone, Copy)]
pub struct TierInfo {
    /// Which tier.
    pub kind: TierKind,
    /// The name `NIMSEQ_ISA` and `nimseq --version` use.
    pub name: &'static str,
    /// The architecture the tier is for, as `target_arch` names it (`None`: every one).
    pub arch: Option<&'static str>,
    /// The processor features it needs, comma-separated.
    pub features: &'static str,
}

impl TierInfo {
    /// The features one by one.
    pub fn feature_list(&self) -> impl Iterator<Item = &'static str> {
        self.features.split(',').filter(|f| !f.is_empty())
    }
}

/// Whether the processor has the feature named as `#[target_feature]` names it.
fn has_feature(name: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::is_x86_feature_detected as has;
        match name {
            "avx2" => has!("avx2"),
            "bmi1" => has!("bmi1"),
            "bmi2" => has!("bmi2"),
            "popcnt" => has!("popcnt"),
            "lzcnt" => has!("lzcnt"),
            "avx512f" => has!("avx512f"),
            "avx512bw" => has!("avx512bw"),
            "avx512vl" => has!("avx512vl"),
            "avx512dq" => has!("avx512dq"),
            "avx512cd" => has!("avx512cd"),
            "avx512vbmi" => has!("avx512vbmi"),
            "avx512vbmi2" => has!("avx512vbmi2"),
            "avx512bitalg" => has!("avx512bitalg"),
            _ => false,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match name {
            "neon" => std::arch::is_aarch64_feature_detected!("neon"),
            _ => false,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = name;
        false
    }
}

/// An instruction-set tier that this processor has: the proof its kernels need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tier(TierKind);

/// A tier name that is unknown, or names a tier this processor lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TierError {
    /// No tier has this name.
    #[error("unknown instruction-set tier '{name}': this processor has {}", list(.available))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The tiers this processor has.
        available: Vec<&'static str>,
    },
    /// The tier is for another architecture than this processor's.
    #[error("{name} is an {} tier; this processor has: {}", arch_name(.arch), list(.available))]
    OtherArch {
        /// The tier asked for.
        name: String,
        /// The architecture it is for, as `target_arch` names it.
        arch: &'static str,
        /// The tiers this processor has.
        available: Vec<&'static str>,
    },
    /// The processor lacks features of the tier.
    #[error("this processor lacks {missing} for the tier '{name}': it has {}", list(.available))]
    Unavailable {
        /// The tier asked for.
        name: String,
        /// The features it lacks, comma-separated.
        missing: String,
        /// The tiers this processor has.
        available: Vec<&'static str>,
    },
}

fn list(names: &[&str]) -> String {
    names.join(", ")
}

/// An architecture as people write it.
fn arch_name(arch: &str) -> &str {
    match arch {
        "x86_64" => "x86-64",
        other => other,
    }
}

impl Tier {
    /// The portable tier, which every processor has.
    pub const PORTABLE: Tier = Tier(TierKind::Portable);

    /// The line of the table.
    pub fn info(self) -> &'static TierInfo {
        TIERS
            .iter()
            .find(|t| t.kind == self.0)
            .expect("every kind has its line")
    }

    /// Which tier this is.
    pub fn kind(self) -> TierKind {
        self.0
    }

    /// The tier's name in the table.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Whether the processor has every feature of `info`.
    fn present(info: &TierInfo) -> bool {
        info.feature_list().all(has_feature)
    }

    /// Every tier this processor has, least first (for tests, which run them all).
    pub fn available() -> Vec<Tier> {
        TIERS
            .iter()
            .filter(|t| Tier::present(t))
            .map(|t| Tier(t.kind))
            .collect()
    }

    /// The best tier this processor has.
    pub fn best() -> Tier {
        *Tier::available().last().expect("the portable tier")
    }

    /// The tier named `name` (as in [`TIERS`]), if this processor has it.
    pub fn named(name: &str) -> Result<Tier, TierError> {
        Tier::named_on(name, std::env::consts::ARCH)
    }

    /// [`Tier::named`] on a processor of the architecture `arch` (`target_arch`'s name): a tier
    /// of another is refused as such, not for the features it lacks.
    fn named_on(name: &str, arch: &str) -> Result<Tier, TierError> {
        let available = || Tier::available().iter().map(|t| t.name()).collect();
        let Some(info) = TIERS
            .iter()
            .find(|t| t.name == name.trim().to_ascii_lowercase())
        else {
            return Err(TierError::Unknown {
                name: name.to_string(),
                available: available(),
            });
        };
        if let Some(other) = info.arch.filter(|&a| a != arch) {
            return Err(TierError::OtherArch {
                name: info.name.to_string(),
                arch: other,
                available: available(),
            });
        }
        let missing: Vec<&str> = info.feature_list().filter(|f| !has_feature(f)).collect();
        if !missing.is_empty() {
            return Err(TierError::Unavailable {
                name: info.name.to_string(),
                missing: missing.join(", "),
                available: available(),
            });
        }
        Ok(Tier(info.kind))
    }

    /// The scan and set of targets this tier runs ([`super::Targets`]).
    pub(super) fn target_set(self) -> TargetSet {
        match self.0 {
            TierKind::Portable => TargetSet::Map,
            TierKind::Neon => TargetSet::NeonKeys,
            TierKind::Avx2 | TierKind::Avx512Bw => TargetSet::Avx2Keys,
            TierKind::Avx512Vbmi => TargetSet::Vbmi,
        }
    }

    /// Whether step 1 in vector lanes reads the words of the heaps' values (AVX2's lanes:
    /// `LaneWords`) rather than the values.
    pub(crate) fn lane_words(self) -> bool {
        match self.lanes() {
            Lanes::Avx2 | Lanes::Neon => true,
            Lanes::None | Lanes::Avx512Bw | Lanes::Vbmi => false,
        }
    }

    /// Whether step 1's lanes mark nothing for the pairs of a heap past the last one with a
    /// word ([`super::LaneWords::past`]): AVX2's 32-bit lanes read the whole padding word;
    /// NEON's read its low 16 bits, which no word can keep from marking.
    pub(crate) fn lanes_past_words(self) -> bool {
        match self.lanes() {
            Lanes::Avx2 => true,
            Lanes::None | Lanes::Neon | Lanes::Avx512Bw | Lanes::Vbmi => false,
        }
    }

    /// Which kernel marks step 1 in vector lanes.
    pub(super) fn lanes(self) -> Lanes {
        match self.0 {
            TierKind::Portable => Lanes::None,
            TierKind::Neon => Lanes::Neon,
            TierKind::Avx2 => Lanes::Avx2,
            TierKind::Avx512Bw => Lanes::Avx512Bw,
            TierKind::Avx512Vbmi => Lanes::Vbmi,
        }
    }

    /// The most registers of 16 keys a lane worth choosing for step 1 in lanes: AVX2's lanes
    /// pay more a register (Officers at 2^21, one thread, on Zen 4, min user CPU of 5: 2.58 s
    /// on 8, 2.50 s on 10, 2.59 s on 12, 2.84 s on 16; before the lanes had a function of
    /// their own, 10 and more were spilled to memory and took 2.9–3.0 s).
    pub(crate) fn most_lane_regs(self) -> usize {
        match self.0 {
            TierKind::Portable | TierKind::Neon | TierKind::Avx2 => 12,
            TierKind::Avx512Bw | TierKind::Avx512Vbmi => 16,
        }
    }

    /// Whether the far scans look for their last few targets by value (the engine's witness
    /// search) by default: where pairs are scanned one at a time, a few dozen looks by value
    /// are cheaper than the hundreds of pairs in order that the last targets take; the vector
    /// scans go through a pair in well under a cycle, and the search only slowed them (Grundy's
    /// game at 2^21 on Zen 4, one thread: portable 4.70 → 3.45 s at 2^20; AVX2 2.14 → 2.24 s at
    /// its best settings, 2.57 s at the portable ones). Since the portable loops store their
    /// scan's head in the rows ([`Tier::stores_head`]), few pairs are left to scan after it and
    /// the search no longer pays there either (Intel Xeon, one thread: Officers 2^20 1.85 →
    /// 1.70 s, Grundy's game 2^21 2.82 → 2.74 s, 2^22 6.11 → 5.86 s without it).
    pub(crate) fn searches_witnesses(self) -> bool {
        match self.0 {
            // As the x86 vector scans (unmeasured on ARM hardware).
            TierKind::Portable
            | TierKind::Neon
            | TierKind::Avx2
            | TierKind::Avx512Bw
            | TierKind::Avx512Vbmi => false,
        }
    }

    /// Pairs of each far scan marked before it (the scan's head, `sparse/head.rs`; 0: none) by
    /// default. On the Intel Xeon of results/bench.md (one thread, Officers 2^20 / Grundy's
    /// game 2^21, none → 1024 pairs in lanes): avx2 −17 % / −19 %, avx512bw −19 % / −27 %,
    /// avx512vbmi −3 % / −15 % (512 pairs: −6 % / −10 %); the portable loop in lanes, a branch
    /// a pair, gained nothing (+2 % / −2 %), its head stored in the rows ([`Tier::stores_head`])
    /// −36 % / −37 % at 2048 pairs with the witness search on (512: −17 %, 1024: −31 % / −35 %,
    /// 3072 and 4096 less than 2048); with the search off, 1536 pairs (Grundy's game −3…−6 %
    /// against 2048, Officers level to −5 %; 1280 and 1792 no better: results/avx2-methods.md
    /// §19). NEON's head in 16-bit lanes: as the x86 tiers, unmeasured on ARM hardware (under
    /// emulation, fewer instructions executed: `results/arm.md`).
    pub(crate) fn head_pairs(self) -> usize {
        match self.0 {
            TierKind::Neon | TierKind::Avx2 | TierKind::Avx512Bw | TierKind::Avx512Vbmi => 1024,
            TierKind::Portable => 1536,
        }
    }

    /// Whether the scan's head is stored in the mark rows, a byte a pair as step 1's columns
    /// (`Sparse::stored_heads`), rather than marked in lanes into key sets: the portable loops,
    /// whose lane head (a compare and a branch a pair) gained nothing.
    pub(crate) fn stores_head(self) -> bool {
        match self.0 {
            TierKind::Portable => true,
            TierKind::Neon | TierKind::Avx2 | TierKind::Avx512Bw | TierKind::Avx512Vbmi => false,
        }
    }

    /// Whether the scan's head reads its columns sorted by the register of keys each can reach
    /// (`HeadColumns`, made once a block): AVX2's head kernel does (Officers 2^20 −6…−11 % on
    /// the Intel Xeon), and the AVX-512 tiers' (16 heaps in 32-bit lanes) too: AVX-512 BW's
    /// first head (32 heaps in 16-bit lanes, every register of every column) was slower on
    /// Officers (2^20, one thread, min user CPU of 3: avx512bw 0.77 → 0.72 s, avx512vbmi 0.69
    /// → 0.66–0.68 s with AVX2's) and no faster on Grundy's game (1.09 s both, of 5). NEON's
    /// and the portable loop read the columns as they are.
    pub(super) fn sorts_head_columns(self) -> bool {
        match self.0 {
            TierKind::Avx2 | TierKind::Avx512Bw | TierKind::Avx512Vbmi => true,
            TierKind::Portable | TierKind::Neon => false,
        }
    }

    /// Runs the far scans take their steps from in turn, by default (`kernels/runs.rs`; 1: in
    /// order). Only the AVX2 loops take runs, which the AVX-512 BW tier runs too: its own
    /// scans of 64 pairs a step, in order, were slower than AVX2's in four runs (Intel Xeon,
    /// one thread, Grundy's game 2^21: 1.20 → 0.99 s with its lanes' change, results/avx2-methods.md §17).
    pub(crate) fn scan_runs(self) -> usize {
        match self.0 {
            TierKind::Avx2 | TierKind::Avx512Bw => 4,
            TierKind::Portable | TierKind::Neon | TierKind::Avx512Vbmi => 1,
        }
    }

    /// Whether the scan on byte keys (`scan_keys`) runs: it needs a vector set of targets.
    pub(crate) fn scans_keys(self) -> bool {
        match self.target_set() {
            TargetSet::Map => false,
            TargetSet::NeonKeys | TargetSet::Avx2Keys | TargetSet::Vbmi => true,
        }
    }

    /// Proof of NEON (aarch64).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    pub(super) fn neon(self) -> Option<Neon> {
        match self.0 {
            TierKind::Neon => Some(Neon(())),
            TierKind::Portable | TierKind::Avx2 | TierKind::Avx512Bw | TierKind::Avx512Vbmi => None,
        }
    }

    /// Proof of AVX2 (with BMI1/2, POPCNT, LZCNT), which every x86 vector tier includes.
    pub(super) fn avx2(self) -> Option<Avx2> {
        match self.0 {
            TierKind::Portable | TierKind::Neon => None,
            TierKind::Avx2 | TierKind::Avx512Bw | TierKind::Avx512Vbmi => Some(Avx2(())),
        }
    }

    /// Proof of AVX-512 F, BW, VL, DQ and CD.
    pub(super) fn avx512bw(self) -> Option<Avx512Bw> {
        match self.0 {
            TierKind::Portable | TierKind::Neon | TierKind::Avx2 => None,
            TierKind::Avx512Bw | TierKind::Avx512Vbmi => Some(Avx512Bw(())),
        }
    }

    /// Proof of AVX-512 with VBMI, VBMI2 and BITALG.
    pub(super) fn avx512vbmi(self) -> Option<Avx512Vbmi> {
        match self.0 {
            TierKind::Portable | TierKind::Neon | TierKind::Avx2 | TierKind::Avx512Bw => None,
            TierKind::Avx512Vbmi => Some(Avx512Vbmi(())),
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The set of targets a scan keeps, and so the scan that reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TargetSet {
    /// A byte a value and a list (the portable scan).
    Map,
    /// The 512-bit set of the values and the 256-bit set of their keys, as
    /// [`TargetSet::Avx2Keys`], read by the NEON scans (`tbl` lookups).
    NeonKeys,
    /// The 512-bit set of the values and the 256-bit set of their keys (the AVX2 scans).
    Avx2Keys,
    /// The 512-bit set of the values (the AVX-512 VBMI scans).
    Vbmi,
}

/// The kernel of step 1 in lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lanes {
    None,
    /// 8 heaps in 32-bit lanes, reading the words of `LaneWords`.
    Avx2,
    /// 8 heaps in 16-bit lanes (NEON's `ushl`), reading the words of `LaneWords`.
    Neon,
    /// 32 heaps in 16-bit lanes, rows written with AVX-512 BW.
    Avx512Bw,
    /// 32 heaps in 16-bit lanes, rows written with VBMI permutations.
    Vbmi,
}

/// Proof that the processor has NEON: made only by [`Tier::neon`].
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(super) struct Neon(());

/// Proof that the processor has AVX2, BMI1, BMI2, POPCNT and LZCNT: made only by
/// [`Tier::avx2`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx2(());

/// Proof that the processor has AVX-512 F, BW, VL, DQ, CD and AVX2's features.
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx512Bw(());

/// Proof that the processor has AVX-512 with VBMI, VBMI2, BITALG and AVX2's features.
#[derive(Debug, Clone, Copy)]
pub(super) struct Avx512Vbmi(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_ordered_and_complete() {
        assert_eq!(TIERS[0].kind, TierKind::Portable);
        for pair in TIERS.windows(2) {
            assert!(pair[0].kind < pair[1].kind);
            // Each tier has every feature of the one before it of its architecture, so "best"
            // is the last present.
            if pair[0].arch != pair[1].arch {
                continue;
            }
            for f in pair[0].feature_list() {
                assert!(
                    pair[1].feature_list().any(|g| g == f),
                    "{} lacks {f}",
                    pair[1].name
                );
            }
        }
        // The tiers of an architecture are together, so that the last present is the best.
        let arches: Vec<_> = TIERS.iter().filter_map(|t| t.arch).collect();
        for w in arches.windows(3) {
            assert!(!(w[0] == w[2] && w[0] != w[1]), "{arches:?}");
        }
        for t in TIERS {
            for f in t.feature_list() {
                // Every feature the table names is one detection knows.
                #[cfg(target_arch = "x86_64")]
                assert!(
                    has_feature(f) || !Tier::available().iter().any(|a| a.kind() == t.kind),
                    "{f}"
                );
                let _ = f;
            }
        }
    }

    #[test]
    fn names_are_refused_with_the_list_of_tiers() {
        assert_eq!(Tier::named("portable"), Ok(Tier::PORTABLE));
        let e = Tier::named("bogus").unwrap_err();
        assert!(e
            .to_string()
            .contains("unknown instruction-set tier 'bogus'"));
        assert!(e.to_string().contains("portable"));
        for t in Tier::available() {
            assert_eq!(Tier::named(t.name()), Ok(t));
            assert_eq!(Tier::named(&t.name().to_uppercase()), Ok(t));
        }
        for info in TIERS {
            if !Tier::available().iter().any(|t| t.kind() == info.kind) {
                let e = Tier::named(info.name).unwrap_err();
                assert!(
                    matches!(
                        e,
                        TierError::Unavailable { .. } | TierError::OtherArch { .. }
                    ),
                    "{e}"
                );
            }
        }
        assert_eq!(Tier::best(), *Tier::available().last().unwrap());
    }

    /// On aarch64 (or any processor but x86-64) an x86 tier is refused as a tier of another
    /// architecture, with the tiers this processor has (it said "lacks avx2, bmi1, …": true,
    /// but odd).
    #[test]
    fn tiers_of_another_architecture_are_refused_as_such() {
        for (arch, other) in [("aarch64", "x86-64"), ("x86_64", "aarch64")] {
            for info in TIERS.iter().filter(|t| t.arch.is_some_and(|a| a != arch)) {
                let e = Tier::named_on(info.name, arch).unwrap_err();
                assert!(matches!(e, TierError::OtherArch { .. }), "{e}");
                let want = format!(
                    "{} is an {other} tier; this processor has: portable",
                    info.name
                );
                assert!(e.to_string().starts_with(&want), "{e}");
            }
            assert_eq!(Tier::named_on("portable", arch), Ok(Tier::PORTABLE));
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert!(matches!(
            Tier::named("avx2"),
            Err(TierError::OtherArch { .. })
        ));
        #[cfg(not(target_arch = "aarch64"))]
        assert!(matches!(
            Tier::named("neon"),
            Err(TierError::OtherArch { .. })
        ));
        // NEON is part of every aarch64 processor.
        #[cfg(target_arch = "aarch64")]
        assert_eq!(Tier::best().kind(), TierKind::Neon);
    }
}
