//! The files of a misère survey: JSON lines like the plain survey's shard files ([`super::super::merge`]),
//! a [`MisereHeader`] line and then one [`MisereRow`] per finished game, the very objects of
//! `survey --misere --json`.
//!
//! The header names the survey (pattern, a digest of the list of codes, the number of games)
//! and the part of it (shard `I/K` and the indices of its games), and the limits of the run
//! that wrote it. A rerun resumes a file whose survey and part are the same, whatever its
//! limits: each row says why it stopped, so the rerun redoes the rows its limits take further
//! ([`super::MisereRow::redo_under`]). [`merge`] combines the files of all shards of one survey
//! run with the same limits, and refuses anything else with a message naming the problem, in
//! the words of the plain survey's [`MergeError`].

use serde::{Deserialize, Serialize};

use super::{MisereOptions, MisereRow};
use crate::survey::merge::{merge_parts, parse_lines, LinesKind, MergeError, PartHeader, PartItem};
use crate::survey::{codes_digest, shard, Fingerprint, Game, Shard};

/// The name written in every misère survey file's header.
pub const FORMAT: &str = "nimseq-misere-survey";
/// The version of the layout; readers refuse other versions.
pub const FORMAT_VERSION: u32 = 1;

/// The first line of a misère survey file: what was surveyed, which part, within which limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MisereHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`FORMAT_VERSION`] when written by this version.
    pub version: u32,
    /// The pattern or code file as given.
    pub pattern: String,
    /// A fingerprint of the list of codes, so that files of different lists never mix.
    pub codes_digest: Fingerprint,
    /// How many games the whole survey has.
    pub games: usize,
    /// The heap limit of the run that wrote the file.
    pub max_heap: usize,
    /// Its order limit.
    pub max_order: usize,
    /// Its time budget per game, in seconds.
    pub budget: f64,
    /// This part (1-based).
    pub shard: usize,
    /// Number of parts.
    pub shards: usize,
    /// The games of this part (indices into the list), in order.
    pub indices: Vec<usize>,
}

impl MisereHeader {
    /// The header of `shard` of a survey of `games` within `opts`. A game's cost is not known
    /// beforehand, so the games are dealt to the shards in turn ([`shard::indices_of`] with
    /// equal costs): game `j` to shard `j mod K`.
    pub fn new(pattern: &str, games: &[Game], opts: &MisereOptions, shard: Shard) -> MisereHeader {
        MisereHeader {
            format: FORMAT.to_string(),
            version: FORMAT_VERSION,
            pattern: pattern.to_string(),
            codes_digest: codes_digest(games),
            games: games.len(),
            max_heap: opts.max_heap,
            max_order: opts.max_order,
            budget: opts.budget.as_secs_f64(),
            shard: shard.index,
            shards: shard.count,
            indices: shard::indices_of(&vec![1; games.len()], shard),
        }
    }

    /// This header's shard.
    pub fn shard(&self) -> Shard {
        Shard {
            index: self.shard,
            count: self.shards,
        }
    }

    /// The first field of the survey's identity (pattern, codes, games, shard) in which `other`
    /// differs, with both values; `None` when a run of this header may resume `other`'s file.
    pub fn differs_from(&self, other: &MisereHeader) -> Option<(&'static str, String, String)> {
        let fields: [(&'static str, String, String); 4] = [
            ("pattern", self.pattern.clone(), other.pattern.clone()),
            (
                "list of codes",
                self.codes_digest.to_string(),
                other.codes_digest.to_string(),
            ),
            (
                "number of games",
                self.games.to_string(),
                other.games.to_string(),
            ),
            ("shard", self.shard().to_string(), other.shard().to_string()),
        ];
        fields.into_iter().find(|(_, a, b)| a != b)
    }
}

/// A misère survey file: its header and the rows of its finished games, by index.
#[derive(Debug, Clone, PartialEq)]
pub struct MisereFile {
    /// The header.
    pub header: MisereHeader,
    /// One row per finished game of `header.indices`, ordered by index.
    pub rows: Vec<MisereRow>,
}

/// Does `text` begin with a misère survey header (rather than a plain survey's)?
pub fn is_misere_file(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    serde_json::from_str::<serde_json::Value>(first)
        .ok()
        .and_then(|v| v.get("format")?.as_str().map(|f| f == FORMAT))
        .unwrap_or(false)
}

/// Parses a misère survey file. With `partial`, a file that lacks some of its rows (a run
/// under way or stopped) is accepted, and a damaged last line (a write cut short) is dropped;
/// otherwise every game the header lists must have its row.
pub fn parse(path: &str, text: &str, partial: bool) -> Result<MisereFile, MergeError> {
    let kind = LinesKind {
        format: FORMAT,
        version: FORMAT_VERSION,
        file: "misère survey",
        item: "row",
    };
    let (header, rows) = parse_lines(
        path,
        text,
        partial,
        &kind,
        |_: &MisereHeader, _: &MisereRow| Ok(()),
    )?;
    Ok(MisereFile { header, rows })
}

impl PartHeader for MisereHeader {
    fn indices(&self) -> &[usize] {
        &self.indices
    }
    fn part(&self) -> Shard {
        self.shard()
    }
    fn games(&self) -> usize {
        self.games
    }
    fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("pattern", self.pattern.clone()),
            ("list of codes", self.codes_digest.to_string()),
            ("number of games", self.games.to_string()),
            ("heap limit", self.max_heap.to_string()),
            ("order limit", self.max_order.to_string()),
            ("budget", self.budget.to_string()),
            ("number of shards", self.shards.to_string()),
        ]
    }
    fn whole(self) -> MisereHeader {
        MisereHeader {
            shard: 1,
            shards: 1,
            indices: (0..self.games).collect(),
            ..self
        }
    }
}

impl PartItem for MisereRow {
    fn index(&self) -> usize {
        self.index
    }
    fn code(&self) -> &str {
        &self.code
    }
}

/// Combines the files of all shards of one misère survey (given as `(name, file)`, in any
/// order) into the whole survey: a header for shard 1/1 and every row, by index; what the
/// unsharded survey with the same limits writes.
pub fn merge(files: Vec<(String, MisereFile)>) -> Result<MisereFile, MergeError> {
    let parts = files
        .into_iter()
        .map(|(name, f)| (name, f.header, f.rows))
        .collect();
    let (header, rows) = merge_parts(parts, "rows")?;
    Ok(MisereFile { header, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::misere::misere_row;
    use crate::survey::pattern;

    fn file_of(pattern: &str, opts: &MisereOptions, shard: Shard) -> (MisereFile, String) {
        let games = pattern::games(pattern).unwrap();
        let header = MisereHeader::new(pattern, &games, opts, shard);
        let rows: Vec<MisereRow> = header
            .indices
            .iter()
            .map(|&j| misere_row(j, &games[j], opts))
            .collect();
        let mut text = serde_json::to_string(&header).unwrap() + "\n";
        for r in &rows {
            text += &(serde_json::to_string(r).unwrap() + "\n");
        }
        (MisereFile { header, rows }, text)
    }

    fn small() -> MisereOptions {
        MisereOptions::new(12, 1000, 30.0).unwrap()
    }

    #[test]
    fn files_round_trip_and_checkpoints_parse() {
        let (file, text) = file_of("0.0?", &small(), Shard::WHOLE);
        assert!(is_misere_file(&text));
        assert_eq!(parse("f", &text, false).unwrap(), file);
        let cut = &text[..text.len() - 10];
        let e = parse("f", cut, false).unwrap_err().to_string();
        assert!(e.starts_with("f, line 9: bad row"), "{e}");
        assert_eq!(parse("f", cut, true).unwrap().rows.len(), 7);
        let two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        assert_eq!(
            parse("f", &two, false).unwrap_err().to_string(),
            "f: shard 1/1 is incomplete: 1 of 8 games (was the job stopped before it finished?)"
        );
        let repeated = format!("{two}{}\n", text.lines().nth(1).unwrap());
        assert!(parse("f", &repeated, true)
            .unwrap_err()
            .to_string()
            .contains("row repeated"));
        let plain = "{\"format\":\"nimseq-survey\",\"version\":1}\n";
        assert!(!is_misere_file(plain));
        assert!(parse("p", plain, true)
            .unwrap_err()
            .to_string()
            .contains("not a nimseq misère survey file"));
        let v2 = text.replacen("\"version\":1", "\"version\":2", 1);
        assert!(parse("f", &v2, true)
            .unwrap_err()
            .to_string()
            .contains("version 2 is not supported"));
    }

    #[test]
    fn shards_merge_into_the_whole() {
        let o = small();
        let (whole, _) = file_of("0.0?", &o, Shard::WHOLE);
        let parts: Vec<(String, MisereFile)> = (1..=3)
            .rev()
            .map(|i| {
                let (f, _) = file_of("0.0?", &o, Shard { index: i, count: 3 });
                (format!("s{i}"), f)
            })
            .collect();
        let sizes: Vec<usize> = parts.iter().map(|(_, f)| f.rows.len()).collect();
        assert_eq!(sizes, [2, 3, 3]);
        assert_eq!(merge(parts.clone()).unwrap(), whole);
        let e = merge(parts[..2].to_vec()).unwrap_err().to_string();
        assert_eq!(e, "missing shard 1 of 3 (got 2 files)");
        let mut twice = parts.clone();
        twice.push(parts[0].clone());
        assert!(merge(twice)
            .unwrap_err()
            .to_string()
            .contains("given twice"));
        let (other, _) = file_of(
            "0.0?",
            &MisereOptions::new(13, 1000, 30.0).unwrap(),
            Shard { index: 1, count: 3 },
        );
        let mut mixed = parts[..2].to_vec();
        mixed.push(("t".into(), other));
        let e = merge(mixed).unwrap_err().to_string();
        assert!(e.contains("heap limit differs (13 vs 12)"), "{e}");
        assert!(merge(Vec::new()).is_err());
    }

    #[test]
    fn a_rerun_resumes_only_the_same_survey_and_part() {
        let games = pattern::games("0.0?").unwrap();
        let o = small();
        let h = MisereHeader::new("0.0?", &games, &o, Shard::WHOLE);
        let bigger = MisereHeader::new(
            "0.0?",
            &games,
            &MisereOptions::new(50, 5, 1.0).unwrap(),
            Shard::WHOLE,
        );
        assert_eq!(h.differs_from(&bigger), None);
        let part = MisereHeader::new("0.0?", &games, &o, Shard { index: 1, count: 2 });
        assert_eq!(h.differs_from(&part).unwrap().0, "shard");
        let fewer = pattern::games("0.1?").unwrap();
        let other = MisereHeader::new("0.0?", &fewer, &o, Shard::WHOLE);
        assert_eq!(h.differs_from(&other).unwrap().0, "list of codes");
    }
}
