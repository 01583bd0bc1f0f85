//! PGN import: turns PGN text into validated [`Game`]s, one game at a time.
//!
//! ```
//! let pgn = "[White \"Alice\"]\n[Black \"Bob\"]\n\n1. e4 { [%clk 0:05:00] } e5 2. Nf3 *\n";
//! let games = fairsight::pgn::import(pgn);
//! let game = games[0].as_ref().expect("a legal game");
//! assert_eq!(game.plies.len(), 3);
//! assert_eq!(game.plies[2].uci, "g1f3");
//! assert_eq!(game.plies[0].clock, Some(300.0));
//! ```
//!
//! How a text is read: one pass over each game (`read.rs`) reads its tags and movetext
//! as pgn-reader 0.29 would (the same tokenizer, copied) and finds where the game ends
//! as it goes, by the rules of the pre-scan (`split.rs`), checked at each line start:
//! a new game starts at a tag line (`[Name "value"]`) that follows movetext, so games
//! need no blank line between them; games without tags start at movetext on a line
//! after a result token, or at `1.` after a blank line. Comments (`{...}`, `;`) and
//! variations are followed, so a `[` or a result inside them starts nothing. Lines are
//! counted only up to the moves, and there are two relaxations of pgn-reader's rules:
//! blank lines inside the movetext do not end the game, and a move glued to an
//! annotation (`Nf3N`, `exd6e.p.`) is still read as a move. Every main-line move is
//! replayed with shakmaty as it is read, and the first illegal or ambiguous one ends
//! that game with an [`ImportError`] (`replay.rs`). The other games of the text are
//! unaffected. Clocks (`[%clk]`, `[%emt]`, `TimeControl`) are read in `clocks.rs`.
//!
//! The one pass vouches for games whose tags are whole lines and whose movetext starts
//! a line, that import without error (nearly every game written by a program); any
//! other game is cut by the pre-scan first and then read from its slice, which gives
//! the same games and errors (a test compares the two on every input at hand).
//!
//! A text held whole is read with [`games`] or [`import`]; a file or stdin with
//! [`Reader`], which reads it in blocks and holds only the game being imported
//! (`reader.rs`).
//!
//! Moves written in UCI notation (`g1f3`, `e1g1`, `e7e8q`) are accepted: pgn-reader reads
//! `g1f3` as a fully disambiguated pawn move, which shakmaty rejects, and import then
//! retries the token as a UCI move; a glued promotion letter (`e7e8q`, `exd8Q`) is read
//! as `=Q`. Null moves (`--`, `Z0`) end the game with an error, like illegal moves.
//! Only standard chess and Chess960 are accepted; other variants are refused by name.

mod clocks;
#[cfg(test)]
mod legacy;
mod movetext;
mod read;
mod reader;
mod replay;
mod split;

pub use clocks::{parse_clock, parse_time_control, strip_commands};
pub use reader::Reader;

use crate::game::{Game, ImportError};
use read::{Next, next_game};
use replay::Spare;

/// Iterates over the games of a PGN text, in order, lazily (one game parsed per `next`).
pub fn games(text: &str) -> Games<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Games {
        text,
        pos: 0,
        line: 1,
        index: 0,
        spare: Spare::default(),
    }
}

/// Where a reading of a PGN text stands: the next game's search starts at byte `pos`
/// (of the text without a leading byte-order mark), on 1-based line `line`, and that game
/// is number `index` (0-based). [`Games::mark`] gives it, [`games_from`] resumes there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mark {
    /// Byte offset in the text.
    pub pos: usize,
    /// 1-based line of `pos`.
    pub line: u32,
    /// Number of the next game (0-based).
    pub index: usize,
}

/// The games of `text` from `mark` on (a [`Games::mark`] of a reading of the same text),
/// numbered and placed as a reading from the start gives them, without reading the
/// games before. A mark past the text's end gives no game.
pub fn games_from(text: &str, mark: Mark) -> Games<'_> {
    let mut games = games(text);
    if mark.pos <= games.text.len() && games.text.is_char_boundary(mark.pos) {
        (games.pos, games.line, games.index) = (mark.pos, mark.line, mark.index);
    } else {
        games.pos = games.text.len();
    }
    games
}

/// Convenience: all games.
pub fn import(text: &str) -> Vec<Result<Game, ImportError>> {
    games(text).collect()
}

/// The games of a PGN text, from [`games`]: each a [`Game`] or the [`ImportError`] that
/// stopped it.
#[derive(Debug, Clone)]
pub struct Games<'a> {
    /// The text, without a leading byte-order mark.
    text: &'a str,
    /// Byte offset where the next game's search starts.
    pos: usize,
    /// 1-based line of `pos`.
    line: u32,
    /// Index of the next game.
    index: usize,
    /// Room kept from one game to the next.
    spare: Spare,
}

impl Games<'_> {
    /// Where this reading stands: [`games_from`] with it gives the games still to come.
    pub fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            line: self.line,
            index: self.index,
        }
    }
}

impl Iterator for Games<'_> {
    type Item = Result<Game, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match next_game(
                self.text,
                self.pos,
                self.line,
                true,
                self.index,
                &mut self.spare,
            ) {
                Next::Game(result, pos, line) => {
                    (self.pos, self.line) = (pos, line);
                    self.index += 1;
                    return Some(result);
                }
                Next::Skip(pos, line) => (self.pos, self.line) = (pos, line),
                Next::End | Next::NeedMore => {
                    self.pos = self.text.len();
                    return None;
                }
            }
        }
    }
}

impl std::iter::FusedIterator for Games<'_> {}

#[cfg(test)]
mod tests {
    use super::clocks::*;
    use super::*;
    use crate::game::{ImportErrorKind, STANDARD_START_FEN, Side, Variant};

    #[test]
    fn a_reading_resumes_at_a_mark_with_the_same_games_numbers_and_lines() {
        let text = "\u{feff}[White \"A\"]\n\n1. e4 e5 *\n\n[White \"B\"]\n\n1. e4 Ke7?? 2. Qh5 *\n\n\
                    [White \"C\"]\n\n1. d4 Kd8 2. Kf2 *\n\n[White \"D\"]\n\n1. c4 *\n";
        let all: Vec<_> = import(text);
        assert_eq!(all.len(), 4);
        assert!(
            all[2].is_err(),
            "Kf2 is illegal: an error, numbered and placed"
        );
        let mut reading = games(text);
        for k in 0..=all.len() {
            let rest: Vec<_> = games_from(text, reading.mark()).collect();
            assert_eq!(rest, all[k..], "from game {}", k + 1);
            reading.next();
        }
        // A mark out of the text, or inside a character, gives nothing (no panic).
        let bad = Mark {
            pos: text.len() + 5,
            line: 1,
            index: 0,
        };
        assert_eq!(games_from(text, bad).count(), 0);
        let inside = Mark {
            pos: 1,
            line: 1,
            index: 0,
        };
        assert_eq!(games_from("é[White \"A\"]\n\n1. e4 *", inside).count(), 0);
    }

    fn one(text: &str) -> Game {
        let mut all = import(text);
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0).expect("imports")
    }

    fn one_error(text: &str) -> ImportError {
        let mut all = import(text);
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0).expect_err("fails")
    }

    fn sans(game: &Game) -> Vec<&str> {
        game.plies.iter().map(|p| p.san.as_str()).collect()
    }

    #[test]
    fn reads_several_games_in_order() {
        let text = "[Event \"A\"]\n[White \"Alice\"]\n\n1. e4 e5 1-0\n\n\
                    [Event \"B\"]\n\n1. d4 d5 2. c4 0-1\n\n[Event \"C\"]\n\n1. Nf3 *\n";
        let games = import(text);
        assert_eq!(games.len(), 3);
        let games: Vec<Game> = games.into_iter().map(|g| g.expect("legal")).collect();
        assert_eq!(games[0].tag("Event"), Some("A"));
        assert_eq!(games[0].player(Side::White), "Alice");
        assert_eq!(games[0].outcome.as_deref(), Some("1-0"));
        assert_eq!(sans(&games[1]), ["d4", "d5", "c4"]);
        assert_eq!(games[1].outcome.as_deref(), Some("0-1"));
        assert_eq!(games[2].outcome.as_deref(), Some("*"));
        assert_eq!(
            games.iter().map(|g| (g.index, g.line)).collect::<Vec<_>>(),
            [(0, 1), (1, 6), (2, 10)]
        );
        assert!(games.iter().all(|g| g.variant == Variant::Standard));
        assert!(games.iter().all(Game::is_standard_start));
    }

    #[test]
    fn games_are_lazy() {
        let text = "[Event \"A\"]\n1. e4 *\n[Event \"B\"]\n1. e5 *\n[Event \"C\"]\n1. d4 *\n";
        let mut it = games(text);
        assert!(it.next().expect("first").is_ok());
        assert!(it.next().expect("second").is_err());
        assert_eq!(it.next().expect("third").expect("legal").index, 2);
        assert!(it.next().is_none());
    }

    #[test]
    fn empty_inputs_give_no_games() {
        assert!(import("").is_empty());
        assert!(import("\u{feff}").is_empty());
        assert!(import("  \n\r\n\t\n").is_empty());
        assert!(import("{ just a comment }\n% escaped line\n").is_empty());
    }

    #[test]
    fn ignores_byte_order_mark() {
        let game = one("\u{feff}[Event \"BOM\"]\n\n1. e4 *\n");
        assert_eq!(game.tags[0], ("Event".to_owned(), "BOM".to_owned()));
        assert_eq!(game.line, 1);
        assert_eq!(game.plies[0].line, 3);
    }

    #[test]
    fn crlf_without_blank_lines() {
        let text = "[Event \"A\"]\r\n[Result \"1-0\"]\r\n1. e4 e5 2. Qh5 Nc6\r\n3. Bc4 Nf6 4. Qxf7# 1-0\r\n\
                    [Event \"B\"]\r\n1. d4 d5 1/2-1/2\r\n[Event \"C\"]\r\n*\r\n";
        let games: Vec<Game> = import(text)
            .into_iter()
            .map(|g| g.expect("legal"))
            .collect();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].plies.len(), 7);
        assert_eq!(games[0].plies[6].san, "Qxf7#");
        assert_eq!(games[0].plies[6].line, 4);
        assert_eq!(games[1].line, 5);
        assert_eq!(games[1].tag("Event"), Some("B"));
        assert_eq!(games[1].plies[1].line, 6);
        assert_eq!(games[1].outcome.as_deref(), Some("1/2-1/2"));
        assert_eq!(games[2].line, 7);
        assert!(games[2].plies.is_empty());
    }

    #[test]
    fn empty_games_have_no_plies() {
        let games =
            import("[Event \"tags only\"]\n\n[Event \"result only\"]\n\n*\n\n[Event \"last\"]\n");
        let games: Vec<Game> = games.into_iter().map(|g| g.expect("imports")).collect();
        // Tags separated only by a blank line belong to the same game, as in pgn-reader.
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tags.len(), 2);
        assert!(games[0].plies.is_empty());
        assert_eq!(games[0].outcome.as_deref(), Some("*"));
        assert_eq!(games[1].tag("Event"), Some("last"));
        assert!(games[1].plies.is_empty());
        assert_eq!(games[1].line, 7);
    }

    #[test]
    fn game_without_tags() {
        let game = one("\n\n1. e4 e5 2. Nf3\n");
        assert!(game.tags.is_empty());
        assert_eq!(game.line, 3);
        assert_eq!(sans(&game), ["e4", "e5", "Nf3"]);
        assert_eq!(game.outcome, None);
    }

    #[test]
    fn fields_of_a_ply() {
        let game = one("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O *");
        let e4 = &game.plies[0];
        assert_eq!(
            (e4.ply, e4.move_number, e4.side, e4.uci.as_str()),
            (1, 1, Side::White, "e2e4")
        );
        assert_eq!(e4.fen_before, STANDARD_START_FEN);
        assert_eq!(e4.legal_moves, 20);
        assert!(!e4.repetition);
        assert_eq!((e4.clock, e4.time_spent), (None, None));
        let e5 = &game.plies[1];
        assert_eq!((e5.ply, e5.move_number, e5.side), (2, 1, Side::Black));
        // No legal en passant, so no ep square in the FEN.
        assert_eq!(
            e5.fen_before,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let castle = &game.plies[6];
        assert_eq!((castle.san.as_str(), castle.uci.as_str()), ("O-O", "e1g1"));
        assert_eq!(castle.ply, 7);
    }

    #[test]
    fn san_is_normalised() {
        let game = one("1. e4 f6 2. d4 g5 3. Qh5 *");
        assert_eq!(game.plies[4].san, "Qh5#");
        let game = one("1. Ng1f3 d5 2. e4 dxe4 3. Bc4 exf3 4. 0-0+?? *");
        assert_eq!(game.plies[0].san, "Nf3");
        assert_eq!(game.plies[6].san, "O-O");
        assert_eq!(game.plies[6].nags, [4]);
        // An error names the move as written.
        let err = one_error("1. Ng1f3 d5 2. e4 dxe4 3. 0-0-0 *");
        assert!(matches!(err.kind, ImportErrorKind::IllegalMove { ref san, .. } if san == "0-0-0"));
    }

    #[test]
    fn fen_start_with_black_to_move() {
        let text = "[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\"]\n\
                    [SetUp \"1\"]\n\n1... e5 2. Nf3 *\n";
        let game = one(text);
        assert_eq!(
            game.start_fen,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert!(!game.is_standard_start());
        let p: Vec<_> = game
            .plies
            .iter()
            .map(|p| (p.ply, p.move_number, p.side))
            .collect();
        assert_eq!(p, [(2, 1, Side::Black), (3, 2, Side::White)]);
        assert_eq!(game.plies[0].fen_before, game.start_fen);
    }

    #[test]
    fn fen_start_deep_in_a_game() {
        let game = one("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 40\"]\n\n40... Kd7 41. e4 *");
        assert_eq!((game.plies[0].ply, game.plies[0].move_number), (80, 40));
        assert_eq!((game.plies[1].ply, game.plies[1].move_number), (81, 41));
    }

    #[test]
    fn chess960_castling_is_king_takes_rook() {
        // X-FEN castling rights: `KQkq` are the outermost rooks.
        let text = "[Variant \"Chess960\"]\n[FEN \"rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1\"]\n\n\
                    1. O-O O-O-O *";
        let game = one(text);
        assert_eq!(game.variant, Variant::Chess960);
        assert_eq!(game.plies[0].uci, "b1h1");
        assert_eq!(game.plies[0].san, "O-O");
        assert_eq!(game.plies[1].uci, "b8a8");
        assert_eq!(game.plies[1].san, "O-O-O");
        assert_eq!(
            game.plies[1].fen_before,
            "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
        );
    }

    #[test]
    fn chess960_shredder_fen_and_variant_names() {
        let fen = "[FEN \"nrbbqknr/pppppppp/8/8/8/8/PPPPPPPP/NRBBQKNR w HBhb - 0 1\"]";
        for name in [
            "Chess960",
            "fischerandom",
            "Fischer Random",
            "FRC",
            "960",
            "chess 960",
        ] {
            let game = one(&format!("[Variant \"{name}\"]\n{fen}\n\n1. Nf3 *"));
            assert_eq!(game.variant, Variant::Chess960, "{name}");
            assert_eq!(game.start_fen.split(' ').nth(2), Some("KQkq"));
        }
        // Chess960 from the standard start: castling is still written king-takes-rook.
        let game = one("[Variant \"Chess960\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O *");
        assert_eq!(game.plies[6].uci, "e1h1");
        assert!(game.is_standard_start());
    }

    #[test]
    fn standard_variant_names() {
        for name in ["Standard", "chess", "From Position", "NORMAL", ""] {
            let game = one(&format!("[Variant \"{name}\"]\n\n1. e4 *"));
            assert_eq!(game.variant, Variant::Standard, "{name}");
        }
    }

    #[test]
    fn refuses_other_variants_by_name() {
        for name in [
            "Crazyhouse",
            "Antichess",
            "Atomic",
            "Horde",
            "King of the Hill",
            "Three-check",
            "Racing Kings",
        ] {
            let text =
                format!("[White \"Alice\"]\n[Black \"Bob\"]\n[Variant \"{name}\"]\n\n1. e4 *\n");
            let err = one_error(&text);
            assert_eq!(
                err.kind,
                ImportErrorKind::UnsupportedVariant {
                    variant: name.to_owned()
                }
            );
            assert_eq!(err.tags.len(), 3);
            assert!(err.to_string().contains(name), "{err}");
        }
        let err = one_error("[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. Nf3 Nc6 3. N@e6 *");
        assert_eq!(
            err.to_string(),
            "game 1 (? - ?), line 1: unsupported variant \"Crazyhouse\" (only standard chess and Chess960)"
        );
    }

    #[test]
    fn bad_fen() {
        let err = one_error("[White \"A\"]\n[FEN \"not a fen\"]\n\n1. e4 *");
        assert!(
            matches!(&err.kind, ImportErrorKind::BadFen { fen, reason } if fen == "not a fen" && reason.contains("fen")),
            "{err:?}"
        );
        assert_eq!(err.line, 1);
        // Two white kings: parses, but is not a legal position.
        let err = one_error("[FEN \"4k3/8/8/8/8/8/8/3KK3 w - - 0 1\"]\n\n1. Kc2 *");
        assert!(
            matches!(&err.kind, ImportErrorKind::BadFen { reason, .. } if reason.contains("too many kings")),
            "{err:?}"
        );
        // Castling rights without a rook are refused in standard chess.
        let err = one_error("[FEN \"4k3/8/8/8/8/8/8/4K3 w K - 0 1\"]\n\n1. Kd2 *");
        assert!(
            matches!(&err.kind, ImportErrorKind::BadFen { reason, .. } if reason.contains("castling")),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("game 1 (? - ?), line 1: bad FEN \"4k3/8/8/8/8/8/8/4K3 w K - 0 1\"")
        );
    }

    #[test]
    fn illegal_move_names_game_side_line_and_move() {
        let text = "[Event \"one\"]\n[White \"Carol\"]\n[Black \"Dan\"]\n\n1. e4 e5 *\n\n\
                    [Event \"two\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n\n\
                    1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6 4. Ba4 Nf6\n5. O-O Be7 6. Re1 b5 7. Bb3 d6\n\
                    8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7\n12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6\n\
                    15. Nxe5 Nxe5 16. Nf1 Nxe5 *\n\n[Event \"three\"]\n\n1. d4 *\n";
        let games = import(text);
        assert_eq!(games.len(), 3);
        assert!(games[0].is_ok());
        assert!(
            games[2]
                .as_ref()
                .is_ok_and(|g| g.index == 2 && g.plies.len() == 1)
        );
        let err = games[1].as_ref().expect_err("illegal");
        assert_eq!(err.index, 1);
        assert_eq!(err.line, 16);
        assert_eq!(
            err.kind,
            ImportErrorKind::IllegalMove {
                move_number: 16,
                side: Side::Black,
                san: "Nxe5".to_owned(),
                reason: "illegal".to_owned()
            }
        );
        assert_eq!(
            err.to_string(),
            "game 2 (Alice - Bob), line 16: illegal move 16... Nxe5"
        );

        let err = one_error("[White \"A\"]\n[Black \"B\"]\n\n1. e5 *");
        assert_eq!(
            err.to_string(),
            "game 1 (A - B), line 4: illegal move 1. e5"
        );
    }

    #[test]
    fn ambiguous_move() {
        let err = one_error("1. Nf3 d5 2. d4 e6 3. Nd2 *");
        assert!(matches!(
            &err.kind,
            ImportErrorKind::IllegalMove { move_number: 3, side: Side::White, san, reason }
                if san == "Nd2" && reason == "ambiguous"
        ));
        assert_eq!(
            err.to_string(),
            "game 1 (? - ?), line 1: ambiguous move 3. Nd2"
        );
    }

    #[test]
    fn null_and_drop_moves_are_illegal() {
        let err = one_error("1. e4 -- *");
        assert!(
            matches!(&err.kind, ImportErrorKind::IllegalMove { san, reason, .. } if san == "--" && reason == "null")
        );
        assert_eq!(
            one_error("1. e4 Z0 *").to_string(),
            "game 1 (? - ?), line 1: null move 1... Z0"
        );
        let err = one_error("1. e4 e5 2. N@f3 *");
        assert!(matches!(&err.kind, ImportErrorKind::IllegalMove { san, .. } if san == "N@f3"));
    }

    #[test]
    fn game_after_a_failed_game_still_imports() {
        let text = "[White \"x\"]\n1. e4 e4 *\n[White \"y\"]\n1. d4 d5 *\n[Variant \"Atomic\"]\n1. e4 *\n[White \"z\"]\n1. c4 *";
        let games = import(text);
        assert_eq!(games.len(), 4);
        assert!(games[0].is_err());
        assert_eq!(games[1].as_ref().map(|g| g.plies.len()), Ok(2));
        assert!(games[2].is_err());
        let last = games[3].as_ref().expect("legal");
        assert_eq!((last.index, last.line, last.plies[0].line), (3, 7, 8));
    }

    #[test]
    fn lines_survive_tricky_comments() {
        let text = "{ preamble [Event \"not a game\"]\n\
                    [Event \"still a comment\"] }\n\
                    [Event \"real\"]\n\
                    [Annotator \"a ; b { c\"]\n\
                    \n\
                    { a comment with\n\
                    [Event \"inside\"]\n\
                    on its own line } 1. e4 ; rest { of line\n\
                    e5 (1... c5 { (nested ) }\n\
                    2. Nf3 (2. c3)) 2. Nf3\n\
                    % escaped 3. d4 line\n\
                    Nc6 {\n\
                    } 3. Bb5 *\n";
        let game = one(text);
        assert_eq!(game.line, 3);
        assert_eq!(game.tags.len(), 2);
        assert_eq!(game.tag("Annotator"), Some("a ; b { c"));
        let lines: Vec<(&str, u32)> = game
            .plies
            .iter()
            .map(|p| (p.san.as_str(), p.line))
            .collect();
        assert_eq!(
            lines,
            [("e4", 8), ("e5", 9), ("Nf3", 10), ("Nc6", 12), ("Bb5", 13)]
        );
        assert_eq!(
            game.initial_comment.as_deref(),
            Some("a comment with\n[Event \"inside\"]\non its own line")
        );

        // The same game, then an illegal move: the error line is counted across comments.
        let err = one_error(&text.replace("3. Bb5", "3. Bb4"));
        assert_eq!(err.line, 13);
        assert_eq!(
            err.to_string(),
            "game 1 (? - ?), line 13: illegal move 3. Bb4"
        );
    }

    #[test]
    fn lines_after_a_game_with_tricky_comments() {
        let text = "[Event \"first\"]\n\n\
                    1. e4 { a note\n\
                    [Event \"fake\"]\n\
                    1. d4 } e5 ; 1-0 { not a result\n\
                    2. Nf3 (2. f4 { ( }\n\
                    1-0) *\n\
                    \n\
                    [Event \"second\"]\n\
                    { [Event \"fake\"] }\n\
                    1. d4\n\
                    d5 0-1\n";
        let games: Vec<Game> = import(text)
            .into_iter()
            .map(|g| g.expect("legal"))
            .collect();
        assert_eq!(games.len(), 2);
        assert_eq!(sans(&games[0]), ["e4", "e5", "Nf3"]);
        assert_eq!(
            games[0].plies[0].comments,
            ["a note\n[Event \"fake\"]\n1. d4"]
        );
        assert_eq!(games[1].line, 9);
        assert_eq!(games[1].tag("Event"), Some("second"));
        let lines: Vec<u32> = games[1].plies.iter().map(|p| p.line).collect();
        assert_eq!(lines, [11, 12]);
        assert_eq!(
            games[1].initial_comment.as_deref(),
            Some("[Event \"fake\"]")
        );
    }

    #[test]
    fn blank_lines_inside_movetext_do_not_split_the_game() {
        let text =
            "[Event \"A\"]\n\n1. e4 e5\n\n2. Nf3 (2. f4\n\nexf4)\n\n{ note }\n\n2... Nc6 *\n";
        let game = one(text);
        assert_eq!(sans(&game), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(game.plies[3].line, 11);
        assert_eq!(game.plies[2].comments, ["note"]);
    }

    #[test]
    fn comments_and_nags() {
        let text = "{ opening } { remarks } 1. e4 $1 { best by test } { second } e5?! 2. Nf3 !! $18 {}\n\
                    2... Nc6 (2... d6 { Philidor } $2) { after variation } *";
        let game = one(text);
        assert_eq!(game.initial_comment.as_deref(), Some("opening remarks"));
        assert_eq!(game.plies[0].comments, ["best by test", "second"]);
        assert_eq!(game.plies[0].nags, [1]);
        assert_eq!(game.plies[1].nags, [6]);
        assert_eq!(game.plies[2].nags, [3, 18]);
        assert!(game.plies[2].comments.is_empty());
        assert_eq!(game.plies[3].comments, ["after variation"]);
        assert!(game.plies[3].nags.is_empty());
    }

    #[test]
    fn variations_are_skipped() {
        let game = one("1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... c5 (1... e5 2. Nf3) 2. Nf3 *");
        assert_eq!(sans(&game), ["e4", "c5", "Nf3"]);
        // Illegal moves inside a variation do not matter.
        let game = one("1. e4 (1. Ke3 Kd5) e5 *");
        assert_eq!(sans(&game), ["e4", "e5"]);
    }

    #[test]
    fn clocks_and_increments() {
        let text = "[TimeControl \"60+1\"]\n\n\
                    1. e4 { [%clk 0:01:00] } 1... e5 { [%eval 0.2] [%clk 0:00:59.5] }\n\
                    2. Nf3 { [%clk 0:00:55] } 2... Nc6 { [%clk 0:00:40] }\n\
                    3. Bb5 3... a6 { [%clk 0:00:45] } 4. Ba4 { [%clk 0:00:56] } *";
        let game = one(text);
        let clocks: Vec<_> = game.plies.iter().map(|p| p.clock).collect();
        assert_eq!(
            clocks,
            [
                Some(60.0),
                Some(59.5),
                Some(55.0),
                Some(40.0),
                None,
                Some(45.0),
                Some(56.0)
            ]
        );
        let spent: Vec<_> = game.plies.iter().map(|p| p.time_spent).collect();
        assert_eq!(
            spent,
            [
                Some(1.0),  // 60 - 60 + 1
                Some(1.5),  // 60 - 59.5 + 1
                Some(6.0),  // 60 - 55 + 1
                Some(20.5), // 59.5 - 40 + 1
                None,       // no clock
                Some(0.0),  // 40 - 45 + 1, clamped
                None,       // the previous white clock is missing
            ]
        );
        assert_eq!(game.plies[1].comments, ["[%eval 0.2] [%clk 0:00:59.5]"]);
    }

    #[test]
    fn clocks_without_time_control() {
        let game =
            one("1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:02:58] } *");
        let spent: Vec<_> = game.plies.iter().map(|p| p.time_spent).collect();
        assert_eq!(spent, [None, None, Some(2.0)]);
    }

    #[test]
    fn elapsed_move_time() {
        let text = "[TimeControl \"300+2\"]\n\n1. e4 { [%emt 0:00:07] } e5 { [%emt 0:00:03.2] [%clk 0:04:59] } 2. Nf3 { [%clk 0:04:00] } *";
        let game = one(text);
        let spent: Vec<_> = game.plies.iter().map(|p| p.time_spent).collect();
        assert_eq!(spent, [Some(7.0), Some(3.2), None]);
        assert_eq!(game.plies[1].clock, Some(299.0));
    }

    #[test]
    fn repetition_flag() {
        let game = one("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *");
        let reps: Vec<bool> = game.plies.iter().map(|p| p.repetition).collect();
        assert_eq!(
            reps,
            [false, false, false, false, true, true, true, true, true]
        );
    }

    #[test]
    fn a_repetition_is_a_fen_seen_before_without_its_move_counters() {
        // Knights out and back (with and without castling rights lost), and an en
        // passant square that is legal once and then never again.
        let text = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 d5 6. e5 f5 7. Ke2 Kf7 \
                    8. Ke1 Ke8 9. Ke2 Kf7 10. Ke1 Ke8 *\n\n\
                    1. e4 Nf6 2. e5 d5 3. Nf3 Nc6 4. Ng1 Nb8 5. Nf3 Nc6 6. Ng1 Nb8 *";
        let sample = include_str!("../../samples/club-blitz.pgn");
        let mut checked = 0;
        for game in import(text)
            .into_iter()
            .chain(import(sample))
            .map(|g| g.expect("legal"))
        {
            let mut seen = std::collections::HashSet::new();
            for p in &game.plies {
                let key: Vec<&str> = p.fen_before.split(' ').take(4).collect();
                assert_eq!(p.repetition, !seen.insert(key), "ply {} {}", p.ply, p.san);
                checked += usize::from(p.repetition);
            }
        }
        assert!(checked >= 8, "{checked} repetitions");
    }

    #[test]
    fn repetition_needs_same_castling_rights() {
        // After Ke2 Ke7 Ke1 Ke8 the placement repeats, but castling rights were lost.
        let game = one("1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Ke2 Ke7 5. Ke1 *");
        let reps: Vec<bool> = game.plies.iter().map(|p| p.repetition).collect();
        assert_eq!(
            reps,
            [false, false, false, false, false, false, false, false, true]
        );
    }

    #[test]
    fn forced_move_has_one_legal_move() {
        let game = one("1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Kxf7 *");
        assert_eq!(game.plies[5].legal_moves, 1);
        assert_eq!(game.plies[4].san, "Qxf7+");
        assert!(game.plies[4].legal_moves > 1);
    }

    #[test]
    fn uci_notation_is_accepted() {
        let game = one("1. g1f3 c7c5 2. e2e4 b8c6 3. f1c4 g8f6 4. e1g1 e7e6 *");
        assert_eq!(
            sans(&game),
            ["Nf3", "c5", "e4", "Nc6", "Bc4", "Nf6", "O-O", "e6"]
        );
        assert_eq!(game.plies[6].uci, "e1g1");
        let game = one("[FEN \"8/4P3/8/8/8/8/k7/4K3 w - - 0 1\"]\n\n1. e7e8q Kb3 *");
        assert_eq!(game.plies[0].san, "e8=Q");
        let game = one("[FEN \"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1\"]\n\n1. exd8N+ *");
        assert_eq!(game.plies[0].san, "exd8=N");
        let err = one_error("1. e2e5 *");
        assert!(matches!(&err.kind, ImportErrorKind::IllegalMove { san, .. } if san == "e2e5"));
    }

    #[test]
    fn glued_annotations_do_not_drop_moves() {
        let game = one("1. e4 d5 2. e5 f5 3. exf6e.p. Nxf6 4. Nf3N *");
        assert_eq!(sans(&game), ["e4", "d5", "e5", "f5", "exf6", "Nxf6", "Nf3"]);
        assert_eq!(game.plies[4].uci, "e5f6");
    }

    #[test]
    fn unterminated_comment_is_a_syntax_error() {
        let err = one_error("[White \"A\"]\n\n1. e4 e5\n2. Nf3 { oops\n2... Nc6 *\n");
        assert!(
            matches!(&err.kind, ImportErrorKind::Syntax { reason } if reason.contains("comment"))
        );
        assert_eq!(err.line, 4);
        assert_eq!(err.tags.len(), 1);
    }

    #[test]
    fn long_comments_and_tags_stay_whole() {
        let long = "x".repeat(5000);
        let text = format!("[Annotator \"{long}\"]\n\n1. e4 {{ {long} }} *");
        let game = one(&text);
        assert_eq!(game.tag("Annotator"), Some(long.as_str()));
        assert_eq!(game.plies[0].comments, [long]);
    }

    #[test]
    fn tag_values_are_unescaped_and_kept_in_order() {
        let game =
            one("[Zeta \"1\"]\n[Alpha \"say \\\"hi\\\" \\\\ ok\"]\n[Event \"caf\u{e9}\"]\n\n*");
        let names: Vec<&str> = game.tags.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["Zeta", "Alpha", "Event"]);
        assert_eq!(game.tag("Alpha"), Some("say \"hi\" \\ ok"));
        assert_eq!(game.tag("Event"), Some("caf\u{e9}"));
    }

    #[test]
    fn parses_clocks() {
        assert_eq!(parse_clock("1:02:03"), Some(3723.0));
        assert_eq!(parse_clock("0:00:59.5"), Some(59.5));
        assert_eq!(parse_clock("12:34"), Some(754.0));
        assert_eq!(parse_clock(" 7 "), Some(7.0));
        for bad in [
            "",
            ":",
            "1::2",
            "a:b",
            "-1:00",
            "1:00:00:00",
            "inf",
            "1e3",
            "0:0.5:00",
            "1:2.3.4",
        ] {
            assert_eq!(parse_clock(bad), None, "{bad}");
        }
    }

    #[test]
    fn parses_time_controls() {
        assert_eq!(parse_time_control("300+3"), Some((300.0, 3.0)));
        assert_eq!(parse_time_control("60"), Some((60.0, 0.0)));
        assert_eq!(parse_time_control("10+0.05"), Some((10.0, 0.05)));
        assert_eq!(parse_time_control("40/7200:3600"), Some((7200.0, 0.0)));
        assert_eq!(
            parse_time_control("40/5400+30:1800+30"),
            Some((5400.0, 30.0))
        );
        for unknown in ["-", "?", "", "*180", "abc", "+3", "40/", "/60", "1+2+3"] {
            assert_eq!(parse_time_control(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn commands_in_comments() {
        assert_eq!(command_arg("[%clk 0:01:00]", "clk"), Some("0:01:00"));
        assert_eq!(command_arg("x [%clkx 1] [%clk  2 ] y", "clk"), Some("2"));
        assert_eq!(command_arg("[%clk", "clk"), None);
        assert_eq!(command_arg("[%clk 1:00", "clk"), Some("1:00"));
        assert_eq!(command_arg("clk 1", "clk"), None);
    }

    #[test]
    fn prescan_splits_at_tags_after_movetext() {
        let text = "[Event \"a\"] [Site \"b\"]\n1. e4 *\n[Event \"c\"]\n\n1. d4 1-0\n[Event \"d\"]";
        let games: Vec<Game> = import(text)
            .into_iter()
            .map(|g| g.expect("legal"))
            .collect();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].tags.len(), 2);
        assert_eq!(games[1].line, 3);
        assert_eq!(games[2].line, 6);
        // `[` lines inside the movetext that are no tags do not split the game.
        let game = one("1. e4\n[%clk 0:01:00]\ne5 *");
        assert_eq!(sans(&game), ["e4", "e5"]);
        assert_eq!(game.plies[1].line, 3);
    }

    #[test]
    fn prescan_splits_games_without_tags() {
        // A result ends a game; a blank line and `1.` after moves start a new one.
        let text = "[Event \"A\"]\n\n1. e4 e5 0-1\n{ trailing }\n\n1. d4 { c } d5 2. Nc3\n\n\
                    1. e4 { x } *\n1. c4 1/2-1/2 { after } ; end\n";
        let games: Vec<Game> = import(text)
            .into_iter()
            .map(|g| g.expect("legal"))
            .collect();
        let summary: Vec<(u32, Vec<&str>)> = games.iter().map(|g| (g.line, sans(g))).collect();
        assert_eq!(
            summary,
            [
                (1, vec!["e4", "e5"]),
                (6, vec!["d4", "d5", "Nc3"]),
                (8, vec!["e4"]),
                (9, vec!["c4"]),
            ]
        );
        assert_eq!(games[0].plies[1].comments, ["trailing"]);
        assert_eq!(games[3].plies[0].comments, ["after"]);
        // But a blank line before Black's move, or a result in a variation, ends nothing.
        let game = one("1. e4 { long\n\nnote }\n\n1... e5 (1... c5 1-0)\n2. Nf3 *");
        assert_eq!(sans(&game), ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn no_panic_on_odd_inputs() {
        let odd = [
            "[",
            "[E",
            "[E \"",
            "[E \"\\",
            "{",
            "}",
            "(",
            ")",
            ";",
            "%",
            "$",
            "$999",
            "1.",
            "0-",
            "1-",
            "1/2",
            "\u{bd}-",
            "e8",
            "e8q",
            "exd8Q+x",
            "O-O-O-O",
            "Z0",
            "[FEN \"\"]\n1. e4",
            "[Variant \"\"]",
            "1. e4 ((((",
            "1. e4 )))) e5",
            "\n\n\r\r\n[",
            "\u{2014}\u{2013}",
            "[FEN \"8/8/8/8/8/8/8/8 w - - 0 4294967295\"]",
            "[FEN \"k7/8/8/8/8/8/8/K7 w - - 0 4294967295\"]\n1. Kb1 Kb8 2. Ka1",
        ];
        for text in odd {
            let _ = import(text);
        }
    }
}
