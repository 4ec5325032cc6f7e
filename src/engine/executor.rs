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

    /// Runs `a` and `b`, in parallel when there is a pool; `a` runs on the calling thread.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        match &self.pool {
            None => (a(), b()),
            Some(pool) => pool.install(|| rayon::join(a, b)),
        }
    }

    /// Calls `f(i, chunk)` for every `chunk_len`-sized chunk of `data` (the last may be shorter),
    /// spreading chunks over the pool. Must be called from inside [`Executor::join`] or the
    /// calling thread; chunks are independent.
    pub fn for_each_chunk<E, F>(&self, data: &mut [E], chunk_len: usize, f: F)
    where
        E: Send,
        F: Fn(usize, &mut [E]) + Send + Sync,
    {
        use rayon::prelude::*;
        let chunk_len = chunk_len.max(1);
        match &self.pool {
            None => data
                .chunks_mut(chunk_len)
                .enumerate()
                .for_each(|(i, c)| f(i, c)),
            Some(pool) => pool.install(|| {
                data.par_chunks_mut(chunk_len)
                    .enumerate()
                    .for_each(|(i, c)| f(i, c))
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
    fn chunks_cover_everything_once() {
        for threads in [1, 2, 3] {
            let ex = Executor::new(threads).unwrap();
            assert_eq!(ex.threads(), threads);
            let mut data = vec![0u32; 1000];
            let (_, ()) = ex.join(
                || 1,
                || {
                    ex.for_each_chunk(&mut data, 64, |i, c| {
                        for (k, x) in c.iter_mut().enumerate() {
                            *x += (i * 64 + k) as u32;
                        }
                    })
                },
            );
            assert!(data.iter().enumerate().all(|(k, &x)| x == k as u32));
        }
    }
}
