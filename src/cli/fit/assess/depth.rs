//! `fairsight assess depth`: how deep must the judge be? The same games (the depth
//! study's slices, `scripts/depth-slice.py`) analysed at several settings, each into its
//! own corpus folder (`corpus/depth/d14`, `d18`, `full14`), compared side by side: per
//! game side, the ROC AUC of engine against human play of each absolute signal and of a
//! cross-validated logistic combination of them, overall and for top and weaker engines,
//! and the weaker engines against humans of their own strength (pairs of sides whose
//! ratings are within [`MATCHED`] points: what tells a limited engine from a human of
//! its rating, style, not strength), and the switched sides against humans (the third
//! slice: both rated 2,300-2,599 over the board), by the combination and by a
//! cross-validated `lateOdds` fitted at the setting.
//!
//! A folder's games are matched with the others' by the record they were cut from (the
//! `SliceOf` tag the slice script writes, or the record itself), so the main corpus,
//! analysed at the defaults, can be the reference with no game analysed again.
//!
//! Only signals that need no model fitted at one setting are compared (the move
//! classifier and Regan's rating calibration apply only to the settings they were fitted
//! at), and only the game sides present in every folder, so a difference between two
//! rows is the setting's, not the data's. What a setting costs is measured apart, side
//! by side in one run (`fairsight bench --compare depth=18 --compare engine=CMD`).

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{Result, bail};
use clap::Args;
use fairsight::{
    Limit,
    fit::{LateOdds, model_value},
};

use super::{Kind, Row, auc_scored, fit_model, folds, rows_of};
use crate::cli::corpus::{Record, load_records};

/// The signals compared: none needs a model fitted at the defaults.
const COMPARED: [&str; 8] = [
    "acpl",
    "accuracy",
    "matchRate",
    "competence",
    "lateLoss",
    "lateMatch",
    "topLines",
    "lateGain",
];
/// Pairs of a weaker engine's side and a human side count as matched when the engine's
/// tag and the human's rating are at most this many points apart.
const MATCHED: f64 = 150.0;
/// The combination's inputs (`accuracy` is a twin of `acpl`).
const COMBINED: [&str; 5] = ["acpl", "matchRate", "competence", "lateLoss", "lateMatch"];
/// Signals where lower is more engine-like.
const LOWER_IS_ENGINE: [&str; 2] = ["acpl", "lateLoss"];

#[derive(Args)]
pub struct DepthArgs {
    /// A corpus folder of the slice at one setting (repeat: the first is the reference), or
    /// several analysed at the same setting read as one, joined by commas.
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// A corpus at the defaults (the main one) of which only the games the `--corpus`
    /// folders' games were cut from are read, as the first setting: the reference with
    /// no game analysed again.
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Only the games of this source of the `--corpus` folders (repeatable; default all):
    /// e.g. one kind of switched sides against the humans beside them.
    #[arg(long)]
    source: Vec<String>,
    /// Cross-validation folds of the combination (grouped by game).
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Seed of the folds.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Repeats of the cross-validation, each with the next seed, whose out-of-fold scores
    /// are averaged (a small slice's AUCs move by a few hundredths with the folds).
    #[arg(long, default_value_t = 1)]
    repeats: u64,
}

/// Out-of-fold scores averaged over `repeats` cross-validations, seeds `seed`,
/// `seed + 1`...: a side without a score in one of them has none.
fn repeated(
    rows: &[&Row],
    seed: u64,
    repeats: u64,
    scores: impl Fn(&[&Row], u64) -> Result<Vec<f64>>,
) -> Result<Vec<f64>> {
    let mut sum = vec![0.0; rows.len()];
    for r in 0..repeats.max(1) {
        for (s, v) in sum.iter_mut().zip(scores(rows, seed + r)?) {
            *s += v;
        }
    }
    Ok(sum.into_iter().map(|s| s / repeats.max(1) as f64).collect())
}

/// One setting's folder: its words, scored sides and, per side's key, the positions of
/// its game.
struct Setting {
    name: String,
    rows: Vec<Row>,
    positions: BTreeMap<String, usize>,
    /// Each record's origin ([`origin`]), by record id.
    origins: BTreeMap<String, String>,
}

/// The record a game was cut from: its `SliceOf` tag, or the record itself.
fn origin(r: &Record) -> String {
    r.pgn
        .split_once("[SliceOf \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or_else(|| r.id.clone(), |(o, _)| o.to_owned())
}

/// One setting: a folder, or several analysed at the same setting named as one, their
/// paths joined by commas (the fourth slice's switched games beside the third's humans),
/// each folder's records whose origin is in `wanted` (all when `None`).
fn setting(folders: &Path, wanted: Option<&BTreeSet<String>>, only: &[String]) -> Result<Setting> {
    let text = folders.to_string_lossy();
    let mut parts = text.split(',').filter(|p| !p.is_empty());
    let first = parts.next().unwrap_or_default();
    let mut joined = folder_setting(Path::new(first), wanted, only)?;
    // What the name says after the folder: the engine's build, the limit and the lines.
    let how = |s: &Setting, folder: &str| s.name[folder.len()..].to_owned();
    let first_how = how(&joined, first);
    for folder in parts {
        let s = folder_setting(Path::new(folder), wanted, only)?;
        if how(&s, folder) != first_how {
            bail!(
                "{folder}: analysed{} where {first} was analysed{first_how}: one setting's folders must share it",
                how(&s, folder)
            );
        }
        for (k, v) in &s.origins {
            if joined.origins.insert(k.clone(), v.clone()).is_some() {
                bail!("{folder}: record {k} is also in an earlier folder of the setting");
            }
        }
        joined.rows.extend(s.rows);
        joined.positions.extend(s.positions);
        joined.name = format!(
            "{}, {folder}{first_how}",
            &joined.name[..joined.name.len() - first_how.len()]
        );
    }
    Ok(joined)
}

/// A folder's records whose origin is in `wanted` (all when `None`), of the sources
/// `only` names (all when empty).
fn folder_setting(
    folder: &Path,
    wanted: Option<&BTreeSet<String>>,
    only: &[String],
) -> Result<Setting> {
    // Only the sources of the games wanted are read (the main corpus is large).
    let sources: Vec<String> = wanted
        .map(|w| {
            let set: BTreeSet<&str> = w.iter().filter_map(|o| o.split('/').next()).collect();
            set.into_iter().map(str::to_owned).collect()
        })
        .unwrap_or_else(|| only.to_vec());
    let records: Vec<Record> = load_records(folder, &sources, None, None)?
        .into_iter()
        .filter(|r| wanted.is_none_or(|w| w.contains(&origin(r))))
        .collect();
    let Some(first) = records.first() else {
        bail!("{}: no analysed games of the slice", folder.display());
    };
    let limit = match first.settings.limit {
        Limit::Depth(d) => format!("depth {d}"),
        Limit::Nodes(n) => format!("{n} nodes"),
    };
    let name = format!(
        "{} ({}, {limit}, {} lines)",
        folder.display(),
        first.engine.build,
        first.settings.multipv
    );
    let origins: BTreeMap<String, String> =
        records.iter().map(|r| (r.id.clone(), origin(r))).collect();
    let count: BTreeMap<String, usize> = records
        .iter()
        .map(|r| (r.id.clone(), r.positions.len()))
        .collect();
    let rows = rows_of(folder, records, None)?;
    let mut positions = BTreeMap::new();
    for r in &rows {
        positions.insert(key(&origins, r), count[&r.game]);
    }
    Ok(Setting {
        name,
        rows,
        positions,
        origins,
    })
}

/// A row's key across the settings: the game it was cut from and the side.
fn key(origins: &BTreeMap<String, String>, r: &Row) -> String {
    format!("{}#{:?}", origins[&r.game], r.side)
}

/// The AUC of weaker engines' sides against human sides of about their strength: over
/// every pair of a weaker engine's side and a human side whose ratings are at most
/// [`MATCHED`] apart, the share in which the engine's score is the higher (ties half).
/// `None` when no pair is matched.
fn matched_auc(rows: &[&Row], scores: &[f64]) -> Option<f64> {
    let side = |kind: Kind| -> Vec<(f64, f64)> {
        rows.iter()
            .zip(scores)
            .filter(|(r, s)| r.kind == kind && !s.is_nan())
            .filter_map(|(r, s)| Some((r.elo?, *s)))
            .collect()
    };
    let (engines, humans) = (side(Kind::WeakEngine), side(Kind::Human));
    let (mut wins, mut pairs) = (0.0, 0usize);
    for (e, se) in &engines {
        for (h, sh) in humans.iter().filter(|(h, _)| (h - e).abs() <= MATCHED) {
            let _ = h;
            pairs += 1;
            wins += match se.partial_cmp(sh) {
                Some(std::cmp::Ordering::Greater) => 1.0,
                Some(std::cmp::Ordering::Equal) => 0.5,
                _ => 0.0,
            };
        }
    }
    (pairs > 0).then(|| wins / pairs as f64)
}

/// The signal oriented so that higher is more engine-like.
fn oriented(r: &Row, signal: &str) -> f64 {
    let v = r.signals.get(signal).unwrap_or(f64::NAN);
    if LOWER_IS_ENGINE.contains(&signal) {
        -v
    } else {
        v
    }
}

/// Out-of-fold logistic scores of the combination, folds grouped by game.
fn combined_scores(rows: &[&Row], n_folds: usize, seed: u64) -> Result<Vec<f64>> {
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            COMBINED
                .iter()
                .map(|s| model_value(s, r.signals.get(s).unwrap_or(0.0)))
                .collect()
        })
        .collect();
    let y: Vec<u32> = rows.iter().map(|r| u32::from(r.engine())).collect();
    let fold = folds(rows, n_folds, seed);
    let mut out = vec![f64::NAN; rows.len()];
    for f in 0..n_folds.max(2) {
        let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = (0..rows.len())
            .filter(|&i| fold[i] != f)
            .map(|i| (x[i].clone(), y[i]))
            .unzip();
        if ty.iter().all(|&v| v == ty[0]) {
            continue;
        }
        let model = fit_model("logistic", &tx, &ty, 0, seed)?;
        for i in (0..rows.len()).filter(|&i| fold[i] == f) {
            out[i] = model.probability(&x[i]);
        }
    }
    Ok(out)
}

/// Fewest later-half moves of each kind for a fold's `lateOdds` table (the shipped fit
/// asks 1,000; a slice of 60 sides a kind has about 1,500).
const LATE_ODDS_MOVES: usize = 200;
/// The rating every human's later half is counted at in [`late_odds_scores`]: one band.
const ONE_BAND: f64 = 2400.0;

/// Out-of-fold `lateOdds` of the switched and human sides ([`LateOdds`]): each fold's
/// table fitted on the other folds' later halves (folds grouped by game and player), its
/// humans all counted in one band (the third slice's humans are of one band, and a table
/// per band would split their moves). NaN where a fold's table has too few moves.
fn late_odds_scores(rows: &[&Row], n_folds: usize, seed: u64) -> Vec<f64> {
    let fold = folds(rows, n_folds, seed);
    let mut out = vec![f64::NAN; rows.len()];
    for f in 0..n_folds.max(2) {
        let train = |kind: Kind| -> Vec<&[u32]> {
            rows.iter()
                .zip(&fold)
                .filter(|(r, g)| **g != f && r.kind == kind)
                .map(|(r, _)| r.signals.late_cells.as_slice())
                .collect()
        };
        let humans: Vec<(f64, &[u32])> = train(Kind::Human)
            .into_iter()
            .map(|c| (ONE_BAND, c))
            .collect();
        let Some(table) = LateOdds::fit_from(&humans, &train(Kind::Switched), LATE_ODDS_MOVES)
        else {
            continue;
        };
        for (i, r) in rows.iter().enumerate().filter(|(i, _)| fold[*i] == f) {
            out[i] = table
                .value(&r.signals.late_cells, ONE_BAND)
                .unwrap_or(f64::NAN);
        }
    }
    out
}

/// A table's header: these columns, then one a compared signal.
fn header(out: &mut String, first: &[&str]) {
    out.push('|');
    for c in first.iter().chain(&COMPARED) {
        let _ = write!(out, " {c} |");
    }
    out.push('\n');
    out.push_str(&"|---".repeat(first.len() + COMPARED.len()));
    out.push_str("|\n");
}

pub fn depth(a: DepthArgs) -> Result<()> {
    let mut settings = a
        .corpus
        .iter()
        .map(|c| setting(c, None, &a.source))
        .collect::<Result<Vec<_>>>()?;
    if let Some(reference) = &a.reference {
        let wanted: BTreeSet<String> = settings
            .iter()
            .flat_map(|s| s.origins.values().cloned())
            .collect();
        settings.insert(0, setting(reference, Some(&wanted), &[])?);
    }
    // The sides every setting has.
    let mut common: Option<BTreeSet<String>> = None;
    for s in &settings {
        let keys: BTreeSet<String> = s
            .rows
            .iter()
            .filter(|r| COMPARED.iter().all(|c| r.signals.get(c).is_some()))
            .map(|r| key(&s.origins, r))
            .collect();
        common = Some(match common {
            None => keys,
            Some(c) => c.intersection(&keys).cloned().collect(),
        });
    }
    // Only sides whose game was analysed over the same positions at every setting (the
    // first slice's games were cut shorter than the corpus's records of them).
    let mut common = common.unwrap_or_default();
    let before = common.len();
    common.retain(|k| {
        let counts: BTreeSet<usize> = settings.iter().map(|s| s.positions[k]).collect();
        counts.len() == 1
    });
    let mut out = String::new();
    if common.len() < before {
        let _ = writeln!(
            out,
            "({} sides left out: their games were analysed over other positions in one of the folders)\n",
            before - common.len()
        );
    }
    let _ = writeln!(
        out,
        "depth study: the same {} game sides at each setting (per side ROC AUC, engine against human; combined = logistic regression of {}, {}-fold cross-validated by game{}, fitted on all engines and, for each slice, on that kind alone; matched = weaker engines against human sides rated within {MATCHED} points of the engine's tag; switched, lateOdds = the later half's odds of an engine, its table fitted on the other folds at the setting)\n",
        common.len(),
        COMBINED.join(", "),
        a.folds,
        if a.repeats > 1 {
            format!(" (out-of-fold scores averaged over {} repeats)", a.repeats)
        } else {
            String::new()
        }
    );
    header(
        &mut out,
        &[
            "setting",
            "positions",
            "sides (engine / human)",
            "combined",
            "top engines vs humans",
            "weaker engines vs humans",
            "weaker, matched",
            "switched vs humans",
            "switched, lateOdds",
        ],
    );
    let mut matched = String::new();
    for s in &settings {
        let rows: Vec<&Row> = s
            .rows
            .iter()
            .filter(|r| common.contains(&key(&s.origins, r)))
            .collect();
        let labels: Vec<bool> = rows.iter().map(|r| r.engine()).collect();
        let cv = |rows: &[&Row]| {
            repeated(rows, a.seed, a.repeats, |r, seed| {
                combined_scores(r, a.folds, seed)
            })
        };
        let combined = cv(&rows)?;
        // Each kind against the humans with its own cross-validated fit (one fit of both
        // kinds at once learns a compromise that suits neither).
        let part = |kind: Kind| -> Vec<&Row> {
            rows.iter()
                .copied()
                .filter(|r| r.kind == kind || r.kind == Kind::Human)
                .collect()
        };
        let slice = |kind: Kind| -> Result<f64> {
            let part = part(kind);
            let l: Vec<bool> = part.iter().map(|r| r.engine()).collect();
            Ok(auc_scored(&cv(&part)?, &l))
        };
        let switched = part(Kind::Switched);
        let switched_labels: Vec<bool> = switched.iter().map(|r| r.engine()).collect();
        let late_odds = repeated(&switched, a.seed, a.repeats, |r, seed| {
            Ok(late_odds_scores(r, a.folds, seed))
        })?;
        let weaker = part(Kind::WeakEngine);
        let weaker_matched = matched_auc(&weaker, &cv(&weaker)?);
        let engines = labels.iter().filter(|l| **l).count();
        // The positions of the common sides' games, once a game: the same at every
        // setting when the settings analysed the same positions.
        let games: BTreeMap<String, usize> = rows
            .iter()
            .map(|r| {
                let k = key(&s.origins, r);
                (s.origins[&r.game].clone(), s.positions[&k])
            })
            .collect();
        // An AUC without both classes is not a number: shown as "-".
        let show = |v: Option<f64>| {
            v.filter(|v| v.is_finite())
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"))
        };
        let _ = write!(
            out,
            "| {} | {} | {} / {} | {} | {} | {} | {} | {} | {} |",
            s.name,
            games.values().sum::<usize>(),
            engines,
            rows.len() - engines,
            show(Some(auc_scored(&combined, &labels))),
            show(Some(slice(Kind::TopEngine)?)),
            show(Some(slice(Kind::WeakEngine)?)),
            show(weaker_matched),
            show(Some(slice(Kind::Switched)?)),
            show(Some(auc_scored(&late_odds, &switched_labels))),
        );
        let _ = write!(matched, "| {} |", s.name);
        for c in COMPARED {
            let v: Vec<f64> = rows.iter().map(|r| oriented(r, c)).collect();
            let _ = write!(out, " {} |", show(Some(auc_scored(&v, &labels))));
            let w: Vec<f64> = weaker.iter().map(|r| oriented(r, c)).collect();
            let _ = write!(matched, " {} |", show(matched_auc(&weaker, &w)));
        }
        out.push('\n');
        matched.push('\n');
    }
    let _ = write!(
        out,
        "\nweaker engines against human sides rated within {MATCHED} points of the engine's tag (AUC over the matched pairs):\n\n"
    );
    header(&mut out, &["setting"]);
    out.push_str(&matched);
    print!("{out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::corpus::Split;
    use fairsight::{Side, fit::Signals};

    fn row(kind: Kind, elo: f64) -> Row {
        Row {
            game: format!("g{elo}"),
            player: String::new(),
            kind,
            side: Side::White,
            split: Split::Test,
            signals: Signals::none(),
            elo: Some(elo),
            own_tag: None,
            engine_moves: None,
            helper: None,
        }
    }

    #[test]
    fn the_late_odds_of_a_fold_are_read_against_a_table_of_the_other_folds() {
        // Switched sides whose later halves are all first-line moves, humans whose later
        // halves are mostly moves never among the lines: out of fold, every switched side
        // reads higher than every human, though no side's own moves were in its table.
        let first = LateOdds::cell(0.0, Some(1), true, 0);
        let never = LateOdds::cell(8.0, None, false, 0);
        let side = |kind: Kind, n: usize, cells: &[(usize, u32)]| {
            let mut r = row(kind, 2400.0);
            r.game = format!("{kind:?}{n}");
            r.player = format!("{kind:?}{n}");
            r.signals.late_cells = vec![0; LateOdds::CELLS];
            for (c, k) in cells {
                r.signals.late_cells[*c] = *k;
            }
            r
        };
        // One more switched side whose moves are all of a kind no other side played:
        // out of fold its cell is as rare for both (about 0); had its own moves been in
        // the table, the cell would read as an engine's (about 25 · ln 26 / 5 = 16).
        let odd = LateOdds::cell(30.0, None, true, 0);
        let rows: Vec<Row> = (0..20)
            .map(|n| side(Kind::Switched, n, &[(first, 25)]))
            .chain((0..20).map(|n| side(Kind::Human, n, &[(first, 10), (never, 15)])))
            .chain([side(Kind::Switched, 99, &[(odd, 25)])])
            .collect();
        let rows: Vec<&Row> = rows.iter().collect();
        let scores = late_odds_scores(&rows, 5, 1);
        let labels: Vec<bool> = rows.iter().map(|r| r.engine()).collect();
        assert!(scores.iter().all(|s| s.is_finite()), "{scores:?}");
        assert_eq!(auc_scored(&scores, &labels), 1.0);
        // A side's value is its moves' log odds over the square root of their count:
        // 25 first-line moves, each ln(engine share / human share) of the cell.
        assert!(scores[0] > 0.0 && scores[20] < 0.0, "{scores:?}");
        assert!(scores[40].abs() < 1.0, "{scores:?}");
        // Too few moves for a table: no score, not a table of noise.
        let few: Vec<Row> = (0..4)
            .map(|n| side(Kind::Switched, n, &[(first, 25)]))
            .chain((0..4).map(|n| side(Kind::Human, n, &[(never, 25)])))
            .collect();
        let few: Vec<&Row> = few.iter().collect();
        assert!(late_odds_scores(&few, 2, 1).iter().all(|s| s.is_nan()));
    }

    #[test]
    fn the_matched_auc_compares_only_sides_of_about_the_same_rating() {
        // Two weaker engines (1500, 2500) and three humans (1450, 2450, 2000). Only the
        // pairs within MATCHED points count: (1500, 1450) and (2500, 2450).
        let rows = [
            row(Kind::WeakEngine, 1500.0),
            row(Kind::WeakEngine, 2500.0),
            row(Kind::Human, 1450.0),
            row(Kind::Human, 2450.0),
            row(Kind::Human, 2000.0),
        ];
        let rows: Vec<&Row> = rows.iter().collect();
        // The engine at 1500 above its human, the one at 2500 below its human; the
        // human at 2000, whom no engine is matched with, above both.
        let scores = [0.6, 0.2, 0.5, 0.3, 0.9];
        assert_eq!(matched_auc(&rows, &scores), Some(0.5));
        // Ties count half; a side without a score is left out.
        assert_eq!(
            matched_auc(&rows, &[0.5, f64::NAN, 0.5, 0.0, 0.0]),
            Some(0.5)
        );
        // The plain AUC reads the unmatched human too.
        let labels: Vec<bool> = rows.iter().map(|r| r.engine()).collect();
        assert!(auc_scored(&scores, &labels) < 0.5);
        // No pair within reach: no number.
        let far = [row(Kind::WeakEngine, 1000.0), row(Kind::Human, 2000.0)];
        let far: Vec<&Row> = far.iter().collect();
        assert_eq!(matched_auc(&far, &[1.0, 0.0]), None);
    }
}
