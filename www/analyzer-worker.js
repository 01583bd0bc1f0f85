// fairsight: a run's core (Analyzer), engines and cache in a worker of their own.
// GPL-3.0-or-later.
//
// The import of a file (thousands of games), the planning of its jobs, the engines'
// searches, every result added and every report made from them run here, off the page's
// main thread, which stays free to draw the progress and answer the user. The page
// holds a small handle (analyzer.js); this file forwards its requests to the core and
// tells it the import's progress and the positions done. One analysis per worker: the
// page ends the worker after the run, which gives back all of the memory the run took
// (and ends its engines).
//
// The report goes to the page as a view (report-store.js): the report without its games
// and one light row a game; each game's JSON text goes from here to IndexedDB, again
// only when it changed, so the page's main thread never holds the whole report.
//
// The engines run from here too: the core's WorkerPool (pool.js) starts the Stockfish
// workers as this worker's own, their lines come here, and every result is added to the
// core and stored in the cache (the core's JobCache) where it arrives, without crossing
// to the page. The page hears the positions done (at most every DONE_MS), the pool's
// messages, and the outcome: its main thread only draws.
import init, { Analyzer, JobCache, WorkerPool } from './pkg/fairsight.js';
import { EnginePool } from './pool.js';
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
// The plan: each job's JSON and label, the settings in force.
let jobs = [];
let labels = [];
let planSettings = null;
// The cache (opened by the first lookup), and what the lookups left.
let cache = null;
let plan = null; // {build, pending: job indices to analyse, engineName}
// The running engine pool (`self.fairsightPool` too, for the page's tests), and a
// cancel asked before it started.
let pool = null;
let cancelAsked = false;

// The positions done go to the page at most this often (the first at once): it draws
// its progress line once a second, and every message is a task on its thread.
const DONE_MS = 1000;
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
    jobs = Array.from({ length: a.jobCount() }, (_, i) => a.jobJson(i));
    labels = jobs.map((_, i) => a.jobLabel(i));
    planSettings = a.settings();
    return { games, settings: planSettings, jobs: jobs.length, total: a.totalPositions() };
  },
  /**
   * Adds the results of `build`'s engine that the cache holds for the plan's jobs (the
   * cache's key is the core's, the CLI's, with the engine's name as the cache last
   * stored it for this build). Returns `{done, pending}`: the positions done, the jobs
   * left to analyse.
   */
  async lookUp({ build }) {
    cache ??= await JobCache.open();
    const cachedName = await cache.engineName(build);
    const pending = [];
    for (let i = 0; i < jobs.length; i++) {
      const hit =
        cachedName === undefined ? undefined : await cache.get(jobs[i], build, cachedName, planSettings.hashMb);
      if (hit !== undefined) {
        try {
          analyzer.addResultJson(hit);
          continue;
        } catch {
          // A stale entry: analyse again.
        }
      }
      pending.push(i);
    }
    const done = analyzer.donePositions();
    const engineName = done > 0 ? cachedName : null;
    analyzer.setEngine(engineName ?? '', build);
    plan = { build, pending, engineName };
    return { done, pending: pending.length };
  },
  /**
   * Runs the jobs `lookUp` left on `workers` engines of its build until all are done
   * (or failed twice) or `cancel`. Each result is added to the core and stored in the
   * cache as it comes; a full disk (or any storage failure) never stops the analysis: it
   * goes on uncached, and the page is told once. Resolves, once every result is added and
   * stored, to `{cancelled, failures: [{label, reason}], done, engineMs}`.
   */
  async analyse({ workers, stallMs }) {
    const { build, pending } = plan;
    const settings = planSettings;
    const message = (kind, text) => postMessage({ type: 'message', kind, text });
    let told = -Infinity;
    let timer = null;
    const tell = () => {
      if (timer) return;
      const send = () => {
        timer = null;
        told = performance.now();
        postMessage({ type: 'done', done: analyzer.donePositions() });
      };
      const wait = told + DONE_MS - performance.now();
      if (wait <= 0) send();
      else timer = setTimeout(send, wait);
    };
    const add = (k, json) => {
      try {
        analyzer.addResultJson(json);
      } catch (err) {
        message('error', `The result for ${labels[pending[k]]} was rejected: ${err.message || err}`);
        return false;
      }
      tell();
      return true;
    };
    const stores = [];
    let noticed = false;
    const notice = (text) => {
      if (noticed) return;
      noticed = true;
      message('warning', text);
    };
    const store = (i, name, json) => {
      const put = cache.put(jobs[i], build, name, settings.hashMb, json).then(
        (stored) => {
          if (!stored && cache.available) {
            notice(
              'The browser\'s storage for this page is full: the analysis goes on, but its results are not cached. "Clear cached analyses" in Settings frees space.',
            );
          }
        },
        (err) => notice(`${err.message || err}. The analysis goes on without the cache.`),
      );
      stores.push(put);
    };
    let engineMs = 0;
    const p = new EnginePool({ WorkerPool, settings, workers, build, stallMs });
    pool = p;
    self.fairsightPool = p;
    const outcome = cancelAsked
      ? { failures: [], cancelled: true }
      : await p.run({
          jobs: pending.map((i) => jobs[i]),
          onPartial: (k, json) => {
            if (p.engineName) analyzer.setEngine(p.engineName, build);
            add(k, json);
          },
          onResult: (k, json, ms) => {
            engineMs += ms;
            const name = p.engineName;
            if (name) analyzer.setEngine(name, build);
            if (add(k, json) && name) store(pending[k], name, json);
          },
          onLog: (m) => message('warning', m),
          label: (k) => labels[pending[k]],
        });
    clearTimeout(timer);
    pool = null;
    self.fairsightPool = null;
    analyzer.setEngine(p.engineName ?? plan.engineName ?? '', build);
    await Promise.all(stores);
    return {
      cancelled: outcome.cancelled,
      failures: outcome.failures.map((f) => ({ label: labels[pending[f.job]], reason: f.reason })),
      done: analyzer.donePositions(),
      engineMs,
    };
  },
  /** Names the engine of the report (as a run does once its engine tells its name). */
  setEngine: ({ name, build }) => analyzer.setEngine(name, build),
  /** Stops every engine at once; `analyse` resolves with what was analysed. */
  cancel: () => {
    cancelAsked = true;
    pool?.cancel();
  },
  /** Terminates engine worker `i` without telling the pool (as if it hung). */
  killWorker: ({ i }) => pool?.killWorker(i) ?? false,
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
