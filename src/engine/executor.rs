//! One object through which engines run parallel work: either the calling thread alone, or a
//! rayon pool of a chosen size. Switching to one thread turns every parallel path into the plain
//! serial loop, for profiling and debugging; results never depend on the thread count.

use std::fmt;
use std::sync::Arc;

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

    /// Runs `main` on the calling thread and `helper` on each other thread of the pool, at once,
    /// and returns what `main` returns once all have. With no pool, `main` then `helper` on the
    /// calling thread. Work they share must be taken, not given: a helper may start late, or
    /// (when the pool is busy) only after `main` is done on its own thread.
    pub fn with_helpers<R: Send>(
        &self,
        main: impl FnOnce() -> R + Send,
        helper: impl Fn() + Sync,
    ) -> R {
        match &self.pool {
            None => {
                let r = main();
                helper();
                r
            }
            Some(pool) => pool.install(|| {
                rayon::scope(|s| {
                    for _ in 1..pool.current_num_threads() {
                        s.spawn(|_| helper());
                    }
                    main()
                })
            }),
        }
    }
}

/// Cores this process may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_and_helpers_take_every_item_once() {
        use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
        for threads in [1, 2, 3] {
            let ex = Executor::new(threads).unwrap();
            assert_eq!(ex.threads(), threads);
            let items: Vec<AtomicU32> = (0..1000).map(|_| AtomicU32::new(0)).collect();
            let (next, helpers) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let take = || {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    item.fetch_add(1, Ordering::Relaxed);
                }
            };
            let got = ex.with_helpers(
                || {
                    take();
                    7
                },
                || {
                    helpers.fetch_add(1, Ordering::Relaxed);
                    take();
                },
            );
            assert_eq!(got, 7);
            assert_eq!(helpers.into_inner(), threads.max(2) - 1);
            assert!(items.iter().all(|x| x.load(Ordering::Relaxed) == 1));
        }
    }
}
