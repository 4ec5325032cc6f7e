//! A scatter plot of `G(n)` against `n`, written as SVG by hand.
//!
//! Researchers draw nim-sequences as a scatter of points `(n, G(n))`. For large `N` the heap axis
//! is logarithmic and the points are binned deterministically into the plot's pixel grid: a cell
//! is drawn when at least one heap falls in it, so every value that occurs, every extreme and
//! every rare heap stays visible while the file stays small (it grows with the number of occupied
//! cells, at most one per pixel, not with `N`). Rare heaps are drawn on top in another colour;
//! a known period is marked by a shaded band from the preperiod over one period.

use std::io::{self, Write};

use crate::analysis::{is_rare, Period};

/// Plot width in pixels.
const WIDTH: f64 = 1000.0;
/// Plot height in pixels.
const HEIGHT: f64 = 640.0;
/// The plotting area: left, right, top, bottom.
const AREA: (f64, f64, f64, f64) = (72.0, 975.0, 62.0, 540.0);
/// Up to this many heaps the heap axis is linear.
pub const LINEAR_MAX: u64 = 10_000;

/// What the plot shows.
pub struct PlotInput<'a> {
    /// The game, as titled (e.g. `0.77 (kayles)`).
    pub title: &'a str,
    /// Heaps `0 … count − 1`.
    pub count: u64,
    /// `G(n)` for `n < count`.
    pub get: &'a dyn Fn(u64) -> u32,
    /// The largest value.
    pub max_value: u32,
    /// The first heap with the largest value.
    pub max_value_first_at: u64,
    /// The rare mask (values `v` with `popcount(v & mask)` even are rare).
    pub rare_mask: u32,
    /// The number of rare heaps.
    pub rare_count: u64,
    /// The period, when one is known.
    pub period: Option<&'a Period>,
}

/// The heap axis: linear or logarithmic (`log10(n + 1)`), mapped to the plotting area.
struct XAxis {
    log: bool,
    count: u64,
}

impl XAxis {
    /// The horizontal position of heap `n` (its left edge for linear axes of few heaps).
    fn frac(&self, n: f64) -> f64 {
        if self.log {
            (n + 1.0).log10() / (self.count as f64).log10()
        } else {
            (n + 0.5) / self.count as f64
        }
    }
    fn x(&self, n: f64) -> f64 {
        AREA.0 + self.frac(n) * (AREA.1 - AREA.0)
    }
}

/// The vertical position of value `v` when values go up to `max`: half a value plus 1.5% of
/// the range is left free above the largest value and below 0, so no point sits on the frame.
fn y_of(v: f64, max: u32) -> f64 {
    let pad = 0.5 + 0.015 * max as f64;
    AREA.3 - (v + pad) / (max as f64 + 2.0 * pad) * (AREA.3 - AREA.2)
}

/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A round step giving about `target` ticks over `span`.
fn nice_step(span: f64, target: f64) -> f64 {
    let raw = (span / target).max(1.0);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes the SVG plot.
pub fn write_svg<W: Write>(out: W, input: &PlotInput) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let count = input.count.max(1);
    let axis = XAxis {
        log: count > LINEAR_MAX,
        count,
    };
    let max = input.max_value.max(1);
    let (l, r, t, b) = AREA;
    let cols = (r - l).ceil() as usize;
    let rows = (b - t).ceil() as usize;

    // Occupied cells: one bit per pixel, for common and for rare heaps.
    let words = rows.div_ceil(64);
    let mut common = vec![0u64; cols * words];
    let mut rare = vec![0u64; cols * words];
    for n in 0..input.count {
        let v = (input.get)(n);
        let col = ((axis.frac(n as f64) * cols as f64) as usize).min(cols - 1);
        let row = ((b - y_of(v as f64, max)) as usize).min(rows - 1);
        let grid = if is_rare(v, input.rare_mask) {
            &mut rare
        } else {
            &mut common
        };
        grid[col * words + row / 64] |= 1 << (row % 64);
    }
    // Rare heaps are marked when they are rare (at most a fifth of the heaps, as in the games
    // with a sparse space); when even the best mask leaves more, red points would only hide
    // the pattern, so all points are drawn alike and the legend says why.
    let sparse = input.rare_count.saturating_mul(5) <= input.count;
    if !sparse {
        for (c, r) in common.iter_mut().zip(rare.iter_mut()) {
            *c |= std::mem::take(r);
        }
    }

    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="13">"#
    )?;
    writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    )?;
    writeln!(
        out,
        r#"<text x="{}" y="24" font-size="17" text-anchor="middle">Sprague–Grundy values G(n) of {}</text>"#,
        WIDTH / 2.0,
        escape(input.title)
    )?;
    writeln!(
        out,
        r##"<text x="{}" y="44" text-anchor="middle" fill="#444">heaps 0 – {} ({} values); largest value {} (first at heap {})</text>"##,
        WIDTH / 2.0,
        thousands(input.count.saturating_sub(1)),
        thousands(input.count),
        input.max_value,
        thousands(input.max_value_first_at)
    )?;

    // The period band and the preperiod line, under the points.
    if let Some(p) = input.period {
        let n0 = p.preperiod as f64;
        let x0 = axis.x(n0 - 0.5).max(l);
        let x1 = axis.x(n0 + p.period as f64 - 0.5).min(r);
        if x0 < r {
            writeln!(
                out,
                r##"<rect x="{x0:.1}" y="{t}" width="{:.1}" height="{}" fill="#fde9b8" opacity="0.75"/>"##,
                (x1 - x0).max(1.5),
                b - t
            )?;
            writeln!(
                out,
                r##"<line x1="{x0:.1}" y1="{t}" x2="{x0:.1}" y2="{b}" stroke="#b07800" stroke-width="1.2" stroke-dasharray="5,3"/>"##
            )?;
        }
    }

    // Axes, ticks, grid.
    writeln!(
        out,
        r##"<g stroke="#e6e6e6" stroke-width="1" fill="none">"##
    )?;
    let ystep = nice_step(max as f64 + 1.0, 8.0);
    let mut ticks_y = Vec::new();
    let mut v = 0.0;
    while v <= max as f64 {
        ticks_y.push(v);
        v += ystep;
    }
    for &v in &ticks_y {
        let y = y_of(v, max);
        writeln!(out, r#"<line x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}"/>"#)?;
    }
    let ticks_x: Vec<(f64, String)> = if axis.log {
        let mut ticks = vec![(0.0, "0".to_string())];
        let mut d = 1u64;
        while d <= count {
            let label = match d {
                d if d >= 1_000_000_000 => format!("{}G", d / 1_000_000_000),
                d if d >= 1_000_000 => format!("{}M", d / 1_000_000),
                d if d >= 1_000 => format!("{}k", d / 1_000),
                d => d.to_string(),
            };
            ticks.push((d as f64, label));
            d *= 10;
        }
        ticks
    } else {
        let step = nice_step(count as f64, 10.0);
        let mut ticks = Vec::new();
        let mut n = 0.0;
        while n < count as f64 {
            ticks.push((n, thousands(n as u64)));
            n += step;
        }
        ticks
    };
    for (n, _) in &ticks_x {
        let x = axis.x(*n);
        writeln!(out, r#"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{b}"/>"#)?;
    }
    writeln!(out, "</g>")?;
    writeln!(
        out,
        r##"<rect x="{l}" y="{t}" width="{}" height="{}" fill="none" stroke="#333"/>"##,
        r - l,
        b - t
    )?;
    for &v in &ticks_y {
        writeln!(
            out,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            l - 6.0,
            y_of(v, max) + 4.0,
            v as u64
        )?;
    }
    for (n, label) in &ticks_x {
        writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#,
            axis.x(*n),
            b + 18.0
        )?;
    }
    let xlabel = if axis.log {
        "heap n (logarithmic scale)"
    } else {
        "heap n"
    };
    writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">{xlabel}</text>"#,
        (l + r) / 2.0,
        b + 40.0
    )?;
    writeln!(
        out,
        r#"<text transform="translate(20,{}) rotate(-90)" text-anchor="middle">G(n)</text>"#,
        (t + b) / 2.0
    )?;

    // The points: one small square per occupied cell, vertical runs merged into one bar.
    let dot = if input.count <= 2_000 { 3.0 } else { 2.4 };
    write!(out, r##"<path fill="#1f4e9c" d=""##)?;
    for col in 0..cols {
        let column = &common[col * words..(col + 1) * words];
        let mut row = 0;
        while row < rows {
            if column[row / 64] >> (row % 64) & 1 == 0 {
                row += 1;
                continue;
            }
            let start = row;
            while row < rows && column[row / 64] >> (row % 64) & 1 != 0 {
                row += 1;
            }
            let x = l + col as f64 + 0.5 - dot / 2.0;
            let y = b - row as f64 + 0.5 - dot / 2.0;
            let h = (row - start) as f64 - 1.0 + dot;
            write!(out, "M{x:.1} {y:.1}h{dot}v{h:.1}h-{dot}z")?;
        }
    }
    writeln!(out, r#""/>"#)?;
    writeln!(
        out,
        r##"<g fill="#d62728" stroke="#7a0000" stroke-width="0.5">"##
    )?;
    for col in 0..cols {
        for row in 0..rows {
            if rare[col * words + row / 64] >> (row % 64) & 1 != 0 {
                writeln!(
                    out,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="2.6"/>"#,
                    l + col as f64 + 0.5,
                    b - row as f64 - 0.5
                )?;
            }
        }
    }
    writeln!(out, "</g>")?;

    // The legend, in one row under the heap axis (never over the points).
    let ly = b + 68.0;
    let mut lx = l;
    writeln!(out, r#"<g font-size="12">"#)?;
    if sparse {
        let common_text = format!(
            "common value (odd popcount of value &amp; 0x{:x})",
            input.rare_mask
        );
        writeln!(
            out,
            r##"<rect x="{lx}" y="{}" width="8" height="8" fill="#1f4e9c"/><text x="{}" y="{ly}">{common_text}</text>"##,
            ly - 8.0,
            lx + 13.0
        )?;
        lx += 13.0 + 6.7 * common_text.len() as f64 + 24.0;
        writeln!(
            out,
            r##"<circle cx="{}" cy="{}" r="3.5" fill="#d62728"/><text x="{}" y="{ly}">rare value: {} heaps, every one marked</text>"##,
            lx + 4.0,
            ly - 4.0,
            lx + 13.0,
            thousands(input.rare_count)
        )?;
    } else {
        writeln!(
            out,
            r##"<rect x="{lx}" y="{}" width="8" height="8" fill="#1f4e9c"/><text x="{}" y="{ly}">G(n); no sparse structure: the best mask, 0x{:x}, leaves {} of {} heaps rare, so none is marked</text>"##,
            ly - 8.0,
            lx + 13.0,
            input.rare_mask,
            thousands(input.rare_count),
            thousands(input.count)
        )?;
    }
    if let Some(p) = input.period {
        let (lx, ly) = (l, ly + 20.0);
        let kind = if p.proved { "proved" } else { "observed" };
        let shift = if p.shift > 0 {
            format!(", G(n+p) = G(n) + {}", p.shift)
        } else {
            String::new()
        };
        writeln!(
            out,
            r##"<rect x="{lx}" y="{}" width="8" height="8" fill="#fde9b8" stroke="#b07800"/><text x="{}" y="{ly}">period {} from heap {} ({kind}{shift}), one period shaded</text>"##,
            ly - 8.0,
            lx + 13.0,
            thousands(p.period),
            thousands(p.preperiod)
        )?;
    }
    writeln!(out, "</g>")?;
    writeln!(out, "</svg>")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(count: u64, get: &dyn Fn(u64) -> u32, period: Option<&Period>) -> String {
        let mut out = Vec::new();
        let input = PlotInput {
            title: "0.77 (kayles)",
            count,
            get,
            max_value: (0..count).map(get).max().unwrap(),
            max_value_first_at: 0,
            rare_mask: 0xf,
            rare_count: 0,
            period,
        };
        write_svg(&mut out, &input).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn small_and_large() {
        let s = svg(100, &|n| (n % 7) as u32, None);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains(">heap n<"));
        // 2^24 heaps stay a small file, with every value visible.
        let big = svg(1 << 24, &|n| (n.wrapping_mul(2654435761) % 50) as u32, None);
        assert!(big.contains("logarithmic"));
        assert!(big.len() < 3_000_000, "{} bytes", big.len());
    }

    #[test]
    fn every_rare_cell_is_marked() {
        // Values 0 are rare for mask 0xf; one rare heap among a million common ones.
        let s = svg(1_000_000, &|n| if n == 777_777 { 0 } else { 1 }, None);
        assert_eq!(s.matches("<circle cx").count(), 1 + 1); // the heap, and the legend's dot
    }

    #[test]
    fn rare_heaps_are_marked_only_when_rare() {
        let mut out = Vec::new();
        let get = |n: u64| (n % 4) as u32;
        let input = PlotInput {
            title: "t",
            count: 1000,
            get: &get,
            max_value: 3,
            max_value_first_at: 3,
            rare_mask: 1,
            rare_count: 500,
            period: None,
        };
        write_svg(&mut out, &input).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s.matches("<circle").count(), 0);
        assert!(s.contains("no sparse structure"));
    }

    #[test]
    fn numbers() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(nice_step(100.0, 10.0), 10.0);
        assert_eq!(nice_step(9.0, 8.0), 2.0);
    }
}
