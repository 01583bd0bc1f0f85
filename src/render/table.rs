//! The table `fairsight analyze` prints: each player's assessment in plain words, the
//! game sides at `look closer` each read on its own, then the players' statistics and
//! screening verdicts.

use crate::{
    game::Side,
    model::assessment::Level,
    report::{GameReport, Report},
};

/// Which model read it, in words: the core's basis `"rated, no clocks"` is the model for
/// "rated games (clocks not read)", which also reads a rated game that has clocks, without
/// them: saying "without clocks" there would read as if the clocks had been lost
/// (anything else as it is).
fn basis_words(basis: &str) -> String {
    let (rated, clocks) = basis.split_once(", ").unwrap_or((basis, ""));
    match clocks {
        "clocks" => format!("{rated} games with clocks"),
        "no clocks" => format!("{rated} games (clocks not read)"),
        _ => basis.to_owned(),
    }
}

/// The most game sides at `look closer` the table lists; the rest are counted.
const MOST_FLAGGED: usize = 50;

/// A game side the assessment puts above `no concern`, read on that game alone: the
/// table lists those at `look closer`, since a player of several games is read on all of
/// them together and one assisted game among many can stay under the player's threshold,
/// and says how many of each player's games read `unclear` or `look closer`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlaggedSide {
    /// The game's index in the input (0-based; the table says game `index + 1`).
    pub game: usize,
    /// The input line the game starts on.
    pub line: u32,
    /// The flagged side.
    pub side: Side,
    /// Its player, as the tags name them.
    pub player: String,
    /// The opponent, as the tags name them.
    pub opponent: String,
    /// The side's probability of engine assistance.
    pub probability: f64,
    /// Its level, read on its own: `unclear` or `look closer`.
    pub level: Level,
}

impl FlaggedSide {
    /// The sides of `game` above `no concern` (`unclear` or `look closer`), White first:
    /// the table lists those at `look closer` and counts each player's of both levels.
    pub fn of_game(game: &GameReport) -> Vec<FlaggedSide> {
        [Side::White, Side::Black]
            .into_iter()
            .filter_map(|side| {
                let a = game.sides.get(side).assessment.as_ref()?;
                (a.level > Level::NoConcern).then(|| FlaggedSide {
                    game: game.index,
                    line: game.line,
                    side,
                    player: game.sides.get(side).player.clone(),
                    opponent: game.sides.get(side.other()).player.clone(),
                    probability: a.probability,
                    level: a.level,
                })
            })
            .collect()
    }
}

/// The game sides at `look closer`, in input order, at most [`MOST_FLAGGED`] of them.
fn flagged_lines(report: &Report, flagged: &[FlaggedSide]) -> String {
    if report.assessment.is_none() {
        return String::new();
    }
    let flagged: Vec<&FlaggedSide> = flagged
        .iter()
        .filter(|f| f.level == Level::LookCloser)
        .collect();
    let mut out = format!(
        "game sides at look closer, each game read on its own ({}):\n",
        flagged.len()
    );
    for f in flagged.iter().take(MOST_FLAGGED) {
        out.push_str(&format!(
            "  game {} (line {}): {} ({}) against {}, {:.0}%\n",
            f.game + 1,
            f.line,
            f.player,
            match f.side {
                Side::White => "White",
                Side::Black => "Black",
            },
            f.opponent,
            f.probability * 100.0
        ));
    }
    if flagged.len() > MOST_FLAGGED {
        out.push_str(&format!(
            "  and {} more (each game side's assessment is in the JSON report)\n",
            flagged.len() - MOST_FLAGGED
        ));
    }
    out.push('\n');
    out
}

/// `n` of `word` ("1 game", "3 games").
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `text` quoted for a POSIX shell: in single quotes, each of its own closed and escaped.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or("-".to_owned(), |v| format!("{v:.prec$}"))
}

/// The assessment of each player in plain words: level, probability, reasons, hint; for
/// a player of several games, how many of their game sides read `look closer` alone.
fn assessment_lines(report: &Report, flagged: &[FlaggedSide]) -> String {
    let mut out = String::new();
    if report.assessment.is_none() {
        return out;
    }
    // Each player's game sides at look closer and unclear, each read on its own.
    let mut alone: std::collections::HashMap<String, (usize, usize)> = Default::default();
    for f in flagged {
        let n = alone.entry(f.player.to_lowercase()).or_default();
        if f.level == Level::LookCloser {
            n.0 += 1;
        } else {
            n.1 += 1;
        }
    }
    // The answer first: how many players at each level, then the players from the most
    // engine-like down (level, then probability; the input's order among equals), those
    // without an assessment last.
    let mut players: Vec<&crate::report::PlayerReport> = report.players.iter().collect();
    let level = |p: &crate::report::PlayerReport| p.assessment.as_ref().map(|a| a.level);
    let probability = |p: &crate::report::PlayerReport| {
        p.assessment
            .as_ref()
            .map_or(f64::NEG_INFINITY, |a| a.probability)
    };
    players.sort_by(|a, b| {
        level(b)
            .cmp(&level(a))
            .then_with(|| probability(b).total_cmp(&probability(a)))
    });
    let at = |level| {
        players
            .iter()
            .filter(|p| p.assessment.as_ref().is_some_and(|a| a.level == level))
            .count()
    };
    let unassessed = players.iter().filter(|p| p.assessment.is_none()).count();
    out.push_str(&format!(
        "fair-play assessment: {}: {} look closer, {} unclear, {} no concern{}; the most engine-like first (a screen, not a proof: a flag means look at the games)\n",
        plural(players.len(), "player"),
        at(Level::LookCloser),
        at(Level::Unclear),
        at(Level::NoConcern),
        if unassessed > 0 {
            format!(", {unassessed} without an assessment (too few moves)")
        } else {
            String::new()
        }
    ));
    for p in players {
        let Some(a) = &p.assessment else {
            out.push_str(&format!(
                "  {}: no assessment ({} analysed moves; at least {} are needed)\n",
                p.name,
                p.stats.analysed_plies,
                crate::model::assessment::MIN_MOVES
            ));
            continue;
        };
        let rating = p
            .rating
            .map_or("no rating".to_owned(), |r| format!("rated {r:.0}"));
        out.push_str(&format!(
            "  {}: {} (probability of engine assistance {}; {}, {rating}, {} moves, \
             the model for {}; {})\n",
            p.name,
            a.level.name().to_uppercase(),
            crate::model::assessment::probability_percent(a.probability, a.thresholds),
            plural(p.games, "game"),
            a.moves,
            basis_words(&a.basis),
            a.bars_text()
        ));
        if let Some(w) = &a.resembles {
            out.push_str(&format!("      if assisted, most like {w}\n"));
        }
        // A player of several games: how their games read one by one (as the page's card).
        let (lc, uc) = alone.get(&p.name.to_lowercase()).copied().unwrap_or((0, 0));
        if p.games > 1 {
            let n = p.games;
            let said = match (lc, uc) {
                (0, 0) => format!("none of {n} above no concern"),
                (0, uc) => format!("{uc} of {n} unclear"),
                (lc, 0) => format!("{lc} of {n} at look closer (below)"),
                (lc, uc) => format!("{lc} of {n} at look closer (below), {uc} unclear"),
            };
            out.push_str(&format!(
                "      game by game, each read on its own: {said}\n"
            ));
        }
        // Each reason in plain words, its numbers under it.
        for r in &a.reasons {
            let sign = if r.effect >= 0.0 { "+" } else { "-" };
            if r.plain.is_empty() {
                out.push_str(&format!("      {sign} {}\n", r.text));
            } else {
                out.push_str(&format!("      {sign} {}\n          {}\n", r.plain, r.text));
            }
        }
        if let Some(h) = &a.hint {
            out.push_str(&format!("      ({h})\n"));
        }
        if p.rating.is_none() {
            // The hint says a rating would sharpen it: how to give one.
            out.push_str(&format!(
                "      to read them against a rating: --rating {}\n",
                shell_quoted(&format!("{}=ELO", p.name))
            ));
        }
    }
    out.push('\n');
    out
}

/// The per-player table printed to stdout: the assessment first, then the game sides at
/// `look closer`, then the statistics.
pub fn player_table(report: &Report) -> String {
    let failed = report.games.iter().filter(|g| g.error.is_some()).count();
    let flagged: Vec<FlaggedSide> = report.games.iter().flat_map(FlaggedSide::of_game).collect();
    player_table_of(report, failed, &flagged)
}

/// [`player_table`] of a report whose games were not kept (a streamed run): `failed` of
/// them could not be imported, `flagged` are its game sides at `look closer`
/// ([`FlaggedSide::of_game`] of each game as it finished).
pub fn player_table_of(report: &Report, failed: usize, flagged: &[FlaggedSide]) -> String {
    let mut out = assessment_lines(report, flagged);
    out += &flagged_lines(report, flagged);
    out += &format!(
        "{:<28} {:>5} {:>6} {:>6} {:>6} {:>14} {:>4} {:>4} {:>4} {:>6} {:>16} {:>6}\n",
        "player",
        "games",
        "plies",
        "acpl",
        "acc%",
        "match% (95%)",
        "inac",
        "mist",
        "blun",
        "engine",
        "competence (90%)",
        "timeCV"
    );
    for p in &report.players {
        let s = &p.stats;
        let m = match (s.match_rate, s.match_rate_ci95) {
            (Some(m), Some((lo, hi))) => {
                format!("{:.0} ({:.0}-{:.0})", m * 100.0, lo * 100.0, hi * 100.0)
            }
            _ => "-".to_owned(),
        };
        let name: String = p.name.chars().take(28).collect();
        let competence = p.competence.as_ref().map_or("-".to_owned(), |c| {
            format!("{:.1} ({:.1}-{:.1})", c.mean, c.low, c.high)
        });
        out.push_str(&format!(
            "{:<28} {:>5} {:>6} {:>6} {:>6} {:>14} {:>4} {:>4} {:>4} {:>6} {:>16} {:>6}\n",
            name,
            p.games,
            s.analysed_plies,
            opt(s.acpl, 1),
            opt(s.accuracy, 1),
            m,
            s.inaccuracies,
            s.mistakes,
            s.blunders,
            opt(s.engine_score, 2),
            competence,
            opt(p.time.as_ref().and_then(|t| t.cv), 2)
        ));
    }
    out += &screening_lines(report);
    if failed > 0 {
        out.push_str(&format!(
            "{failed} game(s) could not be imported (see stderr)\n"
        ));
    }
    out
}

/// Regan's screening, player by player: a verdict with its IPR, players with too few
/// moves for one under one line that says so, and a reason shared by several players
/// (no rating, no calibration) said once above their names.
fn screening_lines(report: &Report) -> String {
    use crate::stats::calibration::{Edge, MIN_VERDICT_MOVES};
    let mut out = format!(
        "screening{}:\n",
        report
            .calibration
            .as_ref()
            .map_or(String::new(), |c| format!(" (calibration: {c})"))
    );
    // At the table's end band the IPR is that rating or beyond (the table has nothing
    // past it).
    let ipr = |p: &crate::report::PlayerReport| match (p.ipr, p.ipr_range, p.ipr_edge) {
        (Some(e), Some((_, hi)), Some(Edge::Lowest)) => {
            format!("IPR {e:.0} or below (95%: up to {hi:.0})")
        }
        (Some(e), Some((lo, _)), Some(Edge::Highest)) => {
            format!("IPR {e:.0} or above (95%: from {lo:.0})")
        }
        (Some(e), Some((lo, hi)), _) => format!("IPR {e:.0} ({lo:.0}-{hi:.0})"),
        _ => String::new(),
    };
    let few_suffix = format!(" analysed moves, fewer than the {MIN_VERDICT_MOVES} required");
    let few_heading =
        format!("no verdict (Regan's rule needs {MIN_VERDICT_MOVES} analysed moves or more):");
    let joined = |parts: &[&str]| -> String {
        parts
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Players without a verdict by reason (heading, then (name, details)), in the order
    // of each reason's first player.
    type Group = (String, Vec<(String, String)>);
    let mut groups: Vec<Group> = Vec::new();
    let mut verdicts = String::new();
    for p in &report.players {
        let verdict = p.verdict.as_deref().unwrap_or("-");
        let ipr = ipr(p);
        let few = verdict
            .strip_prefix("no verdict: ")
            .and_then(|v| v.strip_suffix(few_suffix.as_str()));
        let (heading, detail) = match few {
            Some(moves) => (
                few_heading.clone(),
                joined(&[&format!("{moves} analysed moves"), &ipr]),
            ),
            None if verdict.starts_with("no verdict") => (verdict.to_owned(), ipr),
            None => {
                verdicts.push_str(&format!("  {}: {}\n", p.name, joined(&[verdict, &ipr])));
                continue;
            }
        };
        match groups.iter_mut().find(|(h, _)| *h == heading) {
            Some((_, players)) => players.push((p.name.clone(), detail)),
            None => groups.push((heading, vec![(p.name.clone(), detail)])),
        }
    }
    // Verdicts first (look closer, no statistical evidence), then the players without one.
    out.push_str(&verdicts);
    for (heading, players) in &groups {
        match players.as_slice() {
            // One player with a reason of its own: one line, as a verdict.
            [(name, detail)] if *heading != few_heading => {
                out.push_str(&format!("  {name}: {}\n", joined(&[heading, detail])));
            }
            _ => {
                out.push_str(&format!(
                    "  {}\n",
                    heading.trim_end_matches(':').to_owned() + ":"
                ));
                if players.iter().all(|(_, d)| d.is_empty()) {
                    let names: Vec<&str> = players.iter().map(|(n, _)| n.as_str()).collect();
                    out.push_str(&format!("    {}\n", names.join(", ")));
                    continue;
                }
                for (name, detail) in players {
                    let detail = if detail.is_empty() {
                        String::new()
                    } else {
                        format!(": {detail}")
                    };
                    out.push_str(&format!("    {name}{detail}\n"));
                }
            }
        }
    }
    out
}
