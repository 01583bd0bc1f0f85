//! The engine session: a sans-IO UCI state machine that runs [`Job`]s.
//!
//! The session never touches a process or a worker. The transport (a child process in the
//! CLI, a Web Worker in the browser) sends whatever [`Session::take_commands`] returns and
//! feeds every line the engine prints to [`Session::handle_line`]. The session completes
//! the `uci`/`uciok` and `isready`/`readyok` handshakes before any search, sends
//! `setoption` only when a value changes, and never sends a new `position`/`go` before the
//! previous `bestmove` arrived (Stockfish.wasm crashes on overlapping searches).
//!
//! ```
//! use fairsight::{Limit, Session, Settings, jobs, pgn};
//! let game = pgn::import("1. f3 e5 2. g4 *").remove(0).unwrap();
//! let settings = Settings { limit: Limit::Depth(1), multipv: 1, ..Settings::default() };
//! let job = jobs(&game, &settings).remove(0);
//! let mut session = Session::new(&settings);
//! let sent: Vec<String> = session.take_commands().iter().map(|c| c.to_string()).collect();
//! assert_eq!(sent, ["uci"]);
//! session.handle_line("uciok").unwrap();
//! assert!(session.take_commands().iter().any(|c| c.to_string() == "isready"));
//! session.handle_line("readyok").unwrap();
//! session.submit(job).unwrap();
//! ```

use std::collections::{BTreeMap, VecDeque};

use crate::{
    engine::{Job, JobId, JobResult, PositionAnalysis, PvLine, Search},
    game::Side,
    plan::Settings,
    uci::{Command, EngineLine, Limit},
};

/// A protocol error: the engine said something that cannot happen in this state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// A job was submitted while another one runs or before the handshake.
    Busy,
    /// The engine printed a line we could not parse.
    BadLine(String),
    /// The engine printed something unexpected here.
    Unexpected(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Busy => f.write_str("session busy: a job is already running"),
            SessionError::BadLine(l) => write!(f, "engine printed a malformed line: {l}"),
            SessionError::Unexpected(l) => write!(f, "unexpected engine line: {l}"),
        }
    }
}

impl std::error::Error for SessionError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Screening mode: the warm-up's single-line search.
    WarmupSlm,
    Warmup,
    /// Screening mode: the single-line search before task `i`'s multi-line one.
    Slm(usize),
    Main(usize),
    Played(usize),
}

#[derive(Debug)]
struct Running {
    job: Job,
    steps: VecDeque<Step>,
    current: Option<Step>,
    search: Search,
    /// The finished single-line search of the task whose multi-line search is next.
    slm: Option<Search>,
    positions: Vec<PositionAnalysis>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// `uci` sent, waiting for `uciok`.
    Handshake,
    /// `isready` sent, waiting for `readyok`.
    Syncing,
    /// Ready, no job.
    Idle,
    /// A search is running; waiting for `bestmove`.
    Searching,
}

/// The UCI session with one engine. See the module docs.
#[derive(Debug)]
pub struct Session {
    state: State,
    out: Vec<Command>,
    /// Options we want, by name.
    wanted: BTreeMap<String, String>,
    /// Options as last sent.
    sent: BTreeMap<String, String>,
    name: Option<String>,
    running: Option<Running>,
    done: VecDeque<JobResult>,
    searches: u64,
}

impl Session {
    /// A new session; its first command is `uci`.
    pub fn new(settings: &Settings) -> Session {
        let mut wanted = BTreeMap::new();
        wanted.insert("Hash".to_owned(), settings.hash_mb.max(1).to_string());
        wanted.insert("Threads".to_owned(), "1".to_owned());
        Session {
            state: State::Handshake,
            out: vec![Command::Uci],
            wanted,
            sent: BTreeMap::new(),
            name: None,
            running: None,
            done: VecDeque::new(),
            searches: 0,
        }
    }

    /// The commands to send now, in order.
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.out)
    }

    /// The engine's `id name`, once the handshake is done.
    pub fn engine_name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Whether a job may be submitted now.
    pub fn is_idle(&self) -> bool {
        self.state == State::Idle && self.running.is_none()
    }

    /// Whether a `go` was sent and its `bestmove` has not arrived (the transport's
    /// per-search deadline applies then).
    pub fn is_searching(&self) -> bool {
        self.state == State::Searching
    }

    /// How many searches (`go`) were started so far: a transport restarts its per-search
    /// deadline whenever this changes.
    pub fn searches_started(&self) -> u64 {
        self.searches
    }

    /// Whether a job is in progress.
    pub fn is_busy(&self) -> bool {
        self.running.is_some()
    }

    /// The job running now, if any.
    pub fn running_job(&self) -> Option<JobId> {
        self.running.as_ref().map(|r| r.job.id)
    }

    /// The positions of the running job that are complete (main search done and, when
    /// the played move needed its own search, that one too), in order. A front end may
    /// show them before the whole job ends; they are part of the job's final result too,
    /// identical, so recording them twice (by ply) changes nothing.
    pub fn completed_positions(&self) -> &[PositionAnalysis] {
        let Some(run) = &self.running else {
            return &[];
        };
        let played_pending = matches!(run.current, Some(Step::Played(_)))
            || matches!(run.steps.front(), Some(Step::Played(_)));
        let n = run.positions.len() - usize::from(played_pending && !run.positions.is_empty());
        &run.positions[..n]
    }

    /// A finished job's result, if any.
    pub fn take_result(&mut self) -> Option<JobResult> {
        self.done.pop_front()
    }

    /// Starts a job. Only when [`Session::is_idle`].
    pub fn submit(&mut self, job: Job) -> Result<(), SessionError> {
        if !self.is_idle() {
            return Err(SessionError::Busy);
        }
        let screening = job.slm_depth.is_some();
        // The first search's MultiPV: a single line first in screening mode.
        let first = if screening { 1 } else { job.multipv.max(1) };
        self.wanted.insert("MultiPV".to_owned(), first.to_string());
        self.wanted
            .insert("UCI_Chess960".to_owned(), job.chess960.to_string());
        self.send_changed_options();
        self.out.push(Command::UciNewGame);
        self.out.push(Command::IsReady);
        self.state = State::Syncing;
        let mut steps: VecDeque<Step> = VecDeque::new();
        if job.warmup.is_some() {
            if screening {
                steps.push_back(Step::WarmupSlm);
            }
            steps.push_back(Step::Warmup);
        }
        for i in 0..job.tasks.len() {
            if screening {
                steps.push_back(Step::Slm(i));
            }
            steps.push_back(Step::Main(i));
        }
        self.running = Some(Running {
            job,
            steps,
            current: None,
            search: Search::default(),
            slm: None,
            positions: Vec::new(),
        });
        Ok(())
    }

    fn send_changed_options(&mut self) {
        for (name, value) in &self.wanted {
            if self.sent.get(name) != Some(value) {
                self.out.push(Command::SetOption {
                    name: name.clone(),
                    value: value.clone(),
                });
                self.sent.insert(name.clone(), value.clone());
            }
        }
    }

    /// Feeds one line printed by the engine.
    pub fn handle_line(&mut self, line: &str) -> Result<(), SessionError> {
        let parsed: EngineLine = line
            .parse()
            .map_err(|_| SessionError::BadLine(line.trim().to_owned()))?;
        match (self.state, parsed) {
            (_, EngineLine::IdName(name)) => self.name = Some(name),
            (State::Handshake, EngineLine::UciOk) => {
                self.send_changed_options();
                self.out.push(Command::IsReady);
                self.state = State::Syncing;
            }
            (State::Syncing, EngineLine::ReadyOk) => {
                self.state = State::Idle;
                self.next_step();
            }
            (State::Searching, EngineLine::Info(info)) => self.on_info(info),
            (State::Searching, EngineLine::BestMove { best, .. }) => {
                self.on_bestmove(best);
                self.next_step();
            }
            (_, EngineLine::BestMove { .. } | EngineLine::UciOk | EngineLine::ReadyOk) => {
                return Err(SessionError::Unexpected(line.trim().to_owned()));
            }
            _ => {} // Banners, option lists, info strings outside searches.
        }
        Ok(())
    }

    fn on_info(&mut self, info: crate::uci::Info) {
        let Some(run) = self.running.as_mut() else {
            return;
        };
        if matches!(run.current, Some(Step::Warmup | Step::WarmupSlm)) {
            return;
        }
        let (Some(depth), Some(score)) = (info.depth, info.score) else {
            if let Some(nodes) = info.nodes {
                run.search.nodes = nodes;
            }
            return;
        };
        if info.pv.is_empty() {
            return;
        }
        let side = match run.current {
            Some(Step::Main(i) | Step::Played(i) | Step::Slm(i)) => run.job.tasks[i].side,
            _ => Side::White,
        };
        run.search.nodes = info.nodes.unwrap_or(run.search.nodes);
        run.search.time_ms = info.time.unwrap_or(run.search.time_ms);
        run.search.record(PvLine {
            depth,
            seldepth: info.seldepth,
            multipv: info.multipv.unwrap_or(1),
            score: score.with_sign(side.sign()),
            bound: info.bound,
            nodes: info.nodes,
            pv: info.pv,
        });
    }

    fn on_bestmove(&mut self, best: Option<String>) {
        self.state = State::Idle;
        let Some(run) = self.running.as_mut() else {
            return;
        };
        let mut search = std::mem::take(&mut run.search);
        search.bestmove = best;
        match run.current.take() {
            Some(Step::Main(i)) => {
                let played = &run.job.tasks[i].played;
                let covered = search.final_line_of(played).is_some();
                if !covered {
                    run.steps.push_front(Step::Played(i));
                }
                run.positions.push(PositionAnalysis {
                    ply_index: run.job.tasks[i].ply_index,
                    search,
                    played_search: None,
                    slm: run.slm.take(),
                });
            }
            Some(Step::Slm(_)) => run.slm = Some(search),
            Some(Step::Played(_)) => {
                if let Some(last) = run.positions.last_mut() {
                    last.played_search = Some(search);
                }
            }
            Some(Step::Warmup | Step::WarmupSlm) | None => {}
        }
    }

    /// Sends the next search of the running job, or completes it.
    fn next_step(&mut self) {
        if self.state != State::Idle {
            return;
        }
        let Some(run) = self.running.as_mut() else {
            return;
        };
        let Some(step) = run.steps.pop_front() else {
            if let Some(run) = self.running.take() {
                self.done.push_back(JobResult {
                    id: run.job.id,
                    positions: run.positions,
                });
            }
            return;
        };
        let (index, searchmoves) = match step {
            Step::Warmup | Step::WarmupSlm => (run.job.warmup.unwrap_or(0), Vec::new()),
            Step::Main(i) | Step::Slm(i) => (run.job.tasks[i].ply_index, Vec::new()),
            Step::Played(i) => (
                run.job.tasks[i].ply_index,
                vec![run.job.tasks[i].played.clone()],
            ),
        };
        // Screening mode switches between one line (SLM) and L lines (MLM) without
        // `ucinewgame`: the hash is kept, as in the protocol.
        let (limit, lines) = match (step, run.job.slm_depth) {
            (Step::WarmupSlm | Step::Slm(_), Some(d)) => (Limit::Depth(d), 1),
            _ => (run.job.limit, run.job.multipv.max(1)),
        };
        run.current = Some(step);
        let position = run.job.position(index);
        let max_nodes = (run.job.max_nodes > 0).then_some(run.job.max_nodes);
        self.wanted.insert("MultiPV".to_owned(), lines.to_string());
        self.send_changed_options();
        self.out.push(position);
        self.out.push(Command::Go {
            limit,
            max_nodes,
            searchmoves,
        });
        self.state = State::Searching;
        self.searches += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        pgn, plan,
        uci::{Limit, Score},
    };

    fn sent(s: &mut Session) -> Vec<String> {
        s.take_commands().iter().map(|c| c.to_string()).collect()
    }

    fn ready_session(settings: &Settings) -> Session {
        let mut s = Session::new(settings);
        assert_eq!(sent(&mut s), ["uci"]);
        s.handle_line("id name Stockfish 19").unwrap();
        s.handle_line("option name Hash type spin default 16 min 1 max 33554432")
            .unwrap();
        s.handle_line("uciok").unwrap();
        assert_eq!(
            sent(&mut s),
            [
                "setoption name Hash value 16",
                "setoption name Threads value 1",
                "isready"
            ]
        );
        assert!(!s.is_idle());
        s.handle_line("readyok").unwrap();
        assert!(s.is_idle());
        assert_eq!(s.engine_name(), Some("Stockfish 19"));
        s
    }

    #[test]
    fn runs_a_job_with_warmup_and_played_move_search() {
        let game = pgn::import("1. e4 e5 2. Qh5 *").remove(0).unwrap();
        let settings = Settings {
            limit: Limit::Depth(2),
            multipv: 2,
            chunk_plies: 2,
            max_nodes: 1000,
            ..Settings::default()
        };
        let jobs = plan::jobs(&game, &settings);
        assert_eq!(jobs.len(), 2);
        let mut s = ready_session(&settings);
        s.submit(jobs[1].clone()).unwrap();
        assert_eq!(s.submit(jobs[0].clone()), Err(SessionError::Busy));
        assert_eq!(
            sent(&mut s),
            [
                "setoption name MultiPV value 2",
                "setoption name UCI_Chess960 value false",
                "ucinewgame",
                "isready"
            ]
        );
        s.handle_line("readyok").unwrap();
        // Warm-up: position before ply 1 (e5), not recorded.
        assert_eq!(
            sent(&mut s),
            ["position startpos moves e2e4", "go depth 2 nodes 1000"]
        );
        s.handle_line("info depth 1 multipv 1 score cp 20 pv e7e5")
            .unwrap();
        s.handle_line("bestmove e7e5").unwrap();
        // Ply 2 (Qh5): White to move.
        assert_eq!(
            sent(&mut s),
            ["position startpos moves e2e4 e7e5", "go depth 2 nodes 1000"]
        );
        for l in [
            "info depth 1 seldepth 1 multipv 1 score cp 40 nodes 20 pv g1f3",
            "info depth 1 seldepth 1 multipv 2 score cp 30 nodes 20 pv b1c3",
            "info depth 2 seldepth 3 multipv 1 score cp 35 lowerbound nodes 90 pv g1f3",
            "info depth 2 seldepth 3 multipv 1 score cp 33 nodes 100 time 5 pv g1f3 b8c6",
            "info depth 2 seldepth 3 multipv 2 score cp 25 nodes 100 time 5 pv f1c4 g8f6",
        ] {
            s.handle_line(l).unwrap();
        }
        assert!(s.is_searching());
        assert_eq!(s.running_job(), Some(jobs[1].id));
        assert!(s.completed_positions().is_empty());
        s.handle_line("bestmove g1f3 ponder b8c6").unwrap();
        assert!(
            s.completed_positions().is_empty(),
            "incomplete until the played move's own search ends"
        );
        // Qh5 (d1h5) was not among the lines: searched alone.
        assert_eq!(
            sent(&mut s),
            [
                "position startpos moves e2e4 e7e5",
                "go depth 2 nodes 1000 searchmoves d1h5"
            ]
        );
        s.handle_line("info depth 1 multipv 1 score cp -10 pv d1h5")
            .unwrap();
        s.handle_line("info depth 2 multipv 1 score cp -20 time 3 pv d1h5 b8c6")
            .unwrap();
        assert!(s.take_result().is_none());
        s.handle_line("bestmove d1h5").unwrap();
        assert!(sent(&mut s).is_empty());
        assert!(s.is_idle());
        assert!(
            s.completed_positions().is_empty(),
            "the job is done: no running job"
        );
        assert_eq!(s.running_job(), None);
        let r = s.take_result().unwrap();
        assert_eq!(r.id, jobs[1].id);
        assert_eq!(r.positions.len(), 1);
        let p = &r.positions[0];
        assert_eq!(p.ply_index, 2);
        assert_eq!(p.search.lines.len(), 4, "the lowerbound line was replaced");
        let fin = p.search.final_lines();
        assert_eq!(fin[0].score, Score::Cp(33));
        assert_eq!(fin[1].pv, ["f1c4", "g8f6"]);
        assert_eq!(p.search.bestmove.as_deref(), Some("g1f3"));
        let played = p.played_search.as_ref().unwrap();
        assert_eq!(played.final_lines()[0].score, Score::Cp(-20));
        assert_eq!(r.engine_time_ms(), 8);

        // Options are not re-sent when unchanged.
        s.submit(jobs[0].clone()).unwrap();
        assert_eq!(sent(&mut s), ["ucinewgame", "isready"]);
    }

    #[test]
    fn screening_zig_zags_between_one_line_and_many_with_the_hash_kept() {
        let game = pgn::import("1. e4 e5 2. Qh5 *").remove(0).unwrap();
        let settings = Settings {
            limit: Limit::Depth(3),
            multipv: 3,
            chunk_plies: 2,
            max_nodes: 0,
            screening: Some(plan::Screening {
                slm_depth: 4,
                min_depth: 2,
            }),
            ..Settings::default()
        };
        let jobs = plan::jobs(&game, &settings);
        assert_eq!(jobs[1].slm_depth, Some(4));
        let mut s = ready_session(&settings);
        s.submit(jobs[1].clone()).unwrap();
        assert_eq!(
            sent(&mut s),
            [
                "setoption name MultiPV value 1",
                "setoption name UCI_Chess960 value false",
                "ucinewgame",
                "isready"
            ]
        );
        s.handle_line("readyok").unwrap();
        // Warm-up on the previous ply: SLM to d, then MLM to dL, neither recorded.
        assert_eq!(sent(&mut s), ["position startpos moves e2e4", "go depth 4"]);
        s.handle_line("info depth 4 multipv 1 score cp 20 pv e7e5")
            .unwrap();
        s.handle_line("bestmove e7e5").unwrap();
        assert_eq!(
            sent(&mut s),
            [
                "setoption name MultiPV value 3",
                "position startpos moves e2e4",
                "go depth 3"
            ]
        );
        s.handle_line("bestmove e7e5").unwrap();
        // The tested ply: SLM first (no ucinewgame: the hash is kept).
        assert_eq!(
            sent(&mut s),
            [
                "setoption name MultiPV value 1",
                "position startpos moves e2e4 e7e5",
                "go depth 4"
            ]
        );
        for l in [
            "info depth 1 multipv 1 score cp 30 pv d1h5",
            "info depth 2 multipv 1 score cp 35 pv g1f3",
            "info depth 4 multipv 1 score cp 40 pv g1f3",
        ] {
            s.handle_line(l).unwrap();
        }
        s.handle_line("bestmove g1f3").unwrap();
        assert!(
            s.completed_positions().is_empty(),
            "the MLM is still to come"
        );
        assert_eq!(
            sent(&mut s),
            [
                "setoption name MultiPV value 3",
                "position startpos moves e2e4 e7e5",
                "go depth 3"
            ]
        );
        s.handle_line("info depth 3 multipv 1 score cp 40 pv g1f3")
            .unwrap();
        s.handle_line("info depth 3 multipv 2 score cp 10 pv d1h5")
            .unwrap();
        s.handle_line("bestmove g1f3").unwrap();
        let r = s.take_result().unwrap();
        let p = &r.positions[0];
        let slm = p.slm.as_ref().unwrap();
        assert_eq!(slm.lines.len(), 3);
        assert_eq!(slm.bestmove.as_deref(), Some("g1f3"));
        assert_eq!(p.search.final_lines().len(), 2);
        assert!(p.played_search.is_none(), "Qh5 was among the MLM lines");
        let m =
            crate::record::screening::screening_move("d1h5", Side::White, false, p, 1, 4).unwrap();
        assert_eq!(m.bits, "10-0");
        assert_eq!(m.match_type, crate::record::screening::MatchType::Part);
    }

    #[test]
    fn completed_positions_are_visible_before_the_job_ends() {
        let game = pgn::import("1. e4 e5 *").remove(0).unwrap();
        let settings = Settings {
            limit: Limit::Depth(1),
            multipv: 1,
            ..Settings::default()
        };
        let mut s = ready_session(&settings);
        s.submit(plan::jobs(&game, &settings).remove(0)).unwrap();
        s.handle_line("readyok").unwrap();
        sent(&mut s);
        s.handle_line("info depth 1 multipv 1 score cp 30 pv e2e4")
            .unwrap();
        s.handle_line("bestmove e2e4").unwrap();
        // e4 was the engine's line: the first position is complete, the job is not.
        assert_eq!(s.completed_positions().len(), 1);
        assert_eq!(s.completed_positions()[0].ply_index, 0);
        assert!(s.take_result().is_none());
        s.handle_line("info depth 1 multipv 1 score cp -20 pv e7e5")
            .unwrap();
        s.handle_line("bestmove e7e5").unwrap();
        let r = s.take_result().unwrap();
        assert_eq!(r.positions.len(), 2);
    }

    #[test]
    fn black_scores_are_normalised_to_white() {
        let game = pgn::import("1. e4 e5 *").remove(0).unwrap();
        let settings = Settings {
            limit: Limit::Depth(1),
            multipv: 1,
            ..Settings::default()
        };
        let mut s = ready_session(&settings);
        let mut job = plan::jobs(&game, &settings).remove(0);
        job.tasks.remove(0); // keep only Black's move
        s.submit(job).unwrap();
        s.handle_line("readyok").unwrap();
        sent(&mut s);
        s.handle_line("info depth 1 multipv 1 score cp 25 pv e7e5")
            .unwrap();
        s.handle_line("info depth 2 multipv 1 score mate 3 pv e7e5")
            .unwrap();
        s.handle_line("bestmove e7e5").unwrap();
        let r = s.take_result().unwrap();
        let lines = &r.positions[0].search.lines;
        assert_eq!(lines[0].score, Score::Cp(-25));
        assert_eq!(lines[1].score, Score::Mate(-3));
        assert!(r.positions[0].played_search.is_none());
    }

    #[test]
    fn protocol_errors_are_reported_not_panics() {
        let mut s = Session::new(&Settings::default());
        assert!(matches!(
            s.handle_line("bestmove e2e4"),
            Err(SessionError::Unexpected(_))
        ));
        assert!(matches!(
            s.handle_line("info depth x"),
            Err(SessionError::BadLine(_))
        ));
        assert!(s.handle_line("Stockfish 19 by the developers").is_ok());
        let game = pgn::import("1. e4 *").remove(0).unwrap();
        let job = plan::jobs(&game, &Settings::default()).remove(0);
        assert_eq!(s.submit(job), Err(SessionError::Busy));
    }
}
