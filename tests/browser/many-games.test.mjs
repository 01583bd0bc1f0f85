// Many games in the page (issue 14, item 2): a file of thousands of games in the page,
// through the same import as any input. The games are opening-book moves only, so the
// core excludes every ply (reason "book") and no engine searches anything: the tests
// measure the page, not Stockfish. Run: node --test tests/browser/many-games.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cliReport, launch, manyGames, nextAnalyzerWorker, openPage, root, shots, startServer, SKIP } from './harness.mjs';

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

      // The move map is virtualised too: few rows in the DOM, the last game reached by
      // scrolling its box and by the keyboard (End).
      const mapRows = () => page.locator('#move-map g.mm-row').count();
      assert.ok((await mapRows()) >= 5 && (await mapRows()) < 100, `move map rows: ${await mapRows()}`);
      await page.locator('#move-map .move-map-box').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.waitForFunction((n) => document.querySelector(`#move-map g.mm-row[data-game="${n - 1}"]`), N);
      assert.ok((await mapRows()) < 100);
      await page.locator('#move-map').screenshot({ path: path.join(shots, `many-games-move-map-${name}-${colorScheme}.png`) });
      await page.locator('#move-map .move-map-box').evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.waitForFunction(() => document.querySelector('#move-map g.mm-row[data-game="0"]'));
      await page.locator('#move-map g.mm-row[data-game="0"]').focus();
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => Number(document.activeElement?.dataset.game)), N - 1);
      await page.keyboard.press('ArrowUp');
      assert.equal(await page.evaluate(() => Number(document.activeElement?.dataset.game)), N - 2);
      assert.ok((await mapRows()) < 100);

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

      // A row opens its game, from a list scrolled a little: the list is not built again
      // (the same scroll box, at the same place, its first visible row right under the
      // headers, no blank band), only the selection moves.
      const box = page.locator('#games .games-scroll');
      await box.evaluate((el) => {
        el.scrollIntoView({ block: 'start' });
        el.scrollTop = Math.round(el.querySelector('tr.game-row').getBoundingClientRect().height * 1.5);
        el.dataset.probe = 'before';
      });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // A game whose row is wholly in view (the click scrolls nothing).
      const { scrolled, pick } = await box.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const head = el.querySelector('thead').getBoundingClientRect().bottom;
        const row = [...el.querySelectorAll('tr.game-row')].find((x) => {
          const b = x.getBoundingClientRect();
          return b.top >= Math.max(head, r.top, 0) && b.bottom <= Math.min(r.bottom, innerHeight);
        });
        return { scrolled: el.scrollTop, pick: Number(row.dataset.game) };
      });
      assert.ok(scrolled > 0);
      await page.click(`#games tr.game-row[data-game="${pick}"]`);
      assert.equal(await page.evaluate(() => window.fairsight.state.game), pick);
      assert.match(await page.textContent('#game .game-head'), new RegExp(`${games[pick].white}[\\s\\S]*${games[pick].black}`));
      assert.equal(await page.getAttribute(`#games tr.game-row[data-game="${pick}"]`, 'aria-current'), 'true');
      // The page's smooth scroll to the game ends before the screenshot.
      await page.waitForFunction(() => {
        const w = window;
        const y = w.scrollY;
        const same = w.__lastY === y;
        w.__lastY = y;
        return same;
      }, null, { polling: 200 });
      await page.screenshot({ path: path.join(shots, `many-games-open-${name}-${colorScheme}.png`) });
      // With a game open the whole table is in view: its box does not scroll sideways
      // (Black's columns used to sit behind a horizontal scroll, beside the game at
      // 1280 px), and every column header is shown and within the window's width (on a
      // phone, where each game is a card, the sort buttons: the groups' headers are not
      // shown there, each button names its side).
      const fit = await box.evaluate((el) => ({
        scrollWidth: el.scrollWidth,
        clientWidth: el.clientWidth,
        viewport: document.documentElement.clientWidth,
        headers: [...el.querySelectorAll('thead th')].map((th) => {
          const r = th.getBoundingClientRect();
          return { header: th.textContent.trim(), group: th.classList.contains('group'), left: Math.round(r.left), right: Math.round(r.right), width: Math.round(r.width) };
        }),
      }));
      assert.ok(fit.scrollWidth <= fit.clientWidth + 1, `${name}: the games table scrolls sideways (${fit.scrollWidth}px of content in ${fit.clientWidth}px)`);
      assert.equal(fit.headers.length, 19);
      if (name === 'phone') fit.headers = fit.headers.filter((hd) => !hd.group);
      const outside = fit.headers.filter((hd) => hd.width <= 0 || hd.left < 0 || hd.right > fit.viewport + 1);
      assert.deepEqual(outside, [], `${name}: column headers hidden or outside the window (0-${fit.viewport}px)`);
      const after = await box.evaluate((el) => {
        el.scrollIntoView({ block: 'start' });
        const r = el.getBoundingClientRect();
        const head = el.querySelector('thead').getBoundingClientRect();
        // The box's visible top, under its headers where they stay on top.
        const top = Math.max(r.top, head.bottom);
        const at = document.elementFromPoint(r.left + 30, top + 3);
        const row = at?.closest('tr');
        return {
          probe: el.dataset.probe,
          scrollTop: el.scrollTop,
          top,
          at: row ? `${row.className} ${row.dataset.game ?? ''}` : String(at?.tagName),
          rowTop: row?.getBoundingClientRect().top,
          rowBottom: row?.getBoundingClientRect().bottom,
        };
      });
      assert.equal(after.probe, 'before', 'the same scroll box: the list was not built again');
      assert.equal(after.scrollTop, scrolled, 'the list keeps its scroll position');
      assert.match(after.at, /game-row/, `under the headers: ${JSON.stringify(after)}`);
      assert.ok(after.rowTop <= after.top + 0.5 && after.rowBottom > after.top, JSON.stringify(after));
      await page.locator('#games').screenshot({ path: path.join(shots, `many-games-list-open-${name}-${colorScheme}.png`) });
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});

test('a file of 8,000 games is imported in a worker: "Importing: N games" counts up while the main thread stays free', { skip: SKIP }, async () => {
  const N = 8000;
  const { pgn } = manyGames(N);
  const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=1&nosw=1`);
  // Every text of the progress line, and every long task of the main thread (50 ms or
  // more of work without a break), timed.
  await page.evaluate(() => {
    const probe = { texts: [], long: [] };
    window.probe = probe;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) probe.long.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask' });
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
  const { texts, long } = await page.evaluate(() => window.probe);
  const at = texts.findIndex(([, t]) => /^Importing: /.test(t));
  assert.ok(at >= 0, `no import progress: ${JSON.stringify(texts.slice(0, 5))}`);
  const end = texts.findIndex(([, t], i) => i > at && !/^Importing: /.test(t));
  assert.ok(end > at, 'the import ends');
  assert.match(texts[end][1], new RegExp(`^Imported ${N} games`));
  const counts = texts.slice(at, end).map(([, t]) => Number(/^Importing: (\d+) games?…$/.exec(t)[1]));
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'the count only grows');
  // The worker tells the first count the core gives (100 games), then one every 100 ms,
  // then the whole count: a count between none and all and the end are shown however
  // fast the machine imports.
  assert.ok(counts.some((c) => c > 0 && c < N), `counts seen: ${counts.join(', ')}`);
  assert.equal(counts.at(-1), N, `counts seen: ${counts.join(', ')}`);
  // The main thread stays free while the worker imports: no long task of a fifth of a
  // second (work, not waiting for a core: a loaded machine delays frames, not this).
  const [from, to] = [texts[at][0], texts[end][0]];
  const blocking = long.filter(([t, d]) => t + d > from && t < to && d >= 200);
  assert.deepEqual(blocking, [], `long tasks during a ${Math.round(to - from)} ms import: ${JSON.stringify(long)}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Cancel while a file of 8,000 games is imported stops the import at once; no engine starts', { skip: SKIP }, async () => {
  const { pgn } = manyGames(8000);
  const { context, page, requests, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=1&nosw=1`);
  const analyzer = nextAnalyzerWorker(page);
  await page.setInputFiles('#file', { name: 'season.pgn', mimeType: 'application/x-chess-pgn', buffer: Buffer.from(pgn) });
  await page.waitForFunction(() => /^Importing: [1-9]/.test(document.querySelector('#progress-text').textContent), null, { polling: 20 });
  const worker = await analyzer;
  const closed = new Promise((resolve) => worker.once('close', resolve));
  const t = Date.now();
  await page.click('#cancel');
  await page.waitForFunction(() => document.body.dataset.state === 'cancelled', null, { timeout: 5000 });
  assert.ok(Date.now() - t < 3000, 'cancel is immediate');
  await closed; // the analyzer's worker, and the import with it, ended
  assert.match(await page.textContent('#messages'), /Cancelled before any position was analysed\./);
  assert.equal(await page.isEnabled('#analyse'), true);
  assert.equal(await page.isEnabled('#cancel'), false);
  assert.equal(await page.evaluate(() => window.fairsight.state.pool), null);
  assert.ok(!requests.some((u) => u.includes('/engine/')), 'no engine was started');
  assert.deepEqual(errors, []);
  await context.close();
});

test("a player's scans list the 10 games least likely by chance, not one item a game", { skip: SKIP }, async () => {
  // A CLI report of one game with a stretch for each side, its game repeated 14 times
  // with its stretch's chance varied, opened as a saved report.
  const one = JSON.parse(cliReport(path.join(root, 'tests', 'fixtures', 'rated.pgn'), ['--depth', '4', '--multipv', '2', '--book', 'none']));
  const white = one.games[0].sides.white;
  assert.ok(white.stretch && typeof white.stretch.fromPly === 'number', 'the game has a stretch');
  const report = { ...one, games: Array.from({ length: 14 }, (_, i) => {
    const g = structuredClone(one.games[0]);
    g.index = i;
    g.sides.white.stretch.pAdjusted = (14 - i) / 20;
    return g;
  }) };
  const saved = path.join(root, 'target', `scans-${process.pid}.json`);
  fs.writeFileSync(saved, JSON.stringify(report));
  const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`);
  await page.setInputFiles('#open-report', saved);
  await page.waitForFunction(() => document.body.dataset.state === 'done');
  // Their card, by its heading (the opponent's card names them too, in its scans).
  const card = page.locator('.player-card', { has: page.locator(`h3:text-is("${white.player}")`) });
  await card.locator('details.expert > summary').click();
  const scans = await card.locator('.scan-list li').allTextContents();
  assert.equal(scans.length, 10);
  // The ten least likely by chance (the last ten games here), in game order.
  assert.deepEqual(scans.map((t) => Number(/^Game (\d+)/.exec(t)[1])), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  assert.match(await card.locator('.scans').textContent(), /The 10 least likely by chance of 14 games; the exported report has them all\./);
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(saved);
});

test('130 players: the summary and the panels come a page at a time, in the summary\'s order, and follow the player filter', { skip: SKIP }, async () => {
  // A CLI report of one game, its players cloned into 130 with names and move counts of
  // their own, opened as a saved report (no engine runs).
  const one = JSON.parse(cliReport(path.join(root, 'tests', 'fixtures', 'rated.pgn'), ['--depth', '4', '--multipv', '2', '--book', 'none']));
  const N = 130;
  const name = (i) => `Player${String(i).padStart(3, '0')}`;
  const players = Array.from({ length: N }, (_, i) => ({
    ...structuredClone(one.players[0]),
    name: name(i),
    analysedPlies: 10 + ((i * 37) % N),
  }));
  // Three players assessed (the report's settings have no model: the others are not),
  // far down the report's order.
  const assessed = { 120: ['look closer', 0.97], 70: ['unclear', 0.6], 125: ['look closer', 0.99] };
  for (const [i, [level, probability]] of Object.entries(assessed)) {
    players[i].assessment = { level, probability, moves: 40, basis: 'rated', thresholds: [0.5, 0.9], reasons: [] };
  }
  // With more players than a page, the summary starts with those to look at first.
  const first = [125, 120, 70, ...players.map((_, i) => i).filter((i) => !(i in assessed))];
  const report = { ...one, players };
  const saved = path.join(root, 'target', `players-${process.pid}.json`);
  fs.writeFileSync(saved, JSON.stringify(report));
  const cardNames = (page) => page.locator('#players .player-card h3').allTextContents();
  const summaryNames = (page) => page.locator('#summary tbody button.player-link').allTextContents();
  for (const [view, viewport, colorScheme] of [
    ['desktop', { width: 1280, height: 900 }, 'light'],
    ['phone', { width: 390, height: 844 }, 'dark'],
  ]) {
    const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`, { viewport, colorScheme });
    await page.setInputFiles('#open-report', saved);
    await page.waitForFunction(() => document.body.dataset.state === 'done');
    // The summary: a page of 100 rows, the players to look at first; the panels: a page
    // of 24, in its order.
    assert.deepEqual(await summaryNames(page), first.slice(0, 100).map(name));
    assert.equal(await page.getAttribute('#summary th:has(button[data-sort="level"])', 'aria-sort'), 'descending');
    assert.equal(await page.textContent('#summary .players-count'), '100 of 130 players, those to look at first; the column headers sort all of them. Show 30 more');
    assert.deepEqual(await cardNames(page), first.slice(0, 24).map(name));
    assert.equal(await page.textContent('#players .players-count'), "24 of 130 players, in the summary's order. Show 24 more");
    await page.click('#players button.more-players');
    assert.deepEqual(await cardNames(page), first.slice(0, 48).map(name));
    // The keyboard goes on where the list grew: the first new panel has the focus.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), name(first[24]));
    for (let k = 0; k < 10 && (await page.locator('#players button.more-players').count()); k++) {
      await page.click('#players button.more-players');
    }
    assert.equal(await page.locator('#players .player-card').count(), N);
    assert.equal(await page.locator('#players .players-count').count(), 0, 'all shown: no count, no button');

    // Sorted by moves, most first: the summary's first page and the panels follow.
    await page.click('#summary button[data-sort="moves"]');
    const byMoves = players.map((p, i) => i).sort((a, b) => players[b].analysedPlies - players[a].analysedPlies || a - b);
    assert.deepEqual(await summaryNames(page), byMoves.slice(0, 100).map((i) => name(i)));
    assert.deepEqual(await cardNames(page), byMoves.map((i) => name(i)));
    await page.click('#summary button.more-players');
    assert.deepEqual(await summaryNames(page), byMoves.map((i) => name(i)));
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), name(byMoves[100]));
    assert.equal(await page.locator('#summary .players-count').count(), 0);

    // The player filter of the games keeps the panels of the matching players, and says so.
    await page.fill('#player-filter', 'player01');
    const matching = byMoves.filter((i) => name(i).toLowerCase().includes('player01'));
    assert.deepEqual(await cardNames(page), matching.map((i) => name(i)));
    assert.equal(await page.textContent('#players .players-count'), `10 of 10 players matching \u201cplayer01\u201d.`);
    await page.locator('#players').screenshot({ path: path.join(shots, `players-filtered-${view}-${colorScheme}.png`) });
    await page.fill('#player-filter', 'nobody');
    assert.equal(await page.textContent('#players'), 'No player matching \u201cnobody\u201d.');
    // Cleared, the filter gives the first page of panels again.
    await page.fill('#player-filter', '');
    assert.equal(await page.locator('#players .player-card').count(), 24);
    await page.locator('#players .players-count').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, `players-page-${view}-${colorScheme}.png`) });
    assert.deepEqual(errors, []);
    await context.close();
  }
  fs.rmSync(saved);
});

/**
 * `n` (at most 182) different short games of a few players: the Italian four knights'
 * first four plies, then one of 13 white and one of 14 black moves. Each game is a job
 * of its own, so none is answered from another's cached result.
 */
function variedGames(n) {
  const white = ['Bb5', 'Bc4', 'd4', 'Nc3', 'c3', 'Be2', 'd3', 'b3', 'a3', 'h3', 'g3', 'a4', 'h4'];
  const black = ['a6', 'h6', 'd6', 'g6', 'b6', 'a5', 'h5', 'Rb8', 'Qe7', 'Be7', 'Bc5', 'Nf6', 'Nge7', 'f6'];
  const games = [];
  for (let g = 0; g < n; g++) {
    const [w, b] = [`Player${g % 7}`, `Player${(g + 3) % 11}`];
    games.push(
      `[Event "Open"]\n[White "${w}"]\n[Black "${b}"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 3. ${white[g % 13]} ${black[Math.floor(g / 13) % 14]} *\n`,
    );
  }
  return games.join('\n');
}

test('a file analysed a segment at a time: the report is the CLI\'s byte for byte, and a cancelled run keeps a whole report of the games reached', { skip: SKIP }, async () => {
  // 180 games, no book (every ply searched, at depth 1), 60 games a segment: three
  // analyzers one after the other in the analyzer's worker, the players over all of them.
  const N = 180;
  const pgn = variedGames(N);
  const file = path.join(root, 'target', `segments-${process.pid}.pgn`);
  fs.writeFileSync(file, pgn);
  const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=2&book=none&segment=60&nosw=1`);
  const report = await pickFile(page, pgn);
  assert.equal(report.games.length, N);
  assert.ok(report.games.every((g) => g.plies.every((p) => p.searched)), 'every ply searched');
  assert.equal(await page.evaluate(() => window.fairsight.state.lastRun.analyzer.segments), 3);
  const json = await page.evaluate(() => window.fairsight.state.reportJson);
  assert.equal(`${json}\n`, cliReport(file, ['--depth', '1', '--multipv', '1', '--book', 'none']));
  assert.equal(await page.textContent('#games-count'), `${N} games`);

  // Again at depth 5 (nothing cached), cancelled while the second segment is analysed
  // (by the pool in the worker, at once: the Cancel button's way there is app.test.mjs's):
  // the report kept is whole JSON, the games of the segments reached, in order.
  await page.goto(`${site.origin}/?depth=5&lines=1&workers=2&book=none&segment=60&nosw=1`);
  await page.waitForFunction(() => window.fairsight?.state);
  const runs = await page.evaluate(() => window.fairsight.state.runs);
  const analyzer = nextAnalyzerWorker(page);
  await page.setInputFiles('#file', { name: 'season.pgn', mimeType: 'application/x-chess-pgn', buffer: Buffer.from(pgn) });
  await (await analyzer).evaluate(
    () =>
      new Promise((resolve) => {
        const poll = setInterval(() => {
          if (self.fairsightSegment === 60 && self.fairsightPool?.slots.some((s) => s.job !== null)) {
            clearInterval(poll);
            self.fairsightPool.cancel();
            resolve();
          }
        }, 5);
      }),
  );
  await page.waitForFunction((n) => window.fairsight.state.runs > n, runs, { timeout: 60000 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'cancelled');
  const cut = JSON.parse(await page.evaluate(() => window.fairsight.state.reportJson));
  assert.equal(cut.settings.limit.depth, 5);
  assert.equal(cut.games.length, 120, 'the games of the two segments reached');
  assert.ok(cut.games.slice(60).some((g) => g.plies.some((p) => !p.searched)), 'the second segment cut short');
  assert.deepEqual(cut.games.map((g) => g.index), cut.games.map((_, i) => i));
  assert.ok(cut.games.slice(0, 60).every((g) => g.plies.every((p) => p.searched)), 'the first segment whole');
  assert.ok(cut.players.length > 0);
  assert.equal(await page.textContent('#games-count'), `120 of the file's ${N} games`);
  await page.locator('#games').screenshot({ path: path.join(shots, 'many-games-segments-cancelled.png') });
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(file);
});

test('a full disk in the middle of a file analysed in segments: the games stored before and those after are all in the report', { skip: SKIP }, async () => {
  // The analyzer worker's writes are refused from the second segment on: the first
  // segment's games are in IndexedDB, the others go to the tab's memory, and the report
  // is still the CLI's, byte for byte.
  const N = 180;
  const pgn = variedGames(N);
  const file = path.join(root, 'target', `segments-full-${process.pid}.pgn`);
  fs.writeFileSync(file, pgn);
  const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=1&lines=1&workers=2&book=none&segment=60&nosw=1`);
  page.on('worker', (w) => {
    if (!w.url().includes('analyzer-worker')) return;
    w.evaluate(() => {
      const put = IDBObjectStore.prototype.put;
      self.__refused = 0;
      IDBObjectStore.prototype.put = function (...args) {
        if (!(self.fairsightSegment >= 60)) return put.apply(this, args);
        self.__refused++;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      };
    }).catch(() => {});
  });
  const report = await pickFile(page, pgn);
  assert.equal(report.games.length, N);
  assert.equal(await page.evaluate(() => window.fairsight.state.store.memory?.has(window.fairsight.state.run)), true, 'kept in memory');
  assert.equal(await page.evaluate(() => window.fairsight.state.lastRun.analyzer.segments), 3);
  const json = await page.evaluate(() => window.fairsight.state.reportJson);
  assert.equal(`${json}\n`, cliReport(file, ['--depth', '1', '--multipv', '1', '--book', 'none']));
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(file);
});

test("the analyzer's views are made one after the other: the head stored is the later view's", { skip: SKIP }, async () => {
  // 450 games with nothing to search: a view stores them in three batches, over several
  // awaits. The engine is named between two views asked at once: the report stored must
  // carry the name, whatever the order the batches are written in.
  const { pgn } = manyGames(450);
  const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`);
  const out = await page.evaluate(async (pgn) => {
    const { AnalyzerWorker } = await import('/www/analyzer.js');
    const { ReportStore } = await import('/www/report-store.js');
    const a = new AnalyzerWorker();
    const run = ReportStore.newRun();
    await a.open(pgn, { limit: { depth: 1 }, multipv: 1, minMove: 100000, book: 'none' }, undefined, [], run);
    const first = a.view();
    a.setEngine('Second engine', 'second');
    const second = a.view();
    const [v1, v2] = await Promise.all([first, second]);
    const store = await ReportStore.open();
    const report = JSON.parse(await store.text(run));
    const usage = await a.usage();
    a.terminate();
    return { engine: report.engine, games: report.games.length, rows: [v1.rows.length, v2.rows.length], views: usage.views };
  }, pgn);
  assert.equal(out.games, 450);
  assert.deepEqual(out.rows, [450, 450]);
  assert.equal(out.engine.name, 'Second engine', JSON.stringify(out));
  // Every game given once, by the first view; the second gave none.
  assert.deepEqual(out.views.map((v) => v[1]), [450, 0]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a full disk: the report's games stay in the tab's memory, and the report is whole", { skip: SKIP }, async () => {
  const { context, page, errors } = await openPage(browser, `${site.origin}/?depth=4&lines=1&workers=1&nosw=1`);
  // Every write of the analyzer's worker is refused, as a browser refuses it when the
  // page's storage is full.
  const refuse = () => {
    self.__refused = 0;
    IDBObjectStore.prototype.put = function () {
      self.__refused++;
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  };
  page.on('worker', (w) => {
    if (w.url().includes('analyzer-worker')) w.evaluate(refuse).catch(() => {});
  });
  const pgn = fs.readFileSync(path.join(root, 'tests', 'fixtures', 'three-games-one-illegal.pgn'), 'utf8');
  const runs = await page.evaluate(() => window.fairsight.state.runs);
  await page.fill('#pgn', pgn);
  await page.click('#analyse');
  await page.waitForFunction((n) => window.fairsight.state.runs > n, runs, { timeout: 300000 });
  assert.equal(await page.evaluate(() => window.fairsight.state.store.memory?.has(window.fairsight.state.run)), true, 'kept in memory');
  const json = await page.evaluate(() => window.fairsight.state.reportJson);
  const report = JSON.parse(json);
  assert.equal(report.games.length, 3);
  assert.ok(report.games.filter((g) => !g.error).every((g) => g.plies.every((p) => p.searched || p.excluded)), 'every ply analysed');
  const shown = report.games.find((g) => !g.error);
  assert.match(await page.textContent('#game .game-head'), new RegExp(shown.tags.White));

  // A saved report opened while the page's own writes are refused: kept in memory too,
  // the same bytes back.
  const saved = path.join(root, 'target', `full-disk-${process.pid}.json`);
  fs.writeFileSync(saved, json);
  await page.evaluate(refuse);
  // The run shown before, read before the file is given (the report may open before a
  // read after it).
  const before = await page.evaluate(() => window.fairsight.state.run);
  await page.setInputFiles('#open-report', saved);
  await page.waitForFunction((prev) => window.fairsight.state.run && window.fairsight.state.run !== prev, before);
  assert.ok(await page.evaluate(() => self.__refused > 0), 'the page tried to store it');
  assert.equal(await page.evaluate(() => window.fairsight.state.store.memory?.has(window.fairsight.state.run)), true);
  assert.equal(await page.evaluate(() => window.fairsight.state.reportJson), json);
  assert.deepEqual(errors, []);
  await context.close();
  fs.rmSync(saved);
});

test('a report stays stored while a tab shows it; a page that starts removes those of closed tabs', { skip: SKIP }, async () => {
  const context = await browser.newContext();
  const url = `${site.origin}/?depth=2&lines=1&workers=1&nosw=1`;
  const pgn = fs.readFileSync(path.join(root, 'tests', 'fixtures', 'defaults.pgn'), 'utf8');
  const open = async () => {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.state === 'idle');
    return page;
  };
  const analyse = async (page) => {
    await page.fill('#pgn', pgn);
    await page.click('#analyse');
    await page.waitForFunction(() => window.fairsight.state.runs > 0, null, { timeout: 300000 });
    return page.evaluate(() => window.fairsight.state.run);
  };
  // The runs in the database, once the page's start-up clean-up is done.
  const runs = (page) =>
    page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const req = indexedDB.open('fairsight-reports');
          req.onsuccess = () => {
            const keys = req.result.transaction('heads').objectStore('heads').getAllKeys();
            keys.onsuccess = () => resolve(keys.result.sort());
            keys.onerror = () => reject(keys.error);
          };
          req.onerror = () => reject(req.error);
        }),
    );
  const first = await open();
  const one = await analyse(first);
  const second = await open();
  const two = await analyse(second);
  assert.deepEqual(await runs(second), [one, two].sort(), 'both tabs show their report');
  await first.close();
  const third = await open();
  await third.waitForFunction(
    (gone) => new Promise((resolve) => {
      const req = indexedDB.open('fairsight-reports');
      req.onsuccess = () => {
        const keys = req.result.transaction('heads').objectStore('heads').getAllKeys();
        keys.onsuccess = () => resolve(!keys.result.includes(gone));
      };
    }),
    one,
  );
  assert.deepEqual(await runs(third), [two], "the closed tab's report is removed, the open one's kept");
  // The open tab still opens its games and exports its report.
  assert.equal(JSON.parse(await second.evaluate(() => window.fairsight.state.reportJson)).games.length, 2);
  await context.close();
});

test('a report read back while it is replaced is read whole: the removal waits for the read', { skip: SKIP }, async () => {
  const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`);
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  const result = await page.evaluate(async () => {
    const { ReportStore, storeReport } = await import('./www/report-store.js');
    const store = await ReportStore.open();
    // 3,000 small games: the read takes several batches of 500, each its own request.
    const games = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ index: i, tags: { White: `w${i}` }, plies: [] }));
    const json = `{"version":1,"games":[${games.join(',')}],"players":[]}`;
    const run = ReportStore.newRun();
    await storeReport(store, run, json);
    // As when ratings are applied twice in a row: the second read starts, then the
    // first's new report replaces this run and removes it.
    const read = store.text(run);
    const removed = store.remove(run);
    const [text] = await Promise.all([read.catch((e) => `error: ${e.message}`), removed]);
    const after = await store.text(run).catch((e) => e.message);
    return { same: text === json, start: text.slice(0, 60), after };
  });
  assert.ok(result.same, `read whole while removed: ${result.start}`);
  assert.equal(result.after, 'The report is no longer stored.');
  assert.deepEqual(errors, []);
  await context.close();
});
