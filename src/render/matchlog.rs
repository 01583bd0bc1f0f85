//! Regan's screening protocol ("zig-zag", seeds 000 and 003): the match data of each
//! tested move, the log in Regan's format and the results file.
//!
//! In screening mode every tested position gets a single-line search (SLM) to depth `d`
//! and then, with the hash kept, a multi-line search (MLM) of `L` lines to depth `dL`
//! (see [`crate::plan::Screening`]). The SLM says whether the played move "matches" the
//! engine at each depth from `dmin` to `d`; the MLM gives the values of the alternatives.
//!
//! Per tested move, the log has one line
//!
//! ```text
//! {Name} bbbbbb {TYPE} MATCH (#.move), delta = v      (FULL and MAIN)
//! {Name} bbbbbb {TYPE} MATCH (#.move), delta2 = v     (PART and NON)
//! ```
//!
//! - `bbbbbb`: one character per depth `dmin..=d`: `1` when the SLM's choice at that
//!   depth is the played move, `0` when it is another, `-` when the search stopped
//!   before that depth (node cap).
//! - `TYPE`: `FULL` when every reached depth matches; `MAIN` when the final (deepest)
//!   choice matches but not every depth; `PART` when some depth matches but not the
//!   final one; `NON` when none does. (The seed's definitions were cut off in our copy:
//!   this is the reading its steps 7-9 and 11 imply.)
//! - `delta` (FULL, MAIN) = MLM value of the played move − MLM value of the best
//!   alternative (may be negative: Regan's "leader effect"); `9.99` when every
//!   alternative gets mated.
//! - `delta2` (PART, NON) = MLM value of the played move − MLM value of the engine's
//!   choice (the SLM's final move; may be positive).
//! - Values are pawns from the mover's side, two decimals, no `+` sign, mates as ±10
//!   and differences clamped to ±9.99; `NaN` for a repetition. No `=` occurs before
//!   the value (promotions are written `e8Q`).
//!
//! ```
//! use fairsight::{MatchType, ScreeningMove, Side, render::matchlog::log_line};
//! let m = ScreeningMove {
//!     bits: "111011".into(),
//!     match_type: MatchType::Main,
//!     delta: Some(0.35),
//!     ..ScreeningMove::default()
//! };
//! assert_eq!(
//!     log_line("Carlsen", 23, Side::White, "Nf5", &m),
//!     "Carlsen 111011 MAIN MATCH (23.Nf5), delta = 0.35"
//! );
//! ```

use std::fmt::Write as _;

use crate::{
    game::Side,
    plan::Exclusion,
    record::{
        PlyReport,
        screening::{MatchTotals, ScreeningMove},
    },
    render::SideFilter,
    report::{GameReport, Report},
    uci::Score,
};

/// The player's tag in the log: the name up to its first comma (the surname in
/// `Surname, Given`), spaces as `_`, no `=`.
pub fn log_name(name: &str) -> String {
    let short = name.split(',').next().unwrap_or_default().trim();
    let out: String = short
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("_")
        .replace('=', "");
    if out.is_empty() { "?".to_owned() } else { out }
}

/// One `MATCH` line of the log.
pub fn log_line(name: &str, move_number: u32, side: Side, san: &str, m: &ScreeningMove) -> String {
    let dots = match side {
        Side::White => ".",
        Side::Black => "...",
    };
    let key = if m.match_type.is_match() {
        "delta"
    } else {
        "delta2"
    };
    let value = m.delta.map_or("NaN".to_owned(), |d| {
        let s = format!("{d:.2}");
        if s == "-0.00" { "0.00".to_owned() } else { s }
    });
    format!(
        "{name} {} {} MATCH ({move_number}{dots}{}), {key} = {value}",
        m.bits,
        m.match_type.label(),
        san.replace('=', "")
    )
}

fn selected(game: &GameReport, filter: &SideFilter) -> [bool; 2] {
    match filter {
        SideFilter::White => [true, false],
        SideFilter::Black => [false, true],
        SideFilter::Both => [true, true],
        SideFilter::Name(n) => {
            ["White", "Black"].map(|t| game.tag(t).is_some_and(|v| v.contains(n.as_str())))
        }
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

fn pawns_text(score: Score, side: Side) -> String {
    match score.with_sign(side.sign()) {
        Score::Mate(m) => format!("#{m}"),
        Score::Cp(cp) => format!("{:.2}", f64::from(cp) / 100.0),
    }
}

/// The tested plies of a game for a filter: every searched ply with screening data.
fn tested<'a>(
    game: &'a GameReport,
    filter: &SideFilter,
) -> impl Iterator<Item = (&'a PlyReport, &'a ScreeningMove)> {
    let sel = selected(game, filter);
    game.plies
        .iter()
        .filter(move |p| sel[side_index(p.side)])
        .filter_map(|p| p.screening.as_ref().map(|m| (p, m)))
}

fn header(report: &Report, out: &mut String) {
    let s = &report.settings;
    let (d, dmin) = s.screening.map_or((0, 0), |x| (x.slm_depth, x.min_depth));
    let dl = match s.limit {
        crate::uci::Limit::Depth(d) => format!("depth {d}"),
        crate::uci::Limit::Nodes(n) => format!("{n} nodes"),
    };
    let _ = writeln!(
        out,
        "# fairsight screening log (Regan's format, seed 000; protocol: zig-zag, seed 003)"
    );
    let _ = writeln!(
        out,
        "# engine: {} ({}), hash {} MB, 1 thread, node cap {}",
        report.engine.name,
        report.engine.build,
        s.hash_mb,
        if s.max_nodes == 0 {
            "none".to_owned()
        } else {
            s.max_nodes.to_string()
        }
    );
    let _ = writeln!(
        out,
        "# per tested move, forward through the game with the hash kept (ucinewgame every {} plies, warm-up on the ply before):",
        s.chunk_plies
    );
    let _ = writeln!(
        out,
        "#   SLM: 1 line to depth d = {d}, choice recorded from dmin = {dmin}; then MLM: L = {} lines to {dl}",
        s.multipv
    );
    let _ = writeln!(
        out,
        "# match types: FULL (every depth), MAIN (final depth), PART (some depth), NON; delta/delta2 in pawns, mover's side"
    );
    let _ = writeln!(out, "# opening book: {}", s.book);
}

/// The log in Regan's format: a header with the engine and settings, then per game the
/// tested moves of the selected sides, each with its engine data (the SLM's choice per
/// depth, the MLM lines) and its `MATCH` line.
pub fn log(report: &Report, filter: &SideFilter) -> String {
    let mut out = String::new();
    header(report, &mut out);
    for game in report.games.iter().filter(|g| g.error.is_none()) {
        let mut moves = tested(game, filter).peekable();
        if moves.peek().is_none() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n# game {}: {} - {}, {}, {}",
            game.index + 1,
            game.sides.white.player,
            game.sides.black.player,
            game.tag("Event").unwrap_or("?"),
            game.tag("Date").unwrap_or("?")
        );
        for (p, m) in moves {
            let side = p.side;
            let dots = if side == Side::White { "." } else { "..." };
            let name = log_name(&game.sides.get(side).player);
            let slm: Vec<String> = m
                .slm_best
                .iter()
                .enumerate()
                .skip(m.min_depth.saturating_sub(1) as usize)
                .map(|(i, mv)| format!("{}:{}", i + 1, san_of(p, mv, game.variant)))
                .collect();
            let _ = writeln!(
                out,
                "\n{}{dots}{}  SLM {}{}",
                p.move_number,
                p.san,
                slm.join(" "),
                m.slm_eval
                    .map_or(String::new(), |e| format!(" ({})", pawns_text(e, side)))
            );
            let mlm: Vec<String> = p
                .lines
                .iter()
                .map(|l| format!("{} {}", l.san, pawns_text(l.score, side)))
                .collect();
            if let Some(depth) = p.lines.first().map(|l| l.depth) {
                let _ = writeln!(out, "  MLM {depth}/{depth}: {}", mlm.join(", "));
            }
            if let (None, Some(v)) = (p.features.rank, p.features.played_eval) {
                let _ = writeln!(out, "  played alone: {} {}", p.san, pawns_text(v, side));
            }
            let mut line = log_line(&name, p.move_number, side, &p.san, m);
            match p.excluded {
                Some(Exclusion::Repetition) => line.push_str(" [repetition]"),
                Some(e) => {
                    let _ = write!(line, " [{}: not in the totals]", e.name());
                }
                None => {}
            }
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The SAN of a move from the ply's position, via its lines when possible.
fn san_of(p: &PlyReport, uci: &str, variant: crate::game::Variant) -> String {
    if uci == p.uci {
        return p.san.clone();
    }
    p.lines
        .iter()
        .find(|l| l.uci == uci)
        .map(|l| l.san.clone())
        .or_else(|| crate::chess::uci_line_to_san(&p.fen, variant, &[uci.to_owned()]).pop())
        .unwrap_or_else(|| uci.to_owned())
}

/// The results file: per tested player, the totals of moves, of each match type and of
/// matches at each depth; then every `MATCH` line sorted by significance (the value
/// after `=`, highest first, `NaN` last).
pub fn results(report: &Report, filter: &SideFilter) -> String {
    let mut out = String::new();
    header(report, &mut out);
    // Per player, in order of first appearance.
    let mut players: Vec<(String, MatchTotals, usize)> = Vec::new();
    let mut lines: Vec<(Option<f64>, String)> = Vec::new();
    for game in report.games.iter().filter(|g| g.error.is_none()) {
        for (p, m) in tested(game, filter) {
            let player = &game.sides.get(p.side).player;
            let i = match players
                .iter()
                .position(|(n, ..)| n.to_lowercase() == player.to_lowercase())
            {
                Some(i) => i,
                None => {
                    players.push((player.clone(), MatchTotals::default(), 0));
                    players.len() - 1
                }
            };
            if p.excluded.is_none() {
                players[i].1.add(m);
            } else {
                players[i].2 += 1;
            }
            let name = log_name(player);
            let line = log_line(&name, p.move_number, p.side, &p.san, m);
            let delta = if p.excluded == Some(Exclusion::Repetition) {
                None
            } else {
                m.delta
            };
            lines.push((delta, format!("{line}  [game {}]", game.index + 1)));
        }
    }
    for (name, t, excluded) in &players {
        let _ = writeln!(out, "\n{name}");
        let _ = writeln!(
            out,
            "  moves {}  FULL {}  MAIN {}  PART {}  NON {}  (matches {} = {:.1}%; {excluded} more tested but excluded: decided or repetition)",
            t.moves,
            t.full,
            t.main,
            t.part,
            t.non,
            t.full + t.main,
            100.0 * (t.full + t.main) as f64 / t.moves.max(1) as f64
        );
        let depths: Vec<String> = t.by_depth.iter().map(|(d, k)| format!("{d}:{k}")).collect();
        let _ = writeln!(out, "  matches at depth  {}", depths.join("  "));
    }
    lines.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let _ = writeln!(
        out,
        "\n# MATCH lines by significance (value after '=', highest first)"
    );
    for (_, l) in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::PvLine,
        uci::{Bound, Score},
    };
    use crate::{
        engine::{PositionAnalysis, Search},
        record::screening::{ALL_ALTERNATIVES_MATE, MatchType, screening_move},
    };

    fn line(depth: u32, multipv: u32, score: Score, mv: &str) -> PvLine {
        PvLine {
            depth,
            seldepth: None,
            multipv,
            score,
            bound: Bound::Exact,
            nodes: None,
            pv: vec![mv.to_owned()],
        }
    }

    fn search(lines: Vec<PvLine>, best: &str) -> Search {
        Search {
            lines,
            bestmove: Some(best.to_owned()),
            nodes: 0,
            time_ms: 0,
        }
    }

    /// An analysis whose SLM chose `choices[d-1]` at depth d, and whose MLM gave `mlm`
    /// (move, White-POV score), best first.
    fn analysis(choices: &[&str], mlm: &[(&str, Score)]) -> PositionAnalysis {
        let slm = choices
            .iter()
            .enumerate()
            .map(|(i, m)| line(i as u32 + 1, 1, Score::Cp(10), m))
            .collect();
        let lines = mlm
            .iter()
            .enumerate()
            .map(|(i, (m, s))| line(5, i as u32 + 1, *s, m))
            .collect();
        PositionAnalysis {
            ply_index: 0,
            search: search(lines, mlm[0].0),
            played_search: None,
            slm: Some(search(slm, choices.last().copied().unwrap_or_default())),
        }
    }

    fn mlm() -> Vec<(&'static str, Score)> {
        vec![
            ("e2e4", Score::Cp(50)),
            ("d2d4", Score::Cp(15)),
            ("c2c4", Score::Cp(-40)),
        ]
    }

    #[test]
    fn match_types_from_the_depth_bits() {
        let w = Side::White;
        let a = analysis(&["d2d4", "e2e4", "e2e4", "e2e4"], &mlm());
        let full = screening_move("e2e4", w, false, &a, 2, 4).unwrap();
        assert_eq!(
            (full.bits.as_str(), full.match_type),
            ("111", MatchType::Full)
        );
        // delta = played − best alternative = 0.50 − 0.15.
        assert!((full.delta.unwrap() - 0.35).abs() < 1e-9);
        let main = screening_move("e2e4", w, false, &a, 1, 4).unwrap();
        assert_eq!(
            (main.bits.as_str(), main.match_type),
            ("0111", MatchType::Main)
        );
        let part = screening_move("d2d4", w, false, &a, 1, 4).unwrap();
        assert_eq!(
            (part.bits.as_str(), part.match_type),
            ("1000", MatchType::Part)
        );
        // delta2 = played − the engine's choice = 0.15 − 0.50.
        assert!((part.delta.unwrap() + 0.35).abs() < 1e-9);
        let non = screening_move("c2c4", w, false, &a, 1, 4).unwrap();
        assert_eq!(
            (non.bits.as_str(), non.match_type),
            ("0000", MatchType::Non)
        );
        assert!((non.delta.unwrap() + 0.90).abs() < 1e-9);
        // The search stopped at depth 4 of d = 6: unreached depths are '-'.
        let short = screening_move("e2e4", w, false, &a, 3, 6).unwrap();
        assert_eq!(
            (short.bits.as_str(), short.match_type),
            ("11--", MatchType::Full)
        );
        // No SLM (review mode): no screening data.
        let mut review = a.clone();
        review.slm = None;
        assert_eq!(screening_move("e2e4", w, false, &review, 1, 4), None);
    }

    #[test]
    fn deltas_are_from_the_movers_side_with_mates_and_repetitions() {
        // Black to move: White-POV scores flip; Black's best is the most negative.
        let a = analysis(
            &["e7e5", "e7e5"],
            &[("e7e5", Score::Cp(-30)), ("c7c5", Score::Cp(20))],
        );
        let m = screening_move("e7e5", Side::Black, false, &a, 1, 2).unwrap();
        assert_eq!(m.match_type, MatchType::Full);
        assert!((m.delta.unwrap() - 0.5).abs() < 1e-9, "{:?}", m.delta);
        let m = screening_move("c7c5", Side::Black, false, &a, 1, 2).unwrap();
        assert!((m.delta.unwrap() + 0.5).abs() < 1e-9);
        // Repetition: NaN.
        let m = screening_move("e7e5", Side::Black, true, &a, 1, 2).unwrap();
        assert_eq!(m.delta, None);
        // Every alternative gets mated: 9.99.
        let a = analysis(
            &["h5f7"],
            &[
                ("h5f7", Score::Cp(120)),
                ("g1f3", Score::Mate(-2)),
                ("a2a3", Score::Mate(-1)),
            ],
        );
        let m = screening_move("h5f7", Side::White, false, &a, 1, 1).unwrap();
        assert_eq!(m.delta, Some(ALL_ALTERNATIVES_MATE));
        // A mate for the mover against a cp alternative: clamped to 9.99 too.
        let a = analysis(
            &["h5f7"],
            &[("h5f7", Score::Mate(1)), ("g1f3", Score::Cp(-300))],
        );
        let m = screening_move("h5f7", Side::White, false, &a, 1, 1).unwrap();
        assert_eq!(m.delta, Some(ALL_ALTERNATIVES_MATE));
    }

    #[test]
    fn log_lines_in_regans_format() {
        let m = |bits: &str, t, delta| ScreeningMove {
            bits: bits.to_owned(),
            match_type: t,
            delta,
            ..ScreeningMove::default()
        };
        assert_eq!(
            log_line(
                "Carlsen",
                23,
                Side::White,
                "Nf5",
                &m("111111", MatchType::Full, Some(0.354))
            ),
            "Carlsen 111111 FULL MATCH (23.Nf5), delta = 0.35"
        );
        assert_eq!(
            log_line(
                "Carlsen",
                23,
                Side::Black,
                "Nf5",
                &m("011111", MatchType::Main, Some(-0.2))
            ),
            "Carlsen 011111 MAIN MATCH (23...Nf5), delta = -0.20"
        );
        assert_eq!(
            log_line(
                "Ding",
                40,
                Side::White,
                "e8=Q+",
                &m("110000", MatchType::Part, Some(-0.004))
            ),
            "Ding 110000 PART MATCH (40.e8Q+), delta2 = 0.00",
            "no '=' before the value, no '-0.00'"
        );
        assert_eq!(
            log_line(
                "Ding",
                7,
                Side::Black,
                "h6",
                &m("000000", MatchType::Non, Some(0.12))
            ),
            "Ding 000000 NON MATCH (7...h6), delta2 = 0.12"
        );
        assert_eq!(
            log_line(
                "Ding",
                7,
                Side::Black,
                "Kg8",
                &m("111111", MatchType::Full, None)
            ),
            "Ding 111111 FULL MATCH (7...Kg8), delta = NaN"
        );
        assert_eq!(
            log_line(
                "X",
                1,
                Side::White,
                "Qh5",
                &m("1", MatchType::Full, Some(ALL_ALTERNATIVES_MATE))
            ),
            "X 1 FULL MATCH (1.Qh5), delta = 9.99"
        );
        assert_eq!(log_name("Carlsen, Magnus"), "Carlsen");
        assert_eq!(log_name("Magnus  Carlsen"), "Magnus_Carlsen");
        assert_eq!(log_name(" "), "?");
    }

    #[test]
    fn totals_count_types_and_depths() {
        let mut t = MatchTotals::default();
        for (bits, ty) in [
            ("111", MatchType::Full),
            ("011", MatchType::Main),
            ("100", MatchType::Part),
            ("0--", MatchType::Non),
        ] {
            t.add(&ScreeningMove {
                bits: bits.into(),
                match_type: ty,
                min_depth: 11,
                ..ScreeningMove::default()
            });
        }
        assert_eq!((t.moves, t.full, t.main, t.part, t.non), (4, 1, 1, 1, 1));
        assert_eq!(t.by_depth, [(11, 2), (12, 2), (13, 2)]);
    }
}
