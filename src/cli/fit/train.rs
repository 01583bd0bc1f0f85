//! `fairsight train`: the move classifier's data and training (see models/README.md).
//!
//! 1. `train sample FILE --games N`: N games spread evenly through a PGN file, each cut
//!    to the plies that count: after the opening book forced on engines (`--skip-tag
//!    BookPlies`, at least `--skip-min` plies when the tag is 0) and at most
//!    `--max-plies` after that, so neither the book nor game length can leak. The
//!    skipped opening becomes a `FEN` start; clocks are kept.
//! 2. `fairsight analyze SAMPLE.pgn --cache DIR --json REPORT.json` with the defaults.
//! 3. `train fit --engine REPORT... --human REPORT... --out models/...`: builds the
//!    balanced dataset, cross-validates the models grouped by game and writes the chosen
//!    one.

use std::{fmt::Write as _, path::PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use fairsight::{Game, pgn};

#[derive(Subcommand)]
pub enum TrainCmd {
    /// Print a sample of games cut to the plies that count, as PGN.
    Sample(SampleArgs),
    /// Build the balanced dataset from analysed reports, cross-validate the models and
    /// write the chosen one.
    Fit(super::train_fit::FitArgs),
    /// Print the move classifier's probability for every ply of a saved report, as JSON
    /// (`[[p or null, ...] per game]`), whatever settings the report was made with.
    Probabilities(ProbabilitiesArgs),
}

#[derive(Args)]
pub struct ProbabilitiesArgs {
    /// A JSON report of `fairsight analyze`.
    report: PathBuf,
    /// The model [default: the shipped one].
    #[arg(long)]
    model: Option<PathBuf>,
}

#[derive(Args)]
pub struct SampleArgs {
    /// PGN file.
    file: PathBuf,
    #[command(flatten)]
    select: Selection,
    /// Print the picked games' 1-based numbers in the file instead of their PGN.
    #[arg(long)]
    numbers: bool,
}

/// Which games of a file to take and how to cut them (shared by `train sample` and
/// `corpus add`). The picks come in file order, each once (before, `train sample`
/// printed them in pick order, which differs only when `--offset` wraps around).
#[derive(Args, Clone, Debug)]
pub struct Selection {
    /// Games to take, spread evenly through the file.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Start the even spread this many games later (for a second, disjoint sample).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// A tag giving the number of opening plies to skip (TCEC's `BookPlies`).
    #[arg(long)]
    pub skip_tag: Option<String>,
    /// Skip at least this many plies (when the tag is missing or 0).
    #[arg(long, default_value_t = 0)]
    pub skip_min: usize,
    /// Keep at most this many plies after the skipped ones.
    #[arg(long, default_value_t = 80)]
    pub max_plies: usize,
    /// Leave out games with fewer plies than this after the skipped ones.
    #[arg(long, default_value_t = 30)]
    pub min_plies: usize,
    /// Only games with both WhiteElo and BlackElo.
    #[arg(long)]
    pub rated: bool,
}

/// A game taken by a [`Selection`].
pub struct Picked {
    /// 1-based number of the game in its file (failed games counted).
    pub number: usize,
    /// Plies left out before the cut.
    pub skipped: usize,
    /// The cut game, as PGN (see [`cut_game`]).
    pub pgn: String,
}

/// The games of `text` that `s` takes, in file order, and how many were eligible.
pub fn select(text: &str, s: &Selection) -> (usize, Vec<Picked>) {
    let mut eligible = Vec::new();
    for g in pgn::import(text).into_iter().flatten() {
        let skip = s
            .skip_tag
            .as_deref()
            .and_then(|t| tag(&g, t))
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(0)
            .max(s.skip_min);
        if g.plies.len() < skip + s.min_plies {
            continue;
        }
        if s.rated && !(has_elo(&g, "WhiteElo") && has_elo(&g, "BlackElo")) {
            continue;
        }
        eligible.push((g, skip));
    }
    let take = s.games.min(eligible.len());
    let mut picked: Vec<usize> = (0..take)
        .map(|j| (j * eligible.len() / take + s.offset) % eligible.len())
        .collect();
    // In file order, once each (an offset that wraps around could repeat a game).
    let mut seen = std::collections::HashSet::new();
    picked.retain(|i| seen.insert(*i));
    let mut out: Vec<Picked> = picked
        .into_iter()
        .map(|i| {
            let (g, skip) = &eligible[i];
            Picked {
                number: g.index + 1,
                skipped: *skip,
                pgn: cut_game(g, *skip, skip + s.max_plies),
            }
        })
        .collect();
    out.sort_by_key(|p| p.number);
    (eligible.len(), out)
}

pub fn run(cmd: TrainCmd) -> Result<()> {
    match cmd {
        TrainCmd::Sample(a) => sample(a),
        TrainCmd::Fit(a) => super::train_fit::fit(a),
        TrainCmd::Probabilities(a) => probabilities(a),
    }
}

fn probabilities(a: ProbabilitiesArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.report)
        .with_context(|| format!("reading {}", a.report.display()))?;
    let report = fairsight::Report::from_json(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a fairsight report: {e}", a.report.display()))?;
    let own;
    let model = match &a.model {
        Some(path) => {
            let t = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            own = fairsight::Classifier::from_json(&t)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            &own
        }
        None => fairsight::Classifier::builtin()
            .context("no move classifier is built in (models/move-classifier.json)")?,
    };
    println!(
        "{}",
        serde_json::to_string(&fairsight::fit::classifier_probabilities(model, &report))?
    );
    Ok(())
}

fn tag<'a>(g: &'a Game, name: &str) -> Option<&'a str> {
    g.tags
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn has_elo(g: &Game, name: &str) -> bool {
    tag(g, name)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .is_some_and(|e| e > 0)
}

fn clock_text(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The game from ply index `from` (a `FEN` start there) to `to` (exclusive), as PGN.
/// Tags are kept but `SetUp`, `FEN`, `Result` and `PlyCount`; the result is `*` when the
/// game is cut before its end.
pub fn cut_game(g: &Game, from: usize, to: usize) -> String {
    let to = to.min(g.plies.len());
    let ended = to == g.plies.len();
    let result = if ended {
        g.outcome.clone().unwrap_or_else(|| "*".to_owned())
    } else {
        "*".to_owned()
    };
    let mut out = String::new();
    for (k, v) in &g.tags {
        if !matches!(k.as_str(), "SetUp" | "FEN" | "Result" | "PlyCount") {
            let _ = writeln!(
                out,
                "[{k} \"{}\"]",
                v.replace('\\', "\\\\").replace('"', "\\\"")
            );
        }
    }
    let start = g
        .plies
        .get(from)
        .map_or(g.start_fen.clone(), |p| p.fen_before.clone());
    if from > 0 || !g.is_standard_start() {
        let _ = writeln!(out, "[SetUp \"1\"]\n[FEN \"{start}\"]");
    }
    let _ = writeln!(out, "[Result \"{result}\"]\n");
    let mut body = String::new();
    for (i, p) in g.plies[from.min(to)..to].iter().enumerate() {
        match p.side {
            fairsight::Side::White => {
                let _ = write!(body, "{}. ", p.move_number);
            }
            fairsight::Side::Black if i == 0 => {
                let _ = write!(body, "{}... ", p.move_number);
            }
            fairsight::Side::Black => {}
        }
        body.push_str(&p.san);
        if let Some(c) = p.clock {
            let _ = write!(body, " {{ [%clk {}] }}", clock_text(c));
        }
        body.push(' ');
    }
    body.push_str(&result);
    // Lines of at most ~80 characters.
    let mut line = String::new();
    for word in body.split(' ') {
        if !line.is_empty() && line.len() + word.len() >= 80 {
            let _ = writeln!(out, "{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    let _ = writeln!(out, "{line}\n");
    out
}

fn sample(a: SampleArgs) -> Result<()> {
    let bytes =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    let (eligible, picked) = select(&String::from_utf8_lossy(&bytes), &a.select);
    eprintln!(
        "{}: {eligible} eligible games, taking {}",
        a.file.display(),
        picked.len()
    );
    let out: String = if a.numbers {
        picked.iter().map(|p| format!("{}\n", p.number)).collect()
    } else {
        picked.iter().map(|p| p.pgn.as_str()).collect()
    };
    print!("{out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_game_reimports_from_its_fen_with_the_same_moves_and_clocks() {
        let text = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[TimeControl \"60+1\"]\n\n\
            1. e4 { [%clk 0:01:00] } e5 { [%clk 0:01:00] } 2. Nf3 { [%clk 0:00:59] } \
            Nc6 { [%clk 0:00:58] } 3. Bb5 { [%clk 0:00:57] } a6 { [%clk 0:00:50] } 1-0";
        let g = pgn::import(text).remove(0).unwrap();
        let cut = cut_game(&g, 3, 5);
        assert!(
            cut.contains(
                "[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\"]"
            ),
            "{cut}"
        );
        let back = pgn::import(&cut).remove(0).unwrap();
        let sans: Vec<&str> = back.plies.iter().map(|p| p.san.as_str()).collect();
        // Ply index 3 is 2... Nc6.
        assert_eq!(sans, ["Nc6", "Bb5"]);
        assert_eq!(back.plies[0].move_number, 2);
        assert_eq!(back.plies[1].clock, Some(57.0));
        assert_eq!(back.outcome.as_deref(), Some("*"), "cut before the end");
        assert_eq!(tag(&back, "White"), Some("A"));
        let whole = cut_game(&g, 0, 99);
        assert!(!whole.contains("[FEN"));
        assert_eq!(
            pgn::import(&whole).remove(0).unwrap().outcome.as_deref(),
            Some("1-0")
        );
    }
}
