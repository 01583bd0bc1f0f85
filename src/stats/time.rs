//! Time features, from the clock data the import keeps (`%clk` with the `TimeControl`
//! increment, or `%emt`): how long each move took, and how regular that was.
//!
//! Engine users often move in an even rhythm (the time to relay a move), whatever the
//! position; humans spend long on hard positions and little on easy ones. So, per side
//! of a game and per player: the mean, standard deviation and coefficient of variation
//! (CV = SD / mean) of the time spent, the lowest CV over any [`WINDOW`] consecutive moves
//! of a game, the number of fast moves, and the correlation of time spent with the number
//! of good alternatives (a proxy for how hard the position was).
//!
//! Moves counted: those with a time spent, except book, forced and early moves (played
//! from memory or without a choice). A time spent of 0 is a premove: counted as such and
//! left out of every other figure (it measures no thinking).

use serde::{Deserialize, Serialize};

use crate::{game::Side, plan::Exclusion, record::PlyReport};

/// Moves in the sliding window of the lowest-CV figure.
pub const WINDOW: usize = 14;

/// A move is fast when it took less than this many seconds (premoves aside).
pub const FAST_SECONDS: f64 = 2.0;

/// One timed move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedMove {
    /// Ply number (1-based), to point at the window.
    pub ply: u32,
    /// Seconds spent (increment already accounted for by the import).
    pub seconds: f64,
    /// Good alternatives in the position (`None` when it was not searched).
    pub alternatives: Option<u32>,
}

/// Time statistics of a set of moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeStats {
    /// Timed moves used (premoves excluded).
    pub moves: usize,
    /// Moves made in 0 s.
    pub premoves: usize,
    /// Mean seconds per move.
    pub mean: f64,
    /// Standard deviation (sample) of the seconds per move.
    pub sd: Option<f64>,
    /// Coefficient of variation, SD / mean.
    pub cv: Option<f64>,
    /// The lowest CV of any `WINDOW` consecutive timed moves within one game.
    pub min_window_cv: Option<f64>,
    /// Ply number where that window starts (in its game).
    pub min_window_ply: Option<u32>,
    /// Moves faster than `FAST_SECONDS`.
    pub fast_moves: usize,
    /// Pearson correlation of seconds spent with the number of good alternatives.
    pub difficulty_correlation: Option<f64>,
    /// Moves the correlation used.
    pub difficulty_moves: usize,
}

fn mean_sd(xs: &[f64]) -> (f64, Option<f64>) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.len() > 1).then(|| {
        let ss: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
        (ss / (n - 1.0)).sqrt()
    });
    (mean, sd)
}

fn cv(xs: &[f64]) -> Option<f64> {
    let (mean, sd) = mean_sd(xs);
    (mean > 0.0).then_some(sd? / mean)
}

/// Pearson's r, `None` with fewer than 3 pairs or no variance on either side.
pub fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let n = pairs.len() as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx).powi(2);
        syy += (y - my).powi(2);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The statistics of one or more games' timed moves (each inner list one game, in
/// order), or `None` when no move has a time.
pub fn time_stats(games: &[Vec<TimedMove>]) -> Option<TimeStats> {
    let all: Vec<&TimedMove> = games.iter().flatten().collect();
    if all.is_empty() {
        return None;
    }
    let premoves = all.iter().filter(|m| m.seconds <= 0.0).count();
    let thought: Vec<&TimedMove> = all.iter().copied().filter(|m| m.seconds > 0.0).collect();
    let secs: Vec<f64> = thought.iter().map(|m| m.seconds).collect();
    let (mean, sd) = if secs.is_empty() {
        (0.0, None)
    } else {
        mean_sd(&secs)
    };
    let mut best: Option<(f64, u32)> = None;
    for game in games {
        let g: Vec<&TimedMove> = game.iter().filter(|m| m.seconds > 0.0).collect();
        for w in g.windows(WINDOW) {
            let xs: Vec<f64> = w.iter().map(|m| m.seconds).collect();
            if let Some(c) = cv(&xs)
                && best.is_none_or(|(b, _)| c < b)
            {
                best = Some((c, w[0].ply));
            }
        }
    }
    let pairs: Vec<(f64, f64)> = thought
        .iter()
        .filter_map(|m| m.alternatives.map(|a| (m.seconds, f64::from(a))))
        .collect();
    Some(TimeStats {
        moves: secs.len(),
        premoves,
        mean,
        sd,
        cv: if secs.is_empty() { None } else { cv(&secs) },
        min_window_cv: best.map(|b| b.0),
        min_window_ply: best.map(|b| b.1),
        fast_moves: secs.iter().filter(|&&s| s < FAST_SECONDS).count(),
        difficulty_correlation: pearson(&pairs),
        difficulty_moves: pairs.len(),
    })
}

/// A side's timed moves for the time statistics (book, forced and early moves left out).
pub fn timed_moves(plies: &[PlyReport], side: Side) -> Vec<TimedMove> {
    plies
        .iter()
        .filter(|p| p.side == side)
        .filter(|p| {
            !matches!(
                p.excluded,
                Some(Exclusion::Book | Exclusion::Forced | Exclusion::Early)
            )
        })
        .filter_map(|p| {
            p.time_spent.map(|seconds| TimedMove {
                ply: p.ply,
                seconds,
                alternatives: p.features.alternatives,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(secs: &[f64]) -> Vec<TimedMove> {
        secs.iter()
            .enumerate()
            .map(|(i, &s)| TimedMove {
                ply: 2 * i as u32 + 1,
                seconds: s,
                alternatives: Some((i % 4) as u32 + 1),
            })
            .collect()
    }

    #[test]
    fn hand_worked_mean_sd_cv_premoves_and_fast_moves() {
        // 2, 4, 4, 4, 5, 5, 7, 9 has mean 5 and sample SD sqrt(32/7).
        let mut m = moves(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0, 0.0, 1.5]);
        m.pop(); // keep the premove, drop the 1.5
        let t = time_stats(&[m]).unwrap();
        assert_eq!(t.moves, 8);
        assert_eq!(t.premoves, 1);
        assert!((t.mean - 5.0).abs() < 1e-12);
        let sd = (32.0f64 / 7.0).sqrt();
        assert!((t.sd.unwrap() - sd).abs() < 1e-12);
        assert!((t.cv.unwrap() - sd / 5.0).abs() < 1e-12);
        assert_eq!(t.fast_moves, 0, "2 s is not under 2 s");
        assert_eq!(t.min_window_cv, None, "fewer than 14 moves");
        let t = time_stats(&[moves(&[1.0, 1.9, 3.0])]).unwrap();
        assert_eq!(t.fast_moves, 2);
        assert_eq!(time_stats(&[vec![]]), None);
        let only_premoves = time_stats(&[moves(&[0.0, 0.0])]).unwrap();
        assert_eq!((only_premoves.moves, only_premoves.premoves), (0, 2));
        assert_eq!(only_premoves.cv, None);
    }

    #[test]
    fn the_most_regular_window_is_found_within_a_game() {
        // Erratic moves, then 14 moves of 5-6 s: the regular stretch starts at move 6.
        let mut secs = vec![1.0, 30.0, 2.0, 45.0, 3.0];
        secs.extend((0..14).map(|i| 5.0 + f64::from(i % 2)));
        secs.extend([60.0, 1.0]);
        let t = time_stats(&[moves(&secs)]).unwrap();
        assert_eq!(t.min_window_ply, Some(11), "the 6th move of White: ply 11");
        let w: Vec<f64> = (0..14).map(|i| 5.0 + f64::from(i % 2)).collect();
        assert!((t.min_window_cv.unwrap() - cv(&w).unwrap()).abs() < 1e-12);
        assert!(t.min_window_cv.unwrap() < 0.1 && t.cv.unwrap() > 1.0);
        // Windows never straddle two games.
        let a = moves(&[5.0; 7]);
        let b = moves(&[5.0; 7]);
        assert_eq!(time_stats(&[a, b]).unwrap().min_window_cv, None);
    }

    #[test]
    fn correlation_with_difficulty() {
        assert_eq!(pearson(&[(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]), Some(1.0));
        assert!((pearson(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(
            pearson(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]),
            None,
            "no variance"
        );
        assert_eq!(pearson(&[(1.0, 1.0), (2.0, 2.0)]), None);
        // Spending more time when there are fewer good moves: negative correlation.
        let m: Vec<TimedMove> = [(30.0, 1), (20.0, 2), (10.0, 3), (5.0, 4), (25.0, 1)]
            .iter()
            .enumerate()
            .map(|(i, &(s, a))| TimedMove {
                ply: i as u32 + 1,
                seconds: s,
                alternatives: Some(a),
            })
            .collect();
        let t = time_stats(&[m]).unwrap();
        assert_eq!(t.difficulty_moves, 5);
        assert!(t.difficulty_correlation.unwrap() < -0.9);
    }
}
