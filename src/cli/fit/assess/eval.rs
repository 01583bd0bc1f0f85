//! `fairsight assess eval`: the model on a split: AUC by slice beside each single signal,
//! error rates at the thresholds with their intervals, players' rates and tails.

use super::*;

/// Wilson score interval for k of n, 95%.
pub(super) fn wilson(k: usize, n: usize) -> (f64, f64) {
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

/// Whether a switched side's helper (its `SwitchEngine` tag, e.g. "Stockfish 15.1, 500
/// ms a move" or "Ethereal 12.00, 500 ms a move") is of the judge's make, Stockfish.
pub(super) fn judge_make(helper: &str) -> bool {
    helper.trim_start().starts_with("Stockfish")
}

pub(super) fn eval(a: EvalArgs) -> Result<()> {
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
        // The switched sides by their helper's make (last, so that the slices above keep
        // their resampling seeds): the judge's own, and engines of other makes.
        (
            "switched to Stockfish (the judge's make) vs clean sides",
            Box::new(|r: &Row| match r.kind {
                Kind::Switched => r.helper.as_deref().is_some_and(judge_make).then_some(true),
                Kind::Human => Some(false),
                _ => None,
            }),
            false,
        ),
        (
            "switched to engines of other makes vs clean sides",
            Box::new(|r: &Row| match r.kind {
                Kind::Switched => (r.helper.as_deref())
                    .is_some_and(|h| !judge_make(h))
                    .then_some(true),
                Kind::Human => Some(false),
                _ => None,
            }),
            false,
        ),
    ];
    // The slices whose AUC is also read within bins and with an interval: the first four
    // and the two by the helper's make.
    let headline = |k: usize| k < 4 || k >= slices.len() - 2;
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
    for (_, (name, pick, _)) in slices.iter().enumerate().filter(|(k, _)| headline(*k)) {
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
    for (k, (name, pick, _)) in slices.iter().enumerate().filter(|(k, _)| headline(*k)) {
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
    // The rule, that the combined probability beat each single signal on every
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
    for (_, (name, pick, _)) in slices.iter().enumerate().filter(|(k, _)| headline(*k)) {
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
    // Rebuilt once for the pseudo-players and real players below.
    let games = Rebuilt::new(records, None)?;
    let records = &games.records;
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
    // Each source's engine-assisted sides, and each name's (the side's name tag: an
    // engine's) of the sources named by `--by-name`: what the thresholds catch of a kind
    // of engine or cheater that the slices lump together (engines of makes held out of
    // training, a level of play).
    let names: BTreeMap<&str, &Record> = records.iter().map(|r| (r.id.as_str(), r)).collect();
    let clean: Vec<f64> = test
        .iter()
        .zip(&probs)
        .filter(|(r, _)| r.kind == Kind::Human)
        .filter_map(|(_, p)| *p)
        .collect();
    let mut groups: BTreeMap<(String, Option<String>), Vec<usize>> = BTreeMap::new();
    for (i, r) in test.iter().enumerate() {
        if r.kind == Kind::Human || level_of[i].is_none() {
            continue;
        }
        let source = r.game.split('/').next().unwrap_or_default().to_string();
        groups.entry((source.clone(), None)).or_default().push(i);
        if a.by_name.contains(&source) {
            let tag = if r.side == Side::White {
                "White"
            } else {
                "Black"
            };
            let name = names.get(r.game.as_str()).and_then(|g| g.tag(tag));
            groups
                .entry((source, Some(name.unwrap_or_else(|| "?".into()))))
                .or_default()
                .push(i);
        }
    }
    if let Some(source) = a
        .by_name
        .iter()
        .find(|s| !groups.contains_key(&(s.to_string(), None)))
    {
        bail!(
            "--by-name {source}: no engine-assisted side of the {:?} split",
            a.split
        );
    }
    let _ = writeln!(
        out,
        "  engine-assisted sides by source (and by name for --by-name), look closer; unclear or above; AUC against the clean sides:"
    );
    for ((source, player), idx) in &groups {
        let n = idx.len();
        let at = |level: Level| idx.iter().filter(|i| level_of[**i] >= Some(level)).count();
        let (closer, unclear) = (at(Level::LookCloser), at(Level::Unclear));
        let (lo, hi) = wilson(closer, n);
        let mut scores = clean.clone();
        let mut labels = vec![false; clean.len()];
        for p in idx.iter().filter_map(|i| probs[*i]) {
            scores.push(p);
            labels.push(true);
        }
        let name = match player {
            Some(p) => format!("  {p}"),
            None => source.clone(),
        };
        let _ = writeln!(
            out,
            "    {name}: {closer}/{n} = {:.1}% (95% {:.1}-{:.1}%); {unclear}/{n} = {:.1}%; AUC {:.3}",
            100.0 * closer as f64 / n as f64,
            100.0 * lo,
            100.0 * hi,
            100.0 * unclear as f64 / n as f64,
            auc(&scores, &labels),
        );
    }
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
        let (players, withheld) = pseudo_players_read(&games, model, n, 1, false, true)?;
        player_rates(&mut out, &players, n, "");
        withheld_players.push((n, withheld));
    }
    if a.real_player_games < 2 {
        bail!("--real-player-games: 2 or more");
    }
    let (real, real_withheld) = real_players_read(&games, model, a.real_player_games, true)?;
    real_player_rates(&mut out, &real, a.real_player_games, "");
    // The same players as if their files had no Elo tags: the unrated kinds' player
    // thresholds on today's players (the corpus's own unrated players are few, and of
    // the nineteenth century).
    let withheld_words = ", read with their rating withheld (a file without Elo tags), at the unrated model's thresholds";
    for (n, players) in withheld_players {
        let rated: Vec<PseudoPlayer> = players.into_iter().filter(|p| p.elo.is_some()).collect();
        player_rates(&mut out, &rated, n, withheld_words);
    }
    let rated_real: Vec<PseudoPlayer> = real_withheld
        .into_iter()
        .filter(|p| p.elo.is_some())
        .collect();
    real_player_rates(&mut out, &rated_real, a.real_player_games, withheld_words);
    print!("{out}");
    Ok(())
}

/// The levels of the real clean players of `min_games` or more games ([`real_players`]).
pub(super) fn real_player_rates(
    out: &mut String,
    players: &[PseudoPlayer],
    min_games: usize,
    how: &str,
) {
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
pub(super) fn highest(out: &mut String, what: &str, mut players: Vec<&PseudoPlayer>) {
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
pub(super) fn player_rates(out: &mut String, players: &[PseudoPlayer], games: usize, how: &str) {
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
pub(super) struct TailRate {
    pub(super) rate: f64,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) players: usize,
    pub(super) above_90: usize,
    pub(super) above_99: usize,
}

/// A reliability table's bins (probability under 0.1, 0.1-0.3, ..., 0.9 and over), each
/// as ` mean predicted → observed share of engine-assisted (count)`; empty bins left out.
pub(super) fn reliability_bins(points: &[(f64, bool)]) -> String {
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
pub(super) const RESAMPLES: usize = 2000;

/// [`TailRate`] of `groups`, each the clean players' logits of one kind of input and the
/// logit of its threshold; `None` when no group has 10 players.
pub(super) fn tail_rate(groups: &[(Vec<f64>, f64)], seed: u64) -> Option<TailRate> {
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
pub(super) fn clean_logits(players: &[&PseudoPlayer]) -> Vec<(Vec<f64>, f64)> {
    clean_logit_groups(players)
        .into_iter()
        .map(|(_, logits, t)| (logits, t))
        .collect()
}

/// [`clean_logits`] with each group's kind of input and threshold in words ("rated, no
/// clocks, look closer 0.999"): rating bands whose bars are equal are one group.
pub(super) fn clean_logit_groups(players: &[&PseudoPlayer]) -> Vec<(String, Vec<f64>, f64)> {
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
        .map(|((basis, t), logits)| {
            let t = f64::from_bits(t);
            // Bars past 0.999 (a rating band's for 2-4 games) told apart from it.
            let bar = if t > 0.999 + 1e-9 {
                format!("{t:.5}")
            } else {
                format!("{t:.3}")
            };
            (
                format!("{basis}, look closer {bar}"),
                logits,
                (t / (1.0 - t)).ln(),
            )
        })
        .collect()
}

/// The rating bands of the clean sides' false-positive rates in `assess eval`: name,
/// lowest rating (none: unrated sides), rating the band stops below.
pub(super) const FPR_BANDS: [(&str, Option<f64>, Option<f64>); 6] = [
    ("unrated", None, None),
    ("rated under 1,600", Some(0.0), Some(1600.0)),
    ("1,600-1,899", Some(1600.0), Some(1900.0)),
    ("1,900-2,199", Some(1900.0), Some(2200.0)),
    ("2,200-2,499", Some(2200.0), Some(2500.0)),
    ("2,500 and over", Some(2500.0), None),
];

/// A slice's best single signal set against the combined probability ([`best_single`]).
#[derive(Debug)]
pub(super) struct BestSingle {
    /// The signal's index in [`SIGNALS`].
    pub(super) signal: usize,
    /// The combined probability's AUC and the signal's, on the sides that have it.
    pub(super) combined: f64,
    pub(super) single: f64,
    pub(super) sides: usize,
    /// The paired difference's (combined − signal) 95% interval.
    pub(super) lo: f64,
    pub(super) hi: f64,
}

/// The single signal with the highest AUC over a slice's `(probability, signals, label,
/// player)` sides (each oriented by `direction`, over the sides that have it), compared
/// with the combined probability on those sides, paired ([`auc_resamples`]). `None` when
/// no signal has an AUC (a slice without both labels).
pub(super) fn best_single(
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
pub(super) fn auc_resamples(
    sets: &[&[f64]],
    labels: &[bool],
    players: &[&str],
    seed: u64,
) -> Vec<Vec<f64>> {
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
pub(super) fn tail_line(out: &mut String, players: &[&PseudoPlayer], seed: u64) {
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
    // Each group alone: the pooled rate is their mean weighted by players, so a group far
    // above the goal could hide under it.
    let groups = clean_logit_groups(players);
    if groups.iter().filter(|g| g.1.len() >= 10).count() < 2 {
        return;
    }
    let mut parts = Vec::new();
    for (i, (name, logits, bar)) in groups.into_iter().enumerate() {
        let n = logits.len();
        let Some(t) = tail_rate(&[(logits, bar)], seed.wrapping_add(i as u64 + 1)) else {
            continue;
        };
        parts.push(format!(
            "{name}: {n} players, {:.3}% (95% {:.3}-{:.3}%)",
            100.0 * t.rate,
            100.0 * t.lo,
            100.0 * t.hi
        ));
    }
    let _ = writeln!(out, "    by threshold: {}", parts.join("; "));
}
