// fairsight: the progress line's pace and time left. GPL-3.0-or-later.

/**
 * The pace of a run and its time left, measured from its first position searched
 * (`first` = {ms, fresh}: the time and the positions searched then), not from its start:
 * before the first result the engines load (the wasm, the net) and fill their hash,
 * which is no part of the pace, and counted in it the first ETA ran several times long.
 * `fresh`: the positions searched by now (the cache's are not the engines' pace), `left`:
 * the positions still to do. `null` until `min` positions were searched after the first
 * one (one per engine: each has started), or when nothing is left.
 */
export function eta(first, nowMs, fresh, left, min = 1) {
  if (!first || !(left > 0)) return null;
  const n = fresh - first.fresh;
  const seconds = (nowMs - first.ms) / 1000;
  if (n < Math.max(1, min) || !(seconds > 0)) return null;
  const rate = n / seconds;
  return { rate, seconds: left / rate };
}
