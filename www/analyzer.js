// fairsight: the page's handle on the core's Analyzer, which runs in its own worker
// (analyzer-worker.js). GPL-3.0-or-later.
//
// Every call returns a promise; the worker answers in the order it was asked, so a
// report asked for after results were added has them all. Errors are the core's
// (`JsError` messages) as `Error`s.

export class AnalyzerWorker {
  /**
   * Starts the worker. `onProgress(games)` hears how many games are imported so far
   * while `open` runs.
   */
  constructor({ onProgress = null } = {}) {
    // `?views=whole` on the page's address: the worker makes each view from the whole
    // report, as before the core gave the changed games alone (a baseline for
    // scripts/bench-page-memory.mjs, not for users). `?segment=N`: files of more than N
    // games are analysed N games at a time (analyzer-worker.js; tests and benchmarks).
    // `?timers=browser`: the engines' short timers are the browser's own, clamped to 4 ms
    // (www/engine-lines.js; a baseline for scripts/bench-web.mjs).
    const url = new URL('./analyzer-worker.js', import.meta.url);
    const page = new URLSearchParams(globalThis.location?.search);
    if (page.get('views') === 'whole') url.searchParams.set('views', 'whole');
    if (page.get('segment')) url.searchParams.set('segment', page.get('segment'));
    if (page.get('timers') === 'browser') url.searchParams.set('timers', 'browser');
    this.worker = new Worker(url, { type: 'module' });
    // Hears how many games are imported so far while `open` runs (settable: a worker made
    // early, to start the engines, is given the page's listener when the run begins).
    this.onProgress = onProgress;
    this.pending = new Map();
    this.next = 0;
    // While `analyse` runs: its positions done, and its messages.
    this.onDone = null;
    this.onMessage = null;
    this.worker.onmessage = (e) => {
      const d = e.data;
      if (d.type === 'progress') {
        this.onProgress?.(d.games);
        return;
      }
      if (d.type === 'done') {
        this.onDone?.(d.done, d.cached);
        return;
      }
      if (d.type === 'message') {
        this.onMessage?.(d.text, d.kind);
        return;
      }
      const call = this.pending.get(d.id);
      this.pending.delete(d.id);
      if (d.error !== undefined) call?.reject(new Error(d.error));
      else call?.resolve(d.result);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      const err = new Error(`The analysis core's worker failed: ${e.message || 'it could not start'}`);
      for (const call of this.pending.values()) call.reject(err);
      this.pending.clear();
    };
  }

  call(op, args) {
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args });
    });
  }

  /**
   * Starts `workers` engines of `build` in the worker now, before `open` (the page: when
   * a PGN is typed or pasted, before Analyse): they load and do their handshake, and
   * `analyse` (with the same workers, build and stall deadline) hands them their jobs.
   * `settings` are the page's (the engines' hash size).
   */
  startEngines({ settings, workers, build, stallMs }) {
    return this.call('startEngines', { settings, workers, build, stallMs });
  }

  /** The engines started early and not yet given jobs: `{started, engineName}` (tests). */
  earlyEngines() {
    return this.call('earlyEngines');
  }

  /**
   * Imports `pgn` with `settings`, the book's bytes (or undefined) and the rating lines;
   * resolves to `{games, settings, jobs, total}`: the games' summaries, the settings in
   * force, the number of jobs, the positions to analyse. The report's games are stored
   * under `run` (report-store.js).
   */
  open(pgn, settings, book, ratings, run) {
    this.run = run;
    return this.call('open', { pgn, settings, book, ratings, run });
  }

  /**
   * Adds what the cache holds for the plan's jobs analysed by the engine `build`;
   * resolves to `{done, pending}` (positions done, jobs left).
   */
  lookUp(build) {
    return this.call('lookUp', { build });
  }

  /**
   * Analyses the jobs left with `workers` engines (a silent one replaced after `stallMs`).
   * `onDone(positions, cached)` hears the positions done as they grow (and of them, those
   * the cache gave: a file analysed in segments looks each segment up as it comes to it),
   * `onMessage(text, kind)`
   * the pool's and the cache's messages. Resolves to `{cancelled, failures: [{label,
   * reason}], done, engineMs}` once every result is added to the report and cached.
   */
  analyse({ workers, stallMs }, { onDone, onMessage }) {
    this.onDone = onDone;
    this.onMessage = onMessage;
    return this.call('analyse', { workers, stallMs }).finally(() => {
      this.onDone = null;
      this.onMessage = null;
    });
  }

  /**
   * Applies the rating lines to the report stored as run `from`, stored as run `to`;
   * resolves to its view, `{head, rows}`.
   */
  rerate(from, to, ratings) {
    return this.call('rerate', { from, to, ratings });
  }

  /** Names the report's engine (`analyse` does it once the engine tells its name). */
  setEngine(name, build) {
    return this.call('setEngine', { name, build });
  }

  /** Stops every engine at once; `analyse` resolves with what was analysed. */
  cancel() {
    return this.call('cancel');
  }

  /** Test hook: terminates engine worker `i` without telling the pool (as if it hung). */
  killWorker(i) {
    return this.call('killWorker', { i });
  }

  /** The report so far as JSON, the CLI's `--json`. */
  report() {
    return this.call('report');
  }

  /**
   * The report so far as the page keeps it, `{head, rows}` (report-store.js), its games'
   * texts stored under the run (`parts` with them when the worker has no IndexedDB).
   */
  view() {
    return this.call('view');
  }

  /** What the worker has cost so far: `{views, wasmBytes}` (analyzer-worker.js). */
  usage() {
    return this.call('usage');
  }

  /** Ends the worker and everything it holds. */
  terminate() {
    this.worker.terminate();
    for (const call of this.pending.values()) call.reject(new Error('the analysis was closed'));
    this.pending.clear();
  }
}
