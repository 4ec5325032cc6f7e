//! Output of `nimseq graph`: the value and outcome of every vertex of a game graph.

use std::io::{self, Write};

use crate::graph::{Analysis, Graph, Outcome, Value};

/// How the values were computed, in one sentence.
pub fn graph_method(a: &Analysis) -> &'static str {
    if a.cyclic {
        "generalized Sprague-Grundy values (Smith 1966; Fraenkel & Yesha 1986); ∞(K): K = the finite values among the followers"
    } else {
        "Grundy values (acyclic graph)"
    }
}

fn counts(a: &Analysis) -> [usize; 3] {
    let mut c = [0; 3];
    for v in &a.values {
        c[match v.outcome() {
            Outcome::P => 0,
            Outcome::N => 1,
            Outcome::D => 2,
        }] += 1;
    }
    c
}

/// `1 vertex`, `2 vertices`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes one line per vertex, `name value outcome`, after `#` header lines.
pub fn write_graph_text<W: Write>(out: W, g: &Graph, a: &Analysis) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let dup = match g.duplicate_edges() {
        0 => String::new(),
        d => format!(
            " ({} ignored)",
            counted(d, "repeated move", "repeated moves")
        ),
    };
    writeln!(
        out,
        "# game graph: {}, {}{dup}",
        counted(g.vertex_count(), "vertex", "vertices"),
        counted(g.edge_count(), "move", "moves")
    )?;
    writeln!(out, "# {}", graph_method(a))?;
    if a.cyclic {
        let verbs = if a.loopy_vertices == 1 {
            "lies on or leads"
        } else {
            "lie on or lead"
        };
        writeln!(
            out,
            "# {} {verbs} to a cycle",
            counted(a.loopy_vertices, "vertex", "vertices")
        )?;
    }
    let [p, n, d] = counts(a);
    writeln!(
        out,
        "# outcomes: {p} P, {n} N, {d} D (P: the player to move loses; N: wins; D: draw)"
    )?;
    writeln!(out, "# vertex value outcome")?;
    let mut buf = itoa::Buffer::new();
    for (v, value) in a.values.iter().enumerate() {
        out.write_all(g.name(v as u32).as_bytes())?;
        out.write_all(b" ")?;
        match value {
            Value::Finite(x) => out.write_all(buf.format(*x).as_bytes())?,
            inf => write!(out, "{inf}")?,
        }
        out.write_all(b" ")?;
        out.write_all(value.outcome().letter().as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes the analysis as one JSON object: `values` maps each vertex to its value (a number, or
/// a string `"∞(0,2)"`), `outcomes` to `"P"`, `"N"` or `"D"`; vertices in order of appearance.
pub fn write_graph_json<W: Write>(out: W, g: &Graph, a: &Analysis) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let [p, n, d] = counts(a);
    write!(
        out,
        "{{\"vertices\":{},\"moves\":{},\"cyclic\":{},\"method\":",
        g.vertex_count(),
        g.edge_count(),
        a.cyclic
    )?;
    serde_json::to_writer(&mut out, graph_method(a))?;
    write!(
        out,
        ",\"counts\":{{\"P\":{p},\"N\":{n},\"D\":{d}}},\"values\":{{"
    )?;
    for (v, value) in a.values.iter().enumerate() {
        if v > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut out, g.name(v as u32))?;
        out.write_all(b":")?;
        match value {
            Value::Finite(x) => write!(out, "{x}")?,
            inf => serde_json::to_writer(&mut out, &inf.to_string())?,
        }
    }
    out.write_all(b"},\"outcomes\":{")?;
    for (v, value) in a.values.iter().enumerate() {
        if v > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut out, g.name(v as u32))?;
        write!(out, ":\"{}\"", value.outcome().letter())?;
    }
    out.write_all(b"}}\n")?;
    out.flush()
}
