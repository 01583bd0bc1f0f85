//! The shakmaty glue, each rule once: the castling mode of a variant, a FEN to a
//! position, UCI moves to SAN, and a score as pawns for the side to move.

use shakmaty::{CastlingMode, Chess, fen::Fen, san::SanPlus, uci::UciMove};

use crate::{
    eval,
    game::{Side, Variant},
    uci::Score,
};

/// How castling moves are written: king-takes-rook in Chess960.
pub fn castling_mode(variant: Variant) -> CastlingMode {
    match variant {
        Variant::Standard => CastlingMode::Standard,
        Variant::Chess960 => CastlingMode::Chess960,
    }
}

/// The position of a FEN in a variant, if the FEN is valid and legal.
pub fn position(fen: &str, variant: Variant) -> Option<Chess> {
    fen.parse::<Fen>()
        .ok()?
        .into_position::<Chess>(castling_mode(variant))
        .ok()
}

/// Replays UCI moves from a FEN into SAN, stopping at the first move that does not parse.
pub fn uci_line_to_san(fen: &str, variant: Variant, moves: &[String]) -> Vec<String> {
    let Some(mut pos) = position(fen, variant) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        let Ok(uci) = m.parse::<UciMove>() else { break };
        let Ok(mv) = uci.to_move(&pos) else { break };
        out.push(SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string());
    }
    out
}

/// A score (White's point of view) as pawns for `side`, mates as ±[`eval::MATE_CP`]
/// centipawns; not clamped.
pub fn mover_pawns(score: Score, side: Side) -> f64 {
    f64::from(score.with_sign(side.sign()).to_cp(eval::MATE_CP)) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pawns_are_the_movers_and_mates_count_as_ten() {
        assert_eq!(mover_pawns(Score::Cp(-150), Side::Black), 1.5);
        assert_eq!(mover_pawns(Score::Cp(-150), Side::White), -1.5);
        assert_eq!(mover_pawns(Score::Mate(3), Side::White), 10.0);
        assert_eq!(mover_pawns(Score::Mate(3), Side::Black), -10.0);
        assert_eq!(mover_pawns(Score::Mate(0), Side::White), -10.0);
    }

    #[test]
    fn chess960_positions_need_the_chess960_mode() {
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert!(position(fen, Variant::Chess960).is_some());
        assert!(position(fen, Variant::Standard).is_none());
        let start = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(
            uci_line_to_san(start, Variant::Standard, &["e1g1".to_owned()]),
            ["O-O"]
        );
        assert!(position("not a fen", Variant::Standard).is_none());
    }
}
