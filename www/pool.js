// The engine pool: Stockfish (npm `stockfish`, WebAssembly) in Web Workers, each driven by
// the core's sans-IO UCI session (`EngineSession`). Whole jobs (chunks of consecutive
// plies) are handed to idle workers; a worker that errors, breaks the protocol or stops
// answering is terminated and replaced, and its job retried once from the start (a job's
// result is only recorded when the whole chunk is done, so nothing is counted twice).
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
   * @param {Function} o.EngineSession the wasm binding's class
   * @param {object} o.settings the analyzer's settings object
   * @param {number} o.workers number of workers
   * @param {string} o.build one of BUILDS' values
   * @param {number} [o.stallMs] a worker silent this long during a job is replaced
   * @param {string} [o.base] URL of the engine folder
   */
  constructor({ EngineSession, settings, workers, build, stallMs = 60000, base }) {
    this.EngineSession = EngineSession;
    this.settings = settings;
    this.size = Math.max(1, workers | 0);
    this.build = build;
    this.url = new URL(`${build}.js`, base || new URL('./pkg/engine/', import.meta.url)).href;
    this.stallMs = stallMs;
    this.slots = [];
    this.engineName = null;
    this.restarts = 0;
    this.cancelled = false;
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
    this.label = label;
    this.queue = jobs.map((_, i) => i);
    this.attempts = new Map();
    this.failures = [];
    this.onResult = onResult;
    this.onPartial = onPartial;
    this.onLog = onLog;
    return new Promise((resolve) => {
      this.resolve = resolve;
      if (this.queue.length === 0) {
        this.finish();
        return;
      }
      const n = Math.min(this.size, this.queue.length);
      for (let i = 0; i < n; i++) this.slots.push(this.start({ id: i }));
      this.watchdog = setInterval(() => this.watch(), 500);
    });
  }

  /** Stops every worker at once; run() resolves with cancelled = true. */
  cancel() {
    if (this.cancelled || !this.resolve) return;
    this.cancelled = true;
    this.finish();
  }

  /** Test hook: terminates worker `i` without telling the pool (as if it hung). */
  killWorker(i) {
    const slot = this.slots[i];
    if (slot && slot.worker) slot.worker.terminate();
    return Boolean(slot && slot.worker);
  }

  /** Starts (or restarts) a slot's worker and session. */
  start(slot) {
    slot.session?.free?.();
    slot.session = new this.EngineSession(this.settings);
    slot.job = null;
    slot.last = performance.now();
    slot.jobStart = 0;
    const worker = new Worker(this.url);
    slot.worker = worker;
    worker.onmessage = (e) => {
      if (slot.worker !== worker) return; // a replaced worker's late output
      for (const line of String(e.data).split('\n')) {
        if (line) this.line(slot, line);
        if (slot.worker !== worker) return;
      }
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      if (slot.worker === worker) this.fail(slot, `engine worker error: ${e.message || 'unknown'}`);
    };
    worker.onmessageerror = () => {
      if (slot.worker === worker) this.fail(slot, 'engine worker sent an unreadable message');
    };
    this.flush(slot);
    return slot;
  }

  flush(slot) {
    for (const cmd of slot.session.takeCommands()) slot.worker.postMessage(cmd);
  }

  line(slot, line) {
    if (this.cancelled || !slot.worker) return;
    slot.last = performance.now();
    try {
      slot.session.handleLine(line);
    } catch (err) {
      this.fail(slot, `engine protocol error: ${err.message || err}`);
      return;
    }
    if (!this.engineName) this.engineName = slot.session.engineName() ?? null;
    const partial = slot.session.takeCompletedJson();
    if (partial !== undefined && slot.job !== null) this.onPartial(slot.job, partial);
    const result = slot.session.takeResultJson();
    if (result !== undefined && slot.job !== null) {
      const job = slot.job;
      slot.job = null;
      this.onResult(job, result, performance.now() - slot.jobStart);
    }
    if (slot.job === null && slot.session.isIdle()) this.next(slot);
    else this.flush(slot);
  }

  next(slot) {
    const job = this.queue.shift();
    if (job === undefined) {
      this.retire(slot);
      return;
    }
    slot.job = job;
    slot.jobStart = performance.now();
    slot.last = slot.jobStart;
    try {
      slot.session.submit(this.jobs[job]);
    } catch (err) {
      this.fail(slot, `cannot submit job: ${err.message || err}`);
      return;
    }
    this.flush(slot);
  }

  /** A worker with no more work: stop it; finish when every slot is retired. */
  retire(slot) {
    slot.worker?.terminate();
    slot.worker = null;
    slot.session?.free?.();
    slot.session = null;
    if (this.slots.every((s) => !s.worker) && this.queue.length === 0) this.finish();
  }

  fail(slot, reason) {
    slot.worker?.terminate();
    slot.worker = null;
    this.restarts++;
    const job = slot.job;
    slot.job = null;
    if (job !== null) {
      const n = (this.attempts.get(job) || 0) + 1;
      this.attempts.set(job, n);
      const named = this.label ? `: ${this.label(job)}` : '';
      if (n < 2) {
        this.onLog(`${reason}; restarting the engine and retrying job ${job + 1}${named}`);
        this.queue.unshift(job);
      } else {
        this.onLog(`${reason}; job ${job + 1} failed twice and is skipped${named}`);
        this.failures.push({ job, reason });
      }
    } else {
      this.onLog(`${reason}; restarting the engine`);
    }
    if (this.queue.length > 0 && !this.cancelled) {
      if (this.restarts > 4 * this.jobs.length + 4) {
        // The engine cannot run here at all: give up instead of looping.
        for (const j of this.queue.splice(0)) this.failures.push({ job: j, reason });
      } else {
        this.start(slot);
        return;
      }
    }
    this.retire(slot);
  }

  watch() {
    const now = performance.now();
    for (const slot of this.slots) {
      if (slot.worker && now - slot.last > this.stallMs) {
        this.fail(slot, `engine silent for ${Math.round(this.stallMs / 1000)} s`);
      }
    }
  }

  finish() {
    clearInterval(this.watchdog);
    for (const slot of this.slots) {
      slot.worker?.terminate();
      slot.worker = null;
      slot.session?.free?.();
      slot.session = null;
    }
    const resolve = this.resolve;
    this.resolve = null;
    resolve?.({ failures: this.failures, cancelled: this.cancelled });
  }
}
