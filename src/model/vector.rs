//! The move classifier's features (Burnham, seed 004 §3.12.2, and ours), each defined
//! once here from a game's analysed plies. Values are from the mover's side; pawns are
//! clamped to ±10 (mates count as ±10).
//!
//! Only **candidate** moves are classified: analysed moves (no exclusion) within
//! [`CANDIDATE_LOSS_CP`] of the engine's best, or better than it. As in Burnham's
//! detector, a clear mistake is human and says nothing about engine use; classifying only
//! good moves keeps the model from measuring mere strength.

use shakmaty::{Chess, Position, Role, uci::UciMove};

use crate::{
    chess, eval,
    game::{Side, Variant},
    record::{
        PlyReport,
        levels::{Levels, cubic_fit},
    },
    uci::Score,
};

/// A move is a candidate for the classifier when it loses at most this many centipawns
/// against the engine's best line (the "good alternative" margin of the review).
pub const CANDIDATE_LOSS_CP: i32 = 20;

/// Burnham's only-move threshold for tactic length (seed 004 §3.10): the best line at
/// least this many centipawns above the second.
pub const ONLY_MOVE_GAP_CP: i32 = 30;

/// The longest tactic counted.
pub const MAX_TACTIC: usize = 20;

/// Pawns clamp.
const PAWN_CLAMP: f64 = 10.0;

/// The names of the feature vector's entries, in order (the model file lists the ones
/// it uses by these names).
pub const FEATURE_NAMES: [&str; 20] = [
    "amplitude",
    "cubicC3",
    "cubicC2",
    "cubicC1",
    "cubicC0",
    "cubicResidual",
    "trend",
    "meanDeviation",
    "bestChanges",
    "positionEval",
    "gap2",
    "gap3",
    "gap4",
    "moveDistance",
    "white",
    "evalDrop",
    "betterThanEngine",
    "tacticLength",
    "mateRisk",
    "alternatives",
];

/// One candidate move's features.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveVector {
    /// Index of the ply in the game.
    pub ply_index: usize,
    /// Values in the order of [`FEATURE_NAMES`]:
    ///
    /// - `amplitude`: largest magnitude of the smoothed evaluation levels (pawns);
    /// - `cubicC3..cubicC0`, `cubicResidual`: least-squares cubic of the levels' shape
    ///   over depth scaled to 0..1, and its residual sum of squares;
    /// - `trend`: the levels' trend by the labelling rule (+1 ascending, −1 descending,
    ///   0 other);
    /// - `meanDeviation`: mean over depths of the played move's value minus the best
    ///   move's final value (pawns);
    /// - `bestChanges`: how often the engine's best move changed from depth to depth;
    /// - `positionEval`: the best line's value (pawns);
    /// - `gap2..gap4`: the best line's value minus lines 2, 3, 4 (pawns; 10 when the
    ///   line does not exist);
    /// - `moveDistance`: Burnham's string distance between the played and the best move
    ///   in UCI (sum of character code differences);
    /// - `white`: 1 for White's moves, 0 for Black's;
    /// - `evalDrop`: best line's value minus the played move's (pawns, negative when
    ///   better than the engine);
    /// - `betterThanEngine`: 1 when the played move, searched alone, beat the top line;
    /// - `tacticLength`: the consecutive only-moves (best ≥ 30 cp above the second line,
    ///   or a single legal move) from this ply on that the game followed (seed 004
    ///   §3.10, along the game instead of the engine's line);
    /// - `mateRisk`: in a forced-mate position, how much riskier (material given up,
    ///   softmax over the lines) the played mate was than the safest mating line, when it
    ///   was the faster one (seed 004 §3.9); else 0;
    /// - `alternatives`: lines within the good margin of the best.
    pub values: [f64; 20],
    /// Seconds spent relative to the side's mean in this game (`None` without clocks).
    /// Defined for the report; not a model input (clocks exist for online and engine
    /// games but not over-the-board ones: it would leak the data source).
    pub time_ratio: Option<f64>,
}

fn pawns(score: Score, side: Side) -> f64 {
    chess::mover_pawns(score, side).clamp(-PAWN_CLAMP, PAWN_CLAMP)
}

/// Whether a ply is a candidate for the classifier.
pub fn is_candidate(p: &PlyReport) -> bool {
    p.excluded.is_none()
        && p.searched
        && (p.features.better_than_engine
            || p.features.cp_loss.is_some_and(|l| l <= CANDIDATE_LOSS_CP))
}

/// Burnham's move-string distance: the sum of `|a_i − b_i|` over the characters the two
/// strings share positions for.
pub fn move_distance(a: &str, b: &str) -> f64 {
    a.bytes()
        .zip(b.bytes())
        .map(|(x, y)| f64::from((i32::from(x) - i32::from(y)).abs()))
        .sum()
}

/// Consecutive only-moves from ply `i` that the game followed.
pub fn tactic_length(plies: &[PlyReport], i: usize) -> usize {
    plies[i..]
        .iter()
        .take_while(|p| {
            use crate::plan::Exclusion;
            let forced = p.excluded == Some(Exclusion::Forced);
            let only = p
                .features
                .gaps
                .first()
                .is_some_and(|g| *g >= ONLY_MOVE_GAP_CP);
            forced || (p.searched && only && p.features.is_best)
        })
        .take(MAX_TACTIC)
        .count()
}

fn material(pos: &Chess, side: Side) -> f64 {
    let board = pos.board();
    let value = |r: Role| match r {
        Role::Pawn => 1.0,
        Role::Knight | Role::Bishop => 3.0,
        Role::Rook => 5.0,
        Role::Queen => 9.0,
        Role::King => 0.0,
    };
    let mut sum = 0.0;
    for sq in board.occupied() {
        if let Some(piece) = board.piece_at(sq) {
            let sign = if Side::from_color(piece.color) == side {
                1.0
            } else {
                -1.0
            };
            sum += sign * value(piece.role);
        }
    }
    sum
}

/// Seed 004 §3.9: when the mover has a forced mate, each line's risk is the softmax of
/// the material the mover gives up by the end of its PV; the feature is the played
/// line's risk minus the lowest risk of any mating line, when the played line is riskier
/// and mates faster than that safest line; else 0.
pub fn mate_risk(p: &PlyReport, variant: Variant) -> f64 {
    let side = p.side;
    let is_mate_for_mover = |s: Score| matches!(s.with_sign(side.sign()), Score::Mate(m) if m > 0);
    if !p.lines.first().is_some_and(|l| is_mate_for_mover(l.score)) {
        return 0.0;
    }
    let Some(start) = chess::position(&p.fen, variant) else {
        return 0.0;
    };
    let now = material(&start, side);
    let given: Vec<f64> = p
        .lines
        .iter()
        .map(|l| {
            let mut pos = start.clone();
            for m in &l.pv {
                let Some(mv) = m.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else {
                    break;
                };
                pos.play_unchecked(mv);
            }
            now - material(&pos, side)
        })
        .collect();
    let max = given.iter().copied().fold(f64::MIN, f64::max);
    let exp: Vec<f64> = given.iter().map(|g| libm::exp(g - max)).collect();
    let total: f64 = exp.iter().sum();
    let risk: Vec<f64> = exp.iter().map(|e| e / total).collect();
    let mates: Vec<(usize, i32)> = p
        .lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l.score.with_sign(side.sign()) {
            Score::Mate(m) if m > 0 => Some((i, m)),
            _ => None,
        })
        .collect();
    let Some(&(safest, safest_mate)) = mates.iter().min_by(|a, b| risk[a.0].total_cmp(&risk[b.0]))
    else {
        return 0.0;
    };
    let Some(&(played, played_mate)) = mates.iter().find(|(i, _)| p.lines[*i].uci == p.uci) else {
        return 0.0;
    };
    if risk[played] > risk[safest] && played_mate < safest_mate {
        risk[played] - risk[safest]
    } else {
        0.0
    }
}

/// The features of ply `i` of a game, or `None` when it is not a candidate or its
/// evaluation levels are unknown. `time_mean` is the side's mean seconds per timed move
/// in the game.
pub fn move_vector(
    plies: &[PlyReport],
    i: usize,
    variant: Variant,
    time_mean: Option<f64>,
) -> Option<MoveVector> {
    let p = plies.get(i)?;
    if !is_candidate(p) {
        return None;
    }
    let f = &p.features;
    let side = p.side;
    let best = f.eval?;
    let best_cp = best.with_sign(side.sign()).to_cp(eval::MATE_CP);
    let levels = Levels::new(&f.depth_evals, best_cp)?;
    let (cubic, rss) = cubic_fit(&levels.shape);
    let played = f.played_eval.map_or(pawns(best, side), |s| pawns(s, side));
    let gap = |k: usize| {
        f.gaps.get(k).map_or(PAWN_CLAMP, |g| {
            (f64::from(*g) / 100.0).clamp(-PAWN_CLAMP, PAWN_CLAMP)
        })
    };
    let values = [
        levels.amplitude,
        cubic[0],
        cubic[1],
        cubic[2],
        cubic[3],
        rss,
        levels.trend().value(),
        levels.mean_deviation(),
        f64::from(f.best_changes),
        pawns(best, side),
        gap(0),
        gap(1),
        gap(2),
        move_distance(&p.uci, f.best.as_deref().unwrap_or_default()),
        if side == Side::White { 1.0 } else { 0.0 },
        (pawns(best, side) - played).clamp(-PAWN_CLAMP, PAWN_CLAMP),
        if f.better_than_engine { 1.0 } else { 0.0 },
        tactic_length(plies, i) as f64,
        mate_risk(p, variant),
        f64::from(f.alternatives.unwrap_or(0)),
    ];
    Some(MoveVector {
        ply_index: i,
        values,
        time_ratio: p
            .time_spent
            .zip(time_mean)
            .and_then(|(t, m)| (m > 0.0).then_some(t / m)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        plan::Exclusion,
        record::features::{Line, MoveFeatures},
    };

    fn line(uci: &str, pv: &[&str], score: Score) -> Line {
        Line {
            multipv: 1,
            depth: 10,
            uci: uci.to_owned(),
            san: String::new(),
            score,
            pv_san: Vec::new(),
            pv: pv.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn ply(side: Side, uci: &str, features: MoveFeatures) -> PlyReport {
        PlyReport {
            ply: 1,
            move_number: 1,
            side,
            san: String::new(),
            uci: uci.to_owned(),
            fen: crate::game::STANDARD_START_FEN.to_owned(),
            excluded: None,
            searched: true,
            features,
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

    fn good(best: &str, gaps: Vec<i32>) -> MoveFeatures {
        MoveFeatures {
            best: Some(best.to_owned()),
            eval: Some(Score::Cp(40)),
            played_eval: Some(Score::Cp(40)),
            cp_loss: Some(0),
            is_best: true,
            gaps,
            alternatives: Some(1),
            depth_evals: vec![Some(-20), Some(10), Some(30), Some(40), Some(40)],
            best_changes: 2,
            ..MoveFeatures::default()
        }
    }

    #[test]
    fn a_best_move_vector_on_a_constructed_position() {
        let plies = vec![ply(Side::White, "g1f3", good("g1f3", vec![10, 35, 80]))];
        let v = move_vector(&plies, 0, Variant::Standard, None).unwrap();
        let get = |name: &str| v.values[FEATURE_NAMES.iter().position(|n| *n == name).unwrap()];
        assert!((get("positionEval") - 0.4).abs() < 1e-12);
        assert_eq!(get("evalDrop"), 0.0);
        assert_eq!(get("white"), 1.0);
        assert_eq!((get("gap2"), get("gap3"), get("gap4")), (0.1, 0.35, 0.8));
        assert_eq!(get("moveDistance"), 0.0);
        assert_eq!(get("bestChanges"), 2.0);
        assert_eq!(get("alternatives"), 1.0);
        assert_eq!(
            get("tacticLength"),
            0.0,
            "the second line is only 10 cp worse"
        );
        // Levels relative to the best final +0.4: −0.6, −0.3, −0.1, 0, 0 pawns.
        assert!(
            (get("meanDeviation") + 0.2).abs() < 1e-12,
            "{}",
            get("meanDeviation")
        );
        assert!(get("amplitude") > 0.2 && get("amplitude") <= 0.6);
        assert_eq!(
            get("trend"),
            1.0,
            "the engine came to like the move: ascending"
        );
        assert_eq!(v.time_ratio, None);

        // The same move for Black: White-POV scores flip to the mover's side.
        let mut f = good("g8f6", vec![10, 35, 80]);
        f.eval = Some(Score::Cp(-40));
        f.played_eval = Some(Score::Cp(-40));
        let plies = vec![ply(Side::Black, "g8f6", f)];
        let b = move_vector(&plies, 0, Variant::Standard, None).unwrap();
        assert_eq!(b.values[9], 0.4);
        assert_eq!(b.values[14], 0.0);
        assert_eq!(
            &b.values[..9],
            &v.values[..9],
            "same levels from the mover's side"
        );
    }

    #[test]
    fn candidates_tactics_distance_and_time() {
        let mut bad = good("e2e4", vec![50]);
        bad.cp_loss = Some(150);
        bad.is_best = false;
        let mut plies = vec![
            ply(Side::White, "d2d4", good("d2d4", vec![50])),
            ply(Side::Black, "e7e6", good("e7e6", vec![31])),
            ply(Side::White, "a2a3", bad),
        ];
        plies[0].time_spent = Some(30.0);
        assert!(
            move_vector(&plies, 2, Variant::Standard, None).is_none(),
            "a mistake"
        );
        assert_eq!(tactic_length(&plies, 0), 2);
        plies[1].excluded = Some(Exclusion::Forced);
        plies[1].searched = false;
        assert_eq!(
            tactic_length(&plies, 0),
            2,
            "a forced reply continues the tactic"
        );
        assert!(
            move_vector(&plies, 1, Variant::Standard, None).is_none(),
            "excluded"
        );
        let v = move_vector(&plies, 0, Variant::Standard, Some(20.0)).unwrap();
        assert_eq!(v.time_ratio, Some(1.5));
        assert_eq!(v.values[17], 2.0);
        // g1f3 vs b1c3: |g−b| + 0 + |f−c| + 0 = 5 + 3.
        assert_eq!(move_distance("g1f3", "b1c3"), 8.0);
        assert_eq!(move_distance("e7e8q", "e7e8"), 0.0);
    }

    #[test]
    fn mate_risk_prefers_the_safe_mate() {
        // Two mating lines, neither giving up material.
        let fen = "6k1/5ppp/8/8/8/8/5PPP/3QR1K1 w - - 0 1";
        let mut p = ply(Side::White, "d1d8", good("d1d8", vec![0]));
        p.fen = fen.to_owned();
        p.lines = vec![
            line("d1d8", &["d1d8"], Score::Mate(1)),
            line("e1e8", &["e1e8"], Score::Mate(2)),
        ];
        // Neither line gives up material: equal risks, nothing to report.
        assert_eq!(mate_risk(&p, Variant::Standard), 0.0);
        // A line that loses the queen (the PV ends with it captured) is riskier.
        let fen = "6k1/5ppp/8/8/8/8/r4PPP/3QR1K1 w - - 0 1";
        p.fen = fen.to_owned();
        p.uci = "d1a4".to_owned();
        p.lines = vec![
            line("d1a4", &["d1a4", "a2a4"], Score::Mate(2)),
            line("e1e8", &["e1e8"], Score::Mate(3)),
        ];
        let r = mate_risk(&p, Variant::Standard);
        assert!(
            r > 0.9,
            "played the faster mate that gives up the queen: {r}"
        );
        // Played the safe one: 0.
        p.uci = "e1e8".to_owned();
        assert_eq!(mate_risk(&p, Variant::Standard), 0.0);
        // No mate for the mover: 0.
        p.lines[0].score = Score::Cp(500);
        assert_eq!(mate_risk(&p, Variant::Standard), 0.0);
    }
}
