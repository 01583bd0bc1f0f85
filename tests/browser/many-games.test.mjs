// Many games in the page (issue 14, item 2): a file of thousands of games in the page,
// through the same import as any input. The games are opening-book moves only, so the
// core excludes every ply (reason "book") and no engine searches anything: the tests
// measure the page, not Stockfish. Run: node --test tests/browser/many-games.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, manyGames, openPage, shots, startServer, SKIP } from './harness.mjs';

let browser;
let site;

before(async () => {
  if (SKIP) return; // every test is skipped, with the reason
  site = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  site?.close();
});

/** Picks the PGN as a file, as a user with a season's games would, and waits for the run's end. */
async function pickFile(page, pgn, { timeout = 300000 } = {}) {
  const runs = await page.evaluate(() => window.fairsight.state.runs);
  await page.setInputFiles('#file', { name: 'season.pgn', mimeType: 'application/x-chess-pgn', buffer: Buffer.from(pgn) });
  await page.waitForFunction((n) => window.fairsight.state.runs > n, runs, { timeout });
  return JSON.parse(await page.evaluate(() => window.fairsight.state.reportJson));
}

/** The game indices of the rows in the DOM, in table order. */
const rowGames = (page) => page.locator('#games tr.game-row').evaluateAll((rows) => rows.map((r) => Number(r.dataset.game)));

/** Rows of the games table's body in the DOM (game rows, spacers, messages). */
const domRows = (page) => page.locator('#games tbody tr').count();

test('2,000 games: a virtualised list that sorts, filters and opens a game, on desktop and phone', { skip: SKIP }, async () => {
  const N = 2000;
  const { pgn, games } = manyGames(N);
  const views = [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ];
  for (const [name, viewport] of views) {
    for (const colorScheme of ['light', 'dark']) {
      const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=1&nosw=1`, { viewport, colorScheme });
      const report = await pickFile(page, pgn);
      assert.equal(report.games.length, N);
      assert.ok(report.games.every((g) => g.plies.every((p) => !p.searched && p.excluded === 'book')), 'no engine work');
      assert.equal(await page.textContent('#games-count'), `${N} games`);
      assert.equal(await page.getAttribute('#games table', 'aria-rowcount'), String(N + 2));

      // Only the rows on screen and a few more are in the DOM, in input order.
      const first = await rowGames(page);
      assert.ok(first.length >= 5, `rows drawn: ${first.length}`);
      assert.ok((await domRows(page)) < 100, `DOM rows: ${await domRows(page)}`);
      assert.deepEqual(first, first.map((_, i) => i));
      await page.locator('#games').screenshot({ path: path.join(shots, `many-games-${name}-${colorScheme}.png`) });

      // Scrolled to the bottom, the last games are drawn, and still few rows.
      await page.locator('#games .games-scroll').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.waitForFunction((n) => [...document.querySelectorAll('#games tr.game-row')].some((r) => Number(r.dataset.game) === n - 1), N);
      assert.ok((await domRows(page)) < 100);
      const bottom = await rowGames(page);
      assert.deepEqual(bottom, bottom.map((_, i) => N - bottom.length + i), 'the last rows at the bottom');
      // The spacers stand for the rows not drawn: the box scrolls as far as all of them.
      const heights = await page.locator('#games .games-scroll').evaluate((el) => {
        const row = el.querySelector('tr.game-row').getBoundingClientRect().height;
        return { scroll: el.scrollHeight, row };
      });
      assert.ok(heights.scroll > 0.8 * N * heights.row && heights.scroll < 1.25 * N * heights.row + 400, JSON.stringify(heights));

      // Sorting by Black's name (a header button, aria-sort): the first games are the
      // alphabetically first, ties in input order.
      await page.click('#games button[data-sort="black"]');
      assert.equal(await page.getAttribute('#games th:has(button[data-sort="black"])', 'aria-sort'), 'ascending');
      const byBlack = games.map((g, i) => i).sort((a, b) => games[a].black.localeCompare(games[b].black) || a - b);
      const sorted = await rowGames(page);
      assert.ok((await domRows(page)) < 100);
      assert.deepEqual(sorted, byBlack.slice(0, sorted.length), 'sorted by Black, from the top');
      // Again: descending, by the keyboard on the header.
      await page.focus('#games button[data-sort="black"]');
      await page.keyboard.press('Enter');
      assert.equal(await page.getAttribute('#games th:has(button[data-sort="black"])', 'aria-sort'), 'descending');
      const desc = await rowGames(page);
      assert.equal(games[desc[0]].black, byBlack.map((i) => games[i].black).at(-1));

      // The keyboard moves through all games, drawn or not: End reaches the last.
      await page.click('#games button[data-sort="index"]');
      await page.locator('#games tr.game-row').first().focus();
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => Number(document.activeElement?.dataset.game)), N - 1);
      await page.keyboard.press('ArrowUp');
      assert.equal(await page.evaluate(() => Number(document.activeElement?.dataset.game)), N - 2);
      await page.keyboard.press('Home');
      assert.equal(await page.evaluate(() => Number(document.activeElement?.dataset.game)), 0);
      assert.ok((await domRows(page)) < 100);

      // The player filter keeps exactly that player's games.
      const who = 'Player007';
      const theirs = games.map((g, i) => i).filter((i) => games[i].white === who || games[i].black === who);
      await page.fill('#player-filter', who);
      assert.equal(await page.textContent('#games-count'), `${theirs.length} of ${N} games`);
      const filtered = await rowGames(page);
      assert.deepEqual(filtered, theirs.slice(0, filtered.length));
      assert.ok(filtered.length >= 5, `${filtered.length} rows of ${theirs.length} games drawn: ${await page.locator("#games tbody").innerHTML()}`);

      // A row opens its game.
      const pick = filtered[3];
      await page.click(`#games tr.game-row[data-game="${pick}"]`);
      assert.equal(await page.evaluate(() => window.fairsight.state.game), pick);
      assert.match(await page.textContent('#game .game-head'), new RegExp(`${games[pick].white}[\\s\\S]*${games[pick].black}`));
      assert.equal(await page.getAttribute(`#games tr.game-row[data-game="${pick}"]`, 'aria-current'), 'true');
      await page.screenshot({ path: path.join(shots, `many-games-open-${name}-${colorScheme}.png`) });
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});

test('a file of 8,000 games is imported in a worker: "Importing: N games" counts up while the page keeps drawing', { skip: SKIP }, async () => {
  const N = 8000;
  const { pgn } = manyGames(N);
  const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=1&nosw=1`);
  // Every animation frame the page draws, and every text of the progress line, timed.
  await page.evaluate(() => {
    const probe = { frames: [], texts: [] };
    window.probe = probe;
    const tick = () => {
      probe.frames.push(performance.now());
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const text = document.querySelector('#progress-text');
    new MutationObserver(() => probe.texts.push([performance.now(), text.textContent])).observe(text, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const runs = await page.evaluate(() => window.fairsight.state.runs);
  await page.setInputFiles('#file', { name: 'season.pgn', mimeType: 'application/x-chess-pgn', buffer: Buffer.from(pgn) });
  await page.waitForFunction(() => /^Importing: [1-9]/.test(document.querySelector('#progress-text').textContent), null, { polling: 20 });
  await page.screenshot({ path: path.join(shots, 'many-games-importing.png') });
  await page.waitForFunction((n) => window.fairsight.state.runs > n, runs, { timeout: 300000 });
  const report = JSON.parse(await page.evaluate(() => window.fairsight.state.reportJson));
  assert.equal(report.games.length, N);
  const { frames, texts } = await page.evaluate(() => window.probe);
  const at = texts.findIndex(([, t]) => /^Importing: /.test(t));
  assert.ok(at >= 0, `no import progress: ${JSON.stringify(texts.slice(0, 5))}`);
  const end = texts.findIndex(([, t], i) => i > at && !/^Importing: /.test(t));
  assert.ok(end > at, 'the import ends');
  assert.match(texts[end][1], new RegExp(`^Imported ${N} games`));
  const counts = texts.slice(at, end).map(([, t]) => Number(/^Importing: (\d+) games?…$/.exec(t)[1]));
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'the count only grows');
  // A count between none and all is shown before the end (how many the page shows
  // depends on how fast the worker imports against how often the main thread draws: on
  // an idle machine the import now outruns it after the first hundred).
  assert.ok(counts.some((c) => c > 0 && c < N), `counts seen: ${counts.join(', ')}`);
  // The main thread stays free while the worker imports: frames keep coming.
  const [from, to] = [texts[at][0], texts[end][0]];
  const during = [from, ...frames.filter((t) => t > from && t < to), to];
  const gaps = during.slice(1).map((t, i) => t - during[i]);
  assert.ok(to - from > 300, `the import took ${Math.round(to - from)} ms`);
  assert.ok(Math.max(...gaps) < 400, `longest frame gap ${Math.round(Math.max(...gaps))} ms of a ${Math.round(to - from)} ms import`);
  assert.deepEqual(errors, []);
  await context.close();
});
