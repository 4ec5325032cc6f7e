use super::*;
use crate::classes::is_rare;
use crate::engine::scan_keys::ScanKeys;

#[test]
fn first_open_and_for_each_open() {
    let mut row = vec![0u8; 64];
    let class: Vec<u8> = (0..64).map(|v| if v % 3 == 0 { 0xFF } else { 0 }).collect();
    row[0] = 1;
    row[6] = 1;
    assert_eq!(first_open::<3>(&row, &class), [3, 9, 12]);
    for tier in Tier::available() {
        assert_eq!(first_open_on(tier, &row, &class, 0), 3);
        assert_eq!(first_open_on(tier, &row, &class, 3), 3);
    }
    let mut seen = Vec::new();
    for_each_open(&row, &class, 20, |v| seen.push(v));
    assert_eq!(seen, [3, 9, 12, 15, 18]);
    let full = vec![1u8; 64];
    assert_eq!(first_open::<2>(&full, &class), [u32::MAX; 2]);
    // Rows of 64 to 512 values, mostly marked, the first open value anywhere or nowhere.
    let mut next = rng(5);
    for round in 0..400 {
        let width = 64 << (round % 4);
        let row: Vec<u8> = (0..width)
            .map(|_| u8::from(!next().is_multiple_of(40)))
            .collect();
        let class: Vec<u8> = (0..width)
            .map(|_| [0, 0xFF][(next() % 2) as usize])
            .collect();
        let want = first_open::<1>(&row, &class)[0];
        // Any start at or below the first open value (or anywhere when there is none).
        let from = (next() as usize % (want.min(width as u32) as usize + 1)).min(width);
        for tier in Tier::available() {
            assert_eq!(
                first_open_on(tier, &row, &class, 0),
                want,
                "{tier:?}, width {width}"
            );
            assert_eq!(
                first_open_on(tier, &row, &class, from),
                want,
                "{tier:?}, width {width}, from {from}"
            );
        }
    }
}

/// A small xorshift generator, so that the tests need no seed files.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.max(1);
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The runs of columns `(base, i, j)` of `bounds`: columns `i..j` of `pos` and `val`, with
/// base `base` and their words from `words`.
fn column_runs<'a>(
    bounds: &[(usize, usize, usize)],
    pos: &'a [usize],
    val: &'a [u32],
    words: &'a LaneWords,
) -> Vec<Columns<'a>> {
    bounds
        .iter()
        .map(|&(base, i, j)| Columns {
            base,
            pos: &pos[i..j],
            val: &val[i..j],
            word: words.rare(i..j).expect("a word a value"),
            first: i,
        })
        .collect()
}

#[test]
fn columns_marked_as_the_definition_says() {
    let mut next = rng(7);
    for width in [64usize, 128, 512, 2048] {
        for stride in [width + 64, width + 16] {
            let len = 37;
            let vals: Vec<u16> = (0..200).map(|_| (next() % width as u64) as u16).collect();
            let cols: Vec<(usize, u32)> = (0..5)
                .map(|_| ((next() % 150) as usize, (next() % width as u64) as u32))
                .collect();
            let mut rows = vec![0u8; len * stride];
            mark_columns(&mut rows, stride, width - 1, &vals, &cols, len);
            let mut want = vec![0u8; len * stride];
            for &(q, g) in &cols {
                for k in 0..len {
                    want[k * stride + (vals[q + k] as u32 ^ g) as usize] = 1;
                }
            }
            assert_eq!(rows, want, "width {width}, stride {stride}");
        }
    }
}

/// Step 1 in lanes marks exactly the common values with a key that the columns reach, on
/// top of what the rows held, for byte and 16-bit cells, every register count, chunk
/// lengths off the 32 lanes, masks whose lowest bit is 0, 1, 3, 6 or 7.
#[test]
fn lane_marks_mark_the_common_values_below_their_limit() {
    fn run<T: Cell>(
        tier: Tier,
        next: &mut impl FnMut() -> u64,
        width: usize,
        mask: u32,
        regs: usize,
        all_common: bool,
    ) {
        let keys = LaneKeys::new(mask, regs).expect("a mask lanes take");
        let key = |v: u32| {
            let low = (1u32 << mask.trailing_zeros()) - 1;
            ((v >> 1) & !low) | (v & low)
        };
        let top = width.min(1 << T::BITS) as u64;
        if all_common && 1u64 << mask.trailing_zeros() >= top {
            // No rare value below `top` to pick.
            return;
        }
        for len in [1usize, 31, 32, 33, 70, 96] {
            let stride = width + 64;
            // With `all_common`, rare values XOR common ones: every pair value is common.
            let pick = |next: &mut dyn FnMut() -> u64, rare: bool| loop {
                let v = (next() % top) as u32;
                if !all_common || is_rare(v, mask) == rare {
                    break v;
                }
            };
            let vals: Vec<T> = (0..300).map(|_| T::from_u32(pick(next, true))).collect();
            // Up to 4 runs of up to 4 columns (base − p, g), p ascending.
            let (mut pos, mut val) = (Vec::new(), Vec::new());
            let mut bounds = Vec::new();
            for _ in 0..next() % 5 {
                let base = 60 + (next() % 140) as usize;
                let k = 1 + (next() % 4) as usize;
                let mut ps: Vec<usize> = (0..k).map(|_| (next() % 60) as usize).collect();
                ps.sort_unstable();
                bounds.push((base, pos.len(), pos.len() + k));
                pos.extend(ps);
                val.extend((0..k).map(|_| pick(next, false)));
            }
            let words = LaneWords::of(&keys, &vals, &pos, &val);
            let runs = column_runs(&bounds, &pos, &val, &words);
            let cols: Vec<(usize, u32)> = runs.iter().flat_map(Columns::iter).collect();
            let start: Vec<u8> = (0..len * stride)
                .map(|_| u8::from(next().is_multiple_of(5)))
                .collect();
            let mut rows = start.clone();
            assert!(lane_marks(
                tier,
                &mut rows,
                stride,
                width,
                &vals,
                &runs,
                len,
                &keys,
                all_common,
                Some(&words),
                false
            ));
            // The common values below the lanes' limit must be marked (`need`); past it (b ≥ 6
            // puts keys below 16 · regs there) a mark is allowed where it is an option of the
            // heap within the row (`may`), and nowhere else.
            let (mut need, mut may) = (start.clone(), start);
            for &(q, g) in &cols {
                for k in 0..len {
                    let v = vals[q + k].get() ^ g;
                    let cell = k * stride + v as usize;
                    if !is_rare(v, mask) && key(v) < 16 * regs as u32 && v < keys.limit() {
                        need[cell] = 1;
                    }
                    if !is_rare(v, mask) && (v as usize) < width {
                        may[cell] = 1;
                    }
                }
            }
            let within = rows
                .iter()
                .zip(need.iter().zip(&may))
                .all(|(&r, (&n, &m))| n <= r && r <= m);
            assert!(
                within,
                "{tier:?} width {width} mask {mask:#x} regs {regs} len {len}"
            );
            assert!((0..keys.limit()).all(|v| is_rare(v, mask) || key(v) < 16 * regs as u32));
        }
    }
    let mut next = rng(11);
    // The tiers with lanes (not the portable loops).
    for tier in Tier::available() {
        if tier.lanes() == Lanes::None {
            continue;
        }
        for regs in LaneKeys::REGS {
            for mask in [1u32, 0x1ee, 0xfe, 0x1f8, 0x7, 0x1c0, 0x180] {
                for all_common in [false, true] {
                    run::<u8>(tier, &mut next, 256, mask & 0xff, regs, all_common);
                    for width in [64, 256, 512] {
                        run::<u16>(tier, &mut next, width, mask, regs, all_common);
                    }
                }
            }
        }
    }
}

/// Step 1's columns by the registers they reach (AVX2, `LaneWords::classed`) mark as the
/// definition says: heaps' values below 64, 128, 192 or 512 (so that a column reaches one, two,
/// three registers or all), with a few heaps of other values, wider ones among them (their
/// words have other high bits: they widen the registers a column reaches, or make every column
/// reach all, when the columns are taken as they come); the words a window that starts past the
/// first heap; rare values of any key. Both ways are met.
#[test]
fn lane_classes_mark_as_the_definition() {
    let mut next = rng(13);
    // Rounds whose columns went in classes, and rounds where every column reached all.
    let mut ways = [0, 0];
    for tier in Tier::available().into_iter().filter(|t| t.lane_words()) {
        for (round, regs) in LaneKeys::REGS.into_iter().cycle().take(70).enumerate() {
            let mask = [0x1eeu32, 0xfe, 0x1f8, 0x7, 0x2e, 1][round % 6];
            let keys = LaneKeys::new(mask, regs).expect("a mask lanes take");
            let key = |v: u32| {
                let low = (1u32 << mask.trailing_zeros()) - 1;
                ((v >> 1) & !low) | (v & low)
            };
            let top = [64u64, 128, 192, 512][round % 4];
            let others = [0usize, 1, 5, 12, 100][round % 5];
            let n = 600;
            let mut vals: Vec<u16> = (0..n).map(|_| (next() % top) as u16).collect();
            for _ in 0..others {
                let at = (next() % n as u64) as usize;
                vals[at] = match next() % 3 {
                    0 => (next() % 512) as u16,
                    1 => (top + next() % 64) as u16,
                    _ => next() as u16,
                };
            }
            let nrare = 1 + (next() % 60) as usize;
            let rare: Vec<u32> = (0..nrare)
                .map(|_| match next() % 4 {
                    0 => (next() % 512) as u32,
                    _ => (next() % top) as u32,
                })
                .collect();
            // Rare positions 0..200 in two runs, the words from heap 50 on.
            let mut pos: Vec<usize> = (0..nrare).map(|_| (next() % 200) as usize).collect();
            pos.sort_unstable();
            pos.dedup();
            let nrare = pos.len();
            let mut words = LaneWords::default();
            words.refresh(&keys, &vals, 50, &pos, &rare[..nrare]);
            ways[usize::from(words.all_registers())] += 1;
            let len = 1 + (next() % 100) as usize;
            let base = 250 + (next() % (n as u64 - 250 - len as u64)) as usize;
            let split = (next() % (nrare as u64 + 1)) as usize;
            let runs: Vec<Columns<'_>> = [0..split, split..nrare]
                .into_iter()
                .filter(|r| !r.is_empty())
                .map(|r| Columns {
                    base,
                    pos: &pos[r.clone()],
                    val: &rare[r.clone()],
                    word: words.rare(r.clone()).expect("a word a value"),
                    first: r.start,
                })
                .collect();
            let stride = 576;
            let start: Vec<u8> = (0..len * stride)
                .map(|_| u8::from(next().is_multiple_of(7)))
                .collect();
            let mut rows = start.clone();
            let vals = &vals[..];
            assert!(lane_marks(
                tier,
                &mut rows,
                stride,
                512,
                vals,
                &runs,
                len,
                &keys,
                false,
                Some(&words),
                false
            ));
            let mut want = start;
            for c in &runs {
                for (q, g) in c.iter() {
                    for k in 0..len {
                        let v = u32::from(vals[q + k]) ^ g;
                        if !is_rare(v, mask) && key(v) < 16 * regs as u32 {
                            want[k * stride + v as usize] = 1;
                        }
                    }
                }
            }
            assert_eq!(
                rows, want,
                "{tier:?} mask {mask:#x} regs {regs} top {top} others {others} len {len}"
            );
        }
    }
    if Tier::available().iter().any(|t| t.lane_words()) {
        assert!(ways[0] > 0 && ways[1] > 0, "both ways met: {ways:?}");
    }
}

/// Step 1 in lanes rejects a column that would read past the values, or a position past
/// its base, by a panic (it reads the values unchecked).
#[test]
fn lane_marks_reject_columns_past_the_values() {
    let keys = LaneKeys::new(0x1ee, 8).expect("a mask lanes take");
    let vals = vec![3u16; 100];
    let sets = Tier::available()
        .into_iter()
        .filter(|&tier| tier.lanes() != Lanes::None);
    for (tier, (base, p, len)) in
        sets.flat_map(|tier| [(100, 1, 2), (60, 0, 41), (5, 6, 1), (70, 10, 40)].map(|c| (tier, c)))
    {
        let (pos, val) = ([p], [0]);
        let words = LaneWords::of(&keys, &vals, &pos, &val);
        let cols = [Columns {
            base,
            pos: &pos,
            val: &val,
            word: words.rare(0..1).expect("a word a value"),
            first: 0,
        }];
        let mut rows = vec![0u8; len * 576];
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let words = Some(&words);
            lane_marks(
                tier, &mut rows, 576, 512, &vals, &cols, len, &keys, false, words, false,
            )
        }));
        // The last is the largest column that fits: q + len = 100. AVX2's lanes read the
        // words, whose padding (which marks nothing) lets a column run past the last heap.
        let fits = if tier.lanes_past_words() {
            base >= p
        } else {
            base == 70
        };
        assert_eq!(
            run.is_err(),
            !fits,
            "{tier:?} base {base}, p {p}, len {len}"
        );
    }
}

/// Step 1 in lanes with `clear` stores over the rows what it would OR into cleared ones; and
/// where the lanes mark nothing past the last heap with a word (AVX2's), a column whose heaps
/// run past it marks the pairs of the heaps before it only.
#[test]
fn lane_marks_clear_and_run_past_the_words() {
    let mut next = rng(13);
    let (mask, width, stride) = (0x1eeu32, 512, 576);
    let key = |v: u32| ((v >> 1) & !1) | (v & 1);
    for tier in Tier::available() {
        if tier.lanes() == Lanes::None {
            continue;
        }
        for regs in [4usize, 10] {
            let keys = LaneKeys::new(mask, regs).expect("a mask lanes take");
            for len in [1usize, 8, 33, 96, 128] {
                let vals: Vec<u16> = (0..400).map(|_| (next() % 512) as u16).collect();
                // Up to 3 runs of up to 5 columns, their heaps q..q + len up to `len` past the
                // last value where the lanes allow it.
                let over = if tier.lanes_past_words() { len } else { 0 };
                let (mut pos, mut val, mut bounds) = (Vec::new(), Vec::new(), Vec::new());
                for _ in 0..1 + next() % 3 {
                    let k = 1 + (next() % 5) as usize;
                    let mut ps: Vec<usize> = (0..k).map(|_| (next() % 50) as usize).collect();
                    ps.sort_unstable();
                    // q = base − p, with q + len ≤ 400 + over for every column.
                    let base = 400 + over - len + ps[0] - (next() % 120) as usize;
                    bounds.push((base, pos.len(), pos.len() + k));
                    pos.extend(ps);
                    val.extend((0..k).map(|_| (next() % 512) as u32));
                }
                let words = LaneWords::of(&keys, &vals, &pos, &val);
                let runs = column_runs(&bounds, &pos, &val, &words);
                let cols: Vec<(usize, u32)> = runs.iter().flat_map(Columns::iter).collect();
                for clear in [false, true] {
                    let start: Vec<u8> = (0..len * stride)
                        .map(|_| u8::from(next().is_multiple_of(if clear { 2 } else { 5 })))
                        .collect();
                    let mut rows = start.clone();
                    assert!(lane_marks(
                        tier,
                        &mut rows,
                        stride,
                        width,
                        &vals,
                        &runs,
                        len,
                        &keys,
                        false,
                        Some(&words),
                        clear
                    ));
                    let mut want = start;
                    if clear {
                        want.chunks_mut(stride).for_each(|r| r[..width].fill(0));
                    }
                    for &(q, g) in &cols {
                        for k in (0..len).filter(|&k| q + k < vals.len()) {
                            let v = u32::from(vals[q + k]) ^ g;
                            if !is_rare(v, mask) && key(v) < 16 * regs as u32 {
                                want[k * stride + v as usize] = 1;
                            }
                        }
                    }
                    assert_eq!(
                        rows, want,
                        "{tier:?} regs {regs} len {len} clear {clear} {bounds:?} {pos:?}"
                    );
                }
            }
        }
    }
}

/// AVX2's form of the lane words ([`LaneWords::byte_form`]): a pair's form, the XOR of its
/// heap's and its column's, shuffled as `vpshufb` does into the bytes `1 << i`, is `1 << (key &
/// 31)` exactly in the register of its key where the pair value is common, and nothing with the
/// padding's word (values below 512 and some up to 2^16).
#[test]
fn lane_byte_form_marks_the_common_keys() {
    let mut next = rng(21);
    let marks = |s: u32| {
        (0..4).fold(0u32, |m, j| {
            let b = s >> (8 * j) & 0xFF;
            let bit = if b & 0x80 == 0 && b & 8 == 0 {
                1 << (b & 7)
            } else {
                0
            };
            m | bit << (8 * j)
        })
    };
    for mask in [0x1eeu32, 0xfe, 0x1f8, 0x7, 1, 0xfff0] {
        let keys = LaneKeys::new(mask, 16).expect("a mask lanes take");
        let key = |v: u32| {
            let low = (1u32 << mask.trailing_zeros()) - 1;
            ((v >> 1) & !low) | (v & low)
        };
        let wide = (0..64).map(|_| (next() % (1 << 16)) as u32);
        let vals: Vec<u32> = (0..512).chain(wide).collect();
        for &v in &vals {
            let heap = LaneWords::byte_form(u32::from(keys.word(v)));
            for &g in vals.iter().step_by(3) {
                let cw = LaneWords::column_bytes(keys.column_word(g));
                let x = v ^ g;
                for (s, pair) in [
                    (heap ^ cw, Some(x)),
                    (LaneWords::byte_form(LaneWords::NONE) ^ cw, None),
                ] {
                    for r in 0..8u32 {
                        let hit = s & LaneWords::REGISTER_BITS == LaneWords::byte_form(32 * r);
                        let got = if hit { marks(s) } else { 0 };
                        let want = match pair {
                            Some(x) if !is_rare(x, mask) && key(x) >> 5 == r => 1 << (key(x) & 31),
                            _ => 0,
                        };
                        assert_eq!(got, want, "mask {mask:#x} v {v} g {g} register {r}");
                    }
                }
            }
        }
    }
}

/// AVX2's lane words are linear (a pair value's word is the XOR of its parts'), follow the
/// values as the window moves on (and back), and a window marks as the words of every heap do.
#[test]
fn lane_words_follow_the_values() {
    let mut next = rng(12);
    for mask in [0x1eeu32, 0xfe, 0x1f8, 0x7, 1] {
        let keys = LaneKeys::new(mask, 10).expect("a mask lanes take");
        let key = |v: u32| {
            let low = (1u32 << mask.trailing_zeros()) - 1;
            ((v >> 1) & !low) | (v & low)
        };
        for v in 0..512 {
            for g in 0..512 {
                let x = v ^ g;
                let want = key(x) | (u32::from(is_rare(x, mask)) << 15);
                assert_eq!(u32::from(keys.word(v)) ^ keys.column_word(g), want);
            }
        }
        let vals: Vec<u16> = (0..3000).map(|_| (next() % 512) as u16).collect();
        let rare: Vec<u32> = (0..40).map(|_| (next() % 512) as u32).collect();
        let rpos: Vec<usize> = (0..40).map(|i| 8 * i).collect();
        let mut w = LaneWords::default();
        let (mut end, mut from, mut nrare) = (0, 0, 0);
        for round in 0.. {
            end = (end + 1 + (next() % 200) as usize).min(vals.len());
            from = if round % 7 == 6 {
                from / 2
            } else {
                from.max(end.saturating_sub(100 + (next() % 400) as usize))
            };
            nrare = (nrare + (next() % 3) as usize).min(rare.len());
            w.refresh(&keys, &vals[..end], from, &rpos[..nrare], &rare[..nrare]);
            let heaps = w.heaps();
            assert!(
                heaps.start <= from && heaps.end == end,
                "{heaps:?} {from} {end}"
            );
            for h in heaps.clone() {
                assert_eq!(
                    w.words[h - heaps.start],
                    u32::from(keys.word(u32::from(vals[h])))
                );
            }
            let forms = w.words.iter().map(|&x| LaneWords::byte_form(x));
            assert!(
                forms.eq(w.bytes.iter().copied()),
                "AVX2's forms of the words"
            );
            let cw: Vec<u32> = rare[..nrare].iter().map(|&g| keys.column_word(g)).collect();
            assert_eq!(w.rare(0..nrare), Some(&cw[..]));
            let forms = cw.iter().map(|&x| LaneWords::column_bytes(x));
            assert!(
                forms.eq(w.rare_bytes.iter().copied()),
                "AVX2's forms of the columns"
            );
            // The classes counted over the heaps with words, the rare values by class.
            let mut count = vec![0u32; LaneWords::CLASSES];
            for &x in &w.words[..heaps.len()] {
                count[LaneWords::class(x)] += 1;
            }
            assert_eq!(w.count, count);
            let mut by: Vec<(usize, u32)> = (0..nrare as u32)
                .map(|i| (LaneWords::class(cw[i as usize]), i))
                .collect();
            by.sort_unstable();
            assert_eq!(w.by_class, by.iter().map(|&(_, i)| i).collect::<Vec<_>>());
            // Columns within the window mark as from the words of every heap.
            let len = 1 + (next() % 40) as usize;
            // Each tier whose lanes read the words (AVX2's, NEON's).
            for tier in Tier::available().into_iter().filter(|t| t.lane_words()) {
                // The rare positions whose columns lie in the window.
                let k = rpos[..nrare].partition_point(|&p| p + len <= heaps.len());
                if k == 0 {
                    break;
                }
                let base = heaps.end - len;
                let pos = &rpos[..k];
                let whole = LaneWords::of(&keys, &vals[..end], &rpos[..nrare], &rare[..nrare]);
                let mut rows = [vec![0u8; len * 576], vec![0u8; len * 576]];
                for (rows, words) in rows.iter_mut().zip([&w, &whole]) {
                    let cols = [Columns {
                        base,
                        pos,
                        val: &rare[..k],
                        word: words.rare(0..k).expect("a word a value"),
                        first: 0,
                    }];
                    let vals = &vals[..end];
                    let words = Some(words);
                    assert!(lane_marks(
                        tier, rows, 576, 512, vals, &cols, len, &keys, false, words, false
                    ));
                }
                assert_eq!(rows[0], rows[1], "mask {mask:#x} {heaps:?} len {len}");
            }
            if end == vals.len() {
                break;
            }
        }
    }
}

/// Small mode's scan (every instruction set, byte values with and without `WIDE`) leaves
/// the targets that no pair of its range has as value: values mostly below 8 so that some
/// targets stay for many chunks (the kernels' compare phase), limits below 64.
#[test]
fn small_scan_as_definition() {
    let mut next = rng(11);
    for round in 0..2000 {
        // Values mostly below 8 and a few up to 80, so that some targets stay long.
        let wide = round % 2 == 0;
        let limit = if wide {
            [64u32, 16, 40][round / 2 % 3]
        } else {
            64
        };
        let top = if wide { 80 } else { 64 };
        let vals: Vec<u8> = (0..700)
            .map(|_| {
                (if next().is_multiple_of(16) {
                    next() % top
                } else {
                    next() % 8
                }) as u8
            })
            .collect();
        let r = 1 + (next() % 699) as usize;
        let lo = 1 + (next() % 4) as usize;
        let hi = (lo + (next() % (r / 2 + 1) as u64) as usize).min(r / 2 + 1);
        let targets = (0..1 + next() % 6).fold(0u64, |t, _| t | 1 << (next() % u64::from(limit)));
        let bit = |v: u8| small_bit::<true>(u32::from(v), limit);
        let seen = (lo..hi).fold(0, |m, b| m | bit(vals[b] ^ vals[r - b]));
        for tier in Tier::available() {
            let got = if wide {
                small_scan::<u8, true>(tier, &vals, r, lo, hi, targets, limit)
            } else {
                small_scan::<u8, false>(tier, &vals, r, lo, hi, targets, limit)
            };
            assert_eq!(
                got,
                targets & !seen,
                "{tier:?}, limit {limit}, r {r}, {lo}..{hi}"
            );
        }
    }
}

/// Small mode's far marks of a block (every instruction set) are the columns' words one by
/// one, ORed into what the block held: blocks of 64 and shorter, values past the limit and
/// rare values past 255.
#[test]
fn small_columns_as_definition() {
    let mut next = rng(5);
    for round in 0..300 {
        let limit = [64u32, 16, 40][round % 3];
        let vals: Vec<u8> = (0..300).map(|_| (next() % 80) as u8).collect();
        let len = if round % 4 == 0 {
            1 + (next() % 64) as usize
        } else {
            64
        };
        let columns: Vec<(usize, u32)> = (0..next() % 100)
            .map(|_| ((next() % (300 - 64)) as usize, (next() % 300) as u32))
            .collect();
        let before: Vec<u64> = (0..len).map(|_| next() & next()).collect();
        let want: Vec<u64> = (0..len)
            .map(|j| {
                columns.iter().fold(before[j], |m, &(start, g)| {
                    m | small_bit::<true>(g ^ u32::from(vals[start + j]), limit)
                })
            })
            .collect();
        for tier in Tier::available() {
            let mut far = before.clone();
            small_columns::<u8, true>(tier, &mut far, &vals, &columns, limit);
            assert_eq!(far, want, "{tier:?}, limit {limit}, round {round}");
        }
    }
}

/// Small mode's near pairs in lanes give the word of the pairs one by one, for limits
/// below 64 (values past them mark nothing) and up to 64 pairs at distances 1 to 64 below
/// the heap, repeats included.
#[test]
fn near_small_marks_as_one_by_one() {
    let mut next = rng(3);
    for round in 0..300 {
        let limit = [64u32, 16, 40][round % 3];
        let vals: Vec<u8> = (0..300).map(|_| (next() % 80) as u8).collect();
        // Distances below the heap, repeats allowed (two splits may reach one heap).
        let pairs: Vec<(usize, u32)> = (0..next() % 65)
            .map(|_| (1 + (next() % 64) as usize, (next() % 70) as u32))
            .collect();
        let lanes = NearLanes::new(&pairs).expect("distances up to 64");
        let n = 64 + (next() % 236) as usize;
        let want = pairs
            .iter()
            .map(|&(d, g)| small_bit::<true>(g ^ u32::from(vals[n - d]), limit))
            .fold(0, |m, b| m | b);
        for tier in Tier::available() {
            if let Some(got) = near_small_marks(tier, &vals, n, &lanes, limit) {
                assert_eq!(got, want, "{tier:?}, limit {limit}, n {n}, {pairs:?}");
            }
        }
    }
    assert!(NearLanes::new(&[(65, 1)]).is_none());
    assert!(NearLanes::new(&[(0, 1)]).is_none());
    assert!(NearLanes::new(&[(3, 256)]).is_none());
    assert!(NearLanes::new(&[(1, 0); 65]).is_none());
}

/// What a scan did: where it stopped (`None` when there was nothing to look for), the row
/// and the targets left.
type Scanned = (Option<Option<usize>>, Vec<u8>, usize);

/// `got` (a scan on some instruction set) agrees with `want` (the portable scan): the same
/// marks and targets left, and a stop no earlier than the portable one, within `hi` and
/// within a few chunks of it on AVX-512, which meets its hits in batches (exactly there
/// on the others).
fn agrees(tier: Tier, got: &Scanned, want: &Scanned, hi: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    let late = if tier.kind() == TierKind::Avx512Vbmi {
        (avx512vbmi::BATCH + 1) * 64
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let late = {
        let _ = tier;
        0
    };
    let stops = match (got.0, want.0) {
        (Some(Some(g)), Some(Some(w))) => g >= w && g <= hi && g - w <= late,
        (g, w) => g == w,
    };
    stops && got.1 == want.1 && got.2 == want.2
}

/// The vector scans (AVX2: keys of values below 256, and of values below 512 with a mask
/// bit taken out; AVX-512: the values below 512 themselves) meet the same targets as the
/// portable one and stop where it does (AVX-512: a little later).
#[test]
fn scans_agree_on_every_instruction_set() {
    let mut next = rng(11);
    for round in 0..600 {
        let width = [64usize, 256, 512][round % 3];
        let mask = 1 + (next() % (width as u64 - 1)) as u32;
        let n = 300 + (next() % [700, 4000][round % 2]) as usize;
        // Every other round, values mostly from a few: some targets then take long to meet.
        let skew = round % 4 >= 2;
        let vals: Vec<u16> = (0..n)
            .map(|_| {
                let v = next() % width as u64;
                (if skew && !next().is_multiple_of(64) {
                    v % 16
                } else {
                    v
                }) as u16
            })
            .collect();
        let bytes: Vec<u8> = vals.iter().map(|&v| (v & 255) as u8).collect();
        let rr = n - 1 - (next() % 50) as usize;
        let lo = 1 + (next() % 40) as usize;
        let hi = lo + (next() % (rr / 2 - lo) as u64) as usize;
        let mut row = vec![0u8; width];
        for _ in 0..(next() % (width as u64 / 2)) {
            row[(next() % width as u64) as usize] = 1;
        }
        let rare: Vec<u8> = (0..width as u32)
            .map(|v| {
                if (v & mask).count_ones().is_multiple_of(2) {
                    0xFF
                } else {
                    0
                }
            })
            .collect();
        let end = (next() % width as u64) as usize;
        let run = |tier: Tier| -> Scanned {
            let mut r = row.clone();
            let mut tg = Targets::<u16>::new(width, mask, tier);
            tg.set_open(&r, &rare, end);
            let stop = (tg.need() > 0).then(|| scan(&mut r, &mut tg, &vals, &vals, rr, lo, hi));
            (stop, r, tg.need())
        };
        let want = run(Tier::PORTABLE);
        for tier in Tier::available() {
            let got = run(tier);
            assert!(
                agrees(tier, &got, &want, hi),
                "u16, {tier:?}, width {width}, mask {mask:x}: {:?} against {:?}",
                got.0,
                want.0
            );
        }
        if width <= 256 {
            let run8 = |tier: Tier| -> Scanned {
                let mut r = row.clone();
                let mut tg = Targets::<u8>::new(width, mask, tier);
                tg.set_open(&r, &rare, end);
                let stop =
                    (tg.need() > 0).then(|| scan(&mut r, &mut tg, &bytes, &bytes, rr, lo, hi));
                (stop, r, tg.need())
            };
            for tier in Tier::available() {
                let got = run8(tier);
                assert!(agrees(tier, &got, &want, hi), "u8, {tier:?}, width {width}");
            }
        }
    }
}

/// The scan on byte keys, then on the cells where the keys end, meets the same targets as
/// the portable scan of the cells and stops where it does (a little later): values below
/// 512 with the key bit 6, 7 or 8, rare positions (left out on the keys) among the first
/// heaps only, keys kept for few heaps so that both sides end inside the range.
#[test]
fn scan_on_keys_agrees_with_the_cells() {
    let mut next = rng(23);
    let mut on_keys = 0;
    for round in 0..400 {
        let mask = [0x1ee, 0x1c3, 0xb6, 0x96, 0x5e, 0x40][round % 6];
        let Some(bit) = ScanKeys::key_bit(mask, 512) else {
            panic!("mask {mask:x} has a key bit");
        };
        let n = 2000 + (next() % 6000) as usize;
        // Rare positions below `last`, then common values only; every other round values
        // mostly from a few, so that some targets take long to meet.
        let last = (next() % 1500) as usize;
        let skew = round % 4 >= 2;
        let vals: Vec<u16> = (0..n)
            .map(|h| loop {
                let v = (next() % 512) as u32;
                let v = if skew && !next().is_multiple_of(64) {
                    v % 24
                } else {
                    v
                };
                if h <= last || !is_rare(v, mask) {
                    break v as u16;
                }
            })
            .collect();
        let last_rare = (1..n)
            .rev()
            .find(|&h| is_rare(u32::from(vals[h]), mask))
            .unwrap_or(0);
        let cap = [64, 700, 3000, 1 << 20][round % 4];
        let mut keys = ScanKeys::new(mask, bit, cap);
        keys.extend(&vals);
        let rr = n - 1 - (next() % 50) as usize;
        let lo = 1 + (next() % 300) as usize;
        let hi = lo + (next() % (rr / 2 - lo) as u64) as usize;
        let mut row = vec![0u8; 512];
        for _ in 0..(next() % 200) {
            row[(next() % 512) as usize] = 1;
        }
        let rare: Vec<u8> = (0..512)
            .map(|v| 0xFF * u8::from(is_rare(v, mask)))
            .collect();
        let end = (next() % 512) as usize;
        let run = |tier: Tier, keyed: bool| -> Scanned {
            let mut r = row.clone();
            let mut tg = Targets::<u16>::new(512, mask, tier);
            tg.set_open(&r, &rare, end);
            if tg.need() == 0 {
                return (None, r, 0);
            }
            let mut from = lo;
            if keyed {
                let stop = keys.chunks_end(rr, lo, hi, last_rare);
                match scan_keys(&mut r, &mut tg, &keys, rr, lo, stop) {
                    Ok(at) => return (Some(Some(at)), r, tg.need()),
                    Err(reached) => from = reached,
                }
            }
            let stop = scan(&mut r, &mut tg, &vals, &vals, rr, from, hi);
            (Some(stop), r, tg.need())
        };
        let want = run(Tier::PORTABLE, false);
        for tier in Tier::available() {
            let got = run(tier, true);
            assert!(
                agrees(tier, &got, &want, hi),
                "{tier:?}, mask {mask:x}, keys for {cap}: {:?} against {:?}",
                got.0,
                want.0
            );
        }
        on_keys += usize::from(keys.chunks_end(rr, lo, hi, last_rare) > lo);
    }
    assert!(on_keys > 200, "only {on_keys} rounds had chunks on keys");
}

/// The AVX2 key set made from a set of rare values (whole words for key bits 6 to 8, value
/// by value below) holds the key of each value and nothing else.
#[test]
fn key_set_of_the_values_as_value_by_value() {
    let mut next = rng(5);
    for round in 0..3000 {
        let width = [256usize, 512][round % 2];
        let mask = 1 + (next() % (width as u64 - 1)) as u32;
        let mut tg = Targets::<u16>::new(width, mask, Tier::PORTABLE);
        let mut want = [0u8; 32];
        for v in 0..width as u32 {
            if is_rare(v, mask) && next().is_multiple_of(3) {
                tg.values[(v >> 3) as usize] |= 1 << (v & 7);
                let k = tg.key(v);
                want[(k >> 3) as usize] |= 1 << (k & 7);
            }
        }
        tg.keys_of_values();
        assert_eq!(tg.keys, want, "width {width}, mask {mask:#x}");
    }
}

#[test]
fn scan_meets_every_target_in_order() {
    // Pairs (a, 99 − a) of a sequence; targets are the values of a few chosen pairs.
    let vals: Vec<u16> = (0..100u32).map(|i| ((i * 37 + 11) % 64) as u16).collect();
    let pair = |a: usize| (vals[a] ^ vals[99 - a]) as u32;
    for lo in [1, 5, 17] {
        let mut row = vec![0u8; 64];
        let mut class = vec![0u8; 64];
        let want: Vec<u32> = (lo..50).map(pair).collect();
        for &v in &want {
            class[v as usize] = 0xFF;
        }
        let mut tg = Targets::<u16>::new(64, 1, Tier::PORTABLE);
        tg.set_open(&row, &class, 64);
        let last = (lo..50)
            .rev()
            .find(|&a| (lo..a).all(|b| pair(b) != pair(a)))
            .unwrap();
        let stop = scan(&mut row, &mut tg, &vals, &vals, 99, lo, 50);
        assert_eq!(stop, Some(last + 1));
        assert!(want.iter().all(|&v| row[v as usize] == 1));
        assert_eq!(tg.need(), 0);
    }
}

/// The scan's head in lanes sets exactly the keys below some of its registers of the rare pair
/// values (a word's bit 16: the class; bit 20: a pair left out), on every tier, every register
/// count, heap counts off the 8 lanes: at least the registers that hold the rare values below
/// the heap's bound (none for a bound of 0); and its marks are the rare values of the set,
/// below the end.
#[test]
fn head_lanes_and_marks_as_the_definition_says() {
    let mut next = rng(11);
    for mask in [0x1EEu32, 0xFE, 0x13, 0x8] {
        for &regs in &HeadKeys::REGS {
            let keys = HeadKeys::new(mask, regs).expect("a mask with its lowest bit below 8");
            // Fewest registers for a bound: every rare value below it has a key there, and
            // not so with fewer.
            for b in 0..keys.limit().min(1 << 10) {
                let r = keys.regs_for(b);
                let keyed = |r: usize| {
                    (0..b).all(|v| !is_rare(v, mask) || key_without(v, keys.low) < 32 * r as u32)
                };
                assert!(
                    r <= regs && (b == 0) == (r == 0) && keyed(r),
                    "bound {b}: {r}"
                );
                let fewer = HeadKeys::REGS.iter().rev().find(|&&f| f < r);
                assert!(fewer.is_none_or(|&f| !keyed(f)), "bound {b}: {r}");
            }
            // Heaps' words of values below 64 as well (the heads' first heaps: each column
            // then reaches one register, `HeadColumns`), or below 128 (two).
            let sizes = [
                (1usize, 1usize),
                (7, 40),
                (8, 64),
                (17, 33),
                (37, 300),
                (128, 1024),
            ];
            for ((count, x), small) in sizes
                .into_iter()
                .flat_map(|s| [(s, 512), (s, 64), (s, 128)])
            {
                let word = |next: &mut dyn FnMut() -> u64, below: u64| match next() % 16 {
                    0 => HeadKeys::NONE,
                    _ => keys.word((next() % below) as u32),
                };
                let left: Vec<u32> = (0..count.next_multiple_of(32) + x)
                    .map(|_| u32::from(word(&mut next, small)))
                    .collect();
                let right: Vec<u32> = (0..x).map(|_| u32::from(word(&mut next, 512))).collect();
                // The columns by register, made for these heaps' words, for words of any
                // value, and for other words (which the heads then make again).
                let other: Vec<u32> = if small == 512 {
                    vec![0]
                } else {
                    vec![u32::from(keys.word(511))]
                };
                // (On every tier: each takes those of its own form; and the sorted form, which
                // AVX2 alone reads, on any processor.)
                let made: Vec<HeadColumns> = Tier::available()
                    .into_iter()
                    .flat_map(|t| {
                        [&left[..], &[0xE0], &other].map(|l| HeadColumns::new(t, l, &right, regs))
                    })
                    .chain(
                        [&left[..], &[0xE0], &other]
                            .map(|l| HeadColumns::of_width(l, &right, regs, 5)),
                    )
                    .collect();
                for cols in &made {
                    assert_eq!(cols.right(), &right[..]);
                    let bits = cols.bits;
                    for w in 0..cols.regs {
                        // Register w's columns: each with its word XORed with the register's
                        // first key, and every column that some heap's word meets in register w
                        // among them.
                        let mut of: Vec<u32> = cols.of(w).iter().map(|&[c, _]| c).collect();
                        let word = |c: u32| right[c as usize] ^ (w as u32) << bits;
                        assert!(cols.of(w).iter().all(|&[c, q]| q == word(c)));
                        of.sort_unstable();
                        assert!(of.windows(2).all(|p| p[0] < p[1]), "a column once");
                        if cols.fits(&left, cols.regs, bits) {
                            for (c, &q) in right.iter().enumerate() {
                                let reach = left.iter().any(|&l| (l ^ q) >> bits == w as u32);
                                assert!(!reach || of.binary_search(&(c as u32)).is_ok());
                            }
                        }
                    }
                }
                let mut want = vec![[0u32; 8]; count];
                for (i, set) in want.iter_mut().enumerate() {
                    for c in 0..x {
                        let k = left[i + c] ^ right[c];
                        if k < 32 * regs as u32 {
                            set[(k / 32) as usize] |= 1 << (k % 32);
                        }
                    }
                }
                let most = keys.limit().min(600);
                let bounds: Vec<u32> = (0..count)
                    .map(|_| match next() % 4 {
                        0 => 0,
                        1 => keys.limit(),
                        _ => (next() % u64::from(most + 1)) as u32,
                    })
                    .collect();
                // The set below r registers.
                let below = |set: &[u32; 8], r: usize| -> [u32; 8] {
                    std::array::from_fn(|w| if w < r { set[w] } else { 0 })
                };
                for (tier, cols) in Tier::available()
                    .into_iter()
                    .flat_map(|t| made.iter().map(move |c| (t, c)))
                {
                    let mut got = vec![[u32::MAX; 8]; count + 1];
                    head_lanes(tier, &left, cols, count, &keys, &bounds, &mut got);
                    for i in 0..count {
                        let least = keys.regs_for(bounds[i]);
                        let ok = (0..=regs)
                            .filter(|&r| r >= least)
                            .any(|r| got[i] == below(&want[i], r));
                        assert!(
                            ok || least == 0 && got[i] == [0; 8],
                            "{tier:?} mask {mask:#x} regs {regs} heap {i} bound {}",
                            bounds[i]
                        );
                    }
                    assert_eq!(got[count], [u32::MAX; 8], "past the heaps");
                }
            }
            // Marks: the rare values whose key is in the set, below the end rounded up to 32.
            for _ in 0..20 {
                let set: [u32; 8] =
                    std::array::from_fn(|w| if w < regs { next() as u32 } else { 0 });
                let width = [64usize, 256, 512, 1024][(next() % 4) as usize];
                let end = (next() % (width as u64 + 1)) as usize;
                let before: Vec<u8> = (0..width)
                    .map(|_| u8::from(next().is_multiple_of(5)))
                    .collect();
                let used = end.next_multiple_of(32).min(512).min(width);
                let want: Vec<u8> = (0..width)
                    .map(|v| {
                        let k = keys.key_of[v.min(511)] as u32;
                        let hit = v < used
                            && is_rare(v as u32, mask)
                            && k < 32 * regs as u32
                            && set[(k / 32) as usize] >> (k % 32) & 1 == 1;
                        before[v] | u8::from(hit)
                    })
                    .collect();
                for tier in Tier::available() {
                    let mut row = before.clone();
                    head_marks(tier, &mut row, &set, &keys, end);
                    assert_eq!(row, want, "{tier:?} mask {mask:#x} regs {regs} end {end}");
                }
            }
            // The limit: every rare value below it has a key in the registers.
            for v in 0..keys.limit().min(1 << 12) {
                if is_rare(v, mask) {
                    assert!(key_without(v, keys.low) < 32 * regs as u32, "{v}");
                }
            }
        }
    }
}

/// Scans in interleaved runs (`runs.rs`: 2 and 4, on the tiers that take them) meet the same
/// targets as the portable scan in order and leave the same ones: on the cells (bytes and
/// 16-bit values) and on the byte keys; a scan that meets them all says so, at a pair within
/// the range. Ranges long enough for 4 runs of 16 steps.
#[test]
fn scans_in_runs_meet_what_the_scan_in_order_meets() {
    let mut next = rng(31);
    for round in 0..300 {
        let mask = [0x1ee, 0xfe, 0x1c3, 0xb6][round % 4];
        let width = if mask < 256 { 256 } else { 512 };
        let n = 5500 + (next() % 9000) as usize;
        // Values mostly from a few every other round (targets met late or never); common
        // heaps only past the first 200 (so the keys cover the pairs).
        let skew = round % 2 == 1;
        let vals: Vec<u16> = (0..n)
            .map(|h| loop {
                let v = (next() % width as u64) as u32;
                let v = if skew && !next().is_multiple_of(256) {
                    v % 24
                } else {
                    v
                };
                if h <= 200 || !is_rare(v, mask) {
                    break v as u16;
                }
            })
            .collect();
        let rr = n - 1 - (next() % 50) as usize;
        let lo = 1 + (next() % 300) as usize;
        let hi = lo + 2048 + (next() % (rr / 2 - lo - 2048) as u64) as usize;
        // Needles: pairs whose rare value (from 32 on) is the only one of it in the range
        // mostly (three in a row, so that a scan that skips a pair after a hit is seen).
        let mut vals = vals;
        let at = lo + (next() % (hi - lo - 3) as u64) as usize;
        for a in [
            at,
            at + 1,
            at + 2,
            lo + (next() % (hi - lo) as u64) as usize,
        ] {
            let t = loop {
                let t = 32 + (next() % (width as u64 - 32)) as u32;
                if is_rare(t, mask) {
                    break t;
                }
            };
            vals[a] = (t ^ u32::from(vals[rr - a])) as u16;
        }
        let bytes: Vec<u8> = vals.iter().map(|&v| (v & 255) as u8).collect();
        let mut row = vec![0u8; width];
        for _ in 0..(next() % 100) {
            row[(next() % width as u64) as usize] = 1;
        }
        let rare: Vec<u8> = (0..width as u32)
            .map(|v| 0xFF * u8::from(is_rare(v, mask)))
            .collect();
        let end = width / 2 + (next() % (width as u64 / 2)) as usize;
        let keys = ScanKeys::key_bit(mask, width).map(|bit| {
            let mut k = ScanKeys::new(mask, bit, 1 << 20);
            k.extend(&vals);
            k
        });
        // What the scan did: whether it met every target, the row, the targets left.
        type Done = (Option<bool>, Vec<u8>, usize);
        let run = |tier: Tier, runs: usize, cells: u8| -> Done {
            let mut r = row.clone();
            let check = |stop: Option<usize>| {
                assert!(
                    stop.is_none_or(|b| b > lo && b <= hi),
                    "{stop:?} in {lo}..{hi}"
                );
                Some(stop.is_some())
            };
            if cells == 8 && width == 256 {
                let mut tg = Targets::<u8>::new(width, mask, tier).with_runs(runs);
                tg.set_open(&r, &rare, end);
                let stop = (tg.need() > 0)
                    .then(|| scan(&mut r, &mut tg, &bytes, &bytes, rr, lo, hi))
                    .and_then(check);
                return (stop, r, tg.need());
            }
            let mut tg = Targets::<u16>::new(width, mask, tier).with_runs(runs);
            tg.set_open(&r, &rare, end);
            if tg.need() == 0 {
                return (None, r, 0);
            }
            let mut from = lo;
            if let (Some(keys), true) = (&keys, cells == 0) {
                let stop = keys.chunks_end(rr, lo, hi, 200);
                match scan_keys(&mut r, &mut tg, keys, rr, lo, stop) {
                    Ok(at) => return (check(Some(at)), r, tg.need()),
                    Err(reached) => from = reached,
                }
            }
            let stop = scan(&mut r, &mut tg, &vals, &vals, rr, from, hi);
            (check(stop), r, tg.need())
        };
        for cells in [0, 8, 16] {
            let want = run(Tier::PORTABLE, 1, cells);
            for tier in Tier::available() {
                for runs in [1, 2, 4] {
                    let got = run(tier, runs, cells);
                    assert!(
                        got == want,
                        "{tier:?}, {runs} runs, cells {cells}, mask {mask:x}: {:?} against {:?}",
                        (got.0, got.2),
                        (want.0, want.2)
                    );
                }
            }
        }
    }
}
