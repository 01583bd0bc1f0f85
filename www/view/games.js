// fairsight: the game list of a report. GPL-3.0-or-later.
//
// renderGameList: the table of games, one row per game with its players, result, event
// and each side's accuracy, ACPL, top-move match rate and engine score; a game that
// could not be imported shows its error instead. Selecting a row (click, Enter or
// Space) opens the game.

import { h } from './dom.js';
import { arr, isNum, num, obj, pct, result, str, tag } from './format.js';

/** What the report's engine score is: the classifier's, or the fallback without one. */
function engineScoreMeaning(report) {
  if (report?.assessment) return 'probability of engine assistance (the assessment)';
  return report?.classifier
    ? 'mean engine probability of the move classifier'
    : 'match rate × accuracy / 100 (no move classifier for these settings)';
}

const SIDE_COLS = [
  ['Accuracy', 'Accuracy (%)', (sd) => num(sd.accuracy)],
  ['ACPL', 'Average centipawn loss', (sd) => num(sd.acpl)],
  ['Match', 'Top-move match rate', (sd) => pct(sd.matchRate)],
  ['Engine', 'Engine score (0 to 1)', (sd) => num(sd.engineScore, 2)],
];

/**
 * The table of games. `onSelect(gameIndex)` is called when an imported game's row is
 * clicked (or activated with Enter/Space); `selected` is the shown game's index.
 */
export function renderGameList(container, report, { selected = null, onSelect } = {}) {
  const hadFocus = container.contains(document.activeElement);
  container.replaceChildren();
  const games = arr(report?.games);
  if (!games.length) {
    container.append(h('p', { class: 'empty', text: 'No games.' }));
    return;
  }
  const headTop = h(
    'tr',
    null,
    h('th', { scope: 'col', rowspan: 2, class: 'num', text: '#' }),
    h('th', { scope: 'col', rowspan: 2, text: 'White' }),
    h('th', { scope: 'col', rowspan: 2, text: 'Black' }),
    h('th', { scope: 'col', rowspan: 2, text: 'Result' }),
    h('th', { scope: 'col', rowspan: 2, text: 'Event' }),
    h('th', { scope: 'colgroup', colspan: 4, class: 'group', text: 'White' }),
    h('th', { scope: 'colgroup', colspan: 4, class: 'group', text: 'Black' }),
  );
  const headSub = h('tr', null);
  for (const side of ['white', 'black']) {
    SIDE_COLS.forEach(([label, long0], i) => {
      const long = label === 'Engine' ? `${long0}: ${engineScoreMeaning(report)}` : long0;
      headSub.append(
        h('th', { scope: 'col', class: `num${i === 0 ? ' group-start' : ''}`, title: `${long}, ${side}` },
          h('abbr', { title: long, text: label })),
      );
    });
  }
  const body = h('tbody');
  games.forEach((game, pos) => {
    if (!game) return;
    const index = isNum(game.index) ? game.index : pos;
    const numCell = h('td', { class: 'num', text: String(index + 1) });
    if (game.error) {
      body.append(
        h('tr', { class: 'error' }, numCell,
          h('td', { colspan: 12 }, h('span', { class: 'error-label', text: 'Not imported: ' }), str(game.error))),
      );
      return;
    }
    const sides = obj(game.sides);
    const row = h(
      'tr',
      { class: 'game-row', tabindex: 0, 'data-game': index },
      numCell,
      h('td', { class: 'name', text: tag(game, 'White') || str(obj(sides.white).player) || '?' }),
      h('td', { class: 'name', text: tag(game, 'Black') || str(obj(sides.black).player) || '?' }),
      h('td', { class: 'result', text: result(game) }),
      h('td', { class: 'event', text: tag(game, 'Event') }),
    );
    for (const side of ['white', 'black']) {
      const sd = obj(sides[side]);
      SIDE_COLS.forEach(([, , f], i) =>
        row.append(h('td', { class: `num${i === 0 ? ' group-start' : ''}`, text: f(sd) })),
      );
    }
    if (index === selected) {
      row.classList.add('selected');
      row.setAttribute('aria-current', 'true');
    }
    const choose = () => onSelect?.(index);
    row.addEventListener('click', choose);
    row.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        choose();
      }
    });
    body.append(row);
  });
  const table = h(
    'table',
    { class: 'games-table' },
    h('caption', { class: 'visually-hidden', text: 'Games: select one to review it' }),
    h('thead', null, headTop, headSub),
    body,
  );
  container.append(h('div', { class: 'table-scroll' }, table));
  if (hadFocus) body.querySelector('tr.selected')?.focus({ preventScroll: true });
}
