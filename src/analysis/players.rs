//! The players of a batch, built game by game: what each player's summary needs from a
//! game is taken from it when the game is added (its moves' samples, decisions, tested
//! moves, timings, the classifier's and screening's running totals, the assessment's
//! signals of its sides), so the games themselves need not be kept. A whole report and a
//! streamed one add the same games in the same order and get the same players.

use std::{
    cell::RefCell,
    collections::{BTreeMap, HashMap},
};

use super::{Models, classifier_engine_score, signals};
use crate::{
    accuracy::{self, Sample},
    game::Side,
    model::{
        assessment::{Level, Signals},
        classifier::ClassifierStats,
    },
    plan::Exclusion,
    record::screening::MatchTotals,
    report::{GameReport, PlayerReport},
    stats::{
        calibration::{Ipr, Unscreened},
        haworth::{self, Decision},
        regan::{self, Tested},
        time::{self, TimedMove},
    },
};

/// One player's running aggregate.
#[derive(Clone)]
struct Acc {
    name: String,
    games: usize,
    white: usize,
    black: usize,
    samples: Vec<Sample>,
    excluded: BTreeMap<Exclusion, usize>,
    /// Per game, in input order.
    timed: Vec<Vec<TimedMove>>,
    decisions: Vec<Decision>,
    tested: Vec<Tested>,
    elos: Vec<f64>,
    classified: ClassifierStats,
    matches: MatchTotals,
    positive_rates: Vec<f64>,
    /// The assessment's signals of each of the player's sides that had them.
    signals: Vec<Signals>,
    /// The player's game sides with an assessment, and those at `look closer`, each
    /// read on its own.
    sides_assessed: usize,
    sides_look_closer: usize,
    /// Games added so far to this aggregate, counting those of every copy it was cloned
    /// from: the key of its [`Fits`].
    revision: u64,
}

/// A player's Regan fit and intrinsic rating, as made from their tested moves at
/// `revision`: the slow part of a summary (hundreds of likelihoods over every tested
/// move), kept so that a view of a run in progress makes them again only for the players
/// whose games changed since the last view.
#[derive(Clone)]
struct Fits {
    revision: u64,
    fit: Option<regan::Fit>,
    ipr: Option<Ipr>,
}

/// Every player seen so far, in order of first appearance, matched by name
/// (case-insensitive).
#[derive(Default, Clone)]
pub(super) struct Players {
    order: Vec<String>,
    by_key: HashMap<String, Acc>,
    /// By key: the fits of the last summary ([`Fits`]).
    fits: RefCell<HashMap<String, Fits>>,
    /// Summaries without the fits ([`Players::without_fits`]).
    no_fits: bool,
}

impl Players {
    /// Adds both sides of a game (a failed game adds nothing), with the assessment's
    /// signals of each side when it has them.
    pub(super) fn add(&mut self, g: &GameReport, models: &Models, signals: [Option<Signals>; 2]) {
        self.add_only(g, models, signals, |_| true);
    }

    /// [`Players::add`] for the players whose lower-case name `keep` accepts alone (the
    /// other side of their games is left out).
    pub(super) fn add_only(
        &mut self,
        g: &GameReport,
        models: &Models,
        signals: [Option<Signals>; 2],
        keep: impl Fn(&str) -> bool,
    ) {
        if g.error.is_some() {
            return;
        }
        let w = accuracy::weights(&g.plies);
        for (side, signals) in [Side::White, Side::Black].into_iter().zip(signals) {
            let name = g.sides.get(side).player.clone();
            let key = name.to_lowercase();
            if !keep(&key) {
                continue;
            }
            let acc = match self.by_key.get_mut(&key) {
                Some(acc) => acc,
                None => {
                    self.order.push(key.clone());
                    self.by_key.entry(key).or_insert(Acc {
                        name,
                        games: 0,
                        white: 0,
                        black: 0,
                        samples: Vec::new(),
                        excluded: BTreeMap::new(),
                        timed: Vec::new(),
                        decisions: Vec::new(),
                        tested: Vec::new(),
                        elos: Vec::new(),
                        classified: ClassifierStats::default(),
                        matches: MatchTotals::default(),
                        positive_rates: Vec::new(),
                        signals: Vec::new(),
                        sides_assessed: 0,
                        sides_look_closer: 0,
                        revision: 0,
                    })
                }
            };
            if let Some(e) = signals::tag_rating(g, side) {
                acc.elos.push(e);
            }
            acc.tested
                .extend(regan::side_sample(g.index, &g.plies, side));
            let mine = || g.plies.iter().filter(move |p| p.side == side);
            if let Some(c) = models.classifier {
                c.add_to(&mut acc.classified, mine());
            }
            acc.matches.add_plies(mine());
            if let Some(r) = g
                .sides
                .get(side)
                .classifier
                .as_ref()
                .and_then(|c| c.positive_rate)
            {
                acc.positive_rates.push(r);
            }
            acc.timed.push(time::timed_moves(&g.plies, side));
            acc.decisions.extend(haworth::decisions(&g.plies, side));
            acc.games += 1;
            match side {
                Side::White => acc.white += 1,
                Side::Black => acc.black += 1,
            }
            let (s, e) = accuracy::samples(&g.plies, &w, side);
            acc.samples.extend(s);
            for (k, v) in e {
                *acc.excluded.entry(k).or_insert(0) += v;
            }
            acc.signals.extend(signals);
            if let Some(x) = &g.sides.get(side).assessment {
                acc.sides_assessed += 1;
                acc.sides_look_closer += usize::from(x.level == Level::LookCloser);
            }
            acc.revision += 1;
        }
    }

    /// [`Players::add`] to a view of `base` that is not kept (`self`, empty at first, or
    /// only ever given games this way): a player of `base` is copied here before their
    /// first game is added, so that `self` holds the players of these games with all
    /// their games, and only those.
    pub(super) fn add_over(
        &mut self,
        base: &Players,
        g: &GameReport,
        models: &Models,
        signals: [Option<Signals>; 2],
    ) {
        if g.error.is_none() {
            for side in [Side::White, Side::Black] {
                let key = g.sides.get(side).player.to_lowercase();
                if !self.by_key.contains_key(&key)
                    && let Some(acc) = base.by_key.get(&key)
                {
                    self.by_key.insert(key, acc.clone());
                }
            }
        }
        self.add(g, models, signals);
    }

    /// Players whose summaries leave out the fits ([`Fits`]: `regan` and `ipr` empty), the
    /// slow part of a summary, which no assessment signal reads.
    pub(super) fn without_fits() -> Players {
        Players {
            no_fits: true,
            ..Players::default()
        }
    }

    /// Forgets the fits kept ([`Fits`]): the models changed.
    pub(super) fn forget_fits(&mut self) {
        self.fits.get_mut().clear();
    }

    /// The players' summaries as [`Players::finish`] gives them, with the games `over`
    /// holds added ([`Players::add_over`]; players new there come last, in their order),
    /// nothing consumed: the fits of a player whose games did not change since the last
    /// summary are taken from then.
    pub(super) fn summaries(
        &self,
        over: &Players,
        models: &Models,
        entered: &HashMap<String, f64>,
    ) -> Vec<PlayerReport> {
        let mine = self.order.iter().map(|k| {
            let (acc, keep) = match over.by_key.get(k) {
                Some(acc) => (acc, false),
                None => (&self.by_key[k], true),
            };
            self.summary(k, acc, models, entered, keep)
        });
        let new = over
            .order
            .iter()
            .filter(|k| !self.by_key.contains_key(*k))
            .map(|k| over.summary(k, &over.by_key[k], models, entered, false));
        mine.chain(new).collect()
    }

    /// The players' summaries, in order of first appearance: statistics, screening
    /// against their rating (entered, by lower-case name, else the mean of their Elo
    /// tags), verdicts and, with an assessment model, their assessments.
    pub(super) fn finish(
        self,
        models: &Models,
        entered: &HashMap<String, f64>,
    ) -> Vec<PlayerReport> {
        self.order
            .iter()
            .map(|k| self.summary(k, &self.by_key[k], models, entered, false))
            .collect()
    }

    /// One player's summary ([`Players::finish`]), with the fits kept from the last
    /// summary if `acc` did not change since, and kept for the next if `keep`.
    fn summary(
        &self,
        key: &str,
        a: &Acc,
        models: &Models,
        entered: &HashMap<String, f64>,
        keep: bool,
    ) -> PlayerReport {
        let Models {
            classifier,
            calibration,
            assessment,
        } = *models;
        let kept = self
            .fits
            .borrow()
            .get(key)
            .filter(|f| keep && f.revision == a.revision)
            .cloned();
        let fits = kept.unwrap_or_else(|| {
            let fits = Fits {
                revision: a.revision,
                fit: (!self.no_fits).then(|| regan::fit(&a.tested)).flatten(),
                ipr: (!self.no_fits)
                    .then(|| calibration.and_then(|c| c.ipr(&a.tested)))
                    .flatten(),
            };
            if keep {
                self.fits.borrow_mut().insert(key.to_owned(), fits.clone());
            }
            fits
        });
        let rating = entered.get(key).copied().or_else(|| {
            (!a.elos.is_empty()).then(|| a.elos.iter().sum::<f64>() / a.elos.len() as f64)
        });
        let ipr = fits.ipr;
        let screening = match (calibration, rating) {
            (None, _) => Err(Unscreened::NoCalibration),
            (Some(_), None) => Err(Unscreened::NoRating),
            (Some(c), Some(r)) => c.screen(&a.tested, r).ok_or(Unscreened::NoMoves),
        };
        let (verdict, evidence) =
            crate::stats::calibration::verdict(screening.as_ref().map_err(|e| *e), &a.tested, 10);
        let screening = screening.ok();
        let classified = classifier.map(|_| a.classified.clone());
        let mut stats = accuracy::summarise(&a.samples, a.excluded.clone());
        classifier_engine_score(&mut stats, classified.as_ref());
        let mut player = PlayerReport {
            stats,
            classifier: classified,
            game_positive_rates: a.positive_rates.clone(),
            rating,
            z_scores: screening,
            ipr: ipr.map(|i| i.elo),
            ipr_range: ipr.map(|i| (i.low, i.high)),
            ipr_edge: ipr.and_then(|i| i.edge),
            time: time::time_stats(&a.timed),
            name: a.name.clone(),
            games: a.games,
            white_games: a.white,
            black_games: a.black,
            competence: haworth::competence(&a.decisions, false),
            regan: fits.fit,
            verdict: Some(verdict),
            evidence,
            matches: (a.matches.moves > 0).then(|| a.matches.clone()),
            assessment: None,
        };
        if let Some(model) = assessment {
            // A player of one game is that game side, read as the side is: with the
            // signals a single side has (`GAME_SIDE_ONLY`), which pooled games have not,
            // so the page's player and game rows give the same answer.
            let signals = match a.signals.as_slice() {
                [side] if a.games == 1 => Some(side.clone()),
                sides => signals::player_signals(&player, sides, calibration),
            };
            let assessed =
                signals
                    .and_then(|s| model.assess(&s))
                    .map(|x| match model.side_look_closer_rate {
                        Some(rate) if a.games > 1 => {
                            x.with_game_sides(a.sides_look_closer, a.sides_assessed, rate)
                        }
                        _ => x,
                    });
            if let Some(x) = &assessed {
                player.stats.engine_score = Some(x.probability);
            }
            player.assessment = assessed;
        }
        player
    }
}
