//! Players: pseudo-players (clean or engine-assisted game sides of one kind pooled) and
//! real players (a name's clean games), read as a report reads a player.

use super::*;

/// A pseudo-player's kind and assessment.
pub(super) struct PseudoPlayer {
    pub(super) kind: Kind,
    pub(super) level: Option<Level>,
    pub(super) probability: f64,
    /// The model that assessed it (`Assessment::basis`).
    pub(super) basis: String,
    /// Its game sides: corpus id, side and rating tag.
    pub(super) members: Vec<String>,
    /// What moved its probability most: signal, value and effect.
    pub(super) reasons: Vec<String>,
    /// The mean rating tag of its sides (`None` when one has none).
    pub(super) elo: Option<f64>,
    /// Its games.
    pub(super) games: usize,
    /// The `look closer` it was held to (its kind of input's, or its rating band's; NaN
    /// unassessed).
    pub(super) look_closer: f64,
}

/// Records with their games rebuilt once, the classifier's out-of-fold probabilities in
/// place where given: pseudo-players and real players are pooled from them again and
/// again (each size of player, each reader), and a game's report does not depend on the
/// games rebuilt with it ([`fairsight::Analysis::games_report`]), so each game
/// is rebuilt once instead of once a pooling (the thresholds step of a refit took 20
/// minutes so, 7 now: README, "Reading the corpus for `assess`: memory").
pub(super) struct Rebuilt {
    /// The records, without their searches (`positions`, in the games now): their ids,
    /// labels and PGN tags are what a pooling reads.
    pub(super) records: Vec<Record>,
    /// The report of no game: its settings, engine and models.
    base: Option<Report>,
    /// `records`' games, in their order.
    games: Vec<GameReport>,
}

impl Rebuilt {
    pub(super) fn new(mut records: Vec<Record>, oof: Option<&ClassifierOof>) -> Result<Rebuilt> {
        if records.is_empty() {
            return Ok(Rebuilt {
                records,
                base: None,
                games: Vec::new(),
            });
        }
        let mut base = rebuild_games(&records)?;
        if let Some(oof) = oof {
            with_out_of_fold(&mut base.games, &records, oof)?;
        }
        let games = std::mem::take(&mut base.games);
        for r in &mut records {
            r.positions = Vec::new();
        }
        Ok(Rebuilt {
            records,
            base: Some(base),
            games,
        })
    }

    /// A report of the games `at` (indices into `records`, in that order), each game's
    /// `index` its place there, as [`rebuild_games`] of those records would give it (but
    /// for each game's `line` in the joined PGN, which nothing here reads).
    fn report_of(&self, at: impl IntoIterator<Item = usize>) -> Result<Report> {
        let Some(base) = &self.base else {
            bail!("no corpus games match");
        };
        let mut report = base.clone();
        report.games = at
            .into_iter()
            .enumerate()
            .map(|(k, i)| {
                let mut g = self.games[i].clone();
                g.index = k;
                g
            })
            .collect();
        Ok(report)
    }
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
pub(super) fn pseudo_players(
    records: &[Record],
    model: &AssessmentModel,
    size: usize,
    groupings: usize,
    oof: Option<&ClassifierOof>,
) -> Result<Vec<PseudoPlayer>> {
    let games = Rebuilt::new(records.to_vec(), oof)?;
    Ok(pseudo_players_read(&games, model, size, groupings, false, false)?.0)
}

/// [`pseudo_players`] of `games` (of their clean human games alone with `clean_only`),
/// and with `withheld` the same pseudo-players read again with their rating withheld (as
/// the unrated kinds read a file without Elo tags): what a player's thresholds for
/// unrated input make of today's players.
pub(super) fn pseudo_players_read(
    games: &Rebuilt,
    model: &AssessmentModel,
    size: usize,
    groupings: usize,
    clean_only: bool,
    withheld: bool,
) -> Result<(Vec<PseudoPlayer>, Vec<PseudoPlayer>)> {
    let records = &games.records;
    // (kind, elo, record index, side)
    let mut sides: Vec<(Kind, Option<f64>, usize, &str)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if clean_only && r.label != Label::Human {
            continue;
        }
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
    let report = pooled_report(games, &members)?;
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

/// The report of the pseudo-players `members` make of `games`: each member (a record's
/// index, its side, the pseudo-player's name, the rating that side is scored against
/// when not its own Elo tag) is a copy of that game's report with the side renamed (and
/// its Elo tag set to the rating), as if its PGN had said so, and the players are those
/// names alone. Each game is rebuilt once however many pseudo-players it is in
/// ([`Rebuilt`]), and the players' Regan fits and IPRs, which no signal reads, are left
/// out ([`fairsight::fit::players_without_fits`]): the groupings put each side in several.
pub(super) fn pooled_report(
    games: &Rebuilt,
    members: &[(usize, &str, String, Option<f64>)],
) -> Result<Report> {
    let mut report = games.report_of(std::iter::empty())?;
    let mut names = std::collections::HashSet::new();
    for (index, (i, side, name, rating)) in members.iter().enumerate() {
        let mut g = games.games[*i].clone();
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
pub(super) fn assess_player(
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

/// The real players of the clean human games of `games` with `min_games` or more of
/// them, each read by `model` on all their games pooled as the page and the CLI read a
/// player (their z-scores narrowed by their player effects: the per-player false-positive
/// rate with what pseudo-players lack, a player's own style and form, the same in each of
/// their games, which makes a player's pooled z-scores spread wider than one side's times
/// √games); and with `withheld` the same players read again with their rating withheld
/// (else empty).
pub(super) fn real_players_read(
    games: &Rebuilt,
    model: &AssessmentModel,
    min_games: usize,
    withheld: bool,
) -> Result<(Vec<PseudoPlayer>, Vec<PseudoPlayer>)> {
    let human: Vec<usize> = (0..games.records.len())
        .filter(|&i| games.records[i].label == Label::Human)
        .collect();
    if human.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut report = games.report_of(human)?;
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
pub(super) type PseudoSide<T> = (Kind, Option<f64>, usize, T);

/// Whether a game was played online (its `Site` a chess server's address), where ratings
/// run on their own scale: a lichess player rated 1,700 plays well below a FIDE 1,700 (on
/// the train split, clean online sides rated 1,600-2,499 show Regan's ASD z at +1.5 to
/// +2.0, over-the-board ones at about 0). A real player's games come from one of the two,
/// so a pseudo-player's do too.
pub(super) fn online(record: &Record) -> bool {
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
pub(super) fn groups_of_distinct_games<'a, T>(
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
