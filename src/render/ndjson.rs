//! The streamed report (`fairsight analyze --ndjson OUT`): newline-delimited JSON, one
//! object a line, each with a `kind`, written as the analysis goes:
//!
//! - `head` first: the report's `schema`, `settings`, `engine`, `calibration`,
//!   `classifier`, `classifierBaseline` and `assessment`;
//! - `game`, one a game in input order as it finishes: the keys of an entry of the whole
//!   report's `games`;
//! - `player`, one a player at the end: the keys of an entry of its `players`;
//! - `end` last: `games` and `players`, how many lines of each came (a file without it
//!   was cut short).
//!
//! Each line but the `kind` is what the whole report has in the same place, so the lines
//! read as the whole report's parts (`docs/json.md`).
//!
//! ```
//! use fairsight::{Analysis, EngineInfo, Settings, render::ndjson};
//! let report = Analysis::from_pgn("1. e4 e5 *", Settings::default()).report(EngineInfo::default());
//! let line = ndjson::game_line(&report.games[0]);
//! assert!(line.starts_with("{\"kind\":\"game\",\"index\":0,"));
//! // One line: the newline only at its end.
//! assert_eq!(line.find('\n'), Some(line.len() - 1));
//! ```

use serde::Serialize;

use crate::{
    model::classifier::Baseline,
    plan::Settings,
    record::EngineInfo,
    report::{GameReport, PlayerReport, Report},
};

#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    kind: &'static str,
    #[serde(flatten)]
    item: &'a T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Head<'a> {
    schema: u32,
    settings: &'a Settings,
    engine: &'a EngineInfo,
    calibration: &'a Option<String>,
    classifier: &'a Option<String>,
    classifier_baseline: &'a Option<Baseline>,
    assessment: &'a Option<String>,
}

#[derive(Serialize)]
struct End {
    games: usize,
    players: usize,
}

fn line<T: Serialize>(kind: &'static str, item: &T) -> String {
    serde_json::to_string(&Line { kind, item }).expect("invariant: the report serialises") + "\n"
}

/// The `head` line of a report (its games and players are not read).
pub fn head_line(report: &Report) -> String {
    line(
        "head",
        &Head {
            schema: report.schema,
            settings: &report.settings,
            engine: &report.engine,
            calibration: &report.calibration,
            classifier: &report.classifier,
            classifier_baseline: &report.classifier_baseline,
            assessment: &report.assessment,
        },
    )
}

/// A `game` line, its newline included.
pub fn game_line(game: &GameReport) -> String {
    line("game", game)
}

/// A `player` line.
pub fn player_line(player: &PlayerReport) -> String {
    line("player", player)
}

/// The `end` line, after `games` game lines and `players` player lines.
pub fn end_line(games: usize, players: usize) -> String {
    line("end", &End { games, players })
}
