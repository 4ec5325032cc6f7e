//! Output of `nimseq play`: a sum of heaps, its nim-sum, outcome and winning moves.

use std::io::{self, Write};

use serde::Serialize;

use super::game_title;
use crate::position::misere::{Method, MisereAnalysis};
use crate::position::{Analysis, WinningMove};
use crate::rules::Rule;

#[derive(Serialize)]
struct MoveJson<'a> {
    heap_index: usize,
    from: usize,
    to: &'a [usize],
}

fn moves_json(moves: &[WinningMove]) -> Vec<MoveJson<'_>> {
    moves
        .iter()
        .map(|m| MoveJson {
            heap_index: m.heap_index,
            from: m.from,
            to: &m.to,
        })
        .collect()
}

#[derive(Serialize)]
struct NormalJson<'a> {
    game: String,
    play: &'static str,
    heaps: &'a [usize],
    values: &'a [u32],
    nim_sum: u32,
    outcome: &'static str,
    winning_move_count: u64,
    winning_moves: Vec<MoveJson<'a>>,
}

#[derive(Serialize)]
struct MisereJson<'a> {
    game: String,
    play: &'static str,
    heaps: &'a [usize],
    outcome: &'static str,
    winning_move_count: u64,
    winning_moves: Vec<MoveJson<'a>>,
    method: &'static str,
    positions_searched: Option<usize>,
}

/// The JSON object of a normal-play analysis (what `play --json` prints), to serialize: the
/// command writes it, the Python package hands it to Python.
pub fn play_json<'a>(rule: &Rule, a: &'a Analysis) -> impl Serialize + 'a {
    NormalJson {
        game: rule.code(),
        play: "normal",
        heaps: &a.heaps,
        values: &a.values,
        nim_sum: a.nim_sum,
        outcome: a.outcome.letter(),
        winning_move_count: a.winning_move_count,
        winning_moves: moves_json(&a.winning_moves),
    }
}

/// Writes a normal-play analysis as one JSON object.
pub fn write_play_json<W: Write>(out: W, rule: &Rule, a: &Analysis) -> io::Result<()> {
    super::write_json(out, &play_json(rule, a))
}

/// Writes a misère-play analysis as one JSON object.
pub fn write_misere_json<W: Write>(out: W, rule: &Rule, a: &MisereAnalysis) -> io::Result<()> {
    super::write_json(
        out,
        &MisereJson {
            game: rule.code(),
            play: "misere",
            heaps: &a.heaps,
            outcome: a.outcome.letter(),
            winning_move_count: a.winning_move_count,
            winning_moves: moves_json(&a.winning_moves),
            method: method_name(a.method),
            positions_searched: match a.method {
                Method::Search { positions } => Some(positions),
                Method::Bouton
                | Method::TameGenus { .. }
                | Method::CanonicalForms { .. }
                | Method::Quotient { .. } => None,
            },
        },
    )
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Bouton => "Bouton's misère Nim theorem",
        Method::Search { .. } => "exhaustive search",
        Method::TameGenus { .. } => "genus theory (every heap tame)",
        Method::CanonicalForms { .. } => "misère canonical forms",
        Method::Quotient { .. } => "misère quotient",
    }
}

fn join<T: ToString>(xs: &[T]) -> String {
    xs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn outcome_text(letter: &str) -> &'static str {
    if letter == "P" {
        "P: the player to move loses"
    } else {
        "N: the player to move wins"
    }
}

fn write_moves<W: Write>(out: &mut W, moves: &[WinningMove], count: u64) -> io::Result<()> {
    writeln!(
        out,
        "winning moves {count} (heap index: heap -> heaps left)"
    )?;
    for m in moves {
        let to = if m.to.is_empty() {
            "nothing".to_string()
        } else {
            join(&m.to)
        };
        writeln!(out, "  #{}: {} -> {}", m.heap_index, m.from, to)?;
    }
    let unlisted = count - moves.len() as u64;
    if unlisted > 0 {
        writeln!(
            out,
            "  ... and {unlisted} more (--max-moves {})",
            moves.len()
        )?;
    }
    Ok(())
}

/// Writes a normal-play analysis for people.
pub fn write_play_text<W: Write>(out: W, rule: &Rule, a: &Analysis) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    writeln!(out, "game          {}", game_title(rule))?;
    writeln!(out, "play          normal (the last player to move wins)")?;
    writeln!(out, "heaps         {}", join(&a.heaps))?;
    writeln!(out, "values        {}", join(&a.values))?;
    writeln!(out, "nim-sum       {}", a.nim_sum)?;
    writeln!(out, "outcome       {}", outcome_text(a.outcome.letter()))?;
    write_moves(&mut out, &a.winning_moves, a.winning_move_count)?;
    out.flush()
}

/// Writes a misère-play analysis for people.
pub fn write_misere_text<W: Write>(out: W, rule: &Rule, a: &MisereAnalysis) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    writeln!(out, "game          {}", game_title(rule))?;
    writeln!(out, "play          misère (the last player to move loses)")?;
    writeln!(out, "heaps         {}", join(&a.heaps))?;
    match a.method {
        Method::Search { positions } => writeln!(
            out,
            "method        exhaustive search ({positions} positions)"
        )?,
        Method::Bouton => writeln!(
            out,
            "method        Bouton's misère Nim theorem (every heap moves like a Nim heap)"
        )?,
        Method::TameGenus { forms } => writeln!(
            out,
            "method        genus theory: every heap is tame, and tame games add like misère Nim \
             (Conway, ONAG ch. 12; {forms} canonical forms)"
        )?,
        Method::CanonicalForms { forms } => writeln!(
            out,
            "method        misère canonical forms (Conway, ONAG ch. 12; {forms} forms)"
        )?,
        Method::Quotient { order } => writeln!(
            out,
            "method        misère quotient of order {order}, certified for every heap size \
             (Plambeck and Siegel; nimseq quotient)"
        )?,
    }
    writeln!(out, "outcome       {}", outcome_text(a.outcome.letter()))?;
    write_moves(&mut out, &a.winning_moves, a.winning_move_count)?;
    out.flush()
}
