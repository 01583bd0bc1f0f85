//! Browser bindings: with the browser layer under it (`wasm/`), the only code that knows
//! about `wasm_bindgen` and the browser's APIs.
//!
//! The opaque objects, driven by `www/`:
//! - [`Analyzer`]: the imported games, their jobs, the results as they come in, the report.
//! - [`EngineSession`]: the sans-IO UCI session of one Web Worker running Stockfish; the
//!   page posts its commands to the worker and feeds back every line the worker prints.
//! - [`WorkerPool`]: the Stockfish Web Workers, each driven by an engine session, with
//!   the core's retry and deadline rules (`wasm/pool.rs`).
//! - [`JobCache`]: analysed jobs in IndexedDB under the core's cache key, the CLI's
//!   (`wasm/cache.rs`).
//! - [`Summary`]: the players of a file analysed a segment of games at a time (an
//!   [`Analyzer`] each, freed after it): the games' reports go in as each segment ends,
//!   and the report's head and tail come out, those of one analysis of the whole file
//!   ([`plan_input`] plans the file first, keeping no game).
//! - [`Rerating`]: a stored report's ratings applied a batch of games at a time.
//!
//! Jobs and results cross the boundary as JSON strings, so a result can be cached in
//! IndexedDB and fed back byte for byte; summaries cross as camelCase objects
//! (serde-wasm-bindgen, JSON-compatible). Every fallible call returns a `JsError`; nothing
//! here unwraps.

#![deny(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use wasm_bindgen::prelude::*;

mod cache;
mod pool;

pub use cache::JobCache;
pub use pool::WorkerPool;

use crate::{
    analysis::{Analysis, ReportCache, Stream},
    book,
    engine::{Job, JobResult},
    game::{Game, ImportError, Side},
    plan::Settings,
    record::EngineInfo,
    report::Report,
    session::Session,
};

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn settings_from(value: JsValue) -> Result<Settings, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Settings::default());
    }
    let settings: Settings = serde_wasm_bindgen::from_value(value)
        .map_err(|e| JsError::new(&format!("bad settings: {e}")))?;
    settings
        .validate()
        .map_err(|e| JsError::new(&format!("bad settings: {e}")))?;
    Ok(settings)
}

/// Installs the panic hook (panics become `console.error` with a message). Called once
/// when the module starts.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The default settings (review mode), as a camelCase object.
#[wasm_bindgen(js_name = defaultSettings)]
pub fn default_settings() -> Result<JsValue, JsError> {
    to_js(&Settings::default())
}

/// The crate version, shown in the page and used in cache keys.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// A comment as a reader sees it: without its `[%clk]`, `[%eval]`, … commands, whitespace
/// collapsed (the page shows clocks and evaluations on their own).
#[wasm_bindgen(js_name = commentText)]
pub fn comment_text(comment: &str) -> String {
    crate::pgn::strip_commands(comment, None)
}

/// White's win chance (0-100) of a score (`{cp}` or `{mate}`, White's point of view),
/// as the core counts it (mates as ±1000 cp); `undefined` for anything else.
#[wasm_bindgen(js_name = winPercent)]
pub fn win_percent(score: JsValue) -> Option<f64> {
    let score: crate::uci::Score = serde_wasm_bindgen::from_value(score).ok()?;
    Some(crate::eval::score_win_percent(score))
}

/// A ply's side as the report writes it: `"black"`, else White.
fn side_of(side: &str) -> Side {
    if side == "black" {
        Side::Black
    } else {
        Side::White
    }
}

/// A line of SAN moves with move numbers from a ply (`moveNumber`, `side`: `"white"` or
/// `"black"`), Black's first move as `12… Nc6`: the core's numbering, as in the
/// annotated PGN.
#[wasm_bindgen(js_name = pvText)]
pub fn pv_text(move_number: u32, side: &str, sans: Vec<String>) -> String {
    let sans: Vec<&str> = sans.iter().map(String::as_str).collect();
    crate::render::numbered_moves(move_number, side_of(side), &sans, "…").join(" ")
}

/// A ply's move number as written before its move (`moveNumber`, `side`: `"white"` or
/// `"black"`): `8.` for White, `8…` for Black, the core's numbering; `?` for the number
/// when it is missing or not a move number (a report edited by hand).
#[wasm_bindgen(js_name = moveNumber)]
pub fn move_number(move_number: Option<f64>, side: &str) -> String {
    let side = side_of(side);
    match move_number.filter(|n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n)) {
        Some(n) => crate::render::move_number(n as u32, side, "…"),
        None => crate::render::move_number("?", side, "…"),
    }
}

/// The meaning of the move NAGs the page shows, from the core: `{symbols: {nag: text},
/// judgements: {inaccuracy, mistake, blunder: text}}` (engine-like and better-than-engine
/// moves get no NAG: the page marks them with its own legend).
#[wasm_bindgen(js_name = nagTable)]
pub fn nag_table() -> Result<JsValue, JsError> {
    use crate::record::features::Judgement;
    use crate::render::{self, nag_symbol};
    let symbols: std::collections::BTreeMap<String, &str> = (1..=6)
        .filter_map(|n| nag_symbol(n).map(|s| (n.to_string(), s)))
        .collect();
    let judgements: std::collections::BTreeMap<&str, &str> = [
        ("inaccuracy", Judgement::Inaccuracy),
        ("mistake", Judgement::Mistake),
        ("blunder", Judgement::Blunder),
    ]
    .into_iter()
    .map(|(k, j)| (k, render::judgement_symbol(j)))
    .collect();
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Table<'a> {
        symbols: std::collections::BTreeMap<String, &'a str>,
        judgements: std::collections::BTreeMap<&'a str, &'a str>,
    }
    to_js(&Table {
        symbols,
        judgements,
    })
}

/// Which shipped models apply to an analysis with these settings (as `Analyzer` takes
/// them, with `book` set) and engine build, and the settings they were made with:
/// `{assessment, classifier, calibration: bool, calibrated: Settings, calibratedBuild}`.
/// The page says it before a run, so no setting silently switches a model off.
#[wasm_bindgen(js_name = modelsApplying)]
pub fn models_applying(settings: JsValue, build: &str) -> Result<JsValue, JsError> {
    use crate::{
        model::{assessment::AssessmentModel, classifier::Classifier},
        stats::calibration::Calibration,
    };
    let settings = settings_from(settings)?;
    let engine = EngineInfo {
        name: String::new(),
        build: build.to_owned(),
    };
    let assessment = AssessmentModel::builtin();
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Applying {
        assessment: bool,
        classifier: bool,
        calibration: bool,
        calibrated: Option<Settings>,
        calibrated_build: Option<String>,
    }
    to_js(&Applying {
        assessment: assessment.is_some_and(|m| m.applies_to(&settings, &engine)),
        classifier: Classifier::builtin().is_some_and(|m| m.applies_to(&settings, &engine)),
        calibration: Calibration::builtin().is_some_and(|m| m.applies_to(&settings, &engine)),
        calibrated: assessment.map(|m| m.settings.clone()),
        calibrated_build: assessment.map(|m| m.engine.build.clone()),
    })
}

/// What clean humans show for one of the assessment's signals (`"acpl"`, `"matchRate"`,
/// …; `AssessmentModel::range_words`), in the band of `rating` when one is given:
/// `{band, low, median, high, sides}` with the values written as the reasons write them,
/// or `null` when the shipped model has no range for it. The page's "what it means".
#[wasm_bindgen(js_name = humanRange)]
pub fn human_range(signal: &str, rating: Option<f64>) -> Result<JsValue, JsError> {
    let words = crate::model::assessment::AssessmentModel::builtin()
        .and_then(|m| m.range_words(signal, rating.filter(|r| r.is_finite())));
    to_js(&words)
}

/// Parses a saved JSON report (schema 1), returning it re-serialised exactly as the CLI
/// writes it; an error names what is wrong.
#[wasm_bindgen(js_name = normaliseReport)]
pub fn normalise_report(json: &str) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    if report.schema != crate::report::SCHEMA {
        return Err(JsError::new(&format!(
            "report schema {} is not supported (expected {})",
            report.schema,
            crate::report::SCHEMA
        )));
    }
    Ok(report.to_json())
}

/// A saved report (JSON) with the ratings typed in the page (`NAME=ELO` lines, the
/// core's reading as in `Analyzer.setRatingText`) in place of any entered before: the
/// players, screening and assessments recomputed (`analysis::rerate`), as the CLI's
/// `--rating` gives them; an error quotes a bad line.
#[wasm_bindgen(js_name = rerateReport)]
pub fn rerate_report(json: &str, ratings: Vec<String>) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    Ok(crate::analysis::rerate(report, &ratings_from(&ratings)?).to_json())
}

/// The ratings (`NAME=ELO` lines) of [`rerate_report`], read; an error quotes a bad line.
fn ratings_from(lines: &[String]) -> Result<Vec<(&str, f64)>, JsError> {
    lines
        .iter()
        .map(|line| {
            crate::analysis::parse_rating(line)
                .ok_or_else(|| JsError::new(&format!("Rating \"{line}\": expected NAME=ELO.")))
        })
        .collect()
}

/// A stored report's ratings applied a batch of games at a time (the page's analyzer
/// worker, reading the games from IndexedDB and writing them back): the same report as
/// [`rerate_report`], byte for byte, without the whole of it in memory at once.
#[wasm_bindgen]
pub struct Rerating {
    head: Report,
    stream: Stream,
}

#[wasm_bindgen]
impl Rerating {
    /// For the report whose parts (without its games) are `head` and `tail`, with these
    /// rating lines (none: the Elo tags apply).
    #[wasm_bindgen(constructor)]
    pub fn new(head: &str, tail: &str, ratings: Vec<String>) -> Result<Rerating, JsError> {
        let head = Report::from_json(&format!("{head}{tail}"))
            .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
        let mut stream = Stream::new(
            head.settings.clone(),
            head.engine.clone(),
            crate::analysis::ModelOverrides::default(),
        );
        for (name, elo) in ratings_from(&ratings)? {
            stream.set_rating(name, elo);
        }
        Ok(Rerating { head, stream })
    }

    /// The next game's text (in the report's order), its sides assessed again with the
    /// ratings; its players take it.
    pub fn game(&mut self, text: &str) -> Result<String, JsError> {
        Ok(Report::game_json(
            &self.stream.push_report(game_from(text)?),
        ))
    }

    /// `{head, tail}` of the report with its `count` games given to [`Rerating::game`]:
    /// the report's own, with the players made again.
    pub fn parts(&self, count: usize) -> Result<JsValue, JsError> {
        let mut report = self.head.clone();
        report.players = self.stream.snapshot([]).players;
        let (head, tail) = report.json_around_games(count);
        to_js(&Parts { head, tail })
    }
}

/// A game's report from its JSON text (as stored).
fn game_from(text: &str) -> Result<crate::report::GameReport, JsError> {
    serde_json::from_str(text).map_err(|e| JsError::new(&format!("bad game report: {e}")))
}

/// A report's text without its games, [`Report::json_around_games`].
#[derive(Serialize)]
struct Parts {
    head: String,
    tail: String,
}

/// The shipped move classifier's probability for every ply of a saved report (JSON), as
/// JSON `[[p or null, ...] per game]`, whatever the report's settings (see
/// `analysis::signals::classifier_probabilities`); an error when no model ships.
#[wasm_bindgen(js_name = engineProbabilities)]
pub fn engine_probabilities(json: &str) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    let model = crate::model::classifier::Classifier::builtin()
        .ok_or_else(|| JsError::new("no move classifier is built in"))?;
    serde_json::to_string(&crate::analysis::signals::classifier_probabilities(
        model, &report,
    ))
    .map_err(|e| JsError::new(&e.to_string()))
}

/// The shipped assessment's probability for every game side of a saved report (JSON), as
/// JSON `[[white, black] per game]` (`null` without an assessment), whatever the report's
/// settings (see `analysis::signals::assessment_probabilities`); an error when no model ships.
#[wasm_bindgen(js_name = assessmentProbabilities)]
pub fn assessment_probabilities(json: &str) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    let model = crate::model::assessment::AssessmentModel::builtin()
        .ok_or_else(|| JsError::new("no assessment model is built in"))?;
    serde_json::to_string(&crate::analysis::signals::assessment_probabilities(
        model, &report,
    ))
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Renders a saved report (JSON) as annotated PGN.
#[wasm_bindgen(js_name = annotateReport)]
pub fn annotate_report(json: &str) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    Ok(crate::render::annotated_pgn(&report))
}

/// Renders a saved screening report (JSON) as Regan's log (`kind` = `"log"`) or results
/// file (`"results"`), for the sides `side` (`w`, `b`, `wb` or a player's name).
#[wasm_bindgen(js_name = screeningText)]
pub fn screening_text(json: &str, kind: &str, side: &str) -> Result<String, JsError> {
    let report = Report::from_json(json)
        .map_err(|e| JsError::new(&format!("not a fairsight report: {e}")))?;
    if report.settings.screening.is_none() {
        return Err(JsError::new(
            "this report was made in review mode: the log needs the screening mode",
        ));
    }
    let filter: crate::render::SideFilter = side.parse().map_err(|e: String| JsError::new(&e))?;
    match kind {
        "log" => Ok(crate::render::matchlog::log(&report, &filter)),
        "results" => Ok(crate::render::matchlog::results(&report, &filter)),
        other => Err(JsError::new(&format!(
            "unknown screening output {other:?}: expected \"log\" or \"results\""
        ))),
    }
}

/// One game of the input, as listed before analysis.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GameSummary {
    index: usize,
    line: u32,
    white: String,
    black: String,
    event: Option<String>,
    result: Option<String>,
    plies: usize,
    error: Option<String>,
}

impl GameSummary {
    fn of(g: &Result<Game, ImportError>) -> GameSummary {
        match g {
            Ok(g) => GameSummary {
                index: g.index,
                line: g.line,
                white: g.player(Side::White).to_owned(),
                black: g.player(Side::Black).to_owned(),
                event: g.tag("Event").map(str::to_owned),
                result: g.tag("Result").map(str::to_owned),
                plies: g.plies.len(),
                error: None,
            },
            Err(e) => {
                let tag = |n: &str| e.tags.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
                GameSummary {
                    index: e.index,
                    line: e.line,
                    white: tag("White").unwrap_or_else(|| "?".to_owned()),
                    black: tag("Black").unwrap_or_else(|| "?".to_owned()),
                    event: tag("Event"),
                    result: tag("Result"),
                    plies: 0,
                    error: Some(e.to_string()),
                }
            }
        }
    }
}

/// A whole input's plan, counted game by game without keeping the games
/// ([`plan_input`]).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputPlan {
    games: Vec<GameSummary>,
    jobs: usize,
    total: usize,
    /// Where each segment's first game starts ([`Analyzer::segment`]).
    marks: Vec<crate::pgn::Mark>,
}

/// Calls `on_progress(games)`, if given.
fn tell_progress(on_progress: Option<&js_sys::Function>, n: usize) -> Result<(), JsError> {
    match on_progress {
        Some(f) => f
            .call1(&JsValue::NULL, &JsValue::from(n as f64))
            .map(|_| ())
            .map_err(|e| JsError::new(&format!("import progress: {e:?}"))),
        None => Ok(()),
    }
}

fn book_from(book: Option<Vec<u8>>) -> Result<Box<dyn book::Book>, JsError> {
    match book {
        None => Ok(Box::new(crate::book::NoBook)),
        Some(bytes) => {
            let book =
                book::load(&bytes).map_err(|e| JsError::new(&format!("opening book: {e}")))?;
            Ok(book)
        }
    }
}

/// Reads the whole of `pgn` once and says what analysing it at `settings` (with the
/// book's bytes, or none) costs, keeping none of its games: `{games, jobs, total,
/// marks}`, the games' summaries as [`Analyzer::games`] gives them, the number of jobs
/// and the positions to search, those of one [`Analyzer`] of the whole input, and where
/// each segment of `segment` games starts in the text (games 1, `segment` + 1, ...; none
/// without `segment`), for [`Analyzer::segment`]. `on_progress`
/// hears the games read: every [`IMPORT_PROGRESS_EVERY`] games and once at the end (the
/// page's worker forwards it, so a file of thousands of games shows its progress). The page plans a file
/// of thousands of games with it, then analyses it a segment at a time
/// ([`Analyzer::segment`], [`Summary`]).
#[wasm_bindgen(js_name = planInput)]
pub fn plan_input(
    pgn: &str,
    settings: JsValue,
    book: Option<Vec<u8>>,
    on_progress: Option<js_sys::Function>,
    segment: Option<usize>,
) -> Result<JsValue, JsError> {
    let settings = settings_from(settings)?;
    let book = book_from(book)?;
    let mut plan = InputPlan {
        games: Vec::new(),
        jobs: 0,
        total: 0,
        marks: Vec::new(),
    };
    let mut reading = crate::pgn::games(pgn);
    loop {
        let mark = reading.mark();
        let Some(game) = reading.next() else { break };
        if segment.is_some_and(|n| n > 0 && plan.games.len().is_multiple_of(n)) {
            plan.marks.push(mark);
        }
        if let Ok(g) = &game {
            let (jobs, positions) = crate::analysis::game_plan(g, &settings, book.as_ref());
            plan.jobs += jobs;
            plan.total += positions;
        }
        plan.games.push(GameSummary::of(&game));
        if plan.games.len().is_multiple_of(IMPORT_PROGRESS_EVERY) {
            tell_progress(on_progress.as_ref(), plan.games.len())?;
        }
    }
    tell_progress(on_progress.as_ref(), plan.games.len())?;
    to_js(&plan)
}

/// How many games [`plan_input`] reads between two progress calls: often
/// enough for a steady count (a few thousand games a second), rarely enough to cost
/// nothing.
pub const IMPORT_PROGRESS_EVERY: usize = 100;

/// A batch analysis. See the module docs.
#[wasm_bindgen]
pub struct Analyzer {
    analysis: Analysis,
    jobs: Vec<Job>,
    engine: EngineInfo,
    /// The games' reports kept for [`Analyzer::report_parts`].
    view: ReportCache,
}

#[wasm_bindgen]
impl Analyzer {
    /// Imports `pgn` (any number of games; bad games become per-game errors) and plans
    /// the jobs for `settings` (a partial camelCase `Settings` object, or `undefined` for
    /// the defaults). `book`: the bytes of an opening book (the shipped
    /// `models/opening-book.bin` or a Polyglot `.bin`), or `undefined` for none; its
    /// label goes in `settings.book`.
    #[wasm_bindgen(constructor)]
    pub fn new(pgn: &str, settings: JsValue, book: Option<Vec<u8>>) -> Result<Analyzer, JsError> {
        Analyzer::from_pgn(pgn, settings, book, None)
    }

    /// As the constructor, for the `count` games of `pgn` from `mark` on (one of
    /// [`plan_input`]'s `marks`; numbered as in the whole input, the games before not
    /// read): one segment of a file analysed a segment at a time ([`Summary`]). Each game's text is the one an
    /// analysis of the whole file gives it; its [`Analyzer::report_parts`] have no
    /// players (the [`Summary`] makes them).
    pub fn segment(
        pgn: &str,
        settings: JsValue,
        book: Option<Vec<u8>>,
        mark: JsValue,
        count: usize,
    ) -> Result<Analyzer, JsError> {
        let mark: crate::pgn::Mark = serde_wasm_bindgen::from_value(mark)
            .map_err(|e| JsError::new(&format!("bad segment mark: {e}")))?;
        let mut a = Analyzer::from_pgn(pgn, settings, book, Some((mark, count)))?;
        // Its players are the Summary's to make.
        a.view = ReportCache::games_only();
        Ok(a)
    }

    fn from_pgn(
        pgn: &str,
        settings: JsValue,
        book: Option<Vec<u8>>,
        segment: Option<(crate::pgn::Mark, usize)>,
    ) -> Result<Analyzer, JsError> {
        let settings = settings_from(settings)?;
        let games: Vec<_> = match segment {
            Some((mark, count)) => crate::pgn::games_from(pgn, mark).take(count).collect(),
            None => crate::pgn::games(pgn).collect(),
        };
        let book = book_from(book)?;
        let analysis = Analysis::new(games, settings, book.as_ref());
        let jobs = analysis.jobs();
        Ok(Analyzer {
            analysis,
            jobs,
            engine: EngineInfo {
                name: String::new(),
                build: String::new(),
            },
            view: ReportCache::default(),
        })
    }

    /// The settings in force, as a camelCase object.
    pub fn settings(&self) -> Result<JsValue, JsError> {
        to_js(self.analysis.settings())
    }

    /// The games: index, input line, players, number of plies, import error.
    pub fn games(&self) -> Result<JsValue, JsError> {
        let list: Vec<GameSummary> = self.analysis.games().iter().map(GameSummary::of).collect();
        to_js(&list)
    }

    /// Number of jobs (chunks) to run.
    #[wasm_bindgen(js_name = jobCount)]
    pub fn job_count(&self) -> usize {
        self.jobs.len()
    }

    /// Job `i` as JSON, for [`EngineSession::submit`] and as the cache key's content.
    #[wasm_bindgen(js_name = jobJson)]
    pub fn job_json(&self, i: usize) -> Result<String, JsError> {
        let job = self
            .jobs
            .get(i)
            .ok_or_else(|| JsError::new(&format!("no job {i}")))?;
        serde_json::to_string(job).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Job `i` named for the user: its game as import errors name it, and its chunk
    /// (`game 2 (Carol - Dave), chunk 1`).
    #[wasm_bindgen(js_name = jobLabel)]
    pub fn job_label(&self, i: usize) -> Result<String, JsError> {
        let id = self
            .jobs
            .get(i)
            .ok_or_else(|| JsError::new(&format!("no job {i}")))?
            .id;
        let game = self
            .analysis
            .games()
            .iter()
            .find_map(|g| g.as_ref().ok().filter(|g| g.index == id.game))
            .ok_or_else(|| JsError::new(&format!("no game {}", id.game + 1)))?;
        Ok(format!("{}, chunk {}", game.label(), id.chunk + 1))
    }

    /// Number of positions job `i` records (for progress).
    #[wasm_bindgen(js_name = jobPositions)]
    pub fn job_positions(&self, i: usize) -> usize {
        self.jobs.get(i).map_or(0, |j| j.tasks.len())
    }

    /// Positions to search in total.
    #[wasm_bindgen(js_name = totalPositions)]
    pub fn total_positions(&self) -> usize {
        self.analysis.total_positions()
    }

    /// Positions searched so far.
    #[wasm_bindgen(js_name = donePositions)]
    pub fn done_positions(&self) -> usize {
        self.analysis.done_positions()
    }

    /// Records a finished job's result (JSON from [`EngineSession::take_result_json`] or
    /// from the cache), or the positions of a job completed so far (from
    /// [`EngineSession::take_completed_json`]). A position already recorded is replaced.
    #[wasm_bindgen(js_name = addResultJson)]
    pub fn add_result_json(&mut self, json: &str) -> Result<(), JsError> {
        let result: JobResult =
            serde_json::from_str(json).map_err(|e| JsError::new(&format!("bad result: {e}")))?;
        let known = !result.positions.is_empty()
            && self.jobs.iter().any(|j| {
                j.id == result.id
                    && result
                        .positions
                        .iter()
                        .all(|p| j.tasks.iter().any(|t| t.ply_index == p.ply_index))
            });
        if !known {
            return Err(JsError::new(&format!(
                "result for game {} chunk {} does not match any job",
                result.id.game + 1,
                result.id.chunk + 1
            )));
        }
        self.view.touch(result.id.game);
        self.analysis.add_result(result);
        Ok(())
    }

    /// A player's rating for the screening z-scores (by name, case-insensitive),
    /// overriding the PGN's Elo tags.
    #[wasm_bindgen(js_name = setRating)]
    pub fn set_rating(&mut self, player: &str, elo: f64) -> Result<(), JsError> {
        if !(elo.is_finite() && elo > 0.0) || player.trim().is_empty() {
            return Err(JsError::new(&format!("bad rating for {player}: {elo}")));
        }
        self.analysis.set_rating(player.trim(), elo);
        self.view.touch_all();
        Ok(())
    }

    /// A rating typed as `NAME=ELO` (the core's reading, as the CLI's `--rating`); an
    /// error quotes the line.
    #[wasm_bindgen(js_name = setRatingText)]
    pub fn set_rating_text(&mut self, line: &str) -> Result<(), JsError> {
        let (name, elo) = crate::analysis::parse_rating(line)
            .ok_or_else(|| JsError::new(&format!("Rating \"{line}\": expected NAME=ELO.")))?;
        self.analysis.set_rating(name, elo);
        self.view.touch_all();
        Ok(())
    }

    /// Sets the engine named in the report (`id name` and build).
    #[wasm_bindgen(js_name = setEngine)]
    pub fn set_engine(&mut self, name: &str, build: &str) {
        self.engine = EngineInfo {
            name: name.to_owned(),
            build: build.to_owned(),
        };
    }

    /// The report so far as JSON, exactly as the CLI's `--json` writes it.
    #[wasm_bindgen(js_name = reportJson)]
    pub fn report_json(&self) -> String {
        self.analysis.report(self.engine.clone()).to_json()
    }

    /// The report so far in the pieces the page stores, `{head, tail, count, changed}`:
    /// `changed` holds `[position, text]` for each game rebuilt since the last call (every
    /// game the first time and after a rating or the engine is set, then only those with
    /// new results), and `head`, the `count` games' texts joined by `",\n    "`, then
    /// `tail` is [`Analyzer::report_json`], byte for byte. A refresh during a long run
    /// then costs the games that changed and their players, not the whole report.
    /// With `all`, every game is given, as the first time. With `limit`, at most that
    /// many games' texts are given, and `pending` says how many more
    /// [`Analyzer::more_parts`] has (so a view of thousands of games never holds all their
    /// texts at once, here or in the page).
    #[wasm_bindgen(js_name = reportParts)]
    pub fn report_parts(&mut self, all: bool, limit: Option<u32>) -> Result<JsValue, JsError> {
        if all {
            self.view.touch_all();
        }
        let limit = limit.map_or(usize::MAX, |l| l as usize);
        to_js(
            &self
                .analysis
                .report_parts_limited(self.engine.clone(), &mut self.view, limit),
        )
    }

    /// The next `limit` games' texts the last [`Analyzer::report_parts`] left to give,
    /// `{changed, pending}` (`changed` as there; `pending`: how many are still to come).
    #[wasm_bindgen(js_name = moreParts)]
    pub fn more_parts(&mut self, limit: u32) -> Result<JsValue, JsError> {
        #[derive(serde::Serialize)]
        struct More {
            changed: Vec<(usize, String)>,
            pending: usize,
        }
        let changed = self.view.more(limit as usize);
        to_js(&More {
            changed,
            pending: self.view.pending(),
        })
    }

    /// The annotated PGN of the report so far.
    #[wasm_bindgen(js_name = annotatedPgn)]
    pub fn annotated_pgn(&self) -> String {
        crate::render::annotated_pgn(&self.analysis.report(self.engine.clone()))
    }
}

/// The players of a file analysed a segment at a time. See the module docs.
#[wasm_bindgen]
pub struct Summary {
    stream: Stream,
}

#[wasm_bindgen]
impl Summary {
    /// No games yet, for `settings` (the settings in force, [`Analyzer::settings`]).
    #[wasm_bindgen(constructor)]
    pub fn new(settings: JsValue) -> Result<Summary, JsError> {
        Ok(Summary {
            stream: Stream::new(
                settings_from(settings)?,
                EngineInfo::default(),
                crate::analysis::ModelOverrides::default(),
            ),
        })
    }

    /// A rating typed as `NAME=ELO`, as [`Analyzer::set_rating_text`].
    #[wasm_bindgen(js_name = setRatingText)]
    pub fn set_rating_text(&mut self, line: &str) -> Result<(), JsError> {
        let (name, elo) = crate::analysis::parse_rating(line)
            .ok_or_else(|| JsError::new(&format!("Rating \"{line}\": expected NAME=ELO.")))?;
        self.stream.set_rating(name, elo);
        Ok(())
    }

    /// Names the report's engine, as [`Analyzer::set_engine`].
    #[wasm_bindgen(js_name = setEngine)]
    pub fn set_engine(&mut self, name: &str, build: &str) {
        self.stream.set_engine(EngineInfo {
            name: name.to_owned(),
            build: build.to_owned(),
        });
    }

    /// Adds a finished segment's games to the players (after those added before), as
    /// its analyzer's last [`Analyzer::report_parts`] made them.
    #[wasm_bindgen(js_name = addSegment)]
    pub fn add_segment(&mut self, segment: &Analyzer) {
        for game in segment.view.games() {
            self.stream.push_report(game.clone());
        }
    }

    /// `{head, tail}` of the report of `count` games (`head`, the games' texts joined
    /// by `",\n    "`, then `tail` is that report's JSON): the players of the segments
    /// added and of `segment`, the one being analysed, as its last
    /// [`Analyzer::report_parts`] made its games (not kept).
    pub fn parts(&self, count: usize, segment: &Analyzer) -> Result<JsValue, JsError> {
        let mut more = segment.view.games().to_vec();
        let (head, tail) = self
            .stream
            .snapshot(more.iter_mut())
            .json_around_games(count);
        to_js(&Parts { head, tail })
    }
}

/// The UCI session of one engine worker. See the module docs.
#[wasm_bindgen]
pub struct EngineSession {
    session: Session,
    /// Completed positions of the running job already handed out.
    emitted: usize,
}

#[wasm_bindgen]
impl EngineSession {
    /// A new session (its first command is `uci`), for the analyzer's settings object.
    #[wasm_bindgen(constructor)]
    pub fn new(settings: JsValue) -> Result<EngineSession, JsError> {
        Ok(EngineSession {
            session: Session::new(&settings_from(settings)?),
            emitted: 0,
        })
    }

    /// The commands to post to the worker now, in order.
    #[wasm_bindgen(js_name = takeCommands)]
    pub fn take_commands(&mut self) -> Vec<String> {
        self.session
            .take_commands()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Feeds one line the engine printed. An error means the engine broke the protocol:
    /// the caller replaces the worker and retries the job.
    #[wasm_bindgen(js_name = handleLine)]
    pub fn handle_line(&mut self, line: &str) -> Result<(), JsError> {
        self.session
            .handle_line(line)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Starts a job (JSON from [`Analyzer::job_json`]). Only when idle.
    pub fn submit(&mut self, job_json: &str) -> Result<(), JsError> {
        let job: Job =
            serde_json::from_str(job_json).map_err(|e| JsError::new(&format!("bad job: {e}")))?;
        self.session
            .submit(job)
            .map_err(|e| JsError::new(&e.to_string()))?;
        self.emitted = 0;
        Ok(())
    }

    /// Positions of the running job completed since the last call, as a partial result
    /// JSON (same shape as a job's result), or `undefined`. The job's final result
    /// repeats them, identical.
    #[wasm_bindgen(js_name = takeCompletedJson)]
    pub fn take_completed_json(&mut self) -> Result<Option<String>, JsError> {
        let (Some(id), done) = (
            self.session.running_job(),
            self.session.completed_positions(),
        ) else {
            return Ok(None);
        };
        if done.len() <= self.emitted {
            return Ok(None);
        }
        let partial = JobResult {
            id,
            positions: done[self.emitted..].to_vec(),
        };
        self.emitted = done.len();
        serde_json::to_string(&partial)
            .map(Some)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// A finished job's result as JSON, or `undefined`.
    #[wasm_bindgen(js_name = takeResultJson)]
    pub fn take_result_json(&mut self) -> Result<Option<String>, JsError> {
        self.session
            .take_result()
            .map(|r| serde_json::to_string(&r).map_err(|e| JsError::new(&e.to_string())))
            .transpose()
    }

    /// Whether the handshake is done and no job runs.
    #[wasm_bindgen(js_name = isIdle)]
    pub fn is_idle(&self) -> bool {
        self.session.is_idle()
    }

    /// Whether a search is running (the per-search deadline applies).
    #[wasm_bindgen(js_name = isSearching)]
    pub fn is_searching(&self) -> bool {
        self.session.is_searching()
    }

    /// Searches started so far (the deadline restarts when this changes).
    #[wasm_bindgen(js_name = searchesStarted)]
    pub fn searches_started(&self) -> f64 {
        self.session.searches_started() as f64
    }

    /// The engine's `id name`, once known.
    #[wasm_bindgen(js_name = engineName)]
    pub fn engine_name(&self) -> Option<String> {
        self.session.engine_name().map(str::to_owned)
    }
}
