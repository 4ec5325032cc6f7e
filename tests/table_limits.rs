//! Limits of tables (issue 9): a value beyond what a table stores (31 bits) stops the run
//! cleanly, with the table valid up to the heap before it.

use std::ops::ControlFlow;

use nimseq::engine::{Cell, Fill, Overflow};
use nimseq::table::{self, Checkpoints, Table, TableError, TableReader};

/// G(n) = n below `at` (so the table widens 8 → 16 bits at heap 256), then 2^31 at `at`.
struct Huge {
    at: usize,
}

impl Fill for Huge {
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow> {
        for (n, cell) in vals.iter_mut().enumerate().take(end).skip(start) {
            let g = if n == self.at { 1 << 31 } else { n as u32 };
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            *cell = T::from_u32(g);
        }
        Ok(())
    }
}

#[test]
fn a_value_beyond_31_bits_stops_the_run_and_the_table_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let mut t = Table::open(&path, "0.[3]").unwrap();
    let r = table::extend(
        &mut t,
        &mut Huge { at: 1000 },
        5000,
        &Checkpoints::default(),
        &mut |_| ControlFlow::Continue(()),
    );
    match r {
        Err(e @ TableError::ValueTooLarge { at: 1000, .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("2147483648") && msg.contains("heap 1000"),
                "{msg}"
            );
        }
        other => panic!("expected ValueTooLarge at heap 1000, got {other:?}"),
    }
    assert_eq!(t.committed(), 1000);
    drop(t);
    let r = TableReader::open(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.len(), 1000);
    let v = r.values().unwrap();
    assert!((0..1000).all(|n| v.get(n) == n as u32));
}
