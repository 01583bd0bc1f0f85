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
//! The code: this file holds the commands' arguments and what every step shares (a
//! side's row of signals, the folds, the later-half reference); `experts` fits the
//! experts of each kind of input (`assess fit`), `thresholds` sets a model's thresholds
//! and scaling again on the sides it never saw (`assess thresholds`), `players` reads
//! pseudo-players and real players, `eval` evaluates a model on a split (`assess eval`),
//! `depth` compares the judge's settings (`assess depth`).
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
    super::corpus::{
        Label, Manifest, Record, Split, first_record_settings, fnv1a, for_manifest_records,
        load_records, rebuild_games,
    },
    train_fit::{Rng, Scaler, auc, forest_model, logistic_l2},
};

mod depth;
mod eval;
mod experts;
mod players;
mod thresholds;

use self::{eval::*, experts::*, players::*, thresholds::*};

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

#[derive(Args)]
pub struct RowsArgs {
    /// The corpus folder.
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// Where to write the CSV (`-`: standard output).
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// Fit the move-odds tables (`lateOdds`, `switchOdds`, `switchOddsAll`) again on this
    /// corpus's train split instead of reading the shipped model's (a study of what the
    /// tables were fitted on; every other part of the reference stays the shipped one).
    #[arg(long)]
    refit_odds: bool,
    /// With `--refit-odds`: leave this source's train games out of the tables (repeatable).
    #[arg(long, value_name = "SOURCE", requires = "refit_odds")]
    odds_without_source: Vec<String>,
    /// Read each train row's move odds (`lateOdds`, `switchOdds`, `switchOddsAll`) with
    /// tables fitted without its fold (5 folds of games linked by a player), so that no
    /// train side is read by a table fitted on its own moves (a study; the other splits'
    /// rows are read by the tables of the whole train split).
    #[arg(long)]
    oof_odds: bool,
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
    /// Experts that stay logistic regressions whatever cross-validation says of the
    /// forest (comma-separated kinds: `top`, `weaker`, `switched`; a study, e.g. of
    /// other makes' games added to the train split; the shipped fit has none).
    #[arg(long, value_delimiter = ',')]
    logistic: Vec<String>,
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
    /// Break this source's engine-assisted sides down by the side's name tag (an
    /// engine's name: makes or levels of engine) in the lines by source (repeatable).
    #[arg(long = "by-name", value_name = "SOURCE")]
    by_name: Vec<String>,
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
                let mut reference = r.clone();
                // The rows the move odds are fitted on (a study's only: cloned then).
                let mut fitted_on = (a.refit_odds || a.oof_odds).then(|| all.clone());
                if let Some(f) = fitted_on.as_mut().filter(|_| a.refit_odds) {
                    without_sources(f, Split::Train, &a.odds_without_source)?;
                    fit_move_odds(f, &mut reference);
                    experts::print_move_odds(&reference);
                }
                match fitted_on.filter(|_| a.oof_odds) {
                    Some(f) => with_late_reference_out_of_fold(&mut all, &f, &reference),
                    None => with_late_reference(&mut all, &reference),
                }
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
    /// A switched side's helper, its `SwitchEngine` tag (for the slices by the helper's
    /// make; never a feature).
    helper: Option<String>,
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
/// weaker engine's `own_tag` its signals against that tag. The manifest's games only,
/// rebuilt a few hundred at a time ([`for_manifest_records`]): humans' and switched games'
/// rows as they come, engines' once every human rating is known (the same rows as
/// [`rows_of`] of all the records at once, in the same order, in a fraction of its memory).
fn rows(corpus: &std::path::Path, classifier_oof: Option<&std::path::Path>) -> Result<Vec<Row>> {
    rows_in_chunks(corpus, classifier_oof, 250)
}

/// [`rows`], rebuilding `chunk` games at a time.
fn rows_in_chunks(
    corpus: &std::path::Path,
    classifier_oof: Option<&std::path::Path>,
    chunk: usize,
) -> Result<Vec<Row>> {
    let manifest = Manifest::load(corpus)?;
    let oof = classifier_oof.map(load_classifier_oof).transpose()?;
    let mut calibration: Option<Option<&'static Calibration>> = None;
    let mut human: Vec<f64> = Vec::new();
    let mut done: Vec<Vec<Row>> = Vec::new();
    // Engine games wait for the human ratings: their slot in `done`, id, split, report.
    let mut engines: Vec<(usize, String, Split, GameReport)> = Vec::new();
    let mut with_oof = 0;
    let n = for_manifest_records(corpus, &manifest, chunk, |records| {
        let mut report = rebuild_games(&records)?;
        if let Some(oof) = &oof {
            with_oof += with_out_of_fold(&mut report.games, &records, oof)?;
        }
        let cal = *calibration.get_or_insert_with(|| {
            Calibration::builtin().filter(|c| c.applies_to(&report.settings, &report.engine))
        });
        human.extend(human_ratings(&records, &report.games, &manifest));
        for (r, game) in records.iter().zip(report.games) {
            let split = manifest.games[&r.id].split;
            if r.label == Label::Engine {
                engines.push((done.len(), r.id.clone(), split, game));
                done.push(Vec::new());
            } else {
                done.push(game_rows(&r.id, r.label, split, &game, &[], cal));
            }
        }
        Ok(())
    })?;
    eprintln!("fairsight: rebuilt {n} corpus games");
    if oof.is_some() {
        eprintln!("fairsight: out-of-fold classifier probabilities for {with_oof} games");
    }
    let calibration = calibration.flatten();
    if calibration.is_none() {
        eprintln!(
            "fairsight: the shipped rating calibration does not apply to these settings: no z-scores"
        );
    }
    human.sort_by(f64::total_cmp);
    for (slot, id, split, game) in engines {
        done[slot] = game_rows(&id, Label::Engine, split, &game, &human, calibration);
    }
    Ok(done.into_iter().flatten().collect())
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

/// [`rows`] of these records of the corpus only (the others are not rebuilt), all at once.
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
        out.extend(game_rows(
            &r.id,
            r.label,
            entry.split,
            game,
            &human_ratings,
            calibration,
        ));
    }
    Ok(out)
}

/// The scored sides of one game ([`rows`]): none when its split is `none` or it failed;
/// an engine's side scored against a rating drawn from `human_ratings` (sorted).
fn game_rows(
    id: &str,
    label: Label,
    split: Split,
    game: &GameReport,
    human_ratings: &[f64],
    calibration: Option<&Calibration>,
) -> Vec<Row> {
    let mut out = Vec::new();
    if split == Split::None || game.error.is_some() {
        return out;
    }
    let switched = game.tag("Switched").map(str::to_owned);
    for side in [Side::White, Side::Black] {
        let side_name = match side {
            Side::White => "white",
            Side::Black => "black",
        };
        let kind = match label {
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
        let rating = if label == Label::Engine {
            engine_rating(human_ratings, elo, &format!("{id}#{side_name}"))
        } else {
            elo
        };
        let Some(mut signals) = side_signals(game, side, rating, calibration) else {
            continue;
        };
        let mut own_tag = (kind == Kind::WeakEngine)
            .then(|| side_signals(game, side, elo, calibration))
            .flatten();
        if label == Label::Engine {
            signals = signals.without(&CLOCK_SIGNALS);
            own_tag = own_tag.map(|s| s.without(&CLOCK_SIGNALS));
        }
        let player = if label == Label::Engine {
            format!("{id}#{side_name}")
        } else {
            game.sides.get(side).player.to_lowercase()
        };
        let engine_moves = (kind == Kind::Switched)
            .then(|| engine_moves(game, side))
            .flatten();
        let helper = (kind == Kind::Switched)
            .then(|| game.tag("SwitchEngine").map(str::to_owned))
            .flatten();
        out.push(Row {
            game: id.to_owned(),
            player,
            kind,
            side,
            split,
            signals,
            elo,
            own_tag,
            engine_moves,
            helper,
        });
    }
    out
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

/// Every row's later half against its rating, as [`with_late_reference`], but each train
/// row of `fitted_on` (the rows `reference`'s move odds were fitted on) read by tables
/// fitted ([`fit_move_odds`]) without the train rows of its fold ([`stable_game_folds`]:
/// 5 folds, games linked by a player in one), so that no train side is read by a table
/// that counted its own moves.
fn with_late_reference_out_of_fold(rows: &mut [Row], fitted_on: &[Row], reference: &LateReference) {
    const K: usize = 5;
    let fold: BTreeMap<String, usize> = {
        let train: Vec<&Row> = fitted_on
            .iter()
            .filter(|r| r.split == Split::Train)
            .collect();
        stable_game_folds(&train, K, 2026)
            .into_iter()
            .map(|(g, f)| (g.to_owned(), f))
            .collect()
    };
    let fold_of = |r: &Row| {
        (r.split == Split::Train)
            .then(|| fold.get(&r.game).copied())
            .flatten()
    };
    let mut by_fold = Vec::with_capacity(K);
    for k in 0..K {
        let others: Vec<Row> = fitted_on
            .iter()
            .filter(|r| fold_of(r) != Some(k))
            .cloned()
            .collect();
        let mut own = reference.clone();
        fit_move_odds(&others, &mut own);
        by_fold.push(own);
    }
    for r in rows {
        let reference = fold_of(r).map_or(reference, |k| &by_fold[k]);
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
    fit_move_odds(rows, &mut reference);
    Some(reference)
}

/// The move-odds tables of `reference` ([`LateOdds`]: `lateOdds`, `switchOdds`,
/// `switchOddsAll`) fitted on the clean human and switched sides of the train split.
fn fit_move_odds(rows: &[Row], reference: &mut LateReference) {
    let train = |kind: Kind| {
        rows.iter()
            .filter(move |r| r.split == Split::Train && r.kind == kind)
            .map(|r| &r.signals)
    };
    let humans: Vec<&Signals> = train(Kind::Human).collect();
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

#[cfg(test)]
mod tests;
