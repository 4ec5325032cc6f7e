//! The set of targets of a scan: the values it looks for, in the form the tier's scan reads
//! ([`TargetSet`]): a byte a value for the portable loops, the 512-bit set of the values with
//! AVX-512 VBMI, and that set with the 256-bit set of their keys with AVX2 and NEON. The form is chosen
//! with the targets, from their tier, so that a scan cannot run without the set it reads.

use super::for_each_open;
#[cfg(target_arch = "aarch64")]
use super::neon;
use super::tier::{TargetSet, Tier};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512bw};
use super::{Cell, FEW};
use crate::engine::scan_keys::key_without;

/// The values a scan looks for; the scan ends when every target has been met. On the portable
/// loops (and for values of 512 or more) a map with one byte per value says which are still
/// targets. With AVX2 or AVX-512 (values below 512 in cells of 8 or 16 bits) the 512-bit set of
/// the targets is all there is (no map, no list), made from a row with a few vector
/// compares. AVX2 adds a 256-bit set of the targets' *keys*, with which a chunk of 32 pairs is
/// tested by a few byte shuffles: the key is the value itself below 256, and for values below
/// 512 the value with its highest mask bit taken out, which tells rare values apart (that bit
/// is the parity of the others); a common value may share a key with a target, so a hit is
/// confirmed in the set of values.
#[derive(Debug, Clone)]
pub(crate) struct Targets<T> {
    /// Values are below this power of two.
    pub(super) width: usize,
    /// The form of the set, and so the scan that reads it: with a vector set the set `values`
    /// is the targets, and `map` and `all` are not kept.
    pub(super) set: TargetSet,
    /// The tier the targets were made for (its proof lets the scans run).
    pub(super) tier: Tier,
    /// `map[v] == 1` while `v` is a target (empty with a vector set).
    pub(super) map: Vec<u8>,
    /// The targets as set (some may have been met since; empty with a vector set).
    all: Vec<T>,
    /// Targets not yet met.
    pub(super) need: usize,
    /// While `listed`: the targets not yet met (the first `need`), then the first again.
    pub(super) list: [T; FEW],
    listed: bool,
    /// The bits of a value kept in place by its key (the rest move down by one).
    pub(super) low: u32,
    /// With a vector set, the set of the targets: value `v` is bit `v & 7` of byte `v >> 3`.
    pub(super) values: [u8; 64],
    /// With [`TargetSet::Avx2Keys`], the set of their keys: key `k` is bit `k & 7` of byte
    /// `k >> 3`.
    pub(super) keys: [u8; 32],
    /// Room for the values an AVX-512 scan finds between two looks at them (kept here so
    /// that a scan does not clear a buffer every time).
    pub(super) found: Vec<T>,
    /// Runs a scan takes its steps from in turn, where the tier's scans do (`runs.rs`; 1: in
    /// order).
    pub(super) runs: usize,
}

impl<T: Cell> Targets<T> {
    /// No targets, for values below `width` (a power of two) and the class mask `mask`; scans
    /// run on `tier`.
    pub(crate) fn new(width: usize, mask: u32, tier: Tier) -> Targets<T> {
        debug_assert!(width.is_power_of_two() && (mask as usize) < width.max(2));
        let low = if width <= 256 {
            u32::MAX
        } else {
            (1u32 << (31 - mask.max(1).leading_zeros())) - 1
        };
        // The vector sets hold values below 512 in cells of 8 or 16 bits.
        let set = if width <= 512 && T::BITS <= 16 {
            tier.target_set()
        } else {
            TargetSet::Map
        };
        Targets {
            width,
            set,
            tier,
            map: if set == TargetSet::Map {
                vec![0; width]
            } else {
                Vec::new()
            },
            all: Vec::new(),
            need: 0,
            list: [T::default(); FEW],
            listed: false,
            low,
            values: [0; 64],
            keys: [0; 32],
            found: Vec::new(),
            runs: 1,
        }
    }

    /// The same targets, their scans in `runs` interleaved runs where the tier's scans take
    /// them (1: in order; see `runs.rs`).
    pub(crate) fn with_runs(mut self, runs: usize) -> Targets<T> {
        self.runs = runs.max(1);
        self
    }

    /// Whether the targets are a vector set (no map, no list).
    #[inline(always)]
    pub(super) fn vector(&self) -> bool {
        self.set != TargetSet::Map
    }

    /// The key of `v` (below 512).
    #[inline(always)]
    pub(super) fn key(&self, v: u32) -> u32 {
        key_without(v, self.low)
    }

    /// Replaces the targets: the values `v < end` with `row[v] == 0` and `class[v] != 0`. The
    /// class must be the rare class of the mask.
    #[inline(always)]
    pub(crate) fn set_open(&mut self, row: &[u8], class: &[u8], end: usize) {
        #[cfg(target_arch = "aarch64")]
        if self.set == TargetSet::NeonKeys {
            // The set of values 64 a NEON step, then the set of their keys.
            let end = end.min(self.width);
            let _proof = self.tier.neon().expect("NEON keys on the NEON tier");
            // SAFETY: the tier's proof says the processor has NEON. The sets are written
            // whole: nothing else is kept.
            self.need = unsafe { neon::open_set(&mut self.values, row, class, end) };
            self.keys_of_values();
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.vector() {
            let end = end.min(self.width);
            // SAFETY (both): the tier's proof says the processor has what the kernel uses.
            // The sets are written whole: nothing else is kept.
            self.need = if let Some(_proof) = self.tier.avx512bw() {
                unsafe { avx512bw::open_set(&mut self.values, row, class, end) }
            } else {
                let _proof = self.tier.avx2().expect("a vector set on a vector tier");
                unsafe { avx2::open_set(&mut self.values, row, class, end) }
            };
            match self.set {
                TargetSet::Avx2Keys => self.keys_of_values(),
                TargetSet::NeonKeys => unreachable!("an aarch64 set"),
                TargetSet::Vbmi | TargetSet::Map => {}
            }
            return;
        }
        self.clear();
        let (map, all) = (&mut self.map, &mut self.all);
        for_each_open(row, class, end, |v| {
            map[v as usize] = 1;
            all.push(T::from_u32(v));
        });
        self.need = self.all.len();
    }

    /// The key set of the set of values (rare values: no two share a key).
    #[inline(always)]
    pub(super) fn keys_of_values(&mut self) {
        let word = |w: usize| {
            u64::from_le_bytes(self.values[8 * w..8 * w + 8].try_into().expect("8 bytes"))
        };
        if self.low == u32::MAX {
            // Below 256 the key is the value: one 32-byte copy, which AVX2's `open_set` stores
            // and the scans load whole (a wider load than the stores before it is not
            // forwarded from them: it waits for them to reach the cache).
            self.keys.copy_from_slice(&self.values[..32]);
            return;
        }
        let mut keys = [0u64; 4];
        let b = (self.low.wrapping_add(1)).trailing_zeros();
        if b >= 6 {
            // Key word kw joins the two value words that differ in bit b − 6 only.
            let half = 1 << (b - 6);
            for (kw, key) in keys.iter_mut().enumerate() {
                let w = (kw & (half - 1)) | ((kw & !(half - 1)) << 1);
                *key = word(w) | word(w + half);
            }
        } else {
            for w in 0..8 {
                let mut bits = word(w);
                while bits != 0 {
                    let k = self.key(64 * w as u32 + bits.trailing_zeros());
                    bits &= bits - 1;
                    keys[(k >> 6) as usize] |= 1 << (k & 63);
                }
            }
        }
        for (kw, key) in keys.iter().enumerate() {
            self.keys[8 * kw..8 * kw + 8].copy_from_slice(&key.to_le_bytes());
        }
    }

    /// Forgets the targets of the map and the list (the sets of `bits` are written whole
    /// instead).
    fn clear(&mut self) {
        debug_assert!(!self.vector());
        for v in self.all.drain(..) {
            self.map[v.get() as usize] = 0;
        }
        self.need = 0;
        self.listed = false;
    }

    /// Targets not yet met.
    #[inline(always)]
    pub(crate) fn need(&self) -> usize {
        self.need
    }

    /// The least target not yet met.
    pub(crate) fn least_left(&self) -> Option<u32> {
        if self.vector() {
            let byte = self.values.iter().position(|&b| b != 0)?;
            return Some(8 * byte as u32 + self.values[byte].trailing_zeros());
        }
        self.all
            .iter()
            .map(|v| v.get())
            .filter(|&v| self.map[v as usize] != 0)
            .min()
    }

    /// Writes the targets not yet met into `out`, as many as it holds, ascending for a vector
    /// set; returns how many it wrote.
    pub(crate) fn left(&self, out: &mut [u32]) -> usize {
        let mut k = 0;
        if self.vector() {
            for (w, word) in self.values.chunks_exact(8).enumerate() {
                if k == out.len() {
                    break;
                }
                let mut bits = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                while bits != 0 && k < out.len() {
                    out[k] = 64 * w as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    k += 1;
                }
            }
            return k;
        }
        for v in self.all.iter().map(|v| v.get()) {
            if k < out.len() && self.map[v as usize] != 0 {
                out[k] = v;
                k += 1;
            }
        }
        k
    }

    /// If `v` is a target: marks it in `row`, removes it and returns true.
    #[inline(always)]
    pub(crate) fn meet(&mut self, v: u32, row: &mut [u8]) -> bool {
        let i = v as usize & (self.width - 1);
        if self.vector() {
            let (byte, bit) = (i >> 3, 1 << (i & 7));
            if self.values[byte] & bit == 0 {
                return false;
            }
            self.values[byte] &= !bit;
            row[i] = 1;
            self.need -= 1;
            #[cfg(target_arch = "x86_64")]
            if self.set == TargetSet::Avx2Keys {
                let k = self.key(i as u32) as u8;
                let _proof = self.tier.avx2().expect("AVX2 keys on an AVX2 tier");
                // SAFETY: the tier's proof says the processor has AVX2.
                unsafe { avx2::take_key(&mut self.keys, k) };
            }
            #[cfg(target_arch = "aarch64")]
            if self.set == TargetSet::NeonKeys {
                let k = self.key(i as u32) as usize;
                self.keys[k >> 3] &= !(1 << (k & 7));
            }
            return true;
        }
        if self.map[i] == 0 {
            return false;
        }
        self.map[i] = 0;
        row[i] = 1;
        self.need -= 1;
        if self.listed && self.need > 0 {
            // The targets left stay the first `need` of the list (the portable scan compares
            // with as few as it can), the rest repeat the first.
            let gone = T::from_u32(v);
            let at = self.list[..=self.need]
                .iter()
                .position(|&m| m == gone)
                .expect("a listed target");
            self.list.copy_within(at + 1..=self.need, at);
            let first = self.list[0];
            self.list[self.need..].fill(first);
        }
        true
    }

    /// [`Targets::meet`] without a branch on whether `v` is a target: marks `v` in `row` if it
    /// is, and removes it. Returns its key and 1 if it was a target, else 0: the AVX2 scans,
    /// which see pair values whose key is a target's, take the key out of the key set they
    /// hold only then (a common value may share it).
    #[inline(always)]
    pub(super) fn meet_any(&mut self, v: T, row: &mut [u8]) -> (u8, u8) {
        debug_assert!(matches!(
            self.set,
            TargetSet::Avx2Keys | TargetSet::NeonKeys
        ));
        let i = v.get() as usize & (self.width - 1);
        let target = (self.values[i >> 3] >> (i & 7)) & 1;
        self.values[i >> 3] &= !(1 << (i & 7));
        row[i] |= target;
        self.need -= usize::from(target);
        (self.key(i as u32) as u8, target)
    }

    /// Fills the list once at most `few` (at most [`FEW`]) targets are left: the targets not
    /// yet met first, in any order, then the first of them again to the end.
    #[inline(always)]
    pub(super) fn use_list(&mut self, few: usize) -> bool {
        debug_assert!(few <= FEW);
        if !self.listed && self.need <= few && self.need > 0 {
            let map = &self.map;
            let mut k = 0;
            for &v in &self.all {
                if map[v.get() as usize] != 0 {
                    self.list[k] = v;
                    k += 1;
                }
            }
            for i in k..FEW {
                self.list[i] = self.list[0];
            }
            self.listed = true;
        }
        self.listed
    }
}
