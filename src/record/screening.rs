//! The screening data of a tested move (Regan's protocol, seeds 000 and 003): the
//! single-line search's choice at each depth, the match type and the deltas that
//! [`crate::render::matchlog`] writes as the log and results file.

use serde::{Deserialize, Serialize};

use crate::{
    chess,
    engine::{PositionAnalysis, Search},
    game::Side,
    record::PlyReport,
    uci::Score,
};

/// Regan's match types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MatchType {
    /// The played move was the engine's single-line choice at every depth.
    Full,
    /// The played move was the final choice, but not at every depth.
    Main,
    /// The played move was the choice at some depth, not the final one.
    Part,
    /// The played move was never the engine's choice.
    #[default]
    Non,
}

impl MatchType {
    /// The word in the log.
    pub fn label(self) -> &'static str {
        match self {
            MatchType::Full => "FULL",
            MatchType::Main => "MAIN",
            MatchType::Part => "PART",
            MatchType::Non => "NON",
        }
    }

    /// Whether the log line carries `delta` (else `delta2`).
    pub fn is_match(self) -> bool {
        matches!(self, MatchType::Full | MatchType::Main)
    }
}

/// The value written when every alternative to the played move gets mated.
pub const ALL_ALTERNATIVES_MATE: f64 = 9.99;

/// The screening data of one tested move.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreeningMove {
    /// The SLM's choice at each depth `1..=` the deepest reached, UCI.
    pub slm_best: Vec<String>,
    /// The SLM's final value, White's point of view.
    pub slm_eval: Option<Score>,
    /// `dmin`.
    pub min_depth: u32,
    /// One character per depth `dmin..=d`: `1` match, `0` other move, `-` not reached.
    pub bits: String,
    /// The match type.
    pub match_type: MatchType,
    /// `delta` (FULL, MAIN) or `delta2` (PART, NON), pawns, mover's side; `null` (NaN)
    /// for a repetition or when the MLM gave no value to compare.
    pub delta: Option<f64>,
}

/// The final value of `mv` in a search's lines, if it is among them.
fn value_of(search: &Search, mv: &str) -> Option<Score> {
    search.final_line_of(mv).map(|l| l.score)
}

/// The screening data of a move from its analysis (`None` without an SLM search).
///
/// `played` is the move (UCI), `side` the mover, `repetition` whether the position
/// repeats an earlier one (delta NaN), `min_depth` is `dmin`, `slm_depth` is `d`.
pub fn screening_move(
    played: &str,
    side: Side,
    repetition: bool,
    analysis: &PositionAnalysis,
    min_depth: u32,
    slm_depth: u32,
) -> Option<ScreeningMove> {
    let slm = analysis.slm.as_ref()?;
    let reached = slm.max_depth();
    let slm_best: Vec<String> = (1..=reached)
        .map(|d| {
            slm.at_depth(d)
                .find(|l| l.multipv == 1)
                .and_then(|l| l.first_move())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    let choice = slm
        .bestmove
        .clone()
        .or_else(|| slm_best.last().cloned())
        .unwrap_or_default();
    let bits: String = (min_depth..=slm_depth.max(min_depth))
        .map(|d| match slm_best.get(d as usize - 1) {
            None => '-',
            Some(m) if m.is_empty() => '-',
            Some(m) if m == played => '1',
            Some(_) => '0',
        })
        .collect();
    let counted: Vec<char> = bits.chars().filter(|&c| c != '-').collect();
    let final_match = choice == played;
    let match_type = if final_match {
        if counted.iter().all(|&c| c == '1') {
            MatchType::Full
        } else {
            MatchType::Main
        }
    } else if counted.contains(&'1') {
        MatchType::Part
    } else {
        MatchType::Non
    };

    let mlm = &analysis.search;
    let played_value = value_of(mlm, played).or_else(|| {
        analysis
            .played_search
            .as_ref()
            .and_then(|s| s.final_lines().first().map(|l| l.score))
    });
    let delta = if repetition {
        None
    } else if match_type.is_match() {
        let alternatives: Vec<Score> = mlm
            .final_lines()
            .into_iter()
            .filter(|l| l.first_move() != Some(played))
            .map(|l| l.score.with_sign(side.sign()))
            .collect();
        let best_alt = alternatives.iter().max_by_key(|s| s.order_key());
        match (played_value, best_alt) {
            (Some(_), Some(_))
                if alternatives
                    .iter()
                    .all(|s| matches!(s, Score::Mate(m) if *m <= 0)) =>
            {
                Some(ALL_ALTERNATIVES_MATE)
            }
            // `alt` is already from the mover's side.
            (Some(p), Some(&alt)) => {
                Some(chess::mover_pawns(p, side) - chess::mover_pawns(alt, Side::White))
            }
            _ => None,
        }
    } else {
        let engine_value =
            value_of(mlm, &choice).or_else(|| mlm.final_lines().first().map(|l| l.score));
        played_value
            .zip(engine_value)
            .map(|(p, e)| chess::mover_pawns(p, side) - chess::mover_pawns(e, side))
    }
    .map(|d| d.clamp(-ALL_ALTERNATIVES_MATE, ALL_ALTERNATIVES_MATE));
    Some(ScreeningMove {
        slm_best,
        slm_eval: slm.final_lines().first().map(|l| l.score),
        min_depth,
        bits,
        match_type,
        delta,
    })
}

/// Totals of the screening data over a player's tested moves.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchTotals {
    /// Tested moves counted (analysed, not excluded).
    pub moves: usize,
    /// FULL matches.
    pub full: usize,
    /// MAIN matches.
    pub main: usize,
    /// PART matches.
    pub part: usize,
    /// Non-matches.
    pub non: usize,
    /// `[depth, matches]` for each depth `dmin..=d`: moves whose SLM choice at that
    /// depth was the played move.
    pub by_depth: Vec<(u32, usize)>,
}

impl MatchTotals {
    /// Adds the analysed (not excluded) moves among these plies, as [`totals`] counts
    /// them: a player's totals are built game by game.
    pub fn add_plies<'a>(&mut self, plies: impl IntoIterator<Item = &'a PlyReport>) {
        for p in plies {
            if let (None, Some(m)) = (p.excluded, &p.screening) {
                self.add(m);
            }
        }
    }

    /// Adds one move.
    pub fn add(&mut self, m: &ScreeningMove) {
        self.moves += 1;
        match m.match_type {
            MatchType::Full => self.full += 1,
            MatchType::Main => self.main += 1,
            MatchType::Part => self.part += 1,
            MatchType::Non => self.non += 1,
        }
        for (k, c) in m.bits.chars().enumerate() {
            let depth = m.min_depth + k as u32;
            let i = match self.by_depth.iter().position(|(d, _)| *d == depth) {
                Some(i) => i,
                None => {
                    self.by_depth.push((depth, 0));
                    self.by_depth.sort_unstable();
                    self.by_depth
                        .iter()
                        .position(|(d, _)| *d == depth)
                        .unwrap_or_default()
                }
            };
            if c == '1' {
                self.by_depth[i].1 += 1;
            }
        }
    }
}

/// The totals over a side's analysed (not excluded) moves of some games, or `None` when
/// none has screening data.
pub fn totals<'a>(plies: impl IntoIterator<Item = &'a PlyReport>) -> Option<MatchTotals> {
    let mut t = MatchTotals::default();
    t.add_plies(plies);
    (t.moves > 0).then_some(t)
}
