//! Imported games: the value types that PGN import produces and analysis consumes.
//!
//! A [`Game`] is fully validated: every ply was replayed legally with shakmaty, so later
//! stages never see an illegal move. Games that failed to import are [`ImportError`]s
//! instead, carrying enough context (game index, players, line, move) to be reported.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The chess variant of a game. Other variants are refused at import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum Variant {
    /// Standard chess (possibly from a `FEN` start).
    #[default]
    Standard,
    /// Chess960 / Fischer random (castling written king-takes-rook in UCI).
    Chess960,
}

/// Which side made a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Side {
    /// The white pieces.
    White,
    /// The black pieces.
    Black,
}

impl Side {
    /// `+1` for White, `-1` for Black: multiplies a White-POV score into the mover's POV.
    pub fn sign(self) -> i32 {
        match self {
            Side::White => 1,
            Side::Black => -1,
        }
    }

    /// The lower-case name used in reports (`"white"`, `"black"`).
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// Converts from shakmaty's colour.
    pub fn from_color(c: shakmaty::Color) -> Side {
        match c {
            shakmaty::Color::White => Side::White,
            shakmaty::Color::Black => Side::Black,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One half-move of a game's main line, validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ply {
    /// Absolute ply number: 1 is White's first move of a game from the standard start;
    /// from a FEN start it continues that position's move counter
    /// (`2 * (fullmove - 1) + (black to move) + 1`).
    pub ply: u32,
    /// Full-move number as printed in PGN.
    pub move_number: u32,
    /// The side that made the move.
    pub side: Side,
    /// The move in SAN with check/mate suffix, as shakmaty writes it.
    pub san: String,
    /// The move in UCI notation (Chess960 castling as king-takes-rook).
    pub uci: String,
    /// FEN of the position before the move (used as a cache key and for logs).
    pub fen_before: String,
    /// Number of legal moves in the position before the move.
    pub legal_moves: u32,
    /// Whether the position before this move had occurred before in the game
    /// (same placement, side, castling and en passant rights).
    pub repetition: bool,
    /// Comments that followed the move, verbatim (including `[%clk ...]` commands).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    /// NAGs that followed the move (`$1` .. `$255`; `!` is 1, `?` is 2, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<u8>,
    /// Clock after the move, seconds (`[%clk h:mm:ss]`).
    pub clock: Option<f64>,
    /// Seconds spent on the move: from `[%emt]`, or from consecutive `[%clk]` values
    /// and the `TimeControl` increment. Never negative.
    pub time_spent: Option<f64>,
    /// 1-based line in the input on which the move's SAN token stands.
    pub line: u32,
}

/// A game imported from PGN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Game {
    /// 0-based index of the game in its input (counting failed games too).
    pub index: usize,
    /// 1-based line of the input on which the game starts.
    pub line: u32,
    /// Tags in input order (`Event`, `White`, ... and any others).
    pub tags: Vec<(String, String)>,
    /// The variant.
    pub variant: Variant,
    /// FEN of the start position (the standard start unless `FEN` was given).
    pub start_fen: String,
    /// The main line, validated.
    pub plies: Vec<Ply>,
    /// Comment before the first move, if any.
    pub initial_comment: Option<String>,
    /// The result token from the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub outcome: Option<String>,
}

impl Game {
    /// The value of a tag, by case-sensitive name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The player of a side, from the `White`/`Black` tags (`"?"` when absent).
    pub fn player(&self, side: Side) -> &str {
        let name = match side {
            Side::White => "White",
            Side::Black => "Black",
        };
        self.tag(name).unwrap_or("?")
    }

    /// How messages name the game: `game 2 (Carol - Dave)`, numbered from 1 as the input
    /// counts them, as an import error names a game that failed.
    pub fn label(&self) -> String {
        game_label(
            self.index,
            self.player(Side::White),
            self.player(Side::Black),
        )
    }

    /// Whether the start position is the standard one (so UCI `startpos` may be used).
    pub fn is_standard_start(&self) -> bool {
        self.start_fen == STANDARD_START_FEN
    }
}

/// A game named in a message: `game 2 (Carol - Dave)` (`index` from 0).
fn game_label(index: usize, white: &str, black: &str) -> String {
    format!("game {} ({white} - {black})", index + 1)
}

/// The standard start position.
pub const STANDARD_START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Why a game could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ImportErrorKind {
    /// A SAN token that is not legal in the position (or malformed).
    IllegalMove {
        /// Full-move number.
        move_number: u32,
        /// Side to move.
        side: Side,
        /// The token as written.
        san: String,
        /// Why: "illegal", "ambiguous", "invalid syntax".
        reason: String,
    },
    /// The `FEN` tag could not be parsed or describes an impossible position.
    BadFen {
        /// The FEN as written.
        fen: String,
        /// Why.
        reason: String,
    },
    /// A variant other than standard chess and Chess960.
    UnsupportedVariant {
        /// The `Variant` tag as written.
        variant: String,
    },
    /// The input could not be read as PGN at all (e.g. not UTF-8 tags).
    Syntax {
        /// Why.
        reason: String,
    },
}

/// A game that failed to import, with the context needed to report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportError {
    /// 0-based index of the game in its input.
    pub index: usize,
    /// 1-based line of the offending token (or of the game start).
    pub line: u32,
    /// The game's tags as far as they were read.
    pub tags: Vec<(String, String)>,
    /// What went wrong.
    pub kind: ImportErrorKind,
}

impl ImportError {
    fn tag(&self, name: &str) -> &str {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("?")
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, line {}: ",
            game_label(self.index, self.tag("White"), self.tag("Black")),
            self.line
        )?;
        match &self.kind {
            ImportErrorKind::IllegalMove {
                move_number,
                side,
                san,
                reason,
            } => {
                let dots = if *side == Side::White { "." } else { "..." };
                write!(f, "{reason} move {move_number}{dots} {san}")
            }
            ImportErrorKind::BadFen { fen, reason } => write!(f, "bad FEN \"{fen}\": {reason}"),
            ImportErrorKind::UnsupportedVariant { variant } => {
                write!(
                    f,
                    "unsupported variant \"{variant}\" (only standard chess and Chess960)"
                )
            }
            ImportErrorKind::Syntax { reason } => write!(f, "{reason}"),
        }
    }
}

impl std::error::Error for ImportError {}
