//! Reading shard files and merging them into one survey.
//!
//! A shard file is JSON lines: a [`Header`] line, then one [`GameRecord`] per game of the shard.
//! [`merge`] accepts the files of all K shards of one survey, in any order, and refuses anything
//! else with a message naming the problem: a missing or repeated shard, shards of different
//! surveys (pattern, list of codes, N, largest shift, K), an incomplete shard (a job killed
//! before it finished writing), a record that does not belong to its shard. Both kinds of survey
//! file (plain and misère) are read by [`parse_lines`] and merged by [`merge_parts`].

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use thiserror::Error;

use super::{GameRecord, Header, Shard, ShardFile, FORMAT, FORMAT_VERSION};

/// Why shard files cannot be read or merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// A file cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not a shard file of this version, or a line is damaged.
    #[error("{path}, line {line}: {message}")]
    Format {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Shards of different surveys.
    #[error("{path} is from a different survey than {first}: {what} differs ({theirs} vs {ours})")]
    Mismatch {
        /// The first file.
        first: String,
        /// The file that disagrees.
        path: String,
        /// The field.
        what: &'static str,
        /// Its value in the first file.
        ours: String,
        /// Its value here.
        theirs: String,
    },
    /// A shard given twice.
    #[error("shard {shard} is given twice: {first} and {second}")]
    Duplicate {
        /// The shard, `I/K`.
        shard: String,
        /// One file.
        first: String,
        /// The other.
        second: String,
    },
    /// Shards missing.
    #[error("missing shard{} {} of {count} (got {got} file{})", if missing.len() > 1 { "s" } else { "" }, list(missing), if *got == 1 { "" } else { "s" })]
    Missing {
        /// The shards not given (1-based).
        missing: Vec<usize>,
        /// K.
        count: usize,
        /// How many files were given.
        got: usize,
    },
    /// A shard whose records do not match its header.
    #[error("{path}: shard {shard} is incomplete: {have} of {want} games (was the job stopped before it finished?)")]
    Incomplete {
        /// The file.
        path: String,
        /// `I/K`.
        shard: String,
        /// Records present.
        have: usize,
        /// Records the header lists.
        want: usize,
    },
    /// No files.
    #[error("no shard files given")]
    Empty,
}

fn list(v: &[usize]) -> String {
    let shown: Vec<String> = v.iter().take(20).map(|i| i.to_string()).collect();
    let more = if v.len() > 20 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// What tells the two kinds of survey file apart to their reader: the format name and version
/// of the header line, and the words for the file and its items in messages.
pub(crate) struct LinesKind {
    /// The header's `"format"`.
    pub format: &'static str,
    /// The header's `"version"` this nimseq reads.
    pub version: u32,
    /// The file's name in messages (`survey`, `misère survey`).
    pub file: &'static str,
    /// An item's name in messages (`game record`, `row`).
    pub item: &'static str,
}

/// A header line, as far as [`parse_lines`] and [`merge_parts`] read it.
pub(crate) trait PartHeader: serde::de::DeserializeOwned {
    /// The indices of the part's games.
    fn indices(&self) -> &[usize];
    /// The part, `I/K`.
    fn part(&self) -> Shard;
    /// How many games the whole survey has.
    fn games(&self) -> usize;
    /// The settings that the parts of one survey share, as (what, value).
    fn settings(&self) -> Vec<(&'static str, String)>;
    /// The header of the whole survey this part belongs to: part 1/1 with every game.
    fn whole(self) -> Self;
}

/// An item line, as far as [`parse_lines`] reads it.
pub(crate) trait PartItem: serde::de::DeserializeOwned {
    /// The game's index in the survey's list.
    fn index(&self) -> usize;
    /// The code as the pattern wrote it.
    fn code(&self) -> &str;
}

/// Parses a JSON-lines survey file of `kind`: a header line, then one item per game of its
/// part, each checked by `check` against the header. With `partial`, a file that lacks some of
/// its items (a checkpoint, or a run under way or stopped) is accepted, and a damaged last line
/// (a write cut short) is dropped; otherwise every game the header lists must have its item.
/// The items come back ordered by index.
pub(crate) fn parse_lines<H: PartHeader, R: PartItem>(
    path: &str,
    text: &str,
    partial: bool,
    kind: &LinesKind,
    check: impl Fn(&H, &R) -> Result<(), String>,
) -> Result<(H, Vec<R>), MergeError> {
    let err = |line: usize, message: String| MergeError::Format {
        path: path.to_string(),
        line,
        message,
    };
    let LinesKind {
        format,
        version: wanted_version,
        file,
        item,
    } = kind;
    let mut lines = text.lines().enumerate();
    let (_, first) = lines
        .next()
        .ok_or_else(|| err(1, format!("empty file; expected a nimseq {file} header")))?;
    let probe: serde_json::Value = serde_json::from_str(first)
        .map_err(|e| err(1, format!("not a nimseq {file} file ({e})")))?;
    if probe.get("format").and_then(|f| f.as_str()) != Some(format) {
        return Err(err(
            1,
            format!("not a nimseq {file} file (no \"format\": \"{format}\")"),
        ));
    }
    let version = probe.get("version").and_then(|v| v.as_u64());
    if version != Some(u64::from(*wanted_version)) {
        return Err(err(
            1,
            format!(
                "{file} format version {} is not supported (this nimseq reads version {wanted_version})",
                version.map_or("?".to_string(), |v| v.to_string())
            ),
        ));
    }
    let header: H =
        serde_json::from_value(probe).map_err(|e| err(1, format!("bad header: {e}")))?;
    let wanted: HashSet<usize> = header.indices().iter().copied().collect();
    let ends_with_newline = text.ends_with('\n');
    let mut items: BTreeMap<usize, R> = BTreeMap::new();
    let mut lines = lines.peekable();
    while let Some((i, line)) = lines.next() {
        let last = lines.peek().is_none();
        if line.trim().is_empty() {
            continue;
        }
        let record: R = match serde_json::from_str(line) {
            Ok(r) => r,
            // A checkpoint may end in a line whose write was cut short.
            Err(_) if partial && last && !ends_with_newline => break,
            Err(e) => return Err(err(i + 1, format!("bad {item}: {e}"))),
        };
        if !wanted.contains(&record.index()) {
            return Err(err(
                i + 1,
                format!(
                    "game {} (index {}) does not belong to shard {}",
                    record.code(),
                    record.index(),
                    header.part()
                ),
            ));
        }
        check(&header, &record).map_err(|message| err(i + 1, message))?;
        if items.insert(record.index(), record).is_some() {
            return Err(err(i + 1, format!("{item} repeated")));
        }
    }
    if !partial && items.len() != header.indices().len() {
        return Err(MergeError::Incomplete {
            path: path.to_string(),
            shard: header.part().to_string(),
            have: items.len(),
            want: header.indices().len(),
        });
    }
    Ok((header, items.into_values().collect()))
}

impl PartHeader for Header {
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
            ("N", self.count.to_string()),
            ("largest shift", self.max_shift.to_string()),
            ("number of shards", self.shards.to_string()),
        ]
    }
    fn whole(self) -> Header {
        Header {
            shard: 1,
            shards: 1,
            indices: (0..self.games).collect(),
            ..self
        }
    }
}

impl PartItem for GameRecord {
    fn index(&self) -> usize {
        self.index
    }
    fn code(&self) -> &str {
        &self.code
    }
}

/// Parses the text of a shard file. With `partial`, a file that lacks some of its records (a
/// checkpoint) is accepted, and a damaged last line (a write cut short) is dropped; otherwise
/// every record the header lists must be there.
pub fn parse_shard(path: &str, text: &str, partial: bool) -> Result<ShardFile, MergeError> {
    let kind = LinesKind {
        format: FORMAT,
        version: FORMAT_VERSION,
        file: "survey",
        item: "game record",
    };
    let (header, records) =
        parse_lines(path, text, partial, &kind, |h: &Header, r: &GameRecord| {
            if r.count == h.count {
                Ok(())
            } else {
                Err(format!(
                    "game {} has {} heaps, the header says {}",
                    r.code, r.count, h.count
                ))
            }
        })?;
    Ok(ShardFile { header, records })
}

/// Reads a complete shard file.
pub fn read_shard(path: &Path) -> Result<ShardFile, MergeError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io {
        path: name.clone(),
        source,
    })?;
    parse_shard(&name, &text, false)
}

/// Combines the files of all shards of one survey (given as `(name, file)`, in any order) into
/// the whole survey: a header for shard 1/1 and every record, by index. The result is what the
/// unsharded survey writes.
pub fn merge(files: Vec<(String, ShardFile)>) -> Result<ShardFile, MergeError> {
    let parts = files
        .into_iter()
        .map(|(name, f)| (name, f.header, f.records))
        .collect();
    let (header, records) = merge_parts(parts, "records")?;
    Ok(ShardFile { header, records })
}

/// The parts of one survey, given as (file name, header, items), merged into the whole: the
/// header of [`PartHeader::whole`] and the items in the order of their index. Refused unless the
/// files are the parts 1 ..= K each once, with the settings of the first, and their items one
/// per game (shards of one survey partition its games; anything else means the files were
/// tampered with or written by a different assignment). Both kinds of survey file (plain and
/// misère) merge through this; `items` names their items in messages.
pub(crate) fn merge_parts<H: PartHeader, R: PartItem>(
    parts: Vec<(String, H, Vec<R>)>,
    items: &str,
) -> Result<(H, Vec<R>), MergeError> {
    let (first_name, first_settings, k, games) = match parts.first() {
        Some((name, h, _)) => (name.clone(), h.settings(), h.part().count, h.games()),
        None => return Err(MergeError::Empty),
    };
    let mut by_shard: BTreeMap<usize, String> = BTreeMap::new();
    for (name, header, _) in &parts {
        for ((what, ours), (_, theirs)) in first_settings.iter().zip(header.settings()) {
            if *ours != theirs {
                return Err(MergeError::Mismatch {
                    first: first_name.clone(),
                    path: name.clone(),
                    what,
                    ours: ours.clone(),
                    theirs,
                });
            }
        }
        let shard = header.part();
        if let Some(other) = by_shard.insert(shard.index, name.clone()) {
            return Err(MergeError::Duplicate {
                shard: shard.to_string(),
                first: other,
                second: name.clone(),
            });
        }
    }
    let missing: Vec<usize> = (1..=k).filter(|i| !by_shard.contains_key(i)).collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            missing,
            count: k,
            got: parts.len(),
        });
    }
    let mut parts = parts.into_iter();
    let (_, first_header, mut all) = parts.next().expect("checked above");
    all.extend(parts.flat_map(|p| p.2));
    all.sort_by_key(R::index);
    if all.len() != games || all.iter().enumerate().any(|(j, r)| r.index() != j) {
        return Err(MergeError::Format {
            path: first_name,
            line: 1,
            message: format!(
                "the shards hold {} {items} for {games} games, not one per game",
                all.len()
            ),
        });
    }
    Ok((first_header.whole(), all))
}
