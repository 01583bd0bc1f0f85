//! The rating ↔ Regan (s, c) calibration: a table of (s, c) fitted per rating band on
//! rated human games analysed with fairsight's default engine and settings
//! (`models/regan-calibration.json`, made by `fairsight calibrate`; see
//! `models/README.md`). From it:
//!
//! - the parameters of any rating (linear interpolation between the bands' mean
//!   ratings, clamped at the ends);
//! - the intrinsic performance rating (IPR) of a sample: the rating whose parameters make
//!   the sample most likely, with the ratings within 1.92 log-likelihood units (a 95%
//!   likelihood interval);
//! - the screening z-scores of a sample against the parameters of a given rating.
//!
//! Both are only meaningful for reports made with the table's engine and settings; the
//! report says which table it used.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::{
    plan::Settings,
    record::EngineInfo,
    stats::regan::{self, Projections, Tested},
};

/// One rating band's fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Band {
    /// Lowest rating of the band.
    pub lo: u32,
    /// Rating above the band.
    pub hi: u32,
    /// Mean rating of the band's sides.
    pub mean_elo: f64,
    /// Sides (player-games) in the band.
    pub sides: usize,
    /// Moves fitted.
    pub moves: usize,
    /// Sensitivity.
    pub s: f64,
    /// Consistency.
    pub c: f64,
    /// Interval of s: where the band's MM z-score stays within ±1.96 (`calibrate fit`).
    pub s_range: (f64, f64),
    /// 95% region of c.
    pub c_range: (f64, f64),
}

/// The table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// The engine the games were analysed with.
    pub engine: EngineInfo,
    /// The settings they were analysed with.
    pub settings: Settings,
    /// Where the games came from.
    pub source: String,
    /// Bands, by rating.
    pub bands: Vec<Band>,
}

/// Regan's z-scores of a sample against a rating's parameters (the `zScores` of the
/// report); not to be confused with [`crate::plan::Screening`], the screening mode's
/// search settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ZScores {
    /// z-score of the top-move match rate.
    pub mm: Option<f64>,
    /// z-score of the equal-value match rate.
    pub ev: Option<f64>,
    /// z-score of the average scaled difference (negative: fewer errors than projected).
    pub asd: Option<f64>,
    /// The rating the baseline is for.
    pub rating: f64,
    /// Its parameters.
    pub s: f64,
    /// Its parameters.
    pub c: f64,
    /// Moves tested.
    pub moves: usize,
    /// Observed and projected values.
    pub projections: Projections,
}

/// An intrinsic performance rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ipr {
    /// The most likely rating.
    pub elo: f64,
    /// 95% likelihood interval.
    pub low: f64,
    /// 95% likelihood interval.
    pub high: f64,
    /// The table's end the most likely rating is at, when it is at one: beyond the
    /// lowest or highest band's mean rating the table has no parameters of its own (it
    /// repeats the end band's), so the IPR is "that band or below" ("or above").
    pub edge: Option<Edge>,
}

/// An end of the rating table ([`Ipr::edge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Edge {
    /// At the lowest band's mean rating: that or below.
    Lowest,
    /// At the highest band's mean rating: that or above.
    Highest,
}

/// No verdict from fewer analysed moves than this.
pub const MIN_VERDICT_MOVES: usize = 100;
/// The screening threshold: MM z and −ASD z both at least this: "look closer".
pub const Z_LOOK_CLOSER: f64 = 2.75;

/// A move that drove a verdict: an engine top-move match that the player's rating made
/// unlikely.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Game index (0-based, as in `games`).
    pub game: usize,
    /// Ply number.
    pub ply: u32,
    /// The model's probability of that top move for a player of the rating.
    pub probability: f64,
}

/// Why a player has no z-scores, and so no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::enum_variant_names,
    reason = "read as `Unscreened::NoRating`: what the player lacks"
)]
pub enum Unscreened {
    /// No calibration table applies to the report's engine build and settings.
    NoCalibration,
    /// No rating: no Elo tag, none entered.
    NoRating,
    /// Calibrated and rated, but no analysed move to test.
    NoMoves,
}

impl Unscreened {
    /// Why, in the words of the verdict.
    pub fn reason(self) -> String {
        match self {
            Unscreened::NoCalibration => {
                let calibrated = Calibration::builtin().map_or_else(String::new, |c| {
                    let depth = match c.settings.limit {
                        crate::uci::Limit::Depth(d) => format!("depth {d}"),
                        crate::uci::Limit::Nodes(n) => format!("{n} nodes"),
                    };
                    format!(
                        " (it is for {depth}, {} lines, {})",
                        c.settings.multipv, c.engine.build
                    )
                });
                format!(
                    "no verdict: the rating calibration does not apply to this engine and these settings{calibrated}"
                )
            }
            Unscreened::NoRating => {
                "no verdict: no rating (no Elo tag; enter one with --rating or in the page's settings)"
                    .into()
            }
            Unscreened::NoMoves => "no verdict: no analysed move to test".into(),
        }
    }
}

/// The verdict on a player from the screening (explicit thresholds:
/// [`MIN_VERDICT_MOVES`], [`Z_LOOK_CLOSER`]), and the moves that drove it, most
/// significant first (at most `max_evidence`); without z-scores, `unscreened` says why.
pub fn verdict(
    screening: Result<&ZScores, Unscreened>,
    sample: &[Tested],
    max_evidence: usize,
) -> (String, Vec<Evidence>) {
    let z = match screening {
        Ok(z) => z,
        Err(why) => return (why.reason(), Vec::new()),
    };
    if z.moves < MIN_VERDICT_MOVES {
        return (
            format!(
                "no verdict: {} analysed moves, fewer than the {MIN_VERDICT_MOVES} required",
                z.moves
            ),
            Vec::new(),
        );
    }
    // The ASD z as the report gives it: negative for errors smaller than projected.
    let mm = z.mm.unwrap_or(0.0);
    let asd = z.asd.unwrap_or(0.0);
    let mut evidence: Vec<Evidence> = sample
        .iter()
        .filter(|t| t.deltas.len() > 1 && t.played == t.top && t.top < t.deltas.len())
        .map(|t| Evidence {
            game: t.at.0,
            ply: t.at.1,
            probability: regan::probabilities(&t.deltas, z.s, z.c)[t.top],
        })
        .collect();
    evidence.sort_by(|a, b| a.probability.total_cmp(&b.probability));
    evidence.truncate(max_evidence);
    let rule = format!("MM {Z_LOOK_CLOSER} or more and ASD -{Z_LOOK_CLOSER} or less");
    let text = if mm >= Z_LOOK_CLOSER && -asd >= Z_LOOK_CLOSER {
        format!(
            "look closer: screening z MM {mm:.2} and ASD {asd:.2} against a {:.0} player ({rule})",
            z.rating
        )
    } else {
        format!(
            "no statistical evidence: screening z MM {mm:.2}, ASD {asd:.2} against a {:.0} player (look closer at {rule})",
            z.rating
        )
    };
    (text, evidence)
}

/// Ratings searched for the IPR.
pub const IPR_RANGE: (f64, f64) = (600.0, 3400.0);

impl Calibration {
    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("invariant: the table serialises")
    }

    /// Parses a table.
    pub fn from_json(s: &str) -> Result<Calibration, serde_json::Error> {
        serde_json::from_str(s)
    }

    /// The shipped table (`None` while it has no bands).
    pub fn builtin() -> Option<&'static Calibration> {
        static TABLE: OnceLock<Option<Calibration>> = OnceLock::new();
        TABLE
            .get_or_init(|| {
                Calibration::from_json(include_str!("../../models/regan-calibration.json"))
                    .ok()
                    .filter(|c| !c.bands.is_empty())
            })
            .as_ref()
    }

    /// Whether a report made with `settings` and `engine` may use this table.
    pub fn applies_to(&self, settings: &Settings, engine: &EngineInfo) -> bool {
        let key = |s: &Settings| (s.limit, s.multipv, s.max_nodes, s.hash_mb, s.chunk_plies);
        key(settings) == key(&self.settings) && engine.build == self.engine.build
    }

    /// (s, c) at a rating: the bands' values at their mean ratings, log-linear in s and
    /// linear in c between them, the end bands' beyond.
    pub fn params_at(&self, elo: f64) -> Option<(f64, f64)> {
        let b = &self.bands;
        let first = b.first()?;
        let last = b.last()?;
        if elo <= first.mean_elo {
            return Some((first.s, first.c));
        }
        if elo >= last.mean_elo {
            return Some((last.s, last.c));
        }
        let i = b
            .windows(2)
            .position(|w| w[0].mean_elo <= elo && elo <= w[1].mean_elo)?;
        let (x, y) = (&b[i], &b[i + 1]);
        let f = (elo - x.mean_elo) / (y.mean_elo - x.mean_elo);
        // s spans orders of magnitude across the ratings: interpolate its logarithm.
        let s = libm::exp(libm::log(x.s) + f * (libm::log(y.s) - libm::log(x.s)));
        Some((s, x.c + f * (y.c - x.c)))
    }

    /// The IPR of a sample (`None` without usable moves or bands).
    pub fn ipr(&self, sample: &[Tested]) -> Option<Ipr> {
        if !sample.iter().any(|t| t.deltas.len() > 1) {
            return None;
        }
        // Between the end bands' mean ratings (on the 10-point grid), where the table
        // has parameters: beyond them it repeats the end band's, every rating there is
        // as likely, and the search used to settle on its last one (1640 under a lowest
        // band at 1645, 3400 over a highest at 2671) as if it were measured.
        let first = self.bands.first()?.mean_elo;
        let last = self.bands.last()?.mean_elo;
        let from = ((first / 10.0).ceil() * 10.0).clamp(IPR_RANGE.0, IPR_RANGE.1);
        let to = ((last / 10.0).floor() * 10.0).clamp(from, IPR_RANGE.1);
        let mut points = Vec::new();
        let mut r = from;
        while r <= to {
            let (s, c) = self.params_at(r)?;
            points.push((r, regan::log_likelihood(sample, s, c)));
            r += 10.0;
        }
        let best = points.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
        let inside = points.iter().filter(|p| p.1 >= best.1 - 1.92);
        let low = inside.clone().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let high = inside.map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let edge = if best.0 <= from && from < to {
            Some(Edge::Lowest)
        } else if best.0 >= to && from < to {
            Some(Edge::Highest)
        } else {
            None
        };
        Some(Ipr {
            elo: best.0,
            low,
            high,
            edge,
        })
    }

    /// The screening z-scores of a sample against the parameters of `rating`.
    pub fn screen(&self, sample: &[Tested], rating: f64) -> Option<ZScores> {
        let (s, c) = self.params_at(rating)?;
        let p = regan::project(sample, s, c)?;
        Some(ZScores {
            mm: p.mm.z,
            ev: p.ev.z,
            asd: p.asd.z,
            rating,
            s,
            c,
            moves: sample.iter().filter(|t| t.deltas.len() > 1).count(),
            projections: p,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Calibration {
        let band = |lo, hi, mean_elo, s, c| Band {
            lo,
            hi,
            mean_elo,
            sides: 10,
            moves: 400,
            s,
            c,
            s_range: (s, s),
            c_range: (c, c),
        };
        Calibration {
            engine: EngineInfo {
                name: "test".into(),
                build: "stockfish-19-lite-single".into(),
            },
            settings: Settings::default(),
            source: "hand-made".into(),
            bands: vec![
                band(1000, 1800, 1500.0, 0.20, 0.45),
                band(1800, 2400, 2100.0, 0.12, 0.50),
                band(2400, 3000, 2700.0, 0.06, 0.55),
            ],
        }
    }

    #[test]
    fn parameters_interpolate_between_bands_and_clamp_at_the_ends() {
        let t = table();
        assert_eq!(t.params_at(1000.0), Some((0.20, 0.45)));
        assert_eq!(t.params_at(3200.0), Some((0.06, 0.55)));
        // Half-way from 1500 to 2100: the geometric mean of s, the mean of c.
        let (s, c) = t.params_at(1800.0).unwrap();
        assert!((s - (0.20f64 * 0.12).sqrt()).abs() < 1e-12 && (c - 0.475).abs() < 1e-12);
        let json = t.to_json();
        assert_eq!(Calibration::from_json(&json).unwrap(), t);
    }

    #[test]
    fn the_ipr_finds_the_rating_of_simulated_play_and_screening_flags_engine_play() {
        let t = table();
        // Moves sampled at the parameters of 2100: the IPR interval covers 2100.
        let (s, c) = t.params_at(2100.0).unwrap();
        let sample = crate::stats::regan::tests_support::sample(s, c, 1500, 4);
        let ipr = t.ipr(&sample).unwrap();
        assert!(ipr.low <= 2100.0 && 2100.0 <= ipr.high, "{ipr:?}");
        assert!(ipr.high - ipr.low < 800.0, "{ipr:?}");
        let honest = t.screen(&sample, 2100.0).unwrap();
        assert!(honest.mm.unwrap().abs() < 3.0, "{honest:?}");
        // Always the top move, screened as a 1500 player: far above.
        let mut engine = sample.clone();
        for x in &mut engine {
            x.played = x.top;
        }
        let z = t.screen(&engine, 1500.0).unwrap();
        assert!(z.mm.unwrap() > 10.0 && z.asd.unwrap() < -5.0, "{z:?}");
        // At the table's highest band: that or above, said so (the ratings beyond it have
        // its parameters and no likelihood of their own).
        let top = t.ipr(&engine).unwrap();
        assert_eq!(
            (top.elo, top.edge),
            (2700.0, Some(Edge::Highest)),
            "{top:?}"
        );
        assert_eq!(ipr.edge, None, "{ipr:?}");
        // Play far weaker than the lowest band's (never the top move): that or below.
        let mut weak = sample.clone();
        for x in &mut weak {
            x.played = x.deltas.len() - 1;
        }
        let bottom = t.ipr(&weak).unwrap();
        assert_eq!(
            (bottom.elo, bottom.edge),
            (1500.0, Some(Edge::Lowest)),
            "{bottom:?}"
        );
        assert!(t.ipr(&[]).is_none());
    }

    #[test]
    fn verdicts_follow_the_stated_thresholds() {
        let t = table();
        let (s, c) = t.params_at(1500.0).unwrap();
        let honest = crate::stats::regan::tests_support::sample(s, c, 300, 8);
        let mut engine = honest.clone();
        for (i, x) in engine.iter_mut().enumerate() {
            x.played = x.top;
            x.at = (i / 40, i as u32);
        }
        assert!(
            verdict(Err(Unscreened::NoRating), &honest, 5)
                .0
                .starts_with("no verdict: no rating")
        );
        // Each missing piece is named, not lumped together.
        let no_cal = verdict(Err(Unscreened::NoCalibration), &honest, 5).0;
        assert!(no_cal.starts_with("no verdict: the rating calibration does not apply"));
        assert!(no_cal.contains("depth 14, 4 lines"), "{no_cal}");
        assert_ne!(no_cal, verdict(Err(Unscreened::NoMoves), &honest, 5).0);
        let few = t.screen(&honest[..50], 1500.0).unwrap();
        assert!(
            verdict(Ok(&few), &honest, 5)
                .0
                .contains("fewer than the 100")
        );
        let (text, ev) = verdict(
            t.screen(&honest, 1500.0)
                .as_ref()
                .ok_or(Unscreened::NoMoves),
            &honest,
            5,
        );
        assert!(text.starts_with("no statistical evidence"), "{text}");
        assert_eq!(ev.len(), 5);
        let (text, ev) = verdict(
            t.screen(&engine, 1500.0)
                .as_ref()
                .ok_or(Unscreened::NoMoves),
            &engine,
            5,
        );
        assert!(text.starts_with("look closer"), "{text}");
        // The ASD z as the report gives it, negative for smaller errors, and the rule so.
        let z = t.screen(&engine, 1500.0).unwrap();
        assert!(z.asd.unwrap() < -2.75, "{z:?}");
        assert!(
            text.contains(&format!("ASD {:.2} against", z.asd.unwrap()))
                && text.ends_with("(MM 2.75 or more and ASD -2.75 or less)"),
            "{text}"
        );
        assert!(ev.windows(2).all(|w| w[0].probability <= w[1].probability));
        assert!(
            ev[0].probability < 0.5,
            "the least likely top moves first: {ev:?}"
        );
    }

    #[test]
    fn the_shipped_table_is_for_the_default_engine_and_settings() {
        let t = Calibration::builtin().expect("models/regan-calibration.json has bands");
        let lite = EngineInfo {
            name: "Stockfish 19 Lite WASM".into(),
            build: "stockfish-19-lite-single".into(),
        };
        assert!(t.applies_to(&Settings::default(), &lite));
        assert!(t.bands.len() >= 3);
        assert!(t.bands.windows(2).all(|w| w[0].mean_elo < w[1].mean_elo));
        // Stronger players are more sensitive: s falls with the rating, so the IPR is
        // well defined.
        assert!(t.bands.windows(2).all(|w| w[0].s > w[1].s), "{:?}", t.bands);
        for b in &t.bands {
            assert!(b.moves >= 100, "{b:?}");
            assert!(b.s_range.0 <= b.s && b.s <= b.s_range.1);
        }
    }

    #[test]
    fn a_table_only_applies_to_its_engine_and_settings() {
        let t = table();
        let e = t.engine.clone();
        assert!(t.applies_to(&Settings::default(), &e));
        let other = Settings {
            multipv: 2,
            ..Settings::default()
        };
        assert!(!t.applies_to(&other, &e));
        let native = EngineInfo {
            name: "Stockfish 15.1".into(),
            build: "/usr/games/stockfish".into(),
        };
        assert!(!t.applies_to(&Settings::default(), &native));
    }
}
