//! `nimseq export`: the values of a table as a b-file, CSV or raw little-endian bytes.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use nimseq::analysis::is_rare;
use nimseq::numbers::parse_count;
use nimseq::report;
use nimseq::rules::Rule;
use nimseq::table::TableReader;

use super::{table_error, usage};

/// Output formats of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// 'n G(n)' lines after a '#' header (OEIS b-file).
    Bfile,
    /// 'n,grundy' lines after a header line.
    Csv,
    /// The stored values, little-endian, at the table's width (see 'nimseq info').
    Raw,
}

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The table file.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// The first heap (default 0; numbers as in 1000, 1e6, 2^20).
    #[arg(long, value_name = "A", value_parser = heap_arg, allow_negative_numbers = true)]
    from: Option<u64>,
    /// Stop before heap B (default: every heap in the table).
    #[arg(long, value_name = "B", value_parser = heap_arg, allow_negative_numbers = true)]
    to: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "bfile")]
    format: Format,
    /// Leave out the header.
    #[arg(long)]
    no_header: bool,
    /// Only the heaps whose values are rare (under the table's rare mask, as `nimseq info`
    /// shows it): the rare positions, for a b-file or CSV.
    #[arg(long)]
    rare: bool,
}

fn heap_arg(s: &str) -> Result<u64, String> {
    parse_count(s).map_err(|e| e.to_string())
}

/// Writes the values of heaps `from..to` to stdout, after checking their checksums.
pub fn export(args: ExportArgs) -> anyhow::Result<()> {
    let t = TableReader::open(&args.path).map_err(table_error)?;
    t.lock_shared().map_err(super::locked_for_reading)?;
    let len = t.len();
    if len == 0 {
        return Err(usage(format!(
            "{} holds no heap yet; fill it with 'nimseq compute {} -n N --table {}'",
            args.path.display(),
            t.game(),
            args.path.display()
        )));
    }
    let from = args.from.unwrap_or(0);
    let to = args.to.unwrap_or(len);
    let held = format!("the table holds heaps 0 .. {}", len - 1);
    if from >= len {
        return Err(usage(format!("--from {from} is beyond the table: {held}")));
    }
    if to > len {
        return Err(usage(format!(
            "--to {to} is beyond the table: {held} (--to {len} ends with the last)"
        )));
    }
    if from >= to {
        return Err(usage(format!(
            "--from {from} --to {to} selects no heap: heaps from A up to, not including, B"
        )));
    }
    if args.rare && args.format == Format::Raw {
        return Err(usage(
            "--rare lists heaps with their values: use --format bfile or csv, not raw",
        ));
    }
    t.verify_range(from, to)?;
    let values = t.values()?;
    let (a, b) = (from as usize, to as usize);
    let mask = t.rare_mask();
    let heaps = (from..)
        .zip(values.range(a, b))
        .filter(|&(_, g)| !args.rare || is_rare(g, mask));
    let out = std::io::stdout().lock();
    match args.format {
        Format::Bfile => {
            let header = if args.no_header {
                Vec::new()
            } else {
                let rule = Rule::parse(t.game()).map_err(|e| anyhow::anyhow!("{e}"))?;
                let mut h = report::bfile_header(&rule, from, to - from);
                if args.rare {
                    h.push(format!(
                        "# only the heaps with rare values (mask {mask:#x}: an even number of \
                         the mask's bits set in G(n))"
                    ));
                }
                h
            };
            report::write_bfile(out, &header, heaps)?;
        }
        Format::Csv => {
            let header = if args.no_header {
                None
            } else {
                Some("n,grundy")
            };
            report::write_csv(out, header, heaps)?;
        }
        Format::Raw => {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
            out.write_all(values.bytes(a, b))?;
            out.flush()?;
        }
    }
    Ok(())
}
