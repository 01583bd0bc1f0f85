//! A batch analysis: imported games, their jobs, the results as they arrive, the report.
//!
//! This is what every front end drives: the CLI with engine processes, the browser with
//! Web Workers. It holds no engine and does no I/O.
//!
//! ```
//! use fairsight::{Analysis, Settings};
//! let a = Analysis::from_pgn("1. e4 e5 *\n\n1. e4 Ke7 *", Settings::default());
//! assert_eq!(a.games().len(), 2);
//! assert!(a.games()[1].is_err(), "1... Ke7 is illegal: the e7 pawn is in the way");
//! assert_eq!(a.jobs().len(), 1);
//! assert_eq!(a.total_positions(), 2);
//! ```

mod merge;
mod players;
pub mod signals;
mod stream;
mod view;

pub use merge::{
    MergeError, ModelOverrides, check_shard_game, check_shard_heads, entered_ratings, merge_shards,
};
pub use stream::Stream;
pub use view::{ReportCache, ReportParts};

use std::collections::{BTreeMap, HashMap};

use crate::{
    accuracy::{self, Accuracy},
    book::{Book, NoBook},
    engine::{Job, JobResult, PositionAnalysis},
    game::{Game, ImportError, Side},
    model::{
        assessment::{AssessmentModel, Signals},
        classifier::{Classifier, ClassifierStats},
    },
    pgn,
    plan::{self, Exclusion, Settings},
    record::{EngineInfo, PlyReport, features},
    report::{GameReport, PlayerReport, Report, SCHEMA, SideReport, Sides},
    stats::{calibration::Calibration, haworth, regan, scan, time},
};
use players::Players;

/// A rating given as `NAME=ELO` (the last `=` splits; spaces around either part are
/// ignored): the name and a positive, finite rating, or `None`. The CLI's `--rating` and
/// the page's ratings box both read it.
///
/// ```
/// assert_eq!(fairsight::parse_rating(" Carlsen, Magnus = 2850"), Some(("Carlsen, Magnus", 2850.0)));
/// assert_eq!(fairsight::parse_rating("a=b=1500"), Some(("a=b", 1500.0)));
/// assert_eq!(fairsight::parse_rating("Ann=inf"), None);
/// assert_eq!(fairsight::parse_rating("=2000"), None);
/// ```
pub fn parse_rating(text: &str) -> Option<(&str, f64)> {
    let (name, elo) = text.rsplit_once('=')?;
    let (name, elo) = (name.trim(), elo.trim().parse::<f64>().ok()?);
    (!name.is_empty() && elo.is_finite() && elo > 0.0).then_some((name, elo))
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct Analysis {
    settings: Settings,
    games: Vec<Result<Game, ImportError>>,
    /// Per game index, per ply index.
    results: HashMap<usize, BTreeMap<usize, PositionAnalysis>>,
    /// Pre-search exclusions, per game index, per ply index.
    pre: HashMap<usize, BTreeMap<usize, Exclusion>>,
    /// Ratings entered by the user, by lower-case player name.
    ratings: HashMap<String, f64>,
    /// Models given instead of the shipped ones.
    models: ModelOverrides,
}

impl Analysis {
    /// Imports a PGN text; failed games are kept as errors.
    pub fn from_pgn(text: &str, settings: Settings) -> Analysis {
        Analysis::new(pgn::import(text), settings, &NoBook)
    }

    /// From already imported games, with a book for the book exclusion.
    pub fn new(
        games: Vec<Result<Game, ImportError>>,
        settings: Settings,
        book: &dyn Book,
    ) -> Analysis {
        let pre = games
            .iter()
            .flatten()
            .map(|g| (g.index, pre_exclusions(g, &settings, book)))
            .collect();
        Analysis {
            settings,
            games,
            results: HashMap::new(),
            pre,
            ratings: HashMap::new(),
            models: ModelOverrides::default(),
        }
    }

    /// Uses this move classifier instead of the shipped one (it still only applies to
    /// reports with its engine build and settings).
    pub fn set_classifier(&mut self, model: Classifier) {
        self.models.classifier = Some(model);
    }

    /// Uses this assessment model instead of the shipped one (it still only applies to
    /// reports with its engine build and settings).
    pub fn set_assessment(&mut self, model: AssessmentModel) {
        self.models.assessment = Some(model);
    }

    /// Uses this calibration table instead of the shipped one (it still only applies to
    /// reports with its engine build and settings).
    pub fn set_calibration(&mut self, table: Calibration) {
        self.models.calibration = Some(table);
    }

    /// A rating for a player (by name, case-insensitive), overriding the PGN's Elo tags.
    pub fn set_rating(&mut self, player: &str, elo: f64) {
        self.ratings.insert(player.to_lowercase(), elo);
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Every game of the input, imported or failed.
    pub fn games(&self) -> &[Result<Game, ImportError>] {
        &self.games
    }

    /// All jobs of all games, in game then chunk order.
    pub fn jobs(&self) -> Vec<Job> {
        let mut out = Vec::new();
        for g in self.games.iter().flatten() {
            out.extend(game_jobs(g, &self.settings, &self.pre[&g.index]));
        }
        out
    }

    /// Positions to search in total.
    pub fn total_positions(&self) -> usize {
        self.games
            .iter()
            .flatten()
            .map(|g| g.plies.len() - self.pre[&g.index].len())
            .sum()
    }

    /// Positions searched so far.
    pub fn done_positions(&self) -> usize {
        self.results.values().map(BTreeMap::len).sum()
    }

    /// Records a finished job. Results for a position already recorded replace it (a
    /// retried job counts once).
    pub fn add_result(&mut self, result: JobResult) {
        let game = self.results.entry(result.id.game).or_default();
        for mut p in result.positions {
            // Kept for as long as the analysis: only what a report reads.
            p.slim();
            game.insert(p.ply_index, p);
        }
    }

    /// The report of everything analysed so far.
    pub fn report(&self, engine: EngineInfo) -> Report {
        let models = self.models.resolve(&self.settings, &engine);
        let mut games: Vec<GameReport> = self
            .games
            .iter()
            .map(|g| self.game_report(g, &models))
            .collect();
        let players = summarise(&mut games, &models, &self.ratings);
        let mut report = models.report(self.settings.clone(), engine);
        report.games = games;
        report.players = players;
        report
    }

    /// The report's games alone, each side summarised but not assessed, and no players:
    /// for reading the games' own signals in bulk (the corpus's fits and studies) without
    /// the players' summaries, whose Regan fits are most of a report's time.
    pub fn games_report(&self, engine: EngineInfo) -> Report {
        let models = self.models.resolve(&self.settings, &engine);
        let games = self
            .games
            .iter()
            .map(|g| self.game_report(g, &models))
            .collect();
        let mut report = models.report(self.settings.clone(), engine);
        report.games = games;
        report
    }

    /// One game's report from its results so far, before its sides are assessed.
    fn game_report(&self, g: &Result<Game, ImportError>, models: &Models) -> GameReport {
        match g {
            Ok(game) => game_report(
                game,
                &self.pre[&game.index],
                self.results.get(&game.index),
                &self.settings,
                models.classifier,
            ),
            Err(e) => error_report(e),
        }
    }
}

/// What one game costs to analyse at these settings, as [`Analysis`] plans it: its jobs
/// and the positions they search. (A count of a whole input without keeping its games.)
pub fn game_plan(game: &Game, settings: &Settings, book: &dyn Book) -> (usize, usize) {
    let pre = pre_exclusions(game, settings, book);
    let jobs = game_jobs(game, settings, &pre).len();
    (jobs, game.plies.len() - pre.len())
}

/// The exclusions known before searching (book, forced, early), by ply index.
fn pre_exclusions(game: &Game, settings: &Settings, book: &dyn Book) -> BTreeMap<usize, Exclusion> {
    let run = plan::book_run(game, book);
    (0..game.plies.len())
        .filter_map(|i| plan::pre_exclusion(game, i, settings, run).map(|e| (i, e)))
        .collect()
}

/// A game's jobs: its plies but the excluded ones.
fn game_jobs(game: &Game, settings: &Settings, pre: &BTreeMap<usize, Exclusion>) -> Vec<Job> {
    plan::jobs_skipping(game, settings, &|i| pre.contains_key(&i))
}

/// The report of one imported game from its engine results so far (by ply index).
fn game_report(
    game: &Game,
    pre: &BTreeMap<usize, Exclusion>,
    results: Option<&BTreeMap<usize, PositionAnalysis>>,
    settings: &Settings,
    classifier: Option<&Classifier>,
) -> GameReport {
    let mut plies: Vec<PlyReport> = game
        .plies
        .iter()
        .enumerate()
        .map(|(i, ply)| {
            let analysis = results.and_then(|r| r.get(&i));
            let features = analysis
                .map(|a| features::features(game, ply, a, settings))
                .unwrap_or_default();
            let excluded = pre.get(&i).copied().or_else(|| {
                analysis.and_then(|_| features::post_exclusion(ply, &features, settings))
            });
            PlyReport {
                ply: ply.ply,
                move_number: ply.move_number,
                side: ply.side,
                san: ply.san.clone(),
                uci: ply.uci.clone(),
                fen: ply.fen_before.clone(),
                excluded,
                searched: analysis.is_some(),
                lines: analysis
                    .map(|a| features::lines(game, ply, a))
                    .unwrap_or_default(),
                screening: analysis.zip(settings.screening).and_then(|(a, s)| {
                    crate::record::screening::screening_move(
                        &ply.uci,
                        ply.side,
                        ply.repetition,
                        a,
                        s.min_depth,
                        s.slm_depth,
                    )
                }),
                trend: analysis.and_then(|_| {
                    let best = features
                        .eval?
                        .with_sign(ply.side.sign())
                        .to_cp(crate::eval::MATE_CP);
                    crate::record::levels::Levels::new(&features.depth_evals, best)
                        .map(|l| l.trend())
                }),
                features,
                engine_probability: None,
                engine_like: false,
                time_spent: ply.time_spent,
                clock: ply.clock,
                comments: ply.comments.clone(),
                nags: ply.nags.clone(),
            }
        })
        .collect();
    if let Some(c) = classifier {
        c.classify_game(&mut plies, game.variant);
    }
    let sides = Sides {
        white: side_report(game, &plies, Side::White, classifier),
        black: side_report(game, &plies, Side::Black, classifier),
    };
    GameReport {
        index: game.index,
        line: game.line,
        tags: game.tags.clone(),
        error: None,
        variant: game.variant,
        start_fen: game.start_fen.clone(),
        initial_comment: game.initial_comment.clone(),
        outcome: game.outcome.clone(),
        plies,
        sides,
    }
}

/// A report with these ratings entered (by name, case-insensitive) in place of any
/// entered before: the players, their screening and every assessment recomputed from the
/// report's games, with the shipped models that apply to its settings and engine, as
/// `Analysis::set_rating` before `Analysis::report` gives them. The page applies the
/// ratings typed in it to a saved report this way.
pub fn rerate(report: Report, ratings: &[(&str, f64)]) -> Report {
    let entered: HashMap<String, f64> = ratings
        .iter()
        .map(|(name, elo)| (name.to_lowercase(), *elo))
        .collect();
    let (settings, engine) = (&report.settings, &report.engine);
    let models = Models {
        classifier: Classifier::builtin().filter(|c| c.applies_to(settings, engine)),
        calibration: Calibration::builtin().filter(|c| c.applies_to(settings, engine)),
        assessment: AssessmentModel::builtin().filter(|m| m.applies_to(settings, engine)),
    };
    rebuild(report, &entered, &models)
}

/// The players of a report's games whose lower-case names `keep` accepts, summarised and
/// assessed as [`rerate`] does with no rating entered, but without each player's
/// maximum-likelihood (s, c) fit and intrinsic rating (`regan` and `ipr` are empty): the
/// slow part of a summary (hundreds of likelihoods over every move), which no assessment
/// signal reads. The games' sides are assessed again. For pooling many groups of the same
/// analysed games into players (the corpus's pseudo-players, `fairsight assess`).
pub fn players_without_fits(report: &mut Report, keep: impl Fn(&str) -> bool) -> Vec<PlayerReport> {
    let (settings, engine) = (&report.settings, &report.engine);
    let models = Models {
        classifier: Classifier::builtin().filter(|c| c.applies_to(settings, engine)),
        calibration: Calibration::builtin().filter(|c| c.applies_to(settings, engine)),
        assessment: AssessmentModel::builtin().filter(|m| m.applies_to(settings, engine)),
    };
    let entered = HashMap::new();
    let mut players = Players::without_fits();
    for g in report.games.iter_mut() {
        let signals = assess_sides(g, &models, &entered);
        players.add_only(g, &models, signals, &keep);
    }
    players.finish(&models, &entered)
}

/// The models that apply to a report: what [`rebuild`] recomputes its players with.
#[derive(Clone, Copy)]
struct Models<'a> {
    classifier: Option<&'a Classifier>,
    calibration: Option<&'a Calibration>,
    assessment: Option<&'a AssessmentModel>,
}

impl Models<'_> {
    /// Which models these are (their addresses; none is 0): the same models give the
    /// same games and players.
    fn identity(&self) -> [usize; 3] {
        fn at<T>(m: Option<&T>) -> usize {
            m.map_or(0, |m| std::ptr::from_ref(m) as usize)
        }
        [
            at(self.classifier),
            at(self.calibration),
            at(self.assessment),
        ]
    }

    /// A report of no games yet, naming these models.
    fn report(&self, settings: Settings, engine: EngineInfo) -> Report {
        Report {
            schema: SCHEMA,
            settings,
            engine,
            games: Vec::new(),
            players: Vec::new(),
            calibration: self
                .calibration
                .map(|c| format!("{} (engine {})", c.source, c.engine.build)),
            classifier: self.classifier.map(|c| c.name.clone()),
            classifier_baseline: self.classifier.map(|c| c.baseline.clone()),
            assessment: self.assessment.map(|m| m.name.clone()),
            shard: None,
        }
    }
}

impl ModelOverrides {
    /// The models that apply to these settings and engine: each given one, else the
    /// shipped one, if made with them.
    fn resolve(&self, settings: &Settings, engine: &EngineInfo) -> Models<'_> {
        Models {
            classifier: self
                .classifier
                .as_ref()
                .or(Classifier::builtin())
                .filter(|c| c.applies_to(settings, engine)),
            calibration: self
                .calibration
                .as_ref()
                .or(Calibration::builtin())
                .filter(|c| c.applies_to(settings, engine)),
            assessment: self
                .assessment
                .as_ref()
                .or(AssessmentModel::builtin())
                .filter(|m| m.applies_to(settings, engine)),
        }
    }
}

/// The report's players, and every assessment, recomputed from its games with these
/// entered ratings (by lower-case name) and models.
fn rebuild(mut report: Report, entered: &HashMap<String, f64>, models: &Models) -> Report {
    report.players = summarise(&mut report.games, models, entered);
    report
}

fn error_report(e: &ImportError) -> GameReport {
    GameReport {
        index: e.index,
        line: e.line,
        tags: e.tags.clone(),
        error: Some(e.to_string()),
        variant: Default::default(),
        start_fen: String::new(),
        initial_comment: None,
        outcome: None,
        plies: Vec::new(),
        sides: Sides::default(),
    }
}

/// `engineScore` with a move classifier: its mean probability (the match-rate proxy
/// without one; the assessment's probability replaces both when a model applies).
fn classifier_engine_score(stats: &mut Accuracy, classified: Option<&ClassifierStats>) {
    if let Some(c) = classified
        && stats.analysed_plies > 0
    {
        // No candidate (good) move at all is not engine-like play.
        stats.engine_score = Some(c.mean_probability.unwrap_or(0.0));
    }
}

fn side_report(
    game: &Game,
    plies: &[PlyReport],
    side: Side,
    classifier: Option<&Classifier>,
) -> SideReport {
    let w = accuracy::weights(plies);
    let (samples, excluded) = accuracy::samples(plies, &w, side);
    let classified = classifier.map(|c| c.stats(plies.iter().filter(|p| p.side == side)));
    let mut stats = accuracy::summarise(&samples, excluded);
    classifier_engine_score(&mut stats, classified.as_ref());
    SideReport {
        player: game.player(side).to_owned(),
        stats,
        classifier: classified,
        time: time::time_stats(&[time::timed_moves(plies, side)]),
        competence: haworth::competence(&haworth::decisions(plies, side), true),
        stretch: scan::stretch(&regan::side_sample(game.index, plies, side)),
        matches: crate::record::screening::totals(plies.iter().filter(|p| p.side == side)),
        assessment: None,
    }
}

/// A side's rating: entered for the player, else the game's Elo tag.
fn side_rating(g: &GameReport, side: Side, entered: &HashMap<String, f64>) -> Option<f64> {
    entered
        .get(&g.sides.get(side).player.to_lowercase())
        .copied()
        .or_else(|| signals::tag_rating(g, side))
}

/// Assesses both sides of a game with the model, when one applies (`assessment`, and
/// `engineScore` its probability), against each side's rating (entered, else the Elo
/// tag); returns each side's signals, which its player's assessment pools.
fn assess_sides(
    g: &mut GameReport,
    models: &Models,
    entered: &HashMap<String, f64>,
) -> [Option<Signals>; 2] {
    let Some(model) = models.assessment.filter(|_| g.error.is_none()) else {
        return [None, None];
    };
    [Side::White, Side::Black].map(|side| {
        let rating = side_rating(g, side, entered);
        let signals = signals::side_signals(g, side, rating, models.calibration)?;
        let a = model.assess(&signals);
        let s = g.sides.get_mut(side);
        if let Some(a) = &a {
            s.stats.engine_score = Some(a.probability);
        }
        s.assessment = a;
        Some(signals)
    })
}

/// Assesses the sides of every game and aggregates them by player (case-insensitive).
fn summarise(
    games: &mut [GameReport],
    models: &Models,
    entered: &HashMap<String, f64>,
) -> Vec<PlayerReport> {
    let mut players = Players::default();
    for g in games.iter_mut() {
        let signals = assess_sides(g, models, entered);
        players.add(g, models, signals);
    }
    players.finish(models, entered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::{PvLine, Search},
        uci::{Bound, Score},
    };

    /// A twenty-ply game of two players.
    const TWENTY_PLIES: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 \
        4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 *";

    fn fake_result(job: &Job, cp_of: impl Fn(usize) -> i32) -> JobResult {
        JobResult {
            id: job.id,
            positions: job
                .tasks
                .iter()
                .map(|t| PositionAnalysis {
                    ply_index: t.ply_index,
                    search: Search {
                        lines: vec![PvLine {
                            depth: 1,
                            seldepth: None,
                            multipv: 1,
                            score: Score::Cp(cp_of(t.ply_index)),
                            bound: Bound::Exact,
                            nodes: None,
                            pv: vec![t.played.clone()],
                        }],
                        bestmove: Some(t.played.clone()),
                        nodes: 1,
                        time_ms: 1,
                    },
                    played_search: None,
                    slm: None,
                })
                .collect(),
        }
    }

    /// Two lines per position: the played move first, then another legal move 40 cp
    /// worse (so Regan's screening has a choice to test).
    fn two_line_result(job: &Job) -> JobResult {
        use shakmaty::{CastlingMode, Chess, Position, uci::UciMove};
        let mut result = fake_result(job, |_| 10);
        for p in &mut result.positions {
            let mut pos = Chess::default();
            for m in &job.moves[..p.ply_index] {
                let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
            let played = &p.search.lines[0].pv[0];
            let other = pos
                .legal_moves()
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .find(|u| u != played)
                .unwrap();
            let mut second = p.search.lines[0].clone();
            second.multipv = 2;
            second.score = Score::Cp(-30);
            second.pv = vec![other];
            p.search.lines.push(second);
        }
        result
    }

    #[test]
    fn report_parts_rebuild_only_the_touched_games_and_join_to_the_whole_report() {
        // At the shipped models' settings and engine, so every game is classified and
        // assessed; Ann plays three games, so her player summary pools games that were
        // rebuilt with games that were kept; the third game does not import.
        let model = AssessmentModel::builtin().expect("the assessment model ships");
        let engine = EngineInfo {
            name: "Stockfish".into(),
            build: model.engine.build.clone(),
        };
        let moves = "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 \
                     7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 *";
        let pgn = format!(
            "[White \"Ann\"]\n[Black \"Bob\"]\n[BlackElo \"1900\"]\n\n{moves}\n\n\
             [White \"Carol\"]\n[Black \"Ann\"]\n\n{moves}\n\n\
             [White \"Dave\"]\n[Black \"Eve\"]\n\n1. e4 e5 2. Ke3 *\n\n\
             [White \"ann\"]\n[Black \"Dave\"]\n[WhiteElo \"2100\"]\n\n{moves}\n"
        );
        // The texts all at once, and a few at a time (`report_parts_limited`, then
        // `ReportCache::more`), as the page's worker asks for them.
        for limit in [usize::MAX, 1, 3] {
            let mut a = Analysis::from_pgn(&pgn, model.settings.clone());
            assert_eq!(a.games().len(), 4);
            assert!(a.games()[2].is_err());
            let mut cache = ReportCache::default();
            let mut texts: Vec<String> = Vec::new();
            // Joins the parts as the page does, keeping the texts of games not given.
            let mut view = |a: &Analysis, cache: &mut ReportCache, engine: &EngineInfo| {
                let parts = a.report_parts_limited(engine.clone(), cache, limit);
                texts.resize(parts.count, String::new());
                let mut given = parts.changed.clone();
                assert!(given.len() <= limit);
                assert_eq!(parts.pending, cache.pending());
                while cache.pending() > 0 {
                    let more = cache.more(limit);
                    assert!(!more.is_empty() && more.len() <= limit);
                    given.extend(more);
                }
                assert!(cache.more(limit).is_empty());
                for (at, text) in &given {
                    texts[*at] = text.clone();
                }
                let joined = format!(
                    "{}{}{}",
                    parts.head,
                    texts.join(crate::report::GAME_SEPARATOR),
                    parts.tail
                );
                assert_eq!(joined, a.report(engine.clone()).to_json());
                given.iter().map(|c| c.0).collect::<Vec<_>>()
            };
            assert_eq!(
                view(&a, &mut cache, &engine),
                [0, 1, 2, 3],
                "all, the first time"
            );
            assert_eq!(
                view(&a, &mut cache, &engine),
                [] as [usize; 0],
                "nothing touched"
            );
            // Results arrive chunk by chunk, game by game, one game's twice (a retry).
            let jobs = a.jobs();
            assert!(jobs.len() > 3);
            for (k, job) in jobs.iter().enumerate() {
                a.add_result(two_line_result(job));
                cache.touch(job.id.game);
                if k == 1 {
                    a.add_result(two_line_result(job));
                    cache.touch(job.id.game);
                }
                assert_eq!(view(&a, &mut cache, &engine), [job.id.game]);
            }
            assert!(
                a.report(engine.clone())
                    .players
                    .iter()
                    .any(|p| p.assessment.is_some())
            );
            // A rating entered changes every game of that player, and the players.
            a.set_rating("Ann", 2300.0);
            cache.touch_all();
            assert_eq!(view(&a, &mut cache, &engine), [0, 1, 2, 3]);
            // Another engine's build: no model applies, every game is made again; the same
            // build under another name changes only the head.
            let other = EngineInfo {
                name: "Other".into(),
                build: "other".into(),
            };
            assert_eq!(view(&a, &mut cache, &other), [0, 1, 2, 3]);
            let renamed = EngineInfo {
                name: "Stockfish 19".into(),
                build: other.build.clone(),
            };
            assert_eq!(view(&a, &mut cache, &renamed), [] as [usize; 0]);
            assert_eq!(view(&a, &mut cache, &engine), [0, 1, 2, 3]);
            // A report of no games is `[]` between head and tail.
            let empty = Analysis::from_pgn("", model.settings.clone());
            let parts = empty.report_parts(engine.clone(), &mut ReportCache::default());
            assert_eq!(parts.count, 0);
            assert_eq!(
                format!("{}{}", parts.head, parts.tail),
                empty.report(engine.clone()).to_json()
            );
        }
    }

    #[test]
    fn results_are_kept_slim_and_give_the_report_the_whole_results_give() {
        // At the shipped models' settings (classifier and all features apply). Each
        // position: depth-1 lines whose PVs run on (with moves no report may read: not
        // even legal), then the depth-2 lines, the final ones.
        let model = AssessmentModel::builtin().expect("the assessment model ships");
        let engine = EngineInfo {
            name: "Stockfish".into(),
            build: model.engine.build.clone(),
        };
        let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 \
                   4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 *\n";
        let mut a = Analysis::from_pgn(pgn, model.settings.clone());
        let mut whole = BTreeMap::new();
        let jobs = a.jobs();
        assert!(!jobs.is_empty());
        for job in &jobs {
            let mut r = two_line_result(job);
            for p in &mut r.positions {
                let deeper: Vec<PvLine> = p
                    .search
                    .lines
                    .iter()
                    .map(|l| PvLine {
                        depth: 2,
                        ..l.clone()
                    })
                    .collect();
                for l in &mut p.search.lines {
                    l.pv.extend(["a1a1".to_owned(), "z9z9".to_owned()]);
                }
                p.search.lines.extend(deeper);
                whole.insert(p.ply_index, p.clone());
            }
            a.add_result(r);
        }
        let kept = &a.results[&0];
        assert_eq!(kept.len(), whole.len());
        for (p, w) in kept.values().zip(whole.values()) {
            assert_eq!(p.search.final_lines(), w.search.final_lines());
            assert!(
                p.search
                    .lines
                    .iter()
                    .all(|l| l.depth == 2 || l.pv.len() == 1)
            );
            assert!(w.search.lines.iter().any(|l| l.pv.len() == 3));
        }
        let models = a.models.resolve(&a.settings, &engine);
        assert!(models.classifier.is_some());
        let Ok(game) = &a.games()[0] else {
            panic!("the game imports")
        };
        let from_whole = game_report(
            game,
            &a.pre[&0],
            Some(&whole),
            &a.settings,
            models.classifier,
        );
        let from_kept = a.game_report(&a.games()[0], &models);
        assert!(from_kept.plies.iter().any(|p| p.searched));
        assert_eq!(
            Report::game_json(&from_kept),
            Report::game_json(&from_whole)
        );
    }

    #[test]
    fn games_left_to_give_come_again_with_the_next_view() {
        let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n\n\
                   [White \"Bob\"]\n[Black \"Cy\"]\n\n1. d4 d5 *\n\n\
                   [White \"Cy\"]\n[Black \"Ann\"]\n\n1. c4 c5 *\n";
        let mut a = Analysis::from_pgn(pgn, Settings::default());
        let mut cache = ReportCache::default();
        let parts = a.report_parts_limited(EngineInfo::default(), &mut cache, 1);
        assert_eq!((parts.changed.len(), parts.pending), (1, 2));
        assert_eq!(parts.changed[0].0, 0);
        // One more is taken; then a result for the first game arrives before the last
        // is: the next view gives both, in report order, with the new head.
        assert_eq!(cache.more(1)[0].0, 1);
        let job = a
            .jobs()
            .into_iter()
            .find(|j| j.id.game == 0)
            .expect("a job");
        a.add_result(two_line_result(&job));
        cache.touch(0);
        let parts = a.report_parts_limited(EngineInfo::default(), &mut cache, 5);
        assert_eq!(
            parts.changed.iter().map(|c| c.0).collect::<Vec<_>>(),
            [0, 2]
        );
        assert_eq!(parts.pending, 0);
        // A rating entered rebuilds all: nothing left from before is given twice.
        let parts = a.report_parts_limited(EngineInfo::default(), &mut cache, 1);
        assert_eq!((parts.changed.len(), parts.pending), (0, 0));
        a.set_rating("Ann", 2000.0);
        cache.touch_all();
        let parts = a.report_parts_limited(EngineInfo::default(), &mut cache, 2);
        assert_eq!((parts.changed.len(), parts.pending), (2, 1));
        assert_eq!(cache.more(9).len(), 1);
    }

    #[test]
    fn rerate_gives_the_report_of_an_analysis_with_those_ratings_entered() {
        // At the shipped models' settings and engine, so the calibration and the
        // assessment apply and a rating changes the screening and the assessment.
        let model = AssessmentModel::builtin().expect("the assessment model ships");
        let engine = EngineInfo {
            name: "Stockfish".into(),
            build: model.engine.build.clone(),
        };
        let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n[BlackElo \"1900\"]\n\n1. e4 e5 2. Nf3 d6 \
                   3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 \
                   9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 *";
        let analysed = |ratings: &[(&str, f64)]| {
            let mut a = Analysis::from_pgn(pgn, model.settings.clone());
            for j in a.jobs() {
                a.add_result(two_line_result(&j));
            }
            for (name, elo) in ratings {
                a.set_rating(name, *elo);
            }
            a.report(engine.clone())
        };
        let plain = analysed(&[]);
        let rated = analysed(&[("ann", 1500.0), ("BOB", 2600.0)]);
        assert!(plain.calibration.is_some() && plain.assessment.is_some());
        assert_eq!(plain.players[0].rating, None);
        assert_eq!(plain.players[1].rating, Some(1900.0));
        assert_eq!(rated.players[0].rating, Some(1500.0));
        assert_eq!(rated.players[1].rating, Some(2600.0));
        assert!(rated.players[0].z_scores.is_some() && plain.players[0].z_scores.is_none());
        assert_ne!(rated.players[1].assessment, plain.players[1].assessment);

        assert_eq!(
            rerate(plain.clone(), &[("Ann", 1500.0), ("bob", 2600.0)]),
            rated
        );
        // Entered ratings are replaced, not added to: none gives the Elo tags back.
        assert_eq!(rerate(rated, &[]), plain);
    }

    #[test]
    fn an_assessment_model_scores_each_side_and_player_and_becomes_the_engine_score() {
        // Twenty plies, every move the engine's only line: match rate 1, no loss.
        let pgn = TWENTY_PLIES;
        let mut a = Analysis::from_pgn(pgn, Settings::default());
        for j in a.jobs() {
            a.add_result(fake_result(&j, |_| 10));
        }
        let model = r#"{"name": "test model", "source": "synthetic",
            "engine": {"name": "", "build": ""}, "settings": {},
            "variants": [{"rated": false, "clocks": false, "features": ["matchRate"],
                "fill": [0.5], "experts": [{"kind": "top engines", "features": ["matchRate"],
                "model": {"kind": "logistic", "mean": [0.5], "scale": [0.1],
                "weights": [2.0], "bias": -2.0}, "human": [0.0, 1.0]}],
                "platt": [1.0, 0.0], "unclear": 0.3,
                "lookCloser": 0.8, "lookCloserPlayer": 0.9}],
            "ranges": []}"#;
        a.set_assessment(AssessmentModel::from_json(model).unwrap());
        let report = a.report(EngineInfo::default());
        assert_eq!(report.assessment.as_deref(), Some("test model"));
        let white = &report.games[0].sides.white;
        let assessed = white.assessment.as_ref().unwrap();
        // z = -2 + 2 * (1 - 0.5) / 0.1 = 8.
        assert!((assessed.probability - 1.0 / (1.0 + (-8.0f64).exp())).abs() < 1e-12);
        assert_eq!(assessed.level, crate::model::assessment::Level::LookCloser);
        assert_eq!(white.stats.engine_score, Some(assessed.probability));
        assert_eq!(assessed.moves, white.stats.analysed_plies);
        assert_eq!(assessed.reasons[0].signal, "matchRate");
        let ann = &report.players[0];
        assert_eq!(
            ann.assessment.as_ref().map(|x| x.level),
            Some(crate::model::assessment::Level::LookCloser)
        );
        assert_eq!(
            ann.stats.engine_score,
            ann.assessment.as_ref().map(|x| x.probability)
        );
        // The same model under other settings does not apply: no assessment.
        let mut b = Analysis::from_pgn(
            pgn,
            Settings {
                multipv: 2,
                ..Settings::default()
            },
        );
        b.set_assessment(AssessmentModel::from_json(model).unwrap());
        let other = b.report(EngineInfo::default());
        assert!(other.assessment.is_none());
        assert!(other.games[0].sides.white.assessment.is_none());
    }

    #[test]
    fn a_sides_rating_goes_without_z_scores_only_where_no_calibration_applies() {
        let mut a = Analysis::from_pgn(TWENTY_PLIES, Settings::default());
        for j in a.jobs() {
            a.add_result(result_with_early_losses(&j, 12));
        }
        let report = a.report(EngineInfo::default());
        let g = &report.games[0];
        let calibration = Calibration::builtin().expect("the shipped calibration");
        // No calibration (the quick screen's settings): the rating alone, for the
        // signals measured against a model's own rating lines.
        let s = signals::side_signals(g, Side::White, Some(1800.0), None).unwrap();
        assert_eq!(s.rating, Some(1800.0));
        assert_eq!((s.get("zMm"), s.regan.1), (None, 0));
        // A calibration that screens the side: the rating with Regan's z-scores.
        let s = signals::side_signals(g, Side::White, Some(1800.0), Some(calibration)).unwrap();
        assert_eq!(s.rating, Some(1800.0));
        assert!(s.get("zMm").is_some() && s.regan.1 > 0, "{s:?}");
        // A calibration that cannot screen it (no band here): taken as unrated, as the
        // full model was fitted.
        let empty = Calibration {
            bands: Vec::new(),
            ..calibration.clone()
        };
        let s = signals::side_signals(g, Side::White, Some(1800.0), Some(&empty)).unwrap();
        assert_eq!((s.rating, s.get("zMm")), (None, None));
        // A player's signals keep the rating the same way.
        let ann = &report.players[0];
        let sides = [signals::side_signals(g, Side::White, Some(1800.0), None).unwrap()];
        let player = PlayerReport {
            rating: Some(1800.0),
            z_scores: None,
            ..ann.clone()
        };
        let p = signals::player_signals(&player, &sides, None).unwrap();
        assert_eq!((p.rating, p.get("zMm")), (Some(1800.0), None));
        let p = signals::player_signals(&player, &sides, Some(calibration)).unwrap();
        assert_eq!(p.rating, None);
    }

    /// A result in which, before ply `until`, the engine's first line is another legal
    /// move 100 cp better for the mover than the played one (second line); from `until`
    /// on the played move is the only line.
    fn result_with_early_losses(job: &Job, until: usize) -> JobResult {
        use shakmaty::{Position, uci::UciMove};
        let mut r = fake_result(job, |_| 10);
        for p in &mut r.positions {
            if p.ply_index >= until {
                continue;
            }
            let mut pos = shakmaty::Chess::default();
            for m in &job.moves[..p.ply_index] {
                let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
            let played = p.search.lines[0].pv[0].clone();
            let other = pos
                .legal_moves()
                .iter()
                .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
                .find(|m| *m != played)
                .unwrap();
            let mut best = p.search.lines[0].clone();
            best.pv = vec![other.clone()];
            // Scores are White's: 100 cp better for the mover.
            best.score = Score::Cp(if p.ply_index % 2 == 0 { 110 } else { -90 });
            p.search.lines[0].multipv = 2;
            p.search.lines.insert(0, best);
            p.search.bestmove = Some(other);
        }
        r
    }

    #[test]
    fn a_sides_later_half_signals_are_its_last_searched_moves_decided_ones_included() {
        let pgn = TWENTY_PLIES;
        let mut a = Analysis::from_pgn(pgn, Settings::default());
        for j in a.jobs() {
            let mut r = result_with_early_losses(&j, 12);
            // From ply 16 on the game is decided (White +5): searched, not counted.
            for p in r.positions.iter_mut().filter(|p| p.ply_index >= 16) {
                p.search.lines[0].score = Score::Cp(500);
            }
            a.add_result(r);
        }
        let report = a.report(EngineInfo::default());
        let g = &report.games[0];
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        for side in [Side::White, Side::Black] {
            let mine = g.plies.iter().filter(|p| p.side == side && p.searched);
            let searched: Vec<f64> = mine
                .clone()
                .filter(|p| matches!(p.excluded, None | Some(Exclusion::Decided)))
                .map(|p| p.features.win_loss.unwrap())
                .collect();
            let counted: Vec<f64> = mine
                .filter(|p| p.excluded.is_none())
                .map(|p| p.features.win_loss.unwrap())
                .collect();
            assert!(
                searched.len() > counted.len(),
                "the test needs decided plies"
            );
            let expected = mean(&searched[searched.len() / 2..]);
            let counted_only = mean(&counted[counted.len() / 2..]);
            assert!(
                counted_only > expected,
                "the test needs the counted moves' later half to differ: {counted:?}"
            );
            let s = signals::side_signals(g, side, None, None).unwrap();
            assert_eq!(s.get("lateLoss"), Some(expected));
            assert_eq!(s.late_moves, searched.len() - searched.len() / 2);
            // The first half: the other searched moves, decided ones included.
            let early = mean(&searched[..searched.len() / 2]);
            assert_eq!(s.early, (Some(early), searched.len() / 2));
            let gain = s.get("lateGain").unwrap();
            assert!((gain - ((1.0 + early).ln() - (1.0 + expected).ln())).abs() < 1e-12);
            assert_eq!(s.moves, counted.len());
            // `topLines`: the counted moves among the lines, decided ones left out (two
            // of each side's moves put outside the lines here); `seenLines`: among them
            // at some depth (the first of the two put outside at every depth, the second
            // among them at depth 1).
            let mut g = g.clone();
            for (i, p) in g
                .plies
                .iter_mut()
                .filter(|p| p.side == side && p.searched && p.excluded.is_none())
                .take(2)
                .enumerate()
            {
                p.features.rank = None;
                p.features.seen_at = (i == 1).then_some(1);
            }
            let s = signals::side_signals(&g, side, None, None).unwrap();
            let mine = g.plies.iter().filter(|p| p.side == side && p.searched);
            let ranks: Vec<bool> = mine
                .filter(|p| p.excluded.is_none())
                .map(|p| p.features.rank.is_some())
                .collect();
            assert!(ranks.contains(&true) && ranks.contains(&false), "{ranks:?}");
            let share = ranks.iter().filter(|r| **r).count() as f64 / ranks.len() as f64;
            assert_eq!(s.get("topLines"), Some(share));
            assert_eq!(s.top_moves, counted.len());
            let seen: Vec<bool> = g
                .plies
                .iter()
                .filter(|p| p.side == side && p.searched && p.excluded.is_none())
                .map(|p| p.features.seen_at.is_some())
                .collect();
            assert!(seen.contains(&false), "{seen:?}");
            assert!(seen.iter().filter(|s| **s).count() > ranks.iter().filter(|r| **r).count());
            let share = seen.iter().filter(|s| **s).count() as f64 / seen.len() as f64;
            assert_eq!(s.get("seenLines"), Some(share));
        }
    }

    /// Three games (one failed, one player in two games under two spellings), then
    /// `more`, at the shipped models' settings and engine, so the classifier, the
    /// calibration (with a rating entered: Ann, 1800) and the assessment all apply: the
    /// settings, the engine, the PGN, and the whole analysis with every result.
    fn whole_batch(more: &str) -> (Settings, EngineInfo, String, Analysis) {
        let model = AssessmentModel::builtin().expect("the assessment model ships");
        let engine = EngineInfo {
            name: "Stockfish".into(),
            build: model.engine.build.clone(),
        };
        let pgn = format!(
            "{TWENTY_PLIES}\n\n[White \"Carl\"]\n[Black \"Dan\"]\n\n1. e4 Kd8 *\n\n\
             [White \"bob\"]\n[Black \"Eve\"]\n[BlackElo \"2100\"]\n\n1. d4 d5 2. c4 e6 \
             3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 7. Bh4 b6 8. cxd5 Nxd5 9. Bxe7 Qxe7 \
             10. Nxd5 exd5 *\n{more}"
        );
        let settings = model.settings.clone();
        let mut whole = Analysis::from_pgn(&pgn, settings.clone());
        for j in whole.jobs() {
            whole.add_result(two_line_result(&j));
        }
        whole.set_rating("ann", 1800.0);
        (settings, engine, pgn, whole)
    }

    #[test]
    fn a_stream_gives_the_games_and_players_of_the_whole_report() {
        // Results arriving out of order.
        let (settings, engine, pgn, whole) = whole_batch("");
        let expected = whole.report(engine.clone());
        assert!(expected.classifier.is_some() && expected.assessment.is_some());

        let mut stream = Stream::new(settings, engine, ModelOverrides::default());
        stream.set_rating("Ann", 1800.0);
        let mut games = Vec::new();
        let mut jobs = Vec::new();
        for g in pgn::import(&pgn) {
            jobs.extend(stream.push(g, &NoBook));
        }
        assert_eq!(stream.in_flight(), 3);
        assert!(
            stream.next_game().is_none(),
            "the first game waits for its jobs"
        );
        // The last game's jobs first: nothing comes out before the first game's.
        jobs.reverse();
        let first_game_jobs = jobs.iter().filter(|j| j.id.game == 0).count();
        for (k, j) in jobs.iter().enumerate() {
            stream.add_result(two_line_result(j));
            games.extend(std::iter::from_fn(|| stream.next_game()));
            if k + 1 < jobs.len() {
                assert!(games.is_empty(), "game 1 is not done yet");
            }
        }
        assert!(first_game_jobs > 1);
        assert_eq!(stream.in_flight(), 0);
        let head = stream.head();
        let mut report = stream.finish();
        assert!(report.games.is_empty());
        assert_eq!(head.players, Vec::new());
        assert_eq!(
            (&head.calibration, &head.classifier, &head.assessment),
            (&report.calibration, &report.classifier, &report.assessment)
        );
        report.games = games;
        assert_eq!(report, expected);
        assert_eq!(report.players.len(), 3, "Ann, Bob and Eve");
        assert!(report.players[0].z_scores.is_some());
        assert!(report.players[1].assessment.is_some());
    }

    #[test]
    fn a_file_analysed_a_segment_at_a_time_gives_the_whole_report_byte_for_byte() {
        // The page's way with thousands of games (analyzer-worker.js): an analysis of
        // each segment of games alone, the finished segments' game texts added to a
        // stream's players, the segment in progress added to a snapshot of them.
        let (settings, engine, pgn, whole) = whole_batch(&format!("\n{TWENTY_PLIES}\n"));
        let expected = whole.report(engine.clone());
        let n = expected.games.len();
        assert_eq!(n, 4);
        // The plan of the whole input, counted game by game.
        let (jobs, total) = pgn::games(&pgn).flatten().fold((0, 0), |(j, t), g| {
            let (gj, gt) = game_plan(&g, &settings, &NoBook);
            (j + gj, t + gt)
        });
        assert_eq!((jobs, total), (whole.jobs().len(), whole.total_positions()));

        for size in [1, 2, 3] {
            let mut players =
                Stream::new(settings.clone(), engine.clone(), ModelOverrides::default());
            players.set_rating("Ann", 1800.0);
            let mut texts: Vec<String> = Vec::new();
            for start in (0..n).step_by(size) {
                let games: Vec<_> = pgn::games(&pgn).skip(start).take(size).collect();
                let mut segment = Analysis::new(games, settings.clone(), &NoBook);
                segment.set_rating("Ann", 1800.0);
                let segment_jobs = segment.jobs();
                // Its views make its games alone, assessed, no players (the worker's).
                let mut cache = ReportCache::games_only();
                // Half of the segment's results: a view of the run in progress.
                for j in segment_jobs.iter().step_by(2) {
                    segment.add_result(two_line_result(j));
                }
                let parts = segment.report_parts(engine.clone(), &mut cache);
                let head: serde_json::Value =
                    serde_json::from_str(&format!("{}{}", parts.head, parts.tail)).unwrap();
                assert_eq!(head["players"], serde_json::json!([]), "no players");
                let mut given = vec![String::new(); parts.count];
                for (at, text) in parts.changed {
                    given[at] = text;
                }
                let mut partial = cache.games().to_vec();
                assert_eq!(partial, segment.report(engine.clone()).games);
                let reached = start + partial.len();
                let mut prefix = whole.clone();
                prefix.games.truncate(reached);
                prefix.results.retain(|&g, _| g < start);
                for j in segment_jobs.iter().step_by(2) {
                    prefix.add_result(two_line_result(j));
                }
                let mut at_prefix = prefix.report(engine.clone());
                at_prefix.games.clear();
                assert_eq!(
                    players.snapshot(partial.iter_mut()),
                    at_prefix,
                    "segments of {size}, from game {}: the players so far",
                    start + 1
                );
                for j in segment_jobs.iter().skip(1).step_by(2) {
                    segment.add_result(two_line_result(j));
                    cache.touch(j.id.game);
                }
                // The games with new results again, the others as given before.
                for (at, text) in segment.report_parts(engine.clone(), &mut cache).changed {
                    given[at] = text;
                }
                texts.extend(given);
                for g in cache.games() {
                    players.push_report(g.clone());
                }
            }
            let (head, tail) = players.snapshot([]).json_around_games(n);
            assert_eq!(
                format!("{head}{}{tail}", texts.join(crate::report::GAME_SEPARATOR)),
                expected.to_json(),
                "segments of {size}"
            );
        }
    }

    #[test]
    fn report_covers_games_errors_sides_and_players() {
        let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 2. Nf3 *\n\n\
                   [White \"Carl\"]\n[Black \"Dan\"]\n\n1. e4 Kd8 *\n\n\
                   [White \"bob\"]\n[Black \"ann\"]\n\n1. d4 d5 *\n";
        let mut a = Analysis::from_pgn(pgn, Settings::default());
        assert_eq!(a.games().len(), 3);
        assert!(a.games()[1].is_err());
        let jobs = a.jobs();
        assert_eq!(jobs.len(), 2);
        assert_eq!(a.total_positions(), 5);
        for j in &jobs {
            let r = fake_result(j, |i| if i == 2 { 500 } else { 10 });
            a.add_result(r.clone());
            a.add_result(r); // a retried job counts once
        }
        assert_eq!(a.done_positions(), 5);
        let report = a.report(EngineInfo::default());
        assert_eq!(report.schema, 1);
        let g0 = &report.games[0];
        assert_eq!(g0.plies.len(), 3);
        assert_eq!(g0.plies[2].excluded, Some(Exclusion::Decided));
        assert_eq!(g0.sides.white.player, "Ann");
        assert_eq!(g0.sides.white.stats.analysed_plies, 1);
        assert_eq!(g0.sides.white.stats.excluded[&Exclusion::Decided], 1);
        assert_eq!(g0.sides.black.stats.match_rate, Some(1.0));
        assert!(
            report.games[1]
                .error
                .as_deref()
                .unwrap()
                .contains("Carl - Dan")
        );
        assert!(report.games[1].plies.is_empty());
        let names: Vec<&str> = report.players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["Ann", "Bob"],
            "failed games add no players; case-insensitive"
        );
        let ann = &report.players[0];
        assert_eq!((ann.games, ann.white_games, ann.black_games), (2, 1, 1));
        assert_eq!(ann.stats.analysed_plies, 2);

        let json = report.to_json();
        assert!(json.contains("\"schema\": 1"));
        assert!(json.contains("\"cpLoss\": 0"));
        assert!(json.contains("\"engineScore\""));
        assert!(json.contains("\"excluded\": \"decided\""));
        let back = Report::from_json(&json).unwrap();
        assert_eq!(back, report);
    }
}
