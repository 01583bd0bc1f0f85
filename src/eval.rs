//! Evaluation maths: win percentages, lichess accuracy, Regan's scaled difference.
//!
//! Every constant is defined once here, with its source. Transcendental functions come
//! from `libm`, not the platform: the browser (wasm) and the CLI must give the same bits.
//! (A private module: its example is the first test below.)

use crate::uci::Score;

/// Centipawns that stand for a mate in averages and win percentages.
pub const MATE_CP: i32 = 1000;

/// Centipawn clamp of the lichess win-percent formula.
pub const WIN_CP_CLAMP: i32 = 1000;

/// The logistic slope of lichess's win-percent model (fitted by lichess on rated games).
pub const WIN_SLOPE: f64 = 0.003_682_08;

/// Win-% drops that make a move an inaccuracy, a mistake, a blunder (lichess).
pub const INACCURACY_DROP: f64 = 5.0;
/// See [`INACCURACY_DROP`].
pub const MISTAKE_DROP: f64 = 10.0;
/// See [`INACCURACY_DROP`].
pub const BLUNDER_DROP: f64 = 15.0;

/// Winning chances in percent for a centipawn score (lichess):
/// `50 + 50·(2/(1+e^(−0.00368208·cp)) − 1)`, cp clamped to ±1000.
pub fn win_percent(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-WIN_CP_CLAMP, WIN_CP_CLAMP));
    50.0 + 50.0 * (2.0 / (1.0 + libm::exp(-WIN_SLOPE * cp)) - 1.0)
}

/// [`win_percent`] of a score (mates count as ±[`MATE_CP`]).
pub fn score_win_percent(score: Score) -> f64 {
    win_percent(score.to_cp(MATE_CP))
}

/// lichess move accuracy from the mover's win-% drop:
/// `103.1668·e^(−0.04354·drop) − 3.1669 + 1` (lichess's "uncertainty bonus"), clamped to
/// 0..100.
pub fn move_accuracy(win_drop: f64) -> f64 {
    let raw = 103.166_810_071_164_9 * libm::exp(-0.043_544_153_867_539_51 * win_drop.max(0.0))
        - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// lichess volatility weights: for each position of a game (White's win % before every
/// analysed move, in order), the standard deviation of win % over the sliding window
/// (size `clamp(positions/10, 2, 8)`) that ends just after it, clamped to 0.5..12.
pub fn volatility_weights(win_white: &[f64]) -> Vec<f64> {
    let window = (win_white.len() / 10).clamp(2, 8);
    (0..win_white.len())
        .map(|i| {
            let end = (i + 2).min(win_white.len());
            let start = end.saturating_sub(window);
            let w = &win_white[start..end];
            let mean = w.iter().sum::<f64>() / w.len() as f64;
            let var = w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / w.len() as f64;
            var.sqrt().clamp(0.5, 12.0)
        })
        .collect()
}

/// lichess game accuracy from `(volatility weight, move accuracy)` pairs: the mean of the
/// weighted mean and the harmonic mean of the move accuracies.
pub fn game_accuracy(moves: &[(f64, f64)]) -> Option<f64> {
    if moves.is_empty() {
        return None;
    }
    let wsum: f64 = moves.iter().map(|m| m.0).sum();
    let weighted = moves.iter().map(|m| m.0 * m.1).sum::<f64>() / wsum;
    let harmonic = moves.len() as f64 / moves.iter().map(|m| 1.0 / m.1.max(1.0)).sum::<f64>();
    Some((weighted + harmonic) / 2.0)
}

/// Regan's scaling `F(x) = sign(x)·ln(1+|x|)`, x in pawns.
pub fn regan_scale(pawns: f64) -> f64 {
    pawns.signum() * libm::log1p(pawns.abs())
}

/// Regan's scaled difference `δ = |F(v_best) − F(v_played)|`, values in centipawns from
/// the mover's side (converted to pawns). Mates count as ±[`MATE_CP`].
pub fn regan_delta(best: Score, played: Score) -> f64 {
    let f = |s: Score| regan_scale(f64::from(s.to_cp(MATE_CP)) / 100.0);
    (f(best) - f(played)).abs()
}

/// Centipawn loss of a move: `best − played` from the mover's side, mates as ±[`MATE_CP`],
/// both clamped to ±[`MATE_CP`], never negative.
pub fn cp_loss(best: Score, played: Score) -> i32 {
    let b = best.to_cp(MATE_CP).clamp(-MATE_CP, MATE_CP);
    let p = played.to_cp(MATE_CP).clamp(-MATE_CP, MATE_CP);
    (b - p).max(0)
}

/// Mean and a normal-approximation 95% interval half-width of a sample.
pub fn mean_ci95(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return Some((mean, f64::NAN));
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, 1.96 * (var / n).sqrt()))
}

/// Wilson 95% score interval of a proportion `k/n`.
pub fn wilson95(k: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let z = 1.96_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_example() {
        assert_eq!(win_percent(0), 50.0);
        assert!(win_percent(300) > 75.0);
        assert_eq!(move_accuracy(0.0), 100.0);
    }

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn win_percent_matches_lichess() {
        assert_eq!(win_percent(0), 50.0);
        // lichess: +100 cp ≈ 59.1 %, symmetric around 50.
        assert!(close(win_percent(100), 59.10, 0.01), "{}", win_percent(100));
        assert!(close(win_percent(-100) + win_percent(100), 100.0, 1e-9));
        assert_eq!(win_percent(5000), win_percent(1000));
        assert!(close(
            score_win_percent(Score::Mate(2)),
            win_percent(1000),
            1e-12
        ));
    }

    #[test]
    fn move_accuracy_is_lichess() {
        assert!(close(move_accuracy(0.0), 100.0, 1e-9));
        assert!(close(
            move_accuracy(10.0),
            103.1668 * (-0.4354415f64).exp() - 3.1669 + 1.0,
            1e-3
        ));
        assert_eq!(move_accuracy(100.0), 0.0);
        assert!(move_accuracy(-5.0) <= 100.0);
    }

    #[test]
    fn regan_delta_is_symmetric_and_scaled() {
        let d = regan_delta(Score::Cp(100), Score::Cp(0));
        assert!(close(d, (2.0f64).ln(), 1e-12));
        // Symmetric in sign: losing a pawn from +1 equals gaining from -1 to 0.
        assert!(close(
            regan_delta(Score::Cp(-100), Score::Cp(0)),
            regan_delta(Score::Cp(0), Score::Cp(-100)),
            1e-12
        ));
        // A pawn matters less when far ahead: ln scaling.
        assert!(regan_delta(Score::Cp(500), Score::Cp(400)) < d);
        assert_eq!(regan_delta(Score::Cp(37), Score::Cp(37)), 0.0);
    }

    #[test]
    fn cp_loss_clamps_and_never_negative() {
        assert_eq!(cp_loss(Score::Cp(50), Score::Cp(-30)), 80);
        assert_eq!(cp_loss(Score::Cp(50), Score::Cp(70)), 0);
        assert_eq!(cp_loss(Score::Mate(3), Score::Cp(0)), 1000);
        assert_eq!(cp_loss(Score::Cp(1500), Score::Cp(900)), 100);
    }

    #[test]
    fn game_accuracy_between_harmonic_and_weighted() {
        let wins = [50.0, 52.0, 48.0, 60.0, 30.0, 35.0, 36.0];
        let w = volatility_weights(&wins);
        assert_eq!(w.len(), wins.len());
        assert!(w.iter().all(|x| (0.5..=12.0).contains(x)));
        // The 60 -> 30 swing weighs most.
        assert!(w[3] > w[0]);
        let acc = game_accuracy(&[(w[0], 100.0), (w[2], 40.0), (w[4], 90.0)]).unwrap();
        assert!(acc > 40.0 && acc < 100.0, "{acc}");
        assert_eq!(game_accuracy(&[]), None);
        let perfect = game_accuracy(&[(1.0, 100.0), (3.0, 100.0)]).unwrap();
        assert!(close(perfect, 100.0, 1e-9));
    }

    #[test]
    fn intervals() {
        let (lo, hi) = wilson95(5, 10).unwrap();
        assert!(lo < 0.5 && hi > 0.5 && lo > 0.18 && hi < 0.82);
        assert_eq!(wilson95(0, 0), None);
        let (m, h) = mean_ci95(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(m, 2.0);
        assert!(close(h, 1.96 * (1.0f64 / 3.0).sqrt(), 1e-12));
    }
}
