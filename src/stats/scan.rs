//! Intermittent assistance: the stretch of consecutive moves of one side of a game with
//! the most unusual engine agreement (a scan statistic).
//!
//! Each analysed move `i` has an indicator `x_i` (the played move was the engine's top
//! move) and a probability `p_i` of that under a model of the player (Regan's, with the
//! side's own fitted `(s, c)` over the game, so that easy positions with an obvious best
//! move count for little). For every window of at least [`MIN_MOVES`] consecutive
//! analysed moves, `z = Σ(x_i − p_i) / √Σ p_i(1 − p_i)`; the window with the largest `z`
//! is the stretch. Its own significance is the one-sided normal tail of `z`, multiplied by
//! the number of windows tried (Bonferroni: conservative, as the windows overlap).

use serde::{Deserialize, Serialize};

use crate::stats::regan;

/// The shortest stretch considered.
pub const MIN_MOVES: usize = 8;

/// One analysed move for the scan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanMove {
    /// Ply number.
    pub ply: u32,
    /// Whether the played move was the engine's top move.
    pub matched: bool,
    /// The model's probability of that.
    pub p: f64,
}

/// The most unusual stretch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stretch {
    /// First ply of the stretch.
    pub from_ply: u32,
    /// Last ply of the stretch.
    pub to_ply: u32,
    /// Analysed moves in it.
    pub moves: usize,
    /// Engine top-move matches in it.
    pub matches: usize,
    /// Matches the model expected.
    pub expected: f64,
    /// The stretch's z-score.
    pub z: f64,
    /// Its one-sided p-value times the number of windows tried (capped at 1).
    pub p_adjusted: f64,
    /// Windows tried.
    pub windows: usize,
}

/// Upper tail of the standard normal, `P(Z ≥ z)`.
pub fn normal_tail(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The stretch with the largest z among windows of at least [`MIN_MOVES`] moves, or
/// `None` with fewer moves.
pub fn scan(moves: &[ScanMove]) -> Option<Stretch> {
    let n = moves.len();
    if n < MIN_MOVES {
        return None;
    }
    // Prefix sums make every window O(1).
    let mut sx = vec![0.0; n + 1];
    let mut sp = vec![0.0; n + 1];
    let mut sv = vec![0.0; n + 1];
    for (i, m) in moves.iter().enumerate() {
        sx[i + 1] = sx[i] + f64::from(u8::from(m.matched));
        sp[i + 1] = sp[i] + m.p;
        sv[i + 1] = sv[i] + m.p * (1.0 - m.p);
    }
    let mut best: Option<(f64, usize, usize)> = None;
    let mut windows = 0;
    for a in 0..n {
        for b in a + MIN_MOVES..=n {
            windows += 1;
            let v = sv[b] - sv[a];
            if v <= 1e-12 {
                continue;
            }
            let z = (sx[b] - sx[a] - (sp[b] - sp[a])) / v.sqrt();
            if best.is_none_or(|(bz, _, _)| z > bz) {
                best = Some((z, a, b));
            }
        }
    }
    let (z, a, b) = best?;
    Some(Stretch {
        from_ply: moves[a].ply,
        to_ply: moves[b - 1].ply,
        moves: b - a,
        matches: (sx[b] - sx[a]).round() as usize,
        expected: sp[b] - sp[a],
        z,
        p_adjusted: (normal_tail(z) * windows as f64).min(1.0),
        windows,
    })
}

/// The side's most unusual stretch of engine agreement, against Regan's model with the
/// side's own fit over the game.
pub fn stretch(sample: &[regan::Tested]) -> Option<Stretch> {
    let fit = regan::fit(sample)?;
    let moves: Vec<ScanMove> = sample
        .iter()
        .map(|t| ScanMove {
            ply: t.at.1,
            matched: t.played == t.top,
            p: regan::probabilities(&t.deltas, fit.s, fit.c)[t.top],
        })
        .collect();
    scan(&moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pattern: &str, p: f64) -> Vec<ScanMove> {
        pattern
            .chars()
            .enumerate()
            .map(|(i, c)| ScanMove {
                ply: 2 * i as u32 + 1,
                matched: c == '1',
                p,
            })
            .collect()
    }

    #[test]
    fn normal_tail_values() {
        assert!((normal_tail(0.0) - 0.5).abs() < 1e-12);
        assert!((normal_tail(1.959_964) - 0.025).abs() < 1e-6);
        assert!((normal_tail(2.75) - 0.00298).abs() < 1e-5);
    }

    #[test]
    fn finds_the_stretch_of_agreement() {
        // Half the moves match at random, then 12 matches in a row, then random again.
        let m = moves("0101001010011111111111101001010010", 0.4);
        let s = scan(&m).unwrap();
        assert_eq!((s.from_ply, s.to_ply), (2 * 11 + 1, 2 * 22 + 1), "{s:?}");
        assert_eq!(s.matches, 12);
        assert_eq!(s.moves, 12);
        assert!((s.expected - 4.8).abs() < 1e-9);
        // z = (12 − 4.8) / √(12·0.24) = 4.24.
        assert!((s.z - 7.2 / (2.88f64).sqrt()).abs() < 1e-9);
        assert!(s.p_adjusted < 0.01, "{s:?}");
        let n = m.len();
        assert_eq!(s.windows, (1..=n - MIN_MOVES + 1).sum::<usize>());
    }

    #[test]
    fn ordinary_play_is_not_significant_and_short_games_are_skipped() {
        let s = scan(&moves("0100100101001001010010100100", 0.4)).unwrap();
        assert!(s.p_adjusted > 0.5, "{s:?}");
        assert_eq!(scan(&moves("1111111", 0.4)), None);
        // Certain moves (p = 1) carry no information.
        assert_eq!(scan(&moves("11111111", 1.0)), None);
    }
}
