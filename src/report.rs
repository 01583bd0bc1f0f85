//! The report: the summaries of every game, side and player that the models return,
//! around the per-ply [`crate::record`]. JSON is its serde form (`"schema": 1`, camelCase
//! keys, documented in `docs/json.md`); [`crate::render`] writes its text outputs and
//! [`crate::analysis`] assembles it.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de::MapAccess, ser::SerializeMap};

use crate::{
    accuracy::Accuracy,
    game::{Side, Variant},
    model::{
        assessment::Assessment,
        classifier::{Baseline, ClassifierStats},
    },
    plan::Settings,
    record::{EngineInfo, PlyReport, screening::MatchTotals},
    stats::{
        calibration::{Evidence, ZScores},
        haworth::Competence,
        regan::Fit,
        scan::Stretch,
        time::TimeStats,
    },
};

/// The JSON schema version.
pub const SCHEMA: u32 = 1;

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: u32,
    /// How the analysis was run.
    pub settings: Settings,
    /// Which engine.
    pub engine: EngineInfo,
    /// Every game of the input, in order, failed ones included.
    pub games: Vec<GameReport>,
    /// Every player across the games.
    pub players: Vec<PlayerReport>,
    /// The rating calibration behind `ipr` and `zScores` (its source and engine), or
    /// `null` when no table applies to this engine and these settings.
    #[serde(default)]
    pub calibration: Option<String>,
    /// The move classifier behind `engineProbability` (its name), or `null` when no
    /// model applies to this engine and these settings.
    #[serde(default)]
    pub classifier: Option<String>,
    /// Positive rates of the classifier's validation game sides, human and engine (the
    /// baseline a player's games are compared with; `null` without a classifier).
    #[serde(default)]
    pub classifier_baseline: Option<Baseline>,
    /// The assessment model behind each `assessment` and `engineScore` (its name and
    /// data), or `null` when none applies to this engine and these settings.
    #[serde(default)]
    pub assessment: Option<String>,
    /// Set in the report of one shard of a batch (`fairsight analyze --shard K/N`): which
    /// shard, and what a merge needs to check and rebuild the whole report. Absent from
    /// every other report, a merged one included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// Which part of a batch a shard report holds: the games whose 0-based index `g` has
/// `g % count == index - 1`, with their original indices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shard {
    /// K, from 1.
    pub index: usize,
    /// N, the number of shards.
    pub count: usize,
    /// Games in the whole input, failed ones included.
    pub games: usize,
    /// The input files, in order.
    pub sources: Vec<ShardSource>,
    /// Ratings entered (`--rating`), in order: a merge enters them again.
    pub ratings: Vec<(String, f64)>,
}

/// An input file of a sharded batch: the same content on every machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardSource {
    /// Its file name (without the folder).
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// A 64-bit FNV-1a hash of its bytes, in hex.
    pub fnv1a: String,
}

/// One game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameReport {
    /// Index of the game in the input (0-based).
    pub index: usize,
    /// Line of the input where the game starts.
    pub line: u32,
    /// Tags, in input order.
    #[serde(with = "tag_map")]
    pub tags: Vec<(String, String)>,
    /// Why the game could not be imported (`null` when it was).
    pub error: Option<String>,
    /// The variant.
    pub variant: Variant,
    /// The start position.
    pub start_fen: String,
    /// A comment before the first move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_comment: Option<String>,
    /// The result token.
    pub outcome: Option<String>,
    /// Every ply of the main line.
    pub plies: Vec<PlyReport>,
    /// Per-side summaries.
    pub sides: Sides,
}

impl GameReport {
    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The two sides of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Sides {
    /// White's summary.
    pub white: SideReport,
    /// Black's summary.
    pub black: SideReport,
}

impl Sides {
    /// The summary of a side.
    pub fn get(&self, side: Side) -> &SideReport {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    /// The summary of a side, to change it.
    pub fn get_mut(&mut self, side: Side) -> &mut SideReport {
        match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        }
    }
}

/// One side of one game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SideReport {
    /// The player's name from the tags.
    pub player: String,
    /// The statistics.
    #[serde(flatten)]
    pub stats: Accuracy,
    /// Time use, when the game has clock data (`null` otherwise).
    #[serde(default)]
    pub time: Option<TimeStats>,
    /// Haworth's apparent competence over this side's analysed moves, with its
    /// trajectory through the game (`null` without analysed moves).
    #[serde(default)]
    pub competence: Option<Competence>,
    /// The stretch of consecutive moves with the most unusual engine agreement, with its
    /// own significance (`null` with fewer than 8 analysed moves).
    #[serde(default)]
    pub stretch: Option<Stretch>,
    /// The move classifier over the side's candidate moves: moves classified and
    /// flagged, positive rate, mean probability, flagged in the critical phase (`null`
    /// when no model applies).
    #[serde(default)]
    pub classifier: Option<ClassifierStats>,
    /// Screening mode: totals of Regan's match types and of matches per depth over the
    /// side's analysed moves (absent in review mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<MatchTotals>,
    /// The assessment of this side: probability of engine assistance, level, reasons
    /// (`null` when no model applies or with too few analysed moves); `engineScore` is
    /// its probability.
    #[serde(default)]
    pub assessment: Option<Assessment>,
}

/// One player across all games of the input (matched by name, case-insensitive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerReport {
    /// The name as first seen.
    pub name: String,
    /// Games played.
    pub games: usize,
    /// Games with White.
    pub white_games: usize,
    /// Games with Black.
    pub black_games: usize,
    /// Pooled statistics over every analysed move.
    #[serde(flatten)]
    pub stats: Accuracy,
    /// Time use over every game with clock data (`null` without any).
    #[serde(default)]
    pub time: Option<TimeStats>,
    /// The player's rating: entered by the user, else the mean of the PGN's Elo tags
    /// (`null` without either).
    #[serde(default)]
    pub rating: Option<f64>,
    /// Regan's screening z-scores against the parameters of the player's rating (`null`
    /// without a rating or an applicable calibration).
    pub z_scores: Option<ZScores>,
    /// Intrinsic performance rating (`null` without an applicable calibration).
    pub ipr: Option<f64>,
    /// The IPR's 95% likelihood interval.
    #[serde(default)]
    pub ipr_range: Option<(f64, f64)>,
    /// `"lowest"` / `"highest"` when the IPR is at the rating table's end band: that
    /// rating or below / above (the table knows nothing beyond it); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipr_edge: Option<crate::stats::calibration::Edge>,
    /// Haworth's apparent competence over every analysed move (`null` without any).
    pub competence: Option<Competence>,
    /// Regan's model fitted to the player's own moves: `(s, c)` with the 95% region's
    /// extent and MM/EV/ASD against the fit (`null` without analysed moves). The
    /// screening z-scores against the player's rating are `zScores`.
    #[serde(default)]
    pub regan: Option<Fit>,
    /// The screening verdict, always with its reason (thresholds in
    /// `stats::calibration`): "look closer", "no statistical evidence" or "no verdict".
    pub verdict: Option<String>,
    /// The moves that drove the verdict: the top-move matches the player's rating made
    /// least likely, most significant first.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// The move classifier over all the player's candidate moves (`null` when no model
    /// applies).
    #[serde(default)]
    pub classifier: Option<ClassifierStats>,
    /// The classifier's positive rate of each of the player's games (sides with
    /// classified moves), in input order: the page's histogram against the baseline.
    #[serde(default)]
    pub game_positive_rates: Vec<f64>,
    /// Screening mode: totals of Regan's match types and of matches per depth over all
    /// the player's analysed moves (absent in review mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<MatchTotals>,
    /// The assessment over all the player's games (`null` when no model applies or with
    /// too few analysed moves); `engineScore` is its probability.
    #[serde(default)]
    pub assessment: Option<Assessment>,
}

/// What stands between two games' texts in [`Report::to_json`].
pub const GAME_SEPARATOR: &str = ",\n    ";

impl Report {
    /// The JSON form, pretty-printed.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("invariant: the report serialises")
    }

    /// [`Report::to_json`] in pieces: the text before the first game and the text after
    /// the last, for a report of these players and `games` games (this report's own
    /// games are not written: it holds none). `head`, each game's [`Report::game_json`]
    /// joined by [`GAME_SEPARATOR`], then `tail` is the whole report's `to_json`, byte
    /// for byte.
    pub fn json_around_games(&self, games: usize) -> (String, String) {
        debug_assert!(self.games.is_empty(), "the games are written one by one");
        let json = self.to_json();
        // The root's keys are the only lines indented by two spaces, and `games` is one
        // of them: its empty array is `[]`.
        const KEY: &str = "\n  \"games\": [";
        let at = json.find(KEY).expect("invariant: a report has games") + KEY.len();
        if games == 0 {
            (json[..at].to_owned(), json[at..].to_owned())
        } else {
            (
                format!("{}\n    ", &json[..at]),
                format!("\n  {}", &json[at..]),
            )
        }
    }

    /// One game's text as it stands in [`Report::to_json`] (indented as an element of
    /// the root's `games`; a JSON string holds no raw line break, so every line break
    /// is the layout's).
    pub fn game_json(game: &GameReport) -> String {
        serde_json::to_string_pretty(game)
            .expect("invariant: a game report serialises")
            .replace('\n', "\n    ")
    }

    /// Reads a report back from JSON.
    pub fn from_json(s: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(s)
    }
}

/// Serialises `Vec<(String, String)>` as a JSON object, keeping the order.
mod tag_map {
    use super::*;

    pub fn serialize<S: Serializer>(tags: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(tags.len()))?;
        for (k, v) in tags {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of PGN tags")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, String>()? {
                    out.push((k, v));
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}
