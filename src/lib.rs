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
//!  engine, session             contract (Job, JobResult), the sans-IO UCI session
//!  uci, game, eval           values: UCI lines and scores, games, evaluation formulas
//! ```
//!
//! A game goes up the layers: [`pgn::import`] makes a [`Game`]; [`plan`] cuts it into
//! [`Job`]s; a [`Session`] runs each over UCI into a [`JobResult`]; [`record`] turns the
//! results into [`PlyReport`]s; the models ([`accuracy`], [`stats`], [`model`]) summarise
//! them; [`Analysis`] assembles the [`Report`], which [`render`] writes as text (its JSON is
//! its serde form, documented in `docs/json.md`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod accuracy;
pub mod analysis;
pub mod book;
pub mod chess;
pub mod engine;
pub mod eval;
pub mod game;
pub mod model;
pub mod pgn;
pub mod plan;
pub mod record;
pub mod render;
pub mod report;
pub mod session;
pub mod stats;
pub mod uci;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use analysis::Analysis;
pub use engine::{Job, JobResult};
pub use game::{Game, Side, Variant};
pub use plan::Settings;
pub use record::{EngineInfo, PlyReport};
pub use report::Report;
pub use session::Session;
