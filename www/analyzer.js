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
  constructor({ onProgress } = {}) {
    // `?views=whole` on the page's address: the worker makes each view from the whole
    // report, as before the core gave the changed games alone (a baseline for
    // scripts/bench-page-memory.mjs, not for users).
    const url = new URL('./analyzer-worker.js', import.meta.url);
    if (new URLSearchParams(globalThis.location?.search).get('views') === 'whole') url.search = '?views=whole';
    this.worker = new Worker(url, { type: 'module' });
    this.pending = new Map();
    this.next = 0;
    this.worker.onmessage = (e) => {
      const d = e.data;
      if (d.type === 'progress') {
        onProgress?.(d.games);
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
   * Imports `pgn` with `settings`, the book's bytes (or undefined) and the rating lines;
   * resolves to `{games, settings, jobs, labels, total}`: the games' summaries, the
   * settings in force, each job's JSON and label, the positions to analyse. The report's
   * games are stored under `run` (report-store.js).
   */
  open(pgn, settings, book, ratings, run) {
    this.run = run;
    return this.call('open', { pgn, settings, book, ratings, run });
  }

  /** Adds a result (JSON, partial or whole); resolves to the positions done. */
  add(json) {
    return this.call('add', { json });
  }

  setEngine(name, build) {
    return this.call('setEngine', { name, build });
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
