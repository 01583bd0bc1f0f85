//! The streamed report (`fairsight analyze --ndjson OUT`): newline-delimited JSON, one
//! object a line, each with a `kind`, written as the analysis goes:
//!
//! - `head` first: the report's `schema`, `settings`, `engine`, `calibration`,
//!   `classifier`, `classifierBaseline` and `assessment`;
//! - `game`, one a game in input order as it finishes: the keys of an entry of the whole
//!   report's `games`;
//! - `player`, one a player at the end: the keys of an entry of its `players`;
//! - `end` last: `games` and `players`, how many lines of each came (a file without it
//!   was cut short), and a shard's `shard` record (`analyze --shard K/N`), which
//!   `fairsight merge` reads.
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

use serde::{Deserialize, Serialize};

use crate::{
    model::classifier::Baseline,
    plan::Settings,
    record::EngineInfo,
    report::{GameReport, PlayerReport, Report, Shard},
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
struct End<'a> {
    games: usize,
    players: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<&'a Shard>,
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

/// The `end` line, after `games` game lines and `players` player lines; a shard's
/// (`analyze --shard K/N`) carries its shard record, as a shard's whole report does.
pub fn end_line(games: usize, players: usize, shard: Option<&Shard>) -> String {
    line(
        "end",
        &End {
            games,
            players,
            shard,
        },
    )
}

/// A line of a streamed report, read back ([`read_line`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// The `head`: a report with no games or players.
    Head(Box<Report>),
    /// A `game`.
    Game(Box<GameReport>),
    /// A `player`.
    Player(Box<PlayerReport>),
    /// The `end`.
    End {
        /// Game lines before it.
        games: usize,
        /// Player lines before it.
        players: usize,
        /// A shard's record.
        shard: Option<Shard>,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadIn {
    schema: u32,
    settings: Settings,
    engine: EngineInfo,
    calibration: Option<String>,
    classifier: Option<String>,
    classifier_baseline: Option<Baseline>,
    assessment: Option<String>,
}

#[derive(Deserialize)]
struct EndIn {
    games: usize,
    players: usize,
    #[serde(default)]
    shard: Option<Shard>,
}

/// Reads one line of a streamed report (its newline optional); the error says what is
/// wrong with it.
///
/// ```
/// use fairsight::{Analysis, EngineInfo, Settings, render::ndjson};
/// let report = Analysis::from_pgn("1. e4 e5 *", Settings::default()).report(EngineInfo::default());
/// let back = ndjson::read_line(&ndjson::game_line(&report.games[0])).unwrap();
/// assert_eq!(back, ndjson::Item::Game(Box::new(report.games[0].clone())));
/// assert!(ndjson::read_line("{\"kind\":\"game\"}").is_err());
/// ```
pub fn read_line(line: &str) -> Result<Item, String> {
    let kind = line
        .strip_prefix("{\"kind\":\"")
        .and_then(|rest| rest.split('"').next())
        .ok_or("not a line of a streamed report (no \"kind\" first)")?;
    let bad = |e: serde_json::Error| format!("a bad {kind} line: {e}");
    Ok(match kind {
        "head" => {
            let h: HeadIn = serde_json::from_str(line).map_err(bad)?;
            Item::Head(Box::new(Report {
                schema: h.schema,
                settings: h.settings,
                engine: h.engine,
                games: Vec::new(),
                players: Vec::new(),
                calibration: h.calibration,
                classifier: h.classifier,
                classifier_baseline: h.classifier_baseline,
                assessment: h.assessment,
                shard: None,
            }))
        }
        "game" => Item::Game(Box::new(serde_json::from_str(line).map_err(bad)?)),
        "player" => Item::Player(Box::new(serde_json::from_str(line).map_err(bad)?)),
        "end" => {
            let e: EndIn = serde_json::from_str(line).map_err(bad)?;
            Item::End {
                games: e.games,
                players: e.players,
                shard: e.shard,
            }
        }
        other => return Err(format!("an unknown kind of line, {other:?}")),
    })
}
