// Browser benchmark (not a test: it prints, it asserts nothing). In one run, headless:
//  1. per-worker nps of the engine build in a Web Worker against the same build under
//     node, on the same positions and node budget, the two searching at the same time
//     (and in the Web Worker with the browser's own timers, as before
//     www/engine-lines.js ran the engine's short ones);
//  2. wall time of an 80-ply game in review mode (defaults: depth 14, 4 lines) with 1 and
//     2 workers, the efficiency ratio (summed busy time of the workers ÷ workers ÷ wall),
//     the time to the first analysed move, and the page's main-thread busy time (its
//     share of the wall time);
//  3. the same game through the CLI with 1 and 2 node engine processes (the same build):
//     the page's 2-worker speed-up against the CLI's, and the two wall times against
//     each other;
//  4. with each run, the CPU time (from /proc) of the engines' search and of everything
//     else the page or the CLI spends (the browser's processes and threads, the CLI and
//     its engines' runtimes), which unlike wall time does not move with the machine's
//     load.
// Usage: node scripts/bench-web.mjs [--depth N] [--lines N] [--nodes N] [--plies N]
//   [--chunk N] [--nps-rounds N] [--game-rounds N] [--no-nps] [--no-cli] [--trace] [--late]
//   [--pause MS] [--draw-beside] [--baseline DIR]
//   (--game-rounds: the page's 1- and 2-worker runs and the CLI's, in turn, N times; each
//   round's speed-ups and their ratio printed, the medians the figures)
//   (--trace: the main thread's tasks while the engines run, from a Chrome trace, by
//   what each spent most of its time on, and every thread's busy time and short pauses,
//   in the 2-worker run, then in one more with the engines on the browser's own timers;
//   the last trace written to target/bench-web-trace.json; the trace's own cost is in
//   those runs' busy time)
//   (--late: in each round one more 2-worker run whose engines start only after the
//   click, once the game is imported and planned (`?engines=late`), not when the PGN is
//   pasted: the time from the click to the first analysed move, the two side by side;
//   with --pause, the engines of the page's runs load during the pause)
//   (--pause MS: the page's runs wait MS between pasting the game and pressing Analyse,
//   as a user does; the engines, started when the PGN is given, load meanwhile)
//   (--draw-beside: in each round one more 2-worker run whose engines get their jobs
//   without waiting for the report's first drawing (`?draw=beside`), which then takes the
//   cores beside them: the main thread's share while the engines run and the time from
//   the click to the first analysed move, the two side by side)
//   (--baseline DIR: another checkout of the page, built there with its own
//   scripts/build-web.sh and served by its own scripts/serve.mjs beside this one, e.g.
//   the page as it was when issue 15 was filed: in each round one more 2-worker run of
//   each page, in turn, closed at the first analysed move: the time from the click to the
//   progress bar's first position, seen the same way from outside in both; with --pause,
//   both pages wait as long between the paste and the click)
// Needs scripts/install.sh, scripts/build-web.sh and cargo build --release first.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launch, openPage, root, startServer } from '../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const depth = opt('--depth', 14);
const lines = opt('--lines', 4);
const npsNodes = opt('--nodes', 1500000);
const npsRounds = Math.max(1, opt('--nps-rounds', 3));
const gameRounds = Math.max(1, opt('--game-rounds', 3));
const maxPlies = opt('--plies', 80);
const chunk = opt('--chunk', 0); // 0: the default chunk size
const pauseMs = opt('--pause', 0);
const BUILD = 'stockfish-19-lite-single';
const baselineDir = args.includes('--baseline') ? path.resolve(args[args.indexOf('--baseline') + 1]) : null;

const POSITIONS = [
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  'r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9',
  '8/5pk1/6p1/3P3p/2p4P/2P3P1/5PK1/8 w - - 0 45',
];

/** The first `n` plies of a PGN's first game, rebuilt as plain movetext with its tags. */
function firstPlies(pgn, n) {
  const game = pgn.split(/\n(?=\[Event )/)[0];
  const tags = game.match(/^\[.*\]$/gm) || [];
  let text = game.replace(/^\[.*\]$/gm, ' ');
  text = text.replace(/\{[^}]*\}/g, ' ').replace(/;[^\n]*/g, ' ');
  while (/\([^()]*\)/.test(text)) text = text.replace(/\([^()]*\)/g, ' ');
  const sans = text
    .split(/\s+/)
    .map((t) => t.replace(/^\d+\.+/, ''))
    .filter((t) => t && !/^\$\d+$/.test(t) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(t))
    .slice(0, n);
  const moves = sans.map((s, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${s}` : s)).join(' ');
  return { pgn: `${tags.join('\n')}\n\n${moves} *\n`, plies: sans.length };
}

function benchGame() {
  const shared = path.join(root, '..', 'shared', 'data', 'human', 'otb', 'nepomniachtchi-liren-2023-wch-game1.pgn');
  if (fs.existsSync(shared)) {
    return { label: `${path.basename(shared)} (first ${maxPlies} plies)`, ...firstPlies(fs.readFileSync(shared, 'utf8'), maxPlies) };
  }
  const sample = path.join(root, 'samples', 'opera-1858.pgn');
  console.log('note: ../shared/data absent; using the 33-ply Opera game instead');
  return { label: 'samples/opera-1858.pgn', ...firstPlies(fs.readFileSync(sample, 'utf8'), maxPlies) };
}

/** Runs UCI commands in node; resolves with [nodes, ms] of each `go`. */
function nodeNps() {
  return new Promise((resolve, reject) => {
    const p = spawn('node', [path.join(root, 'node_modules', 'stockfish', 'bin', `${BUILD}.js`)]);
    const out = [];
    let last = null;
    let buf = '';
    let i = 0;
    const next = () => {
      if (i === POSITIONS.length) {
        p.stdin.write('quit\n');
        resolve(out);
        return;
      }
      p.stdin.write(`ucinewgame\nposition fen ${POSITIONS[i++]}\ngo nodes ${npsNodes}\n`);
    };
    p.stdout.on('data', (d) => {
      buf += d;
      let k;
      while ((k = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, k).trim();
        buf = buf.slice(k + 1);
        if (line.startsWith('info') && / nodes \d+/.test(line) && / time \d+/.test(line)) {
          last = [Number(line.match(/ nodes (\d+)/)[1]), Number(line.match(/ time (\d+)/)[1])];
        }
        if (line === 'readyok') next();
        if (line.startsWith('bestmove')) {
          out.push(last);
          next();
        }
      }
    });
    p.on('error', reject);
    p.stdin.write('uci\nsetoption name Hash value 16\nsetoption name Threads value 1\nisready\n');
  });
}

/**
 * The same in a Web Worker of the page (`timers`: the engine's short timers as the page
 * runs them, `page`, or the browser's own, `browser`, clamped to 4 ms when nested:
 * www/engine-lines.js).
 */
async function browserNps(page, timers = 'page') {
  return page.evaluate(
    ({ positions, nodes, build, timers }) =>
      new Promise((resolve) => {
        const w = new Worker(`www/pkg/engine/${build}.js${timers === 'browser' ? '?timers=browser' : ''}`);
        const out = [];
        let last = null;
        let i = 0;
        const next = () => {
          if (i === positions.length) {
            w.terminate();
            resolve(out);
            return;
          }
          w.postMessage('ucinewgame');
          w.postMessage(`position fen ${positions[i++]}`);
          w.postMessage(`go nodes ${nodes}`);
        };
        // The page's engine script posts its lines a search at a time (www/engine-lines.js).
        w.onmessage = (e) => {
          for (const line of String(e.data).split('\n')) {
            if (line.startsWith('info') && / nodes \d+/.test(line) && / time \d+/.test(line)) {
              last = [Number(line.match(/ nodes (\d+)/)[1]), Number(line.match(/ time (\d+)/)[1])];
            }
            if (line === 'readyok') next();
            if (line.startsWith('bestmove')) {
              out.push(last);
              next();
            }
          }
        };
        for (const c of ['uci', 'setoption name Hash value 16', 'setoption name Threads value 1', 'isready']) {
          w.postMessage(c);
        }
      }),
    { positions: POSITIONS, nodes: npsNodes, build: BUILD, timers },
  );
}

/** Wall ms of `fairsight analyze` on `pgn` with `jobs` engines (the release build if any). */
async function cliRun(pgn, jobs) {
  const built = ['release', 'debug'].map((p) => path.join(root, 'target', p, 'fairsight')).find((b) => fs.existsSync(b));
  if (!built) throw new Error('target/release/fairsight missing: run cargo build --release');
  const dir = fs.mkdtempSync(path.join(root, 'target', 'bench-web-'));
  const file = path.join(dir, 'game.pgn');
  fs.writeFileSync(file, pgn);
  const flags = ['--depth', String(depth), '--multipv', String(lines), '--jobs', String(jobs), ...(chunk ? ['--chunk', String(chunk)] : [])];
  const cpu = cpuSampler();
  const t = performance.now();
  const child = spawn(built, ['analyze', file, '--quiet', '--json', path.join(dir, 'out.json'), ...flags], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const ms = performance.now() - t;
  const used = cpu.stop();
  if (code !== 0) throw new Error(`fairsight analyze exited with ${code}`);
  fs.rmSync(dir, { recursive: true });
  return { ms, cpu: splitCpu(used, jobs) };
}

/**
 * CPU seconds of every thread of every process this one started (the browser's, the
 * CLI's and their engines; not this process), from /proc, read four times a second
 * while it runs so that threads which end between two reads keep their last figure
 * (`stop()` gives, per thread, what it used since the sampler started; `bench`, this
 * script's own CPU meanwhile, the reads' cost). CPU time, unlike wall
 * time, does not change with the machine's load: it says what the page and the CLI
 * spend besides the engines' search.
 */
function cpuSampler() {
  const tick = 100; // getconf CLK_TCK on Linux
  const read = () => {
    const parent = new Map();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        parent.set(Number(d), Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone since the listing
      }
    }
    const ours = (pid) => {
      for (let p = parent.get(pid), i = 0; p && i < 32; p = parent.get(p), i++) if (p === process.pid) return true;
      return false;
    };
    const now = new Map();
    for (const pid of parent.keys()) {
      if (!ours(pid)) continue;
      let tids = [];
      try {
        tids = fs.readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      // The process's kind: Chromium's `--type=` (renderer, gpu-process, utility, ...) or
      // the program's name (the browser's own process, node, fairsight).
      let proc = '';
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        proc = cmd.match(/--type=([\w-]+)/)?.[1] ?? path.basename(cmd.split(/[\0 ]/)[0]);
      } catch {
        // gone
      }
      for (const tid of tids) {
        try {
          const st = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
          const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
          now.set(`${pid}:${tid}`, { name, proc, cpu: (Number(f[11]) + Number(f[12])) / tick });
        } catch {
          // gone
        }
      }
    }
    return now;
  };
  const own0 = process.cpuUsage();
  const start = read();
  const last = new Map(start);
  const timer = setInterval(() => {
    for (const [k, v] of read()) last.set(k, v);
  }, 250);
  /** Each thread's CPU since `from` (a `mark()`; the sampler's start without one). */
  const since = (from = { threads: start, own: own0 }) => {
    for (const [k, v] of read()) last.set(k, v);
    const used = process.cpuUsage(from.own);
    const threads = [...last].map(([k, v]) => ({ key: k, ...v, cpu: v.cpu - (from.threads.get(k)?.cpu ?? 0) })).filter((t) => t.cpu > 0);
    threads.bench = (used.user + used.system) / 1e6;
    return threads;
  };
  return {
    /** Now, to measure a span from. */
    mark() {
      for (const [k, v] of read()) last.set(k, v);
      return { threads: new Map(last), own: process.cpuUsage() };
    },
    since,
    stop(from) {
      const threads = since(from);
      clearInterval(timer);
      return threads;
    },
  };
}

/**
 * Threads' CPU split into the engines' search (the `engines` busiest threads: the
 * engines' Web Workers in the page, their node processes' main threads in the CLI) and
 * everything else (the browser's or the CLI's own work, the engines' runtimes' other
 * threads), with the largest of the rest by name.
 */
function splitCpu(threads, engines) {
  const byCpu = [...threads].sort((a, b) => b.cpu - a.cpu);
  const search = sum(byCpu.slice(0, engines).map((t) => t.cpu));
  const rest = byCpu.slice(engines);
  const named = new Map();
  for (const t of rest) {
    const k = `${t.proc}/${t.name}`;
    named.set(k, (named.get(k) || 0) + t.cpu);
  }
  const top = [...named].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { search, rest: sum(rest.map((t) => t.cpu)), top, bench: threads.bench };
}

const cpuText = ({ search, rest, top, bench }) =>
  `CPU: engines' search ${search.toFixed(1)} s, the rest ${rest.toFixed(2)} s (${((100 * rest) / search).toFixed(1)}% of the search; ` +
  `${top.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}); this script ${bench.toFixed(2)} s`;

/** Starts a Chrome trace of the page; the function returned ends it and gives its events. */
async function startTrace(cdp) {
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute',
    transferMode: 'ReportEvents',
  });
  return async () => {
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await complete;
    return events;
  };
}

/**
 * The main thread's tasks (`RunTask` on `CrRendererMain`) by the longest event each
 * holds (a message from a worker, a timer, a frame's paint, a render's microtasks, ...),
 * and the frames' paints by what they painted.
 */
function printTrace(events) {
  const main = new Set(
    events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const on = events.filter((e) => main.has(`${e.pid}:${e.tid}`) && e.ph === 'X' && e.dur).sort((a, b) => a.ts - b.ts);
  const tasks = on.filter((e) => e.name === 'RunTask');
  const inner = on.filter((e) => e.name !== 'RunTask');
  const kinds = new Map();
  let j = 0;
  for (const t of tasks) {
    while (j < inner.length && inner[j].ts < t.ts) j++;
    let longest = null;
    for (let k = j; k < inner.length && inner[k].ts < t.ts + t.dur; k++) {
      if (!longest || inner[k].dur > longest.dur) longest = inner[k];
    }
    const kind = longest ? longest.name : '(nothing traced)';
    const x = kinds.get(kind) || [0, 0];
    x[0] += t.dur;
    x[1]++;
    kinds.set(kind, x);
  }
  const total = tasks.reduce((a, t) => a + t.dur, 0);
  console.log(`  trace: ${tasks.length} main-thread tasks, ${(total / 1000).toFixed(0)} ms, by their longest event:`);
  for (const [k, [us, n]] of [...kinds].sort((a, b) => b[1][0] - a[1][0]).slice(0, 10)) {
    console.log(`    ${(us / 1000).toFixed(0).padStart(6)} ms ${String(n).padStart(5)} tasks  ${k}`);
  }
  const paints = new Map();
  for (const e of on.filter((x) => x.name === 'Paint')) {
    const what = e.args?.data?.nodeName || '?';
    const x = paints.get(what) || [0, 0];
    x[0] += e.dur;
    x[1]++;
    paints.set(what, x);
  }
  console.log(
    `  trace: paints ${[...paints].sort((a, b) => b[1][0] - a[1][0]).slice(0, 4).map(([k, [us, n]]) => `${k} ${n}x ${(us / 1000).toFixed(0)} ms`).join(', ')}`,
  );
  printThreads(events);
}

/**
 * Every traced thread's tasks (`RunTask`, outermost only): how many, their wall and CPU
 * time (`tdur`, where the trace has it) against the traced span, and the pauses under
 * 20 ms between two tasks. An engine's worker runs its search in slices of about 35 ms
 * with a yield between them (a timer: the pause); the analyzer's worker runs many short
 * tasks (the engines' lines, the results added, the cache's writes), and its CPU time is
 * taken from the engines' two cores.
 */
function printThreads(events) {
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args?.name]));
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.dur);
  if (!tasks.length) return;
  const t0 = Math.min(...tasks.map((e) => e.ts));
  const span = Math.max(...tasks.map((e) => e.ts + e.dur)) - t0;
  const threads = new Map();
  for (const e of tasks.sort((a, b) => a.ts - b.ts)) {
    const key = `${e.pid}:${e.tid}`;
    const t = threads.get(key) || { n: 0, wall: 0, cpu: 0, longest: 0, end: -Infinity, short: 0, shortUs: 0 };
    // Outermost tasks only: a task inside another's span is already counted.
    if (e.ts >= t.end) {
      // A short pause between two tasks: an engine's yield in its search (a timer's wait).
      const gap = e.ts - t.end;
      if (gap > 0 && gap < 20000) {
        t.short++;
        t.shortUs += gap;
      }
      t.n++;
      t.wall += e.dur;
      t.cpu += e.tdur ?? 0;
      t.longest = Math.max(t.longest, e.dur);
      t.end = e.ts + e.dur;
    }
    threads.set(key, t);
  }
  console.log(`  trace: threads' tasks over ${(span / 1e6).toFixed(1)} s (wall / CPU, share of the span):`);
  for (const [key, t] of [...threads].sort((a, b) => b[1].wall - a[1].wall).slice(0, 8)) {
    const pct = (us) => `${((100 * us) / span).toFixed(1)}%`;
    console.log(
      `    ${(names.get(key) || key).padEnd(24)} ${String(t.n).padStart(6)} tasks  wall ${(t.wall / 1000).toFixed(0).padStart(6)} ms (${pct(t.wall)})  ` +
        `CPU ${(t.cpu / 1000).toFixed(0).padStart(6)} ms (${pct(t.cpu)})  longest ${(t.longest / 1000).toFixed(0)} ms  ` +
        `pauses under 20 ms between tasks: ${t.short}, ${(t.shortUs / 1000).toFixed(0)} ms (${pct(t.shortUs)})`,
    );
  }
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const nps = (runs) => sum(runs.map((r) => r[0])) / (sum(runs.map((r) => r[1])) / 1000);

/**
 * Pairs of engines on the same positions, the two of a pair at once, `npsRounds` times
 * (the pairs' order turning from round to round); each round's ratios printed, the
 * medians the figures.
 */
async function measureNps() {
  console.log(
    `engine build: ${BUILD}; ${POSITIONS.length} positions x ${npsNodes} nodes, hash 16 MB, 1 thread; ` +
      `${npsRounds} round(s), each of three pairs of engines searching at the same time, one a core`,
  );
  const { page, context } = await openPage(browser, `${site.origin}/?nosw=1`);
  // The machine's speed drifts by a fifth within minutes: two engines compared one after
  // the other measure the drift as much as the engines. Here the two of a pair search at
  // the same time, one on each of the two cores, so both meet the same machine: the
  // page's engine worker and node; the page's worker with the browser's own timers and
  // node; the page's worker with its timers and with the browser's (www/engine-lines.js).
  const pairs = [
    ['browser/node', () => browserNps(page), nodeNps],
    ["browser/node with the browser's timers", () => browserNps(page, 'browser'), nodeNps],
    ["browser: the page's timers / the browser's", () => browserNps(page), () => browserNps(page, 'browser')],
  ];
  const ratios = pairs.map(() => []);
  for (let r = 0; r < npsRounds; r++) {
    const parts = [];
    for (let k = 0; k < pairs.length; k++) {
      const [name, a, b] = pairs[(k + r) % pairs.length];
      const [x, y] = await Promise.all([a(), b()]);
      ratios[(k + r) % pairs.length].push(nps(x) / nps(y));
      parts.push(`${name} ${Math.round(nps(x))} / ${Math.round(nps(y))} = ${(nps(x) / nps(y)).toFixed(2)}`);
    }
    console.log(`  round ${r + 1}: ${parts.join('; ')}`);
  }
  await context.close();
  const list = (xs) => [...xs].sort((a, b) => a - b).map((x) => x.toFixed(2)).join(', ');
  pairs.forEach(([name], k) => {
    console.log(`nps: ${name} ${median(ratios[k]).toFixed(2)} (median of ${npsRounds}; ${list(ratios[k])})`);
  });
}

/**
 * One run of the game in the page with `workers` engine workers; prints its figures.
 * `timers: 'browser'`: the engines on the browser's own timers; `late`: the engines
 * started after the click (`?engines=late`), not when the PGN is pasted; `beside`: the
 * engines given their jobs without waiting for the report's first drawing
 * (`?draw=beside`).
 */
async function pageRun(game, workers, traced, timers = 'page', late = false, beside = false) {
  const { page: p, context: c } = await openPage(
    browser,
    `${site.origin}/?nosw=1&depth=${depth}&lines=${lines}&workers=${workers}${chunk ? `&chunk=${chunk}` : ''}` +
      (timers === 'browser' ? '&timers=browser' : '') +
      (late ? '&engines=late' : '') +
      (beside ? '&draw=beside' : ''),
  );
  // The page's main thread competes with the workers for the cores: its busy time, from
  // the paste to the end of the run (the import and the last report included), against
  // the wall time of the same span. The wait for the end polls twice a second: polled at
  // every animation frame (Playwright's default), the poll itself kept the main thread
  // drawing frames, all counted as the page's (README, browser benchmark).
  const cdp = await c.newCDPSession(p);
  await cdp.send('Performance.enable');
  const taskSeconds = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
  const main0 = await taskSeconds();
  const span0 = performance.now();
  await p.fill('#pgn', game.pgn);
  // A user's pause between pasting the game and pressing Analyse (`--pause`): the
  // engines start when the PGN is given (www/app.js), unless started late.
  if (pauseMs) await p.waitForTimeout(pauseMs);
  // The same while the engines run: from the page's `fairsight:engines` event that says
  // they start to the one that says they stopped, each awaited in the page (no polls,
  // which would be tasks of the main thread themselves).
  const engines = (running) =>
    p.evaluate(
      (running) =>
        new Promise((resolve) => {
          const heard = (e) => {
            if (e.detail.running !== running) return;
            window.removeEventListener('fairsight:engines', heard);
            resolve();
          };
          window.addEventListener('fairsight:engines', heard);
        }),
      running,
    );
  // Both listened for before the click: with nothing left to search (a short game
  // in the book), the engines stop as soon as they start.
  const started = engines(true);
  const stopped = engines(false);
  const cpu = cpuSampler();
  await p.click('#analyse');
  await started;
  const cpu0 = cpu.mark();
  const trace = traced ? await startTrace(cdp) : null;
  const pool0 = [await taskSeconds(), performance.now()];
  await stopped;
  const pool1 = [await taskSeconds(), performance.now()];
  const whileRunning = splitCpu(cpu.since(cpu0), workers);
  if (trace) {
    const events = await trace();
    // The whole trace, for a closer look (chrome://tracing or Perfetto opens it).
    fs.writeFileSync(path.join(root, 'target', 'bench-web-trace.json'), JSON.stringify({ traceEvents: events }));
    printTrace(events);
  }
  await p.waitForFunction(() => window.fairsight.state.runs > 0, null, { timeout: 0, polling: 500 });
  const used = splitCpu(cpu.stop(), workers);
  const mainBusy = (await taskSeconds()) - main0;
  const span = (performance.now() - span0) / 1000;
  const poolBusy = pool1[0] - pool0[0];
  const poolSpan = (pool1[1] - pool0[1]) / 1000;
  const s = await p.evaluate(() => window.fairsight.state.lastRun);
  await c.close();
  console.log(
    `  ${workers} worker(s)${timers === 'browser' ? " with the browser's timers" : ''}${late ? ', engines started late' : ''}` +
      `${beside ? ', the first drawing beside the engines' : ''}: ` +
      `wall ${(s.wallMs / 1000).toFixed(1)} s for ${s.positions} positions, ` +
      `busy ${(s.engineMs / 1000).toFixed(1)} s, efficiency ${(s.engineMs / workers / s.wallMs).toFixed(2)}, ` +
      `first analysed move after ${(s.firstMs / 1000).toFixed(1)} s (${(s.clickToFirstMs / 1000).toFixed(2)} s from the click), ` +
      `the report after the last result ${s.tailMs === undefined ? '-' : Math.round(s.tailMs)} ms, ` +
      (s.steps ? `steps from the click ${s.steps.map(([k, ms]) => `${k} ${ms}`).join(', ')} ms, ` : '') +
      (s.analyzer?.views ? `the core's views ${s.analyzer.views.map(([ms]) => ms).join(', ')} ms, ` : '') +
      `main thread busy ${mainBusy.toFixed(2)} s of ${span.toFixed(1)} s (${((100 * mainBusy) / span).toFixed(1)}%), ` +
      `${poolBusy.toFixed(2)} s of the engines' ${poolSpan.toFixed(1)} s (${((100 * poolBusy) / poolSpan).toFixed(1)}%)` +
      (s.renders ? `, ${s.renders.length} live report renders (${s.renders.join(', ')} ms)` : ''),
  );
  console.log(`    whole run: ${cpuText(used)}`);
  console.log(`    while the engines run: ${cpuText(whileRunning)}`);
  return { s, poolBusy, poolSpan, cpu: whileRunning };
}

/**
 * From the click on Analyse to the first analysed position on the progress bar, with two
 * workers, in the page at `origin` (this one or the baseline's), seen from outside: the
 * bar polled every 20 ms, the same in both pages. The page is closed at once after it,
 * which ends its workers.
 */
async function firstMoveRun(origin, game) {
  const { page: p, context: c } = await openPage(browser, `${origin}/?nosw=1&depth=${depth}&lines=${lines}&workers=2`);
  await p.fill('#pgn', game.pgn);
  // A user's pause between pasting and pressing Analyse (`--pause`), the same in both.
  if (pauseMs) await p.waitForTimeout(pauseMs);
  const t = performance.now();
  await p.click('#analyse');
  await p.waitForFunction(() => Number(document.getElementById('bar')?.value) > 0, null, { timeout: 0, polling: 20 });
  const ms = performance.now() - t;
  await c.close();
  return ms;
}

const site = await startServer();
// The baseline's page, served by its own server module (whose root is its checkout).
const baseSite = baselineDir
  ? await (async () => {
      const { serve } = await import(path.join(baselineDir, 'scripts', 'serve.mjs'));
      const server = await serve({ port: 0 });
      return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
    })()
  : null;
const browser = await launch();
try {
  if (args.includes('--no-nps')) console.log('nps: skipped (--no-nps)');
  else await measureNps();

  const game = benchGame();
  console.log(
    `game: ${game.label}, ${game.plies} plies; review mode depth ${depth}, ${lines} lines, chunk ${chunk || 'default'}; ` +
      `${gameRounds} round(s)` + (args.includes('--no-cli') ? '' : ', the page and the CLI in turn'),
  );
  const pageSpeedUps = [];
  const cliSpeedUps = [];
  const ratios = [];
  const walls = [];
  const busy = { 1: [], 2: [] };
  const lateFirst = [];
  const beside = [];
  const baseFirst = [];
  // The CPU spent besides the engines' search, as a share of it, with two engines: the
  // page's while its engines run, the CLI's whole run (its own work before and after is
  // small: so this is the most the CLI can spend while its engines run).
  const rest = { page: [], cli: [] };
  for (let r = 0; r < gameRounds; r++) {
    // The machine's speed drifts within a run: each round measures the page's pair of
    // runs and the CLI's back to back, the one first that went second in the round before.
    const pageFirst = r % 2 === 0;
    let cliSpeedUp = null;
    let cliWalls = null;
    const cli = async () => {
      if (args.includes('--no-cli')) return;
      // The same game and settings through the CLI's pool: node engine processes of the
      // same build (the CLI's default engine), 1 then 2 of them.
      const runs = [];
      for (const jobs of [1, 2]) runs.push(await cliRun(game.pgn, jobs));
      const cliWall = runs.map((c) => c.ms);
      cliSpeedUp = cliWall[0] / cliWall[1];
      cliWalls = cliWall;
      console.log(
        `  cli (node engines): 1 process ${(cliWall[0] / 1000).toFixed(1)} s, 2 processes ${(cliWall[1] / 1000).toFixed(1)} s, ` +
          `speed-up ${cliSpeedUp.toFixed(2)}`,
      );
      runs.forEach((c, k) => console.log(`    ${k + 1} process(es): ${cpuText(c.cpu)}`));
      rest.cli.push(runs[1].cpu.rest / runs[1].cpu.search);
    };
    if (!pageFirst) await cli();
    const rows = [];
    for (const workers of [1, 2]) {
      const run = await pageRun(game, workers, r === 0 && args.includes('--trace') && workers === 2);
      rows.push(run.s);
      busy[workers].push(run.poolBusy / run.poolSpan);
      if (workers === 2) rest.page.push(run.cpu.rest / run.cpu.search);
    }
    // The baseline of the engines' timers, traced too: the pauses the browser's 4 ms
    // clamp leaves between an engine's tasks, against the page's (www/engine-lines.js).
    if (r === 0 && args.includes('--trace')) await pageRun(game, 2, true, 'browser');
    // The baseline of the engines' start: after the click, once the game is imported
    // and planned, not when it is pasted (www/app.js, `?engines=late`).
    if (args.includes('--late')) {
      const late = await pageRun(game, 2, false, 'page', true);
      lateFirst.push([rows[1].clickToFirstMs, late.s.clickToFirstMs]);
    }
    // The baseline of the first drawing: beside the engines' first jobs, not before them
    // (www/app.js, `?draw=beside`).
    if (args.includes('--draw-beside')) {
      const b = await pageRun(game, 2, false, 'page', false, true);
      beside.push({ first: [rows[1].clickToFirstMs, b.s.clickToFirstMs], busy: [busy[2].at(-1), b.poolBusy / b.poolSpan] });
    }
    // The baseline's page and this one, the first analysed move seen from outside, in turn.
    if (baseSite) {
      const order = r % 2 === 0 ? [site, baseSite] : [baseSite, site];
      const ms = new Map();
      for (const o of order) ms.set(o, await firstMoveRun(o.origin, game));
      baseFirst.push([ms.get(site), ms.get(baseSite)]);
      console.log(
        `  first analysed position on the bar from the click, 2 workers: this page ${(ms.get(site) / 1000).toFixed(2)} s, ` +
          `the baseline's ${(ms.get(baseSite) / 1000).toFixed(2)} s`,
      );
    }
    const pageSpeedUp = rows[0].wallMs / rows[1].wallMs;
    pageSpeedUps.push(pageSpeedUp);
    console.log(`  page speed-up 2 vs 1 worker: ${pageSpeedUp.toFixed(2)}`);
    if (pageFirst) await cli();
    if (cliSpeedUp !== null) {
      cliSpeedUps.push(cliSpeedUp);
      ratios.push(pageSpeedUp / cliSpeedUp);
      // Wall time for the game, the page's against the CLI's, with one engine and with
      // two: a page whose one worker is the faster has the lower speed-up for it.
      walls.push([rows[0].wallMs / cliWalls[0], rows[1].wallMs / cliWalls[1]]);
      console.log(`round ${r + 1}: page speed-up / cli speed-up ${(pageSpeedUp / cliSpeedUp).toFixed(2)}`);
    }
  }
  const pct = (xs) => xs.map((x) => `${(100 * x).toFixed(1)}%`).join(', ');
  if (lateFirst.length) {
    const r = lateFirst.map(([early, late]) => early / late);
    console.log(
      `first analysed move from the click, 2 workers, engines started when the PGN is pasted / after the click: ` +
        `${median(r).toFixed(2)} (median of ${r.length}; ${lateFirst.map(([e, l]) => `${(e / 1000).toFixed(2)}/${(l / 1000).toFixed(2)} s`).join(', ')})`,
    );
  }
  if (beside.length) {
    console.log(
      `the first drawing before the engines' jobs / beside them, 2 workers: main thread busy while the engines run ` +
        `${beside.map(({ busy: [a, b] }) => `${(100 * a).toFixed(1)}%/${(100 * b).toFixed(1)}%`).join(', ')}; ` +
        `first analysed move from the click ${median(beside.map(({ first: [a, b] }) => a / b)).toFixed(2)} ` +
        `(median of ${beside.length}; ${beside.map(({ first: [a, b] }) => `${(a / 1000).toFixed(2)}/${(b / 1000).toFixed(2)} s`).join(', ')})`,
    );
  }
  if (baseFirst.length) {
    const size = (dir) => fs.statSync(path.join(dir, 'www', 'pkg', 'fairsight_bg.wasm')).size.toLocaleString('en');
    console.log(`core wasm: this page ${size(root)} bytes, the baseline's ${size(baselineDir)}`);
    const r = baseFirst.map(([a, b]) => a / b);
    console.log(
      `first analysed position on the bar from the click, 2 workers, this page / the baseline's (${baselineDir}): ` +
        `${median(r).toFixed(2)} (median of ${r.length}; ${baseFirst.map(([a, b]) => `${(a / 1000).toFixed(2)}/${(b / 1000).toFixed(2)} s`).join(', ')})`,
    );
  }
  console.log(`main thread busy while the engines run: 2 workers ${pct(busy[2])}; 1 worker ${pct(busy[1])}`);
  console.log(
    `CPU besides the engines' search, share of it, 2 engines: page while the engines run ${pct(rest.page)}` +
      (rest.cli.length ? `; cli, whole run ${pct(rest.cli)}` : ''),
  );
  console.log(`page speed-up 2 vs 1 worker: ${median(pageSpeedUps).toFixed(2)} (median of ${gameRounds}; ${pageSpeedUps.map((x) => x.toFixed(2)).join(', ')})`);
  if (ratios.length) {
    console.log(`cli speed-up: ${median(cliSpeedUps).toFixed(2)} (${cliSpeedUps.map((x) => x.toFixed(2)).join(', ')})`);
    console.log(`page speed-up / cli speed-up: ${median(ratios).toFixed(2)} (median of ${ratios.length}; ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
    for (const [k, name] of [[0, '1 worker / 1 process'], [1, '2 workers / 2 processes']]) {
      const xs = walls.map((w) => w[k]);
      console.log(`wall time for the game, page / cli, ${name}: ${median(xs).toFixed(2)} (median of ${xs.length}; ${xs.map((x) => x.toFixed(2)).join(', ')})`);
    }
  } else console.log('cli: skipped (--no-cli)');
} finally {
  await browser.close();
  site.close();
  baseSite?.close();
}
