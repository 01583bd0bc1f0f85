// fairsight: the game list of a report. GPL-3.0-or-later.
//
// renderGameList: the table of games, one row per game with its players, each with
// their flag (the assessment's level as a traffic light and in words), the result, each
// side's engine score, accuracy, ACPL and top-move match rate, then the event; a game that
// could not be imported shows its error instead. Every column sorts (a button in its
// header, `aria-sort` on the sorted one); a player filter keeps the games of matching
// players. Selecting a row (click, Enter or Space) opens the game; the table is one Tab
// stop, ↑/↓ (Home/End) move between its games. Above it, a "what it means" button for
// each kind of column.

import { h } from './dom.js';
import { info } from './explain.js';
import { DASH, arr, isNum, levelRank, levelSlug, num, obj, pct, result, str, tag } from './format.js';

/** What the report's engine score is: the classifier's, or the fallback without one. */
function engineScoreMeaning(report) {
  if (report?.assessment) return 'probability of engine assistance (the assessment)';
  return report?.classifier
    ? 'mean engine probability of the move classifier'
    : 'match rate × accuracy / 100 (no move classifier for these settings)';
}

/** The assessment of a side, or null. */
const assessmentOf = (sd) => (sd.assessment && typeof sd.assessment === 'object' ? sd.assessment : null);

/**
 * A side's flag: the level first, then the probability (so "look closer" sorts above
 * "unclear" whatever the probabilities of different bases), null without an assessment.
 */
function flagKey(sd) {
  const a = assessmentOf(sd);
  return a && isNum(a.probability) ? levelRank(a.level) * 10 + a.probability : null;
}

// A side's flag, beside its player.
const FLAG_COL = ['flag', 'Flag', 'Fair-play flag: the assessment of this side', null, flagKey];

// Per side, after the result: [key, label, long label, cell text, sort value].
const SIDE_COLS = [
  ['engine', 'Engine', 'Engine score (0 to 1)', (sd) => num(sd.engineScore, 2), (sd) => sd.engineScore],
  ['accuracy', 'Accuracy', 'Accuracy (%)', (sd) => num(sd.accuracy), (sd) => sd.accuracy],
  ['acpl', 'ACPL', 'Average centipawn loss', (sd) => num(sd.acpl), (sd) => sd.acpl],
  ['match', 'Match', 'Top-move match rate', (sd) => pct(sd.matchRate), (sd) => sd.matchRate],
];

const SIDES = ['white', 'black'];
const SIDE_NAME = { white: 'White', black: 'Black' };

const nameOf = (game, side) => tag(game, SIDE_NAME[side]) || str(obj(obj(game.sides)[side]).player) || '?';
const indexOf = (game, pos) => (isNum(game.index) ? game.index : pos);

/** The sort value of a game for a column key (`index`, `white`, …, `white.engine`, …). */
function sortValue(game, pos, key) {
  switch (key) {
    case 'index':
      return indexOf(game, pos);
    case 'white':
    case 'black':
      return nameOf(game, key).toLowerCase();
    case 'result':
      return result(game);
    case 'event':
      return tag(game, 'Event').toLowerCase();
    default: {
      const [side, col] = key.split('.');
      const def = [FLAG_COL, ...SIDE_COLS].find((c) => c[0] === col);
      if (!def || !SIDES.includes(side)) return null;
      const v = def[4](obj(obj(game.sides)[side]));
      return isNum(v) ? v : null;
    }
  }
}

/** Whether a column's first click sorts descending (numbers: the highest first). */
const descendingFirst = (key) => key.includes('.');

/**
 * The games in table order: sorted by `sort` ({key, dir: 'ascending'|'descending'}), a
 * missing value last in either direction, ties in input order; games that could not be
 * imported after the others.
 */
function ordered(games, sort) {
  const rows = games.map((game, pos) => ({ game, pos })).filter((r) => r.game);
  const key = sort?.key || 'index';
  const sign = sort?.dir === 'descending' ? -1 : 1;
  const value = new Map(rows.map((r) => [r, sortValue(r.game, r.pos, key)]));
  return rows.sort((a, b) => {
    const ea = Boolean(a.game.error);
    const eb = Boolean(b.game.error);
    if (ea !== eb) return ea ? 1 : -1;
    const va = value.get(a);
    const vb = value.get(b);
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    if (va !== null && vb !== null && va !== vb) {
      const c = typeof va === 'string' ? va.localeCompare(vb) : va - vb;
      if (c) return sign * c;
    }
    return indexOf(a.game, a.pos) - indexOf(b.game, b.pos);
  });
}

/** Whether a game has a player whose name contains `filter` (case-insensitive). */
function matches(game, filter) {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  return SIDES.some((side) => nameOf(game, side).toLowerCase().includes(f));
}

/** A side's flag cell: a traffic light and the level in words. */
function flagCell(sd, report) {
  const a = assessmentOf(sd);
  if (!a) {
    return h('td', { class: 'flag none' },
      h('span', {
        class: 'not-yet',
        title: report?.assessment ? 'too few analysed moves for an assessment' : 'no assessment for these settings',
        text: DASH,
      }));
  }
  const level = str(a.level);
  return h('td', { class: `flag level-${levelSlug(level)}`, title: `${pct(a.probability)} probability of engine assistance` },
    h('span', { class: 'light', 'aria-hidden': 'true' }), ` ${level}`);
}

/** A header cell whose button sorts by `key`. */
function sortHeader(key, content, attrs, sort, onSort) {
  const active = (sort?.key || 'index') === key;
  const dir = active ? (sort?.dir || 'ascending') : null;
  const next = active ? (dir === 'ascending' ? 'descending' : 'ascending') : descendingFirst(key) ? 'descending' : 'ascending';
  const button = h('button', { type: 'button', class: 'sort', 'data-sort': key }, content);
  button.addEventListener('click', () => onSort?.({ key, dir: next }));
  return h('th', { ...attrs, 'aria-sort': dir }, button);
}

/**
 * The table of games. `onSelect(gameIndex)` is called when an imported game's row is
 * clicked (or activated with Enter/Space); `selected` is the shown game's index; `sort`
 * ({key, dir}) the order, `onSort(sort)` asks for another; `filter` a player's name or
 * part of it. Returns how many games are shown of how many.
 */
export function renderGameList(container, report, { selected = null, onSelect, sort = null, onSort, filter = '' } = {}) {
  const active = document.activeElement;
  const hadFocus = container.contains(active);
  const focusSort = hadFocus ? active.getAttribute?.('data-sort') : null;
  const focusRow = hadFocus && active.classList?.contains('game-row') ? active.getAttribute('data-game') : null;
  container.replaceChildren();
  const games = arr(report?.games);
  if (!games.length) {
    container.append(h('p', { class: 'empty', text: 'No games.' }));
    return { shown: 0, total: 0 };
  }
  const th = (key, label, attrs = {}) => sortHeader(key, label, { scope: 'col', ...attrs }, sort, onSort);
  const headTop = h(
    'tr',
    null,
    th('index', '#', { rowspan: 2, class: 'num' }),
    h('th', { scope: 'colgroup', colspan: 2, class: 'group', text: 'White' }),
    h('th', { scope: 'colgroup', colspan: 2, class: 'group', text: 'Black' }),
    th('result', 'Result', { rowspan: 2 }),
    h('th', { scope: 'colgroup', colspan: SIDE_COLS.length, class: 'group', text: "White's moves" }),
    h('th', { scope: 'colgroup', colspan: SIDE_COLS.length, class: 'group', text: "Black's moves" }),
    th('event', 'Event', { rowspan: 2 }),
  );
  const headSub = h('tr', null);
  const hidden = (side) => h('span', { class: 'visually-hidden', text: `${SIDE_NAME[side]} ` });
  for (const side of SIDES) {
    headSub.append(
      th(side, [hidden(side), 'Player'], { class: 'group-start' }),
      th(`${side}.flag`, [hidden(side), h('abbr', { title: FLAG_COL[2], text: FLAG_COL[1] })], { title: `${FLAG_COL[2]}, ${side}` }),
    );
  }
  for (const side of SIDES) {
    SIDE_COLS.forEach(([col, label, long0], i) => {
      const long = col === 'engine' ? `${long0}: ${engineScoreMeaning(report)}` : long0;
      headSub.append(
        th(`${side}.${col}`, [hidden(side), h('abbr', { title: long, text: label })], {
          class: `num${i === 0 ? ' group-start' : ''}`,
          title: `${long}, ${side}`,
        }),
      );
    });
  }
  const body = h('tbody');
  let shown = 0;
  let total = 0;
  for (const { game, pos } of ordered(games, sort)) {
    const index = indexOf(game, pos);
    total++;
    if (!matches(game, filter)) continue;
    shown++;
    const numCell = h('td', { class: 'num', text: String(index + 1) });
    if (game.error) {
      body.append(
        h('tr', { class: 'error' }, numCell,
          h('td', { colspan: 6 + 2 * SIDE_COLS.length }, h('span', { class: 'error-label', text: 'Not imported: ' }), str(game.error))),
      );
      continue;
    }
    const sides = obj(game.sides);
    const row = h(
      'tr',
      { class: 'game-row', tabindex: -1, 'data-game': index },
      numCell,
    );
    for (const side of SIDES) {
      row.append(h('td', { class: 'name group-start', text: nameOf(game, side) }), flagCell(obj(sides[side]), report));
    }
    row.append(h('td', { class: 'result', text: result(game) }));
    for (const side of SIDES) {
      const sd = obj(sides[side]);
      // data-label: the column's name where a phone shows the row as a card.
      SIDE_COLS.forEach(([, label, , f], i) =>
        row.append(h('td', { class: `num${i === 0 ? ' group-start' : ''}`, 'data-label': `${SIDE_NAME[side]} ${label.toLowerCase()}`, text: f(sd) })),
      );
    }
    row.append(h('td', { class: 'event', text: tag(game, 'Event') }));
    if (index === selected) {
      row.classList.add('selected');
      row.setAttribute('aria-current', 'true');
    }
    const choose = () => onSelect?.(index);
    row.addEventListener('click', choose);
    row.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        choose();
        return;
      }
      // Roving focus: one Tab stop for the table, the arrow keys move between games.
      const rows = [...body.querySelectorAll('tr.game-row')];
      const at = rows.indexOf(row);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
      rove(body, next);
      next.focus();
    });
    body.append(row);
  }
  if (!shown) {
    body.append(h('tr', null, h('td', { colspan: 7 + 2 * SIDE_COLS.length, class: 'empty', text: 'No game of a player matching the filter.' })));
  }
  const table = h(
    'table',
    { class: 'games-table' },
    h('caption', { class: 'visually-hidden', text: 'Games: select one to review it; the column headers sort' }),
    h('thead', null, headTop, headSub),
    body,
  );
  const help = h('p', { class: 'columns-help' }, 'What the columns mean:');
  for (const [text, key] of [['Flag', 'flag'], ['Engine', 'engineScore'], ['Accuracy', 'accuracy'], ['ACPL', 'acpl'], ['Match', 'match']]) {
    // The engine score is the classifier's only without the assessment (its range then).
    const opts = key === 'engineScore' && (report?.assessment || !report?.classifier) ? { signals: [] } : {};
    help.append(' ', h('span', { class: 'column-help' }, text, info(key, opts)));
  }
  container.append(help, h('div', { class: 'table-scroll' }, table));
  // The row that takes the Tab stop: the one focused before this render, else the
  // selected game, else the first.
  const current =
    (focusRow !== null && body.querySelector(`tr.game-row[data-game="${focusRow}"]`)) ||
    body.querySelector('tr.game-row.selected') ||
    body.querySelector('tr.game-row');
  if (current) rove(body, current);
  if (focusSort) container.querySelector(`button[data-sort="${CSS.escape(focusSort)}"]`)?.focus({ preventScroll: true });
  else if (hadFocus) current?.focus({ preventScroll: true });
  return { shown, total };
}

/** Gives `row` the table's one Tab stop. */
function rove(body, row) {
  for (const r of body.querySelectorAll('tr.game-row[tabindex="0"]')) r.setAttribute('tabindex', '-1');
  row.setAttribute('tabindex', '0');
}
