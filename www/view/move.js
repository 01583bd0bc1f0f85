// fairsight: the selected move's panel. GPL-3.0-or-later.
//
// movePanel: the move with its judgement and badges, the facts about it (played and
// best move with their scores, losses, rank, alternatives, the single-line screening
// bits, engine probability, time), its PGN annotations and comments, the table of
// engine lines and the per-depth chart (charts.js). One point of view throughout: the
// mover's (the report's scores are White's; the per-depth values already the mover's),
// said once at the top of the panel.

import { fact, h } from './dom.js';
import { infoLabel } from './explain.js';
import {
  DASH,
  commentText,
  JUDGEMENT_LABEL,
  moveMark,
  nagText,
  arr,
  duration,
  exclusionText,
  formatScore,
  isNum,
  judgementOf,
  moveNo,
  num,
  obj,
  pct,
  pvText,
  str,
} from './format.js';
import { depthChart } from './charts.js';

/** A White-POV score `{cp}` / `{mate}` from the mover's side (`side`: 'white' or 'black'). */
export function moverScore(score, side) {
  if (!score || typeof score !== 'object' || side !== 'black') return score ?? null;
  if (isNum(score.mate)) return { mate: -score.mate };
  if (isNum(score.cp)) return { cp: -score.cp };
  return score;
}

/** A metric's label with its "what it means" button. */
const label = (text, key) => infoLabel(text, key);

export function movePanel(report, game, plies, i) {
  const p = plies[i] || {};
  const j = judgementOf(p);
  const nag = moveMark(p, j);
  const heading = h(
    'h3',
    null,
    h('span', { class: 'san' }, `${moveNo(p)} ${str(p.san)}`, nag ? h('span', { class: 'nag', text: nag }) : null),
  );
  if (j) heading.append(' ', h('span', { class: `badge badge-${j}`, text: JUDGEMENT_LABEL[j] }));
  if (p.betterThanEngine) heading.append(' ', h('span', { class: 'badge badge-better', text: 'Better than engine' }));
  if (p.engineLike) {
    const prob = isNum(p.engineProbability) ? ` (${pct(p.engineProbability)})` : '';
    heading.append(' ', h('span', { class: 'badge badge-engine-like', text: `Engine-like${prob}` }));
  }
  if (p.isBest) heading.append(' ', h('span', { class: 'badge badge-best', text: "Engine's choice" }));
  if (p.excluded) heading.append(' ', h('span', { class: 'badge badge-excluded', text: 'Not counted' }));
  const panel = h('section', { class: 'move-panel', 'aria-label': 'Selected move' }, heading);
  const mover = p.side === 'black' ? 'Black' : 'White';
  panel.append(
    h('p', {
      class: 'pov-note',
      text: `Scores here are from ${mover}'s point of view, the side that moved: + is good for ${mover}.`,
    }),
  );

  const multipv = obj(report?.settings).multipv;
  const searched = p.searched === true;
  if (!searched && !p.excluded) {
    panel.append(h('p', { class: 'pending-note', text: 'This position has not been analysed yet.' }));
  }
  const dl = h('dl', { class: 'facts' });
  const played = [str(p.san)];
  const pe = formatScore(moverScore(p.playedEval ?? null, p.side));
  if (pe) played.push(' ', h('span', { class: 'score', text: `(${pe})` }));
  fact(dl, 'Played', played);
  if (p.bestSan || p.best) {
    const be = formatScore(moverScore(p.eval ?? null, p.side));
    fact(dl, "Engine's best", [str(p.bestSan || p.best), be ? ' ' : '', be ? h('span', { class: 'score', text: `(${be})` }) : null]);
  }
  if (isNum(p.cpLoss)) fact(dl, label('Centipawn loss', 'cpLoss'), String(p.cpLoss));
  if (isNum(p.winLoss)) fact(dl, label('Win-% loss', 'winLoss'), num(p.winLoss));
  if (isNum(p.accuracy)) fact(dl, label('Move accuracy', 'moveAccuracy'), `${num(p.accuracy)}%`);
  if (searched) {
    const lines = arr(p.lines).length;
    fact(
      dl,
      label('Rank', 'rank'),
      isNum(p.rank)
        ? `${p.rank} of ${lines || multipv || '?'}`
        : `outside the top ${lines || multipv || ''} lines`.replace('  ', ' '),
    );
  }
  if (isNum(p.alternatives)) fact(dl, label('Good alternatives', 'alternatives'), String(p.alternatives));
  if (typeof p.onlyMove === 'boolean') fact(dl, label('Only move', 'onlyMove'), p.onlyMove ? 'yes' : 'no');
  if (searched && isNum(p.bestChanges)) fact(dl, label('Best-move changes', 'bestChanges'), String(p.bestChanges));
  if (searched) fact(dl, label('Engine choice from depth', 'stableFrom'), isNum(p.stableFrom) ? String(p.stableFrom) : DASH);
  if (p.betterThanEngine) fact(dl, label('Better than engine', 'betterThanEngine'), 'yes');
  const z = p.screening && typeof p.screening === 'object' ? p.screening : null;
  if (z) {
    const d = isNum(z.delta) ? z.delta.toFixed(2) : 'NaN';
    const key = z.matchType === 'full' || z.matchType === 'main' ? 'delta' : 'delta2';
    fact(
      dl,
      label('Screening (Regan)', 'screening'),
      `${str(z.bits)} ${str(z.matchType).toUpperCase()} MATCH, ${key} = ${d}`,
      'wide',
    );
    fact(dl, 'Single-line choice by depth', screeningChoices(p, z), 'wide');
  }
  if (isNum(p.engineProbability)) fact(dl, label('Engine probability', 'engineProbability'), pct(p.engineProbability));
  if (isNum(p.timeSpent)) fact(dl, 'Time spent', duration(p.timeSpent, true));
  if (isNum(p.clock)) fact(dl, 'Clock after', duration(p.clock));
  if (p.excluded) fact(dl, 'Not counted', exclusionText(p.excluded), 'excluded-fact');
  const nags = arr(p.nags).map(nagText);
  if (nags.length) fact(dl, 'PGN annotation', nags.join(' '));
  if (dl.childElementCount) panel.append(dl);
  for (const c of arr(p.comments)) {
    const text = commentText(c);
    if (text) panel.append(h('p', { class: 'comment', text }));
  }

  const body = h('div', { class: 'panel-grid' });
  const lines = linesTable(p);
  if (lines) body.append(lines);
  const chart = depthChart(p);
  if (chart) body.append(chart);
  if (body.childElementCount) panel.append(body);
  return panel;
}

/** The single-line search's choice at each depth from dmin, in SAN where the lines
 *  know it. */
function screeningChoices(p, z) {
  const san = new Map(arr(p.lines).map((l) => [l.uci, l.san]));
  san.set(p.uci, p.san);
  const from = isNum(z.minDepth) ? z.minDepth : 1;
  return arr(z.slmBest)
    .map((m, k) => [k + 1, m])
    .filter(([d]) => d >= from)
    .map(([d, m]) => `${d}: ${str(san.get(m) || m)}`)
    .join(' · ');
}

function linesTable(p) {
  const lines = arr(p.lines).filter((l) => l && typeof l === 'object');
  if (!lines.length) return null;
  const body = h('tbody');
  lines.forEach((l, k) => {
    const isPlayed = l.uci && l.uci === p.uci;
    body.append(
      h(
        'tr',
        { class: isPlayed ? 'played' : null },
        h('td', { class: 'num', text: String(isNum(l.multipv) ? l.multipv : k + 1) }),
        h('td', { class: 'num score', text: formatScore(moverScore(l.score, p.side)) || DASH }),
        h('td', { class: 'num', text: isNum(l.depth) ? String(l.depth) : DASH }),
        h('td', { class: 'pv' }, pvText(p, arr(l.pvSan).length ? l.pvSan : [l.san || l.uci]),
          isPlayed ? h('span', { class: 'played-tag', text: ' played' }) : null),
      ),
    );
  });
  return h(
    'div',
    { class: 'lines-box table-scroll' },
    h(
      'table',
      { class: 'lines-table' },
      h('caption', { text: `Engine lines (scores from ${p.side === 'black' ? 'Black' : 'White'}'s point of view, the mover's)` }),
      h(
        'thead',
        null,
        h('tr', null,
          h('th', { scope: 'col', class: 'num', text: '#' }),
          h('th', { scope: 'col', class: 'num', text: 'Score' }),
          h('th', { scope: 'col', class: 'num', text: 'Depth' }),
          h('th', { scope: 'col', text: 'Line' })),
      ),
      body,
    ),
  );
}
