// fairsight: the move map of a report. GPL-3.0-or-later.
//
// renderMoveMap (Burnham's Figure 32): one row per game, one cell per ply, coloured by
// phase (opening, middlegame, decided) with the moves the classifier flagged marked;
// clicking a row opens the game.

import { h, s, svgTitle } from './dom.js';
import { arr, exclusionText, isNum, moveNo, pct, str } from './format.js';

/**
 * The move map (Burnham's Figure 32): one row per game, one cell per ply, coloured by
 * phase — opening (book or early), middlegame (evaluation within ±3 pawns), decided —
 * with the moves the classifier flagged marked. Click a row to open the game.
 */
export function renderMoveMap(container, report, { selected = null, onSelect } = {}) {
  container.replaceChildren();
  const games = arr(report?.games).filter((g) => g && !g.error);
  if (!games.length) return;
  const longest = Math.max(1, ...games.map((g) => arr(g.plies).length));
  const cell = Math.max(3, Math.min(8, Math.floor(760 / longest)));
  const row = 12;
  const labelW = 34;
  const svg = s('svg', {
    class: 'move-map',
    viewBox: `0 0 ${labelW + longest * cell} ${games.length * row}`,
    width: labelW + longest * cell,
    role: 'img',
    'aria-label': `Move map of ${games.length} games: phase of each move and the engine-like ones`,
    focusable: 'false',
  });
  games.forEach((g, r) => {
    const y = r * row;
    const index = isNum(g.index) ? g.index : r;
    const group = s('g', { class: `mm-row${index === selected ? ' selected' : ''}`, 'data-game': index });
    group.append(s('text', { class: 'dc-label', x: labelW - 4, y: y + row - 3, 'text-anchor': 'end', text: String(index + 1) }));
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
        s('rect', { class: cls, x: labelW + i * cell, y: y + 1, width: cell - 0.5, height: row - 2 },
          svgTitle(`Game ${index + 1}, ${moveNo(p)} ${str(p.san)}: ${what}`)),
      );
    });
    group.addEventListener('click', () => onSelect?.(index));
    svg.append(group);
  });
  const flagged = games.reduce((n, g) => n + arr(g.plies).filter((p) => p.engineLike).length, 0);
  container.append(
    h('figure', { class: 'move-map-figure' },
      h('div', { class: 'table-scroll' }, svg),
      h('figcaption', null,
        h('span', { class: 'lg mm-opening', 'aria-hidden': 'true' }), ' opening ',
        h('span', { class: 'lg mm-middle', 'aria-hidden': 'true' }), ' middlegame ',
        h('span', { class: 'lg mm-decided', 'aria-hidden': 'true' }), ' decided ',
        h('span', { class: 'lg mm-flag', 'aria-hidden': 'true' }), ` engine-like (${flagged}) `,
        report?.classifier ? '' : '— no classifier for these settings, so nothing is flagged.')),
  );
}
