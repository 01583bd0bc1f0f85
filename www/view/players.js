// fairsight: the summary and the player panels of a report. GPL-3.0-or-later.
//
// renderSummary: the answer first, one row per player with the assessment's level, the
// probability of engine assistance, the moves behind it and what it means; the player
// table of a triage (its columns sort, a name shows that player's games).
// renderPlayers: one card per player aggregated over all games, with the assessment and
// its reasons, the statistics (accuracy, ACPL, match rate, judgements, engine score
// bar, time use) and the advanced ones (Regan, IPR, Haworth, classifier, screening
// matches, verdict), the positive-rate histogram (charts.js) and the moves that drove
// the assessment.

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
  str,
  tag,
} from './format.js';
import { rateHistogram } from './charts.js';

// ---------------------------------------------------------------- summary

// The summary's sortable columns: [key, label, class, sort value, descending first].
const SUMMARY_COLS = [
  ['level', 'Level', '', (p) => {
    const a = assessmentOf(p);
    return a && isNum(a.probability) ? levelRank(a.level) * 10 + a.probability : null;
  }, true],
  ['player', 'Player', '', (p) => (str(p.name) || '?').toLowerCase(), false],
  ['probability', 'Engine assistance', 'num', (p) => assessmentOf(p)?.probability ?? null, true],
  ['moves', 'Moves', 'num', (p) => (isNum(p.analysedPlies) ? p.analysedPlies : null), true],
];

const assessmentOf = (p) => (p.assessment && typeof p.assessment === 'object' ? p.assessment : null);

/** The players in `sort` order ({key, dir}), a missing value last, ties in report order. */
function sortedPlayers(players, sort) {
  const col = SUMMARY_COLS.find((c) => c[0] === sort?.key);
  if (!col) return players;
  const sign = sort.dir === 'descending' ? -1 : 1;
  const rows = players.map((p, i) => ({ p, i, v: col[3](p) }));
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
 * what it means (the strongest reason, or why there is none; the hint). The columns
 * sort (`sort` = {key, dir}, `onSort(sort)` asks for another, `aria-sort` on the sorted
 * one); a player's name is a button, `onPlayer(name)` (the page filters the games).
 */
export function renderSummary(container, report, { sort = null, onSort, onPlayer } = {}) {
  const active = document.activeElement;
  const focusSort = container.contains(active) ? active.getAttribute?.('data-sort') : null;
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
    head.append(h('th', { scope: 'col', class: cls || null, 'aria-sort': dir }, button));
  }
  head.append(h('th', { scope: 'col', text: 'What it means' }));
  const table = h(
    'table',
    { class: 'summary' },
    h('caption', { class: 'visually-hidden', text: "Players: the column headers sort; a player's name shows their games" }),
    h('thead', null, head),
  );
  const body = h('tbody');
  for (const p of sortedPlayers(players, sort)) {
    const a = assessmentOf(p);
    const level = a ? str(a.level) : '';
    const slug = levelSlug(level);
    const games = isNum(p.games) ? p.games : 0;
    let sentence;
    if (a) {
      // The reason that moved it most in the direction of the level: toward a human for
      // "no concern", toward an engine otherwise.
      const human = a.level === 'no concern';
      const top = arr(a.reasons).find((r) => r && isNum(r.effect) && (human ? r.effect < 0 : r.effect > 0));
      const lead = top
        ? `Strongest sign ${human ? 'of human play' : 'of engine help'}: ${str(top.text)}.`
        : human
          ? 'Nothing in these moves stands out from clean human play.'
          : '';
      const like = a.resembles ? `Most like ${str(a.resembles)}. ` : '';
      sentence = `${like}${lead}${a.hint ? ` Hint: ${str(a.hint)}.` : ''}`.trim();
    } else if (report?.assessment) {
      sentence = 'Too few analysed moves for an assessment.';
    } else {
      sentence = 'No assessment for these settings: analyse with the defaults (depth 14, 4 lines).';
    }
    const name = str(p.name) || '?';
    const nameButton = h('button', { type: 'button', class: 'player-link', title: `Show ${name}'s games`, text: name });
    nameButton.addEventListener('click', () => onPlayer?.(name));
    body.append(
      h('tr', { class: a ? `level-${slug}` : '' },
        h('td', null, a ? h('span', { class: `level-badge level-${slug}`, text: level }) : h('span', { class: 'not-yet', text: 'none' })),
        h('th', { scope: 'row' }, nameButton),
        h('td', { class: 'num', text: a ? pct(a.probability) : DASH }),
        h('td', { class: 'num', text: `${isNum(p.analysedPlies) ? p.analysedPlies : 0} moves, ${games} game${games === 1 ? '' : 's'}` }),
        h('td', { class: 'meaning', text: sentence })),
    );
  }
  table.append(body);
  container.append(h('div', { class: 'table-scroll' }, table));
  if (focusSort) container.querySelector(`button[data-sort="${CSS.escape(focusSort)}"]`)?.focus({ preventScroll: true });
}

// ---------------------------------------------------------------- players

/** Per-player panels, aggregated over all games. */
export function renderPlayers(container, report) {
  container.replaceChildren();
  const players = arr(report?.players).filter((p) => p && typeof p === 'object');
  if (!players.length) {
    container.append(h('p', { class: 'empty', text: 'No players yet.' }));
    return;
  }
  const grid = h('div', { class: 'players-grid' });
  for (const p of players) grid.append(playerCard(p, report));
  container.append(grid);
}

/**
 * The answer first: the assessment's level, probability, reasons (each with the range
 * clean humans show) and what would make it surer. The core wrote every word; this only
 * lays them out.
 */
function assessmentBlock(p, report) {
  const a = p.assessment && typeof p.assessment === 'object' ? p.assessment : null;
  const box = h('section', { class: 'assessment', 'aria-label': 'Fair-play assessment' });
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
      ` ${pct(a.probability)} probability of engine assistance`),
    h('p', {
      class: 'sub',
      text: `${a.moves} moves, ${str(a.basis)} model; unclear from ${pct(arr(a.thresholds)[0])}, look closer from ${pct(arr(a.thresholds)[1])}.`,
    }),
  );
  if (a.resembles) box.append(h('p', { class: 'resembles', text: `Most like ${str(a.resembles)}.` }));
  const reasons = arr(a.reasons).filter((r) => r && typeof r === 'object');
  if (reasons.length) {
    const list = h('ul', { class: 'reasons' });
    for (const r of reasons) {
      list.append(
        h('li', {
          class: isNum(r.effect) && r.effect >= 0 ? 'toward-engine' : 'toward-human',
          title: isNum(r.effect) ? `moved the probability by ${Math.round(r.effect * 100)} points` : '',
          text: str(r.text),
        }),
      );
    }
    box.append(list);
  }
  if (a.hint) box.append(h('p', { class: 'hint', text: `Hint: ${str(a.hint)}.` }));
  return box;
}

function playerCard(p, report) {
  const card = h('article', { class: 'player-card' });
  const name = str(p.name) || '?';
  card.append(h('h3', { text: name }));
  const games = isNum(p.games) ? p.games : 0;
  card.append(
    h('p', { class: 'sub' }, `${games} game${games === 1 ? '' : 's'} `,
      h('span', { class: 'colours', title: 'games with White / with Black', text: `W${p.whiteGames ?? 0} B${p.blackGames ?? 0}` })),
  );
  card.append(assessmentBlock(p, report));
  const dl = h('dl', { class: 'stats' });
  fact(dl, 'Analysed moves', isNum(p.analysedPlies) ? String(p.analysedPlies) : DASH);
  const excl = Object.entries(obj(p.excluded)).filter(([, c]) => isNum(c) && c > 0);
  fact(dl, 'Not counted', excl.length ? excl.map(([r, c]) => `${exclusionText(r)}: ${c}`).join(', ') : 'none');
  fact(dl, 'Accuracy', isNum(p.accuracy) ? `${num(p.accuracy)}%` : DASH);
  fact(
    dl,
    'ACPL',
    isNum(p.acpl)
      ? [num(p.acpl), isNum(p.acplCi95) ? h('span', { class: 'ci', title: '95% confidence interval', text: ` ± ${num(p.acplCi95)}` }) : null]
      : DASH,
  );
  const ci = pctRange(p.matchRateCi95);
  fact(
    dl,
    'Top-move match',
    isNum(p.matchRate)
      ? [pct(p.matchRate), ci ? ' ' : null, ci ? h('span', { class: 'ci', title: '95% confidence interval', text: `(95% CI ${ci})` }) : null]
      : DASH,
    'wide',
  );
  fact(
    dl,
    'Inaccuracies / mistakes / blunders',
    h('span', null,
      h('span', { class: 'c-inaccuracy', text: String(p.inaccuracies ?? 0) }), ' / ',
      h('span', { class: 'c-mistake', text: String(p.mistakes ?? 0) }), ' / ',
      h('span', { class: 'c-blunder', text: String(p.blunders ?? 0) })),
    'wide',
  );
  fact(dl, 'Guid–Bratko error', isNum(p.guidBratko) ? `${num(p.guidBratko, 3)}${isNum(p.guidBratkoPlies) ? ` (${p.guidBratkoPlies} moves)` : ''}` : DASH);
  fact(dl, 'Better than engine', String(p.betterThanEngine ?? 0));
  fact(
    dl,
    report?.assessment ? 'Engine score (assessment)' : report?.classifier ? 'Engine score (classifier)' : 'Engine score (match × accuracy)',
    scoreBar(p.engineScore),
    'wide',
  );
  card.append(dl);
  card.append(timeFacts(p.time));

  const adv = h('dl', { class: 'stats advanced' });
  const z = p.zScores && typeof p.zScores === 'object' ? p.zScores : null;
  fact(
    adv,
    'Regan z-scores',
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
    "Regan fit of own moves",
    r && isNum(r.s) && isNum(r.c)
      ? `s = ${num(r.s, 3)} (${num(arr(r.sRange)[0], 3)}–${num(arr(r.sRange)[1], 3)}), c = ${num(r.c, 2)} (${num(arr(r.cRange)[0], 2)}–${num(arr(r.cRange)[1], 2)}), ${r.moves} moves`
      : notYet(p.regan),
    'wide',
  );
  fact(
    adv,
    'Intrinsic rating (IPR)',
    isNum(p.ipr)
      ? `${Math.round(p.ipr)}${Array.isArray(p.iprRange) ? ` (95%: ${Math.round(p.iprRange[0])}–${Math.round(p.iprRange[1])})` : ''}`
      : h('span', { class: 'not-yet', text: 'no calibration for these settings' }),
  );
  const c = p.competence && typeof p.competence === 'object' ? p.competence : null;
  fact(
    adv,
    'Apparent competence (Haworth)',
    c ? `c = ${num(c.mean)} (90%: ${num(c.low)}–${num(c.high)}, ${c.moves} moves)` : notYet(p.competence),
  );
  const cl = p.classifier && typeof p.classifier === 'object' ? p.classifier : null;
  fact(
    adv,
    'Engine-like moves (classifier)',
    cl
      ? `${cl.flagged} of ${cl.classified} good moves (${pct(cl.positiveRate ?? 0)}), mean probability ${pct(cl.meanProbability ?? 0)}; critical phase ${cl.criticalFlagged} of ${cl.criticalClassified}`
      : h('span', { class: 'not-yet', text: report?.classifier ? 'no good moves to classify' : 'no model for these settings (the default depth 14, 4 lines)' }),
    'wide',
  );
  const hist = rateHistogram(p, report);
  const m = p.matches && typeof p.matches === 'object' ? p.matches : null;
  if (m) {
    fact(
      adv,
      'Screening matches (Regan)',
      `FULL ${m.full} · MAIN ${m.main} · PART ${m.part} · NON ${m.non} of ${m.moves} moves; by depth ${arr(m.byDepth).map((x) => `${x[0]}: ${x[1]}`).join(', ')}`,
      'wide',
    );
  }
  fact(adv, 'Verdict', p.verdict !== null && p.verdict !== undefined ? str(p.verdict) : notYet(null), 'verdict');
  card.append(adv);
  if (hist) card.append(hist);
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
    card.append(h('p', { class: 'sub', text: 'Moves that drove it, least likely first:' }), list);
  }
  return card;
}

/** Time use (from clock data): mean, spread, the most regular stretch, fast moves. */
function timeFacts(t) {
  const dl = h('dl', { class: 'stats time' });
  if (!t || typeof t !== 'object' || !isNum(t.mean)) {
    fact(dl, 'Time use', h('span', { class: 'not-yet', text: 'no clock data' }), 'wide');
    return dl;
  }
  fact(
    dl,
    'Time per move',
    `${num(t.mean)} s${isNum(t.sd) ? ` ± ${num(t.sd)}` : ''}${isNum(t.cv) ? ` (CV ${num(t.cv, 2)})` : ''} · ${t.moves} moves`,
    'wide',
  );
  fact(
    dl,
    'Most regular 14 moves',
    isNum(t.minWindowCv) ? `CV ${num(t.minWindowCv, 2)} from ply ${t.minWindowPly}` : 'fewer than 14 timed moves',
  );
  fact(dl, 'Fast (< 2 s) / premoves', `${t.fastMoves ?? 0} / ${t.premoves ?? 0}`);
  fact(
    dl,
    'Time vs good alternatives',
    isNum(t.difficultyCorrelation) ? `r = ${num(t.difficultyCorrelation, 2)} (${t.difficultyMoves} moves)` : DASH,
    'wide',
  );
  return dl;
}

function notYet(v) {
  return v === null || v === undefined ? h('span', { class: 'not-yet', text: 'not computed yet' }) : str(v);
}

function scoreBar(v) {
  if (!isNum(v)) return DASH;
  const f = Math.max(0, Math.min(1, v));
  const bar = s(
    'svg',
    { class: 'score-bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
    s('rect', { class: 'sb-bg', x: 0, y: 0, width: 100, height: 10, rx: 2 }),
    s('rect', { class: 'sb-fill', x: 0, y: 0, width: (f * 100).toFixed(1), height: 10, rx: 2 }),
  );
  return h('span', { class: 'score-bar-box' }, bar, h('span', { class: 'score-value', text: v.toFixed(2) }));
}
