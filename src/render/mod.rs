//! Every text output of a report, above the report it renders: annotated PGN
//! ([`annotated_pgn`]), Crafty's `annotate` output ([`crafty_annotate`]), Regan's log and
//! results file ([`matchlog`]), the streamed report's lines ([`ndjson`]) and the CLI's table
//! ([`player_table`]); and the small rules
//! the page shares (move numbers, NAG symbols). Pure: the caller writes the text wherever
//! it goes.
//!
//! A public namespace of the crate: its functions read best with it (`render::annotated_pgn`,
//! `matchlog::log`).

mod crafty;
pub mod matchlog;
pub mod ndjson;
mod pgn;
mod table;

pub use crafty::{
    CraftyError, CraftyOptions, CraftyOutput, crafty_annotate, crafty_output, parse_move_range,
};
pub use pgn::annotated_pgn;
pub use table::{FlaggedSide, player_table, player_table_of};

use std::{fmt::Display, str::FromStr};

use crate::{game::Side, record::features::Judgement};

/// The symbol of a move NAG (`$1`..`$6`: `!`, `?`, `!!`, `??`, `!?`, `?!`), if it has one.
pub fn nag_symbol(nag: u8) -> Option<&'static str> {
    Some(match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        _ => return None,
    })
}

/// The symbol of a judgement (`?!`, `?`, `??`), by its NAG.
pub fn judgement_symbol(j: Judgement) -> &'static str {
    nag_symbol(j.nag()).unwrap_or_default()
}

/// A move's number as written before it: `12.` for White, `12...` for Black
/// (`black_mark` after the number: `...` in PGN, `…` on the page).
pub fn move_number(number: impl Display, side: Side, black_mark: &str) -> String {
    match side {
        Side::White => format!("{number}."),
        Side::Black => format!("{number}{black_mark}"),
    }
}

/// A move with its number: `12. Nf3` for White; for Black `12... Nc6` when
/// `number_black` (the first move of a line, or after a comment), else `Nc6`.
pub fn numbered_move(
    number: u32,
    side: Side,
    san: &str,
    number_black: bool,
    black_mark: &str,
) -> String {
    match side {
        Side::Black if !number_black => san.to_owned(),
        _ => format!("{} {san}", move_number(number, side, black_mark)),
    }
}

/// Moves with numbers, from a position where `side` plays move `number`: `12. Nf3 Nc6
/// 13. Bb5`, a first Black move numbered `12...` (`black_mark` after the number: `...`
/// in PGN, `…` on the page).
pub fn numbered_moves(number: u32, side: Side, sans: &[&str], black_mark: &str) -> Vec<String> {
    let (mut number, mut side) = (number, side);
    let mut out = Vec::with_capacity(sans.len());
    for (i, san) in sans.iter().enumerate() {
        out.push(numbered_move(number, side, san, i == 0, black_mark));
        if side == Side::Black {
            number += 1;
        }
        side = side.other();
    }
    out
}

/// Which moves Crafty's `annotate` comments: a colour, both, or a player by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideFilter {
    /// White's moves (`w`).
    White,
    /// Black's moves (`b`).
    Black,
    /// Both sides' moves (`wb` or `bw`).
    Both,
    /// The moves of the player whose `White` or `Black` tag contains this text
    /// (case-sensitive); a game where both tags contain it is an error.
    Name(String),
}

impl FromStr for SideFilter {
    type Err = String;

    /// Crafty's spelling: `w`, `b`, `wb`/`bw`, anything else is a name.
    fn from_str(s: &str) -> Result<SideFilter, String> {
        Ok(match s {
            "" => return Err("empty side: expected w, b, wb or a player's name".to_owned()),
            "w" => SideFilter::White,
            "b" => SideFilter::Black,
            "wb" | "bw" => SideFilter::Both,
            name => SideFilter::Name(name.to_owned()),
        })
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::{
        game::Side,
        record::PlyReport,
        report::{GameReport, Report, SideReport},
        uci::Score,
    };
    use crate::{
        game::{STANDARD_START_FEN, Variant},
        plan::Settings,
        record::{
            EngineInfo,
            features::{Line, MoveFeatures},
        },
        report::Sides,
    };

    pub(crate) fn ply(move_number: u32, side: Side, san: &str) -> PlyReport {
        PlyReport {
            ply: 2 * (move_number - 1) + u32::from(side == Side::Black) + 1,
            move_number,
            side,
            san: san.to_owned(),
            uci: String::new(),
            fen: String::new(),
            excluded: None,
            searched: false,
            features: MoveFeatures::default(),
            lines: Vec::new(),
            engine_probability: None,
            engine_like: false,
            trend: None,
            screening: None,
            time_spent: None,
            clock: None,
            comments: Vec::new(),
            nags: Vec::new(),
        }
    }

    /// Plies from `sans`, the first being `side`'s move `number`.
    pub(crate) fn plies(number: u32, side: Side, sans: &[&str]) -> Vec<PlyReport> {
        let (mut number, mut side) = (number, side);
        sans.iter()
            .map(|san| {
                let p = ply(number, side, san);
                if side == Side::Black {
                    number += 1;
                }
                side = side.other();
                p
            })
            .collect()
    }

    /// Marks a ply searched: best and played scores (White's side), the best line's SAN.
    pub(crate) fn search(p: &mut PlyReport, best: Score, played: Score, pv: &[&str]) {
        p.searched = true;
        p.features.eval = Some(best);
        p.features.played_eval = Some(played);
        p.features.best_san = pv.first().map(|s| s.to_string());
        p.lines = vec![Line {
            multipv: 1,
            depth: 14,
            uci: String::new(),
            san: pv.first().map(|s| s.to_string()).unwrap_or_default(),
            score: best,
            pv_san: pv.iter().map(|s| s.to_string()).collect(),
            pv: Vec::new(),
        }];
    }

    pub(crate) fn game(tags: &[(&str, &str)], plies: Vec<PlyReport>) -> GameReport {
        let tags: Vec<(String, String)> = tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let player = |name: &str| {
            tags.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let sides = Sides {
            white: SideReport {
                player: player("White"),
                ..SideReport::default()
            },
            black: SideReport {
                player: player("Black"),
                ..SideReport::default()
            },
        };
        GameReport {
            index: 0,
            line: 1,
            tags,
            error: None,
            variant: Variant::Standard,
            start_fen: STANDARD_START_FEN.to_owned(),
            initial_comment: None,
            outcome: Some("*".to_owned()),
            plies,
            sides,
        }
    }

    pub(crate) fn report(mut games: Vec<GameReport>) -> Report {
        for (i, g) in games.iter_mut().enumerate() {
            g.index = i;
        }
        Report {
            schema: crate::report::SCHEMA,
            settings: Settings::default(),
            engine: EngineInfo::default(),
            games,
            players: Vec::new(),
            calibration: None,
            classifier: None,
            classifier_baseline: None,
            assessment: None,
            shard: None,
        }
    }

    /// The movetext of the only game, on one line.
    pub(crate) fn movetext(pgn: &str) -> String {
        let (_, text) = pgn.split_once("\n\n").expect("a tag section");
        text.trim_end().replace('\n', " ")
    }

    pub(crate) const NONE_ANALYSED: &str = "{White: no moves analysed} {Black: no moves analysed}";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_as_written_before_a_move() {
        assert_eq!(move_number(8, Side::White, "..."), "8.");
        assert_eq!(move_number(8, Side::Black, "..."), "8...");
        assert_eq!(move_number(8, Side::Black, "…"), "8…");
        assert_eq!(numbered_move(8, Side::White, "Nf3", false, "..."), "8. Nf3");
        assert_eq!(
            numbered_move(8, Side::Black, "Nc6", true, "..."),
            "8... Nc6"
        );
        assert_eq!(numbered_move(8, Side::Black, "Nc6", false, "..."), "Nc6");
    }
}
