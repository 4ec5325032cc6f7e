//! The `nimseq` command line: parses arguments, calls the library, maps errors to exit codes.
//!
//! Exit codes: 0 success (also when stdout is closed early, as by `| head`), 1 a runtime
//! failure, 2 bad input. Every error is one line on stderr.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli::{
    ComputeArgs, ExportArgs, GenusArgs, GraphArgs, HackenbushArgs, InfoArgs, Interrupted,
    PeriodArgs, PlayArgs, ReportArgs, SurveyArgs, SurveyMergeArgs, UsageError, ValuesArgs,
};

/// The notation, shown by `--help`.
const NOTATION: &str = "\
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

EXAMPLES
  nimseq values kayles -n 100            G(0) .. G(99) of Kayles as 'n G(n)' lines
  nimseq compute grundy -n 2^20          summary of Grundy's game to heap 2^20 - 1
  nimseq compute 0.6 -n 1e5 --json       the same summary as one JSON object
  nimseq genus kayles -n 30              misère genus and class of Kayles heaps 0 .. 29
  nimseq play kayles 3 5 7               outcome and winning moves of Kayles rows 3, 5, 7
  nimseq graph moves.txt                 values of a game given as lines 'u v'
  nimseq hackenbush BBBRRBBR RBRRBRR     exact values of Hackenbush strings
  nimseq period 0.16                     prove the period of 0.16 (149459 from heap 105351)
  nimseq report 0.77 -n 1e6 -o kayles    b-file, plot.svg and summary.md in the folder kayles";

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
    #[command(after_help = NOTATION)]
    Values(ValuesArgs),
    /// Compute G(0) .. G(N-1) and print a summary (largest value, frequencies, rare values).
    #[command(after_help = NOTATION)]
    Compute(ComputeArgs),
    /// Survey many games (a pattern such as 0.??? or a file of codes): periods, statistics, equivalent games.
    #[command(after_help = SURVEY_HELP)]
    Survey(SurveyArgs),
    /// Merge the shard files of a survey run in parts (--shard, Slurm job arrays) into the whole survey.
    SurveyMerge(SurveyMergeArgs),
    /// Misère play: the genus g+^(λ0 λ1 …) and class of heaps 0 .. N-1 (exact canonical forms).
    #[command(after_help = NOTATION)]
    Genus(GenusArgs),
    /// Analyse a sum of heaps: values, nim-sum, outcome and every winning move.
    #[command(after_help = NOTATION)]
    Play(PlayArgs),
    /// Grundy values of a game given as a graph (edge list); generalized values on cycles.
    Graph(GraphArgs),
    /// Exact values of Blue-Red (and green) Hackenbush strings and of their sum.
    Hackenbush(HackenbushArgs),
    /// Print the summary of a table file (from its metadata; nothing is recomputed).
    Info(InfoArgs),
    /// Print the values of a table file (b-file, CSV or raw bytes).
    Export(ExportArgs),
    /// Compute until a period is proved (octal periodicity theorem) or --max is reached.
    #[command(after_help = NOTATION)]
    Period(PeriodArgs),
    /// Write a report folder: an OEIS-style b-file, a plot (SVG) and a summary (Markdown).
    #[command(after_help = NOTATION)]
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

In a Slurm job array (sbatch --array=0-7), the shard comes from SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT (or _MIN/_MAX); see scripts/slurm/. A run that is stopped resumes from
the games it finished when started again with the same --out.";

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Values(args) => cli::values(args),
        Command::Compute(args) => cli::compute(args),
        Command::Survey(args) => cli::survey(args),
        Command::SurveyMerge(args) => cli::survey_merge(args),
        Command::Genus(args) => cli::genus(args),
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return cli::clap_exit(e),
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
