//! One object through which engines run parallel work: either the calling thread alone, or a
//! rayon pool of a chosen size. Switching to one thread turns every parallel path into the plain
//! serial loop, for profiling and debugging; results never depend on the thread count.
//!
//! Work in many short rounds (the sparse engine's blocks, a few hundred microseconds each) runs
//! with a [`Crew`]: the pool's other threads stay with the caller for the rounds and spin
//! between them, so a round reaches them without a sleeping thread being woken.

use std::cell::UnsafeCell;
use std::fmt;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};

use thiserror::Error;

/// The thread pool could not be started.
#[derive(Debug, Error)]
#[error("cannot start {threads} worker threads: {reason}")]
pub struct ExecutorError {
    /// Threads asked for.
    pub threads: usize,
    /// What the system said.
    pub reason: String,
}

/// Runs engine work on one thread or on a rayon pool.
#[derive(Clone, Default)]
pub struct Executor {
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Executor({} threads)", self.threads())
    }
}

impl Executor {
    /// The calling thread alone.
    pub fn serial() -> Executor {
        Executor { pool: None }
    }

    /// `threads` workers; 0 means one per core. One thread is the serial executor.
    pub fn new(threads: usize) -> Result<Executor, ExecutorError> {
        let threads = if threads == 0 {
            available_threads()
        } else {
            threads
        };
        if threads <= 1 {
            return Ok(Executor::serial());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("nimseq-{i}"))
            .build()
            .map_err(|e| ExecutorError {
                threads,
                reason: e.to_string(),
            })?;
        Ok(Executor {
            pool: Some(Arc::new(pool)),
        })
    }

    /// Number of threads work is spread over.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Runs `f` on a thread of the pool (or on the calling thread when there is none), so that
    /// the parallel work it hands out does not compete with one more thread for the cores.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            None => f(),
            Some(pool) => pool.install(f),
        }
    }

    /// Runs `body` with a [`Crew`]: the other threads of the pool kept at hand for rounds of
    /// shared work ([`Crew::round`]) until `body` returns. With no pool, `body` alone on the
    /// calling thread (each round's work then runs there).
    pub(crate) fn crew<R: Send>(&self, body: impl FnOnce(&Crew<'_>) -> R + Send) -> R {
        match &self.pool {
            None => body(&Crew::alone()),
            Some(pool) => pool.install(|| {
                let state = CrewState::default();
                rayon::scope(|s| {
                    for _ in 1..pool.current_num_threads() {
                        s.spawn(|_| state.serve());
                    }
                    // Sends the helpers home however `body` ends, so that the scope can end.
                    struct Dismiss<'s>(&'s CrewState);
                    impl Drop for Dismiss<'_> {
                        fn drop(&mut self) {
                            self.0.stop.store(true, SeqCst);
                            self.0.wake_all();
                        }
                    }
                    let _dismiss = Dismiss(&state);
                    body(&Crew {
                        state: Some(&state),
                    })
                })
            }),
        }
    }
}

/// The threads of a pool besides the calling one, kept awake between rounds of work. Each
/// round's work reaches them in about a microsecond: 0.7–0.9 µs on average over the sparse
/// engine's blocks, against 0.9–7.6 µs with a new rayon job per round, which waits whenever
/// its thread has gone to sleep (Officers 2^22 on two threads, AMD EPYC Zen 4; `results/bench.md`).
/// Made by [`Executor::crew`].
///
/// Between rounds a helper spins for [`CREW_SPIN`], then sleeps until the next round.
pub(crate) struct Crew<'s> {
    state: Option<&'s CrewState>,
}

/// How long a helper of a [`Crew`] spins for the next round before it sleeps: rounds of the
/// sparse engine follow each other within microseconds, but nothing else should pay for
/// more than a short spin.
pub(crate) const CREW_SPIN: std::time::Duration = std::time::Duration::from_micros(50);

impl Crew<'_> {
    /// A crew of no helpers: rounds run on the calling thread alone.
    pub(crate) fn alone() -> Crew<'static> {
        Crew { state: None }
    }

    /// Whether the crew has no helpers.
    pub(crate) fn is_alone(&self) -> bool {
        self.state.is_none()
    }

    /// Runs `main` on the calling thread and `helper` on each helper at once, and returns what
    /// `main` returns once every helper that started `helper` has returned. With no helpers,
    /// `main` then `helper` on the calling thread. Work they share must be taken, not given: a
    /// helper may join a round late, or (when the pool is busy elsewhere) not at all. A panic
    /// in `helper` reaches the caller here.
    pub(crate) fn round<R>(&self, main: impl FnOnce() -> R, helper: &(dyn Fn() + Sync)) -> R {
        let Some(state) = self.state else {
            let r = main();
            helper();
            return r;
        };
        // SAFETY: the job is only called while the round is open or by a helper counted in
        // `running`, and `Close` (below) waits for both to end before this function returns
        // (or unwinds), so the reference never outlives `helper`. No helper reads `job` now:
        // the last round is closed and no helper is running it.
        unsafe {
            let job: &'static (dyn Fn() + Sync) = std::mem::transmute(helper);
            *state.job.get() = Some(job as *const _);
        }
        state.open.store(true, SeqCst);
        state.round.fetch_add(1, SeqCst);
        if state.sleepers.load(SeqCst) > 0 {
            state.wake_all();
        }
        struct Close<'s>(&'s CrewState);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                let state = self.0;
                state.open.store(false, SeqCst);
                let mut spins = 0u32;
                while state.running.load(SeqCst) > 0 {
                    spins += 1;
                    if spins.is_multiple_of(1024) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
            }
        }
        let close = Close(state);
        let r = main();
        drop(close);
        if let Some(panic) = lock(&state.panic).take() {
            std::panic::resume_unwind(panic);
        }
        r
    }
}

/// What the helpers of a [`Crew`] share.
#[derive(Default)]
struct CrewState {
    /// The job of the round being run (written only while no round is open and no helper runs
    /// one).
    job: UnsafeCell<Option<*const (dyn Fn() + Sync)>>,
    /// Rounds opened so far.
    round: AtomicU64,
    /// Whether a round is open: helpers may start its job.
    open: AtomicBool,
    /// Helpers running a job now.
    running: AtomicUsize,
    /// Set when the crew is dismissed.
    stop: AtomicBool,
    /// Helpers asleep (or about to be), woken through `wake`.
    sleepers: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
    /// The first panic of a helper in the round, passed on by [`Crew::round`].
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

// SAFETY: `job` is written by the crew's owner only while no helper can read it (see
// `Crew::round`), and the job it points to is `Sync`.
unsafe impl Sync for CrewState {}

/// The value behind `m`, also when a thread panicked holding it: its callers keep their data
/// whole through a panic (the panic itself reaches the caller of the round or of the scope).
pub(super) fn lock<X>(m: &Mutex<X>) -> std::sync::MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CrewState {
    /// A helper's loop: each round's job once, until dismissed.
    fn serve(&self) {
        let mut seen = 0;
        loop {
            let Some(round) = self.next_round(seen) else {
                return;
            };
            self.running.fetch_add(1, SeqCst);
            // The round may have closed (or a later one opened) since it was seen: then its job
            // is no longer for this helper.
            if self.open.load(SeqCst) && self.round.load(SeqCst) == round {
                // SAFETY: the round is open and this helper is counted in `running`, so the
                // job is set and stays alive until `running` drops (see `Crew::round`).
                let job = unsafe { &*(*self.job.get()).expect("an open round has a job") };
                if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)) {
                    lock(&self.panic).get_or_insert(panic);
                }
            }
            seen = round;
            self.running.fetch_sub(1, SeqCst);
        }
    }

    /// Waits for a round after `seen`: spins for [`CREW_SPIN`], then sleeps. `None` once the
    /// crew is dismissed.
    fn next_round(&self, seen: u64) -> Option<u64> {
        let ready = || {
            let round = self.round.load(SeqCst);
            if self.stop.load(SeqCst) {
                Some(None)
            } else {
                (round != seen).then_some(Some(round))
            }
        };
        let start = std::time::Instant::now();
        let mut spins = 0u32;
        loop {
            if let Some(next) = ready() {
                return next;
            }
            spins += 1;
            if spins.is_multiple_of(64) && start.elapsed() > CREW_SPIN {
                break;
            }
            std::hint::spin_loop();
        }
        let mut guard = lock(&self.sleep);
        self.sleepers.fetch_add(1, SeqCst);
        // Checked after counting itself as asleep: a round opened since is either seen here or
        // announced by `wake_all` (which takes the lock, so not before this wait starts).
        let next = loop {
            if let Some(next) = ready() {
                break next;
            }
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        self.sleepers.fetch_sub(1, SeqCst);
        next
    }

    fn wake_all(&self) {
        let _guard = lock(&self.sleep);
        self.wake.notify_all();
    }
}

/// Cores this process may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item of every round is taken exactly once, the main's result comes back, and
    /// the helpers take part.
    #[test]
    fn crew_rounds_take_every_item_once() {
        use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
        for threads in [1, 2, 3] {
            let ex = Executor::new(threads).unwrap();
            assert_eq!(ex.threads(), threads);
            let rounds = 200;
            let joined = AtomicUsize::new(0);
            let got = ex.crew(|crew| {
                let mut sum = 0;
                for round in 0..rounds {
                    let items: Vec<AtomicU32> = (0..300).map(|_| AtomicU32::new(0)).collect();
                    let next = AtomicUsize::new(0);
                    let take = || {
                        while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                            item.fetch_add(1, Ordering::Relaxed);
                        }
                    };
                    sum += crew.round(
                        || {
                            // The helpers' threads may take a while to start: the first round
                            // waits for one (with no pool, the helper part runs after this).
                            let since = std::time::Instant::now();
                            while round == 0
                                && threads > 1
                                && joined.load(Ordering::SeqCst) == 0
                                && since.elapsed().as_secs() < 10
                            {
                                std::hint::spin_loop();
                            }
                            take();
                            round
                        },
                        &|| {
                            joined.fetch_add(1, Ordering::SeqCst);
                            take();
                        },
                    );
                    assert!(items.iter().all(|x| x.load(Ordering::Relaxed) == 1));
                }
                sum
            });
            assert_eq!(got, (0..rounds).sum::<usize>());
            // A helper misses the rounds that close before it sees them (these are short), but
            // not all of them.
            assert!(joined.into_inner() > 0);
        }
    }

    /// A round whose helpers sleep (rounds further apart than the spin) still reaches them, and
    /// it ends only once the helpers that joined it are done.
    #[test]
    fn crew_wakes_sleeping_helpers_and_waits_for_them() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let ex = Executor::new(2).unwrap();
        let (joined, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
        ex.crew(|crew| {
            for round in 0..3 {
                std::thread::sleep(CREW_SPIN * 20);
                // The main part waits for the helper (which may be done before it starts), so
                // that the round cannot end without it; a helper that is never woken fails the
                // test rather than hang it.
                crew.round(
                    || {
                        let since = std::time::Instant::now();
                        while joined.load(Ordering::SeqCst) == round {
                            assert!(since.elapsed().as_secs() < 10, "the helper never came");
                            std::hint::spin_loop();
                        }
                    },
                    &|| {
                        joined.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        done.fetch_add(1, Ordering::SeqCst);
                    },
                );
                assert_eq!(done.load(Ordering::SeqCst), round + 1);
            }
        });
        assert_eq!(joined.into_inner(), 3);
    }

    /// A panic in a helper reaches the caller of the round, and the crew still ends.
    #[test]
    fn crew_passes_on_a_helpers_panic() {
        let ex = Executor::new(2).unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ex.crew(|crew| {
                crew.round(
                    || std::thread::sleep(std::time::Duration::from_millis(20)),
                    &|| panic!("helper failed"),
                )
            })
        }));
        assert!(caught.is_err());
    }

    /// With every thread of the pool busy elsewhere, a crew's rounds still end: the main part
    /// does the work alone.
    #[test]
    fn crew_in_a_busy_pool_needs_no_helper() {
        let ex = Executor::new(2).unwrap();
        let inner = ex.clone();
        let pool_busy = std::sync::atomic::AtomicBool::new(true);
        ex.install(|| {
            rayon::join(
                || {
                    let n = inner.crew(|crew| crew.round(|| 5, &|| ()));
                    pool_busy.store(false, std::sync::atomic::Ordering::SeqCst);
                    n
                },
                || {
                    while pool_busy.load(std::sync::atomic::Ordering::SeqCst) {
                        std::hint::spin_loop();
                    }
                },
            )
        });
    }
}
