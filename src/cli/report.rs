//! `nimseq report`: a folder a researcher can use as is — b-file, plot, Markdown summary.

use std::fs;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use nimseq::analysis::theorem_t;
use nimseq::api::{self, ReportData};
use nimseq::numbers::parse_count;
use nimseq::report::{self, FolderFiles, PlotInput};
use nimseq::rules::Rule;

use super::progress::InMemory;
use super::{usage, SequenceArgs};

/// Arguments of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    seq: SequenceArgs,
    /// The folder to write (created if missing; files of an earlier report are replaced).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    out: PathBuf,
    /// Terms in the b-file (OEIS b-files usually hold 1,000 to 10,000); 'all' for every heap.
    #[arg(
        long,
        value_name = "K",
        default_value = "10000",
        allow_negative_numbers = true
    )]
    bfile_terms: String,
    /// Read the values from a table written by 'nimseq compute GAME -n N --table PATH' instead of
    /// computing them (N may exceed the memory; the table must hold heaps 0 .. N-1).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["engine", "threads"])]
    table: Option<PathBuf>,
}

/// Computes heaps 0 .. N-1 (stopping early at a proved period), or reads them from a table, and
/// writes the folder.
pub fn report(args: ReportArgs) -> anyhow::Result<()> {
    let bfile_terms = match args.bfile_terms.as_str() {
        "all" => u64::MAX,
        s => match parse_count(s) {
            Ok(0) => return Err(super::usage("--bfile-terms must be at least 1 (or 'all')")),
            Ok(k) => k,
            Err(e) => return Err(super::usage(format!("--bfile-terms: {e}"))),
        },
    };
    super::check_out_dir(&args.out, "--out")?;
    let rule = Rule::parse(&args.seq.game).map_err(usage)?;
    let data = match &args.table {
        Some(path) => {
            api::report_from_table(&rule, path, args.seq.count).map_err(super::reading_error)?
        }
        None => {
            let exec = args.seq.executor()?;
            super::warn_cost(&rule, args.seq.count, &args.seq.run.bar);
            let mut run = InMemory::new(args.seq.count, &args.seq.run.bar);
            let r = api::report(&rule, args.seq.count, args.seq.engine, &exec, &mut |step| {
                run.show(step);
                ControlFlow::Continue(())
            });
            run.finish();
            r.map_err(super::api_error)?
        }
    };
    write_folder(&args.out, &rule, &data, bfile_terms)
}

/// Writes the b-file, the plot and the summary of heaps `0 .. summary.count − 1` into `dir`;
/// `computed` heaps were computed (or read), the others follow from the proved period.
fn write_folder(
    dir: &Path,
    rule: &Rule,
    data: &ReportData,
    bfile_terms: u64,
) -> anyhow::Result<()> {
    let summary = &data.summary;
    let count = summary.count;
    let mask = u32::from_str_radix(&summary.rare_mask, 16).unwrap_or(0);
    let get = &|n: u64| data.get(n);

    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;

    let entry = report::oeis_entry(rule);
    let first = entry.map_or(0, |e| e.offset).min(count - 1);
    let last = (count - 1).min(first.saturating_add(bfile_terms.max(1) - 1));
    let bfile = report::bfile_name(rule);
    let mut header = Vec::new();
    if let Some(e) = entry {
        header.push(format!(
            "# {}: Sprague-Grundy values of {}",
            e.a_number,
            report::game_title(rule)
        ));
    }
    header.extend(report::bfile_header(rule, first, last - first + 1));
    header.push(format!("# offset {first}: the first line is heap {first}"));
    write_file(dir, &bfile, |w| {
        report::write_bfile(w, &header, (first..=last).map(|n| (n, get(n))))
    })?;

    let title = report::game_title(rule);
    let plot = "plot.svg";
    write_file(dir, plot, |w| {
        report::write_svg(
            w,
            &PlotInput {
                title: &title,
                count,
                get,
                max_value: summary.max_value,
                max_value_first_at: summary.max_value_first_at,
                rare_mask: mask,
                rare_count: summary.rare_count,
                period: summary.period.as_ref(),
            },
        )
    })?;

    let first_values: Vec<u32> = (0..count.min(report::FIRST_VALUES as u64))
        .map(get)
        .collect();
    let files = FolderFiles {
        bfile: &bfile,
        bfile_first: first,
        bfile_last: last,
        a_number: entry.map(|e| e.a_number),
        plot,
    };
    write_file(dir, "summary.md", |w| {
        report::write_markdown(
            w,
            rule,
            summary,
            &data.profile,
            &first_values,
            &files,
            data.computed,
            theorem_t(rule),
        )
    })?;
    let mut out = std::io::stdout().lock();
    for name in [bfile.as_str(), plot, "summary.md"] {
        writeln!(out, "{}", dir.join(name).display())?;
    }
    Ok(())
}

/// Writes `name` in `dir` through a temporary file renamed into place, so that a failure never
/// leaves a truncated file under the final name.
fn write_file(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        write(&mut f)?;
        f.sync_all()?;
        fs::rename(&tmp, &path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}
