//! The engine pool: a batch of jobs run on several engines, with the chunk cache,
//! restarts and retries.

use std::{
    collections::VecDeque,
    path::Path,
    sync::{Arc, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

use anyhow::Result;
use fairsight::{EngineInfo, Job, JobId, JobResult, Settings};

use super::{
    cache,
    engine::{Engine, engine_build},
    progress::{ProgressLog, progress_bar},
};

/// How to run a batch of jobs: the engine command and settings, how many engines at
/// most, the search deadline and an optional chunk cache.
pub(crate) struct Run<'a> {
    pub(crate) engine: &'a str,
    pub(crate) settings: &'a Settings,
    pub(crate) workers: usize,
    pub(crate) timeout: Duration,
    pub(crate) cache: Option<&'a Path>,
}

/// What running a batch did.
pub(crate) struct RunOutcome {
    pub(crate) engine: EngineInfo,
    /// Positions served from the cache.
    pub(crate) cached: usize,
    /// Positions searched by the engines.
    pub(crate) searched: usize,
    /// Engines started.
    pub(crate) workers: usize,
    pub(crate) elapsed: Duration,
    /// Jobs that failed twice.
    pub(crate) failures: Vec<(JobId, anyhow::Error)>,
}

impl Run<'_> {
    /// Starts the engines (a missing engine or an unusable cache is a usage error: `Err`
    /// with the message), serves the jobs the cache has, runs the others with a progress
    /// bar (or a line a minute off a terminal), stores them in the cache, and hands every
    /// result to `on_result` on this thread, with the engine that made it.
    pub(crate) fn execute(
        &self,
        mut jobs: Vec<Job>,
        total_positions: usize,
        mut on_result: impl FnMut(&EngineInfo, JobResult),
    ) -> Result<RunOutcome, String> {
        let workers = self.workers.min(jobs.len()).max(1);
        // Start the engines first: a missing engine is a usage error, reported once.
        let mut engines = Vec::with_capacity(workers);
        for _ in 0..workers {
            engines.push(
                Engine::start(self.engine, self.settings, self.timeout)
                    .map_err(|e| format!("{e:#}"))?,
            );
        }
        let engine = EngineInfo {
            name: engines[0].name().to_owned(),
            build: engine_build(self.engine),
        };
        let cache = match self.cache {
            Some(dir) => Some(
                cache::Cache::open(dir, &engine.build, &engine.name, self.settings.hash_mb)
                    .map_err(|e| format!("--cache {}: {e}", dir.display()))?,
            ),
            None => None,
        };
        let mut cached = 0;
        if let Some(c) = &cache {
            jobs.retain(|job| match c.get(job) {
                Some(result) => {
                    cached += result.positions.len();
                    on_result(&engine, result);
                    false
                }
                None => true,
            });
            if cached > 0 {
                eprintln!("fairsight: {cached} positions from the cache");
            }
        }
        let by_id: std::collections::HashMap<JobId, Job> =
            jobs.iter().map(|j| (j.id, j.clone())).collect();
        let bar = progress_bar(total_positions as u64);
        bar.set_position(cached as u64);
        let mut log = ProgressLog::new(total_positions as u64, cached as u64);
        let started = Instant::now();
        let mut searched = 0;
        let failures = run_pool(engines, jobs, self, |result| {
            let n = result.positions.len();
            searched += n;
            bar.inc(n as u64);
            log.add(n as u64);
            if let (Some(c), Some(job)) = (&cache, by_id.get(&result.id))
                && let Err(e) = c.put(job, &result)
            {
                eprintln!("fairsight: cannot write the cache: {e}");
            }
            on_result(&engine, result);
        });
        bar.finish_and_clear();
        for (id, e) in &failures {
            eprintln!(
                "fairsight: game {} chunk {} was not analysed: {e:#}",
                id.game + 1,
                id.chunk + 1
            );
        }
        Ok(RunOutcome {
            engine,
            cached,
            searched,
            workers,
            elapsed: started.elapsed(),
            failures,
        })
    }
}

/// Runs the jobs on the engines (one thread each); calls `on_result` on this thread as
/// results arrive. A job whose engine fails is retried once on a restarted engine.
pub(crate) fn run_pool(
    engines: Vec<Engine>,
    jobs: Vec<Job>,
    run: &Run,
    mut on_result: impl FnMut(JobResult),
) -> Vec<(JobId, anyhow::Error)> {
    let timeout = run.timeout;
    let queue = Arc::new(Mutex::new(VecDeque::from(jobs)));
    let (tx, rx) = mpsc::channel::<Result<JobResult, (JobId, anyhow::Error)>>();
    let mut handles = Vec::new();
    for engine in engines {
        let queue = Arc::clone(&queue);
        let tx = tx.clone();
        let command = run.engine.to_owned();
        let settings = run.settings.clone();
        handles.push(thread::spawn(move || {
            let mut engine = Some(engine);
            while let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) {
                let id = job.id;
                let mut outcome = Err(anyhow::anyhow!("no engine"));
                for attempt in 0..2 {
                    if engine.is_none() {
                        engine = Engine::start(&command, &settings, timeout).ok();
                    }
                    let Some(e) = engine.as_mut() else { continue };
                    outcome = e.run(job.clone());
                    if outcome.is_ok() {
                        break;
                    }
                    engine = None; // killed on drop; restarted for the retry
                    if attempt == 0 {
                        eprintln!(
                            "fairsight: engine failed on game {} chunk {}; restarting and retrying",
                            id.game + 1,
                            id.chunk + 1
                        );
                    }
                }
                let msg = outcome.map_err(|e| (id, e));
                if tx.send(msg).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let mut failures = Vec::new();
    for msg in rx {
        match msg {
            Ok(r) => on_result(r),
            Err(f) => failures.push(f),
        }
    }
    for h in handles {
        let _ = h.join();
    }
    failures
}
