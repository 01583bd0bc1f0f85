// Memory of the page with many games (issue 14, item 2), through the Chrome DevTools
// Protocol. Not a test: it prints, it asserts nothing. For each number of games, in a
// fresh tab: the JS heap (used and total, after a forced garbage collection) and the DOM
// (nodes, event listeners) of the idle page, then of the page once a file of that many
// games is analysed at a shallow setting (depth 1, 1 line, no opening book, so every
// ply is searched), with the peak heap sampled every 250 ms during the run, the time
// the import and the run took, and where the DOM nodes are (games list, move map,
// players); and the analyzer worker's cost: the views of the report it made during the
// run, their time, and the core's wasm memory at the end (its peak: it never shrinks).
// Workers (the analyzer's, the engines') are other heaps: the page ends them after the
// run, so they are not in the heap figures after it.
// Usage: node scripts/bench-page-memory.mjs [--games 500,5000] [--workers 2] [--book]
//          [--views changed,whole] [--depth 1] [--players 60] [--segments 1000,0]
//   (--book: the built-in book, in which the generated games are whole, so no engine runs;
//   --views: how the analyzer worker makes its views, `changed` (the page's: the core
//   gives the changed games alone) and `whole` (the baseline: the whole report at each
//   view), each in a fresh tab for each number of games, with their ratios at the end;
//   --segments: the games a segment of the analyzer worker (`?segment=N`; 0: the whole
//   file in one analyzer), each in a fresh tab, with their ratios at the end. The
//   generated games are all the same moves, so with segments every job after the first
//   segment's is in the cache by the time its segment starts: compare their times with
//   --book, where no engine runs)
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
const modes = opt('--views', 'changed').split(',');
const depth = Number(opt('--depth', 1));
const players = Number(opt('--players', 60));
const segments = opt('--segments', '')
  .split(',')
  .filter((x) => x !== '')
  .map(Number);

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
  for (const n of counts) for (const views of modes) for (const segment of segments.length ? segments : [null]) {
    const { pgn } = manyGames(n, players);
    const mode = segment === null ? views : `${views}, segments of ${segment || 'all'}`;
    const param = segment === null ? '' : `&segment=${segment || 1e9}`;
    const url = `${site.origin}/?depth=${depth}&lines=1&workers=${workers}&book=${book}&nosw=1${views === 'whole' ? '&views=whole' : ''}${param}`;
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
        analyzer: window.fairsight.state.lastRun?.analyzer ?? null,
        positions: JSON.parse(json).games.reduce((s, g) => s + g.plies.filter((p) => p.searched).length, 0),
      };
    });
    rows.push({ n, mode, before, after, peak, importMs, runMs, where });
    console.log(
      `${n} games of ${players} players, views ${mode} (${where.positions} positions searched, depth ${depth}, 1 line, book ${book}, ${workers} workers): ` +
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
    const w = where.analyzer;
    if (w) {
      const ms = w.views.reduce((s, v) => s + v[0], 0);
      console.log(
        `  analyzer worker: ${w.views.length} views of the report in ${(ms / 1000).toFixed(1)} s (${((100 * ms) / runMs).toFixed(1)}% of the run; ` +
          `ms and games given of each: ${w.views.map(([t, g]) => `${t}/${g}`).join(' ')}), core wasm memory ${MB(w.wasmBytes)}, ` +
          `${w.segments ?? 1} segment(s)`,
      );
    }
    await context.close();
  }
  for (const n of counts) {
    const [c, w] = ['changed', 'whole'].map((m) => rows.find((r) => r.n === n && r.mode === m)?.where.analyzer);
    if (c && w) {
      // A view of the whole report costs about the same however few games changed; the
      // page's views cost what changed. Compared: the mean view after the first.
      const later = (a) => a.views.slice(1).reduce((s, v) => s + v[0], 0) / Math.max(1, a.views.length - 1);
      console.log(
        `${n} games, whole / changed views, in this run: a view after the first x${(later(w) / later(c)).toFixed(1)} ` +
          `(${later(w).toFixed(0)} / ${later(c).toFixed(0)} ms), core wasm memory x${(w.wasmBytes / c.wasmBytes).toFixed(2)}`,
      );
    }
  }
  if (segments.length === 2) {
    for (const n of counts) {
      const [a, b] = segments.map((s) => rows.find((r) => r.n === n && r.mode === `${modes[0]}, segments of ${s || 'all'}`));
      if (a?.where.analyzer && b?.where.analyzer) {
        console.log(
          `${n} games, segments of ${segments[0] || 'all'} / ${segments[1] || 'all'}, in this run: core wasm memory ` +
            `${MB(a.where.analyzer.wasmBytes)} / ${MB(b.where.analyzer.wasmBytes)} (x${(a.where.analyzer.wasmBytes / b.where.analyzer.wasmBytes).toFixed(2)}), ` +
            `run ${(a.runMs / 1000).toFixed(1)} / ${(b.runMs / 1000).toFixed(1)} s (x${(a.runMs / b.runMs).toFixed(2)}), ` +
            `main heap peak ${MB(a.peak)} / ${MB(b.peak)}`,
        );
      }
    }
  }
  const first = rows.filter((r) => r.mode === rows[0]?.mode);
  if (first.length > 1) {
    const [a, b] = [first[0], first.at(-1)];
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
