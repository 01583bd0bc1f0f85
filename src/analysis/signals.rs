//! What the report-level models read from a report: the assessment's signals of a game
//! side or player (from the summaries [`crate::report`] gathers) and the probabilities of
//! a saved report, for checking that two builds of the core agree (the CLI's
//! `train probabilities` and `assess probabilities`, the wasm `engineProbabilities` and
//! `assessmentProbabilities`).

use crate::{
    game::Side,
    model::{
        assessment::{AssessmentModel, Late, LateOdds, Pooled, PositionLoss, Signals, TopLines},
        classifier::Classifier,
    },
    plan::Exclusion,
    record::PlyReport,
    report::{GameReport, PlayerReport, Report},
    stats::calibration::Calibration,
};

/// A side's rating from the game's Elo tag (`WhiteElo`/`BlackElo`), if positive.
pub fn tag_rating(game: &GameReport, side: Side) -> Option<f64> {
    let tag = match side {
        Side::White => "WhiteElo",
        Side::Black => "BlackElo",
    };
    game.tag(tag)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|e| *e > 0.0)
}

/// The most engine-like stretch as a signal: −log10 of its adjusted p-value.
fn stretch_signal(p_adjusted: f64) -> f64 {
    -libm::log10(p_adjusted.clamp(1e-12, 1.0))
}

/// The signals of one side of a game, against `rating` when one is known: Regan's
/// z-scores when the calibration applies, and the rating itself, for the signals measured
/// against a model's own rating lines ([`Signals::with_late_z`]). With a calibration the
/// rating is kept only together with its z-scores (a side Regan's test cannot screen is
/// taken as unrated, as the models were fitted); without one (the quick screen's
/// settings) it is kept alone. `None` with fewer than
/// [`MIN_MOVES`](crate::model::assessment::MIN_MOVES) analysed moves.
pub fn side_signals(
    game: &GameReport,
    side: Side,
    rating: Option<f64>,
    calibration: Option<&Calibration>,
) -> Option<Signals> {
    let s = game.sides.get(side);
    let stretch = s
        .stretch
        .as_ref()
        .map_or(0.0, |x| stretch_signal(x.p_adjusted));
    let z = rating.zip(calibration).and_then(|(r, cal)| {
        cal.screen(
            &crate::stats::regan::side_sample(game.index, &game.plies, side),
            r,
        )
    });
    let rating = rating.filter(|_| z.is_some() || calibration.is_none());
    let mut signals = Signals::pooled(
        Pooled {
            stats: &s.stats,
            classifier: s.classifier.as_ref(),
            competence: s.competence.as_ref(),
            time: s.time.as_ref(),
            games: 1,
        },
        stretch,
        rating,
        z.as_ref(),
    )?;
    signals.set_late(side_late(game, side));
    signals.set_top_lines(side_top_lines(game, side));
    signals.position = side_position_loss(game, side);
    let cells = side_move_cells(game, side);
    signals.late_cells = LateOdds::counts(cells[cells.len() / 2..].iter().map(|(_, c)| *c));
    signals.move_cells = cells.iter().map(|(_, c)| *c).collect();
    signals.move_plies = cells.iter().map(|(p, _)| *p).collect();
    Some(signals)
}

/// The later half of a side's moves ([`side_late`]'s) by kind of move ([`LateOdds::cell`]).
pub fn side_late_cells(game: &GameReport, side: Side) -> Vec<u32> {
    let cells = side_move_cells(game, side);
    LateOdds::counts(cells[cells.len() / 2..].iter().map(|(_, c)| *c))
}

/// Every move the later-half signals read ([`late_plies`], with a win-% loss), in order:
/// its ply and its kind ([`LateOdds::cell`]).
pub fn side_move_cells(game: &GameReport, side: Side) -> Vec<(u32, u8)> {
    late_plies(game, side)
        .filter_map(|p| {
            let f = &p.features;
            Some((
                p.ply,
                LateOdds::cell(
                    f.win_loss?,
                    f.rank,
                    f.seen_at.is_some(),
                    LateOdds::kind(f.only_move, f.best_changes),
                ) as u8,
            ))
        })
        .collect()
}

/// The moves the later-half signals read: a side's searched moves that the accuracy
/// statistics count or that came in decided positions (not repetitions, which say
/// nothing of a choice).
pub fn late_plies(game: &GameReport, side: Side) -> impl Iterator<Item = &PlyReport> {
    game.plies
        .iter()
        .filter(move |p| p.side == side && p.searched)
        .filter(|p| matches!(p.excluded, None | Some(Exclusion::Decided)))
}

/// A side's counted moves (searched, not excluded) by kind of position, with their
/// win-% losses ([`PositionLoss`]).
pub fn side_position_loss(game: &GameReport, side: Side) -> PositionLoss {
    PositionLoss::of_moves(
        game.plies
            .iter()
            .filter(|p| p.side == side && p.searched && p.excluded.is_none())
            .filter_map(|p| {
                let f = &p.features;
                let cell = PositionLoss::cell(
                    f.gaps.first().copied(),
                    f.eval?.to_cp(1500).clamp(-1500, 1500),
                    f.best_changes,
                    f.alternatives.unwrap_or(0),
                );
                Some((cell, f.win_loss?))
            }),
    )
}

/// Whether each of a side's counted moves (searched, not excluded: those the accuracy
/// statistics count) was among the engine's lines at the final depth, and at some depth.
fn side_top_lines(game: &GameReport, side: Side) -> TopLines {
    let moves: Vec<(bool, bool)> = game
        .plies
        .iter()
        .filter(|p| p.side == side && p.searched && p.excluded.is_none())
        .map(|p| (p.features.rank.is_some(), p.features.seen_at.is_some()))
        .collect();
    TopLines::of_moves(&moves)
}

/// The later half of a side's searched moves ([`late_plies`]).
fn side_late(game: &GameReport, side: Side) -> Late {
    let moves: Vec<(f64, bool)> = late_plies(game, side)
        .filter_map(|p| Some((p.features.win_loss?, p.features.is_best)))
        .collect();
    Late::of_moves(&moves)
}

/// The signals of a player over all their games: pooled statistics, z-scores against
/// their rating, and the most significant stretch of any of their games (Bonferroni over
/// the games). The rating is kept as a side's is ([`side_signals`]): with its z-scores,
/// or alone when no `calibration` applies.
pub fn player_signals(
    player: &PlayerReport,
    sides: &[Signals],
    calibration: Option<&Calibration>,
) -> Option<Signals> {
    let best = sides
        .iter()
        .filter_map(|s| s.get("stretch"))
        .fold(0.0_f64, f64::max);
    let bonferroni = libm::log10(sides.len().max(1) as f64);
    let late = Late::pooled(
        &sides
            .iter()
            .map(|s| Late {
                loss: s.get("lateLoss"),
                match_rate: s.get("lateMatch"),
                moves: s.late_moves,
                early_loss: s.early.0,
                early_moves: s.early.1,
            })
            .collect::<Vec<_>>(),
    );
    let mut signals = Signals::pooled(
        Pooled {
            stats: &player.stats,
            classifier: player.classifier.as_ref(),
            competence: player.competence.as_ref(),
            time: player.time.as_ref(),
            games: player.games,
        },
        (best - bonferroni).max(0.0),
        player
            .rating
            .filter(|_| player.z_scores.is_some() || calibration.is_none()),
        player.z_scores.as_ref(),
    )?;
    signals.set_late(late);
    signals.position = PositionLoss::pooled(sides.iter().map(|s| &s.position));
    signals.set_top_lines(TopLines::pooled(
        &sides
            .iter()
            .map(|s| TopLines {
                rate: s.get("topLines"),
                seen: s.get("seenLines"),
                moves: s.top_moves,
            })
            .collect::<Vec<_>>(),
    ));
    Some(signals)
}

/// The probability of every ply of every game of a saved report, by game then ply
/// (`null` for moves that are not candidates), whatever settings the report was made
/// with: for re-scoring old reports and for checking that two builds of the core
/// agree (the CLI's `train probabilities` and the wasm `engineProbabilities`). Only
/// reports the model [`applies_to`](Classifier::applies_to) give calibrated numbers.
pub fn classifier_probabilities(model: &Classifier, report: &Report) -> Vec<Vec<Option<f64>>> {
    report
        .games
        .iter()
        .map(|g| {
            let mut plies = g.plies.clone();
            model.classify_game(&mut plies, g.variant);
            plies.iter().map(|p| p.engine_probability).collect()
        })
        .collect()
}

/// Every game side's probability in a saved report (White, Black; `None` without an
/// assessment), rated by the Elo tags, whatever settings the report was made with:
/// for checking that two builds of the core agree (the CLI's `assess probabilities`
/// and the wasm `assessmentProbabilities`). Only reports the model
/// [`applies_to`](AssessmentModel::applies_to) give calibrated numbers.
pub fn assessment_probabilities(model: &AssessmentModel, report: &Report) -> Vec<[Option<f64>; 2]> {
    let calibration =
        Calibration::builtin().filter(|c| c.applies_to(&report.settings, &report.engine));
    report
        .games
        .iter()
        .map(|g| {
            [Side::White, Side::Black].map(|side| {
                side_signals(g, side, tag_rating(g, side), calibration)
                    .and_then(|s| model.assess(&s))
                    .map(|a| a.probability)
            })
        })
        .collect()
}
