//! The record the models read: one [`PlyReport`] per ply of a game, made from the
//! engine's results ([`crate::engine`]): the move, why it is excluded, its features and
//! lines ([`features`]), the trend of its evaluation over the depths ([`levels`]) and, in
//! screening mode, Regan's match data ([`screening`]); with the [`EngineInfo`] that made
//! them. Every model ([`crate::accuracy`], [`crate::stats`], [`crate::model`]) reads
//! these and returns its own summary; [`crate::report`] gathers the summaries.

pub mod features;
pub mod levels;
pub mod screening;

use serde::{Deserialize, Serialize};

use crate::{
    game::Side,
    plan::Exclusion,
    record::{
        features::{Line, MoveFeatures},
        levels::Trend,
        screening::ScreeningMove,
    },
    uci::Score,
};

/// Which engine produced the analysis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EngineInfo {
    /// The engine's `id name`.
    pub name: String,
    /// The build (e.g. `stockfish-19-lite-single`) or command line.
    pub build: String,
}

/// One ply: the move, why it was excluded, its features and lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlyReport {
    /// Absolute ply number.
    pub ply: u32,
    /// Full-move number.
    pub move_number: u32,
    /// The mover.
    pub side: Side,
    /// The move, SAN.
    pub san: String,
    /// The move, UCI.
    pub uci: String,
    /// The position before the move.
    pub fen: String,
    /// `null` when the move counts in the statistics, else why not.
    pub excluded: Option<Exclusion>,
    /// Whether the engine searched this position.
    pub searched: bool,
    /// Features (empty when not searched).
    #[serde(flatten)]
    pub features: MoveFeatures,
    /// The engine lines at the final depth.
    pub lines: Vec<Line>,
    /// Probability that the move was engine-chosen (the move classifier; `null` until a
    /// model is loaded).
    pub engine_probability: Option<f64>,
    /// Flagged by the classifier: `engineProbability` at or above its threshold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub engine_like: bool,
    /// The trend of the played move's evaluation levels over the depths (seed 004
    /// §3.6): ascending, descending or other (`null` when not searched).
    #[serde(default)]
    pub trend: Option<Trend>,
    /// Screening mode: the single-line search's choice per depth and Regan's match data
    /// (absent in review mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screening: Option<ScreeningMove>,
    /// Seconds spent on the move.
    pub time_spent: Option<f64>,
    /// Clock after the move, seconds.
    pub clock: Option<f64>,
    /// Original comments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    /// Original NAGs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<u8>,
}

impl PlyReport {
    /// The values the fair-play models weigh the played move against: every line's
    /// score (White's point of view, in MultiPV order) and the index of the played move
    /// among them; when the lines do not contain it, its own search's score is appended.
    /// `None` when the played move has no value (not among the lines, no own search).
    pub fn candidates(&self) -> Option<(Vec<Score>, usize)> {
        let mut scores: Vec<Score> = self.lines.iter().map(|l| l.score).collect();
        let played = match self.lines.iter().position(|l| l.uci == self.uci) {
            Some(i) => i,
            None => {
                scores.push(self.features.played_eval?);
                scores.len() - 1
            }
        };
        Some((scores, played))
    }
}
