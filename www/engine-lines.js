// fairsight: Stockfish's output a search at a time. GPL-3.0-or-later.
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
})();
