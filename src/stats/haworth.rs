//! Haworth's Reference Fallible Player (seed 001, §3): an engine handicapped by a
//! competence `c` chooses move `j` with probability
//!
//! `q_j ∝ (κ + w_j)^(−c)`, `w_j = |v_1| + |v_1 − v_j|`, `κ = 1`,
//!
//! where `v_1 ≥ v_2 ≥ …` are the engine's values of the moves (pawns, mover's side). `c =
//! 0` plays at random; the larger `c`, the more surely the best move. Given a player's
//! moves, Bayes' rule over a grid of `c` (uniform prior on `0..=`[`C_MAX`]) gives the
//! posterior of the player's *apparent competence*: its mean and 90% credible interval,
//! and, move by move through a game, its trajectory (a sharp rise marks a stretch of
//! engine agreement).
//!
//! The moves considered are the engine's lines (MultiPV `L`) plus the played move when it
//! was not among them: the other legal moves are unknown beyond "worse than line `L`", so
//! this is the RFP restricted to the engine's candidates (as Regan's model is). Mates
//! count as ±[`CLAMP_PAWNS`].

use serde::{Deserialize, Serialize};

use crate::{game::Side, record::PlyReport, uci::Score};

/// κ in `(κ + w)^(−c)` (Haworth uses 1).
pub const KAPPA: f64 = 1.0;
/// The largest competence on the grid.
pub const C_MAX: f64 = 20.0;
/// Grid step.
pub const C_STEP: f64 = 0.1;
/// Values are clamped to ± this many pawns; mates count as this.
pub const CLAMP_PAWNS: f64 = 10.0;
/// The credible interval's mass.
pub const CREDIBLE: f64 = 0.9;

/// A score as pawns from the mover's side (`sign`: +1 White, −1 Black), clamped.
pub fn pawns(score: Score, sign: i32) -> f64 {
    let side = if sign < 0 { Side::Black } else { Side::White };
    crate::chess::mover_pawns(score, side).clamp(-CLAMP_PAWNS, CLAMP_PAWNS)
}

/// One decision: the candidate moves' values (pawns, mover's side, any order) and which
/// of them was played.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Ply number (for the trajectory).
    pub ply: u32,
    /// Values of the candidate moves.
    pub values: Vec<f64>,
    /// Index of the played move in `values`.
    pub played: usize,
}

/// `w_j = |v_1| + |v_1 − v_j|` for each value.
pub fn badness(values: &[f64]) -> Vec<f64> {
    let v1 = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    values.iter().map(|v| v1.abs() + (v1 - v).abs()).collect()
}

/// The RFP's move probabilities at competence `c` ([`Posterior::update`] works in their
/// logarithms; the tests check this form by hand).
#[cfg(test)]
pub fn probabilities(values: &[f64], c: f64) -> Vec<f64> {
    let w = badness(values);
    // Relative to the best move's weight, for range: (κ+w_j)^−c / (κ+w_1)^−c.
    let w1 = w.iter().copied().fold(f64::INFINITY, f64::min);
    let raw: Vec<f64> = w
        .iter()
        .map(|wj| libm::exp(-c * (libm::log(KAPPA + wj) - libm::log(KAPPA + w1))))
        .collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|r| r / total).collect()
}

/// The grid of competences.
pub fn grid() -> Vec<f64> {
    let per_unit = (1.0 / C_STEP).round();
    let n = (C_MAX * per_unit).round() as usize;
    (0..=n).map(|i| i as f64 / per_unit).collect()
}

/// The posterior over the grid, as log weights (unnormalised).
#[derive(Debug, Clone, PartialEq)]
pub struct Posterior {
    cs: Vec<f64>,
    log: Vec<f64>,
    moves: usize,
}

impl Default for Posterior {
    fn default() -> Self {
        let cs = grid();
        let log = vec![0.0; cs.len()];
        Posterior { cs, log, moves: 0 }
    }
}

impl Posterior {
    /// Bayes' update with one decision. Decisions with a single candidate or a bad index
    /// change nothing.
    pub fn update(&mut self, d: &Decision) {
        if d.values.len() < 2 || d.played >= d.values.len() {
            return;
        }
        // log q_played(c) = −c·L_p − log Σ_j exp(−c·L_j), L_j = ln(κ + w_j) − ln(κ + w_1).
        let w = badness(&d.values);
        let w1 = w.iter().copied().fold(f64::INFINITY, f64::min);
        let l: Vec<f64> = w
            .iter()
            .map(|wj| libm::log(KAPPA + wj) - libm::log(KAPPA + w1))
            .collect();
        for (c, acc) in self.cs.iter().zip(self.log.iter_mut()) {
            let total: f64 = l.iter().map(|lj| libm::exp(-c * lj)).sum();
            *acc += -c * l[d.played] - libm::log(total);
        }
        self.moves += 1;
    }

    /// Decisions that informed the posterior.
    pub fn moves(&self) -> usize {
        self.moves
    }

    /// The normalised posterior probabilities over [`grid`].
    pub fn probabilities(&self) -> Vec<f64> {
        let max = self.log.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = self.log.iter().map(|l| libm::exp(l - max)).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| x / total).collect()
    }

    /// Posterior mean of `c`.
    pub fn mean(&self) -> f64 {
        self.probabilities()
            .iter()
            .zip(&self.cs)
            .map(|(p, c)| p * c)
            .sum()
    }

    /// The central credible interval of mass `mass` (grid quantiles).
    pub fn credible(&self, mass: f64) -> (f64, f64) {
        let p = self.probabilities();
        let tail = (1.0 - mass) / 2.0;
        let quantile = |q: f64| {
            let mut acc = 0.0;
            for (pi, c) in p.iter().zip(&self.cs) {
                acc += pi;
                if acc >= q {
                    return *c;
                }
            }
            C_MAX
        };
        (quantile(tail), quantile(1.0 - tail))
    }
}

/// A player's apparent competence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Competence {
    /// Posterior mean of `c`.
    pub mean: f64,
    /// Lower end of the 90% credible interval.
    pub low: f64,
    /// Upper end of the 90% credible interval.
    pub high: f64,
    /// Moves used (with at least two candidates).
    pub moves: usize,
    /// After each move of a game: `[ply, posterior mean]` (per side of a game only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trajectory: Vec<(u32, f64)>,
}

/// The competence from decisions (in order), with the trajectory when `trace`; `None`
/// without any informative decision.
pub fn competence(decisions: &[Decision], trace: bool) -> Option<Competence> {
    let mut post = Posterior::default();
    let mut trajectory = Vec::new();
    for d in decisions {
        let before = post.moves();
        post.update(d);
        if trace && post.moves() > before {
            trajectory.push((d.ply, post.mean()));
        }
    }
    if post.moves() == 0 {
        return None;
    }
    let (low, high) = post.credible(CREDIBLE);
    Some(Competence {
        mean: post.mean(),
        low,
        high,
        moves: post.moves(),
        trajectory,
    })
}

/// A side's analysed moves as Haworth decisions: the engine's lines and, when it was not
/// among them, the played move searched alone.
pub fn decisions(plies: &[PlyReport], side: Side) -> Vec<Decision> {
    let sign = side.sign();
    plies
        .iter()
        .filter(|p| p.side == side && p.excluded.is_none() && p.searched)
        .filter_map(|p| {
            let (scores, played) = p.candidates()?;
            let values = scores.iter().map(|&s| pawns(s, sign)).collect();
            Some(Decision {
                ply: p.ply,
                values,
                played,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::stats::regan::tests_support::Rng;

    #[test]
    fn hand_worked_probabilities() {
        // v = (1, 0): w = (1, 2); at c = 1, q ∝ (1/2, 1/3) → (0.6, 0.4).
        let q = probabilities(&[1.0, 0.0], 1.0);
        assert!((q[0] - 0.6).abs() < 1e-12 && (q[1] - 0.4).abs() < 1e-12);
        // c = 0 plays at random; large c plays the best move.
        assert_eq!(probabilities(&[0.5, 0.2, -1.0], 0.0), vec![1.0 / 3.0; 3]);
        // w = (0.5, 0.8, 2.0): q_1 = 1 / (1 + (1.5/1.8)^20 + (1.5/3)^20) ≈ 0.974.
        assert!((probabilities(&[0.5, 0.2, -1.0], 20.0)[0] - 0.9745).abs() < 1e-3);
        // Order does not matter; sums to 1; the |v1| term flattens unbalanced positions.
        let q = probabilities(&[-1.0, 0.5, 0.2], 3.0);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(q[1] > q[2] && q[2] > q[0]);
        let level = probabilities(&[0.0, -0.5], 3.0)[0];
        let winning = probabilities(&[5.0, 4.5], 3.0)[0];
        assert!(
            level > winning,
            "a half-pawn gap matters less when far ahead"
        );
        assert_eq!(badness(&[2.0, -1.0]), vec![2.0, 5.0]);
    }

    #[test]
    fn the_update_is_the_log_of_the_probabilities() {
        let d = Decision {
            ply: 1,
            values: vec![0.3, -0.2, 0.1, -1.4],
            played: 2,
        };
        let mut post = Posterior::default();
        post.update(&d);
        for (i, c) in grid().iter().enumerate().step_by(17) {
            let want = libm::log(probabilities(&d.values, *c)[2]);
            assert!((post.log[i] - want).abs() < 1e-9, "c = {c}");
        }
    }

    #[test]
    fn scores_become_clamped_pawns_for_the_mover() {
        assert_eq!(pawns(Score::Cp(150), 1), 1.5);
        assert_eq!(pawns(Score::Cp(150), -1), -1.5);
        assert_eq!(pawns(Score::Cp(5000), 1), CLAMP_PAWNS);
        assert_eq!(
            pawns(Score::Mate(3), -1),
            -CLAMP_PAWNS,
            "White mates: bad for Black"
        );
        assert_eq!(pawns(Score::Mate(-2), -1), CLAMP_PAWNS);
    }

    /// xorshift64*: a fixed-seed generator for the simulations.
    fn simulate(c: f64, n: usize, seed: u64) -> Vec<Decision> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|i| {
                // Four candidates: a best value in ±2 pawns, others up to 1.5 pawns worse.
                let v1 = rng.next() * 4.0 - 2.0;
                let values: Vec<f64> = (0..4)
                    .map(|j| if j == 0 { v1 } else { v1 - rng.next() * 1.5 })
                    .collect();
                let played = rng.pick(&probabilities(&values, c));
                Decision {
                    ply: i as u32 + 1,
                    values,
                    played,
                }
            })
            .collect()
    }

    #[test]
    fn the_posterior_concentrates_on_the_true_competence() {
        for (true_c, seed) in [(2.0, 7), (6.0, 11)] {
            let d = simulate(true_c, 600, seed);
            let k = competence(&d, false).unwrap();
            assert_eq!(k.moves, 600);
            assert!(
                k.low <= true_c && true_c <= k.high,
                "c = {true_c}: 90% interval {}..{}",
                k.low,
                k.high
            );
            assert!((k.mean - true_c).abs() < 1.0, "mean {} vs {true_c}", k.mean);
            assert!(k.high - k.low < 3.0, "concentrated: {}..{}", k.low, k.high);
        }
        // More moves, narrower interval.
        let few = competence(&simulate(4.0, 40, 3), false).unwrap();
        let many = competence(&simulate(4.0, 800, 3), false).unwrap();
        assert!(many.high - many.low < few.high - few.low);
    }

    #[test]
    fn an_engine_stretch_shows_as_a_rise_in_the_trajectory() {
        // 40 human-like moves (c = 2), then 25 top moves in a row.
        let mut d = simulate(2.0, 40, 5);
        d.extend(simulate(2.0, 25, 9).into_iter().map(|mut x| {
            x.played = 0;
            x.ply += 40;
            x
        }));
        let k = competence(&d, true).unwrap();
        assert_eq!(k.trajectory.len(), 65);
        let at40 = k.trajectory[39].1;
        let at65 = k.trajectory[64].1;
        assert!(at65 > at40 + 1.0, "{at40} → {at65}");
        // Forced moves (one candidate) change nothing.
        let forced = Decision {
            ply: 1,
            values: vec![0.3],
            played: 0,
        };
        assert_eq!(competence(&[forced], true), None);
    }
}
