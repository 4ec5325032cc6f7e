//! The edge-list format: one move `u v` per line; `#` starts a comment; blank lines are
//! ignored; a line with a single token declares a vertex (useful for a position with no move
//! that no edge mentions). Vertex names are any tokens without whitespace or `#`.

use std::collections::HashMap;

use thiserror::Error;

use super::Graph;

/// Why an edge list was refused.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// A line that is not `u v`.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The input is not UTF-8.
    #[error("line {line}: not UTF-8 text")]
    NotUtf8 {
        /// 1-based line number of the first bad byte.
        line: usize,
    },
    /// No vertex at all.
    #[error("the graph is empty: no moves and no vertices (write one move 'u v' per line)")]
    Empty,
    /// More than 2^32 − 1 vertices.
    #[error("more than {} vertices", u32::MAX)]
    TooManyVertices,
    /// The graph has a cycle where none is allowed.
    #[error("the graph has a cycle through vertex '{vertex}'")]
    Cycle {
        /// A vertex on a cycle.
        vertex: String,
    },
}

impl Graph {
    /// Parses an edge list given as bytes (must be UTF-8).
    pub fn parse_bytes(bytes: &[u8]) -> Result<Graph, GraphError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Graph::parse(text),
            Err(e) => {
                let line = 1 + bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                Err(GraphError::NotUtf8 { line })
            }
        }
    }

    /// Parses an edge list.
    pub fn parse(text: &str) -> Result<Graph, GraphError> {
        // About one new vertex per line is a generous first guess for sparse game graphs.
        let mut ids: HashMap<&str, u32> = HashMap::with_capacity(text.len() / 24);
        let mut names: Vec<&str> = Vec::new();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let content = match line.find('#') {
                Some(p) => &line[..p],
                None => line,
            };
            let mut tokens = content.split_whitespace();
            let (Some(u), v) = (tokens.next(), tokens.next()) else {
                continue;
            };
            if let Some(extra) = tokens.next() {
                return Err(GraphError::Line {
                    line: i + 1,
                    message: format!(
                        "expected one move 'u v', found a third token '{}'",
                        truncate(extra)
                    ),
                });
            }
            let mut intern = |name| -> Result<u32, GraphError> {
                if let Some(&k) = ids.get(name) {
                    return Ok(k);
                }
                let k = u32::try_from(names.len()).map_err(|_| GraphError::TooManyVertices)?;
                ids.insert(name, k);
                names.push(name);
                Ok(k)
            };
            let a = intern(u)?;
            if let Some(v) = v {
                let b = intern(v)?;
                edges.push((a, b));
            }
        }
        if names.is_empty() {
            return Err(GraphError::Empty);
        }
        drop(ids);
        let names = names.into_iter().map(Box::from).collect();
        Ok(Graph::build(names, edges))
    }
}

fn truncate(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((p, _)) => format!("{}...", &s[..p]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_comments_and_duplicates() {
        let g = Graph::parse("# a game\na b\nb c # last move\n\n  a   c\na b\nlonely\n").unwrap();
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.duplicate_edges(), 1);
        assert_eq!(g.name(3), "lonely");
        assert_eq!(g.followers(0), &[1, 2]);
        assert_eq!(g.predecessors(2), &[0, 1]);
        assert!(g.followers(3).is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            Graph::parse("a b\nb c d\n").unwrap_err(),
            GraphError::Line {
                line: 2,
                message: "expected one move 'u v', found a third token 'd'".into()
            }
        );
        assert_eq!(
            Graph::parse("# nothing\n\n").unwrap_err(),
            GraphError::Empty
        );
        assert_eq!(
            Graph::parse_bytes(b"a b\n\xff c\n").unwrap_err(),
            GraphError::NotUtf8 { line: 2 }
        );
    }
}
