// fairsight: the game list of a report. GPL-3.0-or-later.
//
// renderGameList: the table of games, one row per game with its players, each with
// their flag (the assessment's level as a traffic light and in words), the result, each
// side's engine score, accuracy, ACPL and top-move match rate, then the event; a game that
// could not be imported shows its error instead. Every column sorts (a button in its
// header, `aria-sort` on the sorted one); a player filter keeps the games of matching
// players. Selecting a row (click, Enter or Space) opens the game; the table is one Tab
// stop, ↑/↓ (Home/End) move between its games. Above it, a "what it means" button for
// each kind of column. The list is virtualised (thousands of games): only the rows on
// screen and a few more are in the DOM.

import { h } from './dom.js';
import { info } from './explain.js';
import { DASH, arr, isNum, levelRank, levelSlug, num, obj, pct, probabilityPct, result, sideHint, str, tag } from './format.js';

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

/** A side's engine score: with an assessment its probability, as its flag reads it. */
function engineScoreText(sd) {
  const a = assessmentOf(sd);
  return a && a.probability === sd.engineScore ? probabilityPct(a.probability, arr(a.thresholds)) : pct(sd.engineScore);
}

// A side's flag, beside its player.
const FLAG_COL = ['flag', 'Flag', 'Fair-play flag: the assessment of this side', null, flagKey];

// Per side, after the result: [key, label, long label, cell text, sort value].
const SIDE_COLS = [
  ['engine', 'Engine', 'Engine score (%)', (sd) => engineScoreText(sd), (sd) => sd.engineScore],
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
 * imported in their place in the input's order, else (sorted by a column they have no
 * value in) after the others.
 */
function ordered(games, sort) {
  const rows = games.map((game, pos) => ({ game, pos })).filter((r) => r.game);
  const key = sort?.key || 'index';
  const sign = sort?.dir === 'descending' ? -1 : 1;
  const value = new Map(rows.map((r) => [r, sortValue(r.game, r.pos, key)]));
  return rows.sort((a, b) => {
    const ea = Boolean(a.game.error);
    const eb = Boolean(b.game.error);
    if (ea !== eb && key !== 'index') return ea ? 1 : -1;
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
  const hint = sideHint(a);
  return h('td', { class: `flag level-${levelSlug(level)}`, title: `${probabilityPct(a.probability, arr(a.thresholds))} probability of engine assistance.${hint ? ` Hint: ${hint}.` : ''}` },
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

// Rows rendered beyond those on screen, above and below: a scroll of a few rows shows
// rows already built, and the rows a key press moves to are always in the DOM.
const OVERSCAN = 10;

// A row's height before any is measured (desktop, one line).
const ROW_HEIGHT_GUESS = 34;

// The list shown in each container: its rows in table order, the window of them in the
// DOM, the measured row height, its scroll position and the game holding the Tab stop.
const lists = new WeakMap();

/**
 * The table of games. `onSelect(gameIndex)` is called when an imported game's row is
 * clicked (or activated with Enter/Space); `selected` is the shown game's index; `sort`
 * ({key, dir}) the order, `onSort(sort)` asks for another; `filter` a player's name or
 * part of it. Returns how many games are shown of how many.
 *
 * The list is virtualised: it scrolls in a box of bounded height, and only the rows on
 * screen (plus OVERSCAN above and below) are in the DOM; spacers stand for the others,
 * sized by the measured row height. The table says how many rows it has
 * (`aria-rowcount`, and `aria-rowindex` on each row). Rendering again with the same
 * report, order and filter keeps the scroll position; another order or filter starts at
 * the top.
 */
export function renderGameList(container, report, { selected = null, onSelect, sort = null, onSort, filter = '' } = {}) {
  const active = document.activeElement;
  const hadFocus = container.contains(active);
  const focusSort = hadFocus ? active.getAttribute?.('data-sort') : null;
  const focusRow = hadFocus && active.classList?.contains('game-row') ? Number(active.getAttribute('data-game')) : null;
  const prev = lists.get(container);
  prev?.observer?.disconnect();
  lists.delete(container);
  container.replaceChildren();
  const games = arr(report?.games);
  if (!games.length) {
    container.append(h('p', { class: 'empty', text: 'No games.' }));
    return { shown: 0, total: 0 };
  }
  const th = (key, label, attrs = {}) => sortHeader(key, label, { scope: 'col', ...attrs }, sort, onSort);
  const headTop = h(
    'tr',
    { 'aria-rowindex': 1 },
    th('index', '#', { rowspan: 2, class: 'num' }),
    h('th', { scope: 'colgroup', colspan: 2, class: 'group', text: 'White' }),
    h('th', { scope: 'colgroup', colspan: 2, class: 'group', text: 'Black' }),
    th('result', 'Result', { rowspan: 2 }),
    h('th', { scope: 'colgroup', colspan: SIDE_COLS.length, class: 'group', text: "White's moves" }),
    h('th', { scope: 'colgroup', colspan: SIDE_COLS.length, class: 'group', text: "Black's moves" }),
    th('event', 'Event', { rowspan: 2 }),
  );
  const headSub = h('tr', { 'aria-rowindex': 2 });
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
  const all = ordered(games, sort);
  const rows = all.filter((r) => matches(r.game, filter));
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'games-table', 'aria-rowcount': rows.length + 2 },
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
  const scroller = h('div', { class: 'table-scroll games-scroll' }, table);
  container.append(help, scroller);

  const view = `${games.length}|${sort?.key || 'index'}|${sort?.dir || 'ascending'}|${filter.trim().toLowerCase()}`;
  const list = {
    rows,
    body,
    scroller,
    report,
    selected,
    onSelect,
    rowHeight: prev?.rowHeight || ROW_HEIGHT_GUESS,
    start: 0,
    end: 0,
    built: new Map(),
    // The game holding the table's Tab stop: the one focused before, else the selected
    // one, else the first shown.
    tabGame: [focusRow, prev?.view === view ? prev.tabGame : null, selected].find((g) => g !== null && rows.some((r) => indexOf(r.game, r.pos) === g)) ??
      (rows.length ? indexOf(rows[0].game, rows[0].pos) : null),
    view,
  };
  lists.set(container, list);
  if (prev?.view === view && prev.scrollTop) {
    // The box keeps its place: it is given the rows' height first (an empty box would
    // clamp the scroll position to its top).
    body.replaceChildren(spacer(rows.length * list.rowHeight));
    scroller.scrollTop = prev.scrollTop;
    list.scrollTop = scroller.scrollTop;
  }
  draw(list, true);
  let frame = 0;
  scroller.addEventListener('scroll', () => {
    list.scrollTop = scroller.scrollTop;
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        draw(list);
      });
    }
  }, { passive: true });
  // The box's height changes with the window and when the results are first shown.
  if (typeof ResizeObserver === 'function') {
    list.observer = new ResizeObserver(() => draw(list));
    list.observer.observe(scroller);
  }
  if (focusSort) container.querySelector(`button[data-sort="${CSS.escape(focusSort)}"]`)?.focus({ preventScroll: true });
  else if (hadFocus) body.querySelector('tr.game-row[tabindex="0"]')?.focus({ preventScroll: true });
  return { shown: rows.length, total: all.length };
}

/**
 * Marks `selected` as the shown game in the list drawn in the container, without
 * building it again (its scroll box, scroll position and rows stay): opening a game
 * changes nothing else in the list. Returns false when no list is drawn there.
 */
export function selectInGameList(container, selected) {
  const list = lists.get(container);
  if (!list) return false;
  list.selected = selected;
  if (selected !== null && list.rows.some((r) => indexOf(r.game, r.pos) === selected)) list.tabGame = selected;
  draw(list, true);
  return true;
}

/** The game shown in the container's list at table position `pos`, made visible and focused. */
function focusAt(list, pos) {
  const at = Math.max(0, Math.min(list.rows.length - 1, pos));
  const { game, pos: p } = list.rows[at];
  list.tabGame = indexOf(game, p);
  if (at < list.start || at >= list.end) {
    // Far off screen (End, Home): scroll there by the estimated height first.
    const top = bodyTop(list) + at * list.rowHeight - list.scroller.clientHeight / 2;
    list.scroller.scrollTop = Math.max(0, top);
    list.scrollTop = list.scroller.scrollTop;
  }
  draw(list, true);
  const row = list.body.querySelector(`tr.game-row[data-game="${list.tabGame}"]`);
  row?.focus();
}

/** Where the table's body starts in the scrolling box's content. */
function bodyTop(list) {
  return list.body.getBoundingClientRect().top - list.scroller.getBoundingClientRect().top + list.scroller.scrollTop;
}

/**
 * Puts in the DOM the rows on screen and OVERSCAN either side, with spacers standing for
 * the others; then measures the rendered rows to size the spacers better. `force` draws
 * even when the window has not moved.
 */
function draw(list, force = false) {
  const { rows, body, scroller } = list;
  const n = rows.length;
  if (!n) {
    body.replaceChildren(h('tr', null, h('td', { colspan: 7 + 2 * SIDE_COLS.length, class: 'empty', text: 'No game of a player matching the filter.' })));
    return;
  }
  const viewHeight = scroller.clientHeight || innerHeight;
  const top = Math.max(0, scroller.scrollTop - bodyTop(list));
  const first = Math.min(n - 1, Math.floor(top / list.rowHeight));
  const start = Math.max(0, first - OVERSCAN);
  const end = Math.min(n, first + Math.ceil(viewHeight / list.rowHeight) + 1 + OVERSCAN);
  if (!force && start === list.start && end === list.end) return;
  const active = document.activeElement;
  const refocus = body.contains(active) && active.classList.contains('game-row') ? active.getAttribute('data-game') : null;
  const built = new Map();
  const children = [spacer(start * list.rowHeight)];
  for (let k = start; k < end; k++) {
    const { game, pos } = rows[k];
    const index = indexOf(game, pos);
    const row = list.built.get(index) ?? gameRow(list, game, pos);
    row.setAttribute('aria-rowindex', String(k + 3));
    row.classList.toggle('selected', index === list.selected);
    if (index === list.selected) row.setAttribute('aria-current', 'true');
    else row.removeAttribute('aria-current');
    if (row.classList.contains('game-row')) row.setAttribute('tabindex', index === list.tabGame ? '0' : '-1');
    built.set(index, row);
    children.push(row);
  }
  children.push(spacer((n - end) * list.rowHeight));
  // Chromium may put the box back at its top when the rows (the focused one among them)
  // leave the DOM and come back: the position is kept.
  const keep = scroller.scrollTop;
  body.replaceChildren(...children);
  if (scroller.scrollTop !== keep) scroller.scrollTop = keep;
  list.built = built;
  list.start = start;
  list.end = end;
  // The Tab stop is a rendered row: the tab game's, else the first game row shown.
  if (!body.querySelector('tr.game-row[tabindex="0"]')) body.querySelector('tr.game-row')?.setAttribute('tabindex', '0');
  if (refocus !== null) body.querySelector(`tr.game-row[data-game="${refocus}"]`)?.focus({ preventScroll: true });
  // The spacers take the mean height of the rows drawn (they differ little: a long name
  // wraps), so the scrollbar stays true to the whole list.
  const drawn = children.slice(1, -1);
  const height = drawn.reduce((sum, r) => sum + r.getBoundingClientRect().height, 0) / drawn.length;
  if (height > 0 && Math.abs(height - list.rowHeight) > 0.5) {
    list.rowHeight = height;
    children[0].firstChild.style.height = `${start * height}px`;
    children.at(-1).firstChild.style.height = `${(n - end) * height}px`;
  }
}

/** A row standing for `height` pixels of rows not in the DOM. */
function spacer(height) {
  const cell = h('td', { colspan: 7 + 2 * SIDE_COLS.length });
  cell.style.height = `${height}px`;
  return h('tr', { class: 'spacer', 'aria-hidden': 'true' }, cell);
}

/** The row of one game (or of its import error). */
function gameRow(list, game, pos) {
  const index = indexOf(game, pos);
  const numCell = h('td', { class: 'num', text: String(index + 1) });
  if (game.error) {
    return h('tr', { class: 'error' }, numCell,
      h('td', { colspan: 6 + 2 * SIDE_COLS.length }, h('span', { class: 'error-label', text: 'Not imported: ' }), str(game.error)));
  }
  const sides = obj(game.sides);
  const row = h('tr', { class: 'game-row', tabindex: -1, 'data-game': index }, numCell);
  for (const side of SIDES) {
    row.append(h('td', { class: 'name group-start', text: nameOf(game, side) }), flagCell(obj(sides[side]), list.report));
  }
  row.append(h('td', { class: 'result', text: result(game) }));
  for (const side of SIDES) {
    const sd = obj(sides[side]);
    // data-label: the column's name where a phone shows the row as a card.
    SIDE_COLS.forEach(([, label, , f], i) =>
      row.append(h('td', { class: `num${i === 0 ? ' group-start' : ''}`, 'data-label': `${SIDE_NAME[side]} ${/^[A-Z]+$/.test(label) ? label : label.toLowerCase()}`, text: f(sd) })),
    );
  }
  row.append(h('td', { class: 'event', text: tag(game, 'Event') }));
  const choose = () => {
    list.tabGame = index;
    list.onSelect?.(index);
  };
  row.addEventListener('click', choose);
  row.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose();
      return;
    }
    // Roving focus: one Tab stop for the table, the arrow keys move between games (all
    // of them, drawn or not).
    const here = list.rows.findIndex((r) => indexOf(r.game, r.pos) === index);
    const to = { ArrowDown: here + 1, ArrowUp: here - 1, Home: 0, End: list.rows.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    focusAt(list, to);
  });
  return row;
}
