// fairsight: rendering of a report (schema 1) into the page. GPL-3.0-or-later.
//
// Everything is built with DOM APIs: text from the report (PGN tags, names, comments,
// error messages) only ever reaches the page through textContent or attribute values
// with fixed attribute names, never as markup. No chess logic here: the report already
// carries SAN, best moves and judgements; squares for arrows come from the UCI strings.

const SVG_NS = 'http://www.w3.org/2000/svg';
const DASH = '–';

// ---------------------------------------------------------------- DOM helpers

/** An HTML element; `attrs` keys are fixed in this file, `class` and `text` are special. */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) setAttrs(node, attrs);
  for (const c of children) append(node, c);
  return node;
}

/** An SVG element. */
function s(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  if (attrs) setAttrs(node, attrs);
  for (const c of children) append(node, c);
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(node, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(node, c);
  } else if (typeof child === 'string' || typeof child === 'number') {
    node.append(document.createTextNode(String(child)));
  } else {
    node.append(child);
  }
}

/** A `<title>` child: the tooltip (and accessible name) of an SVG shape. */
function svgTitle(text) {
  return s('title', { text });
}

// ---------------------------------------------------------------- formatting

const isNum = (x) => typeof x === 'number' && Number.isFinite(x);
const arr = (x) => (Array.isArray(x) ? x : []);
const obj = (x) => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});

/**
 * A score `{cp}` or `{mate}` (White's point of view) as text: `+0.35`, `-1.20`, `0.00`,
 * `#3`, `#-2`; `''` for null or anything else.
 */
export function formatScore(score) {
  if (!score || typeof score !== 'object') return '';
  if (isNum(score.mate)) return `#${Math.trunc(score.mate)}`;
  if (isNum(score.cp)) {
    const p = (score.cp / 100).toFixed(2);
    return score.cp > 0 ? `+${p}` : score.cp < 0 ? p : '0.00';
  }
  return '';
}

function num(x, digits = 1) {
  return isNum(x) ? x.toFixed(digits) : DASH;
}

/** A 0..1 fraction as a percentage. */
function pct(x, digits = 0) {
  return isNum(x) ? `${(x * 100).toFixed(digits)}%` : DASH;
}

/** An interval of 0..1 fractions as `49–94%`. */
function pctRange(ci) {
  if (!Array.isArray(ci) || !isNum(ci[0]) || !isNum(ci[1])) return null;
  return `${Math.round(ci[0] * 100)}–${Math.round(ci[1] * 100)}%`;
}

/** Seconds as `h:mm:ss` / `m:ss` (or `4.2 s` under a minute when `short`). */
function duration(sec, short) {
  if (!isNum(sec)) return DASH;
  if (short && Math.abs(sec) < 60) return `${Math.round(sec * 10) / 10} s`;
  const t = Math.max(0, Math.round(sec));
  const hh = Math.floor(t / 3600);
  const mm = Math.floor((t % 3600) / 60);
  const ss = String(t % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

const str = (x) => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));

const JUDGEMENTS = ['blunder', 'mistake', 'inaccuracy'];
const JUDGEMENT_NAG = { blunder: '??', mistake: '?', inaccuracy: '?!' };
const JUDGEMENT_LABEL = { blunder: 'Blunder', mistake: 'Mistake', inaccuracy: 'Inaccuracy' };
const BETTER_NAG = '!!'; // as in the annotated PGN export ($3)
const PGN_NAGS = { 1: '!', 2: '?', 3: '!!', 4: '??', 5: '!?', 6: '?!' };

const EXCLUSIONS = {
  book: 'opening book',
  forced: 'forced move',
  early: 'before the first analysed move',
  decided: 'decided position',
  repetition: 'repeated position',
};
const exclusionText = (reason) => EXCLUSIONS[reason] || str(reason);

function judgementOf(ply) {
  return JUDGEMENTS.includes(ply?.judgement) ? ply.judgement : null;
}

/** `8.` for White, `8…` for Black. */
function moveNo(ply) {
  const n = isNum(ply?.moveNumber) ? ply.moveNumber : '?';
  return ply?.side === 'black' ? `${n}…` : `${n}.`;
}

/** A principal variation in SAN with move numbers, starting from `ply`'s position. */
function pvText(ply, sans) {
  const moves = arr(sans).map(str);
  if (!moves.length) return '';
  let n = isNum(ply?.moveNumber) ? ply.moveNumber : null;
  let black = ply?.side === 'black';
  const out = [];
  moves.forEach((m, i) => {
    if (n === null) out.push(m);
    else if (!black) out.push(`${n}. ${m}`);
    else out.push(i === 0 ? `${n}… ${m}` : m);
    if (black && n !== null) n += 1;
    black = !black;
  });
  return out.join(' ');
}

/** Lichess win chance (0..100) for White from a White-POV score; null when unknown. */
function winChance(score) {
  if (!score || typeof score !== 'object') return null;
  if (isNum(score.mate)) return score.mate > 0 ? 100 : score.mate < 0 ? 0 : null;
  if (!isNum(score.cp)) return null;
  const cp = Math.max(-1000, Math.min(1000, score.cp));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

function findGame(report, gameIndex) {
  const games = arr(report?.games);
  return games.find((g) => g && g.index === gameIndex) ?? games[gameIndex] ?? null;
}

function tag(game, name) {
  return str(obj(game?.tags)[name]);
}

function result(game) {
  return tag(game, 'Result') || str(game?.outcome) || '*';
}

// ---------------------------------------------------------------- game list

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

// ---------------------------------------------------------------- game view

// Per container: the chessground instance, the key handler, the board orientation and
// what was shown last (to keep the move list's scroll position across re-renders).
const views = new WeakMap();

/**
 * One game: header, board, move list, evaluation graph, the selected move's panel and
 * its per-depth chart. `ply` is the 0-based index into `plies`; `onSelectPly(i)` is
 * called on clicks and arrow keys. `Chessground` is chessground's constructor.
 */
export function renderGame(container, report, gameIndex, { ply = 0, onSelectPly, Chessground } = {}) {
  const prev = views.get(container) || {};
  // Where the focus was (or where a click asked for it: some browsers do not focus
  // clicked buttons), to put it back on the rebuilt element.
  const active = document.activeElement;
  const focusWasInside = container.contains(active) || Boolean(prev.focusNext);
  const focusWasOnMove = prev.focusNext === 'move' || (container.contains(active) && active.classList?.contains('move'));
  const navName = prev.focusNext || (container.contains(active) ? active.getAttribute?.('data-nav') : null);
  const focusNav = Object.hasOwn(ICONS, navName ?? '') ? navName : null;
  const oldMoves = container.querySelector('.moves');
  const oldScroll = oldMoves ? oldMoves.scrollTop : 0;
  try {
    prev.board?.destroy?.();
  } catch {
    // A board that failed to build has nothing to clean up.
  }
  container.replaceChildren();
  container.classList.add('game-view');
  container.setAttribute('tabindex', '0');

  const game = findGame(report, gameIndex);
  const state = { orientation: prev.orientation || 'white', board: null, key: prev.key, game: gameIndex };
  views.set(container, state);

  const plies = arr(game?.plies);
  const count = plies.length;
  const i = count ? Math.max(0, Math.min(count - 1, Number.isInteger(ply) ? ply : 0)) : 0;
  // `focus`: what to focus after the re-render this selection causes.
  const select = (j, focus = null) => {
    if (!count || j < 0 || j >= count || typeof onSelectPly !== 'function') return;
    state.focusNext = focus;
    try {
      onSelectPly(j);
    } finally {
      state.focusNext = null;
    }
  };

  // The arrow keys: one listener per container, kept across re-renders.
  if (state.key) container.removeEventListener('keydown', state.key);
  state.key = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target instanceof Element && e.target.closest('input, select, textarea')) return;
    const cur = views.get(container)?.ply ?? 0;
    const to = { ArrowLeft: cur - 1, ArrowRight: cur + 1, Home: 0, End: count - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(to);
  };
  state.ply = i;
  container.addEventListener('keydown', state.key);

  if (!game) {
    container.setAttribute('aria-label', 'Game');
    container.append(h('p', { class: 'empty', text: 'No game selected.' }));
    return;
  }
  const white = tag(game, 'White') || str(obj(game.sides?.white).player) || '?';
  const black = tag(game, 'Black') || str(obj(game.sides?.black).player) || '?';
  container.setAttribute('aria-label', `Game ${white} – ${black}. Left and right arrow keys step through the moves.`);
  container.append(gameHeader(game, white, black));
  if (game.error) {
    container.append(h('p', { class: 'error', text: str(game.error) }));
    return;
  }
  if (!count) {
    container.append(h('p', { class: 'empty', text: 'This game has no moves.' }));
    return;
  }
  const cur = plies[i] || {};

  // Board column.
  const boardEl = h('div', { class: 'board' });
  const boardCol = h(
    'div',
    { class: 'board-col' },
    h('div', { class: 'board-box' }, boardEl),
    boardNav(i, count, select, () => {
      state.orientation = state.orientation === 'white' ? 'black' : 'white';
      try {
        state.board?.toggleOrientation();
      } catch {
        // ignore
      }
    }),
    h('p', { class: 'board-caption' }, boardCaption(cur)),
  );

  // The graph over the whole game, then board, moves and the selected move.
  const moves = moveList(plies, i, select);
  container.append(evalGraph(plies, i, select, game));
  container.append(
    h('div', { class: 'game-grid' }, boardCol, h('div', { class: 'moves-col' }, moves), movePanel(report, game, plies, i)),
  );
  container.append(competenceChart(game, plies, i, select));

  // The board, once its element is in the document (chessground measures it).
  if (typeof Chessground === 'function') {
    try {
      state.board = Chessground(boardEl, boardConfig(plies, i, state.orientation));
    } catch (err) {
      boardEl.append(h('p', { class: 'error', text: `Board unavailable: ${err?.message || err}` }));
    }
  } else {
    boardEl.classList.add('no-board');
    boardEl.append(h('p', { class: 'empty', text: str(cur.fen) }));
  }

  // Keep the move list where it was, and the current move in view.
  if (prev.game === gameIndex) moves.scrollTop = oldScroll;
  const curEl = moves.querySelector('.move.current');
  if (curEl && moves.scrollHeight > moves.clientHeight) {
    const top = curEl.getBoundingClientRect().top - moves.getBoundingClientRect().top + moves.scrollTop;
    const bottom = top + curEl.offsetHeight;
    if (top < moves.scrollTop) moves.scrollTop = Math.max(0, top - 8);
    else if (bottom > moves.scrollTop + moves.clientHeight) moves.scrollTop = bottom - moves.clientHeight + 8;
  }
  if (focusWasInside) {
    let target = container;
    if (focusWasOnMove && curEl) target = curEl;
    const nav = focusNav && container.querySelector(`.board-nav [data-nav="${focusNav}"]`);
    if (nav && !nav.disabled) target = nav;
    target.focus({ preventScroll: true });
  }
}

function gameHeader(game, white, black) {
  const meta = [];
  for (const t of ['Event', 'Site', 'Date', 'Round']) {
    const v = tag(game, t);
    if (v && v !== '?' && !/^\?+(\.\?+)*$/.test(v)) meta.push(t === 'Round' ? `round ${v}` : v);
  }
  const eco = tag(game, 'ECO');
  if (eco) meta.push(eco);
  const wElo = tag(game, 'WhiteElo');
  const bElo = tag(game, 'BlackElo');
  const head = h(
    'div',
    { class: 'game-head' },
    h(
      'h3',
      null,
      h('span', { class: 'player white', text: white }),
      wElo ? h('span', { class: 'elo', text: ` (${wElo})` }) : null,
      ' – ',
      h('span', { class: 'player black', text: black }),
      bElo ? h('span', { class: 'elo', text: ` (${bElo})` }) : null,
      ' ',
      h('span', { class: 'result', text: result(game) }),
    ),
  );
  if (meta.length) head.append(h('p', { class: 'meta', text: meta.join(' · ') }));
  if (game.initialComment) head.append(h('p', { class: 'comment', text: str(game.initialComment) }));
  return head;
}

// Button icons (16×16, filled with the text colour): no icon font needed.
const ICONS = {
  first: 'M3 3h2v10H3zM13 3v10L6 8z',
  prev: 'M11 3v10L4 8z',
  next: 'M5 3v10l7-5z',
  last: 'M11 3h2v10h-2zM3 3v10l7-5z',
  flip: 'M5 1 1.5 5H4v6h2V5h2.5zM11 15l3.5-4H12V5h-2v6H7.5z',
};

function icon(name) {
  return s(
    'svg',
    { class: 'icon', viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', focusable: 'false' },
    s('path', { d: ICONS[name] }),
  );
}

function boardNav(i, count, select, flip) {
  const btn = (name, title, to, disabled) => {
    const b = h('button', { type: 'button', title, 'aria-label': title, 'data-nav': name, disabled }, icon(name));
    b.addEventListener('click', () => select(to, name));
    return b;
  };
  const f = h('button', { type: 'button', class: 'flip', title: 'Flip the board', 'aria-label': 'Flip the board', 'data-nav': 'flip' }, icon('flip'));
  f.addEventListener('click', flip);
  return h(
    'div',
    { class: 'board-nav' },
    btn('first', 'First move', 0, i === 0),
    btn('prev', 'Previous move', i - 1, i === 0),
    h('span', { class: 'ply-count', text: `${i + 1} / ${count}` }),
    btn('next', 'Next move', i + 1, i >= count - 1),
    btn('last', 'Last move', count - 1, i >= count - 1),
    f,
  );
}

function boardCaption(cur) {
  const parts = [`Position before ${moveNo(cur)} ${str(cur.san)}. `];
  parts.push(h('span', { class: 'key-played', text: 'Blue' }), ' arrow: the move played');
  if (cur.best && cur.best !== cur.uci) {
    parts.push('; ', h('span', { class: 'key-best', text: 'green' }), `: the engine's best, ${str(cur.bestSan || cur.best)}`);
  }
  parts.push('.');
  return parts;
}

function squares(uci) {
  if (typeof uci !== 'string' || uci.length < 4) return null;
  const sq = /^[a-h][1-8]$/;
  const orig = uci.slice(0, 2);
  const dest = uci.slice(2, 4);
  return sq.test(orig) && sq.test(dest) ? [orig, dest] : null;
}

function boardConfig(plies, i, orientation) {
  const cur = plies[i] || {};
  const shapes = [];
  const played = squares(cur.uci);
  const best = squares(cur.best);
  if (best && cur.best !== cur.uci) shapes.push({ orig: best[0], dest: best[1], brush: 'green' });
  if (played) shapes.push({ orig: played[0], dest: played[1], brush: 'blue' });
  const last = i > 0 ? squares(plies[i - 1]?.uci) : null;
  const config = {
    fen: str(cur.fen) || undefined,
    viewOnly: true,
    coordinates: true,
    orientation,
    animation: { enabled: false },
    drawable: { enabled: false, visible: true, autoShapes: shapes },
  };
  if (last) config.lastMove = last;
  return config;
}

function moveTitle(p) {
  const bits = [];
  const j = judgementOf(p);
  if (j) bits.push(JUDGEMENT_LABEL[j]);
  if (p.betterThanEngine) bits.push("better than the engine's choice");
  if (p.isBest) bits.push("engine's best move");
  if (p.excluded) bits.push(`excluded: ${exclusionText(p.excluded)}`);
  const e = formatScore(p.playedEval ?? null);
  if (e) bits.push(e);
  if (!p.searched && !p.excluded) bits.push('not analysed yet');
  return bits.join('; ');
}

function moveList(plies, current, select) {
  const list = h('ol', { class: 'moves', 'aria-label': 'Moves' });
  let li = null;
  plies.forEach((p, idx) => {
    p = p || {};
    const isWhite = p.side !== 'black';
    if (isWhite || !li) {
      li = h('li', null, h('span', { class: 'move-no', text: `${isNum(p.moveNumber) ? p.moveNumber : '?'}.` }));
      list.append(li);
      if (!isWhite) li.append(h('span', { class: 'move empty', 'aria-hidden': 'true', text: '…' }));
    }
    const classes = ['move'];
    const j = judgementOf(p);
    if (j) classes.push(j);
    if (p.isBest) classes.push('best');
    if (p.betterThanEngine) classes.push('better');
    if (p.excluded) classes.push('excluded');
    if (!p.searched && !p.excluded) classes.push('pending');
    if (idx === current) classes.push('current');
    const nag = j ? JUDGEMENT_NAG[j] : p.betterThanEngine ? BETTER_NAG : '';
    const title = moveTitle(p);
    const b = h(
      'button',
      {
        type: 'button',
        class: classes.join(' '),
        'data-ply': idx,
        tabindex: idx === current ? 0 : -1,
        'aria-current': idx === current ? 'step' : null,
        title: title || null,
        'aria-label': `${moveNo(p)} ${str(p.san)}${title ? `, ${title}` : ''}`,
      },
      str(p.san) || '?',
      nag ? h('span', { class: 'nag', text: nag }) : null,
    );
    b.addEventListener('click', () => select(idx, 'move'));
    li.append(b);
  });
  return list;
}

// The evaluation graph: White's win chance after each move (point 0 is the start).
const G = { w: 600, h: 150, top: 6, bottom: 6 };

function evalGraph(plies, current, select, game) {
  const n = plies.length;
  const values = [winChance(plies[0]?.eval)];
  for (let k = 0; k < n; k++) {
    values.push(winChance(plies[k]?.playedEval) ?? winChance(plies[k + 1]?.eval));
  }
  const x = (k) => (n ? (k / n) * G.w : 0);
  const y = (v) => G.top + (1 - v / 100) * (G.h - G.top - G.bottom);
  const svg = s('svg', {
    class: 'eval-graph',
    viewBox: `0 0 ${G.w} ${G.h}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': "Evaluation graph: White's winning chances after each move; click to go to a move",
    focusable: 'false',
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
      "White's winning chances after each move (top: White wins, bottom: Black wins). Click to jump.",
      ...stretches.filter((st) => st.z > 0).map((st) =>
        h('span', {
          class: `stretch-note${st.pAdjusted < 0.05 ? ' significant' : ''}`,
          text: ` ${st.side === 'white' ? 'White' : 'Black'}'s most engine-like stretch: plies ${st.fromPly}–${st.toPly}, ${st.matches}/${st.moves} top moves (${num(st.expected)} expected), z = ${num(st.z, 2)}, p = ${num(st.pAdjusted, 3)} after ${st.windows} windows${st.pAdjusted < 0.05 ? ' (marked on the graph)' : ''}.`,
        }),
      ),
    ),
  );
}

/** Haworth's apparent competence of each side through the game (posterior mean of c
 * after each analysed move). A sharp rise marks a stretch of engine agreement. */
function competenceChart(game, plies, current, select) {
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

// ---------------------------------------------------------------- the selected move

function fact(dl, label, value, cls) {
  if (value === null || value === undefined || value === '') return;
  dl.append(h('div', { class: cls ? `fact ${cls}` : 'fact' }, h('dt', { text: label }), h('dd', null, value)));
}

function movePanel(report, game, plies, i) {
  const p = plies[i] || {};
  const j = judgementOf(p);
  const nag = j ? JUDGEMENT_NAG[j] : p.betterThanEngine ? BETTER_NAG : '';
  const heading = h(
    'h3',
    null,
    h('span', { class: 'san' }, `${moveNo(p)} ${str(p.san)}`, nag ? h('span', { class: 'nag', text: nag }) : null),
  );
  if (j) heading.append(' ', h('span', { class: `badge badge-${j}`, text: JUDGEMENT_LABEL[j] }));
  if (p.betterThanEngine) heading.append(' ', h('span', { class: 'badge badge-better', text: 'Better than engine' }));
  if (p.isBest) heading.append(' ', h('span', { class: 'badge badge-best', text: "Engine's choice" }));
  if (p.excluded) heading.append(' ', h('span', { class: 'badge badge-excluded', text: 'Not counted' }));
  const panel = h('section', { class: 'move-panel', 'aria-label': 'Selected move' }, heading);

  const multipv = obj(report?.settings).multipv;
  const searched = p.searched === true;
  if (!searched && !p.excluded) {
    panel.append(h('p', { class: 'pending-note', text: 'This position has not been analysed yet.' }));
  }
  const dl = h('dl', { class: 'facts' });
  const played = [str(p.san)];
  const pe = formatScore(p.playedEval ?? null);
  if (pe) played.push(' ', h('span', { class: 'score', text: `(${pe})` }));
  fact(dl, 'Played', played);
  if (p.bestSan || p.best) {
    const be = formatScore(p.eval ?? null);
    fact(dl, "Engine's best", [str(p.bestSan || p.best), be ? ' ' : '', be ? h('span', { class: 'score', text: `(${be})` }) : null]);
  }
  if (isNum(p.cpLoss)) fact(dl, 'Centipawn loss', String(p.cpLoss));
  if (isNum(p.winLoss)) fact(dl, 'Win-% loss', num(p.winLoss));
  if (isNum(p.accuracy)) fact(dl, 'Move accuracy', `${num(p.accuracy)}%`);
  if (searched) {
    const lines = arr(p.lines).length;
    fact(
      dl,
      'Rank',
      isNum(p.rank)
        ? `${p.rank} of ${lines || multipv || '?'}`
        : `outside the top ${lines || multipv || ''} lines`.replace('  ', ' '),
    );
  }
  if (isNum(p.alternatives)) fact(dl, 'Good alternatives', String(p.alternatives));
  if (typeof p.onlyMove === 'boolean') fact(dl, 'Only move', p.onlyMove ? 'yes' : 'no');
  if (searched && isNum(p.bestChanges)) fact(dl, 'Best-move changes', String(p.bestChanges));
  if (searched) fact(dl, 'Engine choice from depth', isNum(p.stableFrom) ? String(p.stableFrom) : DASH);
  if (p.betterThanEngine) fact(dl, 'Better than engine', 'yes');
  const z = p.screening && typeof p.screening === 'object' ? p.screening : null;
  if (z) {
    const d = isNum(z.delta) ? z.delta.toFixed(2) : 'NaN';
    const key = z.matchType === 'full' || z.matchType === 'main' ? 'delta' : 'delta2';
    fact(
      dl,
      'Screening (Regan)',
      `${str(z.bits)} ${str(z.matchType).toUpperCase()} MATCH, ${key} = ${d}`,
      'wide',
    );
    fact(dl, 'Single-line choice by depth', screeningChoices(p, z), 'wide');
  }
  if (isNum(p.engineProbability)) fact(dl, 'Engine probability', pct(p.engineProbability));
  if (isNum(p.timeSpent)) fact(dl, 'Time spent', duration(p.timeSpent, true));
  if (isNum(p.clock)) fact(dl, 'Clock after', duration(p.clock));
  if (p.excluded) fact(dl, 'Not counted', exclusionText(p.excluded), 'excluded-fact');
  const nags = arr(p.nags).map((x) => PGN_NAGS[x] || `$${Number(x) | 0}`);
  if (nags.length) fact(dl, 'PGN annotation', nags.join(' '));
  if (dl.childElementCount) panel.append(dl);
  for (const c of arr(p.comments)) panel.append(h('p', { class: 'comment', text: str(c) }));

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
        h('td', { class: 'num score', text: formatScore(l.score) || DASH }),
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
      h('caption', { text: "Engine lines (scores from White's point of view)" }),
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

const TREND_TEXT = {
  ascending: 'ascending (the engine came to like the move with depth)',
  descending: 'descending (the engine liked it less with depth)',
  other: 'flat or no clear trend',
};

// The per-depth chart: the played move's evaluation at each depth (mover's view).
const D = { w: 420, h: 190, left: 44, right: 16, top: 14, bottom: 30 };

function depthChart(p) {
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
      `The played move's evaluation by search depth, in pawns from the mover's point of view${
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

// ---------------------------------------------------------------- summary

/**
 * The answer first: one row per player with the level as a traffic light, the
 * probability of engine assistance, the moves and games behind it and one sentence of
 * what it means (the strongest reason, or why there is none; the hint).
 */
export function renderSummary(container, report) {
  container.replaceChildren();
  const players = arr(report?.players).filter((p) => p && typeof p === 'object');
  if (!players.length) {
    container.append(h('p', { class: 'empty', text: 'No players yet.' }));
    return;
  }
  const table = h(
    'table',
    { class: 'summary' },
    h('thead', null,
      h('tr', null,
        h('th', { scope: 'col', text: 'Level' }),
        h('th', { scope: 'col', text: 'Player' }),
        h('th', { scope: 'col', class: 'num', text: 'Engine assistance' }),
        h('th', { scope: 'col', class: 'num', text: 'Moves' }),
        h('th', { scope: 'col', text: 'What it means' }))),
  );
  const body = h('tbody');
  for (const p of players) {
    const a = p.assessment && typeof p.assessment === 'object' ? p.assessment : null;
    const level = a ? str(a.level) : '';
    const slug = level.replace(/\s+/g, '-');
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
      sentence = `${lead}${a.hint ? ` Hint: ${str(a.hint)}.` : ''}`.trim();
    } else if (report?.assessment) {
      sentence = 'Too few analysed moves for an assessment.';
    } else {
      sentence = 'No assessment for these settings: analyse with the defaults (depth 14, 4 lines).';
    }
    body.append(
      h('tr', { class: a ? `level-${slug}` : '' },
        h('td', null, a ? h('span', { class: `level-badge level-${slug}`, text: level }) : h('span', { class: 'not-yet', text: 'none' })),
        h('th', { scope: 'row', text: str(p.name) || '?' }),
        h('td', { class: 'num', text: a ? pct(a.probability) : DASH }),
        h('td', { class: 'num', text: `${isNum(p.analysedPlies) ? p.analysedPlies : 0} moves, ${games} game${games === 1 ? '' : 's'}` }),
        h('td', { class: 'meaning', text: sentence })),
    );
  }
  table.append(body);
  container.append(h('div', { class: 'table-scroll' }, table));
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
      : isNum(p.rating)
        ? h('span', { class: 'not-yet', text: 'no calibration for these settings' })
        : h('span', { class: 'not-yet', text: 'no rating (Elo tags)' }),
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

/**
 * The player's games by classifier positive rate, against the human and engine game
 * sides the model was validated on (report.classifierBaseline): where this player's
 * games fall among honest ones.
 */
function rateHistogram(p, report) {
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
