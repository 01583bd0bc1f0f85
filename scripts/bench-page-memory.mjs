// Memory of the page with many games (issue 14, item 2), through the Chrome DevTools
// Protocol. Not a test: it prints, it asserts nothing. For each number of games, in a
// fresh tab: the JS heap (used and total, after a forced garbage collection) and the DOM
// (nodes, event listeners) of the idle page, then of the page once a file of that many
// games is analysed at a shallow setting (depth 1, 1 line, no opening book, so every
// ply is searched), with the peak heap sampled every 250 ms during the run, the time
// the import and the run took, and where the DOM nodes are (games list, move map,
// players). Workers (the analyzer's, the engines') are other heaps: the page ends them
// after the run, so they are not in the figures after it.
// Usage: node scripts/bench-page-memory.mjs [--games 500,5000] [--workers 2] [--book]
//   (--book: the built-in book, in which the generated games are whole, so no engine runs)
// Needs scripts/install.sh and scripts/build-web.sh first.
import { launch, manyGames, openPage, startServer } from '../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const counts = opt('--games', '500,5000').split(',').map(Number);
const workers = Number(opt('--workers', 2));
const book = args.includes('--book') ? 'builtin' : 'none';

const MB = (b) => `${(b / 1048576).toFixed(1)} MB`;

/** The heap and DOM now, after full garbage collections (three: detached DOM nodes go in a later one). */
async function measure(cdp) {
  for (let i = 0; i < 3; i++) {
    await cdp.send('HeapProfiler.collectGarbage');
    await new Promise((r) => setTimeout(r, 200));
  }
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  const dom = await cdp.send('Memory.getDOMCounters');
  return { heapUsed: m.JSHeapUsedSize, heapTotal: m.JSHeapTotalSize, nodes: dom.nodes, listeners: dom.jsEventListeners };
}

const site = await startServer();
const browser = await launch();
const rows = [];
try {
  for (const n of counts) {
    const { pgn } = manyGames(n);
    const url = `${site.origin}/?depth=1&lines=1&workers=${workers}&book=${book}&nosw=1`;
    const { context, page } = await openPage(browser, url);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const before = await measure(cdp);
    let peak = before.heapUsed;
    const sampler = setInterval(async () => {
      try {
        const { metrics } = await cdp.send('Performance.getMetrics');
        peak = Math.max(peak, metrics.find((x) => x.name === 'JSHeapUsedSize').value);
      } catch {
        // the tab is closing
      }
    }, 250);
    const t0 = Date.now();
    await page.setInputFiles('#file', { name: 'season.pgn', mimeType: 'application/x-chess-pgn', buffer: Buffer.from(pgn) });
    await page.waitForFunction(() => /^Imported /.test(document.querySelector('#progress-text').textContent), null, { timeout: 0, polling: 50 });
    const importMs = Date.now() - t0;
    await page.waitForFunction(() => window.fairsight.state.runs > 0, null, { timeout: 0, polling: 250 });
    const runMs = Date.now() - t0;
    clearInterval(sampler);
    const after = await measure(cdp);
    // Counted before the report is read back from the browser's storage below (the
    // page's own heap is measured above, without it).
    const where = await page.evaluate(async () => {
      const count = (sel) => document.querySelector(sel)?.querySelectorAll('*').length ?? 0;
      const json = await window.fairsight.state.reportJson;
      return {
        all: document.querySelectorAll('*').length,
        games: count('#games'),
        gameRows: document.querySelectorAll('#games tr.game-row').length,
        moveMap: count('#move-map'),
        players: count('#players'),
        summary: count('#summary'),
        moveMapRows: document.querySelectorAll('#move-map g.mm-row').length,
        reportChars: json.length,
        positions: JSON.parse(json).games.reduce((s, g) => s + g.plies.filter((p) => p.searched).length, 0),
      };
    });
    rows.push({ n, before, after, peak, importMs, runMs, where });
    console.log(
      `${n} games (${where.positions} positions searched, depth 1, 1 line, book ${book}, ${workers} workers): ` +
        `import ${(importMs / 1000).toFixed(1)} s, run ${(runMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `  JS heap used: ${MB(before.heapUsed)} idle -> ${MB(after.heapUsed)} after (x${(after.heapUsed / before.heapUsed).toFixed(1)}, ` +
        `${((after.heapUsed - before.heapUsed) / n / 1024).toFixed(1)} kB a game), peak ${MB(peak)} during the run; total ${MB(after.heapTotal)}`,
    );
    console.log(
      `  DOM nodes: ${before.nodes} idle -> ${after.nodes} after (x${(after.nodes / before.nodes).toFixed(1)}); listeners ${before.listeners} -> ${after.listeners}`,
    );
    console.log(
      `  elements: ${where.all} in all; games list ${where.games} (${where.gameRows} game rows drawn), move map ${where.moveMap}, ` +
        `(${where.moveMapRows} rows drawn), players ${where.players}, summary ${where.summary}; the report ${MB(where.reportChars)} of JSON`,
    );
    await context.close();
  }
  if (rows.length > 1) {
    const [a, b] = [rows[0], rows.at(-1)];
    const grow = (f) => ((f(b) - f(a)) / (b.n - a.n)).toFixed(1);
    console.log(
      `from ${a.n} to ${b.n} games (x${(b.n / a.n).toFixed(0)}): heap after x${(b.after.heapUsed / a.after.heapUsed).toFixed(1)} ` +
        `(+${grow((r) => r.after.heapUsed / 1024)} kB a game), DOM nodes x${(b.after.nodes / a.after.nodes).toFixed(1)} (+${grow((r) => r.after.nodes)} a game), ` +
        `games list elements ${a.where.games} -> ${b.where.games}, move map elements ${a.where.moveMap} -> ${b.where.moveMap}`,
    );
  }
} finally {
  await browser.close();
  site.close();
}
