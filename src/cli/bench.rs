//! `fairsight bench`: PGN import throughput and the analysis pipeline's efficiency, measured
//! side by side in one run. A benchmark, not a test: it prints, it asserts nothing.

use std::{
    path::PathBuf,
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
    /// PGN for the import benchmark [default: ../shared/data lichess games if present,
    /// else the sample game repeated].
    #[arg(long)]
    import_pgn: Option<PathBuf>,
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
    // 1. Import throughput.
    let shared = PathBuf::from("../shared/data/human/online/lichess_2025-05_clk.pgn");
    let (label, text) = match &args.import_pgn {
        Some(p) => (p.display().to_string(), std::fs::read_to_string(p)?),
        None if shared.is_file() => (
            shared.display().to_string(),
            std::fs::read_to_string(&shared)?,
        ),
        None => {
            let one = std::fs::read_to_string(&args.game)?;
            ("sample game x 200".to_owned(), one.repeat(200))
        }
    };
    let mut best = Duration::MAX;
    let mut plies = 0;
    let mut games = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let imported = pgn::import(&text);
        best = best.min(t.elapsed());
        games = imported.len();
        plies = imported
            .iter()
            .flatten()
            .map(|g| g.plies.len())
            .sum::<usize>();
    }
    println!("import: {label}");
    println!(
        "  {games} games, {plies} plies in {:.3}s (best of 3): {:.0} plies/s, {:.1} MB/s",
        best.as_secs_f64(),
        plies as f64 / best.as_secs_f64(),
        text.len() as f64 / 1e6 / best.as_secs_f64()
    );

    // 2. Pipeline: wall time against summed engine time, for 1..=max_jobs engines.
    let game_text = std::fs::read_to_string(&args.game)
        .with_context(|| format!("cannot read {}", args.game.display()))?;
    let engine = match args.engine {
        Some(e) => e,
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

    // 3. Settings compared: the same game, one engine each, one after the other.
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
