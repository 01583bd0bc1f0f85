//! The quick screen (`analyze --mode quick`) and the full test of the players it flags
//! (`--full-for`): Regan's screening then full test, lichess's cheaper node budget for
//! automatic screening.
//!
//! The quick pass searches a small fixed number of nodes with two lines (about a tenth
//! of the default depth-14, four-line search's cost) and ranks players by the quick
//! assessment, a model fitted on the same corpus games analysed at exactly these
//! settings (`corpus quick`, `assess fit --corpus corpus/quick`): the shipped full model
//! does not apply there, its signals having been measured at depth 14 with four lines.
//! `--full-for` then analyses at the defaults only the games of the players it names.

use std::collections::BTreeSet;

use fairsight::{AssessmentModel, Limit, Report, Settings};

/// Nodes a quick search may use.
pub(crate) const QUICK_NODES: u64 = 25_000;
/// Lines (MultiPV) of a quick search.
pub(crate) const QUICK_LINES: u32 = 2;

/// The quick assessment (`models/quick-assessment.json`, fitted on `corpus/quick`), as
/// built in: deflated by `build.rs`, inflated by [`quick_assessment`].
const QUICK_ASSESSMENT_DEFLATED: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/quick-assessment.json.deflate"));

/// The quick screen's settings with this node budget (the corpus's book, the rest as the
/// defaults).
pub(crate) fn quick_settings(nodes: u64) -> Settings {
    Settings {
        limit: Limit::Nodes(nodes),
        multipv: QUICK_LINES,
        book: "builtin".to_owned(),
        ..Settings::default()
    }
}

/// The shipped quick assessment.
pub(crate) fn quick_assessment() -> Result<AssessmentModel, String> {
    let bytes = miniz_oxide::inflate::decompress_to_vec(QUICK_ASSESSMENT_DEFLATED)
        .map_err(|e| format!("the shipped quick assessment does not inflate: {e:?}"))?;
    let json = std::str::from_utf8(&bytes)
        .map_err(|e| format!("the shipped quick assessment is not UTF-8: {e}"))?;
    AssessmentModel::from_json(json).map_err(|e| format!("the shipped quick assessment: {e}"))
}

/// Which players the full test is for (`--full-for`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FullFor {
    /// The K players ranked highest by the quick assessment.
    Top(usize),
    /// Every player whose quick probability is at least this.
    AtLeast(f64),
}

/// `K` (the top K players) or `p>=P` (0 < P ≤ 1).
pub(crate) fn parse_full_for(spec: &str) -> Result<FullFor, String> {
    let bad =
        || format!("--full-for {spec}: expected K (the top K players, K ≥ 1) or p>=P (0 < P ≤ 1)");
    let spec_t = spec.trim();
    if let Some(p) = spec_t.strip_prefix("p>=") {
        let p: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(p > 0.0 && p <= 1.0) {
            return Err(bad());
        }
        return Ok(FullFor::AtLeast(p));
    }
    match spec_t.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(FullFor::Top(k)),
        _ => Err(bad()),
    }
}

/// A player of the quick report, ranked.
pub(crate) struct Ranked {
    pub(crate) name: String,
    pub(crate) games: usize,
    /// The quick assessment's probability (`None`: no assessment, e.g. no analysed move).
    pub(crate) probability: Option<f64>,
    pub(crate) level: Option<&'static str>,
    /// Chosen for the full test.
    pub(crate) full: bool,
}

/// The quick report's players, highest quick probability first (players without an
/// assessment last, then by name), each marked if `rule` chooses them.
pub(crate) fn rank(report: &Report, rule: Option<FullFor>) -> Vec<Ranked> {
    let mut v: Vec<Ranked> = report
        .players
        .iter()
        .map(|p| Ranked {
            name: p.name.clone(),
            games: p.games,
            probability: p.assessment.as_ref().map(|a| a.probability),
            level: p.assessment.as_ref().map(|a| a.level.name()),
            full: false,
        })
        .collect();
    v.sort_by(|a, b| {
        let key = |r: &Ranked| r.probability.unwrap_or(-1.0);
        key(b)
            .total_cmp(&key(a))
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
    });
    for (i, r) in v.iter_mut().enumerate() {
        r.full = match (rule, r.probability) {
            (Some(FullFor::Top(k)), Some(_)) => i < k,
            (Some(FullFor::AtLeast(p)), Some(q)) => q >= p,
            _ => false,
        };
    }
    v
}

/// The numbers (in the input) of the games in which a chosen player played.
pub(crate) fn games_of(report: &Report, ranked: &[Ranked]) -> BTreeSet<usize> {
    let chosen: BTreeSet<String> = ranked
        .iter()
        .filter(|r| r.full)
        .map(|r| r.name.to_lowercase())
        .collect();
    report
        .games
        .iter()
        .filter(|g| g.error.is_none())
        .filter(|g| {
            [fairsight::Side::White, fairsight::Side::Black]
                .iter()
                .any(|s| chosen.contains(&g.sides.get(*s).player.to_lowercase()))
        })
        .map(|g| g.index)
        .collect()
}

/// The quick screen as a table: every player by quick probability, marked.
pub(crate) fn table(ranked: &[Ranked], settings: &Settings) -> String {
    let limit = match settings.limit {
        Limit::Nodes(n) => format!("{n} nodes"),
        Limit::Depth(d) => format!("depth {d}"),
    };
    let mut out = format!(
        "quick screen ({limit}, {} lines; the quick assessment): every player, highest first\n",
        settings.multipv
    );
    out += &format!(
        "{:<28} {:>5} {:>7} {:<18} {}\n",
        "player", "games", "p quick", "level (quick)", "full test"
    );
    for r in ranked {
        let name: String = r.name.chars().take(28).collect();
        out += &format!(
            "{:<28} {:>5} {:>7} {:<18} {}\n",
            name,
            r.games,
            r.probability.map_or("-".into(), |p| format!("{p:.3}")),
            r.level.map_or("-".to_owned(), |l| format!("{l} (quick)")),
            if r.full { "yes" } else { "no: quick verdict" }
        );
    }
    out
}

/// The quick screen as JSON (`quickScreen` in the report of `--full-for`).
pub(crate) fn json(ranked: &[Ranked], settings: &Settings, rule: &str, model: &str) -> String {
    let players: Vec<serde_json::Value> = ranked
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "games": r.games,
                "probability": r.probability,
                "level": r.level,
                "fullTest": r.full,
            })
        })
        .collect();
    serde_json::json!({
        "settings": settings,
        "assessment": model,
        "fullFor": rule,
        "players": players,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_quick_assessment_is_the_models_file_and_a_fifth_of_its_size() {
        let file = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/models/quick-assessment.json"
        ))
        .expect("the shipped quick assessment");
        let built_in =
            miniz_oxide::inflate::decompress_to_vec(QUICK_ASSESSMENT_DEFLATED).expect("inflates");
        assert_eq!(built_in, file.as_bytes());
        assert!(
            QUICK_ASSESSMENT_DEFLATED.len() * 4 < file.len(),
            "{} bytes built in for {}",
            QUICK_ASSESSMENT_DEFLATED.len(),
            file.len()
        );
        assert_eq!(
            quick_assessment(),
            AssessmentModel::from_json(&file).map_err(|e| e.to_string())
        );
    }

    #[test]
    fn full_for_takes_a_count_or_a_probability_threshold() {
        assert_eq!(parse_full_for("3"), Ok(FullFor::Top(3)));
        assert_eq!(parse_full_for(" 12 "), Ok(FullFor::Top(12)));
        assert_eq!(parse_full_for("p>=0.5"), Ok(FullFor::AtLeast(0.5)));
        assert_eq!(parse_full_for("p>=1"), Ok(FullFor::AtLeast(1.0)));
        for bad in [
            "0", "-1", "p>=0", "p>=1.5", "p>=x", "p>0.5", "top", "", "2.5",
        ] {
            let e = parse_full_for(bad).unwrap_err();
            assert!(e.contains("--full-for"), "{bad}: {e}");
        }
    }

    fn report_of(players: &[(&str, Option<f64>)], games: &[(&str, &str)]) -> Report {
        let mut pgn = String::new();
        for (w, b) in games {
            pgn += &format!("[White \"{w}\"]\n[Black \"{b}\"]\n\n1. e4 e5 *\n\n");
        }
        let mut report = fairsight::Report::from_json(
            &fairsight::Analysis::new(
                fairsight::pgn::import(&pgn),
                Settings::default(),
                &fairsight::NoBook,
            )
            .report(fairsight::EngineInfo::default())
            .to_json(),
        )
        .unwrap();
        for (i, g) in report.games.iter_mut().enumerate() {
            g.index = i;
        }
        let template = report.players[0].clone();
        report.players = players
            .iter()
            .map(|(name, p)| {
                let mut r = template.clone();
                r.name = name.to_string();
                r.assessment = p.map(|p| fairsight::Assessment {
                    probability: p,
                    level: fairsight::fit::Level::NoConcern,
                    reasons: Vec::new(),
                    basis: String::new(),
                    thresholds: (0.5, 0.9),
                    moves: 10,
                    hint: None,
                    resembles: None,
                    bars: String::new(),
                });
                r
            })
            .collect();
        report
    }

    #[test]
    fn the_full_test_takes_the_chosen_players_games() {
        let report = report_of(
            &[
                ("Ann", Some(0.2)),
                ("Bob", Some(0.9)),
                ("Cid", None),
                ("Dan", Some(0.6)),
            ],
            &[
                ("Ann", "Cid"),
                ("Bob", "Ann"),
                ("Cid", "Dan"),
                ("Ann", "cid"),
            ],
        );
        let top1 = rank(&report, Some(FullFor::Top(1)));
        let order: Vec<&str> = top1.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(order, ["Bob", "Dan", "Ann", "Cid"]);
        assert_eq!(
            top1.iter()
                .filter(|r| r.full)
                .map(|r| &r.name)
                .collect::<Vec<_>>(),
            ["Bob"]
        );
        assert_eq!(games_of(&report, &top1), BTreeSet::from([1]));
        let top2 = rank(&report, Some(FullFor::Top(2)));
        assert_eq!(games_of(&report, &top2), BTreeSet::from([1, 2]));
        // A threshold; a player without an assessment is never chosen, even by a large K.
        let p = rank(&report, Some(FullFor::AtLeast(0.5)));
        assert_eq!(games_of(&report, &p), BTreeSet::from([1, 2]));
        let all = rank(&report, Some(FullFor::Top(10)));
        assert!(!all.iter().find(|r| r.name == "Cid").unwrap().full);
        assert_eq!(games_of(&report, &all), BTreeSet::from([0, 1, 2, 3]));
        // No rule: nobody.
        assert!(rank(&report, None).iter().all(|r| !r.full));
        let t = table(&top1, &quick_settings(QUICK_NODES));
        assert!(t.contains("25000 nodes, 2 lines"), "{t}");
        assert!(t.contains("no: quick verdict"), "{t}");
    }
}
