//! Merging the reports of a batch's shards (`fairsight analyze --shard K/N`, one per
//! machine) into the report of the whole batch, as one run over all its games gives it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::rebuild;
use crate::{
    model::{assessment::AssessmentModel, classifier::Classifier},
    report::{Report, Shard},
    stats::calibration::Calibration,
};

/// Models given instead of the shipped ones, as `Analysis::set_classifier`,
/// `set_calibration` and `set_assessment` take them (each still applies only to its
/// engine build and settings).
#[derive(Debug, Clone, Default)]
pub struct ModelOverrides {
    /// The move classifier.
    pub classifier: Option<Classifier>,
    /// The rating calibration table.
    pub calibration: Option<Calibration>,
    /// The assessment model.
    pub assessment: Option<AssessmentModel>,
}

/// Why shard reports do not make one report (the message names the shards by the labels
/// given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MergeError {}

fn fail<T>(msg: String) -> Result<T, MergeError> {
    Err(MergeError(msg))
}

/// Numbers as a short list: "1, 4, 7" (the first ten, then "and N more").
fn list(items: &[usize]) -> String {
    let mut s: Vec<String> = items.iter().take(10).map(usize::to_string).collect();
    if items.len() > 10 {
        s.push(format!("and {} more", items.len() - 10));
    }
    s.join(", ")
}

/// The whole batch's report from its shards' reports, each with a label (its file name)
/// for the messages: the games in their input order, and the players, their statistics,
/// screening, assessments and verdicts rebuilt over all of them with the ratings the
/// shards were given and the models in `models` (or the shipped ones), exactly as
/// `Analysis::report` over the whole input gives them.
///
/// Refused: a report that is not a shard's; shards of other settings, engines, models,
/// inputs, ratings or shard counts; a shard or a game twice; a game missing.
pub fn merge_shards(
    shards: Vec<(String, Report)>,
    models: &ModelOverrides,
) -> Result<Report, MergeError> {
    let heads: Vec<(String, &Report)> = shards.iter().map(|(l, r)| (l.clone(), r)).collect();
    let spec = check_shard_heads(&heads, models)?;
    let mut seen: HashMap<usize, &str> = HashMap::new();
    for (label, r) in &shards {
        let s = r
            .shard
            .as_ref()
            .expect("invariant: checked by check_shard_heads");
        for g in &r.games {
            check_shard_game(label, s, g.index, g.line)?;
            if let Some(other) = seen.insert(g.index, label) {
                return fail(format!(
                    "game {} (line {}) is twice: in {other} and in {label}",
                    g.index + 1,
                    g.line
                ));
            }
        }
    }
    let lost: BTreeSet<usize> = (0..spec.games).filter(|g| !seen.contains_key(g)).collect();
    if let Some(g) = lost.first() {
        let label = shards
            .iter()
            .find(|(_, r)| {
                r.shard
                    .as_ref()
                    .is_some_and(|s| s.index == g % spec.count + 1)
            })
            .map_or("", |(l, _)| l.as_str());
        let games: Vec<usize> = lost.iter().map(|g| g + 1).collect();
        return fail(format!(
            "{label} lacks game(s) {} of its shard: an incomplete report",
            list(&games)
        ));
    }
    let resolved = models.resolve(&shards[0].1.settings, &shards[0].1.engine);
    let mut shards = shards;
    let mut merged = shards.swap_remove(0).1;
    for (_, r) in shards {
        merged.games.extend(r.games);
    }
    merged.games.sort_by_key(|g| g.index);
    merged.shard = None;
    Ok(rebuild(merged, &entered_ratings(&spec), &resolved))
}

/// The ratings the shards were given (`--rating`), by lower-case name, as a merge enters
/// them again.
pub fn entered_ratings(spec: &Shard) -> HashMap<String, f64> {
    spec.ratings
        .iter()
        .map(|(name, elo)| (name.to_lowercase(), *elo))
        .collect()
}

/// Whether game `index` (at input line `line`) belongs in shard `s` (the message names
/// the shard by `label`).
pub fn check_shard_game(label: &str, s: &Shard, index: usize, line: u32) -> Result<(), MergeError> {
    if index >= s.games || index % s.count != s.index - 1 {
        return fail(format!(
            "{label}: game {} (line {line}) is not in shard {}/{} of {} games",
            index + 1,
            s.index,
            s.count,
            s.games
        ));
    }
    Ok(())
}

/// Checks that the shards' reports, read for everything but their games and players
/// (each labelled, e.g. by its file name), are the N shards of one run, each once, made
/// with the models `models` resolves to; returns the first one's shard record (the
/// same in all but its `index`). What [`merge_shards`] checks before the games; a
/// streamed merge checks each game as it comes with [`check_shard_game`].
pub fn check_shard_heads(
    shards: &[(String, &Report)],
    models: &ModelOverrides,
) -> Result<Shard, MergeError> {
    let Some((first_label, first)) = shards.first() else {
        return fail("no shard reports to merge".into());
    };
    let Some(spec) = first.shard.clone() else {
        return fail(format!(
            "{first_label} is not a shard's report (made without --shard K/N)"
        ));
    };
    let mut by_shard: BTreeMap<usize, &str> = BTreeMap::new();
    for (label, r) in shards {
        let Some(s) = &r.shard else {
            return fail(format!(
                "{label} is not a shard's report (made without --shard K/N)"
            ));
        };
        let differs = |what: &str| {
            fail(format!(
                "{label} and {first_label} were made with other {what}: only shards of one \
                 run merge"
            ))
        };
        if r.schema != first.schema {
            return differs("report schemas");
        }
        if r.settings != first.settings {
            return differs("settings");
        }
        if r.engine != first.engine {
            return differs(&format!(
                "engines ({} {:?} and {} {:?})",
                r.engine.name, r.engine.build, first.engine.name, first.engine.build
            ));
        }
        if (
            &r.calibration,
            &r.classifier,
            &r.classifier_baseline,
            &r.assessment,
        ) != (
            &first.calibration,
            &first.classifier,
            &first.classifier_baseline,
            &first.assessment,
        ) {
            return differs("models (calibration, move classifier or assessment)");
        }
        if s.count != spec.count {
            return differs(&format!(
                "shard counts ({}/{} and {}/{})",
                s.index, s.count, spec.index, spec.count
            ));
        }
        if s.sources != spec.sources || s.games != spec.games {
            let names = |s: &crate::report::Shard| {
                s.sources
                    .iter()
                    .map(|f| format!("{} ({} bytes, {})", f.name, f.bytes, f.fnv1a))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return differs(&format!("input files ({} and {})", names(s), names(&spec)));
        }
        if s.ratings != spec.ratings {
            return differs("ratings (--rating)");
        }
        if s.index == 0 || s.index > s.count {
            return fail(format!(
                "{label}: shard {}/{} is not a shard",
                s.index, s.count
            ));
        }
        if let Some(other) = by_shard.insert(s.index, label) {
            return fail(format!(
                "{other} and {label} are both shard {}/{}: each shard once",
                s.index, s.count
            ));
        }
    }
    let absent: Vec<usize> = (1..=spec.count)
        .filter(|k| !by_shard.contains_key(k))
        .collect();
    if !absent.is_empty() {
        let games: Vec<usize> = (0..spec.games)
            .filter(|g| absent.contains(&(g % spec.count + 1)))
            .map(|g| g + 1)
            .collect();
        let shards: Vec<String> = absent
            .iter()
            .map(|k| format!("{k}/{}", spec.count))
            .collect();
        return fail(format!(
            "shard {} missing ({} game(s): {})",
            shards.join(", "),
            games.len(),
            list(&games)
        ));
    }
    let resolved = models.resolve(&first.settings, &first.engine);
    let shown = |s: &Option<String>| s.as_deref().unwrap_or("none").to_owned();
    let here = resolved.classifier.map(|c| c.name.clone());
    if here != first.classifier {
        return fail(format!(
            "the shards used the move classifier {}, this merge {}: give merge the same \
             --model as analyze",
            shown(&first.classifier),
            shown(&here)
        ));
    }
    let here = resolved
        .calibration
        .map(|c| format!("{} (engine {})", c.source, c.engine.build));
    if here != first.calibration {
        return fail(format!(
            "the shards used the calibration {}, this merge {}: give merge the same \
             --calibration as analyze",
            shown(&first.calibration),
            shown(&here)
        ));
    }
    let here = resolved.assessment.map(|m| m.name.clone());
    if here != first.assessment {
        return fail(format!(
            "the shards used the assessment model {}, this merge {}: give merge the same \
             --assessment as analyze",
            shown(&first.assessment),
            shown(&here)
        ));
    }

    Ok(spec)
}
