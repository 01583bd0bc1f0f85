// The engine pool's JS side: the pool itself is the core's `WorkerPool` (Rust,
// src/wasm/pool.rs): Stockfish (npm `stockfish`, WebAssembly) in Web Workers, each driven
// by the core's sans-IO UCI session, a worker that errors, breaks the protocol or stays
// silent past the stall deadline replaced and its job retried once (the CLI's rules, from
// the core). It runs in the run's analyzer worker (analyzer-worker.js), not on the page's
// main thread. This file only picks the engine build and the worker count, and keeps
// the pool's state visible to the page's tests (`slots`, `jobs`, `onPartial`,
// `killWorker`; `self.fairsightPool` in the analyzer's worker while a run goes).
// No chess logic here: jobs and results are opaque JSON strings of the core.

/** Engine builds shipped in www/pkg/engine/. */
export const BUILDS = {
  lite: 'stockfish-19-lite-single',
  strong: 'stockfish-19-single',
};

/** The default worker count: one per spare core, at least 1, capped by memory. */
export function defaultWorkers() {
  const cores = navigator.hardwareConcurrency || 2;
  const memGb = navigator.deviceMemory || 4;
  return Math.max(1, Math.min(cores - 1, Math.floor(memGb * 2), 16));
}

export class EnginePool {
  /**
   * @param {object} o
   * @param {Function} o.WorkerPool the wasm binding's class
   * @param {object} o.settings the analyzer's settings object
   * @param {number} o.workers number of workers
   * @param {string} o.build one of BUILDS' values
   * @param {number} [o.stallMs] a worker silent this long is replaced
   * @param {string} [o.base] URL of the engine folder
   * @param {string} [o.timers] `browser`: the engines keep the browser's own timers
   *   (www/engine-lines.js; the benchmark's baseline)
   */
  constructor({ WorkerPool, settings, workers, build, stallMs = 60000, base, timers = null }) {
    const engine = new URL(`${build}.js`, base || new URL('./pkg/engine/', import.meta.url));
    if (timers === 'browser') engine.searchParams.set('timers', 'browser');
    const url = engine.href;
    this.pool = new WorkerPool(url, settings, Math.max(1, workers | 0), stallMs);
    this.build = build;
    this.jobs = [];
    // Live views of the pool's workers: `job` (index or null) and `worker` (or null).
    this.slots = [];
  }

  /** The engine's `id name`, once a worker has told it (else null). */
  get engineName() {
    return this.pool.engineName() ?? null;
  }

  /** Engines restarted so far. */
  get restarts() {
    return this.pool.restarts();
  }

  /**
   * Runs jobs until all are done or failed twice, or until cancel().
   * @param {object} o
   * @param {string[]} o.jobs job JSON strings, by index
   * @param {(index: number, resultJson: string, engineMs: number) => void} o.onResult
   * @param {(index: number, partialJson: string) => void} [o.onPartial] positions of a
   *   running job, as soon as each is complete (repeated, identical, in its final result)
   * @param {(message: string) => void} [o.onLog]
   * @param {(index: number) => string} [o.label] a job named for the user (its game),
   *   added to the messages about it
   * @returns {Promise<{failures: {job: number, reason: string}[], cancelled: boolean}>}
   */
  run({ jobs, onResult, onPartial = () => {}, onLog = () => {}, label = null }) {
    this.jobs = jobs;
    this.onPartial = onPartial;
    const labels = label ? jobs.map((_, k) => String(label(k))) : [];
    const done = this.pool.run(
      jobs,
      labels,
      onResult,
      (k, json) => this.onPartial?.(k, json),
      onLog,
    );
    const pool = this.pool;
    this.slots = Array.from({ length: pool.slotCount() }, (_, i) => ({
      get job() {
        return pool.slotJob(i) ?? null;
      },
      get worker() {
        return pool.slotWorker(i) ?? null;
      },
    }));
    return done;
  }

  /**
   * Starts the engines now, before the jobs are known (a PGN is given, Analyse not
   * pressed yet): each loads Stockfish, does its handshake and waits for run().
   */
  startEngines() {
    this.pool.startEngines();
  }

  /** Stops every worker (a pool started early and not used) and frees the pool. */
  close() {
    this.pool.free();
  }

  /** Stops every worker at once; run() resolves with cancelled = true. */
  cancel() {
    this.pool.cancel();
  }

  /** Test hook: terminates worker `i` without telling the pool (as if it hung). */
  killWorker(i) {
    return this.pool.killWorker(i);
  }
}
