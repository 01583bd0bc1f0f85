//! `fairsight assess thresholds`: a model's side and player thresholds, its Platt scaling
//! and the experts' scales for sides with clocks, set again on the sides the model (or
//! the fold models, `--cross`) never saw.

use super::*;

/// `assess thresholds`: the model's side thresholds set again from the clean human sides of
/// the corpus it never saw, and its player thresholds kept or (`--players`) set again from
/// the clean pseudo-players of the same sides ([`ThresholdsArgs`], [`set_player_thresholds`]).
pub(super) fn thresholds(a: ThresholdsArgs) -> Result<()> {
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
        // The manifest's games a few hundred at a time, keeping only those a reader
        // reads: the test split's and unlisted games never held.
        let manifest = Manifest::load(&a.corpus)?;
        for_manifest_records(&a.corpus, &manifest, 250, |records| {
            for r in records {
                if let Some(k) = reader_of(manifest.games[&r.id].split, &r.id) {
                    by_reader[k].push(r);
                }
            }
            Ok(())
        })?;
    }
    // Each reader's games rebuilt once, for every pooling below.
    let by_reader: Vec<Rebuilt> = by_reader
        .into_iter()
        .map(|records| Rebuilt::new(records, oof.as_ref()))
        .collect::<Result<_>>()?;
    let mut player_scale_words = String::new();
    let games_scale = a.player_games_scale.is_some();
    let every = a.player_games_scale == Some(GamesScale::All);
    if a.unrated_player_scale || games_scale {
        let groups: Vec<(&Rebuilt, &AssessmentModel)> = by_reader.iter().zip(&readers).collect();
        let sizes: Vec<usize> = if games_scale {
            FEW_GAMES.iter().chain(&PLAYER_GAMES).copied().collect()
        } else {
            vec![PLAYER_GAMES[0]]
        };
        let card = set_player_calibration(&groups, &mut model, &sizes, MIN_PLAYER_SCALE, |v| {
            every || !v.rated
        })?;
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
        let groups: Vec<(&Rebuilt, &AssessmentModel)> = by_reader.iter().zip(&readers).collect();
        let card = set_player_thresholds(
            &groups,
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
pub(super) fn keep_rated(model: &mut AssessmentModel, kept: &AssessmentModel) -> Result<usize> {
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
pub(super) fn unseen_by(fitted: &Manifest, split: Split, id: &str) -> bool {
    match split {
        Split::Validation => true,
        Split::Train => fitted.games.get(id).is_none_or(|g| g.split != Split::Train),
        _ => false,
    }
}

/// Which of the models fitted on `fitted` (the model first, then its fold models) reads a
/// side of game `id`, now in `split`, out of sample: the first that never saw it.
pub(super) fn first_unseen(fitted: &[&Manifest], split: Split, id: &str) -> Option<usize> {
    fitted.iter().position(|f| unseen_by(f, split, id))
}

/// A fold model for `assess thresholds --cross`: `MODEL=MANIFEST`, the model and the
/// manifest it was fitted on.
pub(super) fn cross_reader(spec: &str) -> Result<(AssessmentModel, Manifest)> {
    let Some((model, manifest)) = spec.split_once('=') else {
        bail!(
            "--cross {spec}: expected MODEL=MANIFEST (a fold model and the manifest it was fitted on)"
        );
    };
    let mut slot = None;
    let model = load_model(Some(&PathBuf::from(model)), &mut slot)?.clone();
    Ok((model, Manifest::load_file(std::path::Path::new(manifest))?))
}

/// The share of the clean sides a model never saw that its side threshold lets through
/// ([`side_thresholds`]), and a rating band's ([`lower_rated`]): the model's
/// `sideLookCloserRate` is the larger of those it uses.
pub(super) const SIDE_RATE: f64 = 0.005;
pub(super) const BAND_RATE: f64 = 0.01;

/// The fit's rule for a kind of input's side thresholds, from its clean human sides'
/// probabilities (sorted): `unclear` at their 90th percentile, `look closer` above all but
/// 0.5% of them and never below 0.5 (the test split's rate is then measured by `assess
/// eval`); `unclear` never above `look closer`.
pub(super) fn side_thresholds(humans: &[f64]) -> (f64, f64) {
    let allowed = (humans.len() as f64 * SIDE_RATE).floor() as usize;
    let above = humans[humans.len() - 1 - allowed.min(humans.len() - 1)];
    let look_closer = (above + 1e-9).clamp(0.5, 0.999);
    (percentile(humans, 0.90).min(look_closer), look_closer)
}

/// A band's thresholds from its clean sides' probabilities (sorted, at least one):
/// `look closer` above all but 1% of them, as [`side_thresholds`] clamps it, and `unclear`
/// at their 90th percentile, never above it; with `variant`, the variant's own `look
/// closer`, to count the sides that reach it.
pub(super) fn lower_rated(humans: &[f64], below: f64, variant: f64, rate: f64) -> LowerRated {
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

/// The standard normal's `q`-quantile, for `q` in (0.5, 1): bisection of its upper tail
/// (to 1e-12).
pub(super) fn normal_quantile(q: f64) -> f64 {
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
pub(super) type Scale = (f64, f64);

/// `assess thresholds --clocks-scale`: each expert of a kind of input put on a scale of its
/// own for game sides with clocks, from its z on the clean such sides its readers never
/// saw (`zs`, by [`Variant::basis`], then by expert): their median and (`tail` percentile
/// − median) ÷ the standard normal's `tail` percentile (at 0.95, as the fit sets `human`
/// from all clean train sides) ([`Expert::human_clocks`]), in the model and in every
/// reader alike (each on its own scale: the shift and spread are in z). A kind of input
/// with fewer than `min_sides` such sides keeps one scale; with `only`, so does every
/// expert of a kind not in it. Returns one line for each expert.
pub(super) fn set_clocks_scale(
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
pub(super) fn clocks_variant(
    model: &mut AssessmentModel,
    readers: &mut [AssessmentModel],
) -> Vec<String> {
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
pub(super) fn refit_scaling(
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
pub(super) fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// Platt scaling: (a, b) maximising the likelihood of `labels` under
/// `sigmoid(a·logit(score) + b)` (Newton's method, with Platt's target smoothing).
pub(super) fn platt(scores: &[f64], labels: &[bool]) -> (f64, f64) {
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
pub(super) fn platt_games(scores: &[(f64, f64)], labels: &[bool]) -> ((f64, f64), (f64, f64)) {
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
pub(super) fn solve4(mut h: [[f64; 4]; 4], mut g: [f64; 4]) -> Option<[f64; 4]> {
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
pub(super) fn set_player_calibration(
    groups: &[(&Rebuilt, &AssessmentModel)],
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
            let (read, withheld) = pseudo_players_read(records, &raw, size, 1, false, unrated)?;
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
pub(super) fn set_player_thresholds(
    groups: &[(&Rebuilt, &AssessmentModel)],
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
            let (read, unrated) = real_players_read(records, reader, PLAYER_GAMES[0], withheld)?;
            reals.extend(read);
            reals.extend(
                unrated
                    .into_iter()
                    .filter(|p| p.elo.is_some() && !p.basis.starts_with("rated")),
            );
        }
        for (n, players) in &mut by_size {
            let (read, unrated) =
                pseudo_players_read(records, reader, *n, GROUPINGS, true, withheld)?;
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
pub(super) fn player_bound(
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
pub(super) fn real_players_bound(
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
pub(super) const MIN_REAL_PLAYERS: usize = 20;

/// Fewest validation pseudo-players of each label (engine-assisted, clean) a kind of
/// input's player scaling is fitted on by itself: fewer give a slope that swings with a
/// few players (the unrated kind with clocks had 8 and 19), and a player's bar that
/// stays at a side's threshold then means something else on it.
pub(super) const MIN_PLAYER_SCALE: usize = 20;

/// The sizes of the fewer-game pseudo-players a kind's bars for players of 2-4 games are
/// set above, with `assess thresholds --unrated-player-scale` (the unrated kinds) or
/// `--player-games-scale` (its kinds).
pub(super) const FEW_GAMES: [usize; 3] = [2, 3, 4];

/// Which kinds of input `assess thresholds --player-games-scale` fits a player's scaling
/// with a games term for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum GamesScale {
    /// The unrated kinds.
    Unrated,
    /// Every kind with a player reading.
    All,
}

/// The highest a player's `look closer` is set (a bar of 1 would never be reached). With
/// the rated kind's scaling fitted with a games term (`--player-games-scale all`) the
/// clean players of the lower rating bands read past it; 0.9999 held them but cost
/// engine-assisted players at `look closer` (session 65, models/README.md).
pub(super) const PLAYER_BAR_CAP: f64 = 0.999;

/// The highest a player's `look closer` for 2-4 games is set
/// ([`AssessmentVariant::look_closer_few`]): set apart from the bar of 5 or more games, it may rise past [`PLAYER_BAR_CAP`] to hold
/// a clean pair of games that a scaling moving with the games reads near 1 (session 66,
/// models/README.md), short of 1, which no player reaches.
pub(super) const PLAYER_FEW_BAR_CAP: f64 = 0.99999;

/// The sizes of the pseudo-players a player's threshold is set above.
pub(super) const PLAYER_GAMES: [usize; 3] = [5, 10, 20];

/// How many ways over the clean sides are grouped into the pseudo-players a player's
/// threshold is set above: each side is in this many, so they stand for this many times
/// fewer independent players ([`player_z`] reads that many).
pub(super) const GROUPINGS: usize = 5;

/// The normal quantile of the per-player goal (0.1% false positives): 99.9th percentile.
pub(super) const Z_PLAYER: f64 = 3.090_232;

/// The normal quantile of 95% confidence.
pub(super) const Z_CONFIDENCE: f64 = 1.644_854;

/// How many standard deviations above the mean of `n` clean players' logits a player's
/// threshold lies: the one-sided normal tolerance factor (Natrella's approximation) for
/// 99.9% of clean players with 95% confidence. The 99.9th percentile of the normal fitted
/// to them ([`Z_PLAYER`]) is only an estimate of the true one, as often below it as above,
/// so a threshold there meets the goal on fresh players about half the time; this one
/// leaves room for the mean's and the spread's errors (3.30 at 382 players, 3.60 at 80;
/// infinite under 3, where no tail can be told).
pub(super) fn player_z(n: usize) -> f64 {
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
pub(super) fn normal_tail(probabilities: &[f64], z: f64) -> f64 {
    if probabilities.len() < 10 {
        return 0.0;
    }
    let logits: Vec<f64> = probabilities.iter().map(|p| logit(*p)).collect();
    let (mean, sd) = mean_sd(&logits);
    1.0 / (1.0 + (-(mean + z * sd)).exp())
}

/// The mean and the sample standard deviation of `v` (two or more values).
pub(super) fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}
