//! `fairsight assess`: the assessment model (`models/assessment.json`) fitted on the
//! corpus, and its evaluation on the test split (see `models/README.md`).
//!
//! - `assess fit`: every game side of the train split becomes a row of signals
//!   ([`fairsight::fit::SIGNALS`]) labelled engine-assisted (both sides of
//!   engine games, the switched side of switched games) or not (both sides of human
//!   games). For each kind of input (rated or not, clocks or not) logistic regression and
//!   a random forest (smartcore) are cross-validated with folds grouped by game and by
//!   player; the better one is fitted on the whole train split, its scores calibrated on
//!   the validation split (Platt), and the thresholds set from the clean human sides'
//!   probabilities (train out-of-fold and validation); the z-scores' player effects
//!   ([`PlayerEffect`]) from the train split's clean players (also `assess
//!   player-effects`, for a model as it is).
//! - `assess eval`: the shipped (or a given) model on the test split: ROC AUC overall and
//!   by slice beside each single signal's, false- and true-positive rates at the
//!   thresholds with 95% intervals, per pseudo-player and per real player.
//!
//! Engine games' clocks are left out: TCEC's time management at its time controls would
//! let a model recognise the time control, not assistance. The clock models therefore
//! learn clean human sides against switched sides, whose clocks are the original human
//! game's.

use std::{
    collections::{BTreeMap, HashMap},
    fmt::Write as _,
    path::PathBuf,
};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use fairsight::{
    AssessmentModel, Calibration, GameReport, PlayerReport, Report, Side,
    fit::{
        AssessmentVariant, CLOCK_SIGNALS, Expert, GAME_SIDE_ONLY, HumanRange, LateOdds,
        LateReference, Level, LowerRated, Model, PlayerEffect, RATED_SIGNALS, REGAN_SIGNALS,
        RatingBias, SIGNALS, SideMoves, Signals, engine_direction, games_term, model_value,
        side_signals, tag_rating,
    },
};

use super::{
    super::corpus::{Label, Manifest, Record, Split, fnv1a, load_records, rebuild_games},
    train_fit::{Rng, Scaler, auc, forest_model, logistic_l2},
};

#[derive(Subcommand)]
pub enum AssessCmd {
    /// Fit the assessment model on the corpus's train and validation splits.
    Fit(FitArgs),
    /// Evaluate a model on the corpus's test split: AUCs by slice, error rates.
    Eval(EvalArgs),
    /// Print the assessment's probability for every game side of a saved report, as JSON
    /// (`[[white, black] per game]`), whatever settings the report was made with.
    Probabilities(ProbabilitiesArgs),
    /// Write the signals of every scored game side of the corpus as CSV (one row a side:
    /// game, player, kind, split, Elo tag, the rating its z-scores are against (an
    /// engine's drawn one), analysed moves, clocks, then each signal; empty where a signal
    /// is missing), for studying new signals and models outside fairsight.
    Rows(RowsArgs),
    /// The depth study: the same games analysed at several settings (one corpus folder
    /// each), compared by per-side AUC of the absolute signals and their combination.
    Depth(depth::DepthArgs),
    /// Fit the player effects of a model's z-scores on the corpus's train split and write
    /// the model with them: a player's pooled z-scores narrowed by the share of each
    /// one's spread that lies between players; a game side's assessment is unchanged.
    PlayerEffects(PlayerEffectsArgs),
    /// Set a model's game-side thresholds again by the fit's rule from the clean human
    /// sides it never saw (the validation split's and the train games that were not in
    /// the manifest it was fitted on); with `--players`, a player's too, from the
    /// validation split's clean pseudo-players of 5, 10 and 20 games.
    Thresholds(ThresholdsArgs),
    /// Write the corpus manifest once for each fold of its train split, with that fold's
    /// games left out (folds grouped by game and by player, as the fit's cross-validation
    /// deals them): models fitted on them read, out of sample, the train sides a model
    /// fitted on the whole split has seen (`assess thresholds --cross`).
    Folds(FoldsArgs),
}

#[derive(Args)]
pub struct FoldsArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// How many folds.
    #[arg(long, default_value_t = 3)]
    k: usize,
    /// The seed of the order the groups are dealt in.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Each group of games linked by their players to the fold a hash of its first game
    /// id names, instead of dealing the groups largest first to the emptiest fold: a
    /// group no new game joins keeps its fold as the corpus grows (dealt, every fold
    /// changes when games are added, and with it what fold models read), at the cost of
    /// folds only as even as the hash makes them.
    #[arg(long)]
    stable: bool,
    /// The folder the manifests are written to, as `fold-1.json` ... `fold-K.json`.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct ThresholdsArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The model [default: the shipped one].
    #[arg(long)]
    model: Option<PathBuf>,
    /// The corpus manifest the model was fitted on (e.g. `git show
    /// COMMIT:corpus/manifest.json`): its train games are left out, as the model has seen
    /// them.
    #[arg(long)]
    fitted_manifest: PathBuf,
    /// The fewest unseen clean sides a kind of input needs for its thresholds to be set
    /// again (with fewer, 0.5% of them is not one side).
    #[arg(long, default_value_t = 200)]
    min_sides: usize,
    /// Also set a player's thresholds again, by the fit's rule (above the clean
    /// pseudo-players of 5, 10 and 20 games and their normal tail), from the same sides
    /// as a side's: validation and the train games the fit never saw; by default they
    /// are kept, never below a side's.
    #[arg(long)]
    players: bool,
    /// Stricter thresholds for the game sides of rated input rated under these bounds
    /// (comma-separated, ascending; 0: none), one rating band under each bound and at or
    /// above the previous one: `look closer` above all but `--band-rate` of the band's
    /// clean sides in the train and validation splits (a band has too few sides the model
    /// never saw for 0.5% of them to be a side; the train sides' probabilities are
    /// in-sample, unless `--cross` reads them with the fold models). Default: the model's
    /// own bounds, or 1900 if it has none.
    #[arg(long, value_delimiter = ',')]
    lower_rated: Vec<f64>,
    /// The share of a band's clean sides its `look closer` lets through.
    #[arg(long, default_value_t = BAND_RATE)]
    band_rate: f64,
    /// The fewest clean sides of the band for `--lower-rated` to set its threshold again
    /// (1% of them: a side); with fewer it is kept.
    #[arg(long, default_value_t = 100)]
    min_band_sides: usize,
    /// Set a rated kind of input's thresholds from its unseen clean sides rated the
    /// highest `--lower-rated` bound or more alone, those under it having their band's
    /// thresholds of their own (every band with enough sides is kept, even one that comes
    /// out no higher; with no band, from all), and with `--players` a player's the same
    /// way, by the mean rating of the clean pseudo-players.
    #[arg(long)]
    band_apart: bool,
    /// A model fitted with one fold of the train split left out, and the manifest it was
    /// fitted on (`MODEL=MANIFEST`, from `assess folds`; repeat for each fold): a train
    /// side the model has seen is read by the one that did not see it, and counts among
    /// the unseen sides a side's and a player's thresholds, and the band's, are set from.
    #[arg(long, value_name = "MODEL=MANIFEST")]
    cross: Vec<String>,
    /// Fit each kind of input's Platt scaling again, on every side of every kind the
    /// readers never saw (validation, and with `--cross` the train split too), before the
    /// thresholds are set.
    #[arg(long)]
    calibrate: bool,
    /// Put each expert of a rated kind of input on a scale of its own for game sides with
    /// clocks (online play), from the clean sides with clocks its readers never saw: their
    /// median z and upper-tail spread (as the fit's scale for all clean sides), in the
    /// model and in every reader alike, before `--calibrate`. Online ratings run on their
    /// own scale, so at one rating clean online players read lower than over the board,
    /// and each expert by its own amount.
    #[arg(long)]
    clocks_scale: bool,
    /// With `--clocks-scale`: the percentile of the clean sides with clocks that gives an
    /// expert's spread for such sides, as (that percentile − median) ÷ the standard
    /// normal's same percentile. 0.95 is the fit's rule for all clean sides; a higher one
    /// reads the far tail, where the thresholds are.
    #[arg(long, default_value_t = 0.95, value_parser = tail_percentile)]
    clocks_tail: f64,
    /// With `--clocks-scale`: only these experts (`top`, `weaker`, `switched`,
    /// comma-separated) get a scale of their own for sides with clocks; the others keep
    /// one scale for every side [default: all]. The weaker-engine expert's readings of
    /// clean online sides spread wider than over the board, while the switched expert's
    /// readings of online switched sides are where online cheaters are caught.
    #[arg(long, requires = "clocks_scale", value_delimiter = ',', value_parser = expert_kind)]
    clocks_experts: Vec<Kind>,
    /// With `--clocks-scale`: put that scale into a kind of input of its own, rated with
    /// clocks (a copy of the rated kind's experts on the scale for sides with clocks), so
    /// that its scaling and thresholds, a side's and a player's, are then set on the
    /// clean sides with clocks alone, where the scale would otherwise ride along in the
    /// rated kind under thresholds set mostly by sides without clocks.
    #[arg(long, requires = "clocks_scale")]
    clocks_variant: bool,
    /// With `--clocks-variant`: the rated kind's rating bands are set, as without it, on
    /// every rated clean side of the band read by the rated kind, those with clocks
    /// included (each band keeps its few hundred sides; the kind with clocks gets bands
    /// of its own from its sides alone).
    #[arg(long, requires = "clocks_variant")]
    bands_all_rated: bool,
    /// Set an unrated kind of input's thresholds from its unseen clean sides and, with
    /// them, every unseen clean rated side read with its rating withheld (as the unrated
    /// kind reads a file without Elo tags). The corpus's own unrated clean sides are
    /// pre-engine masters, who read lower than today's players: thresholds set on them
    /// alone would flag a modern unrated player more often than they say.
    #[arg(long)]
    unrated_withheld: bool,
    /// Fit each unrated kind's scaling of a player's pooled games again, before a
    /// player's thresholds are set, on the pseudo-players of 5 games of the sides the
    /// readers never saw (validation, and with `--cross` the train split), each read by
    /// the reader that never saw it: its own and the rated ones read with their rating
    /// withheld (as it reads a file without Elo tags), in the model and every reader
    /// alike; and set its player thresholds from those clean players too (as
    /// `--unrated-withheld` does, for players only). (The corpus's unrated games are all
    /// clean, so a fit took the scaling fitted on the rated kind's players, where pooled
    /// games read otherwise.)
    #[arg(long, requires = "players")]
    unrated_player_scale: bool,
    /// Fit the scaling of a player's pooled games again, with a games term
    /// (`sigmoid((a + c·g)·logit + b + d·g)`, g = ln(games / 5)), on the pseudo-players of
    /// 2, 3, 4, 5, 10 and 20 games of the sides the readers never saw, for the unrated
    /// kinds (`unrated`, replacing `--unrated-player-scale`'s fit on those of 5 games) or
    /// every kind (`all`; the rated kinds' players of 2-4 games then get bars of their
    /// own too, above their clean pseudo-players of 2-4 games): one scaling fitted at 5
    /// games reads a player of 10 or 20 games off the share of such players who were
    /// engine-assisted. (`all`, tried in sessions 65 and 66, is the recipe's since
    /// session 67 with `--side-moves`: models/README.md.)
    #[arg(long, value_enum, requires = "players")]
    player_games_scale: Option<GamesScale>,
    /// Give the model and every reader whose later-half reference has none the moves of
    /// a typical clean side ([`SideMoves`]; a fit sets none), from the rated clean
    /// human sides of the train split of the manifest it was fitted on, before anything
    /// is read: a player's pooled z-scores then count their games by their moves (never
    /// more than a side each), so a pair of short games is not read as two full sides. A
    /// game side is read as before.
    #[arg(long)]
    side_moves: bool,
    /// With `--players`: a player's `look closer` also above every clean real player of 5
    /// or more games among the same sides (each read by the model that never saw them, on
    /// all their games pooled) and their normal tail, and a player's `unclear` where a
    /// tenth of them are when that is higher than the pseudo-players' tenth (with 20 or
    /// more of the kind). A real player's games share their style and form, which
    /// pseudo-players, pooled from different players, lack: on the test split 12 of 77
    /// clean real players reached the `unclear` set on pseudo-players alone.
    #[arg(long, requires = "players")]
    real_players: bool,
    /// Then put back the rated kinds of input of this model whole (their experts,
    /// scalings, thresholds and bands), in place of those just set: for a fit whose new
    /// games are all unrated, so its unrated kinds are fitted and set again while every
    /// rated side is read exactly as this model reads it (the fold models are drawn anew
    /// whenever games are added, and the rated kinds' thresholds would move with the
    /// draw). Refused unless both models read the rated signals alike: the same settings,
    /// rated kinds and later-half reference (but `switchOddsAll`, which no rated expert of
    /// it may read).
    #[arg(long, value_name = "MODEL")]
    keep_rated_from: Option<PathBuf>,
    /// Out-of-fold classifier probabilities for the games the classifier was trained on
    /// (`train fit --oof`), as `assess fit` reads them: without it, those games' clean
    /// sides are read with the classifier's in-sample probabilities.
    #[arg(long)]
    classifier_oof: Option<PathBuf>,
    /// Also write every side its readers never saw, of every kind, to this file
    /// (tab-separated): its game, player, split, kind, the rating it was read against,
    /// the kind of input, the probability (after `--calibrate`) and which reader read it
    /// (0: the model, k: the k-th `--cross`), for studies of the thresholds.
    #[arg(long)]
    sides: Option<PathBuf>,
    /// Where to write the model with the new thresholds.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct PlayerEffectsArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The model [default: the shipped one].
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where to write the model with the player effects.
    #[arg(long)]
    out: PathBuf,
}

mod depth;

#[derive(Args)]
pub struct RowsArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// Where to write the CSV (`-`: standard output).
    #[arg(long, default_value = "-")]
    out: PathBuf,
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
pub struct FitArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// Where to write the model.
    #[arg(long, default_value = "models/assessment.json")]
    out: PathBuf,
    /// Cross-validation folds.
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Trees of the random forest.
    #[arg(long, default_value_t = 200)]
    trees: u16,
    /// Seed of the folds and forests.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Fewest out-of-fold AUC against clean humans for an expert to be kept.
    #[arg(long, default_value_t = MIN_EXPERT_AUC)]
    min_expert_auc: f64,
    /// The move classifier's out-of-fold probabilities of the train split's games
    /// (`fairsight train fit --corpus ... --oof FILE`): the classifier signals of those
    /// games come from them instead of the shipped classifier, which was trained on the
    /// same games and would look better on them than it is.
    #[arg(long)]
    classifier_oof: Option<PathBuf>,
    /// The model's name (in reports) [default: the full assessment's].
    #[arg(long)]
    name: Option<String>,
    /// Keep every logistic weight in its signal's engine direction, leaving out the
    /// signals whose weight points the other way (a study, not the shipped fit: on the
    /// test split it cost top engines 0.983 -> 0.969; models/README.md).
    #[arg(long)]
    sign_consistent: bool,
    /// Recentre the z-scores against the rating on the clean humans of their band
    /// ([`RatingBias`]; a study, not the shipped fit: on the test split it cost every
    /// slice 0.002-0.017 of AUC and raised clean OTB players rated about 1640 to `look
    /// closer`, since a band mixes online and over-the-board ratings; models/README.md).
    #[arg(long)]
    rating_bias: bool,
    /// Leave a player's pooled z-scores as wide as their games' independence would
    /// make them: no [`PlayerEffect`]s (a study; by default they are fitted on the train
    /// split's clean players).
    #[arg(long)]
    no_player_effects: bool,
    /// Signals no expert reads (comma-separated; a study, e.g. a refit with the shipped
    /// model's signals beside one with a new one). `KIND:SIGNAL` leaves a signal out of
    /// one expert only (`top`, `weaker` or `switched`).
    #[arg(long, value_delimiter = ',')]
    leave_out: Vec<String>,
    /// Weigh the experts against each other in the largest z ([`balance_experts`]): an
    /// offset and scale for each expert's z but the top engines', chosen on the train
    /// split's out-of-fold z-scores for the best mean AUC of the other kinds against clean
    /// humans, the top engines' kept.
    #[arg(long)]
    balance_experts: bool,
}

#[derive(Args)]
pub struct EvalArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The model [default: the shipped one].
    #[arg(long)]
    model: Option<PathBuf>,
    /// The split to evaluate on.
    #[arg(long, value_enum, default_value_t = Split::Test)]
    split: Split,
    /// Games of each pseudo-player (2 or more: with a rating a player is read as one
    /// from 2 games, without from 5; the goal of 0.1% is for 5 or more); several,
    /// comma-separated, for a table each.
    #[arg(long, value_delimiter = ',', default_value = "5")]
    player_games: Vec<usize>,
    /// The fewest clean games in the split of a real player in the real players' table.
    #[arg(long, default_value_t = 5)]
    real_player_games: usize,
    /// Also write every game side of the corpus, each split, to this file (tab-separated):
    /// its game, player, split, kind, Elo tag, analysed moves, whether rated and with
    /// clocks, the probability, each expert's z, a switched side's engine moves searched and
    /// each signal as the model reads it (for studies of how they combine).
    #[arg(long)]
    sides: Option<PathBuf>,
    /// Another model, scored on the same sides: each slice's AUC under both and their
    /// difference, with a paired 95% interval (the same resamples for both).
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Leave this source's games out of the evaluated split (repeatable; the train split
    /// is read whole): to measure on the games added since a model was chosen, say.
    #[arg(long, value_name = "SOURCE")]
    without_source: Vec<String>,
}

pub fn run(cmd: AssessCmd) -> Result<()> {
    match cmd {
        AssessCmd::Fit(a) => fit(a),
        AssessCmd::Eval(a) => eval(a),
        AssessCmd::Depth(a) => depth::depth(a),
        AssessCmd::PlayerEffects(a) => player_effects(a),
        AssessCmd::Thresholds(a) => thresholds(a),
        AssessCmd::Folds(a) => write_folds(a),
        AssessCmd::Rows(a) => {
            let mut all = rows(&a.corpus, None)?;
            if let Some(r) = AssessmentModel::builtin().and_then(|m| m.late_reference.as_ref()) {
                with_late_reference(&mut all, r);
            }
            let text = rows_csv(&all);
            if a.out.as_os_str() == "-" {
                print!("{text}");
            } else {
                std::fs::write(&a.out, text)
                    .with_context(|| format!("cannot write {}", a.out.display()))?;
                eprintln!("fairsight: wrote {}", a.out.display());
            }
            Ok(())
        }
        AssessCmd::Probabilities(a) => {
            let text = std::fs::read_to_string(&a.report)
                .with_context(|| format!("cannot read {}", a.report.display()))?;
            let report = fairsight::Report::from_json(&text).map_err(|e| {
                anyhow::anyhow!("{}: not a fairsight report: {e}", a.report.display())
            })?;
            let mut slot = None;
            let model = load_model(a.model.as_ref(), &mut slot)?;
            println!(
                "{}",
                serde_json::to_string(&fairsight::fit::assessment_probabilities(model, &report))?
            );
            Ok(())
        }
    }
}

/// `assess player-effects`: the model with its player effects fitted on the corpus's
/// train split (its own later-half reference and bias applied first).
fn player_effects(a: PlayerEffectsArgs) -> Result<()> {
    let mut slot = None;
    let mut model = load_model(a.model.as_ref(), &mut slot)?.clone();
    let reference = model
        .late_reference
        .as_mut()
        .context("the model has no z-scores against the rating (no later-half reference)")?;
    reference.player_effects.clear();
    let mut all = rows(&a.corpus, None)?;
    with_late_reference(&mut all, reference);
    reference.player_effects = fit_player_effects(&all);
    eprint!(
        "fairsight: {}",
        player_effects_words(&reference.player_effects)
    );
    let games = Manifest::load(&a.corpus)?.games.len();
    // Fitted again: an earlier note gives way.
    let source = model
        .source
        .split("; player effects")
        .next()
        .unwrap_or_default();
    model.source =
        format!("{source}; player effects from the train split of a {games}-game corpus");
    std::fs::write(&a.out, model.to_json() + "\n")
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("fairsight: wrote {}", a.out.display());
    Ok(())
}

/// A model's typical clean side's moves ([`SideMoves`]), where its later-half reference
/// has none, from the rated clean human sides of the train split of `fitted` (those its
/// rating lines were fitted on).
fn set_side_moves(model: &mut AssessmentModel, fitted: &Manifest, rows: &[Row]) {
    let Some(reference) = model.late_reference.as_mut() else {
        return;
    };
    if reference.side_moves.is_some() {
        return;
    }
    let sides: Vec<(usize, usize)> = rows
        .iter()
        .filter(|r| r.kind == Kind::Human && r.signals.rating.is_some())
        .filter(|r| {
            fitted
                .games
                .get(&r.game)
                .is_some_and(|g| g.split == Split::Train)
        })
        .map(|r| (r.signals.late_moves, r.signals.top_moves))
        .collect();
    reference.side_moves = SideMoves::fit(&sides);
    if let Some(t) = reference.side_moves {
        eprintln!(
            "fairsight: a typical clean side's moves, from {} rated clean train sides: later half {:.1}, top lines {:.1}",
            sides.len(),
            t.late,
            t.top
        );
    }
}

/// `assess thresholds`: the model's side thresholds set again from the clean human sides of
/// the corpus it never saw, and its player thresholds kept or (`--players`) set again from
/// the clean pseudo-players of the same sides ([`ThresholdsArgs`], [`set_player_thresholds`]).
fn thresholds(a: ThresholdsArgs) -> Result<()> {
    let mut slot = None;
    let mut model = load_model(a.model.as_ref(), &mut slot)?.clone();
    let fitted = Manifest::load_file(&a.fitted_manifest)?;
    // The readers: the model, then each fold's; a side is read by the first that never
    // saw it.
    let mut readers: Vec<(AssessmentModel, Manifest)> = vec![(model.clone(), fitted)];
    for spec in &a.cross {
        readers.push(cross_reader(spec)?);
    }
    let base = rows(&a.corpus, a.classifier_oof.as_deref())?;
    if a.side_moves {
        for (m, fitted) in &mut readers {
            set_side_moves(m, fitted, &base);
        }
        // The model written is the first reader's.
        if let (Some(r), Some(read)) = (model.late_reference.as_mut(), &readers[0].0.late_reference)
        {
            r.side_moves = read.side_moves;
        }
    }
    let oof = a
        .classifier_oof
        .as_deref()
        .map(load_classifier_oof)
        .transpose()?;
    // Each reader's rows, with its own later-half reference.
    let read_rows: Vec<Vec<Row>> = readers
        .iter()
        .map(|(m, _)| {
            let mut rows = base.clone();
            if let Some(r) = &m.late_reference {
                with_late_reference(&mut rows, r);
            }
            rows
        })
        .collect();
    let fitted_sets: Vec<Manifest> = readers.iter_mut().map(|(_, f)| std::mem::take(f)).collect();
    let mut readers: Vec<AssessmentModel> = readers.into_iter().map(|(m, _)| m).collect();
    let manifests: Vec<&Manifest> = fitted_sets.iter().collect();
    let reader_of = |split: Split, game: &str| first_unseen(&manifests, split, game);
    // How the model reads game sides with clocks, for its `source` (empty: as all sides).
    let mut clocks_words = String::new();
    if a.clocks_scale {
        // Each expert's z on the unseen clean rated sides with clocks, by kind of input.
        let mut zs: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
        for (i, r) in base
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == Kind::Human)
        {
            let Some(k) = reader_of(r.split, &r.game) else {
                continue;
            };
            let signals = &read_rows[k][i].signals;
            if !signals.clocks || signals.games > 1 {
                continue;
            }
            let Some(v) = readers[k].variant(signals).filter(|v| v.rated) else {
                continue;
            };
            let x = v.input(signals);
            let by_expert = zs
                .entry(v.basis())
                .or_insert_with(|| vec![Vec::new(); v.experts.len()]);
            for (j, e) in v.experts.iter().enumerate() {
                by_expert[j].push(e.z(&v.features, &x));
            }
        }
        let experts = (!a.clocks_experts.is_empty()).then_some(a.clocks_experts.as_slice());
        // The kinds of input with enough such sides to get the scale.
        let sides: Vec<String> = zs
            .iter()
            .map(|(basis, by_expert)| (basis, by_expert.first().map_or(0, Vec::len)))
            .filter(|(_, n)| *n >= a.min_sides)
            .map(|(basis, n)| format!("{basis} {n}"))
            .collect();
        let named = match experts {
            Some(ks) => format!(
                "the experts {}",
                ks.iter()
                    .map(|k| kind_name(*k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "every expert".to_owned(),
        };
        clocks_words = if sides.is_empty() {
            format!(
                "; game sides with clocks read as every side (fewer than {} unseen clean such sides)",
                a.min_sides
            )
        } else {
            format!(
                "; {named} of the rated kinds on a scale of their own for game sides with clocks, from the clean such sides the models never saw ({}; spread from the {:.1}th percentile{})",
                sides.join(", "),
                a.clocks_tail * 100.0,
                if a.clocks_variant {
                    ", as a kind of input of its own"
                } else {
                    ""
                }
            )
        };
        for line in set_clocks_scale(
            &mut model,
            &mut readers,
            &zs,
            a.min_sides,
            a.clocks_tail,
            experts,
        ) {
            eprintln!("fairsight: {line}");
        }
        if a.clocks_variant {
            for line in clocks_variant(&mut model, &mut readers) {
                eprintln!("fairsight: {line}");
            }
        }
    }
    // The kinds of input whose scaling `--calibrate` fitted again.
    let mut refitted: Vec<String> = Vec::new();
    if a.calibrate {
        let mut cal: BTreeMap<String, (Vec<f64>, Vec<bool>)> = BTreeMap::new();
        for (i, r) in base.iter().enumerate() {
            let Some(k) = reader_of(r.split, &r.game) else {
                continue;
            };
            let signals = &read_rows[k][i].signals;
            let Some(v) = readers[k].reading(signals) else {
                continue;
            };
            let (scores, labels) = cal.entry(v.basis()).or_default();
            scores.push(v.raw(&v.input(signals)));
            labels.push(r.engine());
        }
        for line in refit_scaling(&mut model, &mut readers, &cal) {
            eprintln!("fairsight: {line}");
            if let Some((basis, _)) = line.split_once(": ") {
                refitted.push(basis.to_owned());
            }
        }
    }
    if let Some(path) = &a.sides {
        let mut t = String::from("game\tplayer\tsplit\tkind\trating\tbasis\tprobability\treader\n");
        for (i, r) in base.iter().enumerate() {
            let Some(k) = reader_of(r.split, &r.game) else {
                continue;
            };
            let Some(x) = readers[k].assess(&read_rows[k][i].signals) else {
                continue;
            };
            let _ = writeln!(
                t,
                "{}\t{}\t{:?}\t{:?}\t{}\t{}\t{}\t{k}",
                r.game,
                r.player,
                r.split,
                r.kind,
                r.signals.rating.map_or(String::new(), |x| x.to_string()),
                x.basis,
                x.probability,
            );
        }
        std::fs::write(path, t).with_context(|| format!("writing {}", path.display()))?;
    }
    // The bands' bounds, ascending; a rating's band is the first whose bound is above it.
    let given = if a.lower_rated.is_empty() {
        let own: Vec<f64> = model
            .variants
            .iter()
            .find(|v| v.rated && !v.lower_rated.is_empty())
            .map(|v| v.lower_rated.iter().map(|b| b.below).collect())
            .unwrap_or_default();
        if own.is_empty() { vec![1900.0] } else { own }
    } else {
        a.lower_rated.clone()
    };
    let mut bounds: Vec<f64> = given.iter().copied().filter(|b| *b > 0.0).collect();
    bounds.sort_by(f64::total_cmp);
    bounds.dedup();
    let top = bounds.last().copied();
    let band_of = |rating: Option<f64>| rating.and_then(|r| bounds.iter().position(|b| r < *b));
    let rated_words = |i: usize| match i {
        0 => format!("under {}", bounds[0]),
        _ => format!("{}-{}", bounds[i - 1], bounds[i] - 1.0),
    };
    // Each unseen clean side's probability, and whether it is rated under the top bound.
    let mut by_basis: BTreeMap<String, Vec<(f64, bool)>> = BTreeMap::new();
    // The clean rated sides of each band, train and validation.
    let mut lower: BTreeMap<(String, usize), Vec<f64>> = BTreeMap::new();
    let mut crossed = 0;
    let mut withheld = 0;
    for (i, r) in base
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == Kind::Human)
    {
        let reader = reader_of(r.split, &r.game);
        // A train side no reader left out is read in-sample by the model, for the band
        // only.
        let k = reader.unwrap_or(0);
        let Some(x) = readers[k].assess(&read_rows[k][i].signals) else {
            continue;
        };
        let band = band_of(r.signals.rating);
        if let Some(b) = band.filter(|_| r.split != Split::Test) {
            lower
                .entry((x.basis.clone(), b))
                .or_default()
                .push(x.probability);
            // The same side as the rated kind without clocks reads it, for its bands.
            let signals = &read_rows[k][i].signals;
            if a.bands_all_rated
                && x.basis == "rated, clocks"
                && let Some(p) = readers[k].rated_probability_without_clocks(signals)
            {
                lower
                    .entry(("rated, no clocks".to_owned(), b))
                    .or_default()
                    .push(p);
            }
        }
        if reader.is_some() {
            crossed += usize::from(k > 0);
            by_basis
                .entry(x.basis)
                .or_default()
                .push((x.probability, band.is_some()));
            if a.unrated_withheld && r.signals.rating.is_some() {
                let signals = read_rows[k][i].signals.without(&RATED_SIGNALS);
                if let Some(w) = readers[k]
                    .assess(&signals)
                    .filter(|w| !w.basis.starts_with("rated"))
                {
                    withheld += 1;
                    by_basis
                        .entry(w.basis)
                        .or_default()
                        .push((w.probability, false));
                }
            }
        }
    }
    if a.unrated_withheld {
        eprintln!(
            "fairsight: {withheld} unseen clean rated sides read with their rating withheld, for the unrated kinds' thresholds"
        );
    }
    if !a.cross.is_empty() {
        eprintln!(
            "fairsight: {crossed} clean train sides the model saw, read by the {} fold models that did not",
            a.cross.len()
        );
    }
    let mut changed = Vec::new();
    // The kinds of input whose thresholds were set from the sides above the bands alone,
    // with all their sides, should no band come out.
    let mut apart: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for v in &mut model.variants {
        let basis = v.basis();
        let sides = by_basis.remove(&basis).unwrap_or_default();
        let all = sorted(sides.iter().map(|(p, _)| *p).collect());
        let above = sorted(sides.iter().filter(|s| !s.1).map(|(p, _)| *p).collect());
        let humans = match top {
            Some(top) if a.band_apart && v.rated && above.len() >= a.min_sides => {
                eprintln!(
                    "fairsight: {basis}: from the {} unseen clean sides rated {top} or more (of {})",
                    above.len(),
                    all.len()
                );
                apart.insert(basis.clone(), all);
                above
            }
            _ => all,
        };
        if humans.len() < a.min_sides {
            eprintln!(
                "fairsight: {basis}: {} unseen clean sides, fewer than {}: thresholds kept (unclear {:.3}, look closer {:.3})",
                humans.len(),
                a.min_sides,
                v.unclear,
                v.look_closer
            );
            continue;
        }
        let (unclear, look_closer) = side_thresholds(&humans);
        eprintln!(
            "fairsight: {basis}: {} unseen clean sides: unclear {:.3} -> {unclear:.3}, look closer {:.3} -> {look_closer:.3}",
            humans.len(),
            v.unclear,
            v.look_closer,
        );
        v.unclear = unclear;
        v.look_closer = look_closer;
        changed.push(format!("{basis} from {}", humans.len()));
    }
    let mut banded = Vec::new();
    for v in model.variants.iter_mut().filter(|v| v.rated) {
        let basis = v.basis();
        let kept = |v: &AssessmentVariant| {
            if v.lower_rated.is_empty() {
                return "none".to_owned();
            }
            v.lower_rated
                .iter()
                .map(|b| format!("under {}: {:.3}", b.below, b.look_closer))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if bounds.is_empty() {
            eprintln!(
                "fairsight: {basis}: one look closer for every rating (was {})",
                kept(v)
            );
            v.lower_rated.clear();
            continue;
        }
        let mut bands = Vec::new();
        for (i, &below) in bounds.iter().enumerate() {
            let humans = sorted(lower.remove(&(basis.clone(), i)).unwrap_or_default());
            if humans.len() < a.min_band_sides {
                let old = v.lower_rated.iter().find(|b| b.below == below).cloned();
                eprintln!(
                    "fairsight: {basis}: {} clean sides rated {} (train and validation), fewer than {}: the band's threshold kept ({}){}",
                    humans.len(),
                    rated_words(i),
                    a.min_band_sides,
                    old.as_ref()
                        .map_or("none".to_owned(), |b| format!("{:.3}", b.look_closer)),
                    if a.band_apart && old.is_none() {
                        ": the kind's threshold, set without them, holds them"
                    } else {
                        ""
                    }
                );
                bands.extend(old);
                continue;
            }
            let b = lower_rated(&humans, below, v.look_closer, a.band_rate);
            let keep = a.band_apart || b.look_closer > v.look_closer;
            eprintln!(
                "fairsight: {basis}: {} clean sides rated {} (train and validation), {} of them at look closer {:.3}: theirs {:.3}, unclear {:.3}{}",
                b.sides,
                rated_words(i),
                b.at_variant,
                v.look_closer,
                b.look_closer,
                b.unclear.max(v.unclear),
                if keep {
                    ""
                } else {
                    ", not above it: no band of its own"
                }
            );
            if keep {
                banded.push(format!("{basis} {} from {}", rated_words(i), b.sides));
                bands.push(b);
            }
        }
        v.lower_rated = bands;
    }
    // Without a band of their own, the sides under it are read by the kind's threshold
    // again: set from all its sides.
    for v in model
        .variants
        .iter_mut()
        .filter(|v| v.lower_rated.is_empty())
    {
        if let Some(all) = apart.remove(&v.basis()) {
            (v.unclear, v.look_closer) = side_thresholds(&all);
            eprintln!(
                "fairsight: {}: no band of its own: from all {} unseen clean sides again, unclear {:.3}, look closer {:.3}",
                v.basis(),
                all.len(),
                v.unclear,
                v.look_closer
            );
        }
    }
    let apart_words = match top {
        Some(top) if !apart.is_empty() => format!(
            " ({} from the sides rated {top} or more)",
            apart.keys().cloned().collect::<Vec<_>>().join(", "),
        ),
        _ => String::new(),
    };
    // How often a clean side may reach `look closer` at these thresholds: what a player's
    // game sides, each read on its own, are weighed against.
    let band = model.variants.iter().any(|v| !v.lower_rated.is_empty());
    model.side_look_closer_rate = Some(if band {
        SIDE_RATE.max(a.band_rate)
    } else {
        SIDE_RATE
    });
    let before: Vec<f64> = model
        .variants
        .iter()
        .map(|v| v.look_closer_player)
        .collect();
    // The same sides as a side's thresholds: validation, and train games the fit never
    // saw (or, with `--cross`, a fold model never saw), each reader's own.
    let mut by_reader: Vec<Vec<Record>> = vec![Vec::new(); readers.len()];
    if a.players {
        let manifest = Manifest::load(&a.corpus)?;
        for r in load_records(&a.corpus, &[], None, None)? {
            if let Some(k) = manifest
                .games
                .get(&r.id)
                .and_then(|g| reader_of(g.split, &r.id))
            {
                by_reader[k].push(r);
            }
        }
    }
    let mut player_scale_words = String::new();
    let games_scale = a.player_games_scale.is_some();
    let every = a.player_games_scale == Some(GamesScale::All);
    if a.unrated_player_scale || games_scale {
        let groups: Vec<(&[Record], &AssessmentModel)> = by_reader
            .iter()
            .zip(&readers)
            .map(|(records, m)| (records.as_slice(), m))
            .collect();
        let sizes: Vec<usize> = if games_scale {
            FEW_GAMES.iter().chain(&PLAYER_GAMES).copied().collect()
        } else {
            vec![PLAYER_GAMES[0]]
        };
        let card = set_player_calibration(
            &groups,
            oof.as_ref(),
            &mut model,
            &sizes,
            MIN_PLAYER_SCALE,
            |v| every || !v.rated,
        )?;
        eprint!("{card}");
        let mut scaled = Vec::new();
        for v in model.variants.iter().filter(|v| every || !v.rated) {
            let Some(ab) = v.platt_player else { continue };
            let cd = v.platt_player_games;
            if !card.contains(&format!(
                "players, {}: the player reading scaled",
                v.basis()
            )) {
                continue;
            }
            scaled.push(v.basis());
            for m in readers.iter_mut() {
                for w in m.variants.iter_mut().filter(|w| w.basis() == v.basis()) {
                    w.platt_player = Some(ab);
                    w.platt_player_games = cd;
                }
            }
        }
        if !scaled.is_empty() {
            player_scale_words = format!(
                "; a player's scaling fitted again for {} on the pseudo-players of {} games of every kind the models never saw, the rated ones read with their rating withheld{}",
                scaled.join(", "),
                sizes
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                if every {
                    " for the unrated kinds (the rated kinds' on their own)"
                } else {
                    ""
                }
            );
        }
    }
    if a.players {
        let groups: Vec<(&[Record], &AssessmentModel)> = by_reader
            .iter()
            .zip(&readers)
            .map(|(records, m)| (records.as_slice(), m))
            .collect();
        let card = set_player_thresholds(
            &groups,
            oof.as_ref(),
            if a.cross.is_empty() {
                "the validation split and the train games the fit never saw"
            } else {
                "the validation split and the train games, each read by a model that never saw it"
            },
            a.band_apart,
            // A player's scale fitted on players read without their rating sets an
            // unrated kind's player bars on the same players.
            a.unrated_withheld || a.unrated_player_scale || games_scale,
            a.real_players,
            (a.unrated_player_scale || games_scale, every),
            &mut model,
        )?;
        eprint!("{card}");
    } else {
        for v in &mut model.variants {
            v.look_closer_player = v.look_closer_player.max(v.look_closer);
        }
    }
    for (v, old) in model.variants.iter().zip(before) {
        eprintln!(
            "fairsight: {}: a player's look closer {old:.3} -> {:.3}",
            v.basis(),
            v.look_closer_player
        );
    }
    let source = model
        .source
        .split("; thresholds")
        .next()
        .unwrap_or_default()
        .to_owned();
    let games = Manifest::load(&a.corpus)?.games.len();
    let withheld_words = if a.unrated_withheld {
        format!("; an unrated kind's with {withheld} rated ones read with their rating withheld")
    } else {
        String::new()
    };
    let unseen = if a.cross.is_empty() {
        format!("the clean sides it did not see{apart_words}{withheld_words}")
    } else {
        format!(
            "the clean sides it did not see and those it saw, each read by one of {} models fitted without its fold{apart_words}{withheld_words}",
            a.cross.len()
        )
    };
    model.source = format!(
        "{source}; thresholds set again on a {games}-game corpus: a side's from {unseen} ({}), a player's {}",
        if changed.is_empty() {
            "too few: kept".to_owned()
        } else {
            changed.join(", ")
        },
        if a.players && a.real_players {
            "from the clean pseudo-players and real players of the same sides"
        } else if a.players {
            "from the clean pseudo-players of the same sides"
        } else {
            "kept (never below a side's)"
        }
    ) + &if refitted.is_empty() {
        String::new()
    } else {
        format!(
            "; the scaling fitted again on every side of every kind the models never saw ({})",
            refitted.join(", ")
        )
    } + &if banded.is_empty() {
        String::new()
    } else {
        format!(
            "; a game side's of a rating band from {}% of the band's clean train and validation sides ({})",
            100.0 * a.band_rate,
            banded.join(", ")
        )
    } + &clocks_words
        + &player_scale_words
        + &match model.late_reference.as_ref().and_then(|r| r.side_moves) {
            Some(t) if a.side_moves => format!(
                "; a player's later-half and top-lines z-scores count their games by their moves (a typical clean side's {:.1} and {:.1})",
                t.late, t.top
            ),
            _ => String::new(),
        };
    if let Some(path) = &a.keep_rated_from {
        let mut slot = None;
        let kept = load_model(Some(path), &mut slot)?;
        let n = keep_rated(&mut model, kept).with_context(|| {
            format!(
                "--keep-rated-from {}: its rated kinds cannot be put in this model",
                path.display()
            )
        })?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        eprintln!("fairsight: the {n} rated kinds of input kept whole from {name}");
        model.source += &format!(
            "; then the rated kinds of input put back whole from {name} (their experts, scalings, thresholds and bands as set there)"
        );
    }
    std::fs::write(&a.out, model.to_json() + "\n")
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("fairsight: wrote {}", a.out.display());
    Ok(())
}

/// `assess thresholds --keep-rated-from`: `model`'s rated kinds of input replaced by
/// `kept`'s, whole; how many. Both must read the rated signals alike, so that every rated
/// side is read as `kept` reads it: the same settings and engine, the same rated kinds,
/// and the same later-half reference but for `switchOddsAll`, which no rated expert of
/// `kept` (a side's or a player's) may read.
fn keep_rated(model: &mut AssessmentModel, kept: &AssessmentModel) -> Result<usize> {
    if model.settings != kept.settings || model.engine != kept.engine {
        bail!("it was made at other settings or with another engine");
    }
    let bases = |m: &AssessmentModel| -> Vec<String> {
        m.variants
            .iter()
            .filter(|v| v.rated)
            .map(|v| v.basis())
            .collect()
    };
    if bases(model) != bases(kept) {
        bail!(
            "its rated kinds ({}) are not this model's ({})",
            bases(kept).join(", "),
            bases(model).join(", ")
        );
    }
    let reads_all = kept.variants.iter().filter(|v| v.rated).any(|v| {
        v.experts.iter().any(|e| {
            e.features.iter().any(|f| f == "switchOddsAll")
                || e.player
                    .as_ref()
                    .is_some_and(|p| p.features.iter().any(|f| f == "switchOddsAll"))
        })
    });
    if reads_all {
        bail!("a rated expert of it reads switchOddsAll, which this model's reference sets anew");
    }
    let without_all = |m: &AssessmentModel| {
        m.late_reference.clone().map(|mut r| {
            r.switch_odds_all = None;
            r
        })
    };
    if without_all(model) != without_all(kept) {
        bail!("its later-half reference differs from this model's in what the rated kinds read");
    }
    // The most often a clean side reaches `look closer`: the unrated kinds' rate, or the
    // kept rated kinds' where they let more through (a band's).
    if let Some(rate) = kept.side_look_closer_rate {
        model.side_look_closer_rate = Some(rate.max(SIDE_RATE));
    }
    let mut n = 0;
    for v in model.variants.iter_mut().filter(|v| v.rated) {
        if let Some(k) = kept
            .variants
            .iter()
            .find(|k| k.rated && k.basis() == v.basis())
        {
            *v = k.clone();
            n += 1;
        }
    }
    Ok(n)
}

/// Whether a model fitted on the `fitted` manifest never saw game `id`, now in `split`:
/// every validation game, and train games that were not train games of its fit.
fn unseen_by(fitted: &Manifest, split: Split, id: &str) -> bool {
    match split {
        Split::Validation => true,
        Split::Train => fitted.games.get(id).is_none_or(|g| g.split != Split::Train),
        _ => false,
    }
}

/// Which of the models fitted on `fitted` (the model first, then its fold models) reads a
/// side of game `id`, now in `split`, out of sample: the first that never saw it.
fn first_unseen(fitted: &[&Manifest], split: Split, id: &str) -> Option<usize> {
    fitted.iter().position(|f| unseen_by(f, split, id))
}

/// A fold model for `assess thresholds --cross`: `MODEL=MANIFEST`, the model and the
/// manifest it was fitted on.
fn cross_reader(spec: &str) -> Result<(AssessmentModel, Manifest)> {
    let Some((model, manifest)) = spec.split_once('=') else {
        bail!(
            "--cross {spec}: expected MODEL=MANIFEST (a fold model and the manifest it was fitted on)"
        );
    };
    let mut slot = None;
    let model = load_model(Some(&PathBuf::from(model)), &mut slot)?.clone();
    Ok((model, Manifest::load_file(std::path::Path::new(manifest))?))
}

/// `assess folds`: the corpus manifest once for each fold of its train split, with that
/// fold's games left out ([`FoldsArgs`]).
fn write_folds(a: FoldsArgs) -> Result<()> {
    if a.k < 2 {
        bail!("--k {}: at least 2 folds", a.k);
    }
    let all = rows(&a.corpus, None)?;
    let train: Vec<&Row> = all.iter().filter(|r| r.split == Split::Train).collect();
    let fold_of = if a.stable {
        stable_game_folds(&train, a.k, a.seed)
    } else {
        game_folds(&train, a.k, a.seed)
    };
    let path = Manifest::path(&a.corpus);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let manifest: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a manifest", path.display()))?;
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    for f in 0..a.k {
        let mut m = manifest.clone();
        let games = m
            .get_mut("games")
            .and_then(|g| g.as_object_mut())
            .with_context(|| format!("{}: no games", path.display()))?;
        games.retain(|id, _| fold_of.get(id.as_str()) != Some(&f));
        let out = a.out.join(format!("fold-{}.json", f + 1));
        std::fs::write(&out, serde_json::to_string_pretty(&m)? + "\n")
            .with_context(|| format!("cannot write {}", out.display()))?;
        let left = fold_of.values().filter(|&&g| g == f).count();
        let players: std::collections::BTreeSet<&str> = train
            .iter()
            .filter(|r| fold_of.get(r.game.as_str()) == Some(&f))
            .map(|r| r.player.as_str())
            .collect();
        eprintln!(
            "fairsight: wrote {}: {left} train games ({} players) left out",
            out.display(),
            players.len()
        );
    }
    Ok(())
}

/// The fold of each train game ([`folds`]: no game and no player in two).
fn game_folds<'a>(train: &[&'a Row], k: usize, seed: u64) -> BTreeMap<&'a str, usize> {
    train
        .iter()
        .zip(folds(train, k, seed))
        .map(|(r, f)| (r.game.as_str(), f))
        .collect()
}

/// The share of the clean sides a model never saw that its side threshold lets through
/// ([`side_thresholds`]), and a rating band's ([`lower_rated`]): the model's
/// `sideLookCloserRate` is the larger of those it uses.
const SIDE_RATE: f64 = 0.005;
const BAND_RATE: f64 = 0.01;

/// The fit's rule for a kind of input's side thresholds, from its clean human sides'
/// probabilities (sorted): `unclear` at their 90th percentile, `look closer` above all but
/// 0.5% of them and never below 0.5 (the test split's rate is then measured by `assess
/// eval`); `unclear` never above `look closer`.
fn side_thresholds(humans: &[f64]) -> (f64, f64) {
    let allowed = (humans.len() as f64 * SIDE_RATE).floor() as usize;
    let above = humans[humans.len() - 1 - allowed.min(humans.len() - 1)];
    let look_closer = (above + 1e-9).clamp(0.5, 0.999);
    (percentile(humans, 0.90).min(look_closer), look_closer)
}

/// A band's thresholds from its clean sides' probabilities (sorted, at least one):
/// `look closer` above all but 1% of them, as [`side_thresholds`] clamps it, and `unclear`
/// at their 90th percentile, never above it; with `variant`, the variant's own `look
/// closer`, to count the sides that reach it.
fn lower_rated(humans: &[f64], below: f64, variant: f64, rate: f64) -> LowerRated {
    let allowed = ((humans.len() as f64 * rate + 1e-9).floor() as usize).min(humans.len() - 1);
    let look_closer = (humans[humans.len() - 1 - allowed] + 1e-9).clamp(0.5, 0.999);
    LowerRated {
        below,
        unclear: percentile(humans, 0.90).min(look_closer),
        look_closer,
        sides: humans.len(),
        at_variant: humans.iter().filter(|&&p| p >= variant).count(),
        look_closer_player: None,
        look_closer_few: None,
    }
}

/// The model at `path`, or the shipped one. `slot` keeps a loaded model alive.
fn load_model<'a>(
    path: Option<&PathBuf>,
    slot: &'a mut Option<AssessmentModel>,
) -> Result<&'a AssessmentModel> {
    match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            let m = AssessmentModel::from_json(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            Ok(slot.insert(m))
        }
        None => AssessmentModel::builtin()
            .context("no assessment model is built in (models/assessment.json)"),
    }
}

/// What a row is, for the slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Human,
    /// Engines rated above 3000 (TCEC).
    TopEngine,
    /// Engines rated 3000 or less (self-play at limited strength).
    WeakEngine,
    /// The switched side of a switched game.
    Switched,
}

/// One game side of the corpus.
#[derive(Clone)]
struct Row {
    /// The game (record id).
    game: String,
    /// The player (lower-case name; an engine game's sides are their own "players").
    player: String,
    kind: Kind,
    /// Which side of the game.
    side: Side,
    split: Split,
    signals: Signals,
    /// The side's Elo tag (for the slices; never a feature).
    elo: Option<f64>,
    /// A weaker engine's signals scored against its own nominal Elo tag instead of a
    /// drawn rating (for the slice that says what that gives; never trained on).
    own_tag: Option<Signals>,
    /// A switched side's searched moves from its `SwitchPly` on, the engine's, among those
    /// the later-half signals read ([`engine_moves`]; for studies, never a feature).
    engine_moves: Option<usize>,
}

impl Row {
    fn engine(&self) -> bool {
        self.kind != Kind::Human
    }
}

/// The rows as CSV: a header, then one line a row.
fn rows_csv(rows: &[Row]) -> String {
    let mut out = String::from("game,player,kind,split,elo,rating,moves,clocks");
    for s in SIGNALS {
        out.push(',');
        out.push_str(s);
    }
    out.push('\n');
    for r in rows {
        let kind = match r.kind {
            Kind::Human => "human",
            Kind::TopEngine => "top-engine",
            Kind::WeakEngine => "weak-engine",
            Kind::Switched => "switched",
        };
        let split = match r.split {
            Split::Train => "train",
            Split::Validation => "validation",
            Split::Test => "test",
            Split::None => "none",
        };
        // Names may hold commas or quotes: quote the field, doubling any quote.
        let player = format!("\"{}\"", r.player.replace('"', "\"\""));
        let elo = r.elo.map(|e| e.to_string()).unwrap_or_default();
        let rating = r.signals.rating.map(|e| e.to_string()).unwrap_or_default();
        let _ = write!(
            out,
            "{},{player},{kind},{split},{elo},{rating},{},{}",
            r.game, r.signals.moves, r.signals.clocks
        );
        for v in r.signals.values {
            out.push(',');
            if let Some(v) = v {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    out
}

/// The Elo tags of the sides of the human games in the manifest, sorted: the ratings a
/// top engine is scored against ([`drawn_rating`]). Games stored since the manifest was
/// last brought up to date do not count, so a fit depends only on the manifest.
fn human_ratings(records: &[Record], games: &[GameReport], manifest: &Manifest) -> Vec<f64> {
    let mut v: Vec<f64> = records
        .iter()
        .zip(games)
        .filter(|(r, _)| r.label == Label::Human && manifest.games.contains_key(&r.id))
        .flat_map(|(_, g)| [tag_rating(g, Side::White), tag_rating(g, Side::Black)])
        .flatten()
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The rating an engine's side is scored against: one of the human sides' ratings,
/// drawn by a hash of `key` (the game and side, or the pseudo-player). An engine's Elo
/// tag is no rating of a player who uses it: TCEC's (about 3500) would let a model learn
/// "rated 3500" (a match rate with its z-score against the rating gives the rating
/// back), not engine play; a limited engine's nominal `UCI_Elo` makes it, in every
/// strength statistic, a human of exactly that rating, which is no cheater (a player
/// gains nothing from an engine of their own strength). Drawn from the humans' own
/// ratings, a rating says nothing of the label: the situation of a player of any rating
/// who hands their moves to an engine. `None` when no human side is rated.
///
/// The hash is taken as a quantile (`human` is sorted): as the corpus grows, a side keeps
/// about the same rating, so the evaluation of the same sides does not jump with every
/// game added (an index modulo the count gave every engine side a new rating each time).
fn drawn_rating(human: &[f64], key: &str) -> Option<f64> {
    // splitmix64's finaliser: FNV-1a's high bits differ little between keys that differ
    // only in their last characters.
    let mut h = fnv1a(key);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    let i = ((u128::from(h) * human.len() as u128) >> 64) as usize;
    (!human.is_empty()).then(|| human[i])
}

/// How far below a strength-limited engine's nominal Elo the player who uses it is
/// rated: a player gains nothing from an engine of their own strength (against its own
/// tag a limited engine is, in every strength statistic, a human of that rating), and
/// nothing from a weaker one (a 1400 engine in a 2400 player's hands, which is what a
/// rating drawn from all humans gave, plays worse than its user). The weak-engine
/// cheater is a player who gains at least this much from the engine: 200 points, an
/// expected score of about 0.76 against their own level.
const WEAK_ENGINE_GAIN: f64 = 200.0;

/// The rating an engine's side is scored against: for a top engine (`tag` above 3000,
/// or none) one drawn from all human ratings ([`drawn_rating`]); for a strength-limited
/// engine one drawn from the humans rated at least [`WEAK_ENGINE_GAIN`] below its tag,
/// the players whom that engine makes stronger (`None` if there are none).
fn engine_rating(human: &[f64], tag: Option<f64>, key: &str) -> Option<f64> {
    match tag {
        Some(t) if t <= 3000.0 => {
            let below = human.partition_point(|r| *r <= t - WEAK_ENGINE_GAIN);
            drawn_rating(&human[..below], key)
        }
        _ => drawn_rating(human, key),
    }
}

/// Every scored game side of the corpus (all splits but `none`). An engine's side is
/// scored against a drawn human rating ([`engine_rating`]); `elo` keeps its tag, and a
/// weaker engine's `own_tag` its signals against that tag.
fn rows(corpus: &std::path::Path, classifier_oof: Option<&std::path::Path>) -> Result<Vec<Row>> {
    rows_of(
        corpus,
        load_records(corpus, &[], None, None)?,
        classifier_oof,
    )
}

/// Out-of-fold classifier probabilities by game id, each ply's or none (`train fit
/// --oof`).
type ClassifierOof = BTreeMap<String, Vec<Option<f64>>>;

fn load_classifier_oof(path: &std::path::Path) -> Result<ClassifierOof> {
    serde_json::from_str(
        &std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
    )
    .with_context(|| format!("{}: not out-of-fold probabilities", path.display()))
}

/// [`rows`] of these records of the corpus only (the others are not rebuilt).
fn rows_of(
    corpus: &std::path::Path,
    records: Vec<Record>,
    classifier_oof: Option<&std::path::Path>,
) -> Result<Vec<Row>> {
    let manifest = Manifest::load(corpus)?;
    eprintln!("fairsight: rebuilding {} corpus games", records.len());
    let mut report = rebuild_games(&records)?;
    if let Some(path) = classifier_oof {
        let oof = load_classifier_oof(path)?;
        let n = with_out_of_fold(&mut report.games, &records, &oof)?;
        eprintln!("fairsight: out-of-fold classifier probabilities for {n} games");
    }
    let calibration =
        Calibration::builtin().filter(|c| c.applies_to(&report.settings, &report.engine));
    if calibration.is_none() {
        eprintln!(
            "fairsight: the shipped rating calibration does not apply to these settings: no z-scores"
        );
    }
    let human_ratings = human_ratings(&records, &report.games, &manifest);
    let mut out = Vec::new();
    for (r, game) in records.iter().zip(&report.games) {
        // Games stored since the manifest was last brought up to date have no split yet.
        let Some(entry) = manifest.games.get(&r.id) else {
            continue;
        };
        if entry.split == Split::None || game.error.is_some() {
            continue;
        }
        let switched = game.tag("Switched").map(str::to_owned);
        for side in [Side::White, Side::Black] {
            let side_name = match side {
                Side::White => "white",
                Side::Black => "black",
            };
            let kind = match r.label {
                Label::Human => Kind::Human,
                Label::Switched if switched.as_deref() == Some(side_name) => Kind::Switched,
                Label::Switched => continue,
                Label::Engine => {
                    if tag_rating(game, side).is_some_and(|e| e > 3000.0) {
                        Kind::TopEngine
                    } else {
                        Kind::WeakEngine
                    }
                }
            };
            let elo = tag_rating(game, side);
            let rating = if r.label == Label::Engine {
                engine_rating(&human_ratings, elo, &format!("{}#{side_name}", r.id))
            } else {
                elo
            };
            let Some(mut signals) = side_signals(game, side, rating, calibration) else {
                continue;
            };
            let mut own_tag = (kind == Kind::WeakEngine)
                .then(|| side_signals(game, side, elo, calibration))
                .flatten();
            if r.label == Label::Engine {
                signals = signals.without(&CLOCK_SIGNALS);
                own_tag = own_tag.map(|s| s.without(&CLOCK_SIGNALS));
            }
            let player = if r.label == Label::Engine {
                format!("{}#{side_name}", r.id)
            } else {
                game.sides.get(side).player.to_lowercase()
            };
            let engine_moves = (kind == Kind::Switched)
                .then(|| engine_moves(game, side))
                .flatten();
            out.push(Row {
                game: r.id.clone(),
                player,
                kind,
                side,
                split: entry.split,
                signals,
                elo,
                own_tag,
                engine_moves,
            });
        }
    }
    Ok(out)
}

/// How many of a switched side's searched moves, those the later-half signals read (not
/// book, forced or repeated; the last of its [`Signals::move_cells`]), came from its
/// `SwitchPly` on: the engine's moves a detector could see. `None` without the tag. A side
/// whose game was decided or over before the switch has none: every move a report reads
/// is the player's own.
fn engine_moves(game: &GameReport, side: Side) -> Option<usize> {
    let switch: u32 = game.tag("SwitchPly")?.trim().parse().ok()?;
    Some(
        fairsight::fit::side_move_cells(game, side)
            .iter()
            .filter(|(ply, _)| *ply >= switch)
            .count(),
    )
}

/// Leaves the games of these sources (a record id's part before the `/`) out of `split`;
/// an error names a source with no game in it (a typo would otherwise measure everything).
fn without_sources(rows: &mut Vec<Row>, split: Split, sources: &[String]) -> Result<()> {
    let source = |r: &Row| r.game.split('/').next().unwrap_or_default().to_owned();
    for s in sources {
        if !rows.iter().any(|r| r.split == split && source(r) == *s) {
            bail!("--without-source {s}: no game of the {split:?} split comes from it");
        }
    }
    rows.retain(|r| r.split != split || !sources.contains(&source(r)));
    Ok(())
}

/// Every row's later half against its rating ([`LateReference`]).
fn with_late_reference(rows: &mut [Row], reference: &LateReference) {
    for r in rows {
        r.signals = r.signals.with_late_z(reference);
        r.own_tag = r.own_tag.as_ref().map(|s| s.with_late_z(reference));
    }
}

/// The later half's expected values at a rating, from the clean human sides of the
/// train split, and its odds of an engine ([`LateOdds`]) against the switched sides of
/// the train split; the same odds of every move against the switched sides' moves from
/// their switch on, for `switchOdds`.
fn fit_late_reference(rows: &[Row]) -> Option<LateReference> {
    let train = |kind: Kind| {
        rows.iter()
            .filter(move |r| r.split == Split::Train && r.kind == kind)
            .map(|r| &r.signals)
    };
    let humans: Vec<&Signals> = train(Kind::Human).collect();
    let mut reference = LateReference::fit(&humans)?;
    let rated: Vec<(f64, &[u32])> = humans
        .iter()
        .filter_map(|s| Some((s.rating?, s.late_cells.as_slice())))
        .collect();
    let switched: Vec<&[u32]> = train(Kind::Switched)
        .map(|s| s.late_cells.as_slice())
        .collect();
    reference.late_odds = LateOdds::fit(&rated, &switched);
    // `switchOdds`: every move of the clean humans, against the engine's moves of the
    // switched sides (those from the switch on, the last of their moves); `switchOddsAll`:
    // the same against every clean human in one band, rated or not.
    let everyone: Vec<(Option<f64>, Vec<u32>)> = humans
        .iter()
        .map(|s| (s.rating, LateOdds::counts(s.move_cells.iter().copied())))
        .collect();
    let engine: Vec<Vec<u32>> = rows
        .iter()
        .filter(|r| r.split == Split::Train && r.kind == Kind::Switched)
        .map(|r| {
            let cells = &r.signals.move_cells;
            let from = cells.len() - r.engine_moves.unwrap_or(0).min(cells.len());
            LateOdds::counts(cells[from..].iter().copied())
        })
        .collect();
    let engine: Vec<&[u32]> = engine.iter().map(Vec::as_slice).collect();
    let rated: Vec<(f64, &[u32])> = everyone
        .iter()
        .filter_map(|(r, c)| Some(((*r)?, c.as_slice())))
        .collect();
    reference.switch_odds = LateOdds::fit(&rated, &engine);
    let all: Vec<&[u32]> = everyone.iter().map(|(_, c)| c.as_slice()).collect();
    reference.switch_odds_all = LateOdds::fit_one_band(&all, &engine);
    Some(reference)
}

/// How far the clean human sides of the train split sit from zero in each z-score
/// against the rating, by band ([`RatingBias`]): the later half's and top lines' as the
/// rows have them (`reference` applied, without a bias), Regan's as his model gives them.
fn fit_rating_bias(rows: &[Row]) -> RatingBias {
    let mut samples = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.split == Split::Train && r.kind == Kind::Human)
    {
        let s = &r.signals;
        let Some(rating) = s.rating else { continue };
        for name in ["zLateLoss", "zLateMatch", "zTopLines", "zSeenLines"] {
            if let Some(z) = s.get(name) {
                samples.push((name, rating, z, s.games));
            }
        }
        for (name, z) in REGAN_SIGNALS.iter().zip(s.regan.0) {
            if let Some(z) = z {
                samples.push((*name, rating, z, s.regan.1));
            }
        }
    }
    RatingBias::fit(&samples)
}

/// The z-scores' player effects ([`PlayerEffect`]) among the clean human sides of the
/// train split's players with two or more of them, as the rows have them (`reference`
/// and any bias applied).
fn fit_player_effects(rows: &[Row]) -> Vec<PlayerEffect> {
    let humans: Vec<&Row> = rows
        .iter()
        .filter(|r| r.split == Split::Train && r.kind == Kind::Human)
        .collect();
    RATED_SIGNALS
        .iter()
        .filter_map(|name| {
            let mut by_player: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in &humans {
                if let Some(z) = r.signals.get(name) {
                    by_player.entry(&r.player).or_default().push(z);
                }
            }
            PlayerEffect::fit(name, &by_player.into_values().collect::<Vec<_>>())
        })
        .collect()
}

/// The player effects in words, one line.
fn player_effects_words(effects: &[PlayerEffect]) -> String {
    let mut out = String::from("share of each z-score's spread between players (icc; players):");
    for e in effects {
        let _ = write!(out, " {} {:.2} ({})", e.signal, e.icc, e.players);
    }
    out + "\n"
}

/// The bias in words, one line per signal: each band's mean z-score of a single game
/// side (bias per unit times the square root of the band's median units).
fn rating_bias_words(bias: &RatingBias) -> String {
    let mut out =
        String::from("z-scores of clean humans by rating band, taken off (per unit; bands");
    let mut lo = 0.0;
    for e in &bias.edges {
        let _ = write!(out, " {lo:.0}-{e:.0}");
        lo = *e;
    }
    let _ = writeln!(out, " {lo:.0}+):");
    for b in &bias.signals {
        let _ = write!(out, "  {:<10}", b.signal);
        for (v, n) in b.per_unit.iter().zip(&b.sides) {
            let _ = write!(out, " {v:+.3} ({n})");
        }
        out.push('\n');
    }
    out
}

/// Puts the move classifier's out-of-fold probabilities in the games they are given for
/// (by record id) and recomputes those games' per-side classifier summaries, as the
/// report does with the shipped model. Returns how many games were changed.
fn with_out_of_fold(
    games: &mut [GameReport],
    records: &[Record],
    oof: &BTreeMap<String, Vec<Option<f64>>>,
) -> Result<usize> {
    let classifier = fairsight::Classifier::builtin().context("no built-in move classifier")?;
    let mut n = 0;
    for (g, r) in games.iter_mut().zip(records) {
        let Some(probs) = oof.get(&r.id) else {
            continue;
        };
        if probs.len() != g.plies.len() {
            bail!(
                "{}: {} out-of-fold probabilities for {} plies",
                r.id,
                probs.len(),
                g.plies.len()
            );
        }
        for (p, prob) in g.plies.iter_mut().zip(probs) {
            p.engine_probability = *prob;
            p.engine_like = prob.is_some_and(|x| x >= classifier.threshold);
        }
        for side in [Side::White, Side::Black] {
            let stats = classifier.stats(g.plies.iter().filter(|p| p.side == side));
            g.sides.get_mut(side).classifier = Some(stats);
        }
        n += 1;
    }
    Ok(n)
}

/// Fold of each row: games and players joined (union-find), components dealt to folds
/// in a seeded order, so no game and no player is in two folds.
fn folds(rows: &[&Row], k: usize, seed: u64) -> Vec<usize> {
    let roots = components(rows);
    let mut comps: Vec<usize> = roots.clone();
    comps.sort_unstable();
    comps.dedup();
    let mut rng = Rng(seed ^ 0x51ed_270b_2f6a_7e11);
    rng.shuffle(&mut comps);
    // Largest components first, each to the fold with the fewest rows so far.
    let mut size: HashMap<usize, usize> = HashMap::new();
    for r in &roots {
        *size.entry(*r).or_default() += 1;
    }
    comps.sort_by_key(|c| std::cmp::Reverse(size[c]));
    let mut load = vec![0usize; k.max(2)];
    let mut fold_of: HashMap<usize, usize> = HashMap::new();
    for c in comps {
        let f = (0..load.len()).min_by_key(|&f| load[f]).unwrap_or(0);
        load[f] += size[&c];
        fold_of.insert(c, f);
    }
    roots.iter().map(|r| fold_of[r]).collect()
}

/// Folds that stay put as games are added (`assess folds --stable`): each group of games
/// linked by their players goes to the fold a hash of its first game id (and the seed)
/// names, so a group no new game joins keeps its fold, where [`folds`] deals every group
/// anew. The folds are as even as the hash makes them, not balanced.
fn stable_game_folds<'a>(train: &[&'a Row], k: usize, seed: u64) -> BTreeMap<&'a str, usize> {
    let roots = components(train);
    let mut first: HashMap<usize, &str> = HashMap::new();
    for (r, root) in train.iter().zip(&roots) {
        let id = first.entry(*root).or_insert(r.game.as_str());
        if r.game.as_str() < *id {
            *id = r.game.as_str();
        }
    }
    let k = k.max(2) as u64;
    train
        .iter()
        .zip(&roots)
        .map(|(r, root)| {
            let key = format!("{seed}:{}", first[root]);
            (r.game.as_str(), (fnv1a(&key) % k) as usize)
        })
        .collect()
}

/// Each row's group of rows linked by a game or a player (union-find), as a root index.
fn components(rows: &[&Row]) -> Vec<usize> {
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut parent: Vec<usize> = Vec::new();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut id = |key: String, parent: &mut Vec<usize>| {
        *ids.entry(key).or_insert_with(|| {
            parent.push(parent.len());
            parent.len() - 1
        })
    };
    let pairs: Vec<(usize, usize)> = rows
        .iter()
        .map(|r| {
            let g = id(format!("g:{}", r.game), &mut parent);
            let p = id(format!("p:{}", r.player), &mut parent);
            (g, p)
        })
        .collect();
    for &(g, p) in &pairs {
        let (a, b) = (find(&mut parent, g), find(&mut parent, p));
        parent[a] = b;
    }
    pairs.iter().map(|&(g, _)| find(&mut parent, g)).collect()
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// ROC AUC over the rows that have a score (NaN: none).
fn auc_scored(scores: &[f64], labels: &[bool]) -> f64 {
    let (s, l): (Vec<f64>, Vec<bool>) = scores
        .iter()
        .zip(labels)
        .filter(|(s, _)| !s.is_nan())
        .map(|(s, l)| (*s, *l))
        .unzip();
    auc(&s, &l)
}

/// The signals of a variant.
/// Signals the models leave out because another says the same: `accuracy` (a function
/// of the same win-% losses as `acpl`), `positiveRate` (the classifier's mean
/// thresholded) and `zEv` (almost `zMm`). With them, a linear model's weights can take
/// opposite signs on twins, and the reasons would then call an engine-like value human.
/// They are still reported and measured on their own.
const TWINS: [&str; 3] = ["accuracy", "positiveRate", "zEv"];

/// The raw signals a rated model reads against the rating instead (`zLateLoss`,
/// `zLateMatch`, `zTopLines`, `zSeenLines`, `switchOdds`: [`LateReference`]); both at once
/// would be twins.
const LATE_RAW: [&str; 5] = [
    "lateLoss",
    "lateMatch",
    "topLines",
    "seenLines",
    "switchOddsAll",
];

/// Absolute strength signals, which the rated weaker-engine expert leaves out. Its
/// positives are scored against ratings drawn from the humans rated 200 or more below
/// the engine ([`engine_rating`]), lower on the whole than the clean humans' own: an
/// absolute strength signal beside its z-score against the rating would give that
/// rating back (the same match rate is a high z for a low rating), and the expert would
/// learn "rated low", not engine play, as the top-engine expert once learned "rated
/// 3500" from TCEC's tags. It reads the signals measured against the rating and the
/// style ones.
const ABSOLUTE_STRENGTH: [&str; 4] = ["acpl", "accuracy", "matchRate", "competence"];

fn variant_features(rated: bool, clocks: bool) -> Vec<String> {
    SIGNALS
        .iter()
        .filter(|s| !TWINS.contains(s))
        .filter(|s| !rated || !LATE_RAW.contains(s))
        .filter(|s| rated || !RATED_SIGNALS.contains(s))
        .filter(|s| clocks || !CLOCK_SIGNALS.contains(s))
        .map(|s| s.to_string())
        .collect()
}

/// Rows a variant can be trained and judged on: with a rating if it is rated, clocks if
/// it uses them.
fn usable(r: &Row, rated: bool, clocks: bool) -> bool {
    (!rated || r.signals.rating.is_some()) && (!clocks || r.signals.clocks)
}

/// An expert named as `--leave-out` and `--clocks-experts` name them.
fn expert_kind(s: &str) -> std::result::Result<Kind, String> {
    match s {
        "top" => Ok(Kind::TopEngine),
        "weaker" => Ok(Kind::WeakEngine),
        "switched" => Ok(Kind::Switched),
        _ => Err(format!(
            "no such expert {s:?} (the experts: top, weaker, switched)"
        )),
    }
}

/// `--clocks-tail`: a percentile strictly between 0.5 and 1.
fn tail_percentile(s: &str) -> std::result::Result<f64, String> {
    let q: f64 = s.parse().map_err(|e| format!("{s}: {e}"))?;
    if q > 0.5 && q < 1.0 {
        Ok(q)
    } else {
        Err(format!("{s}: a percentile between 0.5 and 1, such as 0.99"))
    }
}

/// The standard normal's `q`-quantile, for `q` in (0.5, 1): bisection of its upper tail
/// (to 1e-12).
fn normal_quantile(q: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 40.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 0.5 * libm::erfc(mid / std::f64::consts::SQRT_2) > 1.0 - q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// An expert's centre and spread in z for sides with clocks.
type Scale = (f64, f64);

/// `assess thresholds --clocks-scale`: each expert of a kind of input put on a scale of its
/// own for game sides with clocks, from its z on the clean such sides its readers never
/// saw (`zs`, by [`Variant::basis`], then by expert): their median and (`tail` percentile
/// − median) ÷ the standard normal's `tail` percentile (at 0.95, as the fit sets `human`
/// from all clean train sides) ([`Expert::human_clocks`]), in the model and in every
/// reader alike (each on its own scale: the shift and spread are in z). A kind of input
/// with fewer than `min_sides` such sides keeps one scale; with `only`, so does every
/// expert of a kind not in it. Returns one line for each expert.
fn set_clocks_scale(
    model: &mut AssessmentModel,
    readers: &mut [AssessmentModel],
    zs: &BTreeMap<String, Vec<Vec<f64>>>,
    min_sides: usize,
    tail: f64,
    only: Option<&[Kind]>,
) -> Vec<String> {
    let chosen = |kind: &str| only.is_none_or(|ks| ks.iter().any(|k| kind_name(*k) == kind));
    let mut lines = Vec::new();
    // Each expert's scale (`None`: it keeps one) of each kind of input.
    let mut scales: Vec<(String, Vec<Option<Scale>>)> = Vec::new();
    for v in &model.variants {
        let basis = v.basis();
        let Some(by_expert) = zs.get(&basis) else {
            continue;
        };
        let n = by_expert.first().map_or(0, Vec::len);
        if n < min_sides {
            lines.push(format!(
                "{basis}: {n} unseen clean sides with clocks, fewer than {min_sides}: one scale for every side"
            ));
            continue;
        }
        let mut of_experts = Vec::new();
        for (e, z) in v.experts.iter().zip(by_expert) {
            if !chosen(&e.kind) {
                lines.push(format!(
                    "{basis}: the {} expert keeps one scale for every side",
                    e.kind
                ));
                of_experts.push(None);
                continue;
            }
            let z = sorted(z.clone());
            let centre = percentile(&z, 0.5);
            let spread = ((percentile(&z, tail) - centre) / normal_quantile(tail)).max(1e-6);
            lines.push(format!(
                "{basis}: the {} expert on {n} unseen clean sides with clocks: median z {centre:.2}, upper-tail spread {spread:.2} (from the {:.1}th percentile)",
                e.kind,
                tail * 100.0
            ));
            of_experts.push(Some((centre, spread)));
        }
        scales.push((basis, of_experts));
    }
    for m in std::iter::once(model).chain(readers.iter_mut()) {
        for v in &mut m.variants {
            let Some((_, of_experts)) = scales.iter().find(|(b, _)| *b == v.basis()) else {
                continue;
            };
            for (e, scale) in v.experts.iter_mut().zip(of_experts) {
                let Some((centre, spread)) = scale else {
                    continue;
                };
                let (mean, sd) = e.human;
                e.human_clocks = Some((mean + centre * sd, sd * spread));
            }
        }
    }
    lines
}

/// `assess thresholds --clocks-variant`: each kind of input without clocks whose experts
/// have a scale for sides with clocks ([`set_clocks_scale`]) gets a twin with clocks, in
/// the model and in every reader alike: the same experts on that scale (which is then
/// their only one), the same scaling and thresholds until they are set again. The kind
/// without clocks loses the second scale. A model that already has the twin's kind of
/// input keeps it. Returns one line for each twin.
fn clocks_variant(model: &mut AssessmentModel, readers: &mut [AssessmentModel]) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, m) in std::iter::once(model).chain(readers.iter_mut()).enumerate() {
        let mut twins = Vec::new();
        for v in m.variants.iter_mut().filter(|v| !v.clocks) {
            if !v.has_clocks_reading() {
                continue;
            }
            let mut twin = v.for_clocks();
            twin.clocks = true;
            for e in &mut v.experts {
                e.human_clocks = None;
            }
            twins.push(twin);
        }
        for twin in twins {
            let basis = twin.basis();
            if m.variants.iter().any(|v| v.basis() == basis) {
                if i == 0 {
                    lines.push(format!("{basis}: the model has it already: kept"));
                }
                continue;
            }
            if i == 0 {
                lines.push(format!(
                    "{basis}: a kind of input of its own, the experts on their scale for sides with clocks"
                ));
            }
            m.variants.push(twin);
        }
    }
    lines
}

/// `assess thresholds --calibrate`: each kind of input's Platt scaling fitted again on the
/// raw scores of the sides its readers never saw (`cal`, by [`Variant::basis`]: raw scores
/// and whether the side was engine-assisted), in the model and in every reader alike, so
/// that the thresholds are then set on the scale the model ships with. A kind of input
/// with fewer than 50 sides of either class keeps its scaling. Returns one line for each
/// scaling fitted again.
fn refit_scaling(
    model: &mut AssessmentModel,
    readers: &mut [AssessmentModel],
    cal: &BTreeMap<String, (Vec<f64>, Vec<bool>)>,
) -> Vec<String> {
    let mut lines = Vec::new();
    for v in &mut model.variants {
        let basis = v.basis();
        let Some((scores, labels)) = cal.get(&basis) else {
            continue;
        };
        let pos = labels.iter().filter(|l| **l).count();
        if pos < 50 || labels.len() - pos < 50 {
            continue;
        }
        let ab = platt(scores, labels);
        lines.push(format!(
            "{basis}: scaling fitted again on {pos} engine-assisted and {} clean sides: ({:.3}, {:.3}) -> ({:.3}, {:.3})",
            labels.len() - pos,
            v.platt.0,
            v.platt.1,
            ab.0,
            ab.1
        ));
        v.platt = ab;
        for m in readers.iter_mut() {
            for w in m.variants.iter_mut().filter(|w| w.basis() == basis) {
                w.platt = ab;
            }
        }
    }
    lines
}

/// The log-odds of a probability kept off 0 and 1 (the fit's own: std's `ln`, so that
/// refits reproduce the shipped files).
fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// Platt scaling: (a, b) maximising the likelihood of `labels` under
/// `sigmoid(a·logit(score) + b)` (Newton's method, with Platt's target smoothing).
fn platt(scores: &[f64], labels: &[bool]) -> (f64, f64) {
    let pos = labels.iter().filter(|l| **l).count() as f64;
    let neg = labels.len() as f64 - pos;
    let (tp, tn) = ((pos + 1.0) / (pos + 2.0), 1.0 / (neg + 2.0));
    let x: Vec<f64> = scores.iter().map(|p| logit(*p)).collect();
    let t: Vec<f64> = labels.iter().map(|l| if *l { tp } else { tn }).collect();
    let nll = |a: f64, b: f64| -> f64 {
        x.iter()
            .zip(&t)
            .map(|(xi, ti)| {
                let z = a * xi + b;
                // log(1 + e^z) − t·z, computed stably.
                z.max(0.0) + (-z.abs()).exp().ln_1p() - ti * z
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, 0.0);
    let mut current = nll(a, b);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 1e-9, 0.0, 1e-9);
        for (xi, ti) in x.iter().zip(&t) {
            let p = 1.0 / (1.0 + (-(a * xi + b)).exp());
            let d = p - ti;
            ga += d * xi;
            gb += d;
            let w = p * (1.0 - p);
            haa += w * xi * xi;
            hab += w * xi;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-12 {
            break;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        // Backtracking: halve the Newton step until the likelihood improves.
        let mut step = 1.0;
        let mut next = nll(a - da, b - db);
        while next > current && step > 1e-6 {
            step /= 2.0;
            next = nll(a - step * da, b - step * db);
        }
        if next > current {
            break;
        }
        a -= step * da;
        b -= step * db;
        let gain = current - next;
        current = next;
        if gain < 1e-10 {
            break;
        }
    }
    (a, b)
}

/// Platt scaling with a games term: `sigmoid((a + c·g)·logit + b + d·g)` fitted on
/// `(score, g)` pairs (g = [`games_term`] of the pseudo-player's games) by Newton's
/// method on the same smoothed targets as [`platt`]; returns `((a, b), (c, d))`.
fn platt_games(scores: &[(f64, f64)], labels: &[bool]) -> ((f64, f64), (f64, f64)) {
    let pos = labels.iter().filter(|l| **l).count() as f64;
    let neg = labels.len() as f64 - pos;
    let (tp, tn) = ((pos + 1.0) / (pos + 2.0), 1.0 / (neg + 2.0));
    // Inputs: logit, logit·g, 1, g.
    let x: Vec<[f64; 4]> = scores
        .iter()
        .map(|&(p, g)| {
            let l = logit(p);
            [l, l * g, 1.0, g]
        })
        .collect();
    let t: Vec<f64> = labels.iter().map(|l| if *l { tp } else { tn }).collect();
    let dot = |w: &[f64; 4], xi: &[f64; 4]| -> f64 { w.iter().zip(xi).map(|(a, b)| a * b).sum() };
    let nll = |w: &[f64; 4]| -> f64 {
        x.iter()
            .zip(&t)
            .map(|(xi, ti)| {
                let z = dot(w, xi);
                z.max(0.0) + (-z.abs()).exp().ln_1p() - ti * z
            })
            .sum()
    };
    let mut w = [0.0; 4];
    let mut current = nll(&w);
    for _ in 0..100 {
        let mut g = [0.0; 4];
        let mut h = [[0.0; 4]; 4];
        for (i, row) in h.iter_mut().enumerate() {
            row[i] = 1e-9;
        }
        for (xi, ti) in x.iter().zip(&t) {
            let p = 1.0 / (1.0 + (-dot(&w, xi)).exp());
            let q = p * (1.0 - p);
            for i in 0..4 {
                g[i] += (p - ti) * xi[i];
                for j in 0..4 {
                    h[i][j] += q * xi[i] * xi[j];
                }
            }
        }
        let Some(step_dir) = solve4(h, g) else { break };
        // Backtracking: halve the Newton step until the likelihood improves.
        let mut step = 1.0;
        let at = |s: f64| -> [f64; 4] { std::array::from_fn(|i| w[i] - s * step_dir[i]) };
        let mut next = nll(&at(step));
        while next > current && step > 1e-6 {
            step /= 2.0;
            next = nll(&at(step));
        }
        if next > current {
            break;
        }
        w = at(step);
        let gain = current - next;
        current = next;
        if gain < 1e-10 {
            break;
        }
    }
    ((w[0], w[2]), (w[1], w[3]))
}

/// Solves `h·x = g` by Gaussian elimination with partial pivoting; `None` when `h` is
/// singular.
fn solve4(mut h: [[f64; 4]; 4], mut g: [f64; 4]) -> Option<[f64; 4]> {
    for col in 0..4 {
        let pivot = (col..4).max_by(|&a, &b| h[a][col].abs().total_cmp(&h[b][col].abs()))?;
        if h[pivot][col].abs() < 1e-12 {
            return None;
        }
        h.swap(col, pivot);
        g.swap(col, pivot);
        let (upper, lower) = h.split_at_mut(col + 1);
        let pivot_row = upper[col];
        for (row, r) in lower.iter_mut().enumerate().map(|(i, r)| (col + 1 + i, r)) {
            let f = r[col] / pivot_row[col];
            for (x, p) in r.iter_mut().zip(pivot_row).skip(col) {
                *x -= f * p;
            }
            g[row] -= f * g[col];
        }
    }
    let mut x = [0.0; 4];
    for row in (0..4).rev() {
        let s: f64 = (row + 1..4).map(|k| h[row][k] * x[k]).sum();
        x[row] = (g[row] - s) / h[row][row];
    }
    Some(x)
}

/// Fits a model of `kind` ("logistic" or "forest") on rows (inputs already filled).
fn fit_model(kind: &str, x: &[Vec<f64>], y: &[u32], trees: u16, seed: u64) -> Result<Model> {
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
type LeaveOut = (Option<Kind>, String);

/// `--leave-out`'s entries: `SIGNAL` or `KIND:SIGNAL`.
fn leave_out(entries: &[String]) -> Result<Vec<LeaveOut>> {
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

fn fit(a: FitArgs) -> Result<()> {
    let left_out = leave_out(&a.leave_out)?;
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
    let report_settings = load_records(&a.corpus, &[], None, None)?
        .first()
        .map(|r| (r.settings.clone(), r.engine.clone()))
        .context("empty corpus")?;
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
    let validation = load_records(&a.corpus, &[], None, Some(Split::Validation))?;
    let unscaled = model.clone();
    card.push_str(&set_player_calibration(
        &[(&validation, &unscaled)],
        None,
        &mut model,
        &PLAYER_GAMES[..1],
        MIN_PLAYER_SCALE,
        |_| true,
    )?);
    let reader = model.clone();
    card.push_str(&set_player_thresholds(
        &[(&validation, &reader)],
        None,
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

/// Fits the Platt scaling of each kind of input's player reading (its player experts,
/// [`AssessmentVariant::platt_player`]) on pseudo-players of `sizes` games (for a fit,
/// [`PLAYER_GAMES`]' smallest) made of `records` (the validation split: the clean sides in one grouping, the
/// engine-assisted ones by kind), as a side's scaling is fitted on the validation split's
/// sides. With more than one size, the scaling gets a games term
/// ([`AssessmentVariant::platt_player_games`], fitted on them all at once); with one, it
/// has none. An unrated kind reads, beside its own pseudo-players, the rated ones read with
/// their rating withheld (as it reads a file without Elo tags): the corpus's unrated
/// games are few and all clean. A kind of input with fewer than `min` pseudo-players of
/// either label takes the scaling fitted on the pseudo-players of the kinds read alike
/// (rated or unrated) together, or failing that of all kinds. Kinds without player
/// experts keep the side's scaling; only the kinds `pick` keeps are fitted. Returns the
/// model card's lines.
fn set_player_calibration(
    groups: &[(&[Record], &AssessmentModel)],
    oof: Option<&ClassifierOof>,
    model: &mut AssessmentModel,
    sizes: &[usize],
    min: usize,
    pick: impl Fn(&AssessmentVariant) -> bool,
) -> Result<String> {
    let read: Vec<String> = model
        .variants
        .iter()
        .filter(|v| v.has_player_reading() && pick(v))
        .map(|v| v.basis())
        .collect();
    if read.is_empty() {
        return Ok(String::new());
    }
    let unrated = model
        .variants
        .iter()
        .any(|v| !v.rated && read.contains(&v.basis()));
    let with_games = sizes.len() > 1;
    let mut players = Vec::new();
    for (records, reader) in groups {
        // The raw player reading: no scaling.
        let mut raw = (*reader).clone();
        for v in &mut raw.variants {
            v.platt_player = Some((1.0, 0.0));
            v.platt_player_games = None;
        }
        for &size in sizes {
            let (read, withheld) = pseudo_players_read(records, &raw, size, 1, oof, unrated)?;
            players.extend(read);
            // The rated pseudo-players read without their rating, for the unrated kinds
            // (as `assess thresholds --unrated-withheld` reads them).
            players.extend(
                withheld
                    .into_iter()
                    .filter(|p| p.elo.is_some() && !p.basis.starts_with("rated")),
            );
        }
    }
    type Scaling = ((f64, f64), Option<(f64, f64)>);
    let fit = |scores: &[(f64, f64)], labels: &[bool]| -> Scaling {
        if with_games {
            let (ab, cd) = platt_games(scores, labels);
            (ab, Some(cd))
        } else {
            let p: Vec<f64> = scores.iter().map(|s| s.0).collect();
            (platt(&p, labels), None)
        }
    };
    let of = |basis: Option<&str>| -> (Vec<(f64, f64)>, Vec<bool>) {
        players
            .iter()
            .filter(|p| basis.is_none_or(|b| p.basis == b) && !p.probability.is_nan())
            .filter(|p| read.contains(&p.basis))
            .map(|p| ((p.probability, games_term(p.games)), p.kind != Kind::Human))
            .unzip()
    };
    let enough = |labels: &[bool]| {
        let pos = labels.iter().filter(|l| **l).count();
        pos >= min && labels.len() - pos >= min
    };
    let (all_scores, all_labels) = of(None);
    let pooled = enough(&all_labels).then(|| fit(&all_scores, &all_labels));
    // The kinds read alike, rated or unrated, together.
    let alike = |rated: bool| -> Option<Scaling> {
        let (scores, labels): (Vec<(f64, f64)>, Vec<bool>) = model
            .variants
            .iter()
            .filter(|v| v.rated == rated && read.contains(&v.basis()))
            .flat_map(|v| {
                let (s, l) = of(Some(&v.basis()));
                s.into_iter().zip(l)
            })
            .unzip();
        enough(&labels).then(|| fit(&scores, &labels))
    };
    let alike = [alike(false), alike(true)];
    let games = sizes
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut card = String::new();
    for v in &mut model.variants {
        if !read.contains(&v.basis()) {
            continue;
        }
        let basis = v.basis();
        let (scores, labels) = of(Some(&basis));
        let pos = labels.iter().filter(|l| **l).count();
        let rated = if v.rated { "rated" } else { "unrated" };
        let (scaling, from) = if enough(&labels) {
            (Some(fit(&scores, &labels)), "its own".to_owned())
        } else if let Some(s) = alike[usize::from(v.rated)] {
            (Some(s), format!("the {rated} kinds' together"))
        } else {
            (pooled, "all kinds' together".to_owned())
        };
        // Too few pseudo-players of every grouping: the kind keeps the scaling it has.
        match scaling {
            Some(((a, b), cd)) => {
                v.platt_player = Some((a, b));
                v.platt_player_games = cd;
                let formula = match cd {
                    Some((c, d)) => format!(
                        "sigmoid(({a:.3} + {c:.3} g) x logit + {b:.3} + {d:.3} g), g = ln(games / 5) for 2-20 games"
                    ),
                    None => format!("sigmoid({a:.3} x logit + {b:.3})"),
                };
                card.push_str(&format!(
                    "players, {basis}: the player reading scaled as {formula}, fitted on {from} pseudo-players of {games} games ({pos} engine-assisted / {} clean here)  \n",
                    labels.len() - pos
                ));
            }
            None => card.push_str(&format!(
                "players, {basis}: too few pseudo-players of {games} games to fit a player's scaling ({pos} engine-assisted / {} clean here): kept\n",
                labels.len() - pos
            )),
        }
    }
    Ok(card)
}

/// Sets each kind of input's threshold for a player of five or more games: `look closer`
/// above every pseudo-player of the clean human games of `records` (`what`: the
/// validation split for a fit, the sides a model never saw for `assess thresholds`; both
/// sides of each game, in overlapping groupings) and above a 95% upper bound on the
/// 99.9th percentile of a normal fitted to their logits ([`player_z`]; the per-player goal
/// is 0.1%, far below one in the few hundred there are), for players of 5, 10 and 20
/// games alike (a clean player's probability can rise with their games), and never below
/// a side's threshold. With `withheld`, the unrated kinds' are set from their clean
/// pseudo-players and, with them, every rated one read with its rating withheld (as
/// `assess thresholds --unrated-withheld` sets a side's). With `real`, above the clean
/// real players too (below); with `few`, an unrated kind's (`few.0`) and a rated one's
/// (`few.1`) players of 2-4 games get bars of their own, above the clean pseudo-players
/// of 2-4 games (never below the 5+ ones; [`AssessmentVariant::look_closer_few`]).
/// Returns the model card's lines.
#[allow(clippy::too_many_arguments)]
fn set_player_thresholds(
    groups: &[(&[Record], &AssessmentModel)],
    oof: Option<&ClassifierOof>,
    what: &str,
    band_apart: bool,
    withheld: bool,
    real: bool,
    few: (bool, bool),
    model: &mut AssessmentModel,
) -> Result<String> {
    // With `few`, the unrated kinds (`few.0`) and the rated ones (`few.1`) get bars for
    // players of 2-4 games too, above their clean pseudo-players of 2-4 games.
    let sizes: Vec<usize> = if few.0 || few.1 {
        FEW_GAMES.iter().chain(&PLAYER_GAMES).copied().collect()
    } else {
        PLAYER_GAMES.to_vec()
    };
    let counted = |rated: bool, n: usize| n >= PLAYER_GAMES[0] || if rated { few.1 } else { few.0 };
    let mut by_size: Vec<(usize, Vec<PseudoPlayer>)> =
        sizes.iter().map(|&n| (n, Vec::new())).collect();
    let mut reals: Vec<PseudoPlayer> = Vec::new();
    for (records, reader) in groups {
        if real {
            let (read, unrated) =
                real_players_read(records, reader, PLAYER_GAMES[0], oof, withheld)?;
            reals.extend(read);
            reals.extend(
                unrated
                    .into_iter()
                    .filter(|p| p.elo.is_some() && !p.basis.starts_with("rated")),
            );
        }
        let clean: Vec<Record> = records
            .iter()
            .filter(|r| r.label == Label::Human)
            .cloned()
            .collect();
        for (n, players) in &mut by_size {
            let (read, unrated) =
                pseudo_players_read(&clean, reader, *n, GROUPINGS, oof, withheld)?;
            players.extend(read);
            players.extend(
                unrated
                    .into_iter()
                    .filter(|p| p.elo.is_some() && !p.basis.starts_with("rated")),
            );
        }
    }
    let mut card = String::new();
    for v in &mut model.variants {
        let basis = v.basis();
        // With `band_apart`, the kind's threshold from the pseudo-players rated above its
        // bands, and each band's from its own (by their mean rating).
        let bounds: Vec<f64> = if band_apart && v.rated {
            v.lower_rated.iter().map(|b| b.below).collect()
        } else {
            Vec::new()
        };
        let band_of = |p: &PseudoPlayer| {
            p.elo
                .and_then(|e| bounds.iter().position(|b| e < *b))
                .unwrap_or(bounds.len())
        };
        // A rating band's: players of 5+ games (the last sizes); and where the kind counts
        // players of 2-4, their own bar above them, never below the 5+ one.
        let few_kind = counted(v.rated, FEW_GAMES[0]);
        let (few_sizes, five_sizes) = by_size.split_at(by_size.len() - PLAYER_GAMES.len());
        for (i, b) in v.lower_rated.iter_mut().enumerate().take(bounds.len()) {
            let (bound, mut parts) = player_bound(five_sizes, &basis, |p| band_of(p) == i);
            let (real_bound, _, words) = real_players_bound(&reals, &basis, |p| band_of(p) == i);
            if real {
                parts.push(words);
            }
            let five = b.look_closer.max(bound.max(real_bound).min(PLAYER_BAR_CAP));
            b.look_closer_player = Some(five);
            b.look_closer_few = None;
            if few_kind {
                let (few, words) = player_bound(few_sizes, &basis, |p| band_of(p) == i);
                b.look_closer_few = Some(five.max(few.min(PLAYER_FEW_BAR_CAP)));
                parts.push(format!(
                    "2-4 games: look closer from {:.5} ({})",
                    b.look_closer_few.unwrap_or_default(),
                    words.join("; ")
                ));
            }
            let rated = match i {
                0 => format!("under {}", b.below),
                _ => format!("{}-{}", bounds[i - 1], b.below - 1.0),
            };
            card.push_str(&format!(
                "players of 5+ games, {basis}, rated {rated}: look closer from {:.3} (never below the band's side threshold, above every clean pseudo-player of the band and their normal tail; {})  \n",
                five,
                parts.join("; ")
            ));
        }
        // Players of 5+ games set `bound`; those of 2-4, where counted, `few`.
        let mut bound = 0.0_f64;
        let mut few = 0.0_f64;
        let mut parts = Vec::new();
        let mut unclear = None;
        for (n, players) in by_size.iter().filter(|(n, _)| counted(v.rated, *n)) {
            let clean: Vec<&PseudoPlayer> = players
                .iter()
                .filter(|p| {
                    p.kind == Kind::Human
                        && p.basis == basis
                        && !p.probability.is_nan()
                        && band_of(p) == bounds.len()
                })
                .collect();
            let human: Vec<f64> = clean.iter().map(|p| p.probability).collect();
            if *n == PLAYER_GAMES[0] && human.len() >= 10 {
                unclear = Some(percentile(&sorted(human.clone()), 0.90));
            }
            let highest = clean
                .iter()
                .max_by(|a, b| a.probability.total_cmp(&b.probability));
            let top = highest.map_or(0.0, |p| p.probability);
            let tail = normal_tail(&human, player_z(human.len() / GROUPINGS));
            let set = if *n < PLAYER_GAMES[0] {
                &mut few
            } else {
                &mut bound
            };
            *set = set.max(top + 1e-9).max(tail);
            let rated = highest
                .and_then(|p| p.elo)
                .map_or(String::new(), |e| format!(" (mean rating {e:.0})"));
            parts.push(format!(
                "{n} games: {} players, highest {top:.3}{rated}, tail {tail:.3}",
                human.len()
            ));
        }
        // With `real`, also above every clean real player of the kind and their normal
        // tail, and `unclear` where a tenth of them are, when that is higher: a real
        // player's games share their style and form, which pseudo-players lack.
        let (real_bound, real_unclear, words) =
            real_players_bound(&reals, &basis, |p| band_of(p) == bounds.len());
        if real {
            parts.push(words);
            unclear = match (unclear, real_unclear) {
                (Some(u), Some(r)) => Some(u.max(r)),
                (u, r) => u.or(r),
            };
        }
        v.look_closer_player = v.look_closer.max(bound.max(real_bound).min(PLAYER_BAR_CAP));
        v.look_closer_few = counted(v.rated, FEW_GAMES[0])
            .then(|| v.look_closer_player.max(few.min(PLAYER_FEW_BAR_CAP)));
        if let Some(f) = v.look_closer_few {
            parts.push(format!("2-4 games: look closer from {f:.5}"));
        }
        // A player read by player experts, on their own scale, is `unclear` as a tenth of
        // the clean pseudo-players of five games are (or of the real players, above).
        if v.has_player_reading() {
            v.unclear_player = unclear.map(|u| u.min(v.look_closer_player));
            if let Some(u) = v.unclear_player {
                parts.push(format!("unclear from {u:.3}"));
            }
        }
        card.push_str(&format!(
            "players of 5+ games, {basis}: look closer from {:.3} (never below a side's threshold, above every overlapping pseudo-player of the clean human sides of {what}, and a 95% upper bound on the 99.9th percentile of a normal fitted to their logits; {})  \n",
            v.look_closer_player,
            parts.join("; ")
        ));
    }
    Ok(card)
}

/// A player threshold's bound from the clean pseudo-players of a kind of input that
/// `pick` keeps: above the highest of each size and the normal tail of their logits; and
/// the words for it.
fn player_bound(
    by_size: &[(usize, Vec<PseudoPlayer>)],
    basis: &str,
    pick: impl Fn(&PseudoPlayer) -> bool,
) -> (f64, Vec<String>) {
    let mut bound = 0.0_f64;
    let mut parts = Vec::new();
    for (n, players) in by_size {
        let human: Vec<f64> = players
            .iter()
            .filter(|p| {
                p.kind == Kind::Human && p.basis == basis && !p.probability.is_nan() && pick(p)
            })
            .map(|p| p.probability)
            .collect();
        let top = human.iter().copied().fold(0.0_f64, f64::max);
        let tail = normal_tail(&human, player_z(human.len() / GROUPINGS));
        bound = bound.max(top + 1e-9).max(tail);
        parts.push(format!(
            "{n} games: {} players, highest {top:.3}, tail {tail:.3}",
            human.len()
        ));
    }
    (bound, parts)
}

/// A player threshold's bound from the clean real players (of 5 or more games) of a kind
/// of input that `pick` keeps: above the highest and the normal tail of their logits
/// (each player counted once: real players do not overlap); where a tenth of them are
/// (with [`MIN_REAL_PLAYERS`] or more of them, else none); and the words for both.
fn real_players_bound(
    reals: &[PseudoPlayer],
    basis: &str,
    pick: impl Fn(&PseudoPlayer) -> bool,
) -> (f64, Option<f64>, String) {
    let human = sorted(
        reals
            .iter()
            .filter(|p| p.basis == basis && !p.probability.is_nan() && pick(p))
            .map(|p| p.probability)
            .collect(),
    );
    let top = human.last().copied().unwrap_or(0.0);
    let tail = normal_tail(&human, player_z(human.len()));
    let unclear = (human.len() >= MIN_REAL_PLAYERS).then(|| percentile(&human, 0.90));
    let words = format!(
        "real players: {}, highest {top:.3}, tail {tail:.3}{}",
        human.len(),
        unclear.map_or(String::new(), |u| format!(", a tenth from {u:.3}"))
    );
    let bound = if human.is_empty() {
        0.0
    } else {
        (top + 1e-9).max(tail)
    };
    (bound, unclear, words)
}

/// Fewest clean real players of a kind of input whose tenth sets a player's `unclear`.
const MIN_REAL_PLAYERS: usize = 20;

/// Fewest validation pseudo-players of each label (engine-assisted, clean) a kind of
/// input's player scaling is fitted on by itself: fewer give a slope that swings with a
/// few players (the unrated kind with clocks had 8 and 19), and a player's bar that
/// stays at a side's threshold then means something else on it.
const MIN_PLAYER_SCALE: usize = 20;

/// The sizes of the fewer-game pseudo-players a kind's bars for players of 2-4 games are
/// set above, with `assess thresholds --unrated-player-scale` (the unrated kinds) or
/// `--player-games-scale` (its kinds).
const FEW_GAMES: [usize; 3] = [2, 3, 4];

/// Which kinds of input `assess thresholds --player-games-scale` fits a player's scaling
/// with a games term for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum GamesScale {
    /// The unrated kinds.
    Unrated,
    /// Every kind with a player reading.
    All,
}

/// The highest a player's `look closer` is set (a bar of 1 would never be reached). With
/// the rated kind's scaling fitted with a games term (`--player-games-scale all`) the
/// clean players of the lower rating bands read past it; 0.9999 held them but cost
/// engine-assisted players at `look closer` (session 65, models/README.md).
const PLAYER_BAR_CAP: f64 = 0.999;

/// The highest a player's `look closer` for 2-4 games is set
/// ([`AssessmentVariant::look_closer_few`]): set apart from the bar of 5 or more games, it may rise past [`PLAYER_BAR_CAP`] to hold
/// a clean pair of games that a scaling moving with the games reads near 1 (session 66,
/// models/README.md), short of 1, which no player reaches.
const PLAYER_FEW_BAR_CAP: f64 = 0.99999;

/// The sizes of the pseudo-players a player's threshold is set above.
const PLAYER_GAMES: [usize; 3] = [5, 10, 20];

/// How many ways over the clean sides are grouped into the pseudo-players a player's
/// threshold is set above: each side is in this many, so they stand for this many times
/// fewer independent players ([`player_z`] reads that many).
const GROUPINGS: usize = 5;

/// The normal quantile of the per-player goal (0.1% false positives): 99.9th percentile.
const Z_PLAYER: f64 = 3.090_232;

/// The normal quantile of 95% confidence.
const Z_CONFIDENCE: f64 = 1.644_854;

/// How many standard deviations above the mean of `n` clean players' logits a player's
/// threshold lies: the one-sided normal tolerance factor (Natrella's approximation) for
/// 99.9% of clean players with 95% confidence. The 99.9th percentile of the normal fitted
/// to them ([`Z_PLAYER`]) is only an estimate of the true one, as often below it as above,
/// so a threshold there meets the goal on fresh players about half the time; this one
/// leaves room for the mean's and the spread's errors (3.30 at 382 players, 3.60 at 80;
/// infinite under 3, where no tail can be told).
fn player_z(n: usize) -> f64 {
    if n < 3 {
        return f64::INFINITY;
    }
    let n = n as f64;
    let a = 1.0 - Z_CONFIDENCE * Z_CONFIDENCE / (2.0 * (n - 1.0));
    let b = Z_PLAYER * Z_PLAYER - Z_CONFIDENCE * Z_CONFIDENCE / n;
    (Z_PLAYER + (Z_PLAYER * Z_PLAYER - a * b).max(0.0).sqrt()) / a
}

/// The probability at `z` standard deviations above the mean of the probabilities'
/// logits (0 for fewer than 10: no tail can be told from so few).
fn normal_tail(probabilities: &[f64], z: f64) -> f64 {
    if probabilities.len() < 10 {
        return 0.0;
    }
    let logits: Vec<f64> = probabilities.iter().map(|p| logit(*p)).collect();
    let (mean, sd) = mean_sd(&logits);
    1.0 / (1.0 + (-(mean + z * sd)).exp())
}

/// The mean and the sample standard deviation of `v` (two or more values).
fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// The kinds of assistance an expert is fitted for, in model order.
const EXPERT_KINDS: [Kind; 3] = [Kind::TopEngine, Kind::WeakEngine, Kind::Switched];

/// Fewest out-of-fold AUC for an expert to be kept: one that can hardly tell its kind
/// from clean humans would raise clean humans about as often as its kind, and the
/// largest z of all experts would then rise for everyone. The weaker-engine expert,
/// at 0.74-0.76, did exactly that to strong humans: kept, it cost the top engines more
/// than it gained the weaker ones (models/README.md, "The later half, decided positions
/// included").
const MIN_EXPERT_AUC: f64 = 0.80;

/// The words for a kind of assistance.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Human => "clean humans",
        Kind::TopEngine => "top engines",
        Kind::WeakEngine => "weaker engines",
        Kind::Switched => "switched",
    }
}

/// A row's identity within one fit (the rows live in one vector throughout).
fn row_key(r: &Row) -> usize {
    r as *const Row as usize
}

/// An expert with what its fit measured.
struct FittedExpert {
    expert: Expert,
    /// Its out-of-fold z of every train row it can read, by [`row_key`].
    oof_z: HashMap<usize, f64>,
    /// Out-of-fold AUC of its kind against clean humans.
    cv_auc: f64,
    /// "logistic" or "forest".
    model_kind: &'static str,
    /// Train sides of its kind.
    positives: usize,
    /// The variant's signals it was offered and left out for the sign of their weight
    /// (`--sign-consistent`, [`sign_consistent_columns`]).
    dropped: Vec<String>,
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
fn sign_consistent_columns(
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
fn fit_expert(
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
    let model_kind = if cv["forest"] > cv["logistic"] + 0.01 {
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
fn combined_oof(oof_z: &[Vec<f64>], rows: usize) -> Vec<f64> {
    let identity = vec![(0.0, 1.0); oof_z.len()];
    (0..rows)
        .map(|i| 1.0 / (1.0 + (-largest_z(oof_z, &identity, i)).exp()))
        .collect()
}

/// The largest of the experts' z-scores `oof_z` (by expert, then row) of row `i`, each
/// read as `(z − offset) / scale` by its `weights`; NaN where none has one.
fn largest_z(oof_z: &[Vec<f64>], weights: &[(f64, f64)], i: usize) -> f64 {
    let z = oof_z
        .iter()
        .zip(weights)
        .map(|(z, (c, s))| (z[i] - c) / s)
        .filter(|z| !z.is_nan())
        .fold(f64::NEG_INFINITY, f64::max);
    if z.is_finite() { z } else { f64::NAN }
}

/// The offsets and scales [`balance_experts`] tries for an expert's z.
const BALANCE_OFFSETS: [f64; 9] = [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0];
const BALANCE_SCALES: [f64; 8] = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2];

/// How [`balance_experts`] weighs a variant's experts: each expert's `(offset, scale)`,
/// and each kind's AUC against clean humans before and after.
struct Balance {
    weights: Vec<(f64, f64)>,
    before: Vec<f64>,
    after: Vec<f64>,
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
fn balance_experts(kinds: &[Kind], oof_z: &[Vec<f64>], rows: &[&Row]) -> Balance {
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
fn fit_variants(
    all: &[Row],
    n_folds: usize,
    trees: u16,
    seed: u64,
    min_expert_auc: f64,
    sign_consistent: bool,
    leave_out: &[LeaveOut],
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
fn length_rating_bin(moves: usize, rating: Option<f64>) -> (i64, i64) {
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
fn auc_within<G: Ord>(scores: &[f64], labels: &[bool], groups: &[G]) -> (f64, usize) {
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
fn leakage(all: &[Row], n_folds: usize, seed: u64) -> Result<(f64, f64)> {
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

/// A pseudo-player's kind and assessment.
struct PseudoPlayer {
    kind: Kind,
    level: Option<Level>,
    probability: f64,
    /// The model that assessed it (`Assessment::basis`).
    basis: String,
    /// Its game sides: corpus id, side and rating tag.
    members: Vec<String>,
    /// What moved its probability most: signal, value and effect.
    reasons: Vec<String>,
    /// The mean rating tag of its sides (`None` when one has none).
    elo: Option<f64>,
    /// Its games.
    games: usize,
    /// The `look closer` it was held to (its kind of input's, or its rating band's; NaN
    /// unassessed).
    look_closer: f64,
}

/// Pseudo-players of `size` games each, for the per-player error rates: the human
/// sides of `records` grouped by rating (`size` in a row in Elo order, White and Black
/// alike, as a real player's games are, online and over-the-board games apart, as a real
/// player's rating is on one scale ([`online`]); a side whose game's other side is already in the
/// group goes to the next one, so that no pseudo-player holds both sides of one game:
/// pooling White's and Black's apart, as this once did, gave each player one colour's systematic
/// edge times √games, which no real player has; so does a side whose player is already
/// in it, since a clean pseudo-player is read as independent sides, without the player
/// effects a real player's games get), the engine-assisted
/// sides by kind (one side per game); each group's sides renamed to one player in the
/// stored PGN and the set rebuilt (no engine), so that each pseudo-player's assessment
/// pools its games as a real player's would.
///
/// `groupings` > 1 (at most `size`) also groups the human sides from the 2nd, 3rd, ...
/// side on (each side then in up to that many pseudo-players): more, overlapping clean
/// players, whose highest is a stricter bound for a threshold (the fit), not independent
/// counts (the evaluation uses 1).
#[cfg(test)]
fn pseudo_players(
    records: &[Record],
    model: &AssessmentModel,
    size: usize,
    groupings: usize,
    oof: Option<&ClassifierOof>,
) -> Result<Vec<PseudoPlayer>> {
    Ok(pseudo_players_read(records, model, size, groupings, oof, false)?.0)
}

/// [`pseudo_players`], and with `withheld` the same pseudo-players read again with their
/// rating withheld (as the unrated kinds read a file without Elo tags): what a player's
/// thresholds for unrated input make of today's players.
fn pseudo_players_read(
    records: &[Record],
    model: &AssessmentModel,
    size: usize,
    groupings: usize,
    oof: Option<&ClassifierOof>,
    withheld: bool,
) -> Result<(Vec<PseudoPlayer>, Vec<PseudoPlayer>)> {
    // (kind, elo, record index, side)
    let mut sides: Vec<(Kind, Option<f64>, usize, &str)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let scored: &[&str] = match r.label {
            Label::Switched => match r.tag("Switched").as_deref() {
                Some("black") => &["Black"],
                _ => &["White"],
            },
            Label::Human => &["White", "Black"],
            _ if r.game % 2 == 0 => &["White"],
            _ => &["Black"],
        };
        for side in scored {
            let elo = r
                .tag(&format!("{side}Elo"))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|e| *e > 0.0);
            let kind = match r.label {
                Label::Human => Kind::Human,
                Label::Switched => Kind::Switched,
                Label::Engine if elo.is_some_and(|e| e > 3000.0) => Kind::TopEngine,
                Label::Engine => Kind::WeakEngine,
            };
            sides.push((kind, elo, i, side));
        }
    }
    sides.sort_by(|a, b| {
        (a.0, online(&records[a.2]), a.1.unwrap_or(f64::MAX))
            .partial_cmp(&(b.0, online(&records[b.2]), b.1.unwrap_or(f64::MAX)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // Each member: (record index, side, the pseudo-player's name, the rating it is scored
    // against when not its own).
    let mut members: Vec<(usize, &str, String, Option<f64>)> = Vec::new();
    let mut groups: Vec<(Kind, Vec<String>, Option<f64>)> = Vec::new();
    let human: Vec<f64> = sorted(
        sides
            .iter()
            .filter(|s| s.0 == Kind::Human)
            .filter_map(|s| s.1)
            .collect(),
    );
    let pools = [
        Kind::Human,
        Kind::TopEngine,
        Kind::WeakEngine,
        Kind::Switched,
    ]
    .into_iter()
    .flat_map(|kind| [(kind, false), (kind, true)]);
    for (kind, on) in pools {
        let starts = if kind == Kind::Human {
            0..groupings.clamp(1, size)
        } else {
            0..1
        };
        let of_kind: Vec<_> = sides
            .iter()
            .filter(|s| s.0 == kind && online(&records[s.2]) == on)
            .collect();
        // A clean pseudo-player is read as independent sides (below): never two sides of
        // one real player, whose own style would be in both.
        let player = |s: &PseudoSide<&str>| {
            (kind == Kind::Human)
                .then(|| records[s.2].tag(s.3))
                .flatten()
                .map(|n| n.trim().to_lowercase())
                .filter(|n| !n.is_empty() && n != "?")
        };
        for start in starts.clone() {
            for group in
                groups_of_distinct_games(of_kind.get(start..).unwrap_or_default(), size, player)
            {
                let name = format!("pseudo-player {}", groups.len());
                // An engine is scored against a drawn human rating, as in `rows`; a
                // group of limited engines (sorted by tag) against one below its
                // weakest.
                let rating = matches!(kind, Kind::TopEngine | Kind::WeakEngine)
                    .then(|| engine_rating(&human, group[0].1, &name))
                    .flatten();
                let mut ids = Vec::new();
                for &&(_, elo, i, side) in &group {
                    ids.push(format!(
                        "{} {side} {}",
                        records[i].id,
                        elo.map_or("-".into(), |e| e.to_string())
                    ));
                    members.push((i, side, name.clone(), rating));
                }
                let elo = group.iter().map(|s| s.1).sum::<Option<f64>>();
                groups.push((kind, ids, elo.map(|e| e / group.len() as f64)));
            }
        }
    }
    if members.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let report = pooled_report(records, &members, oof)?;
    let calibration =
        Calibration::builtin().filter(|c| c.applies_to(&report.settings, &report.engine));
    // A clean pseudo-player pools the sides of different players, independent as a real
    // player's z-scores are once narrowed by their player effects (`PlayerEffect`): it
    // is read without the narrowing, which would make it look more human than any real
    // player.
    let mut independent = model.clone();
    if let Some(r) = &mut independent.late_reference {
        r.player_effects.clear();
    }
    let mut out = Vec::new();
    let mut out_withheld = Vec::new();
    for (k, (kind, ids, elo)) in groups.into_iter().enumerate() {
        let name = format!("pseudo-player {k}");
        let Some(p) = report.players.iter().find(|p| p.name == name) else {
            continue;
        };
        let model = if kind == Kind::Human {
            &independent
        } else {
            model
        };
        if withheld {
            out_withheld.push(assess_player(
                &report,
                calibration,
                p,
                kind,
                model,
                ids.clone(),
                elo,
                true,
            ));
        }
        out.push(assess_player(
            &report,
            calibration,
            p,
            kind,
            model,
            ids,
            elo,
            false,
        ));
    }
    Ok((out, out_withheld))
}

/// The report of the pseudo-players `members` make of `records`: each member (a record,
/// its side, the pseudo-player's name, the rating that side is scored against when not
/// its own Elo tag) is a copy of that game's report with the side renamed (and its Elo
/// tag set to the rating), as if its PGN had said so, and the players are those names
/// alone. Each game is rebuilt once however many pseudo-players it is in, and the players'
/// Regan fits and IPRs, which no signal reads, are left out
/// ([`fairsight::fit::players_without_fits`]): the groupings put each side in several.
fn pooled_report(
    records: &[Record],
    members: &[(usize, &str, String, Option<f64>)],
    oof: Option<&ClassifierOof>,
) -> Result<Report> {
    let mut used: Vec<usize> = members.iter().map(|m| m.0).collect();
    used.sort_unstable();
    used.dedup();
    let distinct: Vec<Record> = used.iter().map(|&i| records[i].clone()).collect();
    let mut report = rebuild_games(&distinct)?;
    if let Some(oof) = oof {
        with_out_of_fold(&mut report.games, &distinct, oof)?;
    }
    let base = std::mem::take(&mut report.games);
    let mut names = std::collections::HashSet::new();
    for (index, (i, side, name, rating)) in members.iter().enumerate() {
        let at = used
            .binary_search(i)
            .expect("invariant: every member's record is used");
        let mut g = base[at].clone();
        g.index = index;
        let elo_tag = format!("{side}Elo");
        for (k, v) in &mut g.tags {
            if k == side {
                *v = name.clone();
            } else if let (Some(e), true) = (rating, *k == elo_tag) {
                *v = e.to_string();
            }
        }
        let side = if *side == "White" {
            Side::White
        } else {
            Side::Black
        };
        g.sides.get_mut(side).player = name.clone();
        names.insert(name.to_lowercase());
        report.games.push(g);
    }
    report.players = fairsight::fit::players_without_fits(&mut report, |k| names.contains(k));
    Ok(report)
}

/// A player of `report` assessed by `model` on all their games pooled, as the CLI and the
/// page assess one; with `withheld`, as if their games had no rating (each side and the
/// pooled games read without the rated signals).
#[allow(clippy::too_many_arguments)]
fn assess_player(
    report: &Report,
    calibration: Option<&Calibration>,
    p: &PlayerReport,
    kind: Kind,
    model: &AssessmentModel,
    members: Vec<String>,
    elo: Option<f64>,
    withheld: bool,
) -> PseudoPlayer {
    let side_signals_of: Vec<Signals> = report
        .games
        .iter()
        .flat_map(|g| {
            [Side::White, Side::Black]
                .into_iter()
                .filter(|s| g.sides.get(*s).player == p.name)
                .filter_map(|s| side_signals(g, s, fairsight::fit::tag_rating(g, s), calibration))
                .collect::<Vec<_>>()
        })
        .collect();
    // Engine games' clocks are never used (see `rows`).
    let unclocked = |s: Signals| {
        let s = if withheld {
            s.without(&RATED_SIGNALS)
        } else {
            s
        };
        match kind {
            Kind::TopEngine | Kind::WeakEngine => s.without(&CLOCK_SIGNALS),
            _ => s,
        }
    };
    // Each side read on its own, as the player's games are in the page and the CLI: a
    // player with more of them at `look closer` than chance allows a clean one is there.
    let levels: Vec<Level> = side_signals_of
        .iter()
        .filter_map(|s| model.assess(&unclocked(s.clone())).map(|x| x.level))
        .collect();
    let at_look_closer = levels.iter().filter(|l| **l == Level::LookCloser).count();
    let a = fairsight::fit::player_signals(p, &side_signals_of, calibration)
        .map(unclocked)
        .and_then(|s| model.assess(&s))
        .map(|x| match model.side_look_closer_rate {
            Some(rate) if p.games > 1 => x.with_game_sides(at_look_closer, levels.len(), rate),
            _ => x,
        });
    let reasons = a.as_ref().map_or_else(Vec::new, |a| {
        a.reasons
            .iter()
            .map(|r| format!("{} {:.2} ({:+.2})", r.signal, r.value, r.effect))
            .collect()
    });
    PseudoPlayer {
        kind,
        reasons,
        elo,
        level: a.as_ref().map(|a| a.level),
        probability: a.as_ref().map_or(f64::NAN, |a| a.probability),
        look_closer: a.as_ref().map_or(f64::NAN, |a| a.thresholds.1),
        basis: a.map(|a| a.basis).unwrap_or_default(),
        members,
        games: p.games,
    }
}

/// The split's real players with `min_games` or more clean human games in it (none from
/// the sources in `without`), each
/// assessed on all those games pooled: the per-player false-positive rate with what
/// pseudo-players lack, a player's own style and form, the same in each of their games
/// (which makes a player's pooled z-scores spread wider than one side's times √games).
fn real_players(
    corpus: &std::path::Path,
    split: Split,
    model: &AssessmentModel,
    min_games: usize,
    without: &[String],
    withheld: bool,
) -> Result<Vec<PseudoPlayer>> {
    let records: Vec<Record> = load_records(corpus, &[], None, Some(split))?
        .into_iter()
        .filter(|r| !without.contains(&r.source))
        .collect();
    let (players, unrated) = real_players_read(&records, model, min_games, None, withheld)?;
    Ok(if withheld { unrated } else { players })
}

/// The real players of the clean human games of `records` with `min_games` or more of
/// them, each read by `model` on all their games pooled as the page and the CLI read a
/// player (their z-scores narrowed by their player effects), the classifier's
/// probabilities out of fold where `oof` has them; and with `withheld` the same players
/// read again with their rating withheld (else empty).
fn real_players_read(
    records: &[Record],
    model: &AssessmentModel,
    min_games: usize,
    oof: Option<&ClassifierOof>,
    withheld: bool,
) -> Result<(Vec<PseudoPlayer>, Vec<PseudoPlayer>)> {
    let records: Vec<Record> = records
        .iter()
        .filter(|r| r.label == Label::Human)
        .cloned()
        .collect();
    if records.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut report = rebuild_games(&records)?;
    if let Some(oof) = oof {
        with_out_of_fold(&mut report.games, &records, oof)?;
    }
    let mut games = std::collections::HashMap::<String, usize>::new();
    for g in &report.games {
        for side in [Side::White, Side::Black] {
            *games
                .entry(g.sides.get(side).player.to_lowercase())
                .or_default() += 1;
        }
    }
    report.players = fairsight::fit::players_without_fits(&mut report, |k| {
        games.get(k).is_some_and(|n| *n >= min_games)
    });
    let calibration =
        Calibration::builtin().filter(|c| c.applies_to(&report.settings, &report.engine));
    let read = |withheld: bool| -> Vec<PseudoPlayer> {
        report
            .players
            .iter()
            .filter(|p| p.games >= min_games)
            .map(|p| {
                let rating = p.rating.map_or("-".into(), |e| format!("{e:.0}"));
                let members = vec![format!("{}, {} games, rated {rating}", p.name, p.games)];
                assess_player(
                    &report,
                    calibration,
                    p,
                    Kind::Human,
                    model,
                    members,
                    p.rating,
                    withheld,
                )
            })
            .collect()
    };
    let unrated = if withheld { read(true) } else { Vec::new() };
    Ok((read(false), unrated))
}

/// A game side for [`pseudo_players`]: kind, rating, record index, side.
type PseudoSide<T> = (Kind, Option<f64>, usize, T);

/// Whether a game was played online (its `Site` a chess server's address), where ratings
/// run on their own scale: a lichess player rated 1,700 plays well below a FIDE 1,700 (on
/// the train split, clean online sides rated 1,600-2,499 show Regan's ASD z at +1.5 to
/// +2.0, over-the-board ones at about 0). A real player's games come from one of the two,
/// so a pseudo-player's do too.
fn online(record: &Record) -> bool {
    record.tag("Site").is_some_and(|site| {
        let site = site.to_ascii_lowercase();
        ["lichess.org", "chess.com"]
            .iter()
            .any(|host| site.contains(host))
    })
}

/// `sides` (kind, rating, record index, side) in groups of `size` in order, never two
/// sides of one record or of one `player` in a group: a side whose record or player is
/// already in the group waits for the next one. The last, incomplete group is left out.
fn groups_of_distinct_games<'a, T>(
    sides: &[&'a PseudoSide<T>],
    size: usize,
    player: impl Fn(&PseudoSide<T>) -> Option<String>,
) -> Vec<Vec<&'a PseudoSide<T>>> {
    let mut queue: std::collections::VecDeque<_> = sides.iter().copied().collect();
    let mut out = Vec::new();
    while !queue.is_empty() {
        let mut group: Vec<&PseudoSide<T>> = Vec::new();
        let mut waiting = Vec::new();
        while group.len() < size {
            let Some(s) = queue.pop_front() else { break };
            let who = player(s);
            if group
                .iter()
                .any(|g| g.2 == s.2 || (who.is_some() && player(g) == who))
            {
                waiting.push(s);
            } else {
                group.push(s);
            }
        }
        for s in waiting.into_iter().rev() {
            queue.push_front(s);
        }
        if group.len() < size {
            break;
        }
        out.push(group);
    }
    out
}

/// Wilson score interval for k of n, 95%.
fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.959_964);
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

fn eval(a: EvalArgs) -> Result<()> {
    let mut slot = None;
    let model = load_model(a.model.as_ref(), &mut slot)?;
    // Read before the corpus, so that a bad path fails at once.
    let mut other_slot = None;
    let other = match &a.compare {
        Some(p) => Some(load_model(Some(p), &mut other_slot)?),
        None => None,
    };
    let mut all = rows(&a.corpus, None)?;
    without_sources(&mut all, a.split, &a.without_source)?;
    // The split's signals before any model's reference is applied, for `--compare`.
    let raw: Vec<Signals> = all
        .iter()
        .filter(|r| r.split == a.split && other.is_some())
        .map(|r| r.signals.clone())
        .collect();
    if let Some(r) = &model.late_reference {
        with_late_reference(&mut all, r);
    }
    // Each signal's direction, from the train split: higher is more engine-like when the
    // assisted sides' median is above the humans'.
    let direction: Vec<f64> = (0..SIGNALS.len())
        .map(|i| {
            let med = |engine: bool| {
                let v = sorted(
                    all.iter()
                        .filter(|r| r.split == Split::Train && r.engine() == engine)
                        .filter_map(|r| r.signals.values[i])
                        .collect(),
                );
                percentile(&v, 0.5)
            };
            if med(true) >= med(false) { 1.0 } else { -1.0 }
        })
        .collect();
    let test: Vec<&Row> = all.iter().filter(|r| r.split == a.split).collect();
    let assess = |s: &Signals| model.assess(s);
    let probs: Vec<Option<f64>> = test
        .iter()
        .map(|r| assess(&r.signals).map(|x| x.probability))
        .collect();
    // The same sides with their rating withheld: what the unrated model makes of them.
    // The single signals of that slice are those it then has (no z-score against the
    // rating among them).
    let withheld: Vec<Signals> = test
        .iter()
        .map(|r| r.signals.without(&RATED_SIGNALS))
        .collect();
    let probs_unrated: Vec<Option<f64>> = withheld
        .iter()
        .map(|s| assess(s).map(|x| x.probability))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "assessment on the {:?} split: {} game sides ({} human, {} top engine, {} weaker engine, {} switched)",
        a.split,
        test.len(),
        test.iter().filter(|r| r.kind == Kind::Human).count(),
        test.iter().filter(|r| r.kind == Kind::TopEngine).count(),
        test.iter().filter(|r| r.kind == Kind::WeakEngine).count(),
        test.iter().filter(|r| r.kind == Kind::Switched).count(),
    );
    type Pick<'a> = Box<dyn Fn(&Row) -> Option<bool> + 'a>;
    // Slices: (name, which rows, and as what: Some(true) positive, Some(false) negative).
    let slices: Vec<(&str, Pick, bool)> = vec![
        ("all sides", Box::new(|r: &Row| Some(r.engine())), false),
        (
            "top engines vs humans rated 2400+",
            Box::new(|r: &Row| match r.kind {
                Kind::TopEngine => Some(true),
                Kind::Human if r.elo.is_some_and(|e| e >= 2400.0) => Some(false),
                _ => None,
            }),
            false,
        ),
        (
            "engines rated 2600 or less, used by players rated 200+ below them, vs humans",
            Box::new(|r: &Row| match r.kind {
                Kind::WeakEngine if r.elo.is_some_and(|e| e <= 2600.0) => Some(true),
                Kind::Human => Some(false),
                _ => None,
            }),
            false,
        ),
        (
            "switched sides vs clean sides",
            Box::new(|r: &Row| match r.kind {
                Kind::Switched => Some(true),
                Kind::Human => Some(false),
                _ => None,
            }),
            false,
        ),
        (
            "rated input",
            Box::new(|r: &Row| r.signals.rating.is_some().then(|| r.engine())),
            false,
        ),
        (
            "unrated input",
            Box::new(|r: &Row| r.signals.rating.is_none().then(|| r.engine())),
            false,
        ),
        (
            "clocks",
            Box::new(|r: &Row| r.signals.clocks.then(|| r.engine())),
            false,
        ),
        (
            "no clocks",
            Box::new(|r: &Row| (!r.signals.clocks).then(|| r.engine())),
            false,
        ),
        (
            "sides under 30 analysed moves",
            Box::new(|r: &Row| (r.signals.moves < 30).then(|| r.engine())),
            false,
        ),
        (
            "rated sides, rating withheld",
            Box::new(|r: &Row| r.signals.rating.is_some().then(|| r.engine())),
            true,
        ),
    ];
    let _ = write!(out, "\n| slice | sides (assisted / human) | combined AUC |");
    for s in SIGNALS {
        let _ = write!(out, " {s} |");
    }
    let _ = write!(out, "\n|---|---|---|");
    for _ in SIGNALS {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    // One line of the table: the sides' combined probabilities and signals, labelled.
    let line = |out: &mut String, name: &str, sides: &[(f64, &Signals, bool)]| {
        let labels: Vec<bool> = sides.iter().map(|c| c.2).collect();
        let scores: Vec<f64> = sides.iter().map(|c| c.0).collect();
        let pos = labels.iter().filter(|l| **l).count();
        let combined = auc(&scores, &labels);
        let _ = write!(
            out,
            "| {name} | {pos} / {} | {} |",
            labels.len() - pos,
            if combined.is_nan() {
                "-".to_owned()
            } else {
                format!("{combined:.3}")
            }
        );
        for (j, _) in SIGNALS.iter().enumerate() {
            let (s, l): (Vec<f64>, Vec<bool>) = sides
                .iter()
                .filter_map(|(_, sig, lab)| sig.values[j].map(|v| (v * direction[j], *lab)))
                .unzip();
            let v = auc(&s, &l);
            if v.is_nan() {
                let _ = write!(out, " - |");
            } else {
                let _ = write!(out, " {v:.2} |");
            }
        }
        out.push('\n');
    };
    for (name, pick, unrated) in &slices {
        let probs = if *unrated { &probs_unrated } else { &probs };
        let sides: Vec<(f64, &Signals, bool)> = test
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let signals = if *unrated { &withheld[i] } else { &r.signals };
                Some((probs[i]?, signals, pick(r)?))
            })
            .collect();
        line(&mut out, name, &sides);
    }
    // The weaker engines scored against their own nominal Elo tags, as if a player of
    // exactly the engine's strength used it: what strength statistics cannot tell.
    let own: Vec<(f64, &Signals, bool)> = test
        .iter()
        .filter_map(|r| match (r.kind, &r.own_tag) {
            (Kind::WeakEngine, Some(s)) if r.elo.is_some_and(|e| e <= 2600.0) => {
                Some((assess(s)?.probability, s, true))
            }
            (Kind::Human, _) => Some((assess(&r.signals)?.probability, &r.signals, false)),
            _ => None,
        })
        .collect();
    line(
        &mut out,
        "engines rated 2600 or less, scored against their own Elo tag, vs humans",
        &own,
    );
    // The leakage check on the real labels: each slice's AUC with pairs compared only
    // within a bin of analysed moves and rating (the rating the signals were computed
    // against). What the game's length or the rating alone could tell is 0.5 here, so
    // an AUC that holds up within the bins comes from the play.
    let _ = writeln!(
        out,
        "\nwithin bins of analysed moves (<20, 20s, 30s, 40+) and rating (none, 400-point bands), pairs compared only inside a bin (length and rating alone give 0.5):"
    );
    for (name, pick, _) in slices.iter().take(4) {
        let (mut s, mut l, mut g) = (Vec::new(), Vec::new(), Vec::new());
        for (r, p) in test.iter().zip(&probs) {
            if let (Some(p), Some(lab)) = (p, pick(r)) {
                s.push(*p);
                l.push(lab);
                g.push(length_rating_bin(r.signals.moves, r.signals.rating));
            }
        }
        let (within, pairs) = auc_within(&s, &l, &g);
        let _ = writeln!(
            out,
            "  {name}: {within:.3} within bins ({pairs} pairs), {:.3} over all pairs",
            auc(&s, &l)
        );
    }
    // How far each slice's AUC could be from the one measured: resampling the players
    // (a player's sides, a tournament's games, are not independent draws), and with
    // `--compare` the same draws for a second model, so their difference is paired.
    let other_probs: Vec<Option<f64>> = match other {
        Some(m) => raw
            .iter()
            .map(|s| {
                let s = match &m.late_reference {
                    Some(r) => s.with_late_z(r),
                    None => s.clone(),
                };
                m.assess(&s).map(|x| x.probability)
            })
            .collect(),
        None => Vec::new(),
    };
    let _ = writeln!(
        out,
        "\neach slice's AUC with its 95% interval ({RESAMPLES} resamples of the players, each player's sides drawn together){}:",
        match &a.compare {
            Some(p) => format!(
                "; beside it {}'s on the same sides and draws, and the difference",
                p.display()
            ),
            None => String::new(),
        }
    );
    for (k, (name, pick, _)) in slices.iter().take(4).enumerate() {
        let (mut s, mut o, mut l, mut players) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, r) in test.iter().enumerate() {
            let (Some(p), Some(lab)) = (probs[i], pick(r)) else {
                continue;
            };
            if other.is_some() {
                let Some(q) = other_probs[i] else { continue };
                o.push(q);
            }
            s.push(p);
            l.push(lab);
            players.push(r.player.as_str());
        }
        let sets: Vec<&[f64]> = if other.is_some() {
            vec![&s, &o]
        } else {
            vec![&s]
        };
        let draws = auc_resamples(&sets, &l, &players, 0x5eed_0000 + k as u64);
        let column = |f: &dyn Fn(&[f64]) -> f64| {
            let mut v: Vec<f64> = draws.iter().map(|d| f(d)).collect();
            v.sort_by(f64::total_cmp);
            (percentile(&v, 0.025), percentile(&v, 0.975))
        };
        let here = auc(&s, &l);
        let (lo, hi) = column(&|d| d[0]);
        if here.is_nan() || draws.is_empty() {
            let _ = write!(out, "  {name}: -");
        } else {
            let _ = write!(out, "  {name}: {here:.3} (95% {lo:.3}-{hi:.3})");
        }
        if other.is_some() && !here.is_nan() && !draws.is_empty() {
            let there = auc(&o, &l);
            let (olo, ohi) = column(&|d| d[1]);
            let (dlo, dhi) = column(&|d| d[0] - d[1]);
            let _ = write!(
                out,
                "; compared: {there:.3} (95% {olo:.3}-{ohi:.3}); difference {:+.3} (95% {dlo:+.3} to {dhi:+.3})",
                here - there
            );
        }
        let pos = l.iter().filter(|x| **x).count();
        let mut distinct = players.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let _ = writeln!(
            out,
            "; {pos} / {} sides, {} players",
            l.len() - pos,
            distinct.len()
        );
    }
    // The issue's rule, that the combined probability beat each single signal on every
    // slice, measured with its uncertainty: each slice's best single signal (the table's
    // highest AUC) against the combined probability on the sides that have both, with a
    // paired interval from the same resamples of the players.
    let _ = writeln!(
        out,
        "\nthe combined probability against each slice's best single signal, on the sides that have both (95%: {RESAMPLES} paired resamples of the players):"
    );
    for (k, (name, pick, unrated)) in slices.iter().enumerate() {
        let probs = if *unrated { &probs_unrated } else { &probs };
        let sides: Vec<(f64, &Signals, bool, &str)> = test
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let signals = if *unrated { &withheld[i] } else { &r.signals };
                Some((probs[i]?, signals, pick(r)?, r.player.as_str()))
            })
            .collect();
        let _ = write!(out, "  {name}: ");
        match best_single(&sides, &direction, 0x5eed_1000 + k as u64) {
            None => {
                let _ = writeln!(out, "-");
            }
            Some(b) => {
                let _ = write!(
                    out,
                    "combined {:.3}, {} {:.3} ({} sides); difference {:+.3}",
                    b.combined,
                    SIGNALS[b.signal],
                    b.single,
                    b.sides,
                    b.combined - b.single,
                );
                let _ = if b.lo.is_nan() {
                    writeln!(out, " (no interval: too few players)")
                } else {
                    writeln!(out, " (95% {:+.3} to {:+.3})", b.lo, b.hi)
                };
            }
        }
    }
    // Each expert alone, its z as the score: what each tells apart before the largest
    // of them makes the probability (a side whose variant has no expert of a kind, an
    // unrated one for the weaker engines', is left out of that expert's AUC).
    let experts: Vec<Vec<(&str, f64)>> = test
        .iter()
        .map(|r| model.expert_scores(&r.signals))
        .collect();
    if let Some(path) = &a.sides {
        let mut t = String::from(
            "game\tplayer\tsplit\tkind\telo\tmoves\trated\tclocks\tprobability\ttop engines\tweaker engines\tswitched\tengine moves",
        );
        for s in SIGNALS {
            t.push('\t');
            t.push_str(s);
        }
        t.push('\n');
        for r in &all {
            let e = model.expert_scores(&r.signals);
            let z = |k: &str| {
                e.iter()
                    .find(|x| x.0 == k)
                    .map_or(String::new(), |x| x.1.to_string())
            };
            let p = assess(&r.signals).map_or(String::new(), |x| x.probability.to_string());
            let _ = writeln!(
                t,
                "{}\t{}\t{:?}\t{:?}\t{}\t{}\t{}\t{}\t{p}\t{}\t{}\t{}\t{}",
                r.game,
                r.player,
                r.split,
                r.kind,
                r.elo.map_or(String::new(), |x| x.to_string()),
                r.signals.moves,
                r.signals.rating.is_some(),
                r.signals.clocks,
                z("top engines"),
                z("weaker engines"),
                z("switched"),
                r.engine_moves.map_or(String::new(), |n| n.to_string())
            );
            // Each signal as the model reads it (after the model's references), empty
            // where the side has none.
            t.pop();
            for v in r.signals.values {
                t.push('\t');
                if let Some(v) = v {
                    let _ = write!(t, "{v}");
                }
            }
            t.push('\n');
        }
        std::fs::write(path, t).with_context(|| format!("writing {}", path.display()))?;
    }
    let _ = writeln!(
        out,
        "\neach expert's own score (its z; the probability is made from the largest), AUC by slice:"
    );
    for (name, pick, _) in slices.iter().take(4) {
        let mut parts = Vec::new();
        for kind in ["top engines", "weaker engines", "switched"] {
            let (s, l): (Vec<f64>, Vec<bool>) = test
                .iter()
                .zip(&experts)
                .filter_map(|(r, e)| Some((e.iter().find(|x| x.0 == kind)?.1, pick(r)?)))
                .unzip();
            let v = auc(&s, &l);
            parts.push(if v.is_nan() {
                format!("{kind} -")
            } else {
                format!("{kind} {v:.3} ({} sides)", l.len())
            });
        }
        let (s, l): (Vec<f64>, Vec<bool>) = test
            .iter()
            .zip(&probs)
            .filter_map(|(r, p)| Some(((*p)?, pick(r)?)))
            .unzip();
        let _ = writeln!(
            out,
            "  {name}: {}; combined {:.3}",
            parts.join(", "),
            auc(&s, &l)
        );
    }
    // Error rates at the thresholds.
    let level_of: Vec<Option<Level>> = test
        .iter()
        .map(|r| assess(&r.signals).map(|x| x.level))
        .collect();
    // The rated sides read without their rating, as a file without Elo tags is.
    let level_withheld: Vec<Option<Level>> = test
        .iter()
        .zip(&withheld)
        .map(|(r, w)| r.signals.rating.and_then(|_| assess(w)).map(|x| x.level))
        .collect();
    let rate = |levels: &[Option<Level>], kind: Kind, level: Level| {
        let n = test
            .iter()
            .zip(levels)
            .filter(|(r, l)| r.kind == kind && l.is_some())
            .count();
        let k = test
            .iter()
            .zip(levels)
            .filter(|(r, l)| r.kind == kind && **l >= Some(level))
            .count();
        (k, n)
    };
    let rates = |out: &mut String, heading: &str, levels: &[Option<Level>]| {
        let _ = writeln!(out, "\n{heading}");
        for (what, kind) in [
            ("false-positive rate (clean humans)", Kind::Human),
            ("true-positive rate, top engines", Kind::TopEngine),
            ("true-positive rate, weaker engines", Kind::WeakEngine),
            ("true-positive rate, switched sides", Kind::Switched),
        ] {
            for level in [Level::LookCloser, Level::Unclear] {
                let (k, n) = rate(levels, kind, level);
                let (lo, hi) = wilson(k, n);
                let _ = writeln!(
                    out,
                    "  {what}, {} or above: {k}/{n} = {:.1}% (95% {:.1}-{:.1}%)",
                    level.name(),
                    100.0 * k as f64 / n.max(1) as f64,
                    100.0 * lo,
                    100.0 * hi
                );
            }
        }
    };
    rates(
        &mut out,
        "per game side, at the model's thresholds:",
        &level_of,
    );
    // How often the thresholds (a band's own where the model has one) fire on clean
    // sides of each band, and beside it on the engine-assisted sides of the band (a top
    // or weaker engine's at the rating drawn for it): what a band's threshold trades.
    let _ = writeln!(
        out,
        "  false-positive rate (clean humans) by the side's rating, look closer; unclear or above; the engine-assisted sides of the band at look closer:"
    );
    for (band, lo, hi) in FPR_BANDS {
        // Per kind: (sides with a level, at look closer, at unclear or above).
        let mut counts: BTreeMap<Kind, (usize, usize, usize)> = BTreeMap::new();
        for (r, l) in test.iter().zip(&level_of) {
            let in_band = match r.signals.rating {
                Some(e) => lo.is_some_and(|lo| e >= lo) && hi.is_none_or(|hi| e < hi),
                None => lo.is_none(),
            };
            let Some(l) = l else { continue };
            if in_band {
                let c = counts.entry(r.kind).or_default();
                c.0 += 1;
                c.1 += usize::from(*l >= Level::LookCloser);
                c.2 += usize::from(*l >= Level::Unclear);
            }
        }
        let (n, closer, unclear) = counts.get(&Kind::Human).copied().unwrap_or_default();
        if n == 0 {
            let _ = write!(out, "    {band}: -;");
        } else {
            let (clo, chi) = wilson(closer, n);
            let _ = write!(
                out,
                "    {band}: {closer}/{n} = {:.1}% (95% {:.1}-{:.1}%); {unclear}/{n} = {:.1}%;",
                100.0 * closer as f64 / n as f64,
                100.0 * clo,
                100.0 * chi,
                100.0 * unclear as f64 / n as f64,
            );
        }
        let assisted: Vec<String> = [
            (Kind::TopEngine, "top engines"),
            (Kind::WeakEngine, "weaker engines"),
            (Kind::Switched, "switched"),
        ]
        .iter()
        .map(|(kind, name)| match counts.get(kind) {
            Some((n, closer, _)) => format!("{name} {closer}/{n}"),
            None => format!("{name} -"),
        })
        .collect();
        let _ = writeln!(out, " {}", assisted.join(", "));
    }
    // The same by rating scale: clean online players read lower than over-the-board ones
    // of the same rating ([`online`]).
    // Without the sources `--without-source` leaves out, as every side above (and the
    // pseudo-players and real players below) is.
    let mut records = load_records(&a.corpus, &[], None, Some(a.split))?;
    records.retain(|r| !a.without_source.contains(&r.source));
    let online_games: std::collections::HashSet<&str> = records
        .iter()
        .filter(|r| online(r))
        .map(|r| r.id.as_str())
        .collect();
    let mut scales = Vec::new();
    for (scale, on) in [
        ("online (a Site on a chess server)", true),
        ("over the board", false),
    ] {
        let levels: Vec<Level> = test
            .iter()
            .zip(&level_of)
            .filter(|(r, _)| r.kind == Kind::Human && online_games.contains(r.game.as_str()) == on)
            .filter_map(|(_, l)| *l)
            .collect();
        let n = levels.len();
        let closer = levels.iter().filter(|l| **l >= Level::LookCloser).count();
        let unclear = levels.iter().filter(|l| **l >= Level::Unclear).count();
        let (lo, hi) = wilson(closer, n);
        scales.push(format!(
            "{scale}: {closer}/{n} = {:.1}% (95% {:.1}-{:.1}%); {unclear}/{n} = {:.1}%",
            100.0 * closer as f64 / n.max(1) as f64,
            100.0 * lo,
            100.0 * hi,
            100.0 * unclear as f64 / n.max(1) as f64,
        ));
    }
    let _ = writeln!(
        out,
        "  false-positive rate (clean humans) by rating scale, look closer; unclear or above: {}",
        scales.join("; ")
    );
    let points: Vec<(f64, bool)> = test
        .iter()
        .zip(&probs)
        .filter_map(|(r, p)| Some(((*p)?, r.kind != Kind::Human)))
        .collect();
    let _ = writeln!(
        out,
        "  reliability (predicted → observed share of engine-assisted sides, all kinds of input):{}",
        reliability_bins(&points)
    );
    rates(
        &mut out,
        "the rated game sides with their rating withheld (a file without Elo tags), at the unrated model's thresholds:",
        &level_withheld,
    );
    if a.player_games.iter().any(|n| *n < 2) {
        bail!("--player-games: 2 or more (one game is a game side)");
    }
    let mut withheld_players = Vec::new();
    for &n in &a.player_games {
        let (players, withheld) = pseudo_players_read(&records, model, n, 1, None, true)?;
        player_rates(&mut out, &players, n, "");
        withheld_players.push((n, withheld));
    }
    if a.real_player_games < 2 {
        bail!("--real-player-games: 2 or more");
    }
    let real = |withheld| {
        real_players(
            &a.corpus,
            a.split,
            model,
            a.real_player_games,
            &a.without_source,
            withheld,
        )
    };
    real_player_rates(&mut out, &real(false)?, a.real_player_games, "");
    // The same players as if their files had no Elo tags: the unrated kinds' player
    // thresholds on today's players (the corpus's own unrated players are few, and of
    // the nineteenth century).
    let withheld_words = ", read with their rating withheld (a file without Elo tags), at the unrated model's thresholds";
    for (n, players) in withheld_players {
        let rated: Vec<PseudoPlayer> = players.into_iter().filter(|p| p.elo.is_some()).collect();
        player_rates(&mut out, &rated, n, withheld_words);
    }
    let rated_real: Vec<PseudoPlayer> = real(true)?
        .into_iter()
        .filter(|p| p.elo.is_some())
        .collect();
    real_player_rates(&mut out, &rated_real, a.real_player_games, withheld_words);
    print!("{out}");
    Ok(())
}

/// The levels of the real clean players of `min_games` or more games ([`real_players`]).
fn real_player_rates(out: &mut String, players: &[PseudoPlayer], min_games: usize, how: &str) {
    let assessed: Vec<&PseudoPlayer> = players.iter().filter(|p| p.level.is_some()).collect();
    let _ = writeln!(
        out,
        "\nreal players of {min_games} or more clean games (all their games pooled{how}; {} players, {} games in all):",
        assessed.len(),
        assessed.iter().map(|p| p.games).sum::<usize>()
    );
    for level in [Level::LookCloser, Level::Unclear] {
        let k = assessed.iter().filter(|p| p.level >= Some(level)).count();
        let (lo, hi) = wilson(k, assessed.len());
        let _ = writeln!(
            out,
            "  false-positive rate, {} or above: {k}/{} = {:.1}% (95% {:.1}-{:.1}%)",
            level.name(),
            assessed.len(),
            100.0 * k as f64 / assessed.len().max(1) as f64,
            100.0 * lo,
            100.0 * hi
        );
    }
    tail_line(out, &assessed, 0x7265_616c);
    highest(out, "real player", assessed);
}

/// The three highest of `players` by probability, each on a line.
fn highest(out: &mut String, what: &str, mut players: Vec<&PseudoPlayer>) {
    players.retain(|p| !p.probability.is_nan());
    players.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    for p in players.iter().take(3) {
        let _ = writeln!(
            out,
            "  a highest {what}: {:.3} ({}; {}; reasons: {})",
            p.probability,
            p.basis,
            p.members.join(", "),
            p.reasons.join(", ")
        );
    }
}

/// The per-player rates of the pseudo-players of `games` games each.
fn player_rates(out: &mut String, players: &[PseudoPlayer], games: usize, how: &str) {
    let _ = writeln!(
        out,
        "\nper player of {n} games (pseudo-players: {n} game sides of one kind, humans of similar rating on one scale (online or over the board), pooled{how}):",
        n = games
    );
    for (what, kind) in [
        ("false-positive rate (clean humans)", Kind::Human),
        ("true-positive rate, top engines", Kind::TopEngine),
        ("true-positive rate, weaker engines", Kind::WeakEngine),
        ("true-positive rate, switched sides", Kind::Switched),
    ] {
        let of: Vec<&PseudoPlayer> = players
            .iter()
            .filter(|p| p.kind == kind && p.level.is_some())
            .collect();
        let k = of
            .iter()
            .filter(|p| p.level == Some(Level::LookCloser))
            .count();
        let (lo, hi) = wilson(k, of.len());
        let _ = writeln!(
            out,
            "  {what}, look closer: {k}/{} = {:.1}% (95% {:.1}-{:.1}%)",
            of.len(),
            100.0 * k as f64 / of.len().max(1) as f64,
            100.0 * lo,
            100.0 * hi
        );
    }
    for (what, lo, hi) in [
        ("rated under 1400", 0.0, 1400.0),
        ("rated 1400-1999", 1400.0, 2000.0),
        ("rated 2000+", 2000.0, f64::MAX),
    ] {
        let band: Vec<&PseudoPlayer> = players
            .iter()
            .filter(|p| p.kind == Kind::Human && p.level.is_some())
            .filter(|p| p.elo.is_some_and(|e| (lo..hi).contains(&e)))
            .collect();
        let k = band
            .iter()
            .filter(|p| p.level == Some(Level::LookCloser))
            .count();
        let top = band.iter().map(|p| p.probability).fold(f64::NAN, f64::max);
        let _ = writeln!(
            out,
            "  clean humans {what}: look closer {k}/{}, highest probability {top:.3}",
            band.len()
        );
    }
    let clean: Vec<&PseudoPlayer> = players.iter().filter(|p| p.kind == Kind::Human).collect();
    tail_line(out, &clean, games as u64);
    highest(out, "clean pseudo-player", clean);
    let (ps, pl): (Vec<f64>, Vec<bool>) = players
        .iter()
        .filter(|p| !p.probability.is_nan())
        .map(|p| (p.probability, p.kind != Kind::Human))
        .unzip();
    let _ = writeln!(out, "  player-level AUC: {:.3}", auc(&ps, &pl));
    let points: Vec<(f64, bool)> = ps.into_iter().zip(pl).collect();
    let _ = writeln!(
        out,
        "  reliability (predicted → observed share of engine-assisted pseudo-players):{}",
        reliability_bins(&points)
    );
}

/// The clean players' false-positive rate at the player thresholds read from a model of
/// their tail, for rates far below one in the few hundred players there are to count
/// (the per-player goal is 0.1%): for each kind of input with 10 or more clean players, a
/// normal fitted to their logits (linear in their largest expert z: the probability is
/// `sigmoid(a·z + b)`, `AssessmentVariant::platt`), and its mass above the threshold's
/// logit, weighted by players. The 95% interval comes from resampling the players within
/// each kind of input (`RESAMPLES` times); the check of the model counts the players above
/// the fitted normals' 90th and 99th percentiles, against the 10% and 1% it expects.
#[derive(Debug)]
struct TailRate {
    rate: f64,
    lo: f64,
    hi: f64,
    players: usize,
    above_90: usize,
    above_99: usize,
}

/// A reliability table's bins (probability under 0.1, 0.1-0.3, ..., 0.9 and over), each
/// as ` mean predicted → observed share of engine-assisted (count)`; empty bins left out.
fn reliability_bins(points: &[(f64, bool)]) -> String {
    let mut line = String::new();
    for (lo, hi) in [
        (0.0, 0.1),
        (0.1, 0.3),
        (0.3, 0.5),
        (0.5, 0.7),
        (0.7, 0.9),
        (0.9, 1.01),
    ] {
        let bin: Vec<&(f64, bool)> = points.iter().filter(|p| p.0 >= lo && p.0 < hi).collect();
        if bin.is_empty() {
            continue;
        }
        let mean = bin.iter().map(|p| p.0).sum::<f64>() / bin.len() as f64;
        let observed = bin.iter().filter(|p| p.1).count() as f64 / bin.len() as f64;
        line.push_str(&format!(" {mean:.2} → {observed:.2} ({})", bin.len()));
    }
    line
}

/// Bootstrap resamples of [`tail_rate`]'s interval.
const RESAMPLES: usize = 2000;

/// [`TailRate`] of `groups`, each the clean players' logits of one kind of input and the
/// logit of its threshold; `None` when no group has 10 players.
fn tail_rate(groups: &[(Vec<f64>, f64)], seed: u64) -> Option<TailRate> {
    let groups: Vec<&(Vec<f64>, f64)> = groups.iter().filter(|(l, _)| l.len() >= 10).collect();
    let players: usize = groups.iter().map(|(l, _)| l.len()).sum();
    if players == 0 {
        return None;
    }
    // A normal of no spread puts no mass above a threshold over its mean.
    let mean_sd = |l: &[f64]| {
        let (m, s) = mean_sd(l);
        (m, s.max(1e-9))
    };
    let upper = |z: f64| 0.5 * libm::erfc(z / std::f64::consts::SQRT_2);
    let rate_of = |fits: &[(f64, f64, usize, f64)]| {
        fits.iter()
            .map(|(m, s, n, t)| *n as f64 * upper((t - m) / s))
            .sum::<f64>()
            / players as f64
    };
    let mut fits = Vec::new();
    let (mut above_90, mut above_99) = (0, 0);
    for (l, t) in &groups {
        let (m, s) = mean_sd(l);
        above_90 += l.iter().filter(|x| **x > m + 1.281_552 * s).count();
        above_99 += l.iter().filter(|x| **x > m + 2.326_348 * s).count();
        fits.push((m, s, l.len(), *t));
    }
    let rate = rate_of(&fits);
    let mut rng = Rng(seed | 1);
    let mut rates: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let fits: Vec<(f64, f64, usize, f64)> = groups
                .iter()
                .map(|(l, t)| {
                    let draw: Vec<f64> = (0..l.len())
                        .map(|_| l[(rng.next() % l.len() as u64) as usize])
                        .collect();
                    let (m, s) = mean_sd(&draw);
                    (m, s, l.len(), *t)
                })
                .collect();
            rate_of(&fits)
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    Some(TailRate {
        rate,
        lo: percentile(&rates, 0.025),
        hi: percentile(&rates, 0.975),
        players,
        above_90,
        above_99,
    })
}

/// The clean players of `players` grouped by kind of input and by the `look closer` they
/// were held to (a rating band's, where the kind has bands): their logits and the logit
/// of that threshold.
fn clean_logits(players: &[&PseudoPlayer]) -> Vec<(Vec<f64>, f64)> {
    let mut groups: BTreeMap<(&str, u64), Vec<f64>> = BTreeMap::new();
    for p in players
        .iter()
        .filter(|p| p.kind == Kind::Human && p.probability > 0.0 && p.probability < 1.0)
        .filter(|p| p.look_closer > 0.0 && p.look_closer < 1.0)
    {
        groups
            .entry((p.basis.as_str(), p.look_closer.to_bits()))
            .or_default()
            .push((p.probability / (1.0 - p.probability)).ln());
    }
    groups
        .into_iter()
        .map(|((_, t), logits)| {
            let t = f64::from_bits(t);
            (logits, (t / (1.0 - t)).ln())
        })
        .collect()
}

/// The rating bands of the clean sides' false-positive rates in `assess eval`: name,
/// lowest rating (none: unrated sides), rating the band stops below.
const FPR_BANDS: [(&str, Option<f64>, Option<f64>); 6] = [
    ("unrated", None, None),
    ("rated under 1,600", Some(0.0), Some(1600.0)),
    ("1,600-1,899", Some(1600.0), Some(1900.0)),
    ("1,900-2,199", Some(1900.0), Some(2200.0)),
    ("2,200-2,499", Some(2200.0), Some(2500.0)),
    ("2,500 and over", Some(2500.0), None),
];

/// A slice's best single signal set against the combined probability ([`best_single`]).
#[derive(Debug)]
struct BestSingle {
    /// The signal's index in [`SIGNALS`].
    signal: usize,
    /// The combined probability's AUC and the signal's, on the sides that have it.
    combined: f64,
    single: f64,
    sides: usize,
    /// The paired difference's (combined − signal) 95% interval.
    lo: f64,
    hi: f64,
}

/// The single signal with the highest AUC over a slice's `(probability, signals, label,
/// player)` sides (each oriented by `direction`, over the sides that have it), compared
/// with the combined probability on those sides, paired ([`auc_resamples`]). `None` when
/// no signal has an AUC (a slice without both labels).
fn best_single(
    sides: &[(f64, &Signals, bool, &str)],
    direction: &[f64],
    seed: u64,
) -> Option<BestSingle> {
    let having = |j: usize| -> Vec<&(f64, &Signals, bool, &str)> {
        sides.iter().filter(|s| s.1.values[j].is_some()).collect()
    };
    let signal_auc = |j: usize| {
        let h = having(j);
        let v: Vec<f64> = h
            .iter()
            .map(|s| s.1.values[j].unwrap_or(0.0) * direction[j])
            .collect();
        let l: Vec<bool> = h.iter().map(|s| s.2).collect();
        auc(&v, &l)
    };
    let (signal, single) = (0..SIGNALS.len())
        .map(|j| (j, signal_auc(j)))
        .filter(|(_, a)| !a.is_nan())
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let h = having(signal);
    let combined: Vec<f64> = h.iter().map(|s| s.0).collect();
    let values: Vec<f64> = h
        .iter()
        .map(|s| s.1.values[signal].unwrap_or(0.0) * direction[signal])
        .collect();
    let labels: Vec<bool> = h.iter().map(|s| s.2).collect();
    let players: Vec<&str> = h.iter().map(|s| s.3).collect();
    let mut diffs: Vec<f64> = auc_resamples(&[&combined, &values], &labels, &players, seed)
        .iter()
        .map(|d| d[0] - d[1])
        .collect();
    diffs.sort_by(f64::total_cmp);
    Some(BestSingle {
        signal,
        combined: auc(&combined, &labels),
        single,
        sides: h.len(),
        lo: percentile(&diffs, 0.025),
        hi: percentile(&diffs, 0.975),
    })
}

/// [`RESAMPLES`] bootstrap draws of a slice's sides, the players drawn whole (as many
/// players as the slice holds, with replacement; a player's sides are not independent of
/// each other): each draw's AUC of every score set in `sets`, the same sides for each,
/// so that differences between the sets are paired. Draws without both labels are left
/// out.
fn auc_resamples(sets: &[&[f64]], labels: &[bool], players: &[&str], seed: u64) -> Vec<Vec<f64>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, p) in players.iter().enumerate() {
        let n = index.len();
        let c = *index.entry(p).or_insert(n);
        if c == members.len() {
            members.push(Vec::new());
        }
        members[c].push(i);
    }
    let mut rng = Rng(seed | 1);
    let mut draws = Vec::with_capacity(RESAMPLES);
    if members.is_empty() {
        return draws;
    }
    for _ in 0..RESAMPLES {
        let mut sides: Vec<usize> = Vec::with_capacity(labels.len());
        for _ in 0..members.len() {
            sides.extend(&members[(rng.next() % members.len() as u64) as usize]);
        }
        let l: Vec<bool> = sides.iter().map(|&i| labels[i]).collect();
        if l.iter().all(|x| *x) || !l.iter().any(|x| *x) {
            continue;
        }
        draws.push(
            sets.iter()
                .map(|s| auc(&sides.iter().map(|&i| s[i]).collect::<Vec<_>>(), &l))
                .collect(),
        );
    }
    draws
}

/// [`tail_rate`]'s line for `players`.
fn tail_line(out: &mut String, players: &[&PseudoPlayer], seed: u64) {
    let Some(t) = tail_rate(&clean_logits(players), seed) else {
        let _ = writeln!(
            out,
            "  false-positive rate, look closer, from a normal fitted to the clean players' logits: none (no kind of input has 10 clean players)"
        );
        return;
    };
    let _ = writeln!(
        out,
        "  false-positive rate, look closer, from a normal fitted to the clean players' logits (each kind of input with 10+ players: {} players): {:.3}% (95% {:.3}-{:.3}%, {RESAMPLES} resamples); the normal's check: {} above its 90th percentile (expected {:.1}), {} above its 99th (expected {:.1})",
        t.players,
        100.0 * t.rate,
        100.0 * t.lo,
        100.0 * t.hi,
        t.above_90,
        0.1 * t.players as f64,
        t.above_99,
        0.01 * t.players as f64
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bands_threshold_lets_through_one_clean_side_in_a_hundred() {
        // 250 clean sides, 0.000 to 0.996: 1% of them is 2 sides, so the band's threshold
        // sits just above the third highest (0.988), and 4 reach the variant's 0.981.
        let humans: Vec<f64> = (0..250).map(|i| f64::from(i) * 0.004).collect();
        let b = lower_rated(&humans, 1900.0, 0.981, BAND_RATE);
        assert!((b.look_closer - 0.988).abs() < 1e-6, "{}", b.look_closer);
        // The 90th percentile: 0.9 of the way through 249 steps of 0.004.
        assert!((b.unclear - 0.8964).abs() < 1e-9, "{}", b.unclear);
        assert_eq!(humans.iter().filter(|&&p| p >= b.look_closer).count(), 2);
        assert_eq!((b.below, b.sides, b.at_variant), (1900.0, 250, 4));
        // Under 100 sides none is let through; the fit's clamp holds.
        let few = lower_rated(&humans[160..], 1900.0, 0.981, BAND_RATE);
        assert!(
            (few.look_closer - 0.996).abs() < 1e-6,
            "{}",
            few.look_closer
        );
        assert_eq!(
            lower_rated(&humans[..10], 1900.0, 0.981, BAND_RATE).look_closer,
            0.5
        );
    }

    #[test]
    fn a_slices_best_single_signal_is_set_against_the_combined_probability_paired() {
        // 40 players, one side each: `acpl` (lower is engine-like) tells every engine
        // from every human, `lateLoss` half of them, and the combined probability
        // three in four. The best single signal is `acpl`, oriented by its direction;
        // the combined falls short of it in every resample.
        let j = |k: &str| SIGNALS.iter().position(|s| *s == k).unwrap();
        let mut direction = vec![1.0; SIGNALS.len()];
        direction[j("acpl")] = -1.0;
        let signals: Vec<Signals> = (0..40)
            .map(|i| {
                let engine = i < 20;
                let mut s = Signals::none();
                s.values[j("acpl")] = Some(if engine { 10.0 } else { 50.0 } + i as f64 % 7.0);
                s.values[j("lateLoss")] = Some(if i % 2 == 0 { 1.0 } else { 0.0 });
                s
            })
            .collect();
        let players: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
        let sides: Vec<(f64, &Signals, bool, &str)> = signals
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let engine = i < 20;
                // Engines above humans but for five of each, swapped.
                let p = if engine != (i % 4 == 0) { 0.9 } else { 0.1 };
                (p, s, engine, players[i].as_str())
            })
            .collect();
        let b = best_single(&sides, &direction, 1).unwrap();
        assert_eq!(SIGNALS[b.signal], "acpl");
        assert_eq!((b.single, b.sides), (1.0, 40));
        assert!(b.combined < 0.8, "{b:?}");
        assert!(
            b.lo <= b.combined - b.single && b.combined - b.single <= b.hi,
            "{b:?}"
        );
        assert!(b.hi < 0.0, "{b:?}");
        // A slice of one label has no best signal.
        assert!(best_single(&sides[..20], &direction, 1).is_none());
    }

    #[test]
    fn the_player_tail_lies_above_the_clean_players_logits() {
        // Logits -3..=3 in steps of 1, repeated: mean 0, sd 2.0 (sample).
        let p: Vec<f64> = (0..14)
            .map(|i| 1.0 / (1.0 + (-((i % 7) as f64 - 3.0)).exp()))
            .collect();
        let sd = (p.len() as f64 * 4.0 / (p.len() as f64 - 1.0)).sqrt();
        let expected = 1.0 / (1.0 + (-(Z_PLAYER * sd)).exp());
        assert!((normal_tail(&p, Z_PLAYER) - expected).abs() < 1e-12);
        assert!(normal_tail(&p, Z_PLAYER) > p.iter().copied().fold(0.0, f64::max));
        // Too few players: no tail.
        assert_eq!(normal_tail(&p[..9], Z_PLAYER), 0.0);
    }

    #[test]
    fn a_players_threshold_holds_the_goal_with_95_percent_confidence() {
        // Above the point estimate, the more so the fewer the players; toward it with many.
        assert!((player_z(382) - 3.304).abs() < 0.001, "{}", player_z(382));
        assert!(player_z(80) > player_z(382) && player_z(382) > player_z(10_000));
        assert!(player_z(10_000) - Z_PLAYER < 0.05 && player_z(10_000) > Z_PLAYER);
        // Coverage: of many samples of 80 standard normal logits, the mean plus
        // `player_z(80)` standard deviations lies above the true 99.9th percentile in
        // about 95% of them (the point estimate's `Z_PLAYER` in about half).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut uniform = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (trials, n) = (4000, 80);
        let (mut covered, mut covered_point) = (0, 0);
        for _ in 0..trials {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    let (u1, u2) = (uniform().max(1e-300), uniform());
                    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
                })
                .collect();
            let (mean, sd) = mean_sd(&v);
            covered += usize::from(mean + player_z(n) * sd >= Z_PLAYER);
            covered_point += usize::from(mean + Z_PLAYER * sd >= Z_PLAYER);
        }
        let share = covered as f64 / trials as f64;
        let point = covered_point as f64 / trials as f64;
        assert!((0.93..=0.97).contains(&share), "{share}");
        assert!((0.35..=0.6).contains(&point), "{point}");
    }

    #[test]
    fn real_players_bound_a_players_thresholds_only_in_their_own_kind_and_band() {
        let player = |probability: f64, basis: &str, elo: f64| PseudoPlayer {
            kind: Kind::Human,
            level: None,
            probability,
            basis: basis.to_owned(),
            members: Vec::new(),
            reasons: Vec::new(),
            elo: Some(elo),
            games: 5,
            look_closer: f64::NAN,
        };
        // 30 clean players of the rated kind rated 2,200+, at 0.01 to 0.30; one of the
        // unrated kind at 0.99 and one rated under 2,200 at 0.95, which neither reads.
        let mut reals: Vec<PseudoPlayer> = (1..=30)
            .map(|k| player(k as f64 / 100.0, "rated, no clocks", 2300.0))
            .collect();
        reals.push(player(0.99, "unrated, no clocks", 2300.0));
        reals.push(player(0.95, "rated, no clocks", 2000.0));
        reals.push(player(f64::NAN, "rated, no clocks", 2300.0));
        let top = |p: &PseudoPlayer| p.elo.is_some_and(|e| e >= 2200.0);
        let (bound, unclear, words) = real_players_bound(&reals, "rated, no clocks", top);
        // A tenth of the 30 are above 0.271 (the 90th percentile of 0.01..0.30).
        let unclear = unclear.expect("30 players set a tenth");
        assert!((unclear - 0.271).abs() < 1e-9, "{unclear}");
        assert_eq!(
            reals[..30]
                .iter()
                .filter(|p| p.probability > unclear)
                .count(),
            3
        );
        // Above the highest (0.30) and the normal tail of their logits, which is higher.
        let logits: Vec<f64> = (1..=30).map(|k| logit(k as f64 / 100.0)).collect();
        let (mean, sd) = mean_sd(&logits);
        let tail = 1.0 / (1.0 + (-(mean + player_z(30) * sd)).exp());
        assert!(
            tail > 0.30 && (bound - tail).abs() < 1e-12,
            "{bound} {tail}"
        );
        assert!(
            words.starts_with("real players: 30, highest 0.300"),
            "{words}"
        );
        // The band under 2,200 holds one player: the highest bounds it, no tail, no tenth.
        let (bound, unclear, _) = real_players_bound(&reals, "rated, no clocks", |p| !top(p));
        assert_eq!((bound, unclear), (0.95 + 1e-9, None));
        // Fewer than 20 players give no tenth; none give no bound.
        let few = &reals[..19];
        assert_eq!(real_players_bound(few, "rated, no clocks", top).1, None);
        assert_eq!(real_players_bound(few, "rated, clocks", top).0, 0.0);
    }

    #[test]
    fn the_tail_rate_reads_a_normal_tail_and_its_check_finds_a_heavier_one() {
        // 400 clean players' logits from N(−4, 1.5²), the threshold at the normal's 99.9th
        // percentile: a rate of 0.1%, which no count of 400 players could show.
        let mut rng = Rng(7);
        let l: Vec<f64> = (0..400).map(|_| -4.0 + 1.5 * normal(&mut rng)).collect();
        let t = tail_rate(
            &[(l.clone(), -4.0 + 1.5 * Z_PLAYER), (vec![0.0; 9], -10.0)],
            1,
        )
        .unwrap();
        // The kind of input with 9 players is left out (all of them would be above).
        assert_eq!(t.players, 400);
        assert!((0.0003..0.003).contains(&t.rate), "{t:?}");
        assert!(
            t.lo < 0.001 && 0.001 < t.hi && t.lo < t.rate && t.rate < t.hi,
            "{t:?}"
        );
        assert!((25..=55).contains(&t.above_90), "{t:?}");
        assert!(t.above_99 <= 10, "{t:?}");
        // Two kinds of input are weighted by their players.
        let both = tail_rate(&[(l.clone(), -4.0 + 1.5 * Z_PLAYER), (l.clone(), 100.0)], 1).unwrap();
        assert!((both.rate - t.rate / 2.0).abs() < 1e-12, "{both:?}");
        // 5% of the players far out: the normal fitted to all of them misses them, and the
        // check says so.
        let mut heavy: Vec<f64> = (0..380).map(|_| normal(&mut rng)).collect();
        heavy.extend((0..20).map(|_| 5.0 + 0.5 * normal(&mut rng)));
        let h = tail_rate(&[(heavy, 6.0)], 1).unwrap();
        assert!(h.above_99 >= 15, "{h:?}");
        assert!(tail_rate(&[(vec![0.0; 9], 0.0)], 1).is_none());
    }

    #[test]
    fn out_of_fold_probabilities_replace_the_classifier_summaries_of_their_games_only() {
        use fairsight::{Analysis, EngineInfo, Settings};
        let report = Analysis::from_pgn("1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 d5 *", Settings::default())
            .report(EngineInfo::default());
        let record = |id: &str| Record {
            format: 1,
            id: id.to_owned(),
            label: Label::Human,
            source: "s".to_owned(),
            file: "f.pgn".to_owned(),
            game: 1,
            skipped: 0,
            settings: Settings::default(),
            engine: EngineInfo::default(),
            pgn: String::new(),
            positions: Vec::new(),
        };
        let records = [record("s/1"), record("s/2")];
        let mut games = report.games.clone();
        let oof = BTreeMap::from([(
            "s/1".to_owned(),
            vec![Some(0.9), Some(0.1), Some(0.7), None],
        )]);
        assert_eq!(with_out_of_fold(&mut games, &records, &oof).unwrap(), 1);
        let white = games[0].sides.white.classifier.clone().unwrap();
        assert_eq!((white.classified, white.flagged), (2, 2));
        assert!((white.mean_probability.unwrap() - 0.8).abs() < 1e-12);
        let black = games[0].sides.black.classifier.clone().unwrap();
        assert_eq!((black.classified, black.flagged), (1, 0));
        assert_eq!(games[0].plies[3].engine_probability, None);
        // The game without out-of-fold probabilities is left as it was.
        assert_eq!(games[1], report.games[1]);
        // Probabilities of another game's length are refused, not misplaced.
        let short = BTreeMap::from([("s/2".to_owned(), vec![Some(0.5)])]);
        let err = with_out_of_fold(&mut games, &records, &short).unwrap_err();
        assert!(
            err.to_string()
                .contains("s/2: 1 out-of-fold probabilities for 2 plies")
        );
    }

    #[test]
    fn a_drawn_rating_is_a_quantile_that_stays_put_as_the_pool_grows() {
        let pool: Vec<f64> = (0..1000).map(|i| 1000.0 + 2.0 * f64::from(i)).collect();
        let keys: Vec<String> = (1..=400).map(|g| format!("tcec/{g:05}#white")).collect();
        let drawn: Vec<f64> = keys
            .iter()
            .map(|k| drawn_rating(&pool, k).unwrap())
            .collect();
        // Spread over the pool: every quarter of it gets about a quarter of the keys.
        for q in 0..4 {
            let lo = 1000.0 + 500.0 * f64::from(q);
            let n = drawn
                .iter()
                .filter(|r| (lo..lo + 500.0).contains(*r))
                .count();
            assert!((70..=130).contains(&n), "quarter {q}: {n} of 400");
        }
        // 10% more ratings, spread alike: each key's rating moves by a few points at
        // most, where an index modulo the count sent most of them elsewhere.
        let mut grown = pool.clone();
        grown.extend((0..100).map(|i| 1001.0 + 20.0 * f64::from(i)));
        grown.sort_by(f64::total_cmp);
        let moved = keys
            .iter()
            .zip(&drawn)
            .filter(|(k, r)| (drawn_rating(&grown, k).unwrap() - **r).abs() > 60.0)
            .count();
        assert_eq!(moved, 0);
        assert_eq!(drawn_rating(&[], "x"), None);
    }

    #[test]
    fn a_limited_engine_is_used_by_a_player_rated_well_below_it() {
        let pool: Vec<f64> = (0..1000).map(|i| 1000.0 + 2.0 * f64::from(i)).collect();
        for g in 1..=200 {
            let key = format!("selfplay/{g:05}#black");
            // A 2000 engine: its user is rated 1800 or less, anywhere in that range.
            let r = engine_rating(&pool, Some(2000.0), &key).unwrap();
            assert!((1000.0..=1800.0).contains(&r), "{key}: {r}");
            // A top engine's user (tag above 3000, or none) may have any rating.
            assert_eq!(
                engine_rating(&pool, Some(3500.0), &key),
                drawn_rating(&pool, &key)
            );
            assert_eq!(engine_rating(&pool, None, &key), drawn_rating(&pool, &key));
        }
        let low: Vec<f64> = (0..200)
            .map(|g| engine_rating(&pool, Some(2000.0), &format!("s/{g}")).unwrap())
            .collect();
        // Spread over the eligible ratings, not piled at one end.
        assert!(low.iter().any(|r| *r < 1200.0) && low.iter().any(|r| *r > 1600.0));
        // No human is rated 200 below a 1100 engine: no rating to draw.
        assert_eq!(engine_rating(&pool, Some(1100.0), "s/1"), None);
    }

    #[test]
    fn the_within_bin_auc_ignores_what_only_the_bins_tell() {
        // Two bins: bin 1 holds most positives and scores higher as a whole, but inside
        // each bin the score says nothing (the same value for both labels).
        let scores = [0.1, 0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9];
        let labels = [false, false, false, true, false, true, true, true];
        let groups = [0, 0, 0, 0, 1, 1, 1, 1];
        assert!(
            auc(&scores, &labels) > 0.7,
            "the bins alone look informative"
        );
        let (a, pairs) = auc_within(&scores, &labels, &groups);
        assert_eq!(pairs, 3 + 3);
        assert_eq!(a, 0.5, "within bins");
        // A score that separates inside each bin keeps its AUC.
        let sep = [0.1, 0.1, 0.1, 0.2, 0.8, 0.9, 0.9, 0.9];
        assert_eq!(auc_within(&sep, &labels, &groups).0, 1.0);
        // No bin with both labels: no answer rather than a number.
        let (n, p) = auc_within(&[0.1, 0.9], &[false, true], &[0, 1]);
        assert!(n.is_nan() && p == 0);
    }

    #[test]
    fn a_slices_auc_interval_draws_each_players_sides_together() {
        // 200 players, one side each, half of them assisted and scoring higher by 0.3 on
        // a uniform spread: an AUC of about 0.79.
        let mut rng = Rng(11);
        let (mut s, mut l) = (Vec::new(), Vec::new());
        for i in 0..200 {
            let u = (rng.next() % 10_000) as f64 / 10_000.0;
            s.push(u + if i % 2 == 0 { 0.3 } else { 0.0 });
            l.push(i % 2 == 0);
        }
        let names: Vec<String> = (0..800).map(|i| format!("p{i}")).collect();
        let width = |scores: &[f64], labels: &[bool], players: &[&str]| {
            let draws = auc_resamples(&[scores], labels, players, 3);
            assert!(draws.len() > RESAMPLES * 9 / 10, "{}", draws.len());
            let mut v: Vec<f64> = draws.iter().map(|d| d[0]).collect();
            v.sort_by(f64::total_cmp);
            let (lo, hi) = (percentile(&v, 0.025), percentile(&v, 0.975));
            let a = auc(scores, labels);
            assert!(lo < a && a < hi, "{lo} {a} {hi}");
            hi - lo
        };
        let one: Vec<&str> = names[..200].iter().map(String::as_str).collect();
        let w1 = width(&s, &l, &one);
        assert!((0.08..0.20).contains(&w1), "{w1}");
        // Each side four times: as four players the interval narrows by about half, as
        // one player's four sides it stays as wide as one side's.
        let s4: Vec<f64> = s.iter().flat_map(|x| [*x; 4]).collect();
        let l4: Vec<bool> = l.iter().flat_map(|x| [*x; 4]).collect();
        let apart: Vec<&str> = names.iter().map(String::as_str).collect();
        let together: Vec<&str> = (0..800).map(|i| one[i / 4]).collect();
        let (wa, wt) = (width(&s4, &l4, &apart), width(&s4, &l4, &together));
        assert!(wa < 0.65 * w1, "{wa} {w1}");
        assert!((wt - w1).abs() < 0.25 * w1, "{wt} {w1}");
        // Paired: a model against itself differs by nothing in every draw; a score that
        // separates perfectly is ahead in every draw.
        let perfect: Vec<f64> = l.iter().map(|x| f64::from(u8::from(*x))).collect();
        for d in auc_resamples(&[&s, &s, &perfect], &l, &one, 5) {
            assert_eq!(d[0], d[1]);
            assert!(d[2] == 1.0 && d[0] < 1.0, "{d:?}");
        }
        // No sides, no draws.
        assert!(auc_resamples(&[&[]], &[], &[], 1).is_empty());
    }

    #[test]
    fn a_reliability_bin_holds_its_mean_prediction_and_observed_share() {
        // Four at 0.05 with none engine-assisted; five at 0.2 and 0.4 (bins 0.1-0.3 and
        // 0.3-0.5), one of the 0.2's and two of the 0.4's assisted; one at 0.95,
        // assisted; none between 0.5 and 0.9.
        let mut points = vec![(0.05, false); 4];
        points.extend([(0.2, true), (0.2, false), (0.2, false)]);
        points.extend([(0.4, true), (0.4, true)]);
        points.push((0.95, true));
        assert_eq!(
            reliability_bins(&points),
            " 0.05 → 0.00 (4) 0.20 → 0.33 (3) 0.40 → 1.00 (2) 0.95 → 1.00 (1)"
        );
        // A probability of exactly 1 is in the last bin.
        assert_eq!(reliability_bins(&[(1.0, true)]), " 1.00 → 1.00 (1)");
    }

    #[test]
    fn platt_scaling_recovers_a_known_calibration() {
        // Scores whose logit is twice the true log-odds, shifted by one.
        let mut rng = Rng(7);
        let (mut s, mut l) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            let z = (rng.next() % 10_000) as f64 / 1000.0 - 5.0; // true log-odds
            let p = 1.0 / (1.0 + (-z).exp());
            let label = (rng.next() % 1_000_000) as f64 / 1e6 < p;
            let raw = 1.0 / (1.0 + (-(2.0 * z + 1.0)).exp());
            s.push(raw);
            l.push(label);
        }
        let (a, b) = platt(&s, &l);
        assert!((a - 0.5).abs() < 0.05, "a = {a}");
        assert!((b + 0.5).abs() < 0.1, "b = {b}");
    }

    #[test]
    fn an_expert_keeps_only_weights_that_point_the_way_their_signals_read() {
        // Two collinear signals that both read "engine" upward, the label following the
        // first minus part of the second (a logistic fit gives the second a negative
        // weight), a loss that reads "engine" downward, and a clock signal with no fixed
        // direction, whose weight may take either sign.
        let mut rng = Rng(7);
        let features: Vec<String> = ["matchRate", "zMm", "acpl", "timeCv"]
            .map(String::from)
            .to_vec();
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..2000 {
            let a = normal(&mut rng);
            let b = a + 0.3 * normal(&mut rng);
            let loss = normal(&mut rng);
            let clock = normal(&mut rng);
            let z = 2.0 * a - 1.2 * b - 0.8 * loss - 0.7 * clock + 0.5 * normal(&mut rng);
            x.push(vec![a, b, loss, clock]);
            y.push(u32::from(z > 0.0));
        }
        let mine = vec![true; x.len()];
        let (_, free, _) = logistic_l2(&x, &y, 1.0).unwrap();
        assert!(
            free[1] < 0.0,
            "the unconstrained fit turns zMm around: {free:?}"
        );
        let (kept, dropped) = sign_consistent_columns(&features, &x, &y, &mine).unwrap();
        assert_eq!(dropped, ["zMm"]);
        assert_eq!(kept, [0, 2, 3], "the clock signal stays, whatever its sign");
        let tx: Vec<Vec<f64>> = x
            .iter()
            .map(|r| kept.iter().map(|&j| r[j]).collect())
            .collect();
        let (_, w, _) = logistic_l2(&tx, &y, 1.0).unwrap();
        assert!(w[0] > 0.0 && w[1] < 0.0 && w[2] < 0.0, "{w:?}");
    }

    fn normal(rng: &mut Rng) -> f64 {
        let u = |rng: &mut Rng| ((rng.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let (a, b) = (u(rng), u(rng));
        (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }

    /// Synthetic sides: engines match more and lose fewer centipawns than humans; every
    /// other signal is noise, some sides are rated (z-scores shift with assistance) and
    /// the number of moves is unrelated to the label unless `leak`.
    fn synthetic(n: usize, seed: u64, leak: bool) -> Vec<Row> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|i| {
                let engine = i % 3 == 0;
                let mut values = [None; SIGNALS.len()];
                let set = |values: &mut [Option<f64>; SIGNALS.len()], k: &str, v: f64| {
                    values[SIGNALS.iter().position(|s| *s == k).unwrap()] = Some(v);
                };
                let shift = if engine { 1.0 } else { 0.0 };
                set(
                    &mut values,
                    "matchRate",
                    0.45 + 0.15 * shift + 0.08 * normal(&mut rng),
                );
                set(
                    &mut values,
                    "acpl",
                    (50.0 - 25.0 * shift + 12.0 * normal(&mut rng)).max(0.0),
                );
                set(&mut values, "accuracy", 80.0 + 5.0 * normal(&mut rng));
                set(&mut values, "classifier", 0.3 + 0.05 * normal(&mut rng));
                let rated = i % 2 == 0;
                let elo = rated.then_some(1500.0 + (i % 7) as f64 * 200.0);
                if rated {
                    set(&mut values, "zMm", 1.5 * shift + normal(&mut rng));
                }
                let moves = if leak && engine {
                    45
                } else {
                    15 + (rng.next() % 30) as usize
                };
                let split = match i % 10 {
                    0..6 => Split::Train,
                    6 | 7 => Split::Validation,
                    _ => Split::Test,
                };
                Row {
                    game: format!("g{i}"),
                    player: format!("p{i}"),
                    kind: if engine { Kind::TopEngine } else { Kind::Human },
                    side: Side::White,
                    split,
                    own_tag: None,
                    engine_moves: None,
                    signals: Signals {
                        values,
                        moves,
                        rating: elo,
                        ..Signals::none()
                    },
                    elo,
                }
            })
            .collect()
    }

    #[test]
    fn balanced_experts_weigh_a_kind_its_expert_tells_apart_but_the_largest_z_hides() {
        // Clean humans (rated 2500): the top-engine expert's z wide, N(0, 1), the weaker-
        // engine expert's narrow, N(0, 0.3). Weaker engines stand out on the narrow one
        // only, by 1.0 (over three of its standard deviations), but the largest z of the
        // two is mostly the wide one's noise; top engines stand out on the wide one, by 4.
        let mut rng = Rng(5);
        let (mut rows, mut z_top, mut z_weak) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..900 {
            let kind = match i % 3 {
                0 => Kind::Human,
                1 => Kind::WeakEngine,
                _ => Kind::TopEngine,
            };
            let elo = Some(if kind == Kind::WeakEngine {
                2000.0
            } else {
                2500.0
            });
            z_top.push(normal(&mut rng) + if kind == Kind::TopEngine { 4.0 } else { 0.0 });
            z_weak.push(0.3 * normal(&mut rng) + if kind == Kind::WeakEngine { 1.0 } else { 0.0 });
            rows.push(Row {
                game: format!("g{i}"),
                player: format!("p{i}"),
                kind,
                side: Side::White,
                split: Split::Train,
                own_tag: None,
                engine_moves: None,
                signals: Signals::none(),
                elo,
            });
        }
        let refs: Vec<&Row> = rows.iter().collect();
        let kinds = [Kind::TopEngine, Kind::WeakEngine];
        let b = balance_experts(&kinds, &[z_top.clone(), z_weak.clone()], &refs);
        // The top engines' expert is the reference; the weaker engines' z is magnified
        // (a scale under one), and their AUC rises well over what the largest z gave,
        // the top engines' kept.
        assert_eq!(b.weights[0], (0.0, 1.0));
        assert!(b.weights[1].1 < 1.0, "{:?}", b.weights);
        assert!(
            b.after[1] > b.before[1] + 0.05,
            "{:?} -> {:?}",
            b.before,
            b.after
        );
        assert!(b.after[0] >= b.before[0], "{:?} -> {:?}", b.before, b.after);
        // The AUCs it reports are those of the weighted largest z, recomputed here.
        let (c, s) = b.weights[1];
        let scores: Vec<f64> = z_top
            .iter()
            .zip(&z_weak)
            .map(|(t, w)| t.max((w - c) / s))
            .collect();
        let (sc, labels): (Vec<f64>, Vec<bool>) = rows
            .iter()
            .zip(&scores)
            .filter(|(r, _)| r.kind != Kind::TopEngine)
            .map(|(r, x)| (*x, r.kind == Kind::WeakEngine))
            .unzip();
        assert!((auc(&sc, &labels) - b.after[1]).abs() < 1e-12);
        // Experts whose z-scores already share a scale (both wide) keep it.
        let even: Vec<f64> = z_weak.iter().map(|z| z / 0.3).collect();
        let b = balance_experts(&kinds, &[z_top, even], &refs);
        assert!(
            b.after[1] - b.before[1] < 0.01,
            "{:?} -> {:?}",
            b.before,
            b.after
        );
    }

    #[test]
    fn player_effects_come_from_the_clean_train_players_only() {
        // 600 rated sides; the clean human train sides go to 40 players of several sides
        // each, whose zAsd is mostly the player's (a player effect of sd 1 and a side's
        // of sd 0.3) and whose zMm is noise; every other row (engines, other splits) gets
        // a player of its own side with a far zAsd, which must change nothing.
        let mut rng = Rng(11);
        let mut rows = synthetic(600, 5, false);
        let effect: Vec<f64> = (0..40).map(|_| normal(&mut rng)).collect();
        let set = |r: &mut Row, k: &str, v: f64| {
            r.signals.values[SIGNALS.iter().position(|s| *s == k).unwrap()] = Some(v);
        };
        let mut clean = 0;
        for (i, r) in rows.iter_mut().enumerate() {
            if r.split == Split::Train && r.kind == Kind::Human {
                r.player = format!("player {}", clean % 40);
                set(r, "zAsd", effect[clean % 40] + 0.3 * normal(&mut rng));
                set(r, "zMm", normal(&mut rng));
                clean += 1;
            } else {
                r.player = format!("other {}", i / 2);
                set(r, "zAsd", 9.0 * (i % 2) as f64);
            }
        }
        assert!(clean > 80, "{clean}");
        let effects = fit_player_effects(&rows);
        let get = |name: &str| effects.iter().find(|e| e.signal == name).unwrap();
        assert_eq!(get("zAsd").players, 40);
        assert!(get("zAsd").icc > 0.8, "{:?}", get("zAsd"));
        assert!(get("zMm").icc < 0.15, "{:?}", get("zMm"));
        assert!(
            effects.iter().all(|e| e.signal != "zLateLoss"),
            "no values: none"
        );
        assert!(player_effects_words(&effects).contains("zAsd 0.9"));
    }

    #[test]
    fn the_rows_csv_has_a_header_and_one_quoted_line_a_side() {
        let mut rows = synthetic(3, 7, false);
        rows[1].player = "O\"Brien, Pat".into();
        let csv = rows_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(header.len(), 8 + SIGNALS.len());
        assert_eq!(header[5], "rating");
        assert_eq!(header[8], SIGNALS[0]);
        // Row 0 is an engine (i % 3 == 0), rated (i % 2 == 0): Elo 1500, scored against
        // a rating of 1100 here (an engine's drawn one), and a zMm value.
        rows[0].signals.rating = Some(1100.0);
        let csv = rows_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[1].starts_with("g0,\"p0\",top-engine,train,1500,1100,"),
            "{}",
            lines[1]
        );
        let zmm = 8 + SIGNALS.iter().position(|s| *s == "zMm").unwrap();
        assert!(!lines[1].split(',').nth(zmm).unwrap().is_empty());
        // Row 1: a human, unrated (empty Elo and zMm), the name quoted with its quote doubled.
        assert!(
            lines[2].starts_with("g1,\"O\"\"Brien, Pat\",human,train,,,"),
            "{}",
            lines[2]
        );
        assert!(
            lines[2].ends_with(','),
            "the clock signals are missing: {}",
            lines[2]
        );
    }

    #[test]
    fn the_rated_weaker_engine_expert_reads_no_absolute_strength() {
        // The same synthetic engines as weaker ones: their match rate and ACPL separate
        // them, and so does zMm (here by far, so that the rated model is kept), which
        // alone of these the rated expert may read.
        let mut rows = synthetic(1500, 11, false);
        let zmm = SIGNALS.iter().position(|s| *s == "zMm").unwrap();
        for r in &mut rows {
            if r.kind == Kind::TopEngine {
                r.kind = Kind::WeakEngine;
                if let Some(z) = r.signals.values[zmm].as_mut() {
                    *z += 3.0;
                }
            }
        }
        let (variants, _, card) =
            fit_variants(&rows, 5, 30, 3, MIN_EXPERT_AUC, false, &[], false).unwrap();
        let expert = |rated: bool| {
            let v = variants
                .iter()
                .find(|v| v.rated == rated && !v.clocks)
                .unwrap_or_else(|| panic!("a variant: {card}"));
            v.experts
                .iter()
                .find(|e| e.kind == "weaker engines")
                .expect("a weaker-engine expert")
                .features
                .clone()
        };
        let rated = expert(true);
        assert!(rated.contains(&"zMm".to_owned()), "{rated:?}");
        for f in ABSOLUTE_STRENGTH {
            assert!(!rated.iter().any(|r| r == f), "{f} in {rated:?}");
        }
        // Without a rating there is nothing to give back: it reads them all.
        let unrated = expert(false);
        assert!(unrated.contains(&"acpl".to_owned()) && unrated.contains(&"matchRate".to_owned()));
    }

    #[test]
    fn a_signal_is_left_out_of_every_expert_or_of_one() {
        let parsed = leave_out(&["weaker:zMm".into(), "acpl".into()]).unwrap();
        assert_eq!(
            parsed,
            [
                (Some(Kind::WeakEngine), "zMm".to_owned()),
                (None, "acpl".to_owned())
            ]
        );
        let err = leave_out(&["bogus:zMm".into()]).unwrap_err().to_string();
        assert!(
            err.contains("bogus:zMm") && err.contains("no such expert"),
            "{err}"
        );
        let err = leave_out(&["top:nope".into()]).unwrap_err().to_string();
        assert!(err.contains("no such signal \"nope\""), "{err}");
        // Out of the top-engine expert only: the variant still has it, the expert not.
        let rows = synthetic(1500, 11, false);
        let features = |left: &[LeaveOut]| {
            let (variants, _, card) =
                fit_variants(&rows, 5, 30, 3, MIN_EXPERT_AUC, false, left, false).unwrap();
            let v = variants
                .iter()
                .find(|v| v.rated && !v.clocks)
                .unwrap_or_else(|| panic!("a rated variant: {card}"));
            let top = v
                .experts
                .iter()
                .find(|e| e.kind == "top engines")
                .expect("a top-engine expert");
            (v.features.clone(), top.features.clone())
        };
        let has = |f: &[String], name: &str| f.iter().any(|x| x == name);
        let (variant, top) = features(&[]);
        assert!(
            has(&variant, "matchRate") && has(&top, "matchRate"),
            "{top:?}"
        );
        let (variant, top) = features(&[(Some(Kind::TopEngine), "matchRate".into())]);
        assert!(
            has(&variant, "matchRate") && !has(&top, "matchRate"),
            "{top:?}"
        );
        assert!(has(&top, "acpl"), "{top:?}");
        let (variant, top) = features(&[(None, "matchRate".into())]);
        assert!(!has(&variant, "matchRate") && !has(&top, "matchRate"));
    }

    #[test]
    fn an_expert_reading_a_game_side_only_signal_has_a_player_expert_without_it() {
        // The synthetic sides with zPositionLoss as well (engines lower, as zMm is
        // higher): the rated top-engine expert reads it, and its player expert reads the
        // rest; the unrated one never had it (a rated signal), so it has none.
        let mut rows = synthetic(1500, 11, false);
        let (zmm, zpl) = (
            SIGNALS.iter().position(|s| *s == "zMm").unwrap(),
            SIGNALS.iter().position(|s| *s == "zPositionLoss").unwrap(),
        );
        for r in &mut rows {
            r.signals.values[zpl] = r.signals.values[zmm].map(|z| -z);
        }
        let (variants, _, card) =
            fit_variants(&rows, 5, 30, 3, MIN_EXPERT_AUC, false, &[], false).unwrap();
        let top = |rated: bool| {
            variants
                .iter()
                .find(|v| v.rated == rated && !v.clocks)
                .unwrap_or_else(|| panic!("a variant: {card}"))
                .experts
                .iter()
                .find(|e| e.kind == "top engines")
                .expect("a top-engine expert")
                .clone()
        };
        let rated = top(true);
        assert!(rated.features.iter().any(|f| f == "zPositionLoss"));
        let player = rated.player.as_ref().expect("a player expert");
        let mut without = rated.features.clone();
        without.retain(|f| f != "zPositionLoss");
        assert_eq!(player.features, without);
        assert_eq!(player.kind, rated.kind);
        assert!(player.player.is_none());
        assert!(top(false).player.is_none());
    }

    /// A model of fitted variants and ranges, with no references.
    fn synthetic_model(
        variants: Vec<AssessmentVariant>,
        ranges: Vec<HumanRange>,
    ) -> AssessmentModel {
        AssessmentModel {
            name: "synthetic".into(),
            source: String::new(),
            engine: Default::default(),
            settings: Default::default(),
            variants,
            ranges,
            late_reference: None,
            side_look_closer_rate: None,
        }
    }

    #[test]
    fn a_rated_variant_without_regans_z_scores_reads_the_rated_signals_there_are() {
        // The quick screen's corpus: ratings, but no calibration at its settings, so no
        // Regan z-scores; the signals against the model's own rating lines are there
        // (zLateLoss here, carrying what zMm carries in the other tests).
        let mut rows = synthetic(1500, 11, false);
        let at = |name: &str| SIGNALS.iter().position(|s| *s == name).unwrap();
        for r in &mut rows {
            let z = r.signals.values[at("zMm")].take();
            r.signals.values[at("zLateLoss")] = z.map(|z| -z);
        }
        let (variants, _, card) =
            fit_variants(&rows, 5, 30, 3, MIN_EXPERT_AUC, false, &[], false).unwrap();
        let rated = variants
            .iter()
            .find(|v| v.rated && !v.clocks)
            .unwrap_or_else(|| panic!("a rated variant: {card}"));
        assert!(
            rated.features.contains(&"zLateLoss".to_owned()),
            "{:?}",
            rated.features
        );
        for name in REGAN_SIGNALS {
            assert!(
                !rated.features.iter().any(|f| f == name),
                "{name}: {:?}",
                rated.features
            );
            for e in &rated.experts {
                assert!(
                    !e.features.iter().any(|f| f == name),
                    "{name}: {:?}",
                    e.features
                );
            }
        }
        assert!(rated.fill.iter().all(|f| f.is_finite()));
        // The model reads it for a rated side without z-scores.
        let model = synthetic_model(variants, Vec::new());
        let side = rows.iter().find(|r| r.signals.rating.is_some()).unwrap();
        assert_eq!(
            model.assess(&side.signals).unwrap().basis,
            "rated, no clocks"
        );
    }

    #[test]
    fn fitted_variants_separate_synthetic_engines_and_keep_false_positives_low() {
        let rows = synthetic(1500, 11, false);
        let (variants, ranges, card) =
            fit_variants(&rows, 5, 30, 3, MIN_EXPERT_AUC, false, &[], false).unwrap();
        assert!(card.contains("unrated, no clocks"), "{card}");
        let unrated = variants.iter().find(|v| !v.rated && !v.clocks).unwrap();
        let rated = variants.iter().find(|v| v.rated && !v.clocks).unwrap();
        assert!(rated.features.contains(&"zMm".to_owned()));
        assert!(!unrated.features.contains(&"zMm".to_owned()));
        let model = synthetic_model(variants, ranges.clone());
        let test: Vec<&Row> = rows.iter().filter(|r| r.split == Split::Test).collect();
        let scored: Vec<(f64, bool, Level)> = test
            .iter()
            .map(|r| {
                let a = model.assess(&r.signals).unwrap();
                (a.probability, r.engine(), a.level)
            })
            .collect();
        let (s, l): (Vec<f64>, Vec<bool>) = scored.iter().map(|x| (x.0, x.1)).unzip();
        // Two signals each about 1.9 SD apart: the combined AUC is about 0.95.
        let a = auc(&s, &l);
        assert!(a > 0.9, "test AUC {a}");
        let humans: Vec<&(f64, bool, Level)> = scored.iter().filter(|x| !x.1).collect();
        let false_pos = humans.iter().filter(|x| x.2 == Level::LookCloser).count();
        assert!(
            false_pos as f64 <= 0.03 * humans.len() as f64,
            "{false_pos} of {} clean sides flagged",
            humans.len()
        );
        let engines_flagged = scored
            .iter()
            .filter(|x| x.1 && x.2 == Level::LookCloser)
            .count();
        assert!(engines_flagged > 0, "look closer never fires");
        // Calibrated: the mean probability of the test sides is near the engine share (1/3).
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        assert!((mean - 1.0 / 3.0).abs() < 0.08, "mean probability {mean}");
        // Ranges: the clean human match rate is centred on 0.45.
        let m = ranges
            .iter()
            .find(|h| h.signal == "matchRate" && h.hi == 0)
            .unwrap();
        assert!(
            (m.median - 0.45).abs() < 0.02 && m.p5 < 0.35 && m.p95 > 0.55,
            "{m:?}"
        );
    }

    #[test]
    fn the_leakage_check_finds_a_signal_that_tells_the_length() {
        let clean = synthetic(1500, 5, false);
        let (a, _) = leakage(&clean, 5, 1).unwrap();
        assert!((a - 0.5).abs() < 0.07, "no leak: {a}");
        // A leak: engine sides are all 45 moves long and a signal carries the length.
        let mut leaky = synthetic(1500, 5, true);
        for r in &mut leaky {
            let i = SIGNALS.iter().position(|s| *s == "stretch").unwrap();
            r.signals.values[i] = Some(r.signals.moves as f64);
        }
        let (b, bins) = leakage(&leaky, 5, 1).unwrap();
        assert!(b > 0.6, "the leak is found: {b}");
        assert!(
            b > bins - 0.05,
            "as good as knowing the bins: {b} vs {bins}"
        );
    }

    #[test]
    fn the_rated_kinds_are_put_back_whole_and_only_where_they_read_alike() {
        // A refit whose unrated kinds and `switchOddsAll` moved, and whose rated kind's
        // thresholds and Platt scaling moved with its fold draw: the shipped rated kind
        // comes back whole, every unrated kind stays the refit's, and so does its
        // `switchOddsAll`.
        let kept = AssessmentModel::builtin().unwrap().clone();
        let mut refit = kept.clone();
        for v in &mut refit.variants {
            v.look_closer = 0.5 * (v.look_closer + 1.0);
            v.platt.0 += 0.1;
        }
        let all = refit
            .late_reference
            .as_mut()
            .and_then(|r| r.switch_odds_all.as_mut())
            .unwrap();
        all.moves += 1;
        let before = refit.clone();
        let mut model = refit.clone();
        let n = keep_rated(&mut model, &kept).unwrap();
        assert_eq!(n, kept.variants.iter().filter(|v| v.rated).count());
        assert!(n >= 1);
        for ((v, k), b) in model
            .variants
            .iter()
            .zip(&kept.variants)
            .zip(&before.variants)
        {
            if v.rated {
                assert_eq!(v, k, "{}", v.basis());
            } else {
                assert_eq!(v, b, "{}", v.basis());
                assert_ne!(v.look_closer, k.look_closer);
            }
        }
        assert_eq!(model.late_reference, before.late_reference);
        // A reference the rated kinds read, moved: refused, the model untouched.
        let mut moved = refit.clone();
        moved.late_reference.as_mut().unwrap().loss.sd += 0.01;
        let was = moved.clone();
        let e = keep_rated(&mut moved, &kept).unwrap_err().to_string();
        assert!(e.contains("later-half reference"), "{e}");
        assert_eq!(moved, was);
        // A kept rated expert that reads `switchOddsAll`: refused.
        let mut reads = kept.clone();
        let v = reads.variants.iter_mut().find(|v| v.rated).unwrap();
        v.experts[0].features.push("switchOddsAll".to_owned());
        let e = keep_rated(&mut refit.clone(), &reads)
            .unwrap_err()
            .to_string();
        assert!(e.contains("switchOddsAll"), "{e}");
        // Other rated kinds: refused.
        let mut other = kept.clone();
        other.variants.retain(|v| !v.rated);
        let e = keep_rated(&mut refit.clone(), &other)
            .unwrap_err()
            .to_string();
        assert!(e.contains("rated kinds"), "{e}");
    }

    #[test]
    fn each_expert_gets_a_scale_for_sides_with_clocks_in_the_model_and_every_reader() {
        // The rated kind of input's experts read clean sides with clocks at z uniform on
        // [c − 1, c + 1] around a centre c of their own (−1, 0.5, 2, ...): each gets that
        // centre back, and (95th percentile − median) ÷ 1.6449 = 0.9 / 1.6449 as its spread,
        // on its own scale in the model and in a reader whose scale differs; the unrated
        // kind, with 20 such sides, keeps one scale.
        let mut model = AssessmentModel::builtin().unwrap().clone();
        let mut reader = model.clone();
        for v in &mut reader.variants {
            for e in &mut v.experts {
                e.human = (e.human.0 + 1.0, e.human.1 * 2.0);
            }
        }
        let mut readers = vec![reader];
        let rated = model.variants.iter().find(|v| v.rated).unwrap();
        let centres: Vec<f64> = (0..rated.experts.len())
            .map(|j| -1.0 + 1.5 * j as f64)
            .collect();
        let mut zs = BTreeMap::new();
        zs.insert(
            rated.basis(),
            centres
                .iter()
                .map(|c| (0..=1000).map(|i| c - 1.0 + f64::from(i) / 500.0).collect())
                .collect::<Vec<Vec<f64>>>(),
        );
        zs.insert("unrated, no clocks".to_owned(), vec![vec![0.0; 20]; 3]);
        let before = model.clone();
        let lines = set_clocks_scale(&mut model, &mut readers, &zs, 200, 0.95, None);
        assert_eq!(lines.len(), centres.len() + 1, "{lines:?}");
        assert!(
            lines.iter().any(|l| l.starts_with(
                "unrated, no clocks: 20 unseen clean sides with clocks, fewer than 200"
            )),
            "{lines:?}"
        );
        for m in std::iter::once(&model).chain(&readers) {
            for (v, was) in m.variants.iter().zip(&before.variants) {
                for (j, e) in v.experts.iter().enumerate() {
                    let Some((centre, scale)) = e.human_clocks else {
                        assert!(!v.rated, "{}", v.basis());
                        continue;
                    };
                    assert!(v.rated);
                    // In the expert's own z: its centre, and the spread times its scale.
                    let (mean, sd) = e.human;
                    assert!(((centre - mean) / sd - centres[j]).abs() < 1e-9);
                    assert!((scale / sd - 0.9 / 1.644_854).abs() < 1e-6, "{scale} {sd}");
                    // Every side without clocks keeps its scale.
                    assert_eq!(
                        e.human,
                        if std::ptr::eq(m, &model) {
                            was.experts[j].human
                        } else {
                            (was.experts[j].human.0 + 1.0, was.experts[j].human.1 * 2.0)
                        }
                    );
                }
            }
        }
    }

    #[test]
    fn the_clocks_variant_reads_a_rated_side_with_clocks_on_the_clocks_scale_and_no_other() {
        // The rated kind's experts get a scale for sides with clocks (each its own centre:
        // z uniform around −1, 0.5, 2, ...), in the model and a reader; the twin then
        // reads a rated side with clocks as the rated kind read it on that scale (the
        // same probability, before its own scaling and thresholds are set), and the rated
        // kind reads it on the one scale it keeps, as it reads a side without clocks.
        let mut model = AssessmentModel::builtin().unwrap().clone();
        model.variants.retain(|v| !(v.rated && v.clocks));
        let mut readers = vec![model.clone()];
        let rated = model.variants.iter().find(|v| v.rated).unwrap().clone();
        let mut zs = BTreeMap::new();
        zs.insert(
            rated.basis(),
            (0..rated.experts.len())
                .map(|j| {
                    (0..=1000)
                        .map(|i| -2.0 + 1.5 * j as f64 + f64::from(i) / 500.0)
                        .collect()
                })
                .collect::<Vec<Vec<f64>>>(),
        );
        set_clocks_scale(&mut model, &mut readers, &zs, 200, 0.99, None);
        let mut values = [None; SIGNALS.len()];
        for (f, fill) in rated.features.iter().zip(&rated.fill) {
            values[SIGNALS.iter().position(|s| s == f).unwrap()] = Some(*fill + 0.3);
        }
        let side = Signals {
            values,
            moves: 30,
            rating: Some(2000.0),
            clocks: true,
            ..Signals::none()
        };
        let read = |m: &AssessmentModel, s: &Signals| {
            let v = m.reading(s).unwrap();
            (v.basis(), v.probability(&v.input(s)))
        };
        let (basis, before) = read(&model, &side);
        assert_eq!(basis, "rated, no clocks");
        let lines = clocks_variant(&mut model, &mut readers);
        assert_eq!(lines.len(), 1, "{lines:?}");
        for m in std::iter::once(&model).chain(&readers) {
            let twin = m
                .variants
                .iter()
                .find(|v| v.rated && v.clocks)
                .expect("the twin");
            let was = m.variants.iter().find(|v| v.rated && !v.clocks).unwrap();
            assert!(twin.experts.iter().all(|e| e.human_clocks.is_none()));
            assert!(was.experts.iter().all(|e| e.human_clocks.is_none()));
            assert!(
                twin.experts
                    .iter()
                    .zip(&was.experts)
                    .all(|(t, w)| t.human != w.human)
            );
        }
        let (basis, after) = read(&model, &side);
        assert_eq!(basis, "rated, clocks");
        assert!((after - before).abs() < 1e-12, "{after} {before}");
        let no_clocks = Signals {
            clocks: false,
            ..side.clone()
        };
        let (basis, plain) = read(&model, &no_clocks);
        assert_eq!(basis, "rated, no clocks");
        assert!((plain - after).abs() > 1e-6, "{plain} {after}");
        // Twice: the twin is there already and is kept.
        set_clocks_scale(&mut model, &mut readers, &zs, 200, 0.99, None);
        let lines = clocks_variant(&mut model, &mut readers);
        assert!(
            lines[0].ends_with("the model has it already: kept"),
            "{lines:?}"
        );
        assert_eq!(
            model
                .variants
                .iter()
                .filter(|v| v.rated && v.clocks)
                .count(),
            1
        );
    }

    #[test]
    fn only_the_experts_asked_for_get_a_scale_for_sides_with_clocks() {
        // `--clocks-experts weaker`: the rated kind's weaker-engine expert gets the scale
        // its z on clean sides with clocks give (centre 0.5, spread 0.9 ÷ 1.6449), in the
        // model and the reader; the top-engine and switched experts keep one scale, and
        // say so. The names are `--leave-out`'s, and a wrong one is refused.
        assert_eq!(expert_kind("weaker"), Ok(Kind::WeakEngine));
        assert!(
            expert_kind("weak")
                .unwrap_err()
                .contains("top, weaker, switched")
        );
        // From a model with one scale for every side (the shipped one has some already).
        let mut model = AssessmentModel::builtin().unwrap().clone();
        for v in &mut model.variants {
            for e in &mut v.experts {
                e.human_clocks = None;
            }
        }
        let mut readers = vec![model.clone()];
        let rated = model.variants.iter().find(|v| v.rated).unwrap();
        let basis = rated.basis();
        let n = rated.experts.len();
        let mut zs = BTreeMap::new();
        zs.insert(
            basis.clone(),
            vec![
                (0..=1000)
                    .map(|i| -0.5 + f64::from(i) / 500.0)
                    .collect::<Vec<f64>>();
                n
            ],
        );
        let lines = set_clocks_scale(
            &mut model,
            &mut readers,
            &zs,
            200,
            0.95,
            Some(&[Kind::WeakEngine]),
        );
        assert_eq!(lines.len(), n, "{lines:?}");
        let mut scaled = 0;
        for m in std::iter::once(&model).chain(&readers) {
            let v = m.variants.iter().find(|v| v.basis() == basis).unwrap();
            for e in &v.experts {
                if e.kind == "weaker engines" {
                    let (centre, scale) = e.human_clocks.expect("the weaker expert's scale");
                    let (mean, sd) = e.human;
                    assert!(((centre - mean) / sd - 0.5).abs() < 1e-9, "{centre}");
                    assert!((scale / sd - 0.9 / 1.644_854).abs() < 1e-6, "{scale}");
                    scaled += 1;
                } else {
                    assert_eq!(e.human_clocks, None, "{}", e.kind);
                    assert!(
                        lines.contains(&format!(
                            "{basis}: the {} expert keeps one scale for every side",
                            e.kind
                        )),
                        "{lines:?}"
                    );
                }
            }
        }
        assert_eq!(scaled, 2, "the weaker expert, in the model and the reader");
    }

    #[test]
    fn the_clocks_scale_reads_its_spread_at_the_tail_percentile_asked_for() {
        // z uniform on [−1, 1]: the 99th percentile is 0.98, so the spread is 0.98 ÷
        // 2.3263 (not 0.9 ÷ 1.645 as at the 95th); the normal's quantiles are right to 1e-4.
        assert!((normal_quantile(0.95) - 1.644_854).abs() < 1e-4);
        assert!((normal_quantile(0.99) - 2.326_348).abs() < 1e-4);
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-4);
        assert!(tail_percentile("0.99").is_ok());
        for bad in ["0.5", "1", "1.2", "x"] {
            assert!(tail_percentile(bad).is_err(), "{bad}");
        }
        let mut model = AssessmentModel::builtin().unwrap().clone();
        let rated = model.variants.iter().find(|v| v.rated).unwrap();
        let n = rated.experts.len();
        let mut zs = BTreeMap::new();
        zs.insert(
            rated.basis(),
            vec![
                (0..=1000)
                    .map(|i| -1.0 + f64::from(i) / 500.0)
                    .collect::<Vec<f64>>();
                n
            ],
        );
        let lines = set_clocks_scale(&mut model, &mut [], &zs, 200, 0.99, None);
        assert!(
            lines
                .iter()
                .all(|l| l.ends_with("(from the 99.0th percentile)")),
            "{lines:?}"
        );
        let rated = model.variants.iter().find(|v| v.rated).unwrap();
        for e in &rated.experts {
            let (_, scale) = e.human_clocks.expect("a scale for sides with clocks");
            assert!(
                (scale / e.human.1 - 0.98 / 2.326_348).abs() < 1e-3,
                "{scale}"
            );
        }
    }

    #[test]
    fn the_scaling_is_fitted_again_on_the_unseen_sides_in_the_model_and_every_reader() {
        // Raw scores whose true odds follow sigmoid(2·logit + 1): a side's label is drawn
        // (a fixed stride through [0, 1)) from that probability. The rated kind of input
        // gets that scaling back; the unrated one, with 40 engine-assisted sides, keeps
        // its own; the readers' rated variants take the same scaling as the model's.
        let mut model = AssessmentModel::builtin().unwrap().clone();
        let mut readers = vec![model.clone(), model.clone()];
        let (mut scores, mut labels) = (Vec::new(), Vec::new());
        for i in 0..4000 {
            let raw = 0.02 + 0.96 * f64::from(i % 97) / 96.0;
            let p = 1.0 / (1.0 + (-(2.0 * logit(raw) + 1.0)).exp());
            let u = (f64::from(i) * 0.618_033_988_7).fract();
            scores.push(raw);
            labels.push(u < p);
        }
        let mut cal = BTreeMap::new();
        cal.insert("rated, no clocks".to_owned(), (scores, labels));
        let few: Vec<bool> = (0..400).map(|i| i < 40).collect();
        cal.insert("unrated, no clocks".to_owned(), (vec![0.5; 400], few));
        let before = model.clone();
        let lines = refit_scaling(&mut model, &mut readers, &cal);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("rated, no clocks: scaling fitted again on "),
            "{}",
            lines[0]
        );
        for (v, was) in model.variants.iter().zip(&before.variants) {
            if v.basis() == "rated, no clocks" {
                let (a, b) = v.platt;
                assert!((a - 2.0).abs() < 0.2 && (b - 1.0).abs() < 0.2, "{a} {b}");
                for m in &readers {
                    let w = m.variants.iter().find(|w| w.basis() == v.basis()).unwrap();
                    assert_eq!(w.platt, v.platt);
                }
            } else {
                assert_eq!(v.platt, was.platt, "{}", v.basis());
            }
        }
    }

    #[test]
    fn a_players_scaling_is_fitted_on_the_pseudo_players_it_reads() {
        // The shipped model with a player reading for rated input without clocks (its own
        // experts as player experts), on the depth study's default-setting folder (20
        // engine and 20 clean human games, rated), in pseudo-players of two games.
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/depth/d14");
        let records = load_records(&corpus, &[], None, None).unwrap();
        let mut model = AssessmentModel::builtin().unwrap().clone();
        for v in &mut model.variants {
            v.platt_player = None;
            v.platt_player_games = None;
            v.unclear_player = None;
            for e in &mut v.experts {
                e.player = None;
            }
        }
        let rated = |m: &AssessmentModel| {
            m.variants
                .iter()
                .position(|v| v.rated && !v.clocks)
                .unwrap()
        };
        let r = rated(&model);
        for e in &mut model.variants[r].experts {
            e.player = Some(Box::new(e.clone()));
        }
        let card = set_player_calibration(
            &[(&records, &model.clone())],
            None,
            &mut model,
            &[2],
            5,
            |_| true,
        )
        .unwrap();
        assert!(
            card.contains("players, rated, no clocks: the player reading scaled as sigmoid("),
            "{card}"
        );
        // Only the kind of input with a player reading gets a scaling.
        for (i, v) in model.variants.iter().enumerate() {
            assert_eq!(v.platt_player.is_some(), i == r, "{}", v.basis());
        }
        // A Platt scaling with an intercept, fitted on these pseudo-players, puts the sum
        // of their probabilities at the sum of its (smoothed) targets: read again with
        // it, they must add up to that. The targets of a kind's players.
        let adds_up = |players: &[PseudoPlayer], basis: &str| -> f64 {
            let read: Vec<&PseudoPlayer> = players
                .iter()
                .filter(|p| p.basis == basis && !p.probability.is_nan())
                .collect();
            let pos = read.iter().filter(|p| p.kind != Kind::Human).count() as f64;
            let neg = read.len() as f64 - pos;
            assert!(pos >= 5.0 && neg >= 5.0, "{basis}: {pos} / {neg}");
            let sum: f64 = read.iter().map(|p| p.probability).sum();
            let targets = pos * (pos + 1.0) / (pos + 2.0) + neg / (neg + 2.0);
            assert!(
                (sum - targets).abs() < 1e-3,
                "{basis}: {sum} against {targets}"
            );
            targets
        };
        let players = pseudo_players(&records, &model, 2, 1, None).unwrap();
        let targets = adds_up(&players, "rated, no clocks");
        // Unscaled (the side's scaling), they do not.
        let mut side = model.clone();
        side.variants[r].platt_player = None;
        let unscaled: f64 = pseudo_players(&records, &side, 2, 1, None)
            .unwrap()
            .iter()
            .filter(|p| p.basis == "rated, no clocks" && !p.probability.is_nan())
            .map(|p| p.probability)
            .sum();
        assert!(
            (unscaled - targets).abs() > 0.05,
            "{unscaled} against {targets}"
        );

        // An unrated kind with a player reading, on the same all-rated folder: it has no
        // pseudo-player of its own, so its scaling is fitted on the rated ones read with
        // their rating withheld (before, it took the rated kind's), and only the kinds
        // picked are fitted.
        let mut unrated = model.clone();
        unrated.variants[r].platt_player = None;
        let u = unrated
            .variants
            .iter()
            .position(|v| !v.rated && !v.clocks)
            .unwrap();
        for e in &mut unrated.variants[u].experts {
            e.player = Some(Box::new(e.clone()));
        }
        let card = set_player_calibration(
            &[(&records, &unrated.clone())],
            None,
            &mut unrated,
            &[2],
            5,
            |v| !v.rated,
        )
        .unwrap();
        assert!(
            card.contains("players, unrated, no clocks: the player reading scaled as sigmoid(")
                && card.contains("fitted on its own pseudo-players of 2 games"),
            "{card}"
        );
        for (i, v) in unrated.variants.iter().enumerate() {
            assert_eq!(v.platt_player.is_some(), i == u, "{}", v.basis());
        }
        let (_, withheld) = pseudo_players_read(&records, &unrated, 2, 1, None, true).unwrap();
        adds_up(&withheld, "unrated, no clocks");
        // One size fitted: no games term.
        assert!(
            unrated
                .variants
                .iter()
                .all(|v| v.platt_player_games.is_none())
        );

        // Pseudo-players of 2 and 4 games at once: the scaling gets a games term. Its
        // intercept and games term put the sum of the probabilities of the players of
        // each size at the sum of their targets (the two score equations, Σ(p − t) = 0
        // and Σ g·(p − t) = 0, with g taking two values), the targets smoothed by the
        // counts of both sizes together: read again with it, each size must add up.
        let mut games = model.clone();
        games.variants[r].platt_player = None;
        let card = set_player_calibration(
            &[(&records, &games.clone())],
            None,
            &mut games,
            &[2, 4],
            5,
            |_| true,
        )
        .unwrap();
        assert!(
            card.contains("g = ln(games / 5)") && card.contains("pseudo-players of 2, 4 games"),
            "{card}"
        );
        let (c, d) = games.variants[r].platt_player_games.expect("a games term");
        assert!(c != 0.0 && d != 0.0, "{c} {d}");
        let read: Vec<Vec<PseudoPlayer>> = [2, 4]
            .iter()
            .map(|&n| {
                pseudo_players(&records, &games, n, 1, None)
                    .unwrap()
                    .into_iter()
                    .filter(|p| p.basis == "rated, no clocks" && !p.probability.is_nan())
                    .collect()
            })
            .collect();
        let count = |k: bool| -> f64 {
            read.iter()
                .flatten()
                .filter(|p| (p.kind != Kind::Human) == k)
                .count() as f64
        };
        let (pos, neg) = (count(true), count(false));
        let (tp, tn) = ((pos + 1.0) / (pos + 2.0), 1.0 / (neg + 2.0));
        for players in &read {
            let sum: f64 = players.iter().map(|p| p.probability).sum();
            let targets: f64 = players
                .iter()
                .map(|p| if p.kind != Kind::Human { tp } else { tn })
                .sum();
            assert!(
                (sum - targets).abs() < 1e-3,
                "{} games: {sum} against {targets}",
                players[0].games
            );
        }
    }

    #[test]
    fn a_games_term_is_recovered_from_players_whose_odds_move_with_their_games() {
        // Players whose true odds are sigmoid((1.5 + 0.5 g)·L − 1 + 0.8 g), g = ln(n / 5),
        // in exact shares (10,000 per cell, so sampling noise is nil): the fit must give
        // those four numbers back (the smoothing of the targets moves them a little).
        let (a, b, c, d) = (1.5, -1.0, 0.5, 0.8);
        let mut scores = Vec::new();
        let mut labels = Vec::new();
        for n in [2usize, 3, 5, 10, 20] {
            let g = games_term(n);
            for l in [-3.0, -1.5, 0.0, 1.0, 2.5] {
                let p = 1.0 / (1.0 + f64::exp(-((a + c * g) * l + b + d * g)));
                let pos = (p * 10_000.0).round() as usize;
                for k in 0..10_000 {
                    scores.push((1.0 / (1.0 + f64::exp(-l)), g));
                    labels.push(k < pos);
                }
            }
        }
        let ((fa, fb), (fc, fd)) = platt_games(&scores, &labels);
        for (got, want) in [(fa, a), (fb, b), (fc, c), (fd, d)] {
            assert!((got - want).abs() < 0.02, "{got} against {want}");
        }
        // Without a games term the same players get one compromise scaling, off at the
        // ends: its slope is none of the slopes at 2 and 20 games.
        let p: Vec<f64> = scores.iter().map(|s| s.0).collect();
        let (one_a, _) = platt(&p, &labels);
        assert!((one_a - (a + c * games_term(2))).abs() > 0.2);
        assert!((one_a - (a + c * games_term(20))).abs() > 0.2);
    }

    #[test]
    fn a_linear_system_of_four_is_solved_and_a_singular_one_refused() {
        let h = [
            [4.0, 1.0, 0.0, 2.0],
            [1.0, 3.0, 1.0, 0.0],
            [0.0, 1.0, 5.0, 1.0],
            [2.0, 0.0, 1.0, 6.0],
        ];
        let x = [1.0, -2.0, 0.5, 3.0];
        let g: [f64; 4] = std::array::from_fn(|i| (0..4).map(|j| h[i][j] * x[j]).sum());
        let got = solve4(h, g).unwrap();
        for (u, v) in got.iter().zip(x) {
            assert!((u - v).abs() < 1e-12, "{got:?}");
        }
        let mut singular = h;
        singular[3] = singular[0];
        assert!(solve4(singular, g).is_none());
    }

    #[test]
    fn pseudo_players_never_hold_two_sides_of_one_game_or_one_player() {
        // Ratings in order; games 0, 1, 2 have both sides next to each other.
        let sides: Vec<(Kind, Option<f64>, usize, &'static str)> = [
            (1000.0, 0, "White"),
            (1001.0, 0, "Black"),
            (1002.0, 1, "White"),
            (1003.0, 1, "Black"),
            (1004.0, 2, "Black"),
            (1005.0, 2, "White"),
            (1006.0, 3, "White"),
        ]
        .iter()
        .map(|&(e, i, s)| (Kind::Human, Some(e), i, s))
        .collect();
        let refs: Vec<_> = sides.iter().collect();
        let groups = groups_of_distinct_games(&refs, 3, |_| None);
        type Side = (Kind, Option<f64>, usize, &'static str);
        let ids = |g: &Vec<&Side>| -> Vec<(usize, &'static str)> {
            g.iter().map(|s| (s.2, s.3)).collect()
        };
        // The second side of game 0 waits for the next group, and so on; both colours in
        // each; the seventh side alone makes no group.
        assert_eq!(groups.len(), 2);
        assert_eq!(ids(&groups[0]), [(0, "White"), (1, "White"), (2, "Black")]);
        assert_eq!(ids(&groups[1]), [(0, "Black"), (1, "Black"), (2, "White")]);
        // Nor two sides of one player: White of game 0 and Black of game 2 are one
        // player, so game 2's Black waits and its White comes in.
        let player = |s: &Side| {
            Some(match (s.2, s.3) {
                (0, "White") | (2, "Black") => "ann".to_owned(),
                (i, side) => format!("{i} {side}"),
            })
        };
        let groups = groups_of_distinct_games(&refs, 3, player);
        assert_eq!(groups.len(), 2);
        assert_eq!(ids(&groups[0]), [(0, "White"), (1, "White"), (2, "White")]);
        assert_eq!(ids(&groups[1]), [(0, "Black"), (1, "Black"), (2, "Black")]);
    }

    #[test]
    fn a_pseudo_player_holds_online_or_over_the_board_games_never_both() {
        // The depth study's 20 clean human games (rated, from lichess and TWIC), every
        // other one moved to the other scale by its Site tag: their ratings interleave,
        // so a grouping by rating alone would mix the two in most pseudo-players.
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/depth/d14");
        let mut records = load_records(&corpus, &[], None, None).unwrap();
        let mut moved = 0;
        for (k, r) in records
            .iter_mut()
            .filter(|r| r.label == Label::Human)
            .enumerate()
        {
            if k % 2 == 1 {
                let was = online(r);
                let site = format!("[Site \"{}\"]", r.tag("Site").unwrap());
                let to = if was {
                    "[Site \"Wijk aan Zee NED\"]".to_owned()
                } else {
                    format!("[Site \"https://lichess.org/game{}\"]", r.game)
                };
                r.pgn = r.pgn.replacen(&site, &to, 1);
                assert_ne!(online(r), was, "{}", r.id);
                moved += 1;
            }
        }
        assert!(moved >= 5, "{moved}");
        let model = AssessmentModel::builtin().unwrap();
        let players = pseudo_players(&records, model, 2, 1, None).unwrap();
        let mut pools = [0, 0];
        for p in players.iter().filter(|p| p.kind == Kind::Human) {
            let on: Vec<bool> = p
                .members
                .iter()
                .map(|m| {
                    let id = m.split(' ').next().unwrap();
                    online(records.iter().find(|r| r.id == id).unwrap())
                })
                .collect();
            assert!(on.iter().all(|o| *o == on[0]), "{:?}", p.members);
            pools[usize::from(on[0])] += 1;
        }
        // Both scales make players of their own.
        assert!(pools[0] >= 2 && pools[1] >= 2, "{pools:?}");
    }

    /// The first `n` games of the depth study's stored d14 corpus, rebuilt.
    fn stored_d14_games(n: usize) -> fairsight::Report {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/depth/d14");
        let records = load_records(&corpus, &[], None, None).unwrap();
        rebuild_games(&records[..n]).unwrap()
    }

    #[test]
    fn a_sides_late_cells_hold_the_moves_of_its_later_half_by_kind_of_move() {
        use fairsight::{
            Side,
            fit::{LateOdds, side_late_cells},
        };
        let report = stored_d14_games(4);
        let mut total = 0;
        for game in &report.games {
            for side in [Side::White, Side::Black] {
                let cells = side_late_cells(game, side);
                let signals = side_signals(game, side, Some(2000.0), None).unwrap();
                assert_eq!(signals.late_cells, cells);
                // As many as the later-half signals read, and the same moves by hand:
                // searched, counted or decided, the later half of them.
                let n: u32 = cells.iter().sum();
                assert_eq!(n as usize, signals.late_moves);
                let moves: Vec<_> = game
                    .plies
                    .iter()
                    .filter(|p| p.side == side && p.searched)
                    .filter(|p| matches!(p.excluded, None | Some(fairsight::Exclusion::Decided)))
                    .filter(|p| p.features.win_loss.is_some())
                    .collect();
                let by_hand = LateOdds::cells_of(moves[moves.len() / 2..].iter().map(|p| {
                    let f = &p.features;
                    (
                        f.win_loss.unwrap(),
                        f.rank,
                        f.seen_at.is_some(),
                        LateOdds::kind(f.only_move, f.best_changes),
                    )
                }));
                assert_eq!(cells, by_hand);
                // Every one of them in order, for `switchOdds`; the later half of them is
                // `late_cells`.
                let in_order: Vec<u8> = moves
                    .iter()
                    .map(|p| {
                        let f = &p.features;
                        LateOdds::cell(
                            f.win_loss.unwrap(),
                            f.rank,
                            f.seen_at.is_some(),
                            LateOdds::kind(f.only_move, f.best_changes),
                        ) as u8
                    })
                    .collect();
                assert_eq!(signals.move_cells, in_order);
                assert_eq!(
                    LateOdds::counts(in_order[in_order.len() / 2..].iter().copied()),
                    cells
                );
                total += n;
            }
        }
        assert!(total > 50, "{total} later-half moves in 4 stored games");
    }

    #[test]
    fn the_switch_odds_are_fitted_on_every_clean_move_against_the_switched_moves_from_the_switch() {
        use fairsight::fit::LateOdds;
        let best = LateOdds::cell(0.0, Some(1), true, 0) as u8;
        let blunder = LateOdds::cell(30.0, None, false, 0) as u8;
        let row = |i: usize, kind: Kind, split: Split, cells: Vec<u8>, engine: Option<usize>| {
            let mut values = [None; SIGNALS.len()];
            values[SIGNALS.iter().position(|s| *s == "lateLoss").unwrap()] =
                Some(3.0 + (i % 4) as f64);
            values[SIGNALS.iter().position(|s| *s == "lateMatch").unwrap()] =
                Some(0.4 + 0.05 * (i % 3) as f64);
            Row {
                game: format!("g{i}"),
                player: format!("p{i}"),
                kind,
                side: Side::White,
                split,
                own_tag: None,
                engine_moves: engine,
                signals: Signals {
                    values,
                    moves: cells.len(),
                    rating: Some(1400.0 + (i % 5) as f64 * 100.0),
                    late_cells: LateOdds::counts(cells[cells.len() / 2..].iter().copied()),
                    move_cells: cells,
                    ..Signals::none()
                },
                elo: None,
            }
        };
        // Clean humans: a best move, then a blunder, 20 moves each. Switched sides: ten
        // blunders of their own, then the engine's twelve best moves. The test split's
        // rows are not read.
        let mut rows: Vec<Row> = (0..100)
            .map(|i| {
                row(
                    i,
                    Kind::Human,
                    Split::Train,
                    [best, blunder].repeat(10),
                    None,
                )
            })
            .collect();
        let switched = |i, split| {
            let mut cells = vec![blunder; 10];
            cells.extend([best; 12]);
            row(i, Kind::Switched, split, cells, Some(12))
        };
        rows.extend((100..200).map(|i| switched(i, Split::Train)));
        rows.extend((200..300).map(|i| switched(i, Split::Test)));
        let r = fit_late_reference(&rows).expect("a reference");
        let odds = r.switch_odds.clone().expect("switchOdds");
        assert_eq!((odds.moves, odds.engine_moves), (2000, 1200));
        // The engine's table holds only its own moves: its blunders have the smoothing's
        // one move, and the switched sides' own blunders are not there.
        // (shares within the kind of position: every move here is of the first)
        let share = |c: u8| odds.engine[c as usize].exp();
        let n = LateOdds::KIND_CELLS as f64;
        assert!((share(blunder) - 1.0 / (1200.0 + n)).abs() < 1e-4);
        assert!((share(best) - 1201.0 / (1200.0 + n)).abs() < 1e-4);
        // The humans' table: every move of theirs, half of them blunders.
        let human = |c: u8| odds.human[LateOdds::band(1600.0)][c as usize].exp();
        assert!((human(blunder) - human(best)).abs() < 1e-3 && human(best) > 0.45);
        // `switchOddsAll`'s: the same moves, every human in one band.
        let all = r.switch_odds_all.as_ref().expect("switchOddsAll");
        assert_eq!(
            (all.moves, all.engine_moves, all.human.len()),
            (2000, 1200, 1)
        );
        assert_eq!(all.engine, odds.engine);
        // `lateOdds`' table, beside it, holds the later halves.
        assert_eq!(r.late_odds.expect("lateOdds").engine_moves, 1100);
        // A switched side read with it: the run from its switch is the most engine-like.
        let mut cells = vec![blunder; 10];
        cells.extend([best; 12]);
        let read = odds.switch(&cells, 1500.0).unwrap();
        let per_move =
            odds.engine[best as usize] - odds.human[LateOdds::band(1500.0)][best as usize];
        assert!((read - 12.0 * per_move / 12f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn a_switched_sides_engine_moves_are_its_searched_moves_from_the_switch_on() {
        use fairsight::Side;
        let mut game = stored_d14_games(1).games.remove(0);
        // No tag: not a switched game.
        assert_eq!(engine_moves(&game, Side::White), None);
        let searched = |side: Side, from: u32| {
            game.plies
                .iter()
                .filter(|p| p.side == side && p.searched && p.ply >= from)
                .filter(|p| matches!(p.excluded, None | Some(fairsight::Exclusion::Decided)))
                .filter(|p| p.features.win_loss.is_some())
                .count()
        };
        let first = game.plies.iter().find(|p| p.searched).unwrap().ply;
        let last = game.plies.last().unwrap().ply;
        assert!(searched(Side::White, first) > 4 && searched(Side::Black, first) > 4);
        // A switch before the first searched move: all of the side's read moves; one
        // part-way: only those from it on (fewer, none lost at the boundary); one after
        // the last ply: none.
        for (switch, side) in [
            (1, Side::White),
            (first + 8, Side::Black),
            (last + 1, Side::White),
        ] {
            game.tags.retain(|(k, _)| k != "SwitchPly");
            game.tags.push(("SwitchPly".to_owned(), switch.to_string()));
            let expected = searched(side, switch);
            assert_eq!(
                engine_moves(&game, side),
                Some(expected),
                "switch at ply {switch}"
            );
        }
        assert_eq!(engine_moves(&game, Side::White), Some(0));
        game.tags.retain(|(k, _)| k != "SwitchPly");
        game.tags
            .push(("SwitchPly".to_owned(), (first + 8).to_string()));
        let part = engine_moves(&game, Side::Black).unwrap();
        assert!(part > 0 && part < searched(Side::Black, first));
        // At most the four moves before the switch are the player's own.
        assert!(searched(Side::Black, first) - part <= 4);
        // A tag that is not a number: none, no panic.
        game.tags.retain(|(k, _)| k != "SwitchPly");
        game.tags.push(("SwitchPly".to_owned(), "soon".to_owned()));
        assert_eq!(engine_moves(&game, Side::Black), None);
    }

    #[test]
    fn without_a_source_its_games_leave_the_evaluated_split_only() {
        let row = |game: &str, split: Split| Row {
            game: game.to_owned(),
            player: String::new(),
            kind: Kind::Switched,
            side: Side::White,
            split,
            signals: Signals::none(),
            elo: None,
            own_tag: None,
            engine_moves: None,
        };
        let mut rows = vec![
            row("switched-twic/1", Split::Test),
            row("switched-twic-6/1", Split::Test),
            row("switched-twic/2", Split::Train),
            row("twic-920/5", Split::Test),
        ];
        without_sources(&mut rows, Split::Test, &["switched-twic".to_owned()]).unwrap();
        let left: Vec<&str> = rows.iter().map(|r| r.game.as_str()).collect();
        // Its test game gone, a source whose name it begins with kept, its train game kept.
        assert_eq!(left, ["switched-twic-6/1", "switched-twic/2", "twic-920/5"]);
        // A source with no game in the split is an error that names it.
        let e = without_sources(&mut rows, Split::Test, &["switched-twc".to_owned()]).unwrap_err();
        assert!(e.to_string().contains("switched-twc"), "{e}");
        assert_eq!(rows.len(), 3);
    }

    #[test]
    fn a_sides_position_loss_holds_its_counted_moves_by_kind_of_position() {
        use fairsight::{
            Side,
            fit::{PositionLoss, side_position_loss},
        };
        let report = stored_d14_games(4);
        let mut total = 0;
        for game in &report.games {
            for side in [Side::White, Side::Black] {
                let counted: Vec<_> = game
                    .plies
                    .iter()
                    .filter(|p| p.side == side && p.searched && p.excluded.is_none())
                    .filter(|p| p.features.win_loss.is_some() && p.features.eval.is_some())
                    .collect();
                let cells = side_position_loss(game, side);
                assert_eq!(cells.moves(), counted.len());
                // The same moves put in their cells by hand.
                let by_hand = PositionLoss::of_moves(counted.iter().map(|p| {
                    let f = &p.features;
                    let eval = f.eval.unwrap().to_cp(1500).clamp(-1500, 1500);
                    let cell = PositionLoss::cell(
                        f.gaps.first().copied(),
                        eval,
                        f.best_changes,
                        f.alternatives.unwrap_or(0),
                    );
                    (cell, f.win_loss.unwrap())
                }));
                assert_eq!(cells, by_hand);
                total += cells.moves();
            }
        }
        assert!(total > 100, "{total} counted moves in 4 stored games");
    }

    #[test]
    fn a_pooled_report_reads_as_the_renamed_games_rebuilt_would() {
        // Two overlapping pseudo-players of the depth study's stored games: one of three
        // human sides (both colours), one of an engine side scored against a rating that
        // is not its tag and a side the first one also holds.
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/depth/d14");
        let records = load_records(&corpus, &[], None, None).unwrap();
        let human: Vec<usize> = (0..records.len())
            .filter(|&i| records[i].label == Label::Human)
            .take(3)
            .collect();
        let engine = (0..records.len())
            .find(|&i| records[i].label == Label::Engine)
            .expect("an engine game in corpus/depth/d14");
        let (a, b) = ("pseudo-player 0".to_owned(), "pseudo-player 1".to_owned());
        let members = vec![
            (human[0], "White", a.clone(), None),
            (human[1], "Black", a.clone(), None),
            (human[2], "White", a.clone(), None),
            (engine, "Black", b.clone(), Some(1234.0)),
            (human[1], "Black", b.clone(), None),
        ];
        let pooled = pooled_report(&records, &members, None).unwrap();
        // What the members' games say when their PGN is renamed and rebuilt whole.
        let renamed: Vec<Record> = members
            .iter()
            .map(|(i, side, name, rating)| {
                let mut r = records[*i].clone();
                let needle = format!("[{side} \"");
                let elo_needle = format!("[{side}Elo \"");
                r.pgn = r
                    .pgn
                    .lines()
                    .map(|l| match rating {
                        _ if l.starts_with(&needle) => format!("[{side} \"{name}\"]"),
                        Some(e) if l.starts_with(&elo_needle) => format!("[{side}Elo \"{e}\"]"),
                        _ => l.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
                    + "\n";
                r
            })
            .collect();
        let direct = crate::cli::corpus::rebuild(&renamed).unwrap();
        assert_eq!(pooled.players.len(), 2, "only the pseudo-players");
        for name in [&a, &b] {
            let mut want = direct
                .players
                .iter()
                .find(|p| &p.name == name)
                .unwrap()
                .clone();
            let got = pooled.players.iter().find(|p| &p.name == name).unwrap();
            // Left out: the fits no signal reads, which the direct rebuild made.
            assert!(want.regan.is_some() && got.regan.is_none() && got.ipr.is_none());
            want.regan = None;
            (want.ipr, want.ipr_range, want.ipr_edge) = (None, None, None);
            assert_eq!(got, &want);
            assert!(got.assessment.is_some(), "{name}");
        }
        assert_eq!(pooled.games[3].tag("BlackElo"), Some("1234"));
        assert_eq!(pooled.games[3].sides.black.player, b);
        let strip = |g: &GameReport| {
            let mut g = g.clone();
            g.line = 0;
            g
        };
        assert_eq!(pooled.games.len(), direct.games.len());
        for (got, want) in pooled.games.iter().zip(&direct.games) {
            assert_eq!(strip(got), strip(want));
        }
    }

    #[test]
    fn wilson_intervals_cover_the_rate() {
        let (lo, hi) = wilson(1, 100);
        assert!(lo < 0.01 && hi > 0.01 && hi < 0.06, "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
    #[test]
    fn a_side_the_model_saw_is_read_by_the_first_fold_model_that_did_not() {
        let manifest = |train: &[&str]| -> Manifest {
            let games: serde_json::Map<String, serde_json::Value> = train
                .iter()
                .map(|g| {
                    let entry = serde_json::json!({"label": "human", "split": "train", "positions": 40, "bytes": 9000});
                    (g.to_string(), entry)
                })
                .collect();
            serde_json::from_value(serde_json::json!({
                "format": 1, "sources": {}, "totals": {}, "players": {}, "commands": [],
                "games": games,
            }))
            .unwrap()
        };
        let whole = manifest(&["a", "b", "c"]);
        let without_a = manifest(&["b", "c"]);
        let without_b = manifest(&["a", "c"]);
        let readers = [&whole, &without_a, &without_b];
        assert_eq!(first_unseen(&readers, Split::Train, "a"), Some(1));
        assert_eq!(first_unseen(&readers, Split::Train, "b"), Some(2));
        // Seen by every model: no out-of-sample reading.
        assert_eq!(first_unseen(&readers, Split::Train, "c"), None);
        // A train game stored after the fit, and the validation split: the model's own.
        assert_eq!(first_unseen(&readers, Split::Train, "d"), Some(0));
        assert_eq!(first_unseen(&readers, Split::Validation, "v"), Some(0));
        // The test split is never read for a threshold.
        assert_eq!(first_unseen(&readers, Split::Test, "t"), None);
        assert_eq!(first_unseen(&[&whole], Split::Train, "a"), None);
    }

    #[test]
    fn the_folds_leave_each_train_game_out_once_and_keep_a_player_in_one() {
        let row = |game: &str, player: &str| Row {
            game: game.to_owned(),
            player: player.to_owned(),
            kind: Kind::Human,
            side: Side::White,
            split: Split::Train,
            own_tag: None,
            engine_moves: None,
            signals: Signals::none(),
            elo: None,
        };
        // Ann plays games 0 and 1, Bo games 1 and 2: one group of three games; the other
        // games' players play once.
        let mut rows = vec![
            row("g0", "ann"),
            row("g1", "ann"),
            row("g1", "bo"),
            row("g2", "bo"),
        ];
        for i in 3..30 {
            rows.push(row(&format!("g{i}"), &format!("p{i}")));
            rows.push(row(&format!("g{i}"), &format!("q{i}")));
        }
        let train: Vec<&Row> = rows.iter().collect();
        let fold_of = game_folds(&train, 3, 1);
        assert_eq!(fold_of.len(), 30, "every train game has a fold");
        assert_eq!(fold_of["g0"], fold_of["g1"]);
        assert_eq!(fold_of["g1"], fold_of["g2"]);
        for f in 0..3 {
            let n = fold_of.values().filter(|&&g| g == f).count();
            assert!((9..=11).contains(&n), "fold {f}: {n} games");
        }
        // The same seed deals the same folds.
        assert_eq!(game_folds(&train, 3, 1), fold_of);
        // Stable folds: the linked games together, every fold used; a game added alone,
        // or joining a group, moves no other group's game, where dealt folds move some.
        let stable = stable_game_folds(&train, 3, 1);
        assert_eq!(stable.len(), 30);
        assert_eq!(stable["g0"], stable["g1"]);
        assert_eq!(stable["g1"], stable["g2"]);
        for f in 0..3 {
            assert!(stable.values().any(|&g| g == f), "fold {f} empty");
        }
        let mut grown = rows.clone();
        for i in 30..60 {
            grown.push(row(&format!("g{i}"), &format!("p{i}")));
        }
        grown.push(row("g60", "q5"));
        let train: Vec<&Row> = grown.iter().collect();
        let after = stable_game_folds(&train, 3, 1);
        for (game, fold) in &stable {
            assert_eq!(after[game], *fold, "{game} moved");
        }
        assert_eq!(after["g60"], after["g5"]);
        let dealt = game_folds(&train, 3, 1);
        assert!(
            fold_of.iter().any(|(game, fold)| dealt[game] != *fold),
            "dealt folds all stayed put: the test shows nothing"
        );
        // Another seed, other folds.
        assert_ne!(stable_game_folds(&train, 3, 2), after);
    }
}
