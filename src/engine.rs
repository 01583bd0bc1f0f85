//! The engine contract: what the analysis asks of an engine and what it gets back, in
//! one place (as fishnet's `ipc.rs`). A [`Job`] is a chunk of a game to search in order;
//! its [`JobResult`] holds one [`PositionAnalysis`] per [`Task`]: every [`Search`]'s
//! lines ([`PvLine`]) by depth and MultiPV index. [`crate::plan`] makes the jobs,
//! [`crate::session::Session`] runs them over UCI ([`crate::uci`]), and
//! [`crate::record`] turns the results into the analysed plies the models read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    game::Side,
    uci::{Bound, Command, Limit, Score},
};

/// Identifies a job: a game (by input index) and a chunk of it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord,
)]
#[serde(rename_all = "camelCase")]
pub struct JobId {
    /// Index of the game in the input.
    pub game: usize,
    /// Index of the chunk within the game.
    pub chunk: usize,
}

/// One position to search: the position before game ply `ply_index`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Index into the game's plies (and into [`Job::moves`]: the position after
    /// `moves[..ply_index]`).
    pub ply_index: usize,
    /// The move actually played there, UCI.
    pub played: String,
    /// The side to move.
    pub side: Side,
}

/// A chunk of a game to analyse on one engine, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// Which game and chunk.
    pub id: JobId,
    /// Whether castling moves are written king-takes-rook (`UCI_Chess960`).
    pub chess960: bool,
    /// Start FEN, or `None` for the standard start position (`position startpos`).
    pub start_fen: Option<String>,
    /// The game's moves up to the last task of the chunk, UCI.
    pub moves: Vec<String>,
    /// Position index of the unrecorded warm-up search (the ply before the chunk).
    pub warmup: Option<usize>,
    /// The positions to search and record.
    pub tasks: Vec<Task>,
    /// Search limit.
    pub limit: Limit,
    /// Number of lines.
    pub multipv: u32,
    /// Node cap with a depth limit (0: none).
    #[serde(default)]
    pub max_nodes: u64,
    /// Screening mode: before each multi-line search (and the warm-up's), a single-line
    /// search to this depth, recorded apart; the hash is kept between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slm_depth: Option<u32>,
}

impl Job {
    /// The `position` command for the position before `moves[..index]`.
    pub fn position(&self, index: usize) -> Command {
        Command::Position {
            fen: self.start_fen.clone(),
            moves: self.moves.get(..index).unwrap_or(&self.moves).to_vec(),
        }
    }
}

/// One principal variation at one depth, score from White's point of view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PvLine {
    /// Depth of the iteration that printed it.
    pub depth: u32,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// 1-based MultiPV index.
    pub multipv: u32,
    /// Score, from White's point of view.
    pub score: Score,
    /// Whether the score is a bound.
    #[serde(default, skip_serializing_if = "is_exact")]
    pub bound: Bound,
    /// Nodes searched when printed.
    pub nodes: Option<u64>,
    /// The moves, UCI.
    pub pv: Vec<String>,
}

fn is_exact(b: &Bound) -> bool {
    *b == Bound::Exact
}

impl PvLine {
    /// The first move of the line.
    pub fn first_move(&self) -> Option<&str> {
        self.pv.first().map(String::as_str)
    }
}

/// Everything one search printed: the last line per (depth, multipv), in that order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Search {
    /// Lines sorted by depth, then multipv.
    pub lines: Vec<PvLine>,
    /// The engine's `bestmove`.
    pub bestmove: Option<String>,
    /// Nodes at the end of the search.
    pub nodes: u64,
    /// Milliseconds the engine reported at the end of the search.
    pub time_ms: u64,
}

impl Search {
    /// The deepest line of each MultiPV index, ordered by index: the search's result.
    pub fn final_lines(&self) -> Vec<&PvLine> {
        let mut by_pv: BTreeMap<u32, &PvLine> = BTreeMap::new();
        for l in &self.lines {
            by_pv.insert(l.multipv, l);
        }
        by_pv.into_values().collect()
    }

    /// The final line that starts with `mv` (UCI), if the search found one: whether and
    /// how the engine saw the played move.
    pub fn final_line_of(&self, mv: &str) -> Option<&PvLine> {
        self.final_lines()
            .into_iter()
            .find(|l| l.first_move() == Some(mv))
    }

    /// The lines printed at `depth`, ordered by MultiPV index.
    pub fn at_depth(&self, depth: u32) -> impl Iterator<Item = &PvLine> {
        self.lines.iter().filter(move |l| l.depth == depth)
    }

    /// The deepest depth reached.
    pub fn max_depth(&self) -> u32 {
        self.lines.iter().map(|l| l.depth).max().unwrap_or(0)
    }

    /// Keeps of every line but the deepest of each MultiPV index only its first move:
    /// all a report reads of a search (the corpus stores the same, and rebuilds reports
    /// byte for byte from it). Most of a search's memory is those moves.
    pub fn slim(&mut self) {
        let mut deepest = std::collections::BTreeSet::new();
        for l in self.lines.iter_mut().rev() {
            if !deepest.insert(l.multipv) {
                l.pv.truncate(1);
                l.pv.shrink_to_fit();
            }
        }
    }

    pub(crate) fn record(&mut self, line: PvLine) {
        // Replace an earlier line of the same (depth, multipv): the engine's last word wins.
        match self
            .lines
            .binary_search_by_key(&(line.depth, line.multipv), |l| (l.depth, l.multipv))
        {
            Ok(i) => self.lines[i] = line,
            Err(i) => self.lines.insert(i, line),
        }
    }
}

/// The analysis of one position: the MultiPV search and, when the played move was not
/// among its lines, a search of the played move alone to the same limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionAnalysis {
    /// Index into the game's plies.
    pub ply_index: usize,
    /// The MultiPV search.
    pub search: Search,
    /// `go ... searchmoves <played>`, when needed.
    pub played_search: Option<Search>,
    /// Screening mode: the single-line search to depth `d` that ran before the
    /// multi-line one (hash kept), for the engine's choice at every depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slm: Option<Search>,
}

impl PositionAnalysis {
    /// [`Search::slim`] of each of its searches.
    pub fn slim(&mut self) {
        self.search.slim();
        for s in [&mut self.played_search, &mut self.slm]
            .into_iter()
            .flatten()
        {
            s.slim();
        }
    }
}

/// The cache key of a job's result: the engine's identity (its build, the script or
/// binary's file stem, and its UCI `id name`, since a file stem alone does not fix the
/// engine), the hash size and the job without its index in the input (the same game in
/// another file still hits). The CLI's `--cache` and the page's IndexedDB cache both use
/// it, so the same engine and settings give the same key in both.
pub fn cache_key(job: &Job, engine_build: &str, engine_name: &str, hash_mb: u32) -> String {
    let job = Job {
        id: JobId::default(),
        ..job.clone()
    };
    // Serialising a job cannot fail: plain strings and numbers.
    format!(
        "{engine_build}|{engine_name}|hash={hash_mb}|{}",
        serde_json::to_string(&job).unwrap_or_default()
    )
}

/// The result of a [`Job`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobResult {
    /// Which job.
    pub id: JobId,
    /// One analysis per task, in order.
    pub positions: Vec<PositionAnalysis>,
}

impl JobResult {
    /// A cached result as the answer to `job`: the same searches, under the job's id (its
    /// game and chunk index in this input; the cache key leaves the id out, so one result
    /// answers the same positions in any input). The CLI's `--cache` and the page's
    /// IndexedDB both use it.
    pub fn rebound(self, job: &Job) -> JobResult {
        JobResult { id: job.id, ..self }
    }

    /// Engine milliseconds summed over every recorded search.
    pub fn engine_time_ms(&self) -> u64 {
        self.positions
            .iter()
            .map(|p| p.search.time_ms + p.played_search.as_ref().map_or(0, |s| s.time_ms))
            .sum()
    }
}
