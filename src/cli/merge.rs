//! `fairsight merge`: the shards' reports of one batch (`analyze --shard K/N`) into the
//! report one run over the whole input gives, byte for byte: their whole JSON reports
//! (`--json`), read at once, or their streamed reports (`--ndjson`), read a game at a
//! time from every shard in turn, so memory stays bounded whatever the batch's size.

use std::{
    fs::File,
    io::{BufRead, BufReader, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result};
use clap::Args;
use fairsight::{
    AssessmentModel, Calibration, Classifier, GameReport, ModelOverrides, Report, Stream,
    render::{
        self, FlaggedSide, SideFilter, matchlog,
        ndjson::{self, Item},
    },
};

use super::{
    output::{any_to_stdout, stdout, write_to},
    usage_error,
};

#[derive(Args)]
pub(crate) struct MergeArgs {
    /// The shards' reports, in any order: all whole JSON reports (`fairsight analyze
    /// --shard K/N --json`) or all streamed ones (`--ndjson`), which merge in bounded
    /// memory.
    #[arg(required = true)]
    pub(crate) shards: Vec<PathBuf>,
    /// Write the merged JSON report here (`-` for stdout).
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// Write the merged streamed report here (`-` for stdout): the lines one run with
    /// `--ndjson` writes. From streamed shards, with no other output but the player
    /// table, the games are written as they are read and never all held.
    #[arg(long)]
    pub(crate) ndjson: Option<PathBuf>,
    /// Write the annotated PGN (review mode's) here (`-` for stdout).
    #[arg(long)]
    pub(crate) pgn: Option<PathBuf>,
    /// Screening mode: write the log in Regan's format here (`-` for stdout).
    #[arg(long)]
    pub(crate) log: Option<PathBuf>,
    /// Screening mode: write the results file here (`-` for stdout).
    #[arg(long)]
    pub(crate) results: Option<PathBuf>,
    /// Screening mode: side to test in --log and --results: w, b, wb, or a player's name.
    #[arg(long, default_value = "wb")]
    pub(crate) side: String,
    /// The --calibration the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// The --model the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    /// The --assessment the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) assessment: Option<PathBuf>,
    /// No player table on stdout (it is left out too when an output goes to stdout).
    #[arg(long)]
    pub(crate) quiet: bool,
}

fn load<T>(
    path: &Option<PathBuf>,
    flag: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, String> {
    let Some(path) = path else { return Ok(None) };
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| parse(&t))
        .map(Some)
        .map_err(|e| format!("{flag} {}: {e}", path.display()))
}

/// The model files given with `--calibration`, `--model` and `--assessment` (each
/// optional), as `analyze` and `merge` both take them; the error names the flag and file.
pub(crate) fn load_models(
    calibration: &Option<PathBuf>,
    model: &Option<PathBuf>,
    assessment: &Option<PathBuf>,
) -> Result<ModelOverrides, String> {
    Ok(ModelOverrides {
        calibration: load(calibration, "--calibration", |t| {
            Calibration::from_json(t).map_err(|e| e.to_string())
        })?,
        classifier: load(model, "--model", |t| {
            Classifier::from_json(t).map_err(|e| e.to_string())
        })?,
        assessment: load(assessment, "--assessment", |t| {
            AssessmentModel::from_json(t).map_err(|e| e.to_string())
        })?,
    })
}

pub(crate) fn merge(args: MergeArgs) -> Result<ExitCode> {
    let tested: SideFilter = match args.side.parse() {
        Ok(s) => s,
        Err(e) => return usage_error(format!("--side: {e}")),
    };
    let models = match load_models(&args.calibration, &args.model, &args.assessment) {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    // Streamed shards or whole ones, never a mix.
    let mut streamed = Vec::new();
    for path in &args.shards {
        let label = path.display().to_string();
        let mut start = [0u8; 15];
        let n = match File::open(path).and_then(|mut f| read_up_to(&mut f, &mut start)) {
            Ok(n) => n,
            Err(e) => return usage_error(format!("cannot read {label}: {e}")),
        };
        streamed.push((label, start[..n].starts_with(b"{\"kind\":\"head\"")));
    }
    if let (Some(s), Some(w)) = (
        streamed.iter().find(|s| s.1),
        streamed.iter().find(|s| !s.1),
    ) {
        return usage_error(format!(
            "{} is a streamed report (--ndjson) and {} is not: give merge the shards' \
             reports of one kind",
            s.0, w.0
        ));
    }
    let (report, games, flagged) = if streamed[0].1 {
        match merge_streamed(&args, &models)? {
            Ok(r) => r,
            Err(msg) => return usage_error(msg),
        }
    } else {
        let mut shards = Vec::new();
        for path in &args.shards {
            let label = path.display().to_string();
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => return usage_error(format!("cannot read {label}: {e}")),
            };
            match Report::from_json(&text) {
                Ok(r) => shards.push((label, r)),
                Err(e) => {
                    return usage_error(format!("{label}: not a fairsight JSON report: {e}"));
                }
            }
        }
        let report = match fairsight::merge_shards(shards, &models) {
            Ok(r) => r,
            Err(e) => return usage_error(format!("merge: {e}")),
        };
        if let Some(path) = &args.ndjson {
            let mut text = ndjson::head_line(&report);
            for g in &report.games {
                text.push_str(&ndjson::game_line(g));
            }
            for p in &report.players {
                text.push_str(&ndjson::player_line(p));
            }
            text.push_str(&ndjson::end_line(
                report.games.len(),
                report.players.len(),
                None,
            ));
            write_to(path, &text)?;
        }
        let games = report.games.len();
        let flagged = report.games.iter().flat_map(FlaggedSide::of_game).collect();
        (report, games, flagged)
    };
    let screening = report.settings.screening.is_some();
    if !screening && (args.log.is_some() || args.results.is_some()) {
        return usage_error("--log and --results need shards analysed with --mode screening");
    }
    if let Some(path) = &args.json {
        write_to(path, &(report.to_json() + "\n"))?;
    }
    if let Some(path) = &args.pgn {
        write_to(path, &render::annotated_pgn(&report))?;
    }
    if let Some(path) = &args.log {
        write_to(path, &matchlog::log(&report, &tested))?;
    }
    if let Some(path) = &args.results {
        write_to(path, &matchlog::results(&report, &tested))?;
    }
    let to_stdout = any_to_stdout(&[
        &args.json,
        &args.ndjson,
        &args.pgn,
        &args.log,
        &args.results,
    ]);
    if !args.quiet && !to_stdout {
        let failed = report.games.iter().filter(|g| g.error.is_some()).count();
        stdout(&render::player_table_of(&report, failed, &flagged));
    }
    eprintln!(
        "fairsight: merged {} shard(s): {games} games",
        args.shards.len(),
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads until `buf` is full or the input ends; how many bytes were read.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The last line of a file (without its newline; empty for an empty file), read from
/// its end.
fn last_line(file: &mut File) -> std::io::Result<String> {
    let len = file.seek(SeekFrom::End(0))?;
    let mut size = 4096u64;
    loop {
        let start = len.saturating_sub(size);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::new();
        file.take(len - start).read_to_end(&mut tail)?;
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        if let Some(i) = body.iter().rposition(|b| *b == b'\n') {
            return Ok(String::from_utf8_lossy(&body[i + 1..]).into_owned());
        }
        if start == 0 {
            return Ok(String::from_utf8_lossy(body).into_owned());
        }
        size *= 4;
    }
}

/// A streamed shard being read: its lines after the head.
struct ShardLines {
    label: String,
    lines: std::io::Lines<BufReader<File>>,
    /// Lines read, the head included (for messages).
    line: usize,
    /// Game lines read.
    games: usize,
    /// Its end line's count of game lines.
    end_games: usize,
}

impl ShardLines {
    fn next(&mut self) -> Result<Option<Item>, String> {
        let Some(line) = self.lines.next() else {
            return Ok(None);
        };
        self.line += 1;
        let line = line.map_err(|e| format!("cannot read {}: {e}", self.label))?;
        ndjson::read_line(&line)
            .map(Some)
            .map_err(|e| format!("{} line {}: {e}", self.label, self.line))
    }
}

/// A merge: the report (its games when kept), the number of games and the game sides
/// above `no concern` ([`FlaggedSide::of_game`]).
type Merged = (Report, usize, Vec<FlaggedSide>);

/// The streamed shards' merge: a game at a time from every shard in turn (game g from
/// shard g mod N + 1), each assessed again and added to its players as one run does,
/// written to `--ndjson` as it comes and kept only when a whole-report output is asked
/// for. The report (its games when kept), the number of games and the game sides above
/// `no concern`; `Err(message)` when the shards are refused.
fn merge_streamed(args: &MergeArgs, models: &ModelOverrides) -> Result<Result<Merged, String>> {
    let mut heads = Vec::new();
    let mut readers = Vec::new();
    for path in &args.shards {
        let label = path.display().to_string();
        let cannot = |e: std::io::Error| format!("cannot read {label}: {e}");
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(Err(cannot(e))),
        };
        let end = match last_line(&mut file) {
            Ok(l) => l,
            Err(e) => return Ok(Err(cannot(e))),
        };
        let (end_games, shard) = match ndjson::read_line(&end) {
            Ok(Item::End { games, shard, .. }) => (games, shard),
            _ => {
                return Ok(Err(format!(
                    "{label} has no end line: a streamed report cut short (its run stopped \
                     or is still going)"
                )));
            }
        };
        if let Err(e) = file.seek(SeekFrom::Start(0)) {
            return Ok(Err(cannot(e)));
        }
        let mut reader = ShardLines {
            label: label.clone(),
            lines: BufReader::new(file).lines(),
            line: 0,
            games: 0,
            end_games,
        };
        let mut head = match reader.next() {
            Ok(Some(Item::Head(h))) => h,
            Ok(_) => return Ok(Err(format!("{label}: its first line is not a head line"))),
            Err(e) => return Ok(Err(e)),
        };
        head.shard = shard;
        heads.push((label, head));
        readers.push(reader);
    }
    let by_ref: Vec<(String, &Report)> = heads.iter().map(|(l, r)| (l.clone(), &**r)).collect();
    let spec = match fairsight::check_shard_heads(&by_ref, models) {
        Ok(s) => s,
        Err(e) => return Ok(Err(format!("merge: {e}"))),
    };
    // Readers in shard order: shard k at k - 1.
    let mut order: Vec<(usize, ShardLines, fairsight::Shard)> = heads
        .iter()
        .zip(readers)
        .map(|((_, h), r)| {
            let s = h.shard.clone().expect("invariant: checked");
            (s.index, r, s)
        })
        .collect();
    order.sort_by_key(|(k, _, _)| *k);
    let first = &heads[0].1;
    let mut stream = Stream::new(first.settings.clone(), first.engine.clone(), models.clone());
    for (name, elo) in &spec.ratings {
        stream.set_rating(name, *elo);
    }

    let keep =
        args.json.is_some() || args.pgn.is_some() || args.log.is_some() || args.results.is_some();
    let mut kept: Vec<GameReport> = Vec::new();
    let mut flagged = Vec::new();
    let mut out = match args.ndjson.as_deref() {
        Some(path) => Some(Output::create(path)?),
        None => None,
    };
    if let Some(o) = &mut out {
        o.write(&ndjson::head_line(&stream.head()))?;
    }
    for g in 0..spec.games {
        let (_, shard, record) = &mut order[g % spec.count];
        let game = match shard.next() {
            Ok(Some(Item::Game(game))) => *game,
            Ok(_) => {
                return Ok(Err(format!(
                    "{} lacks game {} of its shard (and any after it): an incomplete report",
                    shard.label,
                    g + 1
                )));
            }
            Err(e) => return Ok(Err(e)),
        };
        shard.games += 1;
        if let Err(e) = fairsight::check_shard_game(&shard.label, record, game.index, game.line) {
            return Ok(Err(format!("merge: {e}")));
        }
        if game.index != g {
            return Ok(Err(format!(
                "{}: game {} (line {}) came where game {} was expected: a game missing or \
                 given twice",
                shard.label,
                game.index + 1,
                game.line,
                g + 1
            )));
        }
        let game = stream.push_report(game);
        flagged.extend(FlaggedSide::of_game(&game));
        if let Some(o) = &mut out {
            o.write(&ndjson::game_line(&game))?;
        }
        if keep {
            kept.push(game);
        }
    }
    // What follows each shard's games: its players (rebuilt here) and its end.
    for (_, shard, _) in &mut order {
        loop {
            match shard.next() {
                Ok(Some(Item::Player(_))) => {}
                Ok(Some(Item::End { .. })) => break,
                Ok(Some(Item::Game(g))) => {
                    return Ok(Err(format!(
                        "{}: game {} (line {}) is not in its shard's place: a game given twice",
                        shard.label,
                        g.index + 1,
                        g.line
                    )));
                }
                Ok(Some(Item::Head(_))) | Ok(None) => {
                    return Ok(Err(format!(
                        "{} line {}: not a streamed report's player or end line",
                        shard.label, shard.line
                    )));
                }
                Err(e) => return Ok(Err(e)),
            }
        }
        if shard.games != shard.end_games {
            return Ok(Err(format!(
                "{}: {} game lines, its end line says {}",
                shard.label, shard.games, shard.end_games
            )));
        }
    }
    let mut report = stream.finish();
    if let Some(mut o) = out {
        for p in &report.players {
            o.write(&ndjson::player_line(p))?;
        }
        o.write(&ndjson::end_line(spec.games, report.players.len(), None))?;
        o.finish()?;
    }
    report.games = kept;
    Ok(Ok((report, spec.games, flagged)))
}

/// The merged streamed report's file, written beside it and renamed over it once whole
/// (a refused or failed merge removes it again and leaves no file), or stdout.
struct Output {
    out: Option<Box<dyn Write>>,
    /// (temporary file, final path) for a file.
    paths: Option<(PathBuf, PathBuf)>,
}

impl Drop for Output {
    /// A merge that did not finish removes its temporary file.
    fn drop(&mut self) {
        if let (Some(out), Some((tmp, _))) = (self.out.take(), &self.paths) {
            drop(out);
            let _ = std::fs::remove_file(tmp);
        }
    }
}

impl Output {
    fn create(path: &Path) -> Result<Output> {
        if path == Path::new("-") {
            return Ok(Output {
                out: Some(Box::new(std::io::BufWriter::new(std::io::stdout()))),
                paths: None,
            });
        }
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".partial.{}", std::process::id()));
        let tmp = path.with_file_name(name);
        let file = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
        Ok(Output {
            out: Some(Box::new(std::io::BufWriter::new(file))),
            paths: Some((tmp, path.to_owned())),
        })
    }

    fn write(&mut self, line: &str) -> Result<()> {
        let shown = self
            .paths
            .as_ref()
            .map_or("stdout".into(), |(_, p)| p.display().to_string());
        self.out
            .as_mut()
            .expect("invariant: written before finish")
            .write_all(line.as_bytes())
            .with_context(|| format!("cannot write {shown}"))
    }

    fn finish(mut self) -> Result<()> {
        let mut out = self.out.take().expect("invariant: finished once");
        let flushed = out.flush();
        drop(out);
        let renamed = flushed
            .context("cannot write the merged report")
            .and_then(|()| match &self.paths {
                Some((tmp, path)) => std::fs::rename(tmp, path)
                    .with_context(|| format!("cannot write {}", path.display())),
                None => Ok(()),
            });
        if renamed.is_err()
            && let Some((tmp, _)) = &self.paths
        {
            let _ = std::fs::remove_file(tmp);
        }
        renamed
    }
}
