// fairsight: "what it means", a short explanation of each metric on demand. GPL-3.0-or-later.
//
// info(key, {rating}) is a small button beside a metric's name: pressed (click, tap,
// Enter or Space) it opens a popover that says in plain words what the metric is and,
// for the assessment's signals, the range clean human game sides show, in the player's
// rating band when it is known (the core's numbers, from the shipped assessment model:
// `humanRange`). The button carries aria-expanded and aria-controls; the popover is built
// when it opens, right after the button (so it is read next to it), shown in the top
// layer (never clipped by a scrolling table, never widening the page) and closes on
// Escape, a click elsewhere, or the button again.

import { h } from './dom.js';
import { humanRange } from '../pkg/fairsight.js';

/**
 * The metrics: name, what it means, and the assessment's signal(s) whose clean human
 * range applies (`[signal, what the range is of]`). Words only: every number comes from
 * the report or the model.
 */
export const METRICS = {
  level: {
    name: 'Level',
    text: "The assessment's answer as a traffic light: no concern, unclear or look closer. It turns every signal of the moves into one probability of engine assistance and compares it with thresholds set on clean human games: \"unclear\" is reached by about one clean human game side in ten, \"look closer\" by about one in two hundred. Clean players of lower ratings reach both levels more often, so a game side rated under 2,200 is held to higher bars of its rating band (under 1,600, 1,600-1,899, 1,900-2,199), each reached by about one clean game side of the band in ten and one in two hundred. A player's games are read together, on a scale of their own, and their bar is higher: it is set above every clean player of their rating band the model never saw, aiming at fewer than one clean player in a thousand with five or more games. Online ratings (lichess, chess.com) run on their own scale: online players play below over-the-board players of the same rating, and the bars are set on both together, so an online player's game reaches them less often. It is a screen, not a proof: a flag means look at the games, never that someone cheated. Nor is no flag a clearance: most players who turn an engine on part-way through one game stay under the bars in that game, more so with an engine other than Stockfish; several games of a player say more.",
  },
  probability: {
    name: 'Engine assistance',
    text: "The assessment's probability that the moves were played with an engine's help, calibrated on the analysed games of the corpus (humans, engines and players who switched to an engine part-way). It depends on how many moves there are: one game says little, several say more. The corpus holds many engine-assisted games scored against low ratings, so a clean low-rated player's game can read over 50% and still be no concern: the level, set on clean players of the rating band, is the answer. A rated game's clocks are not read (the card says so): on rated games with clocks the model without them did better when it was fitted; the time figures below are shown for you to judge.",
  },
  moves: {
    name: 'Moves',
    text: 'The analysed moves behind the numbers. Book moves, forced moves, the first moves and moves in a decided position (more than 3 pawns ahead or behind) are not counted. One blitz game gives about 10 to 30 a side; more moves make every number surer.',
  },
  notCounted: {
    name: 'Not counted',
    text: 'Moves left out of the statistics, by reason: the opening book, forced moves (only one legal move), moves before the first analysed one, decided positions and repetitions.',
  },
  accuracy: {
    name: 'Accuracy',
    text: "Lichess's accuracy: 100% when every move keeps the winning chances the engine sees, lower for each move that throws some away.",
    signals: [['accuracy']],
  },
  acpl: {
    name: 'ACPL',
    text: "Average centipawn loss: how much worse than the engine's best move the moves were on average, in hundredths of a pawn. Lower is more precise.",
    signals: [['acpl']],
  },
  match: {
    name: 'Top-move match',
    text: "How often the move played was the engine's first choice. Strong players match often; many positions have one obvious move, so nobody is at 0%.",
    signals: [['matchRate']],
  },
  judgements: {
    name: 'Inaccuracies, mistakes, blunders',
    text: "Moves that lost winning chances (lichess's scale): at least 5, 10 or 15 points of win percentage.",
  },
  betterThanEngine: {
    name: 'Better than engine',
    text: "Moves the engine rated higher once played than its own first choice: a deeper idea than the search saw at first. Rare, and strong players find them too.",
  },
  engineScore: {
    name: 'Engine score',
    text: 'How engine-like the play is, 0 to 100%: the probability of engine assistance when the assessment applies, else the move classifier\'s mean probability that an engine chose each good move, else top-move match × accuracy (the settings say which).',
    signals: [['classifier', "the classifier's mean probability"]],
  },
  flag: {
    name: 'Flag',
    text: 'The assessment of one side of one game, as a traffic light. One game is few moves: a player\'s row in the summary, over all their games, says more.',
  },
  guidBratko: {
    name: 'Guid–Bratko error',
    text: "Guid and Bratko's average error per move, in pawns, with the engine's evaluation capped as they did when they compared world champions. Lower is more precise.",
  },
  competence: {
    name: 'Apparent competence (Haworth)',
    text: "Haworth's reference fallible player: the competence c that best explains how often the player chose moves of each value (0 plays at random, higher comes closer to the engine), with its 90% credible interval.",
    signals: [['competence']],
  },
  zScores: {
    name: 'Regan z-scores',
    text: "Regan's screening: how far the moves are from what his model projects for a player of this rating, in standard deviations. MM: engine top-move matches, EV: moves of equal value (higher: more matches than projected), ASD: size of errors (lower: smaller errors than projected). About 0 is normal; his protocol looks closer only when MM is 2.75 or more and ASD −2.75 or less, over at least 100 moves.",
    signals: [['zMm', 'MM'], ['zEv', 'EV'], ['zAsd', 'ASD']],
  },
  reganFit: {
    name: 'Regan fit of own moves',
    text: "The parameters of Regan's model fitted to these moves alone: s (sensitivity: smaller means the player tells good moves from bad ones more sharply) and c (consistency), each with its 95% range. Strong players have small s; the calibration maps (s, c) to a rating.",
  },
  ipr: {
    name: 'Intrinsic rating (IPR)',
    text: "The rating whose play Regan's model finds most like these moves, with a 95% interval. For a clean human it is usually near their rating; over few moves the interval is wide. It is measured on the moves, whatever the opponents.",
  },
  classifier: {
    name: 'Engine-like moves (classifier)',
    text: "The move classifier (trained on engine and human games) gives each good move a probability that an engine chose it; moves at 50% or more are flagged engine-like. The share flagged is shown, with the critical phase (positions within 3 pawns) apart.",
    signals: [['positiveRate', 'share flagged']],
  },
  screening: {
    name: 'Screening matches (Regan)',
    text: "Regan's zig-zag protocol: FULL, the played move was the single-line search's choice at every depth; MAIN, at the deepest; PART, at some other depth; NON, never.",
  },
  verdict: {
    name: 'Verdict',
    text: "Regan's screening rule: look closer when the z-score for top-move matches is 2.75 or more and the errors are at least 2.75 standard deviations smaller than projected (ASD −2.75 or less), over at least 100 analysed moves with a known rating; else no statistical evidence (or no verdict, with its reason).",
  },
  timePerMove: {
    name: 'Time per move',
    text: 'Seconds a move from the clocks, with the spread and the coefficient of variation (CV: spread ÷ mean). Humans take long on hard moves and little on easy ones, so their CV is high; an even rhythm whatever the position is how relaying engine moves often looks.',
    signals: [['timeCv', 'CV']],
  },
  regularStretch: {
    name: 'Most regular 14 moves',
    text: 'The lowest CV of move times over any 14 moves in a row, and where it starts: a stretch of clockwork timing.',
    signals: [['windowCv', 'CV']],
  },
  fast: {
    name: 'Fast moves and premoves',
    text: 'Moves made in under 2 seconds, and premoves (0 s, left out of the other time figures).',
    signals: [['fastShare', 'share of moves under 2 s']],
  },
  timeVsAlternatives: {
    name: 'Time vs good alternatives',
    text: "The correlation of the time spent on a move with the number of good moves in the position. Humans think longer when there is more to choose from (a correlation around or above 0 is common); the engine's time does not care.",
    signals: [['difficultyCorrelation']],
  },
  stretch: {
    name: 'Most engine-like stretch',
    text: "The run of at least 8 moves in a game whose engine top-move matches most exceed what Regan's model expects of the side (obvious moves count for little), and how often chance alone gives a run like it, allowing for all the runs tried.",
  },
  cpLoss: {
    name: 'Centipawn loss',
    text: "How much worse the move is than the engine's best, in hundredths of a pawn (0: the engine's choice or as good).",
  },
  winLoss: {
    name: 'Win-% loss',
    text: 'The winning chances the move gave away, in points of win percentage (lichess\'s model); 5, 10 and 15 or more make an inaccuracy, a mistake, a blunder.',
  },
  moveAccuracy: {
    name: 'Move accuracy',
    text: "Lichess's accuracy of this one move: 100% keeps the winning chances, lower throws some away.",
  },
  rank: {
    name: 'Rank',
    text: "Where the move stands among the engine's lines (1: its first choice).",
  },
  alternatives: {
    name: 'Good alternatives',
    text: 'Other moves within 0.2 pawns of the best: with many, matching the engine is luck; with none, it is the only good move and anyone finds it.',
  },
  onlyMove: {
    name: 'Only move',
    text: 'Whether every other move was clearly worse: finding an only move is expected of good players and says little about an engine.',
  },
  bestChanges: {
    name: 'Best-move changes',
    text: "How often the engine's first choice changed as it searched deeper: a move it found only late is hard to find.",
  },
  stableFrom: {
    name: 'Engine choice from depth',
    text: "The search depth from which the played move stayed the engine's first choice (a low depth: easy to see; a high one: deep).",
  },
  engineProbability: {
    name: 'Engine probability',
    text: "The move classifier's probability that an engine chose this move, from how the engine's view of it changed with depth; 50% or more is flagged engine-like. Single moves say little: humans play many engine-like moves.",
    signals: [['classifier', "the mean over a side's good moves"]],
  },
};

let seq = 0;
let openNow = null; // {button, pop}

const supportsPopover = typeof HTMLElement !== 'undefined' && 'showPopover' in HTMLElement.prototype;

/** The clean human range of a metric's signals in words, for a rating (or all sides). */
function rangeText(signals, rating) {
  const out = [];
  for (const [signal, what] of signals || []) {
    let r = null;
    try {
      r = humanRange(signal, Number.isFinite(rating) ? rating : undefined);
    } catch {
      r = null;
    }
    if (!r) continue;
    const band = r.band === 'all' ? '' : ` rated ${r.band}`;
    out.push(`Clean human game sides${band}${what ? `, ${what}` : ''}: ${r.low} to ${r.high} (the middle 90% of ${r.sides} sides; typically ${r.median}).`);
  }
  return out;
}

function close() {
  if (!openNow) return;
  const { button, pop } = openNow;
  openNow = null;
  button.setAttribute('aria-expanded', 'false');
  try {
    if (supportsPopover && pop.matches(':popover-open')) pop.hidePopover();
  } catch {
    // already hidden
  }
  pop.remove();
  window.removeEventListener('scroll', place, true);
  window.removeEventListener('resize', place);
}

/** Puts the open popover under its button (above when there is no room), on screen; a text taller than the room scrolls inside it. */
function place(e) {
  if (!openNow) return;
  const { button, pop } = openNow;
  // Scrolling the popover's own text moves nothing.
  if (e?.type === 'scroll' && pop.contains(e.target)) return;
  if (!button.isConnected) {
    close();
    return;
  }
  const b = button.getBoundingClientRect();
  const scrolled = pop.scrollTop;
  pop.style.maxHeight = '';
  const w = pop.offsetWidth;
  const ht = pop.offsetHeight;
  const vw = document.documentElement.clientWidth;
  const left = Math.max(8, Math.min(b.left, vw - w - 8));
  // Below the button, else above it; a text taller than either room gets the larger one
  // and scrolls inside (the popover is fixed: what leaves the screen could not be read).
  const below = b.bottom + 6;
  const roomBelow = innerHeight - 8 - below;
  const roomAbove = b.top - 6 - 8;
  let top = below;
  if (ht > roomBelow && ht <= roomAbove) top = b.top - ht - 6;
  else if (ht > roomBelow && roomAbove > roomBelow) {
    pop.style.maxHeight = `${Math.round(roomAbove)}px`;
    top = 8;
  } else if (ht > roomBelow) pop.style.maxHeight = `${Math.round(Math.max(roomBelow, 80))}px`;
  // A text that scrolls is a stop of the keyboard's, so it can be scrolled without a mouse.
  if (pop.style.maxHeight) pop.tabIndex = 0;
  else pop.removeAttribute('tabindex');
  pop.style.left = `${Math.round(left)}px`;
  pop.style.top = `${Math.round(top)}px`;
  pop.scrollTop = scrolled;
}

function open(button, key, opts) {
  const m = METRICS[key];
  const id = button.getAttribute('aria-controls');
  const pop = h(
    'div',
    { class: 'explain-pop', id, role: 'note', 'aria-label': `What “${opts.name || m.name}” means` },
    h('p', { class: 'explain-name', text: opts.name || m.name }),
    h('p', { text: m.text }),
    ...rangeText(opts.signals ?? m.signals, opts.rating).map((t) => h('p', { class: 'explain-range', text: t })),
  );
  // A manual popover: in the top layer, dismissed by this file's own rules (an auto
  // popover's light dismiss would close it on the press of its own button, which then
  // opened it again).
  if (supportsPopover) pop.setAttribute('popover', 'manual');
  else pop.classList.add('explain-fallback');
  button.after(pop);
  openNow = { button, pop };
  if (supportsPopover) pop.showPopover();
  button.setAttribute('aria-expanded', 'true');
  place();
  window.addEventListener('scroll', place, true);
  window.addEventListener('resize', place);
}

/**
 * The "what it means" button of metric `key`; `rating` picks the clean human range's
 * band, `name` overrides the metric's name (e.g. "Engine score (classifier)"), `signals`
 * the ranges shown (`[]`: none, where the value is not the signal's).
 */
export function info(key, opts = {}) {
  const m = METRICS[key];
  if (!m) throw new Error(`no metric ${key}`);
  const id = `explain-${++seq}`;
  const name = opts.name || m.name;
  const button = h('button', {
    type: 'button',
    class: 'info',
    'data-explain': key,
    'aria-expanded': 'false',
    'aria-controls': id,
    'aria-label': `What “${name}” means`,
    title: `What “${name}” means`,
  });
  button.addEventListener('click', (e) => {
    e.stopPropagation(); // not a row's or a header's click
    const wasOpen = openNow?.button === button;
    close();
    if (!wasOpen) open(button, key, opts);
  });
  return button;
}

/**
 * A metric's label with its "what it means" button: `text`'s last word and the button
 * never part across lines (on a phone, a lone ⓘ on a line of its own reads as
 * belonging to nothing). `opts` as for `info`; the button is named after `text`.
 */
export function infoLabel(text, key, opts = {}) {
  const cut = text.lastIndexOf(' ') + 1;
  return [text.slice(0, cut), h('span', { class: 'with-info' }, text.slice(cut), info(key, { name: text, ...opts }))];
}

// Dismissal: Escape (the focus goes back to the button when it was in the popover or on
// it), or a press anywhere but the popover and its button.
if (typeof document !== 'undefined') {
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !openNow) return;
    const { button } = openNow;
    const refocus = document.activeElement === button || openNow.pop.contains(document.activeElement);
    close();
    e.preventDefault();
    if (refocus) button.focus({ preventScroll: true });
  });
  document.addEventListener('pointerdown', (e) => {
    if (!openNow) return;
    const { button, pop } = openNow;
    if (pop.contains(e.target) || button.contains(e.target)) return;
    close();
  }, true);
}
