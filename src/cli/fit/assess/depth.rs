//! `fairsight assess depth`: how deep must the judge be? The same games (the depth
//! study's slice, `scripts/depth-slice.py`) analysed at several settings, each into its
//! own corpus folder (`corpus/depth/d14`, `d18`, `full14`), compared side by side: per
//! game side, the ROC AUC of engine against human play of each absolute signal and of a
//! cross-validated logistic combination of them, overall and for top and weaker engines.
//!
//! Only signals that need no model fitted at one setting are compared (the move
//! classifier and Regan's rating calibration apply only to the settings they were fitted
//! at), and only the game sides present in every folder, so a difference between two
//! rows is the setting's, not the data's. What a setting costs is measured apart, side
//! by side in one run (`fairsight bench --compare depth=18 --compare engine=CMD`).

use std::{
    collections::BTreeSet,
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{Result, bail};
use clap::Args;
use fairsight::{Limit, fit::model_value};

use super::{Kind, Row, auc_scored, fit_model, folds, rows};
use crate::cli::corpus::{Record, load_records};

/// The signals compared: none needs a model fitted at the defaults.
const COMPARED: [&str; 6] = [
    "acpl",
    "accuracy",
    "matchRate",
    "competence",
    "lateLoss",
    "lateMatch",
];
/// The combination's inputs (`accuracy` is a twin of `acpl`).
const COMBINED: [&str; 5] = ["acpl", "matchRate", "competence", "lateLoss", "lateMatch"];
/// Signals where lower is more engine-like.
const LOWER_IS_ENGINE: [&str; 2] = ["acpl", "lateLoss"];

#[derive(Args)]
pub struct DepthArgs {
    /// A corpus folder of the slice at one setting (repeat: the first is the reference).
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// Cross-validation folds of the combination (grouped by game).
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Seed of the folds.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
}

/// One setting's folder: its words, positions and scored sides.
struct Setting {
    name: String,
    positions: usize,
    rows: Vec<Row>,
}

fn setting(folder: &Path) -> Result<Setting> {
    let records: Vec<Record> = load_records(folder, &[], None, None)?;
    let Some(first) = records.first() else {
        bail!("{}: no analysed games", folder.display());
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
    Ok(Setting {
        name,
        positions: records.iter().map(|r| r.positions.len()).sum(),
        rows: rows(folder, None)?,
    })
}

/// A row's key across the settings: the game (the same source and number in each folder)
/// and the side.
fn key(r: &Row) -> String {
    format!("{}#{}", r.game, r.player)
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

pub fn depth(a: DepthArgs) -> Result<()> {
    let settings = a
        .corpus
        .iter()
        .map(|c| setting(c))
        .collect::<Result<Vec<_>>>()?;
    // The sides every setting has.
    let mut common: Option<BTreeSet<String>> = None;
    for s in &settings {
        let keys: BTreeSet<String> = s
            .rows
            .iter()
            .filter(|r| COMPARED.iter().all(|c| r.signals.get(c).is_some()))
            .map(key)
            .collect();
        common = Some(match common {
            None => keys,
            Some(c) => c.intersection(&keys).cloned().collect(),
        });
    }
    let common = common.unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "depth study: the same {} game sides at each setting (per side ROC AUC, engine against human; combined = logistic regression of {}, {}-fold cross-validated by game, fitted on all engines and, for each slice, on that kind alone)\n",
        common.len(),
        COMBINED.join(", "),
        a.folds
    );
    let _ = write!(
        out,
        "| setting | positions | sides (engine / human) | combined | top engines vs humans | weaker engines vs humans |"
    );
    for s in COMPARED {
        let _ = write!(out, " {s} |");
    }
    out.push('\n');
    out.push_str(&"|---".repeat(6 + COMPARED.len()));
    out.push_str("|\n");
    for s in &settings {
        let rows: Vec<&Row> = s.rows.iter().filter(|r| common.contains(&key(r))).collect();
        let labels: Vec<bool> = rows.iter().map(|r| r.engine()).collect();
        let combined = combined_scores(&rows, a.folds, a.seed)?;
        // Each kind against the humans with its own cross-validated fit (one fit of both
        // kinds at once learns a compromise that suits neither).
        let slice = |kind: Kind| -> Result<f64> {
            let part: Vec<&Row> = rows
                .iter()
                .copied()
                .filter(|r| r.kind == kind || r.kind == Kind::Human)
                .collect();
            let l: Vec<bool> = part.iter().map(|r| r.engine()).collect();
            Ok(auc_scored(&combined_scores(&part, a.folds, a.seed)?, &l))
        };
        let engines = labels.iter().filter(|l| **l).count();
        let _ = write!(
            out,
            "| {} | {} | {} / {} | {:.3} | {:.3} | {:.3} |",
            s.name,
            s.positions,
            engines,
            rows.len() - engines,
            auc_scored(&combined, &labels),
            slice(Kind::TopEngine)?,
            slice(Kind::WeakEngine)?,
        );
        for c in COMPARED {
            let v: Vec<f64> = rows.iter().map(|r| oriented(r, c)).collect();
            let _ = write!(out, " {:.3} |", auc_scored(&v, &labels));
        }
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}
