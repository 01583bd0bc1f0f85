//! Flags, validation into settings, the engine pool and the outputs.

mod assess;
mod bench;
mod cache;
mod calibrate;
mod corpus;
mod engine;
mod train;
mod train_fit;

use std::{
    collections::VecDeque,
    io::IsTerminal,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{Arc, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use fairsight::{
    analysis::Analysis,
    book,
    book::{Book, NoBook},
    engine::{Job, JobId, JobResult},
    model::{assessment::AssessmentModel, classifier::Classifier},
    pgn,
    plan::{
        DEFAULT_DEPTH, DEFAULT_MULTIPV, SCREENING_LINES, SCREENING_MLM_DEPTH, Screening, Settings,
    },
    record::EngineInfo,
    render::{self, SideFilter, crafty::CraftyOptions, matchlog},
    report::Report,
    stats::calibration::Calibration,
    uci::Limit,
};
use indicatif::{ProgressBar, ProgressStyle};

use engine::Engine;

/// The npm `stockfish` build the CLI runs by default (the browser's default too).
const DEFAULT_ENGINE_JS: &str = "node_modules/stockfish/bin/stockfish-19-lite-single.js";

/// The shipped opening book (built by `examples/build_book.rs`).
const BUILTIN_BOOK: &[u8] = include_bytes!("../../models/opening-book.bin");

/// Exit code for bad arguments and a missing engine.
const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(
    name = "fairsight",
    version,
    about = "Chess fair-play analysis on your own machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Subcommand)]
enum Sub {
    /// Analyse every game of one or more PGN files.
    Analyze(Box<AnalyzeArgs>),
    /// Fit the assessment model on the corpus, or evaluate it (see models/README.md).
    #[command(subcommand)]
    Assess(assess::AssessCmd),
    /// Measure import throughput and pipeline efficiency (prints; asserts nothing).
    Bench(bench::BenchArgs),
    /// Build the rating ↔ Regan (s, c) calibration table (see models/README.md).
    #[command(subcommand)]
    Calibrate(calibrate::CalibrateCmd),
    /// The analysed corpus under corpus/: add games, rebuild reports (see corpus/README.md).
    #[command(subcommand)]
    Corpus(corpus::CorpusCmd),
    /// Sample games and train the move classifier (see models/README.md).
    #[command(subcommand)]
    Train(train::TrainCmd),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// Game review: MultiPV lines, features and accuracy per move.
    Review,
    /// Crafty's annotate: comment moves where the best beats the played by the margin.
    Annotate,
    /// Regan's screening protocol ("zig-zag"): per move a single-line search to
    /// --slm-depth recording the choice at each depth from --min-depth, then --multipv
    /// lines (default 10) to --depth (default 14), hash kept; --log and --results.
    Screening,
}

#[derive(Args)]
struct AnalyzeArgs {
    /// PGN files (any number of games each).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// UCI engine command line (default: node + the npm stockfish lite single build).
    #[arg(long)]
    engine: Option<String>,
    /// Search depth per position [default: 14]; in screening mode the depth dL of the
    /// multi-line search.
    #[arg(long, conflicts_with = "nodes")]
    depth: Option<u32>,
    /// Search nodes per position (instead of a depth).
    #[arg(long)]
    nodes: Option<u64>,
    /// Lines per position (MultiPV) [default: 4; 1 in annotate mode; 10 in screening].
    #[arg(long)]
    multipv: Option<u32>,
    /// Screening mode: depth d of the single-line search.
    #[arg(long, default_value_t = fairsight::plan::SCREENING_SLM_DEPTH)]
    slm_depth: u32,
    /// Screening mode: first depth dmin whose single-line choice counts in the match bits.
    #[arg(long, default_value_t = fairsight::plan::SCREENING_MIN_DEPTH)]
    min_depth: u32,
    /// Engines run in parallel [default: number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Engine hash per engine, MB.
    #[arg(long, default_value_t = 16)]
    hash: u32,
    /// Opening book for the "book" exclusion (book moves are not searched or counted):
    /// `builtin` (positions from CC0 sources, see models/README.md), `none`, or a
    /// Polyglot .bin file.
    #[arg(long, default_value = "builtin")]
    book: String,
    /// A rating calibration table instead of the shipped models/regan-calibration.json
    /// (made by `fairsight calibrate fit`; used only if made with the same engine build
    /// and settings).
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// A move classifier instead of the shipped models/move-classifier.json (made by
    /// `fairsight train fit`; used only with its engine build and settings).
    #[arg(long)]
    model: Option<PathBuf>,
    /// An assessment model instead of the shipped models/assessment.json (made by
    /// `fairsight assess fit`; used only with its engine build and settings).
    #[arg(long)]
    assessment: Option<PathBuf>,
    /// A player's rating for the screening z-scores, overriding the PGN's Elo tags:
    /// `--rating "Carlsen, Magnus=2850"` (repeatable).
    #[arg(long)]
    rating: Vec<String>,
    /// With --depth, the most nodes one search may use (0: no cap); stops the rare
    /// searches that run 10-40x longer than usual (mates found with several lines).
    #[arg(long, default_value_t = fairsight::plan::DEFAULT_MAX_NODES)]
    max_nodes: u64,
    /// Plies per chunk (each starts with ucinewgame and a warm-up search).
    #[arg(long, default_value_t = 16)]
    chunk: u32,
    /// Exclude moves before this full-move number from the statistics.
    #[arg(long, default_value_t = 1)]
    min_move: u32,
    /// Seconds a single search may take before the engine is restarted.
    #[arg(long, default_value_t = 120)]
    search_timeout: u64,
    /// Analysis mode.
    #[arg(long, value_enum, default_value_t = Mode::Review)]
    mode: Mode,
    /// Annotate and screening modes: side to annotate or test: w, b, wb, or a player's
    /// name (substring).
    #[arg(long, default_value = "wb")]
    side: String,
    /// Annotate mode: full-move range `A-B` (or `A` for A to the end).
    #[arg(long, default_value = "1-999")]
    moves: String,
    /// Annotate mode: margin in pawns (negative: annotate every move).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    margin: f64,
    /// Write the JSON report here (`-` for stdout).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the annotated PGN here (`-` for stdout).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Screening mode: write the log in Regan's format here (`-` for stdout).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Screening mode: write the results file (totals, matches per depth, lines sorted
    /// by significance) here (`-` for stdout).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Keep analysed chunks in this directory and reuse them: the same games with the
    /// same engine build and settings are not searched again.
    #[arg(long)]
    cache: Option<PathBuf>,
    /// No player table on stdout (it is left out too when an output goes to stdout).
    #[arg(long)]
    quiet: bool,
}

/// Entry point: returns the process exit code.
pub fn run() -> Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return Ok(ExitCode::from(code));
        }
    };
    match cli.command {
        Sub::Analyze(args) => analyze(*args),
        Sub::Assess(cmd) => assess::run(cmd).map(|()| ExitCode::SUCCESS),
        Sub::Bench(args) => bench::bench(args).map(|()| ExitCode::SUCCESS),
        Sub::Calibrate(cmd) => calibrate::run(cmd).map(|()| ExitCode::SUCCESS),
        Sub::Corpus(cmd) => corpus::run(cmd),
        Sub::Train(cmd) => train::run(cmd).map(|()| ExitCode::SUCCESS),
    }
}

fn usage_error(msg: impl std::fmt::Display) -> Result<ExitCode> {
    eprintln!("fairsight: {msg}");
    Ok(ExitCode::from(EXIT_USAGE))
}

/// The default engine command: node running the npm stockfish build, found in the current
/// directory, next to the executable, or in the source tree it was built from.
fn default_engine() -> Option<String> {
    let mut roots: Vec<PathBuf> = vec![PathBuf::from(".")];
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    roots
        .iter()
        .map(|r| r.join(DEFAULT_ENGINE_JS))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .map(|p| shell_words::join(["node", &p.to_string_lossy()]))
}

/// A stable description of the engine build: the script or binary's file stem.
fn engine_build(command: &str) -> String {
    let argv = shell_words::split(command).unwrap_or_default();
    let target = argv
        .iter()
        .rev()
        .find(|a| a.ends_with(".js") || a.ends_with(".wasm"))
        .or(argv.first());
    target
        .and_then(|t| Path::new(t).file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

struct Validated {
    settings: Settings,
    engine: String,
    jobs: usize,
    crafty: Option<CraftyOptions>,
    /// Screening mode: whose moves the log and results cover.
    tested: SideFilter,
}

fn validate(args: &AnalyzeArgs) -> Result<Validated, String> {
    let default_multipv = match args.mode {
        Mode::Review => DEFAULT_MULTIPV,
        Mode::Annotate => 1,
        Mode::Screening => SCREENING_LINES,
    };
    let default_depth = match args.mode {
        Mode::Screening => SCREENING_MLM_DEPTH,
        _ => DEFAULT_DEPTH,
    };
    let screening = match args.mode {
        Mode::Screening => {
            if args.nodes.is_some() {
                return Err("--nodes: screening mode searches to fixed depths (use --depth for dL and --slm-depth for d)".into());
            }
            if args.slm_depth == 0 || args.min_depth == 0 || args.min_depth > args.slm_depth {
                return Err(format!(
                    "--min-depth ({}) must be between 1 and --slm-depth ({})",
                    args.min_depth, args.slm_depth
                ));
            }
            Some(Screening {
                slm_depth: args.slm_depth,
                min_depth: args.min_depth,
            })
        }
        _ => {
            if args.log.is_some() || args.results.is_some() {
                return Err("--log and --results need --mode screening".into());
            }
            None
        }
    };
    let limit = match (args.depth, args.nodes) {
        (_, Some(0)) | (Some(0), _) => return Err("--depth and --nodes must be positive".into()),
        (_, Some(n)) => Limit::Nodes(n),
        (Some(d), None) => Limit::Depth(d),
        (None, None) => Limit::Depth(default_depth),
    };
    let multipv = args.multipv.unwrap_or(default_multipv);
    if !(1..=64).contains(&multipv) {
        return Err("--multipv must be between 1 and 64".into());
    }
    if args.chunk == 0 {
        return Err("--chunk must be positive".into());
    }
    if args.hash == 0 {
        return Err("--hash must be positive".into());
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    let engine = match &args.engine {
        Some(e) => e.clone(),
        None => default_engine().ok_or(
            "no engine: run `npm ci` in the fairsight folder for the default Stockfish, \
             or pass --engine CMD",
        )?,
    };
    let crafty = match args.mode {
        Mode::Review | Mode::Screening => None,
        Mode::Annotate => {
            let side: SideFilter = args.side.parse().map_err(|e| format!("--side: {e}"))?;
            let moves = render::crafty::parse_move_range(&args.moves)
                .map_err(|e| format!("--moves: {e}"))?;
            Some(CraftyOptions {
                side,
                moves,
                margin_pawns: args.margin,
            })
        }
    };
    let tested: SideFilter = args.side.parse().map_err(|e| format!("--side: {e}"))?;
    Ok(Validated {
        tested,
        settings: Settings {
            limit,
            multipv,
            max_nodes: args.max_nodes,
            book: match args.book.as_str() {
                "none" | "builtin" => args.book.clone(),
                path => format!(
                    "file:{}",
                    Path::new(path)
                        .file_name()
                        .map_or(path.into(), |n| n.to_string_lossy())
                ),
            },
            hash_mb: args.hash,
            chunk_plies: args.chunk,
            min_move: args.min_move,
            screening,
            ..Settings::default()
        },
        engine,
        jobs,
        crafty,
    })
}

fn analyze(args: AnalyzeArgs) -> Result<ExitCode> {
    let v = match validate(&args) {
        Ok(v) => v,
        Err(msg) => return usage_error(msg),
    };
    // Games are numbered across all files in order; lines are per file.
    let mut games = Vec::new();
    for f in &args.files {
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => return usage_error(format!("cannot read {}: {e}", f.display())),
        };
        // Latin-1 files are common: decode lossily rather than refuse.
        let text = String::from_utf8_lossy(&bytes);
        let offset = games.len();
        for mut g in pgn::import(&text) {
            match &mut g {
                Ok(game) => game.index += offset,
                Err(e) => {
                    e.index += offset;
                    eprintln!("fairsight: {}: skipped {e}", f.display());
                }
            }
            games.push(g);
        }
    }
    let book: Box<dyn Book + Send + Sync> = match args.book.as_str() {
        "none" => Box::new(NoBook),
        "builtin" => book::load(BUILTIN_BOOK).context("the built-in opening book")?,
        path => match std::fs::read(path) {
            Ok(bytes) => match book::load(&bytes) {
                Ok(b) => b,
                Err(e) => return usage_error(format!("--book {path}: {e}")),
            },
            Err(e) => return usage_error(format!("--book {path}: cannot read: {e}")),
        },
    };
    let mut analysis = Analysis::new(games, v.settings.clone(), book.as_ref());
    if let Some(path) = &args.calibration {
        let table = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Calibration::from_json(&t).map_err(|e| e.to_string()));
        match table {
            Ok(t) => analysis.set_calibration(t),
            Err(e) => return usage_error(format!("--calibration {}: {e}", path.display())),
        }
    }
    if let Some(path) = &args.model {
        let model = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Classifier::from_json(&t).map_err(|e| e.to_string()));
        match model {
            Ok(m) => analysis.set_classifier(m),
            Err(e) => return usage_error(format!("--model {}: {e}", path.display())),
        }
    }
    if let Some(path) = &args.assessment {
        let model = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| AssessmentModel::from_json(&t).map_err(|e| e.to_string()));
        match model {
            Ok(m) => analysis.set_assessment(m),
            Err(e) => return usage_error(format!("--assessment {}: {e}", path.display())),
        }
    }
    for r in &args.rating {
        match r
            .rsplit_once('=')
            .map(|(n, e)| (n.trim(), e.trim().parse::<f64>()))
        {
            Some((name, Ok(elo))) if !name.is_empty() && elo > 0.0 => {
                analysis.set_rating(name, elo);
            }
            _ => return usage_error(format!("--rating {r}: expected NAME=ELO")),
        }
    }
    let run = Run {
        engine: &v.engine,
        settings: &v.settings,
        workers: v.jobs,
        timeout: Duration::from_secs(args.search_timeout.max(1)),
        cache: args.cache.as_deref(),
    };
    let total = analysis.total_positions();
    let outcome = match run.execute(analysis.jobs(), total, |_, r| analysis.add_result(r)) {
        Ok(o) => o,
        Err(msg) => return usage_error(msg),
    };
    let engine_info = outcome.engine.clone();
    let failures = outcome.failures;
    let report = analysis.report(engine_info);
    write_outputs(&args, &v, &report)?;
    let to_stdout = [&args.json, &args.pgn, &args.log, &args.results]
        .iter()
        .any(|p| p.as_deref() == Some(Path::new("-")));
    if !args.quiet && !to_stdout {
        stdout(&fairsight::render::table::player_table(&report));
    }
    eprintln!(
        "fairsight: {} positions searched in {:.1}s with {} engine(s){}",
        outcome.searched,
        outcome.elapsed.as_secs_f64(),
        outcome.workers,
        if outcome.cached > 0 {
            format!(", {} from the cache", outcome.cached)
        } else {
            String::new()
        }
    );
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How to run a batch of jobs: the engine command and settings, how many engines at
/// most, the search deadline and an optional chunk cache.
struct Run<'a> {
    engine: &'a str,
    settings: &'a Settings,
    workers: usize,
    timeout: Duration,
    cache: Option<&'a Path>,
}

/// What running a batch did.
struct RunOutcome {
    engine: EngineInfo,
    /// Positions served from the cache.
    cached: usize,
    /// Positions searched by the engines.
    searched: usize,
    /// Engines started.
    workers: usize,
    elapsed: Duration,
    /// Jobs that failed twice.
    failures: Vec<(JobId, anyhow::Error)>,
}

impl Run<'_> {
    /// Starts the engines (a missing engine or an unusable cache is a usage error: `Err`
    /// with the message), serves the jobs the cache has, runs the others with a progress
    /// bar (or a line a minute off a terminal), stores them in the cache, and hands every
    /// result to `on_result` on this thread, with the engine that made it.
    fn execute(
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

/// Progress when stderr is not a terminal (a log file, a CI job): a line a minute.
struct ProgressLog {
    enabled: bool,
    total: u64,
    done: u64,
    searched: u64,
    started: Instant,
    last: Instant,
}

impl ProgressLog {
    const EVERY: Duration = Duration::from_secs(60);

    fn new(total: u64, done: u64) -> ProgressLog {
        ProgressLog {
            enabled: !std::io::stderr().is_terminal(),
            total,
            done,
            searched: 0,
            started: Instant::now(),
            last: Instant::now(),
        }
    }

    fn add(&mut self, positions: u64) {
        self.done += positions;
        self.searched += positions;
        if !self.enabled || self.last.elapsed() < Self::EVERY {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.searched as f64 / secs.max(1e-9);
        let eta = (self.total.saturating_sub(self.done)) as f64 / rate.max(1e-9);
        eprintln!(
            "fairsight: {}/{} positions, {rate:.2}/s, ETA {}:{:02}",
            self.done,
            self.total,
            (eta / 60.0) as u64,
            (eta % 60.0) as u64
        );
    }
}

fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} positions  {per_sec}  ETA {eta}",
        )
        .expect("invariant: the template is valid"),
    );
    bar
}

/// Runs the jobs on the engines (one thread each); calls `on_result` on this thread as
/// results arrive. A job whose engine fails is retried once on a restarted engine.
fn run_pool(
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

/// Writes to stdout; a closed pipe (`fairsight ... | head`) is not an error.
fn stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn write_to(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        stdout(text);
        Ok(())
    } else {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

fn write_outputs(args: &AnalyzeArgs, v: &Validated, report: &Report) -> Result<()> {
    if let Some(path) = &args.json {
        write_to(path, &(report.to_json() + "\n"))?;
    }
    if let Some(path) = &args.pgn {
        let text = match &v.crafty {
            Some(opts) => render::crafty::crafty_annotate(report, opts),
            None => render::pgn::annotated_pgn(report),
        };
        write_to(path, &text)?;
    }
    if let Some(path) = &args.log {
        write_to(path, &matchlog::log(report, &v.tested))?;
    }
    if let Some(path) = &args.results {
        write_to(path, &matchlog::results(report, &v.tested))?;
    }
    Ok(())
}
