//! Step 3 of import: pgn-reader reads one game's tags, moves, comments and NAGs, and
//! every move is replayed with shakmaty.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist128;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position, Role};

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
    let text: &[u8] = &scanned.reader_text;
    let len = text.len();
    // pgn-reader asks for a window of that size before every token and, short of it,
    // moves what it holds to the front of its buffer: a copy of the rest of the game
    // per token. Blank lines and spaces after a text that ends its last line (outside a
    // comment) keep the window full: the movetext ends at the first blank line, as it
    // ends at the end of the text, and no search that starts in the text finds anything
    // else in them before the text's own last `\n`.
    let pad = scanned.unterminated_comment.is_none() && text.last() == Some(&b'\n');
    let blank_lines: &[u8] = if pad { b"\n\n\n" } else { b"" };
    let spaces = if pad { len.max(255) + 2 } else { 0 };
    let source = text
        .chain(blank_lines)
        .chain(io::repeat(b' ').take(u64::try_from(spaces).unwrap_or(0)));
    let mut reader = Reader::build(source)
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
            Ok(mut replay) => {
                replay.game.plies.reserve(self.moves.len());
                replay.seen.reserve(self.moves.len());
                ControlFlow::Continue(replay)
            }
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
    /// The number of legal moves in `pos`, when already counted.
    pub(super) legal_now: Option<u32>,
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
            legal_now: None,
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
        append_fen(&self.pos, &mut fen_before);
        // The position as a FEN without its move counters would be (board, turn,
        // castling rights, legal en passant square): what a repetition repeats.
        let repetition = !self
            .seen
            .insert(self.pos.zobrist_hash(EnPassantMode::Legal));
        // The count of the position before the move was made when the previous move was
        // played (for its check or mate suffix): legal moves are generated once a ply.
        let legal_moves = match self.legal_now.take() {
            Some(count) => count,
            None => count_legal(&self.pos),
        };
        let mut uci = String::with_capacity(5);
        UciMove::from_move(m, self.castling).append_to_string(&mut uci);
        let san_move = San::from_move(&self.pos, m);
        self.pos.play_unchecked(m);
        let legal_after = count_legal(&self.pos);
        self.legal_now = Some(legal_after);
        // As `Suffix::from_position`: mate when in check with no legal move (standard
        // chess has no other decisive outcome on the board).
        let suffix = if self.pos.checkers().any() {
            Some(if legal_after == 0 {
                Suffix::Checkmate
            } else {
                Suffix::Check
            })
        } else {
            None
        };
        let mut san = String::with_capacity(8);
        SanPlus {
            san: san_move,
            suffix,
        }
        .append_to_string(&mut san);
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

/// The number of legal moves in `pos`.
fn count_legal(pos: &Chess) -> u32 {
    u32::try_from(pos.legal_moves().len()).unwrap_or(u32::MAX)
}

/// Appends the FEN of `pos` (legal en passant square) to `out`: the text of shakmaty's
/// `Fen::from_position(pos, EnPassantMode::Legal)`, written without building a `Setup`
/// and square by square lookups (a FEN is written for every ply).
pub(super) fn append_fen(pos: &Chess, out: &mut String) {
    let board = pos.board();
    let mut mailbox = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            let c = u8::try_from(piece.char()).unwrap_or(b'?');
            for square in board.by_piece(piece) {
                if let Some(slot) = mailbox.get_mut(usize::from(square)) {
                    *slot = c;
                }
            }
        }
    }
    for (rank, squares) in mailbox.chunks_exact(8).enumerate().rev() {
        let mut empty = 0u8;
        for &c in squares {
            if c == 0 {
                empty += 1;
            } else {
                if empty > 0 {
                    out.push(char::from(b'0' + empty));
                    empty = 0;
                }
                out.push(char::from(c));
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push(' ');
    out.push(pos.turn().char());
    out.push(' ');
    // As shakmaty's `append_castling`.
    let castling_rights = pos.castles().castling_rights();
    let mut empty = true;
    for color in Color::ALL {
        let backrank = Bitboard::from(color.backrank());
        let king = board
            .king_of(color)
            .filter(|k| k.rank() == color.backrank());
        let candidates = board.by_piece(color.rook()) & backrank;
        for rook in (castling_rights & backrank).into_iter().rev() {
            out.push(
                if Some(rook) == candidates.first() && king.is_some_and(|k| rook < k) {
                    color.fold_wb('Q', 'q')
                } else if Some(rook) == candidates.last() && king.is_some_and(|k| k < rook) {
                    color.fold_wb('K', 'k')
                } else {
                    let file = rook.file();
                    color.fold_wb(file.char().to_ascii_uppercase(), file.char())
                },
            );
            empty = false;
        }
    }
    if empty {
        out.push('-');
    }
    out.push(' ');
    match pos.ep_square(EnPassantMode::Legal) {
        Some(square) => {
            out.push(square.file().char());
            out.push(square.rank().char());
        }
        None => out.push('-'),
    }
    out.push(' ');
    append_u32(out, pos.halfmoves());
    out.push(' ');
    append_u32(out, pos.fullmoves().get());
}

/// Appends `n` in decimal.
fn append_u32(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut len = 0;
    let mut rest = n;
    loop {
        if let Some(slot) = digits.get_mut(len) {
            *slot = b'0' + (rest % 10) as u8;
        }
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in digits.iter().take(len).rev() {
        out.push(char::from(d));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fen_writer_writes_what_shakmaty_writes() {
        // Every position of the fixtures' games (castling in Chess960, en passant, long
        // games), and positions from a FEN.
        let texts = [
            include_str!("../../tests/fixtures/chess960.pgn"),
            include_str!("../../tests/fixtures/defaults.pgn"),
            include_str!("../../tests/fixtures/fen-start.pgn"),
            include_str!("../../tests/fixtures/legal-trap.pgn"),
            include_str!("../../tests/fixtures/rated.pgn"),
            include_str!("../../tests/fixtures/selfplay.pgn"),
            "[FEN \"r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 12 40\"]\n\n1. exd6 O-O-O 2. O-O *\n",
            "[FEN \"4k3/8/8/8/3pP3/8/8/4K2R b K e3 0 1\"]\n\n1... Kd7 *\n",
        ];
        let mut positions = 0;
        for text in texts {
            for game in crate::pgn::import(text).into_iter().flatten() {
                let castling = crate::chess::castling_mode(game.variant);
                let mut pos: Chess = Fen::from_ascii(game.start_fen.as_bytes())
                    .expect("a FEN")
                    .into_position(castling)
                    .expect("a position");
                for ply in &game.plies {
                    let mut fen = String::new();
                    append_fen(&pos, &mut fen);
                    assert_eq!(
                        fen,
                        Fen::from_position(&pos, EnPassantMode::Legal).to_string()
                    );
                    assert_eq!(fen, ply.fen_before);
                    let m = UciMove::from_ascii(ply.uci.as_bytes())
                        .expect("UCI")
                        .to_move(&pos)
                        .expect("legal");
                    pos.play_unchecked(m);
                    positions += 1;
                }
            }
        }
        assert!(positions > 250, "{positions}");
    }
}
