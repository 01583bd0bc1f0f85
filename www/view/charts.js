// fairsight: the hand-written SVG charts of the report views. GPL-3.0-or-later.
//
// evalGraph (White's winning chances through the game, with judgements, the current
// move and the most engine-like stretches), competenceChart (Haworth's apparent
// competence of each side through the game), depthChart (the selected move's evaluation
// at each search depth) and rateHistogram (a player's games by classifier positive rate
// against the validation games). Each returns a <figure> with its caption.

import { h, s, svgTitle } from './dom.js';
import {
  arr,
  formatScore,
  isNum,
  judgementOf,
  moveNo,
  num,
  obj,
  str,
  winChance,
} from './format.js';

// The evaluation graph: White's win chance after each move (point 0 is the start).
const G = { w: 600, h: 150, top: 6, bottom: 6 };

export function evalGraph(plies, current, select, game) {
  const n = plies.length;
  const values = [winChance(plies[0]?.eval)];
  for (let k = 0; k < n; k++) {
    values.push(winChance(plies[k]?.playedEval) ?? winChance(plies[k + 1]?.eval));
  }
  const x = (k) => (n ? (k / n) * G.w : 0);
  const y = (v) => G.top + (1 - v / 100) * (G.h - G.top - G.bottom);
  // A slider over the moves for the keyboard (the arrow keys, Home, End, Page Up and
  // Page Down step through them) and for screen readers (the move and its evaluation).
  const cur = plies[current];
  const svg = s('svg', {
    class: 'eval-graph',
    viewBox: `0 0 ${G.w} ${G.h}`,
    preserveAspectRatio: 'none',
    role: 'slider',
    tabindex: n ? 0 : -1,
    'aria-label': "Evaluation graph: White's winning chances after each move; choose a move",
    'aria-orientation': 'horizontal',
    'aria-valuemin': n ? 1 : 0,
    'aria-valuemax': n,
    'aria-valuenow': n ? current + 1 : 0,
    'aria-valuetext': cur
      ? `${moveNo(cur)} ${str(cur.san)} ${formatScore(cur.playedEval ?? plies[current + 1]?.eval ?? null)}`.trim()
      : 'no moves',
  });
  // Left, Right, Home and End step through the game view's own key handler.
  svg.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowUp: current + 1, ArrowDown: current - 1, PageUp: current + 10, PageDown: current - 10 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    select(Math.max(0, Math.min(n - 1, to)));
  });
  svg.append(s('rect', { class: 'eg-bg', x: 0, y: 0, width: G.w, height: G.h }));

  // Runs of known values: White's share as a filled area, and the line over it.
  const runs = [];
  let run = [];
  values.forEach((v, k) => {
    if (v === null) {
      if (run.length) runs.push(run);
      run = [];
    } else {
      run.push([x(k), y(v)]);
    }
  });
  if (run.length) runs.push(run);
  const base = G.h;
  for (const r of runs) {
    const pts = r.length === 1 ? [[r[0][0] - 1, r[0][1]], [r[0][0] + 1, r[0][1]]] : r;
    const line = pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' L');
    // Black's share over the analysed stretch (the rest stays neutral: not analysed).
    svg.append(
      s('rect', { class: 'eg-black', x: pts[0][0], y: 0, width: pts[pts.length - 1][0] - pts[0][0], height: G.h }),
    );
    svg.append(
      s('path', {
        class: 'eg-area',
        d: `M${pts[0][0].toFixed(1)},${base} L${line} L${pts[pts.length - 1][0].toFixed(1)},${base} Z`,
      }),
    );
    svg.append(s('path', { class: 'eg-line', d: `M${line}`, 'vector-effect': 'non-scaling-stroke' }));
  }
  svg.append(
    s('line', { class: 'eg-mid', x1: 0, x2: G.w, y1: y(50), y2: y(50), 'vector-effect': 'non-scaling-stroke' }),
  );

  // Each side's most unusual stretch of engine agreement, marked when significant.
  const stretches = [];
  for (const side of ['white', 'black']) {
    const st = obj(obj(game?.sides?.[side]).stretch);
    if (!isNum(st.fromPly) || !isNum(st.toPly) || !isNum(st.z)) continue;
    stretches.push({ side, ...st });
    if (!(isNum(st.pAdjusted) && st.pAdjusted < 0.05)) continue;
    const from = plies.findIndex((p) => p?.ply === st.fromPly);
    const to = plies.findIndex((p) => p?.ply === st.toPly);
    if (from < 0 || to < 0) continue;
    svg.append(
      s('rect', { class: `eg-stretch eg-stretch-${side}`, x: x(from), y: side === 'white' ? 0 : G.h - 8, width: Math.max(1, x(to + 1) - x(from)), height: 8 }),
    );
  }

  // The current move: the band from the position before it to the one after it.
  if (n) {
    svg.append(s('rect', { class: 'eg-current', x: x(current), y: 0, width: Math.max(1, x(current + 1) - x(current)), height: G.h }));
    svg.append(
      s('line', {
        class: 'eg-current-line',
        x1: x(current + 1),
        x2: x(current + 1),
        y1: 0,
        y2: G.h,
        'vector-effect': 'non-scaling-stroke',
      }),
    );
  }

  // Judgements as ticks (stretching keeps them readable: no circles).
  plies.forEach((p, k) => {
    const j = judgementOf(p);
    const v = values[k + 1];
    if (!j || v === null) return;
    const cx = x(k + 1);
    svg.append(
      s('line', {
        class: `eg-mark mark-${j}`,
        x1: cx,
        x2: cx,
        y1: Math.max(0, y(v) - 10),
        y2: Math.min(G.h, y(v) + 10),
        'vector-effect': 'non-scaling-stroke',
      }),
    );
  });

  // Click targets, one per move, with a tooltip.
  const hits = s('g', { class: 'eg-hits' });
  plies.forEach((p, k) => {
    const r = s(
      'rect',
      { x: x(k), y: 0, width: Math.max(0.5, x(k + 1) - x(k)), height: G.h, 'data-ply': k },
      svgTitle(`${moveNo(p)} ${str(p?.san)} ${formatScore(p?.playedEval ?? plies[k + 1]?.eval ?? null)}`.trim()),
    );
    hits.append(r);
  });
  hits.addEventListener('click', (e) => {
    const k = Number(e.target?.getAttribute?.('data-ply'));
    if (Number.isInteger(k)) select(k, 'view');
  });
  svg.append(hits);
  return h(
    'figure',
    { class: 'eval-figure' },
    svg,
    h(
      'figcaption',
      null,
      "White's winning chances after each move (top: White wins, bottom: Black wins). Click to jump; with the focus on it, the arrow keys step.",
      ...stretches.filter((st) => st.z > 0).map((st) =>
        stretchNote('span', { class: `stretch-note${st.pAdjusted < 0.05 ? ' significant' : ''}` }, ' ', st),
      ),
    ),
  );
}

/** Haworth's apparent competence of each side through the game (posterior mean of c
 * after each analysed move). A sharp rise marks a stretch of engine agreement. */
export function competenceChart(game, plies, current, select) {
  const n = plies.length;
  const W = 600;
  const H = 120;
  const sides = ['white', 'black'].map((side) => {
    const c = obj(obj(game.sides?.[side]).competence);
    const traj = arr(c.trajectory).filter((pt) => Array.isArray(pt) && isNum(pt[0]) && isNum(pt[1]));
    return { side, c, traj };
  });
  const top = Math.max(5, ...sides.flatMap((sd) => sd.traj.map((pt) => pt[1]))) * 1.1;
  const x = (ply) => (n ? (ply / n) * W : 0);
  const y = (v) => 4 + (1 - v / top) * (H - 8);
  const svg = s('svg', {
    class: 'competence-chart',
    viewBox: `0 0 ${W} ${H}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': 'Apparent competence of each side through the game',
    focusable: 'false',
  });
  svg.append(s('rect', { class: 'cc-bg', x: 0, y: 0, width: W, height: H }));
  if (n) {
    svg.append(
      s('line', { class: 'eg-current-line', x1: x(current + 1), x2: x(current + 1), y1: 0, y2: H, 'vector-effect': 'non-scaling-stroke' }),
    );
  }
  for (const { side, traj } of sides) {
    if (!traj.length) continue;
    const pts = traj.map(([ply, v]) => `${x(ply).toFixed(1)},${y(v).toFixed(1)}`).join(' L');
    svg.append(s('path', { class: `cc-line cc-${side}`, d: `M${pts}`, 'vector-effect': 'non-scaling-stroke' }));
  }
  const hits = s('g', { class: 'eg-hits' });
  plies.forEach((p, k) => {
    hits.append(s('rect', { x: x(k), y: 0, width: Math.max(0.5, x(k + 1) - x(k)), height: H, 'data-ply': k }));
  });
  hits.addEventListener('click', (e) => {
    const k = Number(e.target?.getAttribute?.('data-ply'));
    if (Number.isInteger(k)) select(k, 'view');
  });
  svg.append(hits);
  const summary = sides.map(({ side, c }) =>
    isNum(c.mean)
      ? `${side === 'white' ? 'White' : 'Black'} c = ${num(c.mean)} (90%: ${num(c.low)}–${num(c.high)}, ${c.moves} moves)`
      : `${side === 'white' ? 'White' : 'Black'}: no analysed moves`,
  );
  return h(
    'figure',
    { class: 'competence-figure' },
    svg,
    h(
      'figcaption',
      null,
      h('span', { class: 'cc-key cc-key-white', text: 'White' }),
      ' ',
      h('span', { class: 'cc-key cc-key-black', text: 'Black' }),
      ` Apparent competence c (Haworth's reference fallible player; 0 = random, higher = closer to the engine) after each analysed move, 0–${num(top, 0)}. A sharp rise marks a stretch of engine agreement. ${summary.join(' · ')}.`,
    ),
  );
}

const TREND_TEXT = {
  ascending: 'ascending (the engine came to like the move with depth)',
  descending: 'descending (the engine liked it less with depth)',
  other: 'flat or no clear trend',
};

// The per-depth chart: the played move's evaluation at each depth (mover's view).
const D = { w: 420, h: 190, left: 44, right: 16, top: 14, bottom: 30 };

export function depthChart(p) {
  const evals = arr(p.depthEvals);
  const best = arr(p.depthBest);
  const depth = Math.max(evals.length, best.length);
  if (!depth) return null;
  const clip = (v) => Math.max(-1000, Math.min(1000, v));
  const known = evals.filter(isNum).map(clip);
  let lo = Math.min(0, ...known);
  let hi = Math.max(0, ...known);
  if (hi - lo < 100) {
    const mid = (hi + lo) / 2;
    lo = Math.min(lo, mid - 50);
    hi = Math.max(hi, mid + 50);
  }
  const pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;
  const pw = D.w - D.left - D.right;
  const ph = D.h - D.top - D.bottom;
  const x = (d) => D.left + (depth === 1 ? pw / 2 : ((d - 1) / (depth - 1)) * pw);
  const y = (v) => D.top + ((hi - clip(v)) / (hi - lo)) * ph;

  const svg = s('svg', {
    class: 'depth-chart',
    viewBox: `0 0 ${D.w} ${D.h}`,
    role: 'img',
    'aria-label': `The played move's evaluation at each search depth from 1 to ${depth}`,
    focusable: 'false',
  });
  svg.append(s('rect', { class: 'dc-bg', x: D.left, y: D.top, width: pw, height: ph }));

  // Axes: the zero line, the pawn ticks, the depths.
  const tickStep = niceStep((hi - lo) / 100 / 4);
  for (let t = Math.ceil(lo / 100 / tickStep) * tickStep; t <= hi / 100 + 1e-9; t += tickStep) {
    const ty = y(t * 100);
    const zero = Math.abs(t) < 1e-9;
    svg.append(s('line', { class: zero ? 'dc-zero' : 'dc-grid', x1: D.left, x2: D.w - D.right, y1: ty, y2: ty }));
    svg.append(
      s('text', { class: 'dc-label', x: D.left - 6, y: ty + 4, 'text-anchor': 'end', text: zero ? '0' : `${t > 0 ? '+' : ''}${+t.toFixed(2)}` }),
    );
  }
  const labelEvery = depth > 24 ? 4 : depth > 12 ? 2 : 1;
  for (let d = 1; d <= depth; d++) {
    if ((d - 1) % labelEvery !== 0 && d !== depth) continue;
    svg.append(s('text', { class: 'dc-label', x: x(d), y: D.h - D.bottom + 14, 'text-anchor': 'middle', text: String(d) }));
  }
  svg.append(s('text', { class: 'dc-axis', x: D.left + pw / 2, y: D.h - 3, 'text-anchor': 'middle', text: 'depth' }));

  // Where the engine's best move changed.
  for (let d = 2; d <= best.length; d++) {
    if (best[d - 1] && best[d - 2] && best[d - 1] !== best[d - 2]) {
      svg.append(
        s('line', { class: 'dc-change', x1: x(d), x2: x(d), y1: D.top, y2: D.top + ph },
          svgTitle(`Depth ${d}: the engine's best move changed from ${str(best[d - 2])} to ${str(best[d - 1])}`)),
      );
    }
  }

  // The line, broken where the move was not among the lines.
  let seg = [];
  const flush = () => {
    if (seg.length > 1) svg.append(s('polyline', { class: 'dc-line', points: seg.join(' ') }));
    seg = [];
  };
  for (let d = 1; d <= depth; d++) {
    const v = evals[d - 1];
    if (isNum(v)) seg.push(`${x(d).toFixed(1)},${y(v).toFixed(1)}`);
    else flush();
  }
  flush();
  for (let d = 1; d <= depth; d++) {
    const v = evals[d - 1];
    if (!isNum(v)) continue;
    const top = best[d - 1] && best[d - 1] === p.uci;
    const text = `Depth ${d}: ${formatScore({ cp: v })}${Math.abs(v) >= 1000 ? ' (mate)' : ''}${top ? ", the engine's best move" : ''}`;
    svg.append(s('circle', { class: top ? 'dc-dot top' : 'dc-dot', cx: x(d), cy: y(v), r: 4 }, svgTitle(text)));
  }

  const legend = h(
    'ul',
    { class: 'dc-legend' },
    h('li', null, h('span', { class: 'lg lg-top', 'aria-hidden': 'true' }), "engine's best at that depth"),
    h('li', null, h('span', { class: 'lg lg-other', 'aria-hidden': 'true' }), 'another move was best'),
    h('li', null, h('span', { class: 'lg lg-change', 'aria-hidden': 'true' }), 'best move changed'),
  );
  const missing = evals.length - evals.filter(isNum).length;
  return h(
    'figure',
    { class: 'depth-figure' },
    svg,
    h(
      'figcaption',
      null,
      `The played move's evaluation by search depth, in pawns from ${p.side === 'black' ? 'Black' : 'White'}'s point of view (the mover's)${
        missing ? '; gaps where it was not among the engine lines' : ''
      }.${TREND_TEXT[p.trend] ? ` Trend: ${TREND_TEXT[p.trend]}.` : ''}`,
      legend,
    ),
  );
}

function niceStep(raw) {
  const steps = [0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10];
  return steps.find((st) => st >= raw) ?? 10;
}

/**
 * The player's games by classifier positive rate, against the human and engine game
 * sides the model was validated on (report.classifierBaseline): where this player's
 * games fall among honest ones.
 */
export function rateHistogram(p, report) {
  const base = obj(report?.classifierBaseline);
  const edges = arr(base.edges);
  const rates = arr(p.gamePositiveRates).filter(isNum);
  if (!edges.length || !rates.length) return null;
  const bins = edges.length;
  const mine = new Array(bins).fill(0);
  for (const r of rates) mine[Math.min(bins - 1, Math.max(0, edges.findIndex((e) => r < e || e >= 1)))] += 1;
  const share = (xs) => {
    const total = arr(xs).reduce((a, b) => a + (isNum(b) ? b : 0), 0);
    return arr(xs).map((x) => (total ? x / total : 0));
  };
  const series = [
    ['human', share(base.human), 'human game sides (validation)'],
    ['engine', share(base.engine), 'engine game sides (validation)'],
    ['player', share(mine), `${str(p.name)}'s games`],
  ];
  const W = 300;
  const H = 110;
  const top = 8;
  const bottom = 22;
  const left = 8;
  const bw = (W - 2 * left) / bins;
  const max = Math.max(0.01, ...series.flatMap((x) => x[1]));
  const svg = s('svg', {
    class: 'rate-hist',
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Positive rates of ${str(p.name)}'s ${rates.length} games against the baseline`,
    focusable: 'false',
  });
  series.forEach(([cls, vals, label], k) => {
    vals.forEach((v, b) => {
      const hgt = (v / max) * (H - top - bottom);
      const lo = b === 0 ? 0 : edges[b - 1];
      svg.append(
        s('rect', { class: `rh-${cls}`, x: left + b * bw + 1 + k * ((bw - 2) / 3), y: H - bottom - hgt, width: (bw - 2) / 3, height: hgt },
          svgTitle(`${label}: ${(v * 100).toFixed(0)}% with a positive rate of ${Math.round(lo * 100)}–${Math.round(edges[b] * 100)}%`)),
      );
    });
  });
  for (const b of [0, bins / 2, bins]) {
    const at = b === 0 ? 0 : edges[b - 1];
    svg.append(s('text', { class: 'dc-label', x: left + b * bw, y: H - 6, 'text-anchor': b === 0 ? 'start' : b === bins ? 'end' : 'middle', text: `${Math.round(at * 100)}%` }));
  }
  return h(
    'figure',
    { class: 'rate-figure' },
    svg,
    h('figcaption', null,
      `Share of good moves flagged engine-like, per game: ${str(p.name)} (${rates.length} game${rates.length === 1 ? '' : 's'}) against the model's validation games, `,
      h('span', { class: 'lg rh-human', 'aria-hidden': 'true' }), ' human sides, ',
      h('span', { class: 'lg rh-engine', 'aria-hidden': 'true' }), ' engine sides, ',
      h('span', { class: 'lg rh-player', 'aria-hidden': 'true' }), ' this player.'),
  );
}

/** How often chance alone gives a stretch like this one, in words. */
function chanceWords(p) {
  if (p >= 0.5) return 'chance alone gives a stretch like this in most games';
  if (p < 0.001) return 'chance alone gives a stretch like this in fewer than 1 game in 1,000';
  const share = p < 0.1 ? (p * 100).toFixed(1) : String(Math.round(p * 100));
  return `chance alone gives a stretch like this in ${share}% of games`;
}

/**
 * A side's most engine-like stretch in plain words first (which plies, how many of the
 * engine's first choices against how many a player of this strength would find, how
 * often chance alone does as well), then the statistics as details.
 */
export function stretchWords(st) {
  const side = st.side === 'white' ? 'White' : 'Black';
  return `${side}'s most engine-like stretch: plies ${st.fromPly}–${st.toPly}, ${st.matches} of ${st.moves} moves were the engine's first choice where about ${num(st.expected)} were expected; ${chanceWords(st.pAdjusted)}${st.pAdjusted < 0.05 ? ' (marked on the graph)' : ''}.`;
}

/** The stretch's statistics, for the details line under its words. */
export function stretchNumbers(st) {
  return `z = ${num(st.z, 2)}, p = ${num(st.pAdjusted, 3)} after ${st.windows} windows`;
}

/** A stretch as the page shows it: the words, then the statistics in a smaller line. */
export function stretchNote(tag, attrs, prefix, st) {
  return h(tag, attrs, `${prefix}${stretchWords(st)}`, h('span', { class: 'stretch-numbers', text: stretchNumbers(st) }));
}
