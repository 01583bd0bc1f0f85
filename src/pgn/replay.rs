//! Every move of a game replayed with shakmaty: the fields of each ply (FEN, SAN, UCI,
//! legal moves, repetitions, clocks).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use pgn_reader::SanPlus;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist128;
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Piece, Position, Role,
};

use crate::game::{Game, ImportErrorKind, Ply, STANDARD_START_FEN, Side, Variant};

use super::clocks::{clock_commands, fill_time_spent, parse_clock};

/// Room for a FEN: the longest standard ones are under 90 bytes.
const FEN_CAPACITY: usize = 96;

/// A game being replayed move by move.
pub(super) struct Replay {
    pub(super) game: Game,
    pub(super) pos: Chess,
    pub(super) castling: CastlingMode,
    /// Positions seen before the current one, by their 128-bit Zobrist hash (of the
    /// board, side to move, castling rights and legal en passant square).
    pub(super) seen: HashSet<Zobrist128, BuildHasherDefault<ZobristHasher>>,
    pub(super) initial_comments: Vec<String>,
    /// The number of legal moves in `pos`, when already counted.
    pub(super) legal_now: Option<u32>,
}

impl Replay {
    /// The replay of a game with these tags; an unsupported variant or a bad FEN is
    /// returned with the tags.
    pub(super) fn new(
        tags: Vec<(String, String)>,
        index: usize,
        line: u32,
    ) -> Result<Replay, (ImportErrorKind, Vec<(String, String)>)> {
        match Replay::start(&tags) {
            Ok((variant, castling, pos, start_fen)) => Ok(Replay {
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
                seen: HashSet::default(),
                initial_comments: Vec::new(),
                legal_now: None,
            }),
            Err(kind) => Err((kind, tags)),
        }
    }

    /// The variant, castling mode, start position and its FEN that the tags set.
    fn start(
        tags: &[(String, String)],
    ) -> Result<(Variant, CastlingMode, Chess, String), ImportErrorKind> {
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
        Ok((variant, castling, pos, start_fen))
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
        // A piece move written without disambiguation that matched one legal move needs
        // none (the candidates to a square all capture or all do not): its SAN is
        // written without generating them again, as `San::from_move` would write it.
        let mut unique_piece_move = matches!(
            san.san,
            San::Normal { role, file: None, rank: None, .. } if role != Role::Pawn
        );
        let m = match san.san.to_move(&self.pos) {
            Ok(m) => m,
            Err(err) => uci_move(text, &self.pos)
                .inspect(|_| unique_piece_move = false)
                .ok_or_else(|| ImportErrorKind::IllegalMove {
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
        let san_move = if unique_piece_move {
            San::disambiguate(m, &MoveList::new())
        } else {
            San::from_move(&self.pos, m)
        };
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
        let (clk, emt) = clock_commands(text);
        if let Some(clock) = clk.and_then(parse_clock) {
            ply.clock = Some(clock);
        }
        if let Some(spent) = emt.and_then(parse_clock) {
            ply.time_spent = Some(spent);
        }
        if ply.comments.capacity() == 0 {
            ply.comments.reserve_exact(1);
        }
        ply.comments.push(text.to_owned());
    }

    /// As [`Replay::finish`], handing the repetition set back to `spare` (cleared) and
    /// reserving the next game's plies there now, while the allocator's bins are in the
    /// state the game's own allocations left them (reserving that room after the caller
    /// freed the game before made glibc's malloc sort all those freed chunks first).
    pub(super) fn finish_into(mut self, spare: &mut Spare) -> Game {
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        spare.seen = seen;
        let game = self.finish();
        if spare.plies.capacity() == 0 {
            spare.plies = Vec::with_capacity(PLIES_RESERVED);
        }
        game
    }

    pub(super) fn finish(mut self) -> Game {
        if !self.initial_comments.is_empty() {
            self.game.initial_comment = Some(self.initial_comments.join(" "));
        }
        fill_time_spent(&mut self.game);
        // Room reserved from the game's length and not used is given back.
        if self.game.plies.capacity() > self.game.plies.len() + self.game.plies.len() / 4 {
            self.game.plies.shrink_to_fit();
        }
        self.game
    }
}

/// Room the one-pass reader reserves for a game's plies before reading its moves.
pub(super) const PLIES_RESERVED: usize = 96;

/// Room kept from one game to the next: the plies of the next game, reserved, and the
/// repetition set (cleared).
#[derive(Debug, Clone, Default)]
pub(super) struct Spare {
    pub(super) plies: Vec<Ply>,
    pub(super) seen: HashSet<Zobrist128, BuildHasherDefault<ZobristHasher>>,
}

/// A hasher for Zobrist keys, which are uniformly random already: their bits folded
/// (the default SipHash cost more than the rest of a repetition check).
#[derive(Default)]
pub(super) struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            for (w, b) in word.iter_mut().zip(chunk) {
                *w = *b;
            }
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 ^= (n as u64) ^ ((n >> 64) as u64);
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
    let mut buf = FenBuf {
        bytes: [0; 128],
        len: 0,
    };
    write_fen(pos, &mut buf);
    out.push_str(
        std::str::from_utf8(buf.bytes.get(..buf.len).unwrap_or_default()).unwrap_or_default(),
    );
}

/// A FEN's bytes (at most 71 for the board, 28 for the rest).
struct FenBuf {
    bytes: [u8; 128],
    len: usize,
}

impl FenBuf {
    fn push(&mut self, c: char) {
        if let (Some(slot), Ok(b)) = (self.bytes.get_mut(self.len), u8::try_from(c)) {
            *slot = b;
            self.len += 1;
        }
    }
}

fn write_fen(pos: &Chess, out: &mut FenBuf) {
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
fn append_u32(out: &mut FenBuf, n: u32) {
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
