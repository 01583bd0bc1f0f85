// fairsight: the report's values as text for the views. GPL-3.0-or-later.
//
// Renders nothing itself: the small formatters (scores, numbers, percentages,
// durations, move numbers, principal variations), the judgement and exclusion labels,
// White's win chance for the graph, and safe readers of a report (its games, PGN tags
// and results) that the views share. No chess logic: the report already carries SAN,
// best moves and judgements, and the rules that are not in it (win chance, move
// numbering, NAG symbols) come from the core through its bindings.

import {
  commentText as coreCommentText,
  moveNumber,
  nagTable,
  pvText as numberedLine,
  winPercent,
} from '../pkg/fairsight.js';

export const DASH = '–';

export const isNum = (x) => typeof x === 'number' && Number.isFinite(x);
export const arr = (x) => (Array.isArray(x) ? x : []);
export const obj = (x) => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});

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

export function num(x, digits = 1) {
  return isNum(x) ? x.toFixed(digits) : DASH;
}

/** A 0..1 fraction as a percentage. */
export function pct(x, digits = 0) {
  return isNum(x) ? `${(x * 100).toFixed(digits)}%` : DASH;
}

/** A threshold as a percentage: whole percents, but tenths from 99.5% on, rounded down,
 *  so that a threshold under 1 never reads "100%" (as the CLI's `threshold_percent`). */
export function thresholdPct(x) {
  if (!isNum(x)) return DASH;
  return x >= 0.995 && x < 1 ? `${(Math.floor(x * 1000) / 10).toFixed(1)}%` : `${(x * 100).toFixed(0)}%`;
}

/**
 * A probability as a percentage beside its level's thresholds ([unclear, look closer]):
 * whole percents, but never reading as reaching a threshold it is under (94.7% under a
 * look closer of 94.9% reads "94%", not "95%" beside "look closer from 95%"): one step
 * of the threshold's precision under it, as the CLI's `probability_percent`.
 */
export function probabilityPct(p, thresholds) {
  // Nor a certainty it is not: ">99%" for what would read 100%, "<1%" for 0%.
  const shown = underThresholds(p, thresholds);
  if (shown === '100%' && p < 1) return '>99%';
  if (shown === '0%' && p > 0) return '<1%';
  return shown;
}

function underThresholds(p, thresholds) {
  const shown = pct(p);
  if (!isNum(p) || !Array.isArray(thresholds)) return shown;
  const [unclear, lookCloser] = thresholds;
  const next = isNum(unclear) && p < unclear ? unclear : isNum(lookCloser) && p < lookCloser ? lookCloser : null;
  if (next === null) return shown;
  const limit = thresholdPct(next);
  const value = (t) => parseFloat(t);
  if (value(shown) < value(limit)) return shown;
  return limit.includes('.') ? `${(value(limit) - 0.1).toFixed(1)}%` : `${Math.max(0, value(limit) - 1).toFixed(0)}%`;
}

/** An interval of 0..1 fractions as `49–94%`. */
export function pctRange(ci) {
  if (!Array.isArray(ci) || !isNum(ci[0]) || !isNum(ci[1])) return null;
  return `${Math.round(ci[0] * 100)}–${Math.round(ci[1] * 100)}%`;
}

/** Seconds as `h:mm:ss` / `m:ss` (or `4.2 s` under a minute when `short`). */
export function duration(sec, short) {
  if (!isNum(sec)) return DASH;
  if (short && Math.abs(sec) < 60) return `${Math.round(sec * 10) / 10} s`;
  const t = Math.max(0, Math.round(sec));
  const hh = Math.floor(t / 3600);
  const mm = Math.floor((t % 3600) / 60);
  const ss = String(t % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

// The assessment's levels (the core's words), from no concern to look closer.
const LEVELS = ['no concern', 'unclear', 'look closer'];

/** A level's place in LEVELS (0 to 2; -1 for anything else): its sort order. */
export const levelRank = (level) => LEVELS.indexOf(level);

/**
 * A game side's hint where it explains its level: at `unclear` or `look closer`, and at
 * `no concern` a rating band's (why a side of a low-rated band at 66% is no concern: the
 * core's band hints begin "clean players rated"). Otherwise, at `no concern`, the only
 * hint is that more games would make it surer, true of every side.
 */
export const sideHint = (a) =>
  a && a.hint && (levelRank(a.level) > 0 || BAND_HINT.test(str(a.hint))) ? str(a.hint) : '';

/** How the core's rating-band hints begin (`lower_rated_hint`, `lower_rated_unclear_hint`). */
const BAND_HINT = /^clean players rated /;

/** A level as a CSS class suffix: `look-closer`. */
export const levelSlug = (level) => str(level).replace(/\s+/g, '-');

export const str = (x) => (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x));

/** A PGN comment as a reader sees it: the core strips its [%clk], [%eval], … commands. */
export const commentText = (c) => coreCommentText(str(c));

const JUDGEMENTS = ['blunder', 'mistake', 'inaccuracy'];
export const JUDGEMENT_LABEL = { blunder: 'Blunder', mistake: 'Mistake', inaccuracy: 'Inaccuracy' };

// The NAG symbols, from the core (read once, after the wasm module is initialised).
let nags = null;
const nagTableOnce = () => (nags ??= nagTable());

/** The NAG symbol of a move's judgement (`?!`, `?`, `??`), or ''. */
export function moveMark(ply, judgement) {
  return judgement ? (nagTableOnce().judgements[judgement] ?? '') : '';
}

/**
 * The page's own marks (not NAGs: to chess players `!!` and `!?` mean brilliance):
 * better than the engine's first choice, and flagged engine-like by the classifier.
 */
export const MARKS = {
  better: { symbol: '◆', text: "better than the engine's first choice" },
  engineLike: { symbol: '●', text: 'flagged engine-like by the move classifier' },
};

/** The marks of a move, as `[key, mark]` pairs. */
export function marksOf(ply) {
  const out = [];
  if (ply?.betterThanEngine) out.push(['better', MARKS.better]);
  if (ply?.engineLike) out.push(['engineLike', MARKS.engineLike]);
  return out;
}

/** A PGN NAG as its symbol (`$1`..`$6`), else `$n`. */
export function nagText(n) {
  return nagTableOnce().symbols[String(n)] ?? `$${Number(n) | 0}`;
}

const EXCLUSIONS = {
  book: 'opening book',
  forced: 'forced move',
  early: 'before the first analysed move',
  decided: 'decided position',
  repetition: 'repeated position',
};
export const exclusionText = (reason) => EXCLUSIONS[reason] || str(reason);

export function judgementOf(ply) {
  return JUDGEMENTS.includes(ply?.judgement) ? ply.judgement : null;
}

/** `8.` for White, `8…` for Black (the core's numbering; `?` for a missing number). */
export function moveNo(ply) {
  const side = ply?.side === 'black' ? 'black' : 'white';
  return moveNumber(isNum(ply?.moveNumber) ? ply.moveNumber : undefined, side);
}

/** A principal variation in SAN with move numbers, starting from `ply`'s position (the core's numbering). */
export function pvText(ply, sans) {
  const moves = arr(sans).map(str);
  if (!moves.length) return '';
  if (!isNum(ply?.moveNumber)) return moves.join(' ');
  return numberedLine(ply.moveNumber, ply.side === 'black' ? 'black' : 'white', moves);
}

/** White's win chance (0..100) of a White-POV score, as the core counts it (mates as ±1000 cp); null when unknown. */
export function winChance(score) {
  if (!score || typeof score !== 'object') return null;
  if (!isNum(score.mate) && !isNum(score.cp)) return null;
  return winPercent(isNum(score.mate) ? { mate: Math.trunc(score.mate) } : { cp: Math.round(score.cp) }) ?? null;
}

export function findGame(report, gameIndex) {
  const games = arr(report?.games);
  return games.find((g) => g && g.index === gameIndex) ?? games[gameIndex] ?? null;
}

export function tag(game, name) {
  return str(obj(game?.tags)[name]);
}

export function result(game) {
  return tag(game, 'Result') || str(game?.outcome) || '*';
}
