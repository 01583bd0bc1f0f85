//! Regan's model of move choice (Regan & Haworth 2011; seeds 000 and 003).
//!
//! In a position whose candidate moves have scaled differences `δ_i` from the best
//! (`δ = |F(v_best) − F(v_i)|`, `F(x) = sign(x)·ln(1+|x|)`, pawns, mover's side; see
//! `eval::regan_delta`), a player of *sensitivity* `s` and *consistency* `c`
//! chooses move `i` with probability `p_i` where
//!
//! `p_i = p_0^{r_i}`, `r_i = exp((δ_i / s)^c)`, and `Σ p_i = 1`
//!
//! (`p_0` is the best move's probability; `r_0 = 1`). Smaller `s` and larger `c` mean a
//! stronger player. From a sample of moves this module fits `(s, c)` by maximum
//! likelihood, with a likelihood-ratio confidence region, and projects the top-move match
//! (MM), equal-value match (EV) and average scaled difference (ASD) with their standard
//! deviations, so that observed values become z-scores. Against a player's own fit the
//! z-scores are ~0 by construction; the screening z-scores use the `(s, c)` of the
//! player's rating from a calibration table (to come).

use serde::{Deserialize, Serialize};

use crate::{eval, game::Side, record::PlyReport};

/// Moves within this scaled difference of the best count as equal-value (EV).
pub const EQUAL: f64 = 1e-9;

/// One tested move: the scaled differences of the candidate moves (the best has 0;
/// any order) and which was played.
#[derive(Debug, Clone, PartialEq)]
pub struct Tested {
    /// `δ_i` of each candidate.
    pub deltas: Vec<f64>,
    /// Index of the played move in `deltas`.
    pub played: usize,
    /// Index of the engine's first line in `deltas` (its top move).
    pub top: usize,
    /// Where the move was played: game index (0-based) and ply number, for reports.
    pub at: (usize, u32),
}

/// The model's probabilities of the candidates at `(s, c)`; they sum to 1.
pub fn probabilities(deltas: &[f64], s: f64, c: f64) -> Vec<f64> {
    if deltas.is_empty() {
        return Vec::new();
    }
    let mut r = Vec::with_capacity(deltas.len());
    let t = solve(deltas, s, c, &mut r);
    let p: Vec<f64> = r.iter().map(|ri| libm::exp(-t * ri)).collect();
    let total: f64 = p.iter().sum();
    p.iter().map(|x| x / total).collect()
}

/// Fills `r` with the exponents `r_i = exp((δ_i/s)^c)` and returns `t = −ln p0`, where
/// `Σ p0^{r_i} = 1` (the probability of candidate `i` is `exp(−t·r_i)`, normalised).
fn solve(deltas: &[f64], s: f64, c: f64, r: &mut Vec<f64>) -> f64 {
    r.clear();
    r.extend(
        deltas
            .iter()
            .map(|d| libm::exp(libm::pow(d.max(0.0) / s, c)).min(1e300)),
    );
    // Σ p0^{r_i} = 1 for p0 in (0, 1]. With t = −ln p0: g(t) = Σ exp(−t·r_i) − 1 is
    // convex and decreasing with g(0) = n − 1 ≥ 0, so Newton's method from t = 0 climbs
    // monotonically to the root.
    let mut t = 0.0f64;
    for _ in 0..100 {
        let (mut g, mut dg) = (-1.0, 0.0);
        for ri in r.iter() {
            let e = libm::exp(-t * ri);
            g += e;
            dg -= ri * e;
        }
        if g <= 1e-15 || dg == 0.0 {
            break;
        }
        let step = -g / dg;
        t += step;
        if step <= 1e-15 * t.max(1e-300) {
            break;
        }
    }
    t
}

/// Σ ln p_played over a sample. The same numbers as `probabilities(..)[played]`, bit for
/// bit, without building the whole distribution (this is the hot loop of every fit).
pub fn log_likelihood(sample: &[Tested], s: f64, c: f64) -> f64 {
    let mut r = Vec::new();
    sample
        .iter()
        .filter(|t| t.deltas.len() > 1 && t.played < t.deltas.len())
        .map(|t| {
            let root = solve(&t.deltas, s, c, &mut r);
            let total: f64 = r.iter().map(|ri| libm::exp(-root * ri)).sum();
            let played = libm::exp(-root * r[t.played]) / total;
            libm::log(played.max(1e-300))
        })
        .sum()
}

/// Projected and observed value of one test statistic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Projection {
    /// What the sample shows.
    pub observed: f64,
    /// What the model projects.
    pub projected: f64,
    /// Standard deviation of the projection.
    pub sd: f64,
    /// `(observed − projected) / sd` (`None` when `sd` is 0).
    pub z: Option<f64>,
}

impl Projection {
    fn new(observed: f64, projected: f64, sd: f64) -> Projection {
        Projection {
            observed,
            projected,
            sd,
            z: (sd > 0.0).then(|| (observed - projected) / sd),
        }
    }
}

/// MM, EV and ASD of a sample against `(s, c)`. MM and EV are rates (per move); ASD is
/// the mean δ of the played moves.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Projections {
    /// Top-move match rate.
    pub mm: Projection,
    /// Equal-value match rate (the played move as good as the best).
    pub ev: Projection,
    /// Average scaled difference of the played moves.
    pub asd: Projection,
}

/// Projects MM, EV and ASD for a sample at `(s, c)`; `None` for an empty sample.
pub fn project(sample: &[Tested], s: f64, c: f64) -> Option<Projections> {
    let usable: Vec<&Tested> = sample
        .iter()
        .filter(|t| t.deltas.len() > 1 && t.played < t.deltas.len() && t.top < t.deltas.len())
        .collect();
    let n = usable.len() as f64;
    if usable.is_empty() {
        return None;
    }
    let (mut mm, mut mm_var, mut ev, mut ev_var, mut asd, mut asd_var) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut mm_obs, mut ev_obs, mut asd_obs) = (0.0, 0.0, 0.0);
    for t in &usable {
        let p = probabilities(&t.deltas, s, c);
        let top = p[t.top];
        mm += top;
        mm_var += top * (1.0 - top);
        let eq: f64 = p
            .iter()
            .zip(&t.deltas)
            .filter(|(_, d)| **d <= EQUAL)
            .map(|(pi, _)| pi)
            .sum();
        ev += eq;
        ev_var += eq * (1.0 - eq);
        let mean: f64 = p.iter().zip(&t.deltas).map(|(pi, d)| pi * d).sum();
        let second: f64 = p.iter().zip(&t.deltas).map(|(pi, d)| pi * d * d).sum();
        asd += mean;
        asd_var += (second - mean * mean).max(0.0);
        mm_obs += f64::from(u8::from(t.played == t.top));
        ev_obs += f64::from(u8::from(t.deltas[t.played] <= EQUAL));
        asd_obs += t.deltas[t.played];
    }
    Some(Projections {
        mm: Projection::new(mm_obs / n, mm / n, mm_var.sqrt() / n),
        ev: Projection::new(ev_obs / n, ev / n, ev_var.sqrt() / n),
        asd: Projection::new(asd_obs / n, asd / n, asd_var.sqrt() / n),
    })
}

/// The maximum-likelihood `(s, c)` of a sample, with the likelihood-ratio 95% region's
/// extent (points within 3.0 log-likelihood units of the maximum: χ²₂(0.95) / 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    /// Sensitivity.
    pub s: f64,
    /// Consistency.
    pub c: f64,
    /// The region's range of `s`.
    pub s_range: (f64, f64),
    /// The region's range of `c`.
    pub c_range: (f64, f64),
    /// Moves used.
    pub moves: usize,
    /// MM, EV and ASD against the fit itself (z ≈ 0 by construction; a check of fit).
    pub projections: Projections,
}

/// The search box of the fit.
pub const S_RANGE: (f64, f64) = (0.005, 10.0);
/// The search box of the fit.
pub const C_RANGE: (f64, f64) = (0.1, 6.0);
const REGION: f64 = 3.0;

fn grid(range: (f64, f64), n: usize, log: bool) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let f = i as f64 / (n - 1) as f64;
            if log {
                libm::exp(libm::log(range.0) + f * (libm::log(range.1) - libm::log(range.0)))
            } else {
                range.0 + f * (range.1 - range.0)
            }
        })
        .collect()
}

/// Fits `(s, c)` by maximum likelihood (a coarse grid, then two finer grids around the
/// best point). `None` when no move has two candidates.
pub fn fit(sample: &[Tested]) -> Option<Fit> {
    let usable: Vec<Tested> = sample
        .iter()
        .filter(|t| t.deltas.len() > 1 && t.played < t.deltas.len() && t.top < t.deltas.len())
        .cloned()
        .collect();
    if usable.is_empty() {
        return None;
    }
    let mut points: Vec<(f64, f64, f64)> = Vec::new();
    let eval = |s: f64, c: f64| log_likelihood(&usable, s, c);
    for s in grid(S_RANGE, 24, true) {
        for c in grid(C_RANGE, 18, false) {
            points.push((s, c, eval(s, c)));
        }
    }
    let mut best = *points
        .iter()
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .expect("non-empty grid");
    let (mut ds, mut dc) = (1.6f64, 0.5f64);
    for _ in 0..3 {
        let s_box = ((best.0 / ds).max(S_RANGE.0), (best.0 * ds).min(S_RANGE.1));
        let c_box = ((best.1 - dc).max(C_RANGE.0), (best.1 + dc).min(C_RANGE.1));
        for s in grid(s_box, 9, true) {
            for c in grid(c_box, 9, false) {
                let p = (s, c, eval(s, c));
                if p.2 > best.2 {
                    best = p;
                }
                points.push(p);
            }
        }
        ds = ds.sqrt();
        dc /= 3.0;
    }
    let region: Vec<&(f64, f64, f64)> = points.iter().filter(|p| p.2 >= best.2 - REGION).collect();
    let range = |f: fn(&(f64, f64, f64)) -> f64| {
        region
            .iter()
            .map(|p| f(p))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    };
    Some(Fit {
        s: best.0,
        c: best.1,
        s_range: range(|p| p.0),
        c_range: range(|p| p.1),
        moves: usable.len(),
        projections: project(&usable, best.0, best.1)?,
    })
}

/// The range of the parameter over the `(parameter, log-likelihood)` points at or above
/// `floor`: a likelihood interval.
fn within(points: &[(f64, f64)], floor: f64) -> (f64, f64) {
    points
        .iter()
        .filter(|p| p.1 >= floor)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        })
}

/// The maximum-likelihood `s` of a sample at a fixed `c`, with its 95% likelihood
/// interval (within 1.92 log-likelihood units: χ²₁(0.95) / 2), and the maximum.
/// `None` when no move has two candidates.
pub fn fit_s(sample: &[Tested], c: f64) -> Option<(f64, (f64, f64), f64)> {
    if !sample.iter().any(|t| t.deltas.len() > 1) {
        return None;
    }
    let eval = |s: f64| log_likelihood(sample, s, c);
    let mut points: Vec<(f64, f64)> = grid(S_RANGE, 40, true)
        .into_iter()
        .map(|s| (s, eval(s)))
        .collect();
    let mut best = *points.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let mut ds = 1.2f64;
    for _ in 0..3 {
        let lo = (best.0 / ds).max(S_RANGE.0);
        let hi = (best.0 * ds).min(S_RANGE.1);
        for s in grid((lo, hi), 9, true) {
            let p = (s, eval(s));
            if p.1 > best.1 {
                best = p;
            }
            points.push(p);
        }
        ds = ds.sqrt();
    }
    Some((best.0, within(&points, best.1 - 1.92), best.1))
}

/// The `s` at a fixed `c` whose projected top-move match rate equals the sample's
/// observed one (Regan fits his parameters by matching projections to observations),
/// with the range of `s` over which the MM z-score stays within ±1.96. Projected MM
/// falls as `s` grows, so each is found by bisection on `ln s` within [`S_RANGE`]
/// (clamped to its ends when the sample lies beyond them). `None` without usable moves.
pub fn fit_s_by_mm(sample: &[Tested], c: f64) -> Option<(f64, (f64, f64))> {
    project(sample, 1.0, c)?;
    // z(s) = (observed − projected(s)) / sd(s): increasing in s.
    let z = |s: f64| {
        let p = project(sample, s, c).map(|p| p.mm);
        p.map_or(0.0, |m| {
            if m.sd > 0.0 {
                (m.observed - m.projected) / m.sd
            } else {
                0.0
            }
        })
    };
    let solve = |target: f64| {
        let (mut lo, mut hi) = (libm::log(S_RANGE.0), libm::log(S_RANGE.1));
        if z(libm::exp(lo)) >= target {
            return S_RANGE.0;
        }
        if z(libm::exp(hi)) <= target {
            return S_RANGE.1;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if z(libm::exp(mid)) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        libm::exp(0.5 * (lo + hi))
    };
    Some((solve(0.0), (solve(-1.96), solve(1.96))))
}

/// One `c` for several samples (rating bands), each with its own `s`: the maximum of
/// the profile likelihood `Σ_k max_s LL_k(s, c)`, with its 95% interval (1.92 units).
/// Regan's `s` and `c` trade off against each other; with one shared `c` the bands
/// differ in `s` alone, which keeps a rating ↔ parameters table monotone.
pub fn fit_common_c(samples: &[Vec<Tested>]) -> Option<(f64, (f64, f64))> {
    let profile = |c: f64| -> f64 {
        samples
            .iter()
            .filter_map(|s| fit_s(s, c).map(|f| f.2))
            .sum()
    };
    let mut points: Vec<(f64, f64)> = grid((0.2, 3.0), 15, false)
        .into_iter()
        .map(|c| (c, profile(c)))
        .collect();
    let mut best = *points.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let mut dc = 0.2f64;
    for _ in 0..3 {
        for c in grid(
            ((best.0 - dc).max(C_RANGE.0), (best.0 + dc).min(C_RANGE.1)),
            7,
            false,
        ) {
            let p = (c, profile(c));
            if p.1 > best.1 {
                best = p;
            }
            points.push(p);
        }
        dc /= 3.0;
    }
    Some((best.0, within(&points, best.1 - 1.92)))
}

/// A side's analysed moves for Regan's model: the scaled difference of each engine line
/// (and of the played move searched alone when it was not among them) from the top line.
pub fn side_sample(game: usize, plies: &[PlyReport], side: Side) -> Vec<Tested> {
    let sign = side.sign();
    plies
        .iter()
        .filter(|p| p.side == side && p.excluded.is_none() && p.searched)
        .filter_map(|p| {
            let best = p.lines.first()?.score.with_sign(sign);
            let (scores, played) = p.candidates()?;
            let deltas = scores
                .iter()
                .map(|s| eval::regan_delta(best, s.with_sign(sign)))
                .collect();
            Some(Tested {
                deltas,
                played,
                top: 0,
                at: (game, p.ply),
            })
        })
        .collect()
}

/// Moves sampled from the model, for tests here and in the calibration.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }

        /// An index drawn with the given probabilities.
        pub(crate) fn pick(&mut self, p: &[f64]) -> usize {
            let r = self.next();
            let mut acc = 0.0;
            p.iter()
                .position(|pi| {
                    acc += pi;
                    r < acc
                })
                .unwrap_or(p.len() - 1)
        }
    }

    /// Moves sampled from the model itself at `(s, c)`.
    pub(crate) fn sample(s: f64, c: f64, n: usize, seed: u64) -> Vec<Tested> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                let k = 3 + (rng.next() * 8.0) as usize;
                let mut deltas = vec![0.0];
                for _ in 1..k {
                    // Some ties with the best, most moves clearly worse.
                    let x = rng.next();
                    deltas.push(if x < 0.08 { 0.0 } else { x * x * 1.2 });
                }
                let played = rng.pick(&probabilities(&deltas, s, c));
                Tested {
                    deltas,
                    played,
                    top: 0,
                    at: (0, 0),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::sample;
    use super::*;
    use crate::{eval::regan_delta, uci::Score};

    #[test]
    fn a_common_c_and_per_band_s_are_recovered() {
        // Two "bands" with different s and the same c.
        let weak = sample(0.3, 0.6, 1500, 11);
        let strong = sample(0.08, 0.6, 1500, 12);
        let (c, (lo, hi)) = fit_common_c(&[weak.clone(), strong.clone()]).unwrap();
        assert!(lo <= 0.6 && 0.6 <= hi, "c = {c} ({lo}-{hi})");
        assert!((c - 0.6).abs() < 0.25, "{c}");
        let (sw, (wlo, whi), _) = fit_s(&weak, c).unwrap();
        let (ss, (slo, shi), _) = fit_s(&strong, c).unwrap();
        assert!(ss < sw, "the stronger band has the smaller s: {ss} vs {sw}");
        assert!(wlo <= sw && sw <= whi && slo <= ss && ss <= shi);
        assert!(shi < wlo, "the intervals separate the bands");
    }

    #[test]
    fn the_mm_matching_s_reproduces_the_observed_match_rate() {
        let weak = sample(0.3, 0.6, 1500, 11);
        let strong = sample(0.08, 0.6, 1500, 12);
        let (sw, (wlo, whi)) = fit_s_by_mm(&weak, 0.6).unwrap();
        let (ss, (slo, shi)) = fit_s_by_mm(&strong, 0.6).unwrap();
        // At the true c it lands near the true s, inside its own interval.
        assert!((sw / 0.3 - 1.0).abs() < 0.35, "{sw}");
        assert!((ss / 0.08 - 1.0).abs() < 0.35, "{ss}");
        assert!(wlo < sw && sw < whi && slo < ss && ss < shi);
        assert!(shi < wlo, "the intervals separate the bands");
        // By construction the projection then equals the observation.
        for (smp, s) in [(&weak, sw), (&strong, ss)] {
            let mm = project(smp, s, 0.6).unwrap().mm;
            assert!((mm.projected - mm.observed).abs() < 1e-6, "{mm:?}");
            assert!(mm.z.unwrap().abs() < 1e-3);
        }
        // A sample that always plays the top move is beyond the range: the smallest s.
        let perfect: Vec<Tested> = strong
            .iter()
            .map(|t| Tested {
                played: t.top,
                ..t.clone()
            })
            .collect();
        assert_eq!(fit_s_by_mm(&perfect, 0.6).unwrap().0, S_RANGE.0);
        assert!(fit_s_by_mm(&[], 0.6).is_none());
    }

    #[test]
    fn the_log_likelihood_is_the_log_of_the_played_probability_bit_for_bit() {
        let smp = sample(0.15, 0.7, 300, 5);
        for (s, c) in [(0.05, 0.4), (0.15, 0.7), (0.9, 1.8)] {
            let want: f64 = smp
                .iter()
                .map(|t| libm::log(probabilities(&t.deltas, s, c)[t.played].max(1e-300)))
                .sum();
            assert_eq!(log_likelihood(&smp, s, c).to_bits(), want.to_bits());
        }
    }

    #[test]
    fn probabilities_sum_to_one_and_fall_with_delta() {
        let d = [0.0, 0.05, 0.2, 0.6, 1.5];
        for (s, c) in [(0.1, 0.5), (0.08, 1.0), (0.3, 2.0), (1.0, 0.2)] {
            let p = probabilities(&d, s, c);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!(p.windows(2).all(|w| w[0] >= w[1]), "{p:?}");
            assert!(p[0] > p[1], "{p:?}");
        }
        // Equal δ, equal probability; a single move is certain.
        let p = probabilities(&[0.0, 0.0, 0.3], 0.1, 0.5);
        assert!((p[0] - p[1]).abs() < 1e-12);
        assert_eq!(probabilities(&[0.0], 0.1, 0.5), vec![1.0]);
        // Hand-worked: two moves, δ = (0, s) and c = 1: r = (1, e); p0 + p0^e = 1.
        let p = probabilities(&[0.0, 0.1], 0.1, 1.0);
        let p0 = p[0];
        assert!((p0 + p0.powf(std::f64::consts::E) - 1.0).abs() < 1e-9);
        assert!((p[1] - p0.powf(std::f64::consts::E)).abs() < 1e-9);
        // A stronger player (smaller s) puts more weight on the best move.
        assert!(probabilities(&d, 0.05, 0.5)[0] > probabilities(&d, 0.2, 0.5)[0]);
    }

    #[test]
    fn delta_is_symmetric_and_side_relative() {
        let d = |a, b| regan_delta(Score::Cp(a), Score::Cp(b));
        assert_eq!(d(100, 50), d(50, 100));
        assert_eq!(d(-100, -50), d(100, 50), "same gap on the other side");
        assert!(
            d(30, -30) > d(530, 470),
            "a gap matters less when far ahead"
        );
        assert_eq!(d(20, 20), 0.0);
    }

    #[test]
    fn the_fit_recovers_known_parameters() {
        for (s, c, seed) in [(0.08, 0.5, 1), (0.15, 1.2, 2)] {
            let data = sample(s, c, 1000, seed);
            let f = fit(&data).unwrap();
            assert!(
                f.s_range.0 <= s && s <= f.s_range.1,
                "s {s} outside {:?} (fit {})",
                f.s_range,
                f.s
            );
            assert!(
                f.c_range.0 <= c && c <= f.c_range.1,
                "c {c} outside {:?} (fit {})",
                f.c_range,
                f.c
            );
            assert!((f.s / s - 1.0).abs() < 0.35, "s {} vs {s}", f.s);
            assert!((f.c - c).abs() < 0.35, "c {} vs {c}", f.c);
            // Against its own fit the sample is unremarkable.
            for p in [f.projections.mm, f.projections.ev, f.projections.asd] {
                assert!(p.z.unwrap().abs() < 3.0, "{p:?}");
            }
        }
        assert_eq!(fit(&[]), None);
    }

    #[test]
    fn engine_play_scores_far_above_a_human_projection() {
        // Moves always the engine's top choice, against the parameters of a weak player.
        let mut data = sample(0.2, 0.5, 400, 9);
        for t in &mut data {
            t.played = t.top;
        }
        let p = project(&data, 0.2, 0.5).unwrap();
        assert_eq!(p.mm.observed, 1.0);
        assert!(p.mm.z.unwrap() > 10.0, "{:?}", p.mm);
        assert!(p.asd.z.unwrap() < -5.0, "{:?}", p.asd);
        // And samples drawn from those very parameters are within noise.
        let honest = project(&sample(0.2, 0.5, 400, 10), 0.2, 0.5).unwrap();
        assert!(honest.mm.z.unwrap().abs() < 3.0);
    }
}
