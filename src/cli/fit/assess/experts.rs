//! `fairsight assess fit`: the experts of each kind of input fitted on the train split,
//! cross-validated with folds grouped by game and by player, balanced in the largest z,
//! and the leakage check.

use super::*;

/// Fits a model of `kind` ("logistic" or "forest") on rows (inputs already filled).
pub(super) fn fit_model(
    kind: &str,
    x: &[Vec<f64>],
    y: &[u32],
    trees: u16,
    seed: u64,
) -> Result<Model> {
    Ok(match kind {
        "forest" => Model::forest(forest_model(x, y, trees, seed)?),
        _ => {
            // A light L2 penalty: the z-scores are strongly correlated and the classes
            // nearly separable, where an unpenalised fit wanders.
            let (sc, weights, bias) = logistic_l2(x, y, 1.0)?;
            let Scaler { mean, scale } = sc;
            Model::Logistic {
                mean,
                scale,
                weights,
                bias,
            }
        }
    })
}

/// A signal left out of every expert (`None`) or of one kind's.
pub(super) type LeaveOut = (Option<Kind>, String);

/// `--leave-out`'s entries: `SIGNAL` or `KIND:SIGNAL`.
pub(super) fn leave_out(entries: &[String]) -> Result<Vec<LeaveOut>> {
    entries
        .iter()
        .map(|e| {
            let (kind, signal) = match e.split_once(':') {
                None => (None, e.as_str()),
                Some((k, s)) => match expert_kind(k) {
                    Ok(kind) => (Some(kind), s),
                    Err(why) => bail!("--leave-out {e}: {why}"),
                },
            };
            if !SIGNALS.contains(&signal) {
                bail!(
                    "--leave-out {e}: no such signal {signal:?} (the signals: {})",
                    SIGNALS.join(", ")
                );
            }
            Ok((kind, signal.to_owned()))
        })
        .collect()
}

pub(super) fn fit(a: FitArgs) -> Result<()> {
    let left_out = leave_out(&a.leave_out)?;
    let logistic = a
        .logistic
        .iter()
        .map(|k| expert_kind(k).map_err(|why| anyhow::anyhow!("--logistic {k}: {why}")))
        .collect::<Result<Vec<Kind>>>()?;
    let mut all = rows(&a.corpus, a.classifier_oof.as_deref())?;
    let mut late_reference = fit_late_reference(&all);
    match &mut late_reference {
        Some(r) => {
            with_late_reference(&mut all, r);
            if a.rating_bias {
                let bias = fit_rating_bias(&all);
                eprint!("fairsight: {}", rating_bias_words(&bias));
                r.bias = Some(bias);
                with_late_reference(&mut all, r);
            }
            if !a.no_player_effects {
                // A side's z-scores are as they were (one game): nothing to apply again.
                r.player_effects = fit_player_effects(&all);
                eprint!("fairsight: {}", player_effects_words(&r.player_effects));
            }
            eprintln!(
                "fairsight: the later half at a rating (clean human train sides): log(1 + lateLoss) = {:.3} {:+.5} x rating (sd {:.3}), lateMatch = {:.3} {:+.5} x rating (sd {:.3})",
                r.loss.intercept,
                r.loss.slope,
                r.loss.sd,
                r.match_rate.intercept,
                r.match_rate.slope,
                r.match_rate.sd
            );
            print_move_odds(r);
        }
        None => eprintln!("fairsight: too few rated clean human sides for zLateLoss, zLateMatch"),
    }
    let count = |split: Split, engine: bool| {
        all.iter()
            .filter(|r| r.split == split && r.engine() == engine)
            .count()
    };
    eprintln!(
        "fairsight: game sides: train {} engine-assisted / {} human, validation {} / {}, test {} / {}",
        count(Split::Train, true),
        count(Split::Train, false),
        count(Split::Validation, true),
        count(Split::Validation, false),
        count(Split::Test, true),
        count(Split::Test, false)
    );
    let (variants, ranges, mut card) = fit_variants(
        &all,
        a.folds,
        a.trees,
        a.seed,
        a.min_expert_auc,
        a.sign_consistent,
        &left_out,
        &logistic,
        a.balance_experts,
    )?;
    if let Some(bias) = late_reference.as_ref().and_then(|r| r.bias.as_ref()) {
        card.push('\n');
        card.push_str(&rating_bias_words(bias));
    }
    if let Some(r) = late_reference
        .as_ref()
        .filter(|r| !r.player_effects.is_empty())
    {
        card.push('\n');
        card.push_str(&player_effects_words(&r.player_effects));
    }
    let (leak, bins) = leakage(&all, a.folds, a.seed)?;
    card.push_str(&format!(
        "\nleakage check: train labels shuffled within bins of analysed moves and rating: CV AUC {leak:.3}; the bins alone {bins:.3}\n"
    ));
    if variants.iter().all(|v| v.rated || v.clocks) {
        bail!("no model for unrated input without clocks: the corpus is too small");
    }
    let report_settings = first_record_settings(&a.corpus)?.context("empty corpus")?;
    let manifest = Manifest::load(&a.corpus)?;
    let mut model = AssessmentModel {
        name: a.name.clone().unwrap_or_else(|| {
            "fairsight assessment (signals of a game side or player, one model per kind of input)"
                .into()
        }),
        source: format!(
            "{}/ ({} games: {})",
            a.corpus.display(),
            manifest.games.len(),
            manifest
                .sources
                .iter()
                .map(|(k, s)| format!("{k} {}", s.games))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        engine: report_settings.1,
        settings: report_settings.0,
        variants,
        ranges,
        late_reference,
        side_look_closer_rate: Some(SIDE_RATE),
    };
    card.push('\n');
    let validation = Rebuilt::new(
        load_records(&a.corpus, &[], None, Some(Split::Validation))?,
        None,
    )?;
    let unscaled = model.clone();
    card.push_str(&set_player_calibration(
        &[(&validation, &unscaled)],
        &mut model,
        &PLAYER_GAMES[..1],
        MIN_PLAYER_SCALE,
        |_| true,
    )?);
    let reader = model.clone();
    card.push_str(&set_player_thresholds(
        &[(&validation, &reader)],
        "the validation split",
        false,
        false,
        false,
        (false, false),
        &mut model,
    )?);
    std::fs::write(&a.out, model.to_json() + "\n")
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    print!("{card}");
    eprintln!("fairsight: wrote {}", a.out.display());
    Ok(())
}

/// The kinds of assistance an expert is fitted for, in model order.
pub(super) const EXPERT_KINDS: [Kind; 3] = [Kind::TopEngine, Kind::WeakEngine, Kind::Switched];

/// Fewest out-of-fold AUC for an expert to be kept: one that can hardly tell its kind
/// from clean humans would raise clean humans about as often as its kind, and the
/// largest z of all experts would then rise for everyone. The weaker-engine expert,
/// at 0.74-0.76, did exactly that to strong humans: kept, it cost the top engines more
/// than it gained the weaker ones (models/README.md, "The later half, decided positions
/// included").
pub(super) const MIN_EXPERT_AUC: f64 = 0.80;

/// The words for a kind of assistance.
pub(super) fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Human => "clean humans",
        Kind::TopEngine => "top engines",
        Kind::WeakEngine => "weaker engines",
        Kind::Switched => "switched",
    }
}

/// A row's identity within one fit (the rows live in one vector throughout).
pub(super) fn row_key(r: &Row) -> usize {
    r as *const Row as usize
}

/// An expert with what its fit measured.
pub(super) struct FittedExpert {
    pub(super) expert: Expert,
    /// Its out-of-fold z of every train row it can read, by [`row_key`].
    pub(super) oof_z: HashMap<usize, f64>,
    /// Out-of-fold AUC of its kind against clean humans.
    pub(super) cv_auc: f64,
    /// "logistic" or "forest".
    pub(super) model_kind: &'static str,
    /// Train sides of its kind.
    pub(super) positives: usize,
    /// The variant's signals it was offered and left out for the sign of their weight
    /// (`--sign-consistent`, [`sign_consistent_columns`]).
    pub(super) dropped: Vec<String>,
}

/// The columns of `x` (signals `features`) an expert keeps so that its logistic weights,
/// fitted on the rows marked `mine`, all point the way [`engine_direction`] says: the fit
/// is repeated without the signal whose weight points the other way most strongly until
/// none does. Collinear signals (a match rate beside its z-score, the whole game's loss
/// beside its later half's) otherwise take opposite signs, and a reason would call an
/// engine-like value human ("− top-move match 70%"). On the train split's grouped 5-fold
/// CV it cost little (top engines 0.985 → 0.982 rated), on the test split more (top
/// engines against humans rated 2400+ 0.983 → 0.969): the contrast between twins is
/// evidence. So it is a study (`assess fit --sign-consistent`), and the shipped model's
/// reasons leave out such corrections instead (`Assessment::reasons`). Returns the
/// kept columns and the names left out.
pub(super) fn sign_consistent_columns(
    features: &[String],
    x: &[Vec<f64>],
    y: &[u32],
    mine: &[bool],
) -> Result<(Vec<usize>, Vec<String>)> {
    let mut kept: Vec<usize> = (0..features.len()).collect();
    let mut dropped = Vec::new();
    while kept.len() > 1 {
        let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = (0..x.len())
            .filter(|&i| mine[i])
            .map(|i| (kept.iter().map(|&j| x[i][j]).collect(), y[i]))
            .unzip();
        let (_, weights, _) = logistic_l2(&tx, &ty, 1.0)?;
        let worst = kept
            .iter()
            .zip(&weights)
            .filter_map(|(&j, &w)| {
                let d = engine_direction(&features[j])?;
                (w * d < 0.0).then_some((j, w.abs()))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((j, _)) = worst else { break };
        kept.retain(|&k| k != j);
        dropped.push(features[j].clone());
    }
    Ok((kept, dropped))
}

/// One expert: clean human sides against the sides of `kind`, on the train rows a
/// variant (`rated`, `clocks`) can read. Logistic regression and a random forest are
/// cross-validated with folds grouped by game and player over all those rows (each
/// fold's model also scores the held-out rows of the other kinds, so every row gets an
/// out-of-fold score); the forest is kept only if clearly better. The human scale is the
/// mean and standard deviation of the clean human sides' out-of-fold logits. `None` with
/// fewer than 10 sides of the kind or of clean humans.
#[allow(clippy::too_many_arguments)]
pub(super) fn fit_expert(
    all: &[Row],
    rated: bool,
    clocks: bool,
    kind: Kind,
    features: Vec<String>,
    fill: &[f64],
    n_folds: usize,
    trees: u16,
    seed: u64,
    sign_consistent: bool,
    forest_allowed: bool,
) -> Result<Option<FittedExpert>> {
    let rows: Vec<&Row> = all
        .iter()
        .filter(|r| r.split == Split::Train && usable(r, rated, clocks))
        .collect();
    let positives = rows.iter().filter(|r| r.kind == kind).count();
    let humans = rows.iter().filter(|r| r.kind == Kind::Human).count();
    if positives < 10 || humans < 10 {
        return Ok(None);
    }
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            features
                .iter()
                .zip(fill)
                .map(|(f, m)| model_value(f, r.signals.get(f).unwrap_or(*m)))
                .collect()
        })
        .collect();
    // Its own rows: clean humans and its kind.
    let mine: Vec<bool> = rows
        .iter()
        .map(|r| r.kind == Kind::Human || r.kind == kind)
        .collect();
    let y: Vec<u32> = rows.iter().map(|r| u32::from(r.kind == kind)).collect();
    let (kept, dropped) = if sign_consistent {
        sign_consistent_columns(&features, &x, &y, &mine)?
    } else {
        ((0..features.len()).collect(), Vec::new())
    };
    let features: Vec<String> = kept.iter().map(|&j| features[j].clone()).collect();
    let x: Vec<Vec<f64>> = x
        .iter()
        .map(|r| kept.iter().map(|&j| r[j]).collect())
        .collect();
    let fold = folds(&rows, n_folds, seed);
    let mut cv = BTreeMap::new();
    let mut oof_of = BTreeMap::new();
    for model_kind in ["logistic", "forest"] {
        let mut oof = vec![f64::NAN; rows.len()];
        for f in 0..n_folds.max(2) {
            let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = (0..rows.len())
                .filter(|&i| fold[i] != f && mine[i])
                .map(|i| (x[i].clone(), y[i]))
                .unzip();
            if ty.is_empty() || ty.iter().all(|v| *v == ty[0]) {
                continue;
            }
            let m = fit_model(model_kind, &tx, &ty, trees, seed)?;
            for i in (0..rows.len()).filter(|&i| fold[i] == f) {
                oof[i] = m.probability(&x[i]);
            }
        }
        let (scores, labels): (Vec<f64>, Vec<bool>) = (0..rows.len())
            .filter(|&i| mine[i])
            .map(|i| (oof[i], y[i] == 1))
            .unzip();
        cv.insert(model_kind, auc_scored(&scores, &labels));
        oof_of.insert(model_kind, oof);
    }
    // The forest must beat logistic regression clearly: the logistic model's reasons
    // and monotone response are easier to trust.
    let model_kind = if forest_allowed && cv["forest"] > cv["logistic"] + 0.01 {
        "forest"
    } else {
        "logistic"
    };
    let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = (0..rows.len())
        .filter(|&i| mine[i])
        .map(|i| (x[i].clone(), y[i]))
        .unzip();
    let model = fit_model(model_kind, &tx, &ty, trees, seed)?;
    let logit = |p: f64| {
        let p = p.clamp(1e-6, 1.0 - 1e-6);
        (p / (1.0 - p)).ln()
    };
    let oof = &oof_of[model_kind];
    let human: Vec<f64> = rows
        .iter()
        .zip(oof)
        .filter(|(r, s)| r.kind == Kind::Human && !s.is_nan())
        .map(|(_, s)| logit(*s))
        .collect();
    // The scale of the upper half, where false positives come from: median to 95th
    // percentile, as a normal distribution's 1.645 standard deviations. Weak humans'
    // scores trail far below and would inflate a plain standard deviation, squeezing
    // every engine's z toward the humans'.
    let human = sorted(human);
    let mean = percentile(&human, 0.5);
    let sd = ((percentile(&human, 0.95) - mean) / 1.645).max(1e-6);
    let oof_z = rows
        .iter()
        .zip(oof)
        .filter(|(_, s)| !s.is_nan())
        .map(|(r, s)| (row_key(r), (logit(*s) - mean) / sd))
        .collect();
    Ok(Some(FittedExpert {
        expert: Expert {
            kind: kind_name(kind).into(),
            features,
            model,
            human: (mean, sd),
            human_clocks: None,
            player: None,
        },
        oof_z,
        cv_auc: cv[model_kind],
        model_kind,
        positives,
        dropped,
    }))
}

/// The combined score of `rows` rows out of fold: the sigmoid of the largest of the
/// experts' z-scores `oof_z` (by expert, then row; NaN where none has one).
pub(super) fn combined_oof(oof_z: &[Vec<f64>], rows: usize) -> Vec<f64> {
    let identity = vec![(0.0, 1.0); oof_z.len()];
    (0..rows)
        .map(|i| 1.0 / (1.0 + (-largest_z(oof_z, &identity, i)).exp()))
        .collect()
}

/// The largest of the experts' z-scores `oof_z` (by expert, then row) of row `i`, each
/// read as `(z − offset) / scale` by its `weights`; NaN where none has one.
pub(super) fn largest_z(oof_z: &[Vec<f64>], weights: &[(f64, f64)], i: usize) -> f64 {
    let z = oof_z
        .iter()
        .zip(weights)
        .map(|(z, (c, s))| (z[i] - c) / s)
        .filter(|z| !z.is_nan())
        .fold(f64::NEG_INFINITY, f64::max);
    if z.is_finite() { z } else { f64::NAN }
}

/// The offsets and scales [`balance_experts`] tries for an expert's z.
pub(super) const BALANCE_OFFSETS: [f64; 9] = [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0];
pub(super) const BALANCE_SCALES: [f64; 8] = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2];

/// How [`balance_experts`] weighs a variant's experts: each expert's `(offset, scale)`,
/// and each kind's AUC against clean humans before and after.
pub(super) struct Balance {
    pub(super) weights: Vec<(f64, f64)>,
    pub(super) before: Vec<f64>,
    pub(super) after: Vec<f64>,
}

/// Weighs a variant's experts against each other in the largest z: each z read as
/// `(z − offset) / scale`, the top engines' expert (else the first) as it is, the others'
/// offsets and scales chosen from a grid ([`BALANCE_OFFSETS`], [`BALANCE_SCALES`]) on
/// the train split's out-of-fold z-scores `oof_z` (by expert, then row of `rows`): the
/// best mean AUC of the other kinds' sides against the clean human sides (weaker engines
/// of 2600 or less, as the evaluation's slice), among the weights that keep the top
/// engines' AUC against clean humans rated 2400+ (all of them, when fewer than 10 are
/// rated so) as it is. The expert z-scores share a scale by the clean humans' upper tail
/// alone, which says nothing of how far each kind's sides lie beyond it; the largest z
/// then weighs the kinds by that accident. Ties keep the weights nearer the identity
/// (tried first).
pub(super) fn balance_experts(kinds: &[Kind], oof_z: &[Vec<f64>], rows: &[&Row]) -> Balance {
    let reference = kinds
        .iter()
        .position(|k| *k == Kind::TopEngine)
        .unwrap_or(0);
    let human = |r: &Row| r.kind == Kind::Human;
    let strong: Vec<usize> = (0..rows.len())
        .filter(|&i| human(rows[i]) && rows[i].elo.is_some_and(|e| e >= 2400.0))
        .collect();
    // Each kind's sides: its own (positive) and the clean humans it is told from.
    let sets: Vec<(Vec<usize>, Vec<bool>)> = kinds
        .iter()
        .map(|&k| {
            let of_kind = |r: &Row| {
                r.kind == k && (k != Kind::WeakEngine || r.elo.is_none_or(|e| e <= 2600.0))
            };
            let against_strong = k == Kind::TopEngine && strong.len() >= 10;
            (0..rows.len())
                .filter(|&i| {
                    of_kind(rows[i])
                        || (human(rows[i]) && (!against_strong || strong.binary_search(&i).is_ok()))
                })
                .map(|i| (i, of_kind(rows[i])))
                .unzip()
        })
        .collect();
    let aucs = |weights: &[(f64, f64)]| -> Vec<f64> {
        let score: Vec<f64> = (0..rows.len())
            .map(|i| largest_z(oof_z, weights, i))
            .collect();
        sets.iter()
            .map(|(idx, labels)| {
                let s: Vec<f64> = idx.iter().map(|&i| score[i]).collect();
                auc_scored(&s, labels)
            })
            .collect()
    };
    let objective = |a: &[f64]| {
        let others: Vec<f64> = (0..a.len())
            .filter(|&k| k != reference && !a[k].is_nan())
            .map(|k| a[k])
            .collect();
        others.iter().sum::<f64>() / others.len().max(1) as f64
    };
    let identity = vec![(0.0, 1.0); kinds.len()];
    let before = aucs(&identity);
    let mut best = (objective(&before), identity, before.clone());
    // Every combination of the grid for the experts but the reference.
    let grid: Vec<(f64, f64)> = [(0.0, 1.0)]
        .into_iter()
        .chain(
            BALANCE_OFFSETS
                .iter()
                .flat_map(|&c| BALANCE_SCALES.iter().map(move |&s| (c, s))),
        )
        .collect();
    let free: Vec<usize> = (0..kinds.len()).filter(|&k| k != reference).collect();
    let mut pick = vec![0usize; free.len()];
    loop {
        let mut weights = vec![(0.0, 1.0); kinds.len()];
        for (f, &g) in free.iter().zip(&pick) {
            weights[*f] = grid[g];
        }
        let a = aucs(&weights);
        let o = objective(&a);
        if a[reference] >= before[reference] && o > best.0 + 1e-9 {
            best = (o, weights, a);
        }
        // The next combination, as an odometer.
        let mut i = 0;
        while i < pick.len() {
            pick[i] += 1;
            if pick[i] < grid.len() {
                break;
            }
            pick[i] = 0;
            i += 1;
        }
        if i == pick.len() {
            break;
        }
    }
    Balance {
        weights: best.1,
        before,
        after: best.2,
    }
}

/// The variants, the clean human ranges and the model card's table, from rows.
#[allow(clippy::too_many_arguments)]
pub(super) fn fit_variants(
    all: &[Row],
    n_folds: usize,
    trees: u16,
    seed: u64,
    min_expert_auc: f64,
    sign_consistent: bool,
    leave_out: &[LeaveOut],
    logistic: &[Kind],
    balance: bool,
) -> Result<(Vec<AssessmentVariant>, Vec<HumanRange>, String)> {
    let train_humans: Vec<&Row> = all
        .iter()
        .filter(|r| r.split == Split::Train && !r.engine())
        .collect();
    if train_humans.len() < 20 {
        bail!(
            "too few human game sides in the train split ({})",
            train_humans.len()
        );
    }
    // Clean human ranges per signal: all sides, and per band of the side's own rating.
    const BANDS: [(u32, u32); 4] = [(0, 1600), (1600, 2000), (2000, 2400), (2400, 4000)];
    let mut ranges = Vec::new();
    for (i, name) in SIGNALS.iter().enumerate() {
        let mut push = |lo: u32, hi: u32, rows: Vec<&&Row>| {
            let v = sorted(rows.iter().filter_map(|r| r.signals.values[i]).collect());
            if v.len() >= 10 {
                ranges.push(HumanRange {
                    signal: name.to_string(),
                    lo,
                    hi,
                    p5: percentile(&v, 0.05),
                    median: percentile(&v, 0.5),
                    p95: percentile(&v, 0.95),
                    sides: v.len(),
                });
            }
        };
        push(0, 0, train_humans.iter().collect());
        for (lo, hi) in BANDS {
            push(
                lo,
                hi,
                train_humans
                    .iter()
                    .filter(|r| {
                        r.signals
                            .rating
                            .is_some_and(|e| e >= f64::from(lo) && e < f64::from(hi))
                    })
                    .collect(),
            );
        }
    }
    let median_of = |name: &str| {
        ranges
            .iter()
            .find(|h| h.signal == name && h.hi == 0)
            .map_or(0.0, |h| h.median)
    };

    let mut variants = Vec::new();
    // Experts by (rated, clocks, kind), shared by the variants that read the same rows.
    let mut fitted: HashMap<(bool, bool, Kind), Option<FittedExpert>> = HashMap::new();
    // Out-of-fold scores of each kept variant, by row.
    let mut oof_by_variant: HashMap<(bool, bool), HashMap<usize, f64>> = HashMap::new();
    let mut reliability = Vec::new();
    let mut balances = Vec::new();
    let mut card = String::new();
    let _ = writeln!(
        card,
        "| input | train sides (assisted / human) | experts: CV AUC against clean humans (model, sides of the kind) | CV AUC combined | validation AUC | unclear from | look closer from |\n|---|---|---|---|---|---|---|"
    );
    for (rated, clocks) in [(false, false), (true, false), (false, true), (true, true)] {
        // Signals no clean human side of the train split has are left out (Regan's
        // z-scores at settings the rating calibration does not cover: the quick screen's).
        let features: Vec<String> = variant_features(rated, clocks)
            .into_iter()
            .filter(|f| ranges.iter().any(|h| h.signal == *f && h.hi == 0))
            .filter(|f| !leave_out.iter().any(|(k, s)| k.is_none() && s == f))
            .collect();
        let fill: Vec<f64> = features.iter().map(|f| median_of(f)).collect();
        let input = |r: &Row| -> Vec<f64> {
            features
                .iter()
                .zip(&fill)
                .map(|(f, m)| model_value(f, r.signals.get(f).unwrap_or(*m)))
                .collect()
        };
        let train: Vec<&Row> = all
            .iter()
            .filter(|r| r.split == Split::Train && usable(r, rated, clocks))
            .collect();
        let pos = train.iter().filter(|r| r.engine()).count();
        let neg = train.len() - pos;
        let basis = format!(
            "{}, {}",
            if rated { "rated" } else { "unrated" },
            if clocks { "clocks" } else { "no clocks" }
        );
        if pos < 10 || neg < 10 {
            eprintln!("fairsight: {basis}: too few sides ({pos} assisted, {neg} human): no model");
            continue;
        }
        let labels: Vec<bool> = train.iter().map(|r| r.engine()).collect();
        // The experts: one per kind of assistance with enough sides, each fitted (or
        // taken from the cache) on the rows it can read.
        let mut experts = Vec::new();
        let mut expert_kinds = Vec::new();
        let mut expert_cells = Vec::new();
        let mut oof_z: Vec<Vec<f64>> = Vec::new();
        for kind in EXPERT_KINDS {
            // Only switched sides have clocks (engine games' are left out): the other
            // experts read the variant's signals but the clock ones.
            let eclocks = clocks && kind == Kind::Switched;
            let key = (rated, eclocks, kind);
            let e = match fitted.entry(key) {
                std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    let efeatures: Vec<String> = features
                        .iter()
                        .filter(|f| eclocks || !CLOCK_SIGNALS.contains(&f.as_str()))
                        .filter(|f| !leave_out.iter().any(|(k, s)| *k == Some(kind) && s == *f))
                        .filter(|f| {
                            !(rated
                                && kind == Kind::WeakEngine
                                && ABSOLUTE_STRENGTH.contains(&f.as_str()))
                        })
                        .cloned()
                        .collect();
                    let efill: Vec<f64> = efeatures.iter().map(|f| median_of(f)).collect();
                    // For a player's pooled games, which have none of the signals read
                    // for game sides only: the same kind fitted without them.
                    let pfeatures: Vec<String> = efeatures
                        .iter()
                        .filter(|f| !GAME_SIDE_ONLY.contains(&f.as_str()))
                        .cloned()
                        .collect();
                    let player = if pfeatures.len() < efeatures.len() {
                        let pfill: Vec<f64> = pfeatures.iter().map(|f| median_of(f)).collect();
                        fit_expert(
                            all,
                            rated,
                            eclocks,
                            kind,
                            pfeatures,
                            &pfill,
                            n_folds,
                            trees,
                            seed,
                            sign_consistent,
                            !logistic.contains(&kind),
                        )?
                    } else {
                        None
                    };
                    let mut e = fit_expert(
                        all,
                        rated,
                        eclocks,
                        kind,
                        efeatures,
                        &efill,
                        n_folds,
                        trees,
                        seed,
                        sign_consistent,
                        !logistic.contains(&kind),
                    )?;
                    if let (Some(e), Some(p)) = (e.as_mut(), player) {
                        e.expert.player = Some(Box::new(p.expert));
                    }
                    v.insert(e)
                }
            };
            let Some(e) = e.as_ref() else { continue };
            if e.cv_auc < min_expert_auc {
                expert_cells.push(format!(
                    "{} {:.3} (left out: under {min_expert_auc})",
                    e.expert.kind, e.cv_auc
                ));
                continue;
            }
            let dropped = if e.dropped.is_empty() {
                String::new()
            } else {
                format!("; without {} (sign)", e.dropped.join(", "))
            };
            expert_cells.push(format!(
                "{} {:.3} ({}, {} sides{dropped})",
                e.expert.kind, e.cv_auc, e.model_kind, e.positives
            ));
            oof_z.push(
                train
                    .iter()
                    .map(|r| e.oof_z.get(&row_key(r)).copied().unwrap_or(f64::NAN))
                    .collect(),
            );
            experts.push(e.expert.clone());
            expert_kinds.push(kind);
        }
        if experts.is_empty() {
            eprintln!("fairsight: {basis}: no kind of assistance with enough sides: no model");
            continue;
        }
        // The combined score out of fold: the sigmoid of the largest expert z.
        let oof = combined_oof(&oof_z, train.len());
        let cv_auc = auc_scored(&oof, &labels);
        // A richer input must earn its place: out of fold, on the same sides, at least as
        // good as the model those sides would get without it (the one `variant()` falls
        // back to among those kept); else they get that one.
        let fallback = [(rated, false), (false, clocks), (false, false)]
            .into_iter()
            .filter(|v| *v != (rated, clocks))
            .find(|v| oof_by_variant.contains_key(v));
        if let Some(fb) = fallback {
            let same: Vec<f64> = train
                .iter()
                .map(|r| {
                    oof_by_variant[&fb]
                        .get(&row_key(r))
                        .copied()
                        .unwrap_or(f64::NAN)
                })
                .collect();
            let theirs = auc_scored(&same, &labels);
            if theirs > cv_auc {
                let _ = writeln!(
                    card,
                    "| {basis} | {pos} / {neg} | {} | {cv_auc:.3} | none: on these sides the {}, {} model does better ({theirs:.3}) | | |",
                    expert_cells.join("; "),
                    if fb.0 { "rated" } else { "unrated" },
                    if fb.1 { "clocks" } else { "no clocks" }
                );
                continue;
            }
        }
        oof_by_variant.insert(
            (rated, clocks),
            train
                .iter()
                .zip(&oof)
                .filter(|(_, s)| !s.is_nan())
                .map(|(r, s)| (row_key(r), *s))
                .collect(),
        );
        // Which kinds of input have a model of their own is decided above, on the experts
        // as fitted; the balance weighs them inside the model kept.
        let mut balanced = None;
        if balance && experts.len() > 1 {
            let b = balance_experts(&expert_kinds, &oof_z, &train);
            for ((e, z), &(c, s)) in experts.iter_mut().zip(&mut oof_z).zip(&b.weights) {
                e.reweigh(c, s);
                if let Some(p) = &mut e.player {
                    p.reweigh(c, s);
                }
                for z in z.iter_mut() {
                    *z = (*z - c) / s;
                }
            }
            balanced = Some(b);
        }
        let oof = if balanced.is_some() {
            combined_oof(&oof_z, train.len())
        } else {
            oof
        };
        let cv_auc = auc_scored(&oof, &labels);
        let mut variant = AssessmentVariant {
            rated,
            clocks,
            features: features.clone(),
            fill: fill.clone(),
            experts,
            platt: (1.0, 0.0),
            unclear: 0.5,
            look_closer: 0.9,
            look_closer_player: 0.9,
            look_closer_few: None,
            platt_player: None,
            platt_player_games: None,
            unclear_player: None,
            lower_rated: Vec::new(),
        };
        let valid: Vec<&Row> = all
            .iter()
            .filter(|r| r.split == Split::Validation && usable(r, rated, clocks))
            .collect();
        let vpos = valid.iter().filter(|r| r.engine()).count();
        let (cal_scores, cal_labels): (Vec<f64>, Vec<bool>) =
            if vpos >= 5 && valid.len() - vpos >= 5 {
                valid
                    .iter()
                    .map(|r| (variant.raw(&input(r)), r.engine()))
                    .unzip()
            } else {
                // Too few validation sides: calibrate on the train split's out-of-fold scores.
                oof.iter()
                    .zip(&labels)
                    .filter(|(s, _)| !s.is_nan())
                    .map(|(s, l)| (*s, *l))
                    .unzip()
            };
        let platt_ab = platt(&cal_scores, &cal_labels);
        variant.platt = platt_ab;
        let valid_auc = auc(
            &valid
                .iter()
                .map(|r| variant.probability(&input(r)))
                .collect::<Vec<_>>(),
            &valid.iter().map(|r| r.engine()).collect::<Vec<_>>(),
        );
        // Thresholds from clean human sides: train out-of-fold and validation, calibrated.
        let oof_cal = |s: f64| {
            let p = s.clamp(1e-6, 1.0 - 1e-6);
            1.0 / (1.0 + (-(platt_ab.0 * (p / (1.0 - p)).ln() + platt_ab.1)).exp())
        };
        let humans = sorted(
            train
                .iter()
                .zip(&oof)
                .filter(|(r, s)| !r.engine() && !s.is_nan())
                .map(|(_, s)| oof_cal(*s))
                .chain(
                    valid
                        .iter()
                        .filter(|r| !r.engine())
                        .map(|r| variant.probability(&input(r))),
                )
                .collect(),
        );
        (variant.unclear, variant.look_closer) = side_thresholds(&humans);
        variant.look_closer_player = variant.look_closer;
        let _ = writeln!(
            card,
            "| {basis} | {pos} / {neg} | {} | {cv_auc:.3} | {valid_auc:.3} ({} / {}) | {:.3} | {:.3} |",
            expert_cells.join("; "),
            vpos,
            valid.len() - vpos,
            variant.unclear,
            variant.look_closer
        );
        if let Some(b) = balanced {
            let parts: Vec<String> = expert_kinds
                .iter()
                .zip(&b.weights)
                .zip(b.before.iter().zip(&b.after))
                .map(|((k, (c, s)), (before, after))| {
                    let aucs = if before.is_nan() {
                        "no sides of its kind".to_owned()
                    } else {
                        format!("{before:.3} -> {after:.3}")
                    };
                    // (the offset is taken off: a negative one reads as added)
                    let op = if *c < 0.0 { '+' } else { '-' };
                    format!("{} (z {op} {:.2}) / {s:.2}: {aucs}", kind_name(*k), c.abs())
                })
                .collect();
            balances.push(format!(
                "experts balanced, {basis} (each z as (z - offset) / scale; AUC against clean humans, train out of fold): {}",
                parts.join("; ")
            ));
        }
        // Reliability: calibrated probabilities of the train split (out of fold) and the
        // validation split against the observed share of engine-assisted sides.
        let points: Vec<(f64, bool)> = train
            .iter()
            .zip(&oof)
            .filter(|(_, s)| !s.is_nan())
            .map(|(r, s)| (oof_cal(*s), r.engine()))
            .chain(
                valid
                    .iter()
                    .map(|r| (variant.probability(&input(r)), r.engine())),
            )
            .collect();
        reliability.push(format!(
            "reliability, {basis} (predicted → observed, sides):{}",
            reliability_bins(&points)
        ));
        variants.push(variant);
    }
    card.push('\n');
    for l in balances.iter().chain(&reliability) {
        let _ = writeln!(card, "{l}  ");
    }
    Ok((variants, ranges, card))
}

/// The bin of a game side by its analysed moves (under 20, 20s, 30s, 40 or more) and
/// its rating (none, or 400-point bands): the bins of the leakage checks.
pub(super) fn length_rating_bin(moves: usize, rating: Option<f64>) -> (i64, i64) {
    let m = match moves {
        0..20 => 0,
        20..30 => 1,
        30..40 => 2,
        _ => 3,
    };
    let e = rating.map_or(0, |e| 1 + (e / 400.0).floor() as i64);
    (m, e)
}

/// ROC AUC with pairs compared only within a group (Mann-Whitney summed over the groups,
/// ties count half): what a score tells apart among sides alike in the grouping
/// variables. A score that only knew the groups would get 0.5. Returns the AUC and the
/// number of pairs it rests on (NaN and 0 when no group has both labels).
pub(super) fn auc_within<G: Ord>(scores: &[f64], labels: &[bool], groups: &[G]) -> (f64, usize) {
    let mut by: BTreeMap<&G, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for ((s, l), g) in scores.iter().zip(labels).zip(groups) {
        let e = by.entry(g).or_default();
        if *l { e.0.push(*s) } else { e.1.push(*s) }
    }
    let (mut wins, mut pairs) = (0.0, 0usize);
    for (pos, neg) in by.values() {
        for p in pos {
            for n in neg {
                wins += match p.total_cmp(n) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
        }
        pairs += pos.len() * neg.len();
    }
    if pairs == 0 {
        (f64::NAN, 0)
    } else {
        (wins / pairs as f64, pairs)
    }
}

/// The leakage check: the labels of the train split shuffled within bins of analysed
/// moves and rating, then the grouped cross-validated AUC of logistic regression on the
/// unrated signals. Shuffled so, a label says nothing but its bin; an AUC well above 0.5
/// means the signals tell the bins apart (a feature that grows with the game's length,
/// or the rating itself), which would let a model score the length or the rating rather
/// than the play.
/// Returns that AUC and the AUC of the bins alone (each side scored by its bin's share
/// of engine-assisted sides): the most a model that knew only length and rating could
/// reach. When the bins' shares differ (engines rated 3500), strength signals reach
/// toward it legitimately; a leak shows as the first close to or above the second.
pub(super) fn leakage(all: &[Row], n_folds: usize, seed: u64) -> Result<(f64, f64)> {
    let train: Vec<&Row> = all.iter().filter(|r| r.split == Split::Train).collect();
    let bin = |r: &Row| length_rating_bin(r.signals.moves, r.elo);
    let mut by_bin: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    for (i, r) in train.iter().enumerate() {
        by_bin.entry(bin(r)).or_default().push(i);
    }
    let mut labels: Vec<bool> = train.iter().map(|r| r.engine()).collect();
    let mut rng = Rng(seed ^ 0x1eaf);
    for idx in by_bin.values() {
        let mut l: Vec<bool> = idx.iter().map(|&i| labels[i]).collect();
        rng.shuffle(&mut l);
        for (&i, v) in idx.iter().zip(l) {
            labels[i] = v;
        }
    }
    let features = variant_features(false, false);
    let x: Vec<Vec<f64>> = train
        .iter()
        .map(|r| {
            features
                .iter()
                .map(|f| r.signals.get(f).unwrap_or(0.0))
                .collect()
        })
        .collect();
    let fold = folds(&train, n_folds, seed);
    let mut oof = vec![0.5; train.len()];
    for f in 0..n_folds.max(2) {
        let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = (0..train.len())
            .filter(|&i| fold[i] != f)
            .map(|i| (x[i].clone(), u32::from(labels[i])))
            .unzip();
        if ty.is_empty() || ty.iter().all(|v| *v == ty[0]) {
            continue;
        }
        let m = fit_model("logistic", &tx, &ty, 0, seed)?;
        for i in (0..train.len()).filter(|&i| fold[i] == f) {
            oof[i] = m.probability(&x[i]);
        }
    }
    let share: BTreeMap<(i64, i64), f64> = by_bin
        .iter()
        .map(|(k, idx)| {
            let pos = idx.iter().filter(|&&i| labels[i]).count();
            (*k, pos as f64 / idx.len() as f64)
        })
        .collect();
    let by_bins: Vec<f64> = train.iter().map(|r| share[&bin(r)]).collect();
    Ok((auc(&oof, &labels), auc(&by_bins, &labels)))
}

/// What the move-odds tables of `r` were fitted on, or that there were too few moves.
pub(super) fn print_move_odds(r: &LateReference) {
    match &r.late_odds {
        Some(o) => eprintln!(
            "fairsight: the later half's odds of an engine (lateOdds): {} clean human moves of the train split against {} of its switched sides",
            o.moves, o.engine_moves
        ),
        None => eprintln!(
            "fairsight: too few later-half moves of clean humans or switched sides for lateOdds"
        ),
    }
    match &r.switch_odds {
        Some(o) => eprintln!(
            "fairsight: a run to the end's odds of an engine (switchOdds): {} clean human moves of the train split against {} engine moves of its switched sides",
            o.moves, o.engine_moves
        ),
        None => eprintln!(
            "fairsight: too few moves of clean humans or of switched sides' engines for switchOdds"
        ),
    }
    if let Some(o) = &r.switch_odds_all {
        eprintln!(
            "fairsight: the same whatever the rating (switchOddsAll): {} clean human moves, rated or not",
            o.moves
        );
    }
}
