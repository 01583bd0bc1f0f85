//! Evaluation levels (Burnham, seed 004 §3.6): the played move's evaluation at each depth,
//! relative to the best move's final evaluation, smoothed and split into a shape and an
//! amplitude, plus a cubic fit of the shape and the trend label rule.
//!
//! ```
//! use fairsight::fit::{Levels, Trend};
//! // A move the engine disliked at low depth and came to like: ascending.
//! let evals = [Some(-150), Some(-140), Some(-120), Some(-100), Some(-90), Some(-60),
//!              Some(-40), Some(-20), Some(-10), Some(0), Some(0), Some(0)];
//! let l = Levels::new(&evals, 0).unwrap();
//! assert_eq!(l.trend(), Trend::Ascending);
//! assert!((l.amplitude - 1.5).abs() < 0.2);
//! ```

use serde::{Deserialize, Serialize};

/// Evaluations (cp, mover's side) are clamped to this before anything else: mates count
/// as ±10 pawns, as everywhere in fairsight.
pub const LEVEL_CLAMP_CP: f64 = 1000.0;

/// The trend of a move's evaluation levels (seed 004 §3.6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Trend {
    /// The engine came to like the move more with depth.
    Ascending,
    /// The engine came to like the move less with depth.
    Descending,
    /// Flat or noisy.
    Other,
}

impl Trend {
    /// `+1`, `−1`, `0`: the form the classifier's feature uses.
    pub fn value(self) -> f64 {
        match self {
            Trend::Ascending => 1.0,
            Trend::Descending => -1.0,
            Trend::Other => 0.0,
        }
    }
}

/// A move's evaluation levels, processed.
#[derive(Debug, Clone, PartialEq)]
pub struct Levels {
    /// `L[d] = v_played(d) − v_best(final)`, pawns, mover's side, depth 1..D (gaps filled).
    pub raw: Vec<f64>,
    /// `raw` smoothed (`filtfilt3`) and divided by its largest magnitude (all zero when
    /// that is zero): the shape, in −1..1.
    pub shape: Vec<f64>,
    /// The largest magnitude of the smoothed levels, pawns.
    pub amplitude: f64,
}

impl Levels {
    /// From the played move's evaluation at each depth (cp, mover's side; `None` where
    /// the search did not report it) and the best move's final evaluation (cp, mover's
    /// side). Missing depths take the previous depth's value (leading ones the first
    /// known value), as Burnham fills skipped depths. `None` without any value.
    pub fn new(depth_evals: &[Option<i32>], best_final_cp: i32) -> Option<Levels> {
        let first = depth_evals.iter().flatten().next()?;
        let clamp = |cp: i32| f64::from(cp).clamp(-LEVEL_CLAMP_CP, LEVEL_CLAMP_CP);
        let best = clamp(best_final_cp);
        let mut last = clamp(*first);
        let raw: Vec<f64> = depth_evals
            .iter()
            .map(|e| {
                if let Some(cp) = e {
                    last = clamp(*cp);
                }
                (last - best) / 100.0
            })
            .collect();
        let smooth = filtfilt3(&raw);
        let amplitude = smooth.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let shape = if amplitude > 0.0 {
            smooth.iter().map(|x| x / amplitude).collect()
        } else {
            vec![0.0; smooth.len()]
        };
        Some(Levels {
            raw,
            shape,
            amplitude,
        })
    }

    /// The mean of the raw levels (pawns): how far, on average over the depths, the
    /// played move stood from the best move's final value.
    pub fn mean_deviation(&self) -> f64 {
        self.raw.iter().sum::<f64>() / self.raw.len().max(1) as f64
    }

    /// The trend by fairsight's labelling rule (see [`trend_rule`]).
    pub fn trend(&self) -> Trend {
        trend_rule(&self.shape, self.amplitude)
    }
}

/// The labelling rule of the trend classes (the rule our labelled set was made with; see
/// models/README.md): on the shape `s` (length n, in −1..1) with amplitude `a` (pawns),
///
/// - `Other` when `a < 0.10` (flat: under 10 cp of movement);
/// - else with `head` = mean of the first third, `tail` = mean of the last third and
///   `rise = tail − head`: `Ascending` when `rise ≥ 0.5`, `Descending` when
///   `rise ≤ −0.5`;
/// - else `Other` (no net trend, or noise).
pub fn trend_rule(shape: &[f64], amplitude: f64) -> Trend {
    let n = shape.len();
    if n < 3 || amplitude < 0.10 {
        return Trend::Other;
    }
    let third = n.div_ceil(3);
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let rise = mean(&shape[n - third..]) - mean(&shape[..third]);
    if rise >= 0.5 {
        Trend::Ascending
    } else if rise <= -0.5 {
        Trend::Descending
    } else {
        Trend::Other
    }
}

/// Zero-phase smoothing: the 3-point moving average run forwards and backwards, as
/// scipy's `filtfilt([1/3, 1/3, 1/3], 1, x)` (odd extension of `min(9, n − 1)` samples at
/// each end, initial states at steady state). Burnham's call passes `a = 3`, which only
/// scales the output by 1/9; the shape is normalised anyway, and without it the
/// amplitude stays in pawns.
pub fn filtfilt3(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n < 2 {
        return x.to_vec();
    }
    let pad = 9.min(n - 1);
    // Odd extension: 2·x[0] − x[pad..0], x, 2·x[n−1] − x[n−2..n−2−pad].
    let mut ext = Vec::with_capacity(n + 2 * pad);
    ext.extend((1..=pad).rev().map(|i| 2.0 * x[0] - x[i]));
    ext.extend_from_slice(x);
    ext.extend((1..=pad).map(|i| 2.0 * x[n - 1] - x[n - 1 - i]));
    let forward = lfilter3(&ext);
    let mut back: Vec<f64> = forward.into_iter().rev().collect();
    back = lfilter3(&back);
    back.reverse();
    back[pad..pad + n].to_vec()
}

/// `lfilter([1/3, 1/3, 1/3], 1, x, zi = lfilter_zi · x[0])` (direct form II transposed).
fn lfilter3(x: &[f64]) -> Vec<f64> {
    let b = 1.0 / 3.0;
    // lfilter_zi for this filter is [2/3, 1/3]: the state of a constant input.
    let (mut z0, mut z1) = (2.0 / 3.0 * x[0], 1.0 / 3.0 * x[0]);
    x.iter()
        .map(|&xi| {
            let y = b * xi + z0;
            z0 = b * xi + z1;
            z1 = b * xi;
            y
        })
        .collect()
}

/// Least-squares cubic `y ≈ c3·t³ + c2·t² + c1·t + c0` over `t = i/(n−1)` in 0..1, with
/// the residual sum of squares: `([c3, c2, c1, c0], rss)`. Fewer than 4 points: a fit of
/// what they allow (missing terms 0).
pub fn cubic_fit(y: &[f64]) -> ([f64; 4], f64) {
    let n = y.len();
    if n == 0 {
        return ([0.0; 4], 0.0);
    }
    let degree = (n - 1).min(3);
    let t: Vec<f64> = (0..n)
        .map(|i| {
            if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            }
        })
        .collect();
    let k = degree + 1;
    // Normal equations A c = r with A[j][l] = Σ t^(j+l), r[j] = Σ t^j y (powers 0..k).
    let mut a = vec![vec![0.0; k]; k];
    let mut r = vec![0.0; k];
    for (ti, yi) in t.iter().zip(y) {
        let pw: Vec<f64> = (0..2 * k).map(|p| ti.powi(p as i32)).collect();
        for j in 0..k {
            r[j] += pw[j] * yi;
            for l in 0..k {
                a[j][l] += pw[j + l];
            }
        }
    }
    let c = solve(a, r);
    let eval = |ti: f64| {
        c.iter()
            .enumerate()
            .map(|(p, cp)| cp * ti.powi(p as i32))
            .sum::<f64>()
    };
    let rss = t
        .iter()
        .zip(y)
        .map(|(ti, yi)| (yi - eval(*ti)).powi(2))
        .sum();
    let mut out = [0.0; 4];
    for (p, cp) in c.iter().enumerate() {
        out[3 - p] = *cp;
    }
    (out, rss)
}

/// Gaussian elimination with partial pivoting (tiny, well-conditioned systems).
fn solve(mut a: Vec<Vec<f64>>, mut r: Vec<f64>) -> Vec<f64> {
    let k = r.len();
    for col in 0..k {
        let piv = (col..k)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, piv);
        r.swap(col, piv);
        let d = a[col][col];
        if d.abs() < 1e-12 {
            continue;
        }
        let pivot = a[col].clone();
        for row in 0..k {
            if row != col {
                let f = a[row][col] / d;
                for (x, p) in a[row].iter_mut().zip(&pivot).skip(col) {
                    *x -= f * p;
                }
                r[row] -= f * r[col];
            }
        }
    }
    (0..k)
        .map(|i| {
            if a[i][i].abs() < 1e-12 {
                0.0
            } else {
                r[i] / a[i][i]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < tol)
    }

    #[test]
    fn filtfilt_matches_scipy_on_hand_worked_vectors() {
        // A constant and a straight line pass through unchanged (odd extension, steady
        // initial state): the filter's defining properties.
        assert!(close(&filtfilt3(&[2.0; 12]), &[2.0; 12], 1e-12));
        let line: Vec<f64> = (0..12).map(|i| i as f64 * 0.5 - 1.0).collect();
        assert!(close(&filtfilt3(&line), &line, 1e-12));
        // A single spike in the middle of zeros spreads as the kernel convolved with
        // itself: [1, 2, 3, 2, 1] / 9 (exact away from the ends).
        let mut spike = vec![0.0; 21];
        spike[10] = 9.0;
        let y = filtfilt3(&spike);
        assert!(close(&y[8..13], &[1.0, 2.0, 3.0, 2.0, 1.0], 1e-12), "{y:?}");
        assert!(y[..7].iter().chain(&y[14..]).all(|v| v.abs() < 1e-12));
        // Near the ends the odd extension bends the output: the values of
        // scipy.signal.filtfilt([1/3]*3, 1, x) (scipy 1.17.1) for two 12-sample vectors.
        let x = [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let scipy = [
            0.0,
            2.0 / 3.0,
            1.0,
            2.0 / 3.0,
            1.0 / 3.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ];
        assert!(close(&filtfilt3(&x), &scipy, 1e-12), "{:?}", filtfilt3(&x));
        let x = [1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0, 9.0, 6.0, 0.0, 2.0, 5.0];
        let scipy = [
            1.0,
            2.666_666_666_666_666_5,
            4.0,
            5.444_444_444_444_444,
            5.555_555_555_555_555,
            6.0,
            5.777_777_777_777_777,
            5.777_777_777_777_777,
            4.555_555_555_555_555,
            3.333_333_333_333_333,
            3.333_333_333_333_333,
            5.0,
        ];
        assert!(close(&filtfilt3(&x), &scipy, 1e-12), "{:?}", filtfilt3(&x));
    }

    #[test]
    fn levels_are_relative_filled_and_normalised() {
        // Best final +50 cp; played move at depths 1..5: 20, missing, 60, 50, 50.
        let l = Levels::new(&[Some(20), None, Some(60), Some(50), Some(50)], 50).unwrap();
        assert!(
            close(&l.raw, &[-0.3, -0.3, 0.1, 0.0, 0.0], 1e-12),
            "{:?}",
            l.raw
        );
        let max = l.shape.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        assert!((max - 1.0).abs() < 1e-12);
        assert!(l.amplitude > 0.0 && l.amplitude <= 0.3 + 1e-12);
        assert!((l.mean_deviation() + 0.1).abs() < 1e-12);
        // Leading gaps take the first known value; mates are clamped to ±10 pawns.
        let l = Levels::new(&[None, Some(-5000), Some(0)], 0).unwrap();
        assert!(close(&l.raw, &[-10.0, -10.0, 0.0], 1e-12));
        // A best move that stayed best at every depth: all zero, shape zero, flat.
        let l = Levels::new(&[Some(30); 8], 30).unwrap();
        assert_eq!(l.amplitude, 0.0);
        assert!(l.shape.iter().all(|x| *x == 0.0));
        assert_eq!(l.trend(), Trend::Other);
        assert_eq!(Levels::new(&[None, None], 0), None);
    }

    #[test]
    fn trends_by_the_rule() {
        let down: Vec<Option<i32>> = (0..14).map(|d| Some(-10 * d)).collect();
        assert_eq!(Levels::new(&down, 0).unwrap().trend(), Trend::Descending);
        let up: Vec<Option<i32>> = (0..14).map(|d| Some(-130 + 10 * d)).collect();
        assert_eq!(Levels::new(&up, 0).unwrap().trend(), Trend::Ascending);
        // Down then back up to where it started: no net trend.
        let vee: Vec<Option<i32>> = (0..14)
            .map(|d: i32| Some(-100 + 15 * (d - 7).abs()))
            .collect();
        assert_eq!(Levels::new(&vee, 0).unwrap().trend(), Trend::Other);
        // A 5 cp wobble is flat.
        let wobble: Vec<Option<i32>> = (0..14)
            .map(|d| Some(if d % 2 == 0 { 5 } else { 0 }))
            .collect();
        assert_eq!(Levels::new(&wobble, 0).unwrap().trend(), Trend::Other);
    }

    #[test]
    fn cubic_fit_recovers_a_cubic_exactly() {
        let y: Vec<f64> = (0..14)
            .map(|i| {
                let t = i as f64 / 13.0;
                2.0 * t * t * t - 1.5 * t * t + 0.25 * t - 0.1
            })
            .collect();
        let (c, rss) = cubic_fit(&y);
        assert!(close(&c, &[2.0, -1.5, 0.25, -0.1], 1e-9), "{c:?}");
        assert!(rss < 1e-18);
        // A zigzag leaves a residual.
        let z: Vec<f64> = (0..14)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        assert!(cubic_fit(&z).1 > 10.0);
        assert_eq!(cubic_fit(&[1.0, 3.0]).0, [0.0, 0.0, 2.0, 1.0]);
    }
}
