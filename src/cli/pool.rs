//! The engine pool: jobs run on several engines, with the chunk cache, restarts and
//! retries. Jobs can be given all at once ([`Run::execute`]) or as the input is read
//! ([`Runner`]: `submit` and `next`), which is how `analyze` streams.

use std::{
    collections::{HashMap, VecDeque},
    path::Path,
    sync::{Arc, Condvar, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

use anyhow::Result;
use fairsight::{EngineInfo, Job, JobId, JobResult, Retries, Settings, Verdict};
use indicatif::ProgressBar;

use super::{
    cache,
    engine::{Engine, engine_build},
    interrupt,
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
        jobs: Vec<Job>,
        total_positions: usize,
        mut on_result: impl FnMut(&EngineInfo, JobResult),
    ) -> Result<RunOutcome, String> {
        let mut runner = Runner::start(self)?;
        runner.add_total(total_positions);
        for job in jobs {
            if let Some(result) = runner.submit(job)? {
                on_result(&runner.engine, result);
            }
        }
        while let Some(next) = runner.next() {
            if let Ok(result) = next {
                on_result(&runner.engine, result);
            }
        }
        Ok(runner.finish())
    }
}

/// A job's outcome: its result, or its id and the error when it failed twice.
pub(crate) type Outcome = Result<JobResult, (JobId, anyhow::Error)>;

/// Jobs waiting for an engine, and whether more may come.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// Engines, one thread each, taking jobs from one queue and sending their outcomes back.
/// A job whose engine fails is retried once on a restarted engine.
pub(crate) struct Pool {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    tx: mpsc::Sender<Outcome>,
    rx: mpsc::Receiver<Outcome>,
    handles: Vec<thread::JoinHandle<()>>,
    command: String,
    settings: Settings,
    timeout: Duration,
    /// Jobs submitted whose outcome has not been received.
    waiting: usize,
}

impl Pool {
    /// A pool of these (started) engines.
    pub(crate) fn new(run: &Run, engines: Vec<Engine>) -> Pool {
        let (tx, rx) = mpsc::channel();
        let mut pool = Pool {
            queue: Arc::default(),
            tx,
            rx,
            handles: Vec::new(),
            command: run.engine.to_owned(),
            settings: run.settings.clone(),
            timeout: run.timeout,
            waiting: 0,
        };
        for engine in engines {
            pool.add_engine(engine);
        }
        pool
    }

    /// Engines in the pool.
    pub(crate) fn engines(&self) -> usize {
        self.handles.len()
    }

    /// Jobs submitted whose outcome has not been received.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting
    }

    /// Adds an engine, on its own thread.
    pub(crate) fn add_engine(&mut self, engine: Engine) {
        let queue = Arc::clone(&self.queue);
        let tx = self.tx.clone();
        let command = self.command.clone();
        let settings = self.settings.clone();
        let timeout = self.timeout;
        self.handles.push(thread::spawn(move || {
            let mut engine = Some(engine);
            while let Some(job) = next_job(&queue) {
                let id = job.id;
                let mut outcome = Err(anyhow::anyhow!("no engine"));
                // The core's rule: retried once, on a fresh engine.
                let mut retries = Retries::default();
                loop {
                    if engine.is_none() {
                        engine = Engine::start(&command, &settings, timeout).ok();
                    }
                    if let Some(e) = engine.as_mut() {
                        outcome = e.run(job.clone());
                        if outcome.is_ok() {
                            break;
                        }
                    }
                    engine = None; // killed on drop; restarted for the retry
                    if retries.fail(id) == Verdict::GiveUp {
                        break;
                    }
                    eprintln!(
                        "fairsight: engine failed on game {} chunk {}; restarting and retrying",
                        id.game + 1,
                        id.chunk + 1
                    );
                }
                if tx.send(outcome.map_err(|e| (id, e))).is_err() {
                    break;
                }
            }
        }));
    }

    /// Queues a job for the next free engine.
    pub(crate) fn submit(&mut self, job: Job) {
        let (lock, ready) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            q.jobs.push_back(job);
            self.waiting += 1;
        }
        ready.notify_one();
    }

    /// The next outcome, waiting for it; `None` when no job is waiting (or every engine
    /// thread is gone).
    /// After a signal asked the run to stop ([`interrupt`]), `None` at once (within a
    /// tenth of a second while waiting).
    pub(crate) fn recv(&mut self) -> Option<Outcome> {
        loop {
            if self.waiting == 0 || interrupt::stopped().is_some() {
                return None;
            }
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(outcome) => {
                    self.waiting -= 1;
                    return Some(outcome);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Drops the jobs no engine has taken: the engines end after the searches under way.
    pub(crate) fn abandon(&mut self) {
        let (lock, _) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            self.waiting -= q.jobs.len().min(self.waiting);
            q.jobs.clear();
        }
    }

    /// Lets the engines finish the queue and quit; waits for them.
    pub(crate) fn close(mut self) {
        self.shut();
        for h in std::mem::take(&mut self.handles) {
            let _ = h.join();
        }
    }

    /// Closes the queue: each engine thread ends (and kills its engine) once it is empty.
    fn shut(&self) {
        let (lock, ready) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            q.closed = true;
        }
        ready.notify_all();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shut();
    }
}

/// The next job, waiting for one while the queue is open; `None` once it is closed and
/// empty.
fn next_job(queue: &(Mutex<Queue>, Condvar)) -> Option<Job> {
    let (lock, ready) = queue;
    let mut q = lock.lock().ok()?;
    loop {
        if let Some(job) = q.jobs.pop_front() {
            return Some(job);
        }
        if q.closed {
            return None;
        }
        q = ready.wait(q).ok()?;
    }
}

/// Runs the jobs on the engines; calls `on_result` on this thread as results arrive.
/// Returns the jobs that failed twice.
pub(crate) fn run_pool(
    engines: Vec<Engine>,
    jobs: Vec<Job>,
    run: &Run,
    mut on_result: impl FnMut(JobResult),
) -> Vec<(JobId, anyhow::Error)> {
    let mut pool = Pool::new(run, engines);
    for job in jobs {
        pool.submit(job);
    }
    let mut failures = Vec::new();
    while let Some(outcome) = pool.recv() {
        match outcome {
            Ok(r) => on_result(r),
            Err(f) => failures.push(f),
        }
    }
    pool.close();
    failures
}

/// A pool with the cache and the progress display, fed job by job: one engine is started
/// at once (its name is the report's), more (up to `Run::workers`) as jobs wait for one.
pub(crate) struct Runner<'r> {
    run: &'r Run<'r>,
    pool: Pool,
    /// The engine, as reports name it.
    pub(crate) engine: EngineInfo,
    cache: Option<cache::Cache>,
    /// Submitted jobs not yet done, for the cache.
    by_id: HashMap<JobId, Job>,
    bar: ProgressBar,
    log: ProgressLog,
    total: u64,
    cached: usize,
    searched: usize,
    failures: Vec<(JobId, anyhow::Error)>,
    started: Instant,
}

impl<'r> Runner<'r> {
    /// Starts the first engine and opens the cache (a missing engine or an unusable
    /// cache is a usage error: `Err` with the message).
    pub(crate) fn start(run: &'r Run<'r>) -> Result<Runner<'r>, String> {
        let first =
            Engine::start(run.engine, run.settings, run.timeout).map_err(|e| format!("{e:#}"))?;
        let engine = EngineInfo {
            name: first.name().to_owned(),
            build: engine_build(run.engine),
        };
        let cache = match run.cache {
            Some(dir) => Some(
                cache::Cache::open(dir, &engine.build, &engine.name, run.settings.hash_mb)
                    .map_err(|e| format!("--cache {}: {e}", dir.display()))?,
            ),
            None => None,
        };
        Ok(Runner {
            run,
            pool: Pool::new(run, vec![first]),
            engine,
            cache,
            by_id: HashMap::new(),
            bar: progress_bar(0),
            log: ProgressLog::new(0, 0),
            total: 0,
            cached: 0,
            searched: 0,
            failures: Vec::new(),
            started: Instant::now(),
        })
    }

    /// Counts more positions into the progress display's total.
    pub(crate) fn add_total(&mut self, positions: usize) {
        self.total += positions as u64;
        self.bar.set_length(self.total);
        self.log.total = self.total;
    }

    /// Takes a job: its result at once when the cache has it, else `None` and the job
    /// waits for an engine (another is started when jobs wait and fewer than
    /// `Run::workers` run; failing to start it is a usage error).
    pub(crate) fn submit(&mut self, job: Job) -> Result<Option<JobResult>, String> {
        if let Some(result) = self.cache.as_ref().and_then(|c| c.get(&job)) {
            let n = result.positions.len();
            self.cached += n;
            self.bar.inc(n as u64);
            self.log.done += n as u64;
            return Ok(Some(result));
        }
        if self.cache.is_some() {
            self.by_id.insert(job.id, job.clone());
        }
        self.pool.submit(job);
        if self.pool.waiting() > self.pool.engines() && self.pool.engines() < self.run.workers {
            let e = Engine::start(self.run.engine, self.run.settings, self.run.timeout)
                .map_err(|e| format!("{e:#}"))?;
            self.pool.add_engine(e);
        }
        Ok(None)
    }

    /// The next job's outcome, waiting for it (`None` when no job is waiting): a result,
    /// stored in the cache, or a job that failed twice (reported, and kept for
    /// [`Runner::finish`]) as `Err` with its id.
    pub(crate) fn next(&mut self) -> Option<Result<JobResult, JobId>> {
        match self.pool.recv()? {
            Ok(result) => {
                let n = result.positions.len();
                self.searched += n;
                self.bar.inc(n as u64);
                self.log.add(n as u64);
                if let (Some(c), Some(job)) = (&self.cache, self.by_id.remove(&result.id))
                    && let Err(e) = c.put(&job, &result)
                {
                    eprintln!("fairsight: cannot write the cache: {e}");
                }
                Some(Ok(result))
            }
            Err((id, e)) => {
                self.by_id.remove(&id);
                self.bar.suspend(|| {
                    eprintln!(
                        "fairsight: game {} chunk {} was not analysed: {e:#}",
                        id.game + 1,
                        id.chunk + 1
                    );
                });
                self.failures.push((id, e));
                Some(Err(id))
            }
        }
    }

    /// Stops the engines and says what the run did.
    pub(crate) fn finish(mut self) -> RunOutcome {
        self.bar.finish_and_clear();
        if let Some(signal) = interrupt::stopped() {
            eprintln!(
                "fairsight: {}: stopping once the engines finish the searches under way (a second one quits at once)",
                interrupt::name(signal)
            );
            self.pool.abandon();
        }
        let workers = self.pool.engines();
        self.pool.close();
        if self.cached > 0 {
            eprintln!("fairsight: {} positions from the cache", self.cached);
        }
        RunOutcome {
            engine: self.engine,
            cached: self.cached,
            searched: self.searched,
            workers,
            elapsed: self.started.elapsed(),
            failures: self.failures,
        }
    }
}
