//! The accuracy model: per side of a game and per player, from per-move features.
//!
//! ACPL, lichess-style accuracy, inaccuracy/mistake/blunder counts, engine top-move match
//! rate (with a Wilson interval), Guid-Bratko average error, and the fallback engine score
//! (match rate × accuracy; the report uses the move classifier's instead where it applies).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    eval,
    game::Side,
    plan::Exclusion,
    record::{
        PlyReport,
        features::{Judgement, MoveFeatures},
    },
    uci::Score,
};

/// Guid and Bratko leave out moves where both the best and the played evaluation are
/// beyond this many centipawns (the game was already decided either way).
pub const GUID_BRATKO_CAP_CP: i32 = 200;

/// A move as the accuracy model sees it: the features it reads, copied, so that a
/// player's moves can be pooled without keeping their games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Centipawn loss.
    pub cp_loss: Option<i32>,
    /// Inaccuracy, mistake or blunder.
    pub judgement: Option<Judgement>,
    /// The engine's first choice.
    pub is_best: bool,
    /// lichess move accuracy.
    pub accuracy: Option<f64>,
    /// The best line's score (White's point of view).
    pub eval: Option<Score>,
    /// The played move's score.
    pub played_eval: Option<Score>,
    /// The played move beat the engine's top line.
    pub better_than_engine: bool,
    /// The lichess volatility weight of the position before the move
    /// ([`eval::volatility_weights`]).
    pub weight: f64,
}

impl Sample {
    /// The sample of a move with these features and weight.
    pub fn of(features: &MoveFeatures, weight: f64) -> Sample {
        Sample {
            cp_loss: features.cp_loss,
            judgement: features.judgement,
            is_best: features.is_best,
            accuracy: features.accuracy,
            eval: features.eval,
            played_eval: features.played_eval,
            better_than_engine: features.better_than_engine,
            weight,
        }
    }
}

/// Statistics of one side of one game (or of one player over several games).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Accuracy {
    /// Moves the statistics are computed from.
    pub analysed_plies: usize,
    /// Moves left out, by reason.
    pub excluded: BTreeMap<Exclusion, usize>,
    /// Average centipawn loss.
    pub acpl: Option<f64>,
    /// Half-width of the ACPL's 95% interval.
    pub acpl_ci95: Option<f64>,
    /// lichess game accuracy (0..100).
    pub accuracy: Option<f64>,
    /// Moves with a win-% drop ≥ 5 (but < 10).
    pub inaccuracies: usize,
    /// Moves with a win-% drop ≥ 10 (but < 15).
    pub mistakes: usize,
    /// Moves with a win-% drop ≥ 15.
    pub blunders: usize,
    /// Share of moves that were the engine's first choice.
    pub match_rate: Option<f64>,
    /// Wilson 95% interval of the match rate.
    pub match_rate_ci95: Option<(f64, f64)>,
    /// Guid-Bratko average error in pawns (moves not decided on both sides).
    pub guid_bratko: Option<f64>,
    /// Moves the Guid-Bratko error used.
    pub guid_bratko_plies: usize,
    /// Moves where the played move beat the engine's top line when searched alone.
    pub better_than_engine: usize,
    /// How engine-like the play was, 0..1 (higher: more): `match rate × accuracy / 100`
    /// here; the report replaces it with the move classifier's mean probability when the
    /// shipped (or given) model applies to its settings.
    pub engine_score: Option<f64>,
}

/// Summarises moves: one side of a game, or every game of a player.
pub fn summarise(samples: &[Sample], excluded: BTreeMap<Exclusion, usize>) -> Accuracy {
    let usable: Vec<&Sample> = samples.iter().filter(|s| s.cp_loss.is_some()).collect();
    let n = usable.len();
    let losses: Vec<f64> = usable
        .iter()
        .filter_map(|s| s.cp_loss.map(f64::from))
        .collect();
    let (acpl, acpl_ci95) = match eval::mean_ci95(&losses) {
        Some((m, h)) => (Some(m), h.is_finite().then_some(h)),
        None => (None, None),
    };
    let count = |j: Judgement| usable.iter().filter(|s| s.judgement == Some(j)).count();
    let matches = usable.iter().filter(|s| s.is_best).count();
    let match_rate = (n > 0).then(|| matches as f64 / n as f64);
    let moves: Vec<(f64, f64)> = usable
        .iter()
        .filter_map(|s| s.accuracy.map(|a| (s.weight, a)))
        .collect();
    let accuracy = eval::game_accuracy(&moves);
    let gb: Vec<f64> = usable
        .iter()
        .filter_map(|s| {
            let (best, played) = (s.eval?, s.played_eval?);
            let (b, p) = (
                best.to_cp(eval::MATE_CP).abs(),
                played.to_cp(eval::MATE_CP).abs(),
            );
            let decided = b > GUID_BRATKO_CAP_CP && p > GUID_BRATKO_CAP_CP;
            let loss = s.cp_loss?;
            (!decided).then(|| f64::from(loss) / 100.0)
        })
        .collect();
    Accuracy {
        analysed_plies: n,
        excluded,
        acpl,
        acpl_ci95,
        accuracy,
        inaccuracies: count(Judgement::Inaccuracy),
        mistakes: count(Judgement::Mistake),
        blunders: count(Judgement::Blunder),
        match_rate,
        match_rate_ci95: eval::wilson95(matches, n),
        guid_bratko: (!gb.is_empty()).then(|| gb.iter().sum::<f64>() / gb.len() as f64),
        guid_bratko_plies: gb.len(),
        better_than_engine: usable.iter().filter(|s| s.better_than_engine).count(),
        engine_score: match (match_rate, accuracy) {
            (Some(m), Some(a)) => Some((m * a / 100.0).clamp(0.0, 1.0)),
            _ => None,
        },
    }
}

/// The volatility weights of a game's searched positions, by ply index.
pub fn weights(plies: &[PlyReport]) -> BTreeMap<usize, f64> {
    let searched: Vec<(usize, f64)> = plies
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.features.eval.map(|e| (i, eval::score_win_percent(e))))
        .collect();
    let wins: Vec<f64> = searched.iter().map(|s| s.1).collect();
    let w = eval::volatility_weights(&wins);
    searched.iter().map(|s| s.0).zip(w).collect()
}

/// A side's moves that count, with their volatility weights, and how many of its moves
/// were excluded, by reason.
pub fn samples(
    plies: &[PlyReport],
    weights: &BTreeMap<usize, f64>,
    side: Side,
) -> (Vec<Sample>, BTreeMap<Exclusion, usize>) {
    let mut samples = Vec::new();
    let mut excluded = BTreeMap::new();
    for (i, p) in plies.iter().enumerate().filter(|(_, p)| p.side == side) {
        if let Some(e) = p.excluded {
            *excluded.entry(e).or_insert(0) += 1;
        } else if p.searched {
            samples.push(Sample::of(
                &p.features,
                weights.get(&i).copied().unwrap_or(1.0),
            ));
        }
    }
    (samples, excluded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::Score;

    fn mv(loss: i32, best: bool, judgement: Option<Judgement>) -> MoveFeatures {
        MoveFeatures {
            cp_loss: Some(loss),
            is_best: best,
            judgement,
            eval: Some(Score::Cp(20)),
            played_eval: Some(Score::Cp(20 - loss)),
            accuracy: Some(if best { 100.0 } else { 60.0 }),
            ..MoveFeatures::default()
        }
    }

    #[test]
    fn summarises_a_side() {
        let f = [
            mv(0, true, None),
            mv(120, false, Some(Judgement::Mistake)),
            mv(0, true, None),
            mv(30, false, None),
        ];
        let samples: Vec<Sample> = f
            .iter()
            .enumerate()
            .map(|(i, features)| Sample::of(features, 1.0 + i as f64))
            .collect();
        let mut excl = BTreeMap::new();
        excl.insert(Exclusion::Forced, 1);
        let a = summarise(&samples, excl);
        assert_eq!(a.analysed_plies, 4);
        assert_eq!(a.acpl, Some(37.5));
        assert_eq!(a.mistakes, 1);
        assert_eq!(a.blunders, 0);
        assert_eq!(a.match_rate, Some(0.5));
        let (lo, hi) = a.match_rate_ci95.unwrap();
        assert!(lo < 0.5 && hi > 0.5);
        assert_eq!(a.guid_bratko_plies, 4);
        assert!((a.guid_bratko.unwrap() - 0.375).abs() < 1e-12);
        let acc = a.accuracy.unwrap();
        assert!(acc > 60.0 && acc < 100.0);
        let es = a.engine_score.unwrap();
        assert!((es - 0.5 * acc / 100.0).abs() < 1e-12);
        assert_eq!(a.excluded[&Exclusion::Forced], 1);
    }

    #[test]
    fn empty_side_has_no_numbers() {
        let a = summarise(&[], BTreeMap::new());
        assert_eq!(a.analysed_plies, 0);
        assert_eq!(a.acpl, None);
        assert_eq!(a.engine_score, None);
        assert_eq!(a.match_rate_ci95, None);
    }
}
