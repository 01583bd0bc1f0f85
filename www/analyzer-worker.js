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

// What stands between two games' texts in the report (the core's GAME_SEPARATOR).
const SEP = ',\n    ';

let wasm = null;
const ready = init().then((w) => {
  wasm = w;
});
let analyzer = null;
let store = null;
let run = null;
// Per game, its light row.
const rows = [];
let inMemory = false; // the browser refused to store the report: the page keeps it
let gaveAll = false; // the page was given every game's text to keep
// Each view's time (ms) and games given, for usage().
const work = { list: [] };
// The view being made (views are made one after the other).
let viewing = Promise.resolve();

// A view's games come from the core this many at a time, each batch stored before the
// next is made: the first view of thousands of games never holds all their texts at
// once, in the core's memory (which never shrinks) or here.
const BATCH = 200;

/** A batch of games' texts from the core as the store takes them, their rows updated. */
function gamesOf(changed, count) {
  return changed.map(([i, text]) => {
    rows[i] = lightGame(JSON.parse(text), textHash(text));
    return [i, { text, sep: i + 1 < count ? SEP : '' }];
  });
}

/**
 * The report's parts and its games that changed since the last view, from the core:
 * the first batch; `more()` gives the next (an empty one when all are given).
 */
function changedParts() {
  const parts = analyzer.reportParts(inMemory && !gaveAll, BATCH);
  const { count } = parts;
  let pending = parts.pending;
  const more = () => {
    if (!pending) return [];
    const m = analyzer.moreParts(BATCH);
    pending = m.pending;
    return gamesOf(m.changed, count);
  };
  return { parts, changed: gamesOf(parts.changed, count), more };
}

// The baseline (`?views=whole`): the whole report's JSON made at each view, split, and
// every game's text hashed to find the changed ones. Its work grows with the games at
// each view, so with their square over a run.
const WHOLE = new URL(self.location.href).searchParams.get('views') === 'whole';
const hashes = [];

function wholeParts() {
  const split = splitReport(analyzer.reportJson());
  const changed = [];
  split.games.forEach((g, i) => {
    const hash = textHash(g.text);
    if (hashes[i] !== hash || (inMemory && !gaveAll)) {
      hashes[i] = hash;
      rows[i] = lightGame(JSON.parse(g.text), hash);
      changed.push([i, g]);
    }
  });
  return { parts: { head: split.head, tail: split.tail, count: split.games.length }, changed, more: () => [] };
}

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
   * `{head, rows}` (the report without its games, one light row a game). The core
   * rebuilds and writes only those games and summarises only their players again
   * (`reportParts`), never the whole report: over a run of thousands of games the views'
   * work grows with the games, not with their square.
   */
  view() {
    // One view at a time: a view stores its games over several awaits (results may be
    // added meanwhile), and a later view must not write its head before an earlier one.
    const next = viewing.then(() => this.viewNow());
    viewing = next.catch(() => {});
    return next;
  },
  async viewNow() {
    const t0 = performance.now();
    const { parts, changed: first, more: next } = WHOLE ? wholeParts() : changedParts();
    // The core's time (and this thread's), not the store's.
    let ms = performance.now() - t0;
    const more = () => {
      const t = performance.now();
      const batch = next();
      ms += performance.now() - t;
      return batch;
    };
    const { count } = parts;
    rows.length = count;
    const at = { head: parts.head, tail: parts.tail, count };
    const head = headOf(at);
    // Without IndexedDB here, or once the browser refused a write (a full disk), the page
    // keeps the texts in its memory instead (all of them, the first time): the report is
    // never lost, only no longer bounded.
    if (!store.db || inMemory) {
      const changed = first;
      for (let batch = more(); batch.length; batch = more()) changed.push(...batch);
      gaveAll = true;
      work.list.push([Math.round(ms), changed.length]);
      return { head, rows, parts: { ...at, changed, memory: true } };
    }
    let given = first.length;
    try {
      // The games first, batch by batch; the head (which names the count) with the last,
      // so a reader of the stored report never meets a game not yet written.
      let batch = first;
      for (let following = more(); following.length; following = more()) {
        await store.putGames(run, batch);
        batch = following;
        given += batch.length;
      }
      await store.put(run, at, batch);
    } catch {
      inMemory = true;
      return this.viewNow();
    }
    work.list.push([Math.round(ms), given]);
    return { head, rows };
  },
  /**
   * What this worker has cost: each view made, `[ms, games given]`, and the core's wasm
   * memory (bytes; it only grows, so this is its peak).
   */
  usage: () => ({ views: work.list, wasmBytes: wasm.memory.buffer.byteLength }),
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    postMessage({ id, result: await ops[op](args) });
  } catch (err) {
    postMessage({ id, error: err?.message || String(err) });
  }
};
