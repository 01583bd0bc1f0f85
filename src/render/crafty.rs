//! A [`Report`] in Crafty's `annotate` format ([`crafty_annotate`]).
//!
//! ```
//! assert_eq!(fairsight::render::parse_move_range("20-33"), Ok((20, 33)));
//! ```

use std::fmt;

use crate::{
    game::Side,
    record::PlyReport,
    render::{
        SideFilter,
        pgn::{Movetext, pawns, result_token, tag_section},
    },
    report::{GameReport, Report},
    uci::Score,
};

/// The settings of [`crafty_annotate`] (Crafty's `annotate <colors|name> <moves> <margin>`).
#[derive(Debug, Clone, PartialEq)]
pub struct CraftyOptions {
    /// Whose moves to comment.
    pub side: SideFilter,
    /// Full-move numbers to comment, inclusive (see [`parse_move_range`]).
    pub moves: (u32, u32),
    /// Comment a move when the best move scores more than this many pawns above it
    /// (mover's side); a negative margin comments every selected move.
    pub margin_pawns: f64,
}

/// A game [`crafty_annotate`] could not annotate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CraftyError {
    /// The name filter matches both players of the game.
    NameMatchesBoth {
        /// 0-based index of the game in the input.
        game: usize,
        /// The name filter.
        name: String,
    },
}

impl fmt::Display for CraftyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CraftyError::NameMatchesBoth { game, name } => {
                write!(f, "game {}: name \"{name}\" matches both players", game + 1)
            }
        }
    }
}

impl std::error::Error for CraftyError {}

/// What [`crafty_output`] produced.
#[derive(Debug, Clone, PartialEq)]
pub struct CraftyOutput {
    /// The PGN text. A game in `errors` is written with its moves only and the error as
    /// its first comment (`{fairsight: game N: …}`).
    pub pgn: String,
    /// Games that could not be annotated.
    pub errors: Vec<CraftyError>,
    /// 0-based indices of the games left out because the name matches neither player.
    pub skipped: Vec<usize>,
}

/// The report in Crafty's annotate format (see [`crafty_output`]), as PGN text.
pub fn crafty_annotate(report: &Report, opts: &CraftyOptions) -> String {
    crafty_output(report, opts).pgn
}

/// The report in Crafty's annotate format: tags and moves, and after each selected move
/// whose best move beats it by more than the margin the comment
/// `{real_value (depth:best_value PV)}`, values in pawns from the mover's side.
/// Games that failed to import are left out.
pub fn crafty_output(report: &Report, opts: &CraftyOptions) -> CraftyOutput {
    let mut games = Vec::new();
    let mut errors = Vec::new();
    let mut skipped = Vec::new();
    for game in report.games.iter().filter(|g| g.error.is_none()) {
        let selected = match &opts.side {
            SideFilter::White => [true, false],
            SideFilter::Black => [false, true],
            SideFilter::Both => [true, true],
            SideFilter::Name(name) => {
                let has = |tag| game.tag(tag).is_some_and(|v| v.contains(name.as_str()));
                match [has("White"), has("Black")] {
                    [true, true] => {
                        let e = CraftyError::NameMatchesBoth {
                            game: game.index,
                            name: name.clone(),
                        };
                        games.push(crafty_game(game, opts, [false, false], Some(&e)));
                        errors.push(e);
                        continue;
                    }
                    [false, false] => {
                        skipped.push(game.index);
                        continue;
                    }
                    sides => sides,
                }
            }
        };
        games.push(crafty_game(game, opts, selected, None));
    }
    CraftyOutput {
        pgn: games.join("\n"),
        errors,
        skipped,
    }
}

/// `selected`: whether White's, Black's moves are commented.
fn crafty_game(
    game: &GameReport,
    opts: &CraftyOptions,
    selected: [bool; 2],
    error: Option<&CraftyError>,
) -> String {
    let mut out = tag_section(&game.tags);
    let mut text = Movetext::new();
    if let Some(e) = error {
        text.comment(&format!("fairsight: {e}"));
    }
    let (from, to) = opts.moves;
    for ply in &game.plies {
        text.san(ply.move_number, ply.side, &ply.san);
        let side_selected = match ply.side {
            Side::White => selected[0],
            Side::Black => selected[1],
        };
        if side_selected
            && (from..=to).contains(&ply.move_number)
            && let Some(c) = crafty_comment(ply, opts.margin_pawns)
        {
            text.comment(&c);
        }
    }
    text.token(result_token(game));
    out.push_str(&text.finish());
    out.push('\n');
    out
}

/// `real_value (depth:best_value PV)` when the best move beats the played one by more
/// than the margin (mates compared by [`Score::order_key`]: a shorter mate is better).
fn crafty_comment(ply: &PlyReport, margin_pawns: f64) -> Option<String> {
    let sign = ply.side.sign();
    let best = ply.features.eval?.with_sign(sign);
    let played = ply.features.played_eval?.with_sign(sign);
    let line = ply.lines.first()?;
    let drop_cp = (best.order_key() - played.order_key()) as f64;
    // Scores are whole centipawns: compare at that resolution (0.3 × 100 is not 30).
    if margin_pawns >= 0.0 && drop_cp <= (margin_pawns * 100.0).round() {
        return None;
    }
    let mut s = format!(
        "{} ({}:{}",
        crafty_value(played),
        line.depth,
        crafty_value(best)
    );
    for san in &line.pv_san {
        s.push(' ');
        s.push_str(san);
    }
    s.push(')');
    Some(s)
}

/// A mover's-side score as Crafty prints it: `+0.42`, `-0.35`, `Mate3`, `-Mate2`.
pub fn crafty_value(score: Score) -> String {
    match score {
        Score::Cp(cp) => {
            let sign = if cp < 0 { '-' } else { '+' };
            format!("{sign}{}", pawns(cp))
        }
        Score::Mate(m) if m > 0 => format!("Mate{m}"),
        Score::Mate(m) => format!("-Mate{}", m.unsigned_abs()),
    }
}

/// Parses Crafty's move range: `20-33` (inclusive), or `20` for move 20 to the end.
pub fn parse_move_range(s: &str) -> Result<(u32, u32), String> {
    let number = |t: &str| -> Result<u32, String> {
        let n: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("invalid move number \"{}\"", t.trim()))?;
        if n == 0 {
            return Err("move numbers start at 1".to_owned());
        }
        Ok(n)
    };
    match s.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("empty move range {a}-{b}"));
            }
            Ok((a, b))
        }
        None => Ok((number(s)?, u32::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::test_support::*;

    /// `1. e4 e5 2. Nf3 Nc6 3. Bb5 a6`, every ply searched. Drops for the mover (pawns):
    /// e4 0, e5 0.30, Nf3 0.60, Nc6 0, Bb5 mate missed, a6 mate allowed.
    fn crafty_game_report(white: &str, black: &str) -> GameReport {
        let mut ps = plies(1, Side::White, &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        search(&mut ps[0], Score::Cp(30), Score::Cp(30), &["e4", "e5"]);
        search(&mut ps[1], Score::Cp(30), Score::Cp(60), &["c5", "Nf3"]);
        search(&mut ps[2], Score::Cp(50), Score::Cp(-10), &["d4"]);
        search(&mut ps[3], Score::Cp(20), Score::Cp(20), &["Nc6"]);
        search(
            &mut ps[4],
            Score::Mate(3),
            Score::Cp(500),
            &["Qh5", "g6", "Qxf7#"],
        );
        search(&mut ps[5], Score::Cp(-120), Score::Mate(2), &["Nf6"]);
        game(&[("White", white), ("Black", black)], ps)
    }

    fn opts(side: &str, moves: &str, margin_pawns: f64) -> CraftyOptions {
        CraftyOptions {
            side: side.parse().unwrap(),
            moves: parse_move_range(moves).unwrap(),
            margin_pawns,
        }
    }

    /// The Crafty comments of the output, in order.
    fn comments(pgn: &str) -> Vec<String> {
        pgn.split('{')
            .skip(1)
            .map(|c| c.split_once('}').unwrap().0.to_owned())
            .collect()
    }

    #[test]
    fn crafty_comment_text_is_exact() {
        let r = report(vec![crafty_game_report("Anand, V", "Carlsen, M")]);
        let out = crafty_annotate(&r, &opts("wb", "1-999", 0.0));
        assert_eq!(
            out,
            "[White \"Anand, V\"]\n[Black \"Carlsen, M\"]\n[Annotator \"fairsight\"]\n\n\
             1. e4 e5 {-0.60 (14:-0.30 c5 Nf3)} 2. Nf3 {-0.10 (14:+0.50 d4)} 2... Nc6 3. Bb5\n\
             {+5.00 (14:Mate3 Qh5 g6 Qxf7#)} 3... a6 {-Mate2 (14:+1.20 Nf6)} *\n"
        );
        for (score, text) in [
            (Score::Cp(42), "+0.42"),
            (Score::Cp(-35), "-0.35"),
            (Score::Cp(0), "+0.00"),
            (Score::Mate(3), "Mate3"),
            (Score::Mate(-2), "-Mate2"),
        ] {
            assert_eq!(crafty_value(score), text);
        }
    }

    #[test]
    fn crafty_side_filters() {
        let r = report(vec![crafty_game_report("Anand, V", "Carlsen, M")]);
        let count = |side: &str| comments(&crafty_annotate(&r, &opts(side, "1", -1.0))).len();
        assert_eq!(count("w"), 3);
        assert_eq!(count("b"), 3);
        assert_eq!(count("wb"), 6);
        assert_eq!(count("bw"), 6);
        assert_eq!(count("Carlsen"), 3);
        let black = crafty_annotate(&r, &opts("Carlsen", "1", 0.0));
        assert_eq!(
            comments(&black),
            ["-0.60 (14:-0.30 c5 Nf3)", "-Mate2 (14:+1.20 Nf6)"]
        );

        // Case-sensitive: no match, the game is left out.
        let out = crafty_output(&r, &opts("carlsen", "1", 0.0));
        assert_eq!(out.pgn, "");
        assert_eq!(out.skipped, [0]);
        assert!(out.errors.is_empty());
    }

    #[test]
    fn crafty_name_in_both_players_is_a_game_error_not_a_failure() {
        let r = report(vec![
            crafty_game_report("Anand, V", "Carlsen, M"),
            crafty_game_report("Carlsen, M", "Caruana, F"),
            crafty_game_report("Kasparov, G", "Karpov, A"),
        ]);
        let out = crafty_output(&r, &opts(", ", "1", 0.0));
        assert_eq!(
            out.errors,
            [
                CraftyError::NameMatchesBoth {
                    game: 0,
                    name: ", ".to_owned()
                },
                CraftyError::NameMatchesBoth {
                    game: 1,
                    name: ", ".to_owned()
                },
                CraftyError::NameMatchesBoth {
                    game: 2,
                    name: ", ".to_owned()
                },
            ]
        );
        assert!(
            out.pgn
                .contains("\n\n{fairsight: game 2: name \", \" matches both players} 1. e4")
        );
        assert_eq!(
            comments(&out.pgn).len(),
            3,
            "only the errors: no move comments"
        );

        let out = crafty_output(&r, &opts("Carlsen", "1", 0.0));
        assert_eq!(out.errors.len(), 0);
        assert_eq!(out.skipped, [2]);
        let games: Vec<&str> = out.pgn.split("\n\n[").collect();
        assert_eq!(games.len(), 2);
        // Game 1: Carlsen is Black; game 2: White.
        assert_eq!(comments(games[0]).len(), 2);
        assert_eq!(
            comments(games[1]),
            ["-0.10 (14:+0.50 d4)", "+5.00 (14:Mate3 Qh5 g6 Qxf7#)"]
        );

        let out = crafty_output(&r, &opts("Car", "1", 0.0));
        assert_eq!(out.errors.len(), 1, "game 2 only");
        assert!(
            out.pgn
                .contains("{fairsight: game 2: name \"Car\" matches both players}")
        );
        assert_eq!(comments(&out.pgn).len(), 1 + 2, "game 1 still annotated");
    }

    #[test]
    fn crafty_move_range_and_margin() {
        let r = report(vec![crafty_game_report("A", "B")]);
        let texts = |moves: &str, margin: f64| -> Vec<String> {
            comments(&crafty_annotate(&r, &opts("wb", moves, margin)))
        };
        assert_eq!(
            texts("2-2", -1.0),
            ["-0.10 (14:+0.50 d4)", "-0.20 (14:-0.20 Nc6)"]
        );
        assert_eq!(texts("3", 0.0).len(), 2);
        assert_eq!(texts("1-1", 0.0), ["-0.60 (14:-0.30 c5 Nf3)"]);
        // Strictly more than the margin: the 0.60 drop needs a margin below 0.60.
        assert_eq!(texts("1-999", 0.6).len(), 2, "only the mates");
        assert_eq!(texts("1-999", 0.59).len(), 3);
        assert_eq!(texts("1-999", 0.5).len(), 3);
        assert_eq!(texts("1-999", 0.3).len(), 3);
        assert_eq!(texts("1-999", 0.29).len(), 4);
        // Negative: every selected move, even those that lost nothing.
        assert_eq!(texts("1-999", -0.01).len(), 6);
        assert_eq!(
            texts("1-999", 100.0).len(),
            2,
            "a missed mate beats any margin"
        );
        // Shorter mate missed for a longer one: a tiny drop (mate distances).
        let mut g = crafty_game_report("A", "B");
        search(&mut g.plies[4], Score::Mate(3), Score::Mate(5), &["Qh5"]);
        let r = report(vec![g]);
        let c = comments(&crafty_annotate(&r, &opts("w", "3-3", 0.0)));
        assert_eq!(c, ["Mate5 (14:Mate3 Qh5)"]);
        assert!(comments(&crafty_annotate(&r, &opts("w", "3-3", 0.1))).is_empty());
        // Unsearched plies have nothing to say.
        let r = report(vec![game(&[], plies(1, Side::White, &["e4", "e5"]))]);
        assert!(comments(&crafty_annotate(&r, &opts("wb", "1", -1.0))).is_empty());
    }

    #[test]
    fn parses_side_filters_and_move_ranges() {
        assert_eq!("w".parse(), Ok(SideFilter::White));
        assert_eq!("b".parse(), Ok(SideFilter::Black));
        assert_eq!("wb".parse(), Ok(SideFilter::Both));
        assert_eq!("bw".parse(), Ok(SideFilter::Both));
        assert_eq!("Karpov".parse(), Ok(SideFilter::Name("Karpov".to_owned())));
        assert!("".parse::<SideFilter>().is_err());

        assert_eq!(parse_move_range("20-33"), Ok((20, 33)));
        assert_eq!(parse_move_range("20"), Ok((20, u32::MAX)));
        assert_eq!(parse_move_range("1-999"), Ok((1, 999)));
        assert_eq!(parse_move_range("7-7"), Ok((7, 7)));
        assert_eq!(parse_move_range(" 3 - 5 "), Ok((3, 5)));
        for bad in [
            "33-20", "x", "1-y", "", "-5", "5-", "0", "0-3", "1-2-3", "2.5",
        ] {
            assert!(parse_move_range(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_move_range("33-20"),
            Err("empty move range 33-20".to_owned())
        );
    }
}
