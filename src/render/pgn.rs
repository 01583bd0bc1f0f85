//! A [`Report`] as annotated PGN for people and lichess-compatible tools
//! ([`annotated_pgn`]); the movetext helpers [`crate::render::crafty`] shares.
//!
//! ```
//! use fairsight::{Analysis, EngineInfo, Settings, render};
//! let a = Analysis::from_pgn("[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *", Settings::default());
//! let pgn = render::annotated_pgn(&a.report(EngineInfo::default()));
//! assert!(pgn.starts_with("[White \"Ann\"]\n[Black \"Bob\"]\n[Annotator \"fairsight\"]\n\n1. e4 e5 "));
//! assert!(pgn.ends_with(" *\n"));
//! //! ```

use std::fmt::Write as _;

use crate::{
    game::Side,
    record::{PlyReport, features::Judgement},
    render::{numbered_move, numbered_moves},
    report::{GameReport, Report, SideReport},
    uci::Score,
};

/// Movetext lines are wrapped between tokens to stay within this many columns (the PGN
/// export format's limit); a single long comment may still exceed it.
pub const LINE_WIDTH: usize = 79;

/// The value of the `Annotator` tag we add when a game has none.
pub const ANNOTATOR: &str = "fairsight";

/// The report as annotated PGN: original tags and moves, `[%eval]` comments (lichess
/// format, White's point of view), judgement NAGs, the best line for inaccuracies,
/// mistakes and blunders, and a summary comment per player. Games that failed to import
/// are left out.
pub fn annotated_pgn(report: &Report) -> String {
    report
        .games
        .iter()
        .filter(|g| g.error.is_none())
        .map(annotated_game)
        .collect::<Vec<_>>()
        .join("\n")
}

fn annotated_game(game: &GameReport) -> String {
    let mut out = tag_section(&game.tags);
    let mut text = Movetext::new();
    if let Some(c) = &game.initial_comment {
        text.comment(c);
    }
    for (i, ply) in game.plies.iter().enumerate() {
        text.san(ply.move_number, ply.side, &ply.san);
        // Excluded plies keep their evaluation but get no verdict.
        let counted = ply.excluded.is_none();
        let judgement = ply.features.judgement.filter(|_| counted);
        let better = counted && ply.features.better_than_engine;
        let engine_like = counted && ply.engine_like;

        // NAGs for errors only: to chess players `!!` and `!?` mean brilliance, so
        // "better than the engine" and "engine-like" are said in the comment.
        let mut nags: Vec<u8> = Vec::new();
        let ours = judgement.map(Judgement::nag);
        for n in ply.nags.iter().copied().chain(ours) {
            if !nags.contains(&n) {
                nags.push(n);
            }
        }
        for n in nags {
            text.nag(n);
        }

        let mut parts: Vec<String> = Vec::new();
        if let Some(score) = eval_after(game, i) {
            parts.push(format!("[%eval {}]", lichess_eval(score)));
        }
        parts.extend(
            ply.comments
                .iter()
                .map(|c| strip_eval(c))
                .filter(|c| !c.is_empty()),
        );
        let best = best_san(ply);
        if let Some(j) = judgement {
            let mut s = format!("{}.", judgement_name(j));
            if let Some(b) = best {
                let _ = write!(s, " Best was {b}.");
            }
            parts.push(s);
        }
        if better {
            parts.push("Better than the engine's first choice.".to_owned());
        }
        if let (true, Some(p)) = (engine_like, ply.engine_probability) {
            // The classifier's probability for one move, not a finding: clean players make many
            // such moves (a PGN is forwarded to players; "confidence" read as an accusation).
            let mut s = format!(
                "Engine-like move (move classifier: {:.1}%; one move says little).",
                p * 100.0
            );
            let idea = crate::model::vector::tactic_length(&game.plies, i);
            if idea >= 2 {
                let _ = write!(s, " The first move of a {idea}-move forced sequence.");
            }
            parts.push(s);
        }
        if !parts.is_empty() {
            text.comment(&parts.join(" "));
        }

        if judgement.is_some() {
            let pv: Vec<&str> = match ply.lines.first() {
                Some(l) if !l.pv_san.is_empty() => l.pv_san.iter().map(String::as_str).collect(),
                _ => best.into_iter().collect(),
            };
            text.variation(ply.move_number, ply.side, &pv);
        }
    }
    text.comment(&summary(Side::White, &game.sides.white));
    text.comment(&summary(Side::Black, &game.sides.black));
    text.token(result_token(game));
    out.push_str(&text.finish());
    out.push('\n');
    out
}

/// The evaluation after a ply, White's point of view: the played move's score, else the
/// next position's best score (the same position, searched as the next ply).
fn eval_after(game: &GameReport, index: usize) -> Option<Score> {
    game.plies[index].features.played_eval.or_else(|| {
        game.plies
            .get(index + 1)
            .and_then(|next| next.features.eval)
    })
}

fn best_san(ply: &PlyReport) -> Option<&str> {
    ply.features
        .best_san
        .as_deref()
        .or_else(|| ply.lines.first().map(|l| l.san.as_str()))
        .filter(|s| !s.is_empty())
}

fn judgement_name(j: Judgement) -> &'static str {
    match j {
        Judgement::Inaccuracy => "Inaccuracy",
        Judgement::Mistake => "Mistake",
        Judgement::Blunder => "Blunder",
    }
}

/// A score in lichess's `[%eval]` form: pawns with two decimals (`0.35`, `-1.20`) or a
/// mate distance (`#3`, `#-2`).
pub fn lichess_eval(score: Score) -> String {
    match score {
        Score::Cp(cp) => {
            let sign = if cp < 0 { "-" } else { "" };
            format!("{sign}{}", pawns(cp))
        }
        Score::Mate(m) => format!("#{m}"),
    }
}

/// `|cp|` as pawns with two decimals, without a sign (integer maths: no `-0.00`).
pub(crate) fn pawns(cp: i32) -> String {
    let a = cp.unsigned_abs();
    format!("{}.{:02}", a / 100, a % 100)
}

/// Removes `[%eval …]` commands (we write our own) and trims.
fn strip_eval(comment: &str) -> String {
    crate::pgn::strip_commands(comment, Some("eval"))
}

/// One player's summary comment.
fn summary(side: Side, s: &SideReport) -> String {
    let colour = match side {
        Side::White => "White",
        Side::Black => "Black",
    };
    let mut out = if s.player.is_empty() {
        colour.to_owned()
    } else {
        format!("{colour} ({})", s.player)
    };
    let a = &s.stats;
    if a.analysed_plies == 0 {
        out.push_str(": no moves analysed");
    } else {
        let mut parts = vec![count(a.analysed_plies, "move analysed", "moves analysed")];
        // The answer first, as in the table and the page: the game side's level.
        if let Some(x) = &s.assessment {
            parts.insert(
                0,
                format!(
                    "{} (probability of engine assistance {}; {})",
                    x.level.name(),
                    crate::model::assessment::probability_percent(x.probability, x.thresholds),
                    x.bars_text(),
                ),
            );
        }
        if let Some(acpl) = a.acpl {
            parts.push(format!("ACPL {acpl:.1}"));
        }
        if let Some(acc) = a.accuracy {
            parts.push(format!("accuracy {acc:.1}%"));
        }
        if let Some(m) = a.match_rate {
            let mut p = format!("engine match {:.0}%", m * 100.0);
            if let Some((lo, hi)) = a.match_rate_ci95 {
                let _ = write!(p, " [{:.0}-{:.0}%]", lo * 100.0, hi * 100.0);
            }
            parts.push(p);
        }
        parts.push(count(a.blunders, "blunder", "blunders"));
        parts.push(count(a.mistakes, "mistake", "mistakes"));
        parts.push(count(a.inaccuracies, "inaccuracy", "inaccuracies"));
        if let Some(c) = &s.classifier {
            let mut p = format!("engine-like {} of {} good moves", c.flagged, c.classified);
            if let Some(r) = c.positive_rate {
                let _ = write!(p, " ({:.0}%)", r * 100.0);
            }
            if let Some(m) = c.mean_probability {
                let _ = write!(p, ", classifier mean {:.0}%", m * 100.0);
            }
            parts.push(p);
        }
        let _ = write!(out, ": {}", parts.join(", "));
    }
    if !a.excluded.is_empty() {
        let ex: Vec<String> = a
            .excluded
            .iter()
            .map(|(e, n)| format!("{n} {}", e.name()))
            .collect();
        let _ = write!(out, "; excluded: {}", ex.join(", "));
    }
    out
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The game termination marker: the movetext's, else a valid `Result` tag, else `*`.
pub(crate) fn result_token(game: &GameReport) -> &str {
    const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];
    game.outcome
        .as_deref()
        .or_else(|| game.tag("Result"))
        .filter(|r| RESULTS.contains(r))
        .unwrap_or("*")
}

/// The tag pair section with its trailing blank line, `Annotator` added when absent.
pub(crate) fn tag_section(tags: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in tags {
        let _ = writeln!(out, "[{k} \"{}\"]", escape_tag(v));
    }
    if !tags.iter().any(|(k, _)| k == "Annotator") {
        let _ = writeln!(out, "[Annotator \"{ANNOTATOR}\"]");
    }
    out.push('\n');
    out
}

fn escape_tag(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Comment text that cannot end the comment early: `}` becomes `)`, line breaks spaces.
fn sanitize_comment(text: &str) -> String {
    text.replace('}', ")")
        .replace(['\r', '\n'], " ")
        .trim()
        .to_owned()
}

/// Movetext being written: wraps between tokens, and knows when a Black move needs its
/// number (at the start and after any comment, NAG or variation).
pub(crate) struct Movetext {
    text: String,
    column: usize,
    number_next: bool,
}

impl Movetext {
    pub(crate) fn new() -> Movetext {
        Movetext {
            text: String::new(),
            column: 0,
            number_next: true,
        }
    }

    pub(crate) fn token(&mut self, token: &str) {
        let len = token.chars().count();
        if self.column > 0 {
            if self.column + 1 + len > LINE_WIDTH {
                self.text.push('\n');
                self.column = 0;
            } else {
                self.text.push(' ');
                self.column += 1;
            }
        }
        self.text.push_str(token);
        self.column += len;
    }

    pub(crate) fn san(&mut self, number: u32, side: Side, san: &str) {
        let token = numbered_move(number, side, san, self.number_next, "...");
        self.token(&token);
        self.number_next = false;
    }

    pub(crate) fn nag(&mut self, nag: u8) {
        self.token(&format!("${nag}"));
        self.number_next = true;
    }

    pub(crate) fn comment(&mut self, text: &str) {
        let text = sanitize_comment(text);
        if !text.is_empty() {
            self.token(&format!("{{{text}}}"));
            self.number_next = true;
        }
    }

    /// A variation replacing the move just written, which was `side`'s move `number`.
    pub(crate) fn variation(&mut self, number: u32, side: Side, sans: &[&str]) {
        if sans.is_empty() {
            return;
        }
        let tokens = numbered_moves(number, side, sans, "...");
        let last = tokens.len() - 1;
        for (i, t) in tokens.iter().enumerate() {
            let open = if i == 0 { "(" } else { "" };
            let close = if i == last { ")" } else { "" };
            self.token(&format!("{open}{t}{close}"));
        }
        self.number_next = true;
    }

    pub(crate) fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::test_support::*;
    use crate::{
        analysis::Analysis,
        engine::{JobResult, PositionAnalysis, PvLine, Search},
        pgn,
        plan::{Exclusion, Settings},
        record::EngineInfo,
        uci::Bound,
    };
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

    #[test]
    fn numbers_black_moves_after_comments_nags_and_at_a_black_start() {
        let mut ps = plies(1, Side::White, &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        ps[0].comments = vec!["[%clk 0:03:00]".to_owned()];
        ps[2].nags = vec![1];
        let g = game(&[], ps);
        assert_eq!(
            movetext(&annotated_pgn(&report(vec![g]))),
            format!("1. e4 {{[%clk 0:03:00]}} 1... e5 2. Nf3 $1 2... Nc6 3. Bb5 {NONE_ANALYSED} *")
        );

        let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R b KQkq - 0 12";
        let mut g = game(
            &[("SetUp", "1"), ("FEN", fen)],
            plies(12, Side::Black, &["d6", "O-O", "O-O"]),
        );
        g.start_fen = fen.to_owned();
        g.initial_comment = Some("from a position".to_owned());
        let pgn = annotated_pgn(&report(vec![g]));
        assert!(pgn.starts_with(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")));
        assert_eq!(
            movetext(&pgn),
            format!("{{from a position}} 12... d6 13. O-O O-O {NONE_ANALYSED} *")
        );
        let mut g = game(&[], plies(12, Side::Black, &["d6", "O-O"]));
        g.outcome = None;
        g.tags.push(("Result".to_owned(), "1/2-1/2".to_owned()));
        assert_eq!(
            movetext(&annotated_pgn(&report(vec![g]))),
            format!("12... d6 13. O-O {NONE_ANALYSED} 1/2-1/2"),
            "the Result tag stands in for a missing result token"
        );
    }

    #[test]
    fn evals_are_whites_view_in_lichess_format() {
        for (score, text) in [
            (Score::Cp(35), "0.35"),
            (Score::Cp(-120), "-1.20"),
            (Score::Cp(-5), "-0.05"),
            (Score::Cp(0), "0.00"),
            (Score::Cp(1234), "12.34"),
            (Score::Mate(3), "#3"),
            (Score::Mate(-2), "#-2"),
        ] {
            assert_eq!(lichess_eval(score), text);
        }

        let mut ps = plies(1, Side::White, &["e4", "e5", "Nf3", "Nc6"]);
        search(&mut ps[0], Score::Cp(30), Score::Cp(35), &["e4"]);
        ps[0].comments = vec!["[%eval 0.10] [%clk 0:01:00] good".to_owned()];
        // No played evaluation: the next position's evaluation stands in.
        ps[1].features.eval = None;
        search(&mut ps[2], Score::Mate(-2), Score::Mate(-2), &["Nf3"]);
        ps[2].features.played_eval = None;
        search(&mut ps[3], Score::Mate(4), Score::Mate(4), &["Nc6"]);
        let text = movetext(&annotated_pgn(&report(vec![game(&[], ps)])));
        assert_eq!(
            text,
            format!(
                "1. e4 {{[%eval 0.35] [%clk 0:01:00] good}} 1... e5 {{[%eval #-2]}} \
                 2. Nf3 {{[%eval #4]}} 2... Nc6 {{[%eval #4]}} {NONE_ANALYSED} *"
            )
        );
        assert_eq!(strip_eval("[%eval 1.0][%clk 0:00:05]"), "[%clk 0:00:05]");
        assert_eq!(strip_eval("[%eval 1.0]"), "");
    }

    #[test]
    fn nags_are_kept_added_once_and_skipped_on_excluded_plies() {
        let mut ps = plies(1, Side::White, &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        // Original `?` and our mistake: one `$2`.
        ps[0].nags = vec![2];
        ps[0].features.judgement = Some(Judgement::Mistake);
        // Original `!` kept before our blunder.
        ps[1].nags = vec![1];
        ps[1].features.judgement = Some(Judgement::Blunder);
        ps[2].features.judgement = Some(Judgement::Inaccuracy);
        ps[2].nags = vec![6, 6];
        ps[3].features.better_than_engine = true;
        // Excluded: no verdict at all.
        ps[4].excluded = Some(Exclusion::Decided);
        ps[4].features.judgement = Some(Judgement::Blunder);
        ps[4].features.better_than_engine = true;
        let text = movetext(&annotated_pgn(&report(vec![game(&[], ps)])));
        assert_eq!(
            text,
            format!(
                "1. e4 $2 {{Mistake.}} 1... e5 $1 $4 {{Blunder.}} 2. Nf3 $6 {{Inaccuracy.}} \
                 2... Nc6 {{Better than the engine's first choice.}} 3. Bb5 {NONE_ANALYSED} *"
            )
        );
    }

    #[test]
    fn engine_like_moves_get_a_comment_with_the_confidence_and_the_idea_length_not_a_nag() {
        let mut ps = plies(1, Side::White, &["e4", "e5", "Nf3", "Nc6"]);
        ps[0].engine_like = true;
        ps[0].engine_probability = Some(0.7321);
        // e4 starts a two-ply forced sequence: both are the only good move, both played.
        for p in &mut ps[..2] {
            p.searched = true;
            p.features.is_best = true;
            p.features.gaps = vec![120];
        }
        // Flagged but excluded: no verdict.
        ps[3].engine_like = true;
        ps[3].engine_probability = Some(0.9);
        ps[3].excluded = Some(Exclusion::Decided);
        let text = movetext(&annotated_pgn(&report(vec![game(&[], ps)])));
        assert!(
            text.starts_with(
                "1. e4 {Engine-like move (move classifier: 73.2%; one move says little). The first move of a 2-move forced sequence.} 1... e5 2. Nf3 Nc6 {"
            ),
            "{text}"
        );
    }

    #[test]
    fn judged_moves_get_the_best_line_with_move_numbers() {
        let mut ps = plies(12, Side::White, &["h3", "h6", "a3", "a6"]);
        ps[0].features.judgement = Some(Judgement::Mistake);
        search(
            &mut ps[0],
            Score::Cp(40),
            Score::Cp(-80),
            &["Nf3", "Nc6", "O-O"],
        );
        ps[1].features.judgement = Some(Judgement::Blunder);
        search(
            &mut ps[1],
            Score::Cp(-80),
            Score::Mate(2),
            &["Nf6", "O-O", "Be7"],
        );
        // Only the best move known: a one-move variation.
        ps[2].features.judgement = Some(Judgement::Inaccuracy);
        ps[2].features.best_san = Some("Qe2".to_owned());
        let text = movetext(&annotated_pgn(&report(vec![game(&[], ps)])));
        assert_eq!(
            text,
            format!(
                "12. h3 $2 {{[%eval -0.80] Mistake. Best was Nf3.}} (12. Nf3 Nc6 13. O-O) \
                 12... h6 $4 {{[%eval #2] Blunder. Best was Nf6.}} (12... Nf6 13. O-O Be7) \
                 13. a3 $6 {{Inaccuracy. Best was Qe2.}} (13. Qe2) 13... a6 {NONE_ANALYSED} *"
            )
        );
    }

    #[test]
    fn summary_comment_per_player() {
        let mut g = game(
            &[("White", "Carlsen"), ("Black", "Nepo")],
            plies(1, Side::White, &["e4"]),
        );
        let w = &mut g.sides.white.stats;
        w.analysed_plies = 31;
        w.acpl = Some(22.43);
        w.accuracy = Some(88.06);
        w.match_rate = Some(0.52);
        w.match_rate_ci95 = Some((0.41, 0.634));
        w.mistakes = 1;
        w.inaccuracies = 2;
        w.excluded.insert(Exclusion::Forced, 1);
        w.excluded.insert(Exclusion::Book, 4);
        g.sides.black.stats.excluded.insert(Exclusion::Early, 3);
        // The side's level first, as the table says it, with its thresholds.
        g.sides.white.assessment = Some(crate::model::assessment::Assessment {
            probability: 0.612,
            level: crate::model::assessment::Level::Unclear,
            reasons: Vec::new(),
            basis: "rated, no clocks".to_owned(),
            thresholds: (0.458, 0.809),
            moves: 31,
            hint: None,
            resembles: None,
            bars: crate::model::assessment::bars_words((0.458, 0.809), false),
        });
        let mut b = game(&[], plies(1, Side::White, &["d4"]));
        b.sides.white.stats.analysed_plies = 1;
        b.sides.white.stats.blunders = 1;
        let pgn = annotated_pgn(&report(vec![g, b])).replace('\n', " ");
        assert!(
            pgn.contains(
                "{White (Carlsen): unclear (probability of engine assistance 61%; unclear \
                 from 46% (about 1 clean game side in 10 reads higher), look closer from 81% \
                 (fewer than 1 in 100)), 31 moves analysed, ACPL 22.4, accuracy 88.1%, \
                 engine match 52% [41-63%], 0 blunders, 1 mistake, 2 inaccuracies; \
                 excluded: 4 book, 1 forced} {Black (Nepo): no moves analysed; \
                 excluded: 3 early} *"
            ),
            "{pgn}"
        );
        assert!(pgn.contains(
            "{White: 1 move analysed, 1 blunder, 0 mistakes, 0 inaccuracies} \
             {Black: no moves analysed} *"
        ));
    }

    #[test]
    fn escapes_tags_and_comment_braces() {
        let mut ps = plies(1, Side::White, &["e4"]);
        ps[0].comments = vec!["a } b\nc".to_owned()];
        let mut g = game(
            &[
                ("Event", "He said \"hi\" \\o/"),
                ("White", "x}y"),
                ("Annotator", "me"),
            ],
            ps,
        );
        g.initial_comment = Some("{nested}".to_owned());
        let pgn = annotated_pgn(&report(vec![g]));
        assert_eq!(
            pgn,
            "[Event \"He said \\\"hi\\\" \\\\o/\"]\n[White \"x}y\"]\n[Annotator \"me\"]\n\n\
             {{nested)} 1. e4 {a ) b c} {White (x)y): no moves analysed}\n\
             {Black: no moves analysed} *\n"
        );
    }

    #[test]
    fn leaves_out_failed_games_and_separates_games_by_a_blank_line() {
        let mut failed = game(&[("White", "Bad")], Vec::new());
        failed.error = Some("game 2: illegal move".to_owned());
        let a = game(&[("Round", "1")], plies(1, Side::White, &["e4"]));
        let b = game(&[("Round", "3")], plies(1, Side::White, &["d4"]));
        let pgn = annotated_pgn(&report(vec![a, failed, b]));
        assert!(!pgn.contains("Bad"));
        let blocks: Vec<&str> = pgn.split("\n\n").collect();
        assert_eq!(blocks.len(), 4, "{pgn}");
        assert!(blocks[1].ends_with(" *") && blocks[2].starts_with("[Round \"3\"]"));
        assert!(pgn.ends_with("*\n") && !pgn.ends_with("\n\n"));
    }

    #[test]
    fn wraps_movetext_between_tokens() {
        let sans: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(30);
        let pgn = annotated_pgn(&report(vec![game(&[], plies(1, Side::White, &sans))]));
        let text = pgn.split_once("\n\n").unwrap().1;
        assert!(text.lines().count() > 5);
        for line in text.lines() {
            assert!(line.len() <= LINE_WIDTH, "{line}");
            assert!(!line.starts_with(' ') && !line.ends_with(' '));
            // A move number never ends a line.
            assert!(!line.ends_with('.'), "{line}");
        }
        assert!(movetext(&pgn).starts_with("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3"));
    }

    /// `[%eval X]` of a comment, read back.
    fn parse_eval(comment: &str) -> Option<Score> {
        let rest = &comment[comment.find("[%eval ")? + "[%eval ".len()..];
        let value = &rest[..rest.find(']')?];
        if let Some(m) = value.strip_prefix('#') {
            return m.parse().ok().map(Score::Mate);
        }
        let pawns: f64 = value.parse().ok()?;
        Some(Score::Cp((pawns * 100.0).round() as i32))
    }

    /// Fake engine results: the best line is a legal move other than the played one, the
    /// played move scores `drop(i)` centipawns below it (mover's side); one mate.
    fn fake_result(job: &crate::engine::Job, game: &crate::game::Game) -> JobResult {
        let line = |multipv: u32, score: Score, pv: Vec<String>| PvLine {
            depth: 10,
            seldepth: None,
            multipv,
            score,
            bound: Bound::Exact,
            nodes: None,
            pv,
        };
        JobResult {
            id: job.id,
            positions: job
                .tasks
                .iter()
                .map(|t| {
                    let ply = &game.plies[t.ply_index];
                    let pos: Chess = ply
                        .fen_before
                        .parse::<Fen>()
                        .unwrap()
                        .into_position(CastlingMode::Standard)
                        .unwrap();
                    let other = pos
                        .legal_moves()
                        .into_iter()
                        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                        .find(|m| *m != t.played)
                        .unwrap();
                    let i = t.ply_index as i32;
                    let sign = t.side.sign();
                    let best = Score::Cp(40 * sign);
                    let played = if t.ply_index == 5 {
                        Score::Mate(-3 * sign)
                    } else {
                        Score::Cp((40 - 35 * (i % 4)) * sign)
                    };
                    PositionAnalysis {
                        ply_index: t.ply_index,
                        search: Search {
                            lines: vec![
                                line(1, best, vec![other]),
                                line(2, played, vec![t.played.clone()]),
                            ],
                            bestmove: None,
                            nodes: 1,
                            time_ms: 1,
                        },
                        played_search: None,
                        slm: None,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn annotated_pgn_reimports_with_the_same_moves_and_evals() {
        let input = "[Event \"Test \\\"quoted\\\"\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n\n\
                     {start} 1. e4 {[%clk 0:03:00]} e5 2. Nf3 $1 Nc6 3. Bb5 a6 4. Ba4 Nf6 \
                     5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 *";
        let mut a = Analysis::from_pgn(input, Settings::default());
        let game = a.games()[0].clone().unwrap();
        for job in a.jobs() {
            let r = fake_result(&job, &game);
            a.add_result(r);
        }
        let report = a.report(EngineInfo::default());
        let pgn = annotated_pgn(&report);
        assert!(pgn.contains(" (2... "), "variations present: {pgn}");

        let back = pgn::import(&pgn).remove(0).expect("re-imports");
        assert_eq!(back.tag("Event"), Some("Test \"quoted\""));
        assert_eq!(back.tag("Annotator"), Some(ANNOTATOR));
        let sans = |g: &crate::game::Game| -> Vec<String> {
            g.plies.iter().map(|p| p.san.clone()).collect()
        };
        assert_eq!(sans(&back), sans(&game));
        assert_eq!(back.outcome.as_deref(), Some("*"));
        assert!(back.plies[0].comments.join(" ").contains("[%clk 0:03:00]"));
        assert!(back.plies[2].nags.contains(&1));
        for (p, orig) in back.plies.iter().zip(&report.games[0].plies) {
            let comment = p.comments.join(" ");
            assert_eq!(comment.matches("[%eval").count(), 1, "{comment}");
            assert_eq!(parse_eval(&comment), orig.features.played_eval, "{comment}");
            if let Some(j) = orig.features.judgement.filter(|_| orig.excluded.is_none()) {
                assert!(p.nags.contains(&j.nag()), "{} {:?}", p.san, p.nags);
            }
        }
        assert!(
            report.games[0]
                .plies
                .iter()
                .any(|p| p.features.played_eval.is_some_and(Score::is_mate)),
            "the fixture covers a mate"
        );
    }
}
