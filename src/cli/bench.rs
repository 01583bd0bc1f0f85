//! `fairsight bench`: PGN import throughput and the analysis pipeline's efficiency, measured
//! side by side in one run. A benchmark, not a test: it prints, it asserts nothing.

use std::{
    ops::ControlFlow,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use clap::Args;
use fairsight::{Analysis, DEFAULT_DEPTH, DEFAULT_MULTIPV, Limit, Settings, pgn};

use super::{
    engine::{Engine, default_engine},
    pool::{Run, run_pool},
};

#[derive(Args)]
pub struct BenchArgs {
    /// PGN whose games, repeated in turn up to --games, make the import and streaming
    /// benchmarks' input [default: ../shared/data lichess games if present, else
    /// samples/club-blitz.pgn].
    #[arg(long)]
    import_pgn: Option<PathBuf>,
    /// Games in the import and streaming benchmarks' input.
    #[arg(long, default_value_t = 10_000)]
    games: usize,
    /// Only the import and streaming benchmarks (no engine search).
    #[arg(long)]
    no_pipeline: bool,
    /// The game analysed in the pipeline benchmark.
    #[arg(long, default_value = "samples/opera-1858.pgn")]
    game: PathBuf,
    /// Search depth (the review default).
    #[arg(long, default_value_t = DEFAULT_DEPTH)]
    depth: u32,
    /// Lines (the review default).
    #[arg(long, default_value_t = DEFAULT_MULTIPV)]
    multipv: u32,
    /// Engine command [default: node + npm stockfish lite single].
    #[arg(long)]
    engine: Option<String>,
    /// Largest number of engines to compare (1..=N).
    #[arg(long, default_value_t = 2)]
    max_jobs: usize,
    /// Also time the game, with one engine, at another setting: `depth=N` or
    /// `engine=CMD` (repeatable); printed beside the base setting as seconds a position
    /// and the ratio to it (the cost side of the depth study, `assess depth`).
    #[arg(long, value_name = "SPEC")]
    compare: Vec<String>,
}

/// A setting to time: the base engine and settings with one change.
fn compared(spec: &str, engine: &str, settings: &Settings) -> Result<(String, Settings)> {
    let (key, value) = spec
        .split_once('=')
        .with_context(|| format!("--compare {spec}: expected depth=N or engine=CMD"))?;
    let mut s = settings.clone();
    match key {
        "depth" => {
            let d: u32 = value
                .parse()
                .with_context(|| format!("--compare {spec}: not a depth"))?;
            s.limit = Limit::Depth(d);
            Ok((engine.to_owned(), s))
        }
        "engine" if !value.trim().is_empty() => Ok((value.to_owned(), s)),
        _ => anyhow::bail!("--compare {spec}: expected depth=N or engine=CMD"),
    }
}

/// Analyses `game_text` with one engine; returns (positions, wall seconds).
fn time_one(game_text: &str, engine: &str, settings: &Settings) -> Result<(usize, f64)> {
    let mut analysis = Analysis::from_pgn(game_text, settings.clone());
    let timeout = Duration::from_secs(600);
    let run = Run {
        engine,
        settings,
        workers: 1,
        timeout,
        cache: None,
    };
    let t = Instant::now();
    let engines = vec![Engine::start(engine, settings, timeout)?];
    let failures = run_pool(engines, analysis.jobs(), &run, |r| analysis.add_result(r));
    anyhow::ensure!(failures.is_empty(), "engine failures: {}", failures.len());
    Ok((analysis.done_positions(), t.elapsed().as_secs_f64()))
}

pub fn bench(args: BenchArgs) -> Result<()> {
    // Bad --compare specs fail before anything is measured.
    for spec in &args.compare {
        compared(spec, "", &Settings::default())?;
    }
    // 1. Import throughput, against pgn-reader alone on the same text.
    let shared = PathBuf::from("../shared/data/human/online/lichess_2025-05_clk.pgn");
    let source = match &args.import_pgn {
        Some(p) => p.clone(),
        None if shared.is_file() => shared,
        None => PathBuf::from("samples/club-blitz.pgn"),
    };
    let text = repeated(&source, args.games)?;
    let label = format!("{} games in turn from {}", args.games, source.display());
    import_bench(&label, &text);
    // 2. Streaming: `analyze --ndjson` over the same games with nothing to search.
    stream_bench(&text)?;
    if args.no_pipeline {
        return Ok(());
    }

    // 3. Pipeline: wall time against summed engine time, for 1..=max_jobs engines.
    let game_text = std::fs::read_to_string(&args.game)
        .with_context(|| format!("cannot read {}", args.game.display()))?;
    let engine = match &args.engine {
        Some(e) => e.clone(),
        None => default_engine().context("no default engine: run `npm ci`")?,
    };
    let settings = Settings {
        limit: Limit::Depth(args.depth),
        multipv: args.multipv,
        ..Settings::default()
    };
    println!(
        "pipeline: {} (depth {}, {} lines), engine `{engine}`",
        args.game.display(),
        args.depth,
        args.multipv
    );
    println!("  engines  positions  wall s  engine s  efficiency  first move s  speed-up");
    let mut wall_one = None;
    for jobs in 1..=args.max_jobs.max(1) {
        let mut analysis = Analysis::from_pgn(&game_text, settings.clone());
        let timeout = Duration::from_secs(600);
        let run = Run {
            engine: &engine,
            settings: &settings,
            workers: jobs,
            timeout,
            cache: None,
        };
        let t = Instant::now();
        let engines = (0..jobs)
            .map(|_| Engine::start(&engine, &settings, timeout))
            .collect::<Result<Vec<_>>>()?;
        let mut engine_ms = 0u64;
        let mut first = None;
        let failures = run_pool(engines, analysis.jobs(), &run, |r| {
            first.get_or_insert_with(|| t.elapsed());
            engine_ms += r.engine_time_ms();
            analysis.add_result(r);
        });
        let wall = t.elapsed().as_secs_f64();
        anyhow::ensure!(failures.is_empty(), "engine failures: {}", failures.len());
        let engine_s = engine_ms as f64 / 1000.0;
        let w1 = *wall_one.get_or_insert(wall);
        println!(
            "  {jobs:>7}  {:>9}  {wall:>6.2}  {engine_s:>8.2}  {:>10.2}  {:>12.2}  {:>8.2}",
            analysis.done_positions(),
            engine_s / jobs as f64 / wall,
            first.map_or(0.0, |d| d.as_secs_f64()),
            w1 / wall
        );
    }
    println!("efficiency = summed engine search time / engines / wall time (1.00: no overhead)");

    // 4. Settings compared: the same game, one engine each, one after the other.
    if !args.compare.is_empty() {
        let mut runs = vec![(
            format!("depth {}, `{engine}`", args.depth),
            engine.clone(),
            settings.clone(),
        )];
        for spec in &args.compare {
            let (e, s) = compared(spec, &engine, &settings)?;
            runs.push((spec.clone(), e, s));
        }
        println!("settings compared: {} with one engine", args.game.display());
        println!("  s/position  ratio  positions  setting");
        let mut base = None;
        for (name, e, s) in &runs {
            let (positions, wall) = time_one(&game_text, e, s)?;
            let per = wall / positions.max(1) as f64;
            let b = *base.get_or_insert(per);
            println!("  {per:>10.3}  {:>5.2}  {positions:>9}  {name}", per / b);
        }
    }
    Ok(())
}

/// The games of a PGN file, repeated in turn until there are `games` of them.
fn repeated(path: &Path, games: usize) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    // Cut the text at each game's first line (the import knows where games start).
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // (A failed game's error names the line of its error, so it stays with the game
    // before it.)
    let starts: Vec<usize> = pgn::games(&text)
        .flatten()
        .filter_map(|g| line_starts.get((g.line as usize).checked_sub(1)?).copied())
        .collect();
    anyhow::ensure!(!starts.is_empty(), "{}: no games", path.display());
    let cuts: Vec<&str> = starts
        .iter()
        .enumerate()
        .map(|(k, &start)| {
            let end = starts.get(k + 1).copied().unwrap_or(text.len());
            text.get(start..end).unwrap_or_default().trim_end()
        })
        .collect();
    let mut out = String::new();
    for cut in cuts.iter().cycle().take(games) {
        out.push_str(cut);
        out.push_str("\n\n");
    }
    Ok(out)
}

/// A pgn-reader visitor that only counts main-line moves, or plays them with shakmaty.
struct Baseline {
    play: bool,
    plies: usize,
}

impl pgn_reader::Visitor for Baseline {
    type Tags = ();
    type Movetext = shakmaty::Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, (): ()) -> ControlFlow<(), shakmaty::Chess> {
        ControlFlow::Continue(shakmaty::Chess::default())
    }

    fn san(&mut self, pos: &mut shakmaty::Chess, san: pgn_reader::SanPlus) -> ControlFlow<()> {
        self.plies += 1;
        if self.play {
            use shakmaty::Position;
            match san.san.to_move(pos) {
                Ok(m) => pos.play_unchecked(m),
                Err(_) => return ControlFlow::Break(()),
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: shakmaty::Chess) {}
}

/// A way to read the text, returning the plies it read.
type PliesRead<'a> = Box<dyn Fn() -> usize + 'a>;

/// The best of three runs of `f`, which returns how many plies it read: the plies, the
/// wall time and the thread's CPU time of the fastest run (CPU time, which another
/// process's load barely changes, is what compares builds on a shared machine).
fn best_of_3(mut f: impl FnMut() -> usize) -> (usize, Duration, Duration) {
    let mut best = (Duration::MAX, Duration::MAX);
    let mut plies = 0;
    for _ in 0..3 {
        let (t, cpu) = (Instant::now(), thread_cpu_time());
        plies = f();
        let run = (t.elapsed(), thread_cpu_time().saturating_sub(cpu));
        best = best.min(run);
    }
    (plies, best.0, best.1)
}

/// The CPU time this thread has used (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    #[allow(unsafe_code)]
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

fn import_bench(label: &str, text: &str) {
    println!("import: {label}, {:.1} MB", text.len() as f64 / 1e6);
    let count = |games: &mut dyn Iterator<
        Item = Result<fairsight::Game, fairsight::ImportError>,
    >| { games.flatten().map(|g| g.plies.len()).sum::<usize>() };
    let runs: [(&str, PliesRead<'_>); 4] = [
        (
            "fairsight pgn::Reader (analyze)",
            Box::new(|| count(&mut pgn::Reader::new(text.as_bytes()).map_while(Result::ok))),
        ),
        (
            "fairsight pgn::games (whole text)",
            Box::new(|| count(&mut pgn::games(text))),
        ),
        (
            "pgn-reader, moves counted",
            Box::new(|| baseline(text, false)),
        ),
        (
            "pgn-reader + shakmaty play",
            Box::new(|| baseline(text, true)),
        ),
    ];
    let mut ours = None;
    println!(
        "  {:<36} {:>9} {:>8} {:>12} {:>7}  {:>6} {:>12}  ratio to the first",
        "reader", "plies", "s", "plies/s", "MB/s", "cpu s", "plies/cpu s"
    );
    for (name, run) in runs {
        let (plies, best, cpu) = best_of_3(run);
        let secs = best.as_secs_f64();
        let rate = plies as f64 / secs;
        let cpu_rate = plies as f64 / cpu.as_secs_f64();
        let first = *ours.get_or_insert(rate);
        println!(
            "  {name:<36} {plies:>9} {secs:>8.3} {rate:>12.0} {:>7.1}  {:>6.3} {cpu_rate:>12.0}  {:.2}",
            text.len() as f64 / 1e6 / secs,
            cpu.as_secs_f64(),
            rate / first
        );
    }
}

/// Plies pgn-reader reads in the text, counted or played.
fn baseline(text: &str, play: bool) -> usize {
    let mut v = Baseline { play, plies: 0 };
    let mut reader = pgn_reader::Reader::new(text.as_bytes());
    while let Ok(Some(())) = reader.read_game(&mut v) {}
    v.plies
}

/// An engine that only answers the handshake: the streaming run searches nothing, and
/// its peak memory (which `wait4` counts with the engine's) is then fairsight's own.
const HANDSHAKE_ONLY_ENGINE: &str = "while read -r line; do case \"$line\" in \
     uci) echo 'id name Handshake only'; echo uciok ;; isready) echo readyok ;; \
     quit) exit 0 ;; esac; done\n";

/// Runs `fairsight analyze` on the text with nothing to search (every move before
/// `--min-move`), the streamed report only, and prints its time and peak memory.
fn stream_bench(text: &str) -> Result<()> {
    let dir = PathBuf::from("target/bench");
    std::fs::create_dir_all(&dir)?;
    let input = dir.join("stream-input.pgn");
    std::fs::write(&input, text)?;
    let script = dir.join("handshake-only.sh");
    std::fs::write(&script, HANDSHAKE_ONLY_ENGINE)?;
    let engine = format!("bash {}", script.display());
    let engine = engine.as_str();
    let exe = std::env::current_exe()?;
    let args = [
        "analyze",
        input.to_str().context("a UTF-8 path")?,
        "--engine",
        engine,
        "--min-move",
        "100000",
        "--ndjson",
        "/dev/null",
        "--quiet",
    ];
    let t = Instant::now();
    let (status, peak) = run_measured(&exe, &args)?;
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(status == Some(0), "the streaming run failed: {status:?}");
    println!(
        "stream: fairsight analyze {} --min-move 100000 --ndjson /dev/null (nothing searched; \
         an engine that only answers the handshake)",
        input.display()
    );
    println!(
        "  {:.2}s, peak RSS {:.1} MB ({:.1} MB of input)",
        secs,
        peak as f64 / 1e6,
        text.len() as f64 / 1e6
    );
    Ok(())
}

/// Runs a command to its end, stderr kept out; its exit code and its own peak resident
/// memory in bytes (from `wait4`).
#[allow(clippy::zombie_processes)] // the child is reaped by wait4, which gives its peak memory
fn run_measured(exe: &Path, args: &[&str]) -> Result<(Option<i32>, u64)> {
    let child = std::process::Command::new(exe)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", exe.display()))?;
    let pid = libc::pid_t::try_from(child.id())?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, which wait4 overwrites.
    #[allow(unsafe_code)]
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, unreaped (the `Child` is never waited on), with
    // pointers to live locals.
    #[allow(unsafe_code)]
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    anyhow::ensure!(waited == pid, "wait4 failed");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // Linux reports kilobytes.
    Ok((code, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024))
}
