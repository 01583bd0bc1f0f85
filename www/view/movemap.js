// fairsight: the move map of a report. GPL-3.0-or-later.
//
// renderMoveMap (Burnham's Figure 32): one row per game, one cell per ply, coloured by
// phase (opening, middlegame, decided) with the moves the classifier flagged marked;
// clicking a row opens the game. The rows are one Tab stop (↑/↓, Home and End move
// between them, Enter or Space opens the game) and 24 px high on a phone or a touch
// screen, so a finger can choose one. The map is as wide as its container, never wider
// (cells narrow for long games and small screens; it is drawn again when the width
// changes), so it never scrolls sideways.
//
// The map is virtualised (thousands of games): it scrolls in a box of bounded height and
// only the rows in view, and a few more, are in the DOM; the SVG keeps the height of all
// rows. A row is drawn from the game's light row (report-store.js: one character a ply),
// its plies of one phase in a row as one rectangle.

import { h, s, svgTitle } from './dom.js';
import { MAP, lightGame } from '../report-store.js';
import { exclusionText, isNum, moveNo, pct } from './format.js';

// Rows drawn beyond those in view, above and below.
const OVERSCAN = 10;

const CLASS = {
  [MAP.pending]: ['mm-pending', 'not analysed'],
  [MAP.opening]: ['mm-opening', 'opening'],
  [MAP.middle]: ['mm-middle', 'middlegame'],
  [MAP.decided]: ['mm-decided', 'decided position'],
  [MAP.other]: ['mm-other', null],
  [MAP.flag]: ['mm-flag', null],
};

/** A game's phases, one character a ply (from its light row, or from its plies). */
const mapOf = (g) => (typeof g.map === 'string' ? g : lightGame(g) || { map: '' });

/** The `i`-th ply's number and side (`8.`, `8…`) from the game's first ply. */
function plyNo(g, i) {
  const [n0, side0] = Array.isArray(g.first) ? g.first : [1, 'white'];
  const k = (side0 === 'black' ? 1 : 0) + i;
  return moveNo({ moveNumber: isNum(n0) ? n0 + Math.floor(k / 2) : undefined, side: k % 2 ? 'black' : 'white' });
}

// Per container: the map drawn (its games, geometry, window and Tab stop).
const maps = new WeakMap();

/**
 * The move map (Burnham's Figure 32): one row per game, one cell per ply, coloured by
 * phase — opening (book or early), middlegame (evaluation within ±3 pawns), decided —
 * with the moves the classifier flagged marked. Click a row to open the game.
 */
export function renderMoveMap(container, report, opts = {}) {
  const { selected = null, onSelect } = opts;
  watchWidth(container, () => renderMoveMap(container, report, opts));
  const active = document.activeElement;
  const focusRow = container.contains(active) ? active.getAttribute?.('data-game') : null;
  const prev = maps.get(container);
  maps.delete(container);
  container.replaceChildren();
  const games = (Array.isArray(report?.games) ? report.games : []).filter((g) => g && !g.error).map((g, r) => ({
    ...mapOf(g),
    index: isNum(g.index) ? g.index : r,
  }));
  if (!games.length) return;
  const longest = Math.max(1, ...games.map((g) => g.map.length));
  const labelW = 34;
  // Up to 8 px a ply, within the container's width (760 px while it is not laid out).
  const avail = container.clientWidth || labelW + 760;
  const cell = Math.max(0.5, Math.min(8, Math.floor(((avail - labelW) / longest) * 4) / 4));
  // A tap target of at least 24 px where fingers choose.
  const row = matchMedia('(max-width: 600px), (pointer: coarse)').matches ? 24 : 12;
  const width = labelW + longest * cell;

  const svg = s('svg', {
    class: 'move-map',
    viewBox: `0 0 ${width} ${games.length * row}`,
    width,
    role: 'group',
    'aria-label': `Move map of ${games.length} games: phase of each move and the engine-like ones; choose a game`,
  });
  const box = h('div', { class: 'move-map-box' }, svg);
  let flagged = 0;
  for (const g of games) for (let i = 0; i < g.map.length; i++) if (g.map.charCodeAt(i) === 102) flagged++;
  const same = prev && prev.games.length === games.length && prev.row === row;
  const map = {
    games,
    svg,
    box,
    row,
    cell,
    labelW,
    width,
    selected,
    onSelect,
    start: 0,
    end: 0,
    // One Tab stop: the row focused before this render, else the selected game's, else the first.
    tabGame: [focusRow === null ? null : Number(focusRow), same ? prev.tabGame : null, selected].find(
      (g) => g !== null && games.some((x) => x.index === g),
    ) ?? games[0].index,
  };
  maps.set(container, map);
  container.append(
    h('figure', { class: 'move-map-figure' },
      box,
      h('figcaption', null,
        h('span', { class: 'lg mm-opening', 'aria-hidden': 'true' }), ' opening ',
        h('span', { class: 'lg mm-middle', 'aria-hidden': 'true' }), ' middlegame ',
        h('span', { class: 'lg mm-decided', 'aria-hidden': 'true' }), ' decided ',
        h('span', { class: 'lg mm-flag', 'aria-hidden': 'true' }), ` engine-like (${flagged}) `,
        report?.classifier ? '' : '— no classifier for these settings, so nothing is flagged.')),
  );
  if (same) box.scrollTop = prev.scrollTop ?? 0;
  draw(map, true);
  let frame = 0;
  box.addEventListener('scroll', () => {
    map.scrollTop = box.scrollTop;
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        draw(map);
      });
    }
  }, { passive: true });
  if (focusRow !== null) svg.querySelector(`g.mm-row[data-game="${CSS.escape(focusRow)}"]`)?.focus({ preventScroll: true });
}

/**
 * Marks `selected` as the shown game in the map drawn in the container, without building
 * it again. Returns false when no map is drawn there.
 */
export function selectInMoveMap(container, selected) {
  const map = maps.get(container);
  if (!map) return false;
  map.selected = selected;
  if (map.games.some((g) => g.index === selected)) map.tabGame = selected;
  draw(map, true);
  return true;
}

/** Puts in the SVG the rows in view and OVERSCAN either side. */
function draw(map, force = false) {
  const { games, svg, box, row } = map;
  const n = games.length;
  const view = box.clientHeight || Math.min(n * row, innerHeight);
  const first = Math.min(n - 1, Math.max(0, Math.floor(box.scrollTop / row)));
  const start = Math.max(0, first - OVERSCAN);
  const end = Math.min(n, first + Math.ceil(view / row) + 1 + OVERSCAN);
  if (!force && start === map.start && end === map.end) return;
  const active = document.activeElement;
  const refocus = svg.contains(active) ? active.getAttribute('data-game') : null;
  const rows = [];
  for (let r = start; r < end; r++) rows.push(rowOf(map, games[r], r));
  svg.replaceChildren(...rows);
  map.start = start;
  map.end = end;
  if (!svg.querySelector('g.mm-row[tabindex="0"]')) rows[0]?.setAttribute('tabindex', '0');
  if (refocus !== null) svg.querySelector(`g.mm-row[data-game="${CSS.escape(refocus)}"]`)?.focus({ preventScroll: true });
}

/** One game's row: its number, and a rectangle for each run of plies of one phase (each flagged ply its own). */
function rowOf(map, g, r) {
  const { row, cell, labelW, width, selected } = map;
  const y = r * row;
  const index = g.index;
  const plies = g.map.length;
  let flags = 0;
  for (let i = 0; i < plies; i++) if (g.map.charCodeAt(i) === 102) flags++;
  const group = s('g', {
    class: `mm-row${index === selected ? ' selected' : ''}`,
    'data-game': index,
    role: 'button',
    tabindex: index === map.tabGame ? 0 : -1,
    'aria-label': `Game ${index + 1}: ${plies} moves, ${flags} engine-like`,
    'aria-current': index === selected ? 'true' : null,
  });
  // The row's whole height is its target (and carries the focus ring).
  group.append(s('rect', { class: 'mm-hit', x: 0, y, width, height: row }));
  group.append(s('text', { class: 'dc-label', x: labelW - 4, y: y + row / 2 + 4, 'text-anchor': 'end', text: String(index + 1) }));
  for (let i = 0; i < plies; ) {
    const c = g.map[i];
    const reason = c === MAP.other ? g.reasons?.[i] : undefined;
    let j = i + 1;
    if (c !== MAP.flag) while (j < plies && g.map[j] === c && (c !== MAP.other || g.reasons?.[j] === reason)) j++;
    const [cls, what0] = CLASS[c] || CLASS[MAP.pending];
    const what = c === MAP.flag ? `engine-like (${pct(g.probs?.[i] ?? 0)})` : c === MAP.other ? exclusionText(reason) : what0;
    const span = j - i === 1 ? plyNo(g, i) : `${plyNo(g, i)} to ${plyNo(g, j - 1)}`;
    const w = (j - i) * cell;
    group.append(
      s('rect', { class: cls, x: labelW + i * cell, y: y + 1, width: cell > 2 ? w - 0.5 : w, height: row - 2 },
        svgTitle(`Game ${index + 1}, ${span}: ${what}`)),
    );
    i = j;
  }
  group.addEventListener('click', () => {
    map.tabGame = index;
    map.onSelect?.(index);
  });
  group.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      map.tabGame = index;
      map.onSelect?.(index);
      return;
    }
    const to = { ArrowDown: r + 1, ArrowUp: r - 1, Home: 0, End: map.games.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    focusAt(map, to);
  });
  return group;
}

/** The game at map position `r`, scrolled into the box's view, drawn and focused. */
function focusAt(map, r) {
  const at = Math.max(0, Math.min(map.games.length - 1, r));
  const { box, row } = map;
  map.tabGame = map.games[at].index;
  const top = at * row;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (top + row > box.scrollTop + box.clientHeight) box.scrollTop = top + row - box.clientHeight;
  map.scrollTop = box.scrollTop;
  draw(map, true);
  for (const g of map.svg.querySelectorAll('g.mm-row')) g.setAttribute('tabindex', Number(g.dataset.game) === map.tabGame ? '0' : '-1');
  map.svg.querySelector(`g.mm-row[data-game="${map.tabGame}"]`)?.focus();
}

// Per container: its ResizeObserver and the width it was drawn for.
const watched = new WeakMap();

/** Calls `redraw` (the latest one given) when the container's width changes. */
function watchWidth(container, redraw) {
  let w = watched.get(container);
  if (!w) {
    w = { width: container.clientWidth, redraw };
    watched.set(container, w);
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        const width = container.clientWidth;
        if (Math.abs(width - w.width) < 1) return;
        w.width = width;
        w.redraw();
      }).observe(container);
    }
  }
  w.redraw = redraw;
  w.width = container.clientWidth;
}
