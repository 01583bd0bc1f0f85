// The report cut at its games (www/report-store.js, issue 14 item 2): the page stores
// each game's text apart and joins them again for the exports, so the cut must give
// back the report byte for byte. Plain node, no browser: node --test tests/browser/report-store.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { cliReport, root, SKIP } from './harness.mjs';
import { headOf, lightGame, splitReport, textHash } from '../../www/report-store.js';

const join = (p) => p.head + p.games.map((g) => g.text + g.sep).join('') + p.tail;

test('a CLI report cut at its games joins back byte for byte; each piece is its game', { skip: SKIP }, () => {
  const json = cliReport(path.join(root, 'tests', 'fixtures', 'three-games-one-illegal.pgn'), ['--depth', '4', '--multipv', '2']);
  const report = JSON.parse(json);
  const parts = splitReport(json);
  assert.equal(join(parts), json);
  assert.equal(parts.games.length, report.games.length);
  parts.games.forEach((g, i) => assert.deepEqual(JSON.parse(g.text), report.games[i]));
  assert.equal(parts.games.at(-1).sep, '');
  assert.deepEqual(headOf(parts), { ...report, games: [] });
  // The light row keeps what the list and the move map show.
  const good = report.games.findIndex((g) => !g.error);
  const row = lightGame(report.games[good], textHash(parts.games[good].text));
  assert.equal(row.index, report.games[good].index);
  assert.equal(row.map.length, report.games[good].plies.length);
  assert.equal(row.sides.white.player, report.games[good].sides.white.player);
  assert.equal(row.sides.black.accuracy, report.games[good].sides.black.accuracy ?? null);
  const bad = report.games.find((g) => g.error);
  assert.equal(lightGame(bad).error, bad.error);
});

test('the cut reads strings with brackets, quotes and escapes, a nested "games" and no games', () => {
  for (const json of [
    '{"a":"games","games":[],"b":1}',
    '{"x":{"games":[1]},"games":[ {"s":"]\\"[,{"} , 2,"x" ,null],"t":[3]}',
    JSON.stringify({ games: [{ a: 1.5, s: 'a\\"]' }, { b: [2, {}] }], p: 1 }, null, 2),
    '{"games":[{"n":1}]}',
  ]) {
    const parts = splitReport(json);
    assert.equal(join(parts), json);
    assert.deepEqual(
      parts.games.map((g) => JSON.parse(g.text)),
      JSON.parse(json).games,
    );
  }
  assert.throws(() => splitReport('{"players":[]}'), /no games/);
  assert.throws(() => splitReport('{"games":[{"a":1},'), /cut short/);
  // A number's text is kept as written (5.0 stays 5.0, where a parse would print 5).
  assert.equal(splitReport('{"games":[{"v":5.0}]}').games[0].text, '{"v":5.0}');
  assert.notEqual(textHash('{"v":5.0}'), textHash('{"v":5.1}'));
});
