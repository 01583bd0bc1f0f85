// fairsight: the core's Analyzer in a worker of its own. GPL-3.0-or-later.
//
// The import of a file (thousands of games), the planning of its jobs, every result
// added and every report made from them run here, off the page's main thread, which
// stays free to draw the progress and answer the user. The page holds a small handle
// (analyzer.js); this file only forwards its requests to the core and the core's import
// progress to the page. One analysis per worker: the page ends the worker after the run,
// which gives back all of the memory the run took.
//
// The report goes to the page as a view (report-store.js): the report without its games
// and one light row a game; each game's JSON text goes from here to IndexedDB, again
// only when it changed, so the page's main thread never holds the whole report.
import init, { Analyzer } from './pkg/fairsight.js';
import { ReportStore, headOf, lightGame, splitReport, textHash } from './report-store.js';

// The import's progress goes to the page by time, not by games: the first count the
// core tells (at 100 games), then the count whenever this many milliseconds have passed
// since the last message (the core tells every 100 games), then the whole count at the
// end. So the page sees a count between none and all, and the end, however fast the
// import runs, and a message at most about every PROGRESS_MS of a long one.
const PROGRESS_MS = 100;

const ready = init();
let analyzer = null;
let store = null;
let run = null;
// Per game: the hash of the text stored, and its light row.
let stored = [];
let inMemory = false; // the browser refused to store the report: the page keeps it

const ops = {
  /** Imports the PGN with progress, applies the ratings, and returns the plan. */
  async open({ pgn, settings, book, ratings, run: id }) {
    await ready;
    store = await ReportStore.open();
    run = id;
    let last = -Infinity;
    let told = -1;
    const a = Analyzer.withProgress(pgn, settings, book, (games) => {
      const now = performance.now();
      if (now - last < PROGRESS_MS) return;
      last = now;
      told = games;
      postMessage({ type: 'progress', games });
    });
    const games = a.games();
    if (told !== games.length) postMessage({ type: 'progress', games: games.length });
    try {
      for (const line of ratings) a.setRatingText(line);
    } catch (err) {
      a.free();
      throw err;
    }
    analyzer = a;
    const jobs = Array.from({ length: a.jobCount() }, (_, i) => a.jobJson(i));
    return {
      games,
      settings: a.settings(),
      jobs,
      labels: jobs.map((_, i) => a.jobLabel(i)),
      total: a.totalPositions(),
    };
  },
  /** Adds a (partial or whole) result; returns the positions done. */
  add: ({ json }) => {
    analyzer.addResultJson(json);
    return analyzer.donePositions();
  },
  setEngine: ({ name, build }) => analyzer.setEngine(name, build),
  report: () => analyzer.reportJson(),
  /**
   * Stores the report's games that changed since the last view, and returns the view:
   * `{head, rows}` (the report without its games, one light row a game).
   */
  async view() {
    const parts = splitReport(analyzer.reportJson());
    const changed = [];
    const rows = parts.games.map((g, i) => {
      const hash = textHash(g.text);
      if (stored[i]?.hash !== hash) {
        stored[i] = { hash, row: lightGame(JSON.parse(g.text), hash) };
        changed.push([i, g]);
      }
      return stored[i].row;
    });
    stored.length = parts.games.length;
    const at = { head: parts.head, tail: parts.tail, count: parts.games.length };
    // Without IndexedDB here, or once the browser refused a write (a full disk), the page
    // keeps the texts in its memory instead (all of them, the first time): the report is
    // never lost, only no longer bounded.
    if (!store.db || inMemory) return { head: headOf(parts), rows, parts: { ...at, changed, memory: true } };
    try {
      await store.put(run, at, changed);
    } catch {
      inMemory = true;
      const all = parts.games.map((g, i) => [i, g]);
      return { head: headOf(parts), rows, parts: { ...at, changed: all, memory: true } };
    }
    return { head: headOf(parts), rows };
  },
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    postMessage({ id, result: await ops[op](args) });
  } catch (err) {
    postMessage({ id, error: err?.message || String(err) });
  }
};
