//! `fairsight analyze`: import, plan, run the engines, assemble the report, write it.

use std::{path::Path, process::ExitCode, time::Duration};

use anyhow::{Context, Result};
use fairsight::{Analysis, Book, NoBook, Shard, ShardSource, load_book, pgn};

use super::{
    BUILTIN_BOOK,
    args::{AnalyzeArgs, validate},
    cache::fnv1a,
    output::{stdout, write_outputs},
    pool::Run,
    usage_error,
};

pub(crate) fn analyze(args: AnalyzeArgs) -> Result<ExitCode> {
    let v = match validate(&args) {
        Ok(v) => v,
        Err(msg) => return usage_error(msg),
    };
    // Games are numbered across all files in order; lines are per file.
    let mut games = Vec::new();
    let mut numbered = 0;
    let mut sources = Vec::new();
    for f in &args.files {
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => return usage_error(format!("cannot read {}: {e}", f.display())),
        };
        if v.shard.is_some() {
            sources.push(ShardSource {
                name: f
                    .file_name()
                    .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into()),
                bytes: bytes.len() as u64,
                fnv1a: format!("{:016x}", fnv1a(&bytes)),
            });
        }
        // Latin-1 files are common: decode lossily rather than refuse.
        let text = String::from_utf8_lossy(&bytes);
        for mut g in pgn::import(&text) {
            let index = numbered;
            numbered += 1;
            // --shard K/N: the games numbered K-1 modulo N, their numbers kept.
            if let Some((k, n)) = v.shard
                && index % n != k - 1
            {
                continue;
            }
            match &mut g {
                Ok(game) => game.index = index,
                Err(e) => {
                    e.index = index;
                    eprintln!("fairsight: {}: skipped {e}", f.display());
                }
            }
            games.push(g);
        }
    }
    let book: Box<dyn Book + Send + Sync> = match args.book.as_str() {
        "none" => Box::new(NoBook),
        "builtin" => load_book(BUILTIN_BOOK).context("the built-in opening book")?,
        path => match std::fs::read(path) {
            Ok(bytes) => match load_book(&bytes) {
                Ok(b) => b,
                Err(e) => return usage_error(format!("--book {path}: {e}")),
            },
            Err(e) => return usage_error(format!("--book {path}: cannot read: {e}")),
        },
    };
    let mut analysis = Analysis::new(games, v.settings.clone(), book.as_ref());
    match super::merge::load_models(&args.calibration, &args.model, &args.assessment) {
        Ok(m) => {
            if let Some(t) = m.calibration {
                analysis.set_calibration(t);
            }
            if let Some(c) = m.classifier {
                analysis.set_classifier(c);
            }
            if let Some(a) = m.assessment {
                analysis.set_assessment(a);
            }
        }
        Err(e) => return usage_error(e),
    }
    let mut ratings = Vec::new();
    for r in &args.rating {
        match fairsight::parse_rating(r) {
            Some((name, elo)) => {
                analysis.set_rating(name, elo);
                ratings.push((name.to_owned(), elo));
            }
            None => return usage_error(format!("--rating {r}: expected NAME=ELO")),
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
    let mut report = analysis.report(engine_info);
    report.shard = v.shard.map(|(index, count)| Shard {
        index,
        count,
        games: numbered,
        sources,
        ratings: ratings.clone(),
    });
    write_outputs(&args, &v, &report)?;
    let to_stdout = [&args.json, &args.pgn, &args.log, &args.results]
        .iter()
        .any(|p| p.as_deref() == Some(Path::new("-")));
    if !args.quiet && !to_stdout {
        stdout(&fairsight::render::player_table(&report));
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
