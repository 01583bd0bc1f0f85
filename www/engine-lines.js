// fairsight: Stockfish's output a search at a time, and its yields without the
// browser's 4 ms. GPL-3.0-or-later.
//
// scripts/build-web.sh puts this in front of each Stockfish build's script it copies to
// www/pkg/engine/ (npm `stockfish`, WebAssembly; the engine's own code is unchanged).
// Run in a Web Worker, Stockfish posts each line it prints as a message of its own: at
// depth 14 with 4 lines about 60 messages a position, each a task on the thread where
// the engine pool (the core's WorkerPool) reads them: the run's analyzer worker. Here its lines are
// gathered: `info` lines wait for the next line that is not one (`bestmove`, `readyok`,
// `uciok`, `id`, `option`), then all go in one message, joined by newlines (the pool
// splits them). A line that comes FLUSH_MS or more after the last message goes at once,
// and a timer posts what waits whenever the worker's loop is free: the pool's stall
// deadline sees a gap at most FLUSH_MS longer than the engine's own. No line is changed,
// dropped or reordered.
(() => {
  if (typeof WorkerGlobalScope === 'undefined' || !(self instanceof WorkerGlobalScope)) return;
  const FLUSH_MS = 200;
  const post = self.postMessage.bind(self);
  let lines = [];
  let last = 0; // when the last message went
  let timer = null;
  const flush = () => {
    clearTimeout(timer);
    timer = null;
    last = performance.now();
    if (lines.length === 0) return;
    const text = lines.join('\n');
    lines = [];
    post(text);
  };
  // Stockfish's script posts through the global `postMessage`: this one gathers its lines.
  self.postMessage = (message, ...rest) => {
    if (typeof message !== 'string') {
      flush();
      post(message, ...rest);
      return;
    }
    lines.push(message);
    if (!message.startsWith('info') || performance.now() - last >= FLUSH_MS) flush();
    else timer ??= setTimeout(flush, FLUSH_MS);
  };

  // Stockfish's search yields to the worker's loop now and then, so that it hears `stop`
  // (Asyncify's `emscripten_sleep`: a timer of 0-1 ms, whose callback goes on searching
  // until the next). A browser holds a timer set from a timer's callback five deep to at
  // least 4 ms, so each yield left the core idle for 4 ms (about 400 times in a 30 s run
  // of the benchmark's game: 5% of each engine's time). A timer shorter than that is a
  // message to itself here instead (a MessageChannel's), which runs as soon as the tasks
  // already waiting have run, the pool's `stop` among them; longer timers are the
  // browser's own. (`?timers=browser` on the script's address keeps the browser's timers:
  // scripts/bench-web.mjs measures both in one run.)
  if (new URL(self.location.href).searchParams.get('timers') === 'browser') return;
  const nativeSet = self.setTimeout.bind(self);
  const nativeClear = self.clearTimeout.bind(self);
  const channel = new MessageChannel();
  const due = new Map();
  let next = 0;
  channel.port1.onmessage = (e) => {
    const run = due.get(e.data);
    due.delete(e.data);
    run?.();
  };
  self.setTimeout = (fn, ms, ...args) => {
    if (typeof fn !== 'function' || Number(ms) >= 4) return nativeSet(fn, ms, ...args);
    next += 1;
    const id = -next; // never one of the browser's ids, which are positive
    due.set(id, () => fn(...args));
    channel.port2.postMessage(id);
    return id;
  };
  self.clearTimeout = (id) => {
    if (typeof id === 'number' && id < 0) due.delete(id);
    else nativeClear(id);
  };
})();
