//! Text about table files (the `info` command's first lines).

use std::io::{self, Write};

use crate::resources::human_bytes;

/// Writes where a table is and how it is stored.
pub fn write_table_text<W: Write>(
    mut out: W,
    path: &str,
    file_len: u64,
    width: usize,
    widening: bool,
) -> io::Result<()> {
    writeln!(out, "table         {path}")?;
    let note = if widening {
        "; an interrupted widening awaits 'nimseq compute'"
    } else {
        ""
    };
    writeln!(
        out,
        "storage       {} ({file_len} bytes), {width} byte(s) per value{note}",
        human_bytes(file_len)
    )
}

/// Writes `n,G(n)` lines for consecutive heaps from `first`, after an optional header line.
pub fn write_csv<W: Write>(
    out: W,
    header: Option<&str>,
    heaps: impl Iterator<Item = (u64, u32)>,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    if let Some(h) = header {
        writeln!(out, "{h}")?;
    }
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    for (n, g) in heaps {
        out.write_all(a.format(n).as_bytes())?;
        out.write_all(b",")?;
        out.write_all(b.format(g).as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
