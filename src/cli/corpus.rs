//! `fairsight corpus`: the analysed corpus under `corpus/` (see `corpus/README.md`).
//!
//! Every analysis made for training, calibration or evaluation is stored here, so the
//! data only grows and no game is ever analysed twice:
//!
//! - `corpus add FILE --label engine|human|switched --source NAME [selection]` takes
//!   games from a PGN file exactly as `train sample` does (spread evenly, cut after the
//!   skipped opening, at most `--max-plies`), analyses the ones not yet stored at the
//!   default settings, and writes one compressed record per game as soon as its last
//!   chunk is done (`games/NAME/NNNNN.json.xz`): the cut game as PGN (tags, moves,
//!   clocks), where it came from, the settings and engine, and per searched position
//!   every depth's lines (score and first move; the whole PV of each line's deepest
//!   iteration) and the played move's own search.
//! - `corpus report` rebuilds the report of stored games with no engine; it is
//!   byte-identical to the report of a direct analysis of the same games (tested).
//! - `manifest.json` counts games and positions per source, label and split, fixes each
//!   game's split (train, validation, test: by game and by player, see
//!   [`Manifest::assign`]) and lists the commands that made the corpus.

use std::{
    collections::{BTreeMap, HashMap},
    io::{Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use fairsight::{
    Analysis, Book, Bound, DEFAULT_DEPTH, DEFAULT_MULTIPV, EngineInfo, JobId, JobResult, Limit,
    NoBook, PositionAnalysis, PvLine, Report, Score, Search, Settings, load_book,
};
use serde::{Deserialize, Serialize};

use super::fit::train::{Picked, Selection, select};

/// Version of the record and manifest formats.
const FORMAT: u32 = 1;

#[derive(Subcommand)]
pub enum CorpusCmd {
    /// Analyse games of a PGN file at the default settings and store them.
    Add(AddArgs),
    /// Rebuild the JSON report of stored games, with no engine.
    Report(ReportArgs),
    /// Bring the manifest up to date with the stored games (counts, splits of new games).
    Manifest(ManifestArgs),
    /// Check every stored game against its plan and the manifest (no engine): each
    /// record reads and imports, holds exactly the positions its settings search, and is
    /// listed with its counts; no player is in two splits.
    Check(ManifestArgs),
    /// Analyse games of another corpus again at the quick screen's settings (`analyze
    /// --mode quick`) into a corpus of their own that keeps their ids and splits.
    Quick(QuickArgs),
    /// Rewrite the records stored gzip-compressed (before 2026-12-05) xz-compressed, their
    /// JSON unchanged, and bring the manifest's sizes up to date.
    Compact(ManifestArgs),
}

/// What a game's moves are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// Both sides are engines.
    Engine,
    /// Both sides are humans (as far as anyone knows).
    Human,
    /// A human game in which the side named by the `Switched` tag handed its moves to an
    /// engine from ply `SwitchPly` on (the opponent then continued as an engine limited
    /// to its rating); only that side is scored.
    Switched,
}

/// A game's split. Fixed when the game enters the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Model fitting.
    Train,
    /// Model choice and probability calibration.
    Validation,
    /// The numbers quoted in the README (thresholds, AUCs, error rates).
    Test,
    /// Used by no model: its two players were already in different splits.
    None,
}

#[derive(Args)]
pub struct AddArgs {
    /// PGN file.
    file: PathBuf,
    /// What the games are.
    #[arg(long, value_enum)]
    label: Label,
    /// Short name of the source (lower-case letters, digits and `-`): the folder of its
    /// records; one file and label per source.
    #[arg(long)]
    source: String,
    #[command(flatten)]
    select: Selection,
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// UCI engine command line (default: node + the npm stockfish lite single build).
    #[arg(long)]
    engine: Option<String>,
    /// Engines run in parallel [default: number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Search depth (tests only: the corpus is analysed at the defaults).
    #[arg(long, default_value_t = DEFAULT_DEPTH, hide = true)]
    depth: u32,
    /// Lines per position (tests only).
    #[arg(long, default_value_t = DEFAULT_MULTIPV, hide = true)]
    multipv: u32,
    /// Reuse and fill this chunk cache (as `analyze --cache`).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Seconds a single search may take before the engine is restarted.
    #[arg(long, default_value_t = 120)]
    search_timeout: u64,
    /// Also write the report of the games analysed now (the direct analysis).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Grow one split: take only the games whose players are all in it or new, and from
    /// now on send this source's games of two new players to it (not by event and site);
    /// if they already go to another split, take only games with a player in this one.
    /// Engine games: every game of the source goes to this split (engines of makes held
    /// out of training, say), set when the source is first stored.
    #[arg(long, value_enum)]
    split: Option<Split>,
}

#[derive(Args)]
pub struct ReportArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// Only these sources (repeatable) [default: all].
    #[arg(long)]
    source: Vec<String>,
    /// Only games with this label.
    #[arg(long, value_enum)]
    label: Option<Label>,
    /// Only games of this split.
    #[arg(long, value_enum)]
    split: Option<Split>,
    /// At most this many games of each source (the first ones).
    #[arg(long)]
    limit: Option<usize>,
    /// Also this stored game (`SOURCE/NUMBER`, e.g. `twic-920/1970`; repeatable), after the
    /// games the other options choose.
    #[arg(long, value_name = "ID")]
    also: Vec<String>,
    /// Write the report here (`-` for stdout).
    #[arg(long, default_value = "-")]
    json: PathBuf,
}

#[derive(Args)]
pub struct QuickArgs {
    /// The corpus whose games are analysed again (their records' games, cut as stored).
    #[arg(long, default_value = "corpus")]
    from: PathBuf,
    /// The quick corpus folder (its manifest takes every game's split from `--from`'s).
    #[arg(long, default_value = "corpus/quick")]
    corpus: PathBuf,
    /// Only games of this split (repeatable) [default: train, validation and test].
    #[arg(long, value_enum)]
    split: Vec<Split>,
    /// Only these sources (repeatable) [default: all].
    #[arg(long)]
    source: Vec<String>,
    /// Only this share of the chosen games, in percent, by a hash of each game's id (the
    /// same games every time; a larger share adds games).
    #[arg(long, default_value_t = 100)]
    percent: u64,
    /// UCI engine command line (default: node + the npm stockfish lite single build).
    #[arg(long)]
    engine: Option<String>,
    /// Engines run in parallel [default: number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Nodes per search (tests only: the quick corpus is analysed at the quick settings).
    #[arg(long, default_value_t = super::quick::QUICK_NODES, hide = true)]
    nodes: u64,
    /// Reuse and fill this chunk cache (as `analyze --cache`).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Seconds a single search may take before the engine is restarted.
    #[arg(long, default_value_t = 120)]
    search_timeout: u64,
}

#[derive(Args)]
pub struct ManifestArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
}

pub fn run(cmd: CorpusCmd) -> Result<ExitCode> {
    match cmd {
        CorpusCmd::Add(a) => add(a),
        CorpusCmd::Report(a) => report(a).map(|()| ExitCode::SUCCESS),
        CorpusCmd::Check(a) => check(&a.corpus),
        CorpusCmd::Quick(a) => quick(a),
        CorpusCmd::Compact(a) => compact(&a.corpus).map(|()| ExitCode::SUCCESS),
        CorpusCmd::Manifest(a) => {
            let mut m = Manifest::load(&a.corpus)?;
            m.update(&a.corpus)?;
            m.save(&a.corpus)?;
            print!("{}", m.summary());
            Ok(ExitCode::SUCCESS)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Records

/// One stored game.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// [`FORMAT`].
    pub format: u32,
    /// `SOURCE/NUMBER`.
    pub id: String,
    pub label: Label,
    pub source: String,
    /// The PGN file, as given to `corpus add`.
    pub file: String,
    /// 1-based number of the game in that file.
    pub game: usize,
    /// Opening plies left out before the cut (`BookPlies`, `--skip-min`).
    pub skipped: usize,
    pub settings: Settings,
    pub engine: EngineInfo,
    /// The cut game (tags, moves, clocks), as analysed.
    pub pgn: String,
    /// Every searched position.
    pub positions: Vec<StoredPosition>,
}

/// A searched position, compactly: `p` ply index, `s` the MultiPV search, `x` the played
/// move searched alone, `z` the screening single-line search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredPosition {
    p: usize,
    s: StoredSearch,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    x: Option<StoredSearch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    z: Option<StoredSearch>,
}

/// A search's lines as `[depth, multipv, kind, value, moves]`: kind bit 0 = mate (else
/// cp), bits 1-2 = bound (0 exact, 1 lower, 2 upper); moves = the first move, or the
/// whole PV (space-separated) for the deepest line of each MultiPV index. `b` is the
/// `bestmove`. Selective depth, nodes and times are not kept (no report uses them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSearch {
    l: Vec<(u32, u32, u8, i32, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    b: Option<String>,
}

impl StoredSearch {
    fn from_search(s: &Search) -> StoredSearch {
        // The deepest line of each MultiPV index: the last one (lines are sorted by depth).
        let mut deepest: HashMap<u32, usize> = HashMap::new();
        for (i, l) in s.lines.iter().enumerate() {
            deepest.insert(l.multipv, i);
        }
        let l = s
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (mate, value) = match l.score {
                    Score::Cp(v) => (0, v),
                    Score::Mate(v) => (1, v),
                };
                let bound = match l.bound {
                    Bound::Exact => 0,
                    Bound::Lower => 1,
                    Bound::Upper => 2,
                };
                let moves = if deepest.get(&l.multipv) == Some(&i) {
                    l.pv.join(" ")
                } else {
                    l.pv.first().cloned().unwrap_or_default()
                };
                (l.depth, l.multipv, mate | (bound << 1), value, moves)
            })
            .collect();
        StoredSearch {
            l,
            b: s.bestmove.clone(),
        }
    }

    fn to_search(&self) -> Search {
        Search {
            lines: self
                .l
                .iter()
                .map(|(depth, multipv, kind, value, moves)| PvLine {
                    depth: *depth,
                    seldepth: None,
                    multipv: *multipv,
                    score: if kind & 1 == 1 {
                        Score::Mate(*value)
                    } else {
                        Score::Cp(*value)
                    },
                    bound: match kind >> 1 {
                        1 => Bound::Lower,
                        2 => Bound::Upper,
                        _ => Bound::Exact,
                    },
                    nodes: None,
                    pv: moves.split_whitespace().map(str::to_owned).collect(),
                })
                .collect(),
            bestmove: self.b.clone(),
            nodes: 0,
            time_ms: 0,
        }
    }
}

impl StoredPosition {
    fn new(p: &PositionAnalysis) -> StoredPosition {
        StoredPosition {
            p: p.ply_index,
            s: StoredSearch::from_search(&p.search),
            x: p.played_search.as_ref().map(StoredSearch::from_search),
            z: p.slm.as_ref().map(StoredSearch::from_search),
        }
    }

    fn analysis(&self) -> PositionAnalysis {
        PositionAnalysis {
            ply_index: self.p,
            search: self.s.to_search(),
            played_search: self.x.as_ref().map(StoredSearch::to_search),
            slm: self.z.as_ref().map(StoredSearch::to_search),
        }
    }
}

impl Record {
    /// The stored game `SOURCE/NUMBER` of a corpus.
    pub fn load_id(corpus: &Path, id: &str) -> Result<Record> {
        let (source, number) = id
            .split_once('/')
            .and_then(|(s, n)| Some((s, n.parse::<usize>().ok()?)))
            .with_context(|| {
                format!("{id}: a stored game is named SOURCE/NUMBER (e.g. twic-920/1970)")
            })?;
        let Some(path) = Record::stored(corpus, source, number) else {
            bail!(
                "{id}: no such stored game ({} is missing)",
                Record::path(corpus, source, number).display()
            );
        };
        Record::load(&path)
    }

    /// Where game `game` of `source` is stored: its `.json.xz` record, or the `.json.gz`
    /// one of a corpus not yet compacted, or `None`.
    fn stored(corpus: &Path, source: &str, game: usize) -> Option<PathBuf> {
        let dir = corpus.join("games").join(source);
        [RECORD_EXT, OLD_RECORD_EXT]
            .into_iter()
            .map(|ext| dir.join(format!("{game:05}{ext}")))
            .find(|p| p.exists())
    }

    /// Where a new record of game `game` of `source` is written.
    fn path(corpus: &Path, source: &str, game: usize) -> PathBuf {
        corpus
            .join("games")
            .join(source)
            .join(format!("{game:05}{RECORD_EXT}"))
    }

    /// Writes the record xz-compressed, through a temporary file (a crash never leaves
    /// half a record).
    fn save(&self, corpus: &Path) -> Result<PathBuf> {
        let path = Record::path(corpus, &self.source, self.game);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        write_atomically(&path, &compress(serde_json::to_string(self)?.as_bytes())?)?;
        Ok(path)
    }

    fn load(path: &Path) -> Result<Record> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let text = decompress(&bytes).with_context(|| path.display().to_string())?;
        let r: Record = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a corpus record", path.display()))?;
        if r.format != FORMAT {
            bail!(
                "{}: record format {} (this fairsight reads {FORMAT})",
                path.display(),
                r.format
            );
        }
        Ok(r)
    }

    /// The analysis results, as one job result for game index `game`.
    fn result(&self, game: usize) -> JobResult {
        JobResult {
            id: JobId { game, chunk: 0 },
            positions: self
                .positions
                .iter()
                .map(StoredPosition::analysis)
                .collect(),
        }
    }

    pub fn tag(&self, name: &str) -> Option<String> {
        pgn_tag(&self.pgn, name)
    }
}

/// A tag's value in the stored PGN of one game (its escapes undone).
fn pgn_tag(pgn: &str, name: &str) -> Option<String> {
    let needle = format!("[{name} \"");
    pgn.lines().find_map(|l| {
        l.strip_prefix(&needle)
            .and_then(|v| v.strip_suffix("\"]"))
            .map(|v| v.replace("\\\"", "\"").replace("\\\\", "\\"))
    })
}

/// The file name ending of a record: xz-compressed JSON.
const RECORD_EXT: &str = ".json.xz";
/// The ending of a record written before the corpus moved to xz (read, never written;
/// `corpus compact` rewrites them).
const OLD_RECORD_EXT: &str = ".json.gz";

/// A record's JSON, xz-compressed at preset 6: a quarter smaller than gzip at its best
/// on these records (and -9's larger dictionary gains nothing on files of 100 kB).
fn compress(json: &[u8]) -> Result<Vec<u8>> {
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(json)?;
    Ok(xz.finish()?)
}

/// A record's JSON text from its file's bytes, xz or gzip (told by their magic numbers).
fn decompress(bytes: &[u8]) -> Result<String> {
    let mut text = String::new();
    if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        xz2::read::XzDecoder::new(bytes)
            .read_to_string(&mut text)
            .context("a damaged xz file")?;
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::GzDecoder::new(bytes)
            .read_to_string(&mut text)
            .context("a damaged gzip file")?;
    } else {
        bail!("neither an xz nor a gzip file");
    }
    Ok(text)
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Every record under `corpus/games`, sorted by source, then game number.
fn all_records(corpus: &Path) -> Result<Vec<PathBuf>> {
    let games = corpus.join("games");
    let mut out = Vec::new();
    if !games.is_dir() {
        return Ok(out);
    }
    for source in std::fs::read_dir(&games)? {
        let source = source?.path();
        if !source.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&source)? {
            let f = f?.path();
            let name = f.to_string_lossy();
            if name.ends_with(RECORD_EXT) || name.ends_with(OLD_RECORD_EXT) {
                out.push(f);
            }
        }
    }
    out.sort();
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// The manifest

/// `corpus/manifest.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: u32,
    /// Counts per source.
    pub sources: BTreeMap<String, SourceCounts>,
    /// Counts per label and split.
    pub totals: BTreeMap<String, BTreeMap<String, usize>>,
    /// Each game's split and what the trainers need to know without opening it.
    pub games: BTreeMap<String, GameEntry>,
    /// The split of each human player (lower-case name).
    pub players: BTreeMap<String, Split>,
    /// The commands that made the corpus, in order.
    pub commands: Vec<String>,
    /// A corpus of games analysed again at other settings (`corpus quick`): the corpus
    /// folder whose manifest gives every game its split and every player theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub splits_from: Option<PathBuf>,
    /// Sources whose games of two new players go to this split, not to one drawn by
    /// event and site (`corpus add --split`, to grow a split that came out small); for an
    /// engine source, every game of it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub new_players: BTreeMap<String, Split>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceCounts {
    pub label: Option<Label>,
    pub file: String,
    pub games: usize,
    pub positions: usize,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameEntry {
    pub label: Label,
    pub split: Split,
    pub positions: usize,
    pub bytes: u64,
}

/// `corpus/reserved.json`: the games the shipped move classifier and calibration were
/// fitted on, by file name and 1-based number; they always go to the train split.
#[derive(Debug, Default, Deserialize)]
struct Reserved {
    #[serde(default)]
    games: BTreeMap<String, Vec<usize>>,
    /// A generated file whose games count as games of another (its `SourceGame` tag).
    #[serde(default)]
    derived: BTreeMap<String, String>,
}

impl Reserved {
    fn load(corpus: &Path) -> Result<Reserved> {
        let path = corpus.join("reserved.json");
        if !path.exists() {
            return Ok(Reserved::default());
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not a reserved list", path.display()))
    }

    /// Whether a record is, or was made from, a game a shipped model was fitted on.
    fn holds(&self, r: &Record) -> bool {
        let name = Path::new(&r.file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let listed = |file: &str, n: usize| self.games.get(file).is_some_and(|v| v.contains(&n));
        listed(&name, r.game)
            || self.derived.get(&name).is_some_and(|orig| {
                r.tag("SourceGame")
                    .and_then(|v| v.trim().parse().ok())
                    .is_some_and(|n| listed(orig, n))
            })
    }
}

/// A player's key for the splits: the lower-case name; `None` for a missing or unknown
/// name (`?`), which says nothing about who played.
fn player_key(name: Option<String>) -> Option<String> {
    name.map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty() && n != "?")
}

/// FNV-1a hash of a text: deals the splits, and draws the rating a top engine is scored
/// against (`assess`).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// 60% train, 20% validation, 20% test, by a hash of `key`.
fn hash_split(key: &str) -> Split {
    match fnv1a(key) % 10 {
        0..=5 => Split::Train,
        6 | 7 => Split::Validation,
        _ => Split::Test,
    }
}

impl Manifest {
    pub fn path(corpus: &Path) -> PathBuf {
        corpus.join("manifest.json")
    }

    pub fn load(corpus: &Path) -> Result<Manifest> {
        let path = Manifest::path(corpus);
        if !path.exists() {
            return Ok(Manifest {
                format: FORMAT,
                ..Manifest::default()
            });
        }
        Manifest::load_file(&path)
    }

    /// A manifest file by its path (an earlier one, e.g. from `git show`).
    pub fn load_file(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a manifest", path.display()))
    }

    fn save(&self, corpus: &Path) -> Result<()> {
        std::fs::create_dir_all(corpus)?;
        let path = Manifest::path(corpus);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_string_pretty(self)? + "\n")?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))
    }

    /// The split of a game entering the corpus. Engine games: by a hash of the game (their
    /// "players" are engine names, which no feature sees), or all to the split their
    /// source was sent to ([`Manifest::new_players`]). Human and switched games: a
    /// player keeps the split of their first game, so no player is in two splits; a game
    /// between two players already in different splits gets [`Split::None`]; a game of
    /// two new players goes by a hash of its source, event and site (a tournament's games
    /// stay together; a lichess game's site is its own address), or to the split its
    /// source sends new players to ([`Manifest::new_players`]).
    fn assign(&mut self, r: &Record, reserved: bool) -> Split {
        if r.label == Label::Engine {
            return match (reserved, self.new_players.get(&r.source)) {
                (true, _) => Split::Train,
                (false, Some(split)) => *split,
                (false, None) => hash_split(&r.id),
            };
        }
        let names: Vec<String> = ["White", "Black"]
            .iter()
            .filter_map(|t| player_key(r.tag(t)))
            .collect();
        let known: Vec<Split> = names
            .iter()
            .filter_map(|n| self.players.get(n).copied())
            .collect();
        let split = if reserved {
            // A game a shipped model saw: train, or no split if a player is elsewhere.
            if known.iter().any(|s| *s != Split::Train) {
                return Split::None;
            }
            Split::Train
        } else {
            match known.as_slice() {
                [a, b] if a != b => return Split::None,
                [a, ..] => *a,
                [] if self.new_players.contains_key(&r.source) => self.new_players[&r.source],
                [] => hash_split(&format!(
                    "{}|{}|{}",
                    r.source,
                    r.tag("Event").unwrap_or_default(),
                    r.tag("Site").unwrap_or_default()
                )),
            }
        };
        for n in names {
            self.players.entry(n).or_insert(split);
        }
        split
    }

    /// Adds every stored game not yet listed (in source, then number order), assigning
    /// its split, and recounts.
    pub fn update(&mut self, corpus: &Path) -> Result<()> {
        let reserved = Reserved::load(corpus)?;
        let origin = match &self.splits_from {
            Some(from) => Some(Manifest::load(from)?),
            None => None,
        };
        for path in all_records(corpus)? {
            let r = match Record::load(&path) {
                Ok(r) => r,
                Err(e) => {
                    // One bad record must not keep the others out: `corpus check` lists it.
                    eprintln!("fairsight: corpus: {e:#}: left out of the manifest");
                    continue;
                }
            };
            if let Some(g) = self.games.get_mut(&r.id) {
                // A record rewritten (`corpus compact`) keeps its split; its size is new.
                g.bytes = std::fs::metadata(&path)?.len();
                continue;
            }
            let split = match &origin {
                None => self.assign(&r, reserved.holds(&r)),
                // The same split as in the corpus the game comes from, its players' too.
                Some(o) => {
                    let Some(entry) = o.games.get(&r.id) else {
                        eprintln!(
                            "fairsight: corpus: {}: not in {}'s manifest: left out",
                            r.id,
                            self.splits_from
                                .as_deref()
                                .unwrap_or(Path::new(""))
                                .display()
                        );
                        continue;
                    };
                    for n in ["White", "Black"]
                        .iter()
                        .filter_map(|t| player_key(r.tag(t)))
                    {
                        if let Some(s) = o.players.get(&n) {
                            self.players.insert(n, *s);
                        }
                    }
                    entry.split
                }
            };
            let bytes = std::fs::metadata(&path)?.len();
            self.games.insert(
                r.id.clone(),
                GameEntry {
                    label: r.label,
                    split,
                    positions: r.positions.len(),
                    bytes,
                },
            );
            let s = self.sources.entry(r.source.clone()).or_default();
            s.label = Some(r.label);
            s.file = r.file.clone();
        }
        for s in self.sources.values_mut() {
            s.games = 0;
            s.positions = 0;
            s.bytes = 0;
        }
        self.totals.clear();
        for (id, g) in &self.games {
            let source = id.split('/').next().unwrap_or_default();
            if let Some(s) = self.sources.get_mut(source) {
                s.games += 1;
                s.positions += g.positions;
                s.bytes += g.bytes;
            }
            let label = format!("{:?}", g.label).to_lowercase();
            let split = format!("{:?}", g.split).to_lowercase();
            *self
                .totals
                .entry(label)
                .or_default()
                .entry(split)
                .or_default() += 1;
        }
        Ok(())
    }

    /// A table of games per source and per label and split.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "{:<24} {:<9} {:>6} {:>9} {:>10} {:>8}\n",
            "source", "label", "games", "positions", "bytes", "B/pos"
        );
        for (name, s) in &self.sources {
            out.push_str(&format!(
                "{:<24} {:<9} {:>6} {:>9} {:>10} {:>8.0}\n",
                name,
                s.label
                    .map_or("-".into(), |l| format!("{l:?}").to_lowercase()),
                s.games,
                s.positions,
                s.bytes,
                s.bytes as f64 / s.positions.max(1) as f64
            ));
        }
        for (label, splits) in &self.totals {
            let parts: Vec<String> = splits.iter().map(|(k, v)| format!("{k} {v}")).collect();
            out.push_str(&format!("{label}: {}\n", parts.join(", ")));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Commands

fn book_for(settings: &Settings) -> Result<Box<dyn Book + Send + Sync>> {
    Ok(match settings.book.as_str() {
        "builtin" => load_book(super::BUILTIN_BOOK).context("the built-in opening book")?,
        "none" => Box::new(NoBook),
        other => bail!("corpus games use the built-in book or none, not {other}"),
    })
}

fn add(a: AddArgs) -> Result<ExitCode> {
    if a.source.is_empty()
        || !a
            .source
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return super::usage_error("--source: lower-case letters, digits and `-` only");
    }
    let file = a.file.to_string_lossy().into_owned();
    let bytes = match std::fs::read(&a.file) {
        Ok(b) => b,
        Err(e) => return super::usage_error(format!("cannot read {file}: {e}")),
    };
    let manifest = Manifest::load(&a.corpus)?;
    if let Some(s) = manifest.sources.get(&a.source)
        && (s.label != Some(a.label) || s.file != file)
    {
        return super::usage_error(format!(
            "--source {}: already holds {} games of {} ({:?}); pick another name",
            a.source,
            s.games,
            s.file,
            s.label.unwrap_or(a.label)
        ));
    }
    let (eligible, mut picked) = select(&String::from_utf8_lossy(&bytes), &a.select);
    if let Some(split) = a.split
        && let Err(msg) = grow_split(&a, split, &manifest, &mut picked)
    {
        return super::usage_error(msg);
    }
    let total = picked.len();
    // A game already stored is not analysed again, but it must be the same cut of the
    // same game: another --skip-min or --max-plies, or an edited file, is an error.
    let mut todo: Vec<Picked> = Vec::new();
    for p in picked {
        let Some(path) = Record::stored(&a.corpus, &a.source, p.number) else {
            todo.push(p);
            continue;
        };
        let stored = Record::load(&path)?;
        if stored.pgn != p.pgn || stored.skipped != p.skipped {
            return super::usage_error(format!(
                "{}: game {} is stored cut differently (other --skip-tag/--skip-min/--max-plies, or the file changed); use another --source",
                a.source, p.number
            ));
        }
    }
    eprintln!(
        "fairsight: {file}: {eligible} eligible games, {total} taken, {} already in the corpus, {} to analyse",
        total - todo.len(),
        todo.len()
    );
    // The program's own path says nothing; the rest is the command.
    let command = format!("fairsight {}", shell_words::join(std::env::args().skip(1)));
    let settings = Settings {
        limit: Limit::Depth(a.depth.max(1)),
        multipv: a.multipv.clamp(1, 64),
        book: "builtin".to_owned(),
        ..Settings::default()
    };
    let text: String = todo.iter().map(|p| p.pgn.as_str()).collect();
    let games = fairsight::pgn::import(&text);
    if games.len() != todo.len() || games.iter().any(Result::is_err) {
        bail!("a cut game did not import again (a bug): {file}");
    }
    let book = book_for(&settings)?;
    let mut analysis = Analysis::new(games, settings.clone(), book.as_ref());
    let record = |i: usize, engine: &EngineInfo, found: Vec<PositionAnalysis>| {
        let p = &todo[i];
        let mut found = found;
        found.sort_by_key(|x| x.ply_index);
        Record {
            format: FORMAT,
            id: format!("{}/{}", a.source, p.number),
            label: a.label,
            source: a.source.clone(),
            file: file.clone(),
            game: p.number,
            skipped: p.skipped,
            settings: settings.clone(),
            engine: engine.clone(),
            pgn: p.pgn.clone(),
            positions: found.iter().map(StoredPosition::new).collect(),
        }
    };
    let run = Engines {
        engine: a.engine.as_deref(),
        jobs: a.jobs,
        search_timeout: a.search_timeout,
        cache: a.cache.as_deref(),
    };
    let stored = match store_analyses(
        &a.corpus,
        &run,
        &settings,
        &mut analysis,
        todo.len(),
        record,
    ) {
        Ok(s) => s,
        Err(msg) => return super::usage_error(msg),
    };
    if let Some(e) = stored.write_error {
        // List what was stored before failing.
        let mut manifest = Manifest::load(&a.corpus)?;
        manifest.commands.push(command);
        manifest.update(&a.corpus)?;
        manifest.save(&a.corpus)?;
        return Err(e);
    }
    let outcome = stored.outcome;
    // Read again: another run may have stored games meanwhile.
    let mut manifest = Manifest::load(&a.corpus)?;
    manifest.commands.push(command);
    manifest.update(&a.corpus)?;
    manifest.save(&a.corpus)?;
    if let Some(path) = &a.json {
        let report = analysis.report(outcome.engine.clone());
        super::output::write_to(path, &(report.to_json() + "\n"))?;
    }
    Ok(stored_summary(
        &a.corpus,
        &outcome,
        stored.written,
        &manifest,
    ))
}

/// `corpus add --split`: keeps the picked games whose players are all in `split` or new,
/// and records (at once, so that a stopped run's games are assigned alike by `corpus
/// manifest`) that this source's games of two new players go to `split`. A source that
/// already sends them to another split keeps doing so: then only games with a player
/// already in `split` are kept.
fn grow_split(
    a: &AddArgs,
    split: Split,
    manifest: &Manifest,
    picked: &mut Vec<Picked>,
) -> std::result::Result<(), String> {
    if split == Split::None {
        return Err("--split: train, validation or test".into());
    }
    if a.label == Label::Engine {
        // Every game of the source goes to one split: set once, before any is stored.
        return match manifest.new_players.get(&a.source) {
            Some(other) if *other != split => Err(format!(
                "--split {split:?}: the engine games of {} go to {other:?}",
                a.source
            )),
            Some(_) => Ok(()),
            None if manifest
                .games
                .keys()
                .any(|id| id.starts_with(&format!("{}/", a.source))) =>
            {
                Err(format!(
                    "--split: {} already has games split by game; an engine source goes to one split only from its first game",
                    a.source
                ))
            }
            None => {
                let mut m = Manifest::load(&a.corpus).map_err(|e| format!("{e:#}"))?;
                m.new_players.insert(a.source.clone(), split);
                m.save(&a.corpus).map_err(|e| format!("{e:#}"))
            }
        };
    }
    // A source sends its games of two new players to one split only: once it sends them
    // elsewhere, growing this split takes only games with a player already in it.
    let elsewhere = manifest
        .new_players
        .get(&a.source)
        .filter(|other| **other != split)
        .copied();
    let before = picked.len();
    picked.retain(|p| {
        let splits: Vec<Option<Split>> = ["White", "Black"]
            .iter()
            .filter_map(|t| player_key(pgn_tag(&p.pgn, t)))
            .map(|n| manifest.players.get(&n).copied())
            .collect();
        splits.iter().all(|s| s.is_none_or(|s| s == split))
            && (elsewhere.is_none() || splits.contains(&Some(split)))
    });
    if let Some(other) = elsewhere {
        eprintln!(
            "fairsight: --split {split:?}: {} of {before} picked games kept, those with a player already in {split:?}: this source sends games of two new players to {other:?}",
            picked.len(),
        );
        return Ok(());
    }
    let mut m = Manifest::load(&a.corpus).map_err(|e| format!("{e:#}"))?;
    m.new_players.insert(a.source.clone(), split);
    m.save(&a.corpus).map_err(|e| format!("{e:#}"))
}

/// `corpus quick`: the chosen games of `--from` analysed again at the quick settings,
/// stored under the same ids in `--corpus`, whose manifest takes their splits from
/// `--from`'s (so models fitted there are fitted and measured on the same games).
fn quick(a: QuickArgs) -> Result<ExitCode> {
    if a.percent == 0 || a.percent > 100 {
        return super::usage_error("--percent: 1 to 100");
    }
    if a.corpus == a.from {
        return super::usage_error("--corpus: another folder than --from");
    }
    let origin = Manifest::load(&a.from)?;
    if origin.games.is_empty() {
        return super::usage_error(format!("{}: no corpus there", a.from.display()));
    }
    let splits = if a.split.is_empty() {
        vec![Split::Train, Split::Validation, Split::Test]
    } else {
        a.split.clone()
    };
    let mut chosen = Vec::new();
    for r in load_records(&a.from, &a.source, None, None)? {
        let Some(entry) = origin.games.get(&r.id) else {
            continue;
        };
        if splits.contains(&entry.split)
            && fnv1a(&r.id) % 100 < a.percent
            && Record::stored(&a.corpus, &r.source, r.game).is_none()
        {
            chosen.push(r);
        }
    }
    let command = format!("fairsight {}", shell_words::join(std::env::args().skip(1)));
    let settings = super::quick::quick_settings(a.nodes);
    eprintln!(
        "fairsight: {} games of {} to analyse at {} nodes, {} lines",
        chosen.len(),
        a.from.display(),
        a.nodes,
        settings.multipv
    );
    let mut manifest = Manifest::load(&a.corpus)?;
    if manifest.splits_from.is_none() && !manifest.games.is_empty() {
        bail!(
            "{}: an ordinary corpus (its splits are its own): pick another folder",
            a.corpus.display()
        );
    }
    manifest.splits_from = Some(a.from.clone());
    manifest.commands.push(command);
    manifest.save(&a.corpus)?;
    let text: String = chosen.iter().map(|r| r.pgn.as_str()).collect();
    let games = fairsight::pgn::import(&text);
    if games.len() != chosen.len() || games.iter().any(Result::is_err) {
        bail!("a stored game did not import again (a bug)");
    }
    let book = book_for(&settings)?;
    let mut analysis = Analysis::new(games, settings.clone(), book.as_ref());
    let record = |i: usize, engine: &EngineInfo, mut found: Vec<PositionAnalysis>| {
        found.sort_by_key(|x| x.ply_index);
        Record {
            settings: settings.clone(),
            engine: engine.clone(),
            positions: found.iter().map(StoredPosition::new).collect(),
            ..chosen[i].clone()
        }
    };
    let run = Engines {
        engine: a.engine.as_deref(),
        jobs: a.jobs,
        search_timeout: a.search_timeout,
        cache: a.cache.as_deref(),
    };
    let stored = match store_analyses(
        &a.corpus,
        &run,
        &settings,
        &mut analysis,
        chosen.len(),
        record,
    ) {
        Ok(s) => s,
        Err(msg) => return super::usage_error(msg),
    };
    let mut manifest = Manifest::load(&a.corpus)?;
    manifest.update(&a.corpus)?;
    manifest.save(&a.corpus)?;
    if let Some(e) = stored.write_error {
        return Err(e);
    }
    let outcome = stored.outcome;
    Ok(stored_summary(
        &a.corpus,
        &outcome,
        stored.written,
        &manifest,
    ))
}

/// The engines a corpus run asks for (`--engine`, `--jobs`, `--search-timeout`,
/// `--cache`).
struct Engines<'a> {
    /// The command, else the default engine.
    engine: Option<&'a str>,
    /// How many, else one per core.
    jobs: Option<usize>,
    /// Seconds.
    search_timeout: u64,
    cache: Option<&'a Path>,
}

/// What [`store_analyses`] did.
struct Stored {
    outcome: super::pool::RunOutcome,
    /// Records written.
    written: usize,
    /// The first record that could not be written (the run went on).
    write_error: Option<anyhow::Error>,
}

/// Runs `analysis`'s jobs for `games` games and saves each game's record (made by
/// `record` from its index, the engine and its analysed positions) in `corpus` as soon as
/// its last chunk is done, so a stopped run keeps every finished game; then, unless a
/// write failed, the records of games with nothing to search. `Err`: a usage error (no
/// engine, an unusable cache).
fn store_analyses(
    corpus: &Path,
    engines: &Engines<'_>,
    settings: &Settings,
    analysis: &mut Analysis,
    games: usize,
    record: impl Fn(usize, &EngineInfo, Vec<PositionAnalysis>) -> Record,
) -> Result<Stored, String> {
    let engine = match engines.engine {
        Some(e) => e.to_owned(),
        None => super::engine::default_engine()
            .ok_or("no engine: run `npm ci`, or pass --engine CMD")?,
    };
    let run = super::pool::Run {
        engine: &engine,
        settings,
        workers: engines.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }),
        timeout: Duration::from_secs(engines.search_timeout.max(1)),
        cache: engines.cache,
    };
    let jobs = analysis.jobs();
    let mut remaining: HashMap<usize, usize> = HashMap::new();
    for j in &jobs {
        *remaining.entry(j.id.game).or_default() += 1;
    }
    let mut positions: HashMap<usize, Vec<PositionAnalysis>> = HashMap::new();
    let mut written = 0;
    let mut write_error = None;
    let outcome = run.execute(jobs, analysis.total_positions(), |engine, result| {
        let game = result.id.game;
        positions
            .entry(game)
            .or_default()
            .extend(result.positions.iter().cloned());
        analysis.add_result(result);
        let left = remaining.entry(game).or_default();
        *left = left.saturating_sub(1);
        if *left == 0 {
            let r = record(game, engine, positions.remove(&game).unwrap_or_default());
            match r.save(corpus) {
                Ok(_) => written += 1,
                Err(e) => write_error = Some(e),
            }
        }
    })?;
    if write_error.is_none() {
        // Games with nothing to search (every ply excluded before the search).
        for i in (0..games).filter(|i| !remaining.contains_key(i)) {
            match record(i, &outcome.engine, Vec::new()).save(corpus) {
                Ok(_) => written += 1,
                Err(e) => {
                    write_error = Some(e);
                    break;
                }
            }
        }
    }
    Ok(Stored {
        outcome,
        written,
        write_error,
    })
}

/// The closing lines of a run that stored games, and its exit code (1 when a job failed
/// twice).
fn stored_summary(
    corpus: &Path,
    outcome: &super::pool::RunOutcome,
    written: usize,
    manifest: &Manifest,
) -> ExitCode {
    eprintln!(
        "fairsight: {written} games stored in {}, {} positions searched in {:.1}s{}",
        corpus.display(),
        outcome.searched,
        outcome.elapsed.as_secs_f64(),
        if outcome.cached > 0 {
            format!(", {} from the cache", outcome.cached)
        } else {
            String::new()
        }
    );
    eprint!("{}", manifest.summary());
    if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

pub fn load_records(
    corpus: &Path,
    sources: &[String],
    label: Option<Label>,
    split: Option<Split>,
) -> Result<Vec<Record>> {
    let manifest = Manifest::load(corpus)?;
    let mut out = Vec::new();
    let mut unlisted = 0;
    for path in all_records(corpus)? {
        let source = source_folder(&path);
        if !sources.is_empty() && !sources.contains(&source) {
            continue;
        }
        let r = Record::load(&path)?;
        if label.is_some_and(|l| l != r.label) {
            continue;
        }
        if let Some(want) = split {
            match manifest.games.get(&r.id) {
                Some(g) if g.split == want => {}
                Some(_) => continue,
                None => {
                    unlisted += 1;
                    continue;
                }
            }
        }
        out.push(r);
    }
    if unlisted > 0 {
        eprintln!(
            "fairsight: {unlisted} stored game(s) not in the manifest yet (no split): left out; `fairsight corpus manifest` lists them"
        );
    }
    out.sort_by(|a, b| (&a.source, a.game).cmp(&(&b.source, b.game)));
    Ok(out)
}

/// The source a record's path names: its folder's name.
fn source_folder(path: &Path) -> String {
    path.parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every stored record's source, game number (from its path) and path, by source and
/// then game: [`load_records`]' order, known before any record is read.
fn records_in_order(corpus: &Path) -> Result<Vec<(String, usize, PathBuf)>> {
    let mut out = Vec::new();
    for path in all_records(corpus)? {
        let source = source_folder(&path);
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(game) = name.split('.').next().and_then(|n| n.parse::<usize>().ok()) {
            out.push((source, game, path));
        }
    }
    out.sort();
    Ok(out)
}

/// The settings and engine of the corpus's first record ([`load_records`]' first), read
/// alone; `None` for an empty corpus.
pub fn first_record_settings(corpus: &Path) -> Result<Option<(Settings, EngineInfo)>> {
    match records_in_order(corpus)?.first() {
        Some((_, _, path)) => {
            let r = Record::load(path)?;
            Ok(Some((r.settings, r.engine)))
        }
        None => Ok(None),
    }
}

/// The stored records of the games in the manifest, `chunk` at a time, in
/// [`load_records`]' order (by source, then game), for work that needs one game at a time
/// and would otherwise hold every record and its rebuilt report at once (about 8 GB for
/// the whole corpus). Every record must have been analysed with the first one's settings
/// and engine, as [`rebuild_games`] asks of one call. Returns how many were read.
pub fn for_manifest_records(
    corpus: &Path,
    manifest: &Manifest,
    chunk: usize,
    mut f: impl FnMut(Vec<Record>) -> Result<()>,
) -> Result<usize> {
    let listed: Vec<(String, usize, PathBuf)> = records_in_order(corpus)?
        .into_iter()
        .filter(|(source, game, _)| manifest.games.contains_key(&format!("{source}/{game}")))
        .collect();
    let mut first: Option<(String, Settings, EngineInfo)> = None;
    for part in listed.chunks(chunk.max(1)) {
        let mut records = Vec::with_capacity(part.len());
        for (source, game, path) in part {
            let r = Record::load(path)?;
            if r.source != *source || r.game != *game {
                bail!(
                    "{}: holds {} (a record is stored as SOURCE/NUMBER)",
                    path.display(),
                    r.id
                );
            }
            match &first {
                None => first = Some((r.id.clone(), r.settings.clone(), r.engine.clone())),
                Some((id, settings, engine)) if r.settings != *settings || r.engine != *engine => {
                    bail!(
                        "{id} and {} were analysed with other settings or engines: report them apart (--source)",
                        r.id
                    );
                }
                Some(_) => {}
            }
            records.push(r);
        }
        f(records)?;
    }
    Ok(listed.len())
}

/// The report of `records` (one settings and engine), as a direct analysis of their games
/// in this order would give it.
pub fn rebuild(records: &[Record]) -> Result<Report> {
    let (analysis, engine) = analysis_of(records)?;
    Ok(analysis.report(engine))
}

/// [`rebuild`]'s games alone: no players, no assessments
/// ([`Analysis::games_report`]).
pub fn rebuild_games(records: &[Record]) -> Result<Report> {
    let (analysis, engine) = analysis_of(records)?;
    Ok(analysis.games_report(engine))
}

/// The analysis of `records` with every stored result in place, and their engine.
fn analysis_of(records: &[Record]) -> Result<(Analysis, EngineInfo)> {
    let Some(first) = records.first() else {
        bail!("no corpus games match");
    };
    if let Some(r) = records
        .iter()
        .find(|r| r.settings != first.settings || r.engine != first.engine)
    {
        bail!(
            "{} and {} were analysed with other settings or engines: report them apart (--source)",
            first.id,
            r.id
        );
    }
    let text: String = records.iter().map(|r| r.pgn.as_str()).collect();
    let games = fairsight::pgn::import(&text);
    if games.len() != records.len() {
        bail!("the stored games did not import one by one (a bug)");
    }
    let book = book_for(&first.settings)?;
    let mut analysis = Analysis::new(games, first.settings.clone(), book.as_ref());
    for (i, r) in records.iter().enumerate() {
        analysis.add_result(r.result(i));
    }
    Ok((analysis, first.engine.clone()))
}

/// `corpus compact`: every `.json.gz` record rewritten as `.json.xz` with the same JSON
/// (checked by reading the new file back before the old one goes), then the manifest's
/// sizes. A stopped run leaves each record in one of the two forms, never both for long:
/// a game found in both keeps the xz one, which was complete before the gzip one went.
fn compact(corpus: &Path) -> Result<()> {
    let mut manifest = Manifest::load(corpus)?;
    let old: Vec<PathBuf> = all_records(corpus)?
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(OLD_RECORD_EXT))
        .collect();
    let (mut before, mut after) = (0u64, 0u64);
    for (i, path) in old.iter().enumerate() {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let text = decompress(&bytes).with_context(|| path.display().to_string())?;
        let r: Record = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a corpus record", path.display()))?;
        let new = Record::path(corpus, &r.source, r.game);
        if path.with_extension("") != new.with_extension("") {
            bail!("{}: holds {}, stored elsewhere", path.display(), r.id);
        }
        if !new.exists() {
            let xz = compress(text.as_bytes())?;
            write_atomically(&new, &xz)?;
            let back = decompress(&std::fs::read(&new)?)?;
            if back != text {
                bail!("{}: does not read back as written", new.display());
            }
        }
        before += bytes.len() as u64;
        after += std::fs::metadata(&new)?.len();
        std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
        if (i + 1) % 500 == 0 {
            eprintln!(
                "fairsight: corpus compact: {} of {} records",
                i + 1,
                old.len()
            );
        }
    }
    manifest.update(corpus)?;
    manifest.save(corpus)?;
    eprintln!(
        "fairsight: corpus compact: {} records rewritten, {before} bytes -> {after} ({:.1}%)",
        old.len(),
        100.0 * after as f64 / before.max(1) as f64
    );
    Ok(())
}

fn check(corpus: &Path) -> Result<ExitCode> {
    let manifest = Manifest::load(corpus)?;
    let reserved = Reserved::load(corpus)?;
    let mut first: Option<(String, Settings, EngineInfo)> = None;
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut player_split: HashMap<String, Split> = HashMap::new();
    let mut positions = 0;
    for path in all_records(corpus)? {
        let r = match Record::load(&path) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{e:#}"));
                continue;
            }
        };
        let expected = Record::path(corpus, &r.source, r.game);
        if path.with_extension("") != expected.with_extension("")
            || r.id != format!("{}/{}", r.source, r.game)
        {
            problems.push(format!("{}: stored as {}", r.id, path.display()));
        }
        if !seen.insert(r.id.clone()) {
            problems.push(format!(
                "{}: stored twice, as {} and {} (`corpus compact` keeps one)",
                r.id,
                expected.with_extension("gz").display(),
                expected.display()
            ));
        }
        match &first {
            None => first = Some((r.id.clone(), r.settings.clone(), r.engine.clone())),
            Some((id, settings, engine)) => {
                if *settings != r.settings || *engine != r.engine {
                    problems.push(format!(
                        "{}: analysed with other settings or another engine than {id}",
                        r.id
                    ));
                }
            }
        }
        let games = fairsight::pgn::import(&r.pgn);
        let [Ok(game)] = games.as_slice() else {
            problems.push(format!("{}: the stored game does not import", r.id));
            continue;
        };
        let book = match book_for(&r.settings) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{}: {e:#}", r.id));
                continue;
            }
        };
        let analysis = Analysis::new(vec![Ok(game.clone())], r.settings.clone(), book.as_ref());
        let planned: Vec<usize> = analysis
            .jobs()
            .iter()
            .flat_map(|j| j.tasks.iter().map(|t| t.ply_index))
            .collect();
        let stored: Vec<usize> = r.positions.iter().map(|p| p.p).collect();
        if planned != stored {
            problems.push(format!(
                "{}: {} positions stored, {} planned{}",
                r.id,
                stored.len(),
                planned.len(),
                if planned.len() == stored.len() {
                    " (other plies)"
                } else {
                    ""
                }
            ));
        }
        positions += stored.len();
        match manifest.games.get(&r.id) {
            None => problems.push(format!("{}: not in the manifest", r.id)),
            Some(g) => {
                if g.positions != stored.len() || g.label != r.label {
                    problems.push(format!("{}: the manifest's counts or label differ", r.id));
                }
                if reserved.holds(&r) && matches!(g.split, Split::Validation | Split::Test) {
                    problems.push(format!(
                        "{}: a shipped model was fitted on it, yet it is in the {:?} split",
                        r.id, g.split
                    ));
                }
                if r.label != Label::Engine && g.split != Split::None {
                    for n in ["White", "Black"]
                        .iter()
                        .filter_map(|t| player_key(r.tag(t)))
                    {
                        if let Some(other) = player_split.insert(n.clone(), g.split)
                            && other != g.split
                        {
                            problems.push(format!(
                                "{}: player {n:?} in {other:?} and {:?}",
                                r.id, g.split
                            ));
                        }
                    }
                }
            }
        }
    }
    for id in manifest.games.keys().filter(|id| !seen.contains(*id)) {
        problems.push(format!("{id}: in the manifest but not stored"));
    }
    for p in &problems {
        eprintln!("fairsight: corpus: {p}");
    }
    println!(
        "{} games, {positions} positions checked: {}",
        seen.len(),
        if problems.is_empty() {
            "all consistent".to_owned()
        } else {
            format!("{} problem(s)", problems.len())
        }
    );
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn report(a: ReportArgs) -> Result<()> {
    let mut records = load_records(&a.corpus, &a.source, a.label, a.split)?;
    if let Some(n) = a.limit {
        let mut per_source: HashMap<String, usize> = HashMap::new();
        records.retain(|r| {
            let k = per_source.entry(r.source.clone()).or_default();
            *k += 1;
            *k <= n
        });
    }
    for id in &a.also {
        records.push(Record::load_id(&a.corpus, id)?);
    }
    let report = rebuild(&records)?;
    super::output::write_to(&a.json, &(report.to_json() + "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(depth: u32, multipv: u32, score: Score, bound: Bound, pv: &[&str]) -> PvLine {
        PvLine {
            depth,
            seldepth: Some(depth + 3),
            multipv,
            score,
            bound,
            nodes: Some(1234),
            pv: pv.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn records_read_back_from_xz_or_gzip_and_a_damaged_one_is_named() {
        let json = r#"{"format":1,"id":"x/1"}"#.repeat(50);
        let xz = compress(json.as_bytes()).unwrap();
        assert!(xz.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]));
        assert!(xz.len() < json.len() / 4, "{} of {}", xz.len(), json.len());
        assert_eq!(decompress(&xz).unwrap(), json);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(json.as_bytes()).unwrap();
        assert_eq!(decompress(&gz.finish().unwrap()).unwrap(), json);
        let cut = decompress(&xz[..xz.len() - 8]).unwrap_err();
        assert!(format!("{cut:#}").contains("a damaged xz file"), "{cut:#}");
        let other = decompress(b"{\"format\":1}").unwrap_err();
        assert!(
            format!("{other:#}").contains("neither an xz nor a gzip file"),
            "{other:#}"
        );
    }

    #[test]
    fn a_stored_search_keeps_scores_bounds_first_moves_and_the_deepest_pvs() {
        let s = Search {
            lines: vec![
                line(1, 1, Score::Cp(30), Bound::Exact, &["e2e4", "e7e5"]),
                line(1, 2, Score::Cp(-5), Bound::Lower, &["d2d4", "d7d5"]),
                line(
                    2,
                    1,
                    Score::Mate(-3),
                    Bound::Upper,
                    &["g1f3", "g8f6", "b1c3"],
                ),
            ],
            bestmove: Some("g1f3".into()),
            nodes: 99,
            time_ms: 7,
        };
        let back = StoredSearch::from_search(&s).to_search();
        assert_eq!(back.lines.len(), 3);
        assert_eq!(
            back.lines[0].pv,
            ["e2e4"],
            "a shallower line keeps its first move"
        );
        assert_eq!(
            back.lines[1].pv,
            ["d2d4", "d7d5"],
            "multipv 2's deepest line"
        );
        assert_eq!(back.lines[1].bound, Bound::Lower);
        assert_eq!(back.lines[2].score, Score::Mate(-3));
        assert_eq!(back.lines[2].bound, Bound::Upper);
        assert_eq!(back.lines[2].pv, ["g1f3", "g8f6", "b1c3"]);
        assert_eq!(back.bestmove.as_deref(), Some("g1f3"));
        assert_eq!(back.final_lines().len(), 2);
    }

    #[test]
    fn a_quick_corpus_takes_its_games_and_players_splits_from_the_origin() {
        let dir = std::env::temp_dir().join(format!("fairsight-quick-{}", std::process::id()));
        let (from, quick) = (dir.join("corpus"), dir.join("quick"));
        let _ = std::fs::remove_dir_all(&dir);
        let rec = |id: &str, w: &str, b: &str| Record {
            format: FORMAT,
            id: id.into(),
            label: Label::Human,
            source: "h".into(),
            file: "f.pgn".into(),
            game: id[2..].parse().unwrap(),
            skipped: 0,
            settings: Settings::default(),
            engine: EngineInfo::default(),
            pgn: format!("[White \"{w}\"]\n[Black \"{b}\"]\n\n*\n\n"),
            positions: Vec::new(),
        };
        // The origin's splits: whatever its hashes gave, here set by hand.
        let mut origin = Manifest::default();
        for (id, split) in [("h/1", Split::Test), ("h/2", Split::Validation)] {
            origin.games.insert(
                id.into(),
                GameEntry {
                    label: Label::Human,
                    split,
                    positions: 0,
                    bytes: 0,
                },
            );
        }
        origin.players.insert("ann".into(), Split::Test);
        origin.players.insert("bob".into(), Split::Test);
        origin.save(&from).unwrap();
        rec("h/1", "Ann", "Bob").save(&quick).unwrap();
        rec("h/2", "Cid", "Dan").save(&quick).unwrap();
        // A game the origin does not list is left out.
        rec("h/3", "Eve", "Fay").save(&quick).unwrap();
        let mut m = Manifest {
            splits_from: Some(from.clone()),
            ..Manifest::default()
        };
        m.update(&quick).unwrap();
        assert_eq!(m.games["h/1"].split, Split::Test);
        assert_eq!(m.games["h/2"].split, Split::Validation);
        assert!(!m.games.contains_key("h/3"));
        assert_eq!(m.players["ann"], Split::Test);
        // The field is written, so a later `corpus manifest` keeps the origin's splits.
        m.save(&quick).unwrap();
        assert_eq!(Manifest::load(&quick).unwrap().splits_from, Some(from));
        let _ = std::fs::remove_dir_all(&dir);
    }

    impl Manifest {
        fn assign_test(&mut self, r: &Record) -> Split {
            self.assign(r, false)
        }
    }

    #[test]
    fn splits_keep_players_together_and_engines_by_game() {
        let rec = |id: &str, label: Label, w: &str, b: &str, event: &str| Record {
            format: FORMAT,
            id: id.into(),
            label,
            source: id.split('/').next().unwrap().into(),
            file: "f.pgn".into(),
            game: 1,
            skipped: 0,
            settings: Settings::default(),
            engine: EngineInfo::default(),
            pgn: format!("[Event \"{event}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n\n*\n\n"),
            positions: Vec::new(),
        };
        let mut m = Manifest::default();
        let first = m.assign_test(&rec("h/1", Label::Human, "Ann", "Bob", "E1"));
        assert_ne!(first, Split::None);
        // Ann's next game, against a new player, in another event: Ann's split.
        assert_eq!(
            m.assign_test(&rec("h/2", Label::Human, "Cid", "ann", "E9")),
            first
        );
        assert_eq!(m.players["cid"], first);
        // Find a pair of new players that hash to another split, then let them meet Ann.
        let other = (0..200)
            .map(|i| format!("E{i}"))
            .find(|e| hash_split(&format!("h|{e}|")) != first)
            .unwrap();
        let s = m.assign_test(&rec("h/3", Label::Human, "Dan", "Eve", &other));
        assert_ne!(s, first);
        assert_eq!(
            m.assign_test(&rec("h/4", Label::Human, "Dan", "Ann", "E1")),
            Split::None,
            "players of two splits: the game is used by no model"
        );
        // A game a shipped model was fitted on goes to train, or nowhere when one of its
        // players is already in another split.
        let mut fresh = Manifest::default();
        assert_eq!(
            fresh.assign(&rec("h/5", Label::Human, "Fay", "Gus", "E1"), true),
            Split::Train
        );
        assert_eq!(fresh.players["gus"], Split::Train);
        let elsewhere = if first == Split::Train { s } else { first };
        m.players.insert("hal".into(), elsewhere);
        assert_eq!(
            m.assign(&rec("h/6", Label::Human, "Hal", "Ivy", "E1"), true),
            Split::None
        );
        // A source whose new players go to one split (`corpus add --split`): a game of
        // two new players goes there whatever its event; known players keep theirs.
        let grown = [Split::Train, Split::Validation, Split::Test]
            .into_iter()
            .find(|s| *s != hash_split("g|E1|"))
            .unwrap();
        m.new_players.insert("g".into(), grown);
        assert_eq!(
            m.assign_test(&rec("g/1", Label::Human, "Jo", "Kim", "E1")),
            grown
        );
        assert_eq!(m.players["kim"], grown);
        assert_eq!(
            m.assign_test(&rec("g/2", Label::Human, "Lou", "Ann", "E1")),
            first
        );
        assert_eq!(
            m.assign_test(&rec("h/8", Label::Human, "Max", "Ned", "E1")),
            hash_split("h|E1|"),
            "other sources keep the drawn split"
        );
        // Missing or unknown names are nobody.
        assert_eq!(player_key(Some("?".into())), None);
        assert_eq!(player_key(Some(" ".into())), None);
        // Engine games ignore names.
        let e = m.assign_test(&rec("e/7", Label::Engine, "Ann", "Bob", "E1"));
        assert_eq!(e, hash_split("e/7"));
        assert!(!m.players.contains_key("stockfish"));
        // An engine source sent to one split (makes held out): every game goes there,
        // whatever its hash; a game a shipped model saw still goes to train.
        let held = [Split::Train, Split::Validation, Split::Test]
            .into_iter()
            .find(|s| (1..20).any(|i| hash_split(&format!("m/{i}")) != *s))
            .unwrap();
        m.new_players.insert("m".into(), held);
        for i in 1..20 {
            assert_eq!(
                m.assign_test(&rec(&format!("m/{i}"), Label::Engine, "A", "B", "E1")),
                held
            );
        }
        assert_eq!(
            m.assign(&rec("m/20", Label::Engine, "A", "B", "E1"), true),
            Split::Train
        );
    }

    #[test]
    fn the_table_tells_a_player_without_a_rating_how_to_give_one() {
        // A London 1851 game: no Elo tags. Then the same with one player rated.
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let record = Record::load_id(&corpus, "london-1851/1").unwrap();
        let (white, black) = (record.tag("White").unwrap(), record.tag("Black").unwrap());
        let report = rebuild(std::slice::from_ref(&record)).unwrap();
        let table = fairsight::render::player_table(&report);
        for name in [&white, &black] {
            let line = format!("to read them against a rating: --rating '{name}=ELO'\n");
            assert!(table.contains(&line), "{line}{table}");
        }
        assert!(table.contains("a rating would sharpen this"), "{table}");
        // Each reason in plain words, its numbers on the line under it.
        for p in &report.players {
            let a = p.assessment.as_ref().expect("an assessment");
            for r in &a.reasons {
                assert!(
                    !r.plain.is_empty() && !r.plain.contains("(z)"),
                    "{}",
                    r.plain
                );
                let sign = if r.effect >= 0.0 { '+' } else { '-' };
                let lines = format!("      {sign} {}\n          {}\n", r.plain, r.text);
                assert!(table.contains(&lines), "{lines}{table}");
            }
        }
        let report = fairsight::rerate(report, &[(white.as_str(), 1850.0)]);
        let table = fairsight::render::player_table(&report);
        assert!(
            !table.contains(&format!("--rating '{white}=ELO'")),
            "{table}"
        );
        assert!(
            table.contains(&format!("--rating '{black}=ELO'")),
            "{table}"
        );
    }

    #[test]
    fn the_table_lists_each_game_side_at_look_closer_read_on_its_own() {
        // Real corpus games rebuilt without an engine: lichess players, switched copies of
        // some of their games (a player of two games, one of them switched) and TCEC
        // engines.
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let sources = ["lichess-2025-05", "switched-lichess", "tcec"].map(String::from);
        let mut records = load_records(&corpus, &sources, None, None).unwrap();
        let mut seen: HashMap<String, usize> = HashMap::new();
        records.retain(|r| {
            let n = seen.entry(r.source.clone()).or_default();
            *n += 1;
            *n <= 4
        });
        // And the two games of a clean over-the-board player rated about 2,100, one of
        // which reads `look closer` on its own while the two pooled stay under it.
        for id in ["twic-920/1970", "twic-920/1977"] {
            records.push(Record::load_id(&corpus, id).unwrap());
        }
        assert!(Record::load_id(&corpus, "twic-920/99999").is_err());
        assert!(Record::load_id(&corpus, "twic-920").is_err());
        let report = rebuild(&records).unwrap();
        let table = fairsight::render::player_table(&report);

        let mut flagged = Vec::new();
        let mut quiet = 0;
        for g in &report.games {
            for (side, colour) in [(&g.sides.white, "White"), (&g.sides.black, "Black")] {
                let Some(a) = &side.assessment else { continue };
                if a.level.name() == "look closer" {
                    let other = if colour == "White" {
                        &g.sides.black
                    } else {
                        &g.sides.white
                    };
                    flagged.push(format!(
                        "  game {} (line {}): {} ({colour}) against {}, {:.0}%\n",
                        g.index + 1,
                        g.line,
                        side.player,
                        other.player,
                        a.probability * 100.0
                    ));
                } else {
                    quiet += 1;
                }
            }
        }
        assert!(flagged.len() >= 3 && quiet >= 10, "{table}");
        let head = format!(
            "game sides at look closer, each game read on its own ({}):\n",
            flagged.len()
        );
        let list = format!("{head}{}\n", flagged.concat());
        assert!(table.contains(&list), "{table}");
        // A player of several games whose pooled reading is under `look closer`, one of
        // whose games is there: the list is where the table shows it.
        let pooled_under = report.players.iter().any(|p| {
            p.games > 1
                && p.assessment
                    .as_ref()
                    .is_some_and(|a| a.level.name() != "look closer")
                && flagged
                    .iter()
                    .any(|f| f.contains(&format!(": {} (", p.name)))
        });
        assert!(pooled_under, "{table}");
        // A player of several games: their line says how many of their games read
        // `look closer` and `unclear`, each on its own (as the page's card does).
        let mut unclear_seen = false;
        for p in report
            .players
            .iter()
            .filter(|p| p.games > 1 && p.assessment.is_some())
        {
            let at = |level: &str| {
                report
                    .games
                    .iter()
                    .flat_map(|g| [&g.sides.white, &g.sides.black])
                    .filter(|s| s.player == p.name)
                    .filter(|s| {
                        s.assessment
                            .as_ref()
                            .is_some_and(|a| a.level.name() == level)
                    })
                    .count()
            };
            let (lc, uc, n) = (at("look closer"), at("unclear"), p.games);
            unclear_seen |= uc > 0;
            let said = match (lc, uc) {
                (0, 0) => format!("none of {n} above no concern"),
                (0, uc) => format!("{uc} of {n} unclear"),
                (lc, 0) => format!("{lc} of {n} at look closer (below)"),
                (lc, uc) => format!("{lc} of {n} at look closer (below), {uc} unclear"),
            };
            let line = format!("      game by game, each read on its own: {said}\n");
            assert!(table.contains(&line), "{}: {line}{table}", p.name);
        }
        assert!(
            unclear_seen,
            "a player of several games with a game at unclear: {table}"
        );
        // Each player's line names the rating the assessment reads against, and the model
        // that read it in words.
        for p in &report.players {
            if let Some(a) = &p.assessment {
                let r = p
                    .rating
                    .map_or("no rating".to_owned(), |r| format!("rated {r:.0}"));
                let games = if p.games == 1 {
                    "1 game".to_owned()
                } else {
                    format!("{} games", p.games)
                };
                assert!(
                    table.contains(&format!("; {games}, {r}, ")),
                    "{}: {table}",
                    p.name
                );
                let model = match a.basis.as_str() {
                    "rated, no clocks" => "the model for rated games (clocks not read);",
                    "unrated, no clocks" => "the model for unrated games (clocks not read);",
                    "rated, clocks" => "the model for rated games with clocks;",
                    "unrated, clocks" => "the model for unrated games with clocks;",
                    other => panic!("a basis the table does not put in words: {other}"),
                };
                assert!(table.contains(model), "{}: {table}", p.name);
            }
        }
        assert!(!table.contains("clocks model"), "{table}");
        // The answer first: the count at each level, then the players from the most
        // engine-like down (level, then probability), those without an assessment last.
        let count = |l: &str| {
            report
                .players
                .iter()
                .filter(|p| p.assessment.as_ref().is_some_and(|a| a.level.name() == l))
                .count()
        };
        let summary = format!(
            "fair-play assessment: {} players: {} look closer, {} unclear, {} no concern",
            report.players.len(),
            count("look closer"),
            count("unclear"),
            count("no concern")
        );
        assert!(table.contains(&summary), "{summary}\n{table}");
        let mut want: Vec<(u8, f64, String)> = report
            .players
            .iter()
            .map(|p| match &p.assessment {
                Some(a) => (
                    match a.level.name() {
                        "look closer" => 0,
                        "unclear" => 1,
                        _ => 2,
                    },
                    -a.probability,
                    p.name.clone(),
                ),
                None => (3, 0.0, p.name.clone()),
            })
            .collect();
        want.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        assert!(
            want.iter().any(|w| w.0 < 2),
            "a player above no concern: {table}"
        );
        let at = |name: &str| {
            table
                .find(&format!("\n  {name}: "))
                .unwrap_or_else(|| panic!("{name}: {table}"))
        };
        for pair in want.windows(2) {
            assert!(
                at(&pair[0].2) < at(&pair[1].2),
                "{} before {}: {table}",
                pair[0].2,
                pair[1].2
            );
        }
        // A streamed run keeps no games: the sides it flagged as its games finished give
        // the same table.
        let sides: Vec<_> = report
            .games
            .iter()
            .flat_map(fairsight::render::FlaggedSide::of_game)
            .collect();
        let streamed = Report {
            games: Vec::new(),
            ..report.clone()
        };
        assert_eq!(
            fairsight::render::player_table_of(&streamed, 0, &sides),
            table
        );
        // Past 50 sides the rest are counted.
        let many: Vec<_> = sides
            .iter()
            .filter(|s| s.level.name() == "look closer")
            .cycle()
            .take(53)
            .cloned()
            .collect();
        let long = fairsight::render::player_table_of(&streamed, 0, &many);
        assert!(long.contains("look closer, each game read on its own (53):"));
        assert!(
            long.contains("  and 3 more (each game side's assessment is in the JSON report)\n")
        );
        assert_eq!(
            long.lines().filter(|l| l.starts_with("  game ")).count(),
            50
        );
    }
}
