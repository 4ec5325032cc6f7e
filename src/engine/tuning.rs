//! How the sparse engine is tuned: the instruction-set tier its hot paths run on, and the
//! switches kept for comparisons and debugging (step 1 in lanes, the scan on byte keys, small
//! mode, the pipeline, the witness search, the scan's head in lanes, the scan's runs). A [`Tuning`]
//! is a value: the program's edges (the binary, the Python module, the benchmarks) read it once
//! from the environment ([`Tuning::from_env`]: `NIMSEQ_ISA`, `NIMSEQ_LANES`, `NIMSEQ_KEYS`,
//! `NIMSEQ_SMALL`, `NIMSEQ_PIPELINE`, `NIMSEQ_WITNESS`, `NIMSEQ_HEAD`, `NIMSEQ_STREAMS`), refuse
//! what they cannot honour, and make it the process's ([`Tuning::install`]); the engine never reads the
//! environment. Without one installed, engines take [`Tuning::best`].

use std::sync::OnceLock;

use super::kernels::{LaneKeys, Tier, TierError};

/// Step 1 in vector lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneChoice {
    /// Registers chosen from the values (the default).
    Auto,
    /// No lanes: a store a pair.
    Off,
    /// This many registers of 16 keys (one of [`Tuning::LANE_REGS`]).
    Regs(usize),
}

/// The engine's tier and switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// The instruction-set tier of the hot paths.
    pub tier: Tier,
    /// Step 1 in vector lanes.
    pub lanes: LaneChoice,
    /// The scan on byte keys (else on the cells only).
    pub scan_keys: bool,
    /// Small mode (one mark word a heap while values are below 64).
    pub small_mode: bool,
    /// The blocks in a pipeline (`None`: from four threads on).
    pub pipeline: Option<bool>,
    /// The witness search of the scans' last targets (`None`: where the tier's scans are
    /// scalar).
    pub witnesses: Option<bool>,
    /// Pairs of each far scan marked in lanes first, the scan's head (`Some(0)`: none;
    /// `None`: as the tier says).
    pub head: Option<usize>,
    /// Runs each far scan takes its steps from in turn (`Some(1)`: in order; `None`: as the
    /// tier says).
    pub streams: Option<usize>,
}

/// A tuning variable with a value the engine cannot honour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TuningError {
    /// `NIMSEQ_ISA` names no tier this processor has.
    #[error("NIMSEQ_ISA: {0}")]
    Tier(#[from] TierError),
    /// Another variable has a value it does not take.
    #[error("{var}={value}: expected {expected}")]
    Value {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What it takes.
        expected: String,
    },
}

static INSTALLED: OnceLock<Tuning> = OnceLock::new();

impl Tuning {
    /// The register counts step 1 in lanes is compiled for.
    pub const LANE_REGS: [usize; 7] = LaneKeys::REGS;

    /// The longest head `NIMSEQ_HEAD` takes, in pairs.
    pub const MOST_HEAD_PAIRS: usize = 4096;

    /// The best tier of this processor, every switch at its default.
    pub fn best() -> Tuning {
        Tuning::with_tier(Tier::best())
    }

    /// `tier`, every switch at its default.
    pub fn with_tier(tier: Tier) -> Tuning {
        Tuning {
            tier,
            lanes: LaneChoice::Auto,
            scan_keys: true,
            small_mode: true,
            pipeline: None,
            witnesses: None,
            head: None,
            streams: None,
        }
    }

    /// The tuning the environment asks for (see [`Tuning::from_vars`]).
    pub fn from_env() -> Result<Tuning, TuningError> {
        Tuning::from_vars(|name| std::env::var(name).ok())
    }

    /// The tuning that the variables `get` gives ask for: `NIMSEQ_ISA` a tier's name (one of
    /// [`super::TIERS`] that the processor has), `NIMSEQ_LANES` `off` or a register count,
    /// `NIMSEQ_KEYS` and `NIMSEQ_SMALL` `on` or `off`, `NIMSEQ_PIPELINE` and `NIMSEQ_WITNESS`
    /// `on`, `off` or `auto`, `NIMSEQ_HEAD` `auto`, `off` or the pairs of a head (1 to
    /// [`Tuning::MOST_HEAD_PAIRS`]), `NIMSEQ_STREAMS` `auto`, `off` or the runs of a far scan (1,
    /// 2 or 4).
    /// Unset or empty variables keep the default; any other value is refused.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Tuning, TuningError> {
        let get = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let mut t = Tuning::best();
        if let Some(name) = get("NIMSEQ_ISA") {
            t.tier = Tier::named(&name)?;
        }
        let bad = |var: &'static str, value: &str, expected: &str| TuningError::Value {
            var,
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let switch = |var: &'static str| -> Result<Option<bool>, TuningError> {
            match get(var).as_deref().map(str::trim) {
                None | Some("auto") => Ok(None),
                Some("on") => Ok(Some(true)),
                Some("off") => Ok(Some(false)),
                Some(v) => Err(bad(var, v, "on or off")),
            }
        };
        t.scan_keys = switch("NIMSEQ_KEYS")?.unwrap_or(true);
        t.small_mode = switch("NIMSEQ_SMALL")?.unwrap_or(true);
        t.pipeline = switch("NIMSEQ_PIPELINE")?;
        t.witnesses = switch("NIMSEQ_WITNESS")?;
        if let Some(v) = get("NIMSEQ_HEAD") {
            t.head = match v.trim() {
                "auto" => None,
                "off" => Some(0),
                x => match x.parse::<usize>() {
                    Ok(pairs) if (1..=Tuning::MOST_HEAD_PAIRS).contains(&pairs) => Some(pairs),
                    _ => {
                        let most = Tuning::MOST_HEAD_PAIRS;
                        return Err(bad("NIMSEQ_HEAD", x, &format!("auto, off or 1 to {most}")));
                    }
                },
            };
        }
        if let Some(v) = get("NIMSEQ_STREAMS") {
            t.streams = match v.trim() {
                "auto" => None,
                "off" => Some(1),
                x => match x.parse::<usize>() {
                    Ok(k @ (1 | 2 | 4)) => Some(k),
                    _ => return Err(bad("NIMSEQ_STREAMS", x, "auto, off, 1, 2 or 4")),
                },
            };
        }
        if let Some(v) = get("NIMSEQ_LANES") {
            let expected = || {
                let regs: Vec<String> = Tuning::LANE_REGS.iter().map(|r| r.to_string()).collect();
                format!("auto, off or a register count ({})", regs.join(", "))
            };
            t.lanes = match v.trim() {
                "auto" => LaneChoice::Auto,
                "off" => LaneChoice::Off,
                r => match r.parse::<usize>() {
                    Ok(regs) if Tuning::LANE_REGS.contains(&regs) => LaneChoice::Regs(regs),
                    _ => return Err(bad("NIMSEQ_LANES", r, &expected())),
                },
            };
        }
        Ok(t)
    }

    /// Makes this the tuning of every engine the process makes from now on without one
    /// ([`Tuning::current`]). Only the first call counts: the edge of the program calls it once,
    /// before any engine is made. Returns whether it was this call's.
    pub fn install(self) -> bool {
        INSTALLED.set(self).is_ok()
    }

    /// The installed tuning, or [`Tuning::best`].
    pub fn current() -> Tuning {
        INSTALLED.get().copied().unwrap_or_else(Tuning::best)
    }

    /// One line on the tier and why: its name, the features it uses, and every tier this
    /// processor has (for `nimseq --version`, the benchmarks' records).
    pub fn describe(&self) -> String {
        let info = self.tier.info();
        let features = if info.features.is_empty() {
            "the build's baseline".to_string()
        } else {
            info.features.replace(',', " ")
        };
        let available: Vec<&str> = Tier::available().iter().map(|t| t.name()).collect();
        let forced = if self.tier == Tier::best() {
            "the best this processor has"
        } else {
            "asked for"
        };
        format!(
            "engine tier {} ({forced}; uses {features}); this processor has the tiers {} \
             (NIMSEQ_ISA picks one)",
            info.name,
            available.join(", "),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_environment_is_read_and_checked() {
        assert_eq!(Tuning::from_vars(vars(&[])), Ok(Tuning::best()));
        assert_eq!(
            Tuning::from_vars(vars(&[("NIMSEQ_ISA", "")])),
            Ok(Tuning::best())
        );
        let t = Tuning::from_vars(vars(&[
            ("NIMSEQ_ISA", "portable"),
            ("NIMSEQ_LANES", "off"),
            ("NIMSEQ_KEYS", "off"),
            ("NIMSEQ_SMALL", "off"),
            ("NIMSEQ_PIPELINE", "on"),
            ("NIMSEQ_WITNESS", "off"),
            ("NIMSEQ_HEAD", "off"),
            ("NIMSEQ_STREAMS", "off"),
        ]))
        .unwrap();
        assert_eq!(t.head, Some(0));
        assert_eq!(t.streams, Some(1));
        assert_eq!(t.tier, Tier::PORTABLE);
        assert_eq!(t.lanes, LaneChoice::Off);
        assert!(!t.scan_keys && !t.small_mode);
        assert_eq!(t.witnesses, Some(false));
        assert_eq!(t.pipeline, Some(true));
        let t = Tuning::from_vars(vars(&[("NIMSEQ_LANES", "12")])).unwrap();
        assert_eq!(t.lanes, LaneChoice::Regs(12));
        let t = Tuning::from_vars(vars(&[("NIMSEQ_HEAD", "512")])).unwrap();
        assert_eq!(t.head, Some(512));
        let t = Tuning::from_vars(vars(&[("NIMSEQ_STREAMS", "2")])).unwrap();
        assert_eq!(t.streams, Some(2));
        for (var, value) in [
            ("NIMSEQ_ISA", "bogus"),
            ("NIMSEQ_LANES", "7"),
            ("NIMSEQ_KEYS", "maybe"),
            ("NIMSEQ_SMALL", "0"),
            ("NIMSEQ_PIPELINE", "yes"),
            ("NIMSEQ_WITNESS", "1"),
            ("NIMSEQ_HEAD", "0"),
            ("NIMSEQ_HEAD", "4097"),
            ("NIMSEQ_STREAMS", "0"),
            ("NIMSEQ_STREAMS", "3"),
        ] {
            let e = Tuning::from_vars(vars(&[(var, value)])).unwrap_err();
            assert!(e.to_string().contains(var), "{e}");
        }
        assert!(Tuning::best().describe().contains(Tier::best().name()));
    }
}
