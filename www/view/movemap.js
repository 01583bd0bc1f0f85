// fairsight: the move map of a report. GPL-3.0-or-later.
//
// renderMoveMap (Burnham's Figure 32): one row per game, one cell per ply, coloured by
// phase (opening, middlegame, decided) with the moves the classifier flagged marked;
// clicking a row opens the game. The rows are one Tab stop (↑/↓, Home and End move
// between them, Enter or Space opens the game) and 24 px high on a phone or a touch
// screen, so a finger can choose one. The map is as wide as its container, never wider
// (cells narrow for long games and small screens; it is drawn again when the width
// changes), so it never scrolls sideways.

import { h, s, svgTitle } from './dom.js';
import { arr, exclusionText, isNum, moveNo, pct, str } from './format.js';

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
  container.replaceChildren();
  const games = arr(report?.games).filter((g) => g && !g.error);
  if (!games.length) return;
  const longest = Math.max(1, ...games.map((g) => arr(g.plies).length));
  const labelW = 34;
  // Up to 8 px a ply, within the container's width (760 px while it is not laid out).
  const avail = container.clientWidth || labelW + 760;
  const cell = Math.max(0.5, Math.min(8, Math.floor(((avail - labelW) / longest) * 4) / 4));
  // A tap target of at least 24 px where fingers choose.
  const row = matchMedia('(max-width: 600px), (pointer: coarse)').matches ? 24 : 12;

  const svg = s('svg', {
    class: 'move-map',
    viewBox: `0 0 ${labelW + longest * cell} ${games.length * row}`,
    width: labelW + longest * cell,
    role: 'group',
    'aria-label': `Move map of ${games.length} games: phase of each move and the engine-like ones; choose a game`,
  });
  const rows = [];
  games.forEach((g, r) => {
    const y = r * row;
    const index = isNum(g.index) ? g.index : r;
    const flags = arr(g.plies).filter((p) => p.engineLike).length;
    const group = s('g', {
      class: `mm-row${index === selected ? ' selected' : ''}`,
      'data-game': index,
      role: 'button',
      tabindex: -1,
      'aria-label': `Game ${index + 1}: ${arr(g.plies).length} moves, ${flags} engine-like`,
      'aria-current': index === selected ? 'true' : null,
    });
    // The row's whole height is its target (and carries the focus ring).
    group.append(s('rect', { class: 'mm-hit', x: 0, y, width: labelW + longest * cell, height: row }));
    group.append(s('text', { class: 'dc-label', x: labelW - 4, y: y + row / 2 + 4, 'text-anchor': 'end', text: String(index + 1) }));
    arr(g.plies).forEach((p, i) => {
      let cls = 'mm-pending';
      let what = 'not analysed';
      if (p.excluded === 'book' || p.excluded === 'early') {
        cls = 'mm-opening';
        what = 'opening';
      } else if (p.excluded === 'decided') {
        cls = 'mm-decided';
        what = 'decided position';
      } else if (p.searched) {
        cls = 'mm-middle';
        what = 'middlegame';
      } else if (p.excluded) {
        cls = 'mm-other';
        what = exclusionText(p.excluded);
      }
      if (p.engineLike) {
        cls = 'mm-flag';
        what = `engine-like (${pct(p.engineProbability ?? 0)})`;
      }
      group.append(
        s('rect', { class: cls, x: labelW + i * cell, y: y + 1, width: cell > 2 ? cell - 0.5 : cell, height: row - 2 },
          svgTitle(`Game ${index + 1}, ${moveNo(p)} ${str(p.san)}: ${what}`)),
      );
    });
    group.addEventListener('click', () => onSelect?.(index));
    group.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onSelect?.(index);
        return;
      }
      const at = rows.indexOf(group);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
      for (const r of rows) r.setAttribute('tabindex', r === next ? '0' : '-1');
      next.focus();
    });
    rows.push(group);
    svg.append(group);
  });
  // One Tab stop: the row focused before this render, else the selected game's, else the first.
  const current =
    rows.find((r) => r.getAttribute('data-game') === focusRow) ||
    rows.find((r) => r.classList.contains('selected')) ||
    rows[0];
  current?.setAttribute('tabindex', '0');
  const flagged = games.reduce((n, g) => n + arr(g.plies).filter((p) => p.engineLike).length, 0);
  const refocus = focusRow !== null;
  container.append(
    h('figure', { class: 'move-map-figure' },
      h('div', { class: 'move-map-box' }, svg),
      h('figcaption', null,
        h('span', { class: 'lg mm-opening', 'aria-hidden': 'true' }), ' opening ',
        h('span', { class: 'lg mm-middle', 'aria-hidden': 'true' }), ' middlegame ',
        h('span', { class: 'lg mm-decided', 'aria-hidden': 'true' }), ' decided ',
        h('span', { class: 'lg mm-flag', 'aria-hidden': 'true' }), ` engine-like (${flagged}) `,
        report?.classifier ? '' : '— no classifier for these settings, so nothing is flagged.')),
  );
  if (refocus) current?.focus({ preventScroll: true });
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
