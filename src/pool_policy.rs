//! The engine pools' rules, written once for the CLI's pool (engine processes on
//! threads, `src/cli/pool.rs`) and the page's (Stockfish in Web Workers,
//! `src/wasm/pool.rs`); each front end keeps only its transport.
//!
//! - A job is tried at most [`ATTEMPTS`] times: once, and once more on a fresh engine
//!   after a failure ([`Retries::fail`]). A job's result is recorded only when the whole
//!   job is done, so a retried job is counted once.
//! - An engine is stalled when its [`Deadline`] passes: no line for the silence limit
//!   (the page: a dead worker prints nothing), or one search running past the search
//!   limit (the CLI's `--search-timeout`). A stalled engine is killed and replaced, and
//!   its job fails (and is retried).
//! - A pool whose engines keep failing gives up ([`Retries::hopeless`]) instead of
//!   restarting them forever.
//!
//! Times are durations since any origin the caller keeps (an `Instant`, or
//! `performance.now()`), so the rules run the same natively and in the browser.

use std::time::Duration;

use crate::session::Session;

/// Tries of a job: once, and once more on a fresh engine after a failure.
pub const ATTEMPTS: u32 = 2;

/// What to do with a job whose engine failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Run it again, from the start, on a fresh engine.
    Retry,
    /// It failed [`ATTEMPTS`] times: report it as not analysed.
    GiveUp,
}

/// Failures per job, and the engines restarted, in one pool run. (A list, not a map:
/// failures are few, and the page's wasm stays smaller.)
#[derive(Debug, Clone)]
pub struct Retries<K> {
    failures: Vec<(K, u32)>,
    restarts: usize,
}

impl<K> Default for Retries<K> {
    fn default() -> Self {
        Retries {
            failures: Vec::new(),
            restarts: 0,
        }
    }
}

impl<K: PartialEq> Retries<K> {
    /// Records that `job`'s engine failed (and is restarted): whether to retry it.
    pub fn fail(&mut self, job: K) -> Verdict {
        self.restarts += 1;
        let i = match self.failures.iter().position(|(k, _)| *k == job) {
            Some(i) => i,
            None => {
                self.failures.push((job, 0));
                self.failures.len() - 1
            }
        };
        self.failures[i].1 += 1;
        if self.failures[i].1 < ATTEMPTS {
            Verdict::Retry
        } else {
            Verdict::GiveUp
        }
    }

    /// Records an engine that failed with no job (during its handshake).
    pub fn fail_idle(&mut self) {
        self.restarts += 1;
    }

    /// How many times `job` failed.
    pub fn failures(&self, job: &K) -> u32 {
        self.failures
            .iter()
            .find(|(k, _)| k == job)
            .map_or(0, |(_, n)| *n)
    }

    /// Engines restarted so far.
    pub fn restarts(&self) -> usize {
        self.restarts
    }

    /// Whether the engine cannot run here at all: more restarts than every job's retry
    /// and a few handshakes could need (`4 × jobs + 4`). The pool then gives up the
    /// waiting jobs instead of looping.
    pub fn hopeless(&self, jobs: usize) -> bool {
        self.restarts > 4 * jobs + 4
    }
}

/// Why an engine is stalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    /// It printed nothing for this long.
    Silent(Duration),
    /// One search ran longer than this.
    Search(Duration),
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stall::Silent(d) => write!(f, "engine silent for {} s", d.as_secs_f64().round()),
            Stall::Search(d) => {
                write!(f, "engine search ran over {} s", d.as_secs_f64().round())
            }
        }
    }
}

/// When one engine counts as stalled: after `silence` with no line, or `search` into
/// one search (each limit optional). Fed every line the engine prints.
#[derive(Debug, Clone)]
pub struct Deadline {
    silence: Option<Duration>,
    search: Option<Duration>,
    last_line: Duration,
    search_started: Duration,
    searches: u64,
}

impl Deadline {
    /// A deadline starting `now` (the engine started or got a job), with the session's
    /// searches so far.
    pub fn new(
        silence: Option<Duration>,
        search: Option<Duration>,
        now: Duration,
        session: &Session,
    ) -> Deadline {
        Deadline {
            silence,
            search,
            last_line: now,
            search_started: now,
            searches: session.searches_started(),
        }
    }

    /// Starts again `now`: the engine was started, or given a job.
    pub fn restart(&mut self, now: Duration, session: &Session) {
        self.last_line = now;
        self.search_started = now;
        self.searches = session.searches_started();
    }

    /// The engine printed a line `now` (already fed to `session`): the silence starts
    /// again, and the search limit too when a new search started.
    pub fn saw_line(&mut self, now: Duration, session: &Session) {
        self.last_line = now;
        if session.searches_started() != self.searches {
            self.searches = session.searches_started();
            self.search_started = now;
        }
    }

    /// The earliest time the engine is stalled, if it prints nothing more.
    pub fn due(&self) -> Option<Duration> {
        let silent = self.silence.map(|s| self.last_line + s);
        let search = self.search.map(|s| self.search_started + s);
        match (silent, search) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the engine is stalled `now`, and why.
    pub fn stalled(&self, now: Duration) -> Option<Stall> {
        if let Some(s) = self.silence
            && now > self.last_line + s
        {
            return Some(Stall::Silent(s));
        }
        if let Some(s) = self.search
            && now > self.search_started + s
        {
            return Some(Stall::Search(s));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::{Job, JobId, Task},
        game::Side,
        plan::Settings,
        uci::Limit,
    };

    #[test]
    fn a_job_is_retried_once_then_given_up() {
        let mut r = Retries::default();
        assert_eq!(r.fail(7), Verdict::Retry);
        assert_eq!(r.failures(&7), 1);
        assert_eq!(r.fail(3), Verdict::Retry, "each job has its own count");
        assert_eq!(r.fail(7), Verdict::GiveUp);
        assert_eq!(r.failures(&7), 2);
        assert_eq!(r.restarts(), 3);
        assert_eq!(ATTEMPTS, 2);
    }

    #[test]
    fn a_pool_gives_up_after_too_many_restarts() {
        let mut r: Retries<usize> = Retries::default();
        for _ in 0..8 {
            r.fail_idle();
            assert!(!r.hopeless(1), "4 × 1 + 4 restarts are allowed");
        }
        r.fail_idle();
        assert!(r.hopeless(1));
        assert!(!r.hopeless(2));
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A session through its handshake with a job submitted: its first search starts
    /// after `readyok`.
    fn searching() -> Session {
        let mut s = Session::new(&Settings::default());
        for line in ["uciok", "readyok"] {
            s.handle_line(line).expect("handshake");
        }
        let job = Job {
            id: JobId { game: 0, chunk: 0 },
            chess960: false,
            start_fen: None,
            moves: vec!["e2e4".to_owned()],
            warmup: None,
            tasks: vec![Task {
                ply_index: 0,
                played: "e2e4".to_owned(),
                side: Side::White,
            }],
            limit: Limit::Depth(1),
            multipv: 1,
            max_nodes: 0,
            slm_depth: None,
        };
        s.submit(job).expect("idle");
        s.handle_line("readyok").expect("ready");
        s
    }

    #[test]
    fn silence_resets_on_every_line() {
        let s = Session::new(&Settings::default());
        let mut d = Deadline::new(Some(ms(500)), None, ms(1000), &s);
        assert_eq!(d.due(), Some(ms(1500)));
        assert_eq!(d.stalled(ms(1500)), None);
        assert_eq!(d.stalled(ms(1501)), Some(Stall::Silent(ms(500))));
        d.saw_line(ms(1400), &s);
        assert_eq!(d.stalled(ms(1501)), None);
        assert_eq!(d.stalled(ms(1901)), Some(Stall::Silent(ms(500))));
        assert_eq!(
            Stall::Silent(ms(5000)).to_string(),
            "engine silent for 5 s",
            "the page's message"
        );
    }

    #[test]
    fn the_search_limit_resets_only_when_a_search_starts() {
        let idle = Session::new(&Settings::default());
        let mut d = Deadline::new(None, Some(ms(1000)), ms(0), &idle);
        // Lines of the same search do not move the search deadline.
        d.saw_line(ms(900), &idle);
        assert_eq!(d.stalled(ms(1001)), Some(Stall::Search(ms(1000))));
        // A new search does.
        let s = searching();
        assert!(s.searches_started() > idle.searches_started());
        d.saw_line(ms(950), &s);
        assert_eq!(d.stalled(ms(1001)), None);
        assert_eq!(d.due(), Some(ms(1950)));
        d.restart(ms(3000), &s);
        assert_eq!(d.due(), Some(ms(4000)));
    }

    #[test]
    fn both_limits_the_earlier_first() {
        let s = Session::new(&Settings::default());
        let d = Deadline::new(Some(ms(200)), Some(ms(100)), ms(0), &s);
        assert_eq!(d.due(), Some(ms(100)));
        assert_eq!(d.stalled(ms(150)), Some(Stall::Search(ms(100))));
        let none = Deadline::new(None, None, ms(0), &s);
        assert_eq!(none.due(), None);
        assert_eq!(none.stalled(ms(u64::from(u32::MAX))), None);
    }
}
