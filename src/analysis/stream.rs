//! A batch analysed game by game: games go in as they are read, their jobs out, results
//! back, and each game's report comes out, in input order, as soon as its jobs are done.
//! Only the games in flight and the players' aggregates are kept, so memory does not grow
//! with the number of games; the players come at the end, equal to those of one
//! [`Analysis`](super::Analysis) over the same games.
//!
//! ```
//! use fairsight::{EngineInfo, ModelOverrides, NoBook, Settings, Stream, pgn};
//! let settings = Settings { min_move: 100, ..Settings::default() }; // nothing to search
//! let mut stream = Stream::new(settings, EngineInfo::default(), ModelOverrides::default());
//! let mut games = Vec::new();
//! for game in pgn::games("[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n") {
//!     assert!(stream.push(game, &NoBook).is_empty());
//!     games.extend(std::iter::from_fn(|| stream.next_game()));
//! }
//! assert_eq!(games[0].plies.len(), 2);
//! let report = stream.finish();
//! assert_eq!(report.players.len(), 2);
//! assert!(report.games.is_empty(), "the games were handed out as they finished");
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use super::{
    ModelOverrides, error_report, game_jobs, game_report, players::Players, pre_exclusions,
};
use crate::{
    book::Book,
    engine::{Job, JobId, JobResult, PositionAnalysis},
    game::{Game, ImportError},
    plan::{Exclusion, Settings},
    record::EngineInfo,
    report::{GameReport, Report},
};

/// A game waiting for its jobs.
struct InFlight {
    game: Result<Game, ImportError>,
    pre: BTreeMap<usize, Exclusion>,
    results: BTreeMap<usize, PositionAnalysis>,
    /// Chunks not yet done.
    open: BTreeSet<usize>,
}

/// See the module docs.
pub struct Stream {
    settings: Settings,
    engine: EngineInfo,
    models: ModelOverrides,
    /// Ratings entered by the user, by lower-case player name.
    ratings: HashMap<String, f64>,
    in_flight: VecDeque<InFlight>,
    players: Players,
}

impl Stream {
    /// A stream for these settings and engine (the models given, else the shipped ones,
    /// each only if made with them).
    pub fn new(settings: Settings, engine: EngineInfo, models: ModelOverrides) -> Stream {
        Stream {
            settings,
            engine,
            models,
            ratings: HashMap::new(),
            in_flight: VecDeque::new(),
            players: Players::default(),
        }
    }

    /// A rating for a player (by name, case-insensitive), overriding the PGN's Elo tags.
    pub fn set_rating(&mut self, player: &str, elo: f64) {
        self.ratings.insert(player.to_lowercase(), elo);
    }

    /// Takes the next game of the input (imported or failed; its `index` is its number
    /// in the input) and returns its jobs, with the book for the book exclusion.
    pub fn push(&mut self, game: Result<Game, ImportError>, book: &dyn Book) -> Vec<Job> {
        let (pre, jobs) = match &game {
            Ok(g) => {
                let pre = pre_exclusions(g, &self.settings, book);
                let jobs = game_jobs(g, &self.settings, &pre);
                (pre, jobs)
            }
            Err(_) => (BTreeMap::new(), Vec::new()),
        };
        self.in_flight.push_back(InFlight {
            game,
            pre,
            results: BTreeMap::new(),
            open: jobs.iter().map(|j| j.id.chunk).collect(),
        });
        jobs
    }

    fn find(&mut self, game: usize) -> Option<&mut InFlight> {
        self.in_flight.iter_mut().find(|f| match &f.game {
            Ok(g) => g.index == game,
            Err(e) => e.index == game,
        })
    }

    /// Records a finished job (of a game in flight; others are ignored). Results for a
    /// position already recorded replace it.
    pub fn add_result(&mut self, result: JobResult) {
        if let Some(f) = self.find(result.id.game) {
            f.open.remove(&result.id.chunk);
            for p in result.positions {
                f.results.insert(p.ply_index, p);
            }
        }
    }

    /// Gives up on a job: its plies stay unsearched, and its game can finish.
    pub fn give_up(&mut self, id: JobId) {
        if let Some(f) = self.find(id.game) {
            f.open.remove(&id.chunk);
        }
    }

    /// Games taken and not yet handed out by [`Stream::next_game`].
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The report of the first game in flight, if all its jobs are done (else `None`:
    /// games come out in input order), assessed and added to its players.
    pub fn next_game(&mut self) -> Option<GameReport> {
        if !self.in_flight.front()?.open.is_empty() {
            return None;
        }
        let f = self.in_flight.pop_front()?;
        let models = self.models.resolve(&self.settings, &self.engine);
        let mut report = match &f.game {
            Ok(g) => game_report(
                g,
                &f.pre,
                Some(&f.results),
                &self.settings,
                models.classifier,
            ),
            Err(e) => error_report(e),
        };
        let signals = super::assess_sides(&mut report, &models, &self.ratings);
        self.players.add(&report, &models, signals);
        Some(report)
    }

    /// Takes the report of a game analysed by another run of the same settings and
    /// engine (a shard's streamed `game` line): assesses its sides again with this
    /// stream's ratings and models and adds it to its players, as [`Stream::next_game`]
    /// does with a game it analysed itself; the report back, as one run over the whole
    /// input writes it. Games must come in input order, after or instead of pushed ones.
    pub fn push_report(&mut self, mut report: GameReport) -> GameReport {
        let models = self.models.resolve(&self.settings, &self.engine);
        let signals = super::assess_sides(&mut report, &models, &self.ratings);
        self.players.add(&report, &models, signals);
        report
    }

    /// The report of the batch without its games (which [`Stream::next_game`] handed
    /// out; games still in flight are left out): settings, engine, models and the
    /// players over every game handed out.
    pub fn finish(self) -> Report {
        let models = self.models.resolve(&self.settings, &self.engine);
        let players = self.players.finish(&models, &self.ratings);
        let mut report = models.report(self.settings.clone(), self.engine.clone());
        report.players = players;
        report
    }

    /// The report of the batch so far without its games, as [`Stream::finish`] would
    /// give it now, with `more` game reports added after those handed out (in input
    /// order; they are assessed with this stream's ratings, not kept): a view of a run
    /// whose last games are still being analysed. The slow part of a player's summary,
    /// Regan's fit and the intrinsic rating, is made again only for the players whose
    /// games changed since the last snapshot.
    pub fn snapshot<'a>(&self, more: impl IntoIterator<Item = &'a mut GameReport>) -> Report {
        let models = self.models.resolve(&self.settings, &self.engine);
        let mut over = Players::default();
        for report in more {
            let signals = super::assess_sides(report, &models, &self.ratings);
            over.add_over(&self.players, report, &models, signals);
        }
        let mut report = models.report(self.settings.clone(), self.engine.clone());
        report.players = self.players.summaries(&over, &models, &self.ratings);
        report
    }

    /// Names the engine of the report (as a run learns it from the engine).
    pub fn set_engine(&mut self, engine: EngineInfo) {
        self.engine = engine;
        self.players.forget_fits();
    }

    /// The report's head as it will be: settings, engine and models, with no games or
    /// players.
    pub fn head(&self) -> Report {
        let models = self.models.resolve(&self.settings, &self.engine);
        models.report(self.settings.clone(), self.engine.clone())
    }
}
