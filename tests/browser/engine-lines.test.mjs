// The page's engine script (www/engine-lines.js in front of Stockfish's, by
// scripts/build-web.sh) posts the engine's lines a search at a time: fewer messages than
// lines, each ending where the engine's handshake or search answer ends, and the lines
// themselves those the same build prints under node, in the same order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launch, openPage, root, startServer, SKIP } from './harness.mjs';

let browser;
let site;

before(async () => {
  if (SKIP) return; // every test is skipped, with the reason
  site = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  site?.close();
});

const BUILD = 'stockfish-19-lite-single';
const COMMANDS = [
  'uci',
  'setoption name Hash value 16',
  'setoption name Threads value 1',
  'setoption name MultiPV value 3',
  'isready',
  'position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9',
  'go depth 8',
];

/** A line with its search statistics (time, nps, hashfull) left out: they vary. */
const stable = (line) => line.replace(/ (time|nps|hashfull) \d+/g, '');

/** The lines the same build prints under node for COMMANDS, up to `bestmove`. */
function nodeLines() {
  return new Promise((resolve, reject) => {
    const p = spawn('node', [path.join(root, 'node_modules', 'stockfish', 'bin', `${BUILD}.js`)]);
    const lines = [];
    let buf = '';
    p.on('error', reject);
    p.stdout.on('data', (d) => {
      buf += d;
      let k;
      while ((k = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, k).trim();
        buf = buf.slice(k + 1);
        lines.push(line);
        if (line.startsWith('bestmove')) {
          p.stdin.end('quit\n');
          resolve(lines);
        }
      }
    });
    p.stdin.write(`${COMMANDS.join('\n')}\n`);
  });
}

test('the page engine posts its lines a search at a time, the lines unchanged', { skip: SKIP }, async () => {
  const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`);
  const messages = await page.evaluate(
    ({ build, commands }) =>
      new Promise((resolve, reject) => {
        const w = new Worker(`www/pkg/engine/${build}.js`);
        const got = [];
        w.onerror = (e) => reject(new Error(e.message));
        w.onmessage = (e) => {
          got.push(String(e.data));
          if (/(^|\n)bestmove /.test(String(e.data))) {
            w.terminate();
            resolve(got);
          }
        };
        for (const c of commands) w.postMessage(c);
      }),
    { build: BUILD, commands: COMMANDS },
  );
  await context.close();
  const lines = messages.flatMap((m) => m.split('\n'));
  const infos = lines.filter((l) => l.startsWith('info depth'));
  assert.ok(infos.length >= 8 * 3, `${infos.length} info lines of a depth-8, 3-line search`);
  // (The handshake's lines, `id` and `option`, go one a message: they are not `info`.)
  const search = messages.filter((m) => /(^|\n)(info depth|bestmove) /.test(m));
  assert.ok(search.length * 4 < infos.length, `${search.length} messages for ${infos.length} info lines`);
  // The answer of the search ends its message.
  assert.match(messages.at(-1), /(^|\n)bestmove \S+[^\n]*$/);
  assert.ok(lines.includes('uciok') && lines.includes('readyok'));
  assert.match(lines.at(-1), /^bestmove \S+/);

  // The same build under node prints the same lines (search statistics aside).
  const node = await nodeLines();
  const nodeOut = node.filter((l) => l.startsWith('info depth') || l.startsWith('bestmove'));
  assert.deepEqual(
    lines.filter((l) => l.startsWith('info depth') || l.startsWith('bestmove')).map(stable),
    nodeOut.map(stable),
  );
  assert.deepEqual(errors, []);
});

// The engine's short timers (its search's yields) run as messages of the worker to
// itself, not as the browser's timers, which hold a timer set from a timer's callback
// five deep to 4 ms: with them the core sat idle 4 ms at each yield. A worker of its own
// runs www/engine-lines.js (as the engine script does, in front) and then chains
// zero-delay timers: many run before a 100 ms timer of the browser's fires (with the
// clamp, at most 25 or so), their arguments arrive, clearTimeout cancels one, and a
// message from the page is heard while the chain runs (the pool's `stop` during a search).
const PROBE = `importScripts('../engine-lines.js');
const out = { args: true, cancelledRan: false };
let count = 0;
let due = false;
setTimeout(() => { due = true; }, 100);
const step = (a, b) => {
  if (a !== 1 || b !== 2) out.args = false;
  count += 1;
  if (!due) { setTimeout(step, 0, a, b); return; }
  out.before100ms = count;
  // Now chain until the page's message is heard (or 5 s pass: a starved worker).
  let heard = false;
  let starved = false;
  const giveUp = setTimeout(() => { starved = true; }, 5000);
  self.onmessage = () => { heard = true; };
  postMessage({ ready: true });
  const wait = () => {
    if (heard || starved) {
      clearTimeout(giveUp);
      postMessage({ ...out, heard, starved });
      return;
    }
    setTimeout(wait, 1);
  };
  setTimeout(wait, 0);
};
setTimeout(step, 0, 1, 2);
const id = setTimeout(() => { out.cancelledRan = true; }, 0);
clearTimeout(id);
`;

test("the engine's short timers are not held to the browser's 4 ms, and messages are heard between them", { skip: SKIP }, async () => {
  const probe = path.join(root, 'www', 'pkg', 'timers-probe.js');
  fs.writeFileSync(probe, PROBE);
  try {
    const { context, page, errors } = await openPage(browser, `${site.origin}/?nosw=1`);
    const got = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker('www/pkg/timers-probe.js');
          w.onerror = (e) => reject(new Error(e.message));
          w.onmessage = (e) => {
            if (e.data.ready) w.postMessage('stop');
            else {
              w.terminate();
              resolve(e.data);
            }
          };
        }),
    );
    await context.close();
    assert.ok(got.before100ms > 100, `${got.before100ms} zero-delay timers ran in 100 ms`);
    assert.equal(got.args, true, "a timer's arguments reach its callback");
    assert.equal(got.cancelledRan, false, 'clearTimeout cancels a short timer');
    assert.equal(got.heard, true, 'the page\'s message is heard while the timers chain');
    assert.equal(got.starved, false);
    assert.deepEqual(errors, []);
  } finally {
    fs.rmSync(probe, { force: true });
  }
});
