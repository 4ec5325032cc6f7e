//! Misère quotients (Plambeck and Siegel): a finite commutative monoid `Q`, a subset `P` of it
//! and a map `Φ` from heaps to `Q` such that a sum of heaps is a misère P-position exactly when
//! the product of its heaps' elements lies in `P`, and no smaller monoid does it.
//!
//! Sources: T. E. Plambeck and A. N. Siegel, "Misère quotients for impartial games", J. Combin.
//! Theory Ser. A 115 (2008), and its supplement (arXiv 0705.2404); Siegel's MisereSolver
//! (in CGSuite). The method here is our own, stated and proved below.
//!
//! # Definitions
//! Let `A_n` be the positions (multisets) of heaps `0 … n`: closed under moves, since a move
//! replaces a heap by smaller ones. Positions `G`, `H` are *indistinguishable* (`G ≡ H`) when
//! `G + X` and `H + X` have the same misère outcome for every `X ∈ A_n`; the quotient `Q_n` is
//! `A_n/≡`, `P` the classes of P-positions, `Φ(h)` the class of heap `h`. The empty position is
//! an N-position in misère play (the player to move has no move, so did not move last): the
//! identity is never in `P`.
//!
//! A *candidate* for `A_n` is any finite commutative monoid `M` with a subset `P_M` and a
//! homomorphism `Φ` from positions onto `M` that predicts every outcome. If it is a candidate,
//! then `G ≡ H` ⇔ `Φ(G)z ∈ P_M ⇔ Φ(H)z ∈ P_M` for all `z ∈ M` (as `Φ` is onto), so `Q_n` is `M`
//! reduced by that relation ([`monoid::reduce`]). Whether a given `(M, P_M, Φ)` predicts every
//! outcome — of infinitely many positions — is decided exactly by the closure of [`closure`].
//!
//! # The step from heap `n − 1` to heap `n`
//! With `Q = Q_{n−1}` known (elements numbered by *least word*, the least position of each
//! class, so that options of a least word have smaller numbers), heap `n` gets:
//! 1. `O(n)`: the elements of its options (positions of smaller heaps, so in `Q`).
//! 2. A candidate `M = Q × C`, `C = {1, x, x², …}` with `x^(m+p) = x^m`, meaning "the element
//!    of the old heaps, and how many copies of heap `n`". Its `P_M` is computed column by
//!    column: `(a, 0) ∈ P_M ⇔ a ∈ P`, and `(a, k)` stands for the position `w_a + k·n` (`w_a` the
//!    least word of `a`), whose options are `w' + k·n` for the options `w'` of `w_a` (elements
//!    `(Φ(w'), k)`, numbered below `a`) and `w_a + (k−1)·n + y` for `y ∈ O(n)` (elements
//!    `(a·y, k−1)`); `(a, k) ∈ P_M` when it has an option and none is in `P_M`. Column `k` is a
//!    function of column `k − 1`, so the columns repeat: the first repetition gives `m` and `p`.
//!    This is Plambeck and Siegel's step: conservative extension when the new heap behaves like
//!    an old element, a new generator `x` otherwise, `P` recomputed over least words.
//! 3. `M` reduced by indistinguishability (Moore's partition refinement, O(|M|·generators) a
//!    round) and renumbered by least word: when nothing merges beyond `Q` itself the quotient
//!    did not change (heap `n` equals an old element). That case, the common one once a
//!    quotient settles, is recognised first without the reduction ([`old_element`]: every
//!    column of `P_M` is a row `P/a^k` of `Q`), which gives the same answer.
//! 4. The reduced candidate is verified over all heaps `1 … n`, by the closure of
//!    [`closure::Closure`] (every signature of a position) or by its envelopes
//!    ([`envelope::Envelope`]: the union and intersection of the signatures of each class of
//!    positions, which decide the same). If it passes it *is* `Q_n`: a proof covering every
//!    position of `A_n`. When the quotient does not change, heap `n` adds one transition to
//!    the envelopes kept from the heaps before.
//! 5. If it fails, some positions of old heaps with one element of `Q_{n−1}` must be told apart
//!    (the old quotient is refined). A failing position is named ([`FailureOrder`]): one of the
//!    fewest heaps, the first the breadth-first closure meets, or the least in the heap-count
//!    order (copies of the largest heap first: [`Closure::least_failure`], MisereSolver's
//!    choice); by default the first for up to [`FEWEST_FIRST`] candidates at a heap, then the
//!    heap again from its first candidate with the second (session 8 below);
//!    *recalibration* (Plambeck and Siegel's, guided by a failing position) frees a
//!    set of its heaps, smallest sets first: each freed heap becomes its own cyclic generator
//!    (`x^(j+2) = x^j`, `j` the larger of its index in the failed candidate and its count
//!    in the position, plus one; or, with [`IndexGrowth::Double`], twice the count once the
//!    count reaches the index), the others keep their elements of the failed candidate's monoid; `P` is
//!    computed over least words, the monoid reduced ([`build_candidate`]); the first candidate
//!    that predicts the failing position correctly is verified again, and so on from each new
//!    failure. This is a search that need not succeed: after [`MAX_RECALIBRATIONS`] candidates
//!    ([`CandidateLimits`]), or when no subset gives a candidate right at the failing positions
//!    within the size limits, the computation stops with [`QuotientError::Refinement`] (which
//!    says which) and heaps `0 … n − 1` are kept. What is reported is always a verified
//!    quotient, never a guess: whatever the search does, only a candidate the closure passes
//!    is committed, so the choice of search ([`FailureOrder`], [`Recalibration`], [`IndexGrowth`],
//!    [`QuotientSolver::with_wider_search`], the candidate limits) changes how far a
//!    computation gets and how long it takes, never what it reports. In the code: the solver's
//!    quotient changes only in `commit`, called after a verification returned `Ok` (the
//!    envelopes found no class breaking the misère rule, over every heap `1 … n`) or, when the
//!    quotient is unchanged, after the envelopes took heap `n` without a violation; a failed
//!    candidate is kept only as the base of the next one, and on any error the step restores
//!    the quotient of heaps `0 … n − 1`. The search only chooses which candidates are built:
//!    the freed heaps and their indices, and the pre-check at the failing positions met, which
//!    can only reject. A verified candidate `M` is generated by the heaps' elements (its `R`
//!    part by the heaps not freed, each cyclic part by its freed heap), so `Φ` is onto and `M`
//!    reduced is `Q_n`, numbered by least words: the same ids, whichever search found it. Each candidate verified is recorded ([`Attempt`]:
//!    [`QuotientSolver::attempts`], or sent as it is made with [`QuotientSolver::with_trace`];
//!    `examples/quotient_trace.rs` prints them).
//!
//!    A second search, [`Recalibration::FromBase`], builds every candidate from `Q_{n−1}`
//!    instead of from the last failed one, with the union of the heaps freed so far at this
//!    heap and an index that at least doubles when a failing position has as many copies of a
//!    freed heap as its index. It reaches the same quotients where both finish (a verified
//!    reduced candidate is `Q_n`; tested on random codes), but every freed heap multiplies the
//!    unreduced candidate by its radix, and nothing of the failed candidates' refinement is
//!    kept: on 0.07 it gives up at heap 25 (eight heaps freed, 1.5 million elements for a
//!    quotient of order 176) where the default passes in milliseconds. It is kept for
//!    experiments, not as the default.
//!
//! # What a failed verification proves
//! A candidate `(M, Φ_M, P_M)` for `A_n`, as step 2 and the recalibration build it: `Φ_M` a
//! homomorphism from the positions onto `M` (given by each heap's element), and `P_M`
//! computed element by element, each element `e` from a word `r_e` with `Φ_M(r_e) = e` whose
//! options map to elements computed before (`w_a + k·n` for a column, the least word for a
//! candidate built over least words): `e ∈ P_M` when `r_e` has an option and none maps into
//! `P_M`. The reduced candidate carries the image of `P_M`.
//!
//! **Lemma.** If `Φ_M` identifies only indistinguishable positions (`Φ_M(X) = Φ_M(Y)` ⇒
//! `X ≡ Y` in `A_n`), the candidate predicts every outcome, and so does its reduction: the
//! verification (of the reduced candidate) passes.
//!
//! *Proof.* Along the order in which `P_M` is computed: an option `r'` of `r_e` maps to an
//! element `e'` computed before, `Φ_M(r') = Φ_M(r_{e'})` gives `r' ≡ r_{e'}` (the empty
//! context: the same outcome), and `r_{e'}` is a P-position exactly when `e' ∈ P_M` (by
//! induction); so `e ∈ P_M` exactly when `r_e` is a P-position. Any position `X` is `≡` to
//! `r_{Φ_M(X)}`, so `X` is a P-position ⇔ `Φ_M(X) ∈ P_M`. The reduction merges only elements
//! that no context of `M` tells apart, so the reduced candidate makes the same predictions.
//! The closure fails exactly when some prediction is wrong (a position whose label breaks the
//! misère rule; by induction over positions, none breaks it when all predictions are right). ∎
//!
//! So, read backwards:
//! 1. **A failed verification refutes a relation, not an element.** `≡` is a congruence and
//!    the identifications of `Φ_M` are the congruence generated by the candidate's defining
//!    relations (those of the monoid it was built from, on the heaps it keeps, and
//!    `x_h^(i+2) = x_h^i` for each heap `h` freed with index `i`); if each held in `A_n`, all
//!    would, and the candidate would pass. A failure proves that at least one of them is false
//!    in `Q_n`, and nothing more: not which one, nothing of relations the candidate does not
//!    make, and nothing of the order of `Q_n`. The failures of five sessions at 0.07's heap 34
//!    (each candidate covering `k` copies of heap 34 failing at `k + 1` or `k + 2`) prove that
//!    none of those candidates is `Q_34`. They prove neither that `Q_34` is infinite nor a
//!    bound on its order: a finite `Q_34` is the reduction of a candidate that frees the right
//!    heaps with large enough indices, and nothing forces the search to build it.
//! 2. **A failed first candidate makes heap `n` a new element.** If `n ≡ w` for a position `w`
//!    of heaps below `n`, every position of `A_n` is `≡` to one of `A_{n−1}` (each copy of `n`
//!    replaced by `w`), so two positions of `A_{n−1}` with one element of `Q_{n−1}` stay
//!    indistinguishable in `A_n`; column `k` of the first candidate `Q_{n−1} × ⟨x⟩` is then
//!    `{a : a·Φ(w)^k ∈ P}`, and as `Q_{n−1}` is reduced two columns are equal only when the
//!    powers `Φ(w)^k`, `Φ(w)^l` are, so `x^k = x^l` gives `n^k ≡ w^k ≡ w^l ≡ n^l`: `Φ_M`
//!    identifies only indistinguishable positions and by the lemma the candidate passes. So
//!    when it fails, `Φ(n)` is none of the elements of positions of smaller heaps. (The
//!    converse direction, an old element found by [`old_element`], is step 3's.)
//! 3. **What the lemma cannot give, exact outcomes do.** Two positions are distinct elements of
//!    `Q_n` when one context gives them different outcomes; the outcomes of positions holding
//!    heap `n` come from a game-tree search whose positions without heap `n` are read off the
//!    verified `Q_{n−1}` (`examples/misere_family.rs`, modes `separate` and `classes`, checked
//!    by the plain game tree alone where the positions are small enough).
//!
//! # When the quotient is the whole game's (certified)
//! For a finite octal code (digits 0–7, no `!`), `t` its last non-zero digit: if
//! `Φ(h + p) = Φ(h)` for all `n0 ≤ h` with `h + p ≤ N`, `n0 ≥ 1`, and `N + 1 ≥ 2·n0 + 2p + t`,
//! then `Q_M = Q_N` and `Φ(M) = Φ(M − p)` for every `M > N`. Proof, by induction on `M`: a move
//! on heap `M` takes `j ≤ t` tokens and leaves one heap `M − j` or two heaps `a ≤ b` with
//! `a + b = M − j`. Then `M − j ≥ 2·n0 + 2p`, so `b ≥ n0 + p` and `Φ(b) = Φ(b − p)` with
//! `b − p ≥ n0 ≥ 1`: the option `(a, b − p)` of heap `M − p` has the same element. Conversely
//! an option `(a, c)`, `c ≥ a`, of heap `M − p` has `c ≥ n0` (as `M − p − j ≥ 2·n0 + p`) and
//! corresponds to `(a, c + p)`; a single heap likewise, and neither heap takes all (`M − p > t`).
//! So `O(M) = O(M − p)`, and with `Φ(M) := Φ(M − p)` heap `M` adds to the closure a transition
//! it already has: no new state, the candidate passes, `Q_M = Q_{M−1}`. This is the octal
//! periodicity theorem's argument (Guy and Smith) applied to `Φ` instead of Grundy values,
//! and is the same condition [`crate::analysis::theorem_bound`] checks.
//!
//! Compared with CGSuite: its test for a code whose moves leave at most `k` heaps is
//! `k·n0 + k·p + t + k ≤ N + 1` (`TBCode.periodicityChecker`; `k = 2` for octal codes, so
//! `2·n0 + 2p + t + 2`, and `3·n0 + 3p + t + 3` for hexadecimal ones). Ours asks two heaps
//! fewer for octal codes: Kayles is certified at heap 167 here and at 169 by MisereSolver,
//! with the same quotient (`scripts/bench-misere.sh`). The review of the proof above (2026-11,
//! issue 30) found each step needed: `n0 ≥ 1` so that `b − p` is a heap and the two-heap
//! option stays a two-heap option; `N + 1 ≥ 2·n0 + 2p + t` so that `M − j ≥ 2·n0 + 2p` for
//! every `j ≤ t`, which puts the larger part of a split at `n0 + p` or more and the
//! single-heap options at `n0` or more after subtracting `p`; induction on `M` for the heaps
//! between `N` and `M`; and that an unchanged set of transitions leaves the closure, hence
//! `P` and the reduction, unchanged. Codes leaving three heaps (hexadecimal digits 8–F) are
//! not certified at all (`theorem_t` is `None` for them).
//!
//! # Cost, and what makes it fast
//! A step costs the columns (O(|Q|·(options of least words + |O(n)|)) each), the reduction
//! (O(|M|·generators) a round), and the closure: O(states · transitions · |Q|/64) words plus
//! one gather of `|Q|` bits per state and distinct heap element. Its states are bitsets over
//! `Q` in one flat array (`|Q|/64 + 1` words each) found through an open-addressing table, so
//! memory is about `states · (|Q|/8 + 16)` bytes, bounded by the state limit given. Four
//! things keep it fast (measured in `results/misere.md`):
//! - **Envelopes, not signatures, once a closure grows** ([`QuotientSolver::verify_full`]). The
//!   closure's states are the distinct signatures of positions, which a `Φ` that is not yet
//!   periodic multiplies with every heap (0.644, order 108: 0.39 million states at heap 80,
//!   1.8 million at heap 84, each new heap a pass over all of them); the envelopes are at most
//!   `2·|Q|` classes. A candidate is first given a closure of at most [`CLOSURE_FIRST`] states
//!   an element (a failing candidate usually fails within it, and one that ends is proved);
//!   beyond, the envelopes decide, and a candidate they fail gets the full closure only to
//!   name its least failing position. 0.644 to heap 84: 26 s → 0.02 s.
//! - **Failures early.** Candidates that fail cost the most (0.07 at heap 33 tries 27 before
//!   the one that passes). The closure is the same set of states in any order of the heaps,
//!   but a failure is met as soon as a failing position's heaps are in: the verification adds
//!   the new heap and the heaps of the last failing position first ([`heap_order`]), so a
//!   failing candidate is usually rejected among a fraction of the states.
//! - **The candidate built with tables.** [`build_candidate`] multiplies by mixed-radix
//!   arithmetic without allocation, tabulates multiplication by each heap's element (by
//!   parts: the submonoid part and the cyclic parts each once, no division an element), and
//!   takes each heap's option elements once; the options of a least word are then table
//!   look-ups (the word without one heap is one look-up too). The reduced table is written
//!   row by row (the monoid is commutative, so a column is a row), each row in one pass from
//!   the row of the word without its first heap, written before it: written column by column
//!   it missed the cache on every entry (65 % of the construction at order 9,000), and a pass
//!   a heap of the word was 15 % of 0.07 to heap 33.
//! - **Tables of the narrowest ids, shared, in reused pages** ([`monoid::Table`]). A table
//!   holds `u16` ids up to order 2^16 (half the bytes of `u32`), and the closure and the
//!   envelopes read the candidate's table instead of copying it; the unreduced candidate is
//!   given back before the reduced table is made. A candidate given up during a heap leaves
//!   its table's buffer to the next one (pages already mapped), and fresh tables ask for huge
//!   pages ([`monoid::huge_pages`]). Before, a candidate of order 31,728 (0.6 at heap 17, the
//!   order limit raised to 2^15) held three tables of 4 GB (the failed candidate it was built
//!   from, its own, the closure's copy): 8.3 GB peak, 2.26 million page faults and 16 s of
//!   system time beside 3.6 s of user time; now 2.3 GB, 15,000 faults, 2.0 s user.
//! - **The closure without branches or allocation** ([`closure`]): the gather is done once per
//!   state and distinct `g`, from the state's signature spread one byte a bit: a byte load an
//!   element, packed to words by multiplies (bit by bit through shifts and masks of the
//!   signature's words it was 60 % of 0.07 to heap 33 on an Intel Xeon, and twice as slow);
//!   the rows `P/t` are gathered the same way from `P`; states are hashed word by word
//!   ([`fxhash`]).
//!
//! The plain first versions of the candidate construction and of the closure are kept for the
//! tests (`reference.rs`), which check the fast ones against them on random codes.
//!
//! # Stopping, and the memory held
//! A step looks at a stop check ([`QuotientSolver::step_until`]) between candidates, every
//! [`closure::STOP_EVERY`] states of a verification and in the long loops of a candidate's
//! construction, so a signal ends a heap within milliseconds; the solver is then back at the
//! heaps before, as after any error. Memory is bounded the same way ([`limits`]): each table,
//! each unreduced candidate and each verification is sized before it is allocated, against the
//! limit less what the solver holds (its quotient, the copy kept while a step is under way, its
//! closure); what does not fit ends the heap with [`QuotientError::Memory`]. The estimates are
//! upper bounds (0.07 under a 200 MiB limit peaks at 130 MB resident), so a limit below the
//! machine's memory means the process is never killed for memory.
//!
//! # The frontier: 0.07's heap 34
//! Measured (2026-11, `perf record -e cpu-clock`, a trace of each candidate): the first
//! candidate for heap 34 (`Q_33 × ⟨x⟩`, order 1,580) fails, and each recalibration then builds
//! on the last *failed* candidate, so the reduced orders climb to 6,000–16,000 (tables of
//! 0.15–1 GB, 2 GB resident). Each candidate costs 0.1–3.6 s to build and 0.3–8 s to verify:
//! 40 % of the time is the closure's gather, 31 % the candidate construction, 5 % `apply`, and
//! about 8 % page faults on fresh tables. The failing positions settle into `34^k·30^j·25·…`
//! with `k` and `j` one larger each round: a freed heap's cyclic part gets index
//! `max(its index, its copies in the position) + 1`, so the search creeps up one power a
//! candidate, and gives up after [`MAX_RECALIBRATIONS`] (about 4 minutes of CPU) with
//! [`QuotientError::Refinement`]. MisereSolver's recalibration is the same search (subsets of
//! the failing position's heaps, smallest first, from the last failed candidate) and does not
//! finish heap 34 either; its failures are the lexicographically least ones, which strictly
//! increase from candidate to candidate, while ours are the fewest-heap failures the
//! breadth-first closure meets first, and can go back (`[34,28,25,18]` came after
//! `[34,34,34,25,22,…]`). What would change this, not done: the lexicographically least
//! failure (a search over the closure's states by largest heap first), recalibration from
//! `Q_33` with the union of the freed heaps rather than from the last failed candidate, and an
//! index that grows geometrically.
//!
//! Session 4 (2026-11-28, traces of every candidate, `results/misere.md`): the union from
//! `Q_33` with doubling indices was built ([`Recalibration::FromBase`]) and is worse (it gives
//! up at 0.07's heap 25). With every candidate traced and no limit on the recalibrations
//! ([`CandidateLimits`]), the default search at heap 34 shows what it does: it sweeps
//! through the heaps (a failure at
//! `34·14²·10·4·2` frees 4, then 6, 10, 11, 12, 13, 14, 16, 17, …, 25, each candidate one heap
//! higher), then a bump of heap 34's or heap 30's index, then the sweep again; the failing
//! positions are `34^k·30^j·25·…` with `k` from 3 to 8 and `j` from 0 to 6, and the reduced
//! orders climb from 1,580 to 8,000–16,300, at the limit of 2^14: after 47 candidates (111 s
//! of CPU, 3.1 GB) no candidate freeing heaps of `34⁸·30⁵·25·14` fits, and the heap stops
//! (so the limit of 64 was not what stopped it; the old error did not tell the two apart).
//! The same wall stands at order 304 for Officers (0.6, heap 17), 0.36 (heap 22) and
//! 0.37 (heap 16), where MisereSolver stops too: there the candidates reach orders 9,000 and
//! 31,728 (with a limit of 2^15) within three recalibrations and fail at `17^8·10²`. In both,
//! the reduction hardly merges (12,160 elements to 9,016; 36,064 to 31,728): the candidates'
//! P, computed over least words, tells almost every element apart. That suggests (it proves
//! nothing) candidates far from the quotient rather than a quotient that large; what would
//! tell is an exact outcome of some of the failing positions by another route.
//!
//! Session 5 (2026-11-28, `results/misere.md` "is the quotient of 0.6's heaps 0 … 17
//! finite?"): exact outcomes by that other route, two independent ones (a memoised game-tree
//! search whose positions without heap 17 are decided by the verified `Q_16`, and misère
//! canonical forms; `examples/misere_family.rs`, `examples/misere_forms_grid.rs`). Facts:
//! heap 17 splits elements of `Q_16` (`7² ≡ ∅` there, but `17²·7²` is P and `17²` N; 29 of
//! the 101 elements met by positions of at most 42 tokens split, into 136 classes, with 0 … 4
//! copies of heap 17); the even powers `17², 17⁴, 17⁶` are pairwise distinguishable
//! (`17^a·3·12·13²` is P for `a` = 0, 4 and N for `a` = 1, 2, 3, 5, 6; `17^a·2·7²·12` is N
//! for `a` = 2 and P for `a` = 4, 6, 8), so heap 17's element has index at least 6; on the
//! grids `17^a·y^b` (`y` = 2, 3, 7, 10, 12, and `17^a·3^b·12`) the rows settle into period 2
//! in `a`, and nothing moves as 0.354's family `5^(2+6k)·2^b` moves its first P-position one
//! column per six copies. And the wall stands with one copy of heap 17: candidates verified
//! only on the positions with at most `a` copies of heap 17 (`examples/bounded_quotient.rs`,
//! a closure whose states count the copies) fail at `17·7²` and `17·10²` for `a` = 1, 2, 3,
//! and freeing 7 and 10 leaves no candidate within the limits. So whether `Q_17` is finite is
//! not decided; both the index of heap 17 and the refinement of `Q_16` by the contexts holding
//! heap 17 make the candidates large. No early stop for a "creeping" failure was built: a
//! stop that cannot end a search that would have succeeded needs a proof that the quotient is
//! infinite (there is none, for 0.354 or 0.6), or more than 2^14 (the default order limit)
//! positions shown pairwise distinguishable by exact search, so that no candidate within the
//! limits can pass; that is far beyond these searches.
//!
//! Session 6 (2026-11-28, `results/misere.md` "a learner instead of the recalibration"): the
//! refinement learned directly, as session 5 proposed — `examples/quotient_learner.rs`, an
//! L*-style learner whose rows are exact outcomes of position + context, whose hypothesis is
//! the commutative monoid of its distinct rows (two heaps' maps made to commute by added
//! contexts), verified by [`closure`], and whose counterexamples come from the closure's
//! failing positions (Rivest and Schapire's suffix). It gives the default search's quotients
//! wherever both finish (order, `P` and the map between them, heap by heap on many 0.dd
//! codes), but it reaches no heap the default search does not: its rows need the outcomes of
//! positions such as `17·16·15·14·…` and `n^k·…` one by one, and neither game-tree search nor
//! canonical forms gives them at the frontier (Officers' heap 17 with one copy of heap 17: no
//! first hypothesis after 99 s and 3.2 GB of memoised positions). The candidates here need no
//! such outcomes: `P` over least words is the candidate's own induction, and the closure checks
//! it all at once. So the learner stays an example; a learner that could pass the frontier
//! needs an oracle with more structure (a verified quotient of the positions with at most `a`
//! copies of heap `n` as the oracle for `a + 1`, or outcomes bounded in tokens with the rest
//! left open).
//!
//! Session 7 (2026-11-28, `results/misere.md` "Session 7", traces in `results/traces/`): a
//! candidate now takes half the table memory and no copy of it (0.07's heap 34 with the
//! default limits: 3.1 → 1.16 GB, 10.4 million → 0.13 million page faults), so the order
//! limit 2^15 fits in 3.5–4.5 GB. An hour at that limit, at `nice -n 19` on a loaded machine:
//! the default search ends after 67 candidates (47 at 2^14), in a cycle of five (free 14, 16,
//! 30, 34, 30) that adds one copy of 34 and of 30 to the failing position `34^k·30^j·25·…`
//! and about 4,000 elements to the largest candidate each time (`34¹²·30⁹·25·14`, order
//! 28,862, at the end). Doubled indices ([`IndexGrowth::Double`]) with the wider search
//! ([`QuotientSolver::with_wider_search`]) get further along the same family (on 0.137, 102
//! candidates in the hour, `33²⁵·29²³·24` at order 30,290: a cycle of two that adds about
//! 1,500 elements), and the positions fail with half as many copies as the index, so the
//! index is not what fails; a period of 4 instead of 2 changes nothing (the reduction merges
//! the extra powers). Every search tried follows `34^k·30^j` near the diagonal up to its
//! limits, as 0.354's search follows its infinite family: a sign (no proof) that `Q_34` may
//! be infinite; the exact outcomes of `34^k·30^j·25·X` would tell.
//!
//! Session 8 (2026-11-28, `results/misere.md` "Session 8"): why MisereSolver passes 0.146's
//! heap 22 (order 62) where this search crept (`22·17^k·7^j·4·1`). Both searches build the
//! same first candidates and free the same heaps until the sixth; there the candidate fails at
//! `22·17²·4·1` (five heaps, the fewest) and at `22·17·14·4·1` (the least in the heap-count
//! order); freeing 17 for the first leads to a failure with one more copy of 17 or 7 each
//! round, while the least failures, which hold as few copies of the large heaps as can fail,
//! lead to freeing the small heaps one by one (14, 15, 18, 4, 5, 6, 10 … 13, 17, 19, 20, 21)
//! with candidates of order at most 248, and heap 22 passes at the twentieth. Neither the index
//! nor the period of the freed heaps, nor checking a candidate at the last failing position
//! only, made the difference (each tried in both programs). So the search order is now a
//! choice ([`FailureOrder`]): the least failure costs a depth-first search of the states in
//! that order ([`Closure::least_failure`]: every state with a smaller position, usually all of
//! the closure of the smaller heaps) where the breadth-first closure stops at its first
//! failure, and on 0.07 it takes more candidates (heap 33: 28 against 17), so the default
//! tries the fewest-heap failures first and turns to the least ones only when those have not
//! passed within [`FEWEST_FIRST`] candidates.
//!
//! Session 9 (2026-11-28, `results/misere.md` "Session 9"): what the failures at 0.07's heap 34
//! prove, by the lemma above ("What a failed verification proves") and exact outcomes. Proved:
//! (a) `Φ(34)` is a new element (the first candidate fails: consequence 2); (b) heap 34
//! refines `Q_33`: `4·12` and `4·10·14·16` are one element of `Q_33` (element 13, least word
//! `10·4·2`) but `34·4·12` is a P-position and `34·4·10·14·16` an N-position; (c) the powers
//! `34^0 … 34^3` are pairwise distinct (`34^0·2` P, `34·2` N; `34²` P, `34`, `34³` N;
//! `34³·2` N; `34·14` N, `34³·14` P), so `x = Φ(34)` has no relation `x^(a+p) = x^a` with
//! `a + p ≤ 3`. Hence `|Q_34| ≥ 640` (the 638 elements of `Q_33`, told apart by contexts of
//! heaps below 34, one more from the split, and `Φ(34)`). That is all these prove: `34^4`
//! needs positions past 136 tokens, beyond the search, and no failure of the recalibration
//! bounds `|Q_34|` (consequence 1). Whether `Q_34` is finite stays open.

pub mod closure;
pub mod envelope;
pub mod limits;
pub mod monoid;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use crate::analysis::{theorem_t, Period, PeriodChecker};
use crate::engine::Executor;
use crate::rules::{MoveSet, Rule};

pub use closure::{Closure, ClosureError};
pub use envelope::{Envelope, EnvelopeError};
pub use monoid::{presentation, Ids, Monoid, Presentation, ProductTable, Table};

/// Why a quotient computation stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuotientError {
    /// No candidate for heap `heap` passed the verification: the recalibrations ran out
    /// (`verified − 1` of them), or none of the candidates freeing heaps of the last failing
    /// position was right there and within the size limits (`exhausted`).
    #[error("{}", refinement_text(*heap, *verified, *exhausted))]
    Refinement {
        /// The heap.
        heap: usize,
        /// Candidates verified at this heap.
        verified: usize,
        /// The search found no next candidate (rather than reaching its limit).
        exhausted: bool,
    },
    /// The verification closure outgrew its limit.
    #[error("the verification of heap {heap} needs more than {limit} states")]
    TooManyStates {
        /// The heap.
        heap: usize,
        /// The limit.
        limit: usize,
    },
    /// The caller's stop check asked to stop during heap `heap` (a signal).
    #[error("stopped during heap {heap}")]
    Stopped {
        /// The heap under way.
        heap: usize,
    },
    /// Heap `heap` needs more memory than the limit: a candidate's tables or the states of its
    /// verification would pass `limit` bytes.
    #[error(
        "heap {heap} needs more than the memory limit of {} MiB (a candidate of {order} \
         elements, or its verification)",
        limit >> 20
    )]
    Memory {
        /// The heap.
        heap: usize,
        /// The limit, in bytes.
        limit: usize,
        /// The order of the candidate (reduced, or not yet reduced) that did not fit.
        order: usize,
    },
    /// The two verifications of a candidate disagreed: the envelopes and the closure decide the
    /// same thing by different means, so this is a bug (and no quotient is reported for it).
    #[error(
        "the two verifications of heap {heap} disagree (a bug in nimseq, please report it); the \
         quotient of the heaps before is kept"
    )]
    Disagreement {
        /// The heap.
        heap: usize,
    },
    /// The powers of a new generator did not repeat within the limit.
    #[error("the powers of heap {heap}'s element did not repeat within {limit} columns")]
    LongCycle {
        /// The heap.
        heap: usize,
        /// The limit.
        limit: usize,
    },
}

fn refinement_text(heap: usize, verified: usize, exhausted: bool) -> String {
    let why = if exhausted {
        format!(
            "after {verified} candidates, none freeing heaps of the last failing position was \
             right there within the size limits"
        )
    } else {
        format!("within {} recalibrations", verified - 1)
    };
    format!(
        "no candidate for the quotient at heap {heap} passed the verification {why}; the \
         quotient of heaps 0 .. {} is kept",
        heap - 1
    )
}

/// States a candidate element of the closure tried before the envelopes (see
/// [`QuotientSolver::verify_full`]).
const CLOSURE_FIRST: usize = 16;

/// Most columns (powers of a new generator) tried before giving up.
const MAX_COLUMNS: usize = 1 << 14;

/// Most heaps a widened recalibration frees at once ([`QuotientSolver::with_wider_search`]).
const WIDER_SIZE: usize = 3;

/// Most candidates tried for one heap before giving up.
pub const MAX_RECALIBRATIONS: usize = 64;

/// The misère quotient of the heaps of one rule, grown heap by heap.
#[derive(Debug)]
pub struct QuotientSolver {
    rule: Rule,
    moves: MoveSet,
    m: Monoid,
    phi: Vec<u32>,
    /// Distinct option elements of each heap.
    heap_opts: Vec<Vec<u32>>,
    /// Option elements of each element's least word.
    word_opts: Vec<Vec<u32>>,
    /// The envelopes of the quotient's verification, grown heap by heap while it holds.
    envelope: Envelope,
    changes: Vec<(usize, usize)>,
    certified: Option<Period>,
    state_limit: usize,
    /// Bytes the solver may hold at once (its quotient, a candidate, a verification).
    memory_limit: usize,
    /// Bytes of the copy of the quotient kept while a step is under way.
    backup_bytes: usize,
    /// How a failed candidate is recalibrated.
    recalibration: Recalibration,
    /// How the index of a freed heap grows when a failing position holds as many copies.
    growth: IndexGrowth,
    /// Which failing position guides the recalibration.
    failure_order: FailureOrder,
    /// The one the step under way uses ([`FailureOrder::Fewest`] or [`FailureOrder::Least`]).
    active_order: FailureOrder,
    /// Candidates the step under way may verify after the first.
    active_rounds: usize,
    /// Whether a recalibration that finds no candidate among the heaps of the last failing
    /// position tries small sets of the heaps of every failing position of the heap.
    wider: bool,
    /// The period a recalibration gives a heap it frees (2 by default).
    period: usize,
    /// The largest candidates a recalibration builds.
    candidate_limits: CandidateLimits,
    /// The candidates tried at the last heap that needed a recalibration.
    attempts: Vec<Attempt>,
    /// Where each attempt is also sent as it is made, when asked.
    trace: Option<std::sync::mpsc::Sender<Attempt>>,
    /// The threads verifications run on ([`QuotientSolver::with_executor`]).
    executor: Executor,
    /// The table buffer of a candidate given up during this heap, for the next candidate
    /// (pages already mapped: see [`Ids::zeroed_reusing`]); counted as held, dropped when the
    /// heap ends.
    spare: std::sync::Mutex<Option<Ids>>,
}

/// How the candidates after a failed one are built (see the module text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recalibration {
    /// From the quotient of the heaps before, with every heap freed so far at this heap (their
    /// union) and an index that at least doubles when a failing position has as many copies
    /// of a freed heap as its index (an experiment: see the module text).
    FromBase,
    /// From the last failed candidate, freeing heaps of the last failing position only, each
    /// with the index [`IndexGrowth`] gives (one above its copies there by default) and the
    /// free period set by [`QuotientSolver::with_free_period`]. The only recalibration that
    /// reads those settings and [`QuotientSolver::with_wider_search`]: `FromBase` keeps its
    /// own index rule and period 2.
    #[default]
    FromFailed,
}

/// Which failing position of a failed candidate guides the recalibration (the search's order,
/// never its answer: see the module text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailureOrder {
    /// One of the fewest heaps: the first the breadth-first closure meets.
    Fewest,
    /// The least in the heap-count order (copies of the largest heap first, then of the next
    /// down; MisereSolver's "lexicographically least failure"): [`Closure::least_failure`].
    Least,
    /// [`FailureOrder::Fewest`] for up to [`FEWEST_FIRST`] candidates at a heap (the cheaper
    /// where it ends: 0.07 to heap 33), then the heap again from its first candidate with
    /// [`FailureOrder::Least`] (which ends where the other creeps: 0.146's heap 22).
    #[default]
    FewestFirst,
}

/// Candidates [`FailureOrder::FewestFirst`] verifies at a heap before it starts the heap again
/// with the least failing positions.
pub const FEWEST_FIRST: usize = 24;

/// The index a recalibration gives a heap it frees (with the free period of
/// [`QuotientSolver::with_free_period`], 2 by default), from its index
/// `i` in the failed candidate and its copies `k` in the failing position (see the module
/// text: the search's order, never its answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexGrowth {
    /// `max(i, k) + 1`: one power more than the position shows. When the failures are
    /// `x^k·…` with `k` one larger each time, this creeps one power a candidate.
    #[default]
    Step,
    /// `max(i, k) + 1` while `k < i`; once the position holds `k ≥ i ≥ 1` copies (the index
    /// was met), `2k`: the next power failures met are covered at once, at the price of a
    /// larger radix.
    Double,
}

impl IndexGrowth {
    /// The index of a heap freed with index `i` in the failed candidate and `k` copies in the
    /// failing position.
    pub fn index(self, i: usize, k: usize) -> usize {
        match self {
            IndexGrowth::Double if i >= 1 && k >= i => 2 * k,
            _ => i.max(k) + 1,
        }
    }
}

/// One candidate verified during a recalibration (for reports and experiments).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// The heap being computed.
    pub heap: usize,
    /// The freed heaps `(heap, index, period)` of the candidate.
    pub free: Vec<(usize, usize, usize)>,
    /// Its order before reduction.
    pub size: usize,
    /// Its order (reduced).
    pub order: usize,
    /// Candidates built to find it (the others failed at a known failing position, were too
    /// large, or changed nothing).
    pub built: usize,
    /// The position it failed at (heaps, largest first), or `None` when it passed.
    pub failure: Option<Vec<usize>>,
    /// States of its verification when it ended.
    pub states: usize,
    /// Milliseconds spent building candidates for it, and verifying it.
    pub build_ms: u64,
    /// Milliseconds of its verification.
    pub verify_ms: u64,
}

impl QuotientSolver {
    /// The quotient of heap 0 alone (the trivial monoid) for `rule`, verifying with at most
    /// `state_limit` states.
    pub fn new(rule: &Rule, state_limit: usize) -> QuotientSolver {
        let m = Monoid::trivial();
        let envelope = Envelope::new(&m);
        QuotientSolver {
            rule: rule.clone(),
            moves: rule.moves(16),
            word_opts: vec![Vec::new()],
            m,
            phi: vec![0],
            heap_opts: vec![Vec::new()],
            envelope,
            changes: vec![(0, 1)],
            certified: None,
            state_limit,
            memory_limit: usize::MAX,
            backup_bytes: 0,
            recalibration: Recalibration::default(),
            growth: IndexGrowth::default(),
            failure_order: FailureOrder::default(),
            active_order: FailureOrder::Fewest,
            active_rounds: MAX_RECALIBRATIONS,
            wider: false,
            period: 2,
            candidate_limits: CandidateLimits::default(),
            attempts: Vec::new(),
            trace: None,
            executor: Executor::serial(),
            spare: std::sync::Mutex::new(None),
        }
    }

    /// The same solver verifying candidates on the threads of `executor` ([`closure`]'s
    /// parallel closure): every result, failing positions and attempts included, is the
    /// serial one.
    pub fn with_executor(mut self, executor: Executor) -> QuotientSolver {
        self.executor = executor;
        self
    }

    /// The same solver recalibrating failed candidates by `how`.
    pub fn with_recalibration(mut self, how: Recalibration) -> QuotientSolver {
        self.recalibration = how;
        self
    }

    /// The same solver guiding its recalibrations by the failing positions `order` names.
    pub fn with_failure_order(mut self, order: FailureOrder) -> QuotientSolver {
        self.failure_order = order;
        self
    }

    /// The same solver growing the indices of freed heaps by `growth` in its recalibrations.
    pub fn with_index_growth(mut self, growth: IndexGrowth) -> QuotientSolver {
        self.growth = growth;
        self
    }

    /// The same solver widening its recalibrations' search when it would give up: sets of at
    /// most three heaps of every failing position met at the heap, not only of the last (an
    /// experiment for the frontier; where the narrow search finds a candidate nothing
    /// changes, and a verified candidate is the quotient whichever search found it).
    pub fn with_wider_search(mut self, wider: bool) -> QuotientSolver {
        self.wider = wider;
        self
    }

    /// The same solver giving the heaps its recalibrations free period `period` (at least 1;
    /// 2 by default): `x^(i+p) = x^i`. A multiple of the true period is as right (the
    /// reduction merges the powers that behave alike) and costs a larger radix; a period that
    /// is not one makes every candidate fail at some power (an experiment for the frontier).
    pub fn with_free_period(mut self, period: usize) -> QuotientSolver {
        self.period = period.max(1);
        self
    }

    /// The same solver building candidates up to `limits` in its recalibrations (larger ones
    /// are skipped; the memory limit is looked at besides).
    pub fn with_candidate_limits(mut self, limits: CandidateLimits) -> QuotientSolver {
        self.candidate_limits = limits;
        self
    }

    /// The same solver sending each candidate verified during a recalibration to `to` as it
    /// is tried (the send is ignored when the receiver is gone).
    pub fn with_trace(mut self, to: std::sync::mpsc::Sender<Attempt>) -> QuotientSolver {
        self.trace = Some(to);
        self
    }

    /// The candidates verified during the last recalibration (of the last heap that needed
    /// one, whether it passed or not).
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    fn record(&mut self, a: Attempt) {
        if let Some(t) = &self.trace {
            let _ = t.send(a.clone());
        }
        self.attempts.push(a);
    }

    /// The same solver holding at most `bytes` at once: a heap whose candidates or their
    /// verification would need more stops with [`QuotientError::Memory`] instead (tables and
    /// states are sized before they are allocated; see [`limits`]).
    pub fn with_memory_limit(mut self, bytes: usize) -> QuotientSolver {
        self.memory_limit = bytes;
        self
    }

    /// Bytes held between candidates: the quotient (and the copy kept in case the step
    /// fails), its verification's envelopes, the option lists.
    fn held_bytes(&self) -> usize {
        limits::monoid_bytes(&self.m)
            + self.backup_bytes
            + self.envelope.bytes()
            + self.spare_bytes()
    }

    /// Bytes of the spare table buffer.
    fn spare_bytes(&self) -> usize {
        self.spare_slot().as_ref().map_or(0, Ids::bytes)
    }

    fn spare_slot(&self) -> std::sync::MutexGuard<'_, Option<Ids>> {
        self.spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps the table buffer of a candidate given up (when nothing else holds it and it is
    /// larger than the spare) for the next candidate of this heap.
    fn recycle(&self, m: Monoid) {
        if let Some(ids) = m.table.into_ids() {
            let mut slot = self.spare_slot();
            if slot.as_ref().is_none_or(|s| s.bytes() < ids.bytes()) {
                *slot = Some(ids);
            }
        }
    }

    /// Bytes left for a candidate and its verification.
    fn budget(&self) -> usize {
        self.memory_limit
            .saturating_sub(limits::SLACK + self.held_bytes())
    }

    /// A recalibration's candidate for heap `n` with the heaps `free` freed (see
    /// [`build_sized`]), kept when it predicts every failing position met so far (the latest
    /// first): `None` when it is too large or predicts one wrongly, an error when memory or
    /// the stop check ends the heap.
    fn try_candidate(
        &self,
        n: usize,
        free: &[(usize, usize, usize)],
        failures: &[Vec<usize>],
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<(Monoid, Vec<u32>, usize)>, QuotientError> {
        if stop() {
            return Err(QuotientError::Stopped { heap: n });
        }
        // The spare buffer goes to the candidate (and so out of the bytes held, into its own).
        let mut spare = self.spare_slot().take();
        let made = build_sized(
            &self.moves,
            &self.m,
            &self.phi,
            free,
            (self.budget(), self.candidate_limits),
            &mut spare,
            stop,
        );
        if spare.is_some() {
            *self.spare_slot() = spare;
        }
        let (m, phi, size) = match made {
            Ok(c) => c,
            Err(Build::TooLarge) => return Ok(None),
            Err(Build::Memory(order)) => {
                return Err(QuotientError::Memory {
                    heap: n,
                    limit: self.memory_limit,
                    order,
                })
            }
            Err(Build::Stopped) => return Err(QuotientError::Stopped { heap: n }),
        };
        let consistent = |pos: &Vec<usize>| {
            let path: Vec<(u32, Vec<u32>)> = pos
                .iter()
                .map(|&h| (phi[h], heap_options(&self.moves, &m, &phi, h)))
                .collect();
            closure::consistent_at(&m, &path)
        };
        if failures.iter().rev().all(consistent) {
            Ok(Some((m, phi, size)))
        } else {
            self.recycle(m);
            Ok(None)
        }
    }

    /// The heaps done: `0 … count − 1`.
    pub fn count(&self) -> usize {
        self.phi.len()
    }

    /// The quotient of the heaps done.
    pub fn monoid(&self) -> &Monoid {
        &self.m
    }

    /// The element of each heap done.
    pub fn phi(&self) -> &[u32] {
        &self.phi
    }

    /// `(heap, order)` at heap 0 and at each heap where the quotient changed.
    pub fn changes(&self) -> &[(usize, usize)] {
        &self.changes
    }

    /// The period of `Φ` once it certifies the quotient as the whole game's.
    pub fn certified(&self) -> Option<&Period> {
        self.certified.as_ref()
    }

    /// Classes of positions (element, has a move) in the verification of the quotient
    /// ([`envelope`]): at most twice its order.
    pub fn states(&self) -> usize {
        self.envelope.len()
    }

    /// The element of heap `h`: from `Φ` for heaps done, from the certified period beyond.
    pub fn element(&self, h: usize) -> Option<u32> {
        if h < self.phi.len() {
            return Some(self.phi[h]);
        }
        let p = self.certified.as_ref()?;
        let (n0, per) = (p.preperiod as usize, p.period as usize);
        let last = self.phi.len() - 1;
        // h ≡ some heap in [n0, last] modulo the period, stepping down.
        let k = (h - last).div_ceil(per);
        let i = h - k * per;
        debug_assert!(i >= n0);
        Some(self.phi[i])
    }

    fn options_of_heap(&self, h: usize) -> Vec<u32> {
        let mut out = Vec::new();
        crate::rules::for_each_option(&self.moves, h, |parts| {
            let mut e = 0u32;
            for &x in parts {
                e = self.m.mul(e, self.phi[x]);
            }
            out.push(e);
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    fn options_of_word(&self, w: &[usize]) -> Vec<u32> {
        let mut out = Vec::new();
        for (i, &h) in w.iter().enumerate() {
            if i > 0 && w[i - 1] == h {
                continue;
            }
            let mut rest = 0u32;
            for (j, &x) in w.iter().enumerate() {
                if j != i {
                    rest = self.m.mul(rest, self.phi[x]);
                }
            }
            crate::rules::for_each_option(&self.moves, h, |parts| {
                let mut e = rest;
                for &x in parts {
                    e = self.m.mul(e, self.phi[x]);
                }
                out.push(e);
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Computes heap `count()`: its element, and the quotient of heaps `0 … count()`. On an
    /// error the solver is left as it was (heaps `0 … count() − 1`) and cannot go further.
    pub fn step(&mut self) -> Result<(), QuotientError> {
        self.step_until(&|| false)
    }

    /// [`QuotientSolver::step`], calling `stop` between candidates and every few hundred
    /// states of a verification (and within the construction of a large candidate): when it
    /// returns true the step ends with [`QuotientError::Stopped`] within milliseconds, and
    /// the solver is left with heaps `0 … count() − 1` as on any error.
    pub fn step_until(&mut self, stop: &dyn Fn() -> bool) -> Result<(), QuotientError> {
        let backup = (
            self.m.clone(),
            self.phi.clone(),
            self.heap_opts.clone(),
            self.word_opts.clone(),
            self.changes.clone(),
        );
        self.backup_bytes = limits::monoid_bytes(&backup.0);
        self.attempts.clear();
        let rounds = self.candidate_limits.recalibrations;
        let r = match self.failure_order {
            FailureOrder::FewestFirst => {
                self.active_order = FailureOrder::Fewest;
                self.active_rounds = rounds.min(FEWEST_FIRST - 1);
                match self.step_inner(stop) {
                    Err(
                        QuotientError::Refinement { .. }
                        | QuotientError::Memory { .. }
                        | QuotientError::TooManyStates { .. },
                    ) if rounds >= FEWEST_FIRST => {
                        // Again from the quotient of the heaps before, guided by the least
                        // failing positions (the attempts of both are kept).
                        (
                            self.m,
                            self.phi,
                            self.heap_opts,
                            self.word_opts,
                            self.changes,
                        ) = backup.clone();
                        *self.spare_slot() = None;
                        self.active_order = FailureOrder::Least;
                        self.active_rounds = rounds;
                        self.step_inner(stop)
                    }
                    r => r,
                }
            }
            order => {
                self.active_order = order;
                self.active_rounds = rounds;
                self.step_inner(stop)
            }
        };
        self.backup_bytes = 0;
        *self.spare_slot() = None;
        if r.is_err() {
            (
                self.m,
                self.phi,
                self.heap_opts,
                self.word_opts,
                self.changes,
            ) = backup;
        }
        r
    }

    fn step_inner(&mut self, stop: &dyn Fn() -> bool) -> Result<(), QuotientError> {
        let started = Instant::now();
        let n = self.phi.len();
        if n > self.moves.max_heap {
            self.moves = self.rule.moves((2 * n).max(16));
        }
        let o = self.options_of_heap(n);
        let (mu, per, cols) = self.columns(n, &o)?;
        let q = self.m.order;
        let len = mu + per;
        // The reduction of M = Q × C, then at most |M|² ids of table.
        let memory = |order: usize| QuotientError::Memory {
            heap: n,
            limit: self.memory_limit,
            order,
        };
        if limits::reduce_bytes(q * len, self.phi.len()) > self.budget() {
            return Err(memory(q * len));
        }
        let cap = |s: usize| if s < len { s } else { mu + (s - mu) % per };
        // Generators of M: the old heaps' distinct elements, then x.
        let mut gens: Vec<u32> = self.phi.iter().copied().filter(|&g| g != 0).collect();
        gens.sort_unstable();
        gens.dedup();
        let ng = gens.len();
        let m = &self.m;
        let mul_gen = |e: usize, gi: usize| {
            let (k, a) = (e / q, e % q);
            if gi < ng {
                k * q + m.mul(a as u32, gens[gi]) as usize
            } else {
                cap(k + 1) * q + a
            }
        };
        let in_p = |e: usize| cols[e / q][e % q];
        // Most heaps are an old element once the quotient settles: found without the
        // reduction, which gives the same then (see `old_element`).
        let old = old_element(&self.m, &self.envelope, mu, &cols);
        let (class, count) = match old {
            Some(_) => (Vec::new(), q),
            None => monoid::reduce(q * len, &in_p, &mul_gen, ng + 1),
        };
        debug_assert!(match old {
            Some(a) => {
                let (c, k) = monoid::reduce(q * len, &in_p, &mul_gen, ng + 1);
                k == q && c[cap(1) * q] == a
            }
            None => count != q,
        });
        let x_class = old.unwrap_or_else(|| class[cap(1) * q]);
        // A new quotient needs its table and room to verify it (an old element, nothing).
        if count != q && limits::table_bytes(count) + limits::closure_floor(count) > self.budget() {
            return Err(memory(count));
        }
        let failure = if count == q {
            // Nothing new: heap n is an old element (the classes of (a, 0) are the old
            // elements in the old order, see the module text).
            debug_assert!(old.is_some() || (0..q).all(|a| class[a] as usize == a));
            match self.envelope.add_heap_until(&self.m, x_class, &o, stop) {
                Ok(()) => {
                    self.phi.push(x_class);
                    self.heap_opts.push(o);
                    self.certify();
                    return Ok(());
                }
                Err(EnvelopeError::Stopped) => return Err(QuotientError::Stopped { heap: n }),
                Err(EnvelopeError::Fails) => {
                    // Some position fails: the closure names the least one.
                    let mut phi = self.phi.clone();
                    phi.push(x_class);
                    match self.failing_closure(n, &self.m, &phi, &[n], stop) {
                        VerifyError::Quotient(e) => return Err(e),
                        VerifyError::Closure(e, states) => (e, states),
                    }
                }
            }
        } else {
            let mut rep = vec![usize::MAX; count];
            for (e, &c) in class.iter().enumerate() {
                if rep[c as usize] == usize::MAX {
                    rep[c as usize] = e;
                }
            }
            let product = |c1: usize, c2: usize| {
                let (k1, a1) = (rep[c1] / q, rep[c1] % q);
                let (k2, a2) = (rep[c2] / q, rep[c2] % q);
                class[cap(k1 + k2) * q + m.mul(a1 as u32, a2 as u32) as usize]
            };
            let mut ids = Ids::zeroed(count);
            match &mut ids {
                Ids::Narrow(t) => fill_entries(t, count, product),
                Ids::Wide(t) => fill_entries(t, count, product),
            }
            let table = Table::new(ids);
            let p: Vec<bool> = rep.iter().map(|&e| in_p(e)).collect();
            let words: Vec<Vec<usize>> = rep
                .iter()
                .map(|&e| {
                    let (k, a) = (e / q, e % q);
                    let mut w = vec![n; k];
                    w.extend_from_slice(&m.words[a]);
                    w
                })
                .collect();
            let new = Monoid {
                order: count,
                table,
                p,
                words,
            };
            let mut phi: Vec<u32> = self.phi.iter().map(|&f| class[f as usize]).collect();
            phi.push(x_class);
            match self.verify_full(n, &new, &phi, &[n], stop) {
                Ok(envelope) => {
                    self.commit(new, phi, envelope);
                    return Ok(());
                }
                Err(VerifyError::Quotient(e)) => return Err(e),
                Err(VerifyError::Closure(e, states)) => {
                    if self.recalibration == Recalibration::FromFailed {
                        self.m = new;
                        self.phi = phi;
                    }
                    (e, states)
                }
            }
        };
        let (failure, states) = failure;
        let first = (n, mu, per);
        self.record(Attempt {
            heap: n,
            free: vec![first],
            size: q * len,
            order: count,
            built: 1,
            failure: match &failure {
                ClosureError::Inconsistent(p) => Some(p.clone()),
                _ => None,
            },
            states,
            build_ms: 0,
            verify_ms: started.elapsed().as_millis() as u64,
        });
        match self.recalibration {
            Recalibration::FromFailed => {
                if self.phi.len() == n {
                    self.phi.push(x_class);
                }
                self.recalibrate(n, failure, stop)
            }
            Recalibration::FromBase => {
                // `self.m` is still the quotient of heaps 0 … n − 1; heap n is always freed,
                // so its element there is never read.
                self.phi.push(0);
                self.recalibrate_from_base(n, failure, vec![first], stop)
            }
        }
    }

    /// The columns of `P_M` for the powers of heap `n` (see the module text): `(m, p, columns)`.
    #[allow(clippy::type_complexity)]
    fn columns(
        &self,
        n: usize,
        o: &[u32],
    ) -> Result<(usize, usize, Vec<Vec<bool>>), QuotientError> {
        let q = self.m.order;
        let mut cols: Vec<Vec<bool>> = vec![self.m.p.clone()];
        let mut seen: HashMap<Vec<bool>, usize> = HashMap::new();
        seen.insert(self.m.p.clone(), 0);
        loop {
            let k = cols.len();
            if k > MAX_COLUMNS {
                return Err(QuotientError::LongCycle {
                    heap: n,
                    limit: MAX_COLUMNS,
                });
            }
            // Each column is kept twice (the list and the map of columns seen).
            if 2 * (k + 1) * (q + 48) > self.budget() {
                return Err(QuotientError::Memory {
                    heap: n,
                    limit: self.memory_limit,
                    order: q * (k + 1),
                });
            }
            let prev = &cols[k - 1];
            let mut col = vec![false; q];
            for a in 0..q {
                let wo = &self.word_opts[a];
                let moved = !wo.is_empty() || !o.is_empty();
                let any_p = wo.iter().any(|&s| {
                    debug_assert!((s as usize) < a);
                    col[s as usize]
                }) || o.iter().any(|&y| prev[self.m.mul(a as u32, y) as usize]);
                col[a] = moved && !any_p;
            }
            if let Some(&j) = seen.get(&col) {
                cols.truncate(k);
                return Ok((j, k - j, cols));
            }
            seen.insert(col.clone(), k);
            cols.push(col);
        }
    }

    /// Verifies a candidate over heaps `1 … phi.len() − 1` (the heaps `first` added first):
    /// its envelopes when it passes; its least failing position, found by the closure, when
    /// it fails. A closure of at most [`CLOSURE_FIRST`] states a candidate element is tried
    /// first: most failing candidates fail within a few states of it (so their failure costs
    /// what it did before envelopes), and a closure that ends proves the candidate as well.
    /// Otherwise the envelopes decide ([`envelope`]), and the closure runs in full only to
    /// name the failing position of a candidate that fails.
    fn verify_full(
        &self,
        n: usize,
        m: &Monoid,
        phi: &[u32],
        first: &[usize],
        stop: &dyn Fn() -> bool,
    ) -> Result<Envelope, VerifyError> {
        let memory = VerifyError::Quotient(QuotientError::Memory {
            heap: n,
            limit: self.memory_limit,
            order: m.order,
        });
        let room = self
            .budget()
            .saturating_sub(limits::monoid_bytes(m) + Envelope::bytes_for(m.order));
        if room < closure::fixed_bytes(m.order) {
            return Err(memory);
        }
        let order = heap_order(phi.len() - 1, first);
        let first_limit = CLOSURE_FIRST
            .saturating_mul(m.order)
            .saturating_add(limits::MIN_STATES)
            .min(self.state_limit)
            .min((room - closure::fixed_bytes(m.order)) / closure::bytes_per_state(m.order));
        let mut c = Closure::new_on(m, first_limit.max(1), self.executor.clone());
        let stopped = || VerifyError::Quotient(QuotientError::Stopped { heap: n });
        let closed = match self.close(&mut c, m, phi, &order, stop) {
            Ok(()) => true,
            Err(ClosureError::TooMany) => false,
            Err(ClosureError::Stopped) => return Err(stopped()),
            Err(e) => {
                let states = c.len();
                drop(c);
                return Err(self.named_failure(n, m, phi, e, states, stop));
            }
        };
        drop(c);
        let mut env = Envelope::new(m);
        let verdict = order.iter().try_for_each(|&h| {
            env.add_heap_until(m, phi[h], &heap_options(&self.moves, m, phi, h), stop)
        });
        match (verdict, closed) {
            (Ok(()), _) => Ok(env),
            (Err(EnvelopeError::Stopped), _) => Err(stopped()),
            (Err(EnvelopeError::Fails), true) => {
                Err(VerifyError::Quotient(QuotientError::Disagreement {
                    heap: n,
                }))
            }
            (Err(EnvelopeError::Fails), false) => {
                drop(env);
                Err(self.failing_closure(n, m, phi, first, stop))
            }
        }
    }

    /// Adds the heaps `order` of a candidate (`m`, `phi`) to the closure `c`, up to the first
    /// error.
    fn close(
        &self,
        c: &mut Closure,
        m: &Monoid,
        phi: &[u32],
        order: &[usize],
        stop: &dyn Fn() -> bool,
    ) -> Result<(), ClosureError> {
        order.iter().try_for_each(|&h| {
            c.add_heap_until(h, phi[h], &heap_options(&self.moves, m, phi, h), stop)
        })
    }

    /// The closure of a candidate known to fail, over heaps `1 … phi.len() − 1` (`first`
    /// first), with as many states as the state limit and the memory left beside the
    /// candidate `m` allow: its least failing position (or why it found none).
    fn failing_closure(
        &self,
        n: usize,
        m: &Monoid,
        phi: &[u32],
        first: &[usize],
        stop: &dyn Fn() -> bool,
    ) -> VerifyError {
        let room = self
            .budget()
            .saturating_sub(limits::monoid_bytes(m) + closure::fixed_bytes(m.order));
        let by_memory = room / closure::bytes_per_state(m.order);
        if by_memory < limits::MIN_STATES {
            return VerifyError::Quotient(QuotientError::Memory {
                heap: n,
                limit: self.memory_limit,
                order: m.order,
            });
        }
        let limit = self.state_limit.min(by_memory);
        let mut c = Closure::new_on(m, limit, self.executor.clone());
        match self.close(&mut c, m, phi, &heap_order(phi.len() - 1, first), stop) {
            // The envelopes said it fails and the closure passed every position.
            Ok(()) => VerifyError::Quotient(QuotientError::Disagreement { heap: n }),
            Err(ClosureError::Stopped) => VerifyError::Quotient(QuotientError::Stopped { heap: n }),
            Err(ClosureError::TooMany) if limit < self.state_limit => {
                VerifyError::Quotient(QuotientError::Memory {
                    heap: n,
                    limit: self.memory_limit,
                    order: m.order,
                })
            }
            Err(e) => {
                let states = c.len();
                drop(c);
                self.named_failure(n, m, phi, e, states, stop)
            }
        }
    }

    /// The failure `e` (after `states` states) of the candidate `m`, `phi` as the
    /// recalibration is to see it: with [`FailureOrder::Least`], a failing position is
    /// replaced by the least one in the heap-count order ([`Closure::least_failure`]; kept as
    /// it is when that search passes the state limit or the memory left).
    fn named_failure(
        &self,
        n: usize,
        m: &Monoid,
        phi: &[u32],
        e: ClosureError,
        states: usize,
        stop: &dyn Fn() -> bool,
    ) -> VerifyError {
        if self.active_order != FailureOrder::Least || !matches!(e, ClosureError::Inconsistent(_)) {
            return VerifyError::Closure(e, states);
        }
        let room = self
            .budget()
            .saturating_sub(limits::monoid_bytes(m) + closure::fixed_bytes(m.order));
        let limit = self
            .state_limit
            .min(room / closure::bytes_per_state(m.order));
        let heaps: Vec<(u32, Vec<u32>)> = (1..phi.len())
            .map(|h| (phi[h], heap_options(&self.moves, m, phi, h)))
            .collect();
        let ClosureError::Inconsistent(bound) = &e else {
            unreachable!()
        };
        match Closure::least_failure(m, &heaps, Some(bound), limit.max(1), stop) {
            Ok(Some(p)) => VerifyError::Closure(ClosureError::Inconsistent(p), states),
            // The breadth-first closure found a failing position and this search none.
            Ok(None) => VerifyError::Quotient(QuotientError::Disagreement { heap: n }),
            Err(ClosureError::Stopped) => VerifyError::Quotient(QuotientError::Stopped { heap: n }),
            Err(_) => VerifyError::Closure(e, states),
        }
    }

    /// A verified quotient for heaps `0 … phi.len() − 1` becomes the solver's.
    fn commit(&mut self, m: Monoid, phi: Vec<u32>, envelope: Envelope) {
        let n = phi.len() - 1;
        self.m = m;
        self.phi = phi;
        self.envelope = envelope;
        self.heap_opts = (0..=n).map(|h| self.options_of_heap(h)).collect();
        self.word_opts = (0..self.m.order)
            .map(|a| self.options_of_word(&self.m.words[a].clone()))
            .collect();
        self.changes.push((n, self.m.order));
        self.certify();
    }

    /// The candidate in `self.m`, `self.phi` failed at `position`: free some heaps of the
    /// failing position (each becomes its own cyclic generator), rebuild, reduce, verify;
    /// repeat from each new failure (Plambeck and Siegel's recalibration by the least failing
    /// position, with our closure as the test).
    fn recalibrate(
        &mut self,
        n: usize,
        mut failure: ClosureError,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), QuotientError> {
        // Every failing position met at this heap: a candidate must be consistent at each
        // (a necessary condition, checked before its costly verification).
        let mut failures: Vec<Vec<usize>> = Vec::new();
        for round in 0..self.active_rounds {
            let position = self.failing_position(n, failure)?;
            failures.push(position.clone());
            let started = Instant::now();
            let mut built = 0;
            let mut involved: Vec<usize> = position.clone();
            involved.sort_unstable();
            involved.dedup();
            // The heaps of the last failing position, then (when wider, and none of those
            // gives a candidate) sets of at most `WIDER_SIZE` heaps of every failing position
            // met at this heap that are not sets of the first kind.
            let mut sets: Vec<Vec<usize>> = (1..=involved.len())
                .flat_map(|size| combinations(&involved, size))
                .collect();
            if self.wider {
                let mut pool: Vec<usize> = failures.iter().flatten().copied().collect();
                pool.sort_unstable();
                pool.dedup();
                for size in 1..=pool.len().min(WIDER_SIZE) {
                    sets.extend(
                        combinations(&pool, size)
                            .into_iter()
                            .filter(|c| c.iter().any(|h| !involved.contains(h))),
                    );
                }
            }
            let mut chosen = None;
            for subset in &sets {
                let free: Vec<(usize, usize, usize)> = subset
                    .iter()
                    .map(|&h| {
                        let (idx, _) = index_period(&self.m, self.phi[h]);
                        let e = position.iter().filter(|&&x| x == h).count();
                        (h, self.growth.index(idx, e), self.period)
                    })
                    .collect();
                built += 1;
                if let Some((m, phi, size)) = self.try_candidate(n, &free, &failures, stop)? {
                    chosen = Some((m, phi, size, free));
                    break;
                }
            }
            let Some((m, phi, size, free)) = chosen else {
                return Err(QuotientError::Refinement {
                    heap: n,
                    verified: round + 1,
                    exhausted: true,
                });
            };
            let tried = Tried {
                free,
                size,
                built,
                started,
            };
            match self.finish_attempt(n, &position, m, phi, tried, stop)? {
                None => return Ok(()),
                Some((e, m, phi, _)) => {
                    let old = std::mem::replace(&mut self.m, m);
                    self.recycle(old);
                    self.phi = phi;
                    failure = e;
                }
            }
        }
        Err(QuotientError::Refinement {
            heap: n,
            verified: self.active_rounds + 1,
            exhausted: false,
        })
    }

    /// The failing position of a candidate's verification at heap `n`, or the error its end
    /// means when it stopped for another reason (too many states, a stop asked for).
    fn failing_position(
        &self,
        n: usize,
        failure: ClosureError,
    ) -> Result<Vec<usize>, QuotientError> {
        match failure {
            ClosureError::TooMany => Err(QuotientError::TooManyStates {
                heap: n,
                limit: self.state_limit,
            }),
            ClosureError::Stopped => Err(QuotientError::Stopped { heap: n }),
            ClosureError::Inconsistent(p) => Ok(p),
        }
    }

    /// The candidate for heap `n` with the heaps `freed` freed from the quotient of heaps
    /// `0 … n − 1` (in `self.m`, `self.phi`) failed: add to the freed heaps some heaps of the
    /// failing position (a heap not yet freed becomes its own cyclic generator; a freed one
    /// with at least as many copies there as its index gets an index at least twice as large),
    /// smallest sets first, rebuild from the quotient of heaps `0 … n − 1`, and verify the
    /// first candidate right at every failing position met so far; repeat from each new
    /// failure.
    fn recalibrate_from_base(
        &mut self,
        n: usize,
        mut failure: ClosureError,
        mut freed: Vec<(usize, usize, usize)>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), QuotientError> {
        let mut failures: Vec<Vec<usize>> = Vec::new();
        for round in 0..self.active_rounds {
            let position = self.failing_position(n, failure)?;
            failures.push(position.clone());
            let started = Instant::now();
            let mut involved = position.clone();
            involved.sort_unstable();
            involved.dedup();
            let proposals: Vec<(usize, usize, usize)> = involved
                .iter()
                .filter_map(|&h| {
                    let copies = position.iter().filter(|&&x| x == h).count();
                    match freed.iter().find(|f| f.0 == h) {
                        Some(&(_, i, p)) => (copies >= i).then(|| (h, (2 * i).max(copies + 1), p)),
                        None => {
                            let (idx, _) = index_period(&self.m, self.phi[h]);
                            Some((h, idx.max(copies) + 1, 2))
                        }
                    }
                })
                .collect();
            let picks: Vec<usize> = (0..proposals.len()).collect();
            let mut chosen = None;
            let mut built = 0;
            'search: for size in 1..=picks.len() {
                for subset in combinations(&picks, size) {
                    let mut free = freed.clone();
                    for &k in &subset {
                        let pr = proposals[k];
                        match free.iter_mut().find(|f| f.0 == pr.0) {
                            Some(f) => *f = pr,
                            None => free.push(pr),
                        }
                    }
                    built += 1;
                    if let Some((m, phi, size)) = self.try_candidate(n, &free, &failures, stop)? {
                        chosen = Some((free, m, phi, size));
                        break 'search;
                    }
                }
            }
            let Some((free, m, phi, size)) = chosen else {
                return Err(QuotientError::Refinement {
                    heap: n,
                    verified: round + 1,
                    exhausted: true,
                });
            };
            let tried = Tried {
                free,
                size,
                built,
                started,
            };
            match self.finish_attempt(n, &position, m, phi, tried, stop)? {
                None => return Ok(()),
                Some((e, _, _, free)) => {
                    freed = free;
                    failure = e;
                }
            }
        }
        Err(QuotientError::Refinement {
            heap: n,
            verified: self.active_rounds + 1,
            exhausted: false,
        })
    }

    /// The end of a recalibration's round: verifies the candidate `m`, `phi` chosen for
    /// heap `n` after a failure at `position` (that position's heaps first), records it
    /// ([`Attempt`]) and, when it passes, commits it: `None`. When it fails, its failure, the
    /// candidate and its freed heaps come back for the next round; memory and stop errors end
    /// the heap.
    #[allow(clippy::type_complexity)]
    fn finish_attempt(
        &mut self,
        n: usize,
        position: &[usize],
        m: Monoid,
        phi: Vec<u32>,
        tried: Tried,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<(ClosureError, Monoid, Vec<u32>, Vec<(usize, usize, usize)>)>, QuotientError>
    {
        let build_ms = tried.started.elapsed().as_millis() as u64;
        let verifying = Instant::now();
        let mut first = vec![n];
        first.extend(position.iter());
        let verdict = self.verify_full(n, &m, &phi, &first, stop);
        self.record(attempt(
            n,
            tried.free.clone(),
            tried.size,
            m.order,
            tried.built,
            build_ms,
            verifying,
            &verdict,
        ));
        match verdict {
            Ok(envelope) => {
                self.commit(m, phi, envelope);
                Ok(None)
            }
            Err(VerifyError::Quotient(e)) => Err(e),
            Err(VerifyError::Closure(e, _)) => Ok(Some((e, m, phi, tried.free))),
        }
    }

    fn certify(&mut self) {
        if self.certified.is_some() {
            return;
        }
        let mut checker = PeriodChecker::for_theorem_t(theorem_t(&self.rule));
        self.certified = checker.settle_slice(&self.phi).cloned();
    }

    /// The period of `Φ` best supported by the heaps done (the certified one once there is
    /// one), for reports.
    pub fn period(&self) -> Option<Period> {
        if let Some(p) = &self.certified {
            return Some(p.clone());
        }
        PeriodChecker::for_theorem_t(Some(theorem_t(&self.rule).unwrap_or(0)))
            .best_candidate_slice(&self.phi)
    }

    /// Everything the `quotient` command reports (its table shares the solver's: no copy).
    pub fn report(&self) -> QuotientReport {
        let mut r = self.report_without_table();
        r.table = ProductTable::of(self.m.order, self.m.table.clone());
        r
    }

    /// [`QuotientSolver::report`], giving up the solver: its table moves into the report as
    /// it is (`u16` ids up to order 2^16), so the report holds no table bytes beyond those
    /// the memory limit counted for the quotient ([`limits::monoid_bytes`]).
    pub fn into_report(mut self) -> QuotientReport {
        let mut r = self.report_without_table();
        let table = std::mem::replace(&mut self.m.table, Table::from_u32(1, vec![0]));
        r.table = ProductTable::of(self.m.order, table);
        r
    }

    fn report_without_table(&self) -> QuotientReport {
        let m = &self.m;
        let pres = presentation(m, &self.phi);
        let period = self.period();
        let stable_from = self.changes.last().map_or(0, |c| c.0);
        QuotientReport {
            game: self.rule.code(),
            order: m.order,
            p_count: m.p.iter().filter(|&&b| b).count(),
            certified: self.certified.is_some(),
            certified_at: self.certified.as_ref().map(|_| self.phi.len() - 1),
            last_heap: self.phi.len() - 1,
            stable_from,
            preperiod: period.as_ref().map(|p| p.preperiod),
            period: period.as_ref().map(|p| p.period),
            heaps: self.phi.clone(),
            identity: 0,
            p: (0..m.order as u32).filter(|&e| m.p[e as usize]).collect(),
            table: ProductTable::left_out(m.order),
            presentation: pres.text(),
            generators: (0..pres.generators.len())
                .map(|i| Generator {
                    name: monoid::generator_name(i),
                    element: pres.generators[i],
                    heap: pres.generator_heaps[i],
                })
                .collect(),
            elements: (0..m.order as u32).map(|e| pres.element_text(e)).collect(),
            changes: self.changes.clone(),
            states: self.envelope.len(),
            stopped: None,
        }
    }
}

/// A generator of the presentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Generator {
    /// Its name (`a`, `b`, …).
    pub name: String,
    /// Its element.
    pub element: u32,
    /// The first heap with that element.
    pub heap: usize,
}

/// The quotient of heaps `0 … last_heap` of a game, as `quotient --json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuotientReport {
    /// The canonical game code.
    pub game: String,
    /// `|Q|`.
    pub order: usize,
    /// `|P|`.
    pub p_count: usize,
    /// Is this the quotient of the whole game (heaps of every size)?
    pub certified: bool,
    /// The last heap computed when certified.
    pub certified_at: Option<usize>,
    /// The last heap computed.
    pub last_heap: usize,
    /// The heap since which the quotient has not changed.
    pub stable_from: usize,
    /// The preperiod of `Φ` (certified, or the best candidate).
    pub preperiod: Option<u64>,
    /// The period of `Φ` (certified, or the best candidate).
    pub period: Option<u64>,
    /// The element of each heap `0 … last_heap`.
    pub heaps: Vec<u32>,
    /// The identity's id (always 0).
    pub identity: u32,
    /// The ids in P.
    pub p: Vec<u32>,
    /// `table[a][b]` = the id of `a·b` (rows, streamed; `null` when left out).
    pub table: ProductTable,
    /// Generators and relations.
    pub presentation: String,
    /// The generators.
    pub generators: Vec<Generator>,
    /// Each element as a word in the generators.
    pub elements: Vec<String>,
    /// `[heap, order]` at heap 0 and wherever the quotient changed.
    pub changes: Vec<(usize, usize)>,
    /// Classes of positions (element, has a move) reached by the verification of the
    /// quotient ([`envelope`]): at most twice its order.
    pub states: usize,
    /// Why the computation ended before a certificate (`null` when certified): the heap limit,
    /// an interruption, or an error.
    pub stopped: Option<String>,
}

/// Computes the quotient of `rule` heap by heap until it is certified or heap `max_heap` is
/// done, calling `progress(heap, solver)` after each heap; `progress` returning
/// `ControlFlow::Break` stops early (the heaps done are kept).
pub fn compute(
    rule: &Rule,
    max_heap: usize,
    state_limit: usize,
    progress: impl FnMut(usize, &QuotientSolver) -> std::ops::ControlFlow<()>,
) -> (QuotientSolver, Option<QuotientError>) {
    compute_until(
        rule,
        max_heap,
        Limits {
            states: state_limit,
            memory: usize::MAX,
        },
        &|| false,
        progress,
    )
}

/// The limits of one quotient computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// States of a verification closure.
    pub states: usize,
    /// Bytes held at once ([`QuotientSolver::with_memory_limit`]).
    pub memory: usize,
}

/// [`compute`] within `limits`, with `stop` looked at during each heap (between candidates
/// and every few hundred states of a verification): when it returns true the computation
/// ends within milliseconds with [`QuotientError::Stopped`] and the heaps done before.
pub fn compute_until(
    rule: &Rule,
    max_heap: usize,
    limits: Limits,
    stop: &dyn Fn() -> bool,
    progress: impl FnMut(usize, &QuotientSolver) -> std::ops::ControlFlow<()>,
) -> (QuotientSolver, Option<QuotientError>) {
    let s = QuotientSolver::new(rule, limits.states).with_memory_limit(limits.memory);
    compute_from(s, max_heap, stop, progress)
}

/// [`compute_until`] from a solver made by the caller (heap 0 alone, with its threads
/// ([`QuotientSolver::with_executor`]), memory and candidate limits, trace): the same heaps,
/// the same stops.
pub fn compute_from(
    mut s: QuotientSolver,
    max_heap: usize,
    stop: &dyn Fn() -> bool,
    mut progress: impl FnMut(usize, &QuotientSolver) -> std::ops::ControlFlow<()>,
) -> (QuotientSolver, Option<QuotientError>) {
    while s.count() <= max_heap && s.certified().is_none() {
        if let Err(e) = s.step_until(stop) {
            // Keep the heaps before the failing one.
            return (s, Some(e));
        }
        if progress(s.count() - 1, &s).is_break() {
            break;
        }
    }
    (s, None)
}

/// The old element heap `n` is, if it is one: the `a` of the quotient `m` of heaps
/// `0 … n − 1` such that column `k` of `P_M` (`cols`, index `mu`, see the module text) is
/// `P/a^k = { z : a^k·z ∈ P }` for every `k`, and `a^(mu+p) = a^mu` (`p` the columns' period).
/// Exactly then the reduction of `M = Q × C` merges nothing beyond `Q` and puts `(1, x)` in
/// `a`'s class: `(z, k) ↦ z·a^k` is then a homomorphism of `M` onto `Q` (well defined since
/// `a^(mu+p) = a^mu`) under which `P_M` is the preimage of `P`, so, `Q` being reduced, its
/// fibres are the classes of the reduction; conversely, when the reduction leaves `|Q|`
/// classes with `(1, x)` in `a`'s, `(z, k)` is in the class of `z·a^k`, which gives both
/// conditions. `a` is found by column 1 among the rows `P/t` the envelopes of `m` keep (one
/// at most: `Q` is reduced), then every column is checked: O(|Q|·columns) against the
/// reduction's O(|Q|·columns·generators) a round.
fn old_element(m: &Monoid, env: &Envelope, mu: usize, cols: &[Vec<bool>]) -> Option<u32> {
    let q = m.order;
    let a = match cols.get(1) {
        // One column: `x = 1`, the identity.
        None => 0,
        Some(col) => {
            let mut bits = vec![0u64; q.div_ceil(64)];
            for (z, _) in col.iter().enumerate().filter(|&(_, &b)| b) {
                bits[z / 64] |= 1 << (z % 64);
            }
            env.element_with_row(&bits)?
        }
    };
    // `a^k`, from the identity.
    let (mut power, mut at_mu) = (0u32, 0u32);
    for (k, col) in cols.iter().enumerate() {
        if k == mu {
            at_mu = power;
        }
        let row = power as usize * q;
        let agrees = |(z, &c): (usize, &bool)| c == m.p[m.table.get(row + z) as usize];
        if k > 0 && !col.iter().enumerate().all(agrees) {
            return None;
        }
        power = m.mul(power, a);
    }
    (power == at_mu).then_some(a)
}

/// The distinct elements of the options of heap `h` under `phi` in `m`.
fn heap_options(moves: &MoveSet, m: &Monoid, phi: &[u32], h: usize) -> Vec<u32> {
    let mut out = Vec::new();
    crate::rules::for_each_option(moves, h, |parts| {
        let mut e = 0u32;
        for &x in parts {
            e = m.mul(e, phi[x]);
        }
        out.push(e);
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// Heaps `1 … last` in the order the verification adds them: `first` (without repeats), then
/// the others upwards. Heaps a candidate is likely to get wrong (the new heap, those of the
/// last failing position) come first, so that a failure shows among few states; the closure
/// is the same set of states in any order.
fn heap_order(last: usize, first: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; last + 1];
    seen[0] = true;
    let mut out = Vec::with_capacity(last);
    for &h in first.iter().chain(&(1..=last).collect::<Vec<_>>()) {
        if !seen[h] {
            seen[h] = true;
            out.push(h);
        }
    }
    out
}

/// The record of a candidate verified in a recalibration.
#[allow(clippy::too_many_arguments)]
fn attempt(
    heap: usize,
    free: Vec<(usize, usize, usize)>,
    size: usize,
    order: usize,
    built: usize,
    build_ms: u64,
    verifying: Instant,
    verdict: &Result<Envelope, VerifyError>,
) -> Attempt {
    let (failure, states) = match verdict {
        Ok(e) => (None, e.len()),
        Err(VerifyError::Closure(ClosureError::Inconsistent(p), s)) => (Some(p.clone()), *s),
        Err(VerifyError::Closure(_, s)) => (None, *s),
        Err(VerifyError::Quotient(_)) => (None, 0),
    };
    Attempt {
        heap,
        free,
        size,
        order,
        built,
        failure,
        states,
        build_ms,
        verify_ms: verifying.elapsed().as_millis() as u64,
    }
}

/// `(index, period)` of `x` in `m`: the least `i` and `p ≥ 1` with `x^(i+p) = x^i`.
fn index_period(m: &Monoid, x: u32) -> (usize, usize) {
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut e = 0u32;
    for i in 0.. {
        if let Some(&j) = seen.get(&e) {
            return (j, i - j);
        }
        seen.insert(e, i);
        e = m.mul(e, x);
    }
    unreachable!()
}

/// Every `size`-element subset of `items`, in lexicographic order.
fn combinations(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    fn rec(
        items: &[usize],
        size: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == size {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            rec(items, size, i + 1, cur, out);
            cur.pop();
        }
    }
    rec(items, size, 0, &mut Vec::new(), &mut out);
    out
}

/// No class, no generator (in the plan of a table's rows).
const NONE: u32 = u32::MAX;

/// Writes the rows of a zeroed table of `count` elements: row `c` is the identity's when
/// `plan[c].0` is [`NONE`], else row `plan[c].0` (written before it) mapped through the
/// multiplication by generator `plan[c].1` (`red_gen`), or copied when that is [`NONE`].
fn fill_rows<T: monoid::Id>(
    table: &mut [T],
    count: usize,
    plan: &[(u32, u32)],
    red_gen: &[Vec<u32>],
    stop: &dyn Fn() -> bool,
) -> Result<(), Build> {
    for (c2, &(prev, gi)) in plan.iter().enumerate() {
        if c2 % 64 == 63 && stop() {
            return Err(Build::Stopped);
        }
        let (done, rest) = table.split_at_mut(c2 * count);
        let row_out = &mut rest[..count];
        if prev == NONE {
            for (c1, o) in row_out.iter_mut().enumerate() {
                *o = T::of(c1 as u32);
            }
            continue;
        }
        let prev = prev as usize;
        debug_assert!(prev < c2);
        let row_prev = &done[prev * count..(prev + 1) * count];
        if gi == NONE {
            row_out.copy_from_slice(row_prev);
        } else {
            let step: &[u32] = &red_gen[gi as usize];
            for (o, &x) in row_out.iter_mut().zip(row_prev) {
                *o = T::of(step[x.ix()]);
            }
        }
    }
    Ok(())
}

/// Writes every entry of a zeroed table of `count` elements, row by row: `(c1, c2)` is
/// `product(c1, c2)`.
fn fill_entries<T: monoid::Id>(
    table: &mut [T],
    count: usize,
    product: impl Fn(usize, usize) -> u32,
) {
    for (c1, row) in table.chunks_exact_mut(count).enumerate() {
        for (c2, o) in row.iter_mut().enumerate() {
            *o = T::of(product(c1, c2));
        }
    }
}

/// Most elements of an unreduced candidate.
pub(crate) const MAX_CANDIDATE: usize = 1 << 18;

/// Most elements of a reduced candidate (its table is `MAX_ORDER²` ids of 2 bytes: 512 MiB).
const MAX_ORDER: usize = 1 << 14;

/// The largest candidates a recalibration builds; larger ones are skipped (the memory limit
/// is looked at besides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidateLimits {
    /// Elements before reduction ([`MAX_CANDIDATE`] by default).
    pub size: usize,
    /// Elements after reduction ([`MAX_ORDER`] by default: a table of 512 MiB).
    pub order: usize,
    /// Candidates verified after the first failed one before a heap gives up
    /// ([`MAX_RECALIBRATIONS`] by default).
    pub recalibrations: usize,
}

impl Default for CandidateLimits {
    fn default() -> CandidateLimits {
        CandidateLimits {
            size: MAX_CANDIDATE,
            order: MAX_ORDER,
            recalibrations: MAX_RECALIBRATIONS,
        }
    }
}

/// A candidate for heaps `0 … base_phi.len() − 1`: the submonoid `R` of `base` generated by
/// the heaps not freed, times a cyclic monoid `{1, x, …, x^(m+p−1)}` (`x^(m+p) = x^m`) for
/// each freed heap `(heap, m, p)`; `P` by the misère rule over least words (in least-word
/// order, every option's element comes first); reduced and numbered by least word. `None`
/// when it would be too large (more than [`MAX_CANDIDATE`] elements, or [`MAX_ORDER`] reduced).
pub fn build_candidate(
    moves: &MoveSet,
    base: &Monoid,
    base_phi: &[u32],
    free: &[(usize, usize, usize)],
) -> Option<(Monoid, Vec<u32>)> {
    build_candidate_within(moves, base, base_phi, free, usize::MAX, &|| false).ok()
}

/// Why [`build_candidate_within`] gave no candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// Past [`MAX_CANDIDATE`] elements, or [`MAX_ORDER`] reduced: the search skips it.
    TooLarge,
    /// Its tables would pass the bytes given; the number is the order that did not fit
    /// (unreduced, or reduced).
    Memory(usize),
    /// The stop check asked to stop.
    Stopped,
}

/// How a recalibration's candidate was found: its freed heaps, its order before reduction,
/// the candidates built to find it, and when the search for it started.
struct Tried {
    free: Vec<(usize, usize, usize)>,
    size: usize,
    built: usize,
    started: Instant,
}

/// Why a verification ended without a closure.
#[derive(Debug)]
enum VerifyError {
    /// The candidate failed (a failing position) or met the state limit, with the states
    /// of the verification then.
    Closure(ClosureError, usize),
    /// The step cannot go on (memory, stop).
    Quotient(QuotientError),
}

/// [`build_candidate`] within `budget` bytes (its tables are sized before they are allocated,
/// and the reduced one must leave room for a verification), calling `stop` in its long loops.
pub fn build_candidate_within(
    moves: &MoveSet,
    base: &Monoid,
    base_phi: &[u32],
    free: &[(usize, usize, usize)],
    budget: usize,
    stop: &dyn Fn() -> bool,
) -> Result<(Monoid, Vec<u32>), Build> {
    build_sized(
        moves,
        base,
        base_phi,
        free,
        (budget, CandidateLimits::default()),
        &mut None,
        stop,
    )
    .map(|(m, phi, _)| (m, phi))
}

/// [`build_candidate_within`], with the candidate's order before reduction; its table in the
/// buffer of `spare` when it takes it (its bytes are then the candidate's; they are counted
/// within `budget` all along).
fn build_sized(
    moves: &MoveSet,
    base: &Monoid,
    base_phi: &[u32],
    free: &[(usize, usize, usize)],
    (budget, limits_of): (usize, CandidateLimits),
    spare: &mut Option<Ids>,
    stop: &dyn Fn() -> bool,
) -> Result<(Monoid, Vec<u32>, usize), Build> {
    let spare_bytes = spare.as_ref().map_or(0, Ids::bytes);
    let last = base_phi.len() - 1;
    let freed = |h: usize| free.iter().position(|f| f.0 == h);
    // R with least words over the heaps not freed, heap by heap upwards.
    let mut r_elems: Vec<u32> = vec![0];
    let mut r_words: Vec<Vec<usize>> = vec![Vec::new()];
    let mut r_index: Vec<u32> = vec![u32::MAX; base.order];
    r_index[0] = 0;
    for (h, &g) in base_phi.iter().enumerate().skip(1) {
        if freed(h).is_some() {
            continue;
        }
        if r_index[g as usize] != u32::MAX {
            continue;
        }
        let before = r_elems.len();
        let mut layer: Vec<u32> = r_elems.clone();
        for k in 1.. {
            let mut added = false;
            for i in 0..before {
                let e = base.mul(layer[i], g);
                layer[i] = e;
                if r_index[e as usize] == u32::MAX {
                    r_index[e as usize] = r_elems.len() as u32;
                    let mut w = vec![h; k];
                    w.extend_from_slice(&r_words[i]);
                    r_elems.push(e);
                    r_words.push(w);
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
    }
    // M = R × Π C_i, flat mixed-radix index (R fastest).
    let radix: Vec<usize> = free.iter().map(|f| f.1 + f.2).collect();
    let size = radix
        .iter()
        .try_fold(r_elems.len(), |acc, &r| acc.checked_mul(r))
        .ok_or(Build::TooLarge)?;
    if size > limits_of.size {
        return Err(Build::TooLarge);
    }
    let rn = r_elems.len();
    {
        let word_len = r_words.iter().map(Vec::len).max().unwrap_or(0)
            + radix.iter().map(|r| r - 1).sum::<usize>();
        if limits::candidate_bytes(size, last + 1, word_len) + spare_bytes > budget {
            return Err(Build::Memory(size));
        }
    }
    // Mixed-radix arithmetic without allocation: element = r + rn·(k_0 + radix_0·(k_1 + …)).
    let cap = |i: usize, s: usize| {
        let (_, m, p) = free[i];
        if s < m + p {
            s
        } else {
            m + (s - m) % p
        }
    };
    let mul = |mut a: usize, mut b: usize| -> usize {
        let r = r_index[base.mul(r_elems[a % rn], r_elems[b % rn]) as usize] as usize;
        a /= rn;
        b /= rn;
        let (mut out, mut place) = (r, rn);
        for (i, &rad) in radix.iter().enumerate() {
            let k = cap(i, a % rad + b % rad);
            a /= rad;
            b /= rad;
            out += k * place;
            place *= rad;
        }
        out
    };
    // The element of one copy of freed heap i.
    let unit_of = |i: usize| rn * radix[..i].iter().product::<usize>();
    let phi_m: Vec<usize> = (0..=last)
        .map(|h| match freed(h) {
            Some(i) => unit_of(i),
            None => r_index[base_phi[h] as usize] as usize,
        })
        .collect();
    // Multiplication by each distinct heap element, tabulated.
    let mut gens: Vec<usize> = phi_m.iter().copied().filter(|&g| g != 0).collect();
    gens.sort_unstable();
    gens.dedup();
    let gen_of = |e: usize| gens.binary_search(&e).ok();
    let mut by_gen: Vec<Vec<u32>> = Vec::with_capacity(gens.len());
    for &g in &gens {
        if stop() {
            return Err(Build::Stopped);
        }
        // `e·g` by parts: the R part of `e = r + rn·k` times `g`'s, and its cyclic parts
        // times `g`'s, each tabulated once (no division an element).
        let (rg, kg) = (g % rn, g / rn);
        let r_times: Vec<u32> = (0..rn)
            .map(|r| r_index[base.mul(r_elems[r], r_elems[rg]) as usize])
            .collect();
        let mut row: Vec<u32> = Vec::with_capacity(size);
        for k in 0..size / rn {
            let high = mul(k * rn, kg * rn) as u32;
            row.extend(r_times.iter().map(|&r| high + r));
        }
        debug_assert!((0..size).all(|e| row[e] as usize == mul(e, g)));
        by_gen.push(row);
    }
    let times_heap = |e: usize, h: usize| -> usize {
        match gen_of(phi_m[h]) {
            Some(gi) => by_gen[gi][e] as usize,
            None => e,
        }
    };
    // Least words, and the order they give.
    let word = |e: usize| -> Vec<usize> {
        let r = e % rn;
        let mut rest = e / rn;
        let mut w = r_words[r].clone();
        for (i, &rad) in radix.iter().enumerate() {
            w.extend(std::iter::repeat_n(free[i].0, rest % rad));
            rest /= rad;
        }
        w.sort_unstable_by(|a, b| b.cmp(a));
        w
    };
    let words: Vec<Vec<usize>> = (0..size).map(word).collect();
    let mut order: Vec<usize> = (0..size).collect();
    order.sort_by(|&a, &b| monoid::word_cmp(&words[a], &words[b]));
    let mut rank = vec![0usize; size];
    for (i, &e) in order.iter().enumerate() {
        rank[e] = i;
    }
    // The distinct elements of each heap's options.
    let mut heap_opts: Vec<Option<Vec<usize>>> = vec![None; last + 1];
    // A least word without one copy of heap `h`, as an element: a freed heap's exponent is
    // its count in the word (below its radix), so one copy less is one unit less; for a heap
    // of the R part, the R part of the element changes to that of its word without `h`
    // (an element of R, as R is closed under products of its heaps). Tabulated per R element
    // and distinct heap of its word, so that each option costs one look-up instead of a
    // product over the whole word.
    let units: Vec<usize> = (0..free.len()).map(unit_of).collect();
    let mut r_rest: Vec<Vec<(usize, u32)>> = Vec::with_capacity(rn);
    for w in &r_words {
        let mut out: Vec<(usize, u32)> = Vec::new();
        for (i, &h) in w.iter().enumerate() {
            if out.iter().any(|&(x, _)| x == h) {
                continue;
            }
            let e = w
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .fold(0u32, |f, (_, &x)| base.mul(f, base_phi[x]));
            out.push((h, r_index[e as usize]));
        }
        r_rest.push(out);
    }
    let without = |e: usize, h: usize| -> usize {
        match freed(h) {
            Some(i) => e - units[i],
            None => {
                let r = e % rn;
                let (_, r2) = r_rest[r]
                    .iter()
                    .find(|&&(x, _)| x == h)
                    .expect("a heap of the word");
                e - r + *r2 as usize
            }
        }
    };
    // P in least-word order: the options of `w` are, for each distinct heap `h` of `w`, the
    // element of `w` without one `h` times each option element of `h`.
    let mut in_p = vec![false; size];
    for (i, &e) in order.iter().enumerate() {
        if i % 4096 == 4095 && stop() {
            return Err(Build::Stopped);
        }
        let w = &words[e];
        let mut moved = false;
        let mut any_p = false;
        for (i, &h) in w.iter().enumerate() {
            if i > 0 && w[i - 1] == h {
                continue;
            }
            let opts = heap_opts[h].get_or_insert_with(|| {
                let mut o = Vec::new();
                crate::rules::for_each_option(moves, h, |parts| {
                    o.push(parts.iter().fold(0, |f, &x| times_heap(f, x)));
                });
                o.sort_unstable();
                o.dedup();
                o
            });
            if opts.is_empty() {
                continue;
            }
            moved = true;
            let rest = without(e, h);
            debug_assert_eq!(
                rest,
                w.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .fold(0, |f, (_, &x)| times_heap(f, x))
            );
            for &y in opts.iter() {
                let f = mul(rest, y);
                debug_assert!(rank[f] < rank[e]);
                if in_p[f] {
                    any_p = true;
                    break;
                }
            }
            if any_p {
                break;
            }
        }
        in_p[e] = moved && !any_p;
    }
    // Reduce, over the rank order so that classes are numbered by least word.
    let (class, count) = monoid::reduce(
        size,
        &|i| in_p[order[i]],
        &|i, g| rank[by_gen[g][order[i]] as usize],
        gens.len(),
    );
    if count > limits_of.order {
        // Its table alone would take gigabytes (0.07's heap 34 met such candidates and the run
        // was killed at 8 GB): the search skips it.
        return Err(Build::TooLarge);
    }
    let mut rep = vec![usize::MAX; count];
    for (i, &c) in class.iter().enumerate() {
        if rep[c as usize] == usize::MAX {
            rep[c as usize] = order[i];
        }
    }
    // The reduced table by look-ups only: `c1·c2` is `c1` times the heaps of `c2`'s least
    // word one by one, and multiplying by a heap's element is well defined on classes.
    let red_gen: Vec<Vec<u32>> = by_gen
        .iter()
        .map(|row| {
            (0..count)
                .map(|c| class[rank[row[rep[c]] as usize]])
                .collect()
        })
        .collect();
    // The monoid is commutative, so column `c2` is row `c2`, and it is row `c'` times the
    // first heap `h` of `c2`'s least word, `c'` the class of the word without that heap: a
    // smaller word, so a class numbered before `c2` whose row is written already. One pass a
    // row, by look-ups (the first version wrote the table column by column, missing the cache
    // on every element, 65 % of a candidate's construction at order 9,000; the second made a
    // pass a heap of the word). `plan[c2]` is `(c', h's generator)`, `NONE` for the identity's
    // row and for a heap whose element is the identity.
    let plan: Vec<(u32, u32)> = rep
        .iter()
        .map(|&e| match words[e].first() {
            None => (NONE, NONE),
            Some(&h) => (
                class[rank[without(e, h)]],
                gen_of(phi_m[h]).map_or(NONE, |g| g as u32),
            ),
        })
        .collect();
    let p: Vec<bool> = rep.iter().map(|&e| in_p[e]).collect();
    let rep_words: Vec<Vec<usize>> = rep.iter().map(|&e| words[e].clone()).collect();
    let phi: Vec<u32> = phi_m.iter().map(|&e| class[rank[e]]).collect();
    // The unreduced candidate is given back before the reduced table is made: only the table
    // (the narrowest ids that hold its order), its least words and room to verify it are held.
    drop((words, by_gen, order, rank, class, in_p, heap_opts));
    let word_len = rep_words.iter().map(Vec::len).max().unwrap_or(0);
    if limits::table_bytes(count).max(spare_bytes)
        + count * (24 + 8 * word_len + 8 + 1)
        + red_gen.len() * count * 4
        + limits::closure_floor(count)
        > budget
    {
        return Err(Build::Memory(count));
    }
    let mut ids = Ids::zeroed_reusing(count, spare.take());
    match &mut ids {
        Ids::Narrow(t) => fill_rows(t, count, &plan, &red_gen, stop)?,
        Ids::Wide(t) => fill_rows(t, count, &plan, &red_gen, stop)?,
    }
    let m = Monoid {
        order: count,
        table: Table::new(ids),
        p,
        words: rep_words,
    };
    Ok((m, phi, size))
}
