//! `fairsight calibrate`: the rating ↔ Regan (s, c) table in `models/`.
//!
//! 1. `calibrate sample FILE.pgn --per-band N`: picks rated games (both `WhiteElo` and
//!    `BlackElo`), N per rating band of the players' mean rating, spread evenly through
//!    the file, and prints them as PGN.
//! 2. `fairsight analyze SAMPLE.pgn --json REPORT.json` with the default settings.
//! 3. `calibrate fit REPORT.json... --out models/regan-calibration.json`: groups every
//!    analysed move by its player's rating band and fits Regan's (s, c) per band.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use fairsight::{
    Calibration, Report, Side,
    fit::{Band, regan},
    pgn,
};

#[derive(Subcommand)]
pub enum CalibrateCmd {
    /// Print a sample of rated games, N per rating band.
    Sample(SampleArgs),
    /// Fit (s, c) per rating band from analysed reports.
    Fit(FitArgs),
    /// Screen every rated side of analysed reports against its own rating: prints the
    /// mean and SD of the z-scores (≈ 0 and ≈ 1 for clean play if the table is right).
    Validate(ValidateArgs),
}

#[derive(Args)]
pub struct ValidateArgs {
    /// JSON reports of `fairsight analyze` (the table's settings).
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// The table [default: the shipped one].
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Rating to screen unrated sides against (e.g. engines) [default: skip them].
    #[arg(long)]
    unrated_as: Option<f64>,
    /// Sides with fewer analysed moves are skipped.
    #[arg(long, default_value_t = 10)]
    min_moves: usize,
}

#[derive(Args)]
pub struct SampleArgs {
    /// PGN with rated games.
    file: PathBuf,
    /// Games per band.
    #[arg(long, default_value_t = 12)]
    per_band: usize,
    /// Shift the even spread by this many games within each band: `--per-band 6
    /// --offset 2` picks games disjoint from `--per-band 12` (bands of 36+ games), for
    /// validation.
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// Print the picked games' 1-based numbers in the file instead of their PGN.
    #[arg(long)]
    numbers: bool,
}

#[derive(Args)]
pub struct FitArgs {
    /// JSON reports of `fairsight analyze` over rated games (default settings).
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Where to write the table.
    #[arg(long)]
    out: PathBuf,
    /// A line saying where the games came from, for the table.
    #[arg(long, default_value = "")]
    source: String,
}

/// The band edges (Elo): [lo, hi).
pub const BANDS: [(u32, u32); 6] = [
    (0, 1800),
    (1800, 2000),
    (2000, 2200),
    (2200, 2400),
    (2400, 2600),
    (2600, 3500),
];

fn elo(tags: &[(String, String)], name: &str) -> Option<u32> {
    tags.iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.trim().parse().ok())
        .filter(|&e| e > 0)
}

fn band_of(e: u32) -> Option<usize> {
    BANDS.iter().position(|&(lo, hi)| lo <= e && e < hi)
}

pub fn run(cmd: CalibrateCmd) -> Result<()> {
    match cmd {
        CalibrateCmd::Sample(a) => sample(a),
        CalibrateCmd::Fit(a) => fit(a),
        CalibrateCmd::Validate(a) => validate(a),
    }
}

fn sample(a: SampleArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.file)
        .with_context(|| format!("cannot read {}", a.file.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let games: Vec<_> = pgn::import(&text).into_iter().flatten().collect();
    let mut by_band: Vec<Vec<usize>> = vec![Vec::new(); BANDS.len()];
    for (i, g) in games.iter().enumerate() {
        let (Some(w), Some(b)) = (elo(&g.tags, "WhiteElo"), elo(&g.tags, "BlackElo")) else {
            continue;
        };
        if g.plies.len() < 30 {
            continue; // short draws and forfeits say little
        }
        if let Some(k) = band_of((w + b) / 2) {
            by_band[k].push(i);
        }
    }
    for (k, idx) in by_band.iter().enumerate() {
        let take = a.per_band.min(idx.len());
        eprintln!(
            "band {}-{}: {} rated games, taking {take}",
            BANDS[k].0,
            BANDS[k].1,
            idx.len()
        );
        for j in 0..take {
            let g = &games[idx[(j * idx.len() / take + a.offset) % idx.len()]];
            if a.numbers {
                println!("{}", g.index + 1);
                continue;
            }
            // The game's text: from its first line to the next game's (or the end).
            let start = g.line as usize - 1;
            let end = games
                .iter()
                .map(|o| o.line as usize - 1)
                .filter(|&l| l > start)
                .min()
                .unwrap_or(lines.len());
            println!("{}\n", lines[start..end].join("\n").trim_end());
        }
    }
    Ok(())
}

fn fit(a: FitArgs) -> Result<()> {
    let mut samples: Vec<Vec<regan::Tested>> = vec![Vec::new(); BANDS.len()];
    let mut ratings: Vec<Vec<u32>> = vec![Vec::new(); BANDS.len()];
    let mut settings = None;
    let mut engine = None;
    for path in &a.reports {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report = Report::from_json(&text)
            .with_context(|| format!("{} is not a fairsight report", path.display()))?;
        if settings.get_or_insert_with(|| report.settings.clone()) != &report.settings {
            bail!("{}: reports made with different settings", path.display());
        }
        engine.get_or_insert_with(|| report.engine.clone());
        for g in report.games.iter().filter(|g| g.error.is_none()) {
            for (side, tag) in [(Side::White, "WhiteElo"), (Side::Black, "BlackElo")] {
                let Some(e) = elo(&g.tags, tag) else { continue };
                let Some(k) = band_of(e) else { continue };
                let t = regan::side_sample(g.index, &g.plies, side);
                if !t.is_empty() {
                    ratings[k].push(e);
                    samples[k].extend(t);
                }
            }
        }
    }
    let (Some(settings), Some(engine)) = (settings, engine) else {
        bail!("no reports");
    };
    // One c shared by the bands (profile likelihood), then s per band at that c: the
    // bands differ in s alone, so the table is monotone and the IPR well defined.
    let used: Vec<usize> = (0..BANDS.len())
        .filter(|&k| samples[k].iter().any(|t| t.deltas.len() > 1))
        .collect();
    let pooled: Vec<Vec<regan::Tested>> = used.iter().map(|&k| samples[k].clone()).collect();
    let (c, c_range) = regan::fit_common_c(&pooled).context("no band has a usable move")?;
    eprintln!("common c = {c:.3} (95%: {:.3}-{:.3})", c_range.0, c_range.1);
    let mut bands = Vec::new();
    for &k in &used {
        let s = &samples[k];
        // s by matching the band's observed top-move rate at the common c (the ML s
        // alone left clean players' screening z-scores biased upwards by ~0.4).
        let Some((sv, s_range)) = regan::fit_s_by_mm(s, c) else {
            continue;
        };
        let moves = s.iter().filter(|t| t.deltas.len() > 1).count();
        let mean = ratings[k].iter().map(|&e| f64::from(e)).sum::<f64>() / ratings[k].len() as f64;
        let own = regan::fit(s);
        eprintln!(
            "band {}-{}: {} sides, {moves} moves, mean Elo {mean:.0}: s = {sv:.3} (MM z within 1.96: {:.3}-{:.3}) at c = {c:.3}{}",
            BANDS[k].0,
            BANDS[k].1,
            ratings[k].len(),
            s_range.0,
            s_range.1,
            own.map_or(String::new(), |f| format!(
                "; the band alone: s = {:.3}, c = {:.2} (c {:.2}-{:.2})",
                f.s, f.c, f.c_range.0, f.c_range.1
            ))
        );
        bands.push(Band {
            lo: BANDS[k].0,
            hi: BANDS[k].1,
            mean_elo: mean,
            sides: ratings[k].len(),
            moves,
            s: sv,
            c,
            s_range,
            c_range,
        });
    }
    let table = Calibration {
        engine,
        settings,
        source: a.source,
        bands,
    };
    std::fs::write(&a.out, table.to_json() + "\n")
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v.sqrt())
}

fn validate(a: ValidateArgs) -> Result<()> {
    let table = match &a.calibration {
        Some(p) => Calibration::from_json(
            &std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        )
        .with_context(|| format!("{} is not a calibration table", p.display()))?,
        None => Calibration::builtin()
            .cloned()
            .context("the shipped calibration table is empty")?,
    };
    let (mut mm, mut ev, mut asd, mut ipr_err) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut skipped = 0;
    for path in &a.reports {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report = Report::from_json(&text)
            .with_context(|| format!("{} is not a fairsight report", path.display()))?;
        if !table.applies_to(&report.settings, &report.engine) {
            bail!(
                "{}: made with other settings or engine than the table",
                path.display()
            );
        }
        for g in report.games.iter().filter(|g| g.error.is_none()) {
            for (side, tag) in [(Side::White, "WhiteElo"), (Side::Black, "BlackElo")] {
                let rating = elo(&g.tags, tag).map(f64::from).or(a.unrated_as);
                let sample = regan::side_sample(g.index, &g.plies, side);
                let (Some(r), true) = (rating, sample.len() >= a.min_moves) else {
                    skipped += 1;
                    continue;
                };
                let Some(z) = table.screen(&sample, r) else {
                    skipped += 1;
                    continue;
                };
                mm.extend(z.mm);
                ev.extend(z.ev);
                asd.extend(z.asd);
                if let (Some(i), Some(e)) = (table.ipr(&sample), elo(&g.tags, tag)) {
                    ipr_err.push(i.elo - f64::from(e));
                }
            }
        }
    }
    if mm.is_empty() {
        bail!(
            "no side with a rating and at least {} analysed moves",
            a.min_moves
        );
    }
    println!(
        "{} sides screened ({skipped} skipped: unrated or under {} moves), table: {}",
        mm.len(),
        a.min_moves,
        table.source
    );
    for (name, zs) in [("MM", &mm), ("EV", &ev), ("ASD", &asd)] {
        let (m, sd) = mean_sd(zs);
        let over = zs.iter().filter(|z| z.abs() >= 2.75).count();
        // Stouffer's combination: the sides' evidence together, as one z.
        let pooled = zs.iter().sum::<f64>() / (zs.len() as f64).sqrt();
        println!(
            "  z {name:<3}: mean {m:+.2}, SD {sd:.2}, |z| >= 2.75: {over}, all sides together (Stouffer) {pooled:+.2}"
        );
    }
    if !ipr_err.is_empty() {
        let (m, sd) = mean_sd(&ipr_err);
        println!(
            "  IPR - Elo over {} rated sides: mean {m:+.0}, SD {sd:.0}",
            ipr_err.len()
        );
    }
    Ok(())
}
