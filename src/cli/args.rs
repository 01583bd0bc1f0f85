//! `fairsight analyze`: its flags, and their validation into settings.

use std::{
    path::{Path, PathBuf},
    thread,
};

use anyhow::Result;
use clap::{Args, ValueEnum};
use fairsight::{
    DEFAULT_DEPTH, DEFAULT_MULTIPV, Limit, SCREENING_LINES, SCREENING_MLM_DEPTH, Screening,
    Settings, SettingsError,
    render::{self, CraftyOptions, SideFilter},
};

use super::engine::default_engine;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// Game review: MultiPV lines, features and accuracy per move.
    Review,
    /// Crafty's annotate: comment moves where the best beats the played by the margin.
    Annotate,
    /// Regan's screening protocol ("zig-zag"): per move a single-line search to
    /// --slm-depth recording the choice at each depth from --min-depth, then --multipv
    /// lines (default 10) to --depth (default 14), hash kept; --log and --results.
    Screening,
    /// The quick screen: a small fixed node count with 2 lines (about a tenth of the
    /// review's cost a position), players ranked by the quick assessment
    /// (models/quick-assessment.json); with --full-for, the full analysis of the games of
    /// the players it flags.
    Quick,
}

#[derive(Args)]
pub(crate) struct AnalyzeArgs {
    /// PGN files (any number of games each; `-` for stdin), read game by game.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// UCI engine command line (default: node + the npm stockfish lite single build).
    #[arg(long)]
    pub(crate) engine: Option<String>,
    /// Search depth per position [default: 14]; in screening mode the depth dL of the
    /// multi-line search.
    /// In quick mode, the depth of the full test (`--full-for`).
    #[arg(long)]
    pub(crate) depth: Option<u32>,
    /// Search nodes per position (instead of a depth) [default: 25000 in quick mode].
    #[arg(long)]
    pub(crate) nodes: Option<u64>,
    /// Lines per position (MultiPV) [default: 4; 1 in annotate mode; 10 in screening; 2
    /// in quick mode].
    #[arg(long)]
    pub(crate) multipv: Option<u32>,
    /// Screening mode: depth d of the single-line search.
    #[arg(long, default_value_t = fairsight::SCREENING_SLM_DEPTH)]
    pub(crate) slm_depth: u32,
    /// Screening mode: first depth dmin whose single-line choice counts in the match bits.
    #[arg(long, default_value_t = fairsight::SCREENING_MIN_DEPTH)]
    pub(crate) min_depth: u32,
    /// Engines run in parallel [default: number of cores].
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// Engine hash per engine, MB.
    #[arg(long, default_value_t = 16)]
    pub(crate) hash: u32,
    /// Opening book for the "book" exclusion (book moves are not searched or counted):
    /// `builtin` (positions from CC0 sources, see models/README.md), `none`, or a
    /// Polyglot .bin file.
    #[arg(long, default_value = "builtin")]
    pub(crate) book: String,
    /// A rating calibration table instead of the shipped models/regan-calibration.json
    /// (made by `fairsight calibrate fit`; used only if made with the same engine build
    /// and settings).
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// A move classifier instead of the shipped models/move-classifier.json (made by
    /// `fairsight train fit`; used only with its engine build and settings).
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    /// An assessment model instead of the shipped models/assessment.json (made by
    /// `fairsight assess fit`; used only with its engine build and settings).
    #[arg(long)]
    pub(crate) assessment: Option<PathBuf>,
    /// A player's rating for the screening z-scores, overriding the PGN's Elo tags:
    /// `--rating "Carlsen, Magnus=2850"` (repeatable).
    #[arg(long)]
    pub(crate) rating: Vec<String>,
    /// With --depth, the most nodes one search may use (0: no cap); stops the rare
    /// searches that run 10-40x longer than usual (mates found with several lines).
    #[arg(long, default_value_t = fairsight::DEFAULT_MAX_NODES)]
    pub(crate) max_nodes: u64,
    /// Plies per chunk (each starts with ucinewgame and a warm-up search).
    #[arg(long, default_value_t = 16)]
    pub(crate) chunk: u32,
    /// Exclude moves before this full-move number from the statistics.
    #[arg(long, default_value_t = 1)]
    pub(crate) min_move: u32,
    /// Seconds a single search may take before the engine is restarted.
    #[arg(long, default_value_t = 120)]
    pub(crate) search_timeout: u64,
    /// Analysis mode.
    #[arg(long, value_enum, default_value_t = Mode::Review)]
    pub(crate) mode: Mode,
    /// Annotate and screening modes: side to annotate or test: w, b, wb, or a player's
    /// name (substring).
    #[arg(long, default_value = "wb")]
    pub(crate) side: String,
    /// Annotate mode: full-move range `A-B` (or `A` for A to the end).
    #[arg(long, default_value = "1-999")]
    pub(crate) moves: String,
    /// Annotate mode: margin in pawns (negative: annotate every move).
    #[arg(long, default_value_t = 0.3, allow_negative_numbers = true)]
    pub(crate) margin: f64,
    /// Write the JSON report here (`-` for stdout).
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// Write the streamed report here (`-` for stdout): newline-delimited JSON, a line
    /// per game as it finishes, then a line per player (docs/json.md). With only this
    /// output (and the table), finished games are not kept: memory grows with the
    /// players' analysed moves, not with the number of games.
    #[arg(long, value_name = "OUT")]
    pub(crate) ndjson: Option<PathBuf>,
    /// Write the annotated PGN here (`-` for stdout).
    #[arg(long)]
    pub(crate) pgn: Option<PathBuf>,
    /// Screening mode: write the log in Regan's format here (`-` for stdout).
    #[arg(long)]
    pub(crate) log: Option<PathBuf>,
    /// Screening mode: write the results file (totals, matches per depth, lines sorted
    /// by significance) here (`-` for stdout).
    #[arg(long)]
    pub(crate) results: Option<PathBuf>,
    /// Keep analysed chunks in this directory and reuse them: the same games with the
    /// same engine build and settings are not searched again.
    #[arg(long)]
    pub(crate) cache: Option<PathBuf>,
    /// No player table on stdout (it is left out too when an output goes to stdout).
    #[arg(long)]
    pub(crate) quiet: bool,
    /// Analyse only shard K of N (1 ≤ K ≤ N): the games whose 0-based number g in the
    /// input has g % N = K - 1, with their numbers kept; `fairsight merge` joins the N
    /// shards' JSON reports into the whole batch's.
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<String>,
    /// Quick mode: after the quick pass, analyse at the review defaults (or --depth) the
    /// games of the players it flags: `K` (the K players with the highest quick
    /// probability) or `p>=P` (every player whose quick probability is at least P). The
    /// report is the full report of those games; the other players keep their quick
    /// verdict (`quickScreen` in the JSON, the quick table).
    #[arg(long, value_name = "K|p>=P")]
    pub(crate) full_for: Option<String>,
}

pub(crate) struct Validated {
    pub(crate) settings: Settings,
    pub(crate) engine: String,
    pub(crate) jobs: usize,
    pub(crate) crafty: Option<CraftyOptions>,
    /// Screening mode: whose moves the log and results cover.
    pub(crate) tested: SideFilter,
    /// `--shard K/N`: (K, N).
    pub(crate) shard: Option<(usize, usize)>,
    /// `--full-for`: which players get the full test, and its settings.
    pub(crate) full_for: Option<(super::quick::FullFor, Settings)>,
}

/// `K/N` with 1 ≤ K ≤ N.
pub(crate) fn parse_shard(spec: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {spec}: expected K/N with 1 ≤ K ≤ N, as 2/3");
    let (k, n) = spec.split_once('/').ok_or_else(bad)?;
    let (k, n) = (
        k.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

pub(crate) fn validate(args: &AnalyzeArgs) -> Result<Validated, String> {
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    if args.depth.is_some() && args.nodes.is_some() && args.mode != Mode::Quick {
        return Err("--depth and --nodes: give one of them".into());
    }
    let full_for = args
        .full_for
        .as_deref()
        .map(super::quick::parse_full_for)
        .transpose()?;
    if full_for.is_some() {
        if args.mode != Mode::Quick {
            return Err("--full-for needs --mode quick".into());
        }
        if args.ndjson.is_some() || args.shard.is_some() {
            return Err("--full-for writes a whole report: no --ndjson or --shard".into());
        }
        if args.files.iter().any(|f| f.as_path() == Path::new("-")) {
            return Err("--full-for reads the input twice: give files, not stdin (-)".into());
        }
    }
    let default_multipv = match args.mode {
        Mode::Review => DEFAULT_MULTIPV,
        Mode::Annotate => 1,
        Mode::Screening => SCREENING_LINES,
        Mode::Quick => super::quick::QUICK_LINES,
    };
    let default_depth = match args.mode {
        Mode::Screening => SCREENING_MLM_DEPTH,
        _ => DEFAULT_DEPTH,
    };
    let screening = match args.mode {
        Mode::Screening => Some(Screening {
            slm_depth: args.slm_depth,
            min_depth: args.min_depth,
        }),
        _ => {
            if args.log.is_some() || args.results.is_some() {
                return Err("--log and --results need --mode screening".into());
            }
            None
        }
    };
    let limit = match (args.mode, args.depth, args.nodes) {
        (_, _, Some(n)) => Limit::Nodes(n),
        // Quick mode: --depth is the full test's.
        (Mode::Quick, _, None) => Limit::Nodes(super::quick::QUICK_NODES),
        (_, Some(d), None) => Limit::Depth(d),
        (_, None, None) => Limit::Depth(default_depth),
    };
    let multipv = args.multipv.unwrap_or(default_multipv);
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
        Mode::Review | Mode::Screening | Mode::Quick => None,
        Mode::Annotate => {
            let side: SideFilter = args.side.parse().map_err(|e| format!("--side: {e}"))?;
            let moves =
                render::parse_move_range(&args.moves).map_err(|e| format!("--moves: {e}"))?;
            Some(CraftyOptions {
                side,
                moves,
                margin_pawns: args.margin,
            })
        }
    };
    let tested: SideFilter = args.side.parse().map_err(|e| format!("--side: {e}"))?;
    let settings = Settings {
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
    };
    settings.validate().map_err(|e| {
        let flags = match e {
            SettingsError::Limit => "--depth/--nodes",
            SettingsError::Multipv => "--multipv",
            SettingsError::ChunkPlies => "--chunk",
            SettingsError::Hash => "--hash",
            SettingsError::ScreeningNodes => "--nodes",
            SettingsError::ScreeningDepths => "--slm-depth/--min-depth",
        };
        format!("{flags}: {e}")
    })?;
    let full_for = match full_for {
        None => None,
        Some(rule) => {
            let full = Settings {
                limit: Limit::Depth(args.depth.unwrap_or(DEFAULT_DEPTH)),
                multipv: DEFAULT_MULTIPV,
                ..settings.clone()
            };
            full.validate().map_err(|e| format!("--depth: {e}"))?;
            Some((rule, full))
        }
    };
    Ok(Validated {
        full_for,
        shard,
        tested,
        settings,
        engine,
        jobs,
        crafty,
    })
}
