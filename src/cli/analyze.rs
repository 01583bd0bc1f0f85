//! `fairsight analyze`: games are read from the files (or stdin) one at a time, their
//! jobs run on the engines as they come, and each game's report is written (`--ndjson`)
//! as soon as it and every game before it are done; the players come at the end. Only the
//! games in flight and the players' aggregates are held, unless a whole-report output
//! (`--json`, `--pgn`, `--log`, `--results`) is asked for: those need every game, so
//! then the games are kept until the end.

use std::{
    collections::BTreeSet,
    fs::File,
    io::{self, BufWriter, Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result};
use fairsight::{
    Book, GameReport, ModelOverrides, NoBook, Report, Settings, Shard, ShardSource, Stream,
    load_book, pgn,
    render::{self, FlaggedSide, ndjson},
};

use super::{
    BUILTIN_BOOK,
    args::{AnalyzeArgs, Mode, validate},
    cache::{FNV1A_EMPTY, fnv1a_more},
    interrupt,
    output::{any_to_stdout, stdout, write_outputs},
    pool::{Run, RunOutcome, Runner},
    quick, usage_error,
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
    /// The games with a move to analyse (imported, and not empty).
    with_moves: usize,
    /// Games taken from the input for analysis (some may be in flight when the run is
    /// stopped by a signal).
    taken: usize,
    /// A signal stopped the run with input left unread (more games or files).
    cut: bool,
    /// The game sides above `no concern`, as their games finish (the table lists those
    /// at `look closer` and counts each player's).
    flagged: Vec<FlaggedSide>,
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
            self.with_moves += usize::from(game.error.is_none() && !game.plies.is_empty());
            self.flagged.extend(FlaggedSide::of_game(&game));
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
    let inputs = match open_inputs(&args.files) {
        Ok(i) => i,
        Err(msg) => return usage_error(msg),
    };
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
    let models = match models_for(&args, args.mode == Mode::Quick) {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    let mut ratings = Vec::new();
    for r in &args.rating {
        match fairsight::parse_rating(r) {
            Some((name, elo)) => ratings.push((name.to_owned(), elo)),
            None => return usage_error(format!("--rating {r}: expected NAME=ELO")),
        }
    }
    // Every output is opened before any work: a path that cannot be written is a usage
    // error now, not after the whole analysis (an existing file is not emptied here).
    for (flag, path) in [
        ("--json", &args.json),
        ("--pgn", &args.pgn),
        ("--log", &args.log),
        ("--results", &args.results),
    ] {
        if let Some(p) = path.as_ref().filter(|p| p.as_path() != Path::new("-"))
            && let Err(e) = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(p)
        {
            return usage_error(format!("{flag} {}: cannot write: {e}", p.display()));
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
        .any(|p| p.is_some())
        || v.full_for.is_some();
    let mut sink = Sink {
        ndjson,
        kept: whole.then(Vec::new),
        games: 0,
        failed: 0,
        with_moves: 0,
        taken: 0,
        cut: false,
        flagged: Vec::new(),
    };
    // Ctrl-C or SIGTERM from here on stops the run after the searches under way; the
    // games finished by then are written as usual.
    interrupt::catch();
    let pass = Pass {
        args: &args,
        settings: &v.settings,
        engine: &v.engine,
        jobs: v.jobs,
        shard: v.shard,
        book: book.as_ref(),
        ratings: &ratings,
    };
    let Some((mut report, outcome)) = pass.run(inputs, models, &mut sink, None)? else {
        return Ok(ExitCode::from(super::EXIT_USAGE));
    };
    log_outcome("", &outcome);
    if args.mode == Mode::Quick && report.assessment.is_none() {
        eprintln!(
            "fairsight: the quick assessment does not apply to these settings or this engine \
             (it was fitted at {} nodes, {} lines, with the default engine): players are not ranked",
            quick::QUICK_NODES,
            quick::QUICK_LINES
        );
    }
    let mut failed = outcome.failures.len();

    // --full-for: the full analysis of the flagged players' games (not after a signal).
    let mut quick_screen = None;
    if let Some((rule, full_settings)) = v
        .full_for
        .as_ref()
        .filter(|_| interrupt::stopped().is_none())
    {
        let ranked = quick::rank(&report, Some(*rule));
        let chosen = quick::games_of(&report, &ranked);
        eprintln!(
            "fairsight: quick screen done; the full test for {} player(s), {} game(s)",
            ranked.iter().filter(|r| r.full).count(),
            chosen.len()
        );
        let screen_json = quick::json(
            &ranked,
            &report.settings,
            args.full_for.as_deref().unwrap_or_default(),
            report.assessment.as_deref().unwrap_or("none"),
        );
        let screen_table = quick::table(&ranked, &report.settings);
        let inputs = match open_inputs(&args.files) {
            Ok(i) => i,
            Err(msg) => return usage_error(msg),
        };
        let models = match models_for(&args, false) {
            Ok(m) => m,
            Err(e) => return usage_error(e),
        };
        let mut full_sink = Sink {
            ndjson: None,
            kept: Some(Vec::new()),
            games: 0,
            failed: 0,
            with_moves: 0,
            taken: 0,
            cut: false,
            flagged: Vec::new(),
        };
        let full = Pass {
            settings: full_settings,
            ..pass
        };
        let Some((full_report, full_outcome)) =
            full.run(inputs, models, &mut full_sink, Some(&chosen))?
        else {
            return Ok(ExitCode::from(super::EXIT_USAGE));
        };
        log_outcome("full test: ", &full_outcome);
        failed += full_outcome.failures.len();
        report = full_report;
        sink.failed = full_sink.failed;
        sink.flagged = full_sink.flagged;
        quick_screen = Some((screen_json, screen_table));
    }

    if whole {
        let mut json = report.to_json();
        if let Some((screen, _)) = &quick_screen {
            // The quick verdicts of every player beside the full report: a field of its
            // own, which readers of the report may ignore.
            json.pop();
            json = format!("{json},\"quickScreen\":{screen}}}");
        }
        write_outputs(&args, &v, &report, &json)?;
    }
    let to_stdout = any_to_stdout(&[
        &args.json,
        &args.ndjson,
        &args.pgn,
        &args.log,
        &args.results,
    ]);
    if !args.quiet && !to_stdout {
        let mut text = String::new();
        if args.mode == Mode::Quick && v.full_for.is_none() {
            text += &quick::table(&quick::rank(&report, None), &report.settings);
            text += "\n";
        }
        if let Some((_, table)) = &quick_screen {
            text += table;
            text += "\nthe full test (review defaults) of the flagged players' games:\n";
        }
        text += &render::player_table_of(&report, sink.failed, &sink.flagged);
        stdout(&text);
    }
    // Stopped by a signal: said, with what the outputs hold, and the shell's code for it.
    if let Some(signal) = interrupt::stopped() {
        let left = sink.taken.saturating_sub(sink.games);
        eprintln!(
            "fairsight: stopped by {}: the outputs hold the {} game(s) finished before it; {left} game(s) under analysis{} were left out. {}",
            interrupt::name(signal),
            sink.games,
            if sink.cut {
                " and the rest of the input"
            } else {
                ""
            },
            if args.cache.is_some() {
                "Run the same command again to go on: the searches done are in the cache."
            } else {
                "With --cache DIR, a stopped run's searches are kept and a second run goes on from them."
            }
        );
        return Ok(ExitCode::from(
            u8::try_from(128 + signal).unwrap_or(super::EXIT_USAGE),
        ));
    }
    // Nothing to analyse (an empty file, text that is not PGN, only games that could
    // not be imported) is not a clean result: said, and exit code 1. A shard may be
    // dealt no game.
    if sink.with_moves == 0 && args.shard.is_none() {
        eprintln!(
            "fairsight: no game with a move to analyse in the input ({} game(s) read, {} could not be imported)",
            sink.games, sink.failed
        );
        failed += 1;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// An input file (or `-`) and its reader.
type Input<'a> = (&'a Path, Box<dyn Read>);

/// The inputs, opened (`-` is stdin).
fn open_inputs(files: &[PathBuf]) -> Result<Vec<Input<'_>>, String> {
    let mut inputs: Vec<Input> = Vec::new();
    for f in files {
        if f.as_path() == Path::new("-") {
            inputs.push((f, Box::new(io::stdin().lock())));
        } else {
            match File::open(f) {
                Ok(file) => inputs.push((f, Box::new(file))),
                Err(e) => return Err(format!("cannot read {}: {e}", f.display())),
            }
        }
    }
    Ok(inputs)
}

/// The models given by the flags; for the quick pass the quick assessment unless one is
/// given. In quick mode `--assessment` is the quick pass's: the full test (`quick` false)
/// takes the shipped full assessment.
fn models_for(args: &AnalyzeArgs, quick: bool) -> Result<ModelOverrides, String> {
    let m = super::merge::load_models(&args.calibration, &args.model, &args.assessment)?;
    let assessment = match (m.assessment, quick) {
        (_, false) if args.mode == Mode::Quick => None,
        (Some(a), _) => Some(a),
        (None, true) => Some(quick::quick_assessment()?),
        (None, false) => None,
    };
    Ok(ModelOverrides {
        classifier: m.classifier,
        calibration: m.calibration,
        assessment,
    })
}

fn log_outcome(what: &str, outcome: &RunOutcome) {
    eprintln!(
        "fairsight: {what}{} positions searched in {:.1}s with {} engine(s){}",
        outcome.searched,
        outcome.elapsed.as_secs_f64(),
        outcome.workers,
        if outcome.cached > 0 {
            format!(", {} from the cache", outcome.cached)
        } else {
            String::new()
        }
    );
}

/// One analysis of the inputs at one setting.
#[derive(Clone, Copy)]
struct Pass<'a> {
    args: &'a AnalyzeArgs,
    settings: &'a Settings,
    engine: &'a str,
    jobs: usize,
    shard: Option<(usize, usize)>,
    book: &'a (dyn Book + Send + Sync),
    ratings: &'a [(String, f64)],
}

impl Pass<'_> {
    /// Analyses the games (only those numbered in `only`, if given) into `sink`; the
    /// report (its games in `sink.kept`) and what the engines did. `None` after a usage
    /// error (printed).
    fn run(
        &self,
        inputs: Vec<Input>,
        models: ModelOverrides,
        sink: &mut Sink,
        only: Option<&BTreeSet<usize>>,
    ) -> Result<Option<(Report, RunOutcome)>> {
        let args = self.args;
        let run = Run {
            engine: self.engine,
            settings: self.settings,
            workers: self.jobs,
            timeout: Duration::from_secs(args.search_timeout.max(1)),
            cache: args.cache.as_deref(),
        };
        let mut runner = match Runner::start(&run) {
            Ok(r) => r,
            Err(msg) => {
                usage_error(msg)?;
                return Ok(None);
            }
        };
        let mut stream = Stream::new(self.settings.clone(), runner.engine.clone(), models);
        for (name, elo) in self.ratings {
            stream.set_rating(name, *elo);
        }
        sink.write(&ndjson::head_line(&stream.head()))?;

        // Games are numbered across all files in order; lines are per file.
        let mut numbered = 0;
        let mut sources = Vec::new();
        let files = inputs.len();
        for (n, (f, source)) in inputs.into_iter().enumerate() {
            let mut hashed = Hashed {
                inner: source,
                bytes: 0,
                fnv1a: FNV1A_EMPTY,
            };
            let mut reader = pgn::Reader::new(&mut hashed);
            while let Some(item) = reader.next() {
                let mut g = match item {
                    Ok(g) => g,
                    Err(e) => {
                        usage_error(format!("cannot read {}: {e}", f.display()))?;
                        return Ok(None);
                    }
                };
                let index = numbered;
                numbered += 1;
                // --shard K/N: the games numbered K-1 modulo N, their numbers kept.
                if let Some((k, n)) = self.shard
                    && index % n != k - 1
                {
                    continue;
                }
                if only.is_some_and(|o| !o.contains(&index)) {
                    continue;
                }
                match &mut g {
                    Ok(game) => game.index = index,
                    Err(e) => {
                        e.index = index;
                        eprintln!("fairsight: {}: skipped {e}", f.display());
                    }
                }
                sink.taken += 1;
                let jobs = stream.push(g, self.book);
                runner.add_total(jobs.iter().map(|j| j.tasks.len()).sum());
                for job in jobs {
                    match runner.submit(job) {
                        Ok(Some(result)) => stream.add_result(result),
                        Ok(None) => {}
                        Err(msg) => {
                            usage_error(msg)?;
                            return Ok(None);
                        }
                    }
                }
                sink.drain(&mut stream)?;
                // A full window waits for the engines.
                while stream.in_flight() >= IN_FLIGHT && wait(&mut runner, &mut stream) {
                    sink.drain(&mut stream)?;
                }
                if interrupt::stopped().is_some() {
                    // Input left unread: another file, or another game in this one (a
                    // file is read on to see; stdin is not, which could wait for a
                    // terminal).
                    sink.cut = n + 1 < files || f.as_os_str() == "-" || reader.next().is_some();
                    break;
                }
            }
            if interrupt::stopped().is_some() {
                break;
            }
            if self.shard.is_some() {
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
        report.shard = self.shard.map(|(index, count)| Shard {
            index,
            count,
            games: numbered,
            sources,
            ratings: self.ratings.to_vec(),
        });
        for p in &report.players {
            sink.write(&ndjson::player_line(p))?;
        }
        sink.write(&ndjson::end_line(
            sink.games,
            report.players.len(),
            report.shard.as_ref(),
        ))?;
        if let Some((out, path)) = &mut sink.ndjson {
            out.flush()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some(kept) = sink.kept.take() {
            report.games = kept;
        }
        Ok(Some((report, outcome)))
    }
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
