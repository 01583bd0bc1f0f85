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
//
// A file of more than SEGMENT games is analysed a segment of SEGMENT games at a time, so
// that this worker's memory does not grow with the file: the whole input is planned in
// one pass that keeps no game (`planInput`: the games' summaries, the jobs, the positions),
// then each segment has an Analyzer of its own, freed when its games are stored, and a
// Summary keeps what the players' summaries need of the finished segments. The report
// stored after the run is that of one Analyzer of the whole file, byte for byte (tests:
// the core's `a_file_analysed_a_segment_at_a_time_gives_the_whole_report_byte_for_byte`,
// the wasm test `a_file_analysed_a_segment_at_a_time_joins_to_the_whole_report`, and the
// browser test of many games). During the run the report holds the games of the
// segments reached so far.
import init, { Analyzer, JobCache, Rerating, Summary, WorkerPool, planInput } from './pkg/fairsight.js';
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

// Games a segment (`?segment=N` on the worker's address: the page's, for tests and the
// benchmark). A segment's analyzer holds its games, their results and reports (about 15
// kB a short game, more for long ones), so SEGMENT bounds this worker's memory.
const SEGMENT = Number(new URL(self.location.href).searchParams.get('segment')) || 1000;
// `?timers=browser` (the page's, for the benchmark's baseline): the engines keep the
// browser's own timers (www/engine-lines.js).
const TIMERS = new URL(self.location.href).searchParams.get('timers');
// A file analysed a segment at a time: the input, the segment being analysed (`start`,
// the first game's number; `size`), the Summary of the finished ones, the positions they
// searched, the engine's name as the run has it, the last game of the previous segment
// (its separator changes once the next segment's games follow it).
let seg = null;
// Positions the cache gave, in every segment looked up so far.
let cachedPositions = 0;

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
// its progress line every 2 s (PROGRESS_MS in app.js), and every message is a task on
// its thread.
const DONE_MS = 2000;
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

/**
 * A file analysed in segments: the segment's changed games as changedParts gives them,
 * by their number in the file, and (with `head`) the report's head and tail for the
 * games of the segments reached so far (the players of the finished segments and of
 * this one, from the Summary: every player summarised again, so the head is made only
 * for the page's views, not at each segment's end). `withTheHead`: the games to write
 * with the head (the previous segment's last game, with the separator it now has).
 */
function segmentParts({ head: withHead }) {
  const local = analyzer.reportParts(inMemory && !gaveAll, BATCH);
  const count = seg.start + local.count;
  const { head, tail } = withHead ? seg.summary.parts(count, analyzer) : {};
  // The previous segment's last game is no longer the report's last: it is given again
  // with the separator, with the head that counts the games after it (in one write), so
  // that the stored report is whole JSON at every moment.
  if (seg.last && seg.last.i + 1 < count) {
    seg.resep.push(seg.last);
    seg.last = null;
  }
  const give = (changed) =>
    changed.map(([at, text]) => {
      const i = seg.start + at;
      rows[i] = lightGame(JSON.parse(text), textHash(text));
      if (i + 1 === count) seg.last = { i, text };
      return [i, { text, sep: i + 1 < count ? SEP : '' }];
    });
  let pending = local.pending;
  const more = () => {
    if (!pending) return [];
    const m = analyzer.moreParts(BATCH);
    pending = m.pending;
    return give(m.changed);
  };
  const changed = give(local.changed);
  const withTheHead = withHead ? seg.resep.map((g) => [g.i, { text: g.text, sep: SEP }]) : [];
  return { parts: { head, tail, count }, changed, more, withTheHead };
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

/** The positions searched so far, in every segment. */
function donePositions() {
  return (seg?.doneBefore ?? 0) + analyzer.donePositions();
}

/** Names the engine of the report (and of the segments' players). */
function setEngine(name, build) {
  analyzer.setEngine(name, build);
  if (seg) seg.engine = { name, build };
  seg?.summary?.setEngine(name, build);
}

/** The analyzer of the segment of games from number `start` on, with the ratings. */
function openSegment(start) {
  // From where the plan found the segment's first game: the games before are not read.
  const a = Analyzer.segment(seg.pgn, seg.settings, seg.book, seg.marks[start / seg.size], seg.size);
  try {
    for (const line of seg.ratings) a.setRatingText(line);
  } catch (err) {
    a.free();
    throw err;
  }
  // The engine the run has named so far (the next look-up may name another).
  if (seg.engine) a.setEngine(seg.engine.name, seg.engine.build);
  analyzer = a;
  seg.start = start;
  jobs = Array.from({ length: a.jobCount() }, (_, i) => a.jobJson(i));
  labels = jobs.map((_, i) => a.jobLabel(i));
  planSettings = a.settings();
}

/**
 * Ends the segment analysed: its games stored (a view), added to the players, its
 * analyzer freed; then the next segment, with what the cache holds of it.
 */
async function nextSegment() {
  const ended = viewing.then(() => ops.viewNow({ gamesOnly: true }));
  viewing = ended.catch(() => {});
  await ended;
  // Cancelled meanwhile: the report ends with this segment.
  if (cancelAsked) return;
  seg.summary.addSegment(analyzer);
  seg.doneBefore += analyzer.donePositions();
  analyzer.free();
  analyzer = null;
  openSegment(seg.start + seg.size);
  await lookUpJobs(plan.build);
}

/**
 * Adds the results of `build`'s engine that the cache holds for the plan's jobs (the
 * cache's key is the core's, the CLI's, with the engine's name as the cache last
 * stored it for this build). Returns `{done, pending}`: the positions done, the jobs
 * left to analyse.
 */
async function lookUpJobs(build) {
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
  const found = analyzer.donePositions();
  cachedPositions += found;
  const engineName = found > 0 ? cachedName : null;
  setEngine(seg?.engineName ?? engineName ?? '', build);
  plan = { build, pending, engineName };
  return { done: donePositions(), cached: cachedPositions, pending: pending.length };
}

/**
 * Runs the jobs `lookUp` left (of the segment analysed) on `workers` engines of its
 * build until all are done (or failed twice) or `cancel`. Each result is added to the
 * core and stored in the cache as it comes; a full disk (or any storage failure) never
 * stops the analysis: it goes on uncached, and the page is told once. Resolves, once
 * every result is added and stored, to `{cancelled, failures: [{label, reason}],
 * engineMs}`.
 */
async function runPool({ workers, stallMs }) {
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
      postMessage({ type: 'done', done: donePositions(), cached: cachedPositions });
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
  // The engines started early (`startEngines`), if they are the ones asked for: the first
  // segment's run; a later segment starts its own.
  const started = early;
  early = null;
  const p =
    started && started.workers === workers && started.build === build && started.stallMs === stallMs
      ? started.pool
      : new EnginePool({ WorkerPool, settings, workers, build, stallMs, timers: TIMERS });
  if (started && started.pool !== p) started.pool.close();
  pool = p;
  self.fairsightPool = p;
  // For the page's tests: the first game of the segment analysed.
  self.fairsightSegment = seg?.start ?? 0;
  const outcome = cancelAsked
    ? { failures: [], cancelled: true }
    : await p.run({
        jobs: pending.map((i) => jobs[i]),
        onPartial: (k, json) => {
          if (p.engineName) setEngine(p.engineName, build);
          add(k, json);
        },
        onResult: (k, json, ms) => {
          engineMs += ms;
          const name = p.engineName;
          if (name) setEngine(name, build);
          if (add(k, json) && name) store(pending[k], name, json);
        },
        onLog: (m) => message('warning', m),
        label: (k) => labels[pending[k]],
      });
  clearTimeout(timer);
  pool = null;
  self.fairsightPool = null;
  const name = p.engineName ?? seg?.engineName ?? plan.engineName ?? '';
  setEngine(name, build);
  if (seg && name) seg.engineName = name;
  await Promise.all(stores);
  return {
    cancelled: outcome.cancelled,
    failures: outcome.failures.map((f) => ({ label: labels[pending[f.job]], reason: f.reason })),
    engineMs,
  };
}

/**
 * Makes the report of a one-move game once, while the engines load: V8 compiles each of
 * the core's functions the first time it runs, so the run's first view paid for compiling
 * the report's code, on the two cores the engines were loading on, before the engines
 * could get their jobs (README, browser benchmark). A warm-up only: it may fail unseen.
 */
function warmUp(settings) {
  try {
    const a = new Analyzer('1. e4 *', settings, undefined);
    try {
      warmedUp = a.reportParts(false, 1).changed.length === 1;
    } finally {
      a.free();
    }
  } catch {
    // The run's first view compiles the code instead.
  }
}
// Whether warmUp made its report (for the page's tests: it fails unseen otherwise).
let warmedUp = false;

// Engines started before the plan (`startEngines`): `{pool, workers, build, stallMs}`.
let early = null;

const ops = {
  /**
   * Starts `workers` engines of `build` now, before the games are imported and planned
   * (the page: when a PGN is typed or pasted): each loads Stockfish and does its
   * handshake, and `analyse` hands them their jobs. `settings` are the page's (the
   * engines' hash size); the page starts a worker of its own for other settings.
   */
  async startEngines({ settings, workers, build, stallMs }) {
    await ready;
    if (early) return;
    const p = new EnginePool({ WorkerPool, settings, workers, build, stallMs, timers: TIMERS });
    p.startEngines();
    early = { pool: p, workers, build, stallMs };
    warmUp(settings);
  },
  /** Imports the PGN with progress, applies the ratings, and returns the plan. */
  async open({ pgn, settings, book, ratings, run: id }) {
    await ready;
    store = await ReportStore.open();
    run = id;
    let last = -Infinity;
    let told = -1;
    const planned = planInput(
      pgn,
      settings,
      book,
      (games) => {
        const now = performance.now();
        if (now - last < PROGRESS_MS) return;
        last = now;
        told = games;
        postMessage({ type: 'progress', games });
      },
      SEGMENT,
    );
    const { games } = planned;
    if (told !== games.length) postMessage({ type: 'progress', games: games.length });
    // Without IndexedDB the page keeps every game's text anyway: one analyzer then (and
    // for the whole-report baseline, which knows no segments).
    if (games.length > SEGMENT && store.db && !WHOLE) {
      seg = { pgn, settings, book, ratings, marks: planned.marks, count: games.length, size: SEGMENT, start: 0, doneBefore: 0, forPage: [], storedTo: 0, resep: [] };
      openSegment(0);
      const summary = new Summary(planSettings);
      for (const line of ratings) summary.setRatingText(line);
      seg.summary = summary;
      return { games, settings: planSettings, jobs: planned.jobs, total: planned.total };
    }
    const a = new Analyzer(pgn, settings, book);
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
  lookUp: ({ build }) => lookUpJobs(build),
  /**
   * Runs the jobs `lookUp` left on `workers` engines of its build until all are done
   * (or failed twice) or `cancel`. Each result is added to the core and stored in the
   * cache as it comes; a full disk (or any storage failure) never stops the analysis: it
   * goes on uncached, and the page is told once. Resolves, once every result is added and
   * stored, to `{cancelled, failures: [{label, reason}], done, cached, engineMs}`.
   */
  async analyse({ workers, stallMs }) {
    let engineMs = 0;
    const failures = [];
    for (;;) {
      const out = await runPool({ workers, stallMs });
      engineMs += out.engineMs;
      failures.push(...out.failures);
      const cancelled = out.cancelled || cancelAsked;
      if (cancelled || !seg || seg.start + seg.size >= seg.count) {
        return { cancelled, failures, done: donePositions(), cached: cachedPositions, engineMs };
      }
      await nextSegment();
      postMessage({ type: 'done', done: donePositions(), cached: cachedPositions });
    }
  },
  /**
   * Applies the rating lines to the report stored as run `from` and stores the result
   * as run `to`, BATCH games at a time (the core's `Rerating`: the report `rerateReport`
   * gives, never the whole of it in memory); returns its view, `{head, rows}`.
   */
  async rerate({ from, to, ratings }) {
    await ready;
    store ??= await ReportStore.open();
    const stored = await store.parts(from);
    if (!stored) throw new Error('The report is no longer stored.');
    const r = new Rerating(stored.head, stored.tail, ratings);
    try {
      const rerated = [];
      for (let i = 0; i < stored.count; i += BATCH) {
        const games = await store.games(from, i, Math.min(stored.count, i + BATCH));
        const batch = games.map((g, k) => {
          const text = r.game(g.text);
          rerated[i + k] = lightGame(JSON.parse(text), textHash(text));
          return [i + k, { text, sep: g.sep }];
        });
        await store.putGames(to, batch);
      }
      const { head, tail } = r.parts(stored.count);
      const at = { head, tail, count: stored.count };
      await store.put(to, at, []);
      return { head: headOf(at), rows: rerated };
    } catch (err) {
      await store.remove(to).catch(() => {});
      throw err;
    } finally {
      r.free();
    }
  },
  /** Names the engine of the report (as a run does once its engine tells its name). */
  setEngine: ({ name, build }) => setEngine(name, build),
  /** Stops every engine at once; `analyse` resolves with what was analysed. */
  cancel: () => {
    cancelAsked = true;
    pool?.cancel();
  },
  /**
   * The engines started early (`startEngines`) and not yet running a job: `{started,
   * engineName, warmedUp}` (the name once one has done its handshake; whether warmUp
   * made its report; tests).
   */
  earlyEngines: () => ({ started: early !== null, engineName: early?.pool.engineName ?? null, warmedUp }),
  /** Terminates engine worker `i` without telling the pool (as if it hung). */
  killWorker: ({ i }) => pool?.killWorker(i) ?? false,
  /** The report so far as JSON (a file analysed in segments: as stored). */
  report: () => (seg ? store.text(run) : analyzer.reportJson()),

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
  async viewNow({ gamesOnly = false } = {}) {
    const t0 = performance.now();
    const { parts, changed: first, more: next, withTheHead = [] } = WHOLE
      ? wholeParts()
      : seg
        ? segmentParts({ head: !gamesOnly })
        : changedParts();
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
    // Without IndexedDB here, or once the browser refused a write (a full disk), the page
    // keeps the texts in its memory instead (all of them, the first time): the report is
    // never lost, only no longer bounded.
    if (!store.db || inMemory) {
      const changed = first;
      for (let batch = more(); batch.length; batch = more()) changed.push(...batch);
      if (gamesOnly) {
        // A segment's end: its games wait for the page's next view.
        seg.forPage.push(...changed);
        work.list.push([Math.round(ms), changed.length]);
        return null;
      }
      // A file analysed in segments whose writes the browser refused: the games of the
      // segments stored before, then those ended since the page's last view.
      // (In that order, the current segment's last: a later text of a game replaces an
      // earlier one in the page.)
      const prior = [];
      if (seg && !gaveAll) {
        for (let i = 0; i < seg.storedTo; i++) {
          const text = await store.game(run, i);
          if (text !== undefined) prior.push([i, { text, sep: SEP }]);
        }
      }
      if (seg) prior.push(...seg.forPage.splice(0));
      changed.unshift(...prior);
      changed.push(...withTheHead);
      if (withTheHead.length) seg.resep = [];
      gaveAll = true;
      work.list.push([Math.round(ms), changed.length]);
      return { head: headOf(at), rows, parts: { ...at, changed, memory: true } };
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
      if (gamesOnly) await store.putGames(run, batch);
      else await store.put(run, at, [...batch, ...withTheHead]);
      if (withTheHead.length) seg.resep = [];
    } catch {
      inMemory = true;
      if (seg) seg.storedTo = seg.start;
      return this.viewNow({ gamesOnly });
    }
    work.list.push([Math.round(ms), given]);
    return gamesOnly ? null : { head: headOf(at), rows };
  },
  /**
   * What this worker has cost: each view made, `[ms, games given]`, the core's wasm
   * memory (bytes; it only grows, so this is its peak), and the segments of games
   * analysed (1 when the file was analysed whole).
   */
  usage: () => ({
    views: work.list,
    wasmBytes: wasm.memory.buffer.byteLength,
    segments: seg ? Math.floor(seg.start / seg.size) + 1 : 1,
  }),
};

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    postMessage({ id, result: await ops[op](args) });
  } catch (err) {
    postMessage({ id, error: err?.message || String(err) });
  }
};
