//! Step 3 of import: pgn-reader reads one game's tags, moves, comments and NAGs, and
//! every move is replayed with shakmaty.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::ControlFlow;

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist128;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::game::{Game, ImportError, ImportErrorKind, Ply, STANDARD_START_FEN, Side, Variant};

use super::{
    clocks::{command_arg, fill_time_spent, parse_clock},
    movetext::{MoveToken, scan_movetext},
    split::Segment,
};

/// Imports the game in `segment`; `None` when pgn-reader finds no game in it.
pub(super) fn import_segment(
    text: &[u8],
    segment: &Segment,
    index: usize,
) -> Option<Result<Game, ImportError>> {
    let slice = text.get(segment.start..segment.end)?;
    let body = segment.body_start.saturating_sub(segment.start);
    let scanned = scan_movetext(slice, body, segment.line);
    let mut importer = Importer {
        index,
        line: segment.line,
        moves: &scanned.moves,
        tags: Vec::new(),
    };
    // Buffers as large as the game keep every comment and tag in one piece.
    let len = scanned.reader_text.len();
    let mut reader = Reader::build(&*scanned.reader_text)
        .set_supported_tag_line_length(len)
        .set_supported_comment_length(len)
        .finish();
    match reader.read_game(&mut importer) {
        Ok(output) => output,
        Err(err) => Some(Err(ImportError {
            index,
            line: scanned.unterminated_comment.unwrap_or(segment.line),
            tags: importer.tags,
            kind: ImportErrorKind::Syntax {
                reason: err.to_string(),
            },
        })),
    }
}

/// Room for a FEN: the longest standard ones are under 90 bytes.
const FEN_CAPACITY: usize = 96;

/// The pgn-reader visitor for one game.
pub(super) struct Importer<'m> {
    pub(super) index: usize,
    /// Line where the game starts.
    pub(super) line: u32,
    /// The main-line moves as the scan found them (for lines and the text as written).
    pub(super) moves: &'m [MoveToken],
    /// The tags, kept for an error reported after pgn-reader gave up.
    pub(super) tags: Vec<(String, String)>,
}

/// How far ahead the scan's moves are searched when they disagree with pgn-reader's.
pub(super) const TOKEN_RESYNC_WINDOW: usize = 8;

impl<'m> Importer<'m> {
    /// The text and line of pgn-reader's next move, from the scan's tokens.
    pub(super) fn locate(&self, replay: &mut Replay, san: SanPlus) -> (Cow<'m, str>, u32) {
        let window = self
            .moves
            .iter()
            .enumerate()
            .skip(replay.next_token)
            .take(TOKEN_RESYNC_WINDOW);
        for (k, token) in window {
            if token.san == san {
                replay.next_token = k + 1;
                replay.last_line = token.line;
                return (Cow::Borrowed(token.text.as_str()), token.line);
            }
        }
        (Cow::Owned(san.to_string()), replay.last_line)
    }
}

impl Visitor for Importer<'_> {
    type Tags = Vec<(String, String)>;
    type Movetext = Replay;
    type Output = Result<Game, ImportError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        self.tags.clone_from(&tags);
        match Replay::new(tags, self.index, self.line) {
            Ok(replay) => ControlFlow::Continue(replay),
            Err(kind) => ControlFlow::Break(Err(ImportError {
                index: self.index,
                line: self.line,
                tags: std::mem::take(&mut self.tags),
                kind,
            })),
        }
    }

    fn san(&mut self, replay: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        let (text, line) = self.locate(replay, san);
        match replay.play(san, &text, line) {
            Ok(()) => ControlFlow::Continue(()),
            Err(kind) => ControlFlow::Break(Err(ImportError {
                index: self.index,
                line,
                tags: std::mem::take(&mut replay.game.tags),
                kind,
            })),
        }
    }

    fn nag(&mut self, replay: &mut Self::Movetext, nag: Nag) -> ControlFlow<Self::Output> {
        if let Some(ply) = replay.game.plies.last_mut()
            && nag.0 != 0
        {
            ply.nags.push(nag.0);
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        replay: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        replay.partial_comment.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        replay: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        if replay.partial_comment.is_empty() {
            replay.comment(String::from_utf8_lossy(comment.as_bytes()).trim());
        } else {
            let mut bytes = std::mem::take(&mut replay.partial_comment);
            bytes.extend_from_slice(comment.as_bytes());
            replay.comment(String::from_utf8_lossy(&bytes).trim());
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        replay: &mut Self::Movetext,
        outcome: Outcome,
    ) -> ControlFlow<Self::Output> {
        replay.game.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, replay: Self::Movetext) -> Self::Output {
        Ok(replay.finish())
    }
}

/// A game being replayed move by move.
pub(super) struct Replay {
    pub(super) game: Game,
    pub(super) pos: Chess,
    pub(super) castling: CastlingMode,
    /// Positions seen before the current one, by their 128-bit Zobrist hash (of the
    /// board, side to move, castling rights and legal en passant square).
    pub(super) seen: HashSet<Zobrist128>,
    /// Index of the next unmatched scan token.
    pub(super) next_token: usize,
    /// Line of the last located move (the game's line before the first).
    pub(super) last_line: u32,
    pub(super) partial_comment: Vec<u8>,
    pub(super) initial_comments: Vec<String>,
}

impl Replay {
    pub(super) fn new(
        tags: Vec<(String, String)>,
        index: usize,
        line: u32,
    ) -> Result<Replay, ImportErrorKind> {
        let tag = |name: &str| {
            tags.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let variant = match tag("Variant") {
            None => Variant::Standard,
            Some(name) => {
                variant_from_tag(name).ok_or_else(|| ImportErrorKind::UnsupportedVariant {
                    variant: name.to_owned(),
                })?
            }
        };
        let castling = crate::chess::castling_mode(variant);
        let (pos, start_fen) = match tag("FEN") {
            None => (Chess::default(), STANDARD_START_FEN.to_owned()),
            Some(fen) => {
                let bad = |reason: String| ImportErrorKind::BadFen {
                    fen: fen.to_owned(),
                    reason,
                };
                let pos: Chess = Fen::from_ascii(fen.trim().as_bytes())
                    .map_err(|err| bad(err.to_string()))?
                    .into_position(castling)
                    .map_err(|err| bad(err.to_string()))?;
                let start_fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                (pos, start_fen)
            }
        };
        Ok(Replay {
            game: Game {
                index,
                line,
                tags,
                variant,
                start_fen,
                plies: Vec::new(),
                initial_comment: None,
                outcome: None,
            },
            pos,
            castling,
            seen: HashSet::new(),
            next_token: 0,
            last_line: line,
            partial_comment: Vec::new(),
            initial_comments: Vec::new(),
        })
    }

    /// Plays one move; `text` is the token as written and `line` its line.
    pub(super) fn play(
        &mut self,
        san: SanPlus,
        text: &str,
        line: u32,
    ) -> Result<(), ImportErrorKind> {
        let turn = self.pos.turn();
        let move_number = self.pos.fullmoves().get();
        let m = match san.san.to_move(&self.pos) {
            Ok(m) => m,
            Err(err) => uci_move(text, &self.pos).ok_or_else(|| ImportErrorKind::IllegalMove {
                move_number,
                side: Side::from_color(turn),
                san: text.to_owned(),
                reason: match (err, san.san) {
                    (SanError::AmbiguousSan, _) => "ambiguous",
                    (SanError::IllegalSan, San::Null) => "null",
                    (SanError::IllegalSan, _) => "illegal",
                }
                .to_owned(),
            })?,
        };
        let mut fen_before = String::with_capacity(FEN_CAPACITY);
        Fen::from_position(&self.pos, EnPassantMode::Legal).append_to_string(&mut fen_before);
        // The position as a FEN without its move counters would be (board, turn,
        // castling rights, legal en passant square): what a repetition repeats.
        let repetition = !self
            .seen
            .insert(self.pos.zobrist_hash(EnPassantMode::Legal));
        let legal_moves = u32::try_from(self.pos.legal_moves().len()).unwrap_or(u32::MAX);
        let uci = UciMove::from_move(m, self.castling).to_string();
        let san = SanPlus::from_move_and_play_unchecked(&mut self.pos, m).to_string();
        let ply = move_number
            .saturating_sub(1)
            .saturating_mul(2)
            .saturating_add(u32::from(turn == Color::Black))
            .saturating_add(1);
        self.game.plies.push(Ply {
            ply,
            move_number,
            side: Side::from_color(turn),
            san,
            uci,
            fen_before,
            legal_moves,
            repetition,
            comments: Vec::new(),
            nags: Vec::new(),
            clock: None,
            time_spent: None,
            line,
        });
        Ok(())
    }

    pub(super) fn comment(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let Some(ply) = self.game.plies.last_mut() else {
            self.initial_comments.push(text.to_owned());
            return;
        };
        if let Some(clock) = command_arg(text, "clk").and_then(parse_clock) {
            ply.clock = Some(clock);
        }
        if let Some(spent) = command_arg(text, "emt").and_then(parse_clock) {
            ply.time_spent = Some(spent);
        }
        ply.comments.push(text.to_owned());
    }

    pub(super) fn finish(mut self) -> Game {
        if !self.initial_comments.is_empty() {
            self.game.initial_comment = Some(self.initial_comments.join(" "));
        }
        fill_time_spent(&mut self.game);
        self.game
    }
}

/// A move written in UCI notation (`g1f3`, `e1g1`, `e7e8q`), if legal here.
pub(super) fn uci_move(text: &str, pos: &Chess) -> Option<Move> {
    if !(4..=5).contains(&text.len()) {
        return None;
    }
    match UciMove::from_ascii(text.as_bytes()).ok()? {
        uci @ UciMove::Normal { .. } => uci.to_move(pos).ok(),
        _ => None,
    }
}

/// The variant named by a `Variant` tag, if supported.
pub(super) fn variant_from_tag(name: &str) -> Option<Variant> {
    let key: String = name
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "" | "standard" | "chess" | "fromposition" | "normal" => Some(Variant::Standard),
        "chess960" | "fischerandom" | "fischerrandom" | "frc" | "960" => Some(Variant::Chess960),
        _ => None,
    }
}
