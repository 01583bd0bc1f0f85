//! The assessment: one calibrated probability per game side and per player that the play
//! was engine-assisted, a level (`no concern` / `unclear` / `look closer`) and the reasons
//! in plain words, each with the range clean humans show.
//!
//! It combines the signals the report already has ([`SIGNALS`]): the move classifier's
//! style score, accuracy, top-move match and competence (absolute: they need no rating),
//! Regan's z-scores against the player's rating (only when a rating is known), the most
//! engine-like stretch, and time use (only when the game has clocks). No signal is a name,
//! a raw rating, the game's length, its time control or its book: a rating is only the
//! reference the z-scores are computed against.
//!
//! The model file (`models/assessment.json`, made by `fairsight assess fit` from the
//! corpus) holds one model per kind of input ([`Variant`]: rated or not, clocks or not),
//! so one game with no rating and no clocks gets an assessment, and each extra piece of
//! information sharpens it. Inside each, one [`Expert`] per kind of assistance (top
//! engines, weaker engines, a switch part-way) scores the side on a common clean-human
//! scale, and the expert that finds it most engine-like decides (and names what the play
//! [`resembles`](Assessment::resembles)). Each variant's raw score is calibrated (Platt
//! scaling on the validation split) and has thresholds set from measured false-positive
//! rates on clean human game sides.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::{
    accuracy::Accuracy,
    model::classifier::{ClassifierStats, Model},
    plan::Settings,
    record::EngineInfo,
    stats::{calibration::ZScores, haworth::Competence, time::TimeStats},
};

/// The signals, by name, in vector order.
pub const SIGNALS: [&str; 27] = [
    "classifier",
    "positiveRate",
    "acpl",
    "accuracy",
    "matchRate",
    "competence",
    "stretch",
    "lateLoss",
    "lateMatch",
    "zMm",
    "zEv",
    "zAsd",
    "zLateLoss",
    "zLateMatch",
    "timeCv",
    "windowCv",
    "fastShare",
    "difficultyCorrelation",
    "topLines",
    "zTopLines",
    "lateGain",
    "seenLines",
    "zSeenLines",
    "zPositionLoss",
    "lateOdds",
    "switchOdds",
    "switchOddsAll",
];

/// Which way each signal points to engine play: +1 where a higher value is more
/// engine-like, −1 where a lower one is (losses and error sizes, and their z-scores,
/// whose sign is the player's loss against the rating's). The clock signals have no
/// fixed direction (an engine user may move evenly or erratically) and are not listed.
/// The fit keeps an expert's logistic weights in these directions, so that every reason
/// moves the probability the way its value reads.
pub const ENGINE_DIRECTION: [(&str, f64); 23] = [
    ("classifier", 1.0),
    ("positiveRate", 1.0),
    ("acpl", -1.0),
    ("accuracy", 1.0),
    ("matchRate", 1.0),
    ("competence", 1.0),
    ("stretch", 1.0),
    ("lateLoss", -1.0),
    ("lateMatch", 1.0),
    ("zMm", 1.0),
    ("zEv", 1.0),
    ("zAsd", -1.0),
    ("zLateLoss", -1.0),
    ("zLateMatch", 1.0),
    ("topLines", 1.0),
    ("zTopLines", 1.0),
    ("lateGain", 1.0),
    ("seenLines", 1.0),
    ("zSeenLines", 1.0),
    ("zPositionLoss", -1.0),
    ("lateOdds", 1.0),
    ("switchOdds", 1.0),
    ("switchOddsAll", 1.0),
];

/// A signal's engine direction ([`ENGINE_DIRECTION`]), `None` for the clock signals.
pub fn engine_direction(signal: &str) -> Option<f64> {
    ENGINE_DIRECTION
        .iter()
        .find(|(s, _)| *s == signal)
        .map(|(_, d)| *d)
}

/// Signals that need a rating.
pub const RATED_SIGNALS: [&str; 10] = [
    "zMm",
    "zEv",
    "zAsd",
    "zLateLoss",
    "zLateMatch",
    "zTopLines",
    "zSeenLines",
    "zPositionLoss",
    "lateOdds",
    "switchOdds",
];
/// Signals that need clocks.
pub const CLOCK_SIGNALS: [&str; 4] = ["timeCv", "windowCv", "fastShare", "difficultyCorrelation"];

/// Fewest analysed moves for an assessment.
pub const MIN_MOVES: usize = 8;

/// A side's or a player's signal values (`None`: not available), in [`SIGNALS`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct Signals {
    /// The values.
    pub values: [Option<f64>; SIGNALS.len()],
    /// Analysed moves behind them.
    pub moves: usize,
    /// The rating the z-scores were computed against.
    pub rating: Option<f64>,
    /// Whether the moves had clock times.
    pub clocks: bool,
    /// Games behind them (1 for a side of a game).
    pub games: usize,
    /// Moves behind the later-half signals ([`Late::moves`]).
    pub late_moves: usize,
    /// The first half's loss and moves ([`Late::early_loss`]), for a player's pooling.
    pub early: (Option<f64>, usize),
    /// Moves behind `topLines` and `seenLines` ([`TopLines::moves`]).
    pub top_moves: usize,
    /// Regan's z-scores (`zMm`, `zEv`, `zAsd`) as his model gives them, before any
    /// correction for the rating band ([`RatingBias`]), and the moves they tested.
    pub regan: ([Option<f64>; 3], usize),
    /// The counted moves' losses by kind of position, from which `zPositionLoss` is
    /// computed against the rating ([`PositionLoss`]).
    pub position: PositionLoss,
    /// The later half's moves by kind of move ([`LateOdds::cell`]; empty for a player's
    /// pooled games), from which `lateOdds` is computed against the rating.
    pub late_cells: Vec<u32>,
    /// Every move the later-half signals read, in order, by kind ([`LateOdds::cell`];
    /// empty for a player's pooled games), from which `switchOdds` is computed against the
    /// rating.
    pub move_cells: Vec<u8>,
    /// The ply of each of `move_cells` ([`crate::GameReport`]'s numbering), to say where
    /// the run `switchOdds` reads starts ([`Signals::switch_from`]); empty when unknown.
    pub move_plies: Vec<u32>,
}

/// Regan's z-scores, in [`Signals::regan`] order.
pub const REGAN_SIGNALS: [&str; 3] = ["zMm", "zEv", "zAsd"];

impl Signals {
    /// No signal, for one game side of no analysed move (a start to fill in).
    pub fn none() -> Signals {
        Signals {
            values: [None; SIGNALS.len()],
            moves: 0,
            rating: None,
            clocks: false,
            games: 1,
            late_moves: 0,
            early: (None, 0),
            top_moves: 0,
            regan: ([None; 3], 0),
            position: PositionLoss::default(),
            late_cells: Vec::new(),
            move_cells: Vec::new(),
            move_plies: Vec::new(),
        }
    }

    /// The move (full-move number) where the run `signal` (`switchOdds` or
    /// `switchOddsAll`) reads from starts, by `reference`'s tables: the most engine-like
    /// run to the end of the game. `None` for any other signal, without the table or
    /// the moves' plies, or for a player's pooled games.
    pub fn switch_from(&self, signal: &str, reference: &LateReference) -> Option<u32> {
        let (odds, band) = match signal {
            "switchOdds" => (
                reference.switch_odds.as_ref()?,
                LateOdds::band(self.rating?),
            ),
            "switchOddsAll" => (reference.switch_odds_all.as_ref()?, 0),
            _ => return None,
        };
        if self.games != 1 || self.move_plies.len() != self.move_cells.len() {
            return None;
        }
        let (_, start) = odds.switch_run(&self.move_cells, band)?;
        self.move_plies.get(start).map(|ply| ply.div_ceil(2))
    }

    /// A signal's value by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        SIGNALS
            .iter()
            .position(|s| *s == name)
            .and_then(|i| self.values[i])
    }

    /// Sets the later-half signals ([`Late`]).
    pub fn set_late(&mut self, late: Late) {
        self.set("lateLoss", late.loss);
        self.set("lateMatch", late.match_rate);
        self.set("lateGain", late.gain());
        self.late_moves = late.moves;
        self.early = (late.early_loss, late.early_moves);
    }

    /// Sets `topLines` and `seenLines` ([`TopLines`]).
    pub fn set_top_lines(&mut self, top: TopLines) {
        self.set("topLines", top.rate);
        self.set("seenLines", top.seen);
        self.top_moves = top.moves;
    }

    /// The signals with the later half against the rating (`zLateLoss`, `zLateMatch`)
    /// and the share of moves among the engine's lines (`zTopLines`, and at any depth
    /// `zSeenLines`, when the reference has their lines) computed from `reference`, and every z-score against the rating
    /// recentred on the clean humans of its band when the reference has their bias
    /// ([`RatingBias`]), then a player's narrowed by the player effects it has
    /// ([`PlayerEffect`]); unchanged without a rating. Always computed from the values
    /// the z-scores come from, so applying it twice changes nothing.
    pub fn with_late_z(&self, reference: &LateReference) -> Signals {
        let mut s = self.clone();
        // Against every clean human whatever their rating: with a rating or without.
        if let Some(odds) = reference
            .switch_odds_all
            .as_ref()
            .filter(|_| self.games == 1)
        {
            s.set("switchOddsAll", clip(odds.switch_in(&self.move_cells, 0)));
        }
        let Some(rating) = s.rating else {
            return s;
        };
        // The sides a player's pooled values count as: a game each, or with the moves of a
        // typical side, their moves' worth of sides (never more than their games).
        let games = self.games as f64;
        let (late, top) = match reference.side_moves {
            Some(t) if self.games > 1 => (
                SideMoves::units(self.late_moves, t.late, self.games),
                SideMoves::units(self.top_moves, t.top, self.games),
            ),
            _ => (games, games),
        };
        let z = |line: &RatingLine, name: &str, units: f64| {
            self.get(name)
                .map(|v| line.z(model_value(name, v), rating, units))
        };
        let mut raw = vec![
            ("zLateLoss", z(&reference.loss, "lateLoss", late), late),
            (
                "zLateMatch",
                z(&reference.match_rate, "lateMatch", late),
                late,
            ),
        ];
        if let Some(line) = &reference.top_lines {
            raw.push(("zTopLines", z(line, "topLines", top), top));
        }
        // A game side's only, as `zPositionLoss` (below): pooled over a player's games, the
        // share of moves among the engine's lines carries the rating pool's offset game
        // after game (clean online players rated 524-1,086 read +2.1 at five games).
        if let Some(line) = &reference.seen_lines {
            let z = z(line, "seenLines", top).filter(|_| self.games == 1);
            raw.push(("zSeenLines", z, games));
        }
        // A game side's only: pooled over a player's games, what is left of the gap
        // between the pool a rating comes from and the table's players adds up game
        // after game (clean pseudo-players of 20 unseen sides reached a probability of
        // 1.000 on it), and a player is read on the other z-scores.
        let table = match &reference.position_loss_clocks {
            Some(t) if self.clocks => Some(t),
            _ => reference.position_loss.as_ref(),
        }
        .filter(|_| self.games == 1);
        if let Some(table) = table {
            raw.push(("zPositionLoss", table.z(&self.position, rating), games));
        }
        // A game side's only, as the two above: a player's games each have their own later
        // half, whose odds a sum over the games would not weigh as one side's.
        if let Some(odds) = reference.late_odds.as_ref().filter(|_| self.games == 1) {
            raw.push(("lateOdds", odds.value(&self.late_cells, rating), 1.0));
        }
        if let Some(odds) = reference.switch_odds.as_ref().filter(|_| self.games == 1) {
            raw.push(("switchOdds", odds.switch(&self.move_cells, rating), 1.0));
        }
        if reference.bias.is_some() || !reference.player_effects.is_empty() {
            for (i, name) in REGAN_SIGNALS.iter().enumerate() {
                raw.push((name, self.regan.0[i], self.regan.1 as f64));
            }
        }
        if let Some(bias) = &reference.bias {
            for (name, v, units) in &mut raw {
                *v = v.map(|v| v - bias.offset(name, rating, *units));
            }
        }
        for effect in &reference.player_effects {
            if let Some((_, v, _)) = raw.iter_mut().find(|r| r.0 == effect.signal) {
                *v = v.map(|v| v * effect.narrowing(self.games));
            }
        }
        for (name, v, _) in raw {
            s.set(name, clip(v));
        }
        s
    }

    fn set(&mut self, name: &str, v: Option<f64>) {
        if let Some(i) = SIGNALS.iter().position(|s| *s == name) {
            self.values[i] = v.filter(|x| x.is_finite());
        }
    }
}

/// Win-chance loss and top-move match over the later half of a side's searched moves
/// (the last ⌈n/2⌉), decided positions included: a player who turns to an engine part-way
/// through a game plays its later half like one, which the whole game's averages dilute,
/// and the engine soon makes the game decided, which the counted moves leave out. The
/// loss is lichess's win-% loss, which stays meaningful in a decided position where
/// centipawns do not. Not a count: it does not grow with the game's length.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Late {
    /// Average win-% loss of those moves (0-100).
    pub loss: Option<f64>,
    /// Share of them that were the engine's first choice.
    pub match_rate: Option<f64>,
    /// How many moves.
    pub moves: usize,
    /// Average win-% loss of the first half (the other ⌊n/2⌋ moves).
    pub early_loss: Option<f64>,
    /// How many moves that is.
    pub early_moves: usize,
}

impl Late {
    /// From a side's searched moves in game order: each move's win-% loss and whether it
    /// was the engine's first choice.
    pub fn of_moves(moves: &[(f64, bool)]) -> Late {
        let (earlier, later) = moves.split_at(moves.len() / 2);
        let n = later.len();
        if n == 0 {
            return Late::default();
        }
        Late {
            loss: Some(later.iter().map(|m| m.0).sum::<f64>() / n as f64),
            match_rate: Some(later.iter().filter(|m| m.1).count() as f64 / n as f64),
            moves: n,
            early_loss: (!earlier.is_empty())
                .then(|| earlier.iter().map(|m| m.0).sum::<f64>() / earlier.len() as f64),
            early_moves: earlier.len(),
        }
    }

    /// `lateGain`: how much smaller the later half's loss is than the first half's,
    /// `ln(1 + early) − ln(1 + late)` (the log scale the models read losses on). A player
    /// who hands the rest of a game to an engine loses less after the switch than before
    /// it, by their own standard, whatever their rating; an honest player's later half,
    /// with the opening behind, is usually the harder one. Needs no rating.
    pub fn gain(&self) -> Option<f64> {
        Some(libm::log(1.0 + self.early_loss?.max(0.0)) - libm::log(1.0 + self.loss?.max(0.0)))
    }

    /// A player's: the games' later halves pooled (means weighted by their moves).
    pub fn pooled(sides: &[Late]) -> Late {
        let mean = |f: fn(&Late) -> Option<f64>| {
            let (sum, n) = sides
                .iter()
                .filter_map(|l| f(l).map(|v| (v * l.moves as f64, l.moves)))
                .fold((0.0, 0), |(s, n), (v, m)| (s + v, n + m));
            (n > 0).then(|| sum / n as f64)
        };
        let (sum, early_moves) = sides
            .iter()
            .filter_map(|l| {
                l.early_loss
                    .map(|v| (v * l.early_moves as f64, l.early_moves))
            })
            .fold((0.0, 0), |(s, n), (v, m)| (s + v, n + m));
        Late {
            loss: mean(|l| l.loss),
            match_rate: mean(|l| l.match_rate),
            moves: sides.iter().map(|l| l.moves).sum(),
            early_loss: (early_moves > 0).then(|| sum / early_moves as f64),
            early_moves,
        }
    }
}

/// The share of a side's counted moves (those the accuracy statistics count) that were
/// one of the engine's lines (at the defaults its four best moves), whatever their rank:
/// at the final depth (`topLines`), and at any depth of the search (`seenLines`). A
/// strength-limited Stockfish picks its move among its own best few at a shallow depth
/// (its level's), with random errors of size but seldom outside them; a human's worst
/// moves are often moves the engine considers at no depth. Not a count: it does not grow
/// with the game's length.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TopLines {
    /// The share among the lines at the final depth (0-1).
    pub rate: Option<f64>,
    /// The share among the lines at some depth (0-1; [`MoveFeatures::seen_at`]).
    ///
    /// [`MoveFeatures::seen_at`]: crate::record::features::MoveFeatures::seen_at
    pub seen: Option<f64>,
    /// How many moves.
    pub moves: usize,
}

impl TopLines {
    /// From each counted move: whether it was among the lines at the final depth, and
    /// whether at some depth.
    pub fn of_moves(moves: &[(bool, bool)]) -> TopLines {
        let n = moves.len();
        let share = |f: fn(&(bool, bool)) -> bool| {
            (n > 0).then(|| moves.iter().filter(|m| f(m)).count() as f64 / n as f64)
        };
        TopLines {
            rate: share(|m| m.0),
            seen: share(|m| m.1),
            moves: n,
        }
    }

    /// A player's: the games' shares pooled (weighted by their moves).
    pub fn pooled(sides: &[TopLines]) -> TopLines {
        let mean = |f: fn(&TopLines) -> Option<f64>| {
            let (sum, n) = sides
                .iter()
                .filter_map(|t| f(t).map(|r| (r * t.moves as f64, t.moves)))
                .fold((0.0, 0), |(s, n), (v, m)| (s + v, n + m));
            (n > 0).then(|| sum / n as f64)
        };
        TopLines {
            rate: mean(|t| t.rate),
            seen: mean(|t| t.seen),
            moves: sides.iter().map(|t| t.moves).sum(),
        }
    }
}

/// What clean humans of a rating show in the later half of their moves ([`Late`]): a
/// least-squares line on the rating for each later-half signal (on the models' scale,
/// [`model_value`]), fitted on the clean human game sides of the train split, with the
/// spread of those sides around it. A strong player who wins cleanly has a clean later
/// half; so has a weak player who hands the rest of the game to an engine, which only
/// the rating tells apart: `zLateLoss` and `zLateMatch` say how far a side's later half
/// is from its rating's, as Regan's z-scores do for the whole game. The same for the share
/// of moves among the engine's lines ([`TopLines`], `zTopLines`): a player far above their
/// rating in it plays like a stronger player, or an engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LateReference {
    /// `lateLoss` (its logarithm, as the models read it).
    pub loss: RatingLine,
    /// `lateMatch`.
    pub match_rate: RatingLine,
    /// `topLines` (absent in models fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_lines: Option<RatingLine>,
    /// `seenLines` (absent in models fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen_lines: Option<RatingLine>,
    /// What clean humans of each rating band lose in each kind of position, for
    /// `zPositionLoss` of input without clocks (over the board, as a rule: absent in
    /// models fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_loss: Option<LossTable>,
    /// The same from clean humans with clocks (online, as a rule), for input with them:
    /// a rating of one pool is not one of the other, and an over-the-board player loses
    /// less than an online blitz player of the same number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_loss_clocks: Option<LossTable>,
    /// How often clean humans of each rating band, and engines, make each kind of move in
    /// the later half, for `lateOdds` (absent in models fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_odds: Option<LateOdds>,
    /// How often clean humans of each rating band make each kind of move in a whole game,
    /// and an engine after a player switched to it, for `switchOdds` (absent in models
    /// fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_odds: Option<LateOdds>,
    /// The same with every clean human in one band whatever their rating, for
    /// `switchOddsAll`, which needs no rating (absent in models fitted before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_odds_all: Option<LateOdds>,
    /// How far clean humans of each rating band sit from zero in every z-score against
    /// the rating, taken off before a model reads them (absent in models fitted before
    /// it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bias: Option<RatingBias>,
    /// How much of each z-score's spread lies between players, by which a player's
    /// pooled z-score is narrowed ([`PlayerEffect`]; empty in models fitted before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub player_effects: Vec<PlayerEffect>,
    /// How many moves one clean side's later half and top lines have, by which a
    /// player's pooled z-scores count their games ([`SideMoves`]; set after the fit, by
    /// `fairsight assess thresholds --side-moves`; absent: a game each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_moves: Option<SideMoves>,
}

/// The moves behind one clean human side's later-half signals and its top lines: the
/// harmonic means of the train split's rated clean sides' moves, those the rating lines
/// were fitted on. A side's value is a mean over its moves, so its spread around the line
/// (a [`RatingLine`]'s `sd`) is that of a side of this many moves; a player's pooled value
/// over `m` moves counts as `m / moves` sides, held between one side and their games: two
/// games of 8 moves are not read as sure as two of 40 (a clean pair of short lichess games
/// read at a probability of 1.000 on its later half when each game counted as a side).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SideMoves {
    /// The later half's moves ([`Late::moves`]).
    pub late: f64,
    /// The top lines' moves ([`TopLines::moves`]).
    pub top: f64,
}

impl SideMoves {
    /// The harmonic means of the sides' `(late, top)` moves (those with none left out);
    /// `None` without a side of each.
    pub fn fit(sides: &[(usize, usize)]) -> Option<SideMoves> {
        let harmonic = |f: fn(&(usize, usize)) -> usize| {
            let (n, inv) = sides
                .iter()
                .map(f)
                .filter(|m| *m > 0)
                .fold((0.0, 0.0), |(n, s), m| (n + 1.0, s + 1.0 / m as f64));
            (n > 0.0).then(|| n / inv)
        };
        Some(SideMoves {
            late: harmonic(|s| s.0)?,
            top: harmonic(|s| s.1)?,
        })
    }

    /// The sides a pooled value of `moves` moves over `games` games counts as: `moves /
    /// typical`, held between 1 and `games`.
    pub fn units(moves: usize, typical: f64, games: usize) -> f64 {
        let games = games.max(1) as f64;
        if typical > 0.0 {
            (moves as f64 / typical).clamp(1.0, games)
        } else {
            games
        }
    }
}

/// The share of a z-score's spread among clean human game sides that lies between players
/// (the intraclass correlation `icc` of the sides of the train split's players with two
/// or more games, one-way analysis of variance). A player's own style and form are in
/// each of their games, so the mean of `g` of their sides varies `1 + icc·(g − 1)` times
/// more than `g` independent sides' would; a player's pooled z-score, which assumes them
/// independent, is divided by the square root of that, so that an honest player of many
/// games is no further out than an honest side (Regan's `zAsd`: icc about 0.2, a 20-game
/// player's pooled z about 2.3 times too far out without it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerEffect {
    /// The z-score.
    pub signal: String,
    /// Its intraclass correlation between players (0 to 1).
    pub icc: f64,
    /// The players it was fitted on.
    pub players: usize,
}

impl PlayerEffect {
    /// The intraclass correlation of `groups` (one player's values each; players with
    /// fewer than two values are left out), by one-way analysis of variance with unequal
    /// group sizes, at least 0; `None` with fewer than 10 such players.
    pub fn fit(signal: &str, groups: &[Vec<f64>]) -> Option<PlayerEffect> {
        let groups: Vec<&Vec<f64>> = groups.iter().filter(|g| g.len() >= 2).collect();
        let k = groups.len();
        if k < 10 {
            return None;
        }
        let n: f64 = groups.iter().map(|g| g.len() as f64).sum();
        let grand = groups.iter().flat_map(|g| g.iter()).sum::<f64>() / n;
        let (mut between, mut within) = (0.0, 0.0);
        for g in &groups {
            let mean = g.iter().sum::<f64>() / g.len() as f64;
            between += g.len() as f64 * (mean - grand) * (mean - grand);
            within += g.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
        }
        let msb = between / (k as f64 - 1.0);
        let msw = within / (n - k as f64);
        let n0 = (n - groups
            .iter()
            .map(|g| (g.len() * g.len()) as f64)
            .sum::<f64>()
            / n)
            / (k as f64 - 1.0);
        let icc = (msb - msw) / (msb + (n0 - 1.0) * msw);
        Some(PlayerEffect {
            signal: signal.to_owned(),
            icc: if icc.is_finite() {
                icc.clamp(0.0, 1.0)
            } else {
                0.0
            },
            players: k,
        })
    }

    /// The factor a pooled z-score of `games` game sides is multiplied by.
    pub fn narrowing(&self, games: usize) -> f64 {
        1.0 / libm::sqrt(1.0 + self.icc * (games.max(1) - 1) as f64)
    }
}

/// How far the clean human game sides of each rating band sit from zero in each z-score
/// against the rating (Regan's [`REGAN_SIGNALS`] and the later half's and top lines'
/// [`RatingLine`]s), fitted on the train split. Regan's model, fitted on classical
/// over-the-board games, expects fewer errors of a weak online player than they make
/// (their `zAsd` runs about +2 under 1600) and the straight rating lines miss a curve at
/// either end, so a weak honest player would read as human-like or engine-like by band
/// alone. A bias of `b` per unit moves a z-score of `n` units by `b·√n`: the units are
/// the moves Regan's z-scores tested (an error in a move's expected value adds up over
/// the moves, the spread only as their square root) and the games behind the others
/// (their z-scores already scale with √games).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingBias {
    /// The bands' upper edges, ascending: band `k` holds the ratings below `edges[k]`
    /// and at or above `edges[k - 1]`; the last band, the ratings at or above the last
    /// edge.
    pub edges: Vec<f64>,
    /// The bias per unit of each signal, one per band.
    pub signals: Vec<BandBias>,
}

/// The band of `rating` among ascending upper `edges` ([`RatingBias::edges`]).
fn band_of(edges: &[f64], rating: f64) -> usize {
    edges.iter().take_while(|e| rating >= **e).count()
}

/// One signal's bias per band ([`RatingBias`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BandBias {
    /// The signal.
    pub signal: String,
    /// The bias per unit in each band.
    pub per_unit: Vec<f64>,
    /// The clean human sides each band's was fitted on.
    pub sides: Vec<usize>,
}

impl RatingBias {
    /// The bands' upper edges the fit uses.
    pub const EDGES: [f64; 5] = [1200.0, 1600.0, 2000.0, 2200.0, 2400.0];
    /// Sides worth of zero bias each band's mean is shrunk toward: a band of few sides
    /// is corrected by less than its mean.
    pub const PRIOR_SIDES: f64 = 20.0;

    /// The offset to take off `signal`'s z-score of `units` units at `rating` (0 for a
    /// signal it has no bias for).
    pub fn offset(&self, signal: &str, rating: f64, units: f64) -> f64 {
        let band = band_of(&self.edges, rating);
        self.signals
            .iter()
            .find(|b| b.signal == signal)
            .and_then(|b| b.per_unit.get(band))
            .map_or(0.0, |b| b * libm::sqrt(units.max(1.0)))
    }

    /// Fits the bias from clean human sides: `(signal, rating, z-score, units)` for each
    /// side and signal, the mean of `z / √units` in each band shrunk toward zero by
    /// [`Self::PRIOR_SIDES`].
    pub fn fit(samples: &[(&str, f64, f64, usize)]) -> RatingBias {
        let edges = Self::EDGES.to_vec();
        let mut names: Vec<&str> = samples.iter().map(|s| s.0).collect();
        names.sort_unstable();
        names.dedup();
        let signals = names
            .into_iter()
            .map(|name| {
                let mut sum = vec![0.0; edges.len() + 1];
                let mut sides = vec![0; edges.len() + 1];
                for (_, rating, z, units) in samples.iter().filter(|s| s.0 == name) {
                    let band = band_of(&edges, *rating);
                    sum[band] += z / libm::sqrt((*units).max(1) as f64);
                    sides[band] += 1;
                }
                BandBias {
                    signal: name.to_owned(),
                    per_unit: sum
                        .iter()
                        .zip(&sides)
                        .map(|(s, n)| s / (*n as f64 + Self::PRIOR_SIDES))
                        .collect(),
                    sides,
                }
            })
            .collect();
        RatingBias { edges, signals }
    }
}

/// A signal's expected value at a rating, `intercept + slope · rating`, and the standard
/// deviation of one game side around it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingLine {
    /// The value at rating 0.
    pub intercept: f64,
    /// The change per rating point.
    pub slope: f64,
    /// One game side's standard deviation around the line.
    pub sd: f64,
    /// The ratings it holds for: the 1st and 99th percentiles of those it was fitted on.
    /// A rating outside is read at the nearer end: a straight line carried far beyond
    /// its data (clean online players rated 500-1,000 against a line of mostly
    /// 1,500-2,700) makes any share or loss look far off it (absent in models fitted
    /// before it: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<(f64, f64)>,
}

impl RatingLine {
    /// Least squares of `(rating, value)` pairs; `None` with fewer than 10 pairs or no
    /// spread of ratings or values.
    pub fn fit(pairs: &[(f64, f64)]) -> Option<RatingLine> {
        let n = pairs.len() as f64;
        if pairs.len() < 10 {
            return None;
        }
        let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let slope = sxy / sxx;
        let intercept = my - slope * mx;
        let sse: f64 = pairs
            .iter()
            .map(|p| (p.1 - intercept - slope * p.0).powi(2))
            .sum();
        let sd = libm::sqrt(sse / (n - 2.0));
        let mut ratings: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        ratings.sort_by(f64::total_cmp);
        let at = |q: f64| ratings[((ratings.len() - 1) as f64 * q).round() as usize];
        (sd > 0.0).then_some(RatingLine {
            intercept,
            slope,
            sd,
            range: Some((at(0.01), at(0.99))),
        })
    }

    /// How many standard deviations `value` is above the line at `rating`, for the pooled
    /// value of `units` game sides (their mean varies √units times less; at least one).
    pub fn z(&self, value: f64, rating: f64, units: f64) -> f64 {
        // (`max`/`min`, not `clamp`, which panics on a file's inverted range)
        let rating = self.range.map_or(rating, |(lo, hi)| rating.max(lo).min(hi));
        (value - self.intercept - self.slope * rating) / self.sd * libm::sqrt(units.max(1.0))
    }
}

impl LateReference {
    /// Fits the lines on clean human game sides' signals (those with a rating and the
    /// later-half signals); `None` when too few have them.
    pub fn fit(clean_humans: &[&Signals]) -> Option<LateReference> {
        let pairs = |name: &str| -> Vec<(f64, f64)> {
            clean_humans
                .iter()
                .filter_map(|s| Some((s.rating?, model_value(name, s.get(name)?))))
                .collect()
        };
        // What clean humans lose by kind of position: all of them, then those without
        // clocks and those with, each cell shrunk toward all of them.
        let sides = |clocks: Option<bool>| -> Vec<(f64, &PositionLoss)> {
            clean_humans
                .iter()
                .filter(|s| clocks.is_none_or(|c| s.clocks == c))
                .filter_map(|s| Some((s.rating?, &s.position)))
                .collect()
        };
        let all = LossTable::fit(&sides(None), None);
        let tables = match &all {
            Some(all) => (
                LossTable::fit(&sides(Some(false)), Some(all)).or_else(|| Some(all.clone())),
                LossTable::fit(&sides(Some(true)), Some(all)),
            ),
            None => (None, None),
        };
        Some(LateReference {
            loss: RatingLine::fit(&pairs("lateLoss"))?,
            match_rate: RatingLine::fit(&pairs("lateMatch"))?,
            top_lines: RatingLine::fit(&pairs("topLines")),
            seen_lines: RatingLine::fit(&pairs("seenLines")),
            position_loss: tables.0,
            position_loss_clocks: tables.1,
            late_odds: None,
            switch_odds: None,
            switch_odds_all: None,
            bias: None,
            player_effects: Vec::new(),
            // Set by `assess thresholds --side-moves`, a step of the recipe after the fit.
            side_moves: None,
        })
    }
}

/// A side's (or a player's) counted moves by kind of position, for `zPositionLoss`: per
/// cell ([`PositionLoss::cell`]) the moves, their summed win-% loss and its square (each
/// loss capped at [`PositionLoss::CAP`]). A human's errors come where positions are hard
/// for a human of their rating; a side that loses less than clean humans of its rating
/// lose in the same kinds of positions plays above it. Unlike Regan's `zAsd`, whose
/// table has no band under 1,645, the expectation comes from the corpus's own clean
/// humans of every band ([`LossTable`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionLoss {
    cells: std::collections::BTreeMap<u16, (u32, f64, f64)>,
}

impl PositionLoss {
    /// A move's loss counts up to this many win-% points: one blunder is one error.
    pub const CAP: f64 = 50.0;
    /// Upper bounds of the gap from the best line to the second (cp).
    const GAPS: [i32; 4] = [10, 30, 80, 200];
    /// Upper bounds of the position's evaluation, either side (cp; mates count 1,500).
    const EVALS: [i32; 3] = [50, 150, 300];
    /// Cells: gap bands × evaluation bands × best-move changes (0-3+) × good
    /// alternatives (0-3).
    pub const CELLS: usize = (Self::GAPS.len() + 1) * (Self::EVALS.len() + 1) * 4 * 4;

    /// The cell of a position: the gap from the best line to the second (`None` with
    /// one line: no second move to choose), the evaluation (cp, mover's side or White's,
    /// mates as ±1,500 or more), how often the engine's best move changed over the
    /// depths, and how many other lines were good.
    pub fn cell(gap: Option<i32>, eval_cp: i32, best_changes: u32, alternatives: u32) -> u16 {
        let band = |v: i32, bounds: &[i32]| bounds.iter().filter(|b| v > **b).count();
        let g = band(gap.unwrap_or(0), &Self::GAPS);
        let e = band(eval_cp.saturating_abs(), &Self::EVALS);
        let c = best_changes.min(3) as usize;
        let a = alternatives.min(3) as usize;
        (((g * (Self::EVALS.len() + 1) + e) * 4 + c) * 4 + a) as u16
    }

    /// The moves' `(cell, win-% loss)`.
    pub fn of_moves(moves: impl IntoIterator<Item = (u16, f64)>) -> PositionLoss {
        let mut out = PositionLoss::default();
        for (cell, loss) in moves {
            let y = loss.clamp(0.0, Self::CAP);
            let e = out.cells.entry(cell).or_insert((0, 0.0, 0.0));
            e.0 += 1;
            e.1 += y;
            e.2 += y * y;
        }
        out
    }

    /// Several sides' moves together (a player's games).
    pub fn pooled<'a>(parts: impl IntoIterator<Item = &'a PositionLoss>) -> PositionLoss {
        let mut out = PositionLoss::default();
        for p in parts {
            for (cell, (n, s, s2)) in &p.cells {
                let e = out.cells.entry(*cell).or_insert((0, 0.0, 0.0));
                e.0 += n;
                e.1 += s;
                e.2 += s2;
            }
        }
        out
    }

    /// Moves counted.
    pub fn moves(&self) -> usize {
        self.cells.values().map(|c| c.0 as usize).sum()
    }
}

/// What clean humans of each rating band lose in each kind of position
/// ([`PositionLoss::cell`]): the mean and variance of a move's capped win-% loss, each
/// cell shrunk toward its band's by [`LossTable::PRIOR`] moves. `zPositionLoss` is then
/// `(observed − expected) / √(Σ variances)` over a side's moves: negative when it lost
/// less than clean humans of its rating do in the same positions (as `zAsd` and
/// `zLateLoss` read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LossTable {
    /// Per band ([`LossTable::band`]), per cell: the expected loss.
    pub mean: Vec<Vec<f64>>,
    /// Per band, per cell: its variance.
    pub var: Vec<Vec<f64>>,
    /// The moves it was fitted on.
    pub moves: usize,
}

impl LossTable {
    /// Moves of a band's own mean a cell's estimate is shrunk with.
    pub const PRIOR: f64 = 20.0;
    /// Bands of 200 points: under 1,200, 1,200-1,399, ..., 2,600 and over.
    pub const BANDS: usize = 9;
    /// Fewest moves for a table.
    const MIN_MOVES: usize = 1000;

    /// The band of a rating.
    pub fn band(rating: f64) -> usize {
        // (a NaN rating stays NaN through `clamp`, casts to 0 and reads as the lowest band)
        ((rating / 200.0).floor().clamp(5.0, 13.0) as usize).saturating_sub(5)
    }

    /// Fits the table on clean human sides' `(rating, moves)`; `None` with fewer than
    /// 1,000 moves. Each cell is shrunk toward `prior`'s same cell when given (a table of
    /// a wider population: a band with few moves of its own reads like it), else toward
    /// its band's mean. Values are rounded to 4 decimals, as the model file keeps them.
    pub fn fit(sides: &[(f64, &PositionLoss)], prior: Option<&LossTable>) -> Option<LossTable> {
        let mut cells = vec![vec![(0.0_f64, 0.0_f64, 0.0_f64); PositionLoss::CELLS]; Self::BANDS];
        for (rating, p) in sides {
            let b = Self::band(*rating);
            for (cell, (n, s, s2)) in &p.cells {
                let c = &mut cells[b][*cell as usize];
                c.0 += *n as f64;
                c.1 += s;
                c.2 += s2;
            }
        }
        let total = |rows: &mut dyn Iterator<Item = &(f64, f64, f64)>| {
            rows.fold((0.0, 0.0, 0.0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2))
        };
        let all = total(&mut cells.iter().flatten());
        if (all.0 as usize) < Self::MIN_MOVES {
            return None;
        }
        let moments = |(n, s, s2): (f64, f64, f64)| {
            let m = s / n;
            (m, (s2 / n - m * m).max(0.0))
        };
        let round = |x: f64| (x * 1e4).round() / 1e4;
        let k = Self::PRIOR;
        let (mut mean, mut var) = (Vec::new(), Vec::new());
        for (b, band) in cells.iter().enumerate() {
            let t = total(&mut band.iter());
            let (bm, bv) = moments(if t.0 > 0.0 { t } else { all });
            let (m, v): (Vec<f64>, Vec<f64>) = band
                .iter()
                .enumerate()
                .map(|(c, (n, s, s2))| {
                    let (pm, pv) = prior.map_or((bm, bv), |p| (p.mean[b][c], p.var[b][c]));
                    let m = (s + k * pm) / (n + k);
                    let ex2 = (s2 + k * (pv + pm * pm)) / (n + k);
                    (round(m), round((ex2 - m * m).max(1e-3)))
                })
                .unzip();
            mean.push(m);
            var.push(v);
        }
        Some(LossTable {
            mean,
            var,
            moves: all.0 as usize,
        })
    }

    /// `zPositionLoss` of `moves` against `rating`; `None` without moves.
    pub fn z(&self, moves: &PositionLoss, rating: f64) -> Option<f64> {
        let b = Self::band(rating);
        let (mean, var) = (self.mean.get(b)?, self.var.get(b)?);
        let (mut expected, mut observed, mut v) = (0.0, 0.0, 0.0);
        for (cell, (n, s, _)) in &moves.cells {
            let c = *cell as usize;
            expected += *n as f64 * mean.get(c)?;
            v += *n as f64 * var.get(c)?;
            observed += s;
        }
        (v > 0.0).then(|| (observed - expected) / libm::sqrt(v))
    }
}

/// The odds that a side's later half ([`Late`]) was played by an engine rather than by a
/// clean human of its rating, move by move: each move falls in a cell by its win-% loss,
/// by where it stood among the engine's lines and by the kind of position it was made in
/// ([`LateOdds::cell`], [`LateOdds::kind`]), and adds the log of how much more often
/// engines make such a move in such a position than clean humans of the rating do (shares
/// within each kind of position: how often a side was in one is not read).
/// `lateOdds` is that sum over the later half divided by the square root of its moves:
/// positive when its moves are likelier an engine's. A player who hands the rest of a
/// game to an engine makes the engine's moves there, and a strong human's later half
/// differs from an engine's less in its average loss than in how often it leaves the
/// engine's first line and by how much, which the cells keep apart. Unlike `zLateLoss`,
/// it weighs every kind of move by how rare it is for each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LateOdds {
    /// Per band ([`LateOdds::band`]), per cell: the log of clean humans' share of moves,
    /// within the cell's kind of position.
    pub human: Vec<Vec<f64>>,
    /// Per cell: the log of engines' share, within the cell's kind of position (the later
    /// halves of the switched sides of the train split: a cheater's engine, after the
    /// switch as a rule).
    pub engine: Vec<f64>,
    /// The human moves it was fitted on.
    pub moves: usize,
    /// The engine moves.
    pub engine_moves: usize,
}

impl LateOdds {
    /// Upper bounds of a move's win-% loss.
    const LOSSES: [f64; 5] = [0.5, 2.0, 5.0, 10.0, 20.0];
    /// Where a move stood: the engine's line 1-4 at the final depth, a line at some depth
    /// only, or none.
    const PLACES: usize = 6;
    /// Kinds of position ([`LateOdds::kind`]).
    pub const KINDS: usize = 3;
    /// Cells of one kind of position: loss bands × places.
    pub const KIND_CELLS: usize = (Self::LOSSES.len() + 1) * Self::PLACES;
    /// Cells: kinds of position × loss bands × places.
    pub const CELLS: usize = Self::KIND_CELLS * Self::KINDS;
    /// Bands of 300 points: under 1,300, 1,300-1,599, ..., 2,500 and over.
    pub const BANDS: usize = 6;
    /// Fewest moves of each kind (human, engine) for a table.
    const MIN_MOVES: usize = 1000;

    /// The cell of a move: its win-% loss, its rank among the engine's lines at the final
    /// depth (1 = its first choice), whether it was among them at some depth, and the kind
    /// of position it was made in ([`LateOdds::kind`]; a larger one reads as the last).
    pub fn cell(win_loss: f64, rank: Option<u32>, seen: bool, kind: usize) -> usize {
        let l = Self::LOSSES.iter().filter(|b| win_loss >= **b).count();
        let p = match rank {
            Some(r) => (r.clamp(1, 4) - 1) as usize,
            None if seen => 4,
            None => 5,
        };
        kind.min(Self::KINDS - 1) * Self::KIND_CELLS + l * Self::PLACES + p
    }

    /// The kind of position a move was made in: 0 when the best move was the only good
    /// one (the second line a mistake's drop or more worse, [`only_move`]; or no second
    /// line), 1 when there were others and the engine's best was the same at every depth,
    /// 2 when there were others and its best changed with depth. Finding the engine's
    /// first choice where it is the only good move or plain at every depth is common for
    /// a human; finding it among good alternatives, where the engine itself changed its
    /// mind, is what an engine does and a human seldom does.
    ///
    /// [`only_move`]: crate::record::features::MoveFeatures::only_move
    pub fn kind(only_move: Option<bool>, best_changes: u32) -> usize {
        match (only_move.unwrap_or(true), best_changes) {
            (true, _) => 0,
            (false, 0) => 1,
            (false, _) => 2,
        }
    }

    /// The band of a rating.
    pub fn band(rating: f64) -> usize {
        // (a NaN rating casts to 0: the lowest band)
        (((rating - 1000.0) / 300.0)
            .floor()
            .clamp(0.0, (Self::BANDS - 1) as f64)) as usize
    }

    /// Fits the shares on clean human sides' `(rating, cells)` and engine sides' cells,
    /// each cell's count given one more move (no share is zero); `None` with fewer than
    /// 1,000 moves of either. Logs are rounded to 4 decimals, as the model file keeps
    /// them.
    pub fn fit(humans: &[(f64, &[u32])], engines: &[&[u32]]) -> Option<LateOdds> {
        Self::fit_from(humans, engines, Self::MIN_MOVES)
    }

    /// [`LateOdds::fit`] with every human in one band (the first), whatever their rating:
    /// a table for input without one.
    pub fn fit_one_band(humans: &[&[u32]], engines: &[&[u32]]) -> Option<LateOdds> {
        let all: Vec<(f64, &[u32])> = humans.iter().map(|c| (f64::NAN, *c)).collect();
        let mut odds = Self::fit(&all, engines)?;
        odds.human.truncate(1);
        Some(odds)
    }

    /// [`LateOdds::fit`] with another fewest moves of each kind (a study's small slice).
    pub fn fit_from(
        humans: &[(f64, &[u32])],
        engines: &[&[u32]],
        min_moves: usize,
    ) -> Option<LateOdds> {
        let mut counts = vec![vec![0.0_f64; Self::CELLS]; Self::BANDS];
        for (rating, cells) in humans {
            let row = &mut counts[Self::band(*rating)];
            for (c, n) in cells.iter().enumerate().take(Self::CELLS) {
                row[c] += *n as f64;
            }
        }
        let mut engine = vec![0.0_f64; Self::CELLS];
        for cells in engines {
            for (c, n) in cells.iter().enumerate().take(Self::CELLS) {
                engine[c] += *n as f64;
            }
        }
        let moves: f64 = counts.iter().flatten().sum();
        let engine_moves: f64 = engine.iter().sum();
        if (moves as usize) < min_moves || (engine_moves as usize) < min_moves {
            return None;
        }
        // Shares within each kind of position: the odds read the move made in a kind of
        // position, not how often a side was in it (an engine's user is more often
        // winning, where a plain best move is common).
        let logs = |row: &[f64]| -> Vec<f64> {
            row.chunks(Self::KIND_CELLS)
                .flat_map(|kind| {
                    let total = kind.iter().sum::<f64>() + Self::KIND_CELLS as f64;
                    kind.iter()
                        .map(move |n| (libm::log((n + 1.0) / total) * 1e4).round() / 1e4)
                })
                .collect()
        };
        Some(LateOdds {
            human: counts.iter().map(|r| logs(r)).collect(),
            engine: logs(&engine),
            moves: moves as usize,
            engine_moves: engine_moves as usize,
        })
    }

    /// `lateOdds` of a side's later-half `cells` against `rating`; `None` without moves.
    pub fn value(&self, cells: &[u32], rating: f64) -> Option<f64> {
        let human = self.human.get(Self::band(rating))?;
        let (mut sum, mut n) = (0.0, 0u32);
        for (c, k) in cells.iter().enumerate() {
            if *k > 0 {
                sum += *k as f64 * (self.engine.get(c)? - human.get(c)?);
                n += k;
            }
        }
        (n > 0).then(|| sum / libm::sqrt(n as f64))
    }

    /// A side's later-half moves, each `(win-% loss, rank, seen at some depth, kind of
    /// position)`, counted by cell.
    pub fn cells_of(moves: impl IntoIterator<Item = (f64, Option<u32>, bool, usize)>) -> Vec<u32> {
        Self::counts(
            moves
                .into_iter()
                .map(|(loss, rank, seen, kind)| Self::cell(loss, rank, seen, kind) as u8),
        )
    }

    /// Moves given by cell, counted by cell.
    pub fn counts(cells: impl IntoIterator<Item = u8>) -> Vec<u32> {
        let mut out = vec![0; Self::CELLS];
        for c in cells {
            if let Some(n) = out.get_mut(c as usize) {
                *n += 1;
            }
        }
        out
    }

    /// The fewest moves of the run `switchOdds` reads from its start to the end of the
    /// game (a side with fewer is read whole): chosen on the validation split among 8-20.
    pub const MIN_RUN: usize = 12;

    /// `switchOdds` of a side's moves in order (`cells`, [`LateOdds::cell`]) against
    /// `rating`: each move's log of how much more often engines make such a move than
    /// clean humans of the rating do, summed from a move to the end of the game and divided
    /// by the square root of the moves summed; the largest over every start that leaves
    /// [`LateOdds::MIN_RUN`] moves or more (the first move only, with fewer). A player who
    /// switches to an engine at some move plays like one from there on, wherever that move
    /// is; `lateOdds` reads a fixed later half. `None` without moves.
    pub fn switch(&self, cells: &[u8], rating: f64) -> Option<f64> {
        self.switch_in(cells, Self::band(rating))
    }

    /// [`LateOdds::switch`] against the clean humans of a band by its index (0 for a table
    /// fitted with every human in one band, [`LateOdds::fit_one_band`]).
    pub fn switch_in(&self, cells: &[u8], band: usize) -> Option<f64> {
        self.switch_run(cells, band).map(|(v, _)| v)
    }

    /// [`LateOdds::switch_in`] and the index in `cells` of the move its run starts at
    /// (the latest such start when two read the same).
    pub fn switch_run(&self, cells: &[u8], band: usize) -> Option<(f64, usize)> {
        let human = self.human.get(band)?;
        let mut odds = Vec::with_capacity(cells.len());
        for c in cells {
            let c = *c as usize;
            odds.push(self.engine.get(c)? - human.get(c)?);
        }
        let n = odds.len();
        let last_start = n.saturating_sub(Self::MIN_RUN);
        let (mut sum, mut best) = (0.0, None::<(f64, usize)>);
        for (k, o) in odds.iter().enumerate().rev() {
            sum += o;
            if k <= last_start {
                let v = sum / libm::sqrt((n - k) as f64);
                if best.is_none_or(|(b, _)| v > b) {
                    best = Some((v, k));
                }
            }
        }
        best
    }
}

fn clip(z: Option<f64>) -> Option<f64> {
    z.map(|z| z.clamp(-8.0, 8.0))
}

/// The statistics a side of a game and a player both have.
pub struct Pooled<'a> {
    /// Accuracy, ACPL and the match rate.
    pub stats: &'a Accuracy,
    /// The move classifier's summary.
    pub classifier: Option<&'a ClassifierStats>,
    /// Haworth's competence.
    pub competence: Option<&'a Competence>,
    /// The time statistics.
    pub time: Option<&'a TimeStats>,
    /// Games pooled.
    pub games: usize,
}

impl Signals {
    /// The signals from pooled statistics, the stretch signal, the rating and Regan's
    /// z-scores against it (read only with a rating); `None` with fewer than
    /// [`MIN_MOVES`] analysed moves.
    pub fn pooled(
        p: Pooled<'_>,
        stretch: f64,
        rating: Option<f64>,
        z: Option<&ZScores>,
    ) -> Option<Signals> {
        let moves = p.stats.analysed_plies;
        if moves < MIN_MOVES {
            return None;
        }
        let mut out = Signals {
            moves,
            games: p.games,
            ..Signals::none()
        };
        if let Some(c) = p.classifier {
            out.set("classifier", c.mean_probability);
            out.set("positiveRate", c.positive_rate);
        }
        out.set("acpl", p.stats.acpl.map(|a| a.min(300.0)));
        out.set("accuracy", p.stats.accuracy);
        out.set("matchRate", p.stats.match_rate);
        out.set("competence", p.competence.map(|c| c.mean));
        out.set("stretch", Some(stretch));
        out.rating = rating;
        if let Some(z) = z.filter(|_| rating.is_some()) {
            out.set("zMm", clip(z.mm));
            out.set("zEv", clip(z.ev));
            out.set("zAsd", clip(z.asd));
            out.regan = ([z.mm, z.ev, z.asd], z.moves);
        }
        if let Some(t) = p.time
            && t.moves >= MIN_MOVES
        {
            out.clocks = true;
            out.set("timeCv", t.cv);
            out.set("windowCv", t.min_window_cv);
            out.set(
                "fastShare",
                Some(t.fast_moves as f64 / (t.moves + t.premoves).max(1) as f64),
            );
            out.set("difficultyCorrelation", t.difficulty_correlation);
        }
        Some(out)
    }

    /// The same signals without those in `names` (and their flags): what the model makes
    /// of the input without a rating, or without clocks.
    pub fn without(&self, names: &[&str]) -> Signals {
        let mut s = self.clone();
        for (i, name) in SIGNALS.iter().enumerate() {
            if names.contains(name) {
                s.values[i] = None;
            }
        }
        if names.iter().any(|n| RATED_SIGNALS.contains(n)) {
            s.rating = None;
            s.regan = ([None; 3], 0);
        }
        if names.iter().any(|n| CLOCK_SIGNALS.contains(n)) {
            s.clocks = false;
        }
        s
    }
}

/// The level of concern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    /// Below the `unclear` threshold.
    #[serde(rename = "no concern")]
    NoConcern,
    /// Between the thresholds.
    #[serde(rename = "unclear")]
    Unclear,
    /// At or above the `look closer` threshold.
    #[serde(rename = "look closer")]
    LookCloser,
}

impl Level {
    /// The level's words.
    pub fn name(self) -> &'static str {
        match self {
            Level::NoConcern => "no concern",
            Level::Unclear => "unclear",
            Level::LookCloser => "look closer",
        }
    }
}

/// The range clean human game sides show for a signal (5th to 95th percentile), in a
/// rating band or over all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HumanRange {
    /// The signal.
    pub signal: String,
    /// Lowest rating of the band (0 with `hi` 0: all sides, rated or not).
    pub lo: u32,
    /// Rating above the band.
    pub hi: u32,
    /// 5th percentile.
    pub p5: f64,
    /// Median.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Sides behind it.
    pub sides: usize,
}

/// A [`HumanRange`] in words: the band (`"all"`, `"1,600–2,000"`, `"2,400+"`) and the 5th
/// percentile, median and 95th percentile formatted as the reasons write the signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RangeWords {
    /// The rating band.
    pub band: String,
    /// 5th percentile.
    pub low: String,
    /// Median.
    pub median: String,
    /// 95th percentile.
    pub high: String,
    /// Clean human game sides behind it.
    pub sides: usize,
}

/// One model: for sides with (or without) a rating and clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    /// Uses the rated signals (z-scores).
    pub rated: bool,
    /// Uses the clock signals.
    pub clocks: bool,
    /// Its signals, in model order.
    pub features: Vec<String>,
    /// Values put in for a missing signal (the clean human medians).
    pub fill: Vec<f64>,
    /// One model per kind of assistance. The raw score is the sigmoid of the largest
    /// [`Expert::z`]: how far, in clean human standard deviations, the side is from clean
    /// humans by the expert that finds it most engine-like.
    pub experts: Vec<Expert>,
    /// Platt scaling of the raw score's logit: `p = 1 / (1 + e^−(a·logit + b))`.
    pub platt: (f64, f64),
    /// `unclear` from this probability (about 10% of clean human sides above it).
    pub unclear: f64,
    /// `look closer` from this probability for a game side.
    pub look_closer: f64,
    /// `look closer` from this probability for a player with 5 or more games (and, where
    /// the variant reads players on a scale of their own, 2-4 too, unless
    /// [`Variant::look_closer_few`] holds them).
    pub look_closer_player: f64,
    /// `look closer` for a player of 2-4 games read on the player scale, set on clean
    /// pseudo-players of 2-4 games apart from those of 5 or more (never below
    /// `look_closer_player`): a scaling that moves with the games reads a clean pair of
    /// games about as high as it reads an engine user's ten, and one bar for both would
    /// rise past the ten. `None`: `look_closer_player`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_closer_few: Option<f64>,
    /// Platt scaling of a player's pooled games as its player experts read them
    /// ([`Expert::player`]), fitted on pseudo-players of five games: they read a
    /// player's clean games higher than the experts read a side's, so the side's
    /// scaling would overstate a clean player. `None`: the side's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platt_player: Option<(f64, f64)>,
    /// How a player's scaling moves with their games, `(c, d)`: a player of `n` games is
    /// scaled by `(a + c·g, b + d·g)`, g = ln(n / 5) held within the games it was fitted
    /// on ([`PLAYER_SCALE_GAMES`]): pooled games read on one scale drift with their
    /// number (a clean player of 20 games read higher than the share of such players
    /// who were engine-assisted). `None`: one scaling for every number of games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platt_player_games: Option<(f64, f64)>,
    /// `unclear` for a player, from the same clean pseudo-players (about 10% above it).
    /// `None`: the side's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclear_player: Option<f64>,
    /// Stricter thresholds for the game sides (and players) of rating bands where clean
    /// players reach the variant's more often than the rate it was set for: each band
    /// holds the ratings under its `below` and at or above the previous band's, in
    /// ascending order. Empty: one threshold for every rating. (A model file may hold one
    /// band as an object, as before there could be several.)
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub lower_rated: Vec<LowerRated>,
}

/// `lowerRated` as a model file holds it: one band (files made before there could be
/// several) or a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<LowerRated>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(LowerRated),
        Many(Vec<LowerRated>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(b) => vec![b],
        OneOrMany::Many(v) => v,
    })
}

/// The thresholds of the game sides rated under a bound (`fairsight assess thresholds
/// --lower-rated`): `look closer` above all but 1% of the band's clean sides and `unclear`
/// at their 90th percentile, where the variant's own thresholds, set on clean sides of
/// every rating, let about twice (`unclear`) and several times (`look closer`) as many of
/// them through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LowerRated {
    /// Game sides rated under this.
    pub below: f64,
    /// Their `unclear` (never below the variant's).
    pub unclear: f64,
    /// Their `look closer` (never below the variant's).
    pub look_closer: f64,
    /// The band's clean sides it was set on.
    pub sides: usize,
    /// How many of them reach the variant's own `look closer` (what a side there is told
    /// when only the band's threshold holds it back).
    pub at_variant: usize,
    /// `look closer` for a player of the band (pseudo-players of its clean sides, by their
    /// mean rating; never below the variant's). `None`: the variant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_closer_player: Option<f64>,
    /// The same for a player of the band with 2-4 games ([`Variant::look_closer_few`]).
    /// `None`: the band's `look_closer_player`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_closer_few: Option<f64>,
}

/// One kind of assistance against clean humans: top engines, weaker (strength-limited)
/// engines, or a player who switched to an engine part-way. A single model of all kinds
/// at once learns a compromise (weak engines play like humans of their rating, a switched
/// player like one only from the switch on), which blurs the kinds it could tell apart;
/// one model each, put on a common scale, keeps each kind's evidence sharp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expert {
    /// What it learned (`"top engines"`, `"weaker engines"`, `"switched"`).
    pub kind: String,
    /// The variant's signals it reads, in its input order (a subset of the variant's).
    pub features: Vec<String>,
    /// The model; its output is a score in [0, 1].
    pub model: Model,
    /// Centre and scale of the logit of its out-of-fold score on the clean human sides
    /// of the train split: their median, and (95th percentile − median) ÷ 1.645, a
    /// normal distribution's standard deviation fitted to their upper tail, where false
    /// positives come from.
    pub human: (f64, f64),
    /// The centre and scale for a game side with clocks (online play), where clean
    /// players of a rating read lower than over the board: those of the clean sides with
    /// clocks that the model never saw (`assess thresholds --clocks-scale`). `None`:
    /// `human` for every side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_clocks: Option<(f64, f64)>,
    /// The same kind fitted without the signals read for game sides only
    /// ([`GAME_SIDE_ONLY`]), for a player's pooled games: they have none of those, and an
    /// expert weighted for them would read them at the clean median. `None`: it reads
    /// none of them (or a model made before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<Box<Expert>>,
}

/// Signals read for a game side only, never for a player's pooled games (see
/// [`Signals::with_late_z`]).
pub const GAME_SIDE_ONLY: [&str; 5] = [
    "zPositionLoss",
    "zSeenLines",
    "lateOdds",
    "switchOdds",
    "switchOddsAll",
];

impl Expert {
    /// Reads its z as `(z − offset) / scale` from now on (how the fit weighs it against the
    /// other experts in the largest z).
    pub fn reweigh(&mut self, offset: f64, scale: f64) {
        let (mean, sd) = self.human;
        self.human = (mean + offset * sd, sd * scale);
    }

    /// How many clean human (upper-tail) standard deviations above the clean human median
    /// the logit of its score is, for the variant input `x` (in `variant_features` order).
    pub fn z(&self, variant_features: &[String], x: &[f64]) -> f64 {
        let input: Vec<f64> = self
            .features
            .iter()
            .map(|f| {
                variant_features
                    .iter()
                    .position(|v| v == f)
                    .map_or(0.0, |i| x[i])
            })
            .collect();
        (logit(self.model.probability(&input)) - self.human.0) / self.human.1
    }
}

/// A signal's part in an assessment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    /// The signal's name ([`SIGNALS`]).
    pub signal: String,
    /// Its value.
    pub value: f64,
    /// What clean humans show (5th–95th percentile), in the rating band when known;
    /// `None` when the model has no range for the signal (a model made elsewhere: the
    /// shipped one has one for every signal). Was NaN, written as `[null, null]`, which
    /// no reader could take back.
    #[serde(default)]
    pub human: Option<(f64, f64)>,
    /// The band of that range (`"all"` or e.g. `"1800–2200"`).
    pub band: String,
    /// How much it moved the probability (with the signal, minus with the human
    /// median in its place): positive toward engine.
    pub effect: f64,
    /// The reason with its numbers: the signal, its value and the clean human range.
    pub text: String,
    /// The reason in plain words, no numbers: which way the value reads and how far, e.g.
    /// "lost less in the later half than expected at their rating (further than 19 in 20
    /// clean players rated 1,600–2,000)". Empty in a report written before it (a reader
    /// then shows `text`).
    #[serde(default)]
    pub plain: String,
    /// Whether the value is beyond what 19 in 20 clean players of the band show, on its
    /// side of their median (`false` without a range): a reason a reader can lean on.
    #[serde(default)]
    pub unusual: bool,
}

/// The assessment of a game side or a player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Assessment {
    /// Calibrated probability that the play was engine-assisted.
    pub probability: f64,
    /// The level, by the thresholds of the model.
    pub level: Level,
    /// The 3-5 signals that moved it most, largest effect first; a signal whose effect
    /// runs against the way its value reads ([`ENGINE_DIRECTION`]: a correction between
    /// correlated signals) is not listed, nor one that did not move it (fewer then).
    pub reasons: Vec<Reason>,
    /// Which model: `"rated, clocks"`, `"unrated, no clocks"`...
    pub basis: String,
    /// The thresholds used (unclear, look closer).
    pub thresholds: (f64, f64),
    /// Analysed moves behind it.
    pub moves: usize,
    /// What would make it surer, in plain words (`null` when nothing simple would).
    #[serde(default)]
    pub hint: Option<String>,
    /// What the play looks most like, in plain words: the kind of assistance of the
    /// expert that found it most engine-like (`null` at `no concern`).
    #[serde(default)]
    pub resembles: Option<String>,
    /// The two thresholds and what they mean against clean players, in plain words:
    /// "unclear from 24% (about 1 clean player in 10 reads higher), look closer from
    /// 99.9% (fewer than 1 in 1,000)" ([`bars_words`]; empty in reports made before it).
    #[serde(default)]
    pub bars: String,
}

/// The thresholds (unclear, look closer) and what they are set to mean, in plain words:
/// `unclear` where about a tenth of clean game sides (or players) of the kind read higher,
/// `look closer` where at most 1% of clean game sides do (a player's: 0.1%, for a player
/// read on their pooled games).
pub fn bars_words(thresholds: (f64, f64), player: bool) -> String {
    let (who, rate) = if player {
        ("player", "1,000")
    } else {
        ("game side", "100")
    };
    format!(
        "unclear from {} (about 1 clean {who} in 10 reads higher), look closer from {} (fewer than 1 in {rate})",
        threshold_percent(thresholds.0),
        threshold_percent(thresholds.1)
    )
}

/// The rate of clean players a player's `look closer` is held to.
pub const PLAYER_LOOK_CLOSER_RATE: f64 = 0.001;

/// The chance that `k` or more of `n` clean game sides reach `look closer`, each with
/// chance `p` (the binomial tail; 1 for `k` = 0).
pub fn clean_sides_tail(k: usize, n: usize, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    // ln of the first term, C(n, k) p^k (1 - p)^(n - k), then each next one by its ratio.
    let ln_choose: f64 = (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum();
    let mut term = (ln_choose + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp();
    let mut tail = 0.0;
    for j in k..=n {
        tail += term;
        if term < tail * 1e-17 {
            break;
        }
        term *= (n - j) as f64 / (j + 1) as f64 * p / (1.0 - p);
    }
    tail.min(1.0)
}

impl Assessment {
    /// [`Assessment::bars`], or for a report made before it the thresholds alone.
    pub fn bars_text(&self) -> String {
        if self.bars.is_empty() {
            format!(
                "unclear from {}, look closer from {}",
                threshold_percent(self.thresholds.0),
                threshold_percent(self.thresholds.1)
            )
        } else {
            self.bars.clone()
        }
    }

    /// A player of several games is read on all of them pooled, and one assisted game
    /// among many can stay under the player's threshold; so a player whose game sides,
    /// each read on its own, reach `look closer` more often than chance allows a clean
    /// player ([`clean_sides_tail`] at `side_rate`, a model's
    /// [`AssessmentModel::side_look_closer_rate`], at most [`PLAYER_LOOK_CLOSER_RATE`])
    /// is at `look closer` too, with a hint that says why. `at_look_closer` of the
    /// player's `assessed` sides are there; the probability stays the pooled one.
    pub fn with_game_sides(
        mut self,
        at_look_closer: usize,
        assessed: usize,
        side_rate: f64,
    ) -> Assessment {
        if assessed < 2
            || self.level == Level::LookCloser
            || clean_sides_tail(at_look_closer, assessed, side_rate) > PLAYER_LOOK_CLOSER_RATE
        {
            return self;
        }
        self.level = Level::LookCloser;
        self.hint = Some(format!(
            "{at_look_closer} of their {assessed} games reach look closer on their own: a clean \
             player does that less than once in 1,000 (a clean game, at most once in {}), \
             though read together their games stay under the player's threshold",
            thousands((1.0 / side_rate).round())
        ));
        self
    }
}

/// The plain words for what an expert learned ([`Expert::kind`]).
pub fn resembles_words(kind: &str) -> String {
    match kind {
        "top engines" => "a top engine's play".to_owned(),
        "weaker engines" => "a strength-limited engine's play".to_owned(),
        "switched" => "a player who turned to an engine part-way through a game".to_owned(),
        other => other.to_owned(),
    }
}

/// The model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssessmentModel {
    /// What it is.
    pub name: String,
    /// The data it was trained, calibrated and tested on.
    pub source: String,
    /// The engine of those analyses.
    pub engine: EngineInfo,
    /// Their settings: the model applies only to reports made with the same.
    pub settings: Settings,
    /// One model per kind of input.
    pub variants: Vec<Variant>,
    /// Clean human ranges per signal and band.
    pub ranges: Vec<HumanRange>,
    /// The later half's expected values at a rating, from which `zLateLoss` and
    /// `zLateMatch` are computed (absent in models made before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_reference: Option<LateReference>,
    /// The most often a clean game side reaches `look closer`, as its thresholds were
    /// set (above all but 0.5% of the clean sides it never saw; 1% with a rating band of
    /// its own, [`LowerRated`]). With it, a player whose game sides reach `look closer`
    /// more often than that allows a clean player is there too
    /// ([`Assessment::with_game_sides`]); absent in models made before it (and in the
    /// quick screen's, whose sides were measured at more), which leave players to their
    /// pooled reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_look_closer_rate: Option<f64>,
}

/// Why a model file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssessmentError(pub String);

impl std::fmt::Display for AssessmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AssessmentError {}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    libm::log(p / (1.0 - p))
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-z))
}

/// The games a player's scaling with a games term ([`Variant::platt_player_games`]) is
/// fitted on, fewest and most: beyond them it is held at their ends.
pub const PLAYER_SCALE_GAMES: (usize, usize) = (2, 20);

/// The games term of a player's scaling: ln(n / 5), n held within
/// [`PLAYER_SCALE_GAMES`] (five games, where the scaling was first fitted, reads 0).
pub fn games_term(games: usize) -> f64 {
    let n = games.clamp(PLAYER_SCALE_GAMES.0, PLAYER_SCALE_GAMES.1) as f64;
    libm::log(n / 5.0)
}

/// A signal's value as the models see it: heavy-tailed signals on a log scale (ACPL,
/// competence), so that a linear model's log-odds can follow them; `seenLines` as minus
/// the logarithm of the share of moves the engine never had among its lines (plus 0.02,
/// a side may have none), since that share falls by a factor, not a step, with the
/// rating (about 20% of a 1400 player's moves, 3% of a 2600 player's), and a line on the
/// rating must fit both ends; the rest as they are.
pub fn model_value(signal: &str, v: f64) -> f64 {
    match signal {
        "acpl" | "lateLoss" => libm::log(1.0 + v.max(0.0)),
        "competence" => libm::log(v.max(0.01)),
        "seenLines" => -libm::log(1.02 - v.clamp(0.0, 1.0)),
        _ => v,
    }
}

impl Variant {
    /// The variant as it reads a player's pooled games: each expert that has one replaced
    /// by its [`Expert::player`] expert, with the player's scaling and `unclear` where it
    /// has them.
    pub fn for_players(&self, games: usize) -> Variant {
        let mut v = self.clone();
        for e in &mut v.experts {
            if let Some(p) = e.player.take() {
                *e = *p;
            }
        }
        v.platt = match (v.platt_player.take(), v.platt_player_games.take()) {
            (Some((a, b)), Some((c, d))) => {
                let g = games_term(games);
                (a + c * g, b + d * g)
            }
            (ab, _) => ab.unwrap_or(v.platt),
        };
        v.unclear = v.unclear_player.take().unwrap_or(v.unclear);
        v
    }

    /// The `look closer` a player of `games` games is held to (2 or more; 2-4 only where
    /// the variant reads players on a scale of their own), in rating band `band` if
    /// any: the band's player bar where it has one, never below the variant's, and the
    /// bars for 2-4 games ([`Variant::look_closer_few`]) where they are set.
    pub fn player_look_closer(&self, band: Option<&LowerRated>, games: usize) -> f64 {
        let few = games < 5;
        let own = match self.look_closer_few {
            Some(f) if few => f.max(self.look_closer_player),
            _ => self.look_closer_player,
        };
        let banded = band.and_then(|b| match b.look_closer_few {
            Some(f) if few => Some(f.max(b.look_closer_player.unwrap_or(0.0))),
            _ => b.look_closer_player,
        });
        own.max(banded.unwrap_or(0.0))
    }

    /// The variant as it reads a game side with clocks: each expert on its scale for
    /// such sides ([`Expert::human_clocks`]) where it has one.
    pub fn for_clocks(&self) -> Variant {
        let mut v = self.clone();
        for e in &mut v.experts {
            e.human = e.human_clocks.take().unwrap_or(e.human);
        }
        v
    }

    /// Whether it reads a game side with clocks otherwise than one without.
    pub fn has_clocks_reading(&self) -> bool {
        self.experts.iter().any(|e| e.human_clocks.is_some())
    }

    /// The rating band of a rating, with the rating the band starts from (`None` for the
    /// lowest): the first band whose bound is above it. `None`: no band holds it.
    pub fn band(&self, rating: Option<f64>) -> Option<(&LowerRated, Option<f64>)> {
        let r = rating?;
        let i = self.lower_rated.iter().position(|b| r < b.below)?;
        Some((
            &self.lower_rated[i],
            i.checked_sub(1).map(|j| self.lower_rated[j].below),
        ))
    }

    /// Whether it reads a player's pooled games otherwise than a side's.
    pub fn has_player_reading(&self) -> bool {
        self.platt_player.is_some()
            || self.unclear_player.is_some()
            || self.experts.iter().any(|e| e.player.is_some())
    }

    /// The model's input from signals (missing ones filled in with the human median).
    pub fn input(&self, s: &Signals) -> Vec<f64> {
        self.features
            .iter()
            .zip(&self.fill)
            .map(|(f, fill)| model_value(f, s.get(f).unwrap_or(*fill)))
            .collect()
    }

    /// The raw score of an input: the sigmoid of the largest expert z (0.5 without
    /// experts).
    pub fn raw(&self, x: &[f64]) -> f64 {
        let z = self
            .experts
            .iter()
            .map(|e| e.z(&self.features, x))
            .fold(f64::NEG_INFINITY, f64::max);
        if z.is_finite() { sigmoid(z) } else { 0.5 }
    }

    /// The expert that finds the input most engine-like.
    pub fn leading_expert(&self, x: &[f64]) -> Option<&Expert> {
        self.experts
            .iter()
            .max_by(|a, b| a.z(&self.features, x).total_cmp(&b.z(&self.features, x)))
    }

    /// The calibrated probability of an input.
    pub fn probability(&self, x: &[f64]) -> f64 {
        sigmoid(self.platt.0 * logit(self.raw(x)) + self.platt.1)
    }

    /// Whether it can read these signals: a rated variant needs the rating, and Regan's
    /// z-scores too if it reads them (a side analysed at settings the rating calibration
    /// does not cover has its rating without them); one with clocks needs clocks.
    pub fn reads(&self, s: &Signals) -> bool {
        let mut regan = self
            .features
            .iter()
            .filter(|f| REGAN_SIGNALS.contains(&f.as_str()))
            .peekable();
        let z_scores = regan.peek().is_none() || regan.any(|f| s.get(f).is_some());
        (!self.rated || (s.rating.is_some() && z_scores)) && (!self.clocks || s.clocks)
    }

    /// The words for the variant's basis.
    pub fn basis(&self) -> String {
        format!(
            "{}, {}",
            if self.rated { "rated" } else { "unrated" },
            if self.clocks { "clocks" } else { "no clocks" }
        )
    }
}

impl AssessmentModel {
    /// Parses and checks a model file.
    pub fn from_json(s: &str) -> Result<AssessmentModel, AssessmentError> {
        let m: AssessmentModel =
            serde_json::from_str(s).map_err(|e| AssessmentError(e.to_string()))?;
        for v in &m.variants {
            if v.fill.len() != v.features.len() {
                return Err(AssessmentError("fill and features differ in length".into()));
            }
            if let Some(bad) = v.features.iter().find(|f| !SIGNALS.contains(&f.as_str())) {
                return Err(AssessmentError(format!("unknown signal {bad:?}")));
            }
            if v.experts.is_empty() {
                return Err(AssessmentError(format!("{}: no expert", v.basis())));
            }
            for e in &v.experts {
                if let Some(bad) = e.features.iter().find(|f| !v.features.contains(f)) {
                    return Err(AssessmentError(format!(
                        "{}: expert {:?} reads {bad:?}, not a signal of its variant",
                        v.basis(),
                        e.kind
                    )));
                }
                let scale_ok = |h: (f64, f64)| h.1 > 0.0 && h.0.is_finite();
                if !scale_ok(e.human) || e.human_clocks.is_some_and(|h| !scale_ok(h)) {
                    return Err(AssessmentError(format!(
                        "{}: expert {:?} has no human scale",
                        v.basis(),
                        e.kind
                    )));
                }
                e.model
                    .check(e.features.len())
                    .map_err(|err| AssessmentError(err.0))?;
            }
        }
        if let Some(r) = &m.late_reference {
            let tables = [
                ("lateOdds", &r.late_odds),
                ("switchOdds", &r.switch_odds),
                ("switchOddsAll", &r.switch_odds_all),
            ];
            for (name, odds) in tables {
                let Some(odds) = odds else { continue };
                let width = |row: &[f64]| row.len() == LateOdds::CELLS;
                if !width(&odds.engine) || !odds.human.iter().all(|h| width(h)) {
                    return Err(AssessmentError(format!(
                        "lateReference.{name}: {} cells, this version reads {} (a model \
                         fitted before the kinds of position: fit it again)",
                        odds.engine.len(),
                        LateOdds::CELLS
                    )));
                }
            }
        }
        Ok(m)
    }

    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("invariant: the model serialises")
    }

    /// The shipped model (`None` if `models/assessment.json` is missing or unreadable).
    pub fn builtin() -> Option<&'static AssessmentModel> {
        static MODEL: OnceLock<Option<AssessmentModel>> = OnceLock::new();
        MODEL
            .get_or_init(|| {
                AssessmentModel::from_json(include_str!("../../models/assessment.json")).ok()
            })
            .as_ref()
    }

    /// Whether reports made with `settings` and `engine` may use it: the same search, the
    /// same book and exclusions (a book move counted, or a decided position kept, changes
    /// what the signals mean), the same engine build.
    pub fn applies_to(&self, settings: &Settings, engine: &EngineInfo) -> bool {
        let key = |s: &Settings| {
            (
                s.limit,
                s.multipv,
                s.max_nodes,
                s.screening,
                s.book.clone(),
                s.min_move,
                s.decided_cp,
                s.good_margin_cp,
            )
        };
        key(settings) == key(&self.settings) && engine.build == self.engine.build
    }

    /// The variant for these signals: the most informed one they allow
    /// ([`Variant::reads`]).
    pub fn variant(&self, s: &Signals) -> Option<&Variant> {
        let rated = s.rating.is_some();
        [
            (rated, s.clocks),
            (rated, false),
            (false, s.clocks),
            (false, false),
        ]
        .iter()
        .find_map(|&(r, c)| {
            self.variants
                .iter()
                .find(|v| v.rated == r && v.clocks == c && v.reads(s))
        })
    }

    /// The variant that reads these signals as it reads them: for a player's pooled
    /// games, with each expert's player expert ([`Variant::for_players`]); for a game
    /// side with clocks, each expert on its scale for such sides where it has one
    /// ([`Variant::for_clocks`]).
    pub fn reading(&self, s: &Signals) -> Option<std::borrow::Cow<'_, Variant>> {
        let v = self.variant(s)?;
        Some(if s.games > 1 && v.has_player_reading() {
            std::borrow::Cow::Owned(v.for_players(s.games))
        } else if s.games <= 1 && s.clocks && v.has_clocks_reading() {
            std::borrow::Cow::Owned(v.for_clocks())
        } else {
            std::borrow::Cow::Borrowed(v)
        })
    }

    /// The probability a game side's signals get from the rated kind of input without
    /// clocks, as [`AssessmentModel::assess`] reads them (their references applied), even
    /// when a kind with clocks would read them: what `assess thresholds
    /// --bands-all-rated` sets that kind's rating bands on. `None` for a player's pooled
    /// games or when that kind does not read them.
    pub fn rated_probability_without_clocks(&self, s: &Signals) -> Option<f64> {
        let s = self.with_references(s);
        let s = s.as_ref();
        if s.games > 1 {
            return None;
        }
        let v = self
            .variants
            .iter()
            .find(|v| v.rated && !v.clocks && v.reads(s))?;
        let v = if s.clocks && v.has_clocks_reading() {
            std::borrow::Cow::Owned(v.for_clocks())
        } else {
            std::borrow::Cow::Borrowed(v)
        };
        Some(v.probability(&v.input(s)))
    }

    /// The clean human range of a signal for a rating (its band, else all sides).
    pub fn range(&self, signal: &str, rating: Option<f64>) -> Option<&HumanRange> {
        let in_band = rating.and_then(|r| {
            self.ranges.iter().find(|h| {
                h.signal == signal && h.hi > 0 && r >= f64::from(h.lo) && r < f64::from(h.hi)
            })
        });
        in_band.or_else(|| self.ranges.iter().find(|h| h.signal == signal && h.hi == 0))
    }

    /// The clean human range of a signal for a rating in words, as the reasons say it
    /// (`None` for a signal the model has no range for): the page's "what it means".
    pub fn range_words(&self, signal: &str, rating: Option<f64>) -> Option<RangeWords> {
        let h = self.range(signal, rating)?;
        Some(RangeWords {
            band: band_name(h),
            low: describe(signal, h.p5).1,
            median: describe(signal, h.median).1,
            high: describe(signal, h.p95).1,
            sides: h.sides,
        })
    }

    /// Each expert's z for these signals (the variant's experts, in order, by kind): the
    /// probability is made from the largest. For measuring what each expert tells apart
    /// on its own (`fairsight assess eval`).
    pub fn expert_scores(&self, s: &Signals) -> Vec<(&str, f64)> {
        let s = self.with_references(s);
        let s = s.as_ref();
        let (Some(named), Some(v)) = (self.variant(s), self.reading(s)) else {
            return Vec::new();
        };
        let x = v.input(s);
        // A player expert is of its expert's kind, in the same place.
        named
            .experts
            .iter()
            .zip(&v.experts)
            .map(|(n, e)| (n.kind.as_str(), e.z(&v.features, &x)))
            .collect()
    }

    /// The signals with those measured against the model's references added (the
    /// later half's and the top lines' z-scores, with a player's effects), as the
    /// variants read them.
    fn with_references<'a>(&self, s: &'a Signals) -> std::borrow::Cow<'a, Signals> {
        match &self.late_reference {
            Some(r) => std::borrow::Cow::Owned(s.with_late_z(r)),
            None => std::borrow::Cow::Borrowed(s),
        }
    }

    /// The assessment of a side's or a player's signals.
    pub fn assess(&self, s: &Signals) -> Option<Assessment> {
        let s = self.with_references(s);
        let s = s.as_ref();
        let v = self.reading(s)?;
        let x = v.input(s);
        let probability = v.probability(&x);
        // A player of 2-4 games read on the player scale is held to a player's threshold,
        // the scale's only one.
        let player_scale = s.games > 1 && self.variant(s).is_some_and(|v| v.has_player_reading());
        let as_player = s.games >= 5 || player_scale;
        // A game side of a rating band (one game: never read as a player) is held to its
        // band's thresholds, a player to the band's player threshold where it has one.
        let band = v.band(s.rating);
        let lower = band.filter(|_| s.games <= 1);
        let (unclear, look_closer) = match (band, lower) {
            (band, _) if as_player => (v.unclear, v.player_look_closer(band.map(|b| b.0), s.games)),
            (_, Some((b, _))) => (v.unclear.max(b.unclear), v.look_closer.max(b.look_closer)),
            _ => (v.unclear, v.look_closer),
        };
        let level = if probability >= look_closer {
            Level::LookCloser
        } else if probability >= unclear {
            Level::Unclear
        } else {
            Level::NoConcern
        };
        let mut reasons: Vec<Reason> = v
            .features
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let value = s.get(f)?;
                let mut y = x.clone();
                y[i] = model_value(f, v.fill[i]);
                let effect = probability - v.probability(&y);
                // A signal whose effect runs against its reading (an engine-like value
                // that lowered the probability, or a human-like one that raised it) is a
                // correction between correlated signals (a match rate beside its z-score,
                // the whole game's loss beside its later half's): part of the
                // probability, but no reason a reader can follow, so not listed.
                if let Some(d) = engine_direction(f)
                    && effect * d * (x[i] - y[i]) < 0.0
                {
                    return None;
                }
                // A signal that did not move it (the expert that gives the probability
                // does not read it) is no reason.
                if effect.abs() < 1e-9 {
                    return None;
                }
                let range = self.range(f, s.rating);
                let human = range.map(|h| (h.p5, h.p95));
                let higher = x[i] > y[i];
                let unusual =
                    range.is_some_and(|h| if higher { value > h.p95 } else { value < h.p5 });
                let band = range.map_or_else(|| "all".to_owned(), band_name);
                let narrowed = self
                    .late_reference
                    .iter()
                    .flat_map(|r| &r.player_effects)
                    .any(|e| e.signal == *f && e.narrowing(s.games) < 1.0);
                let from_move = self
                    .late_reference
                    .as_ref()
                    .and_then(|r| s.switch_from(f, r));
                Some(Reason {
                    plain: plain_reason(f, higher, range.map(|_| unusual), &band, from_move),
                    unusual,
                    text: reason_text(
                        f,
                        value,
                        human,
                        &band,
                        narrowed.then_some(s.games),
                        from_move,
                    ),
                    signal: f.clone(),
                    value,
                    human,
                    band,
                    effect,
                })
            })
            .collect();
        reasons.sort_by(|a, b| b.effect.abs().total_cmp(&a.effect.abs()));
        // The 3-5 that moved it most: three, and up to two more that moved it by at least
        // a fifth of the largest.
        let top = reasons.first().map_or(0.0, |r| r.effect.abs());
        let keep = 3 + reasons
            .iter()
            .skip(3)
            .take(2)
            .take_while(|r| r.effect.abs() >= top / 5.0 && r.effect.abs() > 0.0)
            .count();
        reasons.truncate(keep);
        let hint = if s.rating.is_none() {
            Some("a rating would sharpen this: it lets the moves be compared with what players of that rating find".to_owned())
        } else if let Some((b, from)) =
            lower.filter(|_| level == Level::NoConcern && probability >= v.unclear)
        {
            Some(lower_rated_unclear_hint(b, from, v.unclear))
        } else if let Some((b, from)) =
            lower.filter(|_| level != Level::LookCloser && probability >= v.look_closer)
        {
            Some(lower_rated_hint(b, from, v.look_closer))
        } else if s.games < 5 && level != Level::LookCloser {
            Some("more games of the same player would make it surer".to_owned())
        } else {
            None
        };
        let resembles = (level != Level::NoConcern)
            .then(|| v.leading_expert(&x))
            .flatten()
            .map(|e| resembles_words(&e.kind));
        Some(Assessment {
            probability,
            level,
            reasons,
            basis: v.basis(),
            thresholds: (unclear, look_closer),
            moves: s.moves,
            hint,
            resembles,
            bars: bars_words((unclear, look_closer), as_player),
        })
    }
}

/// What a game side rated under a [`LowerRated`] band is told when the band's threshold,
/// and only it, keeps it from `look closer`.
fn lower_rated_hint(b: &LowerRated, from: Option<f64>, variant: f64) -> String {
    let one_in = (b.sides as f64 / b.at_variant.max(1) as f64).round();
    let rated = band_words(b, from);
    format!(
        "clean players rated {rated} reach a probability of {} or more in about 1 game in {one_in}, more often than stronger players do, so for them look closer starts at {}: look at more of their games",
        threshold_percent(variant),
        threshold_percent(b.look_closer)
    )
}

/// What a game side of a rating band at `no concern` is told when its probability is at
/// or above the variant's own `unclear`: that its band's clean players reach such
/// probabilities more often, and where the band's levels start. (The corpus the model is
/// calibrated on holds many engine-assisted sides of low rating, so a clean low-rated
/// side can read 60% and still be as a tenth of its band's clean sides are.)
fn lower_rated_unclear_hint(b: &LowerRated, from: Option<f64>, variant: f64) -> String {
    format!(
        "clean players rated {} often reach a probability of {} or more, more often than stronger players do, so for them unclear starts at {} and look closer at {}",
        band_words(b, from),
        threshold_percent(variant),
        threshold_percent(b.unclear),
        threshold_percent(b.look_closer)
    )
}

/// A band's ratings in words: "under 1,600", "1,600-1,899".
fn band_words(b: &LowerRated, from: Option<f64>) -> String {
    match from {
        None => format!("under {}", thousands(b.below)),
        Some(f) => format!("{}-{}", thousands(f), thousands(b.below - 1.0)),
    }
}

/// A threshold as a percentage: whole percents, but tenths from 99.5% on, rounded down,
/// so that a threshold under 1 never reads "100%" (which no probability could reach).
pub fn threshold_percent(p: f64) -> String {
    if (0.995..1.0).contains(&p) {
        format!("{:.1}%", (p * 1000.0).floor() / 10.0)
    } else {
        format!("{:.0}%", p * 100.0)
    }
}

/// A probability as a percentage, beside the thresholds of its level (unclear, look
/// closer): whole percents, but never reading as reaching a threshold it is under. A side
/// at 94.7% under a look closer of 94.9% would read "95%" beside "look closer from 95%";
/// it reads "94%", one step under the threshold as [`threshold_percent`] writes it. Nor
/// does it read as a certainty it is not: ">99%" for what would round to 100%, "<1%" for
/// what would round to 0%.
pub fn probability_percent(p: f64, thresholds: (f64, f64)) -> String {
    match percent_under_thresholds(p, thresholds).as_str() {
        "100%" if p < 1.0 => ">99%".to_owned(),
        "0%" if p > 0.0 => "<1%".to_owned(),
        shown => shown.to_owned(),
    }
}

fn percent_under_thresholds(p: f64, (unclear, look_closer): (f64, f64)) -> String {
    let shown = format!("{:.0}%", p * 100.0);
    let next = if p < unclear {
        unclear
    } else if p < look_closer {
        look_closer
    } else {
        return shown;
    };
    let value = |s: &str| s.trim_end_matches('%').parse::<f64>().unwrap_or(f64::NAN);
    let limit = threshold_percent(next);
    if value(&shown) < value(&limit) {
        return shown;
    }
    // One step of the threshold's own precision under it: 95% -> 94%, 99.5% -> 99.4%.
    if limit.contains('.') {
        format!("{:.1}%", value(&limit) - 0.1)
    } else {
        format!("{:.0}%", (value(&limit) - 1.0).max(0.0))
    }
}

/// A rating with a thousands comma (`1,900`).
fn thousands(r: f64) -> String {
    let r = r.round() as i64;
    if r.abs() >= 1000 {
        format!("{},{:03}", r / 1000, (r % 1000).abs())
    } else {
        r.to_string()
    }
}

fn band_name(h: &HumanRange) -> String {
    if h.hi == 0 {
        "all".to_owned()
    } else if h.lo == 0 {
        format!("under {}", thousands(h.hi as f64))
    } else if h.hi >= 4000 {
        format!("{}+", thousands(h.lo as f64))
    } else {
        format!("{}–{}", thousands(h.lo as f64), thousands(h.hi as f64))
    }
}

/// A signal's name in plain words and its value formatted.
pub fn describe(signal: &str, value: f64) -> (&'static str, String) {
    let pct = |v: f64| format!("{:.0}%", v * 100.0);
    match signal {
        "classifier" => ("engine-like move style (classifier)", pct(value)),
        "positiveRate" => ("moves the classifier finds engine-like", pct(value)),
        "acpl" => ("average centipawn loss", format!("{value:.0}")),
        "accuracy" => ("accuracy", format!("{value:.0}%")),
        "matchRate" => ("engine top-move match", pct(value)),
        "competence" => ("Haworth's competence", format!("{value:.2}")),
        "stretch" => ("most engine-like stretch (−log10 p)", format!("{value:.1}")),
        "zMm" => (
            "top-move matches against the rating (z)",
            format!("{value:+.1}"),
        ),
        "zEv" => (
            "equal-value matches against the rating (z)",
            format!("{value:+.1}"),
        ),
        "zAsd" => (
            "size of errors against the rating (z)",
            format!("{value:+.1}"),
        ),
        "timeCv" => ("variation of move times (CV)", format!("{value:.2}")),
        "windowCv" => (
            "most regular 14-move stretch of move times (CV)",
            format!("{value:.2}"),
        ),
        "fastShare" => ("moves made in under 2 s (premoves included)", pct(value)),
        "difficultyCorrelation" => (
            "time spent against difficulty (correlation)",
            format!("{value:+.2}"),
        ),
        "lateLoss" => (
            "average loss of winning chances in the later half of the moves",
            format!("{value:.1}%"),
        ),
        "lateMatch" => (
            "engine top-move match in the later half of the moves",
            pct(value),
        ),
        "lateGain" => (
            "how much less the later half of the moves lost than the first half (log ratio)",
            format!("{value:+.2}"),
        ),
        "zLateLoss" => (
            "loss of winning chances in the later half against the rating (z)",
            format!("{value:+.1}"),
        ),
        "zLateMatch" => (
            "top-move match in the later half against the rating (z)",
            format!("{value:+.1}"),
        ),
        "topLines" => ("moves among the engine's best lines", pct(value)),
        "zTopLines" => (
            "moves among the engine's best lines against the rating (z)",
            format!("{value:+.1}"),
        ),
        "seenLines" => (
            "moves the engine had among its lines at some depth",
            pct(value),
        ),
        "zSeenLines" => (
            "moves the engine had among its lines at some depth, against the rating (z)",
            format!("{value:+.1}"),
        ),
        "zPositionLoss" => (
            "loss of winning chances against what players of the rating lose in the same positions (z)",
            format!("{value:+.1}"),
        ),
        "lateOdds" => (
            "how much likelier the later half's moves are from an engine than from a player of the rating (log-odds per √move)",
            format!("{value:+.1}"),
        ),
        "switchOdds" => (
            "how much likelier the moves from some point to the end are from an engine than from a player of the rating (log-odds per √move, at the most engine-like point)",
            format!("{value:+.1}"),
        ),
        "switchOddsAll" => (
            "how much likelier the moves from some point to the end are from an engine than from a human (log-odds per √move, at the most engine-like point)",
            format!("{value:+.1}"),
        ),
        _ => ("signal", format!("{value}")),
    }
}

/// What a signal's value says of the play, in words with no numbers: `higher` when it
/// is above what the model puts in its place (a clean human's usual value), a verb
/// phrase whose subject is the player ("lost less in the later half than expected at
/// their rating").
fn plain_phrase(signal: &str, higher: bool, from_move: Option<u32>) -> String {
    let pick = |hi: &str, lo: &str| if higher { hi } else { lo }.to_owned();
    let more = if higher { "more" } else { "less" };
    let rated = "than expected at their rating";
    match signal {
        "classifier" => format!(
            "the move classifier found {} of the moves in an engine's style than usual",
            pick("more", "fewer")
        ),
        "positiveRate" => format!(
            "made {} moves the move classifier finds engine-like than usual",
            pick("more", "fewer")
        ),
        "acpl" => format!("lost {more} a move on average than usual"),
        "accuracy" => format!("played {more} accurately than usual"),
        "matchRate" => format!("played the engine's first choice {more} often than usual"),
        "competence" => format!(
            "played {} the engine than usual by Haworth's measure",
            pick("closer to", "further from")
        ),
        "stretch" => pick(
            "had a run of engine-like moves less likely by chance than usual",
            "had no run of engine-like moves as unlikely by chance as usual",
        ),
        "lateLoss" => format!("lost {more} in the later half of the moves than usual"),
        "lateMatch" => {
            format!("played the engine's first choice {more} often in the later half than usual")
        }
        "zMm" => format!("played the engine's first choice {more} often {rated}"),
        "zEv" => format!("played moves as good as the engine's first choice {more} often {rated}"),
        "zAsd" => format!("made {} errors {rated}", pick("larger", "smaller")),
        "zLateLoss" => format!("lost {more} in the later half {rated}"),
        "zLateMatch" => {
            format!("played the engine's first choice {more} often in the later half {rated}")
        }
        "topLines" => format!(
            "played {} moves among the engine's best lines than usual",
            pick("more", "fewer")
        ),
        "zTopLines" => format!(
            "played {} moves among the engine's best lines {rated}",
            pick("more", "fewer")
        ),
        "seenLines" => format!(
            "played {} moves the engine had among its lines at some depth than usual",
            pick("more", "fewer")
        ),
        "zSeenLines" => format!(
            "played {} moves the engine had among its lines at some depth {rated}",
            pick("more", "fewer")
        ),
        "lateGain" => {
            format!("improved {more} from the first half of the moves to the later than usual")
        }
        "zPositionLoss" => {
            format!("lost {more} than players of their rating lose in the same positions")
        }
        "lateOdds" => {
            format!("played the later half {more} like an engine than usual at their rating")
        }
        "switchOdds" | "switchOddsAll" => {
            let from = from_move.map_or("from some point".to_owned(), |m| format!("from move {m}"));
            let against = if signal == "switchOdds" {
                "at their rating"
            } else {
                "for a human"
            };
            format!("played {from} to the end {more} like an engine than usual {against}")
        }
        "timeCv" => format!(
            "moved at a {} pace than usual",
            pick("more varied", "more even")
        ),
        "windowCv" => format!(
            "kept {} pace over their most regular 14 moves in a row than usual",
            pick("a less even", "a more even")
        ),
        "fastShare" => format!(
            "made {} moves in under 2 seconds than usual",
            pick("more", "fewer")
        ),
        "difficultyCorrelation" => format!(
            "spent {more} of their time than usual where there were more good moves to choose from"
        ),
        _ => format!("read {} than usual on {signal}", pick("higher", "lower")),
    }
}

/// A reason in plain words ([`plain_phrase`]) and how far out it is against clean
/// players of the band (`unusual`: beyond their 5th to 95th percentile on its side, `None`
/// without a range): "further than 19 in 20", else "within the range of 9 in 10".
fn plain_reason(
    signal: &str,
    higher: bool,
    unusual: Option<bool>,
    band: &str,
    from_move: Option<u32>,
) -> String {
    let phrase = plain_phrase(signal, higher, from_move);
    let Some(beyond) = unusual else {
        return phrase;
    };
    let who = if band == "all" {
        "clean players".to_owned()
    } else {
        format!("clean players rated {band}")
    };
    if beyond {
        format!("{phrase} (further than 19 in 20 {who})")
    } else {
        format!("{phrase} (within the range of 9 in 10 {who})")
    }
}

/// A reason in words; `narrowed`: the games of a player whose z-score was narrowed by
/// its player effect ([`PlayerEffect`]), said, since it is not the report's z-score.
fn reason_text(
    signal: &str,
    value: f64,
    human: Option<(f64, f64)>,
    band: &str,
    narrowed: Option<usize>,
    from_move: Option<u32>,
) -> String {
    let (name, mut v) = describe(signal, value);
    // A run to the end says where it starts.
    let name = match from_move {
        Some(m) => name
            .replace("from some point", &format!("from move {m}"))
            .replace(", at the most engine-like point", ""),
        None => name.to_owned(),
    };
    if let Some(games) = narrowed {
        v += &format!(" over {games} games, allowing for a player's own style");
    }
    let Some(human) = human else {
        return format!("{name}: {v}");
    };
    let who = if band == "all" {
        "clean humans".to_owned()
    } else {
        format!("clean humans rated {band}")
    };
    format!(
        "{name}: {v} ({who}: {} to {})",
        describe(signal, human.0).1,
        describe(signal, human.1).1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probability_is_made_from_the_largest_expert_score() {
        // The shipped model's rated variant has its three experts; a side's probability
        // is the calibrated sigmoid of the largest of their z-scores.
        let m = AssessmentModel::builtin().expect("the shipped model");
        let values = [("matchRate", 0.7), ("acpl", 12.0), ("lateLoss", 1.0)];
        let mut s = signals(&values, Some(2000.0));
        // Regan's z-scores, which the rated variant reads (without them a rated side
        // gets the unrated variant).
        s.regan = ([Some(0.5), Some(0.4), Some(-0.3)], 30);
        s.set("zMm", Some(0.5));
        s.set("zAsd", Some(-0.3));
        let scores = m.expert_scores(&s);
        let kinds: Vec<&str> = scores.iter().map(|e| e.0).collect();
        assert_eq!(kinds, ["top engines", "weaker engines", "switched"]);
        let v = m
            .variant(&s.with_late_z(m.late_reference.as_ref().unwrap()))
            .unwrap();
        let largest = scores.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
        let p = sigmoid(v.platt.0 * logit(sigmoid(largest)) + v.platt.1);
        assert!((m.assess(&s).unwrap().probability - p).abs() < 1e-12);
        // Unrated: the unrated variant's two experts.
        s.rating = None;
        assert_eq!(m.expert_scores(&s).len(), 2);
    }

    #[test]
    fn a_reason_moves_the_probability_the_way_its_value_reads() {
        // The shipped model, a rated side whose signals are all on the engine side of
        // clean humans' medians but one: every reason's effect has the sign of its value
        // against the median, read in the signal's engine direction.
        let m = AssessmentModel::builtin().expect("the shipped model");
        // The clean human median over all ratings: what the model puts in a signal's
        // place to measure its effect.
        let median = |f: &str| m.range(f, None).map(|h| h.median).unwrap();
        let mut values: Vec<(&str, f64)> = Vec::new();
        for (f, d) in ENGINE_DIRECTION {
            if ["positiveRate", "accuracy", "zEv"].contains(&f) {
                continue;
            }
            let Some(h) = m.range(f, Some(2000.0)) else {
                continue;
            };
            // The engine-like end of the clean range (its 5th or 95th percentile), but
            // the ASD z at its human-like end.
            let toward = if f == "zAsd" { -d } else { d };
            values.push((f, if toward > 0.0 { h.p95 } else { h.p5 }));
        }
        let a = m.assess(&signals(&values, Some(2000.0))).unwrap();
        assert!(a.reasons.len() >= 3, "{:?}", a.reasons);
        for r in &a.reasons {
            let d = engine_direction(&r.signal).unwrap();
            let side = (r.value - median(&r.signal)) * d;
            assert!(
                r.effect * side >= 0.0,
                "{}: value {} (median {}), effect {:+.4}",
                r.signal,
                r.value,
                median(&r.signal),
                r.effect
            );
            // The plain words read the same way: the phrase of the value's side of the
            // median, and (at the clean range's end) within its 9 in 10.
            let higher = (r.value - median(&r.signal)) > 0.0;
            assert!(
                r.plain.starts_with(&plain_phrase(&r.signal, higher, None)),
                "{}: {}",
                r.signal,
                r.plain
            );
            assert!(r.plain.ends_with("rated 2,000–2,400)"), "{}", r.plain);
        }
        // Every signal has words of its own, different for each way.
        for f in SIGNALS {
            let (hi, lo) = (plain_phrase(f, true, None), plain_phrase(f, false, None));
            assert!(hi != lo && !hi.starts_with("read "), "{f}: {hi} / {lo}");
        }
    }

    fn signals(values: &[(&str, f64)], rating: Option<f64>) -> Signals {
        let mut s = Signals {
            moves: 30,
            rating,
            ..Signals::none()
        };
        for (k, v) in values {
            s.set(k, Some(*v));
        }
        s
    }

    fn model() -> AssessmentModel {
        // match rate drives it: weight 2 per standard deviation of 0.1 around 0.5.
        let variant = |rated: bool| Variant {
            rated,
            clocks: false,
            features: if rated {
                vec!["matchRate".into(), "zMm".into()]
            } else {
                vec!["matchRate".into(), "acpl".into()]
            },
            fill: if rated {
                vec![0.5, 0.0]
            } else {
                vec![0.5, 40.0]
            },
            // ACPL enters on a log scale: mean ln(41), one unit per e-fold. Human scale
            // (0, 1): the expert's z is its logit.
            experts: vec![Expert {
                kind: "top engines".into(),
                features: if rated {
                    vec!["matchRate".into(), "zMm".into()]
                } else {
                    vec!["matchRate".into(), "acpl".into()]
                },
                model: Model::Logistic {
                    mean: vec![0.5, if rated { 0.0 } else { 41f64.ln() }],
                    scale: vec![0.1, 1.0],
                    weights: vec![2.0, if rated { 1.0 } else { -1.0 }],
                    bias: -2.0,
                },
                human: (0.0, 1.0),
                human_clocks: None,
                player: None,
            }],
            platt: (1.0, 0.0),
            unclear: 0.3,
            look_closer: 0.8,
            look_closer_player: 0.9,
            look_closer_few: None,
            platt_player: None,
            platt_player_games: None,
            unclear_player: None,
            lower_rated: Vec::new(),
        };
        AssessmentModel {
            name: "test".into(),
            source: "synthetic".into(),
            engine: EngineInfo::default(),
            settings: Settings::default(),
            variants: vec![variant(false), variant(true)],
            ranges: vec![
                HumanRange {
                    signal: "matchRate".into(),
                    lo: 0,
                    hi: 0,
                    p5: 0.3,
                    median: 0.5,
                    p95: 0.7,
                    sides: 100,
                },
                HumanRange {
                    signal: "matchRate".into(),
                    lo: 2000,
                    hi: 2400,
                    p5: 0.4,
                    median: 0.55,
                    p95: 0.75,
                    sides: 50,
                },
            ],
            late_reference: None,
            side_look_closer_rate: None,
        }
    }

    #[test]
    fn a_rated_variant_reading_regans_z_scores_needs_them_and_one_that_does_not_needs_the_rating() {
        let m = model();
        // A rating without Regan's z-scores (settings the calibration does not cover):
        // the rated variant reads zMm, so the unrated one is used.
        let mut s = signals(&[("matchRate", 0.6)], Some(2000.0));
        assert!(!m.variant(&s).unwrap().rated);
        s.set("zMm", Some(1.0));
        s.regan = ([Some(1.0), None, None], 30);
        assert!(m.variant(&s).unwrap().rated);
        // A rated variant of rating-line signals only (the quick screen's) needs only the
        // rating.
        let mut m = model();
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.features[1] = "zLateLoss".into();
        rated.experts[0].features[1] = "zLateLoss".into();
        let s = signals(&[("matchRate", 0.6)], Some(2000.0));
        assert!(m.variant(&s).unwrap().rated);
        assert!(
            !m.variant(&signals(&[("matchRate", 0.6)], None))
                .unwrap()
                .rated
        );
    }

    #[test]
    fn a_players_pooled_games_are_read_by_each_experts_player_expert() {
        // The synthetic rated variant's expert reads zMm; its player expert, as if zMm
        // were read for game sides only, reads the match rate alone.
        let mut m = model();
        let v = m.variants.iter_mut().find(|v| v.rated).unwrap();
        let mut p = v.experts[0].clone();
        p.features = vec!["matchRate".into()];
        p.model = Model::Logistic {
            mean: vec![0.5],
            scale: vec![0.1],
            weights: vec![3.0],
            bias: -2.0,
        };
        v.experts[0].player = Some(Box::new(p));
        let mut s = signals(&[("matchRate", 0.7), ("zMm", 1.0)], Some(2000.0));
        // A game side: the expert, logit −2 + 2·2 + 1·1 = 3.
        let side = m.assess(&s).unwrap().probability;
        assert!((side - sigmoid(3.0)).abs() < 1e-12, "{side}");
        // Five pooled games: the player expert, logit −2 + 3·2 = 4, under its kind.
        s.games = 5;
        let player = m.assess(&s).unwrap().probability;
        assert!((player - sigmoid(4.0)).abs() < 1e-12, "{player}");
        let scores = m.expert_scores(&s);
        assert_eq!(scores.len(), 1);
        assert_eq!(scores[0].0, "top engines");
        assert!((scores[0].1 - 4.0).abs() < 1e-9);
        // The model file keeps it, and a model without one reads a player with the
        // expert itself (zMm as given).
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"player\":{"));
        assert_eq!(AssessmentModel::from_json(&json).unwrap(), m);
        let old = model();
        assert!(!serde_json::to_string(&old).unwrap().contains("\"player\""));
        assert!((old.assess(&s).unwrap().probability - sigmoid(3.0)).abs() < 1e-12);
    }

    #[test]
    fn a_reweighed_expert_reads_its_z_offset_and_scaled() {
        let m = model();
        let v = m.variants.iter().find(|v| v.rated).unwrap();
        let x = v.input(&signals(&[("matchRate", 0.7), ("zMm", 1.0)], Some(2000.0)));
        let mut e = v.experts[0].clone();
        e.human = (0.5, 2.0);
        let z = e.z(&v.features, &x);
        // Logit 3 on the clean humans' scale (0.5, 2): 1.25.
        assert!((z - 1.25).abs() < 1e-12, "{z}");
        e.reweigh(0.25, 0.8);
        assert!((e.z(&v.features, &x) - (1.25 - 0.25) / 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_players_own_scaling_and_unclear_read_pooled_games_and_never_a_side() {
        // The synthetic rated variant with a player scaling of its own (a = 0.5, b = −1)
        // and a player's `unclear` of 0.4.
        let mut m = model();
        let v = m.variants.iter_mut().find(|v| v.rated).unwrap();
        v.platt_player = Some((0.5, -1.0));
        v.unclear_player = Some(0.4);
        // Logit −2 + 2·2 + 1·1 = 3 for both readings (no player expert here).
        let mut s = signals(&[("matchRate", 0.7), ("zMm", 1.0)], Some(2000.0));
        let side = m.assess(&s).unwrap();
        assert!((side.probability - sigmoid(3.0)).abs() < 1e-12);
        assert_eq!(side.thresholds, (0.3, 0.8));
        // Five pooled games: sigmoid(0.5·3 − 1), on the player's thresholds.
        s.games = 5;
        let player = m.assess(&s).unwrap();
        assert!(
            (player.probability - sigmoid(0.5)).abs() < 1e-12,
            "{player:?}"
        );
        assert_eq!(player.thresholds, (0.4, 0.9));
        assert_eq!(player.level, Level::Unclear);
        // Each says its bars and what they mean: a side's against clean game sides (1%),
        // a player's against clean players (0.1%).
        assert_eq!(
            side.bars,
            "unclear from 30% (about 1 clean game side in 10 reads higher), look closer from 80% (fewer than 1 in 100)"
        );
        assert_eq!(
            player.bars,
            "unclear from 40% (about 1 clean player in 10 reads higher), look closer from 90% (fewer than 1 in 1,000)"
        );
        // Two games are read on the same scale, and held to the player's threshold too.
        s.games = 2;
        assert_eq!(m.assess(&s).unwrap().thresholds, (0.4, 0.9));
        assert!(m.assess(&s).unwrap().bars.contains("clean player in 10"));
        s.games = 5;
        // Under the player's `unclear` (0.4) but over the side's (0.3): no concern.
        // Logit −2 + 2·1.38 = 0.76.
        s.set("matchRate", Some(0.638));
        s.set("zMm", Some(0.0));
        let low = m.assess(&s).unwrap();
        assert!((low.probability - sigmoid(0.5 * 0.76 - 1.0)).abs() < 1e-9);
        assert!(low.probability > 0.3 && low.probability < 0.4);
        assert_eq!(low.level, Level::NoConcern);
        // The model file keeps them; one made before reads a player as a side.
        let json = serde_json::to_string(&m).unwrap();
        assert!(
            json.contains("\"plattPlayer\":[0.5,-1.0]") && json.contains("\"unclearPlayer\":0.4")
        );
        assert_eq!(AssessmentModel::from_json(&json).unwrap(), m);
        let old = model();
        let old_json = serde_json::to_string(&old).unwrap();
        assert!(!old_json.contains("plattPlayer") && !old_json.contains("unclearPlayer"));
        assert!((old.assess(&s).unwrap().probability - sigmoid(0.76)).abs() < 1e-9);
    }

    #[test]
    fn a_players_scaling_moves_with_their_games_within_the_games_it_was_fitted_on() {
        // The player scaling (0.5, −1) with a games term (0.2, −0.5): a player of n games
        // is scaled by (0.5 + 0.2 g, −1 − 0.5 g), g = ln(n / 5).
        let mut m = model();
        let v = m.variants.iter_mut().find(|v| v.rated).unwrap();
        v.platt_player = Some((0.5, -1.0));
        v.platt_player_games = Some((0.2, -0.5));
        // Logit 3 (see above).
        let mut s = signals(&[("matchRate", 0.7), ("zMm", 1.0)], Some(2000.0));
        let at = |m: &AssessmentModel, s: &mut Signals, n: usize| {
            s.games = n;
            m.assess(s).unwrap().probability
        };
        let expect = |n: f64| {
            let g = (n / 5.0).ln();
            sigmoid((0.5 + 0.2 * g) * 3.0 - 1.0 - 0.5 * g)
        };
        // One game: the side's scaling, as ever.
        assert!((at(&m, &mut s, 1) - sigmoid(3.0)).abs() < 1e-12);
        // Five games: g = 0, the scaling without its term.
        assert!((at(&m, &mut s, 5) - sigmoid(0.5)).abs() < 1e-12);
        for n in [2, 3, 10, 20] {
            let p = at(&m, &mut s, n);
            assert!((p - expect(n as f64)).abs() < 1e-12, "{n}: {p}");
        }
        // Beyond the games it was fitted on, held at their ends.
        assert_eq!(at(&m, &mut s, 60), at(&m, &mut s, 20));
        assert!(at(&m, &mut s, 20) != at(&m, &mut s, 10));
        // The file keeps it; one without it reads every player on one scaling.
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"plattPlayerGames\":[0.2,-0.5]"), "{json}");
        assert_eq!(AssessmentModel::from_json(&json).unwrap(), m);
        let v = m.variants.iter_mut().find(|v| v.rated).unwrap();
        v.platt_player_games = None;
        assert!(
            !serde_json::to_string(&m)
                .unwrap()
                .contains("plattPlayerGames")
        );
        assert!((at(&m, &mut s, 20) - sigmoid(0.5)).abs() < 1e-12);
    }

    #[test]
    fn the_share_of_moves_among_the_lines_is_pooled_by_moves_and_measured_against_the_rating() {
        // Four moves: three among the final lines, all four among the lines at some depth.
        let t = TopLines::of_moves(&[(true, true), (true, true), (false, true), (true, true)]);
        assert_eq!((t.rate, t.seen, t.moves), (Some(0.75), Some(1.0), 4));
        assert_eq!(TopLines::of_moves(&[]).rate, None);
        assert_eq!(TopLines::of_moves(&[]).seen, None);
        // A player's share weighs each game by its moves: 3 of 4 and 1 of 1 is 4 of 5,
        // not the mean of 0.75 and 1; seen at some depth 4 of 4 and 0 of 1, 4 of 5.
        let p = TopLines::pooled(&[t, TopLines::of_moves(&[(true, false)]), TopLines::default()]);
        assert_eq!((p.rate, p.seen, p.moves), (Some(0.8), Some(0.8), 5));
        let mut s = signals(&[], None);
        s.set_top_lines(t);
        assert_eq!(
            (s.get("topLines"), s.get("seenLines")),
            (Some(0.75), Some(1.0))
        );
        // Clean humans: the share rises by 0.1 per 1000 rating points.
        let humans: Vec<Signals> = (0..40)
            .map(|i| {
                let rating = 1000.0 + 40.0 * i as f64;
                let jitter = if i % 2 == 0 { 0.02 } else { -0.02 };
                let top = 0.6 + rating / 10_000.0 + jitter;
                signals(
                    &[
                        ("lateLoss", 3.0 + 50.0 * jitter),
                        ("lateMatch", 0.5 + jitter),
                        ("topLines", top),
                        // The share never among the lines, 1.02 - seen, falls by a
                        // factor e per 1000 points.
                        (
                            "seenLines",
                            1.02 - libm::exp(-(1.0 + rating / 1000.0 + 10.0 * jitter)),
                        ),
                    ],
                    Some(rating),
                )
            })
            .collect();
        let r = LateReference::fit(&humans.iter().collect::<Vec<_>>()).expect("a fit");
        let line = r.top_lines.expect("a line for topLines");
        assert!((line.slope - 0.0001).abs() < 5e-6, "{line:?}");
        // 87% of moves among the lines: ordinary at 2600, far too many at 1200.
        let z = |rating| {
            signals(&[("topLines", 0.87)], Some(rating))
                .with_late_z(&r)
                .get("zTopLines")
                .unwrap()
        };
        assert!(
            z(2600.0).abs() < 1.0 && z(1200.0) > 4.0,
            "{} {}",
            z(2600.0),
            z(1200.0)
        );
        // The same for the moves among the lines at some depth, on the scale of the share
        // outside them (its logarithm), where the line is straight.
        let seen = r.seen_lines.expect("a line for seenLines");
        assert!((seen.slope - 0.001).abs() < 5e-5, "{seen:?}");
        assert!(model_value("seenLines", 0.97) > model_value("seenLines", 0.9));
        assert!((model_value("seenLines", 1.0) - -(0.02f64.ln())).abs() < 1e-12);
        let z_seen = |rating| {
            signals(&[("seenLines", 0.99)], Some(rating))
                .with_late_z(&r)
                .get("zSeenLines")
                .unwrap()
        };
        assert!(
            z_seen(2600.0).abs() < 1.0 && z_seen(1200.0) > 4.0,
            "{} {}",
            z_seen(2600.0),
            z_seen(1200.0)
        );
        // A player's pooled games: no zSeenLines (a game side's only); zTopLines stays.
        let mut player = signals(&[("seenLines", 0.99), ("topLines", 0.87)], Some(1200.0));
        player.games = 5;
        let pooled = player.with_late_z(&r);
        assert_eq!(pooled.get("zSeenLines"), None);
        assert!(pooled.get("zTopLines").is_some());
        // A model fitted before the signal has no line: no z, and it still reads.
        let old: LateReference = serde_json::from_str(
            &serde_json::to_string(&LateReference {
                top_lines: None,
                seen_lines: None,
                position_loss: None,
                position_loss_clocks: None,
                ..r
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!((old.top_lines, old.seen_lines), (None, None));
        let s = signals(&[("topLines", 0.92), ("seenLines", 0.97)], Some(1200.0)).with_late_z(&old);
        assert_eq!((s.get("zTopLines"), s.get("zSeenLines")), (None, None));
        assert!(RATED_SIGNALS.contains(&"zTopLines") && RATED_SIGNALS.contains(&"zSeenLines"));
        assert!(describe("zTopLines", 1.0).0.contains("against the rating"));
        assert!(describe("zSeenLines", 1.0).0.contains("against the rating"));
    }

    #[test]
    fn the_later_half_is_measured_against_the_rating() {
        // Clean humans: the later half's log-loss falls by 1 per 1000 rating points,
        // its match rate rises by 0.2, each with some spread.
        let humans: Vec<Signals> = (0..40)
            .map(|i| {
                let rating = 1000.0 + 40.0 * i as f64;
                let jitter = if i % 2 == 0 { 0.1 } else { -0.1 };
                let loss = libm::exp(4.0 - rating / 1000.0 + jitter) - 1.0;
                let matched = 0.2 + rating / 5000.0 + jitter / 4.0;
                signals(&[("lateLoss", loss), ("lateMatch", matched)], Some(rating))
            })
            .collect();
        let r = LateReference::fit(&humans.iter().collect::<Vec<_>>()).expect("a fit");
        assert!((r.loss.slope + 0.001).abs() < 1e-4, "{r:?}");
        assert!((r.match_rate.slope - 0.0002).abs() < 1e-5, "{r:?}");
        // The same clean later half (4% lost, 70% matched): ordinary for a 2400, far too
        // clean for a 1200.
        let clean = |rating, games| {
            let mut s = signals(&[("lateLoss", 4.0), ("lateMatch", 0.7)], Some(rating));
            s.games = games;
            s.with_late_z(&r)
        };
        let (strong, weak) = (clean(2400.0, 1), clean(1200.0, 1));
        assert!(strong.get("zLateLoss").unwrap().abs() < 1.0, "{strong:?}");
        assert!(strong.get("zLateMatch").unwrap().abs() < 1.5, "{strong:?}");
        assert!(weak.get("zLateLoss").unwrap() < -4.0, "{weak:?}");
        assert!(weak.get("zLateMatch").unwrap() > 4.0, "{weak:?}");
        // Five games pooled: the same mean is √5 times as far.
        let (z1, z5) = (clean(2300.0, 1), clean(2300.0, 5));
        let (z1, z5) = (z1.get("zLateLoss").unwrap(), z5.get("zLateLoss").unwrap());
        assert!(
            z1 < -0.3 && (z5 / z1 - 5f64.sqrt()).abs() < 1e-9,
            "{z1} {z5}"
        );
        // A rating beyond those fitted (1000-2560) is read at the nearer end.
        assert_eq!(r.loss.range, Some((1000.0, 2560.0)));
        assert_eq!(r.loss.z(3.0, 300.0, 1.0), r.loss.z(3.0, 1000.0, 1.0));
        assert_eq!(r.loss.z(3.0, 3000.0, 1.0), r.loss.z(3.0, 2560.0, 1.0));
        assert_ne!(r.loss.z(3.0, 1500.0, 1.0), r.loss.z(3.0, 1000.0, 1.0));
        // No rating, no z; and `without` the rated signals drops them.
        let unrated = signals(&[("lateLoss", 3.0)], None).with_late_z(&r);
        assert_eq!(unrated.get("zLateLoss"), None);
        assert_eq!(weak.without(&RATED_SIGNALS).get("zLateLoss"), None);
        // Their words.
        assert_eq!(describe("zLateLoss", -2.5).1, "-2.5");
        assert!(describe("zLateMatch", 1.0).0.contains("against the rating"));
    }

    #[test]
    fn the_position_loss_is_measured_against_humans_of_the_rating_in_the_same_positions() {
        // Cells: a quiet position (small gap, level) and a sharp one (one good move).
        let quiet = PositionLoss::cell(Some(5), 20, 0, 2);
        let sharp = PositionLoss::cell(Some(400), -20, 3, 0);
        assert_ne!(quiet, sharp);
        assert_eq!(PositionLoss::cell(None, 20, 0, 2), quiet);
        assert!((sharp as usize) < PositionLoss::CELLS);
        assert_eq!(
            PositionLoss::cell(Some(300), 10_000, 9, 9) as usize,
            PositionLoss::CELLS - 1
        );
        // Clean humans rated 1300 lose 2 points in quiet positions and 20 in sharp ones;
        // those rated 2300, 1 and 6 (each ±1 or ±4: a spread). Twenty sides a band.
        let side = |q: f64, s: f64| {
            PositionLoss::of_moves((0..20).flat_map(|i| {
                let j = if i % 2 == 0 { 1.0 } else { -1.0 };
                [(quiet, q + j), (sharp, s + 4.0 * j)]
            }))
        };
        let (weak, strong) = (side(2.0, 20.0), side(1.0, 6.0));
        let mut sides: Vec<(f64, &PositionLoss)> = Vec::new();
        for _ in 0..20 {
            sides.push((1300.0, &weak));
            sides.push((2300.0, &strong));
        }
        let t = LossTable::fit(&sides, None).expect("a table");
        assert_eq!(t.moves, 1600);
        let b = LossTable::band(1300.0);
        assert_eq!(
            (b, LossTable::band(100.0), LossTable::band(3500.0)),
            (1, 0, 8)
        );
        assert_eq!(LossTable::band(f64::NAN), 0);
        // 400 moves a cell: shrunk a little toward the band's mean of 11.
        let m = t.mean[b][sharp as usize];
        assert!(
            (m - (400.0 * 20.0 + 20.0 * 11.0) / 420.0).abs() < 1e-4,
            "{m}"
        );
        // A band's own sides read about zero; the same moves against a lower rating read
        // as far less loss than expected (engine-like, negative).
        let own = t.z(&weak, 1300.0).unwrap();
        assert!(own.abs() < 1.0, "{own}");
        let z = t.z(&strong, 1300.0).unwrap();
        assert!(z < -5.0, "{z}");
        assert!(t.z(&strong, 2300.0).unwrap().abs() < 1.0);
        // A band with no humans falls back on all of them; no moves, no z.
        assert!(t.z(&strong, 1900.0).unwrap().is_finite());
        assert_eq!(t.z(&PositionLoss::default(), 1300.0), None);
        // Losses are capped; a player's games pool their moves.
        let capped = PositionLoss::of_moves([(quiet, 90.0)]);
        assert_eq!(capped, PositionLoss::of_moves([(quiet, PositionLoss::CAP)]));
        let both = PositionLoss::pooled([&weak, &strong]);
        assert_eq!(both.moves(), weak.moves() + strong.moves());
        // Through the signals: with the table in the reference, a rated side gets
        // `zPositionLoss`; an unrated one does not; too few humans, no table.
        let mut s = signals(&[("lateLoss", 4.0), ("lateMatch", 0.5)], Some(1300.0));
        s.position = strong.clone();
        let r = LateReference {
            position_loss: Some(t.clone()),
            ..flat_reference()
        };
        // (clipped at ±8, as every z-score the models read)
        let read = s.with_late_z(&r).get("zPositionLoss").unwrap();
        assert!((read - z.clamp(-8.0, 8.0)).abs() < 1e-12, "{read} {z}");
        s.rating = None;
        assert_eq!(s.with_late_z(&r).get("zPositionLoss"), None);
        // A player's games: not read (see `with_late_z`).
        s.rating = Some(1300.0);
        s.games = 5;
        assert_eq!(s.with_late_z(&r).get("zPositionLoss"), None);
        s.games = 1;
        assert_eq!(LossTable::fit(&sides[..1], None), None);
        // A table of part of the players (those with clocks, say) is shrunk toward a wider
        // table's same cell, and input with clocks is read against it.
        let part = LossTable::fit(&sides, Some(&t)).unwrap();
        let want = (400.0 * 20.0 + 20.0 * t.mean[b][sharp as usize]) / 420.0;
        assert!((part.mean[b][sharp as usize] - want).abs() < 1e-3);
        let strong_at_1300: Vec<(f64, &PositionLoss)> =
            (0..60).map(|_| (1300.0, &strong)).collect();
        let online = LossTable::fit(&strong_at_1300, Some(&t)).unwrap();
        let r = LateReference {
            position_loss_clocks: Some(online.clone()),
            ..r
        };
        s.rating = Some(1300.0);
        let offline = s.with_late_z(&r).get("zPositionLoss").unwrap();
        s.clocks = true;
        let with_clocks = s.with_late_z(&r).get("zPositionLoss").unwrap();
        assert!(
            offline < -5.0 && with_clocks.abs() < 1.0,
            "{offline} {with_clocks}"
        );
        assert_eq!(engine_direction("zPositionLoss"), Some(-1.0));
        assert!(describe("zPositionLoss", -2.0).0.contains("same positions"));
    }

    /// A reference whose later-half lines read every value as 1 ± 1, with no table.
    fn flat_reference() -> LateReference {
        let line = RatingLine {
            intercept: 1.0,
            slope: 0.0,
            sd: 1.0,
            range: None,
        };
        LateReference {
            loss: line,
            match_rate: line,
            top_lines: None,
            seen_lines: None,
            position_loss: None,
            position_loss_clocks: None,
            late_odds: None,
            switch_odds: None,
            switch_odds_all: None,
            bias: None,
            player_effects: Vec::new(),
            side_moves: None,
        }
    }

    #[test]
    fn the_late_odds_read_a_move_within_its_kind_of_position() {
        // Kinds: the only good move (or no second line), good alternatives with the
        // engine's best the same at every depth, good alternatives and a best that changed.
        assert_eq!(LateOdds::kind(Some(true), 3), 0);
        assert_eq!(LateOdds::kind(None, 0), 0);
        assert_eq!(LateOdds::kind(Some(false), 0), 1);
        assert_eq!(LateOdds::kind(Some(false), 2), 2);
        // Each kind has cells of its own; a kind past the last reads as the last.
        let first = |kind| LateOdds::cell(0.0, Some(1), true, kind);
        assert_eq!(
            (first(0), first(1), first(2), first(9)),
            (
                0,
                LateOdds::KIND_CELLS,
                2 * LateOdds::KIND_CELLS,
                2 * LateOdds::KIND_CELLS
            )
        );
        assert_eq!(LateOdds::cell(25.0, None, false, 2), LateOdds::CELLS - 1);
        // Engines are in positions of good alternatives three times as often as humans
        // (kind 1 against kind 0), but within each kind both choose alike: half the first
        // line, half the second. The odds read the choice, not the kind, so every such
        // side reads even, wherever it stood; in a kind of position where the engine
        // plays its first line and humans do not, the first line reads engine-like.
        let moves = |kind: usize, first: usize, second: usize| {
            std::iter::repeat_n((0.0, Some(1), true, kind), first)
                .chain(std::iter::repeat_n((1.0, Some(2), true, kind), second))
        };
        let human = LateOdds::cells_of(
            moves(0, 3000, 3000)
                .chain(moves(1, 1000, 1000))
                .chain(moves(2, 1500, 500)),
        );
        let engine = LateOdds::cells_of(
            moves(0, 1000, 1000)
                .chain(moves(1, 3000, 3000))
                .chain(moves(2, 2000, 0)),
        );
        let odds =
            LateOdds::fit(&[(1500.0, human.as_slice())], &[engine.as_slice()]).expect("a table");
        for kind in [0, 1] {
            let side = LateOdds::cells_of(moves(kind, 10, 10));
            let v = odds.value(&side, 1500.0).unwrap();
            // (about zero: each cell's count is given one more move)
            assert!(v.abs() < 0.1, "kind {kind}: {v}");
        }
        let hard = odds
            .value(&LateOdds::cells_of(moves(2, 10, 0)), 1500.0)
            .unwrap();
        assert!(hard > 0.5, "{hard}");
        // Shares sum to one within each kind, in both tables.
        for row in [&odds.engine, &odds.human[LateOdds::band(1500.0)]] {
            for kind in row.chunks(LateOdds::KIND_CELLS) {
                let total: f64 = kind.iter().map(|l| l.exp()).sum();
                assert!((total - 1.0).abs() < 1e-3, "{total}");
            }
        }
    }

    #[test]
    fn the_late_odds_weigh_each_later_move_by_how_much_likelier_an_engine_makes_it() {
        // The cells: loss band × where the move stood among the engine's lines.
        let best = LateOdds::cell(0.1, Some(1), true, 0);
        let second = LateOdds::cell(1.0, Some(2), true, 0);
        let blunder = LateOdds::cell(25.0, None, false, 0);
        assert_eq!(
            (best, second, blunder),
            (0, LateOdds::PLACES + 1, LateOdds::KIND_CELLS - 1)
        );
        assert_eq!(LateOdds::cell(3.0, None, true, 0), 2 * LateOdds::PLACES + 4);
        assert_eq!(LateOdds::cell(0.5, Some(9), true, 0), LateOdds::PLACES + 3);
        assert_eq!(
            (
                LateOdds::band(1299.0),
                LateOdds::band(1300.0),
                LateOdds::band(900.0),
                LateOdds::band(3000.0),
                LateOdds::band(f64::NAN)
            ),
            (0, 1, 0, 5, 0)
        );
        // Humans rated 1,400 play the first line half the time, a second line a quarter,
        // blunder a quarter; engines play the first line 90% of the time.
        let cells = |b: u32, s: u32, x: u32| {
            LateOdds::cells_of(
                std::iter::repeat_n((0.0, Some(1), true, 0), b as usize)
                    .chain(std::iter::repeat_n((1.0, Some(2), true, 0), s as usize))
                    .chain(std::iter::repeat_n((30.0, None, false, 0), x as usize)),
            )
        };
        let human = cells(500, 250, 250);
        let engine = cells(900, 100, 0);
        let humans = [(1400.0, human.as_slice()), (1450.0, human.as_slice())];
        let odds = LateOdds::fit(&humans, &[engine.as_slice()]).expect("a table");
        assert_eq!((odds.moves, odds.engine_moves), (2000, 1000));
        // (shares within the kind of position: every move here is of the first)
        let n = LateOdds::KIND_CELLS as f64;
        let lg = |k: f64, total: f64| ((k + 1.0) / (total + n)).ln();
        let (h, e) = (lg, lg);
        let want = |b: f64, s: f64, x: f64| {
            (b * (e(900.0, 1000.0) - h(1000.0, 2000.0))
                + s * (e(100.0, 1000.0) - h(500.0, 2000.0))
                + x * (e(0.0, 1000.0) - h(500.0, 2000.0)))
                / (b + s + x).sqrt()
        };
        // Ten first lines and no blunder read engine-like; a human's mix does not.
        let clean = odds.value(&cells(10, 0, 0), 1400.0).unwrap();
        assert!((clean - want(10.0, 0.0, 0.0)).abs() < 1e-3, "{clean}");
        assert!(clean > 1.5, "{clean}");
        let mixed = odds.value(&cells(4, 2, 2), 1400.0).unwrap();
        assert!((mixed - want(4.0, 2.0, 2.0)).abs() < 1e-3, "{mixed}");
        assert!(mixed < -1.0, "{mixed}");
        // No moves, no value; a band without humans reads every cell as equally likely.
        assert_eq!(odds.value(&cells(0, 0, 0), 1400.0), None);
        let empty_band = odds.value(&cells(10, 0, 0), 2400.0).unwrap();
        let flat = (e(900.0, 1000.0) - (1.0 / n).ln()) * 10.0 / 10f64.sqrt();
        assert!((empty_band - flat).abs() < 1e-3, "{empty_band} {flat}");
        // Too few moves of either kind: no table.
        assert_eq!(LateOdds::fit(&humans[..0], &[engine.as_slice()]), None);
        assert_eq!(LateOdds::fit(&humans, &[&engine[..1]]), None);
        // Through the signals: a rated game side reads it; an unrated one, a player's
        // pooled games, and a model fitted before it do not.
        let r = LateReference {
            late_odds: Some(odds.clone()),
            ..flat_reference()
        };
        let mut s = signals(&[("lateLoss", 4.0), ("lateMatch", 0.5)], Some(1400.0));
        s.late_cells = cells(10, 0, 0);
        assert_eq!(s.with_late_z(&r).get("lateOdds"), Some(clean));
        assert_eq!(s.with_late_z(&r).with_late_z(&r), s.with_late_z(&r));
        let mut pooled = s.clone();
        pooled.games = 3;
        assert_eq!(pooled.with_late_z(&r).get("lateOdds"), None);
        let mut unrated = s.clone();
        unrated.rating = None;
        assert_eq!(unrated.with_late_z(&r).get("lateOdds"), None);
        let old = LateReference {
            late_odds: None,
            switch_odds: None,
            switch_odds_all: None,
            ..r.clone()
        };
        assert_eq!(s.with_late_z(&old).get("lateOdds"), None);
        let back: LateReference =
            serde_json::from_str(&serde_json::to_string(&old).unwrap()).unwrap();
        assert_eq!(back, old);
        assert_eq!(engine_direction("lateOdds"), Some(1.0));
        assert!(GAME_SIDE_ONLY.contains(&"lateOdds") && RATED_SIGNALS.contains(&"lateOdds"));
        assert!(describe("lateOdds", 2.0).0.contains("engine"));
    }

    #[test]
    fn the_switch_odds_read_the_most_engine_like_run_to_the_end_of_the_game() {
        // Humans rated 1,400 play the first line half the time and blunder half the time;
        // engines play the first line 90% of the time.
        let (best, blunder) = (
            LateOdds::cell(0.0, Some(1), true, 0) as u8,
            LateOdds::cell(30.0, None, false, 0) as u8,
        );
        let human = LateOdds::counts([best, blunder].repeat(500));
        let engine = LateOdds::counts(
            std::iter::repeat_n(best, 900).chain(std::iter::repeat_n(blunder, 100)),
        );
        let odds =
            LateOdds::fit(&[(1400.0, human.as_slice())], &[engine.as_slice()]).expect("a table");
        let l = |c: u8| odds.engine[c as usize] - odds.human[LateOdds::band(1400.0)][c as usize];
        let (b, x) = (l(best), l(blunder));
        assert!(b > 0.0 && x < 0.0);
        // 20 human moves (alternately a best move and a blunder), then a switch: 16 best
        // moves. The run from the switch reads 16·b/4; the whole game less.
        let mut game: Vec<u8> = [best, blunder].repeat(10);
        game.extend(std::iter::repeat_n(best, 16));
        let read = odds.switch(&game, 1400.0).unwrap();
        assert!((read - 16.0 * b / 4.0).abs() < 1e-9, "{read} {}", 4.0 * b);
        let whole = (26.0 * b + 10.0 * x) / 36f64.sqrt();
        assert!(read > whole + 1.0, "{read} {whole}");
        // A shorter engine run than the fewest moves read: the run of the last 12 moves.
        let mut late: Vec<u8> = [best, blunder].repeat(12);
        late.extend(std::iter::repeat_n(best, 6));
        let want = (9.0 * b + 3.0 * x) / 12f64.sqrt();
        let read = odds.switch(&late, 1400.0).unwrap();
        assert!((read - want).abs() < 1e-9, "{read} {want}");
        // Fewer moves than the fewest: the whole side, once.
        let short = [best, best, blunder];
        let read = odds.switch(&short, 1400.0).unwrap();
        assert!((read - (2.0 * b + x) / 3f64.sqrt()).abs() < 1e-9);
        assert_eq!(odds.switch(&[], 1400.0), None);
        // A human's alternation reads under zero wherever it starts.
        assert!(odds.switch(&[best, blunder].repeat(20), 1400.0).unwrap() < 0.0);
        // Through the signals: a rated game side reads it; a player's pooled games, an
        // unrated side and a model fitted before it do not.
        let r = LateReference {
            switch_odds: Some(odds.clone()),
            ..flat_reference()
        };
        let mut s = signals(&[("lateLoss", 4.0), ("lateMatch", 0.5)], Some(1400.0));
        s.move_cells = game.clone();
        assert_eq!(
            s.with_late_z(&r).get("switchOdds"),
            Some((16.0 * b / 4.0).clamp(-8.0, 8.0))
        );
        let mut pooled = s.clone();
        pooled.games = 3;
        assert_eq!(pooled.with_late_z(&r).get("switchOdds"), None);
        let mut unrated = s.clone();
        unrated.rating = None;
        assert_eq!(unrated.with_late_z(&r).get("switchOdds"), None);
        assert_eq!(s.with_late_z(&flat_reference()).get("switchOdds"), None);
        // Where the run starts: the switch, White's 21st move when White's moves are
        // plies 1, 3, 5, ...; a reason says so.
        assert_eq!(
            odds.switch_run(&game, LateOdds::band(1400.0))
                .map(|(_, k)| k),
            Some(20)
        );
        assert_eq!(s.switch_from("switchOdds", &r), None, "no plies, no move");
        s.move_plies = (0..game.len() as u32).map(|i| 2 * i + 1).collect();
        assert_eq!(s.switch_from("switchOdds", &r), Some(21));
        assert_eq!(s.switch_from("lateOdds", &r), None);
        assert_eq!(pooled.switch_from("switchOdds", &r), None);
        assert_eq!(s.switch_from("switchOdds", &flat_reference()), None);
        let mut black = s.clone();
        black.move_plies = (0..game.len() as u32).map(|i| 2 * i + 2).collect();
        assert_eq!(black.switch_from("switchOdds", &r), Some(21));
        assert_eq!(
            plain_phrase("switchOdds", true, Some(21)),
            "played from move 21 to the end more like an engine than usual at their rating"
        );
        let text = reason_text("switchOdds", 2.0, Some((-1.0, 1.0)), "all", None, Some(21));
        assert_eq!(
            text,
            "how much likelier the moves from move 21 to the end are from an engine than from a player of the rating (log-odds per √move): +2.0 (clean humans: -1.0 to +1.0)"
        );
        // Against every clean human whatever their rating (one band): with a rating and
        // without one, never for a player's pooled games.
        let all = LateOdds::fit_one_band(&[human.as_slice()], &[engine.as_slice()]).unwrap();
        assert_eq!(all.human.len(), 1);
        assert_eq!(all.switch_in(&game, 0), odds.switch(&game, 1400.0));
        let r = LateReference {
            switch_odds_all: Some(all),
            ..r
        };
        let want = Some((16.0 * b / 4.0).clamp(-8.0, 8.0));
        assert_eq!(s.with_late_z(&r).get("switchOddsAll"), want);
        assert_eq!(unrated.with_late_z(&r).get("switchOddsAll"), want);
        assert_eq!(unrated.with_late_z(&r).get("switchOdds"), None);
        assert_eq!(pooled.with_late_z(&r).get("switchOddsAll"), None);
        assert!(
            GAME_SIDE_ONLY.contains(&"switchOddsAll") && !RATED_SIGNALS.contains(&"switchOddsAll")
        );
        let back: LateReference =
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        assert_eq!(engine_direction("switchOdds"), Some(1.0));
        assert!(GAME_SIDE_ONLY.contains(&"switchOdds") && RATED_SIGNALS.contains(&"switchOdds"));
        assert!(describe("switchOdds", 2.0).0.contains("engine"));
    }

    #[test]
    fn z_scores_are_recentred_on_the_clean_humans_of_their_band() {
        // Clean humans under 1200 read zAsd +0.4 per tested move's square root (+2 on 25
        // moves) and zTopLines +0.8 a game; those of 2000-2199 read zero.
        let mut samples = Vec::new();
        for i in 0..60 {
            let jitter = if i % 2 == 0 { 0.2 } else { -0.2 };
            samples.push(("zAsd", 1000.0, 2.0 + jitter, 25));
            samples.push(("zTopLines", 1100.0, 0.8 + jitter, 1));
            samples.push(("zAsd", 2100.0, jitter, 25));
        }
        let bias = RatingBias::fit(&samples);
        // 60 sides shrunk by PRIOR_SIDES: 60/80 of the band's mean.
        let shrink = 60.0 / (60.0 + RatingBias::PRIOR_SIDES);
        assert!(
            (bias.offset("zAsd", 1000.0, 25.0) - 2.0 * shrink).abs() < 1e-9,
            "{bias:?}"
        );
        assert!((bias.offset("zAsd", 1000.0, 100.0) - 4.0 * shrink).abs() < 1e-9);
        assert!((bias.offset("zTopLines", 1199.0, 1.0) - 0.8 * shrink).abs() < 1e-9);
        assert!((bias.offset("zTopLines", 1199.0, 4.0) - 1.6 * shrink).abs() < 1e-9);
        assert!(bias.offset("zAsd", 2100.0, 25.0).abs() < 1e-9);
        // A band with no sides, a signal with no bias: nothing taken off.
        assert_eq!(bias.offset("zAsd", 2500.0, 25.0), 0.0);
        assert_eq!(bias.offset("zMm", 1000.0, 25.0), 0.0);

        let line = RatingLine {
            intercept: 0.5,
            slope: 0.0,
            sd: 0.1,
            range: None,
        };
        let r = LateReference {
            loss: line,
            match_rate: line,
            top_lines: Some(line),
            seen_lines: None,
            position_loss: None,
            position_loss_clocks: None,
            late_odds: None,
            switch_odds: None,
            switch_odds_all: None,
            bias: Some(bias),
            player_effects: Vec::new(),
            side_moves: None,
        };
        let mut s = signals(&[("zAsd", 2.0), ("topLines", 0.58)], Some(1000.0));
        s.regan = ([None, None, Some(2.0)], 25);
        let once = s.with_late_z(&r);
        assert!(
            (once.get("zAsd").unwrap() - 2.0 * (1.0 - shrink)).abs() < 1e-9,
            "{once:?}"
        );
        assert!((once.get("zTopLines").unwrap() - (0.8 - 0.8 * shrink)).abs() < 1e-9);
        // From the values the z-scores come from: twice is once.
        assert_eq!(once.with_late_z(&r), once);
        // A strong player's are left as they were; without a bias, Regan's too.
        let mut strong = s.clone();
        strong.rating = Some(2100.0);
        assert!((strong.with_late_z(&r).get("zAsd").unwrap() - 2.0).abs() < 1e-9);
        let unbiased = LateReference {
            bias: None,
            ..r.clone()
        };
        assert_eq!(s.with_late_z(&unbiased).get("zAsd"), Some(2.0));
        // A model file without it still reads, with none.
        let mut json: serde_json::Value = serde_json::to_value(&r).unwrap();
        json.as_object_mut().unwrap().remove("bias");
        let old: LateReference = serde_json::from_value(json).unwrap();
        assert_eq!(old.bias, None);
        // Withholding the rating drops Regan's raw z-scores with it.
        assert_eq!(s.without(&RATED_SIGNALS).regan, ([None; 3], 0));
    }

    #[test]
    fn a_player_of_short_games_counts_them_by_their_moves_not_as_a_side_each() {
        // Harmonic means: sides of 10 and 40 moves are 16 a side; a side of none is left out.
        let t = SideMoves::fit(&[(10, 20), (40, 20), (0, 0)]).unwrap();
        assert!(
            (t.late - 16.0).abs() < 1e-9 && (t.top - 20.0).abs() < 1e-9,
            "{t:?}"
        );
        assert_eq!(SideMoves::fit(&[(0, 3)]), None);
        assert_eq!(
            SideMoves::units(8, 16.0, 2),
            1.0,
            "never fewer than one side"
        );
        assert_eq!(SideMoves::units(24, 16.0, 2), 1.5);
        assert_eq!(
            SideMoves::units(400, 16.0, 10),
            10.0,
            "never more than the games"
        );

        let line = RatingLine {
            intercept: 0.5,
            slope: 0.0,
            sd: 0.1,
            range: None,
        };
        let mut r = flat_reference();
        r.loss = line;
        r.match_rate = line;
        r.top_lines = Some(line);
        let mut player = signals(&[("lateMatch", 0.6), ("topLines", 0.6)], Some(1500.0));
        player.games = 2;
        (player.late_moves, player.top_moves) = (12, 60);
        // A game each without the typical side's moves: (0.6 - 0.5) / 0.1 · √2.
        let old = player.with_late_z(&r);
        let two = 2.0_f64.sqrt();
        assert!((old.get("zLateMatch").unwrap() - two).abs() < 1e-9);
        assert!((old.get("zTopLines").unwrap() - two).abs() < 1e-9);
        // With them: 12 later-half moves are one side of 16; 60 top-line moves, both games.
        r.side_moves = Some(SideMoves {
            late: 16.0,
            top: 20.0,
        });
        let new = player.with_late_z(&r);
        assert!((new.get("zLateMatch").unwrap() - 1.0).abs() < 1e-9);
        assert!((new.get("zTopLines").unwrap() - two).abs() < 1e-9);
        assert_eq!(new.with_late_z(&r), new, "twice is once");
        // A game side is read as before, however short.
        let mut side = player.clone();
        side.games = 1;
        let before = LateReference {
            side_moves: None,
            ..r.clone()
        };
        assert_eq!(side.with_late_z(&r), side.with_late_z(&before));
        assert!((side.with_late_z(&r).get("zLateMatch").unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_players_pooled_z_is_narrowed_by_the_share_of_its_spread_between_players() {
        // 200 players of 2 to 9 sides: a player effect of sd 0.5 and a side's of sd
        // √0.75 (a side's variance 1, a quarter of it between players), drawn by a
        // fixed generator.
        let mut seed = 7_u64;
        let mut normal = || {
            let mut u = || {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((seed >> 11) as f64 + 0.5) / (1u64 << 53) as f64
            };
            let (a, b) = (u(), u());
            libm::sqrt(-2.0 * libm::log(a)) * libm::cos(std::f64::consts::TAU * b)
        };
        let groups: Vec<Vec<f64>> = (0..200)
            .map(|i| {
                let player = 0.5 * normal();
                (0..2 + i % 8)
                    .map(|_| player + 0.75_f64.sqrt() * normal())
                    .collect()
            })
            .collect();
        let e = PlayerEffect::fit("zAsd", &groups).unwrap();
        assert!((e.icc - 0.25).abs() < 0.08, "{e:?}");
        assert_eq!(e.players, 200);
        // No player effect: about 0, never below.
        let flat: Vec<Vec<f64>> = (0..200)
            .map(|i| (0..2 + i % 8).map(|_| normal()).collect())
            .collect();
        let none = PlayerEffect::fit("zAsd", &flat).unwrap();
        assert!((0.0..0.05).contains(&none.icc), "{none:?}");
        // Players of one side each, or too few players: nothing to fit.
        assert_eq!(PlayerEffect::fit("zAsd", &vec![vec![1.0]; 50]), None);
        assert_eq!(PlayerEffect::fit("zAsd", &groups[..9]), None);

        // Applied: a player of 10 games' z-scores divided by √(1 + icc·9), a side's kept.
        let line = RatingLine {
            intercept: 0.5,
            slope: 0.0,
            sd: 0.1,
            range: None,
        };
        let effect = |signal: &str, icc| PlayerEffect {
            signal: signal.into(),
            icc,
            players: 100,
        };
        let r = LateReference {
            loss: line,
            match_rate: line,
            top_lines: Some(line),
            seen_lines: None,
            position_loss: None,
            position_loss_clocks: None,
            late_odds: None,
            switch_odds: None,
            switch_odds_all: None,
            bias: None,
            player_effects: vec![effect("zAsd", 0.25), effect("zTopLines", 1.0 / 9.0)],
            side_moves: None,
        };
        let mut player = signals(&[("zAsd", 3.0), ("topLines", 0.6)], Some(1500.0));
        player.regan = ([Some(1.0), None, Some(3.0)], 400);
        player.games = 10;
        let narrowed = player.with_late_z(&r);
        assert!((narrowed.get("zAsd").unwrap() - 3.0 / 3.25_f64.sqrt()).abs() < 1e-9);
        // zTopLines: (0.6 - 0.5) / 0.1 · √10, divided by √2.
        let top = 10.0_f64.sqrt() / 2.0_f64.sqrt();
        assert!((narrowed.get("zTopLines").unwrap() - top).abs() < 1e-9);
        assert_eq!(
            narrowed.get("zMm"),
            Some(1.0),
            "no effect fitted: unchanged"
        );
        assert_eq!(narrowed.with_late_z(&r), narrowed, "twice is once");
        let mut side = player.clone();
        side.games = 1;
        assert_eq!(side.with_late_z(&r).get("zAsd"), Some(3.0));
        // In an assessment: the player's zMm reason is the narrowed one, and says so.
        let mut m = model();
        m.late_reference = Some(LateReference {
            player_effects: vec![effect("zMm", 0.25)],
            ..r.clone()
        });
        let mut p = signals(&[("matchRate", 0.6), ("zMm", 3.0)], Some(2100.0));
        p.regan = ([Some(3.0), None, None], 400);
        p.games = 10;
        let a = m.assess(&p).unwrap();
        let reason = a.reasons.iter().find(|r| r.signal == "zMm").unwrap();
        assert!((reason.value - 3.0 / 3.25_f64.sqrt()).abs() < 1e-9);
        assert!(reason.text.contains("over 10 games"), "{}", reason.text);
        // A reason says when its z-score was narrowed: not the report's own.
        assert_eq!(
            reason_text("zAsd", 1.8, None, "all", Some(10), None),
            "size of errors against the rating (z): +1.8 over 10 games, allowing for a player's own style"
        );
        // A model file without them still reads, with none.
        let mut json: serde_json::Value = serde_json::to_value(&r).unwrap();
        json.as_object_mut().unwrap().remove("playerEffects");
        let old: LateReference = serde_json::from_value(json).unwrap();
        assert!(old.player_effects.is_empty());
    }

    #[test]
    fn the_clean_sides_tail_is_the_binomial_tail_at_one_side_in_a_hundred() {
        let p: f64 = 0.01;
        // By hand: C(n, k) p^k (1 - p)^(n - k) summed.
        let by_hand = |k: usize, n: usize| -> f64 {
            (k..=n)
                .map(|j| {
                    let choose: f64 = (1..=j).map(|i| (n - j + i) as f64 / i as f64).product();
                    choose * p.powi(j as i32) * (1.0 - p).powi((n - j) as i32)
                })
                .sum()
        };
        for (k, n) in [(1, 1), (2, 2), (2, 5), (3, 6), (3, 20), (4, 20), (5, 60)] {
            let t = clean_sides_tail(k, n, p);
            assert!(
                (t - by_hand(k, n)).abs() <= 1e-12 * by_hand(k, n).max(1e-300),
                "{k} {n}"
            );
        }
        assert_eq!(clean_sides_tail(0, 7, p), 1.0);
        assert_eq!(clean_sides_tail(3, 2, p), 0.0);
        assert!((clean_sides_tail(1, 3, p) - (1.0 - 0.99_f64.powi(3))).abs() < 1e-15);
        // Thousands of games neither underflow nor go past 1.
        let t = clean_sides_tail(10, 5000, p);
        assert!(t > 0.99 && t <= 1.0, "{t}");
        assert!(clean_sides_tail(200, 5000, p) < 1e-50);
        // The fewest of n sides at `look closer` that put a player there.
        let fewest =
            |n: usize| (1..=n).find(|&k| clean_sides_tail(k, n, p) <= PLAYER_LOOK_CLOSER_RATE);
        assert_eq!(fewest(2), Some(2));
        assert_eq!(fewest(5), Some(2));
        assert_eq!(fewest(6), Some(3));
        assert_eq!(fewest(19), Some(3));
        assert_eq!(fewest(20), Some(4));
        // At a rate of 1 in 200 two of seven do.
        assert!(clean_sides_tail(2, 7, 0.005) <= PLAYER_LOOK_CLOSER_RATE);
        assert!(clean_sides_tail(2, 7, p) > PLAYER_LOOK_CLOSER_RATE);
        // The shipped model's thresholds were set at 0.5% for its kind of input and each
        // rating band; the quick screen's model has no such rate (its sides were measured
        // at more).
        let shipped = AssessmentModel::builtin().unwrap();
        assert_eq!(shipped.side_look_closer_rate, Some(0.005));
        let quick: AssessmentModel =
            AssessmentModel::from_json(include_str!("../../models/quick-assessment.json")).unwrap();
        assert_eq!(quick.side_look_closer_rate, None);
    }

    #[test]
    fn a_player_whose_games_reach_look_closer_more_often_than_chance_allows_is_there() {
        let m = model();
        // A pooled reading between the thresholds (p = 0.55: unclear, as below).
        let mut s = signals(&[("matchRate", 0.61), ("zMm", 0.0)], Some(2300.0));
        s.games = 5;
        let pooled = m.assess(&s).unwrap();
        assert_eq!(pooled.level, Level::Unclear);
        // 2 of 5 sides there: a clean player shows that in about 1 in 1,000 (0.00098).
        let a = pooled.clone().with_game_sides(2, 5, 0.01);
        assert_eq!(a.level, Level::LookCloser);
        assert_eq!(
            a.probability, pooled.probability,
            "the probability stays the pooled one"
        );
        assert_eq!(a.thresholds, pooled.thresholds);
        assert_eq!(
            a.hint.as_deref(),
            Some(
                "2 of their 5 games reach look closer on their own: a clean player does that \
                 less than once in 1,000 (a clean game, at most once in 100), though read \
                 together their games stay under the player's threshold"
            )
        );
        // 1 of 5, or 2 of 6 (0.0015): chance allows it; nothing changes.
        assert_eq!(pooled.clone().with_game_sides(1, 5, 0.01), pooled);
        assert_eq!(pooled.clone().with_game_sides(2, 6, 0.01), pooled);
        assert_eq!(
            pooled.clone().with_game_sides(3, 6, 0.01).level,
            Level::LookCloser
        );
        // One assessed side is that side's own reading, never raised.
        assert_eq!(pooled.clone().with_game_sides(1, 1, 0.01), pooled);
        // From no concern too; and a player already there keeps their own hint.
        let mut low = signals(&[("matchRate", 0.5), ("acpl", 40.0)], None);
        low.games = 3;
        let low = m.assess(&low).unwrap();
        assert_eq!(low.level, Level::NoConcern);
        assert_eq!(low.with_game_sides(3, 3, 0.01).level, Level::LookCloser);
        let mut high = signals(&[("matchRate", 0.9), ("zMm", 0.0)], Some(2300.0));
        high.games = 5;
        let high = m.assess(&high).unwrap();
        assert_eq!(high.level, Level::LookCloser);
        assert_eq!(high.clone().with_game_sides(5, 5, 0.01), high);
    }

    #[test]
    fn a_lower_rated_game_side_is_held_to_its_bands_threshold_and_told_why() {
        let mut m = model();
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated = vec![LowerRated {
            below: 1900.0,
            unclear: 0.5,
            look_closer: 0.95,
            sides: 200,
            at_variant: 8,
            look_closer_player: None,
            look_closer_few: None,
        }];
        // matchRate 0.7: logit 2, p = 0.881, between the variant's 0.8 and the band's 0.95.
        let between = [("matchRate", 0.7), ("zMm", 0.0)];
        for (rating, lower) in [
            (1200.0, true),
            (1899.0, true),
            (1900.0, false),
            (2300.0, false),
        ] {
            let a = m.assess(&signals(&between, Some(rating))).unwrap();
            assert!((a.probability - sigmoid(2.0)).abs() < 1e-12);
            let hint = a.hint.clone().unwrap_or_default();
            if lower {
                assert_eq!(a.level, Level::Unclear, "{rating}");
                assert_eq!(a.thresholds, (0.5, 0.95), "{rating}");
                assert_eq!(
                    hint,
                    "clean players rated under 1,900 reach a probability of 80% or more in about 1 game in 25, more often than stronger players do, so for them look closer starts at 95%: look at more of their games"
                );
            } else {
                assert_eq!(a.level, Level::LookCloser, "{rating}");
                assert_eq!(a.thresholds, (0.3, 0.8), "{rating}");
                assert!(!hint.contains("rated under"), "{rating}: {hint}");
            }
        }
        // Above the band's threshold it is look closer, with no word of the band.
        let a = m
            .assess(&signals(&[("matchRate", 0.9), ("zMm", 0.0)], Some(1700.0)))
            .unwrap();
        assert_eq!(a.level, Level::LookCloser);
        assert!(a.hint.is_none(), "{:?}", a.hint);
        // Below the variant's threshold the band says nothing either. matchRate 0.61:
        // logit 0.2, p = 0.55: unclear for the variant (0.3) and the band (0.5).
        let at = |rate: f64, rating: f64| {
            m.assess(&signals(&[("matchRate", rate), ("zMm", 0.0)], Some(rating)))
                .unwrap()
        };
        let a = at(0.61, 1700.0);
        assert_eq!(a.level, Level::Unclear);
        assert!(a.hint.as_deref().unwrap().contains("more games"));
        // matchRate 0.59: p = 0.45, unclear at 2300, no concern under the band's `unclear`.
        assert_eq!(at(0.59, 2300.0).level, Level::Unclear);
        assert_eq!(at(0.59, 1700.0).level, Level::NoConcern);
        // Unrated: no band.
        let a = m.assess(&signals(&[("matchRate", 0.7)], None)).unwrap();
        assert_eq!(a.thresholds.1, 0.8);
        // A player of two or more games is not a game side: the band's rate is not its.
        for games in [2, 5] {
            let mut player = signals(&between, Some(1700.0));
            player.games = games;
            let a = m.assess(&player).unwrap();
            assert_ne!(a.thresholds.1, 0.95, "{games}");
            assert!(
                !a.hint.unwrap_or_default().contains("rated under"),
                "{games}"
            );
        }
        // A model file without the band reads, with none.
        let mut json: serde_json::Value = serde_json::to_value(&m.variants[1]).unwrap();
        json.as_object_mut().unwrap().remove("lowerRated");
        let old: Variant = serde_json::from_value(json).unwrap();
        assert!(old.lower_rated.is_empty());
        assert_eq!(thousands(1900.0), "1,900");
        assert_eq!(thousands(800.0), "800");
    }

    #[test]
    fn each_rating_band_holds_its_sides_and_players_to_its_own_thresholds() {
        let mut m = model();
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        let band = |below: f64, look_closer: f64, player: Option<f64>| LowerRated {
            below,
            unclear: 0.5,
            look_closer,
            sides: 300,
            at_variant: 10,
            look_closer_player: player,
            look_closer_few: None,
        };
        rated.lower_rated = vec![band(1600.0, 0.97, Some(0.99)), band(1900.0, 0.9, None)];
        rated.look_closer_player = 0.85;
        // The bands in a model file: a list, read back as it was.
        let json = serde_json::to_value(&*rated).unwrap();
        assert_eq!(json["lowerRated"].as_array().unwrap().len(), 2);
        let back: Variant = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&back, &*rated);
        // One band as an object (files made before bands could be several).
        let mut one = json;
        one["lowerRated"] = one["lowerRated"][1].clone();
        let old: Variant = serde_json::from_value(one).unwrap();
        assert_eq!(old.lower_rated, vec![band(1900.0, 0.9, None)]);
        // matchRate 0.7: p = 0.881, over the variant's 0.8, under both bands'.
        let between = [("matchRate", 0.7), ("zMm", 0.0)];
        for (rating, look_closer, words) in [
            (1200.0, 0.97, Some("rated under 1,600 ")),
            (1600.0, 0.9, Some("rated 1,600-1,899 ")),
            (1899.0, 0.9, Some("rated 1,600-1,899 ")),
            (1900.0, 0.8, None),
        ] {
            let a = m.assess(&signals(&between, Some(rating))).unwrap();
            assert_eq!(a.thresholds.1, look_closer, "{rating}");
            let hint = a.hint.unwrap_or_default();
            match words {
                Some(w) => {
                    assert_eq!(a.level, Level::Unclear, "{rating}");
                    assert!(hint.contains(w), "{rating}: {hint}");
                    assert!(hint.contains("about 1 game in 30"), "{rating}: {hint}");
                }
                None => assert_eq!(a.level, Level::LookCloser, "{rating}"),
            }
        }
        // A player of five games: the band's player threshold where it has one, never
        // under the variant's; the side's band thresholds are not a player's.
        for (rating, look_closer) in [(1500.0, 0.99), (1700.0, 0.85), (2000.0, 0.85)] {
            let mut player = signals(&between, Some(rating));
            player.games = 5;
            assert_eq!(
                m.assess(&player).unwrap().thresholds.1,
                look_closer,
                "{rating}"
            );
        }
        // A side held at `no concern` by its band's `unclear` though at or above the
        // variant's is told why; one under the variant's `unclear` is not.
        m.variants.iter_mut().find(|v| v.rated).unwrap().lower_rated[0].unclear = 0.9;
        let a = m.assess(&signals(&between, Some(1200.0))).unwrap();
        assert_eq!(a.level, Level::NoConcern);
        assert_eq!(
            a.hint.as_deref(),
            Some(
                "clean players rated under 1,600 often reach a probability of 30% or more, more often than stronger players do, so for them unclear starts at 90% and look closer at 97%"
            )
        );
        // matchRate 0.4: p = sigmoid(−4) = 0.018, under 30%.
        let low = m
            .assess(&signals(&[("matchRate", 0.4), ("zMm", 0.0)], Some(1200.0)))
            .unwrap();
        assert_eq!(low.level, Level::NoConcern);
        assert!(!low.hint.unwrap_or_default().contains("clean players"));
        m.variants.iter_mut().find(|v| v.rated).unwrap().lower_rated[0].unclear = 0.5;
        // A threshold from 99.5% on reads in tenths, never "100%".
        let a = m.assess(&signals(&between, Some(1200.0))).unwrap();
        assert!(a.hint.unwrap().contains("look closer starts at 97%"));
        assert_eq!(threshold_percent(0.9953), "99.5%");
        assert_eq!(threshold_percent(0.99999), "99.9%");
        assert_eq!(threshold_percent(0.9949), "99%");
        assert_eq!(threshold_percent(0.777), "78%");
        assert_eq!(threshold_percent(1.0), "100%");
        m.variants.iter_mut().find(|v| v.rated).unwrap().lower_rated[0].look_closer_player =
            Some(0.5);
        let mut player = signals(&between, Some(1500.0));
        player.games = 5;
        assert_eq!(m.assess(&player).unwrap().thresholds.1, 0.85);
    }

    #[test]
    fn a_player_of_two_to_four_games_is_held_to_the_bars_set_for_them_where_there_are_some() {
        let mut m = model();
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        // A player scale (the side's own scaling), so players of 2-4 games are read as
        // players; a band under 1,600 with bars of its own.
        rated.platt_player = Some(rated.platt);
        rated.look_closer_player = 0.85;
        rated.lower_rated = vec![LowerRated {
            below: 1600.0,
            unclear: 0.5,
            look_closer: 0.9,
            sides: 300,
            at_variant: 10,
            look_closer_player: Some(0.95),
            look_closer_few: None,
        }];
        let between = [("matchRate", 0.7), ("zMm", 0.0)];
        let bar = |m: &AssessmentModel, rating: f64, games: usize| {
            let mut s = signals(&between, Some(rating));
            s.games = games;
            m.assess(&s).unwrap().thresholds.1
        };
        // No bars for 2-4 games: theirs are the 5+ ones, the band's where it has one.
        for games in [2, 3, 4, 5, 20] {
            assert_eq!(bar(&m, 2000.0, games), 0.85, "{games}");
            assert_eq!(bar(&m, 1500.0, games), 0.95, "{games}");
        }
        // With them: players of 2-4 games get them, of 5 or more not, nor a game side.
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.look_closer_few = Some(0.97);
        rated.lower_rated[0].look_closer_few = Some(0.99999);
        for games in [2, 3, 4] {
            assert_eq!(bar(&m, 2000.0, games), 0.97, "{games}");
            assert_eq!(bar(&m, 1500.0, games), 0.99999, "{games}");
        }
        for games in [5, 10, 20] {
            assert_eq!(bar(&m, 2000.0, games), 0.85, "{games}");
            assert_eq!(bar(&m, 1500.0, games), 0.95, "{games}");
        }
        assert_eq!(bar(&m, 1500.0, 1), 0.9);
        assert_eq!(bar(&m, 2000.0, 1), 0.8);
        // A band's is never below the variant's, nor under the 5+ bars; a band without
        // one takes the variant's.
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated[0].look_closer_few = Some(0.96);
        assert_eq!(bar(&m, 1500.0, 3), 0.97);
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated[0].look_closer_player = Some(0.98);
        assert_eq!(bar(&m, 1500.0, 3), 0.98);
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated[0].look_closer_player = Some(0.95);
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated[0].look_closer_few = None;
        assert_eq!(bar(&m, 1500.0, 3), 0.97);
        // The file keeps them; one without them reads as before.
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.lower_rated[0].look_closer_few = Some(0.99999);
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"lookCloserFew\":0.97"), "{json}");
        assert!(json.contains("\"lookCloserFew\":0.99999"), "{json}");
        assert_eq!(AssessmentModel::from_json(&json).unwrap(), m);
        let rated = m.variants.iter_mut().find(|v| v.rated).unwrap();
        rated.look_closer_few = None;
        rated.lower_rated[0].look_closer_few = None;
        assert!(!serde_json::to_string(&m).unwrap().contains("lookCloserFew"));
    }

    #[test]
    fn a_probability_never_reads_as_reaching_a_threshold_it_is_under() {
        // A probability under a threshold never reads as reaching it...
        assert_eq!(probability_percent(0.947, (0.5, 0.949)), "94%");
        assert_eq!(probability_percent(0.4951, (0.4952, 0.9)), "49%");
        assert_eq!(probability_percent(0.9962, (0.5, 0.9968)), "99.5%");
        assert_eq!(probability_percent(0.9951, (0.5, 0.9953)), "99.4%");
        assert_eq!(probability_percent(0.004, (0.004_2, 0.9)), "<1%");
        assert_eq!(probability_percent(0.0, (0.004_2, 0.9)), "0%");
        assert_eq!(probability_percent(1.0, (0.5, 0.99)), "100%");
        // ... and is rounded as usual elsewhere, at or over its level's threshold too.
        assert_eq!(probability_percent(0.947, (0.5, 0.96)), "95%");
        assert_eq!(probability_percent(0.949, (0.5, 0.949)), "95%");
        assert_eq!(
            probability_percent(0.9996, (0.5, 0.99)),
            ">99%",
            "no certainty"
        );
        assert_eq!(probability_percent(0.9986, (0.5, 0.999)), "99.8%");
        assert_eq!(probability_percent(0.123, (0.5, 0.9)), "12%");
        // Its value is at or over the threshold's exactly when the probability is.
        for i in 0..=1000 {
            for t in [0.3, 0.4949, 0.495, 0.9, 0.949, 0.9953, 0.9968, 0.99999] {
                let p = i as f64 / 1000.0 + 0.000_3;
                // ">99%" is over 99 and under 100, "<1%" over 0 and under 1.
                let number = |s: String| match s.as_str() {
                    ">99%" => 99.95,
                    "<1%" => 0.5,
                    s => s.trim_end_matches('%').parse::<f64>().unwrap(),
                };
                let shown = number(probability_percent(p, (0.0, t)));
                let limit = number(threshold_percent(t));
                assert_eq!(shown >= limit, p >= t, "{p} against {t}: {shown} / {limit}");
            }
        }
    }

    #[test]
    fn probability_levels_and_reasons_follow_the_model() {
        let m = model();
        // Human-like: match 0.5, acpl 40: z = -2: p = 0.12.
        let a = m
            .assess(&signals(&[("matchRate", 0.5), ("acpl", 40.0)], None))
            .unwrap();
        assert!((a.probability - sigmoid(-2.0)).abs() < 1e-12);
        assert_eq!(a.level, Level::NoConcern);
        assert_eq!(a.basis, "unrated, no clocks");
        assert!(a.hint.as_deref().unwrap().contains("rating"));
        assert_eq!(a.resembles, None, "nothing to resemble at no concern");
        // Engine-like: match 0.9, acpl 5: z = -2 + 8 + (ln 41 - ln 6) = 7.92.
        let b = m
            .assess(&signals(&[("matchRate", 0.9), ("acpl", 5.0)], None))
            .unwrap();
        assert_eq!(b.level, Level::LookCloser);
        assert_eq!(b.resembles.as_deref(), Some("a top engine's play"));
        assert_eq!(b.reasons[0].signal, "matchRate", "the largest effect first");
        assert!(b.reasons[0].effect > 0.0);
        assert!(
            b.reasons[0].text.contains("90%") && b.reasons[0].text.contains("30% to 70%"),
            "{}",
            b.reasons[0].text
        );
        // In plain words: which way and how far, no numbers but the band's. A match rate
        // of 90%, beyond clean humans' 30% to 70%; an ACPL of 5 under the median of 40.
        assert_eq!(
            b.reasons[0].plain,
            "played the engine's first choice more often than usual (further than 19 in 20 clean players)"
        );
        let acpl = b.reasons.iter().find(|r| r.signal == "acpl").unwrap();
        assert_eq!(
            acpl.plain, "lost less a move on average than usual",
            "no range, no extent"
        );
        // Signals at the median moved nothing: no reasons.
        assert!(a.reasons.is_empty(), "{:?}", a.reasons);
        // A human-like value reads the other way, inside the range.
        let human = m
            .assess(&signals(&[("matchRate", 0.45), ("acpl", 40.0)], None))
            .unwrap();
        let match_a = human
            .reasons
            .iter()
            .find(|r| r.signal == "matchRate")
            .unwrap();
        assert_eq!(
            match_a.plain,
            "played the engine's first choice less often than usual (within the range of 9 in 10 clean players)"
        );
        // A rating picks the rated variant and the band's range.
        let c = m
            .assess(&signals(&[("matchRate", 0.62), ("zMm", 1.0)], Some(2100.0)))
            .unwrap();
        assert_eq!(c.basis, "rated, no clocks");
        let r = c.reasons.iter().find(|r| r.signal == "matchRate").unwrap();
        assert_eq!(r.band, "2,000–2,400");
        assert_eq!(r.human, Some((0.4, 0.75)));
        assert!(
            r.plain
                .ends_with("(within the range of 9 in 10 clean players rated 2,000–2,400)"),
            "{}",
            r.plain
        );
        // z = -2 + 2.4 + 1 = 1.4: p = 0.80 → look closer for a side, unclear for a player
        // with 5 games.
        assert_eq!(c.level, Level::LookCloser);
        let mut five = signals(&[("matchRate", 0.62), ("zMm", 1.0)], Some(2100.0));
        five.games = 5;
        assert_eq!(m.assess(&five).unwrap().level, Level::Unclear);
        // A missing signal is filled with the human median: no effect, no reason.
        let d = m.assess(&signals(&[("matchRate", 0.9)], None)).unwrap();
        assert!(d.reasons.iter().all(|r| r.signal != "acpl"));
    }

    #[test]
    fn a_signal_that_did_not_move_the_probability_is_no_reason() {
        // The unrated kind reads ACPL, but its one expert does not: ACPL's effect is 0,
        // and an ACPL of 5 (engine-like) would else be listed as a reason.
        let mut m = model();
        let v = m.variants.iter_mut().find(|v| !v.rated).unwrap();
        v.experts[0].features = vec!["matchRate".into()];
        v.experts[0].model = Model::Logistic {
            mean: vec![0.5],
            scale: vec![0.1],
            weights: vec![2.0],
            bias: -2.0,
        };
        let a = m
            .assess(&signals(&[("matchRate", 0.9), ("acpl", 5.0)], None))
            .unwrap();
        let listed: Vec<&str> = a.reasons.iter().map(|r| r.signal.as_str()).collect();
        assert_eq!(listed, ["matchRate"]);
        // 90% is beyond clean players' 30% to 70%: a reason a reader can lean on.
        assert!(a.reasons[0].unusual);
        let b = m
            .assess(&signals(&[("matchRate", 0.6), ("acpl", 5.0)], None))
            .unwrap();
        assert!(!b.reasons[0].unusual, "60% is within 30% to 70%");
    }

    #[test]
    fn a_range_in_words_is_the_band_of_the_rating_else_all_sides() {
        let m = model();
        let r = m.range_words("matchRate", Some(2100.0)).expect("a range");
        assert_eq!(r.band, "2,000–2,400");
        assert_eq!(
            (r.low.as_str(), r.median.as_str(), r.high.as_str(), r.sides),
            ("40%", "55%", "75%", 50)
        );
        // Outside every band, or without a rating: all sides.
        for rating in [Some(1500.0), None] {
            let all = m.range_words("matchRate", rating).expect("a range");
            assert_eq!((all.band.as_str(), all.low.as_str()), ("all", "30%"));
        }
        assert_eq!(m.range_words("no such signal", None), None);
    }

    #[test]
    fn a_model_without_human_ranges_gives_reasons_a_report_can_read_back() {
        let mut m = model();
        m.ranges.clear();
        let a = m
            .assess(&signals(&[("matchRate", 0.9), ("acpl", 5.0)], None))
            .unwrap();
        let r = &a.reasons[0];
        assert_eq!(r.human, None);
        assert!(!r.text.contains("clean humans"), "{}", r.text);
        let json = serde_json::to_string(&a).unwrap();
        assert!(json.contains("\"human\":null"), "{json}");
        let back: Assessment = serde_json::from_str(&json).unwrap();
        assert_eq!(back.reasons[0].human, None);
    }

    #[test]
    fn the_model_file_round_trips_and_is_checked() {
        let m = model();
        let back = AssessmentModel::from_json(&m.to_json()).unwrap();
        assert_eq!(back, m);
        let mut bad = m.clone();
        bad.variants[0].features[0] = "WhiteElo".into();
        assert!(AssessmentModel::from_json(&bad.to_json()).is_err());
        // An expert may only read its variant's signals, needs a human scale, and a
        // variant needs an expert.
        let mut bad = m.clone();
        bad.variants[0].experts[0].features[1] = "zMm".into();
        let e = AssessmentModel::from_json(&bad.to_json()).unwrap_err();
        assert!(e.0.contains("\"zMm\""), "{e}");
        let mut bad = m.clone();
        bad.variants[0].experts[0].human.1 = 0.0;
        assert!(AssessmentModel::from_json(&bad.to_json()).is_err());
        let mut bad = m.clone();
        bad.variants[0].experts.clear();
        assert!(AssessmentModel::from_json(&bad.to_json()).is_err());
        // A table of moves by kind as wide as this version's cells reads; one of a model
        // fitted before the kinds of position (36 cells) is refused, not read as absent.
        let humans = [(1500.0, LateOdds::counts((0..1200).map(|i| (i % 7) as u8)))];
        let engine = LateOdds::counts((0..1200).map(|i| (i % 3) as u8));
        let humans: Vec<(f64, &[u32])> = humans.iter().map(|(r, c)| (*r, c.as_slice())).collect();
        let odds = LateOdds::fit(&humans, &[engine.as_slice()]).expect("a table");
        let mut good = m.clone();
        good.late_reference = Some(LateReference {
            switch_odds: Some(odds.clone()),
            ..flat_reference()
        });
        assert!(AssessmentModel::from_json(&good.to_json()).is_ok());
        let mut old = odds;
        old.engine.truncate(36);
        let mut bad = m.clone();
        bad.late_reference = Some(LateReference {
            switch_odds: Some(old),
            ..flat_reference()
        });
        let e = AssessmentModel::from_json(&bad.to_json()).unwrap_err();
        assert!(e.0.contains("switchOdds: 36 cells"), "{e}");
    }

    #[test]
    fn the_expert_that_finds_a_side_most_engine_like_decides_on_its_human_scale() {
        let mut m = model();
        let v = &mut m.variants[0];
        // A second expert that reads only ACPL: low ACPL is engine-like. Its human scale
        // (centre −1, scale 0.5) makes a logit of 0 two human deviations high.
        v.experts.push(Expert {
            kind: "switched".into(),
            features: vec!["acpl".into()],
            model: Model::Logistic {
                mean: vec![41f64.ln()],
                scale: vec![1.0],
                weights: vec![-1.0],
                bias: 0.0,
            },
            human: (-1.0, 0.5),
            human_clocks: None,
            player: None,
        });
        let v = &m.variants[0];
        let x = v.input(&signals(&[("matchRate", 0.5), ("acpl", 40.0)], None));
        // Expert 1: logit −2 + 0 + 0 = −2 (z −2); expert 2: logit 0, z (0 + 1) / 0.5 = 2.
        assert!((v.experts[0].z(&v.features, &x) + 2.0).abs() < 1e-9);
        assert!((v.experts[1].z(&v.features, &x) - 2.0).abs() < 1e-9);
        assert!((v.raw(&x) - sigmoid(2.0)).abs() < 1e-12);
        assert_eq!(v.leading_expert(&x).unwrap().kind, "switched");
        // A high match rate makes the first expert lead: z = −2 + 2·(0.9 − 0.5)/0.1 = 6.
        let y = v.input(&signals(&[("matchRate", 0.9), ("acpl", 40.0)], None));
        assert!((v.raw(&y) - sigmoid(6.0)).abs() < 1e-12);
        assert_eq!(v.leading_expert(&y).unwrap().kind, "top engines");
    }

    #[test]
    fn the_rated_kind_without_clocks_reads_a_side_a_kind_with_clocks_would_read() {
        // A rated twin with clocks on another scale (centre −2.5, spread 0.5) reads a rated
        // side with clocks; the rated kind without clocks still gives that side the
        // probability it gave before the twin was there (its logit −1: z −1), and none to
        // a player's pooled games or a side it cannot read (no rating).
        let mut m = model();
        let side = Signals {
            clocks: true,
            ..signals(&[("matchRate", 0.55), ("zMm", 0.0)], Some(2000.0))
        };
        let before = m.assess(&side).unwrap();
        assert_eq!(before.basis, "rated, no clocks");
        let mut twin = m.variants[1].clone();
        twin.clocks = true;
        twin.experts[0].human = (-2.5, 0.5);
        m.variants.push(twin);
        let with_twin = m.assess(&side).unwrap();
        assert_eq!(with_twin.basis, "rated, clocks");
        assert!((with_twin.probability - before.probability).abs() > 0.1);
        let p = m.rated_probability_without_clocks(&side).unwrap();
        assert!(
            (p - before.probability).abs() < 1e-12,
            "{p} {}",
            before.probability
        );
        assert!((p - sigmoid(-1.0)).abs() < 1e-9, "{p}");
        let player = Signals {
            games: 3,
            ..side.clone()
        };
        assert_eq!(m.rated_probability_without_clocks(&player), None);
        let unrated = Signals {
            rating: None,
            ..side.clone()
        };
        assert_eq!(m.rated_probability_without_clocks(&unrated), None);
    }

    #[test]
    fn a_game_side_with_clocks_is_read_on_its_experts_scale_for_clocks() {
        let mut m = model();
        // The top-engine expert's logit for this side is −2: z −2 on its one scale (0, 1).
        let side = signals(&[("matchRate", 0.5), ("acpl", 40.0)], None);
        assert_eq!(m.expert_scores(&side), [("top engines", -2.0)]);
        // On a scale for sides with clocks (centre −2.5, spread 0.5) the same logit is
        // z (−2 + 2.5) / 0.5 = 1, for a side with clocks only.
        m.variants[0].experts[0].human_clocks = Some((-2.5, 0.5));
        let m = AssessmentModel::from_json(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(m.variants[0].experts[0].human_clocks, Some((-2.5, 0.5)));
        let clocked = Signals {
            clocks: true,
            ..side.clone()
        };
        assert_eq!(m.expert_scores(&side), [("top engines", -2.0)]);
        let z = m.expert_scores(&clocked)[0].1;
        assert!((z - 1.0).abs() < 1e-9, "{z}");
        // The probability follows: the variant's scaling of the larger z.
        let v = &m.variants[0];
        let (a, b) = v.platt;
        let p = m.assess(&clocked).unwrap().probability;
        assert!((p - sigmoid(a * 1.0 + b)).abs() < 1e-9, "{p}");
        assert!(p > m.assess(&side).unwrap().probability);
        // A player's pooled games keep the one scale, clocks or not.
        let player = Signals {
            games: 3,
            ..clocked.clone()
        };
        assert_eq!(m.expert_scores(&player), [("top engines", -2.0)]);
        // A scale of no spread is no model.
        let mut bad = m.clone();
        bad.variants[0].experts[0].human_clocks = Some((0.0, 0.0));
        let err = AssessmentModel::from_json(&serde_json::to_string(&bad).unwrap()).unwrap_err();
        assert!(err.0.contains("no human scale"), "{}", err.0);
    }

    #[test]
    fn the_later_half_is_the_last_half_of_the_moves_and_players_pool_by_moves() {
        // Five moves (win-% loss, best?): the later half is the last three (⌈5/2⌉).
        let moves = [
            (9.0, false),
            (6.0, false),
            (0.0, true),
            (1.0, true),
            (2.0, false),
        ];
        let late = Late::of_moves(&moves);
        assert_eq!(late.moves, 3);
        assert!((late.loss.unwrap() - 1.0).abs() < 1e-12);
        assert!((late.match_rate.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(Late::of_moves(&[]), Late::default());
        // The first half, the other two, lost 7.5 on average: the later half gained
        // ln(8.5) − ln(2).
        assert_eq!(late.early_moves, 2);
        assert!((late.early_loss.unwrap() - 7.5).abs() < 1e-12);
        assert!((late.gain().unwrap() - (8.5f64.ln() - 2f64.ln())).abs() < 1e-12);
        // One move: no first half, no gain.
        assert_eq!(Late::of_moves(&[(3.0, true)]).gain(), None);
        // A player: one game of 3 later moves at a loss of 1, one of 1 at 5 (its first
        // half, 2 moves at 1.5).
        let other = Late {
            loss: Some(5.0),
            match_rate: Some(0.0),
            moves: 1,
            early_loss: Some(1.5),
            early_moves: 2,
        };
        let pooled = Late::pooled(&[late, other]);
        assert_eq!(pooled.moves, 4);
        assert!((pooled.loss.unwrap() - 2.0).abs() < 1e-12);
        assert!((pooled.match_rate.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(pooled.early_moves, 4);
        assert!((pooled.early_loss.unwrap() - 4.5).abs() < 1e-12);
        assert!((pooled.gain().unwrap() - (5.5f64.ln() - 3f64.ln())).abs() < 1e-12);
        // Set on signals, with the moves behind them; named in the reasons' words.
        let mut s = signals(&[], None);
        s.set_late(Late {
            loss: Some(12.5),
            match_rate: Some(0.25),
            moves: 9,
            early_loss: Some(3.0),
            early_moves: 8,
        });
        assert_eq!(s.get("lateLoss"), Some(12.5));
        assert_eq!(s.get("lateMatch"), Some(0.25));
        assert_eq!(s.late_moves, 9);
        assert_eq!(s.early, (Some(3.0), 8));
        assert!((s.get("lateGain").unwrap() - (4f64.ln() - 13.5f64.ln())).abs() < 1e-12);
        assert_eq!(describe("lateGain", -1.2).1, "-1.20");
        assert_eq!(
            describe("lateMatch", 0.25),
            (
                "engine top-move match in the later half of the moves",
                "25%".to_owned()
            )
        );
        assert_eq!(describe("lateLoss", 12.5).1, "12.5%");
    }
}
