// fairsight: the summary and the player panels of a report. GPL-3.0-or-later.
//
// renderSummary: the answer first, one row per player with the assessment's level, the
// probability of engine assistance, the moves behind it and what it means; the player
// table of a triage (its columns sort, a name shows that player's games).
// renderPlayers: one card per player aggregated over all games, with the assessment and
// its reasons on top, the plain statistics (accuracy, ACPL, match rate, judgements,
// engine score bar, time use), then, collapsed, the expert ones (Regan's z-scores and
// fit, IPR, Haworth, Guid–Bratko, classifier, screening matches, verdict, the scans of
// each game, the positive-rate histogram of charts.js and the moves that drove the
// verdict). Every metric has its "what it means" button (explain.js).

import { fact, h, s } from './dom.js';
import {
  DASH,
  arr,
  exclusionText,
  findGame,
  isNum,
  levelRank,
  levelSlug,
  moveNo,
  num,
  obj,
  pct,
  pctRange,
  probabilityPct,
  sideHint,
  str,
  tag,
  thresholdPct,
} from './format.js';
import { rateHistogram, stretchNote } from './charts.js';
import { info, infoLabel } from './explain.js';

// ---------------------------------------------------------------- summary

// The summary's sortable columns: [key, label, class, sort value, descending first].
// The "what it means" of each summary column (explain.js).
const SUMMARY_INFO = { level: 'level', probability: 'probability', moves: 'moves' };

const SUMMARY_COLS = [
  // Within a level, a player with a game at look closer on its own comes first (its
  // pooled probability is no help there: one flagged game among clean ones pools low).
  ['level', 'Level', '', (p, levels) => {
    const a = assessmentOf(p);
    if (!a || !isNum(a.probability)) return null;
    const alone = a.level !== 'look closer' && gamesAtLookCloser(p, levels) > 0;
    return levelRank(a.level) * 10 + (alone ? 2 : 0) + a.probability;
  }, true],
  ['player', 'Player', '', (p) => (str(p.name) || '?').toLowerCase(), false],
  ['probability', 'Engine assistance', 'num', (p) => assessmentOf(p)?.probability ?? null, true],
  ['moves', 'Moves', 'num', (p) => (isNum(p.analysedPlies) ? p.analysedPlies : null), true],
];

/** A reason in plain words, or with its numbers in a report written before them. */
const reasonWords = (r) => str(r.plain) || str(r.text);

const assessmentOf = (p) => (p.assessment && typeof p.assessment === 'object' ? p.assessment : null);

/** How many of a player of several games' games read `look closer` each on its own. */
const gamesAtLookCloser = (p, levels) =>
  isNum(p.games) && p.games > 1 ? levels?.get((str(p.name) || '?').toLowerCase())?.['look closer'] ?? 0 : 0;

/**
 * The players in `sort` order ({key, dir}), a missing value last, ties in report order;
 * `levels` is [`sideLevels`] of the report.
 */
function sortedPlayers(players, sort, levels) {
  const col = SUMMARY_COLS.find((c) => c[0] === sort?.key);
  if (!col) return players;
  const sign = sort.dir === 'descending' ? -1 : 1;
  const rows = players.map((p, i) => ({ p, i, v: col[3](p, levels) }));
  rows.sort((a, b) => {
    if (a.v === null && b.v !== null) return 1;
    if (b.v === null && a.v !== null) return -1;
    if (a.v !== null && b.v !== null && a.v !== b.v) {
      const c = typeof a.v === 'string' ? a.v.localeCompare(b.v) : a.v - b.v;
      if (c) return sign * c;
    }
    return a.i - b.i;
  });
  return rows.map((r) => r.p);
}

/**
 * The answer first: one row per player with the level as a traffic light, the
 * probability of engine assistance, the moves and games behind it and one sentence of
 * what it means (how many of a player's games read `look closer` on their own, the
 * strongest reason or why there is none, the hint). The columns
 * sort (`sort` = {key, dir}, `onSort(sort)` asks for another, `aria-sort` on the sorted
 * one); a player's name is a button, `onPlayer(name)` (the page filters the games).
 */
export function renderSummary(container, report, { sort = null, onSort, onPlayer, limit = SUMMARY_PAGE, onMore } = {}) {
  const active = document.activeElement;
  const focusSort = container.contains(active) ? active.getAttribute?.('data-sort') : null;
  const hadMore = active?.classList?.contains('more-players') && container.contains(active);
  container.replaceChildren();
  const players = arr(report?.players).filter((p) => p && typeof p === 'object');
  if (!players.length) {
    container.append(h('p', { class: 'empty', text: 'No players yet.' }));
    return;
  }
  const head = h('tr', null);
  for (const [key, label, cls, , descFirst] of SUMMARY_COLS) {
    const dir = sort?.key === key ? sort.dir : null;
    const next = dir ? (dir === 'ascending' ? 'descending' : 'ascending') : descFirst ? 'descending' : 'ascending';
    const button = h('button', { type: 'button', class: 'sort', 'data-sort': key }, label);
    button.addEventListener('click', () => onSort?.({ key, dir: next }));
    const explain = SUMMARY_INFO[key] ? info(SUMMARY_INFO[key]) : null;
    head.append(h('th', { scope: 'col', class: cls || null, 'aria-sort': dir }, button, explain));
  }
  head.append(h('th', { scope: 'col', text: 'What it means' }));
  const table = h(
    'table',
    { class: 'summary' },
    h('caption', { class: 'visually-hidden', text: "Players: the column headers sort; a player's name shows their games" }),
    h('thead', null, head),
  );
  const body = h('tbody');
  const levels = sideLevels(report);
  const ordered = sortedPlayers(players, sort, levels);
  const rows = ordered.slice(0, Math.max(1, limit));
  for (const p of rows) {
    const a = assessmentOf(p);
    const level = a ? str(a.level) : '';
    const slug = levelSlug(level);
    const games = isNum(p.games) ? p.games : 0;
    let sentence;
    if (a) {
      // A game of theirs at look closer on its own, under a pooled level below it.
      const lc = a.level !== 'look closer' ? gamesAtLookCloser(p, levels) : 0;
      const alone = lc ? `${lc} of ${games} games at look closer on its own. ` : '';
      // The reason that moved it most in the direction of the level: toward a human for
      // "no concern", toward an engine otherwise, and toward an engine beside a game at
      // look closer on its own (a sign of human play there would read as clearing it).
      // Only a reason beyond what 19 in 20 clean players show is named (one within their
      // range is no sign of anything on its own); a report written before the core said
      // which is which names the first.
      const human = a.level === 'no concern' && !lc;
      const toward = arr(a.reasons).filter((r) => r && isNum(r.effect) && (human ? r.effect < 0 : r.effect > 0));
      const marked = toward.some((r) => typeof r.unusual === 'boolean');
      const top = marked ? toward.find((r) => r.unusual === true) : toward[0];
      const lead = top
        ? `Strongest sign ${human ? 'of human play' : 'of engine help'}: ${reasonWords(top)}.`
        : human
          ? 'Nothing in these moves stands out from clean human play.'
          : toward.length
            ? 'No single sign stands out from clean players; together they do.'
            : '';
      const like = a.resembles ? `If assisted, most like ${str(a.resembles)}. ` : '';
      // The hint unless there is no concern (then it is only that more games would make
      // it surer, true of nearly everyone: noise in a table), but for a rating band's.
      const shown = sideHint(a);
      const hint = shown ? ` Hint: ${shown}.` : '';
      sentence = `${alone}${like}${lead}${hint}`.trim();
    } else if (report?.assessment) {
      sentence = 'Too few analysed moves for an assessment.';
    } else {
      sentence = 'No assessment for these settings: analyse with the defaults (depth 14, 4 lines).';
    }
    const name = str(p.name) || '?';
    const nameButton = h('button', { type: 'button', class: 'player-link', title: `Show ${name}'s games`, text: name });
    nameButton.addEventListener('click', () => onPlayer?.(name));
    // Under a pooled level below look closer, a game of theirs at look closer on its own
    // is marked beside the badge, so a scan down the Level column does not pass it by.
    const flaggedGames = a && a.level !== 'look closer' ? gamesAtLookCloser(p, levels) : 0;
    body.append(
      h('tr', { class: a ? `level-${slug}` : '' },
        h('td', null,
          a ? h('span', { class: `level-badge level-${slug}`, text: level }) : h('span', { class: 'not-yet', text: 'none' }),
          flaggedGames ? h('span', { class: 'games-flagged', text: `${flaggedGames} game${flaggedGames === 1 ? '' : 's'} at look closer` }) : null),
        h('th', { scope: 'row' }, nameButton),
        h('td', { class: 'num', text: a ? probabilityPct(a.probability, arr(a.thresholds)) : DASH }),
        h('td', { class: 'num', text: `${isNum(p.analysedPlies) ? p.analysedPlies : 0} moves, ${games} game${games === 1 ? '' : 's'}` }),
        h('td', { class: 'meaning', text: sentence })),
    );
  }
  table.append(body);
  container.append(h('div', { class: 'table-scroll' }, table));
  const rest = ordered.length - rows.length;
  if (rest) {
    // A tournament of hundreds of players: a page of rows at a time, in the table's order
    // (sort by level or probability to see the players to look at first).
    const more = h('button', { type: 'button', class: 'more-players', text: `Show ${Math.min(SUMMARY_PAGE, rest)} more` });
    more.addEventListener('click', () => {
      const next = rows.length;
      onMore?.();
      const row = container.querySelectorAll('tbody tr')[next]?.querySelector('button.player-link');
      row?.focus({ preventScroll: true });
    });
    container.append(
      h('p', { class: 'players-count', role: 'status' },
        `${rows.length} of ${ordered.length} players${sort?.key === 'level' && sort.dir === 'descending' ? ', those to look at first' : ''}; the column headers sort all of them. `,
        more),
    );
  }
  if (focusSort) container.querySelector(`button[data-sort="${CSS.escape(focusSort)}"]`)?.focus({ preventScroll: true });
  else if (hadMore) container.querySelector('button.more-players')?.focus({ preventScroll: true });
}

// ---------------------------------------------------------------- players

/** How many player panels are drawn at first, and added by each "Show more". */
export const PLAYER_PAGE = 24;

/** How many rows of the summary are drawn at first, and added by each "Show more". */
export const SUMMARY_PAGE = 100;

/**
 * Per-player panels, aggregated over all games: those of the players whose name
 * contains `filter` (the games' player filter), in the summary's order (`sort`), at most
 * `limit` of them, so that a tournament of hundreds of players draws a page of panels,
 * not hundreds (the summary lists them all). When more match, a line says how many are
 * shown and a button, `onMore()`, asks for the next page. Returns {shown, total}.
 */
export function renderPlayers(container, report, { sort = null, filter = '', limit = PLAYER_PAGE, onMore, onRate } = {}) {
  const active = document.activeElement;
  const hadMore = active?.classList?.contains('more-players') && container.contains(active);
  container.replaceChildren();
  const players = arr(report?.players).filter((p) => p && typeof p === 'object');
  if (!players.length) {
    container.append(h('p', { class: 'empty', text: 'No players yet.' }));
    return { shown: 0, total: 0 };
  }
  const f = filter.trim().toLowerCase();
  const levels = sideLevels(report);
  const chosen = sortedPlayers(players, sort, levels).filter((p) => !f || (str(p.name) || '?').toLowerCase().includes(f));
  if (!chosen.length) {
    container.append(h('p', { class: 'empty', text: `No player matching “${filter.trim()}”.` }));
    return { shown: 0, total: 0 };
  }
  const shown = chosen.slice(0, Math.max(1, limit));
  const grid = h('div', { class: 'players-grid' });
  for (const p of shown) grid.append(playerCard(p, report, levels.get((str(p.name) || '?').toLowerCase()), onRate));
  container.append(grid);
  if (shown.length < chosen.length || f) {
    const rest = chosen.length - shown.length;
    const count = h('p', { class: 'players-count', role: 'status' },
      `${shown.length} of ${chosen.length} player${chosen.length === 1 ? '' : 's'}`,
      f ? ` matching “${filter.trim()}”` : '',
      rest ? ", in the summary's order." : '.');
    if (rest) {
      const more = h('button', {
        type: 'button',
        class: 'more-players',
        text: `Show ${Math.min(PLAYER_PAGE, rest)} more`,
      });
      more.addEventListener('click', () => {
        const next = shown.length;
        onMore?.();
        // The first new panel takes the focus (its heading), so a keyboard user goes on
        // reading where the list grew.
        const card = container.querySelectorAll('.player-card')[next];
        const head = card?.querySelector('h3');
        if (head) {
          head.setAttribute('tabindex', '-1');
          head.focus({ preventScroll: true });
        }
      });
      count.append(' ', more);
    }
    container.append(count);
    if (hadMore) container.querySelector('button.more-players')?.focus({ preventScroll: true });
  }
  return { shown: shown.length, total: chosen.length };
}

/**
 * Each player's game sides by level (by lower-case name, as the core matches players):
 * `{sides, unclear, 'look closer'}`, each game read on its own.
 */
function sideLevels(report) {
  const by = new Map();
  for (const g of arr(report?.games)) {
    if (!g || g.error) continue;
    for (const side of ['white', 'black']) {
      const sd = obj(obj(g.sides)[side]);
      const level = str(sd.assessment?.level);
      if (!level) continue;
      const key = (str(sd.player) || '?').toLowerCase();
      const c = by.get(key) || { sides: 0, unclear: 0, 'look closer': 0 };
      c.sides += 1;
      if (level in c) c[level] += 1;
      by.set(key, c);
    }
  }
  return by;
}

/**
 * A player of several games is read on all of them together; one assisted game among
 * many can stay under the player's threshold, so the card also says how their games
 * read each on its own (the games table has each one's flag).
 */
function byGame(p, c) {
  if (!c || !isNum(p.games) || p.games < 2) return null;
  const n = p.games;
  const lc = c['look closer'];
  const uc = c.unclear;
  const parts = [];
  if (lc) parts.push(`${lc} of ${n} at look closer`);
  if (uc) parts.push(lc ? `${uc} unclear` : `${uc} of ${n} unclear`);
  const text = parts.length ? `Game by game: ${parts.join(', ')}.` : `Game by game: none of ${n} above no concern.`;
  return h('p', { class: lc ? 'by-game flagged' : 'by-game', text });
}

/**
 * Which model read it, in words: the core's basis "rated, no clocks" is the model for
 * "rated games (clocks not read)", which also reads a rated game that has clocks
 * (anything else is shown as it is).
 */
function basisWords(basis) {
  const m = /^(rated|unrated), (no clocks|clocks)$/.exec(str(basis));
  return m ? `${m[1]} games ${m[2] === 'clocks' ? 'with clocks' : '(clocks not read)'}` : str(basis);
}

/**
 * Whether a player's level was raised by their games each read on its own: `look
 * closer` with a pooled probability under its threshold (the hint says why).
 */
const raisedByGames = (a) => a.level === 'look closer' && isNum(a.probability) && a.probability < arr(a.thresholds)[1];

/**
 * The answer first: the assessment's level, probability, reasons (each with the range
 * clean humans show) and what would make it surer. The core wrote every word; this only
 * lays them out, with how the player's games read one by one.
 */
function assessmentBlock(p, report, levels, onRate) {
  const a = p.assessment && typeof p.assessment === 'object' ? p.assessment : null;
  const box = h('section', { class: 'assessment', 'aria-label': `Fair-play assessment of ${str(p.name) || '?'}` });
  if (!a) {
    box.append(
      h('p', {
        class: 'not-yet',
        text: report?.assessment
          ? 'No assessment: too few analysed moves.'
          : 'No assessment: no model for these settings (the defaults: depth 14, 4 lines).',
      }),
    );
    return box;
  }
  const level = str(a.level);
  const slug = level.replace(/\s+/g, '-');
  box.classList.add(`level-${slug}`);
  box.append(
    h('p', { class: 'assessment-head' },
      h('span', { class: `level-badge level-${slug}`, text: level }),
      info('level'),
      ` ${probabilityPct(a.probability, arr(a.thresholds))} probability of engine assistance`,
      info('probability')),
    h('p', {
      class: 'sub',
      text: `${a.moves} moves, the model for ${basisWords(a.basis)}; ${str(a.bars) || `unclear from ${thresholdPct(arr(a.thresholds)[0])}, look closer from ${thresholdPct(arr(a.thresholds)[1])}`}${raisedByGames(a) ? ', or when enough of their games reach it on their own' : ''}.`,
    }),
  );
  if (a.resembles) box.append(h('p', { class: 'resembles', text: `If assisted, most like ${str(a.resembles)}.` }));
  const reasons = arr(a.reasons).filter((r) => r && typeof r === 'object');
  if (reasons.length) {
    const list = h('ul', { class: 'reasons' });
    for (const r of reasons) {
      // The reason in plain words, its numbers under it (a report written before the
      // plain words has only the numbers).
      const plain = str(r.plain);
      list.append(
        h('li', {
          class: isNum(r.effect) && r.effect >= 0 ? 'toward-engine' : 'toward-human',
          title: isNum(r.effect) ? `moved the probability by ${Math.round(r.effect * 100)} points` : '',
        },
        plain ? h('span', { class: 'reason-words', text: plain.charAt(0).toUpperCase() + plain.slice(1) }) : str(r.text),
        plain ? h('span', { class: 'reason-numbers', text: str(r.text) }) : null),
      );
    }
    box.append(list);
  }
  // Unless the hint already says how their games read.
  const games = raisedByGames(a) ? null : byGame(p, levels);
  if (games) box.append(games);
  if (a.hint) box.append(h('p', { class: 'hint', text: `Hint: ${str(a.hint)}.` }));
  // The hint of a player with no rating says a rating would sharpen it: a box for one.
  if (onRate && !isNum(p.rating)) box.append(rateForm(str(p.name) || '?', onRate));
  return box;
}

/**
 * For a player read without a rating: a box for their rating and a button that reads
 * them against it at once, `onRate(name, elo)` (the page adds `NAME=ELO` to the
 * settings' ratings and applies them to the report shown, as the CLI's `--rating`).
 */
function rateForm(name, onRate) {
  const input = h('input', {
    type: 'number',
    min: '100',
    max: '3500',
    step: '1',
    required: true,
    inputmode: 'numeric',
    placeholder: 'e.g. 1850',
  });
  const form = h('form', { class: 'rate-player', 'aria-label': `A rating for ${name}` },
    h('label', null, 'Their rating ', input),
    h('button', { type: 'submit', text: 'Read against it' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    onRate(name, Math.round(Number(input.value)));
  });
  return form;
}

/** A metric's label with its "what it means" button. */
const label = infoLabel;

/**
 * The IPR with its 95% interval; at the rating table's end band, that rating or beyond
 * (the table has nothing past it), as the CLI writes it.
 */
function iprText(p) {
  const r = Array.isArray(p.iprRange) ? p.iprRange.map(Math.round) : null;
  const e = Math.round(p.ipr);
  if (p.iprEdge === 'lowest') return `${e} or below${r ? ` (95%: up to ${r[1]})` : ''}`;
  if (p.iprEdge === 'highest') return `${e} or above${r ? ` (95%: from ${r[0]})` : ''}`;
  return `${e}${r ? ` (95%: ${r[0]}–${r[1]})` : ''}`;
}

function playerCard(p, report, levels, onRate) {
  const card = h('article', { class: 'player-card' });
  const name = str(p.name) || '?';
  // The clean human ranges in the popovers are those of the player's rating band.
  const rated = { rating: isNum(p.rating) ? p.rating : undefined };
  card.append(h('h3', { text: name }));
  const games = isNum(p.games) ? p.games : 0;
  card.append(
    h('p', { class: 'sub' }, `${games} game${games === 1 ? '' : 's'} `,
      h('span', { class: 'colours', title: 'games with White / with Black', text: `W${p.whiteGames ?? 0} B${p.blackGames ?? 0}` }),
      // The rating the assessment reads against (a band's thresholds depend on it).
      h('span', {
        class: 'rating',
        title: 'the rating the assessment is read against: the one entered in the settings, else the mean of the Elo tags',
        text: isNum(p.rating) ? ` · rated ${Math.round(p.rating)}` : ' · no rating',
      })),
  );
  card.append(assessmentBlock(p, report, levels, onRate));
  const dl = h('dl', { class: 'stats' });
  fact(dl, label('Analysed moves', 'moves'), isNum(p.analysedPlies) ? String(p.analysedPlies) : DASH);
  const excl = Object.entries(obj(p.excluded)).filter(([, c]) => isNum(c) && c > 0);
  fact(dl, label('Not counted', 'notCounted'), excl.length ? excl.map(([r, c]) => `${exclusionText(r)}: ${c}`).join(', ') : 'none');
  fact(dl, label('Accuracy', 'accuracy', rated), isNum(p.accuracy) ? `${num(p.accuracy)}%` : DASH);
  fact(
    dl,
    label('ACPL', 'acpl', rated),
    isNum(p.acpl)
      ? [num(p.acpl), isNum(p.acplCi95) ? h('span', { class: 'ci', title: '95% confidence interval', text: ` ± ${num(p.acplCi95)}` }) : null]
      : DASH,
  );
  const ci = pctRange(p.matchRateCi95);
  fact(
    dl,
    label('Top-move match', 'match', rated),
    isNum(p.matchRate)
      ? [pct(p.matchRate), ci ? ' ' : null, ci ? h('span', { class: 'ci', title: '95% confidence interval', text: `(95% CI ${ci})` }) : null]
      : DASH,
    'wide',
  );
  fact(
    dl,
    label('Inaccuracies / mistakes / blunders', 'judgements'),
    h('span', null,
      h('span', { class: 'c-inaccuracy', text: String(p.inaccuracies ?? 0) }), ' / ',
      h('span', { class: 'c-mistake', text: String(p.mistakes ?? 0) }), ' / ',
      h('span', { class: 'c-blunder', text: String(p.blunders ?? 0) })),
    'wide',
  );
  fact(dl, label('Better than engine', 'betterThanEngine'), String(p.betterThanEngine ?? 0));
  fact(
    dl,
    label(
      report?.assessment ? 'Engine score (assessment)' : report?.classifier ? 'Engine score (classifier)' : 'Engine score (match × accuracy)',
      'engineScore',
      // The classifier's range only where the score is the classifier's.
      report?.classifier && !report?.assessment ? rated : { ...rated, signals: [] },
    ),
    // With an assessment the engine score is its probability: a percentage, as above.
    scoreBar(p.engineScore, Boolean(report?.assessment), p.assessment?.probability === p.engineScore ? arr(p.assessment.thresholds) : null),
    'wide',
  );
  card.append(dl);
  card.append(timeFacts(p.time, rated));
  card.append(expertSection(p, report, rated));
  return card;
}

/**
 * The expert statistics, collapsed (the plain assessment stays on top): Regan's
 * z-scores, fit and IPR, Haworth's competence, Guid–Bratko, the classifier, screening
 * matches and verdict, the most engine-like stretch of each of the player's games in
 * words, the positive-rate histogram and the moves that drove the verdict.
 */
function expertSection(p, report, rated) {
  const adv = h('dl', { class: 'stats advanced' });
  const z = p.zScores && typeof p.zScores === 'object' ? p.zScores : null;
  fact(
    adv,
    label('Regan z-scores', 'zScores', rated),
    z
      ? `MM ${num(z.mm, 2)} · EV ${num(z.ev, 2)} · ASD ${num(z.asd, 2)} against a ${Math.round(z.rating)} player (${z.moves} moves)`
      : h('span', {
          class: 'not-yet',
          // The real reason, in the core's order: calibration, then rating.
          text: !report?.calibration
            ? 'no calibration for these settings (the defaults: depth 14, 4 lines)'
            : isNum(p.rating)
              ? 'no analysed move to test'
              : 'no rating (Elo tags, or enter one in the settings)',
        }),
  );
  const r = p.regan && typeof p.regan === 'object' ? p.regan : null;
  fact(
    adv,
    label('Regan fit of own moves', 'reganFit'),
    r && isNum(r.s) && isNum(r.c)
      ? `s = ${num(r.s, 3)} (${num(arr(r.sRange)[0], 3)}–${num(arr(r.sRange)[1], 3)}), c = ${num(r.c, 2)} (${num(arr(r.cRange)[0], 2)}–${num(arr(r.cRange)[1], 2)}), ${r.moves} moves`
      : notYet(p.regan),
    'wide',
  );
  fact(
    adv,
    label('Intrinsic rating (IPR)', 'ipr'),
    isNum(p.ipr)
      ? iprText(p)
      : h('span', { class: 'not-yet', text: 'no calibration for these settings' }),
  );
  const c = p.competence && typeof p.competence === 'object' ? p.competence : null;
  fact(
    adv,
    label('Apparent competence (Haworth)', 'competence', rated),
    c ? `c = ${num(c.mean)} (90%: ${num(c.low)}–${num(c.high)}, ${c.moves} moves)` : notYet(p.competence),
  );
  fact(
    adv,
    label('Guid–Bratko error', 'guidBratko'),
    isNum(p.guidBratko) ? `${num(p.guidBratko, 3)}${isNum(p.guidBratkoPlies) ? ` (${p.guidBratkoPlies} moves)` : ''}` : DASH,
  );
  const cl = p.classifier && typeof p.classifier === 'object' ? p.classifier : null;
  fact(
    adv,
    label('Engine-like moves (classifier)', 'classifier', rated),
    cl
      ? `${cl.flagged} of ${cl.classified} good moves (${pct(cl.positiveRate ?? 0)}), mean probability ${pct(cl.meanProbability ?? 0)}; critical phase ${cl.criticalFlagged} of ${cl.criticalClassified}`
      : h('span', { class: 'not-yet', text: report?.classifier ? 'no good moves to classify' : 'no model for these settings (the default depth 14, 4 lines)' }),
    'wide',
  );
  const m = p.matches && typeof p.matches === 'object' ? p.matches : null;
  if (m) {
    fact(
      adv,
      label('Screening matches (Regan)', 'screening'),
      `FULL ${m.full} · MAIN ${m.main} · PART ${m.part} · NON ${m.non} of ${m.moves} moves; by depth ${arr(m.byDepth).map((x) => `${x[0]}: ${x[1]}`).join(', ')}`,
      'wide',
    );
  }
  fact(adv, label('Verdict', 'verdict'), p.verdict !== null && p.verdict !== undefined ? str(p.verdict) : notYet(null), 'verdict');
  const body = h('div', { class: 'expert-body' }, adv);
  const scans = scanList(p, report);
  if (scans) body.append(scans);
  const hist = rateHistogram(p, report);
  if (hist) body.append(hist);
  const evidence = arr(p.evidence).filter((e) => e && isNum(e.game) && isNum(e.ply));
  if (evidence.length) {
    const list = h('ol', { class: 'evidence' });
    for (const e of evidence.slice(0, 5)) {
      const game = findGame(report, e.game);
      const ply = arr(game?.plies).find((x) => x && x.ply === e.ply);
      const who = game ? `${tag(game, 'White') || '?'} – ${tag(game, 'Black') || '?'}` : `game ${e.game + 1}`;
      list.append(
        h('li', {
          text: `${who}: ${ply ? `${moveNo(ply)} ${str(ply.san)}` : `ply ${e.ply}`} (engine's top move; p = ${num(e.probability, 2)} for this rating)`,
        }),
      );
    }
    body.append(h('p', { class: 'sub', text: 'Moves that drove it, least likely first:' }), list);
  }
  return h(
    'details',
    { class: 'expert' },
    h('summary', { text: 'Expert statistics: Regan, IPR, Haworth, Guid–Bratko, the scans' }),
    body,
  );
}

// At most this many games in a player's scans: the least likely by chance (a season's
// games would otherwise put one item a game in the page).
const SCANS_SHOWN = 10;

/** The most engine-like stretch of each of the player's games, in words (charts.js). */
function scanList(p, report) {
  const who = str(p.name).toLowerCase();
  const found = [];
  for (const game of arr(report?.games)) {
    if (!game || game.error) continue;
    for (const side of ['white', 'black']) {
      const sd = obj(obj(game.sides)[side]);
      const st = obj(sd.stretch);
      if (str(sd.player).toLowerCase() !== who || !isNum(st.fromPly) || !isNum(st.z)) continue;
      found.push({ game, side, st, order: found.length });
    }
  }
  if (!found.length) return null;
  const chance = (x) => (isNum(x.st.pAdjusted) ? x.st.pAdjusted : 1);
  const shown = found.length > SCANS_SHOWN
    ? [...found].sort((a, b) => chance(a) - chance(b) || a.order - b.order).slice(0, SCANS_SHOWN).sort((a, b) => a.order - b.order)
    : found;
  const items = shown.map(({ game, side, st }) => {
    const opponent = tag(game, side === 'white' ? 'Black' : 'White') || '?';
    return stretchNote('li', null, `Game ${(isNum(game.index) ? game.index : 0) + 1} (against ${opponent}): `, { side, ...st });
  });
  return h('div', { class: 'scans' },
    h('p', { class: 'sub' }, 'Scans for intermittent assistance', info('stretch')),
    h('ul', { class: 'scan-list' }, ...items),
    found.length > shown.length
      ? h('p', { class: 'sub', text: `The ${shown.length} least likely by chance of ${found.length} games; the exported report has them all.` })
      : null);
}

/** Time use (from clock data): mean, spread, the most regular stretch, fast moves. */
function timeFacts(t, rated) {
  const dl = h('dl', { class: 'stats time' });
  if (!t || typeof t !== 'object' || !isNum(t.mean)) {
    fact(dl, 'Time use', h('span', { class: 'not-yet', text: 'no clock data' }), 'wide');
    return dl;
  }
  fact(
    dl,
    label('Time per move', 'timePerMove', rated),
    `${num(t.mean)} s${isNum(t.sd) ? ` ± ${num(t.sd)}` : ''}${isNum(t.cv) ? ` (CV ${num(t.cv, 2)})` : ''} · ${t.moves} moves`,
    'wide',
  );
  fact(
    dl,
    label('Most regular 14 moves', 'regularStretch', rated),
    isNum(t.minWindowCv) ? `CV ${num(t.minWindowCv, 2)} from ply ${t.minWindowPly}` : 'fewer than 14 timed moves',
  );
  fact(dl, label('Fast (< 2 s) / premoves', 'fast', rated), `${t.fastMoves ?? 0} / ${t.premoves ?? 0}`);
  fact(
    dl,
    label('Time vs good alternatives', 'timeVsAlternatives', rated),
    isNum(t.difficultyCorrelation) ? `r = ${num(t.difficultyCorrelation, 2)} (${t.difficultyMoves} moves)` : DASH,
    'wide',
  );
  return dl;
}

function notYet(v) {
  return v === null || v === undefined ? h('span', { class: 'not-yet', text: 'not computed yet' }) : str(v);
}

function scoreBar(v, percent = false, thresholds = null) {
  if (!isNum(v)) return DASH;
  const f = Math.max(0, Math.min(1, v));
  const bar = s(
    'svg',
    { class: 'score-bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
    s('rect', { class: 'sb-bg', x: 0, y: 0, width: 100, height: 10, rx: 2 }),
    s('rect', { class: 'sb-fill', x: 0, y: 0, width: (f * 100).toFixed(1), height: 10, rx: 2 }),
  );
  return h('span', { class: 'score-bar-box' }, bar, h('span', { class: 'score-value', text: percent ? probabilityPct(v, thresholds) : v.toFixed(2) }));
}
