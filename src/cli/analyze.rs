//! `fairsight analyze`: games are read from the files (or stdin) one at a time, their
//! jobs run on the engines as they come, and each game's report is written (`--ndjson`)
//! as soon as it and every game before it are done; the players come at the end. Only the
//! games in flight and the players' aggregates are held, unless a whole-report output
//! (`--json`, `--pgn`, `--log`, `--results`) is asked for: those need every game, so
//! then the games are kept until the end.

use std::{
    fs::File,
    io::{self, BufWriter, Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result};
use fairsight::{
    Book, GameReport, ModelOverrides, NoBook, Shard, ShardSource, Stream, load_book, pgn,
    render::{self, ndjson},
};

use super::{
    BUILTIN_BOOK,
    args::{AnalyzeArgs, validate},
    cache::{FNV1A_EMPTY, fnv1a_more},
    output::{stdout, write_outputs},
    pool::{Run, Runner},
    usage_error,
};

/// Games in flight at most: many more than the engines' chunks need to stay busy, few
/// enough that games finished behind a long one (they are written in input order) take
/// little memory.
const IN_FLIGHT: usize = 256;

/// An input that counts and hashes what is read from it (a shard records its files).
struct Hashed<R> {
    inner: R,
    bytes: u64,
    fnv1a: u64,
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let read = buf.get(..n).unwrap_or_default();
        self.bytes += n as u64;
        self.fnv1a = fnv1a_more(self.fnv1a, read);
        Ok(n)
    }
}

/// Where finished games go: the streamed report, and the list a whole report needs.
struct Sink {
    /// `--ndjson`: the writer and its path (for messages).
    ndjson: Option<(Box<dyn Write>, PathBuf)>,
    /// Every game, when a whole-report output was asked for.
    kept: Option<Vec<GameReport>>,
    games: usize,
    failed: usize,
}

impl Sink {
    fn write(&mut self, line: &str) -> Result<()> {
        if let Some((out, path)) = &mut self.ndjson {
            out.write_all(line.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Writes every game the stream has finished, in order.
    fn drain(&mut self, stream: &mut Stream) -> Result<()> {
        while let Some(game) = stream.next_game() {
            self.games += 1;
            self.failed += usize::from(game.error.is_some());
            if let Some((out, path)) = &mut self.ndjson {
                // Flushed a game at a time, so the file can be followed as it grows.
                out.write_all(ndjson::game_line(&game).as_bytes())
                    .and_then(|()| out.flush())
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if let Some(kept) = &mut self.kept {
                kept.push(game);
            }
        }
        Ok(())
    }
}

pub(crate) fn analyze(args: AnalyzeArgs) -> Result<ExitCode> {
    let v = match validate(&args) {
        Ok(v) => v,
        Err(msg) => return usage_error(msg),
    };
    // Every input is opened first: a missing one is a usage error before any work.
    let mut inputs: Vec<(&Path, Box<dyn Read>)> = Vec::new();
    for f in &args.files {
        if f.as_path() == Path::new("-") {
            inputs.push((f, Box::new(io::stdin().lock())));
        } else {
            match File::open(f) {
                Ok(file) => inputs.push((f, Box::new(file))),
                Err(e) => return usage_error(format!("cannot read {}: {e}", f.display())),
            }
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
    let models = match super::merge::load_models(&args.calibration, &args.model, &args.assessment) {
        Ok(m) => ModelOverrides {
            classifier: m.classifier,
            calibration: m.calibration,
            assessment: m.assessment,
        },
        Err(e) => return usage_error(e),
    };
    let mut ratings = Vec::new();
    for r in &args.rating {
        match fairsight::parse_rating(r) {
            Some((name, elo)) => ratings.push((name.to_owned(), elo)),
            None => return usage_error(format!("--rating {r}: expected NAME=ELO")),
        }
    }
    let ndjson = match &args.ndjson {
        None => None,
        Some(p) if p.as_path() == Path::new("-") => {
            Some((Box::new(io::stdout()) as Box<dyn Write>, p.clone()))
        }
        Some(p) => {
            let file = File::create(p).with_context(|| format!("cannot write {}", p.display()))?;
            Some((Box::new(BufWriter::new(file)) as Box<dyn Write>, p.clone()))
        }
    };
    let whole = [&args.json, &args.pgn, &args.log, &args.results]
        .iter()
        .any(|p| p.is_some());
    let mut sink = Sink {
        ndjson,
        kept: whole.then(Vec::new),
        games: 0,
        failed: 0,
    };

    let run = Run {
        engine: &v.engine,
        settings: &v.settings,
        workers: v.jobs,
        timeout: Duration::from_secs(args.search_timeout.max(1)),
        cache: args.cache.as_deref(),
    };
    let mut runner = match Runner::start(&run) {
        Ok(r) => r,
        Err(msg) => return usage_error(msg),
    };
    let mut stream = Stream::new(v.settings.clone(), runner.engine.clone(), models);
    for (name, elo) in &ratings {
        stream.set_rating(name, *elo);
    }
    sink.write(&ndjson::head_line(&stream.head()))?;

    // Games are numbered across all files in order; lines are per file.
    let mut numbered = 0;
    let mut sources = Vec::new();
    for (f, source) in inputs {
        let mut hashed = Hashed {
            inner: source,
            bytes: 0,
            fnv1a: FNV1A_EMPTY,
        };
        for item in pgn::Reader::new(&mut hashed) {
            let mut g = match item {
                Ok(g) => g,
                Err(e) => return usage_error(format!("cannot read {}: {e}", f.display())),
            };
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
            let jobs = stream.push(g, book.as_ref());
            runner.add_total(jobs.iter().map(|j| j.tasks.len()).sum());
            for job in jobs {
                match runner.submit(job) {
                    Ok(Some(result)) => stream.add_result(result),
                    Ok(None) => {}
                    Err(msg) => return usage_error(msg),
                }
            }
            sink.drain(&mut stream)?;
            // A full window waits for the engines.
            while stream.in_flight() >= IN_FLIGHT && wait(&mut runner, &mut stream) {
                sink.drain(&mut stream)?;
            }
        }
        if v.shard.is_some() {
            sources.push(ShardSource {
                name: f
                    .file_name()
                    .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into()),
                bytes: hashed.bytes,
                fnv1a: format!("{:016x}", hashed.fnv1a),
            });
        }
    }
    while wait(&mut runner, &mut stream) {
        sink.drain(&mut stream)?;
    }
    sink.drain(&mut stream)?;
    let outcome = runner.finish();

    let mut report = stream.finish();
    for p in &report.players {
        sink.write(&ndjson::player_line(p))?;
    }
    sink.write(&ndjson::end_line(sink.games, report.players.len()))?;
    if let Some((out, path)) = &mut sink.ndjson {
        out.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    report.shard = v.shard.map(|(index, count)| Shard {
        index,
        count,
        games: numbered,
        sources,
        ratings: ratings.clone(),
    });
    if let Some(kept) = sink.kept.take() {
        report.games = kept;
        write_outputs(&args, &v, &report)?;
    }
    let to_stdout = [
        &args.json,
        &args.ndjson,
        &args.pgn,
        &args.log,
        &args.results,
    ]
    .iter()
    .any(|p| p.as_deref() == Some(Path::new("-")));
    if !args.quiet && !to_stdout {
        stdout(&render::player_table_of(&report, sink.failed));
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
    Ok(if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Waits for the next job's outcome and gives it to the stream; `false` when no job was
/// waiting.
fn wait(runner: &mut Runner, stream: &mut Stream) -> bool {
    match runner.next() {
        Some(Ok(result)) => stream.add_result(result),
        Some(Err(id)) => stream.give_up(id),
        None => return false,
    }
    true
}
