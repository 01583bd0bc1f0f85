//! Per-move features: each defined once, here, from a ply and its [`PositionAnalysis`].
//!
//! Values are from the mover's point of view unless a name says otherwise; scores stored in
//! reports are from White's point of view.

use serde::{Deserialize, Serialize};

use crate::{
    chess,
    engine::{PositionAnalysis, PvLine, Search},
    eval,
    game::{Game, Ply, Side},
    plan::{Exclusion, Settings},
    uci::Score,
};

/// One engine line as reported: first move in UCI and SAN, score from White's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// 1-based line index.
    pub multipv: u32,
    /// Depth of the line.
    pub depth: u32,
    /// First move, UCI.
    pub uci: String,
    /// First move, SAN.
    pub san: String,
    /// Score from White's point of view.
    pub score: Score,
    /// The PV in SAN (as far as it replays legally).
    pub pv_san: Vec<String>,
    /// The PV in UCI.
    pub pv: Vec<String>,
}

/// How bad a move was, by the mover's win-% drop (lichess thresholds in `eval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Judgement {
    /// Drop ≥ `eval::INACCURACY_DROP`: PGN `$6`.
    Inaccuracy,
    /// Drop ≥ `eval::MISTAKE_DROP`: PGN `$2`.
    Mistake,
    /// Drop ≥ `eval::BLUNDER_DROP`: PGN `$4`.
    Blunder,
}

impl Judgement {
    /// The judgement of a win-% drop, if any.
    pub fn from_win_drop(drop: f64) -> Option<Judgement> {
        if drop >= eval::BLUNDER_DROP {
            Some(Judgement::Blunder)
        } else if drop >= eval::MISTAKE_DROP {
            Some(Judgement::Mistake)
        } else if drop >= eval::INACCURACY_DROP {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// The PGN NAG.
    pub fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }
}

/// A move is an "only move" when the second-best line loses at least this much win %.
pub const ONLY_MOVE_WIN_GAP: f64 = eval::MISTAKE_DROP;

/// The features of one analysed move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct MoveFeatures {
    /// The engine's best move (first line), UCI.
    pub best: Option<String>,
    /// The best move in SAN.
    pub best_san: Option<String>,
    /// Evaluation of the position (best line), White's point of view.
    pub eval: Option<Score>,
    /// Evaluation of the played move at the final depth, White's point of view.
    pub played_eval: Option<Score>,
    /// 1-based rank of the played move among the lines; `None` when outside them.
    pub rank: Option<u32>,
    /// Centipawn loss (mover's side, mates as ±1000, never negative).
    pub cp_loss: Option<i32>,
    /// Win-% loss (lichess model), never negative.
    pub win_loss: Option<f64>,
    /// lichess move accuracy (0..100).
    pub accuracy: Option<f64>,
    /// Regan's scaled difference δ between best and played.
    pub delta: Option<f64>,
    /// Lines other than the best within [`Settings::good_margin_cp`] of it.
    pub alternatives: Option<u32>,
    /// Centipawns from the best line to each next line (`best − line k`, k = 2..L).
    pub gaps: Vec<i32>,
    /// Centipawns the next-better line is above the played move (`None` if best or unranked).
    pub gap_better: Option<i32>,
    /// Centipawns the played move is above the next-worse line.
    pub gap_worse: Option<i32>,
    /// The best move is the only good one (second line ≥ `ONLY_MOVE_WIN_GAP` win % worse).
    pub only_move: Option<bool>,
    /// The played move's evaluation at each depth 1..D (mover's side, cp; mates ±1000),
    /// `None` where it was not among the lines at that depth.
    pub depth_evals: Vec<Option<i32>>,
    /// The engine's best move at each depth 1..D, UCI.
    pub depth_best: Vec<String>,
    /// The shallowest depth at which the played move was one of the engine's lines (its
    /// MultiPV search's, not the played move's own); `None` when it never was. A
    /// strength-limited engine plays a move of its own lines at some shallow depth; a
    /// human's worst moves are often ones the engine considers at no depth.
    pub seen_at: Option<u32>,
    /// How often the best move changed from one depth to the next.
    pub best_changes: u32,
    /// The first depth from which the played move stayed the engine's best (Regan's match
    /// depth); `None` when it was not best at the final depth.
    pub stable_from: Option<u32>,
    /// The played move, searched alone, scored above the engine's top line.
    pub better_than_engine: bool,
    /// The judgement (inaccuracy / mistake / blunder).
    pub judgement: Option<Judgement>,
    /// Whether the played move is the engine's best.
    pub is_best: bool,
}

/// The played move's line: from the MultiPV search if present, else the searchmoves search.
fn played_line<'a>(analysis: &'a PositionAnalysis, played: &str) -> Option<&'a PvLine> {
    analysis.search.final_line_of(played).or_else(|| {
        analysis
            .played_search
            .as_ref()
            .and_then(|s| s.final_lines().first().copied())
    })
}

fn depth_eval(search: &Search, depth: u32, mv: &str, side: Side) -> Option<i32> {
    search
        .at_depth(depth)
        .find(|l| l.first_move() == Some(mv))
        .map(|l| l.score.with_sign(side.sign()).to_cp(eval::MATE_CP))
}

/// Computes the features of a ply from its analysis.
pub fn features(
    game: &Game,
    ply: &Ply,
    analysis: &PositionAnalysis,
    settings: &Settings,
) -> MoveFeatures {
    let side = ply.side;
    let mover = |s: Score| s.with_sign(side.sign());
    let lines = analysis.search.final_lines();
    let mut f = MoveFeatures::default();
    let Some(top) = lines.first() else {
        return f;
    };
    let best_mv = top.first_move().unwrap_or_default().to_owned();
    f.best_san = chess::uci_line_to_san(
        &ply.fen_before,
        game.variant,
        std::slice::from_ref(&best_mv),
    )
    .pop();
    f.best = Some(best_mv.clone());
    f.eval = Some(top.score);
    f.is_best = best_mv == ply.uci;

    let best = mover(top.score);
    let best_cp = best.to_cp(eval::MATE_CP);
    let line_cps: Vec<i32> = lines
        .iter()
        .map(|l| mover(l.score).to_cp(eval::MATE_CP))
        .collect();
    f.gaps = line_cps.iter().skip(1).map(|c| best_cp - c).collect();
    f.alternatives = Some(
        line_cps
            .iter()
            .skip(1)
            .filter(|&&c| best_cp - c <= settings.good_margin_cp)
            .count() as u32,
    );
    f.only_move = lines.get(1).map(|second| {
        eval::score_win_percent(best) - eval::score_win_percent(mover(second.score))
            >= ONLY_MOVE_WIN_GAP
    });
    f.rank = lines
        .iter()
        .position(|l| l.first_move() == Some(ply.uci.as_str()))
        .map(|i| i as u32 + 1);
    if let Some(rank) = f.rank {
        let i = rank as usize - 1;
        if i > 0 {
            f.gap_better = Some(line_cps[i - 1] - line_cps[i]);
        }
        f.gap_worse = line_cps.get(i + 1).map(|next| line_cps[i] - next);
    }

    if let Some(pl) = played_line(analysis, &ply.uci) {
        let played = mover(pl.score);
        f.played_eval = Some(pl.score);
        f.cp_loss = Some(eval::cp_loss(best, played));
        let drop = (eval::score_win_percent(best) - eval::score_win_percent(played)).max(0.0);
        f.win_loss = Some(drop);
        f.accuracy = Some(eval::move_accuracy(drop));
        f.delta = Some(eval::regan_delta(best, played));
        f.judgement = Judgement::from_win_drop(drop);
        f.better_than_engine =
            analysis.played_search.is_some() && played.order_key() > best.order_key();
        if f.better_than_engine {
            f.judgement = None;
        }
    }

    let max_depth = analysis.search.max_depth();
    for d in 1..=max_depth {
        let from_main = depth_eval(&analysis.search, d, &ply.uci, side);
        let from_alone = analysis
            .played_search
            .as_ref()
            .and_then(|s| depth_eval(s, d, &ply.uci, side));
        if from_main.is_some() && f.seen_at.is_none() {
            f.seen_at = Some(d);
        }
        f.depth_evals.push(from_main.or(from_alone));
        let best_at = analysis
            .search
            .at_depth(d)
            .find(|l| l.multipv == 1)
            .and_then(|l| l.first_move())
            .unwrap_or_default();
        f.depth_best.push(best_at.to_owned());
    }
    f.best_changes = f
        .depth_best
        .windows(2)
        .filter(|w| !w[0].is_empty() && !w[1].is_empty() && w[0] != w[1])
        .count() as u32;
    if f.is_best {
        let stable = f
            .depth_best
            .iter()
            .rev()
            .take_while(|m| **m == ply.uci)
            .count();
        f.stable_from = Some(max_depth + 1 - stable as u32);
    }
    f
}

/// The reported engine lines of a position, with SAN.
pub fn lines(game: &Game, ply: &Ply, analysis: &PositionAnalysis) -> Vec<Line> {
    analysis
        .search
        .final_lines()
        .into_iter()
        .map(|l| {
            let pv_san = chess::uci_line_to_san(&ply.fen_before, game.variant, &l.pv);
            Line {
                multipv: l.multipv,
                depth: l.depth,
                uci: l.first_move().unwrap_or_default().to_owned(),
                san: pv_san.first().cloned().unwrap_or_default(),
                score: l.score,
                pv_san,
                pv: l.pv.clone(),
            }
        })
        .collect()
}

/// The exclusion known after searching (decided, repetition), if any.
pub fn post_exclusion(ply: &Ply, f: &MoveFeatures, settings: &Settings) -> Option<Exclusion> {
    if ply.repetition {
        return Some(Exclusion::Repetition);
    }
    let eval = f.eval?;
    let decided = match eval {
        Score::Mate(_) => true,
        Score::Cp(cp) => cp.abs() > settings.decided_cp,
    };
    decided.then_some(Exclusion::Decided)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{pgn, uci::Bound};

    fn line(depth: u32, multipv: u32, cp: i32, pv: &[&str]) -> PvLine {
        PvLine {
            depth,
            seldepth: None,
            multipv,
            score: Score::Cp(cp),
            bound: Bound::Exact,
            nodes: None,
            pv: pv.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn search(lines: Vec<PvLine>) -> Search {
        Search {
            lines,
            bestmove: None,
            nodes: 0,
            time_ms: 0,
        }
    }

    /// 1. e4 e5 2. Qh5: White to move at ply index 2.
    fn fixture() -> Game {
        pgn::import("1. e4 e5 2. Qh5 *").remove(0).unwrap()
    }

    #[test]
    fn played_outside_lines_uses_the_searchmoves_result() {
        let g = fixture();
        let analysis = PositionAnalysis {
            ply_index: 2,
            search: search(vec![
                line(1, 1, 30, &["b1c3"]),
                line(1, 2, 25, &["g1f3"]),
                line(2, 1, 40, &["g1f3", "b8c6"]),
                line(2, 2, 35, &["f1c4"]),
            ]),
            played_search: Some(search(vec![
                line(1, 1, 0, &["d1h5"]),
                line(2, 1, -60, &["d1h5", "b8c6"]),
            ])),
            slm: None,
        };
        let f = features(&g, &g.plies[2], &analysis, &Settings::default());
        assert_eq!(f.best.as_deref(), Some("g1f3"));
        assert_eq!(f.best_san.as_deref(), Some("Nf3"));
        assert_eq!(f.rank, None);
        assert_eq!(f.cp_loss, Some(100));
        assert_eq!(f.gaps, [5]);
        assert_eq!(f.alternatives, Some(1));
        assert_eq!(f.depth_evals, [Some(0), Some(-60)]);
        assert_eq!(f.seen_at, None, "its own search is not the engine's lines");
        assert_eq!(f.depth_best, ["b1c3", "g1f3"]);
        assert_eq!(f.best_changes, 1);
        assert_eq!(f.stable_from, None);
        assert!(!f.better_than_engine);
        assert!(!f.is_best);
        let drop = f.win_loss.unwrap();
        assert!(drop > 9.0 && drop < 10.0, "{drop}");
        assert_eq!(f.judgement, Some(Judgement::Inaccuracy));
        assert!((f.delta.unwrap() - (1.4f64.ln() + 1.6f64.ln())).abs() < 1e-9);
    }

    #[test]
    fn black_move_features_are_from_blacks_side() {
        let g = fixture();
        // Ply index 1: 1... e5, Black to move; White-POV scores.
        let analysis = PositionAnalysis {
            ply_index: 1,
            search: search(vec![
                line(1, 1, 20, &["c7c5"]),
                line(1, 2, 30, &["e7e5"]),
                line(2, 1, 30, &["e7e5", "g1f3"]),
                line(2, 2, 400, &["f7f6"]),
            ]),
            played_search: None,
            slm: None,
        };
        let f = features(&g, &g.plies[1], &analysis, &Settings::default());
        assert!(f.is_best);
        assert_eq!(f.rank, Some(1));
        assert_eq!(f.cp_loss, Some(0));
        assert_eq!(f.gaps, [370]);
        assert_eq!(f.gap_worse, Some(370));
        assert_eq!(f.gap_better, None);
        assert_eq!(f.only_move, Some(true));
        assert_eq!(f.alternatives, Some(0));
        assert_eq!(f.depth_evals, [Some(-30), Some(-30)]);
        assert_eq!(f.seen_at, Some(1));
        assert_eq!(f.stable_from, Some(2));
        assert_eq!(f.best_changes, 1);
        assert_eq!(f.eval, Some(Score::Cp(30)));
    }

    #[test]
    fn a_move_first_among_the_lines_at_a_later_depth_is_seen_there() {
        let g = fixture();
        // 2. Qh5 (ply index 2) is one of the lines at depth 2 only, then dropped again.
        let analysis = PositionAnalysis {
            ply_index: 2,
            search: search(vec![
                line(1, 1, 30, &["b1c3"]),
                line(1, 2, 25, &["f1c4"]),
                line(2, 1, 40, &["b1c3"]),
                line(2, 2, 35, &["d1h5"]),
                line(3, 1, 40, &["b1c3"]),
                line(3, 2, 38, &["f1c4"]),
            ]),
            played_search: Some(search(vec![line(3, 1, 20, &["d1h5"])])),
            slm: None,
        };
        let f = features(&g, &g.plies[2], &analysis, &Settings::default());
        assert_eq!(f.rank, None);
        assert_eq!(f.seen_at, Some(2));
    }

    #[test]
    fn better_than_engine_when_alone_it_scores_higher() {
        let g = fixture();
        let analysis = PositionAnalysis {
            ply_index: 2,
            search: search(vec![line(3, 1, 30, &["g1f3"])]),
            played_search: Some(search(vec![line(3, 1, 80, &["d1h5"])])),
            slm: None,
        };
        let f = features(&g, &g.plies[2], &analysis, &Settings::default());
        assert!(f.better_than_engine);
        assert_eq!(f.cp_loss, Some(0));
        assert_eq!(f.judgement, None);
        assert_eq!(f.only_move, None);
    }

    #[test]
    fn exclusions_after_search() {
        let g = fixture();
        let mut f = MoveFeatures {
            eval: Some(Score::Cp(-350)),
            ..MoveFeatures::default()
        };
        let s = Settings::default();
        assert_eq!(
            post_exclusion(&g.plies[0], &f, &s),
            Some(Exclusion::Decided)
        );
        f.eval = Some(Score::Cp(299));
        assert_eq!(post_exclusion(&g.plies[0], &f, &s), None);
        f.eval = Some(Score::Mate(-4));
        assert_eq!(
            post_exclusion(&g.plies[0], &f, &s),
            Some(Exclusion::Decided)
        );
    }

    #[test]
    fn san_of_uci_lines_in_chess960() {
        let sans = chess::uci_line_to_san(
            crate::game::STANDARD_START_FEN,
            crate::game::Variant::Standard,
            &["e2e4".into(), "e7e5".into(), "zz".into(), "g1f3".into()],
        );
        assert_eq!(sans, ["e4", "e5"]);
    }
}
