//! A finite commutative monoid with a P-portion, kept as a flat multiplication table, and its
//! reduction by indistinguishability.
//!
//! Elements are numbered `0 .. order`, element 0 is the identity, and the numbering follows the
//! elements' *least words* (the least position mapping to each element, in the order of
//! [`word_cmp`]), so that every option of an element's least word maps to an element with a
//! smaller number. The quotient's construction ([`super`]) relies on that order.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use crate::fxhash::FxBuild;

/// A position as a multiset of heaps, sorted from the largest heap down (no zero heaps).
pub type Word = Vec<usize>;

/// The order on positions used for least words: compare the heaps sorted from the largest
/// down, lexicographically (a proper prefix is smaller). Replacing a heap by smaller heaps (any
/// move of a heap game) gives a smaller position, and the order is a well-order.
pub fn word_cmp(a: &[usize], b: &[usize]) -> Ordering {
    a.cmp(b)
}

/// An element's id as a [`Table`] stores it: `u16` while the order fits (half the bytes of
/// `u32`: the table is what bounds the candidates at the frontier), `u32` beyond.
pub trait Id: Copy + Default + Send + Sync + 'static {
    /// The id as an index.
    fn ix(self) -> usize;
    /// The id of element `x` (which fits: the table was chosen by its order).
    fn of(x: u32) -> Self;
}

impl Id for u16 {
    #[inline]
    fn ix(self) -> usize {
        self as usize
    }
    #[inline]
    fn of(x: u32) -> u16 {
        debug_assert!(x <= u32::from(u16::MAX));
        x as u16
    }
}

impl Id for u32 {
    #[inline]
    fn ix(self) -> usize {
        self as usize
    }
    #[inline]
    fn of(x: u32) -> u32 {
        x
    }
}

/// The ids of a multiplication table, `order²` of them, in the narrowest type that holds the
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ids {
    /// Orders up to 2^16.
    Narrow(Vec<u16>),
    /// Larger orders.
    Wide(Vec<u32>),
}

/// The most elements a table of `u16` ids holds.
pub const NARROW_ORDER: usize = 1 << 16;

impl Ids {
    /// `order²` zero ids of the narrowest type for `order` (fresh pages, handed to the kernel as
    /// huge pages where it allows: see [`huge_pages`]).
    pub fn zeroed(order: usize) -> Ids {
        let n = order * order;
        if order <= NARROW_ORDER {
            let mut v = vec![0u16; n];
            huge_pages(&mut v);
            Ids::Narrow(v)
        } else {
            let mut v = vec![0u32; n];
            huge_pages(&mut v);
            Ids::Wide(v)
        }
    }

    /// `order²` zero ids of the narrowest type for `order`, in the buffer of `spare` when it is
    /// of that type: its pages were written before, so no page faults and no kernel zeroing
    /// (which at the frontier cost about as much time as the construction; the zeros here
    /// are a `memset` of memory already mapped).
    pub fn zeroed_reusing(order: usize, spare: Option<Ids>) -> Ids {
        let n = order * order;
        // A buffer too small would grow by fresh small pages: a fresh one gets huge pages.
        match spare {
            Some(Ids::Narrow(mut v)) if order <= NARROW_ORDER && v.capacity() >= n => {
                v.clear();
                v.resize(n, 0);
                Ids::Narrow(v)
            }
            Some(Ids::Wide(mut v)) if order > NARROW_ORDER && v.capacity() >= n => {
                v.clear();
                v.resize(n, 0);
                Ids::Wide(v)
            }
            _ => Ids::zeroed(order),
        }
    }

    /// Bytes held (the buffer's capacity).
    pub fn bytes(&self) -> usize {
        match self {
            Ids::Narrow(v) => v.capacity() * 2,
            Ids::Wide(v) => v.capacity() * 4,
        }
    }

    /// Bytes of an id of a table of `order` elements.
    pub fn id_bytes(order: usize) -> usize {
        if order <= NARROW_ORDER {
            2
        } else {
            4
        }
    }
}

/// A multiplication table: `table.get(a * order + b)` is `a·b`. Its ids are shared, not
/// copied, by the verifications that read it ([`super::closure::Closure`],
/// [`super::envelope::Envelope`]): at the frontier a table is gigabytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table(Arc<Ids>);

/// A row of a [`Table`].
#[derive(Clone, Copy, Debug)]
pub enum Row<'a> {
    /// `u16` ids.
    Narrow(&'a [u16]),
    /// `u32` ids.
    Wide(&'a [u32]),
}

impl Table {
    /// The table of these ids.
    pub fn new(ids: Ids) -> Table {
        Table(Arc::new(ids))
    }

    /// The table of `order` elements from `u32` ids (narrowed when the order allows).
    pub fn from_u32(order: usize, ids: Vec<u32>) -> Table {
        debug_assert_eq!(ids.len(), order * order);
        if order <= NARROW_ORDER {
            Table::new(Ids::Narrow(ids.into_iter().map(u16::of).collect()))
        } else {
            Table::new(Ids::Wide(ids))
        }
    }

    /// Id `i` (`a * order + b` for `a·b`).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match &*self.0 {
            Ids::Narrow(t) => u32::from(t[i]),
            Ids::Wide(t) => t[i],
        }
    }

    /// Row `a` of a table of `order` elements.
    #[inline]
    pub fn row(&self, a: usize, order: usize) -> Row<'_> {
        match &*self.0 {
            Ids::Narrow(t) => Row::Narrow(&t[a * order..(a + 1) * order]),
            Ids::Wide(t) => Row::Wide(&t[a * order..(a + 1) * order]),
        }
    }

    /// The number of ids.
    pub fn len(&self) -> usize {
        match &*self.0 {
            Ids::Narrow(t) => t.len(),
            Ids::Wide(t) => t.len(),
        }
    }

    /// Bytes its buffer holds: at least `len()` ids, more when it was built in the spare
    /// buffer of a larger candidate ([`Ids::zeroed_reusing`]).
    pub fn bytes(&self) -> usize {
        self.0.bytes()
    }

    /// Never empty (a monoid has its identity).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids as `u32` (a copy; for tests).
    pub fn to_u32(&self) -> Vec<u32> {
        match &*self.0 {
            Ids::Narrow(t) => t.iter().map(|&x| u32::from(x)).collect(),
            Ids::Wide(t) => t.clone(),
        }
    }

    /// The ids, when this table is their only holder (to reuse their buffer).
    pub fn into_ids(self) -> Option<Ids> {
        Arc::try_unwrap(self.0).ok()
    }

    /// The ids as `u32`, without a copy when they are `u32` and held by this table alone (for
    /// faces whose arrays are `u32`: Python's; a report keeps the table as it is).
    pub fn into_u32(self) -> Vec<u32> {
        match Arc::try_unwrap(self.0) {
            Ok(Ids::Wide(t)) => t,
            Ok(Ids::Narrow(t)) => t.into_iter().map(u32::from).collect(),
            Err(shared) => Table(shared).to_u32(),
        }
    }
}

/// Asks the kernel for huge pages on the fresh allocation `v` (Linux's `madvise`, a hint:
/// where transparent huge pages are off or not to be had, nothing changes). The large tables
/// and bitsets of a candidate at the frontier are gigabytes written once each: with 4 KiB
/// pages their page faults cost about as much system time as the construction's user time
/// (0.6 at heap 17 with orders of 2^15: 16 s of system time beside 3.6 s of user time).
pub fn huge_pages<T>(v: &mut [T]) {
    const HUGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(v);
    if bytes < 4 * HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let len = (start + bytes - aligned) / HUGE * HUGE;
        // SAFETY: the range lies within `v`'s allocation, which `v` borrows mutably, and
        // MADV_HUGEPAGE changes only how the kernel backs those pages, never their contents
        // or their mapping; its result is a hint's, so it is ignored.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

/// A finite commutative monoid with a subset `P`, elements numbered by least word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Monoid {
    /// The number of elements.
    pub order: usize,
    /// `table.get(a * order + b)` is the product `a·b`.
    pub table: Table,
    /// Membership in P.
    pub p: Vec<bool>,
    /// The least word (position) of each element, heaps from the largest down.
    pub words: Vec<Word>,
}

impl Monoid {
    /// The trivial monoid `{1}` with `P = ∅`: the quotient of the empty position alone.
    pub fn trivial() -> Monoid {
        Monoid {
            order: 1,
            table: Table::from_u32(1, vec![0]),
            p: vec![false],
            words: vec![Vec::new()],
        }
    }

    /// The product `a·b`.
    #[inline]
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        self.table.get(a as usize * self.order + b as usize)
    }
}

/// A quotient's multiplication table as a report carries it: the solver's [`Table`] itself,
/// moved or shared, never widened (`u16` ids up to order 2^16, as the solver holds them, so a
/// report holds no bytes that `--max-memory`'s estimate of the quotient
/// ([`super::limits::monoid_bytes`]) did not count), written as `order` rows of `order` ids by
/// serde, one row at a time, so that `quotient --json` streams it (hundreds of MB at
/// `|Q| ≈ 10^4`) without building a nested copy. `None`: the table left out (`quotient --json
/// --no-table`), written `null`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ProductTable {
    order: usize,
    ids: Option<Table>,
}

impl ProductTable {
    /// The table of `order` elements, `ids[a * order + b] = a·b` (narrowed when the order
    /// allows).
    pub fn new(order: usize, ids: Vec<u32>) -> ProductTable {
        assert_eq!(ids.len(), order * order, "a table of {order}² ids");
        ProductTable::of(order, Table::from_u32(order, ids))
    }

    /// The report's table of a monoid of `order` elements: `table` itself (shared, no copy).
    pub fn of(order: usize, table: Table) -> ProductTable {
        assert_eq!(table.len(), order * order, "a table of {order}² ids");
        ProductTable {
            order,
            ids: Some(table),
        }
    }

    /// From rows: `rows[a][b] = a·b`.
    pub fn from_rows(rows: &[Vec<u32>]) -> ProductTable {
        ProductTable::new(rows.len(), rows.concat())
    }

    /// No table (left out of a report); `get` panics.
    pub fn left_out(order: usize) -> ProductTable {
        ProductTable { order, ids: None }
    }

    /// Is the table there?
    pub fn is_present(&self) -> bool {
        self.ids.is_some()
    }

    /// The product `a·b`.
    #[inline]
    pub fn get(&self, a: u32, b: u32) -> u32 {
        self.ids
            .as_ref()
            .expect("the table was left out")
            .get(a as usize * self.order + b as usize)
    }

    /// Row `a`: `a·b` for every `b` (a copy).
    pub fn row(&self, a: usize) -> Vec<u32> {
        let ids = self.ids.as_ref().expect("the table was left out");
        match ids.row(a, self.order) {
            Row::Narrow(r) => r.iter().map(|&x| u32::from(x)).collect(),
            Row::Wide(r) => r.to_vec(),
        }
    }

    /// Bytes its ids hold (0 when left out): the buffer of the solver's table, which the
    /// report shares or took over.
    pub fn bytes(&self) -> usize {
        self.ids.as_ref().map_or(0, Table::bytes)
    }

    /// The ids as `u32`, `ids[a * order + b] = a·b`, or `None` when the table was left out
    /// (no copy when they are `u32` and held by this table alone; `u16` ids are widened, a
    /// new vector: for faces whose arrays are `u32`).
    pub fn into_ids(self) -> Option<Vec<u32>> {
        self.ids.map(Table::into_u32)
    }

    /// The rows, `rows[a][b] = a·b` (a copy; for tests and small quotients).
    pub fn rows(&self) -> Vec<Vec<u32>> {
        (0..self.order).map(|a| self.row(a)).collect()
    }
}

impl serde::Serialize for ProductTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let Some(ids) = &self.ids else {
            return s.serialize_none();
        };
        // A row of u16 ids is written with the same digits as the u32 ones.
        let mut seq = s.serialize_seq(Some(self.order))?;
        for a in 0..self.order {
            match ids.row(a, self.order) {
                Row::Narrow(r) => seq.serialize_element(r)?,
                Row::Wide(r) => seq.serialize_element(r)?,
            }
        }
        seq.end()
    }
}

/// A bipartite monoid given by a multiplication function over `0 .. size`, generated from
/// element 0 (its identity) by `gens`: reduces it by indistinguishability (`x ~ y` when
/// `xz ∈ P ⇔ yz ∈ P` for every `z`). Returns the class of each element (classes numbered in
/// order of first appearance) and their count.
///
/// Because the monoid is commutative and generated by `gens`, `~` is the coarsest partition
/// that separates P from the rest and is stable under multiplication by each generator: Moore's
/// minimization of the automaton whose states are the elements and whose letters are the
/// generators. Each round costs O(size · generators).
pub fn reduce(
    size: usize,
    in_p: &dyn Fn(usize) -> bool,
    mul_gen: &dyn Fn(usize, usize) -> usize,
    gens: usize,
) -> (Vec<u32>, usize) {
    let mut class: Vec<u32> = (0..size).map(|e| u32::from(in_p(e))).collect();
    // Each round renumbers the classes in order of first appearance.
    let mut count = 1 + usize::from(class.iter().any(|&c| c != class[0]));
    // Successors are fixed: tabulate them once.
    let succ: Vec<u32> = (0..size)
        .flat_map(|e| (0..gens).map(move |g| (e, g)))
        .map(|(e, g)| mul_gen(e, g) as u32)
        .collect();
    let width = gens + 1;
    let mut keys: Vec<u32> = vec![0; size * width];
    loop {
        for e in 0..size {
            let key = &mut keys[e * width..(e + 1) * width];
            key[0] = class[e];
            for (k, &s) in key[1..].iter_mut().zip(&succ[e * gens..(e + 1) * gens]) {
                *k = class[s as usize];
            }
        }
        let mut ids: HashMap<&[u32], u32, FxBuild> =
            HashMap::with_capacity_and_hasher(count * 2, FxBuild::default());
        let mut next = Vec::with_capacity(size);
        for key in keys.chunks_exact(width) {
            let fresh = ids.len() as u32;
            next.push(*ids.entry(key).or_insert(fresh));
        }
        let new_count = ids.len();
        drop(ids);
        class = next;
        if new_count == count {
            return (class, count);
        }
        count = new_count;
    }
}

/// A presentation of a monoid: generators (the distinct elements of heaps that are not products
/// of earlier ones, named `a`, `b`, … in order of their first heap) and relations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presentation {
    /// The element of each generator.
    pub generators: Vec<u32>,
    /// The first heap of each generator.
    pub generator_heaps: Vec<usize>,
    /// Each element as exponents of the generators (its normal form: the first word of least
    /// degree that gives it, found by a breadth-first search over words by degree).
    pub normal_forms: Vec<Vec<u32>>,
    /// Relations `lhs = rhs` as exponent vectors: the minimal words that are not normal forms,
    /// each with the normal form it equals. Together they rewrite any word to its normal form.
    pub relations: Vec<(Vec<u32>, Vec<u32>)>,
}

/// A generator's name: `a` … `z`, then `g26`, `g27`, ….
pub fn generator_name(i: usize) -> String {
    if i < 26 {
        ((b'a' + i as u8) as char).to_string()
    } else {
        format!("g{i}")
    }
}

/// A word in the generators, `a b² c` written `ab²c`, the empty word `1`.
pub fn word_text(exps: &[u32]) -> String {
    let mut s = String::new();
    for (i, &e) in exps.iter().enumerate() {
        if e == 0 {
            continue;
        }
        s.push_str(&generator_name(i));
        if e > 1 {
            s.push_str(&superscript(e));
        }
    }
    if s.is_empty() {
        s.push('1');
    }
    s
}

fn superscript(n: u32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|c| DIGITS[c.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// The presentation of `m` generated by the elements `phi` of heaps `0, 1, 2, …`.
pub fn presentation(m: &Monoid, phi: &[u32]) -> Presentation {
    // Generators: heap elements not in the submonoid generated by the earlier generators.
    let mut generators = Vec::new();
    let mut generator_heaps = Vec::new();
    let mut reach = vec![false; m.order];
    reach[0] = true;
    for (h, &x) in phi.iter().enumerate() {
        if reach[x as usize] {
            continue;
        }
        generators.push(x);
        generator_heaps.push(h);
        // Close the reached set under multiplication by the generators.
        let mut stack: Vec<u32> = (0..m.order as u32).filter(|&e| reach[e as usize]).collect();
        while let Some(e) = stack.pop() {
            for &g in &generators {
                let f = m.mul(e, g) as usize;
                if !reach[f] {
                    reach[f] = true;
                    stack.push(f as u32);
                }
            }
        }
    }
    let k = generators.len();
    // Normal forms by breadth-first search over words in graded lexicographic order: the first
    // word to reach an element is its normal form. A word reaching an element already reached
    // is a relation when no proper divisor of it is one.
    let mut normal: Vec<Option<Vec<u32>>> = vec![None; m.order];
    normal[0] = Some(vec![0; k]);
    let mut frontier: Vec<(Vec<u32>, u32)> = vec![(vec![0; k], 0)];
    let mut relations: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    while !frontier.is_empty() {
        let mut next: Vec<(Vec<u32>, u32)> = Vec::new();
        let mut seen_words: std::collections::HashSet<Vec<u32>> = Default::default();
        for (w, e) in &frontier {
            for (gi, &g) in generators.iter().enumerate() {
                let mut v = w.clone();
                v[gi] += 1;
                if !seen_words.insert(v.clone()) {
                    continue;
                }
                let f = m.mul(*e, g);
                let divides = |l: &Vec<u32>| l.iter().zip(&v).all(|(a, b)| a <= b);
                if relations.iter().any(|(l, _)| divides(l)) {
                    continue;
                }
                match &normal[f as usize] {
                    None => {
                        normal[f as usize] = Some(v.clone());
                        next.push((v, f));
                    }
                    Some(nf) => {
                        // Every proper divisor of v is a normal form (else v would have been
                        // skipped or not generated), so v is a minimal non-normal word.
                        relations.push((v, nf.clone()));
                    }
                }
            }
        }
        next.sort_by(|a, b| b.0.cmp(&a.0));
        frontier = next;
    }
    Presentation {
        generators,
        generator_heaps,
        normal_forms: normal.into_iter().map(|n| n.unwrap_or_default()).collect(),
        relations,
    }
}

impl Presentation {
    /// `⟨a, b, c | a² = 1, …⟩`.
    pub fn text(&self) -> String {
        let gens: Vec<String> = (0..self.generators.len()).map(generator_name).collect();
        let rels: Vec<String> = self
            .relations
            .iter()
            .map(|(l, r)| format!("{}={}", word_text(l), word_text(r)))
            .collect();
        if rels.is_empty() {
            format!("⟨{}⟩", gens.join(","))
        } else {
            format!("⟨{} | {}⟩", gens.join(","), rels.join(", "))
        }
    }

    /// The element `e` as a word in the generators.
    pub fn element_text(&self, e: u32) -> String {
        word_text(&self.normal_forms[e as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Z/2 × Z/2 with P = {identity·a}: every element is distinguished.
    #[test]
    fn reduce_keeps_distinct_and_merges_alike() {
        // Elements 0..4 = (i, j) with i, j in Z/2, index 2i + j; generator 0 = (1,0), 1 = (0,1).
        let mul = |e: usize, g: usize| if g == 0 { e ^ 2 } else { e ^ 1 };
        let (_, n) = reduce(4, &|e| e == 2, &mul, 2);
        assert_eq!(n, 4);
        // With P = {(1,0), (1,1)} the second coordinate never matters: two classes.
        let (class, n) = reduce(4, &|e| e >= 2, &mul, 2);
        assert_eq!(n, 2);
        assert_eq!(class[0], class[1]);
        assert_ne!(class[0], class[2]);
    }

    #[test]
    fn names_and_words() {
        assert_eq!(word_text(&[2, 0, 1]), "a²c");
        assert_eq!(word_text(&[0, 0]), "1");
        assert_eq!(generator_name(27), "g27");
        assert_eq!(superscript(12), "¹²");
    }
}
