//! The analysis plan: which positions are searched, how, and in which fixed chunks.
//!
//! A game is cut into chunks of [`Settings::chunk_plies`] consecutive plies. Each chunk is
//! one [`Job`]: `ucinewgame`, an unrecorded warm-up search of the ply before the chunk, then
//! the chunk's plies in game order (forward order avoids hindsight bias: analysing backwards
//! would leave later positions in the hash, which no cheater's engine had). Because chunk
//! boundaries depend only on the game, results are identical for any number of engines.
//!
//! ```
//! use fairsight::{Settings, jobs, pgn};
//! let game = pgn::import("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *").remove(0).unwrap();
//! let settings = Settings { chunk_plies: 4, ..Settings::default() };
//! let jobs = jobs(&game, &settings);
//! assert_eq!(jobs.len(), 2);
//! assert_eq!(jobs[1].warmup, Some(3));
//! ```

use serde::{Deserialize, Serialize};

use crate::{
    book::{Book, NoBook},
    engine::{Job, JobId, Task},
    game::{Game, Variant},
    uci::Limit,
};

/// How the analysis is run and what the statistics include.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Search limit per position.
    pub limit: Limit,
    /// Number of lines (MultiPV).
    pub multipv: u32,
    /// With a depth limit, the most nodes a single search may use (0: no cap). A safety
    /// valve, not a tuning knob: a handful of positions (typically mates found early with
    /// several lines) make the engine search 10-40× longer than usual; the cap stops
    /// them deterministically. Positions of normal games stay far below it.
    pub max_nodes: u64,
    /// Engine hash in MB.
    pub hash_mb: u32,
    /// Which opening book decided the `"book"` exclusion: `"none"`, `"builtin"` (the
    /// shipped position set) or `"file:<file name>"` (a Polyglot book or a position set). A label for the report; the
    /// front end loads the book itself.
    pub book: String,
    /// Plies per chunk (each chunk starts with `ucinewgame` and a warm-up).
    pub chunk_plies: u32,
    /// Plies with a full-move number below this are excluded as `"early"` and not searched.
    pub min_move: u32,
    /// Positions whose best evaluation is beyond this many centipawns (either side) are
    /// excluded from statistics as `"decided"` (Regan and Guid-Bratko use about 3 pawns).
    pub decided_cp: i32,
    /// A move is a "good alternative" when within this many centipawns of the best.
    pub good_margin_cp: i32,
    /// Regan's screening protocol ("zig-zag", seed 003): before the multi-line search
    /// (`limit`, `multipv`: MLM to depth `dL` with `L` lines), a single-line search to
    /// depth `d` records the engine's choice at every depth. `None`: review mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screening: Option<Screening>,
}

/// The single-line part of Regan's screening protocol (the multi-line part is the
/// ordinary search of [`Settings::limit`] and [`Settings::multipv`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Screening {
    /// `d`: depth of the single-line search (SLM), one ply beyond what a cheater's engine
    /// is assumed to reach.
    pub slm_depth: u32,
    /// `dmin`: the first depth whose SLM choice counts in the match bits (Regan: 11,
    /// lower depths are below master strength).
    pub min_depth: u32,
}

/// Default SLM depth `d` of the screening mode.
pub const SCREENING_SLM_DEPTH: u32 = 16;
/// Default `dmin` of the screening mode.
pub const SCREENING_MIN_DEPTH: u32 = 11;
/// Default MLM depth `dL` of the screening mode (Regan: `dL ≥ d − 2`).
pub const SCREENING_MLM_DEPTH: u32 = 14;
/// Default number of MLM lines `L` of the screening mode (Regan: 10).
pub const SCREENING_LINES: u32 = 10;

impl Settings {
    /// The screening protocol's settings with the defaults: SLM to depth 16 recording the
    /// choice from depth 11, then MLM with 10 lines to depth 14, node cap as in review.
    pub fn screening() -> Settings {
        Settings {
            limit: Limit::Depth(SCREENING_MLM_DEPTH),
            multipv: SCREENING_LINES,
            screening: Some(Screening {
                slm_depth: SCREENING_SLM_DEPTH,
                min_depth: SCREENING_MIN_DEPTH,
            }),
            ..Settings::default()
        }
    }
}

/// Why settings cannot be used: each names the setting ([`SettingsError::setting`]) so a
/// front end can point at its own flag or field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// The depth is outside 1..=[`MAX_DEPTH`], or the node count is 0.
    Limit,
    /// The number of lines is outside 1..=[`MAX_MULTIPV`].
    Multipv,
    /// No plies per chunk.
    ChunkPlies,
    /// No engine hash.
    Hash,
    /// Screening mode with a node limit.
    ScreeningNodes,
    /// Screening depths not 1 <= dmin <= d <= [`MAX_DEPTH`].
    ScreeningDepths,
}

/// The deepest search the settings allow.
pub const MAX_DEPTH: u32 = 60;
/// The most lines (MultiPV) the settings allow.
pub const MAX_MULTIPV: u32 = 64;

impl SettingsError {
    /// The setting at fault, by its JSON name (`limit`, `multipv`, `chunkPlies`,
    /// `hashMb`, `screening`).
    pub fn setting(&self) -> &'static str {
        match self {
            SettingsError::Limit => "limit",
            SettingsError::Multipv => "multipv",
            SettingsError::ChunkPlies => "chunkPlies",
            SettingsError::Hash => "hashMb",
            SettingsError::ScreeningNodes | SettingsError::ScreeningDepths => "screening",
        }
    }
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::Limit => write!(
                f,
                "the depth must be 1 to {MAX_DEPTH}, the node count at least 1"
            ),
            SettingsError::Multipv => write!(f, "lines (MultiPV) must be 1 to {MAX_MULTIPV}"),
            SettingsError::ChunkPlies => write!(f, "plies per chunk must be at least 1"),
            SettingsError::Hash => write!(f, "the engine hash must be at least 1 MB"),
            SettingsError::ScreeningNodes => write!(
                f,
                "the screening mode searches to fixed depths, not a node count"
            ),
            SettingsError::ScreeningDepths => {
                write!(f, "the screening depths need 1 <= dmin <= d <= {MAX_DEPTH}")
            }
        }
    }
}

impl std::error::Error for SettingsError {}

impl Settings {
    /// Whether an analysis can run with these settings: the one check both front ends
    /// (the CLI's flags, the page's settings) apply.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let limit_ok = match self.limit {
            Limit::Depth(d) => (1..=MAX_DEPTH).contains(&d),
            Limit::Nodes(n) => n >= 1,
        };
        if !limit_ok {
            return Err(SettingsError::Limit);
        }
        if !(1..=MAX_MULTIPV).contains(&self.multipv) {
            return Err(SettingsError::Multipv);
        }
        if self.chunk_plies == 0 {
            return Err(SettingsError::ChunkPlies);
        }
        if self.hash_mb == 0 {
            return Err(SettingsError::Hash);
        }
        if let Some(z) = self.screening {
            if !matches!(self.limit, Limit::Depth(_)) {
                return Err(SettingsError::ScreeningNodes);
            }
            if !(1..=MAX_DEPTH).contains(&z.slm_depth)
                || z.min_depth == 0
                || z.min_depth > z.slm_depth
            {
                return Err(SettingsError::ScreeningDepths);
            }
        }
        Ok(())
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limit: Limit::Depth(DEFAULT_DEPTH),
            multipv: DEFAULT_MULTIPV,
            max_nodes: DEFAULT_MAX_NODES,
            hash_mb: 16,
            book: "none".to_owned(),
            chunk_plies: 16,
            min_move: 1,
            decided_cp: 300,
            good_margin_cp: 20,
            screening: None,
        }
    }
}

/// Default search depth of the review mode.
pub const DEFAULT_DEPTH: u32 = 14;
/// Default node cap per search with a depth limit (about 14 s of the lite wasm build).
pub const DEFAULT_MAX_NODES: u64 = 4_000_000;
/// Default number of lines of the review mode.
pub const DEFAULT_MULTIPV: u32 = 4;

/// Why a ply is not counted (and, for some reasons, not searched at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Exclusion {
    /// Position in the opening book (not searched).
    Book,
    /// Only one legal move (not searched).
    Forced,
    /// Before [`Settings::min_move`] (not searched).
    Early,
    /// The position was already decided (searched, not counted).
    Decided,
    /// The position repeats an earlier one (searched, not counted).
    Repetition,
}

impl Exclusion {
    /// Whether a ply with this exclusion is searched at all.
    pub fn is_searched(self) -> bool {
        matches!(self, Exclusion::Decided | Exclusion::Repetition)
    }

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Exclusion::Book => "book",
            Exclusion::Forced => "forced",
            Exclusion::Early => "early",
            Exclusion::Decided => "decided",
            Exclusion::Repetition => "repetition",
        }
    }
}

/// How many plies from the start of the game are book moves: the book phase ends at the
/// first move that is not in the book, even if a later position is (a transposition back
/// into theory after leaving it is play, not preparation).
pub fn book_run(game: &Game, book: &dyn Book) -> usize {
    game.plies
        .iter()
        .take_while(|p| book.is_book_move(&p.fen_before, &p.uci))
        .count()
}

/// The exclusion that is known before searching (book, forced, early), if any.
pub fn pre_exclusion(
    game: &Game,
    ply_index: usize,
    settings: &Settings,
    book_run: usize,
) -> Option<Exclusion> {
    let ply = game.plies.get(ply_index)?;
    if ply.move_number < settings.min_move {
        Some(Exclusion::Early)
    } else if ply.legal_moves <= 1 {
        Some(Exclusion::Forced)
    } else if ply_index < book_run {
        Some(Exclusion::Book)
    } else {
        None
    }
}

/// Cuts a game into jobs. Chunks whose plies are all excluded before search yield no job.
pub fn jobs(game: &Game, settings: &Settings) -> Vec<Job> {
    jobs_with_book(game, settings, &NoBook)
}

/// [`jobs`] with a book for the `"book"` exclusion.
pub fn jobs_with_book(game: &Game, settings: &Settings, book: &dyn Book) -> Vec<Job> {
    let run = book_run(game, book);
    jobs_skipping(game, settings, &|i| {
        pre_exclusion(game, i, settings, run).is_some()
    })
}

/// Cuts a game into jobs, leaving out the plies for which `skip` is true.
pub fn jobs_skipping(game: &Game, settings: &Settings, skip: &dyn Fn(usize) -> bool) -> Vec<Job> {
    let chunk = settings.chunk_plies.max(1) as usize;
    let all_moves: Vec<String> = game.plies.iter().map(|p| p.uci.clone()).collect();
    let start_fen = (!game.is_standard_start()).then(|| game.start_fen.clone());
    let mut out = Vec::new();
    for (chunk_index, start) in (0..game.plies.len()).step_by(chunk).enumerate() {
        let end = (start + chunk).min(game.plies.len());
        let tasks: Vec<Task> = (start..end)
            .filter(|&i| !skip(i))
            .map(|i| Task {
                ply_index: i,
                played: game.plies[i].uci.clone(),
                side: game.plies[i].side,
            })
            .collect();
        let Some(last) = tasks.last().map(|t| t.ply_index) else {
            continue;
        };
        let first = tasks[0].ply_index;
        out.push(Job {
            id: JobId {
                game: game.index,
                chunk: chunk_index,
            },
            chess960: game.variant == Variant::Chess960,
            start_fen: start_fen.clone(),
            moves: all_moves[..=last].to_vec(),
            warmup: first.checked_sub(1),
            tasks,
            limit: settings.limit,
            multipv: settings.multipv.max(1),
            max_nodes: settings.max_nodes,
            slm_depth: settings.screening.map(|s| s.slm_depth),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{game::Side, pgn, uci::Command};

    fn game(text: &str) -> Game {
        pgn::import(text).remove(0).expect("fixture imports")
    }

    #[test]
    fn settings_are_checked_once_for_both_front_ends() {
        let ok = Settings::default();
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(Settings::screening().validate(), Ok(()));
        let with = |f: &dyn Fn(&mut Settings)| {
            let mut s = Settings::default();
            f(&mut s);
            s.validate()
        };
        assert_eq!(
            with(&|s| s.limit = Limit::Depth(0)),
            Err(SettingsError::Limit)
        );
        assert_eq!(
            with(&|s| s.limit = Limit::Depth(61)),
            Err(SettingsError::Limit)
        );
        assert_eq!(
            with(&|s| s.limit = Limit::Nodes(0)),
            Err(SettingsError::Limit)
        );
        assert_eq!(with(&|s| s.multipv = 65), Err(SettingsError::Multipv));
        assert_eq!(with(&|s| s.multipv = 0), Err(SettingsError::Multipv));
        assert_eq!(with(&|s| s.chunk_plies = 0), Err(SettingsError::ChunkPlies));
        assert_eq!(with(&|s| s.hash_mb = 0), Err(SettingsError::Hash));
        let mut z = Settings::screening();
        z.limit = Limit::Nodes(1000);
        assert_eq!(z.validate(), Err(SettingsError::ScreeningNodes));
        let mut z = Settings::screening();
        z.screening = Some(Screening {
            slm_depth: 8,
            min_depth: 9,
        });
        assert_eq!(z.validate(), Err(SettingsError::ScreeningDepths));
        assert_eq!(SettingsError::Hash.setting(), "hashMb");
    }

    #[test]
    fn chunks_are_fixed_and_warm_up_on_the_previous_ply() {
        let g = game("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O *");
        let s = Settings {
            chunk_plies: 4,
            ..Settings::default()
        };
        let jobs = jobs(&g, &s);
        assert_eq!(jobs.len(), 3);
        assert_eq!(jobs[0].warmup, None);
        assert_eq!(jobs[1].warmup, Some(3));
        assert_eq!(jobs[2].warmup, Some(7));
        let plies: Vec<usize> = jobs[1].tasks.iter().map(|t| t.ply_index).collect();
        assert_eq!(plies, [4, 5, 6, 7]);
        assert_eq!(jobs[2].tasks[0].played, "e1g1");
        assert_eq!(jobs[2].moves.len(), 9);
        assert_eq!(
            jobs[1].position(5).to_string(),
            "position startpos moves e2e4 e7e5 g1f3 c7c6 f1b5".replace("c7c6", "b8c6")
        );
        assert_eq!(jobs[1].tasks[1].side, Side::Black);
    }

    #[test]
    fn early_and_forced_plies_are_not_searched() {
        // After 1. Rh7 Black's only legal move is Kb8.
        let g = game(
            "[FEN \"k7/8/1K6/8/8/8/8/7R w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Rh7 Kb8 2. Rh8# 1-0",
        );
        let all = jobs(&g, &Settings::default());
        let plies: Vec<usize> = all[0].tasks.iter().map(|t| t.ply_index).collect();
        assert_eq!(plies, [0, 2], "the forced 1... Kb8 is not searched");
        assert_eq!(
            pre_exclusion(&g, 1, &Settings::default(), 0),
            Some(Exclusion::Forced)
        );
        let s = Settings {
            min_move: 2,
            ..Settings::default()
        };
        let jobs = jobs(&g, &s);
        assert_eq!(jobs.len(), 1);
        let plies: Vec<usize> = jobs[0].tasks.iter().map(|t| t.ply_index).collect();
        assert_eq!(plies, [2]);
        assert_eq!(jobs[0].warmup, Some(1));
        assert!(matches!(
            jobs[0].position(0),
            Command::Position { fen: Some(_), .. }
        ));
        assert_eq!(
            pre_exclusion(&g, 0, &s, 0),
            Some(Exclusion::Early),
            "move 1 is before min_move 2"
        );
    }
}
