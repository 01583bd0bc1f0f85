//! The report while an analysis runs, made again and again as results arrive (the page's
//! refreshes): only the games whose results changed since the last time are rebuilt and
//! written out, and only their players summarised again (from all their games). A
//! refresh then costs the changed games and their players, not the whole report: over a
//! run of many games the work grows with the games, not with their square.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use serde::Serialize;

use crate::{
    game::{Game, ImportError, Side},
    record::EngineInfo,
    report::{GameReport, PlayerReport, Report},
};

use super::{Analysis, Models, assess_sides, players::Players, summarise};

/// Every game's report, kept between calls of [`Analysis::report_parts`], and which games
/// have changed since.
#[derive(Debug, Default)]
pub struct ReportCache {
    /// In input order; empty before the first call and after [`ReportCache::touch_all`].
    games: Vec<GameReport>,
    /// Indexes of the games with new results since the last call.
    touched: BTreeSet<usize>,
    /// Every player's summary, in the report's order, kept with the games.
    players: Vec<PlayerReport>,
    /// Position in `players` by lower-case name.
    player_at: HashMap<String, usize>,
    /// The models they were made with ([`Models::identity`]).
    models: [usize; 3],
    /// Positions of rebuilt games whose texts are still to be given
    /// ([`ReportCache::more`]), in report order.
    pending: VecDeque<usize>,
    /// Games only ([`ReportCache::games_only`]): no player is summarised.
    games_only: bool,
}

impl ReportCache {
    /// A cache whose report parts have every game, assessed, and no players: for a
    /// segment of a file whose players are summarised elsewhere (the page's `Summary`,
    /// from [`ReportCache::games`]), which spares summarising them at every view.
    pub fn games_only() -> ReportCache {
        ReportCache {
            games_only: true,
            ..ReportCache::default()
        }
    }

    /// Game `index` has new results ([`Analysis::add_result`]): it is rebuilt next time.
    pub fn touch(&mut self, index: usize) {
        self.touched.insert(index);
    }

    /// Something every game depends on changed (a rating entered): every game is
    /// rebuilt next time. (A change of the models that apply, with the engine's build,
    /// is seen without it.)
    pub fn touch_all(&mut self) {
        self.games.clear();
        self.touched.clear();
        self.pending.clear();
    }

    /// The texts of the next `limit` rebuilt games not yet given, `(position, text)`, as
    /// the last [`Analysis::report_parts`] made them (its head and tail go with them).
    pub fn more(&mut self, limit: usize) -> Vec<(usize, String)> {
        let n = limit.min(self.pending.len());
        self.pending
            .drain(..n)
            .map(|at| (at, Report::game_json(&self.games[at])))
            .collect()
    }

    /// Every game's report as the last [`Analysis::report_parts`] made it, in input
    /// order (none before the first call).
    pub fn games(&self) -> &[GameReport] {
        &self.games
    }

    /// Rebuilt games whose texts [`ReportCache::more`] has yet to give.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

/// The report in the pieces the page stores ([`Report::json_around_games`]): `head`, the
/// `count` games' texts joined by [`crate::report::GAME_SEPARATOR`], then `tail` is
/// [`Analysis::report`]'s `to_json`. Only the games that changed since the last call are
/// given, by their position in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportParts {
    /// The text before the first game.
    pub head: String,
    /// The text after the last game.
    pub tail: String,
    /// Games in the report.
    pub count: usize,
    /// Position in the report and text ([`Report::game_json`]) of every game rebuilt
    /// (the first `limit` of them, when a limit is given).
    pub changed: Vec<(usize, String)>,
    /// Rebuilt games whose texts are still to come, from [`ReportCache::more`].
    pub pending: usize,
}

impl ReportCache {
    /// Assesses the rebuilt games (at `changed`) and makes again the summary of each of
    /// their players from all of that player's games. A player's summary and a game's
    /// assessment depend on that player's games (or that game), the models and the
    /// entered ratings alone, and a change of those rebuilds everything: every other
    /// player's is kept as it was.
    fn update_players(
        &mut self,
        changed: &[usize],
        models: &Models,
        entered: &HashMap<String, f64>,
    ) {
        let names = |g: &GameReport| {
            (g.error.is_none())
                .then(|| [Side::White, Side::Black].map(|s| g.sides.get(s).player.to_lowercase()))
        };
        let dirty: HashSet<String> = changed
            .iter()
            .filter_map(|&at| names(&self.games[at]))
            .flatten()
            .collect();
        if dirty.is_empty() {
            return;
        }
        let mut players = Players::default();
        for g in &mut self.games {
            if names(g).is_some_and(|n| n.iter().any(|k| dirty.contains(k))) {
                let signals = assess_sides(g, models, entered);
                players.add_only(g, models, signals, |k| dirty.contains(k));
            }
        }
        for p in players.finish(models, entered) {
            let at = self.player_at[&p.name.to_lowercase()];
            self.players[at] = p;
        }
    }
}

fn index_of(game: &Result<Game, ImportError>) -> usize {
    match game {
        Ok(g) => g.index,
        Err(e) => e.index,
    }
}

impl Analysis {
    /// The report of everything analysed so far, in pieces, rebuilding only the games
    /// touched in `cache` since the last call (all of them the first time).
    pub fn report_parts(&self, engine: EngineInfo, cache: &mut ReportCache) -> ReportParts {
        self.report_parts_limited(engine, cache, usize::MAX)
    }

    /// [`Analysis::report_parts`] giving at most `limit` games' texts; the others rebuilt
    /// come from [`ReportCache::more`], so that a view of thousands of games never holds
    /// all their texts at once. (Games left to give by an earlier call are given again
    /// with this call's.)
    pub fn report_parts_limited(
        &self,
        engine: EngineInfo,
        cache: &mut ReportCache,
        limit: usize,
    ) -> ReportParts {
        let models = self.models.resolve(&self.settings, &engine);
        let build = |g: &Result<Game, ImportError>| self.game_report(g, &models);
        let same = cache.games.len() == self.games.len() && cache.models == models.identity();
        let changed: Vec<usize> = if same {
            let touched = std::mem::take(&mut cache.touched);
            let changed: Vec<usize> = self
                .games
                .iter()
                .enumerate()
                .filter(|(_, g)| touched.contains(&index_of(g)))
                .map(|(at, g)| {
                    cache.games[at] = build(g);
                    at
                })
                .collect();
            if cache.games_only {
                for &at in &changed {
                    assess_sides(&mut cache.games[at], &models, &self.ratings);
                }
            } else {
                cache.update_players(&changed, &models, &self.ratings);
            }
            let mut give: BTreeSet<usize> = cache.pending.drain(..).collect();
            give.extend(changed);
            give.into_iter().collect()
        } else {
            cache.games = self.games.iter().map(build).collect();
            cache.touched.clear();
            cache.models = models.identity();
            if cache.games_only {
                for g in &mut cache.games {
                    assess_sides(g, &models, &self.ratings);
                }
                cache.players = Vec::new();
            } else {
                cache.players = summarise(&mut cache.games, &models, &self.ratings);
            }
            cache.player_at = cache
                .players
                .iter()
                .enumerate()
                .map(|(at, p)| (p.name.to_lowercase(), at))
                .collect();
            (0..self.games.len()).collect()
        };
        let mut report = models.report(self.settings.clone(), engine);
        report.players = cache.players.clone();
        let (head, tail) = report.json_around_games(cache.games.len());
        cache.pending = changed.into();
        ReportParts {
            head,
            tail,
            count: cache.games.len(),
            changed: cache.more(limit),
            pending: cache.pending(),
        }
    }
}
