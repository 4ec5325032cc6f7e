//! The on-disk layout of a table: the two superblock slots and the metadata block.
//!
//! Everything is little-endian. `docs/FORMAT.md` describes the same layout in prose; the
//! constants here are the single source of truth and the fixture test pins them down.

use std::collections::BTreeMap;

use crate::analysis::{Histogram, Period};

/// Magic bytes opening each superblock slot.
pub const MAGIC: [u8; 8] = *b"NIMSEQTB";
/// Magic bytes opening the metadata block.
pub const META_MAGIC: [u8; 8] = *b"NIMSEQMD";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes per superblock slot; slot A is at offset 0, slot B at `SLOT_SIZE`.
pub const SLOT_SIZE: u64 = 2048;
/// Where the values begin (one page, so that the mapped values are aligned).
pub const VALUES_OFFSET: u64 = 4096;
/// Heaps per checksum chunk.
pub const CRC_CHUNK: u64 = 1 << 20;
/// Alignment of the metadata block.
pub const META_ALIGN: u64 = 4096;
/// Bytes of a slot that carry data (the rest is zero).
const SLOT_USED: usize = 96;

/// One superblock slot: the commit record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Superblock {
    /// Commit sequence number: the valid slot with the larger one is current.
    pub seq: u64,
    /// Heaps whose values are committed (heaps `0..count`).
    pub count: u64,
    /// Heaps the values region has room for, at the wider of `width` and `widen_to`.
    pub capacity: u64,
    /// Bytes per value.
    pub width: u8,
    /// Bytes per value after an interrupted widening (0: none in progress).
    pub widen_to: u8,
    /// During a widening: heaps `boundary..count` are already stored at `widen_to` bytes.
    pub widen_boundary: u64,
    /// During a widening: G(0), whose cell the last step overwrites in place.
    pub widen_head: u32,
    /// CRC32 of the metadata block.
    pub meta_crc: u32,
    /// Offset of the metadata block.
    pub meta_offset: u64,
    /// Length of the metadata block.
    pub meta_len: u64,
}

/// Why a slot could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotError {
    /// The magic bytes are wrong: not a table at all.
    Magic,
    /// A different format version.
    Version(u32),
    /// The slot's checksum fails (a torn write or damage).
    Checksum,
}

impl Superblock {
    /// The slot's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; SLOT_SIZE as usize];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[16..24].copy_from_slice(&self.seq.to_le_bytes());
        b[24..32].copy_from_slice(&self.count.to_le_bytes());
        b[32..40].copy_from_slice(&self.capacity.to_le_bytes());
        b[40] = self.width;
        b[41] = self.widen_to;
        b[48..56].copy_from_slice(&self.widen_boundary.to_le_bytes());
        b[56..60].copy_from_slice(&self.widen_head.to_le_bytes());
        b[60..64].copy_from_slice(&self.meta_crc.to_le_bytes());
        b[64..72].copy_from_slice(&self.meta_offset.to_le_bytes());
        b[72..80].copy_from_slice(&self.meta_len.to_le_bytes());
        let crc = crc32fast::hash(&b[..SLOT_USED]);
        b[12..16].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Reads a slot.
    pub fn decode(b: &[u8]) -> Result<Superblock, SlotError> {
        if b.len() < SLOT_USED || b[0..8] != MAGIC {
            return Err(SlotError::Magic);
        }
        let version = u32_at(b, 8);
        if version != FORMAT_VERSION {
            return Err(SlotError::Version(version));
        }
        let mut check = b[..SLOT_USED].to_vec();
        check[12..16].fill(0);
        if crc32fast::hash(&check) != u32_at(b, 12) || b[SLOT_USED..].iter().any(|&x| x != 0) {
            return Err(SlotError::Checksum);
        }
        let sb = Superblock {
            seq: u64_at(b, 16),
            count: u64_at(b, 24),
            capacity: u64_at(b, 32),
            width: b[40],
            widen_to: b[41],
            widen_boundary: u64_at(b, 48),
            widen_head: u32_at(b, 56),
            meta_crc: u32_at(b, 60),
            meta_offset: u64_at(b, 64),
            meta_len: u64_at(b, 72),
        };
        Ok(sb)
    }

    /// Bytes of the values region.
    pub fn values_bytes(&self) -> u64 {
        self.capacity * u64::from(self.width.max(self.widen_to))
    }
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

/// The metadata block: the game, the checksums and the statistics of the committed values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Meta {
    /// The canonical game code.
    pub game: String,
    /// Heaps described (equals the superblock's count).
    pub count: u64,
    /// Bytes per value that the checksums were taken over.
    pub width: u8,
    /// CRC32 of each chunk of [`CRC_CHUNK`] heaps (the last one may be partial).
    pub crcs: Vec<u32>,
    /// The value histogram.
    pub histogram: Histogram,
    /// `last_at[v]`: the last heap with value `v` (`u64::MAX`: none).
    pub last_at: Vec<u64>,
    /// A period, when one has been recorded.
    pub period: Option<Period>,
}

/// A metadata block that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaError(pub String);

impl Meta {
    /// The block's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(64 + 4 * self.crcs.len() + 16 * self.last_at.len());
        b.extend_from_slice(&META_MAGIC);
        put32(&mut b, self.game.len() as u32);
        b.extend_from_slice(self.game.as_bytes());
        put64(&mut b, self.count);
        b.push(self.width);
        put64(&mut b, CRC_CHUNK);
        put64(&mut b, self.crcs.len() as u64);
        for &c in &self.crcs {
            put32(&mut b, c);
        }
        let h = &self.histogram;
        put64(&mut b, h.counts.len() as u64);
        for &c in &h.counts {
            put64(&mut b, c);
        }
        for &l in &self.last_at {
            put64(&mut b, l);
        }
        put64(&mut b, h.max_first_at);
        match &self.period {
            None => b.extend_from_slice(&[0u8; 30]),
            Some(p) => {
                b.push(1);
                put64(&mut b, p.preperiod);
                put64(&mut b, p.period);
                put32(&mut b, p.shift);
                b.push(u8::from(p.proved));
                put64(&mut b, p.last_exception.unwrap_or(u64::MAX));
            }
        }
        b
    }

    /// Reads a block.
    pub fn decode(b: &[u8]) -> Result<Meta, MetaError> {
        let mut r = Reader { b, at: 0 };
        if r.bytes(8)? != META_MAGIC {
            return Err(MetaError("metadata block has wrong magic".into()));
        }
        let game_len = r.u32()? as usize;
        let game = String::from_utf8(r.bytes(game_len)?.to_vec())
            .map_err(|_| MetaError("game code is not UTF-8".into()))?;
        let count = r.u64()?;
        let width = r.bytes(1)?[0];
        let chunk = r.u64()?;
        if chunk != CRC_CHUNK {
            return Err(MetaError(format!("checksum chunk of {chunk} heaps")));
        }
        let n = r.len(4)?;
        let crcs = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
        let len = r.len(16)?;
        let counts = (0..len).map(|_| r.u64()).collect::<Result<Vec<_>, _>>()?;
        let last_at = (0..len).map(|_| r.u64()).collect::<Result<Vec<_>, _>>()?;
        let max_first_at = r.u64()?;
        let period = match r.bytes(1)?[0] {
            0 => {
                r.bytes(29)?;
                None
            }
            _ => {
                let preperiod = r.u64()?;
                let period = r.u64()?;
                let shift = r.u32()?;
                let proved = r.bytes(1)?[0] != 0;
                let last = r.u64()?;
                Some(Period {
                    preperiod,
                    period,
                    last_exception: (last != u64::MAX).then_some(last),
                    shift,
                    proved,
                })
            }
        };
        if r.at != b.len() {
            return Err(MetaError("metadata block has trailing bytes".into()));
        }
        let total: u64 = counts.iter().sum();
        if total != count || n as u64 != count.div_ceil(CRC_CHUNK) {
            return Err(MetaError("metadata counts disagree".into()));
        }
        Ok(Meta {
            game,
            count,
            width,
            crcs,
            histogram: Histogram {
                counts,
                len: count,
                max_first_at,
            },
            last_at,
            period,
        })
    }

    /// The frequencies as a map (values that occur only).
    pub fn frequencies(&self) -> BTreeMap<u32, u64> {
        let c = &self.histogram.counts;
        (0..c.len())
            .filter(|&v| c[v] > 0)
            .map(|v| (v as u32, c[v]))
            .collect()
    }
}

fn put32(b: &mut Vec<u8>, x: u32) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put64(b: &mut Vec<u8>, x: u64) {
    b.extend_from_slice(&x.to_le_bytes());
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], MetaError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| MetaError("metadata block ends early".into()))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, MetaError> {
        Ok(u32_at(self.bytes(4)?, 0))
    }
    fn u64(&mut self) -> Result<u64, MetaError> {
        Ok(u64_at(self.bytes(8)?, 0))
    }
    /// A count of items of `size` bytes each, checked against the bytes left.
    fn len(&mut self, size: usize) -> Result<usize, MetaError> {
        let n = self.u64()?;
        if n > ((self.b.len() - self.at) / size) as u64 {
            return Err(MetaError("metadata block ends early".into()));
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superblock_round_trip_and_damage() {
        let sb = Superblock {
            seq: 7,
            count: 1000,
            capacity: 2000,
            width: 1,
            widen_to: 2,
            widen_boundary: 500,
            widen_head: 0,
            meta_crc: 0xdead_beef,
            meta_offset: 8192,
            meta_len: 300,
        };
        let mut b = sb.encode();
        assert_eq!(b.len(), SLOT_SIZE as usize);
        assert_eq!(Superblock::decode(&b), Ok(sb.clone()));
        b[30] ^= 1;
        assert_eq!(Superblock::decode(&b), Err(SlotError::Checksum));
        b[0] = b'X';
        assert_eq!(Superblock::decode(&b), Err(SlotError::Magic));
        let mut b = sb.encode();
        b[8] = 9;
        assert_eq!(Superblock::decode(&b), Err(SlotError::Version(9)));
    }

    #[test]
    fn meta_round_trip() {
        let mut histogram = Histogram::default();
        for v in [0u32, 1, 1, 3] {
            histogram.add(v);
        }
        let meta = Meta {
            game: "0.77".into(),
            count: 4,
            width: 1,
            crcs: vec![42],
            histogram,
            last_at: vec![0, 2, u64::MAX, 3],
            period: Some(Period {
                preperiod: 72,
                period: 12,
                last_exception: Some(71),
                shift: 0,
                proved: true,
            }),
        };
        let b = meta.encode();
        assert_eq!(Meta::decode(&b), Ok(meta.clone()));
        assert!(Meta::decode(&b[..b.len() - 1]).is_err());
        let none = Meta {
            period: None,
            ..meta
        };
        assert_eq!(Meta::decode(&none.encode()), Ok(none));
    }
}
