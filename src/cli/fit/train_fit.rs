//! `fairsight train fit`: the balanced dataset, grouped cross-validation of the models
//! Burnham compared (smartcore), the trend SVC, and the shipped model file.

use std::{collections::BTreeMap, fmt::Write as _, path::PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use fairsight::{
    Classifier, Report, Side,
    fit::{Baseline, FEATURE_NAMES, Levels, Model, Node, Trend, move_vector},
};
use smartcore::{
    ensemble::random_forest_classifier::{
        RandomForestClassifier, RandomForestClassifierParameters,
    },
    linalg::basic::{arrays::Array, matrix::DenseMatrix},
    linear::logistic_regression::LogisticRegression,
    naive_bayes::gaussian::GaussianNB,
    neighbors::knn_classifier::{KNNClassifier, KNNClassifierParameters},
    svm::{
        Kernels,
        svc::{MultiClassSVC, SVC, SVCParameters},
    },
};

#[derive(Args)]
pub struct FitArgs {
    /// Reports (`fairsight analyze --json`) of engine games: every candidate move is
    /// labelled "engine".
    #[arg(long = "engine", required_unless_present = "corpus")]
    engine: Vec<PathBuf>,
    /// Reports of human games: every candidate move is labelled "human".
    #[arg(long = "human", required_unless_present = "corpus")]
    human: Vec<PathBuf>,
    /// Train on the train split of this corpus folder instead of reports: engine games'
    /// moves are "engine", human games' "human"; in a switched game the assisted side's
    /// moves from its `SwitchPly` on are "engine" and every move before the switch
    /// "human" (the opponent's moves after it, a limited engine's, are left out). Folds
    /// are grouped by game and by player.
    #[arg(long, conflicts_with_all = ["engine", "human"])]
    corpus: Option<PathBuf>,
    /// With `--corpus`: write every train-split game's out-of-fold move probabilities
    /// of the chosen model (JSON: game id -> probability or null per ply), for `fairsight
    /// assess fit --classifier-oof`, so the assessment never learns from a classifier
    /// that saw the same games.
    #[arg(long, requires = "corpus")]
    oof: Option<PathBuf>,
    /// With `--corpus`: take engine moves only from sides playing at full strength
    /// (Elo tag 3000 or more: top engines and the unlimited self-play side), leaving
    /// out the `UCI_LimitStrength` sides, whose moves are human-like by design and are
    /// the assessment's to judge against a rating, not the style model's.
    #[arg(long, requires = "corpus")]
    full_strength_only: bool,
    /// Largest depth of a forest's trees.
    #[arg(long, default_value_t = 12)]
    max_depth: u16,
    /// Fewest moves in a forest's leaf.
    #[arg(long, default_value_t = 5)]
    min_leaf: usize,
    /// Where to write the model.
    #[arg(long)]
    out: PathBuf,
    /// Where to write the model card's numbers (markdown).
    #[arg(long)]
    card: Option<PathBuf>,
    /// Cross-validation folds (grouped by game).
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Seed of every random choice (balancing, folds, forests).
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Trees of the random forest.
    #[arg(long, default_value_t = 100)]
    trees: u16,
    /// A line saying where the games came from, for the model file.
    #[arg(long, default_value = "")]
    source: String,
}

/// One candidate move of the dataset.
#[derive(Clone)]
struct Row {
    x: [f64; 20],
    engine: bool,
    /// The game (report, game index): folds never split a game.
    game: usize,
    /// The game side: for the side-level numbers.
    side: usize,
    shape: Vec<f64>,
    amplitude: f64,
}

/// The candidate moves of the corpus's train split, labelled, with the games and
/// players that group them, and every game's candidate plies (for the out-of-fold
/// probabilities).
struct CorpusData {
    rows: Vec<Row>,
    report: Report,
    counts: BTreeMap<&'static str, usize>,
    /// Fold group of each game (games sharing a player share a group).
    group: Vec<usize>,
    /// Record id of each game.
    ids: Vec<String>,
}

/// xorshift64*: fixed-seed shuffles.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(super) fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

fn load(args: &FitArgs) -> Result<(Vec<Row>, Report, BTreeMap<&'static str, usize>)> {
    let mut rows = Vec::new();
    let mut first: Option<Report> = None;
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut game_id = 0;
    let inputs = args
        .engine
        .iter()
        .map(|p| (p, true))
        .chain(args.human.iter().map(|p| (p, false)));
    for (path, engine) in inputs {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report = Report::from_json(&text)
            .with_context(|| format!("{} is not a fairsight report", path.display()))?;
        match &first {
            None => first = Some(report.clone()),
            Some(f) if f.settings != report.settings || f.engine.build != report.engine.build => {
                bail!(
                    "{}: made with other settings or engine than {}",
                    path.display(),
                    args.engine[0].display()
                );
            }
            Some(_) => {}
        }
        let class = if engine { "engine" } else { "human" };
        for g in report.games.iter().filter(|g| g.error.is_none()) {
            *counts
                .entry(if engine {
                    "engine games"
                } else {
                    "human games"
                })
                .or_default() += 1;
            for (i, p) in g.plies.iter().enumerate() {
                if p.excluded.is_none() && p.searched {
                    *counts
                        .entry(if engine {
                            "engine analysed moves"
                        } else {
                            "human analysed moves"
                        })
                        .or_default() += 1;
                }
                let Some(row) = candidate_row(g, i, engine, game_id) else {
                    continue;
                };
                rows.push(row);
                *counts
                    .entry(if engine {
                        "engine candidate moves"
                    } else {
                        "human candidate moves"
                    })
                    .or_default() += 1;
            }
            game_id += 1;
        }
        let _ = class;
    }
    let report = first.context("no reports")?;
    Ok((rows, report, counts))
}

/// The corpus's train split as labelled candidate moves (see [`FitArgs::corpus`]).
fn load_corpus(corpus: &std::path::Path, full_strength_only: bool) -> Result<CorpusData> {
    use super::super::corpus::{Label, Split, load_records, rebuild};
    let records = load_records(corpus, &[], None, Some(Split::Train))?;
    if records.is_empty() {
        bail!("{}: no games in the train split", corpus.display());
    }
    eprintln!("fairsight: rebuilding {} train-split games", records.len());
    let report = rebuild(&records)?;
    let mut rows = Vec::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    // Union-find over games and player names: a player's games share a fold group.
    let n = records.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut player_of: BTreeMap<String, usize> = BTreeMap::new();
    for (gi, (r, g)) in records.iter().zip(&report.games).enumerate() {
        if g.error.is_some() {
            continue;
        }
        *counts
            .entry(match r.label {
                Label::Engine => "engine games",
                Label::Human => "human games",
                Label::Switched => "switched games",
            })
            .or_default() += 1;
        if r.label != Label::Engine {
            for side in [Side::White, Side::Black] {
                let name = g.sides.get(side).player.to_lowercase();
                if name.is_empty() || name == "?" {
                    continue;
                }
                match player_of.get(&name) {
                    Some(&other) => {
                        let (a, b) = (find(&mut parent, gi), find(&mut parent, other));
                        parent[a] = b;
                    }
                    None => {
                        player_of.insert(name, gi);
                    }
                }
            }
        }
        let switched = (r.label == Label::Switched)
            .then(|| {
                let side = match g.tag("Switched")? {
                    "white" => Side::White,
                    "black" => Side::Black,
                    _ => return None,
                };
                Some((side, g.tag("SwitchPly")?.trim().parse::<u32>().ok()?))
            })
            .flatten();
        if r.label == Label::Switched && switched.is_none() {
            bail!(
                "{}: a switched game without its Switched and SwitchPly tags",
                r.id
            );
        }
        for (i, p) in g.plies.iter().enumerate() {
            let Some(engine) = move_label(r.label, switched, p.ply, p.side) else {
                continue;
            };
            if full_strength_only
                && r.label == Label::Engine
                && !fairsight::fit::tag_rating(g, p.side).is_some_and(|e| e >= 3000.0)
            {
                continue;
            }
            let Some(row) = candidate_row(g, i, engine, gi) else {
                continue;
            };
            rows.push(row);
            *counts
                .entry(if engine {
                    "engine candidate moves"
                } else {
                    "human candidate moves"
                })
                .or_default() += 1;
        }
    }
    let group = (0..n).map(|i| find(&mut parent, i)).collect();
    Ok(CorpusData {
        rows,
        report,
        counts,
        group,
        ids: records.iter().map(|r| r.id.clone()).collect(),
    })
}

/// A move's class for training (`Some(true)` engine), or `None` when it is left out:
/// in a switched game (`switched`: the assisted side and the 1-based ply of its first
/// engine move) every move before the switch is human, the assisted side's from it on
/// engine's, and the opponent's after it (a limited engine's) left out.
fn move_label(
    label: super::super::corpus::Label,
    switched: Option<(Side, u32)>,
    ply: u32,
    side: Side,
) -> Option<bool> {
    use super::super::corpus::Label;
    match (label, switched) {
        (Label::Engine, _) => Some(true),
        (Label::Human, _) => Some(false),
        (Label::Switched, Some((assisted, at))) => {
            if ply < at {
                Some(false)
            } else {
                (side == assisted).then_some(true)
            }
        }
        (Label::Switched, None) => None,
    }
}

/// Every game's out-of-fold move probabilities (by record id; `None` where a ply is no
/// candidate): for each fold, the chosen kind of model fitted on the other folds'
/// balanced moves, exactly as the shipped one is on all of them.
fn out_of_fold(
    args: &FitArgs,
    kind: Kind,
    cols: &[usize],
    balanced: &[Row],
    fold_of: &BTreeMap<usize, usize>,
    report: &Report,
    ids: &[String],
) -> Result<BTreeMap<String, Vec<Option<f64>>>> {
    let pick = |v: &[f64; 20]| cols.iter().map(|&c| v[c]).collect::<Vec<f64>>();
    let mut out = BTreeMap::new();
    for fold in 0..args.folds {
        let (tx, ty): (Vec<Vec<f64>>, Vec<u32>) = balanced
            .iter()
            .filter(|r| fold_of[&r.game] != fold)
            .map(|r| (pick(&r.x), u32::from(r.engine)))
            .unzip();
        if tx.is_empty() {
            continue;
        }
        let model = match kind {
            Kind::Forest => Model::forest(forest_model_sized(
                &tx,
                &ty,
                args.trees,
                args.seed,
                args.max_depth,
                args.min_leaf,
            )?),
            _ => {
                let (sc, w, b) = logistic(&tx, &ty)?;
                Model::Logistic {
                    mean: sc.mean,
                    scale: sc.scale,
                    weights: w,
                    bias: b,
                }
            }
        };
        for (gi, g) in report.games.iter().enumerate() {
            if fold_of.get(&gi) != Some(&fold) {
                continue;
            }
            let probs = (0..g.plies.len())
                .map(|i| {
                    move_vector(&g.plies, i, g.variant, None)
                        .map(|v| model.probability(&pick(&v.values)))
                })
                .collect();
            out.insert(ids[gi].clone(), probs);
        }
        eprintln!(
            "fairsight: out-of-fold probabilities, fold {} of {}",
            fold + 1,
            args.folds
        );
    }
    Ok(out)
}

/// Folds of games grouped: the groups shuffled and dealt so every fold gets about as
/// many games, no group in two folds.
fn grouped_folds(rows: &[Row], group: &[usize], k: usize, seed: u64) -> BTreeMap<usize, usize> {
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut games: Vec<usize> = rows.iter().map(|r| r.game).collect();
    games.sort_unstable();
    games.dedup();
    for g in games {
        members.entry(group[g]).or_default().push(g);
    }
    let mut groups: Vec<Vec<usize>> = members.into_values().collect();
    rng.shuffle(&mut groups);
    // Largest first into the emptiest fold.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let mut size = vec![0usize; k];
    let mut out = BTreeMap::new();
    for g in groups {
        let f = (0..k).min_by_key(|&f| size[f]).unwrap_or(0);
        size[f] += g.len();
        for game in g {
            out.insert(game, f);
        }
    }
    out
}

/// The training row of ply `i` of a game (game number `game`), or `None` when it is no
/// candidate or its evaluation levels are unknown.
fn candidate_row(g: &fairsight::GameReport, i: usize, engine: bool, game: usize) -> Option<Row> {
    let p = &g.plies[i];
    let v = move_vector(&g.plies, i, g.variant, None)?;
    let best = p
        .features
        .eval
        .map(|e| e.with_sign(p.side.sign()).to_cp(1000))
        .unwrap_or(0);
    let levels = Levels::new(&p.features.depth_evals, best)?;
    Some(Row {
        x: v.values,
        engine,
        game,
        side: 2 * game + usize::from(p.side == Side::Black),
        shape: levels.shape,
        amplitude: levels.amplitude,
    })
}

/// Keeps, in every stratum of (fold, side to move, position evaluation band), as many
/// engine as human moves: neither the side nor the evaluation can tell the classes apart,
/// and every fold is balanced on its own (pooled out-of-fold scores of unbalanced folds
/// can rank the classes backwards).
fn balance(rows: Vec<Row>, fold_of: &BTreeMap<usize, usize>, rng: &mut Rng) -> Vec<Row> {
    let band = |eval: f64| match eval {
        e if e < -1.0 => 0,
        e if e < -0.3 => 1,
        e if e <= 0.3 => 2,
        e if e <= 1.0 => 3,
        _ => 4,
    };
    let mut strata: BTreeMap<(usize, u8, u8, bool), Vec<Row>> = BTreeMap::new();
    for r in rows {
        let key = (fold_of[&r.game], r.x[14] as u8, band(r.x[9]), r.engine);
        strata.entry(key).or_default().push(r);
    }
    let mut out = Vec::new();
    let keys: Vec<(usize, u8, u8)> = strata.keys().map(|k| (k.0, k.1, k.2)).collect();
    let mut seen = std::collections::BTreeSet::new();
    for (f, s, b) in keys {
        if !seen.insert((f, s, b)) {
            continue;
        }
        let mut e = strata.remove(&(f, s, b, true)).unwrap_or_default();
        let mut h = strata.remove(&(f, s, b, false)).unwrap_or_default();
        let n = e.len().min(h.len());
        rng.shuffle(&mut e);
        rng.shuffle(&mut h);
        out.extend(e.into_iter().take(n));
        out.extend(h.into_iter().take(n));
    }
    out
}

pub(super) fn matrix(rows: &[Vec<f64>]) -> DenseMatrix<f64> {
    DenseMatrix::from_2d_vec(&rows.to_vec()).expect("invariant: rows of equal length")
}

/// Standardisation fitted on training rows.
pub(super) struct Scaler {
    pub(super) mean: Vec<f64>,
    pub(super) scale: Vec<f64>,
}

impl Scaler {
    pub(super) fn fit(x: &[Vec<f64>]) -> Scaler {
        let p = x[0].len();
        let n = x.len() as f64;
        let mean: Vec<f64> = (0..p)
            .map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n)
            .collect();
        let scale = (0..p)
            .map(|j| {
                let v = x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n;
                if v > 0.0 { v.sqrt() } else { 1.0 }
            })
            .collect();
        Scaler { mean, scale }
    }

    pub(super) fn apply(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        x.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(j, v)| (v - self.mean[j]) / self.scale[j])
                    .collect()
            })
            .collect()
    }
}

/// The trees of a smartcore forest in our node form (via its serde form: smartcore keeps
/// the nodes private). Node outputs are class indices; classes are 0 (human), 1 (engine).
fn export_forest(
    rf: &RandomForestClassifier<f64, u32, DenseMatrix<f64>, Vec<u32>>,
) -> Result<Vec<Vec<Node>>> {
    let v = serde_json::to_value(rf).context("serialising the forest")?;
    let classes: Vec<u32> =
        serde_json::from_value(v["classes"].clone()).context("forest classes")?;
    let trees = v["trees"].as_array().context("forest without trees")?;
    trees
        .iter()
        .map(|t| {
            let nodes = t["nodes"].as_array().context("tree without nodes")?;
            nodes
                .iter()
                .map(|n| {
                    let output = n["output"].as_u64().context("node output")? as usize;
                    Ok(
                        match (n["true_child"].as_u64(), n["false_child"].as_u64()) {
                            (Some(l), Some(r)) => [
                                n["split_feature"].as_u64().context("split feature")? as f64,
                                n["split_value"].as_f64().context("split value")?,
                                l as f64,
                                r as f64,
                            ],
                            _ => [-1.0, f64::from(classes[output]), 0.0, 0.0],
                        },
                    )
                })
                .collect()
        })
        .collect()
}

pub(super) fn forest_model(
    x: &[Vec<f64>],
    y: &[u32],
    trees: u16,
    seed: u64,
) -> Result<Vec<Vec<Node>>> {
    forest_model_sized(x, y, trees, seed, 12, 5)
}

/// [`forest_model`] with the trees' largest depth and smallest leaf given.
fn forest_model_sized(
    x: &[Vec<f64>],
    y: &[u32],
    trees: u16,
    seed: u64,
    max_depth: u16,
    min_leaf: usize,
) -> Result<Vec<Vec<Node>>> {
    let params = RandomForestClassifierParameters::default()
        .with_n_trees(trees)
        .with_max_depth(max_depth)
        .with_min_samples_leaf(min_leaf)
        .with_seed(seed);
    let rf = RandomForestClassifier::fit(&matrix(x), &y.to_vec(), params)
        .map_err(|e| anyhow::anyhow!("random forest: {e}"))?;
    export_forest(&rf)
}

fn forest_scores(trees: &[Vec<Node>], x: &[Vec<f64>]) -> Vec<f64> {
    let cols = x.first().map_or(0, Vec::len);
    let m = ndarray::Array2::from_shape_vec((x.len(), cols), x.concat())
        .expect("invariant: rows of one length");
    Model::forest(trees.to_vec()).probabilities(&m).to_vec()
}

/// The models compared. Each returns scores for the test rows (higher = engine) and the
/// threshold that separates the classes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Forest,
    Logistic,
    SvcRbf,
    Knn,
    NaiveBayes,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Forest => "random forest",
            Kind::Logistic => "logistic regression",
            Kind::SvcRbf => "SVC, RBF kernel",
            Kind::Knn => "k-nearest neighbours (k = 25)",
            Kind::NaiveBayes => "Gaussian naive Bayes",
        }
    }

    fn threshold(self) -> f64 {
        match self {
            Kind::SvcRbf => 0.0,
            _ => 0.5,
        }
    }
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

pub(super) fn logistic(tx: &[Vec<f64>], ty: &[u32]) -> Result<(Scaler, Vec<f64>, f64)> {
    logistic_l2(tx, ty, 0.0)
}

/// Logistic regression on standardised features with an L2 penalty `alpha` on the
/// weights (0: none).
pub(super) fn logistic_l2(
    tx: &[Vec<f64>],
    ty: &[u32],
    alpha: f64,
) -> Result<(Scaler, Vec<f64>, f64)> {
    let sc = Scaler::fit(tx);
    let params = smartcore::linear::logistic_regression::LogisticRegressionParameters::default()
        .with_alpha(alpha);
    let lr = LogisticRegression::fit(&matrix(&sc.apply(tx)), &ty.to_vec(), params)
        .map_err(|e| anyhow::anyhow!("logistic regression: {e}"))?;
    let coef = lr.coefficients();
    let p = tx[0].len();
    let w: Vec<f64> = (0..p).map(|j| *coef.get((0, j))).collect();
    let b = *lr.intercept().get((0, 0));
    Ok((sc, w, b))
}

fn scores(
    kind: Kind,
    tx: &[Vec<f64>],
    ty: &[u32],
    test: &[Vec<f64>],
    args: &FitArgs,
    rng: &mut Rng,
) -> Result<Vec<f64>> {
    Ok(match kind {
        Kind::Forest => forest_scores(
            &forest_model_sized(tx, ty, args.trees, args.seed, args.max_depth, args.min_leaf)?,
            test,
        ),
        Kind::Logistic => {
            let (sc, w, b) = logistic(tx, ty)?;
            sc.apply(test)
                .iter()
                .map(|r| sigmoid(b + r.iter().zip(&w).map(|(a, c)| a * c).sum::<f64>()))
                .collect()
        }
        Kind::SvcRbf => {
            // The online SVC solver is quadratic: train on at most 1500 rows.
            let mut idx: Vec<usize> = (0..tx.len()).collect();
            rng.shuffle(&mut idx);
            idx.truncate(1500);
            let sc = Scaler::fit(tx);
            let sx = sc.apply(&idx.iter().map(|&i| tx[i].clone()).collect::<Vec<_>>());
            let sy: Vec<i32> = idx
                .iter()
                .map(|&i| if ty[i] == 1 { 1 } else { -1 })
                .collect();
            let xm = matrix(&sx);
            let params = SVCParameters::default()
                .with_c(1.0)
                .with_kernel(Kernels::rbf().with_gamma(1.0 / tx[0].len() as f64))
                .with_seed(Some(args.seed));
            let svc = SVC::fit(&xm, &sy, &params).map_err(|e| anyhow::anyhow!("SVC: {e}"))?;
            let tm = matrix(&sc.apply(test));
            svc.decision_function(&tm)
                .map_err(|e| anyhow::anyhow!("SVC: {e}"))?
        }
        Kind::Knn => {
            let sc = Scaler::fit(tx);
            let knn = KNNClassifier::fit(
                &matrix(&sc.apply(tx)),
                &ty.to_vec(),
                KNNClassifierParameters::default().with_k(25),
            )
            .map_err(|e| anyhow::anyhow!("KNN: {e}"))?;
            let proba = knn
                .predict_proba(&matrix(&sc.apply(test)))
                .map_err(|e| anyhow::anyhow!("KNN: {e}"))?;
            proba
                .iter()
                .map(|p| p.as_slice().get(1).copied().unwrap_or(0.0))
                .collect()
        }
        Kind::NaiveBayes => {
            let nb = GaussianNB::fit(&matrix(tx), &ty.to_vec(), Default::default())
                .map_err(|e| anyhow::anyhow!("naive Bayes: {e}"))?;
            let (theta, var, prior) = (nb.theta(), nb.var(), nb.class_priors());
            let classes = nb.classes();
            let ll = |c: usize, r: &[f64]| {
                prior[c].ln()
                    + r.iter()
                        .enumerate()
                        .map(|(j, x)| {
                            let v = var[c][j].max(1e-9);
                            -0.5 * (2.0 * std::f64::consts::PI * v).ln()
                                - (x - theta[c][j]).powi(2) / (2.0 * v)
                        })
                        .sum::<f64>()
            };
            let engine = classes.iter().position(|c| *c == 1).unwrap_or(1);
            let human = 1 - engine;
            test.iter()
                .map(|r| sigmoid(ll(engine, r) - ll(human, r)))
                .collect()
        }
    })
}

/// ROC AUC (Mann-Whitney, ties count half).
pub(super) fn auc(scores: &[f64], labels: &[bool]) -> f64 {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut rank = vec![0.0; scores.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        for k in i..=j {
            rank[idx[k]] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    let pos = labels.iter().filter(|l| **l).count() as f64;
    let neg = labels.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return f64::NAN;
    }
    let sum: f64 = rank
        .iter()
        .zip(labels)
        .filter(|(_, l)| **l)
        .map(|(r, _)| r)
        .sum();
    (sum - pos * (pos + 1.0) / 2.0) / (pos * neg)
}

struct Outcome {
    kind: Kind,
    auc: f64,
    accuracy: f64,
    side_auc: f64,
    engine_rate: f64,
    human_rate: f64,
    /// Per side: (engine?, positive rate).
    side_rates: Vec<(bool, f64)>,
    oof: Vec<f64>,
}

/// Folds by game: the games of each class shuffled and dealt round-robin, so every fold
/// has engine and human games.
fn folds(rows: &[Row], k: usize, seed: u64) -> BTreeMap<usize, usize> {
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut out = BTreeMap::new();
    for engine in [true, false] {
        let mut games: Vec<usize> = rows
            .iter()
            .filter(|r| r.engine == engine)
            .map(|r| r.game)
            .collect();
        games.sort_unstable();
        games.dedup();
        rng.shuffle(&mut games);
        for (i, g) in games.into_iter().enumerate() {
            out.insert(g, i % k);
        }
    }
    out
}

fn cross_validate(
    kind: Kind,
    rows: &[Row],
    cols: &[usize],
    fold_of: &BTreeMap<usize, usize>,
    args: &FitArgs,
) -> Result<Outcome> {
    let mut rng = Rng(args.seed ^ 0x7f4a_7c15);
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| cols.iter().map(|&c| r.x[c]).collect())
        .collect();
    let y: Vec<u32> = rows.iter().map(|r| u32::from(r.engine)).collect();
    let mut oof = vec![0.0; rows.len()];
    for fold in 0..args.folds {
        let (mut tx, mut ty, mut test, mut at) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, r) in rows.iter().enumerate() {
            if fold_of[&r.game] == fold {
                test.push(x[i].clone());
                at.push(i);
            } else {
                tx.push(x[i].clone());
                ty.push(y[i]);
            }
        }
        if test.is_empty() || tx.is_empty() {
            continue;
        }
        let s = scores(kind, &tx, &ty, &test, args, &mut rng)?;
        for (k, i) in at.into_iter().enumerate() {
            oof[i] = s[k];
        }
    }
    let labels: Vec<bool> = rows.iter().map(|r| r.engine).collect();
    let t = kind.threshold();
    let accuracy = oof
        .iter()
        .zip(&labels)
        .filter(|(s, l)| (**s >= t) == **l)
        .count() as f64
        / rows.len() as f64;
    // Per game side: mean score (for the side AUC) and share flagged.
    let mut sides: BTreeMap<usize, (bool, f64, usize, usize)> = BTreeMap::new();
    for (r, s) in rows.iter().zip(&oof) {
        let e = sides.entry(r.side).or_insert((r.engine, 0.0, 0, 0));
        e.1 += s;
        e.2 += 1;
        e.3 += usize::from(*s >= t);
    }
    let side_scores: Vec<f64> = sides.values().map(|v| v.1 / v.2 as f64).collect();
    let side_labels: Vec<bool> = sides.values().map(|v| v.0).collect();
    let side_rates: Vec<(bool, f64)> = sides
        .values()
        .map(|v| (v.0, v.3 as f64 / v.2 as f64))
        .collect();
    let rate = |engine: bool| {
        let r: Vec<f64> = side_rates
            .iter()
            .filter(|s| s.0 == engine)
            .map(|s| s.1)
            .collect();
        r.iter().sum::<f64>() / r.len().max(1) as f64
    };
    Ok(Outcome {
        kind,
        auc: auc(&oof, &labels),
        accuracy,
        side_auc: auc(&side_scores, &side_labels),
        engine_rate: rate(true),
        human_rate: rate(false),
        side_rates,
        oof,
    })
}

/// The trend SVC on a labelled set drawn from the data: up to `per_class` shapes of each
/// class of the labelling rule, 3:1 train:test. Returns (set size, test size, test
/// accuracy, per-class counts).
fn trend_svc(rows: &[Row], per_class: usize, seed: u64) -> Result<(usize, usize, f64, [usize; 3])> {
    let mut rng = Rng(seed ^ 0x51ed_270b);
    let len = rows.iter().map(|r| r.shape.len()).max().unwrap_or(0);
    let mut by: [Vec<&Row>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for r in rows.iter().filter(|r| r.shape.len() == len) {
        let k = match fairsight::fit::trend_rule(&r.shape, r.amplitude) {
            Trend::Ascending => 0,
            Trend::Descending => 1,
            Trend::Other => 2,
        };
        by[k].push(r);
    }
    let mut set: Vec<(Vec<f64>, i32)> = Vec::new();
    let mut counts = [0; 3];
    for (k, v) in by.iter_mut().enumerate() {
        rng.shuffle(v);
        for r in v.iter().take(per_class) {
            // Shape and amplitude, as Burnham's classifier saw them.
            let mut x = r.shape.clone();
            x.push(r.amplitude.min(10.0));
            set.push((x, k as i32));
            counts[k] += 1;
        }
    }
    rng.shuffle(&mut set);
    let n_test = set.len() / 4;
    let (test, train) = set.split_at(n_test);
    let tx: Vec<Vec<f64>> = train.iter().map(|s| s.0.clone()).collect();
    let ty: Vec<i32> = train.iter().map(|s| s.1).collect();
    let xm = matrix(&tx);
    let params = SVCParameters::default()
        .with_c(1.0)
        .with_kernel(Kernels::linear())
        .with_seed(Some(seed));
    let svc =
        MultiClassSVC::fit(&xm, &ty, &params).map_err(|e| anyhow::anyhow!("trend SVC: {e}"))?;
    let tm = matrix(&test.iter().map(|s| s.0.clone()).collect::<Vec<_>>());
    let pred = svc
        .predict(&tm)
        .map_err(|e| anyhow::anyhow!("trend SVC: {e}"))?;
    let correct = pred
        .iter()
        .zip(test)
        .filter(|(p, s)| (**p as i32) == s.1)
        .count();
    Ok((
        set.len(),
        n_test,
        correct as f64 / n_test.max(1) as f64,
        counts,
    ))
}

pub fn fit(args: FitArgs) -> Result<()> {
    let mut corpus_games = None;
    let (rows, report, counts, fold_of) = match &args.corpus {
        Some(dir) => {
            let d = load_corpus(dir, args.full_strength_only)?;
            let fold_of = grouped_folds(&d.rows, &d.group, args.folds, args.seed);
            corpus_games = Some(d.ids);
            (d.rows, d.report, d.counts, fold_of)
        }
        None => {
            let (rows, report, counts) = load(&args)?;
            let fold_of = folds(&rows, args.folds, args.seed);
            (rows, report, counts, fold_of)
        }
    };
    let mut rng = Rng(args.seed);
    let balanced = balance(rows.clone(), &fold_of, &mut rng);
    let n_engine = balanced.iter().filter(|r| r.engine).count();
    eprintln!(
        "dataset: {} candidate moves, {} after balancing ({} engine, {} human)",
        rows.len(),
        balanced.len(),
        n_engine,
        balanced.len() - n_engine
    );
    if n_engine < 20 {
        bail!("too few engine moves after balancing ({n_engine})");
    }
    let all: Vec<usize> = (0..FEATURE_NAMES.len()).collect();
    let trend = FEATURE_NAMES
        .iter()
        .position(|n| *n == "trend")
        .unwrap_or(6);
    let without_trend: Vec<usize> = all.iter().copied().filter(|&c| c != trend).collect();

    let mut outcomes = Vec::new();
    for kind in [
        Kind::Forest,
        Kind::Logistic,
        Kind::SvcRbf,
        Kind::Knn,
        Kind::NaiveBayes,
    ] {
        let o = cross_validate(kind, &balanced, &without_trend, &fold_of, &args)?;
        eprintln!(
            "{:<32} AUC {:.3}  accuracy {:.3}  side AUC {:.3}",
            kind.name(),
            o.auc,
            o.accuracy,
            o.side_auc
        );
        outcomes.push(o);
    }
    let with_trend = cross_validate(Kind::Forest, &balanced, &all, &fold_of, &args)?;
    eprintln!(
        "random forest with the trend class    AUC {:.3}",
        with_trend.auc
    );
    let (set, n_test, trend_acc, trend_counts) = trend_svc(&balanced, 120, args.seed)?;
    eprintln!("trend SVC: {set} labelled shapes, held-out accuracy {trend_acc:.3} on {n_test}");

    // The shipped model: the better of the exportable ones (forest, logistic), without
    // the trend class unless it adds at least 0.005 AUC.
    let forest = &outcomes[0];
    let logistic_outcome = &outcomes[1];
    let trend_helps = with_trend.auc >= forest.auc + 0.005;
    let chosen_kind = if logistic_outcome.auc > forest.auc.max(with_trend.auc) + 0.005 {
        Kind::Logistic
    } else {
        Kind::Forest
    };
    let use_trend = trend_helps && chosen_kind == Kind::Forest;
    let cols = if use_trend {
        all.clone()
    } else {
        without_trend.clone()
    };
    let chosen = match (chosen_kind, use_trend) {
        (Kind::Forest, true) => &with_trend,
        (Kind::Forest, false) => forest,
        _ => logistic_outcome,
    };
    let x: Vec<Vec<f64>> = balanced
        .iter()
        .map(|r| cols.iter().map(|&c| r.x[c]).collect())
        .collect();
    let y: Vec<u32> = balanced.iter().map(|r| u32::from(r.engine)).collect();
    let model = match chosen_kind {
        Kind::Forest => Model::forest(forest_model_sized(
            &x,
            &y,
            args.trees,
            args.seed,
            args.max_depth,
            args.min_leaf,
        )?),
        _ => {
            let (sc, w, b) = logistic(&x, &y)?;
            Model::Logistic {
                mean: sc.mean,
                scale: sc.scale,
                weights: w,
                bias: b,
            }
        }
    };
    let edges: Vec<f64> = (1..=10).map(|i| f64::from(i) / 10.0).collect();
    let bin = |r: f64| edges.iter().position(|e| r < *e || *e >= 1.0).unwrap_or(9);
    let mut baseline = Baseline {
        edges: edges.clone(),
        human: vec![0; 10],
        engine: vec![0; 10],
    };
    for (engine, r) in &chosen.side_rates {
        let b = bin(*r);
        if *engine {
            baseline.engine[b] += 1;
        } else {
            baseline.human[b] += 1;
        }
    }
    let name = format!(
        "{} on {} features, {} candidate moves of {} games (fairsight train fit, seed {})",
        chosen_kind.name(),
        cols.len(),
        balanced.len(),
        balanced
            .iter()
            .map(|r| r.game)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        args.seed
    );
    let classifier = Classifier {
        name,
        source: args.source.clone(),
        engine: report.engine.clone(),
        settings: report.settings.clone(),
        features: cols.iter().map(|&c| FEATURE_NAMES[c].to_owned()).collect(),
        threshold: 0.5,
        model,
        baseline,
    };
    std::fs::write(&args.out, classifier.to_json() + "\n")
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    if let (Some(path), Some(ids)) = (&args.oof, &corpus_games) {
        let oof = out_of_fold(&args, chosen_kind, &cols, &balanced, &fold_of, &report, ids)?;
        std::fs::write(path, serde_json::to_string(&oof)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!(
            "wrote {} (out-of-fold probabilities of {} games)",
            path.display(),
            oof.len()
        );
    }

    // The card's numbers.
    let mut card = String::new();
    let _ = writeln!(
        card,
        "Data (candidate moves: analysed, within {} cp of the best or better):\n",
        fairsight::fit::CANDIDATE_LOSS_CP
    );
    let _ = writeln!(card, "| | count |\n| --- | --- |");
    for (k, v) in &counts {
        let _ = writeln!(card, "| {k} | {v} |");
    }
    let _ = writeln!(
        card,
        "| balanced dataset | {} ({} engine, {} human) |\n",
        balanced.len(),
        n_engine,
        balanced.len() - n_engine
    );
    let _ = writeln!(
        card,
        "Cross-validation: {} folds grouped by game{} (no {} in two folds), seed {}; out-of-fold predictions.\n",
        args.folds,
        if args.corpus.is_some() {
            " and by player"
        } else {
            ""
        },
        if args.corpus.is_some() {
            "game or player"
        } else {
            "game"
        },
        args.seed
    );
    let _ = writeln!(
        card,
        "| model | move ROC AUC | move accuracy | game-side ROC AUC | positive rate, engine sides | positive rate, human sides |"
    );
    let _ = writeln!(card, "| --- | --- | --- | --- | --- | --- |");
    for o in outcomes.iter().chain(std::iter::once(&with_trend)) {
        let label = if std::ptr::eq(o, &with_trend) {
            format!("{} + trend class", o.kind.name())
        } else {
            o.kind.name().to_owned()
        };
        let _ = writeln!(
            card,
            "| {label} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
            o.auc, o.accuracy, o.side_auc, o.engine_rate, o.human_rate
        );
    }
    let _ = writeln!(
        card,
        "\nTrend SVC (linear kernel, C = 1, on the 14-depth shape plus amplitude): {set} labelled shapes (ascending {}, descending {}, other {}), held-out accuracy {:.3} on {n_test}.",
        trend_counts[0], trend_counts[1], trend_counts[2], trend_acc
    );
    let _ = writeln!(
        card,
        "With the trend class the forest's AUC is {:.3}, without it {:.3}: {}.\n",
        with_trend.auc,
        forest.auc,
        if trend_helps {
            "the trend class is kept"
        } else {
            "the simpler model without it is kept"
        }
    );
    let _ = writeln!(
        card,
        "Chosen: {} ({}).\n",
        chosen_kind.name(),
        if use_trend {
            "with the trend class"
        } else {
            "shape features, no trend class"
        }
    );
    let _ = writeln!(
        card,
        "Reliability of the chosen model (out-of-fold):\n\n| predicted | moves | mean predicted | engine share |\n| --- | --- | --- | --- |"
    );
    for b in 0..10 {
        let lo = b as f64 / 10.0;
        let hi = lo + 0.1;
        let sel: Vec<(f64, bool)> = chosen
            .oof
            .iter()
            .zip(&balanced)
            .filter(|(s, _)| **s >= lo && (**s < hi || (b == 9 && **s <= 1.0)))
            .map(|(s, r)| (*s, r.engine))
            .collect();
        if sel.is_empty() {
            continue;
        }
        let mean = sel.iter().map(|s| s.0).sum::<f64>() / sel.len() as f64;
        let share = sel.iter().filter(|s| s.1).count() as f64 / sel.len() as f64;
        let _ = writeln!(
            card,
            "| {lo:.1}-{hi:.1} | {} | {mean:.3} | {share:.3} |",
            sel.len()
        );
    }
    let _ = writeln!(
        card,
        "\nPositive rates of game sides (out-of-fold, threshold 0.5), histogram:\n\n| rate | human sides | engine sides |\n| --- | --- | --- |"
    );
    for b in 0..10 {
        let _ = writeln!(
            card,
            "| {:.1}-{:.1} | {} | {} |",
            b as f64 / 10.0,
            b as f64 / 10.0 + 0.1,
            classifier.baseline.human[b],
            classifier.baseline.engine[b]
        );
    }
    print!("{card}");
    if let Some(p) = &args.card {
        std::fs::write(p, &card).with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_forest_votes_like_smartcore() {
        // Two noisy features, the class decided by their sum.
        let mut rng = Rng(7);
        let mut u = || (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let x: Vec<Vec<f64>> = (0..300).map(|_| vec![u(), u(), u()]).collect();
        let y: Vec<u32> = x.iter().map(|r| u32::from(r[0] + r[1] > 1.0)).collect();
        let params = RandomForestClassifierParameters::default()
            .with_n_trees(15)
            .with_max_depth(6)
            .with_seed(3);
        let rf = RandomForestClassifier::fit(&matrix(&x), &y, params).unwrap();
        let trees = export_forest(&rf).unwrap();
        assert_eq!(trees.len(), 15);
        let ours = forest_scores(&trees, &x);
        let theirs = rf.predict(&matrix(&x)).unwrap();
        for (p, t) in ours.iter().zip(&theirs) {
            assert_eq!(u32::from(*p > 0.5), *t, "15 trees: no ties");
        }
        // And it learned the rule.
        let right = ours
            .iter()
            .zip(&y)
            .filter(|(p, t)| u32::from(**p > 0.5) == **t)
            .count();
        assert!(right > 270, "{right}/300");
    }

    #[test]
    fn a_switched_games_moves_are_human_before_the_switch_and_engine_after_on_its_side() {
        use crate::cli::corpus::Label;
        // Black switches at ply 20 (its 10th move).
        let sw = Some((Side::Black, 20));
        assert_eq!(
            move_label(Label::Switched, sw, 18, Side::Black),
            Some(false)
        );
        assert_eq!(
            move_label(Label::Switched, sw, 19, Side::White),
            Some(false)
        );
        assert_eq!(move_label(Label::Switched, sw, 20, Side::Black), Some(true));
        assert_eq!(move_label(Label::Switched, sw, 22, Side::Black), Some(true));
        // The opponent after the switch is a limited engine: neither class.
        assert_eq!(move_label(Label::Switched, sw, 21, Side::White), None);
        assert_eq!(move_label(Label::Switched, None, 21, Side::White), None);
        assert_eq!(move_label(Label::Engine, None, 3, Side::White), Some(true));
        assert_eq!(move_label(Label::Human, sw, 30, Side::Black), Some(false));
    }

    #[test]
    fn grouped_folds_never_split_a_group_and_stay_even() {
        let row = |game: usize| Row {
            x: [0.0; 20],
            engine: game.is_multiple_of(2),
            game,
            side: 2 * game,
            shape: Vec::new(),
            amplitude: 0.0,
        };
        let rows: Vec<Row> = (0..40).flat_map(|g| [row(g), row(g)]).collect();
        // Games 0..10 share a player (one group); the rest are on their own.
        let group: Vec<usize> = (0..40).map(|g| if g < 10 { 0 } else { g }).collect();
        let f = grouped_folds(&rows, &group, 5, 7);
        assert_eq!(f.len(), 40);
        assert!((0..10).all(|g| f[&g] == f[&0]), "{f:?}");
        let mut size = [0; 5];
        for v in f.values() {
            size[*v] += 1;
        }
        // 40 games in 5 folds, one group of 10: no fold is empty, the others share 30.
        assert!(size.iter().all(|s| *s >= 7), "{size:?}");
    }

    #[test]
    fn auc_counts_ties_half() {
        assert_eq!(
            auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]),
            0.75
        );
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), 0.5);
        assert_eq!(auc(&[0.9, 0.1], &[false, true]), 0.0);
    }
}
