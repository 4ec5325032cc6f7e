//! The block scheme: each block's far work cut into chunks that the calling thread and the crew
//! take, the next block's far work done beside the finishing of this one, and the near work
//! heap by heap on the calling thread ([`Sparse::block`]).

use super::*;

impl Sparse {
    /// Fills heaps `start..end` block by block: the far work of a block on this thread and the
    /// `crew`, then its near work on this one; small mode where it applies. Returns where it
    /// stopped: `end`, or earlier for the caller to go on with another crew: with
    /// `crew_wanted` (the crew is this thread alone, the executor has more) before a block,
    /// and with helpers, where small mode applies again after a block (it runs on the
    /// caller's thread).
    pub(super) fn fill_blocks<T: Cell>(
        &mut self,
        crew: &Crew<'_>,
        vals: &mut [T],
        start: usize,
        end: usize,
        crew_wanted: bool,
    ) -> Result<usize, Overflow> {
        let mut pos = start;
        // When set: the rows of heaps pos..bend hold their options with every heap below `lim`,
        // and (if `scanned`) the first scans of those pairs.
        let mut ahead: Option<Ahead> = None;
        let pipeline = self.pipeline();
        let mut next_rows = Vec::new();
        let mut next_scans = Vec::new();
        while pos < end {
            if self.choose_mode(&vals[..pos]) {
                ahead = None;
            }
            if self.dense {
                let stop = end.min(self.next_check.max(pos + 1));
                let reached = self.fill_dense(vals, pos, stop);
                self.covered = *reached.as_ref().unwrap_or_else(|o| &o.at);
                pos = reached?;
                continue;
            }
            let stale = self.maybe_rechoose(&vals[..pos]);
            if self.small_mode() {
                if !crew.is_alone() && pos > start {
                    return Ok(pos);
                }
                ahead = None;
                let reached = self.fill_small(vals, pos, end);
                self.covered = reached;
                if reached > pos {
                    pos = reached;
                    continue;
                }
                // The value of heap `pos` may not be below 64: the blocks find it.
            }
            if crew_wanted {
                return Ok(pos);
            }
            let (bend, this) = match ahead.take() {
                Some(a) if !stale && a.scanned => (a.end, Part::resume(a.lim, pos)),
                Some(a) if !stale => (a.end, Part::rest(a.lim, pos)),
                _ => (end.min(pos + self.block_len()), Part::rest(0, pos)),
            };
            // The far work of the next block done while this one is finished: with the first
            // scans in a pipeline, so that they run beside the finisher.
            let next = if pipeline {
                Part::rest(0, pos)
            } else {
                Part::first(pos)
            };
            self.refresh_keys(&vals[..pos]);
            self.refresh_witnesses(&vals[..pos]);
            self.refresh_head(&vals[..pos]);
            self.refresh_lanes(&vals[..pos]);
            let (before, rest) = vals.split_at_mut(pos);
            let mut rows = std::mem::take(&mut self.rows);
            let mut scans = std::mem::take(&mut self.scans);
            // Alone, the next block's far work in two parts gains nothing to run beside (it
            // would follow the finishing anyway) and costs a second lane pass, and columns cut
            // at both ends of the part below the block: each block is then done in one part
            // (Officers 2^20 on avx2 −4…−6 %, §18 of results/avx2-methods.md).
            let nend = if crew.is_alone() {
                bend
            } else {
                end.min(bend + self.block_len())
            };
            let mut late = Late::default();
            let (outcome, added) = self.block(
                crew,
                (&mut rows, &mut scans, &mut next_rows, &mut next_scans),
                before,
                &mut rest[..bend - pos],
                (this, next, nend),
                &mut late,
            );
            merge_hist(&mut self.hist, &added);
            self.rare_pos.extend_from_slice(&late.pos);
            self.rare_val.extend_from_slice(&late.val);
            self.rows = std::mem::replace(&mut next_rows, rows);
            self.scans = std::mem::replace(&mut next_scans, scans);
            match outcome {
                Ok(Finished::Done) => {
                    if nend > bend {
                        ahead = Some(Ahead {
                            end: nend,
                            lim: pos,
                            scanned: next.scan,
                        });
                    }
                    pos = bend;
                }
                Ok(Finished::Widen(at)) => pos = at,
                Err(o) => {
                    self.covered = o.at;
                    return Err(o);
                }
            }
            self.covered = pos;
        }
        Ok(pos)
    }
}

/// Far work done ahead for the heaps `pos..end` after a block (`pos` where filling goes on).
#[derive(Clone, Copy)]
pub(super) struct Ahead {
    pub(super) end: usize,
    /// Their rows hold the options with every heap below this …
    pub(super) lim: usize,
    /// … and their first scans over those pairs are done.
    pub(super) scanned: bool,
}

/// The mark rows and far scans of a chunk of heaps.
pub(super) type Chunk<'r> = (&'r mut [u8], &'r mut [FarScan]);

/// Work of one block handed out to the threads: chunks, each taken by one thread (a chunk is
/// whole even if a thread panicked holding it, so [`lock`] hands it on).
pub(super) type ChunkWork<'r> = Vec<std::sync::Mutex<Chunk<'r>>>;

impl Sparse {
    /// One block, heaps `b..b + block.len()` (`b` = `before.len()`), on every thread at once:
    /// the far work of the block left (`this`, such as [`Part::rest`]`(from, b)`: the rare
    /// pairs with a heap in `from..b`, then the first scans) in chunks, the block finished heap
    /// by heap as soon as the chunk of each heap is done, and the first far part of the next
    /// block (`next_part`, heaps `b + block.len() .. nend`, rows `next_rows`: options below
    /// `b`) in chunks. Each thread takes chunks of the block first, then the calling one
    /// finishes it while the others go on to the next block's chunks (it takes one of those
    /// too whenever the chunk it must finish next is still being marked, unless they scan),
    /// and it joins them when done: no thread waits for another but at the end of the block
    /// (one meeting a block, where there were two). Returns how finishing ended and the
    /// histogram of the values found.
    pub(super) fn block<T: Cell>(
        &self,
        crew: &Crew<'_>,
        (rows, scans, next_rows, next_scans): (
            &mut Vec<u8>,
            &mut Vec<FarScan>,
            &mut Vec<u8>,
            &mut Vec<FarScan>,
        ),
        before: &[T],
        block: &mut [T],
        (this, next_part, nend): (Part, Part, usize),
        late: &mut Late,
    ) -> (Result<Finished, Overflow>, Histogram) {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::Mutex;
        let b = before.len();
        let bend = b + block.len();
        let (per, this_work) = self.chunks(rows, scans, block.len());
        let (next_per, next_work) = self.chunks(next_rows, next_scans, nend - bend);
        let this_work: ChunkWork<'_> = this_work.into_iter().map(Mutex::new).collect();
        let next_work: ChunkWork<'_> = next_work.into_iter().map(Mutex::new).collect();
        let done: Vec<AtomicBool> = this_work.iter().map(|_| AtomicBool::new(false)).collect();
        let (taken, next_taken) = (AtomicUsize::new(0), AtomicUsize::new(0));
        // Set if a thread panicked in a chunk of the block, so that the finisher does not wait
        // for it forever (the panic itself reaches the caller when the threads are joined).
        let failed = AtomicBool::new(false);
        struct OnPanic<'f>(&'f AtomicBool);
        impl Drop for OnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Release);
                }
            }
        }
        // One chunk of the block, or (`next`) of the next block, if any is left: whether one was.
        let take_one = |next: bool| {
            let (work, taken, n0, per, part) = if next {
                (&next_work, &next_taken, bend, next_per, next_part)
            } else {
                (&this_work, &taken, b, per, this)
            };
            let i = taken.fetch_add(1, Ordering::Relaxed);
            let Some(w) = work.get(i) else {
                return false;
            };
            let (rows, scans) = &mut *lock(w);
            let _failing = OnPanic(&failed);
            self.far_chunk(rows, scans, before, n0 + i * per, part);
            if !next {
                done[i].store(true, Ordering::Release);
            }
            true
        };
        let take = |next: bool| while take_one(next) {};
        let helper = || {
            take(false);
            take(true);
        };
        let finish = || {
            take(false);
            let mut fin = Finisher {
                engine: self,
                before,
                hist: Histogram::default(),
                late,
                targets: Targets::new(self.width, self.mask, self.tier).with_runs(self.scan_runs),
                upto: Vec::new(),
                chunk_from: 0,
                cursor: self
                    .witnesses
                    .as_ref()
                    .map(|_| Cursor::new(block.len(), self.width)),
            };
            let mut outcome = Ok(Finished::Done);
            for (i, w) in this_work.iter().enumerate() {
                // The chunk is being done by another thread: take a chunk of the next block
                // meanwhile if those are the shorter (no scans in them), or else wait,
                // yielding the core now and then (the other thread may need it).
                let mut spins = 0u32;
                while !done[i].load(Ordering::Acquire) {
                    assert!(!failed.load(Ordering::Acquire), "a far chunk failed");
                    if !next_part.scan && take_one(true) {
                        continue;
                    }
                    spins += 1;
                    if spins.is_multiple_of(1024) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                let (rows, scans) = &mut *lock(w);
                outcome = fin.finish(rows, scans, block, b, i * per);
                if !matches!(outcome, Ok(Finished::Done)) {
                    break;
                }
            }
            take(true);
            (outcome, fin.hist)
        };
        crew.round(finish, &helper)
    }

    /// `rows` and `scans` for `count` heaps (grown as needed), cut into chunks of heaps for the
    /// threads: the heaps per chunk, and the chunks.
    pub(super) fn chunks<'r>(
        &self,
        rows: &'r mut Vec<u8>,
        scans: &'r mut Vec<FarScan>,
        count: usize,
    ) -> (usize, Vec<Chunk<'r>>) {
        let stride = self.stride();
        if rows.len() < count * stride {
            rows.resize(count * stride, 0);
        }
        scans.resize(count, FarScan::default());
        let per_chunk = self.chunk_len(count);
        let work = rows[..count * stride]
            .chunks_mut(per_chunk * stride)
            .zip(scans.chunks_mut(per_chunk))
            .collect();
        (per_chunk, work)
    }
}
