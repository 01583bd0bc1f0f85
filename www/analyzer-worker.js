// fairsight: the core's Analyzer in a worker of its own. GPL-3.0-or-later.
//
// The import of a file (thousands of games), the planning of its jobs, every result
// added and every report made from them run here, off the page's main thread, which
// stays free to draw the progress and answer the user. The page holds a small handle
// (analyzer.js); this file only forwards its requests to the core and the core's import
// progress to the page. One analysis per worker: the page ends the worker after the run,
// which gives back all of the memory the run took.
import init, { Analyzer } from './pkg/fairsight.js';

// At most one progress message in this many milliseconds (the core tells every 100 games).
const PROGRESS_MS = 100;

const ready = init();
let analyzer = null;

const ops = {
  /** Imports the PGN with progress, applies the ratings, and returns the plan. */
  async open({ pgn, settings, book, ratings }) {
    await ready;
    let last = -Infinity;
    const a = Analyzer.withProgress(pgn, settings, book, (games) => {
      const now = performance.now();
      if (now - last < PROGRESS_MS) return;
      last = now;
      postMessage({ type: 'progress', games });
    });
    try {
      for (const line of ratings) a.setRatingText(line);
    } catch (err) {
      a.free();
      throw err;
    }
    analyzer = a;
    const jobs = Array.from({ length: a.jobCount() }, (_, i) => a.jobJson(i));
    return {
      games: a.games(),
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
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    postMessage({ id, result: await ops[op](args) });
  } catch (err) {
    postMessage({ id, error: err?.message || String(err) });
  }
};
