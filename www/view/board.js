// fairsight: one game: header, board and moves. GPL-3.0-or-later.
//
// renderGame: the game's header (players, ratings, result, event), the board
// (chessground, with arrows for the move played and the engine's best) with its
// navigation buttons and caption, the move list with judgement marks, and the arrow
// keys that step through the moves; it places the evaluation graph and the competence
// chart (charts.js) and the selected move's panel (move.js). Squares for arrows come
// from the UCI strings; no chess logic here.

import { h, s } from './dom.js';
import {
  JUDGEMENT_LABEL,
  commentText,
  MARKS,
  marksOf,
  moveMark,
  arr,
  exclusionText,
  findGame,
  formatScore,
  isNum,
  judgementOf,
  levelSlug,
  moveNo,
  obj,
  probabilityPct,
  result,
  sideHint,
  str,
  tag,
} from './format.js';
import { competenceChart, evalGraph } from './charts.js';
import { movePanel } from './move.js';

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
  const focusWasOnGraph = container.contains(active) && active.classList?.contains('eval-graph');
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
  const legend = h(
    'p',
    { class: 'marks-legend' },
    'Marks: ?! ? ?? inaccuracy, mistake, blunder · ',
    h('span', { class: 'mark mark-better', text: MARKS.better.symbol }),
    ` ${MARKS.better.text} · `,
    h('span', { class: 'mark mark-engineLike', text: MARKS.engineLike.symbol }),
    ` ${MARKS.engineLike.text}.`,
  );
  container.append(evalGraph(plies, i, select, game));
  container.append(
    h('div', { class: 'game-grid' }, boardCol, h('div', { class: 'moves-col' }, moves, legend), movePanel(report, game, plies, i)),
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
    if (focusWasOnGraph) target = container.querySelector('svg.eval-graph') ?? target;
    const nav = focusNav && container.querySelector(`.board-nav [data-nav="${focusNav}"]`);
    if (nav && !nav.disabled) target = nav;
    target.focus({ preventScroll: true });
  }
}

function gameHeader(game, white, black) {
  const meta = [];
  for (const t of ['Event', 'Site', 'Date', 'Round']) {
    const v = tag(game, t);
    if (v && v !== '?' && v !== '-' && !/^\?+(\.\?+)*$/.test(v)) meta.push(t === 'Round' ? `round ${v}` : v);
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
  const flags = sideFlags(game, { white, black });
  if (flags) head.append(flags);
  const initial = game.initialComment ? commentText(game.initialComment) : '';
  if (initial) head.append(h('p', { class: 'comment', text: initial }));
  return head;
}

/**
 * Each assessed side's flag in this game, in words: the level, the probability and, at
 * `unclear` or above or from a rating band, the hint (why a side of a rating band at 95%
 * is only `unclear`, or at 66% `no concern`, for one). The games table shows the level only; the player's card pools their games.
 */
function sideFlags(game, names) {
  const items = [];
  for (const side of ['white', 'black']) {
    const a = obj(obj(obj(game.sides)[side]).assessment);
    if (!isNum(a.probability)) continue;
    const level = str(a.level);
    const hint = sideHint(a);
    items.push(
      h('li', { class: `side-flag level-${levelSlug(level)}` },
        h('span', { class: 'light', 'aria-hidden': 'true' }),
        ` ${names[side]}: `,
        h('strong', { text: level }),
        `, ${probabilityPct(a.probability, arr(a.thresholds))} probability of engine assistance in this game.`,
        hint ? h('span', { class: 'hint', text: ` Hint: ${hint}.` }) : null),
    );
  }
  return items.length ? h('ul', { class: 'side-flags', 'aria-label': 'Fair-play flags of this game' }, ...items) : null;
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
  for (const [, m] of marksOf(p)) bits.push(m.text);
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
    const nag = moveMark(p, j);
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
      ...marksOf(p).map(([key, m]) => h('span', { class: `mark mark-${key}`, 'aria-hidden': 'true', text: m.symbol })),
    );
    b.addEventListener('click', () => select(idx, 'move'));
    li.append(b);
  });
  return list;
}
