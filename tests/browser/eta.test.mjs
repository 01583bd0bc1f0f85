// The progress line's pace and time left (www/eta.js): measured from the first position
// searched, so the engines' start-up does not make the first ETA run long.
// GPL-3.0-or-later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eta } from '../../www/eta.js';

test('the pace is measured from the first position searched, not from the start', () => {
  // The engines take 10 s to load and fill their hash, then search 2 positions a second;
  // the first result comes at 10.5 s. At 15.5 s, 11 positions are done and 189 left.
  const first = { ms: 10_500, fresh: 1 };
  const e = eta(first, 15_500, 11, 189, 2);
  assert.equal(e.rate, 2);
  assert.equal(e.seconds, 94.5);
  // Measured from the start (15.5 s for 11), the ETA was about 266 s: nearly three times.
  assert.ok(189 / (11 / 15.5) > 2.5 * e.seconds);
});

test('no pace before one position a worker after the first, none when nothing is left', () => {
  assert.equal(eta(null, 5000, 0, 100, 2), null, 'nothing searched yet');
  const first = { ms: 1000, fresh: 1 };
  assert.equal(eta(first, 1000, 1, 99, 2), null, 'the first result alone');
  assert.equal(eta(first, 2000, 2, 98, 2), null, 'one more of two workers');
  assert.deepEqual(eta(first, 2000, 3, 97, 2), { rate: 2, seconds: 48.5 });
  assert.equal(eta(first, 9000, 100, 0, 2), null, 'done');
  // The cache's positions are not the engines' pace: `fresh` counts only theirs.
  assert.deepEqual(eta({ ms: 0, fresh: 1 }, 4000, 5, 10, 1), { rate: 1, seconds: 10 });
});
