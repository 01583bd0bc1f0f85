//! fairsight: a chess fair-play analyzer.
//!
//! The core is pure: no I/O, threads or clocks, so it builds unchanged for
//! `wasm32-unknown-unknown`. Front ends (the CLI in `main.rs`, the browser bindings in
//! `wasm.rs`) own the transport to the engine and feed its lines to a [`Session`].
//!
//! # Layers
//!
//! Each layer uses only the layers below it, and no two modules use each other
//! (`tests/layers.rs` fails the build otherwise):
//!
//! ```text
//!  wasm                      browser bindings                (the CLI is a separate binary)
//!  render                    annotated PGN, Crafty, Regan's log and results, the table
//!  analysis                  assembly: games + engine results -> Report; analysis::signals
//!  report                    the summaries: Report, GameReport, SideReport, PlayerReport
//!  accuracy, stats, model    the models: each reads the record, returns its summary
//!  record                    the record the models read: PlyReport, features, levels, screening
//!  pgn, book, plan,          import, opening book, which positions to search, the engine
//!  engine, session,            contract (Job, JobResult), the sans-IO UCI session, the
//!  pool_policy                 engine pools' retry and deadline rules (CLI and page)
//!  uci, game, eval           values: UCI lines and scores, games, evaluation formulas
//! ```
//!
//! A game goes up the layers: [`pgn::import`] makes a [`Game`]; the plan ([`jobs`]) cuts it
//! into [`Job`]s; a [`Session`] runs each over UCI into a [`JobResult`]; the record turns
//! the results into [`PlyReport`]s; the models (accuracy, statistics, classifier,
//! assessment) summarise them; [`Analysis`] assembles the [`Report`], which [`render`]
//! writes as text (its JSON is its serde form, documented in `docs/json.md`).
//!
//! # The public API
//!
//! The modules are private, in the spirit of shakmaty and pgn-reader: the API is what
//! this file re-exports. The main types and entry points are at the crate root (the
//! games, settings and plan, the engine contract and session, the record and the
//! report's summaries, the opening books, the shipped models). Four namespaces are public
//! because the namespace is the API:
//! - [`pgn`]: import (`pgn::import`, `pgn::games`, the clock and comment readers);
//! - [`render`]: every text output of a report (`render::annotated_pgn`,
//!   `render::matchlog::log`, ...);
//! - [`fit`]: the models' parts and the adapters that read them from a report, for the
//!   CLI's `train`, `calibrate` and `assess` commands, which fit the shipped models;
//! - `wasm` (on `wasm32` only): the browser bindings.
//!
//! The CLI (`src/main.rs`, `src/cli/`), the tests, the example and the fuzz target use the
//! crate through this API only.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod accuracy;
mod analysis;
mod book;
mod chess;
mod engine;
mod eval;
mod game;
mod model;
pub mod pgn;
mod plan;
mod pool_policy;
mod record;
pub mod render;
mod report;
mod session;
mod stats;
mod uci;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use accuracy::Accuracy;
pub use analysis::{
    Analysis, MergeError, ModelOverrides, ReportCache, ReportParts, Stream, check_shard_game,
    check_shard_heads, entered_ratings, game_plan, merge_shards, parse_rating, rerate,
};
pub use book::{
    Book, BookError, NoBook, PolyglotBook, PositionSet, load as load_book, polyglot_key,
    polyglot_key_after,
};
pub use engine::{Job, JobId, JobResult, PositionAnalysis, PvLine, Search, Task, cache_key};
pub use game::{Game, ImportError, ImportErrorKind, Ply, Side, Variant};
pub use model::{
    assessment::{Assessment, AssessmentModel},
    classifier::{Classifier, ClassifierStats},
};
pub use plan::{
    DEFAULT_DEPTH, DEFAULT_MAX_NODES, DEFAULT_MULTIPV, Exclusion, MAX_DEPTH, MAX_MULTIPV,
    SCREENING_LINES, SCREENING_MIN_DEPTH, SCREENING_MLM_DEPTH, SCREENING_SLM_DEPTH, Screening,
    Settings, SettingsError, jobs, jobs_with_book,
};
pub use pool_policy::{ATTEMPTS, Deadline, Retries, Stall, Verdict};
pub use record::{
    EngineInfo, PlyReport,
    features::{Judgement, Line, MoveFeatures},
    screening::{MatchTotals, MatchType, ScreeningMove},
};
pub use report::{
    GAME_SEPARATOR, GameReport, PlayerReport, Report, SCHEMA, Shard, ShardSource, SideReport, Sides,
};
pub use session::{Session, SessionError};
pub use stats::{
    calibration::{Calibration, Evidence, ZScores},
    haworth::Competence,
    scan::Stretch,
    time::TimeStats,
};
pub use uci::{Bound, EngineLine, Info, Limit, ParseLineError, Score};

pub mod fit {
    //! What the CLI's `train`, `calibrate` and `assess` commands read to fit the shipped
    //! models and write their files: the models' parts (the classifier's trees and
    //! vector, the assessment's experts and signals, Regan's bands and fits) and the
    //! adapters that read them from a report. Not needed to analyse a game.

    pub use crate::analysis::players_without_fits;
    pub use crate::analysis::signals::{
        assessment_probabilities, classifier_probabilities, late_plies, player_signals,
        side_late_cells, side_move_cells, side_position_loss, side_signals, tag_rating,
    };
    pub use crate::model::assessment::{
        CLOCK_SIGNALS, ENGINE_DIRECTION, Expert, GAME_SIDE_ONLY, HumanRange, LateOdds,
        LateReference, Level, LossTable, LowerRated, MIN_MOVES, PlayerEffect, Pooled, PositionLoss,
        RATED_SIGNALS, REGAN_SIGNALS, RatingBias, SIGNALS, SideMoves, Signals, TopLines,
        Variant as AssessmentVariant, engine_direction, games_term, model_value,
    };
    pub use crate::model::classifier::{Baseline, Model, Node};
    pub use crate::model::vector::{CANDIDATE_LOSS_CP, FEATURE_NAMES, move_vector};
    pub use crate::record::levels::{Levels, Trend, trend_rule};
    pub use crate::stats::calibration::Band;
    pub use crate::stats::regan;
}
