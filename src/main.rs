//! The `nimseq` command line: parses arguments, calls the library, maps errors to exit codes.
//!
//! Exit codes: 0 success (also when stdout is closed early, as by `| head`), 1 a runtime
//! failure, 2 bad input. Every error is one line on stderr.

mod cli;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use nimseq::engine::Tuning;

use cli::{
    ComputeArgs, ExportArgs, GenusArgs, GraphArgs, HackenbushArgs, InfoArgs, Interrupted,
    PeriodArgs, PlayArgs, QuotientArgs, ReportArgs, SurveyArgs, SurveyMergeArgs, UsageError,
    ValuesArgs,
};

/// The notation of games and numbers, shown by `--help` and by the help of each command that
/// takes a game.
macro_rules! notation {
    () => {
        "\
GAMES
  Octal codes         0.77 (Kayles), .07, 4.7, 0.137, 0.11337: digit k says what taking k
                      tokens may leave (1: nothing, exactly k taken; 2: one heap; 4: two heaps)
  Hexadecimal codes   0.3F, 0.8: digit bit 8 leaves three heaps
  Unequal splits      4!.0 (Grundy's game): '!' after a digit makes the heaps left pairwise unequal
  Repeating tails     0.[3] (Nim), 0.1[37]: the bracketed digits repeat forever
  Subtraction sets    sub(1,2,3) = 0.333; allbut(2) = take any number but 2
  Names               kayles, dawsons-kayles, dawsons-chess, officers, treblecross, guiles,
                      grundy, nim, laskers-nim

NUMBERS
  1000, 1_000_000, 1e6, 2^20, 3*2^20
"
    };
}

/// `nimseq --help`: the notation and an example of every command.
const NOTATION: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq values kayles -n 100            G(0) .. G(99) of Kayles as 'n G(n)' lines
  nimseq compute grundy -n 2^20          summary of Grundy's game to heap 2^20 - 1
  nimseq compute 0.6 -n 1e5 --json       the same summary as one JSON object
  nimseq compute 0.167 -n 2^32 --table t.nimseq
                                         values kept in a file on disk; resumes when rerun
  nimseq genus kayles -n 30              misère genus and class of Kayles heaps 0 .. 29
  nimseq quotient kayles                 misère quotient of Kayles (order, P, presentation)
  nimseq play kayles 3 5 7               outcome and winning moves of Kayles rows 3, 5, 7
  nimseq graph moves.txt                 values of a game given as lines 'u v'
  nimseq hackenbush BBBRRBBR GB G(B,R)   canonical forms of Hackenbush positions
  nimseq period 0.16                     prove the period of 0.16 (149459 from heap 105351)
  nimseq period 0.354                    goes on by itself to the 20,126,195 values the proof needs
  nimseq report 0.77 -n 1e6 -o kayles    b-file, plot.svg and summary.md in the folder kayles"
);

/// The help of each command that takes a game: the notation and its own examples.
const VALUES_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq values kayles -n 100            G(0) .. G(99) of Kayles as 'n G(n)' lines
  nimseq values 0.167 -n 1e6 --table t.nimseq
                                         read from a table ('nimseq compute --table')"
);
const COMPUTE_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq compute grundy -n 2^20          summary of Grundy's game to heap 2^20 - 1
  nimseq compute 0.6 -n 1e5 --json       the same summary as one JSON object
  nimseq compute 0.167 -n 2^32 --table t.nimseq
                                         values kept in a file on disk; resumes when rerun"
);
const GENUS_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq genus kayles -n 30              misère genus and class of Kayles heaps 0 .. 29
  nimseq genus 0.07 -n 100 --no-class    genera only (the class costs the most)"
);
const PLAY_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq play kayles 3 5 7               outcome and winning moves of Kayles rows 3, 5, 7
  nimseq play nim 1 1 1 --misere         misère play
  nimseq play kayles 1e12 1e12           heaps of any size once the period is proved"
);
const PERIOD_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq period 0.16                     prove the period of 0.16 (149459 from heap 105351)
  nimseq period 0.354                    goes on by itself to the 20,126,195 values the proof needs
  nimseq period 0.1777 -n 2^29 --table t.nimseq
                                         at most 2^29 values, on disk, resumable"
);
const REPORT_HELP: &str = concat!(
    notation!(),
    "
EXAMPLES
  nimseq report 0.77 -n 1e6 -o kayles    b-file, plot.svg and summary.md in the folder kayles"
);

/// Sprague-Grundy values of octal, hexadecimal and Grundy-type heap games.
#[derive(Debug, Parser)]
#[command(name = "nimseq", version, after_help = NOTATION, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print G(0) .. G(N-1) as b-file lines 'n G(n)'.
    #[command(after_help = VALUES_HELP)]
    Values(ValuesArgs),
    /// Compute G(0) .. G(N-1) and print a summary (largest value, frequencies, rare values).
    #[command(after_help = COMPUTE_HELP)]
    Compute(ComputeArgs),
    /// Survey many games (a pattern such as 0.??? or a file of codes): periods, statistics, equivalent games.
    #[command(after_help = SURVEY_HELP)]
    Survey(SurveyArgs),
    /// Merge the shard files of a survey run in parts (--shard, Slurm job arrays) into the whole survey.
    #[command(after_help = SURVEY_MERGE_HELP)]
    SurveyMerge(SurveyMergeArgs),
    /// Misère play: the genus g+^(λ0 λ1 …) and class of heaps 0 .. N-1 (exact canonical forms).
    #[command(after_help = GENUS_HELP)]
    Genus(GenusArgs),
    /// Misère quotient (Plambeck-Siegel) of an octal game, heap by heap until certified.
    #[command(after_help = NOTATION)]
    Quotient(QuotientArgs),
    /// Analyse a sum of heaps: values, nim-sum, outcome and every winning move.
    #[command(after_help = PLAY_HELP)]
    Play(PlayArgs),
    /// Grundy values of a game given as a graph (edge list); generalized values on cycles.
    #[command(after_help = GRAPH_HELP)]
    Graph(GraphArgs),
    /// Canonical forms of Hackenbush strings and trees of every colour, their sum, outcome and winning moves.
    #[command(after_help = HACKENBUSH_HELP)]
    Hackenbush(HackenbushArgs),
    /// Print the summary of a table file (from its metadata; nothing is recomputed).
    #[command(after_help = INFO_HELP)]
    Info(InfoArgs),
    /// Print the values of a table file (b-file, CSV or raw bytes).
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Compute until a period is proved (octal periodicity theorem): on to the values a candidate's proof needs, up to what the machine holds or --max.
    #[command(after_help = PERIOD_HELP)]
    Period(PeriodArgs),
    /// Write a report folder: an OEIS-style b-file, a plot (SVG) and a summary (Markdown).
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
}

/// More on `survey`, shown by `survey --help`.
const SURVEY_HELP: &str = "\
EXAMPLES
  nimseq survey '0.??' -n 2^16               Markdown table of the 64 codes 0.00 .. 0.77
  nimseq survey codes.txt -n 1e5 --json      one JSON object per game of a file of codes
  nimseq survey '0.???' -n 2^20 --out runs/s --shard 3/8
                                             part 3 of 8 into runs/s/survey-shard-3-of-8.jsonl
  nimseq survey-merge runs/s --out runs/s    the whole survey from the 8 parts
  nimseq survey '0.??' --misere              misère quotients: |Q|, |P|, certified at, tame

In a Slurm job array (sbatch --array=0-7), the shard comes from SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT (or _MIN/_MAX); see scripts/slurm/. A run that is stopped resumes from
the games it finished when started again with the same --out.";

/// The names of the commands.
fn command_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// A panic is a bug, never the user's fault: report it on one line, like every other error,
/// with where it happened (`RUST_BACKTRACE=1` restores Rust's full report). Exit code 101.
fn one_line_panics() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("unknown cause");
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "nimseq: internal error (a bug in nimseq; please report it with the command): {}{at}",
            what.replace('\n', " ")
        );
    }));
}

/// More on `survey-merge`.
const SURVEY_MERGE_HELP: &str = "\
EXAMPLES
  nimseq survey '0.???' -n 2^20 --out runs/s --shard 3/8     one of 8 parts (or a Slurm array task)
  nimseq survey-merge runs/s                                 the whole survey, once all 8 are there
  nimseq survey-merge runs/s --out runs/s --json             also write survey.jsonl and survey.md

The merge refuses a missing or repeated shard, shards of different surveys and an unfinished
shard, naming the file.";

/// More on `info`.
const INFO_HELP: &str = "\
EXAMPLES
  nimseq compute 0.167 -n 2^30 --table t.nimseq     write (or resume, or extend) a table
  nimseq info t.nimseq                              game, heaps held, largest value, rare values,
                                                    period, frequencies; storage and width
  nimseq info t.nimseq --json                       the JSON object of 'compute --json'
  nimseq info t.nimseq --verify                     also check every checksum of the values

The summary comes from the table's metadata: nothing is recomputed, whatever the table's size.
The file format is described in docs/FORMAT.md.";

/// More on `export`.
const EXPORT_HELP: &str = "\
EXAMPLES
  nimseq export t.nimseq > b.txt                    every heap as an OEIS b-file ('n G(n)')
  nimseq export t.nimseq --from 1000 --to 2000      heaps 1000 .. 1999
  nimseq export t.nimseq --from 2^20 --format csv   'n,grundy' lines from heap 1048576 on
  nimseq export t.nimseq --format raw > v.bin       the stored bytes (width: see 'nimseq info')

A and B accept 1000, 1_000_000, 1e6, 2^20 and 3*2^20. The checksums of the values printed are
checked first; a damaged table is refused.";

/// More on `graph`.
const GRAPH_HELP: &str = "\
EXAMPLES
  printf 'a b\\nb c\\na c\\n' | nimseq graph -    a -> b -> c and a -> c: values a 2, b 1, c 0
  nimseq graph moves.txt --json                    one JSON object with every vertex
  nimseq graph moves.txt --acyclic                 refuse a cycle, naming a vertex on it

FILE: one move 'u v' per line (from u to v), '#' starts a comment, a lone token is a vertex
without moves. On a cycle, values are generalized (Smith 1966): ∞(K) and draws (D).";

/// More on `hackenbush`.
const HACKENBUSH_HELP: &str = "\
EXAMPLES
  nimseq hackenbush BBBRRBBR          77/32 (Berlekamp's sign-expansion rule)
  nimseq hackenbush BR RBRRBRR GGG    each value, the sum, its outcome and the winning moves
  nimseq hackenbush GB BG GBB         ^*, 1*, {0,^*|0}: canonical forms as CGSuite prints them
  nimseq hackenbush 'G(B,RR)' --json  a tree, as JSON with the nested canonical form

A COMPONENT lists its edges from the ground up: B blue (Left), R red (Right), G green (either).
It may end in a fork '(A,B,...)' of branches, each written the same way, all standing on the
top of the edges before it: 'B(R,G(G,G))' is a blue edge carrying a red edge and a green edge
that carries two green edges. Edges are numbered from 1 in the order written; a winning move
'2:3 (G)' cuts edge 3 of component 2.

Values are canonical forms (Winning Ways; Siegel 2013) in CGSuite's notation: numbers 9/16,
nimbers *7, number + ups + nimber as 1*, ^, v*, ^^, ^3*, 3/4v3*, ^[2]*, and {A,B|C} otherwise
(numbers first in increasing order, then the other options by their text). The mean and
temperature come from the thermograph. Strings are evaluated prefix by prefix, trees by ordinal
sums (all-green ones by the colon principle); numbers are exact up to denominators 2^120.";

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Values(args) => cli::values(args),
        Command::Compute(args) => cli::compute(args),
        Command::Survey(args) => cli::survey(args),
        Command::SurveyMerge(args) => cli::survey_merge(args),
        Command::Genus(args) => cli::genus(args),
        Command::Quotient(args) => cli::quotient(args),
        Command::Play(args) => cli::play(args),
        Command::Graph(args) => cli::graph(args),
        Command::Hackenbush(args) => cli::hackenbush(args),
        Command::Info(args) => cli::info(args),
        Command::Export(args) => cli::export(args),
        Command::Period(args) => cli::period(args),
        Command::Report(args) => cli::report(args),
    }
}

fn main() -> ExitCode {
    one_line_panics();
    // The engine's tuning, read once here (NIMSEQ_ISA and the other switches): a tier this
    // processor lacks, or a value the engine cannot honour, is refused before anything runs.
    let tuning = match Tuning::from_env() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("nimseq: {e}");
            return ExitCode::from(2);
        }
    };
    tuning.install();
    // `nimseq --version` names the tier in use and what chose it.
    let version: &'static str =
        Box::leak(format!("{}\n{}", env!("CARGO_PKG_VERSION"), tuning.describe()).into_boxed_str());
    let parsed = Cli::command()
        .version(version)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `nimseq` alone: one line, like every other mistake, naming the commands.
            eprintln!(
                "nimseq: no command given; give one of {} (see 'nimseq --help')",
                command_names().join(", ")
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            // The first argument that names a command.
            let names = command_names();
            let command = std::env::args().skip(1).find(|a| names.contains(a));
            return cli::clap_exit(e, command.as_deref());
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if cli::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("nimseq: {}", cli::one_line(&e));
            if let Some(i) = e.downcast_ref::<Interrupted>() {
                return ExitCode::from(i.code());
            }
            if e.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
