//! Movetext helpers shared by the pre-scan and the reader: pgn-reader's token ends, and a
//! promotion letter glued to a pawn move.

use pgn_reader::SanPlus;
use shakmaty::san::{San, Suffix};
use shakmaty::{Rank, Role};

/// Whether pgn-reader ends a token at this byte (mirrors `pgn_reader::reader`).
pub(super) fn is_token_end(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

/// A pawn move to the last rank followed directly by a promotion letter (`e8q`, `exd8Q`,
/// UCI's `e7e8q`): the move with that promotion, and how many bytes the letter (and a
/// check suffix) take.
pub(super) fn glued_promotion(san: SanPlus, tail: &[u8]) -> Option<(SanPlus, usize)> {
    let San::Normal {
        role: Role::Pawn,
        file,
        rank,
        capture,
        to,
        promotion: None,
    } = san.san
    else {
        return None;
    };
    if san.suffix.is_some() || !matches!(to.rank(), Rank::First | Rank::Eighth) {
        return None;
    }
    let promotion = match tail.first()?.to_ascii_lowercase() {
        b'q' => Role::Queen,
        b'r' => Role::Rook,
        b'b' => Role::Bishop,
        b'n' => Role::Knight,
        _ => return None,
    };
    let suffix = match tail.get(1) {
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Checkmate),
        _ => None,
    };
    let glued = 1 + usize::from(suffix.is_some());
    if tail.get(glued).is_some_and(|&c| !is_token_end(c)) {
        return None;
    }
    let san = San::Normal {
        role: Role::Pawn,
        file,
        rank,
        capture,
        to,
        promotion: Some(promotion),
    };
    Some((SanPlus { san, suffix }, glued))
}
