//! fairsight: a chess fair-play analyzer.
//!
//! The core is pure: no I/O, threads or clocks, so it builds unchanged for
//! `wasm32-unknown-unknown`. Front ends (the CLI in `main.rs`, the browser bindings) own
//! the transport to the engine and feed its lines to a [`session::Session`].
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod accuracy;
pub mod analysis;
pub mod book;
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
