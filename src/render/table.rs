//! The table `fairsight analyze` prints: each player's assessment in plain words, then
//! their statistics and screening verdict.

use crate::report::Report;

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or("-".to_owned(), |v| format!("{v:.prec$}"))
}

/// The assessment of each player in plain words: level, probability, reasons, hint.
fn assessment_lines(report: &Report) -> String {
    let mut out = String::new();
    let Some(model) = &report.assessment else {
        return out;
    };
    out.push_str(&format!("fair-play assessment ({model}):\n"));
    for p in &report.players {
        let Some(a) = &p.assessment else {
            out.push_str(&format!(
                "  {}: no assessment ({} analysed moves; at least {} are needed)\n",
                p.name,
                p.stats.analysed_plies,
                crate::model::assessment::MIN_MOVES
            ));
            continue;
        };
        out.push_str(&format!(
            "  {}: {} (probability of engine assistance {:.0}%; {} game(s), {} moves, {} model; \
             unclear from {:.0}%, look closer from {:.0}%)\n",
            p.name,
            a.level.name().to_uppercase(),
            a.probability * 100.0,
            p.games,
            a.moves,
            a.basis,
            a.thresholds.0 * 100.0,
            a.thresholds.1 * 100.0
        ));
        if let Some(w) = &a.resembles {
            out.push_str(&format!("      most like {w}\n"));
        }
        for r in &a.reasons {
            out.push_str(&format!(
                "      {} {}\n",
                if r.effect >= 0.0 { "+" } else { "-" },
                r.text
            ));
        }
        if let Some(h) = &a.hint {
            out.push_str(&format!("      ({h})\n"));
        }
    }
    out.push('\n');
    out
}

/// The per-player table printed to stdout: the assessment first, then the statistics.
pub fn player_table(report: &Report) -> String {
    let failed = report.games.iter().filter(|g| g.error.is_some()).count();
    player_table_of(report, failed)
}

/// [`player_table`] of a report whose games were not kept (a streamed run): `failed` of
/// them could not be imported.
pub fn player_table_of(report: &Report, failed: usize) -> String {
    let mut out = assessment_lines(report);
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
    out.push_str(&format!(
        "screening{}:\n",
        report
            .calibration
            .as_ref()
            .map_or(String::new(), |c| format!(" (calibration: {c})"))
    ));
    for p in &report.players {
        let ipr = match (p.ipr, p.ipr_range) {
            (Some(e), Some((lo, hi))) => format!(", IPR {e:.0} ({lo:.0}-{hi:.0})"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {}: {}{ipr}\n",
            p.name,
            p.verdict.as_deref().unwrap_or("-")
        ));
    }
    if failed > 0 {
        out.push_str(&format!(
            "{failed} game(s) could not be imported (see stderr)\n"
        ));
    }
    out
}
