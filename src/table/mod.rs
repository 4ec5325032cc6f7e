//! Result tables: the values of one game kept in a memory-mapped file, committed atomically.
//!
//! A table holds G(0) … G(count − 1) of one game at 1, 2 or 4 bytes per value, followed by a
//! metadata block (the game, a CRC32 per chunk of 2^20 heaps, the value histogram and the last
//! heap of each value, a recorded period) and is described by the newer of two superblock slots
//! at its start. A commit flushes the values, writes a new metadata block where it overwrites
//! nothing the current slot needs, flushes it, then writes the other slot: a run killed at any
//! moment leaves a table valid up to its last commit. [`Table`] is the writer (one per file,
//! under an exclusive lock); [`TableReader`] reads a committed state; [`extend`] runs an engine
//! over a table. `docs/FORMAT.md` describes the layout and the crash-safety argument.

mod driver;
mod format;

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapMut, MmapOptions};
use thiserror::Error;

pub use driver::{extend, Checkpoints, Progress};
pub use format::{Meta, Superblock, CRC_CHUNK, FORMAT_VERSION, MAGIC, SLOT_SIZE, VALUES_OFFSET};

use crate::analysis::{is_rare, Period, Stats, Summary};
use crate::engine::{Cell, Width};
use format::{SlotError, META_ALIGN};

/// Why a table cannot be opened, read or written.
#[derive(Debug, Error)]
pub enum TableError {
    /// The operating system refused something.
    #[error("{}: cannot {what}: {source}", path.display())]
    Io {
        /// The table.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The cause.
        source: io::Error,
    },
    /// The file does not start with the table magic.
    #[error("{} is not a nimseq table (wrong magic bytes)", path.display())]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// The file is a table of another format version.
    #[error("{} is a nimseq table of format version {found}; this nimseq reads version {FORMAT_VERSION} only", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
    /// The file fails a consistency check.
    #[error("{} is damaged: {what}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The table holds another game.
    #[error("{} holds the values of {found}, not {wanted}", path.display())]
    OtherGame {
        /// The file.
        path: PathBuf,
        /// The game in the table.
        found: String,
        /// The game asked for.
        wanted: String,
    },
    /// Another process writes the table.
    #[error("{} is being written by another nimseq process", path.display())]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// A widening was interrupted; only a writer can finish it.
    #[error("{}: an interrupted run left the values half-widened; run 'nimseq compute' on it again to finish", path.display())]
    Widening {
        /// The file.
        path: PathBuf,
    },
    /// A value needs more than 31 bits.
    #[error("value {value} at heap {at} is larger than a table stores (2^31 - 1)")]
    ValueTooLarge {
        /// The heap.
        at: u64,
        /// Its value.
        value: u32,
    },
    /// The progress callback asked to stop; everything up to `at` is committed.
    #[error("stopped at heap {at}")]
    Stopped {
        /// Heaps committed.
        at: u64,
    },
}

/// Values of a table, at the width they are stored in.
#[derive(Debug, Clone, Copy)]
pub enum ValueSlice<'a> {
    /// One byte per value.
    W8(&'a [u8]),
    /// Two bytes per value.
    W16(&'a [u16]),
    /// Four bytes per value.
    W32(&'a [u32]),
}

impl ValueSlice<'_> {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            ValueSlice::W8(v) => v.len(),
            ValueSlice::W16(v) => v.len(),
            ValueSlice::W32(v) => v.len(),
        }
    }
    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// G(n).
    pub fn get(&self, n: usize) -> u32 {
        match self {
            ValueSlice::W8(v) => v[n].get(),
            ValueSlice::W16(v) => v[n].get(),
            ValueSlice::W32(v) => v[n].get(),
        }
    }
    /// The values of heaps `from..to` as `u32`.
    pub fn range(&self, from: usize, to: usize) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            ValueSlice::W8(v) => Box::new(v[from..to].iter().map(|x| x.get())),
            ValueSlice::W16(v) => Box::new(v[from..to].iter().map(|x| x.get())),
            ValueSlice::W32(v) => Box::new(v[from..to].iter().map(|x| x.get())),
        }
    }
    /// The stored bytes (little-endian) of heaps `from..to`.
    pub fn bytes(&self, from: usize, to: usize) -> &[u8] {
        fn raw<T: Cell>(v: &[T]) -> &[u8] {
            // SAFETY: u8/u16/u32 have no padding; any initialized memory is valid bytes.
            unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        }
        match self {
            ValueSlice::W8(v) => raw(&v[from..to]),
            ValueSlice::W16(v) => raw(&v[from..to]),
            ValueSlice::W32(v) => raw(&v[from..to]),
        }
    }
}

impl crate::engine::GrundyValues for ValueSlice<'_> {
    fn len(&self) -> usize {
        ValueSlice::len(self)
    }
    fn get(&self, n: usize) -> u32 {
        ValueSlice::get(self, n)
    }
}

fn width_of(bytes: u8) -> Width {
    match bytes {
        1 => Width::W8,
        2 => Width::W16,
        _ => Width::W32,
    }
}

fn io_err<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(io::Error) -> TableError + 'a {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

fn damaged(path: &Path, what: impl Into<String>) -> TableError {
    TableError::Damaged {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Reads and checks the current superblock and its metadata block.
fn read_header(path: &Path, file: &File) -> Result<(Superblock, usize, Meta), TableError> {
    let len = file.metadata().map_err(io_err(path, "read"))?.len();
    let mut head = vec![0u8; (2 * SLOT_SIZE) as usize];
    let n = (len.min(2 * SLOT_SIZE)) as usize;
    file.read_exact_at(&mut head[..n], 0)
        .map_err(io_err(path, "read"))?;
    let slots = [
        Superblock::decode(&head[..SLOT_SIZE as usize]),
        Superblock::decode(&head[SLOT_SIZE as usize..]),
    ];
    let best = (0..2)
        .filter_map(|i| {
            slots[i]
                .as_ref()
                .ok()
                .map(|s| (s.seq, std::cmp::Reverse(i)))
        })
        .max()
        .map(|(_, std::cmp::Reverse(i))| i);
    let Some(slot) = best else {
        return Err(match slots {
            [Err(SlotError::Version(found)), _] | [_, Err(SlotError::Version(found))] => {
                TableError::Version {
                    path: path.to_path_buf(),
                    found,
                }
            }
            [Err(SlotError::Magic), Err(SlotError::Magic)] if len < 2 * SLOT_SIZE && len > 0 => {
                if head[..8] == MAGIC {
                    damaged(
                        path,
                        format!("the file is only {len} bytes long (truncated)"),
                    )
                } else {
                    TableError::NotATable {
                        path: path.to_path_buf(),
                    }
                }
            }
            [Err(SlotError::Magic), Err(SlotError::Magic)] => TableError::NotATable {
                path: path.to_path_buf(),
            },
            _ => damaged(path, "both superblock slots fail their checksums"),
        });
    };
    let sb = slots[slot].clone().expect("chosen slot is valid");
    let wide = sb.width.max(sb.widen_to);
    if ![1, 2, 4].contains(&sb.width)
        || ![0, 2, 4].contains(&sb.widen_to)
        || (sb.widen_to != 0 && sb.widen_to <= sb.width)
        || sb.count > sb.capacity
        || sb.meta_offset < VALUES_OFFSET + sb.capacity * u64::from(wide)
    {
        return Err(damaged(path, "the superblock is inconsistent"));
    }
    let meta_end = sb.meta_offset + sb.meta_len;
    if len < meta_end {
        return Err(damaged(
            path,
            format!("the file is {len} bytes long but its header needs {meta_end} (truncated)"),
        ));
    }
    let mut mb = vec![0u8; sb.meta_len as usize];
    file.read_exact_at(&mut mb, sb.meta_offset)
        .map_err(io_err(path, "read"))?;
    if crc32fast::hash(&mb) != sb.meta_crc {
        return Err(damaged(path, "the metadata block fails its checksum"));
    }
    let meta = Meta::decode(&mb).map_err(|e| damaged(path, e.0))?;
    if meta.count != sb.count || meta.width != sb.width {
        return Err(damaged(path, "metadata and superblock disagree"));
    }
    Ok((sb, slot, meta))
}

/// The summary of the committed values, from the metadata (no value is read).
fn summary_of(meta: &Meta) -> Summary {
    let h = &meta.histogram;
    let (rare_mask, rare_count) = h.rare_mask();
    let last_rare_at = (0..h.counts.len())
        .filter(|&v| is_rare(v as u32, rare_mask) && meta.last_at[v] != u64::MAX)
        .map(|v| meta.last_at[v])
        .max();
    let stats = Stats {
        histogram: h.clone(),
        rare_mask,
        rare_count,
        last_rare_at,
    };
    let period = meta.period.clone().map(|p| p.seen_in(meta.count));
    Summary::from_stats(&meta.game, &stats, period)
}

fn cast<T: Cell>(bytes: &[u8]) -> &[T] {
    // SAFETY: u8/u16/u32 are valid for any bit pattern; align_to only yields aligned middles.
    let (pre, mid, post) = unsafe { bytes.align_to::<T>() };
    assert!(
        pre.is_empty() && post.is_empty(),
        "values region misaligned"
    );
    mid
}

fn cast_mut<T: Cell>(bytes: &mut [u8]) -> &mut [T] {
    // SAFETY: as in `cast`.
    let (pre, mid, post) = unsafe { bytes.align_to_mut::<T>() };
    assert!(
        pre.is_empty() && post.is_empty(),
        "values region misaligned"
    );
    mid
}

fn slice_of(bytes: &[u8], width: u8) -> ValueSlice<'_> {
    match width {
        1 => ValueSlice::W8(cast(bytes)),
        2 => ValueSlice::W16(cast(bytes)),
        _ => ValueSlice::W32(cast(bytes)),
    }
}

/// Checks the chunk checksums of heaps `from..to` (rounded out to whole chunks).
fn verify_chunks(
    path: &Path,
    values: ValueSlice<'_>,
    crcs: &[u32],
    from: u64,
    to: u64,
) -> Result<(), TableError> {
    let count = values.len() as u64;
    let first = from / CRC_CHUNK;
    let last = to.min(count).div_ceil(CRC_CHUNK);
    for c in first..last {
        let a = c * CRC_CHUNK;
        let b = (a + CRC_CHUNK).min(count);
        if crc32fast::hash(values.bytes(a as usize, b as usize)) != crcs[c as usize] {
            return Err(damaged(
                path,
                format!("the values of heaps {a} .. {} fail their checksum", b - 1),
            ));
        }
    }
    Ok(())
}

/// A committed table opened for reading.
#[derive(Debug)]
pub struct TableReader {
    path: PathBuf,
    file: File,
    sb: Superblock,
    meta: Meta,
    map: Mmap,
    file_len: u64,
}

impl TableReader {
    /// Opens the table at `path` and checks its header (not its values: see
    /// [`TableReader::verify`]).
    pub fn open(path: &Path) -> Result<TableReader, TableError> {
        let file = File::open(path).map_err(io_err(path, "open"))?;
        let mut header = read_header(path, &file);
        for _ in 0..3 {
            // A reader racing a writer's commit can see a slot half-written and the older
            // slot's metadata block being replaced: read again before calling it damaged.
            if !matches!(header, Err(TableError::Damaged { .. })) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            header = read_header(path, &file);
        }
        let (sb, _, meta) = header?;
        let file_len = file.metadata().map_err(io_err(path, "read"))?.len();
        // SAFETY: the region mapped lies within the file (checked by read_header); a writer only
        // appends beyond `count` or rewrites during a widening, which `values` refuses to read.
        // Truncation by another program while mapped would be a SIGBUS; nimseq never truncates
        // below a committed state's values.
        let map = unsafe {
            MmapOptions::new()
                .len((VALUES_OFFSET + sb.values_bytes()) as usize)
                .map(&file)
        }
        .map_err(io_err(path, "map"))?;
        Ok(TableReader {
            path: path.to_path_buf(),
            file,
            sb,
            meta,
            map,
            file_len,
        })
    }

    /// Takes a shared lock: refuses when a writer holds the table.
    pub fn lock_shared(&self) -> Result<(), TableError> {
        lock(&self.path, &self.file, libc::LOCK_SH)
    }

    /// The canonical code of the game.
    pub fn game(&self) -> &str {
        &self.meta.game
    }

    /// Heaps committed.
    pub fn len(&self) -> u64 {
        self.sb.count
    }

    /// True when no heap is committed.
    pub fn is_empty(&self) -> bool {
        self.sb.count == 0
    }

    /// The width of the values.
    pub fn width(&self) -> Width {
        width_of(self.sb.width)
    }

    /// The size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Is a widening in progress (the values cannot be read until a writer finishes it)?
    pub fn widening(&self) -> bool {
        self.sb.widen_to != 0
    }

    /// The summary of the committed values, from the metadata.
    pub fn summary(&self) -> Summary {
        summary_of(&self.meta)
    }

    /// The rare mask of the committed values (that of [`TableReader::summary`]).
    pub fn rare_mask(&self) -> u32 {
        self.meta.histogram.rare_mask().0
    }

    /// The period recorded in the table.
    pub fn period(&self) -> Option<&Period> {
        self.meta.period.as_ref()
    }

    /// The committed values.
    pub fn values(&self) -> Result<ValueSlice<'_>, TableError> {
        if self.widening() {
            return Err(TableError::Widening {
                path: self.path.clone(),
            });
        }
        let end = (VALUES_OFFSET + self.sb.count * u64::from(self.sb.width)) as usize;
        Ok(slice_of(
            &self.map[VALUES_OFFSET as usize..end],
            self.sb.width,
        ))
    }

    /// Checks the checksums of the chunks holding heaps `from..to`.
    pub fn verify_range(&self, from: u64, to: u64) -> Result<(), TableError> {
        verify_chunks(&self.path, self.values()?, &self.meta.crcs, from, to)
    }

    /// Checks every checksum.
    pub fn verify(&self) -> Result<(), TableError> {
        self.verify_range(0, self.sb.count)
    }
}

/// Heaps converted per step of a widening.
const WIDEN_BLOCK: u64 = 1 << 20;

/// A table open for writing, under an exclusive lock.
#[derive(Debug)]
pub struct Table {
    path: PathBuf,
    file: File,
    map: MmapMut,
    /// The committed superblock.
    sb: Superblock,
    /// The slot holding `sb`.
    slot: usize,
    /// Statistics and checksums of heaps `0..pending` (checksums of whole chunks only).
    meta: Meta,
    /// Heaps written and counted, committed or not.
    pending: u64,
    /// CRC of the partial chunk of heaps `pending / CRC_CHUNK * CRC_CHUNK .. pending`.
    partial: crc32fast::Hasher,
}

impl Table {
    /// Opens the table at `path` for the game `game` (a canonical code), creating it when the
    /// file does not exist. Takes the table's lock, finishes an interrupted widening and checks
    /// every checksum.
    pub fn open(path: &Path, game: &str) -> Result<Table, TableError> {
        if !path.exists() {
            create(path, game)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io_err(path, "open"))?;
        lock(path, &file, libc::LOCK_EX)?;
        let (sb, slot, meta) = read_header(path, &file)?;
        if meta.game != game {
            return Err(TableError::OtherGame {
                path: path.to_path_buf(),
                found: meta.game,
                wanted: game.to_string(),
            });
        }
        let map = map_mut(path, &file, &sb)?;
        let mut t = Table {
            path: path.to_path_buf(),
            file,
            map,
            pending: sb.count,
            sb,
            slot,
            meta,
            partial: crc32fast::Hasher::new(),
        };
        if t.sb.widen_to != 0 {
            // The checksums are taken afresh from the widened values.
            t.widen_steps(None)?;
            return Ok(t);
        }
        let count = t.sb.count;
        verify_chunks(&t.path, t.values(), &t.meta.crcs, 0, count)?;
        if !count.is_multiple_of(CRC_CHUNK) {
            t.meta.crcs.pop();
            let a = count / CRC_CHUNK * CRC_CHUNK;
            let mut h = crc32fast::Hasher::new();
            h.update(t.values().bytes(a as usize, count as usize));
            t.partial = h;
        }
        Ok(t)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Heaps computed (committed or not).
    pub fn len(&self) -> u64 {
        self.pending
    }

    /// True when no heap is computed.
    pub fn is_empty(&self) -> bool {
        self.pending == 0
    }

    /// Heaps committed: what a reader, or a run after a crash, sees.
    pub fn committed(&self) -> u64 {
        self.sb.count
    }

    /// The width of the values.
    pub fn width(&self) -> Width {
        width_of(self.sb.width)
    }

    /// The values of heaps `0..len()`.
    pub fn values(&self) -> ValueSlice<'_> {
        let end = VALUES_OFFSET + self.pending * u64::from(self.sb.width);
        slice_of(
            &self.map[VALUES_OFFSET as usize..end as usize],
            self.sb.width,
        )
    }

    /// The histogram of heaps `0..len()`.
    pub fn histogram(&self) -> &crate::analysis::Histogram {
        &self.meta.histogram
    }

    /// The summary of heaps `0..len()`.
    pub fn summary(&self) -> Summary {
        summary_of(&self.snapshot())
    }

    /// The period recorded (or about to be committed) in the table.
    pub fn period(&self) -> Option<&Period> {
        self.meta.period.as_ref()
    }

    /// Records the period of the finished table (or none) when it differs from the one
    /// recorded, and brings the file back to its canonical layout ([`Table::finish`]), so that
    /// two runs that end with the same values still leave byte-identical files. Only the fields
    /// the format stores are compared (`periods_seen` follows from the count).
    /// Returns whether it changed anything.
    pub fn record_period(&mut self, period: Option<Period>) -> Result<bool, TableError> {
        let stored = |p: &Option<Period>| {
            p.as_ref()
                .map(|p| (p.preperiod, p.period, p.shift, p.proved, p.last_exception))
        };
        if stored(&self.meta.period) == stored(&period) {
            return Ok(false);
        }
        self.meta.period = period;
        self.finish()?;
        Ok(true)
    }

    /// Drops a recorded period that was only observed, not proved, before the table grows: the
    /// new heaps may break it. (Not committed by itself; the next commit carries it.) A proved
    /// period holds for every heap and stays.
    pub fn forget_observed_period(&mut self) {
        if self.meta.period.as_ref().is_some_and(|p| !p.proved) {
            self.meta.period = None;
        }
    }

    /// The metadata of heaps `0..pending`, partial chunk included.
    fn snapshot(&self) -> Meta {
        let mut m = self.meta.clone();
        m.count = self.pending;
        if !self.pending.is_multiple_of(CRC_CHUNK) {
            m.crcs.push(self.partial.clone().finalize());
        }
        m
    }

    /// Counts the values of heaps `start..end`, just written, into the statistics.
    fn absorb(&mut self, start: u64, end: u64) {
        debug_assert_eq!(start, self.pending);
        let w = u64::from(self.sb.width);
        let bytes =
            &self.map[(VALUES_OFFSET + start * w) as usize..(VALUES_OFFSET + end * w) as usize];
        let mut at = start;
        while at < end {
            let stop = end.min((at / CRC_CHUNK + 1) * CRC_CHUNK);
            self.partial
                .update(&bytes[((at - start) * w) as usize..((stop - start) * w) as usize]);
            if stop.is_multiple_of(CRC_CHUNK) {
                let h = std::mem::take(&mut self.partial);
                self.meta.crcs.push(h.finalize());
            }
            at = stop;
        }
        let h = &mut self.meta.histogram;
        let last = &mut self.meta.last_at;
        let mut add = |n: u64, v: u32| {
            let v = v as usize;
            if v >= last.len() {
                last.resize(v + 1, u64::MAX);
            }
            h.add(v as u32);
            last[v] = n;
        };
        match slice_of(bytes, self.sb.width) {
            ValueSlice::W8(s) => s.iter().zip(start..).for_each(|(&v, n)| add(n, v.get())),
            ValueSlice::W16(s) => s.iter().zip(start..).for_each(|(&v, n)| add(n, v.get())),
            ValueSlice::W32(s) => s.iter().zip(start..).for_each(|(&v, n)| add(n, v.get())),
        }
        self.pending = end;
    }

    /// Makes room for heaps up to `end` at the current width (growing the file by a quarter at
    /// least, but not beyond `limit` heaps), and commits the new layout.
    fn reserve(&mut self, end: u64, limit: u64) -> Result<(), TableError> {
        if end <= self.sb.capacity {
            return Ok(());
        }
        let cap = self.sb.capacity;
        let grow = (cap / 4).max((64 << 20) / u64::from(self.sb.width));
        let mut new_cap = end.max((cap + grow).min(limit));
        let w = u64::from(self.sb.width);
        let mut r = allocate(&self.file, VALUES_OFFSET + cap * w, (new_cap - cap) * w);
        if r.is_err() && new_cap > end {
            // Short of space: ask for just what the next chunk needs.
            new_cap = end;
            r = allocate(&self.file, VALUES_OFFSET + cap * w, (new_cap - cap) * w);
        }
        r.map_err(io_err(&self.path, "grow the file"))?;
        let sb = Superblock {
            capacity: new_cap,
            ..self.sb.clone()
        };
        self.commit_as(sb)?;
        self.map = map_mut(&self.path, &self.file, &self.sb)?;
        Ok(())
    }

    /// Commits heaps `0..len()`: after this returns, a crash leaves them in the table.
    pub fn commit(&mut self) -> Result<(), TableError> {
        self.commit_as(self.sb.clone())
    }

    /// Commits the pending values with the layout fields of `next`.
    fn commit_as(&mut self, next: Superblock) -> Result<(), TableError> {
        let w = u64::from(self.sb.width);
        let (from, to) = (self.sb.count * w, self.pending * w);
        if to > from {
            self.map
                .flush_range((VALUES_OFFSET + from) as usize, (to - from) as usize)
                .map_err(io_err(&self.path, "flush the values"))?;
        }
        let meta = self.snapshot();
        let bytes = meta.encode();
        let len = bytes.len() as u64;
        let values_end = VALUES_OFFSET + next.values_bytes();
        let desired = align_up(values_end, META_ALIGN);
        let (cur, cur_end) = (self.sb.meta_offset, self.sb.meta_offset + self.sb.meta_len);
        let offset = if desired < cur_end && cur < desired + len {
            align_up(cur_end, META_ALIGN)
        } else {
            desired
        };
        if offset == desired && next.capacity == self.pending && desired > values_end {
            // The canonical layout: the padding before the metadata is zero.
            let pad = vec![0u8; (desired - values_end) as usize];
            self.file
                .write_all_at(&pad, values_end)
                .map_err(io_err(&self.path, "write"))?;
        }
        self.file
            .write_all_at(&bytes, offset)
            .map_err(io_err(&self.path, "write the metadata"))?;
        self.file.sync_data().map_err(io_err(&self.path, "sync"))?;
        let sb = Superblock {
            count: self.pending,
            meta_crc: crc32fast::hash(&bytes),
            meta_offset: offset,
            meta_len: len,
            ..next
        };
        self.write_slot(sb)
    }

    /// Writes `sb` (with the next sequence number) to the other slot and makes it current.
    fn write_slot(&mut self, mut sb: Superblock) -> Result<(), TableError> {
        sb.seq = self.sb.seq + 1;
        let other = 1 - self.slot;
        self.file
            .write_all_at(&sb.encode(), other as u64 * SLOT_SIZE)
            .map_err(io_err(&self.path, "write the superblock"))?;
        self.file.sync_data().map_err(io_err(&self.path, "sync"))?;
        self.sb = sb;
        self.slot = other;
        Ok(())
    }

    /// Commits and brings the file to its canonical layout: no room beyond the values, the
    /// metadata right after them, both slots equal with sequence number 0. Two runs that end
    /// with the same values leave byte-identical files.
    pub fn finish(&mut self) -> Result<(), TableError> {
        self.commit()?;
        let values_end = VALUES_OFFSET + self.pending * u64::from(self.sb.width);
        let desired = align_up(values_end, META_ALIGN);
        for _ in 0..3 {
            if self.sb.capacity == self.pending && self.sb.meta_offset == desired {
                break;
            }
            let sb = Superblock {
                capacity: self.pending,
                ..self.sb.clone()
            };
            self.commit_as(sb)?;
        }
        let end = desired + self.sb.meta_len;
        let len = self
            .file
            .metadata()
            .map_err(io_err(&self.path, "read"))?
            .len();
        if len != end {
            self.file
                .set_len(end)
                .map_err(io_err(&self.path, "truncate"))?;
            self.file.sync_all().map_err(io_err(&self.path, "sync"))?;
        }
        self.map = map_mut(&self.path, &self.file, &self.sb)?;
        let mut head = vec![0u8; (2 * SLOT_SIZE) as usize];
        self.file
            .read_exact_at(&mut head, 0)
            .map_err(io_err(&self.path, "read"))?;
        let canonical = Superblock {
            seq: 0,
            ..self.sb.clone()
        }
        .encode();
        if head[..SLOT_SIZE as usize] != canonical || head[SLOT_SIZE as usize..] != canonical {
            // Both slots describe the same state at every step, whichever one a reader picks.
            for slot in [1 - self.slot, self.slot] {
                self.file
                    .write_all_at(&canonical, slot as u64 * SLOT_SIZE)
                    .map_err(io_err(&self.path, "write the superblock"))?;
                self.file.sync_data().map_err(io_err(&self.path, "sync"))?;
            }
            self.sb.seq = 0;
            self.slot = 0;
        }
        Ok(())
    }

    /// Widens the stored values to `width` in place, committing after each step; a crash at any
    /// point resumes the widening on the next open.
    fn widen(&mut self, width: Width) -> Result<(), TableError> {
        self.widen_limited(width, None).map(|_| ())
    }

    /// [`Table::widen`], stopping after `limit` steps (tests use this to simulate a crash).
    fn widen_limited(&mut self, width: Width, limit: Option<usize>) -> Result<bool, TableError> {
        let to = width.bytes() as u8;
        if to <= self.sb.width {
            return Ok(true);
        }
        self.commit()?;
        let cap = self.sb.capacity;
        let (w, w2) = (u64::from(self.sb.width), u64::from(to));
        allocate(&self.file, VALUES_OFFSET + cap * w, cap * (w2 - w))
            .map_err(io_err(&self.path, "grow the file"))?;
        let head = if self.pending > 0 {
            self.values().get(0)
        } else {
            0
        };
        let sb = Superblock {
            widen_to: to,
            widen_boundary: self.pending,
            widen_head: head,
            ..self.sb.clone()
        };
        self.commit_as(sb)?;
        self.map = map_mut(&self.path, &self.file, &self.sb)?;
        self.widen_steps(limit)
    }

    /// Runs the steps of a widening in progress (at most `limit` of them: tests use this to
    /// simulate a crash). Returns true when the widening is complete.
    fn widen_steps(&mut self, limit: Option<usize>) -> Result<bool, TableError> {
        let (w, w2) = (u64::from(self.sb.width), u64::from(self.sb.widen_to));
        let f = w2 / w;
        let mut b = self.sb.widen_boundary;
        let mut steps = 0;
        let mut buf: Vec<u32> = Vec::new();
        // Heaps `a..b` move from bytes [a·w, b·w) to [a·w2, b·w2): disjoint when b ≤ f·a, so a
        // step read again after a crash reads intact sources.
        while b > 1 {
            if limit.is_some_and(|l| steps >= l) {
                return Ok(false);
            }
            let a = b.div_ceil(f).max(b.saturating_sub(WIDEN_BLOCK));
            let region = &mut self.map[VALUES_OFFSET as usize..];
            buf.clear();
            buf.extend(
                slice_of(&region[(a * w) as usize..(b * w) as usize], w as u8)
                    .range(0, (b - a) as usize),
            );
            let dst = &mut region[(a * w2) as usize..(b * w2) as usize];
            store(dst, w2 as u8, &buf);
            self.map
                .flush_range((VALUES_OFFSET + a * w2) as usize, ((b - a) * w2) as usize)
                .map_err(io_err(&self.path, "flush the values"))?;
            let sb = Superblock {
                widen_boundary: a,
                ..self.sb.clone()
            };
            self.write_slot(sb)?;
            b = a;
            steps += 1;
        }
        let count = self.sb.count;
        if count > 0 {
            let region = &mut self.map[VALUES_OFFSET as usize..];
            store(&mut region[..w2 as usize], w2 as u8, &[self.sb.widen_head]);
            self.map
                .flush_range(VALUES_OFFSET as usize, w2 as usize)
                .map_err(io_err(&self.path, "flush the values"))?;
        }
        // Everything is at the new width: new checksums, then the commit that ends the widening.
        self.sb.width = w2 as u8;
        self.meta.width = w2 as u8;
        self.meta.crcs.clear();
        self.partial = crc32fast::Hasher::new();
        let values = self.values();
        let mut crcs = Vec::new();
        let mut a = 0;
        while a < count {
            let b = (a + CRC_CHUNK).min(count);
            crcs.push(crc32fast::hash(values.bytes(a as usize, b as usize)));
            a = b;
        }
        self.meta.crcs = crcs;
        let sb = Superblock {
            width: w2 as u8,
            widen_to: 0,
            widen_boundary: 0,
            widen_head: 0,
            ..self.sb.clone()
        };
        // `snapshot` adds the partial chunk's CRC from `partial`: keep it out of `crcs` here.
        if !count.is_multiple_of(CRC_CHUNK) {
            self.meta.crcs.pop();
            let a = count / CRC_CHUNK * CRC_CHUNK;
            let bytes = self.values().bytes(a as usize, count as usize).to_vec();
            self.partial.update(&bytes);
        }
        self.commit_as(sb)?;
        Ok(true)
    }
}

/// Writes `vals` into `dst` at `width` bytes each, little-endian.
fn store(dst: &mut [u8], width: u8, vals: &[u32]) {
    match width {
        1 => cast_mut::<u8>(dst)
            .iter_mut()
            .zip(vals)
            .for_each(|(d, &v)| *d = v as u8),
        2 => cast_mut::<u16>(dst)
            .iter_mut()
            .zip(vals)
            .for_each(|(d, &v)| *d = v as u16),
        _ => cast_mut::<u32>(dst).copy_from_slice(vals),
    }
}

/// Takes a `flock` of `kind` (shared or exclusive) without waiting; released when the file is
/// closed, also when the process dies. (`File::try_lock` does the same from Rust 1.89 on.)
fn lock(path: &Path, file: &File, kind: libc::c_int) -> Result<(), TableError> {
    // SAFETY: plain system call on an open descriptor.
    if unsafe { libc::flock(file.as_raw_fd(), kind | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::WouldBlock {
        Err(TableError::Locked {
            path: path.to_path_buf(),
        })
    } else {
        Err(io_err(path, "lock")(e))
    }
}

/// Maps the header and values region of a table for writing.
fn map_mut(path: &Path, file: &File, sb: &Superblock) -> Result<MmapMut, TableError> {
    // SAFETY: the file is locked against other nimseq writers, and the region mapped is
    // allocated (by `allocate`) before it is mapped; nimseq never shrinks the file below it
    // while mapped. Another program truncating the file would cause a SIGBUS.
    unsafe {
        MmapOptions::new()
            .len((VALUES_OFFSET + sb.values_bytes()) as usize)
            .map_mut(file)
    }
    .map_err(io_err(path, "map"))
}

/// Allocates disk blocks for `len` bytes at `offset`, so that writes through the map cannot
/// fail later for want of space (a full disk then is an error here, not a SIGBUS).
fn allocate(file: &File, offset: u64, len: u64) -> io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    // SAFETY: plain system call on an open descriptor.
    let r = unsafe { libc::posix_fallocate(file.as_raw_fd(), offset as i64, len as i64) };
    match r {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Creates an empty table: written under a temporary name, then linked into place, so that
/// `path` never exists without a valid header.
fn create(path: &Path, game: &str) -> Result<(), TableError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.nimseq-new-{}",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let meta = Meta {
        game: game.to_string(),
        width: 1,
        ..Meta::default()
    }
    .encode();
    let sb = Superblock {
        seq: 0,
        width: 1,
        meta_crc: crc32fast::hash(&meta),
        meta_offset: VALUES_OFFSET,
        meta_len: meta.len() as u64,
        ..Superblock::default()
    }
    .encode();
    let write = || -> io::Result<()> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all_at(&sb, 0)?;
        f.write_all_at(&sb, SLOT_SIZE)?;
        f.write_all_at(&meta, VALUES_OFFSET)?;
        f.sync_all()
    };
    let r = write().and_then(|()| match std::fs::hard_link(&tmp, path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        r => r,
    });
    let _ = std::fs::remove_file(&tmp);
    r.map_err(io_err(path, "create"))?;
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests;
